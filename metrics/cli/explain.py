"""``python -m metrics explain``: why two tools give two numbers, query by query.

Usage::

    python -m metrics explain QRELS RUN [--from PROFILE] [--to PROFILE | --theirs FILE]
        [-m MEASURE]... [--model MODEL] [--format tsv|json]

Evaluates one model's run under two tool profiles (:mod:`metrics.engine.profiles`; ``--from``
trec_eval and ``--to`` ranx by default), or ours against a per-query table another tool wrote
(``--theirs``: a query column and one column per measure, in our names ``nDCG@10`` or in the
``--to`` tool's names ``ndcg@10``), and prints every query whose value differs with the policy
that explains it (:func:`metrics.engine.differences.explain`). The means, the counts per cause
and the one setting that makes most numbers agree go to stderr (in the JSON output too).

Exit status: 0; 2 on unusable input, with a message naming the file and no traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TextIO

from metrics import schema as S
from metrics.cli.arguments import QRELS_HELP, ArgumentParser, judgments_and_runs
from metrics.cli.messages import error_line
from metrics.engine.profiles import PROFILES, own_measures, profile
from metrics.engine.registry import at_cutoff, parse_measure, parse_measures
from metrics.errors import MetricsError
from metrics.io.names import QUERY_NAMES

#: Measures explained when none is named (and a tool's own measures at ``DEFAULT_K`` when it
#: has none of these: context precision for ragas and DeepEval).
DEFAULT_MEASURES = ("P@10", "R@10", "RR", "AP", "nDCG@10", "nDCG")
DEFAULT_K = 10


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m metrics explain``."""
    parser = ArgumentParser(
        prog="python -m metrics explain",
        description="Why two tools give two numbers: every differing query with the policy "
        "that explains it.",
    )
    parser.add_argument("qrels", metavar="QRELS", help=QRELS_HELP)
    parser.add_argument("run", metavar="RUN", nargs="?", help="run file (TREC run or a table)")
    parser.add_argument(
        "--from",
        dest="source",
        default="trec_eval",
        choices=tuple(PROFILES),
        help="the first tool's profile (default trec_eval); ours with --theirs",
    )
    parser.add_argument(
        "--to",
        dest="target",
        default="ranx",
        choices=tuple(PROFILES),
        help="the second tool's profile (default ranx); with --theirs, the tool that wrote it",
    )
    parser.add_argument(
        "--theirs",
        metavar="FILE",
        help="per-query values another tool wrote: a query column and one column per measure",
    )
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"measure such as nDCG@10 (repeatable; default: {', '.join(DEFAULT_MEASURES)}, "
        "and CP@10 for ragas and DeepEval)",
    )
    parser.add_argument("--model", help="the model to explain when the run holds several")
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv")
    return parser


