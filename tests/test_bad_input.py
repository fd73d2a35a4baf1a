"""Bad input across the public API: a ValueError/TypeError whose message names the argument and
the fix, and the caller's objects left as they were (also after the error).

Each case builds its objects itself; the model is a cheap function, so the whole file runs in a
few seconds.
"""
import copy

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

matplotlib.use("Agg")

from pyiml import (FeatureEffect, FeatureEffects, FeatureImp, Interaction, LocalModel, Predictor,  # noqa: E402
                   Shapley, TreeSurrogate, losses)

N = 30


def _df():
    rng = np.random.default_rng(3)
    return pd.DataFrame({
        "a": rng.normal(size=N),
        "b": rng.integers(0, 5, size=N),
        "c": pd.Categorical(rng.choice(["x", "y", "z"], size=N)),
        "y": rng.normal(size=N),
    })


def f_reg(nd):
    return nd["a"].to_numpy() * 2 + nd["b"].to_numpy() + (nd["c"].astype(str).to_numpy() == "x")


def f_cls(nd):
    s = 1 / (1 + np.exp(-nd["a"].to_numpy()))
    return pd.DataFrame({"setosa": s / 2, "versicolor": s / 2, "virginica": 1 - s})


def pred(data=None, fn=f_reg, **kw):
    kw.setdefault("y", "y")
    return Predictor(predict_function=fn, data=_df() if data is None else data, **kw)


def x1():
    return _df().drop(columns="y").iloc[[3]]


def _frozen(objs):
    return [copy.deepcopy(o) for o in objs]


def _same(a, b):
    if isinstance(a, pd.DataFrame):
        return (a.equals(b) and list(a.columns) == list(b.columns) and a.index.equals(b.index)
                and list(a.dtypes) == list(b.dtypes))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return True


def check(call, exc, match, *watch):
    """``call()`` raises ``exc`` matching ``match``; the objects in ``watch`` are unchanged."""
    before = _frozen(watch)
    with pytest.raises(exc, match=match):
        call()
    for b, a in zip(before, watch):
        assert _same(b, a), "the caller's input was modified"


# ---------------------------------------------------------------------------- Predictor and Data
def test_model_without_predict_names_model():
    # was "TypeError: 'NoneType' object is not callable" (the argument `type` shadowed the builtin)
    d = _df()
    check(lambda: Predictor(model="lm", data=d), TypeError, "model of type str has no predict method", d)
    check(lambda: Predictor(model=3, data=d), TypeError, "model of type int has no predict method", d)


def test_zero_row_data():
    # was accepted; every method then failed inside numpy ("zero-size array to reduction ...")
    d = _df().iloc[:0]
    check(lambda: pred(d), ValueError, "data has no rows", d)


def test_dot_y_column_beside_target_vector():
    # was: the feature ".y" silently disappeared from the features
    d = _df().rename(columns={"y": ".y"})
    check(lambda: pred(d, y=np.arange(N, dtype=float)), ValueError, r"column named '\.y'.*rename", d)
    assert pred(d, y=".y").data.y_names == [".y"]


