"""iml's upstream expectations for FeatureImp (``tests/testthat/test-FeatureImp.R``), in pyiml.

Each test names the upstream test it restates. Upstream checks the layout (a plain data frame
with the columns ``feature, importance.05, importance, importance.95, permutation.error``, one
row per feature, sorted by decreasing importance) and that plots build; here the numbers are
also compared with iml 0.11.4 run live through ``r_bridge`` on the same closed-form model
(``pyiml.RRandom(seed)`` against ``set.seed(seed)``, DESIGN §4), and the plots with iml's
ggplot objects (axis order and titles).
"""
import numpy as np
import pandas as pd
import pytest

from _upstream_model import (X, Y, assert_equal_results, f, predictor1, predictor2, py_plot_facts,
                                 r_plot_facts, r_predictors)
from pyiml import FeatureImp, Predictor, RRandom

COLUMNS = ["feature", "importance.05", "importance", "importance.95", "permutation.error"]


@pytest.fixture(scope="module")
def rp(r):
    return r_predictors()


def _r_fi(rp_obj, seed, **params):
    from r_bridge import iml as riml

    return riml.iml("FeatureImp", rp_obj, seed=seed, **params)


def _check_layout(res: pd.DataFrame, n_rows: int) -> None:
    assert type(res) is pd.DataFrame
    assert list(res.columns) == COLUMNS
    assert len(res) == n_rows
    assert res["feature"].dtype == object
    assert all(res[c].dtype == np.float64 for c in COLUMNS[1:])
    imp = res["importance"].to_numpy()
    assert np.all(imp[:-1] >= imp[1:])  # sorted by decreasing importance


# ------------------------------------------- "works for single output", "... with single repetition",
# ------------------------------------------- "with difference", "Works for different repetitions."
@pytest.mark.r
@pytest.mark.parametrize("params", [{}, {"n_repetitions": 1}, {"n_repetitions": 2}, {"compare": "difference"}],
                         ids=["default", "n_repetitions=1", "n_repetitions=2", "difference"])
@pytest.mark.parametrize("seed", [42, 7])
def test_single_output_equals_iml(rp, seed, params):
    fi = FeatureImp(predictor1(), "mse", random_state=RRandom(seed), **params)
    _check_layout(fi.results, X.shape[1])
    ro = _r_fi(rp["predictor1"], seed, loss="mse", **params)
    assert_equal_results(fi.results, ro.results)
    assert fi.original_error == float(ro.field("original.error"))
    residual = Y["pred"].to_numpy() - f(X)["pred"].to_numpy()
    assert fi.original_error == pytest.approx(np.mean(residual ** 2), rel=1e-15)
    assert fi.compare == params.get("compare", "ratio") == ro.field("compare")
    assert len(fi.errors) == 4 * params.get("n_repetitions", 5)
    # d is unused: every repetition gives exactly the original error
    d = fi.results.set_index("feature").loc["d"]
    assert d["permutation.error"] == fi.original_error
    assert d["importance"] == (1.0 if fi.compare == "ratio" else 0.0)


# ------------------------------------------- "works for single output and function as loss"
@pytest.mark.r
def test_function_loss_equals_iml_with_metrics_mse(r, rp):
    def mse(actual, predicted):
        return float(np.mean((actual - predicted) ** 2))

    fi = FeatureImp(predictor1(), mse, random_state=RRandom(3))
    _check_layout(fi.results, X.shape[1])
    ro = _r_fi(rp["predictor1"], 3, loss=r.r_eval("Metrics::mse"))
    assert_equal_results(fi.results, ro.results)
    # iml labels a function loss with its source code; pyiml with its name (docs/differences.md)
    assert fi.loss_name == "mse"
    assert fi.plot().axes[0].get_xlabel() == "Feature Importance (loss: mse)"


# ------------------------------------------- "works for multiple output"
@pytest.mark.r
@pytest.mark.parametrize("seed", [42, 5])
def test_multiple_output_ce_equals_iml(rp, seed):
    fi = FeatureImp(predictor2(), "ce", random_state=RRandom(seed))
    _check_layout(fi.results, X.shape[1])
    ro = _r_fi(rp["predictor2"], seed, loss="ce")
    assert_equal_results(fi.results, ro.results)
    # argmax labels: rows 1..5 predict pred, pred2, pred2, pred, pred2; y2 = pred, pred2 x 4
    assert fi.original_error == 0.2 == float(ro.field("original.error"))


