"""The Learn page's touchable list (Streamlit): rows with a label chip, move and remove
buttons, the cut at K, the tray of judged items not retrieved, the relevance level on the page,
and the lessons' state. The pure parts are :mod:`ui.handbuilt_list`, :mod:`ui.learn` and
:mod:`ui.learn_lessons`.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import streamlit as st

from metrics.engine.settings import POLICIES, Settings
from ui import frame
from ui import handbuilt as hb
from ui.handbuilt_list import LinkError, RankedList, decode_lists, encode_lists, replace_list
from ui.i18n import t
from ui.learn_lessons import BY_ID, LESSONS, Lesson

SOURCE_KEY = "w_learn_source"
HAND_KEY = "w_learn_hand_list"
LESSON_KEY = "w_lesson"
K_KEY = "w_learn_k"
LESSON_LISTS = "lesson_lists"
DONE_KEY = "lessons_done"
CELEBRATED_KEY = "lessons_celebrated"
SEEDED_KEY = "learn_seeded"
LINK_PROBLEM_KEY = "learn_link_problem"
FULL_RERUN_KEY = "learn_full_rerun"
LEVELS = (1, 2, 3)

#: Chip colours by label: a single-hue sequential scale (readable with any colour vision; the
#: number is always written in the chip too).
CHIP = {0: ("#EEEEEE", "#333333"), 1: ("#C6DBEF", "#08306B"), 2: ("#6BAED6", "#08306B")}
CHIP_TOP = ("#08519C", "#FFFFFF")


@dataclass(frozen=True)
class Target:
    """Where the edits of a shown list go: ``source`` of the Learn page and the lesson id."""

    source: str
    lesson: str | None = None


# ---------------------------------------------------------------------- state and link


@st.cache_resource(show_spinner=False)
def teaching_lists() -> dict[str, RankedList]:
    """The worked examples of the teaching sample (ranked once per server)."""
    from ui import compute, learn

    return learn.teaching_lists(compute.sample_dataset("teaching"))


def seed_from_link() -> None:
    """On the first run of Learn in a session, open the lesson or list the link names."""
    state = st.session_state
    if state.get(SEEDED_KEY):
        return
    state[SEEDED_KEY] = True
    params = st.query_params
    lesson = params.get("lesson")
    if lesson in BY_ID:
        state[SOURCE_KEY] = "lesson"
        state[LESSON_KEY] = lesson
        if params.get("ls"):
            try:
                lists, _ = decode_lists(params["ls"])
                if len(lists) != len(BY_ID[lesson].lists):
                    raise LinkError("shape", "the lists do not fit the lesson.")
                lesson_lists()[lesson] = tuple(lists)
            except LinkError as exc:
                state[LINK_PROBLEM_KEY] = exc.kind
    elif params.get(hb.LINK_PARAM):
        state[SOURCE_KEY] = "handbuilt"
        if params.get("lh"):
            state[HAND_KEY] = params["lh"]
    if params.get("lk", "").isdigit():
        state[K_KEY] = min(max(int(params["lk"]), 1), 100)


def after_import() -> None:
    st.session_state["learn_switch_hand"] = True


def switch_after_import() -> None:
    """After a CSV import on Learn, show the imported (hand-built) lists."""
    if st.session_state.pop("learn_switch_hand", False):
        st.session_state[SOURCE_KEY] = "handbuilt"
        st.session_state.pop(HAND_KEY, None)


def link_problem() -> str | None:
    return st.session_state.get(LINK_PROBLEM_KEY) or hb.link_error()


def sync_link(source: str, k: int, lesson: Lesson | None, lists: list[RankedList]) -> None:
    """Keep the shown list (or lesson state) and K in the link."""
    params = st.query_params
    wanted: dict[str, str] = {"lk": str(k)}
    if source == "lesson" and lesson is not None:
        wanted["lesson"] = lesson.id
        wanted["ls"] = encode_lists(lists)
    if source == "handbuilt" and lists:
        wanted["lh"] = lists[0].name
    for name in ("lesson", "ls", "lh"):
        if name not in wanted and name in params:
            del params[name]
    for name, text in wanted.items():
        if params.get(name) != text:
            params[name] = text
    if source == "handbuilt":
        hb.sync_link()


def lesson_lists() -> dict[str, tuple[RankedList, ...]]:
    state = st.session_state
    if LESSON_LISTS not in state:
        state[LESSON_LISTS] = {}
    return state[LESSON_LISTS]


def lesson_state(lesson: Lesson) -> tuple[RankedList, ...]:
    return lesson_lists().get(lesson.id, lesson.lists)


def start_lesson() -> None:
    """Callback of the lesson menu and the reset button: the lesson's lists, K and settings."""
    state = st.session_state
    lesson = BY_ID.get(state.get(LESSON_KEY, ""))
    if lesson is None:
        return
    lesson_lists().pop(lesson.id, None)
    state[K_KEY] = lesson.k
    state["w_rel"] = 1.0
    for field, value in lesson.start.items():
        state[f"w_{field}"] = value


