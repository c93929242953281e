"""The Python API of label sources: agreement and consequence in one call.

::

    from metrics.labels.sources import read_sources
    from metrics.labels.study import study_labels

    sources = read_sources(["annotators.qrels", "llm.csv"], ["annotators", "LLM judge"])
    study = study_labels(sources, run)  # run: a run table with a model column
    study.agreement.pairs          # κ per pair of sources
    study.consequence.correlations # τ_b and τ_AP of the system orderings
    study.consequence.flips        # verdicts that differ by source

:func:`study_labels` returns a :class:`LabelStudy`: the sources with their provenance and
warnings, their :class:`~metrics.labels.agreement.Agreement` and, given runs, their
:class:`~metrics.labels.consequence.Consequence`; every table a pandas DataFrame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from metrics.engine.registry import DEFAULT_REVIEW_K
from metrics.engine.settings import Settings
from metrics.errors import SettingsError
from metrics.io.findings import Finding
from metrics.labels.agreement import Agreement, agreement
from metrics.labels.consequence import Consequence, consequence
from metrics.labels.sources import LabelSources
from metrics.review.compare import CompareOptions


@dataclass(frozen=True, eq=False)
class LabelStudy:
    """Label sources, how far they agree, and what they change.

    Attributes
    ----------
    sources:
        The sources compared (with the aggregate when one was asked for).
    agreement:
        Their agreement on the items they judged.
    consequence:
        What they change for the runs; ``None`` without runs.
    """

    sources: LabelSources
    agreement: Agreement
    consequence: Consequence | None = None

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The warnings on the sources (``mixed_label_kinds``)."""
        return self.sources.findings

    @property
    def summary(self) -> pd.DataFrame:
        """One row per source: judged pairs, queries, a mixing warning and the provenance
        (:meth:`LabelSources.summary`)."""
        return self.sources.summary()


def study_labels(
    sources: LabelSources,
    run: pd.DataFrame | None = None,
    measures: Sequence[str] | None = None,
    settings: Settings = Settings(),
    *,
    k: int = DEFAULT_REVIEW_K,
    baseline: str | None = None,
    candidates: Sequence[str] = (),
    options: CompareOptions = CompareOptions(),
    aggregate: str | None = None,
) -> LabelStudy:
    """The agreement of ``sources`` and, given ``run``, their consequence for its models.

    Parameters
    ----------
    sources:
        Two or more label sources (:mod:`metrics.labels.sources`).
    run:
        A run table (``query``, ``item``, ``score`` or ``rank``, ``model``), or ``None`` for
        the agreement alone.
    measures, settings, k, baseline, candidates, options:
        As :func:`metrics.labels.consequence.consequence` takes them.
    aggregate:
        A value of :data:`~metrics.labels.sources.AGGREGATES`: the sources' aggregate is
        compared as one more source (not in the agreement, which it would inflate).

    Raises
    ------
    SettingsError
        For fewer than two sources, an unknown aggregate, model or measure.
    """
    if len(sources.names) < 2:
        raise SettingsError(
            f"comparing label sources needs at least two; got {len(sources.names)} "
            f"({', '.join(sources.names) or 'none'})."
        )
    compared = sources if aggregate is None else sources.with_aggregate(aggregate)
    found = agreement(sources)
    if run is None:
        return LabelStudy(compared, found)
    result = consequence(
        run,
        compared,
        measures,
        settings,
        k=k,
        baseline=baseline,
        candidates=candidates,
        options=options,
    )
    return LabelStudy(compared, found, result)


__all__ = ["LabelStudy", "study_labels"]
