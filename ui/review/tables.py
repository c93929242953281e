"""Pure table builders of the review pages: display tables and their colouring (no Streamlit).

Colour carries meaning only together with text: every coloured row also says better, worse or
no clear difference in its verdict column. Column names and categorical values come from the
catalogs through ``tr`` (``ui.shell.i18n.t`` on the pages); the data keeps its codes
(``better``/``worse``/``unclear``, ``new``/``left``/``up``/``down``/``same``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from metrics.engine.settings import LABEL_AGGREGATES, POLICIES, Settings
from metrics.io.export import to_csv_bytes
from metrics.review.compare import CompareOptions, Wording
from metrics.review.rows import ALL
from metrics.review.verdict import COLUMNS, value_column
from metrics.review.wording import family_text, reason_text, row_p
from ui.shell.i18n import translate

Translate = Callable[..., str]
ENGLISH: Translate = partial(translate, lang="en")

#: Significant digits of the numbers in the CSV exports (the JSON export keeps full precision).
CSV_DIGITS = 6

BETTER_BACKGROUND = "background-color: #dafbe1"
WORSE_BACKGROUND = "background-color: #ffebe9"
LABEL_COLOURS = {0: "#f6f8fa", 1: "#fff8c5", 2: "#d2f4d8", 3: "#a7e3b4"}
UNJUDGED = "#eaeef2"


def _row_colour(direction: str, width: int) -> list[str]:
    colour = {"better": BETTER_BACKGROUND, "worse": WORSE_BACKGROUND}.get(direction, "")
    return [colour] * width


def label_colour(label: float) -> str:
    """Background colour of an item with judgment ``label`` (grey when unjudged)."""
    if label is None or (isinstance(label, float) and np.isnan(label)):
        return UNJUDGED
    return LABEL_COLOURS.get(int(min(max(label, 0), 3)), LABEL_COLOURS[3])


def style_ranked_list(items: pd.DataFrame) -> Styler:
    """A drill-down list (:func:`metrics.review.drilldown.side_by_side`): label colours, change
    bold.

    The ``label`` cell is coloured by grade; the ``change`` cell is green for ``new in top K``
    and moves up, red for ``left top K`` and moves down.
    """

    def change_style(value: str) -> str:
        text = str(value)
        if text.startswith("new") or text.startswith("up"):
            return "color: #1a7f37; font-weight: 600"
        if text.startswith("left") or text.startswith("down"):
            return "color: #cf222e; font-weight: 600"
        return "color: #57606a"

    styler = items.style.map(lambda v: f"background-color: {label_colour(v)}", subset=["label"])
    if "change" in items.columns:
        styler = styler.map(change_style, subset=["change"])
    return styler.format({"score": "{:.4g}", "label": "{:g}"}, na_rep="unjudged")


# --------------------------------------------------------------------------- review table


def _fmt(value: float, spec: str) -> str:
    return (
        "—"
        if value is None or (isinstance(value, float) and math.isnan(value))
        else (format(value, spec))
    )


def _ci(row: Mapping[str, Any], adjusted: bool = False) -> str:
    prefix = "ci_adj_" if adjusted else "ci_"
    low, high = float(row[prefix + "low"]), float(row[prefix + "high"])
    return "—" if math.isnan(low) or math.isnan(high) else f"[{low:+.3f}, {high:+.3f}]"


def verdict_words(row: Mapping[str, Any], tr: Translate = ENGLISH) -> str:
    """The verdict of a review-table row for people: ``better``, ``worse``, ``no clear
    difference``, with the size against the difference that matters when one is set
    (``better · smaller than what matters``)."""
    text = tr(f"review.verdict.{row['verdict']}")
    magnitude = str(row.get("magnitude") or "")
    return f"{text} · {tr(f'review.magnitude.{magnitude}')}" if magnitude else text


def _queries(value: float) -> str:
    if value is None or math.isnan(value):
        return "—"
    return "> 10,000,000" if math.isinf(value) else f"{int(value):,}"


def segment_text(value: object, tr: Translate = ENGLISH) -> str:
    """A segment name for display: ``(all)`` and ``(missing)`` in the session's language."""
    text = str(value)
    if text == ALL:
        return tr("review.segment_all")
    return text.replace("(missing)", tr("review.segment_missing"))