@pytest.mark.parametrize("output, exc, match", [
    # were: "unhashable type: 'dict'", a one-hot column "None", "'<' not supported ...", an empty
    # prediction (then IndexError in FeatureImp), duplicated output columns, a one-hot row of zeros,
    # and "non-numeric" for a nullable Float64 vector
    (lambda nd: {"p": np.ones(len(nd))}, TypeError, "predict_function returned dict"),
    (lambda nd: None, TypeError, "predict_function returned None"),
    (lambda nd: np.array([None] * len(nd), dtype=object), ValueError, "predict_function returned missing class labels"),
    (lambda nd: pd.Series(pd.Categorical(["u"] * (len(nd) - 1) + [None])), ValueError,
     "predict_function returned missing class labels"),
    (lambda nd: np.array([1, "a"] * (len(nd) // 2), dtype=object), ValueError,
     "predict_function returned class labels of mixed types"),
    (lambda nd: np.ones((len(nd), 0)), ValueError, "predict_function returned no prediction columns"),
    (lambda nd: pd.DataFrame(np.ones((len(nd), 2)), columns=["q", "q"]), ValueError,
     r"predict_function returned a DataFrame with duplicated column names \['q'\]"),
    (lambda nd: pd.DataFrame({"q": pd.array([pd.NA] + [1.0] * (len(nd) - 1), dtype="Float64")}), ValueError,
     "predict_function returned NaN"),
    # already clear before
    (lambda nd: np.ones(len(nd) + 1), ValueError, "predict_function returned 31 predictions for 30 rows"),
    (lambda nd: np.full(len(nd), np.nan), ValueError, "predict_function returned NaN"),
    (lambda nd: np.ones((len(nd), 2, 2)), ValueError, "predict_function returned an array of shape"),
    (lambda nd: pd.DataFrame({"q": ["a"] * len(nd), "r": np.ones(len(nd))}), ValueError, "non-numeric"),
])
def test_bad_prediction_output(output, exc, match):
    d = _df()
    p = Predictor(predict_function=output, data=d, y="y")
    check(lambda: p.predict(d), exc, match, d)
    check(lambda: FeatureImp(Predictor(predict_function=output, data=d, y="y"), "mae", n_repetitions=1),
          exc, match, d)


def test_nullable_numeric_prediction_is_accepted():
    d = _df()
    out = pred(d, fn=lambda nd: pd.Series(nd["a"].to_numpy(), dtype="Float64")).predict(d)
    np.testing.assert_array_equal(out["pred"].to_numpy(), d["a"].to_numpy())


def test_newdata_missing_feature_names_the_columns():
    # was the model's own KeyError: 'a'
    d = _df()
    p = pred(d)
    nd = d.drop(columns="a")
    check(lambda: p.predict(nd), ValueError, r"newdata is missing the feature column\(s\) \['a'\]", d, nd)


def test_newdata_missing_unused_feature_still_predicts():
    # iml keeps the columns newdata has: a model that does not need the missing one still works
    d = _df()
    p = pred(d, fn=lambda nd: nd["a"].to_numpy())
    np.testing.assert_array_equal(p.predict(d.drop(columns="b"))["pred"].to_numpy(), d["a"].to_numpy())


def test_model_error_propagates_with_a_note():
    d = _df()
    p = pred(d, fn=lambda nd: 1 / 0)
    with pytest.raises(ZeroDivisionError) as info:
        p.predict(d)
    assert any("raised by the predict_function" in n for n in info.value.__notes__)


def test_unfitted_sklearn_classifier():
    # was AttributeError: 'LogisticRegression' object has no attribute 'classes_'
    d = _df()
    check(lambda: Predictor(LogisticRegression(), data=d, y="y"), ValueError, "model: .*no classes_.*fit", d)


@pytest.mark.parametrize("kw, exc, match", [
    ({"y": "nope"}, ValueError, "y='nope' is not a column of data"),
    ({"y": np.arange(3.0)}, ValueError, "y has length 3 but data has 30 rows"),
    ({"y": np.array(["y"])}, ValueError, "y has length 1 but data has 30 rows.*pass the string y='y'"),
    ({"batch_size": 0}, ValueError, "batch_size must be a number >= 1"),
    ({"class_": 1.5}, TypeError, "class_ must be a class label"),
    ({"type": 3}, TypeError, "type must be a string"),
    ({"foo": 3}, TypeError, r"unexpected argument\(s\) \['foo'\]"),
])
def test_predictor_arguments_already_clear(kw, exc, match):
    d = _df()
    check(lambda: Predictor(predict_function=f_reg, data=d, **kw), exc, match, d)


def test_target_indexed_by_data_labels_in_another_order_is_refused():
    """A Series/DataFrame y whose index is data's index in another order (one shuffled or sorted
    without the other) pairs differently by position (iml, scikit-learn) and by label (pandas);
    pyiml refuses to guess and names both fixes. y on the same index, on an unrelated index, or
    as an array is taken by position."""
    d = _df().set_index(pd.Index(np.arange(100, 100 + N)))
    shuffled = d.sample(frac=1, random_state=1)
    X = shuffled.drop(columns="y")
    for y in (d["y"], d[["y"]].rename(columns={"y": "target"})):
        check(lambda: Predictor(predict_function=f_reg, data=X, y=y), ValueError,
              r"y's index holds the labels of data's index in another order.*by position.*by label.*"
              r"y\.loc\[data\.index\].*y\.to_numpy\(\)",
              X)
    want = shuffled["y"].to_numpy()
    for y in (d["y"].loc[X.index], pd.Series(want, index=range(N)), want):
        got = Predictor(predict_function=f_reg, data=X, y=y).data.y.iloc[:, 0].to_numpy()
        np.testing.assert_array_equal(got, want)


def test_data_types_already_clear():
    d = _df()
    check(lambda: Predictor(predict_function=f_reg, data=d.to_numpy()), TypeError, "data must be a pandas DataFrame")
    check(lambda: Predictor(predict_function=f_reg, data=d.assign(t=pd.date_range("2020", periods=N))),
          TypeError, r"column 't' has unsupported dtype datetime64.*dt\.days", d)
    check(lambda: Predictor(predict_function=f_reg, data=d.assign(t=pd.to_timedelta(np.arange(N), unit="D"))),
          TypeError, r"column 't' has unsupported dtype timedelta64.*total_seconds", d)
    check(lambda: Predictor(predict_function=f_reg, data=d.assign(t=np.ones(N) * (1 + 1j))),
          TypeError, r"column 't' has unsupported dtype complex128.*\.real and \.imag", d)
    check(lambda: Predictor(predict_function=f_reg, data=pd.DataFrame(np.ones((5, 3)))), TypeError,
          "column names must be strings")
    check(lambda: pred(d.assign(o=np.nan)), ValueError, r"feature column\(s\) \['o'\] contain only missing", d)


def test_unknown_class_already_clear():
    d = _df()
    check(lambda: Predictor(predict_function=f_cls, data=d, y="y", class_="nope").predict(d), ValueError,
          "class_=\\['nope'\\] is not among the prediction columns", d)


# ---------------------------------------------------------------------------- x_interest / newdata
def test_x_interest_duplicated_columns():
    # was pandas' "Per-column arrays must each be 1-dimensional"
    p = pred()
    x = pd.concat([x1(), x1()[["a"]]], axis=1)
    check(lambda: Shapley(p, x, sample_size=3), ValueError, r"x_interest has duplicated column names \['a'\]", x)
    check(lambda: LocalModel(p, x, k=2), ValueError, "x_interest has duplicated column names", x)
    check(lambda: TreeSurrogate(p).predict(x), ValueError, "newdata has duplicated column names", x)


def test_empty_newdata_says_predict():
    x = x1().iloc[:0]
    check(lambda: TreeSurrogate(pred()).predict(x), ValueError,
          "newdata has no rows: pass at least one row to predict$", x)


def test_x_interest_numeric_strings_rejected():
    # were silently converted to numbers
    p = pred()
    x = x1().assign(a="1.0")
    check(lambda: Shapley(p, x, sample_size=3), TypeError, "x_interest: column 'a' must be numeric", x)
    check(lambda: LocalModel(p).explain(x), TypeError, "x_interest: column 'a' must be numeric", x)


@pytest.mark.parametrize("x, exc, match", [
    (lambda x: x.drop(columns="a"), ValueError, "Missing columns: a"),
    (lambda x: x.assign(a=np.nan), ValueError, r"x_interest has missing values in column\(s\) \['a'\]"),
    (lambda x: x.assign(c="w"), ValueError, "x_interest: column 'c' has value"),
    (lambda x: x.assign(b=1.5), ValueError, "x_interest: column 'b' is an integer feature"),
    (lambda x: x.iloc[:0], ValueError, "x_interest has no rows"),
    (lambda x: x.to_numpy(), TypeError, "x_interest must be a pandas DataFrame"),
])
def test_x_interest_already_clear(x, exc, match):
    p = pred()
    xi = x(x1())
    check(lambda: Shapley(p, xi, sample_size=3), exc, match, xi)


def test_x_interest_legit_variants_accepted():
    p = pred()
    ref = Shapley(p, x1(), sample_size=5, random_state=1).results
    for xi in (x1().set_index(pd.Index([100])), x1()[["c", "b", "a"]], x1().assign(c="x" if x1()["c"].iloc[0] == "x"
                                                                                   else x1()["c"].iloc[0])):
        res = Shapley(p, xi, sample_size=5, random_state=1).results
        np.testing.assert_allclose(res["phi"].to_numpy(), ref["phi"].to_numpy())


# ---------------------------------------------------------------------------- FeatureImp
def test_featureimp_nan_target():
    # was accepted, importances computed against NaN
    d = _df()
    d.loc[0, "y"] = np.nan
    check(lambda: FeatureImp(pred(d), "mae"), ValueError, r"target y \('y'\) has 1 missing value", d)


@pytest.mark.parametrize("loss, exc, match", [
    # were "only size-1 arrays ...", "could not convert string to float", "<lambda>() takes 1 ..."
    (lambda a, p: np.abs(a - p), TypeError, "loss must return one number.*shape"),
    (lambda a, p: "x", TypeError, "loss must return one number"),
    (lambda a: 0.0, TypeError, r"loss must be a loss name or a function loss\(actual, predicted\)"),
    # already clear
    ("nope", ValueError, "loss='nope' is not a known loss"),
    (3, TypeError, "loss must be a loss name or a callable"),
])
def test_featureimp_loss(loss, exc, match):
    d = _df()
    check(lambda: FeatureImp(pred(d), loss, n_repetitions=1), exc, match, d)


def test_featureimp_number_loss_on_several_outputs():
    # was losses' TypeError "this loss needs numeric actual and predicted values", naming neither
    # the loss argument nor on='prob'
    d = _df().assign(y=lambda t: np.where(t["a"] > 0, "virginica", "setosa"))
    for loss in ("logLoss", "mae"):
        check(lambda: FeatureImp(Predictor(predict_function=f_cls, data=d, y="y"), loss, n_repetitions=1),
              ValueError, rf"loss='{loss}' needs numbers, but the model has several output columns.*on='prob'", d)


def test_type_for_a_model_without_types():
    # was silently ignored
    from sklearn.linear_model import LinearRegression
    d = _df()
    X = d[["a", "b"]]
    m = LinearRegression().fit(X, d["y"])
    check(lambda: Predictor(m, data=X, type="prob"), ValueError,
          "type='prob' is used only with a scikit-learn classifier.*LinearRegression", X)
    assert list(Predictor(m, data=X, type="response").predict(X).columns) == ["pred"]


def test_featureimp_loss_error_gets_a_note():
    with pytest.raises(ZeroDivisionError) as info:
        FeatureImp(pred(), lambda a, p: 1 / 0, n_repetitions=1)
    assert any("loss function" in n for n in info.value.__notes__)


def test_losses_reject_none():
    # were 0.0 (None compared with None)
    for fn in (losses.ce, losses.f1):
        with pytest.raises(TypeError, match="actual and predicted must be vectors"):
            fn(None, None)
    with pytest.raises(ValueError, match="actual and predicted must have the same length"):
        losses.mae([1.0, 2.0], [1.0])


# ---------------------------------------------------------------------------- FeatureEffect
def test_grid_points_unknown_level_names_grid_points():
    p = pred()
    check(lambda: FeatureEffect(p, "c", method="pdp", grid_points=["x", "nope"]), ValueError,
          r"grid_points: values \['nope'\] are not levels")


def test_ale_numcat_grid_points_keeping_one_level_say_so():
    """Was: "feature 'c' has 1 level(s) in the data", of a feature with 3 levels in the data."""
    d = _df()
    lo = float(d["a"].min())
    near = np.sort(d["a"].to_numpy())[:2]          # the two lowest rows: make them one level
    d.loc[d["a"].isin(near), "c"] = "x"
    check(lambda: FeatureEffect(pred(d), ["a", "c"], method="ale", grid_points=[lo, float(near[1])]), ValueError,
          r"feature 'c' has 1 level\(s\) in the 2 rows inside the grid points of 'a' .*widen those grid points", d)


@pytest.mark.parametrize("data, exc, match", [
    # were accepted (None -> [nan]) or numpy's "could not convert string to float" / "float() argument"
    (None, TypeError, "data must be a DataFrame with the column 'a'"),
    ({"a": [0.1]}, TypeError, "data must be a DataFrame with the column 'a'"),
    (np.ones((2, 3)), TypeError, r"data must be a DataFrame .* of shape \(2, 3\)"),
    (pd.DataFrame({"a": ["u"]}), TypeError, "data: the values of the numerical feature 'a' must be numbers"),
    # already clear
    (pd.DataFrame({"b": [1]}), ValueError, "data has no column 'a'"),
])
def test_feature_effect_predict_data(data, exc, match):
    fe = FeatureEffect(pred(), "a", method="pdp", grid_size=5)
    check(lambda: fe.predict(data), exc, match)


@pytest.mark.parametrize("kw, exc, match", [
    ({"rug": "x"}, TypeError, "rug must be True or False"),
    ({"show_data": "x"}, TypeError, "show_data must be True or False"),
    ({"ylim": "x"}, TypeError, "ylim must be None or a pair of numbers"),
    ({"ylim": (0, 1, 2)}, TypeError, "ylim must be None or a pair of numbers"),
    # was matplotlib's "Axis limits cannot be NaN or Inf" after the figure was half drawn
    ({"ylim": (-np.inf, 1)}, ValueError, r"ylim must be finite.*use None \(or NaN\)"),
    ({"ylim": (0, float("inf"))}, ValueError, "ylim must be finite"),
])
def test_feature_effect_plot_arguments(kw, exc, match):
    fe = FeatureEffect(pred(), "a", method="pdp", grid_size=5)
    check(lambda: fe.plot(**kw), exc, match)


@pytest.mark.parametrize("kw, exc, match", [
    # were ZeroDivisionError, "unsupported operand type(s)", matplotlib's "figure size must be positive"
    ({"ncols": 0}, ValueError, "ncols must be a whole number >= 1"),
    ({"ncols": "2"}, ValueError, "ncols must be a whole number >= 1"),
    ({"nrows": -1}, ValueError, "nrows must be a whole number >= 1"),
    ({"fixed_y": "x"}, TypeError, "fixed_y must be True or False"),
    ({"foo": 1}, TypeError, r"unexpected argument\(s\) \['foo'\]"),
    # already clear
    ({"features": ["zz"]}, ValueError, "were not computed"),
    ({"ncols": 1, "nrows": 1}, ValueError, "cannot hold"),
])
def test_feature_effects_plot_arguments(kw, exc, match):
    fes = FeatureEffects(pred(), method="pdp", grid_size=3)
    check(lambda: fes.plot(**kw), exc, match)


@pytest.mark.parametrize("kw, exc, match", [
    ({"feature": "zz"}, ValueError, r"feature \['zz'\] is not a feature"),
    ({"feature": 0}, TypeError, "feature must be a feature name .* not iml's 1-based indices"),
    ({"feature": "a", "method": "shap"}, ValueError, "method must be one of"),
    ({"feature": "a", "grid_size": 1}, ValueError, "grid_size must be at least 2"),
    ({"feature": "a", "center_at": "0"}, ValueError, "center_at must be a finite number"),
    ({"feature": "a", "grid_points": [0.0, np.nan]}, ValueError, "grid_points .* must be finite numbers"),
])
def test_feature_effect_arguments_already_clear(kw, exc, match):
    d = _df()
    check(lambda: FeatureEffect(pred(d), **kw), exc, match, d)


# ---------------------------------------------------------------------------- Shapley, LocalModel, plots
@pytest.mark.parametrize("kw, exc, match", [
    # were accepted (int("1"), int(1.5), True as row 1, id=2 of one row ignored) or "cannot convert
    # float NaN to integer"
    ({"id": "1"}, TypeError, "id must be a whole number"),
    ({"id": 1.5}, TypeError, "id must be a whole number"),
    ({"id": True}, TypeError, "id must be a whole number"),
    ({"id": np.nan}, TypeError, "id must be a whole number"),
    ({"id": 2}, ValueError, "id must be between 1 and 1"),
    ({"sort": "no"}, TypeError, "sort must be True or False"),
])
def test_shapley_plot_arguments(kw, exc, match):
    sh = Shapley(pred(), x1(), sample_size=3)
    check(lambda: sh.plot(**kw), exc, match)


def test_plot_before_explain_says_explain():
    p = pred()
    with pytest.raises(RuntimeError, match=r"call explain\(x_interest\)"):
        Shapley(p, sample_size=3).plot()
    with pytest.raises(RuntimeError, match=r"call explain\(x_interest\)"):
        LocalModel(p, k=2).plot()


def test_sort_arguments():
    p = pred()
    with pytest.raises(TypeError, match="sort must be True or False"):
        FeatureImp(p, "mae", n_repetitions=1).plot(sort="no")
    with pytest.raises(TypeError, match="sort must be True or False"):
        Interaction(p, grid_size=3).plot(sort=None)


def test_local_model_constant_prediction():
    # was glmnet's "y is constant; gaussian glmnet fails at standardization step"
    p = pred(fn=lambda nd: np.ones(len(nd)))
    check(lambda: LocalModel(p, x1(), k=2), ValueError,
          r"model predicts the same value \(1\) for every row with a positive weight")


@pytest.mark.parametrize("kw, exc, match", [
    ({"k": 4}, ValueError, "k must be a whole number between 1 and 3"),
    ({"dist_fun": "cosine"}, ValueError, "dist_fun must be one of"),
    ({"dist_fun": "euclidean"}, ValueError, "kernel_width must be given"),
    ({"gower_power": -1}, ValueError, "gower_power must be a finite number > 0"),
])
def test_local_model_arguments_already_clear(kw, exc, match):
    x = x1()
    check(lambda: LocalModel(pred(), x, **kw), exc, match, x)


# ---------------------------------------------------------------------------- TreeSurrogate
def test_tree_args_value_types():
    # a string mincriterion was "'>' not supported between instances of 'str' and 'int'"
    p = pred()
    with pytest.raises(ValueError, match="mincriterion must be a number"):
        TreeSurrogate(p, tree_args={"mincriterion": "x"})
    with pytest.raises(ValueError, match="alpha must be a number"):
        TreeSurrogate(p, tree_args={"alpha": None})
    with pytest.raises(ValueError, match="'foo' is not a ctree_control option"):
        TreeSurrogate(p, tree_args={"foo": 1})


def test_interaction_arguments_already_clear():
    d = _df()
    check(lambda: Interaction(pred(d), "zz"), ValueError, "feature='zz' is not a feature", d)
    check(lambda: Interaction(pred(d), grid_size=1), ValueError, "grid_size must be >= 2", d)


# ---------------------------------------------------------------------------- r_bridge (no R needed)
def test_r_bridge_argument_types():
    import r_bridge

    with pytest.raises(TypeError, match="type must be None or a string"):
        r_bridge.as_r_predict_function(f_reg, type=3)
    with pytest.raises(TypeError, match="packages must be R package names"):
        r_bridge.RModel("lm(y ~ x)", packages=3)


@pytest.mark.parametrize("cls, kw, exc, match", [
    # FeatureEffects took an index as an unknown feature (ValueError "features [0] are not ...")
    (FeatureEffects, {"features": [0]}, TypeError, r"features must be feature names \(str\), got \[0\]"),
    # iml's 1-based index 3 (the third feature, c) was named neither way
    (Interaction, {"feature": 3}, TypeError, r"got the number 3 \('c' at iml's 1-based index 3\)"),
    (Interaction, {"feature": 1}, TypeError,
     r"\('b' at 0-based position 1, 'a' at iml's 1-based index 1\)"),
    # the message listed the whole argument, not the repeated names
    (FeatureImp, {"loss": "mae", "features": ["a", "b", "a"]}, ValueError,
     r"duplicated names \['a'\]: give each feature once"),
])
def test_feature_arguments_name_the_problem(cls, kw, exc, match):
    d = _df()
    check(lambda: cls(pred(d), **kw), exc, match, d)


def test_local_model_one_row_class_suggests_class_():
    d = _df()
    x = d.drop(columns="y").iloc[[0]]

    def f3(nd):   # class "c" is the most probable class of exactly one row
        a = nd["a"].to_numpy()
        top = (a == d["a"].max()).astype(float)
        return pd.DataFrame({"p": (a > 0) * (1 - top) * 0.8 + 0.1, "q": (a <= 0) * (1 - top) * 0.8 + 0.1,
                             "c": top * 0.9})
    check(lambda: LocalModel(pred(d, fn=f3), x, k=1), ValueError,
          r"most probable class of only one row.*class_=", d)


def test_data_without_a_column_the_model_was_fitted_with():
    # was found only when a method predicted, in a message that named data's other columns
    from sklearn.linear_model import LinearRegression
    d = _df()
    m = LinearRegression().fit(d[["a", "b"]], d["y"])
    data = d[["a", "y"]].assign(q=1.0)
    check(lambda: Predictor(m, data=data, y="y"), ValueError,
          r"data lacks the feature column\(s\) \['b'\] that the LinearRegression model was fitted with", data)
    check(lambda: Predictor(m, data=d[["a", "b"]].assign(y=d["b"]), y="b"), ValueError,
          r"fitted with the column\(s\) \['b'\] .*which this Predictor takes as the target y")


def test_target_frame_with_duplicated_names():
    # was AttributeError: 'DataFrame' object has no attribute 'dtype'
    d = _df().drop(columns="y")
    y = pd.DataFrame(np.ones((N, 2)), columns=["t", "t"])
    check(lambda: Predictor(predict_function=f_reg, data=d, y=y), ValueError,
          r"y has duplicated column names \['t'\]: make them unique", d, y)


def test_x_interest_with_int_labels_where_data_has_strings():
    # was only "Missing columns: 0, 1", which read as if the columns were absent
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(N, 2)), columns=["0", "1"])
    p = Predictor(predict_function=lambda nd: nd["0"].to_numpy() + nd["1"].to_numpy(), data=d)
    x = pd.DataFrame(d.iloc[[0]].to_numpy(), columns=[0, 1])
    hint = r"Missing columns: 0, 1 \(x_interest .*its column labels \[0, 1\] are not strings, the data's are \['0', '1'\]"
    check(lambda: Shapley(p, x, sample_size=3), ValueError, hint + r".*x_interest.rename\(columns=str\)", x)
    check(lambda: LocalModel(p, x, k=1), ValueError, hint, x)
    check(lambda: TreeSurrogate(p).predict(x), ValueError, r"newdata.rename\(columns=str\)", x)


