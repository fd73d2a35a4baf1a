"""Predictor and Data: iml's semantics (spec §3, §4) and clear errors on bad input."""
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression

from pyiml import Data, FeatureEffect, FeatureImp, Predictor, RRandom


@pytest.fixture
def df():
    rng = np.random.default_rng(0)
    n = 50
    return pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.integers(0, 5, size=n),
        "c": pd.Categorical(rng.choice(["x", "y", "z"], size=n)),
        "d": rng.choice(["u", "v"], size=n).astype(object),
        "e": rng.uniform(size=n) > 0.5,
        "target": rng.normal(size=n),
    })


def test_feature_types(df):
    d = Data(df, y="target")
    assert d.feature_types == {"a": "numerical", "b": "integer", "c": "categorical", "d": "categorical",
                               "e": "categorical"}
    assert d.feature_names == ["a", "b", "c", "d", "e"]
    assert d.y_names == ["target"] and d.n_rows == 50 and d.n_features == 5
    assert d.levels("e") == [False, True]
    assert list(d.get_xy().columns) == ["a", "b", "c", "d", "e", "target"]


def test_y_vector_keeps_all_columns(df):
    d = Data(df, y=np.arange(50.0))
    assert d.y_names == [".y"] and "target" in d.feature_names


def test_datetime_rejected(df):
    bad = df.assign(when=pd.date_range("2020-01-01", periods=50))
    with pytest.raises(TypeError, match="'when'.*datetime64"):
        Data(bad)


def test_mixed_object_rejected(df):
    bad = df.assign(m=[1, "a"] * 25)
    with pytest.raises(TypeError, match=r"'m'.*not all strings \(e.g. 1 of type int\).*astype\('category'\)"):
        Data(bad)
    # numbers held as objects: the fix is pd.to_numeric (a category would make a numeric feature categorical)
    with pytest.raises(TypeError, match=r"'m'.*e.g. 1.5 of type float.*df\['m'\] = pd.to_numeric\(df\['m'\]\)"):
        Data(df.assign(m=pd.Series([1.5, 2] * 25, dtype=object)))


def test_unknown_y_column(df):
    with pytest.raises(ValueError, match="y='nope' is not a column"):
        Predictor(LinearRegression(), data=df, y="nope")


def test_single_feature_rejected():
    with pytest.raises(ValueError, match="Only 1 feature"):
        Data(pd.DataFrame({"a": [1.0, 2.0], "y": [1.0, 2.0]}), y="y")


def test_all_missing_column_rejected(df):
    with pytest.raises(ValueError, match="'a'.*only missing"):
        Data(df.assign(a=np.nan))


def test_match_cols(df):
    d = Data(df, y="target")
    with pytest.warns(UserWarning, match="Dropping additional columns: target"):
        out = d.match_cols(df)
    assert list(out.columns) == d.feature_names
    with pytest.raises(ValueError, match="Missing columns: a, c"):
        d.match_cols(df.drop(columns=["a", "c"]))


def _numeric(df):
    return df[["a", "b", "target"]].assign(b=df["b"].astype(float))


def test_sklearn_regressor_column_pred(df):
    X = _numeric(df)
    m = LinearRegression().fit(X[["a", "b"]], X["target"])
    p = Predictor(m, data=X, y="target")
    out = p.predict(X)
    assert list(out.columns) == ["pred"]
    np.testing.assert_array_equal(out["pred"].to_numpy(), m.predict(X[["a", "b"]]))
    assert p.task == "regression"


def test_sklearn_model_gets_the_columns_it_was_fitted_with_in_their_order(df):
    """scikit-learn refuses columns in another order than at fit and columns it never saw; R's
    predict matches by name and ignores the rest, and so does pyiml (the model gets its own
    columns). Before, both raised inside the model."""
    from pyiml import FeatureImp

    X = _numeric(df).assign(z=np.arange(len(df), dtype=float))
    m = LinearRegression().fit(X[["b", "a"]], X["target"])            # a subset, in another order
    p = Predictor(m, data=X, y="target")
    np.testing.assert_array_equal(p.predict(X)["pred"].to_numpy(), m.predict(X[["b", "a"]]))
    imp = FeatureImp(p, loss="mae", n_repetitions=2, random_state=1).results.set_index("feature")
    assert imp.loc["z", "importance"] == 1.0 and imp.loc["a", "importance"] > 1.0
    c = LogisticRegression().fit(df[["b", "a"]], df["a"] > 0)
    pc = Predictor(c, data=df[["a", "b"]])
    np.testing.assert_array_equal(pc.predict(df)[["False", "True"]].to_numpy(), c.predict_proba(df[["b", "a"]]))
    with pytest.raises(ValueError, match=r"data lacks the feature column\(s\) \['a'\]"):   # said in Predictor
        Predictor(m, data=X.drop(columns="a"), y="target")


def test_sklearn_classifier_probabilities_and_class(df):
    X = df[["a", "b"]]
    yc = np.where(df["a"] > 0, "pos", "neg")
    m = LogisticRegression().fit(X, yc)
    p = Predictor(m, data=X)
    out = p.predict(X)
    assert list(out.columns) == ["neg", "pos"]
    np.testing.assert_allclose(out.to_numpy(), m.predict_proba(X), rtol=0, atol=0)
    p2 = Predictor(m, data=X, class_="pos")
    assert list(p2.predict(X).columns) == ["pos"]
    p3 = Predictor(m, data=X, type="class")
    lab = p3.predict(X)
    assert set(np.unique(lab.to_numpy())) <= {0.0, 1.0} and (lab.sum(axis=1) == 1).all()


