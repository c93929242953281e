"""One comparison result read everywhere: the same corrected p and verdict on every surface.

Two models, 50 queries, a ``country`` column. In JP the candidate loses 9 of 10 queries (raw
p = 22/1024 ≈ 0.021 by exact enumeration), which looks significant, but after Holm over 4
countries (each measure its own family) it is 0.086: not significant. Overall the two models are
not clearly different. Every surface must say so with the same number, and say why a JP
interval that excludes 0 is still "no clear difference".
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from metrics import evaluate
from metrics.cli.compare import main as compare_main
from metrics.errors import SettingsError
from metrics.io.loaders import load_dataset, load_table
from metrics.review.callouts import callout_sentence, callouts
from metrics.review.compare import CompareOptions
from metrics.review.headline import leaders, verdict_sentences
from metrics.review.stakeholder_report import ReportInputs, build_report_html, report_tables
from metrics.review.verdict import (
    ReviewRequest,
    overall_rows,
    pairwise_rows,
    review_table,
    segment_rows,
)
from metrics.review.wording import VERDICT_TEMPLATES, family_text, format_p, row_p
from ui.review.figures import pairwise_matrix_figure, segment_delta_figure
from ui.review.tables import export_csv, export_json, review_display, segment_display
from ui.shell.i18n import templates

#: country -> (candidate wins, candidate losses); each win or loss moves RR by 0.5.
HELD_OUT = {"DE": (8, 7), "FR": (5, 5), "JP": (1, 9), "US": (10, 5)}


def held_out_files(tmp_path) -> tuple[str, str, str, str]:
    """qrels, baseline run, candidate run and query table of the held-out situation (made up
    here: one relevant item per query, placed first or second by each model)."""
    run_a, run_b, qrels, queries = [], [], [], []
    number = 0
    for country, (wins, losses) in HELD_OUT.items():
        for i in range(wins + losses):
            number += 1
            query = f"q{number:02d}"
            # a loss: baseline ranks the relevant item first, the candidate second
            rank_a, rank_b = (2, 1) if i < wins else (1, 2)
            for model, rank, rows in (("lexical", rank_a, run_a), ("hybrid", rank_b, run_b)):
                order = ["rel", "other"] if rank == 1 else ["other", "rel"]
                rows += [f"{query},{item},{2 - pos},{model}" for pos, item in enumerate(order)]
            qrels.append(f"{query},rel,1")
            queries.append(f"{query},{country}")
    paths = []
    for name, header, lines in (
        ("qrels.csv", "query,item,relevance", qrels),
        ("lexical.csv", "query,item,score,model", run_a),
        ("hybrid.csv", "query,item,score,model", run_b),
        ("queries.csv", "query,country", queries),
    ):
        path = tmp_path / name
        path.write_text(header + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    return tuple(paths)


OPTIONS = CompareOptions(resamples=2_000, seed=0)


@pytest.fixture(scope="module")
def held_out(tmp_path_factory):
    paths = held_out_files(tmp_path_factory.mktemp("held_out"))
    qrels, lexical, hybrid, query_table = paths
    data = load_dataset(
        [load_table(lexical, "lexical.csv"), load_table(hybrid, "hybrid.csv")],
        load_table(qrels, "qrels.csv"),
        load_table(query_table, "queries.csv"),
    )
    ev = evaluate(data.run, data.qrels, ["RR@10", "P@1"])
    request = ReviewRequest(
        "lexical", ("hybrid",), ("RR@10", "P@1"), ("country",), OPTIONS, family="measure"
    )
    review = review_table(ev, request, data.segments)
    jp = segment_rows(review, "RR@10").set_index("country").loc["JP"]
    return paths, data, ev, review, jp


def test_jp_looks_significant_raw_but_not_after_holm_over_four_countries(held_out):
    *_, jp = held_out
    assert jp["p_raw"] == pytest.approx(22 / 1024)  # exact enumeration of 2**10 sign flips
    assert jp["p_adjusted"] == pytest.approx(4 * 22 / 1024)
    assert (jp["verdict"], bool(jp["significant"]), bool(jp["p_bound"])) == (
        "unclear",
        False,
        False,
    )
    assert jp["family_text"] == "randomization test, Holm over 4 segments × 1 candidate (RR@10)"


def test_call_out_gives_the_tables_corrected_p_and_does_not_call_anyone_best(held_out):
    *_, review, jp = held_out
    found = callouts(review, "RR@10").set_index("country")
    sentence = found.loc["JP", "sentence"]
    assert "p = 0.086" in sentence and "not significant after correction" in sentence
    assert "hybrid is not clearly different from lexical overall on RR@10" in sentence
    assert "best" not in sentence and "winner" not in sentence
    assert found.loc["JP", "p_adjusted"] == jp["p_adjusted"]


def test_the_verdict_box_says_no_model_is_clearly_ahead(held_out):
    *_, review, _ = held_out
    sentences = verdict_sentences(review)
    assert sentences[""] == ["No candidate is clearly better than lexical on any measure."]
    assert sentences["hybrid"][0] == (
        "hybrid is not clearly different from lexical on any measure over all 50 queries."
    )
    jp = [s for s in sentences["hybrid"] if s.startswith("Where country = JP")]
    # a watch item, never "no clear difference"; its interval agrees with its test
    assert jp == [
        "Where country = JP: to watch, not confirmed after the correction: P@1 (-0.800, raw "
        "p = 0.021) and RR@10 (-0.400, raw p = 0.021)."
    ]
    assert sentences["hybrid"][-1] == "In the other 3 segments, no clear difference."
    assert leaders(review) == {}


def test_segment_table_forest_plot_csv_and_json_carry_the_same_corrected_p(held_out):
    *_, review, jp = held_out
    text = row_p(jp)
    assert text == "p = 0.086"
    means = pd.DataFrame(
        {"country": ["DE", "FR", "JP", "US", "(all)"], "n": [15, 10, 10, 15, 50]}
    ).assign(small=False, lexical=0.0, hybrid=0.0)
    overall = overall_rows(review)
    table = segment_display(
        means,
        segment_rows(review, "RR@10"),
        overall[overall["measure"] == "RR@10"],
        ["country"],
        ["lexical", "hybrid"],
        ["hybrid"],
    ).set_index("country")
    assert table.loc["JP", "corrected p hybrid"] == text
    assert table.loc["JP", "hybrid vs baseline"] == "no clear difference"
    assert table.loc["JP", "why hybrid"].startswith("significant before the correction")

    figure = segment_delta_figure(segment_rows(review), ["country"], "RR@10")
    trace = figure.data[0]
    where = list(trace.customdata[:, 3]).index("JP · n=10")
    assert trace.customdata[where, 2] == text
    assert trace.customdata[where, 4] == "no clear difference"
    assert trace.marker.color[where] == "white"  # hollow: not significant

    csv = pd.read_csv(io.BytesIO(export_csv(review)), encoding="utf-8-sig")
    row = csv[(csv["segment"] == "country = JP") & (csv["measure"] == "RR@10")].iloc[0]
    assert row["p_adjusted"] == pytest.approx(jp["p_adjusted"], rel=1e-6)
    assert row["verdict"] == "unclear"
    records = json.loads(export_json(review))
    full = next(r for r in records if r["segment"] == "country = JP" and r["measure"] == "RR@10")
    assert full["p_adjusted"] == jp["p_adjusted"]  # full precision


def test_compare_command_reports_the_same_jp_row(held_out):
    (qrels, lexical, hybrid, query_table), *_, jp = held_out
    out, err = io.StringIO(), io.StringIO()
    args = [qrels, lexical, hybrid, "-m", "RR@10", "-m", "P@1", "--resamples", "2000"]
    args += ["--queries", query_table, "--by", "country", "--format", "json", "--family", "measure"]
    assert compare_main(args, out=out, err=err) == 0, err.getvalue()
    document = json.loads(out.getvalue())
    row = next(
        r
        for r in document["segments"]
        if r["segment"] == "country = JP" and r["measure"] == "RR@10"
    )
    assert row["p_adjusted"] == pytest.approx(jp["p_adjusted"])
    assert (row["verdict"], row["family_text"]) == ("unclear", jp["family_text"])
    assert document["verdict"] == verdict_sentences(held_out[3])


def test_report_states_the_same_corrected_p_and_verdict_for_jp(held_out):
    _, data, ev, review, jp = held_out
    found = callouts(review, "RR@10")
    inputs = ReportInputs(
        dataset_name="held out",
        content_hash=data.content_hash,
        models=ev.models,
        baseline="lexical",
        measures=["RR@10", "P@1"],
        ks=[10],
        n_queries=50,
        settings=ev.settings,
        options=OPTIONS,
        review=review,
        segment_by=["country"],
        callout_sentences=[(r["callout"], r["sentence"]) for r in found.to_dict("records")],
        generated_at="2026-01-01 00:00 UTC",
    )
    page = build_report_html(inputs)
    summary = page.index("Executive summary")
    assert summary < page.index("Headline figures") < page.index("Measures used")
    assert page.index("Measures used") < page.index("Segment findings")
    assert page.index("Segment findings") < page.index("Settings and provenance")
    assert "No candidate is clearly better than lexical on any measure." in page
    jp_sentence = found.set_index("country").loc["JP", "sentence"]
    assert jp_sentence.replace("<", "&lt;") in page
    segments = page[page.index("Segment findings") :]
    assert "<td>country = JP</td><td>RR@10</td>" in segments
    jp_cells = segments[segments.index("<td>country = JP</td><td>RR@10</td>") :][:900]
    assert "p = 0.086" in jp_cells and "unclear" in jp_cells
    csv = pd.read_csv(io.BytesIO(report_tables(inputs)["segments.csv"]), encoding="utf-8-sig")
    row = csv[(csv["segment"] == "country = JP") & (csv["measure"] == "RR@10")].iloc[0]
    assert row["p_adjusted"] == pytest.approx(jp["p_adjusted"], rel=1e-6)


# --------------------------------------------------------------------------- p-values


def test_a_p_value_at_the_floor_of_2000_resamples_prints_as_a_bound():
    assert format_p(1 / 2001, bound=True) == "p < 0.0005"
    assert format_p(8 / 2001, bound=True) == "p < 0.004"
    assert format_p(0.0421) == "p = 0.042"
    assert format_p(4e-37) == "p < 0.001"
    assert format_p(math.nan) == "p undefined"


def test_corrected_p_of_a_clear_difference_is_marked_as_a_bound_with_its_family():
    rng = np.random.default_rng(1)
    n = 200
    per_query = pd.DataFrame(
        {
            "model": ["a"] * n + ["b"] * n,
            "query": [f"q{i}" for i in range(n)] * 2,
            "M": np.r_[rng.uniform(0, 0.5, n), rng.uniform(0.5, 1, n)],
        }
    )
    from metrics.engine.evaluation import Evaluation

    ev = Evaluation(per_query, ["M"], {}, None, ["a", "b"])
    options = CompareOptions(resamples=2_000)
    row = review_table(ev, ReviewRequest("a", ("b",), ("M",), options=options)).iloc[0]
    assert row["p_raw"] == pytest.approx(1 / 2001) and bool(row["p_bound"])
    assert row["p_ttest"] < 1e-30  # the exact value stays in the table
    assert row_p(row) == "p < 0.0005"
    assert row["family_text"] == "randomization test, Holm over 1 measure × 1 candidate"


def test_the_family_everything_corrects_all_rows_together(held_out):
    _, data, ev, _, _ = held_out
    request = ReviewRequest(
        "lexical", ("hybrid",), ("RR@10", "P@1"), ("country",), OPTIONS, family="all"
    )
    review = review_table(ev, request, data.segments)
    assert set(review["family"]) == {"all:10"}
    jp = segment_rows(review, "RR@10").set_index("country").loc["JP"]
    assert jp["p_adjusted"] > 4 * 22 / 1024


def test_a_request_naming_an_unknown_model_or_family_is_refused(held_out):
    _, _, ev, _, _ = held_out
    with pytest.raises(SettingsError, match="no model named 'bm25'"):
        review_table(ev, ReviewRequest("lexical", ("bm25",), ("RR@10",)))
    with pytest.raises(SettingsError, match="family must be one of view, measure, all"):
        ReviewRequest("lexical", ("hybrid",), ("RR@10",), family="page")


# --------------------------------------------------------------------------- candidates


def test_two_candidates_are_compared_with_each_other_in_their_own_family():
    from metrics.io.samples import load_sample

    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["nDCG@10", "RR@10"])
    request = ReviewRequest("lexical", ("dense", "hybrid"), ("nDCG@10", "RR@10"), options=OPTIONS)
    review = review_table(ev, request)
    pairs = pairwise_rows(review)
    assert list(zip(pairs["reference"], pairs["candidate"])) == [("dense", "hybrid")] * 2
    assert set(pairs["family"]) == {"pairwise:1x2"}
    assert leaders(review) == {"hybrid": ["nDCG@10", "RR@10"]}
    closing = verdict_sentences(review)[""]
    assert closing[0].startswith("hybrid against dense: better on nDCG@10 (+0.154)")
    assert closing[1] == (
        "hybrid is ahead of the baseline and of every other candidate on nDCG@10 and RR@10."
    )
    figure = pairwise_matrix_figure(review, "nDCG@10")
    assert figure.data[0].text[1][0].startswith("+0.154") and "better" in figure.data[0].text[1][0]
    assert figure.data[0].text[0][1].startswith("-0.154") and "worse" in figure.data[0].text[0][1]


# --------------------------------------------------------------------------- property


@st.composite
def reviews(draw):
    """Per-query values of a baseline and two candidates on two measures, with a segment."""
    n = draw(st.integers(4, 18))
    seed = draw(st.integers(0, 10_000))
    shift = draw(st.sampled_from([0.0, 0.05, 0.3]))
    rng = np.random.default_rng(seed)
    rows = []
    for m, model in enumerate(("base", "c1", "c2")):
        values = np.clip(rng.uniform(0, 1, (n, 2)) + shift * m * rng.uniform(0, 1, (n, 1)), 0, 1)
        values = np.round(values * 4) / 4  # ties
        for q in range(n):
            rows.append((model, f"q{q}", values[q, 0], values[q, 1]))
    per_query = pd.DataFrame(rows, columns=["model", "query", "A", "B"])
    segments = pd.DataFrame(
        {"query": [f"q{q}" for q in range(n)], "kind": [("x", "y", "z")[q % 3] for q in range(n)]}
    )
    family = draw(st.sampled_from(["view", "measure", "all"]))
    correction = draw(st.sampled_from(["holm", "bh", "none", "tukey"]))
    return per_query, segments, family, correction


@settings(
    max_examples=12,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
@given(reviews())
def test_every_surface_says_the_verdict_of_the_shared_result(case):
    from metrics.engine.evaluation import Evaluation

    per_query, segments, family, correction = case
    ev = Evaluation(per_query, ["A", "B"], {}, None, ["base", "c1", "c2"])
    options = CompareOptions(resamples=200, correction=correction)
    request = ReviewRequest("base", ("c1", "c2"), ("A", "B"), ("kind",), options, family)
    review = review_table(ev, request, segments)
    words = {"better": "better", "worse": "worse", "unclear": "no clear difference"}

    # tables: the verdict column says the code's word, the corrected p its text
    shown = review_display(review, segment=True)
    assert [v.split(" · ")[0] for v in shown["verdict"]] == [words[v] for v in review["verdict"]]
    assert list(shown["corrected p"]) == [row_p(r) for r in review.to_dict("records")]
    # exports carry the codes
    csv = pd.read_csv(io.BytesIO(export_csv(review)), encoding="utf-8-sig")
    assert list(csv["verdict"]) == list(review["verdict"])
    # forest plot: filled exactly where significant, hover word = verdict
    for measure in ("A", "B"):
        rows = segment_rows(review, measure)
        figure = segment_delta_figure(rows, ["kind"], measure)  # "kind" is also a column name
        for trace, candidate in zip(figure.data, ("c1", "c2")):
            part = rows[rows["candidate"] == candidate]
            assert list(trace.customdata[:, 4]) == [words[v] for v in part["verdict"]]
            filled = [c != "white" for c in trace.marker.color]
            assert filled == list(part["significant"])
    # call-outs: a segment is called a win or a loss only when its row is significant
    for measure in ("A", "B"):
        for row in callouts(review, measure).to_dict("records"):
            if row["callout"] in ("better", "worse"):
                assert row["verdict"] == row["callout"] and row["significant"]
            else:
                assert row["verdict"] == "unclear"
                assert "not significant after correction" in row["sentence"]
            assert row_p(row) in row["sentence"]
    assert_verdict_box_follows_the_codes(review, words)


def assert_verdict_box_follows_the_codes(review: pd.DataFrame, words: dict[str, str]) -> None:
    """Each candidate's first sentence says better / worse on exactly the measures its overall
    rows call so; a candidate is said to be ahead only on the measures it leads on."""
    overall = overall_rows(review)
    sentences = verdict_sentences(review)
    for candidate in ("c1", "c2"):
        rows = overall[overall["candidate"] == candidate]
        first = sentences[candidate][0]
        if set(rows["verdict"]) == {"unclear"} and "(" not in first:
            assert "is not clearly different from base on any measure" in first
        for code in ("better", "worse"):
            if (rows["verdict"] == code).any():
                assert f"{code} on" in first
            else:
                assert f"; {code} on" not in first and f": {code} on" not in first
    ahead = leaders(review)
    for line in sentences.get("", []):
        if "is ahead of the baseline" in line:
            assert any(line.startswith(c) for c in ahead)
    if not (overall["verdict"] == "better").any():
        assert sentences[""][-1] == "No candidate is clearly better than base on any measure."


# --------------------------------------------------------------------------- counts in sentences

ONE_QUERY_SEGMENT = {
    "candidate": "b",
    "reference": "a",
    "measure": "M",
    "segment": "kind = x",
    "n": 1,
    "mean_a": 0.9,
    "mean_b": 0.1,
    "delta": -0.8,
    "ci_low": -0.8,
    "ci_high": -0.8,
    "ci_adj_low": -0.8,
    "ci_adj_high": -0.8,
    "reason": "",
    "p_adjusted": 1.0,
    "p_bound": False,
    "test": "p_randomization",
    "correction": "holm",
    "family": "segments-measure:1x2",
    "family_size": 2,
    "verdict": "unclear",
}
OVERALL = {**ONE_QUERY_SEGMENT, "segment": "(all)", "n": 30, "delta": 0.2, "verdict": "better"}


def test_a_one_query_segment_is_called_one_query_in_the_call_out():
    text = callout_sentence(OVERALL, ONE_QUERY_SEGMENT, "lower")
    assert "-0.800 [-0.800, -0.800], 1 query, corrected p = 1.000" in text
    assert "Holm over 1 segment × 2 candidates (M)" in text
    assert text.endswith(" Only 1 query: treat with care.")
    two = callout_sentence(OVERALL, {**ONE_QUERY_SEGMENT, "n": 2}, "lower")
    assert ", 2 queries, corrected" in two and two.endswith(" Only 2 queries: treat with care.")


def test_every_count_of_a_family_takes_its_own_plural_form():
    def family(code):
        return family_text({**ONE_QUERY_SEGMENT, "family": code})

    assert family("overall:4x1") == "randomization test, Holm over 4 measures × 1 candidate"
    assert family("overall:1x3") == "randomization test, Holm over 1 measure × 3 candidates"
    assert family("pairwise:1x2").endswith("Holm over 1 candidate pair × 2 measures")
    assert family("segments:5x1x1").endswith("Holm over 5 segments × 1 measure × 1 candidate")
    assert family("segments-measure:1x1").endswith("Holm over 1 segment × 1 candidate (M)")
    assert family("tukey:3").startswith("randomized Tukey HSD over all pairs of 3 models (M, kind")
    assert family("all:1").endswith("Holm over 1 comparison")
    assert family("all:12").endswith("Holm over all 12 comparisons")


@pytest.mark.parametrize(
    ("lang", "family", "small"),
    [
        ("zh", "1 个分群 × 2 个候选模型（M）", "仅 1 个查询：请谨慎看待。"),
        (
            "ja",
            "1 セグメント × 2 候補モデル（M）",
            "クエリは 1 件だけなので、慎重に扱ってください。",
        ),
    ],
)
def test_chinese_and_japanese_counts_read_the_same_for_one_and_many(lang, family, small):
    words = templates(VERDICT_TEMPLATES, lang)
    assert family in family_text(ONE_QUERY_SEGMENT, words)
    assert callout_sentence(OVERALL, ONE_QUERY_SEGMENT, "lower", words).endswith(small)
