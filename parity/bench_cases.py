"""Benchmark cases for ``make bench`` (see :mod:`parity.bench`): one factory per method.

Each case times pyiml, R iml (timed inside R on the R closed form of the same model), scikit-learn
where it computes the same thing, and the floor: one model call on every row the method needs.
"""
from __future__ import annotations

from typing import List

import numpy as np
import pandas as pd

from .bench import Case, FriedmanModel, friedman_data, friedman_f


def _floor(X: pd.DataFrame, rows: int):
    """One model call on ``rows`` rows (the design is built outside the timed call)."""
    reps = -(-rows // len(X))
    big = pd.concat([X] * reps, ignore_index=True).iloc[:rows]
    return lambda: friedman_f(big)


def bench_cases(n: int) -> List[Case]:
    import pyiml
    from sklearn.inspection import partial_dependence, permutation_importance

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
    cases = [
        Case("Predictor.predict", n, pyiml=lambda: predictor.predict(X), r_code="predictor$predict(X)",
             floor=lambda: friedman_f(X), data=data),
        Case("FeatureImp (mae, 5 reps)", n,
             pyiml=lambda: pyiml.FeatureImp(predictor, loss="mae", n_repetitions=5, random_state=1),
             r_code='FeatureImp$new(predictor, loss = "mae", n.repetitions = 5)',
             sklearn=lambda: permutation_importance(model, X, y, scoring="neg_mean_absolute_error", n_repeats=5,
                                                    random_state=1),
             floor=_floor(X, n * p * 5), data=data),
        Case("PDP+ICE 1-D (grid 20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, "x1", method="pdp+ice", grid_size=G),
             r_code='FeatureEffect$new(predictor, "x1", method = "pdp+ice", grid.size = 20)',
             sklearn=lambda: partial_dependence(model, X, ["x1"], kind="both", grid_resolution=G, method="brute",
                                                percentiles=(0, 1)),
             floor=_floor(X, n * G), data=data),
        Case("PDP 2-D (grid 20x20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, ["x1", "x2"], method="pdp", grid_size=G),
             r_code='FeatureEffect$new(predictor, c("x1", "x2"), method = "pdp", grid.size = 20)',
             sklearn=lambda: partial_dependence(model, X, ["x1", "x2"], kind="average", grid_resolution=G,
                                                method="brute", percentiles=(0, 1)),
             floor=_floor(X, n * G * G), data=data),
        Case("ALE 1-D (grid 20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, "x1", method="ale", grid_size=G),
             r_code='FeatureEffect$new(predictor, "x1", method = "ale", grid.size = 20)',
             floor=_floor(X, 2 * n), data=data),
        Case("ALE 2-D (grid 20x20)", n,
             pyiml=lambda: pyiml.FeatureEffect(predictor, ["x1", "x2"], method="ale", grid_size=G),
             r_code='FeatureEffect$new(predictor, c("x1", "x2"), method = "ale", grid.size = 20)',
             floor=_floor(X, 4 * n), data=data),
        Case("Interaction overall (grid 30)", n,
             pyiml=lambda: pyiml.Interaction(predictor, grid_size=30, random_state=1),
             r_code="Interaction$new(predictor, grid.size = 30)",
             floor=_floor(X, p * (2 * 30 * n + 30)), data=data),
        Case("Interaction two-way x1 (grid 30)", n,
             pyiml=lambda: pyiml.Interaction(predictor, feature="x1", grid_size=30, random_state=1),
             r_code='Interaction$new(predictor, feature = "x1", grid.size = 30)',
             floor=_floor(X, (p - 1) * 3 * 30 * n), data=data),
        Case("Shapley 1 row (M 100)", n,
             pyiml=lambda: pyiml.Shapley(predictor, x_interest=x1, sample_size=100, random_state=1),
             r_code="Shapley$new(predictor, x.interest = X[1, ], sample.size = 100)",
             floor=_floor(X, 2 * 100 * p), data=data),
        Case("Shapley 100 rows (M 100; R: 10 rows x 10)", n,
             pyiml=lambda: pyiml.Shapley(predictor, x_interest=x100, sample_size=100, random_state=1),
             r_code=("s <- Shapley$new(predictor, x.interest = X[1, ], sample.size = 100); "
                     "for (i in 2:10) s$explain(X[i, ])"), r_scale=10.0,
             floor=_floor(X, 100 * 2 * 100 * p), data=data),
        Case("LocalModel (k 3)", n,
             pyiml=lambda: pyiml.LocalModel(predictor, x_interest=x1, k=3),
             r_code="LocalModel$new(predictor, x.interest = X[1, ], k = 3)",
             floor=lambda: friedman_f(X), data=data),
        Case("TreeSurrogate (depth 2)", n,
             pyiml=lambda: pyiml.TreeSurrogate(predictor, maxdepth=2),
             r_code="TreeSurrogate$new(predictor, maxdepth = 2)",
             floor=lambda: friedman_f(X), data=data),
    ]
    return cases
