"""Ranking metrics engine: trec_eval-compatible measures at every cutoff, vectorized.

Public API::

    from metrics import evaluate, Settings, summarize
    ev = evaluate(run_df, qrels_df, ["P@10", "nDCG@10", "RR"], Settings())
    ev.per_query            # model, query, one column per measure
    summarize(ev)           # mean, median, quartiles, std, n per model and measure
    evaluate_files("qrels.txt", ["bm25.txt", "dense.parquet"], ["nDCG@10"])  # files of any size

Names are loaded on first use (PEP 562), so ``import metrics.engine.ranking`` and the command line
do not pay for pandas when they do not need it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS: dict[str, str] = {
    "InputError": "errors",
    "MeasureError": "errors",
    "MetricsError": "errors",
    "SettingsError": "errors",
    "Evaluation": "engine.evaluation",
    "curves": "engine.evaluation",
    "evaluate": "engine.evaluation",
    "evaluate_files": "cli.files",
    "models_of": "engine.evaluation",
    "rank_run": "engine.evaluation",
    "RankedLists": "engine.ranking",
    "rank_lists": "engine.ranking",
    "DEFAULT_MEASURES": "engine.registry",
    "MEASURES": "engine.registry",
    "MeasureDef": "engine.registry",
    "MeasureSpec": "engine.registry",
    "parse_measure": "engine.registry",
    "parse_measures": "engine.registry",
    "POLICIES": "engine.settings",
    "Settings": "engine.settings",
    "profile": "engine.settings",
    "summarize": "engine.aggregation",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'metrics' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
