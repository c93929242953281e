"""The score order on Spark: the same per-query values as the local engine, and the same
warnings about scores that go against their ranks or columns named like distances."""

from __future__ import annotations

import io

import pytest

from metrics.cli import evaluate as evaluate_cli
from tests.test_score_order import VECTORS

pytestmark = pytest.mark.spark


def _evaluate(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = evaluate_cli.main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def _same(*args: str) -> tuple[str, str]:
    local = _evaluate(*args)
    distributed = _evaluate(*args, "--engine", "spark", "--master", "local[2]")
    assert local[0] == distributed[0] == 0, distributed[2]
    assert distributed[1] == local[1]
    assert distributed[2] == local[2]
    return local[1], local[2]


def test_trec_runs_ranked_lowest_first_and_their_warnings_are_the_local_engines(spark, tmp_path):
    pairs = [(q, r) for q in (1, 2, 3) for r in range(1, 6)]
    (tmp_path / "vec.run").write_text(
        "".join(f"{q} Q0 d{r} {r} {r / 10:.2f} vec\n" for q, r in pairs)
    )
    sims = "".join(f"{q} Q0 d{r} {r} {1 - r / 10:.2f} sim\n" for q, r in pairs)
    (tmp_path / "sim.run").write_text(sims)
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 d2 1\n" for q in (1, 2, 3)))
    files = [str(tmp_path / n) for n in ("q.qrels", "vec.run", "sim.run")]
    out, err = _same(*files, "-q", "-m", "RR", "-m", "P@1")
    assert "vec.run: Scores of model 'vec' ascend with rank in 100% of its lists" in err
    out, err = _same(*files, "-q", "-m", "RR", "--score-order", "vec=ascending")
    assert "ascend with rank" not in err and out.count("\t0.5000") == 8  # d2 second in both


def test_tables_of_distances_give_the_local_engines_values_and_warnings(spark, tmp_path):
    # without its labels: Spark reads judgments from the judgments file only
    vectors = "\n".join(line.rsplit(",", 1)[0] for line in VECTORS.splitlines()) + "\n"
    (tmp_path / "vectors.csv").write_text(vectors)
    ranked = "query,doc,rank,score\n" + "".join(
        f"q{q},{d},{r},{r / 10}\n" for q in (1, 2) for r, d in enumerate("abcd", start=1)
    )
    (tmp_path / "ranked.csv").write_text(ranked)
    (tmp_path / "qrels.csv").write_text("query,doc,relevance\nq1,a,1\nq2,f,1\nq2,b,1\n")
    files = [str(tmp_path / n) for n in ("qrels.csv", "vectors.csv", "ranked.csv")]
    _, err = _same(*files, "-q", "-m", "RR")
    assert "vectors.csv: Column 'distance' sounds like a score where lower is better" in err
    assert "Scores of model 'ranked' ascend with rank in 100% of its lists (2 of 2)" in err
    _, err = _same(*files, "-q", "-m", "RR", "--score-order", "ascending")
    assert "sounds like" not in err and "ascend with rank" not in err
