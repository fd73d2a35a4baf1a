"""FeatureEffect and FeatureEffects without R: closed-form oracles, layouts, errors, plots.

The comparison with CRAN iml is in ``tests/test_feature_effect_r.py`` (iml's internals run live)
and in the parity specs ``parity/specs/fe_*.toml``.
"""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.figure import Figure

from pyiml import FeatureEffect, FeatureEffects, Predictor, RRandom
from pyiml._ale import impute_cells
from pyiml._algorithms.ann import nearest
from pyiml._algorithms.grids import ale_interval, find_interval, grid_1d, r_approx, r_seq
from pyiml._algorithms.mds import cmdscale_1d, double_centre, order_levels
from pyiml._pdp import predict_blocks

EXACT = dict(rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- data and models
@pytest.fixture(scope="module")
def lin():
    """y = 2a − 3b + 0.5·i + level effects (additive), 80 rows."""
    rng = np.random.default_rng(0)
    n = 80
    X = pd.DataFrame({
        "a": rng.uniform(0, 1, n),
        "b": rng.normal(size=n),
        "i": rng.integers(0, 6, n).astype("int64"),
        "c": pd.Categorical(rng.choice(["u", "v", "w"], n), categories=["u", "v", "w"]),
    })
    eff = {"u": 0.0, "v": 1.5, "w": -1.0}

    def f(d):
        return (2 * d["a"].to_numpy() - 3 * d["b"].to_numpy() + 0.5 * d["i"].to_numpy(dtype=float)
                + np.array([eff[str(v)] for v in d["c"]]))

    return X, f, eff


@pytest.fixture(scope="module")
def lin_pred(lin):
    X, f, _ = lin
    return Predictor(predict_function=f, data=X)


@pytest.fixture(scope="module")
def inter():
    """y = a·b + sin(3a) (an interaction), two-output variant too."""
    rng = np.random.default_rng(1)
    n = 60
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.uniform(0, 2, n), "z": rng.normal(size=n)})

    def f(d):
        return d["a"].to_numpy() * d["b"].to_numpy() + np.sin(3 * d["a"].to_numpy())

    def f2(d):
        p = 1 / (1 + np.exp(-(d["a"].to_numpy() - d["b"].to_numpy() + 0.5)))
        return pd.DataFrame({"yes": p, "no": 1 - p})

    return X, f, f2


def _counting(f):
    calls = []

    def g(d):
        calls.append(len(d))
        return f(d)

    return g, calls


# ---------------------------------------------------------------------------- grids (spec §1, §7.2)
def test_r_seq_matches_r_definition():
    np.testing.assert_array_equal(r_seq(0, 1, 5), [0, 0.25, 0.5, 0.75, 1])
    assert r_seq(3, 3, 4).tolist() == [3, 3, 3, 3]
    assert r_seq(1, 2, 2).tolist() == [1, 2] and r_seq(1, 2, 1).tolist() == [1]
    s = r_seq(0.1, 0.7, 7)
    assert s[-1] == 0.7 and s[3] == 0.1 + 3 * ((0.7 - 0.1) / 6)


def test_integer_equidistant_grid_is_rounded_and_keeps_duplicates():
    # spec §7.2: 1:10 with 20 points → 1,1,2,2,…,10,10
    g = grid_1d(np.arange(1, 11), 20, "integer")
    assert g.tolist() == [float(v) for v in np.repeat(np.arange(1, 11), 2)]
    assert g.dtype == np.float64


def test_quantile_grid_is_type1_and_categorical_grid_in_appearance_order():
    x = np.array([5.0, 1, 3, 3, 9, 7, np.nan, np.inf])
    # finite values 1,3,3,5,7,9; type 1 at 0, .25, .5, .75, 1 → x(max(1, ceil(6p)))
    assert grid_1d(x, 5, "numerical", type="quantile").tolist() == [1, 3, 3, 7, 9]
    cat = pd.Series(pd.Categorical(["b", "a", "b", "c"], categories=["c", "b", "a", "z"]))
    g = grid_1d(cat, 10, "categorical")
    assert list(g) == ["b", "a", "c"] and list(g.categories) == ["c", "b", "a", "z"]
    with pytest.raises(ValueError, match="finite"):
        grid_1d(np.array([np.nan, np.inf]), 5, "numerical")


def test_find_interval_is_left_open_and_ale_folds_the_minimum():
    grid = np.array([1.0, 2, 4, 5])
    x = np.array([0.5, 1, 1.5, 2, 2.1, 5, 6])
    assert find_interval(x, grid).tolist() == [0, 0, 1, 1, 2, 3, 4]
    assert ale_interval(x, grid).tolist() == [1, 1, 1, 1, 2, 3, 4]


def test_r_approx_reproduces_spec_predict_example():
    # spec §9.8: ALE curve (1,2,4,5) → values; predict(c(0,1,1.5,3,5,6)) with rule = 2
    x = [1.0, 2, 4, 5]
    y = [-0.01096774, -0.00451613, 0.00838710, 0.01483871]
    got = r_approx(x, y, [0, 1, 1.5, 3, 5, 6])
    np.testing.assert_allclose(got, [-0.01096774, -0.01096774, -0.007741935, 0.001935485, 0.01483871, 0.01483871],
                               atol=1e-9)
    # ties in x are averaged (R's ties = mean)
    assert r_approx([0, 1, 1, 2], [0, 1, 3, 2], [1])[0] == 2.0


# ---------------------------------------------------------------------------- MDS and ANN
def test_double_centre_and_cmdscale_recover_a_line():
    pts = np.array([0.0, 1.0, 3.0, 7.0])
    D = np.abs(pts[:, None] - pts[None, :])
    B = double_centre(D ** 2)
    np.testing.assert_allclose(B.sum(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(B.sum(axis=1), 0, atol=1e-12)
    coord = cmdscale_1d(D)
    c = coord if coord[0] < coord[-1] else -coord
    np.testing.assert_allclose(c - c[0], pts, atol=1e-12)  # classical MDS is exact for points on a line
    assert cmdscale_1d(np.zeros((3, 3))) is None


def test_order_levels_follows_the_other_features():
    rng = np.random.default_rng(3)
    n = 300
    lev = rng.choice(["p", "q", "r", "s"], n)
    shift = {"p": 0.0, "q": 3.0, "r": 1.0, "s": 2.0}     # order along x: p, r, s, q (overlapping)
    X = pd.DataFrame({"c": pd.Categorical(lev, categories=["p", "q", "r", "s"]),
                      "x": np.array([shift[v] for v in lev]) + rng.normal(scale=1.5, size=n)})
    order = order_levels(X, "c")
    names = [["p", "q", "r", "s"][i] for i in order]
    assert names in (["p", "r", "s", "q"], ["q", "s", "r", "p"])


@pytest.mark.parametrize("seed", range(6))
def test_level_distances_equal_their_definition(seed):
    """iml's order_levels distances: total variation for categorical columns, Kolmogorov-Smirnov at
    the 100 type-7 quantiles for numerical ones, each level's ECDF from its own sorted values
    (pyiml counts them without sorting); ties, +-Inf and NaN included."""
    from pyiml._algorithms.mds import level_distances

    rng = np.random.default_rng(seed)
    n, K = int(rng.choice([40, 5000, 30_000])), int(rng.integers(2, 6))
    codes = rng.integers(0, K, n)
    codes[:K] = np.arange(K)
    x = rng.normal(size=n) + codes * rng.normal()
    x[rng.integers(0, n, 3)] = [np.inf, -np.inf, np.nan]
    tie_mass = np.where(rng.uniform(size=n) < 0.4 * (codes == 0), 0.0, rng.normal(size=n))  # quantiles at 0.0
    X = pd.DataFrame({"f": codes, "x": x, "t": tie_mass,
                      "c": pd.Categorical(rng.choice(list("abc"), n), categories=list("abcd")),
                      "s": rng.choice(["u", "v"], n).astype(object)})
    probs = np.linspace(0, 1, 100)
    want = np.zeros((K, K))
    for name in ["x", "t", "c", "s"]:
        col = X[name]
        if name in ("c", "s"):
            lev = sorted(set(col.astype(str)))
            A = np.array([[np.mean(col[codes == k].astype(str) == v) for v in lev] for k in range(K)])
            want += (np.abs(A[:, None, :] - A[None, :, :]).astype(np.longdouble).cumsum(axis=2)[:, :, -1] / 2
                     ).astype(float)
        else:
            v = col.to_numpy()
            fin = ~np.isnan(v)
            xs = np.sort(v[fin])
            i = 1 + (xs.size - 1) * probs
            a, b = np.floor(i).astype(int), np.ceil(i).astype(int)
            with np.errstate(invalid="ignore"):
                q = np.where((i > a) & (xs[b - 1] != xs[a - 1]), (1 - (i - a)) * xs[a - 1] + (i - a) * xs[b - 1],
                             xs[a - 1])
            F = np.array([np.searchsorted(np.sort(v[fin & (codes == k)]), q, side="right") / np.sum(fin & (codes == k))
                          for k in range(K)])
            want += np.max(np.abs(F[:, None, :] - F[None, :, :]), axis=2)
    np.testing.assert_array_equal(level_distances(X, codes, K, "f"), want)


def test_ann_returns_a_nearest_point_and_is_deterministic():
    rng = np.random.default_rng(4)
    for _ in range(30):
        ref = rng.integers(0, 6, size=(rng.integers(1, 25), 2)).astype(float)
        ref = np.unique(ref, axis=0)
        q = rng.integers(-1, 7, size=(10, 2)).astype(float)
        nb = nearest(ref, q)
        d = ((q[:, None, :] - ref[None, :, :]) ** 2).sum(-1)
        np.testing.assert_array_equal(d[np.arange(len(q)), nb], d.min(axis=1))
        np.testing.assert_array_equal(nb, nearest(ref, q))


def test_ann_shortcut_equals_the_kd_tree_search():
    # nearest() settles clear nearest points from the distance matrix and sends ties to the tree:
    # the answers must be the tree's for every query (ties, near ties, grids, random floats)
    from pyiml._algorithms.ann import KDTree

    rng = np.random.default_rng(11)
    for case in range(60):
        kind = case % 3
        if kind == 0:  # integer lattice: many exact ties
            ref = np.unique(rng.integers(0, 8, size=(rng.integers(2, 40), 2)).astype(float), axis=0)
            q = rng.integers(-1, 9, size=(25, 2)).astype(float)
        elif kind == 1:  # normalised midpoints of quantile-like grids, as impute_cells uses
            g1, g2 = np.sort(rng.uniform(size=12)), np.sort(rng.uniform(size=9))
            z = np.column_stack([np.repeat(g1, 9), np.tile(g2, 12)])
            miss = rng.uniform(size=len(z)) < 0.3
            ref, q = z[~miss], z[miss]
        else:  # random floats
            ref, q = rng.normal(size=(rng.integers(1, 30), 2)), rng.normal(size=(20, 2))
        if len(q) == 0 or len(ref) == 0:
            continue
        tree = KDTree(ref)
        np.testing.assert_array_equal(nearest(ref, q), [tree.query1(x) for x in q])


def test_impute_cells_fills_from_nearest_cell_only():
    vals = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [7.0, np.nan, 9.0]])[:, :, None]
    x = np.array([0.1, 0.5, 0.9])
    out = impute_cells(vals, x, x)[:, :, 0]
    assert not np.isnan(out).any()
    np.testing.assert_array_equal(out[[0, 0, 2, 2], [0, 2, 0, 2]], [1, 3, 7, 9])
    assert out[0, 1] in (1, 3) and out[1, 0] in (1, 7)
    full = np.arange(6.0).reshape(2, 3, 1)
    assert impute_cells(full, x[:2], x) is full


