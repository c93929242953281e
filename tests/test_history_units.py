"""The pure pieces of the workspace, the History page and review links, without a server: a
session's tables through the store and back, the history chart's points, a review frozen and
thawed, link addresses, and the store's refusals in three languages."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics.engine.settings import Settings
from metrics.errors import QuotaError
from metrics.io.formats import load_table
from metrics.io.roles import RoleMapping
from metrics.io.samples import load_sample
from metrics.review.compare import CompareOptions
from metrics.store import (
    Store,
    StoreConfig,
    WorkspaceState,
    create_snapshot,
    create_workspace,
    load_workspace,
    open_snapshot,
    save_workspace,
)
from metrics.store.messages import store_error
from ui.review.compute import review
from ui.review.controls import ReviewChoice
from ui.review.history_figures import history_figure
from ui.review.share import freeze, link_address, thaw
from ui.shell.i18n import translate
from ui.shell.workspace_codec import SessionState, Upload, decode, encode, upload_signature


@pytest.fixture
def store(tmp_path):
    with Store(StoreConfig(home=tmp_path / "store")) as opened:
        yield opened


def _through(store: Store, state: SessionState) -> SessionState:
    """``state`` saved in a new workspace and read back."""
    key = create_workspace(store)
    tables, document = encode(state)
    save_workspace(store, key, WorkspaceState(tables, state.active, document))
    kept = load_workspace(store, key)
    return decode(kept.tables, kept.settings, kept.active)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    blanks=st.lists(st.integers(0, 3), min_size=4, max_size=4),
    nones=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_an_upload_comes_back_from_the_workspace_as_it_was_read(store, blanks, nones):
    lines = ["query,item,score,label"]
    for row in range(4):
        lines += [""] * blanks[row]  # blank lines: the messages count them
        lines.append(f"q{row % 2},d{row},{4 - row},{'none' if nones[row] else row % 3}")
    read = load_table("\n".join(lines).encode(), "run.csv", kind="run")
    upload = Upload(
        {"runs": [read], "judgments": [], "queries": []},
        {"run.csv": RoleMapping(query="query", item="item", score="score", label="label")},
        {"run.csv": {"good": 2.0}},
        {"w_map_abc_query": "query", "w_map_abc_query_seeded": True},
    )
    back = _through(store, SessionState({"m": "P", "data": "upload"}, "upload", upload))
    assert back.params == {"m": "P", "data": "upload"} and back.active == "upload"
    (again,) = back.upload.runs
    pd.testing.assert_frame_equal(again.frame, read.frame)
    for field in ("name", "format", "kind", "encoding", "header", "first_line", "notes"):
        assert getattr(again, field) == getattr(read, field), field
    assert again.skipped_lines == read.skipped_lines
    assert again.line_of(3) == read.line_of(3)
    assert {c: list(r) for c, r in again.none_cells.items()} == {
        c: list(r) for c, r in read.none_cells.items()
    }
    assert back.upload.mappings == upload.mappings and back.upload.label_maps == upload.label_maps
    assert upload_signature(back.upload) == upload_signature(upload)


def test_the_upload_signature_changes_with_the_roles_and_menus_only(store):
    read = load_table(b"query,item,score\nq1,d1,1\n", "run.csv")
    base = Upload({"runs": [read]}, None, {}, {"w_map_x_item": "item"})
    assert upload_signature(base) == upload_signature(
        Upload({"runs": [read]}, None, {}, {"w_map_x_item": "item"})
    )
    assert upload_signature(base) != upload_signature(
        Upload({"runs": [read]}, None, {}, {"w_map_x_item": "—"})
    )
    built = Upload({"runs": [read]}, {"run.csv": RoleMapping(query="query")}, {}, {})
    assert upload_signature(built) != upload_signature(Upload({"runs": [read]}))


history_rows = st.lists(
    st.tuples(
        st.floats(0, 1, allow_nan=False),
        st.floats(0, 0.3, allow_nan=False),
        st.floats(0, 0.3, allow_nan=False),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=40, deadline=None)
@given(rows=history_rows, accepted=st.integers(0, 7))
def test_the_chart_draws_each_version_at_its_mean_with_its_interval(rows, accepted):
    table = pd.DataFrame(
        {
            "version": [f"v{i}" for i in range(len(rows))],
            "model": ["run"] * len(rows),
            "saved": [f"2025-01-{i + 1:02d}T00:00:00Z" for i in range(len(rows))],
            "accepted": [i == accepted for i in range(len(rows))],
            "measure": "nDCG@10",
            "mean": [m for m, _, _ in rows],
            "ci_low": [m - low for m, low, _ in rows],
            "ci_high": [m + high for m, _, high in rows],
            "queries": 300,
        }
    )
    figure = history_figure(table, "nDCG@10").to_dict()
    line = figure["data"][0]
    mean = np.array(line["y"])
    assert np.array_equal(mean, table["mean"].to_numpy())
    assert np.allclose(mean + np.array(line["error_y"]["array"]), table["ci_high"], atol=1e-12)
    assert np.allclose(mean - np.array(line["error_y"]["arrayminus"]), table["ci_low"], atol=1e-12)
    rings = [trace for trace in figure["data"] if trace["mode"] == "markers"]
    assert [len(r["y"]) for r in rings] == ([1] if accepted < len(rows) else [])


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_every_word_of_the_chart_comes_from_the_catalog(lang):
    table = pd.DataFrame(
        {
            "version": ["v1", "v2", "v2"],
            "model": ["bm25", "bm25", "dense"],
            "saved": ["2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z", "2025-02-01T00:00:00Z"],
            "accepted": [True, False, False],
            "measure": "P@10",
            "mean": [0.5, 0.6, 0.55],
            "ci_low": [0.4, 0.5, 0.45],
            "ci_high": [0.6, 0.7, 0.65],
            "queries": [10, 10, 10],
        }
    )
    tr = partial(translate, lang=lang)
    layout = history_figure(table, "P@10", tr).to_dict()
    names = [trace["name"] for trace in layout["data"]]
    assert names == ["bm25", "dense", tr("history.accepted_mark")]  # two models: one line each
    assert layout["layout"]["title"]["text"] == tr("history.chart_title", measure="P@10")
    assert layout["layout"]["xaxis"]["title"]["text"] == tr("history.axis.saved")
    assert layout["layout"]["yaxis"]["title"]["text"] == tr("history.axis.mean", measure="P@10")
    assert layout["data"][0]["hovertext"][0].startswith(tr("history.hover", version="v1",
        model="bm25", saved="2025-01-01", measure="P@10", mean="0.5000", low="0.4000",
        high="0.6000", queries="10")[:6])  # fmt: skip


def test_a_review_thawed_from_its_link_gives_the_numbers_it_was_frozen_with(store):
    data = load_sample("web_search")
    choice = ReviewChoice("lexical", ("hybrid",), 10, CompareOptions(resamples=1000))
    chosen = Settings(gain="exponential")
    measures, by = ("nDCG", "P"), ("query_type",)
    tables, document = freeze(data, chosen, choice, measures, by, "ja")
    assert set(tables["run"]["model"]) == {"lexical", "hybrid"}
    assert list(tables["segments"].columns) == ["query", "query_type"]
    link, _ = create_snapshot(store, create_workspace(store), tables, document, "verdict")
    frozen = thaw(open_snapshot(store, link))
    assert frozen.lang == "ja" and frozen.verdict == "verdict" and frozen.settings == chosen
    before = review(data, chosen, measures, 10, "lexical", ("hybrid",), choice.options, by)
    after = review(
        frozen.dataset,
        frozen.settings,
        frozen.measures,
        frozen.k,
        frozen.baseline,
        frozen.candidates,
        frozen.options,
        frozen.by,
        frozen.family,
    )
    columns = ["candidate", "measure", "segment", "delta", "p_adjusted", "verdict"]
    pd.testing.assert_frame_equal(
        after[columns].reset_index(drop=True), before[columns].reset_index(drop=True)
    )


@pytest.mark.parametrize(
    "page, address",
    [
        ("http://host:8501/Compare", "http://host:8501/?review=TOKEN"),
        ("https://team.example/metrics/Compare", "https://team.example/metrics/?review=TOKEN"),
        ("http://host:8501/", "http://host:8501/?review=TOKEN"),
        ("http://host/app", "http://host/app/?review=TOKEN"),
        (None, "?review=TOKEN"),
    ],
)
def test_a_link_address_is_the_app_root_with_the_token(page, address):
    assert link_address("TOKEN", page) == address


@pytest.mark.parametrize(
    "lang, words",
    [
        ("en", "would bring the workspace to 3.0 KB, over its quota of 2.0 KB."),
        ("zh", "会使工作区达到 3.0 KB，超出其配额 2.0 KB。"),
        ("ja", "ワークスペースが 3.0 KB になり、上限 2.0 KB を超えます。"),
    ],
)
def test_a_quota_refusal_is_worded_in_each_language(lang, words, monkeypatch):
    from ui.shell import workspace

    monkeypatch.setattr(workspace, "t", partial(translate, lang=lang))
    error = store_error(
        QuotaError, "quota_workspace", adding=1024, adding_text="1.0 KB", after=3072,
        after_text="3.0 KB", quota=2048, quota_text="2.0 KB",
    )  # fmt: skip
    text = workspace.refusal(error)
    assert words in text and "RANKING_METRICS_WORKSPACE_QUOTA" in text
