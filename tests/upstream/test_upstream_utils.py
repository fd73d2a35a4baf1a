"""iml's own expectations for its helper functions, checked against pyiml's counterparts.

Translated from iml's testthat suite (tests/testthat/test-utils.R; giuseppec/iml, the version
that matches iml 0.11.4). Every value is compared with the iml function itself (``iml:::...``)
run live through ``r_bridge`` on the same input.

Where pyiml keeps these helpers:

* ``get.feature.type`` → :func:`pyiml.data.feature_type` (one column at a time);
* ``get.grid.1D`` / ``get.grid`` → :mod:`pyiml._algorithms.grids` (``grid_1d``, ``anchor_grid``,
  ``expand_grid``);
* ``recode`` → :func:`pyiml.local_model.recode`;
* ``order_levels`` → :func:`pyiml._algorithms.mds.order_levels` (0-based; iml's is 1-based);
* ``probs.to.labels`` → the label step of FeatureImp (``on="label"``) and LocalModel, checked
  through ``FeatureImp.original_error``;
* ``is_label`` → the Predictor's output conversion (tests/upstream/test_upstream_predictor.py);
* number formatting (``as.character`` in ``feature.value`` labels) →
  :func:`pyiml._algorithms.rformat.r_as_character`.

Not translated: ``get_layout`` (iml 0.11.4's plots do not use it; pyiml's FeatureEffects plot
lays out its panels as patchwork does) and test-MarginalGenerator.R (iml's design generator for
PDP/ICE and FeatureImp; pyiml builds those designs inside the methods, whose results are compared
with iml's in the FeatureEffect and FeatureImp parity specs).
"""
import numpy as np
import pandas as pd
import pytest

from pyiml import Data, FeatureImp, Predictor
from pyiml._algorithms.grids import anchor_grid, expand_grid, grid_1d, r_seq
from pyiml._algorithms.mds import order_levels
from pyiml._algorithms.rformat import r_as_character
from pyiml.data import feature_type
from pyiml.local_model import recode
from pyiml.shapley import _feature_values

pytestmark = pytest.mark.r


def r_value(r, code: str, **variables):
    from r_bridge import convert

    return convert.r2py(r.r_eval(code, **{k: convert.py2r(v) if isinstance(v, pd.DataFrame) else v
                                          for k, v in variables.items()}))


# ---------------------------------------------------------------------------- get.feature.type
def test_feature_type_equals_iml(r):
    cases = {
        "character": pd.Series(["a", "b"]),
        "factor": pd.Series(pd.Categorical(["a", "b"])),
        "ordered": pd.Series(pd.Categorical(["a", "b"], ordered=True)),
        "integer": pd.Series(np.arange(1, 11)),
        "numeric": pd.Series([0.5, 1.5]),
    }
    rt = r.r_eval('iml:::get.feature.type(c("character", "factor", "ordered", "integer", "numeric"))')
    expected = dict(zip(list(rt.names), [str(v) for v in rt]))
    assert expected["integer"] == "integer"  # iml 0.11.4 (the upstream test still says "numerical")
    for cls, col in cases.items():
        assert feature_type(col) == expected[cls], cls
    with pytest.raises(TypeError, match="feature_type needs one column"):
        feature_type(pd.DataFrame({"f1": ["a", "b"]}))
    from r_bridge import RError

    with pytest.raises(RError):
        r.r_eval("iml:::get.feature.type(data.frame(f1 = c('a', 'b')))")


# ---------------------------------------------------------------------------- probs.to.labels
def test_argmax_labels_equal_iml_probs_to_labels(r):
    """Several outputs become the label of the row maximum (the first one on ties); one output
    is used as it is. Checked through FeatureImp's error of the unpermuted model, which iml
    computes on ``probs.to.labels`` of the predictions."""
    from r_bridge import RFunction, iml as riml

    probs = pd.DataFrame({"a": [0.1, 0.2, 0.7, 0.4, 0.5], "b": [0.9, 0.8, 0.3, 0.4, 0.5],
                          "c": [0.0, 1.0, 0.0, 0.2, 0.0]})
    labels = r_value(r, "as.character(iml:::probs.to.labels(p)$..class)", p=probs)
    assert list(labels) == ["b", "c", "a", "a", "a"]  # ties: the first maximum
    assert np.array_equal(r_value(r, "iml:::probs.to.labels(p)$prediction", p=pd.DataFrame({"prediction": [1.0, 2]})),
                          [1.0, 2.0])  # one column: unchanged

    data = pd.DataFrame({"row": [0.0, 1, 2, 3, 4], "z": [1.0, 0, 1, 0, 1], "y": ["b", "c", "b", "b", "a"]})

    def model(nd):
        return probs.iloc[nd["row"].to_numpy(dtype=int)].reset_index(drop=True)

    fi = FeatureImp(Predictor(predict_function=model, data=data, y="y"), loss="ce", n_repetitions=1,
                    random_state=1)
    code = ('function(newdata) data.frame(a = c(0.1, 0.2, 0.7, 0.4, 0.5), b = c(0.9, 0.8, 0.3, 0.4, 0.5), '
            'c = c(0, 1, 0, 0.2, 0))[newdata$row + 1, ]')
    rp = riml.r_predictor(data=data, y="y", model=RFunction(code))
    ro = riml.iml("FeatureImp", rp, loss="ce", n_repetitions=1, seed=1)
    assert fi.original_error == ro.field("original.error") == pytest.approx(2 / 5)


