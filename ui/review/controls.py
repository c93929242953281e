"""Widgets shared by the Compare, Segments and Report pages: baseline, candidates, K, statistics.

Keys start with ``w_review_`` so that the frame keeps their values when switching pages (the
same baseline and K on all three review pages).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from metrics.review.compare import TESTS, CompareOptions
from metrics.review.statistics import CORRECTIONS, MISSING_POLICIES
from ui.i18n import t
from ui.review.compute import RESAMPLE_CHOICES
from ui.view import K_LIMIT

#: Widget key -> URL query parameter (names the frame does not use; see ui/view.py URL_NAMES).
URL_PARAMS = {
    "w_review_baseline": "base",
    "w_review_candidates": "cand",
    "w_review_k": "at",
    "w_review_resamples": "boot",
    "w_review_seed": "seed",
    "w_review_correction": "corr",
}


@dataclass(frozen=True)
class ReviewChoice:
    """What the review controls selected."""

    baseline: str
    candidates: tuple[str, ...]
    k: int
    options: CompareOptions


def _keep_valid(key: str, allowed: list, fallback) -> None:
    state = st.session_state
    if key in state:
        value = state[key]
        if isinstance(value, list):
            kept = [v for v in value if v in allowed]
            state[key] = kept if kept else fallback
        elif value not in allowed:
            state[key] = fallback


def _swap_with_previous_baseline(baseline: str, models: list[str]) -> None:
    """When a candidate becomes the baseline, the previous baseline takes its candidate slot."""
    state = st.session_state
    previous = state.get("review_previous_baseline")
    state["review_previous_baseline"] = baseline
    chosen = state.get("w_review_candidates")
    if previous is None or previous == baseline or chosen is None or previous not in models:
        return
    state["w_review_candidates"] = [previous if m == baseline else m for m in chosen]


def _integer(text: str, low: int, high: int) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if low <= value <= high else None


def seed_from_url(models: list[str]) -> None:
    """On a session's first visit, take baseline, candidates, K and statistics from the link."""
    state, params = st.session_state, st.query_params
    if state.get("review_url_read"):
        return
    state["review_url_read"] = True
    if params.get("base") in models:
        state["w_review_baseline"] = params["base"]
    if "cand" in params:
        chosen = [m for m in params["cand"].split(",") if m in models]
        if chosen:
            state["w_review_candidates"] = chosen
    if "at" in params and _integer(params["at"], 1, K_LIMIT) is not None:
        state["w_review_k"] = _integer(params["at"], 1, K_LIMIT)
    if "boot" in params and _integer(params["boot"], 1, 10**6) in RESAMPLE_CHOICES:
        state["w_review_resamples"] = _integer(params["boot"], 1, 10**6)
    if "seed" in params and _integer(params["seed"], 0, 2**31 - 1) is not None:
        state["w_review_seed"] = _integer(params["seed"], 0, 2**31 - 1)
    if params.get("corr") in CORRECTIONS:
        state["w_review_correction"] = params["corr"]


def write_url(choice: ReviewChoice) -> None:
    """Put the review choices into the link, so that a copied URL reopens the same comparison."""
    wanted = {
        "base": choice.baseline,
        "at": str(choice.k),
        "boot": str(choice.options.resamples),
        "seed": str(choice.options.seed),
        "corr": choice.options.correction,
    }
    if all("," not in c for c in choice.candidates):
        wanted["cand"] = ",".join(choice.candidates)
    for name, value in wanted.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def review_controls(
    models: list[str], k_range: tuple[int, int], *, several_candidates: bool = True
) -> ReviewChoice:
    """Baseline, candidates and K in one row; statistics options in an expander.

    The choices are read from the link on a session's first visit and written back to it.
    """
    seed_from_url(models)
    c1, c2, c3 = st.columns([1, 2, 1])
    _keep_valid("w_review_baseline", models, models[0])
    baseline = c1.selectbox(
        t("review.baseline"), models, key="w_review_baseline", help=t("review.baseline_help")
    )
    others = [m for m in models if m != baseline]
    if several_candidates:
        _swap_with_previous_baseline(baseline, models)
        _keep_valid("w_review_candidates", others, others)
        if "w_review_candidates" not in st.session_state:
            st.session_state["w_review_candidates"] = others
        candidates = c2.multiselect(
            t("review.candidates"),
            others,
            key="w_review_candidates",
            help=t("review.candidates_help"),
        )
    else:
        candidates = others
    k_from, k_to = k_range
    if "w_review_k" not in st.session_state or not (1 <= st.session_state["w_review_k"] <= K_LIMIT):
        st.session_state["w_review_k"] = min(max(10, k_from), k_to)
    k = c3.number_input(
        t("review.k"),
        min_value=1,
        max_value=K_LIMIT,
        step=1,
        key="w_review_k",
        help=t("review.k_help"),
    )
    choice = ReviewChoice(baseline, tuple(candidates), int(k), statistics_options())
    write_url(choice)
    return choice


def statistics_options() -> CompareOptions:
    """The statistics expander: resamples, seed, correction, test, missing-query policy."""
    for key, value in (
        ("w_review_resamples", 2_000),
        ("w_review_seed", 0),
        ("w_review_alpha", 0.05),
    ):
        st.session_state.setdefault(key, value)
    with st.expander(t("review.stats"), icon=":material/tune:"):
        c1, c2, c3 = st.columns(3)
        resamples = c1.selectbox(
            t("review.resamples"),
            RESAMPLE_CHOICES,
            key="w_review_resamples",
            format_func=lambda n: f"{n:,}",
            help=t("review.resamples_help"),
        )
        seed = c1.number_input(
            t("review.seed"),
            min_value=0,
            max_value=2**31 - 1,
            step=1,
            key="w_review_seed",
            help=t("review.seed_help"),
        )
        correction = c2.selectbox(
            t("review.correction"),
            list(CORRECTIONS),
            key="w_review_correction",
            format_func=CORRECTIONS.__getitem__,
        )
        test = c2.selectbox(
            t("review.test"), list(TESTS), key="w_review_test", format_func=TESTS.__getitem__
        )
        policy = c3.selectbox(
            t("review.policy"),
            list(MISSING_POLICIES),
            key="w_review_policy",
            format_func=MISSING_POLICIES.__getitem__,
        )
        alpha = c3.selectbox(
            t("review.alpha"),
            (0.05, 0.01, 0.1),
            key="w_review_alpha",
            format_func=lambda a: f"{a:g}",
        )
    return CompareOptions(
        policy=policy,
        resamples=int(resamples),
        seed=int(seed),
        correction=correction,
        test=test,
        alpha=float(alpha),
    )


def require_review_choice(models: list[str], k_range: tuple[int, int]) -> ReviewChoice:
    """The review controls, stopping the page with a hint when there is nothing to compare
    (fewer than two models, or no candidate chosen)."""
    if len(models) < 2:
        st.info(t("review.need_two_models"))
        st.stop()
    choice = review_controls(models, k_range)
    if not choice.candidates:
        st.info(t("review.need_candidate"))
        st.stop()
    return choice
