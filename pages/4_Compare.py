"""Compare page: is a candidate better than the baseline, by how much, how sure, on which
queries.

The verdict is above the tabs; only the open tab is computed and drawn
(:func:`ui.review.sections.sections`).
"""

from typing import NamedTuple

import pandas as pd
import streamlit as st

from metrics.review.compare import biggest_movers, segment_of_query
from metrics.review.drilldown import side_by_side
from metrics.review.overlap import DEFAULT_PERSISTENCE
from metrics.review.verdict import letter_groups, overall_rows, pairwise_rows, segment_rows
from metrics.review.wording import interval_text
from ui.history.share import share_review
from ui.review import compute as review_compute
from ui.review.controls import (
    DrillChoice,
    decision_of,
    drill_choice,
    guard_options,
    require_review_choice,
    segment_choice,
    segment_cross,
    verdict_box,
    verdict_templates,
    warn_unknown_data,
)
from ui.review.figures import (
    clicked_queries,
    delta_curve_figure,
    disagreement_figure,
    model_colours,
    opposite_queries,
    pairwise_matrix_figure,
    query_scatter_figure,
    ranking_change_figure,
    win_tie_loss_figure,
)
from ui.review.sections import open_next, sections
from ui.review.tables import (
    CSV_DIGITS,
    change_display,
    drill_display,
    export_csv,
    export_json,
    groups_display,
    phone_display,
    phone_label,
    power_display,
    review_display,
    segment_text,
    style_drill_list,
    style_review_table,
)
from ui.shell import compute, frame, keys
from ui.shell.frame import PHONE_HIDDEN, PHONE_ONLY
from ui.shell.i18n import t
from ui.shell.per_query_data import is_per_query
from ui.shell.per_query_panel import measures_at, require_lists
from ui.tools.code_panel import CodeBlock, code_panel, dataset_files
from ui.tools.compute import compare_code, compare_command

ctx = frame.page("compare")
st.title(t("compare.title"))
dataset = ctx.require_dataset()
warn_unknown_data(ctx.view.data)
view, settings = ctx.view, ctx.settings
models = dataset.models
by = segment_choice(dataset.segment_columns)
choice = require_review_choice(
    models, view.k_range, tuple(view.measures), guard_options(dataset.segments, by)
)
options, k = choice.options, choice.k
measures = measures_at(dataset, tuple(view.measures), k)
review = review_compute.choice_review(dataset, settings, measures, choice, by, segment_cross())
words = verdict_templates()
overall = overall_rows(review)

verdict_box(review, words)
share_review(ctx, choice, measures, by, review)  # a read-only link to this review


# --------------------------------------------------------------------------- the open tab only


def summary_section() -> None:
    """The comparison table, its downloads and code, and whether there were enough queries."""
    st.subheader(t("compare.deltas"))
    if settings.averaging != "macro":
        st.caption(review_compute.macro_note(settings))
    st.caption(
        t(
            "compare.table_caption",
            baseline=f"**{frame.escape(choice.baseline)}**",
            k=k,
            interval=frame.escape(interval_text(overall, words)),
            family=frame.escape(review_compute.family_words(overall, words)),
            alpha=f"{options.alpha:g}",
        )
    )
    codes = list(overall["verdict"])
    shown = review_display(overall, t, words)
    # wide screens: the table as it reads left to right
    with st.container(key=f"{PHONE_HIDDEN}_cmp"):
        st.dataframe(
            style_review_table(shown, codes, t), hide_index=True, width="stretch", key="cmp_table"
        )
    with st.container(key=f"{PHONE_ONLY}_cmp"):  # a phone: the row, then Δ, p and the verdict
        st.dataframe(
            style_review_table(phone_display(shown, t), codes, t),
            hide_index=True,
            width="stretch",
            key="cmp_table_phone",
            column_config={phone_label(t): st.column_config.Column(pinned=True)},
        )
    with st.expander(t("compare.all_columns"), icon=":material/table_view:"):
        st.dataframe(
            style_review_table(review_display(overall, t, words, full=True), codes, t),
            hide_index=True,
            width="stretch",
            key="cmp_table_full",
        )
    st.caption(t("compare.verdict_colours"))
    d1, d2 = st.columns(2)
    d1.download_button(
        t("review.download_csv"),
        export_csv(review, decision_of(review, words)),
        "comparison.csv",
        "text/csv",
        key="dl_cmp_csv",
        on_click="ignore",
    )
    d2.download_button(
        t("review.download_json"),
        export_json(review, decision_of(review, words)),
        "comparison.json",
        "application/json",
        key="dl_cmp_json",
        on_click="ignore",
    )
    st.caption(t("review.export_caption", digits=CSV_DIGITS))
    if not is_per_query(dataset):  # the code recomputes from lists; a per-query table has none
        code_measures = tuple(compute.cutoff_name(m, k) for m in measures)
        code_panel(
            "cmp_code",
            t("compare.code_caption"),
            dataset_files(dataset, queries=bool(by)),
            [
                CodeBlock(compare_command(settings, code_measures, choice, options, by), "bash"),
                CodeBlock(compare_code(settings, code_measures, choice, options, by)),
            ],
        )

    st.subheader(t("compare.power_title"))
    st.caption(t("compare.power_caption", power=f"{choice.power:.0%}", alpha=f"{options.alpha:g}"))
    st.dataframe(
        style_review_table(power_display(overall, t), ["unclear"] * len(overall), t),
        hide_index=True,
        width="stretch",
        key="cmp_power",
    )
    segment_power = segment_rows(review)
    if len(segment_power):
        with st.expander(t("compare.power_segments"), icon=":material/table_view:"):
            st.dataframe(
                style_review_table(
                    power_display(segment_power, t, segment=True),
                    ["unclear"] * len(segment_power),
                    t,
                ),
                hide_index=True,
                width="stretch",
                key="cmp_power_segments",
            )


