"""What ``python -m metrics`` says about its input, computed by Spark where the data lives.

The local command line prints, before its results, notes about how TREC files were read (text
after the last field, comment lines) and warnings about what the ranking left out or dropped
(repeated items, run queries without judgments, judged queries missing from a run, queries
without a relevant item left out). Here the same facts are counted by Spark aggregations over the
run and judgment tables, and only counts and at most five example ids per model reach the driver;
the words are the local engine's (:meth:`metrics.io.trec.TrecColumns.notes`,
:func:`metrics.io.reading_notes.notes_warnings`). For CSV and Parquet tables the local command line
prints what :func:`metrics.io.checks.validate` finds instead; :func:`table_findings` counts the
same findings and words them with the same :class:`~metrics.io.findings.Finding`.

Examples follow the local engine's order: for TREC files, query ids in byte order (Spark
compares strings by their UTF-8 bytes, as arrow does), repeated items in ranked order within a
query (those few queries' rows are ranked on the driver by
:func:`metrics.engine.ranking.rank_lists`); for tables, first appearance in the input (the
smallest input row number of each group).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame, Row, SparkSession, Window
from pyspark.sql import functions as F

from metrics import schema as S
from metrics.engine import relevance
from metrics.engine.ranking import RankingNotes, rank_lists
from metrics.engine.settings import Settings
from metrics.io.direction import RankAgreement, rank_disagreements
from metrics.io.findings import (
    Finding,
    conflict_examples,
    duplicate_items_finding,
    duplicate_judgments_finding,
    fractional_labels_finding,
    infinite_variant,
    labels_look_like_ranks_finding,
    missing_labels_finding,
    missing_run_queries_finding,
    negative_labels_finding,
    no_relevant_finding,
    relevant_not_retrieved_finding,
    score_order_by_name_finding,
    score_order_vs_rank_findings,
    score_values_finding,
    short_lists_finding,
    tied_scores_finding,
    unjudged_queries_finding,
)
from metrics.io.messages import RULES
from metrics.io.reading_notes import notes_warnings
from metrics.io.trec import WIDTH, TrecColumns
from metrics.spark.backend import ROW

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
    a relevant item left out), worded by :func:`metrics.io.reading_notes.notes_warnings`.

    ``run`` is prepared (:func:`metrics.spark.backend.prepare_run`), ``qrels`` has ``query``,
    ``item``, ``relevance``; ``sources`` names each model's file.
    """
    spark = run.sparkSession
    judged = qrels.select(S.QUERY).distinct()
    level = float(settings.relevance_level)
    relevant = (
        qrels.where(relevance.relevant(F.col(S.RELEVANCE), F.lit(level))).select(S.QUERY).distinct()
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
    orders = rank_agreements(run) if S.RANK in run.columns and S.SCORE in run.columns else {}
    out = []
    for model in models:
        ids = {name: per_model.get(model, (0, [])) for name, per_model in found.items()}
        queries: dict[str, Any] = {name: tuple(first) for name, (_, first) in ids.items()}
        notes = RankingNotes(
            dropped_duplicates=dropped.get(model, 0),
            duplicate_examples=examples.get(model, ()),
            missing_scored_zero=settings.missing_queries == "zero",
            **queries,
        )
        counts = {name: n for name, (n, _) in ids.items()}
        out += notes_warnings(notes, sources.get(model, model), settings, counts)
        mine = {model: orders[model]} if model in orders else {}
        out += [
            f"{sources.get(model, model)}: {d.message}" for d in rank_disagreements(mine, settings)
        ]
    return out


def rank_agreements(run: DataFrame) -> dict[str, RankAgreement]:
    """How each model's scores go with its ranks (:mod:`metrics.io.direction`'s rule), by model
    in order of first appearance: ``run`` has ``model``, ``query``, ``rank``, the input row
    number and ``score`` (``-rank`` without one, as the local loader sets it)."""
    score = F.col(S.SCORE) if S.SCORE in run.columns else -F.col(S.RANK)
    rank = F.col(S.RANK)
    finite = ~_missing(score) & ~_missing(rank)
    finite &= ~score.isin(float("inf"), float("-inf")) & ~rank.isin(float("inf"), float("-inf"))
    rows = run.where(finite).select(S.MODEL, S.QUERY, ROW, rank.alias("__r"), score.alias("__s"))
    before = Window.partitionBy(S.MODEL, S.QUERY).orderBy("__r", "__s")
    step = F.col("__r") > F.lag("__r").over(before)
    change = F.col("__s") - F.lag("__s").over(before)
    steps = rows.select(
        S.MODEL,
        S.QUERY,
        ROW,
        F.when(step & (change > 0), 1).otherwise(0).alias("__up"),
        F.when(step & (change < 0), 1).otherwise(0).alias("__down"),
    )
    lists = steps.groupBy(S.MODEL, S.QUERY).agg(
        F.sum("__up").alias("up"), F.sum("__down").alias("down"), F.min(ROW).alias("__first")
    )
    per_model = lists.groupBy(S.MODEL).agg(
        F.sum((F.col("up") > F.col("down")).cast("long")).alias("ascending"),
        F.sum((F.col("down") > F.col("up")).cast("long")).alias("descending"),
        F.min("__first").alias("__first"),
    )
    return {
        str(r[S.MODEL]): RankAgreement(int(r["ascending"]), int(r["descending"]))
        for r in per_model.orderBy("__first").collect()
    }


def named_like_distance(
    run: DataFrame, named: list[tuple[str, str, int, str | None]], settings: Settings
) -> list[str]:
    """The local loader's remarks on run files without ranks whose score column is named like a
    distance, cost or loss while some of their models rank the highest score first, in its
    words; ``named`` as :func:`metrics.spark.cli.read_runs_with_sources` lists them (their
    models are read from their rows: input row numbers from ``place << 54``)."""
    out = []
    for file, column, place, model in named:
        if model is not None:
            models = [model]
        else:
            mine = run.where(
                (F.col(ROW) >= F.lit(place << 54)) & (F.col(ROW) < F.lit((place + 1) << 54))
            )
            first = mine.groupBy(S.MODEL).agg(F.min(ROW).alias("__first")).orderBy("__first")
            models = [str(r[S.MODEL]) for r in first.collect()]
        highest_first = [m for m in models if settings.score_order_of(m) == "descending"]
        if highest_first:
            f = score_order_by_name_finding(column, highest_first, file)
            out.append(f"{f.source}: {f.message} (e.g. {'; '.join(f.examples)})")
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
            settings.for_model(str(model)).with_(duplicates="keep_best"),
            run_rank=part[S.RANK] if S.RANK in part.columns else None,
        )
        examples[str(model)] = lists.notes.duplicate_examples
    return dropped, examples


