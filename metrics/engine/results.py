"""The values of one evaluation as the command line writes them: per model its queries (ranked
lists, or only their ids), per-query values and means."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from metrics.engine.settings import Settings


class QueryLists(Protocol):
    """What the writers read of a model's lists: :class:`RankedLists`, or only its query ids
    (the Spark engine)."""

    @property
    def query_ids(self) -> np.ndarray: ...

    @property
    def n_queries(self) -> int: ...


@dataclass
class QueryIds:
    """What the output writers read of a model's ranked lists: its query ids, in order."""

    query_ids: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)


@dataclass
class Results:
    """Values of one run of the command: per model, the lists, per-query values and means."""

    names: list[str]
    settings: Settings
    models: dict[str, tuple[QueryLists, np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: Per measure, whether it is a count printed without decimals (trec_eval's num_ret, ...).
    counts: list[bool] = field(default_factory=list)
