"""FeatureImp: closed-form oracles, iml's layout and conventions, bad input, plots (no R)."""
import contextlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from pyiml import FeatureImp, Predictor, RRandom
from pyiml.losses import LOSSES

BETA = np.array([3.0, -2.0, 1.0, 0.0, 0.0])
COLS = ["a", "b", "c", "d", "e"]


def linear(df):
    return df[COLS].to_numpy() @ BETA


@pytest.fixture(scope="module")
def lin():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(2000, 5)), columns=COLS)
    y = linear(X) + rng.normal(scale=0.5, size=len(X))
    return X, y


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(size=(60, 5)), columns=COLS)
    y = linear(X) + rng.normal(scale=0.3, size=len(X))
    return X, y


def test_linear_model_mse_difference_oracle(lin):
    X, y = lin
    fi = FeatureImp(Predictor(predict_function=linear, data=X, y=y), "mse", compare="difference",
                    n_repetitions=5, random_state=0)
    res = fi.results.set_index("feature")
    # permuting x_j adds beta_j^2 * E[(x_j - x_j')^2] = 2 beta_j^2 Var(x_j) to the mse
    expected = 2 * BETA ** 2 * X.var(ddof=0).to_numpy()
    for j, c in enumerate(COLS[:3]):
        assert res.loc[c, "importance"] == pytest.approx(expected[j], rel=0.1)
    # unused features: the same rows in another order -> exactly the original error up to rounding
    assert res.loc["d", "importance"] == pytest.approx(0.0, abs=1e-12)
    assert list(fi.results["feature"][:3]) == ["a", "b", "c"]


def test_results_layout_and_derived_from_errors(small):
    X, y = small
    fi = FeatureImp(Predictor(predict_function=linear, data=X, y=y), "mae", n_repetitions=4, random_state=3)
    assert list(fi.results.columns) == ["feature", "importance.05", "importance", "importance.95",
                                        "permutation.error"]
    assert list(fi.errors.columns) == ["feature", "repetition", "permutation.error"]
    assert len(fi.errors) == 5 * 4 and fi.errors["repetition"].tolist()[:4] == [1, 2, 3, 4]
    assert fi.errors["feature"].dtype == object and fi.errors["feature"].tolist()[3:5] == [X.columns[0], X.columns[1]]
    assert fi.errors is fi.errors   # one frame, made by the run
    # made from the run's draws and groups, whatever attributes are set afterwards
    fresh = FeatureImp(Predictor(predict_function=linear, data=X, y=y), "mae", n_repetitions=4, random_state=3)
    want = fresh.errors.copy()
    fresh.n_repetitions, fresh.features = 2, dict(reversed(list(fresh.features.items())))
    pd.testing.assert_frame_equal(fresh.errors, want)
    fresh.errors = want.head(3)
    assert len(fresh.errors) == 3
    # an object restored from its state (as unpickling restores it)
    old = dict(fi.__dict__, errors=want)
    revived = FeatureImp.__new__(FeatureImp)
    revived.__dict__.update(old)   # (what unpickling does)
    assert revived.errors is want and revived.results is fi.results
    for _, row in fi.results.iterrows():
        e = fi.errors.loc[fi.errors["feature"] == row["feature"], "permutation.error"].to_numpy()
        raw = e / fi.original_error
        assert row["importance"] == np.median(raw)
        assert row["permutation.error"] == np.median(e)
        assert row["importance.05"] == pytest.approx(np.quantile(raw, 0.05), rel=1e-14)
        assert row["importance.95"] == pytest.approx(np.quantile(raw, 0.95), rel=1e-14)
    assert fi.results["importance"].is_monotonic_decreasing
    # ties keep the feature order (R's stable order(decreasing = TRUE))
    tail = fi.results["feature"].tolist()[-2:]
    assert tail == ["d", "e"]
    assert fi.original_error == pytest.approx(np.mean(np.abs(y - linear(X))), rel=1e-14)
    assert fi.n_repetitions == 4 and fi.compare == "ratio" and fi.loss is LOSSES["mae"]
    assert fi.features == {c: [c] for c in COLS}
    assert "error function: mae" in repr(fi)


def test_groups_and_subsets(small):
    X, y = small
    p = Predictor(predict_function=linear, data=X, y=y)
    fi = FeatureImp(p, "mse", features={"ab": ["a", "b"], "c": "c", "noise": ["d", "e"]}, random_state=5)
    res = fi.results.set_index("feature")
    assert set(res.index) == {"ab", "c", "noise"}
    assert res.loc["noise", "importance"] == pytest.approx(1.0, abs=1e-12)
    single = FeatureImp(p, "mse", random_state=5).results.set_index("feature")
    assert res.loc["ab", "importance"] > single.loc["a", "importance"]
    sub = FeatureImp(p, "mse", features=["c", "a"], random_state=5)
    assert sub.features == {"c": ["c"], "a": ["a"]}
    assert list(sub.results["feature"]) == ["a", "c"]


