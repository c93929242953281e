"""Ids encoded once per data set: validation and rankings read the codes instead of the strings,
and nothing they report or compute changes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, rank_run
from metrics.engine.ids import encode_strings, id_codes
from metrics.io.checks import _blank_values, _repeated, validate
from metrics.io.formats import ID_NAMES, _infer_types, _stripped, _try_cast, load_table
from metrics.io.loaders import load_dataset
from metrics.schema import NULL_WORDS, normalize_name
from tests.strategies import collections

SETTINGS = [
    Settings(),
    Settings(ties="input_order"),
    Settings(duplicates="keep_best", missing_queries="zero", no_relevant="leave_out"),
    Settings(max_results=3, judged_only=True),
]


def _with_models(run: pd.DataFrame, twice: bool) -> pd.DataFrame:
    """The run as one model, or as two models (the second scoring in reverse)."""
    first = run.assign(model="a")
    if not twice:
        return first
    return pd.concat([first, run.assign(model="b", score=-run["score"])], ignore_index=True)


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Id columns as the readers give them: pyarrow-backed strings."""
    out = frame.copy()
    for column in ("query", "item", "model"):
        if column in out.columns:
            out[column] = out[column].astype("str")
    return out


def _same_lists(left, right) -> None:
    assert list(left) == list(right)
    for model in left:
        for f in dataclasses.fields(left[model]):
            a, b = getattr(left[model], f.name), getattr(right[model], f.name)
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b, err_msg=f"{model}: {f.name}")
            else:
                assert a == b, f"{model}: {f.name}"


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), twice=st.booleans(), settings_index=st.integers(0, len(SETTINGS) - 1))
def test_ranking_from_the_encoded_ids_equals_ranking_from_the_strings(data, twice, settings_index):
    run, qrels = data
    run, qrels = _as_text(_with_models(run, twice)), _as_text(qrels)
    settings = SETTINGS[settings_index]
    codes = id_codes(run["query"], run["item"], qrels["query"], qrels["item"])
    assert codes is not None
    _same_lists(rank_run(run, qrels, settings, codes=codes), rank_run(run, qrels, settings))


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), twice=st.booleans())
def test_validation_reports_the_same_findings_with_the_encoded_ids(data, twice):
    run, qrels = data
    run, qrels = _as_text(_with_models(run, twice)), _as_text(qrels)
    codes = id_codes(run["query"], run["item"], qrels["query"], qrels["item"])
    with_codes = validate(run, qrels, k_max=5, ids=codes)
    assert with_codes.findings == validate(run, qrels, k_max=5).findings


def test_validation_with_blank_ids_reports_them_and_reads_the_rest_from_the_codes():
    run = _as_text(
        pd.DataFrame(
            {
                "query": ["q1", "q1", " ", "q2", None, "q2"],
                "item": ["a", "b", "c", "\u3000", "e", "a"],
                "score": [1.0, 1.0, 2.0, 0.5, 1.0, 3.0],
                "model": ["m"] * 6,
            }
        )
    )
    qrels = _as_text(
        pd.DataFrame({"query": ["q1", "q2", "q2"], "item": ["a", "a", "a"], "relevance": [1, 0, 2]})
    )
    codes = id_codes(run["query"], run["item"], qrels["query"], qrels["item"])
    health = validate(run, qrels, k_max=3, ids=codes)
    assert health.findings == validate(run, qrels, k_max=3).findings
    assert health.get("missing_ids").count == 3
    assert health.get("tied_scores").count == 1
    assert health.get("duplicate_judgments").count == 1


def test_codes_of_other_tables_are_ignored_rather_than_trusted():
    run = _as_text(pd.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "score": [2.0, 1.0]}))
    qrels = _as_text(pd.DataFrame({"query": ["q1"], "item": ["b"], "relevance": [1]}))
    other = id_codes(run["query"][:1], run["item"][:1], qrels["query"], qrels["item"])
    lists = rank_run(run, qrels, codes=other)["run"]
    np.testing.assert_array_equal(lists.labels, [np.nan, 1.0])
    assert validate(run, qrels, ids=other).findings == validate(run, qrels).findings


