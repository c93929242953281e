"""The CI job runs the lint and type gates first, then the README's test command."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")
README = (REPO / "README.md").read_text(encoding="utf-8")


def _commands() -> list[str]:
    return [line.strip() for line in CI.splitlines() if line.strip().startswith("python -m ")]


def test_ci_runs_ruff_and_mypy_before_the_tests():
    commands = _commands()
    gates = ["python -m ruff check .", "python -m ruff format --check .", "python -m mypy"]
    assert all(gate in commands for gate in gates)
    tests = commands.index("python -m pytest -n 2")
    assert all(commands.index(gate) < tests for gate in gates)


def test_ci_runs_the_test_command_of_the_readme_last():
    assert _commands()[-1] == "python -m pytest -n 2"
    assert "pip install -r requirements-dev.txt && python -m pytest -n 2" in README


def test_the_readme_documents_the_everyday_command_without_slow_and_browser_tests():
    assert 'python -m pytest -m "not slow and not browser" -n 2' in README
