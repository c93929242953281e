"""Curves page: every selected measure across K, one line per model; table; distributions."""

import streamlit as st

from metrics.errors import MeasureError
from ui.curves.downloads import figure_downloads
from ui.curves.figures import BOX_STATS, curve_figure, distribution_figure, precision_recall_figure
from ui.curves.tables import (
    QUARTILE_COLUMNS,
    csv_bytes,
    quartile_table,
    translated,
    wide_cutoff_table,
)
from ui.shell import compute, frame, keys
from ui.shell.i18n import number, option_text, t
from ui.tools.code_panel import CodeBlock, code_panel, dataset_files
from ui.tools.compute import (
    evaluate_code,
    evaluate_command,
    matching_profiles,
    peer_code,
    settings_flags,
)

ctx = frame.page("curves")
st.title(t("curves.title"))
dataset = ctx.require_dataset()
view, settings = ctx.view, ctx.settings
k_from, k_to = view.k_range
n_queries = compute.query_count(dataset)
subtitle = t(
    "curves.subtitle",
    averaging=frame.policy_text("averaging", settings.averaging),
    short=frame.policy_text("short_lists", settings.short_lists),
    level=f"{settings.relevance_level:g}",
    n=n_queries,
    queries=number(n_queries),
)
st.caption(subtitle)
chart_subtitle = t(
    "curves.chart_subtitle",
    averaging=frame.policy_name("averaging", settings.averaging),
    short=frame.policy_name("short_lists", settings.short_lists),
    level=f"{settings.relevance_level:g}",
    n=n_queries,
    queries=number(n_queries),
)
if settings.averaging != "macro":
    st.caption(t("curves.macro_lines"))

failed: dict[str, str] = {}  # a measure these data cannot give: its message, in its place
for measure in view.measures:
    try:
        compute.measure_curves(dataset, settings, measure, k_to)
    except MeasureError as exc:
        failed[measure] = str(exc)
measures = tuple(m for m in view.measures if m not in failed)
table = compute.curve_table(dataset, settings, measures, k_from, k_to)
figures = {}
columns = st.columns(2)
for i, measure in enumerate(view.measures):
    if measure in failed:
        with columns[i % 2]:
            st.markdown(f"**{measure} · {frame.measure_pretty(measure)}**")
            st.error(t("frame.measure_error", message=frame.escape(failed[measure])))
        continue
    pretty = frame.measure_pretty(measure)
    chart_title = (
        t("curves.chart_title_plain", measure=measure)
        if pretty == measure
        else t("curves.chart_title", measure=measure, pretty=pretty)
    )
    fig = curve_figure(
        table,
        measure,
        title=chart_title,
        x_label="K",
        y_label=t("curves.mean", measure=measure),
        queries_label=t("curves.queries"),
        subtitle=chart_subtitle,
    )
    figures[t("curves.export.curve", measure=measure)] = fig
    with columns[i % 2]:
        st.plotly_chart(fig, width="stretch", key=f"chart_{measure}")
        st.caption(frame.measure_text(measure, "description"))

st.subheader(t("curves.table_title" if compute.has_lists(dataset) else "perquery.table_title"))
if not measures:
    st.stop()  # no measure these data can give: each one said why above
ks = tuple(compute.table_cutoffs(dataset, measures, k_from, k_to))
long = compute.cutoff_table(dataset, settings, measures, ks)
wide = wide_cutoff_table(long, dataset.models)
st.dataframe(
    translated(wide.reset_index(), t),
    hide_index=True,
    width="stretch",
    column_config={c: st.column_config.NumberColumn(c, format="%.4f") for c in wide.columns},
)
st.download_button(
    t("curves.download_csv"),
    csv_bytes(translated(long, t)),
    f"{t('file.curves_table')}.csv",
    "text/csv",
    key="dl_curves_csv",
    on_click="ignore",
)
if compute.has_lists(dataset):  # the code recomputes from lists; a per-query table has none
    table_measures = tuple(wide.columns)
    left = settings_flags(settings)[1]
    blocks = [
        CodeBlock(evaluate_command(settings, table_measures), "bash"),
        CodeBlock(evaluate_code(settings, table_measures)),
    ]
    first_model = dataset.models[0]
    for tool in matching_profiles(settings):
        snippet = peer_code(tool, ("qrels.csv", "run.csv"), first_model, table_measures)
        if snippet:
            tool_name, model_name = frame.escape(tool.label), frame.escape(first_model)
            heading = t("curves.peer_code", tool=tool_name, model=model_name)
            blocks.append(CodeBlock(snippet, heading=heading))
    code_panel(
        "curves_code",
        t("curves.code_caption"),
        dataset_files(dataset, queries=bool(settings.weight_column)),
        blocks,
        left,
    )

