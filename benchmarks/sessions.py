"""Many browser sessions against one server: time to curves, peak memory, memory that comes back.

Run with ``python -m benchmarks.sessions --sessions 1 5 10``. For each N it starts a fresh
``streamlit run app.py``, measures the idle server (one visit to the app, then the tab closed),
then opens N browser sessions (separate Chromium contexts) at once; each uploads its own
1,000,000-row CSV run (two models x 5,000 queries x 100 results, a different seed per session)
and judgments, opens Curves and waits for the charts. It reports

* time to curves: from choosing the run file (the judgments were uploaded just before) until
  the Curves page has drawn its charts (median and slowest of the N sessions);
* peak memory: the server's highest resident set size (``VmHWM`` of ``/proc/PID/status``), and
  how much above idle;
* memory after close: the server's resident set size 2 minutes after every tab closed, and how
  far it is from idle (target: within 20%);
* CPU per session: the CPU seconds the server and the browser (all Chromium processes) used
  for the N sessions' whole visits (opening the app, both uploads, the Curves page), divided
  by N. Server and browser share the machine's cores, so N sessions cannot reach their curves
  in less than N times their sum divided by the number of cores;
* the timed span: from the first session's choice of its run file until the last session's
  curves, the CPU seconds the server and the browser used, and how busy that kept the
  machine's cores (100%: every core busy all the time, so the sessions wait for CPU).

"Idle" is the server after one visit to the Data and Curves pages of the sample (so the modules
every session imports are loaded), with that tab closed.

The server runs with the app's ``.streamlit/config.toml`` (a closed session is released a minute
after its connection ends).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from benchmarks.app_speed import write_files  # noqa: E402
from tests.browser.support import CHROMIUM, LAUNCH_ARGS, streamlit_process  # noqa: E402

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext

SETTLE_SECONDS = 120.0


def memory_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident set size of ``pid`` in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) that process ``pid`` has used so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def browser_cpu_seconds() -> float:
    """CPU time used so far by the running Chromium processes (browser, renderers, GPU)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if "chromium" in os.readlink(entry / "exe"):
                total += cpu_seconds(int(entry.name))
        except OSError:  # gone, or not ours
            continue
    return total


async def _wait_idle(page, timeout: float = 600_000) -> None:
    await page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    await page.wait_for_timeout(300)
    await page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout
    )


#: How long a session may wait for one step before it is counted as not reaching the curves.
STEP_TIMEOUT_MS = 180_000


class Span:
    """The timed span of concurrent sessions: CPU of the server and the browser, read when
    the first session starts its clock and again when the last one stops it."""

    def __init__(self, server_pid: int, sessions: int) -> None:
        self.server_pid, self.left = server_pid, sessions
        self.start: tuple[float, float, float] | None = None
        self.end: tuple[float, float, float] | None = None

    def _now(self) -> tuple[float, float, float]:
        return time.perf_counter(), cpu_seconds(self.server_pid), browser_cpu_seconds()

    def started(self) -> None:
        if self.start is None:
            self.start = self._now()

    def stopped(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.end = self._now()

    def figures(self) -> dict[str, float]:
        """Seconds of the span, server and browser CPU seconds in it, and the share of the
        machine's cores they kept busy (NaN when no session finished)."""
        if self.start is None or self.end is None:
            names = ("span_s", "span_server_s", "span_browser_s", "busy")
            return dict.fromkeys(names, float("nan"))
        wall, server, browser = (b - a for a, b in zip(self.start, self.end))
        return {
            "span_s": wall,
            "span_server_s": server,
            "span_browser_s": browser,
            "busy": (server + browser) / (wall * (os.cpu_count() or 1)),
        }


async def one_session(
    browser: Browser, url: str, run: Path, qrels: Path, span: Span | None = None
) -> tuple[float | None, BrowserContext]:
    """Upload ``run`` and ``qrels`` in a new session and wait for the curves; seconds taken
    (``None`` when a step did not happen within :data:`STEP_TIMEOUT_MS`) and the session's
    context (the caller closes it). ``span`` is told when the clock starts and stops."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(STEP_TIMEOUT_MS)
    page = await context.new_page()
    await page.goto(url)
    await page.get_by_text("Data health").first.wait_for()
    await page.get_by_text("Upload files", exact=True).click()
    await page.get_by_text("Upload at least one run file").first.wait_for()
    inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    await inputs.nth(1).set_input_files(str(qrels))
    await _wait_idle(page, STEP_TIMEOUT_MS)
    start = time.perf_counter()
    if span is not None:
        span.started()
    try:
        await _choose_run(page, inputs.nth(0), run)
        await (
            page.locator('[data-testid="stSidebar"] [data-testid="stText"]')
            .filter(has_text=run.name)
            .wait_for()
        )
        nav = page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Curves").first
        await nav.click()
        await page.get_by_text("Values at standard cutoffs").first.wait_for()
        await page.locator(".js-plotly-plot").nth(4).wait_for()
    except PlaywrightTimeout:
        if span is not None:
            span.stopped()
        return None, context
    taken = time.perf_counter() - start
    if span is not None:
        span.stopped()
    await _wait_idle(page, STEP_TIMEOUT_MS)
    return taken, context


#: Times a run file is chosen again when the page has not taken it (see :func:`_choose_run`).
CHOICES = 6


async def _choose_run(page, run_input, run: Path) -> None:
    """Choose ``run`` in the run-file uploader until the uploader shows it.

    Under load, a file chosen just after the previous upload's page run was requested (before
    the page shows that it runs) can be dropped by the page: it asks the server for an upload
    address and never uploads. Choosing it again once that run is over works.
    """
    shown = page.locator('[data-testid="stFileUploader"]').first.get_by_text(run.name)
    for _ in range(CHOICES - 1):
        await run_input.set_input_files(str(run))
        try:
            await shown.wait_for(timeout=20_000)
            return
        except PlaywrightTimeout:
            await _wait_idle(page, STEP_TIMEOUT_MS)
    await run_input.set_input_files(str(run))
    await shown.wait_for()


async def run_sessions(
    url: str, files: list[tuple[Path, Path]], span: Span | None = None
) -> tuple[list[float | None], float]:
    """Each session's time to curves (see :func:`one_session`) and the CPU seconds that the
    browser used for all of them; ``span`` records the timed span."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        results = await asyncio.gather(*(one_session(browser, url, r, q, span) for r, q in files))
        browser_cpu = browser_cpu_seconds()
        for _, context in results:
            await context.close()
        await browser.close()
    return [taken for taken, _ in results], browser_cpu


