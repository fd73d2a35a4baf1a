"""FeatureImp, Shapley and Interaction against CRAN iml run live (marker ``r``).

* one ``RRandom`` through FeatureImp, a PDP, Shapley and Interaction equals the same four calls
  after one ``set.seed`` in R (the session generator advances identically);
* with numpy random sources the results agree with iml's within Monte-Carlo error.
"""
import numpy as np
import pandas as pd
import pytest

from parity import fixtures
from pyiml import FeatureEffect, FeatureImp, Interaction, Predictor, RRandom, Shapley

pytestmark = pytest.mark.r

SEED = 2024


def _setup(r, model="friedman1_small_closed"):
    from r_bridge import iml as riml

    mp = fixtures.model_pair(model)
    data = fixtures.dataset(mp.data)
    p = Predictor(data=data, y=mp.y, **mp.py)
    rp = riml.r_predictor(data=data, y=mp.y, **mp.r)
    return data, p, rp


def _r_chain(r, rp, x_row: pd.DataFrame, pdp_feature: str):
    """The four calls after one set.seed in R, results as pandas frames."""
    from r_bridge import convert

    code = f"""
    set.seed({SEED})
    fi <- iml::FeatureImp$new(pred, loss = "mae", n.repetitions = 3)
    fe <- iml::FeatureEffect$new(pred, feature = "{pdp_feature}", method = "pdp")
    sh <- iml::Shapley$new(pred, x.interest = x, sample.size = 30)
    ia <- iml::Interaction$new(pred, grid.size = 6)
    list(fi = fi$results, fe = fe$results, sh = sh$results, ia = data.frame(ia$results), next_u = runif(1))
    """
    out = r.r_eval(code, pred=rp, x=convert.py2r(x_row))
    names = list(out.names)
    return {k: convert.r2py(out[names.index(k)]) for k in names}


def test_one_rrandom_through_four_methods_equals_one_set_seed(r):
    data, p, rp = _setup(r)
    x_row = data.drop(columns="y").iloc[[3]].reset_index(drop=True)
    res_r = _r_chain(r, rp, x_row, "x2")

    rs = RRandom(SEED)
    fi = FeatureImp(p, "mae", n_repetitions=3, random_state=rs)
    fe = FeatureEffect(p, "x2", method="pdp", random_state=rs)  # draws 20 permutations of the rows
    sh = Shapley(p, x_row, sample_size=30, random_state=rs)
    ia = Interaction(p, grid_size=6, random_state=rs)

    for py, key in ((fi.results, "fi"), (sh.results, "sh"), (ia.results, "ia")):
        rr = res_r[key].reset_index(drop=True)
        assert list(py.columns) == list(rr.columns), key
        for c in py.columns:
            if pd.api.types.is_numeric_dtype(rr[c]):
                np.testing.assert_allclose(py[c].to_numpy(float), rr[c].to_numpy(float), rtol=0, atol=1e-12,
                                           err_msg=key)
            else:
                assert py[c].astype(str).tolist() == rr[c].astype(str).tolist(), key
    np.testing.assert_allclose(fe.results[".value"].to_numpy(float), res_r["fe"][".value"].to_numpy(float),
                               rtol=0, atol=1e-12)
    # and the session generator is where R's is afterwards
    assert rs.uniform(1)[0] == float(np.asarray(res_r["next_u"]).ravel()[0])


def _r_results(r, rp, code, **variables):
    from r_bridge import convert

    conv = {k: convert.py2r(v) for k, v in variables.items()}
    return convert.r2py(r.r_eval(code, pred=rp, **conv))


def test_featureimp_numpy_source_agrees_with_r_within_monte_carlo_error(r):
    data, p, rp = _setup(r, "friedman1_closed")
    rr = _r_results(r, rp, 'set.seed(5); iml::FeatureImp$new(pred, loss = "mse", n.repetitions = 20)$results')
    py = FeatureImp(p, "mse", n_repetitions=20, random_state=12345).results
    a, b = py.set_index("feature"), rr.set_index("feature")
    spread = (b["importance.95"] - b["importance.05"]) / 2  # about 1.6 sd of one repetition
    diff = (a["importance"] - b["importance"]).abs()
    assert (diff <= spread + 1e-9).all(), pd.concat([diff, spread], axis=1)
    assert list(a.index[:5]) == list(b.index[:5])  # the informative features, in the same order


def test_shapley_numpy_source_agrees_with_r_within_monte_carlo_error(r):
    data, p, rp = _setup(r, "friedman1_closed")
    x = data.drop(columns="y").iloc[[0]].reset_index(drop=True)
    M = 500
    rr = _r_results(r, rp, f"set.seed(9); iml::Shapley$new(pred, x.interest = x, sample.size = {M})$results", x=x)
    py = Shapley(p, x, sample_size=M, random_state=777).results
    se = np.sqrt((py["phi.var"] + rr["phi.var"]) / M)
    assert (np.abs(py["phi"] - rr["phi"]) <= 4.5 * se + 1e-12).all()
    assert py["feature.value"].tolist() == rr["feature.value"].tolist()


