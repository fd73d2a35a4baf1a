"""R's summary statistics with R's own arithmetic.

R accumulates ``sum`` and ``mean`` of doubles in ``long double`` (80-bit extended precision on
x86-64) and ``mean`` adds a second correction pass. numpy's pairwise summation differs in the
last bits, which matters where results must equal R's bit for bit (losses inside FeatureImp,
medians and quantiles of repeated errors). These helpers restate R's definitions:

* ``sum(x)``: sequential sum in long double, rounded to double once at the end.
* ``mean(x)``: ``s = sum(x)/n`` in long double; if finite, ``s += sum(x - s)/n`` (long double).
* ``median(x)``: the middle value, or ``mean`` of the two middle values.
* ``quantile(x, p, type = 7)`` and ``type = 1`` as in R's ``quantile.default``.
* ``var(x)``: two-pass with R's long-double mean, denominator n − 1.

Where ``np.longdouble`` is plain double (some platforms), the results agree with R to the
usual rounding error instead of bit for bit.
"""
from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["r_arithmetic", "r_sum", "r_mean", "r_median", "r_var", "r_quantile", "order_statistics",
           "bucket_order_statistics", "type1_ranks", "r_col_means", "r_means", "r_colMeans", "r_exp", "r_log",
           "r_seq_sum"]

_LD = np.longdouble


def r_arithmetic(fn):
    """Run ``fn`` without numpy's floating-point warnings, as R computes: a result beyond the
    double range is Inf and 0/0 is NaN, silently."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return run


def _libm(fn, fallback, x, ok) -> np.ndarray:
    """``fallback(x)`` with the entries where ``ok`` recomputed by the C library's ``fn``."""
    x = np.asarray(x, dtype=float)
    out = np.asarray(fallback(x), dtype=float).copy()
    sel = np.flatnonzero(ok.ravel())
    if sel.size:
        out.ravel()[sel] = np.fromiter(map(fn, x.ravel()[sel].tolist()), dtype=float, count=sel.size)
    return out


def r_exp(x) -> np.ndarray:
    """R's ``exp``: the C library's, element by element.

    numpy's vectorised ``exp`` (its own SIMD code on AVX-512 machines, and in numpy 2) differs
    from the C library's in the last bit for about a quarter of the values; R calls the C
    library. Entries that under- or overflow, and NaN, are numpy's (the same 0, inf, NaN)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", under="ignore"):   # R: inf and 0, no warning
        return _libm(math.exp, np.exp, x, (x > -745.0) & (x < 709.0))


def r_log(x) -> np.ndarray:
    """R's ``log``: the C library's, element by element (see :func:`r_exp`); 0, negative,
    infinite and NaN entries are numpy's (-inf, NaN, inf, NaN, as in C)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _libm(math.log, np.log, x, (x > 0) & np.isfinite(x))


def r_sum(x) -> float:
    """R's ``sum()`` of a double vector (sequential long-double accumulation)."""
    x = np.asarray(x, dtype=float).ravel()
    if x.size == 0:
        return 0.0
    return float(np.cumsum(x.astype(_LD))[-1])


def r_mean(x) -> float:
    """R's ``mean()`` of a double vector (long double, with R's second correction pass).

    Returns NaN for an empty vector, as R does.
    """
    return float(r_means(np.asarray(x, dtype=float).ravel()))


def r_means(x, axis: int = 0) -> np.ndarray:
    """R's ``mean()`` of every vector along ``axis``, vectorised: a sequential long-double sum
    divided by n, then R's correction pass (the sum of ``x - mean``, divided by n, added)
    where the first mean is finite as a double. NaN for vectors of length 0."""
    xl = np.asarray(x, dtype=float).astype(_LD)
    n = xl.shape[axis]
    if n == 0:
        return np.full(np.delete(xl.shape, axis), np.nan)
    s = np.cumsum(xl, axis=axis).take(-1, axis=axis) / n
    with np.errstate(invalid="ignore"):   # an infinite first mean skips the pass, as in R
        xl -= np.expand_dims(s, axis)
        t = np.cumsum(xl, axis=axis).take(-1, axis=axis)
        return np.where(np.isfinite(s.astype(float)), s + t / n, s).astype(float)


def r_col_means(m) -> np.ndarray:
    """``apply(m, 2, mean)`` with R's ``mean`` per column, vectorised over columns."""
    m = np.asarray(m, dtype=float)
    if m.ndim == 1:
        return np.array([r_mean(m)])
    return r_means(m, axis=0)


