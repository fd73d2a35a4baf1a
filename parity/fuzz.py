"""Random parity cases: pyiml against CRAN iml on random data, models and arguments.

The hand-written specs of ``parity/specs`` pin chosen cases; this module draws cases at random
so that the branches nobody thought of are compared too. A case is

* random data: 12-90 rows (one case in ten: 1,000-5,000; with ``--rows MIN MAX`` every case
  MIN-MAX), 2-5 features drawn from numerical (continuous or with heavy ties), integer,
  categorical (level order not alphabetical, sometimes an unused level) and ordered categorical
  columns, plus a numeric target;
* a random model written once in Python — a sum of main effects, per-level effects and one
  interaction, sometimes turned into 2-3 class probabilities by a softmax — that both sides
  call: pyiml as ``predict_function``, R's iml through :func:`r_bridge.as_r_predict_function`,
  so the predictions are the same bits on both sides (DESIGN §4);
* a random method of iml with random arguments, avoiding only the inputs where iml 0.11.4
  errors or is wrong on purpose of docs/differences.md (spec §18): categorical ALE with an
  unused level, integer × categorical 2-D ALE, ordered factors in LocalModel, grid points
  outside the data. Not avoided, being rare in random data: categorical ALE whose levels all
  have the same distribution of the other features, where iml's results are NA (such a case
  fails; seed 970068 of ``--chains``).

In one case (or chain) in four with the random model, some numeric and string columns reach pyiml in
pandas' nullable dtypes (``Float64``, ``Int64``, ``string``; R gets the same values as always),
drawn from a fifth stream.

Random methods run under ``RRandom(seed)`` and ``set.seed(seed)``. Results are compared with
:func:`parity.harness.compare_frames` (columns, row order, levels, labels and values).

``python -m parity.fuzz --chains`` draws chains instead: 2-4 random method calls on one data set
under one ``RRandom(seed)`` and one ``set.seed(seed)`` in R, so each method must also leave R's
session generator where iml leaves it.

``python -m parity.fuzz --r-models`` replaces the model by an R model fitted in R to the case's
data (``lm``, sometimes with an interaction; ``rpart``; ``randomForest``; ``ranger``;
``e1071::svm``; ``nnet::multinom``; a logistic ``glm``; probabilities or, for rpart, class
labels), which pyiml calls through ``r_bridge.RModel`` and R's
iml directly: the path of an R model explained from Python, with R's own factor and integer
handling and ``predict`` methods on both sides.

``python -m parity.fuzz --cases 200`` runs many cases and prints each failure's recipe;
``tests/test_parity_fuzz.py`` runs a fixed set of seeds in ``make test``.
"""
from __future__ import annotations

import argparse
import math
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

__all__ = ["FuzzCase", "make_case", "run_case", "main"]

METHODS = ("FeatureEffect", "FeatureEffects", "FeatureImp", "Shapley", "Interaction", "LocalModel",
           "TreeSurrogate")

REGRESSION_LOSSES = ("mae", "mse", "rmse", "mape", "mdae", "msle", "rmsle", "percent_bias", "rae", "rrse",
                     "rse", "smape")
CLASSIFICATION_LOSSES = ("ce", "f1")


# ---------------------------------------------------------------------------- the model
@dataclass
class RandomModel:
    """``f(newdata)``: main effects, per-level effects and one interaction; optionally a
    softmax over ``len(classes)`` linear predictors (then a frame of class probabilities)."""

    kinds: Dict[str, str]
    coef: Dict[str, np.ndarray]            # per output: numeric slope(s) or per-level effects
    levels: Dict[str, List[str]]
    pair: Optional[tuple]
    classes: Optional[List[str]] = None

    def _linear(self, df: pd.DataFrame, j: int) -> np.ndarray:
        out = np.zeros(len(df))
        for c, kind in self.kinds.items():
            co = self.coef[c][j]
            if kind in ("categorical", "ordered"):
                codes = pd.Categorical(df[c].astype(str), categories=self.levels[c]).codes
                out = out + np.asarray(co)[np.asarray(codes)]
            else:
                x = df[c].to_numpy(dtype=float)
                out = out + co[0] * x + co[1] * x * x
        if self.pair is not None:
            a, b, w = self.pair
            xa = self._as_number(df, a)
            xb = self._as_number(df, b)
            out = out + w[j] * xa * xb
        return out

    def _as_number(self, df, c):
        if self.kinds[c] in ("categorical", "ordered"):
            return np.asarray(pd.Categorical(df[c].astype(str), categories=self.levels[c]).codes, dtype=float)
        return df[c].to_numpy(dtype=float)

    def __call__(self, df: pd.DataFrame):
        if self.classes is None:
            return self._linear(df, 0)
        eta = np.column_stack([self._linear(df, j) / 3.0 for j in range(len(self.classes))])
        eta = eta - eta.max(axis=1, keepdims=True)
        p = np.exp(eta)
        p = p / p.sum(axis=1, keepdims=True)
        return pd.DataFrame(p, columns=self.classes)


