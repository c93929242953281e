"""Comparisons and the Python API read large inputs block by block (metrics/cli/files.py):
the same table, verdict and headline as the whole reading, in every format, with segments from
a query table; memory holds a block and the per-query values, not the runs."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from benchmarks.formats import write_formats
from benchmarks.generate import generate
from metrics.cli import blocks, compare, files
from metrics.cli import evaluate as evaluate_cli
from metrics.engine.evaluation import evaluate
from metrics.engine.settings import Settings
from metrics.io.loaders import load_dataset
from tests.peak_support import peak_of

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("trec", "csv", "csv.gz", "parquet", "jsonl")


@pytest.fixture(scope="module")
def collection(tmp_path_factory) -> dict[str, list[Path]]:
    """Two models of 300 queries x 30 results (the second one's scores shuffled within some
    queries, so that the models differ), judgments and a query table with a segment column,
    per format: ``[judgments, run_a, run_b]``; ``"queries"``: ``[query table]``."""
    folder = tmp_path_factory.mktemp("compare_formats")
    run, qrels = generate(300, depth=30, directory=folder)
    lines = run.read_text().splitlines()
    rng = np.random.default_rng(3)
    changed = []
    for line in lines:
        q, q0, item, rank, score, _ = line.split()
        if int(q) % 3 == 0:  # a third of the queries ranked anew
            score = f"{float(score) + rng.uniform(-5, 5):.6f}"
        changed.append(" ".join([q, q0, item, rank, score, "b"]))
    run_b = folder / "run_b.txt"
    run_b.write_text("\n".join(changed) + "\n")
    out: dict[str, list[Path]] = {"trec": [qrels, run, run_b]}
    for fmt in FORMATS[1:]:
        sub = folder / fmt.replace(".", "_")
        a = write_formats(run, qrels, sub / "a", (fmt,))[fmt]
        b = write_formats(run_b, qrels, sub / "b", (fmt,))[fmt]
        renamed = b[1].with_name(b[1].name.replace("run_b", "cand"))
        b[1].rename(renamed)
        out[fmt] = [a[0], a[1], renamed]
    queries = folder / "queries.csv"
    pd.DataFrame(
        {"query": [str(q) for q in range(1, 301)], "device": ["phone", "desk", "tablet"] * 100}
    ).to_csv(queries, index=False)
    out["queries"] = [queries]
    return out


def _compare(args: list[str], blocks_on: bool) -> str:
    """The comparison's table (or JSON), then its headline and verdict lines."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RANKING_METRICS_WHOLE_MB", "0" if blocks_on else "100000")
        if blocks_on:  # the whole reading is not called
            patch.setattr(compare, "_tables", None)
        status = compare.main(args, out=out, err=err)
    assert status in (0, 1), err.getvalue()
    told = [line for line in err.getvalue().splitlines() if line.startswith(("headline", "verd"))]
    return out.getvalue() + "\n".join(told)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_comparison_in_blocks_is_the_whole_readings_in_every_format(collection, fmt):
    args = [*map(str, collection[fmt]), "--resamples", "300", "--seed", "5", "-m", "nDCG@10"]
    args += ["-m", "AP", "--queries", str(collection["queries"][0]), "--by", "device"]
    whole = _agreed(args)
    assert "device = tablet\tdevice" in whole and "headline: " in whole


def _agreed(args: list[str]) -> str:
    """The comparison's table, headline and verdict lines, the same read in blocks as whole,
    and so are the headline, recommendations, segment rows and heterogeneity of its JSON."""
    whole = _compare(args, blocks_on=False)
    assert _compare(args, blocks_on=True) == whole
    as_json = [*args, "--format", "json"]
    whole_json = json.loads(_compare(as_json, False).split("\nheadline")[0])
    in_blocks = json.loads(_compare(as_json, True).split("\nheadline")[0])
    for key in ("headline", "recommendations", "segments", "heterogeneity"):
        assert in_blocks[key] == whole_json[key], key
    return whole


def test_small_inputs_are_read_whole(collection, monkeypatch):
    """Under the limit nothing is read in blocks: the whole reading checks the lists in full."""
    monkeypatch.delenv("RANKING_METRICS_WHOLE_MB", raising=False)
    paths = [str(p) for p in collection["trec"]]
    assert files.per_query_in_blocks(paths[0], paths[1:], ["P@10"], Settings()) is None


