"""r_bridge: pandas ↔ R conversion, R models in Python, Python models in R's iml, iml from Python.

R tests carry the marker ``r`` and use the ``r`` fixture (skipped, or failed under
``PYIML_REQUIRE_R=1``, when R/rpy2/iml are missing).
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------------------- strategies
try:  # hypothesis >= 6.84 names these exclude_*; older versions blacklist_*
    _CHARS = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")
except TypeError:  # pragma: no cover - depends on the hypothesis version
    _CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
_TEXT = st.text(_CHARS, max_size=6)
KINDS = ("float64", "int64", "int32", "bool", "str", "category", "Int64", "boolean", "string")


def _column(kind: str, n: int):
    """A strategy for one column of ``kind`` with ``n`` rows."""
    if kind == "float64":
        return st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=n, max_size=n).map(
            lambda v: pd.Series(np.array(v, dtype=np.float64)))
    if kind in ("int64", "int32"):
        return st.lists(st.integers(-(2 ** 31 - 1), 2 ** 31 - 1), min_size=n, max_size=n).map(
            lambda v: pd.Series(np.array(v, dtype=kind)))
    if kind == "bool":
        return st.lists(st.booleans(), min_size=n, max_size=n).map(lambda v: pd.Series(np.array(v, dtype=bool)))
    if kind == "str":
        return st.lists(st.one_of(st.none(), _TEXT), min_size=n, max_size=n).map(
            lambda v: pd.Series(np.array(v, dtype=object)))
    if kind == "Int64":
        return st.lists(st.one_of(st.none(), st.integers(-(2 ** 31 - 1), 2 ** 31 - 1)), min_size=n, max_size=n).map(
            lambda v: pd.Series(pd.array(v, dtype="Int64")))
    if kind == "boolean":
        return st.lists(st.one_of(st.none(), st.booleans()), min_size=n, max_size=n).map(
            lambda v: pd.Series(pd.array(v, dtype="boolean")))
    if kind == "string":
        return st.lists(st.one_of(st.none(), _TEXT), min_size=n, max_size=n).map(
            lambda v: pd.Series(pd.array(v, dtype="string")))
    if kind == "category":
        return st.tuples(st.lists(_TEXT, unique=True, max_size=5), st.booleans()).flatmap(
            lambda cats_ordered: st.lists(st.integers(-1, len(cats_ordered[0]) - 1), min_size=n, max_size=n).map(
                lambda codes: pd.Series(pd.Categorical.from_codes(
                    codes, categories=pd.Index(cats_ordered[0], dtype=object), ordered=cats_ordered[1]))))
    raise AssertionError(kind)


@st.composite
def frames(draw):
    n = draw(st.integers(0, 12))
    names = draw(st.lists(_TEXT, min_size=1, max_size=6, unique=True))
    cols = {}
    for name in names:
        kind = draw(st.sampled_from(KINDS))
        cols[name] = (kind, draw(_column(kind, n)))
    df = pd.DataFrame({k: v for k, (_, v) in cols.items()})
    df.index = pd.RangeIndex(100, 100 + n)  # a non-default index: must not reach R
    return df, {k: kind for k, (kind, _) in cols.items()}


_R_CLASS = {"float64": "numeric", "int64": "integer", "int32": "integer", "bool": "logical", "str": "character",
            "Int64": "integer", "boolean": "logical", "string": "character"}


def _expected_back(s: pd.Series, kind: str):
    """What r2py(py2r(.)) must give for a column (the module's documented type table)."""
    na = s.isna().to_numpy()
    if kind == "float64":
        return s.to_numpy()
    if kind in ("int64", "int32"):
        return s.to_numpy().astype(np.int64)
    if kind in ("Int64",):
        return pd.array(s, dtype="Int64") if na.any() else s.to_numpy(dtype=np.int64)
    if kind == "bool":
        return s.to_numpy()
    if kind == "boolean":
        return pd.array(s, dtype="boolean") if na.any() else s.to_numpy(dtype=bool)
    if kind in ("str", "string"):
        vals = [None if m else v for v, m in zip(s.tolist(), na)]
        return pd.array(vals, dtype="string") if na.any() else np.array(vals, dtype=object)
    if kind == "category":
        return s.array
    raise AssertionError(kind)


def _assert_same_column(got: pd.Series, exp, kind: str, name: str):
    where = f"column {name!r} ({kind})"
    if kind == "category":
        assert isinstance(got.dtype, pd.CategoricalDtype), where
        assert list(got.cat.categories) == list(exp.categories), where
        assert got.cat.ordered == exp.ordered, where
        np.testing.assert_array_equal(got.cat.codes.to_numpy(), exp.codes, err_msg=where)
        return
    if isinstance(exp, np.ndarray):
        assert got.dtype == exp.dtype, f"{where}: dtype {got.dtype} != {exp.dtype}"
        g = got.to_numpy()
        if exp.dtype.kind == "f":
            assert np.array_equal(np.isnan(g), np.isnan(exp)), where
            ok = ~np.isnan(exp)
            np.testing.assert_array_equal(g[ok], exp[ok], err_msg=where)
            np.testing.assert_array_equal(np.signbit(g[ok]), np.signbit(exp[ok]), err_msg=where)
        else:
            assert g.tolist() == exp.tolist(), where
        return
    assert got.dtype == exp.dtype, f"{where}: dtype {got.dtype} != {exp.dtype}"
    np.testing.assert_array_equal(got.isna().to_numpy(), pd.isna(exp), err_msg=where)
    ok = ~pd.isna(exp)
    assert got[ok].tolist() == list(np.asarray(exp, dtype=object)[ok]), where


# ---------------------------------------------------------------------------- conversion
@pytest.mark.r
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(frame=frames())
def test_round_trip_is_exact_for_every_column_type(r, frame):
    from r_bridge import convert

    df, kinds = frame
    before = df.copy()
    rdf = convert.py2r(df)
    pd.testing.assert_frame_equal(df, before)  # the caller's data is not touched
    # what R sees: names kept exactly, row names 1..n, the R class per column, NAs where pandas has them
    info = r.r_eval("list(names(d), nrow(d), sapply(d, function(x) class(x)[1]), "
                    "as.integer(vapply(d, function(x) sum(is.na(x)), 1)), attr(d, 'row.names'))", d=rdf)
    assert list(info[0]) == list(df.columns)
    assert int(info[1][0]) == len(df)
    for name, rclass, nas in zip(df.columns, info[2], info[3]):
        kind = kinds[name]
        want = ("ordered" if df[name].cat.ordered else "factor") if kind == "category" else _R_CLASS[kind]
        assert rclass == want, (name, kind)
        assert nas == int(df[name].isna().sum()), (name, kind)
    assert list(info[4]) == list(range(1, len(df) + 1))

    back = convert.r2py(rdf)
    assert list(back.columns) == list(df.columns)
    assert back.index.equals(pd.RangeIndex(len(df)))
    for j, name in enumerate(df.columns):
        _assert_same_column(back.iloc[:, j], _expected_back(df.iloc[:, j], kinds[name]), kinds[name], name)


@pytest.mark.r
def test_non_syntactic_names_and_row_order_survive(r):
    from r_bridge import convert

    df = pd.DataFrame({"a b": [3.0, 1.0, 2.0], "1x": [1, 2, 3], "x.1": ["u", "v", "w"], "": [True, False, True],
                       "NA": pd.Categorical(["p", "q", "p"])}, index=[9, 3, 5])
    rdf = convert.py2r(df)
    assert list(r.r_eval("names(d)", d=rdf)) == ["a b", "1x", "x.1", "", "NA"]
    assert list(r.r_eval("d[['a b']]", d=rdf)) == [3.0, 1.0, 2.0]
    assert list(r.r_eval("rownames(d)", d=rdf)) == ["1", "2", "3"]
    back = convert.r2py(rdf)
    assert list(back.columns) == ["a b", "1x", "x.1", "", "NA"]
    assert back["a b"].tolist() == [3.0, 1.0, 2.0] and back["x.1"].tolist() == ["u", "v", "w"]


@pytest.mark.r
def test_r_missing_values_map_to_python_missing_values(r):
    from r_bridge import convert

    d = convert.r2py(r.r_eval("data.frame(a = c(1, NA, NaN), b = c(1L, NA, 3L), c = c(TRUE, NA, FALSE), "
                              "d = c('x', NA, 'z'), e = factor(c('u', NA, 'u'), levels = c('u', 'v')), "
                              "f = 1:3, g = c('p', 'q', 'r'), check.names = FALSE, stringsAsFactors = FALSE)"))
    assert d["a"].dtype == np.float64 and np.isnan(d["a"][1]) and np.isnan(d["a"][2])
    assert str(d["b"].dtype) == "Int64" and d["b"].isna().tolist() == [False, True, False]
    assert str(d["c"].dtype) == "boolean" and d["c"].isna().tolist() == [False, True, False]
    assert str(d["d"].dtype) == "string" and d["d"].isna().tolist() == [False, True, False]
    assert list(d["e"].cat.categories) == ["u", "v"] and d["e"].isna().tolist() == [False, True, False]
    assert d["f"].dtype == np.int64 and d["g"].dtype == object
    # and NAs go to R as NA of the right type
    out = r.r_eval("vapply(d, function(x) paste(class(x)[1], sum(is.na(x))), '')", d=convert.py2r(
        pd.DataFrame({"s": np.array(["a", None], dtype=object), "i": pd.array([1, None], dtype="Int64"),
                      "f": pd.array([1.5, None], dtype="Float64"), "b": pd.array([None, True], dtype="boolean")})))
    assert list(out) == ["character 1", "integer 1", "numeric 1", "logical 1"]
    assert bool(r.r_eval("is.na(d$f[2]) && !is.nan(d$f[2])", d=convert.py2r(
        pd.DataFrame({"f": pd.array([1.5, None], dtype="Float64")})))[0])  # NA_real_, not NaN


@pytest.mark.r
def test_categories_become_string_levels_in_order_with_unused_levels(r):
    from r_bridge import convert

    s = pd.Categorical([3, 1, None], categories=[3, 1, 2], ordered=True)
    rdf = convert.py2r(pd.DataFrame({"c": s}))
    assert list(r.r_eval("levels(d$c)", d=rdf)) == ["3", "1", "2"]
    assert list(r.r_eval("class(d$c)", d=rdf)) == ["ordered", "factor"]
    back = convert.r2py(rdf)["c"]
    assert list(back.cat.categories) == ["3", "1", "2"] and back.cat.ordered
    assert back.astype(object).tolist()[:2] == ["3", "1"] and pd.isna(back[2])


@pytest.mark.r
@pytest.mark.parametrize("values, match", [
    (pd.Series(pd.to_datetime(["2020-01-01", "2021-01-01"])), "column 'bad' has dtype datetime64"),
    (pd.Series(pd.to_timedelta([1, 2], unit="s")), "column 'bad' has dtype timedelta64"),
    (pd.Series([1 + 2j, 3j]), "column 'bad' has dtype complex128"),
    (pd.Series(np.array(["a", 1], dtype=object)), "column 'bad' is an object column of mixed"),
])
def test_unsupported_dtypes_raise_type_error_naming_the_column(r, values, match):
    from r_bridge import convert

    with pytest.raises(TypeError, match=match):
        convert.py2r(pd.DataFrame({"ok": [1.0, 2.0], "bad": values}))


@pytest.mark.r
@pytest.mark.parametrize("df, match", [
    (pd.DataFrame({"a": ["ok", "x\ud800"]}), "column 'a' holds a string that is not valid Unicode"),
    (pd.DataFrame({"a": pd.Categorical(["x\udcff", "y"])}), "column 'a' holds a string that is not valid Unicode"),
    (pd.DataFrame({"x\ud800": [1.0]}), "column name .* is not valid Unicode.*rename the column"),
])
def test_strings_that_are_not_utf8_raise_naming_the_column(r, df, match):
    """rpy2 3.5 reports a lone surrogate as "from_memoryview() and from_iterable() both failed"
    (a ValueError naming neither the column nor the cause)."""
    from r_bridge import convert

    with pytest.raises(ValueError, match=match):
        convert.py2r(df)


@pytest.mark.r
def test_integers_outside_r_range_raise_naming_the_column(r):
    from r_bridge import convert

    with pytest.raises(ValueError, match=r"column 'big' has the integer value 2147483648, outside R's integer range"):
        convert.py2r(pd.DataFrame({"big": np.array([1, 2 ** 31], dtype=np.int64)}))
    with pytest.raises(ValueError, match="column 'small'.*-2147483648"):
        convert.py2r(pd.DataFrame({"small": np.array([-(2 ** 31)], dtype=np.int64)}))  # R's NA_integer_
    with pytest.raises(ValueError, match="column 'u'"):
        convert.py2r(pd.DataFrame({"u": np.array([2 ** 32], dtype=np.uint64)}))
    assert list(r.r_eval("d$i", d=convert.py2r(pd.DataFrame({"i": np.array([2 ** 31 - 1, -(2 ** 31 - 1)])})))) == [
        2 ** 31 - 1, -(2 ** 31 - 1)]


@pytest.mark.r
def test_vectors_and_other_r_values(r):
    from r_bridge import convert

    assert list(r.r_eval("class(x)", x=convert.vector_py2r(pd.Series([1, 2])))) == ["integer"]
    assert list(r.r_eval("levels(x)", x=convert.vector_py2r(pd.Categorical(["b", "a"])))) == ["a", "b"]
    s = convert.vector_r2py(r.r_eval("c(1L, NA)"), name="v")
    assert s.name == "v" and str(s.dtype) == "Int64"
    assert convert.r2py(r.r_eval("NULL")) is None
    assert convert.r2py(r.r_eval("2.5")) == 2.5 and convert.r2py(r.r_eval("'a'")) == "a"
    np.testing.assert_array_equal(convert.r2py(r.r_eval("c(1, 2)")), [1.0, 2.0])
    named = convert.r2py(r.r_eval("c(a = 1, b = 2)"))
    assert named.to_dict() == {"a": 1.0, "b": 2.0}
    out = convert.r2py(r.r_eval("list(df = data.frame(x = 1:2), n = 3)"))
    assert set(out) == {"df", "n"} and out["df"]["x"].tolist() == [1, 2] and out["n"] == 3.0
    np.testing.assert_array_equal(convert.r2py(r.r_eval("matrix(1:4, 2)")), [[1, 3], [2, 4]])
    with pytest.raises(TypeError, match="column 'd' has class Date"):
        convert.r2py(r.r_eval("data.frame(d = as.Date('2020-01-01'), x = 1)"))


@pytest.mark.r
def test_a_million_rows_round_trip(r):
    from r_bridge import convert

    rng = np.random.default_rng(0)
    n = 1_000_000
    df = pd.DataFrame({f"x{i}": rng.uniform(size=n) for i in range(10)})
    df["i"] = rng.integers(0, 100, size=n)
    df["c"] = pd.Categorical(rng.choice(["a", "b", "c"], size=n))
    back = convert.r2py(convert.py2r(df))
    assert list(back.columns) == list(df.columns) and list(back.dtypes) == list(df.dtypes)
    for c in df.columns[:-1]:
        assert np.array_equal(back[c].to_numpy(), df[c].to_numpy()), c
    assert np.array_equal(back["c"].cat.codes.to_numpy(), df["c"].cat.codes.to_numpy())
    assert list(back["c"].cat.categories) == list(df["c"].cat.categories)


# ---------------------------------------------------------------------------- R models in Python
RF_BOSTON = "randomForest::randomForest(medv ~ ., data = MASS::Boston, ntree = 20)"
RF_IRIS = "randomForest::randomForest(Species ~ ., data = iris, ntree = 20)"


@pytest.fixture(scope="module")
def boston(r):
    from r_bridge import convert

    r.require(["MASS", "randomForest"])
    return convert.r2py(r.r_eval("MASS::Boston"))


@pytest.fixture(scope="module")
def iris(r):
    from r_bridge import convert

    return convert.r2py(r.r_eval("datasets::iris"))


def _r_iml_predict(r, model_r, data_code: str, extra: str = "", **variables):
    """R's own iml::Predictor$new(model, data, ...)$predict(data), as pandas."""
    from r_bridge import convert

    return convert.r2py(r.r_eval(f"iml::Predictor$new(m, data = {data_code}{extra})$predict({data_code})",
                                 m=model_r, **variables))


@pytest.mark.r
def test_rmodel_regression_equals_r_iml_predictor(r, boston):
    from r_bridge import RModel

    rf = RModel(RF_BOSTON, packages=["randomForest", "MASS"], seed=1)
    assert rf.task == "unknown" and rf.type is None and rf.predict_function is None
    expected = _r_iml_predict(r, rf.r_object, "MASS::Boston")
    try:
        import pyiml

        got = pyiml.Predictor(model=rf, data=boston, y="medv").predict(boston)
    except ImportError:  # pragma: no cover - pyiml always ships with r_bridge
        got = rf._pyiml_predict(boston.drop(columns="medv"))
    assert list(got.columns) == ["pred"] == list(expected.columns)
    np.testing.assert_array_equal(got["pred"].to_numpy(), expected["pred"].to_numpy())
    # same seed, same forest
    again = RModel(RF_BOSTON, packages=["randomForest", "MASS"], seed=1)
    np.testing.assert_array_equal(again._pyiml_predict(boston.head(20))["pred"], got["pred"][:20])


@pytest.mark.r
def test_rmodel_prediction_leaves_no_reference_cycle(r, boston, iris, garbage_cycles):
    """The data.frame an RModel hands to R is freed as soon as the call returns: an rpy2
    ``robjects`` DataFrame refers to itself through its delegates, so each prediction's copy of
    the data stayed in R's memory until Python's garbage collector ran (45 objects a call)."""
    from r_bridge import RModel

    models = [(RModel(RF_BOSTON, packages=["randomForest", "MASS"], seed=1), boston.drop(columns="medv")),
              (RModel(RF_IRIS, packages=["randomForest"], type="prob", seed=7), iris.drop(columns="Species"))]
    for rf, X in models:
        rf._pyiml_predict(X)
        assert garbage_cycles(lambda: rf._pyiml_predict(X)) == 0


@pytest.mark.r
def test_rmodel_classification_prob_and_labels(r, iris):
    from r_bridge import RModel

    X = iris.drop(columns="Species")
    prob = RModel(RF_IRIS, packages=["randomForest"], type="prob", seed=7)
    got = prob._pyiml_predict(X)
    expected = _r_iml_predict(r, prob.r_object, "iris", ', type = "prob"')
    assert list(got.columns) == ["setosa", "versicolor", "virginica"] == list(expected.columns)
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
    np.testing.assert_allclose(got.sum(axis=1), 1.0)

    labels = RModel(prob.r_object)  # no type: predicted labels, one-hot like iml
    got = labels._pyiml_predict(X)
    expected = _r_iml_predict(r, labels.r_object, "iris")
    assert list(got.columns) == ["setosa", "versicolor", "virginica"] == list(expected.columns)
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
    assert set(np.unique(got.to_numpy())) <= {0.0, 1.0} and (got.sum(axis=1) == 1).all()


@pytest.mark.r
def test_rmodel_with_predict_function_names_like_sanitize_prediction(r, boston, iris):
    from r_bridge import RModel

    rf = RModel(RF_BOSTON, packages=["randomForest", "MASS"], seed=1,
                predict_function="function(model, newdata) predict(model, newdata)")
    got = rf._pyiml_predict(boston.drop(columns="medv").head(50))
    assert list(got.columns) == ["..prediction"]
    code = "function(model, newdata) predict(model, newdata)"
    expected = _r_iml_predict(r, rf.r_object, "MASS::Boston[1:50, ]", ", predict.function = f",
                              f=r.r_eval(code))
    np.testing.assert_array_equal(got["..prediction"], expected["..prediction"])
    unnamed = RModel(RF_IRIS, packages=["randomForest"], seed=7,
                     predict_function="function(model, newdata) unname(predict(model, newdata, type = 'prob'))")
    assert list(unnamed._pyiml_predict(iris.drop(columns="Species").head(3)).columns) == [
        "..prediction.1", "..prediction.2", "..prediction.3"]


@pytest.mark.r
def test_rmodel_errors_and_warnings(r):
    from r_bridge import RError, RModel, RNotAvailableError, RWarning

    with pytest.raises(RError, match="object 'no_such_thing' not found"):
        RModel("no_such_thing + 1")
    with pytest.raises(RNotAvailableError, match="notARealPackage"):
        RModel("1", packages=["notARealPackage"])
    with pytest.raises(TypeError, match="model must be an R model"):
        RModel(3.5)
    with pytest.raises(RError, match="predict_function must be R code of a function"):
        RModel("1", predict_function="42")
    with pytest.raises(ValueError, match="type='class' is not used with a predict_function"):   # was ignored
        RModel("lm(dist ~ speed, cars)", predict_function="function(model, newdata) predict(model, newdata)",
               type="class")
    with pytest.warns(RWarning, match="careful"):
        RModel("{warning('careful'); lm(dist ~ speed, cars)}")


@pytest.mark.r
def test_an_r_warning_of_predict_is_warned_once_per_rmodel(r):
    """predict() of a rank-deficient lm warns on every call; pyiml's FeatureEffect predicts many
    times (and pandas resets Python's once-per-location registry on the way), yet the warning
    shows once per RModel. Other R calls still warn each time."""
    import warnings

    import pyiml
    from r_bridge import RModel, RWarning, convert

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x1": rng.normal(size=40), "x2": rng.normal(size=40)})
    X["x3"] = X["x1"] + X["x2"]
    X["y"] = X["x1"] - X["x2"] + rng.normal(size=40)
    fit = r.r_eval("lm(y ~ x1 + x2 + x3, d)", d=convert.py2r(X))

    def r_warnings(call):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in seen if issubclass(w.category, RWarning)]

    m = RModel(fit)
    p = pyiml.Predictor(m, data=X, y="y", batch_size=20)
    seen = r_warnings(lambda: pyiml.FeatureEffect(p, "x1", method="pdp+ice", grid_size=5))
    assert seen == ["R warning: prediction from a rank-deficient fit may be misleading"]
    assert r_warnings(lambda: m._pyiml_predict(X.head(3))) == []          # the same model: already said
    assert len(r_warnings(lambda: RModel(fit)._pyiml_predict(X.head(3)))) == 1   # another model says it again
    for _ in range(2):   # other R calls are not deduplicated
        assert r_warnings(lambda: r.r_eval("warning('w1'); warning('w1'); warning('w2')")) == [
            "R warning: w1", "R warning: w2"]


