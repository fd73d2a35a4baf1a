"""Accumulated local effects (ALE) of one or two features.

R equivalent: iml 0.11.4's ``calculate.ale.num``, ``calculate.ale.cat``,
``calculate.ale.num.num`` and ``calculate.ale.num.cat`` with ``order_levels`` and
``impute_cells`` (spec §7.3, §7.4, §9.3–9.7). Each estimator is a *plan*: the design blocks to
predict (lower/upper interval ends, neighbouring levels) and a ``finish`` step that turns the
predictions into iml's results table. :mod:`pyiml.feature_effect` predicts the blocks
(several plans at once in ``FeatureEffects``) and calls ``finish``.

Notation: a numeric grid ``z_0 < … < z_K`` defines intervals ``k = 1..K``, ``(z_{k-1}, z_k]``,
with the minimum folded into interval 1; categorical levels are placed in the order of
:func:`pyiml._algorithms.mds.order_levels` (ordered categoricals keep theirs).

Where iml is wrong pyiml differs (docs/differences.md): rows outside a user grid are left out
(iml folds those below into the first interval and gives those above a phantom interval),
intervals or cells without data keep their place on the grid (iml shifts later values onto
earlier grid points), unused levels are dropped everywhere (iml misaligns the centring weights
and, in 2-D, the levels), and any numeric type — integer too — may be paired with a categorical.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np
import pandas as pd

from ._algorithms.ann import nearest
from ._algorithms.grids import ale_interval, r_approx
from ._algorithms.mds import categorical_codes, order_levels
from ._pdp import Block, encode_values, rows_block

__all__ = ["AleNumPlan", "AleCatPlan", "AleNumNumPlan", "AleNumCatPlan", "CategoricalLevels",
           "categorical_levels", "impute_cells"]

_LD = np.longdouble


def _refuse_overflow(acc: np.ndarray, preds: List[np.ndarray], feature: str) -> None:
    """``ValueError`` when the accumulated effects ``acc`` of a 1-D ALE are infinite or NaN although
    every prediction is finite: the differences overflowed the double range (iml then stops in
    ``approx``, "need at least two non-NA values to interpolate", or, depending on the data,
    returns -Inf and NaN values)."""
    if np.isfinite(acc).all() or not all(np.isfinite(p).all() for p in preds):
        return
    raise ValueError(
        f"ALE of {feature!r} overflows: its accumulated prediction differences exceed the largest double (about "
        "1.8e308), so the curve would be inf and NaN (iml fails here, 'need at least two non-NA values to "
        "interpolate', or returns those values): rescale the feature or the model's output")


def _cumsum(a: np.ndarray, axis: int = 0) -> np.ndarray:
    """R's ``cumsum`` (long-double accumulation, each value rounded to double; beyond the double
    range, silently infinite as in R)."""
    with np.errstate(over="ignore"):
        return np.cumsum(np.asarray(a, dtype=_LD), axis=axis).astype(float)


def _sum(a, axis=None):
    """R's ``sum`` (long-double accumulation; beyond the double range, silently infinite)."""
    with np.errstate(over="ignore"):
        return np.sum(np.asarray(a, dtype=_LD), axis=axis).astype(float)


