"""Bundled samples: reproducible bytes, loadable by name, and the trade-offs they promise."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metrics.errors import InputError
from metrics.io.dataset import Dataset
from metrics.io.hashing import content_hash
from metrics.io.samples import load_sample, sample_names
from sample_data.generate import generate

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"


def _data_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix not in (".py", ".md", ".pyc") and "__pycache__" not in p.parts
    }


@pytest.mark.slow
def test_generator_reproduces_the_committed_files_byte_for_byte(tmp_path):
    generate(tmp_path)
    fresh, committed = _data_files(tmp_path), _data_files(SAMPLE_DIR)
    assert sorted(fresh) == sorted(committed)
    for name, data in fresh.items():
        assert data == committed[name], name


def test_sample_files_are_plain_text_under_five_megabytes_in_all():
    files = _data_files(SAMPLE_DIR)
    assert sum(len(b) for b in files.values()) <= 5_000_000
    assert all(not b.startswith(b"\x1f\x8b") and b"\r\n" not in b for b in files.values())


@pytest.mark.slow
def test_every_sample_opens_by_name_as_a_dataset():
    assert sample_names() == [
        "web_search",
        "recommendations",
        "teaching",
        "web_search_pitfalls",
        "rag_evidence",
    ]
    for name in sample_names():
        data = load_sample(name)
        assert isinstance(data, Dataset) and data.name == name and data.description
        assert not data.health.has_errors
        assert data.run.columns[:3].tolist() == ["query", "item", "score"]
        assert data.qrels.columns.tolist() == ["query", "item", "relevance"]
        assert len(data.content_hash) == 64


def test_unknown_sample_name_is_an_input_error():
    with pytest.raises(
        InputError,
        match=re.escape(
            "There is no sample named 'nope'. Fix: Choose one of: "
            "web_search, recommendations, teaching, web_search_pitfalls, rag_evidence."
        ),
    ):
        load_sample("nope")


def test_content_hash_is_stable_and_changes_with_the_data():
    a, b = load_sample("teaching"), load_sample("teaching")
    assert a.content_hash == b.content_hash
    changed = a.run.assign(score=a.run["score"] + 1)
    assert content_hash(changed, a.qrels, a.segments) != a.content_hash


def test_web_search_has_the_promised_shape_and_segments():
    data = load_sample("web_search")
    assert data.models == ["lexical", "dense", "hybrid"]
    assert data.run.groupby("model")["query"].nunique().eq(300).all()
    assert data.run.groupby(["model", "query"]).size().eq(50).all()
    assert sorted(data.qrels["relevance"].unique()) == [0.0, 1.0, 2.0, 3.0]
    assert data.segment_columns == ["query_type", "traffic"]
    assert set(data.segments["query_type"]) == {"navigational", "informational", "transactional"}
    assert set(data.segments["traffic"]) == {"head", "torso", "tail"}


def test_the_demo_sample_opens_without_a_single_warning():
    """No tied scores, no query without a relevant document, no relevant document that no
    model retrieved: the first page of a demo shows no warning."""
    data = load_sample("web_search")
    assert data.health.codes() == ["summary"] and not data.health.warnings
    scores = data.run.groupby(["model", "query"])["score"]
    assert scores.nunique().eq(scores.size()).all()


def test_the_teaching_sample_keeps_the_pitfalls_of_real_data_and_says_so():
    from metrics import evaluate

    data = load_sample("web_search_pitfalls")
    assert data.description.startswith("Teaching:") and "pitfalls" in data.description
    assert {"tied_scores", "short_lists", "no_relevant", "relevant_not_retrieved"} <= set(
        data.health.codes()
    )
    judged = evaluate(data.run, data.qrels, ["Judged@10"]).per_query["Judged@10"]
    assert judged.mean() < 0.8  # only the pooled top 5 of each model is judged


def test_web_search_csv_and_trec_files_hold_the_same_data():
    from metrics.io.canonical import canonical_qrels, canonical_run
    from metrics.io.loaders import load_table

    trec = pd.concat(
        [
            canonical_run(load_table(SAMPLE_DIR / "web_search" / "trec" / f"{m}.run"))
            for m in ("lexical", "dense", "hybrid")
        ],
        ignore_index=True,
    )
    csv = canonical_run(load_table(SAMPLE_DIR / "web_search" / "run.csv"))
    pd.testing.assert_frame_equal(csv, trec.drop(columns="rank"))
    qrels = canonical_qrels(load_table(SAMPLE_DIR / "web_search" / "trec" / "web_search.qrels"))
    pd.testing.assert_frame_equal(
        canonical_qrels(load_table(SAMPLE_DIR / "web_search" / "qrels.csv")), qrels
    )


def _means(data: Dataset, measures: list[str], by: str | None = None) -> pd.DataFrame:
    evaluate = pytest.importorskip("metrics.engine.evaluation").evaluate
    per_query = evaluate(
        data.run[["query", "item", "score", "model"]], data.qrels, measures
    ).per_query
    if by is None:
        return per_query.groupby("model")[measures].mean()
    per_query = per_query.merge(data.segments, on="query")
    return per_query.groupby([by, "model"])[measures].mean()


def test_hybrid_is_best_on_average_but_loses_to_lexical_on_navigational_queries():
    data = load_sample("web_search")
    measures = ["nDCG@10", "AP", "P@10"]
    overall = _means(data, measures)
    for m in measures:
        assert overall[m].idxmax() == "hybrid", m
    nav = _means(data, measures, "query_type").loc["navigational"]
    for m in measures:
        assert nav.loc["lexical", m] - nav.loc["hybrid", m] >= 0.05, m


def test_dense_beats_lexical_on_tail_and_informational_queries():
    data = load_sample("web_search")
    by_type = _means(data, ["nDCG@10"], "query_type")["nDCG@10"]
    by_traffic = _means(data, ["nDCG@10"], "traffic")["nDCG@10"]
    assert by_type[("informational", "dense")] > by_type[("informational", "lexical")] + 0.1
    assert by_traffic[("tail", "dense")] > by_traffic[("tail", "lexical")] + 0.1
    assert by_type[("navigational", "lexical")] > by_type[("navigational", "dense")]


def test_recommendations_have_short_lists_users_without_clicks_and_a_better_candidate():
    data = load_sample("recommendations")
    assert data.models == ["baseline", "candidate"]
    assert data.run["query"].nunique() == 2000
    sizes = data.run.groupby(["model", "query"]).size()
    assert sizes.max() == 20 and (sizes < 20).sum() > 100
    assert set(data.qrels["relevance"].unique()) == {0.0, 1.0}
    no_click = data.qrels.groupby("query")["relevance"].max().eq(0).sum()
    assert no_click > 100
    assert data.segment_columns == ["tenure", "activity"]
    overall = _means(data, ["nDCG@10", "AP"])
    assert (overall.loc["candidate"] > overall.loc["baseline"] + 0.02).all()


def test_teaching_lists_reproduce_the_worked_examples():
    data = load_sample("teaching")
    evaluate = pytest.importorskip("metrics.engine.evaluation").evaluate
    pq = evaluate(data.run, data.qrels, ["P@5", "P@10", "R@5", "RR", "nDCG@4"]).per_query
    pq = pq.set_index("query")
    assert pq.loc["precision_recall", ["P@5", "P@10", "R@5"]].tolist() == pytest.approx(
        [0.6, 0.4, 0.3]
    )
    mrr = pq.loc[["mrr_first_at_2", "mrr_first_at_1", "mrr_first_at_4"], "RR"].mean()
    assert mrr == pytest.approx(0.5833, abs=1e-4)
    assert pq.loc["ndcg_graded", "nDCG@4"] == pytest.approx(4.693 / 4.762, abs=1e-3)


def test_teaching_judgments_include_relevant_items_that_were_not_retrieved():
    data = load_sample("teaching")
    judged = data.qrels[data.qrels["query"] == "precision_recall"]
    retrieved = set(data.run.loc[data.run["query"] == "precision_recall", "item"])
    assert judged["relevance"].sum() == 10
    assert len(set(judged.loc[judged["relevance"] > 0, "item"]) - retrieved) == 6
    assert np.array_equal(
        data.run.loc[data.run["query"] == "ndcg_graded", "score"], [-1.0, -2.0, -3.0, -4.0]
    )


def test_rag_evidence_has_two_label_sources_that_agree_moderately_and_order_alike():
    from metrics.labels.sources import sample_sources
    from metrics.labels.study import study_labels

    data = load_sample("rag_evidence")
    sources = sample_sources("rag_evidence")
    assert sources is not None and sources.names == ("annotators", "llm_judge")
    assert data.models == ["bm25", "embedding"]
    assert data.run.groupby(["model", "query"]).size().eq(10).all()
    record = sources.summary().set_index("source")
    assert record.loc["llm_judge", "judge_model"] == "judge-8b"
    assert len(record.loc["llm_judge", "prompt_hash"]) == 12
    assert record.loc["annotators", "kind"] == "human"
    assert record.loc["llm_judge", "kind"] == "machine"
    # the data set's judgments are the first source's
    first = sources.chosen(None)
    assert len(first) == len(data.qrels)
    study = study_labels(sources, data.run, ["nDCG@10", "P@10"])
    kappa = study.agreement.pairs.loc[0, "kappa"]
    assert 0.4 < kappa < 0.6  # moderate: neither chance nor the same labels
    assert (study.consequence.correlations["tau_b"] == 1.0).all()
    assert not study.consequence.swaps.size
    judged = study.consequence.judged.set_index(["source", "model"])["judged"]
    assert (judged.loc["llm_judge"] == 1.0).all() and (judged.loc["annotators"] < 0.9).all()


def test_the_click_labels_favour_the_ranker_they_were_logged_under():
    from sample_data.generate import CLICK_RANKERS

    table = pd.read_csv(SAMPLE_DIR / "click_labels" / "clicks.csv")
    assert table.columns.tolist() == ["query", "item", "grade", "clicks", *CLICK_RANKERS]
    assert table.groupby("query")[list(CLICK_RANKERS)].count().eq(10).all().all()
    never_shown = table["production"].isna()
    assert (table.loc[never_shown, "clicks"] == 0).all() and never_shown.any()
    assert table["grade"].between(0, 3).all() and table["clicks"].between(0, 6).all()
