"""A stakeholder report: one self-contained HTML file and its tables as Excel-safe CSV.

:func:`build_report_html` turns a :class:`ReportInputs` into a single HTML page — headline,
charts (interactive plotly, with plotly.js inlined once so the file works offline), segment
findings, data health and the exact settings and provenance needed to reproduce the numbers.
Every user string (data set name, model names, ids, segment values, messages) is HTML-escaped.
:func:`report_tables` and :func:`report_zip` give the same tables as CSV.

Pure: no Streamlit; figures are passed in as plotly objects.
"""

from __future__ import annotations

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

from metrics.engine.settings import Settings
from metrics.io.export import to_csv_bytes
from metrics.io.text_safety import visible
from metrics.review.compare import CompareOptions

_CSS = """
body{font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1f2328;
background:#fff}main{max-width:1100px;margin:0 auto;padding:24px 32px 64px}
h1{font-size:1.7rem;margin:0 0 4px}h2{font-size:1.25rem;margin:36px 0 10px;border-bottom:1px
solid #d0d7de;padding-bottom:4px}.muted{color:#57606a}.headline{font-size:1.05rem;
line-height:1.5}.headline li{margin:4px 0}table{border-collapse:collapse;margin:8px 0 16px;
font-size:.88rem}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;
vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:
tabular-nums}tr.better td{background:#dafbe1}tr.worse td{background:#ffebe9}
.callout{border-left:4px solid #cf222e;background:#fff5f5;padding:8px 12px;margin:8px 0}
.note{border-left:4px solid #bf8700;background:#fff8c5;padding:8px 12px;margin:8px 0}
.chart{margin:12px 0 24px}code{font-size:.85rem;background:#f6f8fa;padding:1px 4px}
"""


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
    comparison:
        :func:`metrics.review.compare.comparison_table` (overall).
    headline:
        Plain sentences (:func:`metrics.review.compare.headline`).
    segment_by:
        Segment columns of ``segment_table`` (empty when there is none).
    segment_table:
        Segmented comparison table, or ``None``.
    reversal_sentences:
        Where the overall winner loses (:func:`metrics.review.segments.reversals`).
    findings:
        Validation findings (``Report.to_frame()``): severity, message, count, examples, action.
    figures:
        ``(title, plotly figure)`` pairs, drawn in order.
    title:
        Report title.
    generated_at:
        Timestamp text (UTC now when empty).
    extra_provenance:
        More ``label -> value`` pairs for the settings section (e.g. software versions).
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
    comparison: pd.DataFrame
    headline: list[str]
    description: str = ""
    segment_by: list[str] = field(default_factory=list)
    segment_table: pd.DataFrame | None = None
    reversal_sentences: list[str] = field(default_factory=list)
    findings: pd.DataFrame | None = None
    figures: list[tuple[str, Any]] = field(default_factory=list)
    title: str = "Model review"
    generated_at: str = ""
    extra_provenance: dict[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- helpers


def _e(value: object) -> str:
    return html.escape(visible(value), quote=True)


def _cell(value: object, column: str) -> tuple[str, bool]:
    """Formatted cell text and whether it is numeric."""
    if isinstance(value, (bool, np.bool_)):
        return ("yes" if value else "no"), False
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}", True
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "—", True
        if column.startswith("p"):
            return f"{value:.3g}", True
        if column in ("delta", "ci_low", "ci_high") or column.startswith("Δ"):
            return f"{value:+.4f}", True
        if column == "relative_delta":
            return f"{value:+.1%}", True
        return f"{value:.4f}", True
    return str(value), False


