"""Distances that iml's ``LocalModel`` uses for its weights, with R's arithmetic.

* :func:`gower_dist` reproduces ``gower::gower_dist`` (gower 1.0.x, C source
  ``pkg/src/gower.c``): iml calls ``gower_dist(X_recoded, x_interest_recoded)``.
* :func:`r_dist` reproduces ``stats::dist`` (R's ``src/library/stats/src/distance.c``) for the
  distance from one row to every other row, which is what iml takes from
  ``dist(rbind(xr, Xr), method)[1:n]``.

Both accumulate column by column in the same order and with the same floating-point
operations as the C code, so results agree with R bit for bit (``r_dist`` with the
``minkowski`` method relies on the platform ``pow``, as R does).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from ..data import user_stacklevel, warn_user

__all__ = ["gower_dist", "gower_dist_to_point", "r_dist", "R_DIST_METHODS"]

#: The methods of ``stats::dist``, in R's order.
R_DIST_METHODS = ("euclidean", "maximum", "manhattan", "canberra", "binary", "minkowski")

_GOWER_SKIP_DOUBLE = "skipping variable with zero or non-finite range."
_GOWER_SKIP_INT = "skipping variable with zero or non-finite range"
_RECYCLE_WARNING = "longer object length is not a multiple of shorter object length"


# ------------------------------------------------------------------------------------------
# gower
# ------------------------------------------------------------------------------------------

class _Column:
    """One column with the R storage type gower's C code dispatches on."""

    __slots__ = ("kind", "values", "na", "levels")

    def __init__(self, kind, values, na, levels=None):
        self.kind = kind  # "double", "integer", "logical", "factor", "character"
        self.values = values
        self.na = na  # boolean mask of missing entries (NA_INTEGER / NA_STRING / NA)
        self.levels = levels


def _column(values) -> _Column:
    """Classify a pandas Series / numpy vector as R would store it."""
    dtype = getattr(values, "dtype", None)
    if dtype is not None and str(dtype) == "category":
        cat = values.cat if hasattr(values, "cat") else values
        codes = np.asarray(cat.codes, dtype=np.int64)
        return _Column("factor", codes, codes < 0, [str(c) for c in cat.categories])
    if hasattr(values, "to_numpy"):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is a dependency
            pd = None
        if pd is not None:
            if pd.api.types.is_bool_dtype(dtype):
                na = np.asarray(values.isna())
                return _Column("logical", np.asarray(values.fillna(False), dtype=bool), na)
            if pd.api.types.is_integer_dtype(dtype):
                na = np.asarray(values.isna())
                return _Column("integer", np.asarray(values.fillna(0), dtype=np.int64), na)
            if pd.api.types.is_float_dtype(dtype):
                v = np.asarray(values, dtype=float)
                return _Column("double", v, np.isnan(v))
        values = values.to_numpy()
    v = np.asarray(values)
    if v.dtype == bool:
        return _Column("logical", v, np.zeros(v.shape, dtype=bool))
    if np.issubdtype(v.dtype, np.integer):
        return _Column("integer", v.astype(np.int64), np.zeros(v.shape, dtype=bool))
    if np.issubdtype(v.dtype, np.floating):
        v = v.astype(float)
        return _Column("double", v, np.isnan(v))
    obj = v.astype(object)
    na = np.array([e is None or (isinstance(e, float) and math.isnan(e)) or _is_pd_na(e) for e in obj],
                  dtype=bool)
    strs = np.array(["" if m else str(e) for e, m in zip(obj, na)], dtype=object)
    return _Column("character", strs, na)


def _is_pd_na(e) -> bool:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        return False
    return e is pd.NA or e is pd.NaT


def _frame_columns(x, what):
    """(names, columns) of a DataFrame, 2-D array or 1-D vector (one row)."""
    if hasattr(x, "columns") and hasattr(x, "iloc"):
        names = [str(c) for c in x.columns]
        return names, [_column(x.iloc[:, j]) for j in range(x.shape[1])]
    arr = np.asarray(x)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{what} must be a data frame or a 2-dimensional array")
    return None, [_column(arr[:, j]) for j in range(arr.shape[1])]


