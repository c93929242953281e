"""Generated tables for the role guesser: the real query, item and model columns under many
names, beside decoys (per-query attributes, item attributes) named to mislead."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from hypothesis import strategies as st

#: Names the real query column is given: usual names, names the synonym list lacks, and names
#: holding a role word.
QUERY_NAMES = [
    "request_id",
    "search_id",
    "impression_id",
    "q",
    "topic_number",
    "qid_hash",
    "query",
    "session_key",
    "list_id",
    "ranking_id",
    "page_view",
]
#: Per-query attributes named like the query (or like nothing).
QUERY_DECOYS = [
    "user_segment",
    "session_type",
    "user_country",
    "topic_area",
    "device",
    "market",
    "user_tier",
    "query_intent",
    "locale",
    "user",
]
ITEM_NAMES = [
    "doc",
    "docno",
    "product_sku",
    "listing_id",
    "item_key",
    "passage",
    "asin",
    "result_url",
    "item",
    "content",
]
#: Item-level attributes (a few values, varying within a list).
ITEM_DECOYS = ["item_category", "doc_type", "brand", "product_kind"]
MODEL_NAMES = ["model", "system", "variant", "arm", "ranker", "experiment_arm", "algo", "engine"]
SCORE_NAMES = ["score", "relevance_score", "value", "s", "logit", "bm25"]


@dataclass
class RoleTable:
    """A generated table and the columns that truly play each role."""

    frame: pd.DataFrame
    query: str
    item: str
    model: str | None
    segments: tuple[str, ...]


def _query_ids(draw, n: int, kind: str) -> list[object]:
    if kind == "int":
        start = draw(st.integers(1, 500))
        return [start + 3 * i for i in range(n)]
    if kind == "hash":
        return [f"{(i * 2654435761) % 16**8:08x}" for i in range(1, n + 1)]
    return [f"r{1000 + 7 * i}" for i in range(n)]


@st.composite
def role_tables(draw, max_queries: int = 40) -> RoleTable:
    """A run table: lists of several models over shared queries, items reused across queries
    and models, a score, sometimes a rank and labels, per-query decoys and an item decoy; rows
    grouped by query, by model then query, or shuffled."""
    n_queries = draw(st.integers(4, max_queries))
    n_models = draw(st.integers(1, 3))
    query_name = draw(st.sampled_from(QUERY_NAMES))
    item_name = draw(st.sampled_from(ITEM_NAMES))
    model_name = draw(st.sampled_from(MODEL_NAMES)) if n_models > 1 else None
    decoys = draw(
        st.lists(
            st.sampled_from([d for d in QUERY_DECOYS if d != query_name]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    item_decoy = draw(st.sampled_from([None, *ITEM_DECOYS]))
    score_name = draw(st.sampled_from(SCORE_NAMES))
    kind = "int" if query_name == "topic_number" else draw(st.sampled_from(["text", "hash"]))
    queries = _query_ids(draw, n_queries, kind)
    pool_size = draw(st.integers(max(n_queries * 2, 40), max(n_queries * 8, 80)))
    pool = [f"d{j:04d}" for j in range(pool_size)]
    # fewer values than queries: a decoy is an attribute of the queries, never another id of them
    decoy_values = {d: draw(st.integers(2, min(5, n_queries - 1))) for d in decoys}
    with_rank = draw(st.booleans())
    with_label = draw(st.booleans())
    rows = []
    for qi, q in enumerate(queries):
        start = draw(st.integers(0, len(pool) - 1))
        size = draw(st.integers(3, 15))
        step = draw(st.sampled_from([1, 3]))
        candidates = [pool[(start + step * j) % len(pool)] for j in range(size + 4)]
        attrs = {d: f"{d[:3]}{(qi + len(d)) % k}" for d, k in decoy_values.items()}
        for m in range(n_models):
            length = draw(st.integers(2, size))
            picked = candidates[m : m + length]
            for r, item in enumerate(picked, start=1):
                score = round(10.0 - r * 0.37 + int(item[1:]) % 7 / 100, 3)
                row = {query_name: q, item_name: item, score_name: score}
                if model_name is not None:
                    row[model_name] = f"m{m}"
                if with_rank:
                    row["rank"] = r
                if with_label:
                    row["label"] = (int(item[1:]) + qi) % 3
                if item_decoy is not None:
                    row[item_decoy] = f"c{int(item[1:]) % 3}"
                rows.append(row | attrs)
    frame = pd.DataFrame(rows)
    order = draw(st.sampled_from(["query", "model", "shuffled"]))
    if order == "model" and model_name is not None:
        frame = frame.sort_values([model_name, query_name], kind="stable")
    elif order == "shuffled":
        frame = frame.sample(frac=1.0, random_state=draw(st.integers(0, 2**16)))
    columns = draw(st.permutations(list(frame.columns)))
    return RoleTable(
        frame[columns].reset_index(drop=True), query_name, item_name, model_name, tuple(decoys)
    )
