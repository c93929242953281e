"""The engine's modules import one another in one direction only.

Every module of ``metrics/`` is read with :mod:`ast` (nothing is imported) and the imports between
``metrics`` modules make a graph, which must have

- no circle (counting the imports made inside functions too, and those read only by the type
  checker);
- no import from a lower layer to a higher one (:data:`LAYERS`);
- no import of a ``metrics`` module inside a function, unless a comment next to it names the heavy
  library that the import puts off (:data:`HEAVY`): pandas for the command line's TREC files,
  scipy for the paired tests, pyspark for the Spark engine, and the like.

The app is checked the same way (:data:`WINGS`): ``ui/shell`` is the bottom layer and imports no
other part of ``ui/``; a wing (``ui/<wing>/``) imports the shell and its own modules; a page
imports the shell and its own wing only (:data:`PAGE_WINGS`; the engine through them);
``ui/server_start.py`` and ``app.py`` sit above the wings. No wing reaches into another: what
several wings use lives in the shell. No import circle is allowed anywhere in the repository
(``metrics``, ``ui``, ``pages``, ``app.py``, ``benchmarks``).

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

#: Every folder and file of Python code in the repository but the tests.
REPOSITORY = ("metrics", "ui", "pages", "app.py", "benchmarks", "sample_data")

#: Heavy or optional libraries a function-level import of a ``metrics`` module may put off; the
#: comment next to the import names one of them.
HEAVY = ("pandas", "scipy", "pyspark", "pyarrow.csv", "pyarrow.parquet", "plotly", "openpyxl")


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    in_function: bool
    type_only: bool = False


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(*tops: str) -> dict[str, Path]:
    """The modules under the folders ``tops`` (``metrics`` when none is named), by name; a
    top that names a file (``app.py``) is that module."""
    found: dict[str, Path] = {}
    for top in tops or ("metrics",):
        path = ROOT / top
        files = [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))
        found.update((module_name(p), p) for p in files)
    return found


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


def _type_checking(node: ast.AST) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (imports read by the type checker only)."""
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports_of(module: str, path: Path, known: set[str]) -> list[Import]:
    """The imports of ``metrics`` modules in one file, each resolved to the module it loads."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[Import] = set()

    def visit(node: ast.AST, in_function: bool, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            for target in _targets(child, module, path, known):
                if target in known and target != module:
                    found.add(Import(module, target, child.lineno, in_function, type_only))
            visit(
                child,
                in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef),
                type_only or _type_checking(child),
            )

    visit(tree, False, False)
    return sorted(found, key=lambda edge: (edge.line, edge.target))


def graph(*tops: str) -> tuple[dict[str, Path], list[Import]]:
    found = modules(*tops)
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


def test_no_circle_anywhere_in_the_repository() -> None:
    _, edges = graph(*REPOSITORY)
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


# --------------------------------------------------------------------------- the app

#: The parts of ``ui/`` from the bottom up: the shell (the frame and what several pages share),
#: the wings (one a page or a few pages, ``ui/<wing>/``), then what ``app.py`` starts above them.
SHELL = "ui.shell"
ABOVE_THE_WINGS = ("ui.server_start",)
WINGS = ("data", "learn", "curves", "review", "tools", "labels")

#: The wing of each page (ui/README.md's table of wings).
PAGE_WINGS = {
    "pages.1_Data": "data",
    "pages.2_Learn": "learn",
    "pages.3_Curves": "curves",
    "pages.4_Compare": "review",
    "pages.5_Segments": "review",
    "pages.6_Report": "review",
    "pages.7_Tools": "tools",
    "pages.8_Labels": "labels",
    "pages.9_History": "review",
}


def wing_of(module: str) -> str | None:
    """The wing of a module of ``ui/`` or ``pages/`` (``shell`` for the shell, ``None`` for the
    other parts of the repository and what sits above the wings)."""
    if module in PAGE_WINGS:
        return PAGE_WINGS[module]
    if module == "ui" or module == SHELL or module.startswith(SHELL + "."):
        return "shell"
    parts = module.split(".")
    if parts[0] == "ui" and module not in ABOVE_THE_WINGS:
        assert len(parts) > 2 and parts[1] in WINGS, f"{module} is in no wing: add it to WINGS"
        return parts[1]
    return None


def app_import_problems(edges: list[Import]) -> list[str]:
    """The imports of the app that break its layers: the shell importing a wing or what is
    above the wings, a wing or page importing another wing, a page importing anything but the
    shell and its wing, and ``metrics`` importing the app. Imports read only by the type checker
    are left to the circle check."""
    problems = []
    for edge in edges:
        source, target = wing_of(edge.source), wing_of(edge.target)
        where = f"{edge.source}:{edge.line} imports {edge.target}"
        if edge.source.split(".")[0] == "metrics" and edge.target.split(".")[0] != "metrics":
            problems.append(f"{where}: the engine imports nothing of the app")
        elif edge.target in ABOVE_THE_WINGS and edge.source != "app":
            problems.append(f"{where}: only app.py starts what is above the wings")
        elif edge.target in PAGE_WINGS or edge.target == "app":
            problems.append(f"{where}: nothing imports a page or app.py")
        elif edge.source in PAGE_WINGS and target is None:
            problems.append(f"{where}: a page imports only the shell and its own wing")
        elif source is None or target is None or edge.type_only:
            continue
        elif source == "shell" and target != "shell":
            problems.append(f"{where}: the shell imports no wing")
        elif target not in ("shell", source):
            problems.append(f"{where}: {source} does not reach into {target}")
    return problems


def test_the_app_is_in_layers() -> None:
    _, edges = graph(*REPOSITORY)
    problems = app_import_problems(edges)
    assert not problems, "imports across the app's layers:\n" + "\n".join(problems)


def test_every_page_has_its_wing() -> None:
    pages = set(modules("pages"))
    assert pages == set(PAGE_WINGS)
    assert set(PAGE_WINGS.values()) <= set(WINGS)
    assert {p.name for p in (ROOT / "ui").iterdir() if (p / "__init__.py").exists()} == {
        "shell",
        *WINGS,
    }


@pytest.mark.parametrize(
    ("source", "target", "problem"),
    [
        ("ui.shell.frame", "ui.learn.panel", "the shell imports no wing"),
        ("ui.shell.warm_up", "ui.server_start", "only app.py starts"),
        ("ui.learn.views", "ui.data.upload_panel", "learn does not reach into data"),
        ("pages.2_Learn", "ui.review.compute", "learn does not reach into review"),
        ("pages.3_Curves", "ui.tools.compute", "curves does not reach into tools"),
        ("pages.1_Data", "metrics.io.samples", "a page imports only the shell and its own wing"),
        ("pages.9_History", "metrics.store", "a page imports only the shell and its own wing"),
        ("ui.learn.views", "ui.tools.compute", "learn does not reach into tools"),
        ("ui.review.compare_tabs", "ui.labels.panel", "review does not reach into labels"),
        ("ui.review.compute", "pages.4_Compare", "nothing imports a page"),
        ("metrics.engine.ranking", "ui.shell.compute", "the engine imports nothing of the app"),
    ],
)
def test_the_app_check_finds_an_import_across_its_layers(source, target, problem) -> None:
    (found,) = app_import_problems([Import(source, target, 1, in_function=False)])
    assert problem in found


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("ui.learn.views", "ui.shell.frame"),
        ("pages.4_Compare", "ui.review.context"),
        ("pages.3_Curves", "ui.shell.code_panel"),
        ("ui.review.shared", "ui.review.tables"),
        ("pages.9_History", "ui.review.share"),
        ("ui.server_start", "ui.learn.panel"),
        ("app", "ui.server_start"),
        ("ui.tools.compute", "ui.review.controls"),
    ],
)
def test_the_app_check_lets_the_layers_import_downwards(source, target) -> None:
    type_only = source == "ui.tools.compute"
    edge = Import(source, target, 1, in_function=False, type_only=type_only)
    assert app_import_problems([edge]) == []


def test_the_circle_check_finds_a_circle() -> None:
    edges = [Import("ui.a", "ui.b", 1, False), Import("ui.b", "ui.a", 1, True)]
    assert circles(edges) == ["ui.a -> ui.b -> ui.a"] or circles(edges) == ["ui.b -> ui.a -> ui.b"]