def _range_of(col: _Column):
    """Min and max of the finite (double) / non-missing (integer) values, or None."""
    if col.kind == "double":
        v = col.values[np.isfinite(col.values)]
    elif col.kind == "integer":
        v = col.values[~col.na]
    else:
        return None
    if v.size == 0:
        return None
    return float(v.min()), float(v.max())


def _xy_range(cx: _Column, cy: _Column) -> float:
    """gower's ``get_xy_range``: range over both columns (NaN when neither has values)."""
    rx, ry = _range_of(cx), _range_of(cy)
    if rx is None and ry is None:
        return math.nan
    if rx is None:
        return ry[1] - ry[0]
    if ry is None:
        return rx[1] - rx[0]
    return max(rx[1], ry[1]) - min(rx[0], ry[0])


def gower_dist(x, y, eps: float = 1e-8, weights: Optional[Sequence[float]] = None,
               ignore_case: bool = False) -> np.ndarray:
    """Gower's distance between the rows of ``x`` and ``y``, as R's ``gower::gower_dist``.

    R equivalent: ``gower::gower_dist(x, y, eps = 1e-8, weights = NULL,
    ignore_case = FALSE)`` (gower 1.0.x). Rows are compared pairwise with recycling: row
    ``k`` of the result compares ``x[k % nrow(x)]`` with ``y[k % nrow(y)]`` for
    ``k < max(nrow(x), nrow(y))`` -- iml passes one row as ``y``.

    For each column pair the similarity ``s`` is

    * numeric (double or integer): ``1 - |x - y| / R`` with ``R`` the range of the column
      over both inputs (finite values only); a column with ``R < eps`` (integer columns:
      ``R == 0``) or non-finite ``R`` is skipped with a warning;
    * logical: 1 if both TRUE, 0 if exactly one is TRUE, the pair is skipped if both are FALSE;
    * factor (pandas Categorical, levels must match) and character: 1 if equal, else 0;

    pairs with a missing (or, for numeric columns, non-finite) value are skipped. The distance
    is ``1 - sum(w s) / sum(w)`` over the compared pairs (NaN when nothing was compared).

    Parameters
    ----------
    x, y : DataFrame, 2-D array, or 1-D array (a single row)
        Data frames are matched by column name (like R); arrays by position. A float column
        is R's double, an integer column R's integer, a bool column R's logical, a
        Categorical a factor, anything else character.
    eps : float
        Ranges below ``eps`` count as zero (positive).
    weights : sequence of float, optional
        Non-negative finite weight per column of ``x`` (default all 1).
    ignore_case : bool
        Match data frame column names case-insensitively.

    Returns
    -------
    ndarray of shape (max(nrow(x), nrow(y)),)
        Empty when no columns could be paired.

    Warns
    -----
    UserWarning
        "skipping variable with zero or non-finite range." (R's warning) for each skipped
        numeric column, and R's recycling warning when the row counts are not multiples.
    """
    if not (isinstance(eps, (int, float)) and eps > 0):
        raise ValueError("eps must be a positive number")
    if _float_matrix_and_row(x, y) and weights is None:  # all doubles, one row: the matrix path
        return gower_dist_to_point(x, y, eps)
    xnames, xcols = _frame_columns(x, "x")
    ynames, ycols = _frame_columns(y, "y")
    nx = len(xcols[0].values) if xcols else 0
    ny = len(ycols[0].values) if ycols else 0
    if xcols and ycols and (nx == 0 or ny == 0):
        raise ValueError("x and y must have at least one row")
    if nx and ny and max(nx, ny) % min(nx, ny) != 0:
        warn_user(_RECYCLE_WARNING, UserWarning, user_stacklevel())
    # pairing: by name for data frames, by position otherwise
    if xnames is not None and ynames is not None:
        xn = [n.upper() for n in xnames] if ignore_case else xnames
        yn = [n.upper() for n in ynames] if ignore_case else ynames
        pair = [yn.index(n) if n in yn else -1 for n in xn]
    else:
        if len(xcols) != len(ycols):
            raise ValueError(f"x has {len(xcols)} columns but y has {len(ycols)}")
        pair = list(range(len(xcols)))
    if not any(p >= 0 for p in pair):
        return np.zeros(0)
    if weights is not None:
        wts = np.asarray(weights, dtype=float).ravel()
        if (wts < 0).any() or not np.isfinite(wts).all():
            raise ValueError("At least one element of 'weights' is not a finite nonnegative number")
        if wts.size < len(pair):
            raise ValueError(f"{wts.size} weights specified, expected {len(pair)}")
    else:
        wts = np.ones(len(xcols))
    for i, j in enumerate(pair):
        if j < 0:
            continue
        fx, fy = xcols[i].kind == "factor", ycols[j].kind == "factor"
        if fx and not fy:
            raise ValueError(f"Column {i + 1} of x is of class factor while matching column {j + 1} "
                             "of y is not a factor")
        if fy and not fx:
            raise ValueError(f"Column {i + 1} of x is not a factor while matching column {j + 1} "
                             "of y is of class factor")
        if fx and fy and xcols[i].levels != ycols[j].levels:
            raise ValueError(f"Levels in column {i + 1} of x do  not match those of column {j + 1} in y.")

    nt = max(nx, ny)
    ix = np.arange(nt) % nx
    iy = np.arange(nt) % ny
    num = np.zeros(nt)
    den = np.zeros(nt)
    for i, j in enumerate(pair):
        if j < 0:
            continue
        cx, cy = xcols[i], ycols[j]
        weight = float(wts[i])
        kx, ky = cx.kind, cy.kind
        if kx == "logical" or ky == "logical":
            if kx != ky:
                raise TypeError(f"column {i + 1} of x ({kx}) and column {j + 1} of y ({ky}) cannot be "
                                "compared")
            a, b = cx.values[ix], cy.values[iy]
            ok = ~(cx.na[ix] | cy.na[iy])
            dijk = ((a | b) & ok).astype(float)
            sijk = np.where(dijk == 1.0, (a & b).astype(float), 0.0)
        elif kx in ("double", "integer") and ky in ("double", "integer"):
            rng = _xy_range(cx, cy)
            if kx == "double" and ky == "double":
                if not math.isfinite(rng) or rng < eps:
                    warn_user(_GOWER_SKIP_DOUBLE, UserWarning, user_stacklevel())
                    continue
            elif kx == "integer" and ky == "integer":
                if not math.isfinite(rng) or rng == 0:
                    warn_user(_GOWER_SKIP_INT, UserWarning, user_stacklevel())
                    continue
            elif not math.isfinite(rng) or rng < eps:
                warn_user(_GOWER_SKIP_INT, UserWarning, user_stacklevel())
                continue
            a = cx.values[ix].astype(float)
            b = cy.values[iy].astype(float)
            ok = ~(cx.na[ix] | cy.na[iy]) & np.isfinite(a) & np.isfinite(b)
            dijk = ok.astype(float)
            with np.errstate(invalid="ignore"):
                sijk = np.where(ok, 1.0 - np.abs(a - b) / rng, 0.0)
        elif kx == ky and kx in ("factor", "character"):
            a, b = cx.values[ix], cy.values[iy]
            ok = ~(cx.na[ix] | cy.na[iy])
            dijk = ok.astype(float)
            sijk = np.where(ok, (a == b).astype(float), 0.0)
        else:
            raise TypeError(f"column {i + 1} of x ({kx}) and column {j + 1} of y ({ky}) cannot be "
                            "compared")
        num += weight * dijk * sijk
        den += weight * dijk
    out = np.full(nt, np.nan)
    nz = den != 0.0
    out[nz] = 1.0 - num[nz] / den[nz]
    return out


