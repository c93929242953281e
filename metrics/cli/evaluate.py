"""Command line: ``python -m metrics QRELS RUN [RUN ...] [-m MEASURE]... [-q]``.

Output follows ``trec_eval -q``: ``MEASURE<TAB>QUERY<TAB>VALUE`` per query (with ``-q``) and the
mean under the query ``all``. TREC files are read by :mod:`metrics.io.trec` as trec_eval reads
them (pyarrow only, no pandas); other tables (CSV, TSV, Parquet, JSON, Excel) go through
:mod:`metrics.io.loaders`. Unusable input prints one message naming the file and line and exits
with status 2.

Examples
--------
``python -m metrics qrels.txt bm25.run -m P@10 -m nDCG@10 -q``
``python -m metrics qrels.txt bm25.run --names trec -m P_10 -m map``   (diffable with trec_eval)
``python -m metrics qrels.txt bm25.run --curves 100``   (P, R, nDCG, AP at K = 1..100, and RR)
``python -m metrics table.csv``   (one table with a label column: the runs and their judgments)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np
import pyarrow as pa

from metrics.cli.arguments import (
    QRELS_HELP,
    ArgumentParser,
    add_averaging_argument,
    add_engine_arguments,
    add_label_arguments,
    add_ranking_arguments,
    add_relevance_level_argument,
    add_score_order_argument,
    judgments_and_runs,
    label_map_of,
    label_options,
    one_table_locally,
    ranking_options,
    score_order_settings,
)
from metrics.cli.label_source import (
    add_label_source_arguments,
    chosen_judgments,
    label_source_options,
    local_only,
    several_sources,
)
from metrics.cli.messages import error_line, write_findings
from metrics.cli.output import (
    TREC_NAME_WIDTH,
    check_per_query_path,
    write_csv,
    write_json,
    write_per_query,
    write_tsv,
)
from metrics.engine import arrow_calls
from metrics.engine.averaging import average, plain_means
from metrics.engine.profiles import PROFILE_NAMES, profile_settings
from metrics.engine.profiles import PROFILES as TOOL_PROFILES
from metrics.engine.ranking import RankedLists, rank_lists
from metrics.engine.registry import (
    DEFAULT_MEASURES,
    MAX_RANGE_K,
    MEASURES,
    MeasureSpec,
    deepest_cutoff,
    expand_measure_names,
    parse_measures,
)
from metrics.engine.results import QueryIds, Results, compute_matrix
from metrics.engine.settings import Settings, check_model_orders
from metrics.errors import InputError, MeasureError, MetricsError
from metrics.io.direction import agreements, rank_disagreements
from metrics.io.reading_notes import (
    finding_text,
    health_warnings,
    judgments_warnings,
    label_warnings,
    lists_notes,
    notes_warnings,
)
from metrics.io.source import check_file

if TYPE_CHECKING:  # imported on use: TREC files are evaluated without pandas
    from metrics.cli.blocks import BlockResult
    from metrics.io.formats import LoadedTable

EXIT_OK, EXIT_USAGE = 0, 2
#: Largest K of ``--curves`` (the same bound as a cutoff range such as ``P@1..1000``).
MAX_CURVE_K = MAX_RANGE_K
#: Largest single cutoff (``P@100000``).
MAX_CUTOFF = 100_000


# ====================================================================== measures
def curve_measure_names(k_max: int) -> list[str]:
    """Every curve measure (P, R, AP, nDCG) at K = 1..k_max, then RR."""
    names = [f"{d.name}@1..{k_max}" for d in MEASURES.values() if d.curve_default]
    return expand_measure_names(names) + ["RR"]


def mean_values(
    lists: RankedLists | None, specs: list[MeasureSpec], values: np.ndarray, settings: Settings
) -> np.ndarray:
    """One value per spec under the averaging policy (``NaN`` = left out): the mean over
    queries, pooled counts under micro averaging, sums for counts, geometric means for gm_*."""
    means = plain_means(specs, values, settings)
    if means is not None:
        return means
    return np.array([average(spec, values[:, j], settings, lists) for j, spec in enumerate(specs)])


# ====================================================================== inputs
@dataclass
class Inputs:
    """Ranked lists per model, and the warnings and notes found while reading them."""

    lists: dict[str, RankedLists]
    warnings: list[str]
    notes: list[str] = dataclass_field(default_factory=list)


def load_inputs(
    qrels_path: str | None,
    run_paths: list[str],
    settings: Settings,
    k_max: int,
    label_map: Mapping[str, float] | None = None,
) -> Inputs:
    """Read judgments and runs and rank every model's lists.

    TREC files are read by :mod:`metrics.io.trec` (no pandas; both files on two threads);
    anything else by :func:`metrics.io.loaders.load_dataset`. Notes of the TREC reader (text
    after the last field, comment lines) are returned with the warnings.

    Without ``qrels_path``, the one run table holds the judgments as a label column.

    Raises
    ------
    MetricsError
        For unreadable files or values, naming the file and line.
    """
    from concurrent.futures import ThreadPoolExecutor

    if qrels_path is None:  # one table holding its labels
        check_file(run_paths[0])
        return _load_tables(None, run_paths, settings, k_max, label_map)

    # deferred: the whole-file TREC reader loads pyarrow.csv
    from metrics.io.trec import read_trec

    for path in [qrels_path, *run_paths]:
        check_file(path)  # regular files only, within the byte budget, no NUL bytes

    with ThreadPoolExecutor(max_workers=2) as pool:  # arrow's readers release the GIL
        qrels, *runs = pool.map(read_trec, [qrels_path, *run_paths])
    notes = [
        f"{Path(path).name}: {note}"
        for path, columns in zip([qrels_path, *run_paths], [qrels, *runs])
        if columns is not None
        for note in columns.notes()
    ]
    ready = [run for run in runs if run is not None]
    if qrels is not None and len(ready) == len(runs):
        if qrels.kind != "qrels":
            raise InputError(
                "this looks like a TREC run (6 fields), not judgments.",
                source=Path(qrels_path).name,
                line=1,
                fix="give the judgments first: python -m metrics QRELS RUN.",
            )
        lists: dict[str, RankedLists] = {}
        warnings = label_warnings(
            qrels.query, qrels.item, qrels.value, Path(qrels_path).name, settings
        )
        for path, run in zip(run_paths, ready):
            name = Path(path).name
            if run.kind != "run":
                raise InputError(
                    "this looks like TREC judgments (4 fields), not a run.",
                    source=name,
                    line=1,
                    fix="give the run after the judgments: python -m metrics QRELS RUN.",
                )
            model = _model_name(path, lists)
            ranked = rank_lists(
                run.query,
                run.item,
                run.value,
                qrels.query,
                qrels.item,
                qrels.value,
                settings.for_model(model),
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
            lists[model] = ranked
            if len(lists) == 1:  # the judgments' repeats, noted once
                warnings += judgments_warnings(ranked.notes, Path(qrels_path).name)
            warnings += ranking_warnings(ranked, name, settings)
            warnings += rank_order_warnings(model, run.query, run.rank, run.value, name, settings)
        return Inputs(lists, warnings, notes)
    inputs = _load_tables(qrels_path, run_paths, settings, k_max, label_map)
    inputs.notes = notes + inputs.notes
    return inputs


_RUN_EXTENSIONS = (".gz", ".txt", ".run", ".res", ".trec", ".tsv", ".csv")


def _model_name(path: str, taken: Mapping[str, object]) -> str:
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


def _load_tables(
    qrels_path: str | None,
    run_paths: list[str],
    settings: Settings,
    k_max: int,
    label_map: Mapping[str, float] | None = None,
) -> Inputs:
    # deferred: tables other than TREC files are read with pandas
    from metrics.io.formats import load_table

    judgments = load_table(qrels_path, Path(qrels_path).name, kind="qrels") if qrels_path else None
    runs = [load_table(p, Path(p).name, kind="run") for p in run_paths]
    return _tables_inputs(judgments, runs, run_paths, settings, k_max, label_map)


def load_sourced_inputs(
    args: argparse.Namespace, settings: Settings, k_max: int, label_map: Mapping[str, float] | None
) -> Inputs:
    """The inputs of ``QRELS RUN ...`` under ``--label-source`` / ``--label-column``: the
    judgments of the chosen label source (:mod:`metrics.cli.label_source`)."""
    found = chosen_judgments(
        args.qrels, args.runs, settings.label_source, args.label_columns, label_map
    )
    inputs = _tables_inputs(found.judgments, found.runs, found.run_paths, settings, k_max)
    inputs.notes = found.notes + inputs.notes
    inputs.warnings = found.warnings + inputs.warnings
    return inputs


def _tables_inputs(
    judgments: LoadedTable | None,
    runs: list[LoadedTable],
    run_paths: list[str],
    settings: Settings,
    k_max: int,
    label_map: Mapping[str, float] | None = None,
) -> Inputs:
    # deferred: tables other than TREC files are read with pandas
    from metrics.engine.evaluation import rank_run
    from metrics.io.loaders import load_dataset

    data = load_dataset(
        runs,
        judgments,
        k_max=k_max,
        relevance_level=settings.relevance_level,
        settings=settings,
        label_map=label_map,
    )
    lists = rank_run(
        data.run, data.qrels, settings, source=", ".join(Path(p).name for p in run_paths)
    )
    labels = [finding_text(f) for f in data.health.findings if f.code == "text_labels"]
    notes = labels + lists_notes(data, run_paths)  # the TREC reader's notes are already taken
    return Inputs(lists, health_warnings(data.health), notes)


def ranking_warnings(ranked: RankedLists, source: str, settings: Settings) -> list[str]:
    """Plain-English warnings from what :func:`~metrics.engine.ranking.rank_lists` reported."""
    return notes_warnings(ranked.notes, source, settings)


def rank_order_warnings(
    model: str,
    query: pa.ChunkedArray,
    rank: np.ndarray | None,
    score: np.ndarray,
    source: str,
    settings: Settings,
) -> list[str]:
    """The warning that one model's scores go with its ranks the other way from the score
    order it is ranked by (:mod:`metrics.io.direction`), as the validation words it."""
    if rank is None or not len(score):
        return []
    indices = arrow_calls.dictionary_encode(query).combine_chunks().indices  # int32, no nulls
    codes = np.frombuffer(indices.buffers()[1], dtype=np.int32)
    codes = codes[indices.offset : indices.offset + len(indices)]
    found = agreements(np.zeros(len(codes), dtype=np.int64), codes, rank, score).get(0)
    if found is None:
        return []
    return [f"{source}: {d.message}" for d in rank_disagreements({model: found}, settings)]


# ====================================================================== output
def display_names(specs: list[MeasureSpec], style: str) -> list[str]:
    """Measure names as printed: ours (``P@10``) or trec_eval's (``P_10``), padded like it."""
    if style == "ours":
        return [s.name for s in specs]
    return [(s.trec_eval_name or s.name).ljust(TREC_NAME_WIDTH) for s in specs]


