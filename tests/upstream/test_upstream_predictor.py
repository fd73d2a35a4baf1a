"""iml's own expectations for ``Predictor`` and ``Data``, checked against pyiml.

Translated from iml's testthat suite (giuseppec/iml, the versions that match iml 0.11.4):
test-Predictor.R, test-create_predict_fun.R, test-inferTask.R, test-find_y.R, test-Data.R and
the ``is_label`` block of test-utils.R. Upstream builds its predictors from mlr, mlr3, caret,
keras and h2o models; those packages are R-only and not part of pyiml, so their cases are
translated to what pyiml has: scikit-learn models and plain functions (caret's ``knn`` becomes
scikit-learn's ``KNeighborsClassifier``, an mlr "response" learner a classifier with
``type="class"``), and R models (randomForest, rpart, lm) through ``r_bridge.RModel``, whose
predictions and names are compared with CRAN iml's ``Predictor`` run live. The keras and h2o
cases (column names of those packages' own prediction frames) and "data extracted from a caret
model" (pyiml requires ``data``, docs/differences.md) have no pyiml counterpart and are left out.
"""
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LinearRegression
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from pyiml import Data, Predictor
from pyiml.predictor import prediction_function

FEATURES = ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"]
CLASSES = ["setosa", "versicolor", "virginica"]
TEST_ROWS = [1, 19, 99, 149]  # iris[c(2, 20, 100, 150), ] in R


@pytest.fixture(scope="module")
def iris():
    """iris with R's column names and a categorical Species (no R needed)."""
    raw = load_iris()
    df = pd.DataFrame(raw.data, columns=FEATURES)
    df["Species"] = pd.Categorical.from_codes(raw.target, categories=CLASSES)
    return df


@pytest.fixture(scope="module")
def knn(iris):
    return KNeighborsClassifier(n_neighbors=7).fit(iris[FEATURES], iris["Species"].astype(str))


@pytest.fixture(scope="module")
def r_iris(r):
    from r_bridge import convert

    return convert.r2py(r.r_eval("datasets::iris"))


@pytest.fixture(scope="module")
def boston(r):
    from r_bridge import convert

    r.require(["MASS"])
    return convert.r2py(r.r_eval("MASS::Boston"))


def r_field(r, rp, code: str):
    """``code`` evaluated on R's predictor ``p`` (e.g. ``p$data$y.names``), as Python."""
    from r_bridge import convert

    return convert.r2py(r.r_eval(code, p=rp))


def r_predict(r, rp, newdata: pd.DataFrame) -> pd.DataFrame:
    from r_bridge import convert

    out = convert.r2py(r.r_eval("p$predict(nd)", p=rp, nd=convert.py2r(newdata)))
    out.index = newdata.index    # pyiml keeps newdata's row labels, iml drops R's (docs/differences.md)
    return out


# ---------------------------------------------------------------------------- classification
def test_function_and_model_give_the_same_probabilities(iris, knn):
    """"equivalence" / "f works": a predict function returning the probability frame equals
    the model's own predictor; one column per class, named by class."""
    test = iris.iloc[TEST_ROWS][FEATURES]

    def mod_f(newdata):
        return pd.DataFrame(knn.predict_proba(newdata), columns=knn.classes_)

    predictor_f = Predictor(predict_function=mod_f, data=iris, y="Species")
    prediction_f = predictor_f.predict(test)
    assert isinstance(prediction_f, pd.DataFrame)
    assert list(prediction_f.columns) == CLASSES
    pd.testing.assert_frame_equal(prediction_f, Predictor(knn, data=iris, y="Species").predict(test))
    # class = "setosa" keeps that column
    one = Predictor(predict_function=mod_f, class_="setosa", data=iris).predict(test)
    np.testing.assert_array_equal(one["setosa"].to_numpy(), prediction_f.iloc[:, 0].to_numpy())
    # single class predictions: the function and the model agree
    pd.testing.assert_frame_equal(Predictor(predict_function=mod_f, class_="versicolor", data=iris).predict(test),
                                  Predictor(knn, class_="versicolor", data=iris, y="Species").predict(test))
    # upstream's class = 1 / class = 2 are indices; iml 0.11.4 takes names only (spec §18.9) and
    # pyiml matches numbers as strings (column "1"), so an index is an error naming the columns
    with pytest.raises(ValueError, match=r"class_=\['1'\] is not among the prediction columns"):
        Predictor(predict_function=mod_f, class_=1, data=iris).predict(test)


