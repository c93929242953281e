"""Widgets shared by the Compare, Segments and Report pages: baseline, candidates, K, statistics.

Keys start with ``w_review_`` so that the frame keeps their values when switching pages (the
same baseline and K on all three review pages).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from metrics.engine.registry import cutoff_name, split_cutoff
from metrics.review.compare import DEFAULT_ALPHA, MAX_SEGMENT_COLUMNS, TESTS, CompareOptions
from metrics.review.power import DEFAULT_POWER
from metrics.review.statistics import (
    CORRECTIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MISSING_POLICIES,
)
from metrics.review.verdict import DEFAULT_FAMILY, FAMILIES
from ui.review.compute import RESAMPLE_CHOICES, default_k
from ui.review.tables import export_csv, export_json
from ui.shell import keys
from ui.shell.i18n import Message, option_text, t
from ui.shell.view import K_LIMIT

#: Widget key -> URL query parameter (names the frame does not use; see ui/shell/view.py URL_NAMES).
URL_PARAMS = {
    keys.W_REVIEW_BASELINE: "base",
    keys.W_REVIEW_CANDIDATES: "cand",
    keys.W_REVIEW_K: "at",
    keys.W_REVIEW_RESAMPLES: "boot",
    keys.W_REVIEW_SEED: "seed",
    keys.W_REVIEW_CORRECTION: "corr",
    keys.W_REVIEW_FAMILY: "fam",
    keys.W_REVIEW_POWER: "pow",
    keys.W_SEG_BY: "seg",
    keys.W_REVIEW_LEAD: "lead",
    keys.W_REVIEW_GUARD: "guard",
    keys.W_SEG_CROSS: "cross",
}
#: URL parameter of the smallest differences that matter (``nDCG:0.02,P:0.01``).
MIN_EFFECT_PARAM = "eff"
#: Powers offered for the minimum detectable effect and the queries needed.
POWER_CHOICES = (0.8, 0.9, 0.95)


@dataclass(frozen=True)
class ReviewChoice:
    """What the review controls selected."""

    baseline: str
    candidates: tuple[str, ...]
    k: int
    options: CompareOptions
    family: str = DEFAULT_FAMILY
    min_effect: tuple[tuple[str, float], ...] = ()
    power: float = DEFAULT_POWER
    lead: str = ""
    guardrails: tuple[str, ...] = ()

    @property
    def lead_at_k(self) -> str:
        """The lead measure at the review's K (``""``: the default rule)."""
        return cutoff_name(self.lead, self.k) if self.lead else ""


def _keep_valid(key: str, allowed: list, fallback) -> None:
    state = st.session_state
    if key in state:
        value = state[key]
        if isinstance(value, list):
            kept = [v for v in value if v in allowed]
            state[key] = kept if kept else fallback
        elif value not in allowed:
            state[key] = fallback


def keep_choice(key: str, allowed: list, fallback) -> None:
    """A widget's value that is missing or no longer offered (another data set, other
    measures) becomes ``fallback`` before the widget is drawn."""
    if st.session_state.get(key) not in allowed:
        st.session_state[key] = fallback


def _swap_with_previous_baseline(baseline: str, models: list[str]) -> None:
    """When a candidate becomes the baseline, the previous baseline takes its candidate slot."""
    state = st.session_state
    previous = state.get(keys.REVIEW_PREVIOUS_BASELINE)
    state[keys.REVIEW_PREVIOUS_BASELINE] = baseline
    chosen = state.get(keys.W_REVIEW_CANDIDATES)
    if previous is None or previous == baseline or chosen is None or previous not in models:
        return
    state[keys.W_REVIEW_CANDIDATES] = [previous if m == baseline else m for m in chosen]


def _integer(text: str, low: int, high: int) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if low <= value <= high else None