@pytest.mark.parametrize("fmt", ["trec", "parquet"])
def test_evaluate_files_gives_the_values_of_evaluate_in_blocks_or_whole(
    collection, fmt, monkeypatch
):
    qrels, run_a, run_b = collection[fmt]
    measures = ["P@10", "nDCG@20", "AP", "RR", "bpref"]
    data = load_dataset([str(run_a), str(run_b)], str(qrels), k_max=20)
    expected = evaluate(data.run, data.qrels, measures).per_query
    key = ["model", "query"]
    expected = expected.sort_values(key).reset_index(drop=True)
    for limit in ("0", "100000"):
        monkeypatch.setenv("RANKING_METRICS_WHOLE_MB", limit)
        got = files.evaluate_files(qrels, [run_a, run_b], measures).per_query
        got = got.sort_values(key).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=0, atol=1e-12)


_COMPARE = """
compare._tables = None  # the whole reading is not called
args = sys.argv[1:] + ["--resamples", "200", "-m", "nDCG@10", "-m", "AP"]
status = compare.main(args, out=io.StringIO(), err=io.StringIO())
"""


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["trec", "csv.gz", "parquet"])
def test_a_comparison_in_blocks_holds_less_than_three_times_the_text(tmp_path_factory, fmt):
    """Two runs of 1,000 queries x 100 results: the peak of Python's and arrow's allocations in
    a fresh interpreter stays under three times the text of the same rows as CSV and 16 MB."""
    folder = tmp_path_factory.mktemp("compare_peak")
    run, qrels = generate(1000, depth=100, directory=folder)
    run_b = folder / "other.txt"
    run_b.write_bytes(run.read_bytes().replace(b" bench\n", b" other\n"))
    paths = [qrels, run, run_b]
    csv_text = 0
    for which in ("a", "b"):
        made = write_formats(paths[1 if which == "a" else 2], qrels, folder / which, ("csv",))
        csv_text += sum(p.stat().st_size for p in made["csv"]) if which == "a" else 0
        csv_text += made["csv"][1].stat().st_size if which == "b" else 0
        if fmt != "trec":
            made = write_formats(paths[1 if which == "a" else 2], qrels, folder / which, (fmt,))
            if which == "a":
                paths[0], paths[1] = made[fmt]
            else:
                paths[2] = made[fmt][1].rename(folder / which / f"cand.{fmt}")
    status, peak = peak_of(_COMPARE, [str(p) for p in paths])
    assert status == 0
    assert csv_text > 5_000_000
    assert peak < 3 * csv_text + 16 * 1024**2, f"{peak / 2**20:.1f} MB for {csv_text / 2**20:.1f}"


# ---------------------------------------------------------------- labels that are words

_WORDS = {0: "bad", 1: "Fair", 2: " good ", 3: "PERFECT"}
_GRADES = "bad=0,fair=1,good=2.5,perfect=3"


def _in_words(judgments: Path, folder: Path, fmt: str) -> Path:
    """The judgments table with its grades written as words (``_WORDS``), in ``fmt``."""
    frame = pd.read_csv(judgments, dtype={"query": str, "item": str})
    label = next(c for c in frame.columns if c not in ("query", "item"))
    frame[label] = frame[label].map(lambda g: _WORDS.get(int(g), "NA"))
    frame.loc[frame.index % 7 == 3, label] = "none"
    frame.loc[frame.index % 11 == 5, label] = "NA"
    out = folder / f"judgments_in_words.{fmt}"
    if fmt == "parquet":
        frame.to_parquet(out, index=False)
    else:
        frame.to_csv(out, index=False)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_comparison_with_a_label_map_in_blocks_is_the_whole_readings(collection, fmt, tmp_path):
    judgments = _in_words(collection["csv"][0], tmp_path, fmt)
    _, run_a, run_b = collection[fmt]
    args = [str(judgments), str(run_a), str(run_b), "--label-map", _GRADES]
    args += ["--resamples", "300", "--seed", "5", "-m", "nDCG@10", "-m", "AP"]
    whole = _compare(args, blocks_on=False)
    assert _compare(args, blocks_on=True) == whole
    assert "headline: " in whole