@pytest.mark.r
def test_r_model_with_and_without_predict_function_equal_iml(r, r_iris):
    """The S3 model path (``type = "prob"``) and the model + ``predict.function`` path give the
    same frame; names, values, the found target and class selection equal R's iml."""
    from r_bridge import RModel, iml as riml

    test = r_iris.iloc[TEST_ROWS][FEATURES]
    rf = RModel("randomForest::randomForest(Species ~ ., data = iris, ntree = 30)", packages=["randomForest"],
                seed=3, type="prob")
    pf = "function(object, newdata) predict(object, newdata, type = 'prob')"
    via_type = Predictor(rf, data=r_iris)
    via_fun = Predictor(RModel(rf.r_object, predict_function=pf), data=r_iris)
    pd.testing.assert_frame_equal(via_type.predict(test), via_fun.predict(test))
    assert list(via_type.predict(test).columns) == CLASSES
    rp = riml.r_predictor(data=r_iris, model=rf)
    pd.testing.assert_frame_equal(via_type.predict(test), r_predict(r, rp, test))
    # "extracts y automatically for randomForest"
    assert via_type.data.y_names == ["Species"] == [r_field(r, rp, "p$data$y.names")]
    assert via_fun.data.feature_names == FEATURES
    # single class
    p2 = Predictor(rf, class_="versicolor", data=r_iris)
    rp2 = riml.r_predictor(data=r_iris, model=rf, class_="versicolor")
    got = p2.predict(test)
    assert list(got.columns) == ["versicolor"]
    pd.testing.assert_frame_equal(got, r_predict(r, rp2, test))


# ---------------------------------------------------------------------------- regression
@pytest.mark.r
def test_numeric_predictions_are_named_as_iml_names_them(r, boston):
    """A function → ``pred``; an S3 model → ``pred``; a model with a predict function →
    ``..prediction`` (iml's sanitizePrediction); values equal R's."""
    from r_bridge import RModel, iml as riml

    test = boston.iloc[:4]
    m = RModel("rpart::rpart(medv ~ ., data = MASS::Boston)", packages=["rpart", "MASS"])
    cases = [
        (Predictor(m, data=boston), riml.r_predictor(data=boston, model=m), "pred"),
        (Predictor(predict_function=lambda nd: m._pyiml_predict(nd)["pred"].to_numpy(), data=boston),
         riml.r_predictor(data=boston, predict_function=r.r_eval("function(newdata) predict(m, newdata)",
                                                                 m=m.r_object)), "pred"),
        (Predictor(RModel(m.r_object, predict_function="function(model, newdata) predict(model, newdata)"),
                   data=boston),
         riml.r_predictor(data=boston, model=m, predict_function="function(model, newdata) predict(model, newdata)"),
         "..prediction"),
    ]
    values = []
    for p, rp, name in cases:
        got = p.predict(test)
        assert isinstance(got, pd.DataFrame) and list(got.columns) == [name]
        pd.testing.assert_frame_equal(got, r_predict(r, rp, test))
        values.append(got.iloc[:, 0].to_numpy())
    np.testing.assert_array_equal(values[0], values[1])
    np.testing.assert_array_equal(values[0], values[2])
    # the model's formula names the target: medv is not a feature (iml's find_y)
    assert cases[0][0].data.y_names == ["medv"] and "medv" not in cases[0][0].data.feature_names
    assert cases[1][0].data.y_names == [] and "medv" in cases[1][0].data.feature_names  # a function has none