# ---------------------------------------------------------------------------- oracles
def test_pdp_of_linear_model_is_the_line(lin, lin_pred):
    X, f, _ = lin
    fe = FeatureEffect(lin_pred, "a", method="pdp", grid_size=7)
    g = r_seq(X["a"].min(), X["a"].max(), 7)
    expected = 2 * g + np.mean(f(X) - 2 * X["a"].to_numpy())
    np.testing.assert_allclose(fe.results[".value"], expected, **EXACT)
    np.testing.assert_array_equal(fe.results["a"], g)
    assert list(fe.results.columns) == ["a", ".value", ".type"]


def test_ale_of_linear_model_has_the_slope_and_weighted_mean_zero(lin_pred, lin):
    X, _, _ = lin
    fe = FeatureEffect(lin_pred, "b", method="ale", grid_size=10)
    res = fe.results
    assert list(res.columns) == [".type", ".value", "b"]
    z, v = res["b"].to_numpy(), res[".value"].to_numpy()
    np.testing.assert_allclose(np.diff(v), -3 * np.diff(z), rtol=1e-10)
    # centred by the count-weighted mean of interval midpoints (spec §19.2)
    k = ale_interval(X["b"].to_numpy(), z)
    n_k = np.bincount(k - 1, minlength=len(z) - 1)
    assert abs(np.sum(n_k * (v[:-1] + v[1:]) / 2)) < 1e-10


def test_ice_curves_of_additive_model_are_parallel(lin_pred, lin):
    X, f, _ = lin
    fe = FeatureEffect(lin_pred, "a", method="ice", grid_size=4)
    res = fe.results
    assert list(res.columns) == ["a", ".value", ".type", ".id"]
    assert res[".id"].dtype == np.int64 and res[".id"].tolist() == list(np.repeat(np.arange(1, 81), 4))
    vals = res[".value"].to_numpy().reshape(80, 4)
    np.testing.assert_allclose(vals - vals[:, :1], np.broadcast_to(vals[0] - vals[0, 0], vals.shape), atol=1e-12)
    c = FeatureEffect(lin_pred, "a", method="pdp+ice", grid_size=4, center_at=0.5)
    cres = c.results
    assert (cres.loc[cres["a"] == 0.5, ".value"] == 0).all()
    assert cres[".id"].dtype == "Int64" and cres[".id"].isna().sum() == 5  # 4 grid points + anchor
    ice = cres[cres[".type"] == "ice"][".value"].to_numpy().reshape(80, 5)
    np.testing.assert_allclose(ice, np.broadcast_to(ice[0], ice.shape), atol=1e-12)


def test_two_feature_ale_of_additive_model_is_zero(lin_pred):
    fe = FeatureEffect(lin_pred, ["a", "b"], method="ale", grid_size=5)
    assert list(fe.results.columns) == [".type", ".ale", ".right", ".left", ".bottom", ".top", "a", "b"]
    assert np.abs(fe.results[".ale"]).max() < 1e-12
    fe2 = FeatureEffect(lin_pred, ["c", "a"], method="ale", grid_size=5)
    assert list(fe2.results.columns)[-2:] == ["a", "c"]          # numeric feature first
    assert np.abs(fe2.results[".ale"]).max() < 1e-12


def test_two_feature_ale_of_product_is_not_zero(inter):
    X, f, _ = inter
    fe = FeatureEffect(Predictor(predict_function=f, data=X), ["a", "b"], method="ale", grid_size=4)
    res = fe.results
    assert np.abs(res[".ale"]).max() > 0.05
    assert len(res) == 25
    # rows: feature 2 major, feature 1 fastest; rectangles around the grid points
    a_grid = np.unique(res["a"])
    assert res["a"].tolist()[:5] == a_grid.tolist()
    first = res.iloc[0]
    assert first[".left"] == first["a"] and first[".top"] == first["b"]


def test_rectangles_match_spec_example():
    # spec §9.6: a-grid (1,2,4,5) → (.left,.right) = (1,1.5),(1.5,3),(3,4.5),(4.5,5)
    X = pd.DataFrame({"a": [1.0, 2, 2, 4, 4, 5, 5, 1], "b": [10.0, 20, 10, 20, 10, 20, 10, 20]})
    p = Predictor(predict_function=lambda d: d["a"] * d["b"], data=X)
    res = FeatureEffect(p, ["a", "b"], method="ale", grid_size=3).results
    assert np.unique(res["a"]).tolist() == [1, 2, 4, 5]
    rect = res[res["b"] == 10][["a", ".left", ".right", ".bottom", ".top"]]
    assert rect[[".left", ".right"]].values.tolist() == [[1, 1.5], [1.5, 3], [3, 4.5], [4.5, 5]]
    assert rect[[".bottom", ".top"]].values.tolist()[0] == [15, 10]


def test_categorical_ale_steps_are_the_level_effects(lin_pred, lin):
    X, _, eff = lin
    fe = FeatureEffect(lin_pred, "c", method="ale")
    res = fe.results
    levels = list(res["c"].cat.categories)
    assert sorted(levels) == ["u", "v", "w"] and res["c"].tolist() == levels
    np.testing.assert_allclose(np.diff(res[".value"]), np.diff([eff[v] for v in levels]), atol=1e-12)
    w = X["c"].astype(str).value_counts()[levels].to_numpy() / len(X)
    assert abs(np.sum(w * res[".value"])) < 1e-12


def test_ordered_factor_keeps_its_order_and_unused_levels_are_dropped():
    rng = np.random.default_rng(5)
    n = 90
    lev = rng.choice(["lo", "hi", "mid"], n)
    X = pd.DataFrame({"o": pd.Categorical(lev, categories=["lo", "gone", "mid", "hi"], ordered=True),
                      "x": rng.normal(size=n)})
    score = {"lo": 0.0, "mid": 1.0, "hi": 3.0}
    p = Predictor(predict_function=lambda d: np.array([score[str(v)] for v in d["o"]]) + d["x"], data=X)
    res = FeatureEffect(p, "o", method="ale").results
    assert list(res["o"].cat.categories) == ["lo", "mid", "hi"]
    np.testing.assert_allclose(np.diff(res[".value"]), [1.0, 2.0], atol=1e-12)
    # centring weights are the used levels' frequencies (iml misaligns them, docs/differences.md)
    w = pd.Series(lev).value_counts()[["lo", "mid", "hi"]].to_numpy() / n
    assert abs(np.sum(w * res[".value"])) < 1e-12


def test_string_and_bool_features_are_categorical():
    rng = np.random.default_rng(6)
    n = 40
    X = pd.DataFrame({"s": rng.choice(["x", "y"], n), "t": rng.integers(0, 2, n).astype(bool), "z": rng.normal(size=n)})
    p = Predictor(predict_function=lambda d: (d["s"] == "y") * 2.0 + d["t"] * 1.0 + d["z"], data=X)
    ale = FeatureEffect(p, "s", method="ale").results
    assert sorted(ale["s"].astype(str)) == ["x", "y"] and isinstance(ale["s"].dtype, pd.CategoricalDtype)
    assert abs(abs(np.diff(ale[".value"])[0]) - 2.0) < 1e-12
    pdp = FeatureEffect(p, "t", method="pdp").results
    assert pdp["t"].dtype == bool and len(pdp) == 2
    pdp_s = FeatureEffect(p, "s", method="pdp").results
    assert pdp_s["s"].dtype == object and pdp_s["s"].tolist() == list(pd.unique(X["s"]))


