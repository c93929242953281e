"""The Learn page's state and edits (Streamlit): the edits of a shown list (drawn by
:mod:`ui.learn.list_component`), the relevance level on the page, the link, and the lessons'
state. The pure parts are :mod:`ui.shell.handbuilt_list`, :mod:`ui.learn.evaluate` and
:mod:`ui.learn.lessons`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from metrics.engine.explain import EXPLAINED
from metrics.engine.settings import POLICIES, Settings
from ui.learn.evaluate import relevant_count
from ui.learn.lessons import BY_ID, LESSONS, Lesson
from ui.learn.predict import forget
from ui.shell import frame, keys, labels, memo
from ui.shell import handbuilt as hb
from ui.shell.handbuilt_list import LinkError, RankedList, decode_lists, encode_lists, replace_list
from ui.shell.i18n import option_text, t
from ui.shell.view import whole_number

LEVELS = (1, 2, 3)
#: The several-lists mode (each hand-built list a query) and its link parameter.
QUERIES = "queries"
QUERIES_PARAM = "lq"

#: The measures of the one-list view when none other is selected: the explained ones and
#: Judged@K.
DEFAULT_MEASURES = (*EXPLAINED, "Judged")


@dataclass(frozen=True)
class Target:
    """Where the edits of a shown list go: ``source`` of the Learn page and the lesson id."""

    source: str
    lesson: str | None = None


# ---------------------------------------------------------------------- state and link


def teaching_lists() -> dict[str, RankedList]:
    """The worked examples of the teaching sample (ranked once per server)."""
    from ui.learn import evaluate as learn
    from ui.shell import compute

    return memo.once(
        ("teaching_lists",), lambda: learn.teaching_lists(compute.sample_dataset("teaching"))
    )


def seed_from_link() -> None:
    """On the first run of Learn in a session, open the lesson or list the link names."""
    state = st.session_state
    if state.get(keys.LEARN_SEEDED):
        return
    state[keys.LEARN_SEEDED] = True
    params = st.query_params
    lesson = params.get("lesson")
    if lesson in BY_ID:
        state[keys.W_LEARN_SOURCE] = "lesson"
        state[keys.W_LESSON] = lesson
        if params.get("ls"):
            try:
                lists, _ = decode_lists(params["ls"])
                if len(lists) != len(BY_ID[lesson].lists):
                    raise LinkError("shape", "the lists do not fit the lesson.")
                lesson_lists()[lesson] = tuple(lists)
            except LinkError as exc:
                state[keys.LEARN_LINK_PROBLEM] = exc.kind
    elif params.get(QUERIES_PARAM) == "1":
        state[keys.W_LEARN_SOURCE] = QUERIES
    elif params.get(hb.LINK_PARAM):
        state[keys.W_LEARN_SOURCE] = "handbuilt"
        if params.get("lh"):
            state[keys.W_LEARN_HAND_LIST] = params["lh"]
    k = whole_number(params.get("lk", ""), 0, 999_999)
    if k is not None:
        state[keys.W_LEARN_K] = min(max(k, 1), 100)
    done().update(met_from_link(params.get(MET_PARAM, "")))


#: The link parameter of a class's progress: the ids of the lessons whose challenge was met.
MET_PARAM = "met"


def met_from_link(text: str) -> set[str]:
    """The lessons a link says were met (unknown ids are ignored)."""
    return {i for i in str(text).split(".") if i in BY_ID}


def met_text(met: set[str]) -> str:
    """The link's text of the lessons met, in the order of the lessons."""
    return ".".join(lesson.id for lesson in LESSONS if lesson.id in met)


def after_import() -> None:
    st.session_state[keys.LEARN_SWITCH_HAND] = True


def switch_after_import() -> None:
    """After a CSV import on Learn, show the imported (hand-built) lists; after an edit of a
    worked example or of a query's list, show the hand-built list it became (called before the
    menus are drawn)."""
    state = st.session_state
    if state.pop(keys.LEARN_SWITCH_HAND, False):
        state[keys.W_LEARN_SOURCE] = "handbuilt"
        state.pop(keys.W_LEARN_HAND_LIST, None)
    edited = state.pop(keys.LEARN_EDITED_LIST, None)
    if edited is not None:
        state[keys.W_LEARN_SOURCE] = "handbuilt"
        state[keys.W_LEARN_HAND_LIST] = edited


def link_problem() -> str | None:
    """The kind of problem of the lesson or lists the link holds (the lists are read first)."""
    hb.session_table()
    return st.session_state.get(keys.LEARN_LINK_PROBLEM) or hb.link_error()