def _load(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The run of the chosen model and the judgments, as :func:`metrics.evaluate` takes them."""
    # deferred: the loaders import pandas (explain --help goes without it)
    from metrics.io.loaders import load_dataset, load_table

    qrels, (run,) = judgments_and_runs(args.qrels, [args.run] if args.run else [])
    data = load_dataset(
        [load_table(run, Path(run).name)],
        load_table(qrels, Path(qrels).name) if qrels else None,
        name=Path(run).name,
    )
    models = data.models
    model = args.model or models[0]
    if model not in models:
        raise MetricsError(f"--model {model!r} is not a model of {run} ({', '.join(models)}).")
    if len(models) > 1 and not args.model:
        raise MetricsError(
            f"{run} holds {len(models)} models ({', '.join(models[:5])}); choose one with "
            "--model MODEL."
        )
    run = data.run
    if S.MODEL in run.columns:
        run = run[run[S.MODEL] == model].drop(columns=[S.MODEL])
    return run, data.qrels, model


def _theirs(path: str, target: str, measures: list[str] | None):  # type: ignore[no-untyped-def]
    """The other tool's per-query table with our measure names as columns."""
    # deferred: the loaders import pandas (explain --help goes without it)
    from metrics.io.loaders import load_table

    table = load_table(path, Path(path).name).frame
    names = (*QUERY_NAMES, "query id")
    query = next((c for c in table.columns if str(c).lower() in names), table.columns[0])
    tool = profile(target)
    renamed = {query: S.QUERY}
    for column in table.columns:
        if column == query:
            continue
        ours = next((m for m in _candidates(tool) if tool.name_of(m) == str(column)), None)
        try:
            renamed[column] = ours or parse_measure(str(column)).name
        except MetricsError:
            continue
    out = table.rename(columns=renamed)[list(dict.fromkeys(renamed.values()))]
    if measures:
        keep = [S.QUERY, *[m for m in measures if m in out.columns]]
        out = out[keep]
    if len(out.columns) < 2:
        raise MetricsError(
            f"{path}: no measure column; name the columns as the measures (nDCG@10) or as "
            f"{tool.label} names them."
        )
    return out


def _candidates(tool) -> list[str]:  # type: ignore[no-untyped-def]
    """Our measure names a profile offers, at the cutoffs people use."""
    out = []
    for name in tool.names:
        if name.endswith("@k"):
            out += [at_cutoff(name[:-2], k) for k in (1, 3, 5, 10, 20, 50, 100, 1000)]
        else:
            out.append(name)
    return out


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Explain and print; returns the exit status."""
    # deferred: the explanations import pandas (explain --help goes without it)
    from metrics.engine.differences import explain, explain_against, policy_words

    frame, qrels, model = _load(args)
    source, target = profile(args.source), profile(args.target)
    if args.theirs:
        theirs = _theirs(args.theirs, args.target, args.measures)
        found = explain_against(frame, qrels, theirs, source.settings())
        sides = (source.label, Path(args.theirs).name)
    else:
        measures = [s.name for s in parse_measures(list(args.measures or DEFAULT_MEASURES))]
        if not args.measures:  # a tool without the default measures: its own at K = 10
            measures = own_measures((args.source, args.target), measures, DEFAULT_K)
        found = explain(frame, qrels, measures, source.settings(), target.settings())
        sides = (source.label, target.label)
    for measure, (a, b) in found.measure_means.items():
        print(f"mean {measure}: {a:.4f} ({sides[0]}) vs {b:.4f} ({sides[1]})", file=err)
    for cause, count in sorted(found.counts.items(), key=lambda item: -item[1]):
        print(
            f"cause: {count} quer{'y' if count == 1 else 'ies'}: "
            f"{policy_words(cause) if cause else 'no policy reproduces them'} ({cause or '-'})",
            file=err,
        )
    if found.best:
        print(f"agree: set {found.best} = {found.best_value}", file=err)
    elif not len(found.queries):
        print("agree: the numbers are the same for every query", file=err)
    if args.format == "json":
        json.dump(_document(found, model, sides), out, indent=2, default=str)
        out.write("\n")
        return 0
    out.write("measure\tquery\ta\tb\tcause\n")
    for row in found.queries.to_dict("records"):
        cells = [row["measure"], row["query"], _number(row["a"]), _number(row["b"]), row["cause"]]
        out.write("\t".join(str(c) for c in cells) + "\n")
    return 0


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _number(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.6g}"


def _document(found, model: str, sides: tuple[str, str]) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {
        "model": model,
        "sides": list(sides),
        "means": {m: list(v) for m, v in found.measure_means.items()},
        "counts": found.counts,
        "best": found.best,
        "best_value": found.best_value,
        "queries": [
            {**r, "fixes": list(r["fixes"]), "a": _json_number(r["a"]), "b": _json_number(r["b"])}
            for r in found.queries.to_dict("records")
        ],
    }


def main(
    argv: list[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Entry point of ``python -m metrics explain``; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        return run(args, out, err)
    except (MetricsError, ValueError) as exc:
        print(error_line(exc), file=err)
        return 2
    except OSError as exc:
        print(error_line(f"{exc.filename or 'input'}: cannot read ({exc.strerror})."), file=err)
        return 2


__all__ = ["DEFAULT_MEASURES", "build_parser", "main"]
