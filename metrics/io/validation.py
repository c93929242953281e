"""Validation of a run and its judgments, reported as data.

:func:`validate` returns a :class:`Report`: a list of :class:`Finding` objects, each with a
code, a severity (``"error"`` stops the evaluation, ``"warning"`` and ``"info"`` do not), a
plain-English message, a count, up to five examples, and the action taken or the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from metrics.engine.settings import Settings
from metrics.errors import InputError, file_line
from metrics.io.roles import ROLES, label_values, score_values
from metrics.schema import ITEM, LABEL, MODEL, QUERY, RANK, RELEVANCE, SCORE

Severity = Literal["error", "warning", "info"]
TableRole = Literal["run", "qrels"]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_MAX_EXAMPLES = 5


@dataclass(frozen=True)
class Finding:
    """One problem (or remark) about the input.

    Attributes
    ----------
    code:
        Stable identifier, e.g. ``"duplicate_items"``.
    severity:
        ``"error"`` (evaluation cannot go on), ``"warning"`` or ``"info"``.
    message:
        Plain-English description, naming what will be done.
    count:
        How many rows, lists or queries are concerned.
    examples:
        Up to five examples, as text.
    action:
        The fix, or the policy applied.
    source, line, column:
        Where, when known.
    """

    code: str
    severity: Severity
    message: str
    count: int = 0
    examples: list[str] = field(default_factory=list)
    action: str = ""
    source: str | None = None
    line: int | None = None
    column: str | None = None

    def to_error(self) -> InputError:
        """This finding as an :class:`~metrics.errors.InputError`."""
        return InputError(
            self.message,
            source=self.source,
            line=self.line,
            column=self.column,
            fix=self.action or None,
        )


@dataclass
class Report:
    """All findings about one data set."""

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

    def sorted(self) -> Report:
        """Errors first, then warnings, then remarks (stable within a severity)."""
        return Report(sorted(self.findings, key=lambda f: _SEVERITY_ORDER[f.severity]))

    def to_frame(self) -> pd.DataFrame:
        """One row per finding: code, severity, message, count, examples, action."""
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


def _examples(values: object) -> list[str]:
    out: list[str] = []
    for v in values:  # type: ignore[attr-defined]
        out.append(str(v))
        if len(out) == _MAX_EXAMPLES:
            break
    return out


def _name(role: TableRole) -> str:
    return "run" if role == "run" else "judgments"


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
    what = _name(role)
    has = "has" if role == "run" else "have"
    found: list[Finding] = []
    if len(frame) == 0:
        found.append(
            Finding(
                "no_rows",
                "error",
                f"The {what} {has} no rows.",
                0,
                [],
                "Load a file with at least one data row below the header.",
                source=source,
            )
        )
        return found
    for col, code, noun in ((QUERY, "no_query_column", "query"), (ITEM, "no_item_column", "item")):
        if col not in frame.columns:
            fix = (
                "Map the column that identifies the query, user or session to the query role."
                if col == QUERY
                else "Map the column that identifies the document, product or item to the item role."
            )
            found.append(
                Finding(
                    code, "error", f"The {what} {has} no {noun} column.", 0, [], fix, source=source
                )
            )
    if role == "run" and SCORE not in frame.columns and RANK not in frame.columns:
        found.append(
            Finding(
                "no_score_or_rank",
                "error",
                "The run has neither a score nor a rank column.",
                0,
                [],
                "Map the model's score (higher is better) or the rank position (1 is best) column.",
                source=source,
            )
        )
    label_col = RELEVANCE if RELEVANCE in frame.columns else LABEL
    if role == "qrels" and label_col not in frame.columns:
        found.append(
            Finding(
                "no_label_column",
                "error",
                "The judgments have no relevance label column.",
                0,
                [],
                "Map the column holding relevance grades or clicks to the label role.",
                source=source,
            )
        )
    numeric = [(SCORE, score_values), (RANK, score_values)] if role == "run" else []
    numeric.append((label_col, label_values))
    for col, convert in numeric:
        if col not in frame.columns:
            continue
        _, bad = convert(frame[col])
        if bad.any():
            positions = np.flatnonzero(bad.to_numpy())
            first = int(positions[0])
            value = frame[col].iloc[first]
            shown = _column_label(frame, col)
            line = file_line(first_line, first, skipped_lines)
            where = f" at line {line}" if line is not None else f" in row {first + 1}"
            noun = "labels" if col in (LABEL, RELEVANCE) else f"{col}s"
            fix = (
                "Use numbers (0, 1, 2, ...) or true/false, yes/no for labels."
                if col in (LABEL, RELEVANCE)
                else f"Map a numeric column to {col}, or clean the values that are not numbers."
            )
            found.append(
                Finding(
                    f"non_numeric_{'label' if col in (LABEL, RELEVANCE) else col}",
                    "error",
                    f"Column '{shown}' has {len(positions)} {noun} that are not "
                    f"numbers; the first is '{value}'{where}.",
                    len(positions),
                    _examples(frame[col].iloc[positions[:_MAX_EXAMPLES]]),
                    fix,
                    source=source,
                    line=line,
                    column=shown,
                )
            )
    present = [c for c in (QUERY, ITEM) if c in frame.columns]
    if present:
        empty = np.zeros(len(frame), dtype=bool)
        for c in present:
            empty |= (frame[c].isna() | (frame[c].astype("str").str.strip() == "")).to_numpy()
        if empty.any():
            n = int(empty.sum())
            found.append(
                Finding(
                    "missing_ids",
                    "warning",
                    f"{n} rows of the {what} have an empty query or item id; they are dropped.",
                    n,
                    _examples(f"row {i + 1}" for i in np.flatnonzero(empty)),
                    "Fill in the ids if these rows matter.",
                    source=source,
                )
            )
    return found


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
) -> Report:
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

    Returns
    -------
    Report
        Errors (no rows, missing columns, non-numeric values, no shared query), warnings
        (duplicates, missing or infinite scores, ties, short lists, queries without relevant
        items, unjudged and missing queries, relevant items never retrieved, negative labels,
        labels that look like ranks, segments varying within a query) and a summary.
    """
    findings = check_table(run, "run") + check_table(qrels, "qrels")
    if any(f.severity == "error" for f in findings):
        return Report(findings)
    run = _clean_ids(run)
    qrels = _clean_ids(qrels)
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
                "No query appears in both the run and the judgments.",
                0,
                [
                    f"run: {', '.join(_examples(run_queries))}",
                    f"judgments: {', '.join(_examples(judged_queries))}",
                ],
                "Check that both files use the same query ids (for example '7', 'q7' and '007' "
                "differ).",
                column=QUERY,
            )
        )
        return Report(findings)
    codes = _Codes.of(run, qrels, models)
    policies = settings or Settings()
    findings += _score_findings(run, scores, models, k_max, codes, policies)
    findings += _label_findings(qrels, labels, relevance_level, codes, policies)
    findings += _coverage_findings(
        run, qrels, labels, models, run_queries, judged_queries, relevance_level, codes, policies
    )
    findings += _segment_findings(run, codes.q_run)
    n_rel = int((labels >= relevance_level).sum())
    findings.append(
        Finding(
            "summary",
            "info",
            f"{len(run)} results for {len(run_queries)} queries from {models.nunique()} model(s); "
            f"{len(qrels)} judgments for {len(judged_queries)} queries ({n_rel} relevant); "
            f"{len(shared)} queries in both.",
            len(shared),
            [],
            "",
        )
    )
    return Report(findings)