@pytest.mark.r
def test_seeds_outside_r_range_are_a_value_error_naming_the_range(r):
    import r_bridge
    from r_bridge import RModel, set_seed
    from r_bridge import iml as riml

    rng = "must be an integer in \\[-2147483647, 2147483647\\] \\(as R's set.seed"
    with pytest.raises(ValueError, match="seed " + rng):
        RModel("1", seed=2 ** 31)
    with pytest.raises(ValueError, match="seed " + rng + ".*got -2147483648"):
        set_seed(-2 ** 31)                                           # R's NA_integer_
    rp = riml.r_predictor(data=pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, 1.0, 0.0]}),
                          model=r_bridge.RFunction("function(newdata) newdata$a"))
    with pytest.raises(ValueError, match="seed " + rng):
        riml.iml("FeatureEffect", rp, seed=2 ** 31, feature="a")
    fe = riml.iml("FeatureEffect", rp, seed=2 ** 31 - 1, feature="a", method="pdp")   # the ends are fine
    with pytest.raises(ValueError, match="seed " + rng):
        fe.call("center", center_at=1, seed=np.int64(2 ** 40))
    set_seed(-(2 ** 31 - 1))
    assert RModel("runif(1)", seed=2 ** 31 - 1).r_object[0] == r.r_eval("set.seed(2147483647L); runif(1)")[0]


