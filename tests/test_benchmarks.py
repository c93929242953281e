"""The benchmark's in-process workers run against the current library and agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.bench_engine import K_MAX, worker_library, worker_library_pandas
from benchmarks.generate import generate


def test_library_worker_of_the_engine_benchmark_agrees_with_the_pandas_route(
    tmp_path: Path,
) -> None:
    run, qrels = generate(6, depth=12, directory=tmp_path)
    arrays = worker_library(str(qrels), str(run))["means"]
    tables = worker_library_pandas(str(qrels), str(run))["means"]
    assert len(arrays) == 4 * K_MAX + 1
    np.testing.assert_allclose(arrays, tables, rtol=0, atol=1e-12)
