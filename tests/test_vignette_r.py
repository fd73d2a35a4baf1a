"""iml's introduction vignette (``vignette("intro", package = "iml")``), call by call, in R and in
pyiml on the same R model (marker ``r``).

The vignette runs ``set.seed(42)``, fits ``randomForest(medv ~ ., data = Boston, ntree = 10)``
and then every method on one session generator: FeatureImp, FeatureEffect with
``set.feature``, Interaction overall and for one feature, FeatureEffects, TreeSurrogate with
``predict``, LocalModel and Shapley, each with ``explain`` of a second row. Here R runs those
calls (without the plots: rendering a rug draws from the generator, docs/differences.md) and
pyiml runs them on the same forest through ``r_bridge.RModel``, with one ``RRandom`` that
continues from R's generator after the fit (``RRandom.from_random_seed``), as
docs/migration.md tells R users to do. Every result, and the generator afterwards, must be R's.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from parity.harness import compare_frames
from pyiml import (FeatureEffect, FeatureEffects, FeatureImp, Interaction, LocalModel, Predictor, RRandom,
                   Shapley, TreeSurrogate)

pytestmark = pytest.mark.r

_R_VIGNETTE = """
set.seed(42)
data("Boston", package = "MASS", envir = environment())
rf <- randomForest::randomForest(medv ~ ., data = Boston, ntree = 10)
after_fit <- .Random.seed
X <- Boston[which(names(Boston) != "medv")]
predictor <- iml::Predictor$new(rf, data = X, y = Boston$medv)
imp <- iml::FeatureImp$new(predictor, loss = "mae")
ale <- iml::FeatureEffect$new(predictor, feature = "lstat", grid.size = 10)
ale_lstat <- ale$results
ale$set.feature("rm")
interact <- iml::Interaction$new(predictor, grid.size = 15)
interact_crim <- iml::Interaction$new(predictor, feature = "crim", grid.size = 15)
effs <- iml::FeatureEffects$new(predictor, grid.size = 10)
tree <- iml::TreeSurrogate$new(predictor, maxdepth = 2)
tree_pred <- head(tree$predict(Boston))
lime <- iml::LocalModel$new(predictor, x.interest = X[1, ])
lime1 <- lime$results
lime$explain(X[2, ])
shapley <- iml::Shapley$new(predictor, x.interest = X[1, ], sample.size = 50)
shap1 <- shapley$results
shapley$explain(x.interest = X[2, ])
list(rf = rf, after_fit = after_fit,
     imp = imp$results, ale_lstat = ale_lstat, ale_rm = ale$results,
     interact = data.frame(interact$results), interact_crim = data.frame(interact_crim$results),
     effs = effs$results, tree_pred = tree_pred, tree_r2 = tree$r.squared,
     lime1 = lime1, lime2 = lime$results, shap1 = shap1, shap2 = shapley$results,
     next_u = runif(1))
"""


def _same(py: pd.DataFrame, rr: pd.DataFrame, what: str) -> None:
    d, scale, problems = compare_frames(py.reset_index(drop=True), rr.reset_index(drop=True), what)
    assert not problems and d <= 1e-12 * max(scale, 1.0), (what, d, problems)


def test_intro_vignette_step_by_step_equals_iml(r):
    from r_bridge import RModel, convert

    r.require(["randomForest", "MASS"])
    out = r.r_eval(_R_VIGNETTE)
    res = dict(zip(list(out.names), list(out)))
    R = {k: convert.r2py(v) for k, v in res.items() if k not in ("rf", "after_fit")}

    boston = convert.r2py(r.r_eval("MASS::Boston"))
    X = boston.drop(columns="medv")
    rng = RRandom.from_random_seed(np.asarray(res["after_fit"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        predictor = Predictor(RModel(res["rf"], packages=("randomForest",)), data=X, y=boston["medv"])
        imp = FeatureImp(predictor, loss="mae", random_state=rng)
        ale = FeatureEffect(predictor, feature="lstat", grid_size=10, random_state=rng)
        ale_lstat = ale.results
        ale.set_feature("rm")
        interact = Interaction(predictor, grid_size=15, random_state=rng)
        interact_crim = Interaction(predictor, feature="crim", grid_size=15, random_state=rng)
        effs = FeatureEffects(predictor, grid_size=10, random_state=rng)
        tree = TreeSurrogate(predictor, maxdepth=2)
        lime = LocalModel(predictor, x_interest=X.iloc[[0]])
        lime1 = lime.results
        lime.explain(X.iloc[[1]])
        shapley = Shapley(predictor, x_interest=X.iloc[[0]], sample_size=50, random_state=rng)
        shap1 = shapley.results
        shapley.explain(X.iloc[[1]])

    _same(imp.results, R["imp"], "FeatureImp")
    _same(ale_lstat, R["ale_lstat"], "ALE lstat")
    _same(ale.results, R["ale_rm"], "ALE rm (set_feature)")
    _same(interact.results, R["interact"], "Interaction")
    _same(interact_crim.results, R["interact_crim"], "Interaction crim")
    assert list(effs.results) == list(R["effs"])
    for f, frame in effs.results.items():
        _same(frame, R["effs"][f], f"FeatureEffects {f}")
    _same(tree.predict(boston).head(6), R["tree_pred"], "TreeSurrogate predict")
    assert abs(float(np.asarray(tree.r_squared).ravel()[0]) - float(np.asarray(R["tree_r2"]).ravel()[0])) < 1e-12
    _same(lime1, R["lime1"], "LocalModel row 1")
    _same(lime.results, R["lime2"], "LocalModel row 2 (explain)")
    _same(shap1, R["shap1"], "Shapley row 1")
    _same(shapley.results, R["shap2"], "Shapley row 2 (explain)")
    # the generator is where R's is after the same calls
    assert rng.uniform(1)[0] == float(np.asarray(R["next_u"]).ravel()[0])
