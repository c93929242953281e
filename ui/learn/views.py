"""Sections of the Learn page (Streamlit): one list with its numbers, several lists of a
lesson, the curve and the rank-by-rank tables, sharing. Every number comes from
:mod:`metrics` through :mod:`ui.learn.evaluate` and :mod:`ui.learn.lessons`."""

from __future__ import annotations

from html import escape
from pathlib import Path

import pandas as pd
import streamlit as st

from metrics.engine.registry import at_cutoff
from metrics.engine.settings import Settings
from ui.learn import evaluate as learn
from ui.learn import panel as lp
from ui.learn.figures import learn_curve_svg
from ui.learn.lessons import Lesson, model_mean_lines, value
from ui.learn.list_component import ranked_list, show_curve
from ui.learn.panel import DEFAULT_MEASURES
from ui.shell import handbuilt as hb
from ui.shell import keys, labels
from ui.shell.handbuilt_list import RankedList
from ui.shell.i18n import t
from ui.shell.safe import md_escape

ASSETS = Path(__file__).resolve().parents[1] / "assets"


def _style(name: str) -> str:
    return "<style>\n" + (ASSETS / name).read_text(encoding="utf-8") + "</style>"


def presenting() -> bool:
    """Whether the page is in presenter mode (the frame's switch, or ``present=1``)."""
    return bool(st.session_state.get(keys.W_PRESENT))


def pitfall_warnings(rl: RankedList, k: int, settings: Settings, *, prefix: str = "") -> None:
    """The pitfalls that apply to ``rl`` at ``k``, as warnings."""
    skip = ("order", "graded") if prefix else ()
    for key, values in learn.pitfalls(rl, k, settings):
        if key in skip:
            continue
        if key == "short":
            values = {**values, "policy": labels.policy_text("short_lists", values["policy"])}
        if key == "duplicate":
            values = {**values, "item": md_escape(values["item"])}
        st.warning(prefix + t(f"learn.pit.{key}", **values), icon=":material/warning:")


def level_sentence(rl: RankedList, level: float, *, bold: bool = False) -> None:
    n_rel = learn.relevant_count(rl, level)
    n = len(learn.counted(rl).items)
    text = t("learn.level_sentence", level=f"{level:g}", n_rel=n_rel, n=n)
    st.markdown(f"**{text}**" if bold else text)


#: The Learn page's style. Code blocks break lines at spaces only, never inside a number
#: (Streamlit lets a long word break anywhere: "0.6" at the end of one line, "0" at the start of
#: the next). Headings break between words only: in Chinese and Japanese at punctuation and at
#: the zero-width spaces their catalog entries put between phrases, never inside a word such as
#: 各指標 (inside a word only when nothing else fits). The formula board
#: and the rank-by-rank tables of presenter mode: one formula per line, its type made smaller
#: when the line would not fit the board (``--n``: its length in characters), tables as wide as
#: their half of the page.
CSS = _style("learn_page.css")

#: Presenter mode on the Learn page: the page at its own size (its own type is large, grown
#: with the screen's height), little space above, the button that leaves presenter mode in the
#: top right corner instead of a line of its own.
PRESENT_CSS = _style("learn_present.css")


def card_problem(card: learn.Card) -> str:
    """Why a measure cannot be computed on this list, in the session's language."""
    if card.problem == "error":
        return t("learn.card.error", name=card.name, message=card.message)
    return t(f"learn.card.{card.problem}", name=card.name)


def card_title(measure: str) -> str:
    """``P · Precision``; the name alone when it holds the symbol (``命中率（Success）``) or is
    the symbol (``nDCG``)."""
    pretty = labels.measure_pretty(measure)
    return pretty if measure in pretty else labels.measure_label(measure)


def formula_board(cards: list[learn.Card], head: str) -> str:
    """Presenter mode's formulas: one line per measure (its name, then its formula with the
    list's numbers), the numbers it weighs by on the line below, or why it cannot be computed,
    as escaped HTML."""
    rows = [f'<div class="lp-head">{escape(head)}</div>']
    for card in cards:
        if not card.measure and card.formula is not None:  # a line without a measure's name
            rows.append(
                f'<div class="lp-row lp-line"><code class="lp-f" style="--n: '
                f'{len(card.formula)}">{escape(card.formula)}</code></div>'
            )
            continue
        name = escape(labels.measure_pretty(card.measure))
        if card.formula is None:
            rows.append(
                f'<div class="lp-row lp-problem" data-measure="{escape(card.measure)}">'
                f'<span class="lp-name">{name}</span>'
                f'<span class="lp-msg">{escape(card_problem(card))}</span></div>'
            )
            continue
        rows.append(
            f'<div class="lp-row" data-measure="{escape(card.measure)}">'
            f'<span class="lp-name">{name}</span><code class="lp-f" '
            f'style="--n: {len(card.formula)}">{escape(card.formula)}</code></div>'
        )
        if card.detail:
            rows.append(
                '<div class="lp-row lp-detail"><span class="lp-name"></span>'
                f'<code class="lp-f" style="--n: {len(card.detail)}">{escape(card.detail)}</code>'
                "</div>"
            )
    return f'<section class="lp-board">{"".join(rows)}</section>'


