"""One model of a hand-built ranked list, shared by the Data page's editor and the Learn page.

A :class:`RankedList` holds the retrieved items in rank order with their labels (NaN means
unjudged) and the judged items that were *not* retrieved (the "tray": they count for recall,
R-precision and the ideal DCG). Edits return new lists. :func:`lists_of_table` and
:func:`table_of_lists` convert to and from the Data page's table (``list, position, item, label,
retrieved``); :func:`encode_lists` and :func:`decode_lists` put lists into a link compactly
(compressed JSON, base64url) and read them back with strict validation: a bad link raises
:class:`LinkError`, never anything else, and nothing read is evaluated.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import zlib
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from metrics.errors import InputError

#: Labels a click cycles through, per scale (NaN = unjudged comes last).
SCALES: dict[str, tuple[float, ...]] = {"binary": (0.0, 1.0), "graded": (0.0, 1.0, 2.0, 3.0)}
MAX_ITEMS = 200  # items of one list, retrieved and tray together
MAX_LISTS = 20
MAX_TEXT = 80  # characters of an item or list name
MAX_LABEL = 100.0
MAX_LINK = 12_000  # characters of an encoded link parameter
MAX_JSON = 200_000  # bytes once decompressed
MAX_DEPTH = 6  # arrays and objects in one another: {"l": [{"r": [[item, label]]}]} is 5
LINK_VERSION = "1"


@dataclass(frozen=True)
class RankedList:
    """One list: items and labels in rank order (NaN = unjudged) and unretrieved judgments.

    ``scores`` (optional, same length as ``items``) are the model's scores: equal scores are
    ties, ordered by the tie policy (see :func:`ui.learn.evaluate.ordered`).
    """

    name: str
    items: tuple[str, ...]
    labels: tuple[float, ...]
    unretrieved: tuple[tuple[str, float], ...] = ()
    default_k: int = 5
    scores: tuple[float, ...] | None = None

    # ------------------------------------------------------------------ reading
    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"rank": np.arange(1, len(self.items) + 1), "item": self.items, "label": self.labels}
        )

    def all_items(self) -> set[str]:
        return set(self.items) | {i for i, _ in self.unretrieved}

    # ------------------------------------------------------------------ edits
    def swapped(self, i: int, j: int) -> RankedList:
        """A copy with the items at ranks ``i`` and ``j`` (1-based) exchanged."""
        n = len(self.items)
        if not (1 <= i <= n and 1 <= j <= n):
            return self
        items, labels = list(self.items), list(self.labels)
        a, b = i - 1, j - 1
        items[a], items[b] = items[b], items[a]
        labels[a], labels[b] = labels[b], labels[a]
        scores = None
        if self.scores is not None:
            swapped = list(self.scores)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            scores = tuple(swapped)
        return replace(self, items=tuple(items), labels=tuple(labels), scores=scores)

    def moved(self, rank: int, delta: int) -> RankedList:
        """The item at ``rank`` moved ``delta`` places (negative = up); stops at the ends."""
        return self.swapped(rank, min(max(rank + delta, 1), len(self.items)))

    def with_label(self, rank: int, label: float) -> RankedList:
        """The item at ``rank`` (1-based) relabelled (NaN = unjudged)."""
        labels = list(self.labels)
        labels[rank - 1] = float(label)
        return replace(self, labels=tuple(labels))

    def cycled(self, rank: int, scale: str = "graded") -> RankedList:
        """The label at ``rank`` advanced to the next value of ``scale``, then unjudged, then 0."""
        return self.with_label(rank, next_label(self.labels[rank - 1], scale))

    def removed(self, rank: int) -> RankedList:
        """The item at ``rank`` taken out of the list and forgotten (judgment included)."""
        keep = [i for i in range(len(self.items)) if i != rank - 1]
        return self._keep(keep)

    def to_tray(self, rank: int) -> RankedList:
        """The item at ``rank`` no longer retrieved; a judged item stays judged (in the tray)."""
        item, label = self.items[rank - 1], self.labels[rank - 1]
        out = self.removed(rank)
        if not math.isnan(label):
            out = replace(out, unretrieved=(*out.unretrieved, (item, float(label))))
        return out

    def from_tray(self, index: int) -> RankedList:
        """Tray item ``index`` (0-based) retrieved, at the end of the list."""
        item, label = self.unretrieved[index]
        tray = tuple(u for j, u in enumerate(self.unretrieved) if j != index)
        scores = None if self.scores is None else (*self.scores, min(self.scores, default=1) - 1)
        return replace(
            self,
            items=(*self.items, item),
            labels=(*self.labels, float(label)),
            unretrieved=tray,
            scores=scores,
        )

    def tray_cycled(self, index: int, scale: str = "graded") -> RankedList:
        """The label of tray item ``index`` advanced (a tray item is always judged)."""
        item, label = self.unretrieved[index]
        new = next_label(label, scale)
        if math.isnan(new):
            new = 0.0
        tray = list(self.unretrieved)
        tray[index] = (item, new)
        return replace(self, unretrieved=tuple(tray))

    def tray_removed(self, index: int) -> RankedList:
        return replace(
            self, unretrieved=tuple(u for j, u in enumerate(self.unretrieved) if j != index)
        )

    def added(self, label: float = 0.0, *, tray: bool = False) -> RankedList:
        """A new item (``d1``, ``d2``, ... the first free name) at the end, or in the tray."""
        name = new_item_name(self.all_items())
        if tray:
            return replace(self, unretrieved=(*self.unretrieved, (name, float(label))))
        scores = None if self.scores is None else (*self.scores, min(self.scores, default=1) - 1)
        return replace(
            self, items=(*self.items, name), labels=(*self.labels, float(label)), scores=scores
        )

    def _keep(self, keep: list[int]) -> RankedList:
        scores = None if self.scores is None else tuple(self.scores[i] for i in keep)
        return replace(
            self,
            items=tuple(self.items[i] for i in keep),
            labels=tuple(self.labels[i] for i in keep),
            scores=scores,
        )


def next_label(label: float, scale: str = "graded") -> float:
    """The label after ``label`` on ``scale``: 0 → 1 (→ 2 → 3) → unjudged → 0."""
    values = SCALES.get(scale, SCALES["graded"])
    if label != label:  # unjudged
        return values[0]
    bigger = [v for v in values if v > label]
    return bigger[0] if bigger else float("nan")


def new_item_name(taken: set[str]) -> str:
    i = 1
    while f"d{i}" in taken:
        i += 1
    return f"d{i}"


# ---------------------------------------------------------------------- table <-> lists

TABLE_COLUMNS = ("list", "position", "item", "label", "retrieved")


def table_of_lists(lists: list[RankedList] | tuple[RankedList, ...]) -> pd.DataFrame:
    """The Data page's table of ``lists``: ranked rows first, then each list's tray rows."""
    rows: list[tuple[str, int | None, str, float, bool]] = []
    for rl in lists:
        for pos, (item, label) in enumerate(zip(rl.items, rl.labels), start=1):
            rows.append((rl.name, pos, item, float(label), True))
        for item, label in rl.unretrieved:
            rows.append((rl.name, None, item, float(label), False))
    df = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    df["position"] = pd.array(df["position"], dtype="Int64")
    df["label"] = df["label"].astype(float)
    df["retrieved"] = df["retrieved"].astype(bool)
    df["item"] = df["item"].astype("object")
    df["list"] = df["list"].astype("object")
    return df


def lists_of_table(table: pd.DataFrame) -> list[RankedList]:
    """The lists of a normalized table (see :func:`ui.shell.handbuilt.normalize`), in table
    order."""
    out = []
    for name, part in table.groupby("list", sort=False):
        retrieved = part[part["retrieved"].astype(bool)]
        tray = part[~part["retrieved"].astype(bool)]
        out.append(
            RankedList(
                str(name),
                tuple(str(i) for i in retrieved["item"]),
                tuple(float(x) for x in retrieved["label"]),
                tuple((str(i), float(x)) for i, x in zip(tray["item"], tray["label"]) if x == x),
                default_k=max(1, min(5, len(retrieved))),
            )
        )
    return out


def replace_list(
    lists: list[RankedList], new: RankedList, old_name: str | None = None
) -> list[RankedList]:
    """``lists`` with the list called ``old_name`` (default ``new.name``) replaced, or appended."""
    name = old_name or new.name
    out, done = [], False
    for rl in lists:
        if rl.name == name and not done:
            out.append(new)
            done = True
        else:
            out.append(rl)
    return out if done else [*out, new]


# ---------------------------------------------------------------------- link encoding


class LinkError(InputError):
    """A list in a link cannot be read. ``kind`` names the problem (for translated messages)."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message, source="link", fix="ask for the link again, or build the list.")


