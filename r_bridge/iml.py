"""Run CRAN iml's classes in R from Python; results come back as pandas.

R equivalents: ``iml::Predictor$new(...)`` (:func:`r_predictor`), ``iml::<Class>$new(predictor,
...)`` (:func:`iml`), ``set.seed`` (:func:`set_seed`). Used by the parity suite and the report
to compare pyiml with iml 0.11.4 on the same model, data and arguments.

Every call sets ``future::plan("sequential")`` first: a Python model is an R closure around an
external pointer into this process and cannot be shipped to other R processes. R errors raise
:class:`r_bridge.RError` with R's message; R warnings are re-emitted as
:class:`r_bridge.RWarning`.
"""
from __future__ import annotations

import sys
import types
from typing import Any, Dict, Optional

import numpy as np
import pandas as pd

from . import convert, session
from .models import (_PY_FUNCTIONS, RFunction, RModel, _checked_seed, _is_sexp, _python_error_to_r, _r_seed,
                     as_r_predict_function)

__all__ = ["set_seed", "r_predictor", "iml", "ImlObject", "to_r", "IML_CLASSES", "ARGUMENT_NAMES"]

IML_CLASSES = ("FeatureImp", "FeatureEffect", "FeatureEffects", "Interaction", "Shapley", "LocalModel",
               "TreeSurrogate", "Partial")

# pyiml's snake_case argument names → iml's dotted names; any other name is passed as is.
ARGUMENT_NAMES: Dict[str, str] = {
    "n_repetitions": "n.repetitions",
    "x_interest": "x.interest",
    "grid_size": "grid.size",
    "center_at": "center.at",
    "grid_points": "grid.points",
    "sample_size": "sample.size",
    "dist_fun": "dist.fun",
    "gower_power": "gower.power",
    "kernel_width": "kernel.width",
    "tree_args": "tree.args",
    "class_": "class",
    "batch_size": "batch.size",
    "predict_function": "predict.function",
    "predict_fun": "predict.function",
    "y_hat_interest": "y.hat.interest",
}

_R_SEQUENTIAL = 'if (requireNamespace("future", quietly = TRUE) && !inherits(future::plan(), "sequential")) ' \
                'future::plan("sequential")'

# future.apply(future.seed = TRUE) in a session without .Random.seed (no set.seed yet) leaves R's
# generator as L'Ecuyer-CMRG (iml's FeatureImp, FeatureEffects, Interaction): every later
# set.seed(s) would then draw another stream than R's default. The default kind is restored.
_R_KEEP_KIND = """kind0 <- RNGkind()
  fresh <- !exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (fresh && !identical(RNGkind(), kind0)) RNGkind(kind0[1L], kind0[2L], kind0[3L]), add = TRUE)"""

_R_NEW = """function(cls, args, seed) {
  %s
  %s
  generator <- getExportedValue("iml", cls)
  if (!is.null(seed)) set.seed(seed)
  do.call(generator$new, args)
}""" % (_R_SEQUENTIAL, _R_KEEP_KIND)

_R_METHOD = """function(obj, method, args, seed) {
  %s
  %s
  if (!is.null(seed)) set.seed(seed)
  value <- do.call(obj[[method]], args)
  if (identical(value, obj)) list(TRUE) else list(FALSE, value)
}""" % (_R_SEQUENTIAL, _R_KEEP_KIND)

_R_FIELD = """function(obj, name) {
  if (!exists(name, envir = obj, inherits = FALSE))
    stop("iml object of class ", class(obj)[1], " has no field '", name, "'; fields: ",
         paste(setdiff(ls(obj), c(".__enclos_env__", "clone", "initialize")), collapse = ", "))
  obj[[name]]
}"""

_IN_PLACE_METHODS = ("center", "set.feature", "explain")

_R_IS_R6 = "function(x) inherits(x, 'R6')"

_R_PRINT = "function(x) paste(utils::capture.output(print(x)), collapse = '\\n')"


def set_seed(seed: int) -> None:
    """Set R's random seed.

    R equivalent: ``set.seed(seed)``.

    Parameters
    ----------
    seed : int
        In R's range -2147483647..2147483647 (``ValueError`` otherwise).
    """
    seed = _checked_seed(seed, optional=False)
    session.robjects()
    with session.lock:
        session.r_call("function(seed) set.seed(seed)", _r_seed(seed))


