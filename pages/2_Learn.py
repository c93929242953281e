"""Learn page: one ranked list, every measure with its numbers, the curve over K, and an
editable second ordering compared with it."""

import pandas as pd
import streamlit as st

from metrics.engine.explain import EXPLAINED
from metrics.engine.registry import MEASURES
from ui import compute, frame, learn
from ui import handbuilt as hb
from ui.figures import list_curve_figure
from ui.i18n import t
from ui.learn_copy_panel import copy_panel
from ui.per_query_panel import require_lists

ctx = frame.page("learn")
settings = ctx.settings
st.title(t("learn.title"))
st.caption(t("learn.intro"))

teaching = learn.teaching_lists(compute.sample_dataset("teaching"))
PRESETS = ["precision_recall", *learn.MRR_LISTS, "ndcg_graded"]

c1, c2 = st.columns([1, 2])
source = c1.radio(
    t("learn.source"),
    ["preset", "handbuilt", "query"],
    key="w_learn_source",
    format_func=lambda v: t(f"learn.source.{v}"),
)
with c2:
    if source == "preset":
        name = st.selectbox(
            t("learn.preset"),
            PRESETS,
            key="w_learn_preset",
            format_func=lambda v: t(f"learn.preset.{v}"),
        )
        chosen = teaching[name]
    elif source == "handbuilt":
        table = hb.normalize(hb.session_table())
        names = list(pd.unique(table["list"]))
        if not names:
            st.info(t("learn.no_handbuilt"))
            st.stop()
        name = st.selectbox(t("learn.handbuilt_list"), names, key="w_learn_hand_list")
        chosen = learn.list_from_table(table, name)
        st.caption(t("learn.handbuilt_hint"))
    else:
        dataset = ctx.require_dataset()
        require_lists(dataset, "perquery.learn_unavailable")
        lists = compute.ranked_lists(dataset, settings)
        model = st.selectbox(t("learn.model"), list(lists), key="w_learn_model")
        query = st.selectbox(
            t("learn.query"), learn.lists_of(dataset, lists, model), key="w_learn_query"
        )
        chosen = learn.list_from_ranked(dataset, lists, model, query)

shown_name = t(f"learn.preset.{name}") if source == "preset" else chosen.name
n = len(chosen.items)
if n == 0:
    st.info(t("learn.empty_list"))
    st.stop()
k_key = f"w_learn_k::{source}::{chosen.name}"
if k_key not in st.session_state:
    st.session_state[k_key] = min(chosen.default_k, n)
k = int(st.slider("K", 1, max(n, 2), key=k_key, help=t("learn.k_help")))

st.subheader(t("learn.formulas"))
formulas = learn.formulas(chosen, k, settings)
cols = st.columns(4)
for i, row in formulas.iterrows():
    with cols[i % 4].container(border=True):
        st.markdown(f"**{frame.measure_pretty(row['measure'])}**")
        st.code(row["formula"], language=None, wrap_lines=True)
        st.caption(frame.measure_text(row["measure"], "description"))
if source == "preset" and chosen.name in learn.MRR_LISTS:
    text, _ = learn.mrr_example(teaching, settings)
    st.info(t("learn.mrr_over_three") + "\n\n`" + text + "`")

ex = learn.explain(chosen, k, settings)
st.subheader(t("learn.positions"))
left, right = st.container(), st.container()
positions = ex.positions.rename(columns={c: t(f"learn.col.{c}") for c in ex.positions.columns})
left.caption(t("learn.positions_caption", k=k))
left.dataframe(
    positions,
    hide_index=True,
    width="stretch",
    column_config={
        t(f"learn.col.{c}"): st.column_config.NumberColumn(format="%.3f")
        for c in ("gain", "discount", "contribution", "running_dcg")
    },
)
right.caption(
    t("learn.ideal_caption", idcg=f"{ex.idcg:.3f}", dcg=f"{ex.dcg:.3f}", n_rel=ex.n_relevant)
)
right.dataframe(
    ex.ideal.rename(columns={c: t(f"learn.col.{c}") for c in ex.ideal.columns}),
    hide_index=True,
    width="stretch",
    column_config={
        t(f"learn.col.{c}"): st.column_config.NumberColumn(format="%.3f")
        for c in ("gain", "discount", "contribution", "running_idcg")
    },
)

st.subheader(t("learn.curve"))
curve = learn.list_curve(chosen, settings, n)
st.plotly_chart(
    list_curve_figure(
        curve, title=t("learn.curve_title", name=shown_name), x_label="K", y_label=t("learn.value")
    ),
    width="stretch",
    key="learn_curve",
)

st.subheader(t("learn.two_orderings"))
st.caption(t("learn.two_orderings_help"))
a_col, b_col = st.columns([1, 2])
a_col.caption(t("learn.ordering_a"))
a_col.dataframe(chosen.table(), hide_index=True, width="stretch")
with b_col:
    st.caption(t("learn.ordering_b"))
    other = copy_panel(chosen, source)
cmp_col = st.container()
comparison = learn.compare_orderings(chosen, other, k, settings)
comparison["changed"] = comparison["changed"].map(
    {True: t("learn.changed"), False: t("learn.unchanged")}
)
cmp_col.caption(t("learn.comparison_caption"))
cmp_col.dataframe(
    comparison.rename(
        columns={"measure": t("learn.col.measure"), "changed": t("learn.col.changed")}
    ),
    hide_index=True,
    width="stretch",
    column_config={
        "A": st.column_config.NumberColumn(format="%.3f"),
        "B": st.column_config.NumberColumn(format="%.3f"),
    },
)

st.subheader(t("learn.guide"))
for m in EXPLAINED:
    with st.expander(f"{m} · {frame.measure_pretty(m)} — {t(f'learn.question.{m}')}"):
        st.markdown(f"**{t('learn.answers')}** {frame.measure_text(m, 'description')}")
        st.markdown(f"**{t('learn.pitfall')}** {frame.measure_text(m, 'pitfall')}")
        st.latex(MEASURES[m].latex)
