"""``python -m metrics labels``: several label sources, their agreement and what they change.

Usage::

    python -m metrics labels QRELS_A QRELS_B [QRELS ...] [RUN ...] [--name NAME]...
        [-m MEASURE]... [--judged-k K] [--baseline MODEL] [--candidate MODEL]...
        [--aggregate majority|mean|median|max|min] [--top N] [--table TABLE]...
        [--format tsv|json] [--resamples N] [--seed N] [--relevance-level N]
        [--label-map VALUE=GRADE,...] [--quiet]
    python -m metrics labels TABLE [RUN ...] --label-column COLUMN --label-column COLUMN ...

The files are read as label sources (a TREC qrels file, or a table with neither a score nor a
rank column) or as runs (the others), in the order given; ``--name`` names the sources in that
order (by default each file's name without its extensions). With ``--label-column``, the first
file is one table holding a label column per source (named by ``--name``, or by the columns),
and it is also the run when it has a score or rank column and no run file follows.

Printed: the sources with their provenance, their agreement (raw agreement, Cohen's κ
unweighted, linear and quadratic per pair; pairwise agreement, Fleiss' κ and Krippendorff's α
over all; the confusion matrices; the ``--top`` items and queries that differ most) and, with
runs, every measure of every run under each source, Kendall's τ_b and τ_AP of the orderings
with the swapped pairs, Judged@K per run and source, and the review's verdict of each candidate
under each source with its flips (:func:`metrics.labels.study.study_labels`). The TSV output is
one block per table, each headed by ``# NAME``, blocks apart by an empty line; ``--table`` keeps
some of them. ``--format json`` holds every table, the warnings and the options. Unless
``--quiet``, stderr says how the files were read, warns about the input (a source that mixes
human and machine labels) and gives one ``agreement:``, ``ordering:`` and ``flip:`` line each.

Exit status: 0; 2 on unusable input, with a message naming the file and no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.cli.arguments import (
    ArgumentParser,
    add_label_arguments,
    add_ranking_arguments,
    add_relevance_level_argument,
    add_score_order_argument,
    label_map_of,
    label_options,
    ranking_options,
    score_order_settings,
)
from metrics.cli.messages import error_line, write_findings
from metrics.cli.output import tsv_escaped_text
from metrics.cli.review_arguments import add_resampling_arguments
from metrics.engine.registry import DEFAULT_COMPARE_MEASURES, DEFAULT_REVIEW_K
from metrics.engine.settings import Settings
from metrics.errors import InputError, MetricsError
from metrics.io.formats import LoadedTable, load_table
from metrics.io.loaders import load_dataset
from metrics.io.reading_notes import finding_text
from metrics.labels.messages import reason_text
from metrics.labels.sources import (
    AGGREGATES,
    LabelSources,
    aggregate_grades,
    is_judgments,
    run_from_table,
    sources_from_columns,
    sources_from_judgments,
)
from metrics.labels.study import LabelStudy, study_labels
from metrics.review.compare import CompareOptions

#: The tables of the output, in order, and where each is in a study.
TABLES: dict[str, str] = {
    "sources": "the sources: judged pairs, queries, a mixing warning, provenance",
    "agreement": "per pair of sources: raw agreement, Cohen's kappa (unweighted, linear, "
    "quadratic)",
    "overall": "over all sources: pairwise agreement, Fleiss' kappa, Krippendorff's alpha",
    "confusion": "every cell of the confusion matrix of each pair of sources",
    "items": "the items the sources differ on most",
    "queries": "the queries the sources differ on most",
    "means": "every measure of every run under each source",
    "correlations": "Kendall's tau_b and tau_AP of the orderings of each pair of sources",
    "swaps": "the pairs of runs two sources order differently",
    "judged": "Judged@K of every run under each source (the holes)",
    "verdicts": "the verdict of each candidate under each source, flips marked",
}
#: The tables that need runs.
RUN_TABLES = ("means", "correlations", "swaps", "judged", "verdicts")
DEFAULT_TOP = 10


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m metrics labels``."""
    parser = ArgumentParser(
        prog="python -m metrics labels",
        description="Several label sources: their agreement, and what they change in the "
        "runs' measures, orderings and verdicts.",
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="judgment files (one per source) and run files; with --label-column, one table "
        "of label columns first",
    )
    parser.add_argument(
        "--name",
        action="append",
        default=[],
        help="the name of a label source, in the order of the sources (repeatable; default: "
        "the file's name, or the label column)",
    )
    parser.add_argument(
        "--label-column",
        action="append",
        dest="label_columns",
        default=[],
        metavar="COLUMN",
        help="a label column of the first file, one per source (repeatable)",
    )
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measure such as nDCG@10 (repeatable; default: "
        f"{', '.join(DEFAULT_COMPARE_MEASURES)})",
    )
    parser.add_argument(
        "--judged-k",
        type=int,
        default=DEFAULT_REVIEW_K,
        metavar="K",
        help=f"the cutoff of Judged@K, the holes of each source (default {DEFAULT_REVIEW_K})",
    )
    parser.add_argument("--baseline", help="the review's baseline (default: the first model)")
    parser.add_argument(
        "--candidate",
        action="append",
        default=[],
        metavar="MODEL",
        help="a candidate of the review (repeatable; default: every other model)",
    )
    parser.add_argument(
        "--aggregate",
        choices=AGGREGATES,
        help="also compare the sources' aggregate, as one more source",
    )
    parser.add_argument(
        "--top",
        type=int,
        default=DEFAULT_TOP,
        metavar="N",
        help=f"items and queries that differ most to print (default {DEFAULT_TOP})",
    )
    parser.add_argument(
        "--table",
        action="append",
        dest="tables",
        default=[],
        choices=tuple(TABLES),
        help="print only this table (repeatable): "
        + "; ".join(f"{k}: {v}" for k, v in TABLES.items()),
    )
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv")
    add_resampling_arguments(parser, "the review's resamples")
    add_relevance_level_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="do not print notes on stderr")
    add_ranking_arguments(parser)
    add_score_order_argument(parser)
    add_label_arguments(parser)
    return parser


