"""A small click log of an A/B review: 50 sessions, two model versions and a ``country`` column.

One table with the columns ``session_id, sku, model_version, pred, clicked, country`` (a click
is the relevance label), as a product team exports it. Made up here, with a story a review must
tell: in Japan the candidate ``v1.5-rc`` pushes the one clicked item of twelve sessions out of
the top 10 and fills two sessions of many clicks with more of them, so that it is clearly worse
there on R@10 and nDCG@10 while P@10 does not move (the lost and the won clicks balance);
elsewhere the two versions differ by chance only.

    python -m benchmarks.click_log OUT.csv [--queries QUERIES.csv] [--seed N]

The benchmarks (``benchmarks.app_walk`` and the compare command's figures) and the review tests
read it; ``--queries`` also writes the query table (``session_id, country``) that ``python -m
metrics compare --queries ... --by country`` takes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

#: Sessions per country; Japan holds the story (12 sessions lost, 2 won).
COUNTRIES = {"DE": 9, "FR": 9, "GB": 9, "US": 9, "JP": 14}
ITEMS = 30
BASELINE, CANDIDATE = "v1.4", "v1.5-rc"


def _scores(order: list[int]) -> dict[int, float]:
    """Scores that rank the items of ``order`` first to last."""
    return {item: round(1.0 - rank / (len(order) + 1), 4) for rank, item in enumerate(order)}


def click_log(seed: int = 7) -> pd.DataFrame:
    """The click log (see the module docstring), deterministic for ``seed``."""
    rng = np.random.default_rng(seed)
    rows = []
    number = 0
    for country, sessions in COUNTRIES.items():
        for i in range(sessions):
            number += 1
            session = f"s{number:03d}"
            items = list(range(ITEMS))
            if country == "JP" and i < 12:
                # one click; the baseline ranks it first, the candidate 12th
                clicked = {0}
                base = items
                cand = [*items[1:12], 0, *items[12:]]
            elif country == "JP":
                # twenty clicks; the candidate brings six more of them into the top 10
                clicked = set(range(10, 30))
                base = [*range(8), 10, 11, 8, 9, *range(12, 30)]
                cand = [*range(10, 18), 0, 1, *range(2, 10), *range(18, 30)]
            else:
                clicked = set(rng.choice(ITEMS, size=3, replace=False).tolist())
                base = list(rng.permutation(ITEMS))
                cand = list(base)
                for _ in range(4):  # a few swaps: the versions differ by chance only
                    a, b = rng.choice(12, size=2, replace=False)
                    cand[a], cand[b] = cand[b], cand[a]
            for version, order in ((BASELINE, base), (CANDIDATE, cand)):
                scores = _scores([int(x) for x in order])
                for item in items:
                    rows.append(
                        {
                            "session_id": session,
                            "sku": f"sku{item:03d}",
                            "model_version": version,
                            "pred": scores[item],
                            "clicked": int(item in clicked),
                            "country": country,
                        }
                    )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the click log (CSV)")
    parser.add_argument("--queries", help="also write the query table (CSV)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    log = click_log(args.seed)
    log.to_csv(args.out, index=False)
    if args.queries:
        log[["session_id", "country"]].drop_duplicates().to_csv(args.queries, index=False)
    print(f"{Path(args.out).name}: {log['session_id'].nunique()} sessions, {len(log):,} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