def test_python_regressors_and_functions_give_column_pred(iris):
    X = iris[FEATURES]
    reg = KNeighborsRegressor().fit(X[["Sepal.Width", "Petal.Length", "Petal.Width"]], X["Sepal.Length"])
    p = Predictor(reg, data=X, y="Sepal.Length")
    assert list(p.predict(X.head(4)).columns) == ["pred"]
    f = Predictor(predict_function=lambda nd: reg.predict(nd), data=X, y="Sepal.Length")
    pd.testing.assert_frame_equal(f.predict(X.head(4)), p.predict(X.head(4)))
    m = Predictor(reg, predict_function=lambda model, nd: model.predict(nd), data=X, y="Sepal.Length")
    assert list(m.predict(X.head(4)).columns) == ["..prediction"]


# ---------------------------------------------------------------------------- y
@pytest.mark.r
def test_y_as_values_or_as_column_name_equals_iml(r, r_iris):
    """"Returning y": a vector is stored as ``.y`` (the data keep every column), a column name
    moves that column out of the features."""
    from r_bridge import RModel, convert, iml as riml

    m = RModel("rpart::rpart(Species ~ ., data = iris)", packages=["rpart"])
    species = r_iris["Species"]
    by_values = Predictor(m, class_="versicolor", data=r_iris, y=species)
    by_name = Predictor(m, class_="versicolor", data=r_iris, y="Species")
    pd.testing.assert_frame_equal(by_values.data.y, pd.DataFrame({".y": species}))
    pd.testing.assert_frame_equal(by_name.data.y, r_iris[["Species"]])
    assert "Species" in by_values.data.feature_names and "Species" not in by_name.data.feature_names
    for p, y in ((by_values, species), (by_name, "Species")):
        rp = riml.r_predictor(data=r_iris, model=m, class_="versicolor", y=y)
        ry = convert.r2py(r.r_eval("p$data$y", p=rp))
        pd.testing.assert_frame_equal(p.data.y, ry)
        assert p.data.feature_names == list(r_field(r, rp, "p$data$feature.names"))


def test_y_as_a_bare_categorical_keeps_its_levels(iris):
    """A factor target stays a factor (R's data.frame(.y = factor)); also when given as a
    pandas Categorical rather than a Series."""
    cat = pd.Categorical(iris["Species"].astype(str), categories=["virginica", "setosa", "versicolor"])
    d = Data(iris[FEATURES], y=cat)
    assert isinstance(d.y[".y"].dtype, pd.CategoricalDtype)
    assert list(d.y[".y"].cat.categories) == ["virginica", "setosa", "versicolor"]
    assert d.y[".y"].astype(str).tolist() == iris["Species"].astype(str).tolist()


@pytest.mark.r
def test_target_found_from_r_formulas_as_iml_finds_it(r):
    """test-find_y.R: lm and rpart name their target in the formula; a model without a
    formula, or a transformed left-hand side, has none that is a data column."""
    from r_bridge import RModel, convert, iml as riml

    # upstream's cases (find_y on cars): the model's target
    assert RModel("lm(speed ~ ., data = cars)").target == "speed"
    assert RModel("rpart::rpart(speed ~ ., data = cars)", packages=["rpart"]).target == "speed"
    # Predictor with data that keep two features after the target is taken out
    mtcars = convert.r2py(r.r_eval("datasets::mtcars"))
    iris3 = convert.r2py(r.r_eval("datasets::iris"))
    cases = [
        (RModel("lm(mpg ~ ., data = mtcars)"), mtcars, ["mpg"]),
        (RModel("rpart::rpart(mpg ~ ., data = mtcars)", packages=["rpart"]), mtcars, ["mpg"]),
        (RModel("lm(log(mpg) ~ wt, data = mtcars)"), mtcars, []),
        (RModel("randomForest::randomForest(iris[1:4], iris$Species, ntree = 5)", packages=["randomForest"],
                seed=1), iris3, []),
    ]
    assert cases[2][0].target == "log(mpg)" and cases[3][0].target is None
    for model, data, expected in cases:
        p = Predictor(model, data=data)
        rp = riml.r_predictor(data=data, model=model)
        assert p.data.y_names == expected
        assert list(np.atleast_1d(r_field(r, rp, "as.character(p$data$y.names)"))) == expected
        assert p.data.feature_names == list(r_field(r, rp, "p$data$feature.names"))


