"""End to end in a real Chromium: pages, deep links on a fresh server, uploads, languages."""

from __future__ import annotations

import pytest

from tests.browser.support import (
    WAIT,
    choose,
    go_to,
    new_page,
    sidebar_dataset,
    streamlit_server,
    title,
    upload_on_data_page,
    wait_for_app,
    wait_for_charts,
    wait_for_curve,
    wait_for_tables,
)
from ui.shell.pages_registry import PAGES

pytestmark = pytest.mark.browser

RUN = b"query,item,score,model\n" + b"".join(
    f"q{q},d{i},{10 - i},{m}\n".encode()
    for m in ("alpha", "beta")
    for q in range(1, 4)
    for i in range(6)
)
QRELS = b"query,item,relevance\nq1,d0,1\nq1,d3,2\nq2,d1,1\nq3,d5,1\n"


@pytest.fixture
def page(browser):
    page = new_page(browser)
    yield page
    page.context.close()


def test_every_page_shows_its_content_inside_the_frame(server, page, shots):
    page.goto(server)
    wait_for_app(page, "Data health")
    assert title(page) == "Data"
    assert sidebar_dataset(page).splitlines()[:2] == [
        "web_search",
        "models: lexical, dense, hybrid",
    ]
    assert wait_for_charts(page, 0) == 0  # the labels are a table: the first page draws no chart
    wait_for_tables(page)
    page.screenshot(path=str(shots / "data.png"))
    go_to(page, "Learn")
    wait_for_app(page, "P@5 = 3/5 = 0.60")
    assert title(page) == "Learn the measures"
    wait_for_curve(page)
    wait_for_tables(page)
    page.screenshot(path=str(shots / "learn.png"))
    go_to(page, "Curves")
    wait_for_app(page, "Values at standard cutoffs")
    assert title(page) == "Curves over K"
    wait_for_charts(page, 5)
    assert page.locator(".js-plotly-plot .legendtext").filter(has_text="hybrid").count() >= 1
    wait_for_tables(page)
    page.screenshot(path=str(shots / "curves.png"))
    review_pages = (  # Compare opens on its summary, which has no chart
        ("Compare", "Were there enough queries?", "Compare models", 0),
        ("Segments", "Where a segment points the other way", "Segments", 1),
        ("Report", "Headline figures", "Report", 1),
    )
    for nav_text, ready, heading, charts in review_pages:
        go_to(page, nav_text)
        wait_for_app(page, ready)
        assert title(page) == heading
        wait_for_charts(page, charts)
        assert page.locator('[data-testid="stException"]').count() == 0, nav_text
        assert sidebar_dataset(page).startswith("web_search"), nav_text
    go_to(page, "Tools")
    wait_for_app(page, "Copy as code")
    assert title(page) == "Why do two tools give two numbers?"
    assert page.locator('[data-testid="stException"]').count() == 0
    go_to(page, "Labels")  # web_search has one set of judgments: the page says how to compare
    wait_for_app(page, "This data set has one set of judgments")
    assert title(page) == "Label sources"
    assert page.locator('[data-testid="stException"]').count() == 0
    go_to(page, "History")  # the server's store: versions are saved from the page
    wait_for_app(page, "Save the active data set as a version")
    assert title(page) == "History of a project's versions"
    assert page.locator('[data-testid="stException"]').count() == 0
    visited = ["Data", "Learn", "Curves"] + [nav_text for nav_text, *_ in review_pages]
    assert [*visited, "Tools", "Labels", "History"] == [
        p.url_path for p in PAGES
    ]  # a new page joins


@pytest.mark.parametrize(
    "path, ready, heading",
    [
        ("/Curves?m=P,nDCG&k=1-30&rel=2", "Values at standard cutoffs", "Curves over K"),
        ("/Learn?lang=ja&gain=exponential", "P@5 = 3/5 = 0.60", "指標を学ぶ"),
    ],
)
def test_a_deep_link_on_a_fresh_server_opens_the_page_inside_the_frame(
    browser, path, ready, heading
):
    with streamlit_server() as url:
        page = new_page(browser, height=1000)
        page.goto(url + path)
        wait_for_app(page, ready)
        assert title(page) == heading
        nav = page.locator('[data-testid="stSidebarNav"] a').count()
        assert nav == len(PAGES)
        assert page.locator('[data-testid="stException"]').count() == 0
        if path.startswith("/Curves"):
            assert sidebar_dataset(page).startswith("web_search")
            chips = page.locator(
                '[data-testid="stSidebar"] [data-testid="stMultiSelect"] span[title]'
            )
            chips.nth(1).wait_for()  # the sidebar may still be drawing
            assert list(dict.fromkeys(chips.evaluate_all("es => es.map(e => e.title)"))) == [
                "P · Precision",
                "nDCG",
            ]
            assert wait_for_charts(page, 4) == 4  # two curves, the distribution, precision-recall
            assert (
                "label ≥ 2" in page.locator('[data-testid="stCaptionContainer"]').first.inner_text()
            )
            assert "m=P%2CnDCG" in page.url and "rel=2" in page.url
        else:  # Learn's box says what it shows and names the data set the other pages use
            others = "ほかのページはデータセット web_search を使います。"
            assert sidebar_dataset(page).endswith(others)
            assert "lang=ja" in page.url and "gain=exponential" in page.url
        page.context.close()


