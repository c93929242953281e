"""Command line: ``python -m metrics QRELS RUN [RUN ...] [-m MEASURE]... [-q]``.

Output follows ``trec_eval -q``: ``MEASURE<TAB>QUERY<TAB>VALUE`` per query (with ``-q``) and the
mean under the query ``all``. Plain TREC files take a fast path (pyarrow only, no pandas); other
tables (CSV, TSV, Parquet, JSON, Excel) go through :mod:`metrics.io.loaders`. Unusable input prints
one message naming the file and line and exits with status 2.

Examples
--------
``python -m metrics qrels.txt bm25.run -m P@10 -m nDCG@10 -q``
``python -m metrics qrels.txt bm25.run --names trec -m P_10 -m map``   (diffable with trec_eval)
``python -m metrics qrels.txt bm25.run --curves 100``   (P, R, nDCG, AP at K = 1..100, and RR)
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from metrics.cli.output import TREC_NAME_WIDTH, Results, write_csv, write_json, write_tsv
from metrics.engine.ranking import RankedLists, rank_lists
from metrics.engine.registry import DEFAULT_MEASURES, MEASURES, MeasureSpec, parse_measure
from metrics.engine.settings import POLICIES, Settings
from metrics.errors import InputError, MeasureError, MetricsError

EXIT_OK, EXIT_USAGE = 0, 2
_RANGE = re.compile(r"^(?P<head>.+?[@._])(?P<ks>\d+(?:\.\.\d+|(?:,\d+)+))$")


# ====================================================================== measures
def expand_measure_names(names: list[str]) -> list[str]:
    """Expand cutoff ranges and lists: ``P@1..3`` -> P@1, P@2, P@3; ``P.5,10`` -> P.5, P.10.

    Parameters
    ----------
    names:
        Measure names as typed.

    Returns
    -------
    list of str
        One name per measure and cutoff, in order.

    Raises
    ------
    MeasureError
        For an empty or reversed range.
    """
    out: list[str] = []
    for name in names:
        match = _RANGE.match(name.strip())
        if match is None:
            out.append(name)
            continue
        head, ks = match["head"], match["ks"]
        if ".." in ks:
            low, high = (int(x) for x in ks.split(".."))
            if low < 1 or high < low:
                raise MeasureError(
                    f"{name!r}: a cutoff range runs from 1 or more upwards, like P@1..100."
                )
            cutoffs = range(low, high + 1)
        else:
            cutoffs = [int(x) for x in ks.split(",")]
        out += [f"{head}{k}" for k in cutoffs]
    return out


def curve_measure_names(k_max: int) -> list[str]:
    """Every curve measure (P, R, AP, nDCG) at K = 1..k_max, then RR."""
    names = [f"{d.name}@1..{k_max}" for d in MEASURES.values() if d.curve_default]
    return expand_measure_names(names) + ["RR"]


def parse_specs(names: list[str]) -> list[MeasureSpec]:
    """Parse measure names (with ranges), keeping order and dropping repeats."""
    seen: dict[str, MeasureSpec] = {}
    for text in expand_measure_names(names):
        spec = parse_measure(text)
        seen.setdefault(spec.name, spec)
    return list(seen.values())


def compute_matrix(lists: RankedLists, specs: list[MeasureSpec]) -> np.ndarray:
    """Per-query values of every spec, shape ``(n_queries, len(specs))``.

    Specs that share a measure and parameters are computed in one kernel call over all their
    cutoffs, so a full curve costs one pass.
    """
    out = np.empty((lists.n_queries, len(specs)))
    groups: dict[tuple, list[int]] = {}
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


def mean_values(
    lists: RankedLists, specs: list[MeasureSpec], values: np.ndarray, settings: Settings
) -> np.ndarray:
    """One value per spec: the mean over queries (``NaN`` = left out), or pooled counts for P, R,
    F1 and Success when ``settings.averaging == "micro"``."""
    with np.errstate(invalid="ignore"):
        counts = (~np.isnan(values)).sum(axis=0)
        means = np.where(counts > 0, np.nansum(values, axis=0) / np.maximum(counts, 1), np.nan)
    if settings.averaging == "micro":
        from metrics.engine.aggregation import has_micro, micro_value

        for j, spec in enumerate(specs):
            if has_micro(spec):
                means[j] = micro_value(spec, lists)
    return means


# ====================================================================== inputs
@dataclass
class Inputs:
    """Ranked lists per model, and the warnings found while reading them."""

    lists: dict[str, RankedLists]
    warnings: list[str]


def load_inputs(qrels_path: str, run_paths: list[str], settings: Settings, k_max: int) -> Inputs:
    """Read judgments and runs and rank every model's lists.

    Plain TREC files are read by :mod:`metrics.io.trec` (fast, no pandas); anything else by
    :func:`metrics.io.loaders.load_dataset`.

    Raises
    ------
    MetricsError
        For unreadable files or values, naming the file and line.
    """
    from metrics.io.trec import read_trec

    qrels = read_trec(qrels_path)
    runs = [read_trec(p) for p in run_paths]
    if qrels is not None and all(r is not None for r in runs):
        if qrels.kind != "qrels":
            raise InputError(
                "this looks like a TREC run (6 fields), not judgments.",
                source=Path(qrels_path).name,
                line=1,
                fix="give the judgments first: python -m metrics QRELS RUN.",
            )
        lists: dict[str, RankedLists] = {}
        warnings: list[str] = []
        for path, run in zip(run_paths, runs):
            name = Path(path).name
            if run.kind != "run":
                raise InputError(
                    "this looks like TREC judgments (4 fields), not a run.",
                    source=name,
                    line=1,
                    fix="give the run after the judgments: python -m metrics QRELS RUN.",
                )
            ranked = rank_lists(
                run.query,
                run.item,
                run.value,
                qrels.query,
                qrels.item,
                qrels.value,
                settings,
                run_rank=run.rank,
                source=name,
            )
            if ranked.n_queries == 0:
                raise InputError(
                    "no query appears in both the run and the judgments.",
                    source=name,
                    fix="check that both files use the same query ids "
                    "(for example '7', 'q7' and '007' differ).",
                )
            lists[_model_name(path, lists)] = ranked
            warnings += ranking_warnings(ranked, name, settings)
        return Inputs(lists, warnings)
    return _load_tables(qrels_path, run_paths, settings, k_max)


_RUN_EXTENSIONS = (".gz", ".txt", ".run", ".res", ".trec", ".tsv", ".csv")


def _model_name(path: str, taken: dict) -> str:
    """File name without known extensions (as :func:`metrics.io.formats.file_stem`, without
    importing pandas), made unique among ``taken``."""
    stem = Path(path).name
    while True:
        ext = next(
            (e for e in _RUN_EXTENSIONS if stem.lower().endswith(e) and len(stem) > len(e)), None
        )
        if ext is None:
            break
        stem = stem[: -len(ext)]
    name, n = stem, 1
    while name in taken:
        n += 1
        name = f"{stem}_{n}"
    return name


def _load_tables(qrels_path: str, run_paths: list[str], settings: Settings, k_max: int) -> Inputs:
    from metrics.engine.evaluation import rank_run
    from metrics.io.formats import load_table
    from metrics.io.loaders import load_dataset

    judgments = load_table(qrels_path, Path(qrels_path).name, kind="qrels")
    runs = [load_table(p, Path(p).name, kind="run") for p in run_paths]
    data = load_dataset(runs, judgments, k_max=k_max, relevance_level=settings.relevance_level)
    lists = rank_run(
        data.run, data.qrels, settings, source=", ".join(Path(p).name for p in run_paths)
    )
    warnings = [
        f"{f.source + ': ' if f.source else ''}{f.message}"
        + (f" (e.g. {'; '.join(f.examples)})" if f.examples else "")
        for f in data.report.warnings
    ]
    return Inputs(lists, warnings)


def ranking_warnings(ranked: RankedLists, source: str, settings: Settings) -> list[str]:
    """Plain-English warnings from what :func:`~metrics.engine.ranking.rank_lists` reported."""
    r = ranked.report
    out = []

    def examples(values: tuple[str, ...]) -> str:
        return ", ".join(values[:5]) + (", ..." if len(values) > 5 else "")

    if r.dropped_duplicates:
        out.append(
            f"{source}: dropped {r.dropped_duplicates} repeated item(s) within a query, "
            f"keeping the best-ranked copy (e.g. {'; '.join(r.duplicate_examples)})."
        )
    if r.run_queries_without_judgments:
        n = len(r.run_queries_without_judgments)
        out.append(
            f"{source}: {n} quer{'y has' if n == 1 else 'ies have'} no judgments and "
            f"{'is' if n == 1 else 'are'} not evaluated "
            f"({examples(r.run_queries_without_judgments)})."
        )
    if r.judged_queries_missing_from_run and settings.missing_queries == "skip":
        n = len(r.judged_queries_missing_from_run)
        out.append(
            f"{source}: {n} judged quer{'y is' if n == 1 else 'ies are'} missing from the "
            f"run and skipped; --complete scores them 0 "
            f"({examples(r.judged_queries_missing_from_run)})."
        )
    if r.left_out_without_relevant:
        n = len(r.left_out_without_relevant)
        out.append(
            f"{source}: {n} quer{'y' if n == 1 else 'ies'} without a relevant item "
            f"left out ({examples(r.left_out_without_relevant)})."
        )
    return out


# ====================================================================== output
def display_names(specs: list[MeasureSpec], style: str) -> list[str]:
    """Measure names as printed: ours (``P@10``) or trec_eval's (``P_10``), padded like it."""
    if style == "ours":
        return [s.name for s in specs]
    return [(s.trec_eval_name or s.name).ljust(TREC_NAME_WIDTH) for s in specs]


