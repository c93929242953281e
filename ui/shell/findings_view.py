"""The data set's health (validation findings) and preview, in the session's language.

:mod:`metrics.io.findings` gives each finding as a code with parameters; the texts come from the
catalogs: ``finding.message.<code>[.<variant>]``, ``finding.fix.<code>``,
``finding.example.<kind>`` and ``finding.where.line|row``. A fix that names a setting names it by
its label in the catalog (``policy.<field>.label``) and the value to choose by its explanation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from metrics.engine.settings import Settings
from metrics.io.dataset import Dataset
from metrics.io.findings import DataHealth, Example, Finding, example_kind
from metrics.io.labels import label_counts
from metrics.io.messages import ACTION_SETTINGS, WHERE, plural_form
from ui.shell import compute
from ui.shell.i18n import DEFAULT_LANGUAGE, catalog, current_language, has, number, t, translate


@dataclass(frozen=True)
class FindingText:
    """One finding in one language."""

    message: str
    examples: list[str]
    action: str


def _values(params: Mapping[str, object]) -> dict[str, object]:
    """Counts written with thousands separators; other values as they are."""
    return {
        k: number(v) if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in params.items()
    }


def _message(key: str, lang: str, params: Mapping[str, object]) -> str:
    """Catalog message ``key`` with plural forms chosen by the raw ``n`` and counts formatted."""
    messages = catalog(lang)
    if key not in messages:
        lang, messages = DEFAULT_LANGUAGE, catalog(DEFAULT_LANGUAGE)
    template = messages.get(key, key)
    return plural_form(template, lang, params).format(**_values(params))


def example_text(example: Example, lang: str) -> str:
    """One example of a finding in ``lang``."""
    return _message(f"finding.example.{example_kind(example)}", lang, example)


def finding_text(finding: Finding, lang: str) -> FindingText:
    """Message, examples and fix of ``finding`` in ``lang``."""
    params = dict(finding.params)
    for name in WHERE:
        if name in params:
            params["where"] = translate(f"finding.where.{name}", lang, **{name: params[name]})
            break
    if finding.rule is not None:
        setting_name, rule_value = finding.rule
        params["rule"] = _message(f"finding.rule.{setting_name}.{rule_value}", lang, params)
    action = ""
    fix_key = finding.key if has(f"finding.fix.{finding.key}") else finding.code
    if has(f"finding.fix.{fix_key}"):
        names: dict[str, object] = {}
        setting = ACTION_SETTINGS.get(fix_key)
        if setting is not None:
            field, value = setting
            names["setting"] = translate(f"policy.{field}.label", lang)
            names["value"] = translate(f"policy.{field}.{value}", lang) if value is not None else ""
        action = translate(f"finding.fix.{fix_key}", lang, **{**_values(finding.params), **names})
    message_key = finding.key if has(f"finding.message.{finding.key}") else finding.code
    return FindingText(
        _message(f"finding.message.{message_key}", lang, params),
        [example_text(e, lang) for e in finding.example_values],
        action,
    )


def findings_frame(health: DataHealth, lang: str) -> pd.DataFrame:
    """One row per finding, texts in ``lang``: the columns of
    :meth:`~metrics.io.findings.DataHealth.to_frame` (``code`` and ``severity`` stay codes)."""
    rows = []
    for f in health.findings:
        text = finding_text(f, lang)
        rows.append(
            {
                "code": f.code,
                "severity": f.severity,
                "message": text.message,
                "count": f.count,
                "examples": translate("finding.examples_separator", lang).join(text.examples),
                "action": text.action,
            }
        )
    return pd.DataFrame(
        rows, columns=["code", "severity", "message", "count", "examples", "action"]
    )


def findings_table(health: DataHealth, lang: str) -> pd.DataFrame:
    """The findings as a table to show: severity, what was found, count, examples, fix; headers
    and severities in ``lang``."""
    frame = findings_frame(health, lang)
    frame["severity"] = [translate(f"health.severity.{s}", lang) for s in frame["severity"]]
    return frame[["severity", "message", "count", "examples", "action"]].rename(
        columns={
            "severity": translate("health.col.severity", lang),
            "message": translate("health.col.message", lang),
            "count": translate("health.col.count", lang),
            "examples": translate("health.col.examples", lang),
            "action": translate("health.col.action", lang),
        }
    )


def show_health(dataset: Dataset, settings: Settings | None = None) -> None:
    """Every finding as a card: what was found, examples, what happens or how to fix it; the
    findings that depend on the score order as ``settings`` make them.

    Errors never get here (they stop loading with a message). Texts are shown with ``st.text``,
    since examples carry ids from the user's files.
    """
    lang = current_language()
    st.subheader(t("health.title"))
    health = (dataset.health if settings is None else compute.health(dataset, settings)).sorted()
    warnings = len(health.warnings)
    if warnings:
        st.warning(t("health.n_warnings", n=warnings))
    else:
        st.success(t("health.no_warnings"))
    columns = st.columns(2)
    for i, finding in enumerate(health.findings):
        text = finding_text(finding, lang)
        with columns[i % 2].container(border=True):
            icon = {"error": ":material/error:", "warning": ":material/warning:"}.get(
                finding.severity, ":material/info:"
            )
            st.markdown(f"{icon} **{t(f'health.severity.{finding.severity}')}**")
            st.text(text.message)
            if text.examples:
                st.caption(t("health.col.examples"))
                st.text(t("finding.examples_separator").join(text.examples))
            if text.action:
                st.caption(t("health.col.action"))
                st.text(text.action)


def lists_text(dataset: Dataset) -> str:
    """The data set at a glance, in the session's language: queries, lists per model and the
    median list length (``2 queries, median list length 840`` reads as a wrong query column).
    Model names are escaped for Markdown."""
    from ui.shell.safe import md_escape

    lists = dataset.lists
    same = lists.same_lists
    per_model = (
        number(same)
        if same is not None
        else ", ".join(f"{md_escape(m)} {number(n)}" for m, n in lists.lists.items())
    )
    return t(
        "data.lists",
        queries=number(lists.queries),
        lists=per_model,
        length=number(lists.length) if isinstance(lists.length, int) else str(lists.length),
    )


def show_lists(dataset: Dataset) -> None:
    """:func:`lists_text` in a box above the data's health."""
    st.info(lists_text(dataset), icon=":material/format_list_numbered:")


