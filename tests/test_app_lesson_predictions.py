"""The Learn lessons that ask for a prediction, done as a learner does them: the question shows
the lists but no number, a wrong prediction is told so and a right one confirmed, the numbers
then shown are metrics' own, and the challenge is met by the page's controls."""

from __future__ import annotations

import pandas as pd
import pytest

from metrics import Settings, evaluate, summarize
from tests.app_support import codes, fresh_app, open_page
from tests.test_app_learn import press
from tests.test_languages import english_in, shown_texts

NOT_QUITE = "Not quite"
RIGHT = "Right:"
MET = "Challenge met!"


def start(lesson: str, params: dict[str, str] | None = None):
    at = open_page(fresh_app({"lesson": lesson, **(params or {})}), "learn")
    assert at.radio(key="w_learn_source").value == "lesson"
    return at


def asks(at, lesson: str) -> None:
    """The question is on the page, with its lists, and no number of the lesson yet."""
    assert any(m.value.startswith("**Predict first:**") for m in at.markdown)
    assert codes(at) == []  # no formula, no value
    assert not at.success
    assert at.button(key="btn_predict").disabled  # nothing to commit yet
    assert not [s for s in at.slider if s.key == "w_learn_k"]  # no K to play with yet


def commit(at, lesson: str, answer: float | str) -> None:
    key = f"learn_predict_{lesson}"
    widget = at.radio(key=key) if isinstance(answer, str) else at.number_input(key=key)
    widget.set_value(answer).run()
    assert not at.button(key="btn_predict").disabled
    at.button(key="btn_predict").click().run()
    assert not at.exception, [e.value for e in at.exception]


def told_wrong(at, truth: str) -> None:
    """The verdict names the true value; a choice is quoted (never "you predicted It rises,
    but it is It falls")."""
    verdicts = [w.value for w in at.warning if w.value.startswith(NOT_QUITE)]
    number = truth[:1].isdigit()
    ending = f"but it is {truth}." if number else f"the answer is “{truth}”."
    assert verdicts and verdicts[0].endswith(ending), verdicts
    assert number or "you chose “" in verdicts[0], verdicts
    assert not [s.value for s in at.success if s.value.startswith(RIGHT)]


def told_right(at) -> None:
    assert [s.value for s in at.success if s.value.startswith(RIGHT)]
    assert not [w.value for w in at.warning if w.value.startswith(NOT_QUITE)]


def revealed(at) -> str:
    """What the page writes after the prediction (the lesson's explanation among it); the
    question is gone."""
    assert not any(m.value.startswith("**Predict first:**") for m in at.markdown)
    return "\n".join(m.value for m in at.markdown)


def start_over(at) -> None:
    at.button(key="btn_lesson_reset").click().run()
    assert not at.exception, [e.value for e in at.exception]


def met(at) -> bool:
    return any(s.value.startswith(MET) for s in at.success)


def engine(rows: list[tuple], judged: list[tuple], measure: str, **settings) -> dict[str, float]:
    """``measure`` per query and its mean (``"mean"``) by metrics, for a run given as
    ``(query, item, score)`` rows and judgments as ``(query, item, label)`` rows."""
    run = pd.DataFrame(rows, columns=["query", "item", "score"])
    qrels = pd.DataFrame(judged, columns=["query", "item", "relevance"])
    ev = evaluate(run, qrels, [measure], Settings(**settings))
    out = {str(r["query"]): float(r[measure]) for r in ev.per_query.to_dict("records")}
    return out | {"mean": float(summarize(ev)["value"].iloc[0])}


# ---------------------------------------------------------------------- renaming an item


def _renamed(name: str, **settings) -> float:
    rows = [("q", name, 0.9), ("q", "d5", 0.9), ("q", "d4", 0.5), ("q", "d2", 0.3)]
    judged = [("q", name, 1), ("q", "d5", 0), ("q", "d4", 0), ("q", "d2", 0)]
    return engine(rows, judged, "nDCG@3", **settings)["q"]


def test_renaming_a_tied_item_is_predicted_revealed_and_undone_by_the_tie_policy():
    at = start("rename_ties")
    asks(at, "rename_ties")
    shown = at.dataframe[0].value
    assert list(shown["item"]) == ["d9", "d5", "d4", "d2"]  # in trec_eval's order
    before, after = _renamed("d9"), _renamed("d1")
    assert before == pytest.approx(1.0) and after < before
    commit(at, "rename_ties", before)  # "a name cannot change a measure"
    told_wrong(at, f"{after:.3f}")
    text = revealed(at)
    assert f"nDCG@3 = {after:.3f} instead of {before:.3f}" in text
    assert f"would stay {_renamed('d1', ties='input_order'):.3f}" in text
    assert any(c.endswith(f"= {after:.3f}") and c.startswith("nDCG@3") for c in codes(at))
    assert not met(at)

    start_over(at)
    asks(at, "rename_ties")
    commit(at, "rename_ties", round(after, 2))
    told_right(at)
    at.radio(key="learn_policy_ties").set_value("input_order").run()
    assert met(at)
    assert at.sidebar.selectbox(key="w_ties").value == "input_order"
    assert any(c == f"nDCG@3 = 1.000/1.000 = {before:.3f}" for c in codes(at))
    at.radio(key="learn_policy_ties").set_value("rank").run()  # the stored order: met too
    assert not at.exception and met(at)


