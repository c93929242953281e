"""The data of the two Learn lessons on label sources, read from the bundled samples.

Pure (no Streamlit): the lists a lesson starts from and the study of its sources by
:mod:`metrics.labels`, cached per settings since the files do not change.

* ``rag_evidence``: one question's list of the embedding retriever under the annotators' grades
  (with their holes) and under the LLM judge's, and :func:`rag_study` of the whole sample;
* ``click_labels/clicks.csv``: two rankers' top 10, the annotators' grade of each item and the
  sessions that clicked it (logged while ``production`` served); :func:`click_study` puts the
  grades and the clicks (relevant: clicked at least once) side by side.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from metrics.engine.registry import at_cutoff
from metrics.engine.relevance import relevant
from metrics.engine.settings import Settings
from metrics.io.samples import load_sample, sample_directory
from metrics.labels.agreement import cohen_kappa
from metrics.labels.sources import LabelSources, sample_sources, sources_from_columns
from ui.shell.handbuilt_list import RankedList

if TYPE_CHECKING:
    from metrics.labels.study import LabelStudy

RAG, RAG_MODEL, RAG_QUESTION = "rag_evidence", "embedding", "q002"
RAG_HUMAN, RAG_JUDGE = "annotators", "llm_judge"
CLICKS_FILE, CLICK_QUERY = "click_labels/clicks.csv", "q04"
PRODUCTION, CANDIDATE = "production", "candidate"
HUMAN, CLICKS = "annotators", "clicks"
#: The measure both lessons compare the rankers on.
MEASURE, K = "nDCG", 10
#: Its column in the studies' tables.
NAME = at_cutoff(MEASURE, K)


@cache
def _rag() -> tuple[pd.DataFrame, LabelSources]:
    sources = sample_sources(RAG)
    assert sources is not None  # the sample has two label sources
    return load_sample(RAG).run, sources


@lru_cache(maxsize=8)
def rag_study(settings: Settings) -> LabelStudy:
    """The annotators against the LLM judge on the whole ``rag_evidence`` sample."""
    # deferred: the study reads the review package, which Learn's first draw does not need
    from metrics.labels.study import study_labels

    run, sources = _rag()
    return study_labels(sources, run, [NAME], settings, k=K)


def rag_lists() -> tuple[RankedList, RankedList]:
    """The embedding retriever's list of :data:`RAG_QUESTION`, labelled by the annotators
    (NaN: a chunk they did not judge) and by the LLM judge."""
    run, sources = _rag()
    rows = run[(run["model"] == RAG_MODEL) & (run["query"] == RAG_QUESTION)]
    rows = rows.sort_values("score", ascending=False, kind="stable")
    table = sources.table[sources.table["query"] == RAG_QUESTION].set_index("item")
    items = tuple(str(i) for i in rows["item"])
    scores = tuple(float(x) for x in rows["score"])

    def labelled(name: str) -> RankedList:
        labels = tuple(float(table[name].get(i, np.nan)) for i in items)
        return RankedList(name, items, labels, scores=scores)

    return labelled(RAG_HUMAN), labelled(RAG_JUDGE)


@cache
def click_table() -> pd.DataFrame:
    """``click_labels/clicks.csv`` one row per ranked item: ``query, item, model, rank, grade,
    clicks``."""
    wide = pd.read_csv(sample_directory() / CLICKS_FILE, dtype={"query": str, "item": str})
    long = wide.melt(["query", "item", "grade", "clicks"], [PRODUCTION, CANDIDATE], "model", "rank")
    long = long.dropna(subset=["rank"]).astype({"rank": int})
    return long.sort_values(["model", "query", "rank"], kind="stable").reset_index(drop=True)


def click_sources() -> LabelSources:
    """The annotators' grades and the clicks (1: clicked at least once) as two sources."""
    table = click_table().drop_duplicates(["query", "item"])
    frame = pd.DataFrame(
        {
            "query": table["query"],
            "item": table["item"],
            HUMAN: table["grade"].astype(float),
            CLICKS: (table["clicks"] > 0).astype(float),
        }
    )
    return sources_from_columns(frame, [HUMAN, CLICKS])


@lru_cache(maxsize=8)
def click_study(settings: Settings) -> LabelStudy:
    """The annotators against the clicks for the two rankers' lists."""
    # deferred: the study reads the review package, which Learn's first draw does not need
    from metrics.labels.study import study_labels

    run = click_table()[["query", "item", "rank", "model"]]
    return study_labels(click_sources(), run, [NAME], settings, k=K)


def click_kappa(settings: Settings) -> float:
    """Cohen's κ of a click (relevant: clicked) and the annotators' relevance (a grade at the
    relevance level or above), on every item judged."""
    grades = click_sources().table
    human = relevant(grades[HUMAN].to_numpy(), settings.relevance_level).astype(float)
    return cohen_kappa(human, grades[CLICKS].to_numpy()).value


def click_lists() -> tuple[RankedList, RankedList]:
    """The two rankers' lists of :data:`CLICK_QUERY` labelled by the clicks; each item's name
    ends with its annotators' grade in brackets (``i07 [2]``)."""
    table = click_table()
    rows = table[table["query"] == CLICK_QUERY].sort_values(["model", "rank"])

    def ranked(model: str) -> RankedList:
        own = rows[rows["model"] == model]
        items = tuple(f"{i} [{g}]" for i, g in zip(own["item"], own["grade"]))
        return RankedList(model, items, tuple(float(c > 0) for c in own["clicks"]))

    return ranked(PRODUCTION), ranked(CANDIDATE)


def grade_of(item: str) -> float:
    """The annotators' grade an item's name carries (:func:`click_lists`)."""
    return float(item.rsplit("[", 1)[1].rstrip("]"))


def means(study: LabelStudy) -> dict[tuple[str, str], float]:
    """Mean nDCG@10 by (source, model) of a study."""
    assert study.consequence is not None
    table = study.consequence.means
    table = table[table["measure"] == NAME]
    return {(str(r.source), str(r.model)): float(r.value) for r in table.itertuples()}


def judged(study: LabelStudy) -> dict[tuple[str, str], float]:
    """Judged@10 by (source, model) of a study."""
    assert study.consequence is not None
    table = study.consequence.judged
    return {(str(r.source), str(r.model)): float(r.judged) for r in table.itertuples()}


__all__ = [
    "click_kappa",
    "click_lists",
    "click_sources",
    "click_study",
    "click_table",
    "grade_of",
    "judged",
    "means",
    "rag_lists",
    "rag_study",
]
