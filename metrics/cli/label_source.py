"""``--label-source`` and ``--label-column``: judgments from several label sources, for
``python -m metrics`` and ``python -m metrics compare``.

The label sources are several label columns of the judgments table (or of the one table that
holds its labels beside the scores), named by ``--label-column``, or several judgment files:
with ``--label-source``, every file after the first that holds judgments (a TREC qrels file, or
a table with neither a score nor a rank column) is one more source, named after the file. The
judgments evaluated are those of ``--label-source`` (the ``label_source`` policy,
:data:`~metrics.engine.settings.POLICIES`): a source's name, or an aggregate of all of them
(``majority``, ``mean``, ``median``, ``max``, ``min``); the first source without it. The chosen
source is recorded with the settings (``label_source`` of the JSON outputs).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metrics.engine.settings import LABEL_AGGREGATES, POLICIES
from metrics.errors import InputError

if TYPE_CHECKING:  # imported on use: TREC files are evaluated without pandas
    from metrics.io.formats import LoadedTable


def add_label_source_arguments(p: argparse.ArgumentParser) -> None:
    """``--label-source`` and ``--label-column`` (shared with ``compare``)."""
    policy = POLICIES["label_source"]
    p.add_argument(
        "--label-source",
        default=None,
        metavar="NAME",
        help=f"{policy.help} NAME is a source's name (a --label-column, or a judgment file's "
        "name without its extensions) or an aggregate: "
        + "; ".join(f"{name}: {policy.values[name]}" for name in LABEL_AGGREGATES)
        + " (default: the first source). With it, every file after the first that holds "
        "judgments is one more label source",
    )
    p.add_argument(
        "--label-column",
        action="append",
        dest="label_columns",
        default=[],
        metavar="COLUMN",
        help="a label column of the judgments table (or of the one table holding its labels), "
        "one per label source (repeatable); --label-source chooses among them",
    )


def several_sources(args: argparse.Namespace) -> bool:
    """Whether the command line names label sources (``--label-source`` or
    ``--label-column``)."""
    return bool(getattr(args, "label_columns", None)) or (
        getattr(args, "label_source", None) is not None
    )


def local_only(args: argparse.Namespace, spark: bool) -> None:
    """Refuse label sources under ``--engine spark``.

    Raises
    ------
    InputError
        When ``spark`` and the command line names label sources.
    """
    if spark and several_sources(args):
        raise InputError(
            "--label-source and --label-column are read by the local engine only.",
            fix="Give the judgments of one source, or leave out --engine spark.",
        )


def label_source_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``label_source`` setting of ``--label-source`` (empty when not given)."""
    value = getattr(args, "label_source", None)
    return {} if value is None else {"label_source": value}


@dataclass
class ChosenJudgments:
    """The judgments of the chosen label source and the runs, as tables to load.

    Attributes
    ----------
    judgments:
        The chosen source's (or aggregate's) judgments: ``query``, ``item``, ``relevance``.
    runs:
        The run tables.
    run_paths:
        The files the runs were read from (the one labelled table, when the runs are its rows).
    notes, warnings:
        How the files were read (the sources, the one chosen) and the warnings on the sources
        (one that mixes human and machine labels).
    """

    judgments: LoadedTable
    runs: list[LoadedTable]
    run_paths: list[str]
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def chosen_judgments(
    qrels_path: str | None,
    run_paths: list[str],
    choice: str | None,
    label_columns: list[str],
    label_map: Mapping[str, float] | None = None,
) -> ChosenJudgments:
    """Read the label sources of ``QRELS RUN ...`` and keep the judgments of ``choice``.

    With ``label_columns``, the sources are those columns of the judgments table (of the one
    labelled table when ``qrels_path`` is ``None``, whose rows with a score are then the run);
    without, the judgments file and every run file that holds judgments.

    Raises
    ------
    InputError
        For unusable files (naming the file and line), a missing label column, or no run left.
    SettingsError
        For a ``choice`` that is neither a source nor an aggregate (naming both).
    """
    # deferred: label sources are tables read with pandas (TREC files are evaluated without)
    from metrics.io.formats import LoadedTable, load_table
    from metrics.io.reading_notes import finding_text
    from metrics.labels.sources import (
        is_judgments,
        run_from_table,
        sources_from_columns,
        sources_from_judgments,
    )

    if label_columns:
        first = qrels_path or run_paths[0]
        table = load_table(first, Path(first).name)
        sources = sources_from_columns(table, label_columns, label_map=label_map)
        if qrels_path is None:
            own = run_from_table(table, label_columns)
            if own is None:
                raise InputError(
                    "the table has neither a score nor a rank column beside its label columns.",
                    source=table.name,
                    fix="Give the runs after it: python -m metrics TABLE RUN --label-column ...",
                )
            runs, paths = [LoadedTable(table.name, own, "table")], [first]
        else:
            paths = list(run_paths)
            runs = [load_table(path, Path(path).name, kind="run") for path in paths]
        read = f"{table.name}: label columns {', '.join(label_columns)}"
    else:
        if qrels_path is None:
            raise InputError(
                "--label-source needs label sources: judgment files, or label columns.",
                fix="Give the judgment files first (QRELS QRELS ... RUN ...), or name the label "
                "columns of the table with --label-column.",
            )
        tables = [load_table(path, Path(path).name) for path in [qrels_path, *run_paths]]
        judged = [tables[0], *(t for t in tables[1:] if is_judgments(t))]
        pairs = list(zip([qrels_path, *run_paths], tables))[1:]
        runs = [t for _, t in pairs if not is_judgments(t)]
        paths = [path for path, t in pairs if not is_judgments(t)]
        if not runs:
            raise InputError(
                "every file after the first holds judgments; there is no run to evaluate.",
                fix="Give the run files after the judgment files.",
            )
        sources = sources_from_judgments(judged, label_map=label_map)
        named = (f"{name} ({t.name})" for name, t in zip(sources.names, judged))
        read = f"label sources: {', '.join(named)}"
    sources.check_choice(choice)
    chosen = sources.names[0] if choice is None else choice
    judgments = LoadedTable(f"label source {chosen}", sources.chosen(choice), "table")
    return ChosenJudgments(
        judgments,
        runs,
        paths,
        [f"read as {read}; the judgments are those of {chosen} (--label-source)."],
        [finding_text(f) for f in sources.findings],
    )


__all__ = [
    "ChosenJudgments",
    "add_label_source_arguments",
    "chosen_judgments",
    "label_source_options",
    "several_sources",
]
