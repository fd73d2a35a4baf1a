"""``Data``: the data a method samples from, with iml's feature types.

R equivalent: iml's internal R6 class ``Data`` (spec §3).
"""
from __future__ import annotations

import sys
import threading
import warnings
from typing import Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from .random import as_random_source
from ._text import shown

__all__ = ["Data", "feature_type", "extension_values", "numbers_in_objects", "FEATURE_TYPES", "NUMBER_KINDS"]

FEATURE_TYPES = ("numerical", "integer", "categorical")


def user_stacklevel(packages: tuple = ("pyiml",)) -> int:
    """``stacklevel`` for a warning raised in the caller: the first frame outside ``packages``.

    Warnings take it through :func:`warn_user`, which also finds the user's line from a worker
    thread of pyiml's (``n_jobs``), whose stack does not hold it."""
    f = sys._getframe(2)
    level = 2
    while f is not None and f.f_globals.get("__name__", "").startswith(packages):
        f = f.f_back
        level += 1
    return level


_SITE = threading.local()   # .site: the user's line that started the work of this worker thread


def user_site(packages: tuple = ("pyiml", "r_bridge")):
    """``(filename, lineno, module globals)`` of the caller's first frame outside ``packages``
    (the site a worker thread's warnings name), or the site of the current worker thread."""
    site = getattr(_SITE, "site", None)
    if site is not None:
        return site
    try:   # (user_stacklevel counts from this function's caller, as warnings.warn there would)
        f = sys._getframe(user_stacklevel(packages) - 1)
    except ValueError:   # no frame outside packages
        return None
    return f.f_code.co_filename, f.f_lineno, f.f_globals


def run_at_site(site, fn, *args):
    """``fn(*args)`` with ``site`` (:func:`user_site`) as the line its warnings name, for work
    run on a worker thread."""
    old = getattr(_SITE, "site", None)
    _SITE.site = site
    try:
        return fn(*args)
    finally:
        _SITE.site = old


def warn_user(message, category, stacklevel: int) -> None:
    """``warnings.warn(message, category, stacklevel=stacklevel)`` as the caller would call it
    (pass :func:`user_stacklevel`); on a worker thread of pyiml's, whose stack does not hold the
    user's frame, the warning is issued at the user's line that started the work instead
    (``warnings.warn_explicit``, with that module's filters and once-per-location registry)."""
    site = getattr(_SITE, "site", None)
    if site is None:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
        return
    filename, lineno, g = site
    warnings.warn_explicit(message, category, filename, lineno, module=g.get("__name__"),
                           registry=g.setdefault("__warningregistry__", {}), module_globals=g)


def extension_values(values, dtype, n: int):
    """``values`` (an array of length ``n`` or a scalar) as a pandas array of the nullable
    ``dtype`` (``Int64``, ``Float64``, ``boolean``, ``string``) of the data column they belong to.

    Values the dtype cannot hold get the nullable dtype pandas infers for them, as numpy dtypes
    widen: a grid point 2.5 of an ``Int64`` feature makes a ``Float64`` column (iml: a double
    column), not an error."""
    if np.ndim(values) == 0:
        values = np.repeat(np.array([values], dtype=object), n)
    try:
        return pd.array(values, dtype=dtype)
    except (TypeError, ValueError, OverflowError):   # (numpy 2: 300 into Int8 is an OverflowError)
        return pd.array(values)


#: What :func:`pandas.api.types.infer_dtype` calls objects that are all numbers.
NUMBER_KINDS = ("integer", "floating", "mixed-integer-float", "decimal")


def numbers_in_objects(vals, bools: bool = False) -> bool:
    """True for non-empty objects that are all numbers (NaN counts as a float; bools too with
    ``bools``): such a column or prediction is numeric, not class labels."""
    return len(vals) > 0 and pd.api.types.infer_dtype(vals, skipna=False) in (
        NUMBER_KINDS + ("boolean",) if bools else NUMBER_KINDS)


def _numbers_as_numbers(y: pd.DataFrame) -> pd.DataFrame:
    """Target columns of dtype object that hold only numbers as numeric columns (R's numeric
    vector; a prediction of such objects is numeric too), not as class labels."""
    conv = [c for c in y.columns if y[c].dtype == object and numbers_in_objects(y[c])]
    if not conv:
        return y
    y = y.copy()
    for c in conv:
        y[c] = pd.to_numeric(y[c])
    return y