# ====================================================================== arguments and main
def build_parser() -> argparse.ArgumentParser:
    """The argument parser (its help lists every policy and its values)."""
    p = ArgumentParser(
        prog="python -m metrics",
        description="Evaluate ranked lists against relevance judgments, like trec_eval. "
        "Reads TREC qrels (qid iter docid rel) and runs (qid Q0 docid rank score "
        "tag), or CSV/TSV/Parquet/JSON/Excel tables with a header. "
        "Subcommand: 'python -m metrics compare ...' compares models.",
        epilog="Measures: " + ", ".join(MEASURES) + ". Write them as P@10, nDCG@10, RR, AP, "
        "or trec_eval's P_10, ndcg_cut_10, recip_rank, map; ranges as P@1..100.",
    )
    p.add_argument("qrels", metavar="QRELS", help=QRELS_HELP)
    p.add_argument("runs", metavar="RUN", nargs="*", help="run file(s); one model per file")
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
    add_relevance_level_argument(p, default=1.0)
    add_ranking_arguments(p)
    add_score_order_argument(p)
    add_label_arguments(p)
    add_label_source_arguments(p)
    add_averaging_argument(p)
    p.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default="trec_eval9",
        metavar="PROFILE",
        help="whose convention to reproduce: trec_eval9 (9.0.8, as pytrec_eval; default), "
        "trec_eval10 (10.0: scores ordered in double precision, recall levels rounded with "
        "lround), or a tool's: " + ", ".join(TOOL_PROFILES) + " (lightgbm: gain 2^l − 1, "
        "ties in input order, a query without relevant items has nDCG 1); flags given "
        "explicitly win over the profile",
    )
    add_engine_arguments(p)
    return p


