"""FeatureEffect's building blocks against iml's own internals, run live in R (marker ``r``).

* ``order_levels`` (level order of categorical ALE, 1-D MDS with R's eigenvector sign) against
  ``iml:::order_levels`` on random data with numerical, factor and ordered columns;
* ``impute_cells`` / the ANN kd-tree against ``iml:::impute_cells`` and ``yaImpute::ann`` on
  random cell patterns full of equidistant ties;
* grids against ``iml:::get.grid.1D`` / ``iml:::get.grid``;
* the session generator after PDP/ICE and FeatureEffects under ``RRandom`` against R after
  ``set.seed`` and the same iml calls; the ``grid.size`` field;
* categorical ALE whose levels look alike (iml's ``order_levels`` gives no order and its ALE is
  NA) against iml's ALE with the factor ordered.

Whole results are compared by the parity specs ``parity/specs/fe_*.toml``.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from parity import fixtures
from pyiml import FeatureEffect, FeatureEffects, Predictor, RRandom
from pyiml._ale import _midpoints, impute_cells
from pyiml._algorithms.ann import nearest
from pyiml._algorithms.grids import anchor_grid, expand_grid, grid_1d
from pyiml._algorithms.mds import order_levels

pytestmark = pytest.mark.r


def _r_list(r, code, **variables):
    from r_bridge import convert

    out = r.r_eval(code, **variables)
    return [convert.r2py(out[i]) for i in range(len(out))]


def _frames_to_r(frames):
    from r_bridge import convert

    ro = __import__("r_bridge").session.robjects()
    return ro.vectors.ListVector({f"d{i}": convert.py2r(d) for i, d in enumerate(frames)})


# ---------------------------------------------------------------------------- order_levels
def _order_levels_cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    cases = []
    for t in range(count):
        n = int(rng.integers(12, 90))
        K = int(rng.integers(2, 7))
        levs = [f"l{i}" for i in range(K)]
        lev = rng.choice(levs, n)
        lev[:K] = levs                                   # every level occurs
        d = pd.DataFrame({
            "x": np.round(rng.normal(size=n), 1) + (pd.Categorical(lev, categories=levs).codes * rng.normal()
                                                    if t % 2 else 0.0),
            "c": pd.Categorical(lev, categories=levs + ["unused"] if t % 3 == 0 else levs),
            "g": pd.Categorical(rng.choice(["u", "v", "w"], n), categories=["u", "v", "w", "zz"]),
            "o": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "hi"], ordered=True),
            "k": rng.integers(0, 5, n).astype("int64"),
        })
        cases.append(d)
    return cases


def test_order_levels_equals_iml(r):
    cases = _order_levels_cases(11, 40)
    got_r = _r_list(r, "lapply(dl, function(d) iml:::order_levels(data.table::as.data.table(d), 'c'))",
                    dl=_frames_to_r(cases))
    mismatches = [(i, np.asarray(rr).ravel().tolist(), (order_levels(d, "c") + 1).tolist())
                  for i, (d, rr) in enumerate(zip(cases, got_r))
                  if (order_levels(d, "c") + 1).tolist() != np.asarray(rr, dtype=int).ravel().tolist()]
    assert not mismatches


# ---------------------------------------------------------------------------- impute_cells / ANN
def _cell_cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    out = []
    for t in range(count):
        K1, K2 = (int(v) for v in rng.integers(2, 9, 2))
        if t % 3 == 0:       # regular grids: many equidistant neighbours
            g1, g2 = np.arange(K1 + 1.0), 2.0 * np.arange(K2 + 1.0)
        else:
            g1 = np.sort(rng.choice(30, K1 + 1, replace=False)).astype(float)
            g2 = np.sort(rng.choice(30, K2 + 1, replace=False)).astype(float)
        vals = rng.normal(size=(K1, K2))
        miss = rng.uniform(size=(K1, K2)) < rng.uniform(0.2, 0.8)
        miss.flat[rng.integers(K1 * K2)] = False
        vals[miss] = np.nan
        out.append((g1, g2, vals))
    return out


def test_impute_cells_equals_iml(r):
    cases = _cell_cases(5, 60)
    ro = r.robjects()
    args = ro.vectors.ListVector({f"c{i}": ro.vectors.ListVector({
        "g1": ro.FloatVector(g1), "g2": ro.FloatVector(g2),
        "v": ro.FloatVector([ro.NA_Real if np.isnan(x) else float(x) for x in v.ravel()]),
        "k1": ro.IntVector([v.shape[0]]), "k2": ro.IntVector([v.shape[1]])}) for i, (g1, g2, v) in enumerate(cases)})
    code = """lapply(cases, function(cs) {
      cd <- data.table::data.table(.interval1 = rep(seq_len(cs$k1), each = cs$k2),
                                   .interval2 = rep(seq_len(cs$k2), cs$k1), .yhat.diff = cs$v)
      iml:::impute_cells(cd, grid1 = data.table::data.table(x = cs$g1), grid2 = data.table::data.table(x = cs$g2),
                         x1.ind = ".interval1", x2.ind = ".interval2")$.yhat.diff
    })"""
    got_r = _r_list(r, code, cases=args)
    for (g1, g2, vals), rr in zip(cases, got_r):
        py = impute_cells(vals[:, :, None], _midpoints(g1), _midpoints(g2))[:, :, 0].ravel()
        np.testing.assert_array_equal(py, np.asarray(rr, dtype=float))


def test_ann_nearest_equals_yaimpute(r):
    rng = np.random.default_rng(9)
    ro = r.robjects()
    cases = []
    for _ in range(25):
        pts = np.unique(rng.integers(0, 7, size=(int(rng.integers(3, 40)), 2)), axis=0).astype(float) / 4
        q = rng.integers(-1, 8, size=(15, 2)).astype(float) / 4
        cases.append((pts, q))
    args = ro.vectors.ListVector({f"c{i}": ro.vectors.ListVector({
        "ref": ro.r.matrix(ro.FloatVector(p.T.ravel()), nrow=p.shape[0]),
        "q": ro.r.matrix(ro.FloatVector(q.T.ravel()), nrow=q.shape[0])}) for i, (p, q) in enumerate(cases)})
    got_r = _r_list(r, "lapply(cases, function(cs) yaImpute::ann(cs$ref, cs$q, k = 1, verbose = FALSE)$knnIndexDist[, 1])",
                    cases=args)
    for (pts, q), rr in zip(cases, got_r):
        np.testing.assert_array_equal(nearest(pts, q) + 1, np.asarray(rr, dtype=float).astype(int))


# ---------------------------------------------------------------------------- grids
@pytest.mark.parametrize("ftype, gtype, size", [
    ("numerical", "equidist", 20), ("numerical", "quantile", 21), ("numerical", "quantile", 7),
    ("integer", "equidist", 20), ("integer", "quantile", 11), ("integer", "equidist", 2),
    ("numerical", "equidist", 5.5), ("numerical", "quantile", 6.5), ("integer", "equidist", 3.2),
])
def test_grid_1d_equals_iml(r, ftype, gtype, size):
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=57), 2) if ftype == "numerical" else rng.integers(-3, 9, size=57).astype(float)
    ro = r.robjects()
    vec = ro.FloatVector(x) if ftype == "numerical" else ro.IntVector(x.astype(int))
    got_r = r.r_eval(f"iml:::get.grid.1D(x, {size}, feature.type = '{ftype}', type = '{gtype}')", x=vec)
    np.testing.assert_array_equal(grid_1d(x, size, ftype, type=gtype), np.asarray(got_r, dtype=float))


@pytest.mark.parametrize("lo,hi,size", [(-1.7e308, 1.7e308, 5), (-1.7e308, 1e308, 7), (-1e308, 1.7e308, 20),
                                         (-9e307, 9e307, 3)])
def test_equidistant_grid_of_a_range_beyond_the_largest_double_equals_iml(r, lo, hi, size):
    """max - min overflows: R's seq computes on a quarter of the range (pyiml's grid had inf)."""
    x = np.array([lo, -1e307, 0.0, 1e300, hi])
    got_r = r.r_eval(f"iml:::get.grid.1D(x, {size}, feature.type = 'numerical', type = 'equidist')",
                     x=r.robjects().FloatVector(x))
    mine = grid_1d(x, size, "numerical", type="equidist")
    assert np.isfinite(mine).all()
    np.testing.assert_array_equal(mine, np.asarray(got_r, dtype=float))


def test_ale_of_a_large_feature_whose_range_is_beyond_the_largest_double_equals_iml(r):
    """5000 values spanning ±1.7e308: the quantile grid's bucket selection (n ≥ 4096) had a scale of
    0 and failed in bincount; R's quantile sorts."""
    from parity.harness import compare_frames
    from r_bridge import iml as riml

    x = np.random.default_rng(0).uniform(-1, 1, 5000) * 1.7e308
    X = pd.DataFrame({"x": x, "z": np.random.default_rng(1).normal(size=5000)})

    def f(d):
        return d["z"].to_numpy() + 1e-308 * d["x"].to_numpy()
    fe = FeatureEffect(Predictor(predict_function=f, data=X), "x", method="ale", grid_size=5)
    robj = riml.iml("FeatureEffect", riml.r_predictor(data=X, predict_function=f), feature="x", method="ale",
                    grid_size=5)
    diff, _, problems = compare_frames(fe.results, robj.results)
    assert diff == 0 and not problems


