"""The data set: canonical, validated run, judgments and segments, and what its lists look like.

:func:`metrics.io.loaders.load_dataset` builds a :class:`Dataset` from files;
:class:`ListSummary` says how its rows group into ranked lists (a sanity check at a glance).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from metrics.engine.ids import IdCodes
from metrics.io.findings import DataHealth
from metrics.io.hashing import content_hash
from metrics.io.roles import proposed_segments
from metrics.schema import MODEL, QUERY


@dataclass(frozen=True, eq=False)
class Dataset:
    """Canonical, validated input of an evaluation.

    Attributes
    ----------
    name:
        Display name.
    run:
        ``query``, ``item``, ``score``, [``rank``], ``model``, then segment columns.
    qrels:
        ``query``, ``item``, ``relevance`` (one row per judged item).
    segments:
        One row per query: ``query`` and the segment columns; ``None`` without segments.
    health:
        Warnings and remarks found while loading (errors raise instead).
    description:
        What the data set is, in English (for samples; the app shows the catalog's
        ``sample.<name>.description``).
    content_hash:
        SHA-256 of the three frames, computed once; a cache key.
    ids:
        The query and item ids of ``run`` and ``qrels`` as integer codes, encoded once so that
        rankings do not hash them again (``None``: each ranking encodes them).
    run_sources:
        The models of each run file, by file name (empty when not loaded from files).
    query_table_columns:
        The columns of the query table read as segment columns (empty without one).
    query_columns:
        The run tables' columns read as the query id (``query`` for TREC files).
    """

    name: str
    run: pd.DataFrame
    qrels: pd.DataFrame
    segments: pd.DataFrame | None = None
    health: DataHealth = field(default_factory=DataHealth)
    description: str = ""
    ids: IdCodes | None = field(default=None, repr=False)
    run_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    query_table_columns: tuple[str, ...] = ()
    query_columns: tuple[str, ...] = ()
    content_hash: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "content_hash", content_hash(self.run, self.qrels, self.segments))

    @property
    def models(self) -> list[str]:
        """Model names in order of first appearance."""
        return list(self._models)

    @cached_property
    def _models(self) -> tuple[str, ...]:
        """The model names, found once (the pages ask often; each look reads every run row)."""
        return tuple(pd.unique(self.run[MODEL]))

    @property
    def segment_columns(self) -> list[str]:
        """Names of the segment columns."""
        return [] if self.segments is None else [c for c in self.segments.columns if c != QUERY]

    @property
    def proposed_segments(self) -> list[str]:
        """The segment columns worth segmenting by: 2 to 50 values over the queries."""
        return proposed_segments(self.segments)

    @cached_property
    def lists(self) -> ListSummary:
        """How the rows group into ranked lists: queries, lists per model, median length."""
        return list_summary(self.run)


@dataclass(frozen=True)
class ListSummary:
    """What the rows of a run make: a sanity check of the query column at a glance (``2
    queries, median list length 840`` reads as wrong).

    Attributes
    ----------
    queries:
        Distinct query ids.
    lists:
        Ranked lists (queries with at least one row) per model, in model order.
    median_length:
        The median number of rows of a list, over every model's lists.
    """

    queries: int
    lists: dict[str, int]
    median_length: float

    @property
    def length(self) -> int | float:
        """The median length as shown (whole when it is)."""
        value = self.median_length
        return int(value) if float(value).is_integer() else round(value, 1)

    @property
    def same_lists(self) -> int | None:
        """The number of lists when every model has as many, else ``None``."""
        counts = set(self.lists.values())
        return counts.pop() if len(counts) == 1 else None

    @property
    def text(self) -> str:
        """In plain English (the command lines' note)."""
        queries = f"{self.queries:,} quer{'y' if self.queries == 1 else 'ies'}"
        same = self.same_lists
        if same is not None:
            per_model = f"{same:,} list{'' if same == 1 else 's'} per model"
        else:
            per_model = "lists per model: " + ", ".join(f"{m} {n:,}" for m, n in self.lists.items())
        return f"{queries}, {per_model}, median list length {self.length}"


def list_summary(run: pd.DataFrame) -> ListSummary:
    """The :class:`ListSummary` of a canonical run (``query``, ``model`` columns)."""
    query, queries = pd.factorize(run[QUERY])
    model, models = pd.factorize(run[MODEL])
    if not len(run):
        return ListSummary(0, {}, 0.0)
    pairs = model.astype(np.int64) * np.int64(len(queries)) + query
    codes, uniques = pd.factorize(pairs)
    sizes = np.bincount(codes, minlength=len(uniques))
    per_model = np.bincount(uniques // max(len(queries), 1), minlength=len(models))
    return ListSummary(
        len(queries),
        {str(m): int(n) for m, n in zip(models, per_model)},
        float(np.median(sizes)),
    )


__all__ = [
    "Dataset",
    "ListSummary",
    "list_summary",
]
