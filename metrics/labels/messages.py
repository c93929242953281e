"""The English words of the label package's codes: why a statistic is undefined.

An agreement or correlation statistic that cannot be computed is ``NaN`` with a reason code
(:class:`Statistic.reason`), never an exception: the tables and the command line carry the code,
and :func:`reason_text` words it in English (the app words the same codes from its catalogs).
"""

from __future__ import annotations

from typing import NamedTuple

#: Why a statistic is ``NaN``, by code.
REASONS: dict[str, str] = {
    "one_source": "it needs at least two label sources",
    "no_overlap": "no item was judged by both sources",
    "no_complete_item": "no item was judged by every source",
    "one_category": "every label given is the same grade, so chance agreement is certain",
    "one_system": "it needs at least two runs to order",
    "all_tied": "one source gives every run the same value, so there is no ordering",
    "no_value": "a run has no value of the measure under one of the sources",
}


class Statistic(NamedTuple):
    """One agreement or correlation number.

    Attributes
    ----------
    value:
        The statistic; ``NaN`` when it is undefined.
    n:
        How many units it was computed on (items, or runs for a correlation).
    reason:
        A key of :data:`REASONS` when ``value`` is ``NaN``, else ``""``.
    """

    value: float
    n: int
    reason: str = ""


def undefined(reason: str, n: int = 0) -> Statistic:
    """A ``NaN`` statistic with its reason (a key of :data:`REASONS`)."""
    if reason not in REASONS:
        raise KeyError(reason)
    return Statistic(float("nan"), n, reason)


def reason_text(code: str) -> str:
    """The English words of a reason code (``""`` for none)."""
    return REASONS.get(code, code) if code else ""


__all__ = ["REASONS", "Statistic", "reason_text", "undefined"]