# ---------------------------------------------------------------------------- values → R
def to_r(value: Any, name: str = "value"):
    """Convert a Python argument value for an R call.

    None → ``NULL``; a DataFrame → data.frame (:func:`r_bridge.py2r`); a Series → vector;
    bool → logical; int and float → numeric (double); str → character (numpy scalars and 0-d
    arrays as the Python scalar they hold); a list/tuple/1-d
    array of str → character vector, of numbers → numeric vector, of bools → logical vector;
    a list containing lists/arrays (e.g. 2-d ``grid_points``) → R list; a dict → named R list
    (values converted the same way); a Python callable → an R function calling it (arguments
    converted with :func:`r_bridge.r2py`, result with this function); rpy2 objects, and
    :class:`r_bridge.RModel`/:class:`r_bridge.RFunction` (their R object), as they are.
    """
    import rpy2.rinterface as ri

    if value is None:
        return ri.NULL
    if _is_sexp(value):
        return value
    if isinstance(value, (RModel, RFunction)):
        return value.r_object
    if isinstance(value, ImlObject):
        return value.r_object
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()   # a 0-d array (np.asarray(x.mean())) is its scalar
    if isinstance(value, pd.DataFrame):
        return convert.py2r(value)
    if isinstance(value, (pd.Series, pd.Categorical, pd.Index)):
        s = value if isinstance(value, pd.Series) else pd.Series(value)
        if pd.api.types.is_integer_dtype(s.dtype) and not isinstance(s.dtype, pd.CategoricalDtype):
            s = s.astype("float64") if isinstance(s.dtype, np.dtype) else s.astype("Float64")
        return convert.vector_py2r(s, name)
    if isinstance(value, (bool, np.bool_)):
        return ri.BoolSexpVector([bool(value)])
    if isinstance(value, (int, float, np.integer, np.floating)):
        return ri.FloatSexpVector([float(value)])
    if isinstance(value, (str, np.str_)):
        return ri.StrSexpVector([str(value)])
    if isinstance(value, dict):
        keys = [str(k) for k in value]
        lst = ri.ListSexpVector([to_r(v, f"{name}[{k!r}]") for k, v in value.items()])
        lst.names = ri.StrSexpVector(keys)
        return lst
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        items = list(value)
        if not items:
            return ri.ListSexpVector([])
        if all(isinstance(v, (str, np.str_)) for v in items):
            return ri.StrSexpVector([str(v) for v in items])
        if all(isinstance(v, (bool, np.bool_)) for v in items):
            return ri.BoolSexpVector([bool(v) for v in items])
        if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
               for v in items):
            return ri.FloatSexpVector([float(v) for v in items])
        return ri.ListSexpVector([to_r(v, f"{name}[{i}]") for i, v in enumerate(items)])
    if callable(value):
        return _python_callable_to_r(value)
    raise TypeError(f"{name}: cannot pass a value of type {type(value).__name__} to R; use None, numbers, "
                    "strings, lists, dicts, pandas objects or rpy2 objects")


_R_WRAP_CALLABLE = """function(py_fun) {
  force(py_fun)
  function(...) {
    res <- py_fun(...)
    if (inherits(res, "pyiml_python_error")) stop(unclass(res), call. = FALSE)
    res
  }
}"""


def _python_callable_to_r(fun):
    """A Python function f(*args) (e.g. a loss f(actual, predicted)) as an R function; its
    arguments are converted with :func:`r_bridge.r2py` (scalars as 1-element arrays)."""
    import rpy2.rinterface as ri

    key = len(_PY_FUNCTIONS)
    while key in _PY_FUNCTIONS:
        key += 1

    def callback(*args):
        try:
            entry = _PY_FUNCTIONS.get(key)
            if entry is None:
                raise RuntimeError("this Python function was released (the Python session is ending)")
            return to_r(entry[0](*[_arg_r2py(a) for a in args]), "return value")
        except BaseException as exc:  # noqa: BLE001 - reach R as an R error
            return _python_error_to_r(exc)

    with session.lock:
        py_fun = ri.rternalize(callback)
        r_fun = session.r_function(_R_WRAP_CALLABLE)(py_fun)
    _PY_FUNCTIONS[key] = (fun, callback, py_fun, r_fun)  # never garbage collected while R holds it
    return r_fun


