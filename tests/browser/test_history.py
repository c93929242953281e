"""The browser's workspace, the History page and review links in a real Chromium: an upload and
a setting come back after a reload, at the bare address and on a restarted server; a browser
without the workspace's key sees nothing of it; a review link opens read-only in a fresh browser
and stops once revoked. Screenshots of the History page and a shared review in three languages.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest

from metrics.cli.main import main as cli
from tests.browser.support import (
    choose,
    go_to,
    new_page,
    require_browser,
    sidebar_dataset,
    streamlit_server,
    title,
    upload_on_data_page,
    wait_for_app,
    wait_for_charts,
    wait_for_tables,
)
from tests.browser.test_e2e import QRELS, RUN
from tests.test_app_history import QRELS as SAMPLE_QRELS
from tests.test_app_history import TREC, VERSIONS
from ui.shell.i18n import translate
from ui.shell.workspace import COOKIE

pytestmark = pytest.mark.browser

HOME = "RANKING_METRICS_HOME"
#: The Compare page of the sample with one candidate (its review link's data: two models).
COMPARE = "/Compare?data=web_search&base=lexical&cand=hybrid&m=nDCG,P"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """The module's store, with five versions of the sample saved by the command line."""
    folder = tmp_path_factory.mktemp("history_store")
    before = os.environ.get(HOME)
    os.environ[HOME] = str(folder)
    for version, model, date in VERSIONS:
        accept = ["--accept"] if version == "v3" else []
        args = ["save", str(TREC / f"{model}.run"), "--qrels", SAMPLE_QRELS, "--project",
                "search", "--version", version, "--date", date, "--quiet", *accept]  # fmt: skip
        assert cli(args, out=io.StringIO(), err=io.StringIO()) == 0
    yield folder
    if before is None:
        os.environ.pop(HOME, None)
    else:
        os.environ[HOME] = before


@pytest.fixture(scope="module")
def server(home):
    """A server on the module's store (the environment names it)."""
    require_browser()
    with streamlit_server() as url:
        yield url


def _upload(page, server: str) -> None:
    upload_on_data_page(page, server, RUN, QRELS)


def _gain(page) -> str:
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="nDCG gain").first
    return box.locator('input[role="combobox"]').input_value()


def _keys(context) -> list[dict]:
    """The browser's workspace cookies (Streamlit sets its own, ``_streamlit_xsrf``)."""
    return [c for c in context.cookies() if c["name"] == COOKIE]


def _key(context) -> dict:
    (cookie,) = _keys(context)
    return cookie


def test_an_upload_and_a_setting_come_back_after_a_reload_and_a_restart(browser, server, home):
    page = new_page(browser)
    _upload(page, server)
    choose(page, "nDCG gain", "gain = 2^r − 1")
    wait_for_app(page)
    cookie = _key(page.context)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", cookie["value"])  # 256 random bits
    assert cookie["sameSite"] == "Strict" and not cookie["httpOnly"]
    assert cookie["value"] not in page.url
    page.reload()
    wait_for_app(page, "Data health")
    assert sidebar_dataset(page).startswith("two models.csv")
    assert "2^r − 1" in _gain(page)
    bare = page.context.new_page()  # the bare address: the workspace's settings, not the link's
    bare.goto(server)
    wait_for_app(bare, "Data health")
    assert sidebar_dataset(bare).startswith("two models.csv")
    assert "2^r − 1" in _gain(bare)
    assert "gain=exponential" in bare.url
    with streamlit_server() as restarted:  # another server process on the same store
        bare.goto(restarted + "/Curves")
        wait_for_app(bare, "Values at standard cutoffs")
        assert sidebar_dataset(bare).startswith("two models.csv")
        wait_for_charts(bare, 2)
        legend = bare.locator(".js-plotly-plot .legendtext").evaluate_all(
            "es => es.map(e => e.textContent)"
        )
        models = {entry.split(" · ")[0] for entry in legend}  # "alpha" or "alpha · raw, ..."
        assert {"alpha", "beta"} <= models, legend
    page.context.close()


