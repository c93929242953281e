"""Generate the bundled sample data sets (deterministic: same bytes on every run).

Usage::

    python -m sample_data.generate            # writes next to this file
    python -m sample_data.generate OUT_DIR    # writes elsewhere

Only numpy is used; text is formatted explicitly so that the output does not depend on the
versions of other libraries.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SEED = 20240611


def _write(path: Path, header: str | None, columns: list[np.ndarray], sep: str = ",") -> None:
    """Write columns of strings as lines, with ``\\n`` line ends and UTF-8."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = columns[0].astype(object)
    for col in columns[1:]:
        rows = rows + sep + col.astype(object)
    text = "\n".join(rows.tolist()) + "\n"
    if header is not None:
        text = header + "\n" + text
    path.write_bytes(text.encode("utf-8"))


def _fmt(values: np.ndarray, decimals: int) -> np.ndarray:
    """Fixed-point text; ``-0.00`` is written as ``0.00``."""
    rounded = np.round(values.astype(np.float64), decimals) + 0.0
    return np.array([f"{v:.{decimals}f}" for v in rounded.tolist()], dtype=object)


def _ids(prefix: str, numbers: np.ndarray, width: int) -> np.ndarray:
    return np.array([f"{prefix}{n:0{width}d}" for n in numbers.tolist()], dtype=object)


# --------------------------------------------------------------------------- web search

WEB_MODELS = ("lexical", "dense", "hybrid")
QUERY_TYPES = ("navigational", "informational", "transactional")
TRAFFIC = ("head", "torso", "tail")
#: Noise of each model's score by query type (rows) ...
_NOISE_BY_TYPE = {"lexical": (0.2, 2.0, 1.2), "dense": (2.5, 0.9, 1.0)}
#: ... times a factor by traffic band.
_NOISE_BY_TRAFFIC = {"lexical": (0.8, 1.0, 1.5), "dense": (1.0, 1.0, 1.0)}
# Share of each grade 3, 2, 1 among a query's 150 candidates, by query type.
_GRADE_SHARES = ((0.0, 0.013, 0.027), (0.03, 0.07, 0.13), (0.02, 0.06, 0.12))


def _untied(scores: np.ndarray, order: np.ndarray, decimals: int) -> np.ndarray:
    """``scores`` (one row per query) with the ranked ones (``order``: best first, ties by doc
    id descending) made strictly decreasing: an equal score goes down by one unit of the last
    decimal (and the scores below it, where that meets them), so that the ranking is the one
    the tie-break gave and no two results of a list share a score."""
    unit = 10.0 ** -decimals
    steps = np.round(np.take_along_axis(scores, order, axis=1) / unit)
    for j in range(1, steps.shape[1]):
        steps[:, j] = np.minimum(steps[:, j], steps[:, j - 1] - 1)
    out = scores.copy()
    np.put_along_axis(out, order, steps * unit, axis=1)
    return out


