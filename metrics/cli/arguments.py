"""The argument parser of the command lines (argparse's, refusing option values it would
otherwise hand on as an empty list) and the options they share: the policies of ranking and
scoring (:func:`add_ranking_arguments`), ``--score-order``, the labels' options and the engine.

Python's argparse drops a ``--`` given as an option's value (``--digits=--``, ``-l=--``) and
passes the option an empty list instead of one value; the program would then fail on a list
where a number is expected. Here such an option is a usage error, in argparse's own form
(``error: argument --digits: expected one argument``, exit status 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any, cast

from metrics.engine.settings import POLICIES, Settings, parse_model_orders, score_order_options
from metrics.errors import InputError, SettingsError


class ArgumentParser(argparse.ArgumentParser):
    """:class:`argparse.ArgumentParser` whose single-valued options always get one value.

    Examples
    --------
    >>> parser = ArgumentParser(prog="demo", exit_on_error=False)
    >>> _ = parser.add_argument("--digits", type=int)
    >>> parser.parse_args(["--digits=3"]).digits
    3
    >>> parser.parse_args(["--digits=--"])
    Traceback (most recent call last):
    argparse.ArgumentError: argument --digits: expected one argument
    """

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        value = super()._get_values(action, arg_strings)
        if action.nargs is None and isinstance(value, list):
            raise argparse.ArgumentError(action, "expected one argument")
        return value


#: The policies of :func:`add_ranking_arguments` that take one of their values.
_CHOICE_POLICIES = (
    "gain",
    "ties",
    "score_precision",
    "short_lists",
    "duplicates",
    "no_relevant",
    "recall_rounding",
)


def add_choice_argument(p: argparse.ArgumentParser, field: str) -> None:
    """``--FIELD`` for the policy ``field`` of one value among its choices, with each choice's
    meaning and the default in its help (``None`` when not given: the settings' default)."""
    policy = POLICIES[field]
    p.add_argument(
        "--" + field.replace("_", "-"),
        choices=[str(v) for v in policy.values],
        default=None,
        help=f"{policy.help} "
        + "; ".join(f"{v}: {text}" for v, text in policy.values.items())
        + f" (default {getattr(Settings(), field)})",
    )


def add_relevance_level_argument(p: argparse.ArgumentParser, default: float = 1) -> None:
    """``-l`` / ``--relevance-level``: the label from which an item counts as relevant."""
    p.add_argument(
        "-l",
        "--relevance-level",
        type=float,
        default=default,
        metavar="N",
        help=POLICIES["relevance_level"].help + " (default 1)",
    )


#: The averaging policies ``--averaging`` takes (``weighted`` needs a weight column, which the
#: command line does not read).
AVERAGING_CHOICES = ("macro", "micro", "geometric")


def add_averaging_argument(p: argparse.ArgumentParser) -> None:
    """``--averaging``: how per-query values become one number."""
    p.add_argument(
        "--averaging",
        choices=AVERAGING_CHOICES,
        default="macro",
        help=POLICIES["averaging"].help + " macro: mean of per-query values; micro: "
        "pooled counts for P, R, F1, Success; geometric: trec_eval's gm_map rule, values "
        "floored at 1e-5 (default macro)",
    )


def add_ranking_arguments(p: argparse.ArgumentParser) -> None:
    """The policies of ranking and scoring a list (shared with ``compare``): ``-c``, ``--gain``,
    ``--ties`` and the other choices of one value, ``-J``, ``-M``, ``--gain-map`` and
    ``--ndcg-relevance-level``."""
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from the run as 0 (trec_eval -c)",
    )
    for field in _CHOICE_POLICIES:
        add_choice_argument(p, field)
    p.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help=POLICIES["judged_only"].help,
    )
    p.add_argument(
        "-M",
        "--max-results",
        type=int,
        default=None,
        metavar="N",
        help=POLICIES["max_results"].help,
    )
    p.add_argument(
        "--gain-map",
        default=None,
        metavar="L:G,...",
        help=POLICIES["gain_map"].help,
    )
    p.add_argument(
        "--ndcg-relevance-level",
        action="store_true",
        help="labels below the relevance level get gain 0 in nDCG (ranx)",
    )


