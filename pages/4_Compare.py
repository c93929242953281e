"""Compare page: is a candidate better than the baseline, by how much, how sure, on which
queries.

The verdict is above the tabs; only the open tab is computed and drawn
(:func:`ui.review.sections.sections`); the tabs are laid out by :mod:`ui.review.compare_tabs`.
"""

from ui.review.compare_tabs import TABS, CompareView, shown_tabs, verdict
from ui.review.context import review_context
from ui.review.sections import sections

rc = review_context("compare", "compare.title")
measures = rc.measures()
view = CompareView(rc, measures, rc.review(measures))
verdict(view)

section = sections("compare", shown_tabs(view))
with section.body:
    TABS[section.id](view)
