"""Generated review exports for the decision tests: a click log whose candidate collapses in one
small country, and a three-model export with two segment columns (a loss on one device for one
candidate, a large gain for one user group for the other). Made here from a seeded generator;
every number follows from the positions chosen below."""

from __future__ import annotations

import numpy as np
import pandas as pd

LIST_LENGTH = 10


def _rows(query: str, model: str, relevant_at: list[int], extra: dict[str, str]) -> list[dict]:
    """One ranked list of ten items of ``query``: its clicked items ``r0``, ``r1`` at the
    positions ``relevant_at`` (1-based), the others ``n0`` ... in order elsewhere."""
    relevant = iter(f"{query}-r{i}" for i in range(len(relevant_at)))
    other = iter(f"{query}-n{i}" for i in range(LIST_LENGTH))
    rows = []
    for position in range(1, LIST_LENGTH + 1):
        clicked = position in relevant_at
        rows.append(
            {"query": query, "item": next(relevant) if clicked else next(other),
             "score": float(LIST_LENGTH - position), "label": int(clicked), "model": model,
             **extra}
        )  # fmt: skip
    return rows


def _moved(base: list[int], step: int) -> list[int]:
    """The relevant positions with the lowest one moved ``step`` places up (down if negative)."""
    out = sorted(base)
    low = out[-1]
    target = min(LIST_LENGTH, max(1, low - step))
    while target in out[:-1]:
        target += 1 if step < 0 else -1
    out[-1] = min(LIST_LENGTH, max(1, target))
    return sorted(set(out))


def collapsed_segment_log(seed: int = 7) -> pd.DataFrame:
    """50 sessions, ``v1`` against ``v2``; ``country`` JP (10 sessions) loses about 0.3 nDCG@10
    on 8 of them, the 40 others gain a little."""
    rng = np.random.default_rng(seed)
    rows: list[dict] = []
    countries = ["JP"] * 10 + ["US"] * 16 + ["DE"] * 12 + ["FR"] * 12
    for i, country in enumerate(countries):
        query = f"s{i:02d}"
        base = sorted(rng.choice(np.arange(1, 7), size=2, replace=False).tolist())
        if country == "JP":
            cand = [9, 10] if i < 8 else base
            base = [2, 4] if i < 8 else base
        else:
            cand = [1, base[-1]] if rng.random() < 0.7 else base
        rows += _rows(query, "v1", base, {"country": country})
        rows += _rows(query, "v2", cand, {"country": country})
    return pd.DataFrame(rows)


def two_columns_log(seed: int = 11) -> pd.DataFrame:
    """160 queries, ``base`` against ``cand_a`` and ``cand_b``; ``device`` and ``user_tenure``.
    ``cand_a`` gains a little everywhere and much for new users; ``cand_b`` gains everywhere but
    loses on tablets."""
    rng = np.random.default_rng(seed)
    rows: list[dict] = []
    for i in range(160):
        query = f"q{i:03d}"
        device = ["desktop", "phone", "desktop", "phone"][i % 4] if i % 8 else "tablet"
        tenure = "new" if i % 5 == 0 else "returning"
        extra = {"device": device, "user_tenure": tenure}
        base = sorted(rng.choice(np.arange(3, 9), size=2, replace=False).tolist())
        if tenure == "new":
            a = [1, 3]
        else:
            a = _moved(base, int(rng.choice([2, 1, 1, 0, -1])))
        if device == "tablet":
            b = [8, 10]
        else:
            b = _moved(base, int(rng.choice([3, 2, 2, 1, 0])))
        rows += _rows(query, "base", base, extra)
        rows += _rows(query, "cand_a", a, extra)
        rows += _rows(query, "cand_b", b, extra)
    return pd.DataFrame(rows)
