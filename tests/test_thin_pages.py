"""Pages only lay out: each page file stays short, its logic in its wing (``ui/<wing>/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "pages").glob("*.py"))
#: The most lines a page file may have.
MOST_LINES = 160


def test_there_are_pages():
    assert len(PAGES) >= 9


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_file_is_short(page):
    lines = len(page.read_text(encoding="utf-8").splitlines())
    assert lines <= MOST_LINES, (
        f"{page.name} has {lines} lines (at most {MOST_LINES}): move what is not layout into "
        "its wing under ui/"
    )
