"""The Learn page's touchable list as one custom component: the rows (rank, item, label chip,
relevant or not at the current level, the cut at K, ranks beyond K greyed), their controls
(next label, up, down, to the tray, remove), adding an item, and the tray of judged items not
retrieved. The browser draws the rows from :func:`list_data` and sends one event per action; the
page's fragment applies it (:func:`apply_pending`) with the page's edit logic
(:func:`ui.learn.panel._edit`) before drawing. A redraw is one element instead of a grid of
buttons. The curve over K is drawn the same light way (:func:`show_curve`)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import streamlit as st

from metrics.engine.relevance import is_relevant
from metrics.engine.settings import Settings
from ui.learn import panel as lp
from ui.learn.evaluate import copies
from ui.shell import keys
from ui.shell.handbuilt_list import RankedList, next_label
from ui.shell.i18n import current_language, translate

ASSETS = Path(__file__).resolve().parents[1] / "assets"

#: Chip colours by label: a single-hue sequential scale (readable with any colour vision; the
#: number is always written in the chip too).
CHIP = {0: ("#EEEEEE", "#333333"), 1: ("#C6DBEF", "#08306B"), 2: ("#6BAED6", "#08306B")}
CHIP_TOP = ("#08519C", "#FFFFFF")

#: Operations on a ranked row (index = rank, from 1), on a tray row (index from 0), and the two
#: additions (no index).
ROW_OPS = ("label", "up", "down", "tray", "remove")
TRAY_OPS = ("tray_label", "back", "tray_remove")
ADD_OPS = ("add", "add_tray")

_COMPONENT = st.components.v2.component(
    "learn_list",
    css=(ASSETS / "learn_list.css").read_text(encoding="utf-8"),
    js=(ASSETS / "learn_list.js").read_text(encoding="utf-8"),
)

#: The curve over K: an SVG picture built (and escaped) by :func:`ui.learn.figures.learn_curve_svg`.
_CURVE = st.components.v2.component(
    "learn_curve",
    js="""export default function ({ data, parentElement }) {
  let holder = parentElement.querySelector(".learn-curve-holder");
  if (!holder) {
    holder = document.createElement("div");
    holder.className = "learn-curve-holder";
    parentElement.append(holder);
  }
  if (typeof data === "string") holder.innerHTML = data;
}""",
)


def show_curve(svg: str) -> None:
    """Show the curve picture (one element, drawn by the browser in a few milliseconds)."""
    _CURVE(key=keys.LEARN_CURVE, data=svg)


def chip_colours(label: float) -> tuple[str, str]:
    """Background and text colour of a label's chip (a judged label)."""
    if label > 2:
        return CHIP_TOP
    return CHIP[1] if label != int(label) else CHIP.get(int(label), CHIP[0])


def _meaning(label: float, level: float) -> str:
    """``relevant``, ``not_relevant`` or ``unjudged``: what ``label`` is at ``level``."""
    if label != label:
        return "unjudged"
    return "relevant" if is_relevant(label, level) else "not_relevant"


def _label_text(label: float) -> str:
    return "?" if label != label else f"{label:g}"


def _row(item: str, label: float, level: float, words: dict[str, str], next_text: str) -> dict:
    """One row: the item, its label's chip and mark, and (``next_text``, written on the label
    button) the label a press gives with what it means."""
    unjudged = label != label
    meaning = _meaning(label, level)
    bg, fg = ("", "") if unjudged else chip_colours(label)
    return {
        "item": item,
        "label": _label_text(label),
        "unjudged": unjudged,
        "bg": bg,
        "fg": fg,
        "relevant": meaning == "relevant",
        "mark": words[meaning],
        "next": next_text,
    }


def _tray_next(label: float, scale: str) -> float:
    """The label a tray item gets next (a tray item is always judged: after the top, 0)."""
    following = next_label(label, scale)
    return 0.0 if following != following else following