def test_integer_feature_distinct_only_beyond_double_precision():
    # was "has only one unique value" for 20 distinct int64 values
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"i1": (2 ** 60 + np.arange(N)).astype(np.int64), "x2": rng.normal(size=N)})
    p = Predictor(predict_function=lambda nd: nd["x2"].to_numpy(), data=d)
    for method in ("pdp", "ale"):
        check(lambda: FeatureEffect(p, "i1", method=method), ValueError,
              r"'i1' has values that differ only beyond double precision .*subtract an offset", d)
    const = d.assign(i1=np.int64(5))
    q = Predictor(predict_function=lambda nd: nd["x2"].to_numpy(), data=const)
    check(lambda: FeatureEffect(q, "i1", method="pdp"), ValueError, "has only one unique value", const)


# ---------------------------------------------------------------------------- batch_size
@pytest.mark.parametrize("bs, exc", [
    # were: 1.5 silently truncated to 1; "10", None and [5] a ValueError; bools already refused
    (1.5, ValueError), (0.5, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
    (0, ValueError), (-3, ValueError), (np.int64(0), ValueError),
    ("10", TypeError), (None, TypeError), ([5], TypeError), (True, TypeError), (np.bool_(True), TypeError),
])
def test_batch_size_must_be_a_whole_number(bs, exc):
    d = _df()
    check(lambda: Predictor(predict_function=f_reg, data=d, batch_size=bs), exc,
          r"batch_size must be a number >= 1 \(a whole number of rows per model call", d)


@pytest.mark.parametrize("bs, kept", [(5, 5), (np.int64(7), 7), (np.uint8(3), 3), (2.0, 2), (1e5, 100000),
                                      (np.float64(4.0), 4), (10 ** 30, 2 ** 63 - 1), (1e300, 2 ** 63 - 1)])
def test_batch_size_whole_numbers_are_taken(bs, kept):
    # was: 10**30 a TypeError from numpy ("ufunc 'isfinite' not supported for the input types")
    p = pred(batch_size=bs)
    assert p.batch_size == kept and type(p.batch_size) is int
    fe = FeatureEffect(p, "a", method="pdp", grid_size=3)
    assert len(fe.results) == 3


@pytest.mark.parametrize("bs, exc", [(0, ValueError), (-3, ValueError), (2.5, ValueError), ("x", TypeError),
                                     (None, TypeError)])
def test_assigned_batch_size_is_checked(bs, exc):
    # was accepted; FeatureEffect then failed with "range() arg 3 must not be zero" (0), or predicted nothing
    p = pred(batch_size=50)
    with pytest.raises(exc, match="batch_size must be a number >= 1"):
        p.batch_size = bs
    assert p.batch_size == 50
    p.batch_size = 4.0
    assert p.batch_size == 4


@pytest.mark.parametrize("bs, exc", [(0, ValueError), (-3, ValueError), (2.5, ValueError), ("x", TypeError)])
def test_predict_batched_batch_size_is_checked(bs, exc):
    # were: 0 silently the predictor's batch size, -3 an empty (0, 1) array, 2.5 batches of 2
    d = _df()
    p = pred(d)
    with pytest.raises(exc, match="batch_size must be a number >= 1"):
        p.predict_batched(N, lambda s, e: d.iloc[s:e], batch_size=bs)
    calls = []
    out = p.predict_batched(N, lambda s, e: calls.append(e - s) or d.iloc[s:e], batch_size=7)
    assert out.shape == (N, 1) and max(calls) == 7
    assert p.predict_batched(N, lambda s, e: d.iloc[s:e], batch_size=None).shape == (N, 1)


def test_messages_show_numpy_scalars_as_numbers():
    """Arguments computed with numpy (center_at=X['a'].max() + 1, np.int64 sizes, np.str_ names)
    are written as Python writes them: numpy 2's reprs (np.float64(2.74), np.str_('zz')) were in
    the messages."""
    import re

    from pyiml import FeatureEffect, FeatureImp, Predictor, Shapley

    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [1.0, 0.0, 1.0, 0.0]})
    p = Predictor(data=X.assign(y=[0.0, 1.0, 1.0, 2.0]), y="y", predict_function=lambda d: d["a"] + d["b"])
    cases = [(lambda: FeatureEffect(p, "a", method="pdp", center_at=np.float64(7.5)), "center_at=7.5 is outside"),
             (lambda: FeatureEffect(p, "a", grid_size=np.int64(1)), "got 1"),
             (lambda: FeatureEffect(p, [np.str_("zz")]), "feature ['zz'] is not a feature"),
             (lambda: FeatureImp(p, "mae", features=[np.str_("zz")]), "unknown column(s) ['zz']"),
             (lambda: FeatureImp(p, "mae", n_repetitions=np.int64(0)), "got 0"),
             (lambda: FeatureEffect(p, "a").plot(ylim=(np.float64(0), np.float64(np.inf))), "got (0.0, inf)"),
             (lambda: Shapley(p, X.iloc[[0]], sample_size=np.int64(0)), "got 0")]
    for call, text in cases:
        with pytest.raises((ValueError, TypeError)) as err:
            call()
        assert text in str(err.value) and not re.search(r"np\.\w+\(", str(err.value)), str(err.value)


