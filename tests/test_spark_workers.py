"""Spark's Python workers run this process's interpreter unless ``PYSPARK_PYTHON`` says
otherwise, and a worker that cannot run ends the command in one clear line."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import metrics.spark.workers as spark_module
from metrics.spark.workers import failure_message, use_worker_python, worker_python

ROOT = Path(__file__).resolve().parent.parent
TEACHING = str(ROOT / "sample_data" / "teaching" / "teaching.csv")

#: What pyspark puts into the exception of a failed task whose Python worker broke.
WORKER_TRACE = """An exception was thrown from the Python worker:
Traceback (most recent call last):
  File "/site-packages/pyspark/worker.py", line 3230, in main
    func, profiler, deserializer, serializer = read_udfs(pickleSer, infile, eval_type)
  File "/repo/metrics/engine/registry.py", line 18, in <module>
    import numpy as np
ModuleNotFoundError: No module named 'numpy'
"""


@pytest.fixture
def clean_env(monkeypatch):
    """No ``PYSPARK_PYTHON``, and none set by this process before."""
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    monkeypatch.setattr(spark_module, "_SET_HERE", [])
    return monkeypatch


def test_local_workers_run_this_interpreter_when_the_user_set_none(clean_env):
    assert worker_python("local[2]") == sys.executable
    use_worker_python("local[*]")
    assert os.environ["PYSPARK_PYTHON"] == sys.executable


def test_the_users_pyspark_python_wins(clean_env):
    clean_env.setenv("PYSPARK_PYTHON", "/opt/py/bin/python")
    use_worker_python("local[2]")
    assert os.environ["PYSPARK_PYTHON"] == "/opt/py/bin/python"
    assert worker_python("local") == "/opt/py/bin/python"


def test_a_cluster_keeps_its_own_python(clean_env):
    assert worker_python("yarn") is None
    use_worker_python("spark://host:7077")
    assert "PYSPARK_PYTHON" not in os.environ


def test_a_worker_without_numpy_is_one_line_naming_the_interpreter_and_the_fix(clean_env):
    clean_env.setenv("PYSPARK_PYTHON", "/usr/bin/python3")
    line = failure_message(WORKER_TRACE, "local[2]")
    assert "\n" not in line
    assert "/usr/bin/python3 (PYSPARK_PYTHON)" in line
    assert "ModuleNotFoundError: No module named 'numpy'" in line
    assert "unset PYSPARK_PYTHON" in line and sys.executable in line


def test_another_worker_failure_is_one_line_with_the_error_itself():
    text = WORKER_TRACE.replace(
        "ModuleNotFoundError: No module named 'numpy'", "ZeroDivisionError: division by zero"
    )
    expected = "a Spark Python worker failed: ZeroDivisionError: division by zero"
    assert failure_message(text) == expected


def test_an_input_error_raised_in_a_worker_is_its_own_message():
    text = WORKER_TRACE + "metrics.errors.InputError: run.csv: the score column is empty.\n"
    assert failure_message(text) == "run.csv: the score column is empty."


def _python_without_numpy(folder: Path) -> Path:
    """A virtual environment without this one's packages: its ``python3`` lacks numpy."""
    venv.EnvBuilder(with_pip=False, system_site_packages=False, symlinks=True).create(folder)
    python = folder / "bin" / "python3"
    check = subprocess.run([str(python), "-c", "import numpy"], capture_output=True)
    if check.returncode == 0:
        pytest.skip("the new environment sees numpy; it cannot stand for a bare python3")
    return python


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env.update(extra)
    return env


@pytest.mark.spark
def test_a_users_pyspark_python_without_numpy_fails_at_once_in_one_line(tmp_path):
    from tests.spark_support import require_pyspark

    require_pyspark()
    bare = _python_without_numpy(tmp_path / "bare")
    done = subprocess.run(
        [sys.executable, "-m", "metrics", TEACHING, TEACHING, "--engine", "spark", "-m", "P@5"],
        cwd=ROOT,
        env=_env(PYSPARK_PYTHON=str(bare)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # checked before Spark starts: no Java output either
    assert lines[0].startswith("error: Spark's Python workers run ")
    assert "No module named 'numpy'" in lines[0] and "unset PYSPARK_PYTHON" in lines[0]


@pytest.mark.spark
@pytest.mark.slow
def test_engine_spark_works_when_the_python3_on_the_path_lacks_numpy(tmp_path):
    """The project's Python called directly, no virtual environment on the PATH: the first
    ``python3`` there has none of the engine's packages."""
    from tests.spark_support import require_pyspark

    require_pyspark()
    bare = _python_without_numpy(tmp_path / "bare")
    path = os.pathsep.join([str(bare.parent), os.environ.get("PATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "metrics", TEACHING, TEACHING, "--engine", "spark", "-m", "P@5"],
        cwd=ROOT,
        env=_env(PATH=path),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("P@5\tall\t0.3600")
