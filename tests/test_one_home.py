"""Each rule has one home: the relevance predicate and the spelling of a measure at a cutoff
are written once (``metrics.engine.relevance``, ``metrics.engine.registry.at_cutoff``) and
every other module asks them. These tests read the sources, so a second copy of a rule fails
here before it can drift from the first."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metrics.engine import relevance
from metrics.engine.registry import at_cutoff, cutoff_name, parse_measure

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    p for folder in ("metrics", "ui", "pages") for p in (ROOT / folder).rglob("*.py")
) + [ROOT / "app.py"]

#: ``label >= level`` written out, in any of the spellings it had before it had a home.
RELEVANCE_RULE = re.compile(r">=\s*(?:self\.)?(?:settings\.)?(?:relevance_)?level\b")
#: A measure name glued to a cutoff by hand: ``f"{measure}@{k}"``.
CUTOFF_SPELLING = re.compile(r"""f["'][^"'\n]*\{[^}]+\}@\{[^}]+\}""")


def offenders(pattern: re.Pattern[str], home: Path) -> list[str]:
    found = []
    for path in SOURCES:
        if path == home:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_the_relevance_predicate_is_written_only_in_its_home():
    assert offenders(RELEVANCE_RULE, ROOT / "metrics/engine/relevance.py") == []


def test_a_measure_at_a_cutoff_is_spelled_only_in_the_registry():
    assert offenders(CUTOFF_SPELLING, ROOT / "metrics/engine/registry.py") == []


def test_the_guards_see_the_rules_they_guard(tmp_path):
    """The patterns match the copies they were written against (else they could not fail)."""
    assert RELEVANCE_RULE.search("relevant = (labels >= settings.relevance_level) & (x >= 0)")
    assert RELEVANCE_RULE.search("hits = sum(1 for x in top if x == x and x >= level)")
    assert RELEVANCE_RULE.search("(self.labels >= self.settings.relevance_level)")
    assert not RELEVANCE_RULE.search("keep = position >= levels_seen")
    assert CUTOFF_SPELLING.search('name = f"{measure}@{k}"')
    assert CUTOFF_SPELLING.search("st.code(f'{m}@{k} — ')")
    assert not CUTOFF_SPELLING.search('text = f"{name}@10 and more"')


@pytest.mark.parametrize("level", [-1.0, 0.0, 1.0, 2.0])
def test_relevant_means_at_or_above_the_level_and_never_negative(level):
    labels = np.array([np.nan, -2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
    expected = np.array([l == l and l >= level and l >= 0 for l in labels])
    assert relevance.relevant(labels, level).tolist() == expected.tolist()
    assert relevance.relevant(pd.Series(labels), level).tolist() == expected.tolist()
    assert [relevance.is_relevant(float(l), level) for l in labels] == expected.tolist()
    judged = relevance.judged(labels)
    assert judged.tolist() == [False, False, False, True, True, True, True, True]
    nonrel = relevance.judged_nonrelevant(labels, level)
    assert nonrel.tolist() == (judged & ~expected).tolist()


def test_a_negative_label_is_not_relevant_even_at_a_level_below_it():
    """trec_eval: a negative label marks an item as in the pool but unjudged."""
    assert not relevance.is_relevant(-1.0, -5.0)
    assert relevance.is_relevant(0.0, -5.0)


@pytest.mark.parametrize(
    ("measure", "k", "name"),
    [("nDCG", 10, "nDCG@10"), ("ndcg_cut", 5, "nDCG@5"), ("P", 3, "P@3"), ("RBP(p=0.8)", 4, None)],
)
def test_cutoff_names_are_the_registry_names(measure, k, name):
    spelled = cutoff_name(measure, k)
    assert spelled == parse_measure(measure, k=k).name
    if name is not None:
        assert spelled == name
    assert at_cutoff("P", 10) == "P@10"


#: A comparison-row column list written out by hand: ``"mean_a",`` then ``"mean_b",``.
ROW_LIST = re.compile(r'"mean_a",\s*\n\s*"mean_b",')


def test_the_comparison_row_is_listed_only_in_its_home():
    home = ROOT / "metrics/review/rows.py"
    found = [
        str(path.relative_to(ROOT))
        for path in SOURCES
        if path != home and ROW_LIST.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
    assert ROW_LIST.search(home.read_text(encoding="utf-8"))  # the guard sees a list


def test_the_views_are_columns_of_the_row():
    from metrics.review import compare, rows, verdict

    assert set(rows.SUMMARY_VIEW) <= set(rows.COLUMNS)
    # the test table is the test part of a row, with its two older names
    assert set(rows.TEST_COLUMNS) - set(rows.COLUMNS) == {"baseline", "direction"}
    assert verdict.COLUMNS is rows.COLUMNS and compare.COLUMNS is rows.TEST_COLUMNS
    table = pd.DataFrame(columns=["segment_x", *rows.COLUMNS])
    shown = rows.view(table, rows.SUMMARY_VIEW, ["segment_x"])
    assert list(shown.columns[:3]) == ["candidate", "segment_x", "measure"]


#: Spellings only a list of column synonyms holds (``metrics/io/names.py``).
SYNONYM = re.compile(r'"(?:qid|docid|docno|query_id|item_id|session_id|request_id)"')


def test_column_synonyms_are_listed_only_in_their_home():
    home = ROOT / "metrics/io/names.py"
    assert offenders(SYNONYM, home) == []
    assert SYNONYM.search(home.read_text(encoding="utf-8"))  # the guard sees the list


#: Rules with one home each: (what the rule is, its home, a copy written out by hand, a copy
#: that the pattern must see and a line it must let pass).
RULES = {
    "a name@k read back (registry.split_cutoff, cutoff_of)": (
        "metrics/engine/registry.py",
        re.compile(
            r"""(?:partition|split|rsplit|index|find)\(\s*["']@["']|["']@["']\s+(?:not\s+)?in\b"""
        ),
        ['base, _, cut = name.partition("@")', 'if "@" in m and m.rsplit("@", 1)[1].isdigit()'],
        'FORMULA_PREFIXES = ("=", "+", "-", "@", "\\t")',
    ),
    "a run without a score column is ranked by its ranks (evaluation.run_settings)": (
        "metrics/engine/evaluation.py",
        re.compile(r"""SCORE\s+not\s+in\b.*\bties\b|with_\(ties=["']rank["']\)"""),
        [
            'if S.SCORE not in prepared.columns and settings.ties != "rank":',
            'settings = settings.with_(ties="rank")',
        ],
        'lists = rank_run(dataset.run, dataset.qrels, Settings(ties="rank"))',
    ),
    "the significance level's default (review.compare.DEFAULT_ALPHA)": (
        "metrics/review/compare.py",
        re.compile(r"(?i)alpha\b[^#\n]*?[=,]\s*0\.05\b"),
        [
            'parser.add_argument("--alpha", type=float, default=0.05, help="level")',
            "(keys.W_REVIEW_ALPHA, 0.05),",
        ],
        'raise SettingsError(f"--alpha must be between 0 and 1 (e.g. 0.05), got {a:g}.")',
    ),
    "K when no measure has a cutoff (registry.deepest_cutoff)": (
        "metrics/engine/registry.py",
        re.compile(r"default\s*=\s*10\b"),
        ["k_max = max([s.k for s in specs if s.k is not None], default=10)"],
        "k = max(ks, default=DEFAULT_REVIEW_K)",
    ),
    "at most two segment columns (review.compare.MAX_SEGMENT_COLUMNS)": (
        "metrics/review/compare.py",
        re.compile(
            r"max_selections\s*=\s*2\b|len\(\s*(?:self\.)?by\s*\)\s*>\s*2\b"
            r"|(?:wanted|SEG_BY\]|by)\s*\[:2\]|SEG_BY\].*\]\[:2\]"
        ),
        [
            'by = c1.multiselect(t("by"), columns, key=keys.W_SEG_BY, max_selections=2)',
            "if len(self.by) > 2:",
            "state[keys.W_SEG_BY] = wanted[:2] or columns[:1]",
            "chosen = [c for c in state[keys.W_SEG_BY] if c in columns][:2]",
        ],
        'if head[:2] == b"\\x1f\\x8b" and size >= 4:',
    ),
}


@pytest.mark.parametrize("rule", list(RULES))
def test_each_rule_is_written_only_in_its_home(rule):
    home, pattern, _, _ = RULES[rule]
    assert offenders(pattern, ROOT / home) == []


@pytest.mark.parametrize("rule", list(RULES))
def test_the_rule_guards_see_the_copies_they_were_written_against(rule):
    _, pattern, copies, other = RULES[rule]
    assert all(pattern.search(copy) for copy in copies), copies
    assert not pattern.search(other)


@pytest.mark.parametrize(
    "name, parts, k",
    [
        ("nDCG@10", ("nDCG", "10"), 10),
        ("RR", ("RR", ""), None),
        ("IPrec@0.3", ("IPrec", "0.3"), None),
    ],
)
def test_a_name_at_a_cutoff_reads_back_into_its_parts(name, parts, k):
    from metrics.engine.registry import cutoff_of, split_cutoff

    assert split_cutoff(name) == parts and cutoff_of(name) == k
    spec = parse_measure(name)
    assert split_cutoff(spec.name)[0] == spec.definition.name and cutoff_of(spec.name) == spec.k


def test_a_run_without_scores_is_ranked_by_its_ranks_whatever_the_tie_policy():
    from metrics import schema as S
    from metrics.engine.evaluation import run_settings
    from metrics.engine.settings import Settings

    chosen = Settings(ties="input_order")
    assert run_settings(chosen, [S.QUERY, S.ITEM, S.RANK]).ties == "rank"
    assert run_settings(chosen, [S.QUERY, S.ITEM, S.SCORE]) == chosen