# --------------------------------------------------------------------------- reading


def _read(args: argparse.Namespace) -> tuple[LabelSources, pd.DataFrame | None, list[str]]:
    """The label sources, the run (``None`` without one) and the notes on how the files were
    read.

    Raises
    ------
    InputError
        For unusable files, fewer than two sources, or names that do not fit.
    """
    label_map = label_map_of(args)
    names = args.name or None
    if args.label_columns:
        table = load_table(args.files[0], Path(args.files[0]).name)
        sources = sources_from_columns(table, args.label_columns, names, label_map=label_map)
        run_paths = list(args.files[1:])
        own_run = None if run_paths else run_from_table(table, args.label_columns)
        read = [f"{table.name}: label columns {', '.join(args.label_columns)}"]
    else:
        tables = [load_table(path, Path(path).name) for path in args.files]
        judged = [t for t in tables if is_judgments(t)]
        run_paths = [path for path, t in zip(args.files, tables) if not is_judgments(t)]
        sources = sources_from_judgments(judged, names, label_map=label_map)
        own_run = None
        named = (f"{name} ({table.name})" for name, table in zip(sources.names, judged))
        read = [f"label sources: {', '.join(named)}"]
    if len(sources.names) < 2:
        raise InputError(
            f"Comparing label sources needs at least two; found {len(sources.names)} "
            f"({'; '.join(read)}).",
            fix="Give two or more judgment files, or one table with --label-column for each "
            "source.",
        )
    if run_paths:
        read.append(f"runs: {', '.join(Path(p).name for p in run_paths)}")
        return sources, _runs(run_paths, sources, label_map), read
    if own_run is not None:
        read.append(f"runs: the rows of {Path(args.files[0]).name} with a score")
    return sources, own_run, read


def _runs(
    paths: list[str], sources: LabelSources, label_map: dict[str, float] | None
) -> pd.DataFrame:
    """The runs of ``paths`` as one run table, read and checked against every pair a source
    judged."""
    judged = sources.table[[S.QUERY, S.ITEM]].assign(
        **{S.RELEVANCE: aggregate_grades(sources.grades(), "max")}
    )
    every_pair = LoadedTable("label sources", judged.dropna(), "table")
    data = load_dataset(paths, every_pair, name=Path(paths[0]).name, label_map=label_map)
    return data.run


# --------------------------------------------------------------------------- writing


def _tables(study: LabelStudy, top: int) -> dict[str, pd.DataFrame]:
    agreement, result = study.agreement, study.consequence
    out = {
        "sources": study.summary,
        "agreement": agreement.pairs,
        "overall": agreement.overall,
        "confusion": agreement.confusion,
        "items": agreement.items.head(top),
        "queries": agreement.queries.head(top),
    }
    if result is not None:
        out |= {
            "means": result.means,
            "correlations": result.correlations,
            "swaps": result.swaps,
            "judged": result.judged,
            "verdicts": result.verdicts,
        }
    return out