def test_interaction_numpy_source_agrees_with_r(r):
    data, p, rp = _setup(r)
    n = len(data)
    # grid = all rows: the statistic no longer depends on the draws
    rr = _r_results(r, rp, f"set.seed(1); data.frame(iml::Interaction$new(pred, grid.size = {n})$results)")
    py = Interaction(p, grid_size=n, random_state=99).results
    np.testing.assert_allclose(py[".interaction"], rr[".interaction"], rtol=0, atol=1e-12)
    rr2 = _r_results(r, rp, f'set.seed(1); data.frame(iml::Interaction$new(pred, feature = "x1", grid.size = {n})$results)')
    py2 = Interaction(p, feature="x1", grid_size=n, random_state=99).results
    np.testing.assert_allclose(py2[".interaction"], rr2[".interaction"], rtol=0, atol=1e-12)
    # a random grid of 20 rows: the same statistic within its sampling variation
    rr3 = _r_results(r, rp, "set.seed(1); data.frame(iml::Interaction$new(pred, grid.size = 20)$results)")
    py3 = Interaction(p, grid_size=20, random_state=3).results
    assert np.all(np.abs(py3[".interaction"] - rr3[".interaction"]) < 0.1)
    assert py3[".feature"].tolist() == rr3[".feature"].tolist()


def test_arithmetic_helpers_equal_r_bit_for_bit(r):
    """phi/phi.var (data.table GForce mean/var), colMeans and iml's h.test, on awkward scales."""
    from pyiml._algorithms.rstats import r_colMeans
    from pyiml.interaction import h_statistic
    from pyiml.shapley import _dt_mean, _dt_var

    ro = r.robjects()
    rng = np.random.default_rng(1)
    M, C = 137, 40
    v = rng.normal(size=(M, C)) * 10.0 ** rng.integers(-3, 6, size=(1, C)) + rng.normal(size=(1, C)) * 1e4
    out = r.r_eval(f"""suppressMessages(library(data.table))
        dt <- data.table(g = rep(seq_len({C}), each = {M}), v = v)
        a <- dt[, list(m = mean(v), s = var(v)), by = g]
        list(a$m, a$s, colMeans(matrix(v, nrow = {M})))""", v=ro.FloatVector(v.T.ravel()))
    np.testing.assert_array_equal(np.asarray(out[0]), _dt_mean(v))
    np.testing.assert_array_equal(np.asarray(out[1]), _dt_var(v))
    np.testing.assert_array_equal(np.asarray(out[2]), r_colMeans(v))
    a, b, c = rng.normal(size=(3, 25)) * [[1e3], [1.0], [1e-3]]
    h = r.r_eval("iml:::h.test(a, b, c)", a=ro.FloatVector(a), b=ro.FloatVector(b), c=ro.FloatVector(c))
    assert float(h[0]) == h_statistic(a, b, c)[0]


@pytest.mark.filterwarnings("ignore:R warning")
@pytest.mark.parametrize("loss, shift", [("mape", 0.0), ("msle", 0.0), ("msle", -3.0)])
def test_featureimp_fails_where_iml_fails_on_undefined_losses(r, loss, shift):
    """A loss that is NaN for the model (msle of values below -1) or for some permutation (mape
    with a target of 0: inf / inf) makes iml fail; pyiml raises ValueError there, not NaNs."""
    from r_bridge import RError
    from r_bridge import iml as riml

    d = pd.DataFrame({"a": [0.5, 1.2, -0.3, 2.2, 0.9, -1.4, 0.1, 1.7], "b": [1.0, 0, 2, 1, 0, 3, 1, 2],
                      "y": [0.0, 1.1, 0.4, 2.9, 0.7, -0.5, 1.2, 2.6]})

    def f(nd):
        return nd["a"].to_numpy() + 0.5 * nd["b"].to_numpy() + shift
    with pytest.raises(RError):
        riml.iml("FeatureImp", riml.r_predictor(d, y="y", predict_function=f), seed=1, loss=loss)
    with pytest.raises(ValueError, match=f"loss='{loss}'.*NaN"):
        FeatureImp(Predictor(predict_function=f, data=d, y="y"), loss, random_state=RRandom(1))
    # and where both work, the same numbers
    got = FeatureImp(Predictor(predict_function=f, data=d, y="y"), "mae", random_state=RRandom(1)).results
    want = riml.iml("FeatureImp", riml.r_predictor(d, y="y", predict_function=f), seed=1, loss="mae").results
    np.testing.assert_allclose(got["importance"].to_numpy(), want["importance"].to_numpy(), rtol=1e-13)


