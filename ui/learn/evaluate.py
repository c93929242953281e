"""Pure helpers of the Learn page: pick one ranked list, evaluate and explain it, swap items."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.aggregation import summarize
from metrics.engine.evaluation import curves, evaluate, rank_run
from metrics.engine.explain import (
    EXPLAINED,
    EXPLAINED_MORE,
    ListExplanation,
    explain_list,
    list_frames,
)
from metrics.engine.ranking import RankedLists, gain_of
from metrics.engine.registry import at_cutoff, parse_measure
from metrics.engine.relevance import is_relevant
from metrics.engine.settings import Settings
from metrics.errors import MeasureError
from metrics.io.dataset import Dataset
from ui.shell.handbuilt_list import RankedList

#: Default K of each teaching list (the cutoff of the worked example).
PRESET_K = {"precision_recall": 5, "ndcg_graded": 4}
MRR_LISTS = ("mrr_first_at_2", "mrr_first_at_1", "mrr_first_at_4")


def lists_of(dataset: Dataset, lists: dict[str, RankedLists], model: str) -> list[str]:
    """Query ids of one model's lists."""
    return [str(q) for q in lists[model].query_ids]


def list_from_ranked(
    dataset: Dataset, lists: dict[str, RankedLists], model: str, query: str
) -> RankedList:
    """One query's list from ranked lists, with its judged-but-not-retrieved items."""
    ranked = lists[model]
    q = int(np.flatnonzero(ranked.query_ids.astype(str) == str(query))[0])
    lo, hi = ranked.offsets[q], ranked.offsets[q + 1]
    items = dataset.run[S.ITEM].to_numpy()[ranked.row_index[lo:hi]]
    labels = ranked.labels[lo:hi]
    judged = dataset.qrels[dataset.qrels[S.QUERY] == str(query)]
    retrieved = set(map(str, items))
    extra = tuple(
        (str(i), float(l))
        for i, l in zip(judged[S.ITEM], judged[S.RELEVANCE])
        if str(i) not in retrieved
    )
    return RankedList(
        str(query),
        tuple(map(str, items)),
        tuple(float(x) for x in labels),
        extra,
        min(PRESET_K.get(str(query), 10), hi - lo) or 1,
    )


def confidences_of(
    dataset: Dataset, lists: dict[str, RankedLists], model: str, query: str
) -> tuple[float, ...] | None:
    """The model's scores of one query's list, in rank order (the confidences cwP weighs by),
    or ``None`` for a run ranked by its rank column or whose lower scores are better."""
    ranked = lists[model]
    if ranked.scores is None or ranked.settings.score_order_of(model) == "ascending":
        return None  # ranked by rank, or lower is better: no confidences
    q = int(np.flatnonzero(ranked.query_ids.astype(str) == str(query))[0])
    lo, hi = ranked.offsets[q], ranked.offsets[q + 1]
    return tuple(float(x) for x in ranked.scores[lo:hi])


def teaching_lists(dataset: Dataset) -> dict[str, RankedList]:
    """The worked examples of the teaching sample, by list name."""
    lists = rank_run(dataset.run, dataset.qrels, Settings(ties="rank"))
    model = next(iter(lists))
    return {q: list_from_ranked(dataset, lists, model, q) for q in lists_of(dataset, lists, model)}


def list_from_table(table: pd.DataFrame, name: str) -> RankedList:
    """One hand-built list (see :mod:`ui.shell.handbuilt`)."""
    from ui.shell.handbuilt import lists_of

    for rl in lists_of(table):
        if rl.name == name:
            return rl
    return RankedList(name, (), ())


def own_scores(settings: Settings) -> Settings:
    """``settings`` for the page's own lists, whose scores (given, or made from the positions)
    are higher for better items: the score order does not apply to them. A list whose order is
    its stored order (tie policy ``rank``, see :func:`ordered`) is evaluated by the distinct
    scores made from its positions, with no rank column to read: the tie policy has nothing
    left to decide there."""
    ties = "input_order" if settings.ties == "rank" else settings.ties
    return settings.with_(score_order="descending", score_order_by_model=(), ties=ties)


