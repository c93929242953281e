"""Agreement between label sources, against the reference implementations: scikit-learn's
``cohen_kappa_score`` (all weights), statsmodels' ``fleiss_kappa`` and the ``krippendorff``
package's ``alpha`` (nominal, ordinal, interval), on Hypothesis data with missing labels; the
sources read from tables and files, their provenance, aggregates and the mixing warning."""

from __future__ import annotations

import importlib
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics.errors import InputError, SettingsError
from metrics.io.formats import load_table
from metrics.labels.agreement import (
    KAPPA_COLUMNS,
    LEVELS,
    agreement,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    grade_categories,
    krippendorff_alpha,
    pairwise_agreement,
    raw_agreement,
)
from metrics.labels.messages import REASONS, reason_text
from metrics.labels.sources import (
    AGGREGATES,
    LabelSources,
    Provenance,
    aggregate_grades,
    is_judgments,
    prompt_hash,
    read_sources,
    sources_from_columns,
    sources_from_judgments,
)
from tests.oracles import require_oracle

#: Grades with gaps and a fraction, so that positions and values of categories differ.
GRADES = [0.0, 1.0, 2.0, 3.0, 5.0, 0.5]


@st.composite
def grade_arrays(draw, min_sources: int = 2, max_sources: int = 5, max_units: int = 40):
    """Grades of units × sources with missing labels (``NaN``) among a few categories."""
    sources = draw(st.integers(min_sources, max_sources))
    units = draw(st.integers(1, max_units))
    palette = draw(st.lists(st.sampled_from(GRADES), min_size=1, max_size=5, unique=True))
    cells = st.one_of(st.sampled_from(palette), st.just(float("nan")))
    values = draw(st.lists(cells, min_size=units * sources, max_size=units * sources))
    return np.array(values, dtype=np.float64).reshape(units, sources)


def _overlap(grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = grades[:, 0], grades[:, 1]
    both = ~np.isnan(a) & ~np.isnan(b)
    return a[both], b[both]


def _oracle(package: str, module: str):
    """A module of an oracle package (skipped without it, failed under CI)."""
    require_oracle(package)
    return importlib.import_module(module)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# --------------------------------------------------------------------------- Cohen's kappa


@pytest.mark.slow
@pytest.mark.parametrize("weights", list(KAPPA_COLUMNS.values()))
@hsettings(max_examples=150, deadline=None)
@given(grades=grade_arrays(max_sources=2))
def test_cohen_kappa_equals_scikit_learn_on_the_items_both_judged(weights, grades):
    sklearn_metrics = _oracle("sklearn", "sklearn.metrics")
    a, b = _overlap(grades)
    cats = grade_categories(grades)
    ours = cohen_kappa(grades[:, 0], grades[:, 1], weights, cats)
    assert ours.n == len(a)
    assume(len(a) and not ours.reason)
    # scikit-learn reads class labels, not numbers: each grade as its position among the grades
    codes_a, codes_b = np.searchsorted(cats, a), np.searchsorted(cats, b)
    theirs = _quiet(
        sklearn_metrics.cohen_kappa_score,
        codes_a,
        codes_b,
        labels=np.arange(len(cats)),
        weights=weights,
    )
    assert ours.value == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    # without the categories: the grades these two gave (scikit-learn's default labels)
    alone = cohen_kappa(a, b, weights)
    assert alone.value == pytest.approx(
        _quiet(sklearn_metrics.cohen_kappa_score, codes_a, codes_b, weights=weights),
        rel=1e-9,
        abs=1e-12,
    )


@hsettings(max_examples=100, deadline=None)
@given(grades=grade_arrays(max_sources=2))
def test_unweighted_kappa_is_the_chance_corrected_raw_agreement(grades):
    a, b = grades[:, 0], grades[:, 1]
    kappa, raw = cohen_kappa(a, b), raw_agreement(a, b)
    assume(not kappa.reason)
    counts = confusion_matrix(a, b)
    n = counts.sum()
    chance = float((counts.sum(axis=1) * counts.sum(axis=0)).sum()) / n**2
    assert raw.value == pytest.approx(np.trace(counts) / n)
    assert kappa.value == pytest.approx((raw.value - chance) / (1 - chance))


def test_kappa_by_hand():
    # 10 items: 4 agree on 1, 3 agree on 0, 2 (a=1, b=0), 1 (a=0, b=1)
    a = np.array([1, 1, 1, 1, 0, 0, 0, 1, 1, 0], dtype=float)
    b = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 1], dtype=float)
    # p_o = 0.7; a: six 1s, b: five 1s -> p_e = 0.6*0.5 + 0.4*0.5 = 0.5; kappa = 0.4
    assert cohen_kappa(a, b).value == pytest.approx(0.4)
    assert raw_agreement(a, b).value == pytest.approx(0.7)


