"""The geometry of pyiml's plots against iml's ggplot layers, built live in R (marker ``r``).

For every plot variant the same object is computed in pyiml and in iml (through
``r_bridge``); R's ``ggplot2::ggplot_build(plot(obj))$data`` gives per layer the geom and its
coordinates (``x``, ``y``, ``xmin``/``xmax``/``ymin``/``ymax``, boxplot statistics, groups, panels),
and the matplotlib Figure's artists give pyiml's (Line2D data, LineCollection segments,
Rectangle / PatchCollection extents, PathCollection offsets, boxplot parts, rug ticks). Both are
reduced to the same description per panel: lines (one per group, as ``geom_line`` draws them in x
order; segments as two-point lines), rectangles ``(xmin, xmax, ymin, ymax)``, points, boxplots
``(xmin, xmax, whisker low, lower, middle, upper, whisker high)`` with their outliers, and rugs.
The layers must come in iml's order (pyiml's artists in matplotlib's drawing order). Numbers
agree to 1e-10 of their scale, fill colours to one 8-bit step; ggplot's ``coord_flip`` swaps x and
y; discrete axes sit at ggplot's positions 1..K on both sides. Rugs are jittered at random by ggplot (and with a fixed seed
by pyiml): they are compared by count, by the jitter width (iml's ``position_jitter`` parameters)
and by every tick lying within that width of its data value.

``FeatureEffects$plot()`` needs the patchwork package, which the project does not install: its
panels are compared one by one with iml's own ``effects[[f]]$plot(ylim = ylim)``, the calls
``FeatureEffects$plot(fixed_y = TRUE)`` makes before handing them to patchwork.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PatchCollection, PathCollection
from matplotlib.lines import Line2D
from matplotlib.patches import PathPatch, Rectangle

from pyiml import (FeatureEffect, FeatureEffects, FeatureImp, Interaction, LocalModel, Predictor, RRandom, Shapley,
                   TreeSurrogate)

pytestmark = pytest.mark.r

# ---------------------------------------------------------------------------- data and models
N = 30


def _data() -> pd.DataFrame:
    """Two numerical and two categorical features; ``c1`` follows ``x1`` (high: "a", low: "b"),
    so ALE orders its levels b, c, a rather than alphabetically."""
    rng = np.random.default_rng(7)
    x1 = np.round(rng.uniform(0, 10, N), 2)
    c1 = np.where(x1 < 3, "b", np.where(x1 < 6.5, "c", "a"))
    flip = rng.uniform(size=N) < 0.15
    c1[flip] = rng.choice(["a", "b", "c"], flip.sum())
    return pd.DataFrame({
        "x1": x1,
        "x2": np.round(rng.normal(size=N), 2),
        "c1": pd.Categorical(c1, categories=["a", "b", "c"]),
        "c2": pd.Categorical(rng.choice(["u", "v"], N), categories=["u", "v"]),
    })


X = _data()


def _score(d: pd.DataFrame) -> np.ndarray:
    x1, x2 = d["x1"].to_numpy(dtype=float), d["x2"].to_numpy(dtype=float)
    c1, c2 = np.asarray(d["c1"].astype(str)), np.asarray(d["c2"].astype(str))
    return x1 + 2 * x2 + 3 * (c1 == "b") - 2 * (c1 == "c") + 0.1 * x1 * x2 + 0.5 * x1 * (c2 == "v")


def f(d: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"pred": _score(d)})


def f_multi(d: pd.DataFrame) -> pd.DataFrame:
    p = 1 / (1 + np.exp(-(_score(d) - 6) / 4))
    return pd.DataFrame({"yes": p, "no": 1 - p})


def f_sharp(d: pd.DataFrame) -> pd.DataFrame:
    """Two classes decided by x1 alone: the surrogate tree's leaves are pure."""
    p = 1 / (1 + np.exp(-3 * (d["x1"].to_numpy(dtype=float) - 5)))
    return pd.DataFrame({"yes": p, "no": 1 - p})


_SCORE_R = ("(newdata$x1 + 2 * newdata$x2 + 3 * (newdata$c1 == 'b') - 2 * (newdata$c1 == 'c') + "
            "0.1 * newdata$x1 * newdata$x2 + 0.5 * newdata$x1 * (newdata$c2 == 'v'))")
F_R = f"function(newdata) data.frame(pred = {_SCORE_R})"
F_MULTI_R = f"function(newdata) {{ p <- 1 / (1 + exp(-({_SCORE_R} - 6) / 4)); data.frame(yes = p, no = 1 - p) }}"
F_SHARP_R = "function(newdata) { p <- 1 / (1 + exp(-3 * (newdata$x1 - 5))); data.frame(yes = p, no = 1 - p) }"
Y = pd.Series(_score(X) + np.round(np.sin(np.arange(N)), 2), name="y")


@pytest.fixture(scope="module")
def preds(r):
    """pyiml and iml predictors of the same closed-form models (with the target ``y``)."""
    from r_bridge import RFunction
    from r_bridge import iml as riml

    return {
        "one": (Predictor(predict_function=f, data=X, y=Y), riml.r_predictor(data=X, y=Y, model=RFunction(F_R))),
        "multi": (Predictor(predict_function=f_multi, data=X),
                  riml.r_predictor(data=X, model=RFunction(F_MULTI_R))),
        "sharp": (Predictor(predict_function=f_sharp, data=X), riml.r_predictor(data=X, model=RFunction(F_SHARP_R))),
    }


# ---------------------------------------------------------------------------- R side
_R_GEOMS = r"""function(p) {
  b <- ggplot2::ggplot_build(p)
  cols <- c("x", "y", "xmin", "xmax", "ymin", "ymax", "xend", "yend", "lower", "middle", "upper", "group", "PANEL")
  layers <- lapply(seq_along(b$data), function(i) {
    d <- b$data[[i]]
    lay <- p$layers[[i]]
    num <- lapply(d[intersect(cols, names(d))], function(v) as.numeric(unclass(v)))
    pos <- lay$position
    list(geom = class(lay$geom)[1],
         data = as.data.frame(num),
         colour = if (is.null(d$colour)) character(0) else as.character(d$colour),
         alpha = if (is.null(d$alpha)) numeric(0) else as.numeric(d$alpha),
         fill = if (is.null(d$fill)) numeric(0) else as.numeric(t(grDevices::col2rgb(d$fill)) / 255),
         jitter = c(if (is.null(pos$width)) NA_real_ else pos$width, if (is.null(pos$height)) NA_real_ else pos$height),
         sides = if (is.null(lay$geom_params$sides)) "" else lay$geom_params$sides,
         outliers = if (is.null(d$outliers)) list() else lapply(d$outliers, as.numeric))
  })
  lay <- b$layout$layout
  facet <- setdiff(names(lay), c("PANEL", "ROW", "COL", "SCALE_X", "SCALE_Y"))
  pp <- b$layout$panel_params[[1]]
  list(flip = inherits(p$coordinates, "CoordFlip"), layers = layers,
       vertical_labels = as.character(pp$y$get_labels()),
       y_range = if (is.null(pp$y.range)) numeric(0) else as.numeric(pp$y.range),
       panels = as.numeric(lay$PANEL),
       facets = if (length(facet)) as.character(lay[[facet[1]]]) else character(0))
}"""


