"""TREC runs evaluated block by block (metrics/cli/blocks.py) give what the whole reading gives:
the same values bit for bit, the same query order, notes and output; input the blocks do not
handle is read whole."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate
from metrics.cli import evaluate
from metrics.cli.blocks import Judgments, evaluate_blocks, read_judgments
from metrics.engine.results import compute_matrix
from metrics.engine.settings import Settings
from metrics.io.trec import plain_chunks, read_trec

SMALL_CHUNK = 1 << 17  # the smallest chunk: several blocks from a few hundred queries
SETTINGS = [
    Settings(),
    Settings(missing_queries="zero"),
    Settings(no_relevant="leave_out", relevance_level=3),
    Settings(max_results=7, judged_only=True),
    Settings(ties="input_order", score_precision="float64"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    """A run of 600 queries x 30 results (about 5 chunks) and its judgments, with queries only
    in the run, judged queries missing from the run and queries without a relevant item."""
    folder = tmp_path_factory.mktemp("blocks")
    run, qrels = generate(600, depth=30, directory=folder)
    lines = run.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if int(ln.split()[0]) % 50 != 7]  # judged, not in the run
    extra = [f"x{q} Q0 d{i} {i + 1} {30 - i}.5 bench\n" for q in range(3) for i in range(30)]
    run.write_text("".join(kept[:3000] + extra + kept[3000:]))
    judged = qrels.read_text().splitlines(keepends=True)
    no_relevant = [ln for ln in judged if not (ln.startswith("11 ") and ln.split()[3] != "0")]
    qrels.write_text("".join(no_relevant))
    return run, qrels


def whole(run: Path, qrels: Path, settings: Settings, specs: list) -> tuple:
    inputs = evaluate.load_inputs(str(qrels), [str(run)], settings, 100)
    lists = next(iter(inputs.lists.values()))
    return lists, compute_matrix(lists, specs)


@pytest.mark.parametrize("settings", SETTINGS, ids=range(len(SETTINGS)))
def test_values_block_by_block_are_those_of_the_whole_run(files, settings):
    run, qrels = files
    specs = evaluate.requested_measures(["Rprec", "bpref", "num_rel", "P@5"], 30)
    lists, values = whole(run, qrels, settings, specs)
    judged = Judgments(read_trec(qrels))
    for chunk in (SMALL_CHUNK, 1 << 30):
        found = evaluate_blocks(judged, str(run), specs, settings, chunk_bytes=chunk)
        assert found is not None
        assert found.query_ids.tolist() == lists.query_ids.tolist()
        assert found.values.tobytes("F") == np.asfortranarray(values).tobytes("F")
        assert found.notes == lists.notes


def test_judgments_read_in_chunks_are_those_read_whole(files):
    _, qrels = files
    chunked, read = read_judgments(str(qrels), chunk_bytes=SMALL_CHUNK), read_trec(qrels)
    assert chunked is not None and read is not None
    assert chunked.query.to_pylist() == read.query.to_pylist()
    assert chunked.item.to_pylist() == read.item.to_pylist()
    assert np.array_equal(chunked.value, read.value)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.integers(6_000, 14_000),
    width=st.integers(0, 40),
    newline=st.booleans(),
    cut=st.sampled_from(["smallest", "size", "size - 1", "size + 1", "line end"]),
)
def test_chunks_cut_anywhere_hold_the_records_read_whole(tmp_path, lines, width, newline, cut):
    """Chunks of the mapped file, cut before, on and after the end of the file and at a line's
    end, hold the records of the whole reading, each chunk's tag its own first line's."""
    text = "".join(
        f"q{n // 40} Q0 d{n}{'x' * (n * width % 41)} {n % 40 + 1} {1000 - n % 40}.5 t{n // 1000}\n"
        for n in range(lines)
    )
    path = tmp_path / "cut.run"
    path.write_bytes(text.encode() if newline else text.encode()[:-1])
    size = path.stat().st_size
    first_end = text.index("\n", SMALL_CHUNK - 200) + 1
    chunk = {
        "smallest": SMALL_CHUNK,
        "size": size,
        "size - 1": size - 1,
        "size + 1": size + 1,
        "line end": max(first_end, SMALL_CHUNK),
    }[cut]
    chunks = list(plain_chunks(path, "run", chunk))
    whole = read_trec(path)
    assert all(c is not None for c in chunks) and whole is not None
    assert [x for c in chunks for x in c.query.to_pylist()] == whole.query.to_pylist()
    assert [x for c in chunks for x in c.item.to_pylist()] == whole.item.to_pylist()
    assert np.concatenate([c.value for c in chunks]).tobytes() == whole.value.tobytes()
    assert np.concatenate([c.rank for c in chunks]).tobytes() == whole.rank.tobytes()
    at = 0
    for c in chunks:
        assert c.tag == f"t{at // 1000}"
        at += len(c.value)


def _mapped_pages(path: Path) -> list[int] | None:
    """The pages of the file at ``path`` (their numbers in the file) the process holds through
    its memory map (present in ``/proc/self/pagemap``); ``None`` when it is not mapped."""
    found = None
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split()
        if fields[-1] != str(path):
            continue
        low, high = (int(x, 16) for x in fields[0].split("-"))
        page = os.sysconf("SC_PAGE_SIZE")
        with open("/proc/self/pagemap", "rb") as handle:
            handle.seek(low // page * 8)
            entries = np.frombuffer(handle.read((high - low) // page * 8), dtype="<u8")
        first = int(fields[2], 16) // page  # the map's offset in the file
        found = (found or []) + (first + np.flatnonzero(entries >> np.uint64(63))).tolist()
    return found


@pytest.mark.skipif(not Path("/proc/self/pagemap").exists(), reason="Linux's /proc")
def test_a_parsed_chunk_s_pages_are_let_go(tmp_path):
    """The file is mapped, not copied, and each chunk's pages are let go once it is parsed:
    when a chunk is given, the process holds no page of the file before its end (those after
    it, which the kernel maps ahead of the pages read, are the next chunk's)."""
    path = tmp_path / "long.run"
    lines = [f"q{n // 100} Q0 d{n} {n % 100 + 1} {100 - n % 100} run\n" for n in range(60_000)]
    path.write_text("".join(lines))
    ends = np.cumsum([len(line) for line in lines])
    page = os.sysconf("SC_PAGE_SIZE")
    read, chunks = 0, 0
    for chunk in plain_chunks(path, "run", SMALL_CHUNK):
        assert chunk is not None
        read, chunks = read + len(chunk.value), chunks + 1
        held = _mapped_pages(path)
        assert held is not None  # read through the map
        assert not held or min(held) >= ends[read - 1] // page, (read, held[:5])
    assert chunks > 5 and read == len(lines)
    assert _mapped_pages(path) is None  # the map is closed at the end


def output(args: list[str], blocks: bool) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        if not blocks:
            patch.setattr(evaluate, "_in_blocks", lambda *a, **k: None)
        status = evaluate.main(args, out, err)
    assert status == 0
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "flags", [["-q"], ["--curves", "20", "--digits", "12"], ["-c", "-q", "--names", "trec"]]
)
def test_the_command_line_prints_the_same_block_by_block(files, flags):
    run, qrels = files
    args = [str(qrels), str(run), *flags]
    by_blocks = output(args, blocks=True)
    assert "warning:" in by_blocks[1]  # the queries only in the run, or only judged
    assert by_blocks == output(args, blocks=False)