def test_kappa_of_one_category_or_no_overlap_is_nan_with_a_reason():
    same = cohen_kappa(np.array([2.0, 2.0, np.nan]), np.array([2.0, 2.0, 1.0]))
    assert np.isnan(same.value) and same.reason == "one_category" and same.n == 2
    apart = cohen_kappa(np.array([1.0, np.nan]), np.array([np.nan, 0.0]), "quadratic")
    assert np.isnan(apart.value) and apart.reason == "no_overlap" and apart.n == 0
    assert raw_agreement(np.array([1.0, np.nan]), np.array([np.nan, 0.0])).reason == "no_overlap"
    # one source all 0, the other all 1: no agreement beyond chance, kappa 0 (defined)
    assert cohen_kappa(np.zeros(3), np.ones(3)).value == 0.0
    assert reason_text("one_category") == REASONS["one_category"]


def test_unknown_weights_are_refused():
    with pytest.raises(SettingsError, match="linear, quadratic or none"):
        cohen_kappa(np.zeros(2), np.ones(2), "cubic")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- Fleiss' kappa


@pytest.mark.slow
@hsettings(max_examples=150, deadline=None)
@given(grades=grade_arrays())
def test_fleiss_kappa_equals_statsmodels_on_the_items_every_source_judged(grades):
    inter_rater = _oracle("statsmodels", "statsmodels.stats.inter_rater")
    complete = grades[~np.isnan(grades).any(axis=1)]
    ours = fleiss_kappa(grades)
    assert ours.n == len(complete)
    assume(not ours.reason)
    table, _ = inter_rater.aggregate_raters(complete)
    assert ours.value == pytest.approx(inter_rater.fleiss_kappa(table), rel=1e-9, abs=1e-12)


def test_fleiss_kappa_edge_cases_are_nan_with_a_reason():
    assert fleiss_kappa(np.array([[1.0], [2.0]])).reason == "one_source"
    assert fleiss_kappa(np.array([[1.0, np.nan], [np.nan, 2.0]])).reason == "no_complete_item"
    one = fleiss_kappa(np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, np.nan, 0.0]]))
    assert np.isnan(one.value) and one.reason == "one_category" and one.n == 2


# --------------------------------------------------------------------------- Krippendorff's alpha


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@hsettings(max_examples=150, deadline=None)
@given(grades=grade_arrays(min_sources=2))
def test_alpha_equals_the_krippendorff_package_with_missing_labels(level, grades):
    krippendorff = require_oracle("krippendorff")
    ours = krippendorff_alpha(grades, level)
    assume(not ours.reason)
    theirs = krippendorff.alpha(reliability_data=grades.T, level_of_measurement=level)
    assert ours.value == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    assert ours.n == int(((~np.isnan(grades)).sum(axis=1) >= 2).sum())


def test_alpha_by_hand_on_krippendorffs_example():
    # Krippendorff (2011), section C: 4 observers, 12 units, nominal alpha 0.743
    data = np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
            [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
        ]
    ).T
    assert krippendorff_alpha(data, "nominal").value == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(data, "ordinal").value == pytest.approx(0.815, abs=5e-4)
    assert krippendorff_alpha(data, "interval").value == pytest.approx(0.849, abs=5e-4)


def test_alpha_edge_cases_are_nan_with_a_reason():
    lonely = krippendorff_alpha(np.array([[1.0, np.nan], [np.nan, 2.0]]))
    assert np.isnan(lonely.value) and lonely.reason == "no_overlap"
    one = krippendorff_alpha(np.array([[2.0, 2.0], [2.0, np.nan], [1.0, np.nan]]), "interval")
    assert np.isnan(one.value) and one.reason == "one_category" and one.n == 1
    with pytest.raises(SettingsError, match="level"):
        krippendorff_alpha(np.array([[1.0, 2.0]]), "ratio")  # type: ignore[arg-type]


