"""The History page's tables (pure: no Streamlit): the history, the leaderboard, the versions
and the review links, with the catalog's column names.

Numbers are kept as they are (the page formats them): the history's are the store's, the same
as ``python -m metrics history`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from metrics.store import RunInfo, SnapshotInfo, leaderboard
from metrics.store.runs import last_accepted
from metrics.store.store import time_text
from ui.review.history_figures import ENGLISH, Translate

#: How many digits of a judgments hash are shown (as the command line's TSV).
HASH_DIGITS = 12
#: The columns of :func:`history_display`, in order (``rank`` first on the leaderboard).
HISTORY_SHOWN = ("version", "model", "saved", "mean", "ci_low", "ci_high", "queries", "accepted")


def _mark(accepted: object, tr: Translate) -> str:
    return tr("history.accepted_yes") if bool(accepted) else ""


def _named(frame: pd.DataFrame, tr: Translate) -> pd.DataFrame:
    return frame.rename(columns={c: tr(f"history.col.{c}") for c in frame.columns})


def history_display(table: pd.DataFrame, measure: str, tr: Translate = ENGLISH) -> pd.DataFrame:
    """The rows of ``measure`` of a history table (oldest version first)."""
    rows = table[table["measure"] == measure]
    out = rows[list(HISTORY_SHOWN)].reset_index(drop=True)
    out["saved"] = out["saved"].astype(str).str[:10]
    out["accepted"] = [_mark(a, tr) for a in out["accepted"]]
    return _named(out, tr)


def leaderboard_display(table: pd.DataFrame, measure: str, tr: Translate = ENGLISH) -> pd.DataFrame:
    """:func:`metrics.store.leaderboard` of ``measure``: best mean first, ranked from 1."""
    rows = leaderboard(table[table["measure"] == measure], measure)
    out = rows[["rank", *HISTORY_SHOWN]].reset_index(drop=True)
    out["saved"] = out["saved"].astype(str).str[:10]
    out["accepted"] = [_mark(a, tr) for a in out["accepted"]]
    return _named(out, tr)


def versions_display(infos: Sequence[RunInfo], tr: Translate = ENGLISH) -> pd.DataFrame:
    """The versions of a project, oldest first: when saved, their models and queries, the
    judgments they were scored against, the note, and the last accepted one marked."""
    last = last_accepted(infos)
    out = pd.DataFrame(
        {
            "version": [i.version for i in infos],
            "saved": [i.saved_text for i in infos],
            "models": [", ".join(i.models) for i in infos],
            "queries": [i.queries for i in infos],
            "judgments": [i.judgments_hash[:HASH_DIGITS] for i in infos],
            "note": [i.note for i in infos],
            "accepted": [_mark(last is not None and i.id == last.id, tr) for i in infos],
        }
    )
    return _named(out, tr)


def links_display(
    infos: Sequence[SnapshotInfo], now: float, tr: Translate = ENGLISH
) -> pd.DataFrame:
    """A workspace's review links, newest first: title, made, expires, and whether it opens."""
    out = pd.DataFrame(
        {
            "title": [i.title for i in infos],
            "created": [time_text(i.created) for i in infos],
            "expires": [time_text(i.expires) for i in infos],
            "status": [tr(f"share.status.{i.status(now)}") for i in infos],
        }
    )
    return _named(out, tr)


__all__ = ["HASH_DIGITS", "history_display", "leaderboard_display", "links_display"]
