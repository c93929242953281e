"""The Tools page: two tools' means, every differing query with its cause, and code that prints
the same numbers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from metrics.engine.differences import explain
from metrics.engine.profiles import profile
from metrics.io.loaders import load_sample
from tests.app_support import fresh_app, open_page, tables_with


def test_the_tools_page_gives_both_means_and_says_when_every_query_agrees():
    at = open_page(fresh_app(), "tools")
    assert at.title[0].value == "Why do two tools give two numbers?"
    means = tables_with(at, "measure", "trec_eval", "ranx")[0].set_index("measure")
    data = load_sample("web_search")
    run = data.run[data.run["model"] == "lexical"].drop(columns="model")
    found = explain(
        run,
        data.qrels,
        list(means.index),
        profile("trec_eval").settings(),
        profile("ranx").settings(),
    )
    for measure, (a, b) in found.measure_means.items():
        assert means.loc[measure, "trec_eval"] == pytest.approx(a)
        assert means.loc[measure, "ranx"] == pytest.approx(b)
    assert any("give the same value for every query" in s.value for s in at.success)
    codes = [c.value for c in at.code]
    assert codes[0].startswith("python -m metrics explain qrels.csv run.csv --from trec_eval")
    assert any("from ranx import" in c for c in codes)


def test_the_tools_page_names_the_cause_of_every_differing_query():
    at = fresh_app({"data": "teaching"})
    at.session_state["w_tools_second"] = "torchmetrics"
    open_page(at, "tools")
    causes = tables_with(at, "cause", "queries")[0]
    assert causes["cause"].tolist() == ["Fewer than K results"]
    queries = tables_with(at, "query", "cause")[0]
    assert len(queries) == causes["queries"].sum() > 0
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    assert "Fewer than K results: divide by the number returned" in text
    assert "agree on" in text


def test_the_tools_page_in_chinese_and_japanese_has_no_english_headings():
    for lang, title in (
        ("zh", "为什么两个工具给出两个数字？"),
        ("ja", "なぜ二つのツールで数値が違うのか"),
    ):
        at = open_page(fresh_app({"lang": lang}), "tools")
        assert at.title[0].value == title
        assert not any(h.value in ("The two means", "Copy as code") for h in at.subheader)


@pytest.mark.slow
def test_the_pages_snippets_print_its_numbers(tmp_path):
    import os

    from tests.app_support import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the package, as `pip install .` gives it
    at = open_page(fresh_app(), "tools")
    data = load_sample("web_search")
    run = data.run[data.run["model"] == "lexical"].drop(columns="model")
    run.to_csv(tmp_path / "run.csv", index=False)
    data.qrels.to_csv(tmp_path / "qrels.csv", index=False)
    means = tables_with(at, "measure", "trec_eval", "ranx")[0].set_index("measure")
    codes = [c.value for c in at.code]
    ours = subprocess.run(
        [sys.executable, "-c", codes[1]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    printed = ours.stdout.replace("np.float64(", "").replace(")", "")
    for measure in means.index:
        value = float(printed.split(f"'{measure}': (")[1].split(",")[0])
        assert value == pytest.approx(means.loc[measure, "trec_eval"])
    ranx_code = next(c for c in codes if "from ranx import" in c)
    result = subprocess.run(
        [sys.executable, "-c", ranx_code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    for measure in means.index:
        name = profile("ranx").name_of(measure)
        value = float(
            result.stdout.split(f"'{name}': ")[1]
            .split(",")[0]
            .split("}")[0]
            .replace("np.float64(", "")
            .rstrip(")")
        )
        assert value == pytest.approx(means.loc[measure, "ranx"], abs=1e-4)
    command = codes[0].split()
    cli = subprocess.run(
        [sys.executable, *command[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert "mean P@10: " in cli.stderr
    assert "agree: the numbers are the same for every query" in cli.stderr


@pytest.mark.slow
def test_the_compare_pages_code_prints_its_headline(tmp_path):
    import os

    from tests.app_support import ROOT

    at = open_page(fresh_app({"m": "nDCG"}), "compare")
    data = load_sample("web_search")
    data.run.to_csv(tmp_path / "run.csv", index=False)
    data.qrels.to_csv(tmp_path / "qrels.csv", index=False)
    data.segments.to_csv(tmp_path / "queries.csv", index=False)
    box = "\n".join(m.value for m in at.markdown).replace("\\", "").replace("&lt;", "<")
    codes = [c.value for c in at.code]
    command, python = codes[0], codes[1]
    assert command.startswith("python -m metrics compare qrels.csv run.csv -m nDCG@10")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ours = subprocess.run(
        [sys.executable, "-c", python], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert ours.returncode == 0, ours.stderr
    cli = subprocess.run(
        [sys.executable, *command.split()[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert cli.returncode == 0, cli.stderr
    first = next(line for line in ours.stdout.splitlines() if line.startswith("hybrid against"))
    assert first in box  # the page's headline, word for word
    assert f"verdict: {first}" in cli.stderr.splitlines()
