"""The Labels page in a real Chromium, in English, Chinese and Japanese, on the rag_evidence
sample: the sources with their provenance, agreement and the confusion matrix drawn, the verdict
line at the top, and the label source chosen in the sidebar kept in the link. Screenshots:
``labels.png``, ``labels_zh.png``, ``labels_ja.png``."""

from __future__ import annotations

import pytest

from tests.browser.support import (
    choose,
    new_page,
    title,
    wait_for_app,
    wait_for_charts,
    wait_for_tables,
)
from ui.shell.i18n import translate

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    page = new_page(browser, 1400, 3600)
    yield page
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_the_labels_page_draws_agreement_and_consequence_in_every_language(
    server, page, shots, lang
):
    page.goto(f"{server}/Labels?data=rag_evidence&lang={lang}")
    wait_for_app(page, translate("labels.no_flip", lang))
    assert title(page) == translate("labels.title", lang)
    assert wait_for_charts(page, 1) == 1
    heatmap = page.locator(".js-plotly-plot").first.inner_text()
    assert translate("labels.fig.confusion", lang, a="annotators", b="llm_judge") in heatmap
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert "0.49" in text  # Cohen's kappa of the sample, in the line under the verdict
    assert translate("labels.stat.kappa", lang) in text
    assert page.locator('[data-testid="stException"]').count() == 0
    wait_for_tables(page)
    name = "labels.png" if lang == "en" else f"labels_{lang}.png"
    page.screenshot(path=str(shots / name), full_page=True)


def test_the_label_source_chosen_in_the_sidebar_is_kept_in_the_link(server, page):
    page.goto(f"{server}/Labels?data=rag_evidence")
    wait_for_app(page, translate("labels.no_flip", "en"))
    choose(page, translate("policy.label_source.label", "en"), "llm_judge")
    page.wait_for_url("**labels=llm_judge**")
    wait_for_app(page, "Every other page uses the judgments of llm_judge")
    page.reload()
    wait_for_app(page, "Every other page uses the judgments of llm_judge")
    assert "labels=llm_judge" in page.url