def test_multiclass_layouts(inter):
    X, _, f2 = inter
    p = Predictor(predict_function=f2, data=X)
    ale = FeatureEffect(p, "a", method="ale", grid_size=3).results
    assert list(ale.columns) == [".type", ".class", ".value", "a"]
    assert list(ale[".class"].cat.categories) == ["yes", "no"]
    assert ale[".class"].astype(str).tolist()[:4] == ["yes", "no", "yes", "no"]   # grid-major
    np.testing.assert_allclose(ale[".value"].to_numpy()[::2], -ale[".value"].to_numpy()[1::2], atol=1e-12)
    pi = FeatureEffect(p, "a", method="pdp+ice", grid_size=3).results
    assert list(pi.columns) == ["a", ".class", ".value", ".type", ".id"]
    assert len(pi) == 2 * 3 + 2 * 3 * 60
    ice = FeatureEffect(p, "a", method="ice", grid_size=3, center_at=0.5).results
    assert list(ice.columns) == [".class", "a", ".value", ".type", ".id"]
    ale2 = FeatureEffect(p, ["a", "b"], method="ale", grid_size=2).results
    assert ale2[".class"].astype(str).tolist() == ["yes"] * 9 + ["no"] * 9               # class-major


def test_multiclass_row_order_follows_batches_and_permutations(inter):
    # iml stacks classes per batch; with RRandom the ICE order depends on the permutations drawn
    X, _, f2 = inter
    p = Predictor(predict_function=f2, data=X, batch_size=7)
    res = FeatureEffect(p, "a", method="pdp+ice", grid_size=3, random_state=RRandom(2)).results
    one = FeatureEffect(Predictor(predict_function=f2, data=X, batch_size=10 ** 6), "a", method="pdp+ice",
                        grid_size=3).results
    key = ["a", ".class", ".id"]
    a = res.assign(c=res[".class"].astype(str)).sort_values(["a", "c", ".id"], kind="stable")
    b = one.assign(c=one[".class"].astype(str)).sort_values(["a", "c", ".id"], kind="stable")
    np.testing.assert_allclose(a[".value"].to_numpy(), b[".value"].to_numpy(), **EXACT)
    assert res[key].astype(str).values.tolist() != one[key].astype(str).values.tolist()
    assert res[".id"].iloc[6:].is_monotonic_increasing


def test_ice_storage_follows_the_outputs_actually_predicted(inter):
    # the ICE storage is made for the columns the model returns in this run, not those of the
    # predictor's last prediction (a model whose next call returns other columns, or a class_
    # set and cleared in between)
    X, f, f2 = inter
    calls = []

    def changing(d):
        calls.append(len(d))
        return f(d) if len(calls) == 1 else f2(d)

    p = Predictor(predict_function=changing, data=X, batch_size=50)
    p.predict(X.iloc[:3])
    assert p.output_names == ["pred"]
    for method in ("ice", "pdp+ice"):
        got = FeatureEffect(p, "a", method=method, grid_size=4).results
        want = FeatureEffect(Predictor(predict_function=f2, data=X, batch_size=50), "a", method=method,
                             grid_size=4).results
        pd.testing.assert_frame_equal(got, want)
    one = Predictor(predict_function=f2, data=X, batch_size=50, class_="no")
    one.predict(X.iloc[:3])
    one.class_ = None                  # two outputs again, after a one-output prediction
    got = FeatureEffect(one, "a", method="ice", grid_size=4).results
    want = FeatureEffect(Predictor(predict_function=f2, data=X, batch_size=50), "a", method="ice",
                         grid_size=4).results
    pd.testing.assert_frame_equal(got, want)


def test_integer_grid_duplicates_give_duplicate_ice_rows():
    X = pd.DataFrame({"i": np.array([1, 2, 3, 2, 1, 3], dtype="int64"), "z": np.arange(6.0)})
    p = Predictor(predict_function=lambda d: d["i"] * 1.0 + d["z"], data=X)
    res = FeatureEffect(p, "i", method="pdp+ice", grid_size=5).results
    pdp = res[res[".type"] == "pdp"]
    assert pdp["i"].tolist() == [1.0, 2.0, 3.0] and res["i"].dtype == np.float64
    assert (res[".type"] == "ice").sum() == 6 * 5


# ---------------------------------------------------------------------------- pyiml's own choices
def test_center_at_shifts_ale_to_zero(lin_pred):
    fe = FeatureEffect(lin_pred, "a", method="ale", grid_size=5, center_at=0.4)
    assert abs(fe.predict([0.4])[0]) < 1e-12
    plain = FeatureEffect(lin_pred, "a", method="ale", grid_size=5)
    shift = plain.results[".value"] - fe.results[".value"]
    assert np.ptp(shift) < 1e-12
    fe.center(None)
    np.testing.assert_allclose(fe.results[".value"], plain.results[".value"], **EXACT)


def test_integer_by_categorical_ale_works_in_both_orders(lin_pred):
    # iml 0.11.4 fails for (integer, categorical) and works for (categorical, integer), §18.4
    a = FeatureEffect(lin_pred, ["i", "c"], method="ale", grid_size=4).results
    b = FeatureEffect(lin_pred, ["c", "i"], method="ale", grid_size=4).results
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns)[-2:] == ["i", "c"] and np.abs(a[".ale"]).max() < 1e-12   # additive model


def test_ale_grid_points_beyond_the_data_keep_their_place(lin_pred, lin):
    X, _, _ = lin
    pts = [-1.0, 0.0, 0.5, 1.0, 2.0]     # data in (0, 1)
    res = FeatureEffect(lin_pred, "a", method="ale", grid_points=pts).results
    assert res["a"].tolist() == pts
    v = res[".value"].to_numpy()
    assert v[0] == v[1] and v[-1] == v[-2]              # no data beyond: flat
    np.testing.assert_allclose(v[2] - v[1], 2 * 0.5 - 0, atol=0.2)


def test_predict(lin_pred, lin):
    fe = FeatureEffect(lin_pred, "a", method="pdp", grid_size=5)
    g = fe.results["a"].to_numpy()
    got = fe.predict(pd.DataFrame({"a": [g[0], (g[1] + g[2]) / 2, g[-1] + 1]}))
    assert got[0] == fe.results[".value"].iloc[0] and np.isnan(got[2])
    np.testing.assert_allclose(got[1], fe.results[".value"].iloc[1:3].mean(), atol=1e-12)
    assert fe.predict([g[-1] + 1], extrapolate=True)[0] == fe.results[".value"].iloc[-1]
    cat = FeatureEffect(lin_pred, "c", method="ale")
    lookup = dict(zip(cat.results["c"].astype(str), cat.results[".value"]))
    got = cat.predict(["w", "u", "nope"])
    assert got[:2].tolist() == [lookup["w"], lookup["u"]] and np.isnan(got[2])
    with pytest.raises(ValueError, match="single feature"):
        FeatureEffect(lin_pred, ["a", "b"], method="pdp", grid_size=3).predict([0.5])
    with pytest.raises(ValueError, match="ice"):
        FeatureEffect(lin_pred, "a", method="ice", grid_size=3).predict([0.5])


@pytest.mark.parametrize("kwargs", [dict(feature="a", grid_points=[0.0, 0.0, 0.25, 0.5, 0.5, 1.0]),
                                    dict(feature="a", grid_size=7, center_at=0.3),
                                    dict(feature="c"), dict(feature="i", grid_size=4)])
def test_pdp_ice_predicts_the_pdp_curve(lin_pred, kwargs):
    """A pdp+ice effect predicts with its PDP rows (one per distinct grid value, before the ICE
    rows), the same curve as method='pdp'; repeated grid values give fewer PDP rows."""
    pdp = FeatureEffect(lin_pred, method="pdp", **kwargs)
    both = FeatureEffect(lin_pred, method="pdp+ice", **kwargs)
    f = kwargs["feature"]
    new = ["u", "w", "v"] if f == "c" else [0.1, 0.3, 0.45, 0.9]
    got = both.predict(new)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, pdp.predict(new), rtol=0, atol=1e-12)
    assert (both.results[".type"] == "pdp").sum() == len(pdp.results)


def test_predict_rejects_multiclass(inter):
    X, _, f2 = inter
    fe = FeatureEffect(Predictor(predict_function=f2, data=X), "a", method="pdp", grid_size=3)
    with pytest.raises(ValueError, match="one-dimensional output"):
        fe.predict([0.5])


def test_set_feature_and_center(lin_pred):
    fe = FeatureEffect(lin_pred, "a", method="pdp", grid_size=4)
    fe.set_feature("c")
    assert fe.feature_name == ["c"] and fe.feature_type == ["categorical"] and fe.grid_size == {"c": 3}
    assert list(fe.results.columns) == ["c", ".value", ".type"]
    fe.set_feature(["a", "i"])
    assert fe.grid_size == {"a": 4, "i": 4} and fe.n_features == 2
    fe.set_feature("b")
    fe.center(0.0)
    assert fe.center_at == 0.0 and (fe.results.loc[fe.results["b"] == 0.0, ".value"] == 0).all()
    with pytest.raises(AttributeError):
        fe.center_at = 1.0