def _refuse_duplicated_names(columns, argument: str) -> None:
    """``ValueError`` naming the column names that ``columns`` holds more than once."""
    cols = pd.Index(columns)
    if cols.duplicated().any():
        dup = list(dict.fromkeys(cols[cols.duplicated()]))
        raise ValueError(f"{argument} has duplicated column names {dup!r}: make them unique")


def feature_type(column: pd.Series, name: str = "column") -> str:
    """iml's feature type of a pandas column.

    ``float`` → "numerical"; signed/unsigned ``int`` (also nullable ``Int64``) → "integer";
    ``category``, strings (``object`` holding only str, or ``string``) and ``bool`` →
    "categorical". iml rejects R ``logical`` columns; pyiml treats bool as a two-level
    categorical (see docs/differences.md).

    Raises
    ------
    TypeError
        When ``column`` is not a Series (e.g. a DataFrame); for datetimes, timedeltas, complex
        numbers, periods, intervals and ``object`` columns holding anything but strings.
    """
    if not isinstance(column, pd.Series):
        raise TypeError(
            f"feature_type needs one column (a pandas Series), got {type(column).__name__}; for a "
            "DataFrame use Data(df).feature_types"
        )
    dt = column.dtype
    if isinstance(dt, pd.CategoricalDtype):
        return "categorical"
    if pd.api.types.is_bool_dtype(dt):
        return "categorical"
    if pd.api.types.is_integer_dtype(dt):
        return "integer"
    if pd.api.types.is_float_dtype(dt):
        return "numerical"
    if pd.api.types.is_string_dtype(dt) and not pd.api.types.is_object_dtype(dt):
        return "categorical"
    if pd.api.types.is_object_dtype(dt):
        vals = column.dropna()
        # strings, including str subclasses such as numpy.str_ (what np.random.choice gives)
        if len(vals) and pd.api.types.infer_dtype(vals, skipna=True) == "string":
            return "categorical"
        other = next((v for v in vals if not isinstance(v, str)), None)  # the first value that is no str
        numbers = len(vals) and pd.api.types.infer_dtype(vals, skipna=True) in NUMBER_KINDS
        fix = (f"pd.to_numeric(df[{name!r}]) if it holds numbers" if numbers
               else f"df[{name!r}].astype('category')")
        raise TypeError(
            f"column {name!r} has dtype object with values that are not all strings "
            f"({f'e.g. {shown(other)} of type {type(other).__name__}' if other is not None else 'no values'}): "
            "pyiml supports numeric, "
            f"integer, bool, string and categorical features; convert it, e.g. df[{shown(name)}] = {fix}"
        )
    if pd.api.types.is_datetime64_any_dtype(dt):
        how = f"e.g. to a number of days with (df[{shown(name)}] - df[{shown(name)}].min()).dt.days, or to a category"
    elif pd.api.types.is_timedelta64_dtype(dt):
        how = f"e.g. to a number of seconds with df[{shown(name)}].dt.total_seconds()"
    elif pd.api.types.is_complex_dtype(dt):
        how = f"e.g. into two numerical features, df[{shown(name)}].to_numpy().real and .imag"
    else:
        how = f"e.g. to a category with df[{shown(name)}].astype(str).astype('category')"
    raise TypeError(
        f"column {name!r} has unsupported dtype {dt} (iml supports numeric, integer and "
        f"factor/character features): drop it or convert it, {how}"
    )


def _check_y_order(y, X: pd.DataFrame) -> None:
    """``ValueError`` when ``y`` (a Series or DataFrame) is indexed by the labels of ``data``'s
    index in another order (one of them shuffled, sorted or re-indexed without the other): pairing
    by position, as iml and scikit-learn do, and by label, as pandas does, then disagree, and
    either could be meant."""
    if y.index.equals(X.index) or not (y.index.is_unique and X.index.is_unique):
        return
    if y.index.isin(X.index).all():
        raise ValueError(
            "y's index holds the labels of data's index in another order, so pairing y with data by position "
            "(as iml and scikit-learn do) and by label (as pandas does) give different targets: pass "
            "y.loc[data.index] to pair them by label, or y.to_numpy() to pair them by position"
        )


