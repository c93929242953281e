"""Memory proportional to the data: a table is read in about three times its text, and an
upload over the app's limits is refused while it is decompressed, with a message naming the
file, the figures read so far, the limit and how to go on (measured in a fresh interpreter)."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from metrics.errors import InputError
from metrics.io.formats import load_table
from metrics.io.source import UploadLimits, upload_limits
from tests.app_support import fresh_app, upload

ROOT = Path(__file__).resolve().parent.parent


def _run_text(rows: int) -> bytes:
    """A valid run table of ``rows`` rows with a label column (about 30 bytes a row)."""
    block = "".join(
        f"q{i // 100},doc{i * 7919 % 1_000_003},{(i * 7919) % 1000 / 1000:.4f},{i % 3}\n"
        for i in range(100_000)
    ).encode()
    return b"query,item,score,label\n" + block * (rows // 100_000)


def _measured(path: Path, code: str) -> dict[str, str]:
    """Run ``code`` in a fresh interpreter with ``data`` (the bytes of ``path``) read before the
    count starts; return what it printed as ``key value`` lines, with ``traced`` the peak of
    Python's allocations (tracemalloc) plus the peak of arrow's (its memory pool)."""
    start = f"""
import tracemalloc
# modules the readers import on first use: their objects are not the reading's memory
import pandas
import pyarrow.compute
import pyarrow as pa
pa.set_memory_pool(pa.system_memory_pool())
from metrics.io.formats import load_table
from metrics.io.source import UploadLimits
pool = pa.default_memory_pool()
data = open({str(path)!r}, "rb").read()
tracemalloc.start()
"""
    end = """
print("traced", tracemalloc.get_traced_memory()[1] + pool.max_memory())
"""
    script = start + textwrap.dedent(code) + end
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return dict(line.split(" ", 1) for line in done.stdout.strip().splitlines())


# --------------------------------------------------------------------------- refused early


def test_a_small_gzip_that_unpacks_past_the_limit_is_refused_while_decompressed(tmp_path):
    text = b"query,item,score\n" + b"q1,d1,0.5\n" * 3_000_000  # 30 MB of valid text
    packed = tmp_path / "clicks.csv.gz"
    packed.write_bytes(gzip.compress(text, 9))
    assert packed.stat().st_size < 100_000
    found = _measured(
        packed,
        """
        try:
            load_table(data, "clicks.csv.gz", limits=UploadLimits(2 * 1024**2, 10**9))
        except Exception as exc:
            print("error", type(exc).__name__, exc)
        """,
    )
    message = found["error"]
    assert message.startswith(
        "InputError clicks.csv.gz: The file holds more than the upload limit of 2 MB: "
        "2.0 MB of decompressed text read (209,713 rows so far)."
    ), message
    assert "python -m metrics" in message and "RANKING_METRICS_UPLOAD_MB" in message
    assert int(found["traced"]) < 8 * 1024**2, found["traced"]  # near the limit, not the text


def test_an_upload_of_too_many_rows_is_refused_before_the_rest_is_decompressed(tmp_path):
    text = b"query,item,score\n" + b"q1,d1,0.5\n" * 3_000_000
    packed = tmp_path / "clicks.csv.gz"
    packed.write_bytes(gzip.compress(text, 9))
    found = _measured(
        packed,
        """
        try:
            load_table(data, "clicks.csv.gz", limits=UploadLimits(1024**3, 100_000))
        except Exception as exc:
            print("error", type(exc).__name__, exc)
        """,
    )
    message = found["error"]
    assert message.startswith(
        "InputError clicks.csv.gz: The file has more rows than the upload limit of 100,000: "
    ), message
    assert "rows read" in message and "RANKING_METRICS_UPLOAD_ROWS" in message
    assert int(found["traced"]) < 24 * 1024**2, found["traced"]


def test_a_plain_upload_over_the_limits_names_its_size_and_rows():
    text = b"query,item,score\n" + b"q1,d1,0.5\n" * 200_000
    with pytest.raises(InputError) as caught:
        load_table(text, "plain.csv", limits=UploadLimits(1024**2, 10**9))
    assert caught.value.code == "upload_too_large"
    assert str(caught.value).startswith(
        "plain.csv: The file holds more than the upload limit of 1 MB: 1.9 MB of text read "
        "(200,000 rows so far)."
    )
    with pytest.raises(InputError) as caught:
        load_table(text, "plain.csv", limits=UploadLimits(1024**3, 1000))
    assert caught.value.code == "upload_too_many_rows"
    assert caught.value.params["n"] == 200_000


def test_a_table_within_the_limits_reads_as_without_them():
    text = b"query,item,score\nq1,d1,0.5\nq1,d2,0.25\n"
    limited = load_table(gzip.compress(text), "small.csv.gz", limits=upload_limits())
    assert limited.frame.equals(load_table(gzip.compress(text), "small.csv.gz").frame)


def test_the_limits_are_set_by_environment_variables(monkeypatch):
    monkeypatch.setenv("RANKING_METRICS_UPLOAD_MB", "3")
    monkeypatch.setenv("RANKING_METRICS_UPLOAD_ROWS", "1_000")
    assert upload_limits() == UploadLimits(3 * 1024**2, 1000)
    monkeypatch.setenv("RANKING_METRICS_UPLOAD_MB", "lots")
    monkeypatch.delenv("RANKING_METRICS_UPLOAD_ROWS")
    assert upload_limits() == UploadLimits(50 * 1024**2, 2_000_000)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["more than the upload limit of 1 MB", "RANKING_METRICS_UPLOAD_MB"]),
        ("zh", ["文件超过上传上限 1 MB", "RANKING_METRICS_UPLOAD_MB"]),
        ("ja", ["アップロード上限 1 MB を超えています", "RANKING_METRICS_UPLOAD_MB"]),
    ],
)
def test_the_app_refuses_an_upload_over_its_limit_in_the_session_language(monkeypatch, lang, words):
    monkeypatch.setenv("RANKING_METRICS_UPLOAD_MB", "1")
    data = gzip.compress(b"query,item,score\n" + b"q1,d1,0.5\n" * 300_000)
    at = upload(fresh_app({"lang": lang}), [("clicks.csv.gz", data, "application/gzip")])
    errors = " ".join(e.value for e in at.main.error).replace("\\", "")
    assert "clicks.csv.gz" in errors
    for text in words:
        assert text in errors, errors


# --------------------------------------------------------------------------- bounded reading


@pytest.mark.parametrize("packed", [False, True], ids=["text", "gzip"])
def test_reading_a_large_table_holds_about_three_times_its_text(tmp_path, packed):
    text = _run_text(800_000)  # about 24 MB
    path = tmp_path / ("run.csv.gz" if packed else "run.csv")
    path.write_bytes(gzip.compress(text, 1) if packed else text)
    found = _measured(
        path,
        f"""
        table = load_table(data, {path.name!r})
        print("rows", len(table.frame))
        """,
    )
    assert int(found["rows"]) == 800_000
    ratio = int(found["traced"]) / len(text)
    assert ratio < 3.5, f"{ratio:.2f} times the text"
