"""The History page and the browser's workspace in AppTest: five saved versions of the sample
show the numbers of ``python -m metrics history``; a version saved, accepted and compared from
the page; a workspace restored on a session's first run; review links made on Compare, opened
read-only and revoked."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from metrics.cli.main import main as cli
from metrics.store import accepted_version, open_snapshot, open_store, versions
from tests.app_support import fresh_app, open_page, sidebar_text, tables_with, upload
from tests.browser.test_e2e import QRELS as QRELS_CSV
from tests.browser.test_e2e import RUN
from ui.shell import keys
from ui.shell.i18n import translate

pytestmark = pytest.mark.slow  # each test runs the app several times

TREC = Path(__file__).resolve().parent.parent / "sample_data" / "web_search" / "trec"
QRELS = str(TREC / "web_search.qrels")
#: Five versions of the sample: (version, run file, date); v3 is accepted.
VERSIONS = (
    ("v1", "lexical", "2025-01-06"),
    ("v2", "dense", "2025-01-13"),
    ("v3", "hybrid", "2025-01-20"),
    ("v4", "dense", "2025-01-27"),
    ("v5", "lexical", "2025-02-03"),
)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A store of its own for the test (the app opens the one the environment names)."""
    home = tmp_path / "store"
    monkeypatch.setenv("RANKING_METRICS_HOME", str(home))
    monkeypatch.delenv("RANKING_METRICS_DB", raising=False)
    return home


