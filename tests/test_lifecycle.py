"""Objects as Python users keep them: pickled, copied, edited, shared between threads, and a
failed recomputation undone."""
import contextlib
import copy
import pickle
import sys
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from pyiml import FeatureEffect, FeatureImp, Predictor, RRandom, Shapley


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    d = pd.DataFrame({"a": rng.uniform(size=80), "b": rng.normal(size=80), "c": rng.uniform(size=80)})
    return d.assign(y=3 * d["a"] - d["b"] + d["a"] * d["c"] + rng.normal(size=80) * 0.1)


def _fit(d):
    return LinearRegression().fit(d[["a", "b", "c"]], d["y"])


def test_predictor_with_a_scikit_learn_model_pickles(data):
    # was "Can't pickle local object '_raw_prediction.<locals>.<lambda>'", for every method too
    p = Predictor(_fit(data), data=data, y="y")
    objs = [p, FeatureImp(p, "mae", random_state=RRandom(1)), FeatureEffect(p, "a", method="pdp+ice", grid_size=4),
            Shapley(p, data.drop(columns="y").iloc[[2]], sample_size=10, random_state=RRandom(2)),
            # numpy sources: the loss in numpy's arithmetic held a lambda ("Can't pickle <lambda>")
            FeatureImp(p, "mae", random_state=1), FeatureImp(p, "rmse", compare="difference")]
    for obj in objs:
        back = pickle.loads(pickle.dumps(obj))
        if obj is p:
            pd.testing.assert_frame_equal(back.predict(data), p.predict(data))
        else:
            pd.testing.assert_frame_equal(back.results, obj.results, check_exact=True)
    fe = pickle.loads(pickle.dumps(objs[2]))
    np.testing.assert_array_equal(fe.predict([0.3, 0.7]), objs[2].predict([0.3, 0.7]))


def test_deepcopy_of_a_predictor_predicts_with_its_own_model(data):
    # the copy's model was copied, but its predictions still came from the original model
    p = Predictor(_fit(data), data=data, y="y")
    c = copy.deepcopy(p)
    assert c.model is not p.model
    before = p.predict(data.head(3))
    c.model.fit(data[["a", "b", "c"]], -data["y"])
    pd.testing.assert_frame_equal(p.predict(data.head(3)), before)
    np.testing.assert_allclose(c.predict(data.head(3))["pred"], -before["pred"], rtol=1e-10)


@pytest.mark.parametrize("method", ["pdp", "pdp+ice", "ale"])
def test_feature_effect_predict_uses_the_computed_curve(data, method):
    """iml builds the interpolating function in run(): editing results afterwards does not
    change predict(); pyiml built it from results on the first predict() (and a deepcopy made
    after that shared it)."""
    p = Predictor(_fit(data), data=data, y="y")
    ref = FeatureEffect(p, "a", method=method, grid_size=5)
    want = ref.predict([0.3, 0.55])
    fe = FeatureEffect(p, "a", method=method, grid_size=5)
    fe.results[".value"] = fe.results[".value"] * 100          # edited before the first predict()
    np.testing.assert_array_equal(fe.predict([0.3, 0.55]), want)
    fe2 = FeatureEffect(p, "a", method=method, grid_size=5)
    fe2.predict([0.3])
    twin = copy.deepcopy(fe2)
    vals = fe2.results[".value"].to_numpy()
    if vals.flags.writeable:
        vals[:] *= 100                                         # edited in place after it
    else:   # pandas' copy-on-write hands out read-only arrays: edit the frame instead
        fe2.results[".value"] = vals * 100
    np.testing.assert_array_equal(fe2.predict([0.3, 0.55]), want)
    np.testing.assert_array_equal(twin.predict([0.3, 0.55]), want)
    if method == "pdp+ice":
        fe3 = FeatureEffect(p, "a", method=method, grid_size=5)
        fe3.results.sort_values("a", inplace=True)              # PDP rows no longer first
        np.testing.assert_array_equal(fe3.predict([0.3, 0.55]), want)
    pickle.loads(pickle.dumps(fe2))                             # was: the interpolator (a lambda) failed


