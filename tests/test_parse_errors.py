"""Errors raised while reading a malformed file carry a code and parameters, and the app words
them from the catalogs in every language (the command line keeps its English line)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from metrics.errors import InputError
from metrics.io.formats import load_table
from tests.app_support import fresh_app, upload
from ui.shell.i18n import LANGUAGES, catalog

QRELS = ("judged.csv", b"query,item,relevance\nq1,a,1\nq2,d,1\n", "text/csv")


def _workbook_without_rows() -> bytes:
    out = io.BytesIO()
    pd.DataFrame().to_excel(out, index=False)
    return out.getvalue()


#: Malformed files: name, bytes, the code of the error and a parameter it names.
MALFORMED = [
    ("ragged.csv", b"query,item,score\nq1,a,1\nq1,b,2,3\nq2,d,1\n", "ragged_row", "line", 3),
    ("bad.run", b"q1 Q0 a 1 1.0 r\nq1 Q0 b 2 x r\nq2 Q0 d 1 1 r\n", "trec_score", "line", 2),
    ("rank.run", b"q1 Q0 a 1 1.0 r\nq1 Q0 b 2.5 1 r\nq2 Q0 d 1 1 r\n", "trec_rank", "line", 2),
    ("short.run", b"q1 Q0 a 1 1.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 d 1 1\n", "trec_fields_run", "line", 3),
    ("bad.json", b'{"q1": {"a": "x"}}', "json_dict_value", "value", "'x'"),
    ("broken.json", b'[{"query": "q1", "item": "a"', "json_invalid", "line", 1),
    ("lines.jsonl", b'{"query": "q1"}\n[1, 2]\n', "jsonl_not_object", "line", 2),
    ("one.csv", b"query\nq1\nq2\n", "one_column", "line", 1),
    ("empty.csv", b"\n\n", "empty_file", None, None),
    ("array.json", b"[]", "json_empty_array", None, None),
    ("sheet.xlsx", _workbook_without_rows(), "excel_empty", "sheet", "Sheet1"),
]


@pytest.mark.parametrize("name, data, code, param, value", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_parse_error_has_a_code_and_a_catalog_text_in_every_language(
    name, data, code, param, value
):
    with pytest.raises(InputError) as caught:
        load_table(data, name)
    error = caught.value
    assert error.code == code
    if param is not None:
        assert error.params[param] == value
    for lang in LANGUAGES:
        assert f"error.{code}.message" in catalog(lang), (lang, code)
        assert f"error.{code}.fix" in catalog(lang), (lang, code)


@pytest.mark.parametrize(
    "lang, words",
    [
        ("zh", ["第 3 行：应有 3 个以 ',' 分隔的值，实际有 4 个", "第 2 行：分数“x”不是数字"]),
        (
            "ja",
            [
                "3 行目：',' で区切られた値が 3 個のはずが、4 個あります",
                "2 行目：スコア「x」が数値ではありません",
            ],
        ),
    ],
)
def test_parse_errors_of_an_upload_are_worded_in_the_session_language(lang, words):
    files = [(n, d, "text/plain") for n, d, *_ in MALFORMED[:2]]
    at = upload(fresh_app({"lang": lang}), files, QRELS)
    errors = " ".join(e.value for e in at.main.error).replace("\\", "")
    for text in words:
        assert text in errors
    english = ["Expected", "is not a number", "Fix:"]
    assert not [w for w in english if w in errors], errors


def test_the_command_line_keeps_its_english_message(tmp_path):
    from metrics.cli.messages import error_line

    with pytest.raises(InputError) as caught:
        load_table(MALFORMED[1][1], "bad.run")
    assert error_line(caught.value) == (
        "error: bad.run:2: column 'score': The score 'x' is not a number. "
        "Fix: Write one result per line: qid Q0 docid rank score tag."
    )


def test_every_error_code_of_the_readers_is_in_the_catalogs():
    """The codes the readers raise (found in their source) all have catalog texts."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "metrics" / "io"
    codes = set()
    for module in ("formats.py", "trec.py", "source.py", "labels.py"):
        text = (root / module).read_text()
        codes |= set(re.findall(r'code="(\w+)"', text))
        for prefix in re.findall(r'code=f"(\w+)\{', text):
            codes |= {c for c in (k.split(".")[1] for k in catalog("en")) if c.startswith(prefix)}
    missing = {c for c in codes if f"error.{c}.message" not in catalog("en")}
    assert missing == set(), json.dumps(sorted(missing))
