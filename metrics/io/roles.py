"""Column roles: guess which column is the query, item, score, rank, label, model or a segment.

A guess comes from the column's name first (``qid`` → query, ``clicked`` → label) and from its
contents otherwise (a column constant within each query is a segment candidate). The user may
edit the resulting :class:`RoleMapping`; :func:`apply_roles` then renames the columns to the
canonical names of :mod:`metrics.schema`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, overload

import numpy as np
import pandas as pd

from metrics.errors import InputError
from metrics.io.direction import lower_is_better_column
from metrics.schema import ITEM, LABEL, MODEL, NULL_WORDS, QUERY, RANK, SCORE, normalize_name

#: The single-column roles, in the order they are guessed.
ROLES = (QUERY, ITEM, SCORE, RANK, LABEL, MODEL)

#: Normalised column names for each role (exact matches are confident guesses).
ROLE_NAMES: dict[str, tuple[str, ...]] = {
    QUERY: (
        "query",
        "qid",
        "query_id",
        "queryid",
        "q",
        "user",
        "user_id",
        "userid",
        "uid",
        "session",
        "session_id",
        "sessionid",
        "topic",
        "topic_id",
        "request_id",
        "customer_id",
    ),
    ITEM: (
        "item",
        "item_id",
        "itemid",
        "doc",
        "docid",
        "doc_id",
        "docno",
        "document",
        "document_id",
        "product",
        "product_id",
        "productid",
        "sku",
        "pid",
        "passage_id",
        "candidate",
        "candidate_id",
        "iid",
    ),
    SCORE: (
        "score",
        "scores",
        "pred",
        "prediction",
        "predicted",
        "prob",
        "probability",
        "proba",
        "similarity",
        "sim",
        "logit",
        "predicted_score",
        "model_score",
    ),
    RANK: ("rank", "position", "pos", "ranking", "rank_position"),
    LABEL: (
        "label",
        "labels",
        "rel",
        "relevance",
        "grade",
        "judgment",
        "judgement",
        "click",
        "clicked",
        "clicks",
        "purchase",
        "purchased",
        "target",
        "y",
        "gain",
        "relevant",
    ),
    MODEL: (
        "model",
        "system",
        "run",
        "variant",
        "tag",
        "method",
        "algorithm",
        "run_id",
        "model_name",
        "arm",
    ),
}

#: Words that, inside a longer column name, hint at a role (``user_query_id`` → query).
ROLE_WORDS: dict[str, tuple[str, ...]] = {
    QUERY: ("query", "qid", "user", "session", "topic"),
    ITEM: ("item", "doc", "product", "sku", "passage"),
    SCORE: ("score", "pred", "prob"),
    RANK: ("rank", "position"),
    LABEL: ("label", "relevance", "grade", "click", "purchase"),
    MODEL: ("model", "system", "variant"),
}

KNOWN_NAMES = frozenset(n for names in ROLE_NAMES.values() for n in names)

_TRUE = ("1", "true", "yes", "y", "t")
_FALSE = ("0", "false", "no", "n", "f")


@dataclass(frozen=True)
class Guess:
    """One guessed role.

    Attributes
    ----------
    column:
        The column the guess points at.
    confidence:
        0 to 1: 0.95 for an exact name, 0.7 for a name containing a role word, lower for
        guesses from contents only.
    reason:
        Why, in plain English.
    code:
        Why, as a stable code for translated texts: ``name_means``, ``name_suggests``,
        ``name_lower_better``, ``repeated_text``, ``distinct_text``, ``fractional``,
        ``small_whole_numbers``, ``one_list_per_value`` or ``constant_in_query``.
    distinct:
        For ``constant_in_query`` and ``one_list_per_value``: how many distinct values the
        column has.
    """

    column: str
    confidence: float
    reason: str
    code: str = ""
    distinct: int = 0


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


def guess_roles(df: pd.DataFrame, *, judged_elsewhere: bool = False) -> dict[str, Guess]:
    """Guess each column's role from its name and contents.

    Parameters
    ----------
    df:
        A loaded table (any column names).
    judged_elsewhere:
        A run whose judgments come in a file of their own: its labels are guessed from column
        names only, since a column of a few small whole numbers in such a run (views, a second
        score) is far more likely than labels, and labels taken from it would join the judgments.

    Returns
    -------
    dict[str, Guess]
        Keys are roles from :data:`ROLES` that could be guessed, plus one ``"segment:<column>"``
        key per segment candidate: a column whose value is constant within each query.
    """
    guesses: dict[str, Guess] = {}
    taken: set[str] = set()
    columns = [str(c) for c in df.columns]
    for role in ROLES:  # exact names first
        for col in columns:
            if col not in taken and normalize_name(col) in ROLE_NAMES[role]:
                guesses[role] = Guess(
                    col, 0.95, f"column name '{col}' means {_ROLE_TEXT[role]}", "name_means"
                )
                taken.add(col)
                break
    for role in ROLES:  # then names containing a role word
        if role in guesses:
            continue
        for col in columns:
            tokens = set(normalize_name(col).split("_"))
            if col not in taken and any(
                w in tokens or normalize_name(col).startswith(w) for w in ROLE_WORDS[role]
            ):
                guesses[role] = Guess(
                    col, 0.7, f"column name '{col}' suggests {_ROLE_TEXT[role]}", "name_suggests"
                )
                taken.add(col)
                break
    _score_named_lower_is_better(columns, guesses, taken)
    _guess_from_contents(df, guesses, taken, labels=not judged_elsewhere)
    if QUERY in guesses:
        for col, distinct in _segment_candidates(df, guesses[QUERY].column, taken):
            guesses[f"segment:{col}"] = Guess(
                col,
                0.6,
                f"'{col}' is constant within each query ({distinct} distinct values)",
                "constant_in_query",
                distinct,
            )
    return guesses


def _score_named_lower_is_better(
    columns: list[str], guesses: dict[str, Guess], taken: set[str]
) -> None:
    """A column named like a distance, cost or loss (:mod:`metrics.io.direction`) is the score
    when no column is named as one; whether lower is better is asked separately."""
    column = lower_is_better_column(c for c in columns if c not in taken)
    if SCORE not in guesses and column is not None:
        reason = f"column name '{column}' means a score where lower is better"
        guesses[SCORE] = Guess(column, 0.9, reason, "name_lower_better")
        taken.add(column)


_ROLE_TEXT = {
    QUERY: "the query (or user/session) id",
    ITEM: "the item (document/product) id",
    SCORE: "the model's score",
    RANK: "the rank position",
    LABEL: "the relevance label",
    MODEL: "the model name",
}


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _guess_from_contents(
    df: pd.DataFrame, guesses: dict[str, Guess], taken: set[str], *, labels: bool = True
) -> None:
    """Guess the roles that the column names left open from what the columns hold, in order:
    query, item, score, label (each step skips the columns an earlier one took; the label only
    with ``labels``)."""
    free = [str(c) for c in df.columns if str(c) not in taken]
    for role, guess_role in (
        (QUERY, _query_from_contents),
        (ITEM, _item_from_contents),
        (SCORE, _score_from_contents),
        (LABEL, _label_from_contents),
    ):
        if role in guesses or (role == SCORE and RANK in guesses) or (role == LABEL and not labels):
            continue
        guess = guess_role(df, [c for c in free if c not in taken])
        if guess is not None:
            guesses[role] = guess
            taken.add(guess.column)
    if MODEL not in guesses and QUERY in guesses and ITEM in guesses:
        free_text = [c for c in free if c not in taken and not _is_numeric(df[c])]
        model = _model_from_contents(df, guesses[QUERY].column, guesses[ITEM].column, free_text)
        if model is not None:
            guesses[MODEL] = model
            taken.add(model.column)


def _query_from_contents(df: pd.DataFrame, free: list[str]) -> Guess | None:
    n = len(df)
    for col in free:
        if not _is_numeric(df[col]) and n and df[col].nunique(dropna=True) < n:
            return Guess(
                col, 0.4, f"'{col}' is the first text column with repeated values", "repeated_text"
            )
    return None


def _item_from_contents(df: pd.DataFrame, free: list[str]) -> Guess | None:
    text = [c for c in free if not _is_numeric(df[c])]
    if not text:
        return None
    col = max(text, key=lambda c: df[c].nunique(dropna=True))
    return Guess(
        col, 0.4, f"'{col}' is the text column with the most distinct values", "distinct_text"
    )


def _score_from_contents(df: pd.DataFrame, free: list[str]) -> Guess | None:
    for col in (c for c in free if _is_numeric(df[c])):
        values = df[col].dropna().to_numpy(dtype="float64")
        if len(values) and not np.all(values == np.round(values)):
            return Guess(col, 0.4, f"'{col}' holds fractional numbers", "fractional")
    return None


#: Most models a column guessed from its contents may name.
MODEL_LIMIT = 50


def _model_from_contents(df: pd.DataFrame, query: str, item: str, free: list[str]) -> Guess | None:
    """The text column that makes repeated query–item pairs unique, with a few values: one
    ranked list per value, as a model column does (checked only when pairs repeat)."""
    if not free or not df.duplicated([query, item]).any():
        return None
    for col in free:
        distinct = df[col].nunique(dropna=True)
        if 2 <= distinct <= MODEL_LIMIT and not df.duplicated([col, query, item]).any():
            return Guess(
                col,
                0.4,
                f"each query–item pair appears once per value of '{col}' ({distinct} values)",
                "one_list_per_value",
                distinct,
            )
    return None


def _label_from_contents(df: pd.DataFrame, free: list[str]) -> Guess | None:
    numeric = [c for c in free if _is_numeric(df[c])]
    flags = [c for c in free if pd.api.types.is_bool_dtype(df[c])]
    for col in numeric + flags:
        values = df[col].dropna()
        if len(values) and values.nunique() <= 10 and _integral(values):
            return Guess(
                col, 0.35, f"'{col}' holds a few small whole numbers", "small_whole_numbers"
            )
    return None


#: Guesses from contents below this confidence are checked by :func:`doubtful_guesses`.
CONTENT_GUESS = 0.5
#: Rows from which one distinct query (or item) value is not a believable guess.
MANY_ROWS = 10
#: Content-guessed labels beyond this size look like ids, not grades.
LABEL_LIMIT = 10


@dataclass(frozen=True)
class Doubt:
    """Why a guess from contents is doubtful, as a code with its parameters.

    Attributes
    ----------
    code:
        ``one_value`` (a query or item column holding one value on every row) or
        ``looks_like_ids`` (labels larger than relevance grades).
    role:
        The doubtful role.
    column:
        The guessed column.
    values:
        The value held on every row (``one_value``) or the first distinct values
        (``looks_like_ids``), as shown text.
    rows:
        How many rows the table has.
    """

    code: str
    role: str
    column: str
    values: str
    rows: int

    @property
    def reason(self) -> str:
        """The reason in plain English (for the command line)."""
        if self.code == "one_value":
            return (
                f"the {self.role} column '{self.column}' was guessed from its contents, but it "
                f"holds one value ('{self.values}') on all {self.rows} rows"
            )
        return (
            f"the label column '{self.column}' was guessed from its contents, but its "
            f"values ({self.values}) look like ids, not relevance grades such as 0 to 3"
        )


def guess_doubts(df: pd.DataFrame, guesses: Mapping[str, Guess]) -> dict[str, Doubt]:
    """Roles guessed from contents that the contents contradict, with the reason as a code.

    Guesses from column names are trusted. A query or item column guessed from contents that
    holds one value on many rows, and labels guessed from contents that are larger than grades
    (such as the query ids 301 and 303 of a TREC file read as a table), are doubtful.

    Parameters
    ----------
    df:
        The table the guesses are about.
    guesses:
        From :func:`guess_roles`.

    Returns
    -------
    dict[str, Doubt]
        ``{role: doubt}``; empty when every guess can be defended.
    """
    out: dict[str, Doubt] = {}
    n = len(df)
    for role in (QUERY, ITEM):
        guess = guesses.get(role)
        if guess is None or guess.confidence >= CONTENT_GUESS or n < MANY_ROWS:
            continue
        values = df[guess.column].dropna()
        if values.nunique() == 1:
            out[role] = Doubt("one_value", role, guess.column, str(values.iloc[0]), n)
    guess = guesses.get(LABEL)
    if guess is not None and guess.confidence < CONTENT_GUESS:
        numbers = df[guess.column].dropna().to_numpy(dtype="float64")
        if len(numbers) and np.abs(numbers).max() > LABEL_LIMIT:
            shown = ", ".join(f"{v:g}" for v in np.unique(numbers)[:5])
            out[LABEL] = Doubt("looks_like_ids", LABEL, guess.column, shown, n)
    return out


def doubtful_guesses(df: pd.DataFrame, guesses: Mapping[str, Guess]) -> dict[str, str]:
    """:func:`guess_doubts` with each reason in plain English: ``{role: reason}``."""
    return {role: doubt.reason for role, doubt in guess_doubts(df, guesses).items()}


def refuse_doubtful_guesses(
    df: pd.DataFrame, guesses: Mapping[str, Guess], *, source: str | None = None
) -> None:
    """Raise when :func:`doubtful_guesses` finds a guess the contents contradict.

    Raises
    ------
    InputError
        Showing the whole guess and how to set the roles instead.
    """
    doubts = doubtful_guesses(df, guesses)
    if not doubts:
        return
    shown = ", ".join(f"{role} = '{guesses[role].column}'" for role in ROLES if role in guesses)
    raise InputError(
        f"The column roles cannot be guessed safely: {'; '.join(doubts.values())}. "
        f"Guessed: {shown}.",
        source=source,
        code="doubtful_guess",
        fix="Set the roles on the Data page, or give the file a header row that names the "
        "columns (such as query,item,score,label) so that they are read by name.",
    )


def _integral(values: pd.Series) -> bool:
    arr = values.to_numpy(dtype="float64")
    return bool(np.all(arr == np.round(arr)))


def _segment_candidates(df: pd.DataFrame, query_col: str, taken: set[str]) -> list[tuple[str, int]]:
    """Columns constant within each query, with their number of distinct values."""
    out: list[tuple[str, int]] = []
    n_queries = df[query_col].nunique(dropna=True)
    if n_queries == 0:
        return out
    for col in df.columns:
        col = str(col)
        if col in taken or col == query_col:
            continue
        distinct = df[col].nunique(dropna=True)
        if distinct == 0 or distinct > 50 or (distinct >= n_queries and n_queries >= 5):
            continue
        per_query = df.groupby(query_col, sort=False, observed=True)[col].nunique(dropna=True)
        if (per_query <= 1).all():
            out.append((col, int(distinct)))
    return out


def apply_roles(
    df: pd.DataFrame, mapping: RoleMapping | Mapping[str, Any], *, source: str | None = None
) -> pd.DataFrame:
    """Select and rename columns to the canonical names; ids become strings.

    Values are not converted otherwise (scores may still be text); :func:`metrics.io.validation.
    check_table` reports what is unusable.

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
    """Convert labels to floats: numbers as they are, true/yes → 1 and false/no → 0.

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
    missing |= text.isin(NULL_WORDS)
    numbers = pd.to_numeric(text.where(~missing), errors="coerce").astype("float64")
    if words:
        numbers = numbers.mask(text.isin(_TRUE[1:]), 1.0).mask(text.isin(_FALSE[1:]), 0.0)
    bad = numbers.isna() & ~missing
    return numbers.where(~missing), bad


def segment_columns(frame: pd.DataFrame) -> list[str]:
    """Columns of a canonical frame that are neither roles nor ``relevance``."""
    return [c for c in frame.columns if c not in ROLES and c != "relevance"]


__all__ = [
    "KNOWN_NAMES",
    "ROLES",
    "ROLE_NAMES",
    "Doubt",
    "Guess",
    "RoleMapping",
    "apply_roles",
    "doubtful_guesses",
    "guess_doubts",
    "guess_roles",
    "id_strings",
    "label_values",
    "normalize_name",
    "refuse_doubtful_guesses",
    "score_values",
    "segment_columns",
]
