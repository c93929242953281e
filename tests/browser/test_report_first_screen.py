"""The report's first screen in a real Chromium: the headline and the chart of the lead measure
fill a 1440 × 900 screen, a Chinese or Japanese report has no English in its charts, and on a
390 px phone neither the Report page nor the HTML report scrolls sideways."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from tests.browser.support import new_page, wait_for_app
from tests.chart_words import figure_texts, latin_words, svg_texts
from ui.shell.i18n import translate

pytestmark = pytest.mark.browser

WIDE, TALL, PHONE = 1440, 900, 390
#: What the charts may name in any language: models, measures, segment columns and values.
NAMES = ["lexical", "dense", "hybrid", "nDCG@10", "P@10", "nDCG", "P", "query_type", "traffic"]
NAMES += ["informational", "navigational", "transactional", "head", "torso", "tail"]


def _inside(page, selector: str) -> dict:
    """The bounding box of the first element matching ``selector``, checked to lie inside the
    viewport."""
    box = page.locator(selector).first.bounding_box()
    view = page.viewport_size
    assert box is not None, selector
    assert box["y"] >= 0 and box["y"] + box["height"] <= view["height"], (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"], (selector, box)
    return box


def _open_report(browser, server: str, lang: str, width: int = WIDE, height: int = TALL):
    phone = width == PHONE
    page = new_page(browser, width, height, has_touch=phone, is_mobile=phone, accept_downloads=True)
    page.goto(f"{server}/Report?m=nDCG,P&lang={lang}")
    page.locator(".st-key-verdict_box").wait_for()
    wait_for_app(page)
    shown = "phone_only" if phone else "wide_only"  # the other one is hidden
    page.locator(f".st-key-{shown}_report_lead .js-plotly-plot").wait_for()
    return page


def _download(page, label: str, lang: str, target: Path) -> str:
    with page.expect_download() as info:
        page.get_by_role("button", name=translate(label, lang)).click()
    info.value.save_as(target)
    return target.read_text(encoding="utf-8")


def _pictures(document: str) -> list[str]:
    """The SVG pictures of a light report, decoded."""
    found = re.findall(r'(?:src|srcset)="data:image/svg\+xml;base64,([^"]+)"', document)
    return [base64.b64decode(data).decode("utf-8") for data in found]


def test_the_report_pages_first_screen_shows_the_headline_and_the_lead_chart(server, browser):
    page = _open_report(browser, server, "en")
    _inside(page, ".st-key-verdict_box")
    title = page.get_by_text("nDCG@10: change vs lexical, over all queries and by query_type")
    assert title.first.is_visible()
    chart = _inside(page, ".st-key-wide_only_report_lead .js-plotly-plot")
    assert chart["height"] > 250
    legend = page.locator(".st-key-wide_only_report_lead .legendtext").all_text_contents()
    assert "confirmed better" in legend and "confirmed worse" in legend
    assert page.locator(".st-key-phone_only_report_lead").is_hidden()
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_the_html_reports_first_screen_is_the_headline_and_the_lead_chart(
    server, browser, lang, tmp_path
):
    page = _open_report(browser, server, lang)
    document = _download(page, "review_report.download_html", lang, tmp_path / "report.html")
    page.context.close()
    assert f'<html lang="{lang}">' in document and "plotly.js" not in document

    reader = new_page(browser, WIDE, TALL)
    reader.goto((tmp_path / "report.html").as_uri())
    reader.wait_for_load_state("load")
    _inside(reader, "h1")
    _inside(reader, ".verdict .headline")
    lead = _inside(reader, "#lead img")
    assert lead["height"] > 250
    assert reader.evaluate("() => document.documentElement.scrollWidth") <= WIDE
    reader.context.close()

    phone = new_page(browser, PHONE, 844, has_touch=True, is_mobile=True)
    phone.goto((tmp_path / "report.html").as_uri())
    phone.wait_for_load_state("load")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE
    shown = phone.evaluate("() => document.querySelector('#lead img').currentSrc")
    phone_picture = phone.evaluate("() => document.querySelector('#lead source').srcset")
    assert shown == phone_picture  # the picture laid out for a phone
    box = phone.locator("#lead img").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE
    phone.context.close()

    pictures = _pictures(document)
    assert len(pictures) == 4  # the lead chart (wide and phone), the Δ curve, the wins
    if lang != "en":
        texts = [text for svg in pictures for text in svg_texts(svg)]
        texts += re.findall(r'alt="([^"]*)"', document)
        assert len(texts) > 60
        assert latin_words(texts, NAMES) == []


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_the_interactive_reports_charts_carry_no_english(server, browser, lang, tmp_path):
    page = _open_report(browser, server, lang)
    _download(page, "review_report.download_interactive", lang, tmp_path / "report.html")
    page.context.close()
    reader = new_page(browser, WIDE, TALL)
    reader.goto((tmp_path / "report.html").as_uri())
    reader.wait_for_load_state("load")
    reader.locator(".js-plotly-plot").nth(3).wait_for(state="attached")
    specs = reader.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')].map(
               e => JSON.stringify({data: e.data, layout: e.layout}))"""
    )
    reader.context.close()
    assert len(specs) == 4
    texts = [text for spec in specs for text in figure_texts(json.loads(spec))]
    assert len(texts) > 40
    assert latin_words(texts, NAMES) == []


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_on_a_phone_the_report_page_does_not_scroll_sideways(server, browser, lang):
    page = _open_report(browser, server, lang, PHONE, 844)
    assert page.locator(".st-key-wide_only_report_lead").is_hidden()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE
    page.context.close()
