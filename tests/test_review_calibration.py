"""The review's statistics hold their stated rates: simulations and properties.

* **coverage**: the unadjusted interval of each test (the test inverted,
  :func:`~metrics.review.statistics.compare_many`) covers the true centre of symmetric paired
  differences about 95% of the time at n = 10, 20 and 50;
* **agreement**: on random review tables no row's interval contradicts its test, adjusted
  (``significant``) or not (``p_raw`` against ``1 − confidence``);
* **null rates**: with no effect anywhere, rows reach the watch or confirmed tier, and segment
  columns are found uneven, at no more than alpha;
* **the decision** on the generated exports of ``tests/decision_cases.py`` names the collapsed
  segment and each candidate's segment effect.

Every simulation has a fixed seed and enough replications that its assertion holds with a margin
of at least four standard errors of the simulated share.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import evaluate
from metrics.engine.evaluation import Evaluation
from metrics.review.compare import CompareOptions, model_values, segment_of_query
from metrics.review.decision import SHIP, decide, heterogeneity_table
from metrics.review.rows import ALL
from metrics.review.statistics import Pairs, compare_many, pair_values, wilcoxon_pvalue
from metrics.review.verdict import CONFIRMED, WATCH, ReviewRequest, review_table
from tests.decision_cases import collapsed_segment_log, two_columns_log

# --------------------------------------------------------------------------- coverage

#: The true centre of every simulated distribution of differences (mean = median).
CENTRE = 0.2
#: Symmetric distributions of paired differences about :data:`CENTRE`.
DISTRIBUTIONS = {
    "normal": lambda rng, shape: rng.normal(CENTRE, 0.3, shape),
    "t3": lambda rng, shape: CENTRE + 0.2 * rng.standard_t(3, shape),
    "uniform": lambda rng, shape: rng.uniform(CENTRE - 0.5, CENTRE + 0.5, shape),
}
SIZES = (10, 20, 50)
#: Resamples of the randomization test: 2**10 <= 2,000, so n = 10 is enumerated exactly.
RESAMPLES = 2_000


def _covered(diffs: np.ndarray, test: str, seed: int) -> np.ndarray:
    """Whether each column's unadjusted 95% interval of ``test`` holds :data:`CENTRE`, every
    column a comparison of one :func:`compare_many` call."""
    n = diffs.shape[0]
    queries = np.array([f"q{i}" for i in range(n)], dtype=object)
    pairs = [Pairs(queries, np.zeros(n), diffs[:, j]) for j in range(diffs.shape[1])]
    resamples = RESAMPLES if test == "p_randomization" else 1  # the others need no resampling
    results, _ = compare_many(pairs, resamples=resamples, seed=seed, confidence=0.95, test=test)
    low = np.array([r.ci_low for r in results])
    high = np.array([r.ci_high for r in results])
    return (low <= CENTRE) & (high >= CENTRE)


def _within_two_points(covered: np.ndarray, what: str) -> None:
    share = float(covered.mean())
    se = math.sqrt(0.95 * 0.05 / len(covered))
    assert abs(share - 0.95) <= 0.02, f"{what}: {share:.4f} of {len(covered)} (SE {se:.4f})"


#: Replications of the t interval per distribution. Its coverage depends on the distribution:
#: exact for the normal, about 94.8% for the uniform and 95.4% (n = 50) to 96.0% (n = 10) for
#: Student's t with 3 df, so these sizes leave at least 4.3 standard errors to the 2-point bound.
T_REPLICATIONS = {"normal": 3_000, "t3": 7_000, "uniform": 3_000}


@pytest.mark.slow
@pytest.mark.parametrize("n", SIZES)
def test_the_t_interval_covers_the_mean_about_95_percent_of_the_time(n):
    for k, (name, draw) in enumerate(DISTRIBUTIONS.items()):
        rng = np.random.default_rng([n, k])
        covered = _covered(draw(rng, (n, T_REPLICATIONS[name])), "p_ttest", seed=n)
        _within_two_points(covered, f"t-test, {name}, n = {n}")


#: Replications per distribution of the rank and sign-flip tests. Their coverage is the same
#: for every continuous symmetric distribution (given the sizes of the centred differences,
#: their signs are fair coins), so the three distributions are pooled: 2,250 intervals per n.
#: Exact coverages: 95.12% (n = 10, sign flips and signed ranks alike), 95.16% (signed ranks,
#: n = 20), 95.06% (n = 50), about 95% for the Monte Carlo sign flips: at least 4.0 standard
#: errors (0.46 points) to the 2-point bound.
POOLED_REPLICATIONS = 750


@pytest.mark.slow
@pytest.mark.parametrize("test", ["p_randomization", "p_wilcoxon"])
@pytest.mark.parametrize("n", SIZES)
def test_the_sign_flip_and_signed_rank_intervals_cover_the_centre(test, n):
    rng = np.random.default_rng([n, 7 if test == "p_wilcoxon" else 3])
    diffs = np.column_stack(
        [draw(rng, (n, POOLED_REPLICATIONS)) for draw in DISTRIBUTIONS.values()]
    )
    covered = _covered(diffs, test, seed=n)
    shares = covered.reshape(len(DISTRIBUTIONS), POOLED_REPLICATIONS).mean(axis=1)
    _within_two_points(covered, f"{test}, n = {n}, per distribution {shares.round(3)}")


def test_a_wilcoxon_interval_with_unchanged_queries_is_the_shifts_the_test_keeps():
    """15 unchanged queries and 6 better ones: the test rejects at its own centre (0, where the
    unchanged queries are dropped) and keeps the shifts just above it, up to 0.2."""
    diff = np.r_[np.zeros(15), np.arange(1, 7) / 10]
    queries = np.array([f"q{i}" for i in range(len(diff))], dtype=object)
    (result,), _ = compare_many(
        [Pairs(queries, np.zeros(len(diff)), diff)], resamples=1, test="p_wilcoxon"
    )
    assert result.p_wilcoxon < 0.05
    assert 0 < result.ci_low < 1e-9
    assert result.ci_high == pytest.approx(0.2)
    for shift in (result.ci_low * 2, 0.1, 0.199):
        assert wilcoxon_pvalue(diff - shift) >= 0.05
    for shift in (0.0, -0.01, 0.201):
        assert wilcoxon_pvalue(diff - shift) < 0.05


# --------------------------------------------------------------------------- agreement

MEASURES = ("A@5", "B@5")
GRID = np.array([0.0, 0.0, 0.25, 1 / 3, 0.5, 0.75, 1.0])


@st.composite
def reviews(draw):
    """A random review: 2 or 3 models, 3 to 40 queries, values on a grid (ties, zeros), uniform,
    copied from the baseline (zero differences) or off by floating-point noise; some undefined;
    no, one or two segment columns (some queries without a segment); any test, correction,
    family, confidence, alpha and number of resamples."""
    n = draw(st.integers(3, 40))
    models = ("base", "c1", "c2")[: draw(st.integers(2, 3))]
    style = draw(st.sampled_from(["grid", "uniform", "noise"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    base = rng.choice(GRID, (n, 2)) if style == "grid" else rng.uniform(0, 1, (n, 2))
    values = [base]
    for _ in models[1:]:
        other = rng.uniform(0, 1, (n, 2)) if style == "uniform" else rng.choice(GRID, (n, 2))
        other = np.clip(other + draw(st.sampled_from([0.0, 0.1, 0.3])) * rng.random((n, 1)), 0, 1)
        if style == "noise":
            other = base + rng.choice([-4.4e-16, -2.2e-16, 0.0, 2.2e-16, -1e-3, 1e-3, 0.25], (n, 2))
        same = rng.random((n, 2)) < draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
        values.append(np.where(same, base, other))
    if draw(st.booleans()):
        values[-1][rng.random((n, 2)) < 0.1] = np.nan
    queries = [f"q{q}" for q in range(n)]
    per_query = pd.DataFrame(
        [(model, queries[q], *v[q]) for model, v in zip(models, values) for q in range(n)],
        columns=["model", "query", *MEASURES],
    )
    by = draw(st.sampled_from([(), ("g",), ("g", "h")]))
    groups = rng.choice(list("wxyz")[: draw(st.integers(1, 4))], n).astype(object)
    groups[rng.random(n) < 0.1] = None
    segments = pd.DataFrame({"query": queries, "g": groups, "h": rng.choice(["u", "v"], n)})
    options = CompareOptions(
        policy=draw(st.sampled_from(["intersection", "zero"])),
        resamples=draw(st.sampled_from([16, 200, 1_000])),
        seed=draw(st.integers(0, 1_000)),
        confidence=draw(st.sampled_from([0.8, 0.9, 0.95, 0.99])),
        correction=draw(st.sampled_from(["holm", "bh", "none"])),
        test=draw(st.sampled_from(["p_randomization", "p_ttest", "p_wilcoxon"])),
        alpha=draw(st.sampled_from([0.01, 0.05, 0.1])),
    )
    family = draw(st.sampled_from(["view", "measure", "all"]))
    request = ReviewRequest(models[0], models[1:], MEASURES, by, options, family)
    return Evaluation(per_query, list(MEASURES), {}, None, list(models)), request, segments


def _excludes_zero(low: float, high: float) -> bool:
    return not (math.isnan(low) or math.isnan(high)) and (low > 0 or high < 0)


def _row_diffs(
    evaluation: Evaluation, request: ReviewRequest, segments: pd.DataFrame, row: dict
) -> np.ndarray:
    """The paired differences of one review row, found again from the evaluation."""
    a = model_values(evaluation, row["reference"], row["measure"])
    b = model_values(evaluation, row["candidate"], row["measure"])
    if row["segment"] != ALL:
        column = row["segment_column"]
        table = segment_of_query(segments, [column], a.index.union(b.index))
        value = row["segment"].split(" = ", 1)[1]
        kept = set(table.loc[table[column].astype(str) == value, "query"])
        a, b = a[a.index.isin(kept)], b[b.index.isin(kept)]
    return pair_values(a, b, request.options.policy).diff


def _rejects_every_shift(diff: np.ndarray, level: float) -> bool:
    """Whether the Wilcoxon test rejects ``diff − δ`` for every ``δ``: its p-value changes only
    at Walsh averages, so the averages, the midpoints between them and two points outside are
    every case."""
    walsh = np.unique((diff[:, None] + diff[None, :]) / 2.0)
    shifts = np.r_[walsh, (walsh[1:] + walsh[:-1]) / 2.0, walsh[0] - 1.0, walsh[-1] + 1.0]
    return max(wilcoxon_pvalue(diff - shift) for shift in shifts) < level


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(reviews())
def test_no_row_has_an_interval_that_contradicts_its_test(case):
    evaluation, request, segments = case
    table = review_table(evaluation, request, segments if request.by else None)
    level = 1.0 - request.options.confidence
    tested = table[table["p_raw"].notna()].to_dict("records")
    for row in tested:
        adjusted = (row["ci_adj_low"], row["ci_adj_high"])
        unadjusted = (row["ci_low"], row["ci_high"])
        assert bool(row["significant"]) == _excludes_zero(*adjusted), row
        assert (row["p_raw"] < level) == _excludes_zero(*unadjusted), row
        for (low, high), at in ((adjusted, 1.0 - row["ci_adj_level"]), (unadjusted, level)):
            if low <= high:
                continue
            # an empty interval only where the test keeps no shift at all
            assert row["test"] == "p_wilcoxon", row
            diff = _row_diffs(evaluation, request, segments, row)
            assert _rejects_every_shift(diff, at), row


# --------------------------------------------------------------------------- null rates

NULL_REVIEWS = 100
NULL_QUERIES = 36
NULL_CANDIDATES = ("c1", "c2", "c3", "c4")
NULL_OPTIONS = CompareOptions(resamples=999)


def _null_review(rng: np.random.Generator) -> tuple[Evaluation, pd.DataFrame]:
    """Per-query values of a baseline and four candidates with no effect anywhere: each model's
    value is the query's difficulty plus noise drawn alike for every model (exchangeable per
    query); ``A@5`` continuous, ``B@5`` on quarters (ties, zeros and ones). Segment columns
    ``g`` (three segments of random sizes) and ``h`` (two)."""
    n = NULL_QUERIES
    models = ["base", *NULL_CANDIDATES]
    difficulty = rng.uniform(0, 1, n)
    queries = [f"q{q}" for q in range(n)]
    frames = []
    for model in models:
        value = np.clip(difficulty + rng.normal(0, 0.15, n), 0, 1)
        other = np.round(np.clip(difficulty + rng.normal(0, 0.25, n), 0, 1) * 4) / 4
        frames.append(pd.DataFrame({"model": model, "query": queries, "A@5": value, "B@5": other}))
    evaluation = Evaluation(pd.concat(frames, ignore_index=True), list(MEASURES), {}, None, models)
    segments = pd.DataFrame(
        {
            "query": queries,
            "g": rng.choice(["x", "y", "z"], n, p=rng.dirichlet([4, 4, 4])),
            "h": rng.choice(["u", "v"], n),
        }
    )
    return evaluation, segments


def _share(hits: list[int], counts: list[int]) -> tuple[float, float]:
    """The share of hits over all simulated reviews and its standard error, the reviews as
    clusters (the rows of one review share their queries)."""
    h, c = np.asarray(hits, dtype=float), np.asarray(counts, dtype=float)
    share = h.sum() / c.sum()
    r = len(h)
    se = math.sqrt(r / (r - 1) * float(((h - share * c) ** 2).sum())) / c.sum()
    return share, se


@pytest.fixture(scope="module")
def null_rates():
    """Over :data:`NULL_REVIEWS` reviews without any effect: rows in the watch or confirmed
    tier, heterogeneity tests of two columns found uneven (Holm), and of one column."""
    rng = np.random.default_rng(20261205)
    tiers: tuple[list[int], list[int]] = ([], [])
    two: tuple[list[int], list[int]] = ([], [])
    one: tuple[list[int], list[int]] = ([], [])
    for _ in range(NULL_REVIEWS):
        evaluation, segments = _null_review(rng)
        request = ReviewRequest("base", ("c1", "c2"), MEASURES, ("g", "h"), NULL_OPTIONS)
        table = review_table(evaluation, request, segments)
        tested = table[table["p_raw"].notna()]
        tiers[0].append(int(tested["tier"].isin([WATCH, CONFIRMED]).sum()))
        tiers[1].append(len(tested))
        for found, by in ((two, ("g", "h")), (one, ("g",))):
            het = heterogeneity_table(
                evaluation,
                ReviewRequest("base", NULL_CANDIDATES, MEASURES, by, NULL_OPTIONS, lead="A@5"),
                segments,
            )
            assert het["p_value"].notna().all()
            found[0].append(int(het["uneven"].sum()))
            found[1].append(len(het))
    return {"tiers": _share(*tiers), "two": _share(*two), "one": _share(*one)}


ALPHA = NULL_OPTIONS.alpha


@pytest.mark.slow
def test_with_no_effect_rows_reach_watch_or_confirmed_at_most_at_alpha(null_rates):
    share, se = null_rates["tiers"]
    assert share <= ALPHA + 4 * se, (share, se)


@pytest.mark.slow
def test_with_no_effect_segment_columns_are_uneven_at_most_at_alpha(null_rates):
    share, se = null_rates["two"]
    assert share <= ALPHA + 4 * se, (share, se)


@pytest.mark.slow
def test_with_no_effect_one_segment_column_is_uneven_at_about_alpha(null_rates):
    """A permutation test: with one column (nothing to correct) it rejects at alpha less
    1 / (resamples + 1)."""
    share, se = null_rates["one"]
    assert abs(share - ALPHA) <= 4 * se, (share, se)


# --------------------------------------------------------------------------- the decision

DECISION_MEASURES = ("P@10", "R@10", "RR@10", "nDCG@10")


def _decision(log: pd.DataFrame, baseline: str, candidates: tuple[str, ...], by: tuple[str, ...]):
    run = log[["query", "item", "score", "model"]]
    qrels = log[log["model"] == baseline][["query", "item", "label"]]
    evaluation = evaluate(run, qrels.rename(columns={"label": "relevance"}), DECISION_MEASURES)
    segments = log[["query", *by]].drop_duplicates("query")
    request = ReviewRequest(baseline, candidates, DECISION_MEASURES, by)
    table = review_table(evaluation, request, segments)
    het = heterogeneity_table(evaluation, request, segments)
    return table, het, decide(table, request, het)


def _sentences_of(headline: list[str], candidates: tuple[str, ...]) -> dict[str, str]:
    """Each candidate's sentences: from the one naming it alone to the next such one."""
    out: dict[str, list[str]] = {c: [] for c in candidates}
    current = None
    for sentence in headline:
        named = [c for c in candidates if c in sentence]
        if len(named) == 1:
            current = named[0]
        elif named:
            current = None  # the choice between candidates
        if current:
            out[current].append(sentence)
    return {c: " ".join(s) for c, s in out.items()}


def test_the_decision_names_the_collapsed_country_and_does_not_ship():
    _, _, decision = _decision(collapsed_segment_log(), "v1", ("v2",), ("country",))
    text = decision.text()
    assert "country = JP" in _sentences_of(decision.headline, ("v2",))["v2"], text
    assert decision.recommendations["v2"] != SHIP, text
    assert len(text.split()) <= 70, text


def test_the_decision_names_each_candidates_segment_with_the_columns_apart():
    candidates = ("cand_a", "cand_b")
    table, het, decision = _decision(
        two_columns_log(), "base", candidates, ("device", "user_tenure")
    )
    text = decision.text()
    mine = _sentences_of(decision.headline, candidates)
    assert "device = tablet" in mine["cand_b"], text
    assert "user_tenure = new" in mine["cand_a"], text
    assert "device = tablet" not in mine["cand_a"] and "user_tenure = new" not in mine["cand_b"]
    assert len(text.split()) <= 90, text
    segment_rows = table[table["segment"] != ALL]
    assert set(segment_rows["segment_column"]) == {"device", "user_tenure"}
    assert not segment_rows["segment"].str.contains(",").any()
    assert sorted(set(het["column"])) == ["device", "user_tenure"]