def seed_from_url(models: list[str]) -> None:
    """On a session's first visit, take baseline, candidates, K and statistics from the link."""
    state, params = st.session_state, st.query_params
    if state.get(keys.REVIEW_URL_READ):
        return
    state[keys.REVIEW_URL_READ] = True
    if params.get("base") in models:
        state[keys.W_REVIEW_BASELINE] = params["base"]
    if "cand" in params:
        chosen = [m for m in params["cand"].split(",") if m in models]
        if chosen:
            state[keys.W_REVIEW_CANDIDATES] = chosen
    if "at" in params and _integer(params["at"], 1, K_LIMIT) is not None:
        state[keys.W_REVIEW_K] = _integer(params["at"], 1, K_LIMIT)
    if "boot" in params and _integer(params["boot"], 1, 10**6) in RESAMPLE_CHOICES:
        state[keys.W_REVIEW_RESAMPLES] = _integer(params["boot"], 1, 10**6)
    if "seed" in params and _integer(params["seed"], 0, 2**31 - 1) is not None:
        state[keys.W_REVIEW_SEED] = _integer(params["seed"], 0, 2**31 - 1)
    if params.get("corr") in CORRECTIONS:
        state[keys.W_REVIEW_CORRECTION] = params["corr"]
    if params.get("fam") in FAMILIES:
        state[keys.W_REVIEW_FAMILY] = params["fam"]
    _rule_from_url()
    _power_and_effects_from_url()


def _rule_from_url() -> None:
    """The decision rule of the link: lead measure, guard rails, crossed segment columns."""
    state, params = st.session_state, st.query_params
    if params.get("lead"):
        state[keys.W_REVIEW_LEAD] = str(params["lead"])[:40]
    if params.get("guard"):
        state[keys.W_REVIEW_GUARD] = [g[:200] for g in str(params["guard"]).split("|")[:20] if g]
    if params.get("cross") == "1":
        state[keys.W_SEG_CROSS] = True


def _power_and_effects_from_url() -> None:
    """The power and the smallest differences that matter of the link (``pow``, ``eff``)."""
    state, params = st.session_state, st.query_params
    power = _number(str(params.get("pow", "")))
    if power in POWER_CHOICES:
        state[keys.W_REVIEW_POWER] = power
    for name, value in _min_effects_of_url(str(params.get(MIN_EFFECT_PARAM, ""))):
        state[keys.min_effect(name)] = value


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _min_effects_of_url(text: str) -> list[tuple[str, float]]:
    """``nDCG:0.02,P:0.01`` -> ``[("nDCG", 0.02), ("P", 0.01)]`` (unreadable entries left
    out)."""
    out = []
    for item in text.split(","):
        name, _, value = item.partition(":")
        number = _number(value)
        if name and number is not None and 0 <= number < 1e6:
            out.append((name, number))
    return out


def write_url(choice: ReviewChoice) -> None:
    """Put the review choices into the link, so that a copied URL reopens the same comparison."""
    wanted = {
        "base": choice.baseline,
        "at": str(choice.k),
        "boot": str(choice.options.resamples),
        "seed": str(choice.options.seed),
        "corr": choice.options.correction,
        "fam": choice.family,
        "pow": f"{choice.power:g}",
    }
    effects = ",".join(f"{m}:{v:g}" for m, v in choice.min_effect if "," not in m and ":" not in m)
    if effects:
        wanted[MIN_EFFECT_PARAM] = effects
    elif MIN_EFFECT_PARAM in st.query_params:
        del st.query_params[MIN_EFFECT_PARAM]
    if all("," not in c for c in choice.candidates):
        wanted["cand"] = ",".join(choice.candidates)
    for name, value in (
        ("lead", choice.lead),
        ("guard", "|".join(g for g in choice.guardrails if "|" not in g)),
        ("cross", "1" if st.session_state.get(keys.W_SEG_CROSS) else ""),
    ):
        if value:
            wanted[name] = value
        elif name in st.query_params:
            del st.query_params[name]
    for name, value in wanted.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def review_controls(
    models: list[str],
    k_range: tuple[int, int],
    *,
    several_candidates: bool = True,
    measures: tuple[str, ...] = (),
    segments: tuple[str, ...] = (),
) -> ReviewChoice:
    """Baseline, candidates and K in one row; statistics options in an expander.

    The choices are read from the link on a session's first visit and written back to it.
    """
    seed_from_url(models)
    c1, c2, c3 = st.columns([1, 2, 1])
    _keep_valid(keys.W_REVIEW_BASELINE, models, models[0])
    baseline = c1.selectbox(
        t("review.baseline"), models, key=keys.W_REVIEW_BASELINE, help=t("review.baseline_help")
    )
    others = [m for m in models if m != baseline]
    if several_candidates:
        _swap_with_previous_baseline(baseline, models)
        _keep_valid(keys.W_REVIEW_CANDIDATES, others, others)
        if keys.W_REVIEW_CANDIDATES not in st.session_state:
            st.session_state[keys.W_REVIEW_CANDIDATES] = others
        candidates = c2.multiselect(
            t("review.candidates"),
            others,
            key=keys.W_REVIEW_CANDIDATES,
            help=t("review.candidates_help"),
        )
    else:
        candidates = others
    if keys.W_REVIEW_K not in st.session_state or not (
        1 <= st.session_state[keys.W_REVIEW_K] <= K_LIMIT
    ):
        st.session_state[keys.W_REVIEW_K] = default_k(k_range)
    k = c3.number_input(
        t("review.k"),
        min_value=1,
        max_value=K_LIMIT,
        step=1,
        key=keys.W_REVIEW_K,
        help=t("review.k_help"),
    )
    options, family, min_effect, power = statistics_options(measures)
    lead, guardrails = decision_rule(measures, segments)
    choice = ReviewChoice(
        baseline, tuple(candidates), int(k), options, family, min_effect, power, lead, guardrails
    )
    write_url(choice)
    return choice