async def warm_up(url: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = await browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(600_000)
        await page.goto(url)
        await page.get_by_text("Data health").first.wait_for()
        await _wait_idle(page)
        await page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Curves").first.click()
        await page.locator(".js-plotly-plot").nth(4).wait_for()
        await _wait_idle(page)
        await browser.close()


def measure(n: int, files: list[tuple[Path, Path]], settle: float) -> dict[str, float]:
    with streamlit_process(timeout=90) as (url, pid):
        asyncio.run(warm_up(url))
        time.sleep(5)
        idle, _ = memory_mb(pid)
        server_cpu = cpu_seconds(pid)
        span = Span(pid, n)
        results, browser_cpu = asyncio.run(run_sessions(url, files[:n], span))
        server_cpu = cpu_seconds(pid) - server_cpu
        _, peak = memory_mb(pid)
        time.sleep(settle)
        after, _ = memory_mb(pid)
    times = [t for t in results if t is not None]
    return {
        "n": n,
        "median_s": statistics.median(times) if times else float("nan"),
        "max_s": max(times, default=float("nan")),
        "stuck": len(results) - len(times),
        "idle_mb": idle,
        "peak_mb": peak,
        "after_mb": after,
        "after_vs_idle": after / idle - 1,
        "server_cpu_s": server_cpu / n,
        "browser_cpu_s": browser_cpu / n,
        **span.figures(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 5, 10])
    parser.add_argument("--settle", type=float, default=SETTLE_SECONDS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(max(args.sessions)):
            directory = Path(tmp) / f"s{i}"
            directory.mkdir()
            run, qrels = write_files(directory, seed=100 + i)
            run = run.rename(directory / f"run_1m_{i}.csv")
            files.append((run, qrels))
        print(f"{len(files)} runs of 1,000,000 rows written; load {os.getloadavg()[0]:.1f}")
        print("| sessions | time to curves: median s | slowest s | idle MB | peak MB "
              "| peak above idle MB | 2 min after close MB | after vs idle "
              "| server CPU s per session | browser CPU s per session "
              "| timed span: server CPU s | browser CPU s | cores busy |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in args.sessions:
            r = measure(n, files, args.settle)
            print(
                f"| {n} | {r['median_s']:.1f} | {r['max_s']:.1f} | {r['idle_mb']:.0f} "
                f"| {r['peak_mb']:,.0f} | {r['peak_mb'] - r['idle_mb']:,.0f} "
                f"| {r['after_mb']:.0f} | {r['after_vs_idle']:+.0%} "
                f"| {r['server_cpu_s']:.1f} | {r['browser_cpu_s']:.1f} "
                f"| {r['span_server_s']:.1f} | {r['span_browser_s']:.1f} | {r['busy']:.0%} |",
                flush=True,
            )
            if r["stuck"]:
                print(
                    f"  {r['stuck']} of {n} sessions did not reach the curves "
                    f"(a step waited over {STEP_TIMEOUT_MS // 1000} s); times are of the others",
                    flush=True,
                )


if __name__ == "__main__":
    main()
