"""Helpers shared by the AppTest files: a fresh app per test, with cleared caches."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from ui.shell import keys, memo
from ui.shell.i18n import DEFAULT_LANGUAGE, translate

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGE = {
    "data": "pages/1_Data.py",
    "learn": "pages/2_Learn.py",
    "curves": "pages/3_Curves.py",
    "compare": "pages/4_Compare.py",
    "segments": "pages/5_Segments.py",
    "report": "pages/6_Report.py",
    "tools": "pages/7_Tools.py",
    "labels": "pages/8_Labels.py",
    "history": "pages/9_History.py",
}


def fresh_app(query_params: dict[str, str] | None = None) -> AppTest:
    """A new session of the app (caches cleared), not yet run."""
    st.cache_data.clear()
    st.cache_resource.clear()
    memo.clear_shared()
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (query_params or {}).items():
        at.query_params[key] = value
    return at


def open_page(at: AppTest, page: str) -> AppTest:
    """Switch to a page and run it; fails on any exception shown by the app."""
    at.switch_page(PAGE[page])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_tab(at: AppTest, page: str, section: str) -> AppTest:
    """Click a tab of a review page (``compare``, ``report``; only the open tab is laid out)
    and run; fails on any exception shown by the app."""
    state = at.session_state  # no .get: AppTest's session state has none
    lang = state["lang"] if "lang" in state else DEFAULT_LANGUAGE  # noqa: SIM401
    at.session_state[keys.section_tabs(page)] = translate(f"review.section.{section}", lang)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sidebar_text(at: AppTest) -> str:
    return "\n".join(x.value for x in at.sidebar.text)


def codes(at: AppTest) -> list[str]:
    return [c.value for c in at.code]


def upload(at: AppTest, runs: list, judgments: tuple | None = None) -> AppTest:
    """On the Data page, upload ``runs`` (and ``judgments``) as ``(name, bytes, type)`` files."""
    open_page(at, "data")
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="up_runs").set_value(runs)
    if judgments:
        at.file_uploader(key="up_judgments").set_value(judgments)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def tables_with(at: AppTest, *columns: str) -> list:
    """The tables (DataFrames) shown by ``st.dataframe`` that have all of ``columns``, in page
    order."""
    found = [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]
    assert found, (
        f"no table with {columns}; tables: {[list(d.value.columns) for d in at.dataframe]}"
    )
    return found
