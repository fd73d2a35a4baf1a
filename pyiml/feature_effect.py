"""``FeatureEffect`` and ``FeatureEffects``: ALE, PDP and ICE curves (and the deprecated ``Partial``).

R equivalents: ``iml::FeatureEffect``, ``iml::FeatureEffects`` and ``iml::Partial`` (iml 0.11.4,
spec §9, §11 and §10).
The estimators live in :mod:`pyiml._ale` (accumulated local effects) and :mod:`pyiml._pdp`
(partial dependence and individual conditional expectation); the grids in
:mod:`pyiml._algorithms.grids`. Plots are drawn by :mod:`pyiml.plotting.feature_effect`, imported
only when ``.plot()`` is called.

Results table (``results``), as in iml
---------------------------------------
=========================  ===================================================================
method / features           columns (``.class`` only with several outputs)
=========================  ===================================================================
ALE, 1 feature              ``.type, [.class], .value, <feature>``
ALE, 2 numeric              ``.type, [.class], .ale, .right, .left, .bottom, .top, <f1>, <f2>``
ALE, numeric × categorical  same, numeric feature first whatever the order given
PDP                         ``<feature(s)>, [.class], .value, .type``
ICE, PDP+ICE                ``<feature>, [.class], .value, .type, .id``
=========================  ===================================================================

``.type`` is ``"ale"``, ``"pdp"`` or ``"ice"``; ``.class`` a categorical of the output columns;
``.id`` the 1-based data row of an ICE curve (``<NA>`` on PDP rows, nullable ``Int64``).
Numeric grid columns are float64 (iml's grids are doubles, for integer features too) unless
``grid_points`` were given, which keep their dtype. A categorical PDP column keeps the data's
dtype (all categories), except in a 2-D PDP of a string feature or with given level names: there
it is a categorical whose categories are the grid values in order of appearance (iml's
``expand.grid``). A categorical ALE column is a categorical whose categories are the used levels
in ALE order.
"""
from __future__ import annotations

import copy
import functools

import numbers
import threading
import warnings
from typing import Callable, Dict, Iterator, List, Literal, Optional, Sequence, Union

import numpy as np
import pandas as pd

from ._ale import AleCatPlan, AleNumCatPlan, AleNumNumPlan, AleNumPlan
from ._algorithms.grids import ale_grid, anchor_grid, expand_grid, float_values, grid_1d, r_approx
from ._base import InterpretationMethod, check_bool, check_int, is_finite_real, real_scalar, refuse_result_names
from ._parallel import check_n_jobs, even_ranges, map_items, min_items, thread_workers
from ._pdp import PDPPlan, encode_values, predict_blocks
from .predictor import Predictor
from .random import as_random_source
from ._text import shown

__all__ = ["FeatureEffect", "FeatureEffects", "Partial", "METHODS", "AGGREGATIONS"]

Method = Literal["ale", "pdp", "ice", "pdp+ice"]
METHODS = ("ale", "pdp", "ice", "pdp+ice")
Aggregation = Literal["pdp", "ale", "none"]
AGGREGATIONS = ("ale", "pdp", "none")


# ---------------------------------------------------------------------------- argument checks
def _copy_points(x):
    """A deep copy of ``grid_points``: arrays and pandas objects by their own ``copy`` (numpy 2.2.4
    crashes deep-copying a ``StringDType`` array, numpy issue #28609), lists and tuples item by
    item, anything else by ``copy.deepcopy``."""
    if isinstance(x, (np.ndarray, pd.Series, pd.Index, pd.Categorical)):
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(_copy_points(v) for v in x)
    if isinstance(x, Iterator):
        raise TypeError(f"grid_points must be a sequence of grid values (a list or an array), got a "
                        f"{type(x).__name__}: pass list(...) of it")
    return copy.deepcopy(x)


def _check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {shown(method)}")
    return method


def _check_features(feature, names: List[str], method: str) -> List[str]:
    if isinstance(feature, str):
        feats = [feature]
    elif isinstance(feature, (list, tuple, pd.Index, pd.Series, np.ndarray)):
        feats = list(feature)
    else:
        raise TypeError(
            f"feature must be a feature name or a list of one or two names, got {type(feature).__name__} "
            f"{feature!r} (pyiml takes names, not iml's 1-based indices)"
        )
    if not 1 <= len(feats) <= 2:
        raise ValueError(f"feature must name one or two features, got {len(feats)}: {shown(feats)}")
    for f in feats:
        if not isinstance(f, str):
            raise TypeError(f"feature must be given by name (str), got {shown(f)} (pyiml takes names, not indices)")
    unknown = [f for f in feats if f not in names]
    if unknown:
        raise ValueError(f"feature {shown(unknown)} is not a feature of the predictor's data; features: {names}")
    if len(feats) == 2 and feats[0] == feats[1]:
        raise ValueError(f"feature: the two features must differ, got {shown(feats)}")
    reserved = _result_columns(method, len(feats))
    refuse_result_names(feats, reserved.__contains__, f"the results of method={method!r}", ", ".join(reserved))
    return feats


def _result_columns(method: str, n_features: int) -> tuple:
    """The columns FeatureEffect's results hold besides the feature columns (``.class`` with
    several outputs)."""
    if method == "ale":
        return (".type", ".value", ".class") if n_features == 1 else \
            (".type", ".ale", ".right", ".left", ".bottom", ".top", ".class")
    if method == "pdp" or n_features == 2:
        return (".value", ".type", ".class")
    return (".value", ".type", ".id", ".class")


def _as_size(v, name: str):
    """A grid size: a number >= 2 (an int when whole; a fractional size stays as it is and the
    grid has as many points as R's ``seq(length.out = size)``, i.e. the size rounded up)."""
    v = real_scalar(v)
    if not is_finite_real(v):
        raise ValueError(f"{name} must be a number >= 2, got {shown(v)}")
    if v < 2:
        raise ValueError(f"{name} must be at least 2, got {shown(v)}")
    return int(v) if v == int(v) else float(v)


def _check_grid_size(grid_size, max_len: Optional[int]) -> list:
    grid_size = real_scalar(grid_size)
    if isinstance(grid_size, (list, tuple, np.ndarray, pd.Series)):
        sizes = [_as_size(v, "grid_size") for v in list(grid_size)]
        if not sizes:
            raise ValueError("grid_size must not be empty")
    else:
        sizes = [_as_size(grid_size, "grid_size")]
    if max_len is not None and len(sizes) > max_len:
        raise ValueError(f"grid_size must have length <= {max_len} (one per feature), but has length {len(sizes)}")
    return sizes


