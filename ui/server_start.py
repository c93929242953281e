"""What the server does when it starts, before any browser has asked for a page.

``app.py`` is two things: the script Streamlit runs for every page of a session, and, when the
server imports it at start (no session runs it then), the definition of the app's server
(``st.App``) with :func:`lifespan` as its start-up hook. The hook starts one thread that
imports the modules of the frame and of the first page (Data) and loads the default sample, so
that the first page of the first session does not wait for them (the browser of that session is
still loading its own code meanwhile, about a second), and then imports plotly's figure
builders, which the pages after Learn need. It returns at once (the server takes
connections while the thread works); a page that needs a module still being imported waits for
it, and a failure is logged and met again by the page, which shows it. The full warm-up
(:mod:`ui.shell.warm_up`) follows the first page run, as before.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

#: The first page's modules: the frame and the Data page's panels.
FIRST_PAGE_MODULES = (
    "ui.shell.frame",
    "ui.shell.findings_view",
    "ui.data.upload_panel",
    "ui.shell.handbuilt_panel",
    "ui.shell.per_query_panel",
)

#: Then plotly's figure builders (half a second), which every page after Learn draws with: the
#: warm-up after the first page run then goes straight to its computations.
LATER_MODULES = ("ui.shell.plotting", "ui.curves.figures")

log = logging.getLogger("ranking_metrics.server_start")


def prepare_first_page() -> None:
    """Import :data:`FIRST_PAGE_MODULES`, load the default sample, then import
    :data:`LATER_MODULES` (in the calling thread)."""
    try:
        for name in FIRST_PAGE_MODULES:
            importlib.import_module(name)
        from ui.shell import compute
        from ui.shell.view import View

        compute.sample_dataset(View().data)
        for name in LATER_MODULES:
            importlib.import_module(name)
    except Exception:  # the first page imports or loads it again and shows the error
        log.exception("Preparing the first page failed")


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """The server's start-up hook: :func:`prepare_first_page` in a thread of its own."""
    threading.Thread(target=prepare_first_page, name="first-page", daemon=True).start()
    yield
