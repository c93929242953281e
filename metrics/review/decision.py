"""The decision of a review: the rule it follows, the tier of each row, and the recommendation.

A review decides on one **lead measure** (:func:`lead_measure`): the one the user chose, else
``nDCG@10`` when the review computes it, else the review's first measure. The headline, the
report's first chart and the Segments page all follow it.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The lead measure when the user chose none and the review computes it.
DEFAULT_LEAD = "nDCG@10"


def lead_measure(measures: Sequence[str], chosen: str | None = None) -> str:
    """The measure a review decides on: ``chosen`` when it is among ``measures``, else
    :data:`DEFAULT_LEAD` when computed, else the first measure (``""`` without any).

    >>> lead_measure(["P@10", "nDCG@10"])
    'nDCG@10'
    >>> lead_measure(["P@10", "RR"]), lead_measure(["P@10", "RR"], "RR")
    ('P@10', 'RR')
    """
    if chosen and chosen in measures:
        return chosen
    if DEFAULT_LEAD in measures:
        return DEFAULT_LEAD
    return measures[0] if measures else ""
