"""Plot of :class:`pyiml.FeatureImp` results (iml's ``plot.FeatureImp``)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._common import PT as _PT, discrete_axis, inf_at_edges, literal

__all__ = ["plot_feature_imp"]


def plot_feature_imp(results: pd.DataFrame, loss_name: str, sort: bool = True) -> Figure:
    """The median importance (point) and its 5%–95% range (segment) per feature.

    As iml: with ``sort`` the most important feature is at the top; otherwise features are in
    alphabetical order from the bottom (ggplot's default for a character axis). x-axis title
    ``"Feature Importance (loss: <loss>)"``, no y-axis title.
    """
    res = results.reset_index(drop=True)
    feats = res["feature"].astype(str).tolist()
    if sort:
        levels = [feats[i] for i in np.argsort(res["importance"].to_numpy(), kind="stable")]
    else:
        levels = sorted(feats)
    fig = Figure(figsize=(6, 0.5 + 0.35 * max(len(feats), 2)))
    ax = fig.add_subplot()
    pos = discrete_axis(ax, "y", levels)
    y = np.array([pos[f] for f in feats], dtype=float)
    # an infinite importance (a model error of 0 with compare="ratio" and a custom loss) at the
    # panel's edge, as ggplot draws it
    (lo, med, hi), lims = inf_at_edges(res["importance.05"], res["importance"], res["importance.95"])
    ax.hlines(y, lo, hi, color="darkslategrey", linewidth=1.5 * _PT, zorder=1)
    ax.scatter(med, y, s=(3 * _PT) ** 2 / 2, color="black", zorder=2)
    if lims is not None:
        ax.set_xlim(*lims)
    ax.set_xlabel(literal(f"Feature Importance (loss: {loss_name})"))
    ax.set_ylabel("")
    ax.grid(True, color="0.92")
    ax.set_axisbelow(True)
    fig.tight_layout()
    return fig
