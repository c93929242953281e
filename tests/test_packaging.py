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
from metrics.io.loaders import CHECKOUT_SAMPLE_DIR, SAMPLES, sample_directory

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
        "from metrics.io.loaders import load_sample, sample_directory\n"
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
