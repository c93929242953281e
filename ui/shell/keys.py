"""Every key of ``st.session_state`` the app reads or writes, defined once.

Pages and helpers name a session key only through this module: a constant for a fixed key, a
function for a key made from a name (a table, a role, a policy, a lesson). ``w_*`` keys are
settable widgets: the frame re-assigns every one of them at the start of a run
(:data:`WIDGET_PREFIX`), so their values survive pages that do not show the widget. Keys of
buttons, downloads, uploaders, charts, tables and containers (``btn_*``, ``dl_*``, ``up_*``,
``chart_*``, ...) are written where the element is drawn. ``tests/test_state_keys.py`` fails on a
session key written as a literal anywhere else in ``ui/`` and ``pages/``. ``ui/README.md`` says
what each key holds.
"""

from __future__ import annotations

from typing import Final

#: The prefix of settable widgets' keys (re-assigned by the frame on every run).
WIDGET_PREFIX: Final = "w_"

# ------------------------------------------------------------------------------ shell (frame)
#: The last ``View`` (written by the frame on each run).
VIEW: Final = "view"
#: The language code ``ui.shell.i18n.t`` uses.
LANG: Final = "lang"
#: The session's result store (``ui.shell.memo.ResultCache``).
RESULTS: Final = "_results"
#: The browser was asked for the chart, code and formula code (``ui.shell.preload``), and the
#: container that asked.
BROWSER_CODE_ASKED: Final = "_browser_code_asked"
BROWSER_CODE: Final = "browser_code"
BROWSER_CODE_COMPONENT: Final = "browser_code_component"
#: A sample the link named that this server does not have, and the data shown instead.
MISSING_DATA: Final = "missing_data"
MISSING_DATA_FALLBACK: Final = "missing_data_fallback"
#: The parameters of the link this session was opened with that were refused as too long
#: (or too many), named in a message on the first page.
LINK_REFUSED: Final = "link_refused"

#: The browser's workspace (``ui.shell.workspace``): its key, whether the browser sent it (its
#: cookie) or still needs it, whether it was read on this session's first run, the signatures
#: of the session as it opened, as last saved and as last refused, the refusal to show, and
#: the container of the component that writes the cookie.
WORKSPACE_TOKEN: Final = "_workspace_token"
WORKSPACE_FROM_COOKIE: Final = "_workspace_from_cookie"
WORKSPACE_READ: Final = "_workspace_read"
WORKSPACE_START: Final = "_workspace_start"
WORKSPACE_SAVED: Final = "_workspace_saved"
WORKSPACE_FAILED: Final = "_workspace_failed"
WORKSPACE_PROBLEM: Final = "_workspace_problem"
WORKSPACE_COOKIE: Final = "workspace_cookie"
WORKSPACE_COOKIE_COMPONENT: Final = "workspace_cookie_component"

# Sidebar widgets.
W_LANG: Final = "w_lang"
W_MEASURES: Final = "w_measures"
W_K: Final = "w_k"
W_REL: Final = "w_rel"
W_SCORE_ORDER: Final = "w_score_order"
#: The models whose scores go the other way from :data:`W_SCORE_ORDER`.
W_SCORE_ORDER_MODELS: Final = "w_score_order_models"
W_AVERAGING: Final = "w_averaging"
W_WEIGHT_COLUMN: Final = "w_weight_column"
#: More settings: no limit is 0; the gain map is text.
W_MAX_RESULTS: Final = "w_max_results"
W_GAIN_MAP: Final = "w_gain_map"
#: Presenter mode.
W_PRESENT: Final = "w_present"


def policy_widget(field: str) -> str:
    """The sidebar menu of the ``Settings`` policy ``field`` (``w_<field>``)."""
    return f"{WIDGET_PREFIX}{field}"


def sidebar_key(field: str) -> str:
    """The key of the sidebar widget that sets the ``Settings`` field ``field`` (the level box
    for ``relevance_level``, the models ranked the other way for ``score_order_by_model``, a
    policy's menu otherwise). Other panels read the sidebar through it and set it with
    :func:`ui.shell.frame.set_sidebar`."""
    if field == "relevance_level":
        return W_REL
    if field == "score_order_by_model":
        return W_SCORE_ORDER_MODELS
    return policy_widget(field)


