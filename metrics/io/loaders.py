"""Files in, a validated data set out: the assembly of run files, judgments and a query table.

Typical use::

    run = load_table("bm25.run")                     # any supported format, detected
    qrels = load_table("qrels.txt")
    data = load_dataset([run], qrels, k_max=10)      # roles guessed, validated
    data.run, data.qrels, data.segments, data.health, data.content_hash

Steps, each usable on its own: :func:`load_table` reads bytes (:mod:`metrics.io.formats`);
:func:`~metrics.io.roles.guess_roles` proposes a :class:`~metrics.io.roles.RoleMapping` that a
user may edit; :func:`~metrics.io.canonical.canonical_run` /
:func:`~metrics.io.canonical.canonical_qrels` apply it (:mod:`metrics.io.canonical`);
:func:`~metrics.io.checks.validate` reports problems; :func:`load_dataset` puts the tables of
several files together into one :class:`~metrics.io.dataset.Dataset`. The bundled samples are
in :mod:`metrics.io.samples`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from metrics.engine.ids import IdCodes, id_codes
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.canonical import (
    MappingLike,
    canonical_qrels,
    canonical_run,
    clean_qrels,
    clean_qrels_kept,
    split_inline_labels,
)
from metrics.io.checks import (
    GENERIC_TIME_NAMES,
    LABEL_TIME_NAMES,
    RANKING_TIME_NAMES,
    _segment_findings,
    time_split_findings,
    validate,
)
from metrics.io.dataset import Dataset
from metrics.io.direction import lower_is_better_name
from metrics.io.findings import DataHealth, Finding, score_order_by_name_finding
from metrics.io.formats import LoadedTable, load_table
from metrics.io.labels import mapping_text
from metrics.io.roles import (
    ROLES,
    Guess,
    RoleMapping,
    apply_roles,
    guess_query_table,
    guess_roles,
    refuse_doubtful_guesses,
)
from metrics.io.text_safety import visible, visible_frame
from metrics.schema import ITEM, LABEL, MODEL, QUERY, RANK, RELEVANCE, SCORE, normalize_name


def _as_table(value: LoadedTable | str | Path) -> LoadedTable:
    return value if isinstance(value, LoadedTable) else load_table(value)


def _rename_colliding_models(parts: list[tuple[pd.DataFrame, str, str]]) -> None:
    """Models named alike in several run files are told apart by their files: a file's one
    model takes the file's label, several become ``label/model``. A label is the file's stem,
    its name when stems repeat (``bm25.csv``, ``bm25.tsv``), and the name numbered when names
    repeat too (``run.csv``, ``run.csv (2)``)."""
    if len(parts) < 2:
        return
    seen: dict[str, int] = {}
    for frame, _, _ in parts:
        for m in pd.unique(frame[MODEL]):
            seen[m] = seen.get(m, 0) + 1
    labels = _file_labels([(stem, name) for _, stem, name in parts])
    for (frame, _, _), label in zip(parts, labels):
        models = pd.unique(frame[MODEL])
        if any(seen[m] > 1 for m in models):
            frame[MODEL] = label if len(models) == 1 else label + "/" + frame[MODEL]


def _file_labels(files: list[tuple[str, str]]) -> list[str]:
    """One distinct label per ``(stem, name)`` of the run files (see
    :func:`_rename_colliding_models`)."""
    stems = Counter(stem for stem, _ in files)
    labels = [stem if stems[stem] == 1 else name for stem, name in files]
    counts = Counter(labels)
    taken: Counter[str] = Counter()
    out = []
    for label in labels:
        taken[label] += 1
        first = counts[label] == 1 or taken[label] == 1
        out.append(label if first else f"{label} ({taken[label]})")
    return out


def load_dataset(
    runs: Sequence[LoadedTable | str | Path] | LoadedTable | str | Path,
    judgments: LoadedTable | str | Path | None = None,
    queries: LoadedTable | str | Path | None = None,
    *,
    mappings: Mapping[str, MappingLike] | None = None,
    name: str = "dataset",
    description: str = "",
    k_max: int = 10,
    relevance_level: float = 1,
    settings: Settings | None = None,
    on_built: Callable[[Dataset], object] | None = None,
    label_map: Mapping[str, float] | None = None,
    label_maps: Mapping[str, Mapping[str, float]] | None = None,
) -> Dataset:
    """Build a validated :class:`Dataset` from run files, judgments and query metadata.

    Parameters
    ----------
    runs:
        One or more run tables (one file per model, or one file with a model column). A table
        with a label column carries its own judgments.
    judgments:
        A separate judgments table, if any.
    queries:
        A query-metadata table: a query column and segment columns, joined on the query id.
    mappings:
        Column roles per table name; guessed for tables not listed.
    name, description:
        For display.
    k_max:
        Largest cutoff to be evaluated (lists shorter than this are reported).
    relevance_level:
        Labels at or above it are relevant (for the report).
    settings:
        The policies in force, so that the report says what they do (trec_eval's defaults
        when ``None``).
    on_built:
        Called with the data set as soon as its rows are cleaned, while it is still being
        validated, so that a caller can start work on it (ranking) on another thread. The data
        set it gets is the one returned, its health filled in once validation ends; when
        validation refuses the input, nothing is returned and that work is to be dropped.
    label_map, label_maps:
        Grades of labels written as text (``{"relevant": 1, "not relevant": 0}``): for every
        table, and per table name (which wins). A table without one has the labels of a known
        scale guessed (:func:`~metrics.io.labels.guess_label_map`); the grades used are a
        remark of the data's health (``text_labels``), and text labels of no known scale are
        refused naming the column, the values and the fix.

    Returns
    -------
    Dataset

    Raises
    ------
    InputError
        When the input cannot be evaluated: unreadable files, missing columns, values that are
        not numbers, no judgments, or no query shared by run and judgments.
    """
    mappings = dict(mappings or {})
    grades = {**({} if label_map is None else {"": dict(label_map)}), **dict(label_maps or {})}
    run_tables = _run_tables(runs)
    timed: list[tuple[LoadedTable, pd.DataFrame]] = []  # tables with a time column
    run, inline_qrels, extra, sources = _canonical_runs(
        run_tables, mappings, judgments is not None, settings or Settings(), grades, timed
    )
    judgments_table = _as_table(judgments) if judgments is not None else None
    qrels_all = _judgments(
        inline_qrels, judgments_table, mappings, run_tables[0].name, grades, extra, timed
    )
    query_columns = tuple(run.attrs.get("query_columns", ()))
    segments, seg_findings, read_segments = _segments(run, queries, mappings)
    run, qrels_all = (
        cast(pd.DataFrame, visible_frame(run)),
        cast(pd.DataFrame, visible_frame(qrels_all)),
    )
    segments = visible_frame(segments)
    ids = id_codes(run[QUERY], run[ITEM], qrels_all[QUERY], qrels_all[ITEM])
    try:
        cleaned: _Cleaned | None = _cleaned(run, qrels_all, segments, ids)
    except Exception:  # input that validation refuses; else raised again once it passed
        cleaned = None
    health = DataHealth()

    def dataset(done: _Cleaned) -> Dataset:
        return Dataset(
            visible(name),
            *done[:2],
            segments,
            health,
            description,
            done[2],
            run_sources=sources,
            query_table_columns=read_segments,
            query_columns=query_columns,
        )

    early = None
    if on_built is not None and cleaned is not None and len(cleaned[0]) and len(cleaned[1]):
        early = dataset(cleaned)
        on_built(early)
    found = validate(
        run, qrels_all, k_max=k_max, relevance_level=relevance_level, settings=settings, ids=ids
    )
    found.raise_for_errors()
    read = run_tables + ([judgments_table] if judgments_table is not None else [])
    health.findings.extend(
        found.findings
        + seg_findings
        + extra
        + _reading_findings(read)
        + _time_findings(timed, relevance_level)
    )
    if cleaned is None:
        cleaned = _cleaned(run, qrels_all, segments, ids)
    _require_usable_rows(cleaned[0], cleaned[1], health, run_tables)
    return early if early is not None else dataset(cleaned)


_Cleaned = tuple[pd.DataFrame, pd.DataFrame, IdCodes | None]


def _cleaned(
    run: pd.DataFrame, qrels: pd.DataFrame, segments: pd.DataFrame | None, ids: IdCodes | None
) -> _Cleaned:
    """Stage 4: the run and judgments without unusable rows, and their id codes."""
    run, run_kept = _clean_run(run, segments)
    qrels, qrels_kept = clean_qrels_kept(qrels, ids)
    if ids is not None and qrels_kept is not None:
        ids = replace(
            ids,
            run_query=ids.run_query[run_kept],
            run_item=ids.run_item[run_kept],
            qrels_query=ids.qrels_query[qrels_kept],
            qrels_item=ids.qrels_item[qrels_kept],
        )
    elif ids is not None:
        ids = id_codes(run[QUERY], run[ITEM], qrels[QUERY], qrels[ITEM])
    return run, qrels, ids


def _run_tables(
    runs: Sequence[LoadedTable | str | Path] | LoadedTable | str | Path,
) -> list[LoadedTable]:
    """Stage 1: the run inputs as loaded tables (at least one)."""
    tables = [
        _as_table(r) for r in ([runs] if isinstance(runs, (LoadedTable, str, Path)) else list(runs))
    ]
    if not tables:
        raise InputError("No run was given.", fix="Load at least one run file.")
    return tables


def _canonical_runs(
    run_tables: list[LoadedTable],
    mappings: dict[str, MappingLike],
    judged_elsewhere: bool,
    settings: Settings,
    grades: Mapping[str, Mapping[str, float]] | None = None,
    timed: list[tuple[LoadedTable, pd.DataFrame]] | None = None,
) -> tuple[pd.DataFrame, list[pd.DataFrame], list[Finding], dict[str, tuple[str, ...]]]:
    """Stage 2: every run table in canonical columns, concatenated with unique model names;
    judgments carried by labelled runs split off; remarks on what was done (a score column
    named like a distance while ``settings`` rank the highest score first); the models of each
    table. With ``judged_elsewhere`` (a judgments file is given) a run's labels are guessed
    from column names only. ``grades``: the label mappings by table name (``""``: every
    table). Each table with a time column is added to ``timed`` with its canonical rows (row
    for row), for :func:`_time_findings`."""
    extra: list[Finding] = []
    parts: list[tuple[pd.DataFrame, str, str]] = []
    inline_qrels: list[pd.DataFrame] = []
    ranked_only: list[str] = []  # run files with ranks and no scores
    for table in run_tables:
        part = canonical_run(
            table,
            mappings.get(table.name),
            judged_elsewhere=judged_elsewhere,
            label_map=_grades_of(grades, table.name),
        )
        extra += _text_labels_findings(part, LABEL, table.name)
        extra += _unlabelled_rows(part, table.name)
        if timed is not None and _time_columns(table, part) != (None, None):
            timed.append((table, part))
        if LABEL in part.columns:
            judged_only = int(part[SCORE].isna().sum())
            if judged_only == len(part):
                raise _unusable(
                    table,
                    f"none of its {len(part):,} rows has a score or a rank",
                    "Map the column with the model's scores (or ranks) to the score role; "
                    "rows without one are read as judgments only.",
                    "no_scores",
                    {"n": len(part)},
                )
            if judged_only:
                extra.append(
                    Finding(
                        "judgment_only_rows",
                        "info",
                        {"n": judged_only},
                        judged_only,
                        source=table.name,
                    )
                )
            part, q = split_inline_labels(part)
            inline_qrels.append(q)
        if part.attrs.get("score_from_rank"):
            ranked_only.append(table.name)
        parts.append((part, table.stem, table.name))
    if ranked_only:  # one remark naming every such file, not one unnamed remark per file
        extra.append(
            Finding(
                "score_from_rank",
                "info",
                {"n": len(ranked_only), "files": ", ".join(ranked_only)},
                len(ranked_only),
                variant="files",
                source=ranked_only[0] if len(ranked_only) == 1 else None,
            )
        )
    _rename_colliding_models(parts)
    sources = {name: tuple(visible(m) for m in pd.unique(p[MODEL])) for p, _, name in parts}
    for part, _, name in parts:
        extra += _score_named_lower_is_better(part, sources[name], name, settings)
    read_as = tuple(dict.fromkeys(str(p.attrs.get("columns", {}).get(QUERY)) for p, _, _ in parts))
    run = pd.concat([p for p, _, _ in parts], ignore_index=True) if len(parts) > 1 else parts[0][0]
    run.attrs["query_columns"] = read_as
    return run, inline_qrels, extra, sources


def _grades_of(
    grades: Mapping[str, Mapping[str, float]] | None, name: str
) -> Mapping[str, float] | None:
    """The label mapping of table ``name``: its own, else the one for every table."""
    if not grades:
        return None
    return grades.get(name, grades.get(""))


def _text_labels_findings(part: pd.DataFrame, role: str, source: str) -> list[Finding]:
    """The remark that a table's labels were text, read by a mapping (its grades)."""
    used = part.attrs.get("label_map")
    if not used:
        return []
    column = str(part.attrs.get("columns", {}).get(role) or role)
    return [
        Finding(
            "text_labels",
            "info",
            {
                "column": column,
                "mapping": mapping_text(used, part.attrs.get("label_counts")),
                "n": len(used),
            },
            len(used),
            source=source,
            column=column,
        )
    ]


