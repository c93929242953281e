"""The Report page's decision document: the review's tables under the lead measure, the segment
findings, the cut-offs of its curve, the data's findings, the glossary, the charts and the
``ReportInputs`` the HTML report and its downloads are built from.

The downloads are made after the page's run, when asked for: their words are fixed in the
page's language when the document is assembled (``tr``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

import pandas as pd
import streamlit as st

from metrics.review.callouts import callouts
from metrics.review.compare import MAX_SEGMENT_COLUMNS
from metrics.review.decision import lead_measure
from metrics.review.headline import verdict_sentences
from metrics.review.overlap import DEFAULT_PERSISTENCE
from metrics.review.segments import MIN_SEGMENT_QUERIES
from metrics.review.stakeholder_report import (
    REPORT_TEMPLATES,
    ReportInputs,
    build_report_html,
    report_charts,
    report_zip,
    software_versions,
)
from metrics.review.verdict import (
    letter_groups,
    measure_order,
    overall_rows,
    pairwise_rows,
    segment_rows,
)
from metrics.review.wording import interval_text
from ui.review import compute as review_compute
from ui.review.context import ReviewContext
from ui.review.controls import decision_of, segment_cross
from ui.review.figures import (
    lead_measure_figure,
    lead_titles,
    model_colours,
    win_tie_loss_figure,
)
from ui.review.tables import (
    change_display,
    groups_display,
    power_display,
    review_display,
    settings_rows,
)
from ui.shell import compute, keys, per_query_data
from ui.shell.findings_view import findings_frame
from ui.shell.i18n import current_language, t, templates, translate
from ui.shell.labels import dataset_description, measure_pretty, measure_text
from ui.shell.plotting import PHONE_PICTURE_WIDTH, PICTURE_WIDTH, figure_pictures


def segment_by(rc: ReviewContext) -> tuple[str, ...]:
    """The segment columns of the report (the Segments page's choice, changed here too)."""
    columns = rc.dataset.segment_columns
    if not columns:
        return rc.by
    st.multiselect(
        t("segments.by"),
        columns,
        key=keys.W_SEG_BY,
        max_selections=MAX_SEGMENT_COLUMNS,
        help=t("review_report.segment_help"),
    )
    return tuple(st.session_state[keys.W_SEG_BY])


@dataclass(frozen=True)
class ReportReview:
    """The review the report is about: its one table, its parts and the lead measure."""

    rc: ReviewContext
    by: tuple[str, ...]
    measures: tuple[str, ...]
    #: The measures at the review's K (``nDCG@10``).
    names: list[str]
    review: pd.DataFrame
    overall: pd.DataFrame
    pairs: pd.DataFrame
    segments: pd.DataFrame
    #: The lead measure at K: every chart of the report follows the measure decided on.
    primary: str
    #: The lead measure without K.
    lead_base: str


def report_review(rc: ReviewContext, by: tuple[str, ...]) -> ReportReview:
    """The review table of the report's choices and the lead measure."""
    measures = rc.measures()
    names = [compute.cutoff_name(m, rc.k) for m in measures]
    review = rc.review(measures, by)
    primary = lead_measure(names, rc.choice.lead_at_k or None)
    return ReportReview(
        rc,
        by,
        measures,
        names,
        review,
        overall_rows(review),
        pairwise_rows(review),
        segment_rows(review),
        primary,
        measures[names.index(primary)],
    )


def segment_findings(rr: ReportReview) -> pd.DataFrame:
    """The segments that go against the overall verdict, on every measure (none without
    segment columns)."""
    if not rr.by:
        return pd.DataFrame()
    found = [
        callouts(rr.review, m, rr.rc.words, MIN_SEGMENT_QUERIES) for m in measure_order(rr.names)
    ]
    return pd.concat(found, ignore_index=True)


def curve_cutoffs(rr: ReportReview) -> tuple[list[int], list[str], list[tuple[str, int, int]]]:
    """The K of the lead measure's Δ curve, the measures it is drawn for, and the curves a
    per-query table cannot give (the Δ curve only where the table has several K)."""
    k_from, k_to = rr.rc.view.k_range
    ks, measures = list(range(k_from, k_to + 1)), [rr.lead_base]
    missing: list[tuple[str, int, int]] = []
    if per_query_data.is_per_query(rr.rc.dataset):
        ks = per_query_data.cutoffs_between(rr.rc.dataset, (rr.lead_base,), k_from, k_to)
        if len(ks) < 2:
            missing, measures = [(rr.lead_base, k_from, k_to)], []
    return ks, measures, missing


def data_findings(rr: ReportReview, lang: str) -> pd.DataFrame:
    """The data's findings under the settings in force, their severities in the session's
    language."""
    findings = findings_frame(compute.health(rr.rc.dataset, rr.rc.settings), lang)
    findings["severity"] = [t(f"health.severity.{s}") for s in findings["severity"]]
    return findings


class ReportDocument:
    """The report of a review: what its tabs show and what its downloads hold."""

    def __init__(self, rr: ReportReview) -> None:
        rc = rr.rc
        self.rr, self.rc = rr, rc
        self.lang = current_language()
        self.tr = functools.partial(translate, lang=self.lang)  # used outside the page's run
        self.found = segment_findings(rr)
        self.colours = model_colours(rc.models)
        self.per_query = per_query_data.is_per_query(rc.dataset)
        self.curve_ks, self.curve_measures, self.missing_curves = curve_cutoffs(rr)
        self.findings = data_findings(rr, self.lang)
        self.glossary = [
            (name, measure_pretty(m), measure_text(m, "description"))
            for name, m in zip(rr.names, rr.measures)
        ]
        self.inputs = self._inputs()

    def _inputs(self) -> ReportInputs:
        """Every part of the report but its charts (made on demand: :attr:`figures`)."""
        rr, rc, tr, words = self.rr, self.rc, self.tr, self.rc.words
        choice, options, review, overall = rc.choice, rc.options, rr.review, rr.overall
        pairs, segments, dataset = rr.pairs, rr.segments, rc.dataset
        decision = decision_of(review, words)
        lead_title, lead_note = lead_titles(review, rr.primary, rr.by, tr, words)
        changes = review_compute.ranking_changes(
            dataset, rc.settings, rc.k, choice.baseline, choice.candidates, DEFAULT_PERSISTENCE
        )
        recommendations = decision.recommendations if decision is not None else {}
        return ReportInputs(
            dataset_name=dataset.name,
            content_hash=dataset.content_hash,
            models=list(dataset.models),
            baseline=choice.baseline,
            measures=rr.names,
            ks=self.curve_ks,
            n_queries=int(dataset.run["query"].nunique()),
            settings=rc.settings,
            options=options,
            review=review,
            family=choice.family,
            description=dataset_description(dataset),
            verdict=verdict_sentences(review, words),
            headline=list(decision.headline) if decision is not None else [],
            recommendations=[
                (candidate, tr(f"decision.recommendation.{code}"))
                for candidate, code in recommendations.items()
            ],
            lead_measure=rr.primary,
            lead_title=lead_title,
            lead_note=lead_note,
            figures_display=review_display(overall, t, words),
            pairwise_display=review_display(pairs, t, words) if len(pairs) else None,
            segment_display=(
                review_display(segments, t, words, segment=True, compact=True)
                if len(segments)
                else None
            ),
            callout_sentences=[
                (r["callout"], r["sentence"]) for r in self.found.to_dict("records")
            ],
            family_texts={
                "overall": review_compute.family_words(overall, words),
                "pairwise": review_compute.family_words(pairs, words),
                "segments": review_compute.family_words(segments, words),
            },
            glossary=self.glossary,
            segment_by=list(rr.by),
            findings=self.findings,
            figures=[],  # made on demand: figures
            generated_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            extra_provenance={
                t("review.lead"): rr.primary,
                t("review.guardrails"): ", ".join(choice.guardrails) or t("review.guardrails_all"),
                t("segments.cross"): t("review_report.html.yes")
                if segment_cross()
                else t("review_report.html.no"),
                t("review_report.prov.software"): software_versions()["Software"],
            },
            settings_rows=settings_rows(
                rc.settings,
                options,
                choice.family,
                t,
                min_effect=choice.min_effect,
                power=choice.power,
            ),
            words=templates(REPORT_TEMPLATES, self.lang),
            lang=self.lang,
            per_query=self.per_query,
            missing_curves=self.missing_curves,
            power_display=power_display(overall, t),
            groups=[
                (name, groups_display(letter_groups(review, name), t))
                for name in measure_order(rr.names)
            ]
            if len(choice.candidates) > 1
            else [],
            interval_texts={
                "overall": interval_text(overall, words),
                "segments": interval_text(segments, words),
            },
            min_effect=choice.min_effect,
            power=choice.power,
            change_display=change_display(changes, t) if changes else None,
            change_k=rc.k,
        )

    @functools.cached_property
    def figures(self) -> tuple[tuple[str, Any], ...]:
        """The report's charts after the first screen's (title, figure), each of the lead
        measure, made when first asked for: by the Charts tab or a download."""
        rr, rc, tr = self.rr, self.rc, self.tr
        title = tr("review_report.delta_title", measure=rr.primary, baseline=rc.choice.baseline)
        out = [(title, rc.delta_figure(m, self.colours, tr)) for m in self.curve_measures]
        lead_overall = rr.overall[rr.overall["measure"] == rr.primary]
        out.append((tr("review_report.wtl_title"), win_tie_loss_figure(lead_overall, tr)))
        return tuple(out)

    @functools.cached_property
    def lead_figures(self) -> tuple[Any, Any]:
        """The first screen's chart of the lead measure, for a wide screen and for a phone."""
        rr, tr, words = self.rr, self.tr, self.rc.words
        wide = lead_measure_figure(
            rr.review, rr.primary, rr.by, tr=tr, templates=words, titled=False
        )
        phone = lead_measure_figure(
            rr.review, rr.primary, rr.by, tr=tr, templates=words, titled=False, narrow=True
        )
        return wide, phone

    def with_figures(self) -> ReportInputs:
        """The report's inputs with its charts."""
        return replace(self.inputs, figures=list(self.figures), lead_figures=self.lead_figures)

    def light_report(self) -> bytes:
        """The report with its charts as pictures (made when asked for: a few seconds); the lead
        chart's phone layout as a picture of a phone's width."""
        full = self.with_figures()
        charts = report_charts(full)
        widths = [PICTURE_WIDTH, PHONE_PICTURE_WIDTH] + [PICTURE_WIDTH] * (len(charts) - 2)
        return build_report_html(full, figure_pictures(charts, widths)).encode("utf-8")

    def interactive_report(self) -> bytes:
        """The report with its charts interactive (the charting library inlined once)."""
        return build_report_html(self.with_figures()).encode("utf-8")

    def tables_zip(self) -> bytes:
        """The report's tables in a zip."""
        return report_zip(self.with_figures())
