"""LocalModel: linear-model oracles, iml's weights and layout, bad input, plots.

Parity with R's iml is pinned by parity/specs/lm_*.toml (run in tests/test_parity.py); the
R-marked test here checks iml's "Had to choose a smaller k" path against R directly.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from pyiml import LocalModel, Predictor
from pyiml.local_model import recode

COLS = ["a", "b", "c", "d"]
BETA = np.array([3.0, -2.0, 0.5, 0.0])


def linear(df):
    return df[COLS].to_numpy() @ BETA + 1.0


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.uniform(size=(300, 4)), columns=COLS)


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(1)
    n = 250
    return pd.DataFrame({
        "num": rng.normal(size=n),
        "int": rng.integers(0, 6, size=n).astype("int64"),
        "cat": pd.Categorical(rng.choice(["a", "b", "c"], size=n), categories=["a", "b", "c", "unused"]),
        "ord": pd.Categorical(rng.choice(["lo", "mid", "hi"], size=n), categories=["lo", "mid", "hi"], ordered=True),
        "s": rng.choice(["x", "y"], size=n).astype(object),
    })


def mixed_f(df):
    return (df["num"].to_numpy() + 0.4 * df["int"].to_numpy() + 2.0 * (np.asarray(df["cat"].astype(str)) == "b")
            - 1.5 * (np.asarray(df["ord"].astype(str)) == "hi") + 0.7 * (df["s"].to_numpy() == "y"))


def probs3(df):
    # non-linear class boundaries: the argmax labels are not linearly separable, so the
    # multinomial path converges quickly
    z = np.column_stack([np.sin(6 * df["a"]), np.cos(5 * df["b"]), np.sin(7 * df["c"] + 1)]) * 2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return pd.DataFrame(e / e.sum(axis=1, keepdims=True), columns=["k1", "k2", "k3"])


# ---------------------------------------------------------------------------- oracles
def test_linear_model_wide_kernel_recovers_the_coefficients(data):
    p = Predictor(predict_function=linear, data=data)
    lm = LocalModel(p, data.iloc[[3]], dist_fun="euclidean", kernel_width=1e6, k=3)
    res = lm.results
    assert list(res.index) == ["a", "b", "c"] and list(res["feature"]) == ["a", "b", "c"]
    # weights ~ 1 everywhere: a lasso fit of an exact linear model; glmnet stops when 99.9 % of
    # the deviance is explained, so every beta is shrunk towards 0 by a little (the same
    # penalty on the standardised scale)
    assert np.allclose(lm.weights, 1.0, atol=1e-11)
    np.testing.assert_allclose(res["beta"].to_numpy(), BETA[:3], atol=0.1)
    assert np.all(np.abs(res["beta"].to_numpy()) < np.abs(BETA[:3]))
    assert np.sign(res["beta"].to_numpy()).tolist() == [1.0, -1.0, 1.0]
    # the lasso's own arithmetic: effect = beta * x, local prediction = intercept + sum(effects)
    x = data.iloc[3][["a", "b", "c"]].to_numpy()
    np.testing.assert_array_equal(res["x.recoded"].to_numpy(), x)
    np.testing.assert_array_equal(res["effect"].to_numpy(), res["beta"].to_numpy() * x)
    a0 = lm.model.a0[lm.best_fit_index]
    assert lm.predict()["prediction"].iloc[0] == pytest.approx(a0 + res["effect"].sum(), rel=1e-13)


def test_k_picks_the_strongest_features_and_the_last_lambda(data):
    p = Predictor(predict_function=linear, data=data)
    lm1 = LocalModel(p, data.iloc[[0]], k=1)
    lm2 = LocalModel(p, data.iloc[[0]], k=2)
    assert list(lm1.results["feature"]) == ["a"]
    assert sorted(lm2.results["feature"]) == ["a", "b"]
    df = lm2.model.df
    assert df[lm2.best_fit_index] == 2
    assert lm2.best_fit_index == int(np.flatnonzero(df == 2)[-1])  # the last path point with 2 features


def test_smaller_k_warns_when_no_lambda_has_k_features(data):
    # an exact function of a alone: the path stops (deviance ratio > 0.999) before b enters
    p = Predictor(predict_function=lambda d: 3 * d["a"].to_numpy(), data=data)
    with pytest.warns(UserWarning, match="Had to choose a smaller k"):
        lm = LocalModel(p, data.iloc[[0]], k=3)
    assert list(lm.results["feature"]) == ["a"]
    assert lm.model.df[lm.best_fit_index] < 3


def test_gower_weights_and_the_power_quirk(data):
    p = Predictor(predict_function=linear, data=data)
    x = data.iloc[[10]]
    lm = LocalModel(p, x, k=2)
    X = data.to_numpy()
    d = np.mean(np.abs(X - X[10]) / (X.max(axis=0) - X.min(axis=0)), axis=1)
    np.testing.assert_allclose(lm.weights, 1 - d, rtol=0, atol=1e-15)
    assert lm.weights[10] == 1.0
    lm2 = LocalModel(p, x, k=2, gower_power=2)
    # iml powers the distance (1 - d^2), not the proximity ((1 - d)^2): spec §18.13
    np.testing.assert_allclose(lm2.weights, 1 - d ** 2, rtol=0, atol=1e-15)


@pytest.mark.parametrize("dist_fun", ["euclidean", "maximum", "manhattan", "minkowski"])
def test_kernel_weights(data, dist_fun):
    p = Predictor(predict_function=linear, data=data)
    lm = LocalModel(p, data.iloc[[5]], dist_fun=dist_fun, kernel_width=0.7, k=2)
    diff = np.abs(data.to_numpy() - data.to_numpy()[5])
    d = {"euclidean": np.sqrt((diff ** 2).sum(1)), "minkowski": np.sqrt((diff ** 2).sum(1)),
         "maximum": diff.max(1), "manhattan": diff.sum(1)}[dist_fun]
    np.testing.assert_allclose(lm.weights, np.sqrt(np.exp(-d ** 2 / 0.7 ** 2)), rtol=1e-14)


def test_zero_range_column_is_skipped_with_gowers_warning(data):
    df = data.assign(const=1.5)
    p = Predictor(predict_function=linear, data=df)
    with pytest.warns(UserWarning, match="skipping variable with zero or non-finite range"):
        lm = LocalModel(p, df.iloc[[0]], k=2)
    X = data.to_numpy()
    d = np.mean(np.abs(X - X[0]) / np.ptp(X, axis=0), axis=1)  # the constant column does not count
    np.testing.assert_allclose(lm.weights, 1 - d, atol=1e-15)


# ---------------------------------------------------------------------------- categorical features
def test_categorical_recoding_and_layout(mixed):
    p = Predictor(predict_function=mixed_f, data=mixed)
    x = mixed.iloc[[0]]
    lm = LocalModel(p, x, k=5)
    res = lm.results
    assert list(res.columns) == ["beta", "x.recoded", "effect", "x.original", "feature", "feature.value"]
    lv = {c: str(x[c].iloc[0]) for c in ["cat", "ord", "s"]}
    names = ["num", "int", f"cat={lv['cat']}", f"ord={lv['ord']}", f"s={lv['s']}"]
    assert list(res.index) == list(res["feature"]) and set(res["feature"]) <= set(names)
    rec = res.set_index("feature")
    for c in ("cat", "ord", "s"):
        if f"{c}={lv[c]}" in rec.index:
            row = rec.loc[f"{c}={lv[c]}"]
            assert row["x.recoded"] == 1.0 and row["x.original"] == lv[c] and row["feature.value"] == f"{c}={lv[c]}"
    assert rec.loc["int", "x.original"] == str(int(x["int"].iloc[0]))
    # the recoded design: indicators of "equals the point's level"
    names_, cols, m = recode(p.data, mixed, x)
    assert names_ == names
    np.testing.assert_array_equal(m[:, 2], (mixed["cat"] == x["cat"].iloc[0]).to_numpy(dtype=float))
    np.testing.assert_array_equal(m[:, 4], (mixed["s"] == x["s"].iloc[0]).to_numpy(dtype=float))
    assert cols[1].dtype == np.int64 and cols[0].dtype == np.float64


def test_ordered_factor_works(mixed):
    # iml 0.11.4's recode() fails on ordered factors (two classes per column); pyiml does not
    p = Predictor(predict_function=mixed_f, data=mixed)
    lm = LocalModel(p, mixed.iloc[[4]], k=3)
    assert len(lm.results) == 3


def test_explain_reuses_the_predictions_and_equals_a_fresh_fit(mixed):
    calls = []

    def f(df):
        calls.append(len(df))
        return mixed_f(df)

    p = Predictor(predict_function=f, data=mixed)
    lm = LocalModel(p, mixed.iloc[[1]], k=2)
    n_calls = len(calls)
    assert lm.explain(mixed.iloc[[8]]) is lm
    assert len(calls) == n_calls  # the data's predictions do not depend on the point
    fresh = LocalModel(Predictor(predict_function=mixed_f, data=mixed), mixed.iloc[[8]], k=2)
    pd.testing.assert_frame_equal(lm.results, fresh.results)
    pd.testing.assert_frame_equal(lm.x_interest, fresh.x_interest)


def test_input_is_not_modified(mixed):
    before = mixed.copy()
    x = mixed.iloc[[3]].copy()
    x_before = x.copy()
    LocalModel(Predictor(predict_function=mixed_f, data=mixed), x, k=2)
    pd.testing.assert_frame_equal(mixed, before)
    pd.testing.assert_frame_equal(x, x_before)


# ---------------------------------------------------------------------------- several outputs
def test_multiclass_layout_and_probabilities(data):
    p = Predictor(predict_function=probs3, data=data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glmnet's convergence notes, if any
        lm = LocalModel(p, data.iloc[[0]], k=2)
    res = lm.results
    assert list(res.columns) == ["beta", "x.recoded", "effect", "x.original", "feature", "feature.value", ".class"]
    assert list(res.index) == list(range(len(res)))
    assert set(res[".class"]) <= {"k1", "k2", "k3"}
    assert res["feature"].nunique() <= 2
    pr = lm.predict(data.iloc[:5])
    assert list(pr.columns) == ["k1", "k2", "k3"]
    np.testing.assert_allclose(pr.sum(axis=1), 1.0, rtol=1e-14)
    assert lm.model.family == "multinomial" and lm.model.classnames == ["k1", "k2", "k3"]


def test_multiclass_never_predicted_class_is_left_out(data):
    def probs(df):
        out = probs3(df)
        out["k4"] = 0.0  # never the most probable class: iml's glmnet call fails here
        return out

    p = Predictor(predict_function=probs, data=data)
    with pytest.warns(UserWarning, match=r"\['k4'\] are never the most probable class"):
        lm = LocalModel(p, data.iloc[[0]], k=2)
    pr = lm.predict(data.iloc[:3])
    assert list(pr.columns) == ["k1", "k2", "k3", "k4"]
    assert (pr["k4"] == 0).all()
    np.testing.assert_allclose(pr.sum(axis=1), 1.0, rtol=1e-14)


def test_multiclass_with_one_predicted_class_errors(data):
    def probs(df):
        return pd.DataFrame({"yes": np.full(len(df), 0.9), "no": np.full(len(df), 0.1)})

    p = Predictor(predict_function=probs, data=data)
    with pytest.raises(ValueError, match="predicts the class 'yes' for every row"):
        LocalModel(p, data.iloc[[0]], k=1)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("k", [0, 5, 1.5, True, "2", np.nan])
def test_bad_k(data, k):
    p = Predictor(predict_function=linear, data=data)
    with pytest.raises(ValueError, match=r"k must be a whole number between 1 and 4"):
        LocalModel(p, data.iloc[[0]], k=k)


def test_missing_values_in_the_data_are_named(data):
    d = data.assign(b=data["b"].where(data.index != 5))
    p = Predictor(predict_function=lambda df: np.nan_to_num(df[COLS].to_numpy()) @ BETA, data=d)
    with pytest.raises(ValueError, match=r"data has missing values in column\(s\) \['b'\].*impute or drop"):
        LocalModel(p, d.iloc[[0]], k=2)


def test_infinite_values_in_the_data_are_named(data):
    """±Inf is not missing: iml hands it to glmnet, which then never selects the feature; pyiml
    refuses it with its own reason (it said "glmnet: x has missing values")."""
    d = data.assign(b=data["b"].where(data.index != 5, np.inf).where(data.index != 7, -np.inf))
    p = Predictor(predict_function=lambda df: np.tanh(df[COLS].to_numpy()) @ BETA, data=d)
    with pytest.raises(ValueError, match=r"data has infinite values in column\(s\) \['b'\]: .*never selects") as e:
        LocalModel(p, d.iloc[[0]], k=2)
    assert "missing" not in str(e.value)


@pytest.mark.parametrize("scale", [1e-170, 1e-300])
def test_feature_whose_variance_underflows_is_left_out_with_a_warning(scale):
    """A feature of scale 1e-170 has variance 0 in double precision and glmnet's standardisation
    divides by it: pyiml crashed in log(0); R gives NaN/infinite lambdas and an empty table
    when the feature's gradient is infinite. pyiml leaves the feature out, says so, and fits
    the others."""
    rng = np.random.default_rng(2)
    n = 15
    X = pd.DataFrame({"x1": np.round(rng.normal(size=n), 2) * scale, "x2": np.round(rng.normal(size=n), 2),
                      "x3": np.round(rng.normal(size=n), 2)})

    def f(d):
        return d["x1"].to_numpy() / scale * d["x2"].to_numpy() + d["x1"].to_numpy() / scale + 2 * d["x3"].to_numpy()

    p = Predictor(predict_function=f, data=X)
    with pytest.warns(UserWarning, match=r"the spread of x1 underflows .*leaves it out; rescale it"):
        lm = LocalModel(p, X.iloc[[1]], k=2)
    assert set(lm.results["feature"]) == {"x2", "x3"} and np.isfinite(lm.results["beta"]).all()
    # the same fit as on the data without x1's variation
    q = Predictor(predict_function=lambda d: f(d.assign(x1=X["x1"].to_numpy())), data=X.assign(x1=0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = LocalModel(q, X.iloc[[1]].assign(x1=0.0), k=2)
    np.testing.assert_allclose(lm.results["beta"].to_numpy(), ref.results["beta"].to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("kind", ["object", "string", "category", "boolean"])
def test_missing_values_in_a_categorical_feature_are_named(kind):
    """iml recodes a categorical feature as as.numeric(x == value): NA where x is missing, and
    glmnet refuses the data ("x has missing values"); pyiml names the column."""
    vals = ["a", "b", None, "a", "b", "a", "b", "a"] if kind != "boolean" else \
        [True, False, None, True, False, True, False, True]
    col = pd.array(vals, dtype=kind) if kind != "object" else np.array(vals, dtype=object)
    X = pd.DataFrame({"x": np.arange(8.0), "s": col})
    p = Predictor(predict_function=lambda d: d["x"].to_numpy() + (d["s"].astype(str) == str(vals[0])).to_numpy(), data=X)
    with pytest.raises(ValueError, match=r"missing values in column\(s\) \['s'\].*iml fails too"):
        LocalModel(p, X.iloc[[0]], k=1)


def test_kernel_width_whose_square_underflows_is_named():
    """kernel_width**2 == 0 in double makes every kernel weight 0/0 (iml fails too); the message
    blamed constant or missing columns. No numpy warning escapes on the way."""
    import warnings

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40), "c": rng.normal(size=40)})
    p = Predictor(predict_function=lambda d: d["a"].to_numpy() + 2 * d["b"].to_numpy(), data=X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"kernel_width=1e-300 squared is 0.0 .*between about 1e-154 and 1e154"):
            LocalModel(p, X.iloc[[0]], dist_fun="euclidean", kernel_width=1e-300, k=2)
        assert len(LocalModel(p, X.iloc[[0]], dist_fun="euclidean", kernel_width=1e200, k=2).results) == 2


def test_weights_without_any_row_name_the_fix():
    """Kernel weights that underflow to 0 for every row (a narrow kernel around a point far from
    the data): glmnet (and so iml) fails with "missing value where TRUE/FALSE needed" (R crashes with
    several classes); pyiml names the fix."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    p = Predictor(predict_function=lambda d: 2 * d["a"].to_numpy() + d["b"].to_numpy(), data=X)
    x = pd.DataFrame({"a": [4.0], "b": [4.0]})
    with pytest.raises(ValueError, match=r"every weight of the local model is 0.*use a larger kernel_width \(now 0.01\)"):
        LocalModel(p, x, k=1, dist_fun="euclidean", kernel_width=0.01)
    assert LocalModel(p, x, k=1, dist_fun="euclidean", kernel_width=1.0).results.shape[0] == 1
    lm = LocalModel(p, X.iloc[[0]], k=1)
    assert "larger gower_power" in lm._widen_hint()
    ess = [float(w.sum() ** 2 / (w * w).sum()) for w in
           (LocalModel(p, X.iloc[[0]], k=1, gower_power=g).weights for g in (0.01, 1.0, 10.0))]
    assert ess[0] < ess[1] < ess[2]        # a larger gower_power spreads the weights


