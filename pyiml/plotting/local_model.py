"""Plot of :class:`pyiml.LocalModel` results (iml's ``LocalModel$plot()``)."""
from __future__ import annotations

from typing import List, Optional

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .._algorithms.rprint import r_sprintf_f
from ._common import faceted_figure, hbars

__all__ = ["plot_local_model"]


def _reorder(res: pd.DataFrame) -> List[str]:
    """ggplot's ``reorder(feature.value, effect)``: levels by mean effect (ties: alphabetical).

    Means equal to 1e-9 of the largest effect count as ties: with several classes the effects
    of a feature nearly cancel (a two-class multinomial fit gives each class the negated
    coefficients of the other), and iml's order then follows rounding noise of order 1e-16.
    """
    means = res.groupby(res["feature.value"].astype(str), sort=True)["effect"].mean()
    scale = float(np.nanmax(np.abs(res["effect"].to_numpy(dtype=float)))) if len(res) else 0.0
    key = np.round(means.to_numpy(dtype=float) / (scale or 1.0), 9)
    return [means.index[i] for i in np.argsort(key, kind="stable")]


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
        # iml's .class is a character column here (a factor in Shapley and Interaction), so
        # facet_wrap orders the panels alphabetically, not in the model's output order
        cls = res[".class"].astype(str)
        res[".class"] = pd.Categorical(cls, categories=sorted(set(cls)))
        return faceted_figure(res, ".class", len(levels), lambda ax, sub: _bars(ax, sub, levels, res["effect"]), width=3.6,
                              per_level=0.4)
    fig = Figure(figsize=(6, 1.0 + 0.4 * max(len(levels), 2)))
    ax = fig.add_subplot()
    _bars(ax, res, levels)
    if actual is not None and local is not None:
        ax.set_title(f"Actual prediction: {r_sprintf_f(actual, 2)}\nLocalModel prediction: {r_sprintf_f(local, 2)}",
                     loc="left", fontsize=10)
    fig.tight_layout()
    return fig


def _bars(ax, res: pd.DataFrame, levels: List[str], scale=None) -> None:
    hbars(ax, res["feature.value"], res["effect"].to_numpy(dtype=float), levels, "effect", scale=scale)