RANGER_IRIS = "ranger::ranger(Species ~ ., data = iris, probability = TRUE, num.trees = 20, seed = 1)"


@pytest.mark.r
def test_rmodel_whose_predict_draws_from_r_generator_is_flagged_and_warned_under_rrandom(r, iris):
    """ranger's predict draws a seed from R's generator (runif) unless it is given one: in R, iml
    under set.seed interleaves those draws with its own, which RRandom cannot follow. The model
    says so (draws_random), random methods under RRandom warn, and a seeded predict gives R's
    numbers bit for bit."""
    import warnings

    import pyiml
    from parity.harness import compare_frames
    from r_bridge import RModel, iml, r_predictor

    r.require(["ranger"])
    X = iris.drop(columns="Species")
    drawing = RModel(RANGER_IRIS, packages=["ranger"],
                     predict_function="function(model, newdata) predict(model, newdata)$predictions")
    seeded = RModel(RANGER_IRIS, packages=["ranger"],
                    predict_function="function(model, newdata) predict(model, newdata, seed = 1)$predictions")
    plain = RModel("lm(Sepal.Length ~ ., data = iris)")
    assert not drawing.draws_random                      # nothing predicted yet
    for m in (drawing, seeded, plain):
        m._pyiml_predict(iris.head(30))
    assert drawing.draws_random and not seeded.draws_random and not plain.draws_random

    p_draw = pyiml.Predictor(drawing, data=iris, y="Species")
    with pytest.warns(UserWarning, match=r"FeatureImp replayed R's draws \(RRandom\).*seed = 1"):
        pyiml.FeatureImp(p_draw, loss="ce", n_repetitions=1, random_state=pyiml.RRandom(3))
    with pytest.warns(UserWarning, match="Shapley replayed R's draws"):
        pyiml.Shapley(p_draw, x_interest=X.iloc[[60]], sample_size=3, random_state=pyiml.RRandom(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # numpy draws: nothing to replay, no warning
        pyiml.FeatureImp(p_draw, loss="ce", n_repetitions=1, random_state=3)
        # a model that leaves R's generator alone: no warning, and R's iml numbers exactly
        p_seeded = pyiml.Predictor(seeded, data=iris, y="Species")
        r_seeded = r_predictor(iris, y="Species", model=seeded)
        for cls, args in [("FeatureImp", dict(loss="ce", n_repetitions=2)),
                          ("Shapley", dict(x_interest=X.iloc[[60]], sample_size=10))]:
            got = getattr(pyiml, cls)(p_seeded, random_state=pyiml.RRandom(3), **args)
            diff, _, problems = compare_frames(got.results, iml(cls, r_seeded, seed=3, **args).results)
            assert diff == 0 and not problems, (cls, diff, problems)


@pytest.mark.r
def test_randomforest_vote_ties_are_flagged_and_predictions_reproducible(r, iris):
    """randomForest's class labels break ties of the votes with unif_rand() without touching
    .Random.seed, so R's iml draws them from whatever state the generator's C code was left in.
    RModel flags the model when a prediction had a tie, and every call starts from the same
    state: the same newdata gives the same labels, however R's session generator moved."""
    from r_bridge import RModel

    r.require(["randomForest"])
    m = RModel("randomForest::randomForest(Species ~ ., data = iris, ntree = 30)", packages=["randomForest"], seed=1)
    prob = RModel(m.r_object, type="prob")
    nd = pd.concat([iris.drop(columns="Species")] * 3, ignore_index=True)
    nd["Petal.Length"] = np.repeat([1.0, 3.95, 6.9], len(iris))      # rows whose votes tie
    first = m._pyiml_predict(iris.head(20))
    assert not m.draws_random                             # no tie among these rows
    a = m._pyiml_predict(nd)
    assert m.draws_random
    ro = r.robjects()
    before = list(ro.r("set.seed(11); .Random.seed"))
    b = m._pyiml_predict(nd)
    assert list(ro.r(".Random.seed")) == before           # the session's generator is left alone
    ro.r("runif(5)")
    pd.testing.assert_frame_equal(a, m._pyiml_predict(nd))
    pd.testing.assert_frame_equal(a, b)
    assert set(first.columns) == {"setosa", "versicolor", "virginica"}
    prob._pyiml_predict(nd)
    assert not prob.draws_random                          # probabilities break no ties


@pytest.mark.r
def test_randomforest_vote_ties_are_flagged_through_caret_and_mlr(r, iris):
    """caret's "rf" and mlr's classif.randomForest predict the forest's labels, with ties of the
    votes broken at random as a bare randomForest does: RModel flags them too (iml #17)."""
    from r_bridge import RModel

    nd = pd.concat([iris.drop(columns="Species")] * 3, ignore_index=True)
    nd["Petal.Length"] = np.repeat([1.0, 3.95, 6.9], len(iris))      # rows whose votes tie
    r.require(["caret", "mlr", "randomForest"])          # scripts/bootstrap installs them
    models = [
        RModel("caret::train(Species ~ ., data = iris, method = 'rf', ntree = 30, "
               "trControl = caret::trainControl(method = 'none'), tuneGrid = data.frame(mtry = 2))",
               packages=["caret", "randomForest"], seed=1),
        RModel("mlr::train(mlr::makeLearner('classif.randomForest', ntree = 30), "
               "mlr::makeClassifTask(data = iris, target = 'Species'))", packages=["mlr", "randomForest"], seed=1),
    ]
    for m in models:
        m._pyiml_predict(iris.head(20))
        assert not m.draws_random                         # no tie among these rows
        m._pyiml_predict(nd)
        assert m.draws_random

@pytest.mark.r
def test_randomforest_ties_under_a_cutoff_are_found_as_its_c_code_finds_them(r):
    """randomForest compares (votes / ntree) / cutoff: with ntree = 30 and cutoff = (0.3, 0.7)
    the votes 9 : 21 tie there ((9/30)/0.3 == (21/30)/0.7, R's label then varies with the seed),
    though 9/0.3 != 21/0.7. RModel flags such a row, bare and through mlr; the row's neighbours
    with 8 : 22 or 10 : 20 votes are no tie."""
    from r_bridge import RModel, r2py

    r.require(["mlr", "randomForest"])
    ro = r.robjects()
    ro.r("""set.seed(1); d_cut <- data.frame(a = rnorm(200), b = rnorm(200))
            d_cut$y <- factor(ifelse(d_cut$a + rnorm(200) > 0, "p", "q"))
            set.seed(2); f_cut <- randomForest::randomForest(y ~ a + b, data = d_cut, ntree = 30, cutoff = c(0.3, 0.7))
            g_cut <- data.frame(a = seq(-3, 3, length.out = 4000), b = 0)
            v_cut <- predict(f_cut, g_cut, type = "vote", norm.votes = FALSE)""")
    votes = r2py(ro.r("as.data.frame(v_cut)"))
    grid = r2py(ro.r("g_cut"))
    tie = grid[(votes["p"] == 9).to_numpy()]
    other = grid[votes["p"].isin([8, 10]).to_numpy()]
    assert len(tie) and len(other)
    labels = {str(ro.r(f"set.seed({s}); as.character(predict(f_cut, g_cut[{tie.index[0] + 1}, ]))")[0])
              for s in range(1, 30)}
    assert labels == {"p", "q"}                           # R breaks the tie at random
    m = RModel("f_cut", packages=["randomForest"])
    m._pyiml_predict(other)
    assert not m.draws_random
    m._pyiml_predict(tie.head(1))
    assert m.draws_random
    with pytest.warns(UserWarning, match="Output seems to be class"):   # (iml's warning for label learners)
        mm = RModel("set.seed(2); mlr::train(mlr::makeLearner('classif.randomForest', ntree = 30, "
                    "cutoff = c(0.3, 0.7)), mlr::makeClassifTask(data = d_cut, target = 'y'))",
                    packages=["mlr", "randomForest"])
    with r.lock:
        ro.globalenv["mm_cut"] = mm.r_object
    v = r2py(ro.r("as.data.frame(predict(mlr::getLearnerModel(mm_cut, more.unwrap = TRUE), g_cut, type = 'vote', "
                  "norm.votes = FALSE))"))
    assert (v["p"] == 9).any() and v["p"].isin([8, 10]).any()
    mm._pyiml_predict(grid[v["p"].isin([8, 10]).to_numpy()])
    assert not mm.draws_random
    mm._pyiml_predict(grid[(v["p"] == 9).to_numpy()])
    assert mm.draws_random


@pytest.mark.r
def test_predictor_type_reaches_an_rmodels_predict_as_in_iml(r, iris):
    """Predictor(RModel(fit), type=t) predicts with predict(fit, newdata, type = t), as iml's
    Predictor$new(fit, type = t); it wins over the RModel's own type, as in r_predictor."""
    import pyiml
    from r_bridge import RModel, convert, iml as riml, r_predictor

    m = RModel("rpart::rpart(Species ~ ., data = iris)", packages=["rpart"])
    nd = iris.drop(columns="Species").iloc[[0, 70, 77, 120]]
    for typ in ("class", "vector", "prob"):
        for model in (m, RModel(m.r_object, type="prob" if typ != "prob" else "class")):
            got = pyiml.Predictor(model, data=iris, y="Species", type=typ).predict(nd)
            rp = r_predictor(iris, y="Species", model=model, type=typ)
            want = convert.r2py(r.r_eval("p$predict(nd)", p=rp, nd=convert.py2r(nd)))
            assert list(got.index) == list(nd.index)    # newdata's row labels (iml drops R's row names)
            pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
    got = pyiml.FeatureEffect(pyiml.Predictor(m, data=iris, y="Species", type="class"), "Petal.Length", method="pdp",
                              grid_size=5).results
    want = riml("FeatureEffect", r_predictor(iris, y="Species", model=m, type="class"), feature="Petal.Length",
                method="pdp", grid_size=5).results
    np.testing.assert_array_equal(got[".value"].to_numpy(), want[".value"].to_numpy())
    with pytest.raises(ValueError, match="type='class' cannot be used with an RModel that has a predict_function"):
        pyiml.Predictor(RModel(m.r_object, predict_function="function(model, newdata) predict(model, newdata)"),
                        data=iris, y="Species", type="class")


# ---------------------------------------------------------------------------- Python models in R
@pytest.mark.r
def test_sklearn_model_inside_r_iml_gives_predict_proba(r, iris):
    from sklearn.linear_model import LogisticRegression

    from r_bridge import as_r_predict_function, convert
    from r_bridge import iml as riml

    X = iris.drop(columns="Species")
    lr = LogisticRegression(max_iter=1000).fit(X, iris["Species"].astype(str))
    f = as_r_predict_function(lr)
    assert as_r_predict_function(lr) is f  # one R function per model and type
    want = lr.predict_proba(X)
    for call in ("f(newdata = d)", "f(NULL, newdata = d)",
                 "iml::Predictor$new(predict.function = f, data = d)$predict(d)"):
        got = convert.r2py(r.r_eval(call, f=f, d=convert.py2r(X)))
        assert list(got.columns) == ["setosa", "versicolor", "virginica"], call
        np.testing.assert_array_equal(got.to_numpy(), want, err_msg=call)
    rp = riml.r_predictor(data=iris, y="Species", model=lr)
    got = convert.r2py(r.r_eval("p$predict(d)", p=rp, d=convert.py2r(X)))
    np.testing.assert_array_equal(got.to_numpy(), want)
    labels = convert.r2py(r.r_eval("f(newdata = d)", f=as_r_predict_function(lr, type="class"), d=convert.py2r(X)))
    assert list(labels.columns) == ["setosa", "versicolor", "virginica"]
    np.testing.assert_array_equal(labels.to_numpy().argmax(axis=1), want.argmax(axis=1))


@pytest.mark.r
def test_python_model_called_from_r_leaves_no_reference_cycle(r, iris, garbage_cycles):
    """The prediction a Python model hands back to R is freed as soon as R drops it: as an rpy2
    ``robjects`` DataFrame it was a reference cycle (45 objects a call) that kept it in R's memory
    until Python's garbage collector ran."""
    from sklearn.linear_model import LogisticRegression

    from r_bridge import as_r_predict_function, convert

    X = iris.drop(columns="Species")
    f = as_r_predict_function(LogisticRegression(max_iter=1000).fit(X, iris["Species"].astype(str)))
    d = convert.py2r(X)
    call = "function(f, d) f(NULL, newdata = d)"   # r_call: the result stays at rinterface level
    assert convert.r2py(r.r_call(call, f, d)).shape == (150, 3)
    assert garbage_cycles(lambda: r.r_call(call, f, d)) == 0


@pytest.mark.r
def test_python_model_refitted_in_place_gets_a_new_r_function(r):
    """A classifier refitted in place (one estimator reused across CV folds) with other class
    labels, or on its columns in another order, must not get the R function made for its
    earlier fit: R's iml names the columns by the new classes and predicts as the new fit."""
    from sklearn.linear_model import LogisticRegression

    from r_bridge import as_r_predict_function, convert
    from r_bridge import iml as riml

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120)})
    d = convert.py2r(X.head(4))
    clf = LogisticRegression(max_iter=500).fit(X, np.where(X.a > 0, "cat", "dog"))
    first = riml.r_predictor(data=X, model=clf)
    assert list(convert.r2py(r.r_eval("p$predict(d)", p=first, d=d)).columns) == ["cat", "dog"]
    clf.fit(X, np.where(X.b > 0, "fox", "owl"))                          # same object, new classes
    for rp in (riml.r_predictor(data=X, model=clf), as_r_predict_function(clf)):
        call = "p$predict(d)" if "Predictor" in list(rp.rclass) else "p(newdata = d)"
        got = convert.r2py(r.r_eval(call, p=rp, d=d))
        assert list(got.columns) == ["fox", "owl"]
        np.testing.assert_array_equal(got.to_numpy(), clf.predict_proba(X.head(4)))

    reg = LogisticRegression(max_iter=500).fit(X[["a", "b"]], X.a > 0)
    as_r_predict_function(reg, data=X)
    reg.fit(X[["b", "a"]], X.b > 0)                                       # columns in another order
    got = convert.r2py(r.r_eval("f(newdata = d)", f=as_r_predict_function(reg, data=X), d=d))
    np.testing.assert_array_equal(got.to_numpy(), reg.predict_proba(X.head(4)[["b", "a"]]))


