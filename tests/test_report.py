"""The stakeholder report: self-contained HTML with settings and hash, escaped user text, CSV."""

from __future__ import annotations

import io
import json
import re
import zipfile

import pandas as pd
import pytest

from metrics import Settings, evaluate
from metrics.io.samples import load_sample
from metrics.review.callouts import callouts
from metrics.review.compare import CompareOptions, delta_curves
from metrics.review.stakeholder_report import (
    REPORT_TEMPLATES,
    ReportInputs,
    build_report_html,
    html_table,
    report_tables,
    report_zip,
)
from metrics.review.verdict import ReviewRequest, review_table
from ui.review.figures import delta_curve_figure
from ui.shell.i18n import templates

EVIL = "<script>alert(1)</script>"
OPTIONS = CompareOptions(resamples=500, seed=11, correction="bh")


@pytest.fixture(scope="module")
def inputs():
    data = load_sample("web_search")
    run = data.run.copy()
    run["model"] = run["model"].replace({"dense": EVIL})
    settings = Settings(gain="exponential")
    ev = evaluate(run, data.qrels, ["nDCG@10", "P@10"], settings)
    request = ReviewRequest(
        "lexical", (EVIL, "hybrid"), ("nDCG@10", "P@10"), ("query_type",), OPTIONS
    )
    review = review_table(ev, request, data.segments)
    found = callouts(review, "nDCG@10")
    curve = delta_curves(ev, "lexical", "hybrid", "nDCG", 10, options=OPTIONS)
    findings = pd.DataFrame(
        {
            "severity": ["warning"],
            "message": [f"odd id {EVIL}"],
            "count": [1],
            "examples": [[EVIL]],
            "action": ["=cmd()"],
        }
    )
    return ReportInputs(
        dataset_name=f"web {EVIL}",
        content_hash=data.content_hash,
        models=ev.models,
        baseline="lexical",
        measures=ev.measure_names,
        ks=[1, 5, 10],
        n_queries=300,
        settings=settings,
        options=OPTIONS,
        review=review,
        description="sample & test",
        segment_by=["query_type"],
        callout_sentences=[(r["callout"], r["sentence"]) for r in found.to_dict("records")],
        findings=findings,
        figures=[("nDCG delta", delta_curve_figure({"hybrid": curve}, "nDCG", "lexical"))],
        generated_at="2026-01-01 00:00 UTC",
    )


@pytest.fixture(scope="module")
def page(inputs):
    return build_report_html(inputs)


def test_report_contains_the_content_hash_and_every_setting(page, inputs):
    assert inputs.content_hash in page
    for text in (
        "Relevance level (value)",
        "exponential",
        "macro",
        "K values of the curves",
        "1, 5, 10",
        "500 resamples",
        "Benjamini",
        "Random seed",
        "nDCG@10, P@10",
    ):
        assert text in page, text


def test_report_embeds_machine_readable_provenance(page, inputs):
    match = re.search(r'<script type="application/json" id="provenance">(.*?)</script>', page, re.S)
    document = json.loads(match.group(1))
    assert document["content_hash"] == inputs.content_hash
    assert document["settings"]["gain"] == "exponential"
    assert document["options"] == {
        "policy": "intersection",
        "resamples": 500,
        "seed": 11,
        "confidence": 0.95,
        "correction": "bh",
        "test": "p_randomization",
        "alpha": 0.05,
        "min_effect": {},
        "power": 0.8,
    }
    assert document["family"] == "view"
    assert document["dataset"] == "web " + EVIL  # escaped for the script context, same value


def test_malicious_ids_are_escaped_everywhere(page):
    assert EVIL not in page
    assert "alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_report_is_self_contained_with_plotly_inlined_once(page):
    assert page.count("* plotly.js v") == 1
    assert not re.search(r"<script[^>]*\bsrc=", page) and 'rel="stylesheet"' not in page
    assert 'id="chart-0"' in page


def test_the_verdict_comes_first_then_figures_glossary_and_segment_findings(page):
    order = [
        "Executive summary",
        "hybrid against lexical, over all 300 queries: better on nDCG@10 (+0.2",
        "Headline figures",
        "Candidates against each other",
        "Measures used",
        "nDCG@10 · nDCG</dt><dd>Graded gain discounted by rank",
        "Segment findings",
        "Data health",
        "Settings and provenance",
    ]
    places = [page.index(text) for text in order]
    assert places == sorted(places)
    assert "hybrid is ahead of the baseline and of every other candidate on nDCG@10" in page


def test_segment_findings_say_where_hybrid_loses_with_the_family_of_the_correction(page):
    assert (
        "hybrid is better than lexical overall on nDCG@10 (+0.2" in page
        and "but is significantly worse where query_type = navigational" in page
    )
    assert (
        "Holm" not in page
        or "Benjamini–Hochberg over 3 segments × 2 measures × 2 candidates" in page
    )
    assert 'class="callout"' in page


def test_rows_are_coloured_by_verdict(page):
    assert page.count('<tr class="better">') >= 2


def test_the_report_is_written_in_the_language_it_is_given(inputs):
    from dataclasses import replace

    from metrics.review.headline import verdict_sentences
    from metrics.review.wording import VERDICT_TEMPLATES

    words = templates({**VERDICT_TEMPLATES}, "ja")
    japanese = replace(
        inputs,
        words=templates(REPORT_TEMPLATES, "ja"),
        lang="ja",
        verdict=verdict_sentences(inputs.review, words),
        generated_at="2026-01-01 00:00 UTC",
    )
    page = build_report_html(japanese)
    assert '<html lang="ja">' in page
    for text in ("要約", "主な数値", "使用した指標", "設定と出所", "hybrid と lexical の比較"):
        assert text in page, text
    assert "Executive summary" not in page and "Headline figures" not in page


def test_html_table_escapes_headers_and_cells_and_right_aligns_numbers():
    out = html_table(pd.DataFrame({"<b>": ["<i>x</i>"], "delta": [-0.5]}))
    assert "<th>&lt;b&gt;</th>" in out and "<td>&lt;i&gt;x&lt;/i&gt;</td>" in out
    assert '<td class="num">-0.5000</td>' in out


def test_csv_tables_are_excel_safe(inputs):
    files = report_tables(inputs)
    assert set(files) == {
        "comparison.csv",
        "candidates.csv",
        "segments.csv",
        "data_health.csv",
        "settings.csv",
    }
    health = pd.read_csv(io.BytesIO(files["data_health.csv"]), encoding="utf-8-sig")
    assert health["action"].tolist() == ["'=cmd()"]
    comparison = pd.read_csv(io.BytesIO(files["comparison.csv"]), encoding="utf-8-sig")
    assert comparison["delta"].dtype == float
    assert comparison.loc[comparison["candidate"] == "hybrid", "n"].tolist() == [300, 300]
    # numbers without float noise: 6 significant digits at most
    assert all(len(f"{v:.15g}".lstrip("-0.").replace(".", "")) <= 6 for v in comparison["delta"])


def test_zip_holds_the_tables_and_the_html(inputs, page):
    with zipfile.ZipFile(io.BytesIO(report_zip(inputs, page))) as archive:
        assert sorted(archive.namelist()) == [
            "candidates.csv",
            "comparison.csv",
            "data_health.csv",
            "report.html",
            "segments.csv",
            "settings.csv",
        ]
        assert archive.read("report.html").decode("utf-8") == page