@pytest.mark.r
@pytest.mark.parametrize("with_na", [False, True])
def test_one_feature_left_is_an_error_in_both(r, with_na):
    """"Predictor errors with only one feature" (and the variant with NAs in x): lm(y ~ x)
    takes y as the target, which leaves one feature."""
    from r_bridge import RError, RModel, convert, iml as riml

    dat = pd.DataFrame({
        "y": np.arange(1, 11, dtype=np.int64),
        "x": pd.Categorical(["1", "2"] * 5, categories=["1", "2", "3"]),
    })
    if with_na:
        dat.loc[[0, 1], "x"] = np.nan
    mod = RModel(r.r_eval("lm(y ~ x, data = d)", d=convert.py2r(dat)))
    with pytest.raises(ValueError, match="Only 1 feature was provided"):
        Predictor(mod, data=dat)
    with pytest.raises(RError, match="Only 1 feature was provided"):
        riml.r_predictor(data=dat, model=mod)


@pytest.mark.r
def test_factor_class_names_are_kept(r):
    """"Predictor keeps factor names without X": rpart's probability columns "1", "2"."""
    from r_bridge import RModel, convert, iml as riml

    dat = pd.DataFrame({
        "y": pd.Categorical(["1", "2"] * 5),
        "x": pd.Categorical(["1", "1", "1", "2", "1", "2", "1", "2", "1", "2"], categories=["1", "2", "3"]),
        "x2": np.arange(1, 11, dtype=np.int64),
    })
    mod = RModel(r.r_eval("rpart::rpart(y ~ x, data = d)", d=convert.py2r(dat)))
    p = Predictor(mod, data=dat)
    got = p.predict(dat)
    assert list(got.columns) == ["1", "2"]
    pd.testing.assert_frame_equal(got, r_predict(r, riml.r_predictor(data=dat, model=mod), dat))


# ---------------------------------------------------------------------------- create_predict_fun
def test_prediction_functions_output_shape(iris, knn):
    """test-create_predict_fun.R "output shape" and "output is label": every classifier path
    gives one column per class, every regression path one column."""
    test = iris.iloc[TEST_ROWS][FEATURES]
    frame = prediction_function(None, lambda nd: pd.DataFrame(knn.predict_proba(nd), columns=knn.classes_))
    prob = prediction_function(knn)
    labels = prediction_function(knn, type="class")  # mlr's "response" learner: one-hot labels
    fun_labels = prediction_function(None, lambda nd: knn.predict(nd))  # labels from a function
    for pf in (frame, prob, labels, fun_labels):
        out = pf(test)
        assert isinstance(out, pd.DataFrame) and out.shape == (4, 3) and list(out.columns) == CLASSES
    pd.testing.assert_frame_equal(frame(test), prob(test))
    pd.testing.assert_frame_equal(labels(test), fun_labels(test))
    assert set(np.unique(labels(iris[FEATURES]).to_numpy())) == {0.0, 1.0}
    assert (labels(iris[FEATURES]).sum(axis=1) == 1).all()

    reg = LinearRegression().fit(iris[FEATURES[1:]], iris["Sepal.Length"])
    for pf in (prediction_function(reg), prediction_function(None, reg.predict),
               prediction_function(reg, lambda m, nd: m.predict(nd))):
        out = pf(iris[FEATURES[1:]].head(4))
        assert out.shape == (4, 1)


@pytest.mark.r
def test_r_classifier_labels_are_one_hot_as_in_iml(r, r_iris):
    """"output is label": an S3 classifier without ``type`` predicts labels; iml one-hot
    encodes them, one column per level."""
    from r_bridge import RModel, iml as riml

    # rpart's labels (type = "class"); randomForest's would break tied votes at random
    tree = RModel("rpart::rpart(Species ~ ., data = iris)", packages=["rpart"], type="class")
    p = Predictor(tree, data=r_iris)
    got = p.predict(r_iris)
    assert got.shape == (150, 3) and list(got.columns) == CLASSES
    assert (got.sum(axis=1) == 1).all()
    pd.testing.assert_frame_equal(got, r_predict(r, riml.r_predictor(data=r_iris, model=tree), r_iris))


