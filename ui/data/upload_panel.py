"""Upload files, see and change the guessed column roles, build the session's data set.

Uploaded bytes and the data set built from them stay in ``st.session_state`` of this browser
session; the browser's workspace (:mod:`ui.shell.workspace`) keeps the tables read, their roles
and label grades, so that a reload or a restarted server builds the same data set again
(:func:`ui.shell.uploads.build_dataset`, :func:`ui.shell.uploads.keep_built`).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pandas as pd
import streamlit as st

from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.canonical import label_words
from metrics.io.dataset import Dataset
from metrics.io.direction import DirectionGuess, guess_direction, table_order
from metrics.io.formats import Kind, LoadedTable, file_stem, load_table
from metrics.io.labels import MAX_TEXT_LABELS, guess_label_map, partial_label_map
from metrics.io.roles import (
    ROLES,
    Doubt,
    Guess,
    RoleMapping,
    Said,
    guess_doubts,
    guess_query_table,
    guess_roles,
)
from metrics.io.source import upload_limits
from ui.shell import compute, frame, keys, label_sources, labels
from ui.shell.i18n import number, t
from ui.shell.label_sources import table_id
from ui.shell.safe import md_escape
from ui.shell.uploads import build_dataset, build_key, error_text, forget_built, keep_built

_NONE = "—"

_ROLES_OF = {"runs": ROLES, "judgments": ("query", "item", "label"), "queries": ("query",)}


def _read(files, kind: Kind | None = None) -> list[LoadedTable]:
    """Uploaded files as tables, read once per file content (errors shown, not raised); the
    uploader's ``kind`` settles layouts that cannot tell runs from judgments (dictionary JSON).

    A file that cannot be read is remembered by its content hash with its message, so reruns
    (every widget change) show the message again without reading the file again.
    """
    cache = st.session_state.setdefault(keys.UPLOAD_CACHE, {})
    cache_keys = st.session_state.setdefault(keys.UPLOAD_KEYS, {})  # an upload's id -> cache key
    tables = []
    for f in files:
        file_id = getattr(f, "file_id", None)
        key = cache_keys.get(file_id) if file_id is not None else None
        if key is None or key[0] != f.name:  # a new upload: hashed once, not on every rerun
            key = (f.name, hashlib.sha256(f.getvalue()).hexdigest(), kind)
            if file_id is not None:
                cache_keys[file_id] = key
        _current_uploads().add(key)
        if key not in cache:
            try:
                cache[key] = load_table(f.getvalue(), f.name, kind=kind, limits=upload_limits())
            except InputError as exc:
                cache[key] = exc
        found = cache[key]
        if isinstance(found, InputError):
            st.error(t("upload.unreadable", message=md_escape(error_text(found))))
            continue
        tables.append(found)
    return tables


def _distinct_names(tables: dict[str, list[LoadedTable]]) -> dict[str, list[LoadedTable]]:
    """The tables, with a file name that repeats (two ``run.csv`` from different folders)
    numbered before its extension (``run (2).csv``): names key the column roles and name the
    models, so each file needs its own."""
    used: set[str] = set()
    out: dict[str, list[LoadedTable]] = {}
    for kind, found in tables.items():
        out[kind] = []
        for table in found:
            name, copy = table.name, 1
            while name in used:
                copy += 1
                stem, dot, extension = table.name.partition(".")
                name = f"{stem} ({copy}){dot}{extension}"
            used.add(name)
            out[kind].append(table if name == table.name else replace(table, name=name))
    return out


def _current_uploads() -> set:
    """Cache keys of the files read in this run (see :func:`_forget_other_uploads`)."""
    return st.session_state.setdefault(keys.UPLOAD_CACHE_CURRENT, set())


def _forget_other_uploads() -> None:
    """Drop tables of files no longer in the uploaders, so a session holds only its current
    files."""
    cache = st.session_state.get(keys.UPLOAD_CACHE, {})
    current = st.session_state.pop(keys.UPLOAD_CACHE_CURRENT, set())
    for key in [k for k in cache if k not in current]:
        del cache[key]
    cache_keys = st.session_state.get(keys.UPLOAD_KEYS, {})
    for file_id in [i for i, key in cache_keys.items() if key not in current]:
        del cache_keys[file_id]


#: Guessed roles kept per table, so that reruns (every widget change) do not read the values
#: again: at most this many tables.
_GUESSES_KEPT = 20


def _guesses(table: LoadedTable, kind: str, judged_elsewhere: bool) -> dict[str, Guess]:
    """The guessed roles of an uploaded table, worked out once per table (see
    :func:`metrics.io.roles.guess_roles`; a query table: :func:`~metrics.io.roles.
    guess_query_table`)."""
    store: dict = st.session_state.setdefault(keys.ROLE_GUESSES, {})
    key = (table_id(table), kind, judged_elsewhere)
    found = store.get(key)
    if found is None or found[0] is not table:
        if kind == "queries":
            guesses = guess_query_table(table.frame)
        else:
            guesses = guess_roles(table.frame, judged_elsewhere=judged_elsewhere and kind == "runs")
        while len(store) >= _GUESSES_KEPT:
            store.pop(next(iter(store)))
        store[key] = found = (table, guesses)
    return found[1]


def _mapping_editor(
    table: LoadedTable, kind: str, judged_elsewhere: bool
) -> tuple[RoleMapping, bool]:
    """Selectboxes for each role, seeded from the guess; returns the chosen mapping, and whether
    a doubtful guess still waits for the user's confirmation. A run's label is guessed from
    column names only while a judgments file is uploaded too (and its seeded choice follows
    that guess until the user picks a label). A guess the values rule out is left empty; a
    guess that is unsure (a close second column, or weak evidence) is seeded but asked about:
    nothing is computed until the user confirms it or picks the role."""
    guesses = _guesses(table, kind, judged_elsewhere)
    roles = _ROLES_OF[kind]
    doubts = {r: d for r, d in guess_doubts(table.frame, guesses).items() if r in roles}
    ruled_out = {r: d for r, d in doubts.items() if d.contradicted}
    guessed = RoleMapping.from_guesses(guesses).with_(**dict.fromkeys(ruled_out))
    columns = [str(c) for c in table.frame.columns]
    tid = table_id(table)
    if ruled_out:
        reasons = t("upload.doubt_separator").join(doubt_reason(d) for d in ruled_out.values())
        st.warning(t("upload.doubtful_guess", reasons=md_escape(reasons)))
    chosen: dict[str, str | None] = {}
    cols = st.columns(len(roles) if len(roles) > 1 else 2)
    for i, role in enumerate(roles):
        key = keys.role_menu(tid, role)
        guess = getattr(guessed, role)
        if role == "label" and kind == "judgments" and guess is None:
            guess = guessed.score
        seeded = guess if guess in columns else _NONE
        if key not in st.session_state or (
            st.session_state.get(keys.seeded(key)) and st.session_state[key] != seeded
        ):
            st.session_state[key] = seeded
            st.session_state[keys.seeded(key)] = True
        value = cols[i].selectbox(
            t(f"role.{role}"),
            [_NONE, *columns],
            key=key,
            help=guess_reason(guesses[role], role) if role in guesses else None,
            on_change=_one_role_per_column,
            args=(tid, role, roles),
        )
        chosen[role] = None if value == _NONE else value
    pending = _ask_to_confirm(tid, {r: d for r, d in doubts.items() if r not in ruled_out})
    segments: tuple[str, ...] = ()
    if kind in ("runs", "queries"):
        key = keys.segment_menu(tid)
        taken = {v for v in chosen.values() if v}
        options = [c for c in columns if c not in taken]
        default = (
            guessed.segments[:SEGMENTS_CHOSEN]
            if kind == "runs"
            else tuple(c for c in columns if c != chosen.get("query"))
        )
        if key not in st.session_state:
            st.session_state[key] = [c for c in default if c in options]
        else:
            st.session_state[key] = [c for c in st.session_state[key] if c in options]
        segment_reasons = [
            guess_reason(g, "segments") for k, g in guesses.items() if k.startswith("segment:")
        ]
        segments = tuple(
            st.multiselect(
                t("role.segments"), options, key=key, help="\n\n".join(segment_reasons) or None
            )
        )
        proposed = [g.column for k, g in guesses.items() if k.startswith("segment:")]
        if proposed:
            shown = md_escape(", ".join(proposed))
            st.caption(t("upload.proposed_segments", columns=shown, n=len(proposed)))
    return RoleMapping(**chosen, segments=segments), pending


#: Proposed segment columns of a run chosen at first (the Segments page compares by at most
#: two at once).
SEGMENTS_CHOSEN = 2


def _ask_to_confirm(tid: str, asked: dict[str, Doubt]) -> bool:
    """Say why the unsure guesses still in their menus are in doubt, with a box to confirm
    them; ``True`` while one waits (the user has neither confirmed nor picked the role)."""
    waiting = {
        r: d for r, d in asked.items() if st.session_state.get(keys.seeded(keys.role_menu(tid, r)))
    }
    if not waiting:
        return False
    reasons = t("upload.doubt_separator").join(doubt_reason(d) for d in waiting.values())
    st.warning(t("upload.unsure_guess", reasons=md_escape(reasons)))
    return not st.checkbox(t("upload.confirm_roles"), key=keys.roles_ok(tid))


def guess_reason(guess: Guess, role: str) -> str:
    """Why a column was guessed for ``role``, in the session's language (``guess.<code>``)."""
    params = {k: number(v) if isinstance(v, int) else v for k, v in guess.params.items()}
    count = guess.params.get("lists", guess.distinct)
    return t(
        f"guess.{guess.code}",
        column=guess.column,
        role=t(f"role.{role}"),
        **params,
        n=count,
        distinct=number(guess.distinct),
    )


