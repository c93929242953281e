"""The Labels page's controls: the label columns (or judgment files) of an upload compared as
sources, the cutoff, and the pair of sources whose confusion matrix is drawn; and the verdict
lines at the top of the page (:func:`summary_box`)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from metrics.engine.registry import DEFAULT_REVIEW_K
from metrics.labels.sources import LabelSources
from ui.labels import summary
from ui.shell import keys, label_sources
from ui.shell.i18n import current_language, t, translate
from ui.shell.labels import policy_label
from ui.shell.safe import md_escape
from ui.shell.uploads import error_text


def label_columns_panel() -> None:
    """For an upload: the columns of the table holding its labels that are compared as label
    sources, the Data page's label column first (the others guessed, then as chosen); with
    several judgment files, the files are the sources (named on the Data page)."""
    files = label_sources.judgment_files()
    if files:
        names = label_sources.file_source_names(files)
        shown = t("labels.files_separator").join(
            t("labels.file_source", name=md_escape(n), file=md_escape(f.name))
            for n, f in zip(names, files)
        )
        st.caption(t("labels.files_caption", sources=shown))
        problem = label_sources.upload_problem()
        if problem is not None:
            st.error(t("labels.files_error", message=md_escape(error_text(problem))))
        return
    found = label_sources.labelled_table()
    if found is None:
        return
    table, label = found
    options = [str(c) for c in table.frame.columns if c != label]
    state = st.session_state
    if state.get(keys.W_LABEL_COLUMNS) is None:
        state[keys.W_LABEL_COLUMNS] = label_sources.upload_label_columns(table, label)
    state[keys.W_LABEL_COLUMNS] = [c for c in state[keys.W_LABEL_COLUMNS] if c in options]
    st.multiselect(
        t("labels.columns", file=table.name),
        options,
        key=keys.W_LABEL_COLUMNS,
        help=t("labels.columns_help"),
    )
    st.caption(t("labels.columns_caption", label=md_escape(label), file=md_escape(table.name)))
    problem = label_sources.upload_problem()
    if problem is not None:
        st.error(t("labels.columns_error", message=md_escape(error_text(problem))))


def cutoff() -> int:
    """The cutoff K of the measures compared and of Judged@K."""
    st.session_state.setdefault(keys.W_LABELS_K, DEFAULT_REVIEW_K)
    narrow, _ = st.columns([1, 3])
    return int(
        narrow.number_input(
            t("labels.k"),
            min_value=1,
            max_value=100,
            step=1,
            key=keys.W_LABELS_K,
            help=t("labels.k_help"),
        )
    )


def pair_choice(sources: LabelSources) -> tuple[str, str]:
    """The pair of sources whose confusion matrix is drawn (the first pair by default)."""
    names = sources.names
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    if st.session_state.get(keys.W_LABELS_PAIR) not in range(len(pairs)):
        st.session_state[keys.W_LABELS_PAIR] = 0
    lang = current_language()  # the menu words its options later, outside this run
    narrow, _ = st.columns([2, 3])
    chosen = narrow.selectbox(
        t("labels.pair"),
        list(range(len(pairs))),
        key=keys.W_LABELS_PAIR,
        format_func=lambda i: translate("labels.pair_option", lang, a=pairs[i][0], b=pairs[i][1]),
    )
    return pairs[int(chosen)]


def summary_box(top: Any, study: Any, choice: Any) -> None:
    """The verdicts first (a flip under another label source named), then how far the sources
    agree, whether the orderings hold and the holes, and the label source in force (``choice``,
    the first source when none is set)."""
    flips = summary.flip_lines(study, t, md_escape)
    if flips:
        heading = t("labels.flips_title", n=len(flips))
        top.warning("\n".join([f"**{heading}**", *(f"- {line}" for line in flips)]))
    else:
        top.success(t("labels.no_flip"))
    lines = [
        *summary.agreement_lines(study, t, md_escape),
        *summary.ordering_lines(study, t, md_escape),
        summary.holes_line(study, t, md_escape),
    ]
    top.markdown("\n".join(f"- {line}" for line in lines if line))
    in_force = (
        label_sources.choice_text(choice, current_language())
        if choice is not None
        else study.sources.names[0]
    )
    setting = policy_label("label_source")
    top.caption(t("labels.in_force", source=md_escape(in_force), setting=setting))


__all__ = ["cutoff", "label_columns_panel", "pair_choice", "summary_box"]
