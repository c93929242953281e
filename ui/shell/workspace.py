"""A workspace per browser: the session's uploads, hand-built lists, data set and settings, kept
in the store (:mod:`metrics.store`) and brought back after a reload or a server restart.

The workspace's key is an unguessable token (:func:`metrics.store.create_workspace`) that the
browser keeps in a cookie (:data:`COOKIE`), written by a small component of this module and sent
by the browser when it opens the app's connection, where :func:`begin` reads it
(``st.context.cookies``). The key is never put in the link, a log, a message, an export or a
review link. A browser without the cookie has no workspace until its first change: an upload, an
edit of the hand-built lists or a change of the settings (:func:`save` creates one then).

``frame.run_app`` calls :func:`begin` before the page (on a session's first run it restores the
workspace: its link parameters when the address has none, the hand-built lists unless the link
brings its own, and the upload, whose data set is built again) and :func:`save` after it (when
the session's state differs from the last one saved). A refusal of the store (its quotas) is
shown in the sidebar in the session's language (:func:`refusal`), and the page goes on without
saving.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

import streamlit as st

from metrics.errors import InputError, NotFoundError, StoreError
from ui.shell import handbuilt, keys
from ui.shell.i18n import has, t
from ui.shell.safe import md_escape
from ui.shell.workspace_codec import (
    REVIEW_PARAM,
    SessionState,
    Upload,
    decode,
    encode,
    signature,
    upload_signature,
)

if TYPE_CHECKING:  # the store (and the review package it imports) is imported when first used,
    # not by the first page of a browser without a workspace
    from metrics.store import Store, StoreConfig

log = logging.getLogger("ranking_metrics.workspace")

#: The cookie holding the workspace's key (written by the browser's script, so not HttpOnly).
COOKIE = "ranking_metrics_workspace"
#: How long the browser keeps it (400 days, the longest browsers allow); the store removes a
#: workspace unused for ``RANKING_METRICS_RETENTION_DAYS`` on its own.
COOKIE_SECONDS = 400 * 86400

_stores: dict[StoreConfig, Store] = {}
_stores_lock = threading.Lock()


def app_store() -> Store:
    """The store the environment names (``RANKING_METRICS_HOME``, ``RANKING_METRICS_DB``),
    opened once per process and shared by its sessions.

    Raises
    ------
    StoreError
        When the environment's settings are not valid or the catalog cannot be opened.
    """
    from metrics.store import Store, StoreConfig

    config = StoreConfig.from_environ()
    with _stores_lock:
        found = _stores.get(config)
        if found is None:
            found = _stores[config] = Store(config)
        return found


# --------------------------------------------------------------------------- refusals


def refusal(error: StoreError, **names: str) -> str:
    """A refusal of the store in the session's language: what is refused and the fix
    (``store.message.<code>``, ``store.fix.<code>``; the error's English without a code).
    ``names`` word parameters the store gives in English (``first``, ``second``: the two
    versions of ``judgments_differ``)."""
    from metrics.store.messages import size_text

    code = error.code
    if code is None or not has(f"store.message.{code}"):
        return str(error)
    values: dict[str, Any] = dict(error.params)
    for name, value in error.params.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            values[f"{name}_text"] = size_text(value)  # the sizes of the quota messages
    what = str(values.get("what", "")).replace(" ", "_")
    if has(f"store.what.{what}"):  # project, version, table, ...
        values["what"] = t(f"store.what.{what}")
    values.update(names)
    try:
        message = t(f"store.message.{code}", **values)
        return t("store.refusal", message=message, fix=t(f"store.fix.{code}", **values))
    except (KeyError, IndexError, ValueError):  # a parameter the wording lacks
        return str(error)


def _problem(error: StoreError) -> None:
    """Keep a refusal to show in the sidebar (the save was not done)."""
    st.session_state[keys.WORKSPACE_PROBLEM] = refusal(error)


# --------------------------------------------------------------------------- the key


def token() -> str | None:
    """The session's workspace key (``None`` before its first change)."""
    found = st.session_state.get(keys.WORKSPACE_TOKEN)
    return found if isinstance(found, str) else None


def _cookie_token() -> str | None:
    try:
        found = st.context.cookies.get(COOKIE)
    except Exception:  # no connection (a test's run): no cookie
        return None
    if not isinstance(found, str):
        return None
    from metrics.store.hashing import is_token

    return found if is_token(found) else None


_COOKIE_WRITER = st.components.v2.component(
    "workspace_key",
    js="""
export default function ({ data }) {
  if (!data || !data.name || !/^[A-Za-z0-9_-]+$/.test(data.value || "")) return;
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${data.name}=${data.value}; Path=/; Max-Age=${data.age}; SameSite=Strict`
    + secure;
}
""",
)
_HIDE = (
    f"<style>.st-key-{keys.WORKSPACE_COOKIE} {{position: absolute !important; left: -10000px;"
    " top: 0; width: 10px; height: 10px; overflow: hidden; visibility: hidden;}</style>"
)


def _write_cookie(key: str) -> None:
    """Send the browser the component that keeps ``key`` in its cookie (out of sight)."""
    with st.container(key=keys.WORKSPACE_COOKIE):
        st.html(_HIDE)
        _COOKIE_WRITER(
            key=keys.WORKSPACE_COOKIE_COMPONENT,
            data={"name": COOKIE, "value": key, "age": COOKIE_SECONDS},
        )


def ensure_token() -> str:
    """The session's workspace key, a new workspace's when it has none yet (saved at the end of
    the run).

    Raises
    ------
    StoreError
        When the store cannot be opened or written.
    """
    from metrics.store import create_workspace

    found = token()
    if found is not None:
        return found
    made = create_workspace(app_store())
    state = st.session_state
    state[keys.WORKSPACE_TOKEN] = made
    state[keys.WORKSPACE_FROM_COOKIE] = False
    state.pop(keys.WORKSPACE_SAVED, None)
    _write_cookie(made)
    return made


# --------------------------------------------------------------------------- restore


def begin() -> None:
    """At the start of a page run: restore the workspace on the session's first run, show a
    refusal of the last save, and keep sending the browser its key until it has it."""
    state = st.session_state
    if not state.get(keys.WORKSPACE_READ):
        state[keys.WORKSPACE_READ] = True
        _restore()
    problem = state.get(keys.WORKSPACE_PROBLEM)
    if problem:
        st.sidebar.warning(problem, icon=":material/cloud_off:")
    key = token()
    if key is not None and not state.get(keys.WORKSPACE_FROM_COOKIE):
        _write_cookie(key)


def _restore() -> None:
    from metrics.store import load_workspace

    state = st.session_state
    key = token() or _cookie_token()
    if key is None:
        return
    state[keys.WORKSPACE_FROM_COOKIE] = keys.WORKSPACE_TOKEN not in state
    try:
        saved = load_workspace(app_store(), key)
    except NotFoundError:  # removed after a time without use: a new one on the next change
        state.pop(keys.WORKSPACE_TOKEN, None)
        state[keys.WORKSPACE_FROM_COOKIE] = False
        return
    except StoreError as exc:
        _problem(exc)
        return
    state[keys.WORKSPACE_TOKEN] = key
    restored = decode(saved.tables, saved.settings, saved.active)
    if not any(name != REVIEW_PARAM for name in st.query_params):  # a link decides for itself
        for name, value in restored.params.items():
            st.query_params[name] = value
    if restored.handbuilt is not None and handbuilt.LINK_PARAM not in st.query_params:
        state[keys.HANDBUILT_TABLE] = restored.handbuilt
    if restored.upload is not None:
        _restore_upload(restored.upload)


def _restore_upload(upload: Upload) -> None:
    """The uploaded tables, the Data page's menus, and the data set built again from them."""
    from ui.shell.uploads import build_dataset, keep_built

    state = st.session_state
    tables = {kind: list(found) for kind, found in upload.tables.items()}
    state[keys.UPLOAD_TABLES] = tables
    for name, value in upload.menus.items():
        if keys.is_upload_menu(name):
            state[name] = value
    if upload.mappings is None:
        return
    state[keys.UPLOAD_LABEL_SEEDS] = {n: dict(g) for n, g in upload.label_maps.items()}
    try:
        dataset = build_dataset(tables, upload.mappings, upload.label_maps)
    except InputError:  # the Data page says why when it builds it again
        return
    keep_built(tables, upload.mappings, upload.label_maps, dataset)


# --------------------------------------------------------------------------- save


def session_state() -> SessionState:
    """What the workspace keeps of this session now."""
    state = st.session_state
    view = state.get(keys.VIEW)
    upload = None
    tables = state.get(keys.UPLOAD_TABLES)
    if tables and tables.get("runs"):
        built = state.get(keys.UPLOAD_ROLES)
        upload = Upload(
            tables,
            None if built is None else built[0],
            {} if built is None else built[1],
            {k: state[k] for k in state if isinstance(k, str) and keys.is_upload_menu(k)},
        )
    lists = state.get(keys.HANDBUILT_TABLE)
    if lists is not None and handbuilt.fingerprint(lists) == _STARTER:
        lists = None  # the starter list: nothing of the user's
    return SessionState(
        {k: v for k, v in st.query_params.to_dict().items() if k != REVIEW_PARAM},
        None if view is None else view.data,
        upload,
        lists,
    )


#: The fingerprint of the hand-built list every session starts with.
_STARTER = handbuilt.fingerprint(handbuilt.starter_table())


def _signatures(now: SessionState) -> tuple[str, str]:
    """What the user changed (view, upload, lists) and everything kept (the link too)."""
    from ui.shell.view import to_query_params

    view = st.session_state.get(keys.VIEW)
    changed = signature(
        None if view is None else {**to_query_params(view), "data": view.data},
        upload_signature(now.upload),
        None if now.handbuilt is None else handbuilt.fingerprint(now.handbuilt),
    )
    return changed, signature(changed, dict(now.params))


def save() -> None:
    """At the end of a page run: save the session's state when it changed (a browser's first
    change makes its workspace). Never raises: a refusal is shown on the next run."""
    state = st.session_state
    if not state.get(keys.WORKSPACE_READ) or keys.VIEW not in state:
        return
    try:
        now = session_state()
        changed, everything = _signatures(now)
        if keys.WORKSPACE_START not in state:  # the session as it opened: nothing to save
            state[keys.WORKSPACE_START] = changed
            if token() is not None:
                state[keys.WORKSPACE_SAVED] = everything
            return
        if token() is None and changed == state[keys.WORKSPACE_START]:
            return
        if everything in (state.get(keys.WORKSPACE_SAVED), state.get(keys.WORKSPACE_FAILED)):
            return
        from metrics.store import WorkspaceState, save_workspace

        key = ensure_token()
        tables, settings = encode(now)
        save_workspace(app_store(), key, WorkspaceState(tables, now.active, settings))
    except StoreError as exc:
        state[keys.WORKSPACE_FAILED] = everything
        _problem(exc)
        return
    except Exception:  # never a failed page for a save; the server's log says why
        log.exception("The workspace could not be saved")
        return
    state[keys.WORKSPACE_SAVED] = everything
    state.pop(keys.WORKSPACE_FAILED, None)
    state.pop(keys.WORKSPACE_PROBLEM, None)


# --------------------------------------------------------------------------- the Data page


def folder_caption() -> None:
    """Where the store keeps the workspace (``RANKING_METRICS_HOME``), and what it holds."""
    from metrics.store import workspace_info
    from metrics.store.messages import size_text

    try:
        store = app_store()
    except StoreError as exc:
        st.caption(md_escape(refusal(exc)))
        return
    folder = md_escape(str(store.home))
    key = token()
    if key is None:
        st.caption(t("workspace.folder_empty", folder=folder))
        return
    try:
        info = workspace_info(store, key)
    except StoreError as exc:
        st.caption(md_escape(refusal(exc)))
        return
    quota = t("workspace.no_quota") if info.quota is None else size_text(info.quota)
    st.caption(t("workspace.folder", folder=folder, held=size_text(info.bytes), quota=quota))


__all__ = [
    "COOKIE",
    "app_store",
    "begin",
    "ensure_token",
    "folder_caption",
    "refusal",
    "save",
    "session_state",
    "token",
]
