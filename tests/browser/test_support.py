"""The browser tests skip without Chromium, except under CI, where they fail."""

from __future__ import annotations

import pytest

from tests.browser import support


def test_missing_chromium_skips_with_a_clear_message(monkeypatch):
    monkeypatch.setattr(support, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(
        pytest.skip.Exception, match="Chromium is not installed at /nonexistent/chromium"
    ):
        support.require_browser()


def test_missing_chromium_fails_when_ci_is_set(monkeypatch):
    monkeypatch.setattr(support, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        support.require_browser()


def test_browser_tests_wait_long_enough_for_a_loaded_machine():
    """Pages come from ``support.new_page`` (every wait at ``support.WAIT``, not Playwright's
    30 s), and no test waits for the app less long than that."""
    import re
    from pathlib import Path

    assert support.WAIT >= 180_000
    folder = Path(support.__file__).parent
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name not in ("support.py", "test_support.py"):
            assert "new_context(" not in text and "browser.new_page(" not in text, path.name
        for value in re.findall(r"\btimeout=([\d_]+)", text):
            number = int(value.replace("_", ""))
            assert number >= support.WAIT or number <= 5_000, (path.name, value)
