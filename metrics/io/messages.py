"""The English words of the data's findings: the message catalogue and the plural rule.

:data:`MESSAGES` (what was found), :data:`ACTIONS` (the fix, with the setting it names from
:data:`ACTION_SETTINGS`), :data:`WHERE`, :data:`EXAMPLES` and :data:`RULES` (what a policy does)
hold the English text by finding key; :func:`plural_form` picks a text's form by its count. The
findings (:mod:`metrics.io.findings`) are worded from them for the command line and exceptions;
the app words the same keys from its message catalogs in the user's language.
"""

from __future__ import annotations

from collections.abc import Mapping

from metrics.io.direction import (
    NAME_TEXT,
    ORDER_RULES,
    RANK_TEXTS,
)

#: A message: one text, or plural forms (``"one"``, ``"other"``) chosen by the ``n`` parameter.
Template = str | Mapping[str, str]


def _plural(one: str, other: str) -> dict[str, str]:
    return {"one": one, "other": other}


#: The English words of :meth:`TrecColumns.reading_facts` (one line, several lines), the same
#: in the command line's notes and in the data's health.
READING_TEXTS: dict[str, tuple[str, str]] = {
    "trec_extra_fields": (
        "1 line has text after field {width} (line {line}); as trec_eval does, only the first "
        "{width} fields ({layout}) are read.",
        "{n} lines have text after field {width} (first: line {line}); as trec_eval does, only "
        "the first {width} fields ({layout}) are read.",
    ),
    "trec_comment_lines": (
        "1 comment line starting with '#' was skipped.",
        "{n} comment lines starting with '#' were skipped.",
    ),
}


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
    "duplicate_items.typed": _plural(
        "1 item is typed more than once in the same list: the list holds an item once, so it "
        "keeps the item's best-ranked row and leaves the other rows out.",
        "{n} items are typed more than once in the same list: a list holds an item once, so it "
        "keeps each one's best-ranked row and leaves the other rows out.",
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
    "missing_labels.inline": _plural(
        "1 row has no label (an empty cell): its item counts as unjudged, not as not relevant.",
        "{n} rows have no label (an empty cell): their items count as unjudged, not as not "
        "relevant.",
    ),
    "duplicate_judgments": _plural(
        "1 judgment repeats an item already judged for the same query; the highest label is kept.",
        "{n} judgments repeat an item already judged for the same query; the highest label is "
        "kept.",
    ),
    "duplicate_judgments.conflicting": _plural(
        "1 judgment repeats an item already judged for the same query, with another label; the "
        "highest label is kept.",
        "{n} judgments repeat an item already judged for the same query; the labels disagree "
        "for {conflicts} of those items, and the highest label of each is kept.",
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
    "text_labels": "The labels of column '{column}' are text, read as {mapping} (rows in "
    "brackets).",
    "labels_look_like_ranks": "The labels in '{column}' look like rank positions (1, 2, 3, ... "
    "within each query), not relevance grades; higher labels are treated as more relevant.",
    "mixed_label_kinds": "The label source '{name}' mixes labels given by people ({human}) and "
    "by a model ({machine}).",
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
    "labels_before_ranking": _plural(
        "1 of {total} relevant judgments is dated before the list it judges was made "
        "('{label_column}' before '{ranking_column}'): the answer was known at ranking time, so "
        "a model trained on the log up to then may have seen it.",
        "{n} of {total} relevant judgments are dated before the list they judge was made "
        "('{label_column}' before '{ranking_column}'): the answers were known at ranking time, "
        "so a model trained on the log up to then may have seen them.",
    ),
    "time_split": _plural(
        "The relevant judgment with a time ('{label_column}') is dated after the list it judges "
        "was made ('{ranking_column}'): no answer was known at ranking time.",
        "All {n} relevant judgments with a time ('{label_column}') are dated after the lists "
        "they judge were made ('{ranking_column}'): no answer was known at ranking time.",
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
    "duplicate_items.typed": "Remove the repeated rows, or give the item an id of its own if "
    "it is another item.",
    "tied_scores": "Choose another rule for '{setting}' in the settings, or add a rank column.",
    "short_lists": "Choose another rule for '{setting}' in the settings if missing positions "
    "should not count.",
    "missing_labels": "Fill in the labels, or 0 for items judged not relevant.",
    "duplicate_judgments": "Remove the repeated judgments if the highest label is not the right "
    "one.",
    "duplicate_judgments.conflicting": "Keep one judgment of each item, with the right label: "
    "the highest is kept under every setting (no setting chooses another label).",
    "negative_labels": "Use 0 for items that are not relevant if negative values are not intended.",
    "text_labels": "If a grade is wrong, change it in the label mapping.",
    "fractional_labels.truncate": "Set '{setting}' to '{value}' if the fractions are meant as "
    "gains of their own.",
    "fractional_labels.keep": "Set '{setting}' to '{value}' to read labels as trec_eval does.",
    "labels_look_like_ranks": "Map this column to the rank role and map the relevance grades or "
    "clicks to the label role.",
    "mixed_label_kinds": "Give each kind of label a source of its own (a label column or a file "
    "each) and compare them: a mixed set can favour or penalise the runs whose items only one "
    "kind judged.",
    "no_relevant": "Set '{setting}' to '{value}' in the settings if they should not lower the "
    "averages.",
    "unjudged_queries": "Add judgments for them, or ignore this if they are out of scope.",
    "missing_run_queries": "Set '{setting}' to '{value}' (trec_eval -c) in the settings to count "
    "them as 0.",
    "relevant_not_retrieved": "Nothing to fix if the candidate lists are meant to be incomplete; "
    "otherwise add these items to the lists.",
    "labels_before_ranking": "In a time split, judge each list only by what happened after "
    "it was made, and train the model only on what came before it.",
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
    "query_item_rank": "query {query}, item {item}: kept at rank {rank}",
    "query_item_value": "query {query}, item {item}: {value}",
    "query_item_labels_kept": "query {query}, item {item}: labels {labels} ({kept} kept)",
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
        "one": _plural(
            "it is evaluated: nDCG scores 1 (as LightGBM and XGBoost), most other measures 0",
            "they are evaluated: nDCG scores 1 (as LightGBM and XGBoost), most other measures 0",
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


__all__ = [
    "ACTIONS",
    "ACTION_SETTINGS",
    "EXAMPLES",
    "MESSAGES",
    "WHERE",
    "plural_form",
]
