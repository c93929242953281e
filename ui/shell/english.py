"""The English sentences the engine words itself, written into the app's English catalog.

The engine words its findings (:mod:`metrics.io.messages`), its review sentences (the
templates of :mod:`metrics.review`), the store's refusals (:mod:`metrics.store.messages`), its
measures (name, description, pitfall and formula in :data:`metrics.engine.registry.MEASURES`) and
its settings (label, help and values in :data:`metrics.engine.settings.POLICIES`) in English, for
the command line, the report and exceptions. The app looks every text up in
``ui/locales/<lang>.json``; so that the English of those texts has one source, their entries in
``en.json`` are not written by hand but generated from the engine::

    python -m ui.shell.english          # rewrite them in ui/locales/en.json
    python -m ui.shell.english --check  # exit 1 if en.json differs from the engine

A new engine sentence gets its entry at the end of the entries with the same key prefix (next
to related keys); Chinese and Japanese are translated in their catalogs as before.
``tests/test_english_once.py`` fails when ``en.json`` is not what this writes. Only the command
imports the review package (it is not imported by the app).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from metrics.engine.registry import MEASURES
from metrics.engine.settings import POLICIES, label_source_text
from metrics.io.messages import ACTIONS, EXAMPLES, MESSAGES, RULES, WHERE, Template

#: The English catalog.
EN_JSON = Path(__file__).resolve().parents[1] / "locales" / "en.json"

#: The words of every measure the app shows (``measure.<name>.<part>``).
MEASURE_PARTS = ("pretty", "description", "pitfall")

#: The measures whose formula has words the catalogs translate (``measure.<name>.latex``); the
#: app shows the others' formulas as the registry writes them.
TRANSLATED_FORMULAS = ("P", "R", "RR", "AP")

#: Settings whose menu options name their value first (``policy.<field>.name.<value>``, the
#: name the chart subtitles use alone), then explain it.
NAMED_OPTIONS = ("averaging",)

#: The app's own words around a setting's (``{}``): what its widget's empty value means, the
#: format of its field, where the choice is used.
APP_NOTES = {
    "policy.max_results.label": "{} (0: no limit)",
    "policy.gain_map.label": "{} (label:gain,...)",
    "policy.gain_map.help": "{} Leave empty to use the nDCG gain setting.",
    "policy.label_source.help": "{} Every page, the downloads and the report use it; the "
    "Labels page compares the sources.",
}


def engine_sentences() -> Iterator[tuple[str, Template]]:
    """Every English sentence the engine words, by its catalog key."""
    # The review package (templates of the headline, reversals, verdicts and the report) is
    # imported only by this command, never by the app's first page.
    from metrics.review.compare import HEADLINE_TEMPLATES
    from metrics.review.decision import DECISION_TEMPLATES
    from metrics.review.segments import REVERSAL_TEMPLATES
    from metrics.review.stakeholder_report import REPORT_TEMPLATES
    from metrics.review.wording import VERDICT_TEMPLATES
    from metrics.store.messages import STORE_MESSAGES

    for prefix, texts in (
        ("finding.message.", MESSAGES),
        ("finding.fix.", ACTIONS),
        ("finding.example.", EXAMPLES),
        ("finding.where.", WHERE),
    ):
        for key, text in texts.items():
            yield prefix + key, text
    for setting, values in RULES.items():
        for value, text in values.items():
            yield f"finding.rule.{setting}.{value}", text
    for code, (message, fix) in STORE_MESSAGES.items():  # the store's refusals
        yield f"store.message.{code}", message
        yield f"store.fix.{code}", fix
    for templates in (
        HEADLINE_TEMPLATES,
        DECISION_TEMPLATES,
        REVERSAL_TEMPLATES,
        VERDICT_TEMPLATES,
        REPORT_TEMPLATES,
    ):
        yield from templates.items()


def measure_words() -> Iterator[tuple[str, str]]:
    """The words of every measure as the registry writes them, by catalog key."""
    for name, definition in MEASURES.items():
        for part in MEASURE_PARTS:
            yield f"measure.{name}.{part}", getattr(definition, part)
        if name in TRANSLATED_FORMULAS:
            yield f"measure.{name}.latex", definition.latex


def setting_words(names: Mapping[str, object]) -> Iterator[tuple[str, str]]:
    """The label, help and menu options of every setting as ``Settings`` words them, by
    catalog key. A setting documented with one value (a number, a limit, a gain map, the orders
    per model) has no menu: its value is not an option. ``names`` holds the options' short
    names (``policy.averaging.name.macro``) that :data:`NAMED_OPTIONS` put first."""
    for field, policy in POLICIES.items():
        texts = {"label": policy.label, "help": policy.help}
        if len(policy.values) > 1:
            for value, text in policy.values.items():
                if field == "label_source":
                    text = label_source_text(value)
                elif field in NAMED_OPTIONS:
                    text = f"{names[f'policy.{field}.name.{value}']}: {text}"
                texts[str(value)] = text
        for part, text in texts.items():
            key = f"policy.{field}.{part}"
            yield key, APP_NOTES.get(key, "{}").format(text)


def sentences(catalog: Mapping[str, object]) -> Iterator[tuple[str, Template]]:
    """Every English text ``en.json`` takes from the engine: its sentences, the measures' and
    the settings' words (the options' names read from ``catalog``)."""
    yield from engine_sentences()
    yield from measure_words()
    yield from setting_words(catalog)


def _value(text: object) -> str:
    if isinstance(text, dict):
        pairs = ",\n".join(
            f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
            for k, v in text.items()
        )
        return "{\n" + pairs + "\n }"
    return json.dumps(text, ensure_ascii=False)


def dump(catalog: dict[str, object]) -> str:
    """A catalog as the catalogs are written: one key per line, plural forms indented."""
    lines = (f" {json.dumps(k, ensure_ascii=False)}: {_value(v)}" for k, v in catalog.items())
    return "{\n" + ",\n".join(lines) + "\n}\n"


def generated(catalog: dict[str, object]) -> dict[str, object]:
    """``catalog`` with the engine's texts in place (a new one after the last key that shares
    its longest prefix: ``measure.F1.`` else ``measure.``)."""
    out = dict(catalog)
    for key, text in sentences(catalog):
        value = text if isinstance(text, str) else dict(text)
        if key in out:
            out[key] = value
            continue
        keys = list(out)
        parts = key.split(".")[:-1]
        at = len(keys) - 1
        for n in range(len(parts), 0, -1):
            prefix = ".".join(parts[:n]) + "."
            shared = [i for i, k in enumerate(keys) if k.startswith(prefix)]
            if shared:
                at = shared[-1]
                break
        out = dict([*list(out.items())[: at + 1], (key, value), *list(out.items())[at + 1 :]])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether en.json differs")
    args = parser.parse_args(argv)
    text = EN_JSON.read_text(encoding="utf-8")
    wanted = dump(generated(json.loads(text)))
    if args.check:
        if wanted != text:
            print(f"{EN_JSON}: differs from the engine's texts; run python -m ui.shell.english")
            return 1
        return 0
    if wanted != text:
        EN_JSON.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