@pytest.mark.r
def test_a_python_model_called_by_r_that_waits_for_r_in_another_thread_is_an_error_not_a_hang(r):
    """R holds the session lock while it runs a Python model; a worker thread of that model that
    needs R can never get it. The worker raises a RuntimeError naming the deadlock (the model
    waits with a timeout so that a regression fails instead of hanging the suite)."""
    import concurrent.futures as cf
    import threading

    from r_bridge import RError, RModel, convert
    from r_bridge import iml as riml

    X = pd.DataFrame({"a": np.arange(6.0), "b": np.cos(np.arange(6.0))})
    rm = RModel("lm(a ~ b, data.frame(a = 1:6, b = cos(1:6)))")
    with cf.ThreadPoolExecutor(1) as pool:
        def ensemble(nd):
            return pool.submit(rm._pyiml_predict, nd).result(timeout=10)["pred"].to_numpy()

        np.testing.assert_array_equal(ensemble(X), rm._pyiml_predict(X)["pred"])     # no R on the stack: fine
        rp = riml.r_predictor(data=X, predict_function=ensemble)
        with pytest.raises(RError, match=r"RuntimeError: r_bridge: thread .* needs R, but R is held by thread "
                                         r"'MainThread', which waits for this thread to finish: a deadlock.*"
                                         r"call the RModel directly"):
            r.r_eval("p$predict(d)", p=rp, d=convert.py2r(X))
        errors = []

        def joining(nd):   # a plain thread, joined: the worker gets the error
            def work():
                try:
                    rm._pyiml_predict(nd)
                except RuntimeError as exc:
                    errors.append(str(exc))
            t = threading.Thread(target=work, name="worker")
            t.start()
            t.join(timeout=10)
            return nd["a"].to_numpy()

        r.r_eval("p$predict(d)", p=riml.r_predictor(data=X, predict_function=joining), d=convert.py2r(X))
        assert len(errors) == 1 and "thread 'worker' needs R" in errors[0] and "a deadlock" in errors[0]
        # legitimate waiting is left alone: another thread waits for R until the holder is done
        done = []

        def slow(nd):
            done.append(pool.submit(rm._pyiml_predict, nd))   # not waited for inside R's call
            return nd["a"].to_numpy()

        r.r_eval("p$predict(d)", p=riml.r_predictor(data=X, predict_function=slow), d=convert.py2r(X))
        np.testing.assert_array_equal(done[0].result(timeout=10)["pred"], rm._pyiml_predict(X)["pred"])


