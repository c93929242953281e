"""The one message style of both command lines for unusable input.

``error: FILE:LINE: reason Fix: ...`` (``FILE:`` and ``LINE:`` only when known), one line on
stderr, exit status 2. ``python -m metrics`` and ``python -m metrics compare`` both print
through :func:`error_line`; argparse's own usage errors keep argparse's form.
"""

from __future__ import annotations

from metrics.errors import InputError


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
    if problem.column is not None:
        text = f"column '{problem.column}': {text}"
    if problem.fix:
        text += f" Fix: {problem.fix}"
    if problem.source:
        where = problem.source if problem.line is None else f"{problem.source}:{problem.line}"
        text = f"{where}: {text}"
    elif problem.line is not None:
        text = f"line {problem.line}: {text}"
    return f"error: {text}"


__all__ = ["error_line"]
