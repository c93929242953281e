"""How fast the app draws curves for a 1M-row upload, in a real Chromium (not a timed test).

Run with ``python -m benchmarks.app_speed``. It writes a 1,000,000-row CSV run (10,000 queries x
100 results, two models) and its judgments to a temporary directory, starts the app, uploads both
files on the Data page, and measures

* upload to curves: from choosing the run file (the judgments were uploaded just before) until
  the Curves page shows its cutoff table and has drawn five charts (the four curves and the
  distribution), as ``sessions`` measures it;
* settings change: from raising the relevance level until the charts are drawn again.

Targets: 2.5 s and 1 s. The machine's load average is printed next to each figure.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # also runnable as a script: python benchmarks/app_speed.py

from tests.browser.support import (  # noqa: E402 (needs ROOT on sys.path)
    CHROMIUM,
    LAUNCH_ARGS,
    go_to,
    open_select,
    streamlit_server,
    wait_for_app,
    wait_for_chart_titles,
    wait_for_charts,
)


def write_files(
    directory: Path, n_queries: int = 5_000, depth: int = 100, seed: int = 3
) -> tuple[Path, Path]:
    """A CSV run of ``2 * n_queries * depth`` rows (models a and b) and CSV judgments."""
    rng = np.random.default_rng(seed)
    rows = n_queries * depth
    query = np.repeat(np.arange(1, n_queries + 1), depth).astype(str)
    item = ("d" + pd.Series(rng.integers(0, 10**7, rows)).astype(str)).to_numpy()
    frames = []
    for model in ("a", "b"):
        frames.append(
            pd.DataFrame(
                {
                    "query": query,
                    "item": item,
                    "score": np.round(rng.random(rows) * 30, 6),
                    "model": model,
                }
            )
        )
    run = pd.concat(frames, ignore_index=True)
    judged = rng.random(rows) < 0.4
    qrels = pd.DataFrame(
        {
            "query": query[judged],
            "item": item[judged],
            "relevance": rng.integers(0, 4, judged.sum()),
        }
    )
    qrels = qrels.drop_duplicates(["query", "item"])
    run = run.drop_duplicates(["model", "query", "item"])
    run_path, qrels_path = directory / "run_1m.csv", directory / "qrels_1m.csv"
    run.to_csv(run_path, index=False)
    qrels.to_csv(qrels_path, index=False)
    return run_path, qrels_path


def _count_rows(path: Path) -> int:
    """Lines of a CSV file after its header."""
    with path.open() as lines:
        return sum(1 for _ in lines) - 1


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = write_files(Path(tmp))
        n_rows, n_judgments = _count_rows(run_path), _count_rows(qrels_path)
        print(
            f"run: {n_rows:,} rows ({run_path.stat().st_size / 1e6:.0f} MB), "
            f"judgments: {n_judgments:,} rows"
        )
        with streamlit_server() as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            wait_for_app(page, "Data health")
            page.get_by_text("Upload files", exact=True).click()
            wait_for_app(page, "Upload at least one run file")
            inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
            inputs.nth(1).set_input_files(str(qrels_path))
            wait_for_app(page)  # the judgments first, as sessions does
            start = time.perf_counter()
            inputs.nth(0).set_input_files(str(run_path))
            page.locator('[data-testid="stSidebar"] [data-testid="stText"]').filter(
                has_text="run_1m.csv"
            ).wait_for(timeout=300_000)
            loaded = time.perf_counter() - start
            go_to(page, "Curves")
            page.get_by_text("Values at standard cutoffs").first.wait_for(timeout=300_000)
            wait_for_charts(page, 5, timeout=300_000)
            drawn = time.perf_counter() - start
            print(f"upload until loaded (sidebar shows the data): {loaded:.2f} s{_load()}")
            print(f"upload until curves drawn: {drawn:.2f} s (target 2.5 s){_load()}", flush=True)
            wait_for_chart_titles(page, "label ≥ 1", 4)
            wait_for_app(page)
            option = open_select(
                page, "Fewer than K results", "divide by the number returned, min(K, n)"
            )
            start = time.perf_counter()
            option.click()
            wait_for_chart_titles(page, "divide by the number returned", 4)
            policy = time.perf_counter() - start
            wait_for_app(page)
            start = time.perf_counter()
            page.locator('[data-testid="stSidebar"] [data-testid="stNumberInput"]').filter(
                has_text="Relevance level"
            ).locator('[data-testid="stNumberInputStepUp"]').click()  # relevance level 1 -> 2
            wait_for_chart_titles(page, "label ≥ 2", 4)
            redraw = time.perf_counter() - start
            browser.close()
    print(
        f"settings change (fewer-than-K policy, lists reused) until redrawn: {policy:.2f} s "
        f"(target 1 s){_load()}"
    )
    print(
        f"settings change (relevance level, lists rescored) until redrawn: {redraw:.2f} s "
        f"(target 1 s){_load()}"
    )


def _load() -> str:
    """The machine's load average over the last minute, to read the figure against."""
    return f"; load average {os.getloadavg()[0]:.2f}"


if __name__ == "__main__":
    main()
