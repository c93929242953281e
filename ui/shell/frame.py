"""The frame every page calls: navigation, sidebar (data set, settings, language), URL sync.

A page is a script that starts with::

    from ui.shell import frame
    ctx = frame.page("curves")

:func:`page` works whether the script was started by ``app.py``'s ``st.navigation`` or run
directly by Streamlit (a deep link on a fresh server can start a file of ``pages/`` without the
entrypoint): in the second case it builds the navigation itself and runs the page through it.
"""

from __future__ import annotations

import contextvars
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from metrics.engine.settings import POLICIES, Settings
from metrics.errors import MeasureError, MetricsError
from metrics.io.dataset import Dataset
from metrics.io.direction import opposite
from metrics.io.samples import sample_names
from ui.shell import compute, handbuilt, keys, label_sources, warm_up, workspace
from ui.shell.i18n import LANGUAGES, current_language, number, option_text, t
from ui.shell.labels import measure_label, measure_text, policy_help, policy_label
from ui.shell.pages_registry import PAGES, page_def
from ui.shell.safe import md_escape
from ui.shell.upload_fix import keep_upload_answers
from ui.shell.view import (
    HANDBUILT,
    K_LIMIT,
    MAIN_POLICIES,
    MENU_POLICIES,
    MORE_POLICIES,
    UPLOAD,
    URL_NAMES,
    View,
    bounded_params,
    curve_measure_names,
    from_query_params,
    gain_map_problem,
    to_query_params,
)
from ui.shell.workspace_codec import REVIEW_PARAM

#: Data choice of a per-query results table (ui/shell/per_query_panel.py).
PER_QUERY = "per_query"

ROOT = Path(__file__).resolve().parents[2]

log = logging.getLogger("ranking_metrics.frame")
keep_upload_answers()  # a file chosen as a page run starts is not dropped (ui/shell/upload_fix.py)

_inside_navigation: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "inside_navigation", default=False
)
#: The sidebar's data set box of the page run under way (see :func:`show_dataset`).
_dataset_slot: contextvars.ContextVar[DeltaGenerator | None] = contextvars.ContextVar(
    "dataset_slot", default=None
)


@dataclass
class PageContext:
    """What a page gets from the frame.

    Attributes
    ----------
    key:
        The page key (``"curves"``).
    view:
        Data choice and settings shared by all pages.
    settings:
        Engine settings built from the view.
    dataset:
        The active data set, or ``None`` when there is none (an upload link opened elsewhere).
    """

    key: str
    view: View
    settings: Settings
    dataset: Dataset | None

    def require_dataset(self) -> Dataset:
        """The active data set; shows a hint and stops the page when there is none."""
        if self.dataset is None or len(self.dataset.run) == 0:
            st.info(t("frame.no_dataset"))
            st.page_link(
                str(ROOT / page_def("data").path), label=t("page.data"), icon=page_def("data").icon
            )
            st.stop()
        return self.dataset


# --------------------------------------------------------------------------- navigation


def navigation_pages() -> list:
    """``st.Page`` objects of :data:`~ui.shell.pages_registry.PAGES`, titles in the session
    language.

    The root URL is a hidden page that forwards to the first registered page (with the query
    parameters), so every page, the first one included, has its own deep link.
    """
    pages = [
        st.Page(ROOT / p.path, title=t(f"page.{p.key}"), icon=p.icon, url_path=p.url_path)
        for p in PAGES
    ]
    first = pages[0]

    def forward() -> None:
        st.switch_page(first, query_params=dict(st.query_params))

    home = st.Page(
        forward, title=t(f"page.{PAGES[0].key}"), url_path="home", default=True, visibility="hidden"
    )
    return [home, *pages]


@dataclass(frozen=True)
class Above:
    """What ``app.py`` hands the frame from above the wings (:mod:`ui.server_start`): the page
    of a review link and the server's warm-up, which read the wings that the shell does not
    import."""

    review_link: Callable[[], None]
    warm_up: Callable[[], None]


#: The parts last handed over (a page file run directly finds them here).
_above: Above | None = None


def keep_above(above: Above) -> None:
    """Keep what the app hands the frame from above the wings: ``app.py`` on every run, and the
    server's start-up hook before any run (so that a page file a fresh server runs directly,
    without ``app.py``, finds it too)."""
    global _above
    _above = above


