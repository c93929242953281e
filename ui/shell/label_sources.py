"""The label sources of the active data set, and the data set under the chosen one.

A data set has several label sources when a sample says so (``rag_evidence``: the annotators'
and an LLM judge's files, :func:`metrics.labels.sources.sample_sources`), when an upload has
several judgment files (each one a source named after its file, or as named on the Data page;
the first file's labels are the data set's), or when the table of an upload that holds its
labels has more label columns than the one the Data page reads: the Data page's label column
first, then the others (guessed by
:func:`metrics.labels.sources.guess_label_columns`, changed on the Labels page,
:data:`~ui.shell.keys.W_LABEL_COLUMNS`). The ``label_source`` policy (the sidebar's menu, the
link's ``labels``) chooses which judgments every page evaluates: :func:`labelled` gives the data
set with them, cached on its content hash; the first source leaves the data set as loaded.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.dataset import Dataset
from metrics.io.formats import LoadedTable, file_stem
from metrics.io.roles import RoleMapping, guess_roles
from metrics.io.samples import sample_names
from metrics.labels.sources import (
    AGGREGATES,
    RESERVED_NAMES,
    LabelSources,
    guess_label_columns,
    sample_sources,
    sources_from_columns,
    sources_from_judgments,
    under_label_source,
)
from ui.shell import keys, memo
from ui.shell.i18n import translate

#: The data choice of an upload (as :data:`ui.shell.view.UPLOAD`).
_UPLOAD = "upload"
_NONE = "—"


def sample_label_sources(name: str) -> LabelSources | None:
    """A sample's label sources, read once per server (``None``: one set of judgments)."""
    return memo.once(("label_sources", name), lambda: sample_sources(name))


def table_id(table: LoadedTable) -> str:
    """The id of an uploaded table (its name, columns and row count) that the Data page keys
    its role menus by and an upload's build key names it by (:mod:`ui.shell.uploads`)."""
    return hashlib.sha1(
        f"{table.name}|{list(table.frame.columns)}|{len(table.frame)}".encode()
    ).hexdigest()[:10]


def labelled_table() -> tuple[LoadedTable, str] | None:
    """The uploaded table that holds the labels and the Data page's label column: the
    judgments table, else the first run table whose label menu names a column."""
    tables = st.session_state.get(keys.UPLOAD_TABLES) or {}
    for table in [*tables.get("judgments", []), *tables.get("runs", [])]:
        column = st.session_state.get(keys.role_menu(table_id(table), "label"))
        if column is None:  # menus not drawn yet: the role guesser's label
            column = RoleMapping.from_guesses(guess_roles(table.frame)).label
        if column and column != _NONE and column in table.frame.columns:
            return table, str(column)
    return None


def upload_label_columns(table: LoadedTable, label: str) -> list[str]:
    """The other label columns of ``table`` proposed as sources (guessed once per table and
    label column)."""
    store = st.session_state.setdefault(keys.LABEL_SOURCES, {})
    key = ("guess", table_id(table), label)
    if key not in store:
        roles = RoleMapping.from_guesses(guess_roles(table.frame)).with_(label=label)
        store[key] = guess_label_columns(table.frame, roles)
    found: list[str] = store[key]
    return found


def judgment_files() -> list[LoadedTable]:
    """The upload's judgment files when there are several (each one a label source), else
    none."""
    tables = st.session_state.get(keys.UPLOAD_TABLES) or {}
    found = list(tables.get("judgments", []))
    return found if len(found) > 1 else []


def file_source_names(files: list[LoadedTable]) -> list[str]:
    """The label source names of judgment files: the name given on the Data page
    (:func:`~ui.shell.keys.source_name`), else the file name without its extensions; a name
    left empty, taken by an earlier file or kept for a column of the tables is numbered."""
    used: set[str] = set()
    names = []
    for table in files:
        given = str(st.session_state.get(keys.source_name(table_id(table))) or "").strip()
        name = base = given or file_stem(table.name)
        copy = 1
        while name in used or name in RESERVED_NAMES:
            copy += 1
            name = f"{base} ({copy})"
        used.add(name)
        names.append(name)
    return names


