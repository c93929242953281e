"""Each guided lesson starts unmet and is met by the moves a student would make."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from metrics import Settings
from tests.oracles import require_oracle
from ui.learn.lessons import (
    BY_ID,
    LESSONS,
    PREDICT_PARTS,
    TEXT_PARTS,
    check,
    facts,
    judge,
    mean_over_queries,
    model_means,
    question_table,
    text_values,
    value,
)
from ui.shell.i18n import LANGUAGES, catalog


def start(lesson_id: str):
    lesson = BY_ID[lesson_id]
    return lesson, lesson.lists, lesson.k, Settings(**lesson.start)


def test_there_are_at_least_eight_lessons_and_none_is_met_at_its_start():
    assert len(LESSONS) >= 8
    for lesson in LESSONS:
        assert not check(lesson, lesson.lists, lesson.k, Settings(**lesson.start)), lesson.id


def test_every_lesson_has_every_text_in_every_language():
    for lang in LANGUAGES:
        for lesson in LESSONS:
            for part in TEXT_PARTS:
                assert catalog(lang).get(f"lesson.{lesson.id}.{part}"), (lang, lesson.id, part)


def test_moving_the_first_relevant_item_down_inside_the_top_5_lowers_ndcg_not_precision():
    lesson, lists, k, s = start("p_order")
    moved = (lists[0].moved(1, +1),)
    assert value(moved[0], "P", 5, s) == pytest.approx(0.6)
    assert check(lesson, moved, k, s)
    assert not check(lesson, (lists[0].moved(5, +1),), k, s)  # rank 5 to 6: P@5 falls


def test_model_b_wins_on_precision_from_k_7_not_at_k_3():
    lesson, lists, _k, s = start("k_choice")
    assert value(lists[0], "P", 3, s) == 1.0 and value(lists[1], "P", 3, s) == 0.0
    assert value(lists[0], "P", 10, s) == pytest.approx(0.3)
    assert value(lists[1], "P", 10, s) == pytest.approx(0.6)
    assert not check(lesson, lists, 6, s) and check(lesson, lists, 7, s)


def test_recall_reaches_one_when_the_unretrieved_relevant_items_enter_the_top_5():
    lesson, lists, k, s = start("recall_pool")
    assert value(lists[0], "R", 5, s) == pytest.approx(0.6)
    rl = lists[0].removed(2).removed(4).from_tray(0).from_tray(0)
    assert check(lesson, (rl,), k, s)


def test_the_grade_3_item_on_top_gives_ndcg_1_with_the_same_precision():
    lesson, lists, k, s = start("graded")
    rl = lists[0].moved(3, -1).moved(2, -1)
    assert value(rl, "P", 5, s) == pytest.approx(value(lists[0], "P", 5, s))
    assert check(lesson, (rl,), k, s)
    assert value(lists[0], "P", 5, replace(s, relevance_level=2)) == pytest.approx(0.2)


def test_the_mrr_lesson_is_the_notes_three_queries_with_mrr_seven_twelfths():
    lesson, lists, _k, s = start("mrr_first")
    assert lesson.queries and [rl.name for rl in lists] == ["q1", "q2", "q3"]
    assert [value(rl, "RR", 5, s) for rl in lists] == pytest.approx([0.5, 1.0, 0.25])
    assert mean_over_queries(lists, "RR", 5, s) == pytest.approx(7 / 12)


def test_mrr_stays_while_every_query_gets_a_second_relevant_item_after_its_first():
    lesson, lists, k, s = start("mrr_first")
    after = (
        lists[0].cycled(3, "binary"),
        lists[1].cycled(5, "binary"),
        lists[2].cycled(5, "binary"),
    )
    assert mean_over_queries(after, "RR", 5, s) == pytest.approx(7 / 12)
    assert mean_over_queries(after, "AP", 5, s) != pytest.approx(7 / 12)
    assert check(lesson, after, k, s)
    before_first = (lists[0].cycled(1, "binary"), *after[1:])  # q1's first hit moves to rank 1
    assert not check(lesson, before_first, k, s)


def test_a_perfect_order_of_weak_items_scores_ndcg_1():
    lesson, lists, k, s = start("ndcg_norm")
    rl = lists[0].moved(2, -1).moved(4, -1).moved(3, -1)
    assert check(lesson, (rl,), k, s)
    assert not check(lesson, (rl.cycled(1, "graded"),), k, s)  # a label 2 is not allowed


def test_a_three_item_list_gets_p_at_5_of_1_when_dividing_by_the_number_returned():
    lesson, lists, k, s = start("short_lists")
    assert value(lists[0], "P", 5, s) == pytest.approx(0.6)
    assert check(lesson, lists, k, replace(s, short_lists="divide_by_returned"))


def test_macro_averaging_favours_b_and_micro_averaging_favours_a():
    lesson, lists, k, s = start("macro_micro")
    macro = model_means(lists, "R", 5, s)
    assert macro == pytest.approx({"A": 0.25, "B": 0.55})
    micro = model_means(lists, "R", 5, replace(s, averaging="micro"))
    assert micro == pytest.approx({"A": 5 / 11, "B": 2 / 11})
    assert check(lesson, lists, k, replace(s, averaging="micro"))


def test_judging_the_unjudged_items_completes_judged_at_5():
    lesson, lists, k, s = start("unjudged")
    assert value(lists[0], "Judged", 5, s) == pytest.approx(0.6)
    rl = lists[0].cycled(2, "binary").cycled(2, "binary").cycled(4, "binary")  # 1 and 0
    assert value(rl, "Judged", 5, s) == 1.0 and check(lesson, (rl,), k, s)


def test_the_tie_policy_decides_which_tied_item_is_third():
    lesson, lists, k, s = start("ties")
    assert value(lists[0], "P", 3, s) == pytest.approx(1 / 3)  # d4 before d3 (id descending)
    assert check(lesson, lists, k, replace(s, ties="input_order"))


# ---------------------------------------------------------------------- predictions

PREDICTING = ("rename_ties", "ndcg_k_falls", "gain_formulas", "missing_query")


def trec_eval(run: dict, qrels: dict, measure: str) -> dict[str, float]:
    """``measure`` per query by trec_eval's own code (pytrec_eval): the queries of ``run``."""
    pytrec_eval = require_oracle("pytrec_eval")
    found = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return {q: row[measure] for q, row in found.items()}


