"""Where the store is and what it allows, read from the environment.

=================================  =============================================  ============
variable                           meaning                                        default
=================================  =============================================  ============
``RANKING_METRICS_HOME``           the data folder (Parquet files; the SQLite     per user
                                   catalog unless ``RANKING_METRICS_DB``)
``RANKING_METRICS_DB``             a ``postgresql://`` URL: the catalog on        (SQLite)
                                   PostgreSQL, shared by several app servers
``RANKING_METRICS_WORKSPACE_QUOTA`` bytes one workspace may hold (``500M``,       500M
                                   ``2G``; ``0``: no limit)
``RANKING_METRICS_STORE_QUOTA``    bytes the whole store may hold                 20G
``RANKING_METRICS_LINK_DAYS``      days until a review link expires               30
``RANKING_METRICS_RETENTION_DAYS`` days without use before :func:`purge` removes  90
                                   a workspace (``0``: never)
=================================  =============================================  ============

The per-user default of the data folder is ``$XDG_DATA_HOME/ranking-metrics``, or
``~/.local/share/ranking-metrics`` without ``XDG_DATA_HOME``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from metrics.errors import StoreError
from metrics.store.messages import size_text, store_error

HOME_VARIABLE = "RANKING_METRICS_HOME"
DB_VARIABLE = "RANKING_METRICS_DB"
WORKSPACE_QUOTA_VARIABLE = "RANKING_METRICS_WORKSPACE_QUOTA"
STORE_QUOTA_VARIABLE = "RANKING_METRICS_STORE_QUOTA"
LINK_DAYS_VARIABLE = "RANKING_METRICS_LINK_DAYS"
RETENTION_VARIABLE = "RANKING_METRICS_RETENTION_DAYS"

MIB = 1024**2
GIB = 1024**3
DEFAULT_WORKSPACE_QUOTA = 500 * MIB
DEFAULT_STORE_QUOTA = 20 * GIB
DEFAULT_LINK_DAYS = 30.0
#: The longest a review link may live (ten years).
MAX_LINK_DAYS = 3650.0
DEFAULT_RETENTION_DAYS = 90.0
#: Files in the data folder that the catalog does not know are left alone this long (seconds) by
#: :func:`~metrics.store.upkeep.purge`: a save in progress writes its files before its catalog
#: rows.
DEFAULT_ORPHAN_GRACE = 3600.0

_UNITS = {"": 1, "K": 1024, "M": MIB, "G": GIB, "T": 1024**4}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class StoreConfig:
    """Where the store keeps its files and catalog, and its limits.

    Attributes
    ----------
    home:
        The data folder: ``data/`` holds the Parquet files, ``catalog.sqlite3`` the SQLite
        catalog.
    database:
        A ``postgresql://`` URL for the catalog on PostgreSQL; ``None``: SQLite in ``home``.
    workspace_quota, store_quota:
        Bytes one workspace (its tables, versions saved from it and review links), and the whole
        store, may hold; ``None``: no limit.
    link_days:
        Days until a review link expires, unless its maker chooses otherwise.
    retention_days:
        Days without use after which :func:`~metrics.store.upkeep.purge` removes a workspace;
        ``None``: never.
    orphan_grace:
        Seconds a file unknown to the catalog is left alone by purge.
    """

    home: Path
    database: str | None = None
    workspace_quota: int | None = DEFAULT_WORKSPACE_QUOTA
    store_quota: int | None = DEFAULT_STORE_QUOTA
    link_days: float = DEFAULT_LINK_DAYS
    retention_days: float | None = DEFAULT_RETENTION_DAYS
    orphan_grace: float = DEFAULT_ORPHAN_GRACE

    def __post_init__(self) -> None:
        object.__setattr__(self, "home", Path(self.home).expanduser())
        if self.database is not None:
            scheme = self.database.partition(":")[0].lower()
            if scheme not in ("postgresql", "postgres"):
                raise store_error(StoreError, "database_url", scheme=scheme[:20] + ":")
        link_days(self.link_days)

    @property
    def where(self) -> str:
        """The catalog's place for messages: the SQLite file, or the URL without password."""
        if self.database is None:
            return str(self.home / "catalog.sqlite3")
        return redacted(self.database)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> StoreConfig:
        """The configuration of the environment variables (see the module's table).

        Raises
        ------
        StoreError
            For a value that is not a size, a number of days or a ``postgresql://`` URL.
        """
        env = os.environ if environ is None else environ
        database = env.get(DB_VARIABLE, "").strip() or None
        return cls(
            home=Path(env.get(HOME_VARIABLE, "").strip() or default_home(env)),
            database=database,
            workspace_quota=_size(env, WORKSPACE_QUOTA_VARIABLE, DEFAULT_WORKSPACE_QUOTA),
            store_quota=_size(env, STORE_QUOTA_VARIABLE, DEFAULT_STORE_QUOTA),
            link_days=_days(env, LINK_DAYS_VARIABLE, DEFAULT_LINK_DAYS, allow_never=False)
            or DEFAULT_LINK_DAYS,
            retention_days=_days(env, RETENTION_VARIABLE, DEFAULT_RETENTION_DAYS),
        )


