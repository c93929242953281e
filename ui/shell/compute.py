"""Per-query metrics computed once per (data content hash, settings), shared by every page.

Results are keyed on :attr:`metrics.io.dataset.Dataset.content_hash` and the settings and kept by
:mod:`ui.shell.memo`: in the browser session for uploaded and hand-built data (released with the
session), in a shared cache with a time to live and a byte budget for the samples. The pure
functions (``*_of``) do the work and are tested without a server.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.aggregation import curve_summary, summarize
from metrics.engine.evaluation import (
    Evaluation,
    curves,
    per_query_table,
    precision_recall_table,
    rank_run,
)
from metrics.engine.ranking import RankedLists, ranking_key
from metrics.engine.registry import cutoff_name as cutoff_name  # re-exported for the pages
from metrics.engine.registry import parse_measure
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.checks import under_settings
from metrics.io.dataset import Dataset
from metrics.io.findings import DataHealth
from metrics.io.samples import load_sample
from ui.shell import memo, per_query_data

STANDARD_CUTOFFS = (1, 3, 5, 10, 20, 50, 100)


def settings_key(settings: Settings) -> tuple:
    """A hashable, stable key of the settings."""
    return tuple(sorted(settings.to_dict().items()))


def cutoffs_within(k_from: int, k_to: int) -> list[int]:
    """Standard cutoffs (1, 3, 5, 10, 20, 50, 100) inside ``[k_from, k_to]``; ``k_to`` if none."""
    ks = [k for k in STANDARD_CUTOFFS if k_from <= k <= k_to]
    return ks or [k_to]


def has_lists(dataset: object) -> bool:
    """Whether the data set has ranked lists (a table of per-query values has none)."""
    return not per_query_data.is_per_query(dataset)


def table_cutoffs(dataset: Dataset, measures: tuple[str, ...], k_from: int, k_to: int) -> list[int]:
    """The cutoffs of the Curves page's table: the standard ones inside ``[k_from, k_to]``, or,
    for per-query values, the K inside it at which the table has any of ``measures`` (``k_to``
    if none)."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.cutoffs_between(dataset, tuple(measures), k_from, k_to) or [k_to]
    return cutoffs_within(k_from, k_to)


def distribution_cutoffs(
    dataset: Dataset, measure: str, k_from: int, k_to: int
) -> list[int] | None:
    """The K at which per-query values of ``measure`` can be shown: ``None`` for every K in
    ``[k_from, k_to]`` (ranked lists), the computed K inside it for per-query values."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.cutoffs_between(dataset, (measure,), k_from, k_to)
    return None


# --------------------------------------------------------------------------- pure


def curves_of(lists: dict[str, RankedLists], measure: str, k_to: int) -> dict[str, np.ndarray]:
    """Per-query values of ``measure`` at K = 1..k_to, per model."""
    return curves(lists, parse_measure(measure, for_curve=True), k_to)


def cutoff_evaluation_of(
    lists: dict[str, RankedLists],
    settings: Settings,
    measures: tuple[str, ...],
    ks: tuple[int, ...],
) -> Evaluation:
    """Per-query values of every measure at every cutoff in ``ks``."""
    specs = [parse_measure(m, k=k) for m in measures for k in ks]
    return Evaluation(per_query_table(lists, specs), specs, lists, settings, list(lists))


def cutoff_table_of(evaluation: Evaluation, segments: pd.DataFrame | None) -> pd.DataFrame:
    """Long table: model, measure, value (under the averaging policy), median, q1, q3, n."""
    return summarize(evaluation, segments)


# --------------------------------------------------------------------------- cached


def sample_dataset(name: str) -> Dataset:
    """A bundled sample, loaded once per server (samples are public and read-only)."""

    def load() -> Dataset:
        dataset = load_sample(name)
        memo.share(dataset.content_hash)
        return dataset

    return memo.once(("sample", name), load)


def ranked_lists(
    dataset: Dataset, settings: Settings, *, store: memo.ResultCache | None = None
) -> dict[str, RankedLists]:
    """The data set's ranked lists per model under ``settings`` (cached on the content hash).

    Lists are ranked once per :func:`metrics.engine.ranking.ranking_key` (ties, score precision,
    duplicates, missing and empty queries); a change of any other setting (relevance level,
    gain, fewer than K, averaging) reuses them, rescored. Results of an upload live in the
    session (:mod:`ui.shell.memo`); ``store`` names the store when called outside a page run.
    """
    if per_query_data.is_per_query(dataset):
        raise InputError(
            "per-query results have no ranked lists.",
            source=dataset.name,
            fix="load the run and the judgments to see the lists.",
        )
    key = ranking_key(settings)
    base = Settings(**dict(key))
    lists = memo.cached(
        dataset.content_hash,
        ("ranked", key),
        lambda: rank_run(dataset.run, dataset.qrels, base, source=dataset.name, codes=dataset.ids),
        store,
    )
    if base == settings:
        return lists
    return {model: ranked.rescored(settings.for_model(model)) for model, ranked in lists.items()}


def health(
    dataset: Dataset, settings: Settings, *, store: memo.ResultCache | None = None
) -> DataHealth:
    """The data set's health with the findings that depend on the score order (and the
    fractional-labels policy) as ``settings`` make them
    (:func:`metrics.io.checks.under_settings`; cached)."""
    if per_query_data.is_per_query(dataset):
        return dataset.health
    key = (
        "health",
        settings.score_order,
        settings.score_order_by_model,
        settings.fractional_labels,
    )
    return memo.cached(
        dataset.content_hash,
        key,
        lambda: under_settings(dataset.health, dataset.run, settings),
        store,
    )


def measure_curves(
    dataset: Dataset,
    settings: Settings,
    measure: str,
    k_to: int,
    *,
    store: memo.ResultCache | None = None,
) -> dict[str, np.ndarray]:
    """Per-query values of ``measure`` at K = 1..k_to per model (cached; ``store`` as in
    :func:`ranked_lists`)."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.curves_of(dataset, measure, k_to)
    return memo.cached(
        dataset.content_hash,
        ("curves", settings_key(settings), measure, int(k_to)),
        lambda: curves_of(ranked_lists(dataset, settings, store=store), measure, k_to),
        store,
    )