def reset_lesson() -> None:
    start_lesson()


def done() -> set[str]:
    state = st.session_state
    if DONE_KEY not in state:
        state[DONE_KEY] = set()
    return state[DONE_KEY]


# ---------------------------------------------------------------------- edits


def _commit(target: Target, old: RankedList, new: RankedList) -> None:
    state = st.session_state
    if target.source == "lesson" and target.lesson:
        lists = lesson_state(BY_ID[target.lesson])
        lesson_lists()[target.lesson] = tuple(new if rl.name == old.name else rl for rl in lists)
        return
    state[hb.TABLE_KEY] = hb.table_of(replace_list(hb.session_lists(), new, old.name))
    if target.source != "handbuilt":
        state[SOURCE_KEY] = "handbuilt"
        state[HAND_KEY] = old.name
        state[FULL_RERUN_KEY] = True


def _edit(target: Target, rl: RankedList, op: str, index: int, scale: str) -> None:
    """Button callback: apply ``op`` to ``rl`` and store the result where ``target`` says."""
    ops = {
        "label": lambda: rl.cycled(index, scale),
        "up": lambda: rl.moved(index, -1),
        "down": lambda: rl.moved(index, +1),
        "tray": lambda: rl.to_tray(index),
        "remove": lambda: rl.removed(index),
        "add": lambda: rl.added(0.0),
        "add_tray": lambda: rl.added(1.0, tray=True),
        "back": lambda: rl.from_tray(index),
        "tray_label": lambda: rl.tray_cycled(index, scale),
        "tray_remove": lambda: rl.tray_removed(index),
    }
    _commit(target, rl, ops[op]())


# ---------------------------------------------------------------------- drawing


def chip(label: float) -> str:
    """A label as a coloured chip with its number (``?`` = unjudged)."""
    if label != label:
        return (
            '<span style="border:1.5px dashed #888;border-radius:.8em;padding:0 .55em;'
            'font-weight:600;color:#555">?</span>'
        )
    bg, fg = CHIP.get(int(label), CHIP_TOP) if label == int(label) else CHIP[1]
    if label > 2:
        bg, fg = CHIP_TOP
    return (
        f'<span style="background:{bg};color:{fg};border-radius:.8em;padding:0 .6em;'
        f'font-weight:700">{label:g}</span>'
    )


def _row_html(
    rank: int | None, item: str, label: float, level: float, out: bool, score=None
) -> str:
    relevant = label == label and label >= level
    mark = t("learn.row.relevant") if relevant else t("learn.row.not_relevant")
    if label != label:
        mark = t("learn.row.unjudged")
    where = f"<b>#{rank}</b>&nbsp;" if rank is not None else ""
    extra = f' <span style="color:#666">· {t("learn.row.score")} {score:g}</span>' if score else ""
    style = "opacity:.45;" if out else ""
    weight = "font-weight:600;" if relevant and not out else ""
    return (
        f'<div style="{style}{weight}white-space:nowrap;overflow:hidden;text-overflow:ellipsis">'
        f"{where}{html.escape(item)} {chip(label)} "
        f'<span style="font-size:.85em">{"✓ " if relevant else ""}{mark}</span>{extra}</div>'
    )