def _label_out(x: float) -> float | int | None:
    if x != x:
        return None
    return int(x) if float(x).is_integer() else round(float(x), 6)


def encode_lists(lists: list[RankedList] | tuple[RankedList, ...], k: int | None = None) -> str:
    """``lists`` (and the cutoff ``k``) as a short URL-safe text.

    Compact JSON (``{"k": 5, "l": [{"n": name, "r": [[item, label], ...], "u": [...]}]}``, with
    optional scores ``"s"``), compressed with zlib and written in base64url after a version digit.
    """
    entries: list[dict[str, object]] = []
    payload: dict[str, object] = {"l": entries}
    if k is not None:
        payload["k"] = int(k)
    for rl in lists:
        entry: dict[str, object] = {
            "n": rl.name,
            "r": [[i, _label_out(x)] for i, x in zip(rl.items, rl.labels)],
        }
        if rl.unretrieved:
            entry["u"] = [[i, _label_out(x)] for i, x in rl.unretrieved]
        if rl.scores is not None:
            entry["s"] = [_label_out(s) for s in rl.scores]
        entries.append(entry)
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    packed = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")
    return LINK_VERSION + packed


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise LinkError("shape", f"{what} is not text.")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise LinkError("text", f"{what} contains control characters.")
    value = value.strip()
    if not value or len(value) > MAX_TEXT:
        raise LinkError("text", f"{what} must have 1 to {MAX_TEXT} characters.")
    return value


