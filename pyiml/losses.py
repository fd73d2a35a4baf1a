"""Loss functions under the names FeatureImp accepts, with R ``Metrics``' exact definitions.

R equivalent: the ``Metrics`` package (0.1.4) functions that ``iml::FeatureImp`` looks up by
name. Sums and means use R's long-double arithmetic (:mod:`pyiml._algorithms.rstats`), so the
values equal R's to the last bits.

Every loss is ``loss(actual, predicted) -> float``. ``get_loss`` also accepts any callable
with that signature.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable, Dict, Tuple, Union

import numpy as np

from ._algorithms.rstats import r_arithmetic, r_log, r_mean, r_median, r_sum

__all__ = ["LOSSES", "get_loss"] + [
    "ce", "f1", "logLoss", "mae", "mse", "rmse", "mape", "mdae", "msle", "percent_bias", "rae", "rmsle",
    "rse", "rrse", "smape",
]


class _Arithmetic:
    """The sums, means, medians and logarithms a loss is computed with."""

    def __init__(self, mean, sum_, median, log):
        self.mean, self.sum, self.median, self.log = mean, sum_, median, log


def _np_mean(x) -> float:
    x = np.asarray(x, dtype=float).ravel()
    return float(np.mean(x)) if x.size else float("nan")


def _np_sum(x) -> float:
    return float(np.sum(x))


def _np_median(x) -> float:
    x = np.asarray(x, dtype=float).ravel()
    return float(np.median(x)) if x.size else float("nan")


#: R's arithmetic (sequential long-double sums, R's two-pass mean, the C library's log): bit for
#: bit R's values.
_EXACT = _Arithmetic(r_mean, r_sum, r_median, r_log)
#: numpy's float64 arithmetic: the same values up to rounding in the last bits, several times
#: faster on long vectors (used by FeatureImp when the random source is not R-exact).
_FAST = _Arithmetic(_np_mean, _np_sum, _np_median, np.log)   # module functions: losses pickle


def _num(x) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "fiub":
        raise TypeError(
            "this loss needs numeric actual and predicted values; for class labels use 'ce' or 'f1'"
        )
    return np.asarray(a, dtype=float).ravel()   # no copy: the losses never write to their inputs


def _labels(x) -> np.ndarray:
    if x is None:
        raise TypeError("actual and predicted must be vectors of labels or numbers, got None")
    a = np.asarray(x)
    if a.dtype.kind in "fiub":
        return a.ravel()
    return a.astype(str).ravel()


def comparable_labels(a: np.ndarray, p: np.ndarray):
    """Labels against numbers are compared as text, the numbers written as R's ``as.character``
    writes them (R coerces them so: a factor level "1" equals the number 1, "0.5" equals 0.5)."""
    if a.dtype.kind == p.dtype.kind or not (a.dtype.kind == "U" or p.dtype.kind == "U"):
        return a, p
    from ._algorithms.rformat import r_as_character

    def text(x):
        return np.asarray(r_as_character(x), dtype=str) if x.dtype.kind == "f" else x.astype(str)
    return text(a), text(p)


def _check(a, p):
    if a.shape != p.shape:
        raise ValueError(f"actual and predicted must have the same length, got {a.shape[0]} and {p.shape[0]}")


def ce(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Classification error, ``mean(actual != predicted)`` (R: ``Metrics::ce``).

    Labels are compared as strings when they are not numbers (R compares factor labels)."""
    a, p = comparable_labels(_labels(actual), _labels(predicted))
    _check(a, p)
    return _m.mean((a != p).astype(float))