def cut_line(k: int) -> None:
    st.markdown(
        '<div style="border-top:3px dashed #D55E00;margin:.1em 0 .3em 0;color:#B34700;'
        f'font-size:.85em">✂ {html.escape(t("learn.cut", k=k))}</div>',
        unsafe_allow_html=True,
    )


def list_cards(
    rl: RankedList,
    k: int,
    settings: Settings,
    target: Target,
    scale: str,
    key: str,
    *,
    max_rows: int = 30,
) -> None:
    """Draw ``rl`` (in rank order) as rows you can touch, the cut at K and the tray."""
    level = settings.relevance_level
    can_move = rl.scores is None
    n = len(rl.items)
    shown = min(n, max(max_rows, k + 3))
    for i in range(1, shown + 1):
        label = rl.labels[i - 1]
        cols = st.columns([5, 1.3, 1, 1, 1, 1], gap="small", vertical_alignment="center")
        score = None if rl.scores is None else rl.scores[i - 1]
        cols[0].markdown(
            _row_html(i, rl.items[i - 1], label, level, i > k, score), unsafe_allow_html=True
        )
        args = (target, rl, "label", i, scale)
        shown_label = "?" if label != label else f"{label:g}"
        cols[1].button(
            shown_label,
            icon=":material/autorenew:",
            key=f"btn_{key}_label_{i}",
            on_click=_edit,
            args=args,
            help=t("learn.btn.label"),
            width="stretch",
        )
        if can_move:
            cols[2].button(
                "",
                icon=":material/arrow_upward:",
                key=f"btn_{key}_up_{i}",
                on_click=_edit,
                args=(target, rl, "up", i, scale),
                help=t("learn.btn.up"),
                disabled=i == 1,
            )
            cols[3].button(
                "",
                icon=":material/arrow_downward:",
                key=f"btn_{key}_down_{i}",
                on_click=_edit,
                args=(target, rl, "down", i, scale),
                help=t("learn.btn.down"),
                disabled=i == n,
            )
        cols[4].button(
            "",
            icon=":material/move_down:",
            key=f"btn_{key}_tray_{i}",
            on_click=_edit,
            args=(target, rl, "tray", i, scale),
            help=t("learn.btn.tray"),
        )
        cols[5].button(
            "",
            icon=":material/close:",
            key=f"btn_{key}_remove_{i}",
            on_click=_edit,
            args=(target, rl, "remove", i, scale),
            help=t("learn.btn.remove"),
        )
        if i == k and i < n:
            cut_line(k)
    if shown < n:
        st.caption(t("learn.more_rows", first=shown + 1, last=n))
    if k >= n:
        cut_line(k)
        if k > n:
            st.caption(t("learn.beyond", n=n, k=k))
    st.button(
        t("learn.btn.add"),
        key=f"btn_{key}_add",
        on_click=_edit,
        args=(target, rl, "add", 0, scale),
        help=t("learn.btn.add_help"),
    )
    tray(rl, settings, target, scale, key)