def doubt_reason(doubt: Doubt) -> str:
    """Why a guess was left out or is asked about, in the session's language
    (``doubt.<code>``, with what the values say: ``said.<code>``)."""
    said = [said_text(s) for s in doubt.said]
    return t(
        f"doubt.{doubt.code}",
        role=t(f"role.{doubt.role}"),
        column=doubt.column,
        other=doubt.other or "",
        values=doubt.values,
        rows=number(doubt.rows),
        said=t("said.separator").join(said),
    )


def said_text(said: Said) -> str:
    """What the values say about a column, in the session's language (``said.<code>``)."""
    params: dict[str, object] = {}
    for name, value in said.params.items():
        if name == "share" and isinstance(value, float):
            params[name] = f"{value:.0%}"
        else:
            params[name] = number(value) if isinstance(value, int) else value
    return t(f"said.{said.code}", **params, n=said.params.get("distinct", 0))


def _one_role_per_column(tid: str, changed: str, roles: tuple[str, ...]) -> None:
    """A column chosen for one role is taken away from the other roles of the table."""
    st.session_state.pop(
        keys.seeded(keys.role_menu(tid, changed)), None
    )  # the user's choice from now on
    value = st.session_state[keys.role_menu(tid, changed)]
    if value == _NONE:
        return
    for role in roles:
        key = keys.role_menu(tid, role)
        if role != changed and st.session_state.get(key) == value:
            st.session_state[key] = _NONE
            st.session_state.pop(keys.seeded(key), None)