def test_runs_the_blocks_do_not_handle_are_read_whole(files, tmp_path):
    run, qrels = files
    lines = run.read_text().splitlines(keepends=True)
    split = tmp_path / "split.run"  # the first query again at the end: in two places
    split.write_text("".join(lines + lines[:1]))
    repeated = tmp_path / "repeated.run"  # an item twice in a query
    repeated.write_text("".join(lines[:1] + lines))
    packed = tmp_path / "packed.run.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    latin = tmp_path / "latin.run"  # not UTF-8: read whole, as Latin-1
    latin.write_bytes(run.read_bytes().replace(b" d1 ", b" d\xe9 ", 1))
    judged = Judgments(read_trec(qrels))
    specs = evaluate.requested_measures(["P@5"], None)
    for path in (split, repeated, packed, latin):
        assert evaluate_blocks(judged, str(path), specs, Settings(), SMALL_CHUNK) is None
        assert output([str(qrels), str(path), "-q"], blocks=True) == output(
            [str(qrels), str(path), "-q"], blocks=False
        )
    assert evaluate_blocks(judged, str(run), specs, Settings(averaging="micro")) is None


def test_a_nul_byte_deep_in_the_judgments_is_reported_first_as_before(files, tmp_path):
    run, qrels = files
    broken = tmp_path / "broken.qrels"
    text = qrels.read_bytes()
    broken.write_bytes(text + b"q1 0 d2\x00 0\n")  # past the first 64 KB that are checked first
    line = text.count(b"\n") + 1
    for second in (run, tmp_path):  # a run, and a folder given as the run
        out, err = io.StringIO(), io.StringIO()
        assert evaluate.main([str(broken), str(second)], out, err) == 2
        assert err.getvalue().startswith(f"error: broken.qrels:{line}: The file holds a NUL byte")
