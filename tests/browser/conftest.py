"""Fixtures shared by the browser tests: one Chromium and one app server per test module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.support import (
    CHROMIUM,
    LAUNCH_ARGS,
    require_browser,
    screenshot_dir,
    streamlit_server,
)


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the screenshots go to (see :func:`screenshot_dir`)."""
    folder = screenshot_dir(tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server():
    """``streamlit run app.py`` on a free loopback port, fresh for each module."""
    require_browser()
    with streamlit_server() as url:
        yield url
