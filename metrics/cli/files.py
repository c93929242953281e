"""Files evaluated to per-query values within the memory rule: what ``compare`` and
:func:`evaluate_files` read large inputs with.

A comparison needs each model's per-query values, not its ranked lists. Read whole, runs and
judgments take about ten times their text in memory (a comparison of two 1M-line TREC runs held
700 MB); read by the block reader of the evaluation command (:func:`metrics.cli.blocks.in_blocks`)
they take the judgments, one block of a run and the table of values. Inputs of more than
:func:`~metrics.cli.blocks.whole_table_bytes` of text (TREC files counted too) are therefore read
in blocks into a :class:`~metrics.io.per_query.PerQueryDataset`, the same values the whole
reading gives (each query's values depend only on its own rows); smaller ones are read whole and
checked in full, as before. (The module is imported when it is used: it imports pandas.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from metrics.cli.blocks import (
    MODEL_NAMES_WHOLE,
    BlockResult,
    RunSegments,
    in_blocks,
    refuse_whole_reading,
    table_text_size,
    whole_table_bytes,
)
from metrics.cli.evaluate import _model_name
from metrics.engine.evaluation import Evaluation, evaluate
from metrics.engine.registry import DEFAULT_MEASURES, MeasureSpec, deepest_cutoff, parse_measures
from metrics.engine.settings import Settings
from metrics.io.formats import load_table
from metrics.io.loaders import load_dataset, query_segments
from metrics.io.per_query import PerQueryDataset
from metrics.schema import MODEL, QUERY


def text_bytes(paths: Sequence[str]) -> int:
    """About how many bytes of text the files hold, a table's and a TREC file's, as
    :func:`~metrics.cli.blocks.table_text_size` counts them."""
    return sum(table_text_size(path, trec=True) or 0 for path in paths)


def per_query_in_blocks(
    qrels_path: str | None,
    run_paths: Sequence[str],
    measures: Sequence[str],
    settings: Settings,
    queries: str | None = None,
    label_map: Mapping[str, float] | None = None,
    segments: Sequence[str] = (),
) -> tuple[PerQueryDataset, list[str], list[str]] | None:
    """The per-query values of ``measures`` for the runs at ``run_paths`` read block by block
    (with the segments of the query table ``queries``, or the segment columns ``segments`` of
    the runs themselves; label words read by ``label_map``: ``--label-map``), with the notes
    and warnings of the
    reading; ``None`` when the files hold no more than
    :func:`~metrics.cli.blocks.whole_table_bytes` of text, or are not read in blocks: they are
    then read whole.

    Raises
    ------
    InputError
        As :func:`~metrics.cli.blocks.in_blocks`: for a NUL byte in a TREC file, and for large
        tables that cannot be read block by block (among them runs of one model name, which
        only the whole reading tells apart).
    """
    paths = [p for p in [qrels_path, *run_paths] if p]
    if text_bytes(paths) <= whole_table_bytes():
        return None
    specs = parse_measures(list(measures))
    inline = RunSegments(segments) if segments else None
    try:
        found = in_blocks(
            qrels_path,
            list(run_paths),
            specs,
            settings,
            _model_of_file,
            label_map,
            inline,
            trec_as_tables=True,  # the whole reading here reads TREC files as tables
        )
    except _ReadWhole:
        refuse_whole_reading(paths, MODEL_NAMES_WHOLE)
        return None
    if found is None:
        return None
    notes, warnings, models = found
    table = None
    if inline is not None:
        table = inline.table(paths)
        if table is None:
            return None
    return _per_query_dataset(run_paths, specs, models, queries, table), notes, warnings


class _ReadWhole(Exception):
    """These runs' models are named as only the whole reading names them."""