def list_data(
    rl: RankedList,
    k: int,
    level: float,
    *,
    scale: str = "graded",
    max_rows: int = 30,
    present: bool = False,
) -> dict[str, Any]:
    """What the component draws for ``rl`` (in rank order) at ``k`` and relevance ``level``
    (labels cycling through ``scale``): every word already translated, user ids as plain
    strings (the browser sets them as text). The tray holds the relevant items not retrieved;
    the judged items not retrieved that are not relevant at ``level`` are listed apart
    (``tray_other``). ``present`` (presenter mode): large type and short buttons (the label
    button says only the label it gives, the tray button has its sign), each still named in
    full for a screen reader."""
    lang = current_language()

    def tr(key: str, **values: object) -> str:
        return translate(key, lang, **values)

    words = {m: tr(f"learn.row.{m}") for m in ("relevant", "not_relevant", "unjudged", "score")}

    def to(label: float) -> str:
        """What the label button of a row says: the label it gives and what that means."""
        if present:
            return tr("learn.btn.to_label_short", label=_label_text(label))
        return tr(
            "learn.btn.to_label", label=_label_text(label), meaning=words[_meaning(label, level)]
        )

    text = {
        op: tr(f"learn.btn.{op}")
        for op in ("label", "up", "down", "tray", "remove", "add", "add_help", "back")
    }
    text["tray_word"] = "" if present else tr("learn.btn.tray_word")

    def aria(ops: tuple[str, ...], what: str) -> dict[str, str]:
        return {op: tr("learn.aria.button", action=text[op], what=what) for op in ops}

    n = len(rl.items)
    repeated = copies(rl)  # a later copy of a repeated item: shown, not counted, no rank
    counted_n = n - len(repeated)
    shown = min(n, max(max_rows, k + 3 + len(repeated)))
    rows = []
    rank = 0
    for i in range(1, shown + 1):
        item, label = rl.items[i - 1], rl.labels[i - 1]
        row = _row(item, label, level, words, to(next_label(label, scale)))
        score = None if rl.scores is None else rl.scores[i - 1]
        if i in repeated:
            row.update(
                rank=None,
                copy=tr("learn.row.copy", rank=repeated[i]),
                out=True,
                relevant=False,
                aria=aria(ROW_OPS, tr("learn.aria.copy", item=item, rank=repeated[i])),
            )
        else:
            rank += 1
            row.update(
                rank=rank,
                out=rank > k,
                aria=aria(ROW_OPS, tr("learn.aria.rank", rank=rank, item=item)),
            )
        row.update(index=i, score=f"{words['score']} {score:g}" if score else "")
        rows.append(row)
    tray: list[dict] = []
    tray_other: list[dict] = []
    for j, (item, label) in enumerate(rl.unretrieved):
        row = _row(item, label, level, words, to(_tray_next(label, scale)))
        names = aria(("label", "back", "remove"), tr("learn.aria.tray_item", item=item))
        row.update(index=j, score="", aria=names)
        (tray if row["relevant"] else tray_other).append(row)
    return {
        "version": version(rl),
        "n": n,
        "counted": counted_n,
        "k": k,
        "can_move": rl.scores is None,
        "rows": rows,
        "tray": tray,
        "tray_other": tray_other,
        "more": tr("learn.more_rows", first=shown + 1, last=n) if shown < n else "",
        "beyond": beyond_text(tr, counted_n, k),
        "present": present,
        "text": {
            **text,
            "back": "" if present else text["back"],  # its sign alone; named in full for aria
            "list": tr("learn.the_list"),
            "cut": tr("learn.cut", k=k),
            "back_help": tr("learn.btn.back_help"),
            "add_tray": tr("learn.btn.add_tray"),
            "tray_title": tr("learn.tray"),
            "tray_help": tr("learn.tray_help"),
            "tray_other_title": tr("learn.tray_other"),
            "tray_other_help": tr("learn.tray_other_help", level=f"{level:g}"),
        },
    }


def beyond_text(tr, n: int, k: int) -> str:
    """What the list says when K is past its end: the empty positions, one or a range (none
    when the list reaches K)."""
    if k <= n:
        return ""
    if k == n + 1:
        return tr("learn.beyond_one", n=n, k=k)
    return tr("learn.beyond", n=n, k=k, first=n + 1)


def version(rl: RankedList) -> str:
    """A short fingerprint of what the list shows (sent back with each press)."""
    text = repr((rl.items, rl.labels, rl.unretrieved, rl.scores))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def valid_action(rl: RankedList, action: object) -> tuple[str, int] | None:
    """The ``(op, index)`` of an event sent by the list, or ``None`` when it does not fit
    ``rl`` (sent from another state of the list, an unknown operation, a rank or tray row
    that is not there, a move not allowed)."""
    if not isinstance(action, dict):
        return None
    if "version" in action and action["version"] != version(rl):
        return None  # pressed on a list that has changed since (a second quick press)
    op, index = action.get("op"), action.get("index", 0)
    if not isinstance(index, int) or isinstance(index, bool):
        return None
    if op in ROW_OPS and 1 <= index <= len(rl.items):
        if op in ("up", "down") and rl.scores is not None:
            return None
        if (op == "up" and index == 1) or (op == "down" and index == len(rl.items)):
            return None
        return op, index
    if op in TRAY_OPS and 0 <= index < len(rl.unretrieved):
        return op, index
    if op in ADD_OPS:
        return op, 0
    return None


def apply_action(target: lp.Target, rl: RankedList, scale: str, action: object) -> bool:
    """Apply one event of the list to ``rl`` with the page's edit logic; whether it applied."""
    checked = valid_action(rl, action)
    if checked is None:
        return False
    lp._edit(target, rl, checked[0], checked[1], scale)
    return True


def _on_action(widget_key: str, index: int) -> None:
    """The component's event: keep it for the page run that follows (:func:`apply_pending`)."""
    action = getattr(st.session_state.get(widget_key), "action", None)
    if isinstance(action, dict):
        st.session_state[keys.LEARN_ACTION] = {**action, "list": index}


def apply_pending(target: lp.Target, shown: list[RankedList], scale: str) -> bool:
    """Apply the list event waiting in the session (``keys.LEARN_ACTION``: ``op``, ``index`` and the
    shown list's position ``list``) to the list as shown; whether an edit was made."""
    action = st.session_state.pop(keys.LEARN_ACTION, None)
    if not isinstance(action, dict):
        return False
    j = action.get("list", 0)
    if not isinstance(j, int) or not 0 <= j < len(shown):
        return False
    return apply_action(target, shown[j], scale, action)


def ranked_list(
    rl: RankedList,
    k: int,
    settings: Settings,
    key: str,
    index: int = 0,
    scale: str = "graded",
    *,
    present: bool = False,
) -> None:
    """Draw ``rl`` (shown list number ``index``, labels cycling through ``scale``; ``present``:
    presenter mode, see :func:`list_data`) as the touchable list; a press is applied by the
    next run of the page's fragment."""
    widget_key = keys.list_component(key)
    data = list_data(rl, k, settings.relevance_level, scale=scale, present=present)
    _COMPONENT(
        key=widget_key,
        data={**data, "key": widget_key},
        on_action_change=functools.partial(_on_action, widget_key, index),
    )
