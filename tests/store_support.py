"""The store's tests run on SQLite and on a real PostgreSQL server.

``RANKING_METRICS_TEST_DB`` names a server to use (a ``postgresql://`` URL whose user may create
schemas); without it, a throwaway server is started once per test process from the binaries of
Debian's ``postgresql`` package (``initdb`` and ``pg_ctl`` under ``/usr/lib/postgresql/*/bin`` or
on the ``PATH``), in a temporary folder, on a free loopback port, as the ``postgres`` user when
the tests run as root (PostgreSQL refuses to run as root), and stopped when the process ends.
Each test gets a schema of its own (``search_path`` in the URL), dropped after it.

Without PostgreSQL (or psycopg) the PostgreSQL half of the tests is skipped, unless ``CI`` is set:
then it fails, so that CI never passes without having run it.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest

from metrics.io.dataset import Dataset

BACKENDS = ("sqlite", "postgresql")
TEST_DB_VARIABLE = "RANKING_METRICS_TEST_DB"

_server: dict[str, str] = {}


class Clock:
    """A clock the tests move: seconds since 1970, from a fixed start."""

    def __init__(self, now: float = 1_750_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float = 0.0, seconds: float = 0.0) -> None:
        self.now += days * 86400 + seconds


def _unavailable(reason: str) -> None:
    message = f"PostgreSQL is not available for the store's tests: {reason}"
    if os.environ.get("CI"):
        pytest.fail(message + " CI is set, so this is a failure, not a skip.", pytrace=False)
    pytest.skip(message)


def _binary(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=_version_key)
    return found[-1] if found else shutil.which(name)


def _version_key(path: str) -> tuple[int, ...]:
    part = Path(path).parts[-3]
    return tuple(int(p) for p in part.split(".") if p.isdigit())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start_server() -> str:
    """Start a throwaway server; return its URL (the ``postgres`` superuser, no password)."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        _unavailable("no initdb/pg_ctl (apt-get install postgresql).")
    root = Path(tempfile.mkdtemp(prefix="ranking-metrics-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            _unavailable("running as root and there is no 'postgres' user to run the server.")
        os.chown(root, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    data, log = root / "data", root / "server.log"
    run = {"check": True, "capture_output": True, "text": True, "timeout": 120}
    subprocess.run(
        [*prefix, str(initdb), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync",
         "-E", "UTF8", "--locale=C"],
        **run,
    )  # fmt: skip
    port = _free_port()
    options = (
        f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off "
        "-c full_page_writes=off -c max_connections=200"
    )
    subprocess.run(
        [*prefix, str(pg_ctl), "-D", str(data), "-l", str(log), "-w", "-o", options, "start"], **run
    )

    def stop() -> None:
        with contextlib.suppress(Exception):
            subprocess.run(
                [*prefix, str(pg_ctl), "-D", str(data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(root, ignore_errors=True)

    atexit.register(stop)
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def require_psycopg() -> None:
    """Skip without psycopg, or fail when ``CI`` is set."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed (pip install 'psycopg[binary]').")


def server_url() -> str:
    """The URL of the tests' PostgreSQL server (started on first use)."""
    require_psycopg()
    if "url" not in _server:
        _server["url"] = os.environ.get(TEST_DB_VARIABLE) or _start_server()
    return _server["url"]


def _with_schema(url: str, schema: str) -> str:
    glue = "&" if "?" in url else "?"
    return f"{url}{glue}options={quote(f'-csearch_path={schema}')}"


@contextlib.contextmanager
def postgres_schema() -> Iterator[str]:
    """A URL of the tests' server whose tables go to a new schema, dropped afterwards."""
    import psycopg

    url = server_url()
    schema = "store_test_" + secrets.token_hex(6)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    try:
        yield _with_schema(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


@contextlib.contextmanager
def database_url(backend: str) -> Iterator[str | None]:
    """``None`` for SQLite, a fresh schema's URL for PostgreSQL."""
    if backend == "sqlite":
        yield None
        return
    with postgres_schema() as url:
        yield url


def backend_fixture() -> Any:
    """The fixture ``url`` of a test module: each test twice, with ``None`` (SQLite), then
    with a fresh PostgreSQL schema's URL (``url = backend_fixture()`` in the module)."""

    def url(request: pytest.FixtureRequest) -> Iterator[str | None]:
        with database_url(str(request.param)) as found:
            yield found

    return pytest.fixture(params=BACKENDS, name="url")(url)


def store_environment(home: Path, url: str | None) -> dict[str, str]:
    """The environment of a child process using the store at ``home`` (and ``url``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RANKING_METRICS_")}
    env["RANKING_METRICS_HOME"] = str(home)
    if url is not None:
        env["RANKING_METRICS_DB"] = url
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


def dataset(
    seed: int = 0, queries: int = 30, models: tuple[str, ...] = ("run",), shift: float = 0.0
) -> Dataset:
    """A small canonical data set: ``queries`` queries of 10 items, labels 0-2, scores that
    follow the labels (more so with ``shift``)."""
    labels_of, scores = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    qrels_rows, run_rows = [], []
    for q in range(queries):
        labels = labels_of.integers(0, 3, size=10)
        for i, label in enumerate(labels):
            qrels_rows.append((f"q{q}", f"d{i}", float(label)))
            for model in models:
                run_rows.append((f"q{q}", f"d{i}", float(scores.normal() + shift * label), model))
    run = pd.DataFrame(run_rows, columns=["query", "item", "score", "model"])
    qrels = pd.DataFrame(qrels_rows, columns=["query", "item", "relevance"])
    return Dataset("test", run, qrels)
