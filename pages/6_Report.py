"""Report page: one decision document for stakeholders, downloadable as one self-contained HTML
file in the session's language.

The page opens as the document does: the headline, then the chart of the lead measure (each
candidate's difference overall and per segment); then the controls, the downloads and tabs of the
document's parts, of which only the open one is computed and drawn
(:func:`ui.review.sections.sections`); the downloads hold the whole document. The downloads are
made after the page's run, when asked for: their words are fixed in the page's language first.
The document is assembled by :mod:`ui.review.report`, its parts laid out by
:mod:`ui.review.report_tabs`.
"""

from ui.review.context import review_context
from ui.review.controls import verdict_box
from ui.review.lead import lead_chart
from ui.review.report import ReportDocument, report_review, segment_by
from ui.review.report_tabs import TABS, downloads, header, shown_tabs
from ui.review.sections import sections

rc = review_context("report", "review_report.title", first_screen=True)
rr = report_review(rc, segment_by(rc))
with rc.top:  # the headline and the lead chart, above the controls
    verdict_box(rr.review, rc.words)
    lead_chart(rr.review, rr.primary, rr.by, rc.words, "report_lead")
doc = ReportDocument(rr)
downloads(doc)
header(doc)

section = sections("report", shown_tabs(doc))
with section.body:
    TABS[section.id](doc)
