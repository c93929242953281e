"""Learn page: one ranked list you can touch (labels, order, the cut at K, items not
retrieved), every selected measure with its numbers, the pitfalls that apply, the curve over K,
guided lessons with checked challenges, a worksheet to print, and presenter mode (the list and
the formulas on the first screen of a projector, the teacher's notes in a tab of their own)."""

import functools

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from metrics.engine.explain import EXPLAINED
from ui.learn import evaluate as learn
from ui.learn import list_component as ll
from ui.learn import panel as lp
from ui.learn import predict, views
from ui.learn.lessons import check, text_values
from ui.shell import compute, frame, keys
from ui.shell import handbuilt as hb
from ui.shell.handbuilt_list import MAX_LISTS
from ui.shell.i18n import option_text, t
from ui.shell.per_query_panel import require_lists

ctx = frame.page("learn")
settings = ctx.settings
presenting = views.presenting()
st.html(views.CSS)
if presenting:
    st.html(views.PRESENT_CSS)
lp.seed_from_link()
if lp.notes_requested():  # the teacher's own tab: notes and answers, nothing projected
    lp.notes_view(settings)
    st.stop()
if not presenting:
    st.title(t("learn.title"))
    st.caption(t("learn.intro"))
lp.switch_after_import()
if lp.link_problem():
    st.error(t(f"hand.link.bad.{lp.link_problem()}"))

teaching = lp.teaching_lists()
PRESETS = ["precision_recall", *learn.MRR_LISTS, "ndcg_graded"]

chooser: DeltaGenerator
if presenting:  # one bar: the choice of list in a menu, then K and the settings of the page
    bar = st.columns([2, 4, 3, 4], vertical_alignment="bottom")
    chooser = bar[0].popover(t("learn.choose"), icon=":material/menu:", width="stretch")
    k_place, level_place, policy_place = bar[1], bar[2], bar[3]
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
lesson = None
scale = "graded"
confidences = None  # the model's scores of a data set's query (cwP weighs by them)
words: dict[str, str] = {}  # the numbers of a lesson's texts, from metrics
if source == "preset":
    with chooser:
        name = st.selectbox(
            t("learn.preset"),
            PRESETS,
            key=keys.W_LEARN_PRESET,
            format_func=option_text("learn.preset."),
        )
        st.caption(t("learn.preset_hint"))
    lists = [teaching[name]]
elif source == "handbuilt":
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
elif source == lp.QUERIES:
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
    lists = [learn.list_from_ranked(dataset, ranked, model, query)]
    confidences = learn.confidences_of(dataset, ranked, model, query)
else:
    with chooser:
        lesson = lp.lesson_menu()
    lists = list(lp.lesson_state(lesson))
    scale = lesson.scale
    words = text_values(lesson, settings)
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
        lp.sync_link(source, lesson.k, lesson, lists)
        st.stop()
    if not presenting:
        st.info(challenge, icon=":material/flag:")

target = lp.Target(source, lesson.id if lesson else None)
shown = [learn.ordered(rl, settings) for rl in lists]
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

if not presenting:
    controls = st.columns([2, 2, 3]) if lesson and lesson.policy else st.columns([2, 2])
    k_place, level_place = controls[0], controls[1]
    policy_place = controls[2] if lesson and lesson.policy else st.container()
with k_place:
    k = int(st.slider("K", 1, k_top, key=keys.W_LEARN_K, help=t("learn.k_help")))
with level_place:
    level = lp.level_control()
if lesson and lesson.policy:
    with policy_place:
        lp.policy_control(lesson.policy, horizontal=presenting)

# the projected page never shows the expected answers: in presenter mode they are in a tab
if lesson and not presenting and st.toggle(t("learn.teacher"), key=keys.W_TEACHER):
    lp.teacher_view(lesson, words)
lp.describe_in_sidebar(source, lesson, shown, k, settings, ctx.dataset)
measures = learn.shown_measures(ctx.view.measures)
title = lp.shown_title(source, lesson, shown)
# the worksheet of what is shown: a lesson's lists and questions, or the list's measures
sheet = functools.partial(views.worksheet_download, measures=measures, lesson=lesson, words=words)
if presenting and lesson is not None:
    with chooser:
        sheet(shown, k, settings, title, key="dl_present_worksheet")


def lists_now() -> list:
    """The shown lists as they are now (a button press inside the fragment changed them)."""
    if source == "handbuilt":
        now = {rl.name: rl for rl in hb.session_lists()}
        return [now.get(state.get(keys.W_LEARN_HAND_LIST, ""), lists[0])]
    if source == lp.QUERIES:
        return hb.session_lists()
    if lesson is not None:
        return list(lp.lesson_state(lesson))
    return lists


@st.fragment
def playground() -> None:
    """The list(s), the numbers, the pitfalls and the curve: a button press redraws only this."""
    lists = lists_now()
    shown = [learn.ordered(rl, settings) for rl in lists]
    if ll.apply_pending(target, shown, scale):  # a press in the list: apply it, then draw
        if state.pop(keys.LEARN_FULL_RERUN, False):
            st.rerun(scope="app")  # the list became a hand-built list: the menus above change
        lists = lists_now()
        shown = [learn.ordered(rl, settings) for rl in lists]
    if lesson:
        lp.celebrate(lesson, check(lesson, lists, k, settings), words, quiet=presenting)
        if not presenting:  # the class's progress is in the menu of presenter mode
            lp.progress()
    if source == lp.QUERIES:
        views.queries(shown, k, settings, scale=scale, on_remove=lp.remove_query)
    elif lesson is not None and lesson.queries:
        views.queries(shown, k, settings, scale=scale)
    elif len(shown) == 1:
        views.one_list(shown[0], k, settings, scale, measures=measures, confidences=confidences)
        if source == "preset" and shown[0].name in learn.MRR_LISTS:
            text, _ = learn.mrr_example(teaching, settings)
            st.info(t("learn.mrr_over_three") + "\n\n`" + text + "`")
            st.button(
                t("learn.queries.open"),
                key="btn_learn_open_queries",
                on_click=lp.open_queries,
                icon=":material/view_column:",
            )
    else:
        views.many_lists(shown, k, settings, lesson, scale)
    if source != lp.QUERIES and not (lesson and lesson.queries):
        name = t(f"learn.preset.{lists[0].name}") if source == "preset" else lists[0].name
        views.curve_and_tables(shown[0], k, settings, name)
    views.share(lists, lambda: sheet(shown, k, settings, title))
    lp.sync_link(source, k, lesson, lists)


playground()

if not presenting:
    st.subheader(t("learn.guide"))
    for m in EXPLAINED:
        with st.expander(f"{m} · {frame.measure_pretty(m)} — {t(f'learn.question.{m}')}"):
            st.markdown(f"**{t('learn.answers')}** {frame.measure_text(m, 'description')}")
            st.markdown(f"**{t('learn.pitfall')}** {frame.measure_text(m, 'pitfall')}")
            st.latex(frame.measure_text(m, "latex"))