def test_bad_dist_fun_and_kernel_width(data):
    p = Predictor(predict_function=linear, data=data)
    with pytest.raises(ValueError, match="dist_fun must be one of"):
        LocalModel(p, data.iloc[[0]], dist_fun="cosine")
    with pytest.raises(ValueError, match="kernel_width must be given"):
        LocalModel(p, data.iloc[[0]], dist_fun="euclidean")
    with pytest.raises(ValueError, match="kernel_width must be a finite number > 0"):
        LocalModel(p, data.iloc[[0]], dist_fun="euclidean", kernel_width=-1)
    with pytest.raises(ValueError, match="gower_power must be a finite number > 0"):
        LocalModel(p, data.iloc[[0]], gower_power=0)


def test_bad_x_interest(data):
    p = Predictor(predict_function=linear, data=data)
    with pytest.raises(ValueError, match="Missing columns: c, d"):
        LocalModel(p, data.iloc[[0]][["a", "b"]])
    with pytest.warns(UserWarning, match="Dropping additional columns: z"):
        lm = LocalModel(p, data.iloc[[0]].assign(z=1.0), k=2)
    assert list(lm.x_interest.columns) == COLS
    with pytest.raises(ValueError, match="exactly one row"):
        LocalModel(p, data.iloc[[0, 1]])
    with pytest.raises(TypeError, match="x_interest must be a pandas DataFrame"):
        LocalModel(p, data.iloc[0].to_numpy())
    with pytest.raises(ValueError, match="Missing columns: b"):
        lm.predict(data[["a", "c", "d"]])


