"""Per-query values computed where the logs live: the local engine, run by Apache Spark.

:func:`evaluate_spark` takes Spark DataFrames of a run (``query``, ``item``, ``score`` or
``rank``, optional ``model``) and of judgments (``query``, ``item``, ``relevance``) and returns a
Spark DataFrame with one row per model and evaluated query: ``model``, ``query``, the query
metadata columns, then one column per measure (``P@10``, ``nDCG@10``, ...).

Rows of both tables are hashed on the query into buckets; each bucket's run and judgment rows go
to one task (``cogroup(...).applyInPandas``) which runs :func:`metrics.engine.ranking.rank_lists`
and the measure kernels over all the bucket's queries at once, per model. Every policy of
:class:`~metrics.engine.settings.Settings` depends only on one query's rows, so the values equal
the local engine's; the input order that ``ties='input_order'`` and ``ties='rank'`` fall back on is
kept in a row number taken before the shuffle.

Means, medians and pooled (micro) averages are computed from the per-query table by
:func:`summarize_spark` (in Spark) or :func:`metrics.spark.aggregate.summary_of` (in pandas).

``pyspark`` is an optional dependency (``requirements-spark.txt``); it is imported here only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from metrics import schema as S
from metrics.engine.aggregation import has_micro
from metrics.engine.evaluation import run_settings
from metrics.engine.measures import precision_micro, recall_micro
from metrics.engine.ranking import RankedLists, rank_lists
from metrics.engine.registry import (
    DEFAULT_MEASURES,
    MeasureSpec,
    at_cutoff,
    parse_measures,
    split_cutoff,
)
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.spark.aggregate import DEN_PREFIX, NUM_PREFIX
from metrics.spark.workers import use_worker_python

ROW = "__row"
BUCKET = "__bucket"


def micro_columns(specs: Sequence[MeasureSpec]) -> list[str]:
    """Names of the numerator and denominator columns kept for pooled (micro) averages."""
    out = []
    for spec in specs:
        if has_micro(spec) and spec.definition.name in ("P", "R", "F1"):
            for part in ("P", "R") if spec.definition.name == "F1" else (spec.definition.name,):
                name = at_cutoff(part, spec.k)
                out += [c for c in (NUM_PREFIX + name, DEN_PREFIX + name) if c not in out]
    return out


def measure_matrix(lists: RankedLists, specs: Sequence[MeasureSpec]) -> np.ndarray:
    """Per-query values of every spec, shape ``(n_queries, len(specs))``: one kernel call per
    measure and parameters over all its cutoffs."""
    out = np.empty((lists.n_queries, len(specs)))
    groups: dict[tuple[str, tuple[tuple[str, object], ...]], list[int]] = {}
    for j, spec in enumerate(specs):
        if spec.k is None:
            out[:, j] = spec.compute(lists)
        else:
            groups.setdefault((spec.definition.name, spec.params), []).append(j)
    for columns in groups.values():
        first = specs[columns[0]]
        ks = np.array([specs[j].k for j in columns], dtype=np.int64)
        out[:, columns] = first.definition.kernel(lists, ks, **first.kernel_args())
    return out


def _micro_values(lists: RankedLists, names: list[str]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for column in names:
        if not column.startswith(NUM_PREFIX):
            continue
        name = column[len(NUM_PREFIX) :]
        measure, k = split_cutoff(name)
        kernel = precision_micro if measure == "P" else recall_micro
        num, den = kernel(lists, np.array([int(k)]))
        out[NUM_PREFIX + name], out[DEN_PREFIX + name] = num[:, 0], den[:, 0]
    return out


def bucket_values(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    models: Sequence[str],
    specs: Sequence[MeasureSpec],
    settings: Settings,
    extra: Sequence[str] = (),
) -> pd.DataFrame:
    """Per-query values of one bucket of queries, for every model: what each Spark task runs.

    ``run`` has ``model``, ``query``, ``item``, ``score`` and/or ``rank`` and the input row
    number; ``qrels`` has ``query``, ``item``, ``relevance``. Models without rows in the bucket
    still score the bucket's judged queries when ``settings.missing_queries == 'zero'``.
    """
    columns = [S.MODEL, S.QUERY, *[s.name for s in specs], *extra]
    run = run.sort_values(ROW, kind="stable") if ROW in run.columns else run
    frames = []
    by_model = dict(tuple(run.groupby(S.MODEL, sort=False))) if len(run) else {}
    empty = run.iloc[:0]
    for model in models:
        part = by_model.get(model, empty)
        if not len(part) and settings.missing_queries != "zero":
            continue
        lists = rank_lists(
            part[S.QUERY],
            part[S.ITEM],
            part[S.SCORE] if S.SCORE in part.columns else None,
            qrels[S.QUERY],
            qrels[S.ITEM],
            qrels[S.RELEVANCE],
            settings.for_model(model),
            run_rank=part[S.RANK] if S.RANK in part.columns else None,
            source=f"model {model}",
        )
        if not lists.n_queries:
            continue
        data: dict[str, object] = {
            S.MODEL: np.full(lists.n_queries, model, dtype=object),
            S.QUERY: lists.query_ids.astype(object),
        }
        values = measure_matrix(lists, specs)
        for j, spec in enumerate(specs):
            data[spec.name] = values[:, j]
        data.update(_micro_values(lists, list(extra)))
        frames.append(pd.DataFrame(data, columns=columns))
    if not frames:
        out = pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
    else:
        out = pd.concat(frames, ignore_index=True)
    # plain Python strings: pandas 3's arrow-backed strings do not convert back to Spark
    for name in (S.MODEL, S.QUERY):
        out[name] = pd.Series(out[name].to_numpy(dtype=object), dtype=object)
    return out


def _require(df: DataFrame, name: str, source: str) -> None:
    if name not in df.columns:
        raise InputError(
            f"there is no '{name}' column (columns: {', '.join(map(str, df.columns))}).",
            source=source,
            column=name,
            fix=f"map one column to the {name} role.",
        )


def models_in_order(run: DataFrame) -> list[str]:
    """Model names in order of first appearance (by the input row number)."""
    first = run.groupBy(S.MODEL).agg(F.min(ROW).alias("first")).orderBy("first")
    return [str(r[S.MODEL]) for r in first.collect()]


def prepare_run(run: DataFrame, source: str = "run") -> DataFrame:
    """The run with string ids, numeric score/rank, a ``model`` column and the input row
    number, and only the columns the engine reads."""
    _require(run, S.QUERY, source)
    _require(run, S.ITEM, source)
    if S.SCORE not in run.columns and S.RANK not in run.columns:
        raise InputError(
            "the run has neither a score nor a rank column.",
            source=source,
            fix="map a column to the score role (higher is better) or to rank.",
        )
    if ROW not in run.columns:
        run = run.withColumn(ROW, F.monotonically_increasing_id())
    model = F.col(S.MODEL).cast("string") if S.MODEL in run.columns else F.lit(S.DEFAULT_MODEL)
    cols = [
        model.alias(S.MODEL),
        F.col(S.QUERY).cast("string").alias(S.QUERY),
        F.col(S.ITEM).cast("string").alias(S.ITEM),
    ]
    for name in (S.SCORE, S.RANK):
        if name in run.columns:
            cols.append(F.col(name).cast("double").alias(name))
    return run.select(*cols, F.col(ROW))


def prepare_qrels(qrels: DataFrame) -> DataFrame:
    for name in (S.QUERY, S.ITEM, S.RELEVANCE):
        _require(qrels, name, "judgments")
    return qrels.select(
        F.col(S.QUERY).cast("string").alias(S.QUERY),
        F.col(S.ITEM).cast("string").alias(S.ITEM),
        F.col(S.RELEVANCE).cast("double").alias(S.RELEVANCE),
    )


def _check_duplicates(
    run: DataFrame,
    models: list[str],
    settings: Settings,
    source: str,
    model_sources: dict[str, str] | None = None,
) -> None:
    """With ``duplicates='error'``, refuse the input with the local engine's message."""
    counts = (
        run.groupBy(S.MODEL, S.QUERY, S.ITEM)
        .count()
        .where(F.col("count") > 1)
        .groupBy(S.MODEL)
        .agg(F.sum(F.col("count") - 1).alias("dropped"), F.min(S.QUERY).alias("first"))
        .collect()
    )
    found = {str(r[S.MODEL]): (int(r["dropped"]), str(r["first"])) for r in counts}
    for model in models:
        if model not in found:
            continue
        dropped, query = found[model]
        rows = run.where((F.col(S.MODEL) == model) & (F.col(S.QUERY) == query)).toPandas()
        rows = rows.sort_values(ROW, kind="stable")
        lists = rank_lists(
            rows[S.QUERY],
            rows[S.ITEM],
            rows[S.SCORE] if S.SCORE in rows.columns else None,
            [],
            [],
            [],
            settings.for_model(model).with_(duplicates="keep_best"),
            run_rank=rows[S.RANK] if S.RANK in rows.columns else None,
        )
        example = lists.notes.duplicate_examples[0]
        raise InputError(
            f"{dropped} duplicate item(s) within a query, e.g. {example}.",
            source=(model_sources or {}).get(
                model, source if models == [S.DEFAULT_MODEL] else f"{source} (model {model})"
            ),
            fix="remove the repeated rows, or choose duplicates='keep_best'.",
        )


