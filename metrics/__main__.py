"""``python -m metrics``: evaluate runs against judgments (see :mod:`metrics.cli.evaluate`)."""

import os
import sys

if sys.argv[1:2] != ["compare"]:
    # Set before numpy is imported; a value the user set is kept. The evaluation does no linear
    # algebra, so OpenBLAS's worker threads, which numpy starts on import, would only cost CPU
    # time; and its arrays live for a moment each, so asking the kernel for huge pages for
    # them (numpy's default) costs more in page compaction than it saves.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

from metrics.cli.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