def _vec(v) -> np.ndarray:
    return np.atleast_1d(np.asarray(v if v is not None else [], dtype=float))


def r_geometry(r, code: str, **objects) -> dict:
    """The geometry of the ggplot that R ``code`` returns: ``{panel label: description}`` (label
    "" without facets), the list of geoms in layer order and the y range of the first panel.
    For a list of ggplots, a list of those."""
    from r_bridge import convert
    from r_bridge.iml import ImlObject

    env = {k: (v.r_object if isinstance(v, ImlObject) else v) for k, v in objects.items()}
    p = r.r_eval(code, **env)
    if str(p.rclass[0]) == "list":
        return [_r_describe(convert.r2py(r.r_call(_R_GEOMS, q))) for q in p]
    return _r_describe(convert.r2py(r.r_call(_R_GEOMS, p)))


def _r_describe(out: dict) -> dict:
    flip = bool(out["flip"])
    facets = [str(v) for v in np.atleast_1d(out["facets"])] if len(np.atleast_1d(out["facets"])) else [""]
    panels = {label: _empty() for label in facets}
    geoms = []
    for lay in out["layers"]:
        geom = str(lay["geom"])
        geoms.append(geom)
        d = lay["data"]
        if flip:
            d = d.rename(columns={"x": "y", "y": "x", "xmin": "ymin", "xmax": "ymax", "ymin": "xmin", "ymax": "xmax",
                                  "xend": "yend", "yend": "xend"})
        colour = np.atleast_1d(lay["colour"]).astype(str)
        alpha = _vec(lay["alpha"])
        outl = lay["outliers"] if isinstance(lay["outliers"], list) else []
        for k, label in enumerate(facets):
            sel = (d["PANEL"].to_numpy() == k + 1)
            sub = d[sel].reset_index(drop=True)
            desc = panels[label]
            if geom == "GeomLine":
                for g in sorted(set(sub["group"].tolist())):       # ggplot draws groups in order
                    rows = sub[sub["group"] == g].sort_values("x", kind="stable")
                    idx = np.flatnonzero(sel)[rows.index.to_numpy()]
                    desc["lines"].append(dict(x=rows["x"].to_numpy(), y=rows["y"].to_numpy(), colour=colour[idx[0]],
                                              alpha=alpha[idx[0]] if alpha.size else np.nan, layer=len(geoms) - 1))
            elif geom == "GeomSegment":
                for _, row in sub.iterrows():
                    desc["lines"].append(dict(x=np.array([row["x"], row["xend"]]), y=np.array([row["y"], row["yend"]]),
                                              colour="", alpha=np.nan, layer=len(geoms) - 1))
            elif geom in ("GeomCol", "GeomBar", "GeomRect", "GeomTile"):
                desc["rects"].append(_rects(sub["xmin"], sub["xmax"], sub["ymin"], sub["ymax"]))
                desc["fills"].append(_vec(lay["fill"]).reshape(3, -1).T[sel])
            elif geom == "GeomPoint":
                desc["points"].append(np.column_stack([sub["x"], sub["y"]]))
            elif geom == "GeomBoxplot":
                desc["boxes"].append(np.column_stack([sub[c] for c in ("xmin", "xmax", "ymin", "lower", "middle",
                                                                        "upper", "ymax")]))
                desc["outliers"].append([np.sort(_vec(outl[i])) for i in np.flatnonzero(sel)])
            elif geom == "GeomRug":
                sides = str(lay["sides"])
                w, h = _vec(lay["jitter"])
                desc["rug_x"].append((sub["x"].to_numpy(), w))
                if "l" in sides:
                    desc["rug_y"].append((sub["y"].to_numpy(), h))
            else:  # pragma: no cover - a geom this test does not know
                raise AssertionError(f"unexpected geom {geom}")
    return {"panels": panels, "geoms": geoms, "y_range": _vec(out["y_range"]),
            "vertical_labels": [str(v) for v in np.atleast_1d(out["vertical_labels"])]}


def _empty() -> dict:
    return {"lines": [], "rects": [], "fills": [], "points": [], "boxes": [], "outliers": [], "rug_x": [],
            "rug_y": []}


def _rects(xmin, xmax, ymin, ymax) -> np.ndarray:
    a = np.column_stack([np.asarray(v, dtype=float) for v in (xmin, xmax, ymin, ymax)])
    return np.column_stack([np.minimum(a[:, 0], a[:, 1]), np.maximum(a[:, 0], a[:, 1]),
                            np.minimum(a[:, 2], a[:, 3]), np.maximum(a[:, 2], a[:, 3])])


# ---------------------------------------------------------------------------- pyiml side
def py_geometry(fig) -> dict:
    """The same description of a pyiml Figure: ``{panel title: description}`` (colour bars
    skipped; "" for a figure with one panel)."""
    axes = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    panels = {}
    for ax in axes:
        label = ax.get_title() if len(axes) > 1 else ""
        assert label not in panels, f"two panels titled {label!r}"
        panels[label] = _py_describe(ax)
    return panels


def _draw_order(ax) -> list:
    kids = [a for a in ax.get_children() if isinstance(a, (Line2D, LineCollection, PatchCollection, PathCollection,
                                                           Rectangle, PathPatch)) and a is not ax.patch]
    kids = [a for a in kids if not (isinstance(a, Rectangle) and a in ax.spines.values())]
    return sorted(kids, key=lambda a: a.get_zorder())       # stable: matplotlib's drawing order


