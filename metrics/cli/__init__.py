"""Command line: ``python -m metrics`` (evaluation) and ``python -m metrics compare``."""

from metrics.cli.evaluate import main

__all__ = ["main"]