def _unlabelled_rows(part: pd.DataFrame, source: str) -> list[Finding]:
    """The warning on a labelled run's rows without a label (an empty cell, ``NA``): their
    items are unjudged, unlike a label 0 (or ``none``), which is judged not relevant."""
    if LABEL not in part.columns:
        return []
    missing = part[LABEL].isna().to_numpy()
    if not missing.any():
        return []
    n = int(missing.sum())
    column = str(part.attrs.get("columns", {}).get(LABEL) or LABEL)
    examples = tuple(
        {"query": str(q), "item": str(i)}
        for q, i in zip(part[QUERY][missing].head(5), part[ITEM][missing].head(5))
    )
    return [
        Finding(
            "missing_labels",
            "warning",
            {"n": n},
            n,
            examples,
            variant="inline",
            source=source,
            column=column,
        )
    ]


def _score_named_lower_is_better(
    part: pd.DataFrame, models: tuple[str, ...], source: str, settings: Settings
) -> list[Finding]:
    """The remark on a run table without ranks whose score column is named like a distance,
    cost or loss while some of its models rank the highest score first (where the table has
    ranks, the validation compares the scores with them instead)."""
    column = part.attrs.get("columns", {}).get(SCORE)
    if column is None or RANK in part.columns or not lower_is_better_name(column):
        return []
    highest_first = [m for m in models if settings.score_order_of(m) == "descending"]
    if not highest_first:
        return []
    return [score_order_by_name_finding(str(column), highest_first, source)]


