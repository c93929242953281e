"""What a table's values say about its column roles, weighed together with the column names.

Every column is scored for every role from its name (:func:`metrics.io.names.name_tier`) and
from facts read off the values: for the query id, how many values it has, how many rows each
holds against the models, whether (query, item, model) is unique, whether other columns are
constant within its groups or split them further; for the item, whether it is unique within
each list; for the score and the rank, numbers and their order within a list; for the model,
a few values that split every query alike. A :class:`Candidate` holds the points of each fact,
so that the choice can be explained and a close second candidate shown.

The query and the model are chosen together: each pair (query, model or none) is scored, and the
best pair wins. Large tables are scored on a sample of whole groups (see :data:`SAMPLE_ROWS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from metrics.engine import arrow_calls
from metrics.engine.ids import arrow_numbers, numpy_of
from metrics.engine.lazy import LazyModule
from metrics.io.labels import MAX_TEXT_LABELS, looks_like_text_labels
from metrics.io.names import ROLE_NAMES, Tier, describes_a_segment, name_tier
from metrics.schema import ITEM, LABEL, MODEL, QUERY, RANK, SCORE

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: the command line reads tables in blocks without it
    pd = LazyModule("pandas")

#: Points of a column's name for a role, by :func:`~metrics.io.names.name_tier`.
NAME_POINTS: dict[str, float] = {"canonical": 5.0, "exact": 3.0, "word": 1.5, "": 0.0}
#: Points taken off when the name holds a word of a per-query attribute (``user_segment``).
SEGMENT_NAME_POINTS = -1.5
#: Points taken off when the name holds a word of another role (and none of this one).
OTHER_ROLE_POINTS = -0.75
#: Most values a model column (guessed from its values) or a proposed segment column has.
FEW_VALUES = 50
#: Repeated rows (as a share of all rows) up to which a key still counts as unique.
UNIQUE_SHARE = 0.01
#: Rows from which the values are read from a sample of whole groups.
SAMPLE_ROWS = 60_000
#: Rows from which the values carry weight: facts of smaller tables choose, but do not lower
#: the confidence of a guess.
MANY_ROWS = 10


@dataclass(frozen=True)
class Fact:
    """One thing the values say about a column in a role.

    Attributes
    ----------
    code:
        A stable code (``items_unique``, ``coarser``, ``rank_like``, ...).
    points:
        What it adds to the column's score for the role (negative: evidence against).
    params:
        The numbers and columns a sentence about it names.
    """

    code: str
    points: float
    params: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Candidate:
    """A column scored for a role: its name's points plus the points of the facts."""

    role: str
    column: str
    tier: Tier
    name_points: float
    facts: tuple[Fact, ...] = ()
    #: The model a query candidate was scored with, that model's own points (at most 0 for a
    #: model guessed from its values: a model explains repeated items, it earns no points of its
    #: own), and the item unique within the lists they make (``None``: none is).
    model: str | None = None
    model_points: float = 0.0
    item: str | None = None

    @property
    def value_points(self) -> float:
        return float(sum(f.points for f in self.facts))

    @property
    def score(self) -> float:
        return self.name_points + self.value_points

    @property
    def total(self) -> float:
        """The score with the model's points (what query candidates are ranked by)."""
        return self.score + self.model_points

    def fact(self, code: str) -> Fact | None:
        return next((f for f in self.facts if f.code == code), None)


# --------------------------------------------------------------------------- the table's columns


@dataclass
class Column:
    """One column's values as integer codes (missing values are code 0) and, for numbers, as
    floats."""

    name: str
    codes: np.ndarray
    distinct: int
    numbers: np.ndarray | None
    flags: bool = False
    #: Text values that all belong to a known label scale (``clicked`` / ``not clicked``).
    text_labels: bool = False

    @property
    def numeric(self) -> bool:
        return self.numbers is not None

    @cached_property
    def integral(self) -> bool:
        if self.numbers is None:
            return False
        finite = self.numbers[np.isfinite(self.numbers)]
        return bool(len(finite)) and bool(np.all(finite == np.round(finite)))

    @property
    def fractional(self) -> bool:
        return self.numeric and not self.integral

    @cached_property
    def small_whole(self) -> bool:
        """A few (at most 10) whole numbers: what labels look like."""
        return self.integral and self.distinct <= 10