def _cell(value: Any) -> str:
    """One TSV cell: numbers with 6 significant digits, ``nan``, ``true``/``false``, text with
    tabs and line ends escaped."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return "nan" if math.isnan(value) else f"{float(value):.6g}"
    return tsv_escaped_text(str(value))


def write_tsv(tables: dict[str, pd.DataFrame], out: TextIO) -> None:
    """Each table as a block: ``# NAME``, the header row, the rows; blocks apart by an empty
    line."""
    for i, (name, table) in enumerate(tables.items()):
        if i:
            out.write("\n")
        out.write(f"# {name}\n")
        out.write("\t".join(_cell(c) for c in table.columns) + "\n")
        for row in table.itertuples(index=False):
            out.write("\t".join(_cell(v) for v in row) + "\n")


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return _json_value(value.item())
    return value


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): _json_value(v) for k, v in row.items()} for row in table.to_dict("records")]


def write_json(
    tables: dict[str, pd.DataFrame], study: LabelStudy, args: argparse.Namespace, out: TextIO
) -> None:
    """The tables as lists of records (``NaN`` as ``null``), the warnings and the options."""
    document = {
        "files": list(args.files),
        "sources": list(study.sources.names),
        "categories": list(study.agreement.categories),
        "warnings": [
            {"code": f.code, "source": f.source, "message": f.message, "fix": f.action}
            for f in study.findings
        ],
        "options": {
            "measures": list(args.measures or DEFAULT_COMPARE_MEASURES),
            "judged_k": args.judged_k,
            "aggregate": args.aggregate,
            "resamples": args.resamples,
            "seed": args.seed,
            "relevance_level": args.relevance_level,
            "top": args.top,
        },
        "tables": {name: _records(table) for name, table in tables.items()},
    }
    json.dump(document, out, indent=2)
    out.write("\n")


def _summary_lines(study: LabelStudy) -> list[str]:
    """``agreement:``, ``ordering:`` and ``flip:`` lines for stderr."""
    lines = []
    for row in study.agreement.pairs.to_dict("records"):
        kappa = (
            f"kappa {row['kappa']:.3f} (linear {row['kappa_linear']:.3f}, quadratic "
            f"{row['kappa_quadratic']:.3f})"
            if not row["reason"]
            else f"kappa undefined: {reason_text(row['reason'])}"
        )
        lines.append(
            f"agreement: {row['source_a']} vs {row['source_b']}: {row['n']} items judged by "
            f"both, {row['agreement']:.3f} agree, {kappa}"
        )
    result = study.consequence
    if result is None:
        return lines
    for row in result.correlations.to_dict("records"):
        head = f"ordering: {row['measure']}: {row['source_a']} vs {row['source_b']}: "
        if row["reason"]:
            lines.append(head + f"tau undefined: {reason_text(row['reason'])}")
            continue
        swaps = result.swaps[
            (result.swaps["measure"] == row["measure"])
            & (result.swaps["source_a"] == row["source_a"])
            & (result.swaps["source_b"] == row["source_b"])
        ]
        named = ", ".join(f"{a}/{b}" for a, b in zip(swaps["model_ahead"], swaps["model_behind"]))
        lines.append(
            head
            + f"tau_b {row['tau_b']:.3f}, tau_AP {row['tau_ap']:.3f}, "
            + (f"swapped: {named}" if named else "no swapped pair")
        )
    flips = result.flips
    for (candidate, measure), part in flips.groupby(["candidate", "measure"], sort=False):
        verdicts = ", ".join(f"{v} under {s}" for s, v in zip(part["source"], part["verdict"]))
        lines.append(f"flip: {candidate} vs {part['reference'].iloc[0]} on {measure}: {verdicts}")
    return lines


# --------------------------------------------------------------------------- main


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Read, study and print; returns the exit status."""
    if args.top < 0:
        raise MetricsError(f"--top must be 0 or more, got {args.top}.")
    sources, frame, read = _read(args)
    needs_runs = [t for t in args.tables if t in RUN_TABLES]
    if frame is None and needs_runs:
        raise MetricsError(
            f"--table {needs_runs[0]} needs runs: give run files after the judgment files."
        )
    settings = Settings(
        relevance_level=args.relevance_level,
        **ranking_options(args),
        **score_order_settings(args),
        **label_options(args),
    )
    study = study_labels(
        sources,
        frame,
        args.measures,
        settings,
        k=args.judged_k,
        baseline=args.baseline,
        candidates=args.candidate,
        options=CompareOptions(resamples=args.resamples, seed=args.seed),
        aggregate=args.aggregate,
    )
    tables = _tables(study, args.top)
    chosen = {name: tables[name] for name in args.tables or tables}
    if not args.quiet:
        warnings = [finding_text(f) for f in study.findings]
        write_findings([f"read as {line}." for line in read], warnings, err)
        for line in _summary_lines(study):
            err.write(line + "\n")
    if args.format == "json":
        write_json(chosen, study, args, out)
    else:
        write_tsv(chosen, out)
    return 0


def main(
    argv: list[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Entry point of ``python -m metrics labels``; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        return run(args, out, err)
    except BrokenPipeError:  # the reader has gone away (``| head``)
        return 0
    except (MetricsError, ValueError) as exc:
        print(error_line(exc), file=err)
        return 2
    except OSError as exc:
        print(error_line(f"{exc.filename or 'input'}: cannot read ({exc.strerror})."), file=err)
        return 2


__all__ = ["RUN_TABLES", "TABLES", "build_parser", "main", "write_tsv"]
