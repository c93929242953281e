"""The app's interaction budget: one walk through every page, timed step by step in Chromium.

Run with ``python -m benchmarks.app_walk [--repeat N] [--presses P]`` (not a timed test). Each
walk starts a fresh ``streamlit run app.py`` on a free loopback port and a headless Chromium,
and times

* the cold first load: from opening the app's address until the Data page of the sample
  (``web_search``) is drawn;
* a switch to every page on the sample (Learn, Curves, Compare, Segments, Report and back to
  Data), twice: the first visit computes and draws, the second finds the results cached;
* the upload of a click log of 50 sessions (:func:`benchmarks.click_log.click_log`, one CSV
  that carries its own clicks as labels and a ``country`` column), from choosing the file
  until the Data page shows it; the query table (``session_id, country``) is given first,
  untimed, so that the segments come from it as a user's would;
* the first Compare, Segments and Report on that upload;
* a list change on Learn (its worked example): ``--presses`` presses of "move down" on rank 1
  and "move up" on rank 2 in turn, each from the click until the new RR@5 is drawn, after two
  presses that are not timed (the first makes the example a hand-built list).

A step is drawn when the page has finished its run (the app's ``data-test-script-state`` is
``notRunning`` and no element is stale), the page's title is the one expected, no element
still waits for its code (a skeleton), every plotly chart shown has drawn its SVG and every
table shown its canvas (those in a closed expander are not drawn), and the step's own marks are
there (the sidebar names the upload; Learn's list and curve). The condition is checked in the
browser's frame loop, so that a drawn page is seen within one frame.

For each step it prints the wall seconds, the server's CPU seconds (user and system of the
``streamlit`` process and its children, from ``/proc``) and the browser's (every Chromium
process this benchmark started), and how many charts and tables the step drew. With
``--repeat N`` it walks N times, each with a fresh server and browser, and prints each step's
median. The machine's load average is printed at the start and the end of every walk: figures
are worth quoting only from a quiet machine (load average well under one per core).

Targets on a quiet machine: cold first load 3 s; every page switch and the first Compare,
Segments and Report on the upload 1 s; a Learn list change 0.3 s (median of the presses).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # also runnable as a script: python benchmarks/app_walk.py

from benchmarks.click_log import click_log  # noqa: E402 (needs ROOT on sys.path)
from benchmarks.learn_speed import press  # noqa: E402
from tests.browser.support import (  # noqa: E402
    CHROMIUM,
    LAUNCH_ARGS,
    go_to,
    streamlit_process,
    wait_for_app,
)
from ui.shell.i18n import translate  # noqa: E402

#: Longest wait for one step (seconds); a step that takes longer stops the walk.
STEP_TIMEOUT = 180.0

#: Page of the navigation (its English name) -> the title its page draws, from the catalog.
TITLES = {
    translate(f"page.{key}"): translate(title)
    for key, title in (
        ("data", "data.title"),
        ("learn", "learn.title"),
        ("curves", "curves.title"),
        ("compare", "compare.title"),
        ("segments", "segments.title"),
        ("report", "review_report.title"),
    )
}
#: The order of the page switches on the sample (the walk starts on Data).
SWITCHES = ("Learn", "Curves", "Compare", "Segments", "Report", "Data")
TARGET_LOAD, TARGET_SWITCH, TARGET_PRESS = 3.0, 1.0, 0.3

#: Whether the page is drawn: the run is over, nothing is stale, the title is ``title``,
#: every chart and table is drawn. Returns the counts of charts and tables, or ``null``.
DRAWN = """(title) => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return null;
    if (document.querySelector('[data-stale="true"]')) return null;
    const heading = document.querySelector('[data-testid="stMain"] h1');
    if (!heading || heading.textContent.trim() !== title) return null;
    const shown = (selector) => [...document.querySelectorAll(selector)]
        .filter(e => e.checkVisibility());  // not those inside a closed expander
    if (shown('[data-testid="stSkeleton"]').length) return null;  // code still loading
    const charts = shown('[data-testid="stPlotlyChart"]');
    if (!charts.every(c => c.querySelector('.js-plotly-plot .main-svg'))) return null;
    const tables = shown('[data-testid="stDataFrame"]');
    if (!tables.every(t => t.querySelector('canvas'))) return null;
    return [charts.length, tables.length];
}"""
#: What the page shows now, to say which part of :data:`DRAWN` a step waited for in vain.
SHOWN = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const heading = document.querySelector('[data-testid="stMain"] h1');
    const shown = (selector) => [...document.querySelectorAll(selector)]
        .filter(e => e.checkVisibility());
    const charts = shown('[data-testid="stPlotlyChart"]');
    const tables = shown('[data-testid="stDataFrame"]');
    return {
        state: app && app.getAttribute('data-test-script-state'),
        stale: document.querySelectorAll('[data-stale="true"]').length,
        loading: shown('[data-testid="stSkeleton"]').length,
        title: heading && heading.textContent.trim(),
        charts: `${charts.filter(c => c.querySelector('.js-plotly-plot .main-svg')).length} of `
            + `${charts.length} drawn`,
        tables: `${tables.filter(t => t.querySelector('canvas')).length} of `
            + `${tables.length} drawn`,
    };
}"""


