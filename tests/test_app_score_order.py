"""The Data page asks whether lower scores are better (distances), and its answer ranks the lists
the right way round: in the numbers, the link, the sidebar and the report."""

from __future__ import annotations

import pytest

from tests.app_support import fresh_app, open_page, open_tab, upload
from tests.test_score_order import VECTORS

#: The same lists as similarities (1 - distance): higher is better.
SIMILARITIES = VECTORS.replace("distance", "score")
for _d, _s in (("0.1", "0.9"), ("0.2", "0.8"), ("0.3", "0.7"), ("0.4", "0.6")):
    SIMILARITIES = SIMILARITIES.replace(_d, _s)


def _order_buttons(at, keep: bool = False) -> list:
    prefix = "btn_order_keep_" if keep else "btn_order_"
    return [
        b
        for b in at.button
        if b.key and b.key.startswith(prefix) and (keep or not b.key.startswith("btn_order_keep"))
    ]


def _mean(at, model: str, column: str = "RR@20") -> float:
    open_page(at, "curves")
    return float(at.dataframe[0].value.set_index("model").loc[model, column])


def _texts(at) -> str:
    shown = [w.value for w in at.warning] + [x.value for x in at.main.text]
    return "\n".join(shown).replace("\\", "")  # Markdown escapes


def test_a_distance_column_is_asked_about_and_confirming_gives_the_right_numbers():
    at = upload(fresh_app({"m": "RR"}), [("vectors.csv", VECTORS.encode(), "text/csv")])
    asked = [w.value.replace("\\", "") for w in at.warning if "sounds like a dist" in w.value]
    assert len(asked) == 1 and "distance" in asked[0] and "vectors.csv" in asked[0]
    assert "Column 'distance' sounds like a score where lower is better" in _texts(at)
    assert _mean(at, "vectors") == pytest.approx(7 / 24)  # upside down: 0.29
    open_page(at, "data")
    (confirm,) = _order_buttons(at)
    confirm.click().run()
    assert not at.exception
    assert at.query_params["order"] == "ascending"
    assert at.sidebar.selectbox(key="w_score_order").value == "ascending"
    assert not _order_buttons(at) and "sounds like" not in _texts(at)
    captions = [c.value.replace("\\", "") for c in at.main.caption]
    assert any("vectors.csv: lower is better" in c for c in captions)
    assert _mean(at, "vectors") == pytest.approx(0.75)


def test_the_order_in_a_link_is_in_force_when_the_link_is_opened():
    at = upload(
        fresh_app({"m": "RR", "order": "ascending"}),
        [("vectors.csv", VECTORS.encode(), "text/csv")],
    )
    assert not _order_buttons(at) and "sounds like" not in _texts(at)
    assert _mean(at, "vectors") == pytest.approx(0.75)


def test_keeping_the_order_as_set_stops_asking_and_leaves_the_numbers():
    at = upload(fresh_app({"m": "RR"}), [("vectors.csv", VECTORS.encode(), "text/csv")])
    (keep,) = _order_buttons(at, keep=True)
    keep.click().run()
    assert not _order_buttons(at) and "order" not in at.query_params
    assert _mean(at, "vectors") == pytest.approx(7 / 24)


def test_one_model_of_distances_beside_one_of_similarities_is_set_alone():
    runs = [
        ("vectors.csv", VECTORS.encode(), "text/csv"),
        ("sims.csv", SIMILARITIES.encode(), "text/csv"),
    ]
    at = upload(fresh_app({"m": "RR"}), runs)
    (confirm,) = _order_buttons(at)  # asked about the distances only
    confirm.click().run()
    assert not at.exception
    assert at.query_params["orders"] == "vectors" and "order" not in at.query_params
    assert at.sidebar.multiselect(key="w_score_order_models").value == ["vectors"]
    assert _mean(at, "vectors") == pytest.approx(0.75)
    assert _mean(at, "sims") == pytest.approx(0.75)  # its scores still rank highest first
    open_tab(open_page(at, "report"), "report", "about")
    provenance = at.dataframe[-1].value.set_index("setting")["value"]
    assert provenance["Score order"].startswith("higher is better")
    assert provenance["Score order per model"] == "vectors: lower is better"


def test_hand_built_lists_keep_their_positions_whatever_the_score_order():
    at = open_page(fresh_app({"order": "ascending", "data": "handbuilt"}), "data")
    assert at.sidebar.selectbox(key="w_score_order").disabled
    assert any("ranked by their positions" in c.value for c in at.sidebar.caption)