def review_display(
    rows: pd.DataFrame,
    tr: Translate = ENGLISH,
    templates: Wording | None = None,
    *,
    full: bool = False,
    segment: bool = False,
    compact: bool = False,
) -> pd.DataFrame:
    """Rows of the review table as people read them, with translated column names.

    The brief form fits the page: candidate (and reference for candidate pairs), measure,
    queries, both means, Δ, relative Δ, the interval of the row's family as text, the corrected
    p as text (a bound ``< 0.0005`` at the floor of the resampling test), the verdict (with the
    size against the difference that matters), why interval and verdict seem to disagree, and
    wins / ties / losses. ``full`` adds the test and family, the unadjusted interval, the raw p
    of the chosen test, the t-test, Wilcoxon and randomization p-values, the effect size (paired
    d), the spread of the differences, the minimum detectable effect and the queries needed.
    ``compact`` (segment rows) leaves out the two means, the relative Δ and wins / ties /
    losses, so that the segment name fits.
    """
    out: dict[str, list] = {}

    def col(name: str) -> str:
        return tr(f"review.col.{name}")

    records = rows.to_dict("records")
    pairwise = bool(len(rows)) and (rows["kind"] == "pairwise").any()
    if pairwise:
        out[col("reference")] = [r["reference"] for r in records]
    out[col("candidate")] = [r["candidate"] for r in records]
    if segment:
        out[col("segment")] = [segment_text(r["segment"], tr) for r in records]
    out[col("measure")] = [r["measure"] for r in records]
    out[col("n")] = [int(r["n"]) for r in records]
    if not compact:
        out[col("mean_a")] = [float(r["mean_a"]) for r in records]
        out[col("mean_b")] = [float(r["mean_b"]) for r in records]
    out[col("delta")] = [float(r["delta"]) for r in records]
    if not compact:
        out[col("relative_delta")] = [float(r["relative_delta"]) for r in records]
    out[col("ci_adj")] = [_ci(r, adjusted=True) for r in records]
    out[col("p_adjusted")] = [row_p(r, templates) for r in records]
    out[col("verdict")] = [verdict_words(r, tr) for r in records]
    notes = [reason_text(r, templates) for r in records]
    if any(notes) or full:
        out[col("note")] = notes
    if not compact:
        out[col("wtl")] = [f"{r['wins']} / {r['ties']} / {r['losses']}" for r in records]
    if full:
        out[col("test")] = [tr(f"review.test.{r['test']}") for r in records]
        out[col("family")] = [family_text(r, templates) for r in records]
        out[col("ci")] = [_ci(r) for r in records]
        out[col("p_raw")] = [float(r["p_raw"]) for r in records]
        out[col("p_randomization")] = [float(r["p_randomization"]) for r in records]
        out[col("p_ttest")] = [float(r["p_ttest"]) for r in records]
        out[col("p_wilcoxon")] = [float(r["p_wilcoxon"]) for r in records]
        out[col("effect_size")] = [float(r["effect_size"]) for r in records]
        out[col("sd")] = [float(r["sd"]) for r in records]
        out[col("mde")] = [float(r["mde"]) for r in records]
        out[col("queries_needed")] = [_queries(float(r["queries_needed"])) for r in records]
    return pd.DataFrame(out)


def phone_display(display: pd.DataFrame, tr: Translate = ENGLISH) -> pd.DataFrame:
    """A worded review table (:func:`review_display`) for a narrow screen: one first column
    naming the row (``hybrid · nDCG@10``; with candidate pairs ``hybrid − dense · nDCG@10``),
    then Δ, the corrected p and the verdict, then every other column as before (a sideways
    scroll away)."""

    def col(name: str) -> str:
        return tr(f"review.col.{name}")

    parts = [col("candidate"), col("measure")]
    label = display[col("candidate")].astype(str)
    if col("reference") in display.columns:
        label = label + " − " + display[col("reference")].astype(str)
        parts.insert(0, col("reference"))
    if col("segment") in display.columns:
        label = label + " · " + display[col("segment")].astype(str)
        parts.append(col("segment"))
    label = label + " · " + display[col("measure")].astype(str)
    first = [col(name) for name in ("delta", "p_adjusted", "verdict")]
    rest = [c for c in display.columns if c not in (*parts, *first)]
    out = display[[c for c in first if c in display.columns] + rest].copy()
    out.insert(0, phone_label(tr), label.to_numpy())
    return out