# ---------------------------------------------------------------- session 23 input probe
def _mixed():
    rng = np.random.default_rng(5)
    return pd.DataFrame({"a": rng.random(N), "s": rng.choice(["p", "q"], N), "bo": rng.random(N) > 0.5,
                         "ci": pd.Categorical(rng.choice([0, 1, 2], N))})


def _f_mixed(d):
    return d["a"].to_numpy() + (d["s"].to_numpy() == "p") + d["bo"].to_numpy()


@pytest.mark.parametrize("feature, points, levels", [
    ("s", ["p", "zz"], r"\['zz'\] are not levels of the categorical feature 's' \(levels: \['p', 'q'\]\)"),
    ("s", [1, 2], r"\[1, 2\] are not levels of the categorical feature 's'"),
    ("bo", ["x", 5], r"\['x', 5\] are not levels of the categorical feature 'bo' \(levels: \[False, True\]\)"),
    ("bo", [1], r"\[1\] are not levels"),
    ("bo", [True, None], r"\[None\] are not levels"),
    ("s", ["p", pd.NA], r"\[<NA>\] are not levels"),        # was: boolean value of NA is ambiguous
    ("bo", [True, pd.NA], r"\[<NA>\] are not levels"),
    (["a", "s"], [[0.5], ["zz"]], r"\['zz'\] are not levels of the categorical feature 's'"),
])
def test_grid_points_of_string_and_bool_features_must_be_their_levels(feature, points, levels):
    """Were sent to the model as they were (a string feature at 'zz') or read by numpy as bools
    (['x', 5] became [True, True]); a category column already refused them."""
    p = Predictor(predict_function=_f_mixed, data=_mixed())
    with pytest.raises(ValueError, match="grid_points: values " + levels):
        FeatureEffect(p, feature, method="pdp", grid_points=points)
    ok = FeatureEffect(p, "bo", method="pdp", grid_points=[True]).results
    assert ok["bo"].tolist() == [True]