def _uploaded_tables() -> dict[str, list[LoadedTable]] | None:
    """The file choosers; the tables read from the chosen files, or kept from an earlier upload
    (with a button to forget them); ``None`` before any upload."""
    layout = "{" + t("column.query") + ": {" + t("column.item") + ": " + t("column.score") + "}}"
    st.caption(t("upload.formats", example=layout))
    c1, c2, c3 = st.columns(3)
    runs = c1.file_uploader(
        t("upload.runs"), accept_multiple_files=True, key="up_runs", help=t("upload.runs_help")
    )
    judgments = c2.file_uploader(
        t("upload.judgments"),
        accept_multiple_files=True,
        key="up_judgments",
        help=t("upload.judgments_help"),
    )
    queries = c3.file_uploader(t("upload.queries"), key="up_queries", help=t("upload.queries_help"))
    stored: dict[str, list[LoadedTable]] | None = st.session_state.get(keys.UPLOAD_TABLES)
    if runs:
        tables = _distinct_names(
            {
                "runs": _read(runs, "run"),
                "judgments": _read(judgments, "qrels") if judgments else [],
                "queries": _read([queries]) if queries else [],
            }
        )
        _forget_other_uploads()
        st.session_state[keys.UPLOAD_TABLES] = tables
        return tables
    if stored:
        st.info(
            t("upload.kept", files=md_escape(", ".join(x.name for k in stored for x in stored[k])))
        )
        if st.button(t("upload.forget"), key="btn_forget_upload"):
            st.session_state.pop(keys.UPLOAD_TABLES, None)
            forget_built()
            st.rerun()
        return stored
    st.info(t("upload.empty"))
    return None


