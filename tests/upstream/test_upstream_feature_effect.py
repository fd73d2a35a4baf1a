"""iml's own expectations for FeatureEffect, FeatureEffects and Partial, stated for pyiml.

iml's testthat suite (``test-FeatureEffect.R``, ``test-FeatureEffects.R``, ``test-Partial.R``
with the helper data and models of ``helper-predictor.R`` / ``helper.R``) checks result layouts,
row counts, grids, ``predict()``, ``center()``, ``set.feature()``, errors and plots on a
five-row data set and the closed-form model

    f(a, b, c) = (a + b + 100·[c == "a"]) / 155        (two outputs: f and 1 − f)
    f.inter    = (a + b + a·b + 100·[c == "a"] + a·[c == "a"]) / 155

This module rebuilds that data and those models in Python and asserts the same expectations of
pyiml (iml 0.11.4's API: ``.value`` columns, ``.type`` first for ALE, ``.ale`` for 2-D ALE).
Numbers are compared with iml 0.11.4 run live in R through ``r_bridge`` on the same Python model
(called from R), never with typed-in values; where iml compares with ``ALEPlot``, iml itself is
the reference here (ALEPlot is not installed, and iml equals it on these cases).

Where pyiml deliberately differs from iml (docs/differences.md), the test asserts pyiml's
documented behaviour and says so. pyiml takes features by name only, so iml's 1-based indices
(``feature = 3``) appear here as names.
"""
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from parity.harness import compare_frames
from pyiml import FeatureEffect, FeatureEffects, Partial, Predictor

TOL = 1e-10          # relative to the scale of the result (DESIGN §4, deterministic methods)


# ---------------------------------------------------------------------------- the upstream helper
def _data() -> pd.DataFrame:
    return pd.DataFrame({
        "a": [1.0, 2.0, 3.0, 4.0, 5.0],
        "b": [10.0, 20.0, 30.0, 40.0, 50.0],
        "c": pd.Categorical(["a", "b", "c", "a", "b"]),
        "d": pd.Categorical(["A", "A", "B", "B", "B"]),
    })


X = _data()


def _num(d, name):
    return d[name].to_numpy(dtype=float)


def _is_a(d):
    return (np.asarray(d["c"].astype(str)) == "a").astype(float)


def f(d):
    """The helper's model, one output ``pred``."""
    return pd.DataFrame({"pred": (_num(d, "a") + _num(d, "b") + 100 * _is_a(d)) / 155})


def f_multi(d):
    """The helper's two-output model: ``pred`` and ``pred2 = 1 - pred``."""
    out = f(d)
    out["pred2"] = 1 - out["pred"]
    return out


def f_inter(d):
    """The helper's model with interactions."""
    a, b, ia = _num(d, "a"), _num(d, "b"), _is_a(d)
    return pd.DataFrame({"pred": (a + b + a * b + 100 * ia + a * ia) / 155})


MODELS = {"p1": f, "p1_inter": f_inter, "p2": f_multi}


@pytest.fixture(scope="module")
def p1():
    return Predictor(predict_function=f, data=X)


@pytest.fixture(scope="module")
def p2():
    return Predictor(predict_function=f_multi, data=X)


@pytest.fixture(scope="module")
def py_preds(p1, p2):
    return {"p1": p1, "p1_inter": Predictor(predict_function=f_inter, data=X), "p2": p2}


@pytest.fixture(scope="module")
def r_preds(r):
    """iml's Predictor for each model: the Python functions above, called from R."""
    from r_bridge import iml as riml

    return {name: riml.r_predictor(data=X, predict_function=fun) for name, fun in MODELS.items()}


def _r_new(r_preds, cls, pred, **kwargs):
    from r_bridge import iml as riml

    return riml.iml(cls, r_preds[pred], **kwargs)


def assert_same_as_iml(py: pd.DataFrame, r_res: pd.DataFrame, what: str = "results") -> None:
    """Columns, row order, factor levels and values (≤ TOL relative) equal iml's."""
    d, scale, problems = compare_frames(py.reset_index(drop=True), r_res.reset_index(drop=True), what)
    assert not problems, problems
    assert d <= TOL * scale, f"{what}: max abs diff {d:.3g} (scale {scale:.3g})"


def assert_plots(obj, **kwargs) -> Figure:
    """iml's checkPlot: the plot is created and can be drawn."""
    fig = obj.plot(**kwargs)
    assert isinstance(fig, Figure) and fig.axes
    fig.canvas.draw()
    return fig


def n_unique_rows(df: pd.DataFrame) -> int:
    return len(df.astype(object).drop_duplicates())


def assert_switches_to_c_then_b(fe) -> None:
    """iml's set.feature checks on a 1-D PDP: to "c", then to "b", whose 10-point grid spans 10..50."""
    fe.set_feature("c")
    assert fe.feature_name == ["c"]
    fe.set_feature("b")
    assert fe.feature_name == ["b"]
    res = fe.results
    assert list(res.columns) == ["b", ".value", ".type"]
    assert len(res) == 10 == n_unique_rows(res)
    assert (res["b"].min(), res["b"].max()) == (10, 50)


