"""Agreement tests cannot pass silently: without pytrec_eval or ranx they fail under CI."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.oracles import ORACLES, require_oracle

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize("module", sorted(ORACLES))
def test_a_missing_oracle_fails_when_ci_is_set(monkeypatch, module):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setitem(sys.modules, module, None)  # any import of it raises ImportError
    with pytest.raises(pytest.fail.Exception) as caught:
        require_oracle(module)
    assert str(caught.value) == (
        f"the oracle {module} is not installed (pip install {ORACLES[module]}). "
        "CI is set, so this is a failure, not a skip."
    )


def test_a_missing_oracle_is_a_skip_on_a_developer_machine(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setitem(sys.modules, "pytrec_eval", None)
    with pytest.raises(pytest.skip.Exception) as caught:
        require_oracle("pytrec_eval")
    assert str(caught.value) == (
        "the oracle pytrec_eval is not installed (pip install pytrec-eval-terrier)."
    )


def test_an_installed_oracle_is_returned(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require_oracle("pytrec_eval").__name__ == "pytrec_eval"


def test_no_test_imports_an_oracle_in_a_way_that_skips_under_ci():
    names = "|".join(ORACLES)
    pattern = re.compile(rf"importorskip\(\s*[\"'](?:{names})[\"']")
    offenders = [
        path.name
        for path in TESTS.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_agreement_tests_import_their_oracles_through_require_oracle():
    users = {
        path.name
        for path in TESTS.glob("test_*.py")
        if "require_oracle(" in path.read_text(encoding="utf-8")
        and path.name != Path(__file__).name
    }
    assert {"test_against_trec_eval.py", "test_against_ranx.py", "test_cli.py"} <= users
