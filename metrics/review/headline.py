"""The headline of a review: every significant row of the one review table, in a few sentences.

:func:`headline` reads a :func:`metrics.review.verdict.review_table` and says, per candidate:

1. over all queries, on which measures it is better and worse than the baseline (each with its
   delta and corrected p) and on which there is no clear difference (with the reason in words
   when the interval seems to say otherwise);
2. when some difference is unclear, how small a difference these queries could have shown
   (minimum detectable effect) and, with a smallest difference that matters, how many queries
   it would take;
3. each segment where it is significantly better or worse, on which measures, and that the
   other segments show no clear difference;

then, with two or more candidates, every significant difference between candidates and which
candidate is ahead of the baseline and of all the others on which measures.

Every significant row is named exactly once (:attr:`Headline.named`), whatever the order of
the measures in the request: measures are listed in :func:`~metrics.review.verdict.measure_order`.
The Compare and Report pages, the HTML report, the JSON export and ``python -m metrics compare``
all print these sentences.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from metrics.review.compare import Wording
from metrics.review.rows import ALL
from metrics.review.verdict import (
    BASELINE_KIND,
    BETTER,
    PAIRWISE_KIND,
    UNCLEAR,
    WATCH,
    WORSE,
    measure_order,
)
from metrics.review.wording import format_p, magnitude_text, reason_text, row_p, word


@dataclass(frozen=True)
class Headline:
    """The sentences of a review's headline and the rows they name.

    Attributes
    ----------
    sentences:
        Candidate -> its sentences, in the table's order of candidates; ``""`` -> the closing
        sentences (candidates against each other, who is ahead).
    named:
        Index labels of the table rows named as significant findings (each once).
    """

    sentences: dict[str, list[str]] = field(default_factory=dict)
    named: list[int] = field(default_factory=list)


def _join(items: Sequence[str], templates: Wording | None) -> str:
    """``A``, ``A and B``, ``A, B and C`` in the language of ``templates``."""
    if len(items) <= 1:
        return "".join(items)
    head = word(templates, "sentence.verdict.list_separator").join(items[:-1])
    return head + word(templates, "sentence.verdict.list_last") + items[-1]


def _item(row: Mapping[str, Any], templates: Wording | None) -> str:
    """``nDCG@10 (+0.052, p = 0.003)``, with the size against the difference that matters and
    a disagreeing interval in words."""
    notes = [t for t in (magnitude_text(row, templates), reason_text(row, templates)) if t]
    values = {
        "measure": row["measure"],
        "delta": f"{row['delta']:+.3f}",
        "p": row_p(row, templates),
    }
    if notes:
        return word(templates, "sentence.verdict.item_note").format(**values, note="; ".join(notes))
    return word(templates, "sentence.verdict.item").format(**values)


def _items(records: Sequence[Mapping[str, Any]], templates: Wording | None) -> str:
    """The significant rows of one part: ``A (+0.1, p = 0.01) and B (+0.2, p = 0.03)``; when
    two or more share their p and need no note, the p once: ``A (+0.1), B (+0.2), each
    p < 0.005``."""
    shared = {row_p(r, templates) for r in records}
    noted = any(magnitude_text(r, templates) or reason_text(r, templates) for r in records)
    if len(records) < 2 or len(shared) != 1 or noted:
        return _join([_item(r, templates) for r in records], templates)
    items = [
        word(templates, "sentence.verdict.item_delta").format(
            measure=r["measure"], delta=f"{r['delta']:+.3f}"
        )
        for r in records
    ]
    return word(templates, "sentence.verdict.items_same_p").format(
        items=_join(items, templates), p=shared.pop()
    )


#: One row of the review table as the headline reads it (a record with its index label under
#: ``"_index"``): plain dictionaries, since the headline reads a few fields of few rows many
#: times and a DataFrame selection costs more than the sentence.
Row = dict[str, Any]


def _records(table: pd.DataFrame) -> list[Row]:
    return [dict(r, _index=i) for i, r in zip(table.index, table.to_dict("records"))]


def _ordered(rows: Sequence[Row]) -> list[Row]:
    order = {m: i for i, m in enumerate(measure_order([str(r["measure"]) for r in rows]))}
    return sorted(rows, key=lambda r: order[str(r["measure"])])


def _parts(
    rows: Sequence[Row], templates: Wording | None, *, unclear: str
) -> tuple[list[str], list[int]]:
    """The ``better on …``, ``worse on …`` and ``no clear difference on …`` parts of ``rows``
    and the index labels of the significant rows they name. ``unclear``: ``all`` lists every
    unclear measure (with its size against the difference that matters), ``noted`` those whose
    interval needs words, ``none`` none. Unclear measures that share a note are listed
    together with it once."""
    rows = _ordered(rows)
    parts, named = [], []
    for code in (BETTER, WORSE):
        chosen = [r for r in rows if r["verdict"] == code]
        if chosen:
            parts.append(
                word(templates, f"sentence.verdict.part_{code}").format(
                    items=_items(chosen, templates)
                )
            )
            named += [int(r["_index"]) for r in chosen]
    watch = [r for r in rows if r.get("tier") == WATCH]
    if watch:
        items = [
            word(templates, "sentence.verdict.item_watch").format(
                measure=r["measure"],
                delta=f"{r['delta']:+.3f}",
                p_raw=format_p(float(r["p_raw"]), False, templates),
            )
            for r in watch
        ]
        parts.append(
            word(templates, "sentence.verdict.part_watch").format(items=_join(items, templates))
        )
    by_note: dict[str, list[str]] = {}
    unclear_rows = (r for r in rows if r["verdict"] == UNCLEAR and r["n"] > 0)
    for row in (r for r in unclear_rows if r.get("tier") != WATCH):
        # in a segment only a disagreeing interval needs words ("within what matters" is
        # said of the overall rows; every segment saying it would bury the findings)
        size = magnitude_text(row, templates) if unclear == "all" else ""
        notes = [t for t in (size, reason_text(row, templates)) if t]
        if notes or unclear == "all":
            by_note.setdefault("; ".join(notes), []).append(str(row["measure"]))
    if unclear != "none" and by_note:
        items = [
            _join(measures, templates)
            if not note
            else word(templates, "sentence.verdict.unclear_note").format(
                measure=_join(measures, templates), note=note
            )
            for note, measures in by_note.items()
        ]
        parts.append(
            word(templates, "sentence.verdict.part_unclear").format(
                items=word(templates, "sentence.verdict.list_separator").join(items)
            )
        )
    return parts, named


def _overall(
    rows: Sequence[Row], candidate: str, baseline: str, templates: Wording | None
) -> tuple[list[str], list[int]]:
    names = {"candidate": candidate, "baseline": baseline}
    if not any(r["n"] > 0 for r in rows):
        return [word(templates, "sentence.verdict.no_shared").format(**names)], []
    n = int(max(r["n"] for r in rows))
    parts, named = _parts(rows, templates, unclear="all")
    noted = any(reason_text(r, templates) or magnitude_text(r, templates) for r in rows)
    if not named and not noted:
        return [word(templates, "sentence.verdict.none", n).format(**names, n=n)], []
    separator = word(templates, "sentence.verdict.part_separator")
    sentence = word(templates, "sentence.verdict.overall", n).format(
        **names, n=n, parts=separator.join(parts)
    )
    return [sentence], named


def _defined(value: object) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _power(rows: Sequence[Row], templates: Wording | None) -> list[str]:
    """How small a difference the queries of the unclear overall rows could have shown, and the
    queries the difference that matters needs."""
    unclear = _ordered(
        [r for r in rows if r["verdict"] == UNCLEAR and r["n"] >= 2 and _defined(r["mde"])]
    )
    if not unclear:
        return []
    n = int(max(r["n"] for r in unclear))
    power = f"{float(unclear[0]['power']):.0%}"
    items = [
        word(templates, "sentence.verdict.power_item").format(
            mde=f"{float(r['mde']):.3f}", measure=r["measure"]
        )
        for r in unclear
    ]
    out = [
        word(templates, "sentence.verdict.power", n).format(
            n=n, items=_join(items, templates), power=power
        )
    ]
    wanted = [
        r
        for r in unclear
        if _defined(r["min_effect"]) and r["min_effect"] > 0 and _defined(r["queries_needed"])
    ]
    if wanted:
        needed = [
            word(templates, "sentence.verdict.needed_item").format(
                queries=_queries(float(r["queries_needed"])),
                min_effect=f"{float(r['min_effect']):g}",
                measure=r["measure"],
            )
            for r in wanted
        ]
        out.append(
            word(templates, "sentence.verdict.needed").format(
                power=power, items=_join(needed, templates)
            )
        )
    return out


def _queries(value: float) -> str:
    return "> 10,000,000" if value == float("inf") else f"{int(value):,}"


def _segments(
    rows: Sequence[Row], candidate: str, templates: Wording | None
) -> tuple[list[str], list[int]]:
    if not rows:
        return [], []
    out, named = [], []
    quiet = 0
    for segment in dict.fromkeys(str(r["segment"]) for r in rows):
        part = [r for r in rows if r["segment"] == segment]
        parts, found = _parts(part, templates, unclear="noted")
        if not parts:
            quiet += 1
            continue
        out.append(
            word(templates, "sentence.verdict.segment").format(
                where=segment,
                candidate=candidate,
                parts=word(templates, "sentence.verdict.part_separator").join(parts),
            )
        )
        named += found
    if out and quiet:
        out.append(word(templates, "sentence.verdict.elsewhere", quiet).format(n=quiet))
    elif not out:
        out.append(word(templates, "sentence.verdict.no_segment", quiet).format(n=quiet))
    return out, named


def _leaders(overall: Sequence[Row], pairs: Sequence[Row]) -> dict[str, list[str]]:
    candidates = list(dict.fromkeys(str(r["candidate"]) for r in overall))
    verdicts = {
        (str(r["reference"]), str(r["candidate"]), r["measure"]): r["verdict"] for r in pairs
    }
    better = {(str(r["candidate"]), r["measure"]) for r in overall if r["verdict"] == BETTER}
    out: dict[str, list[str]] = {}
    for measure in measure_order([str(r["measure"]) for r in overall]):
        for candidate in candidates:
            if (candidate, measure) not in better:
                continue
            if all(
                verdicts.get((other, candidate, measure)) == BETTER
                or verdicts.get((candidate, other, measure)) == WORSE
                for other in candidates
                if other != candidate
            ):
                out.setdefault(candidate, []).append(measure)
    return out


def leaders(table: pd.DataFrame) -> dict[str, list[str]]:
    """Candidate -> the measures on which it is significantly better than the baseline and
    than every other candidate (after correction), in :func:`measure_order`."""
    records = _records(table)
    overall = [r for r in records if r["kind"] == BASELINE_KIND and r["segment"] == ALL]
    return _leaders(overall, [r for r in records if r["kind"] == PAIRWISE_KIND])


def _closing(
    overall: Sequence[Row],
    pairs: Sequence[Row],
    candidates: Sequence[str],
    templates: Wording | None,
) -> tuple[list[str], list[int]]:
    """The closing sentences: the significant differences between candidates, who is ahead on
    which measures, or that nobody is."""
    closing: list[str] = []
    named: list[int] = []
    for reference, candidate in dict.fromkeys((r["reference"], r["candidate"]) for r in pairs):
        part = [r for r in pairs if (r["reference"], r["candidate"]) == (reference, candidate)]
        parts, found = _parts(part, templates, unclear="none")
        if found:
            closing.append(
                word(templates, "sentence.verdict.pair").format(
                    candidate=candidate,
                    reference=reference,
                    parts=word(templates, "sentence.verdict.part_separator").join(parts),
                )
            )
            named += found
    if not candidates:
        return closing, named
    baseline = str(overall[0]["reference"])
    ahead = _leaders(overall, pairs)
    if len(candidates) > 1:
        closing += [
            word(templates, "sentence.verdict.ahead").format(
                candidate=c, measures=_join(ahead[c], templates)
            )
            for c in candidates
            if c in ahead
        ]
    if not any(r["verdict"] == BETTER for r in overall):
        closing.append(word(templates, "sentence.verdict.no_winner").format(baseline=baseline))
    elif len(candidates) > 1 and not ahead:
        closing.append(word(templates, "sentence.verdict.no_leader"))
    return closing, named


def headline(table: pd.DataFrame, templates: Wording | None = None) -> Headline:
    """The headline of a review table (see the module docstring)."""
    records = _records(table)
    overall = [r for r in records if r["kind"] == BASELINE_KIND and r["segment"] == ALL]
    segments = [r for r in records if r["kind"] == BASELINE_KIND and r["segment"] != ALL]
    pairs = [r for r in records if r["kind"] == PAIRWISE_KIND]
    sentences: dict[str, list[str]] = {}
    named: list[int] = []
    candidates = list(dict.fromkeys(str(r["candidate"]) for r in overall))
    for candidate in candidates:
        rows = [r for r in overall if r["candidate"] == candidate]
        baseline = str(rows[0]["reference"])
        lines, found = _overall(rows, candidate, baseline, templates)
        lines += _power(rows, templates)
        seg_lines, seg_found = _segments(
            [r for r in segments if r["candidate"] == candidate], candidate, templates
        )
        sentences[candidate] = lines + seg_lines
        named += found + seg_found
    closing, found = _closing(overall, pairs, candidates, templates)
    named += found
    if closing:
        sentences[""] = closing
    return Headline(sentences, [int(i) for i in named])


def verdict_sentences(
    table: pd.DataFrame, templates: Wording | None = None
) -> dict[str, list[str]]:
    """The verdict box: candidate -> its sentences, and ``""`` -> the closing sentences
    (:func:`headline`)."""
    return headline(table, templates).sentences


__all__ = ["Headline", "headline", "leaders", "verdict_sentences"]