def formula_cards(cards: list[learn.Card]) -> None:
    """Each measure in a card of its own, one under the other so that a formula keeps its line:
    name, formula with the list's numbers, the numbers it weighs by (wP's weights, cwP's
    confidences), or why it cannot be computed."""
    for card in cards:
        with st.container(border=True):
            st.markdown(f"**{card_title(card.measure)}**")
            if card.formula is None:
                st.info(card_problem(card), icon=":material/block:")
                continue
            st.code(card.formula, language=None, wrap_lines=True)
            if card.detail:
                st.caption(t(f"learn.detail.{card.measure}"))
                st.code(card.detail, language=None, wrap_lines=True)


def one_list(
    rl: RankedList,
    k: int,
    settings: Settings,
    scale: str = "graded",
    *,
    measures: tuple[str, ...] = DEFAULT_MEASURES,
    confidences: tuple[float, ...] | None = None,
) -> None:
    """The list you touch on the left, the pitfalls and every measure's formula on the right
    (``measures``; cwP weighs by the list's scores or ``confidences``). In presenter mode the
    formulas are one board, one line each, beside the list."""
    cards = (
        learn.measure_cards(rl, k, settings, measures, confidences=confidences) if rl.items else []
    )
    if presenting():
        left, right = st.columns([5, 7], gap="small")
        with left:
            level_sentence(rl, settings.relevance_level, bold=True)
            ranked_list(rl, k, settings, "learn", scale=scale, present=True)
        with right:
            if cards:
                head = t("learn.board_head", k=k, level=f"{settings.relevance_level:g}")
                st.html(formula_board(cards, head))
            pitfall_warnings(rl, k, settings)
        return
    left, right = st.columns(2, gap="medium")
    with left:
        st.subheader(t("learn.the_list"))
        level_sentence(rl, settings.relevance_level, bold=True)
        ranked_list(rl, k, settings, "learn", scale=scale)
    with right:
        st.subheader(t("learn.formulas"))
        pitfall_warnings(rl, k, settings)
        if cards:
            formula_cards(cards)
    if any(x == x for x in (*rl.labels, *(x for _, x in rl.unretrieved))):
        list_code(rl, k, settings)


def list_code(rl: RankedList, k: int, settings: Settings) -> None:
    """ "Copy as code" for the list on the page: the list as a run and its judgments, and the
    command line and Python that print its measures at ``k`` (a list with no judged item is
    left out by trec_eval's convention, so none is offered for it)."""
    from metrics.engine.explain import list_frames
    from ui.shell.code_panel import CodeBlock, CodeFile, code_panel
    from ui.shell.commands import evaluate_code, evaluate_command, settings_flags

    rl = learn.counted(rl)
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


def formula_lines(lines: list[str], head: str = "") -> None:
    """Lines of formulas: code blocks, or in presenter mode one board of lines."""
    if presenting():
        st.html(formula_board([learn.Card("", "", line) for line in lines], head))
        return
    for line in lines:
        st.code(line, language=None, wrap_lines=True)


def many_lists(
    shown: list[RankedList], k: int, settings: Settings, lesson: Lesson | None, scale: str
) -> None:
    """Several lists side by side (two models, or two models on two queries) and their values."""
    present = presenting()
    # presenter mode: the lists two by two on the left, their numbers on a board beside them
    left, right = st.columns([2, 1], gap="medium") if present else (st.container(), None)
    with left:
        cols = st.columns(2, gap="medium" if present else "large")
    for j, rl in enumerate(shown):
        with cols[j % 2]:
            st.subheader(md_escape(rl.name))
            level_sentence(rl, settings.relevance_level)
            ranked_list(rl, k, settings, f"learn{j}", j, scale, present=present)
    with right if right is not None else st.container():
        if right is None:
            st.subheader(t("learn.formulas"))
        many_lines(shown, k, settings, lesson)
    for rl in shown:
        pitfall_warnings(rl, k, settings, prefix=f"{md_escape(rl.name)}: ")


