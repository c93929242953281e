"""The Learn page in a classroom (AppTest): every selected measure on the page with its numbers,
presenter mode (one board of formulas, no expected answer on the projected page, the teacher's
notes in a tab of their own), the sidebar saying what the page shows, the worksheet to print
(its answers on the last page, apart) and a class's progress kept in the link."""

from __future__ import annotations

import re
from html import escape

import pytest

from metrics import Settings
from tests.app_support import codes, fresh_app, open_page, sidebar_text
from ui.learn.lessons import BY_ID, LESSONS, text_values
from ui.learn.worksheet import items_of, paragraphs, worksheet_html
from ui.shell.i18n import translate


def board(at) -> str:
    """The HTML of presenter mode's formula board(s)."""
    return "\n".join(h.proto.body for h in at.get("html") if "lp-board" in h.proto.body)


def page_text(at) -> str:
    """Every text the page shows: Markdown, captions, alerts, code, HTML."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [x.value for x in (*at.info, *at.success, *at.warning, *at.error)]
    parts += codes(at) + [h.proto.body for h in at.get("html")]
    parts += [e.proto.label for e in at.expander]
    return "\n".join(parts)


def test_wp_and_cwp_selected_are_on_learn_with_their_weights_and_confidences():
    at = open_page(fresh_app({"m": "P,nDCG,wP,cwP", "lesson": "ties"}), "learn")
    shown = codes(at)
    # the ties lesson's list has scores, d4 (relevant) at rank 3 under its ties rule
    assert "wP@3 = 0.500/2.131 = 0.235" in shown
    assert "w = 1.000, 0.631, 0.500" in shown
    assert "cwP@3 = 0.7/2.4 = 0.292" in shown  # weighed by the scores 0.9, 0.8, 0.7
    assert "s = 0.9, 0.8, 0.7" in shown
    at.radio(key="learn_policy_ties").set_value("input_order").run()
    assert "cwP@3 = 0 = 0.000" in codes(at) and "wP@3 = 0 = 0.000" in codes(at)


def test_cwp_on_a_list_without_confidences_says_why_in_its_card_and_the_rest_stays():
    at = open_page(fresh_app({"m": "P,cwP"}), "learn")
    assert any("cwP@5 weighs each item by the model's confidence" in i.value for i in at.info)
    assert "P@5 = 3/5 = 0.60" in codes(at) and "R@5 = 3/10 = 0.30" in codes(at)
    assert not at.error


def test_a_query_of_the_data_set_weighs_cwp_by_the_models_scores():
    at = open_page(fresh_app({"m": "cwP"}), "learn")
    at.radio(key="w_learn_source").set_value("query").run()
    line = next(c for c in codes(at) if c.startswith("cwP@"))
    assert "/" in line and next(c for c in codes(at) if c.startswith("s = "))


def test_presenter_mode_puts_every_selected_measure_on_one_board():
    at = open_page(fresh_app({"present": "1", "m": "P,wP,cwP,ERR"}), "learn")
    html = board(at)
    for line in ("P@5 = 3/5 = 0.60", "R@5 = 3/10 = 0.30", "Judged@5 = 5/5 = 1.00"):
        assert line in html
    assert "wP@5 = (1.000 + 0.500 + 0.431)/2.948 = 0.655" in html
    assert "cwP@5 weighs each item" in html  # its own message, in its own place
    assert re.search(r"ERR@5 = [\d. +]+ = 0\.\d{3}", html)
    assert not codes(at)  # the formulas are on the board, not in cards
    assert "K = 5 · relevant = label ≥ 1" in html


@pytest.mark.parametrize("lesson", [lesson.id for lesson in LESSONS])
def test_the_projected_page_never_shows_a_lessons_expected_answers(lesson):
    at = open_page(fresh_app({"present": "1", "lesson": lesson}), "learn")
    words = text_values(BY_ID[lesson], Settings(**BY_ID[lesson].start))
    answers = translate(f"lesson.{lesson}.answers", "en", **words)
    shown = page_text(at)
    for line in items_of(answers):
        assert line not in shown, (lesson, line)
    assert not [t for t in at.toggle if t.key == "w_teacher"]
    notes = [b for b in at.get("link_button") if "notes=1" in b.proto.url]
    assert notes and f"lesson={lesson}" in notes[0].proto.url
    assert "present" not in notes[0].proto.url


def test_the_teachers_tab_shows_the_objectives_questions_and_expected_answers():
    at = open_page(fresh_app({"lesson": "graded", "notes": "1"}), "learn")
    shown = "\n".join(m.value for m in at.markdown)
    assert translate("lesson.graded.answers", "en") in shown
    assert translate("lesson.graded.goals", "en") in shown
    assert [t.value for t in at.title] == ["Teacher's notes"]
    assert not at.get("iframe") and not codes(at)  # no list, no numbers: only the notes
    assert any(d.proto.label == "Worksheet to print" for d in at.get("download_button"))


def test_learns_sidebar_describes_the_worked_example_not_the_data_set():
    at = open_page(fresh_app(), "learn")
    side = sidebar_text(at)
    assert "Worked example: Relevant at 1, 3, 4, 7 of 10; ten relevant in all" in side
    assert "lists: 1 · results: 10 · relevant: 4 · K = 5" in side
    assert "The other pages use the data set web_search." in side
    assert "300" not in side  # not the web-search set's queries
    at.radio(key="w_learn_source").set_value("query").run()
    assert "Worked example" not in sidebar_text(at)  # a query of the data set: the data set


def test_a_class_progress_is_kept_in_the_link_and_read_back():
    at = open_page(fresh_app({"lesson": "short_lists"}), "learn")
    at.radio(key="learn_policy_short_lists").set_value("divide_by_returned").run()
    assert at.query_params["met"] == "short_lists"
    again = open_page(fresh_app({"lesson": "p_order", "met": "graded.short_lists.nope"}), "learn")
    assert any("2 of" in p.proto.text for p in again.get("progress"))
    assert again.query_params["met"] == "graded.short_lists"


def test_the_short_list_lesson_writes_judged_as_precision_divides():
    at = open_page(fresh_app({"lesson": "short_lists"}), "learn")
    assert "Judged@5 = 3/5 = 0.60" in codes(at)
    at.radio(key="learn_policy_short_lists").set_value("divide_by_returned").run()
    assert "Judged@5 = 3/3 = 1.00" in codes(at)
    assert "P@5 = 3/3 = 1.00" in codes(at)


def test_one_empty_position_is_named_as_one():
    from ui.learn.list_component import list_data
    from ui.shell.handbuilt_list import RankedList

    rl = RankedList("l", ("a", "b", "c", "d"), (1.0, 0.0, 1.0, 0.0))
    assert (
        list_data(rl, 5, 1.0)["beyond"] == "The list has 4 results but K = 5: position 5 is empty."
    )
    assert "positions 5 to 7" in list_data(rl, 7, 1.0)["beyond"]


# ----------------------------------------------------------------------------- worksheet


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
@pytest.mark.parametrize("lesson", ["p_order", "duplicates", "leakage", "macro_micro"])
def test_a_lessons_worksheet_has_its_questions_first_and_its_answers_last(lang, lesson):
    found = BY_ID[lesson]
    chosen = Settings(**found.start)
    words = text_values(found, chosen)
    title = translate(f"lesson.{lesson}.title", lang)
    html = worksheet_html(
        list(found.lists),
        found.k,
        chosen,
        lang,
        title=title,
        measures=found.measures,
        lesson=found,
        words=words,
    )
    sheet, answers = html.split('<section class="answers">')
    assert f'<html lang="{lang}">' in html
    for question in items_of(translate(f"lesson.{lesson}.ask", lang, **words)):
        assert escape(question.split("*")[0])[:30] in sheet
    assert paragraphs(translate(f"lesson.{lesson}.answers", lang, **words)) in answers
    assert translate(f"lesson.{lesson}.answers", lang, **words)[:20] not in sheet
    for rl in found.lists:
        assert f"<h3>{rl.name}</h3>" in sheet
    assert ".answers { break-before: page; }" in html


def test_a_lists_worksheet_asks_for_each_measure_and_answers_with_metrics_numbers():
    from ui.learn.views import DEFAULT_MEASURES

    at = open_page(fresh_app(), "learn")
    shown = codes(at)
    from ui.learn.evaluate import teaching_lists
    from ui.learn.lessons import BY_ID as _  # noqa: F401  (the lessons' module is loaded)
    from ui.shell.compute import sample_dataset

    rl = teaching_lists(sample_dataset("teaching"))["precision_recall"]
    html = worksheet_html([rl], 5, Settings(), "en", title="t", measures=DEFAULT_MEASURES)
    sheet, answers = html.split('<section class="answers">')
    assert "P@5 of this list: its formula with the numbers, and its value." in sheet
    for line in ("P@5 = 3/5 = 0.60", "R@5 = 3/10 = 0.30", "nDCG@5 = 1.931/2.948 = 0.655"):
        assert line in answers and line not in sheet and line in shown


def test_user_text_in_a_worksheet_is_escaped():
    from ui.shell.handbuilt_list import RankedList

    rl = RankedList("<b>x</b>", ("<script>1</script>",), (1.0,))
    html = worksheet_html([rl], 1, Settings(), "en", title="<i>t</i>", measures=("P",))
    assert "<script>1" not in html and "<b>x" not in html and "<i>t" not in html
