"""iml's upstream expectations for Interaction (``tests/testthat/test-Interaction.R``), in pyiml.

Upstream: ``Interaction$new(predictor1)`` has the columns ``.feature, .interaction``, one row per
feature and values in [0, 1.000001] without missing values; ``feature = "a"`` gives the
two-way statistics of the other three features; two or three features fail; ``predictor2``
adds ``.class`` (2 × 4 rows); ``h.test`` gives 0, 0, 1 and a number in [0, 1] on four small
vectors; plots build. Here the values are also compared with iml 0.11.4 run live through
``r_bridge`` on the same closed-form models (``pyiml.RRandom(seed)`` against ``set.seed(seed)``),
including ``predictor1.inter`` (a model with interactions) and grid sizes below the number
of rows, where the grid rows are random; the plots with iml's ggplot objects.
"""
import numpy as np
import pandas as pd
import pytest

from _upstream_model import (X, assert_equal_results, predictor1, predictor1_inter, predictor2, py_plot_facts,
                                 r_plot_facts, r_predictors)
from pyiml import Interaction, RRandom
from pyiml.interaction import h_statistic

PREDICTORS = {"predictor1": predictor1, "predictor2": predictor2, "predictor1.inter": predictor1_inter}


@pytest.fixture(scope="module")
def rp(r):
    return r_predictors()


def _r_interaction(rp_obj, seed, **params):
    from r_bridge import iml as riml

    return riml.iml("Interaction", rp_obj, seed=seed, **params)


def _check_range(res: pd.DataFrame) -> None:
    """Upstream's ``test.interaction.range``: numbers in [0, 1.000001], finite, none missing."""
    h = res[".interaction"].to_numpy()
    assert h.dtype == np.float64
    assert np.all(np.isfinite(h))
    assert np.all((h >= 0) & (h <= 1.000001))


# ------------------------------------------- "Interaction works for all features"
@pytest.mark.r
@pytest.mark.parametrize("name", ["predictor1", "predictor1.inter"])
def test_all_features_equal_iml(rp, name):
    ia = Interaction(PREDICTORS[name](), random_state=RRandom(1))
    res = ia.results
    assert type(res) is pd.DataFrame and list(res.columns) == [".feature", ".interaction"]
    assert res[".feature"].tolist() == list(X.columns)
    _check_range(res)
    ro = _r_interaction(rp[name], 1)
    assert_equal_results(res, ro.results)
    assert ia.grid_size == 5 == float(ro.field("grid.size"))  # min(30, rows)
    if name == "predictor1":  # additive model
        assert res[".interaction"].max() < 1e-12
    else:  # a*b and a*[c == "a"]; d unused
        h = res.set_index(".feature")[".interaction"]
        assert h["a"] > 0.1 and h["b"] > 0.1 and 0 < h["c"] < 0.05 and h["d"] == 0.0
    # the grid is all five rows: the results do not depend on the seed
    pd.testing.assert_frame_equal(res, Interaction(PREDICTORS[name](), random_state=RRandom(99)).results)


# ------------------------------------------- "Interaction works for 2-way interactions"
@pytest.mark.r
@pytest.mark.parametrize("name", ["predictor1", "predictor1.inter"])
def test_two_way_equals_iml(rp, name):
    ia = Interaction(PREDICTORS[name](), feature="a", random_state=RRandom(1))
    res = ia.results
    assert list(res.columns) == [".feature", ".interaction"]
    assert res[".feature"].tolist() == ["b:a", "c:a", "d:a"]  # the other feature first
    _check_range(res)
    assert_equal_results(res, _r_interaction(rp[name], 1, feature="a").results)
    assert ia.feature == "a"
    # iml's list form of one feature
    pd.testing.assert_frame_equal(res, Interaction(PREDICTORS[name](), feature=["a"], random_state=RRandom(1)).results)


# ------------------------------------------- "Interaction does not work for 2 or 3 features"
@pytest.mark.r
@pytest.mark.parametrize("feature", [["a", "b"], [1, 2], ["a", "b", "c"], [1, 2, 3]])
def test_two_or_three_features_fail(rp, feature):
    from r_bridge import RError

    with pytest.raises(TypeError, match="feature must be one feature name"):
        Interaction(predictor1(), feature=feature)
    with pytest.raises(RError):
        _r_interaction(rp["predictor1"], None, feature=feature)


# ------------------------------------------- "Interaction for multiclass"
@pytest.mark.r
@pytest.mark.parametrize("feature", [None, "c"])
def test_multiclass_equals_iml(rp, feature):
    ia = Interaction(predictor2(), feature=feature, random_state=RRandom(1))
    res = ia.results
    assert list(res.columns) == [".feature", ".class", ".interaction"]
    assert len(res) == 2 * (4 if feature is None else 3)
    assert isinstance(res[".class"].dtype, pd.CategoricalDtype)
    assert res[".class"].astype(str).tolist()[:4] == ["pred", "pred2", "pred", "pred2"]  # classes within features
    assert_equal_results(res, _r_interaction(rp["predictor2"], 1, feature=feature).results)


# ------------------------------------------- grid.size < rows: random grid rows, iml's draws
@pytest.mark.r
@pytest.mark.parametrize("grid_size", [2, 3])
@pytest.mark.parametrize("feature", [None, "a", "c"])
@pytest.mark.parametrize("name", ["predictor1.inter", "predictor2"])
def test_grid_size_equals_iml(rp, name, feature, grid_size):
    for seed in (1, 5):
        ia = Interaction(PREDICTORS[name](), feature=feature, grid_size=grid_size, random_state=RRandom(seed))
        assert ia.grid_size == grid_size
        ro = _r_interaction(rp[name], seed, feature=feature, grid_size=grid_size)
        assert_equal_results(ia.results, ro.results)  # NaN where iml gives NaN (a constant first vector)


# ------------------------------------------- "h.test"
@pytest.mark.r
def test_h_statistic_equals_iml_h_test(r):
    v = np.arange(1, 11, dtype=float)
    cases = [(v, np.zeros(10), v), (v, v, np.zeros(10)), (v, v, v), (v, v, np.r_[1:7, 0, 0, 0, 0].astype(float))]
    got = [float(h_statistic(a, b, c)[0]) for a, b, c in cases]
    assert got[:3] == [0.0, 0.0, 1.0]
    assert 0 <= got[3] <= 1
    from r_bridge.iml import to_r

    for (a, b, c), h in zip(cases, got):
        rh = r.r_eval("iml:::h.test(f.all = a, f.j = b, f.no.j = c)", a=to_r(a), b=to_r(b), c=to_r(c))
        assert h == float(rh[0])


# ------------------------------------------- plots (checkPlot)
@pytest.mark.r
def test_plots_match_iml(r, rp):
    from matplotlib.figure import Figure

    cases = [("predictor1.inter", None), ("predictor1.inter", "a"), ("predictor2", None)]
    for name, feature in cases:
        ia = Interaction(PREDICTORS[name](), feature=feature, grid_size=3, random_state=RRandom(1))
        ro = _r_interaction(rp[name], 1, feature=feature, grid_size=3)
        for sort in (True, False):
            fig = ia.plot(sort=sort)
            assert isinstance(fig, Figure)
            facts = py_plot_facts(fig)
            assert facts == r_plot_facts(r, f"plot(ia, sort = {'TRUE' if sort else 'FALSE'})", ia=ro)
        assert (facts["xlab"], facts["ylab"]) == ("Overall interaction strength", "Features")
        assert facts["facets"] == ([] if name != "predictor2" else ["pred", "pred2"])
