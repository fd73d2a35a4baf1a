"""R models of mixed teams through r_bridge.RModel: iml's ``type`` semantics for glm, and the
glm link-scale trap in FeatureImp. Whole results of lm/glm/rpart and scikit-learn pipelines
are compared with iml by the parity specs ``parity/specs/*_{lm_fac,glm,rpart,sk_mixed}*.toml``.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from parity import fixtures

pytestmark = pytest.mark.r


def _iml_predict(r, model, data, type_=None):
    """iml's own Predictor on the R model (R: Predictor$new(model, data, type = type)$predict(data))."""
    from r_bridge import convert

    X = convert.py2r(data)
    if type_ is None:
        return convert.r2py(r.r_eval("iml::Predictor$new(m, data = d)$predict(d)", m=model.r_object, d=X))
    return convert.r2py(r.r_eval("iml::Predictor$new(m, data = d, type = t)$predict(d)", m=model.r_object, d=X,
                                 t=r.robjects().StrVector([type_])))


@pytest.mark.parametrize("data_name", ["binary", "binary_factor"])
def test_glm_type_is_iml_type(r, data_name):
    """RModel(type=None) gives predict(model, newdata) — a glm's link, as iml's Predictor does
    without type; type='response' the probabilities; each is iml's column for column."""
    from r_bridge import RModel, convert

    d = fixtures.dataset(data_name)
    X = d.drop(columns="y")
    fit = r.r_eval("glm(y ~ x1 + x2 + g, family = binomial, data = d)", d=convert.py2r(d))
    link = convert.r2py(r.r_eval("data.frame(v = unname(predict(m, d, type = 'link')))", m=fit,
                                 d=convert.py2r(X)))["v"].to_numpy()
    for type_, want in ((None, link), ("link", link), ("response", 1 / (1 + np.exp(-link)))):
        m = RModel(fit, type=type_)
        got = m._pyiml_predict(X)
        pd.testing.assert_frame_equal(got, _iml_predict(r, m, X, type_))
        assert list(got.columns) == ["pred"]
        np.testing.assert_allclose(got["pred"].to_numpy(), want, rtol=1e-14, atol=1e-15)
    assert m.target == "y"


def test_glm_link_with_logloss_is_a_clear_error(r):
    """iml fails deep inside (Metrics' logLoss of link values is Inf, the importances NaN);
    pyiml raises a ValueError naming type='response'; on the response scale both agree exactly."""
    import pyiml
    from r_bridge import RError, RWarning
    from r_bridge import iml as riml

    d = fixtures.dataset("binary")
    link, response = fixtures.model_pair("glm_link"), fixtures.model_pair("glm_response")
    with pytest.raises(RError, match="NaN"), pytest.warns(RWarning, match="NaNs produced"):
        riml.iml("FeatureImp", riml.r_predictor(data=d, y="y", **link.r), seed=1, loss="logLoss")
    with pytest.raises(ValueError, match="type='response'"):
        pyiml.FeatureImp(pyiml.Predictor(data=d, y="y", **link.py), "logLoss", random_state=pyiml.RRandom(1))
    got = pyiml.FeatureImp(pyiml.Predictor(data=d, y="y", **response.py), "logLoss", n_repetitions=2,
                           random_state=pyiml.RRandom(1))
    want = riml.iml("FeatureImp", riml.r_predictor(data=d, y="y", **response.r), seed=1, loss="logLoss",
                    n_repetitions=2)
    pd.testing.assert_frame_equal(got.results.reset_index(drop=True), want.results, check_exact=True,
                                  check_dtype=False, check_categorical=False)
    assert got.original_error == want.field("original.error")


