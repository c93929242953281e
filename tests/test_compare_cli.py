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
    assert hybrid["n"] == 300 and hybrid["delta"] == pytest.approx(0.2334, abs=1e-4)
    assert hybrid["ci_low"] < hybrid["delta"] < hybrid["ci_high"]
    assert hybrid["wins"] + hybrid["ties"] + hybrid["losses"] == 300
    assert document["options"]["correction"] == "holm" and len(document["content_hash"]) == 64


def test_tsv_has_a_header_and_one_line_per_candidate_and_measure():
    code, out, _ = run(QRELS, LEXICAL, HYBRID, "-m", "P@10", "--resamples", "500")
    lines = out.strip().split("\n")
    assert code == 0 and lines[0].split("\t") == list(OUTPUT_COLUMNS)
    cells = dict(zip(lines[0].split("\t"), lines[1].split("\t")))
    assert (cells["candidate"], cells["measure"], cells["n"]) == ("hybrid", "P@10", "300")
    assert float(cells["delta"]) == pytest.approx(0.221333, abs=1e-5)


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
