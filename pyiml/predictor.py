"""``Predictor``: the one contract between interpretation methods and models.

R equivalent: ``iml::Predictor`` (spec §4). A model is anything with ``predict`` /
``predict_proba`` (scikit-learn estimators and pipelines, statsmodels results), a plain
callable, or an :class:`r_bridge.RModel`. Predictions come back as a DataFrame with one column
per output, named as iml names them (spec §4.1).
"""
from __future__ import annotations

import inspect
import numbers
import re
import sys
from typing import Callable, List, Optional, Sequence

import numpy as np
import pandas as pd

from ._algorithms.rformat import r_make_names
from .data import Data, _refuse_duplicated_names, numbers_in_objects
from ._text import shown

__all__ = ["Predictor", "prediction_function"]

_TYPES_PROB = (None, "prob", "proba", "probability")
_TYPES_CLASS = ("class", "response", "label")


def _is_sklearn_classifier(model) -> bool:
    return getattr(model, "_estimator_type", None) == "classifier" or (
        hasattr(model, "classes_") and hasattr(model, "predict_proba")
    )


def _is_statsmodels_results(model) -> bool:
    mod = type(model).__module__ or ""
    return mod.startswith("statsmodels") and hasattr(model, "predict") and hasattr(model, "model")


def _one_hot(labels, classes) -> pd.DataFrame:
    labels = np.asarray(labels)
    cols = {str(c): (labels == c).astype(float) for c in classes}
    return pd.DataFrame(cols)


def _matrix_names(k: int, prefix: str) -> List[str]:
    """Names of a k-column matrix without column names.

    ``prefix="pred"``: R's ``data.frame(pred, check.names = FALSE)`` (iml without a model, or a
    model's own ``predict``): ``pred`` for one column, ``1``, ``2``, … for more.
    ``prefix="..prediction"``: iml's ``sanitizePrediction`` (a model and a predict function):
    ``..prediction``, or ``..prediction.1``, ``..prediction.2``, ….
    """
    if k == 1:
        return [prefix]
    if prefix == "pred":
        return [str(i + 1) for i in range(k)]
    return [f"{prefix}.{i + 1}" for i in range(k)]


def _r_data_frame_names(raw):
    """iml's ``sanitizePrediction`` on a DataFrame: ``data.frame(x)`` makes its column names
    syntactic and unique (R's ``make.names(unique = TRUE)``: ``0`` → ``X0``, ``1 x`` → ``X1.x``,
    a repeated ``a`` → ``a.1``). Other outputs, and one-column label frames (which become
    one-hot columns named by their labels), pass as they are."""
    if not isinstance(raw, pd.DataFrame) or _label_column(raw) is not None:
        return raw
    names = [str(c) for c in raw.columns]
    fixed = r_make_names(_r_empty_names(names), unique=True)
    if fixed == names and list(raw.columns) == names:
        return raw
    out = raw.copy(deep=False)
    out.columns = fixed
    return out


def _r_empty_names(names: List[str]) -> List[str]:
    """R's ``data.frame()`` names an empty column name by its position: ``Var.2`` (iml's
    ``Predictor$predict`` ends in ``data.frame(prediction, check.names = FALSE)``, so a predict
    function's ``cbind(p, 1 - p)``, whose names are ``p`` and ``""``, gives ``p``, ``Var.2``)."""
    if "" not in names:
        return names
    return [n if n != "" else f"Var.{j + 1}" for j, n in enumerate(names)]


class _Named:
    """A prediction already in the internal form: float values (n, k) and column names."""

    __slots__ = ("values", "names")

    def __init__(self, values: np.ndarray, names: List[str]):
        self.values, self.names = values, names


def _is_numeric(dtype) -> bool:
    return pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)


def _is_label_series(s: pd.Series) -> bool:
    """Labels (iml's ``is_label``): a categorical, string or object column."""
    dt = s.dtype
    return isinstance(dt, (pd.CategoricalDtype, pd.StringDtype)) or dt == object


def _label_column(raw):
    """The column of a one-column frame of labels (iml's ``is_label`` on a frame), else None."""
    if isinstance(raw, pd.DataFrame) and raw.shape[1] == 1 and _is_label_series(raw.iloc[:, 0]):
        return raw.iloc[:, 0]
    return None


def _strings_as_objects(arr: np.ndarray) -> np.ndarray:
    """numpy 2's variable-width strings (``StringDType``, kind ``"T"``) as an object array, the
    form the label checks read (kind ``"O"``, like ``"U"``/``"S"`` arrays)."""
    return arr.astype(object) if arr.dtype.kind == "T" else arr


def _non_numeric(where: str, bad: List[str]) -> ValueError:
    return ValueError(
        f"the {where} returned non-numeric prediction column(s) {bad}: return numbers "
        "(probabilities or one-hot labels), e.g. use predict_proba or type='prob'"
    )