def test_same_permutations_as_features_order(small):
    """Group g always uses element stream g: the first group's result does not depend on the rest."""
    X, y = small
    p = Predictor(predict_function=linear, data=X, y=y)
    a = FeatureImp(p, "mse", features=["a", "b"], random_state=RRandom(11)).errors
    b = FeatureImp(p, "mse", features=["a", "c", "d"], random_state=RRandom(11)).errors
    np.testing.assert_array_equal(a["permutation.error"][:5], b["permutation.error"][:5])


@pytest.mark.parametrize("batch_size", [7, 60, 10_000])
def test_n_jobs_and_batch_size_do_not_change_results(small, batch_size):
    X, y = small
    p = Predictor(predict_function=linear, data=X, y=y, batch_size=batch_size)
    a = FeatureImp(p, "rmse", random_state=9)
    b = FeatureImp(p, "rmse", random_state=9, n_jobs=2)
    pd.testing.assert_frame_equal(a.results, b.results)
    pd.testing.assert_frame_equal(a.errors, b.errors)
    ref = FeatureImp(Predictor(predict_function=linear, data=X, y=y), "rmse", random_state=9)
    pd.testing.assert_frame_equal(a.results, ref.results)


def test_threads_run_with_large_batches(small, monkeypatch):
    import threading

    from pyiml import _parallel
    from pyiml._parallel import _cpus

    X, y = small
    monkeypatch.setattr(_parallel, "THREAD_MIN_BATCH", 100)   # 1,500 design rows: calls of 500 rows count as large
    seen = set()

    def f(df):
        seen.add(threading.get_ident())
        return linear(df)

    a = FeatureImp(Predictor(predict_function=f, data=X, y=y, batch_size=500), "mse", random_state=4, n_jobs=2)
    b = FeatureImp(Predictor(predict_function=linear, data=X, y=y), "mse", random_state=4)
    pd.testing.assert_frame_equal(a.results, b.results)
    # the main thread predicts the original error, worker threads the permutations
    assert (len(seen) >= 2) == (_cpus() >= 2)


def test_batches_never_exceed_batch_size(small):
    X, y = small
    sizes = []

    def f(df):
        sizes.append(len(df))
        return linear(df)

    FeatureImp(Predictor(predict_function=f, data=X, y=y, batch_size=25), "mse", random_state=1)
    assert max(sizes) <= 25 and sum(sizes) == 60 + 5 * 5 * 60


def test_zero_error_switches_to_difference(small):
    X, _ = small
    p = Predictor(predict_function=linear, data=X, y=linear(X))
    with pytest.warns(UserWarning, match="Model error is 0, switching from compare='ratio' to compare='difference'"):
        fi = FeatureImp(p, "mae", random_state=1)
    assert fi.compare == "difference" and fi.original_error == 0
    assert (fi.results["importance"] == fi.results["permutation.error"]).all()


@pytest.fixture(scope="module")
def iris_like():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(4)
    n = 150
    X = pd.DataFrame({"u": rng.normal(size=n), "v": rng.normal(size=n), "w": rng.normal(size=n)})
    lab = np.where(X["u"] + 0.5 * rng.normal(size=n) > 0.5, "hi", np.where(X["v"] > 0, "mid", "lo"))
    y = pd.Series(pd.Categorical(lab, categories=["hi", "lo", "mid"]))
    model = LogisticRegression(max_iter=500).fit(X, lab)
    return X, y, model


def test_multiclass_losses_on_argmax_labels(iris_like):
    from sklearn.metrics import accuracy_score

    X, y, model = iris_like
    p = Predictor(model, data=X, y=y)
    fi = FeatureImp(p, "ce", random_state=2)
    assert fi.original_error == pytest.approx(1 - accuracy_score(y.astype(str), model.predict(X)), abs=1e-15)
    assert fi.results["feature"].iloc[0] == "u"
    f1 = FeatureImp(p, "f1", random_state=2)
    assert f1.original_error == 1.0  # set-based F1 of iml/Metrics: every label is predicted somewhere


def test_multiclass_first_max_on_ties():
    X = pd.DataFrame({"a": [0.0, 1, 2, 3], "b": [1.0, 0, 1, 0]})
    probs = lambda d: pd.DataFrame({"k1": np.full(len(d), 0.5), "k2": np.full(len(d), 0.5)})
    p = Predictor(predict_function=probs, data=X, y=["k1", "k2", "k1", "k2"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fi = FeatureImp(p, "ce", random_state=1)
    assert fi.original_error == 0.5  # every row labelled k1


def test_on_prob_binary_logloss_equals_sklearn():
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss

    rng = np.random.default_rng(6)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300), "c": rng.normal(size=300)})
    yl = np.where(X["a"] - X["b"] + rng.normal(size=300) > 0, "yes", "no")
    m = LogisticRegression().fit(X, yl)
    p = Predictor(m, data=X, y=yl, class_="yes")
    fi = FeatureImp(p, "logLoss", on="prob", random_state=1)
    assert fi.original_error == pytest.approx(log_loss(yl == "yes", m.predict_proba(X)[:, 1]), rel=1e-12)
    assert set(fi.results["feature"][:2]) == {"a", "b"}
    assert fi.results.set_index("feature").loc["c", "importance"] < 1.05


