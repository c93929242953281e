"""What a new server prepares once, in the background, for every session to come: when.

The first page run of a server that finishes (:func:`ui.shell.frame.run_app`) calls :func:`start`
with the work that ``app.py`` gives the frame (:func:`ui.server_start.warm_up`: the sample's
first results of every page, computed above the wings); :func:`start` starts one thread (once
per server process), which waits :data:`PAUSE` seconds, while the browser draws that page (often
on the same machine), then does the work.

The results are the same objects every session reads: a session never computes them again (the
samples' results are shared, with the time to live of :data:`ui.shell.memo.SHARED`). The first page
itself does not wait for the warm-up, which starts only after the page's run: the frame and the
Data page import nothing of what the other pages need (``tests/test_warm_up.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: Whether :func:`start` starts the warm-up (the tests turn it off: they count computations).
ENABLED = True

_lock = threading.Lock()
_thread: threading.Thread | None = None


def start(work: Callable[[], None]) -> threading.Thread | None:
    """Start the warm-up, ``work`` after :data:`PAUSE` seconds in a thread of its own, unless it
    was started before in this process (or is turned off); returns its thread (the one started
    earlier, on later calls)."""
    global _thread
    with _lock:
        if _thread is None and ENABLED:
            _thread = threading.Thread(
                target=_after_pause, args=(work,), name="server-warm-up", daemon=True
            )
            _thread.start()
        return _thread


#: Seconds the warm-up waits after the first page run: the browser draws that page meanwhile,
#: on a machine it may share with the server (the warm-up would take half of two cores).
PAUSE = 1.0


def _after_pause(work: Callable[[], None]) -> None:
    time.sleep(PAUSE)
    work()
