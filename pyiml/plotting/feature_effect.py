"""Plots of :class:`pyiml.FeatureEffect` and :class:`pyiml.FeatureEffects` (iml's ggplot layers).

R equivalents: ``FeatureEffect$plot(rug = TRUE, show.data = FALSE, ylim = NULL)`` and
``FeatureEffects$plot(features = NULL, ncols = NULL, nrows = NULL, fixed_y = TRUE, ...)``
(spec §17). What is drawn:

* one feature, numerical: a line (ALE, PDP); ICE lines (alpha 0.2) per ``.id`` (for
  ``"pdp+ice"`` the PDP rows, whose ``.id`` is missing, are one more such line), with the PDP on
  top in gold for ``"pdp+ice"``; ``ylim`` are ggplot's scale limits (the axis shows 5% more);
* one feature, categorical: bars (ALE, PDP) or boxplots (ggplot's: no caps) of the ICE values
  per level;
* two features: ALE rectangles (``.left/.right/.bottom/.top``) filled by ``.ale``; PDP tiles
  filled by ``.value`` when both features are numerical (integer counts as numerical) or both
  categorical; otherwise one PDP line per level of the categorical feature;
* a rug of the data's feature values (jittered as iml: 1% of the range for numerical
  features, 0.07 otherwise; the jitter uses a fixed seed, so figures are reproducible),
  data points for ``show_data`` in 2-D plots (not for numerical × categorical PDPs, as iml), and
  one facet per ``.class`` for several outputs.

Categories sit at ggplot's discrete positions 1..K, so every coordinate is the one
``ggplot2::ggplot_build`` gives for iml's plot (``tests/test_plot_geometry_r.py``), and the layers
are drawn in iml's order (the rug last).

Axis titles follow iml: ``"ALE of <target>"`` / ``"Predicted <target>"`` (``"ALE"`` / ŷ without
a target or for 2-D effects), ``"Prediction centered at x = <value>"`` when centred.
"""
from __future__ import annotations

import math
from typing import List, Optional

import numpy as np
import pandas as pd
import matplotlib.transforms as mtransforms
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.collections import PatchCollection

from .._algorithms.grids import float_values
from .._algorithms.rformat import r_as_character
from ._common import (PT as _PT, POINT_S as _POINT_S, boxplot, discrete_axis, lab_colormap, literal, outer_labels,
                      rows_by_text, rows_of, unstick, wrap_dims)

__all__ = ["plot_feature_effect", "plot_feature_effects", "y_axis_label", "GGPLOT_FILL"]

#: ggplot2's default continuous fill scale (``scale_fill_continuous``): dark to light blue,
#: interpolated in CIE Lab as ggplot does.
GGPLOT_FILL = lab_colormap("ggplot_fill", "#132B43", "#56B1F7")
_HAT_Y = r"$\hat{y}$"
_RUG_Z = 2.5


def y_axis_label(fe) -> str:
    """iml's y-axis (or fill legend) title of a FeatureEffect plot."""
    if fe.center_at is not None:
        return f"Prediction centered at x = {r_as_character(float(fe.center_at))}"
    y_names = fe.predictor.data.y_names
    if fe.method == "ale":
        if y_names and fe.n_features == 1:
            return "ALE of " + ", ".join(literal(y) for y in y_names)
        return "ALE"
    if y_names and fe.n_features == 1:
        return "Predicted " + ", ".join(literal(y) for y in y_names)
    return _HAT_Y


