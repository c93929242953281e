"""The frame: settings shared by every page, kept in the URL, languages, deep links."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_support import ROOT, fresh_app, open_page, sidebar_text
from ui.shell.i18n import LANGUAGES, LOCALES, catalog, translate
from ui.shell.pages_registry import PAGES
from ui.shell.view import View, from_query_params, to_query_params


def test_view_survives_a_round_trip_through_the_url():
    view = View(
        data="recommendations",
        measures=("P", "nDCG"),
        k_range=(3, 50),
        relevance_level=2,
        gain="exponential",
        ties="input_order",
        short_lists="leave_out",
        averaging="micro",
        lang="ja",
    )
    params = to_query_params(view)
    assert params["m"] == "P,nDCG" and params["k"] == "3-50" and params["rel"] == "2"
    assert from_query_params(params) == view


def test_bad_url_values_are_ignored_not_fatal():
    view = from_query_params(
        {"m": "P,bogus", "k": "9-2", "rel": "nan", "gain": "cubic", "lang": "xx"}
    )
    assert view.measures == ("P",)
    assert view == View(measures=("P",))


def test_settings_from_the_url_reach_the_sidebar_and_stay_in_the_url():
    at = fresh_app({"m": "P,nDCG", "k": "1-30", "rel": "2", "gain": "exponential"})
    open_page(at, "curves")
    assert at.sidebar.multiselect(key="w_measures").value == ["P", "nDCG"]
    assert at.sidebar.slider(key="w_k").value == (1, 30)
    assert at.sidebar.number_input(key="w_rel").value == 2.0
    assert at.query_params["gain"] == "exponential" and at.query_params["k"] == "1-30"


@pytest.mark.slow
def test_a_setting_changed_on_one_page_holds_on_the_next():
    at = open_page(fresh_app(), "curves")
    at.sidebar.selectbox(key="w_short_lists").set_value("divide_by_returned").run()
    open_page(at, "learn")
    assert at.sidebar.selectbox(key="w_short_lists").value == "divide_by_returned"
    assert at.query_params["short"] == "divide_by_returned"


@pytest.mark.parametrize("page", [p.path for p in PAGES])
def test_a_page_file_run_on_its_own_still_shows_the_frame(page):
    at = AppTest.from_file(str(ROOT / page), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "web_search" in sidebar_text(at)
    assert len(at.title) == 1


@pytest.mark.slow
def test_switching_language_translates_the_page_title_and_the_sidebar():
    at = open_page(fresh_app(), "curves")
    at.sidebar.selectbox(key="w_lang").set_value("zh").run()
    assert at.title[0].value == catalog("zh")["curves.title"]
    assert at.query_params["lang"] == "zh"
    assert at.sidebar.text[0].value.splitlines()[1] == "模型：lexical, dense, hybrid"


@pytest.mark.slow
def test_a_link_with_a_language_opens_in_that_language():
    at = open_page(fresh_app({"lang": "ja"}), "learn")
    assert at.title[0].value == catalog("ja")["learn.title"]
    assert "P@5 = 3/5 = 0.60" in [c.value for c in at.code]


def _placeholders(message: str | dict[str, str]) -> set[str]:
    forms = message.values() if isinstance(message, dict) else [message]
    return {name for form in forms for name in re.findall(r"{(\w+)}", form)}


def test_every_language_has_every_message_with_the_same_placeholders():
    english = catalog("en")
    for lang in LANGUAGES:
        messages = catalog(lang)
        assert set(english) - set(messages) == set(), lang
        assert set(messages) - set(english) == set(), lang
        for key, text in english.items():
            if key.endswith(".latex"):  # a formula: its {...} are TeX groups, never filled in
                continue
            assert _placeholders(messages[key]) == _placeholders(text), (lang, key)


def test_plural_forms_are_one_and_other_in_english_and_one_text_in_chinese_and_japanese():
    plural = {k: v for k, v in catalog("en").items() if isinstance(v, dict)}
    assert "health.n_warnings" in plural
    for key, forms in plural.items():
        assert set(forms) == {"one", "other"} and "{n}" not in forms["one"], key
    for lang in ("zh", "ja"):
        assert [k for k, v in catalog(lang).items() if not isinstance(v, str)] == [], lang
    assert translate("health.n_warnings", "en", n=1).startswith("1 warning:")
    assert translate("health.n_warnings", "en", n=3).startswith("3 warnings:")
    assert translate("health.n_warnings", "ja", n=1).startswith("警告 1 件")


def test_chinese_and_japanese_are_translated_not_copied():
    english = catalog("en")
    for lang in ("zh", "ja"):
        same = [
            k
            for k, v in catalog(lang).items()
            if v == english.get(k)
            and not k.startswith("tools.profile.")  # the tools' own names
            and re.search(r"[a-z]{4,}", re.sub(r"\{\w+\}", "", str(v)))  # words, not {slots}
        ]
        assert len(same) < 15, (lang, same)


def test_every_message_used_in_the_code_is_in_the_catalog():
    used = set()
    for path in [*ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py")]:
        used |= set(re.findall(r'\bt\("([a-z_.]+)"', path.read_text(encoding="utf-8")))
    assert used - set(catalog("en")) == set()


def test_missing_message_falls_back_to_english_then_to_the_key():
    assert translate("page.curves", "xx") == "Curves"
    assert translate("no.such.key", "zh") == "no.such.key"


def test_catalog_files_are_valid_utf8_json():
    for lang in LANGUAGES:
        json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))