# ---------------------------------------------------------------------------- Partial is FeatureEffect
@pytest.mark.parametrize("aggregation, ice, feature, method", [
    ("pdp", False, "a", "pdp"),
    ("pdp", True, "a", "pdp+ice"),
    ("ale", False, "a", "ale"),
    ("none", True, "a", "ice"),
    ("ale", True, ["a", "c"], "ale"),
])
def test_partial_warns_and_equals_feature_effect(p1, aggregation, ice, feature, method):
    with pytest.warns(FutureWarning, match="(?s)'Partial' is deprecated.*Use 'FeatureEffect' instead"):
        old = Partial(p1, feature, aggregation=aggregation, ice=ice, grid_size=10)
    new = FeatureEffect(p1, feature, method=method, grid_size=10)
    assert isinstance(old, FeatureEffect) and old.method == method
    pd.testing.assert_frame_equal(old.results, new.results)


# ---------------------------------------------------------------------------- PDP, one output
def test_pdp_single_feature_layout_and_predict(p1):
    fe = FeatureEffect(p1, "a", method="pdp", grid_size=10)
    res = fe.results
    assert type(res) is pd.DataFrame
    assert list(res.columns) == ["a", ".value", ".type"]
    assert len(res) == 10 and n_unique_rows(res) == 10
    assert res["a"].max() == 5 and res["a"].min() == 1
    assert_plots(fe)

    one = fe.predict(1)
    assert one.shape == (1,) and np.isfinite(one).all()
    assert np.isnan(fe.predict([-100, 1000], extrapolate=False)).all()
    assert np.isfinite(fe.predict(1000, extrapolate=True)).all()
    for data, n in (([1, 2], 2), (X, 5), (X.iloc[:2], 2)):
        out = fe.predict(data)
        assert out.shape == (n,) and np.isfinite(out).all()
    assert np.isnan(fe.predict(10)).all() and fe.predict(10).shape == (1,)
    assert fe.feature_name == ["a"]

    # categorical PDP: predict() keeps the order of the data (no shuffling by the merge)
    fe.set_feature("c")
    value_of = dict(zip(fe.results["c"].astype(str), fe.results[".value"]))
    np.testing.assert_array_equal(fe.predict(X), [value_of[c] for c in X["c"].astype(str)])

    fe.set_feature("d")
    for extrapolate in (False, True):
        out = fe.predict("A", extrapolate=extrapolate)
        assert out.shape == (1,) and np.isfinite(out).all()
    for data, n in ((["A", "B"], 2), (X, 5), (X.iloc[:2], 2)):
        out = fe.predict(data)
        assert out.shape == (n,) and np.isfinite(out).all()
    assert np.isnan(fe.predict(10)).all()          # not a level

    # pyiml takes names only (iml also takes the 1-based index 3): a number is a TypeError
    with pytest.raises(TypeError, match="name"):
        fe.set_feature(3)
    assert_switches_to_c_then_b(fe)


def test_pdp_centring(p1):
    fe = FeatureEffect(p1, "b", method="pdp", grid_size=10)
    # iml centres at 0, outside b's range [10, 50], by extending the grid; pyiml raises (documented
    # in docs/differences.md: center_at must lie in the feature's range) and keeps the object as it was
    with pytest.raises(ValueError, match="outside the range"):
        fe.center(0)
    assert fe.center_at is None and len(fe.results) == 10
    # the expectation behind iml's test: centred at the smallest grid value, the PDP's minimum is 0
    fe.center(10)
    assert fe.results[".value"].min() == 0
    assert fe.results[".value"].iloc[0] == 0
    assert_plots(fe)
    fig = assert_plots(fe, ylim=(1, 2))
    assert fig.axes[0].get_ylim() == pytest.approx((0.95, 2.05))   # ggplot's limits (1, 2), expanded 5%


def test_pdp_user_grid_points(p1):
    fe = FeatureEffect(p1, "a", method="pdp", grid_points=[1, 2, 3])
    assert fe.results["a"].tolist() == [1, 2, 3]
    fig = assert_plots(fe, ylim=(1, 2))
    assert fig.axes[0].get_ylim() == pytest.approx((0.95, 2.05))   # ggplot's limits (1, 2), expanded 5%
    fe = FeatureEffect(p1, "a", method="pdp", grid_points=[1, 1, 1, 2, 3])
    assert fe.results["a"].tolist() == [1, 2, 3]


def test_pdp_two_numerical_features(p1):
    fe = FeatureEffect(p1, ["a", "b"], method="pdp", grid_size=[10, 2])
    res = fe.results
    assert list(res.columns) == ["a", "b", ".value", ".type"]
    assert len(res) == 20 and n_unique_rows(res) == 20
    assert (res["a"].min(), res["a"].max(), res["b"].min(), res["b"].max()) == (1, 5, 10, 50)
    assert_plots(fe)
    with pytest.raises(ValueError, match="single feature"):
        fe.predict(1)
    pd.testing.assert_frame_equal(res, FeatureEffect(p1, ["a", "b"], method="pdp", grid_size=[10, 2]).results)
    # iml silently drops center.at for two features; pyiml raises (docs/differences.md)
    with pytest.raises(ValueError, match="center_at"):
        FeatureEffect(p1, ["a", "b"], method="pdp", center_at=0, grid_size=[10, 2])

    fe = FeatureEffect(p1, ["a", "b"], method="pdp", grid_points=[[1, 2, 3], [10, 10, 20, 40]])
    res = fe.results
    assert list(res.columns) == ["a", "b", ".value", ".type"]
    assert len(res) == 3 * 3
    assert (res["a"].min(), res["a"].max(), res["b"].min(), res["b"].max()) == (1, 3, 10, 40)

    fe = FeatureEffect(p1, ["a", "b"], method="pdp", grid_size=7)
    assert list(fe.results.columns) == ["a", "b", ".value", ".type"]
    assert len(fe.results) == 49 and n_unique_rows(fe.results) == 49
    assert (fe.results["a"].min(), fe.results["a"].max()) == (1, 5)
    assert_plots(fe)
    with pytest.raises(ValueError):
        fe.predict(1)


