"""The findings about a run and its judgments, as data: :class:`Finding` and :class:`DataHealth`.

A :class:`Finding` has a stable code, a severity (``"error"`` stops the evaluation, ``"warning"``
and ``"info"`` do not), parameters (counts, column names, the cutoff), a count, up to five
structured examples, and where it was found. Nothing here is display text: :func:`message_text`,
:func:`action_text` and :func:`example_text` word a finding in English from the catalogue of
:mod:`metrics.io.messages` (for the command line and exceptions); the app words the same codes
from its message catalogs in the user's language. The ``*_finding`` functions make the findings
that more than one check (or engine) reports, in one wording.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from metrics.engine.settings import POLICIES, Settings
from metrics.errors import InputError
from metrics.io.direction import (
    RankAgreement,
    rank_disagreements,
)
from metrics.io.messages import (
    ACTION_SETTINGS,
    ACTIONS,
    EXAMPLES,
    MESSAGES,
    RULES,
    WHERE,
    Template,
    plural_form,
)

if TYPE_CHECKING:  # imported on use: TREC files are evaluated without pandas
    import pandas as pd

Severity = Literal["error", "warning", "info"]


TableRole = Literal["run", "qrels"]


#: One example: named values (ids, counts); its kind is the tuple of its names, in order.
Example = Mapping[str, object]


_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


MAX_EXAMPLES = 5


def example_kind(example: Example) -> str:
    """The kind of an example: the names of its values, joined by ``_``."""
    return "_".join(example)


@dataclass(frozen=True)
class Finding:
    """One problem (or remark) about the input, as data.

    Attributes
    ----------
    code:
        Stable identifier, e.g. ``"duplicate_items"``.
    severity:
        ``"error"`` (evaluation cannot go on), ``"warning"`` or ``"info"``.
    params:
        The values its message names (counts ``n`` and ``total``, ``column``, ``k``, ...).
    count:
        How many rows, lists or queries are concerned.
    example_values:
        Up to five examples, each a mapping of names to values (see :data:`EXAMPLES`).
    variant:
        Which wording of the code applies (``"run"``/``"qrels"``, ``"one_model"``/``"models"``),
        or ``""``.
    source, line, column:
        Where, when known.
    rule:
        The policy in force that decides what is done, as ``(setting, value)``: the message
        says what that value does (:data:`RULES`).
    """

    code: str
    severity: Severity
    params: Mapping[str, object] = field(default_factory=dict)
    count: int = 0
    example_values: tuple[Example, ...] = ()
    variant: str = ""
    source: str | None = None
    line: int | None = None
    column: str | None = None
    rule: tuple[str, str] | None = None

    @property
    def key(self) -> str:
        """``code`` or ``code.variant``: which message applies."""
        return f"{self.code}.{self.variant}" if self.variant else self.code

    @property
    def message(self) -> str:
        """What was found, in English."""
        return message_text(self)

    @property
    def action(self) -> str:
        """The fix, or what is done, in English (``""`` when there is nothing to do)."""
        return action_text(self)

    @property
    def examples(self) -> list[str]:
        """The examples, in English."""
        return [example_text(e) for e in self.example_values]

    def to_error(self) -> InputError:
        """This finding as an :class:`~metrics.errors.InputError` (carrying the finding)."""
        error = InputError(
            self.message,
            source=self.source,
            line=self.line,
            column=self.column,
            fix=self.action or None,
        )
        error.finding = self
        return error


def _filled(template: Template, values: Mapping[str, object]) -> str:
    return plural_form(template, "en", values).format(**values)


def message_text(finding: Finding) -> str:
    """The English message of ``finding``."""
    values = dict(finding.params)
    for name, where in WHERE.items():
        if name in values:
            values["where"] = where.format(**values)
            break
    if finding.rule is not None:
        setting, value = finding.rule
        values["rule"] = _filled(RULES[setting][value], values)
    return _filled(MESSAGES.get(finding.key, MESSAGES.get(finding.code, finding.key)), values)


def action_text(finding: Finding) -> str:
    """The English fix of ``finding`` (naming settings by their label)."""
    template = ACTIONS.get(finding.key, ACTIONS.get(finding.code, ""))
    setting = ACTION_SETTINGS.get(finding.key, ACTION_SETTINGS.get(finding.code))
    if setting is None:
        return template.format_map(_Params(finding.params)) if "{" in template else template
    policy = POLICIES[setting[0]]
    value = policy.values.get(setting[1], "") if setting[1] is not None else ""
    return template.format(setting=policy.label, value=value)


class _Params(dict[str, object]):
    """A finding's parameters for a template; a name it lacks stays as written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def example_text(example: Example) -> str:
    """One example in English."""
    return _filled(EXAMPLES.get(example_kind(example), "{value}"), example)