def test_no_x_interest_means_no_results_until_explain(data):
    lm = LocalModel(Predictor(predict_function=linear, data=data), k=2)
    assert lm.results is None and lm.model is None
    with pytest.raises(RuntimeError, match="explain"):
        lm.predict()
    with pytest.raises(RuntimeError, match="run"):
        lm.plot()
    lm.explain(data.iloc[[0]])
    assert len(lm.results) == 2


# ---------------------------------------------------------------------------- plots
def test_plots_return_figures(data):
    p = Predictor(predict_function=linear, data=data)
    lm = LocalModel(p, data.iloc[[0]], k=3)
    fig = lm.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title(loc="left").startswith("Actual prediction: ") and "LocalModel prediction: " in ax.get_title(loc="left")
    assert ax.get_xlabel() == "effect"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    eff = lm.results.set_index("feature.value")["effect"]
    assert labels == list(eff.sort_values().index)  # reorder(feature.value, effect)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lmc = LocalModel(Predictor(predict_function=probs3, data=data), data.iloc[[0]], k=2)
    figc = lmc.plot()
    assert isinstance(figc, Figure)
    assert {a.get_title() for a in figc.axes} == set(lmc.results[".class"])


# ---------------------------------------------------------------------------- R
@pytest.mark.r
def test_smaller_k_and_glmnet_path_agree_with_r(r, data):
    from r_bridge import RFunction, iml as riml

    frame = data.assign(y=linear(data))
    p = Predictor(predict_function=lambda d: 3 * d["a"].to_numpy(), data=frame, y="y")
    with pytest.warns(UserWarning, match="Had to choose a smaller k"):
        lm = LocalModel(p, data.iloc[[0]], k=3)
    rp = riml.r_predictor(data=frame, y="y", model=RFunction("function(newdata) 3 * newdata$a"))
    with pytest.warns(UserWarning, match="Had to choose a smaller k"):
        ro = riml.iml("LocalModel", rp, x_interest=data.iloc[[0]], k=3)
    assert ro.field("best.fit.index") == lm.best_fit_index + 1
    rr = ro.results
    assert list(rr["feature"]) == list(lm.results["feature"])
    np.testing.assert_allclose(lm.results["beta"].to_numpy(), rr["beta"].to_numpy(), rtol=1e-10)


