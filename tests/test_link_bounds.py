"""Links are input: every state a link carries is read within bounds on its size and depth, and
a link that cannot be read is refused with a message, never a traceback (the view's
parameters, the lists of ``?list=`` and ``?ls=``, Learn's cutoff), on random and hostile links."""

from __future__ import annotations

import base64
import contextlib
import json
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.app_support import PAGE, fresh_app
from ui.shell.handbuilt_list import MAX_DEPTH, MAX_LINK, LinkError, decode_lists
from ui.shell.i18n import translate
from ui.shell.view import (
    LIST_PARAMS,
    MAX_LIST_PARAM,
    MAX_PARAM,
    MAX_PARAMS,
    URL_NAMES,
    View,
    bounded_params,
    from_query_params,
    whole_number,
)


def packed(raw: bytes) -> str:
    """``raw`` as the lists of a link are written: zlib, base64url, after the version digit."""
    return "1" + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


#: A crafted link of a few dozen characters: compressed JSON arrays nested 5,000 deep.
DEEP = packed(b'{"l":' + b"[" * 5000)

hostile_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["²", "٣", "9" * 5000, "1e999", "nan", "-1", " 5", "1-2-3", "\x00", "%00", "10-1", "0-0"]
    ),
    st.integers(MAX_PARAM - 2, MAX_PARAM + 2).map(lambda n: "7" * n),
    st.just(DEEP),
)
param_names = st.one_of(
    st.sampled_from([*URL_NAMES.values(), *LIST_PARAMS, "lk", "lh", "lesson", "cand", "seg"]),
    st.text(max_size=8),
)


@settings(max_examples=300, deadline=None)
@given(params=st.dictionaries(param_names, hostile_text, max_size=12))
def test_any_link_gives_a_view_whose_settings_build(params):
    view = from_query_params(params)
    assert isinstance(view, View)
    view.settings()  # every value taken from the link is one the engine accepts
    lo, hi = view.k_range
    assert 1 <= lo <= hi <= 100
    assert view.max_results is None or 1 <= view.max_results <= 10**9


@settings(max_examples=200, deadline=None)
@given(
    params=st.dictionaries(
        param_names, st.integers(0, MAX_LIST_PARAM + 5).map(lambda n: "a" * n), max_size=80
    )
)
def test_only_parameters_within_the_bounds_are_kept(params):
    kept, refused = bounded_params(params)
    assert set(kept) | set(refused) == set(params)
    assert not set(kept) & set(refused)
    assert len(kept) <= MAX_PARAMS
    for name, value in kept.items():
        assert len(value) <= (MAX_LIST_PARAM if name in LIST_PARAMS else MAX_PARAM)
    for name in refused[: max(0, MAX_PARAMS - len(kept))]:
        value = params[name]
        too_long = len(value) > (MAX_LIST_PARAM if name in LIST_PARAMS else MAX_PARAM)
        assert too_long or list(params).index(name) >= MAX_PARAMS


@given(text=st.text(max_size=12), low=st.integers(0, 5), high=st.integers(5, 10**9))
def test_a_whole_number_of_a_link_is_ascii_digits_within_bounds(text, low, high):
    found = whole_number(text, low, high)
    plain = text.isascii() and text.isdigit()
    expected = int(text) if plain and low <= int(text) <= high else None
    assert found == expected


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.floats(), st.integers(), st.text(max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from("lnrusk"), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(payload=json_values)
def test_any_json_in_a_list_link_is_read_or_refused_as_a_link_error(payload):
    try:
        lists, k = decode_lists(packed(json.dumps(payload).encode()))
    except LinkError as exc:
        assert exc.kind in ("shape", "label", "text", "duplicate", "size", "empty")
    else:
        assert lists and (k is None or 1 <= k <= 100)


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(max_size=200), st.binary(max_size=200).map(packed)))
def test_any_text_as_a_list_link_is_read_or_refused_as_a_link_error(text):
    with contextlib.suppress(LinkError):
        decode_lists(text)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100, 5000, 60_000])
def test_a_link_nested_too_deep_is_refused_before_it_is_parsed(depth):
    text = packed(b'{"l":[{"n":"a","r":' + b"[" * depth + b"]" * depth + b"}]}")
    assert len(text) <= MAX_LINK
    with pytest.raises(LinkError) as caught:
        decode_lists(text)
    assert caught.value.kind == "shape"
    assert f"more than {MAX_DEPTH} levels" in str(caught.value)


def test_brackets_inside_names_are_not_nesting():
    text = packed(json.dumps({"l": [{"n": "[[[[[[[[{{{{", "r": [["]]]}}", 1]]}]}).encode())
    lists, _ = decode_lists(text)
    assert lists[0].name == "[[[[[[[[{{{{" and lists[0].items == ("]]]}}",)


def test_a_short_crafted_link_nested_thousands_deep_is_refused():
    assert len(DEEP) < 64
    with pytest.raises(LinkError):
        decode_lists(DEEP)


# --------------------------------------------------------------------------- in the app


def _opened(page: str, params: dict[str, str]):
    at = fresh_app(params)
    at.switch_page(PAGE[page])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at) -> str:
    return " ".join(e.value for e in [*at.error, *at.warning]).replace("\\", "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "params"),
    [("data", {"data": "handbuilt", "list": DEEP}), ("learn", {"list": DEEP})],
)
def test_a_hostile_list_link_shows_a_message_on_data_and_learn(page, params):
    at = _opened(page, params)
    shown = _shown(at)
    assert translate("hand.link.bad.shape", "en") in shown
    assert "Something went wrong" not in shown


@pytest.mark.slow
@pytest.mark.parametrize("page", ["data", "learn"])
def test_a_parameter_too_long_is_left_out_with_a_message(page):
    at = _opened(page, {"m": "P@10," * 1000, "lk": "²", "list": "1" + "A" * (MAX_LIST_PARAM + 1)})
    shown = _shown(at)
    assert translate("frame.link_refused", "en", names="m, list", n=2) in shown
    assert "Something went wrong" not in shown
    assert "m" not in at.query_params and "list" not in at.query_params
