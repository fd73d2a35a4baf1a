"""iml's own expectations for ``LocalModel``, checked against pyiml.

Translated from iml's testthat suite (tests/testthat/test-LocalModel.R and its helper-predictor
fixture: the five-row data ``X`` and the closed-form model ``f``; giuseppec/iml, the version
that matches iml 0.11.4). Upstream only checks the layout (columns, at most ``k`` rows, the
``prediction`` column, the class columns); here every number is also compared with CRAN iml
run live on the same model through ``r_bridge``.

Upstream fixture notes: ``b = 10 * a`` exactly, so the lasso path around ``X[4, ]`` is decided
by rounding (R's path gives the collinear ``b`` a coefficient of 1e-17, which counts as a
feature, so iml "had to choose a smaller k"); pyiml's glmnet adds in glmnetpp's order and
reproduces that bit for bit.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from _upstream_model import F_ARGS_R as F_R   # iml's test helper f(newdata, multi = FALSE), in R
from _upstream_model import X
from _upstream_model import f_args as f       # ... and in Python
from pyiml import LocalModel, Predictor

EXPECTED_COLUMNS = ["beta", "x.recoded", "effect", "x.original", "feature", "feature.value"]


@pytest.fixture(scope="module")
def noise(r):
    """iml's ``set.seed(12); rnorm(5)`` (the target is f(X) plus this noise)."""
    return np.array(r.r_eval("set.seed(12); rnorm(5)"), dtype=float)


@pytest.fixture(scope="module")
def predictors(r, noise):
    """iml's ``predictor1``: pyiml's and R's."""
    from r_bridge import RFunction, iml as riml

    y = f(X)["pred"].to_numpy() + noise
    return (Predictor(data=X, y=y, predict_function=f),
            riml.r_predictor(data=X, y=y, model=RFunction(F_R)))


def assert_results_equal(py: pd.DataFrame, rr: pd.DataFrame):
    assert list(py.columns) == list(rr.columns)
    assert len(py) == len(rr)
    for c in py.columns:
        if pd.api.types.is_numeric_dtype(rr[c]):
            np.testing.assert_allclose(py[c].to_numpy(float), rr[c].to_numpy(float), rtol=1e-12, atol=1e-15,
                                       err_msg=c)
        else:
            assert py[c].astype(str).tolist() == rr[c].astype(str).tolist(), c