def _py_describe(ax) -> dict:
    desc = _empty()
    desc["order"] = []
    arts = _draw_order(ax)
    boxes = [a for a in arts if isinstance(a, PathPatch)]
    box_parts = []
    for a in arts:
        if isinstance(a, LineCollection):
            trans = a.get_transform()
            segs = [np.asarray(s, dtype=float) for s in a.get_segments()]
            if trans is ax.get_xaxis_transform():
                desc["rug_x"].append(np.array([s[0, 0] for s in segs]))
                desc["order"].append("rug")
            elif trans is ax.get_yaxis_transform():
                desc["rug_y"].append(np.array([s[0, 1] for s in segs]))
                desc["order"].append("rug")
            else:
                colour = matplotlib.colors.to_hex(a.get_edgecolor()[0]) if len(a.get_edgecolor()) else ""
                for s in segs:
                    desc["lines"].append(dict(x=s[:, 0], y=s[:, 1], colour=colour, alpha=a.get_alpha(), artist=a))
                desc["order"].append("lines")
        elif isinstance(a, PathPatch):
            if desc["order"][-1:] != ["boxes"]:
                desc["order"].append("boxes")
        elif isinstance(a, Line2D):
            if boxes:
                box_parts.append(a)
                continue
            desc["lines"].append(dict(x=np.asarray(a.get_xdata(), dtype=float), y=np.asarray(a.get_ydata(), dtype=float),
                                      colour=matplotlib.colors.to_hex(a.get_color()), alpha=a.get_alpha(), artist=a))
            desc["order"].append("lines")
        elif isinstance(a, PatchCollection):
            ext = [p.vertices for p in a.get_paths()]
            desc["rects"].append(_rects([v[:, 0].min() for v in ext], [v[:, 0].max() for v in ext],
                                        [v[:, 1].min() for v in ext], [v[:, 1].max() for v in ext]))
            desc["fills"].append(a.to_rgba(a.get_array())[:, :3] if a.get_array() is not None
                                 else a.get_facecolor()[:, :3])
            desc["order"].append("rects")
        elif isinstance(a, PathCollection):
            desc["points"].append(np.asarray(a.get_offsets(), dtype=float))
            desc["order"].append("points")
        elif isinstance(a, Rectangle):
            x0, y0, w, h = a.get_x(), a.get_y(), a.get_width(), a.get_height()
            if desc["order"][-1:] != ["rects"]:
                desc["rects"].append(np.empty((0, 4)))
                desc["fills"].append(np.empty((0, 3)))
                desc["order"].append("rects")
            desc["rects"][-1] = np.vstack([desc["rects"][-1], _rects([x0], [x0 + w], [y0], [y0 + h])])
            desc["fills"][-1] = np.vstack([desc["fills"][-1], np.asarray(a.get_facecolor())[:3]])
    if boxes:
        desc["boxes"], desc["outliers"] = _py_boxes(boxes, box_parts)
    return desc


def _py_boxes(boxes, parts):
    """Boxplots from their artists: box patches, vertical whiskers, horizontal medians, fliers."""
    rows, outliers = [], []
    whiskers = [p for p in parts if p.get_linestyle() != "None" and np.ptp(p.get_xdata()) == 0]
    medians = [p for p in parts if p.get_linestyle() != "None" and np.ptp(p.get_xdata()) > 0]
    fliers = [p for p in parts if p.get_linestyle() == "None"]
    assert len(whiskers) == 2 * len(boxes) and len(medians) == len(boxes) and len(fliers) in (0, len(boxes)), \
        "boxplot artists: 2 whiskers, 1 median (no caps) per box"
    for i, b in enumerate(boxes):
        v = b.get_path().vertices
        xmin, xmax, lower, upper = v[:, 0].min(), v[:, 0].max(), v[:, 1].min(), v[:, 1].max()
        wl, wu = whiskers[2 * i].get_ydata(), whiskers[2 * i + 1].get_ydata()
        med = medians[i].get_ydata()[0]
        assert np.allclose(medians[i].get_xdata(), [xmin, xmax])
        rows.append([xmin, xmax, min(wl), lower, med, upper, max(wu)])
        outliers.append(np.sort(np.asarray(fliers[i].get_ydata(), dtype=float)) if fliers else np.empty(0))
    return np.array(rows), outliers


# ---------------------------------------------------------------------------- comparison
def _close(a, b, what: str, tol: float = 1e-10) -> None:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, f"{what}: shape {a.shape} (pyiml) vs {b.shape} (iml)"
    scale = max(1.0, float(np.nanmax(np.abs(b)))) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=0, atol=tol * scale, err_msg=what)


def _check_rug(py_vals: list, r_vals: list, data: list, what: str) -> None:
    """As many ticks as iml's, each within iml's jitter width of its data value (and pyiml's
    jitter spreads over that width)."""
    assert len(py_vals) == len(r_vals), f"{what}: {len(py_vals)} rug layers (pyiml) vs {len(r_vals)} (iml)"
    for pv, (rv, width), dv in zip(py_vals, r_vals, data):
        dv = np.asarray(dv, dtype=float)
        assert len(pv) == len(rv) == len(dv), f"{what}: rug of {len(pv)} ticks (pyiml) vs {len(rv)} (iml)"
        tol = 1e-9 * max(1.0, float(np.max(np.abs(dv))))
        dev = np.abs(pv - dv)
        assert np.all(dev <= width + tol), f"{what}: pyiml's rug jitter exceeds iml's width {width}: {dev.max()}"
        if width > 0:
            assert dev.max() > 0.5 * width, f"{what}: pyiml's rug jitter is narrower than iml's width {width}"


_KIND = {"GeomLine": "lines", "GeomSegment": "lines", "GeomCol": "rects", "GeomBar": "rects", "GeomRect": "rects",
         "GeomTile": "rects", "GeomPoint": "points", "GeomBoxplot": "boxes", "GeomRug": "rug"}


def _runs(kinds) -> list:
    return [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]