def _column(name: str, values: pd.Series) -> Column:
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    numbers = None
    flags = pd.api.types.is_bool_dtype(values)
    if pd.api.types.is_numeric_dtype(values) and not flags:
        numbers = values.to_numpy(dtype="float64", na_value=np.nan)
    text_labels = False
    if numbers is None and not flags and 2 <= len(uniques) <= MAX_TEXT_LABELS:
        text_labels = looks_like_text_labels(str(u) for u in uniques)
    return Column(name, codes.astype(np.int64) + 1, len(uniques), numbers, flags, text_labels)


def _arrow_column(name: str, values: pa.ChunkedArray) -> Column:
    """:func:`_column` of the pandas column pyarrow converts ``values`` to, read from arrow
    without pandas: integers with missing values and floats as numbers (``NaN`` and ``-0.0``
    as pandas counts them: missing, and ``0``), true/false values as flags when none is
    missing (else as values, the way pandas holds them), the rest as values."""
    t = values.type
    if pa.types.is_null(t):
        return Column(name, np.zeros(len(values), dtype=np.int64), 0, None)
    numeric = pa.types.is_integer(t) or pa.types.is_floating(t)
    flags = pa.types.is_boolean(t) and values.null_count == 0
    numbers = None
    if numeric:
        numbers = numpy_of(values).astype(np.float64)
        if not (pa.types.is_integer(t) and values.null_count == 0):
            present = ~np.isnan(numbers)
            zeroed = numbers + 0.0  # -0.0 is 0.0
            values = pa.chunked_array(
                [
                    pa.Array.from_buffers(
                        pa.float64(),
                        len(zeroed),
                        [
                            pa.py_buffer(np.packbits(present, bitorder="little")),
                            pa.py_buffer(zeroed),
                        ],
                    )
                ]
            )
    codes, uniques = _first_seen(values)
    text_labels = False
    if numbers is None and not flags and 2 <= len(uniques) <= MAX_TEXT_LABELS:
        text_labels = looks_like_text_labels(str(u) for u in uniques.to_pylist())
    return Column(name, codes + 1, len(uniques), numbers, flags, text_labels)