def test_no_glmnet_path_is_a_clear_error(data):
    """Weights concentrated on a few rows: glmnet stops before its first lambda (iml then fails
    on the empty path with "length of 'dimnames' [2] not equal to array extent")."""
    def probs(df):
        z = 8 * (df["a"].to_numpy() - 0.5)
        p = 1 / (1 + np.exp(-z))
        return pd.DataFrame({"lo": 1 - p, "hi": p})

    p = Predictor(predict_function=probs, data=data)
    with pytest.raises(ValueError, match=r"glmnet returned no fit .*use a larger kernel_width \(now 0\.05\)"):
        LocalModel(p, data.iloc[[0]], k=2, dist_fun="euclidean", kernel_width=0.05)


# A fuzz case (parity.fuzz seed 40158): 13 rows, x_interest is row 7, and a narrow kernel puts
# nearly all weight on it. Multinomial glmnet stops at its second lambda (error -20002) and
# returns a path of one point, the intercept-only model.
_NUM0 = [-0.005711981775907451, -0.10962208098018562, 0.11694339912876171, -0.01578141817926337,
         0.11892150228138354, -0.018750922582132613, 0.10319859694575172, 0.008160450168790814,
         0.050777614328332665, -0.04507694498272943, 0.04200305245166502, 0.15879080050297098,
         -0.06590068241721211]