def curve_table(
    dataset: Dataset,
    settings: Settings,
    measures: tuple[str, ...],
    k_from: int,
    k_to: int,
    *,
    store: memo.ResultCache | None = None,
) -> pd.DataFrame:
    """Long table of mean, quartiles and n at every K, with a ``measure`` column (cached;
    ``store`` as in :func:`ranked_lists`)."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.curve_table_of(dataset, tuple(measures), k_from, k_to)

    def work() -> pd.DataFrame:
        frames = []
        for measure in measures:
            curves = measure_curves(dataset, settings, measure, k_to, store=store)
            summary = curve_summary(curves)
            summary = summary[summary["k"] >= k_from]
            summary.insert(1, "measure", measure)
            frames.append(summary)
        return (
            pd.concat(frames, ignore_index=True)
            if frames
            else pd.DataFrame(columns=[S.MODEL, "measure", "k", "mean", "q1", "median", "q3", "n"])
        )

    return memo.cached(
        dataset.content_hash,
        ("curve_table", settings_key(settings), tuple(measures), int(k_from), int(k_to)),
        work,
        store,
    ).copy()


def cutoff_table(
    dataset: Dataset,
    settings: Settings,
    measures: tuple[str, ...],
    ks: tuple[int, ...],
    *,
    store: memo.ResultCache | None = None,
) -> pd.DataFrame:
    """Averages at the cutoffs ``ks`` under the averaging policy (cached; ``store`` as in
    :func:`ranked_lists`)."""

    def work() -> pd.DataFrame:
        if per_query_data.is_per_query(dataset):
            computed = per_query_data.cutoff_evaluation_of(dataset, settings, measures, ks)
            if computed is None:
                return pd.DataFrame(columns=[S.MODEL, "measure", "value"])
            return cutoff_table_of(computed, dataset.segments)
        evaluation = cutoff_evaluation_of(
            ranked_lists(dataset, settings, store=store), settings, tuple(measures), tuple(ks)
        )
        return cutoff_table_of(evaluation, dataset.segments)

    return memo.cached(
        dataset.content_hash,
        ("cutoffs", settings_key(settings), tuple(measures), tuple(ks)),
        work,
        store,
    ).copy()


#: Columns of :func:`judgment_notes_of` besides the measures: the share of the top k's
#: positions that hold no item (past a list's end), and the share of the items held there
#: that have no judgment.
EMPTY_SHARE, UNJUDGED_SHARE = "empty_share", "unjudged_share"


def judgment_notes_of(lists: dict[str, RankedLists], k: int, rbp: bool) -> pd.DataFrame:
    """Per model: Judged@k (mean share of the top k with a judgment; a position past a list's
    end counts as the fewer-than-K policy says), the share of the top k's positions past the
    lists' ends (:data:`EMPTY_SHARE`), the share of the items in the top k without a judgment
    (:data:`UNJUDGED_SHARE`: an empty position is not unjudged) and, when ``rbp``, mean RBP@k
    and its mean residual (the true RBP lies in [RBP, RBP + residual])."""
    names = [f"Judged@{k}"] + ([f"RBP@{k}", f"RBPResid@{k}"] if rbp else [])
    specs = [parse_measure(n) for n in names]
    rows = []
    for model, ranked in lists.items():
        values = {s.name: float(np.nanmean(s.compute(ranked))) for s in specs}
        held = np.minimum(ranked.n_returned, k).astype(np.float64)
        judged = ranked.at(ranked.cum_judged, np.array([k]))[:, 0]
        positions = k * len(held)
        values[EMPTY_SHARE] = float(1 - held.sum() / positions) if positions else 0.0
        values[UNJUDGED_SHARE] = float(1 - judged.sum() / held.sum()) if held.sum() else 0.0
        rows.append({S.MODEL: model, **values})
    return pd.DataFrame(rows, columns=[S.MODEL, *names, EMPTY_SHARE, UNJUDGED_SHARE])


def precision_recall(
    dataset: Dataset, settings: Settings, k_to: int, *, store: memo.ResultCache | None = None
) -> pd.DataFrame:
    """Interpolated and raw precision–recall points per model (cached; ``store`` as in
    :func:`ranked_lists`)."""
    return memo.cached(
        dataset.content_hash,
        ("precision_recall", settings_key(settings), k_to),
        lambda: precision_recall_table(
            ranked_lists(dataset, settings, store=store),
            k_to,
            precision=measure_curves(dataset, settings, "P", k_to, store=store),
            recall=measure_curves(dataset, settings, "R", k_to, store=store),
        ),
        store,
    ).copy()


def judged_cutoff(ks: tuple[int, ...]) -> int:
    """The cutoff of the Curves page's note on how complete the judgments are: 10 when it is
    one of ``ks``, else the largest."""
    return 10 if 10 in ks else ks[-1]


def judgment_notes(
    dataset: Dataset,
    settings: Settings,
    k: int,
    rbp: bool,
    *,
    store: memo.ResultCache | None = None,
) -> pd.DataFrame:
    """Judged@k per model, with RBP@k and its residual when ``rbp`` (cached; ``store`` as in
    :func:`ranked_lists`)."""
    return memo.cached(
        dataset.content_hash,
        ("judgment_notes", settings_key(settings), k, rbp),
        lambda: judgment_notes_of(ranked_lists(dataset, settings, store=store), k, rbp),
        store,
    ).copy()


def query_count(dataset: Dataset) -> int:
    """Number of distinct queries in the run (cached; counted from the encoded ids when the
    data set has them)."""
    ids = getattr(dataset, "ids", None)

    def count() -> int:
        if ids is not None and len(ids.run_query) == len(dataset.run):
            return int(np.count_nonzero(np.bincount(ids.run_query, minlength=len(ids.queries))))
        return int(dataset.run[S.QUERY].nunique())

    return memo.cached(dataset.content_hash, ("queries",), count)


def warm(
    dataset: Dataset,
    settings: Settings,
    measures: tuple[str, ...] = (),
    k_range: tuple[int, int] | None = None,
    *,
    store: memo.ResultCache | None = None,
) -> threading.Thread:
    """Rank a newly loaded data set in the background, so the next page finds it cached; then
    compute what the Curves page shows for ``measures`` over ``k_range``, in its order: the
    curves, the table at the standard cutoffs, the note on judgments and precision against
    recall.

    The store holds a lock per key: a page asking for the same results meanwhile waits for this
    computation instead of repeating it.
    """

    if store is None:
        store = memo.store_for(dataset.content_hash)  # found here: the thread has no session

    def work() -> None:
        # the page that needs the results will show the error
        with contextlib.suppress(Exception):
            ranked_lists(dataset, settings, store=store)
            if k_range is not None:
                k_from, k_to = k_range
                curve_table(dataset, settings, measures, k_from, k_to, store=store)
                ks = tuple(cutoffs_within(k_from, k_to))
                cutoff_table(dataset, settings, measures, ks, store=store)
                rbp = "RBP" in measures
                judgment_notes(dataset, settings, judged_cutoff(ks), rbp, store=store)
                precision_recall(dataset, settings, k_to, store=store)

    thread = threading.Thread(target=work, name="rank-warmup", daemon=True)
    thread.start()
    return thread
