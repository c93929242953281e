"""The benchmark's in-process workers run against the current library and agree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_engine import K_MAX, worker_library, worker_library_pandas
from benchmarks.generate import generate


def test_library_worker_of_the_engine_benchmark_agrees_with_the_pandas_route(
    tmp_path: Path,
) -> None:
    run, qrels = generate(6, depth=12, directory=tmp_path)
    arrays = worker_library(str(qrels), str(run))["means"]
    tables = worker_library_pandas(str(qrels), str(run))["means"]
    assert len(arrays) == 4 * K_MAX + 1
    np.testing.assert_allclose(arrays, tables, rtol=0, atol=1e-12)


def test_the_browser_benchmarks_wait_only_for_texts_the_app_still_shows() -> None:
    """A benchmark that waits for a text the app no longer shows times out instead of measuring:
    every fixed English text the benchmarks wait for is (part of) a message of the catalog or of
    the engine."""
    import json
    import re

    root = Path(__file__).resolve().parent.parent
    catalog = json.loads((root / "ui/locales/en.json").read_text(encoding="utf-8"))
    messages = [
        text
        for value in catalog.values()
        for text in (value.values() if isinstance(value, dict) else [value])
    ]
    waits = re.compile(
        r'(?:get_by_text|wait_for_app|wait_for_chart_titles|open_select)\((?:page, )?"([^"]+)"'
    )
    computed = {"P@5 = 3/5"}  # a worked example's value, drawn by the engine, not a message
    texts = {
        text
        for path in (root / "benchmarks").glob("*.py")
        for text in waits.findall(path.read_text(encoding="utf-8"))
    }
    assert texts, "the pattern no longer finds the benchmarks' waits"
    engine_text = "".join(p.read_text(encoding="utf-8") for p in (root / "metrics").rglob("*.py"))

    def bare(text: str) -> str:  # without placeholders and numbers, which vary
        return re.sub(r"\{[^}]*\}|\d+", "", text)

    missing = [
        text
        for text in sorted(texts - computed)
        if not any(bare(text) in bare(message) for message in messages)
        and text not in engine_text  # the engine's own English messages
    ]
    assert missing == []


def test_the_engine_benchmark_times_the_trec_eval_binaries_it_is_given(tmp_path, monkeypatch):
    """--trec-eval paths win over $TREC_EVAL and $TREC_EVAL_O2; --versus reports one row of
    alternate-run CPU ratios per binary, with the load average."""
    import sys

    from benchmarks import bench_engine as bench

    binaries = []
    for name in ("default", "O2"):
        fake = tmp_path / name / "trec_eval"
        fake.parent.mkdir()
        fake.write_text(f"#!{sys.executable}\nsum(range(3_000_000))\n")
        fake.chmod(0o755)
        binaries.append(str(fake))
    monkeypatch.setenv("TREC_EVAL", binaries[1])
    monkeypatch.setenv("TREC_EVAL_O2", binaries[0])
    monkeypatch.setattr(bench, "GIVEN_BINARIES", [])
    assert bench.trec_eval_binaries() == [binaries[1], binaries[0]]
    monkeypatch.setattr(bench, "GIVEN_BINARIES", binaries)
    assert bench.trec_eval_binaries() == binaries
    run, qrels = generate(5, depth=10, directory=tmp_path)
    table = bench.versus("1M", qrels, run, rounds=2, timeout=300)
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == binaries
    assert all(row.split("|")[2].strip().endswith("x") for row in rows)
    assert "Load average at the start:" in table


def test_the_engine_benchmark_builds_both_trec_eval_binaries_outside_the_source(tmp_path):
    """--build-trec-eval: two builds, each in its own copy of the source (never in the source
    folder itself), the second with -O2 and the Makefile's version and include flags."""
    from benchmarks import bench_engine as bench

    source = tmp_path / "trec_eval_source"
    source.mkdir()
    # a stand-in Makefile: the "binary" is a script that prints the CFLAGS it was built with
    (source / "Makefile").write_text(
        "VERSIONID = 9.9\n"
        'CFLAGS = -g -I. -Wall -DVERSIONID=\\"$(VERSIONID)\\"\n'
        "trec_eval:\n"
        "\tprintf '#!/bin/sh\\necho %s\\n' '$(CFLAGS)' > trec_eval && chmod +x trec_eval\n"
    )
    builds = tmp_path / "builds"
    builds.mkdir()
    binaries = bench.build_trec_eval(str(source), builds)
    assert [Path(b).parent.name for b in binaries] == ["default", "O2"]
    assert all(Path(b).is_relative_to(builds) for b in binaries)
    assert sorted(p.name for p in source.iterdir()) == ["Makefile"]  # nothing built there
    flags = [subprocess.run([b], capture_output=True, text=True).stdout for b in binaries]
    assert flags[0].split()[0] == "-g" and "-O2" not in flags[0]
    assert flags[1].split() == ["-O2", "-I.", "-Wall", '-DVERSIONID="9.9"']


