"""The words a reader sees in a chart (a plotly figure's JSON or an SVG picture of it), and which
of them are written in Latin letters once the names are set aside: in a Chinese or Japanese
chart, those are English left over."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator

#: What the term base keeps as written in every language (docs/terminology.md): the names of
#: correction methods, the rank-biased overlap's abbreviation and "vs" between two names.
KEPT = ("Benjamini", "Hochberg", "Bonferroni", "Holm", "Tukey", "HSD", "RBO", " vs ")

_TAG = re.compile(r"<[^>]*>")
_PLACEHOLDER = re.compile(r"%\{[^}]*\}")
#: The p of a p-value with its number (``p < 0.0008``) or as the term base writes it (p 值,
#: p 値).
_P_VALUE = re.compile(r"(?<![A-Za-z])p\s*(?:[=<>≤≥]\s*[-+0-9.e]+|(?=[值値]))")
_LATIN = re.compile(r"[A-Za-z]+")


def _strings(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict) and "bdata" in node:  # numbers, packed
        return
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from _strings(value)


def figure_texts(spec: dict) -> list[str]:
    """Every text of a figure's JSON (``json.loads(fig.to_json())``) a reader may see: titles
    (of the figure, axes, legend and colour bar), trace names, hover templates and hover data,
    texts, tick and category labels, annotations."""
    layout = spec.get("layout", {})
    texts: list[str] = []
    for name, part in layout.items():
        if name == "template" or not isinstance(part, dict):
            continue
        texts += _strings(part.get("title", {}))
        texts += _strings(part.get("ticktext", []))
    texts += _strings(layout.get("title", {}))
    texts += [str(note.get("text", "")) for note in layout.get("annotations", [])]
    for trace in spec.get("data", []):
        for field in ("name", "hovertemplate", "text", "texttemplate", "customdata"):
            texts += _strings(trace.get(field, ""))
        texts += _strings(trace.get("colorbar", {}).get("title", {}))
        for axis in ("x", "y"):
            texts += _strings(trace.get(axis, []))
    return texts


def svg_texts(svg: str) -> list[str]:
    """The texts drawn by an SVG picture (its ``<text>`` elements, spans joined)."""
    return [
        html.unescape(_TAG.sub("", inner)) for inner in re.findall(r"<text[^>]*>(.*?)</text>", svg)
    ]


def latin_words(texts: Iterable[str], names: Iterable[str]) -> list[str]:
    """The words in Latin letters of ``texts`` once markup, hover placeholders, p-values,
    ``names`` (models, measures, segment columns and values) and :data:`KEPT` are taken out."""
    kept = sorted({*names, *KEPT} - {""}, key=len, reverse=True)
    words = []
    for text in texts:
        text = html.unescape(_PLACEHOLDER.sub(" ", _TAG.sub(" ", str(text))))
        for name in kept:
            text = text.replace(name, " ")
        text = _P_VALUE.sub(" ", text)
        words += _LATIN.findall(text)
    return words
