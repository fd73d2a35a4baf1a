"""pyiml: model-agnostic interpretation with numerical parity to R's iml 0.11.4.

Public names only; see the README and docs/ for the guide.
"""
from . import losses
from ._base import InterpretationMethod
from .data import Data
from .feature_effect import FeatureEffect, FeatureEffects, Partial
from .feature_imp import FeatureImp
from .interaction import Interaction
from .local_model import LocalModel
from .predictor import Predictor
from .random import NumpySource, RandomSource, RRandom, as_random_source
from .shapley import Shapley
from .tree_surrogate import TreeSurrogate

__version__ = "0.1.0"

__all__ = [
    "Predictor",
    "Data",
    "InterpretationMethod",
    "FeatureImp",
    "FeatureEffect",
    "FeatureEffects",
    "Partial",
    "Shapley",
    "Interaction",
    "LocalModel",
    "TreeSurrogate",
    "losses",
    "RRandom",
    "NumpySource",
    "RandomSource",
    "as_random_source",
]
