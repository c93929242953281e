"""Review links: "Share this review" freezes the data, settings and verdict of a comparison into
a snapshot of the store and gives a link (``?review=<token>``) that opens it read-only in any
browser (:mod:`ui.review.shared`); the workspace lists its links and revokes them.

What a link keeps (:func:`freeze`): the rankings of the models the review compares (query,
item, score, rank, model), every judgment, the segment columns the review groups by (and the
weight column of a weighted mean), the settings and choices of the review, the data set's name,
the language, and the verdict as the page worded it. Nothing else of the workspace: no other
model, upload, hand-built list or setting, and never the workspace's key (a link's token opens
that snapshot and nothing else; see ``docs/store.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pandas as pd
import streamlit as st

from metrics.engine.settings import Settings
from metrics.errors import StoreError
from metrics.io.dataset import Dataset
from metrics.review.compare import CompareOptions
from metrics.schema import MODEL, QUERY
from metrics.store import Snapshot, create_snapshot, revoke_snapshot, snapshot_link, snapshots
from metrics.store.history import RUN_COLUMNS
from metrics.store.snapshots import OPEN
from metrics.store.store import MAX_NAME, time_text
from ui.shell import keys, workspace
from ui.shell.i18n import Message, t
from ui.shell.pages_registry import PAGES
from ui.shell.per_query_data import is_per_query
from ui.shell.workspace_codec import REVIEW_PARAM

#: The version of a snapshot's settings document (:func:`freeze`).
SNAPSHOT_FORMAT = 1
#: The tables of a snapshot.
RUN, QRELS, SEGMENTS = "run", "qrels", "segments"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


@dataclass(frozen=True)
class FrozenReview:
    """A review as its link opens it: the data set and everything the review was computed
    with (see :func:`freeze`)."""

    dataset: Dataset
    settings: Settings
    measures: tuple[str, ...]
    k: int
    baseline: str
    candidates: tuple[str, ...]
    by: tuple[str, ...]
    options: CompareOptions
    family: str
    min_effect: tuple[tuple[str, float], ...]
    power: float
    lang: str
    verdict: str


def freeze(
    dataset: Dataset,
    settings: Settings,
    choice: Any,
    measures: Sequence[str],
    by: Sequence[str],
    lang: str,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The tables and settings (JSON) of a review link: the rankings of the models compared,
    the judgments, the segment columns grouped by (and a weighted mean's weight column), and
    the review's choices (``choice``: :class:`ui.review.controls.ReviewChoice`)."""
    models = [choice.baseline, *choice.candidates]
    run = dataset.run
    run = run.loc[run[MODEL].isin(models), [c for c in RUN_COLUMNS if c in run.columns]]
    tables = {RUN: run.reset_index(drop=True), QRELS: dataset.qrels.reset_index(drop=True)}
    wanted = [*by, *([settings.weight_column] if settings.averaging == "weighted" else [])]
    columns = [c for c in dict.fromkeys(wanted) if c and c in dataset.segment_columns]
    if columns and dataset.segments is not None:
        tables[SEGMENTS] = dataset.segments[[QUERY, *columns]].reset_index(drop=True)
    document = {
        "format": SNAPSHOT_FORMAT,
        "name": str(dataset.name),
        "lang": lang,
        "settings": settings.to_dict(),
        "measures": list(measures),
        "k": int(choice.k),
        "baseline": str(choice.baseline),
        "candidates": [str(c) for c in choice.candidates],
        "by": list(by),
        "options": asdict(choice.options),
        "family": str(choice.family),
        "min_effect": [[str(m), float(e)] for m, e in choice.min_effect],
        "power": float(choice.power),
    }
    return tables, document


def thaw(snapshot: Snapshot) -> FrozenReview:
    """The review a snapshot froze (see :func:`freeze`)."""
    found = snapshot.settings
    run = snapshot.tables[RUN]
    segments = snapshot.tables.get(SEGMENTS)
    if segments is not None:
        run = run.merge(segments, on=QUERY, how="left")
    dataset = Dataset(str(found.get("name", "")), run, snapshot.tables[QRELS], segments)
    return FrozenReview(
        dataset,
        Settings.from_dict(dict(found["settings"])),
        tuple(found["measures"]),
        int(found["k"]),
        str(found["baseline"]),
        tuple(found["candidates"]),
        tuple(found.get("by", ())),
        CompareOptions(**found["options"]),
        str(found["family"]),
        tuple((str(m), float(e)) for m, e in found.get("min_effect", ())),
        float(found.get("power", 0.8)),
        str(found.get("lang", "en")),
        snapshot.verdict,
    )


def verdict_text(review: pd.DataFrame, words: Mapping[str, Message]) -> str:
    """The verdict of a review table as the Compare page's box words it, in paragraphs: each
    candidate's recommendation, the headline, then the sentences of each row."""
    from metrics.review.headline import verdict_sentences
    from ui.review.controls import decision_of

    paragraphs = []
    decision = decision_of(review, words)
    if decision is not None:
        paragraphs += [
            f"{candidate}: {t(f'decision.recommendation.{code}')}"
            for candidate, code in decision.recommendations.items()
        ]
        paragraphs.append(_joined(decision.headline))
    sentences = verdict_sentences(review, words)
    paragraphs += [_joined(lines) for candidate, lines in sentences.items() if candidate]
    paragraphs += sentences.get("", [])
    return "\n\n".join(p for p in paragraphs if p)