def test_int_class_labels_matched_as_strings(df):
    X = df[["a", "b"]]
    m = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, (df["a"] > 0).astype(int))
    p = Predictor(m, data=X, class_=1)
    assert list(p.predict(X).columns) == ["1"]


def test_class_not_among_outputs(df):
    X = df[["a", "b"]]
    m = LogisticRegression().fit(X, np.where(df["a"] > 0, "pos", "neg"))
    p = Predictor(m, data=X, class_="maybe")
    with pytest.raises(ValueError, match=r"class_=\['maybe'\] is not among the prediction columns \['neg', 'pos'\]"):
        p.predict(X)


def test_class_given_twice_is_refused(df):
    X = df[["a", "b"]]
    m = LogisticRegression().fit(X, np.where(df["a"] > 0, "pos", "neg"))
    with pytest.raises(ValueError, match=r"class_ lists \['pos'\] more than once"):
        Predictor(m, data=X, class_=["pos", "neg", "pos"])


def test_predict_function_naming(df):
    X = _numeric(df)
    assert list(Predictor(data=X, predict_function=lambda nd: nd["a"] * 2).predict(X).columns) == ["pred"]
    # R's data.frame(pred, check.names = FALSE): "pred" for one column, "1", "2", ... for more
    two = Predictor(data=X, predict_function=lambda nd: np.c_[nd["a"], nd["b"]]).predict(X)
    assert list(two.columns) == ["1", "2"]
    one = Predictor(data=X, predict_function=lambda nd: nd[["a"]].to_numpy()).predict(X)
    assert list(one.columns) == ["pred"]
    assert list(Predictor(data=X, predict_function=lambda nd: np.c_[nd["a"], nd["b"]], class_="2").predict(X)) == ["2"]
    mp = Predictor(model="m", data=X, predict_function=lambda m, nd: nd["a"].to_numpy()).predict(X)
    assert list(mp.columns) == ["..prediction"]
    mp2 = Predictor(model="m", data=X, predict_function=lambda m, nd: np.c_[nd["a"], nd["b"]]).predict(X)
    assert list(mp2.columns) == ["..prediction.1", "..prediction.2"]
    # with a model, iml's sanitizePrediction calls data.frame(x): names made syntactic and unique
    frame = lambda m, nd: pd.DataFrame(np.c_[nd["a"], nd["b"], nd["a"]], columns=["0", "1 x", "0"])
    mp3 = Predictor(model="m", data=X, predict_function=frame).predict(X)
    assert list(mp3.columns) == ["X0", "X1.x", "X0.1"]
    np.testing.assert_array_equal(mp3["X1.x"].to_numpy(), X["b"].to_numpy())
    # without a model: data.frame(x, check.names = FALSE) keeps them (duplicates are refused)
    keep = Predictor(data=X, predict_function=lambda nd: frame(None, nd).iloc[:, :2]).predict(X)
    assert list(keep.columns) == ["0", "1 x"]
    lab = Predictor(data=X, predict_function=lambda nd: np.where(nd["a"] > 0, "p", "n")).predict(X)
    assert list(lab.columns) == ["n", "p"]


def test_predict_fun_alias_and_plain_callable(df):
    X = _numeric(df)
    a = Predictor(data=X, predict_fun=lambda nd: nd["a"]).predict(X)
    b = Predictor(lambda nd: nd["a"], data=X).predict(X)
    pd.testing.assert_frame_equal(a, b)


def test_only_feature_columns_reach_the_model(df):
    X = _numeric(df)
    seen = {}

    def f(nd):
        seen["cols"] = list(nd.columns)
        return nd["a"]

    Predictor(data=X, y="target", predict_function=f).predict(X)
    assert seen["cols"] == ["a", "b"]


def test_wrong_number_of_rows(df):
    X = _numeric(df)
    p = Predictor(data=X, predict_function=lambda nd: nd["a"].iloc[:-1])
    with pytest.raises(ValueError, match="predict_function returned 49 predictions for 50 rows"):
        p.predict(X)


def test_nan_predictions(df):
    X = _numeric(df)
    p = Predictor(data=X, predict_function=lambda nd: np.where(nd["a"] > 0, np.nan, 1.0))
    with pytest.raises(ValueError, match="Contains missing values.*predict_function returned NaN") as err:
        p.predict(X)
    assert "That row has missing values" not in str(err.value)
    # NaN in the data: the error names the row's missing features
    X2 = X.assign(b=X["b"].astype(float).where(X.index != 3))
    p2 = Predictor(data=X2, predict_function=lambda nd: nd["a"].to_numpy() * nd["b"].to_numpy())
    with pytest.raises(ValueError, match=r"row 4\).*That row has missing values in \['b'\]: impute them"):
        p2.predict(X2)


