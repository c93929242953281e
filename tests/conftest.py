"""Test-wide settings: tests write nothing into the repository. Hypothesis keeps no example
database, and its other caches go to the system's temporary directory."""

import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "ranking-metrics-hypothesis")
settings.register_profile("repository", database=None)
settings.load_profile("repository")


# --------------------------------------------------------------------------- Spark
import pytest  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole test run: two cores, few shuffle partitions, no UI,
    bound to 127.0.0.1. Skipped without pyspark, except under CI, where it fails."""
    from tests.spark_support import require_pyspark

    require_pyspark()
    from metrics.spark.backend import local_session

    session = local_session("local[2]", app_name="ranking-metrics-tests")
    session.conf.set("spark.sql.shuffle.partitions", "4")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# --------------------------------------------------------------------------- the app's warm-up
@pytest.fixture(autouse=True)
def _no_server_warm_up(monkeypatch):
    """AppTest runs the app's frame in the test process, whose first finished page run would
    start the server's warm-up (``ui/shell/warm_up.py``) in the background: it would compute while
    tests count computations. Tests of the warm-up turn it on themselves."""
    from ui.shell import warm_up

    monkeypatch.setattr(warm_up, "ENABLED", False)
