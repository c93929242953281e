"""The Learn list component's data and events: what the browser draws (translated words, the
cut at K, greyed ranks, relevant marks at the level) and which events the page accepts."""

from __future__ import annotations

import pytest

from ui.learn.list_component import CHIP_TOP, chip_colours, list_data, valid_action
from ui.shell.handbuilt_list import RankedList

NAN = float("nan")


@pytest.fixture
def rl() -> RankedList:
    return RankedList(
        name="mine",
        items=("a", "<b>x</b>", "c", "d"),
        labels=(1.0, 0.0, NAN, 3.0),
        unretrieved=(("z", 2.0),),
    )


def test_ranks_after_k_are_marked_out_and_relevance_follows_the_level(rl):
    rows = list_data(rl, 2, 2.0)["rows"]
    assert [r["out"] for r in rows] == [False, False, True, True]
    assert [r["relevant"] for r in rows] == [False, False, False, True]
    assert [r["label"] for r in rows] == ["1", "0", "?", "3"]
    assert rows[2]["unjudged"] and rows[2]["mark"] == "unjudged"


def test_user_ids_are_passed_as_plain_text_for_the_browser_to_set_as_text(rl):
    row = list_data(rl, 2, 1.0)["rows"][1]
    assert row["item"] == "<b>x</b>"  # not HTML-escaped twice; the browser uses textContent
    assert row["aria"]["up"] == "Move up one rank (rank 2: <b>x</b>)"


def test_every_control_has_an_accessible_name_with_its_row(rl):
    data = list_data(rl, 2, 1.0)
    assert set(data["rows"][0]["aria"]) == {"label", "up", "down", "tray", "remove"}
    assert data["tray"][0]["aria"]["back"] == "Into the list (not retrieved: z)"
    assert data["text"]["cut"] == "cut at K = 2: ranks below do not count"


def test_a_k_beyond_the_list_says_which_positions_are_empty(rl):
    data = list_data(rl, 6, 1.0)
    assert data["beyond"].startswith("The list has 4 results but K = 6")
    assert list_data(rl, 3, 1.0)["beyond"] == ""


def test_long_lists_show_the_first_rows_and_say_which_are_hidden():
    long = RankedList(name="l", items=tuple(f"d{i}" for i in range(40)), labels=(0.0,) * 40)
    data = list_data(long, 5, 1.0)
    assert len(data["rows"]) == 30 and data["more"] == "Ranks 31 to 40 are not shown."


def test_chips_use_one_hue_darker_for_higher_labels():
    assert chip_colours(3.0) == chip_colours(7.0) == CHIP_TOP
    assert chip_colours(0.0) != chip_colours(1.0) != chip_colours(2.0)


@pytest.mark.parametrize(
    "action, expected",
    [
        ({"op": "down", "index": 1}, ("down", 1)),
        ({"op": "up", "index": 1}, None),  # the first rank cannot move up
        ({"op": "down", "index": 4}, None),  # nor the last down
        ({"op": "remove", "index": 5}, None),  # no rank 5
        ({"op": "back", "index": 0}, ("back", 0)),
        ({"op": "back", "index": 1}, None),  # one item in the tray
        ({"op": "add", "index": 7}, ("add", 0)),
        ({"op": "eval", "index": 1}, None),
        ({"op": "label", "index": "1"}, None),
        ({"op": "label", "index": True}, None),
        ("down", None),
    ],
)
def test_only_events_that_fit_the_shown_list_are_accepted(rl, action, expected):
    assert valid_action(rl, action) == expected


def test_a_press_on_a_list_that_has_changed_since_is_ignored(rl):
    shown = list_data(rl, 2, 1.0)["version"]
    assert valid_action(rl, {"op": "down", "index": 1, "version": shown}) == ("down", 1)
    moved = rl.moved(1, +1)
    assert valid_action(moved, {"op": "down", "index": 1, "version": shown}) is None
    assert list_data(moved, 2, 1.0)["version"] != shown


def test_a_list_ordered_by_score_cannot_be_moved(rl):
    scored = RankedList(name="s", items=("a", "b"), labels=(1.0, 0.0), scores=(2.0, 1.0))
    assert valid_action(scored, {"op": "down", "index": 1}) is None
    assert list_data(scored, 1, 1.0)["can_move"] is False