def run_app(above: Above | None = None) -> None:
    """Build the navigation and run the selected page (the body of ``app.py``, which gives
    ``above``)."""
    if above is not None:
        keep_above(above)
    st.set_page_config(page_title=t("app.title"), page_icon=":material/leaderboard:", layout="wide")
    if REVIEW_PARAM in st.query_params and _above is not None:  # a review link: read only
        _above.review_link()
        return
    workspace.begin()  # the browser's workspace, restored on the session's first run
    _init_session()
    selected = st.navigation(navigation_pages())
    token = _inside_navigation.set(True)
    try:
        run_guarded(selected.run)
    finally:
        _inside_navigation.reset(token)
        workspace.save()  # when the page changed the session's data or settings
    if _above is not None:  # once per server, after its first page run (not a switch or stop)
        warm_up.start(_above.warm_up)


def run_guarded(body) -> None:
    """Run a page body; any failure becomes a short message, never a traceback.

    A :class:`~metrics.errors.MetricsError` (unusable input, an unknown measure, a setting out of
    range) is shown with its own message. Any other exception is shown as an error id; its
    traceback goes to the server log only, under that id. Streamlit's own control flow
    (``st.stop``, ``st.rerun``, ``st.switch_page``) is not an ``Exception`` and passes through.
    """
    try:
        body()
    except MeasureError as exc:  # a measure that cannot be computed on these data
        st.error(t("frame.measure_error", message=md_escape(exc)))
    except MetricsError as exc:
        st.error(t("frame.input_error", message=md_escape(exc)))
    except Exception:
        error_id = secrets.token_hex(4)
        log.exception("Page failed (error id %s)", error_id)
        st.error(t("frame.unexpected_error", error_id=error_id))


# --------------------------------------------------------------------------- page


def page(key: str) -> PageContext:
    """Lay out the frame for page ``key`` and return the shared context.

    Call it first in every page script. When the script was started without ``app.py`` it runs
    the app's navigation instead (which runs this page again, inside the frame) and stops.
    """
    page_def(key)
    _dataset_slot.set(None)
    if not _inside_navigation.get():
        run_app()
        st.stop()
    _init_session()
    view = _sidebar()
    _presenter()
    _link_refused()
    st.html(_PHONE_CSS)
    st.session_state[keys.VIEW] = view
    _sync_url(view)
    settings = view.settings()
    if view.data == HANDBUILT:  # ranked by their positions: no score order applies
        settings = settings.with_(score_order="descending", score_order_by_model=())
    return PageContext(key, view, settings, active_dataset(view))


def _init_session() -> None:
    """Seed the view from the URL on a session's first run; keep widget values across pages."""
    state = st.session_state
    if keys.VIEW not in state:
        _refuse_long_params()
        view = from_query_params(dict(st.query_params))
        state[keys.VIEW] = view
        _seed_widgets(view)
    for name in [k for k in state if isinstance(k, str) and k.startswith(keys.WIDGET_PREFIX)]:
        state[name] = state[name]  # a value set by code survives pages that lack the widget
    state[keys.LANG] = state.get(keys.W_LANG, state[keys.VIEW].lang)


def _refuse_long_params() -> None:
    """Take the parameters out of the link that are beyond the bounds every page reads a link
    in (:func:`~ui.shell.view.bounded_params`), before any page reads them; their names are
    shown by :func:`_link_refused`."""
    _, refused = bounded_params(st.query_params.to_dict())
    for name in refused:
        st.query_params.pop(name, None)
    if refused:
        st.session_state[keys.LINK_REFUSED] = refused


def _link_refused() -> None:
    """The message naming the link's refused parameters, on the page the link opened."""
    refused = st.session_state.pop(keys.LINK_REFUSED, None)
    if refused:
        names = ", ".join(md_escape(name[:40]) for name in refused[:5])
        st.warning(t("frame.link_refused", names=names, n=len(refused)))


