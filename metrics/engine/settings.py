"""Every definitional choice of the evaluation, as one typed, documented settings object.

The defaults reproduce trec_eval 9 (and pytrec_eval, which wraps its C code). Each field is a
named policy; :data:`POLICIES` documents every value so that the app, the CLI and exports can
show and record them from one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, cast

from metrics.errors import SettingsError

Ties = Literal["item_desc", "input_order", "rank"]
ScoreOrder = Literal["descending", "ascending"]
ScorePrecision = Literal["float32", "float64"]
Gain = Literal["linear", "exponential"]
ShortLists = Literal["divide_by_k", "divide_by_returned", "leave_out"]
Duplicates = Literal["keep_best", "error"]
MissingQueries = Literal["skip", "zero"]
NoRelevant = Literal["zero", "leave_out", "one"]
Averaging = Literal["macro", "micro", "weighted", "geometric"]
RecallRounding = Literal["trunc", "lround"]
FractionalLabels = Literal["truncate", "keep"]
LabelAggregate = Literal["majority", "mean", "median", "max", "min"]

#: Floor of trec_eval's geometric means (``MIN_GEO_MEAN``, ``GM_MAP_MIN``).
GEO_MEAN_FLOOR = 1e-5


@dataclass(frozen=True)
class Policy:
    """Documentation of one setting: a label, its values with explanations, and the default."""

    field: str
    label: str
    help: str
    values: dict[Any, str]
    trec_eval: str


POLICIES: dict[str, Policy] = {
    p.field: p
    for p in (
        Policy(
            "ties",
            "Tied scores",
            "How items with the same score are ordered within a query.",
            {
                "item_desc": "best score first (see the score order), then item id descending "
                "(byte order)",
                "input_order": "best score first (see the score order), then the order of the "
                "input rows",
                "rank": "use the rank column as given (scores ignored)",
            },
            "item_desc",
        ),
        Policy(
            "score_order",
            "Score order",
            "Whether a higher or a lower score ranks first. trec_eval ranks the highest score "
            "first; distances, costs and losses rank the lowest first, as if their negation "
            "were the score. Ties keep their meaning either way: broken by item id descending "
            "(as trec_eval on the negated scores) or kept in input order, and a rank column "
            "still ignores the scores; missing scores still rank last.",
            {
                "descending": "higher is better: the highest score ranks first (trec_eval)",
                "ascending": "lower is better: the lowest score ranks first (distances, costs, "
                "losses)",
            },
            "descending (the highest score first)",
        ),
        Policy(
            "score_order_by_model",
            "Score order per model",
            "The models whose scores go the other way from the score order (one model may give "
            "distances, another similarities); every other model follows the score order.",
            {(): "none: every model follows the score order"},
            "one order for every run",
        ),
        Policy(
            "score_precision",
            "Score precision for ordering",
            "Precision at which scores are compared when ordering a list. trec_eval stores "
            "scores as single-precision floats, so scores that differ only beyond about seven "
            "significant digits tie and are ordered by the tie policy.",
            {
                "float32": "single precision, as trec_eval",
                "float64": "double precision, as given",
            },
            "float32",
        ),
        Policy(
            "relevance_level",
            "Relevance level",
            "A label at or above this level counts as relevant for binary measures "
            "(P, R, F1, Success, RR, AP, Rprec). nDCG uses the labels themselves as gains.",
            {1: "label ≥ 1 is relevant"},
            "1 (trec_eval -l 1)",
        ),
        Policy(
            "gain",
            "nDCG gain",
            "Gain of an item with label r in DCG.",
            {
                "linear": "gain = r (trec_eval)",
                "exponential": "gain = 2^r − 1 (Burges et al.; ranx ndcg_burges)",
            },
            "linear",
        ),
        Policy(
            "short_lists",
            "Fewer than K results",
            "What P@K, F1@K and position-weighted P@K divide by when a list has fewer than K "
            "items.",
            {
                "divide_by_k": "divide by K: missing positions count as non-relevant",
                "divide_by_returned": "divide by the number returned, min(K, n)",
                "leave_out": "leave the query out of the average at that K",
            },
            "divide_by_k",
        ),
        Policy(
            "duplicates",
            "Duplicate items in a list",
            "An item listed twice for the same query and model.",
            {
                "keep_best": "keep the best-ranked copy, drop the rest and report how many",
                "error": "refuse the input (trec_eval's behaviour)",
            },
            "error (trec_eval refuses such files)",
        ),
        Policy(
            "missing_queries",
            "Judged queries absent from the run",
            "Queries that have judgments but no retrieved items.",
            {
                "skip": "skip them (trec_eval default)",
                "zero": "score them as an empty ranking (trec_eval -c)",
            },
            "skip",
        ),
        Policy(
            "no_relevant",
            "Queries with no relevant item",
            "Queries whose judgments contain nothing at or above the relevance level.",
            {
                "zero": "evaluate them; most measures are 0 (trec_eval)",
                "leave_out": "leave them out of every average",
                "one": "evaluate them; nDCG is 1 where no judged item has a gain (its ideal DCG "
                "is 0), as LightGBM and XGBoost's ndcg score such a query; other measures as "
                "under zero",
            },
            "zero",
        ),
        Policy(
            "fractional_labels",
            "Labels that are not whole numbers",
            "How a label such as 1.5 or 3.5 is read. trec_eval reads every label as a whole "
            "number (C's atol), so 1.5 counts as 1 and -0.5 as 0; keeping the fractions makes "
            "them gains of their own in nDCG, DCG and the graded measures.",
            {
                "truncate": "truncated toward zero, as trec_eval reads them (1.5 → 1)",
                "keep": "kept as they are: fractional gains (not trec_eval)",
            },
            "truncate",
        ),
        Policy(
            "ndcg_relevance_level",
            "Relevance level filters nDCG",
            "Whether labels below the relevance level get gain 0 in nDCG.",
            {
                False: "no: every positive label is a gain (trec_eval)",
                True: "yes: labels below the level count as 0 (ranx)",
            },
            "no",
        ),
        Policy(
            "judged_only",
            "Judged items only",
            "Whether unjudged items (not in the judgments, or with a negative label) are removed "
            "from each list before scoring, after the cut to the maximum number of results "
            "(trec_eval -J). The remaining items are ranked 1, 2, ... again.",
            {
                False: "no: unjudged items keep their ranks and count as non-relevant (trec_eval)",
                True: "yes: unjudged items are removed before scoring (trec_eval -J)",
            },
            "no",
        ),
        Policy(
            "max_results",
            "Maximum results per query",
            "Each list is cut to its first N items after ordering (ties broken) and before "
            "unjudged items are removed (trec_eval -M). The number of relevant items does not "
            "change.",
            {None: "no limit (trec_eval's default)"},
            "no limit (trec_eval -M)",
        ),
        Policy(
            "gain_map",
            "Custom gains",
            "Gain of each label in nDCG and DCG, written label:gain,... such as 0:0,1:1,2:3,3:7 "
            "(trec_eval -m ndcg.1=1,2=3,3=7). Labels not listed keep their label as gain; the "
            "ideal ordering stops at the first gain of 0 or less. It replaces the nDCG gain "
            "policy. ERR reads the gain as 2^g − 1, so its stopping probability becomes "
            "gain/2^gmax. trec_eval orders gains less than 1 apart wrongly in the ideal list (it "
            "compares them as whole numbers); here the ideal list is sorted exactly.",
            {None: "none: the nDCG gain policy decides"},
            "none",
        ),
        Policy(
            "recall_rounding",
            "Recall level to a number of relevant items",
            "How interpolated precision turns a recall level p into a count of relevant items "
            "when the query has R of them.",
            {
                "trunc": "trunc(p·R + 0.9), as trec_eval 9.0.8 and pytrec_eval",
                "lround": "round(p·R), halves away from zero, as trec_eval 10.0",
            },
            "trunc",
        ),
        Policy(
            "label_source",
            "Label source",
            "Which labels are the judgments when they come from several sources (label columns "
            "of one table, or several judgment files: annotators, clicks, an LLM judge): one "
            "source by its name, or an aggregate of the sources that judged each (query, item). "
            "An item no source judged stays unjudged. Judgments of one source have nothing to "
            "choose.",
            {
                None: "the first source: the judgments as given",
                "majority": "the grade most sources gave; a tie goes to the lowest of the tied "
                "grades",
                "mean": "the mean of the grades given",
                "median": "the median of the grades given (the mean of the two middle ones for "
                "an even count)",
                "max": "the highest grade given",
                "min": "the lowest grade given",
            },
            "one set of judgments",
        ),
        Policy(
            "averaging",
            "Averaging over queries",
            "How per-query values become one number.",
            {
                "macro": "mean of per-query values (trec_eval 'all')",
                "micro": "pooled counts over queries (P, R, F1, Success); other measures macro",
                "weighted": "mean weighted by a query-level weight column",
                "geometric": "per-query values floored at 1e-5, averaged geometrically "
                "(trec_eval gm_map, gm_bpref)",
            },
            "macro",
        ),
    )
}


@dataclass(frozen=True)
class Settings:
    """Definitional choices of one evaluation. Defaults follow trec_eval 9.

    Attributes
    ----------
    relevance_level:
        Labels at or above ``relevance_level`` (and not negative) are relevant for binary measures.
    gain:
        ``"linear"`` (gain = label) or ``"exponential"`` (gain = 2**label - 1) for DCG.
    ties:
        ``"item_desc"``, ``"input_order"`` or ``"rank"`` (see :data:`POLICIES`).
    score_precision:
        ``"float32"`` compares scores in single precision, as trec_eval does; ``"float64"``
        keeps them as given.
    score_order:
        ``"descending"`` (higher is better, trec_eval) or ``"ascending"`` (lower is better:
        distances, costs, losses are ranked as if negated).
    score_order_by_model:
        ``(model, order)`` pairs for the models whose order differs from ``score_order`` (a
        mapping or a list of pairs is accepted and stored sorted, without pairs that repeat
        ``score_order``); see :meth:`for_model`.
    short_lists:
        Denominator of P@K when fewer than K items were returned.
    duplicates:
        ``"keep_best"`` drops later copies of an item and reports them; ``"error"`` refuses.
    missing_queries:
        ``"skip"`` or ``"zero"`` (trec_eval ``-c``) for judged queries absent from a run.
    no_relevant:
        ``"zero"`` evaluates queries without relevant items; ``"leave_out"`` drops them;
        ``"one"`` evaluates them with nDCG 1 where the ideal DCG is 0 (LightGBM, XGBoost).
    fractional_labels:
        ``"truncate"`` reads a label that is not a whole number as trec_eval does (toward zero:
        1.5 → 1); ``"keep"`` keeps it as a fractional gain.
    ndcg_relevance_level:
        When true, labels below ``relevance_level`` have gain 0 in nDCG.
    judged_only:
        When true, unjudged items are removed from each list before scoring (trec_eval ``-J``).
    max_results:
        Cut each list to its first N items after ordering (trec_eval ``-M``); ``None``: no cut.
    gain_map:
        ``"0:0,1:1,2:3,3:7"``: the gain of each label in nDCG/DCG (trec_eval ``ndcg`` pairs).
    recall_rounding:
        ``"trunc"`` (trec_eval 9.0.8) or ``"lround"`` (trec_eval 10.0) for interpolated precision.
    label_source:
        Which label source the judgments are when there are several (:mod:`metrics.labels`):
        a source's name, or an aggregate (``"majority"``, ``"mean"``, ``"median"``, ``"max"``,
        ``"min"``); ``None``: the first source. Read where the judgments are chosen
        (:meth:`metrics.labels.sources.LabelSources.chosen`, the app's data sets, the command
        lines' ``--label-source``); an evaluation given one table of judgments has nothing to
        choose.
    averaging:
        ``"macro"``, ``"micro"``, ``"weighted"`` (needs ``weight_column``) or ``"geometric"``.
    weight_column:
        Query-level column holding weights when ``averaging == "weighted"``.
    """

    relevance_level: float = 1
    gain: Gain = "linear"
    ties: Ties = "item_desc"
    score_precision: ScorePrecision = "float32"
    score_order: ScoreOrder = "descending"
    score_order_by_model: tuple[tuple[str, ScoreOrder], ...] = ()
    short_lists: ShortLists = "divide_by_k"
    duplicates: Duplicates = "keep_best"
    missing_queries: MissingQueries = "skip"
    no_relevant: NoRelevant = "zero"
    fractional_labels: FractionalLabels = "truncate"
    ndcg_relevance_level: bool = False
    judged_only: bool = False
    max_results: int | None = None
    gain_map: str | None = None
    recall_rounding: RecallRounding = "trunc"
    label_source: str | None = None
    averaging: Averaging = "macro"
    weight_column: str | None = None

    def __post_init__(self) -> None:
        for name, policy in POLICIES.items():
            value = getattr(self, name)
            if name == "relevance_level":
                if (
                    isinstance(value, bool)
                    or not isinstance(value, (int, float))
                    or not math.isfinite(value)
                ):
                    raise SettingsError(
                        f"relevance_level must be a finite number, got {value!r} (labels at or "
                        "above it are relevant: 1 for binary labels)."
                    )
                continue
            if name == "max_results":
                if value is not None and (
                    isinstance(value, bool) or not isinstance(value, int) or value < 1
                ):
                    raise SettingsError(
                        f"max_results must be a whole number of 1 or more, or None; got {value!r}."
                    )
                continue
            if name in ("gain_map", "score_order_by_model", "label_source"):
                _check_named(name, value)
                continue  # orders per model: after the loop, once the score order is valid
            if value not in policy.values:
                allowed = ", ".join(repr(v) for v in policy.values)
                raise SettingsError(f"{name} must be one of {allowed}; got {value!r}.")
        orders = _model_orders(self.score_order_by_model, self.score_order)
        object.__setattr__(self, "score_order_by_model", orders)
        if self.averaging == "weighted" and not self.weight_column:
            raise SettingsError(
                "averaging='weighted' needs weight_column: name the query-level column that "
                "holds each query's weight."
            )

    def to_dict(self) -> dict[str, Any]:
        """Plain dictionary, for exports and provenance records."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Settings:
        """Build settings from a dictionary, ignoring unknown keys."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})

    def with_(self, **changes: Any) -> Settings:
        """A copy with some fields changed (validated)."""
        return replace(self, **changes)

    def score_order_of(self, model: str) -> ScoreOrder:
        """The score order of ``model``: its own in :attr:`score_order_by_model`, else
        :attr:`score_order`."""
        return dict(self.score_order_by_model).get(str(model), self.score_order)

    def for_model(self, model: str) -> Settings:
        """The settings one model's lists are ranked with: its score order as ``score_order``,
        and no orders per model."""
        if not self.score_order_by_model:
            return self
        return replace(self, score_order=self.score_order_of(model), score_order_by_model=())

    def describe(self) -> list[tuple[str, str]]:
        """(label, chosen value explained) pairs, for display and reports."""
        rows = []
        for name, policy in POLICIES.items():
            value = getattr(self, name)
            if name == "relevance_level":
                rows.append((policy.label, f"label ≥ {value:g} is relevant"))
            elif name == "max_results":
                rows.append((policy.label, "no limit" if value is None else f"first {value}"))
            elif name == "gain_map":
                rows.append((policy.label, policy.values[None] if value is None else value))
            elif name == "score_order_by_model":
                shown = "; ".join(f"{m}: {POLICIES['score_order'].values[o]}" for m, o in value)
                rows.append((policy.label, shown or policy.values[()]))
            elif name == "label_source":
                rows.append((policy.label, label_source_text(value)))
            else:
                rows.append((policy.label, policy.values[value]))
        if self.averaging == "weighted":
            rows.append(("Weight column", str(self.weight_column)))
        return rows


#: The aggregates a label source can be (:data:`POLICIES` ``label_source``): how several
#: sources make one label per (query, item).
LABEL_AGGREGATES: tuple[LabelAggregate, ...] = ("majority", "mean", "median", "max", "min")


def _check_named(name: str, value: object) -> None:
    """Check a policy whose values are not a list: a gain map, a label source's name.

    Raises
    ------
    SettingsError
        For a gain map that does not parse, or a label source that is not a name.
    """
    if name == "gain_map" and value is not None:
        parse_gain_map(value)  # type: ignore[arg-type]
    named = isinstance(value, str) and bool(value.strip())
    if name == "label_source" and value is not None and not named:
        raise SettingsError(
            f"label_source must be a label source's name or one of "
            f"{', '.join(LABEL_AGGREGATES)}, or None; got {value!r}."
        )


def label_source_text(value: str | None) -> str:
    """The label source in English: the first source, an aggregate explained, or a source's
    name."""
    values = POLICIES["label_source"].values
    if value is None or value in values:
        return f"{value}: {values[value]}" if value is not None else values[None]
    return f"the source {value!r}"


def _model_orders(value: object, default: str) -> tuple[tuple[str, ScoreOrder], ...]:
    """Orders per model as sorted ``(model, order)`` pairs, without those equal to
    ``default``; a mapping or any sequence of pairs (a JSON list) is accepted.

    Raises
    ------
    SettingsError
        For an order that is neither ``"descending"`` nor ``"ascending"``, or a model given two
        orders.
    """
    if value is None:
        return ()
    pairs: Any = value.items() if isinstance(value, Mapping) else value
    orders: dict[str, ScoreOrder] = {}
    try:
        items = [(str(model), order) for model, order in pairs]
    except (TypeError, ValueError):
        raise SettingsError(
            f"score_order_by_model must be model=order pairs such as (('dense', 'ascending'),); "
            f"got {value!r}."
        ) from None
    for model, order in items:
        if order not in POLICIES["score_order"].values:
            raise SettingsError(
                f"score_order_by_model: the order of model {model!r} must be 'descending' or "
                f"'ascending'; got {order!r}."
            )
        if orders.get(model, order) != order:
            raise SettingsError(f"score_order_by_model: model {model!r} is given two orders.")
        orders[model] = order
    return tuple(sorted((m, o) for m, o in orders.items() if o != default))


def parse_model_orders(texts: Sequence[str]) -> tuple[ScoreOrder | None, dict[str, ScoreOrder]]:
    """Read ``--score-order`` values: ``ascending`` or ``descending`` for every model, or
    ``MODEL=ascending`` for one (the last ``=`` separates, so model names may hold ``=``).

    Returns
    -------
    (order, per_model)
        The order for every model (``None`` when none was given; the last one wins) and the
        orders per model.

    Raises
    ------
    SettingsError
        For an order that is neither ``ascending`` nor ``descending``.
    """
    allowed = tuple(POLICIES["score_order"].values)
    order: ScoreOrder | None = None
    per_model: dict[str, ScoreOrder] = {}
    for text in texts:
        model, sep, value = str(text).rpartition("=")
        value = value.strip()
        if value not in allowed or (sep and not model):
            raise SettingsError(
                f"--score-order takes ascending, descending or MODEL=ascending; got {text!r}."
            )
        if sep:
            per_model[model] = cast(ScoreOrder, value)
        else:
            order = cast(ScoreOrder, value)
    return order, per_model


def score_order_options(texts: Sequence[str]) -> dict[str, Any]:
    """The ``score_order`` and ``score_order_by_model`` settings of ``--score-order`` values
    (:func:`parse_model_orders`; empty when none was given)."""
    order, per_model = parse_model_orders(texts)
    out: dict[str, Any] = {}
    if order is not None:
        out["score_order"] = order
    if per_model:
        out["score_order_by_model"] = tuple(per_model.items())
    return out


def check_model_orders(settings: Settings, models: Sequence[str]) -> None:
    """Refuse orders per model that name no model of the runs.

    Raises
    ------
    SettingsError
        Naming the unknown model and the models there are.
    """
    known = set(map(str, models))
    unknown = [m for m, _ in settings.score_order_by_model if m not in known]
    if unknown:
        raise SettingsError(
            f"a score order is given for model {unknown[0]!r}, which is not a model of the "
            f"runs (models: {', '.join(map(str, models))})."
        )


def parse_gain_map(text: str) -> dict[int, float]:
    """Read a gain map such as ``"0:0,1:1,2:3,3:7"`` (``=`` works as well as ``:``).

    Raises
    ------
    SettingsError
        When a pair is not ``label:gain`` with a whole label ≥ 0 and a finite gain, or a label
        is given twice.
    """
    out: dict[int, float] = {}
    if not isinstance(text, str) or not text.strip():
        raise SettingsError(
            f"gain_map must be written label:gain,... like 0:0,1:1,2:3; got {text!r}."
        )
    for part in text.split(","):
        pair = part.strip().replace("=", ":")
        label, sep, gain = pair.partition(":")
        try:
            level = int(label.strip())
            value = float(gain.strip())
        except ValueError:
            level, value = -1, float("nan")
        if not sep or level < 0 or value != value or value in (float("inf"), float("-inf")):
            raise SettingsError(
                f"gain_map: {part.strip()!r} is not label:gain with a whole label ≥ 0 and a "
                "finite gain (write it like 0:0,1:1,2:3,3:7)."
            )
        if level in out:
            raise SettingsError(f"gain_map: label {level} is given twice.")
        out[level] = value
    return out


TREC_EVAL = Settings()

#: Settings that reproduce each trec_eval version's stored outputs; the default is 9.0.8 as
#: pytrec_eval computes it. Only the fields that differ from :class:`Settings` are listed.
PROFILES: dict[str, dict[str, Any]] = {
    "trec_eval9": {},
    "trec_eval10": {"score_precision": "float64", "recall_rounding": "lround"},
}


def profile(name: str, **changes: Any) -> Settings:
    """The settings of a trec_eval version (``"trec_eval9"`` or ``"trec_eval10"``), with changes.

    Raises
    ------
    SettingsError
        For an unknown profile name.
    """
    if name not in PROFILES:
        raise SettingsError(f"profile must be one of {', '.join(PROFILES)}; got {name!r}.")
    return Settings(**{**PROFILES[name], **changes})
