"""The headline tells everything the tables say, and how sure it can be.

The held-out situation (``benchmarks.click_log``): a click log of 50 sessions, two model
versions and a ``country`` column, in which the candidate is clearly worse in Japan on R@10 and
nDCG@10 while P@10 does not move. Every surface — the headline, the CSV and JSON exports, the
report, the command line, the Compare and Segments pages — names exactly the significant rows.
"""

from __future__ import annotations

import html
import io
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.click_log import BASELINE, CANDIDATE, click_log
from metrics.cli.compare import main as compare_main
from metrics.engine.evaluation import Evaluation, evaluate
from metrics.errors import SettingsError
from metrics.io.loaders import load_dataset, load_table
from metrics.review.compare import CompareOptions
from metrics.review.headline import headline, verdict_sentences
from metrics.review.power import minimum_detectable_effect, queries_needed
from metrics.review.stakeholder_report import ReportInputs, build_report_html
from metrics.review.statistics import randomization_pvalue
from metrics.review.tukey import letter_display, tukey_hsd
from metrics.review.verdict import (
    ReviewRequest,
    letter_groups,
    overall_rows,
    pairwise_rows,
    review_table,
    segment_rows,
)
from metrics.review.wording import family_caption
from tests.app_support import fresh_app, open_page, upload
from ui.review.tables import export_csv, export_json

MEASURES = ("P@10", "R@10", "nDCG@10")
OPTIONS = CompareOptions(resamples=2_000, seed=0)


@pytest.fixture(scope="module")
def click(tmp_path_factory):
    """The click log written as one table (run and labels), its query table, and its review."""
    folder = tmp_path_factory.mktemp("click")
    log = click_log()
    path = folder / "log.csv"
    log.to_csv(path, index=False)
    queries = folder / "sessions.csv"
    log[["session_id", "country"]].drop_duplicates().to_csv(queries, index=False)
    data = load_dataset(load_table(path, "log.csv"), None, load_table(queries, "sessions.csv"))
    ev = evaluate(data.run, data.qrels, list(MEASURES))
    request = ReviewRequest(BASELINE, (CANDIDATE,), MEASURES, ("country",), OPTIONS)
    return path, queries, data, ev, review_table(ev, request, data.segments)


def significant_rows(table: pd.DataFrame) -> set[tuple[str, str, str, str]]:
    part = table[table["significant"]]
    return set(zip(part["reference"], part["candidate"], part["measure"], part["segment"]))


def test_japan_is_worse_on_two_measures_and_not_on_the_third(click):
    *_, review = click
    jp = segment_rows(review).set_index(["segment", "measure"]).loc["country = JP"]
    assert list(jp.loc[["R@10", "nDCG@10"], "verdict"]) == ["worse", "worse"]
    assert jp.loc["P@10", "verdict"] == "unclear"
    assert jp.loc["P@10", "delta"] == pytest.approx(0.0)
    others = segment_rows(review)
    assert not others[others["segment"] != "country = JP"]["significant"].any()


def test_the_headline_names_exactly_the_significant_rows_on_every_surface(click, tmp_path):
    path, queries, data, ev, review = click
    lines = verdict_sentences(review)[CANDIDATE]
    japan = [line for line in lines if line.startswith("Where country = JP")]
    assert len(japan) == 1
    assert "worse on nDCG@10 (-0.751, p = " in japan[0] and "R@10 (-0.814, p < " in japan[0]
    assert "P@10" not in japan[0]
    assert "In the other 4 segments, no clear difference." in lines
    named = headline(review).named
    assert {tuple(review.loc[i, ["reference", "candidate", "measure", "segment"]]) for i in named}
    assert set(named) == set(review.index[review["significant"]])

    # exports carry the same significance
    csv = pd.read_csv(io.BytesIO(export_csv(review)), encoding="utf-8-sig")
    assert significant_rows(csv) == significant_rows(review)
    records = pd.DataFrame(json.loads(export_json(review)))
    assert significant_rows(records) == significant_rows(review)

    # the report's summary is the headline
    inputs = ReportInputs(
        dataset_name="click log",
        content_hash=data.content_hash,
        models=ev.models,
        baseline=BASELINE,
        measures=list(MEASURES),
        ks=[10],
        n_queries=50,
        settings=ev.settings,
        options=OPTIONS,
        review=review,
        segment_by=["country"],
        generated_at="2026-01-01 00:00 UTC",
    )
    page = build_report_html(inputs)
    summary = page[page.index("Executive summary") : page.index("Headline figures")]
    assert html.escape(japan[0], quote=True) in summary

    # the command line prints the same table and headline
    out, err = io.StringIO(), io.StringIO()
    args = [str(path), str(path), "-m", "P@10", "-m", "R@10", "-m", "nDCG@10"]
    args += [
        "--queries",
        str(queries),
        "--by",
        "country",
        "--resamples",
        "2000",
        "--format",
        "json",
    ]
    assert compare_main(args, out=out, err=err) == 0, err.getvalue()
    document = json.loads(out.getvalue())
    assert document["verdict"] == verdict_sentences(review)
    rows = pd.DataFrame(document["comparisons"] + document["segments"])
    assert significant_rows(rows) == significant_rows(review)
    assert f"verdict: {japan[0]}" in err.getvalue().splitlines()


