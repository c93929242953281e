"""Ranked lists as flat arrays.

Level one of the engine: :func:`rank_lists` joins a run with its judgments, orders every query's
list by the tie policy and lays all queries out back to back in flat numpy arrays
(:class:`RankedLists`: one entry per ranked item, ``offsets`` marking where each query starts).
The per-query kernels of the measures (:mod:`metrics.engine.measures`) are cumulative sums over
those flat arrays, read at the requested cutoffs for all queries at once: no Python loop over
queries or over K. Aggregation over queries is level two (:mod:`metrics.engine.aggregation`).
The ids are read and encoded as integer codes by :mod:`metrics.engine.ids`.

Only numpy and pyarrow are imported here (``pyarrow.compute`` on first use beyond the few
functions of :mod:`metrics.engine.arrow_calls`), so the command line starts quickly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa

from metrics.engine import arrow_calls, relevance
from metrics.engine.arrow_calls import compute as pc
from metrics.engine.ids import (
    ArrayLike,
    IdCodes,
    arrow_numbers,
    as_float_array,
    as_string_array,
    dictionary_codes,
    numpy_of,
    runs_of,
)
from metrics.engine.settings import Settings, parse_gain_map
from metrics.errors import InputError, SettingsError


@dataclass(frozen=True)
class RepeatedJudgments:
    """Judgments that repeat a (query, item) already judged: ``count`` rows repeat one, and of
    the (query, item) pairs judged more than once, ``conflicts`` have different labels.

    ``conflict_rows`` are the first row of each conflicting pair (input order, ascending; at
    most ``limit`` of them) and ``conflict_labels`` its distinct labels, ascending: the last one,
    the highest, is the one kept."""

    count: int
    conflicts: int
    conflict_rows: np.ndarray
    conflict_labels: tuple[tuple[float, ...], ...]


def repeated_judgments(
    keys: np.ndarray, labels: np.ndarray, rank: np.ndarray | None = None, limit: int = 5
) -> RepeatedJudgments | None:
    """The judgments whose key (one integer per (query, item)) repeats, and the pairs judged
    with different labels (missing labels left out); ``None`` when no key repeats. The pairs
    shown are the first by ``rank`` (one number per judgment, such as its query's place in
    the evaluation order), then by row; by row when ``rank`` is ``None``."""
    rows = np.flatnonzero(~np.isnan(labels))
    order = rows[np.argsort(keys[rows], kind="stable")]
    key = keys[order]
    if len(key) < 2:
        return None
    same = key[1:] == key[:-1]
    if not same.any():
        return None
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    value = labels[order]
    highest, lowest = np.maximum.reduceat(value, starts), np.minimum.reduceat(value, starts)
    first = np.sort(order[starts[np.flatnonzero(highest != lowest)]])
    if rank is not None:
        first = first[np.argsort(rank[first], kind="stable")]
    shown = first[:limit]
    conflict_labels = tuple(
        tuple(float(v) for v in np.unique(value[key == keys[row]])) for row in shown
    )
    return RepeatedJudgments(int(same.sum()), len(first), shown, conflict_labels)


@dataclass(frozen=True)
class RankingNotes:
    """What :func:`rank_lists` did besides ranking (dropped copies, skipped queries, repeated
    judgments), for warnings and exports. ``repeated_judgments``: rows repeating a judged
    (query, item); ``conflicting_judgments``: the (query, item) pairs judged with different
    labels, and ``conflict_examples`` the first of them as ``(query, item, labels)``, the
    labels ascending (the highest is kept)."""

    dropped_duplicates: int = 0
    duplicate_examples: tuple[str, ...] = ()
    repeated_judgments: int = 0
    conflicting_judgments: int = 0
    conflict_examples: tuple[tuple[str, str, tuple[float, ...]], ...] = ()
    run_queries_without_judgments: tuple[str, ...] = ()
    judged_queries_missing_from_run: tuple[str, ...] = ()
    queries_without_relevant: tuple[str, ...] = ()
    left_out_without_relevant: tuple[str, ...] = ()
    missing_scored_zero: bool = False


@dataclass
class RankedLists:
    """All evaluated queries of one run, ranked and laid out back to back.

    Attributes
    ----------
    query_ids:
        Query ids in evaluation order (ascending byte order), shape ``(n_queries,)``.
    offsets:
        ``offsets[q]:offsets[q+1]`` is query ``q``'s slice of the flat arrays.
    labels:
        Judgment of each ranked item in rank order; ``NaN`` where the item is not in the
        judgments. A negative label is kept: it means "in the pool but unjudged" (trec_eval).
    row_index:
        Position of each ranked item in the input run (for drill-downs).
    ideal_offsets, ideal_labels:
        Per query, the labels of all its judged items sorted descending (the ideal ranking).
    settings:
        The settings the lists were built with (see :meth:`rescored` for changing the ones that
        leave the lists as they are).
    notes:
        Dropped duplicates and skipped queries.
    scores:
        Score of each ranked item (``None`` when the run was ranked by its rank column).
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    labels: np.ndarray
    row_index: np.ndarray
    ideal_offsets: np.ndarray
    ideal_labels: np.ndarray
    settings: Settings
    notes: RankingNotes = field(default_factory=RankingNotes)
    scores: np.ndarray | None = None

    def rescored(self, settings: Settings) -> RankedLists:
        """The same lists under other settings that do not change them (relevance level, gain,
        fewer-than-K, averaging): no new ranking is needed.

        Raises
        ------
        SettingsError
            When ``settings`` differ in a field of :func:`ranking_key`.
        """
        wanted = dict(ranking_key(settings))
        if self.settings.ties == "rank":
            wanted["ties"] = "rank"  # a run without scores was ranked by its rank column
        if wanted != dict(ranking_key(self.settings)):
            changed = [
                name
                for name, value in ranking_key(settings)
                if dict(ranking_key(self.settings)).get(name) != value
            ]
            raise SettingsError(
                f"these settings change the ranked lists ({', '.join(changed) or 'ties'}); "
                "rank the run again."
            )
        return replace(self, settings=settings.with_(ties=self.settings.ties))

    # ----------------------------------------------------------------- basic per-row arrays
    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def num_rel(self) -> np.ndarray:
        """Number of judged items at or above the relevance level, per query (negative labels
        never count, as in trec_eval)."""
        level = self.settings.relevance_level
        relevant = relevance.relevant(self.ideal_labels, level)
        return _segment_cumsum_total(relevant.astype(np.float64), self.ideal_offsets)

    @cached_property
    def num_judged_nonrelevant(self) -> np.ndarray:
        """Judged items below the relevance level (label ≥ 0), retrieved or not (bpref's N)."""
        level = self.settings.relevance_level
        nonrel = relevance.judged_nonrelevant(self.ideal_labels, level)
        return _segment_cumsum_total(nonrel.astype(np.float64), self.ideal_offsets)

    @cached_property
    def max_label(self) -> np.ndarray:
        """Largest label among each query's judgments (0 when it has none ≥ 0)."""
        out = np.zeros(self.n_queries)
        has = self.n_ideal > 0
        if len(self.ideal_labels):
            out[has] = np.maximum.reduceat(self.ideal_labels, self.ideal_offsets[:-1][has])
        return np.maximum(out, 0.0)

    @cached_property
    def ideal_gains(self) -> np.ndarray:
        """Gains of the ideal ranking: each query's judged gains sorted descending, stopping at
        the first gain of 0 or less (trec_eval m_ndcg.c), so later entries are 0."""
        gains = gain_of(self.ideal_labels, self.settings)
        if self.settings.gain_map is not None:  # gains need not grow with labels
            query = np.repeat(np.arange(self.n_queries), self.n_ideal)
            gains = gains[np.lexsort((-gains, query))]
        ideal: np.ndarray = np.maximum(gains, 0.0)
        return ideal

    @cached_property
    def n_returned(self) -> np.ndarray:
        """Number of ranked items per query."""
        return np.diff(self.offsets)

    @cached_property
    def query_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries), self.n_returned)

    @cached_property
    def position(self) -> np.ndarray:
        """0-based rank of each flat entry within its query."""
        position: np.ndarray = np.arange(len(self.labels)) - np.repeat(
            self.offsets[:-1], self.n_returned
        )
        return position

    @cached_property
    def relevant(self) -> np.ndarray:
        """Binary relevance: judged, label ≥ 0 and at or above the relevance level."""
        with np.errstate(invalid="ignore"):
            relevant: np.ndarray = relevance.relevant(self.labels, self.settings.relevance_level)
        return relevant

    @cached_property
    def judged(self) -> np.ndarray:
        """In the judgments with a label ≥ 0 (a negative label is "in the pool, unjudged")."""
        with np.errstate(invalid="ignore"):
            judged: np.ndarray = relevance.judged(self.labels)
        return judged

    @cached_property
    def judged_nonrelevant(self) -> np.ndarray:
        """Judged (label ≥ 0) and below the relevance level."""
        judged_nonrelevant: np.ndarray = self.judged & ~self.relevant
        return judged_nonrelevant

    @cached_property
    def pooled_unjudged(self) -> np.ndarray:
        """In the judgments with a negative label (trec_eval's "in the pool, not judged")."""
        with np.errstate(invalid="ignore"):
            return self.labels < 0

    @cached_property
    def gains(self) -> np.ndarray:
        return gain_of(self.labels, self.settings)

    @cached_property
    def discount(self) -> np.ndarray:
        """1 / log2(rank + 1) of each entry (computed once per rank, then looked up)."""
        per_rank = 1.0 / np.log2(np.arange(int(self.n_returned.max(initial=0))) + 2.0)
        discount: np.ndarray = per_rank[self.position]
        return discount

    # ----------------------------------------------------------------- cumulative sums
    def within_query_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Cumulative sum that restarts at each query's first item."""
        return _segment_cumsum(values, self.offsets)

    @cached_property
    def cum_relevant(self) -> np.ndarray:
        return self.within_query_cumsum(self.relevant.astype(np.float64))

    @cached_property
    def cum_judged(self) -> np.ndarray:
        return self.within_query_cumsum(self.judged.astype(np.float64))

    @cached_property
    def cum_dcg(self) -> np.ndarray:
        return self.within_query_cumsum(self.gains * self.discount)

    @cached_property
    def cum_precision_at_relevant(self) -> np.ndarray:
        """Running sum of P@rank over relevant ranks (the numerator of AP)."""
        precision = np.zeros(len(self.labels))
        np.divide(self.cum_relevant, self.position + 1.0, out=precision, where=self.relevant)
        return self.within_query_cumsum(precision)

    @cached_property
    def n_ideal(self) -> np.ndarray:
        return np.diff(self.ideal_offsets)

    @cached_property
    def cum_ideal_dcg(self) -> np.ndarray:
        position = np.arange(len(self.ideal_gains)) - np.repeat(
            self.ideal_offsets[:-1], self.n_ideal
        )
        log2_rank = np.log2(np.arange(int(self.n_ideal.max(initial=0))) + 2.0)[position]
        return _segment_cumsum(self.ideal_gains / log2_rank, self.ideal_offsets)

    @cached_property
    def first_relevant_rank(self) -> np.ndarray:
        """1-based rank of the first relevant item per query; ``inf`` when none is retrieved."""
        ranks = np.where(self.relevant, self.position + 1.0, np.inf)
        out = np.full(self.n_queries, np.inf)
        nonempty = self.n_returned > 0
        if len(ranks):
            out[nonempty] = np.minimum.reduceat(ranks, self.offsets[:-1][nonempty])
        return out

    # ----------------------------------------------------------------- reading cutoffs
    def at(self, cumulative: np.ndarray, ks: np.ndarray) -> np.ndarray:
        """Read a within-query cumulative array at cutoffs ``ks`` -> ``(n_queries, len(ks))``.

        Lists shorter than K keep their last value (missing positions add nothing). When
        every list is as long and the cutoffs are consecutive, the result is a read-only view of
        ``cumulative``.
        """
        return _gather(cumulative, self.offsets, self.n_returned, ks)

    def at_end(self, cumulative: np.ndarray) -> np.ndarray:
        """Value of a within-query cumulative array after the last item, per query."""
        return _gather(
            cumulative, self.offsets, self.n_returned, np.array([np.iinfo(np.int64).max // 4])
        )[:, 0]

    def ideal_at(self, ks: np.ndarray) -> np.ndarray:
        """IDCG at each cutoff, from all judged items of the query (retrieved or not)."""
        return _gather(self.cum_ideal_dcg, self.ideal_offsets, self.n_ideal, ks)

    def ideal_total(self) -> np.ndarray:
        return _gather(
            self.cum_ideal_dcg,
            self.ideal_offsets,
            self.n_ideal,
            np.array([np.iinfo(np.int64).max // 4]),
        )[:, 0]


def gain_of(labels: np.ndarray, settings: Settings) -> np.ndarray:
    """DCG gain of each label under the gain policies; unjudged and negative labels gain 0.

    With a custom ``gain_map`` a listed label takes its gain (which may be negative) and any
    other label keeps its value as gain, as trec_eval's ``ndcg`` pairs; otherwise the label
    (``linear``) or 2^label − 1 (``exponential``).
    """
    labels = np.asarray(labels, dtype=np.float64)
    plain = not settings.ndcg_relevance_level and settings.gain_map is None
    if plain and not np.isinf(labels).any():
        kept: np.ndarray = np.fmax(labels, 0.0)  # as below: unjudged (NaN), negative labels 0
        if settings.gain == "exponential":
            exponential: np.ndarray = np.exp2(kept) - 1.0
            return exponential
        return kept
    labels = np.nan_to_num(labels, nan=-1.0)
    negative = labels < 0
    if settings.ndcg_relevance_level:
        labels = np.where(relevance.relevant(labels, settings.relevance_level), labels, 0.0)
    labels = np.maximum(labels, 0.0)
    if settings.gain_map is not None:
        gains = labels.copy()
        for level, gain in parse_gain_map(settings.gain_map).items():
            gains[labels == level] = gain
        return np.where(negative, 0.0, gains)
    if settings.gain == "exponential":
        powers: np.ndarray = np.exp2(labels) - 1.0
        return powers
    return labels


def ranking_key(settings: Settings) -> tuple[tuple[str, Any], ...]:
    """The settings that decide which rows are ranked, in which order, and which queries are
    evaluated. Lists ranked under equal keys can be :meth:`RankedLists.rescored`."""
    fields = [
        "ties",
        "score_precision",
        "score_order",
        "score_order_by_model",
        "duplicates",
        "missing_queries",
        "no_relevant",
        "max_results",
        "judged_only",
        "fractional_labels",
    ]
    if settings.no_relevant == "leave_out":
        fields.append("relevance_level")
    return tuple((name, getattr(settings, name)) for name in fields)


def _segment_cumsum_total(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``values`` within each segment."""
    total = np.concatenate(([0.0], np.cumsum(values, dtype=np.float64)))
    sums: np.ndarray = total[offsets[1:]] - total[offsets[:-1]]
    return sums


def _segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sums that start again at each segment: within a segment, the sum of its values
    up to each entry, added one by one from the segment's first entry (as trec_eval adds
    them), so that a query's sums do not depend on the queries before it.

    Segments of one length are the rows of a table summed along its rows; segments of other
    lengths are summed in tables of the segments of about the same length (at most twice
    the cells).
    """
    values = np.asarray(values)
    lengths = np.diff(offsets)
    if len(values) == 0:
        return np.zeros(0)
    width = int(lengths.max())
    if len(values) == width * int((lengths > 0).sum()):  # every nonempty segment is as long
        rows: np.ndarray = np.cumsum(values.reshape(-1, width), axis=1, dtype=np.float64)
        return rows.reshape(-1)
    out = np.empty(len(values))
    size_class = np.frexp(np.maximum(lengths - 1, 0))[1]  # bit length of length - 1
    if len(lengths) * width <= 2 * len(values):
        size_class[:] = 0  # one table is small enough
    for c in np.flatnonzero(np.bincount(size_class[lengths > 0])):
        segment = np.flatnonzero((size_class == c) & (lengths > 0))
        n = lengths[segment]
        entries = group_rows(offsets[segment], n)
        width = int(n.max())
        cells = group_rows(np.arange(len(segment)) * width, n)
        table = np.zeros(len(segment) * width)
        table[cells] = values[entries]
        np.cumsum(table.reshape(-1, width), axis=1, out=table.reshape(-1, width))
        out[entries] = table[cells]
    return out


def _table_view(cumulative: np.ndarray, lengths: np.ndarray, ks: np.ndarray) -> np.ndarray | None:
    """:func:`_gather` without an index when every list has one length of at least the largest
    cutoff: the columns ``ks`` of the lists' table (a read-only view for consecutive cutoffs);
    ``None`` otherwise."""
    if not len(ks) or len(lengths) == 0 or cumulative.dtype != np.float64:
        return None
    width = int(lengths[0])
    if not (ks.min() >= 1 and ks.max() <= width and (lengths == width).all()):
        return None
    table = cumulative.reshape(len(lengths), width)
    first = int(ks[0])
    if (ks == np.arange(first, first + len(ks))).all():
        view = table[:, first - 1 : first - 1 + len(ks)]
        view.flags.writeable = False
        return view
    out: np.ndarray = table[:, ks - 1]
    return out


def _gather(
    cumulative: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, ks: np.ndarray
) -> np.ndarray:
    """Values of ``cumulative`` at each list's position ``min(k, length)`` -> ``(lists, ks)``;
    0 for an empty list or a cutoff below 1."""
    ks = np.maximum(np.asarray(ks, dtype=np.int64), 0)
    if len(cumulative) == 0:
        return np.zeros((len(lengths), len(ks)))
    view = _table_view(cumulative, lengths, ks)
    if view is not None:
        return view
    index = np.minimum(ks[None, :], lengths[:, None])  # int64, as ks
    index += offsets[:-1, None] - 1
    out: np.ndarray = cumulative.take(index)  # an index of -1 (nothing taken) is reset below
    if out.dtype != np.float64:
        out = out.astype(np.float64)
    empty = lengths == 0
    if empty.any():
        out[empty] = 0.0
    if not ks.all():
        out[:, ks == 0] = 0.0
    return out


# ====================================================================== building the lists
def rank_lists(
    run_query: ArrayLike,
    run_item: ArrayLike,
    run_score: ArrayLike | None,
    qrels_query: ArrayLike,
    qrels_item: ArrayLike,
    qrels_relevance: ArrayLike,
    settings: Settings = Settings(),
    run_rank: ArrayLike | None = None,
    source: str = "run",
    codes: IdCodes | None = None,
) -> RankedLists:
    """Join a run with judgments and rank every query's list by the tie policy.

    The stages: read the columns, encode ids, keep the highest label of a repeated judgment,
    order the run, drop repeated items, look up labels, choose the evaluated queries, cut the
    lists (``max_results``, then ``judged_only``) and lay them out.

    Parameters
    ----------
    run_query, run_item:
        Query and item id of each run row (strings; numbers are converted to text).
    run_score:
        Score of each row; higher is better (lower with ``settings.score_order ==
        "ascending"``). ``NaN`` sorts last.
    qrels_query, qrels_item, qrels_relevance:
        The judgments. A repeated (query, item) keeps its highest label. A negative label means
        "in the pool but unjudged" (trec_eval): never relevant, no gain, and not judged for
        Judged@K, bpref and infAP.
    settings:
        Definitional choices; see :class:`metrics.engine.settings.Settings`.
    run_rank:
        Rank column, used only when ``settings.ties == "rank"``.
    source:
        Name of the run for error messages.
    codes:
        The ids already encoded (:func:`id_codes` of these very columns), so that they are not
        hashed again; ignored when their lengths differ from the columns'.

    Returns
    -------
    RankedLists
    """
    rq, ri, score, jq, ji, jrel = _read_columns(
        run_query, run_item, run_score, qrels_query, qrels_item, qrels_relevance, settings, source
    )
    if codes is None and settings.ties != "rank" and score is not None:
        grouped = _rank_grouped(rq, ri, score, jq, ji, jrel, settings)
        if grouped is not None:
            return grouped
    n_run = len(rq)
    if codes is not None and (len(codes.run_query), len(codes.qrels_query)) == (n_run, len(jq)):
        run_qc, qrels_qc, q_dict = codes.run_query, codes.qrels_query, codes.queries
        run_ic, qrels_ic, i_dict = codes.run_item, codes.qrels_item, codes.items
    else:
        # shared dictionaries: query and item ids become integer codes
        q_codes, q_dict = dictionary_codes(pa.chunked_array([rq, jq], type=pa.string()))
        i_codes, i_dict = dictionary_codes(pa.chunked_array([ri, ji], type=pa.string()))
        run_qc, qrels_qc = q_codes[:n_run], q_codes[n_run:]
        run_ic, qrels_ic = i_codes[:n_run], i_codes[n_run:]
    n_items = max(len(i_dict), 1)
    # ascending byte order of query ids -> evaluation order
    q_order = numpy_of(arrow_calls.sort_indices(q_dict)).astype(np.int64)
    q_rank = np.empty(len(q_dict), dtype=np.int64)
    q_rank[q_order] = np.arange(len(q_dict))

    j_key, jrel_sorted = _dedupe_judgments(q_rank[qrels_qc] * n_items + qrels_ic, jrel)
    order = _run_order(run_qc, q_rank, score, ri, run_rank, settings, source)
    r_key = (q_rank[run_qc] * n_items + run_ic)[order]
    order, r_key, dropped, examples = _drop_repeated_items(order, r_key, rq, ri, settings, source)
    labels = _labels_of(r_key, j_key, jrel_sorted)

    names = np.array(q_dict.to_pylist(), dtype=object)[q_order]
    run_q_sorted = r_key // n_items  # query rank of each ranked row
    evaluated, notes = _evaluated_queries(
        run_q_sorted, j_key // n_items, jrel_sorted, names, settings
    )
    notes = replace(notes, dropped_duplicates=dropped, duplicate_examples=examples)
    if len(j_key) < len(qrels_qc):  # repeated judgments: how many, and those that disagree
        notes = _with_repeats(notes, q_rank[qrels_qc], n_items, qrels_ic, jrel, jq, ji)

    keep_rows = evaluated[run_q_sorted] & _cut_mask(run_q_sorted, labels, settings)
    if not keep_rows.all():
        order, labels, run_q_sorted = order[keep_rows], labels[keep_rows], run_q_sorted[keep_rows]
    eval_ranks = np.flatnonzero(evaluated)  # query ranks, ascending
    new_index = np.full(len(q_dict), -1, dtype=np.int64)
    new_index[eval_ranks] = np.arange(len(eval_ranks))
    offsets = _offsets_of(new_index[run_q_sorted], len(eval_ranks))

    # the ideal ranking: labels of all judged items of each evaluated query, descending
    j_q = j_key // n_items
    j_keep = evaluated[j_q]
    j_label = jrel_sorted[j_keep]
    j_q_new = new_index[j_q[j_keep]]
    ideal_sort = np.lexsort((-j_label, j_q_new))

    return RankedLists(
        query_ids=names[eval_ranks],
        offsets=offsets,
        labels=labels,
        row_index=order,
        ideal_offsets=_offsets_of(j_q_new, len(eval_ranks)),
        ideal_labels=j_label[ideal_sort],
        settings=settings,
        notes=notes,
        scores=None if score is None else score[order],
    )


# ====================================================================== grouped input
#: Largest number of padded cells per real cell in the per-query tables of :func:`_rank_grouped`
#: (a query far longer than the others sends the lists to the general path instead).
_PAD_RATIO = 2


def _padded_fits(n_rows: int, width: int, cells: int) -> bool:
    return n_rows * width <= _PAD_RATIO * cells + 4096


def group_rows(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The rows ``starts[g]:starts[g] + lengths[g]`` of every group, back to back."""
    before = np.cumsum(lengths) - lengths
    rows: np.ndarray = np.arange(int(lengths.sum())) + np.repeat(starts - before, lengths)
    return rows


def _repeats_within(codes: np.ndarray, lengths: np.ndarray) -> bool | None:
    """Whether a code repeats within one of the groups of ``lengths`` (back to back); ``None``
    when the padded table that answers it would be too large."""
    if len(lengths) == 0:
        return False
    width = int(lengths.max())
    if not _padded_fits(len(lengths), width, len(codes)):
        return None
    sentinel = int(codes.max(initial=0)) + 1
    table = np.full((len(lengths), width), sentinel, dtype=np.int64)
    before = np.cumsum(lengths) - lengths
    rows = np.repeat(np.arange(len(lengths)), lengths)
    table[rows, np.arange(len(codes)) - np.repeat(before, lengths)] = codes
    table.sort(axis=1)
    return bool(((table[:, 1:] == table[:, :-1]) & (table[:, 1:] < sentinel)).any())


def _runs_in_order(
    starts: np.ndarray, key: np.ndarray, items: pa.Array, settings: Settings
) -> bool:
    """Whether the rows of every run (``starts``) are already in the order of the tie policy:
    scores never rising and, for ``item_desc``, tied items in descending byte order."""
    n = len(key)
    if n < 2:
        return True
    inside = np.ones(n - 1, dtype=bool)  # pairs of rows within one run
    inside[starts[1:] - 1] = False
    later, earlier = key[1:], key[:-1]
    if (inside & (later > earlier)).any():
        return False
    if settings.ties != "item_desc":
        return True
    at = np.flatnonzero(inside & (later == earlier))
    if not len(at):
        return True
    left = pc.take(items, arrow_numbers(at))
    right = pc.take(items, arrow_numbers(at + 1))
    return bool(pc.all(pc.greater(left, right)).as_py())


def _descending_within(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``values`` (groups of ``lengths`` back to back) sorted descending within each group."""
    if len(values) == 0:
        return values.copy()
    width = int(lengths.max())
    n = len(lengths)
    if not _padded_fits(n, width, len(values)):
        group = np.repeat(np.arange(n), lengths)
        return values[np.lexsort((-values, group))]
    before = np.cumsum(lengths) - lengths
    cells = (np.repeat(np.arange(n), lengths), np.arange(len(values)) - np.repeat(before, lengths))
    filled = np.arange(width)[None, :] < lengths[:, None]
    top = float(values.max())
    with np.errstate(invalid="ignore"):
        grades = bool(top - values.min() < 2**15 - 1) and bool((values == np.floor(values)).all())
    if grades:  # whole labels close together (as grades are): a small integer table
        small = np.full((n, width), 2**15 - 1, dtype=np.int16)
        small[cells] = (top - values).astype(np.int16)
        small.sort(axis=1)
        grade: np.ndarray = top - small[filled].astype(np.float64)
        return grade
    table = np.full((n, width), np.inf)
    table[cells] = -values
    table.sort(axis=1)
    out: np.ndarray = -table[filled]
    return out


def _query_blocks(
    rq: pa.Array, jq: pa.Array
) -> tuple[pa.Array, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The query ids, and for the run and the judgments where each query's rows start and
    which query they hold (codes into those ids); ``None`` when a query's rows are in more
    than one place."""
    r_starts, r_heads = runs_of(rq)
    j_starts, j_heads = runs_of(jq)
    q_codes, q_dict = dictionary_codes(pa.chunked_array([r_heads, j_heads], type=pa.string()))
    r_q, j_q = q_codes[: len(r_starts)], q_codes[len(r_starts) :]
    n_q = len(q_dict)
    if np.bincount(r_q, minlength=n_q).max() > 1 or np.bincount(j_q, minlength=n_q).max() > 1:
        return None
    return q_dict, r_starts, r_q, j_starts, j_q


def _rank_grouped(
    rq: pa.Array,
    ri: pa.Array,
    score: np.ndarray,
    jq: pa.Array,
    ji: pa.Array,
    jrel: np.ndarray,
    settings: Settings,
) -> RankedLists | None:
    """:func:`rank_lists` for input laid out as TREC files usually are: each query's run rows
    together and already in the order of the tie policy, each query's judgments together, and
    no item twice within a query (run or judgments). ``None`` for any other input, which the
    general path ranks; both give the same lists.

    Nothing is sorted but short rows: the query blocks are put in evaluation order, and each
    query's run items and judged items are matched in one row of a table sorted row by row.
    """
    n_run, n_judged = len(rq), len(jq)
    blocks = _query_blocks(rq, jq) if n_run and n_judged else None
    if blocks is None:
        return None
    q_dict, r_starts, r_q, j_starts, j_q = blocks
    key = score
    if settings.score_precision == "float32":
        with np.errstate(over="ignore"):
            key = score.astype(np.float32).astype(np.float64)
    if settings.score_order == "ascending":  # lower is better: in order when ascending
        key = -key
    if not _runs_in_order(r_starts, np.where(np.isnan(key), -np.inf, key), ri, settings):
        return None
    i_codes, i_dict = dictionary_codes(pa.chunked_array([ri, ji], type=pa.string()))
    n_q = len(q_dict)
    q_order = numpy_of(arrow_calls.sort_indices(q_dict)).astype(np.int64)
    q_rank = np.empty(n_q, dtype=np.int64)
    q_rank[q_order] = np.arange(n_q)

    # run blocks in evaluation order (ascending query rank)
    block_rank = q_rank[r_q]
    by_query = np.argsort(block_rank, kind="stable")
    lengths = np.diff(np.append(r_starts, n_run))[by_query]
    starts = np.cumsum(lengths) - lengths
    order = np.arange(n_run)
    if (np.diff(block_rank) < 0).any():
        order += np.repeat(r_starts[by_query] - starts, lengths)
    j_len = np.diff(np.append(j_starts, n_judged))
    j_block_of_q = np.full(n_q, -1, dtype=np.int64)
    j_block_of_q[j_q] = np.arange(len(j_starts))
    judged_block = j_block_of_q[r_q[by_query]]
    if len(j_starts) > int((judged_block >= 0).sum()):  # judged queries without run rows
        alone = np.ones(len(j_starts), dtype=bool)
        alone[judged_block[judged_block >= 0]] = False
        rows = group_rows(j_starts[alone], j_len[alone])
        if _repeats_within(i_codes[n_run:][rows], j_len[alone]) is not False:
            return None  # repeated judgments (or a very uneven table): the general path
    jb = np.maximum(judged_block, 0)
    jl = np.where(judged_block >= 0, j_len[jb], 0)
    labels = _match_labels(
        i_codes[:n_run][order],
        lengths,
        i_codes[n_run:][group_rows(j_starts[jb], jl)],
        jrel[group_rows(j_starts[jb], jl)],
        jl,
        2 * len(i_dict) + 2,
    )
    if labels is None:
        return None
    names = np.array(q_dict.to_pylist(), dtype=object)[q_order]
    evaluated, notes = _evaluated_queries(
        block_rank[by_query], np.repeat(q_rank[j_q], j_len), jrel, names, settings
    )
    # the ideal ranking: labels of all judged items of each evaluated query, descending
    eval_ranks = np.flatnonzero(evaluated)
    jb_eval = j_block_of_q[q_order[eval_ranks]]
    jl_eval = j_len[jb_eval]
    ideal = _descending_within(jrel[group_rows(j_starts[jb_eval], jl_eval)], jl_eval)
    lists = RankedLists(
        query_ids=names[eval_ranks],
        offsets=np.zeros(1, dtype=np.int64),
        labels=labels,
        row_index=order,
        ideal_offsets=np.concatenate(([0], np.cumsum(jl_eval))).astype(np.int64),
        ideal_labels=ideal,
        settings=settings,
        notes=notes,
    )
    return _kept_rows(lists, evaluated, block_rank[by_query], lengths, score)


def _match_labels(
    item: np.ndarray,
    lengths: np.ndarray,
    judged_item: np.ndarray,
    judged_label: np.ndarray,
    judged_lengths: np.ndarray,
    end_code: int,
) -> np.ndarray | None:
    """The label of every run row (``NaN`` when not judged), from the run's item codes in
    blocks of ``lengths`` and each block's judged items and labels (blocks of
    ``judged_lengths``); ``None`` when an item repeats within a block (run or judgments) or
    the table is too uneven.

    One row per block holds its judged items and its run items, each cell
    ``(2 * code + 1 for a run item) << shift | column``: sorting the rows puts a judged item
    just before the same item of the run.
    """
    n_blocks = len(lengths)
    width_j, width_r = int(judged_lengths.max(initial=0)), int(lengths.max(initial=0))
    if not _padded_fits(n_blocks, width_j + width_r, len(item) + len(judged_item)):
        return None
    width = width_j + width_r + 1  # a last cell of padding ends every row
    shift = max(width - 1, 1).bit_length()
    dtype = np.dtype(np.int32 if (end_code + 1) << shift < 2**31 else np.int64)
    table = np.full((n_blocks, width), end_code << shift, dtype=dtype)
    run_cells: np.ndarray = ((2 * item + 1) << shift).astype(dtype)
    starts = np.cumsum(lengths) - lengths
    if (lengths == width_r).all():
        table[:, width_j:-1] = run_cells.reshape(n_blocks, width_r) + np.arange(
            width_j, width_j + width_r, dtype=dtype
        )
    else:
        col = np.arange(len(item)) - np.repeat(starts, lengths)
        table[np.repeat(np.arange(n_blocks), lengths), width_j + col] = run_cells + width_j + col
    j_before = np.cumsum(judged_lengths) - judged_lengths
    j_col = np.arange(len(judged_item)) - np.repeat(j_before, judged_lengths)
    table[np.repeat(np.arange(n_blocks), judged_lengths), j_col] = (
        (2 * judged_item) << shift
    ) + j_col
    table.sort(axis=1)
    # read as one flat row: a row's last cell (padding) never pairs with the next row's first
    cells = table.reshape(-1)
    code = cells >> shift
    step = code[1:] - code[:-1]
    same = np.flatnonzero(step == 0)
    if (code[same + 1] < end_code).any():
        return None  # an item twice within a block
    at = np.flatnonzero(step == 1)  # a judged item (2 * code) just before a run item
    at = at[(code[at + 1] & 1).astype(bool)]
    mask = (1 << shift) - 1
    block = at // width
    labels = np.full(len(item), np.nan)
    labels[starts[block] + (cells[at + 1] & mask) - width_j] = judged_label[
        j_before[block] + (cells[at] & mask)
    ]
    return labels


def _kept_rows(
    lists: RankedLists,
    evaluated: np.ndarray,
    run_q: np.ndarray,
    lengths: np.ndarray,
    score: np.ndarray,
) -> RankedLists:
    """``lists`` (rows of every run block, blocks of ``lengths`` for the query ranks
    ``run_q``) with only the evaluated queries' rows, cut by ``max_results`` and
    ``judged_only``, and the offsets and scores of what is left."""
    settings = lists.settings
    order, labels = lists.row_index, lists.labels
    keep_block = evaluated[run_q]
    cut = settings.max_results is not None or settings.judged_only
    kept = lengths
    if cut or not keep_block.all():
        block_of_row = np.repeat(np.arange(len(lengths)), lengths)
        keep_rows = keep_block[block_of_row]
        if cut:
            keep_rows &= _cut_mask(run_q[block_of_row], labels, settings)
        order, labels = order[keep_rows], labels[keep_rows]
        kept = np.bincount(block_of_row[keep_rows], minlength=len(lengths))
    eval_ranks = np.flatnonzero(evaluated)
    new_index = np.full(len(evaluated), -1, dtype=np.int64)
    new_index[eval_ranks] = np.arange(len(eval_ranks))
    counts = np.zeros(len(eval_ranks), dtype=np.int64)
    counts[new_index[run_q[keep_block]]] = kept[keep_block]
    return replace(
        lists,
        offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        labels=labels,
        row_index=order,
        scores=score[order],
    )


def _read_columns(
    run_query: ArrayLike,
    run_item: ArrayLike,
    run_score: ArrayLike | None,
    qrels_query: ArrayLike,
    qrels_item: ArrayLike,
    qrels_relevance: ArrayLike,
    settings: Settings,
    source: str,
) -> tuple[pa.Array, pa.Array, np.ndarray | None, pa.Array, pa.Array, np.ndarray]:
    """The six input columns as arrow strings and float arrays, checked."""
    rq = as_string_array(run_query, "query")
    ri = as_string_array(run_item, "item")
    n_run = len(rq)
    score = as_float_array(run_score, "score") if run_score is not None else None
    if score is None and settings.ties != "rank":
        raise InputError(
            "the run has no score column.",
            source=source,
            column="score",
            fix="add a score column, or set ties='rank' and give a rank column.",
        )
    if (score is not None and len(score) != n_run) or len(ri) != n_run:
        raise InputError("query, item and score columns differ in length.", source=source)
    jq = as_string_array(qrels_query, "query")
    ji = as_string_array(qrels_item, "item")
    jrel = as_float_array(qrels_relevance, "relevance")
    if settings.fractional_labels == "truncate":
        jrel = np.trunc(jrel)  # trec_eval reads labels with atol: 1.5 -> 1, -0.5 -> 0
    if len(ji) != len(jq) or len(jrel) != len(jq):
        raise InputError("judgment columns differ in length.", source="judgments")
    if np.isnan(jrel).any():
        row = int(np.flatnonzero(np.isnan(jrel))[0])
        raise InputError(
            f"relevance is missing at row {row + 1}.",
            source="judgments",
            column="relevance",
            fix="give every judgment a numeric label.",
        )
    return rq, ri, score, jq, ji, jrel


def _with_repeats(
    notes: RankingNotes,
    query_rank: np.ndarray,
    n_items: int,
    item_code: np.ndarray,
    jrel: np.ndarray,
    jq: pa.Array,
    ji: pa.Array,
) -> RankingNotes:
    """``notes`` with the judgments that repeat a (query, item) (each judgment's query rank and
    item code, in input order) and the first pairs judged with different labels, in evaluation
    order of their queries."""
    found = repeated_judgments(query_rank * n_items + item_code, jrel, query_rank)
    if found is None:
        return notes
    examples = tuple(
        (jq[int(row)].as_py(), ji[int(row)].as_py(), labels)
        for row, labels in zip(found.conflict_rows, found.conflict_labels)
    )
    return replace(
        notes,
        repeated_judgments=found.count,
        conflicting_judgments=found.conflicts,
        conflict_examples=examples,
    )


def _dedupe_judgments(j_key: np.ndarray, jrel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Judgment keys sorted ascending, a repeated (query, item) keeping its highest label."""
    j_sort = np.argsort(j_key)
    j_key, jrel_sorted = j_key[j_sort], jrel[j_sort]
    if len(j_key) > 1 and (j_key[1:] == j_key[:-1]).any():
        starts = np.concatenate(([0], np.flatnonzero(j_key[1:] != j_key[:-1]) + 1))
        jrel_sorted = np.maximum.reduceat(jrel_sorted, starts)
        j_key = j_key[starts]
    return j_key, jrel_sorted


def _drop_repeated_items(
    order: np.ndarray,
    r_key: np.ndarray,
    rq: pa.Array,
    ri: pa.Array,
    settings: Settings,
    source: str,
) -> tuple[np.ndarray, np.ndarray, int, tuple[str, ...]]:
    """Keep the first (best-ranked) copy of an item repeated within a query, or refuse."""
    sorted_keys = np.sort(r_key)
    if len(r_key) < 2 or not (sorted_keys[1:] == sorted_keys[:-1]).any():
        return order, r_key, 0, ()
    by_key = np.argsort(r_key, kind="stable")
    first_of_key = np.ones(len(r_key), dtype=bool)
    first_of_key[1:] = r_key[by_key][1:] != r_key[by_key][:-1]
    keep_rows = np.zeros(len(r_key), dtype=bool)
    keep_rows[by_key[first_of_key]] = True
    dropped = int(len(r_key) - keep_rows.sum())
    dropped_keys = r_key[~keep_rows]
    first_copy = np.sort(np.unique(dropped_keys, return_index=True)[1])[:5]
    dup_rows = order[~keep_rows][first_copy]  # one example per repeated item
    examples = tuple(f"{rq[int(i)].as_py()} / {ri[int(i)].as_py()}" for i in dup_rows)
    if settings.duplicates == "error":
        raise InputError(
            f"{dropped} duplicate item(s) within a query, e.g. {examples[0]}.",
            source=source,
            fix="remove the repeated rows, or choose duplicates='keep_best'.",
        )
    return order[keep_rows], r_key[keep_rows], dropped, examples


def _labels_of(r_key: np.ndarray, j_key: np.ndarray, jrel_sorted: np.ndarray) -> np.ndarray:
    """Label of each ranked row; ``NaN`` when the item is not in the judgments."""
    if not len(j_key):
        return np.full(len(r_key), np.nan)
    pos = np.searchsorted(j_key, r_key)
    pos_c = np.minimum(pos, len(j_key) - 1)
    found = (pos < len(j_key)) & (j_key[pos_c] == r_key)
    return np.where(found, jrel_sorted[pos_c], np.nan)


def _evaluated_queries(
    run_q: np.ndarray,
    judged_q_of_row: np.ndarray,
    jrel: np.ndarray,
    names: np.ndarray,
    settings: Settings,
) -> tuple[np.ndarray, RankingNotes]:
    """Which queries (by rank) are evaluated, and what happened to the others."""
    n_q = len(names)
    judged_q = np.zeros(n_q, dtype=bool)
    judged_q[judged_q_of_row] = True
    in_run = np.zeros(n_q, dtype=bool)
    in_run[run_q] = True
    relevant = relevance.relevant(jrel, settings.relevance_level)
    num_rel_all = np.bincount(judged_q_of_row, weights=relevant.astype(float), minlength=n_q)
    evaluated = judged_q & (in_run | (settings.missing_queries == "zero"))
    no_rel = evaluated & (num_rel_all == 0)
    left_out: tuple[str, ...] = ()
    if settings.no_relevant == "leave_out":
        left_out = tuple(names[no_rel])
        evaluated &= ~no_rel
    notes = RankingNotes(
        run_queries_without_judgments=tuple(names[in_run & ~judged_q]),
        judged_queries_missing_from_run=tuple(names[judged_q & ~in_run]),
        queries_without_relevant=tuple(names[judged_q & (num_rel_all == 0)]),
        left_out_without_relevant=left_out,
        missing_scored_zero=settings.missing_queries == "zero",
    )
    return evaluated, notes


def _cut_mask(run_q: np.ndarray, labels: np.ndarray, settings: Settings) -> np.ndarray:
    """Rows kept by the maximum number of results (trec_eval ``-M``, first) and then the
    judged-only policy (``-J``: items not in the judgments or with a negative label go)."""
    keep = np.ones(len(run_q), dtype=bool)
    if settings.max_results is not None and len(run_q):
        starts = np.concatenate(([0], np.flatnonzero(run_q[1:] != run_q[:-1]) + 1))
        lengths = np.diff(np.concatenate((starts, [len(run_q)])))
        position = np.arange(len(run_q)) - np.repeat(starts, lengths)
        keep &= position < settings.max_results
    if settings.judged_only:
        with np.errstate(invalid="ignore"):
            keep &= relevance.judged(labels)
    return keep


def _offsets_of(query_index: np.ndarray, n_queries: int) -> np.ndarray:
    """Offsets of rows grouped by an ascending query index."""
    counts = np.bincount(query_index, minlength=n_queries) if n_queries else np.zeros(0, np.int64)
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def _run_order(
    run_qc: np.ndarray,
    q_rank: np.ndarray,
    score: np.ndarray | None,
    items: pa.Array,
    run_rank: ArrayLike | None,
    settings: Settings,
    source: str,
) -> np.ndarray:
    """Row order: queries ascending, each list by the tie policy."""
    n = len(run_qc)
    qr = q_rank[run_qc]
    if settings.ties == "rank":
        if run_rank is None:
            raise InputError(
                "ties='rank' needs a rank column.",
                source=source,
                column="rank",
                fix="add a rank column or choose another tie policy.",
            )
        rank = as_float_array(run_rank, "rank")
        if np.isnan(rank).any():
            raise InputError(
                "the rank column has empty values.",
                source=source,
                column="rank",
                fix="give every row a rank.",
            )
        return np.lexsort((np.arange(n), rank, qr))
    if score is None:
        raise InputError(
            "the run has no score column.",
            source=source,
            column="score",
            fix="add a score column, or choose ties='rank' with a rank column.",
        )
    if settings.score_precision == "float32":
        with np.errstate(over="ignore"):
            score = score.astype(np.float32).astype(np.float64)
    if settings.score_order == "ascending":  # lower is better: rank the negated scores
        score = -score
    key = np.where(np.isnan(score), -np.inf, score)
    blocks = _ordered_blocks(qr, key, items, settings)
    if blocks is not None:
        return blocks
    if settings.ties == "input_order":
        return np.lexsort((np.arange(n), -key, qr))
    table = pa.table({"q": arrow_numbers(qr), "s": arrow_numbers(key), "i": items})
    return numpy_of(
        pc.sort_indices(
            table, sort_keys=[("q", "ascending"), ("s", "descending"), ("i", "descending")]
        )
    ).astype(np.int64)


def _ordered_blocks(
    qr: np.ndarray, key: np.ndarray, items: pa.Array, settings: Settings
) -> np.ndarray | None:
    """Linear-time check that each query's rows are contiguous and already in the required
    order; if so, the row order that puts the query blocks in ascending order (no sort of rows).
    ``None`` when a full sort is needed."""
    n = len(qr)
    if n < 2:
        return np.arange(n)
    same_q = qr[1:] == qr[:-1]
    starts = np.concatenate(([0], np.flatnonzero(~same_q) + 1))
    block_q = qr[starts]
    if len(np.unique(block_q)) != len(block_q):
        return None  # a query's rows are not contiguous
    with np.errstate(invalid="ignore"):
        ds = key[1:] - key[:-1]
        if (same_q & (ds > 0)).any():
            return None
        tie = same_q & ((ds == 0) | (np.isinf(key[1:]) & np.isinf(key[:-1])))
    if tie.any() and settings.ties == "item_desc":
        at = np.flatnonzero(tie)
        left = pc.take(items, arrow_numbers(at))
        right = pc.take(items, arrow_numbers(at + 1))
        if not pc.all(pc.greater(left, right)).as_py():
            return None
    if (np.diff(block_q) > 0).all():
        return np.arange(n)
    lengths = np.diff(np.concatenate((starts, [n])))
    by_query = np.argsort(block_q, kind="stable")
    new_lengths = lengths[by_query]
    new_starts = np.concatenate(([0], np.cumsum(new_lengths)[:-1]))
    order: np.ndarray = np.arange(n) + np.repeat(starts[by_query] - new_starts, new_lengths)
    return order
