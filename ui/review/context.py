"""What every review page (Compare, Segments, Report) opens with: the frame, the title, the data
set, the review controls and the measures compared at the review's K."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from ui.review import compute as review_compute
from ui.review.controls import (
    ReviewChoice,
    guard_options,
    require_review_choice,
    segment_choice,
    segment_cross,
    verdict_templates,
    warn_unknown_data,
)
from ui.review.figures import delta_curve_figure
from ui.shell import frame
from ui.shell.i18n import Message, t
from ui.shell.per_query_panel import measures_at

if TYPE_CHECKING:
    from metrics.engine.settings import Settings
    from metrics.io.dataset import Dataset
    from metrics.review.compare import CompareOptions
    from ui.shell.view import View


@dataclass(frozen=True)
class ReviewContext:
    """A review page's data, settings and review choices."""

    page: frame.PageContext
    dataset: Dataset
    by: tuple[str, ...]
    choice: ReviewChoice
    words: Mapping[str, Message]
    #: The first screen, above the controls (only for a page that asked for it).
    top: Any = None

    @property
    def view(self) -> View:
        return self.page.view

    @property
    def settings(self) -> Settings:
        return self.page.settings

    @property
    def models(self) -> list[str]:
        return list(self.dataset.models)

    @property
    def options(self) -> CompareOptions:
        return self.choice.options

    @property
    def k(self) -> int:
        return self.choice.k

    def measures(self) -> tuple[str, ...]:
        """The view's measures the data can compare at the review's K (a per-query table says
        which it lacks; with none of them the page stops)."""
        return measures_at(self.dataset, tuple(self.view.measures), self.k)

    def delta_figure(self, measure: str, colours: dict[str, str], tr: Any) -> Any:
        """Each candidate's difference from the baseline on ``measure`` at every K of the view,
        with its interval (:func:`ui.review.figures.delta_curve_figure`), in the words of
        ``tr``."""
        choice, options = self.choice, self.options
        k_from, k_to = self.view.k_range
        curves = {
            c: review_compute.delta_curve(
                self.dataset, self.settings, measure, k_from, k_to, choice.baseline, c, options
            )
            for c in choice.candidates
        }
        return delta_curve_figure(
            curves,
            measure,
            choice.baseline,
            confidence=options.confidence,
            colours=colours,
            tr=tr,
        )

    def review(
        self,
        measures: tuple[str, ...],
        by: tuple[str, ...] | None = None,
        cross: bool | None = None,
    ) -> pd.DataFrame:
        """The one review table of these choices (segment columns and crossing: the pages'
        own unless given)."""
        return review_compute.choice_review(
            self.dataset,
            self.settings,
            measures,
            self.choice,
            self.by if by is None else by,
            segment_cross() if cross is None else cross,
        )


def review_context(
    page: str, title: str, *, first_screen: bool = False, segments_needed: str = ""
) -> ReviewContext:
    """The frame of ``page``, its ``title`` (a catalog key), the active data set (a link's
    unknown data set named), a container for the first screen when asked for, then the review
    controls; the page stops without data, without two models or a candidate, and (with
    ``segments_needed``, the catalog key of its hint) without segment columns."""
    ctx = frame.page(page)
    st.title(t(title))
    dataset = ctx.require_dataset()
    warn_unknown_data(ctx.view.data)
    top = st.container() if first_screen else None
    columns = dataset.segment_columns
    if segments_needed and not columns:
        st.info(t(segments_needed))
        st.stop()
    by = segment_choice(columns)
    choice = require_review_choice(
        dataset.models,
        ctx.view.k_range,
        tuple(ctx.view.measures),
        guard_options(dataset.segments, by),
    )
    return ReviewContext(ctx, dataset, by, choice, verdict_templates(), top)
