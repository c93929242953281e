"""The English words of the store's refusals, by code, and the one way they are raised.

:data:`STORE_MESSAGES` holds, by :attr:`~metrics.errors.StoreError.code`, what is refused and
the fix; :func:`store_error` builds the error with its code and parameters, so that the app can
word the same refusal from its catalogs (``store.<code>``) in the user's language. A message
never names a workspace key or a link's token.
"""

from __future__ import annotations

from metrics.errors import StoreError

_ASK_ADMIN = "ask whoever runs the app to "

#: ``code: (message, fix)``; both are :meth:`str.format` templates of the error's parameters.
STORE_MESSAGES: dict[str, tuple[str, str]] = {
    "workspace_unknown": (
        "No workspace has this key: it was deleted, removed after a time without use, or the "
        "key is incomplete.",
        "Start a new workspace (open the app without a key) and load the data again.",
    ),
    "quota_workspace": (
        "Saving this ({adding_text}) would bring the workspace to {after_text}, over its quota "
        "of {quota_text}.",
        "Delete saved tables, versions or review links the workspace no longer needs, or "
        + _ASK_ADMIN
        + "raise RANKING_METRICS_WORKSPACE_QUOTA.",
    ),
    "quota_store": (
        "Saving this ({adding_text}) would bring the store to {after_text}, over its quota of "
        "{quota_text}.",
        "Delete versions or workspaces no longer needed, or " + _ASK_ADMIN + "purge the store "
        "or raise RANKING_METRICS_STORE_QUOTA.",
    ),
    "version_exists": (
        "Project '{project}' already has a version '{version}' (saved {saved}).",
        "Save under another version name, or delete that version first.",
    ),
    "version_unknown": (
        "Project '{project}' has no version '{version}' (its versions: {versions}).",
        "Name one of its versions.",
    ),
    "project_unknown": (
        "The store has no project '{project}' (projects: {projects}).",
        "Name a project of the store, or save a run in it first: python -m metrics save RUN "
        "--project P --version V.",
    ),
    "no_accepted": (
        "Project '{project}' has no accepted version yet (its versions: {versions}).",
        "Accept one (python -m metrics save --project P --version V --accept), or name a "
        "version instead.",
    ),
    "judgments_differ": (
        "{first} and {second} were scored against different judgments (judgments "
        "{first_hash} and {second_hash}): their numbers answer different questions, so they "
        "are not compared.",
        "Compare runs scored against the same judgments, or save both runs again with one "
        "judgments file.",
    ),
    "link_unknown": (
        "This review link is not known: it was mistyped, or the review was deleted.",
        "Ask the person who shared it for the link again.",
    ),
    "link_expired": (
        "This review link expired on {when}.",
        "Ask the person who shared it for a new link.",
    ),
    "link_revoked": (
        "This review link was revoked on {when}.",
        "Ask the person who shared it for a new link.",
    ),
    "snapshot_unknown": (
        "The workspace has no review link '{snapshot}'.",
        "Choose one of the workspace's review links.",
    ),
    "link_days": (
        "A review link expires after more than 0 and at most {most:g} days; got {days!r}.",
        "Give a number of days between 1 and {most:g}.",
    ),
    "store_newer": (
        "The store at {where} has schema version {found}, newer than this program's {known}.",
        "Upgrade ranking-metrics-explorer, or point RANKING_METRICS_HOME or "
        "RANKING_METRICS_DB at another store.",
    ),
    "store_busy": (
        "The store at {where} stayed busy for {seconds:g} s: other sessions are saving.",
        "Try again in a moment.",
    ),
    "store_unreachable": (
        "The store's database at {where} cannot be used: {reason}",
        "Check RANKING_METRICS_DB and that the PostgreSQL server is running and accepts this user.",
    ),
    "driver_missing": (
        "RANKING_METRICS_DB names a PostgreSQL database, but the psycopg package is not installed.",
        "pip install 'psycopg[binary]' (it is in requirements.txt), or unset "
        "RANKING_METRICS_DB to use the SQLite store in the data folder.",
    ),
    "database_url": (
        "RANKING_METRICS_DB must be a postgresql:// URL; got one starting '{scheme}'.",
        "Give postgresql://USER@HOST:PORT/DATABASE, or unset it to use SQLite.",
    ),
    "setting": (
        "{name} must be {what}; got '{value}'.",
        "Set {name} to {example}, or unset it for the default ({default}).",
    ),
    "name": (
        "A {what} name must be 1 to {most} characters, none of them a control character; got "
        "{value!r}.",
        "Give a short name such as 'v12' or 'search-ranking'.",
    ),
    "reserved_version": (
        "'{version}' names a project's last accepted version; it cannot be a version's name.",
        "Give the version another name, such as 'v12'.",
    ),
    "note_size": (
        "A version's note holds at most {most:,} characters; this one has {size:,}.",
        "Shorten the note.",
    ),
    "not_json": (
        "The {what} cannot be stored: {reason}.",
        "Keep to text, numbers, true/false, null, lists and objects with text keys.",
    ),
    "document_size": (
        "The {what} takes {size_text} as JSON, more than the {most_text} the store keeps.",
        "Keep tables as tables, not inside the settings.",
    ),
    "table_not_storable": (
        "Table '{name}' cannot be stored as Parquet: {reason}.",
        "Give each column one type (text or numbers) and distinct names.",
    ),
    "file_missing": (
        "A data file of {owner} is missing from the data folder {folder}.",
        "Restore the data folder from its backup, or delete {owner}.",
    ),
}


def size_text(size: int | float) -> str:
    """A number of bytes as people read it (binary units, one decimal above a kilobyte).

    Examples
    --------
    >>> size_text(512), size_text(1536), size_text(5 * 1024**3)
    ('512 B', '1.5 KB', '5.0 GB')
    """
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if abs(value) < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def store_error(kind: type[StoreError], code: str, **params: object) -> StoreError:
    """The error ``kind`` for the refusal ``code``, worded from :data:`STORE_MESSAGES` (every
    parameter ending in ``_text`` is a wording of another one, for the English message)."""
    message, fix = STORE_MESSAGES[code]
    return kind(
        message.format(**params),
        code=code,
        params={k: v for k, v in params.items() if not k.endswith("_text")},
        fix=fix.format(**params),
    )


__all__ = ["STORE_MESSAGES", "size_text", "store_error"]
