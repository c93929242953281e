"""The Learn page in a classroom, in a real Chromium: presenter mode on a 1280×720 and a
1440×900 projector (the list and the formula board inside the first screen, every formula on one
line, no table wider than the page, no expected answer projected), the new lessons' challenges
done by clicks, headings that do not break inside a word, and the worksheet printed to PDF with
its answers on the last page only (A4 and Letter). Screenshots of presenter mode, the new
lessons and the worksheet in three languages go to the screenshot folder."""

from __future__ import annotations

import re
import unicodedata

import pytest

from metrics import Settings
from tests.browser.support import WAIT, new_page, wait_for_app
from tests.browser.test_learn import ACTIONS, changed, codes, met, not_met
from ui.learn.evaluate import measure_cards
from ui.learn.lessons import BY_ID, text_values
from ui.learn.views import DEFAULT_MEASURES
from ui.learn.worksheet import items_of, worksheet_html
from ui.shell.i18n import translate

pytestmark = pytest.mark.browser

PROJECTORS = [(1280, 720), (1440, 900)]


def open_learn(page, url: str, ready: str = ".st-key-list_learn .ll-row") -> None:
    page.goto(url)
    wait_for_app(page)
    page.locator(ready).first.wait_for()
    wait_for_app(page)


def inside_first_screen(page, selector: str) -> list[str]:
    """The elements of ``selector`` whose box is not wholly inside the first viewport."""
    return page.locator(selector).evaluate_all(
        """(es) => es.filter(e => { const r = e.getBoundingClientRect();
                 return r.width === 0 || r.top < 0 || r.left < 0
                   || r.bottom > window.innerHeight + 0.5 || r.right > window.innerWidth + 0.5; })
               .map(e => e.className + ': ' + e.textContent.slice(0, 60))"""
    )


#: Tables (HTML tables and Streamlit's) wider than the page, and a page that scrolls sideways.
TOO_WIDE = """() => {
  const page = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('table, [data-testid="stDataFrame"]')]
    .filter(t => t.getBoundingClientRect().right > page + 0.5 || t.scrollWidth > t.clientWidth + 1)
    .map(t => t.className || t.dataset.testid);
  if (document.documentElement.scrollWidth > page) wide.push('the page');
  return wide;
}"""

#: Formulas of the board that take more than one line, or are cut.
BROKEN_FORMULAS = """() => [...document.querySelectorAll('.lp-f')].filter(f => {
  const lines = new Set([...f.getClientRects()].map(r => Math.round(r.top)));
  return lines.size !== 1 || f.scrollWidth > f.clientWidth + 1
    || f.getBoundingClientRect().right > f.closest('.lp-board').getBoundingClientRect().right + 1;
}).map(f => f.textContent)"""


@pytest.mark.parametrize(("width", "height"), PROJECTORS)
def test_presenter_mode_shows_the_list_and_every_formula_on_the_first_screen(
    server, browser, shots, width, height
):
    page = new_page(browser, width, height)
    open_learn(page, f"{server}/Learn?present=1&m=P,nDCG,wP,cwP")
    page.locator(".lp-board").wait_for()
    assert page.locator('[data-testid="stSidebar"]').is_hidden()
    assert inside_first_screen(page, ".st-key-list_learn") == []
    assert inside_first_screen(page, ".st-key-w_learn_k") == []  # K
    assert inside_first_screen(page, ".lp-board, .lp-row") == []
    board = page.locator(".lp-board").inner_text()
    for line in ("P@5 = 3/5 = 0.60", "nDCG@5 = 1.931/2.948 = 0.655", "Judged@5 = 5/5 = 1.00"):
        assert line in board
    assert "wP@5 = (1.000 + 0.500 + 0.431)/2.948 = 0.655" in board
    assert "w = 1.000, 0.631, 0.500, 0.431, 0.387" in board
    assert "cwP@5 weighs each item by the model's confidence" in board  # its own place
    assert page.evaluate(BROKEN_FORMULAS) == []
    clipped = page.locator(".ll-text").evaluate_all(
        "es => es.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"
    )
    assert clipped == []  # no label cut to "not rel…"
    page.locator(".lp-tables").scroll_into_view_if_needed()
    assert page.evaluate(TOO_WIDE) == []
    running = page.get_by_role("columnheader", name="running DCG")
    assert running.is_visible() and running.bounding_box()["x"] + 20 < width
    ideal = page.locator(".lp-tables table").nth(1).inner_text()
    assert "doc11" in ideal and "from the tray" in ideal and "↑ from rank 3" in ideal
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(shots / f"presenter_{width}.png"))
    page.context.close()


