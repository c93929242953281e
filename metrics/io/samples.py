"""The bundled sample data sets: their catalog, where their files are, and loading one."""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path

from metrics.errors import InputError
from metrics.io.dataset import Dataset
from metrics.io.formats import load_table
from metrics.io.loaders import load_dataset

#: The samples in a source checkout: the top-level ``sample_data/`` folder.
CHECKOUT_SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


@dataclass(frozen=True)
class Sample:
    """Files and description of one bundled sample data set."""

    name: str
    description: str
    runs: tuple[str, ...]
    judgments: str | None = None
    queries: str | None = None
    k_max: int = 10
    #: The judgment files of several label sources, each named after its file (the first is
    #: ``judgments``, the data set's judgments unless the ``label_source`` policy says
    #: otherwise; :func:`metrics.labels.sources.sample_sources` reads them).
    label_sources: tuple[str, ...] = ()


SAMPLES: dict[str, Sample] = {
    s.name: s
    for s in (
        Sample(
            "web_search",
            "Web search: 300 queries x 50 results from three models (lexical, dense, "
            "hybrid), graded 0-3, with query_type and traffic segments. Hybrid is best on "
            "average but loses to lexical on navigational queries. Clean data for a demo: "
            "the data checks find nothing to warn about.",
            ("web_search/run.csv",),
            "web_search/qrels.csv",
            "web_search/queries.csv",
        ),
        Sample(
            "recommendations",
            "Recommendations: 2,000 users x up to 20 candidates, binary clicks as labels, "
            "models baseline and candidate (one file each), segments tenure and activity.",
            ("recommendations/baseline.csv", "recommendations/candidate.csv"),
        ),
        Sample(
            "teaching",
            "Teaching: the worked examples of the metric notes as small named lists "
            "(P@5 = 0.6, P@10 = 0.4, R@5 = 0.3, MRR = 0.583, nDCG@4 = 0.985).",
            ("teaching/teaching.csv",),
            k_max=5,
        ),
        Sample(
            "web_search_pitfalls",
            "Teaching: a small web search (40 queries x up to 20 results, lexical and dense) "
            "with the pitfalls of real data on purpose: tied scores, lists cut short, queries "
            "with nothing relevant, relevant documents no model retrieved, and judgments of "
            "the top 5 only. The data's health names each one.",
            ("web_search_pitfalls/run.csv",),
            "web_search_pitfalls/qrels.csv",
            "web_search_pitfalls/queries.csv",
        ),
        Sample(
            "rag_evidence",
            "RAG evidence ranking: 50 questions, the top 10 chunks of two retrievers (bm25 "
            "and embedding), graded 0-3 by annotators (each retriever's top 7) and by an LLM "
            "judge (every chunk retrieved, with its model, prompt hash, scale and date). The "
            "two label sources agree only moderately (Cohen's kappa 0.49), yet both put "
            "embedding ahead of bm25: open the Labels page.",
            ("rag_evidence/bm25.csv", "rag_evidence/embedding.csv"),
            "rag_evidence/annotators.csv",
            "rag_evidence/questions.csv",
            label_sources=("rag_evidence/annotators.csv", "rag_evidence/llm_judge.csv"),
        ),
    )
}


def sample_directory() -> Path:
    """Where the bundled samples are.

    Installed, ``sample_data/`` is the package ``metrics.sample_data`` (see ``pyproject.toml``)
    and is found through :mod:`importlib.resources`; in a source checkout, where no such package
    exists, it is the top-level ``sample_data/`` folder.
    """
    try:
        installed = importlib.resources.files("metrics.sample_data")
    except ModuleNotFoundError:
        return CHECKOUT_SAMPLE_DIR
    return Path(str(installed))


def sample_names() -> list[str]:
    """Names of the bundled samples."""
    return list(SAMPLES)


def load_sample(name: str, *, directory: str | Path | None = None) -> Dataset:
    """Open a bundled sample data set by name.

    Parameters
    ----------
    name:
        One of :func:`sample_names`.
    directory:
        Where the sample files are (defaults to :func:`sample_directory`).

    Returns
    -------
    Dataset
    """
    if name not in SAMPLES:
        raise InputError(
            f"There is no sample named '{name}'.", fix=f"Choose one of: {', '.join(SAMPLES)}."
        )
    spec = SAMPLES[name]
    base = Path(directory) if directory is not None else sample_directory()
    runs = [load_table(base / r, r) for r in spec.runs]
    judgments = load_table(base / spec.judgments, spec.judgments) if spec.judgments else None
    queries = load_table(base / spec.queries, spec.queries) if spec.queries else None
    return load_dataset(
        runs, judgments, queries, name=name, description=spec.description, k_max=spec.k_max
    )


__all__ = [
    "CHECKOUT_SAMPLE_DIR",
    "SAMPLES",
    "Sample",
    "load_sample",
    "sample_directory",
    "sample_names",
]