def _model_of_file(path: str, taken: Mapping[str, object]) -> str:
    """The model of a run file as the whole reading names it when it is alone of its name: a
    TREC run's tag (the same on its first and last lines), a table's file stem. Raises
    :class:`_ReadWhole` for names the whole reading tells apart by their files (two runs with
    one tag) and for TREC runs with several tags (several models)."""
    tags = {_tag(line) for line in _first_and_last_lines(path)}
    name = _model_name(path, {}) if None in tags or len(tags) != 1 else tags.pop()
    if name is None or name in taken:
        raise _ReadWhole
    return name


def _tag(line: bytes) -> str | None:
    """The last of the six fields of a TREC run line (``None`` for any other line)."""
    fields = line.split()
    return fields[5].decode("utf-8", "replace") if len(fields) == 6 else None


def _first_and_last_lines(path: str, tail: int = 1 << 16) -> list[bytes]:
    """The first and the last non-empty line of a file (read from its start and its end)."""
    with open(path, "rb") as handle:
        first = handle.readline(tail)
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - tail))
        lines = [line for line in handle.read().splitlines() if line.strip()]
    return [first, lines[-1] if lines else first]


def _per_query_dataset(
    run_paths: Sequence[str],
    specs: list[MeasureSpec],
    models: dict[str, BlockResult],
    queries: str | None,
    inline: pd.DataFrame | None = None,
) -> PerQueryDataset:
    """The per-query table of the block reading's values (model, query, one column per
    measure), with the segments of ``queries`` joined as the whole reading joins them, or the
    segment table ``inline`` taken from the runs."""
    frames = []
    for model, block in models.items():
        data: dict[str, object] = {
            MODEL: np.full(len(block.query_ids), model, dtype=object),
            QUERY: np.asarray(block.query_ids, dtype=object),
        }
        for j, spec in enumerate(specs):
            data[spec.name] = block.values[:, j]
        frames.append(pd.DataFrame(data))
    names = [MODEL, QUERY, *[s.name for s in specs]]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=names)
    segments = inline
    if queries is not None:
        segments = query_segments(load_table(queries, Path(queries).name), table[QUERY].unique())
    name = ", ".join(Path(p).name for p in run_paths)
    return PerQueryDataset(name, table, segments, specs)


def evaluate_files(
    qrels: str | Path | None,
    runs: str | Path | Sequence[str | Path],
    measures: Sequence[str] | None = None,
    settings: Settings | None = None,
) -> Evaluation:
    """Evaluate run files (TREC, CSV, TSV, Parquet, JSON Lines, Excel; plain or gzip) against
    a judgments file (``None``: the runs' own label column), within the memory rule: large
    inputs are read block by block and give per-query values without ranked lists
    (``Evaluation.lists`` is then empty), smaller ones are read whole.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels.txt").write_text("q 0 a 1\\nq 0 c 1\\n")
    >>> _ = (folder / "run.txt").write_text("q Q0 a 1 3 r\\nq Q0 b 2 2 r\\nq Q0 c 3 1 r\\n")
    >>> ev = evaluate_files(folder / "qrels.txt", folder / "run.txt", ["P@2", "RR"])
    >>> ev.per_query[["P@2", "RR"]].to_numpy().tolist()
    [[0.5, 1.0]]
    """
    settings = settings or Settings()
    names = [s.name for s in parse_measures(list(measures or DEFAULT_MEASURES))]
    qrels_path = None if qrels is None else str(qrels)
    run_paths = [str(runs)] if isinstance(runs, (str, Path)) else [str(p) for p in runs]
    found = per_query_in_blocks(qrels_path, run_paths, names, settings)
    if found is not None:
        return found[0].evaluation(names, settings)
    k_max = deepest_cutoff(parse_measures(names))
    data = load_dataset(
        run_paths,
        qrels_path,
        name=", ".join(Path(p).name for p in run_paths),
        k_max=k_max,
        relevance_level=settings.relevance_level,
        settings=settings,
    )
    return evaluate(data.run, data.qrels, names, settings, source=run_paths[0])