@pytest.mark.parametrize(("width", "height"), PROJECTORS)
@pytest.mark.parametrize("lesson", ["p_order", "leakage"])
def test_a_lesson_in_presenter_mode_fits_and_projects_no_expected_answer(
    server, browser, width, height, lesson
):
    page = new_page(browser, width, height)
    key = "list_learn" if len(BY_ID[lesson].lists) == 1 else "list_learn0"
    open_learn(page, f"{server}/Learn?present=1&lesson={lesson}", f".st-key-{key} .ll-row")
    lists = ", ".join(f".st-key-list_learn{j}" for j in range(len(BY_ID[lesson].lists)))
    assert inside_first_screen(page, ".st-key-list_learn" if key == "list_learn" else lists) == []
    assert inside_first_screen(page, ".lp-board") == []
    assert page.evaluate(BROKEN_FORMULAS) == []
    shown = page.locator('[data-testid="stMain"]').inner_text()
    answers = translate(f"lesson.{lesson}.answers", "en")
    assert [a for a in items_of(answers) if a in shown] == []
    assert page.locator(".st-key-w_teacher").count() == 0
    assert translate("lesson.p_order.challenge", "en")[:40] in shown or lesson != "p_order"
    page.context.close()


def test_the_teachers_notes_open_in_a_tab_of_their_own(server, browser):
    page = new_page(browser, 1280, 720)
    open_learn(page, f"{server}/Learn?present=1&lesson=graded")
    page.get_by_role("button", name=re.compile(translate("learn.choose", "en"))).click()
    link = page.get_by_role("link", name=re.compile(re.escape("Teacher's notes")))
    with page.context.expect_page() as opened:
        link.click()
    notes = opened.value
    notes.set_default_timeout(WAIT)
    wait_for_app(notes, translate("learn.notes.title", "en"))
    first = items_of(translate("lesson.graded.answers", "en"))[0]
    notes.get_by_text(first[:40]).first.wait_for()
    assert notes.locator('[data-testid="stSidebar"]').count() == 0 or "present" not in notes.url
    page.context.close()


# -------------------------------------------------------------------- the new lessons by clicks


def press(page, op: str, index: int, shown: int | None = None) -> None:
    """Click ``op`` on the row at position ``index`` (from 1; the tray's row from 0) of a list."""
    key = "list_learn" if shown is None else f"list_learn{shown}"
    before = page.url
    page.locator(f'.st-key-{key} button[data-op="{op}"][data-index="{index}"]').click()
    changed(page, before)


