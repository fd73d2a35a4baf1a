"""Level order of a categorical feature for ALE: 1-D classical MDS on feature-wise distances.

R equivalent: ``iml:::order_levels(dat, feature.name)`` (spec §7.3) and ``stats::cmdscale(d, k = 1)``.

For the levels ℓ_1..ℓ_K that occur (in level order) the distance of two levels is the sum over
every other column x (in column order) of

* categorical x: the total-variation distance of the distributions of x within the two levels,
  ``½ Σ_m |P(x = m | ℓ_k) − P(x = m | ℓ_l)|``;
* numerical x: the Kolmogorov–Smirnov distance of the two within-level ECDFs, evaluated at the
  type-7 quantiles of x at ``seq(0, 1, length.out = 100)``.

The levels are ordered by the one MDS coordinate of that distance matrix. The eigenvector's sign
decides the direction, so the arithmetic follows R's: R's ``DoubleCentre`` (row means first, then
column means, sequential sums) and LAPACK ``dsyevr`` on the lower triangle
(``scipy.linalg.eigh(driver="evr")``).
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np
import pandas as pd
import scipy.linalg

from .grids import r_seq
from .rstats import r_quantile

__all__ = ["order_levels", "level_distances", "double_centre", "cmdscale_1d", "categorical_codes"]


def categorical_codes(col: pd.Series, levels: Optional[Sequence] = None) -> Tuple[np.ndarray, list]:
    """Integer codes (−1 for missing) and the level list of a categorical-like column.

    A pandas Categorical keeps its categories (all of them, in order); bool columns have the
    levels ``[False, True]``; other columns (strings) the sorted unique values, as R's
    ``factor()`` makes them. ``levels`` overrides the level list.
    """
    if levels is None:
        if isinstance(col.dtype, pd.CategoricalDtype):
            return col.cat.codes.to_numpy().astype(np.int64), list(col.cat.categories)
        if pd.api.types.is_bool_dtype(col.dtype):
            levels = [False, True]
        else:
            levels = sorted(col.dropna().unique().tolist())
    cat = pd.Categorical(col, categories=levels)
    return np.asarray(cat.codes, dtype=np.int64), list(levels)


def _is_categorical(col: pd.Series) -> bool:
    dt = col.dtype
    return (isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dt)
            or pd.api.types.is_object_dtype(dt) or pd.api.types.is_string_dtype(dt))


def level_distances(X: pd.DataFrame, codes: np.ndarray, K: int, exclude: str) -> np.ndarray:
    """The K × K distance matrix of ``order_levels`` (before the diagonal is zeroed).

    Parameters
    ----------
    X : pandas.DataFrame
        The data (all columns take part except ``exclude``).
    codes : numpy.ndarray of int, shape (n,)
        Each row's level, 0..K−1 (only used levels).
    K : int
        Number of levels.
    exclude : str
        The feature being ordered.
    """
    counts = np.bincount(codes, minlength=K).astype(float)
    D = np.zeros((K, K))
    probs = r_seq(0.0, 1.0, 100)
    for name in X.columns:
        if name == exclude:
            continue
        col = X[name]
        if _is_categorical(col):
            xc, lev = categorical_codes(col)
            M = max(len(lev), 1)
            ok = xc >= 0
            tab = np.bincount(codes[ok] * M + xc[ok], minlength=K * M).reshape(K, M)
            A = tab / counts[:, None]
            d = np.empty((K, K))
            for a, b in _row_blocks(K, K * M):   # (K, K, M) in blocks of rows: memory O(K² + block)
                diff = np.abs(A[a:b, None, :] - A[None, :, :]).astype(np.longdouble)
                d[a:b] = (np.cumsum(diff, axis=2)[:, :, -1] / 2).astype(float)
        else:
            x = col.to_numpy(dtype=float)
            fin = ~np.isnan(x)
            xf, cf = x[fin], codes[fin]
            q = r_quantile(xf, probs, type=7)
            # each level's ECDF at q (count of its values <= q_j, over its size) without sorting the
            # levels' values: a value counts for the sorted q from the first one not below it on
            # (q is sorted first: interpolated quantiles need not be monotone to the last bit)
            order = np.argsort(q, kind="stable")
            m = q.size
            hist = np.bincount(cf * (m + 1) + np.searchsorted(q[order], xf, side="left"),
                               minlength=K * (m + 1)).reshape(K, m + 1)
            size = hist.sum(axis=1)
            if (size == 0).any():
                raise ValueError(
                    f"order_levels: level {int(np.flatnonzero(size == 0)[0]) + 1} of {exclude!r} has no "
                    f"non-missing value of {name!r}; the level distances are undefined"
                )
            F = np.empty((K, m))
            F[:, order] = np.cumsum(hist[:, :m], axis=1) / size[:, None]
            d = np.empty((K, K))
            for a, b in _row_blocks(K, K * m):
                d[a:b] = np.max(np.abs(F[a:b, None, :] - F[None, :, :]), axis=2)
        D = D + d
    return D


def _row_blocks(K: int, per_row: int, budget: int = 1 << 21):
    """Ranges of rows ``(a, b)`` covering 0..K whose ``(b - a) * per_row`` values stay within
    ``budget`` (at least one row each)."""
    step = max(1, budget // max(per_row, 1))
    return [(a, min(K, a + step)) for a in range(0, K, step)]


def double_centre(a: np.ndarray) -> np.ndarray:
    """R's ``C_DoubleCentre``: subtract each row's mean, then each column's mean.

    Means are sequential double sums divided by n, as R's C code computes them.
    """
    a = np.array(a, dtype=float)
    n = a.shape[0]
    if n == 0:
        return a
    # np.cumsum adds strictly in order, as the C loops do (np.sum would add pairwise)
    a -= np.cumsum(a, axis=1)[:, -1:] / n
    a -= np.cumsum(a, axis=0)[-1:, :] / n
    return a


def cmdscale_1d(D: np.ndarray) -> Optional[np.ndarray]:
    """First coordinate of classical MDS, as ``cmdscale(D, k = 1)``.

    ``B = -DoubleCentre(D²)/2`` is decomposed with LAPACK ``dsyevr`` (lower triangle); the
    coordinate is the eigenvector of the largest eigenvalue times its square root. Returns None
    when the largest eigenvalue is not positive (R then warns and returns no coordinate).
    """
    x = double_centre(np.asarray(D, dtype=float) ** 2)
    B = -x / 2
    w, v = scipy.linalg.eigh(B, lower=True, driver="evr")
    ev = w[-1]
    if not ev > 0:
        return None
    return v[:, -1] * np.sqrt(ev)


def order_levels(X: pd.DataFrame, feature: str, codes: Optional[np.ndarray] = None,
                 n_levels: Optional[int] = None) -> np.ndarray:
    """The order of a categorical feature's levels for ALE (0-based permutation).

    R equivalent: ``iml:::order_levels(dat, feature.name)`` (which returns it 1-based).

    Parameters
    ----------
    X : pandas.DataFrame
        The data; every column other than ``feature`` contributes to the distances.
    feature : str
        The categorical feature.
    codes : numpy.ndarray of int, optional
        The feature's level per row as 0..K−1 over the levels that occur (R drops unused levels
        first). Computed from ``X[feature]`` when omitted.
    n_levels : int, optional
        K; inferred from ``codes`` when omitted.

    Returns
    -------
    numpy.ndarray of int64, shape (K,)
        ``order[k]`` is the (0-based, among the used levels in level order) index of the level
        placed at position k. When every level looks the same (no positive eigenvalue) the
        level order is kept.

    Raises
    ------
    ValueError
        When ``feature`` is not a column of ``X``, or (without ``codes``) not categorical.
    """
    if feature not in X.columns:
        raise ValueError(f"feature {feature!r} is not a column of the data (columns: {list(X.columns)})")
    if codes is None and not _is_categorical(X[feature]):
        raise ValueError(f"feature {feature!r} has dtype {X[feature].dtype}: levels are ordered for categorical "
                         "features only (iml: a factor)")
    if codes is None:
        raw, levels = categorical_codes(X[feature])
        used = np.unique(raw[raw >= 0])
        remap = np.full(len(levels), -1, dtype=np.int64)
        remap[used] = np.arange(used.size)
        codes = remap[raw]
        n_levels = used.size
    K = int(n_levels if n_levels is not None else codes.max() + 1)
    if K < 2:
        return np.arange(K, dtype=np.int64)
    D = level_distances(X, codes, K, feature)
    np.fill_diagonal(D, 0.0)
    coord = cmdscale_1d(D)
    if coord is None:
        return np.arange(K, dtype=np.int64)
    return np.argsort(coord, kind="stable").astype(np.int64)
