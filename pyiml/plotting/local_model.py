"""Plot of :class:`pyiml.LocalModel` results (iml's ``LocalModel$plot()``)."""
from __future__ import annotations

import math
from typing import List, Optional

import pandas as pd
from matplotlib.figure import Figure

from .shapley import facet_axes

__all__ = ["plot_local_model"]


def _reorder(res: pd.DataFrame) -> List[str]:
    """ggplot's ``reorder(feature.value, effect)``: levels by mean effect (ties: alphabetical)."""
    means = res.groupby(res["feature.value"].astype(str), sort=True)["effect"].mean()
    return list(means.sort_values(kind="stable").index)


def plot_local_model(results: pd.DataFrame, multiclass: bool, actual: Optional[float] = None,
                     local: Optional[float] = None) -> Figure:
    """Horizontal bars of ``effect`` per ``feature.value``, ordered by effect.

    As iml (``geom_col`` + ``coord_flip``): y title "effect", no x title; one output is titled
    ``"Actual prediction: %.2f\\nLocalModel prediction: %.2f"`` (the black-box prediction of
    the point and the local model's); several outputs give one facet per ``.class`` sharing
    the feature order.

    Parameters
    ----------
    results : pandas.DataFrame
        ``LocalModel.results``.
    multiclass : bool
    actual, local : float, optional
        The two predictions of the title (one output only).

    Returns
    -------
    matplotlib.figure.Figure
    """
    res = results.reset_index(drop=True)
    levels = _reorder(res) if len(res) else []
    if multiclass:
        classes = list(dict.fromkeys(res[".class"].astype(str)))
        ncol = max(1, math.ceil(math.sqrt(max(len(classes), 1))))
        nrow = math.ceil(len(classes) / ncol)
        fig = Figure(figsize=(3.6 * ncol, nrow * (1.2 + 0.4 * max(len(levels), 2))))
        for ax, cl in zip(facet_axes(fig, len(classes)), classes):
            _bars(ax, res[res[".class"].astype(str) == cl], levels)
            ax.set_title(cl, fontsize=9)
        fig.tight_layout()
        return fig
    fig = Figure(figsize=(6, 1.0 + 0.4 * max(len(levels), 2)))
    ax = fig.add_subplot()
    _bars(ax, res, levels)
    if actual is not None and local is not None:
        ax.set_title(f"Actual prediction: {actual:.2f}\nLocalModel prediction: {local:.2f}", loc="left", fontsize=10)
    fig.tight_layout()
    return fig


def _bars(ax, res: pd.DataFrame, levels: List[str]) -> None:
    pos = {f: i for i, f in enumerate(levels)}
    y = [pos[f] for f in res["feature.value"].astype(str)]
    ax.barh(y, res["effect"].to_numpy(dtype=float), color="0.35", height=0.9)
    ax.set_yticks(range(len(levels)))
    ax.set_yticklabels(levels)
    ax.set_xlabel("effect")
    ax.set_ylabel("")
    ax.axvline(0, color="0.6", linewidth=0.8)
    ax.grid(True, axis="x", color="0.92")
    ax.set_axisbelow(True)
