"""The catalog's words for the engine's names: settings, their values, measures, data sets.

Each look-up reads the catalog (``ui/locales/<lang>.json``) in the session language, or in the
language given: ``policy.<field>.label|help|<value>|name.<value>``,
``measure.<name>.pretty|description|pitfall|latex`` (the registry's English where the catalog
has none) and ``sample.<name>.description``. The frame, the wings and the pages name settings and
measures through it.
"""

from __future__ import annotations

from metrics.engine.registry import MEASURES
from ui.shell.i18n import current_language, has, t, translate


def policy_text(field: str, value: object) -> str:
    """A setting value explained, in the session language (``policy.<field>.<value>``)."""
    return t(f"policy.{field}.{value}")


def policy_label(field: str) -> str:
    """The label of a setting in the session language (``policy.<field>.label``)."""
    return t(f"policy.{field}.label")


def policy_help(field: str) -> str:
    """What a setting decides, in the session language (``policy.<field>.help``)."""
    return t(f"policy.{field}.help")


def policy_name(field: str, value: object) -> str:
    """The short name of a setting value (``macro average``) for chart subtitles, in the session
    language (``policy.<field>.name.<value>``; the explained value where there is none)."""
    key = f"policy.{field}.name.{value}"
    return t(key) if has(key) else policy_text(field, value)


def measure_pretty(name: str, lang: str | None = None) -> str:
    """The display name of a measure (``Precision``) in ``lang`` (the session's by default)."""
    return measure_text(name, "pretty", lang)


def measure_label(name: str, lang: str | None = None) -> str:
    """``P · Precision`` (just ``nDCG`` when the two are the same)."""
    pretty = measure_pretty(name, lang)
    return name if pretty == name else f"{name} · {pretty}"


def dataset_description(dataset: object) -> str:
    """A data set's description in the session's language: a sample's from the catalog
    (``sample.<name>.description``), any other as it was given."""
    key = f"sample.{getattr(dataset, 'name', '')}.description"
    return t(key) if has(key) else str(getattr(dataset, "description", "") or "")


def measure_text(name: str, part: str, lang: str | None = None) -> str:
    """``pretty``, ``description``, ``pitfall`` or ``latex`` (the formula) of a measure in
    ``lang`` (the session's by default), from the catalog or, where it has none, the
    registry's English."""
    lang = lang or current_language()
    key = f"measure.{name}.{part}"
    return translate(key, lang) if has(key, lang) else getattr(MEASURES[name], part)