def statistics_options(
    measures: tuple[str, ...] = (),
) -> tuple[CompareOptions, str, tuple[tuple[str, float], ...], float]:
    """The statistics expander: resamples, seed, correction and its family, test,
    missing-query policy, significance level, power and the smallest difference that matters
    of each measure (0: none). The defaults are those of ``python -m metrics compare``.

    Returns
    -------
    (options, family, smallest differences that matter, power)
    """
    for key, value in (
        (keys.W_REVIEW_RESAMPLES, DEFAULT_RESAMPLES),
        (keys.W_REVIEW_SEED, DEFAULT_SEED),
        (keys.W_REVIEW_ALPHA, DEFAULT_ALPHA),
        (keys.W_REVIEW_FAMILY, DEFAULT_FAMILY),
        (keys.W_REVIEW_POWER, DEFAULT_POWER),
    ):
        st.session_state.setdefault(key, value)
    with st.expander(t("review.stats"), icon=":material/tune:"):
        c1, c2, c3 = st.columns(3)
        resamples = c1.selectbox(
            t("review.resamples"),
            RESAMPLE_CHOICES,
            key=keys.W_REVIEW_RESAMPLES,
            format_func=lambda n: f"{n:,}",
            help=t("review.resamples_help"),
        )
        seed = c1.number_input(
            t("review.seed"),
            min_value=0,
            max_value=2**31 - 1,
            step=1,
            key=keys.W_REVIEW_SEED,
            help=t("review.seed_help"),
        )
        correction = c2.selectbox(
            t("review.correction"),
            list(CORRECTIONS),
            key=keys.W_REVIEW_CORRECTION,
            format_func=option_text("review.correction."),
        )
        family = c2.selectbox(
            t("review.family"),
            list(FAMILIES),
            key=keys.W_REVIEW_FAMILY,
            format_func=option_text("review.family."),
            help=t("review.family_help"),
        )
        test = c2.selectbox(
            t("review.test"),
            list(TESTS),
            key=keys.W_REVIEW_TEST,
            format_func=option_text("review.test."),
        )
        policy = c3.selectbox(
            t("review.policy"),
            list(MISSING_POLICIES),
            key=keys.W_REVIEW_POLICY,
            format_func=option_text("review.policy."),
        )
        alpha = c3.selectbox(
            t("review.alpha"),
            (0.05, 0.01, 0.1),
            key=keys.W_REVIEW_ALPHA,
            format_func=lambda a: f"{a:g}",
        )
        power = c3.selectbox(
            t("review.power"),
            POWER_CHOICES,
            key=keys.W_REVIEW_POWER,
            format_func=lambda p: f"{p:.0%}",
            help=t("review.power_help"),
        )
        min_effect = _min_effect_inputs(measures)
    options = CompareOptions(
        policy=policy,
        resamples=int(resamples),
        seed=int(seed),
        correction=correction,
        test=test,
        alpha=float(alpha),
    )
    return options, family, min_effect, float(power)


