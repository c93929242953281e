"""The Labels page's computation: agreement and consequence of the data set's label sources,
once per data set, sources, measures, settings and K (:mod:`ui.shell.memo`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from metrics.engine.registry import at_cutoff
from metrics.engine.settings import Settings
from metrics.io.dataset import Dataset
from metrics.labels.sources import LabelSources
from metrics.labels.study import LabelStudy, study_labels
from metrics.review.compare import CompareOptions
from ui.shell import compute, memo


def measures_at(measures: Sequence[str], k: int) -> list[str]:
    """The view's measures at the cutoff ``k`` (a measure without a cutoff as it is), once
    each."""
    return list(dict.fromkeys(compute.cutoff_name(m, k) for m in measures))


def study_of(
    run: pd.DataFrame,
    sources: LabelSources,
    measures: Sequence[str],
    settings: Settings,
    k: int,
) -> LabelStudy:
    """:func:`metrics.labels.study.study_labels` of the run's models under each source, with the
    review's defaults (the numbers of Compare and ``python -m metrics labels``); the label
    source policy plays no part (every source is evaluated)."""
    return study_labels(
        sources,
        run,
        list(measures),
        settings.with_(label_source=None),
        k=k,
        options=CompareOptions(),
    )


def study(
    dataset: Dataset,
    sources: LabelSources,
    measures: Sequence[str],
    settings: Settings,
    k: int,
) -> LabelStudy:
    """:func:`study_of`, cached on the data set's content hash and everything it depends on."""
    key = (
        "labels_study",
        sources.fingerprint,
        tuple(measures),
        compute.settings_key(settings.with_(label_source=None)),
        k,
    )
    found: LabelStudy = memo.cached(
        dataset.content_hash,
        key,
        lambda: study_of(dataset.run, sources, measures, settings, k),
    )
    return found


def judged_name(k: int) -> str:
    """The name of Judged@K, the holes' measure."""
    return at_cutoff("Judged", k)


__all__ = ["judged_name", "measures_at", "study", "study_of"]