def many_lines(shown: list[RankedList], k: int, settings: Settings, lesson: Lesson | None) -> None:
    """The lesson's measures of each of several lists, and the averaging lesson's means."""
    lines = []
    for m in lesson.measures if lesson else ("P", "nDCG"):
        parts = [f"{rl.name}: {value(rl, m, k, settings):.3f}" for rl in shown]
        lines.append(at_cutoff(m, k) + " — " + ", ".join(parts))
    if lesson and lesson.id == "macro_micro":
        avg = labels.policy_name("averaging", settings.averaging)
        for model, text in model_mean_lines(tuple(shown), "R", k, settings).items():
            lines.append(t("learn.model_mean", model=model, name=at_cutoff("R", k), avg=avg) + text)
    formula_lines(lines, t("learn.board_head", k=k, level=f"{settings.relevance_level:g}"))


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


def move_text(from_rank: int, rank: int) -> str:
    """Where an item of the ideal order comes from: its rank in the list, or the tray."""
    if from_rank == 0:
        return t("learn.move.tray")
    if from_rank == rank:
        return t("learn.move.stays")
    return t("learn.move.up" if from_rank > rank else "learn.move.down", rank=from_rank)


#: Columns of the rank-by-rank tables, and those written with three decimals.
POSITION_COLUMNS = ("rank", "item", "label", "gain", "discount", "contribution", "running_dcg")
IDEAL_COLUMNS = ("rank", "item", "label", "move", "gain", "contribution", "running_idcg")
DECIMALS = ("gain", "discount", "contribution", "running_dcg", "running_idcg")


def _cell(column: str, value: object) -> str:
    if column in DECIMALS:
        return f"{float(value):.3f}"  # type: ignore[arg-type]
    if column == "label":
        return "?" if value != value else f"{float(value):g}"  # type: ignore[arg-type]
    return str(value)


def html_table(frame_: pd.DataFrame, columns: tuple[str, ...], k: int | None = None) -> str:
    """A rank-by-rank table as escaped HTML (presenter mode: as wide as its half of the page,
    every column in sight); ranks past ``k`` greyed."""
    text = ("item", "move")
    head = "".join(
        f'<th class="lp-text">{escape(t(f"learn.col.{c}"))}</th>'
        if c in text
        else f"<th>{escape(t(f'learn.col.{c}'))}</th>"
        for c in columns
    )
    rows = []
    for row in frame_.to_dict("records"):
        out = k is not None and int(row["rank"]) > k
        cells = "".join(
            f'<td class="lp-text">{escape(_cell(c, row[c]))}</td>'
            if c in text
            else f"<td>{escape(_cell(c, row[c]))}</td>"
            for c in columns
        )
        rows.append(f'<tr class="lp-out">{cells}</tr>' if out else f"<tr>{cells}</tr>")
    return (
        f'<table class="lp-t"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def curve_and_tables(rl: RankedList, k: int, settings: Settings, title_name: str) -> None:
    """The measures over K with the ideal order and the cut, then the rank-by-rank tables: the
    list's and, beside it, the ideal order with its items and where each comes from."""
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
    ex = learn.explain(rl, k, settings)
    order = learn.ideal_table(rl, k, settings)
    order["move"] = [move_text(int(f), int(r)) for f, r in zip(order["from_rank"], order["rank"])]
    ideal_caption = t(
        "learn.ideal_caption", idcg=f"{ex.idcg:.3f}", dcg=f"{ex.dcg:.3f}", n_rel=ex.n_relevant
    )
    if presenting():
        st.subheader(t("learn.positions"))
        st.caption(t("learn.positions_caption", k=k) + " " + ideal_caption)
        st.html(
            '<div class="lp-tables"><div>'
            f"<h4>{escape(t('learn.the_list'))}</h4>"
            f"{html_table(ex.positions, POSITION_COLUMNS, k)}</div><div>"
            f"<h4>{escape(t('learn.ideal_title'))}</h4>"
            f"{html_table(order, IDEAL_COLUMNS)}</div></div>"
        )
        return
    with st.expander(t("learn.positions"), expanded=True):
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
        st.caption(ideal_caption)
        shown = order[["rank", "item", "label", "move", "gain", "discount", "contribution"]]
        shown = shown.assign(running_idcg=order["running_idcg"])
        st.dataframe(
            shown.rename(columns={c: t(f"learn.col.{c}") for c in shown.columns}),
            hide_index=True,
            width="stretch",
            column_config={
                t(f"learn.col.{c}"): st.column_config.NumberColumn(format="%.3f")
                for c in ("gain", "discount", "contribution", "running_idcg")
            },
        )


def share(lists: list[RankedList], worksheet=None) -> None:
    """Download the shown lists as CSV, or import lists from a CSV; ``worksheet`` (a callable)
    draws the worksheet's download button first."""
    from ui.shell.handbuilt_panel import csv_import

    with st.expander(t("learn.share"), expanded=False):
        if worksheet is not None:
            worksheet()
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
