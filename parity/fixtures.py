"""Data sets and models that both sides of a parity spec use.

A model is "the same model" on both sides (DESIGN §4): a closed-form function written in both
languages, an R model called from Python through ``r_bridge.RModel``, or a Python model called
from R through ``r_bridge.as_r_predict_function``. Each model factory returns a
:class:`ModelPair` with the Python ``Predictor`` arguments and the R ``Predictor`` arguments.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Dict

import numpy as np
import pandas as pd

__all__ = ["dataset", "model_pair", "ModelPair", "DATASETS", "MODELS"]


# ---------------------------------------------------------------------------- data sets
def _r_dataset(expr: str) -> pd.DataFrame:
    from r_bridge import convert, session

    session.require(["MASS"])
    return convert.r2py(session.r_eval(expr))


def _friedman1(n: int = 300, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 10))
    df = pd.DataFrame(X, columns=[f"x{i + 1}" for i in range(10)])
    df["y"] = _friedman1_f(df) + rng.normal(scale=1.0, size=n)
    return df


def _friedman1_f(df: pd.DataFrame) -> np.ndarray:
    return (10 * np.sin(np.pi * df["x1"].to_numpy() * df["x2"].to_numpy())
            + 20 * (df["x3"].to_numpy() - 0.5) ** 2 + 10 * df["x4"].to_numpy() + 5 * df["x5"].to_numpy())


_FRIEDMAN1_R = """function(newdata) 10 * sin(pi * newdata$x1 * newdata$x2) + 20 * (newdata$x3 - 0.5)^2 +
  10 * newdata$x4 + 5 * newdata$x5"""


def _mixed(n: int = 200, seed: int = 2) -> pd.DataFrame:
    """Numerical, integer, categorical (with an unused level) and ordered features, with ties."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "num": np.round(rng.normal(size=n), 2),
        "int": rng.integers(0, 8, size=n).astype("int64"),
        "cat": pd.Categorical(rng.choice(["a", "b", "c"], size=n), categories=["a", "b", "c", "unused"]),
        "ord": pd.Categorical(rng.choice(["low", "mid", "high"], size=n), categories=["low", "mid", "high"],
                              ordered=True),
        "u": rng.uniform(size=n),
    })
    df["y"] = _mixed_f(df) + rng.normal(scale=0.3, size=n)
    return df


def _mixed_f(df: pd.DataFrame) -> np.ndarray:
    num = df["num"].to_numpy(dtype=float)
    it = df["int"].to_numpy(dtype=float)
    cat = np.asarray(df["cat"].astype(str))
    ord_ = np.asarray(df["ord"].astype(str))
    return (num + 0.5 * it + 2.0 * (cat == "b") * num - 1.0 * (cat == "c") + 0.7 * (ord_ == "high")
            + 0.3 * (ord_ == "mid") * it + df["u"].to_numpy(dtype=float) ** 2)


def _friedman1_poly(df: pd.DataFrame) -> np.ndarray:
    """The polynomial terms of Friedman #1 (no sin: the same bits in numpy and R)."""
    return 20 * (df["x3"].to_numpy() - 0.5) ** 2 + 10 * df["x4"].to_numpy() + 5 * df["x5"].to_numpy()


_FRIEDMAN1_POLY_R = "function(newdata) 20 * (newdata$x3 - 0.5)^2 + 10 * newdata$x4 + 5 * newdata$x5"


def _friedman1_prob(df: pd.DataFrame) -> np.ndarray:
    """A probability from Friedman #1 (binary classification with a 0/1 target)."""
    return 1 / (1 + np.exp(-(_friedman1_f(df) - 14) / 3))


_FRIEDMAN1_PROB_R = "function(newdata) 1 / (1 + exp(-((%s)(newdata) - 14) / 3))" % _FRIEDMAN1_R


_MIXED_R = """function(newdata) {
  num <- as.numeric(newdata$num); it <- as.numeric(newdata$int)
  cat <- as.character(newdata$cat); ord <- as.character(newdata$ord)
  num + 0.5 * it + 2.0 * (cat == "b") * num - 1.0 * (cat == "c") + 0.7 * (ord == "high") +
    0.3 * (ord == "mid") * it + as.numeric(newdata$u)^2
}"""