def test_character_labels_of_an_r_model_have_the_classes_of_data(r):
    """An R predict() returning character labels: iml one-hot encodes each call's factor(), so
    a batch without some class has fewer columns (one class fails in model.matrix). pyiml gets
    the labels and fixes the classes from data: the same results whatever batch_size, and
    iml's columns where iml's calls see every class."""
    import pyiml
    from r_bridge import RModel

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": np.sort(rng.normal(size=40)), "b": rng.normal(size=40)})
    m = RModel("structure(list(), class = 'labs')", predict_function=None)
    r.r_eval("predict.labs <<- function(object, newdata, ...) ifelse(newdata$a > 0.5, 'pos', "
             "ifelse(newdata$a > -0.5, 'mid', 'neg'))")
    got = pyiml.Predictor(m, data=X).predict(X)
    pd.testing.assert_frame_equal(got, _iml_predict(r, m, X), check_dtype=False)
    assert list(got.columns) == ["mid", "neg", "pos"]
    ref = None
    for bs in (3, 1000):
        p = pyiml.Predictor(m, data=X, batch_size=bs)
        fe = pyiml.FeatureEffect(p, "a", method="pdp", grid_size=5).results
        assert p.output_names == ["mid", "neg", "pos"]
        ref = fe if ref is None else ref
        pd.testing.assert_frame_equal(fe.sort_values([".class", "a"]).reset_index(drop=True),
                                      ref.sort_values([".class", "a"]).reset_index(drop=True))


def test_empty_prediction_column_name_is_var_j_as_in_iml(r):
    """cbind(p, 1 - p) names its columns "p" and "": iml's Predictor$predict ends in
    data.frame(prediction, check.names = FALSE), which names the second Var.2."""
    import pyiml
    from r_bridge import RModel

    d = pd.DataFrame({"a": [0.1, -1, 2], "b": [1., 2, 3]})
    rm = RModel("structure(list(), class = 'foo')",
                predict_function="function(model, newdata) { p <- plogis(newdata$a); cbind(p, 1 - p) }")
    from r_bridge import convert

    want = convert.r2py(r.r_eval("iml::Predictor$new(m, data = d, predict.function = f)$predict(d)",
                                 m=rm.r_object, d=convert.py2r(d), f=rm._pf))
    assert list(want.columns) == ["p", "Var.2"]
    pd.testing.assert_frame_equal(pyiml.Predictor(rm, data=d).predict(d), want)

    def pf(model, nd):
        p = 1 / (1 + np.exp(-nd["a"]))
        return pd.DataFrame(np.c_[p, 1 - p], columns=["p", ""])
    assert list(pyiml.Predictor(object(), data=d, predict_function=pf).predict(d).columns) == ["p", "Var.2"]
    assert list(pyiml.Predictor(data=d, predict_function=lambda nd: pf(None, nd)).predict(d).columns) == [
        "p", "Var.2"]


def test_object_column_with_missing_values_reaches_the_python_model_as_trained(r):
    """R's NA in a character column comes back as pandas string/pd.NA; a Python model called
    by R's iml gets its object column with the training data's missing value again."""
    from r_bridge import convert
    from r_bridge.models import _dtype_template, _restore_dtypes

    for missing in (None, np.nan):
        s = np.array(["p", "q", "r", "p"], dtype=object)
        s[1] = missing
        X = pd.DataFrame({"a": [1.0, 2, 3, 4], "s": s})
        back = _restore_dtypes(convert.r2py(convert.py2r(X)), _dtype_template(X))
        assert back["s"].dtype == object
        assert back["s"][1] is missing if missing is None else np.isnan(back["s"][1])
        assert back["s"].drop(index=1).tolist() == ["p", "r", "p"]


def test_factor_with_an_na_level_is_missing_in_pandas(r):
    from r_bridge import convert

    got = convert.r2py(r.r_eval('data.frame(f = factor(c("x", NA, "y", "x"), exclude = NULL))'))["f"]
    assert list(got.cat.categories) == ["x", "y"] and got.isna().tolist() == [False, True, False, False]
    assert got.astype(object).tolist()[2] == "y"
    back = r.r_eval("paste(levels(x$f), collapse = '|')", x=convert.py2r(got.to_frame()))
    assert back[0] == "x|y"


def test_python_model_in_iml_with_non_syntactic_names_is_a_clear_error(r):
    """iml 0.11.4's methods make.names the features and then hand the model none of them; the
    Python model's own error (numpy's "at least one array or dtype is required") said nothing."""
    from sklearn.linear_model import LinearRegression

    import r_bridge
    from r_bridge import RError

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a b": rng.normal(size=20), "1st": rng.uniform(size=20)})
    y = X["a b"] + 2 * X["1st"]
    R = r_bridge.r_predictor(data=X.assign(y=y), y="y", model=LinearRegression().fit(X, y))
    with pytest.raises(RError, match=r"without data's column\(s\) \['a b', '1st'\].*make.names: \['a.b', 'X1st'\]"):
        r_bridge.iml("FeatureImp", R, seed=1, loss="mae")


