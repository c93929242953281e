"""The app's commands ("Copy as code" on Curves, Learn, Compare, Segments, the report) set their
settings with the command line's own flags: :func:`metrics.cli.arguments.settings_arguments`
reads them from the parsers' definitions, so every flag the app writes is one the real parser
accepts, and the command computes under the settings the page shows."""

from __future__ import annotations

import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from metrics.cli import compare as compare_cli
from metrics.cli import evaluate as evaluate_cli
from metrics.cli.arguments import (
    label_options,
    ranking_options,
    score_order_settings,
    settings_arguments,
)
from metrics.engine.settings import POLICIES, Settings
from metrics.review.compare import CompareOptions
from ui.review.controls import ReviewChoice
from ui.shell.commands import compare_command, evaluate_command, settings_flags

ROOT = Path(__file__).resolve().parents[1]

#: Every value of every policy with a menu, and values of the settings written in a field.
_VALUES = {
    **{
        field: st.sampled_from(list(policy.values))
        for field, policy in POLICIES.items()
        if len(policy.values) > 1 and field != "label_source"
    },
    "relevance_level": st.sampled_from([0, 1, 2, 3]) | st.integers(1, 16).map(lambda n: n / 4),
    "max_results": st.none() | st.integers(1, 1000),
    "gain_map": st.none() | st.sampled_from(["0:0,1:1,2:3,3:7", "1:2.5", "0:-1,2:4"]),
    "score_order_by_model": st.sampled_from([(), (("b", "ascending"),)]),
}


@st.composite
def chosen_settings(draw) -> Settings:
    fields = draw(st.lists(st.sampled_from(sorted(_VALUES)), unique=True, max_size=8))
    values = {field: draw(_VALUES[field]) for field in fields}
    if values.get("averaging") == "weighted":
        values["weight_column"] = "traffic"
    return Settings(**values)


def _without(settings: Settings, fields: list[str]) -> Settings:
    default = Settings()
    return settings.with_(**{field: getattr(default, field) for field in fields})


@hypothesis_settings(max_examples=150, deadline=None)
@given(chosen_settings())
def test_the_evaluate_command_parses_back_to_the_pages_settings(chosen):
    words = shlex.split(evaluate_command(chosen, ("P@10", "nDCG@10")))
    assert words[:5] == ["python", "-m", "metrics", "qrels.csv", "run.csv"]
    args = evaluate_cli.build_parser().parse_args(words[3:])
    left = settings_flags(chosen)[1]
    assert set(left) <= {"averaging", "weight_column"}
    assert evaluate_cli.settings_from(args) == _without(chosen, left)


@hypothesis_settings(max_examples=100, deadline=None)
@given(chosen_settings())
def test_the_compare_command_parses_back_to_the_pages_settings(chosen):
    choice = ReviewChoice("a", ("b",), 10, CompareOptions(), min_effect=(("nDCG@10", 0.01),))
    command = compare_command(chosen, ("nDCG@10",), choice, choice.options, ("country",))
    args = compare_cli.build_parser().parse_args(shlex.split(command)[3:])
    compare_cli.check_options(args)
    parsed = Settings(
        relevance_level=args.relevance_level,
        **ranking_options(args),
        **score_order_settings(args),
        **label_options(args),
    )
    # compare compares per-query values: the averaging is no flag of it
    assert parsed == _without(chosen, ["averaging", "weight_column"])
    assert (args.alpha, args.confidence, args.resamples, args.seed) == (
        choice.options.alpha,
        choice.options.confidence,
        choice.options.resamples,
        choice.options.seed,
    )


def test_a_setting_without_a_flag_for_its_value_is_left_to_the_caller():
    assert settings_arguments({"averaging": "weighted"}) == ([], ["averaging"])
    assert settings_arguments({"averaging": "micro"}) == (["--averaging", "micro"], [])
    assert settings_arguments({"averaging": "micro"}, averaging=False) == ([], ["averaging"])
    assert settings_arguments({"missing_queries": "zero", "judged_only": True}) == (
        ["--complete", "--judged-only"],
        [],
    )


def test_the_app_lists_no_command_line_flag_by_hand():
    """The flags of the settings live in metrics/cli/arguments.py alone: a table of them in the
    app (``"--gain"`` beside ``"--ties"``) is a copy that drifts."""
    flags = {f"--{field.replace('_', '-')}" for field in POLICIES} | {"--complete"}
    for path in [*ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py")]:
        text = path.read_text(encoding="utf-8")
        written = sorted(flag for flag in flags if f'"{flag}"' in text)
        assert written == [], (path.relative_to(ROOT), written)
