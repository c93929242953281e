"""The store (``metrics/store/``): workspaces, saved runs, review links, quotas and upkeep, each
test on SQLite and on a real PostgreSQL server (``tests/store_support.py``)."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.engine.evaluation import evaluate
from metrics.errors import ConflictError, LinkError, NotFoundError, QuotaError, StoreError
from metrics.review.statistics import bootstrap_ci
from metrics.store import (
    ACCEPTED,
    HISTORY_COLUMNS,
    StoreConfig,
    WorkspaceState,
    accept,
    accepted_version,
    check,
    create_snapshot,
    create_workspace,
    delete_run,
    delete_snapshot,
    delete_workspace,
    history,
    leaderboard,
    load_run,
    load_workspace,
    open_snapshot,
    open_store,
    projects,
    purge,
    revoke_snapshot,
    save_run,
    save_workspace,
    snapshot_link,
    snapshots,
    version_info,
    versions,
    versions_dataset,
    workspace_info,
)
from metrics.store.config import default_home, parse_size, redacted
from metrics.store.files import DATA_FOLDER, data_files
from metrics.store.hashing import judgments_hash, link_token, token_hash
from metrics.store.schema import SCHEMA_VERSION, schema_version
from metrics.store.store import Store
from tests.store_support import Clock, backend_fixture, dataset, require_psycopg

TABLES = ("workspaces", "runs", "snapshots", "files", "schema_version")


url = backend_fixture()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def make_store(home: Path, url: str | None, clock: Clock, **limits: object) -> Store:
    return open_store(StoreConfig(home, url, **limits), clock=clock)  # type: ignore[arg-type]


@pytest.fixture
def store(home: Path, url: str | None, clock: Clock) -> Iterator[Store]:
    with make_store(home, url, clock) as opened:
        yield opened


def catalog_values(store: Store) -> list[str]:
    """Every value of every catalog table, as text."""
    out = []
    with store.read() as tx:
        for table in TABLES:
            for row in tx.execute(f"SELECT * FROM {table}"):
                out += [str(value) for value in row]
    return out


def disk_files(home: Path) -> set[str]:
    return {path.name for path, _ in data_files(home)}


# ------------------------------------------------------------------------------------ schema
def test_migrations_bring_an_empty_store_to_the_schema_version(home, url, clock):
    with make_store(home, url, clock) as store, store.read() as tx:
        assert schema_version(tx) == SCHEMA_VERSION
        applied = tx.execute("SELECT version FROM schema_version ORDER BY version")
        assert [int(v) for (v,) in applied] == list(range(1, SCHEMA_VERSION + 1))
        for table in TABLES:
            assert store.backend.has_table(tx, table)
    with make_store(home, url, clock) as again, again.read() as tx:  # opening again: no change
        assert tx.value("SELECT COUNT(*) FROM schema_version") == SCHEMA_VERSION


def test_a_store_newer_than_the_program_is_refused(home, url, clock):
    with make_store(home, url, clock) as store, store.write() as tx:
        tx.execute("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (99, 0.0))
    with pytest.raises(StoreError) as caught:
        make_store(home, url, clock)
    assert caught.value.code == "store_newer" and "schema version 99" in str(caught.value)


# -------------------------------------------------------------------------------- workspaces
def test_a_workspace_comes_back_as_it_was_saved(store):
    token = create_workspace(store)
    data = dataset()
    state = WorkspaceState(
        {"run.csv": data.run, "qrels.csv": data.qrels, "hand-built lists": data.run.head(3)},
        "upload",
        {"k": 10, "measures": ["P@10", "nDCG@10"], "relevance_level": 1.5, "lang": "ja"},
    )
    info = save_workspace(store, token, state)
    assert info.tables == ("run.csv", "qrels.csv", "hand-built lists")
    back = load_workspace(store, token)
    assert back.active == "upload" and back.settings == state.settings
    assert list(back.tables) == list(state.tables)
    for name, frame in state.tables.items():
        pd.testing.assert_frame_equal(back.tables[name], frame.reset_index(drop=True))


def test_saving_again_keeps_unchanged_tables_and_removes_replaced_files(store, home):
    token = create_workspace(store)
    data = dataset()
    save_workspace(store, token, WorkspaceState({"run": data.run, "qrels": data.qrels}))
    first = disk_files(home)
    assert len(first) == 2
    save_workspace(store, token, WorkspaceState({"run": data.run, "qrels": data.qrels.head(5)}))
    second = disk_files(home)
    assert len(second) == 2 and len(first & second) == 1  # the run's file kept, qrels' replaced
    save_workspace(store, token, WorkspaceState({}, None, {}))
    assert disk_files(home) == set() and check(store) == []


def test_an_unknown_or_malformed_key_opens_nothing_and_is_not_repeated(store):
    token = create_workspace(store)
    for wrong in (token[:-1] + ("A" if token[-1] != "A" else "B"), "", "../x", token + "x"):
        with pytest.raises(NotFoundError) as caught:
            load_workspace(store, wrong)
        assert caught.value.code == "workspace_unknown"
        assert wrong not in str(caught.value) or wrong == ""


def test_the_key_is_never_in_the_catalog_files_or_logs(store, home, caplog):
    caplog.set_level(logging.DEBUG)
    token = create_workspace(store)
    data = dataset()
    save_workspace(store, token, WorkspaceState({"run": data.run}, "upload", {"note": "x"}))
    link, info = create_snapshot(store, token, {"run": data.run}, {"k": 5}, "better")
    save_run(store, "p", "v1", data, workspace=token)
    load_workspace(store, token)
    purge(store)
    values = catalog_values(store)
    for secret in (token, link):
        assert not any(secret in value for value in values)
        assert not any(secret in name for name in disk_files(home))
        assert secret not in caplog.text
        assert secret not in repr(workspace_info(store, token)) + repr(info)
    assert token_hash(token) in values and token_hash(link) in values
    if store.backend.kind == "sqlite":  # the database's own bytes, journal included
        raw = b"".join(p.read_bytes() for p in home.glob("catalog.sqlite3*"))
        assert token.encode() not in raw and link.encode() not in raw


def test_deleting_a_workspace_removes_its_files_and_links_but_not_its_versions(store, home):
    token = create_workspace(store)
    data = dataset()
    save_workspace(store, token, WorkspaceState({"run": data.run}))
    link, _ = create_snapshot(store, token, {"run": data.run}, {}, "")
    save_run(store, "p", "v1", data, workspace=token)
    delete_workspace(store, token)
    with pytest.raises(NotFoundError):
        load_workspace(store, token)
    with pytest.raises(NotFoundError):
        open_snapshot(store, link)
    assert len(disk_files(home)) == 2  # the version's run and judgments
    pd.testing.assert_frame_equal(load_run(store, "p", "v1").dataset.run, data.run)
    assert check(store) == []


def test_names_given_by_users_never_become_file_names(store, home):
    token = create_workspace(store)
    data = dataset()
    hostile = "../../../etc/passwd"
    save_workspace(store, token, WorkspaceState({hostile: data.run}, hostile, {hostile: hostile}))
    save_run(store, "../project", "v/1", data)
    create_snapshot(store, token, {hostile: data.qrels}, {}, "", title=hostile)
    found = [path for path, _ in data_files(home)]
    assert len(found) == 4
    for path in found:
        assert path.parent.parent == home / DATA_FOLDER
        assert len(path.stem) == 32 and path.stem.startswith(path.parent.name)
    assert sorted(p.name for p in home.iterdir()) == sorted(
        [DATA_FOLDER] + [p.name for p in home.glob("catalog.sqlite3*")]
    )
    assert list(load_workspace(store, token).tables) == [hostile]


def test_the_data_folder_is_readable_by_its_owner_only(store, home):
    token = create_workspace(store)
    save_workspace(store, token, WorkspaceState({"run": dataset().run}))
    folders = [home, home / DATA_FOLDER, *(path.parent for path, _ in data_files(home))]
    assert {stat.S_IMODE(folder.stat().st_mode) for folder in folders} == {0o700}
    files = [path for path, _ in data_files(home)] + list(home.glob("catalog.sqlite3"))
    assert {stat.S_IMODE(path.stat().st_mode) for path in files} == {0o600}


def test_tables_and_settings_that_cannot_be_stored_are_refused_with_their_reason(store):
    token = create_workspace(store)
    mixed = pd.DataFrame({"a": [1, "x"]}, dtype=object)
    with pytest.raises(StoreError) as caught:
        save_workspace(store, token, WorkspaceState({"mixed": mixed}))
    assert caught.value.code == "table_not_storable" and "'mixed'" in str(caught.value)
    with pytest.raises(StoreError) as caught:
        save_workspace(store, token, WorkspaceState({}, None, {"x": float("nan")}))
    assert caught.value.code == "not_json"
    with pytest.raises(StoreError) as caught:
        save_workspace(store, token, WorkspaceState({"bad\nname": mixed}))
    assert caught.value.code == "name"
    assert check(store) == []


# ------------------------------------------------------------------------------ saved runs
def test_versions_history_and_the_accepted_one(store, clock):
    data = dataset()
    for index, version in enumerate(("v1", "v2", "v3")):
        clock.advance(days=1)
        save_run(store, "search", version, data, accept=version == "v2", note=f"n{index}")
    assert [v.version for v in versions(store, "search")] == ["v1", "v2", "v3"]
    assert accepted_version(store, "search").version == "v2"
    clock.advance(days=1)
    accept(store, "search", "v1")
    assert version_info(store, "search", ACCEPTED).version == "v1"
    assert projects(store) == ["search"]
    saved = load_run(store, "search", "v3")
    pd.testing.assert_frame_equal(saved.dataset.run, data.run)
    pd.testing.assert_frame_equal(saved.dataset.qrels, data.qrels)
    assert saved.info.judgments_hash == judgments_hash(data.qrels) and saved.info.note == "n2"


def test_a_version_is_saved_once_and_deleting_it_removes_its_files(store, home):
    data = dataset()
    save_run(store, "p", "v1", data)
    with pytest.raises(ConflictError) as caught:
        save_run(store, "p", "v1", data)
    assert caught.value.code == "version_exists"
    with pytest.raises(StoreError) as caught:
        save_run(store, "p", ACCEPTED, data)
    assert caught.value.code == "reserved_version"
    with pytest.raises(NotFoundError) as caught:
        accepted_version(store, "p")
    assert caught.value.code == "no_accepted" and "v1" in str(caught.value)
    with pytest.raises(NotFoundError) as caught:
        load_run(store, "p", "v9")
    assert caught.value.code == "version_unknown"
    with pytest.raises(NotFoundError) as caught:
        versions(store, "other")
    assert caught.value.code == "project_unknown" and "p" in caught.value.params["projects"]
    assert len(disk_files(home)) == 2
    delete_run(store, "p", "v1")
    assert disk_files(home) == set() and projects(store) == []


def test_two_versions_are_compared_only_on_the_same_judgments(store):
    save_run(store, "p", "v1", dataset(seed=1, models=("lexical", "dense")))
    save_run(store, "p", "v2", dataset(seed=1, models=("hybrid",), shift=1.0))
    save_run(store, "p", "v3", dataset(seed=2))
    both = versions_dataset(store, "p", ["v1", "v2"])
    assert both.models == ["v1/lexical", "v1/dense", "v2"]
    with pytest.raises(ConflictError) as caught:
        versions_dataset(store, "p", ["v1", "v3"])
    assert caught.value.code == "judgments_differ"
    assert "different judgments" in str(caught.value) and "'v3'" in str(caught.value)


def test_history_gives_the_mean_and_bootstrap_interval_of_each_version(store, clock):
    for version, shift in (("v1", 0.0), ("v2", 1.0), ("v3", 3.0)):
        clock.advance(days=7)
        save_run(store, "p", version, dataset(seed=3, shift=shift), accept=version == "v2")
    table = history(store, "p", ["nDCG@10", "P@5"], resamples=500)
    assert list(table.columns) == list(HISTORY_COLUMNS) and len(table) == 6
    assert table.loc[table["accepted"], "version"].unique().tolist() == ["v2"]
    for row in table.to_dict("records"):
        saved = load_run(store, "p", row["version"])
        values = evaluate(saved.dataset.run, saved.dataset.qrels, [row["measure"]]).per_query
        expected = values[row["measure"]].to_numpy()
        low, high = bootstrap_ci(expected, 500, 0, 0.95)
        assert row["mean"] == pytest.approx(expected.mean(), abs=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((float(low), float(high)))
        assert row["ci_low"] <= row["mean"] <= row["ci_high"] and row["queries"] == 30
    board = leaderboard(table, "nDCG@10")
    assert board["version"].tolist() == ["v3", "v2", "v1"] and board["rank"].tolist() == [1, 2, 3]


# ------------------------------------------------------------------------------ review links
def test_a_review_link_opens_its_frozen_review_read_only(store):
    token = create_workspace(store)
    data = dataset()
    link, info = create_snapshot(
        store,
        token,
        {"run": data.run, "qrels": data.qrels},
        {"k": 10},
        "v2 is better",
        title="demo",
    )
    assert link != token and link == link_token(token, info.id)
    assert snapshot_link(store, token, info.id) == link
    opened = open_snapshot(store, link)
    assert opened.verdict == "v2 is better" and opened.settings == {"k": 10}
    pd.testing.assert_frame_equal(opened.tables["qrels"], data.qrels)
    with pytest.raises(NotFoundError):  # a link is not a workspace key
        load_workspace(store, link)
    other = create_workspace(store)
    for action in (revoke_snapshot, delete_snapshot, snapshot_link):
        with pytest.raises(NotFoundError):
            action(store, other, info.id)
    assert [s.id for s in snapshots(store, token)] == [info.id] and snapshots(store, other) == []


def test_a_review_link_expires_and_purge_removes_it(home, url, clock):
    with make_store(home, url, clock, link_days=30) as store:
        token = create_workspace(store)
        link, _ = create_snapshot(store, token, {"run": dataset().run}, {}, "")
        short, _ = create_snapshot(store, token, {}, {}, "", days=1)
        clock.advance(days=2)
        with pytest.raises(LinkError) as caught:
            open_snapshot(store, short)
        assert caught.value.code == "link_expired"
        open_snapshot(store, link)
        clock.advance(days=29)
        with pytest.raises(LinkError):
            open_snapshot(store, link)
        load_workspace(store, token)  # the workspace is in use: kept
        assert purge(store).snapshots == 2
        with pytest.raises(NotFoundError) as caught:
            open_snapshot(store, link)
        assert caught.value.code == "link_unknown" and disk_files(home) == set()
        with pytest.raises(StoreError) as caught:
            create_snapshot(store, token, {}, {}, "", days=0)
        assert caught.value.code == "link_days"


def test_a_revoked_link_stops_at_once_and_its_files_go(store, home):
    token = create_workspace(store)
    link, info = create_snapshot(store, token, {"run": dataset().run}, {}, "")
    assert len(disk_files(home)) == 1
    revoked = revoke_snapshot(store, token, info.id)
    assert revoked.revoked is not None and disk_files(home) == set()
    with pytest.raises(LinkError) as caught:
        open_snapshot(store, link)
    assert caught.value.code == "link_revoked" and link not in str(caught.value)


# ------------------------------------------------------------------------------------ quotas
def test_the_workspace_quota_refuses_a_save_and_keeps_the_state(home, url, clock):
    data = dataset(queries=200)
    with make_store(home, url, clock) as store:
        token = create_workspace(store)
        small = save_workspace(store, token, WorkspaceState({"small": data.qrels.head(10)}, "a"))
    quota = small.bytes + 1000  # room for the small table, not for the run
    with make_store(home, url, clock, workspace_quota=quota) as store:
        before = disk_files(home)
        with pytest.raises(QuotaError) as caught:
            save_workspace(store, token, WorkspaceState({"big": data.run}, "b"))
        assert caught.value.code == "quota_workspace" and caught.value.params["quota"] == quota
        assert "over its quota of" in str(caught.value)
        assert "RANKING_METRICS_WORKSPACE_QUOTA" in str(caught.value)
        assert disk_files(home) == before and load_workspace(store, token).active == "a"
        with pytest.raises(QuotaError):
            save_run(store, "p", "v1", data, workspace=token)
        with pytest.raises(QuotaError):
            create_snapshot(store, token, {"big": data.run}, {}, "")
        assert disk_files(home) == before
        save_run(store, "p", "v1", data)  # not from the workspace: the store's quota only
        assert disk_files(home) > before and check(store) == []


def test_the_store_quota_refuses_a_save_and_a_smaller_state_always_passes(home, url, clock):
    data = dataset(queries=200)
    with make_store(home, url, clock) as store:
        token = create_workspace(store)
        held = save_workspace(store, token, WorkspaceState({"run": data.run})).bytes
    with make_store(home, url, clock, store_quota=held + 1000, workspace_quota=None) as store:
        with pytest.raises(QuotaError) as caught:
            save_run(store, "p", "v1", data)
        assert caught.value.code == "quota_store" and caught.value.params["after"] > held + 1000
        assert "RANKING_METRICS_STORE_QUOTA" in str(caught.value)
        with pytest.raises(NotFoundError):
            versions(store, "p")
    with make_store(home, url, clock, store_quota=held // 2) as store:  # over it already
        save_workspace(store, token, WorkspaceState({"run": data.run.head(50)}))  # frees bytes
        with pytest.raises(QuotaError):
            save_workspace(store, token, WorkspaceState({"run": data.run}))
        assert len(disk_files(home)) == 1 and check(store) == []


# ------------------------------------------------------------------------------------ upkeep
def test_purge_removes_idle_workspaces_and_old_orphans_only(home, url, clock):
    with make_store(home, url, clock, retention_days=90, orphan_grace=3600) as store:
        idle, used = create_workspace(store), create_workspace(store)
        data = dataset()
        save_workspace(store, idle, WorkspaceState({"run": data.run}))
        save_workspace(store, used, WorkspaceState({"run": data.qrels}))
        save_run(store, "p", "v1", data, workspace=idle)
        folder = home / DATA_FOLDER / "ab"
        folder.mkdir(exist_ok=True)  # a stored file's random id may start with "ab" too
        old, young, temporary = (
            folder / ("ab" + "0" * 30 + ".parquet"),
            folder / ("ab" + "1" * 30 + ".parquet"),
            folder / ".tmp-123",
        )
        for path in (old, young, temporary):
            path.write_bytes(b"x" * 10)
        past = time.time() - 7200
        os.utime(old, (past, past))
        os.utime(temporary, (past, past))
        clock.advance(days=60)
        load_workspace(store, used)
        clock.advance(days=29)
        report = purge(store)  # files by their real times, workspaces by the store's clock
        assert report.orphans == 2 and report.orphan_bytes == 20 and report.workspaces == 0
        clock.advance(days=2)
        assert purge(store).workspaces == 1
        with pytest.raises(NotFoundError):
            load_workspace(store, idle)
        load_workspace(store, used)
        assert load_run(store, "p", "v1").info.version == "v1"
        assert young.exists() and not old.exists() and not temporary.exists()
        assert check(store) == [f"file unknown to the catalog: {young.name}"]


# ------------------------------------------------------------------------------------ config
def test_the_configuration_is_read_from_the_environment(tmp_path):
    env = {
        "RANKING_METRICS_HOME": str(tmp_path),
        "RANKING_METRICS_WORKSPACE_QUOTA": "2G",
        "RANKING_METRICS_STORE_QUOTA": "0",
        "RANKING_METRICS_LINK_DAYS": "7",
        "RANKING_METRICS_RETENTION_DAYS": "0",
    }
    config = StoreConfig.from_environ(env)
    assert config.home == tmp_path and config.database is None
    assert (config.workspace_quota, config.store_quota) == (2 * 1024**3, None)
    assert (config.link_days, config.retention_days) == (7.0, None)
    assert default_home({"XDG_DATA_HOME": "/x"}) == Path("/x/ranking-metrics")
    assert default_home({"HOME": "/h"}) == Path("/h/.local/share/ranking-metrics")
    assert parse_size("1.5 GiB") == 3 * 1024**3 // 2
    for name, value in (
        ("RANKING_METRICS_STORE_QUOTA", "lots"),
        ("RANKING_METRICS_LINK_DAYS", "0"),
        ("RANKING_METRICS_RETENTION_DAYS", "-1"),
        ("RANKING_METRICS_DB", "mysql://u@h/d"),
    ):
        with pytest.raises(StoreError) as caught:
            StoreConfig.from_environ({**env, name: value})
        assert name in str(caught.value) or caught.value.code == "database_url"


def test_messages_never_show_the_database_password():
    url = "postgresql://app:s3cret@db.example:5432/metrics?password=s3cret"
    assert "s3cret" not in redacted(url)
    assert "s3cret" not in StoreConfig(Path("/tmp/x"), url).where


# ---------------------------------------------------------------------------- judgments hash
_ids = st.text(alphabet="abcxyz019 é", min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.dictionaries(
        st.tuples(_ids, _ids), st.integers(min_value=-1, max_value=4), min_size=1, max_size=30
    ),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_judgments_hash_is_of_the_judgments_not_their_order_or_types(rows, seed):
    frame = pd.DataFrame(
        [(q, i, label) for (q, i), label in rows.items()], columns=["query", "item", "relevance"]
    )
    shuffled = frame.sample(frac=1.0, random_state=np.random.default_rng(seed).integers(2**31))
    as_floats = shuffled.assign(relevance=shuffled["relevance"].astype(float))
    repeated = pd.concat([frame, frame.assign(relevance=frame["relevance"] - 1)])
    digest = judgments_hash(frame)
    assert judgments_hash(shuffled) == digest == judgments_hash(as_floats)
    assert judgments_hash(repeated) == digest  # a repeated judgment counts once, its highest
    changed = frame.copy()
    changed.loc[0, "relevance"] = changed.loc[0, "relevance"] + 1
    assert judgments_hash(changed) != digest
    assert judgments_hash(frame.iloc[1:]) != digest


def test_the_judgments_hash_tells_ids_apart_however_they_split():
    a = pd.DataFrame({"query": ["ab", "c"], "item": ["x", "x"], "relevance": [1, 1]})
    b = pd.DataFrame({"query": ["a", "bc"], "item": ["x", "x"], "relevance": [1, 1]})
    assert judgments_hash(a) != judgments_hash(b)


def test_catalog_json_is_plain_json(store):
    token = create_workspace(store)
    save_workspace(store, token, WorkspaceState({}, None, {"b": [1, 2], "a": {"x": None}}))
    with store.read() as tx:
        (text,) = tx.one("SELECT settings FROM workspaces") or ("",)
    assert json.loads(text) == {"a": {"x": None}, "b": [1, 2]}


def test_sqlite_needs_no_psycopg_and_postgresql_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if not installed
    with open_store(StoreConfig(tmp_path / "a")) as store:
        create_workspace(store)
    with pytest.raises(StoreError) as caught:
        open_store(StoreConfig(tmp_path / "b", "postgresql://app@db.example/metrics"))
    assert caught.value.code == "driver_missing" and "psycopg[binary]" in str(caught.value)


def test_an_unreachable_database_is_one_message_without_its_password(tmp_path):
    require_psycopg()
    url = "postgresql://app:s3cret@127.0.0.1:1/metrics"  # nothing listens on port 1
    with pytest.raises(StoreError) as caught:
        open_store(StoreConfig(tmp_path, url))
    assert caught.value.code == "store_unreachable"
    assert "127.0.0.1:1" in str(caught.value) and "s3cret" not in str(caught.value)
