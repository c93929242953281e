"""Several judgment files uploaded on the Data page (AppTest): each one is a label source named
after its file (or as renamed), the Labels page compares them (Cohen's κ against scikit-learn),
the sidebar's label source makes Compare evaluate each file alone (against ``metrics.evaluate``
on that file), and the browser's workspace gives the files and their names back. One judgments
file stays one set of judgments."""

from __future__ import annotations

import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from metrics.engine.evaluation import evaluate
from metrics.engine.settings import Settings
from tests.app_support import fresh_app, open_page, sidebar_text
from tests.test_app_history import home  # noqa: F401  (the store of each test)
from ui.shell import keys
from ui.shell.i18n import translate

pytestmark = pytest.mark.slow  # each test runs the app several times

QUERIES, ITEMS = 12, 6


def _run() -> bytes:
    """Two models in reverse order over the same items of each query."""
    rows = ["qid,docid,score,system"]
    for q in range(QUERIES):
        for j in range(ITEMS):
            rows += [f"q{q},d{j},{ITEMS - j},m1", f"q{q},d{j},{j + 1},m2"]
    return ("\n".join(rows) + "\n").encode()


def _assessor(q: int, j: int) -> int | None:
    return 2 if j >= 4 else (1 if (q + j) % 4 == 0 else 0)


def _llm(q: int, j: int) -> int | None:
    """Favours the first items (m1's), and leaves the last item of even queries unjudged."""
    if j == ITEMS - 1 and q % 2 == 0:
        return None
    return 2 if j < 2 else (1 if (q * 3 + j) % 5 == 0 else 0)


def _qrels(grade) -> bytes:
    """TREC qrels of ``grade(q, j)`` (no line where it is ``None``)."""
    lines = [
        f"q{q} 0 d{j} {grade(q, j)}"
        for q in range(QUERIES)
        for j in range(ITEMS)
        if grade(q, j) is not None
    ]
    return ("\n".join(lines) + "\n").encode()


def _frame(grade) -> pd.DataFrame:
    rows = [
        (f"q{q}", f"d{j}", float(grade(q, j)))
        for q in range(QUERIES)
        for j in range(ITEMS)
        if grade(q, j) is not None
    ]
    return pd.DataFrame(rows, columns=["query", "item", "relevance"])


def _run_frame() -> pd.DataFrame:
    rows = [
        (f"q{q}", f"d{j}", float(score), model)
        for q in range(QUERIES)
        for j in range(ITEMS)
        for score, model in ((ITEMS - j, "m1"), (j + 1, "m2"))
    ]
    return pd.DataFrame(rows, columns=["query", "item", "score", "model"])


FILES = [
    ("assessor.txt", _qrels(_assessor), "text/plain"),
    ("llm.qrels", _qrels(_llm), "text/plain"),
]


def _upload(at, judgments: list):
    open_page(at, "data")
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="up_runs").set_value([("run.csv", _run(), "text/csv")])
    at.file_uploader(key="up_judgments").set_value(judgments)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert keys.UPLOAD_DATASET in at.session_state
    return at


def _means(at) -> pd.Series:
    """Compare's reference (m1) and candidate (m2) means of nDCG@10."""
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    row = shown.loc[("m2", "nDCG@10")]
    return pd.Series({"m1": row["reference mean"], "m2": row["candidate mean"]})


def _expected(grade) -> pd.Series:
    found = evaluate(_run_frame(), _frame(grade), ["nDCG@10"], Settings())
    return found.per_query.groupby("model")["nDCG@10"].mean()