def _label_classes(labels: np.ndarray, where: str = "model") -> list:
    """The sorted distinct class labels of a vector of predicted labels.

    Raises ``ValueError`` for missing labels (None/NaN) and labels of mixed types, which have
    no order (e.g. ``1`` and ``"a"``).
    """
    vals = pd.unique(labels)
    if pd.isna(vals).any():
        raise ValueError(
            f"the {where} returned missing class labels (None/NaN): it must predict a label (or numbers) "
            "for every row of newdata"
        )
    try:
        return sorted(vals)
    except TypeError:
        kinds = sorted({v.__class__.__name__ for v in vals})
        raise ValueError(
            f"the {where} returned class labels of mixed types ({', '.join(kinds)}): return labels of one "
            "type (e.g. all strings) or numeric predictions"
        ) from None


def _check_output_type(raw, where: str = "model") -> None:
    """``TypeError`` for a model output that cannot hold predictions (None, a dict, a set, text)."""
    if raw is None or isinstance(raw, (dict, set, frozenset, str, bytes)):
        raise TypeError(
            f"the {where} returned {raw.__class__.__name__ if raw is not None else 'None'}: it must return the "
            "predictions as a vector, a 2-d array or a DataFrame with one row per row of newdata"
        )
    if not (isinstance(raw, (_Named, np.ndarray, np.generic, numbers.Number)) or hasattr(raw, "__len__")
            or hasattr(raw, "__array__") or hasattr(raw, "__array_interface__")):
        # a result object such as ranger's prediction or statsmodels' PredictionResults (iml #103)
        held = [a for a in ("predictions", "predicted_mean", "predicted", "prediction", "values")
                if not callable(getattr(raw, a, None)) and hasattr(raw, a)]
        raise TypeError(
            f"the {where} returned a {raw.__class__.__name__} object, not predictions: return the predictions "
            "themselves (a vector, a 2-d array or a DataFrame with one row per row of newdata)"
            + (f", e.g. its .{held[0]}" if held else "")
        )


def _plain_output(raw, where: str = "model"):
    """A raw model output checked (:func:`_check_output_type`) and in one of the forms
    :func:`_to_values` and :func:`_to_frame` read: a pandas array (``pd.array(..., "Float64")``,
    a Categorical) as a Series, a one-column frame of labels as that column."""
    _check_output_type(raw, where)
    if isinstance(raw, pd.api.extensions.ExtensionArray):
        raw = pd.Series(raw)
    labels = _label_column(raw)
    return raw if labels is None else labels


def _to_values(raw, vector_name: str, matrix_prefix: str, where: str = "model",
               classes_of: Optional[Callable[[np.ndarray], list]] = None):
    """A raw model output as (values, names): a float array (n, k) and iml's column names.

    Vectors are one column ``vector_name``; unnamed matrices are named with ``matrix_prefix``;
    labels (strings, categories, also as a one-column frame) become one-hot columns: a
    categorical's columns are its categories, other labels' columns are
    ``classes_of(labels)`` (default: the sorted distinct labels of this output). Numbers held
    in an object array are numbers. The values may share memory with ``raw``. Raises
    ``ValueError`` for non-numeric columns or arrays of more than 2 dimensions.
    """
    if isinstance(raw, _Named):
        return raw.values, raw.names
    raw = _plain_output(raw, where)
    if classes_of is None:
        classes_of = lambda labels: _label_classes(labels, where)   # noqa: E731
    if isinstance(raw, pd.DataFrame):
        names = [str(c) for c in raw.columns]
        if len(set(names)) != len(names):
            dup = sorted({c for c in names if names.count(c) > 1})
            raise ValueError(
                f"the {where} returned a DataFrame with duplicated column names {dup}: name every output "
                "column uniquely"
            )
        # by dtype (no Series per column); the values only of object columns
        bad = [c for j, (c, dt) in enumerate(zip(names, raw.dtypes)) if not _is_numeric(dt)
               and not (dt == object and numbers_in_objects(raw.iloc[:, j].to_numpy(), bools=True))]
        if bad:
            raise _non_numeric(where, bad)
        if any(isinstance(dt, pd.api.extensions.ExtensionDtype) for dt in raw.dtypes):
            return raw.to_numpy(dtype=float, na_value=np.nan), names   # nullable Float64/Int64/boolean
        return raw.to_numpy(dtype=float), names
    if isinstance(raw, pd.Series):
        if isinstance(raw.dtype, pd.CategoricalDtype):
            if raw.isna().any():
                _label_classes(raw.to_numpy(dtype=object), where)   # raises for the missing labels
            return _to_values(_one_hot(raw.to_numpy(), raw.cat.categories), vector_name, matrix_prefix, where)
        if _is_label_series(raw):
            vals = raw.to_numpy(dtype=object)
            if numbers_in_objects(vals, bools=True):
                return vals.astype(float)[:, None], [vector_name]
            return _to_values(_one_hot(vals, classes_of(vals)), vector_name, matrix_prefix, where)
        if isinstance(raw.dtype, pd.api.extensions.ExtensionDtype) and _is_numeric(raw.dtype):
            return raw.to_numpy(dtype=float, na_value=np.nan)[:, None], [vector_name]   # nullable Float64/Int64
        raw = raw.to_numpy()
        if not _is_numeric(raw.dtype):
            raise _non_numeric(where, [vector_name])
        return raw.astype(float, copy=False)[:, None], [vector_name]
    arr = _strings_as_objects(np.asarray(raw))
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim == 1:
        if arr.dtype.kind == "O" and numbers_in_objects(arr, bools=True):
            return arr.astype(float)[:, None], [vector_name]
        if arr.dtype.kind in "OUS":
            return _to_values(_one_hot(arr, classes_of(arr)), vector_name, matrix_prefix, where)
        if arr.dtype.kind not in "biuf":
            raise _non_numeric(where, [vector_name])
        return arr.astype(float, copy=False)[:, None], [vector_name]
    if arr.ndim == 2:
        names = _matrix_names(arr.shape[1], matrix_prefix)
        if arr.dtype.kind not in "biuf" and not (arr.dtype.kind == "O"
                                                 and numbers_in_objects(arr.ravel(), bools=True)):
            raise _non_numeric(where, names)
        return arr.astype(float, copy=False), names
    raise ValueError(f"the {where} returned an array of shape {arr.shape}; predictions must be 1-d or 2-d")