def _evaluate(args: list[str], blocks_on: bool) -> tuple[int, str, str]:
    """Status, output and messages of ``python -m metrics``; in blocks, the whole reading is
    not called."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RANKING_METRICS_WHOLE_MB", "0" if blocks_on else "100000")
        if blocks_on:
            patch.setattr(evaluate_cli, "load_inputs", None)
        status = evaluate_cli.main(args, out, err)
    return status, out.getvalue(), err.getvalue()


_LABELS = ["Relevant", " not_relevant ", "HIGH", "none", "None", "NA", "", "0", "1", "2.5"]


@st.composite
def _labelled_tables(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """A run table, its judgments with labels in words, numbers and missing ones, the run
    with those labels in a column of its own, and a label mapping of the words with any
    grades."""
    run, judged, labelled = ["query,item,score"], ["query,item,label"], ["query,item,score,label"]
    for q in range(draw(st.integers(1, 6))):
        n = draw(st.integers(1, 6))
        scores = draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n))
        labels = draw(st.lists(st.sampled_from(_LABELS), min_size=n + 1, max_size=n + 1))
        for i, score in enumerate(scores):
            run.append(f"q{q},d{i},{score}")
            labelled.append(f"q{q},d{i},{score},{labels[i]}")
        for i, label in enumerate(labels):  # one item the run does not hold
            judged.append(f"q{q},d{i},{label}")
    mapping = {
        word: round(draw(st.floats(-2, 4, allow_nan=False)), draw(st.integers(0, 9)))
        for word in ("relevant", "not relevant", "high")
    }
    text = ",".join(f"{word}={value!r}" for word, value in mapping.items())
    return "\n".join(run) + "\n", "\n".join(judged) + "\n", "\n".join(labelled) + "\n", text


@pytest.mark.slow
@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_labelled_tables())
@example(  # a none written "None", the only word: named as written, as the whole reading does
    (
        "query,item,score\nq0,d0,0\n",
        "query,item,label\nq0,d0,None\nq0,d1,Relevant\n",
        "query,item,score,label\nq0,d0,0,None\n",
        "relevant=0.0,not relevant=0.0,high=0.0",
    )
)
def test_labels_in_words_read_in_blocks_give_the_whole_readings_values(table):
    """Words, numbers, ``none`` and missing labels under any mapping, in a judgments table or
    in the run's label column: the values of every query and the means are those of the whole
    reading, and so is the note on the words."""
    run, judged, labelled, mapping = table
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder, "judged.csv"), Path(folder, "run.csv"), Path(folder, "both.csv")]
        for path, text in zip(paths, (judged, run, labelled)):
            path.write_text(text)
        for files_given in (paths[:2], paths[2:]):
            args = [*map(str, files_given), "--label-map", mapping, "-q", "--digits", "12"]
            args += ["-m", "nDCG@3", "-m", "AP", "-m", "P@2", "-m", "RR"]
            status, out, err = _evaluate(args, blocks_on=False)
            if status != 0:  # nothing judged relevant, no label: the whole reading explains it
                continue
            in_blocks = _evaluate(args, blocks_on=True)
            assert in_blocks[:2] == (0, out), in_blocks[2]
            notes = [line for line in err.splitlines() if "are text, read as" in line]
            assert notes == [n for n in in_blocks[2].splitlines() if "are text, read as" in n]


def test_a_label_the_map_does_not_grade_is_refused_past_the_limit(tmp_path, monkeypatch):
    judged, run = tmp_path / "judged.csv", tmp_path / "run.csv"
    judged.write_text("query,item,label\n1,a,relevant\n1,b,maybe\n")
    run.write_text("query,item,score\n1,a,2\n1,b,1\n")
    monkeypatch.setattr(evaluate_cli, "load_inputs", None)
    monkeypatch.setenv("RANKING_METRICS_WHOLE_MB", "0")
    out, err = io.StringIO(), io.StringIO()
    args = [str(judged), str(run), "--label-map", "relevant=1"]
    assert evaluate_cli.main(args, out, err) == 2
    assert "cannot be read block by block (a label is a word --label-map does not grade)" in (
        err.getvalue()
    )


# ---------------------------------------------------------------- segments inside the runs


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "csv.gz"])
def test_a_comparison_by_the_runs_segment_columns_in_blocks_is_the_whole_readings(
    collection, fmt, tmp_path
):
    """The runs carry the query table's device (constant within each query) and a year that
    is a number: ``--by`` takes them from the runs, in blocks as whole."""
    judgments, *runs = collection[fmt]
    devices = pd.read_csv(collection["queries"][0], dtype=str).set_index("query")["device"]
    paths = [str(judgments)]
    for run in runs:
        frame = pd.read_csv(run, dtype={"query": str, "item": str})
        frame["device"] = frame["query"].map(devices)
        frame["year"] = frame["query"].astype(int) % 2 + 2020
        out = tmp_path / run.name.replace(".csv", "_segments.csv")
        frame.to_csv(out, index=False)
        paths.append(str(out))
    args = [*paths, "--resamples", "300", "--seed", "5", "-m", "nDCG@10", "-m", "AP"]
    args += ["--by", "device", "--by", "year"]
    whole = _agreed(args)
    assert "device = tablet\tdevice" in whole and "year = 2021\tyear" in whole


_SEGMENT_VALUES = ["phone", "desk", " tablet", "007", "7", "2.5", "NA", "", "x,y"]


@st.composite
def _segmented_runs(draw: st.DrawFn) -> tuple[str, str, str]:
    """Judgments and two runs with a segment column ``seg``: a value per query (one row of a
    query now and then another), drawn from words, numbers, leading zeros and missing values;
    in the second run, the first run's value of each query or another, or no such column."""
    n_queries = draw(st.integers(2, 7))
    values = st.sampled_from(_SEGMENT_VALUES)
    choices = st.sampled_from(draw(st.lists(values, min_size=2, max_size=4, unique=True)))
    first = [draw(choices) for _ in range(n_queries)]
    judged, runs = ["query,item,label"], []
    for r in range(2):
        has_column = r == 0 or draw(st.integers(0, 3)) > 0
        lines = ["query,item,score" + (",seg" if has_column else "")]
        for q in range(n_queries):
            value = first[q] if r == 0 or draw(st.booleans()) else draw(choices)
            for i in range(3):
                if i == 2 and draw(st.integers(0, 9)) == 0:
                    value = draw(choices)  # varies within the query
                cell = f'"{value}"' if "," in value else value
                score = draw(st.integers(0, 9))
                lines.append(f"q{q},d{i},{score}" + (f",{cell}" if has_column else ""))
                if r == 0:
                    judged.append(f"q{q},d{i},{draw(st.integers(0, 2))}")
        runs.append("\n".join(lines) + "\n")
    return "\n".join(judged) + "\n", runs[0], runs[1]


