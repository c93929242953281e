"""Every measure with a cutoff on the Learn page: the worked formula of each (weights of wP,
confidences of cwP, counts, RBP, ERR ...) agrees with :func:`metrics.evaluate` on any list, a
measure that cannot be computed says why in its own place, and micro averages are written as
the pooled counts they are."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.engine.explain import EXPLAINED, EXPLAINED_MORE, explain_list, list_frames
from metrics.engine.registry import at_cutoff
from ui.learn import evaluate as learn
from ui.learn.lessons import BY_ID, model_mean_lines, model_means
from ui.shell.handbuilt_list import RankedList

LABELS = [0.0, 1.0, 2.0, 3.0, -1.0, float("nan")]


@st.composite
def lists(draw):
    """A list in rank order (labels with unjudged and negative ones, distinct descending
    scores), judged items not retrieved, a cutoff and settings."""
    n = draw(st.integers(1, 9))
    labels = draw(st.lists(st.sampled_from(LABELS), min_size=n, max_size=n))
    tray = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), max_size=3))
    raw = draw(st.lists(st.integers(0, 100), min_size=n, max_size=n, unique=True))
    scores = sorted((x / 10 for x in raw), reverse=True)
    k = draw(st.integers(1, 12))
    chosen = Settings(
        relevance_level=draw(st.sampled_from([1, 2])),
        short_lists=draw(st.sampled_from(["divide_by_k", "divide_by_returned", "leave_out"])),
        gain=draw(st.sampled_from(["linear", "exponential"])),
    )
    return labels, tray, scores, k, chosen


def engine_values(labels, tray, scores, k, chosen, measures):
    """The measures at ``k`` from metrics, for the list scored by ``scores``."""
    items = [f"d{i}" for i in range(len(labels))]
    run, qrels = list_frames(items, labels, [(f"x{i}", v) for i, v in enumerate(tray)])
    run["score"] = scores
    names = [at_cutoff(m, k) for m in measures]
    rows = evaluate(run, qrels, names, chosen).per_query
    if rows.empty:  # nothing judged: a query metrics leaves out
        return None
    return {m: float(rows.iloc[0][n]) for m, n in zip(measures, names)}


@settings(max_examples=150, deadline=None)
@given(lists())
def test_every_worked_formula_gives_the_engine_value(case):
    labels, tray, scores, k, chosen = case
    ex = explain_list([f"d{i}" for i in range(len(labels))], labels, k, chosen, tray, scores)
    found = engine_values(labels, tray, scores, k, chosen, EXPLAINED_MORE)
    if found is None:
        return
    for m in EXPLAINED_MORE:
        assert ex.pieces[m].value == pytest.approx(found[m], nan_ok=True, abs=1e-12), m


def test_wp_shows_its_position_weights_and_cwp_its_confidences():
    rl = RankedList(
        "list",
        ("a", "b", "c", "d", "e"),
        (1.0, 0.0, 1.0, 1.0, 0.0),
        scores=(0.9, 0.8, 0.5, 0.4, 0.2),
    )
    cards = {c.measure: c for c in learn.measure_cards(rl, 5, Settings(), ("wP", "cwP"))}
    # weights 1/log2(i + 1) of ranks 1..5; relevant at 1, 3 and 4
    assert cards["wP"].formula == "wP@5 = (1.000 + 0.500 + 0.431)/2.948 = 0.655"
    assert cards["wP"].detail == "w = 1.000, 0.631, 0.500, 0.431, 0.387"
    assert cards["cwP"].formula == "cwP@5 = (0.9 + 0.5 + 0.4)/2.8 = 0.643"
    assert cards["cwP"].detail == "s = 0.9, 0.8, 0.5, 0.4, 0.2"
    assert cards["cwP"].problem is None


def test_cwp_of_a_list_without_scores_says_so_in_its_own_card_and_the_others_stay():
    rl = RankedList("list", ("a", "b", "c"), (1.0, 0.0, 1.0))
    cards = {c.measure: c for c in learn.measure_cards(rl, 3, Settings(), ("P", "cwP", "wP"))}
    assert cards["cwP"].problem == "no_confidences" and cards["cwP"].formula is None
    assert cards["P"].formula == "P@3 = 2/3 = 0.67"
    assert cards["wP"].formula is not None


def test_a_negative_confidence_is_named_in_the_cwp_card():
    rl = RankedList("list", ("a", "b"), (1.0, 0.0), scores=(0.5, -0.5))
    card = learn.measure_cards(rl, 2, Settings(), ("cwP",))[0]
    assert card.problem == "negative_confidences" and card.formula is None


def test_confidences_of_a_data_set_query_come_with_its_list():
    """A query of a loaded data set carries the model's scores, so cwP has its confidences."""
    from metrics.engine.evaluation import rank_run
    from metrics.io.samples import load_sample

    data = load_sample("web_search")
    ranked = rank_run(data.run, data.qrels, Settings())
    rl = learn.list_from_ranked(data, ranked, "hybrid", "7")
    scores = learn.confidences_of(data, ranked, "hybrid", "7")
    assert scores is not None and len(scores) == len(rl.items)
    card = learn.measure_cards(rl, 10, Settings(), ("cwP",), confidences=scores)[0]
    run = data.run[(data.run["model"] == "hybrid") & (data.run["query"] == "7")]
    want = evaluate(run, data.qrels[data.qrels["query"] == "7"], ["cwP@10"]).per_query
    assert card.formula.endswith(f"= {want['cwP@10'].iloc[0]:.3f}")