def _facet_grid(fig: Figure, spec, n: int):
    """Axes for n facets inside ``spec`` (ggplot's facet_wrap layout), sharing x and y."""
    nrow, ncol = wrap_dims(n)
    sub = spec.subgridspec(nrow, ncol)
    axes = []
    for i in range(n):
        kw = {"sharex": axes[0], "sharey": axes[0]} if axes else {}
        axes.append(fig.add_subplot(sub[i // ncol, i % ncol], **kw))
    return axes


def _classes(res: pd.DataFrame) -> list:
    c = res[".class"]
    return list(c.cat.categories) if isinstance(c.dtype, pd.CategoricalDtype) else list(dict.fromkeys(c))


def _jitter(values: np.ndarray, width: float, seed: int) -> np.ndarray:
    if width == 0 or values.size == 0:
        return values
    rng = np.random.default_rng(seed)
    return values + rng.uniform(-width, width, size=values.size)


def _cat_feature(fe) -> str:
    """The categorical feature of a numerical x categorical effect."""
    return fe.feature_name[0] if fe.feature_type[0] == "categorical" else fe.feature_name[1]


def _levels(col: pd.Series) -> list:
    """The x-axis categories ggplot shows: factor levels that occur (level order), else sorted values."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = set(col.dropna().tolist())
        return [c for c in col.cat.categories if c in present]
    return sorted(pd.unique(col.dropna()).tolist(), key=lambda v: (str(type(v)), v))


def _rug(ax, values: np.ndarray, axis: str, width: float, seed: int) -> None:
    """Ticks of the data values along the bottom (x) or left (y) edge (ggplot's geom_rug)."""
    from matplotlib.collections import LineCollection

    vals = _jitter(np.asarray(values, dtype=float), width, seed)
    segs = np.zeros((vals.size, 2, 2))        # one tick per value, (value, 0) to (value, 0.03)
    j, k = (0, 1) if axis == "x" else (1, 0)
    segs[:, :, j] = vals[:, None]
    segs[:, 1, k] = 0.03
    trans = ax.get_xaxis_transform() if axis == "x" else ax.get_yaxis_transform()
    # ggplot's rug is the last layer (drawn over lines and bars): zorder above Line2D's 2
    ax.add_collection(LineCollection(segs, colors="black", alpha=0.2, linewidths=0.5 * _PT, transform=trans,
                                     zorder=_RUG_Z), autolim=False)
    _train(ax, axis, vals)


def _train(ax, axis: str, values: np.ndarray) -> None:
    """Widen the ``axis`` data limits to cover ``values``, as a ggplot layer's data train its
    scales (the rug's data values, also beyond user grid points)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return
    pts = np.zeros((2, 2))
    j = 0 if axis == "x" else 1
    pts[:, j] = (v.min(), v.max())
    ax.update_datalim(pts, updatex=axis == "x", updatey=axis == "y")
    ax.autoscale_view()


def _numeric_width(fe, j: int, x: np.ndarray) -> float:
    """The rug's jitter width. iml: 1% of the range only for type "numerical" (integer gets
    0.07, §18.5 — kept as iml draws it). The range is that of the finite values, computed
    without overflow near the largest doubles (R's width is then infinite and its jitter
    turns every tick into NaN, so ggplot drops the whole rug)."""
    if fe.feature_type[j] == "numerical" and x.size:
        v = x[np.isfinite(x)]
        if not v.size:
            return 0.0
        lo, hi = float(v.min()), float(v.max())
        w = 0.01 * (hi - lo)
        return w if np.isfinite(w) else 0.01 * hi - 0.01 * lo
    return 0.07


# ---------------------------------------------------------------------------- one feature
def _draw_1d(fig, ax, fe, res: pd.DataFrame, rug: bool, ylim, ylabel: Optional[str], y_range=None):
    f = fe.feature_name[0]
    data_x = fe.predictor.data.X[f]
    if fe.feature_type[0] == "categorical":
        levels = _levels(res[f])
        pos = discrete_axis(ax, "x", levels)
        if fe.method in ("ice", "pdp+ice"):
            ice = res[res[".type"] == "ice"]
            rows = rows_by_text(ice[f])
            values = ice[".value"].to_numpy()
            groups = [values[rows.get(s, np.empty(0, dtype=np.intp))] for s in pos]
            boxplot(ax, groups, list(pos.values()))
        else:
            xs = np.array([pos[str(v)] for v in res[f]])
            unstick(ax.bar(xs, res[".value"].to_numpy(dtype=float), width=0.9, color="#595959"))
        if rug:
            codes = np.array([pos.get(str(v), np.nan) for v in data_x])
            _rug(ax, codes[~np.isnan(codes)], "x", 0.07, 1)
    else:
        if fe.method in ("ice", "pdp+ice"):
            # iml: geom_line(group = .id) over all rows, so the PDP rows (.id NA) are one more
            # thin line, after the ICE lines
            ids = res[".id"].to_numpy(dtype=float, na_value=np.nan)
            ids[np.isnan(ids)] = (np.nanmax(ids) if np.isfinite(ids).any() else 0.0) + 1.0
            x = res[f].to_numpy(dtype=float)
            y = res[".value"].to_numpy(dtype=float)
            order = np.lexsort((x, ids))
            ids, x, y = ids[order], x[order], y[order]
            cuts = np.flatnonzero(np.diff(ids)) + 1
            segs = [np.column_stack(p) for p in zip(np.split(x, cuts), np.split(y, cuts))]
            from matplotlib.collections import LineCollection

            ax.add_collection(LineCollection(segs, colors="black", alpha=0.2, linewidths=0.5 * _PT))
            ax.autoscale_view()
        curve = res[res[".type"] != "ice"]
        # geom_line joins the points in x order (user grid points may come in any order)
        curve = curve.iloc[np.argsort(curve[f].to_numpy(dtype=float), kind="stable")]
        if fe.method == "pdp+ice":
            ax.plot(curve[f].to_numpy(dtype=float), curve[".value"].to_numpy(dtype=float), color="gold",
                    linewidth=2 * _PT)
        elif fe.method in ("ale", "pdp"):
            ax.plot(curve[f].to_numpy(dtype=float), curve[".value"].to_numpy(dtype=float), color="black",
                    linewidth=0.5 * _PT)
        if rug:
            xv = float_values(data_x)
            _rug(ax, xv, "x", _numeric_width(fe, 0, xv), 1)
    ax.set_xlabel(literal(f))
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if ylim is not None:
        ax.set_ylim(*_expand(ylim, y_range if y_range is not None else _value_range(fe, res)))


def _value_range(fe, res: pd.DataFrame):
    """The range a 1-D effect's y scale is trained on: every ``.value`` of ``res`` (all classes:
    the facets share one scale), and 0 for bars, whose ``ymin`` is 0."""
    vals = res[".value"].to_numpy(dtype=float)
    if fe.feature_type[0] == "categorical" and fe.method not in ("ice", "pdp+ice"):
        vals = np.append(vals, 0.0)
    return float(np.nanmin(vals)), float(np.nanmax(vals))


# ---------------------------------------------------------------------------- two features
def _rects(ax, res, x_left, x_right, y_a, y_b, value):
    patches = [Rectangle((l, min(a, b)), r - l, abs(b - a)) for l, r, a, b in zip(x_left, x_right, y_a, y_b)]
    pc = PatchCollection(patches, cmap=GGPLOT_FILL, linewidth=0)
    pc.set_array(np.asarray(value, dtype=float))
    ax.add_collection(pc)
    ax.autoscale_view()
    return pc


def _draw_2d(fig, ax, fe, res: pd.DataFrame, rug: bool, show_data: bool, label: str):
    f1, f2 = fe.feature_name
    t1, t2 = fe.feature_type
    X = fe.predictor.data.X
    mappable = None
    if fe.method == "ale":
        if "categorical" in (t1, t2):
            fcat = f1 if t1 == "categorical" else f2
            fnum = f2 if fcat == f1 else f1
            levels = list(res[fcat].cat.categories)
            mappable = _rects(ax, res, res[".left"], res[".right"], res[".bottom"], res[".top"], res[".ale"])
            # the rectangles' x scale is continuous in iml (labelled breaks at 1..K)
            discrete_axis(ax, "x", levels, expand=False)
            ax.set_xlabel(literal(fcat))
            ax.set_ylabel(literal(fnum))
            codes = pd.Categorical(X[fcat].astype(object), categories=levels).codes.astype(float) + 1
            ok = codes > 0
            if rug:
                _rug(ax, codes[ok], "x", 0.07, 1)
                _rug(ax, float_values(X[fnum])[ok], "y", 0.07, 2)
            if show_data:   # iml: after the rug; at the categories' positions in ALE order
                ax.scatter(codes[ok], float_values(X[fnum])[ok], s=_POINT_S, color="black", alpha=0.3,
                           linewidths=0, zorder=_RUG_Z + 0.1)
            return mappable
        mappable = _rects(ax, res, res[".left"], res[".right"], res[".bottom"], res[".top"], res[".ale"])
    elif (t1 == "categorical") == (t2 == "categorical"):
        if t1 == "categorical":
            lv1, lv2 = _levels(res[f1]), _levels(res[f2])
            p1, p2 = discrete_axis(ax, "x", lv1), discrete_axis(ax, "y", lv2)
            xs = np.array([p1[str(v)] for v in res[f1]], dtype=float)
            ys = np.array([p2[str(v)] for v in res[f2]], dtype=float)
            w = h = 1.0
        else:
            xs = res[f1].to_numpy(dtype=float)
            ys = res[f2].to_numpy(dtype=float)
            w = _resolution(xs)
            h = _resolution(ys)
        mappable = _rects(ax, res, xs - w / 2, xs + w / 2, ys - h / 2, ys + h / 2, res[".value"])
    else:
        fcat = f1 if t1 == "categorical" else f2
        fnum = f2 if fcat == f1 else f1
        levels = _levels(res[fcat])
        colors = _hue_colors(len(levels))
        rows = rows_by_text(res[fcat])
        for lv, col in zip(levels, colors):
            sub = rows_of(res, rows, lv)
            sub = sub.sort_values(fnum, kind="stable")
            ax.plot(sub[fnum].to_numpy(dtype=float), sub[".value"].to_numpy(dtype=float), color=col, label=literal(lv))
        ax.set_xlabel(literal(fnum))
        ax.set_ylabel(label)
        if rug:
            xv = float_values(X[fnum])
            # iml: the jitter width follows the *first* feature's type (0.07 when it is the
            # categorical one, else 1% of the numerical feature's range)
            _rug(ax, xv, "x", _numeric_width(fe, 0, xv), 1)
        return None
    ax.set_xlabel(literal(f1))
    ax.set_ylabel(literal(f2))
    if rug or show_data:
        xv = _axis_values(X[f1], res[f1]) if t1 == "categorical" else float_values(X[f1])
        yv = _axis_values(X[f2], res[f2]) if t2 == "categorical" else float_values(X[f2])
    if show_data:   # iml: the data points between the tiles and the rug
        ok = ~(np.isnan(xv) | np.isnan(yv))
        ax.scatter(xv[ok], yv[ok], s=_POINT_S, color="black", alpha=0.3, linewidths=0)
    if rug:
        xr, yr = xv[~np.isnan(xv)], yv[~np.isnan(yv)]
        # both rugs: 1% of the range when the *first* feature is "numerical", else 0.07 (iml)
        _rug(ax, xr, "x", _numeric_width(fe, 0, xr), 1)
        if t1 != t2:
            # iml: features of different types (integer and numerical) get a rug on the bottom
            # only (sides "b", no vertical jitter); the rug's y values still train the y scale
            _train(ax, "y", yr)
        else:
            _rug(ax, yr, "y", _numeric_width(fe, 0, yr), 2)
    return mappable


def _axis_values(data_col: pd.Series, res_col: pd.Series) -> np.ndarray:
    """Positions 1..K of the data's values on a discrete axis of ``res_col``'s levels (NaN for
    values that are not on the axis)."""
    levels = _levels(res_col)
    pos = {str(v): i for i, v in enumerate(levels, start=1)}
    return np.array([pos.get(str(v), np.nan) for v in data_col], dtype=float)


def _resolution(v: np.ndarray) -> float:
    u = np.unique(v[np.isfinite(v)])
    if u.size < 2:
        return 1.0
    return float(np.min(np.diff(u)))


def _hue_colors(n: int) -> List[str]:
    """ggplot2's default discrete hues (``scale_colour_hue``: l = 65, c = 100, from 15°)."""
    hues = np.linspace(15, 375, n + 1)[:-1] % 360
    out = []
    for h in hues:
        # HCL → sRGB via CIE-Luv (as grDevices::hcl does)
        L, C = 65.0, 100.0
        u, v = C * math.cos(math.radians(h)), C * math.sin(math.radians(h))
        Y = ((L + 16) / 116) ** 3
        un, vn = 0.1978398, 0.4683363
        up, vp = u / (13 * L) + un, v / (13 * L) + vn
        X = 9.0 * Y * up / (4 * vp)
        Z = -X / 3 - 5 * Y + 3 * Y / vp
        r = 3.240479 * X - 1.537150 * Y - 0.498535 * Z
        g = -0.969256 * X + 1.875992 * Y + 0.041556 * Z
        b = 0.055648 * X - 0.204043 * Y + 1.057311 * Z

        def gam(c):
            c = min(max(c, 0.0), 1.0)
            return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055

        out.append("#%02x%02x%02x" % tuple(int(round(255 * gam(c))) for c in (r, g, b)))
    return out


# ---------------------------------------------------------------------------- entry points
def _expand(limits, data_range):
    """The y range ggplot shows for scale limits ``(lo, hi)``: a missing side (None or NaN) is
    the data's (``data_range``, the range the y scale was trained on), then 5% more on each side
    (0.05 each side for a zero range)."""
    lo, hi = (d if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
              for v, d in zip(limits, data_range))
    pad = 0.05 * (hi - lo if hi != lo else 1.0)
    return lo - pad, hi + pad


def _draw_effect(fig: Figure, spec, fe, rug: bool, show_data: bool, ylim, ylabel: Optional[str] = "auto",
                 whole_figure: bool = False):
    """Draw one FeatureEffect into ``spec`` (facets per class; ``whole_figure``: they fill the
    figure); returns the axes."""
    res = fe.results
    label = y_axis_label(fe)
    if ylabel == "auto":
        ylabel = label
    multi = ".class" in res.columns
    classes = _classes(res) if multi else [None]
    axes = _facet_grid(fig, spec, len(classes))
    mappables = []
    y_range = _value_range(fe, res) if fe.n_features == 1 and ylim is not None else None
    rows = rows_by_text(res[".class"]) if multi else None
    for ax, cl in zip(axes, classes):
        sub = res if cl is None else rows_of(res, rows, cl)
        if fe.n_features == 1:
            _draw_1d(fig, ax, fe, sub, rug, ylim, ylabel, y_range)
        else:
            m = _draw_2d(fig, ax, fe, sub, rug, show_data, label)
            if m is not None:
                mappables.append(m)
        if cl is not None:
            ax.set_title(literal(cl), fontsize=9)
        ax.grid(True, color="0.92")
        ax.set_axisbelow(True)
    if len(axes) > 1:
        outer_labels(axes, wrap_dims(len(axes))[1], whole_figure=whole_figure)
    lines = axes[-1].get_legend_handles_labels() if fe.n_features == 2 else ([], [])
    if lines[0]:
        # numerical x categorical PDP: one legend of the levels right of the panels (ggplot's
        # colour guide), on the top row's last panel
        axes[min(len(axes), wrap_dims(len(axes))[1]) - 1].legend(
            *lines, title=literal(_cat_feature(fe)), fontsize=7, title_fontsize=8, frameon=False,
            loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    if mappables:
        vals = np.concatenate([np.asarray(m.get_array(), dtype=float) for m in mappables])
        # one scale for every panel; a constant fill gets ggplot's middle colour in each panel
        # (the colour bar would otherwise widen a zero range for the first panel only)
        lo, hi = mtransforms.nonsingular(float(np.nanmin(vals)), float(np.nanmax(vals)), expander=0.1)
        for m in mappables:
            m.set_clim(lo, hi)
        cb = fig.colorbar(mappables[0], ax=axes)
        cb.set_label(label)
    return axes


def plot_feature_effect(fe, rug: bool = True, show_data: bool = False, ylim=None, ax=None) -> Figure:
    """The plot of one :class:`pyiml.FeatureEffect` (see the module docstring)."""
    if ax is not None:
        fig = ax.figure
        spec = ax.get_subplotspec()
        ax.remove()
    else:
        multi = ".class" in fe.results.columns
        n = len(_classes(fe.results)) if multi else 1
        nrow, ncol = wrap_dims(n)
        fig = Figure(figsize=(4.5 * ncol + (1.2 if fe.n_features == 2 else 0), 3.5 * nrow), layout="constrained")
        spec = fig.add_gridspec(1, 1)[0]
    _draw_effect(fig, spec, fe, rug, show_data, ylim, whole_figure=ax is None)
    return fig


def plot_feature_effects(fes, features=None, ncols=None, nrows=None, fixed_y: bool = True,
                         rug: bool = True, show_data: bool = False) -> Figure:
    """A grid of the effects of :class:`pyiml.FeatureEffects` (patchwork's ``wrap_plots``).

    With ``fixed_y`` all panels share the y range of all ``.value`` columns; panel y titles are
    dropped and the first effect's y title becomes the figure title, as in iml.
    """
    # iml: `if (length(features) > 0)` selects, so an empty selection plots every feature
    feats = list(features) if features is not None and len(features) > 0 else list(fes.features)
    n = len(feats)
    nrows, ncols = wrap_dims(n, nrows, ncols)
    ylim = None
    if fixed_y:
        vals = np.concatenate([fes.effects[f].results[".value"].to_numpy(dtype=float) for f in feats])
        ylim = (float(np.nanmin(vals)), float(np.nanmax(vals)))
    fig = Figure(figsize=(3.6 * ncols, 3.0 * nrows + 0.4), layout="constrained")
    gs = fig.add_gridspec(nrows, ncols)
    for i, f in enumerate(feats):
        _draw_effect(fig, gs[i // ncols, i % ncols], fes.effects[f], rug, show_data, ylim, ylabel=None)
    fig.suptitle(y_axis_label(fes.effects[feats[0]]))
    return fig
