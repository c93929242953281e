"""The command line words its fixes for a command line: roles come from a header row there,
not from the Data page's role menus."""

from __future__ import annotations

import io

import pytest

from metrics.cli.evaluate import main
from metrics.cli.messages import COMMAND_LINE_FIXES, error_line
from metrics.errors import InputError

QRELS = "1 0 d1 1\n1 0 d2 0\n"


def _error(tmp_path, run: str, qrels: str = QRELS) -> str:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run.csv").write_text(run)
    out, err = io.StringIO(), io.StringIO()
    assert main([str(tmp_path / "qrels"), str(tmp_path / "run.csv")], out, err) == 2
    return err.getvalue()


@pytest.mark.parametrize(
    ("run", "words"),
    [
        ("query,item,points\n1,d1,5\n1,d2,4\n", "names the score column"),
        ("query,item,score\n1,d1,x\n1,d2,y\n", "name another column score in the header row"),
    ],
    ids=["no score column", "scores that are not numbers"],
)
def test_a_role_problem_is_fixed_with_a_header_row_not_by_mapping(tmp_path, run, words):
    message = _error(tmp_path, run)
    assert words in message
    assert "Map " not in message and "role" not in message


def test_a_doubtful_guess_asks_for_a_header_row_without_naming_the_data_page():
    error = InputError("The column roles cannot be guessed safely.", code="doubtful_guess")
    error.fix = "Set the roles on the Data page."
    line = error_line(error)
    assert COMMAND_LINE_FIXES["doubtful_guess"] in line and "Data page" not in line


def test_a_fix_without_a_command_line_wording_is_kept():
    error = InputError("Bad.", source="a.csv", fix="Do this.", code="something_else")
    assert error_line(error) == "error: a.csv: Bad. Fix: Do this."


@pytest.mark.parametrize(
    ("run_id", "judged_id", "words"),
    [
        ("1.0", "1", "they write the same numbers differently"),
        ("2024-01-01 00:00:00", "2024-01-01", "they write the same dates differently"),
        ("2024-01-01T00:00:00", "2024-01-01", "they write the same dates differently"),
        ("q7", "7", "No query appears in both the run and the judgments. (e.g. run: q7;"),
    ],
)
def test_no_shared_query_says_how_the_ids_differ_and_shows_them(tmp_path, run_id, judged_id, words):
    message = _error(
        tmp_path,
        f"query,item,score\n{run_id},a,0.9\n",
        qrels=f"query,item,relevance\n{judged_id},a,1\n",
    )
    assert words in message
    assert f"run: {run_id}; judgments: {judged_id}" in message