@hsettings(deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "", " ", "é", "A"])), max_size=40),
    st.lists(st.sampled_from(["a", "c", "é"]), max_size=10),
)
def test_equal_strings_get_equal_codes_and_different_strings_different_ones(first, second):
    (a, b), dictionary = encode_strings(
        [
            pa.chunked_array([pa.array(first, pa.string())]),
            pa.chunked_array([pa.array(second, pa.string())]),
        ]
    )
    values = first + second
    codes = np.concatenate([a, b])
    assert len(a) == len(first) and len(b) == len(second)
    assert dictionary.take(pa.array(codes)).to_pylist() == values
    for i in range(len(values)):
        for j in range(len(values)):
            assert (codes[i] == codes[j]) == (values[i] == values[j])


def test_a_run_written_query_by_query_is_encoded_from_the_first_row_of_each_query():
    column = pa.chunked_array([pa.array(["q2"] * 50 + ["q1"] * 50), pa.array(["q1"] * 100)])
    (codes,), dictionary = encode_strings([column])
    assert dictionary.to_pylist() == ["q2", "q1"]
    np.testing.assert_array_equal(codes, [0] * 50 + [1] * 150)


@hsettings(deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5, np.inf, -np.inf])),
        max_size=30,
    )
)
def test_tied_rows_are_the_rows_pandas_finds_repeated(rows):
    keys = pd.DataFrame(rows, columns=["list", "score"]).astype({"list": "int64", "score": float})
    np.testing.assert_array_equal(_repeated(keys), keys.duplicated(keep=False).to_numpy())


@hsettings(deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(), st.text(alphabet=[" ", "\t", "\u3000", "\xa0", "a", "é", "\x1c"], max_size=4)
        ),
        max_size=30,
    ),
    st.integers(0, 5),
)
def test_blank_ids_are_found_as_trimming_every_value_finds_them(values, start):
    array = pa.array(values, pa.string()).slice(min(start, len(values)))
    trimmed = pc.equal(pc.utf8_trim_whitespace(array), "")
    expected = np.asarray(pc.fill_null(pc.or_kleene(pc.is_null(array), trimmed), True))
    np.testing.assert_array_equal(_blank_values(array), expected)
    np.testing.assert_array_equal(_blank_values(array.cast(pa.large_string())), expected)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["1", "2", None, "-3"], pa.int64()),
        (["1", "2.5", "3"], pa.float64()),
        (["1"] * 2000 + ["2.5"], pa.float64()),
        (["1.5"] * 2000 + ["x"], None),
        (["1"] * 2000 + ["99999999999999999999"], pa.float64()),
        (["inf", "1"], pa.float64()),
    ],
)
def test_a_column_is_read_as_the_first_number_type_all_its_values_convert_to(values, expected):
    converted = _try_cast(pa.chunked_array([pa.array(values, pa.string())]))
    assert (converted.type if converted is not None else None) == expected


def test_an_upload_keeps_its_encoded_ids_through_cleaning_and_ranks_as_before():
    run_csv = (
        b"query,item,score,model\n"
        b"q1,a,0.9,m1\nq1,b,0.8,m1\nq1,,0.7,m1\nq2,a,0.5,m1\n"
        b"q1,a,0.1,m2\nq1,b,0.2,m2\nq2,c,,m2\nq2,a,0.3,m2\n"
    )
    qrels_csv = b"query,item,relevance\nq1,a,1\nq1,b,0\nq2,a,2\nq2,c,1\n"
    dataset = load_dataset(
        [load_table(run_csv, "run.csv")], load_table(qrels_csv, "qrels.csv"), name="x"
    )
    assert dataset.ids is not None
    assert len(dataset.ids.run_query) == len(dataset.run)
    assert len(dataset.ids.qrels_query) == len(dataset.qrels)
    _same_lists(
        rank_run(dataset.run, dataset.qrels, codes=dataset.ids),
        rank_run(dataset.run, dataset.qrels),
    )