def web_search(rng: np.random.Generator, n_queries: int = 300, pool: int = 150,
               depth: int = 50, judged_depth: int = 20, *, pitfalls: bool = False,
               name: str = "web_search", models: tuple[str, ...] = WEB_MODELS,
               trec: bool = True) -> dict[str, tuple]:
    """Three models over graded web-search judgments; returns file name -> (header, columns).

    By default the data has none of the pitfalls the data checks warn about, for a demo: no
    tied scores, every query has a relevant document, and the judgments are the pooled top
    ``judged_depth`` of each model (no relevant document that no model retrieved). With
    ``pitfalls`` (the teaching sample) the pitfalls of real data are kept: scores rounded into
    ties, a few queries with nothing relevant, relevant documents that every model missed,
    judged outside the pool, and lists cut short.
    """
    qtype = rng.choice(3, size=n_queries, p=[0.25, 0.45, 0.30])
    traffic = rng.choice(3, size=n_queries, p=[0.2, 0.3, 0.5])
    qids = np.arange(1, n_queries + 1).astype(str).astype(object)   # TREC-style numeric ids
    grades = np.zeros((n_queries, pool), dtype=np.int64)
    u = rng.random((n_queries, pool))
    shares = np.array(_GRADE_SHARES)[qtype]            # (n, 3) for grades 3, 2, 1
    cut3 = shares[:, [0]]
    cut2 = cut3 + shares[:, [1]]
    cut1 = cut2 + shares[:, [2]]
    grades[u < cut1] = 1
    grades[u < cut2] = 2
    grades[u < cut3] = 3
    grades[qtype == 0, 0] = 3                           # every navigational query has its target
    empty = rng.choice(np.flatnonzero(qtype == 1), size=4, replace=False)
    if pitfalls:
        grades[empty] = 0                               # a few queries with nothing relevant
    hidden = (grades > 0) & (rng.random((n_queries, pool)) < 0.08)  # missed by every model
    hidden[:, 0] &= qtype != 0
    signal = grades.astype(np.float64) - 4.0 * hidden
    shared = rng.normal(0.0, 0.3, (n_queries, pool))    # difficulty common to all models
    noisy = {}
    for model in ("lexical", "dense"):
        sigma = np.array(_NOISE_BY_TYPE[model])[qtype] * np.array(_NOISE_BY_TRAFFIC[model])[traffic]
        noisy[model] = signal + shared + rng.normal(0.0, 1.0, (n_queries, pool)) * sigma[:, None]
    z = {m: (v - v.mean(axis=1, keepdims=True)) / v.std(axis=1, keepdims=True)
         for m, v in noisy.items()}
    raw = {
        "lexical": np.maximum(0.0, 10.0 + 3.0 * noisy["lexical"]),
        "dense": np.clip(0.5 + 0.1 * noisy["dense"], -1.0, 1.0),
        "hybrid": 0.5 + 0.2 * (0.4 * z["lexical"] + 0.6 * z["dense"]),
    }
    decimals = {"lexical": 2, "dense": 3, "hybrid": 3}
    # each query's candidates: distinct documents of a 9,999-document collection, in an order
    # that carries no hint of relevance
    docs = np.argsort(rng.random((n_queries, 9999)), axis=1)[:, :pool] + 1
    run_cols: list[list[np.ndarray]] = [[], [], [], []]
    trec_cols: dict[str, list[np.ndarray]] = {}
    judged = np.zeros((n_queries, pool), dtype=bool)
    # the teaching sample's short lists: about one query in six returns 5 to depth - 1 results
    lengths = np.full(n_queries, depth)
    if pitfalls:
        short = rng.random(n_queries) < 0.17
        lengths[short] = rng.integers(5, depth, int(short.sum()))
    for model in models:
        scores = np.round(raw[model], decimals[model])
        # rank by score descending, ties by doc id descending (the trec_eval order)
        order = np.lexsort((-docs, -scores), axis=1)[:, :depth]
        if not pitfalls:
            scores = _untied(scores, order, decimals[model])
        top_scores = np.take_along_axis(scores, order, axis=1)
        top_docs = np.take_along_axis(docs, order, axis=1)
        judged[np.arange(n_queries)[:, None], order[:, :judged_depth]] = True
        keep = (np.arange(depth)[None, :] < lengths[:, None]).ravel()
        q = np.repeat(qids, depth)[keep]
        d = _ids("d", top_docs.ravel()[keep], 4)
        s = _fmt(top_scores.ravel()[keep], decimals[model])
        run_cols[0].append(q)
        run_cols[1].append(d)
        run_cols[2].append(s)
        run_cols[3].append(np.full(q.shape, model, dtype=object))
        ranks = np.tile(np.arange(1, depth + 1), n_queries)[keep].astype(str).astype(object)
        trec_cols[model] = [q, np.full(q.shape, "Q0", dtype=object), d, ranks, s,
                            np.full(q.shape, model, dtype=object)]
    if pitfalls:
        judged |= grades > 0                            # also what no model retrieved
    qi, pi = np.nonzero(judged)
    qrels = [qids[qi], _ids("d", docs[qi, pi], 4), grades[qi, pi].astype(str).astype(object)]
    files: dict[str, tuple] = {
        f"{name}/run.csv": ("query,item,score,model", [np.concatenate(c) for c in run_cols]),
        f"{name}/qrels.csv": ("query,item,relevance", qrels),
        f"{name}/queries.csv": ("query,query_type,traffic", [
            qids, np.array(QUERY_TYPES, dtype=object)[qtype],
            np.array(TRAFFIC, dtype=object)[traffic]]),
    }
    if trec:
        files[f"{name}/trec/{name}.qrels"] = (
            None, [qrels[0], np.full(len(qi), "0", dtype=object), qrels[1], qrels[2]], " ")
        for model, cols in trec_cols.items():
            files[f"{name}/trec/{model}.run"] = (None, cols, " ")
    return files


