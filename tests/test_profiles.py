"""Tool profiles agree per query with the tools themselves; every difference between two tools is
explained by a policy; ranking change (overlap, RBO, Kendall's τ) agrees with its references.
"""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.engine.differences import explain, explain_against
from metrics.engine.profiles import PROFILES, profile
from metrics.errors import SettingsError
from metrics.review.overlap import kendall_tau, overlap_at, ranking_change, rbo
from tests.oracles import require_oracle
from tests.strategies import collections, to_dicts

#: Our measures and the cutoff the agreement tests use.
MEASURES = ["P@5", "R@5", "Success@5", "RR", "AP", "AP@5", "nDCG@5", "nDCG", "Rprec"]


def per_query(run, qrels, measures, settings_) -> pd.DataFrame:
    table = evaluate(run, qrels, measures, settings_).per_query
    return table.assign(query=table["query"].astype(str)).set_index("query")


def assert_agrees(ours: pd.DataFrame, theirs: dict[str, dict[str, float]]) -> None:
    """``theirs``: our measure -> query -> value; every query of either side on both."""
    for measure, values in theirs.items():
        assert sorted(values) == sorted(ours.index), measure
        for query, want in values.items():
            got = ours.loc[query, measure]
            assert got == pytest.approx(want, abs=1e-9), (measure, query, got, want)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(allow_unjudged_queries=False))
def test_the_ranx_profile_equals_ranx_per_query_with_ties_and_negative_labels(data):
    ranx = require_oracle("ranx")
    run, qrels = data
    run_d, qrels_d = to_dicts(run, qrels)
    shared = sorted(set(run_d) & set(qrels_d))
    names = {m: profile("ranx").name_of(m) for m in MEASURES}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ranx.evaluate(
            ranx.Qrels({q: qrels_d[q] for q in shared}),
            ranx.Run({q: run_d[q] for q in shared}),
            list(names.values()),
            return_mean=False,
        )
    theirs = {m: dict(zip(shared, map(float, result[n]))) for m, n in names.items()}
    assert_agrees(per_query(run, qrels, MEASURES, profile("ranx").settings()), theirs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections())
def test_the_ir_measures_profile_equals_ir_measures_with_missing_queries(data):
    ir_measures = require_oracle("ir_measures")
    run, qrels = data
    # ir_measures' pytrec_eval provider corrupts its state on negative labels (tests/oracles.py):
    # they are judged non-relevant for these measures either way
    qrels = qrels.assign(relevance=qrels["relevance"].clip(lower=0))
    chosen = [m for m in MEASURES if m != "Success@5"]
    parsed = {m: ir_measures.parse_measure(profile("ir_measures").name_of(m)) for m in chosen}
    qrel_rows = [ir_measures.Qrel(str(q), str(i), int(r)) for q, i, r in qrels.to_numpy()]
    run_rows = [ir_measures.ScoredDoc(str(q), str(i), float(s)) for q, i, s in run.to_numpy()]
    found: dict[str, dict[str, float]] = {m: {} for m in chosen}
    by_name = {str(v): k for k, v in parsed.items()}
    for value in ir_measures.iter_calc(list(parsed.values()), qrel_rows, run_rows):
        found[by_name[str(value.measure)]][value.query_id] = float(value.value)
    ours = per_query(run, qrels, chosen, profile("ir_measures").settings())
    assert_agrees(ours, found)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(allow_unjudged_queries=False, tie_free=True))
