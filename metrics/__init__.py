"""Ranking metrics engine: trec_eval-compatible measures at every cutoff, vectorized.

Public API::

    from metrics import evaluate, Settings, summarize
    ev = evaluate(run_df, qrels_df, ["P@10", "nDCG@10", "RR"], Settings())
    ev.per_query            # model, query, one column per measure
    summarize(ev)           # mean, median, quartiles, std, n per model and measure

Names are loaded on first use (PEP 562), so ``import metrics.ranking`` and the command line do
not pay for pandas when they do not need it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS: dict[str, str] = {
    "InputError": "errors", "MeasureError": "errors", "MetricsError": "errors",
    "SettingsError": "errors",
    "Evaluation": "evaluation", "curves": "evaluation", "evaluate": "evaluation",
    "models_of": "evaluation", "rank_run": "evaluation",
    "RankedLists": "ranking", "rank_lists": "ranking",
    "DEFAULT_MEASURES": "registry", "MEASURES": "registry", "MeasureDef": "registry",
    "MeasureSpec": "registry", "parse_measure": "registry", "parse_measures": "registry",
    "POLICIES": "settings", "Settings": "settings",
    "summarize": "aggregation",
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
