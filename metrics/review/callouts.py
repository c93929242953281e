"""Segment call-outs: the segments where a candidate's difference from the baseline points
against its overall verdict, each with one plain sentence.

They read the rows of :func:`metrics.review.verdict.review_table` (the same corrected p-values as
the segment table and the forest plot) and word them with :mod:`metrics.review.wording`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from metrics.review.compare import Wording
from metrics.review.verdict import BETTER, UNCLEAR, WORSE, overall_rows, segment_rows
from metrics.review.wording import family_text, reason_text, row_p, word


def _contrary_segments(
    table: pd.DataFrame, candidate: str, measure: str, code: str
) -> list[dict[str, Any]]:
    """Segment rows of ``candidate`` on ``measure`` that point against its overall verdict:
    the opposite sign of a significant overall difference; with no clear overall difference, a
    segment that is significant, or that looks significant before the correction (raw p below
    alpha). Significant ones first, then by the size of the difference."""
    part = segment_rows(table, measure)
    part = part[(part["candidate"] == candidate) & (part["n"] > 0)]
    if code == BETTER:
        part = part[part["delta"] < 0]
    elif code == WORSE:
        part = part[part["delta"] > 0]
    else:
        part = part[part["significant"] | (part["p_raw"] < part["alpha"])]
    part = part.assign(_clear=~part["significant"], _size=-part["delta"].abs())
    records: list[dict[str, Any]] = part.sort_values(["_clear", "_size"], kind="stable").to_dict(
        "records"
    )
    return records


def callouts(
    table: pd.DataFrame,
    measure: str,
    templates: Wording | None = None,
    min_queries: int = 20,
) -> pd.DataFrame:
    """Segments where a candidate's difference from the baseline points against its overall
    verdict on ``measure``, with one plain sentence each.

    A segment is listed when its delta has the opposite sign of a significant overall
    difference, or, while the overall difference is not significant, when it is significant or
    looks so before the correction (raw p below alpha). It is called
    better / worse only when significant after correction (the same corrected p as the segment
    table and the forest plot), otherwise "scores lower / higher, not significant".

    Returns
    -------
    DataFrame
        The :func:`review_table` rows (segments), with ``overall_verdict``, ``callout``
        (``worse``, ``better``, ``lower``, ``higher``) and ``sentence``; significant ones first.
    """
    overall = overall_rows(table)
    overall = overall[overall["measure"] == measure]
    found = []
    for row in overall.to_dict("records"):
        for seg in _contrary_segments(table, row["candidate"], measure, row["verdict"]):
            seg = {k: v for k, v in seg.items() if not k.startswith("_")}
            callout = (
                seg["verdict"]
                if seg["verdict"] != UNCLEAR
                else ("lower" if seg["delta"] < 0 else "higher")
            )
            sentence = callout_sentence(row, seg, callout, templates, min_queries)
            found.append(
                seg | {"overall_verdict": row["verdict"], "callout": callout, "sentence": sentence}
            )
    columns = [*table.columns, "overall_verdict", "callout", "sentence"]
    if not found:
        return pd.DataFrame(columns=columns)
    out = pd.DataFrame(found)
    out = out.assign(_clear=~out["significant"].astype(bool)).sort_values("_clear", kind="stable")
    return out[columns].reset_index(drop=True)


def callout_sentence(
    overall: Mapping[str, object],
    segment: Mapping[str, Any],
    kind: str,
    templates: Wording | None = None,
    min_queries: int = 20,
) -> str:
    """The sentence of one :func:`callouts` row."""
    overall_text = word(templates, f"sentence.callout.overall_{overall['verdict']}").format(
        candidate=overall["candidate"],
        baseline=overall["reference"],
        measure=overall["measure"],
        delta=f"{overall['delta']:+.3f}",
        p=row_p(overall, templates),
    )
    numbers = word(templates, "sentence.callout.numbers", int(segment["n"])).format(
        mean_b=f"{segment['mean_b']:.3f}",
        mean_a=f"{segment['mean_a']:.3f}",
        delta=f"{segment['delta']:+.3f}",
        ci_low=f"{segment['ci_adj_low']:+.3f}",
        ci_high=f"{segment['ci_adj_high']:+.3f}",
        n=int(segment["n"]),
        p=row_p(segment, templates),
        family=family_text(segment, templates),
    )
    text = word(templates, f"sentence.callout.{kind}").format(
        overall=overall_text, where=segment["segment"], numbers=numbers
    )
    reason = reason_text(segment, templates)
    if reason:
        text += " " + reason[0].upper() + reason[1:] + "."
    if int(segment["n"]) < min_queries:
        text += word(templates, "sentence.callout.small", int(segment["n"])).format(
            n=int(segment["n"])
        )
    return text


__all__ = ["callout_sentence", "callouts"]
