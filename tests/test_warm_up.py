"""A new server's first page imports nothing the other pages need, the warm-up that follows it
computes the sample's first results once, for every session, and a session's first run asks
the browser for the chart code before the app is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.app_support import APP, ROOT, fresh_app, open_page
from ui import server_start
from ui.shell import keys, warm_up

#: Modules only the pages after Data need: plotly's figure classes and our builders, the
#: review package, scipy.
HEAVY = (
    "scipy",
    "plotly.graph_objs._figure",
    "ui.shell.plotting",
    "ui.curves",
    "ui.review",
)
HEAVY_PACKAGES = ("metrics.review",)


def _printed(code: str) -> list:
    """What ``code``, run by a fresh interpreter in the checkout, printed last (as JSON)."""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


def _loaded_by(*modules: str) -> list[str]:
    """The modules a fresh interpreter holds after importing ``modules``."""
    code = (
        "import json, sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "print(json.dumps(sorted(sys.modules)))"
    )
    return _printed(code)


def _heavy(loaded: list[str]) -> list[str]:
    return [
        m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY + HEAVY_PACKAGES)
    ]


def test_the_frame_and_the_data_page_import_no_figure_builder_review_package_or_scipy():
    from ui.server_start import FIRST_PAGE_MODULES

    assert set(FIRST_PAGE_MODULES) >= {"ui.shell.frame", "ui.shell.findings_view"}
    loaded = _loaded_by(*FIRST_PAGE_MODULES)
    assert "ui.shell.frame" in loaded and "metrics.io.loaders" in loaded
    assert _heavy(loaded) == []


def test_imported_by_the_server_the_entrypoint_defines_the_app_with_its_start_up_hook():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"
    code = (
        "import json, sys\n"
        "import app, streamlit as st\n"
        "from ui.server_start import lifespan\n"
        # (the hook given to st.App, as Streamlit 1.67 keeps it)
        "print(json.dumps([isinstance(app.app, st.App), app.app._user_lifespan is lifespan,"
        " 'ui.shell.frame' in sys.modules]))"
    )
    # the server's definition only: no page is laid out, the frame is not imported yet
    assert _printed(code) == [True, True, False]


def test_the_start_up_hook_prepares_the_first_page_in_a_thread_and_returns_at_once(monkeypatch):
    import asyncio
    import threading

    done = threading.Event()
    monkeypatch.setattr(server_start, "prepare_first_page", lambda: done.wait(5))

    async def start() -> None:
        async with server_start.lifespan(None):
            assert not done.is_set()  # the server takes connections while the thread works
            done.set()

    asyncio.run(start())


def test_preparing_the_first_page_imports_its_modules_loads_the_sample_then_chart_builders():
    code = (
        "import json, sys\n"
        "from ui import server_start\n"
        "server_start.prepare_first_page()\n"
        "import metrics.io.samples as samples\n"
        "from ui.shell import compute\n"
        "from ui.shell.view import View\n"
        "read = []\n"
        "samples.load_table = lambda *a, **o: read.append(a)\n"
        "compute.sample_dataset(View().data)\n"
        "names = server_start.FIRST_PAGE_MODULES + server_start.LATER_MODULES\n"
        "from ui.shell import frame\n"  # what a page file run directly by a fresh server finds
        "handed = frame._above.warm_up is server_start.warm_up\n"
        "print(json.dumps([all(m in sys.modules for m in names),"
        " 'scipy' in sys.modules or 'ui.review' in sys.modules, read == [], handed]))"
    )
    assert _printed(code) == [True, False, True, True]


def test_the_learn_page_draws_without_plotly_figures_or_the_review_package():
    loaded = _loaded_by(
        "ui.learn.views", "ui.learn.panel", "ui.learn.list_component", "ui.learn.figures"
    )
    assert "ui.learn.figures" in loaded
    assert _heavy(loaded) == []


def test_the_warm_up_imports_what_the_other_pages_need():
    assert set(server_start.PAGE_MODULES) >= {
        "ui.shell.plotting",
        "ui.curves.figures",
        "ui.review.figures",
        "ui.review.tables",
    }
    for name in server_start.PAGE_MODULES:  # every name is a module of the app
        assert (ROOT / (name.replace(".", "/") + ".py")).exists(), name


def test_the_warm_up_results_are_shared_by_every_new_session(monkeypatch):
    import ui.shell.compute
    from ui.shell import memo

    fresh_app()  # empty caches
    server_start.warm_up()
    dataset = ui.shell.compute.sample_dataset("web_search")
    assert memo.store_for(dataset.content_hash) is memo.SHARED
    ranked = []
    real = ui.shell.compute.rank_run
    monkeypatch.setattr(
        ui.shell.compute, "rank_run", lambda *a, **o: ranked.append(1) or real(*a, **o)
    )
    for _ in range(2):  # two new sessions: neither ranks the sample nor computes its curves
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        open_page(at, "curves")
        assert len(at.get("plotly_chart")) >= 5
    assert ranked == []
    assert ui.shell.compute.sample_dataset("web_search") is dataset


def test_the_first_finished_page_run_of_a_server_starts_the_warm_up_once(monkeypatch):
    calls = []
    monkeypatch.setattr(warm_up, "ENABLED", True)
    monkeypatch.setattr(warm_up, "_thread", None)
    monkeypatch.setattr(server_start, "warm_up", lambda: calls.append(1))
    for _ in range(2):  # two sessions of one server, opened at its address (app.py)
        at = fresh_app()
        at.run()
        open_page(at, "data")
    thread = warm_up.start(server_start.warm_up)
    assert thread is not None
    thread.join(10)
    assert calls == [1]


def test_the_entrypoint_asks_for_the_browser_code_before_it_imports_the_app():
    loaded = _loaded_by("ui.shell.preload")
    assert [m for m in loaded if m.split(".")[0] in ("numpy", "pandas", "pyarrow", "metrics")] == []
    assert "ui.shell.frame" not in loaded
    source = (ROOT / "app.py").read_text(encoding="utf-8")
    assert source.index("preload.preload()") < source.index("from ui.shell.frame import")


def _preloading_page() -> None:
    import streamlit as st

    from ui.shell import preload

    slot = preload.preload()
    st.title("page")
    if st.session_state.get("switch", False):
        st.session_state["switch"] = False
        preload.again()  # as app.py does when the run switches to a page
    if st.session_state.get("remove", True):
        preload.done(slot)


def _sent(at: AppTest) -> list[int]:
    components = len(at.get("bidi_component"))
    return [len(at.get("plotly_chart")), len(at.code), len(at.latex), components]


def test_a_session_first_page_run_sends_a_formula_and_a_component_unseen_then_removes_them():
    at = AppTest.from_function(_preloading_page)
    at.session_state["remove"] = False
    at.run()
    assert _sent(at) == [0, 0, 1, 1]  # sent on the session's first run
    assert any("visibility: hidden" in h.proto.body for h in at.get("html"))
    at.run()
    assert _sent(at) == [0, 0, 0, 0]  # not again
    at = AppTest.from_function(_preloading_page)
    at.run()
    assert _sent(at) == [0, 0, 0, 1]  # the formula removed when the run is over
    at.run()
    assert _sent(at) == [0, 0, 0, 0]  # the component by the next run
    assert at.title[0].value == "page"


def test_a_run_that_switches_to_a_page_leaves_the_box_to_the_page_run():
    at = AppTest.from_function(_preloading_page)
    at.session_state["switch"] = True
    at.run()
    at.run()
    assert _sent(at) == [0, 0, 0, 1]  # sent again by the run after the switch
    at.run()
    assert _sent(at) == [0, 0, 0, 0]


def test_the_component_asks_for_the_chart_and_code_block_code_of_this_streamlit():
    import streamlit as st

    from ui.shell import preload

    static = Path(st.__file__).parent / "static" / "static" / "js"
    assert [name.split(".")[0] for name in preload.LATER] == [
        "StreamlitSyntaxHighlighter",  # Learn's code blocks: the page a student opens next
        "PlotlyChart",
    ]
    assert all((static / name).is_file() for name in preload.LATER)
    at = AppTest.from_function(_preloading_page)
    at.session_state["remove"] = False
    at.run()
    (component,) = at.get("bidi_component")
    assert json.loads(component.proto.json) == {"later": list(preload.LATER)}


def test_the_first_page_of_a_session_holds_only_its_own_elements():
    at = open_page(fresh_app(), "data")  # the session's first run: sent, then removed
    assert len(at.get("plotly_chart")) == 0  # the labels are a table: no chart code needed
    assert len(at.dataframe) == 3  # the run, the judgments, the labels
    at = open_page(fresh_app(), "learn")
    first = [len(at.code), len(at.latex)]
    at.run()
    assert [len(at.code), len(at.latex)] == first and first[1] > 0


def test_the_warm_up_computes_the_review_the_review_pages_show_first(monkeypatch):
    import metrics.review.verdict

    fresh_app()  # empty caches
    server_start.warm_up()
    computed = []
    real = metrics.review.verdict.review_table
    monkeypatch.setattr(
        metrics.review.verdict, "review_table", lambda *a, **o: computed.append(1) or real(*a, **o)
    )
    import ui.review.compute

    monkeypatch.setattr(ui.review.compute, "review_table", metrics.review.verdict.review_table)
    means = ui.review.compute.segment_means
    monkeypatch.setattr(
        ui.review.compute, "segment_means", lambda *a, **o: computed.append(2) or means(*a, **o)
    )
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    for page in ("compare", "segments", "report"):  # a new session that changed nothing
        open_page(at, page)
    assert computed == []
    at.session_state[keys.W_REVIEW_K] = 5  # a choice of its own is computed then
    at.run()
    assert computed
