"""'Copy as code' on Curves, Segments and Report: the command line and the Python snippet print
the numbers the page shows, under the default settings and under changed ones."""

from __future__ import annotations

import csv
import io
import os
import shlex
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from metrics.io.export import to_csv_bytes
from metrics.io.samples import load_sample
from tests.app_support import ROOT, codes, fresh_app, open_page, tables_with

pytestmark = pytest.mark.slow


def write_files(folder: Path) -> None:
    """The sample's files as the panel's download buttons write them."""
    data = load_sample("web_search")
    (folder / "run.csv").write_bytes(to_csv_bytes(data.run, bom=False))
    (folder / "qrels.csv").write_bytes(to_csv_bytes(data.qrels, bom=False))
    (folder / "queries.csv").write_bytes(to_csv_bytes(data.segments, bom=False))


def run(words: list[str], folder: Path) -> str:
    done = subprocess.run(
        words,
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # the package, as `pip install .` gives it
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def command_words(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "metrics"]
    return [sys.executable, *words[1:]]


def curves_page(params: dict[str, str]):
    at = open_page(fresh_app(params), "curves")
    table = tables_with(at, "model", "P@10")[0].set_index("model")
    command = next(c for c in codes(at) if c.startswith("python -m metrics qrels.csv"))
    python = next(c for c in codes(at) if "summarize(evaluation" in c)
    return at, table, command, python


@pytest.mark.parametrize(
    "params, flags",
    [({}, []), ({"gain": "exponential", "rel": "2"}, ["--relevance-level", "2", "--gain"])],
)
def test_the_curves_pages_code_prints_its_table(tmp_path, params, flags):
    _, table, command, python = curves_page(params)
    for flag in flags:
        assert flag in shlex.split(command)
    write_files(tmp_path)
    printed = {
        (row[0], row[1]): float(row[3])
        for row in csv.reader(io.StringIO(run(command_words(command), tmp_path)), delimiter="\t")
    }
    snippet = run([sys.executable, "-c", python], tmp_path).split()
    assert set(printed) == {(m, c) for m in table.index for c in table.columns}
    for model in table.index:
        for measure in table.columns:
            shown = f"{table.loc[model, measure]:.4f}"
            assert f"{printed[model, measure]:.4f}" == shown, (model, measure)
        line = snippet[snippet.index(model) + 1 : snippet.index(model) + 1 + len(table.columns)]
        assert line == [f"{v:.4f}" for v in table.loc[model]], model


def test_the_curves_page_shows_the_peers_call_only_where_the_settings_are_its_own():
    at, _, _, _ = curves_page({})
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    assert "With pytrec_eval (trec_eval 9.0.8) itself, for lexical:" in text
    assert any("pytrec_eval.RelevanceEvaluator" in c for c in codes(at))
    at, _, _, _ = curves_page({"gain": "exponential"})
    assert not any("pytrec_eval.RelevanceEvaluator" in c for c in codes(at))


@pytest.mark.parametrize("params", [{}, {"gain": "exponential", "rel": "2"}])
def test_the_segments_pages_code_prints_its_deltas(tmp_path, params):
    at = fresh_app({"m": "nDCG", **params})
    at.session_state["w_seg_by"] = ["traffic"]
    open_page(at, "segments")
    table = tables_with(at, "traffic", "Δ dense")[0]
    rows = table[table["traffic"] != table["traffic"].iloc[-1]]  # the last row is all queries
    shown = {f"{v:.4f}" for c in ("Δ dense", "Δ hybrid") for v in rows[c]}
    command = next(c for c in codes(at) if c.startswith("python -m metrics compare"))
    python = next(c for c in codes(at) if "segment_rows(table)" in c)
    assert "--by traffic" in command
    if params:
        assert "--gain exponential" in command and "'gain': 'exponential'" in python
    write_files(tmp_path)
    snippet = run([sys.executable, "-c", python], tmp_path).split()
    assert shown <= set(snippet)
    printed = list(
        csv.DictReader(io.StringIO(run(command_words(command), tmp_path)), delimiter="\t")
    )
    deltas = {
        f"{float(r['delta']):.4f}"
        for r in printed
        if r["kind"] == "baseline" and r["segment"] != "(all)"
    }
    assert deltas == shown


def test_the_report_page_gives_the_compare_command_with_its_settings():
    at = open_page(fresh_app({"gain": "exponential"}), "report")
    command = next(c for c in codes(at) if c.startswith("python -m metrics compare"))
    assert "--gain exponential" in command
    assert "--baseline lexical" in command
    assert any("review_table(evaluation, request, segments)" in c for c in codes(at))


@pytest.mark.parametrize("params", [{}, {"gain": "exponential", "lk": "3"}])
def test_the_learn_pages_code_prints_the_lists_measures(tmp_path, params):
    """The list on Learn, downloaded as a run and judgments: the command line and the snippet
    print the values its formula cards end with."""
    from metrics import Settings
    from metrics.engine.explain import list_frames
    from ui.learn import evaluate as learn
    from ui.learn.panel import teaching_lists

    at = open_page(fresh_app(params), "learn")
    command = next(c for c in codes(at) if c.startswith("python -m metrics qrels.csv"))
    python = next(c for c in codes(at) if "summarize(evaluation" in c)
    words = shlex.split(command)[3:]
    names = [w for before, w in pairwise(words) if before == "-m"]
    k = int(names[0].split("@")[1])
    # the page's list, as the panel's buttons write it
    example = teaching_lists()[at.selectbox(key="w_learn_preset").value]
    settings = Settings(gain=params.get("gain", "linear"))
    run_table, qrels = list_frames(
        list(example.items), list(example.labels), list(example.unretrieved)
    )
    run_table.insert(0, "model", "list")
    (tmp_path / "run.csv").write_bytes(to_csv_bytes(run_table, bom=False))
    (tmp_path / "qrels.csv").write_bytes(to_csv_bytes(qrels, bom=False))
    expected = learn.evaluate_list(example, k, settings)
    printed = {
        row[-3]: float(row[-1])  # one model: measure, "all", value
        for row in csv.reader(io.StringIO(run(command_words(command), tmp_path)), delimiter="\t")
    }
    snippet = run([sys.executable, "-c", python], tmp_path).split()
    assert set(printed) == set(names)
    for measure, name in zip(learn.EXPLAINED, names):
        assert f"{printed[name]:.4f}" == f"{expected[measure]:.4f}", name
    line = snippet[snippet.index("list") + 1 : snippet.index("list") + 1 + len(names)]
    assert [f"{float(v):.4f}" for v in line] == [f"{expected[m]:.4f}" for m in learn.EXPLAINED]
