"""Canonical column names shared by the loaders, the engine and the app.

A *run* table has one row per retrieved item::

    query (str) | item (str) | score (float) | [rank (int)] | [model (str)] | [segment columns]

A *judgments* (qrels) table has one row per judged item::

    query (str) | item (str) | relevance (float)

A recommender-style table carries its own labels: a run table with a ``label`` column. Use
:func:`metrics.io.loaders.split_inline_labels` to turn it into a run and judgments pair.
"""

from __future__ import annotations

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
