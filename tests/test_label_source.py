"""The label source as a named policy: ``--label-source`` and ``--label-column`` of
``python -m metrics`` and ``compare``, the link's ``labels`` parameter, and the setting's own
checks. The numbers under a source are those of an evaluation given that source's judgments
alone; an aggregate's are those of judgments aggregated here, independently, with pandas."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics.cli.compare import main as compare_main
from metrics.cli.main import main
from metrics.engine.settings import LABEL_AGGREGATES, POLICIES, Settings, label_source_text
from metrics.errors import SettingsError
from metrics.labels.sources import sources_from_columns, sources_from_judgments
from ui.shell.view import View, from_query_params, to_query_params

QUERIES = [f"q{i}" for i in range(8)]
ITEMS = [f"d{j}" for j in range(6)]


def cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    words = [*map(str, argv)]
    if words[:1] == ["compare"]:
        status = compare_main(words[1:], out=out, err=err)
    else:
        status = main(words, out, err)
    return status, out.getvalue(), err.getvalue()


def means(text: str) -> dict[tuple[str, str], float]:
    """``model measure all value`` lines as ``{(model, measure): value}``."""
    found = {}
    for line in text.strip().splitlines():
        model, measure, _, value = line.split("\t")
        found[(model, measure)] = float(value)
    return found


@pytest.fixture
def table(tmp_path: Path) -> dict[str, Path]:
    """One table with two models' scores and three label columns (an empty cell: unjudged),
    the same labels as three judgment files, and the runs alone."""
    rng = np.random.default_rng(7)
    rows = []
    for model in ("m1", "m2"):
        for q in QUERIES:
            for item in ITEMS:
                rows.append((q, item, model, round(float(rng.random()), 4)))
    frame = pd.DataFrame(rows, columns=["query", "item", "model", "score"])
    pairs = frame[frame["model"] == "m1"][["query", "item"]].reset_index(drop=True)
    truth = rng.integers(0, 4, len(pairs))
    labels = {
        "human": truth.astype(float),
        "llm": np.clip(truth + rng.integers(-1, 2, len(pairs)), 0, 3).astype(float),
        "clicks": (truth >= 2).astype(float),
    }
    labels["llm"][::5] = np.nan  # holes of the judge
    for name, values in labels.items():
        pairs[name] = values
    whole = frame.merge(pairs, on=["query", "item"])
    paths = {"table": tmp_path / "table.csv", "run": tmp_path / "run.csv"}
    whole.to_csv(paths["table"], index=False)
    frame.to_csv(paths["run"], index=False)
    for name in labels:
        path = tmp_path / f"{name}.csv"
        pairs[["query", "item", name]].rename(columns={name: "label"}).dropna().to_csv(
            path, index=False
        )
        paths[name] = path
    paths["pairs"] = tmp_path / "pairs.pkl"
    pairs.to_pickle(paths["pairs"])
    return paths


MEASURES = ("-m", "nDCG@5", "-m", "P@3", "-m", "Judged@5")


def test_a_label_column_gives_the_numbers_of_that_source_s_judgments_alone(table):
    status, out, err = cli(
        table["table"],
        "--label-column",
        "human",
        "--label-column",
        "llm",
        "--label-source",
        "llm",
        *MEASURES,
    )
    assert status == 0, err
    assert "the judgments are those of llm (--label-source)" in err
    alone = cli(table["llm"], table["run"], *MEASURES)
    assert alone[0] == 0 and means(out) == pytest.approx(means(alone[1]))
    first = cli(table["table"], "--label-column", "human", "--label-column", "llm", *MEASURES)
    assert means(first[1]) == pytest.approx(means(cli(table["human"], table["run"], *MEASURES)[1]))


def _mode_lowest(values: pd.Series) -> float:
    counts = values.dropna().value_counts()
    return float(min(counts[counts == counts.max()].index))


ORACLES = {
    "majority": _mode_lowest,
    "mean": lambda v: v.dropna().mean(),
    "median": lambda v: v.dropna().median(),
    "max": lambda v: v.dropna().max(),
    "min": lambda v: v.dropna().min(),
}


@pytest.mark.parametrize("aggregate", LABEL_AGGREGATES)
def test_several_judgment_files_and_an_aggregate_give_the_aggregated_judgments_numbers(
    table, tmp_path, aggregate
):
    status, out, err = cli(
        table["human"],
        table["llm"],
        table["clicks"],
        table["run"],
        "--label-source",
        aggregate,
        "--fractional-labels",
        "keep",
        *MEASURES,
    )
    assert status == 0, err
    pairs = pd.read_pickle(table["pairs"])
    grades = pairs[["human", "llm", "clicks"]].apply(ORACLES[aggregate], axis=1)
    expected = tmp_path / "expected.csv"
    pairs.assign(label=grades)[["query", "item", "label"]].to_csv(expected, index=False)
    alone = cli(expected, table["run"], "--fractional-labels", "keep", *MEASURES)
    assert means(out) == pytest.approx(means(alone[1]))


def test_an_unknown_source_is_refused_in_one_line_naming_the_sources(table):
    status, out, err = cli(table["human"], table["llm"], table["run"], "--label-source", "gpt")
    assert status == 2 and out == ""
    assert err.strip() == (
        "error: the label source 'gpt' is neither a label source (human, llm) nor an aggregate "
        "(majority, mean, median, max, min)."
    )


def test_a_label_source_without_runs_or_sources_is_refused(table):
    status, _, err = cli(table["human"], table["llm"], "--label-source", "llm")
    assert status == 2 and "there is no run to evaluate" in err
    status, _, err = cli(table["table"], "--label-column", "nope")
    assert status == 2 and "no label column 'nope'" in err


def test_the_json_output_records_the_label_source(table):
    status, out, _ = cli(
        table["human"], table["llm"], table["run"], "--label-source", "median", "--format", "json"
    )
    assert status == 0 and json.loads(out)["settings"]["label_source"] == "median"


def test_without_the_options_several_files_are_read_as_before(table):
    status, _, err = cli(table["human"], table["run"], *MEASURES)
    assert status == 0 and "--label-source" not in err


@pytest.mark.slow
def test_compare_under_a_label_source_equals_compare_of_that_source_alone(table):
    common = ("-m", "nDCG@5", "--resamples", "200", "--format", "json", "--quiet")
    status, out, err = cli(
        "compare", table["human"], table["llm"], table["run"], "--label-source", "llm", *common
    )
    assert status in (0, 1), err
    alone = cli("compare", table["llm"], table["run"], *common)
    assert alone[0] in (0, 1), alone[2]
    got, expected = json.loads(out), json.loads(alone[1])
    assert got["comparisons"] == expected["comparisons"]
    assert got["options"]["label_source"] == "llm" and expected["options"]["label_source"] is None


# ------------------------------------------------------------------ the setting and the link


def test_the_policy_names_every_aggregate_and_the_first_source():
    assert tuple(v for v in POLICIES["label_source"].values if v is not None) == LABEL_AGGREGATES
    assert Settings().label_source is None
    assert label_source_text(None) == "the first source: the judgments as given"
    assert label_source_text("llm") == "the source 'llm'"
    assert ("Label source", "the source 'llm'") in Settings(label_source="llm").describe()


@pytest.mark.parametrize("value", ["", "  ", 3])
def test_an_empty_or_non_text_label_source_is_refused(value):
    with pytest.raises(SettingsError, match="label_source must be a label source's name"):
        Settings(label_source=value)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(min_size=1, max_size=30).filter(lambda s: s.strip() and "\x00" not in s))
def test_the_label_source_round_trips_through_the_link(name):
    view = View(label_source=name)
    params = to_query_params(view)
    assert params["labels"] == name
    back = from_query_params(params)
    assert back.label_source == name and back.settings() == Settings(label_source=name)


def test_the_first_source_leaves_the_link_without_a_label_source():
    assert "labels" not in to_query_params(View())
    assert from_query_params({"labels": ""}).label_source is None


def test_sources_choose_their_judgments_by_the_policy():
    a = pd.DataFrame({"query": ["1", "1"], "item": ["x", "y"], "relevance": [1.0, 0.0]})
    b = a.assign(relevance=[0.0, 2.0])
    sources = sources_from_judgments([a, b], ["a", "b"])
    assert sources.chosen(None)["relevance"].tolist() == [1.0, 0.0]
    assert sources.chosen("b")["relevance"].tolist() == [0.0, 2.0]
    assert sources.chosen("max")["relevance"].tolist() == [1.0, 2.0]
    with pytest.raises(SettingsError, match="neither a label source"):
        sources.chosen("c")
    wide = a.assign(other=[3.0, 1.0])
    columns = sources_from_columns(wide, ["relevance", "other"], ["first", "second"])
    assert columns.chosen("second")["relevance"].tolist() == [3.0, 1.0]


def test_copied_code_needs_no_label_source_its_files_hold_the_chosen_judgments():
    from ui.shell.commands import changed_settings, evaluate_command, matching_profiles

    chosen = Settings(label_source="llm_judge", gain="exponential")
    assert changed_settings(chosen) == {"gain": "exponential"}
    assert "--label-source" not in evaluate_command(chosen, ("nDCG@10",))
    plain = [p.label for p in matching_profiles(Settings())]
    assert plain and [p.label for p in matching_profiles(Settings(label_source="mean"))] == plain


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_the_reports_settings_name_a_label_source_as_given_and_word_an_aggregate(lang):
    import functools

    from metrics.engine.settings import Settings
    from metrics.review.compare import CompareOptions
    from ui.review.tables import settings_rows
    from ui.shell.i18n import translate

    tr = functools.partial(translate, lang=lang)
    label = translate("policy.label_source.label", lang=lang)

    def shown(settings: Settings) -> str:
        return dict(settings_rows(settings, CompareOptions(), "view", tr))[label]

    assert shown(Settings(label_source="LLM judge")) == "LLM judge"
    assert shown(Settings(label_source="majority")) == translate(
        "policy.label_source.majority", lang=lang
    )
    assert "policy." not in shown(Settings())
