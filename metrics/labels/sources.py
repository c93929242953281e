"""Several label sources over the same (query, item) pairs, each named, with its provenance.

A *label source* is one set of relevance labels: an annotator, clicks, an LLM judge. Sources
come as several label columns of one table (:func:`sources_from_columns`) or as several
judgment files or tables (:func:`sources_from_judgments`; :func:`read_sources` reads either
from files). They are held side by side in :class:`LabelSources`: one row per (query, item)
pair that any source names, one column of grades per source, ``NaN`` where a source gave no
label (an empty cell, or a pair it does not list). A grade is never made up for a missing label:
"not judged" and "judged not relevant" stay apart.

Provenance (:class:`Provenance`): who or what gave a source's labels, read from columns where
the file gives them (:data:`PROVENANCE_COLUMNS`: the kind of labeller, the judge model, the
prompt or its hash, the label scale, the date). In a table of several label columns, a
provenance column belongs to one source by the label column's name as a prefix
(``llm_judge_model`` for the column ``llm``). When one source mixes labels of people and of
machines (a kind column with both, or a judge model given on some rows only), a
``mixed_label_kinds`` warning (:class:`~metrics.io.findings.Finding`) says so: filling the holes
of human judgments with a model's can favour or penalise new runs.

Aggregates: :data:`AGGREGATE` names how several sources make one label per item (majority,
mean, median, max, min); :meth:`LabelSources.qrels` gives the judgments of one source or of an
aggregate, as :func:`metrics.evaluate` takes them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.ids import id_codes
from metrics.engine.settings import LABEL_AGGREGATES, POLICIES, Policy, Settings
from metrics.errors import InputError, SettingsError
from metrics.io.canonical import canonical_qrels, canonical_run
from metrics.io.dataset import Dataset
from metrics.io.findings import Finding
from metrics.io.formats import LoadedTable, file_stem, load_table
from metrics.io.roles import RoleMapping, guess_roles, id_strings
from metrics.io.samples import SAMPLES, sample_directory
from metrics.schema import normalize_name

#: The kinds of labeller a kind column names, by the words that name them (matched in lower
#: case, ``_`` and ``-`` read as spaces).
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "human": (
        "human",
        "person",
        "people",
        "annotator",
        "assessor",
        "editor",
        "expert",
        "crowd",
        "crowdworker",
        "crowd worker",
        "rater",
        "manual",
    ),
    "machine": (
        "machine",
        "llm",
        "llm judge",
        "model",
        "ai",
        "automatic",
        "auto",
        "synthetic",
        "gpt",
        "classifier",
    ),
}
HUMAN, MACHINE = "human", "machine"

#: Provenance fields and the column names (normalised, :func:`~metrics.schema.normalize_name`)
#: that give them. A ``prompt`` column holding the prompt's text is recorded as its hash.
PROVENANCE_COLUMNS: dict[str, tuple[str, ...]] = {
    "kind": (
        "kind",
        "label_kind",
        "judge_kind",
        "judge_type",
        "annotator_type",
        "rater_type",
        "labeler_type",
        "labeller_type",
        "label_origin",
    ),
    "judge_model": ("judge_model", "llm_model", "judge", "model_id"),
    "prompt_hash": ("prompt_hash", "prompt_sha256", "prompt_sha", "prompt_id"),
    "scale": ("scale", "label_scale", "grade_scale"),
    "date": (
        "date",
        "judged_at",
        "judgment_date",
        "labelled_at",
        "labeled_at",
        "timestamp",
        "created_at",
    ),
}
#: Columns holding a prompt's text: recorded as its hash (:func:`prompt_hash`).
PROMPT_TEXT_COLUMNS = ("prompt", "prompt_text", "prompt_template")

#: How several sources make one label per item: the aggregates of the ``label_source`` policy
#: (:data:`~metrics.engine.settings.POLICIES`), recorded with a review.
AGGREGATE = Policy(
    "label_aggregate",
    "Label aggregate",
    "How the labels of several sources make one label per (query, item): from the sources "
    "that judged it; an item no source judged stays unjudged.",
    {name: POLICIES["label_source"].values[name] for name in LABEL_AGGREGATES},
    "majority",
)
AGGREGATES: tuple[str, ...] = tuple(AGGREGATE.values)


@dataclass(frozen=True)
class Provenance:
    """Who or what gave one source's labels: the distinct values its file gives, in order of
    first appearance (empty when the file does not say).

    Attributes
    ----------
    kind:
        ``human`` and/or ``machine`` (:data:`KIND_WORDS`), or the words given.
    judge_model:
        The judge model (an LLM's name and version).
    prompt_hash:
        The hash of the judge's prompt (the first 12 hex digits of its SHA-256 when the file
        gives the prompt's text).
    scale:
        The label scale (``0-3``, ``none/partial/good/perfect``).
    date:
        When the labels were given.
    """

    kind: tuple[str, ...] = ()
    judge_model: tuple[str, ...] = ()
    prompt_hash: tuple[str, ...] = ()
    scale: tuple[str, ...] = ()
    date: tuple[str, ...] = ()

    def record(self) -> dict[str, str]:
        """The record as text: each field's values joined by ``"; "`` (``""`` when unknown)."""
        return {f.name: "; ".join(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def coerce(cls, value: Provenance | Mapping[str, object]) -> Provenance:
        """A provenance from a mapping of fields to a value or a sequence of values."""
        if isinstance(value, Provenance):
            return value
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise SettingsError(
                f"unknown provenance field(s) {', '.join(unknown)}; known: {', '.join(known)}."
            )
        given: dict[str, tuple[str, ...]] = {}
        for name, values in value.items():
            many = isinstance(values, Sequence) and not isinstance(values, str)
            seq: Sequence[object] = values if many else (values,)  # type: ignore[assignment]
            given[name] = tuple(str(v) for v in seq if v is not None and str(v) != "")
        return cls(**given)


@dataclass(frozen=True, eq=False)
class LabelSources:
    """Several label sources side by side.

    Attributes
    ----------
    table:
        ``query``, ``item``, then one float column of grades per source (``NaN``: the source
        gave no label), one row per (query, item) pair any source names, in order of first
        appearance.
    provenance:
        The provenance of each source, by name.
    findings:
        Warnings on the sources (``mixed_label_kinds``).
    files:
        The file each source was read from, by name (empty for tables given in memory).
    """

    table: pd.DataFrame
    provenance: Mapping[str, Provenance] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the sources' names and grades: two sources with the same fingerprint
        hold the same labels (caches key on it)."""
        digest = hashlib.sha256(repr(self.names).encode())
        digest.update(pd.util.hash_pandas_object(self.table, index=False).to_numpy().tobytes())
        return digest.hexdigest()[:16]

    @property
    def names(self) -> tuple[str, ...]:
        """The sources' names, in order."""
        return tuple(str(c) for c in self.table.columns[2:])

    def grades(self, names: Sequence[str] | None = None) -> np.ndarray:
        """The grades as an array of pairs × sources (``NaN`` where not judged)."""
        chosen = list(self.names if names is None else names)
        out: np.ndarray = self.table[chosen].to_numpy(dtype=np.float64)
        return out

    def qrels(self, choice: str) -> pd.DataFrame:
        """The judgments of one source, or of an aggregate of all of them (a value of
        :data:`AGGREGATES` that is not a source's name), as :func:`metrics.evaluate` takes
        them: ``query``, ``item``, ``relevance``, only the pairs with a label.

        Raises
        ------
        SettingsError
            When ``choice`` is neither a source nor an aggregate.
        """
        self.check_choice(choice)
        if choice in self.names:
            grades = self.table[choice].to_numpy(dtype=np.float64)
        else:
            grades = aggregate_grades(self.grades(), choice)
        keep = ~np.isnan(grades)
        return pd.DataFrame(
            {
                S.QUERY: self.table[S.QUERY].to_numpy()[keep],
                S.ITEM: self.table[S.ITEM].to_numpy()[keep],
                S.RELEVANCE: grades[keep],
            }
        )

    def chosen(self, choice: str | None) -> pd.DataFrame:
        """The judgments under the ``label_source`` policy
        (:attr:`~metrics.engine.settings.Settings.label_source`): the source of that name, an
        aggregate of all of them, or, for ``None``, the first source (:meth:`qrels`)."""
        return self.qrels(self.names[0] if choice is None else choice)

    def check_choice(self, choice: str | None) -> None:
        """Refuse a ``label_source`` that is neither a source's name nor an aggregate.

        Raises
        ------
        SettingsError
            Naming the sources and the aggregates.
        """
        if choice is not None and choice not in self.names and choice not in AGGREGATES:
            raise SettingsError(
                f"the label source {choice!r} is neither a label source "
                f"({', '.join(self.names)}) nor an aggregate ({', '.join(AGGREGATES)})."
            )

    def with_aggregate(self, policy: str, name: str | None = None) -> LabelSources:
        """These sources and one more: their aggregate under ``policy`` (named ``name``, the
        policy's value by default)."""
        name = policy if name is None else name
        if name in self.names:
            raise SettingsError(f"there is already a label source named {name!r}.")
        table = self.table.copy()
        table[name] = aggregate_grades(self.grades(), policy)
        provenance = {**self.provenance, name: Provenance(kind=(f"aggregate: {policy}",))}
        return LabelSources(table, provenance, self.findings, self.files)

    def summary(self) -> pd.DataFrame:
        """One row per source: ``source``, ``file``, ``judged`` (pairs with a label),
        ``queries`` (with at least one label), ``mixed`` (a ``mixed_label_kinds`` warning),
        then the provenance fields as text (:meth:`Provenance.record`)."""
        mixed = {f.params.get("name") for f in self.findings if f.code == "mixed_label_kinds"}
        rows = []
        for name in self.names:
            judged = self.table[name].notna().to_numpy()
            rows.append(
                {
                    "source": name,
                    "file": self.files.get(name, ""),
                    "judged": int(judged.sum()),
                    "queries": int(pd.unique(self.table[S.QUERY].to_numpy()[judged]).size),
                    "mixed": name in mixed,
                    **self.provenance.get(name, Provenance()).record(),
                }
            )
        columns = ["source", "file", "judged", "queries", "mixed", *Provenance().record()]
        return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- aggregates


def aggregate_grades(grades: np.ndarray, policy: str) -> np.ndarray:
    """One grade per row of ``grades`` (pairs × sources, ``NaN`` where not judged) under an
    aggregate policy (:data:`AGGREGATE`); ``NaN`` for a row no source judged.

    Examples
    --------
    >>> g = np.array([[0, 2, 2], [1, np.nan, 3], [np.nan, np.nan, np.nan], [0, 1, np.nan]])
    >>> aggregate_grades(g, "majority").tolist()[:2], aggregate_grades(g, "median").tolist()[1]
    ([2.0, 1.0], 2.0)
    """
    if policy not in AGGREGATE.values:
        raise SettingsError(
            f"the label aggregate must be one of {', '.join(AGGREGATES)}; got {policy!r}."
        )
    grades = np.asarray(grades, dtype=np.float64)
    out = np.full(grades.shape[0], np.nan)
    judged = ~np.isnan(grades)
    rows = judged.any(axis=1)
    part = grades[rows]
    if not part.size:
        return out
    if policy == "mean":
        out[rows] = np.nansum(part, axis=1) / judged[rows].sum(axis=1)
    elif policy == "median":
        out[rows] = np.nanmedian(part, axis=1)
    elif policy == "max":
        out[rows] = np.nanmax(part, axis=1)
    elif policy == "min":
        out[rows] = np.nanmin(part, axis=1)
    else:
        values, codes = np.unique(part[~np.isnan(part)], return_inverse=True)
        counts = np.zeros((part.shape[0], len(values)), dtype=np.int64)
        row_of = np.nonzero(~np.isnan(part))[0]
        np.add.at(counts, (row_of, codes), 1)
        out[rows] = values[np.argmax(counts, axis=1)]  # first of the largest: the lowest grade
    return out


# --------------------------------------------------------------------------- provenance


def prompt_hash(text: str) -> str:
    """The hash recorded for a prompt's text: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


_KIND_OF: dict[str, str] = {word: kind for kind, words in KIND_WORDS.items() for word in words}


def label_kinds(values: pd.Series) -> pd.Series:
    """``human`` or ``machine`` for each word of :data:`KIND_WORDS` (matched in lower case,
    ``_`` and ``-`` read as spaces), ``""`` for any other value."""
    words = values.astype("str").str.replace(r"[\s_\-]+", " ", regex=True).str.strip().str.lower()
    return words.map(_KIND_OF).fillna("").astype(object)


def _text(values: pd.Series) -> np.ndarray:
    """A column as stripped text, ``""`` where missing."""
    text = id_strings(values).fillna("").astype("str").str.strip()
    out: np.ndarray = text.to_numpy(dtype=object)
    return out


def _distinct(values: np.ndarray) -> tuple[str, ...]:
    return tuple(str(v) for v in pd.unique(values) if str(v))


def provenance_columns(frame: pd.DataFrame, prefix: str | None = None) -> dict[str, str]:
    """The provenance field of each column of ``frame`` that gives one: by its name
    (:data:`PROVENANCE_COLUMNS`, :data:`PROMPT_TEXT_COLUMNS`), preceded by ``prefix_`` when
    a prefix (a label column's name) is given."""
    head = "" if prefix is None else normalize_name(prefix) + "_"
    wanted = {head + name: f for f, names in PROVENANCE_COLUMNS.items() for name in names}
    wanted |= {head + name: "prompt_text" for name in PROMPT_TEXT_COLUMNS}
    found: dict[str, str] = {}
    for column in frame.columns:
        role = wanted.get(normalize_name(column))
        if role is not None and role not in found.values():
            found[str(column)] = role
    return found


def read_provenance(
    frame: pd.DataFrame, rows: np.ndarray, prefix: str | None = None
) -> tuple[Provenance, np.ndarray]:
    """The provenance of one source from the columns of ``frame`` that give it, over the rows
    where ``rows`` is true (those with a label), and the kind of each of those rows
    (``human``, ``machine`` or ``""``).

    A kind column gives the kinds; without one, a judge-model column gives ``machine`` where it
    names a model and ``human`` where it is empty (labels a model filled in among people's).
    """
    given: dict[str, tuple[str, ...]] = {}
    kinds = np.full(int(rows.sum()), "", dtype=object)
    judge: np.ndarray | None = None
    for column, role in provenance_columns(frame, prefix).items():
        text = _text(frame[column])[rows]
        if role == "prompt_text":
            given["prompt_hash"] = tuple(prompt_hash(t) for t in _distinct(text))
            continue
        given[role] = _distinct(text)
        if role == "kind":
            read = label_kinds(pd.Series(text, dtype=object))
            kinds = read.to_numpy(dtype=object)
            named = read.where(read != "", pd.Series(text, dtype=object))
            given["kind"] = _distinct(named.to_numpy(dtype=object))
        elif role == "judge_model":
            judge = text
    if "kind" not in given and judge is not None and (judge != "").any():
        kinds = np.where(judge != "", MACHINE, HUMAN).astype(object)
        given["kind"] = _distinct(kinds)
    return Provenance(**given), kinds


def mixed_kinds_finding(name: str, kinds: np.ndarray, source: str | None) -> Finding | None:
    """The ``mixed_label_kinds`` warning when the labels of source ``name`` are by both people
    and machines (``None`` otherwise)."""
    human = int(np.count_nonzero(kinds == HUMAN))
    machine = int(np.count_nonzero(kinds == MACHINE))
    if not human or not machine:
        return None
    return Finding(
        "mixed_label_kinds",
        "warning",
        {"name": name, "human": human, "machine": machine},
        human + machine,
        source=source,
    )


# --------------------------------------------------------------------------- building sources


#: Names a source cannot take: the columns the tables put beside the sources' grades.
RESERVED_NAMES = (S.QUERY, S.ITEM, "difference", "judged")


def _check_names(names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if not name.strip():
            raise InputError(
                "A label source has an empty name.", fix="Give every source a name (--name)."
            )
        if name in RESERVED_NAMES:
            raise InputError(
                f"A label source cannot be named {name!r}.", fix="Give it another name (--name)."
            )
        if name in seen:
            raise InputError(
                f"Two label sources are named {name!r}.",
                fix="Give each source its own name (--name).",
            )
        seen.add(name)


def _side_by_side(parts: Sequence[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The wide table of :class:`LabelSources` from each source's judgments (``query``,
    ``item``, ``relevance``); a pair a source judged twice keeps its highest label."""
    names = [name for name, _ in parts]
    _check_names(names)
    query = pd.concat([id_strings(f[S.QUERY]) for _, f in parts], ignore_index=True)
    item = pd.concat([id_strings(f[S.ITEM]) for _, f in parts], ignore_index=True)
    grades = np.concatenate([f[S.RELEVANCE].to_numpy(dtype=np.float64) for _, f in parts])
    source = np.repeat(np.arange(len(parts)), [len(f) for _, f in parts])
    keep = (query.notna() & item.notna() & (query != "") & (item != "")).to_numpy()
    q_codes, q_ids = pd.factorize(query[keep])
    i_codes, i_ids = pd.factorize(item[keep])
    pair_codes, pairs = pd.factorize(q_codes.astype(np.int64) * max(len(i_ids), 1) + i_codes)
    table = np.full((len(pairs), len(parts)), np.nan)
    np.fmax.at(table, (pair_codes, source[keep]), grades[keep])
    width = max(len(i_ids), 1)
    out = pd.DataFrame(
        {
            S.QUERY: np.asarray(q_ids, dtype=object)[pairs // width],
            S.ITEM: np.asarray(i_ids, dtype=object)[pairs % width],
        }
    )
    for j, name in enumerate(names):
        out[name] = table[:, j]
    return out


def _frame_of(table: LoadedTable | pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    if isinstance(table, LoadedTable):
        return table.frame, table.name
    return table, table.attrs.get("source")


def _provenance_given(
    names: Sequence[str],
    found: dict[str, Provenance],
    given: Mapping[str, Provenance | Mapping[str, object]] | None,
) -> dict[str, Provenance]:
    out = dict(found)
    for name, value in (given or {}).items():
        if name not in names:
            raise SettingsError(
                f"provenance for {name!r}, which is not a label source ({', '.join(names)})."
            )
        out[name] = Provenance.coerce(value)
    return out


def _id_roles(frame: pd.DataFrame, labels: Sequence[str], source: str | None) -> RoleMapping:
    """The query and item columns of a table of label columns (guessed from the others)."""
    rest = frame.drop(columns=list(labels))
    roles = RoleMapping.from_guesses(guess_roles(rest)) if len(rest.columns) else RoleMapping()
    for role in ("query", "item"):
        if getattr(roles, role) is None:
            raise InputError(
                f"The table has no {role} column beside the label columns.",
                source=source,
                fix=f"Give the table a header row that names the {role} column "
                f"({role}, {'qid' if role == 'query' else 'docid'}, ...).",
            )
    return roles


def sources_from_columns(
    table: LoadedTable | pd.DataFrame,
    columns: Sequence[str],
    names: Sequence[str] | None = None,
    *,
    query: str | None = None,
    item: str | None = None,
    label_map: Mapping[str, float] | None = None,
    provenance: Mapping[str, Provenance | Mapping[str, object]] | None = None,
) -> LabelSources:
    """Label sources from several label columns of one table.

    Parameters
    ----------
    table:
        A loaded table, or a frame.
    columns:
        The label columns, one per source (at least one). Labels may be numbers or the words
        of a known scale (:mod:`metrics.io.labels`); an empty cell is not judged.
    names:
        The sources' names (the column names by default).
    query, item:
        The id columns; guessed from the other columns when ``None``.
    label_map:
        Grades of text labels (``{"relevant": 1, "not relevant": 0}``), for every column.
    provenance:
        Provenance records by source name, over what the columns give
        (``<column>_judge_model``, ``<column>_date``, ...: :data:`PROVENANCE_COLUMNS`).

    Raises
    ------
    InputError
        For a missing column, labels that are not numbers (naming the line), or names that
        repeat.
    """
    frame, source = _frame_of(table)
    columns = [str(c) for c in columns]
    missing = [c for c in columns if c not in frame.columns]
    if missing or not columns:
        raise InputError(
            f"The table has no label column {missing[0]!r}."
            if missing
            else "No label column was named.",
            source=source,
            column=missing[0] if missing else None,
            fix=f"Name label columns of the table: {', '.join(map(str, frame.columns))}.",
        )
    names = [str(n) for n in (names or columns)]
    if len(names) != len(columns):
        raise InputError(
            f"{len(names)} names for {len(columns)} label columns.",
            source=source,
            fix="Give one name per label column, in the same order.",
        )
    if query is None or item is None:
        roles = _id_roles(frame, columns, source)
        query, item = query or roles.query, item or roles.item
    parts, found, findings = [], {}, []
    for column, name in zip(columns, names):
        mapping = RoleMapping(query=query, item=item, label=column)
        qrels = canonical_qrels(table, mapping, label_map=label_map)
        parts.append((name, qrels))
        judged = qrels[S.RELEVANCE].notna().to_numpy()
        found[name], kinds = read_provenance(frame, judged, prefix=column)
        finding = mixed_kinds_finding(name, kinds, source)
        if finding is not None:
            findings.append(finding)
    files = {name: source for name in names} if source else {}
    return LabelSources(
        _side_by_side(parts),
        _provenance_given(names, found, provenance),
        tuple(findings),
        files,
    )


def sources_from_judgments(
    judgments: Sequence[LoadedTable | pd.DataFrame],
    names: Sequence[str] | None = None,
    *,
    label_map: Mapping[str, float] | None = None,
    provenance: Mapping[str, Provenance | Mapping[str, object]] | None = None,
    mappings: Sequence[RoleMapping | None] | None = None,
    label_maps: Sequence[Mapping[str, float] | None] | None = None,
) -> LabelSources:
    """Label sources from several judgment tables, one per source.

    Parameters
    ----------
    judgments:
        Loaded tables or frames (TREC qrels, or tables whose query, item and label columns are
        guessed as for any judgments file). Their provenance columns (:data:`PROVENANCE_COLUMNS`)
        are read.
    names:
        The sources' names (by default each file's name without its extensions, or
        ``source 1``, ``source 2``, ... for frames without a name).
    label_map:
        Grades of text labels, for every table.
    provenance:
        Provenance records by source name, over what the tables give.
    mappings:
        Each table's column roles (``query``, ``item``, ``label``), in the tables' order;
        guessed for a table without one.
    label_maps:
        Each table's grades of text labels, in the tables' order, over ``label_map``.

    Raises
    ------
    InputError
        For unusable tables (naming the file and line) and names that repeat.
    """
    tables = list(judgments)
    roles = list(mappings) if mappings is not None else [None] * len(tables)
    grades = list(label_maps) if label_maps is not None else [None] * len(tables)
    if len(roles) != len(tables) or len(grades) != len(tables):
        raise SettingsError(
            f"{len(roles)} role mappings and {len(grades)} label maps for "
            f"{len(tables)} judgment tables; give one of each per table."
        )
    if names is None:
        names = [
            file_stem(src) if src else f"source {i}"
            for i, (_, src) in enumerate(map(_frame_of, tables), 1)
        ]
    names = [str(n) for n in names]
    if len(names) != len(tables):
        raise InputError(
            f"{len(names)} names for {len(tables)} judgment files.",
            fix="Give one name per judgment file, in the same order (--name).",
        )
    parts, found, findings, files = [], {}, [], {}
    for table, name, mapping, grades_of in zip(tables, names, roles, grades):
        frame, source = _frame_of(table)
        qrels = canonical_qrels(table, mapping, label_map=grades_of or label_map)
        parts.append((name, qrels))
        judged = qrels[S.RELEVANCE].notna().to_numpy()
        found[name], kinds = read_provenance(frame, judged)
        finding = mixed_kinds_finding(name, kinds, source)
        if finding is not None:
            findings.append(finding)
        if source:
            files[name] = source
    return LabelSources(
        _side_by_side(parts),
        _provenance_given(names, found, provenance),
        tuple(findings),
        files,
    )


def under_label_source(dataset: Dataset, sources: LabelSources, settings: Settings) -> Dataset:
    """``dataset`` with the judgments of ``settings.label_source`` (the first source for
    ``None``): the same runs, segments and health, the chosen source's (or aggregate's)
    judgments, and a content hash of its own.

    Raises
    ------
    SettingsError
        For a label source that is neither a source nor an aggregate.
    """
    qrels = sources.chosen(settings.label_source)
    for column in (S.QUERY, S.ITEM):  # the ids as the data set holds them (arrow strings)
        qrels[column] = qrels[column].astype(dataset.qrels[column].dtype)
    ids = id_codes(dataset.run[S.QUERY], dataset.run[S.ITEM], qrels[S.QUERY], qrels[S.ITEM])
    return replace(dataset, qrels=qrels, ids=ids)


def sample_sources(name: str, *, directory: str | Path | None = None) -> LabelSources | None:
    """The label sources of a bundled sample (:data:`~metrics.io.samples.SAMPLES`), each
    named after its file; ``None`` for a sample with one set of judgments."""
    spec = SAMPLES.get(name)
    if spec is None or not spec.label_sources:
        return None
    base = Path(directory) if directory is not None else sample_directory()
    tables = [load_table(base / path, path) for path in spec.label_sources]
    return sources_from_judgments(tables)


def run_from_table(
    table: LoadedTable | pd.DataFrame, label_columns: Sequence[str]
) -> pd.DataFrame | None:
    """The run a table of label columns holds beside them (its rows with a score or a rank, as
    :func:`~metrics.io.canonical.canonical_run` reads them), or ``None`` when it has neither a
    score nor a rank column."""
    frame, source = _frame_of(table)
    roles = _id_roles(frame, [str(c) for c in label_columns], source)
    if roles.score is None and roles.rank is None:
        return None
    ranked = RoleMapping(roles.query, roles.item, roles.score, roles.rank, model=roles.model)
    run = canonical_run(table, ranked)
    return run[run[S.SCORE].notna()].reset_index(drop=True)


def guess_label_columns(frame: pd.DataFrame, roles: RoleMapping) -> list[str]:
    """The columns of ``frame`` besides its label column that read as labels too (several
    label sources in one table): each column the role guesser reads as the label of a table of
    the query column, the item column and that column alone, in the table's order. The columns
    of ``roles`` and the provenance columns are not candidates.

    Examples
    --------
    >>> t = pd.DataFrame({"q": list("111122223333"), "d": list("abcd") * 3,
    ...                   "human": [0, 2, 1, 3] * 3, "llm": [1, 2, 1, 3] * 3,
    ...                   "llm_judge_model": ["m"] * 12})
    >>> guess_label_columns(t, RoleMapping(query="q", item="d", label="human"))
    ['llm']
    """
    if roles.query is None or roles.item is None:
        return []
    taken = {*roles.columns().values(), *roles.segments}
    taken |= set(provenance_columns(frame))
    for column in frame.columns:
        taken |= set(provenance_columns(frame, prefix=str(column)))
    found = []
    for column in frame.columns:
        if column in taken:
            continue
        guessed = guess_roles(frame[[roles.query, roles.item, column]])
        if guessed.get("label") is not None and guessed["label"].column == column:
            found.append(str(column))
    return found


def is_judgments(table: LoadedTable) -> bool:
    """Whether a loaded table holds judgments rather than a run: a TREC qrels file, or a table
    whose guessed roles have neither a score nor a rank column."""
    if table.kind != "table":
        return table.kind == "qrels"
    roles = RoleMapping.from_guesses(guess_roles(table.frame))
    return roles.score is None and roles.rank is None


def read_sources(
    paths: Sequence[str | Path],
    names: Sequence[str] | None = None,
    *,
    label_columns: Sequence[str] = (),
    label_map: Mapping[str, float] | None = None,
) -> LabelSources:
    """Label sources read from files: one judgments file per source, or, with
    ``label_columns``, one table holding a label column per source.

    Raises
    ------
    InputError
        For unreadable files (naming the file and line), a missing label column, or
        ``label_columns`` with more than one file.
    """
    if label_columns:
        if len(paths) != 1:
            raise InputError(
                f"Label columns name the columns of one table; {len(paths)} files were given.",
                fix="Give the one table that holds the label columns.",
            )
        table = load_table(paths[0], Path(paths[0]).name)
        return sources_from_columns(table, label_columns, names, label_map=label_map)
    tables = [load_table(p, Path(p).name) for p in paths]
    return sources_from_judgments(tables, names, label_map=label_map)


__all__ = [
    "AGGREGATE",
    "AGGREGATES",
    "HUMAN",
    "KIND_WORDS",
    "MACHINE",
    "PROMPT_TEXT_COLUMNS",
    "PROVENANCE_COLUMNS",
    "RESERVED_NAMES",
    "LabelSources",
    "Provenance",
    "aggregate_grades",
    "guess_label_columns",
    "is_judgments",
    "label_kinds",
    "mixed_kinds_finding",
    "prompt_hash",
    "provenance_columns",
    "read_provenance",
    "read_sources",
    "run_from_table",
    "sample_sources",
    "sources_from_columns",
    "sources_from_judgments",
    "under_label_source",
]
