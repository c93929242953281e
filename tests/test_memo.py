"""Where results live: a time to live, a byte budget and one computation per key; uploads'
results in the session, samples' results shared."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tests.app_support import fresh_app, open_page, upload
from tests.test_app_data import QRELS, RUN
from ui.shell import keys, memo
from ui.shell.memo import ResultCache, size_of


def test_an_entry_is_computed_once_and_then_served():
    cache = ResultCache(ttl=60, max_bytes=10**6, max_entries=8)
    calls = []
    for _ in range(3):
        assert cache.get("k", lambda: calls.append(1) or 42) == 42
    assert calls == [1]


def test_an_entry_past_its_time_to_live_is_computed_again_and_swept(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(memo.time, "monotonic", lambda: now[0])
    cache = ResultCache(ttl=10, max_bytes=10**6, max_entries=8)
    cache.get("a", lambda: np.zeros(10))
    now[0] += 11
    assert cache.sweep() == 1 and len(cache) == 0 and cache.nbytes == 0
    calls = []
    cache.get("a", lambda: calls.append(1) or 1)
    assert calls == [1]


def test_the_byte_budget_drops_the_least_recently_used_entries():
    cache = ResultCache(ttl=60, max_bytes=2_500, max_entries=100)
    cache.get("a", lambda: np.zeros(100))  # 800 bytes each
    cache.get("b", lambda: np.zeros(100))
    cache.get("a", lambda: None)  # a is used again, so b is the oldest
    cache.get("c", lambda: np.zeros(100))
    cache.get("d", lambda: np.zeros(100))
    assert cache.nbytes <= 2_500
    assert isinstance(cache.get("a", lambda: "recomputed"), np.ndarray)
    assert cache.get("b", lambda: "recomputed") == "recomputed"


def test_an_entry_larger_than_the_budget_is_returned_but_not_kept():
    cache = ResultCache(ttl=60, max_bytes=100, max_entries=100)
    assert cache.get("big", lambda: np.zeros(1000)).shape == (1000,)
    assert len(cache) == 0


def test_concurrent_callers_of_one_key_share_one_computation():
    cache = ResultCache(ttl=60, max_bytes=10**6, max_entries=8)
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return 7

    threads = [threading.Thread(target=cache.get, args=("k", slow)) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert calls == [1]


def test_size_of_counts_arrays_inside_dicts_and_frames():
    import pandas as pd

    assert size_of({"m": np.zeros(1000)}) == 8000
    assert size_of(pd.DataFrame({"x": np.zeros(1000)})) >= 8000


def test_an_uploads_results_live_in_its_session_and_a_samples_results_are_shared():
    at = open_page(fresh_app(), "curves")
    sample_hash = at.session_state["view"] and next(iter(memo.SHARED._entries))[0]
    at = upload(fresh_app(), [("run.csv", RUN, "text/csv")], ("judged.csv", QRELS, "text/csv"))
    open_page(at, "curves")
    upload_hash = at.session_state["upload_dataset"].content_hash
    store = at.session_state[keys.RESULTS]
    assert any(key[0] == upload_hash for key in store._entries)
    assert all(key[0] != upload_hash for key in memo.SHARED._entries)
    assert all(key[0] != sample_hash for key in store._entries)


def test_releasing_closed_sessions_without_a_server_does_nothing():
    assert memo.release_closed_sessions() == 0
    memo.release_memory()


def test_released_sessions_are_shut_down_and_emptied_before_the_memory_is_handed_back(
    monkeypatch,
):
    import asyncio
    from types import SimpleNamespace

    import streamlit.runtime

    loop = asyncio.new_event_loop()
    loop_thread = threading.Thread(target=loop.run_forever, daemon=True)
    loop_thread.start()

    class Session:
        def __init__(self):
            self.session_state = {"upload_dataset": object()}
            self.shut_down = False

        def shutdown(self):
            time.sleep(0.2)  # the loop is busy a while: the caller must wait for it
            self.shut_down = True

    sessions = [Session(), Session()]
    expired = [(i, SimpleNamespace(session=s)) for i, s in enumerate(sessions)]
    manager = SimpleNamespace(
        _session_storage=SimpleNamespace(_cache=SimpleNamespace(expire=lambda: expired)),
        _storage_lock=threading.Lock(),
    )
    runtime = SimpleNamespace(
        _session_mgr=manager, _get_async_objs=lambda: SimpleNamespace(eventloop=loop)
    )
    fake = SimpleNamespace(exists=lambda: True, instance=lambda: runtime)
    monkeypatch.setattr(streamlit.runtime, "Runtime", fake)
    try:
        assert memo.release_closed_sessions(wait=5.0) == 2
        assert all(s.shut_down and s.session_state == {} for s in sessions)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        loop_thread.join(5)


def test_warming_a_new_data_set_ranks_it_once_and_leaves_the_curves_page_results_cached(
    monkeypatch,
):
    import ui.shell.compute
    from metrics.engine.settings import Settings
    from metrics.io.samples import load_sample

    dataset = load_sample("web_search")
    store = ResultCache(60, 1 << 30, 48)
    calls = []
    real = ui.shell.compute.rank_run

    def counting(*args, **options):
        calls.append(args[2])
        return real(*args, **options)

    monkeypatch.setattr(ui.shell.compute, "rank_run", counting)
    settings = Settings()
    ui.shell.compute.warm(dataset, settings, ("P", "nDCG"), (1, 20), store=store).join()
    assert len(calls) == 1
    for measure in ("P", "nDCG"):  # served from the store: computing them would raise
        cached = store.get(
            (dataset.content_hash, "curves", ui.shell.compute.settings_key(settings), measure, 20),
            lambda: (_ for _ in ()).throw(AssertionError("not warmed")),
        )
        assert set(cached) == set(dataset.models)
    key = ui.shell.compute.settings_key(settings)
    for entry in (
        ("curve_table", key, ("P", "nDCG"), 1, 20),
        ("cutoffs", key, ("P", "nDCG"), (1, 3, 5, 10, 20)),
        ("judgment_notes", key, 10, False),
        ("precision_recall", key, 20),
    ):
        store.get(
            (dataset.content_hash, *entry),
            lambda: (_ for _ in ()).throw(AssertionError("not warmed")),
        )


def test_a_released_session_is_shut_down_and_its_state_emptied():
    """Server objects may still refer to a closed session: its data must not live on with it."""
    from streamlit.runtime.state.session_state import SessionState

    class ClosedSession:
        def __init__(self) -> None:
            self.session_state = SessionState()
            self.session_state["upload_dataset"] = np.zeros(1000)
            self.shut = False

        def shutdown(self) -> None:
            self.shut = True

    session = ClosedSession()
    memo._shut_down(session)
    assert session.shut
    assert "upload_dataset" not in session.session_state


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_arrow_allocates_through_malloc_unless_the_operator_chose_a_pool(monkeypatch):
    import pyarrow as pa

    before = pa.default_memory_pool()
    try:
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
        assert not memo.use_system_allocator_for_arrow()
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL")
        assert memo.use_system_allocator_for_arrow()
        assert pa.default_memory_pool().backend_name == "system"
        assert _resident_mb_after_arrow_frees_200_mb() < 20  # arrow's mimalloc kept all 200
    finally:
        pa.set_memory_pool(before)


def _resident_mb_after_arrow_frees_200_mb() -> float:
    """How much more memory the process holds after arrow allocated 25 blocks of 8 MB (the
    columns of a read file) and freed them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def resident_mb() -> float:
        status = Path("/proc/self/status").read_text()
        return int(status.split("VmRSS:")[1].split()[0]) / 1024

    source = pa.array(np.arange(1_000_000))  # numpy's memory, not arrow's
    before = resident_mb()
    blocks = [pc.add(source, i) for i in range(25)]
    assert resident_mb() > before + 150
    del blocks
    return resident_mb() - before


