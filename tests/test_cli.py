"""The command line: trec_eval's output for trec_eval's measures, every flag, every error."""

from __future__ import annotations

import importlib.machinery
import io
import json
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings

from metrics import Settings, evaluate, summarize
from metrics.cli import main as cli_main
from metrics.cli.evaluate import expand_measure_names, main
from metrics.engine.profiles import profile
from metrics.engine.registry import DEFAULT_MEASURES
from tests.oracles import require_oracle
from tests.strategies import collections

REPO = Path(__file__).resolve().parent.parent
TREC = REPO / "sample_data" / "web_search" / "trec"
QRELS, LEXICAL, DENSE = TREC / "web_search.qrels", TREC / "lexical.run", TREC / "dense.run"
TREC_MEASURES = [
    "P_5",
    "P_10",
    "recall_10",
    "ndcg_cut_10",
    "map",
    "map_cut_10",
    "recip_rank",
    "Rprec",
    "success_10",
    "ndcg",
]


def cli(*argv: object) -> tuple[int, str, str]:
    """Run the command in-process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], out, err)
    return status, out.getvalue(), err.getvalue()


def parse_tsv(text: str) -> dict[tuple[str, str], float]:
    rows = [line.split("\t") for line in text.splitlines()]
    return {(m.strip(), q): float(v) for m, q, v in rows}


def write_trec(run: pd.DataFrame, qrels: pd.DataFrame, directory: Path) -> tuple[Path, Path]:
    run_path, qrels_path = directory / "system.run", directory / "judgments.qrels"
    ranked = run.assign(rank=run.groupby("query").cumcount() + 1)
    run_path.write_text(
        "".join(
            f"{q} Q0 {i} {r} {s!r} tag\n"
            for q, i, s, r in ranked[["query", "item", "score", "rank"]].itertuples(index=False)
        )
    )
    qrels_path.write_text(
        "".join(
            f"{q} 0 {i} {int(rel)}\n"
            for q, i, rel in qrels[["query", "item", "relevance"]].itertuples(index=False)
        )
    )
    return qrels_path, run_path


def pytrec_eval_values(qrels_path: Path, run_path: Path) -> dict:
    pytrec_eval = require_oracle("pytrec_eval")
    qrels: dict = {}
    for line in qrels_path.read_text().splitlines():
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
    run: dict = {}
    for line in run_path.read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    request = {
        "P.5,10",
        "recall.10",
        "ndcg_cut.10",
        "map",
        "map_cut.10",
        "recip_rank",
        "Rprec",
        "success.10",
        "ndcg",
    }
    return pytrec_eval.RelevanceEvaluator(qrels, request).evaluate(run)


def assert_equal_to_pytrec_eval(qrels_path: Path, run_path: Path) -> None:
    expected = pytrec_eval_values(qrels_path, run_path)
    args = [qrels_path, run_path, "-q", "--names", "trec", "--digits", "12", "--quiet"]
    for name in TREC_MEASURES:
        args += ["-m", name]
    status, out, _ = cli(*args)
    assert status == 0
    ours = parse_tsv(out)
    assert {q for _, q in ours} == set(expected) | {"all"}
    for query, values in expected.items():
        for name in TREC_MEASURES:
            assert ours[name, query] == pytest.approx(values[name], abs=1e-9), (query, name)
    for name in TREC_MEASURES:
        mean = np.mean([v[name] for v in expected.values()])
        assert ours[name, "all"] == pytest.approx(mean, abs=1e-9), name


# ---------------------------------------------------------------- agreement with trec_eval
def test_output_on_the_sample_trec_files_equals_pytrec_eval_for_every_shared_measure():
    assert_equal_to_pytrec_eval(QRELS, LEXICAL)


@pytest.mark.slow
@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections())
def test_output_on_generated_trec_files_equals_pytrec_eval(data):
    run, qrels = data
    qrels = qrels.assign(relevance=qrels["relevance"].clip(lower=0))  # see test_against_trec_eval
    with tempfile.TemporaryDirectory() as directory:
        paths = write_trec(run, qrels, Path(directory))
        if set(run["query"]) & set(qrels["query"]):
            assert_equal_to_pytrec_eval(*paths)
        else:
            status, out, err = cli(*paths)
            assert (status, out) == (2, "")
            assert "no query appears in both the run and the judgments" in err


def test_trec_names_are_padded_like_trec_eval_so_outputs_can_be_diffed():
    status, out, _ = cli(QRELS, LEXICAL, "--names", "trec", "-m", "P_10", "-m", "map")
    assert status == 0
    assert out.splitlines() == [
        "P_10                  \tall\t0.5320",
        "map                   \tall\t0.5222",
    ]


def test_per_query_lines_come_query_by_query_then_the_means():
    status, out, _ = cli(QRELS, LEXICAL, "-q", "-m", "P@10", "-m", "RR")
    lines = [line.split("\t") for line in out.splitlines()]
    assert status == 0 and len(lines) == 2 * 300 + 2
    assert [row[:2] for row in lines[:4]] == [
        ["P@10", "1"],
        ["RR", "1"],
        ["P@10", "10"],
        ["RR", "10"],
    ]
    assert [row[:2] for row in lines[-2:]] == [["P@10", "all"], ["RR", "all"]]


# ---------------------------------------------------------------- measures and layouts
def test_without_measures_the_default_set_is_printed_in_order():
    status, out, _ = cli(QRELS, LEXICAL, "--quiet")
    assert status == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == list(DEFAULT_MEASURES)


def test_cutoff_ranges_and_lists_expand_to_one_measure_per_cutoff():
    assert expand_measure_names(["P@1..3", "ndcg_cut.5,10", "RR"]) == [
        "P@1",
        "P@2",
        "P@3",
        "ndcg_cut.5",
        "ndcg_cut.10",
        "RR",
    ]


def test_curves_compute_p_r_ap_and_ndcg_at_every_k_and_rr():
    status, out, _ = cli(QRELS, LEXICAL, "--curves", "3", "--quiet")
    names = [line.split("\t")[0] for line in out.splitlines()]
    assert status == 0
    assert names == [
        "P@1",
        "P@2",
        "P@3",
        "R@1",
        "R@2",
        "R@3",
        "AP@1",
        "AP@2",
        "AP@3",
        "nDCG@1",
        "nDCG@2",
        "nDCG@3",
        "RR",
    ]
    status, out, _ = cli(QRELS, LEXICAL, "--curves", "100", "--quiet")
    assert len(out.splitlines()) == 401


def test_several_runs_print_a_model_column():
    status, out, _ = cli(QRELS, LEXICAL, DENSE, "-m", "P@10", "--quiet")
    assert status == 0
    assert out.splitlines() == ["lexical\tP@10\tall\t0.5320", "dense\tP@10\tall\t0.6833"]


def test_json_output_holds_settings_means_and_per_query_values():
    status, out, _ = cli(
        QRELS, LEXICAL, "-m", "P@10", "-m", "AP", "--format", "json", "-q", "--quiet"
    )
    doc = json.loads(out)
    lexical = doc["models"]["lexical"]
    assert status == 0 and doc["measures"] == ["P@10", "AP"]
    assert doc["settings"]["relevance_level"] == 1 and lexical["queries"] == 300
    assert lexical["all"]["P@10"] == pytest.approx(0.532, abs=1e-4)
    assert lexical["per_query"]["1"]["P@10"] == 0.5


def test_csv_output_neutralises_formula_like_query_ids_but_keeps_numbers(tmp_path):
    run = pd.DataFrame(
        {
            "query": ["=HYPERLINK(1)", "=HYPERLINK(1)", "-5", "-5"],
            "item": ["a", "b", "a", "b"],
            "score": [2.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {"query": ["=HYPERLINK(1)", "-5"], "item": ["b", "a"], "relevance": [1, 1]}
    )
    qrels_path, run_path = write_trec(run, qrels, tmp_path)
    status, out, _ = cli(qrels_path, run_path, "-m", "RR", "-q", "--format", "csv")
    assert status == 0
    assert out.splitlines() == [
        "measure,query,value",
        "RR,-5,1.0000",
        "RR,'=HYPERLINK(1),0.5000",
        "RR,all,0.7500",
    ]


def test_tsv_lines_escape_tabs_newlines_and_backslashes_in_query_ids_and_json_keeps_them(
    tmp_path,
):
    ids = ["q\t1", "q\n2", "back\\slash"]
    run = pd.DataFrame({"query": ids, "item": ["a"] * 3, "score": [1.0] * 3})
    qrels = pd.DataFrame({"query": ids, "item": ["a"] * 3, "relevance": [1] * 3})
    run.to_csv(tmp_path / "run.csv", index=False)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    paths = (tmp_path / "qrels.csv", tmp_path / "run.csv", "-m", "P@1", "-q", "--quiet")
    status, out, _ = cli(*paths)
    assert status == 0
    assert sorted(out.split("\n")[:-1]) == sorted(
        [
            "P@1\tq\\t1\t1.0000",
            "P@1\tq\\n2\t1.0000",
            "P@1\tback\\\\slash\t1.0000",
            "P@1\tall\t1.0000",
        ]
    )
    status, out, _ = cli(*paths, "--format", "json")
    assert status == 0 and set(json.loads(out)["models"]["run"]["per_query"]) == set(ids)


def test_several_models_escape_their_names_and_carriage_returns_like_query_ids():
    from metrics.cli.output import write_tsv
    from metrics.engine.results import Results

    lists = types.SimpleNamespace(query_ids=np.array(["a\rb"], dtype=object), n_queries=1)
    results = Results(["P@1"], Settings())
    results.models["one\tmodel"] = (lists, np.array([[1.0]]), np.array([1.0]))
    results.models["two"] = (lists, np.array([[0.0]]), np.array([0.0]))
    out = io.StringIO()
    write_tsv(results, ["P@1"], True, 1, out)
    assert out.getvalue().split("\n") == [
        "one\\tmodel\tP@1\ta\\rb\t1.0",
        "one\\tmodel\tP@1\tall\t1.0",
        "two\tP@1\ta\\rb\t0.0",
        "two\tP@1\tall\t0.0",
        "",
    ]


# ---------------------------------------------------------------- the per-query table
def test_per_query_out_writes_parquet_for_a_parquet_path_and_safe_csv_for_a_csv_path(tmp_path):
    run = pd.DataFrame(
        {"query": ["=HYPERLINK(1)"] * 2 + ["7"] * 2, "item": list("abab"), "score": [2, 1] * 2}
    )
    qrels = pd.DataFrame({"query": ["=HYPERLINK(1)", "7"], "item": ["b", "a"], "relevance": [1, 1]})
    paths = write_trec(run, qrels, tmp_path)
    for name in ("values.parquet", "values.csv"):
        status, out, _ = cli(*paths, "-m", "RR", "--quiet", "--per-query-out", tmp_path / name)
        assert status == 0 and out == "RR\tall\t0.7500\n"
    written = pd.read_parquet(tmp_path / "values.parquet")
    assert written.to_dict("list") == {
        "model": ["system", "system"],
        "query": ["7", "=HYPERLINK(1)"],
        "RR": [1.0, 0.5],
    }
    assert (tmp_path / "values.csv").read_text(encoding="utf-8-sig").splitlines() == [
        "model,query,RR",
        "system,7,1.0",
        "system,'=HYPERLINK(1),0.5",
    ]


@pytest.mark.parametrize(
    "target, message",
    [
        (
            "values.txt",
            "values.txt: --per-query-out writes Parquet (.parquet) or CSV (.csv), chosen by the "
            "suffix; this path ends in '.txt'. Fix: end the file name in .parquet (the app opens "
            "it) or .csv.",
        ),
        (
            "values",
            "values: --per-query-out writes Parquet (.parquet) or CSV (.csv), chosen by the "
            "suffix; this path has no suffix. Fix: end the file name in .parquet (the app opens "
            "it) or .csv.",
        ),
        (
            "folder.parquet",
            "folder.parquet: --per-query-out names a folder. Fix: give a file name in the folder.",
        ),
        (
            "missing/values.parquet",
            "missing/values.parquet: cannot write the per-query table: the folder 'missing' does "
            "not exist. Fix: create the folder first, or write to an existing one.",
        ),
        (
            "file.txt/values.csv",
            "file.txt/values.csv: cannot write the per-query table: the folder 'file.txt' is not "
            "a folder. Fix: create the folder first, or write to an existing one.",
        ),
    ],
)
def test_an_unusable_per_query_path_is_refused_before_anything_is_computed(
    tmp_path, monkeypatch, target, message
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder.parquet").mkdir()
    (tmp_path / "file.txt").write_text("x")
    status, out, err = cli(QRELS, LEXICAL, "-m", "P@10", "--per-query-out", target)
    assert (status, out, err) == (2, "", f"error: {message}\n")


def test_a_per_query_table_that_cannot_be_written_is_one_line_naming_the_reason(
    tmp_path, monkeypatch
):
    import errno

    import pyarrow.parquet as pq

    def full_disk(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "Failed to write")

    monkeypatch.setattr(pq, "write_table", full_disk)
    target = tmp_path / "values.parquet"
    status, out, err = cli(QRELS, LEXICAL, "-m", "P@10", "--per-query-out", target)
    assert (status, out) == (2, "")
    assert err == (
        f"error: {target}: cannot write the per-query table (No space left on device). Fix: "
        "choose a path in a folder you can write to, on a disk with free space.\n"
    )


# ---------------------------------------------------------------- policies
@pytest.fixture
def csv_pair(tmp_path) -> tuple[Path, Path, pd.DataFrame, pd.DataFrame]:
    run = pd.DataFrame(
        {
            "query": ["a"] * 3 + ["b"] * 5 + ["c"] * 2,
            "item": list("xyz") + list("vwxyz") + ["x", "y"],
            "score": [3, 2, 2, 5, 4, 3, 2, 1, 2, 1],
        }
    )
    qrels = pd.DataFrame(
        {
            "query": ["a", "a", "b", "b", "c", "d"],
            "item": ["y", "z", "w", "q", "x", "x"],
            "relevance": [2, 1, 3, 1, 0, 1],
        }
    )
    run_path, qrels_path = tmp_path / "model.csv", tmp_path / "qrels.csv"
    run.to_csv(run_path, index=False)
    qrels.to_csv(qrels_path, index=False)
    return qrels_path, run_path, run, qrels


@pytest.mark.parametrize(
    "flags, settings",
    [
        ([], Settings()),
        (["--short-lists", "leave_out"], Settings(short_lists="leave_out")),
        (["--short-lists", "divide_by_returned"], Settings(short_lists="divide_by_returned")),
        (["--complete"], Settings(missing_queries="zero")),
        (["--no-relevant", "leave_out"], Settings(no_relevant="leave_out")),
        (["--averaging", "micro"], Settings(averaging="micro")),
        (["--gain", "exponential"], Settings(gain="exponential")),
        (["--relevance-level", "2"], Settings(relevance_level=2)),
        (["--ties", "input_order"], Settings(ties="input_order")),
        (["--score-precision", "float64"], Settings(score_precision="float64")),
        (
            ["--relevance-level", "2", "--ndcg-relevance-level"],
            Settings(relevance_level=2, ndcg_relevance_level=True),
        ),
        (["-J"], Settings(judged_only=True)),
        (["-M", "2"], Settings(max_results=2)),
        (["--gain-map", "1:3,2:9,3:20"], Settings(gain_map="1:3,2:9,3:20")),
        (["--averaging", "geometric"], Settings(averaging="geometric")),
        (
            ["--profile", "trec_eval10"],
            Settings(score_precision="float64", recall_rounding="lround"),
        ),
        (
            ["--profile", "trec_eval10", "--score-precision", "float32"],
            Settings(recall_rounding="lround"),
        ),
        (["--profile", "lightgbm"], profile("lightgbm").settings()),
        (["--profile", "xgboost_minus"], profile("xgboost_minus").settings()),
        (["--profile", "ranx"], profile("ranx").settings()),  # its nDCG relevance level holds
        (
            ["--profile", "lightgbm", "--gain", "linear", "-c"],
            profile("lightgbm").settings().with_(gain="linear", missing_queries="zero"),
        ),
    ],
)
def test_every_policy_flag_gives_the_library_s_averages(csv_pair, flags, settings):
    qrels_path, run_path, run, qrels = csv_pair
    names = ["P@4", "R@4", "nDCG@3", "AP", "RR", "Success@1", "Bpref", "IPrec@0.4", "NumRet"]
    args = [qrels_path, run_path, "--digits", "10", "--quiet", *flags]
    for name in names:
        args += ["-m", name]
    status, out, _ = cli(*args)
    expected = summarize(evaluate(run, qrels, names, settings)).set_index("measure")["value"]
    assert status == 0
    assert {m: v for (m, _), v in parse_tsv(out).items()} == pytest.approx(
        expected.to_dict(), abs=1e-9
    )


def test_new_measures_print_with_trec_eval_names(csv_pair):
    qrels_path, run_path, _, _ = csv_pair
    args = ["--names", "trec", "--quiet", "-m", "bpref", "-m", "iprec_at_recall_0.30"]
    status, out, _ = cli(qrels_path, run_path, *args, "-m", "num_ret", "-m", "11pt_avg")
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert status == 0 and names == ["bpref", "iprec_at_recall_0.30", "num_ret", "11pt_avg"]


def test_short_lists_left_out_print_no_line_for_those_queries(csv_pair):
    qrels_path, run_path, _, _ = csv_pair
    status, out, _ = cli(
        qrels_path, run_path, "-m", "P@4", "-q", "--short-lists", "leave_out", "--quiet"
    )
    assert status == 0 and [line.split("\t")[1] for line in out.splitlines()] == ["b", "all"]


def test_warnings_go_to_stderr_unless_quiet(csv_pair):
    qrels_path, run_path, _, _ = csv_pair
    status, out, err = cli(qrels_path, run_path, "-m", "P@1")
    assert status == 0 and out.startswith("P@1\tall\t")
    assert "warning: " in err and "tied scores" in err
    assert cli(qrels_path, run_path, "-m", "P@1", "--quiet")[2] == ""


def test_trec_runs_warn_about_queries_that_are_not_evaluated(tmp_path):
    run = pd.DataFrame({"query": ["q1", "q2"], "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"query": ["q1", "q3"], "item": ["a", "c"], "relevance": [1, 1]})
    status, _, err = cli(*write_trec(run, qrels, tmp_path), "-m", "P@1")
    assert status == 0
    assert "warning: system.run: 1 query has no judgments and is not evaluated (q2)." in err
    assert (
        "warning: system.run: 1 judged query is missing from the run and skipped; "
        "--complete scores them 0 (q3)."
    ) in err


def test_duplicates_can_be_refused(tmp_path):
    (tmp_path / "dup.run").write_text(
        "q 0 a 1 2.0 t\nq Q0 a 2 1.0 t\n".replace(" 0 a 1", " Q0 a 1")
    )
    (tmp_path / "q.qrels").write_text("q 0 a 1\n")
    status, _, err = cli(
        tmp_path / "q.qrels", tmp_path / "dup.run", "-m", "P@1", "--duplicates", "error"
    )
    assert status == 2
    assert err == (
        "error: dup.run: 1 duplicate item(s) within a query, e.g. "
        "q / a. Fix: remove the repeated rows, or choose duplicates='keep_best'.\n"
    )
    status, out, err = cli(tmp_path / "q.qrels", tmp_path / "dup.run", "-m", "P@1")
    assert status == 0 and out == "P@1\tall\t1.0000\n" and "dropped 1 repeated item" in err


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "argv, message",
    [
        (["-m", "nDGC@10"], "unknown measure 'nDGC'"),
        (["-m", "P@0"], "P: the cutoff must be a whole number ≥ 1, got 0."),
        (["-m", "Rprec@5"], "Rprec takes no cutoff; write Rprec."),
        (["-m", "P@5..1"], "'P@5..1': a cutoff range runs from 1 or more upwards, like P@1..100."),
        (["--digits", "20"], "--digits must be between 0 and 12, got 20."),
        (["--curves", "0"], "--curves needs a K from 1 to 1,000, got 0."),
        (["-m", "ERR(gmax=1024)"], "ERR: gmax must be a whole number from 1 to 50, got 1024;"),
    ],
)
def test_bad_options_exit_with_status_2_and_one_line_of_explanation(argv, message):
    status, out, err = cli(QRELS, LEXICAL, *argv)
    assert status == 2 and out == ""
    assert err.startswith("error: ") and message in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "option, name",
    [
        ("-l=--", "-l/--relevance-level"),
        ("--digits=--", "--digits"),
        ("--curves=--", "--curves"),
        ("-M=--", "-M/--max-results"),
        ("-m=--", "-m/--measure"),
        ("--per-query-out=--", "--per-query-out"),
    ],
)
def test_an_option_given_a_double_dash_as_its_value_is_a_usage_error_like_a_missing_value(
    option, name, capsys
):
    with pytest.raises(SystemExit) as exited:
        cli(QRELS, LEXICAL, option)
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"python -m metrics: error: argument {name}: expected one argument"
    )


def test_files_given_in_the_wrong_order_are_named():
    status, _, err = cli(LEXICAL, QRELS)
    assert status == 2
    assert err == (
        "error: lexical.run:1: this looks like a TREC run (6 "
        "fields), not judgments. Fix: give the judgments first: python -m metrics "
        "QRELS RUN.\n"
    )


def test_a_missing_file_is_named(tmp_path):
    status, _, err = cli(QRELS, tmp_path / "nothing.run")
    assert status == 2 and "nothing.run: Cannot read the file" in err


@pytest.mark.parametrize(
    "line, message",
    [
        (
            "5 Q0 d1 7 abc lexical",
            "bad.run:7: column 'score': The score 'abc' is not a number.",
        ),
        (
            "5 Q0 d1 7 0.5",
            "bad.run:7: A TREC run line needs 6 fields (qid Q0 docid rank score tag); "
            "this one has 5.",
        ),
        (
            "5 Q0 d1 seven 0.5 lexical",
            "bad.run:7: column 'rank': The rank 'seven' is not a whole number.",
        ),
        (
            "5 Q0 d1 7.5 0.5 lexical",
            "bad.run:7: column 'rank': The rank '7.5' is not a whole number.",
        ),
    ],
)
def test_a_broken_run_line_exits_with_status_2_naming_the_file_and_line(tmp_path, line, message):
    lines = LEXICAL.read_text().splitlines()[:10]
    lines[6] = line
    (tmp_path / "bad.run").write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "metrics", str(QRELS), str(tmp_path / "bad.run")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {message} Fix: Write one result per line: qid Q0 docid rank score tag.\n"
    )


def test_a_broken_qrels_line_is_named(tmp_path):
    (tmp_path / "bad.qrels").write_text("1 0 d1 1\n1 0 d2 x\n")
    status, _, err = cli(tmp_path / "bad.qrels", LEXICAL)
    assert status == 2
    assert err == (
        "error: bad.qrels:2: column 'relevance': The relevance 'x' is "
        "not a number. Fix: Write one judgment per line: qid 0 docid relevance.\n"
    )


def test_trec_files_with_several_spaces_between_fields_are_read_like_plain_ones(tmp_path):
    spaced = tmp_path / "lexical.run"
    spaced.write_text(LEXICAL.read_text().replace(" ", "   "))
    assert cli(QRELS, spaced, "-m", "P@5", "--quiet") == cli(QRELS, LEXICAL, "-m", "P@5", "--quiet")


# ---------------------------------------------------------------- start-up and subcommands
def test_evaluating_trec_files_does_not_import_pandas():
    code = (
        "import sys, io; from metrics.cli.evaluate import main; "
        f"main([{str(QRELS)!r}, {str(LEXICAL)!r}, '-q'], io.StringIO(), io.StringIO()); "
        "print('pandas' in sys.modules, 'scipy' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=True,
    )
    assert result.stdout.strip() == "False False"


def buffered_environment() -> dict[str, str]:
    """This environment with Python's output buffers on (as a user's shell has them), so that
    output still in a buffer at the end shows."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


