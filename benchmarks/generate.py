"""Synthetic TREC run and qrels files for the benchmarks (fixed seed, written with pyarrow).

Each query has ``depth`` results with distinct scores sorted descending (as run files usually
are) and five relevant items that were never retrieved. Query ids are "1".."N", so file order
(numeric) differs from byte order. Two shapes of judgments:

- ``"sparse"`` (the default): 40% of the retrieved items judged, grades 0-3, most of them 0 or 1
  (about 45 judgments per query of 100 results, a third of them relevant);
- ``"judged"``: 50 of the retrieved items judged, most of them relevant (grades 1-3 four times
  in five), 55 judgments per query with the five unretrieved ones.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

DATA = Path(__file__).resolve().parent / "data"


def _write(table: pa.Table, path: Path) -> None:
    pacsv.write_csv(
        table,
        path,
        write_options=pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )


SHAPES = ("sparse", "judged")


def generate(
    n_queries: int, depth: int = 100, seed: int = 7, directory: Path = DATA, shape: str = "sparse"
) -> tuple[Path, Path]:
    """Write ``run_{rows}.txt`` and ``qrels_{rows}.txt`` (``run_judged_{rows}.txt`` ... for the
    ``"judged"`` shape); returns their paths (kept if present)."""
    directory.mkdir(parents=True, exist_ok=True)
    rows = n_queries * depth
    tag = "" if shape == "sparse" else f"{shape}_"
    run_path = directory / f"run_{tag}{rows}.txt"
    qrels_path = directory / f"qrels_{tag}{rows}.txt"
    if run_path.exists() and qrels_path.exists():
        return run_path, qrels_path
    rng = np.random.default_rng(seed)
    qid = pc.cast(pa.array(np.repeat(np.arange(1, n_queries + 1), depth)), pa.string())
    doc_num = np.empty((n_queries, depth), dtype=np.int64)
    for start in range(0, n_queries, 10_000):  # distinct docs per query, in blocks
        block = min(10_000, n_queries - start)
        doc_num[start : start + block] = np.argsort(rng.random((block, 5_000)), axis=1)[:, :depth]
    docs = pc.binary_join_element_wise("d", pc.cast(pa.array(doc_num.ravel()), pa.string()), "")
    scores = np.sort(rng.random((n_queries, depth)), axis=1)[:, ::-1] * 30.0
    ranks = np.tile(np.arange(1, depth + 1), n_queries)
    run = pa.table(
        {
            "q": qid,
            "q0": pa.array(np.full(rows, "Q0")),
            "d": docs,
            "rank": pa.array(ranks),
            "score": pc.round(pa.array(scores.ravel()), 6),
            "tag": pa.array(np.full(rows, "bench")),
        }
    )
    _write(run, run_path)
    if shape == "judged":  # 50 of each query's results judged, four in five relevant
        judged = (np.argsort(rng.random((n_queries, depth)), axis=1) < min(50, depth)).ravel()
        grades = rng.choice([0, 1, 1, 2, 3], size=rows)
    else:
        judged = rng.random(rows) < 0.4
        grades = rng.choice([0, 0, 1, 1, 2, 3], size=rows)
    extra_q = np.repeat(np.arange(1, n_queries + 1), 5)
    extra_d = 5_000 + np.tile(np.arange(5), n_queries)
    q_all = np.concatenate((np.repeat(np.arange(1, n_queries + 1), depth)[judged], extra_q))
    d_all = np.concatenate((doc_num.ravel()[judged], extra_d))
    g_all = np.concatenate((grades[judged], rng.integers(1, 4, len(extra_q))))
    order = np.argsort(q_all, kind="stable")
    qrels = pa.table(
        {
            "q": pc.cast(pa.array(q_all[order]), pa.string()),
            "iter": pa.array(np.zeros(len(order), np.int64)),
            "d": pc.binary_join_element_wise("d", pc.cast(pa.array(d_all[order]), pa.string()), ""),
            "rel": pa.array(g_all[order]),
        }
    )
    _write(qrels, qrels_path)
    return run_path, qrels_path


if __name__ == "__main__":
    for n in (10_000, 100_000):
        print(*generate(n))