def ordered(rl: RankedList, settings: Settings) -> RankedList:
    """``rl`` in the order :mod:`metrics` ranks it: by score (higher first), ties by the tie
    policy.

    A list without scores is already in rank order and is returned unchanged.
    """
    if rl.scores is None or not rl.items or settings.ties == "rank":
        return rl  # "rank": the stored order is the rank given
    run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved))
    run["score"] = np.asarray(rl.scores, dtype=float)
    lists = rank_run(run, qrels, own_scores(settings))
    ranked = next(iter(lists.values()))
    order = ranked.row_index[ranked.offsets[0] : ranked.offsets[1]]
    return replace(
        rl,
        items=tuple(rl.items[i] for i in order),
        labels=tuple(rl.labels[i] for i in order),
        scores=tuple(rl.scores[i] for i in order),
    )


def counted(rl: RankedList) -> RankedList:
    """``rl`` as its measures read it: an item repeated in the list keeps its best-ranked copy
    and the later copies are left out, so the items below them move up (the engine's rule for
    repeated items, ``duplicates = keep_best``; trec_eval refuses such a run). A list without
    a repeated item is returned as it is."""
    seen: set[str] = set()
    keep = []
    for i, item in enumerate(rl.items):
        if item not in seen:
            keep.append(i)
            seen.add(item)
    if len(keep) == len(rl.items):
        return rl
    return replace(
        rl,
        items=tuple(rl.items[i] for i in keep),
        labels=tuple(rl.labels[i] for i in keep),
        scores=None if rl.scores is None else tuple(rl.scores[i] for i in keep),
    )


def copies(rl: RankedList) -> dict[int, int]:
    """The later copies of repeated items of ``rl`` (in rank order): ``{position: position of
    the copy kept}``, positions from 1."""
    first: dict[str, int] = {}
    out = {}
    for i, item in enumerate(rl.items, start=1):
        if item in first:
            out[i] = first[item]
        else:
            first[item] = i
    return out


def tied_ranks(rl: RankedList) -> list[tuple[int, int]]:
    """Runs of equal scores in an ordered list, as 1-based ``(first, last)`` rank pairs."""
    if rl.scores is None:
        return []
    out, start = [], 0
    for i in range(1, len(rl.scores) + 1):
        if i == len(rl.scores) or rl.scores[i] != rl.scores[start]:
            if i - start > 1:
                out.append((start + 1, i))
            start = i
    return out


def measure_names(k: int) -> list[str]:
    """The explained measures at ``k``: ``P@5``, ``R@5``, ..."""
    return [parse_measure(m, k=k).name for m in EXPLAINED]


def list_values(rl: RankedList, names: list[str], settings: Settings) -> dict[str, float]:
    """The measures ``names`` of one list, computed by :func:`metrics.evaluate`. A list with no
    judged item is a query trec_eval leaves out; here it scores 0 on every measure (nothing
    relevant is found), so that the page can still explain it. A repeated item counts once
    (:func:`counted`)."""
    rl = counted(rl)
    run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved))
    rows = evaluate(run, qrels, names, own_scores(settings)).per_query
    if rows.empty:
        return dict.fromkeys(names, 0.0)
    return {name: float(rows.iloc[0][name]) for name in names}


def evaluate_list(rl: RankedList, k: int, settings: Settings) -> dict[str, float]:
    """Values of the explained measures at ``k`` (see :func:`list_values`)."""
    names = measure_names(k)
    values = list_values(rl, names, settings)
    return {m: values[name] for m, name in zip(EXPLAINED, names)}


def explain(rl: RankedList, k: int, settings: Settings) -> ListExplanation:
    """Per-position table and substituted formulas for the list at ``k`` (a repeated item
    counted once, see :func:`counted`)."""
    rl = counted(rl)
    return explain_list(
        list(rl.items), list(rl.labels), k, settings, [l for _, l in rl.unretrieved]
    )