# ---------------------------------------------------------------------- nDCG@K falls


def test_ndcg_falling_with_k_is_predicted_revealed_and_repaired_from_the_tray():
    at = start("ndcg_k_falls")
    asks(at, "ndcg_k_falls")
    rows = [("q", f"d{i}", 5.0 - i) for i in range(1, 5)]
    judged = [("q", "d1", 1), ("q", "d2", 0), ("q", "d3", 0), ("q", "d4", 0), ("q", "x1", 1)]
    at1 = engine(rows, judged, "nDCG@1")["q"]
    at4 = engine(rows, judged, "nDCG@4")["q"]
    assert at4 < at1
    commit(at, "ndcg_k_falls", "rises")
    told_wrong(at, "It falls")
    text = revealed(at)
    assert f"nDCG@1 = {at1:.3f}" in text and f"nDCG@4 = {at4:.3f}" in text
    assert any(c.startswith("nDCG@4") and c.endswith(f"= {at4:.3f}") for c in codes(at))

    start_over(at)
    commit(at, "ndcg_k_falls", "falls")
    told_right(at)
    press(at, "back", 0)  # x1 joins the list at rank 5
    for rank in (5, 4, 3):
        assert not met(at)
        press(at, "up", rank)
    assert met(at)
    assert "nDCG@4 = 1.631/1.631 = 1.000" in codes(at)


# ---------------------------------------------------------------------- two gain formulas


def _gain_lists(gain: str) -> dict[str, float]:
    judged = [("q", i, 2) for i in ("a1", "a2", "a3")] + [("q", "b1", 3)]
    judged += [("q", "n1", 0), ("q", "n2", 0)]
    out = {}
    for name, items in (("A", ("a1", "a2", "a3")), ("B", ("b1", "n1", "n2"))):
        rows = [("q", item, 3.0 - i) for i, item in enumerate(items)]
        out[name] = engine(rows, judged, "nDCG@3", gain=gain)["q"]
    return out


def test_the_two_gain_formulas_are_predicted_revealed_and_switched_on_the_page():
    at = start("gain_formulas")
    asks(at, "gain_formulas")
    linear, exponential = _gain_lists("linear"), _gain_lists("exponential")
    assert linear["A"] > linear["B"] and exponential["B"] > exponential["A"]
    question = " ".join(m.value for m in at.markdown)
    assert f"{linear['A']:.3f} for A and {linear['B']:.3f} for B" in question
    commit(at, "gain_formulas", "A")
    told_wrong(at, "List B")
    text = revealed(at)
    assert f"{exponential['A']:.3f} for A and {exponential['B']:.3f} for B" in text
    assert "grows from 3 to 7" in text and "only from 2 to 3" in text

    start_over(at)
    commit(at, "gain_formulas", "B")
    told_right(at)
    assert not met(at)
    at.radio(key="learn_policy_gain").set_value("exponential").run()
    assert at.sidebar.selectbox(key="w_gain").value == "exponential"
    assert met(at)
    assert f"nDCG@3 — A: {exponential['A']:.3f}, B: {exponential['B']:.3f}" in codes(at)


# ---------------------------------------------------------------------- a skipped query


def _mrr(**settings) -> float:
    rows = [("q1", "d1", 2.0), ("q1", "d2", 1.0), ("q2", "d1", 2.0), ("q2", "d2", 1.0)]
    judged = [("q1", "d1", 0), ("q1", "d2", 1), ("q2", "d1", 1), ("q2", "d2", 0)]
    judged += [("q3", "d1", 1)]
    return engine(rows, judged, "RR@5", **settings)["mean"]


def test_a_skipped_query_is_predicted_revealed_and_counted_as_zero_by_the_setting():
    at = start("missing_query")
    asks(at, "missing_query")
    skipped, zero = _mrr(), _mrr(missing_queries="zero")
    assert skipped > zero
    commit(at, "missing_query", zero)  # "a query without results scores 0"
    told_wrong(at, f"{skipped:.3f}")
    text = revealed(at)
    assert f"/ 2 = {skipped:.3f}" in text and f"/ 3 = {zero:.3f}" in text
    assert codes(at)[0].endswith(f"MRR@5 = (0.500 + 1.000)/2 = {skipped:.3f}")

    start_over(at)
    commit(at, "missing_query", round(skipped, 2))
    told_right(at)
    at.radio(key="learn_policy_missing_queries").set_value("zero").run()
    assert at.sidebar.selectbox(key="w_missing_queries").value == "zero"
    assert met(at)
    assert codes(at)[0].endswith(f"MRR@5 = (0.500 + 1.000 + 0.000)/3 = {zero:.3f}")


# ---------------------------------------------------------------------- the other languages


@pytest.mark.parametrize("lang", ["zh", "ja"])
@pytest.mark.parametrize(
    ("lesson", "answer"),
    [
        ("rename_ties", 0.5),
        ("ndcg_k_falls", "same"),
        ("gain_formulas", "B"),
        ("missing_query", 0.5),
    ],
)
def test_the_question_and_the_answer_show_no_english_in_chinese_and_japanese(lang, lesson, answer):
    at = start(lesson, {"lang": lang})
    assert english_in(shown_texts(at)) == []
    commit(at, lesson, answer)
    assert at.success or at.warning
    assert english_in(shown_texts(at)) == []
