"""Modules imported when one of their names is first used.

pandas takes about a quarter of a CPU second to import and :mod:`pyarrow.compute` some 40 ms,
against well under a second for a whole evaluation of a million rows. Modules that need them
for some of their functions only name them as :class:`LazyModule` at the top (the type checker
sees the real import), so that a command which never calls those functions never imports them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any


class LazyModule:
    """The module ``name``, imported when one of its attributes is first read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"LazyModule({self._name!r})"


__all__ = ["LazyModule"]