def test_the_pytrec_eval_profile_is_trec_eval(data):
    pytrec_eval = require_oracle("pytrec_eval")
    run, qrels = data
    qrels = qrels.assign(relevance=qrels["relevance"].clip(lower=0))  # see tests/oracles.py
    run_d, qrels_d = to_dicts(run, qrels)
    names = {m: profile("pytrec_eval").name_of(m) for m in ("P@5", "RR", "AP", "nDCG@5", "nDCG")}
    request = {"P.5", "recip_rank", "map", "ndcg_cut.5", "ndcg"}  # pytrec_eval's families
    result = pytrec_eval.RelevanceEvaluator(qrels_d, request).evaluate(run_d)
    theirs = {m: {q: v[n] for q, v in result.items()} for m, n in names.items()}
    assert_agrees(per_query(run, qrels, list(names), profile("pytrec_eval").settings()), theirs)
    assert profile("pytrec_eval").settings() == Settings()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.floats(0, 10, allow_nan=False)), min_size=2, max_size=12
    ),
    st.integers(1, 12),
)
def test_the_sklearn_profile_equals_ndcg_score_on_the_items_passed_in(rows, k):
    require_oracle("sklearn")
    import sklearn.metrics as sklearn_metrics

    # no tied scores: each row's rank in the order of the drawn floats (ties by position), so
    # no two rows can share a score, whatever the floats
    order = sorted(range(len(rows)), key=lambda i: (rows[i][1], i))
    scores = [0.0] * len(rows)
    for rank, i in enumerate(order):
        scores[i] = float(rank)
    labels = [label for label, _ in rows]
    if not any(labels):
        return
    run = pd.DataFrame({"query": "q", "item": [f"d{i}" for i in range(len(rows))], "score": scores})
    qrels = pd.DataFrame(
        {"query": "q", "item": run["item"], "relevance": labels}
    )  # judged = passed in
    ours = per_query(run, qrels, [f"nDCG@{k}"], profile("sklearn").settings())
    want = sklearn_metrics.ndcg_score([labels], [scores], k=k)
    assert ours.loc["q", f"nDCG@{k}"] == pytest.approx(want, abs=1e-9)


def test_every_profile_names_its_limits_and_builds_valid_settings():
    for key, found in PROFILES.items():
        found.settings()  # valid policies
        assert found.source, key
        assert found.name_of("nDCG@10") is None or "10" in found.name_of("nDCG@10")
    assert profile("recbole").name_of("AP@10") is None and profile("recbole").limits
    assert profile("trec_eval").name_of("nDCG@10") == "ndcg_cut_10"
    assert profile("trec_eval_c").settings().missing_queries == "zero"
    with pytest.raises(SettingsError, match="no tool profile 'solr'"):
        profile("solr")


# --------------------------------------------------------------------------- explained


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), tool=st.sampled_from([p for p in PROFILES if p != "trec_eval"]))
def test_every_difference_from_trec_eval_is_explained_by_a_policy(data, tool):
    run, qrels = data
    a, b = profile("trec_eval").settings(), profile(tool).settings()
    measures = ["P@5", "RR", "nDCG@5", "AP", "CP@5"]
    found = explain(run, qrels, measures, a, b)
    assert found.unexplained == 0
    differing_policies = {p for p in found.counts for p in p.split(" + ")}
    assert differing_policies <= {k for k in b.to_dict() if getattr(a, k) != getattr(b, k)}
    if found.best and " + " not in found.best:  # the best single switch fixes what it claims
        fixed = a.with_(**{found.best: found.best_value})
        again = explain(run, qrels, measures, fixed, b)
        assert len(again.queries) <= len(found.queries) - found.counts.get(found.best, 0)