@pytest.mark.r
def test_conversions_and_callbacks_keep_references_to_none(r):
    """rpy2 3.5's ``memoryview()`` of an R vector drops a reference to ``None`` per call; a
    session converting many vectors then aborts ("Fatal Python error: none_dealloc"). r2py
    reads the data another way: 300 conversions and 300 Python predictions called from R
    leave the count where it was (the leak would take 1,500 and 1,800)."""
    import gc
    import sys

    from r_bridge import as_r_predict_function, convert

    frame = r.r_eval("data.frame(a = c(1.5, 2, NA), b = 1:3, l = c(TRUE, NA, FALSE), f = factor(c('x', 'y', 'x')), "
                     "s = c('u', NA, 'w'))")
    nd = convert.py2r(pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 5.0, 6.0]}))
    f = as_r_predict_function(lambda d: d["a"].to_numpy() * d["b"].to_numpy())
    for _ in range(3):   # warm-up: caches filled once
        convert.r2py(frame)
        f(newdata=nd)
    gc.collect()
    before = sys.getrefcount(None)
    for _ in range(300):
        convert.r2py(frame)
        f(newdata=nd)
    gc.collect()
    assert abs(sys.getrefcount(None) - before) < 50


@pytest.mark.r
def test_regressor_and_callable_inside_r_iml(r, boston):
    from sklearn.ensemble import RandomForestRegressor

    from r_bridge import as_r_predict_function, convert
    from r_bridge import iml as riml

    X = boston.drop(columns="medv")
    reg = RandomForestRegressor(n_estimators=10, random_state=0).fit(X, boston["medv"])
    rp = riml.r_predictor(data=boston, y="medv", model=reg)
    got = convert.r2py(r.r_eval("p$predict(d)", p=rp, d=convert.py2r(X)))
    assert list(got.columns) == ["pred"]
    np.testing.assert_array_equal(got["pred"].to_numpy(), reg.predict(X))
    f = as_r_predict_function(lambda nd: nd["rm"] * 2.0)
    got = convert.r2py(r.r_eval("iml::Predictor$new(predict.function = f, data = d)$predict(d)", f=f,
                                d=convert.py2r(X.head(5))))
    np.testing.assert_array_equal(got["pred"], X["rm"].head(5) * 2.0)


