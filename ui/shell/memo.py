"""Where computed results live, so that memory comes back when it is no longer needed.

The app's one cache: every result the pages compute is kept here, never in Streamlit's
``st.cache_data`` or ``st.cache_resource``.

- Results of an uploaded or hand-built data set belong to the browser session that made it: they
  are kept in that session's state (:func:`session_store`) and released with the session.
- Results of the bundled samples are shared by every session (:data:`SHARED`), with a time to
  live and a byte budget.
- What a server reads once from its bundled files (the samples themselves, their label sources,
  Learn's worked examples) is kept for the server's life (:func:`once`, :data:`SERVER`: a few
  entries).

Each is a :class:`ResultCache`: least recently used entries go first when the entry count or the
byte budget is exceeded, expired entries are dropped, and one lock per key makes a second caller
wait for a computation under way instead of repeating it. A background sweeper drops expired
shared entries, shuts down sessions whose tab closed (:func:`release_closed_sessions`) and hands
freed memory back to the system, even when no page runs. :func:`cached` hands out the kept object
itself, or, with ``copy=True``, a copy that the caller may change.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from copy import deepcopy
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from ui.shell import keys

T = TypeVar("T")

SHARED_TTL, SHARED_BYTES, SHARED_ENTRIES = 600.0, 256 * 1024**2, 128
#: What a server reads once from its bundled files: kept for its life, at most this many entries.
SERVER_ENTRIES = 16
#: One session's results: time to live (seconds), byte budget, entries.
SESSION_TTL, SESSION_BYTES, SESSION_ENTRIES = 1800.0, 1024**3, 48
#: Seconds between sweeps of the shared cache.
SWEEP_SECONDS = 20.0


def size_of(value: object, _depth: int = 0) -> int:
    """Bytes held by a result: numpy and arrow buffers, frames, and containers of them."""
    if _depth > 4 or value is None:
        return 0
    if isinstance(value, np.ndarray):
        extra = 0
        if value.dtype == object and value.size:
            extra = 64 * value.size  # Python objects, roughly
        return int(value.nbytes) + extra
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True, deep=False).sum())
    if isinstance(value, pd.Series):
        return int(value.memory_usage(index=True, deep=False))
    if hasattr(value, "nbytes") and isinstance(value.nbytes, int):
        return int(value.nbytes)
    if isinstance(value, dict):
        return sum(size_of(v, _depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(size_of(v, _depth + 1) for v in value)
    if is_dataclass(value):
        return sum(size_of(getattr(value, f.name, None), _depth + 1) for f in fields(value))
    return 64


class ResultCache:
    """Thread-safe results by key, with a time to live, an entry limit and a byte budget.

    Parameters
    ----------
    ttl:
        Seconds an entry lives after it was last used.
    max_bytes:
        Budget of the entries' :func:`size_of`; least recently used entries are dropped beyond it
        (an entry larger than the budget is returned but not kept).
    max_entries:
        Most entries kept.
    """

    def __init__(self, ttl: float, max_bytes: int, max_entries: int) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[Any, int, float]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._key_locks: dict[Hashable, threading.Lock] = {}

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Bytes held by the entries."""
        return self._bytes

    def _lookup(self, key: Hashable, now: float) -> tuple[bool, Any]:
        entry = self._entries.get(key)
        if entry is None:
            return False, None
        value, size, used = entry
        if now - used > self.ttl:
            self._drop(key)
            return False, None
        self._entries[key] = (value, size, now)
        self._entries.move_to_end(key)
        return True, value

    def _drop(self, key: Hashable) -> None:
        _, size, _ = self._entries.pop(key)
        self._bytes -= size

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The entry of ``key``, computed by ``compute`` (once, even when asked concurrently)."""
        with self._lock:
            found, value = self._lookup(key, time.monotonic())
            if found:
                return value
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                found, value = self._lookup(key, time.monotonic())
            if found:
                return value
            value = compute()
            self._store(key, value)
        with self._lock:
            self._key_locks.pop(key, None)
        return value

    def _store(self, key: Hashable, value: Any) -> None:
        size = size_of(value)
        with self._lock:
            if size > self.max_bytes:
                return
            if key in self._entries:
                self._drop(key)
            self._entries[key] = (value, size, time.monotonic())
            self._bytes += size
            while self._entries and (
                self._bytes > self.max_bytes or len(self._entries) > self.max_entries
            ):
                self._drop(next(iter(self._entries)))

    def sweep(self) -> int:
        """Drop expired entries; returns how many were dropped."""
        now = time.monotonic()
        with self._lock:
            old = [k for k, (_, _, used) in self._entries.items() if now - used > self.ttl]
            for key in old:
                self._drop(key)
        return len(old)

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0


#: Results of the bundled samples, shared by every session.
SHARED = ResultCache(SHARED_TTL, SHARED_BYTES, SHARED_ENTRIES)
_shared_hashes: set[str] = set()
_sweeper: threading.Thread | None = None
_sweeper_lock = threading.Lock()


def share(content_hash: str) -> None:
    """Mark a data set (a bundled sample) as shared by every session."""
    _shared_hashes.add(content_hash)


def session_store() -> ResultCache:
    """This browser session's results (created on first use; released with the session)."""
    store = st.session_state.get(keys.RESULTS)
    if not isinstance(store, ResultCache):
        store = ResultCache(SESSION_TTL, SESSION_BYTES, SESSION_ENTRIES)
        st.session_state[keys.RESULTS] = store
    return store


