"""Hypothesis strategies for ranking collections with ties, graded/negative labels and short
lists."""

from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

# ids chosen so that byte order differs from numeric order and case matters
ITEM_IDS = ["d1", "d10", "d2", "D3", "d3", "a", "b", "zz", "é", "d-4", "9", "10", "x_1", "x1"]
QUERY_IDS = ["q1", "q2", "q10", "Q3", "7", "q-5"]
SCORES = [0.0, 0.5, 1.0, 1.0, 2.0, -1.0, 3.25]  # few values: many ties
LABELS = [-2, -1, 0, 0, 1, 2, 3]


@st.composite
def collections(
    draw, max_queries: int = 5, allow_unjudged_queries: bool = True, tie_free: bool = False
):
    """A run and judgments as pandas tables.

    Queries may appear only in the run, only in the judgments, or in both; lists may be shorter
    than any cutoff; some queries have no relevant item; labels include negatives.
    """
    n_q = draw(st.integers(1, max_queries))
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=n_q, max_size=n_q, unique=True))
    run_rows, qrels_rows = [], []
    for q in queries:
        where = draw(
            st.sampled_from(
                ["both", "both", "both", "run", "qrels"] if allow_unjudged_queries else ["both"]
            )
        )
        if where in ("both", "run"):
            items = draw(
                st.lists(st.sampled_from(ITEM_IDS), min_size=1, max_size=len(ITEM_IDS), unique=True)
            )
            if tie_free:
                scores = draw(
                    st.lists(
                        st.integers(0, 10_000),
                        min_size=len(items),
                        max_size=len(items),
                        unique=True,
                    )
                )
                scores = [s / 100 for s in scores]
            else:
                scores = draw(
                    st.lists(st.sampled_from(SCORES), min_size=len(items), max_size=len(items))
                )
            run_rows += [(q, i, float(s)) for i, s in zip(items, scores)]
        if where in ("both", "qrels"):
            judged = draw(
                st.lists(st.sampled_from(ITEM_IDS), min_size=1, max_size=len(ITEM_IDS), unique=True)
            )
            labels = draw(
                st.lists(st.sampled_from(LABELS), min_size=len(judged), max_size=len(judged))
            )
            qrels_rows += [(q, i, int(l)) for i, l in zip(judged, labels)]
    if not run_rows:
        run_rows.append((queries[0], ITEM_IDS[0], 1.0))
    order = draw(st.permutations(range(len(run_rows))))
    run = pd.DataFrame([run_rows[i] for i in order], columns=["query", "item", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query", "item", "relevance"])
    if qrels.empty:
        qrels = pd.DataFrame({"query": [queries[0]], "item": ["unseen"], "relevance": [1]})
    return run, qrels


def to_dicts(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[dict, dict]:
    """The pytrec_eval / ranx dictionary layout."""
    run_d: dict = {}
    for q, i, s in run[["query", "item", "score"]].itertuples(index=False):
        run_d.setdefault(str(q), {})[str(i)] = float(s)
    qrels_d: dict = {}
    for q, i, r in qrels[["query", "item", "relevance"]].itertuples(index=False):
        qrels_d.setdefault(str(q), {})[str(i)] = int(r)
    return run_d, qrels_d