def evaluate_spark(
    run: DataFrame,
    qrels: DataFrame,
    measures: Iterable[str] | None = None,
    settings: Settings | None = None,
    queries: DataFrame | None = None,
    *,
    buckets: int | None = None,
    source: str = "run",
    models: list[str] | None = None,
    model_sources: dict[str, str] | None = None,
) -> DataFrame:
    """Per-query values of ``measures`` for every model of ``run``, computed by Spark.

    Parameters
    ----------
    run:
        Spark DataFrame with ``query``, ``item``, ``score`` (or ``rank``) and optionally
        ``model``. The order of its rows is the input order of the tie policies.
    qrels:
        Spark DataFrame with ``query``, ``item``, ``relevance``.
    measures:
        Measure names (``["P@10", "nDCG@10", "RR"]``); ``None`` for the default set.
    settings:
        The same :class:`Settings` as the local engine, every policy included.
    queries:
        Optional query metadata (``query`` plus segment columns), joined onto the result.
    buckets:
        Number of query buckets (tasks); by default ``spark.sql.shuffle.partitions``.
    source:
        Name of the run in error messages.
    models:
        The model names in order of first appearance, when already known (saves one pass).
    model_sources:
        Name of each model's source in error messages (a file per model), when not ``source``.

    Returns
    -------
    DataFrame
        ``model``, ``query``, the metadata columns, one ``double`` column per measure (``NaN``
        where a policy leaves the query out), and with ``averaging='micro'`` the pooled counts
        (``__num:P@10``, ``__den:P@10``) that :func:`summarize_spark` needs.

    Raises
    ------
    InputError
        For missing columns, and for repeated items when ``duplicates='error'``.
    """
    specs = parse_measures(list(measures or DEFAULT_MEASURES))
    settings = settings or Settings()
    spark = run.sparkSession
    prepared = prepare_run(run, source)
    settings = run_settings(settings, prepared.columns)
    judgments = prepare_qrels(qrels)
    models = list(models) if models is not None else models_in_order(prepared)
    if settings.duplicates == "error":
        _check_duplicates(prepared, models, settings, source, model_sources)
    extra = micro_columns(specs) if settings.averaging == "micro" else []
    n = int(buckets or spark.conf.get("spark.sql.shuffle.partitions") or 200)
    key = F.pmod(F.xxhash64(S.QUERY), F.lit(n)).alias(BUCKET)
    left = prepared.select("*", key)
    right = judgments.select("*", key)
    out_schema = T.StructType(
        [
            T.StructField(S.MODEL, T.StringType()),
            T.StructField(S.QUERY, T.StringType()),
            *[T.StructField(name, T.DoubleType()) for name in [s.name for s in specs] + extra],
        ]
    )
    names = list(models)

    def task(run_part: pd.DataFrame, qrels_part: pd.DataFrame) -> pd.DataFrame:
        return bucket_values(run_part, qrels_part, names, specs, settings, extra)

    values = left.groupBy(BUCKET).cogroup(right.groupBy(BUCKET)).applyInPandas(task, out_schema)
    if queries is None:
        return values
    _require(queries, S.QUERY, "queries")
    meta = queries.withColumn(S.QUERY, F.col(S.QUERY).cast("string")).dropDuplicates([S.QUERY])
    meta_cols = [
        c for c in meta.columns if c not in (S.MODEL, S.QUERY) and c not in out_schema.names
    ]
    joined = values.join(meta.select(S.QUERY, *meta_cols), on=S.QUERY, how="left")
    return joined.select(S.MODEL, S.QUERY, *meta_cols, *out_schema.names[2:])


