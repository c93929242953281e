"""trec_eval's own test collection (tests/fixtures/trec_eval/): the command line prints
trec_eval's stored per-query values for every measure both tools have.

Which measures are compared is read from our registry: every measure name in a stored output
that our registry parses back to the same trec_eval name is checked, so measures registered
later (bpref, infAP, iprec_at_recall, 11pt_avg, num_rel, num_rel_ret, gm_map, ...) are checked
from then on without editing this file. ``SHARED_TODAY`` is the list that must be compared now,
so that the test cannot pass by comparing nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from metrics.engine.registry import parse_measure
from metrics.errors import MeasureError

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "trec_eval"

#: (stored output, qrels, run, trec_eval flags that we share). The stored outputs come from
#: trec_eval 10, which orders scores as doubles and rounds recall levels with lround: hence
#: --profile trec_eval10.
CASES = [
    ("out.test.aq", "qrels.test", "results.test", []),
    ("out.test.aq", "qrels.test.with-comments", "results.test", []),
    ("out.test.aqc", "qrels.test", "results.trunc", ["-c"]),
    ("out.test.aql", "qrels.rel_level", "results.test", ["-l", "2"]),
]
CASE_IDS = ["plain", "comment lines in qrels", "text after the tag, -c", "relevance level 2"]

#: Measures of trec_eval's `all_trec` output that our registry must compute today.
SHARED_TODAY = frozenset(
    ["map", "Rprec", "recip_rank", "ndcg"]
    + [f"{m}_{k}" for m in ("P", "recall", "map_cut", "ndcg_cut") for k in (5, 10, 15, 20, 30)]
    + [f"{m}_{k}" for m in ("P", "recall", "map_cut", "ndcg_cut") for k in (100, 200, 500, 1000)]
    + ["success_1", "success_5", "success_10"]
)


def stored_values(name: str) -> dict[tuple[str, str], str]:
    """``{(measure, query): value}`` of a stored ``trec_eval -q`` output."""
    out = {}
    for line in (FIXTURES / name).read_text().splitlines():
        measure, query, value = (field.strip() for field in line.split("\t"))
        out[measure, query] = value
    return out


def shared_measures(names: set[str]) -> list[str]:
    """The names our registry reads back as the same trec_eval measure."""
    shared = []
    for name in sorted(names):
        try:
            spec = parse_measure(name)
        except MeasureError:
            continue
        if spec.trec_eval_name == name:
            shared.append(name)
    return shared


def cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "metrics", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def test_the_fixture_readme_names_the_source_commit_and_the_version_of_every_output():
    readme = (FIXTURES / "README.md").read_text()
    assert "usnistgov/trec_eval" in readme and "f4253652c8efd0d86ddffd0d163cc0a0f813111a" in readme
    for name in {case[0] for case in CASES} | {case[1] for case in CASES}:
        assert f"`{name}`" in readme


@pytest.mark.parametrize("output", sorted({case[0] for case in CASES}))
def test_every_measure_that_must_be_shared_today_is_in_the_output_and_in_our_registry(output):
    stored = {measure for measure, _ in stored_values(output)}
    assert stored >= SHARED_TODAY
    assert set(shared_measures(stored)) >= SHARED_TODAY


@pytest.mark.parametrize("output, qrels, run, flags", CASES, ids=CASE_IDS)
def test_per_query_values_equal_trec_eval_for_every_shared_measure(output, qrels, run, flags):
    expected = stored_values(output)
    names = shared_measures({measure for measure, _ in expected})
    measures = [arg for name in names for arg in ("-m", name)]
    result = cli(
        FIXTURES / qrels,
        FIXTURES / run,
        "-q",
        "--names",
        "trec",
        "--profile",
        "trec_eval10",
        "--quiet",
        *flags,
        *measures,
    )
    assert result.returncode == 0, result.stderr
    ours = {}
    for line in result.stdout.splitlines():
        measure, query, value = (field.strip() for field in line.split("\t"))
        ours[measure, query] = value
    wanted = {key: value for key, value in expected.items() if key[0] in names}
    assert len(wanted) >= len(SHARED_TODAY) * 4  # three queries and 'all' at least
    # trec_eval prints no per-query value for the geometric means (gm_map, gm_bpref)
    extra = set(ours) - set(wanted)
    assert all(m.startswith("gm_") and q != "all" for m, q in extra)
    assert {key: ours[key] for key in wanted if key in ours} == wanted


def test_the_run_with_text_after_the_tag_is_read_as_trec_eval_reads_it_and_noted():
    result = cli(FIXTURES / "qrels.test", FIXTURES / "results.trunc", "-c", "-m", "map")
    assert result.returncode == 0
    assert result.stdout == "AP\tall\t0.1016\n"
    assert result.stderr.splitlines()[0] == (
        "note: results.trunc: 5 lines have text after field 6 (first: line 1); as "
        "trec_eval does, only the first 6 fields (qid Q0 docid rank score tag) are read."
    )


def test_the_qrels_with_comment_lines_note_them_once():
    result = cli(FIXTURES / "qrels.test.with-comments", FIXTURES / "results.test", "-m", "map")
    assert result.returncode == 0 and result.stdout == "AP\tall\t0.1785\n"
    assert result.stderr == (
        "note: qrels.test.with-comments: 3 comment lines starting with '#' were skipped.\n"
    )


@pytest.mark.parametrize(
    "replacement, message",
    [
        (
            "301\tQ0\tFR940202-2-00150\t104",
            "results.test:7: A TREC run line needs 6 fields (qid Q0 docid rank score "
            "tag); this one has 4.",
        ),
        (
            "301\tQ0\tFR940202-2-00150\t104\t  2,129133\tSTANDARD",
            "results.test:7: column 'score': The score '2,129133' is not a number.",
        ),
    ],
)
def test_a_broken_line_in_trec_evals_run_exits_2_naming_the_line(tmp_path, replacement, message):
    lines = (FIXTURES / "results.test").read_text().splitlines()
    lines[6] = replacement
    (tmp_path / "results.test").write_text("\n".join(lines) + "\n")
    result = cli(FIXTURES / "qrels.test", tmp_path / "results.test", "-m", "map")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {message} Fix: Write one result per line: qid Q0 docid rank score tag.\n"
    )