def _check_ylim(ylim):
    """``ylim`` of a plot: None or a pair of numbers (None or NaN leaves that side automatic)."""
    if ylim is None:
        return None
    ok = _is_sequence(ylim) and len(ylim) == 2 and all(
        v is None or (isinstance(v, (numbers.Real, np.number)) and not isinstance(v, (bool, np.bool_)))
        for v in ylim)
    if not ok:
        raise TypeError(f"ylim must be None or a pair of numbers (lower, upper), got {shown(ylim)}")
    if any(v is not None and np.isinf(v) for v in ylim):
        # ggplot takes an infinite limit and gives an infinite axis range, which draws no data
        raise ValueError(f"ylim must be finite, got {shown(ylim)}; use None (or NaN) for a side taken from the data")
    return ylim


def _check_center_at(center_at) -> Optional[float]:
    if center_at is None:
        return None
    center_at = real_scalar(center_at)
    if not is_finite_real(center_at):
        raise ValueError(f"center_at must be a finite number or None, got {shown(center_at)}")
    return center_at


def _range(data, feature: str, finite: bool = False):
    """(min, max) of a numeric feature as floats: NaN when it has missing values, or with
    ``finite`` the range of its finite values, as the grids take them ((NaN, NaN) when it has
    none). No pass over the column where every value is finite (:meth:`pyiml.data.Data.value_range`)."""
    lo, hi = data.value_range(feature)
    if not finite or (np.isfinite(lo) and np.isfinite(hi)):
        return lo, hi
    x = float_values(data.X[feature])
    x = x[np.isfinite(x)]
    return (float(x.min()), float(x.max())) if x.size else (float("nan"), float("nan"))


def _has_missing(data, feature: str, encoded: np.ndarray) -> bool:
    """Whether a feature has missing values (from its cached range, or the encoded array)."""
    kind = encoded.dtype.kind
    if kind == "f":
        return bool(np.isnan(data.value_range(feature)[0]))
    col = data.X[feature]
    if isinstance(col.dtype, pd.CategoricalDtype):
        return bool((encoded < 0).any())
    if kind in "iub":
        return False
    return bool(col.isna().any())


def _is_missing(value) -> bool:
    """None, NaN, pd.NA or NaT (a scalar that ``pd.isna`` calls missing)."""
    return value is None or (np.ndim(value) == 0 and bool(pd.isna(value)))


def _unique_in_order(values) -> list:
    return [values[i] for i in _first_codes(values)[1]]


def _first_codes(values):
    """Per value, the number of its distinct value in order of first appearance; and the
    position of each distinct value's first appearance."""
    codes, first, seen = [], [], {}
    for i, v in enumerate(values):
        key = (type(v).__name__ if isinstance(v, (bool, np.bool_)) else "", v)   # True and 1 apart
        if key not in seen:
            seen[key] = len(first)
            first.append(i)
        codes.append(seen[key])
    return np.asarray(codes, dtype=np.int64), np.asarray(first, dtype=np.int64)


def _is_sequence(v) -> bool:
    return not isinstance(v, (str, bytes, pd.DataFrame)) and hasattr(v, "__len__") and hasattr(v, "__getitem__") \
        and not (isinstance(v, np.ndarray) and v.ndim == 0)


def _check_points(points, what: str) -> list:
    if isinstance(points, pd.DataFrame):
        raise TypeError(f"{what} must be a sequence of grid values, got a DataFrame: pass one of its columns, "
                        f"e.g. df[{shown(points.columns[0]) if len(points.columns) else 'column'}]")
    if not _is_sequence(points):
        raise TypeError(f"{what} must be a sequence of grid values, got {shown(points)}")
    arr = list(points.tolist() if hasattr(points, "tolist") else points)
    if len(arr) == 0:
        raise ValueError(f"{what} must not be empty")
    if any(_is_sequence(v) for v in arr):
        raise ValueError(f"{what} must be a flat sequence of grid values (two features: a pair of them), "
                         f"got {shown(points)}")
    return arr


# ---------------------------------------------------------------------------- FeatureEffect
_BUILD_LOCK = threading.RLock()   # lazy results are made once, also when threads read them together


class _LazyResults:
    """``results`` made on first access from what the run kept.

    A method with ICE curves keeps its predictions (an (n, k, G) array that is already the
    ``.value`` column of the table) and makes iml's long table of ``n·G`` rows (grid, ``.type``
    and ``.id`` columns) only when ``results`` is first read; everything else is computed in
    the constructor, as in iml.
    """

    @property
    def results(self):
        """The results table(s), as iml's ``$results`` (made when first read where they are large:
        the long table of ICE curves)."""
        d = self.__dict__
        if d.get("_build_results") is not None:
            with _BUILD_LOCK:
                build = d.get("_build_results")
                if build is not None:
                    d["_results"] = build()
                    d["_build_results"] = None
                    self._results_made(d["_results"])
        return d.get("_results")

    @results.setter
    def results(self, value):
        self.__dict__["_build_results"] = None
        self.__dict__["_results"] = value

    def _results_made(self, results) -> None:
        """Called once with lazily made results, before anyone can change them."""

    def _defer_results(self, build: Callable[[], object]) -> None:
        self.results = None
        self.__dict__["_build_results"] = build

    def _results_source(self):
        """What ``results`` will be: the builder not yet run, else the results themselves."""
        return self.__dict__.get("_build_results") or self.__dict__.get("_results")

    def __getstate__(self):
        self.results                      # noqa: B018 - made now: the builder holds closures
        state = self.__dict__.copy()
        state.pop("_build_results", None)
        return state


class _Once:
    """A results builder that runs at most once; whoever holds it gets the same value (an
    effect and the FeatureEffects that made it share the ICE table of one run)."""

    __slots__ = ("_build", "_value")

    def __init__(self, build: Callable[[], object]):
        self._build, self._value = build, None

    def __call__(self):
        if self._build is not None:
            self._value = self._build()
            self._build = None
        return self._value


