"""Plot of :class:`pyiml.Interaction` results (iml's ``Interaction$plot()``)."""
from __future__ import annotations


import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._common import PT as _PT, POINT_S, discrete_axis, faceted_figure, inf_at_edges, sorted_levels

__all__ = ["plot_interaction"]


def plot_interaction(results: pd.DataFrame, multiclass: bool, sort: bool = True) -> Figure:
    """A point at each feature's H-statistic with a segment from 0.

    As iml: x-axis title "Overall interaction strength", y-axis title "Features"; one output is
    sorted by interaction strength (strongest at the top); several outputs give one facet per
    ``.class`` with features in alphabetical order.
    """
    res = results.reset_index(drop=True)
    # an infinite H (a class whose partial dependence is constant up to rounding) is drawn at the
    # panel's edge, as ggplot draws it; the facets share the x scale
    _, lims = inf_at_edges(res[".interaction"], also=(0.0,))
    if multiclass:
        levels = sorted(dict.fromkeys(res[".feature"].astype(str)))
        return faceted_figure(res, ".class", len(levels), lambda ax, sub: _draw(ax, sub, levels, lims))
    levels = sorted_levels(res[".feature"], res[".interaction"].to_numpy(), sort)
    fig = Figure(figsize=(6, 0.8 + 0.35 * max(len(levels), 2)))
    _draw(fig.add_subplot(), res, levels, lims)
    fig.tight_layout()
    return fig


def _draw(ax, res: pd.DataFrame, levels, lims) -> None:
    # iml's layers: geom_point, then geom_segment from 0 (drawn over the points); features at
    # ggplot's discrete positions 1..K; ±Inf at the limits ``lims`` (None: none is infinite)
    pos = discrete_axis(ax, "y", levels)
    y = np.array([pos[f] for f in res[".feature"].astype(str)], dtype=float)
    h = res[".interaction"].to_numpy(dtype=float)
    if lims is not None:
        h = np.clip(h, *lims)
        ax.set_xlim(*lims)
    ax.scatter(h, y, color="black", s=POINT_S, linewidths=0, zorder=2)
    ax.hlines(y, 0.0, h, color="black", linewidth=0.5 * _PT, zorder=2)
    ax.set_xlabel("Overall interaction strength")
    ax.set_ylabel("Features")
    ax.grid(True, color="0.92")
    ax.set_axisbelow(True)