# ---------------------------------------------------------------------------- the case
@dataclass
class FuzzCase:
    seed: int
    data: pd.DataFrame
    y: Optional[str]
    model: Any                  # a RandomModel, or a fitted scikit-learn pipeline
    method: str
    params: Dict[str, Any]
    predictor: Dict[str, Any] = field(default_factory=dict)
    rseed: Optional[int] = None
    tolerance: float = 1e-9
    calls: List[Dict[str, Any]] = field(default_factory=list)
    nullable: List[str] = field(default_factory=list)   # columns pyiml gets in pandas' nullable dtypes
    model_text: Optional[str] = None    # an R model's code (``--r-models``)

    def _shown(self) -> dict:
        return {k: (f"<{len(v)} rows>" if isinstance(v, pd.DataFrame) else v) for k, v in self.params.items()}

    def call_text(self) -> str:
        """The method, its arguments and follow-up calls."""
        return f"{self.method}({self._shown()})" + (f" calls={[c['method'] for c in self.calls]}" if self.calls else "")

    def recipe(self) -> str:
        calls = [c["method"] for c in self.calls]
        return (f"seed={self.seed} {self.method} "
                f"{_data_text(self.data, self.y, self.model, self.nullable, self.model_text)} "
                f"predictor={self.predictor} params={self._shown()} rseed={self.rseed} calls={calls}")


def _data_text(data: pd.DataFrame, y: str, model, nullable=(), model_text: Optional[str] = None) -> str:
    """Rows, feature dtypes (pyiml's, where they are nullable) and the kind of model, for a recipe."""
    py_data = _py_data(data, nullable)
    kinds = ", ".join(f"{c}:{v.dtype}" for c, v in py_data.drop(columns=y).items())
    if model_text is not None:
        out = "R " + model_text
    elif isinstance(model, RandomModel):
        out = "multi" + str(model.classes) if model.classes else "single"
    else:
        out = "sklearn " + type(model[-1]).__name__
    return f"n={len(data)} [{kinds}] {out}"


_NULLABLE = {"float64": "Float64", "int64": "Int64", "object": "string"}


def _nullable_columns(stream: np.random.Generator, X: pd.DataFrame, model) -> List[str]:
    """In one case in four with the random model or an R model: numeric and string columns that
    pyiml gets as pandas' nullable ``Float64``, ``Int64`` and ``string`` (R gets the same values
    as always)."""
    if not (isinstance(model, RandomModel) or _is_r_model(model)) or stream.uniform() >= 0.25:
        return []
    return [c for c in X.columns if str(X[c].dtype) in _NULLABLE and stream.uniform() < 0.6]


def _py_data(data: pd.DataFrame, nullable) -> pd.DataFrame:
    """The data as pyiml gets it: the ``nullable`` columns converted."""
    if not nullable:
        return data
    return data.assign(**{c: data[c].astype(_NULLABLE[str(data[c].dtype)]) for c in nullable})


def _random_data(rng: np.random.Generator, allow_ordered: bool = True, allow_unused: bool = True,
                 allow_string: bool = True, n: Optional[int] = None,
                 wide: Optional[np.random.Generator] = None):
    """Random features (``wide``: an optional third stream that sometimes gives a numerical
    column a magnitude of 1e-5 to 1e7 and an integer column an offset, so that R's number
    formatting and glmnet's standardisation see more than unit scales)."""
    n_small = int(rng.integers(12, 91))   # drawn in any case: the draws after it stay the same
    n = n_small if n is None else n
    p = int(rng.integers(2, 6))
    kinds_pool = (["num", "ties", "integer", "categorical"] + (["string"] if allow_string else [])
                  + (["ordered"] if allow_ordered else []))
    cols: Dict[str, Any] = {}
    kinds: Dict[str, str] = {}
    levels: Dict[str, List[str]] = {}
    for j in range(p):
        kind = str(rng.choice(kinds_pool))
        name = f"{kind[:3]}{j}"
        if kind == "num":
            cols[name] = rng.normal(size=n) * float(rng.choice([1.0, 10.0, 0.1]))
            if wide is not None and wide.uniform() < 0.25:
                cols[name] = cols[name] * float(wide.choice([1e-5, 1e-3, 1e3, 1e5, 1e7]))
        elif kind == "ties":
            cols[name] = rng.choice(np.round(rng.normal(size=int(rng.integers(2, 7))), 2), size=n)
        elif kind == "integer":
            cols[name] = rng.integers(0, int(rng.integers(2, 12)), size=n).astype("int64")
            if wide is not None and wide.uniform() < 0.25:
                cols[name] = cols[name] + int(wide.choice([-7, 1000, 123456]))
        else:
            K = int(rng.integers(2, 5))
            levs = [f"L{chr(ord('a') + i)}" for i in rng.permutation(K)]
            vals = rng.choice(levs, size=n)
            vals[:K] = levs                                     # every level occurs
            cats = list(levs)
            if kind == "categorical" and allow_unused and rng.uniform() < 0.25:
                cats = cats + ["Lzz"]
            if kind == "string":       # an R character column: categorical with sorted levels
                cols[name] = vals.astype(object)
                cats = sorted(levs)
            else:
                cols[name] = pd.Categorical(vals, categories=cats, ordered=(kind == "ordered"))
            levels[name] = cats
        if kind in ("ties", "integer") and np.unique(cols[name]).size < 2:
            # a constant feature: pyiml refuses any effect of it, iml only a one-feature effect
            # (docs/differences.md); make it vary without another draw
            cols[name] = cols[name].copy()
            cols[name][0] += 1
        kinds[name] = {"num": "numerical", "ties": "numerical", "string": "categorical"}.get(kind, kind)
    return pd.DataFrame(cols), kinds, levels


