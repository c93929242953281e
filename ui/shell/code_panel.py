"""The "copy as code" panel of the pages: the files the code reads, to download, and the code
blocks (a command line, a Python snippet of our API, a peer's own call) that print the page's
numbers from them.

The files are written only when their button is pressed (Streamlit calls the button's data
function then), so a rerun of a page never turns a large run into bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import pandas as pd
import streamlit as st

from metrics.io.dataset import Dataset
from metrics.io.export import to_csv_bytes
from ui.shell.i18n import t


@dataclass(frozen=True)
class CodeFile:
    """One file the code reads: the button's text, the file name and the table it holds."""

    label: str
    name: str
    table: pd.DataFrame


@dataclass(frozen=True)
class CodeBlock:
    """One code block, with the line above it (``None``: none)."""

    code: str
    language: str = "python"
    heading: str | None = None


def dataset_files(dataset: Dataset, *, queries: bool = False) -> list[CodeFile]:
    """``run.csv`` (every model) and ``qrels.csv`` of the data set, and ``queries.csv`` (its
    query table) when ``queries`` is true and the data set has one."""
    files = [
        CodeFile(t("compare.code_run"), "run.csv", dataset.run),
        CodeFile(t("tools.download_qrels"), "qrels.csv", dataset.qrels),
    ]
    if queries and dataset.segments is not None:
        files.append(CodeFile(t("compare.code_queries"), "queries.csv", dataset.segments))
    return files


def code_downloads(files: Sequence[CodeFile], key: str) -> None:
    """One download button per file, side by side (keys ``dl_<key>_<file stem>``)."""
    for column, file in zip(st.columns(max(len(files), 1)), files):
        column.download_button(
            file.label,
            partial(to_csv_bytes, file.table, bom=False),
            file.name,
            "text/csv",
            key=f"dl_{key}_{file.name.removesuffix('.csv')}",
            on_click="ignore",
        )


def code_blocks(blocks: Sequence[CodeBlock]) -> None:
    """The code blocks, each under its line."""
    for block in blocks:
        if block.heading:
            st.markdown(block.heading)
        st.code(block.code, language=block.language)


def code_panel(
    key: str,
    caption: str,
    files: Sequence[CodeFile],
    blocks: Sequence[CodeBlock],
    left: Sequence[str] = (),
) -> None:
    """The "copy as code" expander: ``caption``, the files' downloads, then the code blocks;
    ``left`` names the changed policies the command line has no flag for (only the Python
    snippet sets them)."""
    with st.expander(t("compare.code"), icon=":material/code:"):
        st.caption(caption)
        if left:
            from ui.shell.labels import policy_label

            names = ", ".join(policy_label(p) for p in left)
            st.caption(t("compare.code_not_in_command", settings=names))
        code_downloads(files, key)
        code_blocks(blocks)