def compare(py: dict, r: dict, rug_data=None, r_rug_data=None) -> None:
    """Assert that every panel of ``py`` draws what the panel of iml's plot ``r`` draws, in
    iml's layer order.

    ``rug_data``: ``{"x": values, "y": values}`` the data values under the rug ticks (before
    jitter), the same for every panel; ``r_rug_data`` those of iml's rug where they differ.
    """
    assert set(py) == set(r["panels"]), f"panels {sorted(py)} (pyiml) vs {sorted(r['panels'])} (iml)"
    for label, rd in r["panels"].items():
        pd_ = py[label]
        where = f"panel {label!r}" if label else "plot"
        r_kinds = _runs([_KIND[g] for g in r["geoms"]
                         if _KIND[g] != "rug" or rd["rug_x"] or rd["rug_y"]])
        assert _runs(pd_["order"]) == r_kinds, f"{where}: layers {_runs(pd_['order'])} (pyiml) vs {r_kinds} (iml)"
        # lines: one per group, in iml's layer and group order
        assert len(pd_["lines"]) == len(rd["lines"]), \
            f"{where}: {len(pd_['lines'])} lines (pyiml) vs {len(rd['lines'])} (iml)"
        for i, (pl, rl) in enumerate(zip(pd_["lines"], rd["lines"])):
            _close(pl["x"], rl["x"], f"{where}: line {i} x")
            _close(pl["y"], rl["y"], f"{where}: line {i} y")
        # rectangles (bars, tiles, ALE cells)
        assert len(pd_["rects"]) == len(rd["rects"]), \
            f"{where}: {len(pd_['rects'])} rectangle layers (pyiml) vs {len(rd['rects'])} (iml)"
        for i, (pr, rr, pf, rf) in enumerate(zip(pd_["rects"], rd["rects"], pd_["fills"], rd["fills"])):
            _close(pr, rr, f"{where}: rectangles of layer {i} (xmin, xmax, ymin, ymax)")
            # fill colours (ggplot's are 8-bit sRGB; its gradients are interpolated in CIE Lab)
            _close(pf, rf, f"{where}: fill colours of layer {i} (r, g, b)", tol=1.0 / 255)
        assert len(pd_["points"]) == len(rd["points"]), f"{where}: point layers differ"
        for pp, rp in zip(pd_["points"], rd["points"]):
            _close(pp, rp, f"{where}: points")
        assert len(pd_["boxes"]) == sum(len(b) for b in rd["boxes"]), f"{where}: boxplots differ in number"
        if rd["boxes"]:
            _close(pd_["boxes"], np.vstack(rd["boxes"]),
                   f"{where}: boxplots (xmin, xmax, whisker low, lower, middle, upper, whisker high)")
            for po, ro in zip(pd_["outliers"], [o for lay in rd["outliers"] for o in lay]):
                _close(po, ro, f"{where}: boxplot outliers")
        for side in ("x", "y"):
            if rd[f"rug_{side}"] and (rug_data is None or side not in rug_data):
                raise AssertionError("give the rug's data values")
            n = len(rd[f"rug_{side}"])
            data = [rug_data[side]] * n if n else []
            r_data = [(r_rug_data or rug_data)[side]] * n if n else []
            for rv, dv in zip(rd[f"rug_{side}"], r_data):       # iml's ticks: its data values, jittered
                _check_rug([rv[0]], [rv], [dv], f"{where}: iml's rug on {side}")
            _check_rug(pd_[f"rug_{side}"], rd[f"rug_{side}"], data, f"{where}: rug on {side}")


def _codes(col: pd.Series, levels) -> np.ndarray:
    """ggplot's positions 1..K of a categorical column on an axis with ``levels``."""
    return pd.Categorical(col.astype(str), categories=[str(v) for v in levels]).codes.astype(float) + 1


def _fe(preds, key: str, feature, method: str, **kw):
    from r_bridge import iml as riml

    p, rp = preds[key]
    return FeatureEffect(p, feature, method=method, **kw), riml.iml("FeatureEffect", rp, feature=feature, method=method,
                                                                      **kw)


def _levels_of(res: pd.DataFrame, col: str) -> list:
    c = res[col]
    present = set(c.astype(str))
    return [str(v) for v in c.cat.categories if str(v) in present]


# ---------------------------------------------------------------------------- FeatureEffect, one feature
@pytest.mark.parametrize("method", ["ale", "pdp"])
def test_numerical_curve(r, preds, method):
    fe, ro = _fe(preds, "one", "x1", method, grid_size=5)
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["geoms"] == ["GeomLine", "GeomRug"]
    compare(py_geometry(fe.plot()), rg, rug_data={"x": X["x1"]})


@pytest.mark.parametrize("ylim", [(-20.0, 30.0), (4.0, 4.0)])
def test_ylim(r, preds, ylim):
    """``ylim`` are ggplot's scale limits: the axis shows 5% more (0.05 more for a zero range)."""
    fe, ro = _fe(preds, "one", "x1", "ale", grid_size=5)
    rg = r_geometry(r, f"plot(o, ylim = c({ylim[0]}, {ylim[1]}))", o=ro)
    ax = fe.plot(ylim=ylim).axes[0]
    _close(ax.get_ylim(), rg["y_range"], "y range")


@pytest.mark.parametrize("feature,method,ylim", [("x1", "ale", (None, 30.0)), ("x2", "pdp+ice", (-1.0, float("nan"))),
                                                  ("c1", "pdp", (None, 100.0)), ("c1", "ice", (None, 40.0))])
def test_half_open_ylim(r, preds, feature, method, ylim):
    """A missing limit (NA in R) is the range the y scale was trained on: the values, and 0 for
    bars (their ymin); then the 5% expansion on both sides."""
    fe, ro = _fe(preds, "one", feature, method, grid_size=4)
    r_lim = ", ".join("NA" if v is None or np.isnan(v) else repr(v) for v in ylim)
    rg = r_geometry(r, f"plot(o, ylim = c({r_lim}))", o=ro)
    _close(fe.plot(ylim=ylim).axes[0].get_ylim(), rg["y_range"], "y range")


@pytest.mark.parametrize("method,geom", [("ale", "GeomCol"), ("pdp", "GeomCol"),
                                         ("ice", "GeomBoxplot"), ("pdp+ice", "GeomBoxplot")])
def test_categorical_bars_and_boxplots(r, preds, method, geom):
    """A categorical feature: bars (ALE, PDP) or boxplots of the ICE values per level."""
    fe, ro = _fe(preds, "one", "c1", method)
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["geoms"] == [geom, "GeomRug"]
    compare(py_geometry(fe.plot()), rg, rug_data={"x": _codes(X["c1"], _levels_of(fe.results, "c1"))})


@pytest.mark.parametrize("method", ["ice", "pdp+ice"])
def test_ice_lines(r, preds, method):
    fe, ro = _fe(preds, "one", "x2", method, grid_size=4)
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["geoms"] == (["GeomLine", "GeomRug"] if method == "ice" else ["GeomLine", "GeomLine", "GeomRug"])
    fig = fe.plot()
    py = py_geometry(fig)
    compare(py, rg, rug_data={"x": X["x2"]})
    lines, r_lines = py[""]["lines"], rg["panels"][""]["lines"]
    for pl, rl in zip(lines, r_lines):          # thin black ICE lines (alpha 0.2), the PDP in gold
        assert pl["alpha"] == (None if np.isnan(rl["alpha"]) else rl["alpha"])
        assert pl["colour"] == matplotlib.colors.to_hex(rl["colour"])
    if method == "pdp+ice":      # the gold PDP is drawn after (on top of) the ICE lines
        drawn = _draw_order(fig.axes[0])
        assert drawn.index(lines[-1]["artist"]) > drawn.index(lines[0]["artist"])


@pytest.mark.parametrize("method", ["pdp", "ice", "pdp+ice"])
def test_centred(r, preds, method):
    fe, ro = _fe(preds, "one", "x1", method, grid_size=3, center_at=4.0)
    rg = r_geometry(r, "plot(o)", o=ro)
    compare(py_geometry(fe.plot()), rg, rug_data={"x": X["x1"]})


# ---------------------------------------------------------------------------- FeatureEffect, two features
@pytest.mark.parametrize("show_data", [False, True])
def test_ale_2d_numerical(r, preds, show_data):
    fe, ro = _fe(preds, "one", ["x1", "x2"], "ale", grid_size=4)
    rg = r_geometry(r, f"plot(o, show.data = {'TRUE' if show_data else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomRect"] + (["GeomPoint"] if show_data else []) + ["GeomRug"]
    compare(py_geometry(fe.plot(show_data=show_data)), rg, rug_data={"x": X["x1"], "y": X["x2"]})