def _random_model(rng, kinds, levels, n_out: Optional[int]) -> RandomModel:
    k = n_out or 1
    coef = {}
    for c, kind in kinds.items():
        if kind in ("categorical", "ordered"):
            coef[c] = [np.round(rng.normal(size=len(levels[c])), 3) for _ in range(k)]
        else:
            coef[c] = [np.round(rng.normal(size=2) * [1.0, float(rng.uniform() < 0.5)], 3) for _ in range(k)]
    pair = None
    names = list(kinds)
    if len(names) >= 2 and rng.uniform() < 0.7:
        a, b = rng.choice(names, size=2, replace=False)
        pair = (str(a), str(b), np.round(rng.normal(size=k), 3))
    classes = [f"c{i}" for i in range(n_out)] if n_out else None
    return RandomModel(kinds, coef, levels, pair, classes)


def _sklearn_model(rng, X, kinds, y, multi: bool):
    """A scikit-learn pipeline (one-hot encoding of the categorical features, then a tree,
    a boosted ensemble or a linear model) fitted to ``y``; both sides call it."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    cats = [c for c, k in kinds.items() if k in ("categorical", "ordered")]
    enc = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), cats)], remainder="passthrough")
    kind = int(rng.integers(0, 2))
    if multi:
        est = DecisionTreeClassifier(max_depth=3, random_state=0) if kind else LogisticRegression(max_iter=500)
        target = np.asarray(y.astype(str))
    else:
        est = (DecisionTreeRegressor(max_depth=3, random_state=0) if kind
               else GradientBoostingRegressor(n_estimators=10, max_depth=2, random_state=0)
               if rng.uniform() < 0.5 else LinearRegression())
        target = np.asarray(y, dtype=float)
    return make_pipeline(enc, est).fit(X, target)


def _is_r_model(model) -> bool:
    return type(model).__name__ == "RModel"


def _r_model(stream: np.random.Generator, data: pd.DataFrame, y: str, multi: bool,
             glm_stream: Optional[np.random.Generator] = None, more_stream: Optional[np.random.Generator] = None):
    """An R model fitted in R to ``data`` (``--r-models``), drawn from ``stream``: regression
    ``lm`` (sometimes with one interaction), ``rpart`` or ``randomForest``; classification
    ``rpart`` (probabilities, or labels where every class is predicted for some row),
    ``randomForest`` (probabilities) or ``nnet::multinom`` (3 or more classes); with two classes,
    in three cases of ten drawn from ``glm_stream``, a logistic ``glm`` whose one output is the
    probability of the second class (``type = "response"``); without character columns, drawn
    from ``more_stream``: ``ranger`` (probabilities for classes) predicted through
    ``predict(model, newdata, seed = 1)$predictions`` (docs/differences.md: ranger's ``predict``
    draws from R's generator without a seed) in three cases of twenty, and for regression
    ``e1071::svm`` (which reads factor codes) in as many. Both sides call
    the same R object: pyiml through ``r_bridge.RModel``, R's iml directly. Returns
    ``(RModel, its code, data)``; a class target loses its unused categories (R's classifiers
    would carry empty classes). No randomForest with character columns (it refuses them). None
    where a class target has a single class (tiny data): no R classifier fits that. Expected
    ``r-error`` cases: ``multinom`` predicts one row as a vector, which stops iml wherever it
    predicts one row (Shapley's point, Interaction's first call; docs/differences.md)."""
    from r_bridge import RModel, convert, session

    data = data.copy()
    if multi:
        data[y] = data[y].cat.remove_unused_categories()
        if len(data[y].cat.categories) < 2:
            return None
    feats = [c for c in data.columns if c != y]
    strings = any(data[c].dtype == object for c in feats)
    if multi:
        kinds = ["rpart", "rpart"] + ([] if strings else ["randomForest"]) + (
            ["multinom"] if len(data[y].cat.categories) >= 3 else [])
    else:
        kinds = ["lm", "lm", "rpart"] + ([] if strings else ["randomForest"])
    kind = str(stream.choice(kinds))
    if multi and len(data[y].cat.categories) == 2 and glm_stream is not None and glm_stream.uniform() < 0.3:
        kind = "glm"
    if more_stream is not None and not strings:
        u = more_stream.uniform()
        kind = "ranger" if u < 0.15 else ("svm" if u < 0.3 and not multi else kind)
    packages: tuple = ()
    type_ = None
    predict_function = None
    if kind == "lm":
        rhs = "."
        if len(feats) >= 2 and stream.uniform() < 0.5:
            a, b = (str(v) for v in stream.choice(feats, size=2, replace=False))
            rhs = f". + {a}:{b}"
        code = f"lm({y} ~ {rhs}, data = d)"
    elif kind == "glm":
        code = f"glm({y} ~ ., family = binomial, data = d)"
        type_ = "response"
    elif kind == "rpart":
        packages = ("rpart",)
        code = f"rpart::rpart({y} ~ ., data = d, control = rpart::rpart.control(cp = 0.01, minsplit = 6))"
        type_ = "prob" if multi else None
    elif kind == "randomForest":
        packages = ("randomForest",)
        code = f"{{set.seed({int(stream.integers(1, 1000))}); randomForest::randomForest({y} ~ ., data = d, ntree = 15)}}"
        type_ = "prob" if multi else None
    elif kind == "ranger":
        packages = ("ranger",)
        prob = ", probability = TRUE" if multi else ""
        code = f"ranger::ranger({y} ~ ., data = d, num.trees = 15{prob}, seed = {int(more_stream.integers(1, 1000))})"
        predict_function = "function(model, newdata) predict(model, newdata, seed = 1)$predictions"
    elif kind == "svm":
        packages = ("e1071",)
        code = f"e1071::svm({y} ~ ., data = d)"
    else:
        packages = ("nnet",)
        code = f"nnet::multinom({y} ~ ., data = d, trace = FALSE)"
        type_ = "probs"
    session.require(packages)
    try:
        fit = session.r_eval(code, d=convert.py2r(data))
    except session.RError:
        if kind not in ("ranger", "svm"):
            raise
        return None      # (e.g. svm on data it cannot scale)
    if kind == "rpart" and multi and stream.uniform() < 0.5:
        labels = np.asarray(convert.r2py(session.r_eval("as.character(predict(m, d, type = 'class'))",
                                                        m=fit, d=convert.py2r(data))))
        if set(labels) == {str(c) for c in data[y].cat.categories}:
            type_ = "class"
    text = code + (f" [type={type_}]" if type_ is not None else
                   " [predict(model, newdata, seed = 1)$predictions]" if predict_function is not None else "")
    return RModel(fit, predict_function=predict_function, type=type_, packages=packages), text, data


def _anchor(rng, col: np.ndarray) -> float:
    """A random centring value inside the feature's range: rounded to 2 decimals unless that
    leaves the range (pyiml raises for a center_at outside it, iml extends the grid)."""
    v = float(rng.uniform(col.min(), col.max()))
    r = float(np.round(v, 2))
    return r if col.min() <= r <= col.max() else v


def _numeric(kinds):
    return [c for c, k in kinds.items() if k in ("numerical", "integer")]


def _model_and_target(rng, X, kinds, levels, local_model: bool):
    """A random model (several class probabilities in three cases of ten), the data with its
    target ``y`` (the argmax class, or the prediction plus noise) and the Predictor arguments."""
    multi = rng.uniform() < 0.3
    n_out = int(rng.integers(2, 4)) if multi else None
    model = _random_model(rng, kinds, levels, n_out)
    data = X.copy()
    pred = model(X)
    predictor: Dict[str, Any] = {}
    if multi:
        probs = pred.to_numpy()
        data["y"] = pd.Categorical(np.asarray(model.classes)[probs.argmax(axis=1)], categories=model.classes)
        if rng.uniform() < 0.3:
            predictor["class_"] = str(rng.choice(model.classes))
        counts = np.bincount(probs.argmax(axis=1), minlength=len(model.classes))
        if local_model and counts.min() < 2:
            # glmnet refuses a multinomial fit with a class of 0-1 rows (pyiml too, or drops it)
            predictor["class_"] = model.classes[int(counts.argmax())]
    else:
        data["y"] = pred + rng.normal(scale=0.5, size=len(X))
    return multi, model, data, predictor


def make_case(seed: int, method: Optional[str] = None, rows: Optional[Tuple[int, int]] = None,
              r_models: bool = False) -> FuzzCase:
    """The random case of ``seed`` (optionally forcing the method; ``rows``: a number of rows
    drawn from ``rows[0]..rows[1]`` instead, from a stream of its own, the rest of the case as
    without it; ``r_models``: the model an R model fitted to the data (:func:`_r_model`), drawn
    from a stream of its own)."""
    rng = np.random.default_rng(seed)
    # draws added later come from a second stream, so the cases of earlier seeds stay the same
    extra = np.random.default_rng([seed, 7])
    method = method or str(rng.choice(METHODS))
    # one case in ten has 1,000-5,000 rows: the branches that only large data take (bucketed
    # order statistics from 4,096 values, the comparison-count interval lookup beyond 1,000)
    n_rows = int(extra.integers(1000, 5001)) if extra.uniform() < 0.1 else None
    # a third stream (added later still): tiny data (5-11 rows) in one case in twelve, and scales
    wide = np.random.default_rng([seed, 13])
    if wide.uniform() < 1 / 12 and n_rows is None:
        n_rows = int(wide.integers(5, 12))
    if rows is not None:
        n_rows = int(np.random.default_rng([seed, 29]).integers(rows[0], rows[1] + 1))
    # iml fails on: ordered factors in LocalModel, character features in TreeSurrogate (partykit)
    # and next to a categorical ALE feature (order_levels, spec §18.12); unused levels in ALE and
    # in TreeSurrogate with several outputs (docs/differences.md)
    fe_method = str(rng.choice(["ale", "pdp", "ice", "pdp+ice"]))
    X, kinds, levels = _random_data(rng, allow_ordered=method != "LocalModel",
                                    allow_unused=method not in ("FeatureEffect", "FeatureEffects", "TreeSurrogate"),
                                    allow_string=method != "TreeSurrogate" and not (
                                        method in ("FeatureEffect", "FeatureEffects") and fe_method == "ale"),
                                    n=n_rows, wide=wide)
    multi, model, data, predictor = _model_and_target(rng, X, kinds, levels, method == "LocalModel")
    if rng.uniform() < 0.3:   # (iml's Interaction skips rows with an odd batch.size: differences.md)
        predictor["batch_size"] = int(rng.choice([8, 50, 334] if method == "Interaction" else [7, 50, 333]))
    if rng.uniform() < 0.2 and data["y"].nunique() > 1:   # a scikit-learn pipeline fitted to the data
        model = _sklearn_model(rng, X, kinds, data["y"], multi)
        if predictor.get("class_") is not None and predictor["class_"] not in [str(c) for c in model.classes_]:
            predictor.pop("class_")
        if multi:
            fitted = [str(c) for c in model.classes_]
            if len(fitted) < len(data["y"].cat.categories):
                # a class the pipeline never saw: iml's FeatureImp fails on the differing level
                # sets of target and prediction columns (docs/differences.md)
                data["y"] = data["y"].cat.remove_unused_categories()
            counts = np.bincount(model.predict_proba(X).argmax(axis=1), minlength=len(fitted))
            if method == "LocalModel" and counts.min() < 2 and "class_" not in predictor:
                # as for the random model: a class of 0-1 argmax rows stops glmnet in R
                predictor["class_"] = fitted[int(counts.argmax())]
    model_text = None
    swap = _with_r_model(seed, data, multi, predictor, method == "LocalModel") if r_models else None
    if swap is not None:
        model, model_text, data, predictor = swap
    # a fourth stream (added later still): ALE grid points, FeatureEffects' center_at, class predictions
    more = np.random.default_rng([seed, 17])
    params, calls, rseed = _method_arguments(rng, extra, method, fe_method, X, kinds, multi, more=more)
    # a fifth stream: pandas' nullable dtypes on pyiml's side
    nullable = _nullable_columns(np.random.default_rng([seed, 19]), X, model)
    return FuzzCase(seed, data, "y", model, method, params, predictor, rseed, calls=calls, nullable=nullable,
                    model_text=model_text)


def _with_r_model(seed: int, data: pd.DataFrame, multi: bool, predictor: Dict[str, Any], local_model: bool):
    """``(R model, its code, data, Predictor arguments)`` replacing a case's model (``--r-models``;
    the sixth to eighth streams of ``seed``), or None where the case keeps its own model (see
    :func:`_r_model` and :func:`_fit_class`)."""
    fitted = _r_model(np.random.default_rng([seed, 31]), data, "y", multi, np.random.default_rng([seed, 37]),
                      np.random.default_rng([seed, 41]))
    if fitted is None:
        return None
    model, text, data = fitted
    predictor = _fit_class(predictor, model, data.drop(columns="y"), local_model)
    return None if predictor is None else (model, text, data, predictor)


def _fit_class(predictor: Dict[str, Any], model, X: pd.DataFrame, local_model: bool) -> Optional[Dict[str, Any]]:
    """The Predictor arguments for an R model: ``class_`` kept only when it names one of the
    model's output columns; for LocalModel, the most frequent predicted class where a class is
    the most probable one of fewer than two rows (glmnet's multinomial fit refuses it). None for
    LocalModel when the explained output is the same for every row (an rpart tree without a
    split): pyiml refuses that on purpose where iml fits rounding noise (docs/differences.md)."""
    predictor = dict(predictor)
    out = model._pyiml_predict(X)
    cols = [str(c) for c in out.columns]
    if predictor.get("class_") is not None and predictor["class_"] not in cols:
        predictor.pop("class_")
    if local_model and len(cols) > 1 and "class_" not in predictor:
        counts = np.bincount(out.to_numpy(dtype=float).argmax(axis=1), minlength=len(cols))
        if counts.min() < 2:
            predictor["class_"] = cols[int(counts.argmax())]
    if local_model:
        explained = out[[predictor["class_"]]] if predictor.get("class_") is not None else out
        vals = explained.to_numpy(dtype=float)
        if (vals == vals[0]).all():
            return None
    return predictor


def _method_arguments(rng, extra, method: str, fe_method: str, X: pd.DataFrame, kinds, multi: bool, more=None):
    """Random arguments of ``method`` on the features ``X`` (``extra``: the second stream;
    ``more``, the fourth, or None for none of its draws), follow-up calls, and the seed (None for
    methods that draw nothing)."""
    feats = list(X.columns)
    params: Dict[str, Any] = {}
    calls: List[Dict[str, Any]] = []
    rseed = int(rng.integers(1, 10_000))

    def row():
        return X.iloc[[int(rng.integers(0, len(X)))]].reset_index(drop=True)

    if method == "FeatureEffect":
        m = fe_method
        two = m in ("ale", "pdp") and rng.uniform() < 0.4
        if two:
            f = [str(v) for v in rng.choice(feats, size=2, replace=False)]
            cat = [kinds[c] in ("categorical", "ordered") for c in f]
            if m == "ale" and all(cat):
                two = False      # iml: "ALE for two categorical features is not yet implemented."
            if m == "ale" and cat[1] and kinds[f[0]] == "integer":
                f = f[::-1]      # iml errors on integer x categorical 2-D ALE (spec §18.4)
        if two:
            params["feature"] = f
        else:
            params["feature"] = str(rng.choice(feats))
        params["method"] = m
        params["grid_size"] = int(rng.integers(2, 25))
        f1 = params["feature"] if isinstance(params["feature"], str) else None
        if m != "ale" and f1 is not None and kinds[f1] in ("numerical", "integer") and rng.uniform() < 0.3:
            col = X[f1].to_numpy(dtype=float)
            params["center_at"] = _anchor(rng, col)
        if (f1 is not None and kinds[f1] in ("numerical", "integer") and m != "ale" and "center_at" not in params
                and rng.uniform() < 0.2):   # (iml gives empty results for an anchor outside grid points)
            col = X[f1].to_numpy(dtype=float)
            params["grid_points"] = sorted(set(np.round(rng.uniform(col.min(), col.max(), size=4), 2).tolist()))
            params.pop("grid_size")
        if more is not None and m == "ale" and f1 is not None and kinds[f1] in ("numerical", "integer") \
                and more.uniform() < 0.25:
            # ALE grid points that cover the data, each interval holding data (its upper end is a
            # data value): iml's results (docs/differences.md: other grid points differ on purpose)
            vals = np.unique(X[f1].to_numpy(dtype=float))
            if vals.size >= 3:
                inner = more.choice(vals[1:-1], size=min(int(more.integers(1, 4)), vals.size - 2), replace=False)
                params["grid_points"] = sorted({float(vals[0]), float(vals[-1]), *(float(v) for v in inner)})
                params.pop("grid_size")
        rseed = rseed if m != "ale" else None
    elif method == "FeatureEffects":
        params["method"] = fe_method
        if rng.uniform() < 0.5:
            params["features"] = [str(v) for v in rng.choice(feats, size=int(rng.integers(1, len(feats) + 1)),
                                                             replace=False)]
        params["grid_size"] = int(rng.integers(2, 15))
        sel = params.get("features", feats)
        if more is not None and fe_method != "ale" and more.uniform() < 0.3 \
                and all(kinds[c] in ("numerical", "integer") for c in sel):
            # (ALE: iml ignores center.at; categorical features or an anchor outside a feature's
            # range: documented differences)
            lo, hi = max(float(X[c].min()) for c in sel), min(float(X[c].max()) for c in sel)
            if lo < hi:
                params["center_at"] = float(more.uniform(lo, hi))
    elif method == "FeatureImp":
        if multi:
            params["loss"] = str(rng.choice(CLASSIFICATION_LOSSES))
        else:
            params["loss"] = str(rng.choice(REGRESSION_LOSSES))
            if params["loss"] in ("msle", "rmsle"):
                params["loss"] = "mae"                 # log losses need positive targets
        params["compare"] = str(rng.choice(["ratio", "difference"]))
        params["n_repetitions"] = int(rng.choice([1, 2, 5, 7]))
        if rng.uniform() < 0.3 and len(feats) >= 3:
            params["features"] = {"g1": feats[:2], "g2": [feats[2]]}
    elif method == "Shapley":
        params["x_interest"] = row()
        params["sample_size"] = int(rng.integers(1, 40))
    elif method == "Interaction":
        params["grid_size"] = int(rng.integers(2, 12))
        if len(X) <= 40 and extra.uniform() < 0.25:   # the grid is every row (iml: min(grid.size, n))
            params["grid_size"] = len(X) + int(extra.integers(0, 3))
        if rng.uniform() < 0.5:
            params["feature"] = str(rng.choice(feats))
    elif method == "LocalModel":
        params["x_interest"] = row()
        params["k"] = int(rng.integers(1, len(feats) + 1))
        dist = str(rng.choice(["gower", "gower", "euclidean", "manhattan"]))
        if dist != "gower":
            if any(kinds[c] in ("categorical", "ordered") for c in feats):
                dist = "gower"
            else:
                params["dist_fun"] = dist
                params["kernel_width"] = float(rng.choice([0.5, 1.0, 3.0]))
        if dist == "gower" and rng.uniform() < 0.3:
            params["gower_power"] = float(rng.choice([0.5, 2.0]))
    elif method == "TreeSurrogate":
        params["maxdepth"] = int(rng.integers(1, 4))
        if rng.uniform() < 0.3:
            params["tree_args"] = {"minbucket": int(rng.integers(2, 10))}
    if rng.uniform() < 0.35:
        calls = _random_calls(rng, method, params, X, kinds, row)
        if more is not None and method == "TreeSurrogate" and multi and more.uniform() < 0.5:
            calls[0]["args"]["type"] = "class"
    if method in ("LocalModel", "TreeSurrogate"):
        rseed = None
    return params, calls, rseed


def _random_calls(rng, method, params, X, kinds, row) -> List[Dict[str, Any]]:
    """Follow-up method calls; ``compare`` says whether the return value or the results after
    the call are compared."""
    feats = list(X.columns)
    rows = X.iloc[np.sort(rng.choice(len(X), size=min(5, len(X)), replace=False))].reset_index(drop=True)
    if method == "FeatureEffect":
        f = params["feature"]
        m = params["method"]
        if isinstance(f, str) and kinds[f] != "categorical" and kinds[f] != "ordered":
            col = X[f].to_numpy(dtype=float)
            choice = rng.integers(0, 3)
            if choice == 0 and m != "ale" and "grid_points" not in params:
                return [{"method": "center", "args": {"center_at": _anchor(rng, col)},
                         "compare": "results"}]
            if choice == 1 and m in ("ale", "pdp"):
                return [{"method": "predict", "args": {"data": rows}, "compare": "return"}]
        if isinstance(f, str) and m != "ale":
            # (center_at on a categorical feature: iml gives all-zero values, pyiml raises)
            # (and outside the feature's range: pyiml raises, iml extends the grid)
            pool = [c for c in feats if "center_at" not in params or (
                kinds[c] in ("numerical", "integer")
                and X[c].min() <= params["center_at"] <= X[c].max())]
            if "grid_points" in params:
                # the grid points stay and must suit the new feature: numbers for a numerical or
                # integer one (iml puts numbers into a factor column; pyiml raises, as for any
                # grid_points that do not fit: docs/differences.md)
                numeric = ("numerical", "integer")
                pool = [c for c in pool if kinds[c] in numeric] if kinds[f] in numeric else [f]
            other = str(rng.choice(pool))
            return [{"method": "set.feature", "args": {"feature": other}, "compare": "results"}]
        return []
    if method in ("Shapley", "LocalModel"):
        out = [{"method": "explain", "args": {"x_interest": row()}, "compare": "results"}]
        if method == "LocalModel":
            out.append({"method": "predict", "args": {"newdata": rows}, "compare": "return"})
        return out
    if method == "TreeSurrogate":
        return [{"method": "predict", "args": {"newdata": rows}, "compare": "return"}]
    return []


# ---------------------------------------------------------------------------- running
@dataclass
class FuzzResult:
    case: FuzzCase
    status: str            # "pass", "FAIL", "both-error", "r-error", "py-error"
    max_abs_diff: float = 0.0
    scale: float = 1.0
    detail: str = ""


def run_case(case: FuzzCase) -> FuzzResult:
    """Run ``case`` in pyiml and in R's iml (the parity harness's two sides); compare."""
    import pyiml

    from .fixtures import ModelPair
    from .harness import Spec, py_outputs, r_outputs

    spec = Spec(name=f"fuzz{case.seed}", method=case.method, seed=case.rseed, tolerance=case.tolerance,
                params=case.params, calls=case.calls)
    features = case.data.drop(columns=case.y)
    how = ({"model": case.model} if hasattr(case.model, "predict") or _is_r_model(case.model)
           else {"predict_function": case.model})
    py_err = r_err = None
    py, r = {}, {}
    try:
        py_data = _py_data(case.data, case.nullable)
        py = py_outputs(spec, pyiml.Predictor(data=py_data, y=case.y, **how, **case.predictor),
                        py_data.drop(columns=case.y))
    except Exception as exc:
        py_err = f"{type(exc).__name__}: {exc}"
    try:
        pair = ModelPair(how, {"model": case.model}, data="fuzz", y=case.y)
        r = r_outputs(spec, pair, case.data, case.y, case.predictor, features)
    except Exception as exc:
        r_err = f"{type(exc).__name__}: {str(exc)[:300]}"
    return _verdict(case, py, r, py_err, r_err, case.tolerance, case.method)


def _verdict(case: FuzzCase, py: dict, r: dict, py_err, r_err, tolerance: float, what: str) -> FuzzResult:
    """Compare what both sides gave (the outputs they completed) and classify the case: an
    error on one side only, or on both sides at different calls, is not a pass."""
    from .harness import _compare_values

    if py_err and r_err and list(py) != list(r):
        return FuzzResult(case, "FAIL", detail=f"the sides fail at different calls: pyiml: {py_err} | R: {r_err}")
    if r_err and not py_err:
        return FuzzResult(case, "r-error", detail=r_err)
    if py_err and not r_err:
        return FuzzResult(case, "py-error", detail=py_err)
    d, s, problems = _compare_values(py, r, what)
    ok = not problems and d <= tolerance * s
    if ok and py_err:
        return FuzzResult(case, "both-error", detail=f"pyiml: {py_err} | R: {r_err}")
    if not ok and what == "chain":  # name the calls that differ (a chain's outputs are keyed by call)
        differ = []
        for name in py:
            if name in r:
                dk, sk, pk = _compare_values(py[name], r[name], what)
                if pk or dk > tolerance * sk:
                    differ.append(f"{name} (diff {dk:.3g})")
        problems = problems + [f"differing: {', '.join(differ)}"] if differ else problems
    return FuzzResult(case, "pass" if ok else "FAIL", d, s, "; ".join(problems))


# ---------------------------------------------------------------------------- chains
@dataclass
class ChainCase:
    """2-4 random method calls on one data set and model, run one after the other under one
    ``RRandom(rseed)`` in pyiml and after one ``set.seed(rseed)`` in R: each method must draw
    as iml draws and leave the generator where iml leaves it, or the next call differs."""

    seed: int
    data: pd.DataFrame
    y: str
    model: Any
    predictor: Dict[str, Any]
    steps: List[FuzzCase]
    rseed: int
    tolerance: float = 1e-9
    nullable: List[str] = field(default_factory=list)   # columns pyiml gets in pandas' nullable dtypes
    model_text: Optional[str] = None    # an R model's code (``--r-models``)

    def recipe(self) -> str:
        steps = " -> ".join(s.call_text() for s in self.steps)
        return (f"chain seed={self.seed} {_data_text(self.data, self.y, self.model, self.nullable, self.model_text)} "
                f"predictor={self.predictor} rseed={self.rseed}: {steps}")


def make_chain(seed: int, r_models: bool = False) -> ChainCase:
    """The random chain of ``seed``: random data without the inputs some method refuses
    (ordered factors, strings, unused levels), a random model (``r_models``: an R model fitted to
    the data, :func:`_r_model`), and 2-4 random method calls."""
    rng = np.random.default_rng([seed, 11])
    methods = [str(rng.choice(METHODS)) for _ in range(int(rng.integers(2, 5)))]
    fe_methods = [str(rng.choice(["ale", "pdp", "ice", "pdp+ice"])) for _ in methods]
    X, kinds, levels = _random_data(rng, allow_ordered="LocalModel" not in methods, allow_unused=False,
                                    allow_string=False)
    multi, model, data, predictor = _model_and_target(rng, X, kinds, levels, "LocalModel" in methods)
    model_text = None
    swap = _with_r_model(seed, data, multi, predictor, "LocalModel" in methods) if r_models else None
    if swap is not None:
        model, model_text, data, predictor = swap
    if rng.uniform() < 0.3:
        predictor["batch_size"] = int(rng.choice([8, 50, 334]))
    steps = []
    for m, fm in zip(methods, fe_methods):
        params, calls, _ = _method_arguments(rng, rng, m, fm, X, kinds, multi)
        steps.append(FuzzCase(seed, data, "y", model, m, params, predictor, None, calls=calls))
    rseed = int(rng.integers(1, 10_000))
    return ChainCase(seed, data, "y", model, predictor, steps, rseed,
                     nullable=_nullable_columns(np.random.default_rng([seed, 19]), X, model), model_text=model_text)


def run_chain(chain: ChainCase) -> FuzzResult:
    """Run the chain's calls in pyiml (one ``RRandom``) and in R (one ``set.seed``); compare
    every call's results."""
    import pyiml
    from r_bridge import session

    from .fixtures import ModelPair
    from .harness import Spec, py_outputs, r_outputs

    features = chain.data.drop(columns=chain.y)
    py_data = _py_data(chain.data, chain.nullable)
    how = {"model": chain.model} if _is_r_model(chain.model) else {"predict_function": chain.model}
    specs = [Spec(name=f"chain{chain.seed}-{i + 1}-{s.method}", method=s.method, seed=None, tolerance=chain.tolerance,
                  params=s.params, calls=s.calls) for i, s in enumerate(chain.steps)]
    py_err = r_err = None
    py, r = {}, {}
    spec = specs[0]
    try:
        rs = pyiml.RRandom(chain.rseed)
        p = pyiml.Predictor(data=py_data, y=chain.y, **how, **chain.predictor)
        for spec in specs:
            py[spec.name] = py_outputs(spec, p, py_data.drop(columns=chain.y), random_state=rs)
    except Exception as exc:
        py_err = f"{spec.name}: {type(exc).__name__}: {exc}"
    try:
        pair = ModelPair(how, {"model": chain.model}, data="fuzz", y=chain.y)
        session.r_eval(f"set.seed({chain.rseed})")
        for spec in specs:
            r[spec.name] = r_outputs(spec, pair, chain.data, chain.y, chain.predictor, features)
    except Exception as exc:
        r_err = f"{spec.name}: {type(exc).__name__}: {str(exc)[:300]}"
    return _verdict(chain.steps[0], py, r, py_err, r_err, chain.tolerance, "chain")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parity.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--method", default=None, choices=METHODS)
    ap.add_argument("--chains", action="store_true",
                    help="chains of 2-4 calls under one seed instead of single calls")
    ap.add_argument("--rows", type=int, nargs=2, metavar=("MIN", "MAX"), default=None,
                    help="every (single) case with MIN-MAX rows, e.g. 4096 30000 for the paths of large data "
                         "(ALE's grid and intervals from one bucket pass)")
    ap.add_argument("--r-models", action="store_true",
                    help="the model an R model fitted to the case's data (lm, logistic glm, rpart, randomForest, "
                         "ranger, e1071::svm, nnet::multinom), "
                         "which pyiml calls through r_bridge.RModel and R's iml directly")
    ap.add_argument("--tolerance", type=float, default=None,
                    help="relative tolerance instead of 1e-9 (0: the sides must agree to the bit)")
    ap.add_argument("-v", action="store_true", help="print every case, not only failures")
    args = ap.parse_args(argv)
    counts: Dict[str, int] = {}
    for seed in range(args.start, args.start + args.cases):
        try:
            case = (make_chain(seed, r_models=args.r_models) if args.chains
                    else make_case(seed, args.method, rows=args.rows, r_models=args.r_models))
            if args.tolerance is not None:
                case.tolerance = args.tolerance
            res = run_chain(case) if args.chains else run_case(case)
        except Exception:
            print(f"seed={seed}: harness error\n{traceback.format_exc()}")
            counts["harness"] = counts.get("harness", 0) + 1
            continue
        counts[res.status] = counts.get(res.status, 0) + 1
        if res.status != "pass" or args.v:
            print(f"{res.status:10} {case.recipe()}\n           diff {res.max_abs_diff:.3g} (scale {res.scale:.3g}) "
                  f"{res.detail[:400]}", flush=True)
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("FAIL") or counts.get("py-error") or counts.get("harness") else 0


if __name__ == "__main__":
    sys.exit(main())