def test_two_judgment_files_are_two_label_sources_compared_and_chosen_one_at_a_time():
    at = _upload(fresh_app({"m": "nDCG"}), FILES)
    names = [x.value for x in at.text_input if x.key and x.key.endswith("_source_name")]
    assert names == ["assessor", "llm"]
    assert any("assessor.txt" in c.value.replace("\\", "") for c in at.caption)  # the first
    open_page(at, "labels")
    assert at.sidebar.selectbox(key="w_label_source").options[:2] == ["assessor", "llm"]
    pairs = at.dataframe[1].value
    both = _frame(_assessor).merge(_frame(_llm), on=["query", "item"])
    assert pairs[translate("labels.col.both_judged", "en")].iloc[0] == len(both) < QUERIES * ITEMS
    kappa = cohen_kappa_score(both["relevance_x"], both["relevance_y"])
    assert pairs[translate("labels.stat.kappa", "en")].iloc[0] == pytest.approx(kappa)
    assert -1 < kappa < 0  # the files disagree more often than chance would
    assert not any(m.key == keys.W_LABEL_COLUMNS for m in at.multiselect)
    open_page(at, "compare")
    assessor = _expected(_assessor)
    assert _means(at).to_dict() == pytest.approx(assessor.to_dict())
    at.sidebar.selectbox(key="w_label_source").set_value("llm").run()
    llm = _expected(_llm)
    assert _means(at).to_dict() == pytest.approx(llm.to_dict())
    assert llm["m1"] > llm["m2"] and assessor["m1"] < assessor["m2"]  # the files disagree
    assert at.query_params["labels"] == "llm"


def test_a_renamed_source_is_named_so_and_a_taken_name_is_numbered():
    at = _upload(fresh_app(), FILES)
    boxes = [x for x in at.text_input if x.key and x.key.endswith("_source_name")]
    boxes[1].set_value("judge").run()
    assert at.sidebar.selectbox(key="w_label_source").options[:2] == ["assessor", "judge"]
    boxes = [x for x in at.text_input if x.key and x.key.endswith("_source_name")]
    boxes[1].set_value("assessor").run()
    assert at.sidebar.selectbox(key="w_label_source").options[:2] == ["assessor", "assessor (2)"]
    used = translate("upload.source_name_used", "en", name="assessor (2)")
    assert used in [c.value.replace("\\", "") for c in at.caption]


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_the_files_are_named_as_sources_in_the_session_language(lang):
    at = _upload(fresh_app({"lang": lang}), FILES)
    assert translate("upload.source_name", lang) in [x.label for x in at.text_input]
    open_page(at, "labels")
    shown = translate(
        "labels.files_caption",
        lang,
        sources=translate("labels.files_separator", lang).join(
            translate("labels.file_source", lang, name=n, file=f)
            for n, f in (("assessor", "assessor.txt"), ("llm", "llm.qrels"))
        ),
    )
    assert shown in [c.value.replace("\\", "") for c in at.caption]


def test_one_judgments_file_is_one_set_of_judgments_as_before():
    at = _upload(fresh_app(), FILES[:1])
    assert not [x for x in at.text_input if x.key and x.key.endswith("_source_name")]
    open_page(at, "labels")
    assert [i.value for i in at.info] == [translate("labels.one_source", "en")]
    assert not any(s.key == "w_label_source" for s in at.sidebar.selectbox)


def test_the_workspace_gives_the_files_and_their_names_back(home):  # noqa: F811
    first = _upload(fresh_app(), FILES)
    box = next(x for x in first.text_input if x.key and x.key.endswith("_source_name"))
    box.set_value("people").run()
    first.sidebar.selectbox(key="w_label_source").set_value("llm").run()
    built = first.session_state[keys.UPLOAD_DATASET]
    again = fresh_app()  # a reload: a new session, the browser's key (its cookie)
    again.session_state[keys.WORKSPACE_TOKEN] = first.session_state[keys.WORKSPACE_TOKEN]
    again.run()
    assert not again.exception
    assert sidebar_text(again).startswith("run.csv")
    assert again.session_state[keys.UPLOAD_DATASET].content_hash == built.content_hash
    tables = again.session_state[keys.UPLOAD_TABLES]
    assert [x.name for x in tables["judgments"]] == ["assessor.txt", "llm.qrels"]
    assert again.sidebar.selectbox(key="w_label_source").options[:2] == ["people", "llm"]
    assert again.sidebar.selectbox(key="w_label_source").value == "llm"
    open_page(again, "labels")
    assert again.dataframe[1].value[translate("labels.col.source_a", "en")].iloc[0] == "people"
