"""``gower_dist`` against R's gower::gower_dist and ``r_dist`` against stats::dist, run live.

Both restate the C code's column-by-column accumulation, so the comparisons are exact
(bit for bit), including NA handling, skipped zero-range columns and their warnings.
"""
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from pyiml._algorithms.gower import R_DIST_METHODS, gower_dist, gower_dist_to_point, r_dist

SKIP_MSG = "skipping variable with zero or non-finite range."


def _to_r(r, df):
    from rpy2.robjects import pandas2ri
    from rpy2.robjects.conversion import localconverter

    ro = r.robjects()
    with localconverter(ro.default_converter + pandas2ri.converter) as cv:
        return cv.py2rpy(df)


def _rmat(r, x):
    ro = r.robjects()
    return ro.r.matrix(ro.FloatVector(np.asarray(x, dtype=float).ravel(order="F").tolist()), nrow=x.shape[0])


_R_GOWER = """
suppressMessages(library(gower))
ww <- character(0)
d <- withCallingHandlers(gower_dist(X, Y, weights = wt),
  warning = function(w) { ww <<- c(ww, conditionMessage(w)); invokeRestart("muffleWarning") })
list(d, ww)
"""


def r_gower(r, X, Y, weights=None):
    ro = r.robjects()
    res = r.r_eval(_R_GOWER, X=_to_r(r, X), Y=_to_r(r, Y),
                   wt=ro.NULL if weights is None else ro.FloatVector(list(map(float, weights))))
    return np.asarray(res[0], dtype=float), [str(s) for s in res[1]]