def summarize_spark(
    per_query: DataFrame, measures: Iterable[str], settings: Settings | None = None
) -> DataFrame:
    """One row per model and measure: ``value`` (under the averaging policy: macro mean, or
    pooled counts for P, R, F1 and Success with ``micro``), ``mean``, ``median`` and ``n``,
    computed by Spark from a table of :func:`evaluate_spark`. Left-out (``NaN``) values are
    skipped."""
    specs = parse_measures(list(measures))
    settings = settings or Settings()
    frames = []
    for spec in specs:
        col = F.col(f"`{spec.name}`")
        kept = F.when(~F.isnan(col), col)
        aggs = [
            F.avg(kept).alias("mean"),
            F.percentile(kept, F.lit(0.5)).alias("median"),
            F.count(kept).alias("n"),
        ]
        value = F.col("mean")
        if settings.averaging == "micro" and has_micro(spec):
            name = spec.definition.name
            if name == "Success":
                aggs.append(F.avg(col).alias("pooled"))
                value = F.col("pooled")
            else:
                parts = ("P", "R") if name == "F1" else (name,)
                for part in parts:
                    num = F.col(f"`{NUM_PREFIX}{at_cutoff(part, spec.k)}`")
                    den = F.col(f"`{DEN_PREFIX}{at_cutoff(part, spec.k)}`")
                    ok = ~F.isnan(den)
                    aggs += [
                        F.sum(F.when(ok, num)).alias(f"num_{part}"),
                        F.sum(F.when(ok, den)).alias(f"den_{part}"),
                    ]
                pooled = {
                    part: F.when(
                        F.col(f"den_{part}") > 0, F.col(f"num_{part}") / F.col(f"den_{part}")
                    ).otherwise(F.lit(0.0))
                    for part in parts
                }
                if name == "F1":
                    p, r = pooled["P"], pooled["R"]
                    value = F.when(p + r > 0, 2 * p * r / (p + r)).otherwise(F.lit(0.0))
                else:
                    value = pooled[name]
        frames.append(
            per_query.groupBy(S.MODEL)
            .agg(*aggs)
            .select(
                S.MODEL,
                F.lit(spec.name).alias("measure"),
                value.cast("double").alias("value"),
                "mean",
                "median",
                "n",
            )
        )
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionByName(frame)
    return out


def local_session(master: str = "local[*]", app_name: str = "ranking-metrics") -> SparkSession:
    """A Spark session for the command line and tests: UI off, bound to 127.0.0.1, Arrow on,
    the directory holding ``metrics`` on the Python workers' path, and (for a local master,
    unless ``PYSPARK_PYTHON`` is set) the workers run by this process's interpreter."""
    use_worker_python(master)
    root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    if root not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = root + (os.pathsep + path if path else "")
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")  # no progress bars amid the warnings
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
    )
    return builder.getOrCreate()
