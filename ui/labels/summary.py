"""The Labels page's first lines, as pure functions: the verdicts that flip with the label
source (named at the top of the page), and one sentence each on agreement, orderings and holes.
Words come from the catalogs through ``tr``; user ids go through ``escape`` (Markdown)."""

from __future__ import annotations

import math
from collections.abc import Callable

from metrics.labels.study import LabelStudy

Translate = Callable[..., str]
Escape = Callable[[object], str]


def number(value: float, digits: int = 2) -> str:
    """A statistic as shown (``—`` when undefined)."""
    return "—" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def flip_lines(study: LabelStudy, tr: Translate, escape: Escape) -> list[str]:
    """One sentence per candidate and measure whose verdict differs by label source, naming
    the verdict under each source."""
    result = study.consequence
    if result is None or result.verdicts.empty:
        return []
    lines = []
    for (candidate, measure), part in result.flips.groupby(["candidate", "measure"], sort=False):
        under = tr("labels.separator").join(
            tr("labels.under", verdict=tr(f"labels.verdict.{v}"), source=escape(s))
            for s, v in zip(part["source"], part["verdict"])
        )
        lines.append(
            tr(
                "labels.flip",
                candidate=escape(candidate),
                baseline=escape(part["reference"].iloc[0]),
                measure=escape(measure),
                under=under,
            )
        )
    return lines


def agreement_lines(study: LabelStudy, tr: Translate, escape: Escape) -> list[str]:
    """Per pair of sources: the items both judged, raw agreement and Cohen's κ (or why it is
    undefined)."""
    lines = []
    for row in study.agreement.pairs.to_dict("records"):
        values = {
            "a": escape(row["source_a"]),
            "b": escape(row["source_b"]),
            "n": int(row["n"]),
            "items": f"{int(row['n']):,}",
        }
        if row["reason"]:
            reason = tr(f"labels.reason.{row['reason']}")
            lines.append(tr("labels.line.agreement_undefined", reason=reason, **values))
            continue
        lines.append(
            tr(
                "labels.line.agreement",
                agreement=number(row["agreement"]),
                kappa=number(row["kappa"]),
                quadratic=number(row["kappa_quadratic"]),
                **values,
            )
        )
    return lines


def ordering_lines(study: LabelStudy, tr: Translate, escape: Escape) -> list[str]:
    """How the runs' orderings compare across sources: the same on every measure, or the
    measures and pairs of runs that swap."""
    result = study.consequence
    if result is None:
        return []
    corr = result.correlations
    defined = corr[corr["reason"] == ""]
    if defined.empty:
        return [tr("labels.line.one_run")]
    if not len(result.swaps):
        low = float(defined["tau_b"].min())
        return [tr("labels.line.same_order", n=len(set(defined["measure"])), tau=number(low))]
    lines = []
    for measure, part in result.swaps.groupby("measure", sort=False):
        pairs = tr("labels.pair_separator").join(
            tr("labels.swap", ahead=escape(x), behind=escape(y), a=escape(a), b=escape(b))
            for x, y, a, b in zip(
                part["model_ahead"], part["model_behind"], part["source_a"], part["source_b"]
            )
        )
        taus = defined[defined["measure"] == measure]["tau_b"]
        lines.append(
            tr(
                "labels.line.swapped",
                measure=escape(measure),
                pairs=pairs,
                tau=number(float(taus.min()) if len(taus) else float("nan")),
            )
        )
    return lines


def holes_line(study: LabelStudy, tr: Translate, escape: Escape) -> str | None:
    """The source that leaves the most of a run's top K unjudged, when any does."""
    result = study.consequence
    if result is None or result.judged.empty:
        return None
    judged = result.judged
    worst = judged.iloc[int(judged["holes"].to_numpy().argmax())]
    if float(worst["holes"]) <= 0:
        return tr("labels.line.no_holes", k=int(worst["k"]))
    return tr(
        "labels.line.holes",
        source=escape(worst["source"]),
        model=escape(worst["model"]),
        share=f"{float(worst['holes']):.0%}",
        k=int(worst["k"]),
    )


__all__ = ["agreement_lines", "flip_lines", "holes_line", "number", "ordering_lines"]