def test_the_four_lessons_ask_for_a_prediction_in_every_language():
    assert all(BY_ID[i].predict is not None for i in PREDICTING)
    for lang in LANGUAGES:
        for i in PREDICTING:
            lesson = BY_ID[i]
            assert lesson.predict is not None
            words = text_values(lesson, Settings())
            for part in (*TEXT_PARTS, *PREDICT_PARTS):
                message = catalog(lang)[f"lesson.{i}.{part}"]
                assert message.format(**words), (lang, i, part)
            for option in lesson.predict.options:
                assert catalog(lang).get(f"lesson.{i}.option.{option}"), (lang, i, option)
            assert lesson.predict.options or isinstance(facts(lesson, Settings())["answer"], float)


def test_a_lesson_without_a_prediction_has_no_facts_and_cannot_be_judged():
    assert facts(BY_ID["p_order"], Settings()) == {}
    with pytest.raises(ValueError, match="no prediction"):
        judge(BY_ID["p_order"], 0.5, Settings())


def test_renaming_the_relevant_tied_item_lowers_ndcg_as_trec_eval_computes_it():
    lesson, _lists, _k, s = start("rename_ties")
    found = facts(lesson, s)
    others, scores = {"d5": 0, "d4": 0, "d2": 0}, {"d5": 0.9, "d4": 0.5, "d2": 0.3}

    def ndcg_at_3(name: str) -> float:
        run, qrels = {"q": {name: 0.9, **scores}}, {"q": {name: 1, **others}}
        return trec_eval(run, qrels, "ndcg_cut_3")["q"]

    before, after = ndcg_at_3("d9"), ndcg_at_3("d1")
    assert found["before"] == pytest.approx(before) == pytest.approx(1.0)
    assert found["answer"] == pytest.approx(after) and after < 0.7
    assert found["order_before"] == "d9 > d5" and found["order_after"] == "d5 > d1"
    assert found["rank_after"] == 2 and found["input_order"] == pytest.approx(1.0)
    assert judge(lesson, round(after, 2), s).right
    assert not judge(lesson, 1.0, s).right  # "a name cannot matter"
    assert judge(lesson, 1.0, s).truth == pytest.approx(after)


def test_the_renamed_item_comes_back_on_top_by_the_tie_policy_not_by_relabelling():
    lesson, lists, k, s = start("rename_ties")
    assert check(lesson, lists, k, replace(s, ties="input_order"))
    assert check(lesson, lists, k, replace(s, ties="rank"))
    relabelled = (lists[0].with_label(2, 1.0),)  # the tied d5 made relevant: nDCG@3 = 1
    assert value(relabelled[0], "nDCG", 3, s) == pytest.approx(1.0)
    assert not check(lesson, relabelled, k, s)