def r_median(x) -> float:
    """R's ``median()`` (NaN for an empty vector; NaN if any value is NaN, as ``na.rm = FALSE``)."""
    return float(r_median_rows(np.asarray(x, dtype=float).reshape(1, -1))[0])


def r_median_rows(m) -> np.ndarray:
    """:func:`r_median` of every row of a 2-D array, vectorised (the same values, bit for bit)."""
    m = np.asarray(m, dtype=float)
    rows, n = m.shape
    if n == 0:
        return np.full(rows, np.nan)
    half = (n + 1) // 2
    xs = np.sort(m, axis=1)
    if n % 2 == 1:
        out = xs[:, half - 1].copy()
    else:  # R's mean() of the two middle values: long-double sum / 2, then its correction pass
        a, b = xs[:, half - 1].astype(_LD), xs[:, half].astype(_LD)
        with np.errstate(invalid="ignore"):  # -Inf + Inf is NaN, silently as in R
            s = (a + b) / 2
            t = (a - s) + (b - s)
            out = np.where(np.isfinite(s), s + t / 2, s).astype(float)
    out[np.isnan(m).any(axis=1)] = np.nan
    return out


def r_quantile7_rows(m, probs) -> np.ndarray:
    """:func:`r_quantile` (type 7) of every row of a 2-D array, vectorised: shape (rows, len(probs))."""
    m = np.asarray(m, dtype=float)
    p = np.atleast_1d(np.asarray(probs, dtype=float))
    rows, n = m.shape
    if n == 0:
        return np.full((rows, p.size), np.nan)
    return _quantile7_sorted(np.sort(m, axis=1), p)


def _quantile7_sorted(xs: np.ndarray, p: np.ndarray) -> np.ndarray:
    """R's type-7 quantiles ``p`` of every row of the row-sorted, non-empty ``xs``."""
    n = xs.shape[1]
    index = 1 + max(n - 1, 0) * p
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    qs = xs[:, lo - 1].copy()
    xhi = xs[:, hi - 1]
    h = np.broadcast_to(index - lo, qs.shape)
    i = (index > lo)[None, :] & (xhi != qs)
    with np.errstate(invalid="ignore"):  # between -Inf and Inf: NaN, silently as in R
        qs[i] = (1 - h[i]) * qs[i] + h[i] * xhi[i]
    return qs


def r_var(x) -> float:
    """R's ``var()`` of a vector (denominator n − 1; NaN for n < 2)."""
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    if n < 2:
        return float("nan")
    m = _LD(r_mean(x))
    d = x.astype(_LD) - m
    return float(np.cumsum(d * d)[-1] / (n - 1))


def r_quantile(x, probs, type: int = 7) -> np.ndarray:
    """R's ``quantile(x, probs, type = type, names = FALSE)`` for types 1 and 7.

    Non-finite values are not removed (R errors on NA unless ``na.rm``; callers drop them).
    Only the order statistics the quantiles read are selected (:func:`order_statistics`), not
    all of ``x`` sorted.

    Parameters
    ----------
    x : array-like of float
    probs : float or array-like of float in [0, 1]
    type : {1, 7}
        Type 7 (R's default, linear interpolation with R's expression) or type 1 (inverse of
        the empirical distribution function, used by iml's ALE grids).
    """
    x = np.asarray(x, dtype=float).ravel()
    p = np.atleast_1d(np.asarray(probs, dtype=float))
    n = x.size
    if type not in (1, 7):
        raise ValueError(f"type must be 1 or 7, got {type!r}")
    if n == 0:
        return np.full(p.shape, np.nan)
    if type == 1:
        ranks = type1_ranks(n, p)
        return order_statistics(x, ranks) if np.isfinite(x).all() else np.sort(x)[ranks]
    if not np.isfinite(x).all():
        return _quantile7_sorted(np.sort(x)[None, :], p)[0]
    index = 1 + (n - 1) * p
    ranks = np.unique(np.concatenate([np.floor(index), np.ceil(index)]).astype(np.int64) - 1)
    xs = np.empty(n)           # the order statistics at the ranks the quantiles read; the rest unused
    xs[ranks] = order_statistics(x, ranks)
    return _quantile7_sorted(xs[None, :], p)[0]


def order_statistics(x: np.ndarray, ranks) -> np.ndarray:
    """``np.sort(x)[ranks]`` for finite float ``x``, without sorting all of ``x``.

    The values are put in ``~n / 64`` equal-width buckets between min and max; the bucket of a
    value is a non-decreasing function of it, so the sorted data are the sorted buckets one
    after the other, and only the buckets holding a wanted rank are sorted. Skewed data whose
    wanted buckets hold more than a quarter of the values, and small inputs, use
    ``np.partition`` instead. Both give exactly the same values.
    """
    return bucket_order_statistics(x, ranks)[0]