def test_on_prob_multiclass_named_and_callable(iris_like):
    from sklearn.metrics import log_loss

    X, y, model = iris_like
    p = Predictor(model, data=X, y=y)
    onehot = (np.asarray(y.astype(str))[:, None] == np.array(["hi", "lo", "mid"])).astype(float)
    fi = FeatureImp(p, "mse", on="prob", random_state=1)
    assert fi.original_error == pytest.approx(np.mean((onehot - model.predict_proba(X)) ** 2), rel=1e-12)

    def multinomial_logloss(actual, predicted):
        assert actual.shape == predicted.shape == (len(X), 3)
        return log_loss(actual.argmax(axis=1), predicted, labels=[0, 1, 2])

    fc = FeatureImp(p, multinomial_logloss, on="prob", random_state=1)
    assert fc.original_error == pytest.approx(log_loss(y.cat.codes, model.predict_proba(X)), rel=1e-12)
    assert fc.loss_name == "multinomial_logloss"


def test_inputs_not_modified(small):
    X, y = small
    X0, y0 = X.copy(), y.copy()
    FeatureImp(Predictor(predict_function=linear, data=X, y=y), "mse", features={"g": ["a", "b"]}, random_state=1)
    pd.testing.assert_frame_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_categorical_features():
    rng = np.random.default_rng(8)
    n = 120
    X = pd.DataFrame({"num": rng.normal(size=n), "cat": pd.Categorical(rng.choice(list("xyz"), n)),
                      "i": rng.integers(0, 5, n), "s": rng.choice(["lo", "hi"], n)})
    f = lambda d: (d["num"].to_numpy() + 3.0 * (d["cat"].astype(str).to_numpy() == "y") + 0 * d["i"].to_numpy()
                   + 2.0 * (d["s"].to_numpy() == "hi"))
    y = f(X) + rng.normal(scale=0.1, size=n)
    fi = FeatureImp(Predictor(predict_function=f, data=X, y=y), "mae", random_state=3)
    res = fi.results.set_index("feature")
    assert res.loc["cat", "importance"] > 5 and res.loc["s", "importance"] > 5
    assert res.loc["i", "importance"] == pytest.approx(1, abs=1e-12)


# ---------------------------------------------------------------------------- bad input
def test_bad_input(small):
    X, y = small
    p = Predictor(predict_function=linear, data=X, y=y)
    with pytest.raises(ValueError, match="loss='mean_squared' is not a known loss"):
        FeatureImp(p, "mean_squared")
    with pytest.raises(ValueError, match=r"Please call Predictor\(\) with the y target vector.*y="):
        FeatureImp(Predictor(predict_function=linear, data=X), "mse")
    with pytest.raises(ValueError, match=r"features: unknown column\(s\) \['zz'\]"):
        FeatureImp(p, "mse", features={"g": ["a", "zz"]})
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['q'\]"):
        FeatureImp(p, "mse", features=["q"])
    with pytest.raises(ValueError, match="compare must be 'ratio' or 'difference'"):
        FeatureImp(p, "mse", compare="ratios")
    with pytest.raises(ValueError, match="n_repetitions must be a whole number >= 1"):
        FeatureImp(p, "mse", n_repetitions=0)
    with pytest.raises(ValueError, match="on must be 'label'"):
        FeatureImp(p, "mse", on="probability")
    with pytest.raises(ValueError, match="group 'g' must be a non-empty list"):
        FeatureImp(p, "mse", features={"g": []})
    with pytest.raises(ValueError, match="n_jobs"):
        FeatureImp(p, "mse", n_jobs=0)
    with pytest.raises(TypeError, match="predictor must be a pyiml.Predictor"):
        FeatureImp(linear, "mse")


def test_label_target_with_one_numeric_output_explains_on_prob():
    X = pd.DataFrame({"a": [0.1, 0.9, 0.4, 0.7], "b": [1.0, 2, 3, 4]})
    p = Predictor(predict_function=lambda d: d["a"].to_numpy(), data=X, y=["no", "yes", "no", "yes"])
    with pytest.raises(ValueError, match="needs a numeric target.*on='prob'"):
        FeatureImp(p, "logLoss")
    with pytest.raises(ValueError, match="no value of y"):
        FeatureImp(p, "logLoss", on="prob")