def test_a_renamed_document_explains_ranx_against_trec_eval_by_the_tie_policy():
    # two tied documents, the relevant one first in the file: ranx keeps the file's order,
    # trec_eval puts the larger id first (trec_eval #22: renaming a document changes nDCG)
    run = pd.DataFrame({"query": "q", "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"query": "q", "item": ["a"], "relevance": [1]})
    found = explain(run, qrels, ["RR"], profile("trec_eval").settings(), profile("ranx").settings())
    row = found.queries.to_dict("records")[0]
    assert (row["a"], row["b"], row["cause"], row["fixes"]) == (0.5, 1.0, "ties", ("ties",))
    assert found.best == "ties" and found.best_value == "input_order"
    assert found.measure_means == {"RR": (0.5, 1.0)}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(allow_unjudged_queries=False))
def test_values_exported_from_ranx_are_explained_against_ours(data):
    ranx = require_oracle("ranx")
    run, qrels = data
    run_d, qrels_d = to_dicts(run, qrels)
    shared = sorted(set(run_d) & set(qrels_d))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ranx.evaluate(
            ranx.Qrels({q: qrels_d[q] for q in shared}),
            ranx.Run({q: run_d[q] for q in shared}),
            ["ndcg@5", "mrr"],
            return_mean=False,
        )
    theirs = pd.DataFrame({"query": shared, "nDCG@5": result["ndcg@5"], "RR": result["mrr"]})
    found = explain_against(run, qrels, theirs)
    assert found.unexplained == 0, found.queries
    assert all(c.startswith("ties=") or "ties=" in c for c in found.counts), found.counts


# --------------------------------------------------------------------------- ranking change


def test_rbo_of_hand_computed_cases():
    assert rbo("abc", "abc", 0.9)[0] == pytest.approx(1.0)
    value, low, residual = rbo("abc", "xyz", 0.9)
    assert value == 0 and low == 0 and residual == pytest.approx(0.9**3 * 1.0, rel=0.2)
    # one swap at the top: A = 0, 1, 1, 1, 1 -> 0.1 (0.9 + 0.81 + 0.729 + 0.6561) + 0.9^5
    assert rbo("abcde", "bacde", 0.9)[0] == pytest.approx(0.30951 + 0.59049)
    value, low, residual = rbo("ab", "ab", 0.5)
    assert low <= value <= low + residual + 1e-12
    assert overlap_at("abcd", "dcxy", 3) == pytest.approx(1 / 3)
    assert overlap_at("ab", "ba", 10) == 1.0
    assert kendall_tau("abcd", "dcba") == (-1.0, 4)
    assert kendall_tau("abcd", "abdc") == (pytest.approx(4 / 6), 4)
    assert math.isnan(kendall_tau("ab", "xa")[0])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 20), unique=True, min_size=1, max_size=15),
    st.lists(st.integers(0, 20), unique=True, min_size=1, max_size=15),
    st.sampled_from([0.5, 0.8, 0.9, 0.95]),
)
def test_rbo_equals_its_definition_and_stays_within_its_bounds(first, second, p):
    """Against Webber et al.'s Eq. 30 written out from sets (the rbo package, which does the
    same, pins numpy below 2), and the bounds summed to a great depth by brute force."""
    depth = min(len(first), len(second))
    value, low, residual = rbo(first[:depth], second[:depth], p)
    agreement = [len(set(first[:d]) & set(second[:d])) / d for d in range(1, depth + 1)]
    want = sum((1 - p) * p ** (d - 1) * a for d, a in enumerate(agreement, 1))
    want += agreement[-1] * p**depth
    assert value == pytest.approx(want, abs=1e-12)
    overlap = agreement[-1] * depth
    beyond = range(depth + 1, depth + 2000)
    brute_low = want - agreement[-1] * p**depth
    brute_low += sum((1 - p) * p ** (d - 1) * overlap / d for d in beyond)
    brute_high = want - agreement[-1] * p**depth
    brute_high += sum(
        (1 - p) * p ** (d - 1) * min(1, (overlap + 2 * (d - depth)) / d) for d in beyond
    )
    assert low == pytest.approx(brute_low, abs=1e-9)
    assert low + residual == pytest.approx(brute_high, abs=1e-9)
    assert low - 1e-12 <= value <= low + residual + 1e-12
    assert 0 <= low <= 1 and 0 <= residual <= 1


def test_ranking_change_per_query_of_two_models():
    from metrics.io.samples import load_sample

    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["P@10"])
    changes = ranking_change(ev.lists["lexical"], ev.lists["hybrid"], data.run, 10)
    assert len(changes) == len(ev.lists["lexical"].query_ids)
    assert changes["overlap"].between(0, 1).all() and changes["rbo"].between(0, 1).all()
    assert (changes["entered"] == changes["left"]).all()  # both top 10s are full
    same = ranking_change(ev.lists["lexical"], ev.lists["lexical"], data.run, 10)
    assert (same["overlap"] == 1).all() and same["rbo"].to_numpy() == pytest.approx(1.0)
    assert (same["kendall_tau"] == 1).all()


