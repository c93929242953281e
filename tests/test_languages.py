"""Chinese and Japanese: every visible word from the catalogs, one term per concept, no key unused.

The page test opens every page in zh and ja with three kinds of data (the default sample, an
upload with a query table of segments, hand-built lists) and collects what the page shows: texts,
widget labels, options and help, table headers and text cells, and the chart JSON (titles, axes,
legends, hover templates, annotations). No English catalog text may appear in it.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Iterator
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from google.protobuf.json_format import MessageToDict

from metrics.engine.registry import MEASURES
from metrics.engine.settings import POLICIES
from metrics.io.messages import ACTIONS, EXAMPLES, MESSAGES, WHERE
from metrics.io.samples import SAMPLES
from metrics.review.decision import DECISION_TEMPLATES
from metrics.review.stakeholder_report import REPORT_TEMPLATES
from tests.app_support import ROOT, fresh_app, open_page
from ui.shell.i18n import catalog
from ui.shell.pages_registry import PAGES

TERMS = ROOT / "docs" / "terminology.md"

# ----------------------------------------------------------------------------------- terminology


def _forms(message: str | dict[str, str]) -> list[str]:
    return list(message.values()) if isinstance(message, dict) else [message]


def _avoided_terms() -> list[str]:
    """The Chinese and Japanese alternatives the term base rules out ('not X' in a row's note)."""
    avoided = []
    for line in TERMS.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("concept", "---"):
            continue
        avoided += [
            term
            for term in re.findall(r"\bnot ([^\s(),]+)", cells[3])
            if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", term)
        ]
    return avoided


def test_the_term_base_names_alternatives_to_avoid_in_both_languages():
    avoided = set(_avoided_terms())
    assert {"截断点", "分组列", "差异明确", "准确率"} <= avoided
    assert {"正解ラベル", "利得", "並び", "グレード", "関連なし", "手作り", "関連レベル"} <= avoided


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_no_catalog_entry_uses_a_term_the_term_base_rules_out(lang):
    found = [
        (key, term)
        for key, message in catalog(lang).items()
        for form in _forms(message)
        for term in _avoided_terms()
        if term in form
    ]
    assert found == []


def test_japanese_sentences_use_no_full_width_semicolon():
    assert [k for k, v in catalog("ja").items() if any("；" in f for f in _forms(v))] == []


def test_significant_and_not_significant_read_as_a_pair():
    assert catalog("zh")["sentence.headline.clear"] == "显著"
    assert catalog("zh")["sentence.headline.not_significant"] == "不显著"
    assert catalog("ja")["sentence.headline.clear"] == "有意"
    assert catalog("ja")["sentence.headline.not_significant"] == "有意でない"


# ----------------------------------------------------------------------------------- keys used


def _string_literals() -> set[str]:
    """Every string literal (and every literal part of an f-string) in the app's code."""
    found: set[str] = set()
    for path in [ROOT / "app.py", *ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return found


def _families() -> set[str]:
    """Keys built from the engine's own lists: policies, measures, pages, findings, samples,
    the report's words."""
    keys = {f"page.{p.key}" for p in PAGES}
    for field, policy in POLICIES.items():
        keys |= {f"policy.{field}.label", f"policy.{field}.help"}
        keys |= {f"policy.{field}.{v}" for v in policy.values}
        keys |= {f"policy.{field}.name.{v}" for v in policy.values}
    for name in MEASURES:
        keys |= {f"measure.{name}.{part}" for part in ("pretty", "description", "pitfall", "latex")}
    keys |= {f"finding.message.{k}" for k in MESSAGES}
    keys |= {f"finding.fix.{k}" for k in ACTIONS}
    keys |= {f"finding.example.{k}" for k in EXAMPLES}
    keys |= {f"finding.where.{k}" for k in WHERE}
    keys |= {f"sample.{name}.description" for name in SAMPLES}
    keys |= {f"health.severity.{s}" for s in ("error", "warning", "info")}
    keys |= set(REPORT_TEMPLATES)  # the HTML report's words, translated by the Report page
    keys |= set(DECISION_TEMPLATES)  # the decision's words, translated by the review pages
    return keys


def _dynamic_prefixes(literals: set[str]) -> set[str]:
    """Prefixes of keys completed at run time: the literal part before an f-string's ``{``."""
    prefixes = set()
    for path in [ROOT / "app.py", *ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py")]:
        text = path.read_text(encoding="utf-8")
        prefixes |= set(re.findall(r"""f["']([a-z_]+(?:\.[a-z_]+)*\.)\{""", text))
    prefixes |= {lit for lit in literals if re.fullmatch(r"[a-z_]+(\.[a-z_]+)*\.", lit)}
    return prefixes - {"finding.", "policy.", "measure.", "page.", "sample."}


def test_every_catalog_key_is_used_by_the_app():
    literals = _string_literals()
    prefixes = _dynamic_prefixes(literals)
    used = literals | _families()
    unused = [
        key
        for key in catalog("en")
        if key not in used
        and not key.startswith("sentence.")  # the engine's sentence templates
        and not any(key.startswith(p) for p in prefixes)
    ]
    assert unused == []


def test_key_use_check_sees_keys_the_code_names():
    literals = _string_literals()
    assert "health.title" in literals and "curves.title" in literals
    assert "learn.question." in _dynamic_prefixes(literals) or any(
        k.startswith("learn.question.") for k in literals
    )


# ----------------------------------------------------------------------------------- pages

RUN = b"""qid,docid,pred,system
q1,a,3,alpha
q1,b,2,alpha
q1,c,1,alpha
q2,d,2,alpha
q2,e,1,alpha
q3,f,1,alpha
q1,a,1,beta
q1,b,3,beta
q1,c,2,beta
q2,d,1,beta
q2,e,2,beta
q3,f,2,beta
"""
QRELS = b"""qid,docid,rel
q1,a,1
q1,c,2
q2,d,1
q3,f,0
q9,z,1
"""
QUERIES = b"""qid,kind
q1,nav
q2,info
q3,info
"""
HAND = pd.DataFrame(
    {
        "list": ["l1"] * 4 + ["l2"] * 3,
        "position": [1, 2, 3, 4, 1, 2, 3],
        "item": ["x1", "x2", "x3", "x4", "y1", "y2", "y3"],
        "label": [1.0, 0.0, 2.0, 0.0, 0.0, 1.0, 0.0],
    }
)


def _english_fragments() -> list[tuple[str, re.Pattern[str]]]:
    """Literal parts of the English catalog (between placeholders) with a word of 3+ letters,
    except parts that the Chinese or Japanese text of the same key keeps (P@K, trec_eval) and a
    measure's notation (a measure named as it is written, such as Judged)."""
    zh, ja = catalog("zh"), catalog("ja")
    out = []
    for key, message in catalog("en").items():
        kept = " ".join(_forms(zh.get(key, "")) + _forms(ja.get(key, "")))
        for form in _forms(message):
            for part in re.split(r"\{\w+\}", form):
                part = part.strip(" .,;:·()'\"\n-–—/")
                if not re.search(r"[A-Za-z]{3,}", part) or part in kept or part in MEASURES:
                    continue
                # a whole word, not part of an id or a file name (run.csv)
                pattern = rf"(?<![\w.])(?<!\\_){re.escape(part)}(?![\w]|\\?[._]\w)"
                out.append((key, re.compile(pattern)))
    return out


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


#: Proto fields that are not shown: ids, data, and a page link's target ("page": its URL path,
#: such as Compare for pages/4_Compare.py; the link shows its translated label).
_SKIP = {
    "id",
    "formId",
    "spec",
    "data",
    "icon",
    "type",
    "theme",
    "key",
    "url",
    "fragmentId",
    "page",
    # a custom component's code (its data is read below)
    "componentName",
    "jsContent",
    "cssContent",
    "htmlContent",
    "jsSourcePath",
    "cssSourcePath",
}


def _component_strings(fields: dict) -> Iterator[str]:
    """Every string of a custom component's data (what it draws)."""
    text = fields.get("json") or fields.get("mixed", {}).get("json") or "null"

    def leaves(value: object) -> Iterator[str]:
        if isinstance(value, dict):
            for v in value.values():
                yield from leaves(v)
        elif isinstance(value, list):
            for v in value:
                yield from leaves(v)
        elif isinstance(value, str):
            yield value

    yield from leaves(json.loads(text))


def _proto_strings(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in _SKIP:
                yield from _proto_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _proto_strings(v)
    elif isinstance(value, str):
        if value.startswith("{"):  # a table's column configuration, as JSON
            yield from _config_strings(json.loads(value))
        else:
            yield value


def _config_strings(config: object) -> Iterator[str]:
    """Labels and help texts of a table's column configuration."""
    if isinstance(config, dict):
        for k, v in config.items():
            if k in ("label", "help") and isinstance(v, str):
                yield v
            else:
                yield from _config_strings(v)


def _chart_strings(spec: dict) -> Iterator[str]:
    """Titles, axis titles, legend names, hover templates, annotations, category labels."""
    layout = spec.get("layout", {})
    for name, part in layout.items():
        if name == "template":
            continue
        if isinstance(part, dict):
            yield from _strings(part.get("title", {}))
    yield from _strings(layout.get("title", {}))
    for note in layout.get("annotations", []):
        yield from _strings(note.get("text", ""))
    for trace in spec.get("data", []):
        for field in ("name", "hovertemplate", "text", "texttemplate"):
            yield from _strings(trace.get(field, ""))
        for axis in ("x", "y"):
            values = trace.get(axis)
            if isinstance(values, list):
                yield from (v for v in values if isinstance(v, str))


def _walk(node) -> Iterator[object]:
    yield node
    for child in (getattr(node, "children", None) or {}).values():
        yield from _walk(child)


def shown_texts(at) -> list[str]:
    """Everything a page shows as text, as plain strings (markup and hover variables removed)."""
    texts: list[str] = []
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or type(node).__name__ == "Code":  # code is code in every language
            continue
        if type(node).__name__ == "Dataframe":
            frame = node.value
            config = json.loads(proto.columns) if getattr(proto, "columns", "") else {}
            texts += [str(c) for c in frame.columns if "label" not in config.get(str(c), {})]
            for col in frame.columns:
                if frame[col].dtype == object:
                    texts += [str(v) for v in frame[col].dropna().unique()]
        fields = MessageToDict(proto)
        if "componentName" in fields:
            texts += list(_component_strings(fields))
            continue
        texts += list(_proto_strings(fields))
        if "spec" in fields:
            texts += list(_chart_strings(json.loads(fields["spec"])))
    texts = [re.sub(r"<style>.*?</style>", " ", t, flags=re.S) for t in texts]  # not shown
    return [re.sub(r"%\{[^}]*\}|<[^>]+>|:material/\w+:", " ", t) for t in texts]


#: Names that are not English words: trec_eval's summary row (the macro mean is its 'all').
_NOT_WORDS = re.compile(r"trec_eval '\w+'")


def english_in(texts: list[str]) -> list[tuple[str, str]]:
    """(catalog key, text) for each shown text holding a part of an English catalog message."""
    fragments = _english_fragments()
    texts = [_NOT_WORDS.sub(" ", text) for text in texts]
    return [
        (key, text) for text in set(texts) for key, pattern in fragments if pattern.search(text)
    ]


def _with_data(at, source: str):
    if source == "upload":
        open_page(at, "data")
        at.radio(key="w_source").set_value("upload").run()
        at.file_uploader(key="up_runs").set_value([("run.csv", RUN, "text/csv")])
        at.file_uploader(key="up_judgments").set_value([("qrels.csv", QRELS, "text/csv")])
        at.file_uploader(key="up_queries").set_value([("topics.csv", QUERIES, "text/csv")])
        at.run()
    elif source == "handbuilt":
        at.session_state["handbuilt_table"] = HAND
        open_page(at, "data")
        at.radio(key="w_source").set_value("handbuilt").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("source", ["sample", "upload", "handbuilt"])
@pytest.mark.parametrize("lang", ["zh", "ja"])
@pytest.mark.parametrize("page", [p.key for p in PAGES])
def test_a_page_shows_no_english_catalog_text_in_chinese_or_japanese(page, lang, source):
    at = _with_data(fresh_app({"lang": lang}), source)
    open_page(at, page)
    texts = shown_texts(at)
    assert len(texts) > 10
    assert english_in(texts) == []


@pytest.mark.parametrize("lang", ["zh", "ja"])
@pytest.mark.parametrize("params", [{"lq": "1"}, {"lesson": "mrr_first"}])
def test_learns_several_lists_show_no_english_catalog_text(lang, params):
    at = open_page(fresh_app({"lang": lang, **params}), "learn")
    texts = shown_texts(at)
    assert any("MRR@5" in text for text in texts)
    assert english_in(texts) == []


def test_the_english_check_finds_english_on_an_english_page():
    at = open_page(fresh_app({"lang": "en", "data": "web_search_pitfalls"}), "data")
    keys = {key for key, _ in english_in(shown_texts(at))}
    assert {"data.intro", "health.title", "finding.message.tied_scores"} <= keys


# ----------------------------------------------------------------------------------- fonts


def test_every_figure_names_a_font_family_with_chinese_and_japanese_glyphs():
    from ui.curves.figures import curve_figure
    from ui.shell.plotting import FONT_FAMILY

    table = pd.DataFrame({"model": ["a"], "measure": ["P"], "k": [1], "mean": [0.5], "n": [3]})
    spec = json.loads(
        curve_figure(
            table, "P", title="精确率", x_label="K", y_label="平均", queries_label="查询"
        ).to_json()
    )
    assert spec["layout"]["template"]["layout"]["font"]["family"] == FONT_FAMILY
    assert "Noto Sans CJK SC" in FONT_FAMILY and "Noto Sans CJK JP" in FONT_FAMILY


def test_figures_keep_their_cjk_font_after_streamlit_sets_its_own_default_template():
    import plotly.io as pio
    import streamlit.elements.plotly_chart  # noqa: F401  (sets Streamlit's template as default)

    from ui.curves.figures import curve_figure, distribution_figure
    from ui.shell.plotting import FONT_FAMILY, TEMPLATE

    previous = pio.templates.default
    pio.templates.default = "streamlit"
    try:
        table = pd.DataFrame({"model": ["a"], "measure": ["P"], "k": [1], "mean": [0.5], "n": [3]})
        figures = [
            curve_figure(table, "P", title="t", x_label="K", y_label="y", queries_label="q"),
            distribution_figure({"a": np.array([0.5])}, "P@1", kind="box", title="t", y_label="y"),
        ]
        for figure in figures:
            assert figure.layout.template.layout.font.family == FONT_FAMILY
            assert pio.templates[TEMPLATE].layout.font.family == FONT_FAMILY
    finally:
        pio.templates.default = previous


def test_exported_png_draws_chinese_and_japanese_characters_not_empty_boxes():
    """Missing glyphs are drawn as identical boxes: two titles of as many different characters
    would then give the same image."""
    import plotly.graph_objects as go

    from ui.shell.plotting import figure_image

    def png(title: str) -> bytes:
        fig = go.Figure(go.Bar(x=[1], y=[1]))
        fig.update_layout(title=title)
        try:
            return figure_image(fig, "png", width=400, height=200)
        except RuntimeError as exc:  # no browser for kaleido on this machine
            if os.environ.get("CI"):
                raise
            pytest.skip(str(exc))

    assert png("精确率 適合率") != png("召回率 再現率")


# ----------------------------------------------------------------------------------- findings


def test_a_japanese_fix_names_the_setting_and_its_value_by_their_japanese_labels():
    from metrics.io.findings import Finding
    from ui.shell.findings_view import finding_text

    text = finding_text(
        Finding(
            "no_relevant",
            "warning",
            {"n": 4, "total": 300, "level": "1"},
            rule=("no_relevant", "zero"),
        ),
        "ja",
    )
    setting = catalog("ja")["policy.no_relevant.label"]
    value = catalog("ja")["policy.no_relevant.leave_out"]
    assert f"「{setting}」を「{value}」に" in text.action
    assert text.message.startswith("判定済みクエリ 300 件のうち 4 件")


def test_counts_read_naturally_in_each_language():
    from metrics.io.findings import Finding
    from ui.shell.findings_view import finding_text

    one = Finding("missing_labels", "warning", {"n": 1}, 1)
    many = Finding("missing_labels", "warning", {"n": 12345}, 12345)
    assert finding_text(one, "en").message == "1 judgment has no label; it is dropped."
    assert finding_text(many, "en").message.startswith("12,345 judgments have no label")
    assert finding_text(one, "ja").message.startswith("ラベルのない関連判定が 1 件")
    assert finding_text(many, "zh").message.startswith("有 12,345 条标注没有标签")


def test_an_upload_without_judgments_is_explained_in_the_session_language():
    at = fresh_app({"lang": "ja"})
    open_page(at, "data")
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="up_runs").set_value([("run.csv", RUN, "text/csv")]).run()
    errors = " ".join(e.value for e in at.error)
    assert catalog("ja")["error.no_judgments.message"] in errors
    assert "There are no judgments" not in errors


def test_a_run_without_any_score_is_explained_in_the_session_language():
    at = fresh_app({"lang": "zh"})
    open_page(at, "data")
    at.radio(key="w_source").set_value("upload").run()
    run = b"qid,docid,score,rel\nq1,a,,1\nq1,b,,0\n"
    at.file_uploader(key="up_runs").set_value([("run.csv", run, "text/csv")]).run()
    errors = " ".join(e.value for e in at.error)
    assert catalog("zh")["error.no_scores.message"].format(rows="2") in errors
    assert "Nothing can be evaluated" not in errors


# ----------------------------------------------------------------------------------- report


class _ReportText(HTMLParser):
    """The text a reader of the HTML report sees, without scripts, styles and the settings as
    JSON for scripts (a <details> block of machine-readable codes)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "details"):
            self._hidden += 1
        self.texts += [v for k, v in attrs if k in ("aria-label", "title") and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "details"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden and data.strip():
            self.texts.append(data)


@pytest.fixture
def report_inputs(monkeypatch) -> list:
    """Every ``ReportInputs`` the Report page builds, in order."""
    from ui.review import report

    original = report.ReportInputs
    made: list = []

    def recording(*args, **kwargs):
        made.append(original(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(report, "ReportInputs", recording)
    return made


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_the_html_report_is_written_in_the_session_language(lang, report_inputs):
    from metrics.review import stakeholder_report

    made = report_inputs
    at = _with_data(fresh_app({"lang": lang}), "upload")
    at.session_state["w_seg_by"] = ["kind"]
    open_page(at, "report")
    inputs = made[-1]
    assert inputs.segment_by == ["kind"]
    reader = _ReportText()
    reader.feed(stakeholder_report.build_report_html(inputs))
    texts = reader.texts
    for _title, figure in inputs.figures:
        texts += list(_chart_strings(json.loads(figure.to_json())))
    assert len(texts) > 50
    assert english_in(texts) == []
    assert f'<html lang="{lang}">' in stakeholder_report.build_report_html(inputs)


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_the_report_describes_a_sample_in_the_session_language(lang, report_inputs):
    from metrics.review import stakeholder_report
    from ui.shell.i18n import translate

    made = report_inputs
    open_page(fresh_app({"lang": lang}), "report")
    wanted = translate("sample.web_search.description", lang)
    assert made[-1].description == wanted
    assert wanted in stakeholder_report.build_report_html(made[-1])