# ====================================================================== arguments and main
def build_parser() -> argparse.ArgumentParser:
    """The argument parser (its help lists every policy and its values)."""
    p = argparse.ArgumentParser(
        prog="python -m metrics",
        description="Evaluate ranked lists against relevance judgments, like trec_eval. "
        "Reads TREC qrels (qid iter docid rel) and runs (qid Q0 docid rank score "
        "tag), or CSV/TSV/Parquet/JSON/Excel tables with a header. "
        "Subcommand: 'python -m metrics compare ...' compares models.",
        epilog="Measures: " + ", ".join(MEASURES) + ". Write them as P@10, nDCG@10, RR, AP, "
        "or trec_eval's P_10, ndcg_cut_10, recip_rank, map; ranges as P@1..100.",
    )
    p.add_argument("qrels", metavar="QRELS", help="judgments file")
    p.add_argument("runs", metavar="RUN", nargs="+", help="run file(s); one model per file")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=[],
        metavar="MEASURE",
        help="measure to compute (repeatable); default: " + " ".join(DEFAULT_MEASURES),
    )
    p.add_argument(
        "--curves",
        type=int,
        metavar="K",
        help="add P, R, nDCG and AP at every K from 1 to K, and RR",
    )
    p.add_argument(
        "-q",
        "--per-query",
        action="store_true",
        help="print every query's values, then the mean ('all')",
    )
    p.add_argument("--quiet", action="store_true", help="do not print warnings on stderr")
    p.add_argument("--digits", type=int, default=4, help="decimals printed (default 4)")
    p.add_argument(
        "--format",
        choices=("tsv", "csv", "json"),
        default="tsv",
        help="output layout (default tsv, as trec_eval)",
    )
    p.add_argument(
        "--names",
        choices=("ours", "trec"),
        default="ours",
        help="print measure names as P@10 (ours) or P_10 (trec_eval's, padded)",
    )
    p.add_argument(
        "-l",
        "--relevance-level",
        type=float,
        default=1.0,
        metavar="N",
        help=POLICIES["relevance_level"].help + " (default 1)",
    )
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from the run as 0 (trec_eval -c)",
    )
    for field, flag in (
        ("gain", "--gain"),
        ("ties", "--ties"),
        ("score_precision", "--score-precision"),
        ("short_lists", "--short-lists"),
        ("duplicates", "--duplicates"),
        ("no_relevant", "--no-relevant"),
    ):
        policy = POLICIES[field]
        default = getattr(Settings(), field)
        choices = [str(v) for v in policy.values]
        p.add_argument(
            flag,
            choices=choices,
            default=default,
            help=f"{policy.help} "
            + "; ".join(f"{v}: {text}" for v, text in policy.values.items())
            + f" (default {default})",
        )
    p.add_argument(
        "--averaging",
        choices=("macro", "micro"),
        default="macro",
        help=POLICIES["averaging"].help + " macro: mean of per-query values; micro: "
        "pooled counts for P, R, F1, Success (default macro)",
    )
    p.add_argument(
        "--ndcg-relevance-level",
        action="store_true",
        help="labels below the relevance level get gain 0 in nDCG (ranx)",
    )
    add_engine_arguments(p)
    return p


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    """``--engine``, ``--master`` and ``--per-query-out`` (shared with ``compare``)."""
    p.add_argument(
        "--engine",
        choices=("local", "spark"),
        default="local",
        help="compute in this process (local, default) or with Apache Spark (spark: needs "
        "pip install -r requirements-spark.txt and Java 17+); the output is the same",
    )
    p.add_argument(
        "--master",
        default="local[*]",
        help="Spark master URL with --engine spark (default local[*]: every core here)",
    )
    p.add_argument(
        "--per-query-out",
        metavar="PATH",
        help="also write the per-query values (model, query, one column per measure) as "
        "Parquet; the app opens such a file",
    )


