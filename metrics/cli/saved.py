"""``python -m metrics save`` and ``python -m metrics history``: versions kept in the store.

Usage::

    python -m metrics save RUN [RUN ...] --project P --version V [--qrels QRELS]
        [--queries QUERIES] [--accept] [--note TEXT] [--date DATE] [ranking options]
    python -m metrics save --project P --version V --accept
    python -m metrics history P [--format tsv|json] [-m MEASURE]... [--resamples N] [--seed N]

``save`` reads the runs and judgments as ``python -m metrics`` does (a run with a label column
carries its judgments) and keeps them in the store (:mod:`metrics.store`: the data folder of
``RANKING_METRICS_HOME``, the catalog there or in ``RANKING_METRICS_DB``) as a version of the
project, with the settings of its options and the hash of its judgments; without RUN,
``--accept`` marks a saved version accepted. ``history`` prints the lead measure of every
version (:func:`metrics.store.history.history`: the numbers of the History page), oldest first,
with its interval and the last accepted version marked.

``python -m metrics compare --against accepted|VERSION --project P QRELS RUN`` compares a run
with a saved version (:func:`against_table` reads it).

Exit status: 0 on success, 2 on unusable input or a refusal of the store (one ``error:`` line).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

import pandas as pd

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
from metrics.cli.review_arguments import add_confidence_argument, add_resampling_arguments
from metrics.engine.settings import Settings
from metrics.errors import MetricsError, SettingsError
from metrics.io.formats import LoadedTable
from metrics.io.loaders import load_dataset, load_table
from metrics.io.reading_notes import health_notes, health_warnings
from metrics.review.statistics import (
    check_resamples,
)
from metrics.store import (
    DEFAULT_LEAD_MEASURE,
    HISTORY_COLUMNS,
    RunInfo,
    accept,
    history,
    load_run,
    open_store,
    save_run,
)
from metrics.store.history import labelled_run

EXIT_USAGE = 2
#: The columns of ``history``'s TSV output that hold numbers.
_NUMBERS = ("mean", "ci_low", "ci_high")


def build_save_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m metrics save``."""
    parser = ArgumentParser(
        prog="python -m metrics save",
        description="Save a run with its judgments in the store as a version of a project.",
    )
    parser.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="run files (one model each, or one file with a model column); none with --accept "
        "to mark a saved version accepted",
    )
    parser.add_argument("--project", required=True, help="the project, such as search-ranking")
    parser.add_argument("--version", required=True, help="the version, such as v12")
    parser.add_argument("--qrels", metavar="QRELS", help="judgments file (TREC qrels or a table)")
    parser.add_argument("--queries", metavar="QUERIES", help="query table with segment columns")
    parser.add_argument(
        "--accept", action="store_true", help="mark the version accepted (the baseline)"
    )
    parser.add_argument("--note", default="", help="a note kept with the version")
    parser.add_argument(
        "--date",
        type=_date,
        metavar="DATE",
        help="the version's date, as 2025-03-31 or 2025-03-31T14:00:00 in UTC (default: now)",
    )
    add_relevance_level_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="do not print warnings on stderr")
    add_ranking_arguments(parser)
    add_score_order_argument(parser)
    add_label_arguments(parser)
    return parser


def build_history_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m metrics history``."""
    parser = ArgumentParser(
        prog="python -m metrics history",
        description="The lead measure of every saved version of a project, with its interval.",
    )
    parser.add_argument("project", help="the project")
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv")
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"measure (repeatable; default {DEFAULT_LEAD_MEASURE})",
    )
    add_resampling_arguments(parser, "bootstrap resamples of the interval")
    add_confidence_argument(parser, "interval level")
    return parser


def _date(text: str) -> float:
    """A ``--date`` value as seconds since 1970 (UTC unless it names its offset)."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date; give 2025-03-31 or 2025-03-31T14:00:00"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def _parse(
    parser: argparse.ArgumentParser, argv: list[str], out: TextIO, err: TextIO
) -> argparse.Namespace | int:
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def _saved_line(info: RunInfo, accepted: bool) -> str:
    models = ", ".join(info.models)
    return (
        f"saved {info.label}: {len(info.models)} model{'s' if len(info.models) != 1 else ''} "
        f"({models}), {info.queries:,} queries, judgments {info.judgments_hash[:12]}"
        + ("; accepted" if accepted else "")
    )