def phone_label(tr: Translate = ENGLISH) -> str:
    """The header of :func:`phone_display`'s first column (``candidate · measure``)."""
    return f"{tr('review.col.candidate')} · {tr('review.col.measure')}"


def power_display(
    rows: pd.DataFrame, tr: Translate = ENGLISH, *, segment: bool = False
) -> pd.DataFrame:
    """Were there enough queries? Per row: candidate, (segment,) measure, queries, the spread of
    the per-query differences, the minimum detectable effect at the row's level and power, the
    difference it is asked for (the one that matters, else the observed |Δ|) and the queries
    that difference needs."""
    records = rows.to_dict("records")

    def col(name: str) -> str:
        return tr(f"review.col.{name}")

    out: dict[str, list] = {col("candidate"): [r["candidate"] for r in records]}
    if segment:
        out[col("segment")] = [segment_text(r["segment"], tr) for r in records]
    out[col("measure")] = [r["measure"] for r in records]
    out[col("n")] = [int(r["n"]) for r in records]
    out[col("sd")] = [float(r["sd"]) for r in records]
    out[col("power_alpha")] = [float(r["power_alpha"]) for r in records]
    out[col("mde")] = [float(r["mde"]) for r in records]
    out[col("target")] = [
        float(r["min_effect"]) if not math.isnan(float(r["min_effect"])) else abs(float(r["delta"]))
        for r in records
    ]
    out[col("target_kind")] = [
        tr("review.target.min_effect")
        if not math.isnan(float(r["min_effect"]))
        else tr("review.target.observed")
        for r in records
    ]
    out[col("queries_needed")] = [_queries(float(r["queries_needed"])) for r in records]
    return pd.DataFrame(out)


def style_review_table(
    display: pd.DataFrame, codes: Sequence[str], tr: Translate = ENGLISH
) -> Styler:
    """Rows coloured by verdict code (green significantly better, red significantly worse);
    numbers rounded for reading (the exports keep more digits)."""
    formats = {
        tr(f"review.col.{c}"): "{:.4f}"
        for c in ("mean_a", "mean_b", "effect_size", "sd", "mde", "target")
    }
    formats[tr("review.col.power_alpha")] = "{:.4g}"
    formats[tr("review.col.delta")] = "{:+.4f}"
    formats[tr("review.col.relative_delta")] = "{:+.1%}"
    formats.update(
        {
            tr(f"review.col.{c}"): "{:.3g}"
            for c in ("p_raw", "p_randomization", "p_ttest", "p_wilcoxon")
        }
    )
    formats = {c: f for c, f in formats.items() if c in display.columns}
    colours = list(codes)
    return display.style.apply(lambda row: _row_colour(colours[row.name], len(row)), axis=1).format(
        formats, na_rep="—"
    )


def segment_display(
    means: pd.DataFrame,
    rows: pd.DataFrame,
    overall: pd.DataFrame,
    by: list[str],
    models: list[str],
    candidates: list[str],
    tr: Translate = ENGLISH,
    templates: Wording | None = None,
    pooled: bool = False,
) -> pd.DataFrame:
    """One row per segment (and the last row over all queries): queries (``70 (small)`` for a
    small segment), each
    model's mean, and per candidate Δ, corrected p (text) and verdict (the intervals are in the
    forest plot and the exports; left out here so that the table fits the page).

    Parameters
    ----------
    means:
        :func:`metrics.review.segments.segment_means` (with the ``(all)`` row last).
    rows:
        Segment rows of the review table for one measure
        (:func:`metrics.review.verdict.segment_rows`).
    overall:
        Overall rows of the review table for the same measure: fill the last row, so that it
        shows the Compare page's numbers.
    pooled:
        Add each candidate's partially pooled difference beside its raw one.
    """
    stored = [value_column(c) for c in by]
    merged = pd.concat([rows, overall.assign(**dict.fromkeys(stored, ALL))], ignore_index=True)
    merged = merged.drop(columns=[c for c in by if c in COLUMNS]).rename(
        columns=dict(zip(stored, by))
    )
    out = pd.DataFrame()
    for c in by:
        out[c] = [segment_text(v, tr) for v in means[c]]
    out[tr("review.col.n")] = means["n"].to_numpy()
    # small segments are marked next to their size (a column of its own would not fit)
    out[tr("review.col.n")] = [
        f"{int(n)} ({tr('review.fig.small')})" if small else f"{int(n)}"
        for n, small in zip(means["n"], means["small"].to_numpy(dtype=bool))
    ]
    for model in models:
        out[model] = means[model].to_numpy()
    index = (
        pd.MultiIndex.from_frame(means[by].astype(str))
        if len(by) > 1
        else pd.Index(means[by[0]].astype(str))
    )
    for candidate in candidates:
        part = merged[merged["candidate"] == candidate].set_index(by)
        aligned = part.reindex(index)
        records = aligned.reset_index(drop=True).to_dict("records")
        out[f"Δ {candidate}"] = aligned["delta"].to_numpy(dtype=float)
        if pooled:  # partially pooled beside the raw difference (the last row: over all)
            out[tr("review.col.pooled_of", model=candidate)] = aligned["delta_pooled"].to_numpy(
                dtype=float
            )
        out[tr("review.col.p_of", model=candidate)] = [
            row_p(r, templates) if isinstance(r["verdict"], str) else "" for r in records
        ]
        out[tr("review.col.verdict_of", model=candidate)] = [
            verdict_words(r, tr) if isinstance(r["verdict"], str) else "" for r in records
        ]
        notes = [
            reason_text(r, templates) if isinstance(r["verdict"], str) else "" for r in records
        ]
        if any(notes):
            out[tr("review.col.note_of", model=candidate)] = notes
    return out


