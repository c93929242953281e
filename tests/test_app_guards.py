"""Pages under failure: unusable uploads never become the data set, a failure anywhere in a page
is a short message with an error id (no traceback, no server path), failed reads are remembered."""

from __future__ import annotations

import ast
import gzip
import logging
from pathlib import Path

import pytest
import tomllib

from metrics.errors import InputError
from tests.app_support import fresh_app, open_page, sidebar_text, upload
from ui.data import upload_panel
from ui.shell import compute


def _shown(at) -> str:
    parts = [e.value for e in at.error] + [e.value for e in at.markdown]
    parts += [e.value for e in at.info] + [e.value for e in at.exception]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def test_an_upload_whose_scores_are_all_empty_is_refused_and_explained():
    run = b"query,item,score\nq1,d1,\nq1,d2,\nq2,d1,\n"
    qrels = b"query,item,label\nq1,d1,1\n"
    at = upload(fresh_app(), [("empty.csv", run, "text/csv")], ("judged.csv", qrels, "text/csv"))
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "Nothing can be evaluated" in errors and "3 rows have no score" in errors
    assert "upload_dataset" not in at.session_state
    assert "models:" not in sidebar_text(at)


def test_an_excel_upload_of_formulas_without_values_is_refused_and_explained():
    from tests.test_hostile_inputs import _formula_workbook

    at = upload(fresh_app(), [("formulas.xlsx", _formula_workbook(), "application/octet-stream")])
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "formula without a saved value" in errors
    assert "upload_dataset" not in at.session_state


def test_a_gzip_of_zeros_is_read_once_and_its_message_shown_on_every_rerun(monkeypatch):
    calls = []
    real = upload_panel.load_table

    def counting(data, name, kind=None, **limits):
        calls.append(name)
        return real(data, name, kind=kind, **limits)

    monkeypatch.setattr(upload_panel, "load_table", counting)
    zeros = gzip.compress(bytes(8 * 1024**2), 1)
    at = upload(fresh_app(), [("zeros.csv.gz", zeros, "application/gzip")])
    assert "looks binary" in _shown(at)
    at.sidebar.selectbox(key="w_gain").set_value("exponential").run()
    at.sidebar.slider(key="w_k").set_value((1, 20)).run()
    assert "looks binary" in _shown(at)
    assert calls == ["zeros.csv.gz"]


@pytest.mark.parametrize("page", ["curves", "learn", "data"])
def test_an_unexpected_failure_shows_an_error_id_and_no_traceback_or_path(
    page, monkeypatch, caplog
):
    def boom(*args, **kwargs):
        raise RuntimeError("secret detail in /work/wt/reliability/ui/shell/compute.py line 1")

    monkeypatch.setattr(compute, "query_count", boom)
    with caplog.at_level(logging.ERROR, logger="ranking_metrics.frame"):
        at = open_page(fresh_app(), page)
    shown = _shown(at)
    assert "error id" in shown
    assert "secret detail" not in shown and "/work/" not in shown and ".py" not in shown
    assert "Traceback" not in shown and not at.exception
    assert any("secret detail" in (r.exc_text or "") for r in caplog.records)


def test_an_input_error_raised_inside_a_page_is_shown_as_its_message(monkeypatch):
    def refuse(*args, **kwargs):
        raise InputError("The run has a problem.", source="run.csv", fix="Fix the run.")

    monkeypatch.setattr(compute, "curve_table", refuse)
    at = open_page(fresh_app(), "curves")
    shown = _shown(at)
    assert "run.csv: The run has a problem. Fix: Fix the run." in shown
    assert "error id" not in shown


def test_the_app_config_hides_error_details_and_the_table_csv_export():
    config = tomllib.loads(
        (Path(__file__).resolve().parent.parent / ".streamlit" / "config.toml").read_text()
    )
    assert config["client"]["showErrorDetails"] == "none"
    assert config["client"]["disableDataExport"] is True


def test_the_app_config_spares_the_server_file_watching_and_a_collection_after_every_run():
    config = tomllib.loads(
        (Path(__file__).resolve().parent.parent / ".streamlit" / "config.toml").read_text()
    )
    assert config["server"]["fileWatcherType"] == "none"
    assert config["runner"]["postScriptGC"] is False


HOSTILE_RUN = (
    "query,item,score,model,segment\n"
    + "".join(
        f'"<script>alert({q})</script>","=HYPERLINK(""http://x"",""{d}"")",{s},'
        f'"{m} ""best""","seg\u202e{q % 2}"\n'
        for q in range(6)
        for d in range(5)
        for m, s in (("base", (5 - d) / 5), ("cand", d / 5))
    )
    + '"tab\there","line\nbreak",0.5,"base ""best""","seg\u202e0"\n'
).encode()
HOSTILE_QRELS = (
    "query,item,label\n"
    + "".join(
        f'"<script>alert({q})</script>","=HYPERLINK(""http://x"",""{d}"")",{d % 2}\n'
        for q in range(6)
        for d in range(5)
    )
).encode()


def _download_buttons_without_ignore(source: str) -> int:
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "download_button"
    ]
    ignored = [
        call
        for call in calls
        if any(
            k.arg == "on_click" and isinstance(k.value, ast.Constant) and k.value.value == "ignore"
            for k in call.keywords
        )
    ]
    return len(calls) - len(ignored)


def test_a_download_never_reruns_the_page_so_its_file_outlives_other_runs():
    # A rerun on click rebuilds the page while the browser fetches the file; Streamlit deletes
    # a generated file once two runs anywhere on the server have finished without it.
    root = Path(__file__).resolve().parents[1]
    sources = sorted((root / "pages").glob("*.py")) + sorted((root / "ui").rglob("*.py"))
    offenders = [p.name for p in sources if _download_buttons_without_ignore(p.read_text())]
    assert offenders == []
    assert _download_buttons_without_ignore('st.download_button("a", b"x")') == 1


@pytest.mark.parametrize("page", ["2_Learn", "3_Curves", "4_Compare", "5_Segments", "6_Report"])
def test_hostile_ids_pass_through_every_page_without_an_error(page):
    at = upload(
        fresh_app(),
        [("hostile.csv", HOSTILE_RUN, "text/csv")],
        ("hostile_qrels.csv", HOSTILE_QRELS, "text/csv"),
    )
    assert "upload_dataset" in at.session_state, [e.value for e in at.error]
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = _shown(at)
    assert "error id" not in shown and "\u202e" not in shown
    if page == "2_Learn":
        # Learn opens on its worked example, and its sidebar says so and names the data set
        # the other pages use; a query of the data set brings the data set's own box back.
        assert "The other pages use the data set hostile.csv." in sidebar_text(at)
        at.radio(key="w_learn_source").set_value("query").run()
        assert not at.exception, [e.value for e in at.exception]
        shown = _shown(at)
        assert "error id" not in shown and "\u202e" not in shown
    assert 'models: base "best", cand "best"' in sidebar_text(at)
