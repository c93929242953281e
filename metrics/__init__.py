"""Ranking metrics engine: trec_eval-compatible measures at every cutoff, vectorized.

Public API::

    from metrics import evaluate, Settings, summarize
    ev = evaluate(run_df, qrels_df, ["P@10", "nDCG@10", "RR"], Settings())
    ev.per_query            # model, query, one column per measure
    summarize(ev)           # mean, median, quartiles, std, n per model and measure
"""

from .errors import InputError, MeasureError, MetricsError, SettingsError
from .evaluate import Evaluation, curves, evaluate, models_of, rank_run
from .ranking import RankedLists, rank_lists
from .registry import DEFAULT_MEASURES, MEASURES, MeasureDef, MeasureSpec, parse_measure, parse_measures
from .settings import POLICIES, Settings

__all__ = [
    "DEFAULT_MEASURES", "MEASURES", "POLICIES", "Evaluation", "InputError", "MeasureDef",
    "MeasureError", "MeasureSpec", "MetricsError", "RankedLists", "Settings", "SettingsError",
    "curves", "evaluate", "models_of", "parse_measure", "parse_measures", "rank_lists", "rank_run",
]
