"""A worksheet to print and hand out (pure: an HTML page from the lists and the catalogs).

One self-contained HTML page in the session's language: a head (name, date, the cutoff and the
relevance level), the list (or lists) as tables, the lesson's explanation and questions with
ruled space to answer, and the answers on a page of their own, the last (CSS
``break-before: page``): the lesson's expected answers and each measure of the lists worked out
with the numbers :mod:`metrics` gives. Its sizes are in millimetres and points and it sets no
paper size, so that it prints on A4 and Letter alike; a question never breaks over two pages.
Every text from a list (names, items) is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from metrics.engine.registry import at_cutoff
from metrics.engine.relevance import is_relevant
from metrics.engine.settings import Settings
from ui.learn.evaluate import Card, copies, measure_cards
from ui.learn.lessons import Lesson
from ui.shell.handbuilt_list import RankedList
from ui.shell.i18n import translate

#: Ruled lines left for each question's answer.
ANSWER_LINES = 4

STYLE = """
@page { margin: 16mm 15mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Noto Sans CJK JP", "Source Sans Pro",
  Arial, sans-serif; font-size: 11pt; line-height: 1.4; color: #111; margin: 0; }
h1 { font-size: 17pt; margin: 0 0 2mm 0; }
h2 { font-size: 13pt; margin: 6mm 0 2mm 0; break-after: avoid; }
.who { display: flex; gap: 8mm; margin: 2mm 0 4mm 0; }
.who span { flex: 1; border-bottom: 0.4pt solid #555; padding-top: 5mm; font-size: 9pt;
  color: #444; }
.settings { font-size: 9.5pt; color: #333; }
.lists { display: flex; flex-wrap: wrap; gap: 6mm; }
.list { flex: 1 1 70mm; break-inside: avoid; }
.list h3 { font-size: 11pt; margin: 0 0 1mm 0; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { border: 0.4pt solid #888; padding: 1mm 2mm; text-align: left; font-size: 10pt; }
th { background: #eee; }
tr.cut td { border-top: 1.6pt dashed #b34700; }
.note { font-size: 9pt; color: #444; margin: 1mm 0; }
.question { break-inside: avoid; margin: 0 0 4mm 0; }
.question p { margin: 0 0 1mm 0; }
.line { border-bottom: 0.4pt solid #999; height: 8mm; }
.answers { break-before: page; }
.answers code, .question code { font-family: "Source Code Pro", "Noto Sans Mono", monospace;
  font-size: 10pt; }
.formulas { font-family: "Source Code Pro", "Noto Sans Mono", monospace; font-size: 10pt;
  white-space: pre-wrap; margin: 1mm 0; }
"""


def _inline(text: str) -> str:
    """Escaped text with the catalogs' little Markdown: ``**bold**``, ``*stress*``, ``code``."""
    out = escape(text)
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", out)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", out)


def items_of(text: str) -> list[str]:
    """The numbered or bulleted items of a catalog text (``1. ...``, ``- ...``), one per line;
    a text without such lines is one item."""
    found = [
        re.sub(r"^\s*(?:\d+[.)]|-)\s+", "", line)
        for line in text.splitlines()
        if re.match(r"^\s*(?:\d+[.)]|-)\s+", line)
    ]
    return found or [text.strip()]


def paragraphs(text: str) -> str:
    """A catalog text as HTML: numbered lines as a numbered list, bullets as a list, the rest
    as paragraphs."""
    html: list[str] = []
    kind: str | None = None
    items: list[str] = []

    def close() -> None:
        nonlocal kind, items
        if kind:
            html.append(f"<{kind}>" + "".join(f"<li>{i}</li>" for i in items) + f"</{kind}>")
        kind, items = None, []

    for line in text.splitlines():
        numbered = re.match(r"^\s*\d+[.)]\s+(.*)$", line)
        bullet = re.match(r"^\s*-\s+(.*)$", line)
        if numbered or bullet:
            wanted = "ol" if numbered else "ul"
            if kind != wanted:
                close()
                kind = wanted
            items.append(_inline((numbered or bullet).group(1)))  # type: ignore[union-attr]
        else:
            close()
            if line.strip():
                html.append(f"<p>{_inline(line)}</p>")
    close()
    return "".join(html)


def _list_table(rl: RankedList, k: int, level: float, lang: str) -> str:
    """One list: rank, item, label (``?`` unjudged), whether it counts as relevant, the cut
    after rank K; then the judged items it did not retrieve."""

    def tr(key: str, **values: object) -> str:
        return translate(key, lang, **values)

    head = "".join(
        f"<th>{escape(tr(f'learn.col.{c}'))}</th>" for c in ("rank", "item", "label", "relevant")
    )
    rows = []
    repeated = copies(rl)  # a later copy of a repeated item: written, not counted, no rank
    rank = 0
    for position, (item, label) in enumerate(zip(rl.items, rl.labels), start=1):
        shown = "?" if label != label else f"{label:g}"
        if position in repeated:
            mark, rank_text, cut = tr("learn.row.copy", rank=repeated[position]), "—", ""
        else:
            rank += 1
            mark = tr("learn.row.relevant") if is_relevant(label, level) else ""
            rank_text, cut = str(rank), ' class="cut"' if rank == k + 1 else ""
        rows.append(
            f"<tr{cut}><td>{rank_text}</td><td>{escape(item)}</td><td>{shown}</td>"
            f"<td>{escape(mark)}</td></tr>"
        )
    extra = ""
    if rl.unretrieved:
        listed = ", ".join(f"{i} ({x:g})" for i, x in rl.unretrieved)
        extra = f'<p class="note">{escape(tr("worksheet.not_retrieved", items=listed))}</p>'
    return (
        f'<div class="list"><h3>{escape(rl.name)}</h3><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{extra}</div>"
    )


def _question(number: int, text: str) -> str:
    lines = "".join('<div class="line"></div>' for _ in range(ANSWER_LINES))
    return f'<div class="question"><p>{number}. {_inline(text)}</p>{lines}</div>'


def _formulas(cards: Sequence[Card], lang: str) -> str:
    lines = []
    for card in cards:
        if card.formula is not None:
            lines.append(card.formula + (f"\n    {card.detail}" if card.detail else ""))
        elif card.problem == "error":
            lines.append(translate("learn.card.error", lang, name=card.name, message=card.message))
        else:
            lines.append(translate(f"learn.card.{card.problem}", lang, name=card.name))
    return f'<div class="formulas">{escape(chr(10).join(lines))}</div>'


def worksheet_html(
    lists: Sequence[RankedList],
    k: int,
    settings: Settings,
    lang: str,
    *,
    title: str,
    measures: tuple[str, ...],
    lesson: Lesson | None = None,
    words: dict[str, str] | None = None,
) -> str:
    """The worksheet of ``lists`` at ``k`` (a lesson's starting lists, or a worked or
    hand-built list) in ``lang``: the lesson's text and questions (``words``: the numbers of
    its texts), or, for a list without a lesson, a question per measure; the answers on the
    last page, with each list's ``measures`` worked out as metrics computes them."""
    words = words or {}

    def tr(key: str, **values: object) -> str:
        return translate(key, lang, **values)

    level = settings.relevance_level
    setting_line = tr("worksheet.settings", k=k, level=f"{level:g}")
    if lesson is not None:
        intro = paragraphs(tr(f"lesson.{lesson.id}.text", **words))
        questions = items_of(tr(f"lesson.{lesson.id}.ask", **words))
        expected = paragraphs(tr(f"lesson.{lesson.id}.answers", **words))
    else:
        intro = f"<p>{escape(tr('worksheet.intro'))}</p>"
        names = [at_cutoff(m, k) for m in measures]
        questions = [tr("worksheet.compute", name=name) for name in names]
        expected = ""
    worked = "".join(
        (f"<h3>{escape(rl.name)}</h3>" if len(lists) > 1 else "")
        + _formulas(measure_cards(rl, k, settings, measures) if rl.items else [], lang)
        for rl in lists
    )
    tables = "".join(_list_table(rl, k, level, lang) for rl in lists)
    who = "".join(f"<span>{escape(tr(f'worksheet.{field}'))}</span>" for field in ("name", "date"))
    return f"""<!DOCTYPE html>
<html lang="{escape(lang)}">
<head>
<meta charset="utf-8">
<title>{escape(title)}</title>
<style>{STYLE}</style>
</head>
<body>
<section class="sheet">
<h1>{escape(title)}</h1>
<div class="who">{who}</div>
<p class="settings">{escape(setting_line)}</p>
{intro}
<h2>{escape(tr("worksheet.the_list"))}</h2>
<div class="lists">{tables}</div>
<h2>{escape(tr("worksheet.questions"))}</h2>
{"".join(_question(i, q) for i, q in enumerate(questions, start=1))}
</section>
<section class="answers">
<h1>{escape(tr("worksheet.answers", title=title))}</h1>
{expected}
<h2>{escape(tr("worksheet.worked"))}</h2>
{worked}
</section>
</body>
</html>
"""


__all__ = ["items_of", "paragraphs", "worksheet_html"]