def test_the_compare_and_segments_pages_say_the_same(click):
    path, queries, *_ = click
    at = fresh_app()
    upload(at, [("log.csv", path.read_bytes(), "text/csv")])
    at.file_uploader(key="up_queries").set_value(("sessions.csv", queries.read_bytes(), "text/csv"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.sidebar.multiselect(key="w_measures").set_value(["P", "R", "nDCG"]).run()
    open_page(at, "compare")
    box = "\n".join(m.value for m in at.markdown).replace("\\", "")
    japan = re.findall(r"Where country = JP: .*?\)\.", box)
    assert len(japan) == 1 and "P@10" not in japan[0]  # the page's own 5,000 resamples
    assert "worse on nDCG@10 (-0.751, p = " in japan[0] and "R@10 (-0.814, p" in japan[0]
    assert "In the other 4 segments, no clear difference." in box
    open_page(at, "segments")
    at.selectbox(key="w_seg_measure").set_value("R").run()
    table = at.dataframe[0].value.set_index("country")
    verdicts = table[f"{CANDIDATE} vs baseline"]
    assert (
        verdicts.loc["JP"] == "worse" and (verdicts.drop(["JP", "(all queries)"]) != "worse").all()
    )
    assert not at.error


# --------------------------------------------------------------------------- properties


@st.composite
def reviews(draw):
    """Per-query values of a baseline and two candidates on three measures, with a segment."""
    n = draw(st.integers(6, 30))
    seed = draw(st.integers(0, 10_000))
    shift = draw(st.sampled_from([0.0, 0.1, 0.4]))
    rng = np.random.default_rng(seed)
    rows = []
    for m, model in enumerate(("base", "c1", "c2")):
        values = np.clip(rng.uniform(0, 1, (n, 3)) + shift * m * rng.uniform(0, 1, (n, 1)), 0, 1)
        values = np.round(values * 4) / 4
        rows += [(model, f"q{q}", *values[q]) for q in range(n)]
    per_query = pd.DataFrame(rows, columns=["model", "query", "A@5", "B@5", "C@10"])
    segments = pd.DataFrame(
        {"query": [f"q{q}" for q in range(n)], "kind": [("x", "y")[q % 2] for q in range(n)]}
    )
    family = draw(st.sampled_from(["view", "measure", "all"]))
    correction = draw(st.sampled_from(["holm", "bh", "none", "tukey"]))
    order = draw(st.permutations(["A@5", "B@5", "C@10"]))
    return per_query, segments, family, correction, tuple(order)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reviews())
def test_the_headline_names_the_significant_rows_whatever_the_order_of_the_measures(case):
    per_query, segments, family, correction, order = case
    ev = Evaluation(per_query, ["A@5", "B@5", "C@10"], {}, None, ["base", "c1", "c2"])
    options = CompareOptions(resamples=300, correction=correction)
    tables = [
        review_table(
            ev, ReviewRequest("base", ("c1", "c2"), m, ("kind",), options, family), segments
        )
        for m in (order, ("A@5", "B@5", "C@10"))
    ]
    found = headline(tables[0])
    assert set(found.named) == set(tables[0].index[tables[0]["significant"]])
    assert len(found.named) == len(set(found.named))  # each once
    # the same words whatever order the measures were asked in
    assert found.sentences == headline(tables[1]).sentences
    text = "\n".join(line for lines in found.sentences.values() for line in lines)
    for i in found.named:
        row = tables[0].loc[i]
        assert f"{row['measure']} ({row['delta']:+.3f}" in text


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reviews())
def test_a_caption_names_no_measure_its_table_does_not_restrict_to(case):
    per_query, segments, family, correction, order = case
    ev = Evaluation(per_query, ["A@5", "B@5", "C@10"], {}, None, ["base", "c1", "c2"])
    options = CompareOptions(resamples=200, correction=correction)
    review = review_table(
        ev, ReviewRequest("base", ("c1", "c2"), order, ("kind",), options, family), segments
    )
    for rows in (overall_rows(review), segment_rows(review), pairwise_rows(review)):
        caption = family_caption(rows)
        assert caption
        if rows["measure"].nunique() > 1:  # a table of several measures names none of them
            assert not any(m in caption for m in ("A@5", "B@5", "C@10")), caption
        for measure in ("A@5", "B@5", "C@10"):  # a one-measure table names only its own
            part = rows[rows["measure"] == measure]
            text = family_caption(part)
            assert not any(m in text for m in {"A@5", "B@5", "C@10"} - {measure}), text


