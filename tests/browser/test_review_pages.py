"""The review pages in a real Chromium: Compare, Segments and Report, with screenshots."""

from __future__ import annotations

import re

import pytest

from tests.browser.support import (
    go_to,
    new_page,
    open_tab,
    title,
    wait_for_app,
    wait_for_charts,
)

pytestmark = pytest.mark.browser

#: The width the tables must fit without scrolling sideways.
WIDTH = 1440


@pytest.fixture
def page(browser):
    page = new_page(browser, WIDTH, 2200, accept_downloads=True)
    yield page
    page.context.close()


def chosen_query(page) -> str:
    """The value of the drill-down's query menu."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Query").last
    return box.locator("input").first.input_value()


def click_point(page, point) -> None:
    """Click a plotly point as a user would (scrolled into view first)."""
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def no_sideways_scrolling(page) -> bool:
    """No table or page wider than its box (every column readable without scrolling)."""
    return page.evaluate(
        """() => document.documentElement.scrollWidth <= window.innerWidth &&
            [...document.querySelectorAll('[data-testid="stDataFrame"]')].every(
                e => !e.querySelector('.dvn-scroller') ||
                     e.querySelector('.dvn-scroller').scrollWidth <=
                     e.querySelector('.dvn-scroller').clientWidth + 1)"""
    )


def test_compare_page_opens_with_the_verdict_box_and_the_candidate_matrix(server, page, shots):
    page.goto(f"{server}/Compare?m=nDCG,P")
    wait_for_app(page, "Were there enough queries?")  # first page of a cold server
    assert title(page) == "Compare models"
    box = page.locator(".st-key-verdict_box").inner_text()
    assert "Verdict" in box
    # the decision first: a recommendation per candidate and at most three sentences each
    assert "hybrid: do not ship · " in box and "dense: do not ship · " in box
    assert (
        "Do not ship hybrid as it is: nDCG@10 +0.24 (+43%) overall, 232 of 300 queries better, "
        "65 worse." in box
    )
    assert "hybrid is ahead of dense on nDCG@10 (+0.15)." in box
    # every row's sentences one click away
    page.locator(".st-key-verdict_box summary").click()
    box = page.locator(".st-key-verdict_box").inner_text()
    assert (
        "hybrid against lexical, over all 300 queries: better on nDCG@10 (+0.244) and P@10 "
        "(+0.227), each p < 0.0008." in box
    )
    assert "Where query_type = navigational: worse on nDCG@10 (-0.138) and P@10 (-0.136)" in box
    assert "hybrid is ahead of the baseline and of every other candidate on nDCG@10 and P@10" in box
    assert no_sideways_scrolling(page)
    page.screenshot(path=str(shots / "compare.png"), full_page=True)
    open_tab(page, "candidates")
    assert wait_for_charts(page, 1) == 1  # only the open tab is drawn
    matrix = page.locator(".js-plotly-plot").first
    assert "candidates against each other" in matrix.inner_text()
    assert "+0.154" in matrix.inner_text() and "-0.154" in matrix.inner_text()
    open_tab(page, "across_k")
    assert wait_for_charts(page, 2) == 2  # delta curves, win/tie/loss
    legend = page.locator(".js-plotly-plot .legendtext")
    assert legend.filter(has_text="hybrid").count() >= 1
    assert no_sideways_scrolling(page)
    open_tab(page, "queries")
    page.set_viewport_size({"width": WIDTH, "height": 3600})  # down to the two lists
    wait_for_app(page, "One query, both lists")
    page.screenshot(path=str(shots / "compare_queries.png"), full_page=True)


def test_clicking_a_lost_query_in_the_scatter_opens_its_two_lists(server, page):
    page.goto(f"{server}/Compare?m=nDCG&ctab=queries")
    wait_for_app(page, "One query, both lists")
    wait_for_charts(page, 1)
    first = page.get_by_text(re.compile(r"^nDCG@10: [0-9.]+ → [0-9.]+ \(")).first.inner_text()
    assert "(+" in first  # the biggest gain is shown first
    scatter = page.locator(".js-plotly-plot").filter(has_text="nDCG@10 per query").first
    points = scatter.evaluate(
        "e => e.data.map(d => [d.name, d.customdata ? d.customdata.length : 1])"
    )
    drawn = [name for name, n in points if n]  # plotly draws no group for a trace without points
    lost = scatter.locator(".scatterlayer .trace").nth(drawn.index("lost"))
    click_point(page, lost.locator("path.point").first)
    page.get_by_text(re.compile(r"^nDCG@10: [0-9.]+ → [0-9.]+ \(-")).first.wait_for()
    wait_for_app(page)


def test_clicking_a_query_where_the_measures_disagree_opens_it_in_the_drill_down(server, page):
    page.goto(f"{server}/Compare?m=nDCG,P&qc=hybrid&ctab=disagree")
    wait_for_app(page, "Where measures disagree")
    wait_for_charts(page, 1)
    assert page.get_by_text(re.compile(r"^\d+ queries where nDCG@10 and P@10 point")).count()
    chart = page.locator(".js-plotly-plot").filter(has_text="Δ nDCG@10 against Δ P@10").first
    assert "opposite directions" in chart.inner_text()
    wanted = chart.evaluate("e => e.data[0].customdata[0][0]")  # the first point's query id
    click_point(page, chart.locator(".scatterlayer .trace").nth(0).locator("path.point").first)
    page.wait_for_function("q => new URL(location.href).searchParams.get('q') === q", arg=wanted)
    wait_for_app(page, "One query, both lists")  # the query's tab opens
    assert chosen_query(page) == wanted


def test_a_link_naming_a_query_and_a_measure_reopens_them(server, page):
    page.goto(f"{server}/Compare?m=nDCG,P&qc=hybrid&qm=nDCG&q=109")
    wait_for_app(page, "One query, both lists")
    page.get_by_text("nDCG@10: 0.058 → 0.807 (+0.749)").first.wait_for()
    assert chosen_query(page) == "109"
    assert page.get_by_text(re.compile(r"^Segments of this query: query_type = ")).count() == 1


def test_segments_page_calls_out_the_loss_with_the_tables_corrected_p(server, page, shots):
    page.goto(f"{server}/Segments?m=nDCG")
    wait_for_app(page, "Where a segment points the other way")
    finding = page.get_by_text(re.compile("hybrid is better than lexical overall on nDCG@10"))
    finding.last.wait_for()
    assert title(page) == "Segments"
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0  # not an app error
    alert = finding.last.inner_text()
    assert "Worse · hybrid is better than lexical overall on nDCG@10 (+0.244" in alert
    assert "but is significantly worse where query_type = navigational: 0.801 vs 0.939" in alert
    assert "randomization test, Holm over 3 segments × 1 measure × 2 candidates" in alert
    # the lead measure's chart (its phone copy hidden on a wide screen) and the heatmap
    assert wait_for_charts(page, 2) == 2  # both drawn: the last one found may be the first
    assert no_sideways_scrolling(page)
    page.screenshot(path=str(shots / "segments.png"), full_page=True)


def test_report_page_downloads_one_decision_document(server, page, shots, tmp_path):
    page.goto(f"{server}/Report?m=nDCG,P")
    wait_for_app(page, "Headline figures")
    assert title(page) == "Report"
    wait_for_charts(page, 1)  # the lead measure's chart
    assert "hybrid: " in page.locator(".st-key-verdict_box").inner_text()  # its recommendation
    assert no_sideways_scrolling(page)
    page.screenshot(path=str(shots / "report.png"), full_page=True)
    with page.expect_download() as info:
        page.get_by_role("button", name="Download the interactive report (HTML").click()
    target = tmp_path / "report_interactive.html"
    info.value.save_as(target)
    text = target.read_text(encoding="utf-8")
    assert "* plotly.js v" in text and "Content hash (SHA-256)" in text
    assert text.index("Executive summary") < text.index("Headline figures")
    assert "hybrid against lexical, over all 300 queries: better on nDCG@10" in text

    with page.expect_download() as info:  # the light one: its charts are pictures
        page.get_by_role("button", name="Download the report (HTML, light, to mail)").click()
    light = tmp_path / "report.html"
    info.value.save_as(light)
    text = light.read_text(encoding="utf-8")
    assert light.stat().st_size <= 1_000_000 and "plotly.js" not in text
    assert text.count('src="data:image/svg+xml;base64,') == 3  # lead chart, Δ curve, wins
    assert "hybrid against lexical, over all 300 queries: better on nDCG@10" in text
    reader = new_page(page.context.browser, 1200, 900)
    reader.goto(light.as_uri())
    reader.wait_for_load_state("load")
    opened = reader.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
    assert opened <= 1_000, opened  # milliseconds until the document and its pictures are shown
    reader.context.close()


def test_the_review_pages_are_in_the_navigation(server, page):
    page.goto(server)
    wait_for_app(page, "Data health")
    go_to(page, "Segments")
    wait_for_app(page, "Where a segment points the other way")
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert all(name in nav for name in ("Compare", "Segments", "Report"))


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_on_a_phone_compare_shows_delta_p_and_the_verdict_first(server, browser, lang):
    """At 390 px on a touch screen: the compact table, whose first columns (the row, Δ,
    corrected p, verdict) are the ones drawn, and a toolbar that leaves the caption readable."""
    from ui.shell.i18n import translate

    phone = new_page(browser, 390, 1400, has_touch=True, is_mobile=True)
    phone.goto(f"{server}/Compare?m=nDCG,P&lang={lang}")
    wait_for_app(phone, translate("compare.power_title", lang))
    phone.locator(".st-key-wide_only_cmp").wait_for(state="hidden")  # hidden on a phone
    table = phone.locator('.st-key-phone_only_cmp [data-testid="stDataFrame"]')
    table.locator("canvas").first.wait_for()
    phone.wait_for_timeout(1000)
    drawn = table.locator("table th").all_inner_texts()  # the grid's copy of what it draws
    words = [translate(f"review.col.{c}", lang) for c in ("delta", "p_adjusted", "verdict")]
    assert drawn[1:4] == words, drawn
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    table.scroll_into_view_if_needed()
    table.tap()
    toolbar = table.locator('[data-testid="stElementToolbar"]')
    toolbar.wait_for()
    caption = phone.locator('[data-testid="stCaptionContainer"]').filter(has_text="K = 10").first
    above = caption.bounding_box()
    assert toolbar.bounding_box()["y"] >= above["y"] + above["height"] - 1  # not over it
    phone.context.close()
