"""The shared model of a hand-built list: edits, the Data page's table, CSV and the link."""

from __future__ import annotations

import base64
import json
import math
import zlib

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import evaluate
from ui.shell import handbuilt as hb
from ui.shell.handbuilt_list import (
    MAX_LINK,
    LinkError,
    RankedList,
    decode_lists,
    encode_lists,
    lists_of_table,
    next_label,
    table_of_lists,
)

NAN = float("nan")


def example() -> RankedList:
    return RankedList("ex", ("a", "b", "c", "d"), (1.0, 0.0, NAN, 2.0), (("x", 1.0),))


def same(a: RankedList, b: RankedList) -> bool:
    return (
        a.name == b.name
        and a.items == b.items
        and [None if x != x else x for x in a.labels] == [None if x != x else x for x in b.labels]
        and a.unretrieved == b.unretrieved
        and a.scores == b.scores
    )


def test_a_click_cycles_a_label_up_the_scale_then_unjudged_then_zero():
    assert [next_label(x, "graded") for x in (0, 1, 2)] == [1, 2, 3]
    assert math.isnan(next_label(3, "graded"))
    assert next_label(NAN, "graded") == 0
    assert math.isnan(next_label(1, "binary"))


def test_moving_an_item_up_swaps_it_with_the_one_above_and_stops_at_the_top():
    rl = example()
    assert rl.moved(2, -1).items == ("b", "a", "c", "d")
    assert rl.moved(1, -1).items == rl.items
    assert rl.moved(4, +1).items == rl.items


def test_an_item_sent_to_the_tray_stays_judged_and_comes_back_at_the_end():
    rl = example().to_tray(1)
    assert rl.items == ("b", "c", "d") and rl.unretrieved == (("x", 1.0), ("a", 1.0))
    back = rl.from_tray(0)
    assert back.items == ("b", "c", "d", "x") and back.labels[-1] == 1.0
    assert example().to_tray(3).unretrieved == (("x", 1.0),)  # an unjudged item is dropped


def test_added_items_get_the_first_free_name():
    rl = RankedList("l", ("d1", "d3"), (0.0, 0.0))
    assert rl.added(1.0).items == ("d1", "d3", "d2")
    assert rl.added(2.0, tray=True).unretrieved == (("d2", 2.0),)


def test_lists_go_through_the_data_page_table_and_back():
    lists = [example(), RankedList("two", ("p",), (0.0,))]
    table = table_of_lists(lists)
    assert list(table.columns) == ["list", "position", "item", "label", "retrieved"]
    assert list(table["retrieved"]) == [True, True, True, True, False, True]
    again = lists_of_table(hb.normalize(table))
    assert all(same(a, b) for a, b in zip(lists, again))


def test_the_csv_export_reads_back_as_the_same_lists_with_tray_and_unjudged_items():
    table = table_of_lists([example()])
    text = hb.csv_of(table).decode()
    assert "ex,x,,1" in text and "ex,c,3," in text
    again = hb.lists_of(hb.table_from_csv(text.encode()))
    assert same(again[0], example())


def test_the_hand_built_data_set_counts_tray_items_for_recall_and_skips_unjudged_ones():
    data = hb.to_dataset(table_of_lists([example()]))
    values = evaluate(data.run, data.qrels, ["R@4", "Judged@4"]).per_query.iloc[0]
    assert values["R@4"] == pytest.approx(2 / 3)  # a and d of a, d, x
    assert values["Judged@4"] == pytest.approx(3 / 4)


def test_a_link_round_trips_lists_cutoff_scores_and_unjudged_items():
    lists = [example(), RankedList("s", ("u", "v"), (1.0, 0.0), scores=(2.0, 2.0))]
    text = encode_lists(lists, k=7)
    assert text.startswith("1") and len(text) < 200
    assert all(c.isalnum() or c in "-_" for c in text)
    back, k = decode_lists(text)
    assert k == 7 and all(same(a, b) for a, b in zip(lists, back))


def _link(payload: object) -> str:
    raw = json.dumps(payload).encode()
    return "1" + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


