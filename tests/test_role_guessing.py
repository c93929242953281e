"""Role guesses that read the values: the query is never a low-cardinality column beside one that
holds a value per list, an unsure guess is a doubt (asked on the Data page, refused on the command
line), query-level columns are proposed as segments, and a line gives the lists at a glance."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from metrics.io.formats import load_table
from metrics.io.roles import guess_doubts, guess_roles
from tests.role_tables import RoleTable, role_tables

SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"


def _read(frame: pd.DataFrame, name: str = "run.csv"):
    """The table as the app and the command line read it: written as CSV and loaded back."""
    return load_table(frame.to_csv(index=False).encode(), name).frame


def _right_or_doubted(table: RoleTable) -> None:
    frame = _read(table.frame)
    guesses = guess_roles(frame)
    doubts = guess_doubts(frame, guesses)
    for role, truth in (("query", table.query), ("item", table.item), ("model", table.model)):
        guess = guesses.get(role)
        column = guess.column if guess is not None else None
        assert column == truth or role in doubts, (role, truth, column, list(frame.columns))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(role_tables())
def test_query_item_and_model_are_guessed_right_or_doubted_never_confidently_wrong(table):
    _right_or_doubted(table)


# --------------------------------------------------------------------------- the tables


def _log(
    query: str,
    decoy: str,
    *,
    requests: int = 230,
    shared_items: bool = True,
    shuffled: bool = False,
) -> pd.DataFrame:
    """Two models' top 10 for ``requests`` requests: 4,600 rows; ``decoy`` holds one of three
    values per request (a user segment)."""
    rng = np.random.default_rng(7)
    rows = []
    for r in range(requests):
        items = (
            [f"i{i}" for i in rng.choice(400, size=10, replace=False)]
            if shared_items
            else [f"i{r}_{k}" for k in range(10)]
        )
        for model in ("baseline", "candidate"):
            for k, item in enumerate(items):
                rows.append(
                    {
                        query: f"r{r:05d}",
                        "item_id": item,
                        "score": round(1 - k / 20, 3),
                        "model": model,
                        decoy: f"s{r % 3}",
                        "clicked": int((r + k) % 5 == 0),
                    }
                )
    frame = pd.DataFrame(rows)
    return frame.sample(frac=1.0, random_state=1) if shuffled else frame


@pytest.mark.parametrize(
    "query, decoy",
    [
        ("request_id", "user_segment"),
        ("search_id", "user"),
        ("impression_id", "session_type"),
        ("qid_hash", "user_country"),
        ("topic_number", "topic_area"),
    ],
)
def test_a_column_of_three_values_is_not_taken_for_the_query_beside_one_value_per_list(
    query, decoy
):
    frame = _read(_log(query, decoy))
    guesses = guess_roles(frame)
    assert guesses["query"].column == query and guesses["query"].confidence >= 0.5
    assert guess_doubts(frame, guesses) == {}
    assert f"segment:{decoy}" in guesses  # the attribute is proposed as a segment instead


def test_two_close_candidates_are_a_doubt_with_the_reason_in_words():
    frame = _read(_log("search_id", "user", shared_items=False, shuffled=True))
    doubt = guess_doubts(frame, guess_roles(frame))["query"]
    assert (doubt.code, doubt.column, doubt.other) == ("close", "search_id", "user")
    assert doubt.reason == (
        "'search_id' and 'user' could both be the query (or user/session) id: 'search_id' has "
        "one value per ranked list (230 values, median list length 10); 'user' has 3 values "
        "across 4,600 rows, each spanning several values of 'search_id'"
    )


def test_the_command_line_refuses_an_unsure_guess_naming_the_columns_and_the_header_fix(
    tmp_path,
):
    from metrics.cli.evaluate import main

    frame = _log("search_id", "user", shared_items=False, shuffled=True)
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    out, err = io.StringIO(), io.StringIO()
    assert main([str(path), str(path), "-m", "P@5"], out, err) == 2
    assert out.getvalue() == ""
    line = err.getvalue()
    assert line.startswith("error: log.csv: The column roles cannot be guessed safely: ")
    assert "'search_id' and 'user' could both be the query" in line
    assert line.endswith(
        "Fix: Name the column that identifies one ranked list (the query, user or session) "
        "'query' in the header row ('search_id' or 'user').\n"
    )
    frame.rename(columns={"search_id": "query"}).to_csv(path, index=False)
    out, err = io.StringIO(), io.StringIO()
    assert main([str(path), str(path), "-m", "P@5", "--quiet"], out, err) == 0
    assert sorted(line.split("\t")[0] for line in out.getvalue().splitlines()) == [
        "baseline",
        "candidate",
    ]


def test_a_trec_run_saved_as_a_headerless_table_takes_its_query_from_the_values():
    rows = "".join(f"Q0,{301 + i // 6},d{i},{1 - i / 100}\n" for i in range(12)).encode()
    frame = load_table(rows, "plain.csv").frame
    guesses = guess_roles(frame, judged_elsewhere=True)
    assert (guesses["query"].column, guesses["item"].column) == ("column_2", "column_3")
    assert guess_doubts(frame, guesses) == {}


def test_a_score_of_whole_numbers_one_to_n_is_not_read_as_a_rank_without_scores_to_follow():
    frame = pd.DataFrame(
        {"qid": ["q1"] * 3 + ["q2"] * 2, "doc": list("abcde"), "points": [3, 2, 1, 2, 1]}
    )
    assert "rank" not in guess_roles(frame)
    frame["score"] = [0.9, 0.5, 0.7, 0.4, 0.8]
    frame["points"] = [1, 3, 2, 2, 1]
    assert guess_roles(frame)["rank"].column == "points"


# --------------------------------------------------------------------------- segments


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(role_tables())
def test_per_query_attributes_are_proposed_as_segments(table):
    frame = _read(table.frame)
    guesses = guess_roles(frame)
    proposed = {g.column for key, g in guesses.items() if key.startswith("segment:")}
    if guesses["query"].column == table.query and "query" not in guess_doubts(frame, guesses):
        queries = frame[table.query].nunique()
        wanted = {d for d in table.segments if 2 <= frame[d].nunique() < queries}
        assert wanted <= proposed, (wanted, proposed)
    for column in proposed:
        assert 2 <= frame[column].nunique() <= 50
        assert (frame.groupby(guesses["query"].column)[column].nunique() <= 1).all()


def test_the_samples_propose_their_segment_columns():
    from metrics.io.samples import load_sample

    recommendations = guess_roles(load_table(SAMPLES / "recommendations" / "baseline.csv").frame)
    proposed = [g.column for key, g in recommendations.items() if key.startswith("segment:")]
    assert proposed == ["tenure", "activity"]
    assert load_sample("web_search").proposed_segments == ["query_type", "traffic"]
    assert load_sample("recommendations").proposed_segments == ["tenure", "activity"]


def test_the_query_table_query_column_is_the_one_holding_the_runs_query_ids():
    from metrics.io.roles import guess_query_table

    table = pd.DataFrame(
        {
            "market": ["us", "de", "us", "fr", "de", "us"],
            "qid_hash": ["a1", "b2", "c3", "d4", "e5", "f6"],
            "search_code": ["x9", "y8", "z7", "w6", "v5", "u4"],
        }
    )
    guesses = guess_query_table(table, ["x9", "y8", "z7", "w6", "v5", "u4", "t3"])
    assert guesses["query"].column == "search_code" and not guesses["query"].unsure
    assert [g.column for key, g in guesses.items() if key.startswith("segment:")] == ["market"]


def test_compare_without_by_names_the_query_tables_segment_columns_and_proposes_them():
    from metrics.cli.compare import main

    web = SAMPLES / "web_search"
    args = [str(web / "qrels.csv"), str(web / "run.csv"), "-m", "P@10", "--resamples", "20"]
    out, err = io.StringIO(), io.StringIO()
    assert main([*args, "--queries", str(web / "queries.csv")], out=out, err=err) == 0
    notes = [line for line in err.getvalue().splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: queries.csv: read as segment columns: query_type, traffic.",
        "note: proposed segment columns: query_type, traffic; compare per segment with "
        "--by query_type (and --by traffic).",
    ]


def test_compare_takes_by_from_the_segment_columns_of_the_runs_themselves():
    from metrics.cli.compare import main

    rec = SAMPLES / "recommendations"
    runs = [str(rec / "baseline.csv"), str(rec / "candidate.csv")]
    out, err = io.StringIO(), io.StringIO()
    code = main(
        [runs[0], *runs, "-m", "P@5", "--resamples", "20", "--by", "tenure"], out=out, err=err
    )
    assert code == 0, err.getvalue()
    assert any("tenure = new" in line for line in out.getvalue().splitlines())


# --------------------------------------------------------------------------- the lists at a glance


def test_the_lists_summary_gives_queries_lists_per_model_and_the_median_length():
    from metrics.io.samples import load_sample

    lists = load_sample("web_search").lists
    assert (lists.queries, lists.lists, lists.length) == (
        300,
        {"lexical": 300, "dense": 300, "hybrid": 300},
        50,
    )
    assert lists.text == "300 queries, 300 lists per model, median list length 50"


def test_the_command_line_notes_the_lists_when_the_query_column_is_not_named_query(tmp_path):
    from metrics.cli.evaluate import main

    frame = _log("search_id", "user_segment")
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    out, err = io.StringIO(), io.StringIO()
    assert main([str(path), str(path), "-m", "P@5"], out, err) == 0
    assert err.getvalue().splitlines()[0] == (
        "note: log.csv: query column 'search_id': 230 queries, 230 lists per model, median "
        "list length 10."
    )
    frame.rename(columns={"search_id": "query"}).to_csv(path, index=False)
    err = io.StringIO()
    assert main([str(path), str(path), "-m", "P@5"], io.StringIO(), err) == 0
    assert "median list length" not in err.getvalue()


# --------------------------------------------------------------------------- names and words


def test_the_synonyms_have_one_home():
    from metrics.io import formats, names, per_query, roles

    assert formats.ID_NAMES is names.ID_NAMES and roles.ROLE_NAMES is names.ROLE_NAMES
    assert {"request_id", "runid", "candidate_id"} <= names.ID_NAMES
    frame = pd.DataFrame({"Run ID": ["a", "b"], "Request_ID": ["1", "2"], "P@10": [0.1, 0.2]})
    data = per_query.per_query_dataset(frame)
    assert data.models == ["a", "b"] and list(data.per_query["query"]) == ["1", "2"]


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_every_role_guess_message_is_in_the_catalogs(lang):
    from metrics.io.roles import DOUBT_CODES, GUESS_CODES, SAID_TEXT
    from ui.shell.i18n import catalog

    messages = catalog(lang)
    wanted = (
        [f"guess.{c}" for c in GUESS_CODES]
        + [f"doubt.{c}" for c in DOUBT_CODES]
        + [f"said.{c}" for c in SAID_TEXT]
        + ["upload.unsure_guess", "upload.confirm_roles", "upload.confirm_first", "data.lists"]
        + ["upload.proposed_segments", "said.separator"]
    )
    assert [key for key in wanted if key not in messages] == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(role_tables())
def test_every_code_a_guess_gives_has_its_words(table):
    from metrics.io.roles import DOUBT_CODES, GUESS_CODES, SAID_TEXT

    frame = _read(table.frame)
    guesses = guess_roles(frame)
    assert {g.code for g in guesses.values()} <= set(GUESS_CODES)
    for doubt in guess_doubts(frame, guesses).values():
        assert doubt.code in DOUBT_CODES and {s.code for s in doubt.said} <= set(SAID_TEXT)
        assert doubt.reason