def test_get_grid_with_anchor_and_two_features_equals_iml(r):
    from r_bridge import convert

    d = fixtures.dataset("mixed")[["num", "cat"]]
    rd = convert.py2r(d)
    one = convert.r2py(r.r_eval("iml:::get.grid(d[, 'num', drop = FALSE], 6, anchor.value = 0.123)", d=rd))
    g = anchor_grid(grid_1d(d["num"], 6, "numerical"), 0.123)
    np.testing.assert_array_equal(one["num"].to_numpy(), g)
    two = convert.r2py(r.r_eval("iml:::get.grid(d, 4)", d=rd))
    g1, g2 = grid_1d(d["num"], 4, "numerical"), grid_1d(d["cat"], 4, "categorical")
    i, j = expand_grid(len(g1), len(g2))
    np.testing.assert_array_equal(two["num"].to_numpy(), g1[i])
    assert two["cat"].astype(str).tolist() == [str(v) for v in np.asarray(g2)[j]]


# ---------------------------------------------------------------------------- session RNG and fields
def test_rng_after_pdp_ice_and_feature_effects_equals_r(r):
    from r_bridge import iml as riml

    mp = fixtures.model_pair("friedman1_small_closed")
    data = fixtures.dataset(mp.data)
    p = Predictor(data=data, y=mp.y, **mp.py)
    rp = riml.r_predictor(data=data, y=mp.y, **mp.r)
    out = r.r_eval("""
      set.seed(77)
      fe <- iml::FeatureEffect$new(pred, "x2", method = "pdp+ice", grid.size = 7)
      u1 <- runif(2)
      fes <- iml::FeatureEffects$new(pred, features = c("x1", "x3"), method = "ice", grid.size = 3)
      u2 <- runif(2)
      ale <- iml::FeatureEffect$new(pred, "x4", method = "ale")
      c(u1, u2, sample.int(40, 3), runif(1))
    """, pred=rp)
    rs = RRandom(77)
    FeatureEffect(p, "x2", method="pdp+ice", grid_size=7, random_state=rs)
    u1 = rs.uniform(2)
    FeatureEffects(p, features=["x1", "x3"], method="ice", grid_size=3, random_state=rs)
    u2 = rs.uniform(2)
    FeatureEffect(p, "x4", method="ale", random_state=rs)
    py = np.concatenate([u1, u2, rs.choice(40, 3) + 1, rs.uniform(1)])
    np.testing.assert_array_equal(py, np.asarray(out, dtype=float))


