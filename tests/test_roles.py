"""Column roles: guesses from names and contents, mappings, canonical frames and data sets."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from metrics.engine.evaluation import evaluate
from metrics.errors import InputError
from metrics.io.canonical import canonical_qrels, canonical_run, split_inline_labels
from metrics.io.loaders import RoleMapping, guess_roles, load_dataset, load_table
from metrics.io.roles import doubtful_guesses, guess_doubts


@pytest.mark.parametrize(
    "role, names",
    [
        ("query", ["query", "qid", "user", "user_id", "session", "Query ID"]),
        ("item", ["item", "doc", "docid", "doc_id", "product", "sku"]),
        ("score", ["score", "pred", "prediction", "prob"]),
        ("rank", ["rank", "position"]),
        ("label", ["label", "rel", "relevance", "grade", "click", "clicked", "purchase"]),
        ("model", ["model", "system", "run", "variant"]),
    ],
)
def test_role_is_guessed_from_each_usual_column_name(role, names):
    for name in names:
        frame = pd.DataFrame({name: ["1", "2"], "other": ["x", "y"]})
        guesses = guess_roles(frame)
        assert guesses[role].column == name
        assert guesses[role].confidence >= 0.9


def test_name_containing_a_role_word_is_a_weaker_guess():
    guesses = guess_roles(pd.DataFrame({"search_query_text": ["a"], "doc_key": ["d"]}))
    assert guesses["query"].column == "search_query_text"
    assert guesses["query"].confidence == 0.7
    assert guesses["item"].column == "doc_key"


def test_roles_are_guessed_from_contents_when_names_say_nothing():
    frame = pd.DataFrame(
        {"a": ["q1", "q1", "q2"], "b": ["x", "y", "z"], "c": [0.3, 0.2, 0.9], "d": [1, 0, 2]}
    )
    guesses = guess_roles(frame)
    assert {r: g.column for r, g in guesses.items()} == {
        "query": "a",
        "item": "b",
        "score": "c",
        "label": "d",
    }
    assert guesses["query"].code == "repeated_text"
    assert guesses["query"].reason == "'a' is the first text column with repeated values"


def test_query_level_columns_are_segment_candidates_and_varying_ones_are_not():
    frame = pd.DataFrame(
        {
            "qid": ["1", "1", "2", "2", "3", "3"],
            "doc": list("abcdef"),
            "score": [1.0, 2, 3, 4, 5, 6],
            "market": ["us", "us", "de", "de", "us", "us"],
            "colour": ["r", "g", "r", "r", "g", "g"],
        }
    )
    guesses = guess_roles(frame)
    assert (
        guesses["segment:market"].reason == "'market' is constant within each query "
        "(2 distinct values)"
    )
    assert "segment:colour" not in guesses
    assert RoleMapping.from_guesses(guesses).segments == ("market",)


def test_binary_labels_in_words_become_floats():
    table = load_table(
        b"query,item,score,clicked\nq,a,3,yes\nq,b,2,no\nq,c,1,TRUE\nq,d,0,false\n", "r.csv"
    )
    run = canonical_run(table)
    assert run["label"].tolist() == [1.0, 0.0, 1.0, 0.0]


def test_graded_labels_become_floats():
    qrels = canonical_qrels(load_table(b"qid,docid,grade\n1,a,3\n1,b,0\n", "q.csv"))
    assert qrels["relevance"].dtype == "float64" and qrels["relevance"].tolist() == [3.0, 0.0]


def test_missing_score_is_derived_from_the_rank():
    run = canonical_run(load_table(b"query,item,rank\nq,a,1\nq,b,2\n", "r.csv"))
    assert run["score"].tolist() == [-1.0, -2.0] and run["rank"].tolist() == [1, 2]


def test_model_is_named_after_the_file_stem_without_a_model_column():
    run = canonical_run(load_table(b"query,item,score\nq,a,1\n", "runs/bm25_tuned.csv.gz"))
    assert run["model"].tolist() == ["bm25_tuned"]


def test_one_file_per_model_makes_one_model_per_file():
    a = load_table(b"query,item,score,label\nq,a,2,1\nq,b,1,0\n", "baseline.csv")
    b = load_table(b"query,item,score,label\nq,a,1,1\nq,b,2,0\n", "candidate.csv")
    data = load_dataset([a, b])
    assert data.models == ["baseline", "candidate"]
    assert data.qrels.to_dict("list") == {
        "query": ["q", "q"],
        "item": ["a", "b"],
        "relevance": [1.0, 0.0],
    }


def test_two_trec_runs_with_the_same_tag_are_renamed_after_their_files():
    a = load_table(b"1 Q0 d1 1 2 same\n", "first.run")
    b = load_table(b"1 Q0 d1 1 2 same\n", "second.run")
    data = load_dataset([a, b], load_table(b"1 0 d1 1\n", "q.qrels"), k_max=1)
    assert data.models == ["first", "second"]


def test_inline_labels_split_every_row_into_a_judgment_keeping_the_highest_duplicate():
    frame = pd.DataFrame(
        {
            "query": ["q"] * 4,
            "item": ["a", "b", "a", "c"],
            "score": [3.0, 2.0, 1.0, None],
            "model": ["m"] * 4,
            "label": [0.0, 1.0, 2.0, 1.0],
        }
    )
    run, qrels = split_inline_labels(frame)
    assert run["item"].tolist() == ["a", "b", "a"] and "label" not in run.columns
    assert qrels.to_dict("list") == {
        "query": ["q", "q", "q"],
        "item": ["a", "b", "c"],
        "relevance": [2.0, 1.0, 1.0],
    }


def test_separate_query_table_is_joined_on_the_query_id():
    run = load_table(b"qid,docid,score\n1,a,2\n2,b,1\n", "run.csv")
    qrels = load_table(b"1 0 a 1\n2 0 b 1\n", "q.qrels")
    queries = load_table(b"qid,market\n1,us\n2,de\n", "queries.csv")
    data = load_dataset([run], qrels, queries, k_max=1)
    assert data.segments.to_dict("list") == {"query": ["1", "2"], "market": ["us", "de"]}
    assert data.run["market"].tolist() == ["us", "de"]


def test_inline_segments_become_a_query_table():
    run = load_table(
        b"user_id,item_id,score,clicked,tenure\nu1,a,2,1,new\nu1,b,1,0,new\nu2,a,1,1,returning\n",
        "m.csv",
    )
    data = load_dataset([run], k_max=1)
    assert data.segments.to_dict("list") == {"query": ["u1", "u2"], "tenure": ["new", "returning"]}


def test_user_edited_mapping_as_a_dictionary_is_applied():
    table = load_table(b"a,b,c,d\nq1,x,0.5,1\nq1,y,0.2,0\n", "t.csv")
    run = canonical_run(table, {"query": "a", "item": "b", "score": "c", "label": "d"})
    assert run.columns.tolist() == ["query", "item", "score", "model", "label"]


def test_mapping_to_a_missing_column_is_refused():
    table = load_table(b"a,b\nq,x\n", "t.csv")
    with pytest.raises(
        InputError,
        match=re.escape(
            "t.csv, column 'zz': There is no column 'zz' to use as score. Fix: Choose one of: a, b."
        ),
    ):
        canonical_run(table, {"query": "a", "item": "b", "score": "zz"})


def test_one_column_with_two_roles_is_refused():
    table = load_table(b"a,b\nq,1\n", "t.csv")
    with pytest.raises(
        InputError,
        match=re.escape("t.csv, column 'b': Column 'b' is mapped to both item and score."),
    ):
        canonical_run(table, {"query": "a", "item": "b", "score": "b"})


def test_unknown_role_name_is_refused():
    with pytest.raises(InputError, match=re.escape("Unknown role(s) colour.")):
        RoleMapping.coerce({"query": "a", "colour": "b"})


def test_run_without_labels_and_without_judgments_is_refused():
    with pytest.raises(
        InputError,
        match=re.escape(
            "r.csv: There are no judgments: the run has no label column and no judgments file "
            "was given."
        ),
    ):
        load_dataset([load_table(b"query,item,score\nq,a,1\n", "r.csv")])


# ----------------------------------------------------------------------- guesses that do not hold
def _trec_run_as_a_headerless_table() -> pd.DataFrame:
    rows = [(301, "Q0", f"D{i}", i, 2.0 - i / 100, "STANDARD") for i in range(12)]
    rows += [(303, "Q0", f"E{i}", i, 1.0 - i / 100, "STANDARD") for i in range(3)]
    return pd.DataFrame(rows, columns=[f"column_{i}" for i in range(1, 7)])


def test_a_trec_run_read_as_a_table_takes_its_query_from_the_values_not_the_q0_column():
    frame = _trec_run_as_a_headerless_table()
    guesses = guess_roles(frame)
    assert {role: guesses[role].column for role in ("query", "item", "score")} == {
        "query": "column_1",
        "item": "column_3",
        "score": "column_5",
    }
    assert "label" not in guesses  # 301 and 303 are the query ids now, not labels
    assert guess_doubts(frame, guesses) == {}


def test_the_same_table_is_accepted_once_the_roles_are_set():
    mapping = {"query": "column_1", "item": "column_3", "score": "column_5"}
    run = canonical_run(_trec_run_as_a_headerless_table(), mapping)
    assert run["query"].unique().tolist() == ["301", "303"]


def test_one_query_guessed_from_a_column_name_is_trusted():
    frame = pd.DataFrame({"query": ["q"] * 12, "item": [f"d{i}" for i in range(12)]})
    frame["score"] = [1.0 / (i + 1) for i in range(12)]
    assert doubtful_guesses(frame, guess_roles(frame)) == {}


def test_one_item_value_on_many_rows_guessed_from_contents_is_doubtful():
    frame = pd.DataFrame(
        {"a": [f"q{i % 3}" for i in range(12)], "b": ["x"] * 12, "c": [0.5 + i for i in range(12)]}
    )
    guesses = guess_roles(frame)
    assert (guesses["query"].column, guesses["item"].column) == ("a", "b")
    assert doubtful_guesses(frame, guesses) == {
        "item": "the item column 'b' was guessed from its contents, but it holds one value "
        "('x') on all 12 rows"
    }


def test_small_whole_numbers_guessed_as_labels_are_trusted():
    frame = pd.DataFrame(
        {"a": ["q1", "q1", "q2"], "b": ["d1", "d2", "d3"], "c": [0.5, 0.2, 0.1], "d": [3, 0, 1]}
    )
    guesses = guess_roles(frame)
    assert guesses["label"].column == "d" and doubtful_guesses(frame, guesses) == {}


def test_a_doubt_is_given_as_a_code_with_its_values_for_translated_texts():
    frame = pd.DataFrame(
        {"a": [f"q{i % 3}" for i in range(12)], "b": ["x"] * 12, "c": [0.5 + i for i in range(12)]}
    )
    doubt = guess_doubts(frame, guess_roles(frame))["item"]
    assert (doubt.code, doubt.column, doubt.values, doubt.rows) == ("one_value", "b", "x", 12)


def test_a_run_judged_elsewhere_takes_its_labels_from_column_names_only():
    frame = pd.DataFrame(
        {"query": ["q1", "q1"], "item": ["a", "b"], "score": [0.9, 0.8], "views": [3, 1]}
    )
    assert guess_roles(frame)["label"].column == "views"
    assert "label" not in guess_roles(frame, judged_elsewhere=True)
    named = frame.rename(columns={"views": "relevance"})
    assert guess_roles(named, judged_elsewhere=True)["label"].column == "relevance"


def test_a_run_column_of_views_does_not_join_a_judgments_file_like_trec_eval_numbers():
    run = load_table(
        b"query,item,score,views\nq1,a,0.9,3\nq1,b,0.8,1\nq1,c,0.7,0\nq2,d,0.5,0\nq2,e,0.6,2\n",
        "run.csv",
    )
    qrels = load_table(b"query,item,relevance\nq1,a,0\nq1,b,0\nq1,c,1\nq2,d,1\nq2,e,0\n", "q.csv")
    dataset = load_dataset([run], qrels)
    assert len(dataset.qrels) == 5  # the judgments file alone
    per_query = evaluate(dataset.run, dataset.qrels, ["P@1", "AP"]).per_query
    # trec_eval on these lines: P@1 0 and 0; AP 1/3 (c at 3) and 1/2 (d at 2)
    assert per_query["P@1"].tolist() == [0.0, 0.0]
    assert per_query["AP"].tolist() == pytest.approx([1 / 3, 1 / 2])


def test_a_text_column_that_makes_repeated_pairs_unique_is_guessed_as_the_model():
    frame = pd.DataFrame(
        {
            "column_1": ["u1", "u1", "u1", "u1"],
            "column_2": ["i1", "i2", "i1", "i2"],
            "column_3": [0.9, 0.8, 0.2, 0.7],
            "column_4": ["candidate", "candidate", "control", "control"],
        }
    )
    guess = guess_roles(frame)["model"]
    assert (guess.column, guess.code, guess.distinct) == ("column_4", "one_list_per_value", 2)


def test_no_model_is_guessed_from_contents_when_no_pair_repeats():
    frame = pd.DataFrame(
        {"q": ["u1", "u1", "u2"], "item": ["a", "b", "a"], "s": [0.3, 0.2, 0.1], "t": list("xyx")}
    )
    assert "model" not in guess_roles(frame)