@pytest.mark.r
def test_python_model_in_r_gets_its_training_column_types_back(r):
    """R holds factor levels as strings: a pipeline trained on a Categorical with integer
    categories, on a string column read by dtype and on an ordered Categorical gets them back
    from R (r_predictor passes its data), so iml's numbers are pyiml's."""
    import pyiml
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeRegressor  # row by row: the same bits in any batch

    from r_bridge import as_r_predict_function, convert
    from r_bridge import iml as riml

    rng = np.random.default_rng(1)
    n = 40
    d = pd.DataFrame({"x": rng.normal(size=n), "k": pd.Categorical(rng.choice([1, 2, 3], size=n)),
                      "s": rng.choice(["p", "q"], size=n).astype(object),
                      "o": pd.Categorical(rng.choice(["lo", "hi"], size=n), categories=["lo", "hi"], ordered=True)})
    d["y"] = d["x"] + d["k"].astype(int) + (d["s"] == "q") + 0.5 * (d["o"] == "hi")
    seen = []

    def check_types(X):
        seen.append(X.dtypes.to_dict())
        return X

    pipe = make_pipeline(
        ColumnTransformer([("k", OneHotEncoder(), ["k", "o"]),
                           ("s", OneHotEncoder(), make_column_selector(dtype_include=object))], remainder="passthrough"),
        DecisionTreeRegressor(max_depth=5, random_state=0)).fit(d.drop(columns="y"), d["y"])
    X = d.drop(columns="y")
    before = X.copy()
    f = as_r_predict_function(pipe, data=X)
    got = convert.r2py(r.r_eval("f(newdata = nd)", f=f, nd=convert.py2r(X)))
    np.testing.assert_array_equal(got["pred"].to_numpy(), pipe.predict(X))
    pd.testing.assert_frame_equal(X, before)
    # without the template, R's string levels are not the integer categories the encoder learned
    with pytest.raises(r.RError, match="unknown categories"):
        r.r_eval("f(newdata = nd)", f=as_r_predict_function(pipe), nd=convert.py2r(X))
    # the types the model sees: those of the training data
    probe = as_r_predict_function(lambda nd: check_types(nd)["x"].to_numpy(), data=X)
    nd_r = r.r_eval("transform(nd, s = factor(s))", nd=convert.py2r(X))   # an R user's factor for s
    r.r_eval("f(newdata = nd)", f=probe, nd=nd_r)
    assert seen[-1]["k"] == X["k"].dtype and seen[-1]["o"] == X["o"].dtype and seen[-1]["s"] == object
    # iml in R on the pipeline (r_predictor passes data) gives pyiml's PDP and ALE exactly
    p = pyiml.Predictor(pipe, data=d, y="y")
    rp = riml.r_predictor(data=d, y="y", model=pipe)
    for feature, method in (("k", "pdp"), ("o", "ale"), ("s", "pdp")):
        want = pyiml.FeatureEffect(p, feature, method=method, random_state=pyiml.RRandom(1)).results
        res = riml.iml("FeatureEffect", rp, seed=1, feature=feature, method=method).results
        np.testing.assert_array_equal(res[".value"].to_numpy(), want[".value"].to_numpy())
        assert [str(v) for v in res[feature]] == [str(v) for v in want[feature]]
    with pytest.raises(TypeError, match="data must be None or a pandas DataFrame"):
        as_r_predict_function(pipe, data=X.to_numpy())