def _judgments(
    inline_qrels: list[pd.DataFrame],
    judgments: LoadedTable | str | Path | None,
    mappings: dict[str, MappingLike],
    run_source: str,
    grades: Mapping[str, Mapping[str, float]] | None = None,
    extra: list[Finding] | None = None,
    timed: list[tuple[LoadedTable, pd.DataFrame]] | None = None,
) -> pd.DataFrame:
    """Stage 3: the judgments file (if any) and the judgments carried by the runs, together
    (the grades of text labels used are added to ``extra``; a judgments file with a time
    column is added to ``timed``, as in :func:`_canonical_runs`)."""
    qrels_parts = (
        [clean_qrels(pd.concat(inline_qrels, ignore_index=True))]
        if len(inline_qrels) > 1
        else list(inline_qrels)
    )
    if judgments is not None:
        jt = _as_table(judgments)
        part = canonical_qrels(jt, mappings.get(jt.name), label_map=_grades_of(grades, jt.name))
        if timed is not None and _time_columns(jt, part) != (None, None):
            timed.append((jt, part))
        if extra is not None:
            extra += _text_labels_findings(part, RELEVANCE, jt.name)
        qrels_parts.insert(0, part)
    if not qrels_parts:
        raise InputError(
            "There are no judgments: the run has no label column and no judgments file was given.",
            source=run_source,
            fix="Add a judgments (qrels) file, or map a label column of the run.",
            code="no_judgments",
        )
    return pd.concat(qrels_parts, ignore_index=True) if len(qrels_parts) > 1 else qrels_parts[0]