@pytest.mark.parametrize("show_data", [False, True])
def test_ale_2d_numerical_categorical(r, preds, show_data):
    fe, ro = _fe(preds, "one", ["c1", "x1"], "ale", grid_size=4)
    rg = r_geometry(r, f"plot(o, show.data = {'TRUE' if show_data else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomRect", "GeomRug"] + (["GeomPoint"] if show_data else [])
    levels = list(fe.results["c1"].cat.categories)
    assert levels == ["b", "c", "a"]                   # ALE's order, not the data's
    codes = _codes(X["c1"], levels)
    # iml bug: its rug and data points put the rows at their level's code in the *data's* level
    # order (a 1, b 2, c 3) on an axis whose cells are in ALE order (b 1, c 2, a 3);
    # pyiml puts them in their own category's column (docs/differences.md)
    data_codes = _codes(X["c1"], ["a", "b", "c"])
    if show_data:
        pts = rg["panels"][""]["points"][0]
        _close(pts, np.column_stack([data_codes, X["x1"]]), "iml's data points")
        pts[:, 0] = codes
    compare(py_geometry(fe.plot(show_data=show_data)), rg, rug_data={"x": codes, "y": X["x1"]},
            r_rug_data={"x": data_codes, "y": X["x1"]})


@pytest.mark.parametrize("show_data", [False, True])
def test_pdp_2d_numerical(r, preds, show_data):
    fe, ro = _fe(preds, "one", ["x1", "x2"], "pdp", grid_size=[4, 3])
    rg = r_geometry(r, f"plot(o, show.data = {'TRUE' if show_data else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomTile"] + (["GeomPoint"] if show_data else []) + ["GeomRug"]
    compare(py_geometry(fe.plot(show_data=show_data)), rg, rug_data={"x": X["x1"], "y": X["x2"]})


@pytest.mark.parametrize("features", [["x1", "c1"], ["c1", "x1"]])
def test_pdp_2d_numerical_categorical(r, preds, features):
    fe, ro = _fe(preds, "one", features, "pdp", grid_size=4)
    rg = r_geometry(r, "plot(o, show.data = TRUE)", o=ro)
    assert rg["geoms"] == ["GeomLine", "GeomRug"]
    fig = fe.plot(show_data=True)
    py = py_geometry(fig)
    compare(py, rg, rug_data={"x": X["x1"]})
    for pl, rl in zip(py[""]["lines"], rg["panels"][""]["lines"]):       # ggplot's hue per level
        assert pl["colour"] == rl["colour"].lower()


@pytest.mark.parametrize("show_data", [False, True])
def test_pdp_2d_categorical(r, preds, show_data):
    fe, ro = _fe(preds, "one", ["c1", "c2"], "pdp")
    rg = r_geometry(r, f"plot(o, show.data = {'TRUE' if show_data else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomTile"] + (["GeomPoint"] if show_data else []) + ["GeomRug"]
    compare(py_geometry(fe.plot(show_data=show_data)), rg,
            rug_data={"x": _codes(X["c1"], _levels_of(fe.results, "c1")),
                      "y": _codes(X["c2"], _levels_of(fe.results, "c2"))})


# ---------------------------------------------------------------------------- several outputs: facets
@pytest.mark.parametrize("feature, method, kw", [
    ("x1", "ale", {"grid_size": 4}),
    ("c1", "pdp", {}),
    ("x2", "pdp+ice", {"grid_size": 3}),
    ("c2", "ice", {}),
    ("x1", "ice", {"grid_size": 3, "center_at": 4.0}),
    ("x2", "pdp+ice", {"grid_size": 3, "center_at": 0.0}),
    (["x1", "x2"], "ale", {"grid_size": 3}),
    (["x1", "c1"], "pdp", {"grid_size": 3}),
])
def test_multiclass_facets(r, preds, feature, method, kw):
    fe, ro = _fe(preds, "multi", feature, method, **kw)
    rg = r_geometry(r, "plot(o)", o=ro)
    assert sorted(rg["panels"]) == ["no", "yes"]
    feats = [feature] if isinstance(feature, str) else feature
    rug = {}
    for side, name in zip("xy", feats if not (len(feats) == 2 and method == "pdp") else feats[:1]):
        col = X[name]
        rug[side] = _codes(col, _levels_of(fe.results, name)) if isinstance(col.dtype, pd.CategoricalDtype) else col
    compare(py_geometry(fe.plot()), rg, rug_data=rug)


# ---------------------------------------------------------------------------- FeatureEffects
#: what ``FeatureEffects$plot(fixed_y = TRUE)`` builds before ``patchwork::wrap_plots``
_R_FES_PANELS = """lapply(features, function(f) {
  ylim <- range(unlist(lapply(features, function(g) fes$effects[[g]]$results$.value)))
  fes$effects[[f]]$plot(ylim = ylim)
})"""


@pytest.mark.parametrize("method", ["ale", "pdp"])
def test_feature_effects_grid(r, preds, method):
    from r_bridge import iml as riml

    p, rp = preds["one"]
    feats = ["x1", "c1", "x2"]
    fes = FeatureEffects(p, features=feats, method=method, grid_size=4)
    ro = riml.iml("FeatureEffects", rp, features=feats, method=method, grid_size=4)
    panels = r_geometry(r, _R_FES_PANELS, fes=ro, features=feats)
    fig = fes.plot()
    axes = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    assert len(axes) == len(panels) == 3
    for ax, f_, rg in zip(axes, feats, panels):
        col = X[f_]
        rug = _codes(col, _levels_of(fes.effects[f_].results, f_)) if f_ == "c1" else col
        if method == "pdp" and f_ == "c1":
            # iml bug: the shared limits [min, max] of the PDP values exclude 0, where the bars
            # start, so ggplot drops every bar (an empty panel); pyiml draws them, clipped at the
            # shared y range (docs/differences.md)
            bars = rg["panels"][""]["rects"][0]
            value = fes.effects[f_].results[".value"].to_numpy(dtype=float)
            assert value.min() > 0 and np.isnan(bars[:, 2:]).all()
            bars[:, 2], bars[:, 3] = 0.0, value
        compare({"": _py_describe(ax)}, rg, rug_data={"x": rug})
        _close(ax.get_ylim(), rg["y_range"], f"{f_}: y range shared by the panels")


# ---------------------------------------------------------------------------- FeatureImp, Interaction
def _riml(cls, preds, key, seed=None, **kw):
    from r_bridge import iml as riml

    return riml.iml(cls, preds[key][1], seed=seed, **kw)