# -------------------------------------------------------------------------------- Data page
#: The data choice (``sample``, ``upload``, ``handbuilt``, ``per_query``) and the sample.
W_SOURCE: Final = "w_source"
W_SAMPLE: Final = "w_sample"

#: The uploaded tables (``{"runs": [LoadedTable], "judgments": ..., "queries": ...}``) and the
#: ``Dataset`` built from them (session only, never on disk).
UPLOAD_TABLES: Final = "upload_tables"
UPLOAD_DATASET: Final = "upload_dataset"
#: What the ``Dataset`` of :data:`UPLOAD_DATASET` was built from (tables, roles, labels).
UPLOAD_BUILD_KEY: Final = "upload_build_key"
#: The tables read from uploaded files (by cache key), an upload's id -> its cache key, and the
#: cache keys read in this run.
UPLOAD_CACHE: Final = "upload_cache"
UPLOAD_KEYS: Final = "upload_keys"
UPLOAD_CACHE_CURRENT: Final = "upload_cache_current"
#: The role guesses kept per table (reruns do not read the values again).
ROLE_GUESSES: Final = "role_guesses"
#: The text values of each uploaded table's label columns (found once per table and column).
LABEL_TEXTS: Final = "label_texts"
#: The score order questions answered "keep the order as set", and the order each run file's
#: columns point to.
SCORE_ORDER_DISMISSED: Final = "score_order_dismissed"
SCORE_ORDER_GUESSES: Final = "score_order_guesses"


def role_menu(table: str, role: str) -> str:
    """The menu of the column holding ``role`` in the uploaded ``table``."""
    return f"{WIDGET_PREFIX}map_{table}_{role}"


def segment_menu(table: str) -> str:
    """The segment columns chosen in the uploaded ``table``."""
    return f"{WIDGET_PREFIX}map_{table}_segments"


def source_name(table: str) -> str:
    """The label source name of the uploaded judgments ``table`` (several judgment files)."""
    return f"{WIDGET_PREFIX}map_{table}_source_name"


def seeded(key: str) -> str:
    """Marks a menu whose value the app proposed (not yet chosen by the user)."""
    return f"{key}_seeded"


def roles_ok(table: str) -> str:
    """The box that confirms an unsure role guess of ``table``."""
    return f"{WIDGET_PREFIX}roles_ok_{table}"


def labels_ok(table: str) -> str:
    """The box that confirms the numbers given to the text labels of ``table``."""
    return f"{WIDGET_PREFIX}labels_ok_{table}"


def label_values(table: str, column: str) -> str:
    """The editor of the numbers given to the text labels of ``column`` in ``table``."""
    return f"labels_{table}_{column}"


#: The beginnings of the keys of an uploaded table's menus and boxes (role menus, their
#: ``_seeded`` marks, segment menus, label source names, the boxes that confirm roles and
#: label grades).
UPLOAD_MENU_PREFIXES: Final = (
    f"{WIDGET_PREFIX}map_",
    f"{WIDGET_PREFIX}roles_ok_",
    f"{WIDGET_PREFIX}labels_ok_",
)


def is_upload_menu(key: str) -> bool:
    """Whether ``key`` is a menu or box of an uploaded table (see :data:`UPLOAD_MENU_PREFIXES`)."""
    return key.startswith(UPLOAD_MENU_PREFIXES)


#: The roles and label grades the uploaded data set was built with (``(mappings,
#: label_maps)``, kept by the workspace), and the grades a restored workspace gives the label
#: editors to start from (by table name).
UPLOAD_ROLES: Final = "upload_roles"
UPLOAD_LABEL_SEEDS: Final = "upload_label_seeds"


#: The hand-built lists (``list, position, item, label, retrieved``); replace it to change
#: the lists, the editor follows.
HANDBUILT_TABLE: Final = "handbuilt_table"
#: The ``Dataset`` built from the hand-built lists (with the table's fingerprint).
HANDBUILT_DATASET: Final = "handbuilt_dataset"
#: The lists read back from :data:`HANDBUILT_TABLE` (with the table they were read from).
HANDBUILT_LISTS: Final = "handbuilt_lists"
#: Why the lists of the link could not be read.
HANDBUILT_LINK_ERROR: Final = "handbuilt_link_error"
#: The editor: the table it started from, the fingerprint it last showed, and a number that
#: makes a new editor when code replaced the table.
HANDBUILT_BASE: Final = "handbuilt_base"
HANDBUILT_SEEN: Final = "handbuilt_seen"
HANDBUILT_NONCE: Final = "handbuilt_nonce"
W_HAND_SCALE: Final = "w_hand_scale"