# ====================================================================== tables (CSV, Parquet)
QROW = "__qrow"


def _ids_present(frame: DataFrame) -> DataFrame:
    """Rows with a query and an item id (the local validation drops the others)."""
    keep = F.col(S.QUERY).isNotNull() & F.col(S.ITEM).isNotNull()
    keep &= (F.trim(F.col(S.QUERY)) != "") & (F.trim(F.col(S.ITEM)) != "")
    return frame.where(keep)


def _missing(column: F.Column) -> F.Column:
    return column.isNull() | F.isnan(column)


def _first(frame: DataFrame, order: str, n: int = EXAMPLES) -> list[Row]:
    """The first ``n`` rows by ``order`` (a distributed top-n)."""
    rows: list[Row] = frame.orderBy(order).limit(n).collect()
    return rows


def _in_order(frame: DataFrame, keys: list[str], order: str) -> DataFrame:
    """One row per ``keys`` with the first ``order`` value of each (its first appearance)."""
    return frame.groupBy(*keys).agg(F.min(order).alias("__first"))


def table_findings(
    run: DataFrame,
    qrels: DataFrame,
    settings: Settings,
    k_max: int,
    has_model: bool,
) -> list[str]:
    """The warnings :func:`metrics.io.checks.validate` finds in a run and its judgments, in
    its order and words, counted by Spark: missing and infinite scores, repeated items, tied
    scores, short lists, missing, repeated and negative labels, labels that look like ranks,
    judged queries without a relevant item, run queries without judgments, judged queries missing
    from a model's run, relevant items no model retrieved.

    ``run`` is prepared (:func:`metrics.spark.backend.prepare_run`, with the input row number),
    ``qrels`` has ``query``, ``item``, ``relevance`` in input order; ``has_model`` says whether
    the examples name the model (the run has a model column, or there are several run files).
    """
    found: list[Finding] = []
    run = _ids_present(run).cache()
    qrels = _ids_present(qrels.withColumn(QROW, F.monotonically_increasing_id())).cache()
    found += _score_findings(run, settings, k_max, has_model)
    found += _label_findings(qrels, settings)
    found += _coverage_findings(run, qrels, settings)
    run.unpersist()
    qrels.unpersist()
    return [
        f"{f.source + ': ' if f.source else ''}{f.message}"
        + (f" (e.g. {'; '.join(f.examples)})" if f.examples else "")
        for f in found
        if f.severity == "warning"
    ]


