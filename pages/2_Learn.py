"""Learn page: one ranked list you can touch (labels, order, the cut at K, items not
retrieved), every selected measure with its numbers, the pitfalls that apply, the curve over K,
guided lessons with checked challenges, a worksheet to print, and presenter mode (the list and
the formulas on the first screen of a projector, the teacher's notes in a tab of their own)."""

import functools

import streamlit as st

from ui.learn import chooser, views
from ui.learn import evaluate as learn
from ui.learn import list_component as ll
from ui.learn import panel as lp
from ui.learn.lessons import check
from ui.shell import frame, keys
from ui.shell.i18n import t

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

chosen = chooser.choose(ctx, presenting)
source, lists, lesson, scale = chosen.source, chosen.lists, chosen.lesson, chosen.scale
words = chosen.words
target = lp.Target(source, lesson.id if lesson else None)
shown = [learn.ordered(rl, settings) for rl in lists]
k_top = chooser.keep_k(chosen, shown)
state = st.session_state

if chosen.places is not None:
    k_place, level_place, policy_place = chosen.places
else:
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
sheet = functools.partial(lp.worksheet_download, measures=measures, lesson=lesson, words=words)
if presenting and lesson is not None:
    with chosen.chooser:
        sheet(shown, k, settings, title, key="dl_present_worksheet")


@st.fragment
def playground() -> None:
    """The list(s), the numbers, the pitfalls and the curve: a button press redraws only this."""
    lists = chooser.lists_now(chosen)
    shown = [learn.ordered(rl, settings) for rl in lists]
    if ll.apply_pending(target, shown, scale):  # a press in the list: apply it, then draw
        if state.pop(keys.LEARN_FULL_RERUN, False):
            st.rerun(scope="app")  # the list became a hand-built list: the menus above change
        lists = chooser.lists_now(chosen)
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
        views.one_list(
            shown[0], k, settings, scale, measures=measures, confidences=chosen.confidences
        )
        if source == "preset" and shown[0].name in learn.MRR_LISTS:
            text, _ = learn.mrr_example(chosen.teaching, settings)
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
    chooser.guide()