def formulas(rl: RankedList, k: int, settings: Settings) -> pd.DataFrame:
    """One row per measure: name, substituted formula with metrics' value, value."""
    values = evaluate_list(rl, k, settings)
    ex = explain(rl, k, settings)
    return pd.DataFrame(
        [
            {"measure": m, "formula": ex.pieces[m].formula(values[m]), "value": values[m]}
            for m in EXPLAINED
        ]
    )


def shown_measures(selected: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The measures the one-list view works out: :data:`EXPLAINED`, Judged@K, then each other
    selected measure that has a worked formula (:data:`EXPLAINED_MORE`), once, in the order
    selected."""
    extra = [m for m in dict.fromkeys(selected) if m in EXPLAINED_MORE and m != "Judged"]
    return (*EXPLAINED, "Judged", *extra)


@dataclass(frozen=True)
class Card:
    """One measure of one list at K, as the page shows it.

    Attributes
    ----------
    measure, name:
        ``wP`` and ``wP@5``.
    formula:
        The formula with the list's numbers and the value from :mod:`metrics`
        (``wP@5 = (1.000 + 0.500)/2.948 = 0.509``), or ``None`` when it cannot be computed.
    detail:
        The numbers it weighs by (``w = 1.000, 0.631, ...``), or ``""``.
    problem:
        Why it cannot be computed: ``no_confidences`` (cwP on a list without scores),
        ``negative_confidences`` (a score below 0), or ``error`` (:attr:`message` says why).
    message:
        The engine's message, for ``error``.
    """

    measure: str
    name: str
    formula: str | None
    detail: str = ""
    problem: str | None = None
    message: str = ""


def _scored_values(
    rl: RankedList, scores: tuple[float, ...], names: list[str], settings: Settings
) -> dict[str, float]:
    """``names`` of one list in rank order whose items carry ``scores`` (cwP weighs by them)."""
    run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved))
    run["score"] = np.asarray(scores, dtype=float)
    rows = evaluate(run, qrels, names, own_scores(settings)).per_query
    if rows.empty:
        return dict.fromkeys(names, 0.0)
    return {name: float(rows.iloc[0][name]) for name in names}


def _values_one_by_one(
    rl: RankedList, names: list[str], settings: Settings
) -> tuple[dict[str, float], dict[str, str]]:
    """The values of ``names`` (all at once; one by one when one cannot be computed) and, by
    name, the message of each that cannot."""
    try:
        return list_values(rl, names, settings), {}
    except MeasureError:
        pass
    values: dict[str, float] = {}
    failed: dict[str, str] = {}
    for name in names:
        try:
            values |= list_values(rl, [name], settings)
        except MeasureError as exc:
            failed[name] = str(exc)
    return values, failed


def _judged_any(rl: RankedList) -> bool:
    return any(x == x for x in (*rl.labels, *(x for _, x in rl.unretrieved)))


def measure_cards(
    rl: RankedList,
    k: int,
    settings: Settings,
    measures: tuple[str, ...],
    *,
    confidences: tuple[float, ...] | None = None,
) -> list[Card]:
    """Each of ``measures`` (of :data:`EXPLAINED` and :data:`EXPLAINED_MORE`) of ``rl`` (in rank
    order) at ``k``: its worked formula with the value :func:`metrics.evaluate` gives, or why it
    cannot be computed. cwP weighs by the list's scores, or by ``confidences`` (the model's
    scores of a data set's query) when the list has none. A list with nothing judged is a query
    metrics leaves out: the measures of relevance read 0 there (see :func:`list_values`) and the
    list's own counts are worked out as they are."""
    if confidences is not None and rl.scores is None and len(confidences) == len(rl.items):
        rl = replace(rl, scores=confidences)
    rl = counted(rl)
    scores = rl.scores
    ex = explain_list(
        list(rl.items), list(rl.labels), k, settings, [x for _, x in rl.unretrieved], scores
    )
    names = {m: at_cutoff(m, k) for m in measures}
    plain = [names[m] for m in measures if m != "cwP"]
    values, failed = _values_one_by_one(rl, plain, settings)
    judged = _judged_any(rl)
    out = []
    for m in measures:
        name = names[m]
        if m == "cwP":
            out.append(_confidence_card(rl, scores, name, ex, settings))
            continue
        if name in failed:
            out.append(Card(m, name, None, problem="error", message=failed[name]))
            continue
        piece = ex.pieces.get(m)
        if piece is None:  # ERR under a gain map: the value, without its substitution
            out.append(Card(m, name, f"{name} = {values[name]:.3f}"))
            continue
        value = values[name] if judged or m in EXPLAINED else piece.value
        out.append(Card(m, name, piece.formula(value), piece.detail))
    return out


def _confidence_card(
    rl: RankedList,
    scores: tuple[float, ...] | None,
    name: str,
    ex: ListExplanation,
    settings: Settings,
) -> Card:
    if scores is None or not rl.items:
        return Card("cwP", name, None, problem="no_confidences")
    if any(not x >= 0 for x in scores):
        return Card("cwP", name, None, problem="negative_confidences")
    try:
        value = _scored_values(rl, scores, [name], settings)[name]
    except MeasureError as exc:
        return Card("cwP", name, None, problem="error", message=str(exc))
    piece = ex.pieces["cwP"]
    return Card("cwP", name, piece.formula(value), piece.detail)


def list_curve(
    rl: RankedList, settings: Settings, k_max: int, measures: tuple[str, ...] = EXPLAINED
) -> pd.DataFrame:
    """``measures`` at K = 1..k_max (``k`` column, one column per measure); 0 everywhere for a
    list with no judged item (see :func:`list_values`)."""
    rl = counted(rl)
    run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved))
    lists = rank_run(run, qrels, own_scores(settings))
    out: dict[str, np.ndarray] = {"k": np.arange(1, k_max + 1)}
    for m in measures:
        values = curves(lists, m, k_max)[S.DEFAULT_MODEL]
        out[m] = values[0] if len(values) else np.zeros(k_max)
    return pd.DataFrame(out)


