"""Labels as users bring them: text labels read through a value → grade mapping (guessed for
common scales, or given), and labels that are not whole numbers read as trec_eval reads them
(truncated toward zero) unless the policy keeps them."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.cli.evaluate import main
from metrics.errors import InputError
from metrics.io.formats import load_table
from metrics.io.labels import guess_label_map, label_counts, parse_label_map
from metrics.io.loaders import load_dataset
from tests.oracles import require_oracle
from tests.strategies import collections, to_dicts

FRACTIONAL_QRELS = "q1 0 d1 1.5\nq1 0 d2 3\nq1 0 d3 0\n"
RUN = "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d3 3 1 r\n"


def _cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], out, err)
    return status, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- fractional labels


@pytest.fixture
def fractional(tmp_path):
    qrels, run = tmp_path / "frac.qrels", tmp_path / "frac.run"
    qrels.write_text(FRACTIONAL_QRELS)
    run.write_text(RUN)
    return qrels, run


def test_fractional_trec_qrels_give_trec_evals_value_by_default_with_a_note(fractional):
    status, out, err = _cli(*fractional, "-m", "nDCG@3")
    assert status == 0
    assert out == "nDCG@3\tall\t0.7967\n"  # trec_eval; 0.8597 with the label 1.5 kept
    assert "frac.qrels: 1 label is not a whole number (1.5); as trec_eval reads labels" in err
    assert "truncated toward zero (1.5 → 1)" in err


def test_fractional_labels_can_be_kept_as_gains(fractional):
    status, out, err = _cli(*fractional, "-m", "nDCG@3", "--fractional-labels", "keep")
    assert (status, out) == (0, "nDCG@3\tall\t0.8597\n")
    assert "kept as a fractional gain (trec_eval would read 1.5 as 1)" in err


def test_fractional_labels_of_a_csv_and_of_compare_are_read_the_same_way(tmp_path):
    qrels = tmp_path / "q.csv"
    qrels.write_text("query,item,relevance\nq1,d1,1.5\nq1,d2,3\nq1,d3,0\n")
    run = tmp_path / "r.csv"
    run.write_text("query,item,score\nq1,d1,3\nq1,d2,2\nq1,d3,1\n")
    assert _cli(qrels, run, "-m", "nDCG@3")[1] == "nDCG@3\tall\t0.7967\n"
    table = load_dataset([load_table(run)], load_table(qrels))
    assert table.health.get("fractional_labels").count == 1
    per_query = evaluate(table.run, table.qrels, ["nDCG@3"]).per_query
    assert per_query["nDCG@3"].iloc[0] == pytest.approx(0.7967, abs=5e-5)


def test_negative_labels_of_trec_qrels_get_the_same_note_as_a_csvs(tmp_path):
    qrels, run = tmp_path / "neg.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 -1\n")
    run.write_text(RUN)
    status, _, err = _cli(qrels, run, "-m", "P@2")
    assert status == 0
    assert "neg.qrels: 1 label is negative: the item is in the pool but unjudged" in err
    assert "(e.g. query q1, item d2: -1)" in err


pytrec_eval = require_oracle("pytrec_eval")


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), fractions=st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.9]), min_size=1))
def test_fractional_labels_equal_trec_eval_per_query(data, fractions):
    run, qrels = data
    qrels = qrels[qrels["relevance"] >= 0].copy()
    keep = set(qrels["query"])
    run = run[run["query"].isin(keep)]
    if run.empty:
        return
    qrels["relevance"] = [
        r + fractions[i % len(fractions)] for i, r in enumerate(qrels["relevance"])
    ]
    run_d, _ = to_dicts(run, qrels)
    qrels_d: dict = {}
    for q, i, r in qrels[["query", "item", "relevance"]].itertuples(index=False):
        qrels_d.setdefault(str(q), {})[str(i)] = int(r)  # trec_eval's atol
    measures = {"ndcg_cut.3", "ndcg", "map", "P.3", "recip_rank"}
    expected = pytrec_eval.RelevanceEvaluator(qrels_d, measures).evaluate(run_d)
    names = {"nDCG@3": "ndcg_cut_3", "nDCG": "ndcg", "AP": "map", "P@3": "P_3", "RR": "recip_rank"}
    ours = evaluate(run, qrels, list(names)).per_query
    for row in ours.to_dict("records"):
        for name, trec in names.items():
            assert row[name] == pytest.approx(expected[row["query"]][trec], abs=1e-9)


def test_the_fractional_labels_policy_changes_the_ranked_labels():
    run = pd.DataFrame({"query": "q", "item": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": "q", "item": ["a", "b"], "relevance": [0.5, 2.5]})
    kept = evaluate(run, qrels, ["DCG@2"], Settings(fractional_labels="keep")).per_query
    cut = evaluate(run, qrels, ["DCG@2"]).per_query
    assert kept["DCG@2"].iloc[0] == pytest.approx(0.5 + 2.5 / 1.5849625007211563)
    assert cut["DCG@2"].iloc[0] == pytest.approx(2 / 1.5849625007211563)


# --------------------------------------------------------------------------- text labels


@pytest.mark.parametrize(
    "values, grades",
    [
        (["relevant", "not relevant"], [1, 0]),
        (["click", "no click"], [1, 0]),
        (["Clicked", "Not_Clicked"], [1, 0]),
        (["positive", "negative"], [1, 0]),
        (["true", "false"], [1, 0]),
        (["high", "medium", "low"], [2, 1, 0]),
        (["相关", "不相关"], [1, 0]),
        (["点击", "未点击"], [1, 0]),
        (["関連", "非関連"], [1, 0]),
        (["クリック", "クリックなし"], [1, 0]),
        (["highly relevant", "relevant", "not relevant"], [2, 1, 0]),
    ],
)
def test_common_text_label_pairs_are_guessed(values, grades):
    assert guess_label_map(values) == dict(zip(values, map(float, grades)))


def test_unknown_text_labels_are_not_guessed():
    assert guess_label_map(["relevant", "meh"]) is None


def test_a_label_map_is_read_from_its_written_form():
    assert parse_label_map("relevant=1, not relevant=0") == {"relevant": 1.0, "not relevant": 0.0}
    with pytest.raises(InputError, match="not value=grade"):
        parse_label_map("relevant=high")


def test_a_run_with_text_click_labels_is_read_through_the_guessed_mapping_and_noted(tmp_path):
    path = tmp_path / "clicks.csv"
    path.write_text(
        "session,product,model,score,feedback\n"
        "s1,p1,m,0.9,clicked\ns1,p2,m,0.5,not clicked\n"
        "s2,p3,m,0.7,not clicked\ns2,p4,m,0.2,clicked\n"
    )
    data = load_dataset([load_table(path)])
    assert sorted(data.qrels["relevance"]) == [0, 0, 1, 1]
    note = data.health.get("text_labels")
    assert note.message == (
        "The labels of column 'feedback' are text, read as clicked = 1 (2), not clicked = 0 (2) "
        "(rows in brackets)."
    )
    status, out, err = _cli(path, path, "-m", "P@1")
    assert (status, out) == (0, "P@1\tall\t0.5000\n")
    assert "note: clicks.csv: The labels of column 'feedback' are text" in err


@pytest.fixture
def text_judgments(tmp_path):
    qrels = tmp_path / "textq.csv"
    qrels.write_text("query,item,relevance\nq1,a,relevant\nq1,b,not relevant\nq2,c,meh\n")
    run = tmp_path / "textr.csv"
    run.write_text("query,item,score\nq1,a,2\nq1,b,1\nq2,c,2\n")
    return qrels, run


def test_unknown_text_labels_are_refused_naming_column_values_and_the_mapping(text_judgments):
    status, _, err = _cli(*text_judgments, "-m", "P@1")
    assert status == 2
    assert "column 'relevance'" in err and "('relevant', 'not relevant', 'meh')" in err
    assert "--label-map 'relevant=1,not relevant=0,meh=?'" in err


@pytest.mark.parametrize("command", [[], ["compare"]])
def test_a_label_map_on_either_command_line_reads_the_text_labels(text_judgments, command):
    qrels, run = text_judgments
    mapping = "relevant=1,not relevant=0,meh=2"
    if command:
        other = run.parent / "other.csv"
        other.write_text("query,item,score\nq1,a,1\nq1,b,2\nq2,c,2\n")
        import subprocess
        import sys

        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "metrics",
                "compare",
                str(qrels),
                str(run),
                str(other),
                "-m",
                "P@1",
                "--label-map",
                mapping,
                "--resamples",
                "10",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "read as meh = 2 (1), relevant = 1 (1), not relevant = 0 (1)" in done.stderr
        return
    status, out, err = _cli(qrels, run, "-m", "P@1", "--label-map", mapping)
    assert (status, out) == (0, "P@1\tall\t1.0000\n"), err
    assert "read as meh = 2 (1), relevant = 1 (1), not relevant = 0 (1)" in err


@pytest.mark.spark
def test_engine_spark_reads_fractional_and_negative_trec_labels_like_the_local_engine(
    spark, tmp_path
):
    qrels, run = tmp_path / "frac.qrels", tmp_path / "frac.run"
    qrels.write_text(FRACTIONAL_QRELS + "q1 0 d4 -1\n")
    run.write_text(RUN)
    local = _cli(qrels, run, "-m", "nDCG@3")
    distributed = _cli(qrels, run, "-m", "nDCG@3", "--engine", "spark")
    assert local[:2] == distributed[:2] == (0, "nDCG@3\tall\t0.7967\n")
    assert "1 label is not a whole number" in local[2] and "1 label is negative" in local[2]
    assert [x for x in distributed[2].splitlines() if x.startswith(("note", "warning"))] == [
        x for x in local[2].splitlines() if x.startswith(("note", "warning"))
    ]


def test_label_counts_count_judgments_per_label_value_in_ascending_order():
    table = label_counts(pd.Series([3.0, 0.0, 1.0, 1.0, 0.5, -1.0, float("nan")]))
    assert list(table["label"]) == ["-1", "0", "0.5", "1", "3"]
    assert list(table["judgments"]) == [1, 1, 1, 2, 1]
    assert list(table["share"]) == [1 / 6, 1 / 6, 1 / 6, 2 / 6, 1 / 6]  # of the six with a label
    assert label_counts(pd.Series([], dtype="float64")).empty
