"""The Learn page in a real Chromium: every lesson's challenge done by clicks, shared links,
reloads, languages, presenter mode (and the screenshots of the README)."""

from __future__ import annotations

import re

import pytest

from tests.browser.support import WAIT, new_page, wait_for_app, wait_for_curve
from ui.learn.lessons import LESSONS
from ui.shell.i18n import translate

pytestmark = pytest.mark.browser

MET = "Challenge met!"


@pytest.fixture
def page(browser):
    page = new_page(browser)
    yield page
    page.context.close()


def open_learn(page, url: str) -> None:
    page.goto(url)
    wait_for_app(page)
    page.locator('[data-testid="stCode"]').first.wait_for()
    wait_for_app(page)


def changed(page, before: str) -> None:
    """Wait until the link changed (every change of a list or setting is in it), then idle."""
    page.wait_for_function("(u) => window.location.href !== u", arg=before)
    wait_for_app(page)


#: What each control of the list says (its accessible name starts with it).
ACTIONS = {
    op: translate(f"learn.btn.{op}", "en") for op in ("label", "up", "down", "tray", "remove")
}
ACTIONS["back"] = translate("learn.btn.back", "en")


def control(page, op: str, rank: int):
    """The list's button ``op`` on rank ``rank`` (for ``back``: the tray's row ``rank``, from 0),
    found by its accessible name as a screen reader announces it."""
    name = re.escape(ACTIONS[op])
    if op == "back":
        return page.get_by_role("button", name=re.compile(f"^{name} \\(")).nth(rank)
    return page.get_by_role("button", name=re.compile(f"^{name} \\(\\D*{rank}\\D*:"))


def press(page, op: str, rank: int) -> None:
    """Click the list's button ``op`` on rank ``rank`` and wait for the page to be drawn again."""
    before = page.url
    control(page, op, rank).click()
    changed(page, before)


def click(page, key: str) -> None:
    """Press the Streamlit button with key ``key`` and wait for the page to be drawn again."""
    before = page.url
    page.locator(f".st-key-{key} button").first.click()
    changed(page, before)


def focused(page) -> str:
    """The accessible name of the focused element (inside the list's shadow root too)."""
    return page.evaluate(
        """() => { let a = document.activeElement;
                   while (a && a.shadowRoot && a.shadowRoot.activeElement)
                       a = a.shadowRoot.activeElement;
                   return a ? (a.getAttribute('aria-label') || a.textContent) : ''; }"""
    )


def choose_option(page, key: str, text: str) -> None:
    """Pick the option ``text`` of the radio group with key ``key``."""
    before = page.url
    page.locator(f".st-key-{key} label").filter(has_text=text).first.click()
    changed(page, before)


def codes(page) -> list[str]:
    return page.locator('[data-testid="stCode"] code').evaluate_all(
        "es => es.map(e => e.textContent.replace(/\\s+/g, ' ').trim())"
    )


def met(page) -> bool:
    """Whether the challenge is marked as met (waits for the mark up to a minute)."""
    mark = page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text=MET).first
    try:
        mark.wait_for()
    except Exception:
        return False
    return True


def not_met(page) -> bool:
    return page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text=MET).count() == 0


def start_lesson(page, server: str, lesson: str) -> None:
    open_learn(page, f"{server}/Learn?lesson={lesson}")
    assert not_met(page), lesson


def test_reordering_the_top_5_meets_the_what_p_at_k_ignores_challenge(server, page):
    start_lesson(page, server, "p_order")
    press(page, "down", 1)
    assert met(page)
    assert "P@5 = 3/5 = 0.60" in codes(page)


def test_the_list_is_used_with_the_keyboard_and_the_focus_follows_the_moved_item(server, page):
    start_lesson(page, server, "p_order")
    page.keyboard.press("Tab")  # the page has focus; start at the first row's label button
    control(page, "label", 1).focus()
    assert focused(page).startswith(ACTIONS["label"] + " (rank 1:")
    page.keyboard.press("Tab")  # "move up" of rank 1 is disabled: the next stop is "move down"
    name = focused(page)
    assert name.startswith(ACTIONS["down"] + " (rank 1:")
    item = name.split(": ", 2)[-1].rstrip(")")
    outline = page.evaluate(
        """() => { let a = document.activeElement;
                   while (a.shadowRoot && a.shadowRoot.activeElement)
                       a = a.shadowRoot.activeElement;
                   return getComputedStyle(a).outlineStyle; }"""
    )
    assert outline == "solid"  # the focus is visible
    before = page.url
    page.keyboard.press("Enter")
    changed(page, before)
    assert met(page) and "P@5 = 3/5 = 0.60" in codes(page)
    page.wait_for_function(
        """(want) => { let a = document.activeElement;
                       while (a && a.shadowRoot && a.shadowRoot.activeElement)
                           a = a.shadowRoot.activeElement;
                       return a && (a.getAttribute('aria-label') || '').startsWith(want); }""",
        arg=f"{ACTIONS['down']} (rank 2: {item}",
    )
    before = page.url
    page.keyboard.press("Space")  # once more: the same item goes down to rank 3
    changed(page, before)
    assert control(page, "label", 3).get_attribute("aria-label").endswith(f"(rank 3: {item})")