@hsettings(max_examples=100, deadline=None)
@given(grades=grade_arrays())
def test_pairwise_agreement_counts_agreeing_pairs_of_labels(grades):
    ours = pairwise_agreement(grades)
    agreeing = pairs = 0
    for row in grades:
        given = [g for g in row if not np.isnan(g)]
        if len(given) < 2:
            continue
        for i in range(len(given)):
            for j in range(len(given)):
                if i != j:
                    pairs += 1
                    agreeing += given[i] == given[j]
    if not pairs:
        assert ours.reason == "no_overlap"
    else:
        assert ours.value == pytest.approx(agreeing / pairs)
    if grades.shape[1] == 2 and pairs:
        assert ours.value == pytest.approx(raw_agreement(grades[:, 0], grades[:, 1]).value)


# --------------------------------------------------------------------------- the tables


def _sources(grades: np.ndarray, queries: list[str] | None = None) -> LabelSources:
    names = [f"s{j}" for j in range(grades.shape[1])]
    table = pd.DataFrame(
        {
            "query": queries or [f"q{i % 3}" for i in range(len(grades))],
            "item": [f"d{i}" for i in range(len(grades))],
        }
    )
    for j, name in enumerate(names):
        table[name] = grades[:, j]
    return LabelSources(table)


@hsettings(max_examples=60, deadline=None)
@given(grades=grade_arrays(max_sources=4))
def test_the_tables_hold_each_pair_and_the_largest_differences_first(grades):
    found = agreement(_sources(grades))
    s = grades.shape[1]
    assert len(found.pairs) == s * (s - 1) // 2
    for row in found.pairs.to_dict("records"):
        i, j = int(row["source_a"][1:]), int(row["source_b"][1:])
        counts = found.confusion_matrix(row["source_a"], row["source_b"])
        assert int(counts.to_numpy().sum()) == row["n"]
        flipped = found.confusion_matrix(row["source_b"], row["source_a"])
        assert np.array_equal(flipped.to_numpy(), counts.to_numpy().T)
        expected = cohen_kappa(grades[:, i], grades[:, j], "linear", grade_categories(grades))
        assert row["kappa_linear"] == pytest.approx(expected.value, nan_ok=True)
    diffs = found.items["difference"].to_numpy()
    assert np.all(diffs[:-1] >= diffs[1:])
    assert (found.items["judged"] >= 2).all()
    for _, part in found.items.groupby("difference", sort=False):
        rows = [int(item[1:]) for item in part["item"]]
        assert rows == sorted(rows), "ties keep the order of the input"
    assert list(found.overall["statistic"]) == [
        "agreement",
        "fleiss_kappa",
        "alpha_nominal",
        "alpha_ordinal",
        "alpha_interval",
    ]


def test_the_queries_where_sources_disagree_most_come_first():
    grades = np.array([[0, 0], [1, 1], [0, 3], [2, 1], [1, 1], [np.nan, 2], [3, 3]], dtype=float)
    queries = ["q1", "q1", "q2", "q2", "q3", "q3", "q3"]
    found = agreement(_sources(grades, queries))
    assert list(found.items["item"][:2]) == ["d2", "d3"]
    table = found.queries.set_index("query")
    assert list(found.queries["query"]) == ["q2", "q1", "q3"]
    assert table.loc["q2", "mean_difference"] == 2.0 and table.loc["q2", "max_difference"] == 3
    assert table.loc["q3", "items"] == 2 and table.loc["q3", "disagreements"] == 0


# --------------------------------------------------------------------------- sources


def test_label_columns_of_one_table_keep_missing_apart_from_not_relevant():
    table = pd.DataFrame(
        {
            "qid": ["q1", "q1", "q1", "q2"],
            "docid": ["a", "b", "c", "a"],
            "annotator": ["relevant", "not relevant", "", "relevant"],
            "llm": [1, 0, 1, None],
            "llm_judge_model": ["judge-7b", "judge-7b", "judge-7b", ""],
            "llm_prompt": ["Grade it.", "Grade it.", "Grade it.", ""],
        }
    )
    sources = sources_from_columns(table, ["annotator", "llm"], ["annotator A", "LLM judge"])
    assert sources.names == ("annotator A", "LLM judge")
    assert sources.table["annotator A"].tolist()[:2] == [1.0, 0.0]
    assert np.isnan(sources.table["annotator A"][2]) and np.isnan(sources.table["LLM judge"][3])
    assert len(sources.qrels("annotator A")) == 3
    llm = sources.provenance["LLM judge"]
    assert llm.judge_model == ("judge-7b",) and llm.kind == ("machine",)
    assert llm.prompt_hash == (prompt_hash("Grade it."),)
    assert sources.provenance["annotator A"] == Provenance()
    assert not sources.findings


