"""A Spark job: per-query values written as Parquet by the executors, and the means printed.

For ``spark-submit`` on a cluster, where the per-query table itself may be too large to collect::

    zip -qr metrics.zip metrics
    spark-submit --master yarn --py-files metrics.zip metrics/spark/job.py \\
        --run s3://logs/rankings/ --qrels s3://logs/labels/ --queries s3://logs/queries/ \\
        -m nDCG@10 -m P@10 -m RR --out s3://reviews/per_query/

The run needs ``query``, ``item``, ``score`` (or ``rank``) and ``model`` columns (or the names
the loaders recognise), the judgments ``query``, ``item``, ``relevance`` (or ``label``); the
optional query table ``query`` plus segment columns. Files, folders and globs of Parquet, CSV and
TREC text are read as by ``python -m metrics --engine spark``.
"""

from __future__ import annotations

import argparse
import sys

from metrics.engine.registry import DEFAULT_MEASURES
from metrics.engine.settings import Settings, score_order_options


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="metrics/spark/job.py", description=__doc__.splitlines()[0])
    p.add_argument("--run", required=True, action="append", help="run path (repeatable)")
    p.add_argument("--qrels", required=True, help="judgments path")
    p.add_argument("--queries", help="query metadata (query plus segment columns)")
    p.add_argument("-m", "--measure", action="append", default=[], help="measure (repeatable)")
    p.add_argument("--out", required=True, help="where the per-query Parquet table goes")
    p.add_argument("--buckets", type=int, help="query buckets (tasks); default: shuffle partitions")
    p.add_argument("-l", "--relevance-level", type=float, default=1.0)
    p.add_argument("-c", "--complete", action="store_true", help="trec_eval -c")
    p.add_argument("--gain", default="linear")
    p.add_argument("--ties", default="item_desc")
    p.add_argument("--short-lists", default="divide_by_k")
    p.add_argument("--averaging", default="macro", choices=("macro", "micro"))
    p.add_argument(
        "--score-order",
        action="append",
        default=[],
        metavar="ORDER|MODEL=ORDER",
        help="descending (higher is better, default) or ascending (lower is better: distances, "
        "costs); MODEL=ascending for one model (repeatable)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    from pyspark.sql import SparkSession

    # deferred with pyspark (optional): the backend and the readers import it
    from metrics.spark.backend import evaluate_spark, summarize_spark
    from metrics.spark.cli import _format_of, read_runs, read_table

    args = build_parser().parse_args(argv)
    level = args.relevance_level
    settings = Settings(
        relevance_level=int(level) if float(level).is_integer() else level,
        gain=args.gain,
        ties=args.ties,
        short_lists=args.short_lists,
        missing_queries="zero" if args.complete else "skip",
        averaging=args.averaging,
        **score_order_options(args.score_order),
    )
    measures = args.measure or list(DEFAULT_MEASURES)
    spark = SparkSession.builder.appName("ranking-metrics").getOrCreate()
    run = read_runs(spark, args.run)
    qrels = read_table(spark, args.qrels, "qrels")
    queries = None
    if args.queries:
        reader = spark.read.option("header", True)
        is_csv = _format_of(args.queries) == "csv"
        queries = reader.csv(args.queries) if is_csv else reader.parquet(args.queries)
    per_query = evaluate_spark(
        run, qrels, measures, settings, queries=queries, buckets=args.buckets
    )
    per_query.write.mode("overwrite").parquet(args.out)
    written = spark.read.parquet(args.out)
    summary = summarize_spark(written, measures, settings).orderBy("model", "measure")
    for row in summary.collect():
        sys.stdout.write(f"{row['model']}\t{row['measure']}\tall\t{row['value']:.4f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
