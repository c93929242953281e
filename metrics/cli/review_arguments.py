"""The options of the commands that resample or test (``compare``, ``labels``, ``history``):
``--resamples``, ``--seed``, ``--confidence`` and ``--alpha``, each defined once with the review's
defaults.

Apart from :mod:`metrics.cli.arguments` because they read the review's defaults
(:mod:`metrics.review.statistics`): the evaluation's command line imports that module, and must
not import the review package.
"""

from __future__ import annotations

import argparse

from metrics.review.compare import DEFAULT_ALPHA
from metrics.review.statistics import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MAX_RESAMPLES,
)


def add_resampling_arguments(p: argparse.ArgumentParser, resamples: str) -> None:
    """``--seed`` and ``--resamples`` (``resamples``: what they are resampled for, the start
    of its help), with the review's defaults."""
    p.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})"
    )
    p.add_argument(
        "--resamples",
        type=int,
        default=DEFAULT_RESAMPLES,
        help=f"{resamples}, 1 to {MAX_RESAMPLES:,} (default {DEFAULT_RESAMPLES}, as in the app)",
    )


def add_confidence_argument(p: argparse.ArgumentParser, what: str = "CI level") -> None:
    """``--confidence``: the level of the intervals (the review's default)."""
    p.add_argument(
        "--confidence",
        type=float,
        default=DEFAULT_CONFIDENCE,
        help=f"{what} (default {DEFAULT_CONFIDENCE:g})",
    )


def add_alpha_argument(p: argparse.ArgumentParser) -> None:
    """``--alpha``: the significance level (the review's default)."""
    p.add_argument(
        "--alpha",
        type=float,
        default=DEFAULT_ALPHA,
        help=f"significance level (default {DEFAULT_ALPHA:g})",
    )