def _to_frame(raw, vector_name: str, matrix_prefix: str) -> pd.DataFrame:
    """Turn a raw model output into a prediction frame with iml's naming."""
    raw = _plain_output(raw)
    if isinstance(raw, pd.DataFrame):
        out = raw.reset_index(drop=True).copy()
        out.columns = [str(c) for c in out.columns]
        return out
    if isinstance(raw, pd.Series) and _is_label_series(raw):
        return _to_frame(_Named(*_to_values(raw, vector_name, matrix_prefix)), vector_name, matrix_prefix)
    if isinstance(raw, _Named):
        return pd.DataFrame(np.array(raw.values, dtype=float), columns=raw.names)
    arr = _strings_as_objects(np.asarray(raw.to_numpy() if isinstance(raw, pd.Series) else raw))
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim == 1:
        if arr.dtype.kind == "O" and numbers_in_objects(arr, bools=True):
            return pd.DataFrame({vector_name: arr.astype(float)})
        if arr.dtype.kind in "OUS":
            return _one_hot(arr, _label_classes(arr))
        return pd.DataFrame({vector_name: arr})
    if arr.ndim == 2:
        return pd.DataFrame(arr, columns=_matrix_names(arr.shape[1], matrix_prefix))
    raise ValueError(f"the model returned an array of shape {arr.shape}; predictions must be 1-d or 2-d")


def _statsmodels_predict(m, newdata):
    if getattr(m.model, "formula", None) is not None:
        return _statsmodels_classes(m, np.asarray(m.predict(newdata)))
    names = list(getattr(m.model, "exog_names", []) or [])
    _check_exog(m, newdata.columns)
    X = newdata.copy()
    for c in names:
        if c not in X.columns:   # the constant (the only column _check_exog lets be missing)
            X[c] = 1.0
    return _statsmodels_classes(m, np.asarray(m.predict(X[names])))


def _check_exog(m, columns) -> None:
    """``ValueError`` when a statsmodels model fitted without a formula needs exog columns that
    ``columns`` lack (its constant, ``const``/``intercept``, is added for it)."""
    names = list(getattr(m.model, "exog_names", None) or [])
    missing = [c for c in names if c not in columns and c.lower() not in ("const", "intercept")]
    if not missing:
        return
    generic = all(re.fullmatch(r"x\d+", c) or c.lower() in ("const", "intercept") for c in names)
    how = ("a model fitted on an array names its columns x1, x2, ...: rename data's columns to those names (the "
           "constant is added for you), or fit the model on a DataFrame" if generic else
           "pass data with every exog column of the model (the constant is added for you)")
    raise ValueError(f"the statsmodels model needs the exog column(s) {missing} (its exog_names {names}) that data "
                     f"does not have: {how}")


def _statsmodels_classes(m, pred: np.ndarray):
    """A multinomial model's probability matrix (MNLogit) with its columns named by the classes
    of the endog it was fitted on (statsmodels' ``_ynames_map``), not by column numbers."""
    classes = getattr(m.model, "_ynames_map", None)
    if pred.ndim == 2 and isinstance(classes, dict) and len(classes) == pred.shape[1]:
        return pd.DataFrame(pred, columns=[str(classes[i]) for i in range(pred.shape[1])])
    return pred


def _check_class(class_) -> Optional[List[str]]:
    """``class_`` as a list of distinct strings (None stays None)."""
    if class_ is None:
        return None
    if isinstance(class_, (str, int, np.integer)):
        class_ = [str(class_)]
    elif isinstance(class_, (list, tuple, np.ndarray, pd.Index)) and len(class_) > 0 and all(
            isinstance(c, (str, int, np.integer)) for c in class_):
        class_ = [str(c) for c in class_]
    else:
        raise TypeError(f"class_ must be a class label (str) or a list of them, got {shown(class_)}")
    dup = sorted({c for c in class_ if class_.count(c) > 1})
    if dup:
        raise ValueError(f"class_ lists {dup} more than once: give each class once")
    return class_