def _model(example: dict[str, object], model: object, has_model: bool) -> dict[str, object]:
    if has_model:
        example["model"] = str(model)
    return example


def _score_findings(
    run: DataFrame, settings: Settings, k_max: int, has_model: bool
) -> list[Finding]:
    has_score = S.SCORE in run.columns
    score = F.col(S.SCORE) if has_score else -F.col(S.RANK)
    shown = S.SCORE if has_score else S.RANK
    run = run.withColumn("__score", score)
    found = []
    for code, mask in (
        ("missing_scores", _missing(F.col("__score"))),
        ("infinite_scores", F.col("__score").isin(float("inf"), float("-inf"))),
    ):
        rows = run.where(mask)
        n = rows.count()
        if n:
            examples = tuple(
                {"query": str(r[S.QUERY]), "item": str(r[S.ITEM])} for r in _first(rows, ROW)
            )
            variant = ""
            if code == "infinite_scores":
                models = [r[S.MODEL] for r in run.select(S.MODEL).distinct().collect()]
                variant = infinite_variant(settings, models)
            found.append(score_values_finding(code, n, shown, examples, variant))
    key = Window.partitionBy(S.MODEL, S.QUERY, S.ITEM).orderBy(ROW)
    run = run.withColumn("__copy", F.row_number().over(key)).cache()
    copies = run.where(F.col("__copy") > 1)
    n = copies.count()
    if n:
        copied = tuple(
            _model({"query": str(r[S.QUERY]), "item": str(r[S.ITEM])}, r[S.MODEL], has_model)
            for r in _first(copies.where(F.col("__copy") == 2), ROW)  # one per repeated item
        )
        found.append(duplicate_items_finding(n, copied, settings))
    ok = run.where(~_missing(F.col("__score")))
    if has_score and settings.ties in RULES["ties"]:
        groups = ok.groupBy(S.MODEL, S.QUERY, "__score").agg(
            F.count(F.lit(1)).alias("n"), F.min(ROW).alias("__first")
        )
        tied = groups.where(F.col("n") > 1)
        lists = tied.groupBy(S.MODEL, S.QUERY).agg(F.min("__first").alias("__first"))
        totals = tied.agg(F.sum("n").alias("rows")).collect()[0]
        n_lists = lists.count()
        if n_lists:
            tied_examples = tuple(
                _model({"query": str(r[S.QUERY])}, r[S.MODEL], has_model)
                for r in _first(lists, "__first")
            )
            found.append(tied_scores_finding(n_lists, int(totals["rows"]), tied_examples, settings))
    sizes = (
        ok.where(F.col("__copy") == 1)
        .groupBy(S.MODEL, S.QUERY)
        .agg(F.count(F.lit(1)).alias("size"), F.min(ROW).alias("__first"))
    )
    summary = sizes.agg(
        F.count(F.lit(1)).alias("total"),
        F.sum((F.col("size") < k_max).cast("long")).alias("short"),
        F.min(F.when(F.col("size") < k_max, F.col("size"))).alias("shortest"),
    ).collect()[0]
    if summary["short"]:
        short = sizes.where(F.col("size") < k_max)
        n = int(summary["short"])
        shortest = tuple(
            _model({"query": str(r[S.QUERY]), "n": int(r["size"])}, r[S.MODEL], has_model)
            for r in _first(short, "__first")
        )
        found.append(
            short_lists_finding(
                n, int(summary["total"]), k_max, int(summary["shortest"]), shortest, settings
            )
        )
    if S.RANK in run.columns:
        found += score_order_vs_rank_findings(rank_agreements(run), settings)
    run.unpersist()
    return found