def _float_matrix_and_row(x, y) -> bool:
    """Whether x is a non-empty 2-D float array and y one float row of as many columns."""
    if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)):
        return False
    if x.dtype.kind != "f" or y.dtype.kind != "f" or x.ndim != 2 or x.shape[0] == 0:
        return False
    return y.size == x.shape[1] and (y.ndim == 1 or (y.ndim == 2 and y.shape[0] == 1))


def gower_dist_to_point(x, y, eps: float = 1e-8) -> np.ndarray:
    """:func:`gower_dist` of every row of a float matrix ``x`` to one float row ``y``.

    The same values (to the last bit) and warnings as the column-by-column computation when every
    column is a double, computed on the matrix as a whole; :func:`gower_dist` takes this path for
    a float array and one float row (LocalModel on all-numeric data).

    Parameters
    ----------
    x : array-like of float, shape (n, p)
    y : array-like of float, shape (p,) or (1, p)
    eps : float
        Ranges below ``eps`` count as zero (the column is skipped with gower's warning).

    Returns
    -------
    ndarray of shape (n,)
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if x.ndim != 2 or x.shape[1] != y.size:
        raise ValueError(f"x must be a 2-D array with one column per value of y ({y.size}), got shape {x.shape}")
    if not (isinstance(eps, (int, float)) and eps > 0):
        raise ValueError("eps must be a positive number")
    n, p = x.shape
    if n == 0:
        raise ValueError("x and y must have at least one row")
    yfin = np.isfinite(y)
    # a column whose sum is finite has only finite values (NaN and inf propagate into sums)
    with np.errstate(invalid="ignore", over="ignore"):
        col_fin = np.isfinite(np.add.reduce(x, axis=0))
    if col_fin.all():
        fin = None
        hi, lo = x.max(axis=0), x.min(axis=0)
    else:
        fin = np.isfinite(x)
        with np.errstate(invalid="ignore"):
            hi = np.where(fin, x, -np.inf).max(axis=0)
            lo = np.where(fin, x, np.inf).min(axis=0)
    hi = np.where(yfin, np.fmax(hi, np.where(yfin, y, -np.inf)), hi)
    lo = np.where(yfin, np.fmin(lo, np.where(yfin, y, np.inf)), lo)
    with np.errstate(invalid="ignore"):
        rng = hi - lo  # NaN (inf - inf) where neither x nor y has a finite value
    num = np.zeros(n)
    den = np.zeros(n)
    tmp = np.empty(n)
    for j in range(p):
        r = float(rng[j])
        if not math.isfinite(r) or r < eps:
            warn_user(_GOWER_SKIP_DOUBLE, UserWarning, user_stacklevel())
            continue
        if not yfin[j]:
            continue  # every pair of this column has a non-finite value: none is compared
        with np.errstate(invalid="ignore"):  # 1 - |x - y| / r, without temporaries
            np.subtract(x[:, j], y[j], out=tmp)
            np.abs(tmp, out=tmp)
            np.divide(tmp, r, out=tmp)
            np.subtract(1.0, tmp, out=tmp)
        if fin is None or col_fin[j]:  # every row compared
            num += tmp
            den += 1.0
        else:  # rows with a non-finite value are not compared
            ok = fin[:, j]
            tmp[~ok] = 0.0
            num += tmp
            den += ok
    out = np.full(n, np.nan)
    nz = den != 0.0
    out[nz] = 1.0 - num[nz] / den[nz]
    return out


# ------------------------------------------------------------------------------------------
# stats::dist
# ------------------------------------------------------------------------------------------

def _match_method(method: str) -> str:
    """R's ``pmatch`` of the method name (``"euclidian"`` accepted)."""
    if not isinstance(method, str) or not method:
        raise ValueError("invalid distance method")
    if "euclidian".startswith(method):
        return "euclidean"
    if method in R_DIST_METHODS:
        return method
    hits = [m for m in R_DIST_METHODS if m.startswith(method)]
    if len(hits) != 1:
        raise ValueError("invalid distance method")
    return hits[0]


