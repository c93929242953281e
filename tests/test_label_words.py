"""Text labels read as people mean them: a known ordinal vocabulary (none / partial / good /
perfect, relevant / irrelevant / none, ...) is graded 0..k-1 in its own order, ``none`` is a
grade (judged, not relevant) and never a missing label, and an empty cell is a missing label
(unjudged). A table written in words gives exactly the numbers of the same table written in
numbers, through the Python API and the command line."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.cli.evaluate import main
from metrics.engine.registry import DEFAULT_MEASURES
from metrics.errors import InputError
from metrics.io.canonical import label_words
from metrics.io.formats import load_table
from metrics.io.labels import (
    guess_label_map,
    missing_label_count,
    partial_label_map,
    text_label_counts,
)
from metrics.io.loaders import load_dataset

#: Every default measure, and the ones that tell a judged item from an unjudged one.
MEASURES = [*DEFAULT_MEASURES, "Judged@3", "Judged@10", "Bpref", "infAP"]

#: The two vocabularies of the issue, each word with the number it stands for.
VOCABULARIES = {
    "none-perfect": {"none": 0, "partial": 1, "good": 2, "perfect": 3},
    "relevant": {"irrelevant": 0, "none": 0, "relevant": 1},
}


def _cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], out, err)
    return status, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- the vocabularies


@pytest.mark.parametrize(
    "words",
    [
        ["none", "partial", "good", "perfect"],
        ["bad", "fair", "good", "excellent", "perfect"],
        ["irrelevant", "related", "relevant", "highly relevant"],
        ["irrelevant", "related", "highly relevant", "perfectly relevant"],
        ["not relevant", "somewhat", "very"],
        ["no", "yes"],
        ["false", "true"],
        ["irrelevant", "relevant"],
        ["none", "low", "medium", "high"],
    ],
    ids=lambda words: "/".join(words),
)
def test_a_known_vocabulary_is_graded_0_to_k_minus_1_in_its_own_order(words):
    shuffled = list(reversed(words))
    assert guess_label_map(shuffled) == {w: float(g) for g, w in enumerate(words)}


@pytest.mark.parametrize(
    "words, grades",
    [
        (["good", "perfect"], [2, 3]),  # none/partial/good/perfect, not bad...perfect's 2, 4
        (["perfect"], [3]),
        (["none"], [0]),
        (["relevant", "irrelevant", "none"], [1, 0, 0]),
        (["Not_Relevant", "NONE", "Relevant"], [0, 0, 1]),
        (["yes", "none"], [1, 0]),  # none is grade 0 of any scale the other words name
        (["high", "none"], [3, 0]),
    ],
)
def test_the_words_present_choose_the_smallest_vocabulary_holding_them(words, grades):
    assert guess_label_map(words) == dict(zip(words, map(float, grades)))


def test_missing_label_words_are_no_labels_and_none_is_a_grade():
    assert guess_label_map(["NA", "relevant", "null", "none", ""]) == {
        "relevant": 1.0,
        "none": 0.0,
    }
    values = pd.Series(["none", "", None, "NA", "good", "none", "3", "null", "-"], dtype="str")
    assert text_label_counts(values) == {"none": 2, "good": 1}
    assert missing_label_count(values) == 5  # "", None, NA, null, -


def test_words_two_vocabularies_of_one_size_grade_differently_are_asked_about():
    # irrelevant/related/relevant/highly relevant (3) or TREC DL's .../perfectly relevant (2)
    words = ["irrelevant", "related", "highly relevant"]
    assert guess_label_map(words) is None
    assert partial_label_map(words)["related"] == 1.0  # a start to correct, not a silent default


def test_a_vocabulary_it_does_not_know_is_asked_about():
    assert guess_label_map(["none", "meh"]) is None
    assert partial_label_map(["none", "meh", "good"]) == {"none": 0.0, "meh": None, "good": 2.0}


# --------------------------------------------------------------------------- words and numbers


@st.composite
def _tables(draw) -> tuple[str, str, str]:
    """A run, and its judgments written twice: in the words of a vocabulary (in one case,
    mixed with empty cells, ``NA`` and the grades' numbers), and in numbers only. Scores are
    distinct within a query; some judged items are not retrieved; the first judgment is a
    word."""
    vocabulary = VOCABULARIES[draw(st.sampled_from(sorted(VOCABULARIES)))]
    case = draw(st.sampled_from([str.lower, str.title, str.upper]))
    run_rows, word_rows, number_rows = [], [], []
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 6))
        for i in range(n + draw(st.integers(0, 2))):  # past n: judged, not retrieved
            if i < n:
                run_rows.append(f"q{q},d{i},{n - i}")
            kind = "word" if not word_rows else draw(st.sampled_from(KINDS))
            word = draw(st.sampled_from(sorted(vocabulary)))
            grade = str(vocabulary[word])
            cells = {"word": (case(word), grade), "number": (grade, grade), "empty": ("", "")}
            cells["na"] = ("NA", "NA")
            word_rows.append(f"q{q},d{i},{cells[kind][0]}")
            number_rows.append(f"q{q},d{i},{cells[kind][1]}")
    header = "query,item,label\n"
    return (
        "query,item,score\n" + "\n".join(run_rows) + "\n",
        header + "\n".join(word_rows) + "\n",
        header + "\n".join(number_rows) + "\n",
    )


KINDS = ("word", "word", "number", "empty", "na")


def _examples(n: int):  # type: ignore[no-untyped-def]
    """Hypothesis settings: ``n`` examples, the same ones on every run."""
    return hsettings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )


def _per_query(run: str, qrels: str) -> pd.DataFrame:
    data = load_dataset(
        [load_table(run.encode(), "run.csv")], load_table(qrels.encode(), "qrels.csv")
    )
    found = evaluate(data.run, data.qrels, MEASURES, Settings()).per_query
    return found.sort_values(["model", "query"]).reset_index(drop=True)


@pytest.mark.slow
@_examples(60)
@given(_tables())
def test_judgments_in_words_give_the_numbers_of_the_same_judgments_in_numbers(table):
    run, words, numbers = table
    pd.testing.assert_frame_equal(_per_query(run, words), _per_query(run, numbers))


@pytest.mark.slow
@_examples(15)
@given(_tables())
def test_the_command_line_prints_the_same_numbers_for_words_and_numbers(tmp_path_factory, table):
    run, words, numbers = table
    folder = tmp_path_factory.mktemp("labels")
    paths = {}
    for name, text in (("run.csv", run), ("words.csv", words), ("numbers.csv", numbers)):
        paths[name] = folder / name
        paths[name].write_text(text)
    measures = [a for m in MEASURES for a in ("-m", m)]
    in_words = _cli(paths["words.csv"], paths["run.csv"], "-q", *measures)
    in_numbers = _cli(paths["numbers.csv"], paths["run.csv"], "-q", *measures)
    assert in_words[0] == in_numbers[0] == 0, in_words[2] + in_numbers[2]
    assert in_words[1] == in_numbers[1]


# --------------------------------------------------------------------------- the tables

RELEVANT_WORDS = (
    "query,item,label\nq1,a,relevant\nq1,b,none\nq1,c,irrelevant\nq2,a,none\nq2,b,relevant\n"
    "q2,c,\nq3,a,irrelevant\nq3,b,relevant\nq3,c,none\n"
)
RUN = "query,item,score\n" + "".join(
    f"q{q},{i},{3 - n}\n" for q in (1, 2, 3) for n, i in enumerate("abc")
)


def test_none_is_judged_and_an_empty_cell_is_not(tmp_path):
    qrels, run = tmp_path / "judgments.csv", tmp_path / "run.csv"
    qrels.write_text(RELEVANT_WORDS)
    run.write_text(RUN)
    status, out, err = _cli(qrels, run, "-m", "Judged@3", "-m", "Bpref", "-q")
    assert status == 0, err
    lines = dict((tuple(x.split("\t")[:2]), x.split("\t")[2]) for x in out.splitlines())
    assert lines[("Judged@3", "q2")] == "0.6667"  # q2's c has an empty cell: unjudged
    assert lines[("Judged@3", "all")] == "0.8889"  # 8 of 9, not 4 of 9
    assert (
        "note: judgments.csv: The labels of column 'label' are text, read as relevant = 1 (3), "
        "none = 0 (3), irrelevant = 0 (2) (rows in brackets)." in err
    )
    assert "warning: 1 judgment has no label; it is dropped. (e.g. query q2, item c)" in err


def test_a_labelled_run_counts_its_rows_without_a_label_as_unjudged_in_the_data_health():
    table = "query,item,score,label\nq1,a,3,perfect\nq1,b,2,none\nq1,c,1,\nq2,a,2,good\nq2,b,1,NA\n"
    data = load_dataset([load_table(table.encode(), "export.csv")])
    assert data.health.get("text_labels").params["mapping"] == (
        "perfect = 3 (1), good = 2 (1), none = 0 (1)"
    )
    missing = data.health.get("missing_labels")
    assert (missing.variant, missing.count, missing.severity) == ("inline", 2, "warning")
    assert missing.message == (
        "2 rows have no label (an empty cell): their items count as unjudged, not as not relevant."
    )
    assert sorted(zip(data.qrels["item"], data.qrels["relevance"])) == [
        ("a", 2.0),
        ("a", 3.0),
        ("b", 0.0),
    ]


def _frame_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    out = io.BytesIO()
    if fmt == "parquet":
        frame.to_parquet(out, index=False)
    elif fmt == "xlsx":
        frame.to_excel(out, index=False)
    else:
        return frame.to_csv(index=False, sep="," if fmt == "csv" else "\t").encode()
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "xlsx"])
def test_none_beside_numbers_is_grade_0_in_every_format(fmt):
    labels = ["2", "none", None, "1", "None", "0"]
    frame = pd.DataFrame(
        {"query": ["q"] * 6, "item": list("abcdef"), "score": [6, 5, 4, 3, 2, 1], "label": labels}
    )
    table = load_table(_frame_bytes(frame, fmt), f"judged.{fmt}")
    counts, missing = label_words(table, "label")
    assert (counts, missing) == (
        {"none": 1, "None": 1} if fmt in ("parquet", "xlsx") else {"none": 2},
        1,
    )
    data = load_dataset([table])
    assert sorted(data.qrels["relevance"]) == [0, 0, 0, 1, 2]  # c is unjudged
    found = evaluate(data.run, data.qrels, ["Judged@6"], Settings()).per_query
    assert found["Judged@6"].iloc[0] == pytest.approx(5 / 6)


def test_a_given_map_without_none_still_reads_none_as_grade_0():
    table = "query,item,score,label\nq1,a,3,yes\nq1,b,2,none\nq1,c,1,nah\n"
    data = load_dataset([load_table(table.encode(), "t.csv")], label_map={"yes": 2, "nah": 1})
    assert dict(zip(data.qrels["item"], data.qrels["relevance"])) == {"a": 2, "b": 0, "c": 1}


def test_an_unknown_vocabulary_is_refused_with_the_mapping_to_give(tmp_path):
    qrels, run = tmp_path / "j.csv", tmp_path / "r.csv"
    qrels.write_text("query,item,label\nq1,a,great\nq1,b,none\nq1,c,meh\n")
    run.write_text("query,item,score\nq1,a,3\nq1,b,2\nq1,c,1\n")
    status, _, err = _cli(qrels, run)
    assert status == 2
    assert "--label-map 'great=?,none=0,meh=?'" in err
    with pytest.raises(InputError, match="not numbers"):
        load_dataset([load_table(run)], load_table(qrels))


def test_counts_of_words_and_missing_cells_are_apart_in_a_numeric_column():
    values = pd.Series([1.0, np.nan, 0.0])
    assert (text_label_counts(values), missing_label_count(values)) == ({}, 1)
