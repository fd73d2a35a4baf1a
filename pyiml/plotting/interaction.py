"""Plot of :class:`pyiml.Interaction` results (iml's ``Interaction$plot()``)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .shapley import facet_axes

__all__ = ["plot_interaction"]


def plot_interaction(results: pd.DataFrame, multiclass: bool, sort: bool = True) -> Figure:
    """A point at each feature's H-statistic with a segment from 0.

    As iml: x-axis title "Overall interaction strength", y-axis title "Features"; one output is
    sorted by interaction strength (strongest at the top); several outputs give one facet per
    ``.class`` with features in alphabetical order.
    """
    res = results.reset_index(drop=True)
    if multiclass:
        classes = list(res[".class"].cat.categories) if hasattr(res[".class"], "cat") else list(
            dict.fromkeys(res[".class"]))
        levels = sorted(dict.fromkeys(res[".feature"].astype(str)))
        ncol = max(1, math.ceil(math.sqrt(len(classes))))
        fig = Figure(figsize=(3.2 * ncol, 0.6 + 0.35 * len(levels) * math.ceil(len(classes) / ncol)))
        for ax, cl in zip(facet_axes(fig, len(classes)), classes):
            _draw(ax, res[res[".class"].astype(str) == str(cl)], levels)
            ax.set_title(str(cl), fontsize=9)
        fig.tight_layout()
        return fig
    feats = res[".feature"].astype(str).tolist()
    if sort:
        levels = [feats[i] for i in np.argsort(res[".interaction"].to_numpy(), kind="stable")]
    else:
        levels = sorted(feats)
    fig = Figure(figsize=(6, 0.8 + 0.35 * max(len(levels), 2)))
    _draw(fig.add_subplot(), res, levels)
    fig.tight_layout()
    return fig


def _draw(ax, res: pd.DataFrame, levels) -> None:
    pos = {f: i for i, f in enumerate(levels)}
    y = np.array([pos[f] for f in res[".feature"].astype(str)], dtype=float)
    h = res[".interaction"].to_numpy(dtype=float)
    ax.hlines(y, 0.0, h, color="black", linewidth=0.8)
    ax.scatter(h, y, color="black", s=12, zorder=3)
    ax.set_yticks(range(len(levels)))
    ax.set_yticklabels(levels)
    ax.set_xlabel("Overall interaction strength")
    ax.set_ylabel("Features")
    ax.grid(True, color="0.92")
    ax.set_axisbelow(True)
