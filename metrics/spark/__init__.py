"""The engine on Apache Spark: per-query values computed where the logs live.

``pyspark`` is optional (``pip install -r requirements-spark.txt``, and a Java 17+ runtime):
:mod:`metrics.spark.backend` (:func:`~metrics.spark.backend.evaluate_spark`) and
:mod:`metrics.spark.cli` import it; this module and :mod:`metrics.spark.aggregate` do not.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from metrics import schema as S
from metrics.engine.registry import MeasureSpec, parse_measures
from metrics.engine.settings import Settings
from metrics.errors import InputError, MetricsError
from metrics.spark.workers import INSTALL_HINT, check_worker_python, failure_message

if TYPE_CHECKING:
    import numpy as np

    from metrics.engine.results import QueryIds
    from metrics.io.per_query import PerQueryDataset
    from metrics.spark.cli import SparkEvaluation


def _per_query(
    qrels_path: str,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    master: str,
    findings: bool = False,
    as_tables: bool = False,
) -> SparkEvaluation:
    try:
        from pyspark.errors import PySparkException
    except ImportError:
        raise MetricsError(f"--engine spark needs pyspark: {INSTALL_HINT}.") from None
    # deferred: metrics.spark.cli imports pyspark (optional)
    from metrics.spark.cli import evaluate_files

    check_worker_python(master)
    try:
        return evaluate_files(qrels_path, run_paths, specs, settings, master, findings, as_tables)
    except PySparkException as exc:
        raise MetricsError(failure_message(str(exc), master)) from None


def spark_per_query(
    qrels_path: str,
    run_paths: list[str],
    measures: list[str],
    settings: Settings,
    master: str = "local[*]",
    queries: str | None = None,
) -> tuple[PerQueryDataset, list[str], list[str]]:
    """The per-query values of ``measures`` computed by Spark from the named files, as a
    :class:`~metrics.io.per_query.PerQueryDataset` (what ``compare --engine spark`` reads), with
    the notes and warnings on the input that the local ``compare`` prints.

    ``queries`` names a query metadata table (``query`` plus segment columns, one row per
    query): its segments are joined to the per-query values as the local loader joins them to
    a run (:func:`metrics.io.loaders.query_segments`), so that segment breakdowns are the
    local engine's.
    """
    # deferred: the per-query data set imports pandas
    from metrics.io.per_query import PerQueryDataset

    specs = parse_measures(list(measures))
    done = _per_query(qrels_path, run_paths, specs, settings, master, True, as_tables=True)
    table = done.table[[S.MODEL, S.QUERY, *[s.name for s in specs]]]
    segments = None
    if queries is not None:
        # deferred: the loaders import pandas
        from metrics.io.formats import load_table
        from metrics.io.loaders import query_segments

        segments = query_segments(
            load_table(queries, Path(queries).name), table[S.QUERY].drop_duplicates()
        )
    data = PerQueryDataset(", ".join(Path(p).name for p in run_paths), table, segments, specs)
    return data, done.notes, done.warnings


def spark_results(
    qrels_path: str,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    master: str = "local[*]",
) -> dict[str, tuple[QueryIds, np.ndarray, np.ndarray]]:
    """What ``python -m metrics --engine spark`` prints: per model, its query ids, per-query
    values and means, computed by Spark from the named files, folders or globs.

    Raises
    ------
    MetricsError
        Without pyspark, on unusable input, or when no query is both run and judged.
    """
    return spark_report(qrels_path, run_paths, specs, settings, master, findings=False)[0]


def spark_report(
    qrels_path: str,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    master: str = "local[*]",
    findings: bool = True,
) -> tuple[dict[str, tuple[QueryIds, np.ndarray, np.ndarray]], list[str], list[str]]:
    """:func:`spark_results`, with the notes and warnings on the input that the local command
    line prints (computed by Spark aggregations; empty when ``findings`` is false).

    Raises
    ------
    MetricsError
        Without pyspark, on unusable input, or when no query is both run and judged.
    """
    # deferred: metrics.spark.cli imports pyspark (optional)
    from metrics.spark.cli import results_of

    done = _per_query(qrels_path, run_paths, specs, settings, master, findings)
    out = results_of(done.table, done.models, specs, settings)
    if not out:
        raise InputError(
            "no query appears in both the run and the judgments.",
            source=", ".join(Path(p.rstrip("/")).name for p in run_paths),
            fix="check that both files use the same query ids "
            "(for example '7', 'q7' and '007' differ).",
        )
    return out, done.notes, done.warnings