def test_the_repeated_item_lesson_is_predicted_then_met_by_clicks(server, browser, shots):
    page = new_page(browser)
    page.goto(f"{server}/Learn?lesson=duplicates")
    wait_for_app(page, translate("learn.predict.title", "en"))
    page.locator(".st-key-learn_predict_duplicates input").fill("0.2")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => { const b = document.querySelector('.st-key-btn_predict button');"
        " return b !== null && !b.disabled; }",
        timeout=WAIT,
    )
    page.locator(".st-key-btn_predict button").click()
    wait_for_app(page, "Right: you predicted 0.200")
    page.locator(".st-key-list_learn .ll-copy").first.wait_for()
    page.get_by_text("P@5 = 1/5 = 0.20").first.wait_for()
    copy = page.locator('.st-key-list_learn button[data-op="remove"][data-index="2"]')
    assert copy.get_attribute("aria-label").startswith(ACTIONS["remove"] + " (copy of d1")
    assert "P@5 = 1/5 = 0.20" in codes(page) and not_met(page)
    page.screenshot(path=str(shots / "learn_lesson_duplicates_copy.png"))
    press(page, "remove", 2)
    press(page, "back", 0)
    press(page, "up", 6)
    assert met(page) and "P@5 = 2/5 = 0.40" in codes(page)
    page.context.close()


def test_the_leakage_lesson_is_met_by_clicks(server, browser, shots):
    page = new_page(browser)
    open_learn(page, f"{server}/Learn?lesson=leakage", ".st-key-list_learn0 .ll-row")
    page.get_by_text("P@5 — q1: 0.800, q2: 0.000").first.wait_for()
    assert any("P@5 — q1: 0.800, q2: 0.000" in c for c in codes(page))
    press(page, "label", 1, shown=0)  # a, clicked at t = 3: not relevant
    press(page, "label", 3, shown=0)  # c, clicked at t = 6
    assert not_met(page)
    press(page, "back", 0, shown=1)  # the answer the candidate pool missed
    press(page, "up", 6, shown=1)
    assert met(page)
    assert any("P@5 — q1: 0.400, q2: 0.200" in c for c in codes(page))
    page.context.close()


def suffix(lang: str) -> str:
    """A screenshot's name ending: none in English, ``_zh``, ``_ja``."""
    return "" if lang == "en" else f"_{lang}"


@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
def test_the_new_lessons_presenter_mode_and_a_worksheet_in_three_languages(
    server, browser, shots, lang
):
    page = new_page(browser, 1400, 1500)
    for lesson in ("leakage", "duplicates"):
        ready = ".st-key-list_learn0 .ll-row" if lesson == "leakage" else '[data-testid="stApp"]'
        open_learn(page, f"{server}/Learn?lesson={lesson}&lang={lang}", ready)
        wait_for_app(page, translate(f"lesson.{lesson}.text", lang)[:10])
        assert page.locator('[data-testid="stException"]').count() == 0
        page.screenshot(path=str(shots / f"learn_lesson_{lesson}{suffix(lang)}.png"))
    page.context.close()
    for width, height in PROJECTORS:
        projector = new_page(browser, width, height)
        open_learn(projector, f"{server}/Learn?present=1&lang={lang}&m=P,nDCG,wP")
        projector.locator(".lp-board").wait_for()
        assert inside_first_screen(projector, ".st-key-list_learn, .lp-board") == []
        assert projector.evaluate(BROKEN_FORMULAS) == []
        projector.screenshot(path=str(shots / f"presenter_{width}{suffix(lang)}.png"))
        projector.context.close()
    found = BY_ID["leakage"]
    html = worksheet_html(
        list(found.lists),
        found.k,
        Settings(),
        lang,
        title=translate("lesson.leakage.title", lang),
        measures=found.measures,
        lesson=found,
        words={},
    )
    sheet = new_page(browser, 794, 1123)  # an A4 page at 96 dpi
    sheet.set_content(html)
    sheet.emulate_media(media="print")
    sheet.screenshot(path=str(shots / f"worksheet_leakage{suffix(lang)}.png"), full_page=True)
    sheet.context.close()


#: Headings whose characters ``word`` do not lie on one line.
BROKEN_WORD = """(word) => [...document.querySelectorAll('[data-testid="stMain"] h3')].filter(h => {
  const text = h.textContent.replace(/\\u200b/g, '');
  if (!text.includes(word)) return false;
  const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(word);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
  }
  return false;
}).map(h => h.textContent)"""