def _check_batch_size(value, name: str = "batch_size") -> int:
    """``value`` as a number of rows per model call: a whole number >= 1.

    Integers (Python's, numpy's) and whole floats (``1000.0``, ``1e5``) are taken; a count
    beyond ``sys.maxsize`` rows is taken as ``sys.maxsize`` (no batch is ever that large, and
    numpy's arithmetic on batch bounds stays within int64). ``TypeError`` for anything that is
    not a number (bools, strings, None), ``ValueError`` for NaN, infinities, fractions and
    numbers below 1; both name ``name``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number >= 1 (a whole number of rows per model call, e.g. 1000), got "
                        f"{value!r} of type {type(value).__name__}")
    if isinstance(value, numbers.Integral):
        rows = int(value)
    else:
        v = float(value)
        if not np.isfinite(v) or not v.is_integer():
            raise ValueError(f"{name} must be a number >= 1 (a whole number of rows per model call, e.g. 1000), "
                             f"got {shown(value)}")
        rows = int(v)
    if rows < 1:
        raise ValueError(f"{name} must be a number >= 1 (a whole number of rows per model call, e.g. 1000), got "
                         f"{value!r}")
    return min(rows, sys.maxsize)


def prediction_function(model=None, predict_function: Optional[Callable] = None,
                        type: Optional[str] = None) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """The function that turns ``newdata`` into a prediction frame with iml's column names.

    R equivalent: iml's internal ``create_predict_fun(model, task, predict.function, type)``
    (spec §4.1). Used by :class:`Predictor` and by :func:`r_bridge.as_r_predict_function`, so a
    Python model gives the same columns in pyiml and inside R's iml.

    Parameters
    ----------
    model : object, optional
        A scikit-learn estimator, statsmodels results, an object with ``_pyiml_predict`` (such
        as :class:`r_bridge.RModel`), or anything with ``predict``.
    predict_function : callable, optional
        ``f(newdata)`` without a model (vector or one-column matrix → column ``pred``, unnamed
        matrix → ``1``, ``2``, …, DataFrame → its names), ``f(model, newdata)`` with one (vector →
        ``..prediction``, unnamed matrix → ``..prediction.1``, …, DataFrame → its names made
        syntactic and unique as R's ``data.frame`` does: ``0`` → ``X0``).
    type : str, optional
        For classifiers: None/"prob" → ``predict_proba``; "class"/"response" → one-hot labels. A
        classifier without ``predict_proba`` gives its labels with None and raises with "prob".

    Returns
    -------
    callable
        ``f(newdata: DataFrame) -> DataFrame``.
    """
    call, vector_name, matrix_prefix = _raw_prediction(model, predict_function, type)
    return lambda nd: _to_frame(call(nd), vector_name, matrix_prefix)


def _raw_prediction(model=None, predict_function: Optional[Callable] = None, type: Optional[str] = None):
    """(call, vector name, matrix prefix): the model call and the names iml gives its output."""
    m, f = model, predict_function
    if f is not None and type is not None:   # iml ignores type then (iml #97); pyiml ignores no argument
        raise ValueError(
            f"type={type!r} is not used with a predict_function (it makes the predictions itself; iml ignores type "
            f"then): call the model with that type inside predict_function, or leave predict_function out")
    if m is None:
        return f, "pred", "pred"
    if f is not None:
        return (lambda nd: _r_data_frame_names(f(m, nd))), "..prediction", "..prediction"
    if hasattr(m, "_pyiml_predict"):
        if type is None:
            return m._pyiml_predict, "pred", "pred"
        if getattr(m, "predict_function", None) is not None:
            raise ValueError(
                f"type={type!r} cannot be used with an RModel that has a predict_function (iml ignores type "
                "then): give the type inside the predict_function's R code")
        return (lambda nd: m._pyiml_predict(nd, type=type)), "pred", "pred"   # R: predict(model, newdata, type)
    cols = _fit_columns(m)
    if _is_sklearn_classifier(m):
        if not hasattr(m, "classes_"):
            raise ValueError(
                f"model: the {m.__class__.__name__} classifier has no classes_ (is it fitted?): fit it before "
                "passing it to Predictor"
            )
        if type in _TYPES_PROB and hasattr(m, "predict_proba"):
            names = [str(c) for c in m.classes_]
            return (lambda nd: _Named(np.asarray(m.predict_proba(cols(nd)), dtype=float), names)), "pred", "pred"
        if type is not None and type in _TYPES_PROB:
            raise ValueError(
                f"type={type!r} needs predicted probabilities, but the {m.__class__.__name__} classifier has no "
                "predict_proba: use type='class' (one-hot labels), or a classifier that predicts probabilities "
                "(e.g. SVC(probability=True), or sklearn.calibration.CalibratedClassifierCV around it)")
        if type in _TYPES_PROB or type in _TYPES_CLASS:   # type=None without predict_proba: the labels
            return (lambda nd: _one_hot(np.asarray(m.predict(cols(nd))), m.classes_)), "pred", "pred"
        raise ValueError(f"type={type!r} is not known for a scikit-learn classifier: use 'prob' or 'class'")
    if type is not None and type != "response":
        raise ValueError(
            f"type={type!r} is used only with a scikit-learn classifier ('prob' or 'class') or an RModel; the "
            f"{m.__class__.__name__} model predicts without a type: drop type (or pass a predict_function)")
    if _is_statsmodels_results(m):
        return (lambda nd: _statsmodels_predict(m, nd)), "pred", "pred"
    return (lambda nd: m.predict(cols(nd))), "pred", "pred"


def array_width(model) -> Optional[int]:
    """The column count of a scikit-learn model fitted on an array (``n_features_in_`` without
    ``feature_names_in_``), else None."""
    if getattr(model, "feature_names_in_", None) is not None:
        return None
    try:
        n_in = getattr(model, "n_features_in_", None)
    except Exception:     # a property that fails (an unfitted step of a pipeline)
        return None
    return int(n_in) if isinstance(n_in, (int, np.integer)) and not isinstance(n_in, bool) else None


def _fit_columns(model) -> Callable:
    """``newdata`` → the columns a model fitted on a DataFrame was fitted with, in that order.

    scikit-learn refuses columns in another order than at ``fit`` and columns it has not seen
    (``feature_names_in_``), where R's ``predict`` matches columns by name and ignores the rest;
    pyiml hands the model its own columns, as R does. Frames that already are in that order, and
    frames that lack some of the columns (the model then names them), pass as they are.

    A scikit-learn model fitted on an array (``n_features_in_`` without ``feature_names_in_``)
    gets the values as an array, columns in data order, as scikit-learn would make them: given a
    DataFrame it warns on every call that it was fitted without feature names."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        if array_width(model) is not None:
            return lambda nd: nd.to_numpy() if isinstance(nd, pd.DataFrame) else nd
        return lambda nd: nd
    names = [str(c) for c in names]

    def own_columns(nd):
        if isinstance(nd, pd.DataFrame) and list(nd.columns) != names and all(c in nd.columns for c in names):
            return nd[names]
        return nd
    return own_columns


class Predictor:
    """A machine learning model and the data to explain it with.

    R equivalent: ``iml::Predictor$new(model, data, predict.function, y, class, type, batch.size)``.

    Parameters
    ----------
    model : object, optional
        A fitted model: a scikit-learn estimator or pipeline (``predict``; classifiers use
        ``predict_proba`` unless ``type="class"``), a statsmodels results object, an
        :class:`r_bridge.RModel`, or a plain callable ``f(newdata)``. Like ``predict_function``
        (below), the model must not change the frame it is given in place (a custom
        transformer that edits its input): that frame may share memory with ``data``.
    data : pandas.DataFrame
        The data to explain the model with (features, optionally the target), at least one
        row. Required.
    predict_function : callable, optional
        ``f(newdata)`` when ``model`` is None, else ``f(model, newdata)``; returns a vector, a
        2-d array or a DataFrame. ``predict_fun`` is accepted as an alias (R's partial match).
        It must not change ``newdata`` in place (``newdata.loc[:, c] = …``, ``inplace=True``):
        ``newdata`` may share memory with the Predictor's data (unlike R, which copies); assign
        columns (``newdata = newdata.assign(…)``) or work on ``newdata.copy()`` instead.
    y : str, list of str or array-like, optional
        The target: a column of ``data``, a list of columns of ``data`` (a multi-output
        model's targets), or the target values. Needed by FeatureImp. When
        None and the model is an :class:`r_bridge.RModel` whose formula names a column of
        ``data`` (``Species ~ .``), that column is the target, as iml's ``find_y`` makes it.
    class_ : str or list of str, optional
        Output column(s) to keep (R: ``class``). Class labels are matched as strings, so
        ``class_=1`` selects the column ``"1"``. Ignored for single-output models, as in iml.
    type : str, optional
        Passed on to the model's prediction: for scikit-learn classifiers ``None``/``"prob"``
        → ``predict_proba``, ``"class"``/``"response"`` → one-hot labels (a classifier without
        ``predict_proba``, such as ``LinearSVC``, gives its one-hot labels with ``None`` and a
        ``ValueError`` with ``"prob"``); for an :class:`r_bridge.RModel` R's
        ``predict(model, newdata, type = type)`` (it wins over the RModel's own ``type``, as
        in :func:`r_bridge.r_predictor`). Not with a ``predict_function``, which makes the
        predictions itself (iml ignores ``type`` then; pyiml raises ``ValueError``).
    batch_size : int, default 1000
        Maximal number of rows per model call made by the methods (R: ``batch.size``): a whole
        number >= 1 (a whole float such as ``1e5`` is taken as that integer). It can be assigned
        later (``p.batch_size = 5000``), with the same check.
    predict_fun : callable, optional
        Keyword-only alias of ``predict_function`` (R's partial match of ``predict.fun``); give
        one of the two.
    **kwargs
        Only ``class``, R's name of ``class_`` (a Python keyword, so pass it as
        ``**{"class": "setosa"}``); any other name raises ``TypeError``.

    Attributes
    ----------
    data : Data
    model, class_, type, batch_size
    task : str
        "classification", "regression" or "unknown" (iml leaves "unknown" for anything but
        mlr/caret models; pyiml infers it from scikit-learn estimators).
    output_names : list of str or None
        Column names of the (selected) predictions, known after the first prediction.
    is_multiclass : bool
        True when the prediction has more than one column (R: ``multiClass``; predicts one row
        of the data if nothing was predicted yet).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sklearn.linear_model import LinearRegression
    >>> X = pd.DataFrame({"a": [1., 2, 3, 4], "b": [0., 1, 0, 2]}); yv = np.array([1., 2, 2, 4])
    >>> p = Predictor(LinearRegression().fit(X, yv), data=X, y=yv)
    >>> list(p.predict(X.head(2)).columns)
    ['pred']
    """

    def __init__(self, model=None, data=None, predict_function: Optional[Callable] = None, y=None,
                 class_=None, type: Optional[str] = None, batch_size: int = 1000, *, predict_fun=None,
                 **kwargs):
        if "class" in kwargs:
            class_ = kwargs.pop("class")
        if kwargs:
            raise TypeError(f"Predictor got unexpected argument(s) {sorted(kwargs)}")
        if predict_fun is not None:
            if predict_function is not None:
                raise TypeError("give predict_function or its alias predict_fun, not both")
            predict_function = predict_fun
        batch_size = _check_batch_size(batch_size)
        class_ = _check_class(class_)
        if model is None and predict_function is None:
            raise ValueError("Provide a model, a predict_function or both!")
        if inspect.isclass(model) and predict_function is None:
            raise TypeError(
                f"model is the class {model.__name__}, not a fitted model: pass an instance fitted on the data, "
                f"e.g. {model.__name__}().fit(X, y)")
        if model is not None and predict_function is None and callable(model) and not hasattr(model, "predict") \
                and not hasattr(model, "_pyiml_predict"):
            model, predict_function = None, model
        if model is not None and not (hasattr(model, "predict") or hasattr(model, "_pyiml_predict")
                                      or predict_function is not None):
            raise TypeError(
                f"model of type {model.__class__.__name__} has no predict method: pass a fitted model, "
                "or a predict_function"
            )
        if predict_function is not None and not callable(predict_function):
            raise TypeError("predict_function must be callable: f(newdata) or f(model, newdata)")
        if data is None:
            raise ValueError("Can't extract data from model, please provide via data=")
        if type is not None and not isinstance(type, str):
            raise TypeError(f"type must be a string such as 'prob' or 'class', got {shown(type)}")
        if y is None and hasattr(model, "_pyiml_predict") and isinstance(data, pd.DataFrame):
            target = getattr(model, "target", None)  # an R model's formula response (iml's find_y)
            if isinstance(target, str) and target in data.columns:
                y = target
        self.data = Data(data, y=y)
        self.model = model
        self.predict_function = predict_function
        self._class: Optional[List[str]] = class_
        self.type = type
        self._batch_size = batch_size
        self.task = self._infer_task()
        fitted = getattr(model, "feature_names_in_", None) if predict_function is None else None
        if fitted is not None:
            lacking = [str(c) for c in fitted if str(c) not in self.data.feature_names]
            target = {str(t) for t in (self.data.y_names or [])}
            as_y = [c for c in lacking if c in target]
            if as_y:
                raise ValueError(
                    f"the {model.__class__.__name__} model was fitted with the column(s) {as_y} (feature_names_in_), "
                    "which this Predictor takes as the target y, so they are not features: pass y as the model's "
                    "target column (or as a separate array)")
            if lacking:
                raise ValueError(
                    f"data lacks the feature column(s) {lacking} that the {model.__class__.__name__} model was fitted "
                    f"with (feature_names_in_); data's features are {self.data.feature_names}: pass data with "
                    "every column the model needs (and y as its target)")
        elif predict_function is None and _is_statsmodels_results(model) and \
                getattr(model.model, "formula", None) is None:
            _check_exog(model, self.data.feature_names)
        elif predict_function is None and model is not None and not _is_statsmodels_results(model):
            n_in, p = array_width(model), self.data.n_features
            if n_in is not None and n_in != p:
                raise ValueError(
                    f"the {model.__class__.__name__} model was fitted on an array of {n_in} columns (n_features_in_, "
                    f"no column names), but data has {p} features {self.data.feature_names}: pass data with exactly "
                    "the model's columns, in the order it was fitted with (and y as its target), or fit the model on "
                    "a DataFrame so that its columns are found by name")
        self._call, self._vector_name, self._matrix_prefix = _raw_prediction(model, predict_function, type)
        self._feature_cols: Optional[tuple] = None  # (newdata.columns seen last, the features it has)
        self.output_names: Optional[List[str]] = None
        self._output_index = None      # (output_names, their pandas Index) for predict's frames
        self._selection: Optional[tuple] = None    # (raw output names, column index of class_ or None)
        self._label_levels: Optional[list] = None   # classes of label predictions, from data

    @property
    def class_(self) -> Optional[List[str]]:
        """The output column(s) kept (R: ``$class``), as strings; None keeps every output.

        Assigning it (``p.class_ = "virginica"``, or None) applies to the next prediction, as iml
        reads ``$class`` on every ``predict``; objects computed before keep their results."""
        return self._class

    @class_.setter
    def class_(self, value) -> None:
        self._class = _check_class(value)
        self._selection = None      # chosen again on the next prediction
        self.output_names = None

    @property
    def batch_size(self) -> int:
        """Maximal number of rows per model call made by the methods (R: ``$batch.size``).

        Assigning it (``p.batch_size = 5000``) applies to the methods run afterwards; it is
        checked as the constructor checks it (a whole number >= 1)."""
        return self._batch_size

    @batch_size.setter
    def batch_size(self, value) -> None:
        self._batch_size = _check_batch_size(value)

    # ------------------------------------------------------------------ set-up
    def _infer_task(self) -> str:
        m = self.model
        if m is None:
            return "unknown"
        if hasattr(m, "_pyiml_predict"):
            return getattr(m, "task", "unknown")
        est = getattr(m, "_estimator_type", None)
        if est == "classifier":
            return "classification"
        if est == "regressor":
            return "regression"
        return "unknown"

    # ------------------------------------------------------------------ prediction
    def predict(self, newdata: pd.DataFrame) -> pd.DataFrame:
        """Predict ``newdata`` (R: ``predictor$predict(newdata)``).

        Keeps the feature columns of ``newdata`` (in feature order), calls the model once,
        checks the output (one row per input row, no missing values, numeric) and selects
        ``class_`` columns when the model has several outputs.

        Returns
        -------
        pandas.DataFrame
            One column per output, iml's names, with ``newdata``'s index.
        """
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(f"newdata must be a pandas DataFrame, not {type(newdata).__name__}")
        if not newdata.columns.is_unique:     # (is_unique is cached by the Index)
            _refuse_duplicated_names(newdata.columns, "newdata")
        values = self.predict_array(newdata)
        names = self.output_names
        cached = getattr(self, "_output_index", None)   # one read (other threads may replace it); absent
                                                         # from objects pickled before it existed
        if cached is None or cached[0] != names:   # (equal names: a list changed in place is seen)
            cached = self._output_index = (list(names), pd.Index(names))   # made once per set of output names
        # newdata's row labels (iml drops R's row names): test["pred"] = p.predict(test)["pred"] aligns
        # (a copy: Index.name can be set in place, and frames must not share it with later ones)
        return pd.DataFrame(values, columns=cached[1].copy(), index=newdata.index, copy=values.base is not None)

    def _features_of(self, newdata: pd.DataFrame) -> pd.DataFrame:
        """``newdata`` restricted to the feature columns, in feature order (no copy if it is)."""
        cols = newdata.columns
        seen = self._feature_cols
        if seen is not None and seen[0] is cols:
            feats = seen[1]
        else:
            feats = [c for c in self.data.feature_names if c in cols]
            feats = None if list(cols) == feats else feats
            self._feature_cols = (cols, feats)
        return newdata if feats is None else newdata.loc[:, feats]

    def predict_array(self, newdata: pd.DataFrame) -> np.ndarray:
        """Like :meth:`predict` but returns the values as a float array of shape (n, k).

        Used by the methods; ``output_names`` holds the column names. The array may share
        memory with what the model returned: do not modify it.
        """
        n = len(newdata)
        where = "predict_function" if self.predict_function is not None else "model"
        try:
            raw = self._call(self._features_of(newdata))
        except Exception as err:
            missing = [c for c in self.data.feature_names if c not in newdata.columns]
            if missing:
                raise ValueError(
                    f"newdata is missing the feature column(s) {missing} and the {where} failed on it "
                    f"({err.__class__.__name__}: {err}): pass every feature column of data"
                ) from err
            key = err.args[0] if isinstance(err, KeyError) and err.args else None
            if isinstance(key, (str, int)) and key in (self.data.y_names or []):
                raise ValueError(
                    f"the {where} reads the column {shown(err.args[0])}, which this Predictor takes as the "
                    f"target y, so it is not among the features the {where} gets: if the model needs it, "
                    "it is a feature (pass y as another column or as a separate array)"
                ) from err
            if hasattr(err, "add_note"):   # Python >= 3.11
                err.add_note(f"(raised by the {where} that pyiml's Predictor called on {n} rows of newdata)")
            raise
        values, names = _to_values(raw, self._vector_name, self._matrix_prefix, where,
                                   lambda labels: self._classes_of(labels, where))
        names = _r_empty_names(names)
        if values.shape[1] == 0:
            raise ValueError(f"the {where} returned no prediction columns: it must return at least one output")
        if len(values) != n:
            raise ValueError(
                f"the {where} returned {len(values)} predictions for {n} rows of newdata: it must return one "
                "prediction (row) per input row"
            )
        # (min propagates NaN: one pass, no temporary, about twice as fast as isnan().any())
        if values.size and np.isnan(values.min()):
            r, c = np.argwhere(np.isnan(values))[0]
            na_in = [str(k) for k, v in newdata.iloc[r].items() if pd.isna(v)]
            raise ValueError(
                f"Contains missing values (column '{names[c]}', row {r + 1}): the {where} returned NaN "
                "predictions; it must predict every row of data" + (
                    f". That row has missing values in {na_in}: impute them or drop such rows from data"
                    if na_in else "")
            )
        selection = self._selection        # one read: other threads may replace it meanwhile
        if selection is None or selection[0] != names:
            index, sel = None, names
            if self.class_ is not None and len(names) > 1:
                unknown = [c for c in self.class_ if c not in names]
                if unknown:
                    raise ValueError(
                        f"class_={self.class_!r} is not among the prediction columns {names}: "
                        "choose from those"
                    )
                index = np.array([names.index(c) for c in self.class_])
                sel = list(self.class_)
            self.output_names = sel
            selection = self._selection = (names, index)
        if selection[1] is not None:
            values = values[:, selection[1]]
        return values

    def _classes_of(self, labels: np.ndarray, where: str) -> list:
        """The one-hot columns of predicted class labels (strings or objects, not a categorical).

        iml one-hot encodes each call's labels on their own, so that two calls (or two batches
        of one design) can have different columns. pyiml fixes the classes once: the sorted
        labels the model predicts for the rows of ``data`` (one extra pass over data, the first
        time labels are seen). A label outside them raises: only a categorical output (whose
        categories are the classes) or probabilities can bring classes that data never gets.
        """
        seen = _label_classes(labels, where)
        if self._label_levels is None:
            X, bs, found = self.data.X, self.batch_size, set()
            for s in range(0, len(X), bs):
                raw = _plain_output(self._call(self._features_of(X.iloc[s:s + bs])), where)
                vals = raw.to_numpy(dtype=object) if isinstance(raw, pd.Series) else np.asarray(raw)
                vals = _strings_as_objects(vals)
                if vals.ndim != 1 or vals.dtype.kind not in "OUS" or numbers_in_objects(vals, bools=True):
                    raise ValueError(
                        f"the {where} returned class labels for some rows but not labels for the rows of data: "
                        "it must return the same kind of prediction on every call")
                found.update(_label_classes(vals, where))
            self._label_levels = _label_classes(np.array(list(found), dtype=object), where)
        known = set(self._label_levels)
        new = [str(c) for c in seen if c not in known]
        if new:
            raise ValueError(
                f"the {where} predicted the class label(s) {new} for newdata but for no row of data; pyiml "
                f"takes the classes of predicted labels from data ({[str(c) for c in self._label_levels]}) so "
                "that every call has the same columns: return a pandas Categorical whose categories hold every "
                "class, or class probabilities (e.g. predict_proba)")
        return self._label_levels

    def predict_batched(self, n_rows: int, make_batch: Callable[[int, int], pd.DataFrame],
                        batch_size: Optional[int] = None, progress: bool = False,
                        desc: str = "predicting",
                        sink: Optional[Callable[[int, int, np.ndarray], None]] = None) -> Optional[np.ndarray]:
        """Predict a design of ``n_rows`` rows built batch by batch.

        ``make_batch(start, stop)`` returns the design rows ``start..stop-1``; each batch holds at
        most ``batch_size`` (None: the predictor's; else a whole number >= 1, checked as the
        constructor's ``batch_size``) rows, so memory is bounded by it.
        Returns the stacked (n_rows, k) prediction array; with ``sink``, each batch's predictions
        go to ``sink(start, stop, values)`` instead (``values`` may share memory with the model's
        output or its input: consume them before returning) and None is returned.
        """
        bs = self.batch_size if batch_size is None else _check_batch_size(batch_size)
        out = None
        starts = range(0, n_rows, bs)
        if progress:
            from tqdm.auto import tqdm
            starts = tqdm(starts, desc=desc, unit="batch")
        for s in starts:
            e = min(s + bs, n_rows)
            vals = self.predict_array(make_batch(s, e))
            if sink is not None:
                sink(s, e, vals)
                continue
            if out is None:
                out = np.empty((n_rows, vals.shape[1]))
            out[s:e] = vals
        if sink is not None:
            return None
        if out is None:
            out = np.empty((0, len(self.output_names or [])))
        return out

    @property
    def is_multiclass(self) -> bool:
        """True when the (selected) prediction has more than one column (iml's ``multiClass``)."""
        if self.output_names is None:
            self.predict_array(self.data.X.iloc[:1])
        return len(self.output_names) > 1

    def __getstate__(self):
        # the model call is a closure over the model: rebuilt from the (copied) model on
        # unpickling and in deepcopy, so that a copy predicts with its own model
        state = self.__dict__.copy()
        state["_call"] = None
        state["_feature_cols"] = None
        state["_output_index"] = None
        return state

    def __setstate__(self, state):
        if "class_" in state or "batch_size" in state:   # pickled before they became properties
            state = dict(state)
            if "class_" in state:
                state["_class"] = state.pop("class_")
            if "batch_size" in state:
                state["_batch_size"] = _check_batch_size(state.pop("batch_size"))
        self.__dict__.update(state)
        self._call, self._vector_name, self._matrix_prefix = _raw_prediction(
            self.model, self.predict_function, self.type)

    def _r_print(self) -> str:
        """The text of iml's ``print(<Predictor>)``, spaces and newlines as R's ``cat`` writes
        them: ``"Prediction task: <task> \\n"``, then for classification ``"Classes:  <names>"``
        without a newline. iml's class line is always empty (it reads a field that is never
        filled); pyiml names the outputs: ``class_`` when set, else the outputs of the last
        prediction or the model's ``classes_``."""
        out = f"Prediction task: {self.task} \n"
        if self.task == "classification":
            names = self.class_ or self.output_names or [str(c) for c in getattr(self.model, "classes_", [])]
            out += "Classes:  " + ", ".join(names)
        return out

    def __repr__(self) -> str:
        return self._r_print().rstrip("\n")