# Training data with a factor whose R levels (a, B, c: factor()'s order under ICU's or a UTF-8
# locale's collation, given explicitly so that the data do not depend on R's collation) differ
# from pandas' astype('category') order (B, a, c); the response tells the levels apart.
_TRAIN_G = ("set.seed(1); n <- 120; g <- sample(c('a', 'B', 'c'), n, TRUE); "
            "tr <- data.frame(x = rnorm(n), g = factor(g, levels = c('a', 'B', 'c')), "
            "y = c(a = 0, B = 10, c = 20)[g] + rnorm(n, sd = 0.1)); ")
_RANGER_PF = "function(model, newdata) predict(model, newdata, seed = 1)$predictions"


def _positional_models(r, with_xlevels: bool):
    """ranger (seeded) and e1071::svm, which read factors by position; optionally with the
    training levels recorded as lm records them (``$xlevels``)."""
    add = "; m$xlevels <- list(g = levels(tr$g)); m" if with_xlevels else "; m"
    return [(r.r_eval(_TRAIN_G + "m <- ranger::ranger(y ~ x + g, tr, num.trees = 20, seed = 1)" + add), _RANGER_PF,
             "predict(m, d, seed = 1)$predictions"),
            (r.r_eval(_TRAIN_G + "m <- e1071::svm(y ~ x + g, tr)" + add), None, "unname(predict(m, d))")]