def settings_from(args: argparse.Namespace) -> Settings:
    """The :class:`Settings` chosen on the command line."""
    level = args.relevance_level
    return Settings(
        relevance_level=int(level) if float(level).is_integer() else level,
        gain=args.gain,
        ties=args.ties,
        score_precision=args.score_precision,
        short_lists=args.short_lists,
        duplicates=args.duplicates,
        no_relevant=args.no_relevant,
        missing_queries="zero" if args.complete else "skip",
        ndcg_relevance_level=args.ndcg_relevance_level,
        averaging=args.averaging,
    )


def compute_results(
    args: argparse.Namespace,
    specs: list[MeasureSpec],
    settings: Settings,
    k_max: int,
    err: TextIO,
) -> Results:
    """Per model: lists (or query ids), per-query values and means, by the chosen engine."""
    results = Results([s.name for s in specs], settings)
    if getattr(args, "engine", "local") == "spark":
        from metrics.spark import spark_results

        results.models.update(spark_results(args.qrels, args.runs, specs, settings, args.master))
        return results
    inputs = load_inputs(args.qrels, args.runs, settings, k_max)
    if not args.quiet:
        for warning in inputs.warnings:
            err.write(f"warning: {warning}\n")
    for model, lists in inputs.lists.items():
        values = compute_matrix(lists, specs)
        results.models[model] = (lists, values, mean_values(lists, specs, values, settings))
    return results


