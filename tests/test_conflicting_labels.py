"""Judgments that give one (query, item) two labels (0 and 3 in two rows) are named where the
data is checked: on the Data page and in the command line's warnings, with the item, its labels
and the one kept (the highest), whether the judgments are a TREC file (read whole or block by
block) or a table."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate
from metrics.cli import evaluate
from metrics.cli.blocks import Judgments, evaluate_blocks
from metrics.engine.ranking import rank_lists, repeated_judgments
from metrics.engine.settings import Settings
from metrics.io.trec import read_trec
from tests.app_support import fresh_app, upload

QRELS = "q1 0 d1 1\nq1 0 d7 0\nq2 0 d1 1\nq1 0 d7 3\nq2 0 d2 1\nq2 0 d2 1\nq3 0 x 2\nq3 0 x 1\n"
RUN = "q1 Q0 d7 1 2.0 r\nq1 Q0 d1 2 1.0 r\nq2 Q0 d2 1 2.0 r\nq2 Q0 d1 2 1.0 r\n"
WARNING = (
    "3 judgments repeat an item already judged for the same query; the labels disagree for 2 "
    "of those items, and the highest label of each is kept. (e.g. query q1, item d7: labels "
    "0, 3 (3 kept); query q3, item x: labels 1, 2 (2 kept))"
)


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.integers(0, 6), max_size=40),
    data=st.data(),
)
def test_repeated_judgments_are_those_pandas_groups_find(keys, data):
    labels = np.array(
        data.draw(
            st.lists(
                st.sampled_from([0.0, 1.0, 3.0, np.nan]), min_size=len(keys), max_size=len(keys)
            )
        ),
        dtype=float,
    )
    keys_ = np.array(keys, dtype=np.int64)
    frame = pd.DataFrame({"key": keys_, "label": labels, "row": np.arange(len(keys))}).dropna()
    groups = frame.groupby("key")
    repeats = len(frame) - frame["key"].nunique()
    varied = groups["label"].nunique() > 1
    first_rows = groups["row"].min()[varied].sort_values().to_numpy()
    found = repeated_judgments(keys_, labels, limit=3)
    if repeats == 0:
        assert found is None
        return
    assert found is not None
    assert found.count == repeats and found.conflicts == int(varied.sum())
    assert found.conflict_rows.tolist() == first_rows[:3].tolist()
    for row, shown in zip(found.conflict_rows, found.conflict_labels):
        assert shown == tuple(sorted(groups.get_group(keys_[row])["label"].unique()))


def _files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    table = "query,item,label\n" + "".join(
        ",".join(line.split()[i] for i in (0, 2, 3)) + "\n" for line in QRELS.splitlines()
    )
    (tmp_path / "qrels.csv").write_text(table)
    return tmp_path


def _warnings(args: list[str], blocks: bool = True) -> list[str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        if not blocks:
            patch.setattr(evaluate, "_in_blocks", lambda *a, **k: None)
        assert evaluate.main(args, out, err) == 0
    return [line for line in err.getvalue().splitlines() if "repeat an item" in line]


def test_the_command_line_names_the_item_its_labels_and_the_one_kept(tmp_path):
    folder = _files(tmp_path)
    run = str(folder / "run.txt")
    trec = _warnings([str(folder / "qrels.txt"), run, run])  # noted once, not per run
    assert trec == [f"warning: qrels.txt: {WARNING}"]
    assert _warnings([str(folder / "qrels.txt"), run], blocks=False) == trec
    assert _warnings([str(folder / "qrels.csv"), run]) == [f"warning: {WARNING}"]


def test_block_by_block_the_repeats_are_those_of_the_whole_judgments(tmp_path):
    run, qrels = generate(300, depth=20, directory=tmp_path)
    lines = qrels.read_text().splitlines(keepends=True)
    relabel = [f"{ln.split()[0]} 0 {ln.split()[2]} 7\n" for ln in lines[::97]]
    repeat = lines[5:9]
    qrels.write_text("".join(lines[:500] + relabel + lines[500:] + repeat))
    whole = read_trec(run)
    judged = read_trec(qrels)
    lists = rank_lists(
        whole.query, whole.item, whole.value, judged.query, judged.item, judged.value
    )
    found = evaluate_blocks(Judgments(judged), str(run), [], Settings(), chunk_bytes=1 << 17)
    assert found is not None
    assert lists.notes.repeated_judgments == len(relabel) + len(repeat)
    assert lists.notes.conflicting_judgments == len(relabel)
    assert found.notes.repeated_judgments == lists.notes.repeated_judgments
    assert found.notes.conflicting_judgments == lists.notes.conflicting_judgments
    assert found.notes.conflict_examples == lists.notes.conflict_examples
    assert all(labels[-1] == 7 for _, _, labels in lists.notes.conflict_examples)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "en",
            ["the labels disagree for 2 of those items", "query q1, item d7: labels 0, 3 (3 kept)"],
        ),
        ("zh", ["其中 2 个条目的标签互不一致", "查询 q1，条目 d7：标签 0, 3（保留 3）"]),
        ("ja", ["うち 2 件のアイテムはラベルが食い違っています", "ラベル 0, 3（3 を残す）"]),
    ],
)
def test_the_data_page_names_the_item_its_labels_and_the_one_kept(tmp_path, lang, words):
    folder = _files(tmp_path)
    run = "query,item,score\n" + "".join(
        f"{f[0]},{f[2]},{f[4]}\n" for f in (line.split() for line in RUN.splitlines())
    )
    at = upload(
        fresh_app({"lang": lang}),
        [("run.csv", run.encode(), "text/csv")],
        ("qrels.csv", (folder / "qrels.csv").read_bytes(), "text/csv"),
    )
    shown = " ".join(x.value for x in at.main.text)
    for text in words:
        assert text in shown, shown
