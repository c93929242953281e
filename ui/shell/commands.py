"""The command lines and code the pages show beside their numbers: ``python -m metrics``
commands, Python snippets of our API and of the peers whose profile matches (no layout)."""

from __future__ import annotations

import re
import shlex
from typing import Protocol

from metrics.cli.arguments import settings_arguments
from metrics.engine.profiles import Profile
from metrics.engine.settings import Settings
from metrics.review.compare import CompareOptions


class ReviewChoice(Protocol):
    """What a review's code needs of the review controls' choice
    (``ui.review.controls.ReviewChoice``)."""

    @property
    def baseline(self) -> str: ...
    @property
    def candidates(self) -> tuple[str, ...]: ...
    @property
    def family(self) -> str: ...
    @property
    def min_effect(self) -> tuple[tuple[str, float], ...]: ...
    @property
    def power(self) -> float: ...


#: Python snippets of the peers whose profile matches them: tool -> code with {qrels}, {run},
#: {model} and {metrics} (the tool's measure names, a Python list).
PEER_CODE = {
    "ranx": (
        "import pandas as pd\n"
        "from ranx import Qrels, Run, evaluate\n\n"
        "qrels = pd.read_csv({qrels!r}, dtype={{'query': object, 'item': object}})\n"
        "run = pd.read_csv({run!r}, dtype={{'query': object, 'item': object}})\n"
        "qrels['relevance'] = qrels['relevance'].astype(int)\n"
        "{filter}"
        "qrels = Qrels.from_df(qrels, q_id_col='query', doc_id_col='item', score_col='relevance')\n"
        "run = Run.from_df(run, q_id_col='query', doc_id_col='item', score_col='score')\n"
        "print(evaluate(qrels, run, {metrics}))\n"
    ),
    "pytrec_eval": (
        "import pandas as pd\n"
        "import pytrec_eval\n\n"
        "qrels = pd.read_csv({qrels!r}, dtype={{'query': str, 'item': str}})\n"
        "run = pd.read_csv({run!r}, dtype={{'query': str, 'item': str}})\n"
        "{filter}"
        "judged = {{q: dict(zip(g['item'], g['relevance'].astype(int))) "
        "for q, g in qrels.groupby('query')}}\n"
        "ranked = {{q: dict(zip(g['item'], g['score'].astype(float))) "
        "for q, g in run.groupby('query')}}\n"
        "evaluator = pytrec_eval.RelevanceEvaluator(judged, {metrics_set})\n"
        "print(evaluator.evaluate(ranked))\n"
    ),
    "lightgbm": (
        "import lightgbm as lgb\n"
        "import numpy as np\n"
        "import pandas as pd\n\n"
        "{rows}"
        "# the scores as given: the initial scores of a booster without trees\n"
        "data = lgb.Dataset(np.zeros((len(run), 1)), label=run['relevance'], group=sizes, "
        "init_score=run['score'], params={{'verbose': -1}})\n"
        "params = {{'objective': 'lambdarank', 'metric': 'ndcg', 'eval_at': {cutoffs}, "
        "'verbose': -1}}\n"
        "for _, name, value, _ in lgb.Booster(params, data).eval_train():\n"
        "    print(name, value)\n"
    ),
    "xgboost": (
        "import numpy as np\n"
        "import pandas as pd\n"
        "import xgboost as xgb\n\n"
        "{rows}"
        "metrics = {metrics}\n"
        "# pre@k takes binary labels: relevant (label >= 1) or not\n"
        "binary = (run['relevance'] >= 1).astype(int)\n"
        "for names, labels in (\n"
        "    ([m for m in metrics if not m.startswith('pre')], run['relevance']),\n"
        "    ([m for m in metrics if m.startswith('pre')], binary),\n"
        "):\n"
        "    if names:  # the scores as given: the base margin of a booster without trees\n"
        "        data = xgb.DMatrix(np.zeros((len(run), 1)), label=labels, "
        "base_margin=run['score'])\n"
        "        data.set_group(sizes)\n"
        "        params = {{'objective': 'rank:ndcg', 'eval_metric': names}}\n"
        "        print(xgb.train(params, data, num_boost_round=0).eval(data))\n"
    ),
}
PEER_CODE["xgboost_minus"] = PEER_CODE["xgboost"]