# ---------------------------------------------------------------------------- recode
def test_recode_equals_iml(r):
    X = pd.DataFrame({
        "x1": np.arange(1, 11, dtype=np.int64),
        "x2": np.array(list("aabbbbbbaa"), dtype=object),
        "x3": np.zeros(10),
        "x4": pd.Categorical(["c"] * 10),
    })
    before = X.copy()
    names, cols, matrix = recode(Data(X), X, X.iloc[[0]])
    pd.testing.assert_frame_equal(X, before)
    rr = r_value(r, "iml:::recode(X, X[1, ])", X=X)
    assert matrix.shape == X.shape == rr.shape
    assert names == list(rr.columns) == ["x1", "x2=a", "x3", "x4=c"]
    np.testing.assert_array_equal(matrix, rr.to_numpy(dtype=float))
    np.testing.assert_array_equal(cols[0], X["x1"].to_numpy())  # integer columns stay integer
    np.testing.assert_array_equal(cols[1], [1, 1, 0, 0, 0, 0, 0, 0, 1, 1])
    np.testing.assert_array_equal(cols[3], np.ones(10))


# ---------------------------------------------------------------------------- grids
GRID_1D = [  # (values, grid size, feature type, grid type, iml's feature.type argument)
    (np.arange(1, 11, dtype=float), 4, "numerical", "equidist", "numerical"),
    (np.arange(1, 11, dtype=float), 2, "integer", "equidist", None),  # 1:10 is an R integer
    (np.r_[np.nan, np.arange(1, 11)], 2, "numerical", "equidist", "numerical"),
    (np.r_[np.inf, np.arange(1, 11)], 2, "numerical", "equidist", "numerical"),
    (np.r_[-np.inf, np.arange(1, 11)], 2, "numerical", "equidist", "numerical"),
    (np.arange(1, 11, dtype=float), 2, "numerical", "quantile", "numerical"),
    (np.zeros(100), 2, "numerical", "quantile", "numerical"),
    (np.r_[np.zeros(90), np.arange(1, 11)], 10, "numerical", "quantile", None),
    (np.r_[np.zeros(90), np.arange(1, 11)], 20, "numerical", "quantile", None),
    (np.arange(1, 11, dtype=float), 3, "numerical", "quantile", "numerical"),
    (np.r_[-np.inf, np.arange(1, 11)], 2, "numerical", "quantile", None),
    (np.arange(1, 11, dtype=float), 20, "integer", "equidist", "integer"),  # rounded, duplicates kept
    (np.linspace(-3.7, 12.2, 37) ** 2, 13, "numerical", "quantile", None),
]


@pytest.mark.parametrize("values, size, ftype, gtype, r_ftype", GRID_1D)
def test_grid_1d_equals_iml(r, values, size, ftype, gtype, r_ftype):
    ro = r.robjects()
    vec = ro.IntVector(values.astype(int)) if ftype == "integer" and r_ftype is None else ro.FloatVector(values)
    code = f"iml:::get.grid.1D(x, {size}, feature.type = {'NULL' if r_ftype is None else repr(r_ftype)}, type = '{gtype}')"
    expected = np.asarray(r_value(r, code, x=vec), dtype=float)
    got = grid_1d(values, size, ftype, type=gtype)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


def test_categorical_grids_equal_iml(r):
    ro = r.robjects()
    assert list(grid_1d(pd.Series(np.arange(1, 11)), 1, "categorical")) == list(range(1, 11))
    letters = list("abcdefghijklmnopqrstuvwxyz")
    assert list(grid_1d(pd.Series(letters), 4, "categorical")) == letters
    # the grid type is ignored for categorical features
    got = grid_1d(pd.Series(["a", "b", "a"]), 2, "categorical", type="quantile")
    assert list(got) == list(r_value(r, "iml:::get.grid.1D(c('a', 'b', 'a'), type = 'quantile', 2)"))
    fac = grid_1d(pd.Series(pd.Categorical(["a", "b", "a"])), 2, "categorical", type="quantile")
    rfac = r_value(r, "iml:::get.grid.1D(factor(c('a', 'b', 'a')), type = 'quantile', 2)")
    assert list(fac) == list(rfac) and list(fac.categories) == list(rfac.categories)
    # strings as numbers: an error in both
    from r_bridge import RError

    with pytest.raises(ValueError):
        grid_1d(np.array(letters, dtype=object), 4, "numerical")
    with pytest.raises(RError, match="finite values"):
        r.r_eval("iml:::get.grid.1D(letters, feature.type = 'numerical', 4)")
    # one finite value: a constant grid
    np.testing.assert_array_equal(grid_1d(np.array([np.nan, 1.0]), 2, "numerical"),
                                  r_value(r, "iml:::get.grid.1D(x, 2, feature.type = 'numerical')",
                                          x=ro.FloatVector([np.nan, 1.0])))


