"""The ``>>>`` examples of the engine's docstrings run, and give what they say."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WITH_EXAMPLES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for path in (ROOT / "metrics").rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


def test_the_engine_has_examples_to_run():
    assert len(WITH_EXAMPLES) >= 10


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_examples_of_the_module_run(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False)
    assert result.attempted > 0 and result.failed == 0, name