def settings_from(args: argparse.Namespace) -> Settings:
    """The :class:`Settings` chosen on the command line."""
    level = args.relevance_level
    return profile_settings(
        args.profile,
        relevance_level=int(level) if float(level).is_integer() else level,
        averaging=args.averaging,
        **ranking_options(args),
        **score_order_settings(args),
        **label_options(args),
        **label_source_options(args),
    )


def requested_measures(names: list[str], curves: int | None) -> list[MeasureSpec]:
    """The measures of ``-m`` (ranges expanded) and ``--curves``, or the default set; a cutoff
    above :data:`MAX_CUTOFF` is refused."""
    names = list(names) + (curve_measure_names(curves) if curves else [])
    specs = parse_measures(names or list(DEFAULT_MEASURES))
    too_deep = [spec for spec in specs if spec.k is not None and spec.k > MAX_CUTOFF]
    if too_deep:
        raise MeasureError(
            f"{too_deep[0].name!r}: the cutoff K is at most {MAX_CUTOFF:,} "
            f"(asked for {too_deep[0].k:,})."
        )
    return specs


def compute_results(
    args: argparse.Namespace,
    specs: list[MeasureSpec],
    settings: Settings,
    k_max: int,
    err: TextIO,
) -> Results:
    """Per model: lists (or query ids), per-query values and means, by the chosen engine."""
    results = Results(
        [s.name for s in specs], settings, counts=[s.aggregate == "sum" for s in specs]
    )
    label_map = label_map_of(args)
    if getattr(args, "engine", "local") == "spark":
        # deferred: only --engine spark needs the Spark engine (pyspark, its worker checks)
        from metrics.spark import spark_report

        one_table_locally(args.qrels)
        local_only(args, spark=True)
        if label_map is not None:
            raise InputError(
                "--label-map is read by the local engine only.",
                fix="Give the judgments numeric labels, or leave out --engine spark.",
            )

        found, notes, warnings = spark_report(
            args.qrels, args.runs, specs, settings, args.master, findings=not args.quiet
        )
        check_model_orders(settings, list(found))
        write_findings(notes, warnings, err)
        results.models.update(found)
        return results
    sourced = several_sources(args)
    if sourced:  # read whole: refused past the limit
        _kept_whole(args.qrels, args.runs)
    blocks = None if sourced else _in_blocks(args.qrels, args.runs, specs, settings, label_map)
    if blocks is not None:
        notes, warnings, models = blocks
        if not args.quiet:
            write_findings(notes, warnings, err)
        for model, block in models.items():
            means = mean_values(None, specs, block.values, settings)
            results.models[model] = (QueryIds(block.query_ids), block.values, means)
        return results
    inputs = (
        load_sourced_inputs(args, settings, k_max, label_map)
        if sourced
        else load_inputs(args.qrels, args.runs, settings, k_max, label_map)
    )
    check_model_orders(settings, list(inputs.lists))
    if not args.quiet:
        write_findings(inputs.notes, inputs.warnings, err)
    for model, lists in inputs.lists.items():
        values = compute_matrix(lists, specs)
        results.models[model] = (lists, values, mean_values(lists, specs, values, settings))
    return results


