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
(:func:`warm_up`, started by :mod:`ui.shell.warm_up`) follows the first page run.

``app.py`` hands the frame what lives above the wings (:func:`above`: :func:`warm_up` and the page
of a review link, :func:`review_link`), and so does the start-up hook; the shell imports no
wing.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ui.shell.frame import Above

#: The first page's modules: the frame and the Data page's panels.
FIRST_PAGE_MODULES = (
    "ui.shell.frame",
    "ui.shell.findings_view",
    "ui.data.sample_panel",
    "ui.data.upload_panel",
    "ui.shell.handbuilt_panel",
    "ui.shell.per_query_panel",
)

#: Then plotly's figure builders (half a second), which every page after Learn draws with: the
#: warm-up after the first page run then goes straight to its computations.
LATER_MODULES = ("ui.shell.plotting", "ui.curves.figures")

log = logging.getLogger("ranking_metrics.server_start")
warm_log = logging.getLogger("ranking_metrics.warm_up")


def prepare_first_page() -> None:
    """Import :data:`FIRST_PAGE_MODULES`, load the default sample, then import
    :data:`LATER_MODULES` (in the calling thread)."""
    try:
        for name in FIRST_PAGE_MODULES:
            importlib.import_module(name)
        from ui.shell import frame

        frame.keep_above(above())
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


#: Modules imported by the pages after Data (Learn, Curves, the review pages and History),
#: leaves first.
PAGE_MODULES = (
    "ui.shell.plotting",
    "ui.curves.figures",
    "ui.curves.downloads",
    "ui.curves.panels",
    "ui.learn.evaluate",
    "ui.learn.lessons",
    "ui.learn.views",
    "ui.learn.chooser",
    "metrics.review.verdict",
    "metrics.review.headline",
    "metrics.review.drilldown",
    "metrics.review.stakeholder_report",
    "ui.review.compute",
    "ui.review.controls",
    "ui.review.figures",
    "ui.review.tables",
    "ui.review.context",
    "ui.review.drill",
    "ui.review.segment_parts",
    "ui.review.share",
    "ui.review.compare_tabs",
    "ui.review.report",
    "ui.review.report_tabs",
    "ui.review.history_figures",
    "ui.review.history_tables",
    "ui.review.history_compute",
    "ui.review.history_panels",
)


def warm_up() -> None:
    """The server's warm-up (:mod:`ui.shell.warm_up` starts it after the first page run), in
    the calling thread:

    1. loads the default sample and ranks it, then computes what the Curves page shows first for
       the default view (:func:`ui.shell.compute.warm`: the curves, the table at the standard
       cutoffs, the note on judgments, precision against recall) into
       :data:`ui.shell.memo.SHARED`;
    2. ranks the worked examples of the Learn page (:func:`ui.learn.panel.teaching_lists`);
    3. imports the modules that only the other pages use (:data:`PAGE_MODULES`: plotly's figure
       builders, the review package), so that their first visit does not wait for them either;
    4. computes the review table Compare, Segments and Report show first, and the rankings'
       change (:func:`ui.review.compute.warm`).

    A failure is logged; the page that needs the result computes it then and shows the error.
    """
    from ui.learn.panel import teaching_lists
    from ui.review import compute as review_compute
    from ui.shell import compute
    from ui.shell.view import View

    view = View()
    try:
        dataset = compute.sample_dataset(view.data)
        compute.warm(dataset, view.settings(), view.measures, view.k_range).join()
        teaching_lists()
        for name in PAGE_MODULES:
            importlib.import_module(name)
        review_compute.warm(dataset, view.settings(), tuple(view.measures), view.k_range)
    except Exception:  # the page that needs it computes it again and shows the error
        warm_log.exception("The warm-up of the server failed")


def above() -> Above:
    """What the frame needs from above the wings: :func:`review_link` and :func:`warm_up`."""
    from ui.shell.frame import Above

    return Above(review_link=review_link, warm_up=warm_up)


def review_link() -> None:
    """The page of a review link (an address with ``?review=``): the frozen review alone
    (:func:`ui.review.shared.review_app`)."""
    from ui.review.shared import review_app

    review_app()
