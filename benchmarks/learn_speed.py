"""How fast the Learn page redraws after a list change, in a real Chromium (not a timed test).

Run with ``python -m benchmarks.learn_speed [--repeat 20]``. It starts the app, opens Learn
with the worked example (ten items, six relevant items not retrieved), makes it a hand-built
list with one click, then presses the list's "move down" on rank 1 and "move up" on rank 2 in
turn and times each press until the new value of RR@5 is drawn (the whole page: list,
formulas, pitfalls, curve). Prints the median, the fastest, the slowest and the machine's load
average (other work on the machine slows every figure). Target: 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from tests.browser.support import CHROMIUM, LAUNCH_ARGS, streamlit_server, wait_for_app

ROOT = Path(__file__).resolve().parent.parent

WAIT_FOR_CODE = """(text) => [...document.querySelectorAll('[data-testid="stCode"] code')]
    .some(e => e.textContent.replace(/\\s+/g, ' ').includes(text))"""
IDLE = """() => !document.querySelector('[data-testid="stStatusWidget"]')
    || !document.querySelector('[data-testid="stStatusWidget"]').innerText.includes('Running')"""


def press(page, op: str, rank: int, expected: str) -> float:
    """Seconds from the click on the list's button ``op`` of rank ``rank`` until ``expected``
    is in a code block."""
    button = page.locator(f'.st-key-list_learn button[data-op="{op}"][data-index="{rank}"]')
    button.wait_for()
    start = time.perf_counter()
    button.click()
    page.wait_for_function(WAIT_FOR_CODE, arg=expected, timeout=30_000, polling="raf")
    elapsed = time.perf_counter() - start
    page.wait_for_function(IDLE, timeout=30_000)
    page.wait_for_timeout(200)
    return elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="presses to time (default 20)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()[0]

    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        page.goto(f"{url}/Learn")
        wait_for_app(page, "P@5 = 3/5")
        press(page, "down", 1, "RR@5 = 1/2")  # becomes a hand-built list (warm-up)
        press(page, "up", 2, "RR@5 = 1/1")
        times = []
        for i in range(args.repeat):
            if i % 2 == 0:
                times.append(press(page, "down", 1, "RR@5 = 1/2"))
            else:
                times.append(press(page, "up", 2, "RR@5 = 1/1"))
        browser.close()
    print(f"list change until Learn is redrawn ({len(times)} presses, 10-item list):")
    print(
        f"  median {statistics.median(times):.3f} s, fastest {min(times):.3f} s, "
        f"slowest {max(times):.3f} s (target 0.3 s)"
    )
    print(f"  load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
