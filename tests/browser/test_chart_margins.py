"""Charts start from the margins plotly settles on, so the browser draws each of them once.

Plotly grows a margin too small for the tick labels, axis titles or legend and then draws the
whole figure again; ``ui.shell.plotting.SETTLED_MARGIN`` and ``label_margin`` give every chart room
enough from the start. Each chart's drawn margins must equal the margins its figure asked for.
"""

from __future__ import annotations

import pytest

from tests.browser.support import go_to, new_page, open_tab, wait_for_app, wait_for_charts

pytestmark = pytest.mark.browser

#: Margins asked for and margins drawn, for every chart on the page.
MARGINS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(chart => {
    const asked = chart.layout.margin || {}, drawn = chart._fullLayout._size;
    return {
        title: String((chart.layout.title || {}).text || ''),
        asked: [asked.l, asked.r, asked.t, asked.b],
        drawn: [drawn.l, drawn.r, drawn.t, drawn.b],
    };
})"""


@pytest.fixture
def page(browser):
    page = new_page(browser, height=1000)
    yield page
    page.context.close()


def grown_charts(page) -> list[dict]:
    """The charts whose drawn margins differ from the margins their figure asked for."""
    return [chart for chart in page.evaluate(MARGINS) if chart["asked"] != chart["drawn"]]


@pytest.mark.parametrize(
    ("page_name", "tabs"),
    [
        ("Curves", {None: 6}),
        ("Compare", {"candidates": 1, "across_k": 2, "change": 1, "queries": 1, "disagree": 1}),
        ("Segments", {None: 2}),
        # the first screen's chart of the lead measure stays above the tabs
        ("Report", {None: 1, "charts": 3}),
    ],
)
def test_no_chart_of_the_sample_data_grows_its_margins(server, page, page_name, tabs):
    page.goto(server)
    wait_for_app(page, "Data health")  # first page of a cold server
    go_to(page, page_name)
    wait_for_app(page)
    for tab, charts in tabs.items():  # Compare and Report draw the open tab only
        if tab is not None:
            open_tab(page, tab)
        assert wait_for_charts(page, charts) >= charts, tab
        assert grown_charts(page) == [], tab


def test_the_histogram_leaves_room_for_its_legend_on_the_right(server, page):
    page.goto(server)
    wait_for_app(page, "Data health")
    go_to(page, "Curves")
    wait_for_app(page)
    page.get_by_text("histogram", exact=True).click()
    wait_for_app(page, "how many queries reach each value")
    wait_for_charts(page, 6)
    assert grown_charts(page) == []
