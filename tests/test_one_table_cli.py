"""One labelled table is enough on the command line: ``python -m metrics table.csv``,
``compare table.csv`` and ``explain table.csv`` read a table holding query, item, score and
label (and model) columns as the runs with their own judgments, print what the same data split
into a judgments file and a run file gives, and warn of no repeated judgment; the two-file
forms are unchanged, and one file without labels is one line naming the fix."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics.cli import compare, evaluate, explain

WORDS = ("none", "partial", "good", "perfect")


def _run(command, *argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = [str(a) for a in argv]
    if command is evaluate:
        status = evaluate.main(args, out, err)
    else:
        status = command.main(args, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def _split(rows: list[tuple[str, str, str, str, str]]) -> tuple[str, str, str]:
    """A labelled table, and the same data as a judgments table and a run table."""
    table = "query,item,model,score,label\n" + "".join(",".join(r) + "\n" for r in rows)
    judged = dict(((q, i), label) for q, i, _, _, label in rows)  # one label per (query, item)
    qrels = "query,item,label\n" + "".join(f"{q},{i},{v}\n" for (q, i), v in judged.items())
    run = "query,item,model,score\n" + "".join(f"{q},{i},{m},{s}\n" for q, i, m, s, _ in rows)
    return table, qrels, run


@st.composite
def _rows(draw) -> list[tuple[str, str, str, str, str]]:
    """Two models ranking the same items of 1 to 5 queries (distinct scores within a list),
    each item labelled once, with a word, a number or an empty cell."""
    rows = []
    for q in range(draw(st.integers(1, 5))):
        n = draw(st.integers(2, 6))
        labels = [
            draw(st.one_of(st.sampled_from(WORDS), st.just(""), st.sampled_from("0123")))
            for _ in range(n)
        ]
        if q == 0:
            labels[0] = "good"  # at least one judgment
        for model in ("base", "cand"):
            order = draw(st.permutations(range(n)))
            rows += [(f"q{q}", f"d{i}", model, str(order[i] + 1), labels[i]) for i in range(n)]
    return rows


def _files(tmp_path, rows) -> dict[str, object]:
    paths = {}
    for name, text in zip(("table.csv", "qrels.csv", "run.csv"), _split(rows)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def _repeat_free(err: str) -> None:
    assert "repeat" not in err, err


@pytest.mark.slow
@hsettings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_rows())
def test_one_labelled_table_evaluates_as_its_judgments_and_runs_in_two_files(tmp_path, rows):
    files = _files(tmp_path, rows)
    measures = ["-q", "-m", "Judged@5", "-m", "Bpref", "-m", "nDCG@5", "-m", "AP"]
    one = _run(evaluate, files["table.csv"], *measures)
    two = _run(evaluate, files["qrels.csv"], files["run.csv"], *measures)
    assert one[0] == two[0] == 0, one[2] + two[2]
    assert one[1] == two[1]
    _repeat_free(one[2])


@pytest.fixture
def labelled(tmp_path):
    rows = [
        (f"q{q}", f"d{i}", model, str((i * (3 if model == "base" else 5) + q) % 6 + 1), label)
        for q in range(12)
        for model in ("base", "cand")
        for i, label in enumerate(["perfect", "none", "good", "", "partial", "none"])
    ]
    return _files(tmp_path, rows)


def test_compare_reads_one_labelled_table_as_two_files_and_warns_of_no_repeat(labelled):
    options = ["-m", "nDCG@5", "-m", "Judged@5", "--resamples", "50"]
    one = _run(compare, labelled["table.csv"], *options)
    two = _run(compare, labelled["qrels.csv"], labelled["run.csv"], *options)
    assert one[0] == two[0] == 0, one[2] + two[2]
    assert one[1] == two[1]
    _repeat_free(one[2])


def test_explain_reads_one_labelled_table_as_two_files(labelled):
    options = ["--model", "cand", "--to", "sklearn", "-m", "nDCG@5", "-m", "P@3"]
    one = _run(explain, labelled["table.csv"], *options)
    two = _run(explain, labelled["qrels.csv"], labelled["run.csv"], *options)
    assert one[0] == two[0] == 0, one[2] + two[2]
    assert (one[1], one[2]) == (two[1], two[2])


def test_the_table_given_twice_still_works_and_still_warns(labelled):
    once = _run(evaluate, labelled["table.csv"], "-m", "nDCG@5")
    twice = _run(evaluate, labelled["table.csv"], labelled["table.csv"], "-m", "nDCG@5")
    assert once[1] == twice[1]
    assert "judgments repeat an item already judged" in twice[2]


FIX = (
    "Fix: Give the judgments file before the runs (QRELS RUN), or name the column of relevance "
    "labels 'label' in the header row of the one table."
)


@pytest.mark.parametrize("command", [evaluate, compare, explain], ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "name, text",
    [
        ("scores.csv", "query,item,score\nq1,a,3\nq1,b,2\n"),
        ("bm25.run", "q1 Q0 a 1 3.0 bm25\nq1 Q0 b 2 2.0 bm25\n"),
    ],
)
def test_one_file_without_labels_is_one_line_naming_the_fix(tmp_path, command, name, text):
    path = tmp_path / name
    path.write_text(text)
    status, out, err = _run(command, path)
    assert (status, out) == (2, "")
    assert err == (
        f"error: {name}: There are no judgments: the run has no label column and no judgments "
        f"file was given. {FIX}\n"
    )


@pytest.mark.parametrize("command", [evaluate, compare], ids=lambda c: c.__name__)
def test_one_table_under_spark_is_refused_before_spark_starts(labelled, command):
    status, _, err = _run(command, labelled["table.csv"], "--engine", "spark")
    assert status == 2
    assert err.startswith(
        "error: one table holding its labels is read by the local engine only. Fix: Give the "
        "judgments and the runs as two files (QRELS RUN), or leave out --engine spark."
    )


def test_python_dash_m_metrics_takes_one_labelled_table(labelled):
    done = subprocess.run(
        [sys.executable, "-m", "metrics", str(labelled["table.csv"]), "-m", "Judged@6"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # one empty label cell in each list of six: 5 of 6 judged
    assert done.stdout == "base\tJudged@6\tall\t0.8333\ncand\tJudged@6\tall\t0.8333\n"
    assert "read as perfect = 3 (24), good = 2 (24), partial = 1 (24), none = 0 (48)" in (
        done.stderr
    )
    _repeat_free(done.stderr)
