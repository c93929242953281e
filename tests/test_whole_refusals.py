"""Options that have their inputs read whole (``--label-source`` and ``--label-column``,
``compare --against``, runs the whole reading alone tells apart) refuse tables past the limit
on tables read whole before anything is read, naming the size, the option and the fix, on
``python -m metrics``, ``python -m metrics compare`` and :func:`metrics.evaluate_files` alike;
within the limit they are read whole as before. (``--label-map`` and ``--by`` with the
segments in the runs are read in blocks: tests/test_compare_blocks.py.)"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from metrics.cli import blocks, compare, evaluate, files
from metrics.errors import InputError

LIMIT = "RANKING_METRICS_WHOLE_MB"


def _never(*args: object, **kwargs: object) -> None:
    raise AssertionError("the inputs were read whole")


@pytest.fixture
def tables(tmp_path: Path) -> dict[str, Path]:
    """Judgments with label words and two label columns, two runs with a segment column."""
    out = {
        "qrels": "query,item,label,label_b\n1,a,relevant,1\n1,b,irrelevant,0\n"
        "2,a,relevant,1\n2,c,relevant,0\n",
        "base": "query,item,score,device\n1,a,3,phone\n1,b,2,phone\n2,a,1,desk\n2,c,2,desk\n",
        "cand": "query,item,score,device\n1,a,1,phone\n1,b,2,phone\n2,a,2,desk\n2,c,1,desk\n",
    }
    paths = {}
    for name, text in out.items():
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text(text)
    return paths


def _size(*paths: Path) -> str:
    total = sum(p.stat().st_size for p in paths)
    assert total < 1024  # printed in bytes
    return f"{total} bytes"


def _refused(message: str, size: str, kept: blocks.KeptWhole) -> None:
    assert message.startswith("error: qrels.csv, base.csv, cand.csv: "), message
    assert f"{size} of table text cannot be read block by block ({kept.reason})" in message
    assert f"Fix: {kept.fix}; or split them; or allow more with the environment variable " in (
        message
    )
    assert LIMIT in message and message.count("\n") == 1


def test_evaluate_refuses_label_sources_past_the_limit(tables, monkeypatch):
    options = ["--label-column", "label", "--label-column", "label_b"]
    for reader in ("load_inputs", "load_sourced_inputs", "_in_blocks"):
        monkeypatch.setattr(evaluate, reader, _never)
    monkeypatch.setenv(LIMIT, "0")
    paths = [tables["qrels"], tables["base"], tables["cand"]]
    out, err = io.StringIO(), io.StringIO()
    assert evaluate.main([*map(str, paths), "-m", "P@1", *options], out, err) == 2
    _refused(err.getvalue(), _size(*paths), blocks.LABEL_SOURCES_WHOLE)
    assert out.getvalue() == ""


COMPARE_CASES = {
    "label source": (
        ["--label-column", "label", "--label-column", "label_b"],
        blocks.LABEL_SOURCES_WHOLE,
    ),
    "against": (["--against", "accepted", "--project", "p"], blocks.AGAINST_WHOLE),
}


@pytest.mark.parametrize("case", COMPARE_CASES)
def test_compare_refuses_what_an_option_reads_whole_past_the_limit(tables, case, monkeypatch):
    options, kept = COMPARE_CASES[case]
    for reader in ("_read_whole", "against_table", "chosen_judgments", "load_table"):
        monkeypatch.setattr(compare, reader, _never)
    monkeypatch.setattr(files, "in_blocks", _never)
    monkeypatch.setenv(LIMIT, "0")
    paths = [tables["qrels"], tables["base"], tables["cand"]]
    out, err = io.StringIO(), io.StringIO()
    status = compare.main([*map(str, paths), "--resamples", "100", *options], out=out, err=err)
    assert status == 2
    _refused(err.getvalue(), _size(*paths), kept)
    assert out.getvalue() == ""


def test_within_the_limit_the_options_read_whole_as_before(tables, monkeypatch):
    monkeypatch.setenv(LIMIT, "16")
    paths = [str(tables["qrels"]), str(tables["base"]), str(tables["cand"])]
    out, err = io.StringIO(), io.StringIO()
    options = COMPARE_CASES["label source"][0]
    status = compare.main([*paths, "--resamples", "100", *options], out=out, err=err)
    assert status == 0, err.getvalue()
    assert "\tnDCG@10\t" in out.getvalue()


def test_a_missing_file_is_named_before_the_size_is_taken(tables, monkeypatch):
    monkeypatch.setenv(LIMIT, "0")
    missing = str(tables["qrels"].with_name("gone.csv"))
    out, err = io.StringIO(), io.StringIO()
    args = [missing, str(tables["base"]), "--label-column", "label"]
    assert evaluate.main(args, out, err) == 2
    assert err.getvalue().startswith("error: gone.csv: "), err.getvalue()


def test_evaluate_files_refuses_runs_only_the_whole_reading_tells_apart(tmp_path, monkeypatch):
    """A TREC run tagged ``x`` and a table ``x.csv``: one model name, two runs; the whole
    reading tells them apart by their files, and the files are past the limit."""
    qrels, trec_run, table = tmp_path / "qrels.txt", tmp_path / "x.txt", tmp_path / "x.csv"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    trec_run.write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n")
    table.write_text("query,item,score\n1,a,1\n1,b,2\n")
    monkeypatch.setattr(files, "load_dataset", _never)
    monkeypatch.setenv(LIMIT, "0")
    with pytest.raises(InputError) as refused:
        files.evaluate_files(qrels, [trec_run, table], ["P@1"])
    assert refused.value.code == "table_too_large_whole"
    # the whole reading here takes the TREC files as tables too: they are counted
    assert refused.value.reason.startswith(f"{_size(qrels, trec_run, table)} of table text")
    assert blocks.MODEL_NAMES_WHOLE.reason in refused.value.reason
    assert refused.value.source == "qrels.txt, x.txt, x.csv"
    monkeypatch.undo()
    monkeypatch.setenv(LIMIT, "16")  # within the limit: read whole, both models
    found = files.evaluate_files(qrels, [trec_run, table], ["P@1"]).per_query
    assert found["model"].tolist() == ["x.txt", "x.csv"]


def test_trec_files_read_whole_are_not_refused(tmp_path, monkeypatch):
    """TREC files read whole hold about three times their text: an option that reads them
    whole is not refused at any limit."""
    qrels, run_a, run_b = tmp_path / "q.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    run_a.write_text("1 Q0 a 1 2 a\n1 Q0 b 2 1 a\n2 Q0 a 1 1 a\n")
    run_b.write_text("1 Q0 b 1 2 b\n1 Q0 a 2 1 b\n2 Q0 a 1 1 b\n")
    monkeypatch.setenv(LIMIT, "0")
    out, err = io.StringIO(), io.StringIO()
    args = [str(qrels), str(run_a), str(run_b), "--label-map", "relevant=1", "-m", "P@1"]
    assert evaluate.main(args, out, err) == 0, err.getvalue()


def _trec_files(folder: Path, packed: bool = False) -> list[Path]:
    import gzip

    qrels, base, cand = folder / "q.txt", folder / "base.txt", folder / "cand.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n2 0 c 0\n")
    base.write_text("1 Q0 a 1 2 base\n1 Q0 b 2 1 base\n2 Q0 a 1 2 base\n2 Q0 c 2 1 base\n")
    cand.write_text("1 Q0 b 1 2 cand\n1 Q0 a 2 1 cand\n2 Q0 c 1 2 cand\n2 Q0 a 2 1 cand\n")
    if not packed:
        return [qrels, base, cand]
    zipped = folder / "cand.txt.gz"
    zipped.write_bytes(gzip.compress(cand.read_bytes()))
    return [qrels, base, zipped]


def test_compare_counts_trec_files_it_reads_as_tables(tmp_path, monkeypatch):
    """Compare's whole reading takes TREC files as tables (several times their text): past
    the limit, a TREC run the chunked reader does not read (gzip) is refused with the TREC
    files counted, and ``--against`` counts them too; plain TREC files are read in blocks."""
    for reader in ("_read_whole", "against_table", "load_table"):
        monkeypatch.setattr(compare, reader, _never)
    monkeypatch.setenv(LIMIT, "0")
    for packed, options in ((True, []), (False, ["--against", "accepted", "--project", "p"])):
        paths = _trec_files(tmp_path, packed)
        out, err = io.StringIO(), io.StringIO()
        args = [*map(str, paths), "--resamples", "100", "-m", "P@1", *options]
        assert compare.main(args, out=out, err=err) == 2
        message = err.getvalue()
        size = sum(p.stat().st_size for p in _trec_files(tmp_path))  # gzip: its text
        assert f"{size} bytes of table text cannot be read block by block" in message, message
        assert message.startswith("error: q.txt, base.txt, cand.txt"), message
        if packed:  # named as what it is, with the fix for TREC files
            assert "(a TREC file other than plain text: compressed, or with comment" in message
            assert "Fix: Give the TREC files uncompressed, one record per line" in message
    out, err = io.StringIO(), io.StringIO()
    paths = _trec_files(tmp_path)
    args = [*map(str, paths), "--resamples", "100", "-m", "P@1"]
    assert compare.main(args, out=out, err=err) == 0, err.getvalue()
    assert "\tP@1\t" in out.getvalue()
