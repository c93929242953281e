"""The argument parser of both command lines: argparse's, refusing option values it would
otherwise hand on as an empty list.

Python's argparse drops a ``--`` given as an option's value (``--digits=--``, ``-l=--``) and
passes the option an empty list instead of one value; the program would then fail on a list
where a number is expected. Here such an option is a usage error, in argparse's own form
(``error: argument --digits: expected one argument``, exit status 2).
"""

from __future__ import annotations

import argparse
from typing import Any


class ArgumentParser(argparse.ArgumentParser):
    """:class:`argparse.ArgumentParser` whose single-valued options always get one value.

    Examples
    --------
    >>> parser = ArgumentParser(prog="demo", exit_on_error=False)
    >>> _ = parser.add_argument("--digits", type=int)
    >>> parser.parse_args(["--digits=3"]).digits
    3
    >>> parser.parse_args(["--digits=--"])
    Traceback (most recent call last):
    argparse.ArgumentError: argument --digits: expected one argument
    """

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        value = super()._get_values(action, arg_strings)
        if action.nargs is None and isinstance(value, list):
            raise argparse.ArgumentError(action, "expected one argument")
        return value


__all__ = ["ArgumentParser"]