@pytest.mark.r
def test_python_model_called_from_r_sees_nullable_dtypes_of_its_data(r):
    """With ``data`` in pandas' nullable dtypes, the rows iml sends from R reach the model as
    Float64 / Int64 / string again, as pyiml's own designs do; an Int64 column at non-integral
    grid points becomes Float64, as in pyiml."""
    import pyiml

    from r_bridge import as_r_predict_function
    from r_bridge import iml as riml

    rng = np.random.default_rng(2)
    n = 30
    X = pd.DataFrame({"a": pd.array(rng.normal(size=n), dtype="Float64"),
                      "b": pd.array(rng.integers(0, 5, n), dtype="Int64"),
                      "s": pd.array(rng.choice(["p", "q"], n), dtype="string")})
    seen = []

    def f(nd):
        seen.append(tuple(str(t) for t in nd.dtypes))
        return nd["a"].to_numpy(dtype=float) + nd["b"].to_numpy(dtype=float) ** 2 + (nd["s"] == "p").to_numpy(dtype=float)

    as_r_predict_function(f, data=X)       # the template for the rows R sends back
    rp = riml.r_predictor(data=X, predict_function=f)
    for kw in (dict(feature="b", method="ale"), dict(feature="b", method="pdp", grid_points=[0.5, 2.0, 3.5])):
        seen.clear()
        res = riml.iml("FeatureEffect", rp, seed=1, **kw).results   # the seed fixes iml's order of the sums
        assert set(seen) == {("Float64", "Int64" if kw["method"] == "ale" else "Float64", "string")}
        want = pyiml.FeatureEffect(pyiml.Predictor(data=X, predict_function=f), **kw,
                                   random_state=pyiml.RRandom(1)).results
        np.testing.assert_array_equal(res[".value"].to_numpy(), want[".value"].to_numpy())


@pytest.mark.r
def test_python_exception_in_callback_becomes_r_error(r, iris):
    from r_bridge import RError, as_r_predict_function, convert
    from r_bridge import iml as riml

    def broken(newdata):
        raise ValueError("the model is broken on purpose")

    f = as_r_predict_function(broken)
    with pytest.raises(RError, match="ValueError: the model is broken on purpose"):
        r.r_eval("f(newdata = d)", f=f, d=convert.py2r(iris.head(3)))
    rp = riml.r_predictor(data=iris, y="Species", model=broken)  # iml predicts lazily
    with pytest.raises(RError, match="ValueError: the model is broken on purpose"):
        r.r_eval("p$predict(d)", p=rp, d=convert.py2r(iris.head(3)))
    rp = riml.r_predictor(data=iris.drop(columns="Species"), predict_function=broken)
    with pytest.raises(RError, match="the model is broken on purpose"):
        riml.iml("FeatureEffect", rp, feature="Sepal.Width", method="pdp")


# ---------------------------------------------------------------------------- iml from Python
@pytest.fixture(scope="module")
def rf_predictor(r, boston):
    from r_bridge import RModel
    from r_bridge import iml as riml

    rf = RModel(RF_BOSTON, packages=["randomForest", "MASS"], seed=1)
    return rf, riml.r_predictor(data=boston, y="medv", model=rf)


@pytest.mark.r
def test_feature_imp_with_seed_equals_r_and_has_iml_columns(r, rf_predictor):
    import r_bridge
    from r_bridge import convert

    rf, rp = rf_predictor
    fi = r_bridge.iml("FeatureImp", rp, seed=42, loss="mae", n_repetitions=3)
    res = fi.results
    assert list(res.columns) == ["feature", "importance.05", "importance", "importance.95", "permutation.error"]
    assert len(res) == 13 and res["feature"].dtype == object
    want = convert.r2py(r.r_eval("set.seed(42); iml::FeatureImp$new(p, loss = 'mae', n.repetitions = 3)$results",
                                 p=rp))
    pd.testing.assert_frame_equal(res, want)
    assert isinstance(fi.field("original.error"), float) and fi.field("n.repetitions") == 3.0
    assert fi.field("predictor").cls == "Predictor"
    groups = r_bridge.iml("FeatureImp", rp, seed=1, loss="mae", features={"rooms": ["rm"], "status": ["lstat", "crim"]})
    assert groups.results["feature"].tolist() in (["status", "rooms"], ["rooms", "status"])
    with pytest.raises(r_bridge.RError, match="no field 'nope'"):
        fi.field("nope")


@pytest.mark.r
def test_feature_effect_calls_and_errors(r, rf_predictor, boston):
    from r_bridge import RError, RWarning
    from r_bridge import iml as riml

    _, rp = rf_predictor
    fe = riml.iml("FeatureEffect", rp, feature="lstat", method="pdp+ice", grid_size=5)
    res = fe.results
    assert list(res.columns) == ["lstat", ".value", ".type", ".id"]
    assert str(res[".id"].dtype) == "Int64" and res.loc[res[".type"] == "pdp", ".id"].isna().all()
    assert fe.call("center", center_at=10) is fe
    assert fe.results.loc[(fe.results[".type"] == "pdp") & (fe.results["lstat"] == 10), ".value"].tolist() == [0.0]
    pred = fe.call("predict", [5.0, 10.0])
    assert isinstance(pred, np.ndarray) and pred.shape == (2,)
    assert fe.call("set_feature", "rm") is fe and "rm" in fe.results.columns
    effects = riml.iml("FeatureEffects", rp, features=["lstat", "rm"], method="ale").results
    assert list(effects) == ["lstat", "rm"]
    assert list(effects["rm"].columns) == [".type", ".value", ".borders", ".feature"]
    with pytest.raises(RError) as err:
        riml.iml("FeatureEffect", rp, feature="nope")
    assert "feature.names" in err.value.r_message
    ale = riml.iml("FeatureEffect", rp, feature="lstat", method="ale")
    with pytest.warns(RWarning, match="Centering only works for only for PDPs and ICE"):
        ale.call("center", center_at=1)
    with pytest.raises(ValueError, match="cls must be one of"):
        riml.iml("Featureimp", rp)


@pytest.mark.r
def test_shapley_local_model_tree_surrogate_interaction(r, rf_predictor, boston):
    from r_bridge import iml as riml

    _, rp = rf_predictor
    x = boston.drop(columns="medv").iloc[[0]]
    sh = riml.iml("Shapley", rp, x_interest=x, sample_size=10, seed=3)
    assert list(sh.results.columns) == ["feature", "phi", "phi.var", "feature.value"]
    first = sh.results.copy()
    assert sh.call("explain", x_interest=boston.drop(columns="medv").iloc[[1]], seed=3) is sh
    assert not sh.results["phi"].equals(first["phi"])
    lm = riml.iml("LocalModel", rp, x_interest=x, k=3)
    assert list(lm.results.columns) == ["beta", "x.recoded", "effect", "x.original", "feature", "feature.value"]
    ts = riml.iml("TreeSurrogate", rp, maxdepth=2)
    assert 0 <= ts.field("r.squared") <= 1 and ".y.hat.tree" in ts.results.columns
    ia = riml.iml("Interaction", rp, grid_size=5, seed=1)
    assert list(ia.results.columns) == [".feature", ".interaction"] and len(ia.results) == 13


@pytest.mark.r
def test_python_loss_and_class_argument(r, iris):
    from sklearn.linear_model import LogisticRegression

    from r_bridge import convert
    from r_bridge import iml as riml

    X = iris.drop(columns="Species")
    lr = LogisticRegression(max_iter=1000).fit(X, iris["Species"].astype(str))
    rp = riml.r_predictor(data=iris, y="Species", model=lr, class_="virginica")
    got = convert.r2py(r.r_eval("p$predict(d)", p=rp, d=convert.py2r(X.head(4))))
    assert list(got.columns) == ["virginica"]
    np.testing.assert_array_equal(got["virginica"], lr.predict_proba(X.head(4))[:, 2])
    reg = riml.r_predictor(data=iris.drop(columns="Species"), y="Petal.Width",
                           model=riml.RFunction("function(newdata) 0.4 * newdata$Petal.Length"))
    fi_py = riml.iml("FeatureImp", reg, seed=5, n_repetitions=2,
                     loss=lambda actual, predicted: float(np.mean(np.abs(actual - predicted))))
    fi_r = riml.iml("FeatureImp", reg, seed=5, n_repetitions=2, loss="mae")
    pd.testing.assert_frame_equal(fi_py.results, fi_r.results, rtol=1e-12)


