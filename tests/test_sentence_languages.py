"""Headline and segment-reversal sentences, and measure names, follow the chosen language."""

from __future__ import annotations

import pandas as pd
import pytest

from metrics.review.compare import HEADLINE_TEMPLATES, headline
from metrics.review.segments import REVERSAL_TEMPLATES, reversal_sentence
from tests.app_support import fresh_app, open_page
from tests.test_app_review_pages import open_review, shown_text
from ui.shell import i18n
from ui.shell.i18n import catalog, sentence_templates

#: One comparison row as metrics.review.compare.comparison_table gives it (numbers made up).
ROW = {
    "baseline": "lexical",
    "candidate": "hybrid",
    "measure": "nDCG@10",
    "n": 300,
    "mean_a": 0.54,
    "mean_b": 0.7734,
    "delta": 0.2334,
    "relative_delta": 0.4322,
    "ci_low": 0.2061,
    "ci_high": 0.2652,
    "p_adjusted": 0.0021,
    "significant": True,
    "direction": "better",
    "wins": 228,
    "ties": 7,
    "losses": 65,
}

#: One row of metrics.review.segments.reversals, small segment.
REVERSAL = {
    "measure": "nDCG@10",
    "query_type": "navigational",
    "n": 11,
    "small": True,
    "winner": "hybrid",
    "beaten_by": "lexical",
    "winner_mean": 0.7541,
    "other_mean": 0.8853,
    "delta": -0.1312,
    "ci_low": -0.1804,
    "ci_high": -0.0833,
    "p_adjusted": 0.0004,
    "significant": True,
}


def test_english_headline_is_unchanged_by_default_and_by_the_english_catalog():
    table = pd.DataFrame([ROW])
    expected = (
        "hybrid beats lexical on nDCG@10: 0.773 vs 0.540, delta +0.233 (+43.2%); "
        "95% CI [+0.206, +0.265]; corrected p = 0.002 (clear; 228 queries better, "
        "65 worse, 7 tied)."
    )
    assert headline(table) == [expected]
    assert headline(table, templates=sentence_templates("en")) == [expected]


def test_english_reversal_is_unchanged_by_default_and_by_the_english_catalog():
    expected = (
        "hybrid is best overall on nDCG@10 but loses to lexical where query_type = "
        "navigational: 0.754 vs 0.885 (-0.131, 95% CI [-0.180, -0.083], corrected "
        "p < 0.001; the difference is significant). Only 11 queries: treat with care."
    )
    assert reversal_sentence(REVERSAL, ["query_type"]) == expected
    assert reversal_sentence(REVERSAL, ["query_type"], 0.95, sentence_templates("en")) == expected


def test_english_catalog_holds_the_engine_wording_word_for_word():
    english = catalog("en")
    for key, text in {**HEADLINE_TEMPLATES, **REVERSAL_TEMPLATES}.items():
        assert english[key] == text, key


def test_a_sentence_written_as_plural_forms_in_a_catalog_keeps_the_engine_wording(monkeypatch):
    key = next(iter(HEADLINE_TEMPLATES))
    plural = {"one": "one query", "other": "{n} queries"}
    monkeypatch.setattr(i18n, "catalog", lambda lang: {key: plural})
    wording = sentence_templates("zh")
    assert wording[key] == HEADLINE_TEMPLATES[key]


def test_chinese_headline_keeps_the_numbers_formatted_the_same_way():
    table = pd.DataFrame(
        [
            ROW,
            {
                **ROW,
                "direction": "unclear",
                "significant": False,
                "relative_delta": float("nan"),
                "p_adjusted": float("nan"),
            },
        ]
    )
    better, unclear = headline(table, templates=sentence_templates("zh"))
    assert better == (
        "hybrid 在 nDCG@10 上优于 lexical：0.773 vs 0.540，差值 +0.233（+43.2%）；"
        "95% 置信区间 [+0.206, +0.265]；校正后 p = 0.002（显著；228 个查询更好，"
        "65 个更差，7 个持平）。"
    )
    assert unclear.startswith(
        "hybrid 与 lexical 在 nDCG@10 上没有明显差异：0.773 vs 0.540，差值 +0.233；"
    )
    assert "校正后 p 无法计算（不显著；" in unclear


def test_japanese_reversal_names_the_segment_and_the_small_sample():
    two = {**REVERSAL, "traffic": "head", "significant": False}
    sentence = reversal_sentence(two, ["query_type", "traffic"], 0.9, sentence_templates("ja"))
    assert sentence == (
        "hybrid は nDCG@10 で全体では最良だが、query_type が navigational、"
        "traffic が head のクエリでは lexical を下回る：0.754 vs 0.885（-0.131、"
        "90% 信頼区間 [-0.180, -0.083]、補正後 p < 0.001、差は有意でない）。"
        "クエリは 11 件のみ。慎重に解釈してください。"
    )


@pytest.mark.slow
def test_segments_page_in_chinese_says_hybrid_loses_to_lexical_on_navigational_queries():
    at = open_review("5_Segments")
    at.selectbox(key="w_seg_measure").set_value("nDCG").run()
    # Last: AppTest re-sends the other selectboxes' English option labels after a switch.
    at.sidebar.selectbox(key="w_lang").set_value("zh").run()
    assert not at.exception, [e.value for e in at.exception]
    lines = shown_text(at).replace("&lt;", "<").splitlines()
    found = [line for line in lines if "hybrid 在 nDCG@10 上整体优于 lexical" in line]
    assert any(
        "hybrid 在 nDCG@10 上整体优于 lexical（+0.244，校正后 p < 0.002）" in line
        and "但在 query_type = navigational 上显著更差：0.801 vs 0.939" in line
        and "随机化检验，Holm 校正，范围为 3 个分群 × 4 个指标 × 2 个候选模型" in line
        for line in found
    ), found
    assert "better than" not in "\n".join(lines)


@pytest.mark.slow
def test_compare_page_linked_in_japanese_gives_the_headline_in_japanese():
    at = open_review("4_Compare", {"lang": "ja"})
    text = shown_text(at)
    assert (
        "hybrid と lexical の比較（全 300 クエリ）：nDCG@10（+0.244）、P@10（+0.227）、"
        "R@10（+0.102） と RR@10（+0.143）、いずれも p < 0.002 で改善。" in text
    )
    assert "hybrid は nDCG@10、P@10、R@10 と RR@10 でベースラインとほかのすべての候補モデル" in text
    assert "is better than" not in text and "against" not in text


def test_learn_cards_name_the_measures_in_chinese():
    at = open_page(fresh_app({"lang": "zh"}), "learn")
    shown = [m.value for m in at.markdown]
    assert "**P · 精确率**" in shown and "**R · 召回率**" in shown
    assert not any("Precision" in text or "Recall" in text for text in shown)


def test_learn_cards_keep_the_registry_names_in_english():
    at = open_page(fresh_app(), "learn")
    shown = [m.value for m in at.markdown]
    assert "**Precision**" in shown and "**Recall**" in shown