def test_an_interval_that_excludes_zero_says_why_the_row_is_unclear():
    """Fewer significant rows than intervals excluding 0: each such row says why."""
    rng = np.random.default_rng(4)
    n = 12
    a = rng.uniform(0, 1, n)
    per_query = pd.DataFrame(
        {
            "model": ["a"] * n + ["b"] * n,
            "query": [f"q{i}" for i in range(n)] * 2,
            "M": np.r_[a, a + rng.normal(0.08, 0.1, n)],
            "N": np.r_[a, a + rng.normal(0.05, 0.1, n)],
        }
    )
    ev = Evaluation(per_query, ["M", "N"], {}, None, ["a", "b"])
    review = review_table(ev, ReviewRequest("a", ("b",), ("M", "N"), options=OPTIONS))
    for row in review.to_dict("records"):
        excludes = row["ci_low"] > 0 or row["ci_high"] < 0
        if row["verdict"] == "unclear" and excludes:
            assert row["reason"], row
    assert (
        review["ci_adj_high"] - review["ci_adj_low"] >= review["ci_high"] - review["ci_low"]
    ).all()


# --------------------------------------------------------------------------- effect size


def test_a_smallest_difference_that_matters_sorts_significant_rows_by_size(click):
    *_, data, ev, _ = click
    request = ReviewRequest(
        BASELINE,
        (CANDIDATE,),
        MEASURES,
        ("country",),
        OPTIONS,
        min_effect=(("R@10", 0.9), ("nDCG", 0.1), ("*", 0.02)),
    )
    review = review_table(ev, request, data.segments)
    jp = segment_rows(review).set_index(["segment", "measure"]).loc["country = JP"]
    assert jp.loc["R@10", "magnitude"] == "below"  # -0.814: significant, smaller than 0.9
    assert jp.loc["nDCG@10", "magnitude"] == "above"
    assert set(review.loc[review["measure"] == "P@10", "min_effect"]) == {0.02}
    line = next(s for s in verdict_sentences(review)[CANDIDATE] if "country = JP" in s)
    assert "smaller than the 0.9 that matters" in line and "at least the 0.1 that matters" in line


def test_a_negative_smallest_difference_is_refused():
    with pytest.raises(SettingsError, match="0 or more"):
        ReviewRequest("a", ("b",), ("M",), min_effect=(("M", -0.1),))
    with pytest.raises(SettingsError, match="power"):
        ReviewRequest("a", ("b",), ("M",), power=1.2)


# --------------------------------------------------------------------------- power


def _simulated_power(diffs: np.ndarray, n: int, delta: float, alpha: float, runs: int, seed: int):
    """Share of runs in which the randomization test finds a true difference ``delta``: resample
    ``n`` queries of the observed differences, shifted to mean ``delta``."""
    rng = np.random.default_rng(seed)
    centred = diffs - diffs.mean() + delta
    hits = 0
    for i in range(runs):
        sample = rng.choice(centred, size=n, replace=True)
        hits += randomization_pvalue(sample, resamples=500, seed=i) < alpha
    return hits / runs


@pytest.mark.slow
@pytest.mark.parametrize(("n", "alpha"), [(30, 0.05), (60, 0.05 / 4)])
def test_the_minimum_detectable_effect_agrees_with_a_simulation_within_ten_percent(n, alpha):
    rng = np.random.default_rng(11)
    diffs = np.round(rng.normal(0.0, 0.25, 400) * 10) / 10  # graded-measure-like ties
    sd = diffs.std(ddof=1)
    mde = minimum_detectable_effect(sd, n, alpha, 0.8)
    # the simulated 80%-power difference, found on a grid around the formula's answer
    grid = mde * np.array([0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15])
    power = [_simulated_power(diffs, n, d, alpha, 300, 5) for d in grid]
    simulated = float(np.interp(0.8, power, grid))
    assert abs(simulated - mde) / mde < 0.10, (mde, simulated, power)
    needed = queries_needed(sd, mde, alpha, 0.8)
    assert needed == n or needed == n + 1