def tray(rl: RankedList, settings: Settings, target: Target, scale: str, key: str) -> None:
    """The judged items the list did not retrieve."""
    with st.container(border=True):
        st.markdown(f"**{t('learn.tray')}**")
        st.caption(t("learn.tray_help"))
        for j, (item, label) in enumerate(rl.unretrieved):
            cols = st.columns([4, 1.3, 2.2, 1], gap="small", vertical_alignment="center")
            cols[0].markdown(
                _row_html(None, item, label, settings.relevance_level, False),
                unsafe_allow_html=True,
            )
            cols[1].button(
                f"{label:g}",
                icon=":material/autorenew:",
                key=f"btn_{key}_traylabel_{j}",
                on_click=_edit,
                args=(target, rl, "tray_label", j, scale),
                help=t("learn.btn.label"),
                width="stretch",
            )
            cols[2].button(
                t("learn.btn.back"),
                icon=":material/arrow_upward:",
                key=f"btn_{key}_back_{j}",
                on_click=_edit,
                args=(target, rl, "back", j, scale),
                help=t("learn.btn.back_help"),
            )
            cols[3].button(
                "",
                icon=":material/close:",
                key=f"btn_{key}_trayremove_{j}",
                on_click=_edit,
                args=(target, rl, "tray_remove", j, scale),
                help=t("learn.btn.remove"),
            )
        st.button(
            t("learn.btn.add_tray"),
            key=f"btn_{key}_addtray",
            on_click=_edit,
            args=(target, rl, "add_tray", 0, scale),
        )


def _mirror(source_key: str, target_key: str) -> None:
    st.session_state[target_key] = st.session_state[source_key]


def level_control() -> float:
    """The relevance level on the page (the same setting as the sidebar's)."""
    state = st.session_state
    level = float(state.get("w_rel", 1.0))
    options = sorted({*LEVELS, int(level) if level.is_integer() else level})
    state["learn_level_pick"] = int(level) if level.is_integer() else level
    st.segmented_control(
        t("learn.level"),
        options,
        key="learn_level_pick",
        format_func=lambda v: f"≥ {v:g}",
        on_change=lambda: _set_level(),
        help=t("learn.level_help"),
    )
    return level


def _set_level() -> None:
    value = st.session_state.get("learn_level_pick")
    if value is not None:
        st.session_state["w_rel"] = float(value)


def policy_control(field: str) -> None:
    """A setting of the sidebar shown on the page (for a lesson), kept in step with it."""
    state = st.session_state
    pick = f"learn_policy_{field}"
    state[pick] = state.get(f"w_{field}")
    st.radio(
        frame.policy_label(field),
        list(POLICIES[field].values),
        key=pick,
        format_func=lambda v: frame.policy_text(field, v),
        on_change=_mirror,
        args=(pick, f"w_{field}"),
    )


def lesson_menu() -> Lesson:
    """The lesson menu with progress; returns the chosen lesson."""
    state = st.session_state
    finished = done()
    if state.get(LESSON_KEY) not in BY_ID:
        state[LESSON_KEY] = LESSONS[0].id
    ids = [lesson.id for lesson in LESSONS]
    st.selectbox(
        t("learn.lesson"),
        ids,
        key=LESSON_KEY,
        format_func=lambda i: (
            f"{'✓ ' if i in finished else ''}{ids.index(i) + 1}. {t(f'lesson.{i}.title')}"
        ),
        on_change=start_lesson,
    )
    return BY_ID[state[LESSON_KEY]]


def progress() -> None:
    """How many challenges are met (drawn after the check, so it counts this one)."""
    finished = done()
    st.progress(
        len(finished) / len(LESSONS), text=t("learn.progress", n=len(finished), total=len(LESSONS))
    )


def celebrate(lesson: Lesson, met: bool) -> None:
    """Mark a met challenge (once with balloons) or say what is still to do."""
    state = st.session_state
    if met:
        done().add(lesson.id)
        st.success(
            t("learn.met", done=t(f"lesson.{lesson.id}.done")), icon=":material/celebration:"
        )
        seen = state.setdefault(CELEBRATED_KEY, set())
        if lesson.id not in seen:
            seen.add(lesson.id)
            st.balloons()
    else:
        st.caption(t("learn.not_yet"))


def teacher_view(lesson: Lesson) -> None:
    with st.container(border=True):
        for part in ("goals", "ask", "answers"):
            st.markdown(f"**{t(f'learn.teacher.{part}')}**")
            st.markdown(t(f"lesson.{lesson.id}.{part}"))


def is_nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)