def bucket_order_statistics(x: np.ndarray, ranks, bounds=None):
    """:func:`order_statistics` and the buckets it sorted, for callers that place values
    relative to the order statistics afterwards (ALE's intervals, :func:`pyiml._algorithms.grids.ale_grid`).

    Returns ``(values, buckets)``. ``buckets`` is None where ``np.partition`` was used, else
    ``(lo, scale, nb, b, sel, xs)``: the bucket of a value ``v`` is
    ``min(int((v - lo) * scale), nb - 1)``, ``b`` holds every value's bucket, ``sel`` the
    positions (ascending) of the values in the buckets that hold a wanted order statistic and
    ``xs = x[sel]``. Equal values share a bucket, and every order statistic returned lies in
    one of those buckets. ``bounds``: ``(x.min(), x.max())`` when the caller has them.
    """
    x = np.asarray(x, dtype=float)
    ranks = np.asarray(ranks, dtype=np.int64)
    n = x.size
    if n < 4096 or ranks.size == 0:
        return (np.partition(x, np.unique(ranks))[ranks] if ranks.size else np.empty(0)), None
    lo, hi = (float(x.min()), float(x.max())) if bounds is None else (float(bounds[0]), float(bounds[1]))
    if not hi > lo:
        return np.full(ranks.size, lo), None
    nb = n // 64
    scale = nb / (hi - lo)
    if not np.isfinite(scale) or scale == 0:   # a subnormal range, or one beyond the double range
        return np.partition(x, np.unique(ranks))[ranks], None
    t = x - lo
    t *= scale
    b = t.astype(np.int64)                         # ((x - lo) * scale), truncated
    del t
    np.minimum(b, nb - 1, out=b)
    counts = np.bincount(b, minlength=nb)
    upto = np.cumsum(counts)                       # values in buckets 0..k
    kb = np.searchsorted(upto, ranks, side="right")  # the bucket holding each rank
    need = np.zeros(nb, dtype=bool)
    need[kb] = True
    taken = np.where(need, counts, 0)
    if taken.sum() > n // 4:
        return np.partition(x, np.unique(ranks))[ranks], None
    sel = np.flatnonzero(need[b])
    xs = x[sel]
    sub = np.sort(xs)
    start = np.cumsum(taken) - taken               # where each wanted bucket starts in sub
    return sub[start[kb] + ranks - (upto[kb] - counts[kb])], (lo, scale, nb, b, sel, xs)


def type1_ranks(n: int, probs) -> np.ndarray:
    """0-based ranks of the order statistics that ``quantile(x, probs, type = 1)`` returns for
    ``length(x) == n`` (so ``np.sort(x)[type1_ranks(n, probs)]`` is R's result).

    R 4.2: ``nppm <- n * probs; j <- floor(nppm); h <- nppm > j``; x padded as
    ``c(x[1], x[1], x, x[n], x[n])``; ``qs <- x[j + 2]; qs[h] <- x[j + 3]`` (1-based), i.e. the
    order statistic ``j`` (``h``) or ``j - 1``, clipped to ``0..n-1``.
    """
    p = np.atleast_1d(np.asarray(probs, dtype=float))
    nppm = n * p
    j = np.floor(nppm).astype(np.int64)
    h = nppm > j
    return np.clip(np.where(h, j, j - 1), 0, n - 1)


def r_seq_sum(v: np.ndarray) -> np.ndarray:
    """Sum down axis 0, strictly in row order, in ``v``'s dtype (R's sequential ``sum``).

    numpy's ``sum`` may add pairwise; R adds one value after the other."""
    if v.shape[0] == 0:
        return np.zeros(v.shape[1:], dtype=v.dtype)
    if v.shape[0] > 256 or v[0].size < 32:  # long or narrow: one cumulative sum
        return np.cumsum(v, axis=0)[-1]
    s = v[0].copy()
    for row in v[1:]:
        s += row
    return s


def r_colMeans(m: np.ndarray) -> np.ndarray:
    """R's ``colMeans`` of an (n, k) matrix: sequential long-double sum divided by n."""
    m = np.asarray(m, dtype=float)
    if m.shape[0] == 0:
        return np.full(m.shape[1:], np.nan)
    return (r_seq_sum(m.astype(_LD)) / m.shape[0]).astype(float)
