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
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 column: str | None = None, fix: str | None = None) -> None:
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


class MeasureError(MetricsError):
    """A measure name or parameter is unknown or invalid."""


class SettingsError(MetricsError):
    """An evaluation setting has a value outside its allowed set."""