def sync_link(source: str, k: int, lesson: Lesson | None, lists: list[RankedList]) -> None:
    """Keep the shown list (or lesson state) and K in the link."""
    params = st.query_params
    wanted: dict[str, str] = {"lk": str(k)}
    if source == "lesson" and lesson is not None:
        wanted["lesson"] = lesson.id
        wanted["ls"] = encode_lists(lists)
    if source == "handbuilt" and lists:
        wanted["lh"] = lists[0].name
    if source == QUERIES:
        wanted[QUERIES_PARAM] = "1"
    if done():
        wanted[MET_PARAM] = met_text(done())
    for name in ("lesson", "ls", "lh", QUERIES_PARAM, MET_PARAM):
        if name not in wanted and name in params:
            del params[name]
    for name, text in wanted.items():
        if params.get(name) != text:
            params[name] = text
    if source in ("handbuilt", QUERIES):
        hb.sync_link()


# ---------------------------------------------------------------------- several lists


def is_starter(lists: list[RankedList]) -> bool:
    """Whether ``lists`` are still the Data page's untouched starter list."""
    return [(rl.name, rl.items, rl.labels, rl.unretrieved) for rl in lists] == [
        (rl.name, rl.items, rl.labels, rl.unretrieved) for rl in hb.lists_of(hb.starter_table())
    ]


def queries_lists() -> list[RankedList]:
    """The lists of the several-lists mode: the session's hand-built lists, each a query.
    Untouched, the starter list gives way to the notes' MRR example (three queries, first
    relevant at ranks 2, 1 and 4)."""
    lists = hb.session_lists()
    if is_starter(lists):
        load_mrr_example()
        lists = hb.session_lists()
    return lists


def load_mrr_example() -> None:
    """Make the notes' MRR example the hand-built lists (button callback too)."""
    from ui.learn.evaluate import mrr_example_lists

    hb.store_edited_lists(mrr_example_lists(teaching_lists()))


def add_query() -> None:
    """A new short list (the next free name ``q<n>``), first relevant at rank 3."""
    lists = hb.session_lists()
    names = {rl.name for rl in lists}
    i = len(lists) + 1
    while f"q{i}" in names:
        i += 1
    items = tuple(f"d{j}" for j in range(1, 6))
    new = RankedList(f"q{i}", items, (0.0, 0.0, 1.0, 0.0, 0.0))
    hb.store_edited_lists([*lists, new])


def remove_query(name: str) -> None:
    """Drop the hand-built list ``name`` (the last one stays)."""
    lists = [rl for rl in hb.session_lists() if rl.name != name]
    if lists:
        hb.store_edited_lists(lists)


def open_queries() -> None:
    """From the worked examples of MRR: the three lists side by side, as hand-built lists."""
    load_mrr_example()
    st.session_state[keys.W_LEARN_SOURCE] = QUERIES


def lesson_lists() -> dict[str, tuple[RankedList, ...]]:
    state = st.session_state
    if keys.LESSON_LISTS not in state:
        state[keys.LESSON_LISTS] = {}
    return state[keys.LESSON_LISTS]


def lesson_state(lesson: Lesson) -> tuple[RankedList, ...]:
    return lesson_lists().get(lesson.id, lesson.lists)


def start_lesson() -> None:
    """Callback of the lesson menu and the reset button: the lesson's lists, K and settings."""
    state = st.session_state
    lesson = BY_ID.get(state.get(keys.W_LESSON, ""))
    if lesson is None:
        return
    lesson_lists().pop(lesson.id, None)
    forget(lesson.id)  # a lesson that asks for a prediction asks again
    state[keys.W_LEARN_K] = lesson.k
    frame.set_sidebar("relevance_level", 1.0)
    for field, value in lesson.start.items():
        frame.set_sidebar(field, value)


def reset_lesson() -> None:
    start_lesson()


def done() -> set[str]:
    state = st.session_state
    if keys.LESSONS_DONE not in state:
        state[keys.LESSONS_DONE] = set()
    return state[keys.LESSONS_DONE]


# ---------------------------------------------------------------------- edits


