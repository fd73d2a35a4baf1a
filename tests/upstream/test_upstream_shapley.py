"""iml's upstream expectations for Shapley (``tests/testthat/test-Shapley.R``), in pyiml.

Upstream: after ``set.seed(42)``, ``Shapley$new(predictor1, X[1, ], sample.size = 400)`` has the
columns ``feature, phi, phi.var, feature.value`` and one row per feature, its ``phi`` sum to
``f(x) - mean(f(X))`` within a (relative) tolerance of 0.02, ``$explain(X[2, ])`` gives the same
for the second row within 0.05, ``Shapley$new(predictor1, sample.size = 400)`` followed by ``$explain()`` works, and
``predictor2`` adds the column ``class``. Here every number is also compared with iml 0.11.4 run
live through ``r_bridge`` on the same closed-form model (``pyiml.RRandom(seed)`` against
``set.seed(seed)``; one RRandom follows R's session through successive ``explain`` calls), and
the plots with iml's ggplot objects.
"""
import numpy as np
import pandas as pd
import pytest

from _upstream_model import (X, Y2, assert_equal_results, f, f_multi, predictor1, predictor2, py_plot_facts,
                                 r_plot_facts, r_predictors)
from pyiml import RRandom, Shapley

COLUMNS = ["feature", "phi", "phi.var", "feature.value"]
M = 400


@pytest.fixture(scope="module")
def rp(r):
    return r_predictors()


def _r_shapley(rp_obj, seed, x=None, **params):
    from r_bridge import iml as riml

    if x is not None:
        params["x_interest"] = x
    return riml.iml("Shapley", rp_obj, seed=seed, **params)


def _target(x: pd.DataFrame) -> float:
    """What upstream compares the sum of phi with: f(x) - mean(f(X))."""
    return float(f(x)["pred"].iloc[0] - f(X)["pred"].mean())


def _draws_of_rrandom(seed: int, n_points: int) -> list:
    """The background rows each sample's z comes from, drawn as iml draws them (spec §2.1):
    per point the background sample (``sample.int(N, M, replace = TRUE)``), then per sample a
    feature order and one row of the background sample."""
    rs = RRandom(seed)
    rows = []
    for _ in range(n_points):
        bg = rs.choice(len(X), M, replace=True)
        z = np.empty(M, dtype=int)
        for m in range(M):
            rs.permutation(X.shape[1])
            z[m] = bg[rs.choice(M, 1)[0]]
        rows.append(z)
    return rows


# ------------------------------------------- "Shapley works for single output and single feature"
@pytest.mark.r
def test_single_output_and_explain_equal_iml(rp):
    x1, x2 = X.iloc[[0]], X.iloc[[1]]
    sh = Shapley(predictor1(), x1, sample_size=M, random_state=RRandom(42))
    res = sh.results
    assert type(res) is pd.DataFrame and list(res.columns) == COLUMNS and len(res) == X.shape[1]
    assert res["feature"].tolist() == list(X.columns)
    assert res["feature.value"].tolist() == ["a=1", "b=10", "c=a", "d=A"]
    assert res["phi"].dtype == res["phi.var"].dtype == np.float64
    ro = _r_shapley(rp["predictor1"], 42, x1, sample_size=M)
    assert_equal_results(res, ro.results)
    assert sh.y_hat_interest == float(ro.field("y.hat.interest"))
    assert sh.y_hat_average == float(np.array(ro.field("y.hat.average")).ravel()[0])
    # upstream's expectation holds for X[1, ]
    assert abs(res["phi"].sum() - _target(x1)) <= 0.02 * abs(_target(x1))
    # d is unused: no contribution in any sample
    assert res.loc[3, "phi"] == 0.0 and res.loc[3, "phi.var"] == 0.0

    sh.explain(x2)  # continues the generator, as $explain() continues R's session
    ro.call("explain", x_interest=x2)
    assert_equal_results(sh.results, ro.results)
    assert sh.results["feature.value"].tolist() == ["a=2", "b=20", "c=b", "d=A"]
    assert sh.y_hat_interest == float(ro.field("y.hat.interest"))

    # The sum of phi is exactly f(x) minus the mean prediction of the sampled background rows
    # (the contributions of a sample telescope); with iml's draws re-made from RRandom(42):
    z1, z2 = _draws_of_rrandom(42, 2)
    fX = f(X)["pred"].to_numpy()
    for shx, x, z in ((Shapley(predictor1(), x1, sample_size=M, random_state=RRandom(42)), x1, z1), (sh, x2, z2)):
        expected = f(x)["pred"].iloc[0] - fX[z].mean()
        assert shx.results["phi"].sum() == pytest.approx(expected, rel=0, abs=1e-12)
    # For X[2, ] these draws miss 0.02 (relative error 0.024, iml-r-spec §18.18, in iml itself on
    # R >= 3.6); upstream's test (iml 0.11.0 on) allows 0.05 there. pyiml makes iml's draws, so
    # its error is iml's.
    rel = abs(sh.results["phi"].sum() - _target(x2)) / abs(_target(x2))
    assert rel == pytest.approx(abs(ro.results["phi"].sum() - _target(x2)) / abs(_target(x2)), abs=1e-12)
    assert 0.02 < rel <= 0.05


