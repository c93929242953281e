"""The score order: lower-is-better scores (distances, costs, losses) ranked the right way round,
guessed from names and ranks, said in findings, and set per model and on the command line."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, SettingsError, evaluate
from metrics.cli.evaluate import main
from metrics.engine.settings import check_model_orders, parse_model_orders
from metrics.errors import MeasureError
from metrics.io.checks import under_settings, validate
from metrics.io.direction import (
    guess_direction,
    list_directions,
    lower_is_better_name,
)
from metrics.io.formats import load_table
from metrics.io.loaders import load_dataset
from metrics.io.roles import guess_roles
from tests.oracles import require_oracle
from tests.strategies import collections
from tests.test_against_trec_eval import OURS_TO_TREC, trec_eval_per_query
from ui.shell.findings_view import finding_text

require_oracle("pytrec_eval")

#: A vector search export: the smaller the distance, the closer the match.
VECTORS = (
    "query,doc,distance,relevant\n"
    "q1,a,0.1,1\nq1,b,0.2,0\nq1,c,0.3,0\nq1,d,0.4,0\n"
    "q2,e,0.1,0\nq2,f,0.2,1\nq2,g,0.3,0\nq2,h,0.4,0\n"
)


def _vectors(settings: Settings | None = None):
    return load_dataset([load_table(VECTORS.encode(), "vectors.csv")], settings=settings)


# ----------------------------------------------------------------------------- the engine


def test_distances_ranked_lowest_first_give_the_right_reciprocal_rank():
    data = _vectors()
    inverted = evaluate(data.run, data.qrels, ["RR"]).per_query["RR"].mean()
    right = evaluate(data.run, data.qrels, ["RR"], Settings(score_order="ascending"))
    assert round(inverted, 2) == 0.29  # ranked highest first: every list upside down
    assert right.per_query["RR"].mean() == pytest.approx(0.75)
    assert right.per_query["RR"].tolist() == [1.0, 0.5]


def _per_query(run, qrels, settings):
    return evaluate(run, qrels, list(OURS_TO_TREC), settings).per_query


@pytest.mark.slow
@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 2]))
def test_lower_is_better_equals_trec_eval_on_the_negated_scores_per_query(data, level):
    run, qrels = data
    negated = run.assign(score=-run["score"])
    expected = trec_eval_per_query(negated, qrels, level)
    ours = _per_query(run, qrels, Settings(relevance_level=level, score_order="ascending"))
    assert sorted(ours["query"]) == sorted(expected)
    for row in ours.to_dict("records"):
        for name, trec_name in OURS_TO_TREC.items():
            want = expected[row["query"]][trec_name]
            assert row[name] == pytest.approx(want, abs=1e-9), (row["query"], name)


@hsettings(max_examples=60, deadline=None)
@given(data=collections(), ties=st.sampled_from(["item_desc", "input_order"]))
def test_each_tie_policy_means_the_same_for_negated_scores_ranked_highest_first(data, ties):
    run, qrels = data
    ours = _per_query(run, qrels, Settings(ties=ties, score_order="ascending"))
    negated = _per_query(run.assign(score=-run["score"]), qrels, Settings(ties=ties))
    pd.testing.assert_frame_equal(ours, negated)


@hsettings(max_examples=40, deadline=None)
@given(data=collections())
def test_a_model_of_its_own_order_scores_as_the_same_model_with_negated_scores(data):
    run, qrels = data
    both = pd.concat(
        [run.assign(model="sim"), run.assign(model="dist", score=-run["score"])],
        ignore_index=True,
    )
    settings = Settings(score_order_by_model={"dist": "ascending"})
    values = _per_query(both, qrels, settings)
    sim, dist = (
        values[values["model"] == m].drop(columns="model").reset_index(drop=True)
        for m in ("sim", "dist")
    )
    pd.testing.assert_frame_equal(sim, dist)


def test_ties_still_break_by_item_id_descending_and_rank_ignores_the_scores():
    run = pd.DataFrame(
        {"query": ["q"] * 3, "item": ["d1", "d2", "d10"], "score": [1.0] * 3, "rank": [3, 2, 1]}
    )
    qrels = pd.DataFrame({"query": ["q"], "item": ["d10"], "relevance": [1]})
    lower = Settings(score_order="ascending")
    # byte order descending: d2 > d10 > d1 whichever way the scores go
    assert evaluate(run, qrels, ["RR"], lower).per_query.loc[0, "RR"] == 0.5
    assert evaluate(run, qrels, ["RR"], lower.with_(ties="rank")).per_query.loc[0, "RR"] == 1.0


def test_missing_scores_still_rank_last_and_minus_infinity_first_when_lower_is_better():
    run = pd.DataFrame(
        {"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [np.nan, 5.0, -np.inf]}
    )
    qrels = pd.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    ranked = evaluate(run, qrels, ["RR"], Settings(score_order="ascending")).lists
    lists = next(iter(ranked.values()))
    assert list(run["item"].to_numpy()[lists.row_index]) == ["c", "b", "a"]


def test_confidence_weighted_precision_refuses_lower_is_better_scores():
    data = _vectors()
    with pytest.raises(MeasureError, match="lowest first"):
        evaluate(data.run, data.qrels, ["cwP@2"], Settings(score_order="ascending"))


# ----------------------------------------------------------------------------- settings


def test_orders_per_model_are_stored_sorted_without_those_of_the_score_order():
    s = Settings(score_order_by_model={"b": "ascending", "a": "descending", "c": "ascending"})
    assert s.score_order_by_model == (("b", "ascending"), ("c", "ascending"))
    assert s.score_order_of("b") == "ascending" and s.score_order_of("a") == "descending"
    assert s.for_model("b") == Settings(score_order="ascending")
    back = Settings.from_dict(json.loads(json.dumps(s.to_dict())))  # pairs become lists
    assert back == s and hash(back) == hash(s)
    assert dict(s.describe())["Score order per model"].startswith("b: lower is better")


@pytest.mark.parametrize(
    "value, message",
    [
        ({"m": "up"}, "must be 'descending' or 'ascending'; got 'up'"),
        ([("m", "ascending"), ("m", "descending")], "given two orders"),
        (3, "model=order pairs"),
    ],
)
def test_bad_orders_per_model_are_refused_with_a_message(value, message):
    with pytest.raises(SettingsError, match=message):
        Settings(score_order_by_model=value)


def test_command_line_orders_are_read_and_unknown_models_refused():
    assert parse_model_orders(["ascending", "a=b=descending", "x=ascending"]) == (
        "ascending",
        {"a=b": "descending", "x": "ascending"},
    )
    with pytest.raises(SettingsError, match="MODEL=ascending"):
        parse_model_orders(["=ascending"])
    with pytest.raises(SettingsError, match="'nope', which is not a model"):
        check_model_orders(Settings(score_order_by_model={"nope": "ascending"}), ["a", "b"])


# ----------------------------------------------------------------------------- guesses


@pytest.mark.parametrize(
    "name",
    [
        "distance",
        "dist",
        "cosine_distance",
        "L2",
        "l2_dist",
        "cost",
        "loss",
        "error",
        "penalty",
        "Distance (cos)",
        "距离",
        "余弦距离",
        "距離",
        "成本",
        "コスト",
        "损失",
        "損失",
    ],
)
def test_names_of_distances_costs_and_losses_say_lower_is_better(name):
    assert lower_is_better_name(name)


@pytest.mark.parametrize(
    "name", ["score", "similarity", "neg_distance", "1-distance", "distinct", "prob", "logit"]
)
def test_other_names_do_not(name):
    assert not lower_is_better_name(name)


def test_a_distance_column_is_guessed_as_the_score_and_lower_is_better_proposed():
    frame = load_table(VECTORS.encode(), "vectors.csv").frame
    guesses = guess_roles(frame)
    assert guesses["score"].column == "distance"
    assert guesses["score"].code == "name_lower_better"
    guess = guess_direction(frame, "distance", None, "query")
    assert (guess.order, guess.code, guess.column) == ("ascending", "name", "distance")
    assert guess_direction(frame.rename(columns={"distance": "score"}), "score") is None


def _ranked(n_lists: int, ascending: int, score: str = "distance") -> pd.DataFrame:
    """``n_lists`` lists of four items, ``ascending`` of them with scores that grow with rank."""
    rows = []
    for q in range(n_lists):
        up = q < ascending
        for r in range(1, 5):
            rows.append((f"q{q}", f"d{r}", r, r / 10 if up else 1 - r / 10, int(r == 1)))
    return pd.DataFrame(rows, columns=["query", "doc", "rank", score, "relevant"])


def test_a_rank_column_proposes_the_order_it_agrees_with_over_the_name():
    frame = _ranked(100, 97, score="similarity")
    guess = guess_direction(frame, "similarity", "rank", "query")
    assert (guess.order, guess.code, guess.agree, guess.lists, guess.share) == (
        "ascending",
        "ranks",
        97,
        100,
        "97%",
    )
    # a column named like a distance whose scores fall with rank: the ranks say higher is better
    named = _ranked(10, 0)
    assert guess_direction(named, "distance", "rank", "query").order == "descending"
    # ranks that go both ways say nothing: the name decides
    assert guess_direction(_ranked(10, 5), "distance", "rank", "query").code == "name"


def test_list_directions_count_steps_to_a_larger_rank_only():
    lists = np.array([0, 0, 0, 1, 1, 2, 2])
    rank = np.array([1, 2, 2, 1, 2, 1, 1])
    score = np.array([0.1, 0.3, 0.2, 0.9, 0.1, 0.5, 0.6])
    ids, way = list_directions(lists, rank, score)
    assert ids.tolist() == [0, 1, 2] and way.tolist() == [1, -1, 0]


# ----------------------------------------------------------------------------- findings


def _run_and_qrels(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    run = frame.rename(columns={"doc": "item", "distance": "score"})[
        ["query", "item", "score", "rank"]
    ].assign(model="vec")
    qrels = frame.rename(columns={"doc": "item", "relevant": "relevance"})[
        ["query", "item", "relevance"]
    ]
    return run, qrels


def test_scores_that_ascend_with_rank_are_a_finding_in_english_chinese_and_japanese():
    run, qrels = _run_and_qrels(_ranked(100, 97))
    health = validate(run, qrels, k_max=4)
    found = health.get("score_order_vs_rank")
    assert found is not None and found.severity == "warning" and found.variant == "ascending"
    assert found.message == (
        "Scores of model 'vec' ascend with rank in 97% of its lists (97 of 100): lower is "
        "better? As set, the highest score ranks first."
    )
    assert "'Score order' to 'lower is better" in found.action
    zh, ja = finding_text(found, "zh"), finding_text(found, "ja")
    assert "97%" in zh.message and "越低越好" in zh.message and "最高分排在最前" in zh.message
    assert "97%" in ja.message and "低いほど良い" in ja.message
    assert "“分数方向”" in zh.action and "「スコアの向き」" in ja.action
    en = finding_text(found, "en")
    assert en.message == found.message
    # ranked lowest first, as the ranks say: nothing to report
    agreed = validate(run, qrels, k_max=4, settings=Settings(score_order="ascending"))
    assert agreed.get("score_order_vs_rank") is None
    # and the other way round
    falling, falling_qrels = _run_and_qrels(_ranked(20, 0))
    upside = validate(falling, falling_qrels, k_max=4, settings=Settings(score_order="ascending"))
    assert upside.get("score_order_vs_rank").variant == "descending"
    assert "higher is better?" in upside.get("score_order_vs_rank").message


def test_a_finding_follows_the_settings_it_is_shown_under():
    run, qrels = _run_and_qrels(_ranked(10, 10))
    health = validate(run, qrels, k_max=4)
    assert "score_order_vs_rank" in health.codes()
    shown = under_settings(health, run, Settings(score_order_by_model={"vec": "ascending"}))
    assert "score_order_vs_rank" not in shown.codes()
    data = _vectors()
    assert "score_order_by_name" in data.health.codes()
    fixed = under_settings(data.health, data.run, Settings(score_order="ascending"))
    assert "score_order_by_name" not in fixed.codes()
    assert len(fixed.findings) == len(data.health.findings) - 1


def test_a_distance_column_is_a_warning_until_lower_is_better_is_set():
    found = _vectors().health.get("score_order_by_name")
    assert found.source == "vectors.csv" and found.examples == ["model vectors"]
    assert found.message.startswith("Column 'distance' sounds like a score where lower is better")
    assert "越低越好" in finding_text(found, "zh").message
    assert "低いほど良い" in finding_text(found, "ja").message
    assert _vectors(Settings(score_order="ascending")).health.get("score_order_by_name") is None


def test_infinite_scores_say_which_end_they_go_to_under_the_score_order():
    run = pd.DataFrame(
        {"query": ["q", "q"], "item": ["a", "b"], "score": [np.inf, 1.0], "model": ["m", "m"]}
    )
    qrels = pd.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    lower = validate(run, qrels, settings=Settings(score_order="ascending"))
    assert "-inf ranks first and +inf last" in lower.get("infinite_scores").message
    assert "-inf 排在最前" in finding_text(lower.get("infinite_scores"), "zh").message
    both = pd.concat([run, run.assign(model="n")], ignore_index=True)
    mixed = validate(both, qrels, settings=Settings(score_order_by_model={"n": "ascending"}))
    assert mixed.get("infinite_scores").variant == "mixed"


# ----------------------------------------------------------------------------- command line


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "vectors.csv").write_text(VECTORS)
    sims = VECTORS.replace("distance", "score").replace("0.1,1", "0.9,1")
    (tmp_path / "sims.csv").write_text(sims)
    (tmp_path / "qrels.csv").write_text("query,doc,relevance\nq1,a,1\nq2,f,1\nq1,b,0\nq2,e,0\n")
    return tmp_path


def test_the_command_line_ranks_lowest_first_with_score_order_ascending(files):
    q, v = str(files / "qrels.csv"), str(files / "vectors.csv")
    code, out, err = _cli(q, v, "-m", "RR", "--format", "json")
    assert code == 0 and json.loads(out)["models"]["vectors"]["all"]["RR"] == pytest.approx(0.2917)
    assert "vectors.csv: Column 'distance' sounds like a score where lower is better" in err
    code, out, err = _cli(q, v, "-m", "RR", "--score-order", "ascending", "--format", "json")
    doc = json.loads(out)
    assert doc["models"]["vectors"]["all"]["RR"] == pytest.approx(0.75)
    assert doc["settings"]["score_order"] == "ascending" and "sounds like" not in err


def test_the_command_line_sets_one_models_order_and_refuses_unknown_ones(files):
    q, v, s = (str(files / n) for n in ("qrels.csv", "vectors.csv", "sims.csv"))
    code, out, _ = _cli(q, v, s, "-m", "RR", "--score-order", "vectors=ascending", "--quiet")
    assert code == 0
    means = {line.split("\t")[0]: float(line.split("\t")[-1]) for line in out.splitlines()}
    assert means == {"vectors": 0.75, "sims": 0.6667}  # sims still ranked highest first
    code, _, err = _cli(q, v, "--score-order", "bm25=ascending")
    assert code == 2 and "'bm25', which is not a model" in err
    with pytest.raises(SystemExit) as usage:
        _cli(q, v, "--score-order", "upwards")
    assert usage.value.code == 2


def test_compare_takes_the_score_order_too(files):
    from metrics.cli.compare import main as compare

    q, v, s = (str(files / n) for n in ("qrels.csv", "sims.csv", "vectors.csv"))
    out = io.StringIO()
    args = [q, v, s, "-m", "RR", "--resamples", "50", "--quiet", "--format", "json"]
    assert compare([*args, "--score-order", "vectors=ascending"], out=out) == 0
    doc = json.loads(out.getvalue())
    assert doc["comparisons"][0]["mean_b"] == pytest.approx(0.75)
    assert doc["options"]["score_order_by_model"] == {"vectors": "ascending"}


def test_a_trec_run_whose_scores_ascend_with_rank_is_a_warning(tmp_path):
    run = "".join(f"{q} Q0 d{r} {r} {r / 10:.2f} vec\n" for q in (1, 2, 3) for r in range(1, 6))
    (tmp_path / "vec.run").write_text(run)
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 d1 1\n" for q in (1, 2, 3)))
    q, r = str(tmp_path / "q.qrels"), str(tmp_path / "vec.run")
    code, out, err = _cli(q, r, "-m", "RR")
    assert code == 0 and out.strip().endswith("0.2000")
    assert "vec.run: Scores of model 'vec' ascend with rank in 100% of its lists (3 of 3)" in err
    code, out, err = _cli(q, r, "-m", "RR", "--score-order", "ascending")
    assert out.strip().endswith("1.0000") and "ascend with rank" not in err


def test_lower_is_better_also_on_runs_laid_out_as_trec_files_are():
    """A run grouped by query and sorted highest first is ranked without a sort (the fast
    path); with lower is better it must still rank the smallest distance first."""
    run = pd.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [0.9, 0.5, 0.1]})
    qrels = pd.DataFrame({"query": ["q"], "item": ["c"], "relevance": [1]})
    ascending = evaluate(run, qrels, ["RR"], Settings(score_order="ascending")).per_query
    assert ascending["RR"].tolist() == [1.0]
    assert evaluate(run, qrels, ["RR"]).per_query["RR"].tolist() == [pytest.approx(1 / 3)]


def test_an_order_per_model_holds_for_trec_runs_read_block_by_block(tmp_path):
    pairs = [(q, r) for q in (1, 2, 3) for r in range(1, 6)]
    (tmp_path / "vec.run").write_text(
        "".join(f"{q} Q0 d{r} {r} {r / 10:.2f} vec\n" for q, r in pairs)
    )
    (tmp_path / "sim.run").write_text(
        "".join(f"{q} Q0 d{r} {r} {1 - r / 10:.2f} sim\n" for q, r in pairs)
    )
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 d2 1\n" for q in (1, 2, 3)))
    files = [str(tmp_path / n) for n in ("q.qrels", "vec.run", "sim.run")]
    code, out, _ = _cli(*files, "-q", "-m", "RR", "--score-order", "vec=ascending")
    assert code == 0 and out.count("\t0.5000") == 8  # d2 second in both, vec lowest first


@hsettings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=8), min_size=1, max_size=6
    ),
    st.randoms(),
)
def test_the_directions_of_lists_laid_out_in_order_equal_those_of_shuffled_rows(lists, shuffle):
    """Run files list each query's rows in rank order: read without a sort, the directions are
    those of the same rows in any order."""
    from metrics.io.direction import list_directions

    codes = np.concatenate([np.full(len(scores), i) for i, scores in enumerate(lists)])
    ranks = np.concatenate([np.arange(1, len(scores) + 1) for scores in lists]).astype(float)
    scores = np.concatenate([np.asarray(s, dtype=float) for s in lists])
    in_order = list_directions(codes, ranks, scores)
    order = list(range(len(codes)))
    shuffle.shuffle(order)
    shuffled = list_directions(codes[order], ranks[order], scores[order])
    assert in_order[0].tolist() == shuffled[0].tolist()
    assert in_order[1].tolist() == shuffled[1].tolist()


@given(
    st.lists(
        st.lists(
            st.tuples(st.floats(-5, 5, allow_nan=False), st.integers(1, 4)),
            min_size=1,
            max_size=8,
        ),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_directions_of_lists_back_to_back_equal_those_of_list_codes(
    lists, rising, float_rank, missing
):
    """The block reader's count (lists given by where they start) equals the count of the same
    rows given a list code each: ranks rising or not, tied, scores missing."""
    from metrics.io.direction import direction_counts, run_direction_counts

    scores = np.array([s for rows in lists for s, _ in rows], dtype=float)
    if rising:  # the layout of run files: 1, 2, 3, ... within each list
        ranks = np.concatenate([np.arange(1, len(rows) + 1) for rows in lists])
    else:
        ranks = np.array([r for rows in lists for _, r in rows])
    if float_rank:
        ranks = ranks.astype(float)
    if missing:  # a score that is not a number: left out
        scores[len(scores) // 2] = float("nan")
    lengths = np.array([len(rows) for rows in lists])
    starts = np.cumsum(lengths) - lengths
    codes = np.repeat(np.arange(len(lists)), lengths)
    assert run_direction_counts(starts, ranks, scores) == direction_counts(codes, ranks, scores)