def test_argument_errors(df):
    X = _numeric(df)
    with pytest.raises(ValueError, match="Provide a model, a predict_function or both"):
        Predictor(data=X)
    with pytest.raises(ValueError, match="please provide via data="):
        Predictor(LinearRegression())
    with pytest.raises(ValueError, match="batch_size must be a number >= 1"):
        Predictor(data=X, predict_function=lambda nd: nd["a"], batch_size=0)
    with pytest.raises(TypeError, match="class_ must be"):
        Predictor(data=X, predict_function=lambda nd: nd["a"], class_=1.5)
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        Predictor(data=X.to_numpy(), predict_function=lambda nd: nd)


def test_statsmodels_results(df):
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    X = _numeric(df)
    ols = sm.OLS(X["target"], sm.add_constant(X[["a", "b"]])).fit()
    out = Predictor(ols, data=X, y="target").predict(X)
    np.testing.assert_allclose(out["pred"], ols.fittedvalues, rtol=1e-12)
    f = smf.ols("target ~ a + b", data=X).fit()
    out2 = Predictor(f, data=X, y="target").predict(X)
    np.testing.assert_allclose(out2["pred"], f.fittedvalues, rtol=1e-12)


def test_inputs_never_modified(df):
    before = df.copy(deep=True)
    X = df
    m = LinearRegression().fit(X[["a", "b"]], X["target"])
    p = Predictor(m, data=X[["a", "b", "target"]], y="target")
    p.predict(X)
    d = Data(X, y="target")
    d.sample(10, random_state=1)
    pd.testing.assert_frame_equal(df, before)


def test_batched_prediction_matches_one_call(df):
    X = _numeric(df)
    calls = []

    def f(nd):
        calls.append(len(nd))
        return nd["a"] * 3 + nd["b"]

    p = Predictor(data=X, predict_function=f, batch_size=7)
    out = p.predict_batched(len(X), lambda s, e: X.iloc[s:e])
    np.testing.assert_array_equal(out[:, 0], (X["a"] * 3 + X["b"]).to_numpy())
    assert calls == [7] * 7 + [1]


@pytest.mark.parametrize("column, dtype", [("a", "Float64"), ("b", "Int64"), ("d", "string"), ("e", "boolean")])
def test_nullable_dtypes_reach_the_model_and_give_the_numpy_results(df, column, dtype):
    """A pandas nullable column (Float64, Int64, string, boolean) gives every method the results
    of its numpy counterpart, and every design the model sees has the data's dtypes."""
    import warnings

    from pyiml import FeatureEffect, FeatureImp, Interaction, LocalModel, Shapley, TreeSurrogate

    X = df.drop(columns=["target", "c"])
    nullable = X.assign(**{column: X[column].astype(dtype)})
    seen = []

    def f(nd):
        seen.append(tuple(str(t) for t in nd.dtypes))
        a, b = nd["a"].to_numpy(dtype=float), nd["b"].to_numpy(dtype=float)
        return a * b + 2 * a + (nd["d"].to_numpy(dtype=object) == "u") + 0.5 * nd["e"].to_numpy(dtype=bool)

    y = f(X) + np.random.default_rng(1).normal(size=len(X))

    def results(data):
        p = Predictor(data=data, y=y, predict_function=f)
        ts = TreeSurrogate(p, maxdepth=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LocalModel: "Had to choose a smaller k"
            lm = LocalModel(p, data.iloc[[0]], k=2).results
        return [FeatureEffect(p, column, method="ale").results,
                FeatureEffect(p, ["b", column] if column != "b" else ["a", "b"], method="ale").results,
                FeatureEffect(p, ["b", column] if column != "b" else ["a", "b"], method="pdp").results,
                FeatureEffect(p, "b", method="pdp", grid_points=[0.5, 1, 3.5]).results,   # not all integral
                pd.DataFrame({"v": FeatureEffect(p, "a", method="pdp").predict(data.iloc[:5])}),
                FeatureImp(p, loss="mae", random_state=1).results,
                Shapley(p, data.iloc[[0, 3]], random_state=1).results,
                Shapley(p, X.iloc[[1]], random_state=1).results,      # x_interest in numpy dtypes
                Interaction(p, grid_size=5, random_state=1).results,
                lm, ts.results.drop(columns=list(X.columns)), ts.predict(data.iloc[:5])]

    expected = results(X)
    seen.clear()
    got = results(nullable)
    want = tuple(str(t) for t in nullable.dtypes)
    widened = tuple(("Float64" if t == "Int64" else "float64") if c == "b" else t for c, t in zip(X.columns, want))
    assert set(seen) == {want, widened}  # an integer feature at non-integral grid points widens, as in numpy
    for e, g in zip(expected, got):
        pd.testing.assert_frame_equal(g.reset_index(drop=True), e.reset_index(drop=True), check_dtype=False,
                                      check_categorical=False)


@pytest.mark.r
def test_prediction_column_names_equal_r_imls(r):
    """The same outputs named by CRAN iml's Predictor (R predict functions, run live) and by pyiml."""
    from r_bridge import convert

    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.5, 1.5, 0.2, 2.0]})
    cases = [  # (R predict.function, Python predict_function, with a model)
        ("function(newdata) cbind(newdata$a, newdata$b)", lambda nd: np.c_[nd["a"], nd["b"]], False),
        ("function(newdata) matrix(newdata$a)", lambda nd: nd[["a"]].to_numpy(), False),
        ("function(newdata) newdata$a", lambda nd: nd["a"].to_numpy(), False),
        ("function(model, newdata) cbind(newdata$a, newdata$b)", lambda m, nd: np.c_[nd["a"], nd["b"]], True),
        ("function(model, newdata) newdata$a", lambda m, nd: nd["a"].to_numpy(), True),
        ("function(model, newdata) data.frame(`0` = newdata$a, `1 x` = newdata$b, `0` = newdata$a, "
         "check.names = FALSE)",
         lambda m, nd: pd.DataFrame(np.c_[nd["a"], nd["b"], nd["a"]], columns=["0", "1 x", "0"]), True),
    ]
    for code, f, with_model in cases:
        model = "list(1)" if with_model else "NULL"
        want = list(r.r_eval(f"names(iml::Predictor$new(model = {model}, data = d, predict.function = {code})"
                             "$predict(d))", d=convert.py2r(X)))
        got = Predictor(model="m" if with_model else None, data=X, predict_function=f).predict(X)
        assert list(got.columns) == want, code