@pytest.mark.r
def test_without_x_interest_then_explain(r, rp):
    from r_bridge import RError

    sh = Shapley(predictor1(), sample_size=50, random_state=RRandom(42))
    assert sh.results is None and sh.x_interest is None
    sh.explain(X.iloc[[0]])
    # iml-r-spec §18.1: iml 0.11.4 itself fails here (x.interest NULL becomes an empty data frame
    # that it tries to predict); pyiml creates the object and explains later, drawing nothing
    # before explain(), so the result is iml's Shapley$new(predictor1, X[1, ]) after set.seed(42)
    with pytest.raises(RError):
        _r_shapley(rp["predictor1"], 42, sample_size=50)
    assert_equal_results(sh.results, _r_shapley(rp["predictor1"], 42, X.iloc[[0]], sample_size=50).results)


# ------------------------------------------- "Shapley works for multiple output"
@pytest.mark.r
def test_multiple_output_equals_iml(rp):
    x1 = X.iloc[[0]]
    sh = Shapley(predictor2(), x1, sample_size=M, random_state=RRandom(42))
    res = sh.results
    assert list(res.columns) == ["feature", "class", "phi", "phi.var", "feature.value"]
    assert len(res) == 2 * X.shape[1]
    assert isinstance(res["class"].dtype, pd.CategoricalDtype)
    assert list(res["class"].cat.categories) == ["pred", "pred2"]
    assert res["class"].astype(str).tolist() == ["pred"] * 4 + ["pred2"] * 4
    ro = _r_shapley(rp["predictor2"], 42, x1, sample_size=M)
    assert_equal_results(res, ro.results)
    pred = res[res["class"] == "pred"]
    assert abs(pred["phi"].sum() - _target(x1)) <= 0.02 * abs(_target(x1))
    # pred2 = 1 - pred: opposite contributions, same variances
    pred2 = res[res["class"] == "pred2"]
    np.testing.assert_allclose(pred2["phi"].to_numpy(), -pred["phi"].to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(pred2["phi.var"].to_numpy(), pred["phi.var"].to_numpy(), rtol=1e-9, atol=0)
    # y.hat.interest is a one-row frame and y.hat.average one value per output, as in iml
    r_int = ro.field("y.hat.interest")
    assert list(sh.y_hat_interest.columns) == list(r_int.columns) == ["pred", "pred2"]
    np.testing.assert_array_equal(sh.y_hat_interest.to_numpy(), r_int.to_numpy())
    np.testing.assert_array_equal(sh.y_hat_interest.to_numpy()[0], f_multi(x1).to_numpy()[0])
    assert list(sh.y_hat_average.index) == ["pred", "pred2"]
    np.testing.assert_array_equal(sh.y_hat_average.to_numpy(), np.array(ro.field("y.hat.average"), dtype=float))
    assert Y2.tolist() == ["pred", "pred2", "pred2", "pred2", "pred2"]


# ------------------------------------------- sample.size (upstream: 400; iml's default 100)
@pytest.mark.r
@pytest.mark.parametrize("sample_size", [1, 10, None], ids=["1", "10", "default"])
@pytest.mark.parametrize("kind", ["single", "multi"])
def test_sample_size_equals_iml(rp, sample_size, kind):
    pred, rname = (predictor1(), "predictor1") if kind == "single" else (predictor2(), "predictor2")
    params = {} if sample_size is None else {"sample_size": sample_size}
    sh = Shapley(pred, X.iloc[[2]], random_state=RRandom(7), **params)
    assert sh.sample_size == (sample_size or 100)
    assert sh.contributions.shape == (1, sh.sample_size, X.shape[1], 1 if kind == "single" else 2)
    assert_equal_results(sh.results, _r_shapley(rp[rname], 7, X.iloc[[2]], **params).results)
    if sample_size == 1:  # R's var of one value is NA
        assert sh.results["phi.var"].isna().all()


# ------------------------------------------- feature.value and x.interest columns
@pytest.mark.r
def test_feature_values_and_target_column_as_iml(rp):
    # doubles print with R's as.character (15 significant digits, "1e+05"), factors by label;
    # a column named like the target ("pred") is dropped from x.interest, silently, as in iml
    x = pd.DataFrame({"a": [0.1 + 0.2], "b": [100000.0], "c": pd.Categorical(["c"], categories=["a", "b", "c"]),
                      "d": pd.Categorical(["B"], categories=["A", "B"]), "pred": [0.5]})
    sh = Shapley(predictor1(), x, sample_size=20, random_state=RRandom(9))
    assert sh.results["feature.value"].tolist() == ["a=0.3", "b=1e+05", "c=c", "d=B"]
    assert_equal_results(sh.results, _r_shapley(rp["predictor1"], 9, x, sample_size=20).results)


# ------------------------------------------- plots: plot(shap) (single output and multiple output)
@pytest.mark.r
def test_plots_match_iml(r, rp):
    from matplotlib.figure import Figure

    for pred, rname in ((predictor1(), "predictor1"), (predictor2(), "predictor2")):
        sh = Shapley(pred, X.iloc[[0]], sample_size=40, random_state=RRandom(42))
        ro = _r_shapley(rp[rname], 42, X.iloc[[0]], sample_size=40)
        for sort in (True, False):
            fig = sh.plot(sort=sort)
            assert isinstance(fig, Figure)
            facts = py_plot_facts(fig)
            assert facts == r_plot_facts(r, f"plot(sh, sort = {'TRUE' if sort else 'FALSE'})", sh=ro)
        assert facts["xlab"] == "phi"
        if rname == "predictor1":
            assert facts["title"] == "Actual prediction: 0.72\nAverage prediction: 0.47"
            assert facts["axis"] == ["a=1", "b=10", "c=a", "d=A"]  # unsorted: alphabetical from the bottom
        else:
            assert facts["facets"] == ["pred", "pred2"]