@pytest.mark.parametrize("points, exc, msg", [
    (np.array(0.5), TypeError, r"grid_points must be a sequence of grid values, got array\(0.5\)"),
    ((v for v in [0.1, 0.2]), TypeError, r"got a generator: pass list\(...\) of it"),
    (pd.DataFrame({"a": [0.1, 0.2]}), TypeError, r"got a DataFrame: pass one of its columns, e.g. df\['a'\]"),
])
def test_grid_points_that_are_no_sequence_get_a_clear_error(points, exc, msg):
    p = Predictor(predict_function=_f_mixed, data=_mixed())
    with pytest.raises(exc, match=msg):
        FeatureEffect(p, "a", method="pdp", grid_points=points)


def test_a_zero_dimensional_array_and_fractions_are_numbers():
    """np.array(5) as grid_size and fractions.Fraction as sizes and centres failed inside numpy
    ("iteration over a 0-d array", "ufunc 'isfinite' not supported")."""
    from fractions import Fraction

    X = _mixed()
    p = Predictor(predict_function=_f_mixed, data=X)
    assert len(FeatureEffect(p, "a", method="pdp", grid_size=np.array(5)).results) == 5
    assert len(FeatureEffect(p, "a", method="pdp", grid_size=Fraction(5)).results) == 5
    fe = FeatureEffect(p, "a", method="pdp", grid_size=5, center_at=Fraction(1, 2))
    assert fe.center_at == 0.5
    assert len(Shapley(p, X.iloc[[0]], sample_size=Fraction(5), random_state=1).results) == 4
    assert Interaction(p, grid_size=Fraction(4), random_state=1).results.shape == (4, 2)
    # 0-d arrays are their numbers for every size (Interaction and Shapley said "got array(5)")
    assert Interaction(p, grid_size=np.array(4), random_state=1).results.shape == (4, 2)
    assert len(Shapley(p, X.iloc[[0]], sample_size=np.array(5), random_state=1).results) == 4
    with pytest.raises(ValueError, match="must be a whole number >= 1, got Fraction"):
        Shapley(p, X.iloc[[0]], sample_size=Fraction(5, 2))


