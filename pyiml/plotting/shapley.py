"""Plot of :class:`pyiml.Shapley` results (iml's ``Shapley$plot()``)."""
from __future__ import annotations

from typing import List

import pandas as pd
from matplotlib.figure import Figure

from .._algorithms.rprint import r_sprintf_f
from ._common import faceted_figure, hbars, sorted_levels

__all__ = ["plot_shapley"]


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
        levels = sorted(dict.fromkeys(res["feature.value"].astype(str)))
        return faceted_figure(res, "class", len(levels), lambda ax, sub: _bars(ax, sub, levels, res["phi"]))
    levels = sorted_levels(res["feature.value"], res["phi"].to_numpy(), sort)
    fig = Figure(figsize=(6, 0.8 + 0.35 * max(len(levels), 2)))
    ax = fig.add_subplot()
    _bars(ax, res, levels)
    if y_hat_interest is not None and y_hat_average is not None:
        ax.set_title(f"Actual prediction: {r_sprintf_f(y_hat_interest, 2)}\nAverage prediction: "
                     f"{r_sprintf_f(y_hat_average, 2)}",
                     loc="left", fontsize=10)
    fig.tight_layout()
    return fig


def _bars(ax, res: pd.DataFrame, levels: List[str], scale=None) -> None:
    hbars(ax, res["feature.value"], res["phi"].to_numpy(dtype=float), levels, "phi", scale=scale)
