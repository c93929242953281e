"""gzip tables: decompressed by ISA-L when it is installed, with Python's gzip otherwise, to the
same bytes and the same numbers; a stream that breaks off is named with the fix, on every path,
never a traceback."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.formats import write_formats
from benchmarks.generate import generate
from metrics.cli.evaluate import main
from metrics.io import source


def cli(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in args], out, err)
    return status, out.getvalue(), err.getvalue()


@given(st.lists(st.binary(max_size=3000), min_size=1, max_size=4))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_every_member_is_read_to_the_same_bytes_with_and_without_isal(tmp_path, members):
    path = tmp_path / "members.gz"
    path.write_bytes(b"".join(gzip.compress(m, compresslevel=1) for m in members))
    with source.open_gzip(path) as handle:
        found = handle.read()
    assert found == b"".join(members)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(source, "_igzip", lambda: None)
        with source.open_gzip(path) as handle:
            assert handle.read() == found


def test_isal_is_what_reads_gzip_when_installed():
    pytest.importorskip("isal")
    assert source._igzip() is not None


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    folder = tmp_path_factory.mktemp("gzip")
    run, qrels = generate(200, depth=30, directory=folder)
    return write_formats(run, qrels, folder, formats=("csv", "csv.gz"))


@pytest.mark.parametrize("whole_mb", ["0", "64"])
def test_a_gzip_run_gives_the_plain_runs_numbers_with_either_reader(files, monkeypatch, whole_mb):
    monkeypatch.setenv("RANKING_METRICS_WHOLE_MB", whole_mb)
    judgments, plain = files["csv"]
    packed = files["csv.gz"][1]
    expected = cli(judgments, plain, "-q")
    assert expected[0] == 0
    assert cli(judgments, packed, "-q") == expected
    monkeypatch.setattr(source, "_igzip", lambda: None)
    assert cli(judgments, packed, "-q") == expected
    assert cli(files["labelled.csv.gz"][1], "-q")[0] == 0


@pytest.mark.parametrize("kept", [0.1, 0.6, 0.95])
@pytest.mark.parametrize("whole_mb", ["0", "64"])
def test_a_gzip_run_that_breaks_off_is_named_with_the_fix(
    files, tmp_path, monkeypatch, kept, whole_mb
):
    """Cut in its first rows (read to settle the format) or further on (while blocks are
    read), read in blocks or whole: the file, the reason and the fix, never a traceback."""
    monkeypatch.setenv("RANKING_METRICS_WHOLE_MB", whole_mb)
    data = files["csv.gz"][1].read_bytes()
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(data[: int(len(data) * kept)])
    status, out, err = cli(files["csv"][0], broken, "-q")
    assert status != 0
    assert out == ""
    assert err.startswith("error: broken.csv.gz: The file starts like a gzip archive")
    assert "Fix: Compress it again with gzip" in err
    assert "Traceback" not in err
