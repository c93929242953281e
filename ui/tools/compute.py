"""Cached computations and pure builders of the Tools page (no layout); the command lines and
code several pages show are :mod:`ui.shell.commands`."""

from __future__ import annotations

import shlex
from collections.abc import Callable

import pandas as pd

from metrics import schema as S
from metrics.engine.differences import Explanation, explain
from metrics.engine.profiles import profile
from metrics.io.dataset import Dataset
from ui.shell import memo


def _explanation_of(
    dataset: Dataset, model: str, measures: tuple[str, ...], first: str, second: str
) -> Explanation:
    run = dataset.run
    if S.MODEL in run.columns:
        run = run[run[S.MODEL] == model].drop(columns=[S.MODEL])
    return explain(
        run, dataset.qrels, list(measures), profile(first).settings(), profile(second).settings()
    )


def explanation(
    dataset: Dataset, model: str, measures: tuple[str, ...], first: str, second: str
) -> Explanation:
    """:func:`metrics.engine.differences.explain` of one model between two profiles (kept in
    the app's one cache, :func:`ui.shell.memo.cached`; a copy the page may change)."""
    choices = (model, tuple(measures), first, second)
    return memo.cached(
        dataset.content_hash,
        ("explanation", *choices),
        lambda: _explanation_of(dataset, *choices),
        copy=True,
    )


def command_line(
    files: tuple[str, str], model: str | None, measures: tuple[str, ...], first: str, second: str
) -> str:
    """The ``python -m metrics explain`` command that prints the page's numbers."""
    qrels, run = files
    words = ["python", "-m", "metrics", "explain", qrels, run, "--from", first, "--to", second]
    for measure in measures:
        words += ["-m", measure]
    if model:
        words += ["--model", model]
    return shlex.join(words)


def python_code(
    files: tuple[str, str], model: str | None, measures: tuple[str, ...], first: str, second: str
) -> str:
    """A Python snippet of our API that prints the page's means and differing queries."""
    qrels, run = files
    keep = f"run = run[run['model'] == {model!r}].drop(columns='model')\n" if model else ""
    return (
        "import pandas as pd\n"
        "from metrics.engine.differences import explain\n"
        "from metrics.engine.profiles import profile\n\n"
        f"qrels = pd.read_csv({qrels!r}, dtype={{'query': str, 'item': str}})\n"
        f"run = pd.read_csv({run!r}, dtype={{'query': str, 'item': str}})\n"
        f"{keep}"
        f"found = explain(run, qrels, {list(measures)!r}, profile({first!r}).settings(), "
        f"profile({second!r}).settings())\n"
        "print(found.measure_means)\n"
        "print(found.queries)\n"
    )


def differences_display(
    found: Explanation, tr: Callable[..., str], labels: tuple[str, str]
) -> pd.DataFrame:
    """The differing queries with translated column names and causes in words."""
    table = found.queries
    return pd.DataFrame(
        {
            tr("tools.col.measure"): table["measure"],
            tr("tools.col.query"): table["query"],
            labels[0]: table["a"],
            labels[1]: table["b"],
            tr("tools.col.cause"): [cause_words(c, tr) for c in table["cause"]],
        }
    )


def cause_words(cause: str, tr: Callable[..., str]) -> str:
    """A cause (``ties``, ``ties + gain``) as the policies' labels in the session's language."""
    if not cause:
        return tr("tools.cause.none")
    return " + ".join(tr(f"policy.{p}.label") for p in cause.split(" + "))