def _seed_widgets(view: View) -> None:
    state = st.session_state
    state[keys.W_LANG] = view.lang
    if view.data in (UPLOAD, HANDBUILT, PER_QUERY):
        state[keys.W_SOURCE] = view.data
    else:
        state[keys.W_SOURCE] = "sample"
        state[keys.W_SAMPLE] = view.data if view.data in sample_names() else "web_search"
        if view.data not in sample_names():
            state[keys.MISSING_DATA] = view.data
    state[keys.W_MEASURES] = list(view.measures)
    state[keys.W_K] = tuple(view.k_range)
    state[keys.W_REL] = float(view.relevance_level)
    for field in MENU_POLICIES:
        state[keys.policy_widget(field)] = getattr(view, field)
    state[keys.W_MAX_RESULTS] = view.max_results or 0
    state[keys.W_GAIN_MAP] = view.gain_map or ""
    state[keys.W_SCORE_ORDER_MODELS] = view.other_way_models()
    if view.label_source is not None:
        state[keys.policy_widget("label_source")] = view.label_source
    if view.weight_column:
        state[keys.W_WEIGHT_COLUMN] = view.weight_column


def data_choice() -> str:
    """``web_search`` (a sample name), ``upload`` or ``handbuilt``, from the Data page widgets."""
    source = st.session_state.get(keys.W_SOURCE, "sample")
    if source in (UPLOAD, HANDBUILT, PER_QUERY):
        return source
    return st.session_state.get(keys.W_SAMPLE, "web_search")


def active_dataset(view: View) -> Dataset | None:
    """The data set the view points at, with the judgments of its label source
    (:mod:`ui.shell.label_sources`), or ``None``."""
    dataset = _loaded_dataset(view)
    if dataset is None:
        return None
    return label_sources.labelled(dataset, label_sources.sources_of(view.data), view.settings())


def _loaded_dataset(view: View) -> Dataset | None:
    """The data set the view points at as loaded, or ``None``."""
    if view.data in sample_names():
        return compute.sample_dataset(view.data)
    if view.data == UPLOAD:
        return st.session_state.get(keys.UPLOAD_DATASET)
    if view.data == HANDBUILT:
        return handbuilt.session_dataset()
    if view.data == PER_QUERY:
        return st.session_state.get(keys.PER_QUERY_DATASET)
    return None


def set_sidebar(field: str, value: object) -> None:
    """Set the sidebar widget of the ``Settings`` field ``field`` (its key:
    :func:`ui.shell.keys.sidebar_key`)."""
    st.session_state[keys.sidebar_key(field)] = value


def _sidebar() -> View:
    side = st.sidebar
    side.selectbox(
        t("frame.language"), list(LANGUAGES), format_func=LANGUAGES.__getitem__, key=keys.W_LANG
    )
    st.session_state[keys.LANG] = st.session_state[keys.W_LANG]
    data = data_choice()
    view_before: View = st.session_state[keys.VIEW]
    dataset = active_dataset(view_before.with_(data=data))
    _dataset_box(side, data, dataset)
    side.subheader(t("frame.settings"))
    options = curve_measure_names()
    lang = current_language()  # menus format their options later, outside this run
    side.multiselect(
        t("frame.measures"),
        options,
        key=keys.W_MEASURES,
        format_func=lambda name: measure_label(name, lang),
        help="\n\n".join(f"**{n}** — {measure_text(n, 'description')}" for n in options),
    )
    if not st.session_state[keys.W_MEASURES]:
        side.caption(t("frame.no_measure"))
    side.slider(t("frame.k_range"), 1, K_LIMIT, key=keys.W_K, help=t("frame.k_range_help"))
    side.number_input(
        policy_label("relevance_level"),
        min_value=0.0,
        max_value=100.0,
        step=1.0,
        format="%g",
        key=keys.W_REL,
        help=policy_help("relevance_level"),
    )
    label_source = _label_source_menu(side, data)
    handbuilt = data == HANDBUILT
    for field in MAIN_POLICIES:
        _policy_menu(side, field, disabled=field == "score_order" and handbuilt)
        if field == "score_order" and handbuilt:
            side.caption(t("policy.score_order.handbuilt"))
    weight = None
    if st.session_state[keys.W_AVERAGING] == "weighted":
        numeric = _numeric_segments(dataset)
        if numeric:
            weight = side.selectbox(t("frame.weight_column"), numeric, key=keys.W_WEIGHT_COLUMN)
        else:
            side.caption(t("frame.no_weight_column"))
    with side.expander(t("frame.more_settings")):
        for field in MORE_POLICIES:
            _policy_menu(st, field)
        limits = _input_policies()
        other_way = [] if handbuilt else _models_other_way(dataset)
    measures = tuple(st.session_state[keys.W_MEASURES]) or view_before.measures[:1] or ("P",)
    return View(
        data=data,
        measures=measures,
        k_range=tuple(st.session_state[keys.W_K]),
        relevance_level=_level(st.session_state[keys.W_REL]),
        weight_column=weight,
        label_source=label_source,
        lang=st.session_state[keys.W_LANG],
        **{field: st.session_state[keys.policy_widget(field)] for field in MENU_POLICIES},
        **limits,
        score_order_by_model=tuple(
            (m, opposite(st.session_state[keys.W_SCORE_ORDER])) for m in other_way
        ),
    )


