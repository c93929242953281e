"""Pure plotly figure builders of the Labels page (no Streamlit): the confusion matrix of two
label sources. Every word comes from the caller (the catalogs); user text is escaped once
(:func:`ui.shell.safe.plotly_text`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.shell.plotting import SETTLED_MARGIN, build_figure, label_margin
from ui.shell.safe import plotly_text as _safe


def grade_text(grade: float) -> str:
    """A grade as shown on an axis: ``2`` for 2.0, ``1.5`` for 1.5."""
    return f"{grade:g}"


def confusion_figure(
    matrix: pd.DataFrame,
    *,
    title: str,
    rows_label: str,
    columns_label: str,
    count_label: str,
) -> go.Figure:
    """A heatmap of a confusion matrix: one source's grades down (rows of ``matrix``), the
    other's across (its columns), each cell's count written in it; the diagonal is where they
    agree.

    Parameters
    ----------
    matrix:
        Counts, indexed by the first source's grades, with the second source's grades as
        columns (:meth:`metrics.labels.agreement.Agreement.confusion_matrix`).
    title, rows_label, columns_label, count_label:
        Texts (translated by the caller; source names in them are escaped here).
    """
    counts = matrix.to_numpy(dtype=np.int64)
    rows = [grade_text(g) for g in matrix.index]
    columns = [grade_text(g) for g in matrix.columns]
    total = max(int(counts.sum()), 1)
    share = counts / total
    text = [[f"{c:,}" for c in row] for row in counts.tolist()]
    trace = {
        "type": "heatmap",
        "z": share.tolist(),
        "x": columns,
        "y": rows,
        "text": text,
        "texttemplate": "%{text}",
        "textfont": {"size": 14},
        "colorscale": "Blues",
        "showscale": False,
        "xgap": 2,
        "ygap": 2,
        "hovertemplate": (
            f"{_safe(rows_label)}: %{{y}}<br>{_safe(columns_label)}: %{{x}}"
            f"<br>{_safe(count_label)}: %{{text}}<extra></extra>"
        ),
    }
    return build_figure(
        [trace],
        {
            "title": {"text": _safe(title)},
            "xaxis": {
                "title": {"text": _safe(columns_label)},
                "type": "category",
                "side": "bottom",
            },
            "yaxis": {
                "title": {"text": _safe(rows_label)},
                "type": "category",
                "autorange": "reversed",
            },
            "height": 160 + 56 * len(rows),
            "margin": {
                **SETTLED_MARGIN,
                "l": label_margin(rows, titled=True),
                "t": 60,
                "b": 60,
            },
        },
    )


__all__ = ["confusion_figure", "grade_text"]