def _commit(target: Target, old: RankedList, new: RankedList) -> None:
    state = st.session_state
    if target.source == "lesson" and target.lesson:
        shown = lesson_state(BY_ID[target.lesson])
        lesson_lists()[target.lesson] = tuple(new if rl.name == old.name else rl for rl in shown)
        return
    lists = replace_list(hb.session_lists(), new, old.name)
    if target.source in ("handbuilt", QUERIES):
        hb.store_edited_lists(lists)
        return
    state[keys.HANDBUILT_TABLE] = hb.table_of(lists)  # a worked example or a query's list: cleaned
    state[keys.LEARN_EDITED_LIST] = old.name  # shown as a hand-built list from the next page run on
    state[keys.LEARN_FULL_RERUN] = True


def _edit(target: Target, rl: RankedList, op: str, index: int, scale: str) -> None:
    """Apply ``op`` to ``rl`` and store the result where ``target`` says."""
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


def _mirror(source_key: str, target_key: str) -> None:
    st.session_state[target_key] = st.session_state[source_key]


def level_control() -> float:
    """The relevance level on the page (the same setting as the sidebar's)."""
    state = st.session_state
    level = float(state.get(keys.sidebar_key("relevance_level"), 1.0))
    options = sorted({*LEVELS, int(level) if level.is_integer() else level})
    state[keys.LEARN_LEVEL_PICK] = int(level) if level.is_integer() else level
    st.segmented_control(
        t("learn.level"),
        options,
        key=keys.LEARN_LEVEL_PICK,
        format_func=lambda v: f"≥ {v:g}",
        on_change=lambda: _set_level(),
        help=t("learn.level_help"),
    )
    return level


def _set_level() -> None:
    value = st.session_state.get(keys.LEARN_LEVEL_PICK)
    if value is not None:
        frame.set_sidebar("relevance_level", float(value))


def policy_control(field: str, *, horizontal: bool = False) -> None:
    """A setting of the sidebar shown on the page (for a lesson), kept in step with it."""
    state = st.session_state
    pick = keys.learn_policy(field)
    state[pick] = state.get(keys.sidebar_key(field))
    st.radio(
        labels.policy_label(field),
        list(POLICIES[field].values),
        key=pick,
        format_func=option_text(f"policy.{field}."),
        on_change=_mirror,
        args=(pick, keys.sidebar_key(field)),
        horizontal=horizontal,
    )


def lesson_menu() -> Lesson:
    """The lesson menu with progress; returns the chosen lesson."""
    state = st.session_state
    finished = frozenset(done())  # as drawn now: a challenge met later in this run adds to done()
    if state.get(keys.W_LESSON) not in BY_ID:
        state[keys.W_LESSON] = LESSONS[0].id
    ids = [lesson.id for lesson in LESSONS]
    title = option_text("lesson.")  # the session's language, fixed now
    st.selectbox(
        t("learn.lesson"),
        ids,
        key=keys.W_LESSON,
        format_func=lambda i: (
            f"{'✓ ' if i in finished else ''}{ids.index(i) + 1}. {title(f'{i}.title')}"
        ),
        on_change=start_lesson,
    )
    return BY_ID[state[keys.W_LESSON]]


def progress() -> None:
    """How many challenges are met (drawn after the check, so it counts this one); the link
    keeps them (``met=``), so a class's progress outlasts the session."""
    finished = done()
    st.progress(
        len(finished) / len(LESSONS), text=t("learn.progress", n=len(finished), total=len(LESSONS))
    )


def celebrate(lesson: Lesson, met: bool, words: dict[str, str], *, quiet: bool = False) -> None:
    """Mark a met challenge (once with balloons) or say what is still to do (unless ``quiet``:
    presenter mode says nothing until it is met); ``words`` are the numbers of the lesson's
    texts."""
    state = st.session_state
    if met:
        done().add(lesson.id)
        st.success(
            t("learn.met", done=t(f"lesson.{lesson.id}.done", **words)),
            icon=":material/celebration:",
        )
        seen = state.setdefault(keys.LESSONS_CELEBRATED, set())
        if lesson.id not in seen:
            seen.add(lesson.id)
            st.balloons()
    elif not quiet:
        st.caption(t("learn.not_yet"))


def teacher_view(lesson: Lesson, words: dict[str, str]) -> None:
    with st.container(border=True):
        for part in ("goals", "ask", "answers"):
            st.markdown(f"**{t(f'learn.teacher.{part}')}**")
            st.markdown(t(f"lesson.{lesson.id}.{part}", **words))


#: The link parameter of the teacher's notes: the Learn page in a tab of its own that shows a
#: lesson's objectives, questions and expected answers, and nothing else.
NOTES_PARAM = "notes"


def notes_requested() -> bool:
    """Whether this page run is the teacher's notes (``notes=1`` in the link)."""
    return st.query_params.get(NOTES_PARAM) == "1"