def _first_seen(values: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes ``0..k-1`` of ``values`` in the order they first appear (missing: ``-1``), and the
    ``k`` values: what ``pandas.factorize`` gives."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = arrow_calls.dictionary_encode(values)
    indices = encoded.indices
    codes = numpy_of(indices)
    codes = np.where(np.isnan(codes), -1, codes) if indices.null_count else codes
    return codes.astype(np.int64), encoded.dictionary


def _factorized(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer ``codes`` numbered again ``0..k-1`` in the order they first appear, and ``k``."""
    found, uniques = _first_seen(arrow_numbers(codes.astype(np.int64, copy=False)))
    return found, len(uniques)


class Table:
    """The columns of a table as codes, with distinct counts of column combinations cached."""

    def __init__(self, columns: dict[str, Column], rows: int) -> None:
        self.columns = columns
        self.rows = rows
        self._distinct: dict[tuple[str, ...], int] = {}
        self._groups: dict[tuple[str, ...], tuple[np.ndarray, int]] = {}

    @classmethod
    def of(cls, df: pd.DataFrame) -> Table:
        columns = {str(c): _column(str(c), df[c]) for c in df.columns}
        return cls(columns, len(df))

    @classmethod
    def of_arrow(cls, table: pa.Table) -> Table:
        """The table of the pandas frame pyarrow converts ``table`` to (``to_pandas``), read
        without pandas: the same codes, counts and numbers (:func:`_arrow_column`)."""
        columns = {
            str(c): _arrow_column(str(c), v) for c, v in zip(table.column_names, table.columns)
        }
        return cls(columns, table.num_rows)

    @property
    def names(self) -> list[str]:
        return list(self.columns)

    def subset(self, rows: np.ndarray) -> Table:
        """The table restricted to some rows (codes numbered again)."""
        columns = {}
        for name, col in self.columns.items():
            codes, found = _factorized(col.codes[rows])
            numbers = None if col.numbers is None else col.numbers[rows]
            distinct = found - int(bool(np.any(col.codes[rows] == 0)))
            columns[name] = Column(name, codes, distinct, numbers, col.flags, col.text_labels)
        return Table(columns, len(rows))

    def groups(self, *names: str | None) -> tuple[np.ndarray, int]:
        """Codes ``0..k-1`` of the combinations of ``names`` (``None`` entries are ignored), and
        ``k``."""
        key = tuple(sorted(n for n in names if n is not None))
        if key in self._groups:
            return self._groups[key]
        if not key:
            found = (np.zeros(self.rows, dtype=np.int64), 1 if self.rows else 0)
        elif len(key) == 1:
            found = _factorized(self.columns[key[0]].codes)
        else:
            head, _ = self.groups(*key[:-1])
            tail = self.columns[key[-1]].codes
            found = _factorized(head * np.int64(int(tail.max(initial=0)) + 1) + tail)
        if len(key) <= 2:
            self._groups[key] = found
        return found

    def distinct(self, *names: str | None) -> int:
        """How many distinct combinations of the columns ``names`` the rows hold."""
        key = tuple(sorted(n for n in names if n is not None))
        if key not in self._distinct:
            self._distinct[key] = self.groups(*key)[1]
        return self._distinct[key]

    def sizes(self, *names: str | None) -> np.ndarray:
        codes, k = self.groups(*names)
        return np.bincount(codes, minlength=k)

    def repeated_share(self, *names: str | None) -> float:
        """The share of rows that repeat a combination of ``names`` seen on another row."""
        return 1.0 - self.distinct(*names) / self.rows if self.rows else 0.0

    def constant_within(self, column: str, groups: str, model: str | None = None) -> bool:
        """Whether ``column`` holds one value within each group of ``groups``."""
        return self.distinct(groups, column, model) == self.distinct(groups, model)

    def median_size(self, *names: str | None) -> float:
        sizes = self.sizes(*names)
        return float(np.median(sizes)) if len(sizes) else 0.0

    def contiguous(self, *names: str | None) -> bool:
        """Whether the rows of each group come one after another."""
        codes, k = self.groups(*names)
        runs = 1 + int(np.count_nonzero(codes[1:] != codes[:-1])) if len(codes) else 0
        return k > 1 and runs <= k

    def rank_like(self, column: str, *lists: str | None, first: tuple[int, ...] = (1,)) -> bool:
        """Whether the whole numbers of ``column`` run 1, 2, ..., n within each list (or from
        another of the ``first`` numbers, such as 0)."""
        col = self.columns[column]
        if not col.integral or col.numbers is None or not np.all(np.isfinite(col.numbers)):
            return False
        codes, k = self.groups(*lists)
        sizes = np.bincount(codes, minlength=k)
        if k == 0 or sizes.max(initial=0) < 2 or self.distinct(*lists, column) != self.rows:
            return False
        values = col.numbers
        low = np.full(k, np.inf)
        high = np.full(k, -np.inf)
        np.minimum.at(low, codes, values)
        np.maximum.at(high, codes, values)
        return any(bool(np.all(low == f) and np.all(high == sizes - 1 + f)) for f in first)

    def share_with_all(self, model: str, query: str) -> float:
        """The share of the values of ``query`` under which every value of ``model`` appears."""
        pairs, _ = self.groups(query, model)
        q_codes, n_queries = self.groups(query)
        first = np.zeros(self.distinct(query, model), dtype=np.int64)
        first[pairs] = q_codes
        per_query = np.bincount(first, minlength=n_queries)
        models = max(self.columns[model].distinct, 1)
        return float(np.mean(per_query >= models)) if n_queries else 0.0

    def sample(self) -> Table:
        """A sample of whole lists when the table is large, the table itself otherwise: the rows
        of a spread subset of the values of the column whose values repeat the most evenly."""
        if self.rows <= SAMPLE_ROWS:
            return self
        names = [n for n, c in self.columns.items() if 1 < c.distinct < self.rows]
        if not names:
            return self.subset(np.arange(SAMPLE_ROWS))
        chosen = min(names, key=lambda n: abs(self.columns[n].distinct - self.rows / 30))
        codes = self.columns[chosen].codes
        keep = max(1, int(self.columns[chosen].distinct * SAMPLE_ROWS / self.rows))
        picked = (codes * np.int64(2654435761)) % np.int64(self.columns[chosen].distinct + 1)
        rows = np.flatnonzero(picked < keep)[: SAMPLE_ROWS * 2]
        return self.subset(rows) if len(rows) >= MANY_ROWS else self


# --------------------------------------------------------------------------- names


@lru_cache(maxsize=4096)
def name_points(column: str, role: str) -> tuple[Tier, float] | None:
    """The name's tier and points for ``role``; ``None`` when the name is a usual name of
    another role (a column named ``score`` or ``pred`` is never the query)."""
    tier = name_tier(column, role)
    points = NAME_POINTS[tier]
    if tier in ("", "word"):
        for other in ROLE_NAMES:
            if other == role:
                continue
            other_tier = name_tier(column, other)
            if other_tier in ("canonical", "exact"):
                return None
            if tier == "" and other_tier == "word":
                points += OTHER_ROLE_POINTS
    if role in (QUERY, ITEM, MODEL) and tier != "canonical" and describes_a_segment(column):
        points += SEGMENT_NAME_POINTS
    return tier, points


# --------------------------------------------------------------------------- the query and model


@dataclass(frozen=True)
class Lists:
    """What the rows are grouped by: the query column and the model column (or none)."""

    query: str
    model: str | None
    item: str | None


class Scorer:
    """Scores the columns of one table for every role."""

    def __init__(self, df: pd.DataFrame | Table) -> None:
        self.full = df if isinstance(df, Table) else Table.of(df)
        self.table = self.full.sample()
        self.names = list(self.full.columns)

    # ---------------------------------------------------------------- candidates per role
    def named(self, role: str) -> list[str]:
        """Columns whose name is a usual name of ``role`` (canonical or synonym), best first."""
        tiers = {c: name_tier(c, role) for c in self.names}
        return [c for t in ("canonical", "exact") for c in self.names if tiers[c] == t]

    def query_columns(self) -> list[str]:
        t = self.table
        out = []
        for name in self.names:
            col = t.columns[name]
            if col.fractional or col.flags or col.distinct == 0:
                continue
            if name_points(name, QUERY) is None:
                continue
            out.append(name)
        return out

    def model_columns(self, exclude: Sequence[str] = ()) -> list[str]:
        t = self.table
        out = []
        for name in self.names:
            col = t.columns[name]
            if name in exclude or col.fractional or col.flags:
                continue
            points = name_points(name, MODEL)
            if points is None:
                continue
            if points[0] in ("canonical", "exact") or 2 <= self.full.columns[name].distinct <= (
                FEW_VALUES
            ):
                out.append(name)
        return out

    # ---------------------------------------------------------------- the item within lists
    def item_candidates(
        self, query: str, model: str | None, among: Sequence[str] | None = None
    ) -> list[Candidate]:
        """Item columns of lists grouped by ``query`` and ``model`` (of ``among`` only, when
        given), best first."""
        out = []
        for name in self.names if among is None else among:
            if name in (query, model):
                continue
            col = self.table.columns[name]
            points = name_points(name, ITEM)
            if points is None or col.fractional or col.flags:
                continue
            out.append(
                Candidate(ITEM, name, points[0], points[1], self._item_facts(name, query, model))
            )
        return sorted(out, key=lambda c: -c.score)

    def _item_facts(self, name: str, query: str, model: str | None) -> tuple[Fact, ...]:
        t = self.table
        col = t.columns[name]
        repeated = t.repeated_share(query, model, name)
        facts = [_uniqueness(repeated, "unique_in_list", "repeats_in_list", 2.0)]
        if col.distinct >= 2 and t.median_size(query, model) >= 2:
            if t.constant_within(name, query):
                facts.append(Fact("constant_in_query", -2.0))
            elif t.rank_like(name, query, model, first=(0, 1)):
                facts.append(Fact("rank_like", -3.0))
        if col.small_whole:
            facts.append(Fact("few_whole_numbers", -1.0))
        if not col.numeric:
            facts.append(Fact("text", 0.5))
        return tuple(facts)

    def best_item(self, query: str, model: str | None) -> str | None:
        """The item column of lists grouped by ``query`` and ``model``: the usual item name, or
        the best column unique within each list."""
        for name in self.named(ITEM):
            if name not in (query, model):
                return name
        t = self.table
        unique = [
            n
            for n in self.names
            if n not in (query, model)
            and not t.columns[n].fractional
            and not t.columns[n].flags
            and t.repeated_share(query, model, n) <= UNIQUE_SHARE
        ]
        if not unique:
            return None
        for cand in self.item_candidates(query, model, unique):
            if cand.score > 0:
                return cand.column
        return None

    # ---------------------------------------------------------------- query facts
    def query_facts(self, lists: Lists, others: Sequence[str]) -> tuple[Fact, ...]:
        t = self.table
        query, model, item = lists.query, lists.model, lists.item
        distinct = t.columns[query].distinct
        facts: list[Fact] = []
        if distinct == 1 and t.rows >= MANY_ROWS:
            facts.append(Fact("one_value", -1.0))
        if distinct == t.rows and t.rows >= 2:
            facts.append(Fact("row_per_value", -2.0))
        elif t.median_size(query, model) == 1 and t.rows >= MANY_ROWS:
            facts.append(Fact("one_row_lists", -1.5))
        if item is not None:
            repeated = t.repeated_share(query, model, item)
            facts.append(_uniqueness(repeated, "items_unique", "items_repeat", 1.0))
        facts += self._nesting_facts(lists, others)
        if t.contiguous(query, model):
            facts.append(Fact("contiguous", 0.5))
        ranks = [
            c
            for c in self.names
            if c not in (query, model, item) and t.rank_like(c, query, model, first=(0, 1))
        ]
        if ranks:
            facts.append(Fact("ranked", 1.0, {"rank": ranks[0]}))
        return tuple(facts)

    def _nesting_facts(self, lists: Lists, others: Sequence[str]) -> list[Fact]:
        """Columns that split the query's lists into finer lists (the query is then a
        per-query attribute), and columns constant within it (its attributes)."""
        t = self.table
        query, model = lists.query, lists.model
        distinct = t.columns[query].distinct
        facts = []
        finer = [f for f in others if self._splits_lists(f, lists)]
        if finer:
            facts.append(Fact("coarser", -3.0, {"finer": finer[0]}))
        held = [
            c
            for c in self.names
            if c not in (query, model, lists.item)
            and not t.columns[c].fractional
            and 2 <= t.columns[c].distinct < distinct
            and t.constant_within(c, query)
        ]
        if held:
            facts.append(Fact("holds_segments", 0.5, {"segment": held[0]}))
        return facts

    def _splits_lists(self, finer: str, lists: Lists) -> bool:
        """Whether ``finer`` is a better query than ``lists.query``: its values nest within the
        query's (the query is constant within them), there are more of them, they span the
        models (they do not just number the lists), and they form lists of their own (repeated
        values, items unique within)."""
        t = self.table
        query, model, item = lists.query, lists.model, lists.item
        if finer in (query, model, item) or t.columns[finer].fractional:
            return False
        if t.columns[finer].distinct <= t.columns[query].distinct:
            return False
        numbers_lists = t.columns[finer].distinct == t.distinct(query, model)
        if model is not None and numbers_lists and t.constant_within(model, finer):
            return False  # one value per (query, model) list: an id of the lists
        if not t.constant_within(query, finer):
            return False
        if t.median_size(finer, model) < 2:
            return False
        return item is None or t.repeated_share(finer, model, item) <= UNIQUE_SHARE

    def model_facts(self, model: str, query: str, item: str | None) -> tuple[Fact, ...]:
        """What the values say of ``model`` as the model of lists grouped by ``query``: a few
        values that split every query alike, one list per value where items repeat."""
        ruled_out = self._not_a_model(model, query)
        if ruled_out is not None:
            return (ruled_out,)
        t = self.table
        if t.columns[model].distinct <= 1:
            return ()
        facts = []
        if item is not None and t.repeated_share(query, item) > UNIQUE_SHARE:
            if t.repeated_share(query, item, model) <= UNIQUE_SHARE:
                facts.append(Fact("one_list_per_value", 1.5))
        elif item is not None:
            facts.append(Fact("no_repeats", -1.0))
        share = t.share_with_all(model, query)
        if share >= 0.8:
            facts.append(Fact("splits_alike", 1.0, {"share": share}))
        elif share < 0.5:
            facts.append(Fact("splits_unevenly", -1.0, {"share": share}))
        if t.contiguous(query, model) and not t.contiguous(query):
            facts.append(Fact("contiguous_lists", 0.5))
        return tuple(facts)

    def _not_a_model(self, model: str, query: str) -> Fact | None:
        """Why ``model`` cannot be the model of lists grouped by ``query``, if it cannot: too
        many values, one value per query, lists of one row, more values than the query (the
        two swapped), a finer id nested in the query, or an attribute of another column."""
        t = self.table
        col = t.columns[model]
        if self.full.columns[model].distinct > FEW_VALUES:
            return Fact("many_values", -2.0, {"distinct": self.full.columns[model].distinct})
        if col.distinct <= 1:
            return None
        if t.constant_within(model, query):
            return Fact("constant_in_query", -3.0)
        if t.median_size(query, model) < 2:
            return Fact("one_row_lists", -3.0)
        queries = t.columns[query].distinct
        if queries >= 2 and col.distinct > queries:
            if t.constant_within(query, model):
                return Fact("nested", -4.0)  # each value within one query: a finer id
            return Fact("more_values_than_query", -2.0)
        owner = self._owner(model, query)
        return None if owner is None else Fact("attribute_of", -3.0, {"of": owner})

    def _owner(self, model: str, query: str) -> str | None:
        """A column of which ``model`` is an attribute: its values repeat across queries, and
        ``model`` holds one value within each (as a brand within each product)."""
        t = self.table
        for name in self.names:
            col = t.columns[name]
            if name in (model, query) or col.fractional or col.distinct <= 1:
                continue
            if t.median_size(name) < 2 or t.constant_within(query, name):
                continue
            if t.constant_within(model, name):
                return name
        return None

    def query_candidates(self) -> list[Candidate]:
        """Every query column, scored with its best model (or none), best first."""
        columns = self.query_columns()
        models = self.model_columns()
        out = []
        for query in columns:
            pairs = [self._query_with(query, m, columns) for m in [None, *models] if m != query]
            found = [c for c in pairs if c is not None]
            with_item = [c for c in found if c.item is not None]
            if found:  # lists with a unique item first: a model is what makes items unique
                out.append(max(with_item or found, key=lambda c: c.total))
        position = {name: i for i, name in enumerate(self.names)}
        return sorted(out, key=lambda c: (c.item is None, -c.total, position[c.column]))

    def _query_with(self, query: str, model: str | None, columns: list[str]) -> Candidate | None:
        points = name_points(query, QUERY)
        if points is None:
            return None
        item = self.best_item(query, model)
        if item == query:
            return None
        model_points = 0.0
        if model is not None:
            found = self._model_points(model, query, item)
            if found is None:
                return None
            model_points = found
        lists = Lists(query, model, item)
        facts = self.query_facts(lists, [c for c in columns if c != query])
        return Candidate(QUERY, query, points[0], points[1], facts, model, model_points, item)

    def _model_points(self, model: str, query: str, item: str | None) -> float | None:
        """The points ``model`` adds to lists grouped by ``query``; ``None`` for a model guessed
        from its values that the values do not bear out (every query split alike, items
        repeated across the lists), and at most 0 for one they do: a model explains repeated
        items, it earns no points of its own (-3 when another column numbers the same lists)."""
        mp = name_points(model, MODEL)
        if mp is None:
            return None
        if mp[0] == "" and not self._may_be_a_model(model, query, item):
            return None
        model_facts = self.model_facts(model, query, item)
        found = mp[1] + sum(f.points for f in model_facts)
        if mp[0] != "":
            return found
        codes = {f.code for f in model_facts}
        if found <= 0 or not {"one_list_per_value", "splits_alike"} <= codes:
            return None
        return -3.0 if self._lists_have_an_id(query, model) else 0.0

    def _may_be_a_model(self, model: str, query: str, item: str | None) -> bool:
        """The quick checks a model guessed from values must pass before the others: items
        repeat under the query and are unique once split by the model."""
        t = self.table
        if item is None or t.repeated_share(query, item) <= UNIQUE_SHARE:
            return False
        return t.repeated_share(query, item, model) <= UNIQUE_SHARE

    def _lists_have_an_id(self, query: str, model: str) -> bool:
        """Whether another column numbers the lists of ``query`` and ``model`` one by one: the
        lists are then that column's alone, without a model (guessed from values) to make them."""
        t = self.table
        lists = t.distinct(query, model)
        return any(
            c not in (query, model)
            and t.columns[c].distinct == lists
            and t.distinct(c, query, model) == lists
            for c in self.names
        )

    # ---------------------------------------------------------------- numbers within lists
    def number_candidates(self, role: str, lists: Lists, taken: set[str]) -> list[Candidate]:
        out = []
        for name in self.names:
            if name in taken:
                continue
            points = name_points(name, role)
            if points is None:
                continue
            facts = self._number_facts(role, name, lists)
            if facts is None:
                continue
            out.append(Candidate(role, name, points[0], points[1], facts))
        return sorted(out, key=lambda c: -c.score)

    def ranks_follow_scores(self, rank: str, score: str, lists: Lists) -> bool:
        """Whether, within each list, the score falls as the rank rises (ties allowed)."""
        t = self.table
        codes, _ = t.groups(lists.query, lists.model)
        ranks, scores = t.columns[rank].numbers, t.columns[score].numbers
        if ranks is None or scores is None:
            return False
        order = np.lexsort((ranks, codes))
        same = codes[order][1:] == codes[order][:-1]
        steps = np.diff(scores[order])[same]
        return bool(len(steps)) and float(np.mean(steps <= 0)) >= 0.9

    def _number_facts(self, role: str, name: str, lists: Lists) -> tuple[Fact, ...] | None:
        col = self.table.columns[name]
        if role == LABEL and col.flags:
            return (Fact("flags", 1.0),)
        if role == LABEL and col.text_labels and not self.table.constant_within(name, lists.query):
            return (Fact("text_labels", 1.5),)
        if not col.numeric:
            return () if name_tier(name, role) else None
        t = self.table
        ranks = t.rank_like(name, lists.query, lists.model)
        constant = col.distinct >= 2 and t.constant_within(name, lists.query)
        if role == RANK:
            return (Fact("rank_like", 2.0),) if ranks else (Fact("not_rank_like", -2.0),)
        facts = [Fact("rank_like", -2.0)] if ranks else []
        if constant:
            facts.append(Fact("constant_in_query", -2.0))
        if role == SCORE:
            facts.append(Fact("fractional", 1.0) if col.fractional else Fact("whole", 0.0))
            if col.small_whole:
                facts.append(Fact("few_whole_numbers", -1.0))
        elif col.small_whole:
            facts.append(Fact("small_whole_numbers", 1.0))
        else:
            facts.append(Fact("many_numbers", -1.0))
        return tuple(facts)


def _uniqueness(repeated: float, unique: str, repeats: str, points: float) -> Fact:
    if repeated <= UNIQUE_SHARE:
        return Fact(unique, points)
    return Fact(repeats, -0.5 if repeated <= 0.1 else -2.0, {"share": repeated})


__all__ = [
    "FEW_VALUES",
    "MANY_ROWS",
    "Candidate",
    "Fact",
    "Lists",
    "Scorer",
    "Table",
    "name_points",
]