def hand_editor(nonce: int) -> str:
    """The data editor of the hand-built lists (a new one when code replaced the table)."""
    return f"hand_editor_{nonce}"


def imported(uploader: str) -> str:
    """The file (name, size) the CSV uploader ``uploader`` last replaced the lists with."""
    return f"{uploader}_done"


#: A per-query results table's ``Dataset`` and what it was read from.
PER_QUERY_DATASET: Final = "per_query_dataset"
PER_QUERY_KEY: Final = "per_query_key"

# ------------------------------------------------------------------------------- Learn page
#: Source (``preset``, ``handbuilt``, ``queries``, ``query``, ``lesson``), its menus, K, lesson,
#: teacher's view.
W_LEARN_SOURCE: Final = "w_learn_source"
W_LEARN_PRESET: Final = "w_learn_preset"
W_LEARN_HAND_LIST: Final = "w_learn_hand_list"
W_LEARN_MODEL: Final = "w_learn_model"
W_LEARN_QUERY: Final = "w_learn_query"
W_LEARN_K: Final = "w_learn_k"
W_LESSON: Final = "w_lesson"
W_TEACHER: Final = "w_teacher"
#: What K was last set for (a lesson, the lists): K is set again when it changes.
LEARN_K_ORIGIN: Final = "learn_k_origin"
#: Each lesson's current lists (by lesson id), the lessons whose challenge was met and those
#: whose success was shown.
LESSON_LISTS: Final = "lesson_lists"
LESSONS_DONE: Final = "lessons_done"
LESSONS_CELEBRATED: Final = "lessons_celebrated"
#: The committed predictions (by lesson id) and the button that commits one.
LESSON_PREDICTIONS: Final = "lesson_predictions"
BTN_PREDICT: Final = "btn_predict"
#: The link was read, and why its lesson state could not be.
LEARN_SEEDED: Final = "learn_seeded"
LEARN_LINK_PROBLEM: Final = "learn_link_problem"
#: Edits that ask the next run to show the hand-built lists (an import, an edited list).
LEARN_SWITCH_HAND: Final = "learn_switch_hand"
LEARN_EDITED_LIST: Final = "learn_edited_list"
#: An edit that needs a run of the whole page (not only the list's fragment).
LEARN_FULL_RERUN: Final = "learn_full_rerun"
#: The relevance level picked on the page (the sidebar's :data:`W_REL` follows it).
LEARN_LEVEL_PICK: Final = "learn_level_pick"
#: The list event waiting to be applied (``op``, ``index``, ``list``), and the curve picture.
LEARN_ACTION: Final = "learn_action"
LEARN_CURVE: Final = "learn_curve"


def list_component(name: str) -> str:
    """The list component ``name`` (``learn``, ``learn<j>``, ``learnq<j>``)."""
    return f"list_{name}"


def lesson_prediction(lesson_id: str) -> str:
    """The box a lesson's prediction is given in before it is committed."""
    return f"learn_predict_{lesson_id}"


def learn_policy(field: str) -> str:
    """A sidebar setting shown on the Learn page for a lesson (mirrored to the sidebar's)."""
    return f"learn_policy_{field}"


# ------------------------------------------------------------------------------ Curves page
W_DIST_MEASURE: Final = "w_dist_measure"
W_DIST_K: Final = "w_dist_k"
W_DIST_K_COMPUTED: Final = "w_dist_k_computed"
W_DIST_KIND: Final = "w_dist_kind"


def export_chart(name: str) -> str:
    """The chart menu of the figure downloads ``name``."""
    return f"{WIDGET_PREFIX}export_{name}_chart"


def export_format(name: str) -> str:
    """The format menu of the figure downloads ``name``."""
    return f"{WIDGET_PREFIX}export_{name}_fmt"


def export_bytes(name: str) -> str:
    """The picture made for the figure downloads ``name`` (chart, format, bytes)."""
    return f"export_{name}_bytes"