@hsettings(deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.text(
                alphabet=[" ", "\t", "\u3000", "\xa0", "a", "é", "!", "~", "\x7f", "\x1f", "\x85"],
                max_size=4,
            ),
        ),
        max_size=30,
    ),
    st.integers(0, 5),
)
def test_read_values_are_stripped_as_trimming_every_value_strips_them(values, cut):
    array = pa.array(values, pa.string())
    column = pa.chunked_array([array.slice(min(cut, len(values))), array.slice(0, cut)])
    trimmed = pc.utf8_trim_whitespace(column)
    expected = pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, pa.string()), trimmed)
    assert _stripped(column).to_pylist() == expected.to_pylist()


def _general_number_rules(table: pa.Table, delimiter: str) -> pd.DataFrame:
    """The reader's number rules applied to every value (the reference for the quick paths)."""
    nulls = pa.array(NULL_WORDS, pa.string())

    def cast(col):
        for target in (pa.int64(), pa.float64()):
            try:
                return pc.cast(col, target)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
        return None

    columns = {}
    for name, col in zip(table.column_names, table.columns):
        col = pc.utf8_trim_whitespace(col)
        col = pc.if_else(pc.equal(col, ""), pa.scalar(None, pa.string()), col)
        columns[name] = col
        if normalize_name(name) in ID_NAMES or col.null_count == len(col):
            continue
        if pc.any(pc.match_substring_regex(col, r"^[+-]?0\d")).as_py():
            continue
        source = pc.if_else(
            pc.is_in(pc.utf8_lower(col), value_set=nulls), pa.scalar(None, pa.string()), col
        )
        if source.null_count == len(source):
            continue
        converted = cast(source)
        if (
            converted is None
            and delimiter == ";"
            and pc.all(pc.match_substring_regex(source, r"^[+-]?\d*,\d+$|^[+-]?\d+$")).as_py()
        ):
            converted = cast(pc.replace_substring(source, ",", "."))
        if converted is not None:
            columns[name] = converted
    return pa.table(columns).to_pandas()


CELLS = ["1", "-2", "+5", "0.5", "2.5", "1e3", "007", "-01", "0", "nan", "NaN", "NA", "-", "?"]
CELLS += ["inf", "-inf", "abc", "", " 3 ", "9999999999999999999", "1,5", "\u3000", None]


@hsettings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(CELLS), min_size=1, max_size=12),
    st.sampled_from([",", ";"]),
    st.integers(0, 3000),
    st.sampled_from(["1", "2.5", "nan"]),
)
def test_number_columns_are_read_as_the_general_rules_read_them(cells, delimiter, padding, fill):
    values = [fill] * padding + cells  # long columns: the quick check reads the first values
    table = pa.table({"value": pa.array(values, pa.string()), "qid": pa.array(values, pa.string())})
    pd.testing.assert_frame_equal(
        _infer_types(table, delimiter), _general_number_rules(table, delimiter)
    )


def test_the_query_count_from_the_encoded_ids_is_the_number_of_distinct_queries(monkeypatch):
    import ui.shell.compute
    import ui.shell.memo

    monkeypatch.setattr(
        ui.shell.memo, "cached", lambda content_hash, key, compute, store=None: compute()
    )
    dataset = load_dataset(
        [load_table(b"query,item,score\nq1,a,1\nq2,a,2\nq1,b,3\nq3,,1\nq4,c,\n", "run.csv")],
        load_table(b"query,item,relevance\nq1,a,1\nq9,z,1\n", "qrels.csv"),
        name="x",
    )
    assert dataset.ids is not None
    assert ui.shell.compute.query_count(dataset) == dataset.run["query"].nunique() == 2
