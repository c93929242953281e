"""The English sentences the engine words are generated into the app's English catalog.

The engine words its findings and review sentences in English (:mod:`metrics.io.messages`, the
templates of :mod:`metrics.review`) for the command line, the report and exceptions; the app's
``ui/locales/en.json`` holds the same sentences under their catalog keys, next to their Chinese
and Japanese translations, written by ``python -m ui.shell.english`` from the engine (one
source). A sentence edited by hand in ``en.json``, or changed in the engine without running the
command, fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from metrics.engine.registry import MEASURES
from metrics.engine.settings import POLICIES, label_source_text
from metrics.io.messages import Template
from ui.shell import english
from ui.shell.english import engine_sentences

ROOT = Path(__file__).resolve().parents[1]


def english_catalog() -> dict[str, Template]:
    with open(ROOT / "ui" / "locales" / "en.json", encoding="utf-8") as fh:
        found: dict[str, Template] = json.load(fh)
    return found


def _forms(text: Template) -> dict[str, str]:
    return {"other": text} if isinstance(text, str) else dict(text)


def differences(
    catalog: Mapping[str, Template], sentences: Iterator[tuple[str, Template]]
) -> list[str]:
    """The keys whose catalog text is missing or differs from the engine's (in any plural
    form)."""
    out = []
    for key, text in sentences:
        if key not in catalog:
            out.append(f"{key}: not in ui/locales/en.json")
        elif _forms(catalog[key]) != _forms(text):
            out.append(f"{key}: engine {text!r} != en.json {catalog[key]!r}")
    return out


def test_the_engine_and_the_english_catalog_write_each_sentence_alike():
    found = differences(english_catalog(), engine_sentences())
    assert found == [], "\n".join(found)


def test_the_check_covers_the_findings_and_the_review_sentences():
    keys = {key for key, _ in engine_sentences()}
    assert "finding.message.duplicate_items" in keys and "finding.fix.tied_scores" in keys
    assert "finding.rule.score_order.ascending" in keys and "finding.where.line" in keys
    assert any(key.startswith("sentence.verdict.") for key in keys)
    assert len(keys) > 200


@pytest.mark.parametrize(
    "changed",
    [
        {"finding.message.no_rows.run": "The run has no rows at all."},
        {"finding.where.row": "on row {row}"},
        {"finding.message.duplicate_items": {"one": "x", "other": "y"}},
    ],
)
def test_a_sentence_changed_on_one_side_is_found(changed):
    catalog = {**english_catalog(), **changed}
    found = differences(catalog, engine_sentences())
    assert [line.split(":")[0] for line in found] == list(changed)


def test_a_sentence_missing_from_the_catalog_is_found():
    catalog = dict(english_catalog())
    del catalog["finding.fix.no_rows"]
    assert differences(catalog, engine_sentences()) == [
        "finding.fix.no_rows: not in ui/locales/en.json"
    ]


def test_the_english_catalog_is_what_the_generator_writes():
    text = (ROOT / "ui" / "locales" / "en.json").read_text(encoding="utf-8")
    assert english.dump(english.generated(json.loads(text))) == text
    assert english.main(["--check"]) == 0


def test_the_generator_writes_a_changed_or_new_engine_sentence(monkeypatch):
    catalog = english_catalog()
    catalog["finding.where.row"] = "on row {row} (edited by hand)"
    del catalog["finding.fix.no_rows"]
    fixed = english.generated(catalog)
    assert differences(fixed, engine_sentences()) == []
    keys = list(fixed)
    assert keys[keys.index("finding.fix.no_rows") - 1].startswith("finding.fix.")


# ------------------------------------------------------------- the measures' and settings' words


def test_every_measure_and_setting_text_of_the_english_catalog_is_the_engines():
    catalog = english_catalog()
    found = differences(catalog, english.sentences(catalog))
    assert found == [], "\n".join(found)
    words = [k for k in catalog if k.startswith(("measure.", "policy."))]
    generated_keys = {key for key, _ in english.sentences(catalog)}
    # every measure's words and every setting's label and help come from the engine; the only
    # hand-written policy keys are the app's own (short names of options, widget notes)
    assert {f"measure.{n}.{p}" for n in MEASURES for p in english.MEASURE_PARTS} <= generated_keys
    assert {f"policy.{f}.{p}" for f in POLICIES for p in ("label", "help")} <= generated_keys
    assert all(k in generated_keys for k in words if k.startswith("measure."))


@pytest.mark.parametrize(
    "changed",
    [
        {"measure.Bpref.pitfall": "Unjudged items are skipped."},
        {"measure.P.latex": r"P@K = \frac{rel}{K}"},
        {"policy.judged_only.False": "no: unjudged items count as not relevant"},
        {"policy.averaging.macro": "mean of per-query values (trec_eval 'all')"},
        {"policy.max_results.label": "Maximum results per query"},
    ],
)
def test_a_measure_or_setting_text_written_by_hand_in_the_catalog_is_found(changed):
    catalog = {**english_catalog(), **changed}
    found = differences(catalog, english.sentences(catalog))
    assert [line.split(":")[0] for line in found] == list(changed)
    assert english.generated(catalog) == english_catalog()


def test_a_measure_text_changed_in_the_registry_is_found(monkeypatch):
    from dataclasses import replace

    from metrics.engine import registry

    edited = replace(registry.MEASURES["RR"], pitfall="Only the first relevant item counts.")
    monkeypatch.setitem(english.MEASURES, "RR", edited)
    catalog = english_catalog()
    found = differences(catalog, english.sentences(catalog))
    assert [line.split(":")[0] for line in found] == ["measure.RR.pitfall"]


def test_the_app_words_a_setting_around_the_settings_own_text():
    catalog = english_catalog()
    assert catalog["policy.averaging.micro"] == (
        f"{catalog['policy.averaging.name.micro']}: {POLICIES['averaging'].values['micro']}"
    )
    assert catalog["policy.label_source.majority"] == label_source_text("majority")
    assert catalog["policy.gain_map.help"].startswith(POLICIES["gain_map"].help)
    # a setting without a menu (a number, a limit) has no option texts
    assert "policy.max_results.None" not in catalog and "policy.relevance_level.1" not in catalog