def default_home(environ: Mapping[str, str] | None = None) -> Path:
    """The per-user data folder: ``$XDG_DATA_HOME/ranking-metrics`` or
    ``~/.local/share/ranking-metrics``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME", "").strip()
    root = Path(base) if base else Path(env.get("HOME", "") or Path.home()) / ".local" / "share"
    return root / "ranking-metrics"


def redacted(url: str) -> str:
    """``url`` without its password (and without its query string, which may hold one).

    Examples
    --------
    >>> redacted("postgresql://app:secret@db.example:5432/metrics?sslmode=require")
    'postgresql://app@db.example:5432/metrics'
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit((parts.scheme, user + host, parts.path, "", ""))


def parse_size(text: str) -> int | None:
    """A number of bytes written ``1048576``, ``500M``, ``2G``, ``1.5GB`` or ``2GiB`` (binary
    units); ``0`` is no limit (``None``).

    Raises
    ------
    ValueError
        For any other text.

    Examples
    --------
    >>> parse_size("500M"), parse_size("2 GiB"), parse_size("0")
    (524288000, 2147483648, None)
    """
    match = _SIZE.match(text)
    if not match:
        raise ValueError(text)
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    return size or None


def _size(env: Mapping[str, str], name: str, default: int) -> int | None:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        return parse_size(text)
    except ValueError:
        raise store_error(
            StoreError,
            "setting",
            name=name,
            what="a number of bytes such as 500M or 2G (0 for no limit)",
            value=text[:40],
            example="500M",
            default=size_text(default),
        ) from None


def _days(
    env: Mapping[str, str], name: str, default: float, *, allow_never: bool = True
) -> float | None:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        days = float(text)
    except ValueError:
        days = -1.0
    if not (math.isfinite(days) and days >= 0) or (days == 0 and not allow_never):
        raise store_error(
            StoreError,
            "setting",
            name=name,
            what="a number of days" + (" (0: never)" if allow_never else " above 0"),
            value=text[:40],
            example="30",
            default=f"{default:g}",
        )
    return days or None


def link_days(days: float) -> float:
    """``days`` when a review link may live that long (more than 0, at most
    :data:`MAX_LINK_DAYS`).

    Raises
    ------
    StoreError
        Otherwise.
    """
    if (
        isinstance(days, bool)
        or not isinstance(days, (int, float))
        or not 0 < days <= MAX_LINK_DAYS
    ):
        raise store_error(StoreError, "link_days", days=days, most=MAX_LINK_DAYS)
    return float(days)


__all__ = [
    "DB_VARIABLE",
    "DEFAULT_LINK_DAYS",
    "DEFAULT_RETENTION_DAYS",
    "DEFAULT_STORE_QUOTA",
    "DEFAULT_WORKSPACE_QUOTA",
    "HOME_VARIABLE",
    "MAX_LINK_DAYS",
    "StoreConfig",
    "default_home",
    "link_days",
    "parse_size",
    "redacted",
]
