"""Markdown tables of the measures and the policies, generated from the registry and settings.

The README's tables are written between marker comments by ``python -m metrics.cli.docs_tables``
(``--check`` only reports whether they are current; the tests run that check). The README is
part of a source checkout, not of the installed package: run this from a checkout.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from metrics.engine.registry import MEASURES
from metrics.engine.settings import POLICIES, Settings

#: The README of a source checkout (absent when the package is installed).
README = Path(__file__).resolve().parents[2] / "README.md"

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


TABLES = {"measures": measures_table, "policies": policies_table}


def _replace_block(text: str, name: str, table: str) -> str:
    """``text`` with the lines between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``
    replaced by ``table``."""
    pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(\n<!-- {name}:end -->)", re.S)
    return pattern.sub(lambda m: m.group(1) + table + m.group(2), text)


def render(text: str) -> str:
    """``text`` with every ``<!-- NAME:start -->...<!-- NAME:end -->`` block regenerated."""
    for name, make in TABLES.items():
        text = _replace_block(text, name, make())
    return text


def main(argv: list[str] | None = None) -> int:
    """Rewrite the README's tables (``--check``: exit 1 if they are out of date)."""
    argv = sys.argv[1:] if argv is None else argv
    if not README.is_file():
        print(
            f"error: {README}: not found; the README tables are generated in a source "
            "checkout of the project (python -m metrics.cli.docs_tables from its root), "
            "not from an installed package",
            file=sys.stderr,
        )
        return 2
    current = README.read_text(encoding="utf-8")
    fresh = render(current)
    if "--check" in argv:
        if fresh != current:
            print(
                "README.md tables are out of date: run python -m metrics.cli.docs_tables",
                file=sys.stderr,
            )
            return 1
        return 0
    README.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
