"""Sections of the Learn page (Streamlit): one list with its numbers, several lists of a
lesson, the curve and the rank-by-rank tables, sharing. Every number comes from
:mod:`metrics` through :mod:`ui.learn` and :mod:`ui.learn_lessons`."""

from __future__ import annotations

import streamlit as st

from metrics.engine.settings import Settings
from ui import frame, learn
from ui import handbuilt as hb
from ui import learn_panel as lp
from ui.handbuilt_list import RankedList
from ui.i18n import t
from ui.learn_figures import learn_curve_svg
from ui.learn_lessons import Lesson, model_means, value
from ui.learn_list import ranked_list, show_curve
from ui.safe import md_escape


def pitfall_warnings(rl: RankedList, k: int, settings: Settings, *, prefix: str = "") -> None:
    """The pitfalls that apply to ``rl`` at ``k``, as warnings."""
    skip = ("order", "graded") if prefix else ()
    for key, values in learn.pitfalls(rl, k, settings):
        if key in skip:
            continue
        if key == "short":
            values = {**values, "policy": frame.policy_text("short_lists", values["policy"])}
        st.warning(prefix + t(f"learn.pit.{key}", **values), icon=":material/warning:")


def level_sentence(rl: RankedList, level: float, *, bold: bool = False) -> None:
    n_rel = learn.relevant_count(rl, level)
    text = t("learn.level_sentence", level=f"{level:g}", n_rel=n_rel, n=len(rl.items))
    st.markdown(f"**{text}**" if bold else text)


def one_list(rl: RankedList, k: int, settings: Settings) -> None:
    """The list you touch on the left, the pitfalls and every measure's formula on the right."""
    left, right = st.columns([11, 9], gap="medium")
    with left:
        st.subheader(t("learn.the_list"))
        level_sentence(rl, settings.relevance_level, bold=True)
        ranked_list(rl, k, settings, "learn")
    with right:
        st.subheader(t("learn.formulas"))
        pitfall_warnings(rl, k, settings)
        if not rl.items:
            return
        formulas = learn.formulas(rl, k, settings)
        cols = st.columns(2)
        for i, row in formulas.iterrows():
            with cols[i % 2].container(border=True):
                st.markdown(f"**{frame.measure_pretty(row['measure'])}**")
                st.code(row["formula"], language=None, wrap_lines=True)
        judged = sum(1 for x in rl.labels[:k] if x == x)
        judged_value = value(rl, "Judged", k, settings)
        st.code(f"Judged@{k} = {judged}/{k} = {judged_value:.2f}", language=None)


def many_lists(shown: list[RankedList], k: int, settings: Settings, lesson: Lesson | None) -> None:
    """Several lists side by side (two models, or two models on two queries) and their values."""
    cols = st.columns(2, gap="large")
    for j, rl in enumerate(shown):
        with cols[j % 2]:
            st.subheader(md_escape(rl.name))
            level_sentence(rl, settings.relevance_level)
            ranked_list(rl, k, settings, f"learn{j}", j)
    st.subheader(t("learn.formulas"))
    for m in lesson.measures if lesson else ("P", "nDCG"):
        parts = [f"{rl.name}: {value(rl, m, k, settings):.3f}" for rl in shown]
        st.code(f"{m}@{k} — " + ", ".join(parts), language=None, wrap_lines=True)
    if lesson and lesson.id == "macro_micro":
        means = model_means(tuple(shown), "R", k, settings)
        avg = frame.policy_text("averaging", settings.averaging)
        values = ", ".join(f"{m} = {v:.3f}" for m, v in means.items())
        st.code(t("learn.means", k=k, avg=avg, values=values), language=None, wrap_lines=True)
    for rl in shown:
        pitfall_warnings(rl, k, settings, prefix=f"{md_escape(rl.name)}: ")


def curve_and_tables(rl: RankedList, k: int, settings: Settings, title_name: str) -> None:
    """The measures over K with the ideal order and the cut, then the rank-by-rank tables."""
    if not rl.items:
        return
    st.subheader(t("learn.curve"))
    top = max(len(rl.items), k)
    curve = learn.list_curve(rl, settings, top, ("P", "R", "AP", "nDCG"))
    ideal_list = learn.ideal_of(rl)
    ideal = learn.list_curve(ideal_list, settings, top, ("P", "R")) if ideal_list.items else None
    show_curve(
        learn_curve_svg(
            curve,
            ideal,
            k,
            title=t("learn.curve_title", name=title_name),
            x_label="K",
            y_label=t("learn.value"),
            ideal_label=t("learn.ideal"),
            k_label=f"K = {k}",
        )
    )
    with st.expander(t("learn.positions"), expanded=True):
        ex = learn.explain(rl, k, settings)
        st.caption(t("learn.positions_caption", k=k))
        st.dataframe(
            ex.positions.rename(columns={c: t(f"learn.col.{c}") for c in ex.positions.columns}),
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


def share(lists: list[RankedList]) -> None:
    """Download the shown lists as CSV, or import lists from a CSV."""
    from ui.handbuilt_panel import csv_import

    with st.expander(t("learn.share"), expanded=False):
        st.caption(t("learn.share_help"))
        st.download_button(
            t("hand.download"),
            lambda: hb.csv_of(hb.table_of(lists)),  # written when asked for, not on each edit
            "ranked_lists.csv",
            "text/csv",
            key="dl_learn_csv",
            on_click="ignore",
        )
        csv_import("up_learn_csv", lp.after_import)
