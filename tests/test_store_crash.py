"""A save killed half-way leaves the store readable with everything saved before; saves at the
same time from several threads and processes all land. On SQLite and on PostgreSQL."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from metrics.store import (
    StoreConfig,
    WorkspaceState,
    check,
    create_workspace,
    load_run,
    load_workspace,
    open_store,
    purge,
    save_run,
    save_workspace,
    versions,
)
from tests.store_support import backend_fixture, dataset, store_environment

url = backend_fixture()
ROOT = Path(__file__).resolve().parents[1]
PROJECT = "crash"


def child(
    home: Path, url: str | None, prefix: str, count: int, point: str
) -> subprocess.Popen[str]:
    """``tests/store_child.py`` saving ``count`` versions (killing itself at ``point``)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store_child", PROJECT, prefix, str(count), point],
        cwd=ROOT,
        env=store_environment(home, url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def saved_names(output: str) -> list[str]:
    return [line.split()[1] for line in output.splitlines() if line.startswith("saved ")]


def assert_consistent(home: Path, url: str | None, saved: list[str]) -> list[str]:
    """The store opens, every version reported saved reads back whole, no catalog row lacks
    its file, and once purged nothing is left over; returns the versions found."""
    with open_store(StoreConfig(home, url, orphan_grace=0)) as store:
        assert not [p for p in check(store) if p.startswith("missing")]
        found = [info.version for info in versions(store, PROJECT)] if saved else []
        assert set(saved) <= set(found)
        for name in found:
            number = int(name.lstrip("abcdefghijklmnopqrstuvwxyz"))
            expected = dataset(seed=number, queries=100)
            back = load_run(store, PROJECT, name).dataset
            pd.testing.assert_frame_equal(back.run, expected.run)
            pd.testing.assert_frame_equal(back.qrels, expected.qrels)
        purge(store)
        assert check(store) == []
        if store.backend.kind == "sqlite":
            with store.read() as tx:
                assert tx.value("PRAGMA integrity_check") == "ok"
    return found


@pytest.mark.slow
@pytest.mark.parametrize("point", ["files", "commit", "cleanup"])
def test_a_save_killed_at_each_step_loses_nothing_saved_before(tmp_path, url, point):
    home = tmp_path / "home"
    process = child(home, url, "v", 3, point)
    out, err = process.communicate(timeout=120)
    assert process.returncode == -signal.SIGKILL, err
    assert saved_names(out) == ["v0", "v1"]
    found = assert_consistent(home, url, ["v0", "v1"])
    # killed before its commit the version is not there; just after, it is, whole
    assert found == (["v0", "v1", "v2"] if point == "cleanup" else ["v0", "v1"])


@pytest.mark.slow
def test_a_save_killed_at_any_moment_leaves_a_consistent_store(tmp_path, url):
    home = tmp_path / "home"
    process = child(home, url, "v", 1000, "none")
    assert process.stdout is not None
    lines = [process.stdout.readline() for _ in range(3)]
    time.sleep(0.01)  # into a later save
    process.send_signal(signal.SIGKILL)
    # the rest through the same stream: communicate() reads the pipe itself, past the lines
    # readline() has already taken into the stream's buffer (many when this process is slow)
    out = "".join(lines) + process.stdout.read()
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL, err
    saved = saved_names(out)
    assert saved == [f"v{n}" for n in range(len(saved))] and len(saved) >= 3
    found = assert_consistent(home, url, saved)
    # the save in flight landed whole (killed between its commit and its line) or not at all
    assert found in (saved, [*saved, f"v{len(saved)}"])


def test_saves_from_several_threads_at_once_all_land(tmp_path, url):
    home = tmp_path / "home"
    threads, each = 6, 3
    start = threading.Barrier(threads)
    errors: list[BaseException] = []
    with open_store(StoreConfig(home, url)) as store:
        tokens = [create_workspace(store) for _ in range(threads)]

        def work(index: int) -> None:
            try:
                start.wait()
                for number in range(each):
                    data = dataset(seed=index * each + number, queries=100)
                    save_run(store, PROJECT, f"t{index * each + number}", data)
                    save_workspace(
                        store, tokens[index], WorkspaceState({"run": data.run}, str(number))
                    )
            except BaseException as exc:  # reported below
                errors.append(exc)

        workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
        assert errors == []
        for token in tokens:
            assert load_workspace(store, token).active == str(each - 1)
    found = assert_consistent(home, url, [f"t{n}" for n in range(threads * each)])
    assert len(found) == threads * each


@pytest.mark.slow
def test_saves_from_several_processes_at_once_all_land(tmp_path, url):
    home = tmp_path / "home"
    with open_store(StoreConfig(home, url)):  # the catalog made once, before they start
        pass
    processes = [child(home, url, prefix, 4, "none") for prefix in ("a", "b", "c")]
    saved = []
    for process in processes:
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, err
        saved += saved_names(out)
    assert len(saved) == 12
    assert sorted(assert_consistent(home, url, saved)) == sorted(saved)
