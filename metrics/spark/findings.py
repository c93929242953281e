"""What ``python -m metrics`` says about its input, computed by Spark where the data lives.

The local command line prints, before its results, notes about how TREC files were read (text
after the last field, comment lines) and warnings about what the ranking left out or dropped
(repeated items, run queries without judgments, judged queries missing from a run, queries
without a relevant item left out). Here the same facts are counted by Spark aggregations over the
run and judgment tables, and only counts and at most five example ids per model reach the driver;
the words are the local engine's (:meth:`metrics.io.trec.TrecColumns.notes`,
:func:`metrics.cli.evaluate.notes_warnings`).

Examples follow the local engine's order: query ids in byte order (Spark compares strings by
their UTF-8 bytes, as arrow does), repeated items in ranked order within a query (those few
queries' rows are ranked on the driver by :func:`metrics.engine.ranking.rank_lists`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from metrics import schema as S
from metrics.engine.ranking import RankingNotes, rank_lists
from metrics.engine.settings import Settings
from metrics.io.trec import WIDTH, TrecColumns

#: Examples a warning names (the local engine's ``examples()`` shows five).
EXAMPLES = 5
_STRIPPED = r"^\s+|\s+$"


def stripped_lines(spark: SparkSession, path: str) -> DataFrame:
    """Every line of a text file (folder, glob) with its file, trimmed of ASCII whitespace."""
    return spark.read.text(path).select(
        F.input_file_name().alias("file"),
        F.regexp_replace(F.col("value"), _STRIPPED, "").alias("line"),
    )


def _fields(line: F.Column) -> F.Column:
    return F.size(F.split(line, r"\s+"))


def reading_notes(spark: SparkSession, path: str, kind: str) -> list[str]:
    """The local TREC reader's notes on a file (or on each file of a folder or glob): lines with
    text after the last field (and the first such line) and skipped comment lines."""
    width = WIDTH[kind]
    lines = stripped_lines(spark, path)
    comment = F.col("line").startswith("#")
    blank = F.col("line") == ""
    extra = ~comment & ~blank & (_fields(F.col("line")) > width)
    per_file = (
        lines.groupBy("file")
        .agg(
            F.sum(extra.cast("long")).alias("extra"),
            F.sum(comment.cast("long")).alias("comments"),
        )
        .where((F.col("extra") > 0) | (F.col("comments") > 0))
        .orderBy("file")
        .collect()
    )
    out = []
    for row in per_file:
        first = _first_extra_line(spark, str(row["file"]), width) if row["extra"] else None
        empty = pa.chunked_array([], type=pa.string())
        columns = TrecColumns(
            kind,  # type: ignore[arg-type]
            empty,
            empty,
            np.empty(0),
            extra_lines=int(row["extra"]),
            first_extra_line=first,
            comment_lines=int(row["comments"]),
        )
        name = Path(path.rstrip("/")).name if len(per_file) == 1 else Path(row["file"]).name
        out += [f"{name}: {note}" for note in columns.notes()]
    return out


def _first_extra_line(spark: SparkSession, file: str, width: int) -> int:
    """The physical line (1-based) of a file's first line with more than ``width`` fields: the
    lines of one file are numbered in order across its splits (``zipWithIndex``)."""
    import re

    space = re.compile(r"\s+")

    def extra(line: str) -> bool:
        text = line.strip(" \t\n\r\x0b\x0c")
        return bool(text) and not text.startswith("#") and len(space.split(text)) > width

    numbered = spark.sparkContext.textFile(file).zipWithIndex()
    return int(numbered.filter(lambda pair: extra(pair[0])).map(lambda pair: pair[1]).min()) + 1


def _first_ids(frame: DataFrame, limit: int = EXAMPLES) -> dict[str, tuple[int, list[str]]]:
    """Per model of a ``(model, query)`` table: how many queries, and the first ``limit`` in
    byte order."""
    ranked = frame.withColumn(
        "__n", F.row_number().over(Window.partitionBy(S.MODEL).orderBy(S.QUERY))
    )
    counts = {str(r[S.MODEL]): int(r["count"]) for r in frame.groupBy(S.MODEL).count().collect()}
    firsts: dict[str, list[str]] = {}
    for r in ranked.where(F.col("__n") <= limit).orderBy(S.MODEL, "__n").collect():
        firsts.setdefault(str(r[S.MODEL]), []).append(str(r[S.QUERY]))
    return {m: (n, firsts.get(m, [])) for m, n in counts.items()}


def ranking_warnings(
    run: DataFrame,
    qrels: DataFrame,
    models: list[str],
    sources: dict[str, str],
    settings: Settings,
) -> list[str]:
    """The local command line's warnings for each model (one run file each), in model order:
    what :func:`~metrics.engine.ranking.rank_lists` would report for its rows (repeated items
    dropped, run queries without judgments, judged queries missing from the run, queries without
    a relevant item left out), worded by :func:`metrics.cli.evaluate.notes_warnings`.

    ``run`` is prepared (:func:`metrics.spark.backend.prepare_run`), ``qrels`` has ``query``,
    ``item``, ``relevance``; ``sources`` names each model's file.
    """
    from metrics.cli.evaluate import notes_warnings

    spark = run.sparkSession
    judged = qrels.select(S.QUERY).distinct()
    level = float(settings.relevance_level)
    relevant = (
        qrels.where((F.col(S.RELEVANCE) >= F.lit(level)) & (F.col(S.RELEVANCE) >= 0))
        .select(S.QUERY)
        .distinct()
    )
    in_run = run.select(S.MODEL, S.QUERY).distinct()
    every = spark.createDataFrame([(m,) for m in models], f"{S.MODEL} string")
    judged_all = every.crossJoin(judged)
    found = {
        "run_queries_without_judgments": _first_ids(in_run.join(judged, S.QUERY, "left_anti")),
    }
    if settings.missing_queries == "skip":
        found["judged_queries_missing_from_run"] = _first_ids(
            judged_all.join(in_run, [S.MODEL, S.QUERY], "left_anti")
        )
    if settings.no_relevant == "leave_out":
        evaluated = (
            judged_all
            if settings.missing_queries == "zero"
            else in_run.join(judged, S.QUERY, "left_semi")
        )
        found["left_out_without_relevant"] = _first_ids(
            evaluated.join(relevant, S.QUERY, "left_anti")
        )
    dropped, examples = _duplicates(run, settings)
    out = []
    for model in models:
        ids = {name: per_model.get(model, (0, [])) for name, per_model in found.items()}
        notes = RankingNotes(
            dropped_duplicates=dropped.get(model, 0),
            duplicate_examples=examples.get(model, ()),
            missing_scored_zero=settings.missing_queries == "zero",
            **{name: tuple(first) for name, (_, first) in ids.items()},  # type: ignore[arg-type]
        )
        counts = {name: n for name, (n, _) in ids.items()}
        out += notes_warnings(notes, sources.get(model, model), settings, counts)
    return out


def _duplicates(
    run: DataFrame, settings: Settings
) -> tuple[dict[str, int], dict[str, tuple[str, ...]]]:
    """Per model, how many repeated copies of an item within a query are dropped, and the first
    five dropped copies as ``query / item`` in the local engine's (ranked) order."""
    keys = run.groupBy(S.MODEL, S.QUERY, S.ITEM).count().where(F.col("count") > 1)
    per_query = keys.groupBy(S.MODEL, S.QUERY).agg(F.sum(F.col("count") - 1).alias("dropped"))
    # the first queries (byte order) of each model whose dropped copies reach five examples
    before = Window.partitionBy(S.MODEL).orderBy(S.QUERY)
    earlier = F.sum("dropped").over(before.rowsBetween(Window.unboundedPreceding, -1))
    firsts = per_query.withColumn("__before", F.coalesce(earlier, F.lit(0))).where(
        F.col("__before") < EXAMPLES
    )
    dropped: dict[str, int] = {
        str(r[S.MODEL]): int(r["total"])
        for r in per_query.groupBy(S.MODEL).agg(F.sum("dropped").alias("total")).collect()
    }
    if not dropped:
        return {}, {}
    rows = run.join(firsts.select(S.MODEL, S.QUERY), [S.MODEL, S.QUERY], "left_semi").toPandas()
    examples: dict[str, tuple[str, ...]] = {}
    for model, part in rows.groupby(S.MODEL, sort=False):
        part = part.sort_values("__row", kind="stable")
        lists = rank_lists(
            part[S.QUERY],
            part[S.ITEM],
            part[S.SCORE] if S.SCORE in part.columns else None,
            [],
            [],
            [],
            settings.with_(duplicates="keep_best"),
            run_rank=part[S.RANK] if S.RANK in part.columns else None,
        )
        examples[str(model)] = lists.notes.duplicate_examples
    return dropped, examples
