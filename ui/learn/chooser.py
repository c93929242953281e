"""The Learn page's choice of what to show: a teaching list, a hand-built list, several queries,
a data set's query or a lesson (with its text and challenge); the K kept for each; the measures'
guide below the list."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from metrics.engine.explain import EXPLAINED
from ui.learn import evaluate as learn
from ui.learn import panel as lp
from ui.learn import predict
from ui.learn.lessons import text_values
from ui.shell import compute, frame, keys
from ui.shell import handbuilt as hb
from ui.shell.handbuilt_list import MAX_LISTS
from ui.shell.i18n import option_text, t
from ui.shell.labels import measure_pretty, measure_text
from ui.shell.per_query_panel import require_lists

#: The teaching lists of the menu, in its order.
PRESETS = ["precision_recall", *learn.MRR_LISTS, "ndcg_graded"]


@dataclass
class Chosen:
    """What the page shows and where its controls go."""

    source: str
    lists: list
    #: The menu of lists (a popover in presenter mode).
    chooser: DeltaGenerator
    teaching: dict
    lesson: Any = None
    scale: str = "graded"
    #: The model's scores of a data set's query (cwP weighs by them).
    confidences: Any = None
    #: The numbers of a lesson's texts, from metrics.
    words: dict[str, str] = field(default_factory=dict)
    #: Where K, the relevance level and a lesson's setting go (presenter mode: the top bar).
    places: tuple[Any, Any, Any] | None = None


def choose(ctx: frame.PageContext, presenting: bool) -> Chosen:
    """The source menu and the list it gives; a lesson's text and challenge (the page stops
    before the numbers until its prediction is made); stops without a hand-built list."""
    settings = ctx.settings
    teaching = lp.teaching_lists()
    chooser: DeltaGenerator
    places = None
    if presenting:  # one bar: the choice of list in a menu, then K and the settings of the page
        bar = st.columns([2, 4, 3, 4], vertical_alignment="bottom")
        chooser = bar[0].popover(t("learn.choose"), icon=":material/menu:", width="stretch")
        places = (bar[1], bar[2], bar[3])
    else:
        chooser = st.container()
    with chooser:
        source = st.radio(
            t("learn.source"),
            ["preset", "handbuilt", lp.QUERIES, "query", "lesson"],
            key=keys.W_LEARN_SOURCE,
            format_func=option_text("learn.source."),
            horizontal=not presenting,
        )
    chosen = Chosen(source, [], chooser, teaching, places=places)
    if source == "preset":
        with chooser:
            name = st.selectbox(
                t("learn.preset"),
                PRESETS,
                key=keys.W_LEARN_PRESET,
                format_func=option_text("learn.preset."),
            )
            st.caption(t("learn.preset_hint"))
        chosen.lists = [teaching[name]]
    elif source == "handbuilt":
        chosen.lists = _hand_built(chooser)
    elif source == lp.QUERIES:
        chosen.lists = _queries(chooser)
    elif source == "query":
        dataset = ctx.require_dataset()
        require_lists(dataset, "perquery.learn_unavailable")
        ranked = compute.ranked_lists(dataset, settings)
        with chooser:
            model = st.selectbox(t("learn.model"), list(ranked), key=keys.W_LEARN_MODEL)
            query = st.selectbox(
                t("learn.query"), learn.lists_of(dataset, ranked, model), key=keys.W_LEARN_QUERY
            )
            st.caption(t("learn.preset_hint"))
        chosen.lists = [learn.list_from_ranked(dataset, ranked, model, query)]
        chosen.confidences = learn.confidences_of(dataset, ranked, model, query)
    else:
        _lesson(chosen, settings, presenting)
    return chosen


def _hand_built(chooser: DeltaGenerator) -> list:
    """One hand-built list, chosen by name."""
    hand = hb.session_lists()
    names = [rl.name for rl in hand]
    if not names:
        st.info(t("learn.no_handbuilt"))
        st.stop()
    if st.session_state.get(keys.W_LEARN_HAND_LIST) not in names:
        st.session_state[keys.W_LEARN_HAND_LIST] = names[0]
    with chooser:
        name = st.selectbox(t("learn.handbuilt_list"), names, key=keys.W_LEARN_HAND_LIST)
        st.caption(t("learn.hand_hint"))
    lists = [next(rl for rl in hand if rl.name == name)]
    lp.duplicates_note()
    return lists


def _queries(chooser: DeltaGenerator) -> list:
    """Several queries side by side, with the buttons that add one or load the MRR example."""
    lists = lp.queries_lists()
    with chooser:
        st.caption(t("learn.queries.hint"))
        b1, b2 = st.columns(2)
        b1.button(
            t("learn.queries.add"),
            key="btn_learn_add_query",
            on_click=lp.add_query,
            icon=":material/add:",
            disabled=len(lists) >= MAX_LISTS,
        )
        b2.button(
            t("learn.queries.mrr_example"),
            key="btn_learn_mrr_example",
            on_click=lp.load_mrr_example,
            icon=":material/restart_alt:",
        )
    lp.duplicates_note()
    return lists


def _lesson(chosen: Chosen, settings: Any, presenting: bool) -> None:
    """A lesson: its lists, text and challenge; stops before the numbers until the learner has
    made the lesson's prediction."""
    chooser = chosen.chooser
    with chooser:
        lesson = lp.lesson_menu()
    chosen.lesson = lesson
    chosen.lists = list(lp.lesson_state(lesson))
    chosen.scale = lesson.scale
    words = chosen.words = text_values(lesson, settings)
    challenge = f"**{t('learn.challenge')}** {t(f'lesson.{lesson.id}.challenge', **words)}"
    if presenting:  # one line: the challenge, the lesson's text folded under it
        with st.expander(challenge, expanded=lesson.predict is not None, icon=":material/flag:"):
            st.markdown(t(f"lesson.{lesson.id}.text", **words))
    else:
        st.markdown(t(f"lesson.{lesson.id}.text", **words))
    with chooser:
        st.button(t("learn.reset_lesson"), key="btn_lesson_reset", on_click=lp.reset_lesson)
        lp.notes_link(lesson)
        if presenting:
            lp.progress()
    if not predict.predicted(lesson, settings, words):  # the numbers come after the prediction
        lp.sync_link(chosen.source, lesson.k, lesson, chosen.lists)
        st.stop()
    if not presenting:
        st.info(challenge, icon=":material/flag:")


