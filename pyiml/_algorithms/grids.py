"""Grids and interval lookup with R's semantics, shared by the effect methods.

R equivalents (iml 0.11.4 internals and base R, spec §1 and §7.2):

* :func:`r_seq` — ``seq(from, to, length.out = m)``;
* :func:`grid_1d` — ``iml:::get.grid.1D(feature, grid.size, feature.type, type)``: an
  equidistant grid (``"equidist"``, used by PDP/ICE) or type-1 quantiles (``"quantile"``, used
  by ALE) of the finite values; integer features round the grid half-to-even and keep
  duplicates; categorical features give their unique values in order of first appearance;
* :func:`expand_grid` — ``expand.grid(a, b)`` index pairs (first argument fastest);
* :func:`find_interval` — ``findInterval(x, v, left.open = TRUE)``;
* :func:`ale_interval` — iml's ALE interval index (``findInterval`` with 0 folded into 1);
* :func:`ale_grid` — ALE's quantile grid of a feature together with every value's interval;
* :func:`r_approx` — ``approxfun(x, y, rule = 2)(v)`` with R's arithmetic and ties averaged.
"""
from __future__ import annotations

import math
from typing import Optional, Tuple

import numpy as np
import pandas as pd

from .rstats import bucket_order_statistics, r_quantile, type1_ranks

__all__ = ["r_seq", "grid_1d", "anchor_grid", "expand_grid", "find_interval", "ale_interval", "ale_grid",
           "r_approx"]


def r_seq(start: float, stop: float, length_out: int) -> np.ndarray:
    """R's ``seq(from = start, to = stop, length.out = length_out)`` for doubles.

    For ``length_out > 2`` the values are ``start + i * ((stop - start) / (length_out - 1))``
    for the inner points and exactly ``stop`` for the last one (``length_out`` copies of
    ``start`` when ``start == stop``); ``length_out`` 2 gives ``[start, stop]`` and 1 gives
    ``[start]``. A fractional ``length_out`` is rounded up, as in R. Where ``stop - start``
    overflows, the points are computed from ``start / 4`` and ``stop / 4`` and multiplied by 4,
    as R's ``seq.default`` does.
    """
    m = int(math.ceil(length_out))
    if m < 1:
        raise ValueError(f"length_out must be at least 1, got {length_out!r}")
    start, stop = float(start), float(stop)
    if m == 1:
        return np.array([start])
    if m == 2:
        return np.array([start, stop])
    if start == stop:
        return np.full(m, start)
    n1 = m - 1
    scale = 1.0
    if not math.isfinite(stop - start):   # the range overflows: R computes on a quarter of it
        start, stop, scale = start / 4, stop / 4, 4.0
    by = (stop - start) / n1
    out = np.empty(m)
    out[0] = start
    out[1:-1] = start + np.arange(1, n1, dtype=float) * by
    out[-1] = stop
    if scale != 1.0:
        out *= scale
    return out


