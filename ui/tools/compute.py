"""Cached computations and pure builders of the Tools page (no layout); the command lines and
code several pages show are :mod:`ui.shell.commands`."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from metrics import schema as S
from metrics.engine.differences import Explanation, explain
from metrics.engine.profiles import PROFILES, own_measures, profile
from metrics.io.dataset import Dataset
from ui.shell import memo
from ui.shell.commands import peer_code
from ui.shell.compute import cutoff_name
from ui.shell.labels import policy_text


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


def tool_names() -> list[str]:
    """The tools whose conventions the page compares (their profiles' keys)."""
    return list(PROFILES)


def tool_measures(tools: tuple[str, str], measures: Sequence[str], k: int) -> tuple[str, ...]:
    """The view's measures at ``k``; a tool without them (ragas and DeepEval: context
    precision) adds its own."""
    return tuple(own_measures(tools, [cutoff_name(m, k) for m in measures], k))


def policies_words(values: Mapping[str, object], tr: Callable[..., str], separator: str) -> str:
    """Policies and their values as their labels and option texts (``Ties: …``)."""
    return separator.join(
        f"{tr(f'policy.{p}.label')}: {policy_text(p, v)}" for p, v in values.items()
    )


def tool_changes(key: str, tr: Callable[..., str]) -> str:
    """The policies a tool sets apart from trec_eval's, in words (``tools.as_trec_eval`` when
    it sets none)."""
    return policies_words(profile(key).policies, tr, ", ") or tr("tools.as_trec_eval")


def best_words(found: Explanation, tr: Callable[..., str]) -> str:
    """The setting (one policy or several) that removes most differences, in words."""
    parts = found.best.split(" + ")
    values = (
        found.best_value if isinstance(found.best_value, dict) else {parts[0]: found.best_value}
    )
    return policies_words({p: values[p] for p in parts}, tr, "; ")


def peer_snippet(key: str, files: tuple[str, str], measures: tuple[str, ...]) -> str | None:
    """The tool's own call with the page's measures (:func:`ui.shell.commands.peer_code`)."""
    return peer_code(profile(key), files, None, measures)
