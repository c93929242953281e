"""The shared view: data set choice and evaluation settings every page uses.

A :class:`View` is what a copied link must reproduce. :func:`to_query_params` and
:func:`from_query_params` convert it to and from the URL (pure functions, testable without a
server); :func:`View.settings` builds the engine's :class:`~metrics.engine.settings.Settings`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, make_dataclass
from typing import Any
from urllib.parse import quote, unquote

from metrics.engine.registry import DEFAULT_CURVE_MEASURES, MEASURES
from metrics.engine.settings import (
    POLICIES,
    Settings,
    parse_gain_map,
)
from metrics.errors import SettingsError
from ui.shell.i18n import DEFAULT_LANGUAGE, LANGUAGES

DEFAULT_DATA = "web_search"
K_LIMIT = 100
UPLOAD = "upload"
HANDBUILT = "handbuilt"

#: Policies chosen from a menu, always in view in the sidebar ...
MAIN_POLICIES = ("gain", "score_order", "ties", "short_lists", "averaging")
#: Policies typed in rather than chosen (under "more settings" too), the models whose
#: scores go the other way (chosen from the data set's models, under the score order) and the
#: label source (chosen from the data set's label sources, when it has several).
INPUT_POLICIES = ("max_results", "gain_map", "score_order_by_model", "label_source")
#: ... and the rest of the engine's policies (but the relevance level, the sidebar's number),
#: chosen under "more settings", in the engine's order.
MORE_POLICIES = tuple(
    field for field in POLICIES if field not in (*MAIN_POLICIES, *INPUT_POLICIES, "relevance_level")
)
MENU_POLICIES = MAIN_POLICIES + MORE_POLICIES
#: The fields of the engine's settings: every one is a field of a :class:`View` too.
SETTINGS_FIELDS = tuple(f.name for f in fields(Settings))

#: View field -> URL query parameter name.
URL_NAMES: dict[str, str] = {
    "data": "data",
    "measures": "m",
    "k_range": "k",
    "relevance_level": "rel",
    "gain": "gain",
    "ties": "ties",
    "short_lists": "short",
    "averaging": "avg",
    "weight_column": "w",
    "score_precision": "prec",
    "duplicates": "dup",
    "missing_queries": "missing",
    "no_relevant": "norel",
    "fractional_labels": "frac",
    "ndcg_relevance_level": "ndcgrel",
    "judged_only": "J",
    "recall_rounding": "rround",
    "max_results": "M",
    "gain_map": "gains",
    "score_order": "order",
    "score_order_by_model": "orders",
    "lang": "lang",
    "label_source": "labels",
}
#: A policy added to the engine without a short name here is named in the link by its field.
URL_NAMES.update({field: field for field in SETTINGS_FIELDS if field not in URL_NAMES})


def curve_measure_names() -> list[str]:
    """Measures that have a value at every K, in registry order (the measure menu)."""
    return [d.name for d in MEASURES.values() if d.cutoff != "none"]


#: The settings a view holds, as chosen (unvalidated: weighted averaging may wait for its
#: column): one field per field of the engine's ``Settings``, with its default.
Policies = make_dataclass(
    "Policies",
    [(f.name, f.type, dataclasses.field(default=f.default)) for f in fields(Settings)],
    frozen=True,
)


@dataclass(frozen=True, init=False)
class View:
    """Data set choice and settings shared by all pages.

    Besides its own fields, a view has every field of the engine's ``Settings`` (``view.gain``,
    ``View(gain="exponential")``, ``view.with_(ties="input_order")``), with the engine's
    defaults, held in :attr:`policies`: a policy added to ``Settings`` is a view's field without
    an edit here.
    """

    data: str
    measures: tuple[str, ...]
    k_range: tuple[int, int]
    lang: str
    policies: Any  # a Policies

    def __init__(
        self,
        data: str = DEFAULT_DATA,
        measures: tuple[str, ...] = DEFAULT_CURVE_MEASURES,
        k_range: tuple[int, int] = (1, 20),
        lang: str = DEFAULT_LANGUAGE,
        **policies: Any,
    ) -> None:
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "measures", measures)
        object.__setattr__(self, "k_range", k_range)
        object.__setattr__(self, "lang", lang)
        object.__setattr__(self, "policies", Policies(**policies))

    def __getattr__(self, name: str) -> Any:
        """A policy's value (only called for names that are not the view's own)."""
        policies = self.__dict__.get("policies")
        if policies is not None and name in SETTINGS_FIELDS:
            return getattr(policies, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def settings(self) -> Settings:
        """Engine settings of this view (weighted averaging without a column falls back to
        macro)."""
        chosen = asdict(self.policies)
        if chosen["averaging"] == "weighted" and not chosen["weight_column"]:
            chosen["averaging"] = "macro"
        if chosen["averaging"] != "weighted":
            chosen["weight_column"] = None
        return Settings(**chosen)

    def with_(self, **changes: Any) -> View:
        """A copy with some fields changed."""
        return View(**{**self.to_dict(), **changes})

    def other_way_models(self) -> list[str]:
        """The models whose score order is not :attr:`score_order`."""
        return [m for m, order in self.score_order_by_model if order != self.score_order]

    def to_dict(self) -> dict[str, Any]:
        own = {"data": self.data, "measures": self.measures, "k_range": self.k_range}
        return {**own, **asdict(self.policies), "lang": self.lang}


def gain_map_problem(text: str) -> str | None:
    """Why a typed gain map is refused (the engine's message), or ``None`` when it is valid."""
    try:
        parse_gain_map(text)
    except SettingsError as exc:
        return str(exc)
    return None


#: Most characters of one link parameter; the parameters holding lists (:data:`LIST_PARAMS`)
#: may have :data:`MAX_LIST_PARAM` (the Learn page's and the Data page's compressed lists).
MAX_PARAM = 2_000
MAX_LIST_PARAM = 12_000
LIST_PARAMS = ("list", "ls")
#: Most parameters of one link.
MAX_PARAMS = 64


def whole_number(text: str, low: int, high: int) -> int | None:
    """A link's decimal digits as a whole number within ``low..high`` (``None`` otherwise: other
    digits such as ``²``, signs, spaces, or more digits than the bound has)."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(high)):
        return None
    value = int(text)
    return value if low <= value <= high else None


def bounded_params(params: Mapping[str, object]) -> tuple[dict[str, str], tuple[str, ...]]:
    """A link's parameters within the bounds every page reads them in, and the names of those
    refused: a value longer than :data:`MAX_PARAM` (:data:`MAX_LIST_PARAM` for the lists), a
    name longer than 100 characters, and every parameter after the first :data:`MAX_PARAMS`.
    Nothing is decoded here; each reader checks its own values."""
    kept: dict[str, str] = {}
    refused: list[str] = []
    for number, (name, value) in enumerate(params.items()):
        text = value if isinstance(value, str) else str(value)
        bound = MAX_LIST_PARAM if name in LIST_PARAMS else MAX_PARAM
        if number >= MAX_PARAMS or len(name) > 100 or len(text) > bound:
            refused.append(name[:100])
        else:
            kept[name] = text
    return kept, tuple(refused)


def _typed_policies(get: dict[str, str], order: str) -> dict[str, Any]:
    """The maximum number of results, the custom gains and the models ranked the other way
    from ``order`` of a link, when valid."""
    changes: dict[str, Any] = {}
    limit = whole_number(get.get("M", ""), 1, 10**9)
    if limit is not None:
        changes["max_results"] = limit
    if get.get("gains") and gain_map_problem(get["gains"]) is None:
        changes["gain_map"] = get["gains"]
    if get.get("orders"):
        other = "descending" if order == "ascending" else "ascending"
        models = dict.fromkeys(unquote(m) for m in get["orders"].split(",") if m)
        changes["score_order_by_model"] = tuple((m, other) for m in models)
    return changes


def models_text(models: list[str]) -> str:
    """Model names for a link: each percent-encoded (so commas in names stay), comma-joined."""
    return ",".join(quote(m, safe="") for m in models)


def _number(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(text)
    return int(value) if value == int(value) else value


def to_query_params(view: View) -> dict[str, str]:
    """URL query parameters of a view (only the fields that differ from the defaults)."""
    default = View()
    out: dict[str, str] = {}
    for field, url in URL_NAMES.items():
        value = getattr(view, field)
        if value == getattr(default, field) and field != "data":
            continue
        if value is None:
            continue
        if field == "measures":
            out[url] = ",".join(value)
        elif field == "k_range":
            out[url] = f"{value[0]}-{value[1]}"
        elif field == "relevance_level":
            out[url] = f"{value:g}"
        elif field == "score_order_by_model":
            if view.other_way_models():
                out[url] = models_text(view.other_way_models())
        else:
            out[url] = str(value)
    return out


def _k_range(text: str) -> tuple[int, int] | None:
    """``"LO-HI"`` as a K range within 1..K_LIMIT, or ``None`` when invalid."""
    try:
        lo, hi = (int(x) for x in text.split("-", 1))
    except ValueError:
        return None
    return (lo, hi) if 1 <= lo <= hi <= K_LIMIT else None


def _relevance_level(text: str) -> float | None:
    """A finite relevance level within 0..100, or ``None`` when invalid."""
    try:
        level = _number(text)
    except ValueError:
        return None
    return level if 0 <= level <= 100 else None


def _policy_changes(get: Mapping[str, str]) -> dict[str, Any]:
    """The menu policies whose URL value is one of the policy's values."""
    changes: dict[str, Any] = {}
    for field in MENU_POLICIES:
        url = URL_NAMES[field]
        allowed = {str(value): value for value in POLICIES[field].values}
        if url in get and get[url] in allowed:
            changes[field] = allowed[get[url]]
    return changes


def from_query_params(params: Mapping[str, str], base: View | None = None) -> View:
    """A view read from URL query parameters; unknown or invalid values keep ``base``'s."""
    view = base or View()
    changes: dict[str, Any] = {}
    get = bounded_params(params)[0]
    if get.get("data"):
        changes["data"] = get["data"]
    if "m" in get:
        known = set(curve_measure_names())
        names = tuple(n for n in get["m"].split(",") if n in known)
        if names:
            changes["measures"] = names
    k_range = _k_range(get["k"]) if "k" in get else None
    if k_range is not None:
        changes["k_range"] = k_range
    level = _relevance_level(get["rel"]) if "rel" in get else None
    if level is not None:
        changes["relevance_level"] = level
    changes.update(_policy_changes(get))
    changes.update(_typed_policies(get, changes.get("score_order", view.score_order)))
    if get.get("w"):
        changes["weight_column"] = get["w"]
    if get.get("labels"):  # a source's name: checked against the data set's sources
        changes["label_source"] = get["labels"]
    if "lang" in get and get["lang"] in LANGUAGES:
        changes["lang"] = get["lang"]
    return view.with_(**changes)