def float_values(values) -> np.ndarray:
    """Numeric values as a float array, missing values (pd.NA of nullable dtypes too) as NaN.

    A numpy-backed float64 column is returned without a copy."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.api.extensions.ExtensionDtype):
        return values.to_numpy(dtype=float, na_value=np.nan)
    return np.asarray(values, dtype=float)


def grid_1d(values, grid_size: int, feature_type: str, type: str = "equidist"):
    """One feature's grid, as ``iml:::get.grid.1D``.

    Parameters
    ----------
    values : pandas.Series or array-like
        The feature's values.
    grid_size : int
        Number of grid points for numerical and integer features (ignored for categorical).
    feature_type : {"numerical", "integer", "categorical"}
    type : {"equidist", "quantile"}
        ``"equidist"``: ``seq(min, max, length.out = grid_size)``; ``"quantile"``: type-1
        quantiles at ``seq(0, 1, length.out = grid_size)``.

    Returns
    -------
    numpy.ndarray of float64 (numerical / integer; integer grids rounded half-to-even, with
    duplicates kept) or, for categorical features, the unique values in order of first
    appearance (a pandas Categorical keeps its full category set).

    Raises
    ------
    ValueError
        When a numerical feature has no finite value.
    """
    if feature_type == "categorical":
        s = values if isinstance(values, pd.Series) else pd.Series(values)
        return pd.unique(s)
    if type not in ("equidist", "quantile"):
        raise ValueError(f"type must be 'equidist' or 'quantile', got {type!r}")
    x = float_values(values)     # (pd.NA of a nullable column as NaN: missing, dropped below)
    finite = np.isfinite(x)
    if not finite.all():
        x = x[finite]
    if x.size == 0:
        raise ValueError("Feature does not contain any finite values.")
    if type == "equidist":
        grid = r_seq(x.min(), x.max(), grid_size)
    else:
        grid = r_quantile(x, r_seq(0.0, 1.0, grid_size), type=1)
    if feature_type == "integer":
        grid = np.rint(grid)
    return np.asarray(grid, dtype=float)


def anchor_grid(grid: np.ndarray, anchor: Optional[float]) -> np.ndarray:
    """Insert ``anchor`` into a numeric grid (sorted) unless it is already a grid value.

    R: the ``anchor.value`` branch of ``iml:::get.grid``.
    """
    if anchor is None or np.any(grid == anchor):
        return grid
    return np.sort(np.append(grid, float(anchor)), kind="stable")


def expand_grid(n1: int, n2: int) -> Tuple[np.ndarray, np.ndarray]:
    """Index pairs of ``expand.grid(a, b)`` with ``len(a) == n1``, ``len(b) == n2``.

    Returns ``(i, j)``, each of length ``n1 * n2``; ``i`` varies fastest.
    """
    i = np.tile(np.arange(n1), n2)
    j = np.repeat(np.arange(n2), n1)
    return i, j


def find_interval(x, breaks) -> np.ndarray:
    """R's ``findInterval(x, breaks, left.open = TRUE)``: the number of breaks strictly below x.

    ``breaks`` must be sorted ascending; returns int64 values in ``0..len(breaks)``.
    """
    return np.searchsorted(np.asarray(breaks, dtype=float), np.asarray(x, dtype=float), side="left").astype(np.int64)


def ale_interval(x, grid) -> np.ndarray:
    """iml's ALE interval of each value: ``findInterval(x, grid, left.open = TRUE)`` with 0 → 1.

    Interval ``k`` (1-based) is ``(grid[k-1], grid[k]]``; the minimum is folded into interval 1.
    Values above the last grid point get ``len(grid)``.
    """
    grid = np.asarray(grid, dtype=float)
    x = np.asarray(x, dtype=float)
    if grid.size <= 64 and x.size > 1000 and not np.isnan(x).any():
        # the count of grid points below x, one comparison per grid point: faster than a binary
        # search per value for short grids (NaN would compare False, so NaN goes the other way)
        small = np.zeros(x.size, dtype=np.uint8)   # at most 64 grid points
        for g in grid:
            np.add(small, x > g, out=small, casting="unsafe")
        k = small.astype(np.int64)
    else:
        k = find_interval(x, grid)
    k[k == 0] = 1
    return k


def ale_grid(values, grid_size: int, feature_type: str, bounds=None) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """ALE's grid of a numerical or integer feature and, where every value is finite, each
    value's interval.

    Returns ``(grid, intervals)``: ``grid`` is ``np.unique(grid_1d(values, grid_size,
    feature_type, type="quantile"))`` (iml's type-1 quantile grid, distinct values), whose ends
    are the minimum and the maximum, so every finite value lies inside it; ``intervals`` is
    ``ale_interval(x, grid)`` for every value, or None when a value is missing. Where the
    quantiles were found through buckets (:func:`pyiml._algorithms.rstats.bucket_order_statistics`:
    4096 values or more, not too skewed), the intervals come from the same buckets: a value in a
    bucket without grid points lies above exactly the grid points of the buckets below it, so
    only the values in buckets with a grid point (about 64 per grid point) are compared with the
    grid. ``bounds``: ``(min, max)`` of the values (NaN when one is missing) where the caller has them.
    """
    x = float_values(values)
    n = x.size
    if n and feature_type in ("numerical", "integer"):
        lo, hi = (x.min(), x.max()) if bounds is None else bounds   # (NaN propagates: finite ends, finite values)
        if np.isfinite(lo) and np.isfinite(hi):
            q, buckets = bucket_order_statistics(x, type1_ranks(n, r_seq(0.0, 1.0, grid_size)), bounds=(lo, hi))
            grid = np.unique(q)
            if feature_type == "integer" and not np.array_equal(np.rint(grid), grid):
                return np.unique(np.rint(grid)), None     # (rounding moved grid points off the data)
            return grid, ale_interval(x, grid) if buckets is None else _bucket_intervals(grid, buckets)
    return np.unique(grid_1d(values, grid_size, feature_type, type="quantile")), None


def _bucket_intervals(grid: np.ndarray, buckets) -> np.ndarray:
    """``ale_interval(x, grid)`` for the values ``x`` bucketed by ``bucket_order_statistics``,
    where every grid point is one of the order statistics it returned (so lies in a bucket whose
    values are listed in ``sel``) and ``grid[0]`` is the minimum."""
    lo, scale, nb, b, sel, xs = buckets
    gb = ((grid - lo) * scale).astype(np.int64)   # each grid point's bucket (the values' formula)
    np.minimum(gb, nb - 1, out=gb)
    k = np.searchsorted(gb, np.arange(nb), side="left")[b]   # grid points in lower buckets (>= 1)
    k[sel] = np.maximum(np.searchsorted(grid, xs, side="left"), 1)
    return k


def r_approx(x, y, v) -> np.ndarray:
    """``approxfun(x, y, rule = 2)(v)``: linear interpolation with constant extrapolation.

    ``x`` is sorted and tied ``x`` values are replaced by one point at the mean of their ``y``
    (R's ``ties = mean``); inside an interval the value is
    ``y[i] + (y[j] - y[i]) * ((v - x[i]) / (x[j] - x[i]))`` as R computes it, grid points
    return their ``y`` exactly. NaN in ``v`` gives NaN.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    v = np.atleast_1d(np.asarray(v, dtype=float))
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    ux, start = np.unique(x, return_index=True)
    if ux.size != x.size:
        counts = np.diff(np.append(start, x.size))
        y = np.add.reduceat(y, start) / counts
        x = ux
    out = np.full(v.shape, np.nan)
    if x.size == 0:
        return out
    if x.size == 1:
        out[~np.isnan(v)] = y[0]
        return out
    fin = ~np.isnan(v)
    vv = v[fin]
    i = np.clip(np.searchsorted(x, vv, side="right") - 1, 0, x.size - 2)
    j = i + 1
    with np.errstate(invalid="ignore", divide="ignore"):
        res = y[i] + (y[j] - y[i]) * ((vv - x[i]) / (x[j] - x[i]))
    res = np.where(vv == x[j], y[j], res)
    res = np.where(vv == x[i], y[i], res)
    res = np.where(vv < x[0], y[0], res)
    res = np.where(vv > x[-1], y[-1], res)
    out[fin] = res
    return out
