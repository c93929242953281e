"""``python -m metrics save``, ``history`` and ``compare --against``: versions kept in the store,
on SQLite and on PostgreSQL."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

from metrics.cli import compare
from metrics.cli.main import main
from metrics.store import HISTORY_COLUMNS, StoreConfig, history, open_store
from tests.store_support import backend_fixture

url = backend_fixture()
TREC = Path(__file__).resolve().parent.parent / "sample_data" / "web_search" / "trec"
QRELS = str(TREC / "web_search.qrels")
LEXICAL, DENSE, HYBRID = (str(TREC / f"{m}.run") for m in ("lexical", "dense", "hybrid"))
#: Five versions of the sample: (version, run, date), v3 accepted.
VERSIONS = (
    ("v1", LEXICAL, "2025-01-06"),
    ("v2", DENSE, "2025-01-13"),
    ("v3", HYBRID, "2025-01-20"),
    ("v4", DENSE, "2025-01-27"),
    ("v5", LEXICAL, "2025-02-03"),
)


@pytest.fixture
def home(tmp_path, url, monkeypatch) -> Path:
    """The store of the commands: a data folder, and the PostgreSQL URL when there is one."""
    home = tmp_path / "home"
    monkeypatch.setenv("RANKING_METRICS_HOME", str(home))
    if url is None:
        monkeypatch.delenv("RANKING_METRICS_DB", raising=False)
    else:
        monkeypatch.setenv("RANKING_METRICS_DB", url)
    return home


def run(*args: str) -> tuple[int, str, str]:
    """A command's exit status, output and messages (``compare`` through its own entry point,
    which takes the streams)."""
    out, err = io.StringIO(), io.StringIO()
    if args[0] == "compare":
        code = compare.main(list(args[1:]), out=out, err=err)
    else:
        code = main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def save_five() -> None:
    for version, path, date in VERSIONS:
        flags = ["--accept"] if version == "v3" else []
        code, out, err = run(
            "save", path, "--qrels", QRELS, "--project", "web", "--version", version,
            "--date", date, "--quiet", *flags,
        )  # fmt: skip
        assert code == 0, err
        assert out.startswith(f"saved version '{version}' of project 'web': 1 model")


def test_history_shows_the_five_saved_versions_with_the_numbers_of_the_history_table(home, url):
    save_five()
    code, out, err = run("history", "web", "--format", "json", "-m", "nDCG@10", "-m", "P@10")
    assert code == 0, err
    document = json.loads(out)
    assert document["accepted"] == "v3" and document["measures"] == ["nDCG@10", "P@10"]
    with open_store(StoreConfig(home, url)) as store:
        table = history(store, "web", ["nDCG@10", "P@10"])
    expected = [
        {c: (None if isinstance(v, float) and math.isnan(v) else v) for c, v in row.items()}
        for row in table.to_dict("records")
    ]
    assert document["history"] == expected
    code, out, _ = run("history", "web")
    lines = [line.split("\t") for line in out.strip().split("\n")]
    assert lines[0] == list(HISTORY_COLUMNS)
    rows = [dict(zip(lines[0], line)) for line in lines[1:]]
    assert [r["version"] for r in rows] == ["v1", "v2", "v3", "v4", "v5"]
    assert [r["accepted"] for r in rows] == ["false", "false", "true", "false", "false"]
    assert rows[0]["saved"] == "2025-01-06T00:00:00Z" and rows[2]["model"] == "hybrid"
    lead = table[table["measure"] == "nDCG@10"]
    for row, mean, low, high in zip(rows, lead["mean"], lead["ci_low"], lead["ci_high"]):
        assert float(row["mean"]) == pytest.approx(mean, rel=1e-5)
        assert float(row["ci_low"]) < float(row["mean"]) < float(row["ci_high"])
        assert (float(row["ci_low"]), float(row["ci_high"])) == pytest.approx((low, high), rel=1e-5)
    assert rows[0]["mean"] == rows[4]["mean"] and rows[1]["mean"] == rows[3]["mean"]


def test_compare_against_the_accepted_version_is_a_gate_for_ci(home):
    for version, path, accept in (("v1", LEXICAL, []), ("v2", HYBRID, ["--accept"])):
        code, _, err = run(
            "save", path, "--qrels", QRELS, "--project", "web", "--version", version, "--quiet",
            *accept,
        )  # fmt: skip
        assert code == 0, err
    gate = ("-m", "nDCG@10", "--resamples", "500", "--fail-if-worse", "nDCG@10", "--quiet")
    code, out, err = run(
        "compare", "--against", "accepted", "--project", "web", QRELS, DENSE, *gate
    )
    assert code == 1 and "worse: dense on nDCG@10" in err
    assert out.split("\n")[1].split("\t")[1:3] == ["v2", "dense"]  # reference, candidate
    code, out, err = run(
        "compare", "--against", "v1", "--project", "web", QRELS, DENSE, *gate, "--format", "json"
    )
    document = json.loads(out)
    assert code == 0, err
    assert document["baseline"] == "v1" and document["models"] == ["v1", "dense"]
    assert (
        document["against"]["version"] == "v1" and len(document["against"]["judgments_hash"]) == 64
    )
    assert [c["verdict"] for c in document["comparisons"]] == ["better"]


def test_compare_against_a_version_of_other_judgments_is_refused(home, tmp_path):
    code, _, err = run("save", LEXICAL, "--qrels", QRELS, "--project", "web", "--version", "v1")
    assert code == 0, err
    other = tmp_path / "other.qrels"
    other.write_text("".join(Path(QRELS).read_text().splitlines(keepends=True)[1:]))
    code, out, err = run("compare", "--against", "v1", "--project", "web", str(other), DENSE)
    assert code == 2 and out == ""
    assert err.startswith("error: version 'v1' of project 'web' and other.qrels were scored")
    assert "different judgments" in err and "Fix:" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("compare", "--against", "accepted", QRELS, DENSE), "--against and --project go together"),
        (
            ("compare", "--project", "web", QRELS, DENSE, DENSE),
            "--against and --project go together",
        ),
        (("compare", "--against", "accepted", "--project", "web", QRELS, DENSE), "no accepted"),
        (("compare", "--against", "v9", "--project", "web", QRELS, DENSE), "has no version 'v9'"),
        (("compare", "--against", "v1", "--project", "nope", QRELS, DENSE), "no project 'nope'"),
        (("history", "nope"), "The store has no project 'nope' (projects: web)"),
        (("history", "web", "-m", "nDCG@x"), "nDCG@x"),
        (("save", "--project", "web", "--version", "v2"), "give the RUN files to save"),
        (("save", LEXICAL, "--qrels", QRELS, "--project", "web", "--version", "v1"), "already"),
        (("save", LEXICAL, "--qrels", QRELS, "--project", "web", "--version", "accepted"), "last"),
    ],
)
def test_refusals_are_one_error_line_with_exit_status_2(home, args, message):
    code, _, err = run("save", LEXICAL, "--qrels", QRELS, "--project", "web", "--version", "v1")
    assert code == 0, err
    code, out, err = run(*args)
    lines = err.strip().split("\n")
    assert code == 2 and out == "" and message in lines[-1] and lines[-1].startswith("error: ")


def test_save_accept_alone_marks_a_saved_version(home):
    for version in ("v1", "v2"):
        assert (
            run("save", LEXICAL, "--qrels", QRELS, "--project", "p", "--version", version)[0] == 0
        )
    code, out, _ = run("save", "--project", "p", "--version", "v1", "--accept")
    assert code == 0 and out == "accepted version 'v1' of project 'p'\n"
    code, out, _ = run("history", "p", "--resamples", "100")
    assert [line.split("\t")[4] for line in out.strip().split("\n")[1:]] == ["true", "false"]


def test_a_date_that_is_not_one_is_a_usage_error(home):
    code, _, err = run(
        "save", LEXICAL, "--qrels", QRELS, "--project", "p", "--version", "v1", "--date", "soon"
    )
    assert code == 2 and "'soon' is not a date" in err
