"""Test-wide settings: tests write nothing into the repository. Hypothesis keeps no example
database, and its other caches go to the system's temporary directory."""

import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "ranking-metrics-hypothesis")
settings.register_profile("repository", database=None)
settings.load_profile("repository")
