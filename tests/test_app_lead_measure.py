"""The review pages follow the measure the review decides on: Segments opens on it, and the
Report page opens as its document does, with the headline and that measure's chart."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.app_support import fresh_app, open_page


def _walk(node) -> Iterator[object]:
    """The page's elements in the order they are drawn."""
    yield node
    for child in (getattr(node, "children", None) or {}).values():
        yield from _walk(child)


@pytest.mark.parametrize(
    ("measures", "opened"),
    [("P,nDCG", "nDCG"), ("nDCG,P", "nDCG"), ("P,R", "P"), ("R,P", "R")],
)
def test_segments_opens_on_the_lead_measure(measures, opened):
    """nDCG@10 when the review computes it, else the first measure, in any order."""
    at = open_page(fresh_app({"m": measures}), "segments")
    assert at.selectbox(key="w_seg_measure").value == opened
    assert any(f"{opened}@10" in s.value for s in at.subheader)


def test_segments_keeps_the_measure_the_user_chose():
    at = open_page(fresh_app({"m": "P,nDCG"}), "segments")
    at.selectbox(key="w_seg_measure").set_value("P").run()
    at.run()
    assert at.selectbox(key="w_seg_measure").value == "P"


def test_the_report_page_opens_with_the_headline_then_the_lead_measures_chart():
    at = open_page(fresh_app({"m": "P,nDCG"}), "report")
    order = []
    for node in _walk(at._tree):
        key = getattr(node, "key", None) or ""
        if key == "verdict_box":
            order.append("headline")
        elif type(node).__name__ == "Subheader" and "change vs lexical" in node.value:
            order.append("lead title")
        elif key.endswith("_report_lead"):
            order.append(key.removesuffix("_report_lead"))
        elif key.startswith("w_review_") or key == "w_seg_by":
            order.append("controls")
    assert order[:4] == ["headline", "lead title", "wide_only", "phone_only"], order
    assert set(order[4:]) == {"controls"}, order
    title = next(s.value for s in at.subheader if "change vs lexical" in s.value)
    assert (
        title.replace("\\", "") == "nDCG@10: change vs lexical, over all queries and by query_type"
    )
    wide, phone = (json.loads(c.proto.spec) for c in at.get("plotly_chart")[:2])
    assert wide["layout"]["xaxis"]["title"]["text"] == "Δ nDCG@10 (candidate − lexical)"
    assert wide["layout"]["yaxis"]["showticklabels"] is True
    assert phone["layout"]["yaxis"]["showticklabels"] is False