def test_grid_with_anchor_and_two_features_equals_iml(r):
    cars = r_value(r, "datasets::cars")
    speed = grid_1d(cars["speed"], 10, "numerical")
    np.testing.assert_array_equal(speed, r_value(r, "iml:::get.grid(cars[, 1, drop = FALSE], grid.size = 10)$speed"))
    np.testing.assert_array_equal(speed, r_seq(cars["speed"].min(), cars["speed"].max(), 10))
    dist = grid_1d(cars["dist"], 5, "numerical")
    np.testing.assert_array_equal(dist, r_value(r, "iml:::get.grid(cars[, 2, drop = FALSE], grid.size = 5)$dist"))
    # the anchor is inserted (sorted) unless it is a grid value already
    anchored = anchor_grid(speed, -100.0)
    np.testing.assert_array_equal(
        anchored, r_value(r, "iml:::get.grid(cars[, 1, drop = FALSE], grid.size = 10, anchor.value = -100)$speed"))
    assert anchored[0] == -100 and len(anchored) == 11
    np.testing.assert_array_equal(anchor_grid(speed, speed[3]), speed)
    # two features: expand.grid, the first fastest
    i, j = expand_grid(len(speed), len(dist))
    g2 = r_value(r, "iml:::get.grid(cars, grid.size = c(10, 5))")
    np.testing.assert_array_equal(speed[i], g2["speed"].to_numpy())
    np.testing.assert_array_equal(dist[j], g2["dist"].to_numpy())


# ---------------------------------------------------------------------------- order_levels
def test_order_levels_equals_iml(r):
    """iml's fixture: levels a and c alike, b and d alike; the order is the MDS coordinate's."""
    dat = r_value(r, """
      set.seed(42)
      n <- 100
      x1 <- factor(sample(c("a", "b", "c", "d"), size = n, replace = TRUE))
      data.frame(x1 = x1, x2 = rnorm(n, mean = 1 * x1 %in% c("a", "c")),
                 x3 = rnorm(n, mean = 1 * x1 %in% c("b", "d")), x4 = sample(1:4, size = n, replace = TRUE))""")
    expected = np.asarray(r_value(r, "iml:::order_levels(data.table::as.data.table(d), 'x1')", d=dat))
    got = order_levels(dat, "x1")
    np.testing.assert_array_equal(got + 1, expected)
    assert sorted(got) == [0, 1, 2, 3]
    cars = r_value(r, "datasets::cars")
    with pytest.raises(ValueError, match="categorical features only"):
        order_levels(cars, "dist")
    with pytest.raises(ValueError, match="'x10' is not a column"):
        order_levels(dat, "x10")
    from r_bridge import RError

    with pytest.raises(RError):
        r.r_eval("iml:::order_levels(data.table::as.data.table(cars), 'dist')")
    with pytest.raises(RError):
        r.r_eval("iml:::order_levels(data.table::as.data.table(d), 'x10')", d=r.robjects().r("data.frame(a = 1)"))


# ---------------------------------------------------------------------------- number formatting
def test_feature_value_labels_format_numbers_as_iml(r):
    """``feature.value`` (Shapley, LocalModel) is ``"<name>=<as.character(value)>"``: 15
    significant digits, scientific notation only when shorter, integers plainly."""
    x = pd.DataFrame({
        "big": [100000.0], "small": [0.0001], "third": [1 / 3], "sum": [0.1 + 0.2], "neg": [-2.5e-10],
        "whole": [123456789012.0], "int": np.array([100000], dtype=np.int64),
        "f": pd.Categorical(["level one"]),
    })
    got = list(_feature_values(x)[0])
    expected = list(r_value(r, 'sprintf("%s=%s", colnames(x), unlist(lapply(x[1, ], as.character)))', x=x))
    assert got == expected
    assert got[:3] == ["big=1e+05", "small=1e-04", "third=0.333333333333333"]
    vals = np.array([1e5, 1e-4, 1.2e-4, 1200000.0, 1 / 3, 0.1 + 0.2, 2.31, 1e15, 123456789012345678.0, -0.0])
    assert list(r_as_character(vals)) == list(r.r_eval("as.character(v)", v=r.robjects().FloatVector(vals)))
