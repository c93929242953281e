"""``python -m metrics compare``: tables for people and machines, exit codes for CI gates."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from metrics.cli.compare import OUTPUT_COLUMNS, main

TREC = Path(__file__).resolve().parent.parent / "sample_data" / "web_search" / "trec"
QRELS = str(TREC / "web_search.qrels")
LEXICAL, DENSE, HYBRID = (str(TREC / f"{m}.run") for m in ("lexical", "dense", "hybrid"))


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_json_lists_every_candidate_and_measure_with_all_statistics():
    code, out, _ = run(
        QRELS,
        LEXICAL,
        DENSE,
        HYBRID,
        "-m",
        "nDCG@10",
        "-m",
        "RR",
        "--format",
        "json",
        "--resamples",
        "1000",
    )
    document = json.loads(out)
    assert code == 0
    assert document["baseline"] == "lexical" and document["models"] == [
        "lexical",
        "dense",
        "hybrid",
    ]
    pairs = [(c["candidate"], c["measure"]) for c in document["comparisons"]]
    assert pairs == [("dense", "nDCG@10"), ("dense", "RR"), ("hybrid", "nDCG@10"), ("hybrid", "RR")]
    hybrid = document["comparisons"][2]
    assert set(OUTPUT_COLUMNS) <= set(hybrid)
    assert hybrid["n"] == 300 and hybrid["delta"] == pytest.approx(0.2440, abs=1e-4)
    assert hybrid["ci_low"] < hybrid["delta"] < hybrid["ci_high"]
    assert hybrid["wins"] + hybrid["ties"] + hybrid["losses"] == 300
    assert document["options"]["correction"] == "holm" and len(document["content_hash"]) == 64


def test_tsv_has_a_header_and_one_line_per_candidate_and_measure():
    code, out, _ = run(QRELS, LEXICAL, HYBRID, "-m", "P@10", "--resamples", "500")
    lines = out.strip().split("\n")
    assert code == 0 and lines[0].split("\t") == list(OUTPUT_COLUMNS)
    cells = dict(zip(lines[0].split("\t"), lines[1].split("\t")))
    assert (cells["candidate"], cells["measure"], cells["n"]) == ("hybrid", "P@10", "300")
    assert float(cells["delta"]) == pytest.approx(0.227333, abs=1e-5)


def test_same_seed_gives_the_same_output_and_another_seed_another_interval():
    args = (QRELS, LEXICAL, DENSE, "-m", "nDCG@10", "--resamples", "300", "--format", "json")
    first, again = run(*args, "--seed", "3")[1], run(*args, "--seed", "3")[1]
    other = run(*args, "--seed", "4")[1]
    assert first == again
    assert (
        json.loads(first)["comparisons"][0]["ci_low"]
        != json.loads(other)["comparisons"][0]["ci_low"]
    )


def test_fail_if_worse_exits_1_when_a_candidate_is_significantly_worse():
    code, _, err = run(
        QRELS, HYBRID, LEXICAL, "-m", "nDCG@10", "--resamples", "500", "--fail-if-worse", "nDCG@10"
    )
    assert code == 1
    assert "worse: lexical on nDCG@10" in err


def test_fail_if_worse_exits_0_when_no_candidate_is_worse():
    code, _, _ = run(QRELS, LEXICAL, HYBRID, "--resamples", "500", "--fail-if-worse", "ndcg_cut_10")
    assert code == 0


def test_missing_run_file_exits_2_naming_the_file_without_a_traceback():
    code, out, err = run(QRELS, LEXICAL, str(TREC / "missing.run"))
    assert code == 2 and out == ""
    assert "missing.run" in err and "Traceback" not in err


def test_binary_file_exits_2_naming_the_file(tmp_path):
    bad = tmp_path / "broken.run"
    bad.write_bytes(b"\x00\x01\x02 not a run")
    code, _, err = run(QRELS, LEXICAL, str(bad))
    assert code == 2 and err.startswith("error: broken.run:")


def test_unknown_measure_exits_2_listing_the_known_ones():
    code, _, err = run(QRELS, LEXICAL, HYBRID, "-m", "XYZ@3")
    assert code == 2 and "unknown measure 'XYZ'" in err and "nDCG" in err


def test_a_single_model_exits_2_asking_for_two_runs():
    code, _, err = run(QRELS, LEXICAL)
    assert code == 2 and "lexical.run: only one model" in err


def test_unknown_baseline_exits_2():
    code, _, err = run(QRELS, LEXICAL, HYBRID, "--baseline", "bm25")
    assert code == 2 and "'bm25' is not a model" in err


def test_bad_option_value_exits_2_with_usage():
    code, _, err = run(QRELS, LEXICAL, HYBRID, "--correction", "bonferroni")
    assert code == 2 and "invalid choice" in err


@pytest.mark.slow
def test_python_dash_m_metrics_compare_runs_as_a_program():
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics",
            "compare",
            QRELS,
            LEXICAL,
            HYBRID,
            "-m",
            "RR",
            "--resamples",
            "200",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=TREC.parent.parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["comparisons"][0]["candidate"] == "hybrid"


# ---------------------------------------------------------------- options out of range
@pytest.mark.parametrize(
    "option, message",
    [
        (
            ["--resamples", "2000000000"],
            "error: --resamples must be between 1 and 100,000, got 2,000,000,000. Fix: 5,000 "
            "(the default, as in the app) gives p-values down to 0.0002.",
        ),
        (
            ["--resamples", "0"],
            "error: --resamples must be between 1 and 100,000, got 0. Fix: 5,000 (the default, "
            "as in the app) gives p-values down to 0.0002.",
        ),
        (["--seed", "-1"], "error: --seed must be 0 or more, got -1."),
        (["--alpha", "2"], "error: --alpha must be between 0 and 1 (e.g. 0.05), got 2."),
        (
            ["-m", "ERR(gmax=2000)"],
            "error: ERR: gmax must be a whole number from 1 to 50, got 2000; write the largest "
            "label of the judgments' scale, e.g. ERR(gmax=3).",
        ),
        (
            ["--per-query-out", "values.txt"],
            "error: values.txt: --per-query-out writes Parquet (.parquet) or CSV (.csv), chosen "
            "by the suffix; this path ends in '.txt'. Fix: end the file name in .parquet (the "
            "app opens it) or .csv.",
        ),
    ],
)
def test_an_option_out_of_range_exits_2_with_one_line_before_reading_the_files(option, message):
    code, out, err = run(QRELS, LEXICAL, str(TREC / "missing.run"), *option)
    assert (code, out, err) == (2, "", message + "\n")


def test_an_option_given_a_double_dash_as_its_value_is_a_usage_error():
    code, out, err = run(QRELS, LEXICAL, HYBRID, "--resamples=--")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        "python -m metrics compare: error: argument --resamples: expected one argument"
    )


def test_per_query_out_writes_the_compared_values_as_csv_for_a_csv_path(tmp_path):
    target = tmp_path / "values.csv"
    code, _, _ = run(
        QRELS, LEXICAL, HYBRID, "-m", "RR", "--resamples", "10", "--per-query-out", str(target)
    )
    lines = target.read_text(encoding="utf-8-sig").splitlines()
    assert code == 0 and lines[0] == "model,query,RR" and len(lines) == 1 + 2 * 300


# ---------------------------------------------------------------- warnings on the data
@pytest.fixture
def untidy(tmp_path) -> tuple[str, ...]:
    """Judgments, a run, a run with a repeated item and an unjudged query, and a query table
    that gives query 1 two countries."""
    (tmp_path / "judged.qrels").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n")
    (tmp_path / "base.run").write_text(
        "1 Q0 d1 1 3.0 base\n1 Q0 d2 2 2.0 base\n1 Q0 d3 3 1.0 base\n2 Q0 d4 1 1.0 base\n"
    )
    (tmp_path / "next.run").write_text(
        "1 Q0 d1 1 3.0 next\n1 Q0 d1 2 2.0 next\n1 Q0 d3 3 1.0 next\n2 Q0 d4 1 1.0 next\n"
        "9 Q0 d4 1 1.0 next\n"
    )
    (tmp_path / "queries.csv").write_text("qid,country\n1,de\n1,fr\n2,fr\n")
    return tuple(str(tmp_path / name) for name in ("judged.qrels", "base.run", "next.run"))


def test_compare_prints_the_warnings_on_the_data_on_stderr(untidy, tmp_path):
    queries = str(tmp_path / "queries.csv")
    code, _, err = run(
        *untidy, "-m", "P@1", "--resamples", "10", "--queries", queries, "--by", "country"
    )
    assert code == 0
    lines = err.splitlines()
    headline = [line for line in lines if line.startswith("headline: ")]
    assert headline and lines[: len(headline)] == headline  # the decision comes first
    lines = lines[len(headline) :]
    verdict = [line for line in lines if line.startswith("verdict: ")]
    assert verdict and lines[-len(verdict) :] == verdict  # the per-row sentences come last
    assert lines[: -len(verdict)] == [
        "warning: 1 item appears more than once in the same list; the best-ranked copy is "
        "kept. (e.g. query 1, item d1 (next))",
        "warning: 1 of 3 queries in the run has no judgments; it is left out of the "
        "evaluation. (e.g. 9)",
        "warning: Segment 'country' varies within 1 query; the first value of the query is "
        "used. (e.g. 1)",
        "warning: queries.csv: 1 of 3 queries in the run is not in the query table; its "
        "segment values show as '(missing)'. (e.g. 9)",
    ]


def test_quiet_compare_prints_no_warnings(untidy):
    code, out, err = run(*untidy, "-m", "P@1", "--resamples", "10", "--quiet")
    assert code == 0 and out and err == ""


def test_compare_notes_the_comment_lines_the_trec_reader_skipped(untidy, tmp_path):
    commented = tmp_path / "commented.run"
    commented.write_text("# a comment\n" + Path(untidy[1]).read_text())
    code, _, err = run(untidy[0], str(commented), untidy[2], "-m", "P@1", "--resamples", "10")
    assert code == 0
    assert "note: commented.run: 1 comment line starting with '#' was skipped.\n" in err


# ---------------------------------------------------------------- how many models
def _models_csv(path: Path, n_models: int) -> str:
    rows = ["query,item,score,relevance,model"]
    for m in range(n_models):
        for q in range(3):
            rows += [f"{q},a,{2 + m % 3},1,m{m}", f"{q},b,{1 + (m + q) % 3},0,m{m}"]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_more_models_than_a_comparison_takes_exit_2_suggesting_to_choose_or_check_the_column(
    tmp_path,
):
    table = _models_csv(tmp_path / "log.csv", 51)
    code, out, err = run(table, table, "-m", "P@1", "--resamples", "10")
    assert (code, out) == (2, "")
    assert err == (
        "error: log.csv: 51 models were found (m0, m1, m2, m3, m4, ...); comparing 51 of them "
        "means 1,275 pairs of models, and a comparison takes at most 1,225 pairs (50 models). "
        "Fix: choose the models to compare with --baseline MODEL and --candidate MODEL "
        "(repeatable), or check the model column: each of its values is one model.\n"
    )


def test_candidates_can_be_chosen_among_many_models(tmp_path):
    table = _models_csv(tmp_path / "log.csv", 51)
    args = ("--baseline", "m7", "--candidate", "m3", "--candidate", "m40", "--format", "json")
    code, out, _ = run(table, table, "-m", "P@1", "--resamples", "10", *args)
    document = json.loads(out)
    assert code == 0 and document["baseline"] == "m7"
    assert [c["candidate"] for c in document["comparisons"]] == ["m3", "m40"]
    assert [(p["reference"], p["candidate"]) for p in document["pairwise"]] == [("m3", "m40")]


@pytest.mark.parametrize(
    "candidate, message",
    [
        ("m9", "error: --candidate 'm9' is not a model of the runs (m0, m1, m2).\n"),
        ("m0", "error: --candidate 'm0' is the baseline; a candidate is compared with it.\n"),
    ],
)
def test_a_candidate_that_is_not_a_model_or_is_the_baseline_exits_2(tmp_path, candidate, message):
    table = _models_csv(tmp_path / "log.csv", 3)
    code, _, err = run(table, table, "-m", "P@1", "--resamples", "10", "--candidate", candidate)
    assert (code, err) == (2, message)


@pytest.mark.slow
def test_fifty_models_are_compared(tmp_path):
    table = _models_csv(tmp_path / "log.csv", 50)
    code, out, _ = run(table, table, "-m", "P@1", "--resamples", "10", "--quiet")
    assert code == 0 and len(out.splitlines()) == 1 + 50 * 49 // 2