def _time_columns(table: LoadedTable, part: pd.DataFrame) -> tuple[str | None, str | None]:
    """The columns of ``table`` (read as ``part``, row for row) that give the time its lists
    were made and the time its labels were observed, by name (:data:`RANKING_TIME_NAMES`,
    :data:`LABEL_TIME_NAMES`; a generic name such as ``timestamp`` is a run's ranking time or a
    judgments table's label time, and says nothing in a run that carries its labels); columns
    read for a role are not times."""
    frame = table.frame
    if len(frame) != len(part):
        return None, None
    used = {str(c) for c in part.attrs.get("columns", {}).values() if c}
    names = {normalize_name(c): str(c) for c in frame.columns if str(c) not in used}
    is_run = SCORE in part.columns
    labelled = LABEL in part.columns or RELEVANCE in part.columns
    ranking = [*RANKING_TIME_NAMES, *(GENERIC_TIME_NAMES if is_run and not labelled else ())]
    label = [*LABEL_TIME_NAMES, *(GENERIC_TIME_NAMES if not is_run else ())]
    found_ranking = next((names[n] for n in ranking if n in names), None) if is_run else None
    found_label = next((names[n] for n in label if n in names), None) if labelled else None
    return found_ranking, found_label


def _time_findings(
    timed: list[tuple[LoadedTable, pd.DataFrame]], relevance_level: float
) -> list[Finding]:
    """Leakage across time (:func:`~metrics.io.checks.time_split_findings`) when a run gives
    the time its lists were made and the judgments the time of their labels."""
    rankings, labels = [], []
    ranking_column = label_column = ""
    for table, part in timed:
        ranked_at, judged_at = _time_columns(table, part)
        times = table.frame.reset_index(drop=True)
        if ranked_at is not None:
            ranking_column = ranking_column or ranked_at
            rankings.append(
                pd.DataFrame(
                    {
                        QUERY: part[QUERY].to_numpy(),
                        MODEL: part[MODEL].to_numpy(),
                        "time": times[ranked_at].to_numpy(),
                    }
                )
            )
        if judged_at is not None:
            label_column = label_column or judged_at
            grade = LABEL if LABEL in part.columns else RELEVANCE
            labels.append(
                pd.DataFrame(
                    {
                        QUERY: part[QUERY].to_numpy(),
                        ITEM: part[ITEM].to_numpy(),
                        RELEVANCE: part[grade].to_numpy(),
                        "time": times[judged_at].to_numpy(),
                    }
                )
            )
    if not rankings or not labels:
        return []
    return time_split_findings(
        pd.concat(rankings, ignore_index=True),
        pd.concat(labels, ignore_index=True),
        relevance_level,
        ranking_column,
        label_column,
    )


