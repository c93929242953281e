"""The installable package: console scripts, samples found through package resources once
installed, and the documentation tables that only a source checkout has."""

from __future__ import annotations

import fnmatch
import importlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.cli import compare, docs_tables
from metrics.cli import main as cli_main
from metrics.io.samples import CHECKOUT_SAMPLE_DIR, SAMPLES, sample_directory

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _installed_layout(site: Path) -> None:
    """Lay ``metrics`` out as setuptools installs it, following pyproject.toml's package list,
    package-dir and package-data."""
    package_dir = SETUPTOOLS["package-dir"]
    for package in SETUPTOOLS["packages"]:
        source = REPO / package_dir.get(package, package.replace(".", "/"))
        target = site / package.replace(".", "/")
        target.mkdir(parents=True, exist_ok=True)
        for module in source.glob("*.py"):
            shutil.copy(module, target / module.name)
        for pattern in SETUPTOOLS.get("package-data", {}).get(package, []):
            for data in source.glob(pattern):
                (target / data.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(data, target / data.relative_to(source))


def test_in_a_checkout_the_samples_are_the_top_level_sample_data_folder():
    assert sample_directory() == CHECKOUT_SAMPLE_DIR == REPO / "sample_data"


def test_the_package_data_ships_every_file_of_every_sample():
    patterns = SETUPTOOLS["package-data"]["metrics.sample_data"]
    assert SETUPTOOLS["package-dir"]["metrics.sample_data"] == "sample_data"
    for sample in SAMPLES.values():
        for path in (*sample.runs, sample.judgments, sample.queries):
            if path is not None:
                assert any(fnmatch.fnmatch(path, p) for p in patterns), path


def test_installed_the_samples_load_from_the_package_through_importlib_resources(tmp_path):
    site, elsewhere = tmp_path / "site-packages", tmp_path / "elsewhere"
    _installed_layout(site)
    elsewhere.mkdir()
    script = (
        "from metrics.io.samples import load_sample, sample_directory\n"
        "print(sample_directory())\n"
        "data = load_sample('teaching')\n"
        "print(len(data.run), data.name)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=elsewhere,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    directory, loaded = result.stdout.splitlines()
    assert Path(directory) == site / "metrics" / "sample_data"
    assert loaded.endswith(" teaching") and int(loaded.split()[0]) > 0


@pytest.mark.parametrize(
    "script, function",
    [("rank-metrics", cli_main.main), ("rank-metrics-compare", compare.main)],
)
def test_each_console_script_names_its_command_line_entry_point(script, function):
    module, _, attribute = PYPROJECT["project"]["scripts"][script].partition(":")
    assert getattr(importlib.import_module(module), attribute) is function


def test_rank_metrics_compare_reads_its_arguments_after_the_script_name(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["rank-metrics-compare", "--help"])
    out, err = io.StringIO(), io.StringIO()
    assert compare.main(out=out, err=err) == 0
    assert out.getvalue().startswith("usage: ") and err.getvalue() == ""


def test_docs_tables_says_the_docs_belong_to_a_source_checkout(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(docs_tables, "MEASURES_DOC", tmp_path / "docs" / "measures.md")
    monkeypatch.setattr(docs_tables, "POLICIES_DOC", tmp_path / "docs" / "policies.md")
    assert docs_tables.main(["--check"]) == 2
    message = capsys.readouterr().err
    assert message.startswith(f"error: {tmp_path / 'docs' / 'measures.md'}: not found")
    assert "source checkout" in message


# --------------------------------------------------------------------------- the installed wheel
def _packages_in_the_tree() -> set[str]:
    """Every package of ``metrics/`` (a folder with ``__init__.py``), and the samples."""
    found = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "metrics").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    return found | {"metrics.sample_data"}


def test_the_package_list_is_every_package_of_the_tree():
    assert set(SETUPTOOLS["packages"]) == _packages_in_the_tree()


def _readme_commands() -> list[str]:
    """The commands of the README's "Command line" section, one string each (continuations
    joined)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Command line", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands, current = [], ""
    for line in section.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        current += line.rstrip("\\").strip() + " "
        if not line.endswith("\\"):
            commands.append(current.strip())
            current = ""
    return commands


def _files_the_readme_names(folder: Path) -> None:
    """The README's example files, made from the web_search sample: TREC files, the CSV tables,
    one CSV per model for the two-model example, and an LLM judge's labels."""
    sample = REPO / "sample_data" / "web_search"
    shutil.copytree(sample, folder / "sample_data" / "web_search")
    shutil.copy(sample / "trec" / "web_search.qrels", folder / "qrels.txt")
    shutil.copy(sample / "trec" / "web_search.qrels", folder / "assessors.qrels")
    shutil.copy(sample / "trec" / "hybrid.run", folder / "run.txt")
    for name in ("qrels.csv", "run.csv", "queries.csv"):
        shutil.copy(sample / name, folder / name)
    run = (sample / "run.csv").read_text(encoding="utf-8").splitlines()
    for model, name in (("lexical", "bm25.csv"), ("dense", "dense.csv")):
        rows = [line for line in run[1:] if line.endswith("," + model)]
        lines = [line.rsplit(",", 1)[0] for line in rows]
        (folder / name).write_text("query,item,score\n" + "\n".join(lines) + "\n", encoding="utf-8")
    # a second label source beside the judgments (python -m metrics labels): every fourth
    # label set to 0, as a judge stricter than the assessors
    qrels = (sample / "qrels.csv").read_text(encoding="utf-8").splitlines()
    judged = [q if i % 4 else q.rsplit(",", 1)[0] + ",0" for i, q in enumerate(qrels[1:])]
    (folder / "llm_judge.csv").write_text("\n".join([qrels[0], *judged]) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_the_built_wheel_installed_elsewhere_runs_every_readme_command(tmp_path):
    """``pip install .`` as a user does it (a wheel, in a fresh virtual environment that only
    borrows the dependencies already installed), then every command of the README's "Command
    line" section and both console scripts, run from a folder outside the checkout."""
    wheels, venv, elsewhere = tmp_path / "wheels", tmp_path / "venv", tmp_path / "elsewhere"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(wheels), str(REPO)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python, scripts = venv / "bin" / "python", venv / "bin"
    (wheel,) = wheels.glob("ranking_metrics_explorer-*.whl")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
         "-q", str(wheel)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    elsewhere.mkdir()
    _files_the_readme_names(elsewhere)
    env = {"PATH": f"{scripts}:/usr/bin:/bin", "HOME": str(tmp_path), "LC_ALL": "C.UTF-8"}

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", command], cwd=elsewhere, env=env, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip

    where = run("python -c 'import metrics; print(metrics.__file__)'")
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    commands = _readme_commands()
    assert len(commands) >= 6
    for command in commands:
        command = command.split(" | ", 1)[0]  # a pipe into another tool: its first part
        result = run(command)
        assert result.returncode == 0, f"{command}\n{result.stderr}"
        assert "Traceback" not in result.stderr, result.stderr
    others = (
        "rank-metrics --help",
        "rank-metrics-compare --help",
        "rank-metrics qrels.txt run.txt -m nDCG@10",
        "rank-metrics-compare qrels.csv run.csv --queries queries.csv --by query_type",
        "python -m metrics explain qrels.txt run.txt --from trec_eval --to ranx",
    )
    for script in others:
        result = run(script)
        assert result.returncode == 0, f"{script}\n{result.stderr}"
