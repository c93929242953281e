"""Labels written as text: a value → grade mapping, guessed for common scales or given.

A label column may hold words instead of numbers: ``relevant`` / ``not relevant``, ``click`` /
``no click``, ``high`` / ``medium`` / ``low``, ``相关`` / ``不相关``, ``クリック`` /
``クリックなし``, ``none`` / ``partial`` / ``good`` / ``perfect``. :func:`guess_label_map`
proposes grades when every text value of a column belongs to one known scale (:data:`SCALES`,
lowest grade first): the smallest one holding the words present, graded 0..k-1 in its order.
``none`` is a grade (0), never a missing label; a missing label is an empty cell or a
missing-value word (``NA``, ``null``): its item is unjudged. :func:`parse_label_map` reads
a mapping written ``relevant=1,not relevant=0`` (the command lines' ``--label-map``); and
:func:`map_labels` applies one. Values are matched without regard to case, surrounding white
space, or ``_`` and ``-`` written for a space (``Not_Relevant`` is ``not relevant``).
:func:`label_counts` says how many judgments carry each (numeric) label.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from metrics.engine.lazy import LazyModule
from metrics.errors import InputError
from metrics.schema import LABEL_NULL_WORDS, NONE_GRADE

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: the command line reads tables in blocks without it
    pd = LazyModule("pandas")

#: The words of the lowest grade of relevance scales: "none", "irrelevant" and "not relevant"
#: are judgments (grade 0), never missing labels.
NOT_RELEVANT: tuple[str, ...] = (
    "not relevant",
    "non relevant",
    "nonrelevant",
    "irrelevant",
    NONE_GRADE,
)

#: Known ordinal vocabularies, lowest grade first: each grade is a tuple of the words that name
#: it. The vocabulary read is the smallest one holding every word present, its grades 0..k-1 in
#: its own order (none / partial / good / perfect is 0..3, never bad...perfect's 0, 2, 4).
SCALES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("false", "f"), ("true", "t")),
    (("no", "n"), ("yes", "y")),
    (NOT_RELEVANT, ("relevant",)),
    (("no click", "not clicked", "unclicked", "no clicks", NONE_GRADE), ("click", "clicked")),
    (("not purchased", "no purchase", NONE_GRADE), ("purchased", "purchase", "bought")),
    (("negative", "neg"), ("positive", "pos")),
    (NOT_RELEVANT, ("relevant",), ("highly relevant", "very relevant")),
    (NOT_RELEVANT, ("somewhat relevant", "somewhat"), ("very relevant", "very")),
    (("low",), ("medium", "mid"), ("high",)),
    ((NONE_GRADE,), ("low",), ("medium", "mid"), ("high",)),
    (NOT_RELEVANT, ("partial", "partially relevant"), ("good",), ("perfect",)),
    (
        NOT_RELEVANT,
        ("related", "partially relevant", "somewhat relevant", "marginally relevant"),
        ("relevant",),
        ("highly relevant", "very relevant"),
    ),
    # TREC Deep Learning's four grades
    (NOT_RELEVANT, ("related",), ("highly relevant",), ("perfectly relevant",)),
    (("bad",), ("fair",), ("good",), ("excellent",), ("perfect",)),
    # Chinese
    (("不相关", "无关"), ("相关",)),
    (("不相关", "无关"), ("部分相关",), ("相关",), ("高度相关", "非常相关")),
    (("未点击", "没有点击", "无点击"), ("点击", "已点击")),
    (("否",), ("是",)),
    (("负面", "负"), ("正面", "正")),
    (("低",), ("中",), ("高",)),
    # Japanese
    (("非関連", "関連なし"), ("関連", "関連あり")),
    (("非関連", "関連なし"), ("部分的に関連",), ("関連", "関連あり"), ("高関連",)),
    (("クリックなし", "未クリック"), ("クリック", "クリックあり")),
    (("いいえ",), ("はい",)),
    (("ネガティブ",), ("ポジティブ",)),
    (("低",), ("中",), ("高",)),
)

#: More distinct text values than this in a label column are not labels (ids, free text).
MAX_TEXT_LABELS = 50

_SPACES = re.compile(r"[\s_\-]+")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity)$")


def normalize_label(value: object) -> str:
    """A text label as it is matched: lower case, white space, ``_`` and ``-`` made one space."""
    return _SPACES.sub(" ", str(value)).strip().lower()


def is_number_text(value: str) -> bool:
    """Whether a text value reads as a number (such labels need no mapping)."""
    return bool(_NUMBER.match(value.strip()))


def is_missing_label(text: str) -> bool:
    """Whether a label cell's text means "no label": empty, ``NA``, ``null``, ``-``, ...
    (:data:`~metrics.schema.LABEL_NULL_WORDS`); ``none`` is a grade, not a missing label."""
    return text.strip().lower() in LABEL_NULL_WORDS


def text_label_counts(values: pd.Series) -> dict[str, int]:
    """How many rows hold each text value of a label column that is neither a number nor a
    missing label (``none`` counts: it is a grade), by the value as written, in order of first
    appearance; empty for a numeric or boolean column."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return {}
    present = values.dropna().astype("str").str.strip()
    counts = present.value_counts()
    return {
        str(text): int(counts[text])
        for text in pd.unique(present)
        if not is_missing_label(str(text)) and not is_number_text(str(text))
    }


