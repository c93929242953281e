"""The TSV writer's two ways of formatting: a few lines in Python, many with arrow kernels,
give the same text."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics.cli import output
from metrics.cli.output import write_tsv
from metrics.engine.results import QueryIds, Results
from metrics.engine.settings import Settings

VALUES = st.one_of(
    st.floats(0, 1, allow_nan=False),
    st.sampled_from([0.0, -0.0, 0.5, 0.125, 0.09375, 1 / 3, 2.5, 1e-13, 12345.678, np.nan]),
    st.floats(-3, 3, allow_nan=False, allow_infinity=False),
    st.floats(0, 1e20, allow_nan=False),
)
IDS = st.sampled_from(["q1", "q\t2", "back\\slash", "line\nend", "é", "all", "7"])


@st.composite
def results(draw) -> Results:
    n_m = draw(st.integers(1, 4))
    names = [f"M{j}" for j in range(n_m)]
    counts = draw(st.lists(st.booleans(), min_size=n_m, max_size=n_m))
    out = Results(names, Settings(), counts=counts)
    for model in draw(
        st.lists(st.sampled_from(["run", "b\tm", "c"]), min_size=1, max_size=3, unique=True)
    ):
        n_q = draw(st.integers(0, 4))
        ids = draw(st.lists(IDS, min_size=n_q, max_size=n_q, unique=True))
        values = np.array(
            draw(st.lists(VALUES, min_size=n_q * n_m, max_size=n_q * n_m)), dtype=np.float64
        ).reshape(n_q, n_m)
        means = np.array(draw(st.lists(VALUES, min_size=n_m, max_size=n_m)), dtype=np.float64)
        out.models[model] = (QueryIds(np.array(ids, dtype=object)), values, means)
    return out


def written(res: Results, per_query: bool, digits: int, python_lines: int) -> str:
    buffer = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(output, "PYTHON_LINES", python_lines)
        write_tsv(res, list(res.names), per_query, digits, buffer)
    return buffer.getvalue()


@hsettings(max_examples=150, deadline=None)
@given(res=results(), per_query=st.booleans(), digits=st.integers(0, 12))
def test_lines_formatted_in_python_are_those_of_the_arrow_kernels(res, per_query, digits):
    python = written(res, per_query, digits, python_lines=10**9)
    arrow = written(res, per_query, digits, python_lines=-1)
    assert python == arrow


def test_the_command_line_evaluates_trec_files_without_pyarrow_compute_or_pandas(tmp_path):
    """pyarrow.compute builds a wrapper per function (about 40 ms) and pandas takes longer:
    neither is needed to evaluate TREC files."""
    import subprocess
    import sys

    (tmp_path / "q.qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    files = [str(tmp_path / "q.qrels"), str(tmp_path / "a.run")]
    code = (
        "import sys, io\n"
        "from metrics.cli.evaluate import main\n"
        f"assert main({files!r}, out=io.StringIO()) == 0\n"
        "loaded = [m for m in ('pyarrow.compute', 'pandas', 'scipy') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
