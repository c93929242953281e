"""Paired statistics agree with scipy and ranx; the bootstrap interval has its nominal coverage."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as hyp
from scipy import stats

from metrics.errors import SettingsError
from metrics.review.compare import CompareOptions
from metrics.review.statistics import (
    MAX_RESAMPLES,
    adjust_pvalues,
    bootstrap_ci,
    bootstrap_means,
    cohens_d,
    compare_values,
    pair_values,
    randomization_pvalue,
    ttest_pvalue,
    wilcoxon_pvalue,
    win_tie_loss,
)
from tests.oracles import require_oracle


def paired_sample(n: int, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(shift, 0.2, n), 0, 1)
    return a, b


# --------------------------------------------------------------------------- scipy agreement


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ttest_pvalue_equals_scipy_ttest_rel(seed):
    a, b = paired_sample(60, 0.05, seed)
    assert ttest_pvalue(b - a) == pytest.approx(stats.ttest_rel(b, a).pvalue, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wilcoxon_pvalue_equals_scipy_wilcoxon(seed):
    a, b = paired_sample(40, 0.05, seed)
    b[:5] = a[:5]  # some zero differences, dropped by both
    assert wilcoxon_pvalue(b - a) == pytest.approx(stats.wilcoxon(b, a).pvalue, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 3, 7])
def test_randomization_pvalue_is_exact_for_small_n_and_equals_scipy_permutation_test(seed):
    a, b = paired_sample(11, 0.1, seed)
    expected = stats.permutation_test(
        (b, a),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        vectorized=True,
    ).pvalue
    assert randomization_pvalue(b - a, resamples=10_000) == pytest.approx(expected, abs=1e-12)


def test_exact_randomization_pvalue_of_three_positive_differences_is_one_quarter():
    # sign vectors with |mean| >= 2: (+,+,+) and (-,-,-) out of 8
    assert randomization_pvalue(np.array([1.0, 2.0, 3.0])) == 0.25


def test_monte_carlo_randomization_pvalue_is_within_sampling_error_of_scipy():
    a, b = paired_sample(200, 0.02, 5)
    expected = stats.permutation_test(
        (b, a),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=20_000,
        vectorized=True,
        rng=1,
    ).pvalue
    ours = randomization_pvalue(b - a, resamples=20_000, seed=3)
    assert 0.05 < expected < 0.95  # a p-value where Monte Carlo error matters
    assert ours == pytest.approx(expected, abs=4 * math.sqrt(expected * (1 - expected) / 20_000))


def test_monte_carlo_randomization_pvalue_is_never_zero():
    diff = np.full(500, 0.3)
    assert randomization_pvalue(diff, resamples=999) == pytest.approx(1 / 1000)


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_ci_covers_the_true_mean_difference_about_95_percent_of_the_time():
    true_shift, hits, simulations = 0.03, 0, 400
    for seed in range(simulations):
        rng = np.random.default_rng(10_000 + seed)
        diff = rng.normal(true_shift, 0.2, 80)
        low, high = bootstrap_ci(diff, resamples=1_000, seed=seed)
        hits += int(low <= true_shift <= high)
    assert 0.91 <= hits / simulations <= 0.98


def test_bootstrap_is_deterministic_given_the_seed_and_changes_with_it():
    diff = np.random.default_rng(0).normal(0, 1, 30)
    first, again = bootstrap_ci(diff, 500, seed=4), bootstrap_ci(diff, 500, seed=4)
    assert first == again
    assert bootstrap_ci(diff, 500, seed=5) != first


def test_bootstrap_across_cutoffs_uses_the_same_resamples_as_each_column_alone():
    matrix = np.random.default_rng(1).normal(0, 1, (50, 4))
    low, high = bootstrap_ci(matrix, 300, seed=2)
    for k in range(4):
        lk, hk = bootstrap_ci(matrix[:, k], 300, seed=2)
        assert (low[k], high[k]) == pytest.approx((lk, hk), abs=1e-12)


def test_bootstrap_means_of_a_constant_difference_are_that_constant():
    assert np.allclose(bootstrap_means(np.full(20, 0.125), 100), 0.125)


def test_bootstrap_matches_a_plain_loop_over_resamples():
    diff = np.random.default_rng(2).normal(0, 1, 25)
    rng = np.random.default_rng(9)
    expected = [diff[rng.integers(0, 25, size=25, dtype=np.int32)].mean() for _ in range(200)]
    assert bootstrap_means(diff, 200, seed=9) == pytest.approx(expected, abs=1e-12)


def test_bootstrap_interval_of_no_pairs_is_undefined():
    low, high = bootstrap_ci(np.array([]), 100)
    assert math.isnan(low) and math.isnan(high)


# --------------------------------------------------------------------------- counts and effect


def test_win_tie_loss_counts_queries_by_the_sign_of_the_difference():
    assert win_tie_loss(np.array([0.1, 0.0, -0.2, 0.3, 1e-15])) == (2, 2, 1)


def test_cohens_d_is_mean_difference_over_its_standard_deviation():
    diff = np.array([0.1, 0.3, 0.2, 0.4])
    assert cohens_d(diff) == pytest.approx(0.25 / np.std(diff, ddof=1))
    assert cohens_d(np.zeros(5)) == 0.0


def test_degenerate_differences_give_defined_pvalues():
    assert ttest_pvalue(np.zeros(5)) == 1.0
    assert ttest_pvalue(np.full(5, 0.2)) == 0.0
    assert wilcoxon_pvalue(np.zeros(5)) == 1.0
    assert math.isnan(ttest_pvalue(np.array([0.5])))


# --------------------------------------------------------------------------- pairing


def test_intersection_policy_compares_shared_queries_and_lists_the_others():
    pairs = pair_values({"q1": 0.5, "q2": 0.2, "q3": 1.0}, {"q2": 0.4, "q3": 1.0, "q4": 0.0})
    assert list(pairs.queries) == ["q2", "q3"]
    assert pairs.diff.tolist() == pytest.approx([0.2, 0.0])
    assert pairs.only_in_baseline == ("q1",) and pairs.only_in_candidate == ("q4",)


def test_zero_policy_scores_a_missing_query_as_zero_for_that_model():
    pairs = pair_values({"q1": 0.5, "q2": 0.2}, {"q2": 0.4, "q3": 0.7}, policy="zero")
    table = dict(zip(pairs.queries, zip(pairs.a, pairs.b)))
    assert table == {"q1": (0.5, 0.0), "q2": (0.2, 0.4), "q3": (0.0, 0.7)}


def test_undefined_values_are_dropped_and_listed():
    pairs = pair_values(pd.Series({"q1": np.nan, "q2": 0.2}), pd.Series({"q1": 0.3, "q2": 0.4}))
    assert list(pairs.queries) == ["q2"] and pairs.undefined == ("q1",)


def test_unknown_missing_policy_is_refused_with_the_allowed_values():
    with pytest.raises(ValueError, match="intersection, zero"):
        pair_values({}, {}, policy="drop")


def test_compare_values_reports_means_delta_and_relative_delta():
    r = compare_values({"a": 0.2, "b": 0.4}, {"a": 0.3, "b": 0.6}, resamples=100)
    assert (r.n, r.mean_a, r.mean_b) == (2, pytest.approx(0.3), pytest.approx(0.45))
    assert r.delta == pytest.approx(0.15) and r.relative_delta == pytest.approx(0.5)
    assert (r.wins, r.ties, r.losses) == (2, 0, 0)


# --------------------------------------------------------------------------- corrections


def test_holm_correction_equals_hand_computed_values():
    # sorted 0.01, 0.02, 0.03, 0.5 -> 4*0.01, 3*0.02, 2*0.03, 1*0.5, then running max
    p = [0.03, 0.5, 0.01, 0.02]
    assert adjust_pvalues(p, "holm").tolist() == pytest.approx([0.06, 0.5, 0.04, 0.06])


def test_benjamini_hochberg_equals_hand_computed_values():
    # sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.04, 0.04, 0.5 (4p/i, running min from the top)
    p = [0.03, 0.5, 0.01, 0.02]
    assert adjust_pvalues(p, "bh").tolist() == pytest.approx([0.04, 0.5, 0.04, 0.04])


def test_corrections_agree_with_scipy_false_discovery_control():
    p = np.random.default_rng(3).uniform(0, 0.2, 25)
    assert adjust_pvalues(p, "bh") == pytest.approx(stats.false_discovery_control(p))


def test_corrected_pvalues_are_capped_at_one_and_nan_is_left_out_of_the_family():
    out = adjust_pvalues([0.6, np.nan, 0.7], "holm")
    assert out[0] == 1.0 and out[2] == 1.0 and math.isnan(out[1])
    assert adjust_pvalues([0.02, np.nan], "holm")[0] == pytest.approx(0.02)


def test_unknown_correction_is_refused():
    with pytest.raises(ValueError, match="holm, bh, none"):
        adjust_pvalues([0.1], "bonferroni")


@pytest.mark.parametrize("resamples", [0, MAX_RESAMPLES + 1, 2_000_000_000])
def test_a_number_of_resamples_outside_one_to_the_maximum_is_refused_before_any_work(resamples):
    with pytest.raises(SettingsError) as refused:
        CompareOptions(resamples=resamples)
    assert str(refused.value).startswith(
        f"resamples must be between 1 and 100,000, got {resamples:,}. Fix: 5,000 (the default, "
        "as in the app) gives p-values down to 0.0002."
    )


def test_the_largest_number_of_resamples_is_taken():
    assert CompareOptions(resamples=MAX_RESAMPLES).resamples == 100_000


# --------------------------------------------------------------------------- ranx cross-check


@pytest.mark.slow
def test_ttest_and_randomization_agree_with_ranx_compare_on_web_search():
    ranx = require_oracle("ranx")
    from metrics.io.samples import load_sample

    data = load_sample("web_search")
    ids = {"query": lambda f: f["query"].astype(object), "item": lambda f: f["item"].astype(object)}
    qrels = ranx.Qrels.from_df(
        data.qrels.assign(relevance=data.qrels["relevance"].astype(int), **ids),
        q_id_col="query",
        doc_id_col="item",
        score_col="relevance",
    )
    runs = []
    for model in ("lexical", "dense"):
        part = data.run[data.run["model"] == model].assign(**ids)
        run = ranx.Run.from_df(part, q_id_col="query", doc_id_col="item", score_col="score")
        run.name = model
        runs.append(run)
    measures = ["mrr", "ndcg@10"]  # p about 0.9 and 0.002 on this pair
    student = ranx.compare(qrels, runs, measures, stat_test="student", rounding_digits=12)
    fisher = ranx.compare(
        qrels, runs, measures, stat_test="fisher", n_permutations=5_000, rounding_digits=12
    )
    for measure in measures:
        lexical = pd.Series(runs[0].scores[measure])
        dense = pd.Series(runs[1].scores[measure])
        diff = pair_values(lexical, dense).diff
        p_student = student.comparisons[("lexical", "dense")][measure]["p_value"]
        p_fisher = fisher.comparisons[("lexical", "dense")][measure]["p_value"]
        assert ttest_pvalue(diff) == pytest.approx(p_student, rel=1e-6)
        mc_error = 4 * math.sqrt(max(p_fisher, 1e-3) * (1 - p_fisher) / 5_000) + 2e-4
        assert randomization_pvalue(diff, resamples=20_000) == pytest.approx(p_fisher, abs=mc_error)


def test_wilcoxon_ranks_differences_equal_but_for_the_last_bits_as_ties():
    from metrics.review.statistics import wilcoxon_pvalue

    exact = np.array([0.1, -0.1, 0.3, 0.2, 0.2, 0.5, -0.4, 0.1, 0.3, 0.0])
    noisy = exact + np.array([0, 0, 1, -1, 1, 0, 0, -1, 1, 1]) * 2e-17 * 8
    noisy[-1] = 3e-13  # within the tie tolerance: no difference
    assert wilcoxon_pvalue(noisy) == wilcoxon_pvalue(exact)


# --------------------------------------------------------------------------- one pass for all rows

#: Per-query differences as the measures give them: few distinct values (ties), zeros, and
#: sizes across every form of the Wilcoxon test (exact, enumerated, normal approximation).
DIFFERENCES = hyp.lists(
    hyp.sampled_from([0.0, 0.0, 0.1, -0.1, 0.2, -0.25, 1 / 3, -0.5, 0.75, 1.0, -1.0]),
    min_size=2,
    max_size=70,
).map(np.array)
SPREAD = hyp.lists(
    hyp.floats(-1, 1, allow_nan=False).map(lambda x: round(x, 6)), min_size=2, max_size=70
).map(np.array)


@settings(max_examples=300, deadline=None)
@given(hyp.one_of(DIFFERENCES, SPREAD))
def test_wilcoxon_equals_scipys_auto_method_with_ties_and_zeros(diff):
    from metrics.review.statistics import _wilcoxon_input, wilcoxon_method

    assume(not np.all(np.abs(diff) <= 1e-12))
    expected = float(stats.wilcoxon(_wilcoxon_input(diff), zero_method="wilcox").pvalue)
    assert wilcoxon_pvalue(diff) == pytest.approx(expected, abs=1e-9, rel=0)
    assert wilcoxon_method(diff) in ("exact", "enumerated", "normal")


@settings(max_examples=300, deadline=None)
@given(hyp.one_of(DIFFERENCES, SPREAD))
def test_ttest_equals_scipys_ttest_rel(diff):
    assume(np.ptp(diff) > 1e-12)
    expected = float(stats.ttest_1samp(diff, 0.0).pvalue)
    if len(diff) == 2:  # scipy loses digits in the Cauchy tail; the closed form decides
        t = diff.mean() / (diff.std(ddof=1) / math.sqrt(2))
        expected = 1 - 2 * math.atan(abs(t)) / math.pi
    assert ttest_pvalue(diff) == pytest.approx(expected, abs=1e-9, rel=0)


def test_the_exact_wilcoxon_forms_are_chosen_as_scipy_chooses_them():
    from metrics.review.statistics import wilcoxon_method

    assert wilcoxon_method(np.arange(1, 51) * 0.01) == "exact"
    assert wilcoxon_method(np.arange(1, 52) * 0.01) == "normal"
    assert wilcoxon_method(np.array([0.1, 0.1, 0.2, -0.3, 0.0])) == "enumerated"
    assert wilcoxon_method(np.r_[np.arange(1, 14), 1] * 0.01) == "normal"  # 14 with a tie


@settings(max_examples=40, deadline=None)
@given(hyp.lists(hyp.one_of(DIFFERENCES, SPREAD), min_size=1, max_size=6), hyp.integers(0, 99))
def test_many_comparisons_at_once_equal_each_computed_alone(diffs, seed):
    from metrics.review.statistics import Pairs, compare_many, compare_pairs

    pairs = [
        Pairs(np.arange(len(d)).astype(object), np.zeros(len(d)), d.astype(float)) for d in diffs
    ]
    together, inversions = compare_many(pairs, resamples=300, seed=seed)
    for pair, result, inversion in zip(pairs, together, inversions):
        alone = compare_pairs(pair, resamples=300, seed=seed)
        assert result.p_randomization == alone.p_randomization
        assert (result.ci_low, result.ci_high) == pytest.approx((alone.ci_low, alone.ci_high))
        assert (result.p_ttest, result.p_wilcoxon) == (alone.p_ttest, alone.p_wilcoxon)
        # the same draws as the single-comparison functions make
        assert result.p_randomization == randomization_pvalue(pair.diff, 300, seed)
        assert inversion.interval(0.05) == pytest.approx((result.ci_low, result.ci_high))


def test_the_statistics_do_not_import_scipy():
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from metrics.review.statistics import compare_values\n"
        "compare_values({'a': 0.1, 'b': 0.4, 'c': 0.2}, {'a': 0.3, 'b': 0.1, 'c': 0.5})\n"
        "from metrics.review import verdict, headline, power\n"
        "assert not any(m == 'scipy' or m.startswith('scipy.') for m in sys.modules), 'scipy'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
