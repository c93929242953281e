"""Canonical column names shared by the loaders, the engine and the app.

A *run* table has one row per retrieved item::

    query (str) | item (str) | score (float) | [rank (int)] | [model (str)] | [segment columns]

A *judgments* (qrels) table has one row per judged item::

    query (str) | item (str) | relevance (float)

A recommender-style table carries its own labels: a run table with a ``label`` column. Use
:func:`metrics.io.canonical.split_inline_labels` to turn it into a run and judgments pair.
"""

from __future__ import annotations

import re

QUERY = "query"
ITEM = "item"
SCORE = "score"
RANK = "rank"
MODEL = "model"
LABEL = "label"
RELEVANCE = "relevance"

RUN_REQUIRED = (QUERY, ITEM)
RUN_OPTIONAL = (SCORE, RANK, MODEL, LABEL)
QRELS_COLUMNS = (QUERY, ITEM, RELEVANCE)

#: Name given to the single model of a run that has no model column.
DEFAULT_MODEL = "run"

#: Cell texts that mean "no value", compared stripped and in lower case (``NA``, ``NULL``, ...).
NULL_WORDS: tuple[str, ...] = ("", "na", "n/a", "nan", "null", "none", "-", "?")

#: The one of those words that is a grade in a label column: ``none`` is the lowest grade
#: (none / partial / good / perfect, or none beside relevant), never a missing label.
NONE_GRADE = "none"

#: Cell texts that mean a missing label: :data:`NULL_WORDS` without :data:`NONE_GRADE`.
LABEL_NULL_WORDS: tuple[str, ...] = tuple(w for w in NULL_WORDS if w != NONE_GRADE)


def normalize_name(name: object) -> str:
    """A column name as the readers match it: lower case, with spaces, dots and hyphens turned
    into underscores (``"Doc ID"`` -> ``"doc_id"``)."""
    return re.sub(r"[\s\-.]+", "_", str(name).strip().lower())