@pytest.mark.parametrize("model", ["friedman1_small_closed", "rpart_iris_prob"])
def test_shapley_prints_iml_s_prediction_line(r, model):
    """``print(shapley)``'s line of the predicted and the average prediction; with several
    outputs R's vectorised ``sprintf`` gives one per class, which ``cat`` joins with spaces."""
    from r_bridge import convert, iml as riml

    data, p, rp = _setup(r, model)
    x = data.drop(columns=[c for c in data.columns if c not in p.data.feature_names]).iloc[[0]]
    sh = Shapley(p, x, sample_size=5, random_state=RRandom(SEED))
    ro = riml.iml("Shapley", rp, seed=SEED, x_interest=x, sample_size=5)
    lines = [str(v) for v in convert.r2py(r.r_eval("capture.output(print(s))", s=ro.r_object))]
    r_line = next(v for v in lines if v.startswith("Predicted value"))
    assert r_line in repr(sh).splitlines()


@pytest.mark.parametrize("loss", ["ce", "f1"])
def test_featureimp_label_loss_on_one_probability_column_equals_iml(r, loss):
    """A factor target "0"/"1" against one probability column (class_="1") that is exactly 0 or
    1: R's Metrics compare the probabilities as as.character writes them, so 1 matches the level
    "1" (pyiml compared "1.0": an error of 1 for ce, 0 for f1, whatever the model)."""
    from parity.harness import compare_frames
    from r_bridge import iml as riml

    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    data = X.assign(y=pd.Categorical(np.where(X["a"] + 0.5 * rng.normal(size=60) > 0, "1", "0")))

    def f(nd):
        p1 = (nd["a"].to_numpy() > 0.1).astype(float)
        return pd.DataFrame({"0": 1 - p1, "1": p1})
    fi = FeatureImp(Predictor(predict_function=f, data=data, y="y", class_="1"), loss, n_repetitions=3,
                    random_state=RRandom(1))
    ro = riml.iml("FeatureImp", riml.r_predictor(data, y="y", predict_function=f, class_="1"), seed=1, loss=loss,
                  n_repetitions=3)
    assert fi.original_error == float(np.ravel(ro.field("original.error"))[0]) == {"ce": 0.1, "f1": 1.0}[loss]
    diff, _, problems = compare_frames(fi.results, ro.results)
    assert diff == 0 and not problems


@pytest.mark.parametrize("call", ["set_feature", "center"])
def test_calls_on_a_feature_effects_effect_draw_from_the_session_generator(r, call):
    """A FeatureEffects effect's later center()/set_feature() drew from the effect's own
    L'Ecuyer stream; iml's draws from R's session generator, so every later seeded call
    (here FeatureImp) differed from R's, by up to 1.5 on importances of 3-14."""
    from pyiml import FeatureEffects
    from r_bridge import iml as riml

    rng = np.random.default_rng(1)
    n = 40
    d = pd.DataFrame({"a": np.round(rng.normal(size=n), 3), "k": rng.integers(0, 7, size=n),
                      "g": pd.Categorical(rng.choice(["u", "v", "w"], size=n), categories=["u", "v", "w"]),
                      "t": rng.choice([0.0, 0.5, 1.25, 2.0], size=n)})

    def model(nd):
        g = np.asarray(nd["g"].astype(str))
        a, k, t = (nd[c].to_numpy(dtype=float) for c in ("a", "k", "t"))
        return 1.3 * a - 0.4 * k + a * k + 2.0 * (g == "v") - 0.7 * (g == "w") + 0.9 * t * t

    d["y"] = model(d) + rng.normal(scale=0.5, size=n)
    args = dict(features=["a", "g", "t"], method="pdp+ice", grid_size=4)
    rs = RRandom(9)
    p = Predictor(data=d, y="y", predict_function=model)
    eff = FeatureEffects(p, random_state=rs, **args).effects["t" if call == "set_feature" else "a"]
    eff.set_feature("k") if call == "set_feature" else eff.center(0.1)
    fi = FeatureImp(p, loss="mae", n_repetitions=2, random_state=rs).results

    rp = riml.r_predictor(data=d, y="y", predict_function=model)
    reff = riml.iml("FeatureEffects", rp, seed=9, **args).field("effects")["t" if call == "set_feature" else "a"]
    reff.call("set.feature", feature="k") if call == "set_feature" else reff.call("center", center_at=0.1)
    rfi = riml.iml("FeatureImp", rp, loss="mae", n_repetitions=2).results
    np.testing.assert_array_equal(eff.results[".value"].to_numpy(float), reff.results[".value"].to_numpy(float))
    assert fi["feature"].tolist() == rfi["feature"].tolist()
    np.testing.assert_array_equal(fi["importance"].to_numpy(float), rfi["importance"].to_numpy(float))
