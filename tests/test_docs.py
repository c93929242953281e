"""The documentation: a README short enough to read, pages under ``docs/`` that it lists, and
relative links and anchors that lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from metrics.cli import docs_tables

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [README, *DOCS, REPO / "ui" / "README.md", REPO / "benchmarks" / "README.md"]

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """``text`` without fenced code blocks, so that a shell comment is not a heading."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text without markup, lower case, punctuation
    dropped (hyphens and underscores kept), spaces turned into hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[`*]", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of ``path``, with GitHub's ``-1``, ``-2``, ... for repeats."""
    seen: dict[str, int] = {}
    found = set()
    for match in HEADING.finditer(_prose(path.read_text(encoding="utf-8"))):
        base = slug(match.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path: Path) -> list[str]:
    """The link and image targets of ``path``, outside code."""
    return LINK.findall(CODE_SPAN.sub("", _prose(path.read_text(encoding="utf-8"))))


def broken_links(path: Path) -> list[str]:
    """The relative links of ``path`` whose file, or whose heading after ``#``, is missing."""
    broken = []
    for target in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, ...
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            where = linked.relative_to(REPO) if linked.is_relative_to(REPO) else linked
            broken.append(f"{target}: no heading #{anchor} in {where}")
    return broken


def test_slugs_follow_github():
    assert slug("Set up on a fresh machine") == "set-up-on-a-fresh-machine"
    assert slug("Building trec_eval") == "building-trec_eval"
    assert slug("An upload of 1,000,000 rows") == "an-upload-of-1000000-rows"
    assert (
        slug("The interaction budget: one walk through the app (`app_walk.py`)")
        == "the-interaction-budget-one-walk-through-the-app-app_walkpy"
    )


def test_broken_links_and_anchors_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## A part\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```bash\n# not a heading\n```\n\n"
        "[fine](other.md#a-part) [gone](missing.md) [no part](other.md#b-part) "
        "[here](#page) [not here](#not-a-heading) ![pic](pic.png) [web](https://example.com) "
        "`[code](nowhere.md)`\n",
        encoding="utf-8",
    )
    found = broken_links(page)
    assert [b.split(":")[0] for b in found] == [
        "missing.md",
        "other.md#b-part",
        "#not-a-heading",
        "pic.png",
    ]


def test_the_readme_is_short_enough_to_read():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"README.md has {lines} lines; move reference text into docs/"


def test_the_readme_keeps_the_set_up_commands():
    text = README.read_text(encoding="utf-8")
    assert "pip install -r requirements.txt && streamlit run app.py" in text
    assert "pip install -r requirements-dev.txt && python -m pytest -n 2" in text


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_lead_to_files_and_headings(path):
    assert broken_links(path) == []


def test_the_readme_lists_every_page_of_docs():
    listed = {(README.parent / t.partition("#")[0]).resolve() for t in links(README)}
    assert DOCS and [p.name for p in DOCS if p.resolve() not in listed] == []


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_page_of_docs_has_a_title_and_an_introduction(path):
    head = path.read_text(encoding="utf-8").split("\n\n", 2)
    assert head[0].startswith("# ") and "\n" not in head[0]
    assert len(head) > 1 and not head[1].startswith(("#", "|", "```", "-", "<!--"))


def test_docs_tables_rewrites_each_table_in_its_own_page(monkeypatch, tmp_path, capsys):
    measures, policies = tmp_path / "measures.md", tmp_path / "policies.md"
    stale = "<!-- {0}:start -->\n| old |\n<!-- {0}:end -->\n"
    measures.write_text("# M\n\n" + stale.format("measures"), encoding="utf-8")
    policies.write_text("# P\n\n" + stale.format("policies"), encoding="utf-8")
    monkeypatch.setattr(docs_tables, "MEASURES_DOC", measures)
    monkeypatch.setattr(docs_tables, "POLICIES_DOC", policies)
    assert docs_tables.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert f"{measures}: the measures table is out of date" in err
    assert f"{policies}: the policies table is out of date" in err
    assert docs_tables.main([]) == 0
    assert docs_tables.measures_table() in measures.read_text(encoding="utf-8")
    assert docs_tables.policies_table() not in measures.read_text(encoding="utf-8")
    assert docs_tables.policies_table() in policies.read_text(encoding="utf-8")
    assert docs_tables.main(["--check"]) == 0


def test_docs_tables_refuses_a_page_without_its_block(monkeypatch, tmp_path, capsys):
    measures, policies = tmp_path / "measures.md", tmp_path / "policies.md"
    measures.write_text("# M\n\n<!-- policies:start -->\n\n<!-- policies:end -->\n")
    policies.write_text("# P\n")
    monkeypatch.setattr(docs_tables, "MEASURES_DOC", measures)
    monkeypatch.setattr(docs_tables, "POLICIES_DOC", policies)
    assert docs_tables.main([]) == 2
    assert "no <!-- measures:start -->" in capsys.readouterr().err
    assert policies.read_text() == "# P\n"