def _unusable(
    table: LoadedTable, reason: str, fix: str, code: str, params: dict[str, object]
) -> InputError:
    """The error of a data set with nothing to evaluate; ``code`` and ``params`` (with
    ``excel``: whether the table is a workbook) word it in other languages."""
    notes = [n for n in table.notes if "formula" in n]
    excel = table.format == "excel"
    # the reader's note "1,234 cells hold a formula without a saved value ...", as a number
    formulas = [int(m.group(1).replace(",", "")) for n in notes if (m := _FORMULAS.match(n))]
    return InputError(
        f"Nothing can be evaluated: {reason}." + "".join(f" Note: {n}." for n in notes),
        source=table.name,
        fix=fix + (" " + EXCEL_FIX if excel else ""),
        code=code,
        params={**params, "excel": excel, "formula_cells": sum(formulas)},
    )


_FORMULAS = re.compile(r"([\d,]+) cells hold a formula")


#: What to do about a workbook whose cells read as empty.
EXCEL_FIX = (
    "In Excel, formulas are read from the values Excel saved with them (open the workbook in "
    "Excel and save it again, or paste the values), and merged cells keep their value only in "
    "the first cell (unmerge and fill them)."
)


def _require_usable_rows(
    run: pd.DataFrame, qrels: pd.DataFrame, health: DataHealth, tables: list[LoadedTable]
) -> None:
    """Stage 5: refuse a data set left without rows (or judgments) once unusable rows are
    dropped, saying what was dropped and why."""
    if len(run) and len(qrels):
        return
    warnings = [f for f in health.findings if f.severity == "warning"]
    dropped = [f.message for f in warnings]
    what = "rows in the run" if not len(run) else "judgments"
    reason = f"no usable {what} are left once unusable ones are dropped" + (
        ". Dropped: " + " ".join(d.rstrip(".") + "." for d in dropped).rstrip(".")
        if dropped
        else ""
    )
    table = tables[0]
    raise _unusable(
        table,
        reason,
        "Fill in the query id, item id and score (or rank) of every result, and a label for "
        "every judgment.",
        "no_run_rows_left" if not len(run) else "no_judgments_left",
        {"dropped": warnings},
    )