def _label_source_menu(side, data: str) -> str | None:
    """The menu of the label source, when the data set has several (the link's ``labels``); the
    source chosen, ``None`` for the first. A link naming a source the data set lacks opens on
    the first, and says so."""
    sources = label_sources.sources_of(data)
    key = keys.policy_widget("label_source")
    if sources is None or len(sources.names) < 2:
        return None
    options = label_sources.choices(sources)
    asked = st.session_state.get(key)
    if asked not in options:
        if asked is not None:
            side.caption(
                t(
                    "policy.label_source.unknown",
                    name=md_escape(asked),
                    first=md_escape(sources.names[0]),
                )
            )
        st.session_state[key] = sources.names[0]
    lang = current_language()
    chosen = side.selectbox(
        policy_label("label_source"),
        options,
        key=key,
        format_func=lambda value: label_sources.choice_text(value, lang),
        help=policy_help("label_source"),
    )
    return None if chosen == sources.names[0] else str(chosen)


def _models_other_way(dataset: Dataset | None) -> list[str]:
    """The models whose scores go the other way from the score order: a menu of the data set's
    models when it has several (or some are chosen already)."""
    state = st.session_state
    chosen = [str(m) for m in state.get(keys.W_SCORE_ORDER_MODELS, [])]
    models = [str(m) for m in (dataset.models if dataset is not None else [])]
    if len(models) < 2 and not chosen:
        return []
    state[keys.W_SCORE_ORDER_MODELS] = chosen
    direction = "higher" if state[keys.W_SCORE_ORDER] == "ascending" else "lower"
    return [
        str(m)
        for m in st.multiselect(
            t(f"policy.score_order_by_model.{direction}"),
            list(dict.fromkeys(models + chosen)),
            key=keys.W_SCORE_ORDER_MODELS,
            help=policy_help("score_order_by_model"),
        )
    ]


class _InputPolicies(TypedDict):
    """The policies typed in rather than chosen from a menu."""

    max_results: int | None
    gain_map: str | None


def _input_policies() -> _InputPolicies:
    """The maximum number of results (0: no limit) and the custom gains, typed in."""
    st.number_input(
        policy_label("max_results"),
        min_value=0,
        max_value=1_000_000,
        step=10,
        key=keys.W_MAX_RESULTS,
        help=t("policy.max_results.help"),
    )
    st.text_input(
        policy_label("gain_map"),
        key=keys.W_GAIN_MAP,
        placeholder="0:0,1:1,2:3,3:7",
        help=t("policy.gain_map.help"),
    )
    limit = int(st.session_state[keys.W_MAX_RESULTS] or 0)
    gains = str(st.session_state[keys.W_GAIN_MAP] or "").strip()
    problem = gain_map_problem(gains) if gains else None
    if problem:
        st.caption(t("policy.gain_map.invalid", problem=problem))
    return {
        "max_results": limit if limit > 0 else None,
        "gain_map": gains if gains and problem is None else None,
    }


