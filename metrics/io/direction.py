"""Which way a run's scores go: higher is better (similarities, probabilities, logits) or lower
(distances, costs, losses), guessed from the score column's name and from a rank column beside
it.

Nothing here changes a ranking: the guesses are proposals (the Data page asks the user to
confirm them) and findings (:mod:`metrics.io.findings`); the order itself is the
``score_order`` policy of :class:`~metrics.engine.settings.Settings`.

Only numpy is imported at module level, so the command line reads TREC files without pandas.

Rank agreement, the same rule everywhere (here, in the validation and on Spark): each list (a
model's rows for one query) is ordered by rank, then by score; every step to a strictly larger
rank goes up (a larger score), down (a smaller one) or neither. A list *ascends* when more of its
steps go up than down, *descends* when more go down; rows without a finite score or rank are
left out. When at least :data:`MOST_LISTS` of the lists that go one way or the other go the
same way, that way is the order the ranks agree with.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from metrics.engine.settings import ScoreOrder, Settings

if TYPE_CHECKING:
    import pandas as pd

#: Words of a score column's name (whole words of the normalised name) that say lower is better.
LOWER_IS_BETTER_WORDS: frozenset[str] = frozenset(
    {
        "distance",
        "distances",
        "dist",
        "cosine_distance",
        "cos_dist",
        "l1",
        "l2",
        "euclidean",
        "manhattan",
        "hamming",
        "levenshtein",
        "cost",
        "costs",
        "loss",
        "losses",
        "error",
        "err",
        "penalty",
        "regret",
        "divergence",
    }
)
#: Words written without spaces (Chinese, Japanese) that say lower is better anywhere in a name.
LOWER_IS_BETTER_CJK: tuple[str, ...] = (
    "距离",
    "距離",
    "成本",
    "代价",
    "コスト",
    "损失",
    "損失",
    "ロス",
    "误差",
    "誤差",
    "エラー",
)
#: Words that turn a distance into a similarity (``neg_distance``, ``1-distance`` stays lower).
_NEGATION_WORDS = frozenset({"neg", "negative", "negated", "minus", "inv", "inverse", "inverted"})

#: Share of the lists with a direction that must go one way for the ranks to decide it.
MOST_LISTS = 0.75

#: English texts (the app's catalogs have ``finding.message.score_order_vs_rank.<order>``):
#: scores that go against the order in force in most lists, by the order the ranks agree with.
RANK_TEXTS: dict[str, tuple[str, str]] = {
    "ascending": (
        "Scores of model '{model}' ascend with rank in its only list with distinct ranks: "
        "lower is better? As set, {rule}.",
        "Scores of model '{model}' ascend with rank in {share} of its lists ({agree} of {n}): "
        "lower is better? As set, {rule}.",
    ),
    "descending": (
        "Scores of model '{model}' descend with rank in its only list with distinct ranks: "
        "higher is better? As set, {rule}.",
        "Scores of model '{model}' descend with rank in {share} of its lists ({agree} of {n}): "
        "higher is better? As set, {rule}.",
    ),
}
#: What each score order does, as findings say it (``finding.rule.score_order.<order>``).
ORDER_RULES: dict[str, str] = {
    "descending": "the highest score ranks first",
    "ascending": "the lowest score ranks first",
}
#: A score column named like a distance while the highest score ranks first.
NAME_TEXT = (
    "Column '{column}' sounds like a score where lower is better (a distance, cost or loss), "
    "but {rule}."
)


def lower_is_better_name(name: object) -> bool:
    """Whether a column name says that lower scores are better (``distance``, ``l2_dist``,
    ``cosine_distance``, ``cost``, ``loss``, ``距离``, ``コスト``, ...); ``neg_distance`` does not.
    """
    text = re.sub(r"[\s\-.]+", "_", str(name).strip().lower())
    if any(word in text for word in LOWER_IS_BETTER_CJK):
        return True
    words = set(re.split(r"[^0-9a-z]+", text)) - {""}
    if words & _NEGATION_WORDS or text.startswith(("1_", "one_minus")):
        return False
    return text in LOWER_IS_BETTER_WORDS or bool(words & LOWER_IS_BETTER_WORDS)


def lower_is_better_column(columns: Iterable[object]) -> str | None:
    """The first of ``columns`` whose name says lower is better, or ``None``."""
    return next((str(c) for c in columns if lower_is_better_name(c)), None)


def opposite(order: str) -> ScoreOrder:
    """The other score order."""
    return "descending" if order == "ascending" else "ascending"


def list_directions(
    lists: np.ndarray, rank: np.ndarray, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which way each list's scores go with its ranks (see the module's rule).

    Parameters
    ----------
    lists:
        An integer code of each row's list (model and query).
    rank, score:
        Each row's rank and score (``NaN`` or infinite: left out).

    Returns
    -------
    (ids, direction)
        The list codes that have a usable row (ascending), and for each ``1`` (scores ascend
        with rank), ``-1`` (they descend) or ``0`` (neither).
    """
    rank = np.asarray(rank, dtype=np.float64)
    score = np.asarray(score, dtype=np.float64)
    ok = np.isfinite(rank) & np.isfinite(score)
    codes, rank, score = np.asarray(lists)[ok], rank[ok], score[ok]
    if len(codes) < 2:
        ids = np.unique(codes)
        return ids, np.zeros(len(ids), dtype=np.int64)
    same = codes[1:] == codes[:-1]
    if (codes[1:] >= codes[:-1]).all() and (~same | (rank[1:] > rank[:-1])).all():
        # the layout of run files: lists in order, ranks rising within them (no sort needed)
        starts = np.flatnonzero(np.concatenate(([True], ~same)))
        ids = codes[starts]
        inverse = np.repeat(np.arange(len(ids)), np.diff(np.append(starts, len(codes))))
    else:
        order = np.lexsort((score, rank, codes))
        codes, rank, score = codes[order], rank[order], score[order]
        ids, inverse = np.unique(codes, return_inverse=True)
    step = (codes[1:] == codes[:-1]) & (rank[1:] > rank[:-1])
    change = score[1:] - score[:-1]
    ups = np.bincount(inverse[1:], weights=step & (change > 0), minlength=len(ids))
    downs = np.bincount(inverse[1:], weights=step & (change < 0), minlength=len(ids))
    return ids, np.sign(ups - downs).astype(np.int64)