# ---------------------------------------------------------------------------- is_label
def test_labels_are_one_hot_and_numbers_are_not(iris):
    """test-utils.R is_label: letters and factors are labels, 1:10 and c(NA, 1:10) are not, a
    data frame of numbers is not. A one-column frame of strings is (is_label looks at its
    first column; iml's own conversion of it fails, pyiml one-hot encodes it)."""
    X = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0)})
    letters = np.array(list("jihgfedcba"), dtype=object)
    out = Predictor(predict_function=lambda nd: letters[: len(nd)], data=X).predict(X)
    assert list(out.columns) == sorted(letters) and (out.sum(axis=1) == 1).all()
    fac = pd.Categorical(letters, categories=list("cabdefghij"))
    out = Predictor(predict_function=lambda nd: pd.Series(fac[: len(nd)]), data=X).predict(X)
    assert list(out.columns) == list("cabdefghij")
    out = Predictor(predict_function=lambda nd: np.arange(1, len(nd) + 1), data=X).predict(X)
    assert list(out.columns) == ["pred"] and out["pred"].tolist() == list(range(1, 11))
    with pytest.raises(ValueError, match=r"Contains missing values \(column 'pred', row 1\)"):
        Predictor(predict_function=lambda nd: np.r_[np.nan, np.arange(1, len(nd))], data=X).predict(X)
    nums = iris[FEATURES]
    out = Predictor(predict_function=lambda nd: nums.iloc[: len(nd)].reset_index(drop=True), data=X).predict(X)
    assert list(out.columns) == FEATURES
    one = Predictor(predict_function=lambda nd: pd.DataFrame({"x": letters[: len(nd)]}), data=X).predict(X)
    pd.testing.assert_frame_equal(one, out_one_hot(letters))
    via_string_dtype = Predictor(predict_function=lambda nd: pd.Series(letters[: len(nd)], dtype="string"),
                                 data=X).predict(X)
    pd.testing.assert_frame_equal(via_string_dtype, out_one_hot(letters))
    # the same through prediction_function (what r_bridge hands to R's iml)
    pd.testing.assert_frame_equal(prediction_function(None, lambda nd: pd.DataFrame({"x": letters}))(X),
                                  out_one_hot(letters))


def out_one_hot(labels) -> pd.DataFrame:
    return pd.DataFrame({c: (labels == c).astype(float) for c in sorted(set(labels))})


# ---------------------------------------------------------------------------- task
@pytest.mark.r
def test_task_is_unknown_for_r_models_and_functions_as_in_iml(r, r_iris, iris, knn):
    """test-inferTask.R "unknown": an S3 model and a function give "unknown". iml infers the
    task only for mlr/mlr3/caret models; pyiml's counterpart infers it for scikit-learn."""
    from r_bridge import RModel, iml as riml

    rf = RModel("randomForest::randomForest(Species ~ ., data = iris, ntree = 5)", packages=["randomForest"], seed=1)
    assert Predictor(rf, data=r_iris).task == "unknown" == r_field(r, riml.r_predictor(data=r_iris, model=rf),
                                                                    "p$task")
    assert Predictor(predict_function=lambda nd: knn.predict_proba(nd), data=iris, y="Species").task == "unknown"
    assert Predictor(knn, data=iris, y="Species").task == "classification"
    reg = LinearRegression().fit(iris[FEATURES[1:]], iris["Sepal.Length"])
    assert Predictor(reg, data=iris[FEATURES], y="Sepal.Length").task == "regression"


