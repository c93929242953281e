"""Command line: ``python -m metrics`` (evaluation), ``python -m metrics compare`` and
``python -m metrics explain``; :func:`metrics.cli.main.main` is the entry point."""