def _label_words(table: LoadedTable, column: str) -> tuple[dict[str, int], int]:
    """The text labels of a label column with the rows holding each, and the rows without a
    label (:func:`metrics.io.canonical.label_words`), found once per table and column (reruns ask
    on every widget change)."""
    store: dict = st.session_state.setdefault(keys.LABEL_TEXTS, {})
    key = (table_id(table), column)
    found = store.get(key)
    if found is None or found[0] is not table:
        while len(store) >= _GUESSES_KEPT:
            store.pop(next(iter(store)))
        store[key] = found = (table, label_words(table, column))
    words: tuple[dict[str, int], int] = found[1]
    return words


def _label_mapping_editor(
    table: LoadedTable, column: str | None
) -> tuple[dict[str, float] | None, bool]:
    """The grades of a label column written as text, in an editable table seeded with the
    guess of a known scale (none / partial / good / perfect, relevant / not relevant, clicked /
    not clicked, ...) with the rows holding each word, the rows without a label (unjudged), and
    a box that confirms them: the mapping, and whether it still waits (a value without a grade,
    or not yet confirmed). ``None`` and ``False`` when the labels are numbers."""
    if column is None or column not in table.frame.columns:
        return None, False
    counts, missing = _label_words(table, column)
    texts = list(counts)
    if not texts:
        return None, False
    if len(texts) > MAX_TEXT_LABELS:  # ids or free text, not labels: validation says so
        return None, False
    tid = table_id(table)
    start = guess_label_map(texts) or partial_label_map(texts)
    kept = st.session_state.get(keys.UPLOAD_LABEL_SEEDS, {}).get(table.name, {})
    start = {**start, **{v: g for v, g in kept.items() if v in texts}}  # a restored workspace's
    st.markdown(t("upload.labels.title", column=md_escape(column), n=len(texts)))
    edited = st.data_editor(
        pd.DataFrame(
            {
                "value": texts,
                "grade": [start.get(v) for v in texts],
                "rows": [counts[v] for v in texts],
            }
        ),
        key=keys.label_values(tid, column),
        hide_index=True,
        disabled=["value", "rows"],
        column_config={
            "value": st.column_config.TextColumn(t("upload.labels.value")),
            "grade": st.column_config.NumberColumn(t("upload.labels.grade")),
            "rows": st.column_config.NumberColumn(t("upload.labels.rows"), format="localized"),
        },
    )
    if missing:
        st.caption(t("upload.labels.empty", n=missing, count=number(missing)))
    grades = {str(v): float(g) for v, g in zip(edited["value"], edited["grade"]) if pd.notna(g)}
    unmapped = [v for v in texts if v not in grades]
    if unmapped:
        shown = ", ".join(f"'{v}'" for v in unmapped[:5])
        st.warning(t("upload.labels.missing", values=md_escape(shown), n=len(unmapped)))
        return None, True
    confirmed = st.checkbox(t("upload.labels.confirm"), key=keys.labels_ok(tid))
    return grades, not confirmed


