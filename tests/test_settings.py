"""Settings: trec_eval defaults, every policy documented, bad values refused with a message."""

from __future__ import annotations

import re

import pytest

from metrics import POLICIES, Settings, SettingsError


def test_defaults_are_trec_eval_s_choices():
    s = Settings()
    assert (
        s.relevance_level,
        s.gain,
        s.ties,
        s.score_precision,
        s.short_lists,
        s.missing_queries,
        s.no_relevant,
        s.ndcg_relevance_level,
        s.averaging,
    ) == (1, "linear", "item_desc", "float32", "divide_by_k", "skip", "zero", False, "macro")


def test_every_setting_except_the_weight_column_is_a_documented_policy():
    fields = set(Settings().to_dict()) - {"weight_column"}
    assert set(POLICIES) == fields
    for name, policy in POLICIES.items():
        assert policy.label and policy.help and policy.trec_eval, name
        if name != "relevance_level":
            assert getattr(Settings(), name) in policy.values, name
            assert all(text for text in policy.values.values()), name


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"gain": "log"}, "gain must be one of 'linear', 'exponential'; got 'log'."),
        ({"ties": None}, "ties must be one of 'item_desc', 'input_order', 'rank'; got None."),
        (
            {"short_lists": "pad"},
            "short_lists must be one of 'divide_by_k', 'divide_by_returned', "
            "'leave_out'; got 'pad'.",
        ),
        ({"duplicates": "last"}, "duplicates must be one of 'keep_best', 'error'; got 'last'."),
        ({"missing_queries": "drop"}, "missing_queries must be one of 'skip', 'zero'; got 'drop'."),
        (
            {"averaging": "median"},
            "averaging must be one of 'macro', 'micro', 'weighted', 'geometric'; got 'median'.",
        ),
        (
            {"relevance_level": "high"},
            "relevance_level must be a finite number, got 'high' (labels at or above it are "
            "relevant: 1 for binary labels).",
        ),
        (
            {"relevance_level": True},
            "relevance_level must be a finite number, got True (labels at or above it are "
            "relevant: 1 for binary labels).",
        ),
        (
            {"relevance_level": float("nan")},
            "relevance_level must be a finite number, got nan (labels at or above it are "
            "relevant: 1 for binary labels).",
        ),
        (
            {"relevance_level": float("inf")},
            "relevance_level must be a finite number, got inf (labels at or above it are "
            "relevant: 1 for binary labels).",
        ),
        (
            {"relevance_level": -float("inf")},
            "relevance_level must be a finite number, got -inf (labels at or above it are "
            "relevant: 1 for binary labels).",
        ),
        (
            {"averaging": "weighted"},
            "averaging='weighted' needs weight_column: name the query-level "
            "column that holds each query's weight.",
        ),
    ],
)
def test_bad_values_are_refused_with_the_allowed_values(changes, message):
    with pytest.raises(SettingsError, match=f"^{re.escape(message)}$"):
        Settings(**changes)
    with pytest.raises(SettingsError, match=f"^{re.escape(message)}$"):
        Settings().with_(**changes)


def test_settings_round_trip_through_a_dictionary_ignoring_unknown_keys():
    s = Settings(
        gain="exponential", relevance_level=2, averaging="weighted", weight_column="traffic"
    )
    assert Settings.from_dict({**s.to_dict(), "colour": "blue"}) == s


def test_describe_explains_every_chosen_value_in_words():
    rows = dict(Settings(relevance_level=2, gain="exponential").describe())
    assert rows["Relevance level"] == "label ≥ 2 is relevant"
    assert rows["nDCG gain"] == POLICIES["gain"].values["exponential"]
    assert len(rows) == len(POLICIES)


def test_the_documented_policies_table_is_generated_from_the_settings():
    from metrics.cli.docs_tables import POLICIES_DOC, policies_table

    text = POLICIES_DOC.read_text(encoding="utf-8")
    assert f"<!-- policies:start -->\n{policies_table()}\n<!-- policies:end -->" in text