def test_pdp_numerical_and_categorical_features(p1):
    fe = FeatureEffect(p1, ["a", "c"], method="pdp", grid_size=11)
    res = fe.results
    assert list(res.columns) == ["a", "c", ".value", ".type"]
    assert len(res) == 11 * 3 and n_unique_rows(res) == 33
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert list(pd.unique(res["c"])) == list(pd.unique(X["c"]))
    assert list(res["c"].cat.categories) == list(X["c"].cat.categories)
    assert_plots(fe)
    with pytest.raises(ValueError):
        fe.predict(1)

    fe = FeatureEffect(p1, ["c", "b"], method="pdp", grid_size=[7, 9])
    res = fe.results
    assert list(res.columns) == ["c", "b", ".value", ".type"]
    assert len(res) == 9 * 3 and n_unique_rows(res) == 27
    assert (res["b"].min(), res["b"].max()) == (10, 50)
    assert list(pd.unique(res["c"])) == list(pd.unique(X["c"]))
    assert_plots(fe)
    with pytest.raises(ValueError):
        fe.predict(1)

    fe = FeatureEffect(p1, ["c", "b"], method="pdp", grid_points=[["a", "b"], [10, 11]])
    res = fe.results
    assert list(res.columns) == ["c", "b", ".value", ".type"]
    assert len(res) == 4 and n_unique_rows(res) == 4
    assert (res["b"].min(), res["b"].max()) == (10, 11)
    assert [str(v) for v in pd.unique(res["c"])] == ["a", "b"]
    # as iml's expand.grid: the given level names, in the given order, are the factor's levels
    assert list(res["c"].cat.categories) == ["a", "b"]
    assert_plots(fe)
    with pytest.raises(ValueError):
        fe.predict(1)


X_STR = X.assign(c=["c", "b", "a", "a", "b"])      # a string feature, levels not in sorted order


def test_two_feature_pdp_levels_follow_expand_grid():
    """The expectation above for string features: iml's expand.grid makes a factor whose levels
    are the grid values in order of appearance (the data's, or the given level names)."""
    p = Predictor(predict_function=f, data=X_STR)
    res = FeatureEffect(p, ["c", "b"], method="pdp", grid_size=[3, 2]).results
    assert list(res["c"].cat.categories) == ["c", "b", "a"] == list(pd.unique(res["c"]))
    res = FeatureEffect(p, ["b", "c"], method="pdp", grid_points=[[10, 11], ["b", "a"]]).results
    assert list(res["c"].cat.categories) == ["b", "a"]
    assert res["c"].astype(str).tolist() == ["b", "b", "a", "a"]
    # one feature: the column keeps the data's dtype (strings)
    assert FeatureEffect(p, "c", method="pdp").results["c"].tolist() == ["c", "b", "a"]


def test_pdp_ice_categorical_feature(p1):
    fe = FeatureEffect(p1, "c", method="pdp+ice", grid_size=10)
    assert list(fe.results.columns) == ["c", ".value", ".type", ".id"]
    assert len(fe.results) == 3 * (len(X) + 1)
    assert_plots(fe)
    fe = FeatureEffect(p1, "c", method="pdp+ice", grid_points=["a", "b"])
    assert list(fe.results.columns) == ["c", ".value", ".type", ".id"]
    assert len(fe.results) == 2 * (len(X) + 1)
    assert_plots(fe)


# ---------------------------------------------------------------------------- PDP / ICE, several outputs
def test_pdp_and_ice_multiple_outputs(p1, p2):
    fe = FeatureEffect(p2, "a", method="pdp", grid_size=10)
    res = fe.results
    with pytest.raises(ValueError, match="one-dimensional output"):
        fe.predict(2)
    assert list(res.columns) == ["a", ".class", ".value", ".type"]
    assert len(res) == 20 and n_unique_rows(res) == 20
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)

    fe = FeatureEffect(p2, "a", method="pdp+ice", grid_size=10)
    res = fe.results
    assert list(res.columns) == ["a", ".class", ".value", ".type", ".id"]
    assert len(res) == 10 * 2 + 10 * len(X) * 2 == n_unique_rows(res)
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)

    fe = FeatureEffect(p1, "a", method="ice", grid_size=10)
    res = fe.results
    assert list(res.columns) == ["a", ".value", ".type", ".id"]
    assert len(res) == 10 * len(X) == n_unique_rows(res)
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)
    with pytest.raises(ValueError, match="ICE is not implemented for two features"):
        FeatureEffect(p1, ["a", "c"], method="ice", grid_size=10)

    fe = FeatureEffect(p2, "a", method="ice", grid_size=10)
    res = fe.results
    assert list(res.columns) == ["a", ".class", ".value", ".type", ".id"]
    assert len(res) == 10 * len(X) * 2 == n_unique_rows(res)
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)


