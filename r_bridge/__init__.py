"""r_bridge: R models in Python, Python models in R's iml, and CRAN iml run from Python.

* :func:`py2r` / :func:`r2py` — pandas ↔ R data.frame without loss (``r_bridge.convert``).
* :class:`RModel` — an R model for ``pyiml.Predictor``; :class:`RFunction` — a closed-form
  model written in R; :func:`as_r_predict_function` — a Python model for R's
  ``iml::Predictor`` (``r_bridge.models``).
* :func:`r_predictor`, :func:`iml`, :func:`set_seed` — R's ``iml::Predictor$new``,
  ``iml::<Class>$new`` and ``set.seed`` (``r_bridge.iml``; the module is callable as the
  function ``iml``).
* :class:`RError`, :class:`RWarning`, :class:`RNotAvailableError` and the embedded R
  session (``r_bridge.session``: one lock, package checks, ``r_eval``).

rpy2 is imported lazily: ``import r_bridge`` works without R; the first call that needs R
raises :class:`RNotAvailableError` naming what to install.
"""
from . import session
from .session import RError, RNotAvailableError, RWarning
from . import convert
from .convert import py2r, r2py, vector_py2r, vector_r2py
from .models import RFunction, RModel, as_r_predict_function
from . import iml
from .iml import ImlObject, r_predictor, set_seed

__all__ = [
    "session",
    "convert",
    "py2r",
    "r2py",
    "vector_py2r",
    "vector_r2py",
    "RModel",
    "RFunction",
    "as_r_predict_function",
    "iml",
    "ImlObject",
    "r_predictor",
    "set_seed",
    "RError",
    "RNotAvailableError",
    "RWarning",
]
