"""Typed errors raised for unusable input. Every message names where and how to fix it."""

from __future__ import annotations


class MetricsError(ValueError):
    """Base class of every input error the engine, loaders and CLI raise."""


class InputError(MetricsError):
    """A file or table cannot be used as given.

    Attributes
    ----------
    source:
        The file name (or table name) the problem is in, if known.
    line:
        1-based line number in the file, if known.
    column:
        Column name, if the problem is confined to one column.
    code, params:
        A stable code of the problem and the values its message names, for a translated
        message (``None`` and ``{}`` for errors without one).
    finding:
        The :class:`~metrics.io.findings.Finding` this error reports (its code and
        parameters, for a translated message), if it came from validation.
    """

    finding: object | None = None

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        column: str | None = None,
        fix: str | None = None,
        code: str | None = None,
        params: dict[str, object] | None = None,
    ) -> None:
        self.code = code
        self.params = dict(params or {})
        self.source = source
        self.line = line
        self.column = column
        self.fix = fix
        self.reason = message
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.source:
            where.append(self.source)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        text = (", ".join(where) + ": " if where else "") + self.reason
        if self.fix:
            text += f" Fix: {self.fix}"
        return text


def file_line(
    first_line: int | None, position: int, skipped_lines: tuple[int, ...] | list[int] = ()
) -> int | None:
    """Physical line of the data row at 0-based ``position``.

    Parameters
    ----------
    first_line:
        1-based line of the first data row (``None`` when rows have no lines).
    position:
        0-based position of the row among the data rows.
    skipped_lines:
        Ascending 1-based lines at or after ``first_line`` that hold no row (blank lines).

    Returns
    -------
    int or None
        The line, counting every line of the file (header and blank lines included).

    Examples
    --------
    >>> file_line(2, 2, (3, 5))  # header, row, blank, row, blank, row
    6
    """
    if first_line is None:
        return None
    line = int(first_line) + int(position)
    for skipped in skipped_lines:
        if skipped > line:
            break
        line += 1
    return line


class MeasureError(MetricsError):
    """A measure name or parameter is unknown or invalid."""


class SettingsError(MetricsError):
    """An evaluation setting has a value outside its allowed set."""


class StoreError(MetricsError):
    """The store refuses an operation: a quota reached, an unknown key, version or link, an
    expired link, judgments that differ. Its words come from :mod:`metrics.store.messages`.

    Attributes
    ----------
    code, params:
        A stable code of the refusal and the values its message names, for a translated
        message (``store.<code>`` in the app's catalogs).
    reason, fix:
        What is refused and why, and what to do, in English.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        params: dict[str, object] | None = None,
        fix: str | None = None,
    ) -> None:
        self.code = code
        self.params = dict(params or {})
        self.reason = message
        self.fix = fix
        super().__init__(message + (f" Fix: {fix}" if fix else ""))


class QuotaError(StoreError):
    """Saving would take a workspace, or the whole store, past its quota of bytes."""


class NotFoundError(StoreError):
    """No workspace has this key, no project this version, no review link this token."""


class LinkError(StoreError):
    """A review link that was revoked or has expired."""


class ConflictError(StoreError):
    """A version saved twice, or two versions whose judgments differ compared."""