def _arg_r2py(x):
    out = convert.r2py(x)
    if isinstance(out, (float, int, bool, str)):
        return np.atleast_1d(out)
    return out


def _r_args(kwargs: Dict[str, Any]):
    """Python keyword arguments → (R names, R values)."""
    names, values = [], []
    for k, v in kwargs.items():
        rname = ARGUMENT_NAMES.get(k, k)
        if rname == "class" and v is not None:
            v = [str(c) for c in v] if isinstance(v, (list, tuple, np.ndarray, pd.Index)) else str(v)
        names.append(rname)
        values.append(to_r(v, k))
    return names, values


def _named_list(names, values):
    import rpy2.rinterface as ri

    lst = ri.ListSexpVector(values)
    if values:
        lst.names = ri.StrSexpVector(names)
    return lst


# ---------------------------------------------------------------------------- Predictor
def r_predictor(data: pd.DataFrame, y=None, model=None, predict_function=None, class_=None,
                type: Optional[str] = None, batch_size: float = 1000, **kwargs):
    """Create R's ``iml::Predictor`` for a model.

    R equivalent: ``iml::Predictor$new(model, data, predict.function, y, class, type,
    batch.size)``.

    Parameters
    ----------
    data : pandas.DataFrame or rpy2 data.frame
        Converted with :func:`r_bridge.py2r`.
    y : str, array-like or None
        A column name of ``data`` or the target values.
    model : RModel, RFunction, rpy2 R model, Python model or callable, optional
        * :class:`r_bridge.RModel` → its R object, its ``predict_function`` and ``type``
          (``type`` given here wins); ``data`` reaches R as it is, with RModel's warning for
          a Categorical whose categories are in Python's sorted order where R sorts otherwise;
        * :class:`r_bridge.RFunction` → ``model = NULL, predict.function = <the R function>``;
        * an rpy2 R object → passed as is;
        * a scikit-learn model, anything with ``predict``, or a callable →
          ``model = NULL, predict.function = as_r_predict_function(model, type, data=data)``
          (so the model gets ``newdata`` with ``data``'s column types back: categoricals with
          their original categories, strings as strings).
    predict_function : str, rpy2 function or Python callable, optional
        R code of a function, an R function, or a Python callable ``f(newdata)`` (wrapped with
        :func:`r_bridge.as_r_predict_function`).
    class_ : str or list of str, optional
        R's ``class`` (a character vector; numbers are converted to strings).
    type : str, optional
        R's ``type``.
    batch_size : number
        R's ``batch.size``.
    **kwargs
        ``class`` is accepted as an alias of ``class_``.

    Returns
    -------
    rpy2.robjects.Environment
        The R6 ``Predictor`` (pass it to :func:`iml` or to R code).
    """
    if "class" in kwargs:
        class_ = kwargs.pop("class")
    if kwargs:
        raise TypeError(f"r_predictor got unexpected argument(s) {sorted(kwargs)}")
    session.require(["iml"])
    if isinstance(data, pd.DataFrame):
        target = [y] if isinstance(y, str) else []
        logical = [str(c) for c, dt in data.dtypes.items() if c not in target and (
            dt == np.dtype(bool) or isinstance(dt, pd.BooleanDtype))]
        if logical:
            raise ValueError(
                f"data column(s) {logical} are bool, which reach R as logical features, and R's iml rejects "
                "those (its feature types are numerical, integer and categorical): convert them first, e.g. "
                f"data.astype({{{logical[0]!r}: 'category'}}) (pyiml itself takes bool columns as categoricals)")
    args: Dict[str, Any] = {}
    r_model = None
    pf = predict_function
    if isinstance(model, RModel):
        r_model = model.r_object
        if isinstance(data, pd.DataFrame):
            # R's iml predicts the data as they are: the warning RModel gives where a
            # Categorical in Python's sorted order may be read by position (nothing is reordered)
            for _ in model._level_actions_of(data):
                pass
        if pf is None and model._pf is not None:
            pf = model._pf
        if type is None:
            type = model.type
    elif isinstance(model, RFunction):
        if pf is not None:
            raise TypeError("model=RFunction(...) is the prediction function; do not give predict_function too")
        pf = model.r_object
    elif model is not None and _is_sexp(model):
        r_model = model
    elif model is not None:
        if pf is not None:
            raise TypeError("a Python model is called through as_r_predict_function(model, type); "
                            "give either the model or predict_function, not both")
        pf = as_r_predict_function(model, type, data=data if isinstance(data, pd.DataFrame) else None)
    if isinstance(pf, str):
        from .models import _eval_function

        pf = _eval_function(pf, "predict_function")
    elif pf is not None and not _is_sexp(pf):
        if not callable(pf):
            raise TypeError(f"predict_function must be R code, an R function or a Python callable, got {pf!r}")
        pf = as_r_predict_function(pf, data=data if isinstance(data, pd.DataFrame) else None)
    if r_model is None and pf is None:
        raise ValueError("Provide a model, a predict_function or both!")
    if r_model is not None:
        args["model"] = r_model
    args["data"] = data
    if pf is not None:
        args["predict.function"] = pf
    if y is not None:
        args["y"] = y if not isinstance(y, (np.ndarray, list, tuple)) else pd.Series(y)
    if class_ is not None:
        args["class"] = class_
    if type is not None and r_model is not None:
        args["type"] = type  # iml uses type only when it calls predict() on an R model
    args["batch.size"] = batch_size
    import rpy2.rinterface as ri

    with session.lock:
        names, values = _r_args(args)
        obj = session.r_call(_R_NEW, ri.StrSexpVector(["Predictor"]), _named_list(names, values), ri.NULL)
        return session.to_robjects(obj)


