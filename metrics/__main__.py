"""``python -m metrics``: evaluate runs against judgments (see :mod:`metrics.cli.evaluate`)."""

import sys

from metrics.cli.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
