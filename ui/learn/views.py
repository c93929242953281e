"""Sections of the Learn page (Streamlit): one list with its numbers, several lists of a
lesson, the curve and the rank-by-rank tables, sharing. Every number comes from
:mod:`metrics` through :mod:`ui.learn.evaluate` and :mod:`ui.learn.lessons`."""

from __future__ import annotations

import streamlit as st

from metrics.engine.registry import at_cutoff
from metrics.engine.settings import Settings
from ui.data import handbuilt as hb
from ui.data.handbuilt_list import RankedList
from ui.learn import evaluate as learn
from ui.learn import panel as lp
from ui.learn.figures import learn_curve_svg
from ui.learn.lessons import Lesson, model_means, value
from ui.learn.list_component import ranked_list, show_curve
from ui.shell import frame
from ui.shell.i18n import t
from ui.shell.safe import md_escape


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


#: Code blocks of the Learn page break lines at spaces only, never inside a number (Streamlit
#: lets a long word break anywhere: "0.6" at the end of one line, "0" at the start of the next).
CSS = """<style>
[data-testid="stCode"] code { overflow-wrap: normal !important; word-break: normal !important; }
</style>"""


def one_list(rl: RankedList, k: int, settings: Settings, scale: str = "graded") -> None:
    """The list you touch on the left, the pitfalls and every measure's formula on the right."""
    left, right = st.columns([11, 9], gap="medium")
    with left:
        st.subheader(t("learn.the_list"))
        level_sentence(rl, settings.relevance_level, bold=True)
        ranked_list(rl, k, settings, "learn", scale=scale)
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
    if any(x == x for x in (*rl.labels, *(x for _, x in rl.unretrieved))):
        list_code(rl, k, settings)


def list_code(rl: RankedList, k: int, settings: Settings) -> None:
    """ "Copy as code" for the list on the page: the list as a run and its judgments, and the
    command line and Python that print its measures at ``k`` (a list with no judged item is
    left out by trec_eval's convention, so none is offered for it)."""
    from metrics.engine.explain import list_frames
    from ui.tools.code_panel import CodeBlock, CodeFile, code_panel
    from ui.tools.compute import evaluate_code, evaluate_command, settings_flags

    run, qrels = list_frames(list(rl.items), list(rl.labels), list(rl.unretrieved))
    run.insert(0, "model", "list")
    # the file's scores follow the page's ranks, best first: the page's own-list settings
    code_settings = learn.own_scores(settings)
    names = tuple(learn.measure_names(k))
    code_panel(
        "learn_code",
        t("learn.code_caption"),
        [
            CodeFile(t("compare.code_run"), "run.csv", run),
            CodeFile(t("tools.download_qrels"), "qrels.csv", qrels),
        ],
        [
            CodeBlock(evaluate_command(code_settings, names), "bash"),
            CodeBlock(evaluate_code(code_settings, names)),
        ],
        settings_flags(code_settings)[1],
    )


def many_lists(
    shown: list[RankedList], k: int, settings: Settings, lesson: Lesson | None, scale: str
) -> None:
    """Several lists side by side (two models, or two models on two queries) and their values."""
    cols = st.columns(2, gap="large")
    for j, rl in enumerate(shown):
        with cols[j % 2]:
            st.subheader(md_escape(rl.name))
            level_sentence(rl, settings.relevance_level)
            ranked_list(rl, k, settings, f"learn{j}", j, scale)
    st.subheader(t("learn.formulas"))
    for m in lesson.measures if lesson else ("P", "nDCG"):
        parts = [f"{rl.name}: {value(rl, m, k, settings):.3f}" for rl in shown]
        st.code(at_cutoff(m, k) + " — " + ", ".join(parts), language=None, wrap_lines=True)
    if lesson and lesson.id == "macro_micro":
        means = model_means(tuple(shown), "R", k, settings)
        avg = frame.policy_text("averaging", settings.averaging)
        values = ", ".join(f"{m} = {v:.3f}" for m, v in means.items())
        st.code(t("learn.means", k=k, avg=avg, values=values), language=None, wrap_lines=True)
    for rl in shown:
        pitfall_warnings(rl, k, settings, prefix=f"{md_escape(rl.name)}: ")


#: LaTeX of each mean over queries (the same in every language).
MEAN_LATEX = {
    "RR": r"\mathrm{MRR@K} = \frac{1}{|Q|} \sum_{q} \mathrm{RR@K}(q)",
    "AP": r"\mathrm{MAP@K} = \frac{1}{|Q|} \sum_{q} \mathrm{AP@K}(q)",
    "nDCG": r"\overline{\mathrm{nDCG}}\mathrm{@K} = \frac{1}{|Q|} \sum_{q} \mathrm{nDCG@K}(q)",
}


def queries(
    shown: list[RankedList],
    k: int,
    settings: Settings,
    *,
    scale: str = "graded",
    on_remove=None,
) -> None:
    """Several lists side by side, each one query of the same model and each touchable as the
    one list is; then, for RR, AP and nDCG at K, every list's value with its numbers and the
    mean over the lists (MRR, MAP, mean nDCG) with the formula and its numbers. With
    ``on_remove`` (a callback taking a list's name), each list has a button that removes it."""
    per_row = 3
    for start in range(0, len(shown), per_row):
        cols = st.columns(per_row, gap="medium")
        for j, rl in enumerate(shown[start : start + per_row], start=start):
            with cols[j - start]:
                st.subheader(md_escape(rl.name))
                level_sentence(rl, settings.relevance_level)
                ranked_list(rl, k, settings, f"learnq{j}", j, scale)
                if on_remove is not None and len(shown) > 1:
                    st.button(
                        t("learn.queries.remove"),
                        key=f"btn_learn_remove_query_{j}",
                        on_click=on_remove,
                        args=(rl.name,),
                        icon=":material/delete:",
                    )
    st.subheader(t("learn.queries.means"))
    st.caption(t("learn.queries.means_help", n=len(shown), k=k))
    cols = st.columns(len(learn.QUERY_MEANS), gap="small")
    for col, qm in zip(cols, learn.query_means(shown, k, settings)):
        with col.container(border=True):
            mean_name = t(f"learn.queries.mean.{qm.measure}", k=k)
            st.markdown(f"**{mean_name}**")
            st.latex(MEAN_LATEX[qm.measure])
            lines = []
            for name, formula in qm.formulas:
                if formula is None:
                    why = t(f"learn.queries.left_out.{qm.left_out[name]}")
                    lines.append(f"{name}: {why}")
                else:
                    lines.append(f"{name}: {formula}")
            if qm.values:
                lines.append(f"{mean_name} = {qm.sum_text} = {qm.mean:.3f}")
            else:
                lines.append(f"{mean_name} = —")
            st.code("\n".join(lines), language=None, wrap_lines=True)
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
    from ui.data.handbuilt_panel import csv_import

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