@dataclass(frozen=True)
class _Codes:
    """Integer codes of query, item and model ids, shared by run and judgments."""

    q_run: np.ndarray
    q_qrels: np.ndarray
    i_run: np.ndarray
    i_qrels: np.ndarray
    m_run: np.ndarray
    queries: np.ndarray
    items: np.ndarray
    models: np.ndarray

    @classmethod
    def of(cls, run: pd.DataFrame, qrels: pd.DataFrame, models: pd.Series) -> _Codes:
        n = len(run)
        q, queries = pd.factorize(pd.concat([run[QUERY], qrels[QUERY]], ignore_index=True))
        i, items = pd.factorize(pd.concat([run[ITEM], qrels[ITEM]], ignore_index=True))
        m, model_names = pd.factorize(models)
        return cls(
            q[:n].astype(np.int64),
            q[n:].astype(np.int64),
            i[:n].astype(np.int64),
            i[n:].astype(np.int64),
            m.astype(np.int64),
            np.asarray(queries, dtype=object),
            np.asarray(items, dtype=object),
            np.asarray(model_names, dtype=object),
        )

    def pair(self, q: np.ndarray, i: np.ndarray) -> np.ndarray:
        return q * np.int64(max(len(self.items), 1)) + i

    def lists(self) -> np.ndarray:
        return self.m_run * np.int64(max(len(self.queries), 1)) + self.q_run