@pytest.mark.r
def test_python_loss_returning_a_0d_array_works_inside_r_iml(r):
    """A loss returning np.asarray(<mean>) (a 0-d array) or a numpy scalar is a number for R."""
    from r_bridge import RFunction
    from r_bridge import iml as riml

    assert list(riml.to_r(np.asarray(2.5))) == [2.5] and list(riml.to_r(np.asarray("a"))) == ["a"]
    assert list(riml.to_r(np.asarray(True))) == [True] and list(riml.to_r(np.float32(0.5))) == [0.5]
    X = pd.DataFrame({"a": np.arange(20.0), "b": np.sin(np.arange(20.0))})
    X["y"] = X["a"] + 0.1 * X["b"]
    rp = riml.r_predictor(data=X, y="y", model=RFunction("function(newdata) newdata$a"))
    want = riml.iml("FeatureImp", rp, seed=1, n_repetitions=2, loss="mae").results
    for loss in (lambda actual, predicted: np.asarray(np.mean(np.abs(actual - predicted))),
                 lambda actual, predicted: np.float64(np.mean(np.abs(actual - predicted)))):
        got = riml.iml("FeatureImp", rp, seed=1, n_repetitions=2, loss=loss).results
        pd.testing.assert_frame_equal(got, want, rtol=1e-12)


@pytest.mark.r
def test_unpickled_rmodel_loads_its_packages_in_a_new_process(r, iris, tmp_path):
    """An RModel needing a package (randomForest's predict method) pickled here predicts in a
    new Python process, where nothing loaded randomForest before."""
    import pickle

    from r_bridge import RModel

    r.require(["randomForest"])
    rf = RModel(RF_IRIS, packages=["randomForest"], type="prob", seed=1)
    X = iris.drop(columns="Species").iloc[[0, 60, 120]]
    path = tmp_path / "rf.pkl"
    path.write_bytes(pickle.dumps((rf, X)))
    code = textwrap.dedent(f"""
        import pickle
        rf, X = pickle.loads(open({str(path)!r}, 'rb').read())
        print(rf._pyiml_predict(X).to_json(orient='split'))
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": ROOT})
    assert res.returncode == 0, res.stderr[-2000:]
    got = pd.read_json(res.stdout.strip().splitlines()[-1], orient="split")
    np.testing.assert_array_equal(got.to_numpy(), rf._pyiml_predict(X).to_numpy())


# ---------------------------------------------------------------------------- without R
def test_import_without_rpy2_and_clear_error_on_first_use():
    code = textwrap.dedent("""
        import sys
        sys.modules['rpy2'] = None
        import r_bridge
        from r_bridge import py2r, r2py, RModel, RFunction, as_r_predict_function, iml, r_predictor, set_seed
        from r_bridge import RError, RNotAvailableError, RWarning, session
        assert issubclass(RWarning, UserWarning)
        assert not [m for m in sys.modules if m.startswith('rpy2.')]
        try:
            r_bridge.RModel("1")
        except r_bridge.RNotAvailableError as exc:
            print("RNotAvailableError:", exc)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": ROOT})
    assert res.returncode == 0, res.stderr
    assert "RNotAvailableError: r_bridge needs rpy2 and R" in res.stdout


def test_argument_names_follow_iml():
    from r_bridge.iml import ARGUMENT_NAMES

    for py, rname in [("n_repetitions", "n.repetitions"), ("x_interest", "x.interest"), ("grid_size", "grid.size"),
                      ("center_at", "center.at"), ("grid_points", "grid.points"), ("sample_size", "sample.size"),
                      ("dist_fun", "dist.fun"), ("gower_power", "gower.power"), ("kernel_width", "kernel.width"),
                      ("tree_args", "tree.args"), ("class_", "class"), ("batch_size", "batch.size"),
                      ("predict_function", "predict.function")]:
        assert ARGUMENT_NAMES[py] == rname


@pytest.mark.r
def test_an_unseeded_iml_call_in_a_fresh_session_keeps_rs_generator_kind(r):
    """future.apply(future.seed = TRUE) without .Random.seed leaves R's generator as L'Ecuyer-CMRG
    (iml's FeatureEffects): every later set.seed(s) would draw another stream than RRandom(s).
    r_bridge restores the kind the session had."""
    from r_bridge import RFunction, iml as riml

    X = pd.DataFrame({"a": np.linspace(0, 1, 20), "b": np.linspace(1, 3, 20) ** 2})
    rp = riml.r_predictor(data=X, model=RFunction("function(newdata) newdata$a * newdata$b"))
    r.r_eval('RNGkind("Mersenne-Twister", "Inversion", "Rejection"); '
             'if (exists(".Random.seed", envir = globalenv())) rm(".Random.seed", envir = globalenv())')
    riml.iml("FeatureEffects", rp, method="ale", grid_size=4)
    assert list(r.r_eval("RNGkind()"))[0] == "Mersenne-Twister"


@pytest.mark.r
def test_model_without_a_predict_method_says_to_load_its_package(r):
    """A model read by readRDS in a session that has not loaded its package: R finds no
    predict() method; the error names RModel's packages= (iml fails with R's words alone)."""
    import pyiml
    from r_bridge import RError, RModel

    m = RModel('structure(list(), class = "noPredictModel")')
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0, 3.0]})
    with pytest.raises(RError, match=r"no applicable method for 'predict'.*of class 'noPredictModel'.*packages=\['randomForest'\].*"
                                     r"packages given: \[\]"):
        pyiml.Predictor(m, data=X).predict(X)


@pytest.mark.r
def test_r_warnings_of_predictions_point_at_the_callers_line(r):
    import warnings

    import pyiml
    from r_bridge import RModel, py2r

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=30)})
    df["b"], df["y"] = 2 * df["a"], df["a"] + rng.normal(size=30)
    ro = r.robjects()
    with r.lock:
        ro.globalenv["dd_stack"] = py2r(df)
    p = pyiml.Predictor(RModel("lm(y ~ a + b, data = dd_stack)"), data=df, y="y")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        p.predict(df.iloc[:3])
    rw = [x for x in w if "rank-deficient" in str(x.message)]
    assert rw and all(x.filename == __file__ for x in rw), [(x.filename, str(x.message)) for x in w]


@pytest.mark.r
def test_r_warnings_on_worker_threads_point_at_the_callers_line(r, monkeypatch):
    """With n_jobs > 1 an RModel's predictions run on pyiml's worker threads, whose stacks do not
    hold the user's frame: R's warnings still name the line that called the method."""
    import warnings

    import pyiml
    from pyiml import _parallel
    from r_bridge import RModel, py2r

    monkeypatch.setattr(_parallel, "_cpus", lambda: 2)
    monkeypatch.setattr(_parallel, "THREAD_MIN_BATCH", 1)
    monkeypatch.setattr(_parallel, "_THREADS_PAY", {})
    on_threads = []
    run_at_site = _parallel.run_at_site
    monkeypatch.setattr(_parallel, "run_at_site", lambda *a: on_threads.append(1) or run_at_site(*a))
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    df["y"] = df["a"] + rng.normal(size=40)
    ro = r.robjects()
    with r.lock:
        ro.globalenv["dd_thr"] = py2r(df)
    m = RModel("lm(y ~ a + b, data = dd_thr)", predict_function=(
        "function(model, newdata) { warning('warned in predict'); predict(model, newdata) }"))
    p = pyiml.Predictor(m, data=df, y="y", batch_size=40)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        pyiml.FeatureImp(p, "mse", n_repetitions=2, random_state=1, n_jobs=2)
    rw = [(x.filename, x.lineno) for x in w if "warned in predict" in str(x.message)]
    assert on_threads and rw and set(rw) == {(__file__, line)}, rw