# ------------------------------------------------------------------ Compare, Segments, Report
W_REVIEW_BASELINE: Final = "w_review_baseline"
W_REVIEW_CANDIDATES: Final = "w_review_candidates"
W_REVIEW_K: Final = "w_review_k"
W_REVIEW_RESAMPLES: Final = "w_review_resamples"
W_REVIEW_SEED: Final = "w_review_seed"
W_REVIEW_CORRECTION: Final = "w_review_correction"
W_REVIEW_FAMILY: Final = "w_review_family"
W_REVIEW_TEST: Final = "w_review_test"
W_REVIEW_POLICY: Final = "w_review_policy"
W_REVIEW_ALPHA: Final = "w_review_alpha"
W_REVIEW_POWER: Final = "w_review_power"
#: The decision rule: the lead measure (a name without K) and the guard-rail segments.
W_REVIEW_LEAD: Final = "w_review_lead"
W_REVIEW_GUARD: Final = "w_review_guard"
#: The prefix of the smallest difference that matters of one measure (:func:`min_effect`).
MIN_EFFECT_PREFIX: Final = "w_review_eff_"
#: The baseline before the last change (it takes the new baseline's candidate slot), and
#: whether the link was read.
REVIEW_PREVIOUS_BASELINE: Final = "review_previous_baseline"
REVIEW_URL_READ: Final = "review_url_read"
W_CMP_CANDIDATE: Final = "w_cmp_candidate"
W_CMP_QUERY_MEASURE: Final = "w_cmp_query_measure"
W_CMP_SEGMENT: Final = "w_cmp_segment"
W_CMP_MATRIX_MEASURE: Final = "w_cmp_matrix_measure"
W_CMP_CURVE_MEASURE: Final = "w_cmp_curve_measure"
W_CMP_QUERY: Final = "w_cmp_query"
W_CMP_DIS_X: Final = "w_cmp_dis_x"
W_CMP_DIS_Y: Final = "w_cmp_dis_y"
W_SEG_BY: Final = "w_seg_by"
#: Cross the two segment columns into cells (an opt-in view), and show pooled estimates.
W_SEG_CROSS: Final = "w_seg_cross"
W_SEG_POOLED: Final = "w_seg_pooled"
W_SEG_MEASURE: Final = "w_seg_measure"
W_SEG_OPEN: Final = "w_seg_open"


def min_effect(measure: str) -> str:
    """The smallest difference that matters of ``measure`` (0 for none)."""
    return f"{MIN_EFFECT_PREFIX}{measure}"


def compare_url(name: str) -> str:
    """The value of the Compare link parameter ``name`` last written to the link."""
    return f"cmp_url_{name}"


def section(page: str) -> str:
    """The section id of ``page`` (``compare``, ``report``) whose tab is open
    (``ui.review.sections``)."""
    return f"{page}_section"


def section_tabs(page: str) -> str:
    """``page``'s tabs widget (its value is the open tab's label)."""
    return f"{page}_tabs"


def section_next(page: str) -> str:
    """The section ``page`` opens on its next run, asked for by an action in another tab."""
    return f"{page}_section_next"


# ------------------------------------------------------------------------------ History page
#: The project shown, its lead measure, and the two versions compared.
W_HISTORY_PROJECT: Final = "w_history_project"
W_HISTORY_MEASURE: Final = "w_history_measure"
W_HISTORY_FIRST: Final = "w_history_first"
W_HISTORY_SECOND: Final = "w_history_second"
#: The version saved last in this session (project, version), to say so once.
HISTORY_SAVED: Final = "history_saved"
#: The review link made last in this session (its id), shown with its address.
SHARE_LAST: Final = "share_last"

# -------------------------------------------------------------------------------- Tools page
W_TOOLS_FIRST: Final = "w_tools_first"
W_TOOLS_SECOND: Final = "w_tools_second"
W_TOOLS_MODEL: Final = "w_tools_model"
W_TOOLS_K: Final = "w_tools_k"

# ------------------------------------------------------------------------------- Labels page
#: The session's label sources of an upload, kept by what they were read from
#: (``ui.shell.label_sources``).
LABEL_SOURCES: Final = "label_sources"
#: The uploaded table's label columns compared as sources (the Data page's label column first).
W_LABEL_COLUMNS: Final = "w_label_columns"
#: Labels page: the cutoff of the measures and of Judged@K, and the pair of sources whose
#: confusion matrix is shown.
W_LABELS_K: Final = "w_labels_k"
W_LABELS_PAIR: Final = "w_labels_pair"
