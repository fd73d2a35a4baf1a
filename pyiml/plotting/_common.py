"""Small drawing helpers the per-method plot modules share (facets, horizontal bars)."""
from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["PT", "POINT_S", "lab_colormap", "boxplot", "discrete_axis", "facet_axes", "class_list",
           "faceted_figure", "hbars", "inf_at_edges", "literal", "outer_labels", "sorted_levels", "unstick", "wrap_dims"]

#: ggplot2 sizes (line widths, point sizes) are in mm; one mm is 72.27 / 25.4 points
PT = 72.27 / 25.4
#: ggplot's default point (size 1.5 mm) as a matplotlib scatter size in points²
POINT_S = (1.5 * PT) ** 2


def literal(text) -> str:
    """``text`` as matplotlib must get it to print it as it is, as ggplot does: every ``$``
    escaped. matplotlib reads text between two ``$`` as a math formula, so a label such as
    ``$$`` (a price tier) or ``a$b$c`` would be typeset, or fail to parse and stop the figure
    from being drawn; an escaped ``\\$`` is printed as ``$``."""
    return str(text).replace("$", r"\$")


def discrete_axis(ax, axis: str, levels: Sequence, expand: bool = True, **label_kw) -> Dict[str, int]:
    """A discrete axis as ggplot draws one: the levels at positions 1..K, labelled with their
    text (``label_kw`` go to the tick labels), and with ``expand`` the range ggplot's discrete
    scale shows, 0.6 beyond the first and last position (``[0.4, K + 0.6]`` whatever the bars,
    boxes, tiles or rug on it); returns each level's position by its text."""
    names = [str(v) for v in levels]
    ticks = range(1, len(names) + 1)
    limits = (0.4, len(names) + 0.6)
    if axis == "x":
        ax.set_xticks(ticks)
        ax.set_xticklabels([literal(s) for s in names], **label_kw)
        if expand:
            ax.set_xlim(*limits)
    else:
        ax.set_yticks(ticks)
        ax.set_yticklabels([literal(s) for s in names], **label_kw)
        if expand:
            ax.set_ylim(*limits)
    return {s: i for i, s in enumerate(names, start=1)}


def _n2mfrow(n: int) -> Tuple[int, int]:
    """R's ``grDevices::n2mfrow(n)`` (asp = 1): (rows, columns) of a plot array for n plots."""
    if n <= 12:
        if n <= 3:
            return n, 1
        if n <= 6:
            return (n + 1) // 2, 2
        return (n + 2) // 3, 3
    nrow = math.ceil(math.sqrt(n))
    ncol = math.ceil(n / nrow)
    while nrow * ncol > n:
        if nrow * (ncol - 1) >= n:
            ncol -= 1
        elif (nrow - 1) * ncol >= n:
            nrow -= 1
        else:
            break
    return nrow, ncol


def wrap_dims(n: int, nrow: Optional[int] = None, ncol: Optional[int] = None) -> Tuple[int, int]:
    """(rows, columns) of ``n`` panels as ggplot2's ``wrap_dims`` (``facet_wrap``; patchwork's
    ``wrap_plots`` lays out the same way) gives them: by default ``n2mfrow(n)`` transposed
    (3 panels in one row of three, 5 in two rows of three), else the missing one of the two
    from the given one. ``ValueError`` when ``nrow * ncol < n``."""
    if nrow is None and ncol is None:
        rc = _n2mfrow(n)
        nrow, ncol = rc[1], rc[0]
    elif ncol is None:
        ncol = math.ceil(n / nrow)
    elif nrow is None:
        nrow = math.ceil(n / ncol)
    if nrow * ncol < n:
        raise ValueError(f"nrows={nrow} x ncols={ncol} panels cannot hold {n} plots; increase ncols and/or nrows")
    return max(int(nrow), 1), max(int(ncol), 1)


def unstick(bars, axis: str = "y") -> None:
    """Let the value axis of bars extend below 0 as ggplot's does (5% of the range on each side)
    instead of stopping at the bars' base (matplotlib's sticky edges)."""
    for patch in bars:
        getattr(patch.sticky_edges, axis).clear()


def facet_axes(fig: Figure, n: int, sharex: bool = True) -> List:
    """Axes for ``n`` facets laid out like ggplot's ``facet_wrap`` (:func:`wrap_dims`)."""
    nrow, ncol = wrap_dims(n)
    axes = []
    for i in range(n):
        share = axes[0] if (axes and sharex) else None
        axes.append(fig.add_subplot(nrow, ncol, i + 1, sharex=share, sharey=axes[0] if axes else None))
    return axes