_TIE1 = [0.99, 0.99, 0.55, 0.5, 0.55, 0.55, -2.11, 0.5, 0.99, 0.5, 0.5, 0.99, 0.99]
_P1 = [0.47552694295072445, 0.469779353962109, 0.5157933842317985, 0.5012051615734787, 0.5160481149381378,
       0.49956004459018416, 0.22287653917060093, 0.5040359330772043, 0.47926113726271496,
       0.4978459348124256, 0.5081679879825144, 0.48759851805871174, 0.47202084872291566]


def _one_point_path():
    data = pd.DataFrame({"num0": _NUM0, "tie1": _TIE1})

    def probs(df):
        p1 = np.array(_P1)[[_NUM0.index(v) for v in df["num0"]]]   # each row's probability, by its num0
        return pd.DataFrame({"c0": 1 - p1, "c1": p1})

    return data, probs


def test_one_point_multinomial_path_gives_the_intercept_only_model():
    data, probs = _one_point_path()
    p = Predictor(predict_function=probs, data=data)
    with pytest.warns(UserWarning) as rec:
        lm = LocalModel(p, data.iloc[[6]], k=2, dist_fun="manhattan", kernel_width=0.5)
    msgs = [str(w.message) for w in rec]
    assert any("error code -20002" in m for m in msgs) and "Had to choose a smaller k" in msgs
    assert lm.model.df.tolist() == [0] and lm.best_fit_index == 0
    assert lm.results.empty and list(lm.results.columns)[:3] == ["beta", "x.recoded", "effect"]
    # predict gives the intercept-only model's probabilities: the same for every row
    pred = lm.predict(data)
    assert np.ptp(pred.to_numpy(), axis=0).max() == 0