st.markdown(f"**{t('curves.judged_title')}**")
if not compute.has_lists(dataset):
    st.caption(t("perquery.no_lists_judged"))
else:
    judged_k = compute.judged_cutoff(ks)
    notes = compute.judgment_notes(dataset, settings, judged_k, "RBP" in measures)
    for note in notes.to_dict("records"):
        judged, unjudged = note[f"Judged@{judged_k}"], note[compute.UNJUDGED_SHARE]
        key = "curves.judged_ok" if unjudged <= 0.05 else "curves.judged_line"
        line = t(
            key,
            model=frame.escape(note["model"]),
            k=judged_k,
            judged=f"{judged:.2f}",
            share=f"{unjudged:.0%}",
        )
        if note[compute.EMPTY_SHARE] > 0:
            line += " " + t(
                "curves.judged_empty",
                k=judged_k,
                empty=f"{note[compute.EMPTY_SHARE]:.0%}",
                setting=frame.policy_label("short_lists"),
            )
        st.caption(line)
        if "RBP" in measures:
            rbp, resid = note[f"RBP@{judged_k}"], note[f"RBPResid@{judged_k}"]
            st.caption(
                t(
                    "curves.rbp_line",
                    model=frame.escape(note["model"]),
                    k=judged_k,
                    rbp=f"{rbp:.4f}",
                    resid=f"{resid:.4f}",
                    upper=f"{rbp + resid:.4f}",
                )
            )
    if (notes[compute.UNJUDGED_SHARE] > 0.2).any():  # of the items held, not of K positions
        st.warning(t("curves.judged_warning"))

st.subheader(t("curves.dist_title"))
c1, c2, c3 = st.columns(3)
measure = c1.selectbox(t("curves.dist_measure"), list(measures), key=keys.W_DIST_MEASURE)
computed_ks = compute.distribution_cutoffs(dataset, measure, k_from, k_to)
k: int | None = None  # stays None when the table has the measure at no K in the range
if computed_ks is None:
    if st.session_state.get(keys.W_DIST_K, 0) not in range(k_from, k_to + 1):
        st.session_state[keys.W_DIST_K] = min(max(10, k_from), k_to)
    k = c2.number_input(
        t("curves.dist_k"), min_value=k_from, max_value=k_to, step=1, key=keys.W_DIST_K
    )
elif computed_ks:
    if st.session_state.get(keys.W_DIST_K_COMPUTED) not in computed_ks:
        st.session_state[keys.W_DIST_K_COMPUTED] = 10 if 10 in computed_ks else computed_ks[-1]
    k = c2.selectbox(
        t("curves.dist_k"),
        computed_ks,
        key=keys.W_DIST_K_COMPUTED,
        help=t("perquery.dist_k_help"),
    )
kind = c3.radio(
    t("curves.dist_kind"),
    ["box", "histogram"],
    key=keys.W_DIST_KIND,
    horizontal=True,
    format_func=option_text("curves.dist_kind."),
)
if k is None:
    st.info(t("perquery.no_k_for_measure", measure=measure, k_from=k_from, k_to=k_to))
else:
    per_query = compute.measure_curves(dataset, settings, measure, k_to)
    values = {model: v[:, int(k) - 1] for model, v in per_query.items()}
    at_k = compute.cutoff_name(measure, int(k))
    dist = distribution_figure(
        values,
        at_k,
        kind=kind,
        title=t(
            "curves.dist_chart" if kind == "box" else "curves.dist_chart_histogram",
            measure=at_k,
        ),
        y_label=t("curves.queries"),
        stat_labels={s: t(f"column.{s}") for s in BOX_STATS},
    )
    figures[t("curves.export.distribution", measure=at_k)] = dist
    st.plotly_chart(dist, width="stretch", key="chart_distribution")
    quartiles = translated(quartile_table(values), t)
    st.dataframe(
        quartiles,
        hide_index=True,
        width="stretch",
        column_config={
            t(f"column.{c}"): st.column_config.NumberColumn(t(f"column.{c}"), format="%.4f")
            for c in QUARTILE_COLUMNS
        },
    )

st.subheader(t("curves.pr_title"))
if not compute.has_lists(dataset):
    st.caption(t("perquery.no_lists_pr"))
else:
    pr = compute.precision_recall(dataset, settings, k_to)
    pr_fig = precision_recall_figure(
        pr,
        title=t("curves.pr_title"),
        x_label=t("curves.pr_recall"),
        y_label=t("curves.pr_precision"),
        interpolated_label=t("curves.pr_interpolated"),
        raw_label=t("curves.pr_raw", k=k_to),
    )
    figures[t("curves.export.precision_recall")] = pr_fig
    st.plotly_chart(pr_fig, width="stretch", key="chart_precision_recall")
    st.caption(t("curves.pr_caption", k=k_to))

st.subheader(t("curves.export_title"))
figure_downloads(figures, key="curves")
