"""Fuzzing the loaders: whatever the bytes, only an InputError may escape."""

from __future__ import annotations

import contextlib
import gzip

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from metrics.errors import InputError
from metrics.io.loaders import guess_roles, load_dataset, load_table, validate
from metrics.io.trec import read_trec

FUZZ = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)

_cells = st.one_of(
    st.sampled_from(
        [
            "q1",
            "q2",
            "007",
            "d1",
            "1",
            "0",
            "-1",
            "2.5",
            "nan",
            "inf",
            "yes",
            "",
            '"',
            "a,b",
            "x\ty",
            "é",
            "1e",
            "NA",
            " ",
            "Q0",
        ]
    ),
    st.text(max_size=6),
)
_separators = st.sampled_from([",", "\t", ";", "|", " ", "  "])
_headers = st.sampled_from(
    [
        "query,item,score",
        "qid\tdocid\trel",
        "user;product;clicked",
        "",
        "a|b|c|d",
        "query,item,score,label,model",
    ]
)


@st.composite
def _tables(draw) -> bytes:
    sep = draw(_separators)
    width = draw(st.integers(1, 6))
    rows = draw(
        st.lists(st.lists(_cells, min_size=max(1, width - 1), max_size=width + 1), max_size=12)
    )
    lines = [draw(_headers)] + [sep.join(r) for r in rows]
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    data = ending.join(lines).encode(
        draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1"])), errors="replace"
    )
    return gzip.compress(data) if draw(st.booleans()) else data


def _only_input_errors(action) -> None:
    with contextlib.suppress(InputError):
        action()


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes_raise_nothing_but_input_errors(data):
    _only_input_errors(lambda: load_table(data, "random.bin"))


@FUZZ
@given(st.binary(max_size=200).map(lambda b: gzip.compress(b)))
def test_random_gzip_content_raises_nothing_but_input_errors(data):
    _only_input_errors(lambda: load_table(data, "random.gz"))


@FUZZ
@given(
    st.sampled_from([b"PAR1", b"PK\x03\x04", b"{", b"[", b"\xef\xbb\xbf", b"1 Q0 d 1 "]),
    st.binary(max_size=200),
)
def test_bytes_with_a_known_magic_prefix_raise_nothing_but_input_errors(prefix, rest):
    _only_input_errors(lambda: load_table(prefix + rest, "prefixed"))


@FUZZ
@given(_tables())
@example(b"qid\tdocid\trel\ninf,q1\n,q1")
def test_malformed_tables_raise_nothing_but_input_errors_through_the_whole_pipeline(data):
    def pipeline() -> None:
        table = load_table(data, "table.csv")
        guess_roles(table.frame)
        load_dataset([table], k_max=5)

    _only_input_errors(pipeline)


@pytest.mark.slow
@FUZZ
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q", "r", ""]),
            st.sampled_from(["a", "b", "c"]),
            st.one_of(st.floats(allow_nan=True), st.sampled_from(["x", "1"])),
        ),
        max_size=8,
    ),
    st.lists(
        st.tuples(
            st.sampled_from(["q", "r"]),
            st.sampled_from(["a", "b", "z"]),
            st.one_of(st.integers(-3, 10), st.sampled_from(["yes", "?", None])),
        ),
        max_size=8,
    ),
    st.integers(1, 20),
)
def test_validate_reports_instead_of_raising(run_rows, qrels_rows, k_max):
    run = pd.DataFrame(run_rows, columns=["query", "item", "score"], dtype=object)
    qrels = pd.DataFrame(qrels_rows, columns=["query", "item", "relevance"], dtype=object)
    report = validate(run, qrels, k_max=k_max)
    assert all(f.severity in ("error", "warning", "info") for f in report.findings)
    assert all(len(f.examples) <= 5 for f in report.findings)


_trec_junk = st.one_of(
    st.text(alphabet=st.sampled_from("q1 Q0d.#\t-xe"), max_size=30),
    st.sampled_from(["", "#", "  # note", "1 Q0 d 1", "1 Q0 d x 2 t", "1 Q0 d 1 2 t extra words"]),
)


@FUZZ
@given(
    st.integers(3, 12),
    st.data(),
    st.sampled_from([" ", "\t", "  "]),
)
def test_a_trec_run_with_one_line_of_junk_is_read_as_trec_or_refused_with_that_line(n, data, sep):
    lines = [sep.join(["7", "Q0", f"d{i}", str(i + 1), f"{1 - i / 100}", "tag"]) for i in range(n)]
    at = data.draw(st.integers(0, n - 1))
    lines[at] = data.draw(_trec_junk)
    raw = ("\n".join(lines) + "\n").encode()
    try:
        table = load_table(raw, "x.run")
    except InputError as exc:
        assert exc.line == at + 1 and exc.source == "x.run"
        return
    assert table.format == "trec_run"
    assert set(table.frame["query"]) <= {"7", "1"}


def _trec_outcome(read) -> tuple:
    try:
        result = read()
    except InputError as exc:
        trec_error = "qid" in (exc.fix or "")  # the fix of every TREC reading error
        return ("error", exc.line, exc.reason) if trec_error else ("not trec",)
    if result is None or (hasattr(result, "format") and not result.format.startswith("trec")):
        return ("not trec",)
    return ("trec", len(result.frame) if hasattr(result, "frame") else len(result))


@FUZZ
@given(extra=st.lists(_trec_junk, min_size=1, max_size=6), kind=st.sampled_from(["run", "qrels"]))
def test_the_command_line_and_the_table_reader_agree_on_what_is_a_trec_file(
    tmp_path_factory, extra, kind
):
    record = "5 Q0 d1 1 0.5 t" if kind == "run" else "5 0 d1 1"
    raw = ("\n".join([record, record.replace("d1", "d2"), *extra]) + "\n").encode()
    path = tmp_path_factory.mktemp("fuzz") / "f.txt"
    path.write_bytes(raw)
    assert _trec_outcome(lambda: read_trec(path)) == _trec_outcome(lambda: load_table(raw, "f"))