@dataclass(frozen=True)
class RankAgreement:
    """How many lists of one model have scores that ascend and descend with rank."""

    ascending: int = 0
    descending: int = 0

    @property
    def lists(self) -> int:
        """Lists whose scores go one way or the other."""
        return self.ascending + self.descending

    def count(self, order: str) -> int:
        """Lists whose scores go as ``order`` says (``ascending``: up with rank)."""
        return self.ascending if order == "ascending" else self.descending

    def order(self) -> ScoreOrder | None:
        """The score order the ranks agree with (ascending scores: lower is better), when at
        least :data:`MOST_LISTS` of the lists go that way; else ``None``."""
        for order in ("ascending", "descending"):
            if self.lists and self.count(order) >= MOST_LISTS * self.lists:
                return "ascending" if order == "ascending" else "descending"
        return None


def direction_counts(lists: np.ndarray, rank: np.ndarray, score: np.ndarray) -> RankAgreement:
    """:class:`RankAgreement` of the lists of one model (see :func:`list_directions`)."""
    _, direction = list_directions(lists, rank, score)
    return RankAgreement(int((direction > 0).sum()), int((direction < 0).sum()))


def run_direction_counts(starts: np.ndarray, rank: np.ndarray, score: np.ndarray) -> RankAgreement:
    """:func:`direction_counts` of lists laid out back to back, list ``i`` in rows
    ``starts[i]`` up to the next start (the layout of a run file's block of queries).

    When every score and rank is finite and ranks rise strictly within each list (as in run
    files), each list's direction is the sign of the sum of the signs of its score steps, read
    in one pass without a list code per row or a sort; any other input is counted by
    :func:`direction_counts`. Both give the same counts.
    """
    n = len(score)
    starts = np.asarray(starts, dtype=np.int64)
    inner = np.ones(max(n - 1, 0), dtype=bool)  # pairs of neighbouring rows of one list
    inner[starts[1:] - 1] = False
    if (
        n < 2
        or not np.isfinite(score).all()
        or (rank.dtype.kind == "f" and not np.isfinite(rank).all())
        or not ((rank[1:] > rank[:-1]) | ~inner).all()
    ):
        lengths = np.diff(np.append(starts, n))
        return direction_counts(np.repeat(np.arange(len(starts)), lengths), rank, score)
    steps = np.empty(n)
    np.subtract(score[1:], score[:-1], out=steps[:-1])
    steps[-1] = 0.0
    np.sign(steps, out=steps)
    steps[:-1][~inner] = 0.0
    way = np.add.reduceat(steps, starts)
    return RankAgreement(int((way > 0).sum()), int((way < 0).sum()))


def agreements(
    models: np.ndarray, lists: np.ndarray, rank: np.ndarray, score: np.ndarray
) -> dict[int, RankAgreement]:
    """:class:`RankAgreement` per model code, from each row's model code and list code."""
    ids, direction = list_directions(lists, rank, score)
    if not len(ids):
        return {}
    first = np.unique(np.asarray(lists), return_index=True)
    model_of = dict(zip(first[0].tolist(), np.asarray(models)[first[1]].tolist()))
    out: dict[int, list[int]] = {}
    for code, way in zip(ids.tolist(), direction.tolist()):
        counts = out.setdefault(int(model_of[code]), [0, 0])
        if way > 0:
            counts[0] += 1
        elif way < 0:
            counts[1] += 1
    return {m: RankAgreement(a, d) for m, (a, d) in out.items()}


