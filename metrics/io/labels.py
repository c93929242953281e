"""Labels written as text: a value → grade mapping, guessed for common scales or given.

A label column may hold words instead of numbers: ``relevant`` / ``not relevant``, ``click`` /
``no click``, ``high`` / ``medium`` / ``low``, ``相关`` / ``不相关``, ``クリック`` /
``クリックなし``. :func:`guess_label_map` proposes grades when every text value of a column
belongs to one known scale (:data:`SCALES`, lowest grade first); :func:`parse_label_map` reads
a mapping written ``relevant=1,not relevant=0`` (the command lines' ``--label-map``); and
:func:`map_labels` applies one. Values are matched without regard to case, surrounding white
space, or ``_`` and ``-`` written for a space (``Not_Relevant`` is ``not relevant``).
:func:`label_counts` says how many judgments carry each (numeric) label.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from metrics.errors import InputError
from metrics.schema import NULL_WORDS

#: Known label scales, lowest grade first: each grade is a tuple of the words that name it.
SCALES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("false", "f"), ("true", "t")),
    (("no", "n"), ("yes", "y")),
    (
        ("not relevant", "non relevant", "nonrelevant", "irrelevant"),
        ("relevant",),
    ),
    (("no click", "not clicked", "unclicked", "no clicks"), ("click", "clicked")),
    (("not purchased", "no purchase"), ("purchased", "purchase", "bought")),
    (("negative", "neg"), ("positive", "pos")),
    (
        ("not relevant", "non relevant", "nonrelevant", "irrelevant"),
        ("relevant",),
        ("highly relevant", "very relevant"),
    ),
    (
        ("not relevant", "non relevant", "nonrelevant", "irrelevant"),
        ("partially relevant", "somewhat relevant", "marginally relevant"),
        ("relevant",),
        ("highly relevant", "very relevant"),
    ),
    (("low",), ("medium", "mid"), ("high",)),
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


def text_values(values: pd.Series) -> list[str]:
    """The distinct values of a label column that are text, neither numbers nor missing-value
    words (``na``, ``null``, ...), in order of first appearance; empty for a numeric or boolean
    column."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return []
    present = values.dropna()
    distinct = pd.unique(present.astype("str"))
    out = []
    for value in distinct:
        text = str(value).strip()
        if not text or text.lower() in NULL_WORDS or is_number_text(text):
            continue
        out.append(text)
    return out


def guess_label_map(values: Iterable[str]) -> dict[str, float] | None:
    """Grades for text labels when every one of them belongs to one known scale (the smallest
    such scale, in the order of :data:`SCALES`): ``{"clicked": 1, "not clicked": 0}``; ``None``
    when some value belongs to none (or there are no text values)."""
    found = list(dict.fromkeys(str(v) for v in values))
    if not found or len(found) > MAX_TEXT_LABELS:
        return None
    wanted = {normalize_label(v) for v in found}
    for scale in SCALES:
        grade_of = {word: float(g) for g, words in enumerate(scale) for word in words}
        if wanted <= set(grade_of):
            return {v: grade_of[normalize_label(v)] for v in found}
    return None


def partial_label_map(values: Iterable[str]) -> dict[str, float | None]:
    """Grades of the text labels that the known scale covering most of them gives (``None``
    for the others): a mapping to start from when no scale explains every value."""
    found = list(dict.fromkeys(str(v) for v in values))
    best: dict[str, float] = {}
    for scale in SCALES:
        grade_of = {word: float(g) for g, words in enumerate(scale) for word in words}
        covered = {v: grade_of[normalize_label(v)] for v in found if normalize_label(v) in grade_of}
        if len(covered) > len(best):
            best = covered
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


def mapping_text(mapping: Mapping[str, float]) -> str:
    """A mapping as it is written: ``clicked = 1, not clicked = 0`` (highest grade first)."""
    pairs = sorted(mapping.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{k} = {v:g}" for k, v in pairs)


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
    "SCALES",
    "guess_label_map",
    "is_number_text",
    "label_counts",
    "looks_like_text_labels",
    "map_labels",
    "mapping_text",
    "normalize_label",
    "parse_label_map",
    "partial_label_map",
    "text_values",
]
