"""iml's own expectations for ``TreeSurrogate``, checked against pyiml.

Translated from iml's testthat suite (tests/testthat/test-TreeSurrogate.R with the helper
fixtures ``predictor1`` (one output), ``predictor2`` (two outputs ``pred``, ``pred2``) and
``predictor3`` (the same model with ``class = 2``); giuseppec/iml, the version that matches iml
0.11.4). Upstream checks the layout and that ``r.squared`` lies in [0, 1]; here every number,
node and rule is also compared with CRAN iml run live on the same model through ``r_bridge``.

The five-row upstream data give a root-only tree (ctree needs 20 rows to split), so the tests
that need real splits use iml's own kind of model on iris and a step function with numbers that
R prints in scientific notation.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from _upstream_model import F_ARGS_R as F_R   # iml's test helper f(newdata, multi = FALSE), in R
from _upstream_model import PREDICT_FUN_R, X, Y2, predict_fun
from _upstream_model import f_args as f       # ... and in Python
from parity import fixtures
from pyiml import Predictor, TreeSurrogate


@pytest.fixture(scope="module")
def predictors(r):
    """iml's predictor1, predictor2, predictor3 (``class = 2`` is ``class_="pred2"``: iml 0.11.4
    only takes class names, §18.9): (pyiml, R) pairs."""
    from r_bridge import RFunction, iml as riml

    y = f(X)["pred"].to_numpy() + np.array(r.r_eval("set.seed(12); rnorm(5)"), dtype=float)
    f_r = r.r_eval(F_R)
    return {
        1: (Predictor(data=X, y=y, predict_function=f), riml.r_predictor(data=X, y=y, model=RFunction(F_R))),
        2: (Predictor(f, data=X, y=Y2, predict_function=predict_fun),
            riml.r_predictor(data=X, y=Y2, model=f_r, predict_function=PREDICT_FUN_R)),
        3: (Predictor(f, data=X, predict_function=predict_fun, class_="pred2"),
            riml.r_predictor(data=X, model=f_r, predict_function=PREDICT_FUN_R, class_="pred2")),
    }


def assert_frames_equal(py: pd.DataFrame, rr: pd.DataFrame, rtol=1e-13):
    assert list(py.columns) == list(rr.columns)
    assert len(py) == len(rr)
    for c in py.columns:
        a, b = py[c], rr[c]
        if pd.api.types.is_numeric_dtype(b) and not pd.api.types.is_bool_dtype(b):
            np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=rtol, atol=1e-15, err_msg=c)
        else:
            np.testing.assert_array_equal(a.isna().to_numpy(), b.isna().to_numpy(), err_msg=c)
            assert a[a.notna()].astype(str).tolist() == b[b.notna()].astype(str).tolist(), c


def r_squared_in_unit_interval(value, length):
    v = np.atleast_1d(np.asarray(value, dtype=float))
    assert v.size == length and not np.isnan(v).any()
    assert ((v >= -1e-4) & (v <= 1 + 1e-4)).all()


# ---------------------------------------------------------------------------- upstream fixtures
@pytest.mark.r
def test_single_output_layout_and_values_equal_iml(predictors):
    from r_bridge import iml as riml

    p, rp = predictors[1]
    tree = TreeSurrogate(p)
    ro = riml.iml("TreeSurrogate", rp)
    dat = tree.results
    assert type(dat) is pd.DataFrame
    assert list(dat.columns) == list(X.columns) + [".node", ".path", ".y.hat", ".y.hat.tree"]
    assert len(dat) == len(X)
    assert isinstance(tree.r_squared, float)
    r_squared_in_unit_interval(tree.r_squared, 1)
    assert_frames_equal(dat, ro.results)
    assert dat[".path"].isna().all()  # a root-only tree: iml's .path is NA
    assert tree.r_squared == ro.field("r.squared") == 0.0
    assert isinstance(tree.plot(), Figure)
    pred = tree.predict(X)
    assert isinstance(pred, pd.DataFrame)
    assert_frames_equal(pred, ro.call("predict", X))


@pytest.mark.r
def test_multiple_output_layout_and_values_equal_iml(predictors):
    from r_bridge import iml as riml

    p, rp = predictors[2]
    tree = TreeSurrogate(p)
    ro = riml.iml("TreeSurrogate", rp)
    dat = tree.results
    assert list(dat.columns) == list(X.columns) + [".node", ".path", ".y.hat.pred", ".y.hat.pred2",
                                                   ".y.hat.tree.pred", ".y.hat.tree.pred2"]
    assert len(dat) == len(X)
    assert_frames_equal(dat, ro.results)
    assert isinstance(tree.plot(), Figure)
    actual_prediction = tree.predict(X)
    assert isinstance(actual_prediction, pd.DataFrame)
    assert list(actual_prediction.columns) == ["pred", "pred2"]
    assert_frames_equal(actual_prediction, ro.call("predict", X))
    actual_classification = tree.predict(X.iloc[:4], type="class")
    assert list(actual_classification.columns) == [".class"]
    assert_frames_equal(actual_classification, ro.call("predict", X.iloc[:4], type="class"))
    # iml: an unnamed vector of two; pyiml: a Series labelled by output (docs/differences.md)
    r_squared_in_unit_interval(tree.r_squared, 2)
    assert list(tree.r_squared.index) == ["pred", "pred2"]
    np.testing.assert_array_equal(tree.r_squared.to_numpy(), np.atleast_1d(ro.field("r.squared")))


@pytest.mark.r
def test_selected_class_and_rows_with_missing_values_equal_iml(predictors):
    """iml's ``predict(tree, newdata = X[1:10, ])`` on five rows: rows 6-10 are all NA and still
    get a prediction (partykit routes missing values; here the root's mean)."""
    from r_bridge import iml as riml

    p, rp = predictors[3]
    tree = TreeSurrogate(p)
    ro = riml.iml("TreeSurrogate", rp)
    dat = tree.results
    assert list(dat.columns) == list(X.columns) + [".node", ".path", ".y.hat", ".y.hat.tree"]
    assert len(dat) == len(X)
    assert_frames_equal(dat, ro.results)
    assert isinstance(tree.plot(), Figure)
    assert isinstance(tree.predict(X), pd.DataFrame)
    ten = X.reindex(range(10))  # X[1:10, ] in R
    pred = tree.predict(newdata=ten)
    assert isinstance(pred, pd.DataFrame) and pred.shape == (10, 1)
    assert_frames_equal(pred, ro.call("predict", newdata=ten))
    r_squared_in_unit_interval(tree.r_squared, 1)
    assert tree.r_squared == ro.field("r.squared")


def test_prediction_expects_the_training_columns():
    tree = TreeSurrogate(Predictor(predict_function=f, data=X))
    with pytest.warns(UserWarning, match="Dropping additional columns: blabla"):
        tree.predict(X.assign(blabla=1))
    with pytest.raises(ValueError, match="Missing columns: b"):
        tree.predict(X.drop(columns="b"))
    with pytest.raises(ValueError, match="type must be 'prob' or 'class'"):
        tree.predict(X, type="response")


# ---------------------------------------------------------------------------- real splits
@pytest.mark.r
def test_multiclass_tree_nodes_paths_and_predictions_equal_iml(r):
    """iml's kind of model (a randomForest probability model on iris), depth 3, tree.args."""
    from r_bridge import iml as riml

    mp = fixtures.model_pair("rf_iris_prob")
    data = fixtures.dataset(mp.data)
    p = Predictor(data=data, y=mp.y, **mp.py)
    rp = riml.r_predictor(data=data, y=mp.y, **mp.r)
    for maxdepth, tree_args in ((1, None), (3, {"minbucket": 15})):
        tree = TreeSurrogate(p, maxdepth=maxdepth, tree_args=tree_args)
        ro = riml.iml("TreeSurrogate", rp, maxdepth=maxdepth, tree_args=tree_args)
        rr = ro.results
        assert_frames_equal(tree.results, rr, rtol=1e-12)
        assert tree.results[".node"].nunique() > 1 and tree.results[".path"].notna().all()
        assert tree.tree.depth <= maxdepth
        np.testing.assert_allclose(tree.r_squared.to_numpy(), np.atleast_1d(ro.field("r.squared")), rtol=1e-12)
        new = data.iloc[::17].drop(columns="Species").reset_index(drop=True)
        assert_frames_equal(tree.predict(new), ro.call("predict", new), rtol=1e-12)
        assert_frames_equal(tree.predict(new, type="class"), ro.call("predict", new, type="class"))


@pytest.mark.r
def test_rules_print_split_points_as_r_does(r):
    """``.path`` shows split points with R's ``as.character`` (15 digits, "1e+05", "1e-04")."""
    from r_bridge import RFunction, iml as riml

    rng = np.random.default_rng(5)
    n = 200
    data = pd.DataFrame({
        "big": rng.choice([5e4, 1e5, 2e5, 123456.789012345], size=n),
        "small": rng.choice([5e-5, 1e-4, 1.5e-4, 1 / 3 * 1e-3], size=n),
        "z": rng.normal(size=n),
    })

    def step(d):
        return 2.0 * (d["big"].to_numpy() > 1e5) + 1.0 * (d["small"].to_numpy() > 1e-4)

    tree = TreeSurrogate(Predictor(predict_function=step, data=data), maxdepth=3)
    ro = riml.iml("TreeSurrogate", riml.r_predictor(
        data=data, model=RFunction("function(newdata) 2 * (newdata$big > 1e5) + 1 * (newdata$small > 1e-4)")),
        maxdepth=3)
    assert tree.results[".path"].tolist() == ro.results[".path"].tolist()
    assert tree.results[".node"].tolist() == ro.results[".node"].tolist()
    paths = set(tree.results[".path"])
    assert any("big <= 1e+05" in s for s in paths) and any("small <= 1e-04" in s for s in paths)
    assert tree.r_squared == pytest.approx(ro.field("r.squared"), rel=1e-13)


# ---------------------------------------------------------------------------- batch size
def test_batch_size_changes_nothing_but_the_model_calls():
    """iml predicts the whole data in one call (batch.size ignored); pyiml in batches of
    ``batch_size`` rows, with the same results."""
    rng = np.random.default_rng(2)
    data = pd.DataFrame(rng.uniform(size=(120, 3)), columns=["a", "b", "c"])
    sizes = []

    def model(d):
        sizes.append(len(d))
        return 2.0 * (d["a"].to_numpy() > 0.5) + d["b"].to_numpy()

    one = TreeSurrogate(Predictor(predict_function=model, data=data), maxdepth=3)
    sizes.clear()
    small = TreeSurrogate(Predictor(predict_function=model, data=data, batch_size=7), maxdepth=3)
    assert max(sizes) <= 7 and sum(sizes) == len(data)
    pd.testing.assert_frame_equal(one.results, small.results)
    assert one.r_squared == small.r_squared


def test_missing_values_in_every_feature_type_are_routed():
    """Missing values in numeric, integer, string, bool and categorical columns reach the tree
    (iml accepts NA rows); a missing value in a feature the tree does not split on changes
    nothing, one in a split feature sends the row to the child with more training rows."""
    rng = np.random.default_rng(8)
    n = 300
    data = pd.DataFrame({
        "num": rng.normal(size=n),
        "int": rng.integers(0, 5, size=n).astype("int64"),
        "s": rng.choice(["x", "y"], size=n).astype(object),
        "flag": rng.uniform(size=n) < 0.3,
        "cat": pd.Categorical(rng.choice(["a", "b", "c"], size=n)),
    })

    def model(d):
        return 3.0 * (d["num"].to_numpy() > 0) + 1.0 * (np.asarray(d["cat"].astype(str)) == "b")

    tree = TreeSurrogate(Predictor(predict_function=model, data=data), maxdepth=2)
    split_vars = {nd.split.variable for nd in tree.tree.nodes.values() if nd.split is not None}
    assert split_vars == {"num", "cat"}
    base = data.iloc[:6].reset_index(drop=True)
    full = tree.predict(base)[".y.hat"].to_numpy()
    holes = base.astype({"int": "float64", "s": object, "flag": object})
    holes.loc[0, "int"] = np.nan
    holes.loc[1, "s"] = None
    holes.loc[2, "flag"] = None
    holes.loc[3, "num"] = np.nan
    holes.loc[4, "cat"] = np.nan
    before = holes.copy()
    got = tree.predict(holes)[".y.hat"].to_numpy()
    pd.testing.assert_frame_equal(holes, before)  # the input is not modified
    np.testing.assert_array_equal(got[[0, 1, 2, 5]], full[[0, 1, 2, 5]])
    assert np.isfinite(got).all()
    root = tree.tree.root
    bigger = root.kids[int(np.argmax(root.split.prob))]
    assert tree.tree.apply(holes.iloc[[3]])[0] in _leaves_below(tree.tree, bigger)
    with pytest.raises(ValueError, match="missing values"):
        tree.r_squared_on(holes)  # the model itself must predict every row


def _leaves_below(tree, node_id):
    nd = tree.nodes[node_id]
    if not nd.kids:
        return {node_id}
    return set().union(*(_leaves_below(tree, k) for k in nd.kids))
