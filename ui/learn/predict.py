"""The prediction step of a Learn lesson (Streamlit): before a lesson that asks for one shows
its lists and numbers, the learner commits to a number or a choice; then the page says whether
it was right and shows the numbers, all from :mod:`metrics` (see
:func:`ui.learn.lessons.judge`). The pure parts are in :mod:`ui.learn.lessons`.
"""

from __future__ import annotations

import streamlit as st

from metrics import Settings
from ui.learn.lessons import Judgement, Lesson, judge, question_table
from ui.shell import keys
from ui.shell.i18n import option_text, t


def input_key(lesson: Lesson) -> str:
    """The key of the widget the learner gives the prediction of ``lesson`` in."""
    return keys.lesson_prediction(lesson.id)


def predictions() -> dict[str, float | str]:
    state = st.session_state
    if keys.LESSON_PREDICTIONS not in state:
        state[keys.LESSON_PREDICTIONS] = {}
    return state[keys.LESSON_PREDICTIONS]


def forget(lesson_id: str) -> None:
    """Ask for the prediction of ``lesson_id`` again (the lesson starts over)."""
    predictions().pop(lesson_id, None)
    st.session_state.pop(keys.lesson_prediction(lesson_id), None)


def _commit(lesson_id: str) -> None:
    answer = st.session_state.get(keys.lesson_prediction(lesson_id))
    if answer is not None:
        predictions()[lesson_id] = answer


def predicted(lesson: Lesson, settings: Settings, words: dict[str, str]) -> bool:
    """Whether the lesson may show its lists and numbers: it asks for no prediction, or the
    learner has committed to one (then the verdict and the explanation are drawn). Otherwise
    the question is drawn, with the lists it is about but none of their numbers."""
    if lesson.predict is None:
        return True
    answer = predictions().get(lesson.id)
    if answer is not None:
        reveal(lesson, judge(lesson, answer, settings), words)
        return True
    ask(lesson, settings, words)
    return False


def ask(lesson: Lesson, settings: Settings, words: dict[str, str]) -> None:
    """The question, the lists it shows (ranks, items, scores, labels) and the answer box."""
    assert lesson.predict is not None
    with st.container(border=True):
        st.markdown(f"**{t('learn.predict.title')}** {t(f'lesson.{lesson.id}.predict', **words)}")
        shown = lesson.predict.shown or lesson.lists
        cols = st.columns(len(shown))
        for col, rl in zip(cols, shown):
            table = question_table(rl, settings)
            table.columns = [_column(c) for c in table.columns]
            col.markdown(f"**{rl.name}**")
            col.dataframe(table, hide_index=True)
        if any(rl.unretrieved for rl in shown):
            st.caption(t("learn.predict.not_retrieved"))
        key = input_key(lesson)
        if lesson.predict.options:
            st.radio(
                t("learn.predict.choice"),
                list(lesson.predict.options),
                index=None,
                key=key,
                format_func=option_text(f"lesson.{lesson.id}.option."),
                horizontal=True,
            )
        else:
            st.number_input(
                t("learn.predict.number"),
                min_value=0.0,
                max_value=1.0,
                value=None,
                step=0.01,
                format="%.3f",
                key=key,
            )
        st.button(
            t("learn.predict.commit"),
            key=keys.BTN_PREDICT,
            on_click=_commit,
            args=(lesson.id,),
            disabled=st.session_state.get(key) is None,
            type="primary",
        )
        st.caption(t("learn.predict.hint"))


def _column(name: str) -> str:
    return t("learn.row.score") if name == "score" else t(f"learn.col.{name}")


def shown_answer(lesson: Lesson, answer: float | str) -> str:
    """An answer as the verdict writes it: an option's words, or a number."""
    if isinstance(answer, str):
        return t(f"lesson.{lesson.id}.option.{answer}")
    return f"{answer:.3f}"


def reveal(lesson: Lesson, judgement: Judgement, words: dict[str, str]) -> None:
    """Right or not, with the true value, then why."""
    values = {
        "answer": shown_answer(lesson, judgement.answer),
        "truth": shown_answer(lesson, judgement.truth),
    }
    choice = isinstance(judgement.truth, str)  # a choice is quoted, a number is not
    if judgement.right:
        key = "learn.predict.right_choice" if choice else "learn.predict.right"
        st.success(t(key, **values), icon=":material/check_circle:")
    else:
        key = "learn.predict.wrong_choice" if choice else "learn.predict.wrong"
        st.warning(t(key, **values), icon=":material/error:")
    st.markdown(t(f"lesson.{lesson.id}.reveal", **words))


__all__ = ["forget", "input_key", "predicted"]