@pytest.mark.parametrize("change", ["center", "set_feature"])
def test_failed_recomputation_leaves_the_effect_as_it_was(data, change):
    # was: results None, the new center_at kept, then plot() "call run() first!" and predict()
    # "'NoneType' object is not subscriptable"
    fail = {"on": False}

    def f(nd):
        if fail["on"]:
            raise RuntimeError("model down")
        return (3 * nd["a"] - nd["b"]).to_numpy()
    fe = FeatureEffect(Predictor(predict_function=f, data=data.drop(columns="y")), "a", method="pdp", grid_size=4)
    before = fe.results.copy()
    fail["on"] = True
    with pytest.raises(RuntimeError, match="model down"):
        fe.center(0.5) if change == "center" else fe.set_feature("b")
    fail["on"] = False
    pd.testing.assert_frame_equal(fe.results, before)
    assert fe.center_at is None and fe.feature_name == ["a"]
    assert np.isfinite(fe.predict([0.5])).all()
    fe.plot()


@pytest.mark.parametrize("cls", ["Shapley", "LocalModel"])
def test_failed_explain_leaves_the_previous_point(data, cls):
    # was: x_interest the new point, results None, contributions the old point's; plot() then
    # said "call run() first!"
    import pyiml
    fail = {"on": False}

    def f(nd):
        if fail["on"] and len(nd) < len(data):   # the data's own predictions are made once, first
            raise RuntimeError("model down")
        return (3 * nd["a"] - nd["b"] + nd["a"] * nd["c"]).to_numpy()
    X = data.drop(columns="y")
    kw = ({"sample_size": 10, "random_state": 1} if cls == "Shapley" else
          {"k": 2, "dist_fun": "euclidean", "kernel_width": 0.05})
    obj = getattr(pyiml, cls)(Predictor(predict_function=f, data=X), X.iloc[[1]], **kw)
    before, x_before = obj.results.copy(), obj.x_interest.copy()
    if cls == "Shapley":
        fail["on"] = True
        with pytest.raises(RuntimeError, match="model down"):
            obj.explain(X.iloc[[5]])
        fail["on"] = False
    else:   # LocalModel predicts the data once: its explain fails on a point far from every row
        with pytest.raises(ValueError, match="every weight"):
            obj.explain(X.iloc[[5]] + 100)
    pd.testing.assert_frame_equal(obj.results, before)
    pd.testing.assert_frame_equal(obj.x_interest, x_before)
    obj.plot()
    obj.explain(X.iloc[[5]])    # and it explains the next point as a fresh object would
    fresh = getattr(pyiml, cls)(Predictor(predict_function=f, data=X), X.iloc[[5]], **kw)
    if cls == "LocalModel":
        pd.testing.assert_frame_equal(obj.results, fresh.results)


@pytest.mark.parametrize("kind", ["list", "array"])
def test_grid_points_changed_by_the_caller_later_do_not_move_the_grid(data, kind):
    # center() and set_feature() recomputed on the caller's edited list (R copies arguments)
    pts = [0.1, 0.3, 0.5, 0.7, 0.9] if kind == "list" else np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    fe = FeatureEffect(Predictor(_fit(data), data=data, y="y"), "a", method="pdp", grid_points=pts)
    pts[0] = 0.05
    fe.center(0.5)
    assert fe.results["a"].tolist() == [0.1, 0.3, 0.5, 0.7, 0.9]


@pytest.mark.parametrize("method", ["pdp", "ale"])
def test_feature_effects_results_are_the_run_s_not_a_later_edit(data, method):
    # an in-place edit of an effect's table before fes.results was first read showed up in it
    from pyiml import FeatureEffects
    p = Predictor(_fit(data), data=data, y="y")
    want = FeatureEffects(p, method=method, grid_size=4).results
    fes = FeatureEffects(p, method=method, grid_size=4)
    fes.effects["a"].results[".value"] = -1.0
    for f in want:
        pd.testing.assert_frame_equal(fes.results[f], want[f])