def _clean_ids(frame: pd.DataFrame) -> pd.DataFrame:
    keep = frame[QUERY].notna() & frame[ITEM].notna()
    keep &= (frame[QUERY].astype("str").str.strip() != "") & (
        frame[ITEM].astype("str").str.strip() != ""
    )
    return frame[keep] if not keep.all() else frame


#: What each policy does, as the findings say it.
TIE_RULES = {
    "item_desc": "ties are broken by item id, descending",
    "input_order": "ties keep the order of the input rows",
}
SHORT_LIST_RULES = {
    "divide_by_k": "at K = {k}, missing positions count as not relevant",
    "divide_by_returned": "at K = {k}, measures divide by the number of items returned",
    "leave_out": "at K = {k}, those queries are left out of the averages",
}
NO_RELEVANT_RULES = {
    "zero": "they are evaluated and score 0 on most measures",
    "leave_out": "they are left out of every average",
}
MISSING_QUERY_RULES = {
    "skip": "they are skipped",
    "zero": "they are scored as empty rankings (0, as trec_eval -c)",
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
    for code, mask, message, action in (
        (
            "missing_scores",
            missing,
            "{n} rows have no " + shown + "; they are left out of the rankings.",
            "Fill in the missing values if these items were retrieved.",
        ),
        (
            "infinite_scores",
            np.isinf(scores.to_numpy(dtype="float64")),
            "{n} scores are infinite; +inf ranks first and -inf last.",
            "Replace them with finite numbers if that is not intended.",
        ),
    ):
        if mask.any():
            n = int(mask.sum())
            found.append(
                Finding(
                    code,
                    "warning",
                    message.format(n=n),
                    n,
                    _examples(
                        f"query {q}, item {i}"
                        for q, i in zip(run[QUERY][mask].head(5), run[ITEM][mask].head(5))
                    ),
                    action,
                    column=shown,
                )
            )
    has_model = MODEL in run.columns
    q_text, i_text, m_text = (run[QUERY].to_numpy(), run[ITEM].to_numpy(), models.to_numpy())
    list_key = codes.lists()
    item_key = pd.Series(list_key * np.int64(max(len(codes.items), 1)) + codes.i_run)
    dup = item_key.duplicated().to_numpy()
    if dup.any():
        n = int(dup.sum())
        refused = settings.duplicates == "error"
        found.append(
            Finding(
                "duplicate_items",
                "error" if refused else "warning",
                f"{n} items appear more than once in the same list; "
                + (
                    "such input is refused (duplicates = error, as trec_eval)."
                    if refused
                    else "the best-ranked copy is kept."
                ),
                n,
                _examples(
                    f"query {q}, item {i}" + (f" ({m})" if has_model else "")
                    for q, i, m in zip(q_text[dup][:5], i_text[dup][:5], m_text[dup][:5])
                ),
                "Remove the copies"
                + (
                    ", or choose 'keep_best' for duplicates to keep the best-ranked copy."
                    if refused
                    else ", or choose 'error' for duplicates to refuse such input "
                    "(trec_eval's behaviour)."
                ),
            )
        )
    ok = ~missing
    score_keys = pd.DataFrame({"list": list_key[ok], "score": scores.to_numpy()[ok]})
    tied = score_keys.duplicated(keep=False).to_numpy()
    if SCORE in run.columns and tied.any() and settings.ties in TIE_RULES:
        tied_lists = pd.unique(score_keys["list"].to_numpy()[tied])
        first = pd.Series(np.flatnonzero(ok)).groupby(list_key[ok]).first()
        shown_pos = first.loc[tied_lists[:5]].to_numpy()
        found.append(
            Finding(
                "tied_scores",
                "warning",
                f"{len(tied_lists)} lists have tied scores ({int(tied.sum())} rows share their score "
                f"with another item of the same list); {TIE_RULES[settings.ties]}.",
                len(tied_lists),
                _examples(
                    f"query {q_text[p]}" + (f" ({m_text[p]})" if has_model else "")
                    for p in shown_pos
                ),
                "Choose another tie-breaking rule in the settings, or add a rank column.",
            )
        )
    unique_rows = ok & ~dup
    counts = pd.Series(list_key[unique_rows]).value_counts(sort=False)
    first_pos = pd.Series(np.flatnonzero(unique_rows)).groupby(list_key[unique_rows]).first()
    sizes = pd.Series(
        counts.to_numpy(),
        index=pd.MultiIndex.from_arrays(
            [
                m_text[first_pos.loc[counts.index].to_numpy()],
                q_text[first_pos.loc[counts.index].to_numpy()],
            ]
        ),
    )
    short = sizes[sizes < k_max]
    if len(short):
        found.append(
            Finding(
                "short_lists",
                "warning",
                f"{len(short)} of {len(sizes)} lists have fewer than {k_max} items (the shortest has "
                f"{int(short.min())}); "
                f"{SHORT_LIST_RULES[settings.short_lists].format(k=k_max)}.",
                len(short),
                _examples(
                    f"query {q}: {n} item{'' if n == 1 else 's'}" + (f" ({m})" if has_model else "")
                    for (m, q), n in short.head(5).items()
                ),
                "Choose another rule for short lists in the settings if missing positions "
                "should not count.",
            )
        )
    return found


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
        found.append(
            Finding(
                "missing_labels",
                "warning",
                f"{n} judgments have no label; they are dropped.",
                n,
                _examples(
                    f"query {q}, item {i}"
                    for q, i in zip(qrels[QUERY][missing].head(5), qrels[ITEM][missing].head(5))
                ),
                "Fill in the labels, or 0 for items judged not relevant.",
                column=shown,
            )
        )
    dup = pd.Series(codes.pair(codes.q_qrels, codes.i_qrels)).duplicated().to_numpy()
    if dup.any():
        n = int(dup.sum())
        found.append(
            Finding(
                "duplicate_judgments",
                "warning",
                f"{n} judgments repeat an item already judged for the same query; the highest label "
                "is kept.",
                n,
                _examples(
                    f"query {q}, item {i}"
                    for q, i in zip(qrels[QUERY][dup].head(5), qrels[ITEM][dup].head(5))
                ),
                "Remove the repeated judgments if the highest label is not the right one.",
            )
        )
    negative = (labels < 0).to_numpy()
    if negative.any():
        n = int(negative.sum())
        found.append(
            Finding(
                "negative_labels",
                "warning",
                f"{n} labels are negative; they count as judged but not relevant (gain 0).",
                n,
                _examples(
                    f"query {q}, item {i}: {v:g}"
                    for q, i, v in zip(
                        qrels[QUERY][negative].head(5),
                        qrels[ITEM][negative].head(5),
                        labels[negative].head(5),
                    )
                ),
                "Use 0 for items that are not relevant if negative values are not intended.",
                column=shown,
            )
        )
    if _labels_look_like_ranks(codes.q_qrels, labels):
        found.append(
            Finding(
                "labels_look_like_ranks",
                "warning",
                f"The labels in '{shown}' look like rank positions (1, 2, 3, ... within each query), "
                "not relevance grades; higher labels are treated as more relevant.",
                0,
                [],
                "Map this column to the rank role and map the relevance grades or clicks to the "
                "label role.",
                column=shown,
            )
        )
    clean = labels.notna().to_numpy()
    judged = pd.unique(codes.q_qrels[clean])
    relevant_q = np.zeros(len(codes.queries), dtype=bool)
    relevant_q[codes.q_qrels[clean & (labels >= relevance_level).to_numpy()]] = True
    has_rel = pd.Series(relevant_q[judged], index=codes.queries[judged])
    none = has_rel[~has_rel]
    if len(none):
        found.append(
            Finding(
                "no_relevant",
                "warning",
                f"{len(none)} of {len(has_rel)} judged queries have no relevant item (label ≥ "
                f"{relevance_level:g}); {NO_RELEVANT_RULES[settings.no_relevant]}.",
                len(none),
                _examples(none.index),
                "Leave them out in the settings ('Queries with no relevant item') if they should "
                "not lower the averages.",
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
    missing_rule = MISSING_QUERY_RULES[settings.missing_queries]
    unjudged = run_queries.difference(judged_queries, sort=False)
    if len(unjudged):
        found.append(
            Finding(
                "unjudged_queries",
                "warning",
                f"{len(unjudged)} of {len(run_queries)} queries in the run have no judgments; they "
                "are left out of the evaluation.",
                len(unjudged),
                _examples(unjudged),
                "Add judgments for them, or ignore this if they are out of scope.",
            )
        )
    nq = np.int64(max(len(codes.queries), 1))
    present = pd.unique(codes.lists())
    judged_q = pd.unique(codes.q_qrels)
    n_models = len(codes.models)
    expected = (np.arange(n_models, dtype=np.int64)[:, None] * nq + judged_q[None, :]).ravel()
    absent = expected[~pd.Series(expected).isin(present).to_numpy()]
    if len(absent):
        missing_queries = pd.unique(codes.queries[absent % nq])
        if n_models == 1:
            message = (
                f"{len(missing_queries)} of {len(judged_q)} judged queries are "
                f"missing from the run; {missing_rule}."
            )
            examples = _examples(missing_queries)
        else:
            message = (
                f"{len(missing_queries)} of {len(judged_q)} judged queries are "
                f"missing from at least one model's run ({len(absent)} model-query pairs); "
                f"{missing_rule} for that model."
            )
            examples = _examples(
                f"{codes.models[k // nq]}: {codes.queries[k % nq]}" for k in absent[:5]
            )
        found.append(
            Finding(
                "missing_run_queries",
                "warning",
                message,
                len(missing_queries),
                examples,
                "Choose 'score them as an empty ranking' (trec_eval -c) in the settings to count "
                "them as 0.",
            )
        )
    is_rel = (labels >= relevance_level).to_numpy()
    in_run = np.zeros(len(codes.queries), dtype=bool)
    in_run[codes.q_run] = True
    rel_keys = pd.unique(codes.pair(codes.q_qrels, codes.i_qrels)[is_rel & in_run[codes.q_qrels]])
    retrieved = codes.pair(codes.q_run, codes.i_run)
    outside = rel_keys[~pd.Series(rel_keys).isin(retrieved).to_numpy()]
    if len(outside):
        ni = np.int64(max(len(codes.items), 1))
        n_q = len(pd.unique(outside // ni))
        found.append(
            Finding(
                "relevant_not_retrieved",
                "warning",
                f"{len(outside)} relevant judged items in {n_q} queries were not retrieved by any "
                "model; recall cannot reach 1 for those queries.",
                len(outside),
                _examples(
                    f"query {codes.queries[k // ni]}, item {codes.items[k % ni]}"
                    for k in outside[:5]
                ),
                "Nothing to fix if the candidate lists are meant to be incomplete; otherwise add "
                "these items to the lists.",
            )
        )
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
                    f"Segment '{col}' varies within {len(varying)} queries; the first value of each "
                    "query is used.",
                    len(varying),
                    _examples(names),
                    "Make the column query-level, or do not use it as a segment.",
                    column=col,
                )
            )
    return found


__all__ = ["Finding", "Report", "Severity", "check_table", "qrels_labels", "run_scores", "validate"]