def test_moving_k_with_the_keyboard_meets_the_k_choice_challenge(server, page):
    start_lesson(page, server, "k_choice")
    thumb = page.locator('.st-key-w_learn_k input[type="range"]')
    for k in range(4, 8):  # K = 3 -> 7, one step at a time: each press waits for its page run
        thumb.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => window.location.href.includes('lk={k}')", timeout=WAIT)
        wait_for_app(page)
    assert met(page)
    assert "P@7 — A: 0.429, B: 0.571" in codes(page)


def test_retrieving_the_tray_items_meets_the_recall_challenge(server, page):
    start_lesson(page, server, "recall_pool")
    assert "R@5 = 3/5 = 0.60" in codes(page)
    press(page, "remove", 2)
    press(page, "remove", 4)
    press(page, "back", 0)
    press(page, "back", 0)
    assert met(page) and "R@5 = 5/5 = 1.00" in codes(page)


def test_putting_the_grade_3_item_on_top_meets_the_graded_challenge(server, page):
    start_lesson(page, server, "graded")
    press(page, "up", 3)
    press(page, "up", 2)
    assert met(page) and "P@5 = 3/5 = 0.60" in codes(page)
    page.locator(".st-key-learn_level_pick button").filter(has_text="≥ 2").click()
    wait_for_app(page, "relevant = label ≥ 2: 1 of 5 results")
    assert "P@5 = 1/5 = 0.20" in codes(page)


def press_in(page, shown: int, op: str, rank: int) -> None:
    """Click ``op`` on rank ``rank`` of the ``shown``-th of several lists."""
    before = page.url
    name = re.escape(ACTIONS[op])
    page.locator(f".st-key-list_learnq{shown}").get_by_role(
        "button", name=re.compile(f"^{name} \\(\\D*{rank}\\D*:")
    ).click()
    changed(page, before)


MRR_LINE = "MRR@5 = (0.500 + 1.000 + 0.250)/3 = 0.583"


def test_labelling_items_after_each_first_hit_meets_the_mrr_challenge(server, page):
    start_lesson(page, server, "mrr_first")
    assert any(MRR_LINE in c for c in codes(page))
    for shown, rank in ((0, 3), (1, 5), (2, 5)):
        press_in(page, shown, "label", rank)
    assert met(page)
    assert any(c.endswith("/3 = 0.583") and c.startswith("q1: RR@5 = 1/2") for c in codes(page))


def test_ordering_weak_items_perfectly_meets_the_ndcg_challenge(server, page):
    start_lesson(page, server, "ndcg_norm")
    press(page, "up", 2)
    press(page, "up", 4)
    press(page, "up", 3)
    assert met(page)
    assert any(c.startswith("nDCG@5 =") and c.endswith("= 1.000") for c in codes(page))


def test_dividing_by_the_number_returned_meets_the_short_list_challenge(server, page):
    start_lesson(page, server, "short_lists")
    assert "P@5 = 3/5 = 0.60" in codes(page)
    choose_option(page, "learn_policy_short_lists", "number returned")
    assert met(page) and "P@5 = 3/3 = 1.00" in codes(page)


def test_micro_averaging_meets_the_macro_micro_challenge(server, page):
    start_lesson(page, server, "macro_micro")
    choose_option(page, "learn_policy_averaging", "pooled counts")
    assert met(page)
    shown = codes(page)  # the means as pooled counts: micro: A wins (5/11 against 2/11)
    assert any(c.endswith("(5 + 0)/(10 + 1) = 5/11 = 0.455") for c in shown)
    assert any(c.endswith("(1 + 1)/(10 + 1) = 2/11 = 0.182") for c in shown)


def test_judging_the_unjudged_items_meets_the_judged_challenge(server, page):
    start_lesson(page, server, "unjudged")
    assert "Judged@5 = 3/5 = 0.60" in codes(page)
    press(page, "label", 2)  # ? -> 0
    press(page, "label", 2)  # 0 -> 1
    press(page, "label", 4)  # ? -> 0
    assert met(page) and "Judged@5 = 5/5 = 1.00" in codes(page)