def test_centred_pdp_ice_multiple_outputs(p2):
    # iml's test (skipped upstream) centres at 10, outside a's range [1, 5], which extends the grid;
    # pyiml raises instead (docs/differences.md). The same expectations hold for a value inside.
    with pytest.raises(ValueError, match="outside the range"):
        FeatureEffect(p2, "a", method="pdp+ice", grid_size=10, center_at=10)
    fe = FeatureEffect(p2, "a", method="pdp+ice", grid_size=10, center_at=3)
    res = fe.results
    assert fe.center_at == 3
    assert list(res.columns) == ["a", ".class", ".value", ".type", ".id"]
    assert len(res) == 11 * len(X) * 2 + 11 * 2 == n_unique_rows(res)      # the anchor joins the grid
    assert (res["a"].min(), res["a"].max()) == (1, 5) and (res["a"] == 3).any()
    assert (res.loc[res["a"] == 3, ".value"] == 0).all()
    assert_plots(fe)

    fe.center(1)
    assert fe.center_at == 1
    with pytest.raises(AttributeError):         # read-only, as iml's active binding
        fe.center_at = 10
    assert fe.center_at == 1
    res = fe.results
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert len(res) == 10 * len(X) * 2 + 10 * 2           # 1 is a grid point already
    assert (res.loc[res["a"] == 1, ".value"] == 0).all()


# ---------------------------------------------------------------------------- ALE, one feature
def test_ale_one_numerical_feature(p1, p2):
    fe = FeatureEffect(p1, "a", method="ale", grid_size=3)
    res = fe.results
    assert type(res) is pd.DataFrame
    assert list(res.columns) == [".type", ".value", "a"]
    assert len(res) == 4 and n_unique_rows(res) == 4
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)

    assert fe.feature_name == ["a"]
    fe.set_feature("b")
    assert fe.feature_name == ["b"]
    res = fe.results
    assert list(res.columns) == [".type", ".value", "b"]
    assert len(res) == 4 and n_unique_rows(res) == 4
    assert (res["b"].min(), res["b"].max()) == (10, 50)

    # iml warns that ALE cannot be centred and changes nothing; pyiml shifts the ALE curve to 0 at
    # center_at (docs/differences.md), inside the feature's range only
    with pytest.raises(ValueError, match="outside the range"):
        fe.center(0)
    before = fe.results[".value"].to_numpy()
    fe.center(30)
    at_30 = fe.predict(30)[0]
    assert abs(at_30) < 1e-15
    np.testing.assert_allclose(fe.results[".value"].to_numpy(), before - np.interp(30, res["b"], before),
                               rtol=0, atol=1e-15)

    fe = FeatureEffect(p2, "a", method="ale", grid_size=3)
    res = fe.results
    assert list(res.columns) == [".type", ".class", ".value", "a"]
    assert len(res) == 4 * 2
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)


def test_ale_user_grid_points_inside_the_data(p1):
    fe = FeatureEffect(p1, "a", method="ale", grid_points=[1, 2, 3])
    res = fe.results
    assert list(res.columns) == [".type", ".value", "a"]
    assert len(res) == 3 and n_unique_rows(res) == 3
    assert (res["a"].min(), res["a"].max()) == (1, 3)
    assert_plots(fe)
    # docs/differences.md: pyiml leaves out the rows beyond the last grid point (iml gives them a
    # phantom interval that still weighs in the centring). Here a = 1, 2 fall into (1, 2] (the minimum
    # is folded into the first interval), a = 3 into (2, 3]; every step of f in a is 1/155, so the
    # accumulated curve is (0, 1, 2)/155 and the centring constant the count-weighted mean of the
    # interval midpoints, (2·0.5 + 1·1.5)/3 / 155.
    expected = (np.array([0.0, 1.0, 2.0]) - (2 * 0.5 + 1 * 1.5) / 3) / 155
    np.testing.assert_allclose(res[".value"].to_numpy(), expected, rtol=0, atol=1e-15)


def test_ale_one_categorical_feature(p1, p2):
    fe = FeatureEffect(p1, "c")
    res = fe.results
    assert list(res.columns) == [".type", ".value", "c"]
    assert len(res) == X["c"].nunique()
    assert_plots(fe)

    assert fe.feature_name == ["c"]
    fe.set_feature("d")
    assert fe.feature_name == ["d"]
    assert list(fe.results.columns) == [".type", ".value", "d"]
    # iml warns and ignores centring of ALE; pyiml raises for a categorical feature (docs/differences.md)
    with pytest.raises(ValueError, match="categorical"):
        fe.center(0)
    assert fe.center_at is None

    fe = FeatureEffect(p2, "c", method="ale", grid_size=100)
    res = fe.results
    assert list(res.columns) == [".type", ".class", ".value", "c"]
    assert len(res) == X["c"].nunique() * 2
    assert_plots(fe)

    X2 = X.copy()
    X2["c"] = X2["c"].cat.as_ordered()
    fe = FeatureEffect(Predictor(predict_function=f, data=X2), "c")
    res = fe.results
    assert list(res.columns) == [".type", ".value", "c"]
    assert len(res) == 3
    assert res["c"].astype(str).tolist() == ["a", "b", "c"]           # the user's order, no MDS
    assert_plots(fe)


