"""``python -m metrics [compare|explain|labels|save|history] ...``: hands the command line to
its subcommand.

Without a subcommand the arguments are an evaluation (:mod:`metrics.cli.evaluate`); ``compare``
goes to :mod:`metrics.cli.compare`, ``explain`` to :mod:`metrics.cli.explain`, ``labels`` (label
sources, their agreement and consequence) to :mod:`metrics.cli.labels`, and ``save`` and
``history`` (versions kept in the store) to :mod:`metrics.cli.saved`. Those are imported only
when asked for, so that an evaluation does not load what they need.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import TextIO

from metrics.cli import evaluate
from metrics.cli.messages import error_line

EXIT_USAGE = evaluate.EXIT_USAGE


def main(
    argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Entry point of ``python -m metrics``; returns the exit status (0 ok, 2 unusable input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    err = err or sys.stderr
    if argv[:1] == ["compare"]:
        return _compare(argv[1:], err)
    if argv[:1] in (["save"], ["history"]):
        # deferred: the store reads and writes Parquet (pyarrow.parquet) and pandas tables
        saved = importlib.import_module("metrics.cli.saved")
        return int(saved.main(argv, out=out, err=err))
    if argv[:1] == ["labels"]:
        # deferred: the label sources import pandas, and the review scipy for its tests
        labels = importlib.import_module("metrics.cli.labels")
        return int(labels.main(argv[1:], out=out, err=err))
    if argv[:1] == ["explain"]:
        # deferred: the explanations import pandas (metrics.engine.differences)
        explain = importlib.import_module("metrics.cli.explain")
        return int(explain.main(argv[1:], out=out, err=err))
    return evaluate.main(argv, out, err)


def _compare(argv: list[str], err: TextIO) -> int:
    if importlib.util.find_spec("metrics.cli.compare") is None:
        err.write(error_line("the compare command is not available in this version.") + "\n")
        return EXIT_USAGE
    # deferred: the review imports pandas, and scipy for its tests
    module = importlib.import_module("metrics.cli.compare")
    return int(module.main(argv))


__all__ = ["main"]
