"""Column roles: guess which column is the query, item, score, rank, label, model or a segment.

Each column is scored for each role from its name and from its values
(:mod:`metrics.io.evidence`): a name raises or lowers the score, the values decide with it. A
guess below :data:`SURE` confidence, or with a second column close behind, is a doubt
(:func:`guess_doubts`): the Data page asks the user to confirm it before anything is computed,
the command line refuses it naming the columns and the header name that settles it. Columns
constant within each query, with a few values, are proposed as segments. The user may edit the
resulting :class:`RoleMapping`; :func:`apply_roles` then renames the columns to the canonical
names of :mod:`metrics.schema`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from metrics.engine.lazy import LazyModule
from metrics.errors import InputError
from metrics.io.direction import lower_is_better_column
from metrics.io.evidence import FEW_VALUES, Candidate, Fact, Lists, Scorer, Table, name_points
from metrics.io.names import KNOWN_NAMES, ROLE_NAMES, ROLE_WORDS
from metrics.schema import (
    ITEM,
    LABEL,
    LABEL_NULL_WORDS,
    MODEL,
    NULL_WORDS,
    QUERY,
    RANK,
    SCORE,
    normalize_name,
)

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: the command line reads tables in blocks without it
    pd = LazyModule("pandas")

#: The single-column roles, in the order they are guessed.
ROLES = (QUERY, ITEM, SCORE, RANK, LABEL, MODEL)

_TRUE = ("1", "true", "yes", "y", "t")
_FALSE = ("0", "false", "no", "n", "f")


@dataclass(frozen=True)
class Said:
    """What the values say about a column, as a code with its parameters (``values``,
    ``lists``, ``coarser``, ...; see :data:`SAID_TEXT`)."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """In plain English (for the command line)."""
        params = {
            k: (f"{v:,}" if isinstance(v, int) else f"{v:.0%}" if k == "share" else v)
            for k, v in self.params.items()
        }
        return SAID_TEXT[self.code].format(**params)


#: English of :class:`Said` (the app's are the catalog's ``said.<code>``).
SAID_TEXT = {
    "values": "'{column}' has {distinct} values across {rows} rows",
    "lists": "'{column}' has one value per ranked list ({distinct} values, median list length "
    "{length})",
    "coarser": "'{column}' has {distinct} values across {rows} rows, each spanning several "
    "values of '{finer}'",
    "unique_in_list": "'{column}' is unique within each list",
    "repeats_in_list": "'{column}' repeats within lists ({share} of rows)",
    "constant_in_query": "'{column}' holds one value per query ({distinct} values)",
    "model_splits": "'{column}' has {distinct} values, all of them in {share} of queries",
    "ranks": "'{column}' runs 1, 2, 3, ... within each list",
    "numbers": "'{column}' holds numbers ({distinct} distinct values)",
    "follows": "'{column}' follows from the query column, and '{query}' could be the query instead",
}


@dataclass(frozen=True)
class Guess:
    """One guessed role.

    Attributes
    ----------
    column:
        The column the guess points at.
    confidence:
        0 to 1: 0.95 for a usual name the values do not contradict, 0.7 for a name containing
        a role word, 0.6 for values alone; lowered by evidence against, and at most 0.45 with
        a second column close behind. Below :data:`SURE` the guess is a doubt.
    reason:
        Why, in plain English.
    code:
        Why, as a stable code for translated texts (:data:`GUESS_CODES`): ``name_means``,
        ``name_suggests``, ``repeated_text``, ``lists``, ``distinct_text``, ``unique_in_list``,
        ``fractional``, ``rank_like``, ``small_whole_numbers``, ``one_list_per_value``,
        ``splits_alike``, ``constant_in_query`` (a proposed segment of a run) or ``few_values``
        (a proposed segment of a query table).
    distinct:
        How many distinct values the column has.
    params:
        The numbers the reason names (``lists``, ``length``).
    unsure:
        ``"close"`` (another column scores nearly as well: :attr:`runner_up`), ``"weak"``
        (the values speak against the guess), ``"follows"`` (it would change with the close
        second query column) or ``""``.
    runner_up:
        The close second column.
    said:
        What the values say about the column and, when close, about the runner-up.
    named:
        Whether the column's name is one of the role's names (or holds a role word).
    """

    column: str
    confidence: float
    reason: str
    code: str = ""
    distinct: int = 0
    params: Mapping[str, object] = field(default_factory=dict)
    unsure: str = ""
    runner_up: str | None = None
    said: tuple[Said, ...] = ()
    named: bool = False


@dataclass(frozen=True)
class RoleMapping:
    """Which column plays which role. ``None`` means the role is absent."""

    query: str | None = None
    item: str | None = None
    score: str | None = None
    rank: str | None = None
    label: str | None = None
    model: str | None = None
    segments: tuple[str, ...] = ()

    @classmethod
    def from_guesses(cls, guesses: Mapping[str, Guess]) -> RoleMapping:
        """Mapping taking every guessed role and every segment candidate."""
        single = {role: guesses[role].column for role in ROLES if role in guesses}
        segments = tuple(g.column for key, g in guesses.items() if key.startswith("segment:"))
        return cls(**single, segments=segments)

    @overload
    @classmethod
    def coerce(cls, value: RoleMapping | Mapping[str, Any]) -> RoleMapping: ...

    @overload
    @classmethod
    def coerce(cls, value: None) -> None: ...

    @classmethod
    def coerce(cls, value: RoleMapping | Mapping[str, Any] | None) -> RoleMapping | None:
        """Accept a mapping object or a plain ``{role: column}`` dictionary."""
        if value is None or isinstance(value, RoleMapping):
            return value
        known = set(ROLES) | {"segments"}
        unknown = set(value) - known
        if unknown:
            raise InputError(
                f"Unknown role(s) {', '.join(sorted(map(str, unknown)))}.",
                fix=f"Use only {', '.join(sorted(known))}.",
            )
        args = {k: v for k, v in value.items() if k in ROLES}
        segments = value.get("segments") or ()
        if isinstance(segments, str):
            segments = (segments,)
        return cls(**args, segments=tuple(segments))

    def columns(self) -> dict[str, str]:
        """``{role: column}`` for the roles that are set."""
        return {role: getattr(self, role) for role in ROLES if getattr(self, role)}

    def with_(self, **changes: Any) -> RoleMapping:
        """A copy with some roles changed."""
        return replace(self, **changes)


def guess_roles(df: pd.DataFrame | Table, *, judged_elsewhere: bool = False) -> dict[str, Guess]:
    """Guess each column's role from its name and values.

    Parameters
    ----------
    df:
        A loaded table (any column names), or its values as :class:`~metrics.io.evidence.Table`
        (the first rows of a table read block by block, without pandas).
    judged_elsewhere:
        A run whose judgments come in a file of their own: its labels are guessed from column
        names only, since a column of a few small whole numbers in such a run (views, a second
        score) is far more likely than labels, and labels taken from it would join the judgments.

    Returns
    -------
    dict[str, Guess]
        Keys are roles from :data:`ROLES` that could be guessed, plus one ``"segment:<column>"``
        key per proposed segment column: a column constant within each query with 2 to
        :data:`~metrics.io.evidence.FEW_VALUES` values.
    """
    guesser = _Guesser(df)
    guesser.query_and_model()
    if QUERY in guesser.guesses:
        guesser.item()
        guesser.numbers(labels=not judged_elsewhere)
        guesser.segments()
    else:
        guesser.names_only()
    return guesser.guesses


#: The codes of :attr:`Guess.code` (the app words them with the catalog's ``guess.<code>``).
GUESS_CODES = (
    "name_means",
    "name_suggests",
    "name_lower_better",
    "repeated_text",
    "lists",
    "distinct_text",
    "unique_in_list",
    "fractional",
    "rank_like",
    "small_whole_numbers",
    "text_labels",
    "one_list_per_value",
    "splits_alike",
    "constant_in_query",
    "few_values",
)
#: The codes of :attr:`Doubt.code` (``doubt.<code>`` in the catalogs).
DOUBT_CODES = ("one_value", "looks_like_ids", "close", "weak", "follows")

_ROLE_TEXT = {
    QUERY: "the query (or user/session) id",
    ITEM: "the item (document/product) id",
    SCORE: "the model's score",
    RANK: "the rank position",
    LABEL: "the relevance label",
    MODEL: "the model name",
}

#: Guesses below this confidence are doubts (see :func:`guess_doubts`).
SURE = 0.5
#: A second column scoring less than this much below the guess makes the guess a doubt.
CLOSE = 1.0
#: Confidence of a guess the values do not contradict, by the strength of its name.
_BASE = {"canonical": 0.95, "exact": 0.95, "word": 0.7, "": 0.6}
#: Confidence lost per point of evidence against the guess (tables of at least ``MANY_ROWS``).
_PER_POINT = 0.15
#: Confidence of a guess with a close second.
_CLOSE_CONFIDENCE = 0.45
#: Rows from which one distinct query (or item) value is not a believable guess.
MANY_ROWS = 10


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


class _Guesser:
    """The guesses of one table, role by role: the query and the model together, then the
    item within their lists, the numbers (score, rank, label), the segments."""

    def __init__(self, df: pd.DataFrame | Table) -> None:
        self.scorer = Scorer(df)
        self.full: Table = self.scorer.full
        self.guesses: dict[str, Guess] = {}
        self.taken: set[str] = set()
        #: The close second query column, when the query is in doubt.
        self.rival: Candidate | None = None

    def _add(
        self, role: str, ranked: Sequence[Candidate], key: Callable[[Candidate], float]
    ) -> None:
        best = ranked[0]
        second = next((c for c in ranked[1:] if c.column != best.column), None)
        confidence, unsure = self._confidence(best, second, key)
        code, reason, params = self._reason(role, best)
        said: tuple[Said, ...] = (self._said(role, best),)
        if unsure == "close" and second is not None:
            said += (self._said(role, second),)
        self.guesses[role] = Guess(
            best.column,
            confidence,
            reason,
            code,
            self.full.columns[best.column].distinct,
            params,
            unsure,
            second.column if unsure == "close" and second is not None else None,
            said,
            best.tier != "",
        )
        self.taken.add(best.column)

    def _confidence(
        self, best: Candidate, second: Candidate | None, key: Callable[[Candidate], float]
    ) -> tuple[float, str]:
        confidence = _BASE[best.tier]
        if self.full.rows >= MANY_ROWS:
            confidence += _PER_POINT * min(best.value_points, 0.0)
        close = (
            second is not None
            and key(best) - key(second) < CLOSE
            and (key(second) > 0 or second.tier in ("canonical", "exact"))
        )
        if close:
            confidence = min(confidence, _CLOSE_CONFIDENCE)
        confidence = round(min(max(confidence, 0.05), 0.99), 2)
        return confidence, "close" if close else "weak" if confidence < SURE else ""

    # ---------------------------------------------------------------- roles
    def query_and_model(self) -> None:
        ranked = self.scorer.query_candidates()
        if not ranked:
            return
        self._add(QUERY, ranked, lambda c: c.total)
        best = ranked[0]
        if self.guesses[QUERY].unsure == "close":
            self.rival = next(c for c in ranked[1:] if c.column != best.column)
        models = self._model_candidates(best)
        if models:
            self._add(MODEL, models, lambda c: c.score)
        self._follow(MODEL, best.model)

    def _follow(self, role: str, chosen: str | None) -> None:
        """A guess that the close second query column would change is in doubt with it."""
        rival = self.rival
        if rival is None or role not in self.guesses or self.guesses[role].unsure:
            return
        theirs = rival.model if role == MODEL else rival.item
        if theirs != chosen:
            guess = self.guesses[role]
            said = (Said("follows", {"column": guess.column, "query": rival.column}),)
            self.guesses[role] = replace(
                guess,
                confidence=min(guess.confidence, _CLOSE_CONFIDENCE),
                unsure="follows",
                runner_up=rival.column,
                said=said,
            )

    def _model_candidates(self, query: Candidate) -> list[Candidate]:
        """The query's model first (or, without one, a column named as the model), then the
        other model columns by their scores with this query."""
        out = []
        for name in self.scorer.model_columns(exclude=[query.column]):
            points = name_points(name, MODEL)
            if points is None:
                continue
            item = self.scorer.best_item(query.column, name)
            facts = self.scorer.model_facts(name, query.column, item)
            out.append(Candidate(MODEL, name, points[0], points[1], facts))
        out.sort(key=lambda c: -c.score)
        chosen = [c for c in out if c.column == query.model]
        if not chosen:
            chosen = [c for c in out if c.tier in ("canonical", "exact")][:1]
        return chosen + [c for c in out if c not in chosen] if chosen else []

    def item(self) -> None:
        query, model = self.guesses[QUERY].column, self._model()
        ranked = [
            c for c in self.scorer.item_candidates(query, model) if c.column not in self.taken
        ]
        if ranked:
            self._add(ITEM, ranked, lambda c: c.score)
            self._follow(ITEM, ranked[0].column)

    def _model(self) -> str | None:
        return self.guesses[MODEL].column if MODEL in self.guesses else None

    def numbers(self, *, labels: bool) -> None:
        """The score, the rank and the label: a usual name, or values that say so (content
        labels only with ``labels``; no score from the values beside a rank named as such)."""
        item = self.guesses[ITEM].column if ITEM in self.guesses else None
        lists = Lists(self.guesses[QUERY].column, self._model(), item)
        named_rank = any(
            c.tier != "" for c in self.scorer.number_candidates(RANK, lists, self.taken)
        )
        self._lower_is_better_score(lists)
        for role in (SCORE, RANK, LABEL):
            if role in self.guesses:
                continue
            ranked = self.scorer.number_candidates(role, lists, self.taken)
            from_values = (role != LABEL or labels) and not (role == SCORE and named_rank)
            usable = [c for c in ranked if c.tier != "" or (from_values and c.value_points > 0)]
            if role == RANK:  # 1, 2, 3 ... without a name: a rank only where the scores fall
                usable = [c for c in usable if c.tier != "" or self._follows_scores(c, lists)]
            if usable:
                self._add(role, usable, lambda c: c.score)

    def _lower_is_better_score(self, lists: Lists) -> None:
        """A column named like a distance, cost or loss (:mod:`metrics.io.direction`) is the
        score when no column is named as one; whether lower is better is asked separately."""
        named = [
            c
            for c in self.scorer.number_candidates(SCORE, lists, self.taken)
            if c.tier in ("canonical", "exact")
        ]
        column = lower_is_better_column(c for c in self.scorer.names if c not in self.taken)
        if named or column is None:
            return
        reason = f"column name '{column}' means a score where lower is better"
        self.guesses[SCORE] = Guess(
            column, 0.9, reason, "name_lower_better", self.full.columns[column].distinct
        )
        self.taken.add(column)

    def _follows_scores(self, rank: Candidate, lists: Lists) -> bool:
        score = self.guesses.get(SCORE)
        return score is not None and self.scorer.ranks_follow_scores(
            rank.column, score.column, lists
        )

    def segments(self) -> None:
        for column, distinct in _segment_candidates(self.full, self.guesses[QUERY].column, self):
            self.guesses[f"segment:{column}"] = Guess(
                column,
                0.6,
                f"'{column}' is constant within each query ({distinct} distinct values)",
                "constant_in_query",
                distinct,
            )

    def names_only(self) -> None:
        """Without a query candidate (a table of one column, or of fractions only), roles come
        from the column names alone."""
        for role in ROLES:
            for column in self.scorer.names:
                points = name_points(column, role)
                if column in self.taken or points is None or points[0] == "":
                    continue
                self._add(role, [Candidate(role, column, points[0], points[1])], lambda c: 0)
                break

    # ---------------------------------------------------------------- words
    def _reason(self, role: str, cand: Candidate) -> tuple[str, str, dict[str, object]]:
        column = cand.column
        if cand.tier in ("canonical", "exact"):
            return "name_means", f"column name '{column}' means {_ROLE_TEXT[role]}", {}
        if cand.tier == "word":
            return "name_suggests", f"column name '{column}' suggests {_ROLE_TEXT[role]}", {}
        return _VALUE_REASONS[role](self, cand)

    def _query_reason(self, cand: Candidate) -> tuple[str, str, dict[str, object]]:
        column = cand.column
        repeated = [
            name
            for name, col in self.full.columns.items()
            if not col.numeric and col.distinct < self.full.rows
        ]
        if repeated[:1] == [column]:
            return "repeated_text", f"'{column}' is the first text column with repeated values", {}
        lists = self.full.distinct(column, cand.model)
        length = _length(self.full.median_size(column, cand.model))
        return (
            "lists",
            f"'{column}' groups the rows into {lists:,} lists (median length {length})",
            {"lists": lists, "length": length},
        )

    def _item_reason(self, cand: Candidate) -> tuple[str, str, dict[str, object]]:
        column = cand.column
        text = [c for c in self.scorer.names if c not in self.taken and c != column]
        text = [c for c in text if not self.full.columns[c].numeric]
        most = max((self.full.columns[c].distinct for c in text), default=0)
        if not self.full.columns[column].numeric and self.full.columns[column].distinct >= most:
            return (
                "distinct_text",
                f"'{column}' is the text column with the most distinct values",
                {},
            )
        return "unique_in_list", f"'{column}' is unique within each list", {}

    def _said(self, role: str, cand: Candidate) -> Said:
        col = self.full.columns[cand.column]
        base: dict[str, object] = {
            "column": cand.column,
            "distinct": col.distinct,
            "rows": self.full.rows,
        }
        if role == QUERY:
            coarser = cand.fact("coarser")
            if coarser is not None:
                return Said("coarser", {**base, "finer": coarser.params["finer"]})
            if cand.fact("items_unique") and self.full.median_size(cand.column, cand.model) >= 2:
                length = _length(self.full.median_size(cand.column, cand.model))
                return Said("lists", {**base, "length": length})
            return Said("values", base)
        for code in ("constant_in_query", "rank_like", "ranked"):
            if cand.fact(code) is not None:
                return Said("ranks" if code != "constant_in_query" else code, base)
        if role == ITEM:
            repeats = cand.fact("repeats_in_list")
            if repeats is not None:
                return Said("repeats_in_list", {"column": cand.column, **repeats.params})
            return Said("unique_in_list", {"column": cand.column})
        splits = cand.fact("splits_alike") or cand.fact("splits_unevenly")
        if role == MODEL and splits is not None:
            return Said("model_splits", {**base, **splits.params})
        return Said("numbers" if col.numeric else "values", base)


def _length(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 1)


_Reason = tuple[str, str, dict[str, object]]


def _value_reason(code: str, text: str) -> Callable[[_Guesser, Candidate], _Reason]:
    def reason(guesser: _Guesser, cand: Candidate) -> tuple[str, str, dict[str, object]]:
        distinct = guesser.full.columns[cand.column].distinct
        return code, text.format(column=cand.column, distinct=distinct), {}

    return reason


def _model_reason(guesser: _Guesser, cand: Candidate) -> tuple[str, str, dict[str, object]]:
    distinct = guesser.full.columns[cand.column].distinct
    if cand.fact("one_list_per_value") is not None:
        return (
            "one_list_per_value",
            f"each query–item pair appears once per value of '{cand.column}' ({distinct} values)",
            {},
        )
    return (
        "splits_alike",
        f"every query has each value of '{cand.column}' ({distinct} values)",
        {},
    )


_VALUE_REASONS: dict[str, Callable[[_Guesser, Candidate], tuple[str, str, dict[str, object]]]] = {
    QUERY: _Guesser._query_reason,
    ITEM: _Guesser._item_reason,
    SCORE: _value_reason("fractional", "'{column}' holds fractional numbers"),
    RANK: _value_reason("rank_like", "'{column}' runs 1, 2, 3, ... within each list"),
    LABEL: lambda guesser, cand: (
        _value_reason("text_labels", "'{column}' holds labels written as text")
        if cand.fact("text_labels") is not None
        else _value_reason("small_whole_numbers", "'{column}' holds a few small whole numbers")
    )(guesser, cand),
    MODEL: _model_reason,
}


def _segment_candidates(
    table: Table, query: str, guesser: _Guesser | None = None
) -> list[tuple[str, int]]:
    """Columns constant within each query with 2 to :data:`FEW_VALUES` values (and fewer
    values than queries), with their number of distinct values, in column order."""
    out: list[tuple[str, int]] = []
    n_queries = table.columns[query].distinct
    taken = guesser.taken if guesser is not None else set()
    sample = guesser.scorer.table if guesser is not None else table
    for name, col in table.columns.items():
        if name in taken or name == query or not _segment_values(col.distinct, n_queries):
            continue
        if sample.constant_within(name, query) and table.constant_within(name, query):
            out.append((name, col.distinct))
    return out


def _segment_values(distinct: int, queries: int) -> bool:
    """Whether a query-level column of ``distinct`` values is worth segmenting by: 2 to
    :data:`~metrics.io.evidence.FEW_VALUES` values, fewer than the queries (from 5 queries: a
    value per query is another id, not a segment)."""
    return 2 <= distinct <= FEW_VALUES and not (distinct >= queries and queries >= 5)


def proposed_segments(segments: pd.DataFrame | None) -> list[str]:
    """The columns of a segment table (``query`` plus one row per query) worth segmenting by
    (see :func:`_segment_values`), in column order."""
    if segments is None:
        return []
    queries = segments[QUERY].nunique() if QUERY in segments.columns else len(segments)
    return [
        str(c)
        for c in segments.columns
        if c != QUERY and _segment_values(segments[c].nunique(dropna=True), queries)
    ]


def guess_query_table(
    df: pd.DataFrame, query_ids: Sequence[str] | pd.Series | None = None
) -> dict[str, Guess]:
    """The query column of a query table (one row per query, then its attributes), and the
    columns proposed as segments.

    The query column is scored from its name, from holding one row per value, and, when the
    run's query ids are given, from how many of the table's values are among them.

    Returns
    -------
    dict[str, Guess]
        ``"query"`` (when a column can be it) and ``"segment:<column>"`` per column proposed
        as a segment (2 to :data:`~metrics.io.evidence.FEW_VALUES` values).
    """
    guesser = _Guesser(df)
    full = guesser.full
    known = None if query_ids is None else pd.Index(pd.unique(pd.Series(query_ids, dtype=object)))
    ranked = []
    for name, col in full.columns.items():
        points = name_points(name, QUERY)
        if points is None or col.fractional or col.distinct == 0:
            continue
        facts = [
            Fact("one_row_per_value", 1.0)
            if col.distinct == full.rows
            else Fact("repeated_values", -1.0)
        ]
        if known is not None:
            values = pd.Index(pd.unique(id_strings(df[name]).dropna()))
            share = len(values.intersection(known)) / max(len(values), 1)
            facts.append(Fact("run_queries", 3.0 * share - 1.0, {"share": share}))
        ranked.append(Candidate(QUERY, name, points[0], points[1], tuple(facts)))
    ranked.sort(key=lambda c: -c.score)
    if ranked:
        guesser._add(QUERY, ranked, lambda c: c.score)
        query = guesser.guesses[QUERY].column
        queries = full.columns[query].distinct
        for column in df.columns:
            distinct = full.columns[str(column)].distinct
            if str(column) != query and _segment_values(distinct, queries):
                guesser.guesses[f"segment:{column}"] = Guess(
                    str(column),
                    0.6,
                    f"'{column}' has {distinct} distinct values",
                    "few_values",
                    distinct,
                )
    return guesser.guesses


@dataclass(frozen=True)
class Doubt:
    """Why a guess is doubtful, as a code with its parameters.

    Attributes
    ----------
    code:
        ``one_value`` (a query or item column guessed from its values that holds one value on
        every row) or ``looks_like_ids`` (labels guessed from values larger than relevance
        grades): the guess is left out. ``close`` (another column scores nearly as well),
        ``weak`` (the values speak against the guess) or ``follows`` (the item or model would
        change with the close second query column): the guess stands until confirmed.
    role:
        The doubtful role.
    column:
        The guessed column.
    values:
        The value held on every row (``one_value``) or the first distinct values
        (``looks_like_ids``), as shown text.
    rows:
        How many rows the table has.
    other:
        The close second column (``close``).
    said:
        What the values say about the column and about the second (see :class:`Said`).
    """

    code: str
    role: str
    column: str
    values: str = ""
    rows: int = 0
    other: str | None = None
    said: tuple[Said, ...] = ()

    @property
    def contradicted(self) -> bool:
        """Whether the values rule the guess out (it is left out rather than asked about)."""
        return self.code in ("one_value", "looks_like_ids")

    @property
    def reason(self) -> str:
        """The reason in plain English (for the command line)."""
        if self.code == "one_value":
            return (
                f"the {self.role} column '{self.column}' was guessed from its contents, but it "
                f"holds one value ('{self.values}') on all {self.rows} rows"
            )
        if self.code == "looks_like_ids":
            return (
                f"the label column '{self.column}' was guessed from its contents, but its "
                f"values ({self.values}) look like ids, not relevance grades such as 0 to 3"
            )
        said = "; ".join(s.text for s in self.said)
        if self.code == "close":
            return (
                f"'{self.column}' and '{self.other}' could both be {_ROLE_TEXT[self.role]}: {said}"
            )
        if self.code == "follows":
            return f"{said}"
        return f"'{self.column}' was guessed as {_ROLE_TEXT[self.role]}, but not surely: {said}"

    @property
    def header_fix(self) -> str:
        """How a header row settles it (the command line reads roles from header names)."""
        name = _CANONICAL[self.role]
        if self.code == "close":
            return (
                f"name the column that {_WHAT[self.role]} '{name}' in the header row "
                f"('{self.column}' or '{self.other}')"
            )
        return (
            f"name the column that {_WHAT[self.role]} '{name}' in the header row (if it is "
            f"'{self.column}', rename it to '{name}')"
        )


_CANONICAL = {QUERY: "query", ITEM: "item", SCORE: "score", RANK: "rank", LABEL: "label"}
_CANONICAL[MODEL] = "model"
_WHAT = {
    QUERY: "identifies one ranked list (the query, user or session)",
    ITEM: "identifies the ranked item",
    SCORE: "holds the model's scores",
    RANK: "holds the rank positions",
    LABEL: "holds the relevance labels",
    MODEL: "names the model",
}


#: Content-guessed labels beyond this size look like ids, not grades.
LABEL_LIMIT = 10


def guess_doubts(df: pd.DataFrame, guesses: Mapping[str, Guess]) -> dict[str, Doubt]:
    """The doubtful guesses, with the reason as a code.

    A query or item column guessed from its values that holds one value on many rows, and
    labels guessed from values larger than grades (such as the query ids 301 and 303 of a TREC
    file read as a table), are ruled out. A guess below :data:`SURE` confidence or with a
    close second column is asked about.

    Parameters
    ----------
    df:
        The table the guesses are about.
    guesses:
        From :func:`guess_roles`.

    Returns
    -------
    dict[str, Doubt]
        ``{role: doubt}`` in the order of :data:`ROLES`; empty when every guess can be defended.
    """
    out: dict[str, Doubt] = {}
    n = len(df)
    for role in ROLES:
        guess = guesses.get(role)
        if guess is None:
            continue
        doubt = _ruled_out(df, role, guess, n)
        if doubt is None and guess.unsure:
            doubt = Doubt(guess.unsure, role, guess.column, "", n, guess.runner_up, guess.said)
        if doubt is not None:
            out[role] = doubt
    return out


def _ruled_out(df: pd.DataFrame, role: str, guess: Guess, n: int) -> Doubt | None:
    if guess.named:
        return None
    if role in (QUERY, ITEM) and n >= MANY_ROWS:
        values = df[guess.column].dropna()
        if values.nunique() == 1:
            return Doubt("one_value", role, guess.column, str(values.iloc[0]), n)
    if role == LABEL and _is_numeric(df[guess.column]):
        numbers = df[guess.column].dropna().to_numpy(dtype="float64")
        if len(numbers) and np.abs(numbers).max() > LABEL_LIMIT:
            shown = ", ".join(f"{v:g}" for v in np.unique(numbers)[:5])
            return Doubt("looks_like_ids", LABEL, guess.column, shown, n)
    return None


def doubtful_guesses(df: pd.DataFrame, guesses: Mapping[str, Guess]) -> dict[str, str]:
    """:func:`guess_doubts` with each reason in plain English: ``{role: reason}``."""
    return {role: doubt.reason for role, doubt in guess_doubts(df, guesses).items()}


def refuse_doubtful_guesses(
    df: pd.DataFrame, guesses: Mapping[str, Guess], *, source: str | None = None
) -> None:
    """Raise when :func:`guess_doubts` finds a doubtful guess.

    Raises
    ------
    InputError
        Showing the whole guess and how to set the roles instead; ``params["header_fix"]``
        says which header names settle the doubts (the command line's fix).
    """
    doubts = guess_doubts(df, guesses)
    if not doubts:
        return
    shown = ", ".join(f"{role} = '{guesses[role].column}'" for role in ROLES if role in guesses)
    asked = [d.header_fix for d in doubts.values() if not d.contradicted]
    params: dict[str, object] = {"roles": list(doubts)}
    if asked:
        params["header_fix"] = "; ".join(asked)[:1].upper() + "; ".join(asked)[1:] + "."
    raise InputError(
        f"The column roles cannot be guessed safely: "
        f"{'; '.join(d.reason for d in doubts.values())}. Guessed: {shown}.",
        source=source,
        code="doubtful_guess",
        fix="Set the roles on the Data page, or give the file a header row that names the "
        "columns (such as query,item,score,label) so that they are read by name.",
        params=params,
    )


def _integral(values: pd.Series) -> bool:
    arr = values.to_numpy(dtype="float64")
    return bool(np.all(arr == np.round(arr)))


def apply_roles(
    df: pd.DataFrame, mapping: RoleMapping | Mapping[str, Any], *, source: str | None = None
) -> pd.DataFrame:
    """Select and rename columns to the canonical names; ids become strings.

    Values are not converted otherwise (scores may still be text);
    :func:`metrics.io.checks.check_table` reports what is unusable.

    Parameters
    ----------
    df:
        The loaded table.
    mapping:
        A :class:`RoleMapping` or ``{role: column}`` dictionary (``"segments"``: list of columns).
    source:
        File name, for messages.

    Returns
    -------
    pandas.DataFrame
        Columns ``query``, ``item`` and whichever of ``score``, ``rank``, ``label``, ``model`` are
        mapped, then the segment columns under their own names.

    Raises
    ------
    InputError
        When a mapped column does not exist, or one column is given two roles.
    """
    roles = RoleMapping.coerce(mapping)
    if roles is None:
        raise InputError(
            "No column mapping was given.",
            source=source,
            fix="Pass a RoleMapping or a {role: column} dictionary.",
        )
    chosen = roles.columns()
    used: dict[str, str] = {}
    for role, col in list(chosen.items()) + [("segment", s) for s in roles.segments]:
        if col not in df.columns:
            raise InputError(
                f"There is no column '{col}' to use as {role}.",
                source=source,
                column=col,
                fix=f"Choose one of: {', '.join(map(str, df.columns))}.",
            )
        if col in used and not (role == "segment" and used[col] == "segment"):
            raise InputError(
                f"Column '{col}' is mapped to both {used[col]} and {role}.",
                source=source,
                column=col,
                fix="Give each column one role.",
            )
        used[col] = role
    out = pd.DataFrame(index=df.index)
    for role, col in chosen.items():
        values = df[col]
        out[role] = id_strings(values) if role in (QUERY, ITEM, MODEL) else values
    for col in roles.segments:
        if col in out.columns:
            raise InputError(
                f"Segment column '{col}' has the name of a role.",
                source=source,
                column=col,
                fix="Rename the segment column.",
                code="segment_named_like_a_role",
                params={"column": col},
            )
        out[col] = id_strings(df[col]) if not _is_numeric(df[col]) else df[col]
    out = out.reset_index(drop=True)
    out.attrs = {
        **df.attrs,
        **({"source": source} if source else {}),
        "columns": {role: str(col) for role, col in chosen.items()},
    }
    return out


def id_strings(values: pd.Series) -> pd.Series:
    """Identifiers as strings: whole floats lose their ``.0``; missing stays missing."""
    if pd.api.types.is_float_dtype(values):
        arr = values.to_numpy(dtype="float64", na_value=np.nan)
        finite = np.isfinite(arr)
        if np.all(arr[finite] == np.round(arr[finite])) and np.all(np.abs(arr[finite]) < 2**53):
            ints = pd.Series(np.where(finite, arr, 0), index=values.index).astype("int64")
            text = ints.astype("str").where(finite, values.astype("str"))
            return text.where(values.notna())
    if (
        pd.api.types.is_bool_dtype(values)
        or pd.api.types.is_numeric_dtype(values)
        or values.dtype == object
        or isinstance(values.dtype, pd.CategoricalDtype)
    ):
        mask = values.isna()
        return values.astype("str").where(~mask)
    return values.astype("str")


def label_values(values: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Convert labels to floats: numbers as they are, true/yes → 1 and false/no → 0; an empty
    cell or a missing-value word (``NA``, ``null``) is missing, but ``none`` is not (it is a
    grade that the label mapping reads).

    Parameters
    ----------
    values:
        The label column.

    Returns
    -------
    (floats, bad)
        The converted labels, and a boolean mask of values that are neither numbers nor
        true/false words (missing values are not bad; they stay NaN).
    """
    if pd.api.types.is_bool_dtype(values):
        return values.astype("float64"), pd.Series(False, index=values.index)
    if _is_numeric(values):
        return values.astype("float64"), pd.Series(False, index=values.index)
    return _text_numbers(values, words=True)


def score_values(values: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Convert scores or ranks to floats; returns ``(floats, bad)`` like :func:`label_values`."""
    if _is_numeric(values):
        return values.astype("float64"), pd.Series(False, index=values.index)
    return _text_numbers(values, words=False)


def _text_numbers(values: pd.Series, *, words: bool) -> tuple[pd.Series, pd.Series]:
    missing = values.isna()
    text = values.astype("str").str.strip().str.lower()
    missing |= text.isin(LABEL_NULL_WORDS if words else NULL_WORDS)  # a label "none" is a grade
    numbers = pd.to_numeric(text.where(~missing), errors="coerce").astype("float64")
    if words:
        numbers = numbers.mask(text.isin(_TRUE[1:]), 1.0).mask(text.isin(_FALSE[1:]), 0.0)
    bad = numbers.isna() & ~missing
    return numbers.where(~missing), bad


def segment_columns(frame: pd.DataFrame) -> list[str]:
    """Columns of a canonical frame that are neither roles nor ``relevance``."""
    return [c for c in frame.columns if c not in ROLES and c != "relevance"]


__all__ = [
    "CLOSE",
    "DOUBT_CODES",
    "GUESS_CODES",
    "KNOWN_NAMES",
    "ROLES",
    "ROLE_NAMES",
    "ROLE_WORDS",
    "SAID_TEXT",
    "SURE",
    "Doubt",
    "Guess",
    "RoleMapping",
    "Said",
    "apply_roles",
    "doubtful_guesses",
    "guess_doubts",
    "guess_query_table",
    "guess_roles",
    "id_strings",
    "label_values",
    "normalize_name",
    "proposed_segments",
    "refuse_doubtful_guesses",
    "score_values",
    "segment_columns",
]
