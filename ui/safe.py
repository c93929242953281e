"""Showing user text (file names, ids, labels) safely in places that render Markdown."""

from __future__ import annotations

import re

_MARKUP = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$:])")


def md_escape(text: object) -> str:
    """Backslash-escape Markdown syntax in ``text`` so it shows literally; HTML brackets become
    entities. Prefer ``st.text`` or ``st.dataframe`` where a label is not required."""
    return _MARKUP.sub(r"\\\1", str(text)).replace("<", "&lt;").replace(">", "&gt;")
