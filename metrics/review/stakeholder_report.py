"""A stakeholder report: one self-contained HTML file and its tables as Excel-safe CSV.

:func:`build_report_html` turns a :class:`ReportInputs` into a single HTML page, written as a
decision document whose first screen is the executive summary (the headline of the Compare
page) and one chart of the measure the review decides on, each candidate's difference overall
and per segment (:attr:`ReportInputs.lead_figures`); then the headline figures (and the
candidates against each other), a glossary of the measures used (from the registry), the
segment findings, charts, data health and the exact settings and provenance needed to reproduce
the numbers. The charts are pictures given by the caller (SVG: the document stays light enough
to mail and opens at once, with no script to run), or interactive plotly charts with plotly.js
inlined once (a file of about 5 MB that still works offline). Every
number comes from the one review table (:func:`metrics.review.verdict.review_table`), so the
report says what the pages say.

The words are :data:`REPORT_TEMPLATES` (English) or the caller's translation of them
(``ReportInputs.words``, ``ReportInputs.lang``); tables may be passed already worded
(``*_display``). Every user string (data set name, model names, ids, segment values, messages)
is HTML-escaped. :func:`report_tables` and :func:`report_zip` give the tables as CSV.

Pure: no Streamlit; figures are passed in as plotly objects.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd

from metrics.engine.registry import lead_measure, parse_measure
from metrics.engine.settings import Settings
from metrics.io.export import to_csv_bytes
from metrics.io.text_safety import visible
from metrics.review.compare import CompareOptions, Wording, count_form
from metrics.review.headline import verdict_sentences
from metrics.review.overlap import DEFAULT_PERSISTENCE
from metrics.review.rows import SUMMARY_VIEW, view
from metrics.review.verdict import overall_rows, pairwise_rows, segment_rows
from metrics.review.wording import family_caption, interval_text, row_p

_CSS = """
body{font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,"Noto Sans CJK SC",
"Noto Sans CJK JP","PingFang SC","Hiragino Sans","Microsoft YaHei",sans-serif;margin:0;
color:#1f2328;background:#fff;overflow-wrap:break-word}
main{max-width:1100px;margin:0 auto;padding:24px 32px 64px}
h1{font-size:1.7rem;margin:0 0 4px}h2{font-size:1.25rem;margin:36px 0 10px;border-bottom:1px
solid #d0d7de;padding-bottom:4px}.muted{color:#57606a}.headline{font-size:1.05rem;
line-height:1.5}.headline li{margin:4px 0}
.table-wrap{overflow-x:auto;max-width:100%;margin:8px 0 16px}
table{border-collapse:collapse;margin:0;font-size:.88rem}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;word-break:keep-all}:lang(zh) th,:lang(ja) th{white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
:lang(zh) td,:lang(ja) td{min-width:4em;word-break:keep-all}
tr.better td{background:#dafbe1}tr.worse td{background:#ffebe9}
.callout{border-left:4px solid #cf222e;background:#fff5f5;padding:8px 12px;margin:8px 0}
.note{border-left:4px solid #bf8700;background:#fff8c5;padding:8px 12px;margin:8px 0}
.chart{margin:12px 0 24px}figure.chart img{display:block;max-width:100%;height:auto}
figure.chart figcaption{font-size:.85rem;margin-top:4px}
code{font-size:.85rem;background:#f6f8fa;padding:1px 4px}
pre{white-space:pre-wrap;overflow-wrap:anywhere}
.verdict{border:2px solid #0072B2;border-radius:8px;padding:10px 18px;margin:12px 0 8px;
background:#f5f9fd}.verdict p{margin:6px 0;line-height:1.5}.verdict .closing{font-weight:600}
h2.first{margin-top:20px}.lead h2{border-bottom:0;margin:20px 0 0}.lead figure.chart{margin-top:4px}
.phone-only{display:none}
dl.glossary dt{font-weight:600;margin-top:8px}dl.glossary dd{margin:2px 0 0 16px}
@media (max-width:640px){main{padding:12px 12px 48px}h1{font-size:1.35rem}
h2{font-size:1.1rem}.verdict{padding:6px 10px}table{font-size:.8rem}
dl.glossary dd{margin-left:8px}.wide-only{display:none}.phone-only{display:block}}
"""

#: English wording of the report; pass a mapping with the same keys (and placeholders) as
#: ``ReportInputs.words`` to write the report in another language.
REPORT_TEMPLATES: dict[str, str] = {
    "review_report.html.title": "Model review",
    "review_report.html.meta": (
        "Baseline {baseline} · {n} queries · generated {when} · data hash {hash}"
    ),
    "review_report.html.summary": "Executive summary",
    "review_report.html.details": "Every row's statistics",
    "review_report.html.figures": "Headline figures",
    "review_report.html.figures_note": "Green rows: significantly better than the baseline, red: "
    "significantly worse (corrected p < {alpha}); no colour: no clear difference. Intervals: "
    "{interval}, from the paired bootstrap over queries. Corrected p: {family}.",
    "review_report.html.power": "Were there enough queries?",
    "review_report.html.power_note": "Minimum detectable effect: the smallest true difference "
    "these queries would show with {power} power, at the level each row's family gives it "
    "(Bonferroni's level, from the spread of the per-query differences). Queries needed: for "
    "the difference that matters, or for the observed difference when none is set.",
    "review_report.html.change": "How much the rankings changed",
    "review_report.html.change_note": "Whatever the judgments say: the share of the top {k} the "
    "candidate's lists and the baseline's hold in common (overlap), their rank-biased overlap "
    "(RBO, p = {p}) and Kendall's τ on the items both hold, averaged over the queries.",
    "review_report.html.groups": "Models that cannot be told apart ({measure})",
    "review_report.html.groups_note": "Models sharing a letter are not significantly different "
    "after the correction; a is the group of the best mean.",
    "review_report.html.pairwise": "Candidates against each other",
    "review_report.html.pairwise_note": (
        "Each row: the candidate minus the reference. Corrected p: {family}."
    ),
    "review_report.html.glossary": "Measures used",
    "review_report.html.segments": "Segment findings",
    "review_report.html.segments_none": (
        "In every segment, each candidate's difference from the baseline points the same way "
        "as overall on {measure}."
    ),
    "review_report.html.segments_note": "Intervals: {interval}. Corrected p: {family}.",
    "review_report.html.charts": "Charts",
    "review_report.html.pictures_note": "The charts are pictures, so that this file stays "
    "small; the interactive report (a larger file) lets you hover over them and zoom.",
    "review_report.html.no_picture": "The chart “{chart}” could not be drawn as a picture "
    "here; the interactive report has it.",
    "review_report.html.health": "Data health",
    "review_report.html.health_ok": "No problems were found in the data.",
    "review_report.html.provenance": "Settings and provenance",
    "review_report.html.json": "The same settings as JSON, for scripts",
    "review_report.html.col.setting": "setting",
    "review_report.html.col.value": "value",
    "review_report.html.col.severity": "severity",
    "review_report.html.col.message": "what was found",
    "review_report.html.col.count": "count",
    "review_report.html.col.examples": "examples",
    "review_report.html.col.action": "what happens / fix",
    "review_report.html.prov.data": "Data set",
    "review_report.html.prov.hash": "Content hash (SHA-256)",
    "review_report.html.prov.models": "Models",
    "review_report.html.prov.baseline": "Baseline",
    "review_report.html.prov.queries": "Queries",
    "review_report.html.prov.measures": "Measures",
    "review_report.html.prov.ks": "K values of the curves",
    "review_report.html.prov.relevance": "Relevance level (value)",
    "review_report.html.prov.gain": "Gain (value)",
    "review_report.html.prov.averaging": "Averaging (value)",
    "review_report.html.prov.means": "Comparison means",
    "review_report.html.prov.means_value": "macro means over the paired queries",
    "review_report.html.prov.family": "Correction family",
    "review_report.html.yes": "yes",
    "review_report.html.no": "no",
    "review_report.html.left_out": "This report is built from a table of per-query values: the "
    "comparison, verdict, significance and segments come from it. Left out, because they need "
    "the ranked lists and judgments, or the table does not record them:",
    "review_report.html.left_out.health": "the data health checks of the runs and judgments "
    "(repeated items, tied scores, short lists, unjudged queries)",
    "review_report.html.left_out.curve": "the Δ curve of {measure}: the table has it at fewer "
    "than two K from {k_from} to {k_to}",
    "review_report.html.left_out.settings": "the settings the values were computed with: the "
    "table does not record them, so the evaluation settings listed below are this session's",
    "review_report.html.health_per_query": "Not checked: the data health checks read the runs "
    "and judgments, and this data set holds per-query values only.",
}


@dataclass
class ReportInputs:
    """Everything one report shows.

    Attributes
    ----------
    dataset_name, content_hash, description:
        Which data (the hash identifies the exact content).
    models, baseline:
        Models evaluated and the reference one.
    measures, ks:
        Measures of the comparison (names such as ``nDCG@10``) and the cutoffs of the curves.
    n_queries:
        Number of queries in the data.
    settings, options:
        Engine settings and comparison options.
    review:
        The one review table (:func:`metrics.review.verdict.review_table`): overall, segment
        and pairwise rows. Every number of the report comes from it.
    family:
        Correction family of the review (``view`` or ``all``).
    verdict:
        Candidate -> sentences, ``""`` -> closing sentence
        (:func:`metrics.review.headline.verdict_sentences`); from ``review`` in English when
        empty.
    headline, recommendations:
        The decision's sentences (:attr:`metrics.review.decision.Decision.headline`) and each
        candidate's recommendation in words, ``(candidate, words)``: the executive summary,
        with the verdict's per-row sentences one click away. Without a headline the summary
        is the verdict.
    figures_display, pairwise_display, segment_display:
        Worded tables (translated columns) of the overall, pairwise and segment rows; plain
        English ones from ``review`` when ``None``.
    callout_sentences:
        ``(kind, sentence)`` of :func:`metrics.review.callouts.callouts` (``worse`` is shown as
        an alert, the others as notes).
    family_texts:
        Worded family of the overall, pairwise and segment rows (``overall``, ``pairwise``,
        ``segments`` keys); from ``review`` in English when empty.
    glossary:
        ``(measure, name, what it answers)``; from the registry in English when empty.
    segment_by:
        Segment columns of the review (empty when there is none).
    findings:
        Validation findings (``Report.to_frame()``): severity, message, count, examples, action.
    figures:
        ``(title, plotly figure)`` pairs, drawn in order.
    title:
        Report title (``review_report.html.title`` of ``words`` when empty).
    generated_at:
        Timestamp text (UTC now when empty).
    extra_provenance:
        More ``label -> value`` pairs for the settings section (e.g. software versions).
    settings_rows:
        ``(label, value)`` rows of the settings and comparison options, worded by the caller;
        when empty, :meth:`Settings.describe`, :meth:`CompareOptions.describe` and the raw
        values, in English.
    words, lang:
        Wording (keys of :data:`REPORT_TEMPLATES`; missing keys stay English) and the language
        code of the document.
    per_query:
        The data set is a table of per-query values (no ranked lists): the report says which
        sections are left out (:func:`left_out`) and that data health was not checked.
    missing_curves:
        ``(measure, k_from, k_to)`` of each Δ curve left out because the per-query table has
        the measure at fewer than two K in that range.
    power_display:
        Worded power table of the overall rows (minimum detectable effect, queries needed);
        left out when ``None``.
    groups:
        ``(measure, worded letter table)`` of the compact letter display of each measure, for
        reviews of three or more models.
    interval_texts:
        How the intervals of the overall and segment rows were made, in words (``overall``,
        ``segments`` keys); from ``review`` in English when empty.
    min_effect, power:
        The smallest differences that matter and the power of the review (for the provenance).
    change_display, change_k:
        Worded ranking change of each candidate (:func:`metrics.review.overlap.summary`) at
        the cutoff ``change_k``; left out when ``None``.
    lead_measure:
        The measure the review decides on (:func:`metrics.review.decision.lead_measure` of
        ``measures`` when empty): the first screen's chart and the segment findings follow it.
    lead_title, lead_note, lead_figures:
        The first screen's chart of the lead measure, under the headline: its title, what its
        bars and marks are in words, and the figure laid out for a wide screen, then (when
        given) for a phone; left out when ``lead_figures`` is empty.
    """

    dataset_name: str
    content_hash: str
    models: list[str]
    baseline: str
    measures: list[str]
    ks: list[int]
    n_queries: int
    settings: Settings
    options: CompareOptions
    review: pd.DataFrame
    family: str = "view"
    description: str = ""
    verdict: dict[str, list[str]] = field(default_factory=dict)
    headline: list[str] = field(default_factory=list)
    recommendations: list[tuple[str, str]] = field(default_factory=list)
    figures_display: pd.DataFrame | None = None
    pairwise_display: pd.DataFrame | None = None
    segment_display: pd.DataFrame | None = None
    callout_sentences: list[tuple[str, str]] = field(default_factory=list)
    family_texts: dict[str, str] = field(default_factory=dict)
    glossary: list[tuple[str, str, str]] = field(default_factory=list)
    segment_by: list[str] = field(default_factory=list)
    findings: pd.DataFrame | None = None
    figures: list[tuple[str, Any]] = field(default_factory=list)
    title: str = ""
    generated_at: str = ""
    extra_provenance: dict[str, str] = field(default_factory=dict)
    settings_rows: list[tuple[str, str]] = field(default_factory=list)
    words: Wording = field(default_factory=dict)
    lang: str = "en"
    per_query: bool = False
    missing_curves: list[tuple[str, int, int]] = field(default_factory=list)
    power_display: pd.DataFrame | None = None
    groups: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    interval_texts: dict[str, str] = field(default_factory=dict)
    min_effect: tuple[tuple[str, float], ...] = ()
    power: float = 0.8
    change_display: pd.DataFrame | None = None
    change_k: int = 10
    lead_measure: str = ""
    lead_title: str = ""
    lead_note: str = ""
    lead_figures: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if not self.lead_measure:
            self.lead_measure = lead_measure(self.measures)

    def word(self, key: str, **values: object) -> str:
        n = values.get("n")
        text = count_form(
            self.words.get(key, REPORT_TEMPLATES[key]), n if isinstance(n, int) else None
        )
        return text.format(**values) if values else text


def left_out(inputs: ReportInputs) -> list[str]:
    """What a report on per-query values leaves out, one worded item each (empty for a data
    set with ranked lists): data health, the Δ curves without two K, the settings of the values.
    """
    if not inputs.per_query:
        return []
    w = inputs.word
    items = [w("review_report.html.left_out.health")]
    items += [
        w("review_report.html.left_out.curve", measure=m, k_from=a, k_to=b)
        for m, a, b in inputs.missing_curves
    ]
    items.append(w("review_report.html.left_out.settings"))
    return items


def _left_out_html(inputs: ReportInputs) -> list[str]:
    items = left_out(inputs)
    if not items:
        return []
    listed = "".join(f"<li>{_e(item)}</li>" for item in items)
    return [
        f'<div class="note" id="left-out"><p>{_e(inputs.word("review_report.html.left_out"))}'
        f"</p><ul>{listed}</ul></div>"
    ]


def glossary_of(measures: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(measure, name, what it answers)`` of each measure, from the registry (English)."""
    out = []
    for name in measures:
        definition = parse_measure(name).definition
        out.append((name, definition.pretty, definition.description))
    return out


# --------------------------------------------------------------------------- helpers


def _e(value: object) -> str:
    return html.escape(visible(value), quote=True)


def _cell(value: object, column: str, words: Wording | None = None) -> tuple[str, bool]:
    """Formatted cell text and whether it is numeric."""
    if isinstance(value, (bool, np.bool_)):
        key = "review_report.html.yes" if value else "review_report.html.no"
        return count_form((words or REPORT_TEMPLATES).get(key, REPORT_TEMPLATES[key])), False
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}", True
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "—", True
        if column.startswith("p"):
            return f"{value:.3g}", True
        if column.startswith("Δ %") or column == "relative_delta":
            return f"{value:+.1%}", True
        if column in ("delta", "ci_low", "ci_high") or column.startswith("Δ"):
            return f"{value:+.4f}", True
        if column == "relative_delta":
            return f"{value:+.1%}", True
        return f"{value:.4f}", True
    return str(value), False


def html_table(
    frame: pd.DataFrame,
    row_class: Sequence[str] | None = None,
    words: Wording | None = None,
) -> str:
    """An HTML table of ``frame`` with every header and cell escaped; numbers right-aligned."""
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = []
    for i, row in enumerate(frame.itertuples(index=False)):
        cells = []
        for column, value in zip(frame.columns, row):
            text, numeric = _cell(value, str(column), words)
            cells.append(f'<td class="num">{_e(text)}</td>' if numeric else f"<td>{_e(text)}</td>")
        cls = f' class="{_e(row_class[i])}"' if row_class is not None and row_class[i] else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'<div class="table-wrap">{table}</div>'  # a wide table scrolls, not the page


def summary_table(comparison: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """The comparison columns a stakeholder reads: who, what, how much, how sure."""
    table = view(comparison, SUMMARY_VIEW, by).copy()
    return table.rename(columns={"mean_a": "baseline mean", "mean_b": "candidate mean"})


def provenance(inputs: ReportInputs) -> list[tuple[str, str]]:
    """(label, value) pairs that pin down how the numbers were made."""
    w = inputs.word
    rows = [
        (w("review_report.html.prov.data"), inputs.dataset_name),
        (w("review_report.html.prov.hash"), inputs.content_hash),
        (w("review_report.html.prov.models"), ", ".join(inputs.models)),
        (w("review_report.html.prov.baseline"), inputs.baseline),
        (w("review_report.html.prov.queries"), f"{inputs.n_queries:,}"),
        (w("review_report.html.prov.measures"), ", ".join(inputs.measures)),
        (w("review_report.html.prov.ks"), ", ".join(str(k) for k in inputs.ks)),
    ]
    if inputs.settings_rows:
        rows += inputs.settings_rows
    else:
        rows += [(label, value) for label, value in inputs.settings.describe()]
        rows += [
            (w("review_report.html.prov.relevance"), f"{inputs.settings.relevance_level:g}"),
            (w("review_report.html.prov.gain"), inputs.settings.gain),
            (w("review_report.html.prov.averaging"), inputs.settings.averaging),
        ]
        rows += inputs.options.describe()
        rows.append((w("review_report.html.prov.family"), inputs.family))
    rows.append((w("review_report.html.prov.means"), w("review_report.html.prov.means_value")))
    rows += list(inputs.extra_provenance.items())
    return rows


def _provenance_json(inputs: ReportInputs) -> str:
    document = {
        "dataset": inputs.dataset_name,
        "content_hash": inputs.content_hash,
        "models": inputs.models,
        "baseline": inputs.baseline,
        "measures": inputs.measures,
        "ks": [int(k) for k in inputs.ks],
        "settings": inputs.settings.to_dict(),
        "options": {
            "policy": inputs.options.policy,
            "resamples": inputs.options.resamples,
            "seed": inputs.options.seed,
            "confidence": inputs.options.confidence,
            "correction": inputs.options.correction,
            "test": inputs.options.test,
            "alpha": inputs.options.alpha,
            "min_effect": dict(inputs.min_effect),
            "power": inputs.power,
        },
        "family": inputs.family,
        "segments": list(inputs.segment_by),
        "generated_at": inputs.generated_at,
    }
    text = json.dumps(document, indent=1, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def report_charts(inputs: ReportInputs) -> list[Any]:
    """Every figure of the report in the order of its pictures (:func:`build_report_html`):
    the lead chart (wide, then for a phone), then the charts of the Charts section."""
    return [*inputs.lead_figures, *(figure for _, figure in inputs.figures)]


def _figure_html(figure: Any, index: int) -> str:
    return str(
        figure.to_html(
            full_html=False,
            include_plotlyjs=index == 0,
            div_id=f"chart-{index}",
            config={"displaylogo": False, "responsive": True},
        )
    )


def _svg_source(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _picture_html(
    title: str, svg: str | None, inputs: ReportInputs, phone: str | None = None, caption: str = ""
) -> str:
    """A chart given as an SVG picture, as an image (never as markup of its own: an SVG image
    runs no script), with the picture laid out for a phone when given; or the note that it
    could not be drawn."""
    if not svg:
        return (
            f'<p class="note">{_e(inputs.word("review_report.html.no_picture", chart=title))}</p>'
        )
    image = f'<img alt="{_e(title)}" src="{_svg_source(svg)}">'
    if phone:
        image = (
            f'<picture><source media="(max-width: 640px)" srcset="{_svg_source(phone)}">'
            f"{image}</picture>"
        )
    text = f'<figcaption class="muted">{_e(caption)}</figcaption>' if caption else ""
    return f'<figure class="chart">{image}{text}</figure>'


def _lead_html(inputs: ReportInputs, pictures: Sequence[str | None] | None) -> list[str]:
    """The first screen's chart of the lead measure (:attr:`ReportInputs.lead_figures`): as
    pictures, the phone's one shown on narrow screens, or interactive, likewise."""
    if not inputs.lead_figures:
        return []
    title = inputs.lead_title or inputs.lead_measure
    parts = ['<section class="lead" id="lead">', f"<h2>{_e(title)}</h2>"]
    if pictures is not None:
        phone = pictures[1] if len(pictures) > 1 else None
        parts.append(_picture_html(title, pictures[0], inputs, phone, inputs.lead_note))
    else:
        places = ("wide-only", "phone-only") if len(inputs.lead_figures) > 1 else ("",)
        for i, (figure, place) in enumerate(zip(inputs.lead_figures, places)):
            parts.append(
                f'<div class="chart {place}" role="figure" aria-label="{_e(title)}">'
                f"{_figure_html(figure, i)}</div>"
            )
        if inputs.lead_note:
            parts.append(f'<p class="muted">{_e(inputs.lead_note)}</p>')
    parts.append("</section>")
    return parts


def _classes(table: pd.DataFrame) -> list[str]:
    column = "verdict" if "verdict" in table.columns else "direction"
    if column not in table.columns:
        return [""] * len(table)
    return [{"better": "better", "worse": "worse"}.get(d, "") for d in table[column]]


def software_versions(
    packages: Sequence[str] = ("numpy", "pandas", "pyarrow", "plotly"),
) -> dict[str, str]:
    """``{"Software": "numpy 2.4.0, pandas 3.1.1, ..."}`` for the provenance table."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in packages:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            continue
    return {"Software": ", ".join(found)}


# --------------------------------------------------------------------------- report


def _plain_display(rows: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """English summary columns of review rows (when the caller gives no worded table)."""
    table = summary_table(rows, by).copy()
    if "p_adjusted" in table.columns:
        table["p_adjusted"] = [row_p(r) for r in rows.to_dict("records")]
    if "segment" in rows.columns and len(by):
        table.insert(1, "segment", rows["segment"].to_numpy())
        table = table.drop(columns=[c for c in by if c in table.columns])
    if "reference" in rows.columns and (rows["kind"] == "pairwise").any():
        table.insert(0, "reference", rows["reference"].to_numpy())
    return table


def _family_of(inputs: ReportInputs, name: str, rows: pd.DataFrame) -> str:
    if name in inputs.family_texts:
        return inputs.family_texts[name]
    return family_caption(rows)


def _interval_of(inputs: ReportInputs, name: str, rows: pd.DataFrame) -> str:
    if name in inputs.interval_texts:
        return inputs.interval_texts[name]
    return interval_text(rows)


def _joined(lines: Sequence[str]) -> str:
    """Sentences as one paragraph: Chinese and Japanese ones (ending in 。) follow each other
    without a space."""
    return "".join(lines) if lines and lines[0].endswith("。") else " ".join(lines)


def _summary_html(inputs: ReportInputs) -> list[str]:
    """The executive summary: the decision's headline (each candidate's recommendation, then
    its sentences) with the verdict's per-row sentences one click away, or the verdict."""
    verdict = inputs.verdict or verdict_sentences(inputs.review)
    rows = [f"<p>{_e(_joined(lines))}</p>" for candidate, lines in verdict.items() if candidate]
    rows += [f'<p class="closing">{_e(line)}</p>' for line in verdict.get("", [])]
    summary = _e(inputs.word("review_report.html.summary"))
    parts = [f'<h2 class="first">{summary}</h2>', '<div class="verdict">']
    if inputs.headline:
        parts += [
            f'<p class="closing">{_e(candidate)}: {_e(words)}</p>'
            for candidate, words in inputs.recommendations
        ]
        parts.append(f'<p class="headline">{_e(_joined(inputs.headline))}</p>')
        details = _e(inputs.word("review_report.html.details"))
        parts += [f'<details class="rows"><summary class="muted">{details}</summary>', *rows]
        parts.append("</details>")
    else:
        parts += rows
    parts.append("</div>")
    return parts


def _figures_html(inputs: ReportInputs) -> list[str]:
    overall = overall_rows(inputs.review)
    shown = inputs.figures_display
    if shown is None:
        shown = _plain_display(overall)
    parts = [f"<h2>{_e(inputs.word('review_report.html.figures'))}</h2>"]
    parts.append(html_table(shown, _classes(overall), inputs.words))
    parts.append(
        '<p class="muted">'
        + _e(
            inputs.word(
                "review_report.html.figures_note",
                alpha=f"{inputs.options.alpha:g}",
                interval=_interval_of(inputs, "overall", overall),
                family=_family_of(inputs, "overall", overall),
            )
        )
        + "</p>"
    )
    pairs = pairwise_rows(inputs.review)
    if len(pairs):
        shown = inputs.pairwise_display
        if shown is None:
            shown = _plain_display(pairs)
        parts.append(f"<h2>{_e(inputs.word('review_report.html.pairwise'))}</h2>")
        parts.append(html_table(shown, _classes(pairs), inputs.words))
        parts.append(
            '<p class="muted">'
            + _e(
                inputs.word(
                    "review_report.html.pairwise_note", family=_family_of(inputs, "pairwise", pairs)
                )
            )
            + "</p>"
        )
    return parts


def _power_html(inputs: ReportInputs) -> list[str]:
    if inputs.power_display is None or not len(inputs.power_display):
        return []
    return [
        f"<h2>{_e(inputs.word('review_report.html.power'))}</h2>",
        html_table(inputs.power_display, words=inputs.words),
        '<p class="muted">'
        + _e(inputs.word("review_report.html.power_note", power=f"{inputs.power:.0%}"))
        + "</p>",
    ]


def _change_html(inputs: ReportInputs) -> list[str]:
    if inputs.change_display is None or not len(inputs.change_display):
        return []

    note = inputs.word("review_report.html.change_note", k=inputs.change_k, p=DEFAULT_PERSISTENCE)
    return [
        f"<h2>{_e(inputs.word('review_report.html.change'))}</h2>",
        html_table(inputs.change_display, words=inputs.words),
        f'<p class="muted">{_e(note)}</p>',
    ]


def _groups_html(inputs: ReportInputs) -> list[str]:
    parts = []
    for measure, table in inputs.groups:
        parts.append(f"<h3>{_e(inputs.word('review_report.html.groups', measure=measure))}</h3>")
        parts.append(html_table(table, words=inputs.words))
    if parts:
        parts.append(f'<p class="muted">{_e(inputs.word("review_report.html.groups_note"))}</p>')
    return parts


def _glossary_html(inputs: ReportInputs) -> list[str]:
    glossary = inputs.glossary or glossary_of(inputs.measures)
    parts = [f"<h2>{_e(inputs.word('review_report.html.glossary'))}</h2>", '<dl class="glossary">']
    for measure, name, text in glossary:
        title = measure if name == measure else f"{measure} · {name}"
        parts.append(f"<dt>{_e(title)}</dt><dd>{_e(text)}</dd>")
    parts.append("</dl>")
    return parts


def _segments_html(inputs: ReportInputs) -> list[str]:
    segments = segment_rows(inputs.review)
    if not inputs.segment_by or not len(segments):
        return []
    parts = [f"<h2>{_e(inputs.word('review_report.html.segments'))}</h2>"]
    if not inputs.callout_sentences:
        measure = inputs.lead_measure
        parts.append(
            f"<p>{_e(inputs.word('review_report.html.segments_none', measure=measure))}</p>"
        )
    for kind, sentence in inputs.callout_sentences:
        parts.append(f'<p class="{"callout" if kind == "worse" else "note"}">{_e(sentence)}</p>')
    shown = inputs.segment_display
    if shown is None:
        shown = _plain_display(segments, inputs.segment_by)
    parts.append(html_table(shown, _classes(segments), inputs.words))
    parts.append(
        '<p class="muted">'
        + _e(
            inputs.word(
                "review_report.html.segments_note",
                interval=_interval_of(inputs, "segments", segments),
                family=_family_of(inputs, "segments", segments),
            )
        )
        + "</p>"
    )
    return parts


def _health_html(inputs: ReportInputs) -> list[str]:
    parts = [f"<h2>{_e(inputs.word('review_report.html.health'))}</h2>"]
    findings = inputs.findings
    if inputs.per_query and (findings is None or findings.empty):
        parts.append(f"<p>{_e(inputs.word('review_report.html.health_per_query'))}</p>")
        return parts
    if findings is None or findings.empty:
        parts.append(f"<p>{_e(inputs.word('review_report.html.health_ok'))}</p>")
        return parts
    columns = [
        c for c in ("severity", "message", "count", "examples", "action") if c in findings.columns
    ]
    shown = findings[columns].copy()
    if "examples" in shown.columns:
        shown["examples"] = [
            ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v for v in shown["examples"]
        ]
    shown.columns = [inputs.word(f"review_report.html.col.{c}") for c in columns]
    parts.append(html_table(shown, words=inputs.words))
    return parts


def build_report_html(inputs: ReportInputs, pictures: Sequence[str | None] | None = None) -> str:
    """The whole report as one HTML document (UTF-8 text).

    Order: the first screen (title, the executive summary, that is the headline, and the chart
    of the lead measure), on per-query values what is left out, headline figures (and the
    candidates against each other), the glossary of the measures, the segment findings,
    charts, data health, settings and provenance (with the data set's description).

    Parameters
    ----------
    inputs:
        What the report shows.
    pictures:
        One SVG document per figure of :func:`report_charts` (``None`` for a figure that could
        not be drawn, which the report says): the charts are these pictures and the charting
        library is left out, so that a review of 50 queries stays well under 1 MB. Without
        ``pictures``, the charts are interactive, with plotly.js inlined once.
    """
    charts = report_charts(inputs)
    if pictures is not None and len(pictures) != len(charts):
        raise ValueError(f"{len(pictures)} pictures for {len(charts)} figures")
    lead = len(inputs.lead_figures)
    if not inputs.generated_at:
        inputs.generated_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = inputs.title or inputs.word("review_report.html.title")
    meta = inputs.word(
        "review_report.html.meta",
        baseline=inputs.baseline,
        n=f"{inputs.n_queries:,}",
        when=inputs.generated_at,
        hash=inputs.content_hash[:16] + "…",
    )
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{_e(inputs.lang)}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)} · {_e(inputs.dataset_name)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>{_e(title)}: {_e(inputs.dataset_name)}</h1>",
        f'<p class="muted">{_e(meta)}</p>',
    ]
    parts += _summary_html(inputs)
    parts += _lead_html(inputs, None if pictures is None else pictures[:lead])
    parts += _left_out_html(inputs)
    parts += _figures_html(inputs)
    parts += _groups_html(inputs)
    parts += _power_html(inputs)
    parts += _change_html(inputs)
    parts += _glossary_html(inputs)
    parts += _segments_html(inputs)
    if inputs.figures:
        parts.append(f"<h2>{_e(inputs.word('review_report.html.charts'))}</h2>")
        if pictures is not None:
            parts.append(
                f'<p class="muted">{_e(inputs.word("review_report.html.pictures_note"))}</p>'
            )
            for (chart_title, _), svg in zip(inputs.figures, pictures[lead:]):
                parts.append(_picture_html(chart_title, svg, inputs))
        for i, (chart_title, figure) in enumerate(inputs.figures if pictures is None else ()):
            parts.append(
                f'<div class="chart" role="figure" aria-label="{_e(chart_title)}">'
                f"{_figure_html(figure, lead + i)}</div>"
            )
    parts += _health_html(inputs)
    parts.append(f"<h2>{_e(inputs.word('review_report.html.provenance'))}</h2>")
    if inputs.description:
        parts.append(f'<p class="muted">{_e(inputs.description)}</p>')
    setting = pd.DataFrame(
        provenance(inputs),
        columns=[
            inputs.word("review_report.html.col.setting"),
            inputs.word("review_report.html.col.value"),
        ],
    )
    parts.append(html_table(setting, words=inputs.words))
    parts.append(
        f'<script type="application/json" id="provenance">{_provenance_json(inputs)}</script>'
    )
    parts.append(
        f'<details><summary class="muted">{_e(inputs.word("review_report.html.json"))}'
        f"</summary><pre><code>{_e(_provenance_json(inputs))}</code></pre></details>"
    )
    parts.append("</main></body></html>")
    return "\n".join(parts)


def report_tables(inputs: ReportInputs) -> dict[str, bytes]:
    """The report's tables as Excel-safe CSV files: ``name.csv -> bytes``."""
    digits = "%.6g"
    files = {"comparison.csv": to_csv_bytes(overall_rows(inputs.review), float_format=digits)}
    pairs = pairwise_rows(inputs.review)
    if len(pairs):
        files["candidates.csv"] = to_csv_bytes(pairs, float_format=digits)
    segments = segment_rows(inputs.review)
    if len(segments):
        files["segments.csv"] = to_csv_bytes(segments, float_format=digits)
    if inputs.findings is not None:
        findings = inputs.findings.copy()
        if "examples" in findings.columns:
            findings["examples"] = [
                ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v
                for v in findings["examples"]
            ]
        files["data_health.csv"] = to_csv_bytes(findings)
    files["settings.csv"] = to_csv_bytes(
        pd.DataFrame(provenance(inputs), columns=["setting", "value"])
    )
    return files


def report_zip(inputs: ReportInputs, html_text: str | None = None) -> bytes:
    """A zip of :func:`report_tables` (and the HTML report when given)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in report_tables(inputs).items():
            archive.writestr(name, data)
        if html_text is not None:
            archive.writestr("report.html", html_text.encode("utf-8"))
    return buffer.getvalue()


__all__ = [
    "REPORT_TEMPLATES",
    "ReportInputs",
    "build_report_html",
    "glossary_of",
    "html_table",
    "provenance",
    "report_charts",
    "report_tables",
    "report_zip",
    "software_versions",
    "summary_table",
]
