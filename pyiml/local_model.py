"""``LocalModel``: a sparse, locally weighted linear model around one point (LIME).

R equivalent: ``iml::LocalModel`` (iml 0.11.4, spec §14). Every data row is predicted once,
categorical features are recoded as indicators of "equals the point's level", the rows are
weighted by their proximity to the point, and a lasso path (R's ``glmnet``, reproduced by
:mod:`pyiml._algorithms.glmnet`) is fitted to the predictions; the explanation is the last
point of the path with exactly ``k`` non-zero coefficients.
"""
from __future__ import annotations

import math
import numbers
from typing import List, Optional

import numpy as np
import pandas as pd

from ._algorithms import glmnet as _glmnet
from ._algorithms.gower import _r_pow, gower_dist, r_dist
from ._algorithms.rstats import r_exp
from ._base import InterpretationMethod, is_finite_real, real_scalar, user_stacklevel
from .data import warn_user
from .predictor import Predictor
from .shapley import _feature_values, check_x_interest, row_labels
from ._text import shown

__all__ = ["LocalModel", "DIST_FUNS"]

#: The distances iml accepts for ``dist.fun``, in iml's order.
DIST_FUNS = ("gower", "euclidean", "maximum", "manhattan", "canberra", "binary", "minkowski")


def _check_number(value, name: str, positive: bool = True) -> float:
    value = real_scalar(value)
    if not is_finite_real(value) or (positive and value <= 0):
        raise ValueError(f"{name} must be a finite number{' > 0' if positive else ''}, got {shown(value)}")
    return float(value)


def recode(data, X: pd.DataFrame, x_interest: pd.DataFrame, labels: Optional[np.ndarray] = None):
    """iml's ``recode(dat, x.interest)``: categorical features as 0/1 indicators.

    Numerical and integer columns are kept; a categorical column becomes 1.0 where the row
    equals ``x_interest``'s value and 0.0 elsewhere, renamed ``"<name>=<value>"``.

    Parameters
    ----------
    data : Data
        Gives the feature names and types.
    X : pandas.DataFrame
        Rows to recode (feature columns with the data's dtypes).
    x_interest : pandas.DataFrame
        One row, the reference point.
    labels : numpy.ndarray, optional
        ``"<name>=<value>"`` of every feature of ``x_interest`` (computed when not given).

    Returns
    -------
    names : list of str
        The recoded column names.
    columns : list of numpy.ndarray
        The recoded columns (integer features stay int64, as R keeps them ``integer``; this
        matters for ``gower_dist``'s range check).
    matrix : numpy.ndarray of shape (len(X), p)
        The same values as floats (R's ``as.matrix``). For all-float data it may share memory
        with ``X``: callers only read it.
    """
    if data.all_float:  # nothing to recode: the features as they are (read only, never written)
        names = list(data.feature_names)
        matrix = (X if list(X.columns) == names else X[names]).to_numpy(dtype=float)
        return names, list(matrix.T), matrix
    if labels is None:
        labels = _feature_values(x_interest)[0]
    names, cols = [], []
    for j, c in enumerate(data.feature_names):
        kind = data.feature_types[c]
        col = X[c]
        if kind == "categorical":
            ref = x_interest[c]
            # iml: as.numeric(x == value), NA where x is missing (glmnet then refuses the data)
            missing = col.isna().to_numpy()
            if isinstance(col.dtype, pd.CategoricalDtype):
                val = (col.cat.codes.to_numpy() == int(ref.cat.codes.iloc[0])).astype(float)
            else:   # compare the present values only (pd.NA == value is NA, not False)
                val = np.zeros(len(col))
                val[~missing] = col.to_numpy()[~missing] == ref.iloc[0]
            val[missing] = np.nan
            name = labels[j]  # "<name>=<as.character(value)>"
        elif isinstance(col.dtype, pd.api.extensions.ExtensionDtype):  # nullable Int64 / Float64
            val = col.to_numpy(dtype=np.int64) if kind == "integer" and not col.isna().any() else \
                col.to_numpy(dtype=float, na_value=np.nan)
            name = c
        else:
            val = col.to_numpy()
            name = c
        names.append(name)
        cols.append(val)
    matrix = np.column_stack([np.asarray(v, dtype=float) for v in cols]) if len(X) else np.zeros((0, len(names)))
    return names, cols, matrix


def _frame(names: List[str], cols: List[np.ndarray]) -> pd.DataFrame:
    return pd.DataFrame(dict(enumerate(cols))).set_axis(names, axis=1)


