"""Screenshots of every page at 1400 px wide into docs/screenshots (``python -m
tests.browser.screenshots``). The end-to-end test takes the three main ones as well."""

from __future__ import annotations

from playwright.sync_api import sync_playwright

from tests.browser.support import (
    CHROMIUM,
    LAUNCH_ARGS,
    ROOT,
    streamlit_server,
    upload_run_and_judgments,
    wait_for_app,
    wait_for_charts,
    wait_for_tables,
)

SHOTS = ROOT / "docs" / "screenshots"
RUN = b"query,item,score,model\n" + b"".join(
    f"q{q},d{i},{10 - i},{m}\n".encode()
    for m in ("alpha", "beta")
    for q in range(1, 4)
    for i in range(6)
)
QRELS = b"query,item,relevance\nq1,d0,1\nq1,d3,2\nq2,d1,1\nq3,d5,1\n"


def main() -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        page.goto(f"{url}/Data?data=handbuilt")
        wait_for_app(page, "Sort by position")
        wait_for_charts(page, 1)
        wait_for_tables(page)
        page.screenshot(path=str(SHOTS / "data_handbuilt.png"))
        page.goto(f"{url}/Data?data=upload")
        wait_for_app(page, "Upload at least one run file")
        upload_run_and_judgments(page, RUN, QRELS)
        wait_for_app(page, "Validation report")
        wait_for_charts(page, 1)
        wait_for_tables(page)
        page.screenshot(path=str(SHOTS / "data_upload.png"))
        for name, path in (
            ("learn_zh", "/Learn?lang=zh&gain=exponential"),
            ("curves_ja", "/Curves?lang=ja&m=nDCG,R&k=1-50"),
        ):
            page.goto(url + path)
            wait_for_app(page)
            wait_for_charts(page, 1)
            wait_for_tables(page)
            page.screenshot(path=str(SHOTS / f"{name}.png"))
        browser.close()


if __name__ == "__main__":
    main()