# --------------------------------------------------------------------------- command line


@pytest.fixture
def tied_files(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("query,item,score\nq1,a,1\nq1,b,1\nq1,c,0.5\nq2,x,2\nq2,y,1\n")
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("query,item,relevance\nq1,a,1\nq2,y,2\nq2,z,1\n")
    return str(qrels), str(run)


def test_explain_prints_each_differing_query_and_the_setting_that_agrees(tied_files):
    import io

    from metrics.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    assert main(["explain", *tied_files, "-m", "RR", "--to", "ranx"], out=out, err=err) == 0
    assert out.getvalue().splitlines() == ["measure\tquery\ta\tb\tcause", "RR\tq1\t0.5\t1\tties"]
    lines = err.getvalue().splitlines()
    assert "mean RR: 0.5000 (trec_eval 9 / 10) vs 0.7500 (ranx 0.3)" in lines
    assert "cause: 1 query: Tied scores (ties)" in lines
    assert "agree: set ties = input_order" in lines


def test_explain_reads_a_per_query_file_of_another_tool_in_its_names(tied_files, tmp_path):
    import io
    import json

    from metrics.cli.explain import main

    theirs = tmp_path / "ranx.csv"
    theirs.write_text("query,mrr,ndcg@3\nq1,1.0,1.0\nq2,0.5,0.4796249331362629\n")
    out, err = io.StringIO(), io.StringIO()
    args = [*tied_files, "--theirs", str(theirs), "--to", "ranx", "--format", "json"]
    assert main(args, out=out, err=err) == 0, err.getvalue()
    document = json.loads(out.getvalue())
    assert document["best"] == "ties=input_order"
    assert {r["query"] for r in document["queries"]} == {"q1"}
    assert set(document["means"]) == {"RR", "nDCG@3"}


def test_explain_names_the_file_and_the_fix_on_bad_input(tied_files, tmp_path):
    import io

    from metrics.cli.explain import main

    err = io.StringIO()
    assert main([tied_files[0], str(tmp_path / "absent.csv")], err=err) == 2
    assert err.getvalue().startswith("error: ") and "Traceback" not in err.getvalue()
    theirs = tmp_path / "empty.csv"
    theirs.write_text("query,notes\nq1,fine\n")
    err = io.StringIO()
    assert main([*tied_files, "--theirs", str(theirs)], err=err) == 2
    assert "no measure column" in err.getvalue()


def test_compare_shows_how_much_the_rankings_changed_and_the_json_holds_it(tmp_path):
    import io
    import json

    from metrics.cli.compare import main as compare_main
    from tests.app_support import fresh_app, open_page, open_tab, tables_with

    at = open_tab(open_page(fresh_app(), "compare"), "compare", "change")
    shown = tables_with(at, "candidate", "overlap", "RBO")[0].set_index("candidate")
    assert set(shown.index) == {"dense", "hybrid"}
    assert shown["RBO"].between(0, 1).all() and shown["overlap"].between(0, 1).all()
    from metrics.io.samples import load_sample

    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["P@10"])
    hybrid = ranking_change(ev.lists["lexical"], ev.lists["hybrid"], data.run, 10)
    assert shown.loc["hybrid", "RBO"] == pytest.approx(hybrid["rbo"].mean(), abs=5e-4)
    assert any(
        "How far each candidate's top 10" in str(c.proto.spec) for c in at.get("plotly_chart")
    )

    folder = tmp_path
    qrels, run = folder / "qrels.csv", folder / "run.csv"
    data.qrels.to_csv(qrels, index=False)
    data.run.to_csv(run, index=False)
    out = io.StringIO()
    args = [str(qrels), str(run), "-m", "P@10", "--resamples", "200", "--format", "json", "--quiet"]
    assert compare_main(args, out=out, err=io.StringIO()) == 0
    change = json.loads(out.getvalue())["ranking_change"]
    assert change["k"] == 10 and change["p"] == 0.9
    assert change["hybrid"]["summary"]["rbo"] == pytest.approx(hybrid["rbo"].mean())
    assert len(change["hybrid"]["queries"]) == len(hybrid)
