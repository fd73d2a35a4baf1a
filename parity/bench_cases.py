"""Benchmark cases for ``make bench`` (see :mod:`parity.bench`): one factory per method.

Each case times pyiml, R iml (timed inside R on the R closed form of the same model), scikit-learn
where it computes the same thing, and the floor: one model call on every row the method needs.
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np
import pandas as pd

from .bench import Case, FriedmanModel, floor_call, friedman_data, friedman_f, repeat_rows


#: Floor designs larger than this are predicted in calls of this many rows (a design of 4 * 10^7
#: rows would need gigabytes as one frame); the time still covers every row.
FLOOR_CHUNK = 10 ** 6

#: R iml is not run at sizes where it would predict more than this many rows in one call (its 2-D
#: PDP at n = 100,000 has 4 * 10^7 rows, its Interaction 6 * 10^7, which need tens of GB in R).
R_MAX_ROWS = 10 ** 7


def _floor(X: pd.DataFrame, rows: int, predict=friedman_f):
    """The model called on ``rows`` prebuilt rows: one call, or calls of :data:`FLOOR_CHUNK`
    rows beyond that (the design is built outside the timed call; each call gets a new frame
    object, :func:`parity.bench.floor_call`)."""
    m = min(rows, FLOOR_CHUNK)
    big = floor_call(predict, repeat_rows(X, m))
    rest = floor_call(predict, repeat_rows(X, rows % m)) if rows % m else None

    def run():
        for _ in range(rows // m):
            big()
        if rest is not None:
            rest()

    return run


def design_rows(X: pd.DataFrame, kind: str, G: int = 20, R: int = 5, M: int = 100, grid: int = 30,
                feature: str = "x1", seed: int = 0) -> pd.DataFrame:
    """The rows a method predicts, built the way the method builds them (random draws from
    ``seed``, not the method's own), each column one contiguous array, as one frame.

    Model (b)'s floor predicts these rather than the data repeated (:func:`parity.bench.repeat_rows`):
    a tree model predicts the same 1,000 rows repeated 50 times in about half the time it takes
    for 50,000 distinct rows (even the same rows shuffled take the longer time), as the
    processor's caches and branch predictors learn the repeated paths, so a floor of repeated
    rows would be a best case no method's design gets. (The closed form's time does not depend
    on the values.) ``kind``: "FeatureImp" (the data once, then each feature permuted ``R``
    times), "PDP+ICE 1-D" (the data at ``G`` equidistant points of ``feature``), "ALE 1-D" (the
    data at the lower and at the upper end of its interval of a ``G``-interval quantile grid),
    "Interaction two-way" (for every other feature, at ``grid`` rows: both features fixed, the
    other one, ``feature``) and "Shapley 1 row" (iml's 2·M·p rows for the first row, the data,
    the point)."""
    rng = np.random.default_rng(seed)
    A = X.to_numpy(dtype=float)
    n, p = A.shape
    j = list(X.columns).index(feature)

    def with_cols(cols, vals):
        B = A.copy()
        B[:, cols] = vals
        return B

    if kind == "FeatureImp":
        blocks = [A] + [with_cols(k, A[rng.permutation(n), k]) for k in range(p) for _ in range(R)]
    elif kind == "PDP+ICE 1-D":
        blocks = [with_cols(j, g) for g in np.linspace(A[:, j].min(), A[:, j].max(), G)]
    elif kind == "ALE 1-D":
        z = np.unique(np.quantile(A[:, j], np.linspace(0, 1, G + 1), method="inverted_cdf"))
        k = np.clip(np.searchsorted(z, A[:, j], side="left"), 1, z.size - 1)
        blocks = [with_cols(j, z[k - 1]), with_cols(j, z[k])]
    elif kind == "Interaction two-way":
        rows = rng.choice(n, grid)
        blocks = [with_cols(cols, A[u, cols]) for c in range(p) if c != j for cols in ([c, j], [c], [j])
                  for u in rows]
    elif kind == "Shapley 1 row":
        x = A[0]
        z = A[rng.integers(0, n, M)]                                  # (M, p) background rows
        rank = np.argsort(rng.random((M, p)), axis=1)                  # each sample's feature order
        with_x = rank[:, None, :] <= rank[:, :, None]                  # (M, j, p): x on j and before
        plus = np.where(with_x, x, z[:, None, :]).reshape(-1, p)
        minus = np.where(with_x & (rank[:, None, :] != rank[:, :, None]), x, z[:, None, :]).reshape(-1, p)
        blocks = [plus, minus, A, x[None, :]]
    else:
        raise ValueError(f"unknown design kind {kind!r}")
    D = np.concatenate(blocks, axis=0)
    return pd.DataFrame({c: np.ascontiguousarray(D[:, i]) for i, c in enumerate(X.columns)})


def _r(code: str, rows: int):
    """``code`` when R iml's design of ``rows`` rows is feasible, else None (R not run)."""
    return code if rows <= R_MAX_ROWS else None


