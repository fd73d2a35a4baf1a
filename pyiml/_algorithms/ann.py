"""Exact nearest neighbours with the tie-breaking of ANN's kd-tree (as ``yaImpute::ann`` uses it).

R equivalent: ``yaImpute::ann(ref, target, k = 1, eps = 0, tree.type = "kd",
search.type = "standard", bucket.size = 1, split.rule = "sl_midpt")``, which iml's
``impute_cells`` calls to fill empty 2-D ALE cells (spec §7.4). Among several equally near
reference points the one returned depends on how the tree was built and searched, so this is a
restatement of that algorithm (Arya & Mount's ANN library), not a generic nearest-neighbour search:

Build (bucket size 1, "sliding midpoint" rule). Start with the indices 0..n−1 and the smallest
box enclosing the points. A cell with at most one point is a leaf. Otherwise take the longest
box side (ties within a relative 0.001: the side along which the points spread most, first such
dimension on equal spread); the ideal cut is the box midpoint along it, slid to the points'
minimum or maximum when all points lie on one side. The index array is partitioned in place
(two-pointer swaps: first ``< cut`` to the front, then ``== cut`` after them); the number of
points sent to the low side is 1 (slid to the minimum), n − 1 (slid to the maximum), or the
count closest to n/2 that respects the partition. Children get the box split at the cut.

Search (eps = 0, k = 1). Start at the root with the squared distance of the query to the
bounding box. At a split visit the child on the query's side first, then the other one only if
the box distance updated with ``+ (cut_diff² − box_diff²)`` is strictly below the best squared
distance so far. A leaf point replaces the current best only when strictly nearer. Hence a tie
keeps the point found first in this traversal.
"""
from __future__ import annotations

from typing import List

import numpy as np

__all__ = ["KDTree", "nearest"]

_SMERR = 0.001
_DBL_MAX = np.finfo(float).max


class _Leaf:
    __slots__ = ("idx",)

    def __init__(self, idx: int):
        self.idx = idx


class _Split:
    __slots__ = ("cut_dim", "cut_val", "lo_bnd", "hi_bnd", "lo", "hi")

    def __init__(self, cut_dim, cut_val, lo_bnd, hi_bnd, lo, hi):
        self.cut_dim = cut_dim
        self.cut_val = cut_val
        self.lo_bnd = lo_bnd
        self.hi_bnd = hi_bnd
        self.lo = lo
        self.hi = hi


def _plane_split(pts: List[List[float]], pidx: List[int], lo: int, n: int, d: int, cv: float):
    """Partition ``pidx[lo:lo+n]`` about ``cv`` along ``d`` as ANN's two-pass swap does.

    Returns ``(br1, br2)`` relative to ``lo``: ``[0, br1)`` < cv, ``[br1, br2)`` == cv, rest > cv.
    """
    def val(i):
        return pts[pidx[lo + i]][d]

    def swap(a, b):
        pidx[lo + a], pidx[lo + b] = pidx[lo + b], pidx[lo + a]

    left, right = 0, n - 1
    while True:
        while left < n and val(left) < cv:
            left += 1
        while right >= 0 and val(right) >= cv:
            right -= 1
        if left > right:
            break
        swap(left, right)
        left += 1
        right -= 1
    br1 = left
    right = n - 1
    while True:
        while left < n and val(left) <= cv:
            left += 1
        while right >= br1 and val(right) > cv:
            right -= 1
        if left > right:
            break
        swap(left, right)
        left += 1
        right -= 1
    return br1, left


