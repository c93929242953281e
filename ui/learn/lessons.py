"""Guided lessons of the Learn page: a starting list (or lists), a cutoff, and a challenge.

Pure: a :class:`Lesson` declares its starting lists and the setting it lets the learner change
on the page; :func:`check` tells whether the challenge is met for the lists, K and settings the
learner has now. A lesson may first ask for a prediction (:class:`Prediction`): the learner
commits to a number or a choice, then :func:`judge` compares it with the true value. Every
number comes from :mod:`metrics` (through :mod:`ui.learn.evaluate`), the numbers of a lesson's
texts too (:func:`text_values`). The words (explanation, challenge, teacher's notes, the question
and its explanation) are catalog keys ``lesson.<id>.<part>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict

import numpy as np
import pandas as pd

from metrics import evaluate, summarize
from metrics.engine.explain import explain_list, list_frames
from metrics.engine.ranking import gain_of
from metrics.engine.registry import at_cutoff
from metrics.engine.relevance import is_relevant
from metrics.engine.settings import Averaging, Gain, MissingQueries, Settings, ShortLists, Ties
from ui.learn import label_data as labels
from ui.learn.evaluate import (
    copies,
    counted,
    evaluate_list,
    explain,
    list_values,
    ordered,
    own_scores,
    query_means,
)
from ui.shell.handbuilt_list import RankedList

NAN = float("nan")
#: Parts of a lesson's text in the catalog (``lesson.<id>.<part>``).
TEXT_PARTS = ("title", "text", "challenge", "done", "goals", "ask", "answers")
#: Parts of a lesson that asks for a prediction: the question and the explanation of the answer.
PREDICT_PARTS = ("predict", "reveal")


def _rl(name: str, labels: list[float], tray: Sequence[float] = (), **kw) -> RankedList:
    items = tuple(f"d{i}" for i in range(1, len(labels) + 1))
    extra = tuple((f"x{i}", float(v)) for i, v in enumerate(tray, start=1))
    return RankedList(name, items, tuple(float(x) for x in labels), extra, **kw)


def _named(name: str, items: str, labels: list[float], tray: str) -> RankedList:
    """A list of named items; the tray items are all relevant (label 1)."""
    return RankedList(
        name,
        tuple(items.split()),
        tuple(float(x) for x in labels),
        tuple((i, 1.0) for i in tray.split()),
    )


def value(rl: RankedList, measure: str, k: int, settings: Settings) -> float:
    """``measure`` (``P``, ``nDCG``, ``Judged`` ...) at ``k`` of one list, from metrics."""
    rl = ordered(rl, settings)
    if not rl.items:
        return 0.0
    name = at_cutoff(measure, k)
    return list_values(rl, [name], settings)[name]


def model_means(
    lists: tuple[RankedList, ...], measure: str, k: int, settings: Settings
) -> dict[str, float]:
    """Mean of ``measure@k`` per model under the averaging policy; lists are named
    ``model · query``."""
    runs, judged = [], []
    for rl in lists:
        model, query = rl.name.split(" · ", 1)
        rl = counted(ordered(rl, settings))
        run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved), query)
        runs.append(run.assign(model=model))
        judged.append(qrels)
    run = pd.concat(runs, ignore_index=True)
    qrels = pd.concat(judged, ignore_index=True).drop_duplicates(["query", "item"])
    table = summarize(evaluate(run, qrels, [at_cutoff(measure, k)], own_scores(settings)))
    return {str(r["model"]): float(r["value"]) for _, r in table.iterrows()}


def _by_model(lists: tuple[RankedList, ...]) -> dict[str, list[RankedList]]:
    """Lists named ``model · query``, grouped by model, in order."""
    out: dict[str, list[RankedList]] = {}
    for rl in lists:
        out.setdefault(rl.name.split(" · ", 1)[0], []).append(rl)
    return out


def model_mean_lines(
    lists: tuple[RankedList, ...], measure: str, k: int, settings: Settings
) -> dict[str, str]:
    """How each model's mean of ``measure@k`` is made, ending with the value from metrics
    (:func:`model_means`): under micro averaging, P and R as the counts pooled over the
    queries (``(5 + 0)/(10 + 1) = 5/11 = 0.455``); otherwise the mean of the per-query values
    (``(0.500 + 0.000)/2 = 0.250``). Lists are named ``model · query``; a query a measure
    leaves out (no value) is not counted."""
    means = model_means(lists, measure, k, settings)
    out = {}
    for model, own in _by_model(lists).items():
        pieces = [explain(ordered(rl, settings), k, settings).pieces[measure] for rl in own]
        counted = [p for p in pieces if p.value == p.value]
        mean = f"{means[model]:.3f}"
        if settings.averaging == "micro" and measure in ("P", "R"):
            tops = [int(p.numerator or 0) for p in counted]
            bottoms = [int(p.denominator or 0) for p in counted]
            top, bottom = " + ".join(map(str, tops)), " + ".join(map(str, bottoms))
            pooled = f"{sum(tops)}/{sum(bottoms)}"
            out[model] = f"({top})/({bottom}) = {pooled} = {mean}"
        else:
            values = [
                value(rl, measure, k, settings) for rl, p in zip(own, pieces) if p.value == p.value
            ]
            parts = " + ".join(f"{v:.3f}" for v in values)
            out[model] = f"({parts})/{len(values)} = {mean}"
    return out


def _close(a: float, b: float) -> bool:
    return bool(np.isclose(a, b, atol=1e-9))


# ---------------------------------------------------------------------- the challenges


def _p_order(lists, k, s, start) -> bool:
    rl, first = lists[0], start[0]
    return (
        _close(value(rl, "P", 5, s), value(first, "P", 5, s))
        and value(rl, "nDCG", 5, s) < value(first, "nDCG", 5, s) - 1e-9
    )


def _k_choice(lists, k, s, start) -> bool:
    return value(lists[1], "P", k, s) > value(lists[0], "P", k, s)


def _recall(lists, k, s, start) -> bool:
    return _close(value(lists[0], "R", 5, s), 1.0)


def _graded(lists, k, s, start) -> bool:
    rl = lists[0]
    return _close(value(rl, "P", 5, s), 0.6) and value(rl, "nDCG", 5, s) > 1 - 1e-9


def mean_over_queries(lists: tuple[RankedList, ...], measure: str, k: int, s: Settings) -> float:
    """The mean of ``measure@k`` over ``lists`` as queries of one model (MRR for ``RR``)."""
    ordered_lists = [ordered(rl, s) for rl in lists]
    return query_means(ordered_lists, k, s, (measure,))[0].mean


def _mrr(lists, k, s, start) -> bool:
    """Every query has two relevant items or more in the top 5, MRR@5 is still 7/12."""
    return all(value(rl, "P", 5, s) >= 0.4 - 1e-9 for rl in lists) and _close(
        mean_over_queries(lists, "RR", 5, s), 7 / 12
    )


def _ndcg_norm(lists, k, s, start) -> bool:
    rl = lists[0]
    labels = [x for x in rl.labels if x == x] + [x for _, x in rl.unretrieved]
    return bool(labels) and max(labels) <= 1 and value(rl, "nDCG", 5, s) > 1 - 1e-9


def _short(lists, k, s, start) -> bool:
    return k == 5 and _close(value(lists[0], "P", 5, s), 1.0)


def _macro_micro(lists, k, s, start) -> bool:
    means = model_means(lists, "R", 5, s)
    return means["A"] > means["B"] + 1e-9


def _unjudged(lists, k, s, start) -> bool:
    rl = lists[0]
    return _close(value(rl, "Judged", 5, s), 1.0) and value(rl, "P", 5, s) >= 0.6 - 1e-9


def _ties(lists, k, s, start) -> bool:
    return _close(value(lists[0], "P", 3, s), 0.0) and _close(value(lists[0], "RR", 5, s), 0.25)


def _judgments(rl: RankedList, *, retrieved: bool = True) -> list[str]:
    """What ``rl`` holds whatever its order: each item with its label and score, and (with
    ``retrieved``) whether it is in the list or in the tray."""
    scores = rl.scores if rl.scores is not None else (None,) * len(rl.items)
    if not retrieved:
        return sorted(
            [repr((i, x)) for i, x in zip(rl.items, rl.labels)]
            + [repr((i, x)) for i, x in rl.unretrieved]
        )
    held = [repr((i, x, sc)) for i, x, sc in zip(rl.items, rl.labels, scores)]
    return sorted(held + [repr((i, x, "tray")) for i, x in rl.unretrieved])


def same_judgments(lists: tuple[RankedList, ...], start: tuple[RankedList, ...]) -> bool:
    """Whether every list holds the items, labels and scores it started with (in any order):
    nothing relabelled, removed, added or taken out of the list."""
    return [_judgments(rl) for rl in lists] == [_judgments(rl) for rl in start]


def same_labels(lists: tuple[RankedList, ...], start: tuple[RankedList, ...]) -> bool:
    """Whether every list judges the items it started with, with the same labels, retrieved
    or not: items may move, and move between the list and the tray."""
    return [_judgments(rl, retrieved=False) for rl in lists] == [
        _judgments(rl, retrieved=False) for rl in start
    ]


def _rename(lists, k, s, start) -> bool:
    return same_judgments(lists, start) and _close(value(lists[0], "nDCG", RENAME_K, s), 1.0)


def _k_falls(lists, k, s, start) -> bool:
    return same_labels(lists, start) and _close(value(lists[0], "nDCG", FALLS_K, s), 1.0)


def _gain(lists, k, s, start) -> bool:
    return same_judgments(lists, start) and (
        value(lists[1], "nDCG", GAIN_K, s) > value(lists[0], "nDCG", GAIN_K, s) + 1e-9
    )


def query_values(
    lists: tuple[RankedList, ...], measure: str, k: int, s: Settings
) -> dict[str, float]:
    """``measure@k`` of each of ``lists`` (queries of one model) that the mean counts, by
    query."""
    qm = query_means([ordered(rl, s) for rl in lists], k, s, (measure,))[0]
    counted = [name for name, formula in qm.formulas if formula is not None]
    return dict(zip(counted, qm.values))


def counted_queries(lists: tuple[RankedList, ...], measure: str, k: int, s: Settings) -> int:
    """How many of ``lists`` (queries of one model) the mean of ``measure@k`` counts."""
    return len(query_values(lists, measure, k, s))


def _missing(lists, k, s, start) -> bool:
    """The query without results still has none, and the mean counts it (as 0)."""
    return not lists[2].items and counted_queries(lists, "RR", MISSING_K, s) == len(lists)


#: The cutoffs of the lessons that ask for a prediction (their checks and texts use them).
RENAME_K, FALLS_K, GAIN_K, MISSING_K = 3, 4, 3, 5


Check = Callable[[tuple[RankedList, ...], int, Settings, tuple[RankedList, ...]], bool]
#: Named values of a lesson's texts: numbers from metrics, item ids, and ``answer``, the true
#: value of its prediction (a number, or one of its options).
Facts = dict[str, float | int | str]


@dataclass(frozen=True)
class Prediction:
    """What a lesson asks the learner to predict before it shows its numbers.

    Attributes
    ----------
    facts:
        The lesson's numbers for its texts, computed by :mod:`metrics` under the settings the
        lesson starts from; ``answer`` among them is the true value.
    options:
        The choices (catalog ``lesson.<id>.option.<value>``); none: the answer is a number
        from 0 to 1.
    shown:
        The lists the question shows (by default the lesson's starting lists).
    tolerance:
        How far a number may be from the true value and still be right.
    """

    facts: Callable[[Settings], Facts]
    options: tuple[str, ...] = ()
    shown: tuple[RankedList, ...] | None = None
    tolerance: float = 0.01


@dataclass(frozen=True)
class Judgement:
    """A prediction compared with the true value (``facts["answer"]``)."""

    answer: float | str
    truth: float | str
    right: bool
    facts: Facts


class LessonStart(TypedDict, total=False):
    """The settings a lesson starts from (view fields of :class:`Settings`)."""

    short_lists: ShortLists
    averaging: Averaging
    ties: Ties
    gain: Gain
    missing_queries: MissingQueries


@dataclass(frozen=True)
class Lesson:
    """One guided lesson.

    Attributes
    ----------
    id:
        Catalog and link name.
    lists:
        The starting lists (several for lessons comparing models or queries).
    k:
        The starting cutoff.
    scale:
        ``binary`` or ``graded``: the labels a click cycles through.
    policy:
        A setting the page shows next to the list (``short_lists``, ``averaging``, ``ties``).
    start:
        Settings (view fields) the lesson starts from.
    measures:
        The measures the lesson is about (shown first).
    queries:
        The lists are queries of one model: they are shown with their means over the queries
        (MRR, MAP, mean nDCG), as the several-lists mode shows them.
    predict:
        What the learner predicts before the lists and their numbers are shown, if anything.
    """

    id: str
    lists: tuple[RankedList, ...]
    k: int
    scale: str
    check_fn: Check
    policy: str | None = None
    start: LessonStart = field(default_factory=LessonStart)
    measures: tuple[str, ...] = ("P", "nDCG")
    queries: bool = False
    predict: Prediction | None = None


# ---------------------------------------------------------------------- the predictions

#: The renamed document: its id before and after, and the id of the document tied with it.
RENAMED, RENAMED_TO, TIED_WITH = "d9", "d1", "d5"
_BEFORE_RENAME = RankedList(
    "list", (RENAMED, TIED_WITH, "d4", "d2"), (1.0, 0.0, 0.0, 0.0), scores=(0.9, 0.9, 0.5, 0.3)
)
_AFTER_RENAME = replace(_BEFORE_RENAME, items=(RENAMED_TO, *_BEFORE_RENAME.items[1:]))


def _top_two(rl: RankedList, s: Settings) -> str:
    return " > ".join(ordered(rl, s).items[:2])


def _rename_facts(s: Settings) -> Facts:
    after = ordered(_AFTER_RENAME, s).items
    assert _BEFORE_RENAME.scores is not None
    return {
        "k": RENAME_K,
        "score": f"{_BEFORE_RENAME.scores[0]:g}",
        "before": value(_BEFORE_RENAME, "nDCG", RENAME_K, s),
        "answer": value(_AFTER_RENAME, "nDCG", RENAME_K, s),
        "input_order": value(_AFTER_RENAME, "nDCG", RENAME_K, s.with_(ties="input_order")),
        "old": RENAMED,
        "new": RENAMED_TO,
        "other": TIED_WITH,
        "order_before": _top_two(_BEFORE_RENAME, s),
        "order_after": _top_two(_AFTER_RENAME, s),
        "rank_after": after.index(RENAMED_TO) + 1,
    }


#: One relevant item at rank 1, a second one the list did not retrieve (in the tray).
_FALLS = _rl("list", [1, 0, 0, 0], tray=[1])


def _direction(before: float, after: float) -> str:
    return "rises" if after > before + 1e-9 else "falls" if after < before - 1e-9 else "same"


def _falls_facts(s: Settings) -> Facts:
    at1, at_k = explain(_FALLS, 1, s), explain(_FALLS, FALLS_K, s)
    first, last = value(_FALLS, "nDCG", 1, s), value(_FALLS, "nDCG", FALLS_K, s)
    return {
        "k": FALLS_K,
        "at1": first,
        "at_k": last,
        "dcg1": at1.dcg,
        "idcg1": at1.idcg,
        "dcg_k": at_k.dcg,
        "idcg_k": at_k.idcg,
        "tray": _FALLS.unretrieved[0][0],
        "answer": _direction(first, last),
    }


#: One query, two lists: A retrieves the three items of label 2, B the one of label 3.
_GAIN_LISTS = (
    RankedList("A", ("a1", "a2", "a3"), (2.0, 2.0, 2.0), (("b1", 3.0),)),
    RankedList("B", ("b1", "n1", "n2"), (3.0, 0.0, 0.0), (("a1", 2.0), ("a2", 2.0), ("a3", 2.0))),
)


def _whole(x: float) -> float | int:
    """A gain as the texts write it: a whole number without decimals."""
    return int(x) if x.is_integer() else x


def _gain_facts(s: Settings) -> Facts:
    a, b = _GAIN_LISTS
    out: Facts = {"k": GAIN_K, "low": _whole(a.labels[0]), "high": _whole(b.labels[0])}
    for name in ("linear", "exponential"):
        g = s.with_(gain=name)
        low, high = (_whole(float(x)) for x in gain_of(np.array([a.labels[0], b.labels[0]]), g))
        out |= {
            f"a_{name}": value(a, "nDCG", GAIN_K, g),
            f"b_{name}": value(b, "nDCG", GAIN_K, g),
            f"g_low_{name}": low,
            f"g_high_{name}": high,
        }
    a_exp, b_exp = float(out["a_exponential"]), float(out["b_exponential"])
    winner = {"rises": "B", "falls": "A", "same": "same"}[_direction(a_exp, b_exp)]
    return out | {"answer": winner}


#: Three queries of one model; the run has no results for q3, which has a relevant item.
_MISSING = (
    _rl("q1", [0, 1, 0, 0, 0]),
    _rl("q2", [1, 0, 0, 0, 0]),
    RankedList("q3", (), (), (("d1", 1.0),)),
)


def _missing_facts(s: Settings) -> Facts:
    skip, zero = s.with_(missing_queries="skip"), s.with_(missing_queries="zero")
    scored = query_values(_MISSING, "RR", MISSING_K, zero)  # every query, the empty one as 0
    return {
        "k": MISSING_K,
        "q1": scored[_MISSING[0].name],
        "q2": scored[_MISSING[1].name],
        "q3": scored[_MISSING[2].name],
        "empty": _MISSING[2].name,
        "skip": mean_over_queries(_MISSING, "RR", MISSING_K, skip),
        "zero": mean_over_queries(_MISSING, "RR", MISSING_K, zero),
        "n_skip": counted_queries(_MISSING, "RR", MISSING_K, skip),
        "n_zero": counted_queries(_MISSING, "RR", MISSING_K, zero),
        "answer": mean_over_queries(_MISSING, "RR", MISSING_K, s),
    }


#: The run merged two candidate sources and returned its best item twice (ranks 1 and 2); the
#: second relevant item (in the tray) was pushed out of the top 5.
REPEATED, DUPLICATES_K = "d1", 5
_DUPLICATES = RankedList(
    "list",
    (REPEATED, REPEATED, "d2", "d3", "d4", "d5"),
    (1.0, 1.0, 0.0, 0.0, 0.0, 0.0),
    (("d6", 1.0),),
)


def _duplicates_facts(s: Settings) -> Facts:
    """P@5 as metrics reads the run (the copy left out) and as it would read if the copy
    counted again (its label added a second time)."""
    raw = explain_list(
        list(_DUPLICATES.items),
        list(_DUPLICATES.labels),
        DUPLICATES_K,
        s,
        [x for _, x in _DUPLICATES.unretrieved],
    ).pieces["P"]
    kept = counted(_DUPLICATES)
    return {
        "k": DUPLICATES_K,
        "item": REPEATED,
        "first": 1,
        "second": 2,
        "copied": raw.value,
        "copied_hits": int(raw.numerator or 0),
        "hits": sum(1 for x in kept.labels[:DUPLICATES_K] if is_relevant(x, s.relevance_level)),
        "moved": kept.items[DUPLICATES_K - 1],
        "tray": _DUPLICATES.unretrieved[0][0],
        "answer": value(_DUPLICATES, "P", DUPLICATES_K, s),
    }


def _unique_judgments(lists: tuple[RankedList, ...]) -> list[set[str]]:
    return [set(_judgments(rl, retrieved=False)) for rl in lists]


def _duplicates(lists, k, s, start) -> bool:
    """No item twice, nothing relabelled, and P@5 up to 0.4 (the tray's item in the top 5)."""
    rl = lists[0]
    return (
        not copies(rl)
        and _unique_judgments(lists) == _unique_judgments(start)
        and value(rl, "P", DUPLICATES_K, s) >= 0.4 - 1e-9
    )


#: Leakage: q1 was ranked at time t = 10 but judged by the user's clicks of the whole log (the
#: time of each click is in the item's name); q2's candidate pool left out its answer, which
#: was bought after the ranking time (in the tray).
RANKED_AT, LEAKAGE_K = 10, 5
CLICKED_AT = {"a (t=3)": 3, "b (t=12)": 12, "c (t=6)": 6, "e (t=14)": 14, "x (t=11)": 11}
ANSWER = "x (t=11)"
_LEAKAGE = (
    RankedList(
        "q1",
        ("a (t=3)", "b (t=12)", "c (t=6)", "d", "e (t=14)"),
        (1.0, 1.0, 1.0, 0.0, 1.0),
    ),
    RankedList("q2", ("f", "g", "h", "i", "j"), (0.0,) * 5, ((ANSWER, 1.0),)),
)


def _leakage(lists, k, s, start) -> bool:
    """q1 keeps its items and is judged only by the clicks after its ranking time (a click
    before it is not relevant), and q2's answer is in its top 5."""
    q1, q2 = lists
    if set(q1.items) != set(start[0].items):
        return False  # the model ranked these items: only their labels are in question
    for item, label in zip(q1.items, q1.labels):
        when = CLICKED_AT.get(item)
        if when is not None and is_relevant(label, s.relevance_level) != (when > RANKED_AT):
            return False
    return ANSWER in q2.items[:LEAKAGE_K]


# ------------------------------------------------------------------------ label sources


def _rag_facts(s: Settings) -> Facts:
    """The annotators against the LLM judge on the rag_evidence sample (metrics.labels), and
    the holes of the question shown."""
    study = labels.rag_study(s)
    assert study.consequence is not None
    mean, judged = labels.means(study), labels.judged(study)
    human, judge = labels.RAG_HUMAN, labels.RAG_JUDGE
    pair = study.agreement.pairs.iloc[0]
    shown = _RAG[0]
    return {
        "k": labels.K,
        "question": labels.RAG_QUESTION,
        "model": labels.RAG_MODEL,
        "kappa": float(pair["kappa"]),
        "agreement": float(pair["agreement"]),
        "tau": float(study.consequence.correlations["tau_b"].iloc[0]),
        "human_bm25": mean[human, "bm25"],
        "human_embedding": mean[human, "embedding"],
        "judge_bm25": mean[judge, "bm25"],
        "judge_embedding": mean[judge, "embedding"],
        "judged_human": judged[human, labels.RAG_MODEL],
        "judged_judge": judged[judge, labels.RAG_MODEL],
        "holes": sum(1 for x in shown.labels if x != x),
        "shown_judged": value(shown, "Judged", labels.K, s),
        "answer": "swap" if len(study.consequence.swaps) else "same",
    }


def _rag_labels(lists, k, s, start) -> bool:
    """The LLM judge's list is as it was; the annotators' list keeps its chunks, order and
    grades, and each of its holes has the judge's grade (Judged@10 = 1)."""
    human, judge = lists
    if judge != start[1] or human.items != start[0].items:
        return False
    by_judge = dict(zip(start[1].items, start[1].labels))
    wanted = [x if x == x else by_judge[i] for i, x in zip(start[0].items, start[0].labels)]
    return list(human.labels) == wanted and _close(value(human, "Judged", labels.K, s), 1.0)


def _click_facts(s: Settings) -> Facts:
    """The annotators' grades against the clicks (metrics.labels), over every query and for
    the query shown."""
    study = labels.click_study(s)
    mean = labels.means(study)
    human, clicks = labels.HUMAN, labels.CLICKS
    prod, cand = labels.PRODUCTION, labels.CANDIDATE
    graded = tuple(_by_grade(rl) for rl in _CLICKS)
    ahead = mean[human, cand] > mean[human, prod]
    return {
        "k": labels.K,
        "query": labels.CLICK_QUERY,
        "queries": labels.click_table()["query"].nunique(),
        "kappa": labels.click_kappa(s),
        "level": f"{s.relevance_level:g}",
        "clicks_production": mean[clicks, prod],
        "clicks_candidate": mean[clicks, cand],
        "human_production": mean[human, prod],
        "human_candidate": mean[human, cand],
        "q_clicks_production": value(_CLICKS[0], "nDCG", labels.K, s),
        "q_clicks_candidate": value(_CLICKS[1], "nDCG", labels.K, s),
        "q_human_production": value(graded[0], "nDCG", labels.K, s),
        "q_human_candidate": value(graded[1], "nDCG", labels.K, s),
        "answer": cand if ahead else prod,
    }


def _by_grade(rl: RankedList) -> RankedList:
    """``rl`` labelled by the annotators' grades its items' names carry."""
    return replace(rl, labels=tuple(labels.grade_of(i) for i in rl.items))


def _click_labels(lists, k, s, start) -> bool:
    """Both lists keep their items in order, each labelled by its annotators' grade."""
    return all(
        rl.items == first.items and rl.labels == _by_grade(first).labels
        for rl, first in zip(lists, start)
    )


#: One question of rag_evidence under its two label sources; two rankers' lists of one query
#: labelled by clicks.
_RAG = labels.rag_lists()
_CLICKS = labels.click_lists()


LESSONS: tuple[Lesson, ...] = (
    Lesson("p_order", (_rl("list", [1, 0, 1, 1, 0, 0, 1, 0, 0, 0]),), 5, "binary", _p_order),
    Lesson(
        "k_choice",
        (_rl("A", [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]), _rl("B", [0, 0, 0, 1, 1, 1, 1, 1, 1, 0])),
        3,
        "binary",
        _k_choice,
        measures=("P",),
    ),
    Lesson(
        "recall_pool",
        (_rl("list", [1, 0, 1, 1, 0], tray=[1, 1]),),
        5,
        "binary",
        _recall,
        measures=("R", "P", "nDCG"),
    ),
    Lesson("graded", (_rl("list", [1, 1, 3, 0, 0]),), 5, "graded", _graded),
    Lesson(
        "mrr_first",
        (
            _rl("q1", [0, 1, 0, 0, 0]),
            _rl("q2", [1, 0, 0, 0, 0]),
            _rl("q3", [0, 0, 0, 1, 0]),
        ),
        5,
        "binary",
        _mrr,
        measures=("RR", "P", "AP"),
        queries=True,
    ),
    Lesson(
        "ndcg_norm",
        (_rl("list", [0, 1, 0, 1, 0]),),
        5,
        "graded",
        _ndcg_norm,
        measures=("nDCG",),
    ),
    Lesson(
        "short_lists",
        (_rl("list", [1, 1, 1]),),
        5,
        "binary",
        _short,
        policy="short_lists",
        start={"short_lists": "divide_by_k"},
        measures=("P",),
    ),
    Lesson(
        "macro_micro",
        (
            _named("A · q1", "r1 r2 r3 r4 r5", [1] * 5, "r6 r7 r8 r9 r10"),
            _named("A · q2", "m1 m2 m3 m4 m5", [0] * 5, "s1"),
            _named("B · q1", "r1 n1 n2 n3 n4", [1, 0, 0, 0, 0], "r2 r3 r4 r5 r6 r7 r8 r9 r10"),
            _named("B · q2", "s1 m1 m2 m3 m4", [1, 0, 0, 0, 0], ""),
        ),
        5,
        "binary",
        _macro_micro,
        policy="averaging",
        start={"averaging": "macro"},
        measures=("R",),
    ),
    Lesson(
        "unjudged",
        (_rl("list", [1, NAN, 1, NAN, 0, 0, 0, 0]),),
        5,
        "binary",
        _unjudged,
        measures=("Judged", "P"),
    ),
    Lesson(
        "ties",
        (_rl("list", [0, 0, 0, 1, 0], scores=(0.9, 0.8, 0.7, 0.7, 0.5)),),
        3,
        "binary",
        _ties,
        policy="ties",
        start={"ties": "item_desc"},
        measures=("P", "RR"),
    ),
    Lesson(
        "rename_ties",
        (_AFTER_RENAME,),
        RENAME_K,
        "binary",
        _rename,
        policy="ties",
        start={"ties": "item_desc"},
        measures=("nDCG", "P"),
        predict=Prediction(_rename_facts, shown=(_BEFORE_RENAME,)),
    ),
    Lesson(
        "ndcg_k_falls",
        (_FALLS,),
        FALLS_K,
        "binary",
        _k_falls,
        measures=("nDCG",),
        predict=Prediction(_falls_facts, options=("rises", "same", "falls")),
    ),
    Lesson(
        "gain_formulas",
        _GAIN_LISTS,
        GAIN_K,
        "graded",
        _gain,
        policy="gain",
        start={"gain": "linear"},
        measures=("nDCG",),
        predict=Prediction(_gain_facts, options=("A", "B", "same")),
    ),
    Lesson(
        "missing_query",
        _MISSING,
        MISSING_K,
        "binary",
        _missing,
        policy="missing_queries",
        start={"missing_queries": "skip"},
        measures=("RR",),
        queries=True,
        predict=Prediction(_missing_facts),
    ),
    Lesson(
        "duplicates",
        (_DUPLICATES,),
        DUPLICATES_K,
        "binary",
        _duplicates,
        measures=("P", "R"),
        predict=Prediction(_duplicates_facts),
    ),
    Lesson(
        "leakage",
        _LEAKAGE,
        LEAKAGE_K,
        "binary",
        _leakage,
        measures=("P", "R"),
    ),
    Lesson(
        "rag_labels",
        _RAG,
        labels.K,
        "graded",
        _rag_labels,
        measures=("Judged", "nDCG"),
        predict=Prediction(_rag_facts, options=("same", "swap")),
    ),
    Lesson(
        "click_labels",
        _CLICKS,
        labels.K,
        "graded",
        _click_labels,
        measures=("nDCG", "P"),
        predict=Prediction(_click_facts, options=(labels.PRODUCTION, labels.CANDIDATE)),
    ),
)
BY_ID: dict[str, Lesson] = {lesson.id: lesson for lesson in LESSONS}


def check(
    lesson: Lesson, lists: tuple[RankedList, ...] | list[RankedList], k: int, settings: Settings
) -> bool:
    """Whether the challenge of ``lesson`` is met by ``lists`` at cutoff ``k`` and ``settings``.

    Lists that do not fit the lesson (another number of lists) never meet it.
    """
    lists = tuple(lists)
    if len(lists) != len(lesson.lists):
        return False
    if any(not rl.items and first.items for rl, first in zip(lists, lesson.lists)):
        return False  # only a list that starts empty may be empty
    return bool(lesson.check_fn(lists, k, settings, lesson.lists))


def start_settings(lesson: Lesson, settings: Settings) -> Settings:
    """``settings`` with the lesson's starting policies."""
    return replace(settings, **lesson.start)


def facts(lesson: Lesson, settings: Settings) -> Facts:
    """The numbers of ``lesson``'s texts (none for a lesson without a prediction), computed by
    metrics under ``settings`` with the lesson's starting policies: they stay as they are while
    the learner changes the lesson's setting."""
    if lesson.predict is None:
        return {}
    return lesson.predict.facts(start_settings(lesson, settings))


def text_values(lesson: Lesson, settings: Settings) -> dict[str, str]:
    """:func:`facts` as the texts write them: values with three decimals, counts and ids as
    they are."""
    out = {}
    for name, v in facts(lesson, settings).items():
        out[name] = f"{v:.3f}" if isinstance(v, float) else str(v)
    return out


def judge(lesson: Lesson, answer: float | str, settings: Settings) -> Judgement:
    """The learner's ``answer`` to ``lesson``'s prediction against the true value."""
    if lesson.predict is None:
        raise ValueError(f"the lesson {lesson.id!r} asks for no prediction.")
    found = facts(lesson, settings)
    truth = found["answer"]
    if lesson.predict.options:
        right = answer == truth
    else:
        right = abs(float(answer) - float(truth)) <= lesson.predict.tolerance + 1e-12
    return Judgement(answer, truth, right, found)


def question_table(rl: RankedList, settings: Settings) -> pd.DataFrame:
    """A list as a prediction's question shows it: ``rank, item, score, label`` in the order
    metrics ranks it (no ``score`` column without scores); judged items not retrieved come
    last, with no rank."""
    rl = ordered(rl, settings)
    rows = [
        {"rank": str(i), "item": item, "label": f"{x:g}" if x == x else "?"}
        for i, (item, x) in enumerate(zip(rl.items, rl.labels), start=1)
    ]
    if rl.scores is not None:
        for row, sc in zip(rows, rl.scores):
            row["score"] = f"{sc:g}"
    rows += [{"rank": "—", "item": item, "label": f"{x:g}"} for item, x in rl.unretrieved]
    columns = ["rank", "item", *(["score"] if rl.scores is not None else []), "label"]
    return pd.DataFrame(rows, columns=columns).fillna("")


def levels_summary(rl: RankedList, level: float) -> tuple[int, int]:
    """``(relevant, results)``: how many retrieved items count as relevant at ``level``."""
    relevant = sum(1 for x in rl.labels if is_relevant(x, level))
    return relevant, len(rl.items)


__all__ = [
    "BY_ID",
    "LESSONS",
    "PREDICT_PARTS",
    "TEXT_PARTS",
    "Judgement",
    "Lesson",
    "Prediction",
    "check",
    "counted_queries",
    "evaluate_list",
    "facts",
    "judge",
    "levels_summary",
    "mean_over_queries",
    "model_mean_lines",
    "model_means",
    "query_values",
    "question_table",
    "same_judgments",
    "same_labels",
    "start_settings",
    "text_values",
    "value",
]