# --------------------------------------------------------------------------- exports


def change_display(changes: Mapping[str, pd.DataFrame], tr: Translate = ENGLISH) -> pd.DataFrame:
    """One row per candidate: the means of :func:`metrics.review.overlap.ranking_change` (the
    overlap of the top K, RBO and its residual, Kendall's τ, items entered) and how many
    queries kept the same top K."""
    from metrics.review.overlap import summary

    rows = []
    for candidate, table in changes.items():
        found = summary(table)
        rows.append(
            {
                tr("review.col.candidate"): candidate,
                tr("review.col.overlap"): found.get("overlap", math.nan),
                "RBO": found.get("rbo", math.nan),
                tr("review.col.rbo_residual"): found.get("rbo_residual", math.nan),
                "Kendall τ": found.get("kendall_tau", math.nan),
                tr("review.col.entered"): found.get("entered", math.nan),
                tr("review.col.unchanged"): f"{found.get('unchanged', 0)} / {found['queries']}",
            }
        )
    return pd.DataFrame(rows).round(3)


def export_csv(table: pd.DataFrame, decision: Any = None) -> bytes:
    """The review table as Excel-safe CSV, numbers to :data:`CSV_DIGITS` significant digits
    (``0.28``, not ``0.27999999999999997``); with the review's ``decision``
    (:func:`metrics.review.decision.decide`), each row carries its candidate's
    ``recommendation`` and the ``headline`` the pages show."""
    if decision is not None:
        table = table.assign(
            recommendation=[decision.recommendations.get(str(c), "") for c in table["candidate"]],
            headline=decision.text(),
        )
    return to_csv_bytes(table, float_format=f"%.{CSV_DIGITS}g")