def keep_k(chosen: Chosen, shown: list) -> int:
    """K starts at the lesson's or the list's own each time another list is shown, and stays
    between 1 and the largest K offered, which it returns."""
    lesson, source = chosen.lesson, chosen.source
    n_max = max((len(rl.items) for rl in shown), default=0)
    if n_max == 0 and source != "lesson":
        st.info(t("learn.empty_list"))
    k_top = max(10, n_max)
    state = st.session_state
    origin = f"lesson:{lesson.id}" if lesson else source if source == lp.QUERIES else shown[0].name
    if keys.W_LEARN_K not in state or state.get(keys.LEARN_K_ORIGIN, origin) != origin:
        state[keys.W_LEARN_K] = lesson.k if lesson else min(shown[0].default_k, max(n_max, 1))
    state[keys.LEARN_K_ORIGIN] = origin
    state[keys.W_LEARN_K] = min(max(int(state[keys.W_LEARN_K]), 1), k_top)
    return k_top


def lists_now(chosen: Chosen) -> list:
    """The shown lists as they are now (a button press inside the fragment changed them)."""
    state = st.session_state
    if chosen.source == "handbuilt":
        now = {rl.name: rl for rl in hb.session_lists()}
        return [now.get(state.get(keys.W_LEARN_HAND_LIST, ""), chosen.lists[0])]
    if chosen.source == lp.QUERIES:
        return hb.session_lists()
    if chosen.lesson is not None:
        return list(lp.lesson_state(chosen.lesson))
    return chosen.lists


def guide() -> None:
    """What each measure answers, its pitfall and its formula."""
    st.subheader(t("learn.guide"))
    for m in EXPLAINED:
        with st.expander(f"{m} · {measure_pretty(m)} — {t(f'learn.question.{m}')}"):
            st.markdown(f"**{t('learn.answers')}** {measure_text(m, 'description')}")
            st.markdown(f"**{t('learn.pitfall')}** {measure_text(m, 'pitfall')}")
            st.latex(measure_text(m, "latex"))