def test_judgment_files_are_read_with_their_provenance_and_a_mixed_source_is_warned(tmp_path):
    (tmp_path / "assessors.qrels").write_text("q1 0 a 2\nq1 0 b 0\nq2 0 a 1\n")
    (tmp_path / "filled.csv").write_text(
        "query,item,label,judge_model,date\nq1,a,2,,2024-05-01\nq1,b,1,judge-7b,2024-05-02\n"
        "q2,c,0,judge-7b,2024-05-02\n"
    )
    sources = read_sources([tmp_path / "assessors.qrels", tmp_path / "filled.csv"])
    assert sources.names == ("assessors", "filled")
    assert sources.files == {"assessors": "assessors.qrels", "filled": "filled.csv"}
    assert len(sources.table) == 4  # q1/a, q1/b, q2/a, q2/c
    (finding,) = sources.findings
    assert finding.code == "mixed_label_kinds" and finding.severity == "warning"
    assert finding.params == {"name": "filled", "human": 1, "machine": 2}
    assert "mixes" in finding.message and finding.source == "filled.csv"
    summary = sources.summary().set_index("source")
    assert bool(summary.loc["filled", "mixed"]) and not summary.loc["assessors", "mixed"]
    assert summary.loc["filled", "date"] == "2024-05-01; 2024-05-02"
    assert summary.loc["filled", "kind"] == "human; machine"


def test_a_kind_column_with_people_and_a_model_is_a_mixed_source():
    table = pd.DataFrame(
        {
            "query": ["q"] * 3,
            "item": ["a", "b", "c"],
            "label": [1, 0, 2],
            "annotator_type": ["Human", "LLM", "crowd_worker"],
        }
    )
    sources = sources_from_judgments([table], ["mixed"])
    assert sources.findings[0].params == {"name": "mixed", "human": 2, "machine": 1}
    assert sources.provenance["mixed"].kind == ("human", "machine")


def test_file_classification_and_bad_input_name_the_fix(tmp_path):
    (tmp_path / "j.qrels").write_text("q1 0 a 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 a 1 2.0 r\n")
    (tmp_path / "j.csv").write_text("query,item,grade\nq1,a,1\n")
    (tmp_path / "r.csv").write_text("query,item,score\nq1,a,0.5\n")
    kinds = {p.name: is_judgments(load_table(p)) for p in tmp_path.iterdir()}
    assert kinds == {"j.qrels": True, "r.run": False, "j.csv": True, "r.csv": False}
    with pytest.raises(InputError, match="Two label sources are named 'x'"):
        read_sources([tmp_path / "j.qrels", tmp_path / "j.csv"], ["x", "x"])
    with pytest.raises(InputError, match="no label column 'llm'"):
        read_sources([tmp_path / "j.csv"], label_columns=["grade", "llm"])
    (tmp_path / "bad.csv").write_text("query,item,a,b\nq1,a,1,2\nq1,b,1,maybe\n")
    with pytest.raises(InputError) as caught:
        read_sources([tmp_path / "bad.csv"], label_columns=["a", "b"])
    assert caught.value.source == "bad.csv" and caught.value.line == 3


@hsettings(max_examples=100, deadline=None)
@given(grades=grade_arrays(min_sources=1))
def test_aggregates_follow_their_definitions(grades):
    for policy in AGGREGATES:
        out = aggregate_grades(grades, policy)
        for row, value in zip(grades, out):
            given = [g for g in row if not np.isnan(g)]
            if not given:
                assert np.isnan(value)
                continue
            counts = Counter(given)
            top = max(counts.values())
            expected = {
                "majority": min(g for g, c in counts.items() if c == top),
                "mean": np.mean(given),
                "median": np.median(given),
                "max": max(given),
                "min": min(given),
            }[policy]
            assert value == pytest.approx(expected)


def test_an_aggregate_is_one_more_source_and_a_named_choice():
    grades = np.array([[0, 2, 2], [1, np.nan, 3], [np.nan] * 3], dtype=float)
    sources = _sources(grades)
    qrels = sources.qrels("majority")
    assert qrels["relevance"].tolist() == [2.0, 1.0]  # tie of 1 and 3: the lowest
    extended = sources.with_aggregate("max", "best")
    assert extended.names[-1] == "best" and extended.table["best"].tolist()[:2] == [2.0, 3.0]
    with pytest.raises(SettingsError, match="neither a label source"):
        sources.qrels("clicks")
    with pytest.raises(SettingsError, match="label aggregate"):
        aggregate_grades(grades, "mode")
