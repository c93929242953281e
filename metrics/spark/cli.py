"""``--engine spark`` of ``python -m metrics`` and ``python -m metrics compare``.

Files, folders and globs of Parquet, CSV/TSV or TREC text are read by Spark; column roles are
guessed from a sample of each table, as the local loaders do (``query``/``user``, ``item``/``doc``,
``score``, ``rank``, ``model``, ``relevance``/``label``). The per-query values are computed by
:func:`metrics.spark.backend.evaluate_spark` and brought back to the driver (one row per model and
query), where the same output code as the local engine prints them.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from metrics import schema as S
from metrics.engine.registry import MeasureSpec, deepest_cutoff
from metrics.engine.results import QueryIds
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.direction import lower_is_better_name
from metrics.io.formats import file_stem
from metrics.io.reading_notes import finding_text
from metrics.io.roles import guess_roles
from metrics.io.trec import detect_trec
from metrics.spark import findings
from metrics.spark.aggregate import means_of
from metrics.spark.backend import (
    evaluate_spark,
    local_session,
    models_in_order,
    prepare_qrels,
    prepare_run,
)
from metrics.spark.findings import stripped_lines

_TEXT_SUFFIXES = (".csv", ".tsv", ".csv.gz", ".tsv.gz")


def session(master: str) -> SparkSession:
    """The Spark session of the command (an active one is reused)."""
    import warnings

    # pyspark's notice about the pandas version is not about the input: keep stderr for that
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    # a failed job is reported in one line (metrics.spark.workers.failure_message): not as the
    # executor's Java trace, nor as the worker's traceback repeated in pyspark's warning
    warnings.filterwarnings("ignore", message="toPandas attempted Arrow optimization")
    spark = local_session(master)
    spark.sparkContext.setLogLevel("FATAL")
    return spark


def _files(path: str) -> list[str]:
    """Local files behind a path, folder or glob (empty for remote paths such as s3://)."""
    if "://" in path and not path.startswith("file://"):
        return []
    local = path.removeprefix("file://")
    matches = sorted(glob.glob(local)) or [local]
    out: list[str] = []
    for match in matches:
        p = Path(match)
        if p.is_dir():
            out += sorted(
                str(f) for f in p.rglob("*") if f.is_file() and not f.name.startswith(("_", "."))
            )
        elif p.is_file():
            out.append(str(p))
    return out


def _format_of(path: str) -> str:
    files = _files(path)
    names = [f.lower() for f in files] or [path.lower().rstrip("/")]
    if any(n.endswith(".parquet") for n in names):
        return "parquet"
    if files:
        with open(files[0], "rb") as handle:
            head = handle.read(4)
        if head == b"PAR1":
            return "parquet"
    if any(n.endswith(_TEXT_SUFFIXES) for n in names):
        return "csv"
    if files:
        import gzip

        opener = gzip.open if files[0].endswith(".gz") else open
        with opener(files[0], "rt", encoding="utf-8", errors="replace") as handle:
            lines = [line for _, line in zip(range(200), handle)]
        if detect_trec(lines) is None:  # the local reader's test (comment lines skipped)
            return "csv"
    return "trec"


def read_table(
    spark: SparkSession, path: str, kind: str, roles: dict[str, str] | None = None
) -> DataFrame:
    """A run (``kind='run'``) or judgments (``kind='qrels'``) table with canonical columns;
    ``roles``, when given, receives the column of each role of a CSV or Parquet table.

    Raises
    ------
    InputError
        When the path matches no file, or a role cannot be found.
    """
    name = Path(path.rstrip("/")).name
    if not _files(path) and "://" not in path:
        raise InputError("no such file, folder or glob.", source=name)
    fmt = _format_of(path)
    if fmt == "parquet":
        table = spark.read.parquet(path)
    elif fmt == "csv":
        sep = "\t" if ".tsv" in path.lower() else ","
        table = spark.read.csv(path, header=True, sep=sep, inferSchema=False)
    else:
        # as the local reader: fields split on runs of whitespace; blank lines and lines
        # starting with '#' skipped
        text = stripped_lines(spark, path)
        lines = text.where((F.col("line") != "") & ~F.col("line").startswith("#"))
        fields = F.split(F.col("line"), r"\s+")
        if kind == "qrels":
            return lines.select(
                fields[0].alias(S.QUERY),
                fields[2].alias(S.ITEM),
                fields[3].cast("double").alias(S.RELEVANCE),
            )
        return lines.select(
            fields[0].alias(S.QUERY),
            fields[2].alias(S.ITEM),
            fields[3].cast("double").alias(S.RANK),
            fields[4].cast("double").alias(S.SCORE),
        )
    return _canonical(table, kind, name, roles)


def _canonical(
    table: DataFrame, kind: str, source: str, found: dict[str, str] | None = None
) -> DataFrame:
    sample = table.limit(2000).toPandas()
    guesses = guess_roles(sample)
    roles = {role: g.column for role, g in guesses.items() if not role.startswith("segment:")}
    if found is not None:
        found.update(roles)
    wanted = (S.QUERY, S.ITEM, S.LABEL) if kind == "qrels" else (S.QUERY, S.ITEM)
    for role in wanted:
        if role not in roles:
            raise InputError(
                f"no column for the {role} role (columns: {', '.join(table.columns)}).",
                source=source,
                fix=f"name a column '{S.RELEVANCE if role == S.LABEL else role}'.",
            )
    if kind == "qrels":
        return table.select(
            F.col(roles[S.QUERY]).alias(S.QUERY),
            F.col(roles[S.ITEM]).alias(S.ITEM),
            F.col(roles[S.LABEL]).cast("double").alias(S.RELEVANCE),
        )
    cols = [F.col(roles[S.QUERY]).alias(S.QUERY), F.col(roles[S.ITEM]).alias(S.ITEM)]
    for role in (S.SCORE, S.RANK):
        if role in roles:
            cols.append(F.col(roles[role]).cast("double").alias(role))
    if S.MODEL in roles:
        cols.append(F.col(roles[S.MODEL]).cast("string").alias(S.MODEL))
    return table.select(*cols)


def read_runs(spark: SparkSession, paths: list[str]) -> DataFrame:
    """All runs as one table; a run without a model column is named after its file."""
    return read_runs_with_sources(spark, paths)[0]


#: A run table whose score column is named like a distance and that has no rank column: its
#: file name, the score column, its place among the run files (its rows' input row numbers
#: start at ``place << 54``) and its model when it has no model column.
NamedLikeDistance = tuple[str, str, int, str | None]


def read_runs_with_sources(
    spark: SparkSession, paths: list[str], named: list[NamedLikeDistance] | None = None
) -> tuple[DataFrame, dict[str, str]]:
    """All runs as one table, and the file of each model named after its file; ``named``, when
    given, receives the tables whose score column is named like a distance, cost or loss and
    that have no rank column (as the local loader remarks on them)."""
    taken: set[str] = set()
    sources: dict[str, str] = {}
    parts: list[DataFrame] = []
    for path in paths:
        roles: dict[str, str] = {}
        table = read_table(spark, path, "run", roles)
        score = roles.get(S.SCORE)
        model = None
        if S.MODEL not in table.columns:
            stem = file_stem(path.rstrip("/"))
            name, n = stem, 1
            while name in taken:
                n += 1
                name = f"{stem}_{n}"
            taken.add(name)
            sources[name] = Path(path.rstrip("/")).name
            table = table.withColumn(S.MODEL, F.lit(name))
            model = name
        if named is not None and score and S.RANK not in roles and lower_is_better_name(score):
            named.append((Path(path.rstrip("/")).name, score, len(parts), model))
        parts.append(table)
    columns = sorted(
        {c for p in parts for c in p.columns}, key=[*S.RUN_OPTIONAL, S.QUERY, S.ITEM].index
    )
    out = None
    for index, part in enumerate(parts):
        part = part.select(
            *[
                F.col(c) if c in part.columns else F.lit(None).cast("double").alias(c)
                for c in columns
            ]
        )
        # input order: files in the order given, rows in file order within each
        part = part.withColumn("__row", F.monotonically_increasing_id() + F.lit(index << 54))
        out = part if out is None else out.unionByName(part)
    return out, sources


@dataclass
class SparkEvaluation:
    """What the command line prints with ``--engine spark``: per-query values (pandas, queries
    in evaluation order within each model), the models in order, and the notes and warnings the
    local engine prints for the same input."""

    table: pd.DataFrame
    models: list[str]
    notes: list[str]
    warnings: list[str]


def per_query_table(
    qrels_path: str,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    master: str,
) -> tuple[pd.DataFrame, list[str]]:
    """Per-query values (pandas, queries in evaluation order within each model) and the models in
    order, computed by Spark from the named files."""
    done = evaluate_files(qrels_path, run_paths, specs, settings, master, findings=False)
    return done.table, done.models


def input_notes(
    spark: SparkSession,
    qrels_path: str,
    run_paths: list[str],
    run: DataFrame,
    qrels: DataFrame,
    models: list[str],
    sources: dict[str, str],
    settings: Settings,
    k_max: int = 10,
    as_tables: bool = False,
    named: list[NamedLikeDistance] | None = None,
) -> tuple[list[str], list[str]]:
    """The notes and warnings the local command line prints for these files: for TREC files,
    how they were read and what the ranking dropped or left out, per run file; for other
    tables, what the local validation finds in the run and judgments (``k_max``: the largest
    cutoff asked for). With ``as_tables`` (``compare``, whose local engine validates every file
    as a table), TREC files get the reading notes and the validation's warnings, and ``named``
    (see :func:`read_runs_with_sources`) the remarks on score columns named like distances."""
    kinds = {qrels_path: "qrels", **dict.fromkeys(run_paths, "run")}
    trec = all(_format_of(p) == "trec" for p in kinds)
    # the local evaluation notes the judgments first, the local data set the runs first
    order = [*run_paths, qrels_path] if as_tables else [qrels_path, *run_paths]
    notes = []
    if trec:
        for path in order:
            notes += findings.reading_notes(spark, path, kinds[path])
    if not trec or as_tables:
        # the local loader names every run's model, so the examples name it too
        warnings = findings.table_findings(run, qrels, settings, k_max, has_model=True)
        return notes, warnings + findings.named_like_distance(run, named or [], settings)
    name = Path(qrels_path.rstrip("/")).name
    labels = [f"{name}: {finding_text(f)}" for f in findings.label_value_findings(qrels, settings)]
    return notes, labels + findings.ranking_warnings(run, qrels, models, sources, settings)


def usable_rows(table: DataFrame) -> DataFrame:
    """A run or judgments table read from CSV or Parquet without the rows the local loader
    drops (and reports): an empty query or item id, no score (or rank), no label."""
    keep = F.col(S.QUERY).isNotNull() & F.col(S.ITEM).isNotNull()
    keep &= (F.col(S.QUERY).cast("string") != "") & (F.col(S.ITEM).cast("string") != "")
    value = next(c for c in (S.RELEVANCE, S.SCORE, S.RANK) if c in table.columns)
    number = F.col(value).cast("double")
    return table.where(keep & number.isNotNull() & ~F.isnan(number))


def evaluate_files(
    qrels_path: str,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    master: str,
    findings: bool = True,
    as_tables: bool = False,
) -> SparkEvaluation:
    """Per-query values of the named files computed by Spark, with (``findings``) the notes and
    warnings of :func:`input_notes` (``as_tables``: as ``compare`` prints them)."""
    spark = session(master)
    named: list[NamedLikeDistance] = []
    run, sources = read_runs_with_sources(spark, run_paths, named)
    qrels = read_table(spark, qrels_path, "qrels")
    source = ", ".join(Path(p.rstrip("/")).name for p in run_paths)
    if len(run_paths) == 1:
        source = Path(run_paths[0].rstrip("/")).name
    run = run.cache()  # read once: the model order and the evaluation both scan it
    models = models_in_order(prepare_run(run, source))
    tables = any(_format_of(p) != "trec" for p in [qrels_path, *run_paths])
    values = evaluate_spark(
        usable_rows(run) if tables else run,
        usable_rows(qrels) if tables else qrels,
        [s.name for s in specs],
        settings,
        source=source,
        models=models,
        model_sources=sources,
    )
    table = values.toPandas()
    for name in (S.MODEL, S.QUERY):
        table[name] = table[name].astype(object).astype(str)
    # the local engine's order: models as they first appear, queries in byte order
    table["__model"] = table[S.MODEL].map({m: i for i, m in enumerate(models)})
    table["__key"] = table[S.QUERY].map(lambda q: q.encode("utf-8"))
    table = table.sort_values(["__model", "__key"], kind="stable").drop(
        columns=["__model", "__key"]
    )
    notes: list[str] = []
    warnings: list[str] = []
    if findings:
        notes, warnings = input_notes(
            spark,
            qrels_path,
            run_paths,
            prepare_run(run, source),
            prepare_qrels(qrels),
            models,
            sources,
            settings,
            deepest_cutoff(specs),
            as_tables,
            named,
        )
    return SparkEvaluation(table.reset_index(drop=True), models, notes, warnings)


def results_of(
    table: pd.DataFrame, models: list[str], specs: list[MeasureSpec], settings: Settings
) -> dict[str, tuple[QueryIds, np.ndarray, np.ndarray]]:
    """Per model: its query ids, the per-query matrix and the means under the averaging policy,
    as the local command line computes them."""
    names = [s.name for s in specs]
    out = {}
    for model in models:
        part = table[table[S.MODEL] == model]
        if not len(part):
            continue
        values = part[names].to_numpy(dtype=np.float64)
        out[model] = (
            QueryIds(part[S.QUERY].to_numpy(dtype=object)),
            values,
            means_of(part, specs, settings),
        )
    return out