def candidates_section() -> None:
    """Several candidates: each pair, and the groups no test separates."""
    st.subheader(t("compare.matrix_title"))
    matrix_names = [compute.cutoff_name(m, k) for m in measures]
    if st.session_state.get(keys.W_CMP_MATRIX_MEASURE) not in matrix_names:
        st.session_state[keys.W_CMP_MATRIX_MEASURE] = matrix_names[0]
    matrix_measure = st.selectbox(t("compare.measure"), matrix_names, key=keys.W_CMP_MATRIX_MEASURE)
    st.plotly_chart(
        pairwise_matrix_figure(review, matrix_measure, t, words),
        width="stretch",
        key="cmp_matrix",
    )
    st.markdown(t("compare.groups_title", measure=matrix_measure))
    st.dataframe(
        groups_display(letter_groups(review, matrix_measure), t),
        hide_index=True,
        key="cmp_groups",
        column_config={t("review.col.mean"): st.column_config.NumberColumn(format="%.4f")},
    )
    st.caption(t("compare.groups_caption"))
    with st.expander(t("compare.matrix_table"), icon=":material/table_view:"):
        pairs = pairwise_rows(review)
        st.dataframe(
            style_review_table(review_display(pairs, t, words, full=True), pairs["verdict"], t),
            hide_index=True,
            width="stretch",
            key="cmp_pairs_table",
        )


def across_k_section() -> None:
    """The deltas at every K, and how many queries won, tied and lost."""
    left, right = st.columns([3, 2])
    with left:
        if st.session_state.get(keys.W_CMP_CURVE_MEASURE) not in measures:
            st.session_state[keys.W_CMP_CURVE_MEASURE] = measures[0]
        curve_measure = st.selectbox(
            t("compare.curve_measure"), list(measures), key=keys.W_CMP_CURVE_MEASURE
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
                curves,
                curve_measure,
                choice.baseline,
                confidence=options.confidence,
                colours=colours,
                tr=t,
            ),
            width="stretch",
            key="cmp_delta_curves",
        )
    with right:
        st.plotly_chart(win_tie_loss_figure(overall, t), width="stretch", key="cmp_wtl")


def change_section() -> None:
    """How much each candidate's rankings moved from the baseline's."""
    changes = review_compute.ranking_changes(
        dataset, settings, k, choice.baseline, choice.candidates, DEFAULT_PERSISTENCE
    )
    st.subheader(t("compare.change_title"))
    st.caption(t("compare.change_caption", k=k, p=f"{DEFAULT_PERSISTENCE:g}"))
    st.dataframe(  # full width: seven columns do not fit beside the chart
        change_display(changes, t),
        hide_index=True,
        width="stretch",
        key="cmp_change",
    )
    st.plotly_chart(
        ranking_change_figure(changes, k, DEFAULT_PERSISTENCE, choice.baseline, colours, t),
        width="stretch",
        key="cmp_change_figure",
    )