def run(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Evaluate as the parsed arguments say and write the results."""
    if args.digits < 0 or args.digits > 12:
        raise InputError(f"--digits must be between 0 and 12, got {args.digits}.")
    if args.curves is not None and args.curves < 1:
        raise InputError(f"--curves needs a K of 1 or more, got {args.curves}.")
    settings = settings_from(args)
    names = list(args.measure)
    if args.curves:
        names += curve_measure_names(args.curves)
    specs = parse_specs(names or list(DEFAULT_MEASURES))
    k_max = max([s.k for s in specs if s.k is not None], default=10)
    results = compute_results(args, specs, settings, k_max, err)
    if getattr(args, "per_query_out", None):
        from metrics.io.per_query import write_results

        write_results(results, args.per_query_out)
    if args.format == "json":
        write_json(results, args.per_query, args.digits, out)
    elif args.format == "csv":
        write_csv(results, args.per_query, args.digits, out)
    else:
        write_tsv(results, display_names(specs, args.names), args.per_query, args.digits, out)
    return EXIT_OK


def main(
    argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Entry point of ``python -m metrics``; returns the exit status (0 ok, 2 unusable input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    err = err or sys.stderr
    if argv[:1] == ["compare"]:
        return _compare(argv[1:], err)
    args = build_parser().parse_args(argv)
    try:
        return run(args, out, err)
    except MetricsError as exc:
        err.write(f"python -m metrics: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK


def _compare(argv: list[str], err: TextIO) -> int:
    if importlib.util.find_spec("metrics.cli.compare") is None:
        err.write(
            "python -m metrics: error: the compare command is not available in this version.\n"
        )
        return EXIT_USAGE
    module = importlib.import_module("metrics.cli.compare")
    return int(module.main(argv))