def _joined(lines: Sequence[str]) -> str:
    # Chinese and Japanese sentences end in 。 and follow each other without a space.
    return "".join(lines) if lines and lines[0].endswith("。") else " ".join(lines)


def link_title(dataset_name: str, baseline: str, candidates: Sequence[str]) -> str:
    """A review link's name in its workspace's list: the data set, the baseline and the
    candidates (control characters taken out, cut to the store's longest name)."""
    text = f"{dataset_name}: {baseline} → {', '.join(candidates)}"
    return _CONTROL.sub(" ", text).strip()[:MAX_NAME] or "review"


def link_address(link: str, page_url: str | None) -> str:
    """The address that opens the review link ``link`` on this server: the app's root (the
    address of the page the link is made on, without the page's own part) with
    ``?review=<link>``; only the parameter when the page's address is unknown."""
    if not page_url:
        return f"?{REVIEW_PARAM}={link}"
    parts = urlsplit(page_url)
    path = parts.path
    last = path.rstrip("/").rsplit("/", 1)
    if len(last) == 2 and last[1] in {p.url_path for p in PAGES}:
        path = last[0] + "/"
    if not path.endswith("/"):
        path += "/"
    return urlunsplit((parts.scheme, parts.netloc, path, f"{REVIEW_PARAM}={link}", ""))


def _page_url() -> str | None:
    try:
        return st.context.url
    except Exception:  # no connection (a test's run)
        return None


# --------------------------------------------------------------------------- the Compare page


def share_review(
    ctx: Any,
    choice: Any,
    measures: Sequence[str],
    by: Sequence[str],
    review: pd.DataFrame,
) -> None:
    """The "Share this review" button (the Compare page, above its tabs): a link to this
    comparison frozen as it is, with how long it opens, and the link made last (with a button
    that revokes it)."""
    dataset = ctx.dataset
    with st.popover(t("share.button"), icon=":material/share:"):
        if dataset is None or is_per_query(dataset):
            st.caption(t("share.needs_lists"))
            return
        st.caption(t("share.what"))
        try:
            days_default = workspace.app_store().config.link_days
        except StoreError as exc:
            st.warning(workspace.refusal(exc))
            return
        days = st.number_input(
            t("share.days"),
            min_value=1,
            max_value=3650,
            value=max(1, round(days_default)),
            step=1,
            key="share_days",
        )
        if st.button(t("share.create"), key="btn_share_create", type="primary"):
            _create(dataset, ctx.settings, ctx.view.lang, choice, measures, by, review, days)
        last = st.session_state.get(keys.SHARE_LAST)
        if last:
            link_view(last)


def _create(
    dataset: Dataset,
    settings: Settings,
    lang: str,
    choice: Any,
    measures: Sequence[str],
    by: Sequence[str],
    review: pd.DataFrame,
    days: float,
) -> None:
    from ui.review.controls import verdict_templates

    tables, document = freeze(dataset, settings, choice, measures, by, lang)
    try:
        key = workspace.ensure_token()
        _, info = create_snapshot(
            workspace.app_store(),
            key,
            tables,
            document,
            verdict_text(review, verdict_templates()),
            title=link_title(str(dataset.name), choice.baseline, choice.candidates),
            days=float(days),
        )
    except StoreError as exc:
        st.warning(workspace.refusal(exc))
        return
    st.session_state[keys.SHARE_LAST] = info.id


def link_view(snapshot_id: str) -> None:
    """The address of the workspace's review link ``snapshot_id``, until when it opens, and a
    button that revokes it (or that it no longer opens)."""
    key = workspace.token()
    if key is None:
        return
    store = workspace.app_store()
    try:
        info = next((i for i in snapshots(store, key) if i.id == snapshot_id), None)
        if info is None:
            return
        status = info.status(store.clock())
        if status != OPEN:
            st.caption(t(f"share.status.{status}"))
            return
        address = link_address(snapshot_link(store, key, info.id), _page_url())
    except StoreError as exc:
        st.warning(workspace.refusal(exc))
        return
    st.markdown(t("share.made", expires=time_text(info.expires)))
    st.code(address, language=None, wrap_lines=True)
    if st.button(t("share.revoke"), key=f"btn_revoke_{info.id}", icon=":material/link_off:"):
        try:
            revoke_snapshot(store, key, info.id)
        except StoreError as exc:
            st.warning(workspace.refusal(exc))
            return
        st.rerun()


# --------------------------------------------------------------------------- the History page


def links_panel() -> None:
    """The workspace's review links: each with its address while it opens, and revoke."""
    from ui.review.history_tables import links_display

    st.subheader(t("share.links_title"))
    key = workspace.token()
    if key is None:
        st.caption(t("share.no_links"))
        return
    store = workspace.app_store()
    try:
        found = snapshots(store, key)
    except StoreError as exc:
        st.warning(workspace.refusal(exc))
        return
    if not found:
        st.caption(t("share.no_links"))
        return
    st.dataframe(
        links_display(found, store.clock(), t), hide_index=True, width="stretch", key="hist_links"
    )
    titles = {i.id: i.title for i in found if i.status(store.clock()) == OPEN}
    if titles:
        chosen: str | None = st.selectbox(
            t("share.link_choice"),
            list(titles),
            format_func=lambda ident: titles.get(str(ident), ""),
            key="hist_link_choice",
        )
        if chosen is not None:
            link_view(chosen)
    st.caption(t("share.links_caption"))


__all__ = [
    "FrozenReview",
    "freeze",
    "link_address",
    "link_title",
    "link_view",
    "links_panel",
    "share_review",
    "thaw",
    "verdict_text",
]
