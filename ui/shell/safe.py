"""Showing user text (file names, ids, labels) safely in places that render Markdown."""

from __future__ import annotations

import html
import re

from metrics.io.text_safety import visible

_MARKUP = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$:])")


def md_escape(text: object) -> str:
    """Backslash-escape Markdown syntax in ``text`` so it shows literally; HTML brackets become
    entities. Prefer ``st.text`` or ``st.dataframe`` where a label is not required."""
    return _MARKUP.sub(r"\\\1", visible(text)).replace("<", "&lt;").replace(">", "&gt;")


def plotly_text(text: object) -> str:
    """User text for plotly's labels, legends and hover templates, escaped once.

    Plotly reads a subset of HTML and decodes only some entities: ``&lt;``, ``&gt;``, ``&amp;``
    and numeric ones, but not ``&quot;``. So ``&``, ``<`` and ``>`` are escaped, quotes are left
    as they are (``&quot;`` would show literally), ``%`` becomes ``&#37;`` (so ``%{y}`` in a name
    is not read as a hover-template field), and bidirectional controls are made visible.
    """
    return html.escape(visible(text), quote=False).replace("%", "&#37;")
