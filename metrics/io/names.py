"""Column-name synonyms: the one list of names that say which role a column plays.

The role guesser (:mod:`metrics.io.roles`), the table reader (:mod:`metrics.io.formats`: columns
that hold identifiers stay text) and the per-query reader (:mod:`metrics.io.per_query`) all read
these lists. Names are compared as :func:`metrics.schema.normalize_name` writes them
(``"Doc ID"`` -> ``"doc_id"``).

A name is evidence, never the whole answer: :mod:`metrics.io.evidence` weighs it together with
what the column holds. Three strengths of name are told apart (:func:`name_tier`): the canonical
name of a role (``query``, ``item``, ``score``, ...), a usual synonym (``qid``, ``docid``), and a
longer name holding a role word (``user_query_id``).
"""

from __future__ import annotations

from typing import Literal

from metrics.schema import ITEM, LABEL, MODEL, QUERY, RANK, SCORE, normalize_name

#: Normalised column names for each role, canonical name first.
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
        "relevance",
        "labels",
        "rel",
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
        "runid",
        "variant",
        "tag",
        "method",
        "algorithm",
        "run_id",
        "model_name",
        "arm",
    ),
}

#: Words that, inside a longer column name, hint at a role (``user_query_id`` -> query).
ROLE_WORDS: dict[str, tuple[str, ...]] = {
    QUERY: ("query", "qid", "user", "session", "topic"),
    ITEM: ("item", "doc", "product", "sku", "passage"),
    SCORE: ("score", "pred", "prob"),
    RANK: ("rank", "position"),
    LABEL: ("label", "relevance", "grade", "click", "purchase"),
    MODEL: ("model", "system", "variant"),
}

#: The names a header row uses to state a role outright (``relevance`` is the label of
#: judgments).
CANONICAL_NAMES: dict[str, tuple[str, ...]] = {
    QUERY: (QUERY,),
    ITEM: (ITEM,),
    SCORE: (SCORE,),
    RANK: (RANK,),
    LABEL: (LABEL, "relevance"),
    MODEL: (MODEL,),
}

#: Words of names that describe a query (or user) rather than identify it: ``user_segment``,
#: ``session_type`` and ``user_country`` are per-query attributes to segment by, whatever the
#: role word in front.
SEGMENT_WORDS = (
    "segment",
    "type",
    "kind",
    "class",
    "category",
    "group",
    "cohort",
    "tier",
    "tenure",
    "activity",
    "traffic",
    "country",
    "market",
    "region",
    "area",
    "city",
    "locale",
    "language",
    "lang",
    "device",
    "platform",
    "channel",
    "source",
    "vertical",
    "intent",
    "gender",
    "age",
    "bucket",
    "length",
    "count",
    "date",
    "day",
    "time",
    "hour",
)

#: Every name of :data:`ROLE_NAMES` (a header row naming one is a header, not data).
KNOWN_NAMES = frozenset(n for names in ROLE_NAMES.values() for n in names)

#: Names of the query id (per-query tables and query tables look for these).
QUERY_NAMES = ROLE_NAMES[QUERY]
#: Names of the item id.
ITEM_NAMES = ROLE_NAMES[ITEM]
#: Names of the model.
MODEL_NAMES = ROLE_NAMES[MODEL]

#: Column names that hold identifiers (query, item, model): never converted to numbers.
ID_NAMES = frozenset(QUERY_NAMES + ITEM_NAMES + MODEL_NAMES)

Tier = Literal["canonical", "exact", "word", ""]


def _tokens(name: str) -> set[str]:
    return {t for t in name.split("_") if t}


#: What may follow a role word run together with it (``docid``, ``querytext``, ``scores``);
#: ``ranking`` or ``topical`` hold no role word.
_RUN_ON = ("", "s", "id", "ids", "no", "num", "number", "key", "name", "text", "code", "hash")


def _holds_word(name: str, word: str) -> bool:
    if word in _tokens(name):
        return True
    head = name.split("_", 1)[0]
    return head.startswith(word) and (head[len(word) :] in _RUN_ON or head[len(word) :].isdigit())


def name_tier(column: object, role: str) -> Tier:
    """How strongly the name of ``column`` says ``role``: ``canonical`` (the role's own name),
    ``exact`` (a usual synonym), ``word`` (a longer name holding a role word) or ``""``."""
    name = normalize_name(column)
    if name in CANONICAL_NAMES[role]:
        return "canonical"
    if name in ROLE_NAMES[role]:
        return "exact"
    if any(_holds_word(name, w) for w in ROLE_WORDS[role]):
        return "word"
    return ""


def describes_a_segment(column: object) -> bool:
    """Whether the name of ``column`` holds a word of :data:`SEGMENT_WORDS` (``user_segment``,
    ``device_type``)."""
    tokens = _tokens(normalize_name(column))
    return any(w in tokens for w in SEGMENT_WORDS)


__all__ = [
    "CANONICAL_NAMES",
    "ID_NAMES",
    "ITEM_NAMES",
    "KNOWN_NAMES",
    "MODEL_NAMES",
    "QUERY_NAMES",
    "ROLE_NAMES",
    "ROLE_WORDS",
    "SEGMENT_WORDS",
    "describes_a_segment",
    "name_tier",
]