def test_grid_size_attribute_and_repr(lin_pred):
    fe = FeatureEffect(lin_pred, ["a", "c"], method="pdp", grid_size=[4, 9])
    assert fe.grid_size == {"a": 4, "c": 3}
    text = repr(fe)
    assert "features: a[numerical], c[categorical]" in text and "grid size: 4x3" in text


# ---------------------------------------------------------------------------- FeatureEffects
def test_feature_effects_equal_single_effects_and_share_predictions(lin):
    X, f, _ = lin
    g, calls = _counting(f)
    p = Predictor(predict_function=g, data=X, batch_size=10 ** 6)
    fes = FeatureEffects(p, method="ale", grid_size=6)
    assert list(fes.results) == ["a", "b", "i", "c"] and list(fes.effects) == ["a", "b", "i", "c"]
    assert len(calls) == 1   # every feature's design in one model call
    for feat in ("a", "c"):
        single = FeatureEffect(Predictor(predict_function=f, data=X), feat, method="ale", grid_size=6).results
        got = fes.results[feat]
        assert list(got.columns) == [".type", ".value", ".borders", ".feature"]
        np.testing.assert_allclose(got[".value"], single[".value"], **EXACT)
        assert (got[".feature"] == feat).all()
    fes2 = FeatureEffects(Predictor(predict_function=f, data=X), features=["b"], method="pdp+ice", grid_size=3,
                          center_at=0.0)
    assert list(fes2.results["b"].columns) == [".borders", ".value", ".type", ".id", ".feature"]


@pytest.mark.parametrize("method", ["ale", "pdp", "pdp+ice", "ice"])
def test_feature_effects_results_are_the_constructors_after_effects_change(lin, method):
    """iml makes results in the constructor: changing an effect afterwards (center, set_feature)
    changes that effect, not FeatureEffects' results, even when these are first read later."""
    X, f, _ = lin
    p = Predictor(predict_function=f, data=X)
    want = FeatureEffects(p, features=["a", "b"], method=method, grid_size=3).results
    fes = FeatureEffects(p, features=["a", "b"], method=method, grid_size=3)
    before = fes.effects["a"].results.copy()   # an ICE table read from the effect first is shared
    fes.effects["a"].center(float(X["a"].min()))
    fes.effects["b"].set_feature("i")
    assert not fes.effects["a"].results.equals(before)
    assert list(fes.results) == ["a", "b"]
    for feat in want:
        pd.testing.assert_frame_equal(fes.results[feat], want[feat])
    pd.testing.assert_frame_equal(want["a"].drop(columns=".feature").rename(columns={".borders": "a"}), before)


@pytest.mark.parametrize("method, source", [("ale", RRandom), ("pdp+ice", RRandom), ("pdp", RRandom),
                                            ("pdp", np.random.default_rng)])
def test_feature_effects_n_jobs_and_progress_do_not_change_results(lin, method, source, capsys, monkeypatch):
    import threading

    from pyiml import _parallel

    X, f, _ = lin
    # threads for this small work: calls of 200 rows count as large, and no decision is known
    monkeypatch.setattr(_parallel, "THREAD_MIN_BATCH", 100)
    monkeypatch.setattr(_parallel, "_cpus", lambda: 2)
    monkeypatch.setattr(_parallel, "_THREADS_PAY", {})
    seen = set()

    def g(d):
        seen.add(threading.get_ident())
        return f(d)

    one = FeatureEffects(Predictor(predict_function=f, data=X, batch_size=200), method=method, grid_size=5,
                         random_state=source(2))
    many = FeatureEffects(Predictor(predict_function=g, data=X, batch_size=200), method=method, grid_size=5,
                          random_state=source(2), n_jobs=2)
    assert len(seen) >= 2     # the first group on the caller, the next ones on the threads
    bar = FeatureEffects(Predictor(predict_function=f, data=X), method=method, grid_size=5, progress=True)
    assert "FeatureEffects" in capsys.readouterr().err
    for feat in one.results:
        pd.testing.assert_frame_equal(many.results[feat], one.results[feat])
        pd.testing.assert_frame_equal(bar.results[feat], one.results[feat])
    with pytest.raises(ValueError, match="n_jobs"):
        FeatureEffects(Predictor(predict_function=f, data=X), n_jobs=0)


def test_categorical_ale_base_predictions_are_made_once():
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(list("ab"), 30)), "d": pd.Categorical(rng.choice(list("xyz"), 30)),
                      "z": rng.normal(size=30)})
    g, calls = _counting(lambda d: (d["c"] == "a") * 1.0 + (d["d"] == "x") * 2.0 + d["z"])
    fes = FeatureEffects(Predictor(predict_function=g, data=X, batch_size=10 ** 6), features=["c", "d"], method="ale")
    middle = fes.results["d"][".borders"].cat.categories[1]
    # unchanged rows once (30), c: every row moves to its one neighbour (30),
    # d: every row moves up or down (30) and the middle level both ways
    assert sum(calls) == 30 + 30 + 30 + int((X["d"] == middle).sum())


def test_rrandom_advances_like_r():
    rng = np.random.default_rng(8)
    X = pd.DataFrame({"a": rng.uniform(size=12), "b": rng.uniform(size=12)})
    p = Predictor(predict_function=lambda d: d["a"] + d["b"], data=X)
    rs, ref = RRandom(11), RRandom(11)
    FeatureEffect(p, "a", method="pdp", grid_size=5, random_state=rs)
    ref.permutations(12, 5)                    # iml: one permutation of the rows per grid point
    assert rs.uniform(1)[0] == ref.uniform(1)[0]
    FeatureEffect(p, "a", method="ale", random_state=rs)   # ALE draws nothing
    assert rs.uniform(1)[0] == ref.uniform(1)[0]
    FeatureEffects(p, method="pdp", grid_size=3, random_state=rs)
    ref.element_streams(2)
    ref.element_streams(2)                     # two seeded future_lapply calls
    assert rs.uniform(1)[0] == ref.uniform(1)[0]


def test_numpy_source_gives_the_same_results(lin_pred):
    a = FeatureEffect(lin_pred, "i", method="pdp+ice", grid_size=6, random_state=RRandom(3)).results
    b = FeatureEffect(lin_pred, "i", method="pdp+ice", grid_size=6).results
    pd.testing.assert_frame_equal(a, b)


def test_model_calls_are_bounded_by_batch_size(lin):
    X, f, _ = lin
    g, calls = _counting(f)
    p = Predictor(predict_function=g, data=X, batch_size=50)
    fe = FeatureEffect(p, "a", method="pdp+ice", grid_size=10)
    assert max(calls) <= 50 and sum(calls) == 800 and len(calls) == 16
    assert len(fe.results) == 10 + 800


def test_pdp_only_keeps_sums_not_predictions(lin_pred):
    fe = FeatureEffect(lin_pred, "a", method="pdp", grid_size=4, _defer=True)
    plan = fe._make_plan()
    preds = predict_blocks(lin_pred, plan.blocks)
    assert preds == [None] and plan._sums.shape == (4, 1)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, err, match", [
    (dict(feature="nope"), ValueError, "not a feature"),
    (dict(feature=["a", "b", "c"]), ValueError, "one or two"),
    (dict(feature=["a", "a"]), ValueError, "must differ"),
    (dict(feature=1), TypeError, "names"),
    (dict(feature="a", method="foo"), ValueError, "method must be one of"),
    (dict(feature="a", grid_size=1), ValueError, "grid_size must be at least 2"),
    (dict(feature="a", grid_size="5"), ValueError, "grid_size must be a number >= 2"),
    (dict(feature="a", grid_size=np.nan), ValueError, "grid_size must be a number >= 2"),
    (dict(feature="a", grid_size=[3, 4]), ValueError, "grid_size must have length <= 1"),
    (dict(feature="c", method="ale", grid_points=["u", "v"]), ValueError, "grid_points cannot be used"),
    (dict(feature="c", method="pdp", grid_points=["u", "zz"]), ValueError, "not levels"),
    (dict(feature="a", center_at=5.0, method="pdp"), ValueError, "outside the range"),
    (dict(feature="a", center_at="x", method="pdp"), ValueError, "center_at must be a finite number"),
    (dict(feature="c", center_at=0.5, method="pdp"), ValueError, "center_at needs a numerical feature"),
    (dict(feature=["a", "b"], center_at=0.5, method="pdp"), ValueError, "one feature only"),
    (dict(feature=["a", "b"], method="ice"), ValueError, "ICE is not implemented for two features"),
    (dict(feature=["a", "b"], method="pdp", grid_points=[0.1, 0.2]), ValueError, "pair"),
    (dict(feature="a", method="ale", grid_points=[0.5]), ValueError, "two distinct"),
    (dict(feature="a", method="pdp", grid_points=["x"]), ValueError, "finite numbers"),
    (dict(feature="a", method="pdp", grid_points=[[0.1, 0.2], [0.3]]), ValueError, "flat sequence"),
    (dict(feature="a", method="ale", grid_points=[5.0, 6.0]), ValueError, "cover no data row"),
    (dict(feature=["a", "b"], method="ale", grid_points=[[5.0, 6.0], None]), ValueError, "cover no data row"),
])
def test_bad_arguments_raise(lin_pred, kwargs, err, match):
    with pytest.raises(err, match=match):
        FeatureEffect(lin_pred, **kwargs)