def compare_orderings(a: RankedList, b: RankedList, k: int, settings: Settings) -> pd.DataFrame:
    """Each measure at ``k`` for two orderings, and whether it changed."""
    va, vb = evaluate_list(a, k, settings), evaluate_list(b, k, settings)
    names = measure_names(k)
    return pd.DataFrame(
        [
            {
                "measure": n,
                "A": va[m],
                "B": vb[m],
                "changed": not np.isclose(va[m], vb[m], equal_nan=True),
            }
            for m, n in zip(EXPLAINED, names)
        ]
    )


def mrr_example(teaching: dict[str, RankedList], settings: Settings) -> tuple[str, float]:
    """MRR over the three teaching lists: ``(1/2 + 1/1 + 1/4)/3`` and its value from metrics."""
    parts, values = [], []
    for name in MRR_LISTS:
        rl = teaching[name]
        rr = evaluate_list(rl, len(rl.items), settings)["RR"]
        values.append(rr)
        first = next(
            (i + 1 for i, l in enumerate(rl.labels) if is_relevant(l, settings.relevance_level)),
            None,
        )
        parts.append(f"1/{first}" if first else "0")
    mrr = float(np.mean(values))
    return f"MRR = ({' + '.join(parts)})/{len(parts)} = {mrr:.3f}", mrr


#: The measures whose mean over queries the several-lists mode works out: MRR, MAP, mean nDCG.
QUERY_MEANS = ("RR", "AP", "nDCG")