def test_object_column_of_numpy_strings_is_categorical():
    """np.random.choice gives numpy.str_ values (a str subclass): a text column like any other."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.normal(size=20), "c": [rng.choice(["a", "b"]) for _ in range(20)]})
    assert type(X["c"].iloc[0]) is np.str_
    p = Predictor(predict_function=lambda d: d["x"].to_numpy() + (d["c"] == "a").to_numpy(), data=X)
    assert p.data.feature_types["c"] == "categorical"
    plain = Predictor(predict_function=lambda d: d["x"].to_numpy() + (d["c"] == "a").to_numpy(),
                      data=X.assign(c=X["c"].astype(str).astype(object)))
    pd.testing.assert_frame_equal(FeatureEffect(p, "c", method="pdp").results,
                                  FeatureEffect(plain, "c", method="pdp").results)
    with pytest.raises(TypeError, match=r"not all strings \(e.g. 1 of type int\)"):
        Predictor(predict_function=lambda d: d["x"], data=X.assign(c=["a", 1] * 10))


def test_type_prob_needs_predict_proba(df):
    from sklearn.linear_model import RidgeClassifier

    X = df[["a", "b"]]
    m = RidgeClassifier().fit(X, np.where(df["a"] > 0, "pos", "neg"))
    with pytest.raises(ValueError, match=r"type='prob' needs predicted probabilities, but the RidgeClassifier classifier "
                                         r"has no predict_proba: use type='class'"):
        Predictor(m, data=X, type="prob")
    labels = Predictor(m, data=X).predict(X)            # type=None: the one-hot labels, as type="class"
    pd.testing.assert_frame_equal(labels, Predictor(m, data=X, type="class").predict(X))
    assert list(labels.columns) == ["neg", "pos"] and set(np.unique(labels.to_numpy())) <= {0.0, 1.0}


def test_target_as_a_bare_nullable_array_or_objects_holding_numbers_is_numeric():
    """y as pd.array(..., "Float64") (what df["y"].values gives for a nullable column) or as an
    object array of numbers was stored as objects, read as class labels: mae raised 'y holds
    labels'. Labels held as objects (strings, bools) stay labels."""
    from pyiml import FeatureImp

    X = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [0.0, 1, 0, 1, 0, 2]})
    yv = np.array([2.5, 5, 6, 9.5, 10, 14])

    def f(d):
        return (2 * d["a"] + d["b"]).to_numpy()

    ref = FeatureImp(Predictor(f, data=X, y=yv), "mae", n_repetitions=2, random_state=RRandom(1)).results
    for y, dtype in ((pd.array(yv, dtype="Float64"), "Float64"), (pd.Series(yv, dtype="Float64").values, "Float64"),
                     (yv.astype(object), "float64"), (list(yv.astype(object)), "float64")):
        p = Predictor(f, data=X, y=y)
        assert str(p.data.y[".y"].dtype) == dtype
        pd.testing.assert_frame_equal(FeatureImp(p, "mae", n_repetitions=2, random_state=RRandom(1)).results, ref)
    ints = Predictor(f, data=X.assign(t=np.array([1, 2, 3, 4, 5, 6], dtype=object)), y="t")
    assert ints.data.y["t"].dtype == np.int64
    for labels in (np.array(["u", "v"] * 3, dtype=object), np.array([True, False] * 3, dtype=object)):
        assert Predictor(f, data=X, y=labels).data.y[".y"].dtype == object