class FeatureEffect(_LazyResults, InterpretationMethod):
    """Effect of one or two features on the prediction: ALE, PDP, ICE or PDP with ICE.

    R equivalent: ``iml::FeatureEffect$new(predictor, feature, method = "ale", center.at = NULL,
    grid.size = 20, grid.points = NULL)``.

    * ``"ale"`` — accumulated local effects: the mean prediction change between neighbouring
      grid points (numerical: type-1 quantiles, ``grid_size + 1`` of them; categorical:
      neighbouring levels in an order found by 1-D MDS) accumulated and centred to mean zero.
      Two features give the pure second-order effect (``.ale``).
    * ``"pdp"`` — partial dependence: the mean prediction with the feature(s) set to each point
      of an equidistant grid of ``grid_size`` points (categorical: every level that occurs).
    * ``"ice"`` — the individual curves, one per data row; ``"pdp+ice"`` both.

    Parameters
    ----------
    predictor : Predictor
    feature : str or sequence of str
        One feature, or two for a 2-D effect (ALE, or PDP; ICE is one-dimensional).
    method : {"ale", "pdp", "ice", "pdp+ice"}, default "ale"
    center_at : float, optional
        PDP/ICE: centre every ICE curve at this value (it is added to the grid) and average the
        centred curves. ALE: shift the curve so that it is 0 at this value (iml stores and
        ignores it). One numerical or integer feature only, inside the data's range.
    grid_size : int or pair of int, default 20
        Grid points per numerical feature (two features: one or two sizes). At least 2; a
        fractional size is rounded up, as R's ``seq(length.out = )`` does (ALE: ``grid_size + 1``
        quantiles, so 5.5 gives 7).
    grid_points : sequence, or pair of sequences for two features, optional
        The grid to use instead (PDP/ICE: in the given order, duplicates removed, sorted when
        ``center_at`` adds its anchor to the grid — for two
        features each pair once, its repeats' predictions pooled as iml pools them; ALE: sorted,
        duplicates removed).
        For two features a None entry takes that feature's grid from ``grid_size`` (iml's
        PDP fails on it). For ALE only numerical features take grid points: give None for the
        categorical one, or, as iml takes them, one flat sequence for the numerical feature of
        a numerical × categorical pair.
    random_state : None, int, numpy.random.Generator or RRandom
        PDP/ICE draw nothing that changes the results, but iml draws one permutation of the
        data rows per grid point; with :class:`pyiml.RRandom` those draws are made, so a later
        random call continues R's sequence (and multi-output ICE rows come in iml's exact order).

    Attributes
    ----------
    results : pandas.DataFrame
        See the module docstring for the columns; rows in iml's order.
    feature_name : list of str
    feature_type : list of str
        "numerical", "integer" or "categorical" per feature.
    n_features : int
    grid_size : dict
        Feature → grid size (categorical: number of distinct values).
    method : str
    center_at : float or None
        Read-only; change it with :meth:`center`.
    predictor : Predictor

    Notes
    -----
    A constant feature, missing values in a feature that ALE (or a categorical PDP/ICE) must
    grid, ``grid_size < 2`` and ``center_at`` outside the feature's range raise ``ValueError``;
    a numerical feature with missing values has a PDP/ICE over its finite values (every row
    kept, as iml). Where pyiml differs from iml (ALE with
    ``center_at``, unused levels, grid points beyond the data, integer × categorical ALE,
    ``predict`` of categorical ALE) see docs/differences.md.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) % 3})
    >>> p = Predictor(predict_function=lambda d: 2 * d["a"] + d["b"], data=X)
    >>> fe = FeatureEffect(p, "a", method="pdp", grid_size=3)
    >>> fe.results[["a", ".value"]].round(2).values.tolist()
    [[0.0, 0.9], [4.5, 9.9], [9.0, 18.9]]
    """

    def __init__(self, predictor: Predictor, feature: Union[str, Sequence[str]], method: Method = "ale",
                 center_at: Optional[float] = None, grid_size: Union[int, Sequence[int]] = 20,
                 grid_points=None, random_state=None, *, _defer: bool = False):
        super().__init__(predictor)
        self.method = _check_method(method)
        # None draws nothing (no numpy generator needed); anything else becomes a RandomSource
        self._random = None if random_state is None else as_random_source(random_state)
        feats = _check_features(feature, self.sampler.feature_names, self.method)
        self._grid_size_original = _check_grid_size(grid_size, len(feats))
        self._grid_points = _copy_points(grid_points)   # the caller's list may change later (R copies)
        self._anchor = _check_center_at(center_at)
        self._curve = None
        self._set_feature(feats)
        if not _defer:
            self._run()

    # ---------------------------------------------------------------- set-up
    @property
    def center_at(self) -> Optional[float]:
        """The centring value (read-only; use :meth:`center`)."""
        return self._anchor

    def _set_feature(self, feats: List[str]) -> None:
        data = self.sampler
        self.feature_name = list(feats)
        self.n_features = len(feats)
        self.feature_type = [data.feature_types[f] for f in feats]
        # iml's set.grid.size(grid.size.original): the first size for the first feature (also
        # after set_feature from two features to one), the second, if any, for the second
        sizes = _check_grid_size(self._grid_size_original, None)
        self.grid_size: Dict[str, Union[int, float]] = {}
        enc = data.encoded()
        for j, f in enumerate(feats):
            col = data.X[f]
            numeric_grid = self.feature_type[j] != "categorical" and self.method != "ale"
            if _has_missing(data, f, enc[f]) and not numeric_grid:
                data.check_finite(f, f"FeatureEffect (feature={f!r})")     # raises, naming the count
            if self.feature_type[j] == "categorical":
                n_distinct = int(col.nunique(dropna=True))
            else:
                # a PDP/ICE grids the finite values and replaces the feature in every row, so rows
                # with a missing value in it are kept (iml: get.grid drops non-finite values)
                lo, hi = _range(data, f, finite=numeric_grid)
                if numeric_grid and not np.isfinite(lo):
                    raise ValueError(
                        f"feature {shown(f)} does not contain any finite values (iml: 'Feature does not contain "
                        "any finite values.'); choose a feature with numbers"
                    )
                n_distinct = 1 if lo == hi else 2
            if n_distinct < 2:
                if self.feature_type[j] != "categorical" and col.nunique(dropna=True) > 1:
                    raise ValueError(
                        f"feature {shown(f)} has values that differ only beyond double precision (e.g. integers above "
                        "2**53): grids and intervals are computed in doubles, as in iml, where they are all one "
                        "value; subtract an offset (e.g. the minimum) from the column first"
                    )
                raise ValueError(
                    f"feature {f!r} has only one unique value: its effect is undefined (iml: "
                    "'feature has only one unique value'); choose a feature that varies"
                )
            if self.feature_type[j] == "categorical":
                self.grid_size[f] = n_distinct
            else:
                self.grid_size[f] = sizes[j] if j < len(sizes) else sizes[0]
        self._validate()

    def _validate(self) -> None:
        types = self.feature_type
        if self.n_features == 2 and self.method in ("ice", "pdp+ice"):
            raise ValueError(f"ICE is not implemented for two features (method={self.method!r}); use method='pdp'")
        if self.method == "ale" and self.n_features == 2 and all(t == "categorical" for t in types):
            raise ValueError("ALE for two categorical features is not implemented; use method='pdp'")
        if self._anchor is not None:
            if self.n_features == 2:
                raise ValueError("center_at applies to one feature only; it cannot centre a 2-D effect")
            if types[0] == "categorical":
                raise ValueError(
                    f"center_at needs a numerical feature, but {self.feature_name[0]!r} is categorical"
                )
            lo, hi = _range(self.sampler, self.feature_name[0], finite=True)     # the grid's range
            if not lo <= self._anchor <= hi:
                raise ValueError(
                    f"center_at={shown(self._anchor)} is outside the range [{lo:g}, {hi:g}] of feature "
                    f"{self.feature_name[0]!r}: centre at a value the data covers"
                )
        self._normalise_grid_points()

    def _normalise_grid_points(self) -> None:
        gp = self._grid_points
        self._points: Optional[List[Optional[list]]] = None
        if gp is None:
            return
        if self.n_features == 1:
            pts = [_check_points(gp, "grid_points")]
        else:
            n_cat = sum(t == "categorical" for t in self.feature_type)
            if (self.method == "ale" and n_cat == 1 and _is_sequence(gp) and len(gp) > 0
                    and not any(g is None or _is_sequence(g) for g in gp)):
                # iml's form for numerical × categorical ALE: one flat vector, the numerical feature's points
                gp = [gp, None] if self.feature_type[0] != "categorical" else [None, gp]
            if (not isinstance(gp, (list, tuple)) or len(gp) != 2
                    or any(g is not None and not _is_sequence(g) for g in gp)):
                raise ValueError("grid_points for two features must be a pair (one sequence or None per feature), "
                                 f"got {shown(gp)}")
            pts = [None if g is None else _check_points(g, f"grid_points[{j}]") for j, g in enumerate(gp)]
        for j, (f, t) in enumerate(zip(self.feature_name, self.feature_type)):
            if pts[j] is None:
                continue
            if t == "categorical":
                if self.method == "ale":
                    raise ValueError(
                        f"grid_points cannot be used for the categorical feature {f!r} with method='ale' "
                        "(ALE uses every level); pass None for it"
                    )
                if isinstance(self.sampler.X[f].dtype, pd.CategoricalDtype):
                    try:
                        encode_values(self.sampler, f, pts[j])    # raises for values that are no category
                    except ValueError as err:
                        raise ValueError(f"grid_points: {err}") from None
                else:
                    # strings and bools: the data's values (a bool grid point must be a bool, not
                    # something numpy would read as True), checked before anything converts them
                    levels = self.sampler.levels(f)
                    known = set(levels)
                    is_bool = pd.api.types.is_bool_dtype(self.sampler.X[f].dtype)
                    bad = [v for v in _unique_in_order(list(pts[j]))
                           if _is_missing(v) or (not isinstance(v, (bool, np.bool_)) if is_bool else v not in known)]
                    if bad:
                        raise ValueError(
                            f"grid_points: values {shown(bad[:5])} are not levels of the categorical feature "
                            f"{shown(f)} (levels: {shown(levels)})")
            else:
                arr = np.asarray(pts[j])
                if arr.dtype.kind not in "iuf" or not np.isfinite(arr.astype(float)).all():
                    raise ValueError(f"grid_points for the numerical feature {f!r} must be finite numbers, "
                                     f"got {shown(pts[j])}")
                if self.method == "ale" and np.unique(arr).size < 2:
                    raise ValueError(f"grid_points for feature {f!r} need at least two distinct values for ALE")
                if arr.dtype.kind in "iu" and pd.api.types.is_float_dtype(self.sampler.X[f].dtype):
                    # whole numbers for a float feature are R doubles (c(1, 2, 5)): the feature
                    # keeps its float type in the design and in the results
                    pts[j] = arr.astype(np.float64).tolist()
        self._points = pts

    # ---------------------------------------------------------------- running
    def _run(self, force: bool = False) -> None:
        if force:
            self._flush()
        if self._finished:
            return
        plan = self._make_plan()
        preds = predict_blocks(self.predictor, plan.blocks)
        self._finish(plan, preds)
        self._warn_if_model_draws(self._random)

    def _finish(self, plan, preds) -> None:
        # the blocks are predicted: drop them, as a PDP plan's blocks hold closures over the plan
        # (a reference cycle that would keep its arrays, the ICE values included, until the
        # garbage collector runs; with it paused, as timeit pauses it, every call took fresh memory)
        plan.blocks = []
        names = list(self.predictor.output_names)   # (the lazy ICE table keeps this run's names)
        self._multiclass = len(names) > 1
        if self.method == "ale":
            res = plan.finish(preds, names, center_at=self._anchor if self.n_features == 1 else None)
        elif self.method == "pdp":
            res = plan.finish(preds, names)
        else:      # ICE: the n·G-row table is made when results is first read
            res = None
            self._pdp_rows = plan.distinct_values     # its PDP rows come first (one class)
            self._defer_results(_Once(functools.partial(plan.finish, preds, names)))
        if res is not None:
            self.results = res
            self._results_made(res, getattr(plan, "curve_xy", None))
        self._finished = True

    def _flush(self) -> None:
        super()._flush()
        self._curve = None

    def _make_plan(self):
        if self.method == "ale":
            return self._ale_plan()
        return self._pdp_plan()

    def _ale_axis(self, j: int):
        """ALE grid of numeric feature j: (grid values as float, grid column for results, each
        data row's interval or None). The intervals come with iml's own grid of large data
        (:func:`pyiml._algorithms.grids.ale_grid`); otherwise the plan finds them."""
        f = self.feature_name[j]
        if self._points is not None and self._points[j] is not None:
            col = np.unique(np.asarray(self._points[j]))
            return col.astype(float), col, None
        z, k = ale_grid(self.sampler.X[f], self.grid_size[f] + 1, self.feature_type[j],
                        bounds=self.sampler.value_range(f))
        return z, z, k

    def _ale_plan(self):
        data = self.sampler
        feats, types = self.feature_name, self.feature_type
        if self.n_features == 1:
            if types[0] == "categorical":
                return AleCatPlan(data, feats[0])
            z, col, k = self._ale_axis(0)
            return AleNumPlan(data, feats[0], z, col, intervals=k)
        if all(t != "categorical" for t in types):
            (z1, c1, k1), (z2, c2, k2) = self._ale_axis(0), self._ale_axis(1)
            return AleNumNumPlan(data, list(feats), [z1, z2], [c1, c2],
                                 intervals=None if k1 is None or k2 is None else [k1, k2])
        jn = 0 if types[0] != "categorical" else 1
        z, col, k = self._ale_axis(jn)
        return AleNumCatPlan(data, [feats[jn], feats[1 - jn]], z, col, intervals=k)

    def _pdp_axis(self, j: int):
        """Grid of feature j: (distinct encoded values, index per grid row, results column per grid row)."""
        data = self.sampler
        f, t = self.feature_name[j], self.feature_type[j]
        col = data.X[f]
        pts = None if self._points is None else self._points[j]
        # iml's unique(grid.points) de-duplicates one feature's points; for two features it acts
        # on the list of vectors, so expand.grid keeps a vector's repeated values as grid rows
        # (the PDP then averages their predictions together)
        keep_repeats = pts is not None and self.n_features == 2
        if t == "categorical":
            if pts is None:
                vals = pd.unique(col)
            else:
                vals = list(pts) if keep_repeats else _unique_in_order(pts)
            # two features: iml's expand.grid turns strings (the data's, or the given level names)
            # into a factor whose levels are the grid values in order of appearance
            if isinstance(col.dtype, pd.CategoricalDtype):
                if keep_repeats:
                    out = pd.Categorical(vals, categories=_unique_in_order(vals))
                else:
                    out = pd.Categorical(list(vals) if not isinstance(vals, pd.Categorical) else vals, dtype=col.dtype)
            elif pd.api.types.is_bool_dtype(col.dtype):
                out = np.asarray(list(vals), dtype=bool)
            else:
                out = np.asarray(list(vals), dtype=object)
                if self.n_features == 2:
                    out = pd.Categorical(out, categories=_unique_in_order(out))
            if not keep_repeats:
                return encode_values(data, f, out), np.arange(len(out)), out
            codes, first = _first_codes(vals)
            pool = out.take(first) if isinstance(out, pd.Categorical) else out[first]
            return encode_values(data, f, pool), codes, out
        if pts is None:
            g = grid_1d(col, self.grid_size[f], t, type="equidist")
            if self.n_features == 1:
                g = anchor_grid(g, self._anchor)
        elif keep_repeats:
            g = np.asarray(pts)
        else:
            g = np.asarray(pd.unique(np.asarray(pts)))
            if self.n_features == 1 and self._anchor is not None and not np.any(g == self._anchor):
                g = np.sort(np.append(g.astype(float), float(self._anchor)), kind="stable")
        if g.dtype.kind in "fiu" and (g[1:] > g[:-1]).all():    # distinct and increasing (iml's grids)
            return encode_values(data, f, g), np.arange(g.size, dtype=np.int64), g
        codes, uniq = pd.factorize(g, sort=False)
        return encode_values(data, f, uniq), codes.astype(np.int64), g

    def _pdp_plan(self):
        data = self.sampler
        feats = self.feature_name
        axes = [self._pdp_axis(j) for j in range(self.n_features)]
        if self.n_features == 1:
            pool, idx, out = axes[0]
            pools, gidx, cols = {feats[0]: pool}, {feats[0]: idx}, [out]
        else:
            (p1, i1, o1), (p2, i2, o2) = axes
            a, b = expand_grid(len(i1), len(i2))
            pools = {feats[0]: p1, feats[1]: p2}
            gidx = {feats[0]: i1[a], feats[1]: i2[b]}
            take = [(o1, a), (o2, b)]
            cols = [o.take(ix) if isinstance(o, pd.Categorical) else np.asarray(o)[ix] for o, ix in take]
        G = len(next(iter(gidx.values())))
        rs = self._random
        perms = rs.permutations(data.n_rows, G) if getattr(rs, "r_exact", False) else None
        anchor_rows = None
        if self._anchor is not None and self.n_features == 1:
            anchor_rows = np.flatnonzero(np.asarray(cols[0], dtype=float) == self._anchor)
        return PDPPlan(data, list(feats), pools, gidx, cols, self.method, self._anchor,
                       self.predictor.batch_size, perms=perms, anchor_rows=anchor_rows)

    # ---------------------------------------------------------------- interpolation / predict
    def _results_made(self, res, curve=None) -> None:
        """Keep a copy of the 1-D curve :meth:`predict` interpolates, as the run computed it
        (iml builds its ``approxfun`` in ``run()``: editing ``results`` later does not change
        the predictions, and copies of the object do not share it). ``curve``: the plan's own
        copy (grid as float, values) of a numeric one-output curve, where it keeps one."""
        self._curve = None
        if res is None or self.n_features != 1 or self._multiclass or self.method == "ice":
            return
        if curve is not None:
            self._curve = ("numerical", *curve)
            return
        # the PDP rows come first in a pdp+ice table, one per distinct grid value
        k = self._pdp_rows if self.method == "pdp+ice" else len(res)
        x, y = res[self.feature_name[0]], res[".value"].to_numpy(dtype=float)[:k].copy()
        if self.feature_type[0] != "categorical":
            self._curve = ("numerical", x.to_numpy(dtype=float)[:k].copy(), y)
        else:
            self._curve = ("categorical", dict(zip(x.iloc[:k].astype(str), y)))

    def predict(self, data, extrapolate: bool = False) -> np.ndarray:
        """The effect curve at new feature values.

        R equivalent: ``FeatureEffect$predict(data, extrapolate = FALSE)``.

        Parameters
        ----------
        data : pandas.DataFrame, pandas.Series, array-like or scalar
            Feature values; a DataFrame gives its ``feature`` column.
        extrapolate : bool, default False
            Numerical features: values outside the grid get NaN unless True (then the end
            values). Categorical features: unknown levels always give NaN.

        Returns
        -------
        numpy.ndarray of float
            Linear interpolation of the ALE / PDP curve (numerical), the level's value
            (categorical).

        Raises
        ------
        ValueError
            For two features, several outputs, or method "ice" (no single curve).
        """
        check_bool(extrapolate, "extrapolate")
        if self.n_features == 2:
            raise ValueError("Only implemented for single feature: predict() needs a 1-D effect")
        if self._multiclass:
            raise ValueError("Only works for one-dimensional output: select one output with Predictor(class_=...)")
        if self.method == "ice":
            raise ValueError("predict() needs the PDP or ALE curve; method='ice' has none (use 'pdp+ice')")
        if self._curve is None:
            self.results                      # noqa: B018 - an ICE table is made (and its curve kept) now
        curve = self._curve
        f = self.feature_name[0]
        if isinstance(data, pd.DataFrame):
            if f not in data.columns:
                raise ValueError(f"data has no column {f!r}: pass a DataFrame with the feature column {f!r} "
                                 "or the feature's values")
            v = data[f]
        else:
            v = data
        if v is None or isinstance(v, (dict, set)) or np.ndim(v) > 1:
            raise TypeError(
                f"data must be a DataFrame with the column {f!r}, or a 1-d sequence (or scalar) of its values, "
                f"got {type(data).__name__}" + (f" of shape {np.shape(data)}" if np.ndim(v) > 1 else ""))
        if self.feature_type[0] == "categorical":
            vals = list(v) if np.ndim(v) else [v]
            return np.array([curve[1].get(str(u), np.nan) for u in vals], dtype=float)
        try:
            if isinstance(v, (pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
                # nullable Int64 / Float64 values: <NA> is a missing value (NaN), as NA in R
                vv = pd.Series(v).to_numpy(dtype=float, na_value=np.nan)
            elif np.ndim(v) == 0 and pd.isna(v):
                vv = np.array([np.nan])
            else:
                vv = np.atleast_1d(np.asarray(v, dtype=float))
        except (TypeError, ValueError):
            raise TypeError(f"data: the values of the numerical feature {shown(f)} must be numbers, got "
                            f"{shown(list(np.atleast_1d(np.asarray(v, dtype=object)))[:3])}") from None
        out = r_approx(curve[1], curve[2], vv)
        if not extrapolate:
            grid = curve[1]
            out[(vv < grid.min()) | (vv > grid.max())] = np.nan
        return out

    def center(self, center_at: Optional[float]) -> None:
        """Centre the effect at ``center_at`` (None: uncentred) and recompute.

        R equivalent: ``FeatureEffect$center(center.at)`` (which, for ALE, only warns; pyiml
        shifts the ALE curve to 0 at ``center_at``).
        """
        anchor = _check_center_at(center_at)
        with self._all_or_nothing():
            self._anchor = anchor
            self._validate()
            self._run(force=True)

    def set_feature(self, feature: Union[str, Sequence[str]]) -> None:
        """Compute the effect of another feature (or pair) with the same settings.

        R equivalent: ``FeatureEffect$set.feature(feature)``: ``grid_size``, ``grid_points`` and
        ``center_at`` are kept and apply to the new feature(s).
        """
        feats = _check_features(feature, self.sampler.feature_names, self.method)
        with self._all_or_nothing():
            self._set_feature(feats)
            self._run(force=True)

    # ---------------------------------------------------------------- printing and plotting
    def _params_repr(self) -> list:
        feats = ", ".join(f"{f}[{t}]" for f, t in zip(self.feature_name, self.feature_type))
        sizes = "x".join(str(self.grid_size[f]) for f in self.feature_name)
        return [f"features: {feats}", f"grid size: {sizes}"]

    def plot(self, rug: bool = True, show_data: bool = False, ylim=None):
        """Plot the effect as iml does; returns a matplotlib Figure.

        R equivalent: ``plot(FeatureEffect)`` (ggplot2). Lines for numerical features (ICE
        lines under the PDP for ``"pdp+ice"``), bars (ALE/PDP) or boxplots (ICE) for categorical
        ones, rectangles / tiles for 2-D effects, a rug of the data, facets per output class.

        Parameters
        ----------
        rug : bool, default True
            Draw the data's feature values along the axes.
        show_data : bool, default False
            2-D effects: draw the data points.
        ylim : (float, float), optional
            y-axis limits of 1-D plots (ggplot's scale limits: the axis shows 5% more on each
            side; None or NaN leaves a side automatic).
        """
        return super().plot(rug=check_bool(rug, "rug"), show_data=check_bool(show_data, "show_data"),
                            ylim=_check_ylim(ylim))

    def _plot(self, rug: bool = True, show_data: bool = False, ylim=None, ax=None):
        from .plotting.feature_effect import plot_feature_effect

        return plot_feature_effect(self, rug=rug, show_data=show_data, ylim=ylim, ax=ax)


# ---------------------------------------------------------------------------- Partial (deprecated)
def _partial_method(aggregation: str, ice: bool) -> str:
    """iml's mapping of ``Partial``'s (aggregation, ice) to a FeatureEffect method."""
    if aggregation == "none":
        return "ice"
    if aggregation == "ale":
        return "ale"
    return "pdp+ice" if ice else "pdp"


class Partial(FeatureEffect):
    """Deprecated: :class:`FeatureEffect` under iml's older interface.

    R equivalent: ``iml::Partial$new(predictor, feature, aggregation = "pdp", ice = TRUE,
    center.at = NULL, grid.size = 20)`` (deprecated in iml too). Every call warns
    (``FutureWarning``) and computes ``FeatureEffect(predictor, feature, method=...)`` with

    ==============  =======  ==============
    aggregation     ice      method
    ==============  =======  ==============
    ``"pdp"``       True     ``"pdp+ice"``
    ``"pdp"``       False    ``"pdp"``
    ``"ale"``       any      ``"ale"``
    ``"none"``      any      ``"ice"``
    ==============  =======  ==============

    With two features ``ice`` is set to False (ICE is one-dimensional), as iml does. The object
    is a FeatureEffect (``results``, ``predict``, ``center``, ``set_feature``, ``plot``), and its
    results equal FeatureEffect's for the mapped method.

    Parameters
    ----------
    predictor : Predictor
    feature : str or pair of str
    aggregation : {"pdp", "ale", "none"}, default "pdp"
    ice : bool, default True
    center_at : float, optional
    grid_size : int or pair of int, default 20
    random_state : None, int, numpy.random.Generator or RRandom
        As for :class:`FeatureEffect` (pyiml only).

    Warns
    -----
    FutureWarning
        Always: use FeatureEffect instead.
    """

    def __init__(self, predictor: Predictor, feature: Union[str, Sequence[str]], aggregation: Aggregation = "pdp",
                 ice: bool = True, center_at: Optional[float] = None, grid_size: Union[int, Sequence[int]] = 20,
                 random_state=None):
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {list(AGGREGATIONS)}, got {shown(aggregation)}")
        ice = check_bool(ice, "ice")
        if _is_sequence(feature) and len(feature) == 2:
            ice = False
        method = _partial_method(aggregation, bool(ice))
        warnings.warn(
            "'Partial' is deprecated.\nUse 'FeatureEffect' instead: "
            f"FeatureEffect(predictor, feature, method={method!r}, center_at=..., grid_size=...) "
            f"computes Partial(aggregation={aggregation!r}, ice={bool(ice)}).",
            FutureWarning, stacklevel=2,
        )
        super().__init__(predictor, feature, method=method, center_at=center_at, grid_size=grid_size,
                         random_state=random_state)


# ---------------------------------------------------------------------------- FeatureEffects
class FeatureEffects(_LazyResults, InterpretationMethod):
    """The effect (ALE, PDP, ICE) of each of several features, one by one.

    R equivalent: ``iml::FeatureEffects$new(predictor, features = NULL, method = "ale",
    center.at = NULL, grid.size = 20)``.

    Every feature's :class:`FeatureEffect` is planned first and all their designs are predicted
    in one stream of ``batch_size`` batches (so many small features cost few model calls, and
    the predictions of the unchanged data that categorical ALE needs are made once).

    Parameters
    ----------
    predictor : Predictor
    features : sequence of str, optional
        Features to compute (default: all, in data order).
    method : {"ale", "pdp", "ice", "pdp+ice"}, default "ale"
    center_at : float, optional
        Passed to every numerical / integer feature (categorical features are not centred).
    grid_size : number, default 20
        Grid points per numerical feature (at least 2; fractional sizes round up, as in
        :class:`FeatureEffect`).
    random_state : None, int, numpy.random.Generator or RRandom
        With :class:`pyiml.RRandom` the session generator advances as iml's two seeded
        ``future_lapply`` calls advance it (each feature draws from its own stream), so later
        random calls continue R's sequence. Later calls on an effect (``center``,
        ``set_feature``) draw from this source, as iml's draw from R's session generator.
    n_jobs : int or None, default 1
        Threads over groups of features (-1: all cores, None: 1), each predicting its features'
        designs in its own stream of batches. Threads are used only when the predictor's
        ``batch_size`` is at least 10 000 rows with a full model call per thread (smaller model
        calls are dominated by Python work that threads cannot share), and kept only where they are
        measured to pay (see docs/differences.md). Results do not depend on it.
    progress : bool, default False
        Show a tqdm progress bar over the features.

    Attributes
    ----------
    effects : dict
        Feature → :class:`FeatureEffect`.
    results : dict
        Feature → results DataFrame with the feature column renamed ``.borders`` and a
        ``.feature`` column appended, as iml's named list (each effect's own ``results`` keep
        the feature's name).
    features : list of str
    method, grid_size, center_at

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) % 3})
    >>> p = Predictor(predict_function=lambda d: 2 * d["a"] + d["b"], data=X)
    >>> fes = FeatureEffects(p, method="ale", grid_size=3)
    >>> list(fes.results), list(fes.results["a"].columns)
    (['a', 'b'], ['.type', '.value', '.borders', '.feature'])
    >>> np.diff(fes.results["a"][".value"]).round(6).tolist()   # slope 2 between grid points
    [6.0, 6.0, 6.0]
    """

    def __init__(self, predictor: Predictor, features: Optional[Sequence[str]] = None, method: Method = "ale",
                 center_at: Optional[float] = None, grid_size: int = 20, random_state=None, *,
                 n_jobs: int = 1, progress: bool = False):
        super().__init__(predictor)
        self.n_jobs = check_n_jobs(n_jobs)
        self.progress = check_bool(progress, "progress")
        names = self.sampler.feature_names
        if features is None:
            feats = list(names)
        else:
            if isinstance(features, str):
                features = [features]
            feats = list(features)
            if not all(isinstance(f, str) for f in feats):
                raise TypeError(f"features must be feature names (str), got {shown(feats)} (pyiml takes names, not "
                                "iml's 1-based indices)")
            unknown = [f for f in feats if f not in names]
            if unknown:
                raise ValueError(f"features {unknown!r} are not features of the predictor's data; features: {names}")
            if not feats:
                raise ValueError("features must name at least one feature")
            if len(set(feats)) != len(feats):
                dup = list(dict.fromkeys(f for f in feats if feats.count(f) > 1))
                raise ValueError(f"features contains duplicated names {shown(dup)}: give each feature once "
                                 f"(got {shown(feats)})")
        sizes = _check_grid_size(grid_size, None)
        if len(sizes) > 1:
            raise ValueError(f"grid_size must be a single number for FeatureEffects, got {shown(grid_size)}")
        self.features = feats
        self.method = _check_method(method)
        self.center_at = _check_center_at(center_at)
        self.grid_size = grid_size
        self._random = None if random_state is None else as_random_source(random_state)
        self.effects: Dict[str, FeatureEffect] = {}
        self._run()

    def _run(self, force: bool = False) -> None:
        if force:
            self._flush()
        if self._finished:
            return
        rs = self._random
        streams = rs.element_streams(len(self.features)) if rs is not None else [None] * len(self.features)
        effects = {}
        for f, stream in zip(self.features, streams):
            ftype = self.sampler.feature_types[f]
            centre = self.center_at if ftype != "categorical" else None
            try:
                effects[f] = FeatureEffect(self.predictor, f, method=self.method, center_at=centre,
                                           grid_size=self.grid_size, random_state=stream, _defer=True)
            except ValueError as err:   # a feature's own values: say how to leave it out
                others = [g for g in self.features if g != f]
                hint = (f"FeatureEffects computes every feature of `features`: leave {shown(f)} out with "
                        f"features={shown(others)}" if others else "")
                raise ValueError(f"{err}" + (f" ({hint})" if hint else "")) from err
        plans = [fe._make_plan() for fe in effects.values()]
        preds = self._predict_plans(plans)
        pos = 0
        for fe, plan in zip(effects.values(), plans):
            m = len(plan.blocks)
            fe._finish(plan, preds[pos:pos + m])
            pos += m
        self.effects = effects
        if rs is not None:
            rs.element_streams(len(effects))      # iml's second seeded future_lapply (results)
            for fe in effects.values():           # later calls on an effect (center, set_feature) run
                fe._random = rs                   # in R's session: they draw from its generator
        # iml makes results in the constructor: they are this run's effects even if an effect is
        # changed (center, set_feature, an edit of its results table) before results are first
        # read. A table already made is copied now; an ICE table is made once, when it is first
        # read, and shared with the effect until then
        sources = {f: (src.copy() if isinstance(src, pd.DataFrame) else src)
                   for f, src in ((f, fe._results_source()) for f, fe in effects.items())}
        self._defer_results(functools.partial(self._results_of_effects, sources))
        self._multiclass = any(fe._multiclass for fe in effects.values())
        self._finished = True
        self._warn_if_model_draws(rs)

    @staticmethod
    def _results_of_effects(sources) -> Dict[str, pd.DataFrame]:
        """iml's results: each effect's table (``sources``: feature → the table, or the
        :class:`_Once` that makes it) with the feature column renamed ``.borders`` and a
        ``.feature`` column."""
        results = {}
        for f, src in sources.items():
            res = (src() if callable(src) else src).copy()
            res.columns = [".borders" if c in sources else c for c in res.columns]
            res[".feature"] = f
            results[f] = res
        return results

    def _predict_plans(self, plans) -> list:
        """The predictions of every plan's blocks, in order: one stream of batches, or (threads
        or a progress bar) one stream per group of consecutive features."""
        blocks = [b for p in plans for b in p.blocks]
        bs = self.predictor.batch_size
        workers = 1 if len(plans) < 2 else thread_workers(self.n_jobs, bs, "FeatureEffects", self.predictor,
                                                          rows=sum(b.length for b in blocks), count=True)
        if workers <= 1 and not self.progress:
            return predict_blocks(self.predictor, blocks)
        # groups of nearly equal size (one per thread and one more); a progress bar counts features
        k = min_items(workers) if workers > 1 and not self.progress else len(plans)
        groups = [plans[r.start:r.stop] for r in even_ranges(len(plans), k)]
        parts = map_items(lambda g: predict_blocks(self.predictor, [b for p in g for b in p.blocks]), groups,
                          workers, bs, self.progress, "FeatureEffects", key=self.predictor,
                          whole=lambda: predict_blocks(self.predictor, blocks))
        return [x for part in parts for x in part]

    def _params_repr(self) -> list:
        return [f"features: {', '.join(self.features)}", f"grid size: {self.grid_size}"]

    def __repr__(self) -> str:
        """iml's ``print(<FeatureEffects>)``: as every method's, with the head of the results,
        a list of tables in R, printed as R prints a list (the first 6 features' tables)."""
        from ._base import _r_print_method

        return _r_print_method(self, self._params_repr(), dict(list(self.results.items())[:6]))

    def plot(self, features: Optional[Sequence[str]] = None, nrows: Optional[int] = None,
             ncols: Optional[int] = None, fixed_y: bool = True, **kwargs):
        """A grid of the features' effect plots; returns a matplotlib Figure.

        R equivalent: ``plot(FeatureEffects, features = NULL, nrows = NULL, ncols = NULL,
        fixed_y = TRUE, ...)`` (a patchwork of the single plots); the arguments come in R's
        order.

        Parameters
        ----------
        features : sequence of str, optional
            Subset of the computed features (default, or an empty sequence as in iml: all).
        nrows, ncols : int, optional
            Layout of the panels; by default ggplot's (``wrap_dims``: 3 panels in one row, 4 in
            2 × 2, 5 or 6 in two rows of three, ...), and the missing one of the two when only
            one is given.
        fixed_y : bool, default True
            Share the y range (min/max of all ``.value`` columns) across panels.
        **kwargs
            ``rug`` and ``show_data`` (bools), passed to each panel; other names raise
            ``TypeError``.
        """
        # R matches abbreviated names of the arguments before `...` (iml's example: plot(ncol = 2))
        given = {"features": features, "nrows": nrows, "ncols": ncols, "fixed_y": fixed_y}
        defaults = {"features": None, "nrows": None, "ncols": None, "fixed_y": True}
        for k in [k for k in kwargs if k not in ("rug", "show_data")]:
            full = [a for a in given if a.startswith(k)]
            if len(full) == 1:
                if given[full[0]] is not defaults[full[0]]:
                    raise TypeError(f"FeatureEffects.plot got {k!r} and {full[0]!r}: give one of them")
                given[full[0]] = kwargs.pop(k)
        features, nrows, ncols, fixed_y = given["features"], given["nrows"], given["ncols"], given["fixed_y"]
        ncols = None if ncols is None else check_int(ncols, "ncols", 1)
        nrows = None if nrows is None else check_int(nrows, "nrows", 1)
        unknown = sorted(set(kwargs) - {"rug", "show_data"})
        if unknown:
            raise TypeError(f"FeatureEffects.plot got unexpected argument(s) {unknown}; it takes features, nrows, "
                            "ncols and fixed_y (or R's abbreviations of them, such as ncol), and the panels take rug "
                            "and show_data")
        kwargs = {k: check_bool(v, k) for k, v in kwargs.items()}
        return super().plot(features=features, ncols=ncols, nrows=nrows, fixed_y=check_bool(fixed_y, "fixed_y"),
                            **kwargs)

    def _plot(self, features=None, ncols=None, nrows=None, fixed_y=True, **kwargs):
        from .plotting.feature_effect import plot_feature_effects

        if features is not None:
            if isinstance(features, str):
                features = [features]
            unknown = [f for f in features if f not in self.effects]
            if unknown:
                raise ValueError(f"features {unknown!r} were not computed; computed: {self.features}")
        return plot_feature_effects(self, features=features, ncols=ncols, nrows=nrows, fixed_y=fixed_y, **kwargs)
