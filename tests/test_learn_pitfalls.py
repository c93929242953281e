"""The pitfalls of repeated items and of leakage: the hand-built grid and the data's health name
a repeated item with the row kept and why, the checks of a run and judgments that carry times
name the labels known when a list was made, and the two lessons on them are met by the moves a
student makes (checked on the page by AppTest)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import Settings
from metrics.io.checks import time_split_findings, time_values
from metrics.io.loaders import load_dataset, load_table
from tests.app_support import codes, fresh_app, open_page
from ui.learn.evaluate import copies, counted, pitfalls
from ui.learn.lessons import BY_ID, check, facts, value
from ui.learn.list_component import list_data
from ui.shell import handbuilt as hb

# ------------------------------------------------------------------------ repeated items


def grid(items, positions=None, retrieved=None, labels=None) -> pd.DataFrame:
    n = len(items)
    return pd.DataFrame(
        {
            "list": ["my_list"] * n,
            "position": positions or list(range(1, n + 1)),
            "item": items,
            "label": labels or [1.0] * n,
            "retrieved": retrieved or [True] * n,
        }
    )


def test_an_item_typed_twice_keeps_its_best_ranked_row_and_is_named_with_it():
    table = grid(["a", "b", "c", "d", "e", "c"], labels=[1, 0, 1, 1, 0, 0])
    assert hb.duplicates(table) == [hb.Duplicate("my_list", "c", 2, 3)]
    clean = hb.normalize(table)
    assert list(clean["item"]) == ["a", "b", "c", "d", "e"]
    assert clean.loc[clean["item"] == "c", "label"].item() == 1.0  # the row at rank 3


def test_the_best_ranked_row_wins_whatever_the_order_the_rows_were_typed_in():
    table = grid(["x", "y", "x"], positions=[5, 1, 2], labels=[0, 1, 1])
    assert hb.duplicates(table) == [hb.Duplicate("my_list", "x", 2, 2)]
    clean = hb.normalize(table)
    assert list(clean["item"]) == ["y", "x"] and list(clean["label"]) == [1.0, 1.0]


def test_a_repeated_item_kept_only_as_not_retrieved_has_no_rank():
    table = grid(["y", "x", "x"], retrieved=[True, False, False])
    assert hb.duplicates(table) == [hb.Duplicate("my_list", "x", 2, None)]


def test_the_hand_built_data_set_says_in_its_health_what_was_kept_and_why():
    health = hb.to_dataset(grid(["a", "b", "c", "d", "e", "c"])).health
    found = health.get("duplicate_items")
    assert found is not None and found.variant == "typed" and found.severity == "warning"
    assert found.examples == ["query my_list, item c: kept at rank 3"]
    assert "keeps the item's best-ranked row" in found.message
    assert health.warnings  # never "no warnings" with a repeated item
    assert hb.to_dataset(grid(["a", "b"])).health.get("duplicate_items") is None


def test_typing_a_repeated_item_on_the_data_page_names_it_under_the_grid_and_in_the_health():
    at = fresh_app()
    at.session_state["handbuilt_table"] = grid(["a", "b", "c", "d", "e", "c"])
    open_page(at, "data")
    at.radio(key="w_source").set_value("handbuilt").run()
    notes = [w.value for w in at.warning if "“c”" in w.value]
    assert notes and "is typed 2 times in “my" in notes[0] and "kept at rank 3" in notes[0]
    health = "\n".join(x.value for x in at.text)
    assert "typed more than once in the same list" in health
    assert "query my_list, item c: kept at rank 3" in health


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_the_repeated_item_note_is_worded_in_the_session_language(lang):
    at = fresh_app({"lang": lang})
    at.session_state["handbuilt_table"] = grid(["a", "c", "c"])
    open_page(at, "data")
    at.radio(key="w_source").set_value("handbuilt").run()
    note = next(w.value for w in at.warning if "c" in w.value and "2" in w.value)
    assert "typed" not in note and "kept" not in note


def test_a_repeated_item_in_a_list_counts_once_and_moves_the_items_below_up():
    from ui.shell.handbuilt_list import RankedList

    rl = RankedList("l", ("d1", "d1", "d2", "d3"), (1.0, 1.0, 0.0, 1.0))
    assert copies(rl) == {2: 1}
    assert counted(rl).items == ("d1", "d2", "d3")
    assert value(rl, "P", 3, Settings()) == pytest.approx(2 / 3)  # d1, d2, d3
    assert ("duplicate", {"item": "d1", "rank": 1, "at": 2}) in pitfalls(rl, 3, Settings())
    rows = list_data(rl, 2, 1.0, scale="binary")["rows"]
    assert [r["rank"] for r in rows] == [1, None, 2, 3] and [r["index"] for r in rows] == [
        1,
        2,
        3,
        4,
    ]
    assert rows[1]["copy"] and rows[1]["out"] and not rows[1]["relevant"]


# --------------------------------------------------------------------------------- times


def loaded(run: str, qrels: str | None = None):
    judged = load_table(qrels.encode(), "qrels.csv") if qrels else None
    return load_dataset([load_table(run.encode(), "run.csv")], judged).health


RUN = "query,item,score,ranked_at\nq1,a,3,2024-01-10\nq1,b,2,2024-01-10\nq2,c,1,2024-01-11\n"


def test_labels_dated_before_their_list_are_named_in_the_data_health():
    qrels = "query,item,relevance,clicked_at\nq1,a,1,2024-01-05\nq1,b,1,2024-01-12\n"
    qrels += "q2,c,1,2024-01-12\nq2,z,0,2024-01-01\n"
    found = loaded(RUN, qrels).get("labels_before_ranking")
    assert found is not None and found.severity == "warning"
    assert found.params == {
        "n": 1,
        "total": 3,
        "ranking_column": "ranked_at",
        "label_column": "clicked_at",
    }
    assert found.examples == ["query q1, item a"]  # z is not relevant: not counted


def test_a_clean_time_split_is_said_to_be_one():
    qrels = "query,item,relevance,judged_at\nq1,a,1,2024-01-15\nq2,c,1,2024-01-12\n"
    health = loaded(RUN, qrels)
    assert health.get("labels_before_ranking") is None
    assert health.get("time_split").params["n"] == 2


def test_a_log_that_carries_its_labels_is_checked_row_by_row():
    log = "query,item,score,label,ranked_at,clicked_at\n"
    log += "q1,a,3,1,10,3\nq1,b,2,1,10,12\nq1,x,1,0,10,\nq2,c,1,1,11,14\n"
    found = loaded(log).get("labels_before_ranking")
    assert found is not None and found.params["n"] == 1 and found.examples == ["query q1, item a"]


def test_without_a_time_on_both_sides_or_with_times_of_two_kinds_nothing_is_said():
    plain = "query,item,score\nq1,a,3\n"
    assert (
        loaded(plain, "query,item,relevance,clicked_at\nq1,a,1,2024-01-05\n").get("time_split")
        is None
    )
    health = loaded(RUN, "query,item,relevance,clicked_at\nq1,a,1,7\n")
    assert health.get("labels_before_ranking") is None and health.get("time_split") is None


def test_generic_time_names_are_the_runs_ranking_time_and_the_judgments_label_time():
    run = "query,item,score,timestamp\nq1,a,3,2024-01-10\n"
    qrels = "query,item,relevance,timestamp\nq1,a,1,2024-01-01\n"
    assert loaded(run, qrels).get("labels_before_ranking") is not None


def test_time_values_read_numbers_and_dates_and_refuse_other_text():
    kind, values = time_values(pd.Series(["3", "4.5", None]))
    assert kind == "number" and values[:2].tolist() == [3.0, 4.5] and np.isnan(values[2])
    kind, values = time_values(pd.Series(["2024-01-02", "2024-01-01T12:00:00Z"]))
    assert kind == "datetime" and values[0] > values[1]
    assert time_values(pd.Series(["soon", "later"])) is None


@st.composite
def timed_logs(draw):
    queries = ["q1", "q2", "q3"]
    rankings = [
        (q, m, draw(st.integers(0, 20))) for q in queries for m in ("A", "B") if draw(st.booleans())
    ]
    labels = [
        (q, f"i{j}", draw(st.sampled_from([0, 1, 2])), draw(st.integers(0, 20)))
        for q in queries
        for j in range(draw(st.integers(0, 3)))
    ]
    return rankings, labels


@settings(max_examples=80, deadline=None)
@given(timed_logs())
def test_the_labels_named_are_those_an_oracle_finds_before_every_list_of_their_query(case):
    rankings, labels = case
    ranked = pd.DataFrame(rankings, columns=["query", "model", "time"])
    judged = pd.DataFrame(labels, columns=["query", "item", "relevance", "time"])
    found = time_split_findings(ranked, judged, 1, "ranked_at", "clicked_at")
    made = {}
    for q, m, t in rankings:
        made[(q, m)] = min(made.get((q, m), t), t)
    with_list = {(q, i) for q, i, r, _t in labels if r >= 1 and any(k[0] == q for k in made)}
    early = {
        (q, i) for q, i, r, t in labels if r >= 1 and any(k[0] == q and t < made[k] for k in made)
    }
    if not with_list:
        assert found == []
    elif early:
        assert found[0].code == "labels_before_ranking"
        assert (found[0].params["n"], found[0].params["total"]) == (len(early), len(with_list))
    else:
        assert found[0].code == "time_split" and found[0].params["n"] == len(with_list)


# ------------------------------------------------------------------------------- lessons


def test_the_repeated_item_lesson_predicts_p_at_5_with_the_copy_left_out():
    lesson = BY_ID["duplicates"]
    found = facts(lesson, Settings())
    assert found["answer"] == pytest.approx(0.2)  # d1, d2, d3, d4, d5: one relevant
    assert found["copied"] == pytest.approx(0.4)  # the copy counted again
    assert found["moved"] == "d5" and found["tray"] == "d6"


def test_the_repeated_item_challenge_is_met_by_removing_the_copy_and_retrieving_the_tray():
    lesson = BY_ID["duplicates"]
    (rl,) = lesson.lists
    s = Settings()
    assert not check(lesson, (rl,), 5, s)
    done = rl.removed(2).from_tray(0).moved(6, -1)
    assert check(lesson, (done,), 5, s)
    assert not check(lesson, (rl.from_tray(0).moved(7, -3),), 5, s)  # the copy still there
    relabelled = rl.removed(2).with_label(2, 1.0)  # P@5 = 0.4 by relabelling: not the task
    assert value(relabelled, "P", 5, s) == pytest.approx(0.4)
    assert not check(lesson, (relabelled,), 5, s)


def test_the_leakage_challenge_needs_both_the_honest_labels_and_the_answer_in_the_pool():
    lesson = BY_ID["leakage"]
    q1, q2 = lesson.lists
    s = Settings()
    honest = q1.with_label(1, 0.0).with_label(3, 0.0)
    pooled = q2.from_tray(0).moved(6, -1)
    assert check(lesson, (honest, pooled), 5, s)
    assert not check(lesson, (q1, pooled), 5, s)
    assert not check(lesson, (honest, q2), 5, s)
    assert not check(lesson, (honest.with_label(2, 0.0), pooled), 5, s)  # b clicked after t=10
    assert not check(lesson, (honest.removed(1), pooled), 5, s)  # the items stay
    assert value(q1, "P", 5, s) == pytest.approx(0.8)
    assert value(honest, "P", 5, s) == pytest.approx(0.4)


def press(at, op: str, index: int = 0, shown: int = 0) -> None:
    at.session_state["learn_action"] = {"op": op, "index": index, "list": shown, "seq": 1}
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def met(at) -> bool:
    return any(s.value.startswith("Challenge met!") for s in at.success)


def test_the_repeated_item_lesson_on_the_page():
    at = open_page(fresh_app({"lesson": "duplicates"}), "learn")
    at.number_input(key="learn_predict_duplicates").set_value(0.2).run()
    at.button(key="btn_predict").click().run()
    assert any(s.value.startswith("Right:") for s in at.success)
    assert "P@5 = 1/5 = 0.20" in codes(at)
    assert any("“d1” is in the list twice" in w.value for w in at.warning)
    assert not met(at)
    press(at, "remove", 2)  # the copy
    press(at, "back", 0)  # d6 from the tray, at the end
    press(at, "up", 6)
    assert met(at)
    assert "P@5 = 2/5 = 0.40" in codes(at)


def test_the_leakage_lesson_on_the_page():
    at = open_page(fresh_app({"lesson": "leakage"}), "learn")
    assert any("P@5 — q1: 0.800, q2: 0.000" in c for c in codes(at))
    assert not met(at)
    press(at, "label", 1, shown=0)  # a (t=3): 1 -> unjudged, not relevant
    press(at, "label", 3, shown=0)  # c (t=6)
    assert not met(at)
    press(at, "back", 0, shown=1)  # q2's answer into the list
    press(at, "up", 6, shown=1)
    assert met(at)
    assert any("P@5 — q1: 0.400, q2: 0.200" in c for c in codes(at))