def test_the_walk_counts_the_cpu_of_the_server_and_of_the_children_it_started() -> None:
    """``app_walk`` reads the server's CPU from ``/proc``: its own and its children's, those
    still running and those it waited for."""
    import subprocess
    import sys
    import time

    import pytest

    if not Path("/proc/self/stat").exists():
        pytest.skip("reads /proc")
    from benchmarks.app_walk import cpu_now

    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            f"subprocess.run([sys.executable, '-c', {burn!r}])\n"  # waited for
            f"subprocess.Popen([sys.executable, '-c', {burn!r} + 'time.sleep(30)'])\n"  # running
            "time.sleep(30)\n",
        ]
    )
    try:
        deadline = time.monotonic() + 30
        server, _ = cpu_now(parent.pid)
        while server < 0.6 and time.monotonic() < deadline:
            time.sleep(0.1)
            server, _ = cpu_now(parent.pid)
        assert server >= 0.6  # two children of 0.3 s each, and the parent's own start
    finally:
        for pid in _children(parent.pid):
            subprocess.run(["kill", str(pid)], check=False)
        parent.kill()
        parent.wait()


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def test_a_child_reports_its_own_peak_memory_not_the_parents() -> None:
    """Waited for straight from a large process, a small child reported the parent's peak
    (both tools once showed 895 MB); measured through benchmarks/peak.py it reports its own."""
    import os

    from benchmarks.bench_engine import measure

    page = os.sysconf("SC_PAGE_SIZE")
    held = bytearray(300 * 1024**2)
    held[::page] = b"\x01" * len(held[::page])  # resident, not only reserved
    _, peak, out, status, _ = measure([sys.executable, "-c", "print(7)"], 60)
    assert (status, out) == (0, "7\n")
    assert peak < 100, peak
    grown = "x = bytearray(200 * 1024**2); x[::4096] = b'1' * len(x[::4096])"
    assert measure([sys.executable, "-c", grown], 60)[1] > 200
    del held


def test_the_judged_shape_has_55_judgments_a_query_mostly_relevant_5_not_retrieved(
    tmp_path: Path,
) -> None:
    run, qrels = generate(20, depth=100, directory=tmp_path, shape="judged")
    retrieved = {tuple(line.split()[0:3:2]) for line in run.read_text().splitlines()}
    judged = [line.split() for line in qrels.read_text().splitlines()]
    per_query = {q: sum(1 for j in judged if j[0] == q) for q, *_ in judged}
    assert set(per_query.values()) == {55}
    alone = [j for j in judged if (j[0], j[2]) not in retrieved]
    assert len(alone) == 5 * 20 and all(int(j[3]) > 0 for j in alone)
    relevant = sum(int(j[3]) > 0 for j in judged) / len(judged)
    assert 0.7 < relevant < 0.95


@pytest.mark.slow
def test_the_formats_benchmark_runs_and_every_format_prints_the_trec_numbers(
    tmp_path: Path,
) -> None:
    from benchmarks.bench_formats import formats_table

    table = formats_table("20k", 1, 300, tmp_path)
    rows = [line for line in table.splitlines() if line.startswith("| ") and "format" not in line]
    assert len(rows) == 7
    assert all(line.rstrip(" |").endswith("yes") for line in rows), table
