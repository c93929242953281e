"""Learn page: one ranked list you can touch (labels, order, the cut at K, items not
retrieved), every measure with its numbers, the pitfalls that apply, the curve over K, and
guided lessons with checked challenges."""

import streamlit as st

from metrics.engine.explain import EXPLAINED
from metrics.engine.registry import MEASURES
from ui import compute, frame, learn
from ui import handbuilt as hb
from ui import learn_panel as lp
from ui.i18n import t
from ui.learn_figures import learn_curve_figure
from ui.learn_lessons import check, model_means, value
from ui.safe import md_escape

ctx = frame.page("learn")
settings = ctx.settings
st.title(t("learn.title"))
st.caption(t("learn.intro"))
lp.seed_from_link()
lp.switch_after_import()
if lp.link_problem():
    st.error(t(f"hand.link.bad.{lp.link_problem()}"))

teaching = learn.teaching_lists(compute.sample_dataset("teaching"))
PRESETS = ["precision_recall", *learn.MRR_LISTS, "ndcg_graded"]

source = st.radio(
    t("learn.source"),
    ["preset", "handbuilt", "query", "lesson"],
    key=lp.SOURCE_KEY,
    format_func=lambda v: t(f"learn.source.{v}"),
    horizontal=True,
)
lesson = None
scale = "graded"
if source == "preset":
    name = st.selectbox(
        t("learn.preset"),
        PRESETS,
        key="w_learn_preset",
        format_func=lambda v: t(f"learn.preset.{v}"),
    )
    lists = [teaching[name]]
    st.caption(t("learn.preset_hint"))
elif source == "handbuilt":
    table = hb.session_table()
    hand = hb.lists_of(table)
    names = [rl.name for rl in hand]
    if not names:
        st.info(t("learn.no_handbuilt"))
        st.stop()
    if st.session_state.get(lp.HAND_KEY) not in names:
        st.session_state[lp.HAND_KEY] = names[0]
    name = st.selectbox(t("learn.handbuilt_list"), names, key=lp.HAND_KEY)
    lists = [next(rl for rl in hand if rl.name == name)]
    st.caption(t("learn.hand_hint"))
elif source == "query":
    dataset = ctx.require_dataset()
    ranked = compute.ranked_lists(dataset, settings)
    model = st.selectbox(t("learn.model"), list(ranked), key="w_learn_model")
    query = st.selectbox(
        t("learn.query"), learn.lists_of(dataset, ranked, model), key="w_learn_query"
    )
    lists = [learn.list_from_ranked(dataset, ranked, model, query)]
    st.caption(t("learn.preset_hint"))
else:
    lesson = lp.lesson_menu()
    lists = list(lp.lesson_state(lesson))
    scale = lesson.scale
    st.markdown(t(f"lesson.{lesson.id}.text"))
    challenge = f"**{t('learn.challenge')}** {t(f'lesson.{lesson.id}.challenge')}"
    st.info(challenge, icon=":material/flag:")

target = lp.Target(source, lesson.id if lesson else None)
shown = [learn.ordered(rl, settings) for rl in lists]
n_max = max((len(rl.items) for rl in shown), default=0)
if n_max == 0 and source != "lesson":
    st.info(t("learn.empty_list"))
k_top = max(10, n_max)
state = st.session_state
origin = f"lesson:{lesson.id}" if lesson else shown[0].name
if lp.K_KEY not in state or state.get("learn_k_origin", origin) != origin:
    state[lp.K_KEY] = lesson.k if lesson else min(shown[0].default_k, max(n_max, 1))
state["learn_k_origin"] = origin
state[lp.K_KEY] = min(max(int(state[lp.K_KEY]), 1), k_top)

controls = st.columns([2, 2, 3]) if lesson and lesson.policy else st.columns([2, 2])
with controls[0]:
    k = int(st.slider("K", 1, k_top, key=lp.K_KEY, help=t("learn.k_help")))
with controls[1]:
    level = lp.level_control()
if lesson and lesson.policy:
    with controls[2]:
        lp.policy_control(lesson.policy)

if lesson:
    met = check(lesson, lists, k, settings)
    lp.celebrate(lesson, met)
    c1, c2 = st.columns([1, 3])
    c1.button(t("learn.reset_lesson"), key="btn_lesson_reset", on_click=lp.reset_lesson)
    if c2.toggle(t("learn.teacher"), key="w_teacher"):
        lp.teacher_view(lesson)

# ------------------------------------------------------------------ the list(s) and numbers
if len(shown) == 1:
    rl = shown[0]
    n_rel = learn.relevant_count(rl, level)
    left, right = st.columns([11, 9], gap="medium")
    with left:
        st.subheader(t("learn.the_list"))
        st.markdown(
            f"**{t('learn.level_sentence', level=f'{level:g}', n_rel=n_rel, n=len(rl.items))}**"
        )
        lp.list_cards(rl, k, settings, target, scale, "learn")
    with right:
        st.subheader(t("learn.formulas"))
        for key, values in learn.pitfalls(rl, k, settings):
            if key == "short":
                values = {**values, "policy": frame.policy_text("short_lists", values["policy"])}
            st.warning(t(f"learn.pit.{key}", **values), icon=":material/warning:")
        if rl.items:
            formulas = learn.formulas(rl, k, settings)
            cols = st.columns(2)
            for i, row in formulas.iterrows():
                with cols[i % 2].container(border=True):
                    st.markdown(f"**{frame.measure_pretty(row['measure'])}**")
                    st.code(row["formula"], language=None, wrap_lines=True)
            judged = sum(1 for x in rl.labels[:k] if x == x)
            judged_value = value(rl, "Judged", k, settings)
            st.code(f"Judged@{k} = {judged}/{k} = {judged_value:.2f}", language=None)
    if source == "preset" and rl.name in learn.MRR_LISTS:
        text, _ = learn.mrr_example(teaching, settings)
        st.info(t("learn.mrr_over_three") + "\n\n`" + text + "`")