def quiet_r(fun, *args, **kwargs):
    """Call into R and silence R's warnings (they are asserted where they matter)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fun(*args, **kwargs)


# ---------------------------------------------------------------------------- single output
@pytest.mark.r
def test_single_output_gower_results_explain_and_predict_equal_iml(predictors):
    from r_bridge import RWarning, iml as riml

    p, rp = predictors
    lm = LocalModel(p, X.iloc[[1]], k=2)
    ro = riml.iml("LocalModel", rp, x_interest=X.iloc[[1]], k=2)
    dat = lm.results
    assert isinstance(dat, pd.DataFrame) and list(dat.columns) == EXPECTED_COLUMNS
    assert len(dat) <= 2
    assert_results_equal(dat, ro.results)
    assert list(dat.index) == list(dat["feature"])  # R's row names: the recoded feature names
    assert isinstance(lm.plot(), Figure)

    # explain(X[4, ]): the collinear b enters with a coefficient of 1e-17 in R, so no lambda has
    # exactly 2 features and both fall back to one feature with iml's warning
    with pytest.warns(UserWarning, match="Had to choose a smaller k"):
        assert lm.explain(X.iloc[[3]]) is lm
    with pytest.warns(RWarning, match="Had to choose a smaller k"):
        ro.call("explain", X.iloc[[3]])
    assert list(lm.results.columns) == EXPECTED_COLUMNS and len(lm.results) <= 2
    assert_results_equal(lm.results, ro.results)
    assert lm.best_fit_index + 1 == ro.field("best.fit.index")  # pyiml's index is 0-based

    pred = lm.predict(X.iloc[2:4])
    assert isinstance(pred, pd.DataFrame) and pred.shape == (2, 1) and list(pred.columns) == ["prediction"]
    assert_results_equal(pred, ro.call("predict", newdata=X.iloc[2:4]))
    # without newdata: the point itself
    assert_results_equal(lm.predict(), ro.call("predict"))


@pytest.mark.r
def test_single_output_euclidean_kernel_equals_iml(predictors):
    from r_bridge import iml as riml

    p, rp = predictors
    with pytest.warns(UserWarning, match="Had to choose a smaller k"):
        lm = LocalModel(p, X.iloc[[1]], k=2, dist_fun="euclidean", kernel_width=1)
    ro = quiet_r(riml.iml, "LocalModel", rp, x_interest=X.iloc[[1]], k=2, dist_fun="euclidean", kernel_width=1)
    assert_results_equal(lm.results, ro.results)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lm.explain(X.iloc[[3]])
        quiet_r(ro.call, "explain", X.iloc[[3]])
    assert list(lm.results.columns) == EXPECTED_COLUMNS and len(lm.results) <= 2
    assert_results_equal(lm.results, ro.results)
    pred = lm.predict(X.iloc[2:4])
    assert pred.shape == (2, 1) and list(pred.columns) == ["prediction"]
    assert_results_equal(pred, ro.call("predict", newdata=X.iloc[2:4]))


@pytest.mark.r
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_every_k_and_gower_power_equal_iml(predictors, k):
    from r_bridge import iml as riml

    p, rp = predictors
    for power in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Had to choose a smaller k" on both sides for some k
            lm = LocalModel(p, X.iloc[[4]], k=k, gower_power=power)
            ro = riml.iml("LocalModel", rp, x_interest=X.iloc[[4]], k=k, gower_power=power)
        assert len(lm.results) <= k
        assert_results_equal(lm.results, ro.results)
        assert lm.best_fit_index + 1 == ro.field("best.fit.index")


# ---------------------------------------------------------------------------- several outputs
@pytest.mark.r
def test_multiclass_rpart_on_iris_equals_iml(r):
    from r_bridge import RModel, convert, iml as riml

    iris = convert.r2py(r.r_eval("iris"))
    clf = RModel("rpart::rpart(Species ~ ., data = iris)", packages=["rpart"])
    mod = Predictor(clf, data=iris)  # y = "Species" from the model's formula, as iml finds it
    assert mod.data.y_names == ["Species"]
    rp = riml.r_predictor(data=iris, model=clf)
    x = iris.iloc[[0]]  # with the target column: pyiml drops it, iml drops it with a warning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glmnet: classes with few observations, on both sides
        lm = LocalModel(mod, x, k=1)
        ro = riml.iml("LocalModel", rp, x_interest=x, k=1)
    dat = lm.results
    assert list(dat.columns) == EXPECTED_COLUMNS + [".class"]
    assert len(dat) <= 3
    assert_results_equal(dat, ro.results)
    pred2 = lm.predict(iris.iloc[[1, 2]])
    assert isinstance(pred2, pd.DataFrame) and len(pred2) == 2
    assert list(pred2.columns) == ["setosa", "versicolor", "virginica"]
    assert_results_equal(pred2, quiet_r(ro.call, "predict", iris.iloc[[1, 2]]))
    fig = lm.plot()
    assert isinstance(fig, Figure)
    assert {a.get_title() for a in fig.axes if a.get_title()} == set(dat[".class"])


# ------------------------------------------- "LocalModel prediction expects same cols as training dat"
@pytest.mark.r
def test_predict_expects_the_training_columns(predictors):
    from r_bridge import RError, RWarning, iml as riml

    p, rp = predictors
    x = X.iloc[[1]]
    lm = LocalModel(p, x, k=2)
    ro = riml.iml("LocalModel", rp, x_interest=x, k=2)
    extra = x.assign(blabla=1)
    # upstream: expect_warning(LocalModel1$predict(cbind(x.interest, data.frame(blabla = 1))))
    with pytest.warns(UserWarning, match="blabla"):
        pred = lm.predict(extra)
    with pytest.warns(RWarning):
        r_pred = ro.call("predict", newdata=extra)
    assert_results_equal(pred, r_pred)      # the extra column is ignored on both sides
    # upstream: expect_error(LocalModel1$predict(x.interest[-2]), "Missing")
    with pytest.raises(ValueError, match="Missing columns: b"):
        lm.predict(x.drop(columns="b"))
    with pytest.raises(RError, match="Missing"):
        ro.call("predict", newdata=x.drop(columns="b"))


# ------------------------------------------- "LocalModel distance functions work as expected"
_R_WEIGHTS = """function(p, x, fun) {
  lm <- suppressWarnings(iml::LocalModel$new(p, x.interest = x, k = 1, dist.fun = "euclidean",
                                             kernel.width = 1))
  pr <- lm$.__enclos_env__$private
  pr$get.weight.fun(dist.fun = fun, kernel.width = 1, gower.power = 1)(
    iml:::recode(pr$dataDesign, x), iml:::recode(x, x))
}"""


@pytest.mark.r
@pytest.mark.parametrize("fun", ["gower", "euclidean", "maximum", "manhattan", "canberra", "binary", "minkowski"])
def test_every_distance_weights_x_interest_itself_by_one(r, predictors, fun):
    """Upstream: the weight function of every ``dist.fun`` gives ``x.interest = X[2, ]`` (a data
    row) the weight 1; here also every other row's weight equals iml's ``get.weight.fun``."""
    from r_bridge import convert

    p, rp = predictors
    x = X.iloc[[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # "Had to choose a smaller k" for some distances
        lm = LocalModel(p, x, k=1, dist_fun=fun, **({} if fun == "gower" else {"kernel_width": 1}))
    assert lm.weights[1] == 1
    r_weights = np.array(r.r_eval(_R_WEIGHTS)(rp, convert.py2r(x), fun), dtype=float)
    np.testing.assert_allclose(lm.weights, r_weights, rtol=1e-14, atol=0)


# ---------------------------------------------------------------------------- errors
@pytest.mark.r
def test_bad_arguments_fail_in_iml_and_in_pyiml(predictors):
    from r_bridge import RError, iml as riml

    p, rp = predictors
    with pytest.raises(ValueError, match="k must be a whole number between 1 and 4"):
        LocalModel(p, X.iloc[[0]], k=5)
    with pytest.raises(RError, match="k"):
        riml.iml("LocalModel", rp, x_interest=X.iloc[[0]], k=5)
    with pytest.raises(ValueError, match="dist_fun must be one of"):
        LocalModel(p, X.iloc[[0]], dist_fun="cosine")
    with pytest.raises(RError, match="dist.fun"):
        riml.iml("LocalModel", rp, x_interest=X.iloc[[0]], dist_fun="cosine")
    with pytest.raises(ValueError, match="kernel_width must be given"):
        LocalModel(p, X.iloc[[0]], dist_fun="euclidean")
    with pytest.raises(RError, match="kernel.width"):
        riml.iml("LocalModel", rp, x_interest=X.iloc[[0]], dist_fun="euclidean")


# ---------------------------------------------------------------------------- glmnet
@pytest.mark.r
def test_gaussian_lasso_path_is_r_glmnets_bit_for_bit(r):
    """The path LocalModel selects from: coefficients, intercepts, lambdas and df equal R's
    glmnet exactly, also where rounding decides (exactly collinear columns, tiny n)."""
    from pyiml._algorithms import glmnet as G

    ro = r.robjects()
    rng = np.random.default_rng(11)
    cases = [(X[["a", "b"]].assign(c=[1.0, 0, 0, 1, 0], d=[0.0, 0, 1, 1, 1]).to_numpy(),
              f(X)["pred"].to_numpy(), np.array([0.375, 0.25, 0.625, 1.0, 0.625]))]
    for n, p in ((7, 3), (50, 6), (333, 9)):
        Z = rng.normal(size=(n, p)) * rng.uniform(0.01, 100, size=p)
        Z[:, 1] = 10 * Z[:, 0]  # exactly collinear
        cases.append((Z, Z @ rng.normal(size=p) + rng.normal(size=n), rng.uniform(size=n)))
    for Z, yv, w in cases:
        fit = G.glmnet(Z, yv, weights=w)
        out = r.r_eval("g <- glmnet::glmnet(x, y, weights = w); list(as.matrix(g$beta), g$a0, g$lambda, g$df)",
                       x=ro.r.matrix(ro.FloatVector(Z.T.ravel()), nrow=Z.shape[0]), y=ro.FloatVector(yv),
                       w=ro.FloatVector(w))
        beta, a0, lam, df = (np.asarray(o) for o in out)
        np.testing.assert_array_equal(fit.df, df)
        np.testing.assert_array_equal(fit.beta, beta)
        np.testing.assert_array_equal(fit.a0, a0)
        np.testing.assert_array_equal(fit.lambda_, lam)


def test_k_one_explain_and_single_row_predict_equal_iml(predictors):
    """Upstream "LocalModel works for single output": k = 1 at X[2, ], explain(X[4, ]),
    predict(X[3:4, ]); and a single-row newdata (iml #204, fixed in 0.11.3)."""
    p, rp = predictors
    from r_bridge import iml as riml

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lm = LocalModel(p, X.iloc[[1]], k=1)
    ro = quiet_r(riml.iml, "LocalModel", rp, x_interest=X.iloc[[1]], k=1)
    assert list(lm.results.columns) == EXPECTED_COLUMNS and len(lm.results) <= 1
    assert_results_equal(lm.results, ro.results)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lm.explain(X.iloc[[3]])
    quiet_r(ro.call, "explain", X.iloc[[3]])
    assert len(lm.results) <= 1
    assert_results_equal(lm.results, ro.results)
    for rows in (X.iloc[2:4], X.iloc[[2]]):
        got = lm.predict(rows)
        assert list(got.columns) == ["prediction"] and got.shape == (len(rows), 1)
        np.testing.assert_allclose(got.to_numpy(float), quiet_r(ro.call, "predict", newdata=rows).to_numpy(float),
                                   rtol=1e-12)