def test_ale_single_category_raises():
    reduced = X.iloc[2:5].reset_index(drop=True)           # rows 3 to 5: d is "B" throughout
    pred = Predictor(predict_function=f, data=reduced)
    with pytest.raises(ValueError, match="feature 'd' has only one unique value"):
        FeatureEffect(pred, "d", method="ale")


# ---------------------------------------------------------------------------- ALE, two features
def test_ale_two_numerical_features(p1, p2):
    columns = {".type", ".ale", ".right", ".left", ".bottom", ".top", "a", "b"}
    fe = FeatureEffect(p1, ["a", "b"], grid_size=[10, 5])
    res = fe.results
    assert set(res.columns) == columns and len(res.columns) == len(columns)
    assert len(res) <= 10 * 5 and n_unique_rows(res) <= 10 * 5
    assert (res["a"].min(), res["a"].max(), res["b"].min(), res["b"].max()) == (1, 5, 10, 50)
    assert_plots(fe)
    pd.testing.assert_frame_equal(res, FeatureEffect(p1, ["a", "b"], grid_size=[10, 5], method="ale").results)
    # iml's comparison with ALEPlot casts .ale into an a × b matrix: every crossing has one row
    assert len(res) == res["a"].nunique() * res["b"].nunique() == n_unique_rows(res[["a", "b"]])

    fe = FeatureEffect(p2, ["a", "b"], method="ale", grid_size=[10, 5])
    res = fe.results
    assert set(res.columns) == columns | {".class"} and len(res.columns) == len(columns) + 1
    assert len(res) <= 10 * 5 * 2
    assert (res["a"].min(), res["a"].max(), res["b"].min(), res["b"].max()) == (1, 5, 10, 50)
    assert_plots(fe)
    pd.testing.assert_frame_equal(res, FeatureEffect(p2, ["a", "b"], grid_size=[10, 5], method="ale").results)

    fe = FeatureEffect(p2, ["a", "b"], method="ale", grid_points=[[3, 4, 5], [30, 40, 52]])
    res = fe.results
    assert set(res.columns) == columns | {".class"}
    assert n_unique_rows(res) <= 2 * 9
    assert len(res) == 2 * 9            # pyiml: a row for every grid crossing (docs/differences.md)
    assert (res["a"].min(), res["a"].max(), res["b"].min(), res["b"].max()) == (3, 5, 30, 52)
    assert list(pd.unique(res["a"])) == [3, 4, 5] and list(pd.unique(res["b"])) == [30, 40, 52]
    assert_plots(fe)


def test_ale_numerical_by_categorical(p1, p2):
    columns = {".type", ".ale", ".right", ".left", ".bottom", ".top", "a", "c"}
    fe = FeatureEffect(p1, ["a", "c"], grid_size=2)
    res = fe.results
    assert set(res.columns) == columns
    assert len(res) == (1 + 2) * X["c"].nunique()
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)
    pd.testing.assert_frame_equal(res, FeatureEffect(p1, ["c", "a"], grid_size=2, method="ale").results)
    assert len(res) == res["a"].nunique() * res["c"].nunique() == n_unique_rows(res[["a", "c"]])

    fe = FeatureEffect(p2, ["a", "c"], grid_size=[3, 5])
    res = fe.results
    assert set(res.columns) == columns | {".class"}
    assert len(res) == (1 + 3) * X["c"].nunique() * 2
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(fe)
    pd.testing.assert_frame_equal(res, FeatureEffect(p2, ["a", "c"], grid_size=[3, 5], method="ale").results)

    # iml takes the numerical feature's grid points as one flat vector here (sorted, de-duplicated)
    fe = FeatureEffect(p2, ["a", "c"], grid_points=[2, 4, 1])
    res = fe.results
    assert set(res.columns) == columns | {".class"}
    assert len(res) == 3 * 3 * 2            # levels × grid points × outputs
    assert (res["a"].min(), res["a"].max()) == (1, 4)
    assert_plots(fe)
    # the same as pyiml's pair form with None for the categorical feature, in either order
    pd.testing.assert_frame_equal(res, FeatureEffect(p2, ["a", "c"], grid_points=[[2, 4, 1], None]).results)
    pd.testing.assert_frame_equal(res, FeatureEffect(p2, ["c", "a"], grid_points=np.array([2, 4, 1])).results)