class Data:
    """The feature data (and target) an interpretation method samples from.

    R equivalent: ``iml:::Data$new(X, y = NULL, prob = NULL)``.

    Parameters
    ----------
    X : pandas.DataFrame
        Features (and possibly the target column), at least one row. Never modified: pyiml keeps
        its own copy.
    y : str, array-like, pandas.Series, pandas.DataFrame or None
        The target: a column name of ``X`` (removed from the features), a list of column names
        of ``X`` (several targets, all removed from the features), a vector of length ``len(X)``
        (stored as column ``.y``; ``X`` keeps all its columns), a DataFrame of target columns
        (their names must differ from the feature names), or None.
    prob : array-like or None
        Sampling weights used by :meth:`sample` (as iml's ``prob``).

    Attributes
    ----------
    X : pandas.DataFrame
        The features, index reset to 0..n-1.
    y : pandas.DataFrame or None
    y_names : list of str
    feature_names : list of str
    feature_types : dict
        Feature name → "numerical", "integer" or "categorical".
    n_features, n_rows : int
    """

    def __init__(self, X, y=None, prob=None):
        if not isinstance(X, pd.DataFrame):
            raise TypeError(
                f"data must be a pandas DataFrame, not {type(X).__name__}; wrap arrays with "
                "pd.DataFrame(array, columns=[...])"
            )
        bad = [c for c in X.columns if not isinstance(c, str)]
        if bad:
            raise TypeError(
                f"data column names must be strings, got {shown(bad[:5])}: rename them, e.g. "
                "df.columns = [str(c) for c in df.columns]"
            )
        _refuse_duplicated_names(X.columns, "data")
        n = len(X)
        if n == 0:
            raise ValueError("data has no rows: pass the data (at least one row) the model is explained with")
        y_frame = None
        y_names: List[str] = []
        # y names target columns: one (a str), or several (a list or tuple of data's columns; a
        # list of n values with repeats, e.g. labels that happen to be column names, is a vector)
        named = [y] if isinstance(y, str) else list(y) if isinstance(y, (list, tuple)) and y and all(
            isinstance(v, str) and v in X.columns for v in y) and (len(set(y)) == len(y) or len(y) != n) else None
        if named is not None:
            if named[0] not in X.columns:
                raise ValueError(
                    f"y={y!r} is not a column of data (columns: {list(X.columns)}); pass the name "
                    "of the target column or the target values themselves"
                )
            _refuse_duplicated_names(named, "y")
            y_frame = X[named].reset_index(drop=True)
            y_names = named
        elif isinstance(y, pd.DataFrame):
            if len(y) != n:
                raise ValueError(f"y has {len(y)} rows but data has {n}: they must match")
            _check_y_order(y, X)
            _refuse_duplicated_names([str(c) for c in y.columns], "y")
            clash = [c for c in y.columns if c in X.columns]
            if clash:
                raise ValueError(f"colnames of y and X have to be different: {clash!r} are in both")
            y_frame = y.reset_index(drop=True).copy()
            y_names = [str(c) for c in y.columns]
        elif y is not None:
            if ".y" in X.columns:
                raise ValueError(
                    "data has a column named '.y', the name pyiml gives a target vector y: rename that column, "
                    "or pass y='.y' if it is the target"
                )
            yv = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
            if yv.ndim != 1:
                raise ValueError(f"y must be a column name or a 1-d vector, got shape {yv.shape}")
            if len(yv) != n:
                hint = ""
                if len(yv) == 1 and isinstance(yv[0], str) and yv[0] in X.columns:
                    hint = f"; to name the target column pass the string y={str(yv[0])!r}"
                elif all(isinstance(v, str) for v in yv) and any(v in X.columns for v in yv):
                    hint = (f"; read as target column names, {[str(v) for v in yv if v not in X.columns]!r} are not "
                            f"columns of data (columns: {list(X.columns)})")
                raise ValueError(f"y has length {len(yv)} but data has {n} rows: they must match{hint}")
            if isinstance(y, pd.Series):
                _check_y_order(y, X)
            if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
                y_frame = pd.DataFrame({".y": y.reset_index(drop=True)})
            elif isinstance(y, pd.Categorical):  # a factor keeps its levels, as in R
                y_frame = pd.DataFrame({".y": y.copy()})
            elif isinstance(y, (pd.Series, pd.Index)) and isinstance(y.dtype, pd.api.extensions.ExtensionDtype):
                # nullable Float64 / Int64 / boolean / string keep their dtype, as a column of data does
                y_frame = pd.DataFrame({".y": y.array.copy()})
            elif isinstance(y, pd.api.extensions.ExtensionArray):   # the same as a bare array (pd.array)
                y_frame = pd.DataFrame({".y": y.copy()})
            else:
                y_frame = pd.DataFrame({".y": yv})
            y_names = [".y"]
        if y_frame is not None:
            y_frame = _numbers_as_numbers(y_frame)
            odd = {str(c): str(dt) for c, dt in y_frame.dtypes.items()
                   if isinstance(dt, np.dtype) and dt.kind in "mMc" or isinstance(dt, pd.DatetimeTZDtype)}
            if odd:
                raise TypeError(
                    f"y must hold numbers or class labels, but {', '.join(f'{c!r} is {t}' for c, t in odd.items())}: "
                    "convert it first (dates and durations to numbers, e.g. days; complex values to their real or "
                    "absolute part)")
        labels = [c for c in X.columns if c not in y_names]
        Xf = X.loc[:, labels].reset_index(drop=True)
        # numpy's np.str_ labels (columns=list(np.array([...]))) as plain str names: numpy 2 would
        # write np.str_('a') in results and messages
        features = [str(c) if isinstance(c, np.str_) else c for c in labels]
        Xf.columns = pd.Index(features, dtype=object)
        allna = [c for c in features if Xf[c].isna().all()]
        if allna:
            raise ValueError(f"feature column(s) {allna!r} contain only missing values: drop them from data")
        if len(features) == 1:
            raise ValueError(
                "Only 1 feature was provided. The iml package is only useful and works for multiple features. "
                f"(data has one feature column, {features[0]!r}{', besides the target' if y_names else ''}: give "
                "data every column the model uses; with one feature, the model's predictions over its values are "
                "the whole story)"
            )
        if len(features) == 0:
            raise ValueError("data has no feature columns")
        self.feature_types: Dict[str, str] = {c: feature_type(Xf[c], c) for c in features}
        self.X = Xf
        self.y = y_frame
        self.y_names = y_names
        self.feature_names = list(features)
        #: the feature names as one pandas Index, shared by every design frame (pandas would
        #: otherwise build and infer an Index from the list for each model call)
        self.feature_index = pd.Index(self.feature_names, dtype=object)
        self.n_features = len(features)
        self.n_rows = n
        if prob is not None:
            prob = np.asarray(prob, dtype=float)
            if prob.shape != (n,) or (prob < 0).any() or not np.isfinite(prob).all():
                raise ValueError("prob must be a vector of non-negative finite weights, one per row of data")
        self.prob = prob
        #: every feature is float64: designs can be gathered into one 2-D float block
        self.all_float = all(Xf[c].dtype == np.float64 for c in features)
        self._encoded: Optional[Dict[str, np.ndarray]] = None
        self._ranges: Dict[str, tuple] = {}

    # ------------------------------------------------------------------ iml's methods
    def get_x(self) -> pd.DataFrame:
        """The features (R: ``get.x()``)."""
        return self.X

    def get_xy(self) -> pd.DataFrame:
        """Features with the target columns appended (R: ``get.xy()``)."""
        if self.y is None:
            return self.X
        return pd.concat([self.X, self.y], axis=1)

    def sample(self, n: int = 100, replace: bool = True, prob=None, get_y: bool = False, random_state=None):
        """Rows drawn at random (R: ``sample(n, replace, prob, get.y)``).

        Without ``prob`` the draw is ``sample.int(n.rows, n, replace)`` of the random source, so
        an :class:`pyiml.RRandom` reproduces R's rows.
        """
        rs = as_random_source(random_state)
        prob = self.prob if prob is None else np.asarray(prob, dtype=float)
        if prob is not None:
            gen = np.random.default_rng(int(rs.choice(2**31 - 1, 1, replace=True)[0]))
            idx = gen.choice(self.n_rows, size=n, replace=replace, p=prob / prob.sum())
        else:
            idx = rs.choice(self.n_rows, n, replace=replace)
        out = self.get_xy() if get_y else self.X
        return out.iloc[idx].reset_index(drop=True)

    def match_cols(self, newdata: pd.DataFrame, argument: str = "newdata") -> pd.DataFrame:
        """Restrict ``newdata`` to the features, in feature order (R: ``match_cols``).

        Missing features raise ``ValueError("Missing columns: a, b")``; extra columns are
        dropped with a warning, as in iml.
        """
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(f"{argument} must be a pandas DataFrame, not {type(newdata).__name__}")
        _refuse_duplicated_names(newdata.columns, argument)
        missing = [c for c in self.feature_names if c not in newdata.columns]
        if missing:
            hint = ""
            labels = {str(c): c for c in newdata.columns if not isinstance(c, str)}
            same = [labels[c] for c in missing if c in labels]
            if same:   # e.g. int labels 0, 1 where data's are the strings '0', '1'
                hint = (f"; its column labels {same!r} are not strings, the data's are {[str(c) for c in same]!r}: "
                        f"rename them, e.g. {argument}.rename(columns=str)")
            raise ValueError(f"Missing columns: {', '.join(missing)} ({argument} must have every feature column){hint}")
        extra = [c for c in newdata.columns if c not in self.feature_names]
        if extra:
            warn_user(f"Dropping additional columns: {', '.join(map(str, extra))}", UserWarning,
                      user_stacklevel())
        return newdata.loc[:, self.feature_names]

    # ------------------------------------------------------------------ helpers for methods
    def levels(self, feature: str) -> list:
        """Categories of a categorical feature: the dtype's categories (all, in level order),
        ``[False, True]`` for bool, sorted unique values for strings."""
        col = self.X[feature]
        if isinstance(col.dtype, pd.CategoricalDtype):
            return list(col.cat.categories)
        if pd.api.types.is_bool_dtype(col.dtype):
            return [False, True]
        return sorted(col.dropna().unique().tolist())

    def is_ordered(self, feature: str) -> bool:
        """True for an ordered categorical (an R ordered factor)."""
        dt = self.X[feature].dtype
        return isinstance(dt, pd.CategoricalDtype) and bool(dt.ordered)

    def check_finite(self, feature: str, method: str) -> None:
        """Raise a clear error when ``method`` must grid or sort ``feature`` and it has NaN."""
        col = self.X[feature]
        if col.isna().any():
            k = int(col.isna().sum())
            raise ValueError(
                f"feature {feature!r} has {k} missing value(s); {method} needs to grid and sort it: "
                "impute or drop those rows before building the Predictor"
            )

    def frame(self, columns: Dict[str, object], n: int) -> pd.DataFrame:
        """Build a DataFrame with the features' dtypes from per-column arrays (design matrices).

        ``columns`` maps every feature to an array of length ``n`` (or a scalar) in the
        column's own dtype, or, for ``category`` columns, either values or
        ``("codes", int_array)``. Column order follows the features.
        """
        out = {}
        for name in self.feature_names:
            v = columns[name]
            src = self.X[name]
            if isinstance(v, tuple) and v[0] == "codes":
                dt = src.dtype
                out[name] = pd.Categorical.from_codes(v[1], dtype=dt)
            elif isinstance(src.dtype, pd.CategoricalDtype):
                if np.ndim(v) == 0:
                    v = np.repeat(np.array([v], dtype=object), n)
                out[name] = pd.Categorical(v, dtype=src.dtype)
            elif isinstance(src.dtype, pd.api.extensions.ExtensionDtype):
                out[name] = extension_values(v, src.dtype, n)
            else:
                if np.ndim(v) == 0:
                    v = np.repeat(np.asarray([v], dtype=src.dtype), n)
                out[name] = v
        # the arrays are the design's own (no copy), in feature order (pandas 1.5 turns every column,
        # categoricals too, into an object array when columns= is given alongside a dict)
        return pd.DataFrame(out, copy=False)

    def value_range(self, feature: str) -> tuple:
        """``(min, max)`` of a numerical or integer feature as floats, NaN when it has a missing
        value (pd.NA of a nullable column too); computed once, as the data do not change."""
        ranges = self.__dict__.setdefault("_ranges", {})   # (a Data pickled before the cache has none)
        r = ranges.get(feature)
        if r is None:
            from ._algorithms.grids import float_values

            x = float_values(self.X[feature])
            r = ranges[feature] = (float(x.min()), float(x.max())) if x.size else (np.nan, np.nan)
        return r

    def encoded(self) -> Dict[str, np.ndarray]:
        """Per-feature arrays for fast indexing: categoricals as integer codes, others as values
        (pandas' nullable ``Int64``, ``Float64``, ``boolean`` and ``string`` columns as object
        arrays; :meth:`decode_frame` gives them their dtype back)."""
        if self._encoded is None:
            enc = {}
            for name in self.feature_names:
                col = self.X[name]
                if isinstance(col.dtype, pd.CategoricalDtype):
                    enc[name] = col.cat.codes.to_numpy()
                else:
                    enc[name] = col.to_numpy()
            self._encoded = enc
        return self._encoded

    def decode_frame(self, enc: Dict[str, np.ndarray]) -> pd.DataFrame:
        """Inverse of :meth:`encoded` for arrays indexed the same way (builds a design frame)."""
        n = len(next(iter(enc.values())))
        cols = {}
        for name in self.feature_names:
            col = self.X[name]
            if isinstance(col.dtype, pd.CategoricalDtype):
                cols[name] = ("codes", enc[name])
            else:
                cols[name] = enc[name]
        return self.frame(cols, n)

    def __repr__(self) -> str:
        return f"Sampling from data.frame with {self.n_rows} rows and {self.n_features} columns."