def test_two_feature_grid_points_with_repeats_equal_iml_and_keep_the_rng_in_step(r):
    """For two features iml's unique() acts on the list of vectors, so expand.grid keeps a vector's
    repeated values as grid rows: MarginalGenerator draws a permutation for each, and the mean
    pools the repeated rows' predictions (pyiml de-duplicated each vector: 1.8e-14 off, and 4
    permutations drawn instead of 9, which put every later draw out of step with R's)."""
    from parity.harness import compare_frames
    from r_bridge import iml as riml

    mp = fixtures.model_pair("mixed_closed")
    data = fixtures.dataset(mp.data)
    p = Predictor(data=data, y=mp.y, **mp.py)
    rp = riml.r_predictor(data=data, y=mp.y, **mp.r)
    for points in ([[-1.0, 0.5, -1.0], ["c", "a", "c", "c"]], [["b", "b", "a"], [0.25, 1.0, 0.25]]):
        feature = ["num", "cat"] if isinstance(points[0][0], float) else ["cat", "num"]
        r.r_eval("set.seed(5)")
        robj = riml.iml("FeatureEffect", rp, feature=feature, method="pdp", grid_points=points)
        r_next = np.array(r.r_eval("runif(3)"), dtype=float)
        rs = RRandom(5)
        fe = FeatureEffect(p, feature, method="pdp", grid_points=points, random_state=rs)
        diff, _, problems = compare_frames(fe.results, robj.results)
        assert not problems and diff == 0, (points, diff, problems)
        assert len(fe.results) == 4
        np.testing.assert_array_equal(rs.uniform(3), r_next)