def test_large_allocations_get_maps_of_their_own_on_glibc():
    import platform

    if platform.libc_ver()[0] != "glibc":
        assert not memo.map_large_allocations()  # nothing to set, and it says so
        return
    assert memo.map_large_allocations()
    assert memo.map_large_allocations(memo.MMAP_THRESHOLD)


def test_a_megabyte_array_lives_in_a_map_of_its_own_not_in_the_heaps():
    """Blocks of a session's size stay out of malloc's heaps, where the small blocks that outlive
    the session would keep their pages. Checked in a fresh process, whose heaps have no freed
    megabyte that malloc would reuse first."""
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] != "glibc":
        return
    script = """
import ctypes
import numpy as np
import ui.shell.memo

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split())]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
before = libc.mallinfo2().hblkhd
block = np.ones(1024**2, dtype=np.uint8)
print(libc.mallinfo2().hblkhd - before)
"""
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=False
    )
    if "mallinfo2" in done.stderr:  # glibc before 2.33
        return
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 1024**2


def test_a_copy_handed_out_can_be_changed_without_changing_the_kept_result():
    import pandas as pd

    kept = pd.DataFrame({"delta": [0.1, 0.2]})
    kept.attrs["lead"] = ["nDCG@10"]
    store = ResultCache(ttl=60, max_bytes=10**6, max_entries=8)
    first = memo.cached("h", ("t",), lambda: kept, store, copy=True)
    first["delta"] = 0.0
    first.attrs["lead"].append("P@10")
    second = memo.cached("h", ("t",), lambda: pytest.fail("computed twice"), store, copy=True)
    assert second["delta"].tolist() == [0.1, 0.2] and second.attrs["lead"] == ["nDCG@10"]
    assert memo.cached("h", ("t",), lambda: None, store) is kept  # without copy: the object


def test_what_a_server_reads_once_is_the_same_object_for_every_caller():
    memo.clear_shared()
    calls = []
    first = memo.once(("t", "sample"), lambda: calls.append(1) or object())
    assert memo.once(("t", "sample"), lambda: calls.append(1) or object()) is first
    assert calls == [1]


def test_the_app_keeps_its_results_in_one_cache():
    """Every cache of the app is :mod:`ui.shell.memo`'s: none of Streamlit's own."""
    root = Path(__file__).resolve().parents[1]
    files = [*sorted((root / "ui").rglob("*.py")), *sorted((root / "pages").glob("*.py"))]
    files.append(root / "app.py")
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bst\.cache_(data|resource)\b\s*[(.]|@st\.cache_", line)
    ]
    assert found == []