@dataclass
class DataHealth:
    """All findings about one data set: what the Data page shows as its health."""

    findings: list[Finding] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        """Whether any finding stops the evaluation."""
        return any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        """Findings of severity ``"error"``."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        """Findings of severity ``"warning"``."""
        return [f for f in self.findings if f.severity == "warning"]

    def codes(self) -> list[str]:
        """The codes of all findings, in order."""
        return [f.code for f in self.findings]

    def get(self, code: str) -> Finding | None:
        """The first finding with this code, if any."""
        return next((f for f in self.findings if f.code == code), None)

    def sorted(self) -> DataHealth:
        """Errors first, then warnings, then remarks (stable within a severity)."""
        return DataHealth(sorted(self.findings, key=lambda f: _SEVERITY_ORDER[f.severity]))

    def to_frame(self) -> pd.DataFrame:
        """One row per finding in English: code, severity, message, count, examples, action."""
        import pandas as pd  # deferred: the command line words findings without pandas

        rows = [
            {
                "code": f.code,
                "severity": f.severity,
                "message": f.message,
                "count": f.count,
                "examples": "; ".join(f.examples),
                "action": f.action,
            }
            for f in self.findings
        ]
        return pd.DataFrame(
            rows, columns=["code", "severity", "message", "count", "examples", "action"]
        )

    def to_text(self) -> str:
        """Plain-text rendering, one block per finding (for a terminal's stderr)."""
        lines = []
        for f in self.sorted().findings:
            lines.append(f"{f.severity.upper()}: {f.message}")
            if f.examples:
                lines.append(f"  e.g. {'; '.join(f.examples)}")
            if f.action:
                lines.append(f"  -> {f.action}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def raise_for_errors(self) -> None:
        """Raise the first error finding as an :class:`~metrics.errors.InputError`."""
        for f in self.findings:
            if f.severity == "error":
                raise f.to_error()


def id_examples(values: Iterable[object], name: str = "id") -> tuple[Example, ...]:
    out: list[Example] = []
    for v in values:
        out.append({name: str(v)})
        if len(out) == MAX_EXAMPLES:
            break
    return tuple(out)


def ids_text(values: Iterable[object]) -> str:
    return ", ".join(str(e["id"]) for e in id_examples(values))


def duplicate_items_finding(n: int, examples: tuple[Example, ...], settings: Settings) -> Finding:
    """The finding on ``n`` repeated (query, item) rows of a run, refused or kept as the
    duplicates policy says (one wording for every engine)."""
    refused = settings.duplicates == "error"
    return Finding(
        "duplicate_items",
        "error" if refused else "warning",
        {"n": n},
        n,
        examples,
        variant="refused" if refused else "",
        rule=("duplicates", settings.duplicates),
    )


def typed_duplicates_finding(n: int, examples: tuple[Example, ...]) -> Finding:
    """The finding on ``n`` items typed more than once in a list built by hand: each list keeps
    the item's best-ranked row (a list holds an item once), whatever the duplicates policy."""
    return Finding("duplicate_items", "warning", {"n": n}, n, examples, variant="typed")


def score_values_finding(
    code: str, n: int, column: str, examples: tuple[Example, ...], variant: str = ""
) -> Finding:
    """``missing_scores`` or ``infinite_scores``: ``n`` run rows of ``column`` without a usable
    score (``variant``: see :func:`infinite_variant`)."""
    return Finding(
        code, "warning", {"n": n, "column": column}, n, examples, variant=variant, column=column
    )


def infinite_variant(settings: Settings, models: Iterable[object]) -> str:
    """Which wording of ``infinite_scores`` fits the score orders of ``models``: ``""`` (every
    model ranks the highest score first), ``"ascending"`` (every model the lowest) or
    ``"mixed"``."""
    orders = {settings.score_order_of(str(m)) for m in models}
    if orders == {"ascending"}:
        return "ascending"
    return "mixed" if len(orders) > 1 else ""


def score_order_vs_rank_findings(
    found: Mapping[str, RankAgreement], settings: Settings
) -> list[Finding]:
    """``score_order_vs_rank``: per model (in the order of ``found``), scores that ascend (or
    descend) with rank in most lists while the order in force ranks them the other way."""
    return [
        Finding(
            "score_order_vs_rank",
            "warning",
            d.params,
            d.agree,
            variant=d.order,
            rule=("score_order", d.rule),
        )
        for d in rank_disagreements(dict(found), settings)
    ]


def score_order_by_name_finding(column: str, models: Sequence[str], source: str | None) -> Finding:
    """``score_order_by_name``: the score column ``column`` of ``source`` is named like a
    distance, cost or loss while ``models`` (its models that do) rank the highest score first."""
    return Finding(
        "score_order_by_name",
        "warning",
        {"column": column, "n": len(models)},
        len(models),
        tuple({"model": str(m)} for m in models[:MAX_EXAMPLES]),
        source=source,
        column=column,
        rule=("score_order", "descending"),
    )


def tied_scores_finding(
    lists: int, rows: int, examples: tuple[Example, ...], settings: Settings
) -> Finding:
    """``lists`` ranked lists with equal scores (``rows`` rows), ordered by the ties policy."""
    return Finding(
        "tied_scores",
        "warning",
        {"n": lists, "rows": rows},
        lists,
        examples,
        rule=("ties", settings.ties),
    )


def short_lists_finding(
    n: int, total: int, k: int, shortest: int, examples: tuple[Example, ...], settings: Settings
) -> Finding:
    """``n`` of ``total`` lists shorter than the largest cutoff ``k``."""
    return Finding(
        "short_lists",
        "warning",
        {"n": n, "total": total, "k": k, "shortest": shortest},
        n,
        examples,
        rule=("short_lists", settings.short_lists),
    )


def missing_labels_finding(n: int, examples: tuple[Example, ...], column: str) -> Finding:
    """``n`` judgments without a label in ``column``."""
    return Finding("missing_labels", "warning", {"n": n}, n, examples, column=column)


def duplicate_judgments_finding(
    n: int, examples: tuple[Example, ...], conflicts: int = 0, source: str | None = None
) -> Finding:
    """``n`` repeated (query, item) judgments, of which ``conflicts`` (query, item) pairs have
    labels that disagree (their examples then name the labels and the one kept: see
    :func:`conflict_examples`)."""
    if conflicts:
        return Finding(
            "duplicate_judgments",
            "warning",
            {"n": n, "conflicts": conflicts},
            n,
            examples,
            variant="conflicting",
            source=source,
        )
    return Finding("duplicate_judgments", "warning", {"n": n}, n, examples, source=source)


def conflict_examples(
    pairs: Iterable[tuple[object, object, Sequence[float]]],
) -> tuple[Example, ...]:
    """Examples of items judged with labels that disagree: ``(query, item, labels ascending)``
    as the query, the item, the labels and the one kept (the highest)."""
    return tuple(
        {
            "query": str(query),
            "item": str(item),
            "labels": ", ".join(f"{v:g}" for v in labels),
            "kept": f"{max(labels):g}",
        }
        for query, item, labels in list(pairs)[:MAX_EXAMPLES]
    )


def negative_labels_finding(n: int, examples: tuple[Example, ...], column: str) -> Finding:
    """``n`` judgments with a label below zero."""
    return Finding("negative_labels", "warning", {"n": n}, n, examples, column=column)


def fractional_labels_finding(
    n: int, examples: tuple[Example, ...], column: str, settings: Settings
) -> Finding:
    """``n`` labels that are not whole numbers, read as the fractional-labels policy says (one
    wording for every engine and reader)."""
    first = float(str(examples[0]["value"])) if examples else 0.0
    return Finding(
        "fractional_labels",
        "warning",
        {"n": n, "value": f"{first:g}", "whole": f"{math.trunc(first):d}"},
        n,
        examples,
        variant=settings.fractional_labels,
        column=column,
        rule=("fractional_labels", settings.fractional_labels),
    )


def labels_look_like_ranks_finding(column: str) -> Finding:
    """The labels of ``column`` look like rank positions, not relevance grades."""
    return Finding("labels_look_like_ranks", "warning", {"column": column}, column=column)


def no_relevant_finding(
    n: int, total: int, level: float, examples: tuple[Example, ...], settings: Settings
) -> Finding:
    """``n`` of ``total`` judged queries without an item labelled ``level`` or more."""
    return Finding(
        "no_relevant",
        "warning",
        {"n": n, "total": total, "level": f"{level:g}"},
        n,
        examples,
        rule=("no_relevant", settings.no_relevant),
    )


def unjudged_queries_finding(n: int, total: int, examples: tuple[Example, ...]) -> Finding:
    """``n`` of ``total`` run queries without any judgment."""
    return Finding("unjudged_queries", "warning", {"n": n, "total": total}, n, examples)


def missing_run_queries_finding(
    n: int,
    total: int,
    examples: tuple[Example, ...],
    settings: Settings,
    pairs: int | None = None,
) -> Finding:
    """``n`` of ``total`` judged queries missing from a run; with several models, ``pairs``
    (model, query) pairs missing."""
    params: dict[str, object] = {"n": n, "total": total}
    if pairs is not None:
        params["pairs"] = pairs
    return Finding(
        "missing_run_queries",
        "warning",
        params,
        n,
        examples,
        variant="one_model" if pairs is None else "models",
        rule=("missing_queries", settings.missing_queries),
    )


def relevant_not_retrieved_finding(n: int, queries: int, examples: tuple[Example, ...]) -> Finding:
    """``n`` relevant judged items (in ``queries`` queries) that no run retrieved."""
    return Finding("relevant_not_retrieved", "warning", {"n": n, "queries": queries}, n, examples)


__all__ = [
    "DataHealth",
    "Finding",
    "Severity",
    "action_text",
    "example_kind",
    "example_text",
    "message_text",
]
