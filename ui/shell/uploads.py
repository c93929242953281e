"""The session's uploaded data set: built from the tables read, their roles and label grades,
and kept in ``st.session_state``.

The Data page's upload panel (:mod:`ui.data.upload_panel`) builds it as the roles are chosen;
the browser's workspace (:mod:`ui.shell.workspace`) builds it again from the tables, roles and
grades it kept. :func:`error_text` words an upload's input error in the session's language (the
Data and Labels pages).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from metrics.errors import InputError
from metrics.io.dataset import Dataset
from metrics.io.findings import Finding
from metrics.io.formats import LoadedTable
from metrics.io.loaders import load_dataset
from metrics.io.roles import RoleMapping
from ui.shell import keys
from ui.shell.findings_view import finding_text
from ui.shell.i18n import current_language, has, number, t
from ui.shell.label_sources import table_id


def build_key(
    tables: Mapping[str, Sequence[LoadedTable]],
    mappings: Mapping[str, RoleMapping],
    label_maps: Mapping[str, Mapping[str, float]],
) -> str:
    """What a data set of uploaded tables is built from: the tables, their roles and the grades
    of text labels (the same whatever order the roles and grades are listed in)."""
    return repr(
        (
            [table_id(x) for k in tables for x in tables[k]],
            sorted(mappings.items()),
            sorted((name, sorted(grades.items())) for name, grades in label_maps.items()),
        )
    )


def build_dataset(
    tables: Mapping[str, Sequence[LoadedTable]],
    mappings: Mapping[str, RoleMapping],
    label_maps: Mapping[str, Mapping[str, float]],
    on_built: Callable[[Dataset], object] | None = None,
) -> Dataset:
    """The data set of uploaded ``tables`` under their roles and label grades.

    Raises
    ------
    InputError
        When the tables leave no usable row.
    """
    judgments, queries = tables.get("judgments", ()), tables.get("queries", ())
    return load_dataset(
        list(tables["runs"]),
        judgments[0] if judgments else None,
        queries[0] if queries else None,
        mappings=dict(mappings),
        name=", ".join(x.name for x in tables["runs"]),
        on_built=on_built,
        label_maps=label_maps,
    )


def keep_built(
    tables: Mapping[str, Sequence[LoadedTable]],
    mappings: Mapping[str, RoleMapping],
    label_maps: Mapping[str, Mapping[str, float]],
    dataset: Dataset,
) -> None:
    """Make ``dataset``, built from ``tables`` under ``mappings`` and ``label_maps``, the
    session's uploaded data set (the workspace keeps the roles and grades with the tables)."""
    state = st.session_state
    state[keys.UPLOAD_DATASET] = dataset
    state[keys.UPLOAD_BUILD_KEY] = build_key(tables, mappings, label_maps)
    state[keys.UPLOAD_ROLES] = (dict(mappings), {n: dict(g) for n, g in label_maps.items()})


def forget_built() -> None:
    """No uploaded data set (nothing built, or it waits for a confirmation)."""
    for key in (keys.UPLOAD_DATASET, keys.UPLOAD_BUILD_KEY, keys.UPLOAD_ROLES):
        st.session_state.pop(key, None)


def error_text(error: InputError) -> str:
    """An input error in the session's language when it reports a validation finding (the
    engine's English message otherwise)."""
    if isinstance(error.finding, Finding):
        text = finding_text(error.finding, current_language())
        message, fix = text.message, text.action or "—"
    elif error.code is not None and has(f"error.{error.code}.message"):
        params = dict(error.params)
        dropped = params.get("dropped")
        if isinstance(dropped, list):  # findings: what was dropped, worded in this language
            lang = current_language()
            params["dropped"] = " ".join(
                finding_text(f, lang).message for f in dropped if isinstance(f, Finding)
            )
            if dropped:
                params["dropped"] = t("error.dropped", findings=params["dropped"])
        count = params.get("n")
        if isinstance(count, int):
            params["rows"] = params["count"] = number(count)
        limit = params.get("limit")
        if isinstance(limit, int):
            params["limit"] = number(limit)
        params.setdefault("source", error.source or "—")  # formatting always runs: {{ is {
        message = t(f"error.{error.code}.message", **params)
        cells = params.get("formula_cells")
        if isinstance(cells, int) and cells:
            message += " " + t("error.formula_cells", n=cells, cells=number(cells))
        fix = t(f"error.{error.code}.fix", **params)
        if params.get("excel"):
            fix += " " + t("error.excel_fix")
    else:
        return str(error)
    return t("upload.finding_error", source=error.source or "—", message=message, fix=fix)
