"""Each guided lesson starts unmet and is met by the moves a student would make."""

from __future__ import annotations

from dataclasses import replace

import pytest

from metrics import Settings
from ui.i18n import LANGUAGES, catalog
from ui.learn_lessons import (
    BY_ID,
    LESSONS,
    TEXT_PARTS,
    check,
    mean_over_queries,
    model_means,
    value,
)


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