def save(argv: list[str], out: TextIO, err: TextIO) -> int:
    """``python -m metrics save``; returns the exit status."""
    args = _parse(build_save_parser(), argv, out, err)
    if isinstance(args, int):
        return args
    try:
        if not args.runs:
            if not args.accept:
                raise SettingsError(
                    "give the RUN files to save, or --accept alone to mark a saved version "
                    "accepted."
                )
            with open_store() as store:
                info = accept(store, args.project, args.version)
            out.write(f"accepted {info.label}\n")
            return 0
        settings = Settings(
            relevance_level=args.relevance_level,
            **ranking_options(args),
            **score_order_settings(args),
            **label_options(args),
        )
        data = load_dataset(
            [load_table(path, Path(path).name) for path in args.runs],
            load_table(args.qrels, Path(args.qrels).name) if args.qrels else None,
            load_table(args.queries, Path(args.queries).name) if args.queries else None,
            name=", ".join(Path(p).name for p in args.runs),
            relevance_level=args.relevance_level,
            settings=settings,
            label_map=label_map_of(args),
        )
        if not args.quiet:
            write_findings(health_notes(data.health), health_warnings(data.health), err)
        with open_store() as store:
            info = save_run(
                store,
                args.project,
                args.version,
                data,
                settings=settings,
                accept=args.accept,
                note=args.note,
                saved=args.date,
            )
    except MetricsError as exc:
        err.write(error_line(exc) + "\n")
        return EXIT_USAGE
    except OSError as exc:
        err.write(error_line(f"{exc.filename or 'input'}: cannot read ({exc.strerror}).") + "\n")
        return EXIT_USAGE
    out.write(_saved_line(info, args.accept) + "\n")
    return 0


def _cell(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(str(value).split())  # a note on one line, without tabs


def _json_value(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value.item() if hasattr(value, "item") else value


def write_history(table: pd.DataFrame, args: argparse.Namespace, out: TextIO) -> None:
    """The history table as TSV (the judgments hash to 12 digits) or JSON (full precision)."""
    records = [
        {column: _json_value(row[column]) for column in HISTORY_COLUMNS}
        for row in table.to_dict("records")
    ]
    if args.format == "json":
        accepted = [r["version"] for r in records if r["accepted"]]
        document = {
            "project": args.project,
            "measures": list(dict.fromkeys(table["measure"])),
            "resamples": args.resamples,
            "seed": args.seed,
            "confidence": args.confidence,
            "accepted": accepted[0] if accepted else None,
            "history": records,
        }
        json.dump(document, out, indent=2)
        out.write("\n")
        return
    out.write("\t".join(HISTORY_COLUMNS) + "\n")
    for record in records:
        record["judgments_hash"] = str(record["judgments_hash"])[:12]
        out.write("\t".join(_cell(record[c]) for c in HISTORY_COLUMNS) + "\n")


def history_command(argv: list[str], out: TextIO, err: TextIO) -> int:
    """``python -m metrics history``; returns the exit status."""
    args = _parse(build_history_parser(), argv, out, err)
    if isinstance(args, int):
        return args
    try:
        check_resamples(args.resamples, "--resamples")
        if not 0 < args.confidence < 1:
            raise SettingsError("--confidence must be between 0 and 1 (e.g. 0.95).")
        with open_store() as store:
            table = history(
                store,
                args.project,
                args.measures or [DEFAULT_LEAD_MEASURE],
                resamples=args.resamples,
                seed=args.seed,
                confidence=args.confidence,
            )
    except MetricsError as exc:
        err.write(error_line(exc) + "\n")
        return EXIT_USAGE
    with contextlib.suppress(BrokenPipeError):  # the reader has gone away (``| head``)
        write_history(table, args, out)
    return 0


def against_table(project: str, version: str) -> tuple[LoadedTable, RunInfo]:
    """The run of a saved version (``accepted``: the project's last accepted one) as a table
    to compare, its models named by :func:`metrics.store.history.saved_label`, and its facts.

    Raises
    ------
    MetricsError
        For an unknown project or version, or a store that cannot be opened.
    """
    with open_store() as store:
        saved = load_run(store, project, version)
    name = f"{project} {saved.info.version} (saved)"
    return LoadedTable(name, labelled_run(saved), "parquet", first_line=None), saved.info


def main(
    argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """``python -m metrics save|history ...`` (the subcommand first)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command, rest = (argv[0], argv[1:]) if argv else ("", [])
    if command == "history":
        return history_command(rest, out or sys.stdout, err or sys.stderr)
    return save(rest, out or sys.stdout, err or sys.stderr)


__all__ = [
    "against_table",
    "build_history_parser",
    "build_save_parser",
    "history_command",
    "main",
    "save",
    "write_history",
]
