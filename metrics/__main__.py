"""``python -m metrics``: evaluate runs against judgments (see :mod:`metrics.cli.main`)."""

import contextlib
import gc
import os
import sys
from typing import NoReturn

#: glibc's ``mallopt`` parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _tune_for_one_command() -> None:
    """Settings for a process that runs one command and exits, made before numpy is imported
    (values the user set are kept).

    No command does linear algebra large enough to share out (the largest are the statistics'
    matrix products of a comparison: resamples x queries times queries x rows), so OpenBLAS's
    worker threads, which numpy starts on import, would only spin: a comparison of 50 queries
    took a third more CPU time with them, for the same wall time.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _tune_for_one_evaluation() -> None:
    """Settings for an evaluation, made before numpy is imported (values the user set are
    kept).

    Its arrays (megabytes each) live for a moment, so asking the kernel for huge pages for
    them (numpy's default) costs more in page compaction than it saves; and glibc's malloc is
    told to carve arrays below 32 MB out of its heap and keep the freed heap for the next ones,
    instead of mapping fresh zeroed pages for each array and returning them when it is freed: a
    fifth fewer page faults, and half the system time.

    The cyclic garbage collector is turned off: the evaluation makes hardly any reference
    cycles (arrays and tables are freed by reference counting as before), yet each collection
    walks every object the imports made, some seventy times a run.
    """
    gc.disable()
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    except (OSError, AttributeError):  # not glibc
        pass


def _exit_at_once(status: int) -> NoReturn:
    """End the command once its output is flushed, without tearing the interpreter down:
    freeing every module and object one by one, which the operating system does at once when
    the process ends, costs more CPU time than a small evaluation. Every file a command writes
    is closed by then; a reader that has gone away (``| head``) is not an error. A process that
    started Spark ends the usual way, so that Spark's exit handlers stop its Java process."""
    if "pyspark" in sys.modules:
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream
            stream.flush()
    os._exit(status)


_tune_for_one_command()
if sys.argv[1:2] != ["compare"]:
    _tune_for_one_evaluation()

from metrics.cli.main import main  # noqa: E402

if __name__ == "__main__":
    _exit_at_once(main())