def export_json(table: pd.DataFrame, decision: Any = None) -> bytes:
    """The review table as JSON records with full precision (``NaN`` as ``null``); with the
    review's ``decision``, an object of its ``headline``, ``recommendations`` and the ``rows``."""
    records = json.loads(table.to_json(orient="records", double_precision=15))
    document: object = records
    if decision is not None:
        document = {
            "headline": list(decision.headline),
            "recommendations": dict(decision.recommendations),
            "lead": decision.lead,
            "rows": records,
        }
    return json.dumps(document, indent=1, ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------------------- drill-down


def change_text(code: str, moved: int, tr: Translate = ENGLISH) -> str:
    """The words of a change code of :func:`metrics.review.drilldown.side_by_side`."""
    return tr(f"review.change.{code}", n=abs(int(moved)))


def drill_display(items: pd.DataFrame, tr: Translate = ENGLISH) -> pd.DataFrame:
    """A drill-down list with translated column names and change words (codes kept out)."""
    out = pd.DataFrame(
        {
            tr("review.col.rank"): items["rank"].to_numpy(),
            tr("review.col.item"): items["item"].to_numpy(),
            tr("review.col.score"): items["score"].to_numpy(),
            tr("review.col.label"): items["label"].to_numpy(),
        }
    )
    if "change" in items.columns:
        out[tr("review.col.change")] = [
            change_text(c, m, tr) for c, m in zip(items["change"], items["moved"])
        ]
    return out


def style_drill_list(
    display: pd.DataFrame, codes: Sequence[str], tr: Translate = ENGLISH
) -> Styler:
    """Label colours by grade; the change cell green for new / up, red for left / down."""
    label, change = tr("review.col.label"), tr("review.col.change")
    codes = list(codes)

    def change_styles(column: pd.Series) -> list[str]:
        styles = []
        for code in codes:
            if code in ("new", "up"):
                styles.append("color: #1a7f37; font-weight: 600")
            elif code in ("left", "down"):
                styles.append("color: #cf222e; font-weight: 600")
            else:
                styles.append("color: #57606a")
        return styles

    styler = display.style.map(lambda v: f"background-color: {label_colour(v)}", subset=[label])
    if change in display.columns:
        styler = styler.apply(change_styles, subset=[change])
    return styler.format(
        {tr("review.col.score"): "{:.4g}", label: "{:g}"}, na_rep=tr("review.unjudged")
    )


def groups_display(groups: pd.DataFrame, tr: Translate = ENGLISH) -> pd.DataFrame:
    """:func:`metrics.review.verdict.letter_groups` with translated column names."""
    return groups.rename(
        columns={
            "model": tr("review.col.model"),
            "mean": tr("review.col.mean"),
            "letters": tr("review.col.letters"),
        }
    )


def settings_rows(
    settings: Settings,
    options: CompareOptions,
    family: str,
    tr: Translate,
    *,
    min_effect: Sequence[tuple[str, float]] = (),
    power: float = 0.8,
) -> list[tuple[str, str]]:
    """The report's settings and comparison options as worded ``(label, value)`` rows: the
    words of :meth:`Settings.describe` and :meth:`CompareOptions.describe` from the catalogs
    (``policy.<field>.label``, ``policy.<field>.<value>``, ``review.*``)."""
    rows = []
    for name in POLICIES:
        value = getattr(settings, name)
        if name == "relevance_level":
            shown = tr("review_report.prov.relevant", level=f"{value:g}")
        elif name == "max_results":
            shown = (
                tr("review_report.prov.no_limit")
                if value is None
                else tr("review_report.prov.first", n=value)
            )
        elif name == "gain_map":
            shown = tr("review_report.prov.no_gain_map") if value is None else str(value)
        elif name == "score_order_by_model":
            shown = "; ".join(
                f"{model}: {tr(f'policy.score_order.name.{order}')}" for model, order in value
            ) or tr("policy.score_order_by_model.none")
        elif name == "label_source" and value not in (None, *LABEL_AGGREGATES):
            shown = str(value)  # a label source's own name, as the data set gives it
        else:
            shown = tr(f"policy.{name}.{value}")
        rows.append((tr(f"policy.{name}.label"), shown))
    if settings.averaging == "weighted":
        rows.append((tr("frame.weight_column"), str(settings.weight_column)))
    resamples = f"{options.resamples:,}"
    rows += [
        (tr("review.policy"), tr(f"review.policy.{options.policy}")),
        (
            tr("review_report.prov.interval"),
            tr(
                "review_report.prov.interval_value",
                confidence=f"{options.confidence:.0%}",
                resamples=resamples,
            ),
        ),
        (
            tr("review.test"),
            tr(
                "review_report.prov.test_value",
                test=tr(f"review.test.{options.test}"),
                resamples=resamples,
            ),
        ),
        (tr("review.correction"), tr(f"review.correction.{options.correction}")),
        (tr("review.alpha"), tr("review_report.prov.alpha_value", alpha=f"{options.alpha:g}")),
        (tr("review.seed"), str(options.seed)),
        (tr("review_report.html.prov.family"), tr(f"review.family.{family}")),
        (tr("review.power"), f"{power:.0%}"),
        (
            tr("review.min_effect"),
            ", ".join(f"{m} {v:g}" for m, v in min_effect) or tr("review.min_effect_none"),
        ),
    ]
    return rows


__all__ = [
    "CSV_DIGITS",
    "change_display",
    "change_text",
    "drill_display",
    "export_csv",
    "export_json",
    "groups_display",
    "label_colour",
    "power_display",
    "review_display",
    "segment_display",
    "segment_text",
    "settings_rows",
    "style_drill_list",
    "style_ranked_list",
    "style_review_table",
    "verdict_words",
]
