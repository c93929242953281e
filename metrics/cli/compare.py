"""``python -m metrics compare``: is a candidate run better than a baseline, and how sure?

Usage::

    python -m metrics compare QRELS RUN_A RUN_B [RUN_C ...] [-m MEASURE]... [--format tsv|json]
        [--seed N] [--resamples N] [--correction holm|bh|none] [--missing intersection|zero]
        [--test randomization|ttest|wilcoxon] [--alpha A] [--baseline MODEL]
        [--fail-if-worse MEASURE]...

The first run is the baseline (or ``--baseline``); every other model is a candidate. Files may
be TREC runs/qrels or any table :func:`metrics.io.loaders.load_table` reads. Output, per candidate
and measure: n, mean_a, mean_b, delta, ci_low, ci_high, p_randomization, p_ttest, p_wilcoxon,
p_adjusted, wins, ties, losses (and relative delta, effect size).

Exit status: 0 on success; 1 when ``--fail-if-worse`` names a measure on which a candidate is
significantly worse (corrected p below alpha, negative delta) — a gate for CI jobs; 2 on
unusable input, with a message naming the file and no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from pathlib import Path
from typing import TextIO

from metrics.errors import MetricsError

DEFAULT_CLI_MEASURES = ("nDCG@10", "P@10", "RR", "AP")
OUTPUT_COLUMNS = (
    "candidate",
    "measure",
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "relative_delta",
    "ci_low",
    "ci_high",
    "p_randomization",
    "p_ttest",
    "p_wilcoxon",
    "p_adjusted",
    "significant",
    "wins",
    "ties",
    "losses",
    "effect_size",
)
_TESTS = {"randomization": "p_randomization", "ttest": "p_ttest", "wilcoxon": "p_wilcoxon"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m metrics compare``."""
    parser = argparse.ArgumentParser(
        prog="python -m metrics compare",
        description="Compare candidate runs with a baseline run: delta, bootstrap CI, "
        "randomization / t / Wilcoxon p-values corrected for multiple testing.",
    )
    parser.add_argument("qrels", help="judgments file (TREC qrels or a table)")
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="run files; the first is the baseline (at least two models)",
    )
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"measure such as nDCG@10 (repeatable; default: {', '.join(DEFAULT_CLI_MEASURES)})",
    )
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--resamples",
        type=int,
        default=10_000,
        help="bootstrap and randomization resamples (default 10000)",
    )
    parser.add_argument(
        "--correction",
        choices=("holm", "bh", "none"),
        default="holm",
        help="multiple-testing correction over candidates x measures",
    )
    parser.add_argument(
        "--missing",
        choices=("intersection", "zero"),
        default="intersection",
        help="queries scored by one model only: compare shared queries, or "
        "score the missing ones 0",
    )
    parser.add_argument(
        "--test",
        choices=tuple(_TESTS),
        default="randomization",
        help="p-value that is corrected and decides significance",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level")
    parser.add_argument("--confidence", type=float, default=0.95, help="CI level")
    parser.add_argument("--baseline", help="baseline model name (default: the first run's)")
    parser.add_argument(
        "--relevance-level",
        type=float,
        default=1,
        help="labels at or above it are relevant (default 1)",
    )
    parser.add_argument(
        "--fail-if-worse",
        action="append",
        default=[],
        metavar="MEASURE",
        help="exit 1 if a candidate is significantly worse on MEASURE",
    )
    from metrics.cli.evaluate import add_engine_arguments

    add_engine_arguments(parser)
    return parser


def _fail(message: str, err: TextIO) -> int:
    print(f"error: {message}", file=err)
    return 2


def _number(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def run_compare(args: argparse.Namespace):
    """Load the files named in ``args`` and return ``(table, dataset, options, measures)``.

    Raises
    ------
    MetricsError
        On unusable input (the message names the file).
    """
    from metrics.engine.evaluation import evaluate
    from metrics.engine.registry import parse_measures
    from metrics.engine.settings import Settings
    from metrics.io.loaders import load_dataset, load_table
    from metrics.review.compare import CompareOptions, comparison_table

    measures = [s.name for s in parse_measures(list(args.measures or DEFAULT_CLI_MEASURES))]
    for name in args.fail_if_worse:
        measures += [s.name for s in parse_measures([name]) if s.name not in measures]
    settings = Settings(relevance_level=args.relevance_level)
    if getattr(args, "engine", "local") == "spark":
        from metrics.spark import spark_per_query

        data = spark_per_query(args.qrels, args.runs, measures, settings, args.master)
    else:
        qrels = load_table(args.qrels, Path(args.qrels).name)
        runs = [load_table(path, Path(path).name) for path in args.runs]
        data = load_dataset(
            runs,
            qrels,
            name=", ".join(Path(p).name for p in args.runs),
            relevance_level=args.relevance_level,
        )
    models = data.models
    baseline = args.baseline or models[0]
    if baseline not in models:
        raise MetricsError(
            f"--baseline {baseline!r} is not a model of the runs ({', '.join(models)})."
        )
    if len(models) < 2:
        raise MetricsError(
            f"{args.runs[0]}: only one model ({models[0]}) was found; give at "
            "least two runs, or one file with a model column."
        )
    options = CompareOptions(
        policy=args.missing,
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        correction=args.correction,
        test=_TESTS[args.test],
        alpha=args.alpha,
    )
    if getattr(args, "engine", "local") == "spark":
        evaluation = data.evaluation(measures, settings)
    else:
        evaluation = evaluate(data.run, data.qrels, measures, settings, source=args.runs[0])
    if getattr(args, "per_query_out", None):
        from metrics.io.per_query import write_evaluation

        write_evaluation(evaluation, args.per_query_out)
    table = comparison_table(evaluation, baseline, measures=measures, options=options)
    return table, data, options, measures, baseline


def _write_tsv(table, out: TextIO) -> None:
    out.write("\t".join(OUTPUT_COLUMNS) + "\n")
    for row in table.to_dict("records"):
        cells = []
        for column in OUTPUT_COLUMNS:
            value = row[column]
            if isinstance(value, float):
                cells.append("nan" if math.isnan(value) else f"{value:.6g}")
            else:
                cells.append(str(value))
        out.write("\t".join(cells) + "\n")


def _write_json(table, data, options, measures, baseline, args, out: TextIO) -> None:
    document = {
        "baseline": baseline,
        "qrels": args.qrels,
        "runs": list(args.runs),
        "models": data.models,
        "content_hash": data.content_hash,
        "measures": measures,
        "options": {
            "missing": options.policy,
            "resamples": options.resamples,
            "seed": options.seed,
            "confidence": options.confidence,
            "correction": options.correction,
            "test": args.test,
            "alpha": options.alpha,
            "relevance_level": args.relevance_level,
        },
        "comparisons": [
            {column: _number(row[column]) for column in OUTPUT_COLUMNS}
            | {
                "only_in_baseline": int(row["only_in_baseline"]),
                "only_in_candidate": int(row["only_in_candidate"]),
                "undefined": int(row["undefined"]),
            }
            for row in table.to_dict("records")
        ],
    }
    json.dump(document, out, indent=2)
    out.write("\n")


def main(
    argv: list[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Entry point of ``python -m metrics compare``; returns the exit status.

    Parameters
    ----------
    argv:
        Arguments after ``compare`` (``sys.argv[2:]`` when ``None``).
    out, err:
        Streams for results and messages (stdout and stderr by default).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(sys.argv[2:] if argv is None else argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.resamples < 1:
        return _fail("--resamples must be at least 1.", err)
    if not 0 < args.confidence < 1:
        return _fail("--confidence must be between 0 and 1 (e.g. 0.95).", err)
    try:
        table, data, options, measures, baseline = run_compare(args)
    except (MetricsError, ValueError) as exc:
        return _fail(str(exc), err)
    except OSError as exc:
        return _fail(f"{exc.filename or 'input'}: cannot read ({exc.strerror}).", err)
    for name in ("only_in_baseline", "only_in_candidate"):
        total = int(table[name].max()) if len(table) else 0
        if total:
            print(
                f"note: up to {total} queries appear {name.replace('_', ' ')}; policy "
                f"'{options.policy}'.",
                file=err,
            )
    if args.format == "json":
        _write_json(table, data, options, measures, baseline, args, out)
    else:
        _write_tsv(table, out)
    return _gate(table, args.fail_if_worse, err)


def _gate(table, fail_if_worse: list[str], err: TextIO) -> int:
    if not fail_if_worse:
        return 0
    from metrics.engine.registry import parse_measure

    names = {parse_measure(m).name for m in fail_if_worse}
    worse = table[table["measure"].isin(names) & table["significant"] & (table["delta"] < 0)]
    for row in worse.to_dict("records"):
        print(
            f"worse: {row['candidate']} on {row['measure']}: delta {row['delta']:+.4f}, "
            f"corrected p = {row['p_adjusted']:.3g}",
            file=err,
        )
    return 1 if len(worse) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