def _r_pow(x: np.ndarray, y: float) -> np.ndarray:
    """R's ``R_pow(x, y)`` elementwise for ``x >= 0`` (or NaN/Inf) and finite ``y > 0``.

    ``y == 2`` is ``x * x``; otherwise the C library ``pow`` (``math.pow``), which numpy's
    ``power`` does not always match in the last bit.
    """
    if y == 2.0:
        return x * x
    pw = math.pow
    return np.fromiter((pw(v, y) for v in x.tolist()), dtype=float, count=x.size)


def r_dist(x, method: str = "euclidean", p: float = 2.0) -> np.ndarray:
    """Distances from the first row of ``x`` to each other row, as R's ``stats::dist``.

    R equivalent: ``as.vector(dist(x, method, p = p))[1:(nrow(x) - 1)]`` -- the first column
    of the lower triangle. iml's ``LocalModel`` uses ``dist(rbind(xr, Xr), method)[1:n]``,
    i.e. ``r_dist(np.vstack([xr, Xr]), method)``.

    Per pair of rows, columns where either value is NA/NaN are left out; for ``euclidean``,
    ``manhattan``, ``canberra`` and ``minkowski`` the sum is then scaled up by
    ``ncol / (number of columns used)``, and a pair with no usable column gives NA (NaN).

    * ``euclidean``: ``sqrt(sum((a - b)^2))``; ``maximum``: ``max |a - b|``;
      ``manhattan``: ``sum |a - b|``; ``minkowski``: ``(sum |a - b|^p)^(1/p)``;
    * ``canberra``: ``sum |a - b| / (|a| + |b|)``; terms with ``a = b = 0`` are left out (and
      counted as unused), a term with both infinite of opposite sign counts 1;
    * ``binary``: among the columns where at least one value is non-zero, the proportion
      where exactly one is; 0 when all are zero in both rows; non-finite values are treated
      as NA with the warning "treating non-finite values as NA".

    Parameters
    ----------
    x : array-like of shape (n, p)
        Numeric matrix (a DataFrame is converted with ``as.matrix`` semantics: numeric
        columns only).
    method : str
        One of :data:`R_DIST_METHODS` (unique abbreviations accepted, as R's ``pmatch``).
    p : float
        Power of the Minkowski distance (used only for ``minkowski``; must be finite and > 0).

    Returns
    -------
    ndarray of shape (n - 1,)
    """
    m = _match_method(method)
    if hasattr(x, "to_numpy"):
        x = x.to_numpy()
    x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError("x must be a 2-dimensional matrix")
    if x.dtype == bool:
        x = x.astype(float)
    if not (np.issubdtype(x.dtype, np.number)):
        raise ValueError("x must be numeric")
    x = x.astype(float)
    if m == "minkowski":
        p = float(p)
        if not math.isfinite(p) or p <= 0:
            raise ValueError("distance(): invalid p")
    nr, nc = x.shape
    if nr < 2:
        return np.zeros(0)
    ref = x[0]
    others = x[1:]
    n = nr - 1
    count = np.zeros(n, dtype=np.int64)
    dist = np.zeros(n)
    if m == "binary":
        total = np.zeros(n, dtype=np.int64)
        cnt = np.zeros(n, dtype=np.int64)
        dd = np.zeros(n, dtype=np.int64)
        warned = False
        for j in range(nc):
            a = others[:, j]
            b = ref[j]
            nonna = ~np.isnan(a) & (not math.isnan(b))
            fin = nonna & np.isfinite(a) & math.isfinite(b)
            if (nonna & ~fin).any() and not warned:
                warn_user("treating non-finite values as NA", UserWarning, user_stacklevel())
                warned = True
            either = fin & ((a != 0) | (b != 0))
            cnt += either
            dd += either & ~((a != 0) & (b != 0))
            total += fin
        out = np.where(cnt == 0, 0.0, dd / np.maximum(cnt, 1))
        out[total == 0] = np.nan
        return out
    if m == "maximum":
        dist = np.full(n, -np.finfo(float).max)
    for j in range(nc):
        a = others[:, j]
        b = ref[j]
        with np.errstate(invalid="ignore"):
            nonna = ~np.isnan(a) & (not math.isnan(b))
            if m == "canberra":
                s = np.abs(a) + abs(b)
                diff = np.abs(a - b)
                with np.errstate(divide="ignore"):
                    dev = diff / s
                use = nonna & ((s > np.finfo(float).tiny) | (diff > np.finfo(float).tiny))
                inf_case = use & np.isnan(dev) & ~np.isfinite(diff) & (diff == s)
                dev = np.where(inf_case, 1.0, dev)
                use = use & ~np.isnan(dev)
                dist = np.where(use, dist + dev, dist)
                count += use
                continue
            dev = a - b
            use = nonna & ~np.isnan(dev)
            if m == "euclidean":
                dist = np.where(use, dist + dev * dev, dist)
            elif m == "manhattan":
                dist = np.where(use, dist + np.abs(dev), dist)
            elif m == "maximum":
                ad = np.abs(dev)
                dist = np.where(use & (ad > dist), ad, dist)
            else:  # minkowski
                dist = np.where(use, dist + _r_pow(np.abs(dev), p), dist)
            count += use
    out = dist.copy()
    if m != "maximum":
        partial = (count != nc) & (count > 0)
        out[partial] = out[partial] / (count[partial] / nc)
    if m == "euclidean":
        out = np.sqrt(out)
    elif m == "minkowski":
        out = _r_pow(out, 1.0 / p)
    out[count == 0] = np.nan
    return out
