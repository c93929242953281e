"""Validation of a run and its judgments, reported as data: the data set's health.

:func:`validate` returns a :class:`DataHealth`: a list of :class:`Finding` objects, each with a
stable code, a severity (``"error"`` stops the evaluation, ``"warning"`` and ``"info"`` do not),
parameters (counts, column names, the cutoff), a count, up to five structured examples, and
where it was found. Nothing here is display text: :func:`message_text`, :func:`action_text` and
:func:`example_text` render a finding in English from :data:`MESSAGES`, :data:`ACTIONS` and
:data:`EXAMPLES` (for the command line and exceptions); the app renders the same codes from its
message catalogs in the user's language.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from metrics.engine import relevance
from metrics.engine.ranking import IdCodes, encode_strings, id_codes, string_chunks
from metrics.engine.settings import POLICIES, Settings
from metrics.errors import InputError, file_line
from metrics.io.direction import (
    NAME_TEXT,
    ORDER_RULES,
    RANK_TEXTS,
    RankAgreement,
    agreements,
    rank_disagreements,
)
from metrics.io.labels import partial_label_map
from metrics.io.roles import ROLES, label_values, score_values
from metrics.io.trec import READING_TEXTS
from metrics.schema import ITEM, LABEL, MODEL, QUERY, RANK, RELEVANCE, SCORE

Severity = Literal["error", "warning", "info"]
TableRole = Literal["run", "qrels"]
#: A message: one text, or plural forms (``"one"``, ``"other"``) chosen by the ``n`` parameter.
Template = str | Mapping[str, str]
#: One example: named values (ids, counts); its kind is the tuple of its names, in order.
Example = Mapping[str, object]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_MAX_EXAMPLES = 5


def _plural(one: str, other: str) -> dict[str, str]:
    return {"one": one, "other": other}


#: English messages by :attr:`Finding.key`. ``{where}`` is filled in from the ``line`` or ``row``
#: parameter (:data:`WHERE`).
MESSAGES: dict[str, Template] = {
    "no_rows.run": "The run has no rows.",
    "no_rows.qrels": "The judgments have no rows.",
    "no_query_column.run": "The run has no query column.",
    "no_query_column.qrels": "The judgments have no query column.",
    "no_item_column.run": "The run has no item column.",
    "no_item_column.qrels": "The judgments have no item column.",
    "no_score_or_rank": "The run has neither a score nor a rank column.",
    "no_label_column": "The judgments have no relevance label column.",
    "non_numeric_score": _plural(
        "Column '{column}' has 1 score that is not a number: '{value}' {where}.",
        "Column '{column}' has {n} scores that are not numbers; the first is '{value}' {where}.",
    ),
    "non_numeric_rank": _plural(
        "Column '{column}' has 1 rank that is not a number: '{value}' {where}.",
        "Column '{column}' has {n} ranks that are not numbers; the first is '{value}' {where}.",
    ),
    "non_numeric_label": _plural(
        "Column '{column}' has 1 label that is not a number: '{value}' {where}.",
        "Column '{column}' has {n} labels that are not numbers ({values}); the first is "
        "'{value}' {where}.",
    ),
    "missing_ids.run": _plural(
        "1 row of the run has an empty query or item id; it is dropped.",
        "{n} rows of the run have an empty query or item id; they are dropped.",
    ),
    "missing_ids.qrels": _plural(
        "1 row of the judgments has an empty query or item id; it is dropped.",
        "{n} rows of the judgments have an empty query or item id; they are dropped.",
    ),
    "no_shared_query": "No query appears in both the run and the judgments.",
    "no_shared_query.numbers": "No query appears in both the run and the judgments: they write "
    "the same numbers differently (such as 1.0 and 1).",
    "no_shared_query.dates": "No query appears in both the run and the judgments: they write the "
    "same dates differently (one with a time of day).",
    "missing_scores": _plural(
        "1 row has no {column}; it is left out of the rankings.",
        "{n} rows have no {column}; they are left out of the rankings.",
    ),
    "infinite_scores": _plural(
        "1 score is infinite; +inf ranks first and -inf last.",
        "{n} scores are infinite; +inf ranks first and -inf last.",
    ),
    "infinite_scores.ascending": _plural(
        "1 score is infinite; lower is better, so -inf ranks first and +inf last.",
        "{n} scores are infinite; lower is better, so -inf ranks first and +inf last.",
    ),
    "infinite_scores.mixed": _plural(
        "1 score is infinite; +inf ranks first and -inf last where higher is better, the other "
        "way round where lower is better.",
        "{n} scores are infinite; +inf ranks first and -inf last where higher is better, the "
        "other way round where lower is better.",
    ),
    "score_order_vs_rank.ascending": _plural(*RANK_TEXTS["ascending"]),
    "score_order_vs_rank.descending": _plural(*RANK_TEXTS["descending"]),
    "score_order_by_name": NAME_TEXT,
    "duplicate_items": _plural(
        "1 item appears more than once in the same list; {rule}.",
        "{n} items appear more than once in the same list; {rule}.",
    ),
    "tied_scores": _plural(
        "1 list has tied scores ({rows} rows share their score with another item of the same "
        "list); {rule}.",
        "{n} lists have tied scores ({rows} rows share their score with another item of the same "
        "list); {rule}.",
    ),
    "short_lists": _plural(
        "1 of {total} lists has fewer than {k} items (it has {shortest}); {rule}.",
        "{n} of {total} lists have fewer than {k} items (the shortest has {shortest}); {rule}.",
    ),
    "missing_labels": _plural(
        "1 judgment has no label; it is dropped.", "{n} judgments have no label; they are dropped."
    ),
    "duplicate_judgments": _plural(
        "1 judgment repeats an item already judged for the same query; the highest label is kept.",
        "{n} judgments repeat an item already judged for the same query; the highest label is "
        "kept.",
    ),
    "negative_labels": _plural(
        "1 label is negative: the item is in the pool but unjudged (as trec_eval): not "
        "relevant, gain 0, and unjudged for Judged@K, bpref and infAP.",
        "{n} labels are negative: those items are in the pool but unjudged (as trec_eval): not "
        "relevant, gain 0, and unjudged for Judged@K, bpref and infAP.",
    ),
    "fractional_labels": _plural(
        "1 label is not a whole number ({value}); {rule}.",
        "{n} labels are not whole numbers (such as {value}); {rule}.",
    ),
    "text_labels": "The labels of column '{column}' are text, read as {mapping}.",
    "labels_look_like_ranks": "The labels in '{column}' look like rank positions (1, 2, 3, ... "
    "within each query), not relevance grades; higher labels are treated as more relevant.",
    "no_relevant": _plural(
        "1 of {total} judged queries has no relevant item (label ≥ {level}); {rule}.",
        "{n} of {total} judged queries have no relevant item (label ≥ {level}); {rule}.",
    ),
    "unjudged_queries": _plural(
        "1 of {total} queries in the run has no judgments; it is left out of the evaluation.",
        "{n} of {total} queries in the run have no judgments; they are left out of the evaluation.",
    ),
    "missing_run_queries.one_model": _plural(
        "1 of {total} judged queries is missing from the run; {rule}.",
        "{n} of {total} judged queries are missing from the run; {rule}.",
    ),
    "missing_run_queries.models": _plural(
        "1 of {total} judged queries is missing from at least one model's run (model-query "
        "pairs: {pairs}); for that model, {rule}.",
        "{n} of {total} judged queries are missing from at least one model's run (model-query "
        "pairs: {pairs}); for that model, {rule}.",
    ),
    "relevant_not_retrieved": _plural(
        "1 relevant judged item was not retrieved by any model (queries concerned: {queries}); "
        "recall cannot reach 1 for that query.",
        "{n} relevant judged items were not retrieved by any model (queries concerned: "
        "{queries}); recall cannot reach 1 for those queries.",
    ),
    "segment_varies": _plural(
        "Segment '{column}' varies within 1 query; the first value of the query is used.",
        "Segment '{column}' varies within {n} queries; the first value of each query is used.",
    ),
    "summary": "Results: {rows} (queries: {queries}, models: {models}); judgments: {judgments} "
    "(queries: {judged}, relevant: {relevant}); queries in both: {shared}.",
    "judgment_only_rows": _plural(
        "1 labelled row has no score or rank; it is used as the judgment of an item that was not "
        "retrieved.",
        "{n} labelled rows have no score or rank; they are used as judgments of items that were "
        "not retrieved.",
    ),
    "score_from_rank": "The run has ranks but no scores; scores are set to -rank.",
    "score_from_rank.files": _plural(
        "The run file {files} has ranks but no scores; its scores are set to -rank.",
        "The run files {files} have ranks but no scores; their scores are set to -rank.",
    ),
    "trec_extra_fields": _plural(*READING_TEXTS["trec_extra_fields"]),
    "trec_comment_lines": _plural(*READING_TEXTS["trec_comment_lines"]),
    "queries_missing_metadata": _plural(
        "1 of {total} queries in the run is not in the query table; its segment values show as "
        "'(missing)'.",
        "{n} of {total} queries in the run are not in the query table; their segment values "
        "show as '(missing)'.",
    ),
    "metadata_queries_not_in_run": _plural(
        "1 of {total} queries in the query table is not in the run; its rows are not used.",
        "{n} of {total} queries in the query table are not in the run; their rows are not used.",
    ),
}

#: Where a bad value is: by the ``line`` parameter (a file line) or the ``row`` parameter.
WHERE: dict[str, str] = {"line": "at line {line}", "row": "in row {row}"}

#: English fixes (or what is done) by :attr:`Finding.code`. ``{setting}`` is the label of the
#: setting :data:`ACTION_SETTINGS` names, ``{value}`` the explanation of the value to choose.
ACTIONS: dict[str, str] = {
    "no_rows": "Load a file with at least one data row below the header.",
    "no_query_column": "Map the column that identifies the query, user or session to the query "
    "role.",
    "no_item_column": "Map the column that identifies the document, product or item to the item "
    "role.",
    "no_score_or_rank": "Map the model's score (higher is better) or the rank position (1 is "
    "best) column.",
    "no_label_column": "Map the column holding relevance grades or clicks to the label role.",
    "non_numeric_score": "Map a numeric column to score, or clean the values that are not numbers.",
    "non_numeric_rank": "Map a numeric column to rank, or clean the values that are not numbers.",
    "non_numeric_label": "Give each text label a grade in the label mapping (for example "
    "{example}), or use numbers (0, 1, 2, ...) for labels.",
    "missing_ids": "Fill in the ids if these rows matter.",
    "no_shared_query": "Check that both files use the same query ids (for example '7', 'q7' and "
    "'007' differ).",
    "no_shared_query.numbers": "Write the query ids the same way in both files (a spreadsheet "
    "may have saved whole numbers as decimals).",
    "no_shared_query.dates": "Write the query ids the same way in both files (a spreadsheet may "
    "have saved dates with a time of day).",
    "missing_scores": "Fill in the missing values if these items were retrieved.",
    "infinite_scores": "Replace them with finite numbers if that is not intended.",
    "score_order_vs_rank.ascending": "If lower scores are better, set '{setting}' to '{value}' "
    "(for this model alone when the other models' scores go the other way).",
    "score_order_vs_rank.descending": "If higher scores are better, set '{setting}' to "
    "'{value}' (for this model alone when the other models' scores go the other way).",
    "score_order_by_name": "If lower scores are better, set '{setting}' to '{value}'; if higher "
    "ones are, there is nothing to do.",
    "duplicate_items": "Remove the copies, or set '{setting}' to '{value}' to refuse such input "
    "(trec_eval's behaviour).",
    "duplicate_items.refused": "Remove the copies, or set '{setting}' to '{value}'.",
    "tied_scores": "Choose another rule for '{setting}' in the settings, or add a rank column.",
    "short_lists": "Choose another rule for '{setting}' in the settings if missing positions "
    "should not count.",
    "missing_labels": "Fill in the labels, or 0 for items judged not relevant.",
    "duplicate_judgments": "Remove the repeated judgments if the highest label is not the right "
    "one.",
    "negative_labels": "Use 0 for items that are not relevant if negative values are not intended.",
    "text_labels": "If a grade is wrong, change it in the label mapping.",
    "fractional_labels.truncate": "Set '{setting}' to '{value}' if the fractions are meant as "
    "gains of their own.",
    "fractional_labels.keep": "Set '{setting}' to '{value}' to read labels as trec_eval does.",
    "labels_look_like_ranks": "Map this column to the rank role and map the relevance grades or "
    "clicks to the label role.",
    "no_relevant": "Set '{setting}' to '{value}' in the settings if they should not lower the "
    "averages.",
    "unjudged_queries": "Add judgments for them, or ignore this if they are out of scope.",
    "missing_run_queries": "Set '{setting}' to '{value}' (trec_eval -c) in the settings to count "
    "them as 0.",
    "relevant_not_retrieved": "Nothing to fix if the candidate lists are meant to be incomplete; "
    "otherwise add these items to the lists.",
    "segment_varies": "Make the column query-level, or do not use it as a segment.",
    "queries_missing_metadata": "Add these queries to the query table, or check that both files "
    "write query ids the same way (for example '7', 'q7' and '007' differ).",
}

#: The setting (and the value to choose, if one) that a fix names, by finding code.
ACTION_SETTINGS: dict[str, tuple[str, object]] = {
    "duplicate_items": ("duplicates", "error"),
    "duplicate_items.refused": ("duplicates", "keep_best"),
    "tied_scores": ("ties", None),
    "score_order_vs_rank.ascending": ("score_order", "ascending"),
    "score_order_vs_rank.descending": ("score_order", "descending"),
    "score_order_by_name": ("score_order", "ascending"),
    "short_lists": ("short_lists", None),
    "no_relevant": ("no_relevant", "leave_out"),
    "missing_run_queries": ("missing_queries", "zero"),
    "fractional_labels.truncate": ("fractional_labels", "keep"),
    "fractional_labels.keep": ("fractional_labels", "truncate"),
}

#: English examples by kind (the names of an example's values, joined by ``_``).
EXAMPLES: dict[str, Template] = {
    "value": "{value}",
    "id": "{id}",
    "row": "row {row}",
    "query": "query {query}",
    "model": "model {model}",
    "query_model": "query {query} ({model})",
    "query_item": "query {query}, item {item}",
    "query_item_model": "query {query}, item {item} ({model})",
    "query_item_value": "query {query}, item {item}: {value}",
    "query_n": _plural("query {query}: 1 item", "query {query}: {n} items"),
    "query_n_model": _plural(
        "query {query}: 1 item ({model})", "query {query}: {n} items ({model})"
    ),
    "model_query": "{model}: {query}",
    "run_ids": "run: {run_ids}",
    "judged_ids": "judgments: {judged_ids}",
}


def plural_form(template: Template, lang: str, values: Mapping[str, object]) -> str:
    """The form of ``template`` for the ``n`` of ``values`` under ``lang``'s plural rule.

    English has ``"one"`` (n = 1) and ``"other"``; Chinese and Japanese have only ``"other"``.
    A plain string is its own only form.
    """
    if isinstance(template, str):
        return template
    n = values.get("n")
    category = "one" if lang == "en" and n == 1 else "other"
    return template.get(category, template.get("other", ""))


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


def _examples(values: Iterable[object], name: str = "id") -> tuple[Example, ...]:
    out: list[Example] = []
    for v in values:
        out.append({name: str(v)})
        if len(out) == _MAX_EXAMPLES:
            break
    return tuple(out)


def _ids(values: Iterable[object]) -> str:
    return ", ".join(str(e["id"]) for e in _examples(values))


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
        tuple({"model": str(m)} for m in models[:_MAX_EXAMPLES]),
        source=source,
        column=column,
        rule=("score_order", "descending"),
    )


def rank_agreements(run: pd.DataFrame, codes: _Codes | None = None) -> dict[str, RankAgreement]:
    """How each model's scores go with its ranks (:mod:`metrics.io.direction`), by model name in
    order of first appearance; empty without a rank column."""
    if RANK not in run.columns or SCORE not in run.columns or not len(run):
        return {}
    if codes is not None:
        model_codes, names, lists = codes.m_run, codes.models, codes.lists()
    else:
        models = run[MODEL] if MODEL in run.columns else pd.Series("run", index=run.index)
        model_codes, names = pd.factorize(models)
        lists = pd.MultiIndex.from_arrays([model_codes, run[QUERY]]).factorize()[0]
    rank = score_values(run[RANK])[0].to_numpy(dtype="float64")
    score = score_values(run[SCORE])[0].to_numpy(dtype="float64")
    found = agreements(np.asarray(model_codes), np.asarray(lists), rank, score)
    return {str(names[m]): found[m] for m in sorted(found)}


#: The codes of findings that depend on the score order.
SCORE_ORDER_CODES = frozenset({"score_order_vs_rank", "score_order_by_name", "infinite_scores"})


def under_settings(health: DataHealth, run: pd.DataFrame, settings: Settings) -> DataHealth:
    """``health`` (found under other settings) with its findings that depend on the score order
    as ``settings`` make them: rank agreements against the order now in force, names that no
    longer disagree dropped, infinite scores worded for the orders now in force; and labels that
    are not whole numbers worded for the fractional-labels policy in force."""
    models = pd.unique(run[MODEL]) if MODEL in run.columns else ["run"]
    fresh = score_order_vs_rank_findings(rank_agreements(run), settings)
    out: list[Finding] = []
    for f in health.findings:
        if f.code == "score_order_vs_rank":
            out += fresh
            fresh = []
        elif f.code == "score_order_by_name":
            still = [
                str(e["model"])
                for e in f.example_values
                if settings.score_order_of(str(e["model"])) == "descending"
            ]
            if still:
                out.append(score_order_by_name_finding(str(f.column), still, f.source))
        elif f.code == "infinite_scores":
            out.append(replace(f, variant=infinite_variant(settings, models)))
        elif f.code == "fractional_labels":
            policy = settings.fractional_labels
            out.append(replace(f, variant=policy, rule=("fractional_labels", policy)))
        else:
            out.append(f)
    at = next((i for i, f in enumerate(out) if f.severity == "info"), len(out))
    return DataHealth(out[:at] + fresh + out[at:])


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


def duplicate_judgments_finding(n: int, examples: tuple[Example, ...]) -> Finding:
    """``n`` repeated (query, item) judgments."""
    return Finding("duplicate_judgments", "warning", {"n": n}, n, examples)


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


def _with_model(example: dict[str, object], model: object, has_model: bool) -> Example:
    if has_model:
        example["model"] = str(model)
    return example


def _column_label(frame: pd.DataFrame, role: str) -> str:
    original = frame.attrs.get("columns", {}).get(role)
    return original if original else role


def check_table(
    frame: pd.DataFrame,
    role: TableRole,
    *,
    source: str | None = None,
    first_line: int | None = None,
    skipped_lines: tuple[int, ...] | None = None,
) -> list[Finding]:
    """Structural checks of one table with canonical column names.

    Parameters
    ----------
    frame:
        A run (``query``, ``item``, ``score`` and/or ``rank``) or judgments (``query``, ``item``,
        ``relevance`` or ``label``); values may still be text.
    role:
        ``"run"`` or ``"qrels"``.
    source, first_line:
        File name and the line of the first data row, to locate bad values. Default to
        ``frame.attrs["source"]`` and ``frame.attrs["first_line"]``.
    skipped_lines:
        Blank lines of the file at or after ``first_line`` (see
        :attr:`~metrics.io.formats.LoadedTable.skipped_lines`), so that messages name the physical
        line. Defaults to ``frame.attrs["skipped_lines"]``, else none.

    Returns
    -------
    list[Finding]
        Errors for missing rows or columns and non-numeric values; a warning for empty ids.
    """
    source = source or frame.attrs.get("source")
    first_line = first_line if first_line is not None else frame.attrs.get("first_line")
    if skipped_lines is None:
        skipped_lines = tuple(frame.attrs.get("skipped_lines", ()))
    if len(frame) == 0:
        return [Finding("no_rows", "error", variant=role, source=source)]
    return [
        *_missing_columns(frame, role, source),
        *_non_numeric_values(frame, role, source, first_line, skipped_lines),
        *_empty_ids(frame, role, source),
    ]


def _label_column(frame: pd.DataFrame) -> str:
    return RELEVANCE if RELEVANCE in frame.columns else LABEL


def _missing_columns(frame: pd.DataFrame, role: TableRole, source: str | None) -> list[Finding]:
    """Errors for each role column the table lacks."""
    found = [
        Finding(code, "error", variant=role, source=source)
        for col, code in ((QUERY, "no_query_column"), (ITEM, "no_item_column"))
        if col not in frame.columns
    ]
    if role == "run" and SCORE not in frame.columns and RANK not in frame.columns:
        found.append(Finding("no_score_or_rank", "error", source=source))
    if role == "qrels" and _label_column(frame) not in frame.columns:
        found.append(Finding("no_label_column", "error", source=source))
    return found


def _non_numeric_values(
    frame: pd.DataFrame,
    role: TableRole,
    source: str | None,
    first_line: int | None,
    skipped_lines: tuple[int, ...],
) -> list[Finding]:
    """One error per numeric column (score, rank, label) holding values that are not numbers."""
    label_col = _label_column(frame)
    numeric = [(SCORE, score_values), (RANK, score_values)] if role == "run" else []
    numeric.append((label_col, label_values))
    found: list[Finding] = []
    for col, convert in numeric:
        if col not in frame.columns:
            continue
        _, bad = convert(frame[col])
        if not bad.any():
            continue
        positions = np.flatnonzero(bad.to_numpy())
        first = int(positions[0])
        shown = _column_label(frame, col)
        line = file_line(first_line, first, skipped_lines)
        where = {"line": line} if line is not None else {"row": first + 1}
        kind = "label" if col in (LABEL, RELEVANCE) else col
        params: dict[str, object] = {
            "n": len(positions),
            "column": shown,
            "value": str(frame[col].iloc[first]),
        }
        bad_values = frame[col].iloc[positions]
        distinct = [str(v) for v in pd.unique(bad_values.astype("str"))[:_MAX_EXAMPLES]]
        if kind == "label":  # the text labels to give grades, and a mapping to start from
            params["values"] = ", ".join(f"'{v}'" for v in distinct)
            start = partial_label_map(distinct)
            params["example"] = ",".join(
                f"{v}={'?' if g is None else f'{g:g}'}" for v, g in start.items()
            )
        found.append(
            Finding(
                f"non_numeric_{kind}",
                "error",
                params | where,
                len(positions),
                tuple({"value": v} for v in distinct),
                source=source,
                line=line,
                column=shown,
            )
        )
    return found


def _empty_ids(frame: pd.DataFrame, role: TableRole, source: str | None) -> list[Finding]:
    """A warning for rows whose query or item id is empty (they are dropped)."""
    present = [c for c in (QUERY, ITEM) if c in frame.columns]
    if not present:
        return []
    empty = np.zeros(len(frame), dtype=bool)
    for c in present:
        empty |= _blank(frame[c])
    if not empty.any():
        return []
    n = int(empty.sum())
    return [
        Finding(
            "missing_ids",
            "warning",
            {"n": n},
            n,
            tuple({"row": int(i) + 1} for i in np.flatnonzero(empty)[:_MAX_EXAMPLES]),
            variant=role,
            source=source,
        )
    ]


def run_scores(run: pd.DataFrame) -> pd.Series:
    """Numeric scores of a run: the score column, else ``-rank``."""
    if SCORE in run.columns:
        return score_values(run[SCORE])[0]
    return -score_values(run[RANK])[0]


def qrels_labels(qrels: pd.DataFrame) -> pd.Series:
    """Numeric labels of judgments (``relevance`` or ``label`` column)."""
    col = RELEVANCE if RELEVANCE in qrels.columns else LABEL
    return label_values(qrels[col])[0]


def validate(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    k_max: int = 10,
    *,
    relevance_level: float = 1,
    settings: Settings | None = None,
    ids: IdCodes | None = None,
) -> DataHealth:
    """Check a run and its judgments; never raises for data problems.

    Parameters
    ----------
    run:
        Canonical run: ``query``, ``item``, ``score`` and/or ``rank``, optional ``model`` and
        segment columns (any other column).
    qrels:
        Canonical judgments: ``query``, ``item``, ``relevance`` (or ``label``).
    k_max:
        Largest cutoff to be evaluated; shorter lists are reported.
    relevance_level:
        Labels at or above it are relevant.
    settings:
        The policies in force (tied scores, short lists, queries without relevant items,
        missing queries): the findings say what they do. trec_eval's defaults when ``None``.
    ids:
        The query and item ids of ``run`` and ``qrels`` already encoded
        (:func:`~metrics.engine.ranking.id_codes`), so that they are not hashed again.

    Returns
    -------
    DataHealth
        Errors (no rows, missing columns, non-numeric values, no shared query), warnings
        (duplicates, missing or infinite scores, ties, short lists, queries without relevant
        items, unjudged and missing queries, relevant items never retrieved, negative labels,
        labels that look like ranks, segments varying within a query) and a summary.
    """
    findings = check_table(run, "run") + check_table(qrels, "qrels")
    if any(f.severity == "error" for f in findings):
        return DataHealth(findings)
    if ids is not None and (len(ids.run_query), len(ids.qrels_query)) != (len(run), len(qrels)):
        ids = None  # not the codes of these tables
    run_kept, qrels_kept = _ids_present(run, ids, "run"), _ids_present(qrels, ids, "qrels")
    run = run if run_kept is None else run[run_kept]
    qrels = qrels if qrels_kept is None else qrels[qrels_kept]
    if ids is not None:
        ids = _kept_codes(ids, run_kept, qrels_kept)
    scores = run_scores(run)
    labels = qrels_labels(qrels)
    models = run[MODEL] if MODEL in run.columns else pd.Series("run", index=run.index)
    run_queries = pd.Index(run[QUERY].unique())
    judged_queries = pd.Index(qrels[QUERY].unique())
    shared = run_queries.intersection(judged_queries)
    if len(shared) == 0:
        findings.append(
            Finding(
                "no_shared_query",
                "error",
                variant=_written_differently(run_queries, judged_queries),
                example_values=(
                    {"run_ids": _ids(run_queries)},
                    {"judged_ids": _ids(judged_queries)},
                ),
                column=QUERY,
            )
        )
        return DataHealth(findings)
    codes = _Codes.of(run, qrels, models, ids)
    policies = settings or Settings()
    findings += _score_findings(run, scores, models, k_max, codes, policies)
    findings += _label_findings(qrels, labels, relevance_level, codes, policies)
    findings += _coverage_findings(
        run, qrels, labels, models, run_queries, judged_queries, relevance_level, codes, policies
    )
    findings += _segment_findings(run, codes.q_run)
    n_rel = int(relevance.relevant(labels, relevance_level).sum())
    findings.append(
        Finding(
            "summary",
            "info",
            {
                "rows": len(run),
                "queries": len(run_queries),
                "models": models.nunique(),
                "judgments": len(qrels),
                "judged": len(judged_queries),
                "relevant": n_rel,
                "shared": len(shared),
            },
            len(shared),
        )
    )
    return DataHealth(findings)


@dataclass(frozen=True)
class _Codes:
    """Integer codes of query, item and model ids, shared by run and judgments."""

    q_run: np.ndarray
    q_qrels: np.ndarray
    i_run: np.ndarray
    i_qrels: np.ndarray
    m_run: np.ndarray
    queries: np.ndarray
    items: np.ndarray | pa.Array
    models: np.ndarray

    @classmethod
    def of(
        cls, run: pd.DataFrame, qrels: pd.DataFrame, models: pd.Series, ids: IdCodes | None = None
    ) -> _Codes:
        """The codes of ``run`` and ``qrels`` (``ids`` when given, else the ids encoded here);
        models are numbered in order of first appearance."""
        if ids is None:
            ids = id_codes(run[QUERY], run[ITEM], qrels[QUERY], qrels[ITEM])
        if ids is not None:
            q_run, q_qrels, i_run, i_qrels = (
                ids.run_query,
                ids.qrels_query,
                ids.run_item,
                ids.qrels_item,
            )
            queries = np.asarray(ids.queries.to_pylist(), dtype=object)
            items: np.ndarray | pa.Array = ids.items
        else:
            n = len(run)
            q, queries = pd.factorize(pd.concat([run[QUERY], qrels[QUERY]], ignore_index=True))
            i, items = pd.factorize(pd.concat([run[ITEM], qrels[ITEM]], ignore_index=True))
            q_run, q_qrels, i_run, i_qrels = q[:n], q[n:], i[:n], i[n:]
            queries, items = np.asarray(queries, dtype=object), np.asarray(items, dtype=object)
        chunks = string_chunks(models)
        if chunks is not None:
            (m,), names = encode_strings([chunks])
            model_names = np.asarray(names.to_pylist(), dtype=object)
        else:
            m, model_names = pd.factorize(models)
        return cls(
            np.asarray(q_run, dtype=np.int64),
            np.asarray(q_qrels, dtype=np.int64),
            np.asarray(i_run, dtype=np.int64),
            np.asarray(i_qrels, dtype=np.int64),
            np.asarray(m, dtype=np.int64),
            queries,
            items,
            np.asarray(model_names, dtype=object),
        )

    def item(self, code: int) -> str:
        """The item id of a code."""
        value = self.items[int(code)]
        return str(value.as_py() if isinstance(value, pa.Scalar) else value)

    def pair(self, q: np.ndarray, i: np.ndarray) -> np.ndarray:
        pairs: np.ndarray = q * np.int64(max(len(self.items), 1)) + i
        return pairs

    def lists(self) -> np.ndarray:
        lists: np.ndarray = self.m_run * np.int64(max(len(self.queries), 1)) + self.q_run
        return lists


def _ids_present(frame: pd.DataFrame, ids: IdCodes | None, role: TableRole) -> np.ndarray | None:
    """Rows whose query and item ids are neither missing nor blank; ``None`` when all are.

    With ``ids``, only the distinct ids are looked at."""
    if ids is not None:
        queries = ids.run_query if role == "run" else ids.qrels_query
        items = ids.run_item if role == "run" else ids.qrels_item
        keep = ~(_blank_values(ids.queries)[queries] | _blank_values(ids.items)[items])
    else:
        keep = ~(_blank(frame[QUERY]) | _blank(frame[ITEM]))
    return None if keep.all() else keep


#: A time of midnight after a date, as spreadsheets write dates.
_MIDNIGHT = r"[T ]00:00(?::00(?:\.0+)?)?$"


def _written_differently(run_queries: pd.Index, judged_queries: pd.Index) -> str:
    """Why run and judgments share no query id when the ids are the same numbers or dates
    written differently (``"numbers"``, ``"dates"``), judged from up to 1,000 ids of each;
    ``""`` otherwise."""
    run_ids = pd.Series(run_queries[:1000], dtype="str")
    judged_ids = pd.Series(judged_queries[:1000], dtype="str")
    run_numbers = pd.to_numeric(run_ids, errors="coerce").dropna()
    if len(set(run_numbers) & set(pd.to_numeric(judged_ids, errors="coerce").dropna())):
        return "numbers"
    run_days = set(run_ids.str.replace(_MIDNIGHT, "", regex=True))
    if len(run_days & set(judged_ids.str.replace(_MIDNIGHT, "", regex=True))):
        return "dates"
    return ""


def _kept_codes(
    ids: IdCodes, run_kept: np.ndarray | None, qrels_kept: np.ndarray | None
) -> IdCodes:
    if run_kept is not None:
        ids = replace(ids, run_query=ids.run_query[run_kept], run_item=ids.run_item[run_kept])
    if qrels_kept is not None:
        ids = replace(
            ids, qrels_query=ids.qrels_query[qrels_kept], qrels_item=ids.qrels_item[qrels_kept]
        )
    return ids


def _blank_values(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Which arrow strings are missing, empty or only white space.

    Only the strings whose first byte may start white space (an ASCII space or control
    character, or any non-ASCII character) are trimmed to be sure."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = [_blank_chunk(chunk) for chunk in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _blank_chunk(chunk: pa.Array) -> np.ndarray:
    wide = pa.types.is_large_string(chunk.type)
    if not (pa.types.is_string(chunk.type) or wide) or len(chunk) == 0:
        found = pc.or_kleene(pc.is_null(chunk), pc.equal(pc.utf8_trim_whitespace(chunk), ""))
        return np.asarray(pc.fill_null(found, True), dtype=bool)
    _, offsets_buffer, data_buffer = chunk.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32)[
        chunk.offset : chunk.offset + len(chunk) + 1
    ]
    starts, lengths = offsets[:-1], np.diff(offsets)
    blank: np.ndarray = lengths == 0
    if chunk.null_count:
        blank |= np.asarray(chunk.is_null(), dtype=bool)
    filled = np.flatnonzero(~blank)
    if len(filled) and data_buffer is not None:
        data = np.frombuffer(data_buffer, dtype=np.uint8)
        first = data[starts[filled]]
        maybe = filled[(first <= 32) | (first >= 128)]
        if len(maybe):
            trimmed = pc.utf8_trim_whitespace(chunk.take(pa.array(maybe)))
            blank[maybe[np.asarray(pc.equal(trimmed, ""), dtype=bool)]] = True
    return blank


def _blank(values: pd.Series) -> np.ndarray:
    """Which cells are missing, or text that is empty or only white space once shown as text."""
    chunks = string_chunks(values)
    if chunks is not None:
        return _blank_values(chunks)
    blank: np.ndarray = (values.isna() | (values.astype("str").str.strip() == "")).to_numpy(
        dtype=bool
    )
    return blank


#: What each policy does, as the findings say it: ``RULES[setting][value]`` (English; the app's
#: catalogs have ``finding.rule.<setting>.<value>``). Filled with the finding's parameters.
RULES: dict[str, dict[str, Template]] = {
    "ties": {
        "item_desc": "ties are broken by item id, descending",
        "input_order": "ties keep the order of the input rows",
    },
    "short_lists": {
        "divide_by_k": "at K = {k}, missing positions count as not relevant",
        "divide_by_returned": "at K = {k}, measures divide by the number of items returned",
        "leave_out": "at K = {k}, those queries are left out of the averages",
    },
    "no_relevant": {
        "zero": _plural(
            "it is evaluated and scores 0 on most measures",
            "they are evaluated and score 0 on most measures",
        ),
        "leave_out": _plural(
            "it is left out of every average", "they are left out of every average"
        ),
    },
    "missing_queries": {
        "skip": _plural("it is skipped", "they are skipped"),
        "zero": _plural(
            "it is scored as an empty ranking (0, as trec_eval -c)",
            "they are scored as empty rankings (0, as trec_eval -c)",
        ),
    },
    "duplicates": {
        "keep_best": "the best-ranked copy is kept",
        "error": "such input is refused (duplicates = error, as trec_eval)",
    },
    "score_order": dict(ORDER_RULES),
    "fractional_labels": {
        "truncate": _plural(
            "as trec_eval reads labels, it is truncated toward zero ({value} → {whole})",
            "as trec_eval reads labels, they are truncated toward zero ({value} → {whole})",
        ),
        "keep": _plural(
            "it is kept as a fractional gain (trec_eval would read {value} as {whole})",
            "they are kept as fractional gains (trec_eval would read {value} as {whole})",
        ),
    },
}


def _score_findings(
    run: pd.DataFrame,
    scores: pd.Series,
    models: pd.Series,
    k_max: int,
    codes: _Codes,
    settings: Settings,
) -> list[Finding]:
    found: list[Finding] = []
    shown = _column_label(run, SCORE if SCORE in run.columns else RANK)
    missing = scores.isna().to_numpy()
    variants = {"infinite_scores": infinite_variant(settings, codes.models)}
    for code, mask in (
        ("missing_scores", missing),
        ("infinite_scores", np.isinf(scores.to_numpy(dtype="float64"))),
    ):
        if mask.any():
            n = int(mask.sum())
            rows = tuple(
                {"query": str(q), "item": str(i)}
                for q, i in zip(run[QUERY][mask].head(5), run[ITEM][mask].head(5))
            )
            found.append(score_values_finding(code, n, shown, rows, variants.get(code, "")))
    has_model = MODEL in run.columns

    # ids of some rows, looked up by position (the columns are not converted as a whole)
    def q_text(rows: np.ndarray) -> np.ndarray:
        return np.asarray(run[QUERY].iloc[rows].to_numpy(), dtype=object)

    def i_text(rows: np.ndarray) -> np.ndarray:
        return np.asarray(run[ITEM].iloc[rows].to_numpy(), dtype=object)

    def m_text(rows: np.ndarray) -> np.ndarray:
        return np.asarray(models.iloc[rows].to_numpy(), dtype=object)

    list_key = codes.lists()
    item_key = pd.Series(list_key * np.int64(max(len(codes.items), 1)) + codes.i_run)
    dup = item_key.duplicated().to_numpy()
    if dup.any():
        repeated = np.flatnonzero(dup)  # one example per repeated item, not one per copy
        first_copies = repeated[~item_key.iloc[repeated].duplicated().to_numpy()][:_MAX_EXAMPLES]
        examples = tuple(
            _with_model({"query": str(q), "item": str(i)}, m, has_model)
            for q, i, m in zip(*(f(first_copies) for f in (q_text, i_text, m_text)))
        )
        found.append(duplicate_items_finding(int(dup.sum()), examples, settings))
    ok = ~missing
    score_keys = pd.DataFrame({"list": list_key[ok], "score": scores.to_numpy()[ok]})
    tied = _repeated(score_keys)
    if SCORE in run.columns and tied.any() and settings.ties in RULES["ties"]:
        tied_lists = pd.unique(score_keys["list"].to_numpy()[tied])
        shown_pos = _first_rows(list_key, ok)[tied_lists[:5]]
        shown_q, shown_m = q_text(shown_pos), m_text(shown_pos)
        tied_examples = tuple(
            _with_model({"query": str(q)}, m, has_model) for q, m in zip(shown_q, shown_m)
        )
        found.append(tied_scores_finding(len(tied_lists), int(tied.sum()), tied_examples, settings))
    unique_rows = ok & ~dup
    # list sizes, lists in order of first appearance
    first_of_list = _first_rows(list_key, unique_rows)
    listed = np.flatnonzero(first_of_list < len(list_key))
    listed = listed[np.argsort(first_of_list[listed], kind="stable")]
    counts = np.bincount(list_key[unique_rows], minlength=len(first_of_list))[listed]
    first_pos = first_of_list[listed]
    sizes = pd.Series(
        counts, index=pd.MultiIndex.from_arrays([m_text(first_pos), q_text(first_pos)])
    )
    short = sizes[sizes < k_max]
    if len(short):
        short_examples = tuple(
            _with_model({"query": str(q), "n": int(n)}, m, has_model)
            for (m, q), n in short.head(5).items()
        )
        found.append(
            short_lists_finding(
                len(short), len(sizes), k_max, int(short.min()), short_examples, settings
            )
        )
    found += score_order_vs_rank_findings(rank_agreements(run, codes), settings)
    return found


def _first_rows(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each key value ``0 .. keys.max()``, the first position among ``rows`` (a mask) that
    holds it; ``len(keys)`` for a value none of them holds."""
    first = np.full(int(keys.max()) + 1 if len(keys) else 0, len(keys), dtype=np.int64)
    np.minimum.at(first, keys[rows], np.flatnonzero(rows))
    return first


