"""The review pages in a real Chromium: Compare, Segments and Report, with screenshots."""

from __future__ import annotations

import pytest

from tests.browser.support import go_to, title, wait_for_app, wait_for_charts

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
    page = context.new_page()
    yield page
    context.close()


def test_compare_page_shows_the_delta_table_curves_and_both_lists(server, page, shots):
    page.goto(f"{server}/Compare?m=nDCG,P")
    wait_for_app(page, "One query, both lists")
    assert title(page) == "Compare models"
    assert page.get_by_text("hybrid beats lexical on nDCG@10", exact=False).count() >= 1
    assert wait_for_charts(page, 3) >= 3  # delta curves, win/tie/loss, scatter
    assert page.locator(".js-plotly-plot .legendtext").filter(has_text="hybrid").count() >= 1
    page.set_viewport_size({"width": 1400, "height": 3400})  # down to the two lists
    wait_for_app(page, "One query, both lists")
    page.screenshot(path=str(shots / "compare.png"), full_page=True)


def test_clicking_a_lost_query_in_the_scatter_opens_its_two_lists(server, page):
    import re

    page.goto(f"{server}/Compare?m=nDCG")
    wait_for_app(page, "One query, both lists")
    wait_for_charts(page, 3)
    first = page.get_by_text(re.compile(r"^nDCG@10: [0-9.]+ → [0-9.]+ \(")).first.inner_text()
    assert "(+" in first  # the biggest gain is shown first
    lost = page.locator(".js-plotly-plot").nth(2).locator(".scatterlayer .trace").nth(2)
    box = lost.locator("path.point").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.get_by_text(re.compile(r"^nDCG@10: [0-9.]+ → [0-9.]+ \(-")).first.wait_for()
    wait_for_app(page)


def test_segments_page_says_plainly_where_the_winner_loses(server, page, shots):
    page.goto(f"{server}/Segments?m=nDCG")
    wait_for_app(page, "Where the overall winner loses")
    assert title(page) == "Segments"
    alert = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert (
        "hybrid is best overall on nDCG@10 but loses to lexical where query_type = "
        "navigational" in alert
    )
    assert wait_for_charts(page, 2) == 2  # heatmap and forest plot
    page.screenshot(path=str(shots / "segments.png"), full_page=True)


def test_report_page_downloads_one_self_contained_html_file(server, page, tmp_path, shots):
    page.goto(f"{server}/Report?m=nDCG,P")
    wait_for_app(page, "Settings and provenance")
    assert title(page) == "Report"
    wait_for_charts(page, 4)
    page.screenshot(path=str(shots / "report.png"), full_page=True)
    with page.expect_download() as info:
        page.get_by_role("button", name="Download the report (HTML, works offline)").click()
    target = tmp_path / "report.html"
    info.value.save_as(target)
    text = target.read_text(encoding="utf-8")
    assert "* plotly.js v" in text and "Content hash (SHA-256)" in text
    assert "hybrid beats lexical on nDCG@10" in text


def test_the_review_pages_are_in_the_navigation(server, page):
    page.goto(server)
    wait_for_app(page, "Data health")
    go_to(page, "Segments")
    wait_for_app(page, "Where the overall winner loses")
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert all(name in nav for name in ("Compare", "Segments", "Report"))