def test_bare_nullable_array_predictions_are_numbers():
    """pd.array(..., dtype="Float64"/"Int64") from a predict function holds numbers (it was taken
    for class labels and one-hot encoded); <NA> is a missing prediction."""
    X = pd.DataFrame({"a": np.arange(6.0), "b": np.arange(6.0) ** 2})
    for dtype in ("Float64", "Int64"):
        p = Predictor(predict_function=lambda d: pd.array(d["a"].to_numpy().astype(int), dtype=dtype), data=X)
        out = p.predict(X)
        assert list(out.columns) == ["pred"] and out["pred"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    bad = Predictor(predict_function=lambda d: pd.array([None] + [1.0] * (len(d) - 1), dtype="Float64"), data=X)
    with pytest.raises(ValueError, match="returned NaN predictions"):
        bad.predict(X)
    cat = Predictor(predict_function=lambda d: pd.Categorical(np.where(d["a"] > 2, "hi", "lo")), data=X)
    assert list(cat.predict(X).columns) == ["hi", "lo"]


def _label_model(cut1=0.33, cut2=0.7, extra=None):
    """Predicts string labels from column x1 ("c" above cut2); ``extra`` labels x1 > 2."""
    def f(nd):
        x = nd["x1"].to_numpy()
        out = np.where(x < cut1, "a", np.where(x < cut2, "b", "c")).astype(object)
        if extra is not None:
            out[x > 2] = extra
        return out
    return f


@pytest.fixture
def lab_data():
    rng = np.random.default_rng(3)
    return pd.DataFrame({"x1": rng.uniform(size=60), "x2": rng.uniform(size=60)})


def test_label_classes_fixed_from_data_whatever_the_batches(lab_data):
    """iml one-hot encodes each call's labels on their own: a batch that predicts fewer classes
    gets fewer columns (iml drops those rows of a PDP; stacked by position they were wrong).
    pyiml takes the classes from the predictions on data, so batches agree."""
    from pyiml import FeatureImp, RRandom, Shapley
    f = _label_model()
    ref = None
    for bs in (7, 60, 1000):
        p = Predictor(data=lab_data, predict_function=f, batch_size=bs)
        fe = FeatureEffect(p, "x1", method="pdp", grid_size=4).results
        assert p.output_names == ["a", "b", "c"]
        fe = fe.sort_values([".class", "x1"], kind="stable").reset_index(drop=True)
        at_low = fe[(fe["x1"] == fe["x1"].min())].set_index(".class")[".value"]
        assert at_low.to_dict() == {"a": 1.0, "b": 0.0, "c": 0.0}   # every row predicts "a" there
        sh = Shapley(p, lab_data.iloc[[0]], sample_size=20, random_state=RRandom(1)).results
        y = f(lab_data)
        y[:6] = "c"   # a model error above 0
        fi = FeatureImp(Predictor(data=lab_data, y=y, predict_function=f, batch_size=bs), loss="ce",
                        random_state=RRandom(2)).results
        out = (fe, sh, fi)
        if ref is None:
            ref = out
        for a, b in zip(out, ref):
            pd.testing.assert_frame_equal(a, b)


def test_label_outside_data_is_a_clear_error(lab_data):
    p = Predictor(data=lab_data, predict_function=_label_model(extra="z"))
    assert list(p.predict(lab_data).columns) == ["a", "b", "c"]
    with pytest.raises(ValueError, match=r"class label\(s\) \['z'\] for newdata but for no row of data"):
        p.predict(lab_data.assign(x1=3.0))


def test_numbers_in_object_arrays_are_numbers(lab_data):
    X = lab_data
    want = (X["x1"] + X["x2"]).to_numpy()
    for f in (lambda nd: (nd.x1 + nd.x2).to_numpy().astype(object),
              lambda nd: pd.Series(list(nd.x1 + nd.x2), dtype=object),
              lambda nd: np.column_stack([nd.x1 + nd.x2]).astype(object),
              lambda nd: pd.DataFrame({"s": pd.Series(list(nd.x1 + nd.x2), dtype=object)})):
        out = Predictor(data=X, predict_function=f).predict(X)
        assert out.shape == (60, 1) and out.dtypes.iloc[0] == float
        np.testing.assert_array_equal(out.iloc[:, 0].to_numpy(), want)
    ints = Predictor(data=X, predict_function=lambda nd: np.array([1] * len(nd), dtype=object)).predict(X)
    assert list(ints.columns) == ["pred"] and (ints["pred"] == 1.0).all()


def test_sklearn_model_fitted_on_an_array_gets_arrays_without_warnings():
    """A scikit-learn model fitted on a numpy array (no feature_names_in_) gets each design as an
    array in data column order, as scikit-learn would convert it; given a DataFrame it warned
    "X has feature names, but ... was fitted without feature names" on every call."""
    import warnings

    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60), "c": rng.normal(size=60)})
    y = 2 * X["a"] + X["b"]
    Xc = X.assign(k=pd.Categorical(rng.choice(["u", "v"], 60)))
    ridge = Ridge().fit(X.to_numpy(), y)
    logit = make_pipeline(StandardScaler(), LogisticRegression()).fit(X.to_numpy(), y > 0)
    onehot = make_pipeline(make_column_transformer((OneHotEncoder(), [3]), remainder="passthrough"),
                           Ridge()).fit(Xc.to_numpy(), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = Predictor(ridge, data=X.assign(y=y), y="y")
        np.testing.assert_array_equal(p.predict(X)["pred"].to_numpy(), ridge.predict(X.to_numpy()))
        assert sorted(FeatureImp(p, loss="mae", random_state=1).results["feature"]) == ["a", "b", "c"]
        pl = Predictor(logit, data=X)
        np.testing.assert_array_equal(pl.predict(X).to_numpy(), logit.predict_proba(X.to_numpy()))
        pdp = FeatureEffect(Predictor(onehot, data=Xc), "k", method="pdp").results
    for level in ("u", "v"):
        design = Xc.assign(k=pd.Categorical([level] * 60, categories=["u", "v"])).to_numpy()
        assert pdp.loc[pdp["k"] == level, ".value"].item() == pytest.approx(onehot.predict(design).mean(), abs=1e-12)


def test_assigning_class_applies_to_the_next_prediction():
    # the first prediction fixed the selection: p.class_ = "hi" still gave every class, and
    # p.class_ = None only "hi" (iml reads $class on every predict)
    X = pd.DataFrame({"a": np.linspace(0, 1, 6), "b": np.zeros(6)})

    def f(nd):
        a = nd["a"].to_numpy()
        return pd.DataFrame({"lo": 1 - a, "hi": a})
    p = Predictor(predict_function=f, data=X)
    assert list(p.predict(X).columns) == ["lo", "hi"]
    p.class_ = "hi"
    assert p.class_ == ["hi"]
    out = p.predict(X)
    assert list(out.columns) == ["hi"] and p.output_names == ["hi"] and not p.is_multiclass
    np.testing.assert_array_equal(out["hi"], X["a"])
    p.class_ = None
    assert list(p.predict(X).columns) == ["lo", "hi"] and p.is_multiclass
    with pytest.raises(TypeError, match="class_"):
        p.class_ = 1.5
    assert p.class_ is None


def test_batch_size_is_a_checked_property_and_old_pickles_load(df):
    # batch_size was a plain attribute: p.batch_size = 0 was accepted and the methods failed later
    X = _numeric(df)
    p = Predictor(data=X, predict_function=lambda nd: nd["a"], batch_size=10)
    with pytest.raises(ValueError, match="batch_size must be a number >= 1"):
        p.batch_size = 0
    with pytest.raises(TypeError, match="batch_size must be a number >= 1"):
        p.batch_size = "5"
    p.batch_size = np.int32(3)
    assert p.batch_size == 3 and type(p.batch_size) is int
    # a Predictor pickled while batch_size (and class_) were plain attributes
    p = Predictor(data=X, predict_function=_first_column, batch_size=10)
    state = p.__getstate__()
    state["batch_size"] = state.pop("_batch_size")
    state["class_"] = state.pop("_class")
    old = Predictor.__new__(Predictor)
    old.__setstate__(state)
    assert old.batch_size == 10 and old.class_ is None
    np.testing.assert_array_equal(old.predict(X)["pred"], X["a"])
    back = pickle.loads(pickle.dumps(p))
    assert back.batch_size == 10


def _first_column(nd):
    return nd["a"].to_numpy()


def test_docstring_lists_every_constructor_argument():
    # **kwargs (R's `class`, given as **{"class": ...}) and predict_fun were missing
    import inspect

    doc = inspect.cleandoc(Predictor.__doc__)    # (Python 3.13 strips the indentation when compiling)
    params = doc[doc.index("Parameters\n"):doc.index("Attributes\n")]
    for name, par in inspect.signature(Predictor).parameters.items():
        entry = f"**{name}" if par.kind is par.VAR_KEYWORD else f"{name} :"
        assert f"\n{entry}" in params, name
    p = Predictor(data=pd.DataFrame({"a": [1.0, 2.0], "b": [0.0, 1.0]}), predict_function=lambda nd: pd.DataFrame(
        {"lo": 1 - nd["a"], "hi": nd["a"]}), **{"class": "hi"})
    assert p.class_ == ["hi"]


# ---------------------------------------------------------------------------- numpy 2 / pandas 2
def test_nullable_small_integer_feature_takes_a_point_beyond_its_range():
    """A point of interest outside a nullable Int8 column's range widens the column, as a numpy
    int8 column does (numpy 2 raises OverflowError inside pandas' cast, which was not caught)."""
    from pyiml import LocalModel, Shapley, TreeSurrogate

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"o": rng.normal(size=30), "z": pd.array(rng.integers(-100, 100, size=30), dtype="Int8")})
    xi = pd.DataFrame({"o": [0.5], "z": [300]})
    for data in (X, X.astype({"z": "int8"})):
        p = Predictor(data=data, predict_function=lambda nd: nd["o"].to_numpy(float) + nd["z"].to_numpy(float) / 100)
        sh = Shapley(p, x_interest=xi, sample_size=3, random_state=RRandom(1))
        assert sh.results["feature.value"].tolist() == ["o=0.5", "z=300"] and sh.y_hat_interest == pytest.approx(3.5)
        assert LocalModel(p, x_interest=xi, k=1).results.shape[0] == 1
        assert TreeSurrogate(p, maxdepth=2).predict(xi).shape == (1, 1)


