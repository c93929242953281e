"""The engine's modules import one another in one direction only.

Every module of ``metrics/`` is read with :mod:`ast` (nothing is imported) and the imports between
``metrics`` modules make a graph, which must have

- no circle (counting the imports made inside functions too, and those read only by the type
  checker);
- no import from a lower layer to a higher one (:data:`LAYERS`);
- no import of a ``metrics`` module inside a function, unless a comment next to it names the heavy
  library that the import puts off (:data:`HEAVY`): pandas for the command line's TREC files,
  scipy for the paired tests, pyspark for the Spark engine, and the like.

Set ``METRICS_LAYERING_ROOT`` to another checkout's directory to check its files instead.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("METRICS_LAYERING_ROOT", Path(__file__).resolve().parents[1]))

#: The layers from the bottom up: a module may import modules of its own layer and of lower ones.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("metrics", "metrics.errors", "metrics.schema"),
    ("metrics.engine",),
    ("metrics.io",),
    ("metrics.review",),
    ("metrics.labels",),
    ("metrics.store",),
    ("metrics.spark",),
    ("metrics.cli",),
    ("metrics.__main__",),
)

#: Heavy or optional libraries a function-level import of a ``metrics`` module may put off; the
#: comment next to the import names one of them.
HEAVY = ("pandas", "scipy", "pyspark", "pyarrow.csv", "pyarrow.parquet", "plotly", "openpyxl")


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    in_function: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / "metrics").rglob("*.py"))}


def layer_of(module: str) -> int:
    """The layer of ``module``: that of the longest prefix in :data:`LAYERS` naming it."""
    matches = [
        (len(prefix), index)
        for index, prefixes in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or (module.startswith(prefix + ".") and prefix != "metrics")
    ]
    assert matches, f"{module} is in no layer: add it to LAYERS"
    return max(matches)[1]


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _module_called(node: ast.AST) -> str | None:
    """The module named by ``importlib.import_module("metrics....")``, if ``node`` is one."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
    first = node.args[0]
    if name == "import_module" and isinstance(first, ast.Constant):
        return str(first.value)
    return None


def _targets(node: ast.AST, module: str, path: Path, known: set[str]) -> list[str]:
    """The modules an ``import``, ``from ... import`` or ``import_module`` call loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = _package_of(module, path).split(".")
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{alias.name}" for alias in node.names]
        return [name if name in known else base for name in names]
    called = _module_called(node)
    return [called] if called else []


def imports_of(module: str, path: Path, known: set[str]) -> list[Import]:
    """The imports of ``metrics`` modules in one file, each resolved to the module it loads."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[Import] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            for target in _targets(child, module, path, known):
                if target in known and target != module:
                    found.add(Import(module, target, child.lineno, in_function))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(tree, False)
    return sorted(found, key=lambda edge: (edge.line, edge.target))


def graph() -> tuple[dict[str, Path], list[Import]]:
    found = modules()
    known = set(found)
    edges = [edge for name, path in found.items() for edge in imports_of(name, path, known)]
    return found, edges


def circles(edges: list[Import]) -> list[str]:
    """A circle of imports, as ``a -> b -> a`` (empty when there is none)."""
    after: dict[str, set[str]] = {}
    for edge in edges:
        after.setdefault(edge.source, set()).add(edge.target)
    try:
        TopologicalSorter(after).prepare()
    except CycleError as exc:
        return [" -> ".join(reversed(exc.args[1]))]
    return []


def adjacent_comments(lines: list[str], line: int, import_lines: set[int]) -> str:
    """The comments on an import's line and in the comment block above it (over the imports
    directly above it, so that one comment may cover a group of imports)."""
    text = [lines[line - 1].partition("#")[2]]
    number = line - 1
    while number >= 1:
        stripped = lines[number - 1].strip()
        if stripped.startswith("#"):
            text.append(stripped)
        elif number not in import_lines:
            break
        number -= 1
    return " ".join(text)


def test_no_circle() -> None:
    _, edges = graph()
    found = circles(edges)
    assert not found, "modules that import one another: " + found[0]


def test_no_upward_import() -> None:
    _, edges = graph()
    upward = [
        f"{edge.source}:{edge.line} imports {edge.target}"
        for edge in edges
        if layer_of(edge.target) > layer_of(edge.source)
    ]
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_function_level_imports_name_the_heavy_library() -> None:
    found, edges = graph()
    bare: list[str] = []
    for name, path in found.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        import_lines = {
            number
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)
        }
        for edge in edges:
            if edge.source == name and edge.in_function:
                comment = adjacent_comments(lines, edge.line, import_lines)
                if not any(heavy in comment for heavy in HEAVY):
                    bare.append(f"{name}:{edge.line} imports {edge.target}")
    assert not bare, (
        "imports of metrics modules inside functions without a comment naming the heavy "
        f"library they put off (one of {', '.join(HEAVY)}):\n" + "\n".join(bare)
    )


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("metrics.schema", 0),
        ("metrics.engine.ranking", 1),
        ("metrics.labels.agreement", 4),
        ("metrics.store.runs", 5),
        ("metrics.cli.main", 7),
    ],
)
def test_layer_of(module: str, layer: int) -> None:
    assert layer_of(module) == layer


def test_the_graph_sees_imports() -> None:
    """The check reads the imports it checks: relative, ``from package import module`` and
    function-level forms resolve to the module loaded."""
    _, edges = graph()
    targets = {(edge.source, edge.target) for edge in edges}
    assert ("metrics.__main__", "metrics.cli.main") in targets
    assert len(edges) > 100