def test_empty_level_is_dropped():
    """iml's "FeatureEffect handles empty level": a factor with an unused level (first in the level
    order) gives the effects of the same data without it. The model is iml's ``lm(y ~ x)`` on
    y = 1..10, x = 1, 2, 1, 2, …: 5 for level "1", 6 for level "2"."""
    rng = np.random.default_rng(123)
    data = pd.DataFrame({"x": pd.Categorical(["1", "2"] * 5, categories=["3", "2", "1"]), "xx": rng.normal(size=10)})
    dropped = data.assign(x=data["x"].cat.remove_unused_categories())
    for method in ("ale", "pdp+ice"):
        with_level = FeatureEffect(Predictor(predict_function=_lm_x, data=data), "x", method=method).results
        without = FeatureEffect(Predictor(predict_function=_lm_x, data=dropped), "x", method=method).results
        assert with_level.astype({"x": str}).equals(without.astype({"x": str})), method
    ale = FeatureEffect(Predictor(predict_function=_lm_x, data=data), "x").results
    assert list(ale["x"].cat.categories) == ["2", "1"]               # used levels only
    np.testing.assert_allclose(ale.set_index(ale["x"].astype(str))[".value"].loc[["1", "2"]], [-0.5, 0.5],
                               rtol=0, atol=1e-15)


def _lm_x(d):
    return 5.0 + (np.asarray(d["x"].astype(str)) == "2")


# ---------------------------------------------------------------------------- FeatureEffects
def test_feature_effects_equal_single_effects(p1):
    fes = FeatureEffects(p1, method="pdp", grid_size=10)
    fig = assert_plots(fes)
    assert sum(ax.get_visible() and bool(ax.has_data()) for ax in fig.axes) >= 4
    singles = {f: FeatureEffect(p1, f, method="pdp", grid_size=10) for f in "abcd"}
    for f in "abcd":
        pd.testing.assert_frame_equal(singles[f].results, fes.effects[f].results)

    fes = FeatureEffects(p1, features=["a", "c"], method="pdp", grid_size=10)
    assert_plots(fes)
    assert list(fes.effects) == ["a", "c"]
    for f in "ac":
        pd.testing.assert_frame_equal(singles[f].results, fes.effects[f].results)

    for method, size in (("ale", 10), ("pdp+ice", 2)):
        fes = FeatureEffects(p1, method=method, grid_size=size)
        assert_plots(fes)
        pd.testing.assert_frame_equal(FeatureEffect(p1, "a", method=method, grid_size=size).results,
                                      fes.effects["a"].results)


# ---------------------------------------------------------------------------- Partial (test-Partial.R)
def _partial(*args, **kwargs):
    with pytest.warns(FutureWarning, match="'Partial' is deprecated"):
        return Partial(*args, **kwargs)


def test_partial_pdp_single_output(p1, p2):
    obj = _partial(p1, "a", ice=False, grid_size=10)
    res = obj.results
    assert list(res.columns) == ["a", ".value", ".type"]
    assert len(res) == 10 == n_unique_rows(res)
    assert (res["a"].min(), res["a"].max()) == (1, 5)
    assert_plots(obj)
    assert obj.feature_name == ["a"]
    assert_switches_to_c_then_b(obj)
    obj.center(10)                # iml centres at 0, outside b's range: pyiml raises there (see above)
    assert_plots(obj)
    assert obj.results[".value"].min() == 0

    # two features: ice is switched off, so ice=True and ice=False give the same PDP
    obj = _partial(p1, ["a", "b"], ice=False, grid_size=[10, 2])
    res = obj.results
    assert list(res.columns) == ["a", "b", ".value", ".type"]
    assert len(res) == 20 == n_unique_rows(res)
    assert (res["a"].min(), res["a"].max(), res["b"].min(), res["b"].max()) == (1, 5, 10, 50)
    assert_plots(obj)
    pd.testing.assert_frame_equal(res, _partial(p1, ["a", "b"], ice=True, grid_size=[10, 2]).results)
    with pytest.raises(ValueError, match="center_at"):          # iml drops it silently (differences.md)
        _partial(p1, ["a", "b"], center_at=0, grid_size=[10, 2])

    obj = _partial(p1, ["a", "b"], grid_size=7)
    assert list(obj.results.columns) == ["a", "b", ".value", ".type"] and len(obj.results) == 49
    obj = _partial(p1, ["a", "c"], grid_size=11)
    assert list(obj.results.columns) == ["a", "c", ".value", ".type"] and len(obj.results) == 33
    assert list(pd.unique(obj.results["c"])) == list(pd.unique(X["c"]))
    obj = _partial(p1, ["c", "b"], grid_size=[7, 9])
    assert list(obj.results.columns) == ["c", "b", ".value", ".type"] and len(obj.results) == 27
    assert_plots(obj)


def test_partial_multiple_outputs_and_ice(p1, p2):
    obj = _partial(p2, "a", ice=False, grid_size=10)
    assert list(obj.results.columns) == ["a", ".class", ".value", ".type"]
    assert len(obj.results) == 20 == n_unique_rows(obj.results)
    obj = _partial(p2, "a", grid_size=10)
    assert list(obj.results.columns) == ["a", ".class", ".value", ".type", ".id"]
    assert len(obj.results) == 10 * 2 + 10 * len(X) * 2 == n_unique_rows(obj.results)
    assert_plots(obj)
    obj = _partial(p1, "a", aggregation="none", grid_size=10)
    assert list(obj.results.columns) == ["a", ".value", ".type", ".id"]
    assert len(obj.results) == 10 * len(X) == n_unique_rows(obj.results)
    obj = _partial(p2, "a", aggregation="none", grid_size=10)
    assert list(obj.results.columns) == ["a", ".class", ".value", ".type", ".id"]
    assert len(obj.results) == 10 * len(X) * 2
    assert_plots(obj)
    obj = _partial(p2, "a", grid_size=10, center_at=3, ice=True)
    assert obj.center_at == 3 and len(obj.results) == 11 * len(X) * 2 + 11 * 2
    obj.center(1)
    assert obj.center_at == 1 and obj.results["a"].min() == 1