def show_preview(dataset: Dataset, rows: int = 20) -> None:
    """First rows of the run and of the judgments, as text cells, with translated headers; then
    how many judgments carry each label (a table with bars: the first page draws no chart, so
    the browser needs no chart code to show it)."""
    st.subheader(t("preview.title"))
    c1, c2 = st.columns([3, 2])
    c1.caption(t("preview.run", n=len(dataset.run), rows=number(len(dataset.run))))
    c1.dataframe(column_names(dataset.run.head(rows)), hide_index=True, width="stretch")
    c2.caption(t("preview.qrels", n=len(dataset.qrels), rows=number(len(dataset.qrels))))
    c2.dataframe(column_names(dataset.qrels.head(rows)), hide_index=True, width="stretch")
    counts = label_counts(dataset.qrels["relevance"])
    counts["share"] *= 100  # shown as a percentage with one decimal
    c2.caption(t("preview.labels"))
    c2.dataframe(
        counts.rename(
            columns={
                "label": t("preview.label"),
                "judgments": t("preview.judgments"),
                "share": t("preview.share"),
            }
        ),
        hide_index=True,
        width="stretch",
        key="table_labels",
        column_config={
            t("preview.share"): st.column_config.ProgressColumn(
                min_value=0.0, max_value=100.0, format="%.1f%%"
            )
        },
    )


def column_names(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the canonical column names (query, item, score, ...) in the session's
    language; segment columns keep the user's names."""
    return frame.rename(
        columns={c: t(f"column.{c}") for c in frame.columns if f"column.{c}" in catalog("en")}
    )
