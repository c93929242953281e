"""Markdown tables of the measures and the policies, generated from the registry and settings.

The measures table of ``docs/measures.md`` and the policies table of ``docs/policies.md`` are
written between marker comments by ``python -m metrics.cli.docs_tables`` (``--check`` only
reports whether they are current; the tests run that check). ``docs/`` is part of a source
checkout, not of the installed package: run this from a checkout.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from metrics.engine.registry import MEASURES
from metrics.engine.settings import POLICIES, Settings

_DOCS = Path(__file__).resolve().parents[2] / "docs"

#: The page of the measures table in a source checkout (absent when the package is installed).
MEASURES_DOC = _DOCS / "measures.md"

#: The page of the policies table in a source checkout (absent when the package is installed).
POLICIES_DOC = _DOCS / "policies.md"

#: Command-line flag of each policy (``None``: not a flag of ``python -m metrics``).
CLI_FLAGS: dict[str, str | None] = {
    "ties": "--ties",
    "score_precision": "--score-precision",
    "score_order": "--score-order",
    "score_order_by_model": "--score-order MODEL=ORDER",
    "relevance_level": "-l / --relevance-level",
    "gain": "--gain",
    "short_lists": "--short-lists",
    "duplicates": "--duplicates",
    "missing_queries": "-c / --complete (zero)",
    "no_relevant": "--no-relevant",
    "fractional_labels": "--fractional-labels",
    "ndcg_relevance_level": "--ndcg-relevance-level",
    "judged_only": "-J / --judged-only",
    "max_results": "-M / --max-results N",
    "gain_map": "--gain-map L:G,...",
    "recall_rounding": "--recall-rounding",
    "label_source": "--label-source NAME (or majority, mean, median, max, min)",
    "averaging": "--averaging (macro, micro, geometric)",
}


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def measures_table() -> str:
    """One row per measure: notation, name, cutoff, trec_eval name, aliases, what it answers."""
    rows = [
        "| measure | name | cutoff | trec_eval | also written | what it answers |",
        "|---|---|---|---|---|---|",
    ]
    for d in MEASURES.values():
        notation = {
            "required": f"`{d.name}@K`",
            "optional": f"`{d.name}`, `{d.name}@K`",
            "none": f"`{d.name}`",
        }[d.cutoff]
        trec = ", ".join(f"`{n}`" for n in (d.trec_eval_full, d.trec_eval) if n) or "—"
        trec = trec.replace("{k}", "K")
        aliases = ", ".join(f"`{a}`" for a in d.aliases if a != d.name)
        params = "; ".join(f"{p.name} = {p.help}" for p in d.params)
        text = d.description + (f" Parameters: {params}." if params else "")
        rows.append(
            f"| {notation} | {_cell(d.pretty)} | {d.cutoff} | {trec} | "
            f"{_cell(aliases)} | {_cell(text)} |"
        )
    return "\n".join(rows)


def policies_table() -> str:
    """One row per policy: label, setting, command-line flag, values explained, default,
    what trec_eval does."""
    rows = [
        "| policy | setting | CLI flag | values | default | trec_eval |",
        "|---|---|---|---|---|---|",
    ]
    defaults = Settings()
    for name, p in POLICIES.items():
        values = "; ".join(f"`{v}`: {text}" for v, text in p.values.items())
        if name == "relevance_level":
            values = "any number: " + p.help
        default = getattr(defaults, name)
        if name == "score_order_by_model":
            values, default = "model=order pairs: " + p.help, "none"
        flag = CLI_FLAGS.get(name) or "—"
        rows.append(
            f"| {_cell(p.label)} | `{name}` | `{flag}` | {_cell(values)} | "
            f"`{default}` | {_cell(p.trec_eval)} |"
        )
    return "\n".join(rows)


TABLES: dict[str, Callable[[], str]] = {"measures": measures_table, "policies": policies_table}


def documents() -> dict[Path, str]:
    """The page that holds each table (read when called, so that a test can move the pages)."""
    return {MEASURES_DOC: "measures", POLICIES_DOC: "policies"}


def _replace_block(text: str, name: str, table: str) -> str:
    """``text`` with the lines between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``
    replaced by ``table``."""
    pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(\n<!-- {name}:end -->)", re.S)
    return pattern.sub(lambda m: m.group(1) + table + m.group(2), text)


def render(text: str, names: tuple[str, ...] = tuple(TABLES)) -> str:
    """``text`` with its ``<!-- NAME:start -->...<!-- NAME:end -->`` blocks of the tables
    ``names`` regenerated."""
    for name in names:
        text = _replace_block(text, name, TABLES[name]())
    return text


def main(argv: list[str] | None = None) -> int:
    """Rewrite the tables of the documentation (``--check``: exit 1 if any is out of date)."""
    argv = sys.argv[1:] if argv is None else argv
    texts: dict[Path, str] = {}
    for path, name in documents().items():
        if not path.is_file():
            print(
                f"error: {path}: not found; the documentation tables are generated in a source "
                "checkout of the project (python -m metrics.cli.docs_tables from its root), "
                "not from an installed package",
                file=sys.stderr,
            )
            return 2
        texts[path] = path.read_text(encoding="utf-8")
        if not re.search(rf"<!-- {name}:start -->\n.*?\n<!-- {name}:end -->", texts[path], re.S):
            print(
                f"error: {path}: no <!-- {name}:start --> ... <!-- {name}:end --> block to "
                f"write the {name} table into",
                file=sys.stderr,
            )
            return 2
    stale = 0
    for path, name in documents().items():
        fresh = render(texts[path], (name,))
        if fresh == texts[path]:
            continue
        if "--check" in argv:
            print(
                f"{path}: the {name} table is out of date: run python -m metrics.cli.docs_tables",
                file=sys.stderr,
            )
            stale += 1
        else:
            path.write_text(fresh, encoding="utf-8")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