@dataclass(frozen=True)
class QueryMean:
    """One measure at K over several lists, each list a query of one model.

    Attributes
    ----------
    measure, name:
        ``RR`` and ``RR@5``.
    formulas:
        Per list, in the order given: ``(list name, substituted formula with the value from
        metrics)``, or ``(list name, None)`` for a list the mean leaves out.
    left_out:
        Per list left out, why: ``unjudged`` (nothing judged, trec_eval drops the query),
        ``empty`` (no result, and judged queries absent from the run are skipped),
        ``no_relevant`` (nothing relevant, and such queries are left out), or ``other``.
    values:
        The values of the lists the mean counts, in order.
    mean:
        The mean over those lists, computed by :func:`metrics.summarize` (NaN when no list
        counts).
    """

    measure: str
    name: str
    formulas: tuple[tuple[str, str | None], ...]
    left_out: dict[str, str]
    values: tuple[float, ...]
    mean: float

    @property
    def sum_text(self) -> str:
        """``(0.500 + 1.000 + 0.250)/3``: the mean as the values make it."""
        parts = " + ".join(f"{v:.3f}" for v in self.values)
        return f"({parts})/{len(self.values)}"


def _left_out_reason(rl: RankedList, settings: Settings) -> str:
    labels = [x for x in rl.labels if x == x] + [x for _, x in rl.unretrieved]
    if not labels:
        return "unjudged"
    if not rl.items:
        return "empty"
    if settings.no_relevant == "leave_out" and not any(
        is_relevant(x, settings.relevance_level) for x in labels
    ):
        return "no_relevant"
    return "other"


def query_means(
    lists: list[RankedList], k: int, settings: Settings, measures: tuple[str, ...] = QUERY_MEANS
) -> list[QueryMean]:
    """Each of ``measures`` at ``k`` for every list (a query of one model, named after the
    list) and the mean over the lists, as :func:`metrics.evaluate` and
    :func:`metrics.summarize` compute them for the lists as one run: a list the evaluation
    leaves out (nothing judged, no result under the default of trec_eval) is named, not
    counted. ``lists`` must be in rank order (see :func:`ordered`) with distinct names."""
    lists = [counted(rl) for rl in lists]
    runs, judged = [], []
    for rl in lists:
        run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved), rl.name)
        runs.append(run)
        judged.append(qrels)
    names = [parse_measure(m, k=k).name for m in measures]
    run, qrels = pd.concat(runs, ignore_index=True), pd.concat(judged, ignore_index=True)
    values: dict[str, dict[str, float]] = {name: {} for name in names}
    means = dict.fromkeys(names, float("nan"))
    if len(run) and len(qrels):
        ev = evaluate(run, qrels, names, own_scores(settings))
        for row in ev.per_query.to_dict("records"):
            for name in names:
                values[name][str(row[S.QUERY])] = float(row[name])
        if len(ev.per_query):
            table = summarize(ev)
            means |= {str(r["measure"]): float(r["value"]) for r in table.to_dict("records")}
    out = []
    for measure, name in zip(measures, names):
        formulas: list[tuple[str, str | None]] = []
        left_out: dict[str, str] = {}
        in_mean: list[float] = []
        for rl in lists:
            if rl.name not in values[name]:
                formulas.append((rl.name, None))
                left_out[rl.name] = _left_out_reason(rl, settings)
                continue
            v = values[name][rl.name]
            in_mean.append(v)
            formulas.append((rl.name, explain(rl, k, settings).pieces[measure].formula(v)))
        out.append(QueryMean(measure, name, tuple(formulas), left_out, tuple(in_mean), means[name]))
    return out


def mrr_example_lists(teaching: dict[str, RankedList]) -> list[RankedList]:
    """The notes' MRR example as three queries named ``q1``, ``q2``, ``q3`` (first relevant at
    ranks 2, 1 and 4)."""
    return [
        replace(teaching[name], name=f"q{i}", default_k=5)
        for i, name in enumerate(MRR_LISTS, start=1)
    ]


