"""Compare page: is a candidate better than the baseline, by how much, how sure, on which queries."""

import html

import streamlit as st

from metrics.review.compare import biggest_movers, headline
from metrics.review.drilldown import side_by_side
from ui import compute, frame
from ui.i18n import sentence_templates, t
from ui.per_query_panel import require_columns, require_lists
from ui.review import compute as review_compute
from ui.review.controls import require_review_choice
from ui.review.figures import (
    delta_curve_figure,
    model_colours,
    query_scatter_figure,
    win_tie_loss_figure,
)
from ui.review.tables import delta_display, style_delta_table, style_ranked_list
from ui.tables import csv_bytes

ctx = frame.page("compare")
st.title(t("compare.title"))
dataset = ctx.require_dataset()
view, settings = ctx.view, ctx.settings
models = dataset.models
choice = require_review_choice(models, view.k_range)
options, k = choice.options, choice.k
measures = tuple(view.measures)
require_columns(dataset, measures, k)
table = review_compute.comparison(
    dataset, settings, measures, k, choice.baseline, choice.candidates, options
)
st.caption(
    t(
        "compare.caption",
        baseline=f"**{frame.escape(choice.baseline)}**",
        k=k,
        confidence=f"{options.confidence:.0%}",
        correction=options.correction,
        n=len(table),
        alpha=f"{options.alpha:g}",
    )
)

st.subheader(t("compare.headline"))
for sentence in headline(table, options.confidence, sentence_templates()):
    st.markdown(f"- {frame.escape(sentence)}")

st.subheader(t("compare.deltas"))
display = delta_display(table)
st.dataframe(style_delta_table(display), hide_index=True, width="stretch", key="cmp_table")
st.caption(t("compare.colour_caption"))
st.download_button(
    t("review.download_csv"), csv_bytes(table), "comparison.csv", "text/csv", key="dl_cmp_csv"
)

colours = model_colours(models)
left, right = st.columns([3, 2])
with left:
    curve_measure = st.selectbox(
        t("compare.curve_measure"), list(measures), key="w_cmp_curve_measure"
    )
    k_from, k_to = view.k_range
    curves = {
        c: review_compute.delta_curve(
            dataset, settings, curve_measure, k_from, k_to, choice.baseline, c, options
        )
        for c in choice.candidates
    }
    st.plotly_chart(
        delta_curve_figure(
            curves, curve_measure, choice.baseline, confidence=options.confidence, colours=colours
        ),
        width="stretch",
        key="cmp_delta_curves",
    )
with right:
    st.plotly_chart(win_tie_loss_figure(table), width="stretch", key="cmp_wtl")

st.subheader(t("compare.per_query"))
c1, c2 = st.columns(2)
candidate = c1.selectbox(t("compare.candidate"), list(choice.candidates), key="w_cmp_candidate")
query_measure = c2.selectbox(
    t("compare.measure"),
    list(measures),
    key="w_cmp_query_measure",
    format_func=lambda m: f"{m}@{k}",
)
deltas = review_compute.per_query_deltas(
    dataset, settings, query_measure, k, choice.baseline, candidate, options.policy
)
queries = deltas["query"].tolist()
if not queries:
    st.info(t("compare.no_shared"))
    st.stop()

if st.session_state.get("w_cmp_query") not in queries:
    st.session_state["w_cmp_query"] = queries[0]
# The chart's spec depends on the chosen query (a ring marks it): choose it before drawing, so
# that a click's selection belongs to the chart drawn on the next run too.
event = st.plotly_chart(
    query_scatter_figure(
        deltas, choice.baseline, candidate, f"{query_measure}@{k}", st.session_state["w_cmp_query"]
    ),
    width="stretch",
    key="cmp_scatter",
    on_select="rerun",
    selection_mode="points",
)
points = event.get("selection", {}).get("points", []) if event else []
escaped = {html.escape(q): q for q in queries}
picked = [escaped.get(str(p.get("customdata"))) for p in points]
picked = [q for q in picked if q is not None]
if picked and picked[0] != st.session_state.get("cmp_last_pick"):
    st.session_state["cmp_last_pick"] = picked[0]
    if picked[0] != st.session_state["w_cmp_query"]:
        st.session_state["w_cmp_query"] = picked[0]
        st.rerun()

gained, lost = biggest_movers(deltas, 10)
g, l = st.columns(2)
g.markdown(t("compare.gained", n=int((deltas["delta"] > 0).sum())))
g.dataframe(gained, hide_index=True, width="stretch", key="cmp_gained")
l.markdown(t("compare.lost", n=int((deltas["delta"] < 0).sum())))
l.dataframe(lost, hide_index=True, width="stretch", key="cmp_lost")

st.subheader(t("compare.drill_title"))
query = st.selectbox(t("compare.query"), queries, key="w_cmp_query", help=t("compare.query_help"))
row = deltas[deltas["query"] == query].iloc[0]
st.markdown(
    t(
        "compare.query_line",
        measure=f"{query_measure}@{k}",
        a=f"{row['baseline']:.3f}",
        b=f"{row['candidate']:.3f}",
        delta=f"{row['delta']:+.3f}",
    )
)
require_lists(dataset, "perquery.drill_unavailable")
lists = compute.ranked_lists(dataset, settings)
top_a, top_b = side_by_side(lists[choice.baseline], lists[candidate], dataset.run, query, k)
a, b = st.columns(2)
a.markdown(t("compare.list_baseline", model=f"**{frame.escape(choice.baseline)}**", k=k))
a.dataframe(style_ranked_list(top_a), hide_index=True, width="stretch", key="cmp_list_a")
b.markdown(t("compare.list_candidate", model=f"**{frame.escape(candidate)}**", k=k))
b.dataframe(style_ranked_list(top_b), hide_index=True, width="stretch", key="cmp_list_b")
st.caption(t("compare.labels_caption"))