_CLASHES = [(name, method, 1) for method in ("ale", "pdp", "ice", "pdp+ice") for name in (".value", ".type", ".class")] + \
    [(".id", method, 1) for method in ("ice", "pdp+ice")] + \
    [(name, "ale", 2) for name in (".type", ".ale", ".right", ".left", ".bottom", ".top", ".class")] + \
    [(name, "pdp", 2) for name in (".value", ".type", ".class")]


@pytest.mark.parametrize("name, method, n", _CLASHES)
def test_feature_named_like_a_result_column_is_refused(name, method, n):
    X = pd.DataFrame({name: np.linspace(0, 1, 10), "b": np.arange(10.0) % 3})
    p = Predictor(predict_function=lambda d: d[name].to_numpy() * d["b"].to_numpy(), data=X)
    with pytest.raises(ValueError, match=rf"feature '\{name}' has the name of a column of the results of method"):
        FeatureEffect(p, name if n == 1 else [name, "b"], method=method)
    assert len(FeatureEffect(p, "b", method="pdp", grid_size=4).results) == 4      # other features are fine
    fe = FeatureEffect(p, "b", method=method)
    with pytest.raises(ValueError, match="name of a column of the results"):   # set_feature checks too
        fe.set_feature(name if n == 1 else [name, "b"])
    assert fe.feature_name == ["b"]


@pytest.mark.parametrize("name, method, n", [(".id", "ale", 1), (".id", "pdp", 1), (".id", "ale", 2), (".value", "ale", 2),
                                             (".id", "pdp", 2), (".ale", "pdp", 2), (".ale", "ale", 1)])
def test_feature_named_like_another_method_s_column_is_an_ordinary_feature(name, method, n):
    """Only the names of the method's own result columns clash: the effect equals that of the same
    feature under another name."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({name: rng.normal(size=40), "b": rng.normal(size=40)})
    p = Predictor(predict_function=lambda d: d.iloc[:, 0].to_numpy() * d["b"].to_numpy() + d.iloc[:, 0].to_numpy(), data=X)
    q = Predictor(predict_function=lambda d: d.iloc[:, 0].to_numpy() * d["b"].to_numpy() + d.iloc[:, 0].to_numpy(),
                  data=X.rename(columns={name: "a"}))
    got = FeatureEffect(p, name if n == 1 else [name, "b"], method=method, grid_size=4).results
    want = FeatureEffect(q, "a" if n == 1 else ["a", "b"], method=method, grid_size=4).results
    pd.testing.assert_frame_equal(got, want.rename(columns={"a": name}))


def test_fractional_grid_size_is_rounded_up_as_r_seq(lin_pred):
    """iml: seq(length.out = 5.5) has 6 points; ALE's quantiles seq(0, 1, length.out = 6.5) 7."""
    assert len(FeatureEffect(lin_pred, "a", method="pdp", grid_size=5.5).results) == 6
    fe = FeatureEffect(lin_pred, "a", method="ale", grid_size=5.5)
    assert fe.grid_size == {"a": 5.5} and len(fe.results) == 7
    pd.testing.assert_frame_equal(FeatureEffect(lin_pred, "a", method="pdp", grid_size=5.5).results,
                                  FeatureEffect(lin_pred, "a", method="pdp", grid_size=6).results)


def test_set_feature_from_a_pair_of_grid_sizes_takes_the_first(lin_pred):
    fe = FeatureEffect(lin_pred, ["a", "b"], method="pdp", grid_size=[3, 5])
    fe.set_feature("b")
    assert fe.grid_size == {"b": 3}
    pd.testing.assert_frame_equal(fe.results, FeatureEffect(lin_pred, "b", method="pdp", grid_size=3).results)
    fe.set_feature(["b", "a"])
    assert fe.grid_size == {"b": 3, "a": 5}


def test_predict_takes_nullable_values_with_missing_ones(lin_pred):
    fe = FeatureEffect(lin_pred, "a", method="pdp", grid_size=4)
    want = fe.predict(np.array([0.2, np.nan, 0.7]))
    assert np.isnan(want[1]) and np.isfinite(want[[0, 2]]).all()
    for v in (pd.Series([0.2, None, 0.7], dtype="Float64"), pd.DataFrame({"a": pd.array([0.2, pd.NA, 0.7], dtype="Float64")}),
              pd.array([0.2, pd.NA, 0.7], dtype="Float64")):
        np.testing.assert_array_equal(fe.predict(v), want)
    assert np.isnan(fe.predict(pd.NA)).all() and np.isnan(fe.predict(np.nan)).all()
    with pytest.raises(TypeError, match="must be numbers"):
        fe.predict(pd.Series(["x", "y"]))


def test_bad_data_raise():
    X = pd.DataFrame({"a": [1.0, 1, 1, 1], "b": [1.0, np.nan, 2, 3], "c": pd.Categorical(list("xxxx")),
                      "d": pd.Categorical(list("xyxy"))})
    p = Predictor(predict_function=lambda d: np.zeros(len(d)), data=X)
    with pytest.raises(ValueError, match="only one unique value"):
        FeatureEffect(p, "a", method="pdp")
    with pytest.raises(ValueError, match="only one unique value"):
        FeatureEffect(p, ["d", "c"], method="pdp")
    with pytest.raises(ValueError, match="missing value"):
        FeatureEffect(p, "b", method="ale")
    p2 = Predictor(predict_function=lambda d: np.zeros(len(d)), data=X.assign(c=pd.Categorical(list("xyyx"))))
    with pytest.raises(ValueError, match="two categorical features"):
        FeatureEffect(p2, ["d", "c"], method="ale")
    with pytest.raises(ValueError, match="not features"):
        FeatureEffects(p, features=["zz"])
    with pytest.raises(ValueError, match="single number"):
        FeatureEffects(p, features=["d"], grid_size=[3, 4])