def text_values(values: pd.Series) -> list[str]:
    """The distinct text values of a label column (:func:`text_label_counts`), in order of first
    appearance; empty for a numeric or boolean column."""
    return list(text_label_counts(values))


def missing_label_count(values: pd.Series) -> int:
    """How many cells of a label column hold no label: empty, or a missing-value word (``NA``,
    ``null``, ...); a ``none`` is a grade and not counted."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return int(values.isna().sum())
    text = values.astype("str").str.strip().str.lower()
    return int((values.isna() | text.isin(LABEL_NULL_WORDS)).sum())


def _present(values: Iterable[str]) -> list[str]:
    """The distinct labels of ``values``, missing labels left out, in order of first appearance."""
    return [v for v in dict.fromkeys(str(v) for v in values) if not is_missing_label(v)]


def _grades_of(scale: tuple[tuple[str, ...], ...]) -> dict[str, float]:
    return {word: float(g) for g, words in enumerate(scale) for word in words}


def _smallest_scale(found: list[str]) -> dict[str, float] | None:
    """The grades the smallest known scale holding every word of ``found`` gives them; ``None``
    when no scale holds them all, or two scales of that size grade them differently (the
    words do not say which scale is meant)."""
    wanted = {normalize_label(v) for v in found}
    best: dict[str, float] | None = None
    size, ambiguous = 0, False
    for scale in SCALES:
        grade_of = _grades_of(scale)
        if not wanted <= set(grade_of):
            continue
        grades = {v: grade_of[normalize_label(v)] for v in found}
        if best is None or len(scale) < size:
            best, size, ambiguous = grades, len(scale), False
        elif len(scale) == size and grades != best:
            ambiguous = True
    return None if ambiguous else best


def with_none_grade(mapping: Mapping[str, float], values: Iterable[str]) -> dict[str, float]:
    """``mapping`` with every ``none`` of ``values`` it does not grade given grade 0: ``none``
    is the lowest grade, never a missing label."""
    out = dict(mapping)
    named = {normalize_label(k) for k in out}
    for value in values:
        if normalize_label(value) == NONE_GRADE and NONE_GRADE not in named:
            out[value] = 0.0
    return out


def guess_label_map(values: Iterable[str]) -> dict[str, float] | None:
    """Grades for text labels when every one of them belongs to one known scale: the smallest
    such scale (:data:`SCALES`) gives grades 0..k-1 in its order (``{"perfect": 3, "good": 2,
    "partial": 1, "none": 0}``, ``{"relevant": 1, "irrelevant": 0, "none": 0}``); a ``none``
    no scale of the other words holds is grade 0. Missing labels (``NA``, ``null``, an empty
    text) are left out. ``None`` when some value belongs to no scale, when two scales of the
    same size grade the words differently, or when there are no text values."""
    found = _present(values)
    if not found or len(found) > MAX_TEXT_LABELS:
        return None
    guess = _smallest_scale(found)
    if guess is None:
        rest = [v for v in found if normalize_label(v) != NONE_GRADE]
        if rest and len(rest) < len(found):
            known = _smallest_scale(rest)
            guess = None if known is None else with_none_grade(known, found)
    return guess


def partial_label_map(values: Iterable[str]) -> dict[str, float | None]:
    """Grades of the text labels that the known scale covering most of them gives (the smaller
    scale of two covering as many; ``None`` for the others, ``none`` 0): a mapping to start
    from when no scale explains every value."""
    found = _present(values)
    best: dict[str, float] = {}
    size = 0
    for scale in SCALES:
        grade_of = _grades_of(scale)
        covered = {v: grade_of[normalize_label(v)] for v in found if normalize_label(v) in grade_of}
        if len(covered) > len(best) or (len(covered) == len(best) and len(scale) < size):
            best, size = covered, len(scale)
    best = with_none_grade(best, found)
    return {v: best.get(v) for v in found}


def looks_like_text_labels(values: Iterable[str]) -> bool:
    """Whether text values are labels of a known scale with at least two grades present."""
    guess = guess_label_map(values)
    return guess is not None and len(set(guess.values())) >= 2


def parse_label_map(text: str, source: str | None = None) -> dict[str, float]:
    """Read a mapping written ``relevant=1,not relevant=0`` (``:`` works as well as ``=``; the
    last one of a pair separates the grade, so a value may hold ``=``).

    Raises
    ------
    InputError
        For a pair that is not ``value=grade`` with a number as grade, or a value given twice.
    """
    out: dict[str, float] = {}
    for part in str(text).split(","):
        if not part.strip():
            continue
        cut = max(part.rfind("="), part.rfind(":"))
        value, grade = part[:cut].strip(), part[cut + 1 :].strip()
        try:
            number = float(grade) if cut > 0 else float("nan")
        except ValueError:
            number = float("nan")
        if not value or not np.isfinite(number):
            raise InputError(
                f"The label mapping {part.strip()!r} is not value=grade with a number as grade.",
                source=source,
                code="label_map_pair",
                params={"pair": part.strip()},
                fix="Write the mapping like relevant=1,not relevant=0.",
            )
        key = normalize_label(value)
        if key in {normalize_label(v) for v in out} and out.get(value) != number:
            raise InputError(
                f"The label mapping gives {value!r} two grades.",
                source=source,
                code="label_map_twice",
                params={"value": value},
                fix="Give each text label one grade.",
            )
        out[value] = number
    if not out:
        raise InputError(
            "The label mapping is empty.",
            source=source,
            code="label_map_empty",
            fix="Write the mapping like relevant=1,not relevant=0.",
        )
    return out


def map_labels(values: pd.Series, mapping: Mapping[str, float]) -> pd.Series:
    """``values`` with every text label the mapping names replaced by its grade (as text, so
    that the usual conversion reads it); other values are left as they are."""
    if not mapping or pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    grades = {normalize_label(k): f"{float(v):g}" for k, v in mapping.items()}
    text = values.astype("str")
    keys = text.str.replace(_SPACES, " ", regex=True).str.strip().str.lower()
    mapped = keys.map(grades)
    return text.where(mapped.isna(), mapped).where(values.notna())


def mapping_text(mapping: Mapping[str, float], counts: Mapping[str, int] | None = None) -> str:
    """A mapping as it is written: ``clicked = 1, not clicked = 0`` (highest grade first), with
    the rows holding each value in brackets when ``counts`` gives them: ``perfect = 3 (12)``."""
    pairs = sorted(mapping.items(), key=lambda kv: -kv[1])
    counts = counts or {}
    return ", ".join(
        f"{k} = {v:g}" + (f" ({counts[k]:,})" if k in counts else "") for k, v in pairs
    )


def label_counts(labels: pd.Series) -> pd.DataFrame:
    """How many judgments carry each label value, in ascending order of the value: columns
    ``label`` (the value as text: ``0``, ``1``, ``0.5``, ``-1``), ``judgments`` and ``share``
    (a fraction of the judgments that have a label; a missing label is not counted)."""
    counts = labels.value_counts().sort_index()
    total = int(counts.sum())
    return pd.DataFrame(
        {
            "label": [f"{v:g}" for v in counts.index],
            "judgments": counts.to_numpy(dtype="int64"),
            "share": counts.to_numpy(dtype="float64") / total if total else [],
        }
    )


__all__ = [
    "MAX_TEXT_LABELS",
    "NOT_RELEVANT",
    "SCALES",
    "guess_label_map",
    "is_missing_label",
    "is_number_text",
    "label_counts",
    "looks_like_text_labels",
    "map_labels",
    "mapping_text",
    "missing_label_count",
    "normalize_label",
    "parse_label_map",
    "partial_label_map",
    "text_label_counts",
    "text_values",
    "with_none_grade",
]