def test_grid_size_field_equals_iml(r):
    from r_bridge import iml as riml

    mp = fixtures.model_pair("mixed_closed")
    data = fixtures.dataset(mp.data)
    p = Predictor(data=data, y=mp.y, **mp.py)
    rp = riml.r_predictor(data=data, y=mp.y, **mp.r)
    for feature, size in ((["num", "cat"], [4, 9]), (["int", "u"], 5), ("ord", 7)):
        robj = riml.iml("FeatureEffect", rp, feature=feature, method="pdp", grid_size=size)
        field = robj.field("grid.size")
        fe = FeatureEffect(p, feature, method="pdp", grid_size=size)
        assert fe.grid_size == {k: int(v) for k, v in dict(field).items()}


def test_fractional_grid_sizes_and_set_feature_from_a_pair_equal_iml(r):
    """iml takes any grid.size (seq rounds length.out up) and set.feature from two features to
    one keeps grid.size.original, whose first size the one feature gets."""
    from parity.harness import compare_frames
    from r_bridge import iml as riml

    mp = fixtures.model_pair("mixed_closed")
    data = fixtures.dataset(mp.data)
    p = Predictor(data=data, y=mp.y, **mp.py)
    rp = riml.r_predictor(data=data, y=mp.y, **mp.r)
    for feature, method, size in (("num", "pdp", 5.5), ("num", "ale", 5.5), ("int", "pdp+ice", 3.2),
                                  (["num", "int"], "pdp", [3.5, 2.1]), (["num", "int"], "ale", 4.5)):
        fe = FeatureEffect(p, feature, method=method, grid_size=size)
        robj = riml.iml("FeatureEffect", rp, feature=feature, method=method, grid_size=size)
        diff, scale, problems = compare_frames(fe.results, robj.results)
        assert not problems and diff <= 1e-12 * scale, (feature, method, diff, problems)
        assert fe.grid_size == dict(robj.field("grid.size"))
    for method in ("pdp", "ale"):
        fe = FeatureEffect(p, ["num", "int"], method=method, grid_size=[3, 5])
        robj = riml.iml("FeatureEffect", rp, feature=["num", "int"], method=method, grid_size=[3, 5])
        fe.set_feature("int")
        robj.call("set.feature", feature="int")
        assert fe.grid_size == {"int": 3} == {k: int(v) for k, v in dict(robj.field("grid.size")).items()}
        diff, scale, problems = compare_frames(fe.results, robj.results)
        assert not problems and diff <= 1e-12 * scale, (method, diff, problems)



def test_whole_number_grid_points_keep_a_float_feature_float(r):
    """``grid_points=[-3, 0, 3]`` for a float feature are R's ``c(-3, 0, 3)``, doubles: the model
    gets the feature as float and the results column is float, as in iml (an integer feature
    keeps whole-number points as they are)."""
    from parity.harness import compare_frames
    from r_bridge import iml as riml

    mp = fixtures.model_pair("mixed_closed")
    data = fixtures.dataset(mp.data)
    seen = []

    def watch(d):
        seen.append((d["num"].dtype, d["int"].dtype))
        return mp.py["predict_function"](d)

    p = Predictor(data=data, y=mp.y, predict_function=watch)
    rp = riml.r_predictor(data=data, y=mp.y, **mp.r)
    f8, i8 = np.dtype(np.float64), np.dtype(np.int64)
    for feature, points, dtypes in (("num", [-3, 0, 3], (f8, i8)),
                                    ("int", [0, 3, 7], (f8, i8))):
        for method in ("pdp", "ale", "pdp+ice"):
            seen.clear()
            fe = FeatureEffect(p, feature, method=method, grid_points=points)
            assert set(seen) == {dtypes}, (feature, method, seen)
            assert fe.results[feature].dtype == dtypes[0 if feature == "num" else 1]
            robj = riml.iml("FeatureEffect", rp, feature=feature, method=method, grid_points=points)
            diff, scale, problems = compare_frames(fe.results, robj.results)
            assert not problems and diff <= 1e-12 * scale, (feature, method, diff, problems)