def test_x_interest_unknown_level_message_shows_the_levels_as_values():
    """Printed as text, the levels seemed to hold the refused value ("['1'] ... (['0', '1', '2'])")."""
    X = _mixed()
    p = Predictor(predict_function=_f_mixed, data=X)
    with pytest.raises(ValueError, match=r"column 'ci' has value\(s\) \['1'\] that are not categories of the data "
                                         r"\(\[0, 1, 2\]\): the levels are not text"):
        Shapley(p, X.iloc[[0]].assign(ci=pd.Categorical(["1"])))
    with pytest.raises(ValueError, match=r"column 'bo' has value\(s\) \['True'\] .*\(\[False, True\]\)"):
        Shapley(p, X.iloc[[0]].assign(bo="True"))
    with pytest.raises(ValueError, match=r"column 's' has value\(s\) \['zz'\] that are not categories of the data "
                                         r"\(\['p', 'q'\]\)$"):
        Shapley(p, X.iloc[[0]].assign(s="zz"))


def test_features_duplicates_and_series_alike_in_every_method():
    """FeatureEffects dropped a repeated feature without a word (FeatureImp and FeatureEffect
    refuse it); a Series of names was refused by FeatureImp and FeatureEffect only."""
    X = _df()
    p = Predictor(predict_function=f_reg, data=X, y="y")
    with pytest.raises(ValueError, match=r"features contains duplicated names \['a'\]: give each feature once"):
        FeatureEffects(p, features=["a", "b", "a"])
    names = pd.Series(["a", "b"], index=[5, 7])
    assert FeatureImp(p, loss="mae", features=names, random_state=1).results["feature"].tolist() in (
        ["a", "b"], ["b", "a"])
    assert FeatureEffect(p, names, method="pdp", grid_size=3).feature_name == ["a", "b"]
    assert list(FeatureEffects(p, features=names).results) == ["a", "b"]