@pytest.mark.parametrize("form", ["tsv", "csv", "json"])
def test_the_process_ends_with_all_its_output_written(form):
    """``python -m metrics`` ends without tearing the interpreter down: whatever is still in
    the output buffers must reach the pipe first, the last line included."""
    argv = [str(QRELS), str(LEXICAL), "-q", "--curves", "20", "--digits", "6", "--format", form]
    _, expected, _ = cli(*argv)
    assert len(expected) > 64 * 1024  # more than one buffer
    result = subprocess.run(
        [sys.executable, "-m", "metrics", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env=buffered_environment(),
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")


@pytest.mark.parametrize(
    "argv",
    [
        [QRELS, LEXICAL, "--format", "json"],
        [QRELS, LEXICAL, "-q", "--curves", "50"],
        ["compare", QRELS, LEXICAL, DENSE, "-m", "RR", "--resamples", "200", "--format", "json"]
        + ["--quiet"],
    ],
)
def test_a_reader_that_has_gone_away_is_not_an_error(argv):
    """Output to a pipe nobody reads any more (``| head`` that has ended): the exit status is
    0 and nothing is said, whether the output is still in the buffer at the end (a few lines)
    or meets the closed pipe while being written."""
    process = subprocess.Popen(
        [sys.executable, "-m", "metrics", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=buffered_environment(),
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read()
    assert (process.wait(timeout=120), err) == (0, b"")


def test_compare_is_dispatched_to_the_compare_module(monkeypatch):
    calls = []
    fake = types.ModuleType("metrics.cli.compare")
    fake.__spec__ = importlib.machinery.ModuleSpec("metrics.cli.compare", None)
    fake.main = lambda argv: calls.append(argv) or 7
    monkeypatch.setitem(sys.modules, "metrics.cli.compare", fake)
    assert cli_main.main(["compare", "a", "b", "-m", "P@10"]) == 7
    assert calls == [["a", "b", "-m", "P@10"]]


# ---------------------------------------------------------------- documentation
def test_ci_runs_exactly_the_test_command_of_the_readme():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = readme.split("Run the tests:\n\n```bash\n", 1)[1].split("\n```", 1)[0]
    assert command.startswith("pip install -r requirements-dev.txt && ")
    test_command = command.split(" && ", 1)[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == test_command == "python -m pytest -n 2"
    assert "set -euo pipefail" in ci


def test_the_readme_examples_of_the_command_line_run():
    status, out, _ = cli(QRELS, TREC / "hybrid.run", "-m", "P@10", "-m", "nDCG@10", "-m", "MRR")
    assert status == 0 and [line.split("\t")[0] for line in out.splitlines()] == [
        "P@10",
        "nDCG@10",
        "RR",
    ]


def test_fixed_point_text_matches_printf_rounding_including_halves():
    from metrics.cli.output import format_fixed

    rng = np.random.default_rng(5)
    values = np.concatenate(
        [
            rng.random(20_000) * rng.integers(1, 50, 20_000) / 7,
            [0.03125, 0.12345, 0.99995, 0.00005, 2.5, 0.0, 1.0, 12.34565],
        ]
    )
    for digits in (0, 1, 2, 4, 6):
        assert format_fixed(values, digits).to_pylist() == [f"{v:.{digits}f}" for v in values]
    assert format_fixed(np.array([-0.25, 1e300]), 2).to_pylist() == ["-0.25", f"{1e300:.2f}"]


@pytest.mark.parametrize(
    "flags, message",
    [
        (["-M", "0"], "max_results must be a whole number of 1 or more, or None; got 0."),
        (["--gain-map", "1:x"], "gain_map: '1:x' is not label:gain with a whole label ≥ 0"),
    ],
)
def test_bad_maximum_results_and_gain_maps_exit_with_status_2(csv_pair, flags, message):
    qrels_path, run_path, _, _ = csv_pair
    status, _, err = cli(qrels_path, run_path, "-m", "P@1", *flags)
    assert status == 2 and err.startswith(f"error: {message}")


def test_counts_print_as_whole_numbers_and_sum_over_queries_like_trec_eval(csv_pair):
    qrels_path, run_path, _, _ = csv_pair
    status, out, _ = cli(qrels_path, run_path, "--quiet", "-q", "-m", "num_ret", "-m", "P@1")
    lines = [line.split("\t") for line in out.splitlines()]
    counts = {q: v for m, q, v in lines if m == "NumRet"}
    assert status == 0 and counts == {"a": "3", "b": "5", "c": "2", "all": "10"}
    assert {v for m, _, v in lines if m == "P@1"} <= {"0.0000", "1.0000", "0.3333", "0.6667"}


# ---------------------------------------------------------------- warnings say the policy in force
@pytest.mark.parametrize(
    "flags, rule",
    [
        ([], "ties are broken by item id, descending."),
        (["--ties", "input_order"], "ties keep the order of the input rows."),
    ],
)
def test_the_tie_warning_of_a_table_describes_the_tie_policy_in_force(tmp_path, flags, rule):
    (tmp_path / "run.csv").write_text("query,item,score\nq,a,1\nq,b,1\nq,c,0.5\n")
    (tmp_path / "qrels.csv").write_text("query,item,relevance\nq,a,1\n")
    status, _, err = cli(tmp_path / "qrels.csv", tmp_path / "run.csv", "-m", "P@1", *flags)
    assert status == 0
    assert (
        "warning: 1 list has tied scores (2 rows share their score with another item "
        f"of the same list); {rule} (e.g. query q (run))\n"
    ) in err