def test_logloss_on_values_outside_zero_one_names_type_response():
    """A glm's default predict() is the link: logLoss on it is NaN/Inf in Metrics (iml then fails
    in quantile); pyiml says which predictions are wrong and how to get probabilities."""
    X = pd.DataFrame({"a": [-2.0, 0.5, 1.5, -0.3], "b": [1.0, 2, 3, 4]})
    y = np.array([0.0, 1, 1, 0])
    link = Predictor(predict_function=lambda d: d["a"].to_numpy(), data=X, y=y)
    before = X.copy()
    with pytest.raises(ValueError, match=r"logLoss.*from -2 to 1\.5.*type='response'"):
        FeatureImp(link, "logLoss")
    pd.testing.assert_frame_equal(X, before)
    prob = Predictor(predict_function=lambda d: 1 / (1 + np.exp(-d["a"].to_numpy())), data=X, y=y)
    assert np.isfinite(FeatureImp(prob, "logLoss", random_state=RRandom(1)).original_error)
    assert FeatureImp(link, "mse", random_state=RRandom(1)).original_error > 0   # other losses take any number


NAN_DATA = pd.DataFrame({"a": [0.5, 1.2, -0.3, 2.2, 0.9, -1.4, 0.1, 1.7], "b": [1.0, 0, 2, 1, 0, 3, 1, 2],
                         "y": [0.0, 1.1, 0.4, 2.9, 0.7, -0.5, 1.2, 2.6]})   # one target of 0


def _nan_model(d):
    return d["a"].to_numpy() + 0.5 * d["b"].to_numpy()


@pytest.mark.parametrize("loss, compare, match", [
    ("mape", "ratio", r"loss='mape' gives undefined \(NaN\) importances for feature\(s\) \['a', 'b'\].*inf.*zeros"),
    ("mape", "difference", r"loss='mape' gives undefined \(NaN\).*\['a', 'b'\]"),
    ("msle", "ratio", r"loss='msle' gives undefined \(NaN\) importances for feature\(s\) \['b'\].*below -1"),
])
def test_undefined_importances_raise_as_iml_fails(loss, compare, match):
    """Where a loss is NaN for some permutation (or inf before and after permuting), iml fails in
    quantile() ("missing values and NaN's not allowed"); pyiml says which loss and why."""
    P = Predictor(predict_function=_nan_model, data=NAN_DATA, y="y")
    with pytest.raises(ValueError, match=match):
        FeatureImp(P, loss, compare=compare, random_state=RRandom(1))
    assert FeatureImp(P, "mae", random_state=RRandom(1)).results["importance"].notna().all()