def test_ndcg_falls_from_k_1_to_k_4_because_the_ideal_list_gains_the_tray_item():
    lesson, _lists, k, s = start("ndcg_k_falls")
    found = facts(lesson, s)
    assert found["answer"] == "falls" and k == found["k"] == 4
    assert found["at1"] == pytest.approx(1.0)
    assert found["at_k"] == pytest.approx(1 / (1 + 1 / np.log2(3)))
    assert found["idcg_k"] == pytest.approx(1 + 1 / np.log2(3)) and found["dcg_k"] == 1.0
    assert judge(lesson, "falls", s).right and not judge(lesson, "rises", s).right


def test_the_k_falls_challenge_is_met_by_retrieving_the_tray_item_into_rank_2():
    lesson, lists, k, s = start("ndcg_k_falls")
    retrieved = lists[0].from_tray(0)  # rank 5
    assert not check(lesson, (retrieved,), k, s)
    moved = retrieved.moved(5, -1).moved(4, -1).moved(3, -1)
    assert moved.items[:2] == ("d1", "x1") and check(lesson, (moved,), k, s)
    relabelled = lists[0].with_label(2, 1.0).tray_removed(0)  # same nDCG@4 = 1, other labels
    assert value(relabelled, "nDCG", 4, s) == pytest.approx(1.0)
    assert not check(lesson, (relabelled,), k, s)


def _ndcg(lists, gain: str) -> list[float]:
    return [value(rl, "nDCG", 3, Settings(gain=gain)) for rl in lists]


def test_the_two_gain_formulas_pick_opposite_winners():
    lesson, lists, k, s = start("gain_formulas")
    found = facts(lesson, s)
    a_lin, b_lin = _ndcg(lists, "linear")
    a_exp, b_exp = _ndcg(lists, "exponential")
    assert a_lin > b_lin and b_exp > a_exp
    assert (found["a_linear"], found["b_linear"]) == pytest.approx((a_lin, b_lin))
    assert (found["a_exponential"], found["b_exponential"]) == pytest.approx((a_exp, b_exp))
    assert (found["g_low_exponential"], found["g_high_exponential"]) == (3, 7)
    assert found["answer"] == "B"
    assert judge(lesson, "B", s).right and not judge(lesson, "A", s).right
    assert not check(lesson, lists, k, s)
    assert check(lesson, lists, k, replace(s, gain="exponential"))


def test_a_query_missing_from_the_run_is_skipped_as_trec_eval_does_unless_scored_as_zero():
    lesson, lists, k, s = start("missing_query")
    found = facts(lesson, s)
    qrels = {"q1": {"d2": 1, "d1": 0}, "q2": {"d1": 1, "d2": 0}, "q3": {"d1": 1}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 2.0, "d2": 1.0}}
    per_query = trec_eval(run, qrels, "recip_rank")
    assert sorted(per_query) == ["q1", "q2"]  # q3 is not evaluated
    skipped = sum(per_query.values()) / len(per_query)
    assert found["answer"] == found["skip"] == pytest.approx(skipped)
    assert found["zero"] == pytest.approx(sum(per_query.values()) / 3)
    assert (found["n_skip"], found["n_zero"], found["q3"]) == (2, 3, 0.0)
    assert judge(lesson, round(skipped, 2), s).right
    assert not judge(lesson, found["zero"], s).right
    assert check(lesson, lists, k, replace(s, missing_queries="zero"))
    answered = (*lists[:2], lists[2].from_tray(0))  # q3 gets a result: no longer missing
    assert not check(lesson, answered, k, replace(s, missing_queries="zero"))


def test_the_question_shows_the_lists_in_metrics_order_without_their_numbers():
    table = question_table(BY_ID["rename_ties"].predict.shown[0], Settings())
    assert list(table.columns) == ["rank", "item", "score", "label"]
    assert list(table["item"]) == ["d9", "d5", "d4", "d2"]
    tray = question_table(BY_ID["missing_query"].lists[2], Settings())
    assert tray.to_dict("records") == [{"rank": "—", "item": "d1", "label": "1"}]


def test_the_page_s_own_lists_ignore_the_score_order_and_take_the_rank_tie_policy():
    _lesson, lists, _k, s = start("macro_micro")
    means = model_means(lists, "R", 5, s)
    assert model_means(lists, "R", 5, replace(s, score_order="ascending")) == means
    assert model_means(lists, "R", 5, replace(s, ties="rank")) == means
    _ties, tied, _k, s = start("ties")
    assert value(tied[0], "P", 3, replace(s, ties="rank")) == 0.0  # the stored order: d3 third
