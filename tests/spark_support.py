"""Shared pieces of the Spark tests: the session fixture's guard and generated collections.

pyspark is an optional dependency (``requirements-spark.txt``). Without it the Spark tests are
skipped on a developer machine, and fail under CI (``CI`` set), so that a CI job that lost the
dependency cannot pass silently.
"""

from __future__ import annotations

import os
import random

import pandas as pd
import pytest

from metrics.engine.registry import MEASURES, parse_measure
from metrics.engine.settings import POLICIES, Settings
from metrics.errors import MeasureError

ITEM_IDS = ["d1", "d10", "d2", "D3", "d3", "a", "b", "zz", "é", "d-4", "9", "10", "x_1", "x1"]
SCORES = [0.0, 0.5, 1.0, 1.0, 2.0, -1.0, 3.25, 1.00000001]  # ties, and a float32 tie
LABELS = [-2, -1, 0, 0, 1, 2, 3]


def require_pyspark() -> None:
    """Skip without pyspark, or fail when running under CI."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("pyspark is not installed: pip install -r requirements-spark.txt")
        pytest.skip("pyspark is not installed (pip install -r requirements-spark.txt)")


def generated_collection(seed: int, n_queries: int = 40, models: int = 3):
    """A run with several models and judgments, with what makes measures disagree: tied
    scores, lists shorter than the cutoffs, repeated items, queries only in the run or only in
    the judgments, queries absent from one model, queries without relevant items, graded and
    negative labels. Returns ``(run, qrels, queries)`` pandas tables."""
    rnd = random.Random(seed)
    run_rows, qrels_rows, meta = [], [], []
    query_ids = [f"q{i}" for i in range(n_queries)] + ["7", "Q3", "q-5"]
    for q in query_ids:
        where = rnd.choice(["both"] * 6 + ["run", "qrels"])
        meta.append((q, rnd.choice(["head", "tail"]), rnd.choice(["a", "b", "c"])))
        if where in ("both", "qrels"):
            for item in rnd.sample(ITEM_IDS, rnd.randint(0, 8)):
                qrels_rows.append((q, item, float(rnd.choice(LABELS))))
            if not any(r[0] == q for r in qrels_rows):
                qrels_rows.append((q, "zz", 0.0))
        if where in ("both", "run"):
            for m in range(models):
                if rnd.random() < 0.15:
                    continue  # this model did not answer the query
                items = rnd.sample(ITEM_IDS, rnd.randint(1, 12))
                if rnd.random() < 0.2:
                    items.append(items[0])  # a repeated item
                for rank, item in enumerate(items, start=1):
                    run_rows.append((f"m{m}", q, item, rnd.choice(SCORES), rank))
    rnd.shuffle(run_rows)
    run = pd.DataFrame(run_rows, columns=["model", "query", "item", "score", "rank"])
    qrels = pd.DataFrame(qrels_rows, columns=["query", "item", "relevance"])
    queries = pd.DataFrame(meta, columns=["query", "traffic", "topic"])
    return run, qrels, queries


def all_measure_names() -> list[str]:
    """Every registry measure at a few cutoffs (and without one where it may), every choice of
    its parameters that needs no further value: new measures are covered automatically."""
    names: list[str] = []
    for d in MEASURES.values():
        variants = [""]
        for param in getattr(d, "params", ()):
            variants += [f"({param.name}={c})" for c in param.choices if c != param.default]
        cutoffs = {"required": [1, 3, 10], "optional": [None, 5], "none": [None]}[d.cutoff]
        for variant in variants:
            for k in cutoffs:
                text = d.name + variant + ("" if k is None else f"@{k}")
                try:
                    names.append(parse_measure(text).name)
                except MeasureError:
                    continue  # a choice that needs another parameter (user weights)
    return list(dict.fromkeys(names))


def policy_settings() -> list[Settings]:
    """The defaults, then every value of every policy in :data:`POLICIES` changed alone (two
    relevance levels; weighted averaging with a weight column)."""
    out = [Settings()]
    #: the policies typed in rather than chosen (no list of values): one value each
    typed_in = {
        "max_results": [3],
        "gain_map": ["0:0,1:1,2:3,3:7"],
        "score_order_by_model": [(("m1", "ascending"),)],
    }
    for name, policy in POLICIES.items():
        values = [2, 0] if name == "relevance_level" else list(policy.values)
        values = typed_in.get(name, values)
        for value in values:
            if value == getattr(Settings(), name):
                continue
            if name == "duplicates" and value == "error":
                continue  # refused input: tested on its own
            extra = {"weight_column": "w"} if value == "weighted" else {}
            out.append(Settings().with_(**{name: value}, **extra))
    return out