#: The rows the learning-to-rank libraries take: every ranked item of a judged query with its
#: label (0 when unjudged or negative), the rows of a query together in the run's order.
_LABELLED_ROWS = (
    "qrels = pd.read_csv({qrels!r}, dtype={{'query': str, 'item': str}})\n"
    "run = pd.read_csv({run!r}, dtype={{'query': str, 'item': str}})\n"
    "{filter}"
    "run = run[run['query'].isin(qrels['query'])]\n"
    "run = run.merge(qrels[['query', 'item', 'relevance']], on=['query', 'item'], how='left')\n"
    "run['relevance'] = run['relevance'].fillna(0).clip(lower=0).astype(int)\n"
    "run = run.iloc[np.argsort(pd.factorize(run['query'])[0], kind='stable')]\n"
    "sizes = run.groupby('query', sort=False).size().to_numpy()\n"
)


def peer_code(
    tool: Profile, files: tuple[str, str], model: str | None, measures: tuple[str, ...]
) -> str | None:
    """The tool's own call with the page's measures (``None`` when the tool has no snippet or
    lacks every measure)."""
    template = PEER_CODE.get(tool.key)
    names = [n for n in (tool.name_of(m) for m in measures) if n]
    if template is None or not names:
        return None
    keep = f"run = run[run['model'] == {model!r}]\n" if model else ""
    families = {_trec_family(n) for n in names}
    cutoffs = sorted({int(found[1]) for n in names if (found := re.search(r"@(\d+)", n))})
    fields = {"qrels": files[0], "run": files[1], "filter": keep}
    return template.format(
        **fields,
        rows=_LABELLED_ROWS.format(**fields),
        metrics=repr(names),
        metrics_set=repr(sorted(families)),
        cutoffs=repr(cutoffs),
    )


def _trec_family(name: str) -> str:
    """``P_10`` -> ``P.10`` (pytrec_eval asks for measure families with their cutoffs)."""
    for family in ("P", "recall", "success", "map_cut", "ndcg_cut"):
        if name.startswith(family + "_") and name[len(family) + 1 :].isdigit():
            return f"{family}.{name[len(family) + 1 :]}"
    return name


def changed_settings(settings: Settings) -> dict[str, object]:
    """The policies that differ from trec_eval's defaults (what a snippet must set). The label
    source is not one of them: the code's files (``qrels.csv``) already hold the chosen
    source's judgments."""
    default = Settings().to_dict()
    chosen = settings.with_(label_source=None).to_dict()
    return {k: v for k, v in chosen.items() if default.get(k) != v}


def settings_flags(settings: Settings, *, averaging: bool = True) -> tuple[list[str], list[str]]:
    """The command-line words of the policies that differ from trec_eval's defaults (the flags
    of :mod:`metrics.cli.arguments`), and the changed policies no flag carries (a weight column;
    the averaging when ``averaging`` is false: ``compare`` compares per-query values, which no
    averaging changes, so it is left out of both)."""
    changes = changed_settings(settings)
    if not averaging:
        changes.pop("averaging", None)
    return settings_arguments(changes, averaging=averaging)


def evaluate_command(settings: Settings, measures: tuple[str, ...]) -> str:
    """The ``python -m metrics`` command that prints the means of ``measures`` of every model
    under ``settings``, on the page's downloads (``qrels.csv``, ``run.csv``)."""
    words = ["python", "-m", "metrics", "qrels.csv", "run.csv"]
    for measure in measures:
        words += ["-m", measure]
    return shlex.join(words + settings_flags(settings)[0])


def evaluate_code(settings: Settings, measures: tuple[str, ...]) -> str:
    """A Python snippet of our API that prints the means of ``measures`` of every model (a row
    per model, a column per measure, as the Curves page's table)."""
    policies = changed_settings(settings)
    segments = (
        "segments = pd.read_csv('queries.csv', dtype={'query': str})\n"
        if settings.weight_column
        else "segments = None\n"
    )
    return (
        "import pandas as pd\n"
        "from metrics import Settings, evaluate, summarize\n\n"
        "run = pd.read_csv('run.csv', dtype={'query': str, 'item': str, 'model': str})\n"
        "qrels = pd.read_csv('qrels.csv', dtype={'query': str, 'item': str})\n"
        f"{segments}"
        f"evaluation = evaluate(run, qrels, {list(measures)!r}, Settings(**{policies!r}))\n"
        "means = summarize(evaluation, segments)\n"
        "table = means.pivot(index='model', columns='measure', values='value')\n"
        f"table = table.reindex(index=evaluation.models, columns={list(measures)!r})\n"
        "print(table.round(4).to_string())\n"
    )