@pytest.mark.parametrize(("lang", "word"), [("ja", "各指標"), ("zh", "各项指标")])
@pytest.mark.parametrize("width", [1280, 1440])
def test_the_formulas_heading_breaks_between_phrases_not_inside_a_word(
    server, browser, lang, word, width
):
    page = new_page(browser, width, 1200)
    open_learn(page, f"{server}/Learn?lang={lang}")
    heading = page.locator('[data-testid="stMain"] h3').filter(has_text=word[0]).first
    heading.wait_for()
    assert page.evaluate(BROKEN_WORD, word) == []
    page.context.close()


# ------------------------------------------------------------------------------- worksheet


def pdf_pages(browser, html: str, paper: str) -> list[str]:
    """The text of each page of ``html`` printed to PDF by Chromium (NFKC: the PDF's CJK
    radicals read as the characters they are)."""
    from io import BytesIO

    from pypdf import PdfReader

    page = new_page(browser, 900, 1200)
    page.set_content(html)
    data = page.pdf(format=paper)
    page.context.close()
    return [unicodedata.normalize("NFKC", p.extract_text()) for p in PdfReader(BytesIO(data)).pages]


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@pytest.mark.parametrize("paper", ["A4", "Letter"])
@pytest.mark.parametrize("lang", ["en", "zh", "ja"])
@pytest.mark.parametrize("lesson", ["duplicates", "leakage"])
def test_a_lessons_worksheet_prints_with_its_answers_on_the_last_page_only(
    browser, lang, lesson, paper
):
    found = BY_ID[lesson]
    chosen = Settings(**found.start)
    words = text_values(found, chosen)
    html = worksheet_html(
        list(found.lists),
        found.k,
        chosen,
        lang,
        title=translate(f"lesson.{lesson}.title", lang),
        measures=found.measures,
        lesson=found,
        words=words,
    )
    pages = [squeeze(p) for p in pdf_pages(browser, html, paper)]
    assert len(pages) >= 2
    *sheet, last = pages
    for answer in items_of(translate(f"lesson.{lesson}.answers", lang, **words)):
        start = squeeze(answer)[:16]
        assert start in last and not any(start in p for p in sheet), (answer, paper)
    worked = squeeze(measure_cards(found.lists[0], found.k, chosen, ("P",))[0].formula or "")
    assert worked in last and not any(worked in p for p in sheet)  # metrics' numbers
    question = squeeze(items_of(translate(f"lesson.{lesson}.ask", lang, **words))[0])[:12]
    assert any(question in p for p in sheet) and question not in last


def test_the_worksheet_downloaded_from_the_page_prints_with_the_answers_last(
    server, browser, shots, tmp_path
):
    page = new_page(browser, 1400, 1500)
    open_learn(page, f"{server}/Learn")
    page.get_by_text(translate("learn.share", "en")).first.click()
    button = page.locator(".st-key-dl_learn_worksheet").get_by_role(
        "button", name=translate("learn.worksheet", "en")
    )
    button.wait_for()
    with page.expect_download() as got:
        button.click()
    path = tmp_path / got.value.suggested_filename
    got.value.save_as(path)
    html = path.read_text(encoding="utf-8")
    pages = [squeeze(p) for p in pdf_pages(browser, html, "A4")]
    *sheet, last = pages
    for name in DEFAULT_MEASURES[:3]:
        assert squeeze(f"{name}@5 of this list") in "".join(sheet)
    for line in ("P@5 = 3/5 = 0.60", "R@5 = 3/10 = 0.30"):
        assert squeeze(line) in last and not any(squeeze(line) in p for p in sheet)
    sheet_page = new_page(browser, 900, 1300)
    sheet_page.set_content(html)
    sheet_page.emulate_media(media="print")
    sheet_page.screenshot(path=str(shots / "worksheet.png"), full_page=True)
    sheet_page.context.close()
    page.context.close()
