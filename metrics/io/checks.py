"""Validation of a run and its judgments: the checks that make the data set's health.

:func:`validate` returns a :class:`~metrics.io.findings.DataHealth`, a list of
:class:`~metrics.io.findings.Finding` objects (:mod:`metrics.io.findings`), worded in English by
the catalogue of :mod:`metrics.io.messages`; :func:`check_table` checks one table,
:func:`under_settings` rewords the findings that depend on the settings in force.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from metrics.engine import relevance
from metrics.engine.ids import IdCodes, encode_strings, id_codes, string_chunks
from metrics.engine.ranking import RepeatedJudgments, repeated_judgments
from metrics.engine.settings import Settings
from metrics.errors import file_line
from metrics.io.direction import (
    RankAgreement,
    agreements,
)
from metrics.io.findings import (
    MAX_EXAMPLES,
    DataHealth,
    Example,
    Finding,
    TableRole,
    conflict_examples,
    duplicate_items_finding,
    duplicate_judgments_finding,
    fractional_labels_finding,
    id_examples,
    ids_text,
    infinite_variant,
    labels_look_like_ranks_finding,
    missing_labels_finding,
    missing_run_queries_finding,
    negative_labels_finding,
    no_relevant_finding,
    relevant_not_retrieved_finding,
    score_order_by_name_finding,
    score_order_vs_rank_findings,
    score_values_finding,
    short_lists_finding,
    tied_scores_finding,
    unjudged_queries_finding,
)
from metrics.io.labels import partial_label_map
from metrics.io.messages import RULES
from metrics.io.roles import ROLES, label_values, score_values
from metrics.schema import ITEM, LABEL, MODEL, QUERY, RANK, RELEVANCE, SCORE


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
        distinct = [str(v) for v in pd.unique(bad_values.astype("str"))[:MAX_EXAMPLES]]
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
            tuple({"row": int(i) + 1} for i in np.flatnonzero(empty)[:MAX_EXAMPLES]),
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
        (:func:`~metrics.engine.ids.id_codes`), so that they are not hashed again.

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
                    {"run_ids": ids_text(run_queries)},
                    {"judged_ids": ids_text(judged_queries)},
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
        first_copies = repeated[~item_key.iloc[repeated].duplicated().to_numpy()][:MAX_EXAMPLES]
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
    values = labels.to_numpy(dtype="float64", na_value=np.nan)
    repeated = repeated_judgments(codes.pair(codes.q_qrels, codes.i_qrels), values)
    if repeated is not None:
        found.append(_repeated_finding(qrels, codes, values, repeated))
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
                len(none), len(has_rel), relevance_level, id_examples(none.index), settings
            )
        )
    return found


def _repeated_finding(
    qrels: pd.DataFrame, codes: _Codes, values: np.ndarray, repeated: RepeatedJudgments
) -> Finding:
    """The finding on repeated judgments: the first items whose labels disagree, with their
    labels and the one kept, else the first repeats."""
    if repeated.conflicts:
        rows = repeated.conflict_rows
        examples = conflict_examples(
            zip(qrels[QUERY].iloc[rows], qrels[ITEM].iloc[rows], repeated.conflict_labels)
        )
    else:
        pairs = pd.Series(codes.pair(codes.q_qrels, codes.i_qrels))
        dup = pairs.duplicated().to_numpy() & ~np.isnan(values)
        examples = tuple(
            {"query": str(q), "item": str(i)}
            for q, i in zip(qrels[QUERY][dup].head(5), qrels[ITEM][dup].head(5))
        )
    return duplicate_judgments_finding(repeated.count, examples, repeated.conflicts)


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
        found.append(
            unjudged_queries_finding(len(unjudged), len(run_queries), id_examples(unjudged))
        )
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
            id_examples(missing_queries)
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
                    id_examples(names),
                    column=col,
                )
            )
    return found


__all__ = [
    "check_table",
    "qrels_labels",
    "run_scores",
    "validate",
]


# ----------------------------------------------------------------------------- times (leakage)

#: Column names that give the time a list was made (the run's), the time a label was observed
#: (the judgments'), and names that give a time either way: the run's ranking time in a run
#: without labels, the label's time in a judgments table.
RANKING_TIME_NAMES = (
    "ranked_at",
    "ranking_time",
    "ranked_time",
    "request_time",
    "requested_at",
    "served_at",
    "shown_at",
    "impression_time",
)
LABEL_TIME_NAMES = (
    "judged_at",
    "label_time",
    "labeled_at",
    "labelled_at",
    "clicked_at",
    "click_time",
    "event_time",
    "interaction_time",
    "purchased_at",
    "bought_at",
)
GENERIC_TIME_NAMES = ("timestamp", "datetime", "time", "date")


def time_values(values: pd.Series) -> tuple[str, np.ndarray] | None:
    """A column of times as ``(kind, numbers)``: ``"number"`` (plain numbers: days, epoch
    seconds) or ``"datetime"`` (dates and times, read as nanoseconds since 1970, UTC), with NaN
    where a cell is empty or unreadable; ``None`` when fewer than half of the filled cells read
    as either."""
    filled = values.notna() & (values.astype(str).str.strip() != "")
    if not filled.any():
        return None
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers[filled].notna().mean() >= 0.5:
        return "number", numbers.to_numpy(dtype=np.float64)
    stamps = pd.to_datetime(values.astype("string"), errors="coerce", utc=True, format="mixed")
    if stamps[filled].notna().mean() < 0.5:
        return None
    ns = stamps.astype("int64").to_numpy().astype(np.float64)
    return "datetime", np.where(stamps.isna().to_numpy(), np.nan, ns)


def time_split_findings(
    rankings: pd.DataFrame,
    labels: pd.DataFrame,
    relevance_level: float,
    ranking_column: str,
    label_column: str,
) -> list[Finding]:
    """Leakage across time: whether the relevant judgments are dated after the lists they
    judge were made.

    Parameters
    ----------
    rankings:
        ``query``, ``model`` and ``time`` (when the row's list was made); a list's time is its
        earliest row's.
    labels:
        ``query``, ``item``, ``relevance`` and ``time`` (when the label was observed).
    relevance_level:
        Labels at or above it are relevant.
    ranking_column, label_column:
        The columns the times were read from, for the message.

    Returns
    -------
    list[Finding]
        ``labels_before_ranking`` (a warning naming relevant judgments dated before a list of
        their query was made: the answer was known at ranking time), or ``time_split`` (a
        remark that none is), or nothing when the times cannot be compared (unreadable, of two
        kinds, or no relevant judgment with a time has a list).
    """
    ranked_at, judged_at = time_values(rankings["time"]), time_values(labels["time"])
    if ranked_at is None or judged_at is None or ranked_at[0] != judged_at[0]:
        return []
    lists = (
        pd.DataFrame(
            {
                QUERY: rankings[QUERY].astype(str).to_numpy(),
                MODEL: rankings[MODEL].astype(str).to_numpy(),
                "made": ranked_at[1],
            }
        )
        .dropna(subset=["made"])
        .groupby([QUERY, MODEL], sort=False, as_index=False)["made"]
        .min()
    )
    relevance_values = pd.to_numeric(labels[RELEVANCE], errors="coerce")
    relevant = relevance.relevant(relevance_values, relevance_level).to_numpy(dtype=bool)
    keep = relevant & ~np.isnan(judged_at[1])
    judged = pd.DataFrame(
        {
            QUERY: labels[QUERY].astype(str).to_numpy()[keep],
            ITEM: labels[ITEM].astype(str).to_numpy()[keep],
            "seen": judged_at[1][keep],
        }
    ).merge(lists, on=QUERY)
    if judged.empty:
        return []
    total = len(judged.drop_duplicates([QUERY, ITEM]))
    early = judged[judged["seen"] < judged["made"]]
    params = {"ranking_column": ranking_column, "label_column": label_column}
    if early.empty:
        return [Finding("time_split", "info", {"n": total, **params}, total)]
    pairs = early.drop_duplicates([QUERY, ITEM])
    several = lists[MODEL].nunique() > 1
    examples = tuple(
        _with_model({"query": str(q), "item": str(i)}, m, several)
        for q, i, m in zip(
            pairs[QUERY].head(MAX_EXAMPLES),
            pairs[ITEM].head(MAX_EXAMPLES),
            pairs[MODEL].head(MAX_EXAMPLES),
        )
    )
    n = len(pairs)
    return [
        Finding("labels_before_ranking", "warning", {"n": n, "total": total, **params}, n, examples)
    ]
