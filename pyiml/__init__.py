"""pyiml: model-agnostic interpretation with numerical parity to R's iml 0.11.4.

Public names only; see the README and docs/ for the guide.
"""
from . import losses
from ._base import InterpretationMethod
from .data import Data
from .predictor import Predictor
from .random import NumpySource, RandomSource, RRandom, as_random_source

__version__ = "0.1.0"

__all__ = [
    "Predictor",
    "Data",
    "InterpretationMethod",
    "losses",
    "RRandom",
    "NumpySource",
    "RandomSource",
    "as_random_source",
]
