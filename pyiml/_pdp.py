"""Partial dependence (PDP) and individual conditional expectation (ICE) curves.

R equivalent: ``FeatureEffect``'s private ``run.pdp`` with iml's ``MarginalGenerator``
(iml 0.11.4, spec §6 and §9.2). The design is "every data row at every grid point" (G·n rows);
it is never built as a whole: :class:`Block` describes it and :func:`predict_blocks` builds and
predicts it ``batch_size`` rows at a time. The estimators of :mod:`pyiml._ale` use the same
machinery.

Results follow iml's layout exactly: PDP rows first (one per unique grid value, or per
(value, class)), then ICE rows sorted by ``.id``; columns ``<feature(s)>, [.class], .value, .type,
[.id]``. With several outputs iml stacks the classes batch by batch, which makes the row order
depend on ``batch_size`` (and, for ICE rows, on the permutations iml draws); :class:`PDPPlan`
reproduces that order from the same batch boundaries and permutations.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ._design import take_into
from ._text import shown

__all__ = ["Block", "predict_blocks", "encode_values", "PDPPlan"]


# ---------------------------------------------------------------------------- design blocks
@dataclass
class Block:
    """A lazily built part of a design matrix.

    Row ``t`` of the block is data row ``rows(t)`` with each feature ``f`` in ``pools`` replaced
    by ``pools[f][index_f(t)]``. ``make(start, stop)`` returns ``(rows, {f: index})`` for the
    block rows ``start..stop-1``. Pools hold encoded values (category codes for pandas
    categoricals, values otherwise; see :func:`encode_values`).

    Attributes
    ----------
    length : int
    pools : dict
    make : callable
    key : hashable, optional
        Blocks with the same key are the same design; :func:`predict_blocks` predicts them once.
    reduce : callable, optional
        ``reduce(start, stop, values)`` consumes the predictions of block rows ``start..stop-1``
        instead of storing them (PDP without ICE keeps only sums per grid row).
    fill : callable, optional
        Fast path: ``fill(start, stop, enc, out)`` writes the block rows ``start..stop-1`` of
        every feature ``c`` in ``out`` into the array ``out[c]`` (same result as ``make``,
        without index arrays).
    signature : callable, optional
        ``signature(start, stop)``: a hashable that is equal for two row ranges exactly when the
        features not in ``pools`` hold the same values there (e.g. the same data rows). Lets
        :func:`predict_blocks` leave those columns of its reused design buffer as they are.
    """

    length: int
    pools: Dict[str, np.ndarray]
    make: Callable[[int, int], Tuple[np.ndarray, Dict[str, np.ndarray]]]
    key: Optional[object] = None
    reduce: Optional[Callable[[int, int, np.ndarray], None]] = None
    fill: Optional[Callable[[int, int, Dict[str, np.ndarray], Dict[str, np.ndarray]], None]] = None
    signature: Optional[Callable[[int, int], object]] = None


def rows_block(rows, pools: Dict[str, np.ndarray], index: Dict[str, np.ndarray],
               key: Optional[object] = None) -> Block:
    """A block whose row ``t`` is data row ``rows[t]`` with ``f := pools[f][index[f][t]]``.

    ``rows``: an index array, or a ``range`` of consecutive data rows (no index array made)."""
    index = {f: np.asarray(v, dtype=np.int64) for f, v in index.items()}
    if isinstance(rows, range) and rows.step == 1:
        consecutive, length = True, len(rows)
        r0 = rows.start

        def make(s, e):
            return np.arange(r0 + s, r0 + e, dtype=np.int64), {f: v[s:e] for f, v in index.items()}
    else:
        rows = np.asarray(rows, dtype=np.int64)
        length = len(rows)
        consecutive = bool(length) and rows[-1] - rows[0] == length - 1 and (length < 2 or np.all(np.diff(rows) == 1))
        r0 = int(rows[0]) if consecutive else 0

        def make(s, e):
            return rows[s:e], {f: v[s:e] for f, v in index.items()}

    fill = signature = None
    if consecutive and length:

        def signature(s, e):
            return ("rows", r0 + s, r0 + e)

        def fill(s, e, enc, out):       # consecutive data rows: slice copies
            for c, dst in out.items():
                if c not in pools:
                    dst[:] = enc[c][r0 + s:r0 + e]
                else:
                    take_into(dst, pools[c], index[c][s:e])

    return Block(length, pools, make, key, fill=fill, signature=signature)


def encode_values(data, feature: str, values) -> np.ndarray:
    """Values of ``feature`` in :meth:`pyiml.data.Data.encoded`'s encoding.

    Category codes for a pandas categorical column (``ValueError`` for values that are not
    categories); the values themselves otherwise. A float grid of a numpy integer feature
    whose points are all whole numbers (and fit the dtype) takes the feature's dtype, so that
    the model gets the column type it was trained on (iml's grid is a double column: the issue
    of models that refuse it); other points keep theirs, as numpy widens ``int64`` to
    ``float64`` (a grid point 2.5). A ``float32`` feature likewise keeps its dtype where every
    point is a ``float32`` value (ALE's quantile grid), else the points stay ``float64``.
    """
    col = data.X[feature]
    if isinstance(col.dtype, pd.CategoricalDtype):
        vals = pd.Series(values, dtype=object) if not isinstance(values, (pd.Series, pd.Categorical)) else values
        cat = pd.Categorical(vals, dtype=col.dtype)
        codes = np.asarray(cat.codes, dtype=np.int64)
        bad = codes < 0
        if bad.any():
            given = list(pd.Series(values, dtype=object)[bad])[:5]
            raise ValueError(
                f"values {shown(given)} are not levels of the categorical feature {shown(feature)} "
                f"(levels: {list(col.cat.categories)})"
            )
        return codes
    if pd.api.types.is_bool_dtype(col.dtype):
        return np.asarray(values, dtype=bool)
    arr = np.asarray(values)
    if arr.dtype.kind in "OUST" and col.dtype.kind in "fiu":
        raise ValueError(f"values for the numerical feature {feature!r} must be numbers, got {shown(list(arr[:5]))}")
    if arr.dtype.kind in "UST":     # (T: numpy 2's StringDType)
        arr = arr.astype(object)
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu" and arr.dtype.kind == "f" and arr.size:
        info = np.iinfo(col.dtype)
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(arr).all() and (arr == np.floor(arr)).all()
        # one past the largest value, as a double: 2**bits (float of int64's max is already 2**63)
        if whole and arr.min() >= float(info.min) and arr.max() < float(info.max) + 1.0:
            return arr.astype(col.dtype)
    if isinstance(col.dtype, np.dtype) and col.dtype.kind == "f" and col.dtype.itemsize < 8 \
            and arr.dtype == np.float64 and arr.size:
        # float32 (float16): kept where every grid point is one of its values (ALE's quantiles are
        # data values), else widened to float64 so the model is evaluated at the reported points
        narrow = arr.astype(col.dtype)
        with np.errstate(invalid="ignore"):
            if np.array_equal(narrow.astype(np.float64), arr, equal_nan=True):
                return narrow
    return arr


def _design_frame(data, enc: Dict[str, np.ndarray], parts, buffer: Optional[dict] = None) -> pd.DataFrame:
    """The design rows of several block ranges ``(block, start, stop)`` as one DataFrame.

    Column ``c`` of a block range is ``pools[c][index]`` for replaced features and
    ``enc[c][rows]`` for the others. All-float data are gathered into one 2-D float block
    (one pandas block, no per-column frames); otherwise each column is written into one array
    (the dtype the pieces promote to, as ``np.concatenate`` would give) and decoded to the data's
    dtypes by :meth:`pyiml.data.Data.decode_frame`. Blocks with a ``fill`` write their rows
    without index arrays in both cases.
    """
    names = data.feature_names
    m = sum(hi - lo for _, lo, hi in parts)
    if data.all_float:
        keep = set()   # columns the buffer already holds (unchanged data columns of the last batch)
        if buffer is not None:
            mat = buffer.get("mat")
            if mat is None or mat.shape[1] < m:
                mat = buffer["mat"] = np.empty((len(names), m))
                buffer["sig"] = None
            mat = mat[:, :m]
            keep, buffer["sig"], buffer["pooled"] = _reusable(parts, names, buffer.get("sig"),
                                                              buffer.get("pooled", set()))
        else:
            mat = np.empty((len(names), m))
        _write_parts(parts, enc, {c: mat[j] for j, c in enumerate(names) if c not in keep})
        return pd.DataFrame(mat.T, columns=data.feature_index, copy=False)
    cols = {c: np.empty(m, dtype=np.result_type(*[b.pools[c].dtype if c in b.pools else enc[c].dtype
                                                   for b, _, _ in parts])) for c in names}
    _write_parts(parts, enc, cols)
    return data.decode_frame(cols)


def _write_parts(parts, enc: Dict[str, np.ndarray], cols: Dict[str, np.ndarray]) -> None:
    """Write the block ranges ``(block, start, stop)`` one after the other into the columns
    ``cols`` (feature -> array of all their rows), through the block's ``fill`` where it has one."""
    a = 0
    for b, lo, hi in parts:
        e = a + hi - lo
        if b.fill is not None:
            b.fill(lo, hi, enc, {c: col[a:e] for c, col in cols.items()})
        else:
            rows, idx = b.make(lo, hi)
            for c, col in cols.items():
                take_into(col[a:e], *((b.pools[c], idx[c]) if c in b.pools else (enc[c], rows)))
        a = e


def _reusable(parts, names, last_sig, last_pooled):
    """Which data columns a reused buffer already holds for this batch.

    Returns ``(keep, sig, pooled)``: the columns to leave as they are (set by no block of this
    batch or the last, with the same data rows at the same places: equal signatures), and this
    batch's signature and replaced columns for the next call."""
    pooled = set()
    sig = []
    a = 0
    for b, lo, hi in parts:
        pooled.update(b.pools)
        sig.append((a, None if b.signature is None else b.signature(lo, hi)))
        a += hi - lo
    sig = tuple(sig)
    if any(s is None for _, s in sig):
        return set(), None, pooled
    if sig != last_sig:
        return set(), sig, pooled
    return {c for c in names if c not in pooled and c not in last_pooled}, sig, pooled


def predict_blocks(predictor, blocks: Sequence[Block], batch_size: Optional[int] = None) -> List[Optional[np.ndarray]]:
    """Predict every block of a design; returns one ``(length, k)`` array per block.

    All blocks form one virtual design that is built and predicted ``batch_size`` rows at a time
    (:meth:`pyiml.Predictor.predict_batched`), so a batch may span blocks and memory stays
    bounded by ``batch_size`` rows of design. Blocks sharing a ``key`` are predicted once. A
    block with a ``reduce`` callable is not stored: its predictions are handed to
    ``reduce(start, stop, values)`` batch by batch and None is returned for it.

    With all-float data the batches share one design buffer: the DataFrame the model gets for a
    batch is overwritten by the next batch (the predictions are consumed first), and the data
    columns that stay the same from one batch to the next are not written again, so a model must
    neither keep a reference to its input nor modify it, as no scikit-learn-style ``predict`` does.
    """
    data = predictor.data
    enc = data.encoded()
    uniq: List[Block] = []
    where: List[int] = []
    seen: Dict[object, int] = {}
    for b in blocks:
        if b.key is not None and b.key in seen:
            where.append(seen[b.key])
            continue
        if b.key is not None:
            seen[b.key] = len(uniq)
        where.append(len(uniq))
        uniq.append(b)
    lengths = np.array([b.length for b in uniq], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    total = int(offsets[-1])

    def overlapping(s: int, e: int):
        i = int(np.searchsorted(offsets, s, side="right") - 1)
        while i < len(uniq) and offsets[i] < e:
            lo = max(s, int(offsets[i])) - int(offsets[i])
            hi = min(e, int(offsets[i + 1])) - int(offsets[i])
            if hi > lo:
                yield i, lo, hi
            i += 1

    buffer: dict = {}

    def make_batch(s: int, e: int) -> pd.DataFrame:
        return _design_frame(data, enc, [(uniq[i], lo, hi) for i, lo, hi in overlapping(s, e)], buffer)

    out: List[Optional[np.ndarray]] = [None] * len(uniq)

    def sink(s: int, e: int, vals: np.ndarray) -> None:
        for i, lo, hi in overlapping(s, e):
            v = vals[int(offsets[i]) + lo - s:int(offsets[i]) + hi - s]
            b = uniq[i]
            if b.reduce is not None:
                b.reduce(lo, hi, v)
                continue
            if out[i] is None:
                out[i] = np.empty((b.length, vals.shape[1]))
            out[i][lo:hi] = v

    predictor.predict_batched(total, make_batch, batch_size=batch_size, sink=sink)
    k = len(predictor.output_names) if predictor.output_names else 1
    for i, b in enumerate(uniq):
        if out[i] is None and b.reduce is None:
            out[i] = np.empty((0, k))
    return [out[w] for w in where]


# ---------------------------------------------------------------------------- PDP / ICE
def _unique_first(keys: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Group id of each key (in order of first appearance) and the first position per group."""
    if keys.size and (keys[1:] > keys[:-1]).all():   # distinct and in order (a plain grid)
        ids = np.arange(keys.size)
        return ids, ids.copy()
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inv.ravel()], first[order]


def _grid_runs(s: int, e: int, n: int):
    """Design rows ``s..e-1`` of "every data row at every grid row" (row ``t`` = data row
    ``t % n`` at grid row ``t // n``) as runs ``(pos, g, r, k, whole)``, ``pos`` counted from
    ``s``: ``k`` whole grid rows from ``g`` (``whole``), or ``k`` data rows from ``r`` of grid
    row ``g`` (a partial run at either end)."""
    m, pos, g, r = e - s, 0, s // n, s % n
    if r:
        k = min(n - r, m)
        yield 0, g, r, k, False
        pos, g = k, g + 1
    full = (m - pos) // n
    if full:
        yield pos, g, 0, full, True
        pos, g = pos + full * n, g + full
    if pos < m:
        yield pos, g, 0, m - pos, False


@dataclass
class PDPPlan:
    """PDP / ICE for one or two features on a grid of G rows.

    Parameters
    ----------
    data : pyiml.data.Data
    features : list of str
        One or two features.
    pools, grid_index : dict
        Per feature, the encoded distinct grid values (in order of first appearance) and each
        grid row's index into them (length G; two features: expand.grid order).
    output_columns : list of pandas-compatible arrays
        Per feature, the column as it appears in the results (length G), dtype included.
    method : {"pdp", "ice", "pdp+ice"}
    anchor : float or None
        The centring value (one feature only); ``anchor_rows`` are the grid rows equal to it.
    batch_size : int
        iml's ``batch.size``: decides how classes interleave in multi-output results.
    perms : numpy.ndarray of shape (G, n) or None
        The permutations iml's ``MarginalGenerator`` draws (they only order rows); None = identity.
    anchor_rows : numpy.ndarray or None
        Grid rows whose value is the anchor: every ICE curve is centred at its value there.
    """

    data: object
    features: List[str]
    pools: Dict[str, np.ndarray]
    grid_index: Dict[str, np.ndarray]
    output_columns: List[object]
    method: str
    anchor: Optional[float]
    batch_size: int
    perms: Optional[np.ndarray] = None
    anchor_rows: Optional[np.ndarray] = None
    blocks: List[Block] = field(init=False)

    def __post_init__(self):
        n = self.data.n_rows
        G = len(next(iter(self.grid_index.values())))
        self.n, self.G = n, G
        gidx = self.grid_index

        def make(s, e):
            t = np.arange(s, e, dtype=np.int64)
            g = t // n
            return t - g * n, {f: gidx[f][g] for f in self.features}

        self._sums = self._value = self._ice = self._V = self._W = None
        self._grp, self._first = _unique_first(self._grid_keys())   # grid row -> group of equal values
        # whether iml's sums follow a known order that per-grid-row sums cannot give (_group_sums):
        # the permutations drawn under RRandom, or (centred) merge's order; without either, iml's
        # order is random and the cheaper per-grid-row sums serve as well
        known = self.perms is not None or self.anchor_rows is not None
        self._ordered = known and (self._first.size < G or self.anchor_rows is None)
        if self.method == "pdp" and (self._ordered or self.anchor_rows is not None):
            def reduce(s, e, vals):       # every prediction kept, in design order (as iml does)
                if self._W is None:
                    self._W = np.empty((G, n, vals.shape[1]))
                self._W.reshape(G * n, -1)[s:e] = vals
        elif self.method == "pdp":        # no ICE rows: keep per-grid-row sums only
            # Each grid row's n predictions are added in one reduceat segment of exactly those n
            # rows, whatever the batches: a grid row cut by a batch end waits in ``carry`` (at
            # most n - 1 rows) for the rest, so the sums do not depend on batch_size or n_jobs.
            carry: List[np.ndarray] = []

            def reduce(s, e, vals):
                if self._sums is None:
                    self._sums = np.zeros((G, vals.shape[1]))
                pos = 0
                if s % n:                 # the batch starts inside grid row s // n
                    take = min(e, (s // n + 1) * n) - s
                    carry.append(vals[:take].copy())
                    if (s + take) % n:    # still incomplete at this batch's end
                        return
                    self._sums[s // n] = np.add.reduceat(np.concatenate(carry), [0], axis=0)[0]
                    carry.clear()
                    pos = take
                g0 = (s + pos) // n
                whole = (e - s - pos) // n
                if whole:
                    self._sums[g0:g0 + whole] = np.add.reduceat(
                        vals[pos:pos + whole * n], np.arange(whole) * n, axis=0)
                if pos + whole * n < e - s:   # a grid row cut by the batch end
                    carry.append(vals[pos + whole * n:].copy())
        else:                             # ICE rows: straight into their place in the results
            def reduce(s, e, vals):
                if self._ice is None and self._V is None:
                    self._start_ice(vals.shape[1])
                if self._ice is None:     # iml's class interleaving: kept in design order
                    self._V.reshape(G * n, -1)[s:e] = vals
                    return
                ice = self._ice           # (id, class, grid row)
                for pos, g, r, k, whole in _grid_runs(s, e, n):
                    if whole:
                        ice[:, :, g:g + k] = vals[pos:pos + k * n].reshape(k, n, -1).transpose(1, 2, 0)
                    else:
                        ice[r:r + k, :, g] = vals[pos:pos + k]

        def fill(s, e, enc, out):
            # the design runs through the data rows once per grid row: a partial run at each end,
            # whole grid rows in between (one broadcast copy per column)
            for pos, g, r, k, whole in _grid_runs(s, e, n):
                for c, dst in out.items():
                    if whole:
                        blk = dst[pos:pos + k * n].reshape(k, n)
                        blk[:] = self.pools[c][gidx[c][g:g + k]][:, None] if c in self.pools else enc[c][None, :]
                    elif c in self.pools:
                        dst[pos:pos + k] = self.pools[c][gidx[c][g]]
                    else:
                        dst[pos:pos + k] = enc[c][r:r + k]

        def signature(s, e):             # data rows s % n, ... cyclically
            return ("cycle", n, s % n, e - s)

        self.blocks = [Block(G * n, self.pools, make, reduce=reduce, fill=fill, signature=signature)]

    # ------------------------------------------------------------------
    def _simple_layout(self, k: int) -> bool:
        """ICE rows in plain (id, class, grid row) order: iml stacks classes per batch only
        for uncentred multi-output designs longer than one batch."""
        return k == 1 or self.anchor_rows is not None or self.G * self.n <= int(self.batch_size)

    def _start_ice(self, k: int) -> None:
        """Allocate the results' ``.value`` column (PDP rows first) with the ICE rows as an
        (n, k, G) view that the predictions are written into; or, for iml's class-interleaved
        order, a (G, n, k) buffer in design order."""
        n, G = self.n, self.G
        if self._simple_layout(k):
            P = self._first.size * k if self.method == "pdp+ice" else 0
            self._value = np.empty(P + n * k * G)
            self._ice = self._value[P:].reshape(n, k, G)
        else:
            self._V = np.empty((G, n, k))

    def _grid_keys(self) -> np.ndarray:
        """One integer per grid row identifying its value (pair): pools hold distinct values."""
        keys = np.zeros(self.G, dtype=np.int64)
        mult = 1
        for f in self.features:
            keys = keys + self.grid_index[f] * mult
            mult *= max(len(self.pools[f]), 1)
        return keys

    def finish(self, preds: List[np.ndarray], output_names: List[str]) -> pd.DataFrame:
        n, G = self.n, self.G
        anchored = self.anchor_rows is not None
        V = None
        W = None                          # (grid row, data row, class) values where order matters
        if self.method == "pdp" and self._W is not None:
            W = self._W
            k = W.shape[2]
            if anchored:
                W -= W[self.anchor_rows[0]].copy()[None, :, :]
        elif self.method == "pdp":        # reduced: sums per grid row
            row_sums = self._sums if self._sums is not None else np.zeros((G, len(output_names)))
            k = row_sums.shape[1]
        else:
            if self._ice is None and self._V is None:     # nothing was predicted
                self._start_ice(len(output_names))
            if self._ice is not None:     # (n, k, G), already in place in the value column
                iv = self._ice
                k = iv.shape[1]
                if anchored:
                    iv -= iv[:, :, self.anchor_rows[0]].copy()[:, :, None]
                if self._ordered:
                    W = iv.transpose(2, 0, 1)
                else:
                    row_sums = iv.sum(axis=0).T   # adds the data rows in order, as iml does here
            else:                         # never centred (_simple_layout)
                V = self._V
                k = V.shape[2]
                if self._ordered:
                    W = V
                else:
                    row_sums = V.sum(axis=1)
        multi = k > 1
        grp, first = self._grp, self._first
        U = first.size
        bs = int(self.batch_size)
        want_pdp = self.method in ("pdp", "pdp+ice")
        want_ice = self.method in ("ice", "pdp+ice")

        # ---- PDP rows: (grid row of the value, class) per row
        P = 0
        if want_pdp:
            if W is not None:
                sums = self._group_sums(W)
            else:
                sums = np.zeros((U, k))
                np.add.at(sums, grp, row_sums)
            cnt = np.bincount(grp, minlength=U).astype(float) * n
            means = sums / cnt[:, None]
            if multi and not (anchored or G * n <= bs):
                order_u, order_c = self._multiclass_pdp_order(grp, U, k)
            else:       # class-major (one class: just the values in grid order)
                order_u = np.tile(np.arange(U), k)
                order_c = np.repeat(np.arange(k), U)
            pdp_g, pdp_c, pdp_val = first[order_u], order_c, means[order_u, order_c]
            P = pdp_val.size

        # ---- ICE rows: sorted by id; within an id classes in turn and grid rows within, unless
        # iml's batches interleave the classes (then an explicit (id, class, grid row) order)
        M = n * k * G if want_ice else 0
        simple = self._simple_layout(k)
        if want_ice and not simple:
            ids, cs, gs = self._multiclass_ice_order(k)
        total = P + M
        ice = slice(P, total)

        def fill(dst, per_grid_row):
            """Column from its value per grid row: PDP rows, then ICE rows (without temporaries)."""
            if want_pdp:
                dst[:P] = per_grid_row[pdp_g]
            if want_ice:
                if simple:
                    dst[ice].reshape(n * k, G)[:] = per_grid_row[None, :]
                else:
                    dst[ice] = per_grid_row[gs]
            return dst

        cols: Dict[str, object] = {}
        for j, f in enumerate(self.features):
            col = self.output_columns[j]
            if isinstance(col, pd.Categorical):
                codes = fill(np.empty(total, dtype=np.int64), np.asarray(col.codes, dtype=np.int64))
                cols[f] = pd.Categorical.from_codes(codes, dtype=col.dtype)
            else:
                arr = np.asarray(col)
                cols[f] = fill(np.empty(total, dtype=arr.dtype), arr)
        if multi:
            ccodes = np.empty(total, dtype=np.int64)
            if want_pdp:
                ccodes[:P] = pdp_c
            if want_ice:
                if simple:
                    ccodes[ice].reshape(n, k, G)[:] = np.arange(k)[None, :, None]
                else:
                    ccodes[ice] = cs
            cols[".class"] = pd.Categorical.from_codes(ccodes, categories=list(output_names))
        value = self._value if self._ice is not None else np.empty(total)
        if want_pdp:
            value[:P] = pdp_val
        if want_ice and self._ice is None:
            value[ice] = V[gs, ids, cs]
        cols[".value"] = value
        types = np.empty(total, dtype=object)      # R's character column (fill: one pass, no temporaries)
        types.fill("ice")
        types[:P] = "pdp"
        cols[".type"] = types
        if want_ice:
            idv = np.zeros(total, dtype=np.int64)
            if simple:
                idv[ice].reshape(n, k * G)[:] = np.arange(1, n + 1)[:, None]
            else:
                idv[ice] = ids + 1
            # an R integer column with NA comes back as pandas' nullable Int64 (r_bridge)
            if want_pdp:
                missing = np.zeros(total, dtype=bool)
                missing[:P] = True
                cols[".id"] = pd.arrays.IntegerArray(idv, missing)
            else:
                cols[".id"] = idv
        order = list(cols)
        if multi and anchored and want_ice and not want_pdp:
            order = [".class"] + [c for c in order if c != ".class"]     # iml's join puts it first
        return pd.DataFrame({c: cols[c] for c in order}, copy=False)

    @property
    def distinct_values(self) -> int:
        """How many distinct grid values (rows per class of the PDP part of the table)."""
        return int(self._first.size)

    def _group_sums(self, W: np.ndarray) -> np.ndarray:
        """(U, k) sums of the values ``W`` (grid row, data row, class) per group of equal grid
        values, added one after the other in double in the order of iml's ICE table, as
        data.table's ``mean`` adds them: uncentred, the grid rows in turn, each in the order of
        its MarginalGenerator permutation; centred (``merge`` sorts by ``.id.dist``), the data
        rows in turn and a group's grid rows within each."""
        U, k = self._first.size, W.shape[2]
        perms = self.perms if self.anchor_rows is None else None
        if U == self.G:                   # every grid value once
            rows = self._first
            ordered = W[rows] if perms is None else W[rows[:, None], perms[rows]]
            return np.cumsum(ordered, axis=1)[:, -1] if ordered.shape[1] else np.zeros((U, k))
        sums = np.zeros((U, k))
        for u in range(U):
            gs = np.flatnonzero(self._grp == u)
            if perms is None:
                seq = W[gs].transpose(1, 0, 2).reshape(-1, k)
            else:
                seq = W[gs[:, None], perms[gs]].reshape(-1, k)
            if seq.shape[0]:
                sums[u] = np.cumsum(seq, axis=0)[-1]
        return sums

    def _batch_of(self) -> np.ndarray:
        """(G, n) batch number of each (grid row, data row) in iml's MarginalGenerator order."""
        n, G = self.n, self.G
        if self.perms is None:
            pos = np.broadcast_to(np.arange(n), (G, n))
        else:
            pos = np.empty((G, n), dtype=np.int64)
            rowsel = np.arange(G)[:, None]
            pos[rowsel, self.perms] = np.arange(n)[None, :]
        t = np.arange(G, dtype=np.int64)[:, None] * n + pos
        return t // int(self.batch_size)

    def _multiclass_pdp_order(self, grp: np.ndarray, U: int, k: int):
        """(value group, class) pairs in order of first appearance when iml stacks classes per batch."""
        n, G, bs = self.n, self.G, int(self.batch_size)
        nb = -(-(G * n) // bs)
        b = np.arange(nb, dtype=np.int64)
        g_lo = (b * bs) // n
        g_hi = np.minimum((np.minimum((b + 1) * bs, G * n) - 1) // n, G - 1)
        lens = g_hi - g_lo + 1
        # triples (batch, class, grid row) in stacking order
        rc = np.concatenate([np.repeat(np.arange(k), L) for L in lens]) if nb else np.zeros(0, dtype=np.int64)
        rg = np.concatenate([np.tile(np.arange(lo, hi + 1), k) for lo, hi in zip(g_lo, g_hi)])
        key = grp[rg] * k + rc
        _, first = np.unique(key, return_index=True)
        first = np.sort(first)
        return grp[rg[first]], rc[first]

    def _multiclass_ice_order(self, k: int):
        """ICE rows (id, class, grid row) in iml's order: sorted by id, then batch, class, grid row."""
        n, G = self.n, self.G
        batch = self._batch_of()                               # (G, n)
        ids = np.repeat(np.arange(n)[None, :], G, axis=0)      # (G, n)
        gs = np.repeat(np.arange(G)[:, None], n, axis=1)
        ids = np.repeat(ids.ravel(), k)
        gs = np.repeat(gs.ravel(), k)
        bt = np.repeat(batch.ravel(), k)
        cs = np.tile(np.arange(k), G * n)
        order = np.lexsort((gs, cs, bt, ids))
        return ids[order], cs[order], gs[order]
