"""Pure table builders of the Labels page: the study's tables (engine column names) worded for
display in the session's language through ``tr`` (``labels.col.*``, ``labels.stat.*``,
``labels.kind.*``, ``labels.reason.*``, ``labels.verdict.*``). User ids (sources, models,
queries, items) stay as they are: the tables are shown with ``st.dataframe``, never as
Markdown."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from metrics.labels.agreement import Agreement
from metrics.labels.consequence import Consequence

Translate = Callable[..., str]

#: The provenance fields of a source, in the order shown.
PROVENANCE = ("kind", "judge_model", "prompt_hash", "scale", "date")


def _kind_words(value: str, tr: Translate) -> str:
    """``human`` / ``machine`` in words (several joined by ``; ``); other words as given."""
    parts = [p.strip() for p in str(value).split(";") if p.strip()]
    known = {"human", "machine"}
    return "; ".join(tr(f"labels.kind.{p}") if p in known else p for p in parts)


def _reason(code: object, tr: Translate) -> str:
    return tr(f"labels.reason.{code}") if code else ""


def sources_display(summary: pd.DataFrame, tr: Translate) -> pd.DataFrame:
    """One row per source: its name, file, judged pairs and queries, the provenance the file
    gives, and whether it mixes human and machine labels."""
    out = pd.DataFrame(
        {
            tr("labels.col.source"): summary["source"],
            tr("labels.col.file"): summary["file"],
            tr("labels.col.judged_pairs"): summary["judged"],
            tr("labels.col.queries"): summary["queries"],
        }
    )
    for field in PROVENANCE:
        values = summary[field].astype(str)
        if field == "kind":
            values = values.map(lambda v: _kind_words(v, tr))
        out[tr(f"labels.col.{field}")] = values.replace("", "—")
    out[tr("labels.col.mixed")] = [tr("labels.yes") if m else "" for m in summary["mixed"]]
    return out


def pairs_display(agreement: Agreement, tr: Translate) -> pd.DataFrame:
    """One row per pair of sources: items both judged, raw agreement, Cohen's κ (unweighted,
    linear, quadratic), the mean difference and why a κ is undefined."""
    pairs = agreement.pairs
    return pd.DataFrame(
        {
            tr("labels.col.source_a"): pairs["source_a"],
            tr("labels.col.source_b"): pairs["source_b"],
            tr("labels.col.both_judged"): pairs["n"],
            tr("labels.stat.agreement"): pairs["agreement"],
            tr("labels.stat.kappa"): pairs["kappa"],
            tr("labels.stat.kappa_linear"): pairs["kappa_linear"],
            tr("labels.stat.kappa_quadratic"): pairs["kappa_quadratic"],
            tr("labels.col.mean_difference"): pairs["mean_difference"],
            tr("labels.col.reason"): [_reason(r, tr) for r in pairs["reason"]],
        }
    )


def overall_display(agreement: Agreement, tr: Translate) -> pd.DataFrame:
    """Over all sources: pairwise agreement, Fleiss' κ, Krippendorff's α (nominal, ordinal,
    interval), with the items each counts."""
    overall = agreement.overall
    return pd.DataFrame(
        {
            tr("labels.col.statistic"): [tr(f"labels.stat.{s}") for s in overall["statistic"]],
            tr("labels.col.value"): overall["value"],
            tr("labels.col.items"): overall["n"],
            tr("labels.col.reason"): [_reason(r, tr) for r in overall["reason"]],
        }
    )


def items_display(
    agreement: Agreement, names: tuple[str, ...], tr: Translate, top: int
) -> pd.DataFrame:
    """The ``top`` items the sources differ on most: query, item, the largest difference, the
    sources that judged it and each one's grade."""
    items = agreement.items.head(top)
    out = pd.DataFrame(
        {
            tr("column.query"): items["query"],
            tr("column.item"): items["item"],
            tr("labels.col.difference"): items["difference"],
            tr("labels.col.sources_judged"): items["judged"],
        }
    )
    for name in names:
        out[name] = items[name]
    return out


def queries_display(agreement: Agreement, tr: Translate, top: int) -> pd.DataFrame:
    """The ``top`` queries the sources differ on most."""
    queries = agreement.queries.head(top)
    return pd.DataFrame(
        {
            tr("column.query"): queries["query"],
            tr("labels.col.items_compared"): queries["items"],
            tr("labels.col.disagreements"): queries["disagreements"],
            tr("labels.col.share"): queries["share"],
            tr("labels.col.mean_difference_abs"): queries["mean_difference"],
            tr("labels.col.max_difference"): queries["max_difference"],
        }
    )