def _label_in(value: object, *, judged: bool = False) -> float:
    if value is None and not judged:
        return float("nan")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LinkError("label", "a label is not a number.")
    if not math.isfinite(value) or not 0 <= value <= MAX_LABEL:
        raise LinkError("label", f"a label is outside 0 to {MAX_LABEL:g}.")
    return float(value)


def _pairs(value: object, *, judged: bool) -> list[tuple[str, float]]:
    if not isinstance(value, list):
        raise LinkError("shape", "a list of items is malformed.")
    out = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise LinkError("shape", "an item is malformed.")
        out.append((_text(pair[0], "an item"), _label_in(pair[1], judged=judged)))
    return out


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text go, counted outside its strings before
    the text is parsed (a parser recurses once per level: thousands of levels would exhaust
    its stack)."""
    marks = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8"), dtype=np.uint8)
    step = np.isin(marks, (ord("["), ord("{"))).astype(np.int64)
    step -= np.isin(marks, (ord("]"), ord("}")))
    return int(np.cumsum(step).max(initial=0))


def _payload(text: str) -> dict:
    if not isinstance(text, str) or not text:
        raise LinkError("empty", "the link holds no list.")
    if len(text) > MAX_LINK:
        raise LinkError("size", f"the link is longer than {MAX_LINK:,} characters.")
    if text[0] != LINK_VERSION:
        raise LinkError("version", "the link was not made by this app (unknown version).")
    body = text[1:]
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_JSON)
        if inflater.unconsumed_tail:
            raise LinkError("size", "the list in the link is too large.")
        text = raw.decode("utf-8")
        if _depth(text) > MAX_DEPTH:
            raise LinkError("shape", f"the link nests more than {MAX_DEPTH} levels.")
        payload = json.loads(text)
    except LinkError:
        raise
    except (binascii.Error, ValueError, zlib.error, UnicodeDecodeError, RecursionError) as exc:
        raise LinkError("corrupt", "the link is damaged (it may have been cut short).") from exc
    if not isinstance(payload, dict) or not isinstance(payload.get("l"), list):
        raise LinkError("shape", "the link holds no lists.")
    return payload


def _scores(value: object, n: int) -> tuple[float, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != n:
        raise LinkError("shape", "the scores do not match the items.")
    for s in value:
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
            raise LinkError("shape", "a score is not a number.")
    return tuple(float(s) for s in value)


def _entry(entry: object) -> RankedList:
    if not isinstance(entry, dict):
        raise LinkError("shape", "a list is malformed.")
    name = _text(entry.get("n"), "a list name")
    ranked = _pairs(entry.get("r", []), judged=False)
    tray = _pairs(entry.get("u", []), judged=True)
    if len(ranked) + len(tray) > MAX_ITEMS:
        raise LinkError("size", f"a list has more than {MAX_ITEMS} items.")
    seen: set[str] = set()
    for item, _ in [*ranked, *tray]:
        if item in seen:
            raise LinkError("duplicate", f"the item '{item}' appears twice in '{name}'.")
        seen.add(item)
    return RankedList(
        name,
        tuple(i for i, _ in ranked),
        tuple(x for _, x in ranked),
        tuple(tray),
        default_k=max(1, min(5, len(ranked))),
        scores=_scores(entry.get("s"), len(ranked)),
    )


def decode_lists(text: str) -> tuple[list[RankedList], int | None]:
    """The lists and cutoff of :func:`encode_lists`'s text.

    Raises
    ------
    LinkError
        When the text is too long, not ours, corrupted, or describes lists that are not valid
        (empty names, duplicate items, labels that are not numbers 0..100, too many items).
    """
    payload = _payload(text)
    entries = payload["l"]
    if not entries or len(entries) > MAX_LISTS:
        raise LinkError("shape", f"the link must hold 1 to {MAX_LISTS} lists.")
    k = payload.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 100):
        raise LinkError("shape", "the cutoff K in the link is not a whole number from 1 to 100.")
    lists = [_entry(e) for e in entries]
    names = [rl.name for rl in lists]
    if len(set(names)) != len(names):
        raise LinkError("duplicate", "a list name appears twice.")
    return lists, k


__all__ = [
    "SCALES",
    "LinkError",
    "RankedList",
    "decode_lists",
    "encode_lists",
    "lists_of_table",
    "new_item_name",
    "next_label",
    "replace_list",
    "table_of_lists",
]