class LocalModel(InterpretationMethod):
    """A sparse weighted linear model that explains one prediction (LIME).

    R equivalent: ``iml::LocalModel$new(predictor, x.interest, dist.fun = "gower",
    gower.power = 1, kernel.width = NULL, k = 3)``, ``$predict(newdata)`` and
    ``$explain(x.interest)``.

    Algorithm (iml's): predict every data row (no sampling); recode categorical features as
    indicators of "equals ``x_interest``'s level"; weight row i by ``1 - d_i ** gower_power``
    with ``d_i`` Gower's distance to the point (``dist_fun="gower"``) or by
    ``sqrt(exp(-d_i**2 / kernel_width**2))`` with an R ``dist`` distance; fit R glmnet's lasso
    path (gaussian on the predictions for one output, grouped multinomial on the argmax class
    labels for several) and keep the last path point with exactly ``k`` non-zero
    coefficients (if none has exactly ``k``, the last with fewer, with iml's warning "Had to
    choose a smaller k").

    Parameters
    ----------
    predictor : Predictor
    x_interest : pandas.DataFrame, optional
        One row: the point to explain. Columns are matched by name; missing features raise
        ``ValueError("Missing columns: …")``, extra columns are dropped with iml's warning
        "Dropping additional columns: …" (target columns silently). Without it the object has
        no results until :meth:`explain`.
    dist_fun : {"gower", "euclidean", "maximum", "manhattan", "canberra", "binary", "minkowski"}
        Distance from the point to each (recoded) row (R: ``dist.fun``); ``minkowski`` uses
        R's default power 2.
    gower_power : float, default 1
        Exponent of the Gower distance in the weight ``1 - d ** gower_power``. As in iml the
        power is applied to the *distance* (iml's documentation says proximity; spec §18.13).
    kernel_width : float, optional
        Width of the exponential kernel; required for every ``dist_fun`` except ``"gower"``.
    k : int, default 3
        Number of features in the explanation, between 1 and the number of features.

    Attributes
    ----------
    results : pandas.DataFrame or None
        iml's columns ``beta, x.recoded, effect, x.original, feature, feature.value`` (and
        ``.class`` for several outputs, rows class by class), only the non-zero coefficients.
        The index holds R's row names: the recoded feature names for one output, 0..r-1 (R's
        automatic 1..r) for several.
    x_interest : pandas.DataFrame or None
        The explained point (feature columns only).
    k : int
    model : GlmnetFit or None
        The fitted lasso path (R: ``model``, a ``glmnet`` object).
    best_fit_index : int or None
        **0-based** index of the chosen path point into ``model.lambda_`` and the last axis of
        ``model.beta`` (R's ``best.fit.index`` is this + 1).
    weights : numpy.ndarray or None
        The weight of every data row in the fit.
    predictor : Predictor

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pyiml import Predictor, LocalModel
    >>> X = pd.DataFrame(np.random.default_rng(0).uniform(size=(200, 3)), columns=list("abc"))
    >>> p = Predictor(predict_function=lambda d: 3 * d["a"] - d["b"], data=X)
    >>> lm = LocalModel(p, X.iloc[[0]], k=2)
    >>> sorted(lm.results["feature"])
    ['a', 'b']
    """

    def __init__(self, predictor: Predictor, x_interest: Optional[pd.DataFrame] = None, dist_fun: str = "gower",
                 gower_power: float = 1, kernel_width: Optional[float] = None, k: int = 3):
        if not isinstance(predictor, Predictor):
            super().__init__(predictor)  # raises the base class's TypeError
        p = predictor.data.n_features
        k = real_scalar(k)
        if not is_finite_real(k) or k != int(k) or not 1 <= k <= p:
            raise ValueError(f"k must be a whole number between 1 and {p} (the number of features), got {shown(k)}")
        if x_interest is not None and not isinstance(x_interest, (pd.DataFrame, pd.Series)):
            raise TypeError(f"x_interest must be a pandas DataFrame with one row, not {type(x_interest).__name__}")
        if not isinstance(dist_fun, str) or dist_fun not in DIST_FUNS:
            raise ValueError(f"dist_fun must be one of {list(DIST_FUNS)}, got {shown(dist_fun)}")
        if dist_fun == "gower":
            gower_power = _check_number(gower_power, "gower_power")
        elif kernel_width is None:
            raise ValueError(f"kernel_width must be given (a number > 0) for dist_fun={dist_fun!r}; "
                             "only dist_fun='gower' works without it")
        if kernel_width is not None:
            kernel_width = _check_number(kernel_width, "kernel_width")
        super().__init__(predictor)
        self.k = int(k)
        self.dist_fun = dist_fun
        self.gower_power = gower_power
        self.kernel_width = kernel_width
        self.x_interest: Optional[pd.DataFrame] = None
        self.model: Optional[_glmnet.GlmnetFit] = None
        self.best_fit_index: Optional[int] = None
        self.weights: Optional[np.ndarray] = None
        self._pred: Optional[tuple] = None   # (class_ key, predictions of the data, output names)
        self._classes: Optional[List[str]] = None
        if x_interest is not None:
            self.explain(x_interest)

    # ------------------------------------------------------------------ input
    def _point(self, x_interest) -> pd.DataFrame:
        x = check_x_interest(self.sampler, x_interest)
        if len(x) != 1:
            raise ValueError(f"x_interest must have exactly one row, got {len(x)}: explain one point at a time")
        return x

    def explain(self, x_interest: pd.DataFrame) -> "LocalModel":
        """Fit the local model around a new point (R: ``$explain(x.interest)``); returns self.

        The predictions of the data do not depend on the point and are reused.
        """
        x = self._point(x_interest)
        with self._all_or_nothing():   # a failing fit leaves the previous point's results
            self._flush()
            self.x_interest = x
            self._run()
        return self

    # ------------------------------------------------------------------ run
    def _weights(self, names, cols, matrix: np.ndarray, xcols, xr: np.ndarray) -> np.ndarray:
        if self.dist_fun == "gower":
            if all(np.asarray(v).dtype.kind == "f" for v in cols):  # all R doubles: the matrix is the same input
                d = gower_dist(matrix, xr)
            else:  # integer features keep R's integer range check (and its warning text)
                d = gower_dist(_frame(names, cols), _frame(names, xcols))
            g = self.gower_power
            if g == 1.0:
                return 1.0 - d
            return 1.0 - _r_pow(d, g)
        d = r_dist(np.vstack([xr, matrix]), self.dist_fun)
        kw = self.kernel_width
        with np.errstate(divide="ignore", invalid="ignore"):    # a kernel_width whose square is 0: _run says so
            return np.sqrt(r_exp(-(d * d) / (kw * kw)))     # R's (the C library's) exp

    def __setstate__(self, state):
        if isinstance(state.get("_pred"), np.ndarray):   # pickled before the cache was keyed on class_
            state = dict(state, _pred=None)
            if state.get("model") is not None and "_outputs" not in state:
                state["_outputs"] = list(state["predictor"].output_names)
        self.__dict__.update(state)

    def _refuse_non_finite(self, matrix: np.ndarray) -> None:
        """``ValueError`` naming the recoded data's columns with missing, then infinite, values."""
        names = self.sampler.feature_names
        bad = [names[j] for j in np.flatnonzero(np.isnan(matrix).any(axis=0))]
        if bad:
            raise ValueError(
                f"data has missing values in column(s) {bad}: LocalModel's lasso cannot fit them (iml fails too, "
                "glmnet: x has missing values); impute or drop those rows before building the Predictor")
        bad = [names[j] for j in np.flatnonzero(np.isinf(matrix).any(axis=0))]
        raise ValueError(
            f"data has infinite values in column(s) {bad}: the lasso standardises every feature by its mean "
            "and spread, which are then undefined (iml hands them to glmnet, which never selects such a "
            "feature, however much the prediction depends on it); replace or drop those rows before building "
            "the Predictor")

    def _widen_hint(self) -> str:
        """How to spread the weights over more rows (weights 1 - d^gower_power: a larger power
        raises them; kernel weights: a larger width)."""
        if self.dist_fun != "gower":
            return f"use a larger kernel_width (now {self.kernel_width!r})"
        return f"use a larger gower_power (now {self.gower_power!r}; the weights are 1 - distance ** gower_power)"

    def _run(self, force: bool = False) -> None:
        data = self.sampler
        X = data.X
        key = self._class_key()
        if self._pred is None or self._pred[0] != key:   # predicted again after a class_ change
            P = self.predictor.predict_batched(len(X), lambda s, e: X.iloc[s:e])
            self._pred = (key, P, list(self.predictor.output_names))
        _, P, outputs = self._pred
        self._multiclass = P.shape[1] > 1
        x = self.x_interest
        labels = _feature_values(x, data.all_float)[0]
        names, cols, matrix = recode(data, X, x, labels)
        if not np.isfinite(matrix).all():
            self._refuse_non_finite(matrix)
        _, xcols, xr = recode(data, x, x, labels)
        w = self._weights(names, cols, matrix, xcols, xr)
        if np.isnan(w).any():
            kw = self.kernel_width
            if self.dist_fun != "gower" and not 0.0 < kw * kw < math.inf:
                raise ValueError(
                    f"kernel_width={kw!r} squared is {kw * kw!r} in double precision, so the kernel weights "
                    f"exp(-d^2 / kernel_width^2) are undefined (NaN; iml fails too): use a kernel_width between "
                    "about 1e-154 and 1e154, on the scale of the distances")
            raise ValueError(
                f"the {self.dist_fun} distance is undefined (NaN) for some rows: every feature was skipped "
                "or has missing values; check the data for constant or missing columns")
        if not (w > 0).any():   # glmnet fails (iml too): its null deviance is NaN, or R crashes (several classes)
            raise ValueError(
                f"every weight of the local model is 0: no data row lies in the neighbourhood of x_interest "
                f"(iml fails too: glmnet stops at 'missing value where TRUE/FALSE needed', or with several classes R "
                f"crashes); {self._widen_hint()}")
        if self._multiclass:
            lab = np.argmax(P, axis=1)  # probs.to.labels: first maximum
            counts = np.bincount(lab, minlength=len(outputs))
            keep = np.flatnonzero(counts > 0)
            if keep.size < len(outputs):
                gone = [outputs[j] for j in np.flatnonzero(counts == 0)]
                if keep.size < 2:
                    raise ValueError(
                        f"the model predicts the class {outputs[int(keep[0])]!r} for every row (never {gone}): a "
                        "local classification model needs at least two predicted classes; explain one class's "
                        "probability instead, e.g. Predictor(..., class_=...)")
                warn_user(
                    f"class(es) {gone} are never the most probable class of any row and are left out of the "
                    "multinomial fit (iml fails here); LocalModel.predict gives them probability 0",
                    UserWarning, user_stacklevel())
            classes = [outputs[j] for j in keep]
            y = np.asarray(outputs, dtype=object)[lab]
            small = [outputs[j] for j in keep if counts[j] <= 1]
            if small:
                raise ValueError(
                    f"class(es) {small} are the most probable class of only one row: glmnet's multinomial "
                    "model needs at least two rows per class (one multinomial or binomial class has 1 or 0 "
                    "observations; not allowed); explain one class's probability instead, e.g. "
                    "Predictor(..., class_=...)")
            try:
                fit = _glmnet.glmnet(pd.DataFrame(matrix, columns=names), y, family="multinomial", weights=w,
                                     levels=classes)
            except _glmnet.NullProbabilityError as err:
                c = classes[err.klass]
                share = "at most 1e-5" if err.low else "at least 1 - 1e-5"
                raise ValueError(
                    f"the rows whose most probable class is {c!r} hold {share} of the local model's total weight, "
                    f"so the multinomial lasso cannot fit it (iml fails too, glmnet: {err}): {self._widen_hint()}, "
                    "or explain one class's probability instead, e.g. Predictor(..., class_=...)") from err
        else:
            classes = None
            yw = P[w > 0, 0]
            if yw.size and np.all(yw == yw[0]):
                raise ValueError(
                    f"the model predicts the same value ({yw[0]:g}) for every row with a positive weight "
                    f"({yw.size} of {len(w)} rows): the local model has no variation to fit (iml fails here "
                    f"too, glmnet: y is constant, or, where rounding makes glmnet's weighted mean differ from "
                    f"the constant, fits that rounding noise). Explain another point, or widen the "
                    f"neighbourhood: {self._widen_hint()}")
            fit = _glmnet.glmnet(pd.DataFrame(matrix, columns=names), P[:, 0], family="gaussian", weights=w)
        df = np.asarray(fit.df)
        if df.size == 0:   # glmnet stopped at its first lambda (iml then fails on the empty path)
            fix = self._widen_hint()
            raise ValueError(
                f"glmnet returned no fit for the local model (glmnet error code {fit.jerr}, warned above): "
                f"the weights are too concentrated (effective sample size {w.sum() ** 2 / (w * w).sum():.3g} "
                f"of {len(w)} rows); {fix}")
        hits = np.flatnonzero(df == self.k)
        if hits.size:
            best = int(hits[-1])
        else:
            best = int(np.flatnonzero(df < self.k)[-1])
            warn_user("Had to choose a smaller k", UserWarning, user_stacklevel())
        self.model = fit
        self.best_fit_index = best
        self.weights = w
        self._classes = classes
        self._outputs = outputs
        self.results = self._effects(fit, best, names, xr[0], x, labels)
        self._finished = True

    def _effects(self, fit, best: int, names: List[str], xr: np.ndarray, x: pd.DataFrame,
                 fv: np.ndarray) -> pd.DataFrame:
        """iml's ``extract.glmnet.effects`` per class, then the rows with ``beta != 0``."""
        orig = np.array([v[len(c) + 1:] for v, c in zip(fv, x.columns)], dtype=object)
        p = len(names)
        if fit.family == "gaussian":
            betas = fit.beta[:, best][None, :]
            cls = None
        else:
            betas = fit.beta[:, :, best]
            cls = np.repeat(np.asarray(fit.classnames, dtype=object), p)
        nb = betas.shape[0]
        beta = betas.ravel()
        nz = beta != 0          # only the rows with a non-zero coefficient are kept
        beta = beta[nz]
        xrec = np.tile(np.asarray(xr, dtype=float), nb)[nz]
        feats = np.tile(np.asarray(names, dtype=object), nb)[nz]
        cols = {
            "beta": beta,
            "x.recoded": xrec,
            "effect": beta * xrec,
            "x.original": np.tile(orig, nb)[nz],
            "feature": feats,
            "feature.value": np.tile(fv.astype(object), nb)[nz],
        }
        if cls is not None:
            cols[".class"] = cls[nz]
            return pd.DataFrame(cols, copy=False)
        return pd.DataFrame(cols, index=pd.Index(feats, dtype=object), copy=False)

    def _flush(self) -> None:
        super()._flush()
        self.model = None
        self.best_fit_index = None
        self.weights = None

    # ------------------------------------------------------------------ public
    def predict(self, newdata: Optional[pd.DataFrame] = None) -> pd.DataFrame:
        """Predictions of the local model (R: ``$predict(newdata = NULL)``).

        Parameters
        ----------
        newdata : pandas.DataFrame, optional
            Rows to predict (matched by name like ``x_interest``); default the point itself.

        Returns
        -------
        pandas.DataFrame
            One output: a column ``prediction`` (the lasso's linear predictor). Several outputs:
            the class probabilities, one column per output of the predictor (a class left out
            of the fit gets 0). The index is ``newdata``'s.
        """
        if self.model is None:
            raise RuntimeError("LocalModel has no fitted model yet: call explain(x_interest) first")
        nd = self.x_interest if newdata is None else check_x_interest(self.sampler, newdata, "newdata")
        _, _, m = recode(self.sampler, nd, self.x_interest)
        index = nd.index if newdata is None else row_labels(newdata)   # (iml drops R's row names)
        if self.model.family == "gaussian":
            pred = _glmnet.predict(self.model, m, s_index=self.best_fit_index)
            return pd.DataFrame({"prediction": np.asarray(pred, dtype=float).reshape(-1)}, index=index)
        probs = _glmnet.predict(self.model, m, s_index=self.best_fit_index, type="response")
        outputs = self._outputs   # the fit's own outputs, whatever class_ is now (as iml)
        out = np.zeros((len(nd), len(outputs)))
        for j, c in enumerate(self._classes):
            out[:, outputs.index(c)] = probs[:, j]
        return pd.DataFrame(out, columns=outputs, index=index)

    def _params_repr(self) -> list:
        return [f"k: {self.k}", f"dist_fun: {self.dist_fun}"]

    def plot(self):
        """iml's plot: horizontal bars of ``effect`` per ``feature.value``, sorted by effect.

        R equivalent: ``plot(<LocalModel>)``. One output is titled with the model's prediction
        of the point and the local model's; several outputs give one facet per ``.class``.
        Returns a matplotlib Figure.
        """
        return super().plot()

    def _plot(self):
        from .plotting.local_model import plot_local_model

        actual = local = None
        if not self._multiclass:
            actual = float(self.predictor.predict_array(self.x_interest)[0, 0])
            local = float(self.predict()["prediction"].iloc[0])
        return plot_local_model(self.results, multiclass=self._multiclass, actual=actual, local=local)
