"""Compare's drill-down: a click on a chart's point chooses that point's query, whatever its id
(quotes, ``%``, markup, Chinese and Japanese); the segment filter of the per-query deltas."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.review.compare import MISSING
from ui.review.drill import segment_deltas
from ui.review.figures import clicked_queries, disagreement_figure, query_scatter_figure
from ui.shell.safe import plotly_text

#: Ids plotly's text escaping changes, or that a hover template would read as a field.
AWKWARD = [
    'say "hi"',
    "it's",
    "50% off",
    "%{y}",
    "<b>bold</b>",
    "a & b",
    "東京 ラーメン",
    "北京&lt;",
    "plain",
]


def _deltas(queries: list[str]) -> pd.DataFrame:
    """Per-query values with gains, ties and losses (so every trace of the scatter has points)."""
    n = len(queries)
    baseline = [0.5] * n
    candidate = [0.5 + (0.1 if i % 3 == 0 else -0.1 if i % 3 == 1 else 0.0) for i in range(n)]
    return pd.DataFrame(
        {
            "query": queries,
            "baseline": baseline,
            "candidate": candidate,
            "delta": [c - b for b, c in zip(baseline, candidate)],
        }
    )


def _figures(queries: list[str]) -> dict[str, dict]:
    """The two clickable charts as the browser receives them (their JSON; positions read back
    from the figures, which plotly sends as typed arrays)."""
    deltas = _deltas(queries)
    pair = deltas[["query"]].assign(delta_x=deltas["delta"], delta_y=-deltas["delta"])
    figures = {
        "scatter": query_scatter_figure(deltas, "lexical", "hybrid", "nDCG@10", queries[0]),
        "disagree": disagreement_figure(pair, "nDCG@10", "P@10", queries[0]),
    }
    out = {}
    for name, fig in figures.items():
        spec = json.loads(fig.to_json())
        for sent, trace in zip(spec["data"], fig.data):
            sent["x"], sent["y"] = list(trace.x), list(trace.y)
        out[name] = spec
    return out


def _clicks(spec: dict) -> list[tuple[object, dict]]:
    """Each clickable point's selection event as Streamlit passes it (the point's customdata row)
    with the point itself."""
    out = []
    for trace in spec["data"]:
        for index, data in enumerate(trace.get("customdata") or []):
            point = {"x": trace["x"][index], "y": trace["y"][index], "customdata": data}
            out.append(({"selection": {"points": [point]}}, point))
    return out


def _query_at(deltas: pd.DataFrame, point: dict, x: str, y: str) -> set[str]:
    """The queries drawn at the point's position."""
    at = deltas[(deltas[x] == point["x"]) & (deltas[y] == point["y"])]
    return set(at["query"])


@pytest.mark.parametrize("chart", ["scatter", "disagree"])
def test_a_click_on_a_point_chooses_its_query_whatever_its_id(chart):
    spec = _figures(AWKWARD)[chart]
    clicks = _clicks(spec)
    assert len(clicks) == len(AWKWARD)  # every query drawn once (the ring has no customdata)
    chosen = [clicked_queries(event, AWKWARD) for event, _ in clicks]
    assert all(len(c) == 1 for c in chosen)
    assert sorted(c[0] for c in chosen) == sorted(AWKWARD)


def test_the_chosen_query_is_the_one_drawn_at_the_clicked_point():
    queries = [f"{q} {i}" for i, q in enumerate(AWKWARD)]
    deltas = _deltas(queries)
    for event, point in _clicks(_figures(queries)["scatter"]):
        (query,) = clicked_queries(event, queries)
        assert query in _query_at(deltas, point, "baseline", "candidate")


def test_the_hover_shows_the_id_escaped_once():
    spec = _figures(AWKWARD)["scatter"]
    for trace in spec["data"]:
        for raw, shown in trace.get("customdata") or []:
            assert shown == plotly_text(raw)
        if trace.get("customdata"):
            assert "%{customdata[1]}" in trace["hovertemplate"]
            assert "%{customdata[0]}" not in trace["hovertemplate"]


def test_a_click_on_an_unknown_or_an_empty_point_chooses_nothing():
    assert clicked_queries(None, AWKWARD) == []
    assert clicked_queries({"selection": {"points": []}}, AWKWARD) == []
    assert clicked_queries({"selection": {"points": [{"x": 1}]}}, AWKWARD) == []
    gone = {"selection": {"points": [{"customdata": ["another data set", "x"]}]}}
    assert clicked_queries(gone, AWKWARD) == []
    escaped = {"selection": {"points": [{"customdata": [plotly_text("50% off"), "x"]}]}}
    assert clicked_queries(escaped, AWKWARD) == []  # the id, not its escaped text


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=6, unique=True))
def test_any_ids_round_trip_through_the_chart(queries):
    clicks = _clicks(_figures(queries)["scatter"])
    assert sorted(clicked_queries(e, queries)[0] for e, _ in clicks) == sorted(queries)


def test_the_segment_filter_keeps_the_segments_queries_a_query_absent_being_missing():
    deltas = _deltas(["q1", "q2", "q3", "q4"])
    segments = pd.DataFrame({"query": ["q1", "q2", "q3"], "market": ["JP", "US", None]})
    merged = segment_deltas(deltas, segments, None)
    assert list(merged["market"]) == ["JP", "US", MISSING, MISSING]
    assert list(merged["delta"]) == list(deltas["delta"])
    assert list(segment_deltas(deltas, segments, ("market", MISSING))["query"]) == ["q3", "q4"]
    only = segment_deltas(deltas, segments, ("market", "JP"))
    assert list(only["query"]) == ["q1"] and only.index.tolist() == [0]
    assert segment_deltas(deltas, pd.DataFrame(columns=["query"]), None).equals(deltas)