def share_text(agree: int, n: int) -> str:
    """``agree`` of ``n`` as a whole percentage, rounded down (``99%`` until all agree)."""
    return f"{math.floor(100 * agree / n)}%" if n else "0%"


@dataclass(frozen=True)
class RankDisagreement:
    """A model whose ranks agree with the score order it is not ranked by."""

    model: str
    order: ScoreOrder  # the order the ranks agree with
    agree: int  # lists that go that way
    lists: int  # lists that go one way or the other
    rule: ScoreOrder  # the order in force

    @property
    def params(self) -> dict[str, object]:
        """The finding's parameters (``n``: the lists, for the plural form)."""
        return {
            "model": self.model,
            "agree": self.agree,
            "n": self.lists,
            "share": share_text(self.agree, self.lists),
        }

    @property
    def message(self) -> str:
        """The English message (the same as the finding's)."""
        one, other = RANK_TEXTS[self.order]
        template = one if self.lists == 1 else other
        return template.format(**self.params, rule=ORDER_RULES[self.rule])


def rank_disagreements(
    found: dict[str, RankAgreement], settings: Settings
) -> list[RankDisagreement]:
    """The models (in the order of ``found``) whose ranks agree with the other score order than
    the one ``settings`` rank them by."""
    out = []
    for model, agreement in found.items():
        order = agreement.order()
        rule = settings.score_order_of(model)
        if order is not None and order != rule:
            out.append(
                RankDisagreement(model, order, agreement.count(order), agreement.lists, rule)
            )
    return out


@dataclass(frozen=True)
class DirectionGuess:
    """The score order proposed for a table.

    Attributes
    ----------
    order:
        ``"ascending"`` (lower is better) or ``"descending"``.
    code:
        ``"ranks"`` (the rank column agrees with it) or ``"name"`` (the score column is named
        like a distance, cost or loss).
    column:
        The score column.
    agree, lists:
        For ``"ranks"``: the lists that go that way, and those that go one way or the other.
    """

    order: ScoreOrder
    code: str
    column: str
    agree: int = 0
    lists: int = 0

    @property
    def share(self) -> str:
        """The share of the lists that agree, as a percentage (``97%``)."""
        return share_text(self.agree, self.lists)


def guess_direction(
    frame: pd.DataFrame,
    score: str | None,
    rank: str | None = None,
    query: str | None = None,
    model: str | None = None,
) -> DirectionGuess | None:
    """The score order a table's columns point to: the one its rank column agrees with
    (in :data:`MOST_LISTS` of its lists), else ``ascending`` when the score column is named like
    a distance, cost or loss; ``None`` when nothing points either way.

    Parameters
    ----------
    frame:
        The table as loaded (any column names).
    score, rank, query, model:
        The columns of those roles (``None``: absent).
    """
    import pandas as pd

    if score is None or score not in frame.columns:
        return None
    if rank is not None and rank in frame.columns and query is not None:
        by = [query] + ([model] if model is not None and model in frame.columns else [])
        lists = frame.groupby(by, sort=False, dropna=False).ngroup().to_numpy()
        values = [
            pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype="float64")
            for c in (rank, score)
        ]
        found = agreements(np.zeros(len(frame), dtype=np.int64), lists, *values).get(0)
        order = found.order() if found is not None else None
        if found is not None and order is not None:
            return DirectionGuess(order, "ranks", score, found.count(order), found.lists)
    if lower_is_better_name(score):
        return DirectionGuess("ascending", "name", score)
    return None


def table_order(settings: Settings, models: Sequence[str]) -> ScoreOrder | None:
    """The score order of every model of ``models`` under ``settings``, or ``None`` when they
    differ (or there is none)."""
    orders = {settings.score_order_of(m) for m in models}
    return orders.pop() if len(orders) == 1 else None


__all__ = [
    "LOWER_IS_BETTER_CJK",
    "LOWER_IS_BETTER_WORDS",
    "MOST_LISTS",
    "NAME_TEXT",
    "ORDER_RULES",
    "RANK_TEXTS",
    "DirectionGuess",
    "RankAgreement",
    "RankDisagreement",
    "agreements",
    "guess_direction",
    "list_directions",
    "lower_is_better_column",
    "lower_is_better_name",
    "opposite",
    "rank_disagreements",
    "run_direction_counts",
    "share_text",
    "table_order",
]