def html_table(frame: pd.DataFrame, row_class: Sequence[str] | None = None) -> str:
    """An HTML table of ``frame`` with every header and cell escaped; numbers right-aligned."""
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = []
    for i, row in enumerate(frame.itertuples(index=False)):
        cells = []
        for column, value in zip(frame.columns, row):
            text, numeric = _cell(value, str(column))
            cells.append(f'<td class="num">{_e(text)}</td>' if numeric else f"<td>{_e(text)}</td>")
        cls = f' class="{_e(row_class[i])}"' if row_class is not None and row_class[i] else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def summary_table(comparison: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """The comparison columns a stakeholder reads: who, what, how much, how sure."""
    columns = [
        "candidate",
        *by,
        "measure",
        "n",
        "mean_a",
        "mean_b",
        "delta",
        "relative_delta",
        "ci_low",
        "ci_high",
        "p_adjusted",
        "direction",
        "wins",
        "ties",
        "losses",
    ]
    table = comparison[[c for c in columns if c in comparison.columns]].copy()
    return table.rename(columns={"mean_a": "baseline mean", "mean_b": "candidate mean"})


def provenance(inputs: ReportInputs) -> list[tuple[str, str]]:
    """(label, value) pairs that pin down how the numbers were made."""
    rows = [
        ("Data set", inputs.dataset_name),
        ("Content hash (SHA-256)", inputs.content_hash),
        ("Models", ", ".join(inputs.models)),
        ("Baseline", inputs.baseline),
        ("Queries", f"{inputs.n_queries:,}"),
        ("Measures", ", ".join(inputs.measures)),
        ("K values of the curves", ", ".join(str(k) for k in inputs.ks)),
    ]
    rows += [(label, value) for label, value in inputs.settings.describe()]
    rows += [
        ("Relevance level (value)", f"{inputs.settings.relevance_level:g}"),
        ("Gain (value)", inputs.settings.gain),
        ("Averaging (value)", inputs.settings.averaging),
        ("Comparison means", "macro means over the paired queries"),
    ]
    rows += inputs.options.describe()
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
        },
        "segments": list(inputs.segment_by),
        "generated_at": inputs.generated_at,
    }
    text = json.dumps(document, indent=1, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _figure_html(figure: Any, index: int) -> str:
    return str(
        figure.to_html(
            full_html=False,
            include_plotlyjs=index == 0,
            div_id=f"chart-{index}",
            config={"displaylogo": False},
        )
    )


def _classes(table: pd.DataFrame) -> list[str]:
    if "direction" not in table.columns:
        return [""] * len(table)
    return [{"better": "better", "worse": "worse"}.get(d, "") for d in table["direction"]]


def software_versions(
    packages: Sequence[str] = ("numpy", "scipy", "pandas", "plotly"),
) -> dict[str, str]:
    """``{"Software": "numpy 2.4.0, scipy 1.17.1, ..."}`` for the provenance table."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in packages:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            continue
    return {"Software": ", ".join(found)}


# --------------------------------------------------------------------------- report


def build_report_html(inputs: ReportInputs) -> str:
    """The whole report as one HTML document (UTF-8 text), plotly.js inlined once."""
    if not inputs.generated_at:
        inputs.generated_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(inputs.title)} · {_e(inputs.dataset_name)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>{_e(inputs.title)}: {_e(inputs.dataset_name)}</h1>",
        f'<p class="muted">Baseline <b>{_e(inputs.baseline)}</b> · '
        f"{inputs.n_queries:,} queries · generated {_e(inputs.generated_at)} · "
        f"data hash <code>{_e(inputs.content_hash[:16])}…</code></p>",
    ]
    if inputs.description:
        parts.append(f'<p class="muted">{_e(inputs.description)}</p>')

    parts.append("<h2>Headline</h2>")
    parts.append(
        '<ul class="headline">' + "".join(f"<li>{_e(s)}</li>" for s in inputs.headline) + "</ul>"
    )
    summary = summary_table(inputs.comparison)
    parts.append(html_table(summary, _classes(inputs.comparison)))
    parts.append(
        f'<p class="muted">Green rows: significantly better than the baseline, red: '
        f"significantly worse (corrected p &lt; {inputs.options.alpha:g}). "
        f"Intervals are {inputs.options.confidence:.0%} paired bootstrap intervals of "
        "the difference.</p>"
    )

    if inputs.reversal_sentences or inputs.segment_table is not None:
        parts.append("<h2>Segments</h2>")
        for sentence in inputs.reversal_sentences:
            kind = "callout" if "loses to" in sentence else "note"
            parts.append(f'<p class="{kind}">{_e(sentence)}</p>')
        if inputs.segment_table is not None and len(inputs.segment_table):
            seg = summary_table(inputs.segment_table, inputs.segment_by)
            parts.append(html_table(seg, _classes(inputs.segment_table)))

    if inputs.figures:
        parts.append("<h2>Charts</h2>")
        for i, (title, figure) in enumerate(inputs.figures):
            parts.append(
                f'<div class="chart" aria-label="{_e(title)}">{_figure_html(figure, i)}</div>'
            )

    parts.append("<h2>Data health</h2>")
    findings = inputs.findings
    if findings is None or findings.empty:
        parts.append("<p>No problems were found in the data.</p>")
    else:
        shown = findings[
            [
                c
                for c in ("severity", "message", "count", "examples", "action")
                if c in findings.columns
            ]
        ].copy()
        if "examples" in shown.columns:
            shown["examples"] = [
                ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v
                for v in shown["examples"]
            ]
        parts.append(html_table(shown))

    parts.append("<h2>Settings and provenance</h2>")
    parts.append(html_table(pd.DataFrame(provenance(inputs), columns=["setting", "value"])))
    parts.append(
        f'<script type="application/json" id="provenance">{_provenance_json(inputs)}</script>'
    )
    parts.append(
        '<details><summary class="muted">The same settings as JSON, for scripts'
        f"</summary><pre><code>{_e(_provenance_json(inputs))}</code></pre></details>"
    )
    parts.append("</main></body></html>")
    return "\n".join(parts)


def report_tables(inputs: ReportInputs) -> dict[str, bytes]:
    """The report's tables as Excel-safe CSV files: ``name.csv -> bytes``."""
    files = {"comparison.csv": to_csv_bytes(inputs.comparison)}
    if inputs.segment_table is not None:
        files["segments.csv"] = to_csv_bytes(inputs.segment_table)
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
    "ReportInputs",
    "build_report_html",
    "html_table",
    "provenance",
    "report_tables",
    "report_zip",
    "software_versions",
    "summary_table",
]