def py_gower(X, Y, weights=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = gower_dist(X, Y, weights=weights)
    return d, [str(c.message) for c in caught]


def mixed_frame(rng, n):
    df = pd.DataFrame({
        "num": rng.normal(size=n) * 10,
        "int": rng.integers(0, 7, size=n),
        "fac": pd.Categorical(rng.choice(list("xyz"), size=n), categories=list("xyz")),
        "chr": rng.choice(["u", "v", "w"], size=n).astype(object),
        "lgl": rng.uniform(size=n) > 0.5,
        "ind": (rng.uniform(size=n) > 0.6).astype(float),
        "const": np.full(n, 3.0),
    })
    df.loc[rng.choice(n, 2, replace=False), "num"] = np.nan
    df.loc[rng.choice(n, 1)[0], "chr"] = None
    df.loc[rng.choice(n, 1)[0], "num"] = np.inf
    return df


@pytest.mark.r
@pytest.mark.parametrize("seed", range(8))
def test_gower_mixed_types_matches_r(r, seed):
    rng = np.random.default_rng(seed)
    X = mixed_frame(rng, int(rng.integers(5, 60)))
    Y = X.iloc[[int(rng.integers(len(X)))]].reset_index(drop=True)  # iml: one row of interest
    weights = rng.uniform(0.1, 3, size=X.shape[1]) if seed % 2 else None
    d_r, w_r = r_gower(r, X, Y, weights)
    d_py, w_py = py_gower(X, Y, weights)
    np.testing.assert_array_equal(d_py, d_r)
    assert w_py == w_r == [SKIP_MSG]


@pytest.mark.r
@pytest.mark.parametrize("seed", range(4))
def test_gower_iml_recoded_data_matches_r(r, seed):
    """What LocalModel passes: numeric columns plus 0/1 indicators, some constant."""
    rng = np.random.default_rng(100 + seed)
    n = 200
    X = pd.DataFrame({
        "a": rng.normal(size=n), "b": rng.exponential(size=n) * 100,
        "c=x": (rng.uniform(size=n) > 0.5).astype(float),
        "d=u": np.ones(n),  # every row has x.interest's level
        "e": rng.integers(1, 4, size=n).astype(float),
    })
    xr = X.iloc[[5]].reset_index(drop=True)
    d_r, w_r = r_gower(r, X, xr)
    d_py, w_py = py_gower(X, xr)
    np.testing.assert_array_equal(d_py, d_r)
    assert d_py[5] == 0.0
    assert w_py == w_r == [SKIP_MSG]
    # the column is skipped: same distances as without it
    np.testing.assert_array_equal(d_py, gower_dist(X.drop(columns="d=u"), xr.drop(columns="d=u")))


@pytest.mark.r
def test_gower_recycling_and_pairing_match_r(r):
    rng = np.random.default_rng(9)
    X = mixed_frame(rng, 12)
    Y = X.sample(4, random_state=1).reset_index(drop=True)[list(reversed(X.columns))]  # by name
    d_r, w_r = r_gower(r, X, Y)
    d_py, w_py = py_gower(X, Y)
    np.testing.assert_array_equal(d_py, d_r)
    assert w_py == w_r
    Y5 = X.iloc[:5].reset_index(drop=True)  # 12 is not a multiple of 5
    d_r, w_r = r_gower(r, X, Y5)
    d_py, w_py = py_gower(X, Y5)
    np.testing.assert_array_equal(d_py, d_r)
    assert "longer object length is not a multiple of shorter object length" in w_py
    assert SKIP_MSG in w_r and SKIP_MSG in w_py


@pytest.mark.r
def test_gower_integer_columns_match_r(r):
    """R integers: a zero range (not < eps) skips, with the integer variant of the message."""
    res = r.r_eval("""
      suppressMessages(library(gower)); ww <- character(0)
      X <- data.frame(i = c(1L, 1L, 1L, 1L), j = c(2L, NA, 5L, 3L), k = c(1, 2.5, 2, 3), m = c(4L, 4L, 4L, 4L))
      Y <- data.frame(i = 1L, j = 3L, k = 2L, m = 4.5)
      d <- withCallingHandlers(gower_dist(X, Y), warning = function(w) {
        ww <<- c(ww, conditionMessage(w)); invokeRestart("muffleWarning") })
      list(d, ww)""")
    X = pd.DataFrame({"i": pd.array([1, 1, 1, 1], dtype="Int64"), "j": pd.array([2, None, 5, 3], dtype="Int64"),
                      "k": [1, 2.5, 2, 3], "m": np.array([4, 4, 4, 4])})
    Y = pd.DataFrame({"i": np.array([1]), "j": np.array([3]), "k": np.array([2]), "m": [4.5]})
    d_py, w_py = py_gower(X, Y)
    np.testing.assert_array_equal(d_py, np.asarray(res[0]))
    assert w_py == [str(s) for s in res[1]] == ["skipping variable with zero or non-finite range"]


def test_gower_semantics_by_hand():
    x = pd.DataFrame({"a": [0.0, 5.0, 10.0, np.nan], "b": [True, False, False, True],
                      "c": ["p", "q", "p", "q"]})
    y = pd.DataFrame({"a": [5.0], "b": [False], "c": ["p"]})
    # range of a over both inputs: 10
    # row 0: a 1-5/10=.5, b: one TRUE -> 0, c equal -> 1 => 1 - 1.5/3
    # row 1: a 1, b both FALSE -> skipped, c 0 => 1 - 1/2
    # row 2: a .5, b skipped, c 1 => 1 - 1.5/2
    # row 3: a NA skipped, b 0, c 0 => 1 - 0/2
    np.testing.assert_allclose(gower_dist(x, y), [0.5, 0.5, 0.25, 1.0])
    np.testing.assert_allclose(gower_dist(x, y, weights=[2, 1, 1]), [0.5, 1 - 2 / 3, 1 - 2 / 3, 1.0])
    # arrays pair columns by position; a 1-D y is one row
    arr = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    np.testing.assert_allclose(gower_dist(arr, arr[0]), [0.0, 0.5, 1.0])
    # nothing comparable in a row: NaN
    d = gower_dist(pd.DataFrame({"a": [np.nan, 3.0]}), pd.DataFrame({"a": [1.0]}))
    assert np.isnan(d[0]) and d[1] == 1.0


def test_gower_zero_range_warning():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "z": [7.0, 7.0, 7.0]})
    with pytest.warns(UserWarning, match=r"^skipping variable with zero or non-finite range\.$"):
        d = gower_dist(x, x.iloc[[0]])
    np.testing.assert_allclose(d, [0.0, 0.5, 1.0])
    with pytest.warns(UserWarning, match="zero or non-finite range"):  # range below eps
        gower_dist(pd.DataFrame({"a": [1.0, 1.0 + 1e-10]}), pd.DataFrame({"a": [1.0]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gower_dist(pd.DataFrame({"a": [1.0, 1.0 + 1e-10]}), pd.DataFrame({"a": [1.0]}), eps=1e-12)


def test_gower_bad_input():
    x = pd.DataFrame({"a": [1.0, 2.0], "f": pd.Categorical(["u", "v"])})
    with pytest.raises(ValueError, match="finite nonnegative"):
        gower_dist(x, x, weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="1 weights specified, expected 2"):
        gower_dist(x, x, weights=[1.0])
    with pytest.raises(ValueError, match="Levels in column 2"):
        gower_dist(x, pd.DataFrame({"a": [1.0], "f": pd.Categorical(["u"], categories=["v", "u"])}))
    with pytest.raises(ValueError, match="factor"):
        gower_dist(x, pd.DataFrame({"a": [1.0], "f": ["u"]}))
    with pytest.raises(ValueError, match="columns"):
        gower_dist(np.zeros((3, 2)), np.zeros((1, 3)))
    with pytest.raises(TypeError, match="cannot be compared"):
        gower_dist(pd.DataFrame({"a": ["u", "v"]}), pd.DataFrame({"a": [1.0]}))
    with pytest.raises(ValueError, match="eps"):
        gower_dist(x, x, eps=0)
    assert gower_dist(pd.DataFrame({"a": [1.0]}), pd.DataFrame({"b": [1.0]})).size == 0


# ------------------------------------------------------------------------------------------
# stats::dist
# ------------------------------------------------------------------------------------------

def dist_matrix(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(3, 80)), int(rng.integers(1, 8))
    x = rng.normal(size=(n, p)) * 5
    x[:, 0] = np.round(x[:, 0])  # zeros and ties
    if p > 1:
        x[:, 1] = rng.uniform(size=n) > 0.5  # 0/1 indicator
    x[rng.uniform(size=(n, p)) < 0.05] = np.nan
    x[rng.integers(n), rng.integers(p)] = 0.0
    x[0, rng.integers(p)] = 0.0
    return x


def r_dist_live(r, x, method, p=2.0):
    ro = r.robjects()
    res = r.r_eval("""ww <- character(0)
      d <- withCallingHandlers(as.vector(stats::dist(x, method = m, p = p))[seq_len(nrow(x) - 1)],
        warning = function(w) { ww <<- c(ww, conditionMessage(w)); invokeRestart("muffleWarning") })
      list(d, ww)""", x=_rmat(r, x), m=method, p=float(p))
    return np.asarray(res[0], dtype=float), sorted(set(str(s) for s in res[1]))


@pytest.mark.r
@pytest.mark.parametrize("method,p", [(m, 2.0) for m in R_DIST_METHODS] + [("minkowski", 1.0), ("minkowski", 0.5),
                                                                           ("minkowski", 3.0), ("minkowski", 1.7)])
@pytest.mark.parametrize("seed", range(5))
def test_r_dist_matches_r(r, method, p, seed):
    x = dist_matrix(seed)
    d_r, w_r = r_dist_live(r, x, method, p)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d_py = r_dist(x, method, p)
    np.testing.assert_array_equal(d_py, d_r)
    assert sorted(set(str(c.message) for c in caught)) == w_r


@pytest.mark.r
@pytest.mark.parametrize("method", R_DIST_METHODS)
def test_r_dist_special_values_match_r(r, method):
    """Infinities, opposite signs, all-zero and all-NA rows."""
    inf, nan = math.inf, math.nan
    x = np.array([
        [1.0, -2.0, 0.0, inf, 3.0],
        [-1.0, 2.0, 0.0, -inf, nan],
        [1.0, -2.0, 0.0, inf, 3.0],
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [nan, nan, nan, nan, nan],
        [inf, -inf, 5.0, inf, 0.0],
        [2.0, 0.0, 0.0, 1.0, nan],
    ])
    d_r, w_r = r_dist_live(r, x, method)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d_py = r_dist(x, method)
    np.testing.assert_array_equal(d_py, d_r)
    assert sorted(set(str(c.message) for c in caught)) == w_r


@pytest.mark.r
def test_r_dist_as_iml_uses_it(r):
    """iml: dist(rbind(xr, Xr), method)[1:n], the distance from x.interest to each row."""
    rng = np.random.default_rng(3)
    Xr = np.column_stack([rng.normal(size=50), rng.uniform(size=50) > 0.5, np.ones(50)])
    xr = Xr[[7]]
    ro = r.robjects()
    for method in R_DIST_METHODS:
        d_r = np.array(r.r_eval("stats::dist(rbind(xr, Xr), method = m)[1:nrow(Xr)]", xr=_rmat(r, xr), Xr=_rmat(r, Xr),
                                  m=ro.StrVector([method])))
        d_py = r_dist(np.vstack([xr, Xr]), method)
        np.testing.assert_array_equal(d_py, d_r)
        assert d_py[7] == 0.0


def test_r_dist_method_matching_and_errors():
    x = np.array([[0.0, 1.0], [3.0, 5.0]])
    assert r_dist(x, "euclidian")[0] == 5.0
    assert r_dist(x, "man")[0] == 7.0
    assert r_dist(x, "max")[0] == 4.0
    with pytest.raises(ValueError, match="invalid distance method"):
        r_dist(x, "cosine")
    with pytest.raises(ValueError, match="invalid distance method"):
        r_dist(x, "m")  # ambiguous: maximum, manhattan, minkowski
    with pytest.raises(ValueError, match="invalid p"):
        r_dist(x, "minkowski", p=0)
    with pytest.raises(ValueError, match="invalid p"):
        r_dist(x, "minkowski", p=math.inf)
    with pytest.raises(ValueError, match="2-dimensional"):
        r_dist(np.zeros(3), "euclidean")
    assert r_dist(x[:1], "euclidean").size == 0
    with pytest.warns(UserWarning, match="treating non-finite values as NA"):
        d = r_dist(np.array([[1.0, math.inf], [1.0, 0.0]]), "binary")
    assert d[0] == 0.0


@pytest.mark.parametrize("seed", range(12))
def test_gower_dist_to_point_equals_gower_dist(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(1, 40)), int(rng.integers(1, 6))
    x = rng.normal(size=(n, p)) * rng.choice([1e-12, 1.0, 1e3], size=p)
    y = rng.normal(size=p)
    x[rng.uniform(size=(n, p)) < 0.15] = np.nan
    x[rng.uniform(size=(n, p)) < 0.05] = np.inf
    if seed % 3 == 0:
        x[:, 0] = 2.5                      # constant column (skipped unless y differs)
        y[0] = 2.5
    if seed % 4 == 1:
        y[-1] = np.nan                     # y has no value in one column
    with warnings.catch_warnings(record=True) as want_w:
        warnings.simplefilter("always")
        want = gower_dist(pd.DataFrame(x), pd.DataFrame(y[None, :]))   # the column-by-column path
    with warnings.catch_warnings(record=True) as got_w:
        warnings.simplefilter("always")
        got = gower_dist_to_point(x, y)
    np.testing.assert_array_equal(got, want)
    assert [str(w.message) for w in got_w] == [str(w.message) for w in want_w]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(gower_dist(x, y), want)   # gower_dist takes the matrix path


def test_gower_dist_to_point_checks_shapes():
    with pytest.raises(ValueError, match="one column per value of y"):
        gower_dist_to_point(np.zeros((3, 2)), np.zeros(3))
