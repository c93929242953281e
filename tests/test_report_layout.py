"""The HTML report's layout: a first screen of the headline and the lead measure's chart, tables
that scroll inside themselves, and columns wide enough for Chinese and Japanese words."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from functools import partial

import pytest

from metrics import Settings, evaluate
from metrics.io.samples import load_sample
from metrics.review.compare import CompareOptions
from metrics.review.stakeholder_report import (
    ReportInputs,
    build_report_html,
    report_charts,
)
from metrics.review.verdict import ReviewRequest, review_table
from metrics.review.wording import VERDICT_TEMPLATES
from ui.review.figures import lead_measure_figure, lead_titles, win_tie_loss_figure
from ui.shell.i18n import templates as catalog_templates
from ui.shell.i18n import translate


@pytest.fixture(scope="module")
def inputs() -> ReportInputs:
    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["P@10", "nDCG@10"], Settings())
    request = ReviewRequest(
        "lexical", ("hybrid",), ("P@10", "nDCG@10"), ("query_type",), CompareOptions(resamples=200)
    )
    review = review_table(ev, request, data.segments)
    title, note = lead_titles(review, "nDCG@10", ["query_type"])
    return ReportInputs(
        dataset_name="web_search",
        content_hash=data.content_hash,
        models=ev.models,
        baseline="lexical",
        measures=["P@10", "nDCG@10"],
        ks=[10],
        n_queries=300,
        settings=Settings(),
        options=request.options,
        review=review,
        description="Three retrieval models.",
        segment_by=["query_type"],
        headline=["Ship hybrid: nDCG@10 +0.244.", "Watch navigational."],
        recommendations=[("hybrid", "ship")],
        lead_title=title,
        lead_note=note,
        lead_figures=(
            lead_measure_figure(review, "nDCG@10", ["query_type"], titled=False),
            lead_measure_figure(review, "nDCG@10", ["query_type"], titled=False, narrow=True),
        ),
        figures=[("Queries better, tied, worse", win_tie_loss_figure(review.head(1)))],
        generated_at="2026-01-01 00:00 UTC",
    )


def test_the_lead_measure_is_nDCG_at_10_when_computed_else_the_first_measure(inputs):
    assert inputs.lead_measure == "nDCG@10"
    assert replace(inputs, measures=["P@10", "RR"], lead_measure="").lead_measure == "P@10"


def test_the_first_screen_is_the_title_the_headline_and_the_lead_chart(inputs):
    page = build_report_html(inputs, ["<svg>wide</svg>", "<svg>phone</svg>", "<svg>wins</svg>"])
    order = [
        "<h1>Model review: web_search</h1>",
        '<p class="closing">hybrid: ship</p>',
        '<p class="headline">Ship hybrid: nDCG@10 +0.244. Watch navigational.</p>',
        '<details class="rows">',
        "hybrid against lexical, over all 300 queries",  # the per-row sentences, one click away
        '<section class="lead" id="lead">',
        "<h2>nDCG@10: change vs lexical, over all queries and by query_type</h2>",
        "Headline figures",
        "Settings and provenance",
        "Three retrieval models.",  # the data set's description, with the provenance
    ]
    places = [page.index(text) for text in order]
    assert places == sorted(places)


def test_the_light_report_shows_the_phones_picture_of_the_lead_chart_on_a_phone(inputs):
    page = build_report_html(inputs, ["<svg>wide</svg>", "<svg>phone</svg>", "<svg>wins</svg>"])
    lead = page[page.index('<section class="lead"') : page.index("</section>")]
    sources = re.findall(r'(?:srcset|src)="data:image/svg\+xml;base64,([^"]+)"', lead)
    assert len(sources) == 2  # the phone's, then the wide one
    assert '<source media="(max-width: 640px)"' in lead
    assert f'alt="{inputs.lead_title}"' in lead
    assert f'<figcaption class="muted">{html.escape(inputs.lead_note)}</figcaption>' in lead
    assert page.count("<img ") == 2  # the lead chart and the wins


def test_pictures_are_one_per_chart_the_lead_chart_first(inputs):
    assert len(report_charts(inputs)) == 3
    with pytest.raises(ValueError, match="2 pictures for 3 figures"):
        build_report_html(inputs, ["<svg/>", "<svg/>"])


def test_the_interactive_report_draws_the_lead_chart_first_with_plotly_inlined_there(inputs):
    page = build_report_html(inputs)
    assert page.count("* plotly.js v") == 1
    wide = page.index('<div class="chart wide-only"')
    phone = page.index('<div class="chart phone-only"')
    assert wide < page.index("* plotly.js v") < phone < page.index("Headline figures")
    assert '"responsive": true' in page


def test_every_table_scrolls_inside_itself_and_the_page_does_not(inputs):
    page = build_report_html(inputs)
    assert page.count("<table>") == page.count('<div class="table-wrap"><table>') >= 3
    style = page[page.index("<style>") : page.index("</style>")]
    assert ".table-wrap{overflow-x:auto" in style
    assert "@media (max-width:640px){main{padding:12px" in style


def test_chinese_and_japanese_headers_keep_their_words_on_one_line(inputs):
    style = build_report_html(inputs)
    assert "th{background:#f6f8fa;word-break:keep-all}" in style
    assert ":lang(zh) th,:lang(ja) th{white-space:nowrap}" in style
    assert ":lang(zh) td,:lang(ja) td{min-width:4em;word-break:keep-all}" in style


def test_without_a_headline_the_summary_is_the_verdict(inputs):
    page = build_report_html(replace(inputs, headline=[], recommendations=[]))
    summary = page[page.index('<div class="verdict">') : page.index('<section class="lead"')]
    assert "<details" not in summary and "hybrid against lexical" in summary


def test_segment_findings_without_a_reversal_name_the_lead_measure(inputs):
    page = build_report_html(replace(inputs, callout_sentences=[]))
    assert "as overall on nDCG@10." in page


def test_the_lead_chart_of_a_chinese_report_has_its_words_in_chinese(inputs):
    tr = partial(translate, lang="zh")
    words = catalog_templates(VERDICT_TEMPLATES, "zh")
    title, note = lead_titles(inputs.review, "nDCG@10", ["query_type"], tr, words)
    assert title == "nDCG@10：相对 lexical 的变化，全部查询与按 query_type 的分群"
    assert note.startswith("误差线：")