def decision_rule(
    measures: tuple[str, ...], segments: tuple[str, ...]
) -> tuple[str, tuple[str, ...]]:
    """The decision rule's expander: the lead measure (default: nDCG when compared, else the
    first measure) and the guard-rail segments (segment columns or ``column = value``; none:
    every segment). The smallest differences that matter and the level are in the statistics
    expander.

    Returns
    -------
    (lead measure without K, or ``""`` for the default; guard-rail segments)
    """
    state = st.session_state
    names = [split_cutoff(m)[0] for m in measures]
    if state.get(keys.W_REVIEW_LEAD) not in ["", *names]:
        state[keys.W_REVIEW_LEAD] = ""
    chosen_guards = [g for g in state.get(keys.W_REVIEW_GUARD, []) if g in segments]
    state[keys.W_REVIEW_GUARD] = chosen_guards
    with st.expander(t("review.rule"), icon=":material/gavel:"):
        st.caption(t("review.rule_help"))
        c1, c2 = st.columns([1, 2])
        shown = {"": t("review.lead_default")}  # words fixed in this run's language
        lead = c1.selectbox(
            t("review.lead"),
            ["", *names],
            key=keys.W_REVIEW_LEAD,
            format_func=lambda m: shown.get(m, m),
            help=t("review.lead_help"),
        )
        guardrails = c2.multiselect(
            t("review.guardrails"),
            list(segments),
            key=keys.W_REVIEW_GUARD,
            placeholder=t("review.guardrails_all"),
            help=t("review.guardrails_help"),
        )
    return str(lead or ""), tuple(guardrails)