def means_display(result: Consequence, names: tuple[str, ...], tr: Translate) -> pd.DataFrame:
    """Every measure of every run under each source: one row per measure and run, one column
    per source."""
    means = result.means
    wide = means.pivot_table(
        index=["measure", "model"], columns="source", values="value", sort=False
    )
    wide = wide.reindex(columns=[n for n in names if n in wide.columns]).reset_index()
    wide.columns.name = None
    return wide.rename(columns={"measure": tr("column.measure"), "model": tr("column.model")})


def swaps_text(result: Consequence, measure: str, a: str, b: str, tr: Translate) -> str:
    """The pairs of runs sources ``a`` and ``b`` order differently on ``measure``, as text
    (``x ahead of y under a``), or the words for none."""
    swaps = result.swaps
    part = swaps[
        (swaps["measure"] == measure) & (swaps["source_a"] == a) & (swaps["source_b"] == b)
    ]
    if part.empty:
        return tr("labels.no_swap")
    return tr("labels.pair_separator").join(
        tr("labels.swap", ahead=x, behind=y, a=a, b=b)
        for x, y in zip(part["model_ahead"], part["model_behind"])
    )


def correlations_display(result: Consequence, tr: Translate) -> pd.DataFrame:
    """Per measure and pair of sources: the runs ordered, Kendall's τ_b, τ_AP both ways and the
    swapped pairs named."""
    corr = result.correlations
    return pd.DataFrame(
        {
            tr("column.measure"): corr["measure"],
            tr("labels.col.source_a"): corr["source_a"],
            tr("labels.col.source_b"): corr["source_b"],
            tr("labels.col.systems"): corr["systems"],
            "τ_b": corr["tau_b"],
            tr("labels.col.tau_ap"): corr["tau_ap"],
            tr("labels.col.tau_ap_reverse"): corr["tau_ap_reverse"],
            tr("labels.col.swapped"): [
                _reason(r, tr) if r else swaps_text(result, m, a, b, tr)
                for m, a, b, r in zip(
                    corr["measure"], corr["source_a"], corr["source_b"], corr["reason"]
                )
            ],
        }
    )


def judged_display(result: Consequence, tr: Translate) -> pd.DataFrame:
    """Judged@K per run and source: the share of the top K the source judged, the holes, and
    the queries it judged of the run's."""
    judged = result.judged
    k = int(judged["k"].iloc[0]) if len(judged) else 0
    return pd.DataFrame(
        {
            tr("column.model"): judged["model"],
            tr("labels.col.source"): judged["source"],
            tr("labels.col.judged_at", k=k): judged["judged"],
            tr("labels.col.holes"): judged["holes"],
            tr("labels.col.queries_judged"): [
                f"{q:,} / {n:,}" for q, n in zip(judged["queries"], judged["run_queries"])
            ],
        }
    )


def verdicts_display(result: Consequence, tr: Translate) -> pd.DataFrame:
    """The review's verdict of each candidate against the baseline under each source, the rows
    of a flip marked."""
    v = result.verdicts
    return pd.DataFrame(
        {
            tr("labels.col.candidate"): v["candidate"],
            tr("labels.col.baseline"): v["reference"],
            tr("column.measure"): v["measure"],
            tr("labels.col.source"): v["source"],
            "Δ": v["delta"].astype(float),
            tr("labels.col.p_adjusted"): v["p_adjusted"].astype(float),
            tr("labels.col.verdict"): [tr(f"labels.verdict.{x}") for x in v["verdict"]],
            tr("labels.col.flip"): [tr("labels.flip_mark") if f else "" for f in v["flip"]],
        }
    )


def confusion_counts(agreement: Agreement, a: str, b: str) -> pd.DataFrame:
    """The confusion matrix of sources ``a`` (rows) and ``b`` (columns) as whole counts."""
    return agreement.confusion_matrix(a, b).astype(np.int64)


__all__ = [
    "confusion_counts",
    "correlations_display",
    "items_display",
    "judged_display",
    "means_display",
    "overall_display",
    "pairs_display",
    "queries_display",
    "sources_display",
    "swaps_text",
    "verdicts_display",
]
