"""What a new server prepares once, in the background, for every session to come.

The first page run of a server that finishes (:func:`ui.shell.frame.run_app`) calls :func:`start`,
which starts one thread (once per server process); the thread waits :data:`PAUSE` seconds, while
the browser draws that page (often on the same machine), then it

1. loads the default sample and ranks it, then computes what the Curves page shows first for
   the default view (:func:`ui.shell.compute.warm`: the curves, the table at the standard
   cutoffs, the note on judgments, precision against recall) into :data:`ui.shell.memo.SHARED`;
2. ranks the worked examples of the Learn page (:func:`ui.learn.panel.teaching_lists`);
3. imports the modules that only the other pages use (plotly's figure builders, the review
   package), so that their first visit does not wait for them either;
4. computes the review table Compare, Segments and Report show first, and the rankings' change
   (:func:`ui.review.compute.warm`).

The results are the same objects every session reads: a session never computes them again (the
samples' results are shared, with the time to live of :data:`ui.shell.memo.SHARED`). The first page
itself does not wait for the warm-up, which starts only after the page's run: the frame and the
Data page import nothing of what the other pages need (``tests/test_warm_up.py``). A failure is
logged; the page that needs the result computes it then and shows the error.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time

#: Modules imported by the pages after Data (Learn, Curves, the review pages), leaves first.
PAGE_MODULES = (
    "ui.shell.plotting",
    "ui.curves.figures",
    "ui.curves.downloads",
    "ui.learn.evaluate",
    "ui.learn.lessons",
    "ui.learn.views",
    "metrics.review.verdict",
    "metrics.review.headline",
    "metrics.review.drilldown",
    "metrics.review.stakeholder_report",
    "ui.review.compute",
    "ui.review.controls",
    "ui.review.figures",
    "ui.review.tables",
    "ui.history.share",
    "ui.history.figures",
    "ui.history.tables",
)

#: Whether :func:`start` starts the warm-up (the tests turn it off: they count computations).
ENABLED = True

log = logging.getLogger("ranking_metrics.warm_up")
_lock = threading.Lock()
_thread: threading.Thread | None = None


def start() -> threading.Thread | None:
    """Start the warm-up unless it was started before in this process (or is turned off);
    returns its thread (the one started earlier, on later calls)."""
    global _thread
    with _lock:
        if _thread is None and ENABLED:
            _thread = threading.Thread(target=_after_pause, name="server-warm-up", daemon=True)
            _thread.start()
        return _thread


#: Seconds the warm-up waits after the first page run: the browser draws that page meanwhile,
#: on a machine it may share with the server (the warm-up would take half of two cores).
PAUSE = 1.0


def _after_pause() -> None:
    time.sleep(PAUSE)
    work()


def work() -> None:
    """The warm-up itself (see the module docstring), in the calling thread."""
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
        log.exception("The warm-up of the server failed")