@functools.lru_cache(maxsize=None)
def _dataset_cached(name: str) -> pd.DataFrame:
    if name == "boston":
        return _r_dataset("MASS::Boston")
    if name == "iris":
        return _r_dataset("datasets::iris")
    if name == "friedman1":
        return _friedman1()
    if name == "friedman1_small":
        return _friedman1(n=40, seed=3)
    if name == "friedman1_large":  # 4096+ rows: ALE finds its grid and intervals in one bucket pass
        return _friedman1(n=20_000, seed=11)
    if name == "friedman1_exact":  # the target is the polynomial model's output: error exactly 0
        d = _friedman1(n=40, seed=3)
        d["y"] = _friedman1_poly(d)
        return d
    if name == "friedman1_binary":
        d = _friedman1(n=40, seed=3)
        d["y"] = (d["y"] > d["y"].median()).astype(float)
        return d
    if name == "mixed":
        return _mixed()
    if name == "mixed_unordered":  # iml's LocalModel fails on ordered factors (recode, docs/differences.md)
        d = _mixed()
        d["ord"] = d["ord"].cat.as_unordered()
        return d
    if name in ("mixed_used", "mixed_used_large"):  # FeatureEffect: no unused level (iml's 2-D ALE misaligns them)
        d = _mixed() if name == "mixed_used" else _mixed(n=20_000, seed=12)
        d["cat"] = d["cat"].cat.remove_unused_categories()
        return d
    if name == "ties":
        return _ties()
    if name == "ties_na":  # missing values in t and z (a PDP/ICE grids the finite values: iml #80)
        d = _ties()
        d.loc[0:5, "z"] = np.nan
        d.loc[3:8, "t"] = np.nan
        return d
    if name == "lmfac":
        return _lmfac()
    if name == "lmfac_shuffled":  # columns not in formula order, an extra non-feature column w
        d = _lmfac()
        d["w"] = np.round(np.random.default_rng(6).uniform(size=len(d)), 2)
        return d[["n", "y", "w", "f", "x1"]]
    if name == "binary":
        return _binary()
    if name == "binary_factor":  # the same, the target a factor (levels no, yes)
        d = _binary()
        d["y"] = pd.Categorical(np.where(d["y"] == 1, "yes", "no"), categories=["no", "yes"])
        return d
    if name == "mixed_class":  # three classes cut from mixed's y
        d = _mixed()
        cut = np.quantile(d["y"], [1 / 3, 2 / 3])
        d["y"] = pd.Categorical(np.array(["lo", "mid", "hi"])[np.searchsorted(cut, d["y"])],
                                categories=["lo", "mid", "hi"])
        return d
    raise KeyError(f"unknown data set {name!r}; known: {sorted(DATASETS)}")


DATASETS = ("boston", "iris", "friedman1", "friedman1_small", "friedman1_large", "friedman1_binary", "friedman1_exact",
            "mixed", "mixed_unordered", "mixed_used", "mixed_used_large", "ties", "ties_na", "lmfac", "lmfac_shuffled", "binary", "binary_factor", "mixed_class")


def _lmfac(n: int = 60, seed: int = 5) -> pd.DataFrame:
    """A numeric, a factor and an integer feature, for lm(y ~ x1 * f + n)."""
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({
        "x1": np.round(rng.normal(size=n), 2),
        "f": pd.Categorical(rng.choice(["a", "b", "c"], size=n), categories=["a", "b", "c"]),
        "n": rng.integers(0, 6, size=n).astype("int64"),
    })
    d["y"] = (1 + d["x1"] + np.where(d["f"] == "b", 2 * d["x1"], 0) - (d["f"] == "c") + 0.3 * d["n"]
              + rng.normal(scale=0.5, size=n))
    return d


