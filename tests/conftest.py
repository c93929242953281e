"""Test-wide settings: tests write nothing into the repository. Hypothesis keeps no example
database, and its other caches go to the system's temporary directory."""

import functools
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


# --------------------------------------------------------------------------- the app's store
@pytest.fixture(autouse=True, scope="session")
def _store_in_a_temporary_folder(tmp_path_factory):
    """The app keeps workspaces, versions and review links in the store of
    ``RANKING_METRICS_HOME`` (or ``RANKING_METRICS_DB``): an app run by a test (AppTest, or a
    server the browser tests start) uses a temporary SQLite one, never the user's. Tests of the
    store set their own."""
    import os

    home = tmp_path_factory.mktemp("store")
    before = {
        name: os.environ.pop(name, None) for name in ("RANKING_METRICS_HOME", "RANKING_METRICS_DB")
    }
    os.environ["RANKING_METRICS_HOME"] = str(home)
    yield home
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


# --------------------------------------------------------------------------- the app's warm-up
@pytest.fixture(autouse=True)
def _no_server_warm_up(monkeypatch):
    """AppTest runs the app's frame in the test process, whose first finished page run would
    start the server's warm-up (``ui/shell/warm_up.py``) in the background: it would compute while
    tests count computations. Tests of the warm-up turn it on themselves."""
    from ui.shell import warm_up

    monkeypatch.setattr(warm_up, "ENABLED", False)


# --------------------------------------------------------------------------- AppTest's start
def _scan_installed_components_once() -> None:
    """Every ``AppTest`` scans the metadata of every installed distribution for Streamlit
    components (about 0.7 s each: several minutes over the suite); the installed packages do
    not change while the tests run, so the scan's answer is kept for the process. The app's own
    components are declared in its code and are not found by the scan either way."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "cache_info", None) is None:
        cached = functools.cache(scan)
        manifest_scanner.scan_component_manifests = lambda *args, **kwargs: list(
            cached(*args, **kwargs)
        )
        manifest_scanner.scan_component_manifests.cache_info = cached.cache_info  # type: ignore[attr-defined]


_scan_installed_components_once()