else:
    cols = st.columns(2, gap="large")
    for j, rl in enumerate(shown):
        with cols[j % 2]:
            st.subheader(md_escape(rl.name))
            n_rel = learn.relevant_count(rl, level)
            st.markdown(t("learn.level_sentence", level=f"{level:g}", n_rel=n_rel, n=len(rl.items)))
            lp.list_cards(rl, k, settings, target, scale, f"learn{j}")
    st.subheader(t("learn.formulas"))
    measures = lesson.measures if lesson else ("P", "nDCG")
    lines = []
    for m in measures:
        parts = [f"{rl.name}: {value(rl, m, k, settings):.3f}" for rl in shown]
        lines.append(f"{m}@{k} — " + ", ".join(parts))
    if lesson and lesson.id == "macro_micro":
        means = model_means(tuple(lists), "R", k, settings)
        avg = frame.policy_text("averaging", settings.averaging)
        lines.append(
            t(
                "learn.means",
                k=k,
                avg=avg,
                values=", ".join(f"{m} = {v:.3f}" for m, v in means.items()),
            )
        )
    for line in lines:
        st.code(line, language=None, wrap_lines=True)
    for rl in shown:
        for key, values in learn.pitfalls(rl, k, settings):
            if key in ("order", "graded"):
                continue
            if key == "short":
                values = {**values, "policy": frame.policy_text("short_lists", values["policy"])}
            text = f"{md_escape(rl.name)}: " + t(f"learn.pit.{key}", **values)
            st.warning(text, icon=":material/warning:")

# ------------------------------------------------------------------ curve and tables
rl = shown[0]
if rl.items:
    st.subheader(t("learn.curve"))
    top = max(len(rl.items), k)
    curve = learn.list_curve(rl, settings, top)[["k", "P", "R", "AP", "nDCG"]]
    ideal_list = learn.ideal_of(rl)
    ideal = (
        learn.list_curve(ideal_list, settings, top)[["k", "P", "R"]] if ideal_list.items else None
    )
    shown_name = t(f"learn.preset.{rl.name}") if source == "preset" else rl.name
    st.plotly_chart(
        learn_curve_figure(
            curve,
            ideal,
            k,
            title=t("learn.curve_title", name=shown_name),
            x_label="K",
            y_label=t("learn.value"),
            ideal_label=t("learn.ideal"),
            k_label=f"K = {k}",
            height=360,
        ),
        width="stretch",
        key="learn_curve",
    )
    with st.expander(t("learn.positions"), expanded=False):
        ex = learn.explain(rl, k, settings)
        positions = ex.positions.rename(
            columns={c: t(f"learn.col.{c}") for c in ex.positions.columns}
        )
        st.caption(t("learn.positions_caption", k=k))
        st.dataframe(
            positions,
            hide_index=True,
            width="stretch",
            column_config={
                t(f"learn.col.{c}"): st.column_config.NumberColumn(format="%.3f")
                for c in ("gain", "discount", "contribution", "running_dcg")
            },
        )
        st.caption(
            t(
                "learn.ideal_caption",
                idcg=f"{ex.idcg:.3f}",
                dcg=f"{ex.dcg:.3f}",
                n_rel=ex.n_relevant,
            )
        )
        st.dataframe(
            ex.ideal.rename(columns={c: t(f"learn.col.{c}") for c in ex.ideal.columns}),
            hide_index=True,
            width="stretch",
            column_config={
                t(f"learn.col.{c}"): st.column_config.NumberColumn(format="%.3f")
                for c in ("gain", "discount", "contribution", "running_idcg")
            },
        )

# ------------------------------------------------------------------ share
with st.expander(t("learn.share"), expanded=False):
    st.caption(t("learn.share_help"))
    export = hb.table_of(lists)
    st.download_button(
        t("hand.download"),
        hb.csv_of(export),
        "ranked_lists.csv",
        "text/csv",
        key="dl_learn_csv",
    )
    from ui.handbuilt_panel import csv_import

    csv_import("up_learn_csv", lp.after_import)

st.subheader(t("learn.guide"))
for m in EXPLAINED:
    with st.expander(f"{m} · {frame.measure_pretty(m)} — {t(f'learn.question.{m}')}"):
        st.markdown(f"**{t('learn.answers')}** {frame.measure_text(m, 'description')}")
        st.markdown(f"**{t('learn.pitfall')}** {frame.measure_text(m, 'pitfall')}")
        st.latex(MEASURES[m].latex)

lp.sync_link(source, k, lesson, lists)
