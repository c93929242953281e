"""The one message style of both command lines for unusable input.

``error: FILE:LINE: reason Fix: ...`` (``FILE:`` and ``LINE:`` only when known), one line on
stderr, exit status 2. ``python -m metrics`` and ``python -m metrics compare`` both print
through :func:`error_line`; argparse's own usage errors keep argparse's form. The notes and
warnings on the input go to stderr by :func:`write_findings`.
"""

from __future__ import annotations

from typing import TextIO

from metrics.errors import InputError

_HEADER = "Give the file a header row that names "
#: Fixes that speak of the app's column roles, in the words of a command line (which reads the
#: roles from a header row), by finding key or error code.
COMMAND_LINE_FIXES: dict[str, str] = {
    "no_query_column": _HEADER + "the query column (query, qid, user_id, ...), or a TREC file.",
    "no_item_column": _HEADER + "the item column (item, docid, product_id, ...), or a TREC file.",
    "no_score_or_rank": _HEADER + "the score column (higher is better) or the rank column "
    "(1 is best), or a TREC file.",
    "no_label_column": _HEADER + "the label column (relevance, label, grade, clicked, ...), or "
    "a TREC qrels file.",
    "non_numeric_score": "Clean the values that are not numbers, or name another column score "
    "in the header row.",
    "non_numeric_rank": "Clean the values that are not numbers, or name another column rank in "
    "the header row.",
    "non_numeric_label": "Give each text label a grade with --label-map '{example}', or use "
    "numbers (0, 1, 2, ...) for labels.",
    "labels_look_like_ranks": "Name this column rank in the header row, and name the column of "
    "relevance grades or clicks label.",
    "no_scores": "Name the column of the model's scores score (or of its ranks rank) in the "
    "header row; rows without one are read as judgments only.",
    "no_judgments": "Give the judgments file before the runs (QRELS RUN), or name the column "
    "of relevance labels 'label' in the header row of the one table.",
    "doubtful_guess": _HEADER + "the columns (such as query,item,score,label) so that they are "
    "read by name.",
}


def _fix(problem: InputError) -> str | None:
    """The fix of ``problem`` in a command line's words: the header names that settle a doubtful
    role guess (``params["header_fix"]``), else :data:`COMMAND_LINE_FIXES`."""
    header_fix = problem.params.get("header_fix")
    if isinstance(header_fix, str):
        return header_fix
    finding = problem.finding
    for key in (getattr(finding, "key", None), getattr(finding, "code", None), problem.code):
        if key in COMMAND_LINE_FIXES:
            params = dict(getattr(finding, "params", None) or problem.params)
            fix = COMMAND_LINE_FIXES[key]
            return fix.format(**params) if "{" in fix and params else fix
    return problem.fix


def error_line(problem: BaseException | str) -> str:
    """The line (without newline) that reports ``problem``.

    Examples
    --------
    >>> error_line(InputError("the score 'abc' is not a number.", source="a.run", line=7))
    "error: a.run:7: the score 'abc' is not a number."
    >>> error_line("--digits must be between 0 and 12, got 20.")
    'error: --digits must be between 0 and 12, got 20.'
    """
    if not isinstance(problem, InputError):
        return f"error: {problem}"
    text = problem.reason
    examples = getattr(problem.finding, "examples", None)
    if examples:
        text += f" (e.g. {'; '.join(examples)})"
    if problem.column is not None:
        text = f"column '{problem.column}': {text}"
    fix = _fix(problem)
    if fix:
        text += f" Fix: {fix}"
    if problem.source:
        where = problem.source if problem.line is None else f"{problem.source}:{problem.line}"
        text = f"{where}: {text}"
    elif problem.line is not None:
        text = f"line {problem.line}: {text}"
    return f"error: {text}"


def write_findings(notes: list[str], warnings: list[str], err: TextIO) -> None:
    """``note: ...`` and ``warning: ...`` lines on ``err`` (both command lines)."""
    for note in notes:
        err.write(f"note: {note}\n")
    for warning in warnings:
        err.write(f"warning: {warning}\n")


__all__ = ["error_line", "write_findings"]
