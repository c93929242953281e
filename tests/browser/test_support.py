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
