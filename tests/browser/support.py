"""A Streamlit server per test module and small Playwright helpers for the browser tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


#: How long a browser test waits for the app (milliseconds): every page made by
#: :func:`new_page` waits this long by default for anything (a locator, a page's text, a
#: navigation). The machine may be loaded by other work, and a cold server's first page then
#: took longer than Playwright's own 30 s.
WAIT = 240_000


def new_page(browser, width: int = 1400, height: int = 1800, **options):
    """A page in a new browser context (``options`` go to ``browser.new_context``) that waits
    :data:`WAIT` for everything; close it with ``page.context.close()``."""
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    context.set_default_timeout(WAIT)
    context.set_default_navigation_timeout(WAIT)
    return context.new_page()


def require_browser() -> None:
    """Skip (or fail when the CI variable is set) when Playwright or Chromium is missing."""
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "the playwright package is not installed"
    if missing is None and not os.path.exists(CHROMIUM):
        missing = f"Chromium is not installed at {CHROMIUM}"
    if missing:
        message = f"browser tests need a real Chromium: {missing}."
        if os.environ.get("CI"):
            pytest.fail(message + " (CI is set, so this is a failure, not a skip)")
        pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(timeout: float = 180):
    """Start ``streamlit run app.py`` on a free port; yield its base URL; stop it."""
    with streamlit_process(timeout) as (url, _):
        yield url


@contextmanager
def streamlit_process(timeout: float = 180):
    """Start ``streamlit run app.py`` on a free port; yield its base URL and process id (to read
    its memory); stop it."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Streamlit server did not become healthy")
            time.sleep(0.25)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_for_app(page, text: str | None = None, timeout: float = WAIT) -> None:
    """Wait until the script finished running (and ``text``, when given, is on the page)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    if text is not None:
        page.get_by_text(text, exact=False).first.wait_for(timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]')
                 || !document.querySelector('[data-testid="stStatusWidget"]').innerText
                        .includes('Running')""",
        timeout=timeout,
    )
    page.wait_for_timeout(300)


def title(page) -> str:
    return page.locator("h1").first.inner_text(timeout=WAIT).strip()


def sidebar_dataset(page) -> str:
    return page.locator('[data-testid="stSidebar"] [data-testid="stText"]').first.inner_text()


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the selectbox labelled ``label``."""
    open_select(page, label, option).click()


def open_select(page, label: str, option: str):
    """Open the selectbox labelled ``label``; return the locator of ``option`` (not clicked)."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    wanted = page.get_by_role("option").filter(has_text=option).first
    for _ in range(3):  # a rerun may close the list just opened
        box.locator('[role="combobox"]').first.click()
        try:
            wanted.wait_for(timeout=5_000)
            break
        except Exception:
            page.wait_for_timeout(500)
    return wanted


def go_to(page, nav_text: str) -> None:
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text=nav_text).first.click()


def open_tab(page, section: str, lang: str = "en") -> None:
    """Click a tab of Compare or Report (``ui.review.sections``) and wait for its run."""
    from ui.shell.i18n import translate

    name = translate(f"review.section.{section}", lang)
    page.get_by_role("tab", name=name, exact=True).click()
    wait_for_app(page)
    page.locator(f'[role="tab"][aria-selected="true"]:has-text("{name}")').first.wait_for()


def wait_for_charts(page, n: int, timeout: float = WAIT) -> int:
    """Wait until at least ``n`` plotly charts are drawn and shown; return how many are shown
    (a chart laid out for the other screen size, wide or phone, is drawn hidden)."""
    shown = page.locator(".js-plotly-plot:visible")
    if n > 0:
        shown.nth(n - 1).wait_for(timeout=timeout)
    return shown.count()


def wait_for_curve(page, timeout: float = WAIT) -> None:
    """Wait until the Learn page's curve (an SVG picture) is drawn."""
    page.locator("svg.learn-curve").first.wait_for(timeout=timeout)


def wait_for_tables(page, timeout: float = WAIT) -> None:
    """Wait until every st.dataframe on the page has drawn its canvas."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
                 .every(e => e.querySelector('canvas') && e.getBoundingClientRect().width > 100)""",
        timeout=timeout,
    )
    page.wait_for_timeout(500)


def wait_for_chart_titles(page, text: str, n: int, timeout: float = WAIT) -> None:
    """Wait until ``n`` chart titles contain ``text`` (the charts were drawn again)."""
    page.wait_for_function(
        """([text, n]) => [...document.querySelectorAll('.js-plotly-plot .gtitle')]
                 .filter(e => e.textContent.includes(text)).length >= n""",
        arg=[text, n],
        timeout=timeout,
    )


def upload_run_and_judgments(page, run: bytes, judgments: bytes) -> None:
    """On the Data page's upload panel, give a run CSV and a judgments CSV as a user would."""
    inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    inputs.nth(0).set_input_files(
        files=[{"name": "two models.csv", "mimeType": "text/csv", "buffer": run}]
    )
    wait_for_app(page)
    inputs.nth(1).set_input_files(
        files=[{"name": "judged.csv", "mimeType": "text/csv", "buffer": judgments}]
    )


def upload_on_data_page(page, server: str, run: bytes, judgments: bytes) -> None:
    """Open the Data page's upload panel, give it a run and judgments
    (:func:`upload_run_and_judgments`) and wait until the sidebar names the data set."""
    page.goto(server)
    wait_for_app(page, "Data health")
    page.get_by_text("Upload files", exact=True).click()
    wait_for_app(page, "Upload at least one run file")
    upload_run_and_judgments(page, run, judgments)
    page.locator('[data-testid="stSidebar"] [data-testid="stText"]').filter(
        has_text="two models.csv"
    ).wait_for()
    wait_for_app(page)


def screenshot_dir(temporary: Path) -> Path:
    """Where the browser tests save their screenshots: ``docs/screenshots`` when the environment
    sets ``SCREENSHOTS=1`` (to refresh the README's pictures), otherwise ``temporary`` (a folder
    pytest removes after a passing run), so that a test run never changes the repository."""
    if os.environ.get("SCREENSHOTS") == "1":
        return ROOT / "docs" / "screenshots"
    return temporary
