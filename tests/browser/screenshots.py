"""Screenshots of every page at 1400 px wide into docs/screenshots (``python -m
tests.browser.screenshots [NAME ...]``, all of them without names). The end-to-end test takes the
three main ones as well.

The Chinese and Japanese ones (``data_zh``, ``compare_ja``, ...) show the pages as a user of that
language sees them: look at them for English left over and for empty boxes where a font lacks
glyphs. ``VIEW_SHOTS`` are views at a given width, 1440 px or a phone's 390 px, in the three
languages: Learn's several lists (``learn_queries``, ``learn_queries_phone_zh``, ...), Segments,
Compare and the Report page's first screen (``segments_phone_ja``, ``compare_phone``,
``report_wide_zh``, ...).
"""

from __future__ import annotations

import sys

from playwright.sync_api import sync_playwright

from tests.browser.support import (
    CHROMIUM,
    LAUNCH_ARGS,
    ROOT,
    new_page,
    streamlit_server,
    upload_run_and_judgments,
    wait_for_app,
    wait_for_charts,
    wait_for_curve,
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


#: name -> (URL path, catalog key of a text to wait for, charts to wait for), in two languages.
LANGUAGE_SHOTS = {
    f"{page}_{lang}": (f"/{path}?lang={lang}", key, charts)
    for lang in ("zh", "ja")
    for page, path, key, charts in (
        ("data", "Data", "health.title", 0),
        ("compare", "Compare", "compare.power_title", 0),
        ("report", "Report", "review_report.figures", 1),
    )
}
ENGLISH_SHOTS = ("data_handbuilt", "data_upload", "learn_zh", "curves_ja")

WIDE, PHONE = 1440, 390
#: name -> (width, height, URL path, catalog key of a text to wait for, what to scroll to or
#: None for the top of the page), in three languages (English without a suffix).
VIEW_SHOTS = {
    f"{name}{'' if lang == 'en' else '_' + lang}": (
        width,
        height,
        f"{path}{'&' if '?' in path else '?'}lang={lang}",
        key,
        scroll,
    )
    for lang in ("en", "zh", "ja")
    for name, width, height, path, key, scroll in (
        ("learn_queries", WIDE, 2000, "/Learn?lq=1", "learn.queries.means", None),
        ("learn_queries_phone", PHONE, 2400, "/Learn?lq=1", "learn.queries.means", ".ll-root"),
        ("segments_wide", WIDE, 1800, "/Segments?m=nDCG", "segments.callouts_title", None),
        ("segments_phone", PHONE, 2400, "/Segments?m=nDCG", "segments.callouts_title", None),
        ("report_wide", WIDE, 900, "/Report?m=nDCG,P", "review_report.figures", None),
        ("report_phone", PHONE, 1800, "/Report?m=nDCG,P", "review_report.figures", None),
        ("compare_wide", WIDE, 1800, "/Compare?m=nDCG,P", "compare.power_title", None),
        ("compare_phone", PHONE, 2400, "/Compare?m=nDCG,P", "compare.power_title", "h3"),
        (
            "compare_queries",
            WIDE,
            2400,
            "/Compare?m=nDCG,P&ctab=queries",
            "compare.drill_title",
            None,
        ),
    )
}


def view_shots(browser, url: str, wanted: set[str]) -> None:
    """The ``VIEW_SHOTS`` in ``wanted``; a phone's page is a touch screen."""
    from ui.shell.i18n import translate

    for name, (width, height, path, key, scroll) in VIEW_SHOTS.items():
        if name not in wanted:
            continue
        lang = path.rsplit("lang=", 1)[1]
        phone = width == PHONE
        page = new_page(browser, width, height, has_touch=phone, is_mobile=phone)
        page.goto(url + path)
        wait_for_app(page, translate(key, lang))
        page.wait_for_timeout(3000)  # charts and tables draw after the page's run
        if scroll == "h3":  # Compare: from the table of deltas on
            scroll = f'h3:has-text("{translate("compare.deltas", lang)}")'
        if scroll:  # to it, and a little back up: the page's header bar covers the top
            page.locator(scroll).first.evaluate("e => e.scrollIntoView()")
            page.mouse.move(width / 2, height / 2)
            page.mouse.wheel(0, -150)
            page.wait_for_timeout(1000)
        page.screenshot(path=str(SHOTS / f"{name}.png"))
        page.context.close()


def main(names: list[str]) -> None:
    from ui.shell.i18n import translate

    wanted = set(names or [*ENGLISH_SHOTS, *LANGUAGE_SHOTS, *VIEW_SHOTS])
    SHOTS.mkdir(parents=True, exist_ok=True)
    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        view_shots(browser, url, wanted)
        page = new_page(browser)
        for name, (path, key, charts) in LANGUAGE_SHOTS.items():
            if name not in wanted:
                continue
            page.goto(url + path)
            wait_for_app(page, translate(key, name.rsplit("_", 1)[1]))
            wait_for_charts(page, charts)
            page.wait_for_timeout(3000)  # the tables' canvases (some sit in closed expanders)
            page.screenshot(path=str(SHOTS / f"{name}.png"))
        if not wanted & set(ENGLISH_SHOTS):
            browser.close()
            return
        page.goto(f"{url}/Data?data=handbuilt")
        wait_for_app(page, "Sort by rank")
        wait_for_tables(page)
        page.screenshot(path=str(SHOTS / "data_handbuilt.png"))
        page.goto(f"{url}/Data?data=upload")
        wait_for_app(page, "Upload at least one run file")
        upload_run_and_judgments(page, RUN, QRELS)
        wait_for_app(page, "Data health")
        wait_for_tables(page)
        page.screenshot(path=str(SHOTS / "data_upload.png"))
        for name, path in (
            ("learn_zh", "/Learn?lang=zh&gain=exponential"),
            ("curves_ja", "/Curves?lang=ja&m=nDCG,R&k=1-50"),
        ):
            page.goto(url + path)
            wait_for_app(page)
            if name.startswith("learn"):
                wait_for_curve(page)  # an SVG picture, not a plotly chart
            else:
                wait_for_charts(page, 1)
            wait_for_tables(page)
            page.screenshot(path=str(SHOTS / f"{name}.png"))
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