def test_keeping_the_input_order_of_ties_meets_the_ties_challenge(server, page, shots):
    start_lesson(page, server, "ties")
    assert "P@3 = 1/3 = 0.33" in codes(page)
    assert page.get_by_text("Ranks 3–4 have the same score").count() == 1
    choose_option(page, "learn_policy_ties", "order of the input rows")
    assert met(page) and "P@3 = 0/3 = 0.00" in codes(page)
    assert page.get_by_text(f"1 of {len(LESSONS)} challenges met").count() == 1
    page.wait_for_timeout(6_000)  # the balloons fly away
    page.screenshot(path=str(shots / "learn_lesson.png"))


def test_a_shared_link_shows_the_same_list_in_a_fresh_browser_and_a_reload_keeps_it(
    server, browser, page
):
    open_learn(page, f"{server}/Learn")
    press(page, "up", 2)  # the example becomes a hand-built list: doc02 first
    press(page, "tray", 3)  # doc03 out of the list, still judged
    before = codes(page)
    assert "RR@5 = 1/2 = 0.500" in before and "P@5 = 2/5 = 0.40" in before
    assert "list=" in page.url
    page.reload()
    open_learn(page, page.url)
    assert codes(page) == before
    fresh = new_page(browser)
    open_learn(fresh, page.url)
    assert codes(fresh) == before
    assert fresh.locator(".st-key-w_learn_source input[checked]").count() in (0, 1)
    fresh.context.close()


def test_learn_in_three_languages_and_presenter_mode(server, page, shots):
    for lang, heading in (
        ("en", "Learn the measures"),
        ("zh", "学习各项指标"),
        ("ja", "指標を学ぶ"),
    ):
        open_learn(page, f"{server}/Learn?lang={lang}")
        assert page.locator("h1").first.inner_text().strip() == heading
        wait_for_curve(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        name = "learn" if lang == "en" else f"learn_{lang}"
        page.screenshot(path=str(shots / f"{name}.png"))
    page.goto(f"{server}/Learn?lesson=graded&present=1")
    wait_for_app(page)
    page.locator(".lp-board").first.wait_for()  # presenter mode: the formulas on one board
    wait_for_curve(page)
    assert page.locator('[data-testid="stSidebar"]').is_hidden()
    assert "present=1" in page.url
    page.screenshot(path=str(shots / "presenter.png"))
    click(page, "btn_present_exit")
    assert page.locator('[data-testid="stSidebar"]').is_visible()


#: Whether a number in a code block is broken over two lines (its characters' boxes lie on
#: different lines): the formula cards must break at spaces only.
BROKEN_NUMBERS = """() => {
  const broken = [];
  for (const code of document.querySelectorAll('[data-testid="stCode"] code')) {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/\\d+(?:\\.\\d+)?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


@pytest.mark.parametrize("width", [1440, 390])
def test_formula_cards_never_break_a_number_over_two_lines(server, browser, width):
    phone = new_page(browser, width, 1600)
    for path in ("/Learn", "/Learn?lq=1"):
        open_learn(phone, server + path)
        assert phone.evaluate(BROKEN_NUMBERS) == [], (width, path)
    phone.context.close()


def test_on_a_phone_every_row_of_the_lists_is_readable(server, browser):
    """At 390 px the item, its label and its mark are written whole (not cut to "#1 d…"), the
    controls sit on the line below, the tray button says what it does, and the page does not
    scroll sideways; in the several-lists mode too."""
    phone = new_page(browser, 390, 1600)
    for path in ("/Learn", "/Learn?lq=1"):
        open_learn(phone, server + path)
        texts = phone.locator(".ll-text")
        assert texts.count() >= 5
        clipped = texts.evaluate_all(
            "es => es.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"
        )
        assert clipped == [], path
        assert "relevant" in texts.first.inner_text()
        tray = phone.locator('button[data-op="tray"]').first
        assert "take out" in tray.inner_text()
        label = phone.locator('button[data-op="label"]').first.inner_text()
        assert label.startswith("make ")  # the label a press gives, not the current one
        wide = phone.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 390, path
    phone.context.close()


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_several_lists_side_by_side_with_their_means(server, browser, lang):
    wide = new_page(browser, 1440, 1500)
    open_learn(wide, f"{server}/Learn?lq=1&lang={lang}")
    assert wide.locator(".ll-root").count() == 3
    tops = wide.locator(".ll-root").evaluate_all("es => es.map(e => e.getBoundingClientRect().top)")
    assert max(tops) - min(tops) < 2  # side by side, not one under the other
    assert any(MRR_LINE.replace("MRR@5 = ", "") in c for c in codes(wide))
    wide.context.close()