def test_pdp_and_ice_grid_the_finite_values_of_a_feature_with_missing_values():
    """iml #80: a PDP/ICE replaces the feature in every row, so rows with a missing value in it
    stay in the averages (iml's get.grid drops non-finite values); ALE still refuses them."""
    X = pd.DataFrame({"a": [0.0, np.nan, 1.0, 3.0, np.inf, 2.0], "b": [1.0, 2, 3, 4, 5, 6]})
    seen = []

    def f(d):
        seen.append(d["a"].to_numpy().copy())
        return d["a"].to_numpy() * 2 + d["b"].to_numpy()

    before = X.copy()
    p = Predictor(predict_function=f, data=X)
    seen.clear()
    fe = FeatureEffect(p, "a", method="pdp+ice", grid_size=4)
    assert np.isfinite(np.concatenate(seen)).all()   # the model never sees the missing values
    res = fe.results
    pdp = res[res[".type"] == "pdp"]
    np.testing.assert_array_equal(pdp["a"], [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(pdp[".value"], 2 * pdp["a"] + X["b"].mean())   # all six rows averaged
    ice = res[res[".type"] == "ice"]
    assert sorted(ice[".id"].unique()) == list(range(1, 7))
    pd.testing.assert_frame_equal(X, before)
    centred = FeatureEffect(p, "a", method="ice", grid_size=4, center_at=3.0).results
    np.testing.assert_allclose(centred.loc[centred["a"] == 3.0, ".value"], 0.0)
    with pytest.raises(ValueError, match="outside the range"):
        FeatureEffect(p, "a", method="pdp", center_at=5.0)   # beyond the finite values
    both = FeatureEffect(p, ["a", "b"], method="pdp", grid_size=[4, 3]).results
    assert both["a"].notna().all() and len(both) == 12
    with pytest.raises(ValueError, match="missing value"):
        FeatureEffect(p, "a", method="ale")
    # nullable columns with pd.NA: the same as float64 with NaN (were pandas' 'cannot convert' error)
    k = np.array([0.0, np.nan, 1, 3, np.nan, 2])
    plain = Predictor(predict_function=lambda d: d["b"].to_numpy() * 2.0, data=X.assign(a=k))
    for dtype in ("Int64", "Float64"):
        nullable = Predictor(predict_function=lambda d: d["b"].to_numpy() * 2.0,
                             data=X.assign(a=pd.array([0, None, 1, 3, None, 2], dtype=dtype)))
        for method in ("pdp", "pdp+ice"):
            want = FeatureEffect(plain, "a", method=method, grid_size=4).results
            got = FeatureEffect(nullable, "a", method=method, grid_size=4).results
            np.testing.assert_array_equal(got["a"].to_numpy(float), want["a"].to_numpy(float))
            np.testing.assert_array_equal(got[".value"], want[".value"])
        # the rug and the data points read pd.NA as missing (were pandas' 'cannot convert' error)
        assert isinstance(FeatureEffect(nullable, "a", method="pdp+ice", grid_size=4).plot(), Figure)
        assert isinstance(FeatureEffect(nullable, ["a", "b"], method="pdp", grid_size=3).plot(show_data=True), Figure)
    empty = Predictor(predict_function=f, data=X.assign(c=[np.nan, np.inf, -np.inf, np.nan, np.nan, np.inf]))
    with pytest.raises(ValueError, match="does not contain any finite values"):
        FeatureEffect(empty, "c", method="pdp")


def test_constructor_does_not_mutate_data(lin):
    X, f, _ = lin
    before = X.copy()
    p = Predictor(predict_function=f, data=X)
    FeatureEffect(p, ["a", "c"], method="ale", grid_size=4)
    pd.testing.assert_frame_equal(X, before)


# ---------------------------------------------------------------------------- plots
def _lines(ax):
    return [l for l in ax.get_lines()]


def test_plot_numeric_variants(lin_pred, lin):
    fe = FeatureEffect(lin_pred, "a", method="pdp+ice", grid_size=4)
    fig = fe.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    segs = [c for c in ax.collections if isinstance(c, LineCollection)]
    # 80 ICE lines and the PDP rows as one more (iml: geom_line(group = .id) over all rows)
    ice = [c for c in segs if len(c.get_segments()) == 81 and len(c.get_segments()[0]) == 4]
    assert len(ice) == 1 and ice[0].get_alpha() == 0.2
    gold = [l for l in _lines(ax) if l.get_color() == "gold"]
    assert len(gold) == 1 and len(gold[0].get_xdata()) == 4
    assert ax.get_ylabel() == r"$\hat{y}$" and ax.get_xlabel() == "a"
    rug = [c for c in segs if c is not ice[0]]
    assert len(rug) == 1 and len(rug[0].get_segments()) == 80     # rug of the 80 data values
    ale = FeatureEffect(lin_pred, "a", method="ale", grid_size=4).plot(rug=False, ylim=(-5, 5))
    assert ale.axes[0].get_ylabel() == "ALE" and ale.axes[0].get_ylim() == (-5.5, 5.5)   # ggplot's 5% expansion
    assert len(_lines(ale.axes[0])) == 1 and not ale.axes[0].collections
    cen = FeatureEffect(lin_pred, "a", method="pdp", grid_size=4, center_at=0.5).plot()
    assert cen.axes[0].get_ylabel() == "Prediction centered at x = 0.5"


def test_plot_labels_use_target_name(lin):
    X, f, _ = lin
    p = Predictor(predict_function=f, data=X.assign(y=f(X)), y="y")
    assert FeatureEffect(p, "a", method="ale", grid_size=3).plot().axes[0].get_ylabel() == "ALE of y"
    assert FeatureEffect(p, "a", method="pdp", grid_size=3).plot().axes[0].get_ylabel() == "Predicted y"


def test_plot_categorical_variants(lin_pred):
    bars = FeatureEffect(lin_pred, "c", method="ale").plot()
    ax = bars.axes[0]
    assert len(ax.patches) == 3 and [t.get_text() for t in ax.get_xticklabels()] == \
        [str(v) for v in FeatureEffect(lin_pred, "c", method="ale").results["c"]]
    box = FeatureEffect(lin_pred, "c", method="pdp+ice").plot()
    # boxplot artists: 3 boxes, and per box 2 whiskers, a median and the outliers (no caps, as ggplot)
    assert len(box.axes[0].patches) == 3 and len(box.axes[0].get_lines()) == 3 * 4


def test_plot_two_feature_variants(lin_pred, inter):
    ale = FeatureEffect(lin_pred, ["a", "b"], method="ale", grid_size=3).plot(show_data=True)
    ax = ale.axes[0]
    pcs = [c for c in ax.collections if isinstance(c, PatchCollection)]
    assert len(pcs) == 1 and len(pcs[0].get_paths()) == 16
    assert len(ale.axes) == 2 and ale.axes[1].get_ylabel() == "ALE"      # colour bar
    numcat = FeatureEffect(lin_pred, ["a", "c"], method="ale", grid_size=3).plot()
    assert [t.get_text() for t in numcat.axes[0].get_xticklabels()] == \
        list(FeatureEffect(lin_pred, ["a", "c"], method="ale", grid_size=3).results["c"].cat.categories)
    tiles = FeatureEffect(lin_pred, ["a", "i"], method="pdp", grid_size=3).plot()
    assert len([c for c in tiles.axes[0].collections if isinstance(c, PatchCollection)][0].get_paths()) == 9
    lines = FeatureEffect(lin_pred, ["a", "c"], method="pdp", grid_size=3).plot()
    assert len(lines.axes[0].get_lines()) == 3 and lines.axes[0].get_legend() is not None
    X, _, f2 = inter
    multi = FeatureEffect(Predictor(predict_function=f2, data=X), "a", method="pdp", grid_size=3).plot()
    assert [a.get_title() for a in multi.axes] == ["yes", "no"]


def test_feature_effects_plot_grid(lin_pred):
    fes = FeatureEffects(lin_pred, method="ale", grid_size=4)
    fig = fes.plot()
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    assert fig._suptitle.get_text() == "ALE" and all(a.get_ylabel() == "" for a in fig.axes)
    lims = {a.get_ylim() for a in fig.axes}
    assert len(lims) == 1
    fig2 = fes.plot(features=["a", "c"], ncols=1, fixed_y=False)
    assert len(fig2.axes) == 2
    with pytest.raises(ValueError, match="were not computed"):
        fes.plot(features=["zz"])
    # iml: `length(features) > 0` selects, so an empty selection plots every feature (was
    # numpy's "need at least one array to concatenate")
    assert [a.get_xlabel() for a in fes.plot(features=[]).axes] == [a.get_xlabel() for a in fig.axes]


def test_docstring_examples_run():
    import doctest

    import pyiml.feature_effect as module

    result = doctest.testmod(module)
    assert result.attempted >= 8 and result.failed == 0


@pytest.mark.parametrize("batch_size", [7, 40, 120, 10 ** 6])
def test_reused_design_buffer_gives_the_same_results(batch_size):
    """All-float data: data columns that stay the same between batches are not rewritten; batches
    spanning grid rows, blocks and features must still see the right values in every column."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(40, 4)), columns=["a", "b", "c", "d"])
    f = lambda d: d["a"] * d["b"] + np.sin(d["c"]) * d["d"] + d["a"] ** 2  # noqa: E731
    ref = Predictor(predict_function=f, data=X, batch_size=10 ** 6)
    p = Predictor(predict_function=f, data=X, batch_size=batch_size)
    for method in ("pdp", "pdp+ice", "ale"):
        got = FeatureEffects(p, method=method, grid_size=4)
        want = FeatureEffects(ref, method=method, grid_size=4)
        for feat in X.columns:
            pd.testing.assert_frame_equal(got.results[feat], want.results[feat], check_exact=False, rtol=1e-13)
    two = FeatureEffect(p, ["a", "c"], method="pdp", grid_size=5).results
    # the oracle: every data row at every grid pair, averaged
    for _, row in two.iterrows():
        d = X.assign(a=row["a"], c=row["c"])
        assert row[".value"] == pytest.approx(float(np.mean(f(d))), rel=1e-12)


def _prod_ab(d):
    return d["a"].to_numpy() * d["b"].to_numpy()


def test_ice_results_are_made_when_first_read_and_equal_an_eager_table():
    """ICE tables (n·G rows) are made on first access of ``results``: the same table whether
    read at once, after other calls, or after pickling (which makes it first)."""
    import pickle

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.uniform(size=60), "b": rng.normal(size=60)})
    p = Predictor(predict_function=_prod_ab, data=X)
    fe = FeatureEffect(p, "a", method="pdp+ice", grid_size=7)
    assert fe.__dict__["_build_results"] is not None        # not made yet
    first = fe.results
    assert fe.__dict__["_build_results"] is None and fe.results is first
    again = FeatureEffect(p, "a", method="pdp+ice", grid_size=7)
    clone = pickle.loads(pickle.dumps(again))
    pd.testing.assert_frame_equal(clone.results, first)
    pd.testing.assert_frame_equal(again.results, first)
    assert len(first) == 7 + 60 * 7
    fe.center(0.5)                                           # a new run replaces the table
    assert fe.results[".value"].to_numpy()[fe.results["a"].to_numpy() == 0.5].max() == 0.0
    fes = FeatureEffects(p, method="ice", grid_size=5)
    for f in ("a", "b"):
        exp = fes.effects[f].results.rename(columns={f: ".borders"}).assign(**{".feature": f})
        pd.testing.assert_frame_equal(fes.results[f], exp)


def _pdp_reference(f, X, feature, grid_values, perms, anchor=None):
    """iml's PDP value per distinct grid value: data.table's ``mean`` adds the ICE rows of a
    value one after the other in double, in the order of iml's table: uncentred, grid row by grid
    row, each in its MarginalGenerator permutation; centred (``merge`` sorts by ``.id.dist``),
    data row by data row, a value's grid rows within."""
    n = len(X)
    ice = []
    for v in grid_values:
        d = X.copy()
        d[feature] = v
        ice.append(np.asarray(f(d), dtype=float))
    ice = np.array(ice)                                    # (G, n)
    if anchor is not None:
        d = X.copy()
        d[feature] = anchor
        ice = ice - np.asarray(f(d), dtype=float)[None, :]
    out = {}
    for v in dict.fromkeys(grid_values):
        rows = [g for g, w in enumerate(grid_values) if w == v]
        if anchor is None:
            seq = np.concatenate([ice[g][perms[g]] for g in rows])
        else:
            seq = ice[rows].T.ravel()
        out[v] = np.cumsum(seq)[-1] / seq.size
    return out


@pytest.mark.parametrize("feature,method,center", [
    ("a", "pdp", None), ("a", "pdp+ice", None), ("k", "pdp", None), ("k", "pdp+ice", None),
    ("k", "pdp", 2.0), ("k", "pdp+ice", 2.0), ("a", "pdp", 0.5), ("a", "pdp+ice", 0.5)])
def test_pdp_adds_in_imls_order_under_rrandom(feature, method, center):
    """Under RRandom the PDP is iml's to the bit: the same additions in the same order (the
    integer feature's rounded grid repeats values, so some PDP values add several grid rows)."""
    rng = np.random.default_rng(8)
    n, G = 300, 9
    X = pd.DataFrame({"a": rng.normal(size=n), "k": rng.integers(0, 5, size=n), "b": rng.normal(size=n)})
    f = lambda d: 1e3 * np.sin(3 * d["a"].to_numpy() * d["b"].to_numpy() + d["k"].to_numpy()) + 0.37
    fe = FeatureEffect(Predictor(predict_function=f, data=X), feature, method=method, grid_size=G,
                       center_at=center, random_state=RRandom(5))
    pdp = fe.results[fe.results[".type"] == "pdp"] if ".type" in fe.results else fe.results
    grid = grid_1d(X[feature].to_numpy(), G, "numerical" if feature == "a" else "integer", "equidist")
    if center is not None:
        grid = np.sort(np.append(grid, center))
    ref = _pdp_reference(f, X, feature, grid.tolist(), RRandom(5).permutations(n, len(grid)), center)
    if feature == "k":
        assert len(pdp) < len(grid)       # repeated grid values: one PDP row each
    assert dict(zip(pdp[feature].tolist(), pdp[".value"].tolist())) == ref


def test_pdp_on_a_single_grid_point():
    """iml fails here (its predict function is approxfun of one point); pyiml returns the PDP
    and predicts it at that point (everywhere with extrapolate=True, as approxfun's rule = 2)."""
    X = pd.DataFrame({"a": np.linspace(-1, 1, 30), "b": np.linspace(0, 1, 30) ** 2})
    f = lambda d: (2 * d["a"] + d["b"]).to_numpy()
    fe = FeatureEffect(Predictor(predict_function=f, data=X), "a", method="pdp+ice", grid_points=[0.0])
    pdp = fe.results[fe.results[".type"] == "pdp"]
    assert pdp["a"].tolist() == [0.0] and len(fe.results) == 1 + len(X)
    assert pdp[".value"].iloc[0] == pytest.approx(X["b"].mean())
    new = pd.DataFrame({"a": [0.0, 0.5, -2.0]})
    got = fe.predict(new)
    assert got[0] == pytest.approx(X["b"].mean()) and np.isnan(got[1:]).all()
    np.testing.assert_allclose(fe.predict(new, extrapolate=True), X["b"].mean())


@pytest.mark.parametrize("features", [["a"], ["a", "b"]])
def test_pdp_does_not_depend_on_batch_size(features):
    """A plain PDP adds each grid row's n predictions in one sum, also where a batch ends inside
    the grid row (it was added in pieces per batch: last-bit differences, so n_jobs and
    progress, which batch differently, changed results too)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(40, 3)), columns=["a", "b", "c"])

    def f(d):
        v = 10 * np.sin(np.pi * d["a"].to_numpy() * d["b"].to_numpy()) + 20 * (d["c"].to_numpy() - .5) ** 2
        return pd.DataFrame({"u": v, "w": np.exp(-v / 10)})
    for out in (lambda d: f(d)["u"].to_numpy(), f):
        res = [FeatureEffect(Predictor(predict_function=out, data=X, batch_size=bs), features, method="pdp",
                             grid_size=7, random_state=np.random.default_rng(1)).results
               for bs in (1, 7, 39, 41, 10 ** 6)]
        key = features + [".class"] if ".class" in res[0] else features
        want = res[0].sort_values(key).reset_index(drop=True)   # several outputs: row order is iml's, per batch
        for r in res[1:]:
            pd.testing.assert_frame_equal(r.sort_values(key).reset_index(drop=True), want, check_exact=True)


def test_feature_effects_plot_takes_r_argument_order(lin):
    """R: plot(effs, features = NULL, nrows = NULL, ncols = NULL, fixed_y = TRUE)."""
    X, f, _ = lin
    fes = FeatureEffects(Predictor(predict_function=f, data=X), method="pdp", grid_size=3)
    fig = fes.plot(None, 1)          # nrows = 1: every panel in one row
    rows = {round(ax.get_position().y0, 6) for ax in fig.axes if ax.get_visible() and ax.has_data()}
    assert len(rows) == 1


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_feature_reaches_the_model_as_integers_at_whole_grid_points(dtype):
    """The designs of PDP, ICE and ALE (1-D and 2-D) keep an integer feature's dtype where every
    grid point is a whole number: a model that checks its column types (iml issue #138) or a
    pipeline selecting columns by dtype gets what it was trained on; a grid point 4.5 widens
    the column to float64, as numpy would."""
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"k": rng.integers(4, 72, 150).astype(dtype), "a": rng.normal(size=150),
                      "g": pd.Categorical(rng.choice(["u", "v"], 150))})
    seen = []

    def f(nd):
        seen.append(str(nd["k"].dtype))
        return nd["k"].to_numpy(dtype=float) / 10 + nd["a"] + (nd["g"] == "u")

    p = Predictor(data=d, predict_function=f)
    cases = [("k", m) for m in ("ale", "pdp", "ice", "pdp+ice")]
    cases += [(fs, m) for fs in (["k", "a"], ["a", "k"], ["k", "g"]) for m in ("ale", "pdp")]
    for features, method in cases:
        seen.clear()
        FeatureEffect(p, features, method=method)
        assert set(seen) == {dtype}, (features, method, seen)
    seen.clear()
    FeatureEffects(p, method="pdp", grid_size=7)
    assert set(seen) == {dtype}, seen
    assert FeatureEffect(p, "k", method="pdp").results["k"].dtype == "float64"   # the results' grid, as iml's
    for widened in (lambda: FeatureEffect(p, "k", method="pdp", grid_points=[4.5, 10]),
                    lambda: FeatureEffect(p, "k", method="pdp", center_at=10.5)):
        seen.clear()
        widened()
        assert set(seen) == {"float64"}, seen
    big = d.assign(k=d["k"].astype("int64") * 2 ** 55)           # whole floats up to the dtype's end
    seen.clear()
    FeatureEffect(Predictor(data=big, predict_function=f), "k", method="pdp")
    assert set(seen) == {"int64"}


@pytest.mark.skipif(getattr(getattr(np, "dtypes", None), "StringDType", None) is None,
                    reason="numpy < 2 has no StringDType (scripts/test-modern runs this)")
def test_grid_points_in_a_numpy_stringdtype_array():
    """grid_points are copied (R copies its arguments) without copy.deepcopy, which crashes on a
    StringDType array in numpy 2.2.4 (numpy issue #28609)."""
    d = pd.DataFrame({"g": pd.Categorical(["a", "b", "c"] * 4), "x": np.arange(12.0)})
    p = Predictor(data=d, predict_function=lambda nd: (nd["g"] == "b") * 2.0 + nd["x"])
    pts = np.array(["b", "c"], dtype=np.dtypes.StringDType())
    fe = FeatureEffect(p, "g", method="pdp", grid_points=pts)
    assert fe.results["g"].astype(str).tolist() == ["b", "c"] and fe.results[".value"].tolist() == [7.5, 5.5]
    pts[0] = "a"                                          # the caller's array changes later: not ours
    assert fe.results["g"].astype(str).tolist() == ["b", "c"]


def test_feature_effects_names_the_features_that_leave_a_bad_one_out():
    X = pd.DataFrame({"a": [1.0, 2, 3, 4], "k": 1.0, "b": [0.0, 1, 0, 1]})
    p = Predictor(predict_function=lambda d: d["a"].to_numpy(), data=X)
    with pytest.raises(ValueError, match=r"only one unique value.*leave 'k' out with features=\['a', 'b'\]"):
        FeatureEffects(p, method="pdp")
    assert set(FeatureEffects(p, features=["a", "b"], method="pdp").results) == {"a", "b"}


def test_feature_effects_plot_takes_r_abbreviations():
    """iml's example FeatureEffects$new(mod)$plot(ncol = 2): R matches ncol to ncols."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(30, 4)), columns=list("abcd"))
    e = FeatureEffects(Predictor(predict_function=lambda d: d["a"] * d["b"], data=X), method="pdp", grid_size=4)
    grid = lambda fig: {(round(ax.get_position().x0, 3), round(ax.get_position().y0, 3)) for ax in fig.axes}
    assert grid(e.plot(ncol=1)) == grid(e.plot(ncols=1))
    assert len({x for x, _ in grid(e.plot(ncol=1))}) == 1
    assert len(e.plot(feat=["a"]).axes) == 1
    with pytest.raises(TypeError, match="'ncol' and 'ncols'"):
        e.plot(ncol=1, ncols=2)
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['zz'\]"):
        e.plot(zz=1)


def test_float32_feature_keeps_its_dtype_where_the_grid_points_are_float32_values():
    """The ALE grid (quantiles: data values) keeps a float32 feature's dtype in the design; a
    PDP grid point that float32 cannot hold widens the column to float64, so the model is
    evaluated exactly at the reported grid points."""
    rng = np.random.default_rng(2)
    d = pd.DataFrame({"f": rng.normal(size=80).astype("float32"), "a": rng.normal(size=80)})
    seen = []

    def model(nd):
        seen.append((str(nd["f"].dtype), nd["f"].to_numpy().copy()))
        return nd["f"].to_numpy(dtype=float) * 2 + nd["a"].to_numpy()

    p = Predictor(predict_function=model, data=d)
    for features in ("f", ["f", "a"]):
        seen.clear()
        FeatureEffect(p, features, method="ale", grid_size=10)
        assert {s for s, _ in seen} == {"float32"}
    seen.clear()
    res = FeatureEffect(p, "f", method="pdp", grid_size=7).results
    assert {s for s, _ in seen} == {"float64"}    # the equidistant points are no float32 values
    np.testing.assert_array_equal(np.unique(seen[0][1]), np.sort(res["f"].to_numpy()))
    seen.clear()
    FeatureEffect(p, "f", method="pdp", grid_points=[0.5, 1.0, 1.25])
    assert {s for s, _ in seen} == {"float32"}    # exact float32 values


def test_level_distances_in_row_blocks_equal_the_whole_array():
    """order_levels' distances are reduced in blocks of rows (the whole K x K x m difference array
    took 1.6 GB at 1000 levels); the values do not depend on the block size, and double_centre's
    vectorised sums equal R's sequential loops."""
    from pyiml._algorithms import mds

    rng = np.random.default_rng(6)
    n, K = 900, 60
    X = pd.DataFrame({"c": pd.Categorical(rng.integers(0, K, n)), "x": rng.normal(size=n),
                      "g": pd.Categorical(rng.integers(0, 7, n))})
    codes = X["c"].cat.codes.to_numpy().astype(np.int64)
    whole = mds.level_distances(X, codes, K, "c")
    blocks = mds._row_blocks
    try:
        mds._row_blocks = lambda K_, per_row, budget=1: blocks(K_, per_row, budget=1)   # one row per block
        np.testing.assert_array_equal(mds.level_distances(X, codes, K, "c"), whole)
    finally:
        mds._row_blocks = blocks
    a = rng.normal(size=(7, 7))
    want = a.copy()
    for i in range(7):
        s = 0.0
        for j in range(7):
            s += want[i, j]
        want[i] -= s / 7
    for j in range(7):
        s = 0.0
        for i in range(7):
            s += want[i, j]
        want[:, j] -= s / 7
    np.testing.assert_array_equal(double_centre(a), want)


def test_ale_whose_accumulated_effects_overflow_is_a_clear_error():
    """Finite predictions whose accumulated differences exceed the double range gave -inf/NaN
    and numpy's RuntimeWarning (iml stops in approx); now a ValueError that says so."""
    import warnings

    d = pd.DataFrame({"a": [1e300, -1.5e308, 1.5e308, 0.0, 2e300], "b": [1.0, 2.0, 3.0, 4.0, 5.0]})
    p = Predictor(predict_function=lambda df: df["a"].to_numpy() + 2 * df["b"].to_numpy(), data=d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"ALE of 'a' overflows: .*rescale the feature"):
            FeatureEffect(p, "a", method="ale", grid_size=3)
        # the long-double sums beyond the double range are infinite without numpy's cast warning
        d3 = pd.DataFrame({"x": [-1.5e308, -1e308, 0, 1e308, 1.5e308, 5e307], "z": np.arange(1.0, 7)})
        p3 = Predictor(data=d3, predict_function=lambda nd: nd["x"].to_numpy())
        for g in (3, 5):
            with pytest.raises(ValueError, match=r"ALE of 'x' overflows"):
                FeatureEffect(p3, "x", method="ale", grid_size=g)
    inf = Predictor(predict_function=lambda df: np.where(df["a"] > 1e307, np.inf, df["a"].to_numpy()), data=d)
    with np.errstate(invalid="ignore"):      # an infinite prediction is the model's: not refused
        FeatureEffect(inf, "a", method="ale", grid_size=3)


@pytest.mark.parametrize("batch_size", [1000, 100_000])
def test_ale_intervals_from_the_grid_buckets_give_the_same_results(monkeypatch, batch_size):
    """With iml's grid of 4096+ finite values, ALE takes every row's interval from the buckets that
    found the grid (ale_grid) and skips the inside-the-grid filter; the results equal those of the
    general path (intervals looked up, rows filtered) to the bit: 1-D numerical and integer, 2-D
    numerical x integer and numerical x categorical, one and two outputs, FeatureEffects too."""
    import pyiml.feature_effect as fe_module
    from pyiml._algorithms import grids

    rng = np.random.default_rng(11)
    n = 20_000   # (buckets of about 64 values: 16 grid points' buckets are few enough for ale_grid)
    X = pd.DataFrame({"a": rng.uniform(size=n), "b": rng.normal(size=n),
                      "i": rng.integers(0, 10 ** 6, n).astype("int64"),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n))})

    def f(d):
        s = np.sin(3 * d["a"].to_numpy()) * d["b"].to_numpy() + 1e-6 * d["i"].to_numpy() \
            + (d["c"].to_numpy() == "v") * d["a"].to_numpy()
        return pd.DataFrame({"p": s, "q": np.cos(s)})

    found = []

    def spy(*args, **kwargs):
        out = grids.ale_grid(*args, **kwargs)
        found.append(out[1] is not None)
        return out

    def run():
        out = []
        for k in (1, 2):
            pred = Predictor(predict_function=lambda d: f(d).iloc[:, :k], data=X, batch_size=batch_size)
            for feat in ("a", "b", "i", ["a", "i"], ["c", "b"]):
                out.append(FeatureEffect(pred, feat, method="ale", grid_size=15).results)
            out.extend(FeatureEffects(pred, ["a", "i"], method="ale", grid_size=7).results.values())
        return out

    monkeypatch.setattr(fe_module, "ale_grid", spy)
    fast = run()
    assert all(found) and len(found) == 16
    monkeypatch.setattr(fe_module, "ale_grid", lambda *a, **kw: (grids.ale_grid(*a, **kw)[0], None))
    general = run()
    for a, b in zip(fast, general):
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_rows_block_takes_a_range_of_consecutive_rows():
    from pyiml._pdp import rows_block

    pools = {"a": np.array([10.0, 20.0, 30.0])}
    idx = {"a": np.array([2, 0, 1, 1, 0, 2])}
    by_range, by_array = rows_block(range(4, 10), pools, idx), rows_block(np.arange(4, 10), pools, idx)
    assert by_range.length == by_array.length == 6
    for s, e in ((0, 6), (1, 4), (5, 6)):
        (r1, i1), (r2, i2) = by_range.make(s, e), by_array.make(s, e)
        np.testing.assert_array_equal(r1, r2)
        assert r1.dtype == np.int64 and i1.keys() == i2.keys()
        np.testing.assert_array_equal(i1["a"], i2["a"])
        assert by_range.signature(s, e) == by_array.signature(s, e) == ("rows", 4 + s, 4 + e)
        enc = {"a": np.zeros(12), "b": np.arange(12.0)}
        outs = [{c: np.empty(e - s) for c in enc} for _ in range(2)]
        by_range.fill(s, e, enc, outs[0])
        by_array.fill(s, e, enc, outs[1])
        for c in enc:
            np.testing.assert_array_equal(outs[0][c], outs[1][c])
        np.testing.assert_array_equal(outs[0]["b"], np.arange(4 + s, 4 + e))
    empty = rows_block(range(3, 3), pools, {"a": np.array([], dtype=np.int64)})
    assert empty.length == 0 and empty.fill is None


def test_data_value_range_is_the_columns_range_with_nan_for_missing_values():
    from pyiml.data import Data

    X = pd.DataFrame({"f": [3.0, -1.5, 2.0], "n": [1.0, np.nan, 4.0], "i": pd.array([2, None, 7], dtype="Int64"),
                      "k": np.array([5, -2, 9], dtype=np.int16), "inf": [1.0, np.inf, -2.0]})
    d = Data(X)
    assert d.value_range("f") == (-1.5, 3.0) and d.value_range("k") == (-2.0, 9.0)
    assert d.value_range("inf") == (-2.0, np.inf)
    assert all(np.isnan(v) for v in d.value_range("n")) and all(np.isnan(v) for v in d.value_range("i"))
    assert d.value_range("f") is d.value_range("f")        # computed once


@pytest.mark.parametrize("center_at", [None, 0.3])
def test_ale_predict_interpolates_a_copy_of_the_results_curve(lin_pred, center_at):
    fe = FeatureEffect(lin_pred, "b", method="ale", grid_size=10, center_at=center_at)
    kind, x, y = fe._curve
    res = fe.results
    assert kind == "numerical"
    np.testing.assert_array_equal(x, res["b"].to_numpy(dtype=float))
    np.testing.assert_array_equal(y, res[".value"].to_numpy())
    assert not np.shares_memory(y, res[".value"].to_numpy()) and not np.shares_memory(x, res["b"].to_numpy())
    np.testing.assert_array_equal(fe.predict(pd.DataFrame({"b": x})), y)
    res.loc[:, ".value"] = 0.0                      # editing results leaves predict as the run made it
    np.testing.assert_array_equal(fe.predict(pd.DataFrame({"b": x})), y)


def test_data_pickled_without_the_range_cache_still_gives_ranges():
    import pickle

    from pyiml.data import Data

    d = Data(pd.DataFrame({"f": [3.0, -1.5, 2.0], "g": [1.0, 2.0, 3.0]}))
    state = d.__dict__.copy()
    state.pop("_ranges")                   # as pickled by a pyiml before the cache
    old = Data.__new__(Data)
    old.__dict__.update(state)
    assert pickle.loads(pickle.dumps(old)).value_range("f") == (-1.5, 3.0)