# ---------------------------------------------------------------------------- errors
@pytest.mark.r
def test_bad_arguments_are_errors_in_both(r, r_iris):
    from r_bridge import RError, iml as riml

    X = r_iris[FEATURES]
    with pytest.raises(ValueError, match="Provide a model, a predict_function or both!"):
        Predictor(data=X)
    with pytest.raises(ValueError, match="please provide via data="):
        Predictor(predict_function=lambda nd: nd["Sepal.Width"])
    with pytest.raises(ValueError, match="batch_size must be a number >= 1"):
        Predictor(predict_function=lambda nd: nd["Sepal.Width"], data=X, batch_size=0)
    with pytest.raises(RError, match="batch.size"):
        riml.r_predictor(data=X, predict_function="function(newdata) newdata$Sepal.Width", batch_size=0)
    p = Predictor(predict_function=lambda nd: nd["Sepal.Width"].to_numpy(), data=X)
    with pytest.raises(TypeError, match="newdata must be a pandas DataFrame, not ndarray"):
        p.predict(X.to_numpy())
    # missing values in the predictions: the same message as iml's
    na = Predictor(predict_function=lambda nd: np.where(nd["Sepal.Width"] > 3, np.nan, 1.0), data=X)
    rp = riml.r_predictor(data=X, predict_function="function(newdata) ifelse(newdata$Sepal.Width > 3, NA, 1)")
    with pytest.raises(RError, match=r"Contains missing values \(column 'pred', row 1\)"):
        r_predict(r, rp, X)
    with pytest.raises(ValueError, match=r"Contains missing values \(column 'pred', row 1\)"):
        na.predict(X)


# ---------------------------------------------------------------------------- Data
def test_data_sampling_names_and_types(iris):
    """test-Data.R "samplings works"."""
    ds = Data(iris)
    sample1 = ds.sample(3, random_state=1)
    assert isinstance(sample1, pd.DataFrame) and list(sample1.columns) == list(iris.columns) and len(sample1) == 3
    pd.testing.assert_frame_equal(ds.get_x(), iris)
    assert ds.feature_names == list(iris.columns)
    assert ds.feature_types == {"Sepal.Length": "numerical", "Sepal.Width": "numerical", "Petal.Length": "numerical",
                                "Petal.Width": "numerical", "Species": "categorical"}
    assert ds.n_features == 5
    assert repr(ds) == "Sampling from data.frame with 150 rows and 5 columns."


def test_weighted_sampling(iris):
    """test-Data.R "weighted sampling works": weights given to ``sample`` or to ``Data`` draw
    the same rows from the same seed, and only rows with weight > 0."""
    prob = np.r_[2.0, 1.0, np.zeros(len(iris) - 2)]
    ds = Data(iris)
    sample1_weighted = ds.sample(100, prob=prob, random_state=42)
    sample2 = Data(iris, prob=prob).sample(100, random_state=42)
    assert len(sample1_weighted.drop_duplicates()) == 2 and len(sample2.drop_duplicates()) == 2
    pd.testing.assert_frame_equal(sample1_weighted, sample2)
    assert sample2.merge(iris.iloc[:2], how="left", indicator=True)["_merge"].eq("both").all()


def test_y_as_character(iris):
    """test-Data.R "y as character works"."""
    ds = Data(iris, y="Species")
    pd.testing.assert_frame_equal(ds.y, iris[["Species"]])
    pd.testing.assert_frame_equal(ds.X, iris[FEATURES])
    pd.testing.assert_frame_equal(ds.get_xy(), iris)
    pd.testing.assert_frame_equal(ds.get_x(), iris[FEATURES])
    assert ds.feature_names == FEATURES
    assert list(ds.feature_types.values()) == ["numerical"] * 4


@pytest.mark.r
def test_feature_types_of_diamonds_equal_iml(r):
    """test-Data.R "only first class used": ordered factors (class c("ordered", "factor")) are
    categorical, integers "integer" (iml 0.11.4); the same names and types as iml's Data."""
    from r_bridge import convert

    r.require(["ggplot2"])
    d = convert.r2py(r.r_eval("as.data.frame(head(ggplot2::diamonds, 200))"))
    assert d["cut"].cat.ordered
    types = Data(d).feature_types
    rt = r.r_eval("iml:::Data$new(d)$feature.types", d=convert.py2r(d))
    assert types == dict(zip(list(rt.names), [str(v) for v in rt]))
    assert types["cut"] == "categorical" and types["price"] == "integer" and types["carat"] == "numerical"

