"""``python -m metrics labels``: judgment files or label columns read as named sources, the
agreement and consequence tables as TSV blocks or JSON, the same numbers as the Python API, and
unusable input refused in one line with exit status 2."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metrics.cli.labels import TABLES
from metrics.cli.main import main
from metrics.labels.sources import read_sources
from metrics.labels.study import study_labels
from metrics.review.compare import CompareOptions

QUERIES = [f"q{i}" for i in range(12)]


def cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["labels", *map(str, argv)], out, err)
    return status, out.getvalue(), err.getvalue()


def blocks(text: str) -> dict[str, pd.DataFrame]:
    """The TSV output's tables by name (``# NAME``, header, rows; blocks apart by a blank line)."""
    out = {}
    for block in text.strip("\n").split("\n\n"):
        head, *lines = block.split("\n")
        assert head.startswith("# ")
        out[head[2:]] = pd.read_csv(
            io.StringIO("\n".join(lines)), sep="\t", dtype=str, keep_default_na=False
        )
    return out


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Assessors' qrels, an LLM judge's CSV (with its model, a hole per query, and one label
    filled in by a person), and two runs that the two sources order differently."""
    assessors, judge, run_a, run_b = [], [], [], []
    for i, q in enumerate(QUERIES):
        for rank, item in enumerate(["a", "b", "c", "d"], 1):
            assessors.append(f"{q} 0 {item} {1 if item == 'a' else 0}")
            grade = "" if item == "d" else (1 if item == "b" else 0)
            model = "" if (i, item) == (0, "c") else "judge-7b"
            judge.append(f"{q},{item},{grade},{model}")
            run_a.append(f"{q} Q0 {item} {rank} {5 - rank} A")
            run_b.append(f"{q} Q0 {'badc'[rank - 1]} {rank} {5 - rank} B")
    paths = {
        "assessors": tmp_path / "assessors.qrels",
        "judge": tmp_path / "judge.csv",
        "a": tmp_path / "a.run",
        "b": tmp_path / "b.run",
    }
    paths["assessors"].write_text("\n".join(assessors) + "\n")
    paths["judge"].write_text("query,item,label,judge_model\n" + "\n".join(judge) + "\n")
    paths["a"].write_text("\n".join(run_a) + "\n")
    paths["b"].write_text("\n".join(run_b) + "\n")
    return paths


def test_every_table_is_a_block_with_the_numbers_of_the_python_api(files):
    status, out, err = cli(
        files["assessors"], files["judge"], files["a"], files["b"],
        "--name", "assessors", "--name", "LLM judge", "-m", "P@1", "--resamples", "999",
        "--judged-k", "4",
    )  # fmt: skip
    assert status == 0, err
    tables = blocks(out)
    assert list(tables) == list(TABLES)
    sources = read_sources([files["assessors"], files["judge"]], ["assessors", "LLM judge"])
    run = pd.concat(
        [
            pd.read_csv(files[m], sep=" ", names=["query", "q0", "item", "rank", "score", "model"])
            for m in ("a", "b")
        ]
    )[["query", "item", "score", "model"]]
    study = study_labels(sources, run, ["P@1"], options=CompareOptions(resamples=999))
    pairs = tables["agreement"].iloc[0]
    expected = study.agreement.pairs.iloc[0]
    for column in ("n", "agreement", "kappa", "kappa_linear", "kappa_quadratic"):
        assert float(pairs[column]) == pytest.approx(float(expected[column]), rel=1e-5)
    verdicts = tables["verdicts"].set_index("source")["verdict"]
    assert verdicts["assessors"] == "worse" and verdicts["LLM judge"] == "better"
    assert set(tables["verdicts"]["flip"]) == {"true"}
    assert tables["correlations"]["tau_b"].tolist() == ["-1"]
    judged = tables["judged"].set_index(["source", "model"])
    assert float(judged.loc[("LLM judge", "A"), "holes"]) == pytest.approx(0.25)
    sources_table = tables["sources"].set_index("source")
    assert sources_table.loc["LLM judge", "judge_model"] == "judge-7b"
    assert sources_table.loc["LLM judge", "mixed"] == "true"
    # stderr: how the files were read, the mixing warning, and one line per pair and flip
    assert "note: read as label sources: assessors (assessors.qrels), LLM judge (judge.csv)." in err
    assert "note: read as runs: a.run, b.run." in err
    assert (
        "warning: judge.csv: The label source 'LLM judge' mixes labels given by people (1)" in err
    )
    assert "agreement: assessors vs LLM judge: 36 items judged by both" in err
    assert "ordering: P@1: assessors vs LLM judge: tau_b -1.000, tau_AP -1.000, swapped: A/B" in err
    assert "flip: B vs A on P@1: worse under assessors, better under LLM judge" in err


def test_json_holds_the_chosen_tables_with_nan_as_null(files):
    status, out, err = cli(
        files["assessors"], files["judge"], files["a"],
        "--format", "json", "--table", "correlations", "--table", "agreement", "--quiet",
        "-m", "P@1", "--resamples", "99",
    )  # fmt: skip
    assert status == 0 and err == ""
    document = json.loads(out)
    assert document["sources"] == ["assessors", "judge"]
    assert list(document["tables"]) == ["correlations", "agreement"]
    (row,) = document["tables"]["correlations"]
    assert row["tau_b"] is None and row["reason"] == "one_system"
    assert document["warnings"][0]["code"] == "mixed_label_kinds"
    assert document["options"]["measures"] == ["P@1"] and document["categories"] == [0.0, 1.0]
    assert not any(isinstance(v, float) and math.isnan(v) for v in row.values())


def test_one_table_of_label_columns_is_the_sources_and_the_run(tmp_path):
    rows = []
    for q in QUERIES:
        for model, order in (("A", "abcd"), ("B", "bacd")):
            for rank, item in enumerate(order, 1):
                rows.append(
                    {"query": q, "item": item, "score": 5 - rank, "model": model,
                     "human": "relevant" if item == "a" else "not relevant",
                     "llm": 1 if item == "b" else (np.nan if item == "d" else 0)}
                )  # fmt: skip
    table = tmp_path / "labelled.csv"
    pd.DataFrame(rows).to_csv(table, index=False)
    status, out, err = cli(
        table, "--label-column", "human", "--label-column", "llm", "--name", "people",
        "--name", "model", "-m", "P@1", "--resamples", "99", "--table", "means",
    )  # fmt: skip
    assert status == 0, err
    means = blocks(out)["means"]
    p1 = means[means["measure"] == "P@1"].set_index(["source", "model"])["value"]
    assert (p1[("people", "A")], p1[("model", "B")], p1[("model", "A")]) == ("1", "1", "0")
    assert "note: read as runs: the rows of labelled.csv with a score." in err


def test_an_aggregate_is_compared_as_one_more_source(files):
    status, out, err = cli(
        files["assessors"], files["judge"], files["a"], files["b"], "--aggregate", "max",
        "-m", "P@1", "--resamples", "99", "--table", "sources", "--table", "means",
    )  # fmt: skip
    assert status == 0, err
    tables = blocks(out)
    assert tables["sources"]["source"].tolist() == ["assessors", "judge", "max"]
    assert set(tables["means"]["source"]) == {"assessors", "judge", "max"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["{assessors}", "{a}"],
            "error: Comparing label sources needs at least two; found 1 (label sources: "
            "assessors (assessors.qrels)). Fix: Give two or more judgment files, or one table "
            "with --label-column for each source.",
        ),
        (
            ["{assessors}", "{judge}", "--name", "x", "--name", "x"],
            "error: Two label sources are named 'x'. Fix: Give each source its own name (--name).",
        ),
        (
            ["{judge}", "--label-column", "label", "--label-column", "grade"],
            "error: judge.csv: column 'grade': The table has no label column 'grade'. Fix: Name "
            "label columns of the table: query, item, label, judge_model.",
        ),
        (
            ["{assessors}", "{judge}", "--table", "swaps"],
            "error: --table swaps needs runs: give run files after the judgment files.",
        ),
        (
            ["{assessors}", "{judge}", "{a}", "--baseline", "C"],
            "error: 'C' is not a model of the runs (A).",
        ),
    ],
)
def test_unusable_input_is_one_line_and_status_2(files, argv, message):
    status, out, err = cli(*[a.format(**files) for a in argv])
    assert (status, out) == (2, "")
    assert err.strip().splitlines()[-1] == message


def test_a_label_that_is_no_grade_names_its_file_and_line(files, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("query,item,label\nq0,a,1\nq0,b,sort of\n")
    status, _, err = cli(files["assessors"], bad)
    assert status == 2
    assert err.startswith("error: bad.csv:3: ") and "Fix:" in err


def test_help_is_exit_status_0():
    status, out, _ = cli("--help")
    assert status == 0 and "--label-column" in out and "usage: python -m metrics labels" in out