@pytest.mark.parametrize(
    "op, index",
    [
        ("label", 2),
        ("label", 3),
        ("up", 2),
        ("down", 1),
        ("tray", 1),
        ("remove", 4),
        ("add", 0),
        ("add_tray", 0),
        ("back", 0),
        ("tray_label", 0),
        ("tray_remove", 0),
        ("tray_label_three_times", 0),
    ],
)
def test_an_edited_hand_built_list_needs_no_cleaning_of_its_table(op, index):
    from ui.shell import handbuilt as hb
    from ui.shell.handbuilt_list import replace_list

    table = hb.table_of(
        [
            RankedList("mine", ("a", "b", "c", "d"), (1.0, 0.0, NAN, 2.0), (("z", 1.0),)),
            RankedList("other", ("x", "y"), (0.0, 1.0)),
        ]
    )
    lists = hb.lists_of(table)  # the session's lists are cleaned once
    rl = lists[0]
    edited = {
        "label": lambda: rl.cycled(index),
        "up": lambda: rl.moved(index, -1),
        "down": lambda: rl.moved(index, +1),
        "tray": lambda: rl.to_tray(index),
        "remove": lambda: rl.removed(index),
        "add": lambda: rl.added(0.0),
        "add_tray": lambda: rl.added(1.0, tray=True),
        "back": lambda: rl.from_tray(index),
        "tray_label": lambda: rl.tray_cycled(index),
        "tray_label_three_times": lambda: (
            rl.tray_cycled(index).tray_cycled(index).tray_cycled(index)
        ),
        "tray_remove": lambda: rl.tray_removed(index),
    }[op]()
    new_lists = replace_list(lists, edited, rl.name)
    read_back = hb.lists_of(hb.table_of(new_lists))
    assert repr(hb.as_read_back(new_lists)) == repr(read_back)  # NaN-safe
    assert read_back[0].items == edited.items


def test_the_label_button_says_which_label_a_press_gives_and_what_it_means(rl):
    rows = list_data(rl, 2, 1.0, scale="graded")["rows"]
    assert [r["next"] for r in rows] == [
        "make 2 (relevant)",
        "make 1 (relevant)",
        "make 0 (not relevant)",
        "make ? (unjudged)",
    ]
    binary = list_data(rl, 2, 1.0, scale="binary")["rows"]
    assert binary[0]["next"] == "make ? (unjudged)"
    assert list_data(rl, 2, 3.0)["rows"][1]["next"] == "make 1 (not relevant)"  # level 3


def test_the_tray_holds_the_relevant_items_and_the_others_are_listed_apart(rl):
    """Taking a non-relevant item out of the list keeps its judgment, but not in the tray of
    relevant items."""
    out = rl.to_tray(2)  # "<b>x</b>", label 0
    data = list_data(out, 2, 1.0)
    assert [r["item"] for r in data["tray"]] == ["z"]
    assert [(r["item"], r["index"]) for r in data["tray_other"]] == [("<b>x</b>", 1)]
    assert data["text"]["tray_other_title"] == "Judged, not relevant, not retrieved"
    assert data["tray_other"][0]["next"] == "make 1 (relevant)"  # a tray item stays judged
    raised = list_data(out, 2, 3.0)  # at level 3, z (2) is not relevant either
    assert data["tray"] and not raised["tray"] and len(raised["tray_other"]) == 2


def test_the_tray_button_has_a_word_not_only_a_sign(rl):
    assert list_data(rl, 2, 1.0)["text"]["tray_word"] == "take out"


def test_counts_in_the_lists_sentences_take_the_singular_for_one(rl):
    from metrics import Settings
    from ui.learn.evaluate import pitfalls
    from ui.shell.i18n import translate

    one = RankedList("one", ("a",), (1.0,), (("z", 1.0),))
    found = dict(pitfalls(one, 3, Settings()))
    assert translate("learn.pit.pool", "en", **found["pool"]).startswith(
        "1 relevant item is not in the list"
    )
    assert translate("learn.pit.short", "en", **{**found["short"], "policy": "p"}).startswith(
        "The list has 1 result but K = 3."
    )
    assert list_data(one, 3, 1.0)["beyond"] == (
        "The list has 1 result but K = 3: positions 2 to 3 are empty."
    )
