"""``InterpretationMethod``: the base class that owns the SIPA run.

R equivalent: ``iml::InterpretationMethod`` (spec §5). The base class holds the predictor and
its data, the shared argument checks and the ``plot`` entry point; each method computes its
results once, in its constructor (``_run``: sample, build the design, predict it in
``batch_size`` chunks, aggregate), and keeps them.
"""
from __future__ import annotations

import contextlib
import math
import numbers
from typing import Optional

import numpy as np
import pandas as pd

from .data import user_stacklevel, warn_user
from .predictor import Predictor
from ._text import shown

__all__ = ["InterpretationMethod", "check_int", "check_bool", "user_stacklevel", "refuse_result_names"]


def refuse_result_names(features, is_result_column, results: str, columns: str) -> None:
    """``ValueError`` for the first feature named like a column of a method's results (the
    feature's own column would overwrite it; iml's results break there too).

    ``is_result_column(name)`` tells the clashing names; ``results`` names the results (e.g.
    "TreeSurrogate's results") and ``columns`` lists their columns, for the message."""
    taken = [f for f in features if is_result_column(f)]
    if taken:
        f = taken[0]
        raise ValueError(
            f"feature {f!r} has the name of a column of {results} ({columns}), which would overwrite its "
            f"values (iml's results break too): rename it, e.g. data.rename(columns={{{f!r}: {f.lstrip('.')!r}}})")


class InterpretationMethod:
    """Base class of every interpretation method.

    R equivalent: ``iml::InterpretationMethod``.

    Subclasses implement :meth:`_run` (compute ``results``: sample, build the design, predict it
    with :meth:`Predictor.predict_batched`, aggregate; R: ``private$run``) and :meth:`_plot`
    (returns a matplotlib Figure).

    Parameters
    ----------
    predictor : Predictor
        The model and data to explain.

    Attributes
    ----------
    predictor : Predictor
    results : pandas.DataFrame or None
        None until the method has run.
    """

    _param_lines: tuple = ()

    def __init__(self, predictor: Predictor):
        if not isinstance(predictor, Predictor):
            raise TypeError(
                f"predictor must be a pyiml.Predictor, not {type(predictor).__name__}: wrap the model "
                "with pyiml.Predictor(model, data=...)"
            )
        self.predictor = predictor
        self.sampler = predictor.data
        self.results: Optional[pd.DataFrame] = None
        self._finished = False
        self._multiclass: Optional[bool] = None

    def _flush(self) -> None:
        self.results = None
        self._finished = False

    def _class_key(self):
        """The predictor's output selection (``class_``) as a hashable key: predictions cached
        under one selection are not reused under another (``Predictor.class_`` may be assigned
        between calls, and iml re-predicts with the current class)."""
        cls = self.predictor.class_
        return tuple(cls) if cls is not None else None

    @contextlib.contextmanager
    def _all_or_nothing(self):
        """A recomputation (``explain``, ``center``, ``set_feature``) that fails — a bad argument,
        or the model failing on the new design — leaves the object as it was, results included
        (iml leaves it half changed: the new point or centre with no results). Random draws the
        failed call made from a shared source (``RRandom``) stay drawn, as in R."""
        saved = self.__dict__.copy()
        try:
            yield
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _warn_if_model_draws(self, source) -> None:
        """Warn when R's draws are replayed (``source`` is R-exact, e.g. :class:`pyiml.RRandom`)
        but the model's predictions drew from R's random number generator themselves
        (``model.draws_random``, set by :class:`r_bridge.RModel`): R's iml then interleaves the
        model's draws with its own, which pyiml cannot follow."""
        if getattr(source, "r_exact", False) and getattr(self.predictor.model, "draws_random", False):
            warn_user(
                f"{type(self).__name__} replayed R's draws (RRandom), but the model's predict() draws from R's "
                "random number generator too (RModel.draws_random; e.g. ranger's predict, randomForest's class "
                "labels where the votes tie, or max.col's random tie-breaking): R's iml under set.seed interleaves "
                "those draws with its own, so its results may differ from these. For R's numbers, make predict "
                "leave R's generator alone in both languages, e.g. ranger: predict_function='function(model, "
                "newdata) predict(model, newdata, seed = 1)$predictions'; randomForest: type='prob'",
                UserWarning, user_stacklevel())

    # public -----------------------------------------------------------------
    def plot(self, *args, **kwargs):
        """Plot the results as iml does; returns a matplotlib Figure."""
        if self.results is None:
            if getattr(self, "x_interest", False) is None:
                raise RuntimeError(
                    f"call run() first! ({type(self).__name__} has no results yet: call explain(x_interest), "
                    "or pass x_interest to the constructor)"
                )
            raise RuntimeError("call run() first! (the method has no results yet)")
        return self._plot(*args, **kwargs)

    def _plot(self, *args, **kwargs):  # pragma: no cover - every method overrides
        raise TypeError(f"{type(self).__name__} has no plot")

    def _params_repr(self) -> list:
        return []

    def __repr__(self) -> str:
        """iml's ``print(<method>)``: the same text, spaces and blank lines as R's ``cat`` writes
        them, the parameters, the predictor, the data and the head of the results as R prints a
        data.frame (7 significant digits, blocks of columns 80 characters wide); the row labels
        are pandas' index (0-based)."""
        return _r_print_method(self, self._params_repr(), self.results.head(6) if self.results is not None else None)

def _r_print_method(obj, params: list, head) -> str:
    """iml's ``InterpretationMethod$print()``: ``cat`` of the method's name (with cat's spaces),
    its parameter lines (no newline after the last, as each ``printParameters`` writes them), the
    predictor, the data and ``head`` (a DataFrame, a dict of them printed as R prints a list,
    or None: nothing)."""
    from ._algorithms.rprint import r_print_frame

    text = f"Interpretation method:  {type(obj).__name__} \n" + "\n".join(params)
    text += "\n\nAnalysed predictor: \n" + obj.predictor._r_print()
    text += "\n\nAnalysed data:\n" + repr(obj.sampler) + "\n"
    text += "\n\nHead of results:\n"
    if isinstance(head, dict):      # R's print of a named list: $name, the element, a blank line
        text += "".join(f"${name}\n{r_print_frame(df)}\n\n" for name, df in head.items())
    elif head is not None:
        text += r_print_frame(head) + "\n"
    return text.rstrip("\n")


def check_bool(value, name: str) -> bool:
    """``value`` as a bool; ``TypeError`` naming ``name`` for anything but True/False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def real_scalar(value):
    """A 0-d numpy array as its scalar (``np.array(5)`` is 5); anything else as it is."""
    return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value


def is_finite_real(value) -> bool:
    """A finite real number that is not a bool (Python's, numpy's, a Fraction...; any integer is
    finite: ``math.isfinite`` overflows on integers beyond a double's range)."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real) and (
        isinstance(value, numbers.Integral) or math.isfinite(value))


def check_int(value, name: str, minimum: int) -> int:
    value = real_scalar(value)
    if not is_finite_real(value) or value != int(value) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {shown(value)}")
    return int(value)


# ---------------------------------------------------------------------------- FeatureImp