def test_partial_bad_arguments(p1):
    with pytest.raises(ValueError, match="aggregation must be one of"):
        Partial(p1, "a", aggregation="mean")
    with pytest.raises(TypeError, match="ice must be True or False"):
        Partial(p1, "a", ice="yes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(ValueError, match="ICE is not implemented for two features"):
            Partial(p1, ["a", "b"], aggregation="none")        # "none" means ICE, which is 1-D


# ---------------------------------------------------------------------------- the numbers: iml live in R
R_CASES = [
    ("p1", "a", dict(method="pdp", grid_size=10)),
    ("p1", "b", dict(method="pdp", grid_size=10, center_at=10)),
    ("p1", "a", dict(method="pdp", grid_points=[1, 2, 3])),
    ("p1", "a", dict(method="pdp", grid_points=[1, 1, 1, 2, 3])),
    ("p1", ["a", "b"], dict(method="pdp", grid_size=[10, 2])),
    ("p1", ["a", "b"], dict(method="pdp", grid_points=[[1, 2, 3], [10, 10, 20, 40]])),
    ("p1", ["a", "b"], dict(method="pdp", grid_size=7)),
    ("p1", ["a", "c"], dict(method="pdp", grid_size=11)),
    ("p1", ["c", "b"], dict(method="pdp", grid_size=[7, 9])),
    ("p1", ["c", "b"], dict(method="pdp", grid_points=[["a", "b"], [10, 11]])),
    ("p1", "c", dict(method="pdp+ice", grid_size=10)),
    ("p1", "c", dict(method="pdp+ice", grid_points=["a", "b"])),
    ("p2", "a", dict(method="pdp", grid_size=10)),
    ("p2", "a", dict(method="pdp+ice", grid_size=10)),
    ("p1", "a", dict(method="ice", grid_size=10)),
    ("p2", "a", dict(method="ice", grid_size=10)),
    ("p2", "a", dict(method="pdp+ice", grid_size=10, center_at=3)),
    ("p1", "a", dict(method="ale", grid_size=3)),
    ("p1", "b", dict(method="ale", grid_size=3)),
    ("p2", "a", dict(method="ale", grid_size=3)),
    ("p1", ["a", "b"], dict(method="ale", grid_size=[10, 5])),
    ("p2", ["a", "b"], dict(method="ale", grid_size=[10, 5])),
    ("p2", ["a", "b"], dict(method="ale", grid_points=[[3, 4, 5], [30, 40, 52]])),
    ("p1", ["a", "b"], dict(method="ale", grid_size=5)),            # iml's ALEPlot comparisons
    ("p1_inter", ["a", "b"], dict(method="ale", grid_size=5)),
    ("p1", "c", dict(method="ale")),
    ("p1_inter", "c", dict(method="ale")),
    ("p1_inter", ["a", "c"], dict(method="ale")),
    ("p1", "d", dict(method="ale")),
    ("p2", "c", dict(method="ale", grid_size=100)),
    ("p1", ["a", "c"], dict(method="ale", grid_size=2)),
    ("p1", ["c", "a"], dict(method="ale", grid_size=2)),
    ("p2", ["a", "c"], dict(method="ale", grid_size=[3, 5])),
    ("p2", ["a", "c"], dict(method="ale", grid_points=[2, 4, 1])),
]


@pytest.mark.r
@pytest.mark.parametrize("pred, feature, kwargs", R_CASES,
                         ids=[f"{p}-{'x'.join([f] if isinstance(f, str) else f)}-{k['method']}-{i}"
                              for i, (p, f, k) in enumerate(R_CASES)])
def test_results_equal_iml(py_preds, r_preds, pred, feature, kwargs):
    py = FeatureEffect(py_preds[pred], feature, **kwargs)
    robj = _r_new(r_preds, "FeatureEffect", pred, feature=feature, **kwargs)
    assert_same_as_iml(py.results, robj.results)
    assert py.grid_size == {k: int(v) for k, v in dict(robj.field("grid.size")).items()}


@pytest.mark.r
def test_predict_set_feature_and_center_equal_iml(py_preds, r_preds):
    py = FeatureEffect(py_preds["p1"], "a", method="pdp", grid_size=10)
    robj = _r_new(r_preds, "FeatureEffect", "p1", feature="a", method="pdp", grid_size=10)
    queries = [1.0, [-100.0, 1000.0], [1.0, 2.0], [10.0], [1.5, 2.25, 4.75]]
    for q in queries:
        for extrapolate in (False, True):
            got_r = np.atleast_1d(np.asarray(robj.call("predict", q, extrapolate=extrapolate), dtype=float))
            np.testing.assert_allclose(py.predict(q, extrapolate=extrapolate), got_r, rtol=TOL, atol=0)
    np.testing.assert_allclose(py.predict(X), np.asarray(robj.call("predict", X), dtype=float), rtol=TOL, atol=0)
    for feature in ("c", "d"):
        py.set_feature(feature)
        robj.call("set.feature", feature)
        assert_same_as_iml(py.results, robj.results, f"set_feature({feature!r})")
        np.testing.assert_allclose(py.predict(X), np.asarray(robj.call("predict", X), dtype=float), rtol=TOL, atol=0)
    np.testing.assert_allclose(py.predict(["A", "B"]), np.asarray(robj.call("predict", ["A", "B"]), dtype=float),
                               rtol=TOL, atol=0)
    py.set_feature("b")
    robj.call("set.feature", "b")
    py.center(30)
    robj.call("center", 30)
    assert_same_as_iml(py.results, robj.results, "center(30)")

    ale = FeatureEffect(py_preds["p1"], "a", grid_size=3)
    r_ale = _r_new(r_preds, "FeatureEffect", "p1", feature="a", grid_size=3)
    q = [0.0, 1.0, 1.5, 3.0, 5.0, 6.0]
    np.testing.assert_allclose(ale.predict(q), np.asarray(r_ale.call("predict", q), dtype=float), rtol=TOL, atol=0)

    cen = FeatureEffect(py_preds["p2"], "a", method="pdp+ice", grid_size=10, center_at=3)
    r_cen = _r_new(r_preds, "FeatureEffect", "p2", feature="a", method="pdp+ice", grid_size=10, center_at=3)
    cen.center(1)
    r_cen.call("center", 1)
    assert_same_as_iml(cen.results, r_cen.results, "center(1)")
    assert float(r_cen.field("center.at")) == cen.center_at == 1


@pytest.mark.r
@pytest.mark.parametrize("feature, kwargs", [
    (["c", "b"], dict(grid_size=[3, 2])),
    (["b", "c"], dict(grid_points=[[10, 11], ["b", "a"]])),
    ("c", dict()),
])
def test_string_feature_pdp_equals_iml(r, feature, kwargs):
    from r_bridge import iml as riml

    rp = riml.r_predictor(data=X_STR, predict_function=f)
    py = FeatureEffect(Predictor(predict_function=f, data=X_STR), feature, method="pdp", **kwargs)
    assert_same_as_iml(py.results, riml.iml("FeatureEffect", rp, feature=feature, method="pdp", **kwargs).results)


@pytest.mark.r
def test_empty_level_equals_iml(r):
    from r_bridge import iml as riml

    rng = np.random.default_rng(123)
    data = pd.DataFrame({"x": pd.Categorical(["1", "2"] * 5, categories=["3", "2", "1"]), "xx": rng.normal(size=10)})
    rp = riml.r_predictor(data=data, predict_function=_lm_x)
    p = Predictor(predict_function=_lm_x, data=data)
    for method in ("ale", "pdp+ice"):
        assert_same_as_iml(FeatureEffect(p, "x", method=method).results,
                           riml.iml("FeatureEffect", rp, feature="x", method=method).results, method)


@pytest.mark.r
@pytest.mark.parametrize("method, size", [("pdp", 10), ("ale", 10), ("pdp+ice", 2)])
def test_feature_effects_equal_iml(py_preds, r_preds, method, size):
    py = FeatureEffects(py_preds["p1"], method=method, grid_size=size)
    robj = _r_new(r_preds, "FeatureEffects", "p1", method=method, grid_size=size)
    r_res = robj.results
    assert list(py.results) == list(r_res) == ["a", "b", "c", "d"]
    for f in r_res:
        assert_same_as_iml(py.results[f], r_res[f], f"results[{f!r}]")
    sub = FeatureEffects(py_preds["p1"], features=["a", "c"], method=method, grid_size=size)
    r_sub = _r_new(r_preds, "FeatureEffects", "p1", features=["a", "c"], method=method, grid_size=size)
    assert list(sub.effects) == list(r_sub.field("effects")) == ["a", "c"]


@pytest.mark.r
@pytest.mark.parametrize("pred, feature, kwargs", [
    ("p1", "a", dict(aggregation="pdp", ice=False, grid_size=10)),
    ("p1", "a", dict(aggregation="pdp", ice=True, grid_size=10)),
    ("p1", "a", dict(aggregation="ale", ice=False, grid_size=10)),
    ("p1", "a", dict(aggregation="none", ice=True, grid_size=10)),
    ("p1", ["a", "c"], dict(aggregation="ale", ice=True, grid_size=10)),
    ("p1", ["a", "b"], dict(ice=True, grid_size=[10, 2])),
    ("p2", "a", dict(grid_size=10)),
    ("p2", "a", dict(aggregation="none", grid_size=10)),
    ("p2", "a", dict(grid_size=10, center_at=3)),
])
def test_partial_equals_iml_partial(py_preds, r_preds, pred, feature, kwargs):
    from r_bridge import RWarning

    py = _partial(py_preds[pred], feature, **kwargs)
    with pytest.warns(RWarning, match="'Partial' is deprecated"):
        robj = _r_new(r_preds, "Partial", pred, feature=feature, **kwargs)
    assert robj.field("method") == py.method
    assert_same_as_iml(py.results, robj.results)
