"""``python -m metrics``: evaluate runs against judgments (see :mod:`metrics.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
