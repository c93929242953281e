"""A lesson that asks for a prediction, in a real Chromium: the learner picks an answer and
commits to it before any number is shown, the page says it was right and shows metrics'
numbers, and the challenge is met by a click on the page's setting."""

from __future__ import annotations

import pytest

from metrics import Settings
from tests.browser.support import WAIT, new_page, wait_for_app
from tests.browser.test_learn import choose_option, codes, met, not_met
from ui.learn.lessons import BY_ID, value
from ui.shell.i18n import translate

pytestmark = pytest.mark.browser

LESSON = "gain_formulas"


@pytest.fixture
def page(browser):
    page = new_page(browser)
    yield page
    page.context.close()


def shows_code(page, text: str) -> bool:
    """Whether a code block reads ``text`` (spaces folded), waiting for the page's run to draw
    it: the challenge's mark is drawn above the lists, so it can be new while the formulas
    below it are still the last run's."""
    try:
        page.wait_for_function(
            "(t) => [...document.querySelectorAll('[data-testid=\"stCode\"] code')]"
            ".some(e => e.textContent.replace(/\\s+/g, ' ').trim() === t)",
            arg=text,
            timeout=WAIT,
        )
    except Exception:
        return False
    return True


def ndcg(gain: str) -> tuple[float, float]:
    a, b = BY_ID[LESSON].lists
    k, s = BY_ID[LESSON].k, Settings(gain=gain)
    return value(a, "nDCG", k, s), value(b, "nDCG", k, s)


def test_the_gain_lesson_is_predicted_then_met_by_choosing_the_other_gain(server, page):
    page.goto(f"{server}/Learn?lesson={LESSON}")
    wait_for_app(page, translate("learn.predict.title"))
    assert page.locator('[data-testid="stCode"]').count() == 0  # no number before the answer
    commit = page.locator(".st-key-btn_predict button")
    assert commit.is_disabled()
    page.locator(f".st-key-learn_predict_{LESSON} label").filter(has_text="List B").click()
    page.wait_for_function(  # the button is redrawn by the rerun: absent for a moment
        "() => { const b = document.querySelector('.st-key-btn_predict button');"
        " return b !== null && !b.disabled; }",
        timeout=WAIT,
    )
    commit.click()
    wait_for_app(page, "Right: you chose “List B”.")
    a_exp, b_exp = ndcg("exponential")
    a_lin, b_lin = ndcg("linear")
    page.get_by_text(f"nDCG@3 is {a_exp:.3f} for A and {b_exp:.3f} for B").wait_for(timeout=WAIT)
    assert shows_code(page, f"nDCG@3 — A: {a_lin:.3f}, B: {b_lin:.3f}"), codes(page)
    assert not_met(page)
    choose_option(page, "learn_policy_gain", "2^r − 1")
    assert met(page)
    assert shows_code(page, f"nDCG@3 — A: {a_exp:.3f}, B: {b_exp:.3f}"), codes(page)
    assert "gain=exponential" in page.url