@pytest.mark.slow
@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_segmented_runs())
def test_segments_of_the_runs_in_blocks_are_the_whole_readings_or_refused(tables):
    """Per query the segment value as the whole reading takes it, segments guessed as it
    guesses them: the same table, verdict and headline; or, for what the blocks cannot take
    (a value that varies within a query, a missing one), a refusal naming --queries."""
    with tempfile.TemporaryDirectory() as folder:
        paths = [str(Path(folder, name)) for name in ("judged.csv", "base.csv", "cand.csv")]
        for path, text in zip(paths, tables):
            Path(path).write_text(text)
        args = [*paths, "--by", "seg", "--resamples", "100", "-m", "nDCG@3"]
        whole_out, whole_err = io.StringIO(), io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKING_METRICS_WHOLE_MB", "100000")
            whole_status = compare.main(args, out=whole_out, err=whole_err)
        out, err = io.StringIO(), io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKING_METRICS_WHOLE_MB", "0")
            patch.setattr(compare, "_tables", None)  # the whole reading is not called
            status = compare.main(args, out=out, err=err)
    if status == 2 and "cannot be read block by block" in err.getvalue():
        assert "--by" in err.getvalue() and "with --queries" in err.getvalue(), err.getvalue()
        return
    assert (status, out.getvalue()) == (whole_status, whole_out.getvalue()), err.getvalue()
    told = [line for line in err.getvalue().splitlines() if line.startswith(("headline", "verd"))]
    assert told == [
        line for line in whole_err.getvalue().splitlines() if line.startswith(("headline", "verd"))
    ]


def test_a_segment_column_that_varies_within_a_query_is_refused_past_the_limit(
    tmp_path, monkeypatch
):
    judged, base, cand = (tmp_path / f"{n}.csv" for n in ("judged", "base", "cand"))
    judged.write_text("query,item,label\n1,a,1\n2,a,1\n")
    base.write_text("query,item,score,device\n1,a,2,phone\n1,b,1,desk\n2,a,1,desk\n")
    cand.write_text("query,item,score,device\n1,a,1,phone\n1,b,2,phone\n2,a,1,desk\n")
    monkeypatch.setattr(compare, "_tables", None)
    monkeypatch.setenv("RANKING_METRICS_WHOLE_MB", "0")
    out, err = io.StringIO(), io.StringIO()
    args = [str(judged), str(base), str(cand), "--by", "device", "--resamples", "100"]
    assert compare.main(args, out=out, err=err) == 2
    message = err.getvalue()
    assert "cannot be read block by block (--by device varies within a query)" in message
    assert f"Fix: {blocks.SEGMENTS_IN_RUNS_WHOLE.fix}; or split them" in message
