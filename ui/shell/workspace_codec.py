"""What a browser's workspace keeps of a session, as tables and JSON, and back (no Streamlit).

A workspace (:mod:`metrics.store.workspaces`) holds tables by name and settings as JSON. The
app keeps there:

- the uploaded files as read (:class:`~metrics.io.formats.LoadedTable`: the table, and what was
  learnt reading it, so that messages name the same lines after a restore), under
  ``upload:<kind>:<i>``, with the rows read as blank lines or the word ``none`` in
  ``upload:<kind>:<i>:cells``;
- the column roles and label grades the uploaded data set was built with, and the role menus of
  the Data page as the user left them;
- the hand-built lists (``handbuilt``);
- the link's parameters: the view (data set, measures, K, every policy, language) and the pages'
  own choices (baseline, candidates, open tab, ...), the same parameters a link carries.

:func:`signature` tells two states apart without comparing tables, so that a page run saves only
when something changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from metrics.io.formats import LoadedTable
from metrics.io.roles import RoleMapping

#: The version of :class:`SessionState`'s JSON (a later one may read this one).
FORMAT = 1
#: The kinds of uploaded tables, as the Data page names them.
UPLOAD_KINDS = ("runs", "judgments", "queries")
#: The workspace table of the hand-built lists.
HANDBUILT_TABLE = "handbuilt"
#: The link parameter of a review link; never kept in a workspace.
REVIEW_PARAM = "review"
_CELLS = ":cells"
_SKIPPED, _NONE = "skipped", "none"


@dataclass(frozen=True)
class Upload:
    """The session's upload: its tables by kind, the roles and grades its data set was built
    with (``None`` before a data set was built), and the Data page's role menus."""

    tables: Mapping[str, Sequence[LoadedTable]]
    mappings: Mapping[str, RoleMapping] | None = None
    label_maps: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    menus: Mapping[str, Any] = field(default_factory=dict)

    @property
    def runs(self) -> list[LoadedTable]:
        """The run tables."""
        return list(self.tables.get("runs", ()))

    def first(self, kind: str) -> LoadedTable | None:
        """The table of ``kind`` (``judgments``, ``queries``), when there is one."""
        found = self.tables.get(kind, ())
        return found[0] if found else None


@dataclass(frozen=True)
class SessionState:
    """What a workspace keeps of a session (see the module's docstring)."""

    params: Mapping[str, str] = field(default_factory=dict)
    active: str | None = None
    upload: Upload | None = None
    handbuilt: pd.DataFrame | None = None


def _cells(table: LoadedTable) -> pd.DataFrame | None:
    """The lines read as blank and the cells read as the word ``none``, as one table."""
    what: list[str] = [_SKIPPED] * len(table.skipped_lines)
    columns: list[str] = [""] * len(table.skipped_lines)
    rows: list[int] = [int(line) for line in table.skipped_lines]
    for column, found in table.none_cells.items():
        what += [_NONE] * len(found)
        columns += [str(column)] * len(found)
        rows += [int(row) for row in found]
    if not rows:
        return None
    return pd.DataFrame({"what": what, "column": columns, "row": np.asarray(rows, dtype=np.int64)})


def _plain(value: object) -> Any:
    """``value`` as JSON holds it (numbers, text, lists, objects; anything else as text)."""
    return json.loads(json.dumps(value, default=str))


def _described(table: LoadedTable, kind: str, name: str) -> dict[str, Any]:
    return {
        "table": name,
        "kind": kind,
        "name": table.name,
        "format": table.format,
        "read_as": table.kind,
        "compressed": table.compressed,
        "encoding": table.encoding,
        "header": table.header,
        "first_line": table.first_line,
        "notes": list(table.notes),
        "reading": [[code, _plain(params)] for code, params in table.reading],
    }


def mapping_json(mapping: RoleMapping) -> dict[str, Any]:
    """A role mapping as JSON (its segments as a list)."""
    values = asdict(mapping)
    values["segments"] = list(mapping.segments)
    return values


