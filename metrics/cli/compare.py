"""``python -m metrics compare``: is a candidate run better than a baseline, and how sure?

Usage::

    python -m metrics compare QRELS RUN_A RUN_B [RUN_C ...] [-m MEASURE]... [--format tsv|json]
        [--seed N] [--resamples N] [--correction holm|bh|none] [--missing intersection|zero]
        [--test randomization|ttest|wilcoxon] [--alpha A] [--baseline MODEL]
        [--candidate MODEL]... [--queries QUERIES] [--by COLUMN [--by COLUMN]]
        [--family view|measure|all] [--min-effect [MEASURE=]DELTA]... [--power P]
        [--score-order [MODEL=]ORDER]... [--fail-if-worse MEASURE]... [--quiet]
    python -m metrics compare --against accepted|VERSION --project P QRELS RUN [RUN ...] [...]

The first run is the baseline (or ``--baseline``); every other model is a candidate (or those
of ``--candidate``), at most 50 models in all. The warnings on the data (repeated items, queries
without judgments, segments that vary within a query, ...) go to stderr unless ``--quiet``, as in
``python -m metrics``. Files may be TREC runs/qrels or any table
:func:`metrics.io.loaders.load_table` reads. The numbers are the
shared review table of :func:`metrics.review.verdict.review_table` (the app shows the same
numbers for the same choices; the defaults are the app's): one row per comparison — kind
(``baseline`` or ``pairwise``), reference, candidate, measure, segment (``(all)`` or
``country = JP``), n, means, delta, CI, the three raw p-values, the chosen test's ``p_raw``, the
corrected ``p_adjusted`` with ``p_bound`` (true when it is the floor of the resampling test: the
true value is smaller), the correction family, the verdict (better / worse / unclear), the
interval adjusted for the family, the reason when interval and verdict seem to disagree, the size
against the smallest difference that matters (``--min-effect``), the tier of evidence
(confirmed / watch / none) and the power analysis (minimum detectable effect, queries needed).
The decision (:func:`metrics.review.decision.decide`: ship / do not ship / cannot tell yet on the
``--lead`` measure, with the ``--guardrail`` segments) goes to stderr first as ``headline:``
lines; the per-row sentences (:func:`metrics.review.headline.verdict_sentences`) follow as
``verdict:`` lines (both unless ``--quiet``). The JSON output holds both (``headline``,
``recommendations``, ``heterogeneity``, ``verdict``), with the letter groups of the models per
measure.

With ``--against``, the baseline is a version of a project saved in the store
(``python -m metrics save``; ``accepted`` is the project's last accepted one), named after its
version, and the candidates are the models of the RUN files; the comparison is refused when
QRELS are not the judgments the version was saved with (their hashes differ).

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
from typing import TYPE_CHECKING, TextIO

import numpy as np

from metrics.cli.arguments import (
    QRELS_HELP,
    ArgumentParser,
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
    ChosenJudgments,
    add_label_source_arguments,
    chosen_judgments,
    label_source_options,
    local_only,
    several_sources,
)
from metrics.cli.messages import error_line, write_findings
from metrics.cli.output import check_per_query_path, write_per_query
from metrics.cli.review_arguments import (
    add_alpha_argument,
    add_confidence_argument,
    add_resampling_arguments,
)
from metrics.cli.saved import against_table
from metrics.engine.evaluation import evaluate
from metrics.engine.registry import (
    DEFAULT_COMPARE_MEASURES,
    deepest_cutoff,
    parse_measure,
    parse_measures,
)
from metrics.engine.settings import Settings, check_model_orders
from metrics.errors import InputError, MetricsError, SettingsError
from metrics.io.dataset import Dataset
from metrics.io.loaders import LoadedTable, load_dataset, load_table
from metrics.io.per_query import PerQueryDataset
from metrics.io.reading_notes import health_notes, health_warnings, lists_notes
from metrics.io.roles import proposed_segments
from metrics.review.compare import MAX_SEGMENT_COLUMNS, CompareOptions
from metrics.review.decision import decide, heterogeneity_table
from metrics.review.headline import verdict_sentences
from metrics.review.overlap import DEFAULT_PERSISTENCE, ranking_change, summary
from metrics.review.power import DEFAULT_POWER
from metrics.review.statistics import (
    check_resamples,
)
from metrics.review.verdict import (
    COLUMNS,
    DEFAULT_FAMILY,
    FAMILIES,
    ReviewRequest,
    letter_groups,
    measure_order,
    overall_rows,
    pairwise_rows,
    review_table,
    segment_rows,
)
from metrics.spark import spark_per_query
from metrics.store.hashing import judgments_hash
from metrics.store.history import require_same_judgments

if TYPE_CHECKING:
    import pandas as pd

    from metrics.cli.blocks import KeptWhole

#: The review table's columns the TSV output prints (the rest are in the JSON output).
OUTPUT_COLUMNS = tuple(
    column
    for column in COLUMNS
    if column
    not in {
        "p_floor",
        "correction",
        "family_size",
        "alpha",
        "only_in_baseline",
        "only_in_candidate",
        "undefined",
    }
)
_TESTS = {"randomization": "p_randomization", "ttest": "p_ttest", "wilcoxon": "p_wilcoxon"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m metrics compare``."""
    parser = ArgumentParser(
        prog="python -m metrics compare",
        description="Compare candidate runs with a baseline run: delta, bootstrap CI, "
        "randomization / t / Wilcoxon p-values corrected for multiple testing.",
    )
    parser.add_argument("qrels", metavar="QRELS", help=QRELS_HELP)
    parser.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="run files; the first is the baseline (at least two models)",
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
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv")
    add_resampling_arguments(parser, "bootstrap and randomization resamples")
    parser.add_argument(
        "--correction",
        choices=("holm", "bh", "none", "tukey"),
        default="holm",
        help="multiple-testing correction (within each family, see --family); tukey: the "
        "randomized Tukey HSD over all pairs of models of each measure",
    )
    parser.add_argument(
        "--family",
        choices=tuple(FAMILIES),
        default=DEFAULT_FAMILY,
        help="correction family: 'view' corrects the overall table (measures x candidates), "
        "the segment table (segments x measures x candidates) and the candidate pairs "
        "separately; 'measure' each of them per measure; 'all' every comparison together",
    )
    parser.add_argument(
        "--min-effect",
        action="append",
        default=[],
        metavar="[MEASURE=]DELTA",
        help="smallest difference that matters: DELTA for every measure, or MEASURE=DELTA "
        "(nDCG@10=0.01, or nDCG=0.01 at every cutoff); repeatable",
    )
    parser.add_argument(
        "--power",
        type=float,
        default=DEFAULT_POWER,
        help=f"power of the minimum detectable effect and the queries needed (default "
        f"{DEFAULT_POWER:g})",
    )
    parser.add_argument(
        "--queries",
        metavar="QUERIES",
        help="query table with segment columns (a query column and e.g. country)",
    )
    parser.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="segment column of --queries or of the runs (repeatable, at most "
        f"{MAX_SEGMENT_COLUMNS}, each "
        "broken down on its own); without it, the columns worth segmenting by are named in a "
        "note",
    )
    parser.add_argument(
        "--cross",
        action="store_true",
        help="cross the two --by columns into cells instead (small cells: little can be said)",
    )
    parser.add_argument(
        "--lead",
        metavar="MEASURE",
        help="the measure the decision is made on (default: nDCG@10 when compared, else the "
        "first measure)",
    )
    parser.add_argument(
        "--guardrail",
        action="append",
        default=[],
        metavar="SEGMENT",
        help="a segment the candidate must not lose (a value such as 'country = JP', or a "
        "whole --by column; repeatable; default: every segment)",
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
    add_alpha_argument(parser)
    add_confidence_argument(parser)
    parser.add_argument("--baseline", help="baseline model name (default: the first run's)")
    parser.add_argument(
        "--candidate",
        action="append",
        default=[],
        metavar="MODEL",
        help="candidate model compared with the baseline (repeatable; default: every other model)",
    )
    add_relevance_level_argument(parser)
    parser.add_argument(
        "--fail-if-worse",
        action="append",
        default=[],
        metavar="MEASURE",
        help="exit 1 if a candidate is significantly worse on MEASURE",
    )
    parser.add_argument(
        "--against",
        metavar="accepted|VERSION",
        help="compare with a version saved in the store (python -m metrics save): the "
        "project's last accepted version, or the one named; needs --project",
    )
    parser.add_argument("--project", help="the project of --against")
    parser.add_argument("--quiet", action="store_true", help="do not print warnings on stderr")
    add_ranking_arguments(parser)
    add_score_order_argument(parser)
    add_label_arguments(parser)
    add_label_source_arguments(parser)
    add_engine_arguments(parser)
    return parser


def check_options(args: argparse.Namespace) -> None:
    """Refuse option values out of range before any file is read.

    Raises
    ------
    MetricsError
        Naming the option and its allowed values.
    """
    check_resamples(args.resamples, "--resamples")
    if args.seed < 0:
        raise SettingsError(f"--seed must be 0 or more, got {args.seed}.")
    if not 0 < args.confidence < 1:
        raise SettingsError("--confidence must be between 0 and 1 (e.g. 0.95).")
    if not 0 < args.alpha < 1:
        raise SettingsError(f"--alpha must be between 0 and 1 (e.g. 0.05), got {args.alpha:g}.")
    if not 0 < args.power < 1:
        raise SettingsError(f"--power must be between 0 and 1 (e.g. 0.8), got {args.power:g}.")
    min_effects(args.min_effect)
    if bool(getattr(args, "against", None)) != bool(getattr(args, "project", None)):
        raise SettingsError(
            "--against and --project go together: --against accepted --project P compares the "
            "runs with the accepted version of project P."
        )
    if getattr(args, "against", None) and getattr(args, "engine", "local") == "spark":
        raise SettingsError("--against reads the saved version locally; leave out --engine spark.")
    if getattr(args, "per_query_out", None):
        check_per_query_path(args.per_query_out)


def min_effects(values: list[str]) -> tuple[tuple[str, float], ...]:
    """``--min-effect`` values as ``(measure, delta)`` pairs (``*`` for a bare DELTA).

    Raises
    ------
    SettingsError
        For a value that is not ``DELTA`` or ``MEASURE=DELTA`` with a number of 0 or more.
    """
    out = []
    for value in values:
        name, _, number = value.rpartition("=")
        try:
            delta = float(number)
        except ValueError:
            delta = math.nan
        if not math.isfinite(delta) or delta < 0 or (value.count("=") > 1):
            raise SettingsError(
                f"--min-effect {value!r}: give a difference of 0 or more, for every measure "
                "(--min-effect 0.01) or for one (--min-effect nDCG@10=0.01)."
            )
        out.append((name.strip() or "*", delta))
    return tuple(out)


def _fail(message: str | Exception, err: TextIO) -> int:
    print(error_line(message), file=err)
    return 2


def _number(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def _compare_data(
    args: argparse.Namespace, measures: list[str], settings: Settings
) -> tuple[Dataset | PerQueryDataset, list[str], list[str]]:
    """The runs and judgments named in ``args`` (with the query table of ``--queries``), read
    locally, or their per-query values computed by Spark with ``--engine spark``; with the notes
    and warnings on the input that both engines print."""
    spark = getattr(args, "engine", "local") == "spark"
    if args.by and not args.queries and spark:
        raise MetricsError("--by needs --queries, the table holding the segment columns.")
    label_map = label_map_of(args)
    local_only(args, spark)
    if label_map is not None and spark:
        raise MetricsError(
            "--label-map is read by the local engine only; with --engine spark, give the "
            "judgments numeric labels."
        )
    data: Dataset | PerQueryDataset
    if spark:
        one_table_locally(args.qrels)
        data, notes, warnings = spark_per_query(
            args.qrels, args.runs, measures, settings, args.master, queries=args.queries
        )
    else:
        data, notes, warnings = _in_blocks(args, measures, settings, label_map) or _read_whole(
            args, measures, settings, label_map
        )
    for column in args.by:
        if column not in data.segment_columns:
            raise MetricsError(
                f"{args.queries or ', '.join(args.runs)}: no segment column {column!r}; "
                f"segment columns: {', '.join(data.segment_columns) or 'none'}."
            )
    if not args.by:
        notes += segment_notes(data, args.queries)
    return data, notes, warnings


def _read_whole(
    args: argparse.Namespace,
    measures: list[str],
    settings: Settings,
    label_map: dict[str, float] | None,
) -> tuple[Dataset, list[str], list[str]]:
    """The runs and judgments of ``args`` read whole into a :class:`Dataset` (with the query
    table of ``--queries`` and the saved version of ``--against``), with the notes and
    warnings on the input."""
    qrels, runs, sourced = _tables(args, settings, label_map)
    saved = against_table(args.project, args.against) if args.against else None
    if saved is not None:
        runs.insert(0, saved[0])
    queries = load_table(args.queries, Path(args.queries).name) if args.queries else None
    data = load_dataset(
        runs,
        qrels,
        queries,
        name=", ".join(Path(p).name for p in args.runs),
        k_max=deepest_cutoff(parse_measures(measures)),
        relevance_level=args.relevance_level,
        settings=settings,
        label_map=label_map,
    )
    notes, warnings = health_notes(data.health), health_warnings(data.health)
    notes += lists_notes(data, args.runs)
    if sourced is not None:
        notes, warnings = sourced.notes + notes, sourced.warnings + warnings
    if saved is not None:
        table, info = saved
        judged = Path(args.qrels).name if args.qrels else ", ".join(args.runs)
        require_same_judgments(info.label, info.judgments_hash, judged, judgments_hash(data.qrels))
        args.saved_models = data.run_sources.get(table.name, ())
        args.against_info = info
    return data, notes, warnings


def _in_blocks(
    args: argparse.Namespace,
    measures: list[str],
    settings: Settings,
    label_map: dict[str, float] | None,
) -> tuple[PerQueryDataset, list[str], list[str]] | None:
    """The per-query values of large inputs read block by block
    (:func:`metrics.cli.files.per_query_in_blocks`, label words read by ``label_map``); ``None``
    when they are read whole: small inputs, several label sources or a saved version to
    compare against; those options refuse tables past the limit on tables read whole before
    anything is read (:func:`metrics.cli.blocks.refuse_whole_reading`). The segment columns of
    ``--by`` come from the ``--queries`` table, or else from the runs themselves."""
    # deferred: the block reader loads pyarrow.csv
    from metrics.cli import blocks
    from metrics.cli.files import per_query_in_blocks

    kept = _kept_whole(args)
    if kept is not None:
        blocks.refuse_whole_reading([args.qrels, *args.runs], kept)
        return None

    inline = () if args.queries else args.by  # segment columns of the runs themselves
    return per_query_in_blocks(
        args.qrels, args.runs, measures, settings, args.queries, label_map, inline
    )


def _kept_whole(args: argparse.Namespace) -> KeptWhole | None:
    """The option of ``args`` that has the inputs read whole (``None``: none does)."""
    # deferred: the block reader loads pyarrow.csv
    from metrics.cli import blocks

    if several_sources(args):
        return blocks.LABEL_SOURCES_WHOLE
    if args.against:
        return blocks.AGAINST_WHOLE
    return None


def _tables(
    args: argparse.Namespace, settings: Settings, label_map: dict[str, float] | None
) -> tuple[LoadedTable | None, list[LoadedTable], ChosenJudgments | None]:
    """The judgments and run tables of ``args``: under ``--label-source`` or
    ``--label-column``, the chosen label source's judgments and the runs left (``args.runs``
    then names the run files only), with how the sources were read."""
    if several_sources(args):
        found = chosen_judgments(
            args.qrels, args.runs, settings.label_source, args.label_columns, label_map
        )
        args.runs = found.run_paths
        return found.judgments, found.runs, found
    qrels = load_table(args.qrels, Path(args.qrels).name) if args.qrels else None
    return qrels, [load_table(path, Path(path).name) for path in args.runs], None


def segment_notes(data: Dataset | PerQueryDataset, queries: str | None) -> list[str]:
    """Without ``--by``: the query table's columns read as segments, and the segment columns
    worth comparing by (2 to 50 values), as a hint."""
    notes = []
    if queries is not None:
        read = getattr(data, "query_table_columns", None) or data.segment_columns
        notes.append(f"{Path(queries).name}: read as segment columns: {', '.join(read) or 'none'}.")
    proposed = proposed_segments(data.segments)
    if proposed:
        notes.append(
            f"proposed segment columns: {', '.join(proposed)}; compare per segment with "
            f"--by {proposed[0]}"
            + (f" (and --by {proposed[1]})" if len(proposed) > 1 else "")
            + "."
        )
    return notes


def run_compare(
    args: argparse.Namespace,
) -> tuple[
    pd.DataFrame, Dataset | PerQueryDataset, CompareOptions, list[str], str, list[str], list[str]
]:
    """Load the files named in ``args`` and return ``(table, dataset, options, measures,
    baseline, notes, warnings)``: the notes and warnings on the input, from either engine.

    Raises
    ------
    MetricsError
        On unusable input (the message names the file).
    """
    args.qrels, args.runs = judgments_and_runs(args.qrels, args.runs)
    measures = [s.name for s in parse_measures(list(args.measures or DEFAULT_COMPARE_MEASURES))]
    lead = [s.name for s in parse_measures([args.lead])] if args.lead else []
    for name in [*lead, *args.fail_if_worse]:
        measures += [s.name for s in parse_measures([name]) if s.name not in measures]
    settings = Settings(
        relevance_level=args.relevance_level,
        **ranking_options(args),
        **score_order_settings(args),
        **label_options(args),
        **label_source_options(args),
    )
    data, notes, warnings = _compare_data(args, measures, settings)
    models = data.models
    check_model_orders(settings, models)
    baseline = args.baseline or models[0]
    if baseline not in models:
        raise MetricsError(
            f"--baseline {baseline!r} is not a model of the runs ({_model_list(models)})."
        )
    if len(models) < 2:
        raise MetricsError(
            f"{args.runs[0]}: only one model ({models[0]}) was found; give at "
            "least two runs, or one file with a model column."
        )
    candidates = _candidates(args, models, baseline)
    options = CompareOptions(
        policy=args.missing,
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        correction=args.correction,
        test=_TESTS[args.test],
        alpha=args.alpha,
    )
    if isinstance(data, PerQueryDataset):  # --engine spark
        evaluation = data.evaluation(measures, settings)
    else:
        evaluation = evaluate(data.run, data.qrels, measures, settings, source=args.runs[0])
    if getattr(args, "per_query_out", None):
        write_per_query(evaluation.per_query, args.per_query_out)
    request = ReviewRequest(
        baseline,
        candidates,
        tuple(measures),
        tuple(args.by),
        options,
        args.family,
        min_effects(args.min_effect),
        args.power,
        cross=args.cross,
        lead=lead[0] if lead else "",
        guardrails=tuple(args.guardrail),
    )
    segments = data.segments if args.by else None
    table = review_table(evaluation, request, segments)
    args.decision = decide(table, request, heterogeneity_table(evaluation, request, segments))
    args.ranked_lists = evaluation.lists  # for the ranking change of the JSON output
    return table, data, options, measures, baseline, notes, warnings


#: Most models one comparison takes, baseline included, and their pairs: every candidate is
#: compared with the baseline and with every other candidate, so the work grows with the square
#: of the models (a wrong model column can hold hundreds of values).
MAX_MODELS = 50
MAX_MODEL_PAIRS = MAX_MODELS * (MAX_MODELS - 1) // 2


def _model_list(models: list[str], shown: int = 10) -> str:
    """The first ``shown`` model names, comma-separated (``...`` when there are more)."""
    return ", ".join(models[:shown]) + (", ..." if len(models) > shown else "")


def _candidates(args: argparse.Namespace, models: list[str], baseline: str) -> tuple[str, ...]:
    """The candidates of ``--candidate`` (every model but the baseline by default), at most
    :data:`MAX_MODEL_PAIRS` pairs of models with the baseline.

    Raises
    ------
    MetricsError
        For a candidate that is not a model or is the baseline, and for too many models.
    """
    for name in args.candidate:
        if name not in models:
            raise MetricsError(
                f"--candidate {name!r} is not a model of the runs ({_model_list(models)})."
            )
        if name == baseline:
            raise MetricsError(
                f"--candidate {name!r} is the baseline; a candidate is compared with it."
            )
    saved = getattr(args, "saved_models", ())  # --against: the runs' models are the candidates
    chosen = list(dict.fromkeys(args.candidate)) or [
        m for m in models if m != baseline and m not in saved
    ]
    n = len(chosen) + 1
    pairs = n * (n - 1) // 2
    if pairs > MAX_MODEL_PAIRS:
        found = f"{len(models):,} models were found ({_model_list(models, 5)})"
        raise InputError(
            f"{found}; comparing {n:,} of them means {pairs:,} pairs of models, and a "
            f"comparison takes at most {MAX_MODEL_PAIRS:,} pairs ({MAX_MODELS} models).",
            source=Path(args.runs[0]).name if len(args.runs) == 1 else None,
            fix="choose the models to compare with --baseline MODEL and --candidate MODEL "
            "(repeatable), or check the model column: each of its values is one model.",
        )
    return tuple(chosen)


def _write_tsv(table: pd.DataFrame, out: TextIO) -> None:
    out.write("\t".join(OUTPUT_COLUMNS) + "\n")
    for row in table.to_dict("records"):
        cells = []
        for column in OUTPUT_COLUMNS:
            value = row[column]
            if isinstance(value, float):
                cells.append("nan" if math.isnan(value) else f"{value:.6g}")
            elif isinstance(value, (bool, np.bool_)):
                cells.append("true" if value else "false")
            else:
                cells.append(str(value))
        out.write("\t".join(cells) + "\n")


def records(table: pd.DataFrame, by: list[str] | tuple[str, ...] = ()) -> list[dict[str, object]]:
    """Rows of the review table as JSON-ready dicts (full precision; ``NaN`` as ``null``)."""
    columns = [*OUTPUT_COLUMNS, "p_floor", "family_size", *by]
    return [
        {column: _number(row[column]) for column in columns}
        | {
            "only_in_baseline": int(row["only_in_baseline"]),
            "only_in_candidate": int(row["only_in_candidate"]),
            "undefined": int(row["undefined"]),
        }
        for row in table.to_dict("records")
    ]


def _score_orders(args: argparse.Namespace) -> dict[str, object]:
    """The score order of every model and the orders per model, as the JSON output records
    them."""
    settings = Settings(**score_order_settings(args))
    return {
        "score_order": settings.score_order,
        "score_order_by_model": dict(settings.score_order_by_model),
    }


def _write_json(
    table: pd.DataFrame,
    data: Dataset | PerQueryDataset,
    options: CompareOptions,
    measures: list[str],
    baseline: str,
    args: argparse.Namespace,
    out: TextIO,
) -> None:
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
            "label_source": args.label_source,
            **_score_orders(args),
            "family": args.family,
            "segments": list(args.by),
            "cross": bool(args.cross),
            "lead": args.decision.lead,
            "guardrails": list(args.guardrail),
            "min_effect": dict(min_effects(args.min_effect)),
            "power": args.power,
        },
        "headline": args.decision.headline,
        "recommendations": args.decision.recommendations,
        "heterogeneity": json.loads(
            args.decision.heterogeneity.to_json(orient="records", double_precision=15)
        )
        if args.decision.heterogeneity is not None
        else [],
        "verdict": verdict_sentences(table),
        "ranking_change": _ranking_change(table, data, args),
        "groups": {
            m: letter_groups(table, m).to_dict("records")
            for m in measure_order(list(overall_rows(table)["measure"]))
        }
        if len(pairwise_rows(table))
        else {},
        "comparisons": records(overall_rows(table)),
        "segments": records(segment_rows(table), args.by),
        "pairwise": records(pairwise_rows(table)),
    }
    info = getattr(args, "against_info", None)
    if info is not None:
        document["against"] = {
            "project": info.project,
            "version": info.version,
            "saved": info.saved_text,
            "judgments_hash": info.judgments_hash,
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
        Arguments after ``compare`` (``sys.argv[1:]`` when ``None``: the ``rank-metrics-compare``
        console script; ``python -m metrics compare`` passes them).
    out, err:
        Streams for results and messages (stdout and stderr by default).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        check_options(args)
        table, data, options, measures, baseline, notes, warnings = run_compare(args)
    except (MetricsError, ValueError) as exc:
        return _fail(exc, err)
    except OSError as exc:
        return _fail(f"{exc.filename or 'input'}: cannot read ({exc.strerror}).", err)
    if not args.quiet:
        for line in args.decision.headline:
            print(f"headline: {line}", file=err)
        _write_notes(table, options, notes, warnings, err)
    try:
        if args.format == "json":
            _write_json(table, data, options, measures, baseline, args, out)
        else:
            _write_tsv(table, out)
    except BrokenPipeError:  # the reader has gone away (``| head``): the gate still decides
        pass
    return _gate(table, args.fail_if_worse, err)


def _ranking_change(
    table: pd.DataFrame, data: Dataset | PerQueryDataset, args: argparse.Namespace
) -> dict[str, object]:
    """Per candidate: how much its lists differ from the baseline's at the review's largest
    cutoff (:func:`metrics.review.overlap.ranking_change`: the means, and per query); empty for
    per-query values, which hold no lists."""
    lists = getattr(args, "ranked_lists", None) or {}
    run = getattr(data, "run", None)
    if not lists or run is None or not len(table):
        return {}
    k = deepest_cutoff(parse_measures(list(table["measure"])))
    baseline = str(table["reference"].iloc[0])
    out: dict[str, object] = {"k": k, "p": DEFAULT_PERSISTENCE}
    for candidate in dict.fromkeys(table.loc[table["kind"] == "baseline", "candidate"]):
        if baseline not in lists or candidate not in lists:
            continue
        changes = ranking_change(lists[baseline], lists[candidate], run, k)
        out[str(candidate)] = {
            "summary": summary(changes),
            "queries": json.loads(changes.to_json(orient="records", double_precision=15)),
        }
    return out


def _write_notes(
    table: pd.DataFrame,
    options: CompareOptions,
    notes: list[str],
    warnings: list[str],
    err: TextIO,
) -> None:
    """The notes and warnings on the input, the queries of one model only, then the per-row
    sentences (``verdict:`` lines)."""
    write_findings(notes, warnings, err)
    for name in ("only_in_baseline", "only_in_candidate"):
        total = int(table[name].max()) if len(table) else 0
        if total:
            print(
                f"note: up to {total} queries appear {name.replace('_', ' ')}; policy "
                f"'{options.policy}'.",
                file=err,
            )
    _write_verdict(table, err)


def _write_verdict(table: pd.DataFrame, err: TextIO) -> None:
    """The headline, one ``verdict:`` line per sentence (the app's verdict box)."""
    for lines in verdict_sentences(table).values():
        for line in lines:
            print(f"verdict: {line}", file=err)


def _gate(table: pd.DataFrame, fail_if_worse: list[str], err: TextIO) -> int:
    if not fail_if_worse:
        return 0

    names = {parse_measure(m).name for m in fail_if_worse}
    overall = table[(table["kind"] == "baseline") & (table["segment"] == "(all)")]
    worse = overall[overall["measure"].isin(names) & (overall["verdict"] == "worse")]
    for row in worse.to_dict("records"):
        print(
            f"worse: {row['candidate']} on {row['measure']}: delta {row['delta']:+.4f}, "
            f"corrected p = {row['p_adjusted']:.3g} ({row['family_text']})",
            file=err,
        )
    return 1 if len(worse) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