def _min_effect_inputs(measures: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """One number per measure: the smallest difference that matters (0 for none)."""
    if not measures:
        return ()
    st.markdown(t("review.min_effect"), help=t("review.min_effect_help"))
    chosen = []
    for column, measure in zip(st.columns(min(len(measures), 4)) * len(measures), measures):
        key = keys.min_effect(measure)
        st.session_state.setdefault(key, 0.0)
        value = column.number_input(
            measure, min_value=0.0, max_value=1e6, step=0.005, format="%.3f", key=key
        )
        if value > 0:
            chosen.append((measure, float(value)))
    return tuple(chosen)


def segment_choice(columns: list[str]) -> tuple[str, ...]:
    """The segment columns chosen on the Segments page (``w_seg_by``; the first column by
    default, from the link's ``seg`` on a first visit): every review page computes its one
    table with them, so that the same comparison has the same corrected p everywhere."""
    state = st.session_state
    if not columns:
        return ()
    if keys.W_SEG_BY not in state:
        wanted = [c for c in str(st.query_params.get("seg", "")).split(",") if c in columns]
        state[keys.W_SEG_BY] = wanted[:MAX_SEGMENT_COLUMNS] or columns[:1]
    chosen = [c for c in state[keys.W_SEG_BY] if c in columns][:MAX_SEGMENT_COLUMNS]
    if chosen != list(state[keys.W_SEG_BY]):
        state[keys.W_SEG_BY] = chosen or columns[:1]
    by = tuple(state[keys.W_SEG_BY])
    if st.query_params.get("seg") != ",".join(by) and all("," not in c for c in by):
        st.query_params["seg"] = ",".join(by)
    return by


def guard_options(segments: pd.DataFrame | None, by: tuple[str, ...]) -> tuple[str, ...]:
    """What can be a guard rail: each segment column and each of its values, named as the
    review names a segment (``country = JP``), at most 50 values a column."""
    from metrics.review.compare import segment_of_query
    from metrics.review.verdict import segment_name

    if segments is None or not by:
        return ()
    out: list[str] = []
    for column in by:
        if column not in segments.columns:
            continue
        values = segment_of_query(segments, [column])[column]
        out.append(column)
        out += [segment_name({column: v}, [column]) for v in sorted(set(values))[:50]]
    return tuple(out)


def segment_cross() -> bool:
    """Whether two segment columns are crossed into cells (an opt-in of the Segments page)."""
    return bool(st.session_state.get(keys.W_SEG_CROSS, False))


def require_review_choice(
    models: list[str],
    k_range: tuple[int, int],
    measures: tuple[str, ...] = (),
    segments: tuple[str, ...] = (),
) -> ReviewChoice:
    """The review controls, stopping the page with a hint when there is nothing to compare
    (fewer than two models, or no candidate chosen); ``measures`` (names without K) get each a
    smallest difference that matters."""
    if len(models) < 2:
        st.info(t("review.need_two_models"))
        st.stop()
    choice = review_controls(models, k_range, measures=measures, segments=segments)
    if not choice.candidates:
        st.info(t("review.need_candidate"))
        st.stop()
    return choice


# --------------------------------------------------------------------------- verdict and drill-down


def verdict_templates() -> dict[str, Message]:
    """Wording of :mod:`metrics.review.wording` sentences in the session's language."""
    from metrics.review.wording import VERDICT_TEMPLATES
    from ui.shell.i18n import current_language, templates

    return templates(VERDICT_TEMPLATES, current_language())


def decision_of(review: pd.DataFrame, words: Mapping[str, Message] | None = None) -> Any:
    """The decision (:func:`metrics.review.decision.decide`) of a review table under the default
    rule, in the session's language: the same sentences as ``python -m metrics compare``'s
    ``headline:`` lines."""
    from metrics.review.decision import DECISION_TEMPLATES, decide
    from metrics.review.verdict import BASELINE_KIND, ReviewRequest
    from ui.shell.i18n import current_language, templates

    rows = review[review["kind"] == BASELINE_KIND]
    if rows.empty:
        return None
    request = ReviewRequest(
        str(rows["reference"].iloc[0]),
        tuple(dict.fromkeys(rows["candidate"].astype(str))),
        tuple(dict.fromkeys(review["measure"].astype(str))),
        lead=str(review.attrs.get("lead", "")),
        guardrails=tuple(review.attrs.get("guardrails", ())),
        min_effect=tuple(
            (str(m), float(e))
            for m, e in zip(rows["measure"], rows["min_effect"])
            if e == e  # not NaN
        ),
    )
    wording = templates(DECISION_TEMPLATES, current_language())
    tests = pd.DataFrame(review.attrs.get("heterogeneity") or [])
    return decide(review, request, tests if len(tests) else None, wording)


def _joined(lines: list[str]) -> str:
    # Chinese and Japanese sentences end in 。 and follow each other without a space.
    return "".join(lines) if lines and lines[0].endswith("。") else " ".join(lines)


def verdict_box(review: pd.DataFrame, words: Mapping[str, Message]) -> None:
    """The decision at the top of the page (at most three sentences per candidate, the
    recommendation first), with the per-row sentences one click away."""
    from metrics.review.headline import verdict_sentences
    from ui.shell import frame

    decision = decision_of(review, words)
    sentences = verdict_sentences(review, words)
    with st.container(border=True, key="verdict_box"):
        st.subheader(t("review.verdict_title"))
        if decision is not None:
            for candidate, code in decision.recommendations.items():
                label = t(f"decision.recommendation.{code}")
                lines = decision.by_candidate.get(candidate, [])
                st.markdown(
                    f"**{frame.escape(candidate)}: {label}** · {frame.escape(_joined(lines))}"
                )
            for line in decision.closing:
                st.markdown(f"**{frame.escape(line)}**")
        with st.expander(t("review.verdict_details")):
            for candidate, lines in sentences.items():
                if candidate:
                    st.markdown(frame.escape(_joined(lines)))
            for line in sentences.get("", []):
                st.markdown(f"**{frame.escape(line)}**")
            st.caption(t("review.verdict_caption"))


#: Call-out kind -> (icon, colour of its mark): findings, not application errors, so they are
#: drawn in a box of their own (no error red).
CALLOUT_STYLES = {
    "worse": (":material/trending_down:", "#cf222e"),
    "better": (":material/trending_up:", "#1a7f37"),
    "lower": (":material/south_east:", "#9a6700"),
    "higher": (":material/north_east:", "#9a6700"),
}


def callout_box(kind: str, significant: bool, sentence: str) -> None:
    """One segment finding (:func:`metrics.review.callouts.callouts`) in a bordered box with an
    icon of its direction; significant findings carry the word in bold."""
    from ui.shell import frame

    icon, _ = CALLOUT_STYLES.get(kind, (":material/info:", "#57606a"))
    with st.container(border=True):
        label = t(f"segments.callout.{kind}")
        text = frame.escape(sentence)
        st.markdown(f"{icon} **{label}** · {text}" if significant else f"{icon} {label} · {text}")


@dataclass(frozen=True)
class DrillChoice:
    """The drill-down's candidate, measure and segment filter (and the link they write)."""

    candidate: str
    measure: str
    segment: tuple[str, str] | None
    segments: pd.DataFrame

    def write_url(self, query: str) -> None:
        """Candidate, measure, segment and query into the link (a copied URL reopens them)."""
        wanted = {
            "qc": self.candidate,
            "qm": self.measure,
            "qseg": "=".join(self.segment) if self.segment else "",
            "q": str(query),
        }
        for name, value in wanted.items():
            st.session_state[keys.compare_url(name)] = value
            if not value:
                if name in st.query_params:
                    del st.query_params[name]
            elif st.query_params.get(name) != value:
                st.query_params[name] = value


#: Drill-down widget key -> URL parameter.
DRILL_PARAMS = {
    keys.W_CMP_CANDIDATE: "qc",
    keys.W_CMP_QUERY_MEASURE: "qm",
    keys.W_CMP_SEGMENT: "qseg",
    keys.W_CMP_QUERY: "q",
}


def _sync_from_url() -> None:
    """A drill-down parameter of the link that changed since this session last wrote it (a
    new link, a Segments row opened in Compare) sets its widget."""
    state, params = st.session_state, st.query_params
    for key, name in DRILL_PARAMS.items():
        value = params.get(name)
        if value is not None and value != state.get(keys.compare_url(name)):
            state[key] = value
            state[keys.compare_url(name)] = value


def drill_choice(candidates: list[str], measures: list[str], dataset) -> DrillChoice:
    """Candidate, measure and segment of the drill-down, from the link first; choices that no
    longer exist (another data set, other candidates) fall back to the first ones."""
    from metrics.review.compare import segment_of_query
    from ui.shell.per_query_data import is_per_query

    _sync_from_url()
    columns = list(dataset.segment_columns)
    compared = (dataset.per_query if is_per_query(dataset) else dataset.run)["query"]
    segments = (  # the run's queries: those absent from the query table are (missing) too
        segment_of_query(dataset.segments, columns, compared)
        if columns
        else pd.DataFrame(columns=["query"])
    )
    options = [""] + [f"{c}={v}" for c in columns for v in sorted(segments[c].unique())]
    _keep_valid(keys.W_CMP_CANDIDATE, candidates, candidates[0])
    _keep_valid(keys.W_CMP_QUERY_MEASURE, measures, measures[0])
    _keep_valid(keys.W_CMP_SEGMENT, options, "")
    c1, c2, c3 = st.columns(3)
    candidate = c1.selectbox(t("compare.candidate"), candidates, key=keys.W_CMP_CANDIDATE)
    k = st.session_state.get(keys.W_REVIEW_K, 10)
    measure = c2.selectbox(
        t("compare.measure"),
        measures,
        key=keys.W_CMP_QUERY_MEASURE,
        format_func=lambda m: cutoff_name(m, k),
    )
    everything = t("compare.all_queries")  # the session's language, fixed now
    chosen = c3.selectbox(
        t("compare.segment_filter"),
        options,
        key=keys.W_CMP_SEGMENT,
        format_func=lambda o: o.replace("=", " = ", 1) if o else everything,
    )
    column, _, value = chosen.partition("=")
    segment = (column, value) if chosen else None
    return DrillChoice(candidate, measure, segment, segments)


def warn_unknown_data(shown: str) -> None:
    """A link that named a data set this app does not have says so (the sample ``shown`` is
    used instead), until another data set is chosen."""
    from ui.shell import frame

    state = st.session_state
    missing = state.get(keys.MISSING_DATA)
    if not missing:
        return
    if state.setdefault(keys.MISSING_DATA_FALLBACK, shown) != shown:
        state.pop(keys.MISSING_DATA, None)
        return
    st.warning(
        t("review.unknown_data", name=frame.escape(missing), shown=frame.escape(shown)),
        icon=":material/warning:",
    )


def table_downloads(
    rows: pd.DataFrame,
    review: pd.DataFrame,
    stem: str,
    key: str,
    words: Mapping[str, Message] | None = None,
) -> None:
    """``rows`` of a review as CSV and as JSON, side by side, each with the review's decision
    (:func:`decision_of`): files ``<stem>.csv`` and ``<stem>.json``, widget keys
    ``dl_<key>_csv`` and ``dl_<key>_json``."""
    decision = decision_of(review, words)
    left, right = st.columns(2)
    left.download_button(
        t("review.download_csv"),
        export_csv(rows, decision),
        f"{stem}.csv",
        "text/csv",
        key=f"dl_{key}_csv",
        on_click="ignore",
    )
    right.download_button(
        t("review.download_json"),
        export_json(rows, decision),
        f"{stem}.json",
        "application/json",
        key=f"dl_{key}_json",
        on_click="ignore",
    )