def test_an_err_label_above_its_largest_grade_is_named_and_the_others_computed():
    rl = RankedList("list", ("a", "b"), (7.0, 0.0))
    cards = {c.measure: c for c in learn.measure_cards(rl, 2, Settings(), ("P", "ERR"))}
    assert cards["ERR"].problem == "error" and "gmax" in cards["ERR"].message
    assert cards["P"].formula == "P@2 = 1/2 = 0.50"


def test_the_shown_measures_are_the_explained_ones_then_the_selected_others_once():
    shown = learn.shown_measures(("nDCG", "wP", "cwP", "P", "wP"))
    assert shown == (*EXPLAINED, "Judged", "wP", "cwP")


def test_judged_divides_as_precision_does_under_the_short_list_rule():
    rl = RankedList("list", ("a", "b", "c"), (1.0, 1.0, 1.0))
    returned = Settings(short_lists="divide_by_returned")
    by_k = {c.measure: c for c in learn.measure_cards(rl, 5, Settings(), ("Judged",))}
    by_n = {c.measure: c for c in learn.measure_cards(rl, 5, returned, ("Judged",))}
    assert by_k["Judged"].formula == "Judged@5 = 3/5 = 0.60"
    assert by_n["Judged"].formula == "Judged@5 = 3/3 = 1.00"


@pytest.mark.parametrize(
    ("averaging", "want"),
    [
        ("micro", {"A": "(5 + 0)/(10 + 1) = 5/11 = 0.455", "B": "(1 + 1)/(10 + 1) = 2/11 = 0.182"}),
        ("macro", {"A": "(0.500 + 0.000)/2 = 0.250", "B": "(0.100 + 1.000)/2 = 0.550"}),
    ],
)
def test_the_means_of_the_averaging_lesson_are_written_as_metrics_computes_them(averaging, want):
    lesson = BY_ID["macro_micro"]
    chosen = Settings(averaging=averaging)
    lines = model_mean_lines(lesson.lists, "R", 5, chosen)
    values = model_means(lesson.lists, "R", 5, chosen)
    assert lines == want
    for model, text in want.items():
        assert float(text.rsplit("= ", 1)[1]) == pytest.approx(values[model], abs=5e-4)


def random_models(rng: np.random.Generator) -> tuple[RankedList, ...]:
    """Two models' lists on three queries: each query judges a pool of items once, and each
    model retrieves some of them in its own order (the others are in its tray)."""
    built = []
    pools = {}
    for q in ("q1", "q2", "q3"):
        n = int(rng.integers(1, 8))
        pools[q] = {f"{q}d{j}": float(x) for j, x in enumerate(rng.integers(0, 2, n))}
    for model in ("A", "B"):
        for q, pool in pools.items():
            order = [str(i) for i in rng.permutation(list(pool))]
            cut = int(rng.integers(1, len(order) + 1))
            shown, rest = order[:cut], order[cut:]
            tray = tuple((i, pool[i]) for i in rest)
            built.append(
                RankedList(f"{model} · {q}", tuple(shown), tuple(pool[i] for i in shown), tray)
            )
    return tuple(built)


@pytest.mark.parametrize("seed", range(15))
def test_pooled_counts_equal_the_engine_micro_means_on_random_lists(seed):
    rng = np.random.default_rng(seed)
    built = random_models(rng)
    chosen = Settings(averaging="micro")
    for measure in ("P", "R"):
        k = int(rng.integers(1, 6))
        lines = model_mean_lines(built, measure, k, chosen)
        values = model_means(built, measure, k, chosen)
        for model, text in lines.items():
            fraction = text.rsplit(" = ", 2)[-2]
            top, bottom = (float(x) for x in fraction.split("/"))
            assert (top / bottom if bottom else 0.0) == pytest.approx(values[model]), text


def test_a_list_with_nothing_judged_still_has_every_card():
    """metrics leaves such a query out: the page shows 0 for the measures of relevance and the
    list's own counts (results, the RBP residual) for the others."""
    rl = RankedList("list", ("a", "b"), (math.nan, math.nan))
    cards = {
        c.measure: c
        for c in learn.measure_cards(
            rl, 2, Settings(), learn.shown_measures(("wP", "NumRet", "RBPResid"))
        )
    }
    assert all(c.formula is not None for c in cards.values())
    assert cards["P"].formula == "P@2 = 0/2 = 0.00"
    assert cards["NumRet"].formula == "NumRet@2 = min(2, 2) = 2"
    assert cards["RBPResid"].formula == "RBPResid@2 = 0.2·(0.8^0 + 0.8^1) + 0.8^2 = 1.000"