#: Largest n of model (b): R's randomForest predicts ~10^5 rows a second, so PDP/ICE and Interaction
#: designs of n = 100,000 (2-6 * 10^6 rows) would take minutes on each side.
RF_MAX_N = 1000


def bench_cases(n: int) -> List[Case]:
    """The cases of model (a), the closed form, then of model (b), an R randomForest, at ``n``."""
    return closed_form_cases(n) + (random_forest_cases(n) if n <= RF_MAX_N else [])


class _SkWrapper(FriedmanModel):
    """A pyiml-style model (anything with ``predict`` on a frame) as a scikit-learn regressor."""

    def __init__(self, predict):
        self._predict = predict

    def predict(self, X):
        return np.asarray(self._predict(X), dtype=float).ravel()


def random_forest_cases(n: int) -> List[Case]:
    """Model (b): one R ``randomForest`` (50 trees) on the Friedman data, used by R's iml as its
    ``model`` and by pyiml through :class:`r_bridge.RModel`, so every pyiml model call crosses
    rpy2 and R's ``predict`` does the same work on both sides. Empty without R."""
    try:
        from r_bridge import RModel, convert, session

        session.require(["iml", "randomForest"])
    except Exception:
        return []
    import pyiml

    data = friedman_data(n)
    X = data.drop(columns="y")
    y = data["y"].to_numpy()
    p = X.shape[1]
    ro = session.robjects()
    with session.lock:
        ro.globalenv[".pyiml_bench_friedman"] = convert.py2r(data)
    rf = RModel("randomForest::randomForest(y ~ ., data = .pyiml_bench_friedman, ntree = 50)",
                packages=["randomForest"], seed=1)
    predictor = pyiml.Predictor(rf, data=data, y="y", batch_size=100_000)
    model = _SkWrapper(lambda d: rf._pyiml_predict(d).iloc[:, 0].to_numpy())
    x1 = X.iloc[[0]]
    G = 20
    label = "R randomForest"

    def floor(kind: str):   # (at most 8.1 * 10^5 rows at n = RF_MAX_N: one call)
        return floor_call(rf._pyiml_predict, design_rows(X, kind))

    common = dict(data=data, r_model=rf.r_object, model=label, repeats=3)
    return [
        Case("FeatureImp (mae, 5 reps)", n,
             pyiml=lambda: pyiml.FeatureImp(predictor, loss="mae", n_repetitions=5, random_state=1),
             r_code='FeatureImp$new(predictor, loss = "mae", n.repetitions = 5)',
             sklearn=lambda: permutation_importance_(model, X, y), floor=floor("FeatureImp"), **common),
        Case("PDP+ICE 1-D (grid 20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, "x1", method="pdp+ice", grid_size=G),
             r_code='FeatureEffect$new(predictor, "x1", method = "pdp+ice", grid.size = 20)',
             sklearn=lambda: partial_dependence_(model, X, ["x1"], "both", G), floor=floor("PDP+ICE 1-D"), **common),
        Case("ALE 1-D (grid 20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, "x1", method="ale", grid_size=G),
             r_code='FeatureEffect$new(predictor, "x1", method = "ale", grid.size = 20)',
             floor=floor("ALE 1-D"), **common),
        Case("Interaction two-way x1 (grid 30)", n,
             pyiml=lambda: pyiml.Interaction(predictor, feature="x1", grid_size=30, random_state=1),
             r_code='Interaction$new(predictor, feature = "x1", grid.size = 30)',
             floor=floor("Interaction two-way"), **common),
        Case("Shapley 1 row (M 100)", n,
             pyiml=lambda: pyiml.Shapley(predictor, x_interest=x1, sample_size=100, random_state=1),
             r_code="Shapley$new(predictor, x.interest = X[1, ], sample.size = 100)",
             floor=floor("Shapley 1 row"), **common),
        Case("LocalModel (k 3)", n,
             pyiml=lambda: pyiml.LocalModel(predictor, x_interest=x1, k=3),
             r_code="LocalModel$new(predictor, x.interest = X[1, ], k = 3)",
             floor=floor_call(rf._pyiml_predict, X), **common),
        Case("TreeSurrogate (depth 2)", n,
             pyiml=lambda: pyiml.TreeSurrogate(predictor, maxdepth=2),
             r_code="TreeSurrogate$new(predictor, maxdepth = 2)",
             floor=floor_call(rf._pyiml_predict, X), **common),
    ]