def test_queries_needed_is_the_smallest_n_that_reaches_the_power():
    for sd, delta, alpha in ((0.3, 0.05, 0.05), (0.1, 0.01, 0.0125), (0.5, 0.2, 0.01)):
        n = queries_needed(sd, delta, alpha)
        assert minimum_detectable_effect(sd, n, alpha) <= delta
        assert minimum_detectable_effect(sd, n - 1, alpha) > delta
    assert math.isnan(queries_needed(0.3, 0.0, 0.05))
    assert queries_needed(0.0, 0.1, 0.05) == 2


def test_the_power_columns_use_the_level_of_the_rows_family(click):
    *_, review = click
    overall = overall_rows(review)
    assert set(overall["power_alpha"]) == {0.05 / 3}  # Holm over 3 measures × 1 candidate
    row = overall.iloc[0]
    assert row["mde"] == pytest.approx(
        minimum_detectable_effect(row["sd"], int(row["n"]), 0.05 / 3, 0.8)
    )
    assert row["queries_needed"] == queries_needed(row["sd"], row["delta"], 0.05 / 3, 0.8)


# --------------------------------------------------------------------------- Tukey HSD


def test_tukey_hsd_of_a_hand_computed_case():
    # three queries, three models: 6**3 = 216 permutations, counted exactly
    values = np.array([[0.0, 0.5, 1.0], [0.0, 0.0, 1.0], [0.5, 0.5, 1.0]])
    result = tukey_hsd(values, resamples=5_000)
    assert result.exact and len(result.ranges) == 216
    means = values.mean(axis=0)
    observed = abs(means[2] - means[0])
    expected = np.mean(result.ranges >= observed - 1e-12)
    assert result.pvalues[0, 2] == pytest.approx(expected)
    # by hand: the observed 5/6 is the largest range there is (1 + 1 + 0.5 over 3 queries); it
    # is reached when every query puts its largest value in one model and its smallest in one
    # other: 6 ordered pairs of models × 1 × 2 × 2 ways (the tied values swap) = 24 of 216
    assert result.pvalues[0, 2] == pytest.approx(24 / 216)


def test_tukey_hsd_of_two_models_is_the_randomization_test():
    rng = np.random.default_rng(2)
    values = np.round(rng.uniform(0, 1, (11, 2)) * 4) / 4
    exact = tukey_hsd(values, resamples=5_000)
    assert exact.pvalues[0, 1] == pytest.approx(
        randomization_pvalue(values[:, 1] - values[:, 0], resamples=5_000)
    )


@pytest.mark.slow
def test_tukey_hsd_controls_the_family_wise_error_on_null_data():
    rng = np.random.default_rng(7)
    runs, any_false = 400, 0
    for i in range(runs):
        base = rng.uniform(0, 1, (25, 1))
        values = np.clip(base + rng.normal(0, 0.2, (25, 4)), 0, 1)  # exchangeable models
        p = tukey_hsd(values, resamples=400, seed=i).pvalues
        any_false += bool((p[np.triu_indices(4, 1)] < 0.05).any())
    rate = any_false / runs
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs), rate  # within simulation error


def test_the_tukey_correction_fills_every_pair_of_models_and_letters_group_them():
    from metrics.io.samples import load_sample

    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["nDCG@10"])
    options = CompareOptions(resamples=1_000, correction="tukey")
    review = review_table(
        ev, ReviewRequest("lexical", ("dense", "hybrid"), ("nDCG@10",), (), options)
    )
    assert set(review["family"]) == {"tukey:3"}
    assert review["family_text"].iloc[0] == (
        "randomized Tukey HSD over all pairs of 3 models (nDCG@10)"
    )
    assert (review["ci_adj_method"] == "tukey").all()
    groups = letter_groups(review, "nDCG@10").set_index("model")
    assert list(groups.index) == ["hybrid", "dense", "lexical"]  # best mean first
    assert groups.loc["hybrid", "letters"] == "a"
    assert len(set(groups["letters"])) == 3  # all pairs differ on 300 queries


def test_letters_of_a_hand_made_relation():
    means = {"a": 0.9, "b": 0.8, "c": 0.5, "d": 0.4}
    different = {frozenset("ac"), frozenset("ad"), frozenset("bd")}
    assert letter_display(list("abcd"), means, different) == {
        "a": "a",
        "b": "ab",
        "c": "bc",
        "d": "c",
    }
    assert letter_display(list("ab"), means, set()) == {"a": "a", "b": "a"}