_STRINGDTYPE = getattr(getattr(np, "dtypes", None), "StringDType", None)


@pytest.mark.skipif(_STRINGDTYPE is None, reason="numpy < 2 has no StringDType (scripts/test-modern runs this)")
def test_labels_in_a_numpy_stringdtype_array_are_labels():
    X = pd.DataFrame({"a": np.linspace(0, 1, 9), "b": np.arange(9.0)})
    labels = lambda nd: np.where(nd["a"] > 0.5, "pos", "neg").astype(_STRINGDTYPE())  # noqa: E731
    p = Predictor(predict_function=labels, data=X)
    out = p.predict(X)
    assert list(out.columns) == ["neg", "pos"] and out["pos"].tolist() == (X["a"] > 0.5).astype(float).tolist()
    y = np.where(X["a"] > 0.5, "pos", "neg")
    assert FeatureImp(Predictor(predict_function=labels, data=X, y=y), "ce", random_state=1).original_error == 0.0


def test_numpy_string_column_labels_become_plain_names():
    """columns=list(np.array([...])) gives np.str_ labels: the features are plain str names (numpy 2
    writes np.str_('a') in results and messages); the caller's frame keeps its labels."""
    X = pd.DataFrame(np.arange(12.0).reshape(6, 2), columns=list(np.array(["a", "b"])))
    p = Predictor(data=X, predict_function=lambda d: d["a"] - d["b"])
    assert [type(c) for c in p.data.feature_names] == [str, str]
    assert [type(c) for c in p.data.X.columns] == [str, str]
    assert [type(c) for c in FeatureImp(Predictor(data=X.assign(y=1.0), y="y", predict_function=lambda d: d["a"]),
                                        "mae", random_state=1).results["feature"]] == [str, str]
    assert [type(c) for c in X.columns] == [np.str_, np.str_]