def _source_name_editor(table: LoadedTable, files: list[LoadedTable]) -> None:
    """The label source name of one of several judgment files (its file name without
    extensions at first), and the name it takes when that one is empty or taken."""
    key = keys.source_name(table_id(table))
    st.session_state.setdefault(key, file_stem(table.name))
    given = st.text_input(t("upload.source_name"), key=key, help=t("upload.source_name_help"))
    used = label_sources.file_source_names(files)[files.index(table)]
    if used != given.strip():
        st.caption(t("upload.source_name_used", name=md_escape(used)))


def _role_mappings(
    tables: dict[str, list[LoadedTable]],
) -> tuple[dict[str, RoleMapping], dict[str, dict[str, float]], str | None]:
    """One column-role editor (and a preview) per uploaded table, with the grades of labels
    written as text; and what waits for confirmation: ``"roles"`` (a doubtful guess),
    ``"labels"`` (a label mapping) or ``None``."""
    st.subheader(t("upload.mapping"))
    mappings: dict[str, RoleMapping] = {}
    label_maps: dict[str, dict[str, float]] = {}
    pending: str | None = None
    several = len(tables["judgments"]) > 1
    if several:
        first = tables["judgments"][0].name
        st.caption(t("upload.judgments_sources", first=md_escape(first)))
    for kind in ("runs", "judgments", "queries"):
        for table in tables[kind]:
            with st.expander(
                t(
                    "upload.columns_of",
                    name=md_escape(table.name),
                    kind=t(f"upload.kind.{kind}"),
                    format=table.format,
                ),
                expanded=True,
            ):
                if kind == "judgments" and several:
                    _source_name_editor(table, tables["judgments"])
                mapping, waiting = _mapping_editor(table, kind, bool(tables["judgments"]))
                mappings[table.name] = mapping
                grades, unsure = _label_mapping_editor(table, mapping.label)
                if grades is not None:
                    label_maps[table.name] = grades
                if waiting:
                    pending = "roles"
                elif unsure and pending is None:
                    pending = "labels"
                st.dataframe(table.frame.head(5), width="stretch", hide_index=True)
    return mappings, label_maps, pending


def upload_panel() -> Dataset | None:
    """The upload section of the Data page; returns the session's uploaded data set, if any."""
    tables = _uploaded_tables()
    if tables is None or not tables["runs"]:
        return None
    mappings, label_maps, pending = _role_mappings(tables)
    if pending:  # nothing is computed, not even from files uploaded before
        st.info(t("upload.confirm_first" if pending == "roles" else "upload.labels.confirm_first"))
        forget_built()
        return None
    key = build_key(tables, mappings, label_maps)
    if (
        st.session_state.get(keys.UPLOAD_BUILD_KEY) == key
        and keys.UPLOAD_DATASET in st.session_state
    ):
        kept: Dataset = st.session_state[keys.UPLOAD_DATASET]
        score_orders(tables["runs"], mappings, kept)
        return kept
    previous: Dataset | None = st.session_state.get(keys.UPLOAD_DATASET)
    view = st.session_state.get(keys.VIEW)

    def warm(built: Dataset) -> None:
        """Rank the new data set and compute the Curves page's first results while it is
        validated and shown (refused data: the results are never asked for)."""
        if view is not None and (previous is None or previous.content_hash != built.content_hash):
            compute.warm(built, view.settings(), view.measures, view.k_range)

    try:
        dataset = build_dataset(tables, mappings, label_maps, on_built=warm)
    except InputError as exc:
        st.error(t("upload.error", message=md_escape(error_text(exc))))
        forget_built()
        return None
    keep_built(tables, mappings, label_maps, dataset)
    if previous is None or previous.content_hash != dataset.content_hash:
        if view is None or view.averaging == "weighted":
            st.rerun()  # the sidebar offers the new data set's weight columns
        frame.show_dataset(dataset)  # the sidebar shows the new data set at once
    score_orders(tables["runs"], mappings, dataset)
    return dataset