class KDTree:
    """ANN kd-tree (bucket size 1, sliding-midpoint splits) over the rows of ``points``.

    Parameters
    ----------
    points : array-like, shape (n, dim)
        Reference points (n ≥ 1).
    """

    def __init__(self, points):
        pts = np.asarray(points, dtype=float)
        if pts.ndim != 2 or pts.shape[0] == 0:
            raise ValueError(f"points must be a non-empty 2-d array, got shape {pts.shape}")
        self.points = pts
        self.n, self.dim = pts.shape
        self._pts = pts.tolist()
        self.box_lo = pts.min(axis=0).tolist()
        self.box_hi = pts.max(axis=0).tolist()
        pidx = list(range(self.n))
        self.root = self._build(pidx, 0, self.n, list(self.box_lo), list(self.box_hi))

    def _build(self, pidx: List[int], lo: int, n: int, blo: List[float], bhi: List[float]):
        if n <= 1:
            return _Leaf(pidx[lo]) if n == 1 else None
        pts, dim = self._pts, self.dim
        max_len = bhi[0] - blo[0]
        for d in range(1, dim):
            ln = bhi[d] - blo[d]
            if ln > max_len:
                max_len = ln
        max_spread = -1.0
        cut_dim = 0
        for d in range(dim):
            if (bhi[d] - blo[d]) >= (1 - _SMERR) * max_len:
                vals = [pts[pidx[lo + i]][d] for i in range(n)]
                mn = mx = vals[0]
                for c in vals[1:]:
                    if c < mn:
                        mn = c
                    elif c > mx:
                        mx = c
                spr = mx - mn
                if spr > max_spread:
                    max_spread = spr
                    cut_dim = d
        ideal = (blo[cut_dim] + bhi[cut_dim]) / 2
        vals = [pts[pidx[lo + i]][cut_dim] for i in range(n)]
        mn = mx = vals[0]
        for c in vals[1:]:
            if c < mn:
                mn = c
            elif c > mx:
                mx = c
        cut_val = mn if ideal < mn else (mx if ideal > mx else ideal)
        br1, br2 = _plane_split(pts, pidx, lo, n, cut_dim, cut_val)
        half = n // 2
        if ideal < mn:
            n_lo = 1
        elif ideal > mx:
            n_lo = n - 1
        elif br1 > half:
            n_lo = br1
        elif br2 < half:
            n_lo = br2
        else:
            n_lo = half
        lv, hv = blo[cut_dim], bhi[cut_dim]
        bhi[cut_dim] = cut_val
        lo_child = self._build(pidx, lo, n_lo, blo, bhi)
        bhi[cut_dim] = hv
        blo[cut_dim] = cut_val
        hi_child = self._build(pidx, lo + n_lo, n - n_lo, blo, bhi)
        blo[cut_dim] = lv
        return _Split(cut_dim, cut_val, lv, hv, lo_child, hi_child)

    def query1(self, q) -> int:
        """Index of the nearest reference point to ``q`` (ANN's exact search, its tie-breaking)."""
        q = [float(v) for v in q]
        dist0 = 0.0
        for d in range(self.dim):
            if q[d] < self.box_lo[d]:
                t = self.box_lo[d] - q[d]
                dist0 = dist0 + t * t
            elif q[d] > self.box_hi[d]:
                t = q[d] - self.box_hi[d]
                dist0 = dist0 + t * t
        best = [_DBL_MAX, -1]
        pts, dim = self._pts, self.dim

        def search(node, box_dist):
            if node is None:
                return
            if isinstance(node, _Leaf):
                p = pts[node.idx]
                min_dist = best[0]
                dist = 0.0
                for d in range(dim):
                    t = q[d] - p[d]
                    dist = dist + t * t
                    if dist > min_dist:
                        return
                if best[1] < 0 or dist < best[0]:
                    best[0] = dist
                    best[1] = node.idx
                return
            cut_diff = q[node.cut_dim] - node.cut_val
            if cut_diff < 0:
                search(node.lo, box_dist)
                box_diff = node.lo_bnd - q[node.cut_dim]
                if box_diff < 0:
                    box_diff = 0.0
                box_dist = box_dist + (cut_diff * cut_diff - box_diff * box_diff)
                if box_dist < best[0]:
                    search(node.hi, box_dist)
            else:
                search(node.hi, box_dist)
                box_diff = q[node.cut_dim] - node.hi_bnd
                if box_diff < 0:
                    box_diff = 0.0
                box_dist = box_dist + (cut_diff * cut_diff - box_diff * box_diff)
                if box_dist < best[0]:
                    search(node.lo, box_dist)

        search(self.root, dist0)
        return best[1]


#: Brute-force distance matrices up to this many entries are used to settle clear nearest points.
_BRUTE_MAX = 4 * 10 ** 6


def nearest(ref, queries) -> np.ndarray:
    """For each query row the 0-based index of its nearest ``ref`` row, ANN's tie-breaking.

    R equivalent: ``yaImpute::ann(ref, queries, k = 1)$knnIndexDist[, 1] - 1``.

    A query whose nearest point is clear (the second nearest farther by more than rounding
    could blur: relative 1e-9, absolute 1e-12 of the squared extent) has one answer, which ANN's
    exact search returns too; it is taken from all distances at once. Only the others (ties,
    near ties) go through the kd-tree, built only when one is left.
    """
    queries = np.asarray(queries, dtype=float)
    ref_a = np.asarray(ref, dtype=float)
    if queries.ndim != 2:
        raise ValueError(f"queries must be a 2-d array, got shape {queries.shape}")
    if ref_a.ndim == 2 and ref_a.shape[0] > 0 and queries.shape[1] == ref_a.shape[1] \
            and queries.shape[0] * ref_a.shape[0] <= _BRUTE_MAX and np.isfinite(ref_a).all() \
            and np.isfinite(queries).all():
        out = np.full(len(queries), -1, dtype=np.int64)
        if len(ref_a) == 1:
            out[:] = 0
            return out
        d2 = np.zeros((len(queries), len(ref_a)))
        for d in range(ref_a.shape[1]):
            t = queries[:, d, None] - ref_a[None, :, d]
            d2 += t * t
        rows = np.arange(len(queries))
        best = d2.argmin(axis=1)
        lo = d2[rows, best]
        d2[rows, best] = np.inf
        hi = d2.min(axis=1)  # the second smallest distance (lo again for a tie)
        allp = np.concatenate([ref_a, queries])
        extent = float(np.max(allp.max(axis=0) - allp.min(axis=0))) ** 2
        clear = hi - lo > 1e-9 * lo + 1e-12 * extent
        out[clear] = best[clear]
        if clear.all():
            return out
        tree = KDTree(ref_a)
        for i in np.flatnonzero(~clear):
            out[i] = tree.query1(queries[i])
        return out
    tree = KDTree(ref)
    if queries.shape[1] != tree.dim:
        raise ValueError(f"queries have {queries.shape[1]} columns but ref has {tree.dim}")
    return np.array([tree.query1(q) for q in queries], dtype=np.int64)