#: Keys of containers shown on wide screens only and on narrow ones (a phone) only.
PHONE_HIDDEN, PHONE_ONLY = "wide_only", "phone_only"
#: Narrow screens (a phone, 640 px and less): the containers above, and room above each table
#: for its toolbar (always shown on a touch screen), which otherwise covers the caption above.
_PHONE_CSS = f"""<style>
@media (max-width: 640px) {{
  [class*="st-key-{PHONE_HIDDEN}"] {{ display: none !important; }}
}}
@media (min-width: 641px) {{
  [class*="st-key-{PHONE_ONLY}"] {{ display: none !important; }}
}}
@media (max-width: 640px), (hover: none) {{
  [data-testid="stElementContainer"]:has([data-testid="stDataFrame"]) {{ margin-top: 2.75rem; }}
}}
</style>"""

_PRESENT_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], header[data-testid="stHeader"] {display: none !important;}
[data-testid="stMainBlockContainer"] {max-width: 100% !important; zoom: 1.3;
  padding-top: 1.5rem !important;}
</style>"""


def _presenter() -> None:
    """Presenter mode (``?present=1``): no sidebar, larger text and charts, same view."""
    state = st.session_state
    if keys.W_PRESENT not in state:
        state[keys.W_PRESENT] = st.query_params.get("present") == "1"
    on = st.sidebar.toggle(t("frame.present"), key=keys.W_PRESENT, help=t("frame.present_help"))
    if on:
        st.query_params["present"] = "1"
        st.html(_PRESENT_CSS)
        st.button(
            t("frame.present_exit"),
            key="btn_present_exit",
            icon=":material/close_fullscreen:",
            on_click=lambda: state.update({keys.W_PRESENT: False}),
        )
    elif "present" in st.query_params:
        del st.query_params["present"]


def _policy_menu(where, field: str, disabled: bool = False) -> None:
    """A menu of one policy's values, explained in the session language."""
    where.selectbox(
        policy_label(field),
        list(POLICIES[field].values),
        key=keys.policy_widget(field),
        format_func=option_text(f"policy.{field}."),
        help=policy_help(field),
        disabled=disabled,
    )


def _level(value: float) -> float:
    return int(value) if float(value).is_integer() else float(value)


def _numeric_segments(dataset: Dataset | None) -> list[str]:
    if dataset is None or dataset.segments is None:
        return []
    import pandas as pd

    return [
        c for c in dataset.segment_columns if pd.api.types.is_numeric_dtype(dataset.segments[c])
    ]


def _dataset_box(side, data: str, dataset: Dataset | None) -> None:
    slot = side.empty()
    _dataset_slot.set(slot)
    _fill_dataset_box(slot, dataset)


def show_dataset(dataset: Dataset) -> None:
    """Show a data set built during this page run in the sidebar's box, which was drawn before
    it existed (so the page need not run again to show it)."""
    slot = _dataset_slot.get()
    if slot is not None:
        _fill_dataset_box(slot, dataset)


def describe_in_dataset_box(heading: str, text: str) -> None:
    """Say what a page shows in the sidebar's data set box instead of the data set, in this page
    run (Learn, showing a list of its own: a worked example, a lesson, hand-built lists)."""
    slot = _dataset_slot.get()
    if slot is not None:
        box = slot.container(border=True)
        box.markdown(f"**{heading}**")
        box.text(text)


def _fill_dataset_box(slot: DeltaGenerator, dataset: Dataset | None) -> None:
    box = slot.container(border=True)
    box.markdown(f"**{t('frame.dataset')}**")
    if dataset is None:
        box.caption(t("frame.no_dataset_short"))
        return
    n_queries = compute.query_count(dataset)
    warnings = len(dataset.health.warnings)
    box.text(
        t(
            "frame.dataset_lines",
            name=dataset.name,
            models=", ".join(dataset.models),
            queries=number(n_queries),
            rows=number(len(dataset.run)),
            warnings=number(warnings),
        )
    )


def _sync_url(view: View) -> None:
    """Write the view into the URL (page-specific parameters are left alone)."""
    wanted = to_query_params(view)
    if view.data in (UPLOAD, HANDBUILT):
        wanted["data"] = view.data
    params = st.query_params
    for url in URL_NAMES.values():
        if url in wanted:
            if params.get(url) != wanted[url]:
                params[url] = wanted[url]
        elif url in params:
            del params[url]


def escape(text: object) -> str:
    """User text made safe for Markdown labels (see :func:`ui.shell.safe.md_escape`)."""
    return md_escape(text)
