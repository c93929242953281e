"""A per-query results file uploaded on the Data page opens on Compare, Segments and Report."""

from __future__ import annotations

import io

import pytest

from metrics.engine.evaluation import evaluate
from metrics.io.samples import load_sample
from tests.browser.support import (
    WAIT,
    go_to,
    new_page,
    open_tab,
    title,
    wait_for_app,
    wait_for_charts,
)

pytestmark = pytest.mark.browser


def _per_query_parquet() -> bytes:
    data = load_sample("web_search")
    measures = ["P@5", "P@10", "R@10", "RR@10", "nDCG@5", "nDCG@10", "nDCG@20", "AP"]
    table = evaluate(data.run, data.qrels, measures).per_query.merge(data.segments, on="query")
    buffer = io.BytesIO()
    table.to_parquet(buffer, index=False)
    return buffer.getvalue()


def test_a_per_query_results_file_opens_on_compare_segments_and_report(server, browser, shots):
    page = new_page(browser, height=2000)
    page.goto(f"{server}/Data?data=per_query")
    wait_for_app(page, "Upload a per-query results file")
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        files=[
            {
                "name": "web_search_per_query.parquet",
                "mimeType": "application/octet-stream",
                "buffer": _per_query_parquet(),
            }
        ]
    )
    wait_for_app(page, "What the table holds")
    assert page.get_by_text("3 model(s), 300 queries, 8 measure column(s)").count() >= 1
    page.screenshot(path=str(shots / "data_per_query.png"), full_page=True)

    go_to(page, "Compare")
    wait_for_app(page, "Were there enough queries?")
    assert title(page) == "Compare models"
    box = page.locator(".st-key-verdict_box")
    box.get_by_text("hybrid: ").first.wait_for(timeout=WAIT)  # drawn after the title
    assert "nDCG@10 +0.24 (+43%)" in box.inner_text()  # the decision, from per-query values
    box.locator("summary").click()  # every row's sentences
    box.get_by_text("hybrid against lexical").first.wait_for(timeout=WAIT)
    assert "hybrid against lexical, over all 300 queries: better on" in box.inner_text()
    page.screenshot(path=str(shots / "compare_per_query.png"), full_page=True)
    open_tab(page, "queries")
    wait_for_app(page, "per-query values only")
    wait_for_charts(page, 1)

    go_to(page, "Segments")
    wait_for_app(page, "Where a segment points the other way")
    assert wait_for_charts(page, 2) == 2
    page.screenshot(path=str(shots / "segments_per_query.png"), full_page=True)

    go_to(page, "Report")
    wait_for_app(page, "This report is built from a table of per-query values")
    open_tab(page, "charts")
    wait_for_charts(page, 3)
    page.screenshot(path=str(shots / "report_per_query.png"), full_page=True)
    open_tab(page, "about")
    page.get_by_text("Not checked: the data health checks").first.wait_for()
    with page.expect_download() as download:
        page.get_by_text("Download the report (HTML").click()
    with open(download.value.path(), encoding="utf-8") as handle:
        exported = handle.read()
    assert 'id="left-out"' in exported
    assert "the data health checks of the runs and judgments" in exported
    assert "Not checked: the data health checks read the runs and judgments" in exported
    assert exported.index("Executive summary") < exported.index("Headline figures")
    page.context.close()
