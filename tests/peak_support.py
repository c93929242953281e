"""The peak memory of one command-line call in a fresh interpreter, for the memory tests of the
block readers (tests/test_table_blocks.py, tests/test_compare_blocks.py).

The child counts Python's allocations (``tracemalloc``) and arrow's (the system memory pool's
high-water mark), reads in small blocks so that a few MB of text span many of them, and has
every input read in blocks (``RANKING_METRICS_WHOLE_MB=0``), with the process settings of
``python -m metrics`` (:mod:`metrics.__main__`: the cyclic garbage collector is off for an
evaluation, so a reader that leaves reference cycles holds them to the end).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PREAMBLE = """\
import metrics.__main__  # the command line's own process settings (the collector is off)
import io, os, sys, tracemalloc
import pyarrow as pa
pa.set_memory_pool(pa.system_memory_pool())
pool = pa.default_memory_pool()
import openpyxl, pandas, scipy.stats
from metrics.cli import blocks, compare, evaluate
from metrics.io import table_stream
table_stream.BATCH_BYTES, table_stream.BATCH_ROWS = 1 << 18, 8192
blocks.evaluate_blocks.__defaults__ = (1 << 18,)
os.environ["RANKING_METRICS_WHOLE_MB"] = "0"
"""


def peak_of(call: str, args: list[str]) -> tuple[int, int]:
    """The exit status and peak bytes of ``call`` (Python lines run after the preamble, with
    ``args`` as ``sys.argv[1:]``; they set ``status``), once tracing has started."""
    script = _PREAMBLE + "tracemalloc.start()\n" + call + "\n"
    script += "print(status, tracemalloc.get_traced_memory()[1] + pool.max_memory())\n"
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    status, peak = (int(x) for x in done.stdout.split())
    return status, peak
