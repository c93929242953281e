"""One decision on every surface: the command line's ``headline:`` lines and JSON, the Compare,
Segments and Report pages (en, zh, ja) and the app's exports say the same sentences, on the two
generated review exports of ``tests/decision_cases.py``."""

from __future__ import annotations

import io
import json

import pytest

from metrics.cli.compare import main as compare_main
from metrics.review.decision import DECISION_TEMPLATES
from tests.app_support import fresh_app, open_page, upload
from tests.decision_cases import collapsed_segment_log, two_columns_log
from ui.shell.i18n import templates

LANGS = ("en", "zh", "ja")


def _files(tmp_path, log, base: str, columns: list[str]) -> tuple[str, str, str]:
    run, qrels, queries = (str(tmp_path / n) for n in ("run.csv", "qrels.csv", "queries.csv"))
    log[["query", "item", "score", "model"]].to_csv(run, index=False)
    log[log["model"] == base][["query", "item", "label"]].to_csv(qrels, index=False)
    log[["query", *columns]].drop_duplicates("query").to_csv(queries, index=False)
    return qrels, run, queries


def _cli(args: list[str]) -> tuple[dict, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    assert compare_main([*args, "--format", "json"], out=out, err=err) == 0, err.getvalue()
    lines = [line.removeprefix("headline: ") for line in err.getvalue().splitlines()]
    return json.loads(out.getvalue()), [
        line for line in err.getvalue().splitlines() if line.startswith("headline: ")
    ] and [line for line in lines if line in json.loads(out.getvalue())["headline"]]


def _words(text: str) -> int:
    return len(text.split())


def test_the_collapsed_segment_is_named_in_at_most_70_words(tmp_path):
    qrels, run, queries = _files(tmp_path, collapsed_segment_log(), "v1", ["country"])
    document, lines = _cli([qrels, run, "--queries", queries, "--by", "country"])
    headline = document["headline"]
    assert lines == headline  # the stderr lines are the JSON's sentences, in order
    text = " ".join(headline)
    assert "v2" in text and "country = JP" in text and _words(text) <= 70
    assert document["recommendations"] == {"v2": "cannot_tell"}
    assert not any("no clear difference" in s for s in headline)


def test_both_columns_are_named_each_with_its_candidate_in_at_most_90_words(tmp_path):
    log = two_columns_log()
    qrels, run, queries = _files(tmp_path, log, "base", ["device", "user_tenure"])
    args = [qrels, run, "--queries", queries, "--by", "device", "--by", "user_tenure"]
    document, _ = _cli(args)
    headline = document["headline"]
    text = " ".join(headline)
    assert _words(text) <= 90
    sentence_of = {s: i for i, s in enumerate(headline)}
    tablet = next(s for s in headline if "device = tablet" in s)
    new = next(s for s in headline if "user_tenure = new" in s)
    # each effect follows the sentence that names its candidate
    assert "cand_b" in headline[sentence_of[tablet] - 1]
    assert "cand_a" in headline[sentence_of[new] - 1]
    assert document["options"]["cross"] is False
    segments = {row["segment"] for row in document["segments"]}
    assert not any("," in s for s in segments)  # no crossed cells


def _shown(at) -> str:
    return "\n".join(m.value for m in at.markdown).replace("\\", "")


def _expected(log, lang: str) -> list[str]:
    """The decision of the app's default review of ``log`` (the command line's defaults), in
    ``lang``."""
    from metrics import evaluate
    from metrics.review.decision import decide, heterogeneity_table
    from metrics.review.verdict import ReviewRequest, review_table

    run = log[["query", "item", "score", "model"]]
    qrels = log[log["model"] == "v1"][["query", "item", "label"]]
    segments = log[["query", "country"]].drop_duplicates("query")
    measures = ("P@10", "R@10", "RR@10", "nDCG@10")
    evaluation = evaluate(run, qrels.rename(columns={"label": "relevance"}), list(measures))
    request = ReviewRequest("v1", ("v2",), measures, ("country",))
    table = review_table(evaluation, request, segments)
    tests = heterogeneity_table(evaluation, request, segments)
    return decide(table, request, tests, templates(DECISION_TEMPLATES, lang)).headline


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_compare_segments_and_report_show_the_command_lines_decision(lang, tmp_path):
    log = collapsed_segment_log()
    qrels, run, queries = _files(tmp_path, log, "v1", ["country"])
    document, _ = _cli([qrels, run, "--queries", queries, "--by", "country"])
    expected = _expected(log, lang)
    if lang == "en":
        assert expected == document["headline"]
    else:
        assert len(expected) == len(document["headline"]) and expected != document["headline"]
    at = fresh_app({"lang": lang})
    upload(at, [("log.csv", log.to_csv(index=False).encode("utf-8"), "text/csv")])
    at.sidebar.multiselect(key="w_measures").set_value(["P", "R", "RR", "nDCG"]).run()
    for page in ("compare", "segments", "report"):
        open_page(at, page)
        shown = _shown(at)
        for sentence in expected:
            assert sentence in shown, (page, sentence, shown[:3000])
