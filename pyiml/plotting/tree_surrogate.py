"""Plots of :class:`pyiml.TreeSurrogate` (iml's ``TreeSurrogate$plot()`` and a tree diagram)."""
from __future__ import annotations

import math
import re
from typing import Dict, List, Optional

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._common import boxplot, discrete_axis, facet_axes, literal, outer_labels, unstick, wrap_dims

__all__ = ["plot_tree_surrogate", "plot_tree_diagram"]


def _facets(paths: pd.Series) -> List[Optional[str]]:
    """facet_wrap(".path") panels: the distinct paths in alphabetical order, NA last."""
    vals = list(dict.fromkeys(paths.tolist()))
    present = sorted(v for v in vals if v is not None and not (isinstance(v, float) and math.isnan(v)))
    if len(present) < len(vals):
        present.append(None)
    return present


def plot_tree_surrogate(results: pd.DataFrame, multiclass: bool, outputs: List[str]) -> Figure:
    """iml's plot: one facet per leaf (``.path``).

    One output: a boxplot of the model's predictions ``.y.hat`` of the rows in the leaf (y title
    ŷ, no x label). Several outputs: bars counting, per leaf, the rows whose most probable class
    (argmax of the ``.y.hat.<class>`` columns, first on ties) is each class; all facets share
    the class axis (classes in alphabetical order, as ggplot orders characters; Python's code-point
    order, which R's locale collation may not follow: docs/differences.md).

    Returns
    -------
    matplotlib.figure.Figure
    """
    res = results.reset_index(drop=True)
    path = res[".path"].astype(object).where(res[".path"].notna(), None)
    panels = _facets(path)
    nrow, ncol = wrap_dims(len(panels))
    fig = Figure(figsize=(3.3 * ncol, 2.9 * nrow + 0.3))
    axes = facet_axes(fig, len(panels))   # facet_wrap's fixed scales: one class axis for all leaves
    if multiclass:
        cols = [f".y.hat.{c}" for c in outputs]
        label = np.asarray(outputs, dtype=object)[np.argmax(res[cols].to_numpy(dtype=float), axis=1)]
        classes = sorted(set(label.tolist()))
        for ax, pth in zip(axes, panels):
            sel = (path == pth).to_numpy() if pth is not None else path.isna().to_numpy()
            counts = np.array([int(np.sum(label[sel] == c)) for c in classes])
            # geom_bar: one bar per class present in the leaf, at ggplot's positions 1..K
            present = np.flatnonzero(counts > 0)
            unstick(ax.bar(present + 1, counts[present], color="#595959", width=0.9))
            discrete_axis(ax, "x", classes, rotation=30, ha="right", fontsize=8)
            ax.set_title("NA" if pth is None else literal(pth), fontsize=8)
            ax.set_xlabel(".class")
            ax.set_ylabel("count")
            ax.grid(True, axis="y", color="0.92")
            ax.set_axisbelow(True)
    else:
        y = res[".y.hat"].to_numpy(dtype=float)
        for ax, pth in zip(axes, panels):
            sel = (path == pth).to_numpy() if pth is not None else path.isna().to_numpy()
            boxplot(ax, [y[sel]], [1])
            discrete_axis(ax, "x", [""])   # ggplot's one empty level: [0.4, 1.6]
            ax.set_title("NA" if pth is None else literal(pth), fontsize=8)
            ax.set_ylabel(r"$\hat{y}$")
            ax.grid(True, axis="y", color="0.92")
            ax.set_axisbelow(True)
    outer_labels(axes, ncol)
    fig.tight_layout()
    return fig


def _short(label: str) -> str:
    """An edge label with long numbers shortened to 4 significant digits."""
    return re.sub(r"-?\d+\.\d{4,}(?:e[-+]\d+)?", lambda m: f"{float(m.group()):.4g}", label)


def plot_tree_diagram(nodes: Dict[int, dict], outputs: Optional[List[str]] = None) -> Figure:
    """The tree drawn top-down: inner nodes name their split variable (and p-value for
    ctree), edges carry the split conditions (numbers to 4 significant digits), leaves show the number of rows and the mean
    prediction (for several outputs, the mean of every output).

    Parameters
    ----------
    nodes : dict
        Node id → ``dict(kids, labels, n, mean, var, p)`` (see ``TreeSurrogate._tree_layout``).
    outputs : list of str, optional
        Output names for several outputs.

    Returns
    -------
    matplotlib.figure.Figure
    """
    leaves = [i for i, nd in nodes.items() if not nd["kids"]]
    xpos: Dict[int, float] = {}
    depth: Dict[int, int] = {}
    order = iter(range(len(leaves)))

    def place(i: int, d: int) -> float:
        depth[i] = d
        kids = nodes[i]["kids"]
        if not kids:
            xpos[i] = float(next(order))
        else:
            xs = [place(k, d + 1) for k in kids]
            xpos[i] = (min(xs) + max(xs)) / 2
        return xpos[i]

    root = min(nodes)
    place(root, 0)
    maxd = max(depth.values())
    fig = Figure(figsize=(max(4.0, 2.6 * len(leaves)), 1.2 + 1.9 * (maxd + 1)))
    ax = fig.add_subplot()
    ax.set_xlim(-0.7, len(leaves) - 0.3)
    ax.set_ylim(-maxd - 0.7, 0.5)
    ax.axis("off")
    box = dict(boxstyle="round,pad=0.4", facecolor="white", edgecolor="0.3")
    for i, nd in nodes.items():
        x, y = xpos[i], -depth[i]
        for k, lab in zip(nd["kids"], nd["labels"] or [""] * len(nd["kids"])):
            xk, yk = xpos[k], -depth[k]
            ax.plot([x, xk], [y, yk], color="0.5", linewidth=1, zorder=1)
            ax.text(0.4 * x + 0.6 * xk, 0.4 * y + 0.6 * yk, literal(_short(lab)), fontsize=7, ha="center", va="center",
                    bbox=dict(boxstyle="square,pad=0.15", facecolor="white", edgecolor="none"), zorder=2)
        if nd["kids"]:
            txt = f"{literal(nd['var'])}\nn = {nd['n']}"
            if nd.get("p") is not None:
                txt += f"\np = {nd['p']:.3g}"
        else:
            mean = np.atleast_1d(np.asarray(nd["mean"], dtype=float))
            if outputs is None:
                txt = f"Node {i}\nn = {nd['n']}\nŷ = {mean[0]:.4g}"
            else:
                txt = f"Node {i}\nn = {nd['n']}\n" + "\n".join(f"{literal(c)}: {m:.3g}" for c, m in zip(outputs, mean))
        ax.text(x, y, txt, fontsize=8, ha="center", va="center", bbox=box, zorder=3)
    fig.tight_layout()
    return fig