def ideal_table(rl: RankedList, k: int, settings: Settings) -> pd.DataFrame:
    """The ideal order of ``rl`` (in rank order) cut at ``k``, as IDCG@K counts it: every
    judged item, retrieved or in the tray, by gain from the highest (equal gains keep the
    list's order, the tray after it), with ``rank``, ``item``, ``label``, ``from_rank`` (its
    rank in the list; 0 for the tray: the move that makes the ideal order), ``gain``,
    ``discount``, ``contribution`` and ``running_idcg``. The gains and sums are those of
    :func:`explain` (``ideal``)."""
    rl = counted(rl)
    judged = [
        (item, label, rank)
        for rank, (item, label) in enumerate(zip(rl.items, rl.labels), start=1)
        if label == label
    ] + [(item, label, 0) for item, label in rl.unretrieved]
    gains = np.maximum(
        np.asarray(gain_of(np.array([x for _, x, _ in judged], dtype=float), settings)), 0.0
    )
    order = np.argsort(-gains, kind="stable")[:k]
    rank = np.arange(1, len(order) + 1)
    discount = 1.0 / np.log2(rank + 1)
    contribution = gains[order] * discount
    return pd.DataFrame(
        {
            "rank": rank,
            "item": [judged[i][0] for i in order],
            "label": [judged[i][1] for i in order],
            "from_rank": [judged[i][2] for i in order],
            "gain": gains[order],
            "discount": discount,
            "contribution": contribution,
            "running_idcg": np.cumsum(contribution),
        }
    )


def ideal_of(rl: RankedList) -> RankedList:
    """The best ordering of every judged item of ``rl`` (retrieved or not), highest label first."""
    rl = counted(rl)
    judged = [(i, x) for i, x in zip(rl.items, rl.labels) if x == x] + list(rl.unretrieved)
    judged.sort(key=lambda p: -p[1])
    return RankedList(
        f"{rl.name} (ideal)",
        tuple(i for i, _ in judged),
        tuple(x for _, x in judged),
        default_k=rl.default_k,
    )


def relevant_count(rl: RankedList, level: float) -> int:
    """Retrieved items whose label is at least ``level`` (a repeated item once)."""
    return sum(1 for x in counted(rl).labels if is_relevant(x, level))


def pitfalls(rl: RankedList, k: int, settings: Settings) -> list[tuple[str, dict[str, object]]]:
    """The pitfalls that apply to this list at ``k``: ``(catalog key suffix, values)`` pairs.

    ``rl`` must be in rank order (see :func:`ordered`); a repeated item is named, and the
    other pitfalls read the list as its measures do (:func:`counted`).
    """
    level = settings.relevance_level
    out: list[tuple[str, dict[str, object]]] = []
    for position, kept in copies(rl).items():
        out.append(("duplicate", {"item": rl.items[position - 1], "rank": kept, "at": position}))
    rl = counted(rl)
    if rl.items and not any(x == x for x in (*rl.labels, *(x for _, x in rl.unretrieved))):
        out.append(("nothing_judged", {}))
    for first, last in tied_ranks(rl):
        out.append(("ties", {"first": first, "last": last}))
    top = rl.labels[:k]
    unjudged = sum(1 for x in top if x != x)
    if unjudged:
        out.append(("unjudged", {"n": unjudged, "k": k}))
    n = len(rl.items)
    if n < k:
        out.append(("short", {"n": n, "k": k, "policy": settings.short_lists}))
    missing = sum(1 for _, x in rl.unretrieved if is_relevant(x, level))
    if missing:
        total = relevant_count(rl, level) + missing
        out.append(("pool", {"n": missing, "total": total, "reach": total - missing}))
    hits = sum(1 for x in top if is_relevant(x, level))
    if relevant_count(rl, level) + missing == 0:
        out.append(("none", {"level": f"{level:g}"}))
    elif 0 < hits < min(k, n):
        out.append(("order", {"k": k}))
    grades = sorted({x for x in rl.labels if is_relevant(x, level)})
    if len(grades) > 1:
        out.append(
            ("graded", {"grades": ", ".join(f"{g:g}" for g in grades), "level": f"{level:g}"})
        )
    return out