class DrillData(NamedTuple):
    """The drill-down's choices and the per-query deltas they select (segment applied)."""

    drill: DrillChoice
    candidate: str
    query_measure: str
    deltas: pd.DataFrame
    queries: list[str]


def drill_data() -> DrillData:
    """The drill-down's choices and their per-query deltas; stops the page when the models
    share no query."""
    drill = drill_choice(list(choice.candidates), list(measures), dataset)
    candidate, query_measure = drill.candidate, drill.measure
    deltas = review_compute.per_query_deltas(
        dataset, settings, query_measure, k, choice.baseline, candidate, options.policy
    )
    if len(drill.segments):
        # one rule for a missing segment value: absent from the query table or empty
        named = [c for c in drill.segments.columns if c != "query"]
        deltas = deltas.merge(
            segment_of_query(drill.segments, named, deltas["query"]), on="query", how="left"
        )
    if drill.segment:
        column, value = drill.segment
        deltas = deltas[deltas[column] == value].reset_index(drop=True)
    queries = deltas["query"].tolist()
    if not queries:
        st.info(t("compare.no_shared"))
        st.stop()
    if st.session_state.get(keys.W_CMP_QUERY) not in queries:
        st.session_state[keys.W_CMP_QUERY] = queries[0]

    return DrillData(drill, candidate, query_measure, deltas, queries)


def pick(event, key: str, queries: list[str], then: str | None = None) -> None:
    """A clicked point (its query id is first in the point's customdata) becomes the chosen query
    (and the tab ``then`` opens)."""
    picked = clicked_queries(event, queries)
    if picked and picked[0] != st.session_state.get(key):
        st.session_state[key] = picked[0]
        if picked[0] != st.session_state[keys.W_CMP_QUERY]:
            st.session_state[keys.W_CMP_QUERY] = picked[0]
            if then is not None:
                open_next("compare", then)
            st.rerun()


def queries_section() -> None:
    """Each query's delta, the biggest movers, and one query's two lists."""
    st.subheader(t("compare.per_query"))
    drill, candidate, query_measure, deltas, queries = drill_data()
    measure_name = compute.cutoff_name(query_measure, k)
    # The chart's spec depends on the chosen query (a ring marks it): choose it before drawing, so
    # that a click's selection belongs to the chart drawn on the next run too.
    event = st.plotly_chart(
        query_scatter_figure(
            deltas, choice.baseline, candidate, measure_name, st.session_state[keys.W_CMP_QUERY], t
        ),
        width="stretch",
        key="cmp_scatter",
        on_select="rerun",
        selection_mode="points",
    )
    pick(event, "cmp_last_pick", queries)

    seg_columns = [c for c in dataset.segment_columns if c in deltas.columns]

    def movers_display(table):
        out = table.rename(
            columns={
                "query": t("review.col.query"),
                "baseline": choice.baseline,
                "candidate": candidate,
                "delta": t("review.col.delta"),
            }
        )
        for c in seg_columns:
            out[c] = [segment_text(v, t) for v in out[c]]
        return out

    gained, lost = biggest_movers(deltas, 10)
    g, lo = st.columns(2)
    g.markdown(t("compare.gained", n=int((deltas["delta"] > 0).sum())))
    g.dataframe(movers_display(gained), hide_index=True, width="stretch", key="cmp_gained")
    lo.markdown(t("compare.lost", n=int((deltas["delta"] < 0).sum())))
    lo.dataframe(movers_display(lost), hide_index=True, width="stretch", key="cmp_lost")

    st.subheader(t("compare.drill_title"))
    query = st.selectbox(
        t("compare.query"), queries, key=keys.W_CMP_QUERY, help=t("compare.query_help")
    )
    drill.write_url(query)
    row = deltas[deltas["query"] == query].iloc[0]
    st.markdown(
        t(
            "compare.query_line",
            measure=measure_name,
            a=f"{row['baseline']:.3f}",
            b=f"{row['candidate']:.3f}",
            delta=f"{row['delta']:+.3f}",
        )
    )
    if seg_columns:
        st.caption(
            t(
                "compare.query_segments",
                values=frame.escape(
                    ", ".join(f"{c} = {segment_text(row[c], t)}" for c in seg_columns)
                ),
            )
        )
    changes = review_compute.ranking_changes(
        dataset, settings, k, choice.baseline, choice.candidates, DEFAULT_PERSISTENCE
    )
    if candidate in changes:
        moved = changes[candidate].set_index("query")
        if query in moved.index:
            row_change = moved.loc[query]
            st.caption(
                t(
                    "compare.query_change",
                    k=k,
                    overlap=f"{row_change['overlap']:.2f}",
                    rbo=f"{row_change['rbo']:.2f}",
                    entered=int(row_change["entered"]),
                    left=int(row_change["left"]),
                )
            )
    require_lists(dataset, "perquery.drill_unavailable")
    lists = compute.ranked_lists(dataset, settings)
    top_a, top_b = side_by_side(lists[choice.baseline], lists[candidate], dataset.run, query, k)
    a, b = st.columns(2)
    a.markdown(t("compare.list_baseline", model=f"**{frame.escape(choice.baseline)}**", k=k))
    a.dataframe(
        style_drill_list(drill_display(top_a, t), top_a["change"], t),
        hide_index=True,
        width="stretch",
        key="cmp_list_a",
    )
    b.markdown(t("compare.list_candidate", model=f"**{frame.escape(candidate)}**", k=k))
    b.dataframe(
        style_drill_list(drill_display(top_b, t), top_b["change"], t),
        hide_index=True,
        width="stretch",
        key="cmp_list_b",
    )
    st.caption(t("compare.labels_caption"))