# ---------------------------------------------------------------------------- methods
def iml(cls: str, predictor, seed: Optional[int] = None, **kwargs) -> "ImlObject":
    """Run one of iml's interpretation methods in R.

    R equivalent: ``set.seed(seed); iml::<cls>$new(predictor, ...)``.

    Parameters
    ----------
    cls : str
        One of ``FeatureImp``, ``FeatureEffect``, ``FeatureEffects``, ``Interaction``,
        ``Shapley``, ``LocalModel``, ``TreeSurrogate``, ``Partial``.
    predictor : rpy2 R object
        An R ``iml::Predictor`` (from :func:`r_predictor`).
    seed : int, optional
        ``set.seed(seed)`` immediately before ``$new``; in R's range -2147483647..2147483647
        (``ValueError`` otherwise).
    **kwargs
        iml's arguments in snake_case (``n_repetitions`` → ``n.repetitions``, ``x_interest`` →
        ``x.interest``, ``grid_size``, ``center_at``, ``grid_points``, ``sample_size``,
        ``dist_fun``, ``gower_power``, ``kernel_width``, ``tree_args``, ``class_``,
        ``batch_size``, ``predict_function``; see :data:`ARGUMENT_NAMES`); other names are
        passed as they are (``loss``, ``feature``, ``features``, ``method``, ``k``,
        ``maxdepth``…). Values are converted with :func:`to_r`; Python ints become R numerics.

    Returns
    -------
    ImlObject

    Raises
    ------
    r_bridge.RError
        iml failed; the message is R's.
    """
    if cls not in IML_CLASSES:
        raise ValueError(f"cls must be one of {', '.join(IML_CLASSES)}, got {cls!r}")
    seed = _checked_seed(seed)
    session.require(["iml"])
    import rpy2.rinterface as ri

    if isinstance(predictor, ImlObject):
        predictor = predictor.r_object
    if not _is_sexp(predictor):
        raise TypeError(f"predictor must be an R iml::Predictor (from r_bridge.r_predictor), got "
                        f"{type(predictor).__name__}")
    with session.lock:
        names, values = _r_args(kwargs)
        args = _named_list(["predictor"] + names, [predictor] + values)
        seed_r = _r_seed(seed)
        obj = session.r_call(_R_NEW, ri.StrSexpVector([cls]), args, seed_r)
        return ImlObject(session.to_robjects(obj), cls)