@pytest.mark.parametrize("sort", [True, False])
def test_feature_imp(r, preds, sort):
    fi = FeatureImp(preds["one"][0], "mae", n_repetitions=5, random_state=RRandom(11))
    ro = _riml("FeatureImp", preds, "one", seed=11, loss="mae", n_repetitions=5)
    rg = r_geometry(r, f"plot(o, sort = {'TRUE' if sort else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomSegment", "GeomPoint"]
    py = py_geometry(fi.plot(sort=sort))
    compare(py, rg)
    seg = py[""]["lines"]            # the 5%-95% ranges, one per feature at its row
    assert len(seg) == 4 and not np.allclose([s["x"][0] for s in seg], [s["x"][1] for s in seg])


@pytest.mark.parametrize("key, sort", [("one", True), ("one", False), ("multi", True)])
def test_interaction(r, preds, key, sort):
    ia = Interaction(preds[key][0], grid_size=6, random_state=RRandom(5))
    ro = _riml("Interaction", preds, key, seed=5, grid_size=6)
    rg = r_geometry(r, f"plot(o, sort = {'TRUE' if sort else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomPoint", "GeomSegment"]
    compare(py_geometry(ia.plot(sort=sort)), rg)


@pytest.mark.parametrize("key, sort", [("one", True), ("one", False), ("multi", True)])
def test_interaction_with_feature(r, preds, key, sort):
    """The two-way H-statistic of x1 with every other feature: y labels ``x2:x1`` etc. (the other feature first, as iml names them)"""
    ia = Interaction(preds[key][0], feature="x1", grid_size=4, random_state=RRandom(5))
    ro = _riml("Interaction", preds, key, seed=5, feature="x1", grid_size=4)
    rg = r_geometry(r, f"plot(o, sort = {'TRUE' if sort else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomPoint", "GeomSegment"]
    fig = ia.plot(sort=sort)
    compare(py_geometry(fig), rg)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == rg["vertical_labels"] and sorted(labels) == ["c1:x1", "c2:x1", "x2:x1"]


# ---------------------------------------------------------------------------- Shapley, LocalModel
@pytest.mark.parametrize("key, sort", [("one", True), ("one", False), ("multi", True), ("multi", False)])
def test_shapley(r, preds, key, sort):
    x = X.iloc[[3]].reset_index(drop=True)
    sh = Shapley(preds[key][0], x_interest=x, sample_size=20, random_state=RRandom(3))
    ro = _riml("Shapley", preds, key, seed=3, x_interest=x, sample_size=20)
    rg = r_geometry(r, f"plot(o, sort = {'TRUE' if sort else 'FALSE'})", o=ro)
    assert rg["geoms"] == ["GeomCol"]
    fig = sh.plot(sort=sort)
    compare(py_geometry(fig), rg)
    ax = fig.axes[0]                 # the bars' labels: feature=value, at the bars' rows
    labels = dict(zip(np.round(ax.get_yticks(), 9), [t.get_text() for t in ax.get_yticklabels()]))
    res = sh.results if key == "one" else sh.results[sh.results["class"] == ax.get_title()]
    bars = py_geometry(fig)[ax.get_title() if key == "multi" else ""]["rects"][0]
    for (xmin, xmax, ymin, ymax), (_, row) in zip(bars, res.iterrows()):
        assert labels[round((ymin + ymax) / 2, 9)] == row["feature.value"] and np.isclose(xmin + xmax, row["phi"])


@pytest.mark.parametrize("key, row", [("one", 1), ("one", 2), ("multi", 2)])
def test_shapley_several_rows(r, preds, key, row):
    """``plot(id=row)`` of several explained rows against iml explaining that row (successive
    ``explain()`` calls in R draw what pyiml draws for the rows at once under ``RRandom``)."""
    x = X.iloc[[3, 11]].reset_index(drop=True)
    sh = Shapley(preds[key][0], x_interest=x, sample_size=10, random_state=RRandom(3))
    ro = _riml("Shapley", preds, key, seed=3, x_interest=x.iloc[[0]], sample_size=10)
    if row == 2:
        ro.call("explain", x.iloc[[1]].reset_index(drop=True))
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["geoms"] == ["GeomCol"]
    fig = sh.plot(id=row)
    compare(py_geometry(fig), rg)
    if key == "one":      # the title names the row's prediction
        y_hat = float(ro.field("y.hat.interest"))
        assert fig.axes[0].get_title(loc="left").startswith(f"Actual prediction: {y_hat:.2f}\n")
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == rg["vertical_labels"]


@pytest.mark.parametrize("key", ["one", "multi"])
def test_local_model(r, preds, key):
    x = X.iloc[[5]].reset_index(drop=True)
    lm = LocalModel(preds[key][0], x, k=2)
    ro = _riml("LocalModel", preds, key, x_interest=x, k=2)
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["geoms"] == ["GeomCol"]
    fig = lm.plot()
    py_labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    if key == "multi":
        # two classes: the effects of a feature cancel over the classes, so iml's order by mean
        # effect follows rounding noise; pyiml counts those means as ties (alphabetical order,
        # docs/differences.md). Compare the bars by their labels.
        assert py_labels == sorted(py_labels) and sorted(rg["vertical_labels"]) == py_labels
        pos = {lab: i for i, lab in enumerate(py_labels, start=1)}
        for desc in rg["panels"].values():
            bars = desc["rects"][0]
            centre = np.array([pos[rg["vertical_labels"][int(round(c)) - 1]] for c in bars[:, 2:].mean(axis=1)])
            bars[:, 2], bars[:, 3] = centre - 0.45, centre + 0.45
    else:
        assert py_labels == rg["vertical_labels"]
    compare(py_geometry(fig), rg)


# ---------------------------------------------------------------------------- TreeSurrogate
@pytest.mark.parametrize("key", ["one", "multi", "sharp"])
def test_tree_surrogate(r, preds, key):
    """Boxplots of the predictions per leaf; with several outputs bars counting the rows per
    most probable class (none for a class no row of the leaf has: "sharp" has pure leaves)."""
    ts = TreeSurrogate(preds[key][0], maxdepth=2)
    ro = _riml("TreeSurrogate", preds, key, maxdepth=2)
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["geoms"] == (["GeomBoxplot"] if key == "one" else ["GeomBar"])
    assert len(rg["panels"]) > 1
    py = py_geometry(ts.plot())
    compare(py, rg)
    if key == "sharp":
        assert min(len(d["rects"][0]) for d in py.values()) == 1