@pytest.mark.parametrize(
    "text, kind",
    [
        ("", "empty"),
        ("2abc", "version"),
        ("1!!!not base64", "corrupt"),
        ("1" + "A" * 40, "corrupt"),
        ("1" + "x" * MAX_LINK, "size"),
        (_link([1, 2]), "shape"),
        (_link({"l": []}), "shape"),
        (_link({"l": [{"n": "a", "r": [["x", "lots"]]}]}), "label"),
        (_link({"l": [{"n": "a", "r": [["x", -1]]}]}), "label"),
        (_link({"l": [{"n": "a", "r": [["x", 1], ["x", 0]]}]}), "duplicate"),
        (_link({"l": [{"n": "", "r": []}]}), "text"),
        (_link({"l": [{"n": "a", "r": [["x\n", 1]]}]}), "text"),
        (_link({"l": [{"n": "a", "r": [["x", 1]]}], "k": 0}), "shape"),
        (_link({"l": [{"n": "a", "r": [["x", 1]], "u": [["y", None]]}]}), "label"),
        (_link({"l": [{"n": "a", "r": [[f"i{i}", 0] for i in range(201)]}]}), "size"),
        (_link({"l": [{"n": "a", "r": [["x", 1]], "s": [1, 2]}]}), "shape"),
    ],
)
def test_a_bad_link_raises_a_link_error_naming_the_problem(text, kind):
    with pytest.raises(LinkError) as err:
        decode_lists(text)
    assert err.value.kind == kind
    assert str(err.value).startswith("link: ")


def test_a_compressed_bomb_is_refused_without_inflating_it():
    raw = b'{"l":[{"n":"a","r":[]}],"pad":"' + b"x" * 5_000_000 + b'"}'
    text = "1" + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")
    assert len(text) < MAX_LINK
    with pytest.raises(LinkError, match="too large"):
        decode_lists(text)


names = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x9FFF, exclude_categories=["Cc", "Cs"]),
    min_size=1,
    max_size=12,
).filter(lambda s: s.strip() == s and s)
labels = st.one_of(st.just(NAN), st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5]))


@settings(max_examples=25, deadline=None)
@given(
    items=st.lists(names, min_size=0, max_size=12, unique=True),
    data=st.data(),
    k=st.integers(1, 100),
)
def test_any_valid_list_survives_the_link(items, data, k):
    cut = data.draw(st.integers(0, len(items)))
    ranked = items[:cut]
    tray = [(i, data.draw(st.sampled_from([0.0, 1.0, 2.0]))) for i in items[cut:]]
    rl = RankedList("q", tuple(ranked), tuple(data.draw(labels) for _ in ranked), tuple(tray))
    back, k2 = decode_lists(encode_lists([rl], k))
    assert k2 == k and same(back[0], rl)


def test_a_missing_label_in_the_table_means_unjudged_and_an_unticked_row_is_in_the_tray():
    table = pd.DataFrame(
        {
            "list": ["l", "l", "l"],
            "position": [2, 1, None],
            "item": ["b", "a", "z"],
            "label": [None, 1, 2],
            "retrieved": [True, True, False],
        }
    )
    rl = hb.lists_of(table)[0]
    assert rl.items == ("a", "b") and math.isnan(rl.labels[1])
    assert rl.unretrieved == (("z", 2.0),)


def test_the_hand_built_grid_speaks_the_words_of_its_csv():
    """The grid's columns are named as the CSV it downloads names them (query, item, rank,
    label), and as the other tables of the app name a query and a rank, in every language."""
    from ui.shell import handbuilt as hb
    from ui.shell.i18n import LANGUAGES, translate

    header = hb.csv_of(hb.starter_table()).decode("utf-8").splitlines()[0].split(",")
    grid = [translate(f"hand.col.{c}", "en") for c in ("list", "item", "position", "label")]
    assert grid == header == ["query", "item", "rank", "label"]
    for lang in LANGUAGES:
        assert translate("hand.col.list", lang) == translate("column.query", lang)
        assert translate("hand.col.position", lang) == translate("column.rank", lang)
        assert translate("column.rank", lang) in translate("hand.sort", lang)