def f1(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """F1 score on the *sets* of values (R: ``Metrics::f1``, as used in information retrieval).

    ``tp = |A ∩ P|``, ``fp = |P \\ A|``, ``fn = |A \\ P|`` with A, P the unique values;
    0 when tp = 0."""
    a, p = comparable_labels(_labels(actual), _labels(predicted))
    A, P = set(a.tolist()), set(p.tolist())
    tp = len(A & P)
    fp = len(P - A)
    fn = len(A - P)
    if tp == 0:
        return 0.0
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    return 2 * precision * recall / (precision + recall)


def _ll(a, p, log=np.log) -> np.ndarray:
    score = -(a * log(p) + (1 - a) * log(1 - p))   # log(0) = -Inf: logLoss computes quietly
    score[a == p] = 0.0
    score[np.isnan(score)] = np.inf
    return score


# The built-in losses compute as R does (@r_arithmetic): a sum or square beyond the double range is
# Inf, 0/0 is NaN, and FeatureImp reports a loss that is not a number with a clear error (instead of
# numpy's overflow warning first).
@r_arithmetic
def logLoss(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Mean log loss of binary 0/1 ``actual`` and probabilities ``predicted`` (R: ``Metrics::logLoss``).

    ``ll = -(a log p + (1 - a) log(1 - p))``, 0 where ``a == p``, ``Inf`` where NaN."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return _m.mean(_ll(a, p, _m.log))


@r_arithmetic
def mae(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Mean absolute error (R: ``Metrics::mae``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return _m.mean(np.abs(a - p))


@r_arithmetic
def mse(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Mean squared error (R: ``Metrics::mse``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return _m.mean((a - p) ** 2)


def rmse(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Root mean squared error (R: ``Metrics::rmse``)."""
    return float(np.sqrt(mse(actual, predicted, _m=_m)))


@r_arithmetic
def mape(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Mean absolute percentage error, ``mean(|a - p| / |a|)`` (R: ``Metrics::mape``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return _m.mean(np.abs(a - p) / np.abs(a))


@r_arithmetic
def mdae(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Median absolute error (R: ``Metrics::mdae``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return _m.median(np.abs(a - p))


@r_arithmetic
def msle(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Mean squared log error, ``mean((log(1 + a) - log(1 + p))^2)`` (R: ``Metrics::msle``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return _m.mean((_m.log(1 + a) - _m.log(1 + p)) ** 2)


def rmsle(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Root mean squared log error (R: ``Metrics::rmsle``)."""
    return float(np.sqrt(msle(actual, predicted, _m=_m)))


@r_arithmetic
def percent_bias(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """``mean((a - p) / |a|)`` (R: ``Metrics::percent_bias``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return _m.mean((a - p) / np.abs(a))


@r_arithmetic
def rae(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Relative absolute error, ``sum|p - a| / sum|a - mean(a)|`` (R: ``Metrics::rae``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return float(np.float64(_m.sum(np.abs(p - a))) / np.float64(_m.sum(np.abs(a - _m.mean(a)))))


@r_arithmetic
def rse(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Relative squared error, ``sum (a - p)^2 / sum (a - mean(a))^2`` (R: ``Metrics::rse``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return float(np.float64(_m.sum((a - p) ** 2)) / np.float64(_m.sum((a - _m.mean(a)) ** 2)))


def rrse(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Root relative squared error (R: ``Metrics::rrse``)."""
    return float(np.sqrt(rse(actual, predicted, _m=_m)))


@r_arithmetic
def smape(actual, predicted, *, _m: _Arithmetic = _EXACT) -> float:
    """Symmetric MAPE, ``2 * mean(|a - p| / (|a| + |p|))`` (R: ``Metrics::smape``)."""
    a, p = _num(actual), _num(predicted)
    _check(a, p)
    return 2 * _m.mean(np.abs(a - p) / (np.abs(a) + np.abs(p)))


LOSSES: Dict[str, Callable] = {
    "ce": ce, "f1": f1, "logLoss": logLoss, "mae": mae, "mse": mse, "rmse": rmse, "mape": mape,
    "mdae": mdae, "msle": msle, "percent_bias": percent_bias, "rae": rae, "rmsle": rmsle, "rse": rse,
    "rrse": rrse, "smape": smape,
}

#: losses that compare labels (work on class labels as well as numbers)
LABEL_LOSSES = ("ce", "f1")


@r_arithmetic
def _rows_mae(a: np.ndarray, P: np.ndarray) -> np.ndarray:
    d = a[None, :] - P
    return np.mean(np.abs(d, out=d), axis=1)       # in place: one temporary, not two


@r_arithmetic
def _rows_mse(a: np.ndarray, P: np.ndarray) -> np.ndarray:
    d = a[None, :] - P
    return np.mean(np.square(d, out=d), axis=1)    # x ** 2 is np.square for floats


def _rows_rmse(a: np.ndarray, P: np.ndarray) -> np.ndarray:
    return np.sqrt(_rows_mse(a, P))


#: Row-wise forms of the commonest losses in numpy's arithmetic (``exact=False``): for float
#: ``actual`` (n,) and ``predicted`` (B, n) the B losses, each equal bit for bit to the loss of
#: that row (the same float64 operations, and numpy sums each contiguous row as it sums a vector).
FAST_ROWS: Dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "mae": _rows_mae, "mse": _rows_mse, "rmse": _rows_rmse,
}


def get_loss(loss: Union[str, Callable], exact: bool = True) -> Tuple[Callable, str]:
    """Resolve ``loss`` to ``(function, label)``.

    Parameters
    ----------
    loss : str or callable
        One of the 15 names of :data:`LOSSES` or a callable ``loss(actual, predicted) -> float``.
    exact : bool, default True
        For a named loss: True gives R's arithmetic (values equal R's bit for bit), False numpy's
        float64 sums and means (equal up to rounding in the last bits, faster on long vectors).
        A callable is returned as it is.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the allowed ones).
    """
    if isinstance(loss, str):
        if loss not in LOSSES:
            raise ValueError(
                f"loss={loss!r} is not a known loss; use one of {sorted(LOSSES)} or a function "
                "loss(actual, predicted) -> float"
            )
        fn = LOSSES[loss]
        return (fn if exact else functools.partial(fn, _m=_FAST)), loss
    if callable(loss):
        try:
            inspect.signature(loss).bind(None, None)
        except TypeError:
            raise TypeError(
                f"loss must be a loss name or a function loss(actual, predicted) -> float taking two arguments, "
                f"got {getattr(loss, '__name__', type(loss).__name__)}{inspect.signature(loss)}"
            ) from None
        except ValueError:  # no signature to inspect (some builtins): it is called as it is
            pass
        return loss, getattr(loss, "__name__", type(loss).__name__)
    raise TypeError(f"loss must be a loss name or a callable, got {type(loss).__name__}")