@pytest.mark.parametrize("scale", [1e-300, 1e200])
def test_rse_beyond_double_range_names_the_scale(scale):
    """rse squares the target's spread: at 1e-300 it underflows to 0 (NaN loss) and at 1e200 it
    overflows; iml fails as well. The message said only "a constant target". The error comes
    alone: the losses compute as R does, without numpy's overflow warnings (one came first)."""
    X = NAN_DATA.assign(y=NAN_DATA["y"] * scale)
    P = Predictor(predict_function=lambda d: _nan_model(d) * scale, data=X, y="y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a warning would replace the ValueError
        with pytest.raises(ValueError, match=r"rse divides by the squared spread.*1e154 in size: rescale"):
            FeatureImp(P, "rse", random_state=RRandom(1))
    assert FeatureImp(P, "mae", random_state=RRandom(1)).results["importance"].notna().all()


@pytest.mark.parametrize("loss", ["mse", "rmse", "mae"])
@pytest.mark.parametrize("r_exact", [True, False])   # R's arithmetic; numpy's row-wise losses
def test_losses_beyond_double_range_raise_without_warnings(loss, r_exact):
    """Squares (and differences) beyond the double range are Inf, as in R, with no numpy
    overflow warning before FeatureImp's error (inf / inf importances are undefined)."""
    X = pd.DataFrame({"a": np.linspace(-1, 1, 20), "b": np.linspace(1, 0, 20)})
    X["y"] = -1.7e308 * X["a"]
    P = Predictor(predict_function=lambda d: 1.7e308 * d["a"].to_numpy(), data=X, y="y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=rf"loss='{loss}' gives undefined \(NaN\) importances.*is inf"):
            FeatureImp(P, loss, n_repetitions=2, random_state=RRandom(1) if r_exact else 1)


def test_nan_model_error_and_infinite_importances():
    P = Predictor(predict_function=lambda d: _nan_model(d) - 3, data=NAN_DATA, y="y")
    with pytest.raises(ValueError, match=r"loss='msle' of the model's predictions is NaN.*log\(1 \+ x\)"):
        FeatureImp(P, "msle")
    with pytest.raises(ValueError, match=r"loss='nan_loss' of the model's predictions is NaN.*the loss returned NaN"):
        FeatureImp(P, _named(lambda a, p: float("nan"), "nan_loss"), random_state=1)
    # an infinite error after permuting is no NaN: the importance is inf, as in iml
    base = Predictor(predict_function=_nan_model, data=NAN_DATA, y="y")
    first = {}

    def inf_after_permuting(actual, predicted):
        key = "orig" if not first else "perm"
        first.setdefault(key, True)
        return 1.0 if key == "orig" else float("inf")
    res = FeatureImp(base, inf_after_permuting, random_state=RRandom(1)).results
    assert np.isinf(res["importance"]).all()


def _named(f, name):
    f.__name__ = name
    return f


def test_label_loss_warns_when_no_target_value_is_a_predicted_class():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    y = (X["a"] > 0).astype(float)                # 0.0 / 1.0: classes_ named "0.0", "1.0"
    # a target coded otherwise (5/6) matches no class, as text or as a number
    P = Predictor(LogisticRegression().fit(X, y), data=X.assign(y=y + 5), y="y")
    with pytest.warns(UserWarning, match=r"no value of y \(\['5', '6'\]\) is one of the model's classes \(\['0.0', '1.0'\]\)"):
        fi = FeatureImp(P, "ce", random_state=1)
    assert fi.original_error == 1.0
    ok = Predictor(LogisticRegression().fit(X, y.astype(int)), data=X.assign(y=y.astype(int)), y="y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert FeatureImp(ok, "ce", random_state=1).original_error < 0.2


def test_bool_target_with_one_output_is_zero_one_as_in_r():
    """R's Metrics coerce a logical target to 0/1 against one numeric output (iml's upstream
    test "FeatureImp with 0 model error": y = Species == "setosa", class = "setosa", mae)."""
    X = pd.DataFrame({"a": [0.1, 0.9, 0.4, 0.7, 0.2, 0.8], "b": [1.0, 2, 3, 4, 5, 6]})
    yb = np.array([False, True, False, True, False, True])
    model = lambda d: pd.DataFrame({"no": 1 - d["a"].to_numpy(), "yes": d["a"].to_numpy()})  # noqa: E731
    for loss, on in (("mae", "label"), ("mse", "label"), ("ce", "label"), ("logLoss", "prob")):
        # ce compares TRUE/FALSE (1/0) with probabilities that are never 0 or 1: said, as for labels
        said = pytest.warns(UserWarning, match=r"compares y's labels \(\['0', '1'\]\).*no prediction reads") \
            if loss == "ce" else contextlib.nullcontext()
        with said:
            with_bool = FeatureImp(Predictor(predict_function=model, data=X, y=yb, class_="yes"), loss, on=on,
                                   random_state=RRandom(3))
        with said if loss != "ce" else pytest.warns(UserWarning, match="no prediction reads"):
            with_float = FeatureImp(Predictor(predict_function=model, data=X, y=yb.astype(float), class_="yes"),
                                    loss, on=on, random_state=RRandom(3))
        assert with_bool.original_error == with_float.original_error
        pd.testing.assert_frame_equal(with_bool.results, with_float.results)
    assert FeatureImp(Predictor(predict_function=model, data=X, y=yb, class_="yes"), "mae",
                      random_state=1).original_error == pytest.approx(np.mean(np.abs(yb - X["a"])))
    # an exact model: error 0 switches to compare="difference", as in iml
    exact = Predictor(predict_function=lambda d: (d["a"] > 0.5).astype(float), data=X, y=yb)
    with pytest.warns(UserWarning, match="Model error is 0"):
        fi = FeatureImp(exact, "mae", random_state=1)
    assert fi.compare == "difference" and fi.original_error == 0.0
    # several outputs: the loss sees labels, and a bool target stays a label
    with pytest.raises(ValueError, match="no value of y"):
        FeatureImp(Predictor(predict_function=model, data=X, y=yb), "ce", on="prob")


@pytest.mark.parametrize("dtype, numpy_dtype", [("Float64", float), ("Int64", np.int64), ("boolean", bool),
                                                ("string", object)])
def test_nullable_target_vector_is_its_numpy_counterpart(small, dtype, numpy_dtype):
    """A target vector in pandas' nullable dtypes gives the results of its numpy counterpart (a
    Float64 or Int64 Series was taken for labels: "loss='mae' needs a numeric target")."""
    X, y0 = small
    y = pd.Series(np.round(y0) if dtype == "Int64" else y0)
    model, loss, pred = linear, "mae", {}
    if dtype in ("boolean", "string"):
        y = y > np.median(y0)
        model = lambda d: pd.DataFrame({"hi": (d["a"] > 0.5).astype(float),  # noqa: E731
                                        "lo": (d["a"] <= 0.5).astype(float)})
        if dtype == "string":
            y, loss = y.map({True: "hi", False: "lo"}), "ce"
        else:
            pred = dict(class_="hi")
    got = FeatureImp(Predictor(predict_function=model, data=X, y=y.astype(dtype), **pred), loss, random_state=1)
    want = FeatureImp(Predictor(predict_function=model, data=X, y=y.to_numpy(dtype=numpy_dtype), **pred), loss,
                      random_state=1)
    assert got.original_error == want.original_error
    pd.testing.assert_frame_equal(got.results, want.results)

# ---------------------------------------------------------------------------- plot
def test_plot(small):
    from matplotlib.figure import Figure

    X, y = small
    fi = FeatureImp(Predictor(predict_function=linear, data=X, y=y), "mse", random_state=1)
    fig = fi.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Feature Importance (loss: mse)" and ax.get_ylabel() == ""
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == fi.results["feature"].iloc[0]  # most important on top
    assert len(ax.collections) == 2  # segments and points
    segs = ax.collections[0].get_segments()
    assert len(segs) == 5
    unsorted = fi.plot(sort=False)
    assert [t.get_text() for t in unsorted.axes[0].get_yticklabels()] == sorted(COLS)


def test_progress_only_when_asked(small, capsys):
    X, y = small
    p = Predictor(predict_function=linear, data=X, y=y)
    FeatureImp(p, "mse", random_state=1)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    FeatureImp(p, "mse", random_state=1, progress=True)
    assert "FeatureImp" in capsys.readouterr().err


def test_cyclic_copy_helper():
    from pyiml._design import _fill_cyclic

    col = np.arange(7.0)
    for s, e in [(0, 0), (0, 3), (3, 5), (5, 30), (7, 14), (13, 13), (2, 9), (0, 70), (6, 8)]:
        out = np.empty(e - s)
        _fill_cyclic(out, col, s, e)
        np.testing.assert_array_equal(out, col[np.arange(s, e) % 7])


def test_patched_buffer_equals_fresh_designs_with_overlapping_groups():
    # with batch_size >= n the design buffer is patched in place (permuted columns written,
    # restored only when the next batch does not permute them again); with batch_size < n every
    # design is built afresh: the errors must be the same, groups sharing columns included
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    y = np.sin(X.a) + X.b * X.c + X.d

    def f(d):
        return np.sin(d["a"].to_numpy()) + d["b"].to_numpy() * d["c"].to_numpy() + d["d"].to_numpy() ** 2

    groups = {"g1": ["a", "b"], "g2": ["b", "c"], "g3": ["d"], "g4": ["a", "b", "c", "d"], "g5": ["c"]}
    errs = {}
    for bs in (50, 200, 600, 2000):
        for jobs in (1, 2):  # n_jobs=2 splits the groups into chunks that share the thread's buffer
            fi = FeatureImp(Predictor(predict_function=f, data=X, y=y, batch_size=bs), "mae", features=groups,
                            n_repetitions=4, random_state=3, n_jobs=jobs)
            assert fi._patchable() == (bs >= 200)
            errs[bs, jobs] = fi.errors["permutation.error"].to_numpy()
    for key, e in errs.items():
        np.testing.assert_array_equal(e, errs[50, 1], err_msg=str(key))


def test_target_vector_with_missing_values_is_taken_and_only_featureimp_refuses_it(small):
    """iml keeps a target with NA: only FeatureImp (whose loss needs it) fails. A vector y and a
    column of data behave alike."""
    from pyiml import FeatureEffect

    X, y = small
    y = pd.Series(y).astype("Float64")
    y[3] = pd.NA
    for p in (Predictor(predict_function=linear, data=X, y=y), Predictor(predict_function=linear, data=X.assign(t=y), y="t")):
        assert len(FeatureEffect(p, "a", method="pdp", grid_size=3).results) == 3
        with pytest.raises(ValueError, match=r"the target y \(.*\) has 1 missing value\(s\)"):
            FeatureImp(p, "mse")


def test_features_named_like_iml_s_working_columns_are_ordinary_features():
    """iml overwrites features named ``.id`` / ``.id.dist`` (its MarginalGenerator's columns) and
    ``.yhat.diff`` (ALE's): in pyiml they are features like any other, in every method."""
    from pyiml import FeatureEffect, Interaction, Shapley

    rng = np.random.default_rng(4)
    names = [".id", ".id.dist", ".yhat.diff"]
    X = pd.DataFrame({n: rng.normal(size=30) for n in names})
    plain = X.set_axis(["a", "b", "c"], axis=1)

    def f(d):
        v = d.to_numpy(dtype=float)
        return v[:, 0] + 10 * v[:, 1] + v[:, 0] * v[:, 2]

    y = f(X) + rng.normal(size=30)
    p, q = Predictor(predict_function=f, data=X, y=y), Predictor(predict_function=f, data=plain, y=y)
    back = dict(zip(["a", "b", "c"], names))
    got = FeatureImp(p, "mae", random_state=2).results
    want = FeatureImp(q, "mae", random_state=2).results.replace({"feature": back})
    pd.testing.assert_frame_equal(got, want)
    got = Interaction(p, grid_size=5, random_state=2).results
    want = Interaction(q, grid_size=5, random_state=2).results.replace({".feature": back})
    pd.testing.assert_frame_equal(got, want)
    for name, short in zip(names, ["a", "b", "c"]):
        for method in ("ale", "pdp"):
            pd.testing.assert_frame_equal(FeatureEffect(p, name, method=method, grid_size=4).results,
                                          FeatureEffect(q, short, method=method, grid_size=4).results.rename(
                                              columns={short: name}))
    got = Shapley(p, X.iloc[[0]], sample_size=20, random_state=2).results
    want = Shapley(q, plain.iloc[[0]], sample_size=20, random_state=2).results
    assert got["phi"].tolist() == want["phi"].tolist() and got["feature"].tolist() == names


def test_label_loss_on_one_probability_column_warns_when_no_prediction_reads_as_a_label():
    """Label target, one output column (class_) and ce/f1: the probabilities are compared with
    the labels as text, as in R; when none reads as a label the error is 1 (ce) whatever the
    model, and pyiml says so. Where some do (exact 0/1 against levels "0"/"1"), no warning."""
    X = pd.DataFrame({"a": [0.1, 0.9, 0.4, 0.7, 0.2, 0.8], "b": [1.0, 2, 3, 4, 5, 6]})
    y = pd.Categorical(["no", "yes", "no", "yes", "no", "yes"])
    model = lambda d: pd.DataFrame({"no": 1 - d["a"].to_numpy(), "yes": d["a"].to_numpy()})  # noqa: E731
    for loss in ("ce", "f1"):
        with pytest.warns(UserWarning, match=rf"loss='{loss}' compares y's labels \(\['no', 'yes'\]\) with the "
                                             r"model's one output column \('yes'\), which holds numbers such as "
                                             r"0.1.*on='prob'"):
            fi = FeatureImp(Predictor(predict_function=model, data=X, y=y, class_="yes"), loss, random_state=1)
        assert fi.original_error == {"ce": 1.0, "f1": 0.0}[loss]
    hard = lambda d: pd.DataFrame({"0": (d["a"] <= 0.5).astype(float), "1": (d["a"] > 0.5).astype(float)})  # noqa: E731
    y01 = pd.Categorical(["0", "1", "0", "0", "0", "1"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fi = FeatureImp(Predictor(predict_function=hard, data=X, y=y01, class_="1"), "ce", random_state=1)
    assert fi.original_error == pytest.approx(1 / 6)
    # a logical target (iml's y = Species == "setosa", class = "setosa") is 1/0 against the numbers:
    # warned about with probabilities, not with predictions that are 0 or 1
    yb = np.array([False, True, False, True, False, True])
    with pytest.warns(UserWarning, match=r"loss='ce' compares y's labels \(\['0', '1'\]\) with the model's one "
                                         r"output column \('yes'\), which holds numbers such as 0.1"):
        assert FeatureImp(Predictor(predict_function=model, data=X, y=yb, class_="yes"), "ce",
                          random_state=1).original_error == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fi = FeatureImp(Predictor(predict_function=hard, data=X, y=y01.astype(str) == "1", class_="1"), "ce",
                        random_state=1)
    assert fi.original_error == pytest.approx(1 / 6)


def test_label_loss_against_probabilities_warns_when_some_predictions_are_no_label():
    """iml #223: ce with class_ and y = (label == class) compares the probability with TRUE/FALSE,
    so every probability strictly between 0 and 1 counts as an error. The warning came only when
    no prediction was exactly 0 or 1; now it counts the predictions that read as no label."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    y = X["a"] > 0
    p = Predictor(predict_function=lambda d: np.clip(np.where(d["a"] > 1, 1.0, 0.5 + d["a"] / 4), 0, 1), data=X, y=y)
    with pytest.warns(UserWarning, match=r"\b(\d+) of 40 predictions read as no label") as rec:
        FeatureImp(p, "ce", n_repetitions=1, random_state=1)
    k = int(re.search(r"(\d+) of 40", str(rec[0].message)).group(1))
    assert k == int(((X["a"] > -2) & (X["a"] <= 1)).sum())   # every prediction but the exact 0s and 1s
    exact = Predictor(predict_function=lambda d: (d["a"] > 0).to_numpy(dtype=float), data=X, y=y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # 0/1 predictions are labels: no warning
        FeatureImp(exact, "ce", n_repetitions=1, random_state=1, compare="difference")


@pytest.mark.skipif(not hasattr(Exception, "add_note"), reason="exception notes need Python >= 3.11")
def test_callable_loss_on_labels_and_probabilities_says_how_to_fix():
    """iml #134: a probability loss written as a function gets y's labels and the class_
    probability; the note says so and names on='prob'."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30)})
    y = pd.Series(np.where(X["a"] > 0, "yes", "no"))

    def model(d):
        p = 1 / (1 + np.exp(-d["a"].to_numpy()))
        return pd.DataFrame({"no": 1 - p, "yes": p})

    def brier(actual, predicted):
        return float(np.mean((np.asarray(actual) - np.asarray(predicted)) ** 2))

    p = Predictor(predict_function=model, data=X, y=y, class_="yes")
    with pytest.raises(TypeError) as info:
        FeatureImp(p, brier, n_repetitions=1, random_state=1)
    notes = " ".join(info.value.__notes__)
    assert "class labels (such as 'no')" in notes and "on='prob'" in notes
    imp = FeatureImp(p, brier, n_repetitions=1, random_state=1, on="prob")
    assert imp.results["feature"].iloc[0] == "a"


def test_several_target_columns_warn_that_the_first_is_used():
    """y with two columns and class_ selecting the second output: iml (and pyiml, for parity)
    scores the output against the first column; pyiml says so."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    Y = pd.DataFrame({"y1": 2 * X["a"], "y2": -X["b"]})
    p = Predictor(predict_function=lambda d: pd.DataFrame({"o1": 2 * d["a"], "o2": -d["b"]}), data=X, y=Y,
                  class_="o2")
    with pytest.warns(UserWarning, match=r"y has 2 columns \['y1', 'y2'\].*with the first, 'y1'"):
        imp = FeatureImp(p, "mse", n_repetitions=1, random_state=1)
    assert imp.original_error == pytest.approx(float(np.mean((-X["b"] - Y["y1"]) ** 2)))


def test_float_target_matches_a_classifier_fitted_on_it():
    """A classifier fitted on a float target names its classes '0.0', '1.0', '2.0'; y's values
    are matched to them as numbers (were written '0', '1', '2' as R writes them: no match, an
    error of 1 and every importance 1)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(9)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    y = np.digitize(X["a"] + 0.3 * rng.normal(size=200), [-0.5, 0.5]).astype(float)
    m = LogisticRegression().fit(X, y)
    p = Predictor(m, data=X.assign(y=y), y="y")
    assert p.predict(X.head(2)).columns.tolist() == ["0.0", "1.0", "2.0"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        imp = FeatureImp(p, "ce", n_repetitions=2, random_state=1)
    assert imp.original_error == pytest.approx(1 - (m.predict(X) == y).mean())
    assert imp.results["feature"].iloc[0] == "a" and imp.results["importance"].iloc[0] > 2
    prob = FeatureImp(p, "mse", n_repetitions=2, random_state=1, on="prob")
    assert prob.results["feature"].iloc[0] == "a"


def test_numeric_target_with_labels_the_model_never_saw_matches_the_rest_by_value():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    y = (X["a"] > 0).astype(float)
    m = LogisticRegression().fit(X, y)
    y2 = y.copy()
    y2.iloc[:5] = 2.0                                  # a label the model never predicts: counted wrong
    p = Predictor(m, data=X.assign(y=y2), y="y")
    ok = Predictor(LogisticRegression().fit(X, y.astype(int)), data=X.assign(y=y2.astype(int)), y="y")
    for kw in ({}, {"on": "prob"}):
        loss = "ce" if not kw else "mse"
        got = FeatureImp(p, loss, n_repetitions=1, random_state=1, **kw).original_error
        assert got == FeatureImp(ok, loss, n_repetitions=1, random_state=1, **kw).original_error


@pytest.mark.parametrize("on", ["label", "prob"])
def test_several_outputs_of_a_regression_model_get_regression_advice(on):
    """A multi-output regressor with a numeric loss: refused (iml turns the outputs into labels),
    with class_= as the fix, not the classifier's advice (label losses, class probabilities)."""
    from sklearn.linear_model import LinearRegression
    from sklearn.multioutput import MultiOutputRegressor

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    Y = pd.DataFrame({"ya": 2 * X["a"], "yb": X["b"] - X["a"]})
    m = MultiOutputRegressor(LinearRegression()).fit(X, Y)
    with pytest.raises(ValueError, match=r"regression model has several output columns \(\['1', '2'\].*class_=") as e:
        FeatureImp(Predictor(m, data=X, y=Y), loss="mse", on=on)
    assert "'ce'" not in str(e.value) and "probabilit" not in str(e.value)
    fi = FeatureImp(Predictor(m, data=X, y=Y["yb"], class_="2"), loss="mse", random_state=1)   # the fix works
    assert set(fi.results["feature"]) == {"a", "b"} and (fi.results["importance"] > 1).all()