# --------------------------------------------------------------------------- recommendations


def recommendations(rng: np.random.Generator, n_users: int = 2000, n_items: int = 2000,
                    size: int = 20) -> dict[str, tuple]:
    """Binary clicks, two models, inline labels and segments; one file per model."""
    tenure = rng.choice(2, size=n_users, p=[0.45, 0.55])        # new, returning
    activity = rng.choice(2, size=n_users, p=[0.6, 0.4])        # light, heavy
    lengths = np.where(rng.random(n_users) < 0.25, rng.integers(5, size, n_users), size)
    total = int(lengths.sum())
    user_idx = np.repeat(np.arange(n_users), lengths)
    # distinct candidates per user: a random offset walk through the catalogue
    steps = rng.integers(1, 40, total)
    starts = rng.integers(0, n_items, n_users)
    first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    walk = np.cumsum(steps)
    walk = walk - np.repeat(walk[first] - steps[first], lengths)
    items = (np.repeat(starts, lengths) + walk) % n_items + 1
    affinity = rng.normal(0.0, 1.0, total)
    base = np.where(activity == 1, -2.2, -2.9) + np.where(tenure == 0, -0.3, 0.0)
    p_click = 1.0 / (1.0 + np.exp(-(base[user_idx] + 1.6 * affinity)))
    clicks = (rng.random(total) < p_click).astype(np.int64)
    noise_b = rng.normal(0.0, 1.0, total) * 1.1
    noise_c = rng.normal(0.0, 1.0, total) * np.where(tenure[user_idx] == 0, 1.05, 0.55)
    scores = {"baseline": 1.0 / (1.0 + np.exp(-(0.9 * affinity + noise_b))),
              "candidate": 1.0 / (1.0 + np.exp(-(1.0 * affinity + noise_c)))}
    users = np.array([f"u{n}" for n in range(1, n_users + 1)], dtype=object)[user_idx]
    item_ids = np.array([f"i{n}" for n in items.tolist()], dtype=object)
    tenure_s = np.array(("new", "returning"), dtype=object)[tenure][user_idx]
    activity_s = np.array(("light", "heavy"), dtype=object)[activity][user_idx]
    files = {}
    for model, s in scores.items():
        files[f"recommendations/{model}.csv"] = (
            "user_id,item_id,score,clicked,tenure,activity",
            [users, item_ids, _fmt(s, 3), clicks.astype(str).astype(object), tenure_s,
             activity_s])
    return files


# --------------------------------------------------------------------------- teaching


def teaching() -> dict[str, tuple]:
    """The worked examples of the metric notes, as named lists with inline labels.

    - ``precision_recall``: relevant at ranks 1, 3, 4 and 7 of 10 retrieved, ten relevant in
      all (six judged but not retrieved: rows without a rank): P@5 = 0.6, P@10 = 0.4,
      R@5 = 0.3.
    - ``mrr_first_at_2``, ``mrr_first_at_1``, ``mrr_first_at_4``: MRR = (1/2 + 1 + 1/4) / 3.
    - ``ndcg_graded``: grades 3, 2, 0, 1: nDCG@4 = 4.693 / 4.762 = 0.985.
    """
    rows: list[tuple[str, str, str, str]] = []
    relevant = {1, 3, 4, 7}
    for r in range(1, 11):
        rows.append(("precision_recall", f"doc{r:02d}", str(r), "1" if r in relevant else "0"))
    for j in range(11, 17):
        rows.append(("precision_recall", f"doc{j:02d}", "", "1"))
    for name, first in (("mrr_first_at_2", 2), ("mrr_first_at_1", 1), ("mrr_first_at_4", 4)):
        for r in range(1, 6):
            rows.append((name, f"doc{r:02d}", str(r), "1" if r == first else "0"))
    for r, grade in enumerate((3, 2, 0, 1), start=1):
        rows.append(("ndcg_graded", f"doc{r:02d}", str(r), str(grade)))
    cols = [np.array(c, dtype=object) for c in zip(*rows)]
    return {"teaching/teaching.csv": ("query,item,rank,label", cols)}


# --------------------------------------------------------------------------- RAG evidence

RAG_RETRIEVERS = ("bm25", "embedding")
QUESTION_TYPES = ("factoid", "how_to", "comparison")
#: The LLM judge's provenance, as its file gives it (the prompt is recorded as its hash).
JUDGE_MODEL = "judge-8b"
JUDGE_PROMPT = ("Given a question and a passage retrieved for it, grade how well the passage "
                "answers the question: 0 = unrelated, 1 = related but does not answer, "
                "2 = partly answers, 3 = answers it. Reply with the grade only.")