def _reading_findings(tables: list[LoadedTable]) -> list[Finding]:
    """What the TREC reader skipped (text after the last field, comment lines), once per file."""
    return [
        Finding(code, "info", params, int(str(params.get("n", 0))), source=table.name)
        for table in tables
        for code, params in table.reading
    ]


def _query_table_roles(qt: LoadedTable, run: pd.DataFrame) -> RoleMapping:
    """The query column of a query table, guessed from names and from the run's query ids
    (:func:`~metrics.io.roles.guess_query_table`), and every other column as a segment.

    Raises
    ------
    InputError
        Without a column that can be the query id, or when two could be.
    """
    guesses = guess_query_table(qt.frame, run[QUERY].dropna())
    if QUERY not in guesses:
        raise InputError(
            "The query table has no query column.",
            source=qt.name,
            fix="Name the query id column 'query' (or qid, user_id, ...).",
            code="query_table_without_query",
        )
    refuse_doubtful_guesses(qt.frame, guesses, source=qt.name)
    query_col = guesses[QUERY].column
    return RoleMapping(
        query=query_col,
        segments=tuple(str(c) for c in qt.frame.columns if str(c) != query_col),
    )


def _segments(
    run: pd.DataFrame, queries: LoadedTable | str | Path | None, mappings: dict[str, MappingLike]
) -> tuple[pd.DataFrame | None, list[Finding], tuple[str, ...]]:
    """The segment table (inline segments of the run and the query table's), the findings on
    it, and the query table's columns read as segments."""
    inline = [c for c in run.columns if c not in ROLES]
    frames = []
    if inline:
        frames.append(run.groupby(QUERY, sort=False, as_index=False)[inline].first())
    findings: list[Finding] = []
    read: tuple[str, ...] = ()
    if queries is not None:
        qt = _as_table(queries)
        mapping = mappings.get(qt.name)
        roles = RoleMapping.coerce(mapping) if mapping is not None else None
        if roles is None:
            roles = _query_table_roles(qt, run)
        read = roles.segments
        meta = apply_roles(
            qt.frame, RoleMapping(query=roles.query, segments=roles.segments), source=qt.name
        )
        meta = meta[meta[QUERY].notna()]
        findings += _segment_findings(meta)
        meta = meta.groupby(QUERY, sort=False, as_index=False).first()
        findings += _metadata_coverage(run, meta, qt.name)
        if frames:
            base = frames[0]
            meta = base.drop(
                columns=[c for c in base.columns if c in meta.columns and c != QUERY]
            ).merge(meta, on=QUERY, how="outer", sort=False)
            frames = []
        frames.append(meta)
    if not frames:
        return None, findings, read
    return frames[0].reset_index(drop=True), findings, read