def test_a_target_column_the_model_reads_is_named_as_y():
    """A model reading the column given as y failed with a bare KeyError (predict_function) or
    said data "lacks" the column (scikit-learn), which data had."""
    from sklearn.linear_model import LinearRegression

    X = _df()
    p = Predictor(predict_function=f_reg, data=X, y="a")
    with pytest.raises(ValueError, match=r"the predict_function reads the column 'a', which this Predictor takes as "
                                         r"the target y"):
        FeatureEffect(p, "b", method="pdp")
    m = LinearRegression().fit(X[["a", "b"]], X["y"])
    with pytest.raises(ValueError, match=r"fitted with the column\(s\) \['a'\] \(feature_names_in_\), which this "
                                         r"Predictor takes as the target y"):
        Predictor(m, data=X, y="a")


def test_predict_refuses_duplicated_newdata_columns():
    X = _df()
    p = Predictor(predict_function=f_reg, data=X, y="y")
    nd = pd.concat([X[["a"]], X], axis=1)
    before = nd.copy()
    with pytest.raises(ValueError, match=r"newdata has duplicated column names \['a'\]: make them unique"):
        p.predict(nd)
    pd.testing.assert_frame_equal(nd, before)


def test_shapley_of_an_infinite_point_is_silent_inf_and_nan_as_in_r():
    """A model infinite at an infinite x_interest: phi is inf - finite = inf for that feature and
    inf - inf = NaN for the others, as R computes them; numpy's 'invalid value' RuntimeWarnings
    leaked from pyiml's internals."""
    import warnings

    X = _df().drop(columns="y")
    p = Predictor(predict_function=f_reg, data=X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = Shapley(p, X.iloc[[0]].assign(a=np.inf), sample_size=20, random_state=1).results
    assert res["phi"].tolist()[0] == np.inf and res["phi"].isna().tolist() == [False, True, True]
    assert res["feature.value"].tolist()[0] == "a=Inf"
    # a model that is +inf and -inf on the data: its average prediction is NaN, also silently
    q = Predictor(predict_function=lambda d: d["a"].to_numpy() * np.inf, data=X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Shapley(q, X.iloc[[0]].assign(a=-np.inf), sample_size=10, random_state=1)
