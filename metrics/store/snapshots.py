"""Review links: a review frozen (data, settings, verdict) and opened read-only by its token.

:func:`create_snapshot` copies the tables, settings and verdict of a workspace's review into a
snapshot of its own and returns the link's token. The token opens that snapshot and nothing else:
:func:`open_snapshot` is the only function that takes it, and it only reads. The catalog keeps
the token's SHA-256; the token is derived from the workspace's key and the snapshot's id
(:func:`~metrics.store.hashing.link_token`), so the workspace can show its links again
(:func:`snapshot_link`) and nobody else can.

A link expires after :attr:`~metrics.store.config.StoreConfig.link_days` days (or those its
maker chose) and can be revoked at once (:func:`revoke_snapshot`: its files are removed then);
:func:`~metrics.store.upkeep.purge` deletes expired and revoked links.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from metrics.errors import LinkError, NotFoundError
from metrics.store.backends import Row, Transaction
from metrics.store.config import link_days
from metrics.store.hashing import is_token, link_token, new_id, token_hash
from metrics.store.messages import store_error
from metrics.store.store import Store, check_name, time_text, to_json
from metrics.store.workspaces import workspace_id

OPEN, EXPIRED, REVOKED = "open", "expired", "revoked"
_COLUMNS = "id, title, created, expires, revoked, bytes"


@dataclass(frozen=True)
class SnapshotInfo:
    """A review link's facts (never its token).

    Attributes
    ----------
    id:
        Its random id (it opens nothing: the token does).
    title:
        What its maker called it.
    created, expires:
        Seconds since 1970.
    revoked:
        When it was revoked (``None``: it was not).
    bytes:
        What its files and settings take.
    """

    id: str
    title: str
    created: float
    expires: float
    revoked: float | None
    bytes: int

    def status(self, now: float) -> str:
        """:data:`OPEN`, :data:`EXPIRED` or :data:`REVOKED` at ``now``."""
        if self.revoked is not None:
            return REVOKED
        return EXPIRED if now >= self.expires else OPEN


@dataclass(frozen=True)
class Snapshot:
    """A frozen review, as its link opens it."""

    info: SnapshotInfo
    tables: Mapping[str, pd.DataFrame]
    settings: Mapping[str, Any]
    verdict: str


def _snapshot_info(row: Row) -> SnapshotInfo:
    ident, title, created, expires, revoked, size = row
    return SnapshotInfo(
        str(ident),
        str(title),
        float(created),
        float(expires),
        None if revoked is None else float(revoked),
        int(size),
    )


def create_snapshot(
    store: Store,
    token: str,
    tables: Mapping[str, pd.DataFrame],
    settings: Mapping[str, Any],
    verdict: str,
    *,
    title: str = "",
    days: float | None = None,
) -> tuple[str, SnapshotInfo]:
    """Freeze a review of the workspace whose key is ``token``; return the link's token and
    the snapshot's facts.

    Parameters
    ----------
    tables:
        The data the review was computed from (run, judgments, query table, ...) by name.
    settings:
        The settings and choices of the review (JSON).
    verdict:
        The verdict's text, as the review showed it.
    title:
        A name for the link's list.
    days:
        Days until the link expires (the store's :attr:`link_days` by default).

    Raises
    ------
    NotFoundError
        For an unknown key.
    QuotaError
        When the snapshot takes the workspace or the store past its quota.
    StoreError
        For a number of days out of range, settings JSON cannot hold, a table Parquet
        cannot.
    """
    lifetime = link_days(store.config.link_days if days is None else days)
    for name in tables:
        check_name(name, "table")
    if title:
        check_name(title, "review link")
    document = to_json({"settings": dict(settings), "verdict": str(verdict)}, "review")
    with store.read() as tx:
        workspace_id(tx, token)
    ident = new_id()
    with store.saving(dict(tables)) as save:
        tx = save.tx
        owner = workspace_id(tx, token)
        size = len(document.encode("utf-8"))
        tx.execute(
            "INSERT INTO snapshots (id, token_hash, workspace_id, title, created, expires, "
            "revoked, settings, verdict, bytes) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
            (
                ident,
                token_hash(link_token(token, ident)),
                owner,
                title,
                save.now,
                save.now + lifetime * 86400,
                json.dumps(dict(settings), sort_keys=True),
                str(verdict),
                size,
            ),
        )
        store.add_files(save, ident, owner, list(tables))
        store.check_quotas(tx, owner, size + sum(f.bytes for f in save.files))
        info = _owned(tx, owner, ident)
    return link_token(token, ident), info


def _owned(tx: Transaction, owner: str, ident: str) -> SnapshotInfo:
    row = tx.one(
        f"SELECT {_COLUMNS} FROM snapshots WHERE id = ? AND workspace_id = ?", (ident, owner)
    )
    if row is None:
        raise store_error(NotFoundError, "snapshot_unknown", snapshot=ident[:40])
    return _snapshot_info(row)


def snapshots(store: Store, token: str) -> list[SnapshotInfo]:
    """The review links of the workspace whose key is ``token``, newest first."""
    with store.read() as tx:
        owner = workspace_id(tx, token)
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM snapshots WHERE workspace_id = ? ORDER BY created DESC, id",
            (owner,),
        )
    return [_snapshot_info(row) for row in rows]


def snapshot_link(store: Store, token: str, snapshot: str) -> str:
    """The token of the workspace's review link ``snapshot`` (its id), to show it again.

    Raises
    ------
    NotFoundError
        For an unknown key, or a link that is not the workspace's.
    """
    with store.read() as tx:
        _owned(tx, workspace_id(tx, token), snapshot)
    return link_token(token, snapshot)


def open_snapshot(store: Store, link: str) -> Snapshot:
    """The frozen review of the link whose token is ``link`` (read only).

    Raises
    ------
    NotFoundError
        ``link_unknown`` for a token no link has (or deleted, or of the wrong form).
    LinkError
        ``link_expired`` or ``link_revoked``.
    """
    row = None
    with store.read() as tx:
        if is_token(link):
            row = tx.one(
                f"SELECT {_COLUMNS}, settings, verdict FROM snapshots WHERE token_hash = ?",
                (token_hash(link),),
            )
        if row is None:
            raise store_error(NotFoundError, "link_unknown")
        info = _snapshot_info(row[:6])
        status = info.status(store.clock())
        if status == REVOKED:
            raise store_error(LinkError, "link_revoked", when=time_text(info.revoked or 0.0))
        if status == EXPIRED:
            raise store_error(LinkError, "link_expired", when=time_text(info.expires))
        files = store.files_of(tx, info.id)
    tables = store.read_tables(files, "the review link")
    return Snapshot(info, tables, json.loads(row[6]), str(row[7]))


def revoke_snapshot(store: Store, token: str, snapshot: str) -> SnapshotInfo:
    """Revoke the workspace's review link ``snapshot``: it stops opening at once, and its
    files are removed (the link's row stays until purged, so that it says it was revoked)."""
    with store.write() as tx:
        owner = workspace_id(tx, token)
        info = _owned(tx, owner, snapshot)
        obsolete = store.drop_files(tx, [info.id])
        if info.revoked is None:
            tx.execute("UPDATE snapshots SET revoked = ? WHERE id = ?", (store.clock(), info.id))
        info = _owned(tx, owner, snapshot)
    store.remove(obsolete)
    return info


def delete_snapshot(store: Store, token: str, snapshot: str) -> None:
    """Delete the workspace's review link ``snapshot`` and its files."""
    store.delete("snapshots", lambda tx: _owned(tx, workspace_id(tx, token), snapshot).id)


__all__ = [
    "EXPIRED",
    "OPEN",
    "REVOKED",
    "Snapshot",
    "SnapshotInfo",
    "create_snapshot",
    "delete_snapshot",
    "open_snapshot",
    "revoke_snapshot",
    "snapshot_link",
    "snapshots",
]