@pytest.mark.parametrize("key", ["one", "multi"])
def test_tree_surrogate_single_leaf(r, preds, key):
    """A tree without a split (``mincriterion = 1``): every row in the root, whose ``.path`` is
    NA; ggplot draws one facet labelled "NA"."""
    ts = TreeSurrogate(preds[key][0], maxdepth=2, tree_args={"mincriterion": 1.0})
    ro = _riml("TreeSurrogate", preds, key, maxdepth=2, tree_args={"mincriterion": 1.0})
    assert ts.results[".node"].eq(1).all() and ts.results[".path"].isna().all()
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["geoms"] == (["GeomBoxplot"] if key == "one" else ["GeomBar"])
    assert list(rg["panels"]) == ["None"]            # one facet, the value NA
    fig = ts.plot()
    assert [ax.get_title() for ax in fig.axes] == ["NA"]
    compare({"None": py_geometry(fig)[""]}, rg)


# ---------------------------------------------------------------------------- layout and axis ranges
_R_LAYOUT = r"""function(p) {
  b <- ggplot2::ggplot_build(p)
  lay <- b$layout$layout
  facet <- setdiff(names(lay), c("PANEL", "ROW", "COL", "SCALE_X", "SCALE_Y"))
  pp <- b$layout$panel_params[[1]]
  list(labels = if (length(facet)) as.character(lay[[facet[1]]]) else "",
       row = as.integer(lay$ROW), col = as.integer(lay$COL),
       x_range = as.numeric(pp$x.range), y_range = as.numeric(pp$y.range))
}"""


def r_layout(r, code: str, **objects) -> dict:
    """Facet labels with their (row, column) in ggplot's layout, and the first panel's ranges."""
    from r_bridge import convert

    env = {k: v.r_object for k, v in objects.items()}
    out = convert.r2py(r.r_call(_R_LAYOUT, r.r_eval(code, **env)))
    labels = [str(v) for v in np.atleast_1d(out["labels"])]
    return {"cells": dict(zip(labels, zip(np.atleast_1d(out["row"]).tolist(), np.atleast_1d(out["col"]).tolist()))),
            "x_range": _vec(out["x_range"]), "y_range": _vec(out["y_range"])}


def py_cells(fig) -> dict:
    """Panel titles with their (row, column), 1-based as ggplot's layout."""
    cells = {}
    for ax in (a for a in fig.axes if a.get_label() != "<colorbar>"):
        ss = ax.get_subplotspec()
        cells[ax.get_title()] = (ss.rowspan.start + 1, ss.colspan.start + 1)
    return cells


def f_three(d: pd.DataFrame) -> pd.DataFrame:
    p = 1 / (1 + np.exp(-(_score(d) - 6) / 4))
    return pd.DataFrame({"lo": 0.6 * p, "mid": 0.4 * p, "hi": 1 - p})


F_THREE_R = (f"function(newdata) {{ p <- 1 / (1 + exp(-({_SCORE_R} - 6) / 4)); "
             "data.frame(lo = 0.6 * p, mid = 0.4 * p, hi = 1 - p) }")


def test_wrap_dims_is_ggplots(r):
    """Panel grids are ggplot2's ``wrap_dims`` (facet_wrap; patchwork's wrap_plots), with and
    without a given number of rows or columns."""
    from r_bridge import convert
    from pyiml.plotting._common import wrap_dims

    cases = [(n, None, None) for n in range(1, 41)] + [(n, 2, None) for n in range(1, 9)] + \
            [(n, None, 4) for n in range(1, 13)]
    for n, nrow, ncol in cases:
        code = f"ggplot2::wrap_dims({n}, nrow = {'NULL' if nrow is None else nrow}, ncol = {'NULL' if ncol is None else ncol})"
        expected = tuple(int(v) for v in np.atleast_1d(convert.r2py(r.r_eval(code))))
        assert wrap_dims(n, nrow, ncol) == expected, (n, nrow, ncol)
    with pytest.raises(ValueError, match="cannot hold 5"):
        wrap_dims(5, 2, 2)


def test_three_facets_lie_in_one_row(r):
    """Three classes: one row of three panels, as ggplot lays them out (not 2 x 2)."""
    from r_bridge import RFunction
    from r_bridge import iml as riml

    p = Predictor(predict_function=f_three, data=X)
    rp = riml.r_predictor(data=X, model=RFunction(F_THREE_R))
    fe = FeatureEffect(p, "x1", method="pdp", grid_size=4)
    ro = riml.iml("FeatureEffect", rp, feature="x1", method="pdp", grid_size=4)
    expected = r_layout(r, "plot(o)", o=ro)["cells"]
    assert expected == {"lo": (1, 1), "mid": (1, 2), "hi": (1, 3)}
    assert py_cells(fe.plot()) == expected
    x = X.iloc[[3]]
    sh = Shapley(p, x_interest=x, sample_size=5, random_state=RRandom(1))
    assert py_cells(sh.plot()) == r_layout(r, "plot(o)", o=riml.iml("Shapley", rp, seed=1, x_interest=x,
                                                                    sample_size=5))["cells"]


def test_bars_leave_room_below_zero(r, preds):
    """ggplot's value axis extends 5% of the range past the bars' base (matplotlib stops there)."""
    fe, ro = _fe(preds, "one", "c1", "pdp")
    _close(fe.plot().axes[0].get_ylim(), r_layout(r, "plot(o)", o=ro)["y_range"], "categorical PDP bars: y range")
    ts = TreeSurrogate(preds["multi"][0], maxdepth=2)
    r_range = r_layout(r, "plot(o)", o=_riml("TreeSurrogate", preds, "multi", maxdepth=2))["y_range"]
    assert r_range[0] < 0
    _close(ts.plot().axes[0].get_ylim(), r_range, "TreeSurrogate class counts: y range")


@pytest.mark.parametrize("method", ["pdp", "ale"])
def test_rug_trains_the_x_scale_beyond_grid_points(r, preds, method):
    """The rug's data train ggplot's x scale: grid points inside the data still give an axis over
    the data (both jitter the rug at random, by at most 1% of the range)."""
    fe, ro = _fe(preds, "one", "x1", method, grid_points=[2.9, 4.0, 5.1])
    r_range = r_layout(r, "plot(o)", o=ro)["x_range"]
    x = X["x1"].to_numpy()
    span = x.max() - x.min()
    assert r_range[0] < x.min() and r_range[1] > x.max()
    py_range = np.asarray(fe.plot().axes[0].get_xlim())
    # each end: the data's extreme, widened by its jitter (<= 1% of the range) and 5% of the scale
    np.testing.assert_allclose(py_range, r_range, rtol=0, atol=2 * 1.05 * 0.01 * span)
    fe_norug = FeatureEffect(preds["one"][0], "x1", method=method, grid_points=[2.9, 4.0, 5.1])
    _close(fe_norug.plot(rug=False).axes[0].get_xlim(),
           r_layout(r, "plot(o, rug = FALSE)", o=ro)["x_range"], "no rug: x range of the grid")