# ------------------------------------------- "fails without target vector"
def test_fails_without_target_vector():
    p = Predictor(predict_function=f, data=X)
    with pytest.raises(ValueError, match="y target vector"):
        FeatureImp(p, "ce")


# ------------------------------------------- "Model receives data.frame without additional columns"
@pytest.mark.parametrize("random_state", [RRandom(1), 1], ids=["RRandom", "numpy"])
def test_model_receives_only_the_feature_columns(random_state):
    seen = []

    def model(newdata):
        seen.append(list(newdata.columns))
        return f(newdata)

    for p in (Predictor(predict_function=model, data=X.assign(target=Y["pred"]), y="target"),
              Predictor(predict_function=model, data=X, y=Y["pred"].to_numpy())):
        FeatureImp(p, "mae", random_state=random_state)
    assert seen and all(cols == list(X.columns) for cols in seen)


# ------------------------------------------- "Feature Importance 0"
@pytest.mark.r
@pytest.mark.parametrize("seed", [12, 1])
def test_unused_feature_has_importance_one(r, seed):
    from r_bridge import RFunction, convert
    from r_bridge import iml as riml

    Xi = pd.DataFrame({"x1": np.arange(1, 11), "x2": np.arange(1, 11), "x3": np.arange(1, 11)})  # R integers
    noise = 0.1 * RRandom(12).normal(10)
    np.testing.assert_array_equal(noise, np.array(r.r_eval("set.seed(12); rnorm(10, 0, 0.1)")))
    y = (Xi["x1"] + Xi["x2"]).to_numpy(dtype=float) + noise
    p = Predictor(predict_function=lambda d: d.iloc[:, 0] + d.iloc[:, 1], data=Xi, y=y)
    fi = FeatureImp(p, "mae", n_repetitions=3, random_state=RRandom(seed))
    assert fi.results["feature"].iloc[2] == "x3"
    assert fi.results["importance"].iloc[2] == 1.0
    rpred = riml.r_predictor(data=Xi, y=y, model=RFunction("function(newdata) newdata[, 1] + newdata[, 2]"))
    assert convert.r2py(r.r_eval("sapply(p$data$X, class)", p=rpred)).tolist() == ["integer"] * 3
    assert_equal_results(fi.results, _r_fi(rpred, seed, loss="mae", n_repetitions=3).results)
    # with a numpy source too (the unchanged columns are copied in order: exactly the original error)
    fi_np = FeatureImp(p, "mae", n_repetitions=3, random_state=seed)
    assert fi_np.results.set_index("feature").loc["x3", "importance"] == 1.0


# ------------------------------------------- "works for a subset of features", "... groups of features",
# ------------------------------------------- "... overlapping groups of features"
@pytest.mark.r
@pytest.mark.parametrize("features", [["a", "b"], {"ab": ["a", "b"], "cd": ["c", "d"]},
                                      {"ab": ["a", "b"], "bc": ["b", "c"]}], ids=["subset", "groups", "overlapping"])
def test_subsets_and_groups_equal_iml(rp, features):
    fi = FeatureImp(predictor1(), "mse", features=features, random_state=RRandom(42))
    _check_layout(fi.results, 2)
    assert sorted(fi.results["feature"]) == sorted(features)
    ro = _r_fi(rp["predictor1"], 42, loss="mse", features=features)
    assert_equal_results(fi.results, ro.results)
    fig = fi.plot()
    assert sorted(t.get_text() for t in fig.axes[0].get_yticklabels()) == sorted(features)


# ------------------------------------------- "Invalid feature names are caught"
def test_invalid_feature_names_are_caught():
    # iml: checkmate's "Must be a subset of {'a','b','c','d'}, but has additional elements {'x','y','z'}"
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['x', 'y', 'z'\].*\['a', 'b', 'c', 'd'\]"):
        FeatureImp(predictor1(), "mse", features=["x", "y", "z"])


