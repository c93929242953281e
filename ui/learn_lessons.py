"""Guided lessons of the Learn page: a starting list (or lists), a cutoff, and a challenge.

Pure: a :class:`Lesson` declares its starting lists and the setting it lets the learner change
on the page; :func:`check` tells whether the challenge is met for the lists, K and settings the
learner has now. Every number comes from :mod:`metrics` (through :mod:`ui.learn`). The words
(explanation, challenge, teacher's notes) are catalog keys ``lesson.<id>.<part>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict

import numpy as np
import pandas as pd

from metrics import evaluate, summarize
from metrics.engine.explain import list_frames
from metrics.engine.registry import at_cutoff
from metrics.engine.relevance import is_relevant
from metrics.engine.settings import Averaging, Settings, ShortLists, Ties
from ui.handbuilt_list import RankedList
from ui.learn import evaluate_list, list_values, ordered, query_means

NAN = float("nan")
#: Parts of a lesson's text in the catalog (``lesson.<id>.<part>``).
TEXT_PARTS = ("title", "text", "challenge", "done", "goals", "ask", "answers")


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
        rl = ordered(rl, settings)
        run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved), query)
        runs.append(run.assign(model=model))
        judged.append(qrels)
    run = pd.concat(runs, ignore_index=True)
    qrels = pd.concat(judged, ignore_index=True).drop_duplicates(["query", "item"])
    table = summarize(evaluate(run, qrels, [at_cutoff(measure, k)], settings))
    return {str(r["model"]): float(r["value"]) for _, r in table.iterrows()}


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


Check = Callable[[tuple[RankedList, ...], int, Settings, tuple[RankedList, ...]], bool]


class LessonStart(TypedDict, total=False):
    """The settings a lesson starts from (view fields of :class:`Settings`)."""

    short_lists: ShortLists
    averaging: Averaging
    ties: Ties


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
)
BY_ID: dict[str, Lesson] = {lesson.id: lesson for lesson in LESSONS}


def check(
    lesson: Lesson, lists: tuple[RankedList, ...] | list[RankedList], k: int, settings: Settings
) -> bool:
    """Whether the challenge of ``lesson`` is met by ``lists`` at cutoff ``k`` and ``settings``.

    Lists that do not fit the lesson (another number of lists) never meet it.
    """
    lists = tuple(lists)
    if len(lists) != len(lesson.lists) or any(not rl.items for rl in lists):
        return False
    return bool(lesson.check_fn(lists, k, settings, lesson.lists))


def start_settings(lesson: Lesson, settings: Settings) -> Settings:
    """``settings`` with the lesson's starting policies."""
    return replace(settings, **lesson.start)


def levels_summary(rl: RankedList, level: float) -> tuple[int, int]:
    """``(relevant, results)``: how many retrieved items count as relevant at ``level``."""
    relevant = sum(1 for x in rl.labels if is_relevant(x, level))
    return relevant, len(rl.items)


__all__ = [
    "BY_ID",
    "LESSONS",
    "TEXT_PARTS",
    "Lesson",
    "check",
    "evaluate_list",
    "levels_summary",
    "mean_over_queries",
    "model_means",
    "start_settings",
    "value",
]
