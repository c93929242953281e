"""The Curves page's parts: the subtitles of the settings in force, the table's code, the note on
judgments and the per-query distribution."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from metrics.errors import MeasureError
from ui.curves.figures import BOX_STATS, distribution_figure
from ui.curves.tables import QUARTILE_COLUMNS, quartile_table, translated
from ui.shell import compute, frame, keys
from ui.shell.code_panel import CodeBlock, code_panel, dataset_files
from ui.shell.commands import (
    evaluate_code,
    evaluate_command,
    matching_profiles,
    peer_code,
    settings_flags,
)
from ui.shell.i18n import number, option_text, t
from ui.shell.labels import policy_label, policy_name, policy_text

if TYPE_CHECKING:
    from metrics.engine.settings import Settings
    from metrics.io.dataset import Dataset


def subtitles(dataset: Dataset, settings: Settings) -> tuple[str, str]:
    """The page's line on the settings in force, and the charts' shorter one."""
    n_queries = compute.query_count(dataset)
    values = {
        "level": f"{settings.relevance_level:g}",
        "n": n_queries,
        "queries": number(n_queries),
    }
    page = t(
        "curves.subtitle",
        averaging=policy_text("averaging", settings.averaging),
        short=policy_text("short_lists", settings.short_lists),
        **values,
    )
    charts = t(
        "curves.chart_subtitle",
        averaging=policy_name("averaging", settings.averaging),
        short=policy_name("short_lists", settings.short_lists),
        **values,
    )
    return page, charts


def measure_failures(
    dataset: Dataset, settings: Settings, measures: list[str], k_to: int
) -> dict[str, str]:
    """The measures these data cannot give, each with its message (shown in its place)."""
    failed: dict[str, str] = {}
    for measure in measures:
        try:
            compute.measure_curves(dataset, settings, measure, k_to)
        except MeasureError as exc:
            failed[measure] = str(exc)
    return failed


def table_code(dataset: Dataset, settings: Settings, table_measures: tuple[str, ...]) -> None:
    """The table as a command, as Python and, where the settings are a tool's own, with that
    tool (ranked lists only: the code recomputes from them)."""
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


def judgment_notes(
    dataset: Dataset, settings: Settings, ks: tuple[int, ...], measures: tuple[str, ...]
) -> None:
    """How complete the judgments are, per model (and RBP's residual when RBP is shown)."""
    st.markdown(f"**{t('curves.judged_title')}**")
    if not compute.has_lists(dataset):
        st.caption(t("perquery.no_lists_judged"))
        return
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
                setting=policy_label("short_lists"),
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


def distribution(
    dataset: Dataset, settings: Settings, measures: tuple[str, ...], k_range: tuple[int, int]
) -> dict[str, Any]:
    """The per-query distribution of one measure at one K (a box or a histogram) and its
    quartiles; returns the figure drawn under its export name (none without a K)."""
    k_from, k_to = k_range
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
        return {}
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
    st.plotly_chart(dist, width="stretch", key="chart_distribution")
    quartiles: pd.DataFrame = translated(quartile_table(values), t)
    st.dataframe(
        quartiles,
        hide_index=True,
        width="stretch",
        column_config={
            t(f"column.{c}"): st.column_config.NumberColumn(t(f"column.{c}"), format="%.4f")
            for c in QUARTILE_COLUMNS
        },
    )
    return {t("curves.export.distribution", measure=at_k): dist}