def test_categorical_with_the_training_levels_in_another_order_is_put_in_their_order(r):
    """A Categorical whose categories are the model's training levels in another order reaches
    R as a factor in that order, and models that read factor codes predict silently wrong. When
    the model records its levels, RModel puts the categories in that order first: R's own
    predictions on R-ordered data, no warning, the caller's frame untouched."""
    import warnings

    from r_bridge import RModel, convert

    r.require(["ranger", "e1071", "rpart", "randomForest", "nnet"])
    X = convert.r2py(r.r_eval(_TRAIN_G + "tr[1:12, c('x', 'g')]"))
    assert list(X["g"].cat.categories) == ["a", "B", "c"]
    user = X.assign(g=pd.Categorical(X["g"].astype(str), categories=["B", "a", "c"]))
    before = user.copy()
    for fit, pf, r_code in _positional_models(r, with_xlevels=True):
        want = np.array(r.r_eval(r_code, m=fit, d=convert.py2r(X)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = RModel(fit, predict_function=pf)._pyiml_predict(user).iloc[:, 0].to_numpy()
        np.testing.assert_array_equal(got, want)
        assert want[0] != np.array(r.r_eval(r_code, m=fit, d=convert.py2r(before)))[0]   # the order matters
        pd.testing.assert_frame_equal(user, before)
    gaps = user.assign(g=user["g"].where(user.index != 3))          # a missing value stays missing
    got = RModel(fit)._in_training_levels(gaps)["g"]
    assert list(got.cat.categories) == ["a", "B", "c"] and got.isna().tolist() == (gaps.index == 3).tolist()
    assert got.astype(object).equals(gaps["g"].astype(object)) and list(gaps["g"].cat.categories) == ["B", "a", "c"]
    # where the levels are found: R's levels in the training order; ranger's "order" levels by name
    for code in ("lm(y ~ x + g, tr)", "glm(y ~ x + g, data = tr)", "rpart::rpart(y ~ x + g, tr)",
                 "randomForest::randomForest(y ~ x + g, tr, ntree = 5)",
                 "nnet::nnet(y ~ x + g, tr, size = 1, trace = FALSE)"):
        assert RModel(r.r_eval(_TRAIN_G + code))._training_levels() == ({"g": ("a", "B", "c")}, frozenset()), code
    by_name = RModel(r.r_eval(_TRAIN_G + "ranger::ranger(y ~ ., tr, num.trees = 5, respect.unordered.factors = "
                                         "'order')"))._training_levels()
    assert by_name == ({}, frozenset({"g"}))


def test_categorical_in_python_sort_order_warns_for_a_model_that_records_no_levels(r):
    """astype('category') sorts 'B' before 'a', R's factor() after: ranger and e1071::svm, which
    record no levels, would read the levels by position. One warning per RModel and column names
    the column, both orders and the fix; following it gives R's predictions on R-ordered data."""
    import warnings

    from r_bridge import RModel, convert

    r.require(["ranger", "e1071"])
    collation = str(r.r_eval("Sys.getlocale('LC_COLLATE')")[0])
    icu = bool(r.r_eval("capabilities('ICU')")[0])
    try:
        # the warning exists only where R sorts otherwise than Python: with ICU's collation ('a'
        # before 'B'; R uses it in a UTF-8 locale, and, whatever the process's locale, once
        # icuSetCollate names one) or a glibc locale's, not under "C" (code points, as Python)
        if icu:
            r.r_eval("invisible(Sys.setlocale('LC_COLLATE', 'C.UTF-8')); icuSetCollate(locale = 'root')")
            assert list(r.r_eval("sort(c('B', 'a', 'c'))")) == ["a", "B", "c"], "ICU's root collation"
        elif not _glibc_collation_sorting_a_before_B(r):
            pytest.skip("this R has no ICU collation (capabilities('ICU') is FALSE) and no installed locale "
                        "(locale -a) sorts 'a' before 'B': R sorts as Python does, so there is nothing to warn about")
        _warns_in_python_sort_order(r)
        r.r_eval("invisible(Sys.setlocale('LC_COLLATE', 'C'))")    # R sorts as Python: nothing to warn about
        X = convert.r2py(r.r_eval(_TRAIN_G + "tr[1:30, c('x', 'g')]"))
        for fit, pf, _ in _positional_models(r, with_xlevels=False):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                RModel(fit, predict_function=pf)._pyiml_predict(X.assign(g=X["g"].astype(str).astype("category")))
    finally:
        if icu:
            r.r_eval("icuSetCollate(locale = 'default')")
        r.r_eval(f"invisible(Sys.setlocale('LC_COLLATE', '{collation}'))")


def _glibc_collation_sorting_a_before_B(r) -> bool:
    """Set R's LC_COLLATE to an installed locale that sorts 'a' before 'B' (R without ICU uses
    the C library's collation); False when none does."""
    for loc in r.r_eval("system('locale -a', intern = TRUE)"):
        if str(loc).lower().split(".")[0] in ("c", "posix"):
            continue
        if str(r.r_eval(f"Sys.setlocale('LC_COLLATE', '{loc}')")[0]) and \
                list(r.r_eval("sort(c('B', 'a', 'c'))")) == ["a", "B", "c"]:
            return True
    return False


def _warns_in_python_sort_order(r):
    import warnings

    from r_bridge import RModel, convert, r_predictor

    X = convert.r2py(r.r_eval(_TRAIN_G + "tr[1:30, c('x', 'g')]"))
    user = X.assign(g=X["g"].astype(str).astype("category"))
    assert list(user["g"].cat.categories) == ["B", "a", "c"]
    lm = RModel(r.r_eval(_TRAIN_G + "lm(y ~ x + g, tr)"))
    for fit, pf, r_code in _positional_models(r, with_xlevels=False):
        m = RModel(fit, predict_function=pf)
        with pytest.warns(UserWarning) as record:
            m._pyiml_predict(user)
            m._pyiml_predict(user.head(5))
        msgs = [str(w.message) for w in record if "RModel: column" in str(w.message)]
        assert len(msgs) == 1, msgs
        assert [w.filename for w in record if "RModel: column" in str(w.message)] == [__file__]   # the caller's line
        for part in ("column 'g'", "['B', 'a', 'c']", "R sorts them ['a', 'B', 'c']", "(ranger, e1071::svm)",
                     "df['g'] = df['g'].cat.reorder_categories(['a', 'B', 'c'])"):
            assert part in msgs[0], part
        with pytest.warns(UserWarning) as record:       # R's iml on the same data: the same warning
            r_predictor(user, model=RModel(fit, predict_function=pf))
        assert [str(w.message) for w in record if "RModel: column" in str(w.message)] == msgs
        fixed = user.copy()
        fixed["g"] = fixed["g"].cat.reorder_categories(["a", "B", "c"])   # the fix the warning gives
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = RModel(fit, predict_function=pf)._pyiml_predict(fixed).iloc[:, 0].to_numpy()
            r_predictor(fixed, model=RModel(fit, predict_function=pf))
            for data in (X, X.assign(g=X["g"].astype(str))):             # R's levels, strings: no warning
                RModel(fit, predict_function=pf)._pyiml_predict(data)
            # a model that records its levels is put right without a warning
            np.testing.assert_allclose(lm._pyiml_predict(user)["pred"], lm._pyiml_predict(X)["pred"], rtol=1e-13)
        np.testing.assert_array_equal(got, np.array(r.r_eval(r_code, m=fit, d=convert.py2r(X))))


_MLR_CARET = {
    "mlr_prob": ('mlr::train(mlr::makeLearner("classif.rpart", minsplit = 7, predict.type = "prob"), '
                 'mlr::makeClassifTask(data = iris, target = "Species"))', "Species"),
    "mlr_response": ('mlr::train(mlr::makeLearner("classif.rpart", minsplit = 7), '
                     'mlr::makeClassifTask(data = iris, target = "Species"))', "Species"),
    "mlr_regr": ('mlr::train(mlr::makeLearner("regr.rpart"), mlr::makeRegrTask(data = iris[, 1:4], '
                 'target = "Sepal.Length"))', "Sepal.Length"),
    "caret_class": ('caret::train(Species ~ ., data = iris, method = "rpart", '
                    'trControl = caret::trainControl(method = "none"), tuneGrid = data.frame(cp = 0.01))', "Species"),
    "caret_regr": ('caret::train(Sepal.Length ~ ., data = iris[, 1:4], method = "lm", '
                   'trControl = caret::trainControl(method = "none"))', "Sepal.Length"),
}


@pytest.mark.parametrize("name", sorted(_MLR_CARET))
def test_mlr_and_caret_models_predict_as_iml(r, name):
    """iml's own Predictor example: an mlr WrappedModel (and caret's train) — iml calls their
    predict with ``newdata =`` and reads probabilities, labels or responses per task type
    (create_predict_fun2.WrappedModel / .train); RModel called predict(model, newdata), which mlr
    takes as its task argument. The target is found from the task (find_y.WrappedModel) or
    caret's formula."""
    import pyiml
    from r_bridge import RModel, convert

    code, target = _MLR_CARET[name]
    packages = ["mlr"] if name.startswith("mlr") else ["caret", "rpart"]
    if name == "mlr_response":   # iml warns in inferTaskFromModel
        with pytest.warns(UserWarning, match="Output seems to be class instead of probabilities"):
            m = RModel(code, packages=packages, seed=1)
    else:
        m = RModel(code, packages=packages, seed=1)
    iris = convert.r2py(r.r_eval("iris" if name not in ("mlr_regr", "caret_regr") else "iris[, 1:4]"))
    assert m.target == target
    assert m.task == ("regression" if name.endswith("regr") else "classification")
    p = pyiml.Predictor(m, data=iris)
    assert target not in p.data.feature_names and p.data.y_names == [target]
    rows = iris.iloc[[0, 1, 50, 51, 100, 149]].reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # iml's own warning for mlr_response, through R
        want = _iml_predict(r, m, rows)
    got = p.predict(rows)
    pd.testing.assert_frame_equal(got, want)
    if name in ("mlr_prob", "caret_class"):
        assert list(got.columns) == ["setosa", "versicolor", "virginica"]
    elif name == "mlr_response":
        assert set(np.unique(got.to_numpy())) == {0.0, 1.0}
    else:
        assert list(got.columns) == [".prediction"]


def test_one_row_prediction_that_r_drops_to_a_vector_is_one_row(r):
    """nnet::multinom(type = "probs") returns a named vector for one row; iml stops at "Must
    have exactly 1 rows" (so does Interaction, whose first call predicts one row), pyiml read it
    as 3 predictions for 1 row. It is the one row of class probabilities."""
    import pyiml
    from r_bridge import RModel, convert

    r.require(["nnet"])
    iris = convert.r2py(r.r_eval("iris"))
    m = RModel(r.r_eval("nnet::multinom(Species ~ ., data = iris, trace = FALSE)"), type="probs")
    p = pyiml.Predictor(m, data=iris, y="Species")
    two = p.predict(iris.iloc[[0, 60]])
    one = p.predict(iris.iloc[[60]])
    assert list(one.columns) == ["setosa", "versicolor", "virginica"] and one.index.tolist() == [60]
    np.testing.assert_array_equal(one.to_numpy(), two.to_numpy()[1:])
    res = pyiml.Interaction(p, grid_size=4, random_state=1).results
    assert res.shape == (12, 3) and np.isfinite(res[".interaction"]).all()


def test_r_predictor_names_bool_features_and_the_fix(r):
    """R's iml rejects logical features with its assertion text (all(feature.class %in%
    names(feature.types)) is not TRUE), which names neither the column nor the fix."""
    from r_bridge import r_predictor

    d = pd.DataFrame({"a": np.arange(10.0), "flag": np.arange(10) % 2 == 0, "t": np.arange(10) % 3 == 0})
    with pytest.raises(ValueError, match=r"data column\(s\) \['flag'\] are bool.*data.astype\(\{'flag': 'category'\}\)"):
        r_predictor(d, y="t", predict_function=lambda nd: nd["a"])
    ok = r_predictor(d.astype({"flag": "category"}), y="t", predict_function=lambda nd: nd["a"])
    assert list(r.r_eval("p$data$feature.names", p=ok)) == ["a", "flag"]


def test_predict_that_returns_a_list_names_the_element_to_return(r):
    """MASS::lda's predict() returns list(class, posterior, x): iml makes a table of every
    element (class labels beside posteriors and discriminant scores). RModel refuses such a
    list, naming its elements and the predict_function that returns the predictions; with that
    function the results are iml's. A list of numeric columns is a table, as in iml, and so is
    a list that as.data.frame() knows (ranger's ranger.prediction: its predictions)."""
    import pyiml
    from r_bridge import RError, RModel, convert

    r.require(["MASS", "ranger"])
    iris = convert.r2py(r.r_eval("iris"))
    fit = r.r_eval("MASS::lda(Species ~ ., data = iris)")
    pf = "function(model, newdata) predict(model, newdata)$posterior"
    with pytest.raises(RError, match=r"predict\(\) of this lda model returned a list \(elements: class, posterior, x\)"
                                     r".*RModel\(model, predict_function=\"function\(model, newdata\) "
                                     r"predict\(model, newdata\)\$posterior\"\)"):
        pyiml.Predictor(RModel(fit), data=iris, y="Species").predict(iris.iloc[:3])
    with pytest.raises(RError, match=r"the predict_function returned a list .*ends in \$posterior"):
        RModel(fit, predict_function="function(model, newdata) predict(model, newdata)")._pyiml_predict(iris)
    got = pyiml.Predictor(RModel(fit, predict_function=pf), data=iris, y="Species").predict(iris)
    want = convert.r2py(r.r_eval("iml::Predictor$new(m, data = d, predict.function = function(model, newdata) "
                                 "predict(model, newdata)$posterior)$predict(d)", m=fit, d=convert.py2r(iris)))
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    assert list(got.columns) == ["setosa", "versicolor", "virginica"]
    rg = r.r_eval("ranger::ranger(Sepal.Length ~ ., data = iris, num.trees = 5, seed = 1)")
    got = RModel(rg)._pyiml_predict(iris.iloc[:5])
    pd.testing.assert_frame_equal(got, _iml_predict(r, RModel(rg), iris.iloc[:5]))
    assert list(got.columns) == ["prediction"]
    two = RModel(fit, predict_function="function(model, newdata) list(a = newdata$Sepal.Width, b = 2 * newdata$Sepal.Width)")
    np.testing.assert_array_equal(two._pyiml_predict(iris.iloc[:4]).to_numpy(),
                                  np.c_[iris["Sepal.Width"][:4], 2 * iris["Sepal.Width"][:4]])
