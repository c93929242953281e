"""The Data page reads labels written as text through a mapping it shows: guessed for known
scales, editable, confirmed once before anything is computed."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from tests.app_support import fresh_app, open_page, sidebar_text, upload

LOG = pd.DataFrame(
    {
        "session": ["s1", "s1", "s1", "s2", "s2", "s2"],
        "product": ["p1", "p2", "p3", "p4", "p5", "p6"],
        "model": ["m"] * 6,
        "score": [0.9, 0.5, 0.1, 0.7, 0.3, 0.2],
        "feedback": [
            "clicked",
            "not clicked",
            "not clicked",
            "not clicked",
            "clicked",
            "not clicked",
        ],
    }
)


def _parquet(frame: pd.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


def _excel(frame: pd.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.to_excel(out, index=False)
    return out.getvalue()


def _confirm_grades(at):
    boxes = [c for c in at.checkbox if c.key and c.key.startswith("w_labels_ok_")]
    assert len(boxes) == 1, [c.label for c in at.checkbox]
    boxes[0].check().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize(
    "name, data",
    [("log.parquet", _parquet(LOG)), ("log.xlsx", _excel(LOG))],
    ids=["parquet", "excel"],
)
def test_an_export_with_text_click_labels_loads_after_one_confirmation_of_the_guess(name, data):
    at = upload(fresh_app(), [(name, data, "application/octet-stream")])
    assert "Nothing is computed until the grades of the text labels are confirmed." in [
        i.value for i in at.info
    ]
    assert not sidebar_text(at).startswith(name)
    _confirm_grades(at)
    assert sidebar_text(at).startswith(name)
    notes = " ".join(x.value for x in at.text)
    assert (
        "The labels of column 'feedback' are text, read as clicked = 1 (2), not clicked = 0 (4) "
        "(rows in brackets)." in notes
    )
    open_page(at, "curves")
    table = at.dataframe[0].value.set_index("model")
    assert table.loc["m", "P@1"] == pytest.approx(0.5)  # s1's first is clicked, s2's is not


def test_chinese_click_labels_are_guessed_and_the_page_speaks_chinese():
    log = LOG.assign(feedback=LOG["feedback"].map({"clicked": "点击", "not clicked": "未点击"}))
    at = upload(fresh_app({"lang": "zh"}), [("log.parquet", _parquet(log), "x")])
    assert any("文字标签的等级确认之前" in i.value for i in at.info)
    _confirm_grades(at)
    assert sidebar_text(at).startswith("log.parquet")


def test_a_text_label_of_no_known_scale_waits_for_its_grade():
    log = LOG.assign(feedback=["clicked", "not clicked", "meh", "not clicked", "clicked", "meh"])
    at = upload(fresh_app(), [("log.parquet", _parquet(log), "x")])
    label = [b for b in at.selectbox if b.key and b.key.endswith("_label")]
    label[0].set_value("feedback").run()  # not guessed: no known scale holds 'meh'
    warnings = " ".join(w.value for w in at.warning)
    assert "Give a grade to 'meh'" in warnings.replace("\\", "")
    assert not [c for c in at.checkbox if c.key and c.key.startswith("w_labels_ok_")]
    assert not sidebar_text(at).startswith("log.parquet")