def outer_labels(axes: Sequence, ncol: int, whole_figure: bool = True) -> None:
    """Axis tick labels of facets only where ggplot's ``facet_wrap`` (fixed scales) draws them:
    the x axis under the last panel of each column, the y axis left of each row; an axis title
    that every panel shares is drawn once, as ggplot draws it once under (left of) all panels:
    for the figure (``supxlabel``, ``supylabel``) when the facets fill it, else (``whole_figure``
    False: facets in one cell of a larger figure) on the middle column's bottom panel (the middle
    row's left panel). The hidden titles keep their text (``get_xlabel``)."""
    n = len(axes)
    for i, ax in enumerate(axes):
        if i + ncol < n:
            ax.tick_params(axis="x", labelbottom=False)
            ax.xaxis.label.set_visible(False)
        if i % ncol:
            ax.tick_params(axis="y", labelleft=False)
            ax.yaxis.label.set_visible(False)
    if n < 2:
        return
    fig = axes[0].figure
    nrow = -(-n // ncol)
    # the panel that keeps the title when the facets share a figure with others
    mid = (nrow - 1) * ncol + (ncol - 1) // 2       # the middle column's panel in the last row...
    keep = {"x": mid if mid < n else mid - ncol,     # ...or, where that row is short, in the row above
            "y": ((nrow - 1) // 2) * ncol}
    for which, sup in (("x", fig.supxlabel), ("y", fig.supylabel)):
        labels = [getattr(ax, f"{which}axis").label for ax in axes]
        text = labels[0].get_text()
        if text and all(lab.get_text() == text for lab in labels):
            if whole_figure:
                sup(text, fontsize=labels[0].get_fontsize())
            for i, lab in enumerate(labels):
                lab.set_visible(not whole_figure and i == keep[which])


def class_list(col: pd.Series) -> list:
    """The facet values of a class column: its categories, else values in order of appearance."""
    return list(col.cat.categories) if hasattr(col, "cat") else list(dict.fromkeys(col))


def rows_by_text(values) -> Dict[str, np.ndarray]:
    """Row positions of each distinct value of ``values`` read as text (``str``), in row order.

    One conversion to text and one stable sort for the whole column, so that splitting a long
    table into K facets or levels costs O(n log n), not K passes of ``astype(str) == ...``."""
    text = pd.Series(values).astype(str).to_numpy()
    codes, uniq = pd.factorize(text)
    order = np.argsort(codes, kind="stable")
    bounds = np.cumsum(np.bincount(codes, minlength=len(uniq)))[:-1]
    return dict(zip(uniq, np.split(order, bounds)))


def rows_of(table: pd.DataFrame, groups: Dict[str, np.ndarray], key) -> pd.DataFrame:
    """The rows of ``table`` whose value read as text is ``str(key)`` (:func:`rows_by_text`)."""
    return table.iloc[groups.get(str(key), np.empty(0, dtype=np.intp))]


def faceted_figure(res: pd.DataFrame, class_col: str, n_levels: int,
                   draw: Callable[[object, pd.DataFrame], None], width: float = 3.2,
                   per_level: float = 0.35) -> Figure:
    """One facet per value of ``class_col`` (ggplot ``facet_wrap``), each drawn by ``draw(ax, rows)``."""
    classes = class_list(res[class_col])
    nrow, ncol = wrap_dims(max(len(classes), 1))
    fig = Figure(figsize=(width * ncol, 0.6 + per_level * max(n_levels, 2) * nrow))
    axes = facet_axes(fig, len(classes))
    groups = rows_by_text(res[class_col])
    for ax, cl in zip(axes, classes):
        draw(ax, rows_of(res, groups, cl))
        ax.set_title(literal(cl), fontsize=9)
    outer_labels(axes, ncol)
    fig.tight_layout()
    return fig


def inf_at_edges(*arrays, also: Sequence[float] = ()):
    """ggplot draws ±Inf at the panel's edges: its continuous scale spans the finite values (and
    ``also``, e.g. the 0 that bars and segments start from), expanded by 5% on each side (a
    range of zero width by 0.5), and infinite values are placed at those limits.

    Returns the arrays with ±Inf replaced by the limits, and the limits for ``set_xlim`` /
    ``set_ylim`` (None when no value is infinite: matplotlib's autoscaling expands by 5% too).
    NaN stays NaN (not drawn, as ggplot drops missing values).
    """
    vals = [np.asarray(a, dtype=float) for a in arrays]
    if not any(np.isinf(v).any() for v in vals):
        return vals, None
    finite = np.concatenate([v[np.isfinite(v)] for v in vals] + [np.asarray(also, dtype=float)])
    if finite.size == 0:
        lo = hi = 0.0
    else:
        lo, hi = float(finite.min()), float(finite.max())
    pad = 0.5 if hi == lo else 0.05 * (hi - lo)
    lims = (lo - pad, hi + pad)
    return [np.where(v == np.inf, lims[1], np.where(v == -np.inf, lims[0], v)) for v in vals], lims


def hbars(ax, labels: pd.Series, values: np.ndarray, levels: Sequence[str], xlabel: str,
          scale: Optional[np.ndarray] = None) -> None:
    """Horizontal bars (ggplot ``geom_col`` + ``coord_flip``), one per row, placed at its label's
    level (ggplot's discrete positions 1..K); ±Inf reach the panel's edge (:func:`inf_at_edges`)
    of the scale of ``scale`` (default ``values``; facets sharing the axis pass all their values)."""
    pos = discrete_axis(ax, "y", levels)
    y = [pos[f] for f in labels.astype(str)]
    values = np.asarray(values, dtype=float)
    _, lims = inf_at_edges(values if scale is None else scale, also=(0.0,))
    if lims is not None:
        values = np.clip(values, *lims)
    unstick(ax.barh(y, values, color="0.35", height=0.9), "x")
    if lims is not None:
        ax.set_xlim(*lims)
    ax.set_xlabel(literal(xlabel))
    ax.set_ylabel("")
    ax.grid(True, axis="x", color="0.92")
    ax.set_axisbelow(True)


def sorted_levels(labels: pd.Series, values: np.ndarray, sort: bool) -> List[str]:
    """Axis order of the labels: by value (ascending, stable; largest ends at the top) when
    ``sort``, else alphabetical as ggplot orders characters (in code-point order, which R's locale
    collation may not follow: docs/differences.md)."""
    lab = labels.astype(str).tolist()
    if sort:
        return [lab[i] for i in np.argsort(np.asarray(values), kind="stable")]
    return sorted(lab)


def boxplot(ax, groups: Sequence[np.ndarray], positions: Sequence[float]) -> None:
    """ggplot's ``geom_boxplot`` of each group at its position: white boxes 0.75 wide
    (``stat_boxplot``) with grey20 outlines, type-7 hinges, whiskers to the farthest value within
    1.5 IQR of the hinges, no caps, outliers as points."""
    grey20 = "#333333"
    ax.boxplot(list(groups), positions=list(positions), widths=0.75, patch_artist=True, showcaps=False,
               manage_ticks=False,
               boxprops={"facecolor": "white", "edgecolor": grey20, "linewidth": 0.5 * PT},
               whiskerprops={"color": grey20, "linewidth": 0.5 * PT},
               medianprops={"color": grey20, "linewidth": PT},
               flierprops={"marker": "o", "markersize": 1.5 * PT, "markerfacecolor": grey20,
                           "markeredgecolor": grey20})


# CIE Lab (D65 white) <-> sRGB, as the scales package's colour_ramp interpolates colours
_XYZ_OF_RGB = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
_WHITE = np.array([0.95047, 1.0, 1.08883])
_D = 6.0 / 29.0


def _srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    t = lin @ _XYZ_OF_RGB.T / _WHITE
    f = np.where(t > _D ** 3, np.cbrt(t), t / (3 * _D ** 2) + 4.0 / 29.0)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


def _lab_to_srgb(lab: np.ndarray) -> np.ndarray:
    fy = (lab[:, 0] + 16) / 116
    f = np.column_stack([fy + lab[:, 1] / 500, fy, fy - lab[:, 2] / 200])
    t = np.where(f > _D, f ** 3, 3 * _D ** 2 * (f - 4.0 / 29.0)) * _WHITE
    lin = np.clip(t @ np.linalg.inv(_XYZ_OF_RGB).T, 0.0, 1.0)
    return np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)


def lab_colormap(name: str, low: str, high: str, n: int = 1024):
    """A colormap from ``low`` to ``high`` interpolated in CIE Lab, as ggplot's continuous
    colour scales (``scales::seq_gradient_pal``) map values to colours."""
    from matplotlib.colors import ListedColormap, to_rgb

    ends = _srgb_to_lab(np.array([to_rgb(low), to_rgb(high)]))
    w = np.linspace(0.0, 1.0, n)[:, None]
    return ListedColormap(_lab_to_srgb((1 - w) * ends[0] + w * ends[1]), name=name)