@contextlib.contextmanager
def _fast_thread_switching():
    """Threads switch every microsecond inside the block, so that races show."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _in_two_threads(call):
    """``call()`` in two threads released at the same moment; their results, as they finish."""
    bar, out = threading.Barrier(2), []

    def work():
        bar.wait()
        out.append(call())
    ts = [threading.Thread(target=work) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out


def test_first_concurrent_predictions_select_class_(data):
    # two threads' first predict() calls could return every output column, unselected
    X = data.drop(columns="y")

    def f(nd):
        a = nd["a"].to_numpy()
        return pd.DataFrame({"lo": 1 - a, "mid": a / 2, "hi": a / 2})
    with _fast_thread_switching():
        for _ in range(300):
            p = Predictor(predict_function=f, data=X, class_="mid")
            out = _in_two_threads(lambda: list(p.predict(X.head(3)).columns))
            assert out == [["mid"], ["mid"]]


def test_classifier_predictor_prints_its_classes(data):
    from sklearn.linear_model import LogisticRegression
    m = LogisticRegression().fit(data[["a", "b"]], np.where(data["a"] > 0.5, "yes", "no"))
    # iml's print(), cat's spaces included; iml's class line is always empty, pyiml's names them
    assert repr(Predictor(m, data=data[["a", "b"]])) == "Prediction task: classification \nClasses:  no, yes"
    p = Predictor(m, data=data[["a", "b"]], class_="yes")
    before = repr(p)
    p.predict(data[["a", "b"]].head(2))
    assert before == repr(p) == "Prediction task: classification \nClasses:  yes"     # was "no, yes" before


def test_threads_reading_a_lazy_ice_table_get_one_table(data):
    p = Predictor(_fit(data), data=data, y="y")
    with _fast_thread_switching():
        for _ in range(30):
            fe = FeatureEffect(p, "a", method="pdp+ice", grid_size=30)
            out = _in_two_threads(lambda: fe.results)
            assert out[0] is out[1]


def test_printout_shows_every_result_column():
    # pandas' repr elided the middle columns ("..."); R prints them all, wrapped
    from pyiml import TreeSurrogate
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 14)), columns=[f"feature_{i}" for i in range(14)])
    p = Predictor(data=X.assign(y=X.sum(axis=1)), y="y", predict_function=lambda d: d.sum(axis=1).to_numpy())
    text = repr(TreeSurrogate(p))
    head = text.split("Head of results:\n")[1]
    header_words = [w for line in head.splitlines() if not line[:1].isdigit() for w in line.split()]
    assert header_words == [f"feature_{i}" for i in range(14)] + [".node", ".path", ".y.hat", ".y.hat.tree"]
    assert "..." not in head and "\\" not in head        # R's blocks of columns, no elision or continuation
    assert max(len(line) for line in head.splitlines()) < 80


# ---------------------------------------------------------------------------- class_ assigned later
def _three(d: pd.DataFrame) -> pd.DataFrame:
    s = np.column_stack([2 * d["a"] - 1, d["b"], 0.5 * d["c"] + d["a"] * d["b"]])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return pd.DataFrame(e / e.sum(axis=1, keepdims=True), columns=["u", "v", "w"])


@pytest.mark.filterwarnings("ignore:from glmnet")    # (the multinomial path stops early on these data)
def test_fitted_surrogates_keep_their_outputs_when_class_changes(data):
    """iml's TreeSurrogate and LocalModel keep the outputs they were fitted to when the
    Predictor's class is changed afterwards (they read the predictor's current outputs: errors,
    or the wrong column)."""
    from pyiml import LocalModel, TreeSurrogate

    X = data.drop(columns="y")
    p = Predictor(predict_function=_three, data=X)
    ts = TreeSurrogate(p, maxdepth=2)
    lm = LocalModel(p, X.iloc[[5]], k=2)
    before = (ts.predict(X), ts.predict(X, type="class"), lm.predict(X.iloc[:4]), ts.r_squared_on(X))
    p.class_ = "w"          # before any prediction under it (output_names unknown)
    pd.testing.assert_frame_equal(ts.predict(X), before[0])
    pd.testing.assert_frame_equal(ts.predict(X, type="class"), before[1])
    pd.testing.assert_frame_equal(lm.predict(X.iloc[:4]), before[2])
    assert len(ts.plot().axes) == ts.results[".node"].nunique()
    with pytest.raises(ValueError, match=r"fitted to the model outputs \['u', 'v', 'w'\].*set class_ back"):
        ts.r_squared_on(X)
    p.class_ = ["w", "u", "v"]   # every output, in another order: compared by name
    pd.testing.assert_series_equal(ts.r_squared_on(X), before[3])


@pytest.mark.filterwarnings("ignore:from glmnet")
def test_explain_predicts_under_the_current_class(data):
    """``explain()`` after ``class_`` changed uses the new class, as iml re-predicts (the cached
    predictions of the data were reused: Shapley's average of the old class, LocalModel's
    stale fit or an IndexError)."""
    from pyiml import LocalModel

    X = data.drop(columns="y")
    p = Predictor(predict_function=_three, data=X)
    sh = Shapley(p, X.iloc[[3]], sample_size=5, random_state=1)
    lm = LocalModel(p, X.iloc[[3]], k=2)
    p.class_ = "v"
    sh.explain(X.iloc[[7]])
    assert sh.y_hat_average == pytest.approx(_three(X)["v"].mean(), abs=1e-15)
    assert "class" not in sh.results.columns and len(sh.results) == 3     # one output, as iml
    lm.explain(X.iloc[[7]])
    fresh = LocalModel(p, X.iloc[[7]], k=2)
    pd.testing.assert_frame_equal(lm.results, fresh.results)
    assert ".class" not in lm.results.columns
    p.class_ = None            # back to every class
    lm.explain(X.iloc[[7]])
    assert set(lm.results[".class"]) <= {"u", "v", "w"} and len(lm.predict().columns) == 3


@pytest.mark.parametrize("random_state", [1, "rr"])
def test_objects_are_freed_without_the_garbage_collector(data, random_state, garbage_cycles):
    """An object of every method, with its results read, is freed as soon as it is dropped: no
    reference cycle holds its arrays until the garbage collector runs (a PDP plan's blocks held
    closures over the plan, so each PDP/ICE object's values stayed until a collection; with the
    collector paused, as timeit pauses it, every call then took fresh memory)."""
    from pyiml import FeatureEffects, Interaction, LocalModel, TreeSurrogate

    f = lambda d: 3 * d["a"].to_numpy() - d["b"].to_numpy() + d["a"].to_numpy() * d["c"].to_numpy()
    two = lambda d: pd.DataFrame({"u": f(d), "v": -f(d)})
    X = data[["a", "b", "c"]]
    rs = (lambda: RRandom(3)) if random_state == "rr" else (lambda: random_state)
    made = [lambda: FeatureImp(Predictor(predict_function=f, data=data, y="y"), loss="mae", random_state=rs())]
    for p in (Predictor(predict_function=f, data=data, y="y"), Predictor(predict_function=two, data=data, y="y")):
        made += [
            lambda p=p: Shapley(p, x_interest=X.iloc[:2], random_state=rs()),
            lambda p=p: Interaction(p, grid_size=4, random_state=rs()),
            lambda p=p: Interaction(p, feature="a", grid_size=4, random_state=rs()),
            lambda p=p: FeatureEffects(p, method="pdp+ice", grid_size=4, random_state=rs()),
            lambda p=p: FeatureEffect(p, ["a", "b"], method="pdp", grid_size=4, random_state=rs()),
            lambda p=p: FeatureEffect(p, "a", method="ice", grid_size=4, center_at=0.5, random_state=rs()),
            lambda p=p: FeatureEffect(p, ["a", "c"], grid_size=4),
            lambda p=p: TreeSurrogate(p, maxdepth=2),
        ]
    made.append(lambda: LocalModel(Predictor(predict_function=f, data=data, y="y"), x_interest=X.iloc[[0]]))
    for make in made:
        make()
        # a lazy table is made too
        assert garbage_cycles(lambda: make().results) == 0, type(make()).__name__
