"""The Labels page (AppTest) in English, Chinese and Japanese: on the rag_evidence sample and on
an upload with two label columns. Its numbers are the engine's (metrics.labels, itself checked
against scikit-learn, statsmodels and krippendorff), its confusion matrix is pandas' crosstab,
a verdict flip is named at the top, and the label source chosen in the sidebar reaches the link
and the other pages."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from metrics.engine.evaluation import evaluate
from metrics.engine.settings import Settings
from metrics.io.samples import load_sample
from metrics.labels.sources import sample_sources
from metrics.labels.study import study_labels
from tests.app_support import fresh_app, open_page
from tests.test_languages import english_in, shown_texts
from ui.labels.figures import confusion_figure
from ui.labels.summary import flip_lines
from ui.shell.i18n import translate
from ui.shell.safe import md_escape

pytestmark = pytest.mark.slow

LANGS = ("en", "zh", "ja")


def _frame(at, key: str) -> pd.DataFrame:
    return next(d for d in at.dataframe if d.proto.id and key in d.proto.id).value


def _table(at, index: int) -> pd.DataFrame:
    return at.dataframe[index].value


def _chart(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


# ---------------------------------------------------------------------------- the RAG sample


@pytest.mark.parametrize("lang", LANGS)
def test_the_rag_sample_shows_moderate_kappa_and_the_same_ordering_in_every_language(lang):
    at = open_page(fresh_app({"data": "rag_evidence", "lang": lang}), "labels")
    assert at.title[0].value == translate("labels.title", lang)
    assert [s.value for s in at.success] == [translate("labels.no_flip", lang)]
    data, sources = load_sample("rag_evidence"), sample_sources("rag_evidence")
    study = study_labels(sources, data.run, ["P@10", "R@10", "nDCG@10", "AP@10"], k=10)
    pairs = _table(at, 1)
    kappa = pairs[translate("labels.stat.kappa", lang)].iloc[0]
    assert kappa == pytest.approx(study.agreement.pairs["kappa"].iloc[0])
    assert 0.4 < kappa < 0.6
    quadratic = pairs[translate("labels.stat.kappa_quadratic", lang)].iloc[0]
    assert quadratic == pytest.approx(study.agreement.pairs["kappa_quadratic"].iloc[0])
    correlations = _table(at, 6)
    assert (correlations["τ_b"] == 1.0).all()
    # provenance of the judge, as its file gives it
    record = _table(at, 0).set_index(translate("labels.col.source", lang))
    assert record.loc["llm_judge", translate("labels.col.judge_model", lang)] == "judge-8b"
    assert record.loc["annotators", translate("labels.col.kind", lang)] == translate(
        "labels.kind.human", lang
    )
    if lang != "en":
        assert english_in(shown_texts(at)) == []


def test_the_confusion_matrix_is_the_crosstab_of_the_two_sources():
    at = open_page(fresh_app({"data": "rag_evidence"}), "labels")
    spec = _chart(at)["data"][0]
    sources = sample_sources("rag_evidence")
    both = sources.table.dropna(subset=["annotators", "llm_judge"])
    crosstab = pd.crosstab(both["annotators"], both["llm_judge"])
    counts = np.array([[int(c.replace(",", "")) for c in row] for row in spec["text"]])
    assert counts.tolist() == crosstab.to_numpy().tolist()
    assert spec["y"] == [f"{g:g}" for g in crosstab.index]


def test_the_sidebar_s_label_source_reaches_the_link_and_the_other_pages():
    at = open_page(fresh_app({"data": "rag_evidence", "m": "nDCG"}), "labels")
    at.sidebar.selectbox(key="w_label_source").set_value("llm_judge").run()
    assert at.query_params["labels"] == "llm_judge"
    open_page(at, "curves")
    shown = at.dataframe[0].value.set_index(at.dataframe[0].value.columns[0])
    data, sources = load_sample("rag_evidence"), sample_sources("rag_evidence")
    judge = evaluate(data.run, sources.chosen("llm_judge"), ["nDCG@10"], Settings())
    annotators = evaluate(data.run, data.qrels, ["nDCG@10"], Settings())
    means = judge.per_query.groupby("model")["nDCG@10"].mean()
    column = next(c for c in shown.columns if "nDCG@10" in str(c))
    assert shown[column].to_dict() == pytest.approx(means.to_dict())
    assert means["bm25"] != pytest.approx(
        annotators.per_query.groupby("model")["nDCG@10"].mean()["bm25"]
    )


def test_a_link_with_a_label_source_opens_with_it():
    at = open_page(fresh_app({"data": "rag_evidence", "labels": "majority"}), "labels")
    assert at.sidebar.selectbox(key="w_label_source").value == "majority"
    caption = next(c.value for c in at.caption if "majority" in c.value)
    assert translate("policy.label_source.name.majority", "en") in caption


def test_a_data_set_with_one_set_of_judgments_says_how_to_compare_sources():
    at = open_page(fresh_app(), "labels")
    assert [i.value for i in at.info] == [translate("labels.one_source", "en")]
    assert not any(s.key == "w_label_source" for s in at.sidebar.selectbox)


# ---------------------------------------------------------------------------- an upload


def _upload_table() -> bytes:
    """30 queries x 10 items, two models in reverse order; 'assessor' finds the last two items
    relevant, 'llm' the first two: the verdict of m2 against m1 flips with the source."""
    rows = ["qid,docid,pred,system,assessor,llm"]
    for q in range(30):
        for j in range(10):
            assessor = 2 if j >= 8 else 0
            llm = 2 if j < 2 else (1 if j == 5 else 0)
            rows.append(f"q{q},d{j},{10 - j},m1,{assessor},{llm}")
            rows.append(f"q{q},d{j},{j},m2,{assessor},{llm}")
    return ("\n".join(rows) + "\n").encode()


def _uploaded(lang: str):
    at = open_page(fresh_app({"lang": lang}), "data")
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="up_runs").set_value([("graded.csv", _upload_table(), "text/csv")])
    at.run()
    # two columns could be the label: the Data page asks, and the first is confirmed
    box = next(c for c in at.checkbox if c.label == translate("upload.confirm_roles", lang))
    box.check().run()
    assert not at.exception and "upload_dataset" in at.session_state
    return open_page(at, "labels")


@pytest.mark.parametrize("lang", LANGS)
def test_an_upload_with_two_label_columns_names_the_flip_at_the_top(lang):
    at = _uploaded(lang)
    assert at.multiselect(key="w_label_columns").value == ["llm"]
    warning = at.warning[0].value
    assert warning.startswith(f"**{translate('labels.flips_title', lang, n=2)}**")
    assert "m2" in warning and "m1" in warning and "llm" in warning
    assert translate("labels.verdict.better", lang) in warning
    assert translate("labels.verdict.worse", lang) in warning
    verdicts = _table(at, 8)
    flipped = verdicts[verdicts[translate("labels.col.flip", lang)] != ""]
    # both models retrieve every item in their top 10: P@10 and R@10 cannot tell them apart
    assert set(flipped[translate("column.measure", lang)]) == {"RR@10", "nDCG@10"}
    correlations = _table(at, 6).set_index(translate("column.measure", lang))
    assert correlations.loc[["RR@10", "nDCG@10"], "τ_b"].tolist() == [-1.0, -1.0]
    assert at.sidebar.selectbox(key="w_label_source").options[:2] == ["assessor", "llm"]
    if lang != "en":
        assert english_in(shown_texts(at)) == []


def test_an_upload_s_second_label_column_can_be_taken_out():
    at = _uploaded("en")
    at.multiselect(key="w_label_columns").set_value([]).run()
    assert [i.value for i in at.info] == [translate("labels.one_source", "en")]


# ---------------------------------------------------------------------------- pure parts


def test_the_confusion_figure_escapes_source_names_and_writes_every_count():
    matrix = pd.DataFrame([[3, 1], [0, 1200]], index=[0.0, 1.0], columns=[0.0, 1.0])
    fig = confusion_figure(
        matrix,
        title="<b>a</b> vs b",
        rows_label="grade by <i>a</i>",
        columns_label="b & c",
        count_label="items",
    )
    spec = fig.to_plotly_json()
    assert spec["data"][0]["text"] == [["3", "1"], ["0", "1,200"]]
    assert spec["layout"]["title"]["text"] == "&lt;b&gt;a&lt;/b&gt; vs b"
    assert spec["layout"]["xaxis"]["title"]["text"] == "b &amp; c"
    assert spec["data"][0]["y"] == ["0", "1"]


def test_flip_sentences_escape_user_ids_for_markdown():
    sources = sample_sources("rag_evidence")
    data = load_sample("rag_evidence")
    run = data.run.replace({"model": {"bm25": "*bm25*"}})
    study = study_labels(sources, run, ["RR@1"], k=1, baseline="*bm25*")
    lines = flip_lines(study, lambda key, **v: translate(key, "en", **v), md_escape)
    assert all("\\*bm25\\*" in line for line in lines)
