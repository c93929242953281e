"""Hostile and broken inputs: each gives a clear message or correct numbers, never a traceback,
and compressed bombs are refused with bounded memory (measured in a subprocess)."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

from metrics.cli.evaluate import main
from metrics.errors import InputError
from metrics.io.formats import load_table
from metrics.io.loaders import load_dataset

ROOT = Path(__file__).resolve().parent.parent
TREC = ROOT / "sample_data" / "web_search" / "trec"
QRELS, RUN = TREC / "web_search.qrels", TREC / "hybrid.run"

#: Peak memory a refused compression bomb may add to the process, in MB.
BOMB_BOUND_MB = 120


def _zeros_gzip(n_bytes: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 22)
    parts = [packer.compress(block) for _ in range(n_bytes // len(block))]
    return b"".join(parts) + packer.flush()


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], out, err)
    return status, out.getvalue(), err.getvalue()


def _peak_mb_added(code: str) -> tuple[float, str]:
    """Run ``code`` in a fresh interpreter after the imports; return the peak RSS it added (MB)
    and what it printed."""
    script = textwrap.dedent(
        """
        import resource, sys
        from metrics.io.formats import load_table
        from metrics.io.source import read_input
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        {code}
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print("PEAK", (after - before) / 1024)
        """
    ).format(code=textwrap.indent(textwrap.dedent(code), "").strip())
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    return float(lines[-1].split()[1]), "\n".join(lines[:-1])


# --------------------------------------------------------------------------- compression


def test_a_gzip_of_zeros_is_refused_as_binary_from_its_first_bytes_with_little_memory(tmp_path):
    bomb = tmp_path / "zeros.csv.gz"
    bomb.write_bytes(_zeros_gzip(512 * 1024**2))  # 512 MB of zeros, 0.5 MB compressed
    peak, printed = _peak_mb_added(
        f"""
        data = open({str(bomb)!r}, "rb").read()
        try:
            load_table(data, "zeros.csv.gz")
        except Exception as exc:
            print(type(exc).__name__, exc)
        """
    )
    assert printed.startswith("InputError zeros.csv.gz: The file looks binary")
    assert "Upload" in printed
    assert peak < BOMB_BOUND_MB, f"{peak:.0f} MB"


def test_a_gzip_over_the_budget_stops_at_the_budget_with_memory_near_it(tmp_path):
    text = b"query,item,score\n" + b"q1,d1,0.5\n" * 3_000_000  # 30 MB of text
    bomb = tmp_path / "big.csv.gz"
    bomb.write_bytes(gzip.compress(text, 6))
    peak, printed = _peak_mb_added(
        f"""
        data = open({str(bomb)!r}, "rb").read()
        try:
            read_input(data, "big.csv.gz", budget=8 * 1024**2)
        except Exception as exc:
            print(type(exc).__name__, exc)
        """
    )
    assert printed.startswith(
        "InputError big.csv.gz: The decompressed file is larger than 8 MB; reading stopped at 8 MB."
    )
    assert peak < 8 + 40, f"{peak:.0f} MB"


def test_a_gzip_of_a_table_in_several_members_reads_every_member():
    first = gzip.compress(b"query,item,score\nq1,d1,0.5\n")
    second = gzip.compress(b"q1,d2,0.25\n")
    table = load_table(first + second, "two.csv.gz")
    assert table.compressed
    assert list(table.frame["item"]) == ["d1", "d2"]


def test_a_truncated_gzip_is_refused_with_a_message():
    data = gzip.compress(b"query,item,score\n" + b"q1,d1,0.5\n" * 1000)
    with pytest.raises(InputError, match="cannot be decompressed"):
        load_table(data[: len(data) // 2], "cut.csv.gz")


# --------------------------------------------------------------------------- text shape


def test_a_nul_byte_is_refused_the_same_way_in_runs_and_in_judgments(tmp_path):
    body = "".join(f"q1 Q0 d{i} {i} {1 / i:.4f} tag\n" for i in range(1, 5000))
    run = tmp_path / "nul.run"
    run.write_bytes((body + "q1 Q0 d\x00x 5000 0.0001 tag\n").encode())
    judged = "".join(f"q1 0 d{i} 1\n" for i in range(1, 5000))
    qrels = tmp_path / "nul.qrels"
    qrels.write_bytes((judged + "q1 0 d\x00x 1\n").encode())
    status_run, _, err_run = _cli(QRELS, run)
    status_qrels, _, err_qrels = _cli(qrels, RUN)
    assert status_run == status_qrels == 2
    assert "nul.run:5000: The file holds a NUL byte" in err_run
    assert "nul.qrels:5000: The file holds a NUL byte" in err_qrels
    with pytest.raises(InputError, match="line 5000: The file holds a NUL byte"):
        load_table(qrels.read_bytes(), "nul.qrels")


def test_a_table_of_100000_columns_is_refused_for_its_columns_not_for_having_no_rows():
    header = ",".join(f"c{i}" for i in range(100_000))
    row = ",".join("1" for _ in range(100_000))
    with pytest.raises(InputError) as info:
        load_table(f"{header}\n{row}\n".encode(), "wide.csv")
    assert "The first line has 100,000 columns; at most 10,000 are read." in str(info.value)


def test_a_first_line_longer_than_the_limit_is_refused():
    with pytest.raises(InputError, match="The first line is longer than 1 MB"):
        load_table(b"query,item," + b"x" * (2 * 1024**2) + b"\n", "long.csv")


def test_the_binary_message_says_upload_for_uploads_and_give_for_paths(tmp_path):
    path = tmp_path / "blob.csv"
    path.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(InputError) as uploaded:
        load_table(path.read_bytes(), "blob.csv")
    with pytest.raises(InputError) as given:
        load_table(path)
    assert "Fix: Upload a CSV" in str(uploaded.value)
    assert "Fix: Give a CSV" in str(given.value)
    assert "upload" not in str(given.value).lower()


# --------------------------------------------------------------------------- command line


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_the_command_line_refuses_dev_zero_at_once(which):
    args = ("/dev/zero", RUN) if which == "qrels" else (QRELS, "/dev/zero")
    status, out, err = _cli(*args)
    assert status == 2 and out == ""
    assert "'/dev/zero' is a device, not a regular file" in err


def test_the_command_line_refuses_a_fifo_without_opening_it(tmp_path):
    fifo = tmp_path / "pipe.run"
    os.mkfifo(fifo)
    status, _, err = _cli(QRELS, fifo)
    assert status == 2
    assert "is a named pipe (FIFO), not a regular file" in err


def test_the_command_line_refuses_a_directory(tmp_path):
    status, _, err = _cli(QRELS, tmp_path)
    assert status == 2
    assert "is a directory, not a regular file" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--curves", "1000000"], "--curves needs a K from 1 to 1,000, got 1,000,000."),
        (["-m", "P@1..1000000"], "a cutoff range ends at K = 1,000 at most"),
        (["-m", "nDCG@5000000"], "the cutoff K is at most 100,000"),
    ],
)
def test_the_command_line_refuses_an_oversized_k_with_a_message(argv, message):
    status, out, err = _cli(QRELS, RUN, *argv)
    assert status == 2 and out == ""
    assert message in err
    assert err.count("\n") == 1


def test_the_command_line_dev_zero_exits_2_in_a_real_process():
    done = subprocess.run(
        [sys.executable, "-m", "metrics", "/dev/zero", str(RUN)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "not a regular file" in done.stderr


# --------------------------------------------------------------------------- hostile ids


def _labelled(rows: list[tuple[str, str, float, int]]) -> bytes:
    out = io.StringIO()
    import csv

    writer = csv.writer(out)
    writer.writerow(["query", "item", "score", "label"])
    writer.writerows(rows)
    return out.getvalue().encode()


def test_hostile_ids_are_kept_as_text_and_counted_correctly():
    long_id = "q" * 100_000
    rows = [
        ("<script>alert(1)</script>", '=HYPERLINK("http://x","y")', 0.9, 1),
        ("<script>alert(1)</script>", "d2", 0.5, 0),
        (long_id, "tab\there", 0.8, 1),
        (long_id, "line\nbreak", 0.7, 0),
        ("", "orphan", 0.6, 1),
    ]
    data = load_dataset([load_table(_labelled(rows), "hostile.csv")])
    assert set(data.run["query"]) == {"<script>alert(1)</script>", long_id}
    assert set(data.run["item"]) >= {'=HYPERLINK("http://x","y")', "tab\there", "line\nbreak"}
    assert len(data.run) == 4  # the row with an empty query id is dropped and reported


def test_a_json_dictionary_bomb_of_deep_nesting_is_a_message():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(InputError):
        load_table(deep.encode(), "deep.json")
    assert json.dumps({"ok": 1})


# --------------------------------------------------------------------------- unusable data sets


def test_a_run_whose_scores_are_all_empty_is_refused_saying_what_was_dropped():
    run = load_table(b"query,item,score\nq1,d1,\nq1,d2,\nq2,d1,\n", "empty.csv")
    qrels = load_table(b"query,item,label\nq1,d1,1\n", "judged.csv")
    with pytest.raises(InputError) as info:
        load_dataset([run], qrels)
    message = str(info.value)
    assert message.startswith("empty.csv: Nothing can be evaluated: no usable rows in the run")
    assert "3 rows have no score" in message


def test_a_labelled_run_without_any_score_is_refused_not_read_as_judgments_only():
    run = load_table(b"query,item,score,label\nq1,d1,,1\nq1,d2,,0\n", "labels.csv")
    with pytest.raises(InputError, match="none of its 2 rows has a score or a rank"):
        load_dataset([run])


def _formula_workbook() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["query", "item", "score", "label"])
    for i in range(2, 8):
        sheet.append(["q1", f"d{i}", f"=RAND()*{i}", i % 2])
    sheet.merge_cells("A5:A7")
    out = io.BytesIO()
    book.save(out)  # openpyxl saves formulas without values, as scripts that write .xlsx do
    return out.getvalue()


def test_an_excel_file_of_formulas_without_saved_values_is_refused_with_the_reason():
    table = load_table(_formula_workbook(), "formulas.xlsx")
    assert "6 cells hold a formula without a saved value and read as empty" in table.notes
    with pytest.raises(InputError) as info:
        load_dataset([table])
    message = str(info.value)
    assert "none of its 6 rows has a score or a rank" in message
    assert "formula without a saved value" in message
    assert "merged cells keep their value only in the first cell" in message


# --------------------------------------------------------------------------- text that cannot lie

RLO = "\u202e"


def test_bidi_controls_in_ids_segments_and_file_names_are_made_visible_when_loading():
    from metrics.io.text_safety import BIDI_CONTROLS, visible

    lines = [
        f"q{i},d{i}{RLO},0.{i},{i % 2},north{RLO}{BIDI_CONTROLS[i % 3]}x" for i in range(1, 40)
    ]
    rows = ("query,item,score,label,region\n" + "\n".join(lines) + "\n").encode()
    data = load_dataset([load_table(rows, f"run{RLO}.csv")], name=f"up{RLO}load")
    texts = [*data.run["item"], *data.run["region"], *data.segments["region"], data.name]
    texts += data.models
    assert all(ch not in t for t in texts for ch in BIDI_CONTROLS)
    assert "north[U+202E][U+061C]x" in set(data.segments["region"])
    assert data.name == "up[U+202E]load" and data.models == ["run[U+202E]"]
    assert visible(BIDI_CONTROLS) == "".join(f"[U+{ord(c):04X}]" for c in BIDI_CONTROLS)


def test_loading_numbers_are_unchanged_by_making_bidi_visible():
    from metrics import Settings, evaluate

    plain = load_table(b"query,item,score,label\nq1,a,3,1\nq1,b,2,0\nq2,c,1,1\n", "p.csv")
    tricky = load_table(
        f"query,item,score,label\nq1{RLO},a,3,1\nq1{RLO},b,2,0\nq2,c{RLO},1,1\n".encode(),
        "p.csv",
    )
    a = evaluate(load_dataset([plain]).run, load_dataset([plain]).qrels, ["P@2"], Settings())
    b = evaluate(load_dataset([tricky]).run, load_dataset([tricky]).qrels, ["P@2"], Settings())
    assert list(a.per_query["P@2"]) == list(b.per_query["P@2"])


def test_plotly_text_is_escaped_once_and_keeps_quotes_readable():
    from ui.shell.safe import plotly_text

    assert plotly_text('say "hi" <b>&</b> 50%{y}') == 'say "hi" &lt;b&gt;&amp;&lt;/b&gt; 50&#37;{y}'
    assert plotly_text(f"a{RLO}b") == "a[U+202E]b"


def test_a_model_name_with_a_quote_shows_the_quote_in_the_legend_not_an_entity():
    import pandas as pd

    from ui.curves.figures import curve_figure

    table = pd.DataFrame(
        {
            "model": ['my "best" <model>'] * 2,
            "measure": ["P"] * 2,
            "k": [1, 2],
            "mean": [0.5, 0.4],
            "q1": [0.0, 0.0],
            "median": [0.5, 0.5],
            "q3": [1.0, 1.0],
            "n": [2, 2],
        }
    )
    fig = curve_figure(table, "P", title="t", x_label="K", y_label="P", queries_label="q")
    names = [trace.name for trace in fig.data if trace.name]
    assert 'my "best" &lt;model&gt;' in names
    assert not any("&quot;" in n for n in names)


def test_csv_exports_neutralise_formulas_and_show_bidi_controls():
    import pandas as pd

    from metrics.io.export import to_csv_bytes

    frame = pd.DataFrame({"query": ['=HYPERLINK("http://x","y")', f"a{RLO}b"], "v": [1.0, -2.0]})
    text = to_csv_bytes(frame).decode("utf-8-sig")
    assert "'=HYPERLINK" in text and "a[U+202E]b" in text and RLO not in text
    assert "-2.0" in text


def test_the_html_report_escapes_hostile_ids_and_shows_bidi_controls():
    import pandas as pd

    from metrics.review.stakeholder_report import html_table

    html = html_table(pd.DataFrame({"segment": [f"<script>x</script>{RLO}", "ok"], "v": [1, 2]}))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert RLO not in html and "[U+202E]" in html