def ranking_options(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of :func:`add_ranking_arguments`' flags, only those given (a profile's
    policies stand where no flag says otherwise)."""
    given = {
        "missing_queries": "zero" if args.complete else None,
        "ndcg_relevance_level": True if args.ndcg_relevance_level else None,
        "judged_only": True if args.judged_only else None,
        "max_results": args.max_results,
        "gain_map": args.gain_map,
        **{name: getattr(args, name, None) for name in _CHOICE_POLICIES},
    }
    return {name: value for name, value in given.items() if value is not None}


def add_score_order_argument(p: argparse.ArgumentParser) -> None:
    """``--score-order`` (shared with ``compare``): for every model, or ``MODEL=ORDER``."""
    policy = POLICIES["score_order"]
    p.add_argument(
        "--score-order",
        action="append",
        default=[],
        type=_score_order,
        metavar="ORDER|MODEL=ORDER",
        help=f"{policy.help} "
        + "; ".join(f"{v}: {text}" for v, text in policy.values.items())
        + " (default descending). MODEL=ascending sets one model's order (repeatable; the "
        "model is named after its run file, or by the run's model column)",
    )


def add_label_arguments(p: argparse.ArgumentParser) -> None:
    """``--fractional-labels`` and ``--label-map`` (shared with ``compare``)."""
    add_choice_argument(p, "fractional_labels")
    p.add_argument(
        "--label-map",
        default=None,
        metavar="VALUE=GRADE,...",
        help="grades of labels written as text, such as 'relevant=1,not relevant=0' or "
        "'clicked=1,not clicked=0' (case and surrounding spaces ignored); without it, common "
        "pairs (relevant/not relevant, click/no click, yes/no, high/medium/low, ...) are "
        "read as guessed and noted",
    )


def label_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``fractional_labels`` setting of ``--fractional-labels`` (empty when not given)."""
    value = getattr(args, "fractional_labels", None)
    return {} if value is None else {"fractional_labels": value}


def label_map_of(args: argparse.Namespace) -> dict[str, float] | None:
    """The mapping of ``--label-map`` (``None`` when not given).

    Raises
    ------
    InputError
        For a pair that is not ``value=grade`` with a number as grade.
    """
    text = getattr(args, "label_map", None)
    if text is None:
        return None
    # deferred: metrics.io.labels imports pandas, which TREC files are evaluated without
    from metrics.io.labels import parse_label_map

    return parse_label_map(text)


#: The help of the first file of ``QRELS RUN [RUN ...]``, which may come alone.
QRELS_HELP = (
    "judgments file (TREC qrels or a table); given alone, one table that holds the labels "
    "beside the scores (query, item, score, label[, model])"
)


def judgments_and_runs(qrels: str, runs: Sequence[str]) -> tuple[str | None, list[str]]:
    """The judgments file and the run files of ``QRELS [RUN ...]``: a file given alone is one
    table holding its labels beside the scores, so it is the run and there is no judgments
    file (``None``)."""
    return (qrels, list(runs)) if runs else (None, [qrels])


def one_table_locally(qrels: str | None) -> None:
    """Refuse one labelled table (``qrels`` is ``None``) under ``--engine spark``.

    Raises
    ------
    InputError
        When ``qrels`` is ``None``.
    """
    if qrels is None:
        raise InputError(
            "one table holding its labels is read by the local engine only.",
            fix="Give the judgments and the runs as two files (QRELS RUN), or leave out "
            "--engine spark.",
        )


def _score_order(text: str) -> str:
    """One ``--score-order`` value, checked (argparse's usage error otherwise)."""
    try:
        parse_model_orders([text])
    except SettingsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def score_order_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The ``score_order`` and ``score_order_by_model`` of ``--score-order`` (empty when it was
    not given)."""
    return score_order_options(getattr(args, "score_order", []) or [])


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
        help="also write the per-query values (model, query, one column per measure) to "
        "PATH: Parquet for a .parquet file (the app opens it), CSV for a .csv file",
    )


#: Settings fields that a flag of another name switches on: field -> (the flag's ``dest``, the
#: value it sets).
_SWITCHED = {"missing_queries": ("complete", "zero")}


def settings_parser(*, averaging: bool = True) -> ArgumentParser:
    """A parser of the flags that set :class:`Settings` fields, as every command that scores
    lists defines them (``--averaging`` too when ``averaging``: ``compare`` has none)."""
    p = ArgumentParser(add_help=False)
    add_relevance_level_argument(p)
    add_ranking_arguments(p)
    add_score_order_argument(p)
    add_label_arguments(p)
    if averaging:
        add_averaging_argument(p)
    return p


def settings_arguments(
    changes: Mapping[str, object], *, averaging: bool = True
) -> tuple[list[str], list[str]]:
    """The command-line words that set ``changes`` (``Settings`` fields and their values), read
    from the flags of :func:`settings_parser`, and the fields no flag sets to that value (a
    weight column, an averaging ``--averaging`` does not take).

    >>> settings_arguments({"relevance_level": 2.0, "missing_queries": "zero", "gain_map": "1:3"})
    (['--relevance-level', '2', '--complete', '--gain-map', '1:3'], [])
    >>> settings_arguments({"averaging": "weighted", "weight_column": "traffic"})
    ([], ['averaging', 'weight_column'])
    """
    actions = {action.dest: action for action in settings_parser(averaging=averaging)._actions}
    words: list[str] = []
    left: list[str] = []
    for field, value in changes.items():
        if field == "score_order_by_model":
            for model, order in cast(Sequence[tuple[str, str]], value):
                words += ["--score-order", f"{model}={order}"]
            continue
        dest, switched = _SWITCHED.get(field, (field, True))
        action = actions.get(dest)
        text = f"{value:g}" if isinstance(value, float) else str(value)
        if action is None or (action.choices is not None and text not in action.choices):
            left.append(field)
        elif action.nargs != 0:
            words += [action.option_strings[-1], text]
        elif value == switched:  # a switch: on for its one value
            words.append(action.option_strings[-1])
        else:
            left.append(field)
    return words, left
