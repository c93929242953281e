"""The Tools page: two tools' means, every differing query with its cause, and code that prints
the same numbers."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from metrics.engine.differences import explain
from metrics.engine.profiles import profile
from metrics.io.samples import load_sample
from tests.app_support import fresh_app, open_page, tables_with
from tests.oracles import require_oracle


def assert_means(means, labels, sample: str, model: str, tools: tuple[str, str]) -> None:
    """The page's two means (columns ``labels``) are :func:`explain`'s between ``tools``."""
    data = load_sample(sample)
    run = data.run[data.run["model"] == model].drop(columns="model")
    first, second = (profile(tool).settings() for tool in tools)
    found = explain(run, data.qrels, list(means.index), first, second)
    for measure, pair in found.measure_means.items():
        for label, value in zip(labels, pair):
            assert means.loc[measure, label] == pytest.approx(value)


def test_the_tools_page_gives_both_means_and_says_when_every_query_agrees():
    at = open_page(fresh_app(), "tools")
    assert at.title[0].value == "Why do two tools give two numbers?"
    means = tables_with(at, "measure", "trec_eval", "ranx")[0].set_index("measure")
    assert_means(means, ("trec_eval", "ranx"), "web_search", "lexical", ("trec_eval", "ranx"))
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


def recommendations_between(first: str, second: str):
    """The Tools page on the labelled recommendations sample, between two profiles."""
    at = fresh_app({"data": "recommendations"})
    at.session_state["w_tools_first"] = first
    at.session_state["w_tools_second"] = second
    return open_page(at, "tools")


def test_the_tools_page_puts_lightgbm_beside_trec_eval_with_lightgbm_s_own_code():
    at = recommendations_between("trec_eval", "lightgbm")
    label = "LightGBM (ndcg, eval_at)"
    means = tables_with(at, "measure", "trec_eval", label)[0].set_index("measure")
    assert_means(
        means, ("trec_eval", label), "recommendations", "baseline", ("trec_eval", "lightgbm")
    )
    causes = set(tables_with(at, "cause", "queries")[0]["cause"])
    assert causes == {"Queries with no relevant item", "Tied scores"}  # labels 0/1: same gain
    captions = "\n".join(c.value for c in at.caption)
    assert "a query without relevant items scored 1" in captions
    assert any("import lightgbm as lgb" in c.value for c in at.code)


def test_a_rag_tool_is_compared_on_context_precision_in_every_language():
    for lang, profile_name in (
        ("en", "ragas context precision"),
        ("zh", "ragas 上下文精确率"),
        ("ja", "ragas のコンテキスト適合率"),
    ):
        at = fresh_app({"data": "recommendations", "lang": lang})
        at.session_state["w_tools_second"] = "ragas"
        open_page(at, "tools")
        means = next(d.value for d in at.dataframe if profile_name in d.value.columns)
        assert "CP@10" in set(means.iloc[:, 0]), lang


@pytest.mark.slow
def test_the_learning_to_rank_snippets_print_the_pages_numbers(tmp_path):
    require_oracle("lightgbm")
    require_oracle("xgboost")
    data = load_sample("recommendations")
    run = data.run[data.run["model"] == "baseline"].drop(columns="model")
    run.to_csv(tmp_path / "run.csv", index=False)
    data.qrels.to_csv(tmp_path / "qrels.csv", index=False)
    for first, second in (("lightgbm", "xgboost"), ("trec_eval", "xgboost_minus")):
        at = recommendations_between(first, second)
        for key in {first, second} - {"trec_eval"}:
            side = 0 if key == first else 1
            means = tables_with(at, "measure")[0].set_index("measure").iloc[:, side]
            code = next(c.value for c in at.code if f"import {key.split('_')[0]}" in c.value)
            printed = subprocess.run(
                [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True
            )
            assert printed.returncode == 0, printed.stderr
            named = {m: profile(key).name_of(m) for m in means.index}
            assert any(named.values()), key
            for measure, value in means.items():
                name = named[measure]
                if name is None:
                    continue
                shown = re.search(rf"{re.escape(name)}[: ]([0-9.e-]+)", printed.stdout)
                assert shown, (key, name, printed.stdout)
                assert float(shown[1]) == pytest.approx(value, abs=1e-9), (key, measure)