def label_value_findings(qrels: DataFrame, settings: Settings) -> list[Finding]:
    """Negative labels, and labels that are not whole numbers (read as the fractional-labels
    policy says, by the engine every bucket runs), of judgments with a label on every row."""
    label = F.col(S.RELEVANCE)
    found = []
    if QROW not in qrels.columns:  # in file order, as the local reader gives its examples
        qrels = qrels.withColumn(QROW, F.monotonically_increasing_id())
    whole = F.when(label < 0, F.ceil(label)).otherwise(F.floor(label))
    for code, rows in (
        ("negative", qrels.where(label < 0)),
        ("fraction", qrels.where(label != whole)),
    ):
        n = rows.count()
        if not n:
            continue
        examples = tuple(
            {"query": str(r[S.QUERY]), "item": str(r[S.ITEM]), "value": f"{r[S.RELEVANCE]:g}"}
            for r in _first(rows, QROW)
        )
        found.append(
            negative_labels_finding(n, examples, S.RELEVANCE)
            if code == "negative"
            else fractional_labels_finding(n, examples, S.RELEVANCE, settings)
        )
    return found


def _repeated_findings(clean: DataFrame) -> list[Finding]:
    """Repeated judgments of the labelled rows, as the local engine words them
    (:func:`metrics.engine.ranking.repeated_judgments`): the (query, item) pairs judged with
    different labels first, with their labels and the one kept, else the first repeats."""
    key = Window.partitionBy(S.QUERY, S.ITEM).orderBy(QROW)
    copies = clean.withColumn("__copy", F.row_number().over(key)).where(F.col("__copy") > 1)
    n = copies.count()
    if not n:
        return []
    pairs = clean.groupBy(S.QUERY, S.ITEM).agg(
        F.min(QROW).alias(QROW),
        F.array_sort(F.collect_set(F.col(S.RELEVANCE).cast("double"))).alias("__labels"),
    )
    disagree = pairs.where(F.size("__labels") > 1)
    conflicts = disagree.count()
    if conflicts:
        first = _first(disagree, QROW)
        examples = conflict_examples(
            (r[S.QUERY], r[S.ITEM], [float(v) for v in r["__labels"]]) for r in first
        )
    else:
        examples = tuple(
            {"query": str(r[S.QUERY]), "item": str(r[S.ITEM])} for r in _first(copies, QROW)
        )
    return [duplicate_judgments_finding(n, examples, conflicts)]


def _label_findings(qrels: DataFrame, settings: Settings) -> list[Finding]:
    label = F.col(S.RELEVANCE)
    shown = S.RELEVANCE
    found = []
    rows = qrels.where(_missing(label))
    n = rows.count()
    if n:
        examples = tuple(
            {"query": str(r[S.QUERY]), "item": str(r[S.ITEM])} for r in _first(rows, QROW)
        )
        found.append(missing_labels_finding(n, examples, shown))
    clean = qrels.where(~_missing(label))
    found += _repeated_findings(clean)
    found += label_value_findings(clean, settings)
    if _labels_look_like_ranks(clean):
        found.append(labels_look_like_ranks_finding(shown))
    level = float(settings.relevance_level)
    judged = clean.groupBy(S.QUERY).agg(
        F.min(QROW).alias("__first"),
        F.max(relevance.relevant(label, level).cast("int")).alias("relevant"),
    )
    counts = judged.agg(
        F.count(F.lit(1)).alias("total"), F.sum(1 - F.col("relevant")).alias("none")
    ).collect()[0]
    if counts["none"]:
        none = judged.where(F.col("relevant") == 0)
        n = int(counts["none"])
        examples = tuple({"id": str(r[S.QUERY])} for r in _first(none, "__first"))
        found.append(
            no_relevant_finding(
                n, int(counts["total"]), settings.relevance_level, examples, settings
            )
        )
    return found