def notes_url(lesson: Lesson) -> str:
    """The address of ``lesson``'s notes, relative to the Learn page: its link with the
    lesson, the settings and ``notes=1``, without presenter mode."""
    params = {k: v for k, v in st.query_params.to_dict().items() if k not in ("present", "ls")}
    params |= {"lesson": lesson.id, NOTES_PARAM: "1"}
    return "?" + urlencode(params)


def notes_link(lesson: Lesson) -> None:
    """A button that opens the teacher's notes of ``lesson`` in a new tab (for the teacher's
    own screen: the projected page never shows the expected answers)."""
    st.link_button(
        t("learn.notes.open"),
        notes_url(lesson),
        icon=":material/open_in_new:",
        help=t("learn.notes.open_help"),
    )


def notes_view(settings: Settings) -> None:
    """The teacher's tab: a lesson (menu), its challenge, objectives, questions and expected
    answers, with the numbers of its texts (from metrics)."""
    from ui.learn.lessons import text_values

    st.title(t("learn.notes.title"))
    st.caption(t("learn.notes.hint"))
    if st.session_state.get(keys.W_LESSON) not in BY_ID:
        st.session_state[keys.W_LESSON] = LESSONS[0].id
    lesson = lesson_menu()
    words = text_values(lesson, settings)
    st.markdown(f"**{t('learn.challenge')}** {t(f'lesson.{lesson.id}.challenge', **words)}")
    teacher_view(lesson, words)
    title = t(f"lesson.{lesson.id}.title")
    worksheet_download(list(lesson.lists), lesson.k, settings, title, lesson=lesson, words=words)


def worksheet_download(
    lists: list[RankedList],
    k: int,
    settings: Settings,
    title: str,
    *,
    measures: tuple[str, ...] = DEFAULT_MEASURES,
    lesson: Lesson | None = None,
    words: dict[str, str] | None = None,
    key: str = "dl_learn_worksheet",
) -> None:
    """A button that downloads the worksheet (:mod:`ui.learn.worksheet`) of ``lists`` (a
    lesson's starting lists and questions, or the list on the page) in the session's language,
    written when asked for."""
    from ui.learn.lessons import start_settings
    from ui.learn.worksheet import worksheet_html
    from ui.shell.i18n import current_language

    lang = current_language()
    if lesson is not None:
        lists, k, settings = list(lesson.lists), lesson.k, start_settings(lesson, settings)
        measures = lesson.measures
    file_name = f"{t('file.worksheet')}-{lesson.id if lesson else 'list'}.html"
    st.download_button(
        t("learn.worksheet"),
        lambda: worksheet_html(
            lists, k, settings, lang, title=title, measures=measures, lesson=lesson, words=words
        ).encode("utf-8"),
        file_name,
        "text/html",
        key=key,
        on_click="ignore",
        icon=":material/print:",
        help=t("learn.worksheet_help"),
    )


def is_nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)


def describe_in_sidebar(
    source: str,
    lesson: Lesson | None,
    shown: list[RankedList],
    k: int,
    settings: Settings,
    dataset: object,
) -> None:
    """The sidebar's data set box says what Learn shows (a worked example, a lesson, hand-built
    lists) and which data set the other pages use; a query of the data set leaves it as is."""
    if source == "query":
        return
    what = t(f"learn.source.{source}") + ": " + shown_title(source, lesson, shown)
    level = settings.relevance_level
    results = sum(len(rl.items) for rl in shown)
    relevant = sum(relevant_count(rl, level) for rl in shown)
    lines = [what, t("learn.sidebar.size", n=results, lists=len(shown), rel=relevant, k=k)]
    if dataset is not None:
        lines.append(t("learn.sidebar.others", name=getattr(dataset, "name", "")))
    frame.describe_in_dataset_box(t("learn.sidebar.title"), "\n".join(lines))


def shown_title(source: str, lesson: Lesson | None, shown: list[RankedList]) -> str:
    """What the page shows, in words: the lesson's title, the worked example's, or the names
    of the lists."""
    if lesson is not None:
        return t(f"lesson.{lesson.id}.title")
    if source == "preset" and shown:
        return t(f"learn.preset.{shown[0].name}")
    return ", ".join(rl.name for rl in shown)


def duplicates_note() -> None:
    """Each repeated item of the hand-built lists, named, with the row kept and why."""
    from ui.shell.handbuilt_panel import duplicates_note as note

    note()