def permutation_importance_(model, X, y):
    from sklearn.inspection import permutation_importance

    return permutation_importance(model, X, y, scoring="neg_mean_absolute_error", n_repeats=5, random_state=1)


def partial_dependence_(model, X, features, kind, G):
    from sklearn.inspection import partial_dependence

    return partial_dependence(model, X, features, kind=kind, grid_resolution=G, method="brute", percentiles=(0, 1))


def floor_rows(n: int, p: int, G: int = 20, R: int = 5, M: int = 100) -> Dict[str, int]:
    """Rows the floor predicts for the closed-form cases that :mod:`parity.bounds` times too
    (grid ``G``, ``R`` repetitions, ``M`` Monte-Carlo samples), so both use the same floors."""
    return {
        "FeatureImp": n * (p * R + 1),          # the p·R permuted copies of the data, and the data
        "PDP+ICE 1-D": n * G,
        "ALE 1-D": 2 * n,                       # the data at the lower and the upper interval ends
        "ALE 2-D": 4 * n,                       # the data at the four corners of its cell
        "Shapley 1 row": 2 * M * p + n + 1,     # iml's 2·M·p design, the data and the point
        "Shapley 100 rows": 100 * 2 * M * p + n + 100,
    }


def closed_form_cases(n: int) -> List[Case]:
    """Model (a): the Friedman #1 closed form, written in Python and in R."""
    import pyiml

    data = friedman_data(n)
    X = data.drop(columns="y")
    y = data["y"].to_numpy()
    p = X.shape[1]
    bs = 100_000
    predictor = pyiml.Predictor(data=data, y="y", predict_function=friedman_f, batch_size=bs)
    model = FriedmanModel().fit(X, y)
    x1 = X.iloc[[0]]
    x100 = X.iloc[:100]
    G = 20
    rows = floor_rows(n, p, G)
    cases = [
        Case("Predictor.predict", n, pyiml=lambda: predictor.predict(X), r_code="predictor$predict(X)",
             floor=floor_call(friedman_f, X), data=data),
        Case("FeatureImp (mae, 5 reps)", n,
             pyiml=lambda: pyiml.FeatureImp(predictor, loss="mae", n_repetitions=5, random_state=1),
             r_code='FeatureImp$new(predictor, loss = "mae", n.repetitions = 5)',
             sklearn=lambda: permutation_importance_(model, X, y),
             floor=_floor(X, rows["FeatureImp"]), data=data),
        Case("PDP+ICE 1-D (grid 20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, "x1", method="pdp+ice", grid_size=G),
             r_code='FeatureEffect$new(predictor, "x1", method = "pdp+ice", grid.size = 20)',
             sklearn=lambda: partial_dependence_(model, X, ["x1"], "both", G),
             floor=_floor(X, rows["PDP+ICE 1-D"]), data=data),
        Case("PDP+ICE 1-D (grid 20), .results read", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, "x1", method="pdp+ice", grid_size=G).results,
             r_code='FeatureEffect$new(predictor, "x1", method = "pdp+ice", grid.size = 20)$results',
             sklearn=lambda: partial_dependence_(model, X, ["x1"], "both", G),
             floor=_floor(X, rows["PDP+ICE 1-D"]), data=data),
        Case("PDP 2-D (grid 20x20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, ["x1", "x2"], method="pdp", grid_size=G),
             r_code=_r('FeatureEffect$new(predictor, c("x1", "x2"), method = "pdp", grid.size = 20)', n * G * G),
             sklearn=lambda: partial_dependence_(model, X, ["x1", "x2"], "average", G),
             floor=_floor(X, n * G * G), data=data),
        Case("ALE 1-D (grid 20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, "x1", method="ale", grid_size=G),
             r_code='FeatureEffect$new(predictor, "x1", method = "ale", grid.size = 20)',
             floor=_floor(X, rows["ALE 1-D"]), data=data),
        Case("ALE 2-D (grid 20x20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, ["x1", "x2"], method="ale", grid_size=G),
             r_code='FeatureEffect$new(predictor, c("x1", "x2"), method = "ale", grid.size = 20)',
             floor=_floor(X, rows["ALE 2-D"]), data=data),
        Case("Interaction overall (grid 30)", n,
             pyiml=lambda: pyiml.Interaction(predictor, grid_size=30, random_state=1),
             r_code=_r("Interaction$new(predictor, grid.size = 30)", p * (2 * 30 * n + 30)),
             floor=_floor(X, p * (2 * 30 * n + 30)), data=data),
        Case("Interaction two-way x1 (grid 30)", n,
             pyiml=lambda: pyiml.Interaction(predictor, feature="x1", grid_size=30, random_state=1),
             r_code=_r('Interaction$new(predictor, feature = "x1", grid.size = 30)', (p - 1) * 3 * 30 * n),
             floor=_floor(X, (p - 1) * 3 * 30 * n), data=data),
        Case("Shapley 1 row (M 100)", n,
             pyiml=lambda: pyiml.Shapley(predictor, x_interest=x1, sample_size=100, random_state=1),
             r_code="Shapley$new(predictor, x.interest = X[1, ], sample.size = 100)",
             floor=_floor(X, rows["Shapley 1 row"]), data=data),
        Case("Shapley 100 rows (M 100; R: 10 rows x 10)", n,
             pyiml=lambda: pyiml.Shapley(predictor, x_interest=x100, sample_size=100, random_state=1),
             r_code=("s <- Shapley$new(predictor, x.interest = X[1, ], sample.size = 100); "
                     "for (i in 2:10) s$explain(X[i, ])"), r_scale=10.0,
             floor=_floor(X, rows["Shapley 100 rows"]), data=data),
        Case("LocalModel (k 3)", n,
             pyiml=lambda: pyiml.LocalModel(predictor, x_interest=x1, k=3),
             r_code="LocalModel$new(predictor, x.interest = X[1, ], k = 3)",
             floor=floor_call(friedman_f, X), data=data),
        Case("TreeSurrogate (depth 2)", n,
             pyiml=lambda: pyiml.TreeSurrogate(predictor, maxdepth=2),
             r_code="TreeSurrogate$new(predictor, maxdepth = 2)",
             floor=floor_call(friedman_f, X), data=data),
    ]
    return cases
