"""Session-state keys are defined once, in ``ui/shell/keys.py``.

The sources of ``ui/`` and ``pages/`` name a key of ``st.session_state`` only through that
module: no string literal (or f-string) as the key of ``st.session_state[...]``,
``.get(...)``, ``.pop(...)``, ``.setdefault(...)`` or ``... in st.session_state`` (also through a
local ``state = st.session_state``), no settable widget's key (``w_*``) written as a literal,
anywhere, and no module constant ``*_KEY = "..."`` of its own. Keys of buttons, downloads,
uploaders, charts, tables and containers (``btn_*``, ``dl_*``, ``up_*``, ``chart_*``,
``cmp_table``, ...) stay literal where the element is drawn: they are never read back from the
session state, and a test finds the element by the key it reads next to it. A key that
``ui.shell.keys`` defines must not be written as a literal ``key=`` either.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ui.shell import keys

ROOT = Path(__file__).resolve().parents[1]
KEYS_MODULE = ROOT / "ui" / "shell" / "keys.py"
SOURCES = sorted(
    p for p in [*(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").glob("*.py")] if p != KEYS_MODULE
)
#: Names a module uses for ``st.session_state`` itself.
STATE_NAMES = {"state"}
#: Defined key values (a ``key=`` literal must not repeat one of them).
DEFINED = {v for k, v in vars(keys).items() if k.isupper() and isinstance(v, str)}


def _is_state(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "session_state":
        return True
    return isinstance(node, ast.Name) and node.id in STATE_NAMES


def _literal(node: ast.AST | None) -> str | None:
    """The text of a string literal or the leading text of an f-string, else ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        head = node.values[0] if node.values else None
        return head.value if isinstance(head, ast.Constant) else "{...}"
    return None


def _state_key(node: ast.AST) -> str | None:
    """The literal key of a session-state access ``node`` (subscript, get/pop/setdefault, in)."""
    if isinstance(node, ast.Subscript) and _is_state(node.value):
        return _literal(node.slice)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "pop", "setdefault")
        and _is_state(node.func.value)
        and node.args
    ):
        return _literal(node.args[0])
    if isinstance(node, ast.Compare) and any(_is_state(c) for c in node.comparators):
        return _literal(node.left)
    return None


def _widget_key(node: ast.AST) -> str | None:
    """A ``key=`` literal naming a widget or a defined key, or any ``w_*`` literal."""
    if isinstance(node, ast.keyword) and node.arg == "key":
        value = _literal(node.value)
        if value is not None and (value.startswith(keys.WIDGET_PREFIX) or value in DEFINED):
            return value
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        value = node.value
        if value.startswith(keys.WIDGET_PREFIX) and value[2:].replace("_", "").isalnum():
            return value
    return None


def offences(source: str) -> list[str]:
    """Where ``source`` names a session key outside the keys module (line: what)."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        text = _state_key(node) or _widget_key(node)
        if text is not None:
            found.append(f"{getattr(node, 'lineno', '?')}: {text!r}")
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(_literal(node.value), str):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.endswith("_KEY"):
                    found.append(f"{node.lineno}: {target.id} = {_literal(node.value)!r}")
    return sorted(set(found))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_session_key_is_written_outside_the_keys_module(path):
    assert offences(path.read_text(encoding="utf-8")) == []


def test_the_guard_finds_each_way_of_writing_a_key():
    bad = """
import streamlit as st
TABLE_KEY = "handbuilt_table"
st.session_state["view"] = 1
state = st.session_state
state.get("lang")
state.pop(f"cmp_url_{name}", None)
st.session_state.setdefault("upload_cache", {})
if "missing_data" in st.session_state:
    pass
st.selectbox("x", [], key="w_seg_by")
st.selectbox("x", [], key=f"w_map_{tid}_{role}")
st.segmented_control("x", [], key="learn_level_pick")
defaults = (("w_review_seed", 0),)
"""
    assert len(offences(bad)) == 10
    good = """
import streamlit as st
from ui.shell import keys
st.session_state[keys.VIEW] = 1
st.session_state.get(keys.role_menu(tid, role))
st.button("x", key="btn_go")
st.dataframe(frame, key="cmp_table")
params.get("lang")
"""
    assert offences(good) == []


def test_every_key_is_defined_once():
    values = [v for k, v in vars(keys).items() if k.isupper() and isinstance(v, str)]
    assert len(values) == len(set(values))
    assert len(values) > 90