def command(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert cli(list(args), out=out, err=err) == 0, err.getvalue()
    return out.getvalue()


def save_five(project: str = "search") -> None:
    for version, model, date in VERSIONS:
        accept = ["--accept"] if version == "v3" else []
        run = str(TREC / f"{model}.run")
        command("save", run, "--qrels", QRELS, "--project", project, "--version", version,
                "--date", date, "--quiet", *accept)  # fmt: skip


def history_rows(at) -> pd.DataFrame:
    """The History page's table of the chart's numbers (oldest version first)."""
    (table,) = [t for t in tables_with(at, "Version", "Mean", "Interval low") if "Rank" not in t]
    return table


# --------------------------------------------------------------------------- History page


def test_the_history_page_shows_the_numbers_of_the_history_command(home):
    save_five()
    printed = json.loads(command("history", "search", "--format", "json"))
    at = open_page(fresh_app(), "history")
    shown = history_rows(at)
    assert list(shown["Version"]) == [v for v, _, _ in VERSIONS]
    expected = printed["history"]
    assert list(shown["Model"]) == [r["model"] for r in expected]
    for column, field in (
        ("Mean", "mean"),
        ("Interval low", "ci_low"),
        ("Interval high", "ci_high"),
    ):
        assert list(shown[column]) == [r[field] for r in expected]  # the same floats
    assert list(shown["Queries"]) == [r["queries"] for r in expected]
    assert list(shown["Accepted"]) == ["", "", "✓ accepted", "", ""]
    (board,) = tables_with(at, "Rank", "Version")
    best_first = sorted(expected, key=lambda r: -r["mean"])
    assert list(board["Version"]) == [r["version"] for r in best_first]
    chart = at.get("plotly_chart")[0].proto.spec
    figure = json.loads(chart)
    lines = [trace for trace in figure["data"] if trace.get("mode") == "lines+markers+text"]
    assert [round(y, 12) for y in lines[0]["y"]] == [round(r["mean"], 12) for r in expected]
    ring = [trace for trace in figure["data"] if trace.get("mode") == "markers"]
    assert ring[0]["y"] == [expected[2]["mean"]]  # the last accepted version, v3


def test_a_version_saved_accepted_and_compared_from_the_page(home):
    save_five()
    at = open_page(fresh_app({"data": "web_search"}), "history")
    inputs = {w.label: w for w in at.text_input}
    inputs["Project"].set_value("search")
    inputs["Version"].set_value("v6")
    at.multiselect[0].set_value(["hybrid"])
    at.button[0].click().run()  # the form's button
    assert not at.exception
    with open_store() as store:
        found = versions(store, "search")
        assert [i.version for i in found][-1] == "v6" and found[-1].models == ("hybrid",)
    assert "Saved version v6 of project search." in [s.value for s in at.success]
    at.selectbox(key="hist_accept_version").set_value("v6")
    at.button(key="btn_history_accept").click().run()
    with open_store() as store:
        assert accepted_version(store, "search").version == "v6"
    assert list(history_rows(at)["Accepted"]).count("✓ accepted") == 1
    at.selectbox(key=keys.W_HISTORY_FIRST).set_value("v3")
    at.selectbox(key=keys.W_HISTORY_SECOND).set_value("v6").run()
    assert not at.warning
    assert any("Verdict" in s.value for s in at.subheader)


def test_two_versions_scored_against_other_judgments_are_not_compared(home, tmp_path):
    save_five()
    fewer = tmp_path / "fewer.qrels"
    lines = Path(QRELS).read_text().splitlines()
    fewer.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    command("save", str(TREC / "hybrid.run"), "--qrels", str(fewer), "--project", "search",
            "--version", "v6", "--quiet")  # fmt: skip
    at = open_page(fresh_app({"lang": "zh"}), "history")
    at.selectbox(key=keys.W_HISTORY_FIRST).set_value("v1")
    at.selectbox(key=keys.W_HISTORY_SECOND).set_value("v6").run()
    (warning,) = [w.value for w in at.warning]
    assert "是按不同的标注评分的" in warning and "版本“v1”" in warning and "版本“v6”" in warning
    assert not [s for s in at.subheader if s.value == translate("review.verdict_title", "zh")]


# --------------------------------------------------------------------------- the workspace


def _first_session(lang: str = "en"):
    at = fresh_app({"lang": lang})
    at.run()
    upload(at, [("run.csv", RUN, "text/csv")], ("qrels.csv", QRELS_CSV, "text/csv"))
    at.sidebar.selectbox(key="w_gain").set_value("exponential").run()
    assert not at.exception
    return at


def test_a_new_session_with_the_key_gets_the_upload_and_the_settings_back(home):
    first = _first_session()
    key = first.session_state[keys.WORKSPACE_TOKEN]
    built = first.session_state[keys.UPLOAD_DATASET]
    again = fresh_app()  # a reload: a new session, the browser's key (its cookie)
    again.session_state[keys.WORKSPACE_TOKEN] = key
    again.run()
    assert not again.exception
    assert sidebar_text(again).startswith("run.csv")
    assert again.sidebar.selectbox(key="w_gain").value == "exponential"
    assert again.session_state[keys.UPLOAD_DATASET].content_hash == built.content_hash
    open_page(again, "data")
    assert again.radio(key="w_source").value == "upload"
    assert any("run.csv" in i.value.replace("\\", "") for i in again.info)  # the files kept
    assert again.session_state[keys.UPLOAD_DATASET].content_hash == built.content_hash


def test_a_session_without_the_key_sees_nothing_of_the_workspace(home):
    first = _first_session()
    assert first.session_state[keys.WORKSPACE_TOKEN]
    other = fresh_app()
    other.run()
    assert sidebar_text(other).startswith("web_search")
    assert other.sidebar.selectbox(key="w_gain").value != "exponential"
    assert keys.UPLOAD_TABLES not in other.session_state
    assert keys.WORKSPACE_TOKEN not in other.session_state  # no change: no workspace yet


def test_a_link_keeps_its_own_settings_over_the_workspace(home):
    key = _first_session().session_state[keys.WORKSPACE_TOKEN]
    link = fresh_app({"data": "upload", "gain": "linear", "m": "P"})
    link.session_state[keys.WORKSPACE_TOKEN] = key
    link.run()
    assert link.sidebar.selectbox(key="w_gain").value == "linear"
    assert link.sidebar.multiselect(key="w_measures").value == ["P"]
    assert sidebar_text(link).startswith("run.csv")  # the data come back all the same


def test_hand_built_lists_come_back(home):
    lists = pd.DataFrame(
        {
            "list": ["q1"] * 3 + ["q2"] * 2,
            "position": pd.array([1, 2, 3, 1, 2], dtype="Int64"),
            "item": ["a", "b", "c", "x", "y"],
            "label": [1.0, 0.0, 2.0, 0.0, 1.0],
            "retrieved": [True] * 5,
        }
    )
    at = fresh_app()
    at.session_state[keys.HANDBUILT_TABLE] = lists
    open_page(at, "data")
    at.radio(key="w_source").set_value("handbuilt").run()
    key, kept = at.session_state[keys.WORKSPACE_TOKEN], at.session_state[keys.HANDBUILT_TABLE]
    assert list(kept["item"]) == list(lists["item"])
    again = fresh_app()
    again.session_state[keys.WORKSPACE_TOKEN] = key
    open_page(again, "data")
    assert again.radio(key="w_source").value == "handbuilt"
    pd.testing.assert_frame_equal(
        again.session_state[keys.HANDBUILT_TABLE], kept, check_dtype=False
    )


def test_a_quota_refusal_is_shown_in_the_session_language(home, monkeypatch):
    monkeypatch.setenv("RANKING_METRICS_WORKSPACE_QUOTA", "2K")
    at = _first_session("ja")
    at.run()
    (warning,) = [w.value for w in at.sidebar.warning]
    assert "上限 2.0 KB を超えます" in warning and "RANKING_METRICS_WORKSPACE_QUOTA" in warning
    assert sidebar_text(at).startswith("run.csv")  # the page goes on with the upload


# --------------------------------------------------------------------------- review links


def _share(params: dict[str, str]):
    at = open_page(fresh_app(params), "compare")
    at.number_input(key="share_days").set_value(7)
    at.button(key="btn_share_create").click().run()
    assert not at.exception
    (address,) = [c.value for c in at.code if "review=" in c.value]
    return at, address.split("review=", 1)[1]


def test_a_review_link_opens_the_frozen_review_read_only_and_stops_once_revoked(home):
    params = {"data": "web_search", "base": "lexical", "cand": "hybrid", "m": "nDCG,P"}
    maker, link = _share(params)
    key = maker.session_state[keys.WORKSPACE_TOKEN]
    with open_store() as store:
        snapshot = open_snapshot(store, link)
    assert set(snapshot.tables["run"]["model"]) == {"lexical", "hybrid"}  # the models compared
    assert key not in json.dumps(snapshot.settings) + snapshot.verdict
    compared = tables_with(maker, "candidate", "Δ")[0]
    viewer = fresh_app({"review": link})
    viewer.run()
    assert not viewer.exception
    assert [x.value for x in viewer.title] == ["Shared review"]
    assert snapshot.verdict.split("\n\n")[0] in [x.value for x in viewer.text]
    shown = tables_with(viewer, "candidate", "Δ")[0]
    pd.testing.assert_frame_equal(shown, compared)  # the same numbers as on Compare
    assert [w.label for w in viewer.sidebar.selectbox] == ["Language"]  # nothing else to open
    assert keys.WORKSPACE_TOKEN not in viewer.session_state
    maker.button(key=f"btn_revoke_{maker.session_state[keys.SHARE_LAST]}").click().run()
    closed = fresh_app({"review": link})
    closed.run()
    (error,) = [e.value for e in closed.error]
    assert "This review link was revoked on" in error
    assert not tables_with_none(closed)


def tables_with_none(at) -> list:
    return [d for d in at.dataframe]


def test_an_unknown_link_says_so_in_the_language_asked(home):
    at = fresh_app({"review": "x" * 43, "lang": "zh"})
    at.run()
    (error,) = [e.value for e in at.error]
    assert error.startswith(translate("store.message.link_unknown", "zh"))