def _binary(n: int = 80, seed: int = 8) -> pd.DataFrame:
    """Two numeric features and a factor, a 0/1 target from a logistic model (for glm)."""
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({
        "x1": np.round(rng.normal(size=n), 2),
        "x2": np.round(rng.uniform(-1, 1, size=n), 2),
        "g": pd.Categorical(rng.choice(["u", "v", "w"], size=n), categories=["u", "v", "w"]),
    })
    eta = 0.5 + 1.5 * d["x1"] - d["x2"] + 1.0 * (d["g"] == "v") - 0.8 * (d["g"] == "w")
    d["y"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    return d


def _ties(n: int = 50, seed: int = 4) -> pd.DataFrame:
    """FeatureEffect: heavy ties and fewer distinct values than the default grid size of 20."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "t": rng.choice([0.0, 0.5, 1.0, 2.0], size=n, p=[0.4, 0.3, 0.2, 0.1]),
        "k": rng.integers(1, 4, size=n).astype("int64"),
        "g": pd.Categorical(rng.choice(["p", "q", "r"], size=n), categories=["r", "q", "p"]),
        "z": np.round(rng.uniform(size=n), 1),
    })
    df["y"] = _ties_f(df) + rng.normal(scale=0.1, size=n)
    return df


def _ties_f(df: pd.DataFrame) -> np.ndarray:
    t, z = df["t"].to_numpy(dtype=float), df["z"].to_numpy(dtype=float)
    k = df["k"].to_numpy(dtype=float)
    g = np.asarray(df["g"].astype(str))
    return t * z + 0.5 * k * t + 1.5 * (g == "q") * z - (g == "p") + np.sin(3 * z)


_TIES_R = """function(newdata) {
  t <- as.numeric(newdata$t); z <- as.numeric(newdata$z); k <- as.numeric(newdata$k)
  g <- as.character(newdata$g)
  t * z + 0.5 * k * t + 1.5 * (g == "q") * z - (g == "p") + sin(3 * z)
}"""


def _ties_na_f(df: pd.DataFrame) -> np.ndarray:
    """:func:`_ties_f` with a missing t or z read as 0 (a model that takes missing values)."""
    return _ties_f(df.assign(t=df["t"].fillna(0.0), z=df["z"].fillna(0.0)))


_TIES_NA_R = """function(newdata) {
  t <- as.numeric(newdata$t); z <- as.numeric(newdata$z); k <- as.numeric(newdata$k)
  t[is.na(t)] <- 0; z[is.na(z)] <- 0
  g <- as.character(newdata$g)
  t * z + 0.5 * k * t + 1.5 * (g == "q") * z - (g == "p") + sin(3 * z)
}"""


def dataset(name: str) -> pd.DataFrame:
    """A copy of the named data set."""
    return _dataset_cached(name).copy()


# ---------------------------------------------------------------------------- models
@dataclass
class ModelPair:
    """The Python side's ``Predictor`` keywords and the R side's ``r_predictor`` keywords."""

    py: Dict[str, Any]
    r: Dict[str, Any]
    data: str
    y: Any = None
    extra: Dict[str, Any] = field(default_factory=dict)


def _one_model(model, data: str, y: Any) -> ModelPair:
    """One model object that both sides call (an R model through RModel, a Python one from R)."""
    return ModelPair({"model": model}, {"model": model}, data=data, y=y)


def _closed_form(f_py: Callable, f_r: str):
    from r_bridge import RFunction

    return {"predict_function": f_py}, {"model": RFunction(f_r)}


@functools.lru_cache(maxsize=None)
def _r_model(expr: str, packages: tuple, type_: str | None, seed: int):
    from r_bridge import RModel

    return RModel(expr, packages=packages, type=type_, seed=seed)


@functools.lru_cache(maxsize=None)
def _r_fit(code: str, data: str, packages: tuple = (), type_: str | None = None, seed: int | None = None,
           predict_function: str | None = None):
    """An R model fitted in R on a data set of this module (``d`` in ``code``)."""
    from r_bridge import RModel, convert, session

    session.require(packages)
    if seed is not None:
        session.r_eval(f"set.seed({int(seed)})")
    fit = session.r_eval(code, d=convert.py2r(dataset(data)))
    return RModel(fit, type=type_, packages=packages, predict_function=predict_function)


def _sk_pipeline(classifier: bool):
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    pre = ColumnTransformer([("cat", OneHotEncoder(), ["cat", "ord"])], remainder="passthrough")
    if classifier:
        from sklearn.linear_model import LogisticRegression

        d = dataset("mixed_class")
        return make_pipeline(pre, LogisticRegression(max_iter=2000)).fit(d.drop(columns="y"), d["y"])
    from sklearn.ensemble import GradientBoostingRegressor

    d = dataset("mixed")
    return make_pipeline(pre, GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0)).fit(
        d.drop(columns="y"), d["y"])


@functools.lru_cache(maxsize=None)
def _sk_model(name: str):
    if name == "sk_mixed_pipeline_gbr":
        return _sk_pipeline(classifier=False)
    if name == "sk_mixed_pipeline_logreg":
        return _sk_pipeline(classifier=True)
    if name == "sk_iris_logreg":
        from sklearn.linear_model import LogisticRegression

        d = dataset("iris")
        X = d.drop(columns="Species")
        return LogisticRegression(max_iter=1000).fit(X, d["Species"].astype(str))
    if name == "sk_friedman_gbr":
        from sklearn.ensemble import GradientBoostingRegressor

        d = dataset("friedman1")
        return GradientBoostingRegressor(n_estimators=50, max_depth=3, random_state=0).fit(d.drop(columns="y"), d["y"])
    raise KeyError(name)


def model_pair(name: str) -> ModelPair:
    """The named model, ready for both sides."""
    if name == "friedman1_closed":
        py, r = _closed_form(_friedman1_f, _FRIEDMAN1_R)
        return ModelPair(py, r, data="friedman1", y="y")
    if name == "friedman1_small_closed":
        py, r = _closed_form(_friedman1_f, _FRIEDMAN1_R)
        return ModelPair(py, r, data="friedman1_small", y="y")
    if name == "friedman1_large_closed":
        py, r = _closed_form(_friedman1_f, _FRIEDMAN1_R)
        return ModelPair(py, r, data="friedman1_large", y="y")
    if name == "friedman1_exact_closed":
        py, r = _closed_form(_friedman1_poly, _FRIEDMAN1_POLY_R)
        return ModelPair(py, r, data="friedman1_exact", y="y")
    if name == "friedman1_binary_closed":
        py, r = _closed_form(_friedman1_prob, _FRIEDMAN1_PROB_R)
        return ModelPair(py, r, data="friedman1_binary", y="y")
    if name == "mixed_closed":
        py, r = _closed_form(_mixed_f, _MIXED_R)
        return ModelPair(py, r, data="mixed", y="y")
    if name == "mixed_unordered_closed":
        py, r = _closed_form(_mixed_f, _MIXED_R)
        return ModelPair(py, r, data="mixed_unordered", y="y")
    if name in ("mixed_used_closed", "mixed_used_large_closed"):
        py, r = _closed_form(_mixed_f, _MIXED_R)
        return ModelPair(py, r, data=name[:-len("_closed")], y="y")
    if name == "ties_closed":
        py, r = _closed_form(_ties_f, _TIES_R)
        return ModelPair(py, r, data="ties", y="y")
    if name == "ties_na_closed":
        py, r = _closed_form(_ties_na_f, _TIES_NA_R)
        return ModelPair(py, r, data="ties_na", y="y")
    if name == "rf_boston":
        m = _r_model("randomForest::randomForest(medv ~ ., data = MASS::Boston, ntree = 50)",
                     ("randomForest", "MASS"), None, 42)
        return _one_model(m, data="boston", y="medv")
    if name == "rf_iris_prob":
        m = _r_model("randomForest::randomForest(Species ~ ., data = iris, ntree = 50)", ("randomForest",), "prob", 7)
        return _one_model(m, data="iris", y="Species")
    if name == "rf_iris_class":
        m = _r_model("randomForest::randomForest(Species ~ ., data = iris, ntree = 50)", ("randomForest",), None, 7)
        return _one_model(m, data="iris", y="Species")
    if name == "sk_iris_logreg":
        m = _sk_model(name)
        return _one_model(m, data="iris", y="Species")
    if name == "sk_friedman_gbr":
        m = _sk_model(name)
        return _one_model(m, data="friedman1", y="y")
    if name in ("lm_fac", "lm_fac_shuffled"):
        m = _r_fit("lm(y ~ x1 * f + n, data = d)", "lmfac")
        return _one_model(m, data="lmfac" if name == "lm_fac" else "lmfac_shuffled", y="y")
    if name in ("glm_link", "glm_response"):
        m = _r_fit("glm(y ~ x1 + x2 + g, family = binomial, data = d)", "binary",
                   type_=None if name == "glm_link" else "response")
        return _one_model(m, data="binary", y="y")
    if name in ("glm_factor_link", "glm_factor_response"):
        m = _r_fit("glm(y ~ x1 + x2 + g, family = binomial, data = d)", "binary_factor",
                   type_=None if name == "glm_factor_link" else "response")
        return _one_model(m, data="binary_factor", y="y")
    if name == "rpart_mixed":
        m = _r_fit("rpart::rpart(y ~ ., data = d, control = rpart::rpart.control(cp = 0.02))", "mixed", ("rpart",))
        return _one_model(m, data="mixed", y="y")
    if name in ("rpart_iris_prob", "rpart_iris_class"):
        m = _r_fit("rpart::rpart(Species ~ ., data = d)", "iris", ("rpart",),
                   type_=None if name == "rpart_iris_prob" else "class")
        return _one_model(m, data="iris", y="Species")
    if name == "ranger_mixed":   # ranger's predict draws from R's generator unless given a seed
        m = _r_fit("ranger::ranger(y ~ ., data = d, num.trees = 30, seed = 3)", "mixed", ("ranger",),
                   predict_function="function(model, newdata) predict(model, newdata, seed = 1)$predictions")
        return _one_model(m, data="mixed", y="y")
    if name == "svm_mixed":   # e1071's svm reads factor codes
        m = _r_fit("e1071::svm(y ~ ., data = d)", "mixed", ("e1071",))
        return _one_model(m, data="mixed", y="y")
    if name == "multinom_mixed_class":   # nnet's multinomial logit: class probabilities (type = "probs")
        m = _r_fit("nnet::multinom(y ~ ., data = d, trace = FALSE)", "mixed_class", ("nnet",), type_="probs")
        return _one_model(m, data="mixed_class", y="y")
    if name == "sk_mixed_pipeline_gbr":
        return _one_model(_sk_model(name), data="mixed", y="y")
    if name == "sk_mixed_pipeline_gbr_unordered":  # LocalModel: iml fails on ordered factors; the encoder does not care
        m = _sk_model("sk_mixed_pipeline_gbr")
        return _one_model(m, data="mixed_unordered", y="y")
    if name == "sk_mixed_pipeline_logreg":
        return _one_model(_sk_model(name), data="mixed_class", y="y")
    raise KeyError(f"unknown model {name!r}; known: {sorted(MODELS)}")


MODELS = ("friedman1_closed", "friedman1_small_closed", "friedman1_large_closed", "friedman1_binary_closed",
          "friedman1_exact_closed", "mixed_closed", "mixed_unordered_closed", "mixed_used_closed", "mixed_used_large_closed",
          "ties_closed", "ties_na_closed", "rf_boston", "rf_iris_prob", "rf_iris_class",
          "sk_iris_logreg", "sk_friedman_gbr", "lm_fac", "lm_fac_shuffled", "glm_link", "glm_response",
          "glm_factor_link", "glm_factor_response", "rpart_mixed", "rpart_iris_prob", "rpart_iris_class",
          "multinom_mixed_class", "ranger_mixed", "svm_mixed",
          "sk_mixed_pipeline_gbr", "sk_mixed_pipeline_gbr_unordered", "sk_mixed_pipeline_logreg")
