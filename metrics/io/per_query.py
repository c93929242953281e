"""Per-query results as a data source: ``model, query, [segments], one column per measure``.

Such a table is what ``python -m metrics --per-query-out`` writes (computed locally or by Spark),
or what any other tool produces. It has no ranked lists, so it can be averaged, compared and
segmented, but not drilled into item by item.

Columns are recognised by name (the synonyms of :mod:`metrics.io.names`): ``query`` (or another
name of the query id: ``qid``, ``user_id``, ...), ``model`` (optional: one model ``run`` when
absent; or ``system``, ``run_id``, ...), every column whose name
is a measure (``P@10``, ``nDCG@10``, ``ndcg_cut_10``, ``map``), and the other columns as query
segments. Columns starting with ``__`` (pooled counts for micro averaging) are kept aside.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.evaluation import Evaluation
from metrics.engine.registry import MeasureSpec, parse_measure
from metrics.engine.settings import Settings
from metrics.errors import InputError, MeasureError
from metrics.io.findings import DataHealth
from metrics.io.formats import LoadedTable, file_stem, load_table
from metrics.io.names import ITEM_NAMES, MODEL_NAMES, QUERY_NAMES
from metrics.schema import normalize_name

if TYPE_CHECKING:
    from metrics.engine.results import Results


def _measure_of(column: str) -> MeasureSpec | None:
    if column.startswith("__"):
        return None
    try:
        return parse_measure(column)
    except (MeasureError, ValueError):
        return None


def measure_columns(frame: pd.DataFrame) -> dict[str, MeasureSpec]:
    """Columns whose names are measures, with what they measure."""
    out = {}
    for column in frame.columns:
        spec = _measure_of(str(column))
        if spec is not None:
            out[str(column)] = spec
    return out


def looks_like_per_query(frame: pd.DataFrame) -> bool:
    """True for a table of per-query values: a query column, at least one measure column, and no
    item column (a run has items)."""
    names = {normalize_name(c) for c in frame.columns}
    has_query = any(n in names for n in QUERY_NAMES)
    has_item = any(n in names for n in ITEM_NAMES)
    return has_query and not has_item and bool(measure_columns(frame))


@dataclass
class PerQueryDataset:
    """Per-query values of one or more models, loaded as a data set of the review pages.

    Attributes
    ----------
    name:
        Shown name (the file name).
    per_query:
        ``model``, ``query``, then one column per measure (canonical names such as ``P@10``).
    segments:
        ``query`` plus query-level segment columns, or ``None``.
    measures:
        The measures present, in column order.
    content_hash:
        Hash of the table (cache key of the app).
    """

    name: str
    per_query: pd.DataFrame
    segments: pd.DataFrame | None
    measures: list[MeasureSpec]
    description: str = ""
    content_hash: str = field(init=False)

    #: There are no ranked lists: pages that need them say so.
    has_lists = False
    health: DataHealth = field(default_factory=DataHealth)

    def __post_init__(self) -> None:
        digest = hashlib.sha256()
        digest.update(pd.util.hash_pandas_object(self.per_query, index=False).to_numpy().tobytes())
        digest.update("|".join(map(str, self.per_query.columns)).encode())
        if self.segments is not None:
            digest.update(pd.util.hash_pandas_object(self.segments, index=False).to_numpy())
        self.content_hash = "perquery-" + digest.hexdigest()[:32]

    @property
    def models(self) -> list[str]:
        """Models in order of first appearance."""
        return [str(m) for m in pd.unique(self.per_query[S.MODEL])]

    @property
    def measure_names(self) -> list[str]:
        return [m.name for m in self.measures]

    @property
    def segment_columns(self) -> list[str]:
        """Query-level segment columns."""
        return [] if self.segments is None else [c for c in self.segments if c != S.QUERY]

    @property
    def run(self) -> pd.DataFrame:
        """The per-query rows (what the app counts as the rows of the data set)."""
        return self.per_query

    @property
    def families(self) -> list[str]:
        """Measure families present (``P``, ``nDCG``, ...), in column order."""
        return list(dict.fromkeys(m.definition.name for m in self.measures))

    def cutoffs(self, family: str) -> list[int]:
        """The cutoffs K at which measure ``family`` (``P``, ``nDCG``, ...) was computed."""
        return sorted(
            {m.k for m in self.measures if m.definition.name == family and m.k is not None}
        )

    def available(self, name: str) -> bool:
        """Whether a measure (``P@10``) is a column of the table."""
        return _canonical(name) in self.measure_names

    def evaluation(
        self, measures: list[str] | tuple[str, ...], settings: Settings | None = None
    ) -> Evaluation:
        """An :class:`Evaluation` of the named measures that are in the table (without lists).

        Raises
        ------
        InputError
            When none of the named measures is in the table.
        """
        names = [n for n in (_canonical(m) for m in measures) if n in self.measure_names]
        if not names:
            raise InputError(
                f"none of {', '.join(measures)} is a column of the per-query table.",
                source=self.name,
                fix=f"choose among: {', '.join(self.measure_names)}.",
            )
        specs = [m for m in self.measures if m.name in names]
        table = self.per_query[[S.MODEL, S.QUERY, *[s.name for s in specs]]].reset_index(drop=True)
        return Evaluation(table, specs, {}, settings or Settings(), self.models)


def _canonical(name: str) -> str:
    spec = _measure_of(name)
    return spec.name if spec is not None else name


def _pick(frame: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    """The first column (in the order of ``names``) whose normalised name is one of ``names``."""
    lowered: dict[str, str] = {}
    for column in frame.columns:
        lowered.setdefault(normalize_name(column), str(column))
    return next((lowered[n] for n in names if n in lowered), None)


def per_query_dataset(
    table: LoadedTable | pd.DataFrame | str | Path, name: str | None = None
) -> PerQueryDataset:
    """Read a per-query results table as a :class:`PerQueryDataset`.

    Raises
    ------
    InputError
        Without a query column or measure columns, with non-numeric measure values, or when a
        (model, query) pair is repeated.
    """
    if isinstance(table, (str, Path)):
        table = load_table(table, Path(table).name)
    if isinstance(table, LoadedTable):
        name = name or table.name
        frame = table.frame
    else:
        frame = table
    name = name or "per-query results"
    query = _pick(frame, QUERY_NAMES)
    if query is None:
        raise InputError(
            "there is no query column.", source=name, fix="name the query id column 'query'."
        )
    found = measure_columns(frame)
    if not found:
        raise InputError(
            "no column is named after a measure (like P@10, nDCG@10, RR or map).",
            source=name,
            fix="name each value column after its measure.",
        )
    model = _pick(frame, MODEL_NAMES)
    out = pd.DataFrame(
        {
            S.MODEL: frame[model].astype(str).to_numpy(dtype=object)
            if model
            else np.full(len(frame), S.DEFAULT_MODEL, dtype=object),
            S.QUERY: frame[query].astype(str).to_numpy(dtype=object),
        }
    )
    specs: list[MeasureSpec] = []
    for column, spec in found.items():
        if spec.name in out.columns:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna() & frame[column].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(
                f"the column '{column}' has a value that is not a number "
                f"({frame[column].iloc[row]!r}).",
                source=name,
                line=row + 2,
                column=column,
                fix="leave only numbers (or empty cells) in measure columns.",
            )
        out[spec.name] = values.to_numpy(dtype=np.float64)
        specs.append(spec)
    repeated = out.duplicated([S.MODEL, S.QUERY])
    if repeated.any():
        row = int(np.flatnonzero(repeated.to_numpy())[0])
        raise InputError(
            f"model {out[S.MODEL].iloc[row]!r} has query {out[S.QUERY].iloc[row]!r} twice.",
            source=name,
            line=row + 2,
            fix="keep one row per model and query.",
        )
    used = {query, model, *found}
    segment_cols = [str(c) for c in frame.columns if c not in used and not str(c).startswith("__")]
    segments = None
    if segment_cols:
        seg = frame[[query, *segment_cols]].copy()
        seg.columns = [S.QUERY, *segment_cols]
        seg[S.QUERY] = seg[S.QUERY].astype(str)
        segments = seg.drop_duplicates(S.QUERY).reset_index(drop=True)
    return PerQueryDataset(
        name=file_stem(name) if name else "per-query results",
        per_query=out,
        segments=segments,
        measures=specs,
        description=f"Per-query results: {out[S.MODEL].nunique()} model(s), "
        f"{out[S.QUERY].nunique()} queries, {len(specs)} measure column(s).",
    )


def results_table(results: Results) -> pd.DataFrame:
    """The per-query table of a command-line run (:class:`metrics.engine.results.Results`)."""
    frames = []
    for model, (lists, values, _) in results.models.items():
        data = {
            S.MODEL: np.full(lists.n_queries, model, dtype=object),
            S.QUERY: np.asarray(lists.query_ids, dtype=object),
        }
        for j, name in enumerate(results.names):
            data[name] = values[:, j]
        frames.append(pd.DataFrame(data))
    if not frames:
        return pd.DataFrame(columns=[S.MODEL, S.QUERY, *results.names])
    return pd.concat(frames, ignore_index=True)