def encode(state: SessionState) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The workspace tables and settings (JSON) of ``state``."""
    tables: dict[str, pd.DataFrame] = {}
    settings: dict[str, Any] = {
        "format": FORMAT,
        "params": {k: str(v) for k, v in state.params.items() if k != REVIEW_PARAM},
        "upload": None,
        "handbuilt": state.handbuilt is not None,
    }
    if state.upload is not None:
        described = []
        for kind in UPLOAD_KINDS:
            for i, table in enumerate(state.upload.tables.get(kind, ())):
                name = f"upload:{kind}:{i}"
                tables[name] = table.frame
                cells = _cells(table)
                if cells is not None:
                    tables[name + _CELLS] = cells
                described.append(_described(table, kind, name))
        mappings = state.upload.mappings
        settings["upload"] = {
            "tables": described,
            "menus": _plain(dict(state.upload.menus)),
            "mappings": None
            if mappings is None
            else {name: mapping_json(m) for name, m in mappings.items()},
            "label_maps": {
                name: {str(k): float(v) for k, v in grades.items()}
                for name, grades in state.upload.label_maps.items()
            },
        }
    if state.handbuilt is not None:
        tables[HANDBUILT_TABLE] = state.handbuilt.reset_index(drop=True)
    return tables, settings


def _loaded(frame: pd.DataFrame, cells: pd.DataFrame | None, d: Mapping[str, Any]) -> LoadedTable:
    skipped: tuple[int, ...] = ()
    none_cells: dict[str, np.ndarray] = {}
    if cells is not None:
        skipped = tuple(int(r) for r in cells.loc[cells["what"] == _SKIPPED, "row"])
        for column, rows in cells[cells["what"] == _NONE].groupby("column", sort=False)["row"]:
            none_cells[str(column)] = rows.to_numpy(dtype=np.int64)
    first_line = d.get("first_line")
    return LoadedTable(
        str(d["name"]),
        frame,
        str(d["format"]),
        kind=d.get("read_as", "table"),
        compressed=bool(d.get("compressed", False)),
        encoding=d.get("encoding"),
        header=bool(d.get("header", True)),
        first_line=None if first_line is None else int(first_line),
        notes=tuple(str(n) for n in d.get("notes", ())),
        skipped_lines=skipped,
        reading=tuple((str(code), dict(params)) for code, params in d.get("reading", ())),
        none_cells=none_cells,
    )


def decode(
    tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any], active: str | None = None
) -> SessionState:
    """The state :func:`encode` wrote (tables it names that are missing are left out)."""
    if settings.get("format") != FORMAT:
        return SessionState(active=active)
    upload = None
    kept = settings.get("upload")
    if kept:
        by_kind: dict[str, list[LoadedTable]] = {kind: [] for kind in UPLOAD_KINDS}
        for d in kept.get("tables", ()):
            frame = tables.get(str(d.get("table")))
            if frame is None or d.get("kind") not in by_kind:
                continue
            by_kind[d["kind"]].append(_loaded(frame, tables.get(d["table"] + _CELLS), d))
        mappings = kept.get("mappings")
        upload = Upload(
            by_kind,
            None
            if mappings is None
            else {str(n): RoleMapping.coerce(dict(m)) for n, m in mappings.items()},
            {str(n): dict(g) for n, g in (kept.get("label_maps") or {}).items()},
            dict(kept.get("menus") or {}),
        )
    handbuilt = tables.get(HANDBUILT_TABLE) if settings.get("handbuilt") else None
    return SessionState(
        {str(k): str(v) for k, v in (settings.get("params") or {}).items()},
        active,
        upload if upload is not None and upload.runs else None,
        handbuilt,
    )


def upload_signature(upload: Upload | None) -> Any:
    """What tells two uploads apart: each table's name, columns and rows, the roles and grades
    built with, the menus (no table's values: a new file has another name or size, or is read
    again and compared by :func:`metrics.store.save_workspace`'s content hashes)."""
    if upload is None:
        return None
    return [
        [
            [kind, t.name, [str(c) for c in t.frame.columns], len(t.frame)]
            for kind in UPLOAD_KINDS
            for t in upload.tables.get(kind, ())
        ],
        None
        if upload.mappings is None
        else sorted((n, mapping_json(m)) for n, m in upload.mappings.items()),
        sorted((n, sorted(g.items())) for n, g in upload.label_maps.items()),
        sorted((k, _plain(v)) for k, v in upload.menus.items()),
    ]


def signature(*parts: object) -> str:
    """A short digest of JSON-able ``parts`` (equal parts, equal digests)."""
    text = json.dumps(_plain(list(parts)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def with_params(state: SessionState, params: Mapping[str, str]) -> SessionState:
    """``state`` with other link parameters."""
    return replace(state, params=dict(params))


__all__ = [
    "FORMAT",
    "HANDBUILT_TABLE",
    "REVIEW_PARAM",
    "UPLOAD_KINDS",
    "SessionState",
    "Upload",
    "decode",
    "encode",
    "mapping_json",
    "signature",
    "upload_signature",
    "with_params",
]