def rag_evidence(rng: np.random.Generator, n_questions: int = 50, pool: int = 40,
                 depth: int = 10, human_depth: int = 7) -> dict[str, tuple]:
    """Evidence ranking for retrieval-augmented generation: questions, the chunks two
    retrievers put in their top ``depth``, graded 0-3 by annotators (the pool of each
    retriever's top ``human_depth``) and by an LLM judge (every chunk retrieved).

    Each question has ``pool`` candidate chunks with a true grade; the embedding retriever's
    scores follow it more closely than BM25's. The annotators give the true grade but for a slip
    of one grade now and then; the judge is lenient (it often grades one higher) and misses a
    grade more often, so the two agree only moderately while both order the retrievers alike.
    """
    import hashlib

    grades = rng.choice(4, size=(n_questions, pool), p=[0.52, 0.24, 0.15, 0.09])
    kinds = rng.choice(len(QUESTION_TYPES), size=n_questions, p=[0.45, 0.35, 0.2])
    docs = rng.integers(100, 1000, size=(n_questions, pool))
    parts = rng.integers(1, 9, size=(n_questions, pool))
    chunk = np.array([[f"d{d}#{c}" for d, c in zip(dr, cr)]
                      for dr, cr in zip(docs.tolist(), parts.tolist())], dtype=object)
    # a chunk id that repeats within a question is made distinct by its position
    for q in range(n_questions):
        seen: dict[str, int] = {}
        for j in range(pool):
            name = chunk[q, j]
            if name in seen:
                chunk[q, j] = f"{name}.{j}"
            seen[name] = j
    noise = {"bm25": 1.5, "embedding": 0.8}
    scale = {"bm25": (6.0, 1.8), "embedding": (0.45, 0.06)}
    questions = _ids("q", np.arange(1, n_questions + 1), 3)
    retrieved = np.zeros((n_questions, pool), dtype=bool)
    human_pool = np.zeros((n_questions, pool), dtype=bool)
    files: dict[str, tuple] = {}
    for model in RAG_RETRIEVERS:
        raw = grades + rng.normal(0.0, noise[model], size=grades.shape)
        order = np.argsort(-raw, axis=1, kind="stable")[:, :depth]
        retrieved[np.arange(n_questions)[:, None], order] = True
        human_pool[np.arange(n_questions)[:, None], order[:, :human_depth]] = True
        top = np.take_along_axis(raw, order, axis=1)
        offset, unit = scale[model]
        score = offset + unit * top
        decimals = 2 if model == "bm25" else 4
        # strictly decreasing within a list, at the decimals written
        step = 10.0 ** -decimals
        score = np.round(score, decimals)
        for j in range(1, depth):
            score[:, j] = np.minimum(score[:, j], score[:, j - 1] - step)
        q_col = np.repeat(questions, depth)
        c_col = chunk[np.arange(n_questions)[:, None], order].reshape(-1)
        files[f"rag_evidence/{model}.csv"] = (
            "question_id,chunk_id,score", [q_col, c_col, _fmt(score.reshape(-1), decimals)])
    slip = rng.random(grades.shape)
    human = np.clip(grades + np.where(slip < 0.06, -1, np.where(slip > 0.94, 1, 0)), 0, 3)
    draw = rng.random(grades.shape)
    lenient = np.where(draw < 0.30, 1, np.where(draw < 0.42, -1, np.where(draw < 0.47, 2, 0)))
    judge = np.clip(grades + lenient, 0, 3)
    q_idx, c_idx = np.nonzero(human_pool)
    n = len(q_idx)
    files["rag_evidence/annotators.csv"] = (
        "question_id,chunk_id,label,kind",
        [questions[q_idx], chunk[q_idx, c_idx], human[q_idx, c_idx].astype(str).astype(object),
         np.full(n, "human", dtype=object)])
    q_idx, c_idx = np.nonzero(retrieved)
    n = len(q_idx)
    digest = hashlib.sha256(JUDGE_PROMPT.encode("utf-8")).hexdigest()[:12]
    files["rag_evidence/llm_judge.csv"] = (
        "question_id,chunk_id,label,judge_model,prompt_hash,scale,date",
        [questions[q_idx], chunk[q_idx, c_idx], judge[q_idx, c_idx].astype(str).astype(object),
         np.full(n, JUDGE_MODEL, dtype=object), np.full(n, digest, dtype=object),
         np.full(n, "0-3", dtype=object), np.full(n, "2024-06-11", dtype=object)])
    files["rag_evidence/questions.csv"] = (
        "question_id,question_type",
        [questions, np.array(QUESTION_TYPES, dtype=object)[kinds]])
    return files