def _in_blocks(
    qrels_path: str | None,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    label_map: Mapping[str, float] | None = None,
) -> tuple[list[str], list[str], dict[str, BlockResult]] | None:
    """Notes, warnings and per model the values of the runs evaluated block by block (TREC runs
    and large tables alike, label words read by ``label_map``:
    :func:`metrics.cli.blocks.in_blocks`); ``None`` when the files are to be read whole
    instead."""
    # deferred: the block reader loads pyarrow.csv
    from metrics.cli.blocks import in_blocks

    return in_blocks(qrels_path, run_paths, specs, settings, _model_name, label_map)


def _kept_whole(qrels_path: str | None, run_paths: list[str]) -> None:
    """Refuse the files that ``--label-source`` / ``--label-column`` have read whole when they
    are past the limit on tables read whole (:func:`metrics.cli.blocks.refuse_whole_reading`)."""
    # deferred: the block reader loads pyarrow.csv
    from metrics.cli.blocks import LABEL_SOURCES_WHOLE, refuse_whole_reading

    refuse_whole_reading([qrels_path, *run_paths], LABEL_SOURCES_WHOLE)


def run(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Evaluate as the parsed arguments say and write the results."""
    args.qrels, args.runs = judgments_and_runs(args.qrels, args.runs)
    if args.digits < 0 or args.digits > 12:
        raise InputError(f"--digits must be between 0 and 12, got {args.digits}.")
    if args.curves is not None and not 1 <= args.curves <= MAX_CURVE_K:
        raise InputError(
            f"--curves needs a K from 1 to {MAX_CURVE_K:,}, got {args.curves:,}.",
            fix=f"Choose K up to {MAX_CURVE_K:,}, or give single cutoffs with -m P@K.",
        )
    if getattr(args, "per_query_out", None):
        check_per_query_path(args.per_query_out)
    settings = settings_from(args)
    specs = requested_measures(args.measure, args.curves)
    k_max = deepest_cutoff(specs)
    results = compute_results(args, specs, settings, k_max, err)
    if getattr(args, "per_query_out", None):
        # deferred: the per-query table is a pandas frame
        from metrics.io.per_query import results_table

        write_per_query(results_table(results), args.per_query_out)
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
    """``python -m metrics`` without a subcommand; returns the exit status (0 ok, 2 unusable
    input). :func:`metrics.cli.main.main` hands the subcommands to their modules."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    err = err or sys.stderr
    args = build_parser().parse_args(argv)
    try:
        return run(args, out, err)
    except MetricsError as exc:
        err.write(error_line(exc) + "\n")
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