def _group_means(values: np.ndarray, groups: np.ndarray, n_groups: int):
    """Per-group mean of each column (NaN for empty groups) and the group sizes."""
    counts = np.bincount(groups, minlength=n_groups).astype(float)
    k = values.shape[1]
    sums = np.empty((n_groups, k))
    for c in range(k):
        sums[:, c] = np.bincount(groups, weights=values[:, c], minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts[:, None]
    means[counts == 0] = np.nan
    return means, counts


def _class_column(output_names: List[str], codes: np.ndarray) -> pd.Categorical:
    return pd.Categorical.from_codes(codes, categories=list(output_names))


# ---------------------------------------------------------------------------- categorical levels
@dataclass
class CategoricalLevels:
    """A categorical feature's used levels in ALE order and each row's position in that order.

    Attributes
    ----------
    levels : list
        The used levels in the new order (R: ``levels.ordered``).
    pos : numpy.ndarray of int
        Each row's 0-based position in ``levels`` (rows are those the levels were computed on).
    counts : numpy.ndarray of float
        Rows per level, in the new order.
    encoded : numpy.ndarray
        The levels in the data's encoding (see :func:`pyiml._pdp.encode_values`).
    """

    levels: list
    pos: np.ndarray
    counts: np.ndarray
    encoded: np.ndarray


def categorical_levels(data, X: pd.DataFrame, feature: str, within: Optional[str] = None) -> CategoricalLevels:
    """Used levels of ``feature`` in ``X`` ordered as iml orders them for ALE.

    Ordered categoricals keep their order; others are ordered by :func:`order_levels` on ``X``.
    ``within`` describes the rows of ``X`` when they are not the whole data (for the error).
    """
    col = X[feature]
    raw, levels = categorical_codes(col, data.levels(feature) if feature in data.feature_names else None)
    used = np.unique(raw[raw >= 0])
    if used.size < 2:
        raise ValueError(
            f"feature {feature!r} has {used.size} level(s) in the data; ALE needs at least two" if within is None
            else f"feature {feature!r} has {used.size} level(s) in the {len(X)} rows {within}; ALE needs at least "
                 "two: widen those grid points"
        )
    remap = np.full(len(levels), -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    codes = remap[raw]
    K = used.size
    if data.is_ordered(feature):
        order = np.arange(K, dtype=np.int64)
    else:
        order = order_levels(X, feature, codes=codes, n_levels=K)
    rank = np.empty(K, dtype=np.int64)
    rank[order] = np.arange(K)
    used_levels = [levels[i] for i in used]
    new_levels = [used_levels[i] for i in order]
    pos = rank[codes]
    counts = np.bincount(pos, minlength=K).astype(float)
    return CategoricalLevels(new_levels, pos, counts, encode_values(data, feature, new_levels))


def _levels_column(levels: list, idx: np.ndarray) -> pd.Categorical:
    """A categorical of ``levels[idx]`` whose categories are ``levels`` in that (ALE) order."""
    return pd.Categorical.from_codes(np.asarray(idx, dtype=np.int64), categories=pd.Index(levels, dtype=object))


# ---------------------------------------------------------------------------- empty cells
def impute_cells(values: np.ndarray, x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Fill empty 2-D ALE cells with the value of the nearest non-empty cell.

    R equivalent: ``iml:::impute_cells`` (spec §7.4): nearest in the normalised cell-centre
    coordinates (``x1[i]``, ``x2[j]``), found with ANN's kd-tree so ties go where they go in R.

    Parameters
    ----------
    values : numpy.ndarray, shape (K1, K2, k)
        Cell means per class; NaN marks an empty cell (the same cells in every class).
    x1, x2 : numpy.ndarray, shape (K1,) and (K2,)
        Normalised coordinates of the cells along each axis.

    Returns
    -------
    numpy.ndarray, shape (K1, K2, k)
    """
    K1, K2, k = values.shape
    flat = values.reshape(K1 * K2, k).copy()
    miss = np.isnan(flat[:, 0])
    if not miss.any():
        return values
    ii, jj = np.meshgrid(np.arange(K1), np.arange(K2), indexing="ij")
    z = np.column_stack([x1[ii.ravel()], x2[jj.ravel()]])
    ref = np.flatnonzero(~miss)
    nb = nearest(z[ref], z[miss])
    flat[miss] = flat[ref[nb]]
    return flat.reshape(K1, K2, k)


def _check_covered(rows: np.ndarray, feature: str, grid: np.ndarray) -> None:
    if rows.size == 0:
        raise ValueError(
            f"grid_points [{grid[0]:g}, …, {grid[-1]:g}] cover no data row of {feature}: ALE needs data "
            "inside the grid; give grid points that span the data"
        )


def _midpoints(grid: np.ndarray) -> np.ndarray:
    """``(z[i-1] + z[i]) / (2 * (max z − min z))`` for intervals i = 1..K (iml's cell coordinates)."""
    rng = grid.max() - grid.min()
    return (grid[:-1] + grid[1:]) / (2 * rng)


def _half_steps(grid: np.ndarray):
    """Half distances to the previous / next grid point (0 at the ends): iml's rectangle bounds."""
    d = 0.5 * np.diff(np.concatenate(([grid[0]], grid, [grid[-1]])))
    return d[:-1], d[1:]


# ---------------------------------------------------------------------------- 1-D numeric
@dataclass
class AleNumPlan:
    """ALE of one numerical or integer feature (R: ``calculate.ale.num``).

    Parameters
    ----------
    data : pyiml.data.Data
    feature : str
    grid : numpy.ndarray
        Sorted distinct grid points ``z_0..z_K`` (K ≥ 1).
    grid_column : numpy.ndarray
        The grid as it appears in the results (its dtype).
    intervals : numpy.ndarray, optional
        Every data row's interval (1..K) when the grid spans the data and they are known
        (:func:`pyiml._algorithms.grids.ale_grid`); found here otherwise.
    """

    data: object
    feature: str
    grid: np.ndarray
    grid_column: np.ndarray
    intervals: Optional[np.ndarray] = None
    blocks: List[Block] = field(init=False)

    def __post_init__(self):
        z = self.grid
        if self.intervals is not None:     # every row inside the grid
            rows, self.k = range(self.data.n_rows), self.intervals
        else:
            x = self.data.X[self.feature].to_numpy(dtype=float)
            rows = np.flatnonzero((x >= z[0]) & (x <= z[-1]))
            _check_covered(rows, self.feature, z)
            self.k = ale_interval(x[rows], z)            # 1..K
        self.k0 = self.k - 1                             # the lower ends' grid index, 0..K-1
        pool = {self.feature: encode_values(self.data, self.feature, self.grid_column)}
        self.blocks = [rows_block(rows, pool, {self.feature: self.k0}),
                       rows_block(rows, pool, {self.feature: self.k})]

    def curve(self, preds: List[np.ndarray]) -> np.ndarray:
        """The ALE at every grid point, shape (K+1, n_outputs)."""
        lower, upper = preds
        K = self.grid.size - 1
        delta = upper - lower
        d, cnt = _group_means(delta, self.k0, K)
        d = np.where(np.isnan(d), 0.0, d)
        C = np.vstack([np.zeros((1, d.shape[1])), _cumsum(d, axis=0)])
        _refuse_overflow(C, preds, self.feature)
        mids = (C[:-1] + C[1:]) / 2
        fj0 = _sum(mids * cnt[:, None], axis=0) / cnt.sum()
        return C - fj0

    def finish(self, preds: List[np.ndarray], output_names: List[str], center_at=None) -> pd.DataFrame:
        vals = self.curve(preds)
        if center_at is not None:      # pyiml: the curve is 0 at center_at (iml ignores it for ALE)
            vals = vals - np.array([r_approx(self.grid, vals[:, c], center_at)[0] for c in range(vals.shape[1])])
        K1, k = vals.shape
        #: the one-output curve (grid as float, values), copies of the results' columns
        self.curve_xy = (np.asarray(self.grid_column, dtype=float).copy(), vals[:, 0].copy()) if k == 1 else None
        out = {".type": np.full(K1 * k, "ale", dtype=object)}
        if k > 1:
            out[".class"] = _class_column(output_names, np.tile(np.arange(k), K1))
        out[".value"] = vals.ravel()
        out[self.feature] = np.repeat(np.asarray(self.grid_column), k)
        return pd.DataFrame(out, copy=False)


# ---------------------------------------------------------------------------- 1-D categorical
@dataclass
class AleCatPlan:
    """ALE of one categorical feature (R: ``calculate.ale.cat``).

    Rows move one level up and one level down in the ALE order; the jumps' mean prediction
    differences are accumulated and centred by the level frequencies.
    """

    data: object
    feature: str
    blocks: List[Block] = field(init=False)

    def __post_init__(self):
        X = self.data.X
        lev = categorical_levels(self.data, X, self.feature)
        self.lev = lev
        K = len(lev.levels)
        n = self.data.n_rows
        pool = {self.feature: lev.encoded}
        self.inc = np.flatnonzero(lev.pos < K - 1)
        self.dec = np.flatnonzero(lev.pos > 0)
        all_rows = np.arange(n, dtype=np.int64)

        def make_all(s, e):
            return all_rows[s:e], {}

        self.blocks = [Block(n, {}, make_all, key="all-rows"),
                       rows_block(self.inc, pool, {self.feature: lev.pos[self.inc] + 1}),
                       rows_block(self.dec, pool, {self.feature: lev.pos[self.dec] - 1})]

    def finish(self, preds: List[np.ndarray], output_names: List[str], center_at=None) -> pd.DataFrame:
        yhat, up, down = preds
        lev = self.lev
        K = len(lev.levels)
        delta = np.vstack([up - yhat[self.inc], yhat[self.dec] - down])
        jump = np.concatenate([lev.pos[self.inc], lev.pos[self.dec] - 1])
        d, _ = _group_means(delta, jump, K - 1)
        A = np.vstack([np.zeros((1, d.shape[1])), _cumsum(d, axis=0)])
        _refuse_overflow(A, preds, self.feature)
        w = lev.counts / lev.counts.sum()
        vals = A - _sum(A * w[:, None], axis=0)
        k = vals.shape[1]
        out = {".type": np.full(K * k, "ale", dtype=object)}
        if k > 1:
            out[".class"] = _class_column(output_names, np.tile(np.arange(k), K))
        out[".value"] = vals.ravel()
        out[self.feature] = _levels_column(lev.levels, np.repeat(np.arange(K), k))
        return pd.DataFrame(out, copy=False)


# ---------------------------------------------------------------------------- 2-D numeric x numeric
@dataclass
class AleNumNumPlan:
    """Second-order ALE of two numerical/integer features (R: ``calculate.ale.num.num``)."""

    data: object
    features: List[str]
    grids: List[np.ndarray]
    grid_columns: List[np.ndarray]
    intervals: Optional[List[np.ndarray]] = None    # every row's intervals, as AleNumPlan's
    blocks: List[Block] = field(init=False)

    def __post_init__(self):
        f1, f2 = self.features
        z1, z2 = self.grids
        if self.intervals is not None:     # every row inside both grids
            rows = range(self.data.n_rows)
            self.i, self.j = self.intervals
        else:
            x1 = self.data.X[f1].to_numpy(dtype=float)
            x2 = self.data.X[f2].to_numpy(dtype=float)
            inside = (x1 <= z1[-1]) & (x1 >= z1[0]) & (x2 <= z2[-1]) & (x2 >= z2[0])
            rows = np.flatnonzero(inside)
            _check_covered(rows, f"{f1}, {f2}", z1)
            self.i = ale_interval(x1[rows], z1)
            self.j = ale_interval(x2[rows], z2)
        pools = {f1: encode_values(self.data, f1, self.grid_columns[0]),
                 f2: encode_values(self.data, f2, self.grid_columns[1])}
        lo1, up1, lo2, up2 = self.i - 1, self.i, self.j - 1, self.j
        self.blocks = [rows_block(rows, pools, {f1: lo1, f2: lo2}),
                       rows_block(rows, pools, {f1: up1, f2: lo2}),
                       rows_block(rows, pools, {f1: lo1, f2: up2}),
                       rows_block(rows, pools, {f1: up1, f2: up2})]

    def finish(self, preds: List[np.ndarray], output_names: List[str], center_at=None) -> pd.DataFrame:
        p11, p21, p12, p22 = preds
        z1, z2 = self.grids
        K1, K2 = z1.size - 1, z2.size - 1
        delta = (p22 - p21) - (p12 - p11)
        k = delta.shape[1]
        cell = (self.i - 1) * K2 + (self.j - 1)
        means, cnt = _group_means(delta, cell, K1 * K2)
        N = cnt.reshape(K1, K2)
        dl = impute_cells(means.reshape(K1, K2, k), _midpoints(z1), _midpoints(z2))
        dl = np.where(np.isnan(dl), 0.0, dl)
        rows_out = []
        for c in range(k):
            F1 = np.hstack([np.zeros((K1, 1)), _cumsum(dl[:, :, c], axis=1)])       # (K1, K2+1)
            F = np.vstack([np.zeros((1, K2 + 1)), _cumsum(F1, axis=0)])             # (K1+1, K2+1)
            D1 = F[1:, :] - F[:-1, :]                                               # (K1, K2+1)
            with np.errstate(invalid="ignore", divide="ignore"):
                a1 = _sum(N * (D1[:, :-1] + D1[:, 1:]) / 2, axis=1) / N.sum(axis=1)
                D2 = F[:, 1:] - F[:, :-1]                                           # (K1+1, K2)
                a2 = _sum(N * (D2[:-1, :] + D2[1:, :]) / 2, axis=0) / N.sum(axis=0)
            A1 = np.concatenate(([0.0], _cumsum(np.where(np.isnan(a1), 0.0, a1))))
            A2 = np.concatenate(([0.0], _cumsum(np.where(np.isnan(a2), 0.0, a2))))
            G = F - A1[:, None] - A2[None, :]
            terms = N * (G[:-1, :-1] + G[:-1, 1:] + G[1:, :-1] + G[1:, 1:]) / 4
            fj0 = _sum(np.where(np.isnan(terms), 0.0, terms).T) / N.sum()
            ale = F - A1[:, None] - A2[None, :] - fj0
            rows_out.append(ale.T.ravel())                  # j-major, i fastest
        ii = np.tile(np.arange(K1 + 1), K2 + 1)
        jj = np.repeat(np.arange(K2 + 1), K1 + 1)
        left_half1, right_half1 = _half_steps(z1)
        left_half2, right_half2 = _half_steps(z2)
        m = (K1 + 1) * (K2 + 1)
        out = {".type": np.full(m * k, "ale", dtype=object)}
        if k > 1:
            out[".class"] = _class_column(output_names, np.repeat(np.arange(k), m))
        out[".ale"] = np.concatenate(rows_out)
        ii_k, jj_k = np.tile(ii, k), np.tile(jj, k)
        out[".right"] = z1[ii_k] + right_half1[ii_k]
        out[".left"] = z1[ii_k] - left_half1[ii_k]
        out[".bottom"] = z2[jj_k] + right_half2[jj_k]
        out[".top"] = z2[jj_k] - left_half2[jj_k]
        out[self.features[0]] = np.asarray(self.grid_columns[0])[ii_k]
        out[self.features[1]] = np.asarray(self.grid_columns[1])[jj_k]
        return pd.DataFrame(out, copy=False)


# ---------------------------------------------------------------------------- 2-D numeric x categorical
@dataclass
class AleNumCatPlan:
    """Second-order ALE of a numerical/integer and a categorical feature (R: ``calculate.ale.num.cat``).

    ``features`` is ``[numeric, categorical]``; the results list the numeric feature first, as
    iml does whatever order the features were given in.
    """

    data: object
    features: List[str]
    grid: np.ndarray
    grid_column: np.ndarray
    intervals: Optional[np.ndarray] = None    # every row's interval, as AleNumPlan's
    blocks: List[Block] = field(init=False)

    def __post_init__(self):
        fnum, fcat = self.features
        z = self.grid
        if self.intervals is not None:     # every row inside the grid
            rows = np.arange(self.data.n_rows)
            self.k_int = self.intervals
        else:
            x = self.data.X[fnum].to_numpy(dtype=float)
            rows = np.flatnonzero((x >= z[0]) & (x <= z[-1]))
            _check_covered(rows, fnum, z)
            self.k_int = ale_interval(x[rows], z)
        whole = rows.size == self.data.n_rows
        Xf = self.data.X if whole else self.data.X.iloc[rows]
        lev = categorical_levels(self.data, Xf, fcat,
                                 None if whole else f"inside the grid points of {fnum!r} ({z[0]:g} to {z[-1]:g})")
        self.lev = lev
        K = len(lev.levels)
        pools = {fnum: encode_values(self.data, fnum, self.grid_column), fcat: lev.encoded}
        pos = lev.pos
        inc = np.flatnonzero(pos < K - 1)
        dec = np.flatnonzero(pos > 0)
        self.inc, self.dec = inc, dec
        lo, up = self.k_int - 1, self.k_int
        blocks = []
        for sel, (ca, cb) in ((inc, (pos, pos + 1)), (dec, (pos - 1, pos))):
            r = rows[sel]
            blocks += [rows_block(r, pools, {fnum: lo[sel], fcat: ca[sel]}),
                       rows_block(r, pools, {fnum: lo[sel], fcat: cb[sel]}),
                       rows_block(r, pools, {fnum: up[sel], fcat: ca[sel]}),
                       rows_block(r, pools, {fnum: up[sel], fcat: cb[sel]})]
        self.blocks = blocks

    def finish(self, preds: List[np.ndarray], output_names: List[str], center_at=None) -> pd.DataFrame:
        fnum, fcat = self.features
        z = self.grid
        M = z.size - 1
        lev = self.lev
        K = len(lev.levels)
        d_inc = (preds[3] - preds[1]) - (preds[2] - preds[0])
        d_dec = (preds[7] - preds[5]) - (preds[6] - preds[4])
        delta = np.vstack([d_inc, d_dec])
        k = delta.shape[1]
        J = np.concatenate([lev.pos[self.inc], lev.pos[self.dec] - 1])            # 0..K-2
        m = np.concatenate([self.k_int[self.inc], self.k_int[self.dec]]) - 1       # 0..M-1
        means, _ = _group_means(delta, J * M + m, (K - 1) * M)
        x1 = np.arange(1, K, dtype=float) / (K - 1)
        dl = impute_cells(means.reshape(K - 1, M, k), x1, _midpoints(z))
        N = np.zeros((K, M + 1))
        np.add.at(N, (lev.pos, self.k_int), 1.0)
        Nm = N[:, 1:]
        rows_out = []
        for c in range(k):
            F1 = np.hstack([np.zeros((K - 1, 1)), _cumsum(dl[:, :, c], axis=1)])    # (K-1, M+1)
            F = np.vstack([np.zeros((1, M + 1)), _cumsum(F1, axis=0)])              # (K, M+1)
            with np.errstate(invalid="ignore", divide="ignore"):
                a2 = _sum(Nm * (F[:, 1:] - F[:, :-1]), axis=0) / Nm.sum(axis=0)
                D = F[1:, :] - F[:-1, :]                                            # (K-1, M+1)
                cw = (N[1:, :] + N[:-1, :]) / 2                                     # (K-1, M+1)
                e = (D[:, 1:] + D[:, :-1]) / 2
                a1 = _sum(e * cw[:, 1:], axis=1) / cw[:, 1:].sum(axis=1)
            A2 = np.concatenate(([0.0], _cumsum(a2)))
            A1 = np.concatenate(([0.0], _cumsum(np.where(np.isnan(a1), 0.0, a1))))
            G = F - A1[:, None] - A2[None, :]
            terms = Nm * (G[:, :-1] + G[:, 1:]) / 2
            fj0 = _sum(np.where(np.isnan(terms), 0.0, terms).T) / Nm.sum()
            ale = F - A1[:, None] - A2[None, :] - fj0
            rows_out.append(ale.T.ravel())                  # m-major, level fastest
        LL = np.tile(np.arange(K), M + 1)
        mm = np.repeat(np.arange(M + 1), K)
        lh, rh = _half_steps(z)
        size = K * (M + 1)
        out = {".type": np.full(size * k, "ale", dtype=object)}
        if k > 1:
            out[".class"] = _class_column(output_names, np.repeat(np.arange(k), size))
        out[".ale"] = np.concatenate(rows_out)
        LL_k, mm_k = np.tile(LL, k), np.tile(mm, k)
        out[".right"] = 1 + LL_k + 0.5
        out[".left"] = 1 + LL_k - 0.5
        out[".bottom"] = z[mm_k] + rh[mm_k]
        out[".top"] = z[mm_k] - lh[mm_k]
        out[fnum] = np.asarray(self.grid_column)[mm_k]
        out[fcat] = _levels_column(lev.levels, LL_k)
        return pd.DataFrame(out, copy=False)