@dataclass
class Step:
    """One timed step: wall seconds, server and browser CPU seconds, what was drawn."""

    name: str
    wall: float
    server: float
    browser: float
    drawn: str = ""
    target: float | None = None


# --------------------------------------------------------------------------- CPU from /proc


def _processes() -> dict[int, tuple[int, float, float, str]]:
    """Every process: pid -> (parent pid, own CPU seconds, CPU seconds of its reaped children,
    executable)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
            exe = os.readlink(entry / "exe")
        except OSError:  # gone, or not ours
            continue
        own = (int(fields[11]) + int(fields[12])) / tick
        reaped = (int(fields[13]) + int(fields[14])) / tick
        found[int(entry.name)] = (int(fields[1]), own, reaped, exe)
    return found


def _tree(root: int, processes: dict[int, tuple[int, float, float, str]]) -> list[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, (parent, *_) in processes.items():
        children.setdefault(parent, []).append(pid)
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in processes:
            tree.append(pid)
            todo.extend(children.get(pid, []))
    return tree


def cpu_now(server_pid: int) -> tuple[float, float]:
    """CPU seconds used so far by the server's process tree and by the Chromium processes
    below this process (not those of anyone else on the machine)."""
    processes = _processes()
    server_tree = _tree(server_pid, processes)
    server = sum(processes[p][1] for p in server_tree) + processes[server_pid][2]
    skip = set(server_tree)
    browser = sum(
        processes[p][1] + processes[p][2]
        for p in _tree(os.getpid(), processes)
        if p not in skip and "chrom" in os.path.basename(processes[p][3])
    )
    return server, browser


# --------------------------------------------------------------------------- waits


def wait_drawn(page, title: str, marks: tuple[str, ...] = ()) -> str:
    """Wait until every locator of ``marks`` is visible, then until the page titled ``title``
    is drawn (see :data:`DRAWN`); return what was drawn (``5 charts, 3 tables``)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for mark in marks:  # first: the page may look drawn before its run has started
        page.locator(mark).first.wait_for(timeout=STEP_TIMEOUT * 1000)
    try:
        counts = page.wait_for_function(
            DRAWN, arg=title, polling="raf", timeout=STEP_TIMEOUT * 1000
        ).json_value()
    except PlaywrightTimeout:
        raise RuntimeError(
            f"{title!r} was not drawn within {STEP_TIMEOUT:g} s: {page.evaluate(SHOWN)}"
        ) from None
    charts, tables = counts
    return f"{charts} charts, {tables} tables"


def timed(name: str, pid: int, action, wait, target: float | None = None) -> Step:
    """Run ``action``, then ``wait`` (returns what was drawn); time both."""
    server, browser = cpu_now(pid)
    start = time.perf_counter()
    action()
    drawn = wait()
    wall = time.perf_counter() - start
    server_after, browser_after = cpu_now(pid)
    return Step(name, wall, server_after - server, browser_after - browser, drawn, target)


# --------------------------------------------------------------------------- the walk


