"""Compare's tabs (:func:`ui.review.sections.sections` opens one): the table of differences and
whether there were enough queries, the candidates against each other, the differences across K,
how the rankings changed, one query's two lists, and the queries where two measures disagree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from metrics.review.compare import biggest_movers
from metrics.review.drilldown import side_by_side
from metrics.review.overlap import DEFAULT_PERSISTENCE
from metrics.review.verdict import letter_groups, overall_rows, pairwise_rows, segment_rows
from metrics.review.wording import interval_text
from ui.review import compute as review_compute
from ui.review.context import ReviewContext
from ui.review.controls import keep_choice, table_downloads, verdict_box
from ui.review.drill import drill_data, pick
from ui.review.figures import (
    disagreement_figure,
    model_colours,
    opposite_queries,
    pairwise_matrix_figure,
    query_scatter_figure,
    ranking_change_figure,
    win_tie_loss_figure,
)
from ui.review.share import share_review
from ui.review.tables import (
    CSV_DIGITS,
    change_display,
    drill_display,
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
from ui.shell.code_panel import CodeBlock, code_panel, dataset_files
from ui.shell.commands import compare_code, compare_command
from ui.shell.frame import PHONE_HIDDEN, PHONE_ONLY
from ui.shell.i18n import t
from ui.shell.per_query_data import is_per_query
from ui.shell.per_query_panel import require_lists


@dataclass(frozen=True)
class CompareView:
    """What Compare's tabs show: the review's choices, its measures and its one table."""

    rc: ReviewContext
    measures: tuple[str, ...]
    review: pd.DataFrame
    overall: pd.DataFrame = field(init=False)
    colours: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "overall", overall_rows(self.review))
        object.__setattr__(self, "colours", model_colours(self.rc.models))


def verdict(cv: CompareView) -> None:
    """Above the tabs: the decision, and the "Share this review" button (a read-only link to
    this review)."""
    verdict_box(cv.review, cv.rc.words)
    share_review(cv.rc.page, cv.rc.choice, cv.measures, cv.rc.by, cv.review)


def summary_tab(cv: CompareView) -> None:
    """The comparison table, its downloads and code, and whether there were enough queries."""
    rc, choice, options, k, words = cv.rc, cv.rc.choice, cv.rc.options, cv.rc.k, cv.rc.words
    settings, dataset, review, overall = rc.settings, rc.dataset, cv.review, cv.overall
    measures, by = cv.measures, rc.by
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
    table_downloads(review, review, "comparison", "cmp", words)
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


def candidates_tab(cv: CompareView) -> None:
    """Several candidates: each pair, and the groups no test separates."""
    k, words, review, measures = cv.rc.k, cv.rc.words, cv.review, cv.measures
    st.subheader(t("compare.matrix_title"))
    matrix_names = [compute.cutoff_name(m, k) for m in measures]
    keep_choice(keys.W_CMP_MATRIX_MEASURE, matrix_names, matrix_names[0])
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


def across_k_tab(cv: CompareView) -> None:
    """The deltas at every K, and how many queries won, tied and lost."""
    rc, measures = cv.rc, cv.measures
    left, right = st.columns([3, 2])
    with left:
        keep_choice(keys.W_CMP_CURVE_MEASURE, list(measures), measures[0])
        curve_measure = st.selectbox(
            t("compare.curve_measure"), list(measures), key=keys.W_CMP_CURVE_MEASURE
        )
        st.plotly_chart(
            rc.delta_figure(curve_measure, cv.colours, t),
            width="stretch",
            key="cmp_delta_curves",
        )
    with right:
        st.plotly_chart(win_tie_loss_figure(cv.overall, t), width="stretch", key="cmp_wtl")


def change_tab(cv: CompareView) -> None:
    """How much each candidate's rankings moved from the baseline's."""
    rc, choice, k = cv.rc, cv.rc.choice, cv.rc.k
    changes = review_compute.ranking_changes(
        rc.dataset, rc.settings, k, choice.baseline, choice.candidates, DEFAULT_PERSISTENCE
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
        ranking_change_figure(changes, k, DEFAULT_PERSISTENCE, choice.baseline, cv.colours, t),
        width="stretch",
        key="cmp_change_figure",
    )


def queries_tab(cv: CompareView) -> None:
    """Each query's delta, the biggest movers, and one query's two lists."""
    rc, choice, k, dataset, settings = cv.rc, cv.rc.choice, cv.rc.k, cv.rc.dataset, cv.rc.settings
    st.subheader(t("compare.per_query"))
    drill, candidate, query_measure, deltas, queries = drill_data(rc, cv.measures)
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


def disagree_tab(cv: CompareView) -> None:
    """Queries on which two measures point in opposite directions."""
    rc, choice, options, k, measures = cv.rc, cv.rc.choice, cv.rc.options, cv.rc.k, cv.measures
    _, candidate, _, _, queries = drill_data(rc, measures)
    st.subheader(t("compare.disagree_title"))
    st.caption(t("compare.disagree_caption"))
    c1, c2 = st.columns(2)
    names = list(measures)
    # nDCG against P by default (they disagree where graded order and the count of relevant
    # items move apart; P and R at the same K never point in opposite directions).
    first, second = ("nDCG", "P") if {"nDCG", "P"} <= set(names) else (names[0], names[1])
    keep_choice(keys.W_CMP_DIS_X, names, first)
    keep_choice(keys.W_CMP_DIS_Y, names, second)
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
        rc.dataset,
        rc.settings,
        (measure_x, measure_y),
        k,
        choice.baseline,
        candidate,
        options.policy,
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


#: Tab id -> the function that lays it out.
TABS: dict[str, Callable[[CompareView], None]] = {
    "summary": summary_tab,
    "candidates": candidates_tab,
    "across_k": across_k_tab,
    "change": change_tab,
    "queries": queries_tab,
    "disagree": disagree_tab,
}


def shown_tabs(cv: CompareView) -> list[str]:
    """The tabs this comparison has: the candidates' only with several, the rankings' change
    only with ranked lists, the disagreement only with two measures or more."""
    return [
        s
        for s in TABS
        if (s != "candidates" or len(cv.rc.choice.candidates) > 1)
        and (s != "change" or not is_per_query(cv.rc.dataset))
        and (s != "disagree" or len(cv.measures) > 1)
    ]