def test_predict_function_returning_a_result_object_is_a_type_error():
    """iml #103: a predict function that returns a prediction object (ranger's, statsmodels'
    PredictionResults) instead of its values gets a TypeError naming the object and its
    attribute; a plain vector, list or Series still works."""
    X = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [0.0, 1, 0, 1]})

    class Prediction:
        def __init__(self, values):
            self.predictions = values

    p = Predictor(predict_function=lambda d: Prediction(d["a"].to_numpy()), data=X)
    with pytest.raises(TypeError, match=r"returned a Prediction object, not predictions.*e\.g\. its \.predictions"):
        p.predict(X)
    for ok in (lambda d: list(d["a"]), lambda d: d["a"], lambda d: tuple(d["a"])):
        np.testing.assert_array_equal(Predictor(predict_function=ok, data=X).predict(X)["pred"], X["a"])


def test_single_feature_message_names_data_and_the_column():
    with pytest.raises(ValueError, match=r"Only 1 feature was provided.*data has one feature column, 'a', besides "
                                         r"the target"):
        Predictor(predict_function=lambda d: d["a"], data=pd.DataFrame({"a": [1.0, 2.0], "y": [1.0, 2.0]}), y="y")


def test_predictions_keep_newdatas_row_labels():
    """pandas in and out: Predictor, TreeSurrogate and LocalModel predictions carry newdata's
    index, so test['pred'] = p.predict(test)['pred'] aligns (iml drops R's row names; a reset
    index gave NaN or another row's prediction)."""
    from pyiml import LocalModel, TreeSurrogate

    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=list("abc"))
    p = Predictor(predict_function=lambda d: d["a"].to_numpy() * 2 - d["b"].to_numpy(), data=X)
    test = X.sample(10, random_state=3)
    for frame in (p.predict(test), TreeSurrogate(p, maxdepth=2).predict(test),
                  LocalModel(p, X.iloc[[0]], k=2).predict(test)):
        assert list(frame.index) == list(test.index)
    assigned = test.assign(pred=p.predict(test)["pred"])
    np.testing.assert_array_equal(assigned["pred"], test["a"] * 2 - test["b"])