def matching_profiles(settings: Settings) -> list[Profile]:
    """The tool profiles whose convention is exactly ``settings`` (a peer then prints the same
    numbers for the measures it has)."""
    from metrics.engine.profiles import PROFILES

    convention = settings.with_(label_source=None)  # the files hold the chosen judgments
    return [p for p in PROFILES.values() if p.settings() == convention]


def compare_command(
    settings: Settings,
    measures: tuple[str, ...],
    choice: ReviewChoice,
    options: CompareOptions,
    by: tuple[str, ...],
) -> str:
    """The ``python -m metrics compare`` command that prints the Compare page's table and
    headline under ``settings``, on the page's downloads (``qrels.csv``, ``run.csv``,
    ``queries.csv``)."""
    baseline, candidates, family = choice.baseline, choice.candidates, choice.family
    min_effect, power = choice.min_effect, choice.power
    words = ["python", "-m", "metrics", "compare", "qrels.csv", "run.csv"]
    for measure in measures:
        words += ["-m", measure]
    words += ["--baseline", baseline]
    for candidate in candidates:
        words += ["--candidate", candidate]
    tests = {"p_randomization": "randomization", "p_ttest": "ttest", "p_wilcoxon": "wilcoxon"}
    words += ["--resamples", str(options.resamples), "--seed", str(options.seed)]
    words += ["--correction", options.correction, "--family", family, "--test", tests[options.test]]
    words += ["--alpha", f"{options.alpha:g}", "--confidence", f"{options.confidence:g}"]
    words += ["--missing", options.policy]
    words += ["--power", f"{power:g}"]
    for name, value in min_effect:
        words += ["--min-effect", f"{name}={value:g}"]
    if by:
        words += ["--queries", "queries.csv"]
        for column in by:
            words += ["--by", column]
    return shlex.join(words + settings_flags(settings, averaging=False)[0])


def compare_code(
    settings: Settings,
    measures: tuple[str, ...],
    choice: ReviewChoice,
    options: CompareOptions,
    by: tuple[str, ...],
    *,
    segments_only: bool = False,
) -> str:
    """A Python snippet of our API that prints the Compare page's headline and table (with
    ``segments_only``, the Segments page's rows: each segment's Δ and corrected p)."""
    baseline, candidates, family = choice.baseline, choice.candidates, choice.family
    min_effect, power = choice.min_effect, choice.power
    policies = changed_settings(settings)
    segments = "segments = pd.read_csv('queries.csv', dtype=str)\n" if by else "segments = None\n"
    ending = (
        (
            "from metrics.review.verdict import ReviewRequest, review_table, segment_rows\n\n",
            _SEGMENT_PRINT,
        )
        if segments_only
        else (
            "from metrics.review.headline import verdict_sentences\n"
            "from metrics.review.verdict import ReviewRequest, review_table\n\n",
            _HEADLINE_PRINT,
        )
    )
    return (
        "import pandas as pd\n"
        "from metrics import Settings, evaluate\n"
        "from metrics.review.compare import CompareOptions\n"
        f"{ending[0]}"
        "run = pd.read_csv('run.csv', dtype={'query': str, 'item': str, 'model': str})\n"
        "qrels = pd.read_csv('qrels.csv', dtype={'query': str, 'item': str})\n"
        f"{segments}"
        f"evaluation = evaluate(run, qrels, {list(measures)!r}, Settings(**{policies!r}))\n"
        f"options = CompareOptions({options.policy!r}, {options.resamples}, {options.seed}, "
        f"{options.confidence!r}, {options.correction!r}, {options.test!r}, {options.alpha!r})\n"
        f"request = ReviewRequest({baseline!r}, {tuple(candidates)!r}, {tuple(measures)!r}, "
        f"{tuple(by)!r}, options, {family!r}, {tuple(min_effect)!r}, {power!r})\n"
        "table = review_table(evaluation, request, segments)\n"
        f"{ending[1]}"
    )


#: The end of :func:`compare_code`: the headline and the overall rows (Compare).
_HEADLINE_PRINT = (
    "for lines in verdict_sentences(table).values():\n"
    "    print(*lines, sep='\\n')\n"
    "print(table[['candidate', 'measure', 'segment', 'delta', 'p_adjusted', 'verdict']])\n"
)

#: The end of :func:`compare_code`: the rows of every segment (Segments).
_SEGMENT_PRINT = (
    "rows = segment_rows(table)[['candidate', 'measure', 'segment', 'delta', 'p_adjusted']]\n"
    "print(rows.round(4).to_string(index=False))\n"
)