def _repeated(keys: pd.DataFrame) -> np.ndarray:
    """``keys.duplicated(keep=False)`` for a frame of an integer ``list`` and a float ``score``
    column: rows whose (list, score) another row shares.

    Rows are first compared by one 64-bit number mixed from both (a quick pass that finds every
    repeated pair and maybe a few more); only those candidates are then compared exactly.
    """
    if len(keys) < 2:
        return np.zeros(len(keys), dtype=bool)
    scores = keys["score"].to_numpy(dtype="float64") + 0.0  # -0.0 and 0.0 are one score
    lists = keys["list"].to_numpy(dtype=np.int64)
    with np.errstate(over="ignore"):
        mixed = scores.view(np.int64) ^ (lists * np.int64(-7046029254386353131))
    candidates: np.ndarray = pd.Series(mixed).duplicated(keep=False).to_numpy(dtype=bool)
    if not candidates.any():
        return candidates
    exact = keys[candidates].duplicated(keep=False).to_numpy()
    out = np.zeros(len(keys), dtype=bool)
    out[np.flatnonzero(candidates)[exact]] = True
    return out


def _label_findings(
    qrels: pd.DataFrame,
    labels: pd.Series,
    relevance_level: float,
    codes: _Codes,
    settings: Settings,
) -> list[Finding]:
    found: list[Finding] = []
    shown = _column_label(qrels, RELEVANCE if RELEVANCE in qrels.columns else LABEL)
    missing = labels.isna().to_numpy()
    if missing.any():
        n = int(missing.sum())
        examples = tuple(
            {"query": str(q), "item": str(i)}
            for q, i in zip(qrels[QUERY][missing].head(5), qrels[ITEM][missing].head(5))
        )
        found.append(missing_labels_finding(n, examples, shown))
    dup = pd.Series(codes.pair(codes.q_qrels, codes.i_qrels)).duplicated().to_numpy()
    if dup.any():
        n = int(dup.sum())
        examples = tuple(
            {"query": str(q), "item": str(i)}
            for q, i in zip(qrels[QUERY][dup].head(5), qrels[ITEM][dup].head(5))
        )
        found.append(duplicate_judgments_finding(n, examples))
    negative = (labels < 0).to_numpy()
    if negative.any():
        n = int(negative.sum())
        examples = tuple(
            {"query": str(q), "item": str(i), "value": f"{v:g}"}
            for q, i, v in zip(
                qrels[QUERY][negative].head(5),
                qrels[ITEM][negative].head(5),
                labels[negative].head(5),
            )
        )
        found.append(negative_labels_finding(n, examples, shown))
    values = labels.to_numpy(dtype="float64", na_value=np.nan)
    fractional = np.isfinite(values) & (values != np.trunc(values))
    if fractional.any():
        n = int(fractional.sum())
        examples = tuple(
            {"query": str(q), "item": str(i), "value": f"{v:g}"}
            for q, i, v in zip(
                qrels[QUERY][fractional].head(5),
                qrels[ITEM][fractional].head(5),
                labels[fractional].head(5),
            )
        )
        found.append(fractional_labels_finding(n, examples, shown, settings))
    if _labels_look_like_ranks(codes.q_qrels, labels):
        found.append(labels_look_like_ranks_finding(shown))
    clean = labels.notna().to_numpy()
    judged = pd.unique(codes.q_qrels[clean])
    relevant_q = np.zeros(len(codes.queries), dtype=bool)
    relevant_q[codes.q_qrels[clean & relevance.relevant(labels, relevance_level).to_numpy()]] = True
    has_rel = pd.Series(relevant_q[judged], index=codes.queries[judged])
    none = has_rel[~has_rel]
    if len(none):
        found.append(
            no_relevant_finding(
                len(none), len(has_rel), relevance_level, _examples(none.index), settings
            )
        )
    return found


