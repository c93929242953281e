"""One message catalog for every user-facing text, in English, Simplified Chinese and Japanese.

Messages live in ``ui/locales/<lang>.json`` as flat ``{"key": "text with {placeholders}"}``
objects. A message that depends on a count is an object of plural forms instead,
``{"one": "1 query", "other": "{n} queries"}``, chosen by the ``n`` placeholder under the
language's rule (:func:`metrics.io.messages.plural_form`: English has ``one`` and ``other``,
Chinese and Japanese only ``other``, so their catalogs write one plain string).
:func:`translate` is pure (testable without a server); :func:`t` reads the language chosen in the
sidebar from the session state.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from metrics.io.messages import plural_form
from ui.shell import keys

if TYPE_CHECKING:  # the review package is imported by the pages that word its sentences
    from metrics.review.compare import Wording

LOCALES = Path(__file__).resolve().parents[1] / "locales"

#: Language code -> name shown in the language menu (in that language).
LANGUAGES: dict[str, str] = {"en": "English", "zh": "简体中文", "ja": "日本語"}
DEFAULT_LANGUAGE = "en"

Message = str | dict[str, str]


@cache
def catalog(lang: str) -> dict[str, Message]:
    """The messages of one language, read once from ``ui/locales/<lang>.json``."""
    if lang not in LANGUAGES:
        lang = DEFAULT_LANGUAGE
    with open(LOCALES / f"{lang}.json", encoding="utf-8") as fh:
        return json.load(fh)


def has(key: str, lang: str = DEFAULT_LANGUAGE) -> bool:
    """Whether ``key`` has a message in ``lang``."""
    return key in catalog(lang)


def translate(key: str, lang: str = DEFAULT_LANGUAGE, **values: object) -> str:
    """The message ``key`` in ``lang`` with ``{placeholders}`` filled in.

    Plural forms are chosen by the ``n`` value. Falls back to English, then to the key itself, so
    a missing translation never breaks a page.
    """
    message = catalog(lang).get(key)
    if message is None:
        lang, message = DEFAULT_LANGUAGE, catalog(DEFAULT_LANGUAGE).get(key, key)
    text = plural_form(message, lang, values)
    return text.format(**values) if values else text


def number(value: float | int, digits: int | None = None) -> str:
    """A count with thousands separators (``12,345``), or a value with ``digits`` decimals.

    The same in the three languages: Chinese and Japanese write Arabic numerals with commas.
    """
    if digits is None and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits if digits is not None else 4}f}"


def current_language() -> str:
    """The language chosen in this browser session (English before any choice)."""
    import streamlit as st

    lang = st.session_state.get(keys.LANG, DEFAULT_LANGUAGE)
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def t(key: str, **values: object) -> str:
    """The message ``key`` in the session's language."""
    return translate(key, current_language(), **values)


def option_text(prefix: str) -> Callable[[object], str]:
    """A ``format_func`` for a menu: ``value -> message "<prefix><value>"`` in the session's
    language, fixed when the menu is drawn (Streamlit may call it again outside the page's run).
    """
    lang = current_language()
    return lambda value: translate(f"{prefix}{value}", lang)


def templates(defaults: Wording, lang: str = DEFAULT_LANGUAGE) -> dict[str, Message]:
    """The catalog's wording of the engine's sentence ``defaults`` (same keys) in ``lang``.

    A sentence that depends on a count is written as plural forms in the engine and in the
    English catalog (the engine picks the form by the count); Chinese and Japanese write it as
    one text. Keys the catalog lacks, or holds as plural forms where the engine expects one
    text, keep the engine's English text.
    """
    messages = catalog(lang)
    wording: dict[str, Message] = {}
    for key, text in defaults.items():
        message = messages.get(key)
        plural_allowed = not isinstance(text, str)
        if isinstance(message, str) or (isinstance(message, dict) and plural_allowed):
            wording[key] = message
        else:
            wording[key] = text if isinstance(text, str) else dict(text)
    return wording


def sentence_templates(lang: str | None = None) -> dict[str, Message]:
    """Wording of :func:`metrics.review.compare.headline` and the reversal sentences of
    :mod:`metrics.review.segments` in ``lang`` (the session's language when ``None``)."""
    from metrics.review.compare import HEADLINE_TEMPLATES
    from metrics.review.segments import REVERSAL_TEMPLATES

    return templates(
        {**HEADLINE_TEMPLATES, **REVERSAL_TEMPLATES}, current_language() if lang is None else lang
    )