def _share(page, server: str, lang: str = "en") -> str:
    """Make a review link of :data:`COMPARE` on the Compare page; return its address."""
    page.goto(f"{server}{COMPARE}&lang={lang}")
    wait_for_app(page, translate("compare.power_title", lang))
    button = page.get_by_role("button", name=translate("share.button", lang))
    button.click()
    page.get_by_role("button", name=translate("share.create", lang)).click()
    wait_for_app(page)
    code = page.locator('[data-testid="stCode"]').filter(has_text="review=")
    if not code.count():  # the popover closed with the run: open it again
        button.click()
    code.first.wait_for()
    return code.first.inner_text().strip()


def test_a_browser_without_the_key_sees_nothing_of_the_workspace(browser, server):
    first = new_page(browser)
    _upload(first, server)
    address = _share(first, server)
    assert _key(first.context)["value"] not in address
    other = new_page(browser)
    other.goto(server)
    wait_for_app(other, "Data health")
    assert _keys(other.context) == []  # no change: no workspace, no key
    assert sidebar_dataset(other).startswith("web_search")
    go_to(other, "Curves")
    wait_for_app(other, "Values at standard cutoffs")
    with other.expect_download() as download:
        other.locator(".st-key-dl_curves_csv button").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "lexical" in text and "alpha" not in text
    go_to(other, "History")
    wait_for_app(other, translate("share.links_title", "en"))
    assert other.get_by_text(translate("share.no_links", "en")).count() == 1
    assert other.locator('[data-testid="stCode"]').filter(has_text="review=").count() == 0
    go_to(other, "Data")
    wait_for_app(other, "Data health")
    other.get_by_text("Upload files", exact=True).click()
    wait_for_app(other, "Upload at least one run file")
    assert other.get_by_text("two models.csv").count() == 0
    first.context.close()
    other.context.close()


def test_a_review_link_opens_read_only_in_a_fresh_browser_and_stops_once_revoked(
    browser, server, shots
):
    maker = new_page(browser)
    address = _share(maker, server)
    viewer = new_page(browser)
    viewer.goto(address)
    wait_for_app(viewer, "The verdict, as it was shared")
    assert title(viewer) == "Shared review"
    assert viewer.locator('[data-testid="stSidebarNav"] a').count() == 0  # nothing else to open
    wait_for_tables(viewer)
    assert viewer.get_by_text("lexical, hybrid").count() >= 1  # the two models compared
    with viewer.expect_download() as download:
        viewer.locator(".st-key-dl_shared_json button").click()
    rows = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert rows and {r["candidate"] for r in rows} == {"hybrid"}
    assert _keys(viewer.context) == []  # opening a link makes no workspace
    viewer.screenshot(path=str(shots / "review_link.png"), full_page=True)
    maker.get_by_role("button", name="Revoke this link").click()
    wait_for_app(maker)
    closed = new_page(browser)
    closed.goto(address)
    wait_for_app(closed, "This review link was revoked on")
    assert closed.locator('[data-testid="stDataFrame"]').count() == 0
    for page in (maker, viewer, closed):
        page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_screenshots_of_the_history_page_and_a_shared_review(browser, server, shots, lang):
    suffix = "" if lang == "en" else f"_{lang}"
    page = new_page(browser, height=2400)
    page.goto(f"{server}/History?lang={lang}")
    wait_for_app(page, translate("history.leaderboard", lang))
    wait_for_charts(page, 1)
    page.wait_for_function(  # every table shown (not the one in the closed expander) is drawn
        """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
                 .filter(e => !e.closest('details:not([open])'))
                 .every(e => e.querySelector('canvas'))"""
    )
    page.wait_for_timeout(500)
    legend = page.locator(".js-plotly-plot .legendtext").evaluate_all(
        "es => es.map(e => e.textContent)"
    )
    assert translate("history.accepted_mark", lang) in legend
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(shots / f"history{suffix}.png"), full_page=True)
    if lang != "en":  # the English one is taken by the test above
        address = _share(page, server, lang)
        viewer = new_page(browser, height=2000)
        viewer.goto(address)
        wait_for_app(viewer, translate("shared.verdict", lang))
        wait_for_tables(viewer)
        viewer.screenshot(path=str(shots / f"review_link{suffix}.png"), full_page=True)
        viewer.context.close()
    page.context.close()