def test_statsmodels_mnlogit_outputs_are_named_by_its_classes():
    """An MNLogit's probability columns are named by the classes of its endog ('10', '11',
    '12'), so label losses compare y with the right classes (were the column numbers: error
    0.92 where 1 - accuracy is 0.16, no warning)."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(8)
    d = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    d["cls"] = np.digitize(d.a + 0.3 * rng.normal(size=300), [-0.5, 0.5]) + 10
    for fit in (smf.mnlogit("cls ~ a + b", data=d).fit(disp=0),
                sm.MNLogit(d["cls"], sm.add_constant(d[["a", "b"]])).fit(disp=0)):
        p = Predictor(fit, data=d, y="cls")
        pred = p.predict(d)
        assert list(pred.columns) == ["10", "11", "12"]
        accuracy = (pred.columns.astype(int)[pred.to_numpy().argmax(axis=1)] == d["cls"]).mean()
        imp = FeatureImp(p, "ce", n_repetitions=2, random_state=1)
        assert imp.original_error == pytest.approx(1 - accuracy)
        assert imp.results["feature"].iloc[0] == "a"


def test_model_fitted_on_an_array_needs_data_with_its_column_count():
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(30, 3)), columns=list("abc"))
    y = X["a"] * 2
    m = LinearRegression().fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match=r"fitted on an array of 3 columns .*data has 4 features"):
        Predictor(m, data=X.assign(row_id=np.arange(30)), y=y)
    np.testing.assert_allclose(Predictor(m, data=X, y=y).predict(X)["pred"], y)


def test_statsmodels_array_model_without_data_columns_is_caught_in_predictor():
    import statsmodels.api as sm

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    y = X["a"] - X["b"]
    fit = sm.OLS(y.to_numpy(), sm.add_constant(X.to_numpy())).fit()
    with pytest.raises(ValueError, match=r"exog column\(s\) \['x1', 'x2'\].*rename data's columns"):
        Predictor(fit, data=X, y=y)
    renamed = X.rename(columns={"a": "x1", "b": "x2"})
    np.testing.assert_allclose(Predictor(fit, data=renamed, y=y).predict(renamed)["pred"], y, atol=1e-12)


@pytest.mark.parametrize("y", [pd.Series(pd.date_range("2020", periods=4)), pd.Series(pd.to_timedelta([1, 2, 3, 4], "D")),
                               np.array([1 + 1j, 2, 3, 4])])
def test_dates_durations_and_complex_targets_are_type_errors(y):
    X = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [0.0, 1, 0, 1]})
    with pytest.raises(TypeError, match="y must hold numbers or class labels.*convert it first"):
        Predictor(predict_function=lambda d: d["a"], data=X, y=y)


def test_a_row_given_as_a_series_keeps_its_name_as_label():
    from pyiml import LocalModel, TreeSurrogate

    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=list("abc"))
    p = Predictor(predict_function=lambda d: d["a"].to_numpy() - d["c"].to_numpy(), data=X)
    for model in (TreeSurrogate(p, maxdepth=2), LocalModel(p, X.iloc[[0]], k=2)):
        assert list(model.predict(X.iloc[4]).index) == [4]
        assert list(model.predict(X.iloc[[4]]).index) == [4]


@pytest.mark.parametrize("with_model", [True, False])
def test_type_with_a_predict_function_is_refused(with_model):
    """iml ignores type when a predict.function is given (iml #97: users expected it to reach
    their function); pyiml says so instead of ignoring it."""
    from sklearn.linear_model import LogisticRegression

    X = pd.DataFrame({"a": np.arange(20.0), "b": np.arange(20.0) % 3})
    y = (X["a"] > 9).astype(int)
    lr = LogisticRegression().fit(X, y)
    kw = {"model": lr, "predict_function": lambda m, nd: m.predict_proba(nd)} if with_model else \
        {"predict_function": lambda nd: lr.predict_proba(nd)}
    with pytest.raises(ValueError, match=r"type='logit' is not used with a predict_function .*inside predict_function"):
        Predictor(data=X, type="logit", **kw)
    assert Predictor(data=X, **kw).predict(X.head(2)).shape == (2, 2)


def test_y_as_a_list_of_column_names_takes_those_columns():
    """A multi-output model's targets named as a list of data's columns (was read as a vector of
    two values: 'y has length 2 but data has 30 rows')."""
    from sklearn.linear_model import LinearRegression
    from sklearn.multioutput import MultiOutputRegressor

    rng = np.random.default_rng(0)
    D = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30)})
    D["ya"], D["yb"] = 2 * D["a"], D["b"] - D["a"]
    before = D.copy()
    m = MultiOutputRegressor(LinearRegression()).fit(D[["a", "b"]], D[["ya", "yb"]])
    p = Predictor(m, data=D, y=["ya", "yb"])
    assert p.data.feature_names == ["a", "b"] and p.data.y_names == ["ya", "yb"]
    pd.testing.assert_frame_equal(p.data.y, D[["ya", "yb"]].reset_index(drop=True))
    np.testing.assert_allclose(p.predict(D).to_numpy(), D[["ya", "yb"]].to_numpy(), atol=1e-12)
    pd.testing.assert_frame_equal(D, before)
    with pytest.raises(ValueError, match=r"y has duplicated column names \['ya'\]"):
        Predictor(m, data=D, y=["ya", "ya"])
    with pytest.raises(ValueError, match=r"y has length 2 but data has 30 rows.*read as target column names, "
                                         r"\['zz'\] are not columns of data"):   # not all columns: values
        Predictor(m, data=D, y=["ya", "zz"])
    # n labels that happen to be column names, with repeats: a target vector, not names
    E = pd.DataFrame({"yes": [1.0, 2, 3, 4], "no": [0.0, 1, 0, 1]})
    q = Predictor(predict_function=lambda d: d["yes"].to_numpy(), data=E, y=["yes", "no", "yes", "no"])
    assert q.data.y_names == [".y"] and q.data.y[".y"].tolist() == ["yes", "no", "yes", "no"]


def test_an_estimator_class_is_refused_with_the_fix():
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    X = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) % 3})
    for cls in (RandomForestRegressor, RandomForestClassifier):
        with pytest.raises(TypeError, match=rf"model is the class {cls.__name__}, not a fitted model: .*"
                                            rf"{cls.__name__}\(\)\.fit\(X, y\)"):
            Predictor(cls, data=X)


def test_predict_frames_do_not_share_their_columns():
    """predict() builds its frames on one cached Index of the output names (pandas infers a list
    again on every frame); each frame gets its own copy, so naming one's columns leaves the next."""
    X = pd.DataFrame({"a": np.arange(5.0), "b": np.ones(5)})
    p = Predictor(predict_function=lambda d: d["a"].to_numpy() * 2, data=X)
    a = p.predict(X)
    a.columns.name = "mine"
    b = p.predict(X)
    assert list(b.columns) == ["pred"] and b.columns.name is None and a.columns is not b.columns
    p.class_ = None                     # output names chosen again: the cache follows them
    assert list(p.predict(X).columns) == ["pred"]
    q = Predictor(predict_function=lambda d: d[["a", "b"]], data=X, class_="b")
    assert list(q.predict(X).columns) == ["b"]
    q.output_names[0] = "renamed"       # the names changed in place: the frames follow them too
    assert list(q.predict(X).columns) == q.output_names == ["renamed"]
