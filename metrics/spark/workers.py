"""Spark's Python workers: which interpreter they run, checked before a job starts, and one
line for a job that failed in them."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from metrics.errors import MetricsError

INSTALL_HINT = "pip install -r requirements-spark.txt (and a Java 17+ runtime)"
#: What the Python workers import (the engine's kernels run in them).
WORKER_MODULES = ("numpy", "pandas", "pyarrow")


def is_local(master: str) -> bool:
    """Whether ``master`` runs the workers on this machine (``local``, ``local[4]``, ...)."""
    return master == "local" or master.startswith(("local[", "local-cluster["))


#: The ``PYSPARK_PYTHON`` this process set itself (:func:`use_worker_python`), if any.
_SET_HERE: list[str] = []


def worker_python(master: str = "local[*]") -> str | None:
    """The interpreter Spark's Python workers start: ``PYSPARK_PYTHON`` when the user set it;
    otherwise, for a local master, this process's own interpreter (``sys.executable``), which
    has the packages the engine needs; ``None`` (Spark's own choice) for a cluster, where the
    workers' Python is the cluster's."""
    chosen = os.environ.get("PYSPARK_PYTHON")
    if chosen:
        return chosen
    return sys.executable if is_local(master) and sys.executable else None


def use_worker_python(master: str) -> None:
    """Make Spark start its local workers with :func:`worker_python` (before the session is
    made; Spark's default, ``python3`` on the PATH, may lack numpy and pyarrow)."""
    python = worker_python(master)
    if python and not os.environ.get("PYSPARK_PYTHON"):
        os.environ["PYSPARK_PYTHON"] = python
        _SET_HERE.append(python)


def _user_set(python: str) -> bool:
    return os.environ.get("PYSPARK_PYTHON") == python and python not in _SET_HERE


def check_worker_python(master: str) -> None:
    """Fail at once, in one line, when the local workers' interpreter (set by the user in
    ``PYSPARK_PYTHON``) cannot import what the engine needs, instead of after Spark has read
    the input.

    Raises
    ------
    MetricsError
        When the interpreter does not start or lacks one of :data:`WORKER_MODULES`.
    """
    python = worker_python(master)
    if not is_local(master) or not python or not _user_set(python):
        return
    code = f"import {', '.join(WORKER_MODULES)}"
    try:
        done = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise MetricsError(_worker_problem(python, f"it does not start ({exc})")) from None
    if done.returncode != 0:
        error = _last_error(done.stderr) or done.stderr.strip()[-200:] or "it fails"
        raise MetricsError(_worker_problem(python, f"it cannot import them ({error})"))


def _worker_problem(python: str, what: str) -> str:
    told = " (PYSPARK_PYTHON)" if _user_set(python) else ""
    return (
        f"Spark's Python workers run {python}{told}, which needs "
        f"{', '.join(WORKER_MODULES)}, and {what}. Fix: unset PYSPARK_PYTHON to run them "
        f"with this Python ({sys.executable}), or install the packages into that one "
        "(pip install -r requirements-spark.txt)."
    )


_ERROR_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception)): (.+)$")


def _last_error(text: str) -> str:
    """The last ``SomeError: message`` line of a traceback (or ``""``)."""
    found = [m for m in map(_ERROR_LINE.match, text.splitlines()) if m]
    if not found:
        return ""
    name, message = found[-1].groups()
    return f"{name.rsplit('.', 1)[-1]}: {message.strip()}"


def failure_message(text: str, master: str = "local[*]") -> str:
    """One line for a failed Spark job: the input problem found by the engine (an
    ``InputError`` raised in a worker), or what broke in a Python worker and how to mend it,
    or the first line of Spark's message."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return "the Spark job failed without a message."
    found = next((line for line in reversed(lines) if "InputError" in line), None)
    if found is not None:
        return found.split("InputError: ")[-1][:500]
    if "Python worker" in text:
        error = _last_error(text) or lines[0]
        python = worker_python(master)
        if error.startswith(("ModuleNotFoundError", "ImportError")) and python:
            return _worker_problem(python, f"a worker failed ({error})")
        return f"a Spark Python worker failed: {error}"[:500]
    return lines[0][:500]