@pytest.mark.r
def test_one_point_multinomial_path_fails_in_iml(r):
    """R's glmnet leaves ``df`` unset on a one-point multinomial path, so ``fit$df`` is the
    function ``stats::df`` and iml fails comparing it with k (docs/differences.md)."""
    from r_bridge import RFunction, iml as riml

    data, _ = _one_point_path()
    num0 = ", ".join(repr(v) for v in _NUM0)
    p1 = ", ".join(repr(v) for v in _P1)
    model = RFunction(f"function(newdata) {{ p <- c({p1})[match(newdata$num0, c({num0}))]; "
                      "data.frame(c0 = 1 - p, c1 = p) }")
    rp = riml.r_predictor(data=data, model=model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception, match="comparison \\(==\\) is possible only for atomic and list types"):
            riml.iml("LocalModel", rp, x_interest=data.iloc[[6]], k=2, dist_fun="manhattan", kernel_width=0.5)


def test_gower_and_glmnet_warnings_point_at_the_callers_line():
    """Warnings of the distance and of glmnet name the user's line, as pyiml's other warnings do
    (they named pyiml's own lines, so Python's once-per-location filter could hide them)."""
    import warnings

    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=150), "b": rng.normal(size=150), "k": 1.0})
    y = X.a + X.b
    p = Predictor(LinearRegression().fit(X, y), data=X.assign(y=y), y="y")
    labels = pd.Series(np.where(X.a > 0, "hi", np.where(X.a > -1.8, "mid", "lo")))   # 'lo' is rare
    pc = Predictor(RandomForestClassifier(n_estimators=10, random_state=0).fit(X[["a", "b"]], labels),
                   data=X[["a", "b"]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        LocalModel(p, X.iloc[[0]], k=1)          # the constant column k: gower skips it
        LocalModel(pc, X[["a", "b"]].iloc[[3]], k=1)   # a rare class: glmnet's warnings
    msgs = {str(x.message)[:30]: x.filename for x in w}
    assert any(m.startswith("skipping variable") for m in msgs)
    assert any("fewer than 8" in m or m.startswith("one multinomial") for m in msgs), msgs
    assert all(f == __file__ for f in msgs.values()), msgs


def test_class_without_weight_in_the_neighbourhood_names_the_class_and_the_fix():
    """glmnet's multinomial null model stops when a class holds at most 1e-5 of the weight
    (error code 8001+, iml fails there too); LocalModel names the class and the remedy."""
    x = np.r_[np.linspace(0, 1, 20), np.linspace(9, 10, 5)]
    X = pd.DataFrame({"a": x, "b": np.sin(np.arange(25.0))})

    def probs(d):
        a = d["a"].to_numpy()
        c2 = (a > 5).astype(float)
        c0 = np.where(a > 5, 0.0, np.where(a < 0.5, 0.7, 0.2))
        return pd.DataFrame({"c0": c0, "c1": 1 - c0 - c2, "c2": c2})

    p = Predictor(predict_function=probs, data=X)
    with pytest.raises(ValueError, match=r"most probable class is 'c2' hold at most 1e-5 .*error code 8003.*"
                                         r"use a larger kernel_width \(now 0.5\).*class_="):
        LocalModel(p, X.iloc[[0]], k=1, dist_fun="euclidean", kernel_width=0.5)
    # a wide enough neighbourhood fits
    assert len(LocalModel(p, X.iloc[[0]], k=1, dist_fun="euclidean", kernel_width=50).results) >= 1
