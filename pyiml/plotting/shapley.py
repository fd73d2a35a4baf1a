"""Plot of :class:`pyiml.Shapley` results (iml's ``Shapley$plot()``)."""
from __future__ import annotations

import math
from typing import List

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["plot_shapley", "facet_axes"]


def facet_axes(fig: Figure, n: int, sharex: bool = True) -> List:
    """Axes for ``n`` facets laid out like ggplot's ``facet_wrap`` (ncol = ceil(sqrt(n)))."""
    ncol = max(1, math.ceil(math.sqrt(n)))
    nrow = math.ceil(n / ncol)
    axes = []
    for i in range(n):
        share = axes[0] if (axes and sharex) else None
        axes.append(fig.add_subplot(nrow, ncol, i + 1, sharex=share, sharey=axes[0] if axes else None))
    return axes


def plot_shapley(results: pd.DataFrame, multiclass: bool, y_hat_interest=None, y_hat_average=None,
                 sort: bool = True) -> Figure:
    """Horizontal bars of ``phi`` per ``feature.value``.

    As iml: one output is sorted by ``phi`` (largest at the top) and titled
    ``"Actual prediction: %.2f\\nAverage prediction: %.2f"``; several outputs give one facet
    per ``class`` (features in alphabetical order of ``feature.value``, as ggplot orders
    characters).
    """
    res = results.reset_index(drop=True)
    if multiclass:
        classes = list(res["class"].cat.categories) if hasattr(res["class"], "cat") else list(
            dict.fromkeys(res["class"]))
        levels = sorted(dict.fromkeys(res["feature.value"].astype(str)))
        ncol = max(1, math.ceil(math.sqrt(len(classes))))
        fig = Figure(figsize=(3.2 * ncol, 0.6 + 0.35 * len(levels) * math.ceil(len(classes) / ncol)))
        for ax, cl in zip(facet_axes(fig, len(classes)), classes):
            sub = res[res["class"].astype(str) == str(cl)]
            _bars(ax, sub, levels)
            ax.set_title(str(cl), fontsize=9)
        fig.tight_layout()
        return fig
    fv = res["feature.value"].astype(str).tolist()
    if sort:
        levels = [fv[i] for i in np.argsort(res["phi"].to_numpy(), kind="stable")]
    else:
        levels = sorted(fv)
    fig = Figure(figsize=(6, 0.8 + 0.35 * max(len(levels), 2)))
    ax = fig.add_subplot()
    _bars(ax, res, levels)
    if y_hat_interest is not None and y_hat_average is not None:
        ax.set_title(f"Actual prediction: {float(y_hat_interest):.2f}\nAverage prediction: {float(y_hat_average):.2f}",
                     loc="left", fontsize=10)
    fig.tight_layout()
    return fig


def _bars(ax, res: pd.DataFrame, levels: List[str]) -> None:
    pos = {f: i for i, f in enumerate(levels)}
    y = [pos[f] for f in res["feature.value"].astype(str)]
    ax.barh(y, res["phi"].to_numpy(dtype=float), color="0.35", height=0.9)
    ax.set_yticks(range(len(levels)))
    ax.set_yticklabels(levels)
    ax.set_xlabel("phi")
    ax.set_ylabel("")
    ax.grid(True, axis="x", color="0.92")
    ax.set_axisbelow(True)