def test_every_registered_page_opens_by_its_link_without_errors(server, page):
    for p in PAGES:
        page.goto(f"{server}/{p.url_path}")
        wait_for_app(page)
        page.locator("h1").first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0, p.key
        box = sidebar_dataset(page)
        if p.key == "learn":  # Learn's box says what it shows, then names the data set
            assert box.endswith("The other pages use the data set web_search."), box
        else:
            assert box.startswith("web_search"), p.key


def test_a_changed_setting_is_in_the_link_and_the_link_reopens_it(server, browser, page):
    page.goto(f"{server}/Curves")
    wait_for_app(page, "Values at standard cutoffs")
    choose(
        page,
        "Averaging over queries",
        "pooled counts over queries (P, R, F1, Success); other measures macro",
    )
    wait_for_app(page)
    assert "avg=micro" in page.url
    other = new_page(browser, height=1000)
    other.goto(page.url)
    wait_for_app(other, "Values at standard cutoffs")
    assert "pooled counts" in other.locator('[data-testid="stCaptionContainer"]').first.inner_text()
    other.context.close()


def test_an_uploaded_csv_is_drawn_on_the_curves_page(server, page):
    upload_on_data_page(page, server, RUN, QRELS)
    assert "models: alpha, beta" in sidebar_dataset(page)
    assert "data=upload" in page.url
    go_to(page, "Curves")
    wait_for_app(page, "Values at standard cutoffs")
    wait_for_charts(page, 2)
    legend = page.locator(".js-plotly-plot .legendtext").evaluate_all(
        "es => es.map(e => e.textContent)"
    )
    assert "alpha" in legend and "beta" in legend
    assert "3 queries" in page.locator('[data-testid="stCaptionContainer"]').first.inner_text()


#: Three impressions, each with a session type of its own: the query column is in doubt.
TWIN = b"impression_id,doc,score,session_type,relevance\n" + b"".join(
    f"i{q},d{q * 5 + r},{1 - r / 10},t{q},{r % 2}\n".encode() for q in range(3) for r in range(1, 6)
)


def test_an_unsure_role_guess_is_confirmed_before_the_upload_is_computed(server, page):
    page.goto(server)
    wait_for_app(page, "Data health")
    page.get_by_text("Upload files", exact=True).click()
    wait_for_app(page, "Upload at least one run file")
    inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    inputs.nth(0).set_input_files(
        files=[{"name": "twin.csv", "mimeType": "text/csv", "buffer": TWIN}]
    )
    wait_for_app(page, "Nothing is computed until the column roles are confirmed.")
    assert "could both be the Query / user column" in page.locator("body").inner_text()
    assert "twin.csv" not in page.locator('[data-testid="stSidebar"]').inner_text()
    page.get_by_text("The column roles above are right", exact=True).click()
    page.locator('[data-testid="stSidebar"] [data-testid="stText"]').filter(
        has_text="twin.csv"
    ).wait_for(timeout=WAIT)
    wait_for_app(page, "Queries: 3 · lists per model: 3 · median list length: 5")


def test_switching_language_translates_the_frame_and_the_page(server, page):
    page.goto(f"{server}/Learn")
    wait_for_app(page, "P@5 = 3/5 = 0.60")
    choose(page, "Language", "简体中文")
    wait_for_app(page, "学习各项指标")
    assert title(page) == "学习各项指标"
    assert "曲线" in page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "lang=zh" in page.url
    choose(page, "语言", "日本語")
    wait_for_app(page, "指標を学ぶ")
    assert title(page) == "指標を学ぶ"


def test_the_root_url_forwards_to_the_data_page_with_its_parameters(server, page):
    page.goto(f"{server}/?data=recommendations")
    wait_for_app(page, "Data health")
    assert "/Data" in page.url and "data=recommendations" in page.url
    assert sidebar_dataset(page).splitlines()[:2] == [
        "recommendations",
        "models: baseline, candidate",
    ]
    page.goto(f"{server}/Data?data=teaching")
    wait_for_app(page, "Data health")
    assert page.get_by_text("Page not found").count() == 0
    assert sidebar_dataset(page).startswith("teaching")