@pytest.mark.parametrize("features", [["n3", "x1"], ["x1", "n3"]])
def test_ale_2d_integer_and_numerical_rug_on_the_bottom_only(r, features):
    """An integer and a numerical feature are of different types for iml: its rug is drawn on
    the bottom only, 1% of the range wide when the first feature is numerical, else 0.07."""
    from r_bridge import RFunction
    from r_bridge import iml as riml

    data = X.assign(n3=np.arange(N, dtype=np.int64) % 7)
    p = Predictor(predict_function=f, data=data, y=Y)
    rp = riml.r_predictor(data=data, y=Y, model=RFunction(F_R))
    fe = FeatureEffect(p, features, method="ale", grid_size=4)
    ro = riml.iml("FeatureEffect", rp, feature=features, method="ale", grid_size=4)
    rg = r_geometry(r, "plot(o)", o=ro)
    assert rg["panels"][""]["rug_y"] == []
    compare(py_geometry(fe.plot()), rg, rug_data={"x": data[features[0]]})


def test_constant_2d_effect_has_one_fill_in_every_panel(r):
    """Every tile of every class panel equal: ggplot fills them all with its middle colour."""
    from r_bridge import RFunction
    from r_bridge import iml as riml

    p = Predictor(predict_function=lambda d: pd.DataFrame({"yes": np.full(len(d), 0.5), "no": np.full(len(d), 0.5)}),
                  data=X)
    rp = riml.r_predictor(data=X, model=RFunction(
        "function(newdata) data.frame(yes = rep(0.5, nrow(newdata)), no = rep(0.5, nrow(newdata)))"))
    fe = FeatureEffect(p, ["x1", "x2"], method="pdp", grid_size=3)
    ro = riml.iml("FeatureEffect", rp, feature=["x1", "x2"], method="pdp", grid_size=3)
    compare(py_geometry(fe.plot()), r_geometry(r, "plot(o)", o=ro), rug_data={"x": X["x1"], "y": X["x2"]})


# ---------------------------------------------------------------------------- from a probe of the plots (session 21)
def test_local_model_facets_in_alphabetical_order(r, preds):
    """iml's LocalModel ``.class`` is a character column, so facet_wrap orders the panels
    alphabetically ("no" before "yes"), not in the model's output order (Shapley's and
    Interaction's class columns are factors in output order)."""
    x = X.iloc[[5]].reset_index(drop=True)
    lm = LocalModel(preds["multi"][0], x, k=2)
    expected = r_layout(r, "plot(o)", o=_riml("LocalModel", preds, "multi", x_interest=x, k=2))["cells"]
    assert list(expected) == ["no", "yes"]
    assert py_cells(lm.plot()) == expected


def test_half_open_ylim_is_trained_on_every_class(r):
    """With several classes the facets share one y scale: a missing limit is the range of every
    class's values, not of the panel drawn last."""
    from r_bridge import RFunction
    from r_bridge import iml as riml

    # the panel drawn last ("small") has the narrowest range
    p = Predictor(predict_function=lambda d: pd.DataFrame({"big": 2 * _score(d), "small": 0.1 * _score(d)}), data=X)
    rp = riml.r_predictor(data=X, model=RFunction(
        f"function(newdata) data.frame(big = 2 * {_SCORE_R}, small = 0.1 * {_SCORE_R})"))
    for feature, method, lim, r_lim in [("x1", "ale", (-0.5, None), "c(-0.5, NA)"),
                                        ("x2", "pdp+ice", (None, 60.0), "c(NA, 60)"),
                                        ("c1", "pdp", (0.0, None), "c(0, NA)")]:
        fe = FeatureEffect(p, feature, method=method, grid_size=4)
        ro = riml.iml("FeatureEffect", rp, feature=feature, method=method, grid_size=4)
        r_range = r_layout(r, f"plot(o, ylim = {r_lim})", o=ro)["y_range"]
        for ax in fe.plot(ylim=lim).axes:
            _close(ax.get_ylim(), r_range, f"{feature} {method}: y range of panel {ax.get_title()}")


@pytest.mark.parametrize("method", ["pdp", "pdp+ice"])
def test_pdp_line_joins_unsorted_grid_points_in_x_order(r, preds, method):
    """geom_line joins points in x order, whatever the order of the user's grid points."""
    fe, ro = _fe(preds, "one", "x1", method, grid_points=[5.0, 1.0, 3.0, 8.0])
    fig = fe.plot()
    line = [ln for ln in fig.axes[0].get_lines()][-1]
    np.testing.assert_array_equal(line.get_xdata(), [1.0, 3.0, 5.0, 8.0])
    compare(py_geometry(fig), r_geometry(r, "plot(o)", o=ro), rug_data={"x": X["x1"]})


def _discrete_range(ax, axis: str):
    return ax.get_xlim() if axis == "x" else ax.get_ylim()


@pytest.mark.parametrize("what", ["interaction", "shapley", "local_model", "bars", "boxplots", "tiles",
                                  "tree_boxplot", "tree_bars"])
def test_discrete_axes_span_ggplots_range(r, preds, what):
    """ggplot's discrete scales show 0.6 beyond the first and last level ([0.4, K + 0.6]),
    whatever is drawn on them (bars, boxes, tiles, points, a rug)."""
    x = X.iloc[[5]].reset_index(drop=True)
    if what == "interaction":
        obj, ro, axis = (Interaction(preds["one"][0], grid_size=5, random_state=RRandom(2)),
                         _riml("Interaction", preds, "one", seed=2, grid_size=5), "y")
    elif what == "shapley":
        obj, ro, axis = (Shapley(preds["one"][0], x_interest=x, sample_size=5, random_state=RRandom(2)),
                         _riml("Shapley", preds, "one", seed=2, x_interest=x, sample_size=5), "y")
    elif what == "local_model":
        obj, ro, axis = LocalModel(preds["one"][0], x, k=2), _riml("LocalModel", preds, "one", x_interest=x, k=2), "y"
    elif what in ("bars", "boxplots"):
        (obj, ro), axis = _fe(preds, "one", "c1", "pdp" if what == "bars" else "ice"), "x"
    elif what == "tiles":
        (obj, ro), axis = _fe(preds, "one", ["c1", "c2"], "pdp"), "x"
    else:
        key = "one" if what == "tree_boxplot" else "multi"
        obj, ro, axis = TreeSurrogate(preds[key][0], maxdepth=2), _riml("TreeSurrogate", preds, key, maxdepth=2), "x"
    lay = r_layout(r, "plot(o)", o=ro)
    r_range = lay["y_range" if axis == "y" else "x_range"]   # (panel ranges as drawn, after coord_flip)
    assert r_range[0] == pytest.approx(0.4)
    for ax in (a for a in obj.plot().axes if a.get_label() != "<colorbar>"):
        _close(_discrete_range(ax, axis), r_range, f"{what}: discrete axis range")
        if what == "tiles":
            _close(ax.get_ylim(), lay["y_range"], "tiles: second discrete axis")