def _labels_look_like_ranks(queries: np.ndarray, labels: pd.Series) -> bool:
    ok = labels.notna().to_numpy()
    frame = pd.DataFrame({"q": queries[ok], "v": labels.to_numpy()[ok]})
    if frame.empty or frame["v"].max() < 5 or not np.all(frame["v"] == np.round(frame["v"])):
        return False
    g = frame.groupby("q", sort=False)["v"]
    stats = pd.DataFrame({"n": g.size(), "distinct": g.nunique(), "min": g.min(), "max": g.max()})
    stats = stats[stats["n"] >= 5]
    if stats.empty:
        return False
    rank_like = (
        (stats["distinct"] == stats["n"])
        & (stats["min"].isin([0, 1]))
        & (stats["max"] - stats["min"] == stats["n"] - 1)
    )
    return bool(rank_like.mean() >= 0.5)


def _coverage_findings(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    labels: pd.Series,
    models: pd.Series,
    run_queries: pd.Index,
    judged_queries: pd.Index,
    relevance_level: float,
    codes: _Codes,
    settings: Settings,
) -> list[Finding]:
    found: list[Finding] = []
    unjudged = run_queries.difference(judged_queries, sort=False)
    if len(unjudged):
        found.append(unjudged_queries_finding(len(unjudged), len(run_queries), _examples(unjudged)))
    nq = np.int64(max(len(codes.queries), 1))
    present = pd.unique(codes.lists())
    judged_q = pd.unique(codes.q_qrels)
    n_models = len(codes.models)
    expected = (np.arange(n_models, dtype=np.int64)[:, None] * nq + judged_q[None, :]).ravel()
    absent = expected[~pd.Series(expected).isin(present).to_numpy()]
    if len(absent):
        missing_queries = pd.unique(codes.queries[absent % nq])
        pairs = None if n_models == 1 else len(absent)
        examples = (
            _examples(missing_queries)
            if pairs is None
            else tuple(
                {"model": str(codes.models[k // nq]), "query": str(codes.queries[k % nq])}
                for k in absent[:5]
            )
        )
        found.append(
            missing_run_queries_finding(
                len(missing_queries), len(judged_q), examples, settings, pairs
            )
        )
    is_rel = relevance.relevant(labels, relevance_level).to_numpy()
    in_run = np.zeros(len(codes.queries), dtype=bool)
    in_run[codes.q_run] = True
    rel_keys = pd.unique(codes.pair(codes.q_qrels, codes.i_qrels)[is_rel & in_run[codes.q_qrels]])
    retrieved = codes.pair(codes.q_run, codes.i_run)
    outside = rel_keys[~pd.Series(rel_keys).isin(retrieved).to_numpy()]
    if len(outside):
        ni = np.int64(max(len(codes.items), 1))
        n_q = len(pd.unique(outside // ni))
        examples = tuple(
            {"query": str(codes.queries[k // ni]), "item": codes.item(k % ni)} for k in outside[:5]
        )
        found.append(relevant_not_retrieved_finding(len(outside), n_q, examples))
    return found


def _segment_findings(
    run: pd.DataFrame,
    query_codes: np.ndarray | None = None,
) -> list[Finding]:
    found: list[Finding] = []
    columns = [c for c in run.columns if c not in ROLES and c != RELEVANCE]
    if not columns:
        return found
    keys = query_codes if query_codes is not None else pd.factorize(run[QUERY])[0]
    for col in columns:
        per_query = run[col].groupby(keys, sort=False).nunique(dropna=True)
        varying = per_query[per_query > 1]
        if len(varying):
            first = pd.Series(np.arange(len(run))).groupby(keys).first()
            names = run[QUERY].to_numpy()[first.loc[varying.index[:5]].to_numpy()]
            found.append(
                Finding(
                    "segment_varies",
                    "warning",
                    {"n": len(varying), "column": str(col)},
                    len(varying),
                    _examples(names),
                    column=col,
                )
            )
    return found


__all__ = [
    "ACTIONS",
    "ACTION_SETTINGS",
    "EXAMPLES",
    "MESSAGES",
    "WHERE",
    "DataHealth",
    "Finding",
    "Severity",
    "action_text",
    "check_table",
    "example_kind",
    "example_text",
    "message_text",
    "plural_form",
    "qrels_labels",
    "run_scores",
    "validate",
]