def store_for(content_hash: str) -> ResultCache:
    """The shared cache for samples, the session's store for anything else."""
    _start_sweeper()
    return SHARED if content_hash in _shared_hashes else session_store()


def cached(
    content_hash: str,
    key: tuple,
    compute: Callable[[], T],
    store: ResultCache | None = None,
    *,
    copy: bool = False,
) -> T:
    """``compute()`` once per (``content_hash``, ``key``) in the data set's store; with
    ``copy``, a copy of it (:func:`copied`) that the caller may change."""
    where = store if store is not None else store_for(content_hash)
    value = where.get((content_hash, *key), compute)
    return copied(value) if copy else value


def copied(value: T) -> T:
    """A copy of a kept result that the caller may change without changing what the next caller
    gets (tables with their ``attrs``, and what holds them), as ``st.cache_data`` gave."""
    return deepcopy(value)


#: What a server reads once from its bundled files (see :func:`once`).
SERVER = ResultCache(float("inf"), 1 << 62, SERVER_ENTRIES)


def once(key: tuple, compute: Callable[[], T]) -> T:
    """``compute()`` once per server for ``key`` (a bundled sample, read-only: every session
    reads the same object)."""
    return SERVER.get(key, compute)


_M_ARENA_MAX = -8  # mallopt parameter of glibc's malloc.h


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Let glibc's malloc use at most ``arenas`` heaps (as ``MALLOC_ARENA_MAX`` does).

    By default glibc gives threads up to eight heaps per core; Streamlit runs every page run in a
    new thread, and memory freed in one heap is reused only by the threads that use it, so a
    server that served large uploads keeps much more memory than it holds. Returns whether the
    setting was applied (not on other C libraries).
    """
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False


def release_memory() -> None:
    """Collect garbage and hand freed memory back to the system (arrow's pool, glibc's heap)."""
    gc.collect()
    pa.default_memory_pool().release_unused()  # arrow's allocator keeps freed pages otherwise
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def release_closed_sessions(wait: float = 0.0) -> int:
    """Shut down sessions whose tab closed longer ago than ``server.disconnectedSessionTTL``.

    Streamlit keeps a closed session for reconnection in a time-to-live cache whose expired
    entries are only removed by the next write to it (the next tab that closes), and removes a
    session's uploaded files only when it shuts the session down. Without this, a closed
    session's uploads and state stay in memory until some other tab closes. The sessions are
    shut down on the server's event loop; with ``wait`` > 0 this waits up to that many seconds
    for them to be, so that the memory they held can be handed back at once. Returns how many
    sessions were released (0 when Streamlit's internals differ from what is expected).
    """
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return 0
        manager = Runtime.instance()._session_mgr
        storage = getattr(getattr(manager, "_session_storage", None), "_cache", None)
        lock = getattr(manager, "_storage_lock", None)
        if storage is None or lock is None or not hasattr(storage, "expire"):
            return 0
        runtime = Runtime.instance()
        with lock:
            expired = storage.expire()
        loop = runtime._get_async_objs().eventloop
        for _, info in expired:
            loop.call_soon_threadsafe(_shut_down, info.session)  # sessions live on that loop
        if expired and wait > 0:
            done = threading.Event()
            loop.call_soon_threadsafe(done.set)  # runs after the shutdowns (callbacks keep order)
            done.wait(wait)
        return len(expired)
    except Exception:  # internals changed: leave the sessions to Streamlit
        return 0


def _shut_down(session: Any) -> None:
    """Shut a closed session down and empty its state.

    Emptying the state matters: objects of Streamlit's server (a finished task, a callback) can
    still refer to the session for a while after it shut down, and through it to everything the
    session kept (its uploads, data set and results).
    """
    session.shutdown()
    state = getattr(session, "session_state", None)
    if state is not None and hasattr(state, "clear"):
        state.clear()


def _sweep_forever() -> None:
    while True:
        time.sleep(SWEEP_SECONDS)
        SHARED.sweep()
        release_closed_sessions(wait=5.0)  # shut down before the memory is handed back
        release_memory()


def _start_sweeper() -> None:
    global _sweeper
    if _sweeper is not None:
        return
    with _sweeper_lock:
        if _sweeper is None:
            _sweeper = threading.Thread(target=_sweep_forever, name="result-sweeper", daemon=True)
            _sweeper.start()


def clear_shared() -> None:
    """Drop every shared result and what the server read once (tests start from empty
    caches)."""
    SHARED.clear()
    SERVER.clear()


_M_MMAP_THRESHOLD = -3  # mallopt parameter of glibc's malloc.h
#: Allocations from this size up get their own memory map (see :func:`map_large_allocations`).
MMAP_THRESHOLD = 256 * 1024


def map_large_allocations(threshold: int = MMAP_THRESHOLD) -> bool:
    """Give every allocation of ``threshold`` bytes or more its own memory map, returned to the
    system when it is freed (as ``MALLOC_MMAP_THRESHOLD_`` does).

    glibc raises this threshold by itself each time a mapped block is freed (up to 32 MB), after
    which the columns of a large upload (a million rows: 4 to 8 MB each) are carved out of the
    heaps. There the small blocks that outlive a session end up spread across hundreds of
    megabytes, and every page holding one stays with the process after the session's memory is
    freed. With a fixed threshold of 256 KB, a session's columns and its queries-by-K arrays never
    enter the heaps, which stay small. Measured with ``benchmarks/sessions.py``, five 1M-row
    sessions left the server 8% to 13% above idle after they closed (with 4 MB: +16% to +65%;
    with malloc's moving threshold one session alone left +24%). Returns whether it was applied.
    """
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError):
        return False


def use_system_allocator_for_arrow() -> bool:
    """Let arrow allocate through the C library's malloc instead of its bundled allocator.

    Arrow's bundled allocator keeps the pages of freed tables for reuse, so a server that read a
    large upload keeps that memory long after the session that read it ended; malloc's heaps are
    handed back by :func:`release_memory`. An operator's ``ARROW_DEFAULT_MEMORY_POOL`` wins.
    Returns whether the allocator was changed.
    """
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return False
    pa.set_memory_pool(pa.system_memory_pool())
    return True


limit_malloc_arenas()  # before the page threads allocate large tables
map_large_allocations()
use_system_allocator_for_arrow()