# --------------------------------------------------------------------------- command line


def test_the_command_line_takes_the_smallest_difference_power_and_tukey(click):
    path, *_ = click
    out, err = io.StringIO(), io.StringIO()
    args = [str(path), str(path), "-m", "R@10", "-m", "nDCG@10", "--resamples", "500"]
    args += ["--min-effect", "0.05", "--min-effect", "nDCG=0.5", "--power", "0.9"]
    args += ["--correction", "tukey", "--format", "json", "--quiet"]
    assert compare_main(args, out=out, err=err) == 0, err.getvalue()
    document = json.loads(out.getvalue())
    assert document["options"]["min_effect"] == {"*": 0.05, "nDCG": 0.5}
    rows = {r["measure"]: r for r in document["comparisons"]}
    assert rows["R@10"]["min_effect"] == 0.05 and rows["nDCG@10"]["min_effect"] == 0.5
    assert rows["R@10"]["power"] == 0.9 and rows["R@10"]["family"] == "tukey:2"
    assert err.getvalue() == ""  # --quiet: no verdict lines either
    for bad in ("-0.1", "nDCG=x", "a=b=1"):
        err = io.StringIO()
        assert compare_main([str(path), str(path), "--min-effect", bad], err=err) == 2
        assert "--min-effect" in err.getvalue() and "Traceback" not in err.getvalue()


# --------------------------------------------------------------------- a report to mail


def _click_report(click) -> ReportInputs:
    """The report the Report page makes of the click log by country: the Δ curves of its
    first two measures at K = 1 ... 20, wins / ties / losses and the forest plot."""
    from metrics.review.compare import delta_curves
    from ui.review.figures import delta_curve_figure, segment_delta_figure, win_tie_loss_figure

    *_, data, ev, review = click
    figures = [
        (
            f"Δ {m}",
            delta_curve_figure(
                {CANDIDATE: delta_curves(ev, BASELINE, CANDIDATE, m, 20, options=OPTIONS)},
                m,
                BASELINE,
            ),
        )
        for m in ("P", "R")
    ]
    figures.append(("wins, ties, losses", win_tie_loss_figure(overall_rows(review))))
    figures.append(
        ("Δ per country", segment_delta_figure(segment_rows(review, "P@10"), ["country"], "P@10"))
    )
    return ReportInputs(
        dataset_name="click log",
        content_hash=data.content_hash,
        models=ev.models,
        baseline=BASELINE,
        measures=list(MEASURES),
        ks=list(range(1, 21)),
        n_queries=50,
        settings=ev.settings,
        options=OPTIONS,
        review=review,
        segment_by=["country"],
        figures=figures,
        generated_at="2026-01-01 00:00 UTC",
    )


@pytest.mark.slow
def test_the_report_to_mail_of_a_50_query_review_is_under_a_megabyte(click):
    """Its four charts are SVG pictures (kaleido), with no charting library to load or run."""
    from ui.shell.plotting import figure_pictures

    inputs = _click_report(click)
    pictures = figure_pictures([figure for _, figure in inputs.figures])
    if any(p is None for p in pictures):
        pytest.skip("kaleido cannot draw pictures here (it needs a Chrome)")
    light = build_report_html(inputs, pictures).encode("utf-8")
    assert len(light) <= 1_000_000, len(light)
    text = light.decode("utf-8")
    assert text.count('<img alt="') == 4 and "plotly.js" not in text
    scripts = re.findall(r"<script[^>]*>", text)
    assert scripts == ['<script type="application/json" id="provenance">']
    interactive = build_report_html(inputs).encode("utf-8")
    assert len(interactive) > 3 * len(light)  # the library, once: what the light one leaves out


def test_the_report_to_mail_embeds_each_picture_as_an_image_and_names_a_missing_one(click):
    inputs = _click_report(click)
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>é</text></svg>'
    page = build_report_html(inputs, [svg, svg, None, svg])
    assert page.count('src="data:image/svg+xml;base64,') == 3
    assert "<svg" not in page  # an image, never markup of the page itself
    assert "The chart “wins, ties, losses” could not be drawn as a picture here" in page
    assert "plotly.js" not in page and "Plotly.newPlot" not in page
    with pytest.raises(ValueError, match="3 pictures for 4 figures"):
        build_report_html(inputs, [svg, svg, svg])