# --------------------------------------------------------------------------- click labels

CLICK_RANKERS = ("production", "candidate")
#: The chance a user looks at rank r (position bias, 1/r) and clicks an item of grade g once
#: looked at; any shown item is clicked by mistake now and then.
_CLICK_OF_GRADE = (0.05, 0.25, 0.6, 0.85)
_STRAY_CLICK = 0.04


def click_labels(rng: np.random.Generator, n_queries: int = 20, pool: int = 25,
                 depth: int = 10, sessions: int = 6) -> dict[str, tuple]:
    """Annotators' grades and logged clicks for two rankers' top ``depth``.

    Each query has ``pool`` items with a grade 0-3, which the annotators give. The candidate
    ranker follows the grade more closely than the production one, but the clicks were logged
    while production served: in each of ``sessions`` sessions a user looks at rank r with
    chance 1/r and clicks a looked-at item of grade g with chance ``_CLICK_OF_GRADE[g]``, or
    any shown item by mistake with chance ``_STRAY_CLICK``. An item production did not show
    has no click. One row per item either ranker returned: its grade, ``clicks`` (the sessions
    with a click on it) and its rank in each ranker's list (empty: not returned).
    """
    grades = rng.choice(4, size=(n_queries, pool), p=[0.45, 0.25, 0.18, 0.12])
    noise = {"production": 1.6, "candidate": 0.6}
    orders = {}
    for model in CLICK_RANKERS:
        raw = grades + rng.normal(0.0, noise[model], size=grades.shape)
        orders[model] = np.argsort(-raw, axis=1, kind="stable")[:, :depth]
    clicks = np.zeros((n_queries, pool), dtype=np.int64)
    seen = 1.0 / np.arange(1, depth + 1)
    for q in range(n_queries):
        shown = orders["production"][q]
        liked = np.array(_CLICK_OF_GRADE)[grades[q, shown]]
        for _ in range(sessions):
            looked = rng.random(depth) < seen
            hit = (looked & (rng.random(depth) < liked)) | (rng.random(depth) < _STRAY_CLICK)
            clicks[q, shown] += hit
    queries = _ids("q", np.arange(1, n_queries + 1), 2)
    ranks = {}
    for model in CLICK_RANKERS:
        ranks[model] = np.zeros((n_queries, pool), dtype=np.int64)
        np.put_along_axis(ranks[model], orders[model], np.arange(1, depth + 1)[None, :], axis=1)
    cols: list[list[str]] = [[], [], [], [], [], []]
    for q in range(n_queries):
        for j in np.flatnonzero(ranks["production"][q] + ranks["candidate"][q]):
            row = (queries[q], f"i{j + 1:02d}", grades[q, j], clicks[q, j],
                   *(ranks[m][q, j] or "" for m in CLICK_RANKERS))
            for col, v in zip(cols, row):
                col.append(str(v))
    header = "query,item,grade,clicks," + ",".join(CLICK_RANKERS)
    return {"click_labels/clicks.csv": (header, [np.array(c, dtype=object) for c in cols])}


def generate(out_dir: str | Path) -> list[Path]:
    """Write every sample under ``out_dir``; returns the paths written, sorted."""
    out = Path(out_dir)
    rng = np.random.default_rng(SEED)
    files = {**web_search(rng), **recommendations(rng), **teaching()}
    # drawn after the others, so that their bytes do not depend on it
    files.update(web_search(rng, n_queries=40, pool=60, depth=20, judged_depth=5,
                            pitfalls=True, name="web_search_pitfalls",
                            models=("lexical", "dense"), trec=False))
    files.update(rag_evidence(np.random.default_rng(SEED + 36)))  # its own stream
    files.update(click_labels(np.random.default_rng(SEED + 37)))  # its own stream
    written = []
    for rel, spec in sorted(files.items()):
        header, columns = spec[0], spec[1]
        sep = spec[2] if len(spec) > 2 else ","
        _write(out / rel, header, columns, sep)
        written.append(out / rel)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for path in generate(target):
        print(path)