class ImlObject:
    """An iml R6 object (FeatureImp, FeatureEffect, Shapley, …) seen from Python.

    R equivalent: the object ``iml::<cls>$new(...)`` returns.

    Parameters
    ----------
    r_object : rpy2 R6 object
    cls : str
        Its iml class name.

    Attributes
    ----------
    r_object : rpy2.robjects.Environment
    cls : str
    """

    def __init__(self, r_object, cls: str):
        self.r_object = r_object
        self.cls = cls

    @property
    def results(self):
        """``obj$results`` as pandas.

        A data.frame (also Interaction's data.table) → DataFrame with iml's column names and
        order; FeatureEffects' named list → dict of DataFrames. Factors (``.class``,
        ``.feature``, ``.borders`` …) → Categoricals; character → object; R integer columns
        (``.id``) → int64, or the nullable ``Int64`` when they contain NA.
        """
        return self.field("results")

    def field(self, name: str):
        """An R6 field or active binding, converted.

        R equivalent: ``obj[[name]]`` (e.g. ``obj$original.error``).

        Returns
        -------
        Numbers → float/int or numpy arrays, data frames → DataFrames, NULL → None, lists →
        dicts/lists, iml R6 objects (``predictor``, FeatureEffects' ``effects``) →
        :class:`ImlObject`, other R objects (fitted models, ``party`` trees) → rpy2 objects.
        See :func:`r_bridge.r2py`.
        """
        if not isinstance(name, str):
            raise TypeError(f"field name must be a str, got {name!r}")
        import rpy2.rinterface as ri

        with session.lock:
            value = session.r_call(_R_FIELD, self.r_object, ri.StrSexpVector([name]))
            return self._convert(value)

    def call(self, method: str, *args, seed: Optional[int] = None, **kwargs):
        """Call an R6 method, e.g. ``explain``, ``predict``, ``center``, ``set.feature``.

        R equivalent: ``obj$<method>(...)``.

        Parameters
        ----------
        method : str
            iml's name (``"set.feature"``; ``"set_feature"`` is accepted too).
        *args, **kwargs
            Converted like :func:`iml`'s keyword arguments (snake_case → dotted names).
        seed : int, optional
            ``set.seed(seed)`` right before the call.

        Returns
        -------
        The converted return value (see :meth:`field`), e.g. a DataFrame for ``predict``; this
        ImlObject for the methods that recompute the object in place (``center``,
        ``set.feature``, ``explain``, whose R return values are internal) and when the method
        returns the object itself.
        """
        if not isinstance(method, str):
            raise TypeError(f"method must be a str such as 'explain' or 'set.feature', got {method!r}")
        seed = _checked_seed(seed)
        import rpy2.rinterface as ri

        with session.lock:
            members = [str(m) for m in ri.baseenv["ls"](self.r_object, **{"all.names": ri.BoolSexpVector([True])})]
            if method not in members and method.replace("_", ".") in members:
                method = method.replace("_", ".")
            if method not in members:
                raise AttributeError(f"iml {self.cls} has no method {method!r}")
            names, values = _r_args(kwargs)
            pos = [to_r(a, f"argument {i + 1}") for i, a in enumerate(args)]
            arglist = _named_list([""] * len(pos) + names, pos + values)
            seed_r = _r_seed(seed)
            res = session.r_call(_R_METHOD, self.r_object, ri.StrSexpVector([method]), arglist, seed_r)
            if bool(res[0][0]) or method in _IN_PLACE_METHODS:
                return self
            return self._convert(res[1])

    def _convert(self, value):
        with session.lock:
            if _is_sexp(value) and bool(session.r_function(_R_IS_R6)(value)[0]):
                cls = [str(c) for c in value.rclass][0]
                return ImlObject(session.to_robjects(value), cls)
            out = convert.r2py(value)
            if isinstance(out, dict):
                return {k: self._convert(v) if _is_sexp(v) else v for k, v in out.items()}
            if isinstance(out, list):
                return [self._convert(v) if _is_sexp(v) else v for v in out]
            if _is_sexp(out):
                return session.to_robjects(out)
            return out

    def __repr__(self) -> str:
        try:
            with session.lock:
                text = str(session.r_function(_R_PRINT)(self.r_object)[0])
        except Exception:  # printing is best effort
            text = ""
        return f"<ImlObject iml::{self.cls}>" + (f"\n{text}" if text else "")


class _CallableModule(types.ModuleType):
    """``r_bridge.iml`` is this module and also the function :func:`iml`:
    ``r_bridge.iml("FeatureImp", p, loss="mae")`` and ``r_bridge.iml.r_predictor(...)`` both work."""

    def __call__(self, cls: str, predictor, seed: Optional[int] = None, **kwargs) -> ImlObject:
        return iml(cls, predictor, seed=seed, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