def walk(directory: Path, presses: int) -> list[Step]:
    """One walk against a fresh server; the steps in order."""
    from playwright.sync_api import sync_playwright

    log = click_log()
    run_path, queries_path = directory / "clicks.csv", directory / "sessions.csv"
    log.to_csv(run_path, index=False)
    log[["session_id", "country"]].drop_duplicates().to_csv(queries_path, index=False)
    steps: list[Step] = []
    with streamlit_process(timeout=120) as (url, pid), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(STEP_TIMEOUT * 1000)

        def switch(nav: str, label: str, target: float | None = TARGET_SWITCH) -> None:
            marks = (".st-key-list_learn button", "svg.learn-curve") if nav == "Learn" else ()
            steps.append(
                timed(
                    f"switch to {nav} ({label})",
                    pid,
                    lambda: go_to(page, nav),
                    lambda: wait_drawn(page, TITLES[nav], marks),
                    target,
                )
            )
            wait_for_app(page)

        steps.append(
            timed(
                "cold first load (Data, sample)",
                pid,
                lambda: page.goto(url),
                lambda: wait_drawn(page, TITLES["Data"]),
                TARGET_LOAD,
            )
        )
        wait_for_app(page, "Data health")
        for visit in ("sample, first visit", "sample, second visit"):
            for nav in SWITCHES:
                switch(nav, visit)

        page.get_by_text("Upload files", exact=True).click()
        wait_for_app(page, "Upload at least one run file")
        inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
        inputs.nth(2).set_input_files(str(queries_path))  # the query table, untimed
        wait_for_app(page)
        named = f'[data-testid="stSidebar"] [data-testid="stText"]:has-text("{run_path.name}")'
        steps.append(
            timed(
                "upload the 50-session click log (Data)",
                pid,
                lambda: inputs.nth(0).set_input_files(str(run_path)),
                lambda: wait_drawn(page, TITLES["Data"], (named,)),
                TARGET_SWITCH,
            )
        )
        wait_for_app(page)
        for nav in ("Compare", "Segments", "Report"):
            switch(nav, "upload, first visit")

        switch("Learn", "upload", None)
        press(page, "down", 1, "RR@5 = 1/2")  # becomes a hand-built list (not timed)
        press(page, "up", 2, "RR@5 = 1/1")
        walls, servers, browsers = [], [], []
        for i in range(presses):
            server, chromium = cpu_now(pid)
            if i % 2 == 0:
                walls.append(press(page, "down", 1, "RR@5 = 1/2"))
            else:
                walls.append(press(page, "up", 2, "RR@5 = 1/1"))
            server_after, chromium_after = cpu_now(pid)
            servers.append(server_after - server)
            browsers.append(chromium_after - chromium)
        if walls:
            steps.append(
                Step(
                    f"Learn list change (median of {len(walls)} presses)",
                    statistics.median(walls),
                    statistics.median(servers),
                    statistics.median(browsers),
                    f"fastest {min(walls):.2f} s, slowest {max(walls):.2f} s",
                    TARGET_PRESS,
                )
            )
        browser.close()
    return steps


# --------------------------------------------------------------------------- report


def print_steps(steps: list[Step], heading: str) -> None:
    width = max(len(s.name) for s in steps)
    print(heading)
    print(f"  {'step':<{width}}  wall s  server CPU s  browser CPU s  target  drawn")
    for s in steps:
        target = f"{s.target:g} s" if s.target is not None else ""
        over = " over" if s.target is not None and s.wall > s.target else ""
        print(
            f"  {s.name:<{width}}  {s.wall:6.2f}  {s.server:12.2f}  {s.browser:13.2f}  "
            f"{target:>6}{over:5}  {s.drawn}"
        )


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min), {fifteen:.2f} (15 min)"


def cache_bytecode() -> None:
    """Compile the app's modules (``ui``, ``metrics``) into their ``__pycache__`` and let the
    servers write and read bytecode, as a server does from its second start on; a variable
    ``PYTHONDONTWRITEBYTECODE`` (which would make every server compile them again) is dropped
    for the servers."""
    for package in ("ui", "metrics"):
        compileall.compile_dir(ROOT / package, quiet=1)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="walks, each on a fresh server")
    parser.add_argument(
        "--presses", type=int, default=10, help="timed Learn list changes per walk (default 10)"
    )
    args = parser.parse_args(argv)
    cache_bytecode()
    walks = []
    for i in range(args.repeat):
        print(f"walk {i + 1} of {args.repeat}: start, {_load()}", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            steps = walk(Path(tmp), args.presses)
        print_steps(steps, f"walk {i + 1}: end, {_load()}")
        walks.append(steps)
    if args.repeat > 1:
        medians = [
            Step(
                first.name,
                statistics.median(w[j].wall for w in walks),
                statistics.median(w[j].server for w in walks),
                statistics.median(w[j].browser for w in walks),
                "",
                first.target,
            )
            for j, first in enumerate(walks[0])
        ]
        print_steps(medians, f"median of {args.repeat} walks, {_load()}")


if __name__ == "__main__":
    main()
