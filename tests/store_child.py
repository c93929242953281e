"""A child process of the store's crash and concurrency tests (``tests/test_store_crash.py``).

``python -m tests.store_child PROJECT PREFIX COUNT POINT`` opens the store of the environment
(``RANKING_METRICS_HOME``, ``RANKING_METRICS_DB``) and saves COUNT versions PREFIX0, PREFIX1, ...
of :func:`tests.store_support.dataset` (seed = the version's number), printing ``saved NAME``
once each has committed. POINT kills the process with SIGKILL during the last save:
``files`` once its files are written (before any catalog row), ``commit`` with its rows in the
open transaction (before the commit), ``cleanup`` just after the commit; ``none`` saves them
all.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import NoReturn

from metrics.store import open_store, save_run
from metrics.store import store as store_module
from tests.store_support import dataset

_PATCHED = {"files": "add_files", "commit": "check_quotas"}


def _die(*args: object, **kwargs: object) -> NoReturn:
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def _kill_at(point: str) -> None:
    if point in _PATCHED:
        setattr(store_module.Store, _PATCHED[point], _die)
    elif point == "cleanup":
        store_module.remove_files = _die  # type: ignore[assignment]


def main(argv: list[str]) -> None:
    project, prefix, count, point = argv[0], argv[1], int(argv[2]), argv[3]
    with open_store() as store:
        for number in range(count):
            if number == count - 1 and point != "none":
                _kill_at(point)
            save_run(store, project, f"{prefix}{number}", dataset(seed=number, queries=100))
            print(f"saved {prefix}{number}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
