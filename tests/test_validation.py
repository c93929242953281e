"""Data health: every error and warning, as a code with parameters and its exact English message."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.checks import validate
from metrics.io.findings import DataHealth, Finding
from metrics.io.loaders import load_dataset, load_table


def _run(rows: list[tuple], columns=("query", "item", "score", "model")) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(columns))


def _qrels(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query", "item", "relevance"])


GOOD_RUN = _run([("q", f"d{i}", 10.0 - i, "m") for i in range(3)])
GOOD_QRELS = _qrels([("q", "d0", 1), ("q", "d1", 0)])


def _finding(report: DataHealth, code: str) -> Finding:
    found = report.get(code)
    assert found is not None, f"no {code} in {report.codes()}"
    return found


def _raises(report: DataHealth, message: str) -> InputError:
    with pytest.raises(InputError, match=re.escape(message)) as info:
        report.raise_for_errors()
    return info.value


def test_clean_input_has_only_a_summary():
    report = validate(GOOD_RUN, GOOD_QRELS, k_max=3)
    assert report.codes() == ["summary"] and not report.has_errors
    assert report.findings[0].message == (
        "Results: 3 (queries: 1, models: 1); judgments: 2 (queries: 1, relevant: 1); "
        "queries in both: 1."
    )


# ----------------------------------------------------------------------------------- errors


def test_run_without_rows_is_an_error():
    report = validate(GOOD_RUN.iloc[:0], GOOD_QRELS)
    assert report.has_errors
    _raises(
        report, "The run has no rows. Fix: Load a file with at least one data row below the header."
    )


def test_run_without_query_column_is_an_error():
    _raises(
        validate(GOOD_RUN.drop(columns="query"), GOOD_QRELS),
        "The run has no query column. Fix: Map the column that identifies the query, user or "
        "session to the query role.",
    )


def test_judgments_without_item_column_are_an_error():
    _raises(
        validate(GOOD_RUN, GOOD_QRELS.drop(columns="item")),
        "The judgments have no item column. Fix: Map the column that identifies the document, "
        "product or item to the item role.",
    )


def test_run_with_neither_score_nor_rank_is_an_error():
    _raises(
        validate(GOOD_RUN.drop(columns="score"), GOOD_QRELS),
        "The run has neither a score nor a rank column. Fix: Map the model's score (higher is "
        "better) or the rank position (1 is best) column.",
    )


def test_judgments_without_label_column_are_an_error():
    _raises(
        validate(GOOD_RUN, GOOD_QRELS.drop(columns="relevance")),
        "The judgments have no relevance label column.",
    )


def test_non_numeric_score_names_column_line_and_value_through_the_loader():
    table = load_table(b"query,item,pred,rel\nq,a,0.5,1\nq,b,high,0\nq,c,low,0\n", "run.csv")
    with pytest.raises(
        InputError,
        match=re.escape(
            "run.csv, line 3, column 'pred': Column 'pred' has 2 scores that are not numbers; the "
            "first is 'high' at line 3. Fix: Map a numeric column to score, or clean the values "
            "that are not numbers."
        ),
    ) as info:
        load_dataset([table])
    assert info.value.line == 3 and info.value.column == "pred"


def test_non_numeric_label_is_an_error_with_examples():
    qrels = _qrels([("q", "d0", "1"), ("q", "d1", "maybe")])
    report = validate(GOOD_RUN, qrels)
    finding = _finding(report, "non_numeric_label")
    assert finding.examples == ["maybe"] and finding.count == 1
    _raises(
        report,
        "column 'relevance': Column 'relevance' has 1 label that is not a number: 'maybe' "
        "in row 2.",
    )


def test_no_query_shared_by_run_and_judgments_is_an_error():
    report = validate(GOOD_RUN, _qrels([("7", "d0", 1)]))
    finding = _finding(report, "no_shared_query")
    assert finding.examples == ["run: q", "judgments: 7"]
    _raises(
        report,
        "No query appears in both the run and the judgments. Fix: Check that both "
        "files use the same query ids (for example '7', 'q7' and '007' differ).",
    )


# ----------------------------------------------------------------------------------- warnings


def test_duplicate_items_in_a_list_are_a_warning():
    run = _run([("q", "d0", 3.0, "m"), ("q", "d0", 1.0, "m"), ("q", "d1", 2.0, "m")])
    f = _finding(validate(run, GOOD_QRELS, k_max=2), "duplicate_items")
    assert (f.severity, f.count, f.examples) == ("warning", 1, ["query q, item d0 (m)"])
    assert f.message == (
        "1 item appears more than once in the same list; the best-ranked copy is kept."
    )


def test_an_item_repeated_many_times_is_one_example_not_one_per_copy():
    copies = [("q", "d0", float(s), "m") for s in range(6)]
    run = _run([*copies, ("q", "d1", 9.0, "m"), ("q", "d1", 8.0, "m"), ("q", "d2", 7.0, "m")])
    f = _finding(validate(run, GOOD_QRELS, k_max=2), "duplicate_items")
    assert f.count == 6
    assert f.examples == ["query q, item d0 (m)", "query q, item d1 (m)"]


def test_the_ranking_notes_name_each_repeated_item_once():
    from metrics import rank_run

    copies = [("q", "d0", float(s), "m") for s in range(6)]
    run = _run([*copies, ("q", "d1", 9.0, "m"), ("q", "d1", 8.0, "m")])
    notes = rank_run(run, GOOD_QRELS)["m"].notes
    assert notes.dropped_duplicates == 6
    assert sorted(notes.duplicate_examples) == ["q / d0", "q / d1"]


def test_missing_scores_are_a_warning_and_the_rows_are_dropped():
    run = _run([("q", "d0", 3.0, "m"), ("q", "d1", None, "m")])
    f = _finding(validate(run, GOOD_QRELS, k_max=1), "missing_scores")
    assert f.message == "1 row has no score; it is left out of the rankings."
    assert f.examples == ["query q, item d1"]


def test_infinite_scores_are_a_warning():
    run = _run([("q", "d0", float("inf"), "m"), ("q", "d1", 1.0, "m")])
    f = _finding(validate(run, GOOD_QRELS, k_max=1), "infinite_scores")
    assert f.message == "1 score is infinite; +inf ranks first and -inf last."


def test_tied_scores_are_a_warning():
    run = _run([("q", "d0", 1.0, "m"), ("q", "d1", 1.0, "m"), ("q", "d2", 0.5, "m")])
    f = _finding(validate(run, GOOD_QRELS, k_max=1), "tied_scores")
    assert f.message == (
        "1 list has tied scores (2 rows share their score with another item "
        "of the same list); ties are broken by item id, descending."
    )


def test_lists_shorter_than_the_largest_k_are_a_warning():
    f = _finding(validate(GOOD_RUN, GOOD_QRELS, k_max=10), "short_lists")
    assert f.message == (
        "1 of 1 lists has fewer than 10 items (it has 3); at K = 10, "
        "missing positions count as not relevant."
    )
    assert f.examples == ["query q: 3 items (m)"]


def test_queries_without_relevant_items_are_a_warning():
    qrels = _qrels([("q", "d0", 1), ("r", "d9", 0)])
    f = _finding(validate(GOOD_RUN, qrels, k_max=1), "no_relevant")
    assert f.message == (
        "1 of 2 judged queries has no relevant item (label ≥ 1); it is "
        "evaluated and scores 0 on most measures."
    )
    assert f.examples == ["r"]


def test_run_queries_without_judgments_are_a_warning():
    run = pd.concat([GOOD_RUN, _run([("extra", "d0", 1.0, "m")])], ignore_index=True)
    f = _finding(validate(run, GOOD_QRELS, k_max=1), "unjudged_queries")
    assert f.message == (
        "1 of 2 queries in the run has no judgments; it is left out of the evaluation."
    )


def test_judged_queries_missing_from_the_run_are_a_warning():
    qrels = pd.concat([GOOD_QRELS, _qrels([("lost", "d0", 1)])], ignore_index=True)
    f = _finding(validate(GOOD_RUN, qrels, k_max=1), "missing_run_queries")
    assert f.message == "1 of 2 judged queries is missing from the run; it is skipped."


def test_judged_queries_missing_for_one_of_several_models_are_a_warning():
    run = _run([("q", "d0", 1.0, "a"), ("q", "d0", 1.0, "b"), ("r", "d0", 1.0, "a")])
    qrels = _qrels([("q", "d0", 1), ("r", "d0", 1)])
    f = _finding(validate(run, qrels, k_max=1), "missing_run_queries")
    assert f.message == (
        "1 of 2 judged queries is missing from at least one model's run (model-query "
        "pairs: 1); for that model, it is skipped."
    )
    assert f.examples == ["b: r"]


def test_relevant_items_outside_the_candidate_pool_are_a_warning():
    qrels = _qrels([("q", "d0", 1), ("q", "never", 2)])
    f = _finding(validate(GOOD_RUN, qrels, k_max=1), "relevant_not_retrieved")
    assert f.message == (
        "1 relevant judged item was not retrieved by any model (queries concerned: 1); "
        "recall cannot reach 1 for that query."
    )
    assert f.examples == ["query q, item never"]


def test_negative_labels_are_a_warning():
    qrels = _qrels([("q", "d0", 1), ("q", "d1", -2)])
    f = _finding(validate(GOOD_RUN, qrels, k_max=1), "negative_labels")
    assert f.message == (
        "1 label is negative: the item is in the pool but unjudged (as trec_eval): not "
        "relevant, gain 0, and unjudged for Judged@K, bpref and infAP."
    )
    assert f.examples == ["query q, item d1: -2"]


def test_labels_that_look_like_ranks_are_a_warning():
    qrels = _qrels([("q", f"d{i}", i + 1) for i in range(6)])
    f = _finding(validate(GOOD_RUN, qrels, k_max=1), "labels_look_like_ranks")
    assert f.message == (
        "The labels in 'relevance' look like rank positions (1, 2, 3, ... within "
        "each query), not relevance grades; higher labels are treated as more "
        "relevant."
    )


def test_graded_labels_do_not_look_like_ranks():
    qrels = _qrels([("q", f"d{i}", i % 4) for i in range(8)])
    assert "labels_look_like_ranks" not in validate(GOOD_RUN, qrels, k_max=1).codes()


def test_segment_values_that_vary_within_a_query_are_a_warning():
    run = GOOD_RUN.assign(market=["us", "us", "de"])
    f = _finding(validate(run, GOOD_QRELS, k_max=1), "segment_varies")
    assert f.message == (
        "Segment 'market' varies within 1 query; the first value of the query is used."
    )


def test_repeated_judgments_are_a_warning():
    qrels = _qrels([("q", "d0", 1), ("q", "d0", 1)])
    f = _finding(validate(GOOD_RUN, qrels, k_max=1), "duplicate_judgments")
    assert f.message == (
        "1 judgment repeats an item already judged for the same query; the highest label is kept."
    )
    qrels = _qrels([("q", "d0", 1), ("q", "d0", 2)])
    f = _finding(validate(GOOD_RUN, qrels, k_max=1), "duplicate_judgments")
    assert f.message == (
        "1 judgment repeats an item already judged for the same query, with another label; the "
        "highest label is kept."
    )
    assert f.examples == ["query q, item d0: labels 1, 2 (2 kept)"]


def test_empty_ids_and_missing_labels_are_warnings():
    run = _run([("q", "d0", 1.0, "m"), ("", "d1", 1.0, "m")])
    qrels = _qrels([("q", "d0", 1), ("q", "d1", None)])
    report = validate(run, qrels, k_max=1)
    assert _finding(report, "missing_ids").message == (
        "1 row of the run has an empty query or item id; it is dropped."
    )
    assert _finding(report, "missing_labels").message == ("1 judgment has no label; it is dropped.")


# ----------------------------------------------------------------------------------- the report


def test_report_as_a_frame_has_one_row_per_finding():
    run = _run([("q", "d0", 1.0, "m"), ("q", "d1", 1.0, "m")])
    frame = validate(run, GOOD_QRELS, k_max=5).to_frame()
    assert frame.columns.tolist() == ["code", "severity", "message", "count", "examples", "action"]
    assert frame["code"].tolist() == ["tied_scores", "short_lists", "summary"]


def test_report_text_puts_errors_first_with_examples_and_fixes():
    report = DataHealth(
        [
            Finding("score_from_rank", "info"),
            Finding("missing_ids", "error", {"n": 1}, 1, ({"row": 2},), variant="run"),
        ]
    )
    assert report.to_text() == (
        "ERROR: 1 row of the run has an empty query or item id; it is dropped.\n"
        "  e.g. row 2\n  -> Fill in the ids if these rows matter.\n"
        "INFO: The run has ranks but no scores; scores are set to -rank."
    )


def test_dataset_keeps_warnings_and_drops_unusable_rows():
    run = load_table(b"query,item,score\nq,a,1\nq,b,\nq,a,0.5\n", "r.csv")
    data = load_dataset([run], load_table(b"q 0 a 1\n", "j.qrels"), k_max=2)
    assert {"missing_scores", "duplicate_items"} <= set(data.health.codes())
    assert data.run["item"].tolist() == ["a", "a"]


# --------------------------------------------------------------------------- query table coverage


def _with_query_table(meta: bytes):
    run = load_table(
        b"query,item,score\n" + b"".join(f"q{i},a,1\n".encode() for i in range(1, 8)), "run.csv"
    )
    qrels = load_table(
        b"query,item,label\n" + b"".join(f"q{i},a,1\n".encode() for i in range(1, 8)), "qrels.csv"
    )
    return load_dataset(run, qrels, load_table(meta, "queries.csv"))


def test_run_queries_missing_from_the_query_table_are_reported_with_examples():
    data = _with_query_table(b"query,kind\nq7,nav\n")
    found = _finding(data.health, "queries_missing_metadata")
    assert found.severity == "warning" and found.count == 6
    assert found.message == (
        "6 of 7 queries in the run are not in the query table; their "
        "segment values show as '(missing)'."
    )
    assert found.examples == ["q1", "q2", "q3", "q4", "q5"]
    assert found.action.startswith("Add these queries to the query table")
    assert found.source == "queries.csv"
    assert data.run["kind"].isna().sum() == 6


def test_query_table_rows_for_queries_outside_the_run_are_a_remark():
    data = _with_query_table(
        b"query,kind\n" + b"".join(f"q{i},nav\n".encode() for i in range(1, 10))
    )
    found = _finding(data.health, "metadata_queries_not_in_run")
    assert found.severity == "info" and found.count == 2 and found.examples == ["q8", "q9"]
    assert found.message == (
        "2 of 9 queries in the query table are not in the run; their rows are not used."
    )
    assert data.health.get("queries_missing_metadata") is None


def test_a_query_table_covering_exactly_the_run_adds_no_coverage_finding():
    data = _with_query_table(
        b"query,kind\n" + b"".join(f"q{i},nav\n".encode() for i in range(1, 8))
    )
    codes = data.health.codes()
    assert "queries_missing_metadata" not in codes and "metadata_queries_not_in_run" not in codes


def test_the_web_search_sample_query_table_covers_its_run():
    from metrics.io.samples import load_sample

    codes = load_sample("web_search").health.codes()
    assert "queries_missing_metadata" not in codes and "metadata_queries_not_in_run" not in codes


# ----------------------------------------------------------------------- the policies in force
def test_tied_scores_say_they_keep_the_input_order_when_that_policy_is_chosen():
    run = _run([("q", "d0", 1.0, "m"), ("q", "d1", 1.0, "m"), ("q", "d2", 0.5, "m")])
    report = validate(run, GOOD_QRELS, k_max=1, settings=Settings(ties="input_order"))
    assert _finding(report, "tied_scores").message == (
        "1 list has tied scores (2 rows share their score with another item "
        "of the same list); ties keep the order of the input rows."
    )


def test_tied_scores_are_not_reported_when_the_rank_column_orders_the_lists():
    run = _run([("q", "d0", 1.0, "m"), ("q", "d1", 1.0, "m"), ("q", "d2", 0.5, "m")])
    report = validate(run, GOOD_QRELS, k_max=1, settings=Settings(ties="rank"))
    assert report.get("tied_scores") is None


@pytest.mark.parametrize(
    "policy, rule",
    [
        ("divide_by_returned", "at K = 10, measures divide by the number of items returned."),
        ("leave_out", "at K = 10, those queries are left out of the averages."),
    ],
)
def test_short_lists_say_what_the_chosen_policy_does(policy, rule):
    report = validate(GOOD_RUN, GOOD_QRELS, k_max=10, settings=Settings(short_lists=policy))
    assert _finding(report, "short_lists").message == (
        f"1 of 1 lists has fewer than 10 items (it has 3); {rule}"
    )


def test_queries_without_relevant_items_say_they_are_left_out_under_that_policy():
    qrels = _qrels([("q", "d0", 1), ("r", "d9", 0)])
    report = validate(GOOD_RUN, qrels, k_max=1, settings=Settings(no_relevant="leave_out"))
    assert _finding(report, "no_relevant").message == (
        "1 of 2 judged queries has no relevant item (label ≥ 1); it is left out of every average."
    )


def test_judged_queries_missing_from_the_run_say_they_score_zero_with_complete():
    qrels = pd.concat([GOOD_QRELS, _qrels([("lost", "d0", 1)])], ignore_index=True)
    report = validate(GOOD_RUN, qrels, k_max=1, settings=Settings(missing_queries="zero"))
    assert _finding(report, "missing_run_queries").message == (
        "1 of 2 judged queries is missing from the run; it is scored as an empty ranking "
        "(0, as trec_eval -c)."
    )


def test_duplicates_are_an_error_that_says_so_when_the_policy_refuses_them():
    run = _run([("q", "d0", 1.0, "m"), ("q", "d0", 0.5, "m")])
    report = validate(run, GOOD_QRELS, k_max=1, settings=Settings(duplicates="error"))
    finding = _finding(report, "duplicate_items")
    assert finding.severity == "error"
    assert finding.message == (
        "1 item appears more than once in the same list; such input is refused "
        "(duplicates = error, as trec_eval)."
    )
    assert finding.action == (
        "Remove the copies, or set 'Duplicate items in a list' to 'keep the best-ranked copy, "
        "drop the rest and report how many'."
    )