# --------------------------------------------------------------------------- score order


def score_orders(
    runs: list[LoadedTable], mappings: dict[str, RoleMapping], dataset: Dataset
) -> None:
    """For each run file, the score order its columns point to (its ranks, or a score column
    named like a distance): asked, with a button to confirm it, while its models are ranked
    the other way; said once they are ranked that way."""
    view = st.session_state.get(keys.VIEW)
    settings = view.settings() if view is not None else Settings()
    current = {table_id(table) for table in runs}
    found = st.session_state.setdefault(keys.SCORE_ORDER_GUESSES, {})
    for key in [k for k in found if k[0] not in current]:
        del found[key]  # files no longer uploaded
    for table in runs:
        guess = _direction_of(table, mappings.get(table.name, RoleMapping()))
        models = tuple(dataset.run_sources.get(table.name, ()))
        if guess is None or not models:
            continue
        asked = (table_id(table), guess.order, guess.code)
        if table_order(settings, models) == guess.order:
            if guess.order != Settings.score_order:
                st.caption(_order_set_text(table.name, guess.order))
            continue
        if asked in st.session_state.get(keys.SCORE_ORDER_DISMISSED, set()):
            continue
        st.warning(_order_doubt_text(table.name, guess))
        yes, no = st.columns(2)
        yes.button(
            t(f"upload.order.confirm.{guess.order}"),
            key=f"btn_order_{asked[0]}",
            on_click=set_score_order,
            args=(models, guess.order, len(runs) == 1),
            type="primary",
        )
        no.button(
            t("upload.order.keep"),
            key=f"btn_order_keep_{asked[0]}",
            on_click=lambda asked=asked: st.session_state.setdefault(
                keys.SCORE_ORDER_DISMISSED, set()
            ).add(asked),
        )


def _direction_of(table: LoadedTable, roles: RoleMapping) -> DirectionGuess | None:
    """:func:`~metrics.io.direction.guess_direction` of a run file under its roles, found once
    per file and roles (page runs ask again on every widget change)."""
    found = st.session_state.setdefault(keys.SCORE_ORDER_GUESSES, {})
    key = (table_id(table), roles.score, roles.rank, roles.query, roles.model)
    if key not in found:
        found[key] = guess_direction(table.frame, roles.score, roles.rank, roles.query, roles.model)
    guess: DirectionGuess | None = found[key]
    return guess


def _order_doubt_text(file: str, guess: DirectionGuess) -> str:
    """Why a score order is proposed for a file, in the session's language."""
    values = {"file": md_escape(file), "column": md_escape(guess.column), "share": guess.share}
    if guess.code == "ranks":
        return t(f"upload.order.ranks.{guess.order}", **values)
    return t("upload.order.name", **values)


def _order_set_text(file: str, order: str) -> str:
    return t(
        "upload.order.set",
        file=md_escape(file),
        order=labels.policy_name("score_order", order),
        setting=labels.policy_label("score_order"),
    )


def set_score_order(models: tuple[str, ...], order: str, every_model: bool) -> None:
    """Rank ``models`` by ``order``: the score order of every model when they are all the data
    set's (one run file), else theirs alone (the sidebar's models ranked the other way)."""
    state = st.session_state
    others = [m for m in state.get(keys.sidebar_key("score_order_by_model"), []) if m not in models]
    if every_model:
        frame.set_sidebar("score_order", order)
        frame.set_sidebar("score_order_by_model", others)
        return
    other_way = order != state.get(keys.sidebar_key("score_order"), Settings.score_order)
    frame.set_sidebar("score_order_by_model", others + (list(models) if other_way else []))
