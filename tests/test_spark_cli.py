"""``--engine spark`` prints what the local engine prints, and ``--per-query-out`` writes a table
that opens again as per-query results."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from metrics.cli import compare as compare_cli
from metrics.cli import evaluate as evaluate_cli
from metrics.io.per_query import per_query_dataset

pytestmark = pytest.mark.spark

SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"
TREC = SAMPLES / "web_search" / "trec"
QRELS = str(TREC / "web_search.qrels")
RUNS = [str(TREC / f"{m}.run") for m in ("lexical", "dense", "hybrid")]


def _evaluate(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = evaluate_cli.main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def _compare(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = compare_cli.main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "options",
    [
        ["-q", "--names", "trec", "-m", "P_5", "-m", "map", "-m", "ndcg_cut_10", "-m", "Rprec"],
        ["--averaging", "micro", "-m", "P@10", "-m", "R@10", "-m", "F1@10", "-m", "Success@1"],
        ["-q", "-c", "-l", "2", "--ties", "input_order", "--format", "json", "-m", "P@3"],
        ["--curves", "10", "--format", "csv"],
    ],
    ids=["trec-names", "micro", "policies-json", "curves-csv"],
)
def test_trec_files_print_the_same_with_engine_spark_as_without(spark, options):
    local = _evaluate(QRELS, *RUNS, *options)
    distributed = _evaluate(QRELS, *RUNS, *options, "--engine", "spark", "--master", "local[2]")
    assert local[0] == distributed[0] == 0
    assert distributed[1] == local[1]
    assert len(local[1].splitlines()) > 3


def test_csv_tables_with_a_model_column_print_the_same_with_engine_spark(spark):
    run, qrels = str(SAMPLES / "web_search" / "run.csv"), str(SAMPLES / "web_search" / "qrels.csv")
    options = ["-q", "-m", "P@10", "-m", "nDCG@5", "--gain", "exponential"]
    local = _evaluate(qrels, run, *options)
    distributed = _evaluate(qrels, run, *options, "--engine", "spark")
    assert distributed[1] == local[1]
    assert "\tdense\t" in local[1] or local[1].startswith("dense") or "hybrid" in local[1]


def test_the_teaching_samples_warnings_print_the_same_with_engine_spark(spark):
    """The pitfalls of web_search_pitfalls (ties, short lists, queries with nothing relevant,
    relevant items no model retrieved), word for word on stderr."""
    folder = SAMPLES / "web_search_pitfalls"
    files = [str(folder / "qrels.csv"), str(folder / "run.csv")]
    local = _evaluate(*files, "-m", "P@10", "-m", "nDCG@10")
    distributed = _evaluate(*files, "-m", "P@10", "-m", "nDCG@10", "--engine", "spark")
    assert local[0] == distributed[0] == 0, distributed[2]
    assert distributed[1:] == local[1:]
    for words in ("tied scores", "fewer than 10 items", "no relevant item", "not retrieved"):
        assert words in local[2], words


def test_a_folder_of_parquet_files_reads_like_the_file_it_was_written_from(spark, tmp_path):
    run = pd.read_csv(SAMPLES / "web_search" / "run.csv", dtype={"query": str})
    folder = tmp_path / "run_parquet"
    folder.mkdir()
    half = len(run) // 2
    run.iloc[:half].to_parquet(folder / "part-0.parquet")
    run.iloc[half:].to_parquet(folder / "part-1.parquet")
    qrels = str(SAMPLES / "web_search" / "qrels.csv")
    options = ["-q", "-m", "P@10", "-m", "AP"]
    local = _evaluate(qrels, str(SAMPLES / "web_search" / "run.csv"), *options)
    distributed = _evaluate(qrels, str(folder), *options, "--engine", "spark")
    assert distributed[0] == 0, distributed[2]
    assert distributed[1] == local[1]


def test_compare_prints_the_same_with_engine_spark_as_without(spark):
    options = ["-m", "P@10", "-m", "nDCG@10", "--resamples", "300"]
    local = _compare(QRELS, *RUNS, *options)
    distributed = _compare(QRELS, *RUNS, *options, "--engine", "spark", "--master", "local[2]")
    assert local[0] == distributed[0] == 0
    # header, 2 candidates × 2 measures against the baseline, 1 candidate pair × 2 measures
    assert len(local[1].splitlines()) == 1 + 2 * 2 + 2
    # Per-query values agree to the last bits of floating point, which moves p-values that are
    # far below any significance level (1e-30) in their printed digits; all else is the same.
    for a, b in zip(local[1].splitlines(), distributed[1].splitlines(), strict=True):
        for x, y in zip(a.split("\t"), b.split("\t"), strict=True):
            if x == y:
                continue
            assert float(x) < 1e-12 and float(y) < 1e-12, (a, b)


def test_per_query_out_writes_parquet_that_opens_as_per_query_results(spark, tmp_path):
    target = tmp_path / "per_query.parquet"
    code, out, err = _evaluate(
        QRELS,
        *RUNS,
        "-m",
        "P@10",
        "-m",
        "nDCG@10",
        "--engine",
        "spark",
        "--per-query-out",
        str(target),
    )
    assert code == 0, err
    data = per_query_dataset(str(target))
    assert data.models == ["lexical", "dense", "hybrid"]
    assert data.measure_names == ["P@10", "nDCG@10"]
    mean = data.per_query.groupby("model", sort=False)["P@10"].mean()
    line = next(x for x in out.splitlines() if x.startswith("lexical\tP@10\tall"))
    assert f"{mean['lexical']:.4f}" == line.split("\t")[-1]


def test_engine_spark_refuses_repeated_items_like_the_local_engine(spark, tmp_path):
    run = tmp_path / "dups.run"
    run.write_text("1 Q0 d1 1 2.0 x\n1 Q0 d1 2 1.0 x\n1 Q0 d2 3 0.5 x\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 d1 1\n")
    local = _evaluate(str(qrels), str(run), "--duplicates", "error")
    distributed = _evaluate(str(qrels), str(run), "--duplicates", "error", "--engine", "spark")
    assert local[0] == distributed[0] == 2
    assert distributed[2] == local[2]


def _same_except_far_below_any_level(local: str, distributed: str) -> None:
    """Equal line by line, but for p-values below 1e-12 whose last digits follow the last bits
    of the per-query values."""
    header = local.splitlines()[0].split("\t")
    for a, b in zip(local.splitlines(), distributed.splitlines(), strict=True):
        for name, x, y in zip(header, a.split("\t"), b.split("\t"), strict=True):
            if x != y:
                assert float(x) < 1e-12 and float(y) < 1e-12, (name, x, y, a)


def test_compare_by_segments_of_a_query_table_prints_the_same_with_engine_spark(spark):
    web = SAMPLES / "web_search"
    files = [str(web / "qrels.csv"), str(web / "run.csv")]
    options = ["-m", "P@10", "-m", "nDCG@10", "--resamples", "300"]
    options += ["--queries", str(web / "queries.csv"), "--by", "query_type", "--by", "traffic"]
    local = _compare(*files, *options)
    distributed = _compare(*files, *options, "--engine", "spark", "--master", "local[2]")
    assert local[0] == distributed[0] == 0, distributed[2]
    assert distributed[2] == local[2]
    # each segment column on its own: 2 candidates x 2 measures x 3 query types, and the same
    # for the 3 traffic levels
    lines = local[1].splitlines()
    assert len([line for line in lines if "\tquery_type = " in line]) == 2 * 2 * 3
    assert len([line for line in lines if "\ttraffic = " in line]) == 2 * 2 * 3
    _same_except_far_below_any_level(local[1], distributed[1])


def test_compare_by_a_column_the_query_table_lacks_is_refused_like_the_local_engine(spark):
    web = SAMPLES / "web_search"
    files = [str(web / "qrels.csv"), str(web / "run.csv")]
    options = ["--queries", str(web / "queries.csv"), "--by", "device", "--resamples", "50"]
    local = _compare(*files, *options)
    distributed = _compare(*files, *options, "--engine", "spark", "--master", "local[2]")
    assert local[0] == distributed[0] == 2
    assert distributed[2] == local[2]
    assert "no segment column 'device'" in local[2]


#: TREC files with what the local command line reports: a comment line, text after the last
#: field, a repeated item, run queries without judgments, judged queries missing from a run, a
#: query without a relevant item.
PROBLEM_FILES = {
    "problems.qrels": "# judgments\n1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n3 0 d4 0\n4 0 d5 1 extra\n"
    "5 0 d6 1\n",
    "a.run": "1 Q0 d1 1 2.0 a\n1 Q0 d1 2 1.5 a\n1 Q0 d2 3 1.0 a\n2 Q0 d3 1 3.0 a more words\n"
    "3 Q0 d4 1 1.0 a\n9 Q0 d9 1 1.0 a\n8 Q0 d9 1 1.0 a\n",
    "b.run": "# a comment\n1 Q0 d2 1 2.0 b\n2 Q0 d3 1 3.0 b\n2 Q0 d3 2 2.0 b\n"
    "2 Q0 d3 3 1.0 b\n10 Q0 dx 1 1.0 b\n",
}


@pytest.fixture
def problem_files(tmp_path):
    for name, text in PROBLEM_FILES.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / name) for name in PROBLEM_FILES]


@pytest.mark.parametrize(
    "options",
    [[], ["-c", "--no-relevant", "leave_out", "--ties", "input_order"], ["--quiet"]],
    ids=["defaults", "complete-leave-out", "quiet"],
)
def test_engine_spark_prints_the_local_engines_notes_and_warnings(spark, problem_files, options):
    local = _evaluate(*problem_files, "-q", *options)
    distributed = _evaluate(*problem_files, "-q", *options, "--engine", "spark")
    assert local[0] == distributed[0] == 0, distributed[2]
    assert distributed[2] == local[2]
    assert distributed[1] == local[1]
    if "--quiet" in options:
        assert local[2] == ""
    else:
        assert "note: a.run: 1 line has text after field 6 (line 4)" in local[2]
        assert "warning: b.run: dropped 2 repeated item(s)" in local[2]


def test_compare_with_engine_spark_prints_the_local_engines_notes(spark, problem_files):
    local = _compare(*problem_files, "--resamples", "50")
    distributed = _compare(*problem_files, "--resamples", "50", "--engine", "spark")
    assert local[0] == distributed[0] == 0, distributed[2]
    assert distributed[2] == local[2]
    lines = [
        line for line in local[2].splitlines() if not line.startswith(("verdict: ", "headline: "))
    ]
    assert lines[0] == (
        "note: a.run: 1 line has text after field 6 (line 4); as trec_eval does, only the first "
        "6 fields (qid Q0 docid rank score tag) are read."
    )
    assert "warning: 3 items appear more than once in the same list;" in local[2]
    assert lines[-1] == "note: up to 1 queries appear only in baseline; policy 'intersection'."
    assert distributed[1] == local[1]


#: CSV tables with what the local validation reports: a missing and an infinite score, a
#: repeated item, tied scores, short lists, a missing, a repeated and a negative label, a query
#: without a relevant item, run queries without judgments, judged queries missing from a model,
#: a relevant item no model retrieved.
PROBLEM_TABLES = {
    "qrels.csv": "query,item,relevance\nq1,d1,1\nq1,d1,2\nq1,d9,2\nq2,d4,-1\nq2,d5,0\n"
    "q3,d6,1\nq4,d1,1\nq5,d2,\n",
    "run.csv": "query,item,score,model\nq1,d1,3.0,alpha\nq1,d2,3.0,alpha\nq1,d1,1.0,alpha\n"
    "q1,d3,,alpha\nq2,d4,inf,alpha\nq2,d5,1.0,alpha\nq9,d1,1.0,alpha\nq1,d1,2.0,beta\n"
    "q1,d2,1.0,beta\nq3,d6,0.5,beta\nq3,d7,0.5,beta\nq8,d1,1.0,beta\n",
}


def test_engine_spark_prints_the_local_validation_warnings_for_tables(spark, tmp_path):
    for name, text in PROBLEM_TABLES.items():
        (tmp_path / name).write_text(text)
    files = [str(tmp_path / name) for name in PROBLEM_TABLES]
    local = _evaluate(*files, "-m", "P@3", "-q")
    distributed = _evaluate(*files, "-m", "P@3", "-q", "--engine", "spark")
    assert local[0] == distributed[0] == 0, distributed[2]
    assert distributed[2] == local[2]
    assert distributed[1] == local[1]
    assert len(local[2].splitlines()) == 12