def query_segments(
    queries: LoadedTable | str | Path, query_ids: Sequence[str] | pd.Series
) -> pd.DataFrame | None:
    """The segment table (``query`` plus segment columns) of a query metadata table, built as
    :func:`load_dataset` builds it for a run whose queries are ``query_ids`` and which has no
    segment columns of its own: what per-query values computed elsewhere (``--engine spark``)
    are segmented by.

    Raises
    ------
    InputError
        When the table cannot be read or has no query column.
    """
    run = pd.DataFrame({QUERY: pd.Series(list(query_ids), dtype=object)})
    segments, _, _ = _segments(run, queries, {})
    return visible_frame(segments) if segments is not None else None


def _metadata_coverage(run: pd.DataFrame, meta: pd.DataFrame, source: str) -> list[Finding]:
    """Run queries absent from the query table (warning) and the other way round (info)."""
    ids = run[QUERY][run[QUERY].notna()].astype("str")
    run_queries = pd.Index(pd.unique(ids[ids.str.strip() != ""]))
    meta_queries = pd.Index(pd.unique(meta[QUERY].astype("str")))
    findings: list[Finding] = []
    unknown = run_queries.difference(meta_queries, sort=False)
    if len(unknown):
        findings.append(
            Finding(
                "queries_missing_metadata",
                "warning",
                {"n": len(unknown), "total": len(run_queries)},
                len(unknown),
                tuple({"id": str(q)} for q in unknown[:5]),
                source=source,
                column=QUERY,
            )
        )
    unused = meta_queries.difference(run_queries, sort=False)
    if len(unused):
        findings.append(
            Finding(
                "metadata_queries_not_in_run",
                "info",
                {"n": len(unused), "total": len(meta_queries)},
                len(unused),
                tuple({"id": str(q)} for q in unused[:5]),
                source=source,
                column=QUERY,
            )
        )
    return findings


def _clean_run(run: pd.DataFrame, segments: pd.DataFrame | None) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows with ids and a score, core columns first, then the segments by query; and the
    mask of the rows kept."""
    keep = run[QUERY].notna() & run[ITEM].notna() & run[SCORE].notna()
    keep &= (run[QUERY] != "") & (run[ITEM] != "")
    core = [c for c in (QUERY, ITEM, SCORE, RANK, MODEL) if c in run.columns]
    out = run.loc[keep, core].reset_index(drop=True)
    if segments is not None:
        indexed = segments.set_index(QUERY)
        for col in indexed.columns:
            out[col] = out[QUERY].map(indexed[col])
    return out, keep.to_numpy(dtype=bool)


__all__ = [
    "DataHealth",
    "Finding",
    "Guess",
    "LoadedTable",
    "RoleMapping",
    "guess_roles",
    "load_dataset",
    "load_table",
    "validate",
]