@pytest.mark.parametrize("name", [".value", ".id"])
def test_2d_ale_of_a_feature_named_like_a_pdp_column_equals_iml(r, name):
    """2-D ALE results have no ``.value`` or ``.id`` column: iml computes the effect of a feature
    so named, and so does pyiml (it refuses only the names of the method's own columns)."""
    from parity.harness import compare_frames
    from r_bridge import RFunction, iml as riml

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": np.round(rng.normal(size=40), 2), name: np.round(rng.normal(size=40), 2)})
    p = Predictor(predict_function=lambda d: pd.DataFrame({"pred": d["a"] * d[name] + d["a"]}), data=X)
    rp = riml.r_predictor(data=X, model=RFunction(f"function(newdata) data.frame(pred = newdata$a * newdata[['{name}']] + newdata$a)"))
    fe = FeatureEffect(p, ["a", name], method="ale", grid_size=4)
    robj = riml.iml("FeatureEffect", rp, feature=["a", name], method="ale", grid_size=4)
    diff, scale, problems = compare_frames(fe.results, robj.results)
    assert not problems and diff <= 1e-12 * scale, (diff, problems)


# ---------------------------------------------------------------------------- levels alike
def test_ale_levels_alike_keep_their_order_where_iml_returns_na(r):
    """Every level with the same distribution of the other features: all level distances are 0,
    ``cmdscale`` finds no positive eigenvalue and ``iml:::order_levels`` returns no order, so
    iml's categorical ALE is NA (1-D) or fails (numerical × categorical: the model gets rows with
    NA levels). pyiml keeps the level order (docs/differences.md), which is what iml does for an
    ordered factor: its results on the same data with the factor ordered are pyiml's, to the bit."""
    from r_bridge import convert, iml as riml
    from r_bridge.session import RError

    d = pd.DataFrame({"c": pd.Categorical(list("aaaabbbbcc"), categories=list("abc")),
                      "x": [0.5, 1.5, 1.5, 0.5, 1.5, 0.5, 0.5, 1.5, 1.5, 0.5]})

    def f(df):
        s = df["c"].astype(str).to_numpy()
        x = df["x"].to_numpy(dtype=float)
        return 2 * x + 3.0 * (s == "b") + x * (s == "c")

    assert len(r.r_eval('suppressWarnings(iml:::order_levels(data.table::as.data.table(d), "c"))',
                        d=convert.py2r(d))) == 0
    ordered = d.assign(c=pd.Categorical(d["c"], categories=list("abc"), ordered=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # R's cmdscale and data.table warnings; NaN inputs of f
        rp = riml.r_predictor(data=d, predict_function=f)
        r_na = riml.iml("FeatureEffect", rp, feature="c", method="ale").results
        with pytest.raises(RError, match="missing values"):
            riml.iml("FeatureEffect", riml.r_predictor(data=d, predict_function=f), feature=["x", "c"],
                     method="ale", grid_size=3)
        rpo = riml.r_predictor(data=ordered, predict_function=f)
        r_1d = riml.iml("FeatureEffect", rpo, feature="c", method="ale").results
        r_2d = riml.iml("FeatureEffect", rpo, feature=["x", "c"], method="ale", grid_size=3).results
    assert r_na[".value"].isna().any() and r_na["c"].isna().all()
    p = Predictor(data=d, predict_function=f)
    fe1 = FeatureEffect(p, "c", method="ale").results
    fe2 = FeatureEffect(p, ["x", "c"], method="ale", grid_size=3).results
    assert list(fe1["c"].astype(str)) == ["a", "b", "c"] == list(r_1d["c"].astype(str))
    np.testing.assert_array_equal(fe1[".value"].to_numpy(), r_1d[".value"].to_numpy())
    assert list(fe2.columns) == list(r_2d.columns)
    assert list(fe2["c"].astype(str)) == list(r_2d["c"].astype(str))
    for col in (".ale", ".right", ".left", ".bottom", ".top", "x"):
        np.testing.assert_array_equal(fe2[col].to_numpy(dtype=float), r_2d[col].to_numpy(dtype=float))
