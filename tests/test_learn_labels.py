"""The two Learn lessons on label sources: the annotators against an LLM judge on the
rag_evidence sample (moderate κ, the same ordering, different holes) and clicks against the
annotators (low κ, the rankers swap). Their numbers are checked against scikit-learn and
trec_eval (pytrec_eval), their challenges against right and wrong answers, and both on the page
in three languages."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from metrics import Settings
from tests.app_support import fresh_app, open_page
from tests.oracles import require_oracle
from ui.learn import label_data as labels
from ui.learn.lessons import BY_ID, PREDICT_PARTS, TEXT_PARTS, check, facts, judge, text_values
from ui.shell import keys
from ui.shell.i18n import LANGUAGES, catalog, translate

S = Settings()


def by_grade(rl):
    return replace(rl, labels=tuple(labels.grade_of(i) for i in rl.items))


# ------------------------------------------------------------------------ the numbers


def test_the_rag_lesson_s_kappa_is_scikit_learn_s_and_its_retrievers_keep_their_order():
    cohen_kappa_score = require_oracle("sklearn.metrics").cohen_kappa_score
    found = facts(BY_ID["rag_labels"], S)
    both = labels.rag_study(S).sources.table.dropna(subset=["annotators", "llm_judge"])
    assert found["kappa"] == pytest.approx(cohen_kappa_score(both["annotators"], both["llm_judge"]))
    assert 0.4 < found["kappa"] < 0.6  # moderate
    assert found["human_embedding"] > found["human_bm25"]
    assert found["judge_embedding"] > found["judge_bm25"]
    assert found["answer"] == "same" and found["tau"] == 1.0
    assert found["judged_human"] < 0.8 and found["judged_judge"] == 1.0
    assert judge(BY_ID["rag_labels"], "same", S).right
    assert not judge(BY_ID["rag_labels"], "swap", S).right


def test_the_click_lesson_s_numbers_are_scikit_learn_s_and_trec_eval_s_and_the_rankers_swap():
    cohen_kappa_score = require_oracle("sklearn.metrics").cohen_kappa_score
    pytrec_eval = require_oracle("pytrec_eval")
    found = facts(BY_ID["click_labels"], S)
    table = labels.click_table()
    items = table.drop_duplicates(["query", "item"])
    relevant, clicked = (items["grade"] >= 1).astype(int), (items["clicks"] > 0).astype(int)
    assert found["kappa"] == pytest.approx(cohen_kappa_score(relevant, clicked))
    assert found["kappa"] < 0.2  # slight agreement at best

    def mean_ndcg(model: str, label: np.ndarray) -> float:
        own = table[table["model"] == model]
        run = {
            q: {i: float(-r) for i, r in zip(g["item"], g["rank"])} for q, g in own.groupby("query")
        }
        qrels: dict[str, dict[str, int]] = {}
        for q, i, x in zip(items["query"], items["item"], label):
            qrels.setdefault(q, {})[i] = int(x)
        found = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
        return float(np.mean([row["ndcg_cut_10"] for row in found.values()]))

    for model in (labels.PRODUCTION, labels.CANDIDATE):
        assert found[f"human_{model}"] == pytest.approx(mean_ndcg(model, items["grade"]))
        assert found[f"clicks_{model}"] == pytest.approx(mean_ndcg(model, clicked))
    assert found["clicks_production"] > found["clicks_candidate"]
    assert found["human_candidate"] > found["human_production"]
    assert found["q_clicks_production"] > found["q_clicks_candidate"]
    assert found["q_human_candidate"] > found["q_human_production"]
    assert found["answer"] == "candidate"
    assert judge(BY_ID["click_labels"], "candidate", S).right
    assert not judge(BY_ID["click_labels"], "production", S).right


def test_both_lessons_have_every_text_and_option_in_every_language():
    for lesson_id in ("rag_labels", "click_labels"):
        lesson = BY_ID[lesson_id]
        assert lesson.predict is not None
        words = text_values(lesson, S)
        for lang in LANGUAGES:
            for part in (*TEXT_PARTS, *PREDICT_PARTS):
                message = catalog(lang)[f"lesson.{lesson_id}.{part}"]
                assert message.format(**words), (lang, lesson_id, part)
            for option in lesson.predict.options:
                assert catalog(lang).get(f"lesson.{lesson_id}.option.{option}"), (lang, option)


# ------------------------------------------------------------------------ the challenges


def test_filling_the_annotators_holes_with_the_judge_s_grades_meets_the_rag_challenge():
    lesson = BY_ID["rag_labels"]
    human, judged = lesson.lists
    holes = [r for r, x in enumerate(human.labels, start=1) if x != x]
    assert len(holes) == facts(lesson, S)["holes"] == 2
    filled = human
    for r in holes:
        filled = filled.with_label(r, judged.labels[r - 1])
    assert check(lesson, (filled, judged), lesson.k, S)
    assert not check(lesson, lesson.lists, lesson.k, S)
    wrong = filled.with_label(holes[0], judged.labels[holes[0] - 1] + 1)  # not the judge's
    assert not check(lesson, (wrong, judged), lesson.k, S)
    relabelled = filled.with_label(5, 0.0)  # a grade the annotators gave, changed
    assert not check(lesson, (relabelled, judged), lesson.k, S)
    assert not check(lesson, (judged, judged), lesson.k, S)  # every grade the judge's


def test_relabelling_both_lists_by_the_annotators_grades_meets_the_click_challenge():
    lesson = BY_ID["click_labels"]
    graded = tuple(by_grade(rl) for rl in lesson.lists)
    assert check(lesson, graded, lesson.k, S)
    assert not check(lesson, lesson.lists, lesson.k, S)  # the clicks
    assert not check(lesson, (graded[0], lesson.lists[1]), lesson.k, S)
    binary = tuple(replace(rl, labels=tuple(float(x >= 1) for x in rl.labels)) for rl in graded)
    assert not check(lesson, binary, lesson.k, S)  # relevant or not is not the grade
    assert not check(lesson, (graded[0].moved(1, +1), graded[1]), lesson.k, S)


# ------------------------------------------------------------------------ on the page


def predict(at, lesson_id: str, option: str) -> None:
    at.radio(key=keys.lesson_prediction(lesson_id)).set_value(option).run()
    at.button(key=keys.BTN_PREDICT).click().run()
    assert not at.exception, [e.value for e in at.exception]


def met(at, lesson_id: str, lang: str) -> bool:
    done = translate(f"lesson.{lesson_id}.done", lang, **text_values(BY_ID[lesson_id], S))
    return any(done in s.value for s in at.success)


def press_label(at, rank: int, shown: int = 0) -> None:
    at.session_state[keys.LEARN_ACTION] = {"op": "label", "index": rank, "list": shown}
    at.run()
    assert not at.exception, [e.value for e in at.exception]


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_the_rag_lesson_on_the_page(lang):
    at = open_page(fresh_app({"lesson": "rag_labels", "lang": lang}), "learn")
    predict(at, "rag_labels", "swap")
    assert at.warning and not met(at, "rag_labels", lang)  # wrong, and the challenge unmet
    press_label(at, 8)  # ? -> 0: the judge's grade
    assert not met(at, "rag_labels", lang)
    press_label(at, 10)  # ? -> 0, not yet the judge's 1
    assert not met(at, "rag_labels", lang)
    press_label(at, 10)  # 0 -> 1
    assert met(at, "rag_labels", lang)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_the_click_lesson_on_the_page(lang):
    lesson = BY_ID["click_labels"]
    at = open_page(fresh_app({"lesson": "click_labels", "lang": lang}), "learn")
    predict(at, "click_labels", "candidate")
    right = translate("learn.predict.right_choice", lang, answer="", truth="")[:2]
    assert any(s.value.startswith(right) for s in at.success)
    assert not met(at, "click_labels", lang)
    graded = tuple(by_grade(rl) for rl in lesson.lists)
    at.session_state[keys.LESSON_LISTS] = {"click_labels": (graded[0], lesson.lists[1])}
    at.run()
    assert not met(at, "click_labels", lang)  # candidate still judged by clicks
    at.session_state[keys.LESSON_LISTS] = {"click_labels": graded}
    at.run()
    assert not at.exception and met(at, "click_labels", lang)