# ------------------------------------------- "FeatureImp with 0 model error"
_IRIS_RULE_R = """function(newdata) {
  pl <- newdata$Petal.Length; pw <- newdata$Petal.Width
  s <- as.numeric(pl < 2.45); v <- ifelse(pl < 2.45, 0, ifelse(pw < 1.75, 49 / 54, 1 / 46))
  data.frame(setosa = s, versicolor = v, virginica = 1 - s - v)
}"""


def _iris_rule(newdata):
    """The rpart tree upstream fits to iris (depth 2), as class probabilities."""
    pl, pw = newdata["Petal.Length"].to_numpy(dtype=float), newdata["Petal.Width"].to_numpy(dtype=float)
    s = (pl < 2.45).astype(float)
    v = np.where(pl < 2.45, 0.0, np.where(pw < 1.75, 49 / 54, 1 / 46))
    return pd.DataFrame({"setosa": s, "versicolor": v, "virginica": 1 - s - v})


@pytest.mark.r
def test_zero_model_error_switches_to_difference(r):
    from r_bridge import RFunction, RWarning, convert
    from r_bridge import iml as riml

    iris = convert.r2py(r.r_eval("datasets::iris"))
    y = (iris["Species"] == "setosa").to_numpy()  # R: a logical vector; the data keep Species as a feature
    p = Predictor(predict_function=_iris_rule, data=iris, y=y, class_="setosa")
    with pytest.warns(UserWarning, match="Model error is 0, switching from compare='ratio' to compare='difference'"):
        fi = FeatureImp(p, "mae", random_state=RRandom(1))
    assert fi.compare == "difference" and fi.original_error == 0.0
    _check_layout(fi.results, 5)
    rpred = riml.r_predictor(data=iris, y=y, model=RFunction(_IRIS_RULE_R), class_="setosa")
    with pytest.warns(RWarning, match="Model error is 0"):
        ro = _r_fi(rpred, 1, loss="mae")
    assert ro.field("compare") == "difference"
    assert_equal_results(fi.results, ro.results)
    fi.plot()


# ------------------------------------------- earlier upstream versions: the original error is the loss on the data
@pytest.mark.r
def test_original_error_and_unused_feature_on_exact_data(r):
    from r_bridge import RFunction
    from r_bridge import iml as riml

    Xe = pd.DataFrame({"x1": [1.0, 2.0, 3.0], "x2": [9.0, 4.0, 2.0]})
    ye = np.array([2.0, 3.0, 4.0])
    p = Predictor(predict_function=lambda d: d["x1"], data=Xe, y=ye)
    for seed in (1, 2, 3):
        fi = FeatureImp(p, "mse", random_state=RRandom(seed))
        assert fi.original_error == 1.0
        assert fi.results.set_index("feature").loc["x2", "importance"] == 1.0
        rpred = riml.r_predictor(data=Xe, y=ye, model=RFunction('function(newdata) newdata[["x1"]]'))
        assert_equal_results(fi.results, _r_fi(rpred, seed, loss="mse").results)
        fi_d = FeatureImp(p, "mse", compare="difference", random_state=RRandom(seed))
        np.testing.assert_allclose(fi_d.results["importance"], fi.results["importance"] - 1.0, rtol=0, atol=1e-15)


# ------------------------------------------- plots: plot(x), plot(x, sort = FALSE), x$plot()
@pytest.mark.r
@pytest.mark.parametrize("kind", ["single", "multi"])
def test_plots_match_iml(r, rp, kind):
    from matplotlib.figure import Figure

    pred, rname, loss = (predictor1(), "predictor1", "mse") if kind == "single" else (predictor2(), "predictor2", "ce")
    fi = FeatureImp(pred, loss, random_state=RRandom(3))
    ro = _r_fi(rp[rname], 3, loss=loss)
    for sort in (True, False):
        fig = fi.plot(sort=sort)
        assert isinstance(fig, Figure)
        facts = py_plot_facts(fig)
        r_facts = r_plot_facts(r, f"plot(fi, sort = {'TRUE' if sort else 'FALSE'})", fi=ro)
        assert facts == r_facts
        assert facts["xlab"] == f"Feature Importance (loss: {loss})"
    assert py_plot_facts(fi.plot()) == r_plot_facts(r, "fi$plot()", fi=ro)
