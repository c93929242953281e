"""The values of one evaluation as the command line writes them: per model its queries (ranked
lists, or only their ids), per-query values and means; and the per-query values of ranked lists
as one matrix (:func:`compute_matrix`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from metrics.engine.ranking import RankedLists
from metrics.engine.registry import MeasureSpec
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


def compute_matrix(
    lists: RankedLists, specs: list[MeasureSpec], out: np.ndarray | None = None
) -> np.ndarray:
    """Per-query values of every spec, shape ``(n_queries, len(specs))``, column by column in
    memory (Fortran order: each measure's values together, as the means read them), written
    into ``out`` when given (rows of a larger table, say).

    Specs that share a measure and parameters are computed in one kernel call over all their
    cutoffs, so a full curve costs one pass.
    """
    if out is None:
        out = np.empty((lists.n_queries, len(specs)), order="F")
    groups: dict[tuple[object, ...], list[int]] = {}
    for j, spec in enumerate(specs):
        key = (spec.definition.name, spec.params) if spec.k is not None else ("", j)
        groups.setdefault(key, []).append(j)
    for columns in groups.values():
        first = specs[columns[0]]
        if first.k is None:
            out[:, columns[0]] = first.compute(lists)
            continue
        ks = np.array([specs[j].k for j in columns], dtype=np.int64)
        values = first.definition.kernel(lists, ks, **first.kernel_args())
        if columns == list(range(columns[0], columns[0] + len(columns))):
            out[:, columns[0] : columns[0] + len(columns)] = values
        else:
            out[:, columns] = values
    return out