def disagree_section() -> None:
    """Queries on which two measures point in opposite directions."""
    _, candidate, _, _, queries = drill_data()
    st.subheader(t("compare.disagree_title"))
    st.caption(t("compare.disagree_caption"))
    c1, c2 = st.columns(2)
    names = list(measures)
    # nDCG against P by default (they disagree where graded order and the count of relevant
    # items move apart; P and R at the same K never point in opposite directions).
    first, second = ("nDCG", "P") if {"nDCG", "P"} <= set(names) else (names[0], names[1])
    if st.session_state.get(keys.W_CMP_DIS_X) not in names:
        st.session_state[keys.W_CMP_DIS_X] = first
    if st.session_state.get(keys.W_CMP_DIS_Y) not in names:
        st.session_state[keys.W_CMP_DIS_Y] = second
    measure_x = c1.selectbox(
        t("compare.disagree_x"),
        names,
        key=keys.W_CMP_DIS_X,
        format_func=lambda m: compute.cutoff_name(m, k),
    )
    measure_y = c2.selectbox(
        t("compare.disagree_y"),
        names,
        key=keys.W_CMP_DIS_Y,
        format_func=lambda m: compute.cutoff_name(m, k),
    )
    pair = review_compute.measure_pair_deltas(
        dataset, settings, (measure_x, measure_y), k, choice.baseline, candidate, options.policy
    )
    pair = pair[pair["query"].isin(queries)].reset_index(drop=True)
    name_x, name_y = compute.cutoff_name(measure_x, k), compute.cutoff_name(measure_y, k)
    event = st.plotly_chart(
        disagreement_figure(pair, name_x, name_y, st.session_state[keys.W_CMP_QUERY], t),
        width="stretch",
        key="cmp_disagree",
        on_select="rerun",
        selection_mode="points",
    )
    pick(event, "cmp_last_disagree_pick", queries, then="queries")
    opposite = opposite_queries(pair)
    st.markdown(t("compare.disagree_list", n=len(opposite), x=name_x, y=name_y))
    st.dataframe(
        opposite.rename(
            columns={
                "query": t("review.col.query"),
                "delta_x": f"Δ {name_x}",
                "delta_y": f"Δ {name_y}",
            }
        ),
        hide_index=True,
        width="stretch",
        key="cmp_opposite",
    )


SECTIONS = {
    "summary": summary_section,
    "candidates": candidates_section,
    "across_k": across_k_section,
    "change": change_section,
    "queries": queries_section,
    "disagree": disagree_section,
}
shown = [
    s
    for s in SECTIONS
    if (s != "candidates" or len(choice.candidates) > 1)
    and (s != "change" or not is_per_query(dataset))
    and (s != "disagree" or len(measures) > 1)
]
colours = model_colours(models)
section = sections("compare", shown)
with section.body:
    SECTIONS[section.id]()