def _labels_look_like_ranks(clean: DataFrame) -> bool:
    """As the local check: whole-number labels up to at least 5, and at least half of the
    queries with five or more judgments labelled 0..n-1 or 1..n, each value once."""
    label = F.col(S.RELEVANCE)
    head = clean.agg(
        F.max(label).alias("max"), F.sum((label != F.floor(label)).cast("long")).alias("frac")
    ).collect()[0]
    if head["max"] is None or head["max"] < 5 or head["frac"]:
        return False
    stats = (
        clean.groupBy(S.QUERY)
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.countDistinct(label).alias("distinct"),
            F.min(label).alias("min"),
            F.max(label).alias("max"),
        )
        .where(F.col("n") >= 5)
    )
    like = (
        (F.col("distinct") == F.col("n"))
        & F.col("min").isin(0, 1)
        & (F.col("max") - F.col("min") == F.col("n") - 1)
    )
    share = stats.agg(F.avg(like.cast("double")).alias("share")).collect()[0]["share"]
    return share is not None and share >= 0.5


def _coverage_findings(run: DataFrame, qrels: DataFrame, settings: Settings) -> list[Finding]:
    spark = run.sparkSession
    found = []
    run_queries = _in_order(run, [S.QUERY], ROW)
    judged = _in_order(qrels, [S.QUERY], QROW)
    unjudged = run_queries.join(judged.select(S.QUERY), S.QUERY, "left_anti")
    n = unjudged.count()
    if n:
        examples = tuple({"id": str(r[S.QUERY])} for r in _first(unjudged, "__first"))
        found.append(unjudged_queries_finding(n, run_queries.count(), examples))
    models = _in_order(run, [S.MODEL], ROW).orderBy("__first").collect()
    order = spark.createDataFrame(
        [(str(r[S.MODEL]), i) for i, r in enumerate(models)], f"{S.MODEL} string, __m long"
    )
    present = run.select(S.MODEL, S.QUERY).distinct()
    absent = order.crossJoin(judged).join(present, [S.MODEL, S.QUERY], "left_anti").cache()
    pairs = absent.count()
    if pairs:
        queries = absent.groupBy(S.QUERY).agg(
            F.min("__m").alias("__m"), F.min("__first").alias("__first")
        )
        n = queries.count()
        if len(models) == 1:
            examples = tuple({"id": str(r[S.QUERY])} for r in _first(queries, "__first"))
        else:
            first = absent.orderBy("__m", "__first").limit(EXAMPLES).collect()
            examples = tuple({"model": str(r[S.MODEL]), "query": str(r[S.QUERY])} for r in first)
        found.append(
            missing_run_queries_finding(
                n, judged.count(), examples, settings, None if len(models) == 1 else pairs
            )
        )
    absent.unpersist()
    level = float(settings.relevance_level)
    relevant = (
        qrels.where(relevance.relevant(F.col(S.RELEVANCE), level))
        .join(run.select(S.QUERY).distinct(), S.QUERY, "left_semi")
        .groupBy(S.QUERY, S.ITEM)
        .agg(F.min(QROW).alias("__first"))
    )
    outside = relevant.join(
        run.select(S.QUERY, S.ITEM).distinct(), [S.QUERY, S.ITEM], "left_anti"
    ).cache()
    counts = outside.agg(
        F.count(F.lit(1)).alias("n"), F.countDistinct(S.QUERY).alias("queries")
    ).collect()[0]
    if counts["n"]:
        n = int(counts["n"])
        examples = tuple(
            {"query": str(r[S.QUERY]), "item": str(r[S.ITEM])} for r in _first(outside, "__first")
        )
        found.append(relevant_not_retrieved_finding(n, int(counts["queries"]), examples))
    outside.unpersist()
    return found
