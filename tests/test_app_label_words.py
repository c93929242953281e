"""The Data page shows the grades guessed for labels written as words with the rows holding
each word and the rows without a label (unjudged), in the session's language, and once they
are confirmed computes what the same table written in numbers gives."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.app_support import fresh_app, open_page, sidebar_text, upload

WORDS = (
    b"query,item,score,label\nq1,a,3,perfect\nq1,b,2,none\nq1,c,1,\n"
    b"q2,a,3,good\nq2,b,2,partial\nq2,c,1,none\n"
)
NUMBERS = b"query,item,score,label\nq1,a,3,3\nq1,b,2,0\nq1,c,1,\nq2,a,3,2\nq2,b,2,1\nq2,c,1,0\n"
UNJUDGED = {
    "en": "1 row has no label (an empty cell): its item counts as unjudged, not as not relevant.",
    "zh": "有 1 行没有标签（空单元格）：这些条目算作未标注，而不是不相关。",
    "ja": "ラベルのない行（空のセル）が 1 行あります。"
    "これらのアイテムは非関連ではなく未判定として数えます。",
}


def _editor(at) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if list(d.value.columns) == ["value", "grade", "rows"]]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]
    return found[0]


def _curves(at) -> pd.DataFrame:
    open_page(at, "curves")
    return at.dataframe[0].value.set_index("model")


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_words_are_shown_with_their_grades_and_rows_and_the_unlabelled_rows_apart(lang):
    at = upload(fresh_app({"lang": lang}), [("export.csv", WORDS, "text/csv")])
    editor = _editor(at)
    assert dict(zip(editor["value"], editor["grade"])) == {
        "perfect": 3,
        "none": 0,
        "good": 2,
        "partial": 1,
    }
    assert dict(zip(editor["value"], editor["rows"])) == {
        "perfect": 1,
        "none": 2,
        "good": 1,
        "partial": 1,
    }
    assert UNJUDGED[lang] in [c.value for c in at.caption]
    assert not sidebar_text(at).startswith("export.csv")  # waits for the confirmation


def test_confirmed_words_give_the_numbers_of_the_same_table_in_numbers():
    at = upload(fresh_app(), [("export.csv", WORDS, "text/csv")])
    boxes = [c for c in at.checkbox if c.key and c.key.startswith("w_labels_ok_")]
    boxes[0].check().run()
    assert not at.exception, [e.value for e in at.exception]
    notes = " ".join(x.value for x in at.text)
    assert (
        "read as perfect = 3 (1), good = 2 (1), partial = 1 (1), none = 0 (2) (rows in brackets)"
        in notes
    )
    twin = upload(fresh_app(), [("export.csv", NUMBERS, "text/csv")])
    assert sidebar_text(twin).startswith("export.csv")
    pd.testing.assert_frame_equal(_curves(at), _curves(twin))
