"""Lasso paths that reproduce R's ``glmnet`` 4.1-x, as iml's ``LocalModel`` calls it.

iml fits ``glmnet(x, y, family, weights = w, intercept = TRUE, standardize = TRUE,
type.multinomial = "grouped")`` and then picks the *last* lambda whose number of non-zero
coefficients equals ``k``. The exact lambda sequence, the length of the path and the
coefficients therefore have to follow glmnet's own iterations, not just solve the same
optimisation problem: glmnet stops coordinate descent when the largest weighted squared change
falls below ``thresh`` (1e-7), so its coefficients are only accurate to about
``sqrt(thresh)``; a different but equally valid solver would disagree in the fourth digit.

This module restates, in Python, the algorithm of glmnet 4.1-6's C++ core (``glmnetpp``):

* ``family = "gaussian"`` -- the "covariance" update method (``type.gaussian`` default for
  fewer than 500 variables; the legacy Fortran ``elnet1``): coordinate descent on the
  weighted-standardised problem driven by the gradient vector and Gram matrix entries, full
  passes over all usable variables alternating with passes over the active set only, and the
  "naive" method (500 or more variables; legacy ``elnet2``) with sequential strong rules and
  KKT checks on the residual vector.
* ``family = "multinomial", type.multinomial = "grouped"`` -- the legacy ``multlognetn``:
  iteratively reweighted least squares with the scalar Hessian bound
  ``t = 2 max p(1 - p)``, a group-lasso coordinate update per variable across classes,
  sequential strong rules, the probability bounds (``pmin = 1e-9``, linear predictors clamped
  to ``[-250, 250]``) and centred intercepts.

Path control is glmnet's (``glmnet.control()`` factory defaults): the first lambda is
effectively infinite (all coefficients zero), the second is ``lambda_max * alf`` with
``alf = max(1e-6, lambda.min.ratio) ** (1/(nlambda - 1))`` and each later one is the previous
times ``alf``; after at least 5 lambdas the path stops when the deviance ratio improves by less
than ``fdev = 1e-5`` (relatively for gaussian, absolutely for multinomial), exceeds
``devmax = 0.999``, or more than ``dfmax`` variables are non-zero. The reported first lambda is
extrapolated from the next two (R's ``fix.lam``), which reproduces ``lambda_max``.

The sequence of coordinate updates, convergence checks and path decisions is glmnet's (the
number of passes, ``npasses``, equals R's). For ``gaussian`` with the covariance method the
arithmetic is glmnetpp's too: the standardisation, the gradient, the Gram entries and the
intercepts add their terms in the order Eigen's vectorised sums use on x86-64
(:func:`_eigen_dots`), so the path is R's bit for bit, including where it is decided by
rounding (exactly collinear columns, where a coefficient of 1e-17 counts as non-zero). The
naive method's gradients and the multinomial arithmetic (Gram matrices, sums) are numpy's, so
their results agree with R to rounding error, not bit for bit: in the parity tests coefficients
differ by about 1e-13 relative to the largest coefficient (up to ~2e-10 elementwise for
coefficients that have just entered the path) and lambdas by ~1e-15. The multinomial solver keeps the
gradients current through the weighted Gram matrix instead of glmnet's residual vector (the
same iterations, no O(n) work per coordinate step).

Differences from R, on purpose: only ``alpha = 1``, ``intercept = TRUE`` and (multinomial)
``type.multinomial = "grouped"`` with hard class labels are implemented; non-finite or negative
weights and infinite ``x`` are rejected; a constant response (among positive weights) is always
the "y is constant" error; default class levels are the sorted labels in Python's order (R's
``as.factor`` sorts in the locale's collation -- pass ``levels`` to be explicit, as iml's factor
does); and a multinomial path that ends before any variable enters reports ``df = 0`` (R
returns the function ``stats::df`` there).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..data import user_stacklevel, warn_user
from .rstats import r_arithmetic, r_exp, r_log, r_seq_sum

__all__ = ["GlmnetFit", "glmnet", "predict"]

# glmnet.control() factory defaults (R glmnet 4.1-6, src/internal.cpp).
_FDEV = 1e-5  # sml: minimum change in deviance ratio
_DEVMAX = 0.999  # rsqmax: maximum deviance ratio
_EPS = 1e-6  # minimum lambda.min.ratio, and minimum Hessian bound (multinomial)
_BIG = 9.9e35  # "infinity": first lambda, and the coefficient bounds
_MNLAM = 5  # minimum number of path points before the stopping rules apply
_PMIN = 1e-9  # minimum null probability
_EXMX = 250.0  # maximum absolute linear predictor (multinomial)


@dataclass
class GlmnetFit:
    """A fitted lasso path, laid out like R's ``glmnet`` object.

    Attributes
    ----------
    family : str
        ``"gaussian"`` (R class ``elnet``) or ``"multinomial"`` (R class ``multnet``).
    a0 : ndarray
        Intercepts: shape ``(nlambda,)`` for gaussian, ``(n_classes, nlambda)`` for
        multinomial (centred over classes at each lambda, as R's ``getcoef.multinomial``).
    beta : ndarray
        Coefficients on the original scale of ``x``: shape ``(n_vars, nlambda)`` for gaussian,
        ``(n_classes, n_vars, nlambda)`` for multinomial (R: a list of sparse matrices, one
        per class).
    df : ndarray of int
        Number of non-zero coefficients per lambda (multinomial: variables non-zero in any
        class).
    lambda_ : ndarray
        The lambda sequence (R's ``fit$lambda``), decreasing; entry 0 extrapolated as
        ``fix.lam`` does.
    dev_ratio : ndarray
        Fraction of (null) deviance explained at each lambda (R's ``dev.ratio``).
    nulldev : float
        Null deviance (R's ``nulldev``).
    npasses : int
        Total number of coordinate-descent passes (R's ``npasses``; multinomial passes count
        once per class).
    jerr : int
        glmnet's error flag (0, or the negative code of a non-fatal truncation).
    nobs : int
        Number of rows of ``x`` passed in.
    var_names : list of str
        Names of the columns of ``x`` (``V1``, ``V2``, ... when none were given).
    classnames : list of str or None
        Class labels, in level order (multinomial only).
    dfmat : ndarray or None
        Non-zero coefficients per class and lambda, shape ``(n_classes, nlambda)``
        (multinomial only).
    ju : ndarray of bool
        Which variables glmnet used (False for constant columns, which always get 0).
    grouped : bool
        True for the grouped multinomial penalty (always, for multinomial fits here).
    """

    family: str
    a0: np.ndarray
    beta: np.ndarray
    df: np.ndarray
    lambda_: np.ndarray
    dev_ratio: np.ndarray
    nulldev: float
    npasses: int
    jerr: int
    nobs: int
    var_names: List[str]
    classnames: Optional[List[str]] = None
    dfmat: Optional[np.ndarray] = None
    ju: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    grouped: bool = False

    @property
    def dim(self):
        """``(n_vars, nlambda)``, R's ``fit$dim``."""
        return (len(self.var_names), len(self.lambda_))

    def __len__(self):
        return len(self.lambda_)


class _MaxitReached(Exception):
    pass


class _MaxActiveReached(Exception):
    pass


class _BelowMinVariance(Exception):
    pass


# ------------------------------------------------------------------------------------------
# input checks shared by both families (R's glmnet() before the family functions)
# ------------------------------------------------------------------------------------------

def _as_x(x):
    names = None
    if hasattr(x, "columns") and hasattr(x, "to_numpy"):
        names = [str(c) for c in x.columns]
        x = x.to_numpy(dtype=float)
    x = np.asarray(x)
    if x.ndim != 2 or x.shape[1] <= 1:
        raise ValueError("x should be a matrix with 2 or more columns")
    if x.dtype == bool:
        x = x.astype(float)
    if not np.issubdtype(x.dtype, np.number):
        raise ValueError("x must be numeric")
    x = np.asarray(x, dtype=float)
    if not np.isfinite(x).all():   # one pass in the usual case; then which of the two
        if np.isnan(x).any():
            raise ValueError("x has missing values; consider using makeX() to impute them")
        raise ValueError("x has infinite values")
    if names is None:
        names = [f"V{j + 1}" for j in range(x.shape[1])]
    return x, names


def _as_weights(weights, nobs):
    if weights is None:
        return np.ones(nobs)
    w = np.asarray(weights, dtype=float).ravel()
    if w.size != nobs:
        raise ValueError(
            f"number of elements in weights ({w.size}) not equal to the number of rows of x ({nobs})")
    if not np.isfinite(w).all():
        raise ValueError("weights must be finite")
    if (w < 0).any():
        raise ValueError("weights must be non-negative")
    if not (w > 0).any():   # (glmnet 4.1-6 goes on: a NaN null deviance, "missing value where TRUE/FALSE needed")
        raise ValueError("weights must not all be zero")
    return w


_EIGEN_BLOCK = 1 << 17  # terms per block of _eigen_dots_blocks (about 1 MB; 16,384 rows of 8 columns)


def _eigen_dots(X, v=None, square: bool = False):
    """``X.T @ v`` (``X.sum(axis=0)`` without ``v``), added in the order of Eigen's ``dot()``.

    glmnetpp forms its dot products, sums and squared norms with Eigen, which on x86-64 (SSE2:
    packets of two doubles) keeps two packet accumulators: the products of rows ``0, 4, 8,
    ...``, ``1, 5, ...``, ``2, 6, ...`` and ``3, 7, ...`` are each summed left to right, the
    packets are combined as ``(L0 + L2) + (L1 + L3)`` after one more packet of two rows when
    ``n mod 4 >= 2``, and a last odd row is added at the end (fewer than 4 rows: left to right).
    Adding in this order gives R's bits, which decide the path where it hangs on rounding (two
    exactly collinear columns). ``X`` is (n,) or (n, p); ``v`` is (n,). A 1-d ``X`` gives a
    float. With ``square``, the column sums of ``X * X`` (squared norms).

    The four running sums of a row-major ``X`` are one ``np.einsum`` over the rows viewed as
    (n / 4, 4, p): its iterator keeps the rows outermost (their stride is the largest) and adds
    each product to its accumulator as it is formed, so no (n, p) temporary is made and each
    accumulator is added left to right. That order is not documented by numpy, so it is checked
    once per process (:func:`_einsum_adds_in_order`); otherwise, and for other layouts, the
    products are formed and added block by block of rows (:func:`_eigen_dots_blocks`).
    """
    X = np.asarray(X, dtype=float)
    vec = X.ndim == 1
    if vec:
        X = X[:, None]
    n, p = X.shape
    if v is not None and not square:
        v = np.asarray(v, dtype=float)
    if n < 4 or not X.flags.c_contiguous or not _einsum_adds_in_order():
        res = _eigen_dots_blocks(X, v, square)
    else:
        a2 = n - n % 4
        Xr = X[:a2].reshape(-1, 4, p)
        if square:
            lanes = np.einsum("ilj,ilj->lj", Xr, Xr)
        elif v is not None:
            lanes = np.einsum("ilj,il->lj", Xr, v[:a2].reshape(-1, 4))
        else:
            lanes = np.add.reduce(Xr, axis=0)  # along axis 0: one row after the other
        res = _combine_lanes(lanes, X, v, square, n)
    return float(res[0]) if vec else res


def _terms(X, v, square: bool, s: int, e: int, out=None):
    """The terms of rows s..e-1 of ``_eigen_dots`` (into ``out`` when given)."""
    if square:
        return np.multiply(X[s:e], X[s:e], out=out)
    if v is not None:
        return np.multiply(X[s:e], v[s:e, None], out=out)
    if out is None:
        return X[s:e]
    np.copyto(out, X[s:e])
    return out


def _combine_lanes(lanes, X, v, square: bool, n: int):
    """Eigen's end of a sum: ``(L0 + L2) + (L1 + L3)``, with a last packet of two rows when
    ``n mod 4 >= 2`` and a last odd row."""
    a2 = n - n % 4
    r0 = lanes[0] + lanes[2]
    r1 = lanes[1] + lanes[3]
    if n - a2 >= 2:
        tail = _terms(X, v, square, a2, a2 + 2)
        r0 = r0 + tail[0]
        r1 = r1 + tail[1]
    res = r0 + r1
    if n % 2:
        res = res + _terms(X, v, square, n - 1, n)[0]
    return res


def _eigen_dots_blocks(X, v, square: bool):
    """:func:`_eigen_dots` of a 2-d ``X`` (``v`` a float array or None): the products are
    formed block by block of rows (no (n, p) temporary) and each block is added to the four
    running sums one row after the other."""
    n, p = X.shape
    if n < 4:
        res = np.zeros(p) if n == 0 else _terms(X, v, square, 0, 1)[0].copy()
        for i in range(1, n):
            res = res + _terms(X, v, square, i, i + 1)[0]
        return res
    a2 = n - n % 4
    lanes = None
    chunk = max(4, _EIGEN_BLOCK // max(p, 1) // 4 * 4)  # rows per block, a multiple of 4
    buf = np.empty((min(chunk, a2), p))   # the terms of one block of rows
    for s in range(0, a2, chunk):
        e = min(s + chunk, a2)
        blk = _terms(X, v, square, s, e, buf[:e - s]).reshape(-1, 4, p)
        if lanes is not None:
            blk[0] += lanes  # continue the running sums: ((L + b0) + b1) + ...
        lanes = np.add.reduce(blk, axis=0)  # along axis 0: one row after the other
    return _combine_lanes(lanes, X, v, square, n)


@functools.lru_cache(maxsize=None)
def _einsum_adds_in_order() -> bool:
    """Whether ``np.einsum`` adds the products of :func:`_eigen_dots` one row after the other
    (no FMA, no reordering), checked against :func:`_eigen_dots_blocks` on values whose sums
    depend on the order (magnitudes from 1e-40 to 1e40, both signs)."""
    rng = np.random.default_rng(20261125)
    with np.errstate(all="ignore"):
        for n, p in ((203, 1), (206, 3), (1001, 10)):
            X = rng.standard_normal((n, p)) * np.exp(rng.uniform(-92.0, 92.0, (n, p)))
            v = rng.standard_normal(n) * np.exp(rng.uniform(-46.0, 46.0, n))
            a2 = n - n % 4
            Xr = X[:a2].reshape(-1, 4, p)
            for lanes, (vv, sq) in ((np.einsum("ilj,il->lj", Xr, v[:a2].reshape(-1, 4)), (v, False)),
                                    (np.einsum("ilj,ilj->lj", Xr, Xr), (None, True))):
                if not np.array_equal(_combine_lanes(lanes, X, vv, sq, n), _eigen_dots_blocks(X, vv, sq)):
                    return False
    return True


def _by_row(op, X: np.ndarray, r: np.ndarray) -> None:
    """``X = op(X, r)`` in place for a row-major ``X`` (n, p) and ``r`` (p,), as ``op(X, r,
    out=X)`` computes it, elementwise, but with inner loops of about 1,000 values instead of p:
    the rows are viewed q at a time against ``r`` repeated q times (the last n mod q rows
    alone)."""
    n, p = X.shape
    q = max(1, 1024 // max(p, 1))
    bulk = n - n % q
    if bulk:
        wide = X[:bulk].reshape(-1, q * p)
        op(wide, np.tile(r, q), out=wide)
    if bulk < n:
        op(X[bulk:], r, out=X[bulk:])


def _chkvars(x):
    """glmnet's ``Chkvars``: a column is usable unless all its values equal the first."""
    return (x[1:, :] != x[0, :]).any(axis=0) if x.shape[0] > 1 else np.zeros(x.shape[1], dtype=bool)


def _jerr_message(n, maxit, pmax):
    """R's ``jerr.elnet`` / ``jerr.lognet`` text for a non-fatal (negative) code."""
    if n < -20000:
        msg = (f"Max(p(1-p),1.0e-6 at  {-n - 20000} th value of lambda; solutions for larger values "
               "of lambda returned")
    elif n < -10000:
        msg = (f"Number of nonzero coefficients along the path exceeds pmax={pmax} at {-n - 10000}"
               "th lambda value; solutions for larger lambdas returned")
    else:
        msg = (f"Convergence for {-n}th lambda value not reached after maxit={maxit} iterations; "
               "solutions for larger lambdas returned")
    return f"from glmnet C++ code (error code {n}); {msg}"


def _underflowed(xv: np.ndarray, juix: np.ndarray, var_names, xj: np.ndarray, x: np.ndarray,
                 w: np.ndarray) -> np.ndarray:
    """The usable predictors whose weighted variance ``xv`` is 0: their columns of ``xj`` are
    set to 0, so that they never enter the path; returns their indices among all predictors.

    Standardising divides such a column by 0. R's glmnet never moves its coefficient (the
    coefficient bounds, ±9.9e35 times the spread, are 0), but the column's gradient is NaN or
    ±Inf: NaN (a column constant on the rows of positive weight, or values whose signs
    differ) leaves it out of the path; Inf makes every lambda infinite, so that no predictor
    enters (iml's LocalModel then returns an empty table). pyiml leaves it out in both cases
    and fits the other predictors. A column whose rows of positive weight differ (values of
    order 1e-160 or below, whose squares underflow) gets a warning naming the fix.
    """
    bad = np.flatnonzero(xv == 0)
    if not bad.size:
        return bad
    xj[:, bad] = 0.0
    pos = w > 0
    tiny = [i for i in bad if (x[pos, juix[i]] != x[pos, juix[i]][:1]).any()]
    if tiny:
        names = [str(var_names[juix[i]]) if var_names is not None else f"V{juix[i] + 1}" for i in tiny]
        warn_user(
            f"the spread of {', '.join(names)} underflows (its variance is 0 in double precision), so the lasso "
            "leaves it out; rescale it, e.g. multiply it by a power of 10", UserWarning, user_stacklevel())
    return juix[bad]


def _fix_lam(lam):
    """R's ``fix.lam``: replace the infinite first lambda by extrapolation from the next two."""
    lam = np.array(lam, dtype=float)
    if lam.size > 2:  # the C library's log and exp, as R's (numpy's log may differ in the last bit)
        lg = r_log(lam[1:3])   # R's log: -Inf at 0, NaN below (a path whose lambdas are 0 or NaN)
        lam[0] = math.exp(2.0 * float(lg[0]) - float(lg[1]))
    return lam


# ------------------------------------------------------------------------------------------
# public entry point
# ------------------------------------------------------------------------------------------

class NullProbabilityError(ValueError):
    """A multinomial class whose weighted share of the rows is at most 1e-5 (``low``) or at least
    1 - 1e-5 (glmnet's error codes 8001+ and 9001+, with R's message); ``klass`` is the class's
    0-based position among the levels."""

    def __init__(self, message: str, klass: int, low: bool):
        super().__init__(message)
        self.klass = klass
        self.low = low


def glmnet(x, y, family: str = "gaussian", weights=None, alpha: float = 1.0, nlambda: int = 100,
           lambda_min_ratio: Optional[float] = None, standardize: bool = True,
           intercept: bool = True, thresh: float = 1e-7, dfmax: Optional[int] = None,
           pmax: Optional[int] = None, maxit: int = 100000,
           type_gaussian: Optional[str] = None, type_multinomial: str = "grouped",
           levels: Optional[Sequence] = None) -> GlmnetFit:
    """Fit a lasso path exactly as R's ``glmnet::glmnet`` (4.1-x) does.

    R equivalent: ``glmnet(x, y, family, weights, alpha = 1, nlambda = 100,
    lambda.min.ratio = ifelse(nobs < nvars, 0.01, 1e-4), standardize = TRUE,
    intercept = TRUE, thresh = 1e-7, dfmax = nvars + 1, pmax = min(dfmax*2 + 20, nvars),
    maxit = 1e5, type.gaussian = ifelse(nvars < 500, "covariance", "naive"),
    type.multinomial = "grouped")``.

    Parameters
    ----------
    x : array-like of shape (n, p)
        Numeric predictor matrix with at least 2 columns and no missing values (a DataFrame's
        column names become ``var_names``).
    y : array-like of shape (n,)
        Gaussian: numeric response. Multinomial: class labels (hard labels, as iml's
        ``probs.to.labels`` produces); a pandas Categorical contributes its categories as
        levels.
    family : {"gaussian", "multinomial"}
        Model family.
    weights : array-like of shape (n,), optional
        Non-negative observation weights (normalised internally); default all 1.
    alpha : float
        Elastic-net mixing; only the lasso ``alpha = 1`` (iml's setting) is implemented.
    nlambda : int
        Maximum number of lambda values.
    lambda_min_ratio : float, optional
        Smallest lambda as a fraction of ``lambda_max``; default 0.01 if ``n < p`` else 1e-4.
    standardize : bool
        Standardise the columns of ``x`` (weighted mean, weighted population sd) for the fit;
        coefficients are always reported on the original scale.
    intercept : bool
        Only ``True`` (iml's setting) is implemented.
    thresh : float
        Convergence threshold of coordinate descent.
    dfmax, pmax : int, optional
        Limits on the number of variables in the model / ever non-zero (R's defaults
        ``p + 1`` and ``min(2 * dfmax + 20, p)``).
    maxit : int
        Maximum total number of passes over the data.
    type_gaussian : {"covariance", "naive"}, optional
        Gaussian update method; default ``"covariance"`` if ``p < 500`` else ``"naive"``.
    type_multinomial : {"grouped"}
        Only the grouped penalty (iml's setting) is implemented.
    levels : sequence, optional
        Multinomial class levels (the levels of R's factor ``y``), in order. Default: the
        categories of a pandas Categorical ``y``, else the sorted unique labels (Python's
        order; R's ``as.factor`` sorts strings in the locale's collation). A level without
        observations is an error, as in R.

    Returns
    -------
    GlmnetFit

    Raises
    ------
    ValueError
        For malformed input (with R's message where R has one), unsupported arguments, a
        class with at most one observation, a constant gaussian response, or no usable
        (non-constant) predictor.

    Warns
    -----
    UserWarning
        When a class has fewer than 8 observations, or glmnet truncates the path
        (``maxit`` reached, ``pmax`` exceeded, vanishing multinomial variance).
    """
    if family not in ("gaussian", "multinomial"):
        raise ValueError(f"family must be 'gaussian' or 'multinomial', not {family!r}")
    if alpha != 1:
        raise ValueError(f"alpha = {alpha!r} is not supported: only the lasso, alpha = 1, is implemented")
    if intercept is not True:
        raise ValueError("intercept = False is not supported: only intercept = True is implemented")
    if family == "multinomial" and type_multinomial != "grouped":
        raise ValueError(
            f"type_multinomial = {type_multinomial!r} is not supported: only 'grouped' is implemented")
    x, var_names = _as_x(x)
    nobs, nvars = x.shape
    w = _as_weights(weights, nobs)
    nlam = int(nlambda)
    if nlam < 1:
        raise ValueError("nlambda must be at least 1")
    if lambda_min_ratio is None:
        lambda_min_ratio = 1e-2 if nobs < nvars else 1e-4
    flmin = float(lambda_min_ratio)
    if flmin >= 1:
        raise ValueError("lambda.min.ratio should be less than 1")
    ne = int(nvars + 1 if dfmax is None else dfmax)
    nx = int(min(ne * 2 + 20, nvars) if pmax is None else pmax)
    maxit = int(maxit)
    thresh = float(thresh)
    if family == "gaussian":
        if type_gaussian is None:
            type_gaussian = "covariance" if nvars < 500 else "naive"
        if type_gaussian not in ("covariance", "naive"):
            raise ValueError("type_gaussian must be 'covariance' or 'naive'")
        return _fit_gaussian(x, y, w, var_names, bool(standardize), type_gaussian == "naive", nlam, flmin, thresh,
                             ne, nx, maxit)
    return _fit_multinomial(x, y, w, var_names, levels, bool(standardize), nlam, flmin, thresh, ne, nx, maxit)


# ------------------------------------------------------------------------------------------
# gaussian
# ------------------------------------------------------------------------------------------

# The fits compute as glmnet's C++ does (@r_arithmetic), without numpy's warnings: a column whose
# spread underflows to 0 (values of 1e-300) divides by zero there too, silently, with the same
# infinities and NaNs.
@r_arithmetic
def _fit_gaussian(x, y, w, var_names, isd, naive, nlam, flmin, thr, ne, nx, maxit):
    nobs, ni = x.shape
    y = np.asarray(y, dtype=float).ravel()
    if y.size != nobs:
        raise ValueError(
            f"number of observations in y ({y.size}) not equal to the number of rows of x ({nobs})")
    if not np.isfinite(y).all():
        raise ValueError("y has missing or infinite values")
    # R: ybar = weighted.mean(y, w); nulldev = sum(w * (y - ybar)^2), an error when 0
    ybar = float(y @ w) / float(w.sum())
    nulldev = float(w @ (y - ybar) ** 2)
    ypos = y[w > 0]
    if nulldev == 0 or (ypos == ypos[0]).all():
        raise ValueError("y is constant; gaussian glmnet fails at standardization step")

    ju = _chkvars(x)
    if not ju.any():
        raise ValueError("from glmnet C++ code (error code 7777); All used predictors have zero variance")

    # Standardize1 (with intercept): weights normalised, sqrt-weights folded into x and y:
    # x_j <- sqrt(w) (x_j - xm_j) / xs_j with xm the weighted mean and xs the weighted sd.
    # Every sum is added in Eigen's order (_eigen_dots), as glmnetpp adds it.
    wn = w / _eigen_dots(w)
    v = np.sqrt(wn)
    xm = np.zeros(ni)
    xs = np.ones(ni)
    xv = np.zeros(ni)
    juix = np.flatnonzero(ju)
    # a row-major copy (x is left as it is): _eigen_dots and _by_row go through it row after
    # row; a column-major x, as pandas hands it over, would be copied again by every pass
    xj = np.ascontiguousarray(x[:, juix]) if juix.size < ni else np.array(x, dtype=float, order="C")
    xm[juix] = _eigen_dots(xj, wn)
    _by_row(np.subtract, xj, xm[juix])
    xj *= v[:, None]
    xv[juix] = _eigen_dots(xj, square=True)
    if isd:
        lost = _underflowed(xv[juix], juix, var_names, xj, x, w)
        xs[juix] = np.sqrt(xv[juix])
        xs[lost] = 1.0
        _by_row(np.divide, xj, xs[juix])
        xv[juix] = 1.0
    ym = _eigen_dots(y, wn)
    ys_vec = v * (y - ym)
    ys = math.sqrt(_eigen_dots(ys_vec, ys_vec))
    ys_vec /= ys

    if naive:
        res = _elnet_naive(xj, ys_vec, xv[juix], nlam, flmin, thr, maxit, ne, nx)
    else:
        g0 = _eigen_dots(xj, ys_vec)
        res = _elnet_cov(g0, _GramRows(xj, xv[juix]), xv[juix], nlam, flmin, thr, maxit, ne, nx)
    coefs, active, almo, rsqo, nlp, jerr, lmu = res

    if jerr != 0:
        warn_user(_jerr_message(jerr, maxit, nx), UserWarning, user_stacklevel())
    # back to the original scale
    # per lambda the coefficients of the variables active so far (zero for later entries)
    A = np.zeros((lmu, len(active)))
    for m in range(lmu):
        A[m, :len(coefs[m])] = coefs[m]
    cols = juix[np.asarray(active, dtype=np.intp)]
    A *= ys / xs[cols]
    beta = np.zeros((ni, lmu))
    beta[cols, :] = A.T
    # a0 = ym - sum_l coef_l xm_l, the terms subtracted one after the other as glmnetpp does
    a0 = ym - (np.cumsum(A * xm[cols], axis=1)[:, -1] if len(active) else np.zeros(lmu))
    df = np.count_nonzero(A, axis=1).astype(int)
    lam = np.array(almo[:lmu], dtype=float) * ys
    if lmu >= 1:
        lam = _fix_lam(lam)
    return GlmnetFit(family="gaussian", a0=a0, beta=beta, df=df, lambda_=lam,
                     dev_ratio=np.array(rsqo[:lmu], dtype=float), nulldev=float(nulldev), npasses=nlp,
                     jerr=jerr, nobs=nobs, var_names=var_names, ju=ju.copy())


def _lambda_factor(flmin, nlam):
    if flmin < 1.0:
        eqs = max(_EPS, flmin)
        return eqs ** (1.0 / (nlam - 1.0)) if nlam > 1 else 1.0
    return 1.0


class _GramRows(dict):
    """Rows of ``X'X`` (diagonal ``xv``) computed when first needed, as lists of floats.

    glmnetpp computes the Gram entries of a variable when it enters the active set
    (``X.col(j).dot(X.col(k))`` for every j); only those rows are ever read, so only they are
    computed, each in Eigen's order of addition. A dict: reading a row that exists is a plain
    dict lookup (the coordinate descent reads rows tens of thousands of times per path).
    """

    def __init__(self, X: np.ndarray, xv: np.ndarray):
        super().__init__()
        self._X = X
        self._xv = xv
        self._arrays: Dict[int, np.ndarray] = {}   # the same rows as float arrays

    def __missing__(self, k: int) -> List[float]:
        r = _eigen_dots(self._X, np.ascontiguousarray(self._X[:, k]))
        r[k] = self._xv[k]
        self._arrays[k] = r
        row = self[k] = r.tolist()
        return row

    def array(self, k: int) -> np.ndarray:
        """Row ``k`` as a float array (the values of ``self[k]``)."""
        if k not in self._arrays:
            self[k]   # noqa: B018 (computes and stores both forms)
        return self._arrays[k]


def _elnet_cov(g0, gram, xv, nlam, flmin, thr, maxit, ne, nx):
    """Covariance-update path (glmnetpp ``ElnetPath<gaussian, cov>``; legacy ``elnet1``).

    Works on the usable columns only (``p`` of them): ``g0`` is ``X'y`` and ``gram[k]`` is the
    row ``k`` of ``X'X`` (diagonal = ``xv``) of the weighted-standardised problem (a
    :class:`_GramRows`, which computes only the rows of active variables). Penalty factors
    are all 1 and ``alpha = 1``, so the update is a soft threshold divided by ``xv``.

    Returns ``(coefs, active, almo, rsqo, nlp, jerr, lmu)``: per lambda the coefficients of
    the active variables (in the order they entered), the entry order itself, the lambdas,
    the R^2 values, the pass count, the error flag and the path length.
    """
    p = len(g0)
    g = [float(t) for t in g0]
    C = gram
    full_pass = _full_pass_vectorised if p >= 64 else _full_pass
    xvl = [float(t) for t in xv]
    a = [0.0] * p
    is_act = [False] * p
    active: List[int] = []
    allk = list(range(p))
    alf = _lambda_factor(flmin, nlam)
    mnl = min(_MNLAM, nlam)
    rsq = 0.0
    nlp = 0
    iz = False
    alm = 0.0
    coefs, almo, rsqo = [], [], []
    jerr = 0
    lmu = 0

    for m in range(nlam):
        if m == 0:
            alm = _BIG
        elif m == 1:
            alm0 = 0.0
            for j in allk:
                t = abs(g[j])
                if t > alm0:
                    alm0 = t
            alm = alm0 * alf
        else:
            alm *= alf
        ab = alm
        rsq0 = rsq
        try:
            if iz:
                nlp, rsq = _cov_partial(a, g, C, xvl, active, is_act, ab, thr, maxit, nlp, rsq)
            while True:
                # full pass over every usable variable
                nlp += 1
                g, dlx, rsq = full_pass(a, g, C, xvl, is_act, active, nx, ab, rsq)
                if dlx < thr:
                    break
                if nlp > maxit:
                    raise _MaxitReached(nlp)
                iz = True
                nlp, rsq = _cov_partial(a, g, C, xvl, active, is_act, ab, thr, maxit, nlp, rsq)
        except _MaxitReached as exc:
            nlp = exc.args[0]
            jerr = -m - 1
            break
        except _MaxActiveReached:
            jerr = -10001 - m
            break
        lmu = m + 1
        if _store_and_stop(a, active, alm, rsq, rsq0, coefs, almo, rsqo, lmu, mnl, flmin, ne):
            break
    return coefs, active, almo, rsqo, nlp, jerr, lmu


def _store_and_stop(a, active, alm, rsq, rsq0, coefs, almo, rsqo, lmu, mnl, flmin, ne) -> bool:
    """Store the solution at one lambda; True when the path stops there (glmnetpp's rules:
    after ``mnl`` lambdas, more than ``ne`` non-zero coefficients, a deviance-ratio change
    below ``fdev`` or a deviance ratio above ``devmax``)."""
    c = [a[k] for k in active]
    coefs.append(c)
    almo.append(alm)
    rsqo.append(rsq)
    if lmu < mnl or flmin >= 1.0:
        return False
    me = sum(1 for t in c if t != 0.0)
    prop = math.inf if rsq == 0 else (rsq - rsq0) / rsq
    return me > ne or prop < _FDEV or rsq > _DEVMAX


def _cov_partial(a, g, C, xvl, active, is_act, ab, thr, maxit, nlp, rsq):
    """Passes over the active set until convergence, then bring the inactive gradients up to
    date (glmnetpp ``partial_fit`` of the covariance point solver)."""
    act = list(active)
    da = [a[k] for k in act]
    rows = [C[k] for k in act]   # every active variable's Gram row exists (made when it entered)
    nab = -ab
    if len(act) >= 48:
        nlp, rsq = _cov_partial_active_vectorised(a, g, C, xvl, act, ab, thr, maxit, nlp, rsq)
    else:
        nlp, rsq = _cov_partial_active(a, g, xvl, act, rows, ab, nab, thr, maxit, nlp, rsq)
    # da = old - new for the active set; inactive gradients g_j += sum_l da_l * C[act_l][j]
    # (the Gram matrix is symmetric: the rows of the active variables hold every entry needed)
    n_act = len(act)
    da = [da[i] - a[act[i]] for i in range(n_act)]
    nonzero = [i for i in range(n_act) if da[i] != 0.0]
    if not nonzero:
        return nlp, rsq
    inactive = [j for j in range(len(g)) if not is_act[j]]
    if len(inactive) * len(nonzero) < 4096:
        for j in inactive:
            s = 0.0
            for i in nonzero:
                s += da[i] * rows[i][j]
            g[j] += s
        return nlp, rsq
    # the same sums in the same order, a vector of inactive gradients at a time
    idx = np.asarray(inactive, dtype=np.intp)
    s = np.zeros(idx.size)
    for i in nonzero:
        s += da[i] * C.array(act[i])[idx]
    for j, v in zip(inactive, (np.asarray([g[j] for j in inactive]) + s).tolist()):
        g[j] = v
    return nlp, rsq


def _full_pass(a, g, C, xvl, is_act, active, nx, ab, rsq):
    """The full pass of :func:`_elnet_cov` over every usable variable (gradients as a list, the
    faster form for few variables). Returns the gradients, the largest weighted change and R^2."""
    dlx = 0.0
    nab = -ab
    for k in range(len(g)):
        ak = a[k]
        xvk = xvl[k]
        u = g[k] + ak * xvk
        # soft threshold copysign(|u| - ab, u) / xvk, without the calls (same bits)
        an = (u - ab) / xvk if u > ab else ((u + ab) / xvk if u < nab else 0.0)
        if an == ak:
            continue
        if not is_act[k]:
            if len(active) + 1 > nx:
                raise _MaxActiveReached
            is_act[k] = True
            active.append(k)
        a[k] = an
        d = an - ak
        t = xvk * d * d
        if t > dlx:
            dlx = t
        rsq += d * (2.0 * g[k] - d * xvk)
        Ck = C[k]
        g = [gj - cj * d for gj, cj in zip(g, Ck)]
    return g, dlx, rsq


def _full_pass_vectorised(a, g, C, xvl, is_act, active, nx, ab, rsq):
    """The full pass of :func:`_elnet_cov` over every variable for many variables: the gradients
    are one array, updated by one vector operation per changed coefficient (the same products
    and differences, element by element, as the list version: the same bits). Returns the
    gradients as a list, the largest weighted change and R^2.

    A twin of :func:`_full_pass` on purpose: the coordinate loop is the hot path, and sharing its
    body through a call per coordinate, or using arrays for every size, doubled LocalModel's time
    with 10 features (1.8 -> 3.5 ms at n = 1,000)."""
    gv = np.asarray(g, dtype=float)
    tmp = np.empty_like(gv)
    dlx = 0.0
    nab = -ab
    for k in range(gv.size):
        ak = a[k]
        xvk = xvl[k]
        gk = gv.item(k)
        u = gk + ak * xvk
        an = (u - ab) / xvk if u > ab else ((u + ab) / xvk if u < nab else 0.0)
        if an == ak:
            continue
        if not is_act[k]:
            if len(active) + 1 > nx:
                raise _MaxActiveReached
            is_act[k] = True
            active.append(k)
        a[k] = an
        d = an - ak
        t = xvk * d * d
        if t > dlx:
            dlx = t
        rsq += d * (2.0 * gk - d * xvk)
        np.multiply(C.array(k), d, out=tmp)
        np.subtract(gv, tmp, out=gv)
    return gv.tolist(), dlx, rsq


def _cov_partial_active(a, g, xvl, act, rows, ab, nab, thr, maxit, nlp, rsq):
    """The passes over the active set of :func:`_cov_partial` (gradients in the list ``g``)."""
    while True:
        nlp += 1
        dlx = 0.0
        for k, Ck in zip(act, rows):
            ak = a[k]
            xvk = xvl[k]
            u = g[k] + ak * xvk
            an = (u - ab) / xvk if u > ab else ((u + ab) / xvk if u < nab else 0.0)
            if an == ak:
                continue
            a[k] = an
            d = an - ak
            t = xvk * d * d
            if t > dlx:
                dlx = t
            rsq += d * (2.0 * g[k] - d * xvk)
            for j in act:
                g[j] -= Ck[j] * d
        if dlx < thr:
            return nlp, rsq
        if nlp > maxit:
            raise _MaxitReached(nlp)


def _cov_partial_active_vectorised(a, g, C, xvl, act, ab, thr, maxit, nlp, rsq):
    """:func:`_cov_partial_active` for many active variables: the active gradients are one
    array, updated by one vector operation per changed coefficient (the same products and
    differences, element by element, as the list version: the same bits)."""
    idx = np.asarray(act, dtype=np.intp)
    gA = np.asarray([g[k] for k in act], dtype=float)
    R = np.stack([C.array(k)[idx] for k in act])   # R[i, j] = C[act_i][act_j]
    nab = -ab
    tmp = np.empty_like(gA)
    try:
        while True:
            nlp += 1
            dlx = 0.0
            for i, k in enumerate(act):
                ak = a[k]
                xvk = xvl[k]
                gk = gA.item(i)
                u = gk + ak * xvk
                an = (u - ab) / xvk if u > ab else ((u + ab) / xvk if u < nab else 0.0)
                if an == ak:
                    continue
                a[k] = an
                d = an - ak
                t = xvk * d * d
                if t > dlx:
                    dlx = t
                rsq += d * (2.0 * gk - d * xvk)
                np.multiply(R[i], d, out=tmp)
                np.subtract(gA, tmp, out=gA)
            if dlx < thr:
                return nlp, rsq
            if nlp > maxit:
                raise _MaxitReached(nlp)
    finally:   # the list holds the active gradients again (also when maxit is reached)
        for k, v in zip(act, gA.tolist()):
            g[k] = v


def _elnet_naive(X, r, xv, nlam, flmin, thr, maxit, ne, nx):
    """Naive-update path (glmnetpp ``ElnetPath<gaussian, naive>``; legacy ``elnet2``).

    ``X`` holds the usable weighted-standardised columns and ``r`` the standardised response
    (the residual, updated in place). Sequential strong rules select the variables of each
    full pass; KKT checks on the others add violators and repeat.
    """
    p = X.shape[1]
    xvl = [float(t) for t in xv]
    Xc = [np.ascontiguousarray(X[:, k]) for k in range(p)]
    r = r.copy()
    gabs = [abs(float(r @ Xc[k])) for k in range(p)]
    strong = [False] * p
    a = [0.0] * p
    is_act = [False] * p
    active: List[int] = []
    alf = _lambda_factor(flmin, nlam)
    mnl = min(_MNLAM, nlam)
    rsq = 0.0
    nlp = 0
    iz = False
    alm = 0.0
    coefs, almo, rsqo = [], [], []
    jerr = 0
    lmu = 0
    copysign = math.copysign

    def update(k, ab, full, dlx, rsq, r):
        ak = a[k]
        xvk = xvl[k]
        gk = float(r @ Xc[k])
        u = gk + ak * xvk
        vv = abs(u) - ab
        an = copysign(vv, u) / xvk if vv > 0.0 else 0.0
        if an == ak:
            return dlx, rsq, r
        if full and not is_act[k]:
            if len(active) + 1 > nx:
                raise _MaxActiveReached
            is_act[k] = True
            active.append(k)
        a[k] = an
        d = an - ak
        t = xvk * d * d
        if t > dlx:
            dlx = t
        rsq += d * (2.0 * gk - d * xvk)
        r -= d * Xc[k]
        return dlx, rsq, r

    def partial(ab, nlp, rsq, r):
        while True:
            nlp += 1
            dlx = 0.0
            for k in list(active):
                dlx, rsq, r = update(k, ab, False, dlx, rsq, r)
            if dlx < thr:
                return nlp, rsq, r
            if nlp > maxit:
                raise _MaxitReached(nlp)

    alm_prev = 0.0
    for m in range(nlam):
        if m == 0:
            alm = _BIG
            alm0 = alm_prev
        elif m == 1:
            alm0 = max(gabs)
            alm = alm0 * alf
        else:
            alm0 = alm
            alm *= alf
        alm_prev = alm
        ab = alm
        rsq0 = rsq
        tlam = 2.0 * alm - alm0
        try:
            for k in range(p):
                if not strong[k] and gabs[k] > tlam:
                    strong[k] = True
            if iz:
                nlp, rsq, r = partial(ab, nlp, rsq, r)
            while True:
                converged_kkt = False
                while True:  # initial_fit: full passes until not converged or KKT holds
                    if nlp > maxit:
                        raise _MaxitReached(nlp)
                    nlp += 1
                    dlx = 0.0
                    for k in range(p):
                        if strong[k]:
                            dlx, rsq, r = update(k, ab, True, dlx, rsq, r)
                    if dlx < thr:
                        added = False
                        for k in range(p):
                            if not strong[k]:
                                gabs[k] = abs(float(r @ Xc[k]))
                        for k in range(p):
                            if not strong[k] and gabs[k] > ab:
                                strong[k] = True
                                added = True
                        if not added:
                            converged_kkt = True
                            break
                        continue
                    if nlp > maxit:
                        raise _MaxitReached(nlp)
                    break
                if converged_kkt:
                    break
                iz = True
                nlp, rsq, r = partial(ab, nlp, rsq, r)
        except _MaxitReached as exc:
            nlp = exc.args[0]
            jerr = -m - 1
            break
        except _MaxActiveReached:
            jerr = -10001 - m
            break
        lmu = m + 1
        if _store_and_stop(a, active, alm, rsq, rsq0, coefs, almo, rsqo, lmu, mnl, flmin, ne):
            break
    return coefs, active, almo, rsqo, nlp, jerr, lmu


# ------------------------------------------------------------------------------------------
# multinomial, grouped penalty
# ------------------------------------------------------------------------------------------

def _factor(y, levels):
    """Labels -> (codes, level names) like R's ``as.factor``."""
    cats = None
    if levels is None and hasattr(y, "cat") and hasattr(y.cat, "categories"):
        cats = list(y.cat.categories)
        y = y.to_numpy()
    elif levels is None and hasattr(y, "categories") and hasattr(y, "codes"):
        cats = list(y.categories)
        y = np.asarray(y)
    y = np.asarray(y, dtype=object).ravel()
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in y):
        raise ValueError("y has missing values")
    if levels is not None:
        cats = list(levels)
    if cats is None:
        uniq = set(y.tolist())
        try:
            cats = sorted(uniq)
        except TypeError:
            cats = sorted(uniq, key=str)
    index = {c: i for i, c in enumerate(cats)}
    try:
        codes = np.array([index[v] for v in y.tolist()], dtype=int)
    except KeyError as exc:
        raise ValueError(f"y contains a label not among the levels: {exc.args[0]!r}") from None
    return codes, [str(c) for c in cats]


@r_arithmetic
def _fit_multinomial(x, y, weights, var_names, levels, isd, nlam, flmin, thr, ne, nx, maxit):
    nobs, ni = x.shape
    if hasattr(y, "shape") and len(getattr(y, "shape")) == 2 and y.shape[1] > 1:
        raise ValueError("only hard class labels are supported for the multinomial family")
    codes, classnames = _factor(y, levels)
    if codes.size != nobs:
        raise ValueError(
            f"number of observations in y ({codes.size}) not equal to the number of rows of x ({nobs})")
    nc = len(classnames)
    counts = np.bincount(codes, minlength=nc)
    if nc == 0 or counts.min() <= 1:
        raise ValueError("one multinomial or binomial class has 1 or 0 observations; not allowed")
    if counts.min() < 8:
        warn_user("one multinomial or binomial class has fewer than 8  observations; dangerous ground",
                  UserWarning, user_stacklevel())
    if nc < 2:
        raise ValueError("the multinomial family needs at least 2 classes")

    # lognet(): y = indicator matrix * weights; rows of zero weight are dropped.
    keep = weights > 0
    if not keep.all():
        x = x[keep]
        codes = codes[keep]
        weights = weights[keep]
    no = x.shape[0]
    ju = _chkvars(x)
    if not ju.any():
        raise ValueError("from glmnet C++ code (error code 7777); All used predictors have zero variance")
    Y = np.zeros((no, nc))
    Y[np.arange(no), codes] = 1.0
    sw = float(weights.sum())
    w = weights / sw

    # MultLStandardize1 (with intercept)
    juix = np.flatnonzero(ju)
    xm = np.zeros(ni)
    xs = np.ones(ni)
    xj = x[:, juix]
    xm[juix] = w @ xj
    xj = xj - xm[juix]
    xvj = w @ (xj * xj)
    if isd:
        lost = _underflowed(xvj, juix, var_names, xj, x, weights)
        xs[juix] = np.sqrt(xvj)
        xs[lost] = 1.0
        xj = xj / xs[juix]
        xvj = np.ones(len(juix))

    res = _multlognet_grouped(xj, Y, w, xvj, nlam, flmin, thr, maxit, ne, nx)
    coefs, active, a0s, almo, devs, dev0, nlp, jerr, lmu = res
    if jerr != 0:
        warn_user(_jerr_message(jerr, maxit, nx), UserWarning, user_stacklevel())

    beta = np.zeros((nc, ni, lmu))
    a0 = np.zeros((nc, lmu))
    for m in range(lmu):
        c = coefs[m]  # (n_active_m, nc)
        cols = juix[active[:c.shape[0]]]
        ca = c / xs[cols][:, None] if isd else c
        beta[:, cols, m] = ca.T
        a0[:, m] = a0s[m] - (ca.T @ xm[cols] if c.shape[0] else 0.0)
    # getcoef.multinomial: centre the intercepts over classes
    if lmu:
        a0 = a0 - a0.mean(axis=0, keepdims=True)
    nz = beta != 0
    df = nz.any(axis=0).sum(axis=0).astype(int)
    dfmat = nz.sum(axis=1).astype(int)
    lam = np.array(almo[:lmu], dtype=float)
    if lmu >= 1:
        lam = _fix_lam(lam)
    return GlmnetFit(family="multinomial", a0=a0, beta=beta, df=df, lambda_=lam,
                     dev_ratio=np.array(devs[:lmu], dtype=float), nulldev=float(dev0 * 2.0 * sw),
                     npasses=nlp, jerr=jerr, nobs=nobs, var_names=var_names, classnames=classnames,
                     dfmat=dfmat, ju=ju.copy(), grouped=True)


def _multlognet_grouped(X, Y, w, xv, nlam, flmin, thr, maxit, ne, nx):
    """Grouped multinomial lasso path (glmnetpp ``ElnetPath<binomial, multi_class_group>``;
    legacy ``multlognetn``) on the usable standardised columns ``X``.

    The inner weighted least squares uses the fixed weights ``w`` scaled by the scalar Hessian
    bound ``t``, so the gradient ``r' x_k`` of each variable can be kept current through the
    weighted Gram matrix ``X' diag(w) X`` instead of touching the length-n residuals at every
    coordinate step (algebraically the same iterations as glmnet's residual updates). Only the
    gradients of the strong set are tracked, in a compact index rebuilt when the set grows.
    """
    no, p = X.shape
    nc = Y.shape[1]
    emin = _PMIN / (1.0 - _PMIN)
    emax = 1.0 / emin
    Xf = np.asfortranarray(X)
    Gw = X.T @ (X * w[:, None])
    xvl = [float(t) for t in xv]
    rng_c = range(nc)
    Yt = np.ascontiguousarray(Y.T)  # (nc, no)
    ypos = Yt > 0

    # null model (glmnetpp construct)
    q0 = Yt @ w
    b0 = [0.0] * nc
    dev1 = 0.0
    for ic in rng_c:
        if q0[ic] <= _PMIN:
            raise NullProbabilityError(f"from glmnet C++ code (error code {8001 + ic}); Null probability for "
                                       f"class {ic + 1} < 1.0e-5", ic, low=True)
        if q0[ic] >= 1.0 - _PMIN:
            raise NullProbabilityError(f"from glmnet C++ code (error code {9001 + ic}); Null probability for "
                                       f"class {ic + 1} > 1.0 - 1.0e-5", ic, low=False)
        b0[ic] = math.log(float(q0[ic]))
        dev1 -= float(q0[ic]) * b0[ic]
    s = float(r_seq_sum(np.array(b0))) / nc
    b0 = [b - s for b in b0]
    q = np.empty((nc, no))  # class-major: q[ic] is the unnormalised probability of class ic
    sxp = np.zeros(no)
    for ic in rng_c:
        q[ic] = math.exp(b0[ic])
        sxp += q[ic]
    dev0 = dev1  # + sum(w y log y), which is 0 for indicator responses
    shr = thr * dev0

    B = [[0.0] * nc for _ in range(p)]  # coefficients per variable (standardised scale)
    Bs = [[0.0] * nc for _ in range(p)]  # coefficients at the start of the current WLS
    strong = [False] * p
    is_act = [False] * p
    active: List[int] = []
    # compact strong-set structures
    S: List[int] = []
    pos_of = [-1] * p
    GS: List[List[float]] = []
    xvS: List[float] = []

    XSc1 = np.ones((no, 1))
    GSnp = np.zeros((0, 0))

    def rebuild_strong():
        nonlocal XSc1, GSnp
        S[:] = [k for k in range(p) if strong[k]]
        for i, k in enumerate(S):
            pos_of[k] = i
        GSnp = np.ascontiguousarray(Gw[np.ix_(S, S)])
        GS[:] = GSnp.tolist()
        xvS[:] = [xvl[k] for k in S]
        XS = Xf[:, S]
        XSc1 = np.hstack([XS - (w @ XS)[None, :], np.ones((no, 1))])

    def abs_grad(cols):
        Rm = w * (Yt - q / sxp)
        return np.sqrt(((Rm @ Xf[:, cols]) ** 2).sum(axis=0))

    ga = [float(t) for t in abs_grad(slice(None))]
    alf = _lambda_factor(flmin, nlam)
    mnl = min(_MNLAM, nlam)
    nlp = 0
    alm = 0.0
    coefs, a0s, almo, devs = [], [], [], []
    jerr = 0
    lmu = 0
    sqrt = math.sqrt
    XA1t = np.ones((1, no))
    n_act_XA = 0
    P = np.empty((nc, no))
    H = np.empty((nc, no))
    Rm = np.empty((nc, no))
    buf = np.empty(no)

    for m in range(nlam):
        if m == 0:
            alm0 = alm
            alm = _BIG
        elif m == 1:
            # the largest gradient norm; a NaN one (a column whose spread underflowed) is never
            # larger, as in glmnetpp's comparisons
            alm0 = max((g for g in ga if g > 0.0), default=0.0)
            alm = alm0 * alf
        else:
            alm0 = alm
            alm *= alf
        tlam = 2.0 * alm - alm0
        try:
            grew = False
            for k in range(p):
                if not strong[k] and ga[k] > tlam:
                    strong[k] = True
                    grew = True
            if grew:
                rebuild_strong()
            while True:  # IRLS
                if nlp > maxit:
                    raise _MaxitReached(nlp)
                # setup_wls: Hessian bound t = 2 max p(1 - p), working residuals
                # r_ic = w (y_ic - p_ic) / t, intercept step d_ic = sum(r_ic)
                np.divide(q, sxp, out=P)
                np.subtract(1.0, P, out=H)
                H *= P
                t = float(H.max())
                if t < _EPS:
                    raise _BelowMinVariance
                t *= 2.0
                l1s = alm / t
                bs0 = list(b0)
                for k in active:
                    Bs[k] = B[k]
                np.subtract(Yt, P, out=Rm)
                Rm *= w / t
                # one product gives the gradients r_ic' x_k of the strong set after the
                # intercept step r_ic -= d_ic w (columns of XSc1 are x_k - w'x_k) and d_ic itself
                Ml = (Rm @ XSc1).tolist()
                for ic in rng_c:
                    d = Ml[ic].pop()
                    if d != 0.0:
                        b0[ic] += d
                # gradients kept as numpy (nc, |S|) when that is large, else as lists per class
                use_np = len(S) * nc > 32
                grS = np.array(Ml).reshape(nc, len(S)) if use_np else Ml
                act_pos = [pos_of[k] for k in active]
                all_pos = list(range(len(S)))

                # wls: full passes over the strong set, partial passes over the active set
                full = True
                while True:
                    nlp += nc
                    dlx = 0.0
                    for i in (all_pos if full else act_pos):
                        k = S[i]
                        bk = B[k]
                        xvk = xvS[i]
                        if use_np:
                            gn = [g + xvk * b for g, b in zip(grS[:, i].tolist(), bk)]
                        else:
                            gn = [grS[ic][i] + xvk * bk[ic] for ic in rng_c]
                        ss = 0.0
                        for z in gn:
                            ss += z * z
                        gkn = sqrt(ss)
                        u = 1.0 - l1s / gkn if gkn > 0.0 else -math.inf
                        if u > 0.0:
                            f = u / xvk
                            new = [z * f for z in gn]
                        else:
                            new = [0.0] * nc
                        if new == bk:
                            continue
                        if full and not is_act[k]:
                            if len(active) + 1 > nx:
                                raise _MaxActiveReached
                            is_act[k] = True
                            active.append(k)
                            act_pos.append(i)
                        diff = [nb - ob for nb, ob in zip(new, bk)]
                        dm = max(abs(z) for z in diff) if nc > 2 else max(abs(diff[0]), abs(diff[1]))
                        dd = xvk * dm * dm
                        if dd > dlx:
                            dlx = dd
                        B[k] = new
                        if use_np:
                            grS -= np.multiply.outer(diff, GSnp[i])
                        else:
                            GSi = GS[i]
                            for ic in rng_c:
                                d = diff[ic]
                                if d != 0.0:
                                    grS[ic] = [g - d * c for g, c in zip(grS[ic], GSi)]
                    if dlx < shr:
                        if full:
                            break
                        full = True
                        continue
                    if nlp > maxit:
                        raise _MaxitReached(nlp)
                    full = False

                # update_irls: convergence check, then the new probabilities
                int_diff = max(abs(b0[ic] - bs0[ic]) for ic in rng_c)
                conv = not (int_diff * int_diff > shr)
                if conv:
                    for k in active:
                        bk = B[k]
                        bsk = Bs[k]
                        dm = max(abs(bk[ic] - bsk[ic]) for ic in rng_c)
                        if dm * dm * xvl[k] > shr:
                            conv = False
                            break
                if n_act_XA != len(active):
                    XA1t = np.vstack([Xf[:, active].T, np.ones((1, no))])
                    n_act_XA = len(active)
                # linear predictors b0 + sum_k B_k x_k, clamped, exponentiated: (nc, no)
                E = np.array([B[k] for k in active] + [b0]).T @ XA1t
                np.maximum(E, -_EXMX, out=E)
                np.minimum(E, _EXMX, out=E)
                np.exp(E, out=E)
                for ic in rng_c:  # class by class: the bounds use the partly updated sxp
                    qi = q[ic]
                    sxp -= qi
                    np.multiply(sxp, emin, out=buf)
                    np.maximum(buf, E[ic], out=qi)
                    np.multiply(sxp, emax, out=buf)
                    np.minimum(qi, buf, out=qi)
                    sxp += qi
                s = float(r_seq_sum(np.array(b0))) / nc
                b0 = [b - s for b in b0]
                if conv:
                    rest = [k for k in range(p) if not strong[k]]
                    added = False
                    if rest:
                        gar = abs_grad(rest)
                        for k, val in zip(rest, gar.tolist()):
                            ga[k] = val
                            if val > alm:
                                strong[k] = True
                                added = True
                    if not added:
                        break
                    rebuild_strong()
        except _MaxitReached as exc:
            nlp = exc.args[0]
            jerr = -m - 1
            break
        except _MaxActiveReached:
            jerr = -10001 - m
            break
        except _BelowMinVariance:
            jerr = -20001 - m
            break
        coefs.append(np.array([B[k] for k in active], dtype=float).reshape(len(active), nc))
        a0s.append(np.array(b0, dtype=float))
        devi = -float(np.sum((w * np.log(q / sxp))[ypos]))
        dev_m = (dev1 - devi) / dev0
        devs.append(dev_m)
        almo.append(alm)
        lmu = m + 1
        if lmu < mnl or flmin >= 1.0:
            continue
        me = sum(1 for k in active if B[k][0] != 0.0)
        prev = devs[m - 1] if m > 0 else 0.0
        if me > ne or dev_m - prev < _FDEV or dev_m > _DEVMAX:
            break
    return coefs, active, a0s, almo, devs, dev0, nlp, jerr, lmu


# ------------------------------------------------------------------------------------------
# predictions
# ------------------------------------------------------------------------------------------

def predict(fit: GlmnetFit, newx, s_index=None, type: str = "link") -> np.ndarray:
    """Predictions from a fitted path at chosen lambda indices.

    R equivalent: ``predict(fit, newx, type = type)[, s_index + 1]`` (for gaussian,
    ``predict.elnet``; for multinomial, ``predict.multnet``), i.e. at path points exactly,
    without lambda interpolation.

    Parameters
    ----------
    fit : GlmnetFit
        Result of :func:`glmnet`.
    newx : array-like of shape (m, p) or (p,)
        New rows (a 1-D vector is one row).
    s_index : int or sequence of int, optional
        0-based path indices (R's 1-based index minus one); default all lambdas.
    type : {"link", "response"}
        Linear predictor, or for multinomial the class probabilities
        ``exp(eta_k) / sum_l exp(eta_l)`` (for gaussian both are the linear predictor).

    Returns
    -------
    ndarray
        Gaussian: shape ``(m,)`` for a scalar ``s_index``, else ``(m, n_s)``.
        Multinomial: ``(m, n_classes)`` for a scalar ``s_index``, else
        ``(m, n_classes, n_s)`` (R's array layout).
    """
    if type not in ("link", "response"):
        raise ValueError("type must be 'link' or 'response'")
    if hasattr(newx, "to_numpy"):
        newx = newx.to_numpy(dtype=float)
    newx = np.asarray(newx, dtype=float)
    if newx.ndim == 1:
        newx = newx[None, :]
    p = len(fit.var_names)
    if newx.ndim != 2 or newx.shape[1] != p:
        raise ValueError(f"The number of variables in newx must be {p}")
    nlam = len(fit.lambda_)
    scalar = s_index is not None and np.ndim(s_index) == 0
    idx = np.arange(nlam) if s_index is None else np.atleast_1d(np.asarray(s_index))
    if idx.dtype.kind not in "iu":
        raise ValueError("s_index must be integer path indices")
    if ((idx < 0) | (idx >= nlam)).any():
        raise ValueError(f"s_index out of range: the path has {nlam} lambdas")
    if fit.family == "gaussian":
        out = _sparse_link(newx, fit.a0[idx], fit.beta[:, idx])
        return out[:, 0] if scalar else out
    # multinomial: (m, nc, ns)
    link = np.stack([_sparse_link(newx, fit.a0[c, idx], fit.beta[c][:, idx]) for c in range(fit.a0.shape[0])],
                    axis=1)
    if type == "response":   # R: exp(dp) / apply(exp(dp), c(2, 3), sum) (sum in long double)
        e = r_exp(link)
        total = np.cumsum(e.astype(np.longdouble), axis=1)[:, -1:].astype(float)
        link = e / total
    return link[:, :, 0] if scalar else link


def _sparse_link(newx: np.ndarray, a0: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``cbind2(1, newx) %*% rbind2(a0, beta)`` as R computes it with a sparse coefficient
    matrix (Matrix / CHOLMOD ``sdmult``): per row and lambda, 0 plus the intercept, then
    ``x_j * beta_j`` for each nonzero coefficient in feature order, added one after the other
    in double. Shape (m, len(a0))."""
    out = np.zeros((newx.shape[0], a0.shape[0]))
    out += a0[None, :]
    for j in range(beta.shape[0]):
        b = beta[j]
        nz = b != 0
        if nz.any():
            out += np.where(nz[None, :], newx[:, j:j + 1] * b[None, :], 0.0)
    return out