def _file_sources() -> LabelSources | InputError | None:
    """The label sources of several judgment files, each read under the roles and grades the
    Data page built the data set with (``None`` before it is built)."""
    files = judgment_files()
    built = st.session_state.get(keys.UPLOAD_ROLES)
    if not files or built is None:
        return None
    mappings, label_maps = built
    names = file_source_names(files)
    roles = [mappings.get(table.name) for table in files]
    grades = [label_maps.get(table.name) for table in files]
    store = st.session_state.setdefault(keys.LABEL_SOURCES, {})
    key = (
        "files",
        tuple(table_id(table) for table in files),
        tuple(names),
        repr(roles),
        repr([sorted(g.items()) if g else None for g in grades]),
    )
    if key not in store:
        try:
            store[key] = sources_from_judgments(files, names, mappings=roles, label_maps=grades)
        except InputError as exc:
            store[key] = exc
    found: LabelSources | InputError = store[key]
    return found


def upload_sources() -> LabelSources | None:
    """The label sources of the session's upload: its judgment files when there are several
    (:func:`judgment_files`), else its label column and the other label columns chosen
    (:data:`~ui.shell.keys.W_LABEL_COLUMNS`, by default those guessed); ``None`` with fewer
    than two, or when they cannot be read (the Labels page says why)."""
    if judgment_files():
        files = _file_sources()
        return files if isinstance(files, LabelSources) else None
    found = labelled_table()
    if found is None:
        return None
    table, label = found
    chosen = st.session_state.get(keys.W_LABEL_COLUMNS)
    if chosen is None:
        chosen = upload_label_columns(table, label)
    others = [c for c in chosen if c != label and c in table.frame.columns]
    if not others:
        return None
    store = st.session_state.setdefault(keys.LABEL_SOURCES, {})
    key = ("sources", table_id(table), label, tuple(others))
    if key not in store:
        try:
            store[key] = sources_from_columns(table, [label, *others])
        except InputError as exc:
            store[key] = exc
    sources = store[key]
    return sources if isinstance(sources, LabelSources) else None


def upload_problem() -> InputError | None:
    """Why the upload's judgment files, or its chosen label columns, could not be read as
    sources, if they could not."""
    if judgment_files():
        files = _file_sources()
        return files if isinstance(files, InputError) else None
    store = st.session_state.get(keys.LABEL_SOURCES, {})
    found = labelled_table()
    chosen = st.session_state.get(keys.W_LABEL_COLUMNS)
    if found is None or chosen is None:
        return None
    table, label = found
    others = tuple(c for c in chosen if c != label and c in table.frame.columns)
    problem = store.get(("sources", table_id(table), label, others))
    return problem if isinstance(problem, InputError) else None


def sources_of(data: str) -> LabelSources | None:
    """The label sources of the data choice ``data`` (a sample's name, ``upload``, ...), or
    ``None`` when it has one set of judgments."""
    if data in sample_names():
        return sample_label_sources(data)
    if data == _UPLOAD:
        return upload_sources()
    return None


def choices(sources: LabelSources) -> list[str]:
    """The menu of the ``label_source`` policy: the sources, then the aggregates (a source
    named like an aggregate hides it)."""
    return [*sources.names, *(a for a in AGGREGATES if a not in sources.names)]


def choice_text(value: str, lang: str) -> str:
    """A choice of the menu as shown: a source by its name, an aggregate in words."""
    if value in AGGREGATES:
        return translate(f"policy.label_source.name.{value}", lang)
    return value


def known(sources: LabelSources | None, choice: str | None) -> bool:
    """Whether ``choice`` is a label source of ``sources`` or an aggregate of them."""
    return choice is None or (sources is not None and choice in choices(sources))


def labelled(dataset: Dataset, sources: LabelSources | None, settings: Settings) -> Dataset:
    """``dataset`` with the judgments of ``settings.label_source`` (cached on its content hash
    and the choice); the data set as loaded for the first source, or for a choice that is not
    one of ``sources`` (the sidebar says so)."""
    choice = settings.label_source
    if sources is None or choice is None or choice == sources.names[0]:
        return dataset
    if not known(sources, choice):
        return dataset
    result: Dataset = memo.cached(
        dataset.content_hash,
        ("label_source", choice, sources.fingerprint),
        lambda: under_label_source(dataset, sources, settings),
    )
    return result


__all__ = [
    "choice_text",
    "choices",
    "file_source_names",
    "judgment_files",
    "known",
    "labelled",
    "labelled_table",
    "sample_label_sources",
    "sources_of",
    "table_id",
    "upload_label_columns",
    "upload_problem",
    "upload_sources",
]
