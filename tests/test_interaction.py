"""Interaction: closed-form H-statistics, reuse of partial dependences, batching, bad input, plots (no R)."""
import itertools

import numpy as np
import pandas as pd
import pytest

from pyiml import Interaction, Predictor, RRandom
from pyiml.interaction import h_statistic


@pytest.fixture(scope="module")
def balanced():
    """x1, x2 in {-1, 1} balanced and independent; x3 noise the models ignore."""
    rows = list(itertools.product([-1.0, 1.0], [-1.0, 1.0], [0.0, 1.0, 2.0]))
    return pd.DataFrame(rows, columns=["x1", "x2", "x3"])


def test_closed_form_h(balanced):
    # f = x1 + x2 + x1 x2: PD_1 = x1, PD_2 = x2 (centred), interaction part x1 x2 -> H^2 = 1/3
    f = lambda d: d["x1"].to_numpy() + d["x2"].to_numpy() + d["x1"].to_numpy() * d["x2"].to_numpy()
    p = Predictor(predict_function=f, data=balanced)
    ia = Interaction(p, grid_size=len(balanced), random_state=1)
    res = ia.results.set_index(".feature")[".interaction"]
    assert res["x1"] == pytest.approx(1 / np.sqrt(3), abs=1e-14)
    assert res["x2"] == pytest.approx(1 / np.sqrt(3), abs=1e-14)
    assert res["x3"] == 0.0
    two = Interaction(p, feature="x2", grid_size=len(balanced), random_state=1).results
    assert two[".feature"].tolist() == ["x1:x2", "x3:x2"]
    assert two[".interaction"].iloc[0] == pytest.approx(1 / np.sqrt(3), abs=1e-14)
    assert two[".interaction"].iloc[1] == 0.0


def test_pure_product_is_all_interaction(balanced):
    p = Predictor(predict_function=lambda d: d["x1"].to_numpy() * d["x2"].to_numpy(), data=balanced)
    res = Interaction(p, grid_size=12, random_state=1).results.set_index(".feature")[".interaction"]
    assert res["x1"] == pytest.approx(1.0, abs=1e-14) and res["x2"] == pytest.approx(1.0, abs=1e-14)


def test_additive_model_has_no_interaction():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(80, 4)), columns=list("abcd"))
    f = lambda d: np.sin(3 * d["a"].to_numpy()) + d["b"].to_numpy() ** 2 + 2 * d["c"].to_numpy()
    ia = Interaction(Predictor(predict_function=f, data=X), grid_size=10, random_state=3)
    assert np.all(ia.results[".interaction"].to_numpy() < 1e-7)
    assert ia.results[".interaction"].iloc[3] == 0.0  # ignored feature: exactly 0, as in iml
    assert list(ia.results.columns) == [".feature", ".interaction"]


def test_h_statistic_matches_definition():
    rng = np.random.default_rng(2)
    a, b, c = rng.normal(size=(3, 20))
    ac, bc, cc = a - a.mean(), b - b.mean(), c - c.mean()
    expect = np.sqrt(np.sum((ac - bc - cc) ** 2) / np.sum(ac ** 2))
    assert h_statistic(a, b, c)[0] == pytest.approx(expect, rel=1e-13)
    assert np.isnan(h_statistic(np.ones(5), np.ones(5), np.ones(5))[0])


def _counting(f):
    calls = []

    def g(df):
        calls.append(len(df))
        return f(df)

    return g, calls


def test_partial_dependences_are_reused_and_batched():
    rng = np.random.default_rng(1)
    n, G = 50, 6
    X = pd.DataFrame(rng.uniform(size=(n, 4)), columns=list("abcd"))
    X["d"] = np.round(X["d"] * 2)  # few distinct values
    f = lambda d: d["a"].to_numpy() * d["b"].to_numpy() + d["c"].to_numpy() * d["d"].to_numpy()
    g, calls = _counting(f)
    ia = Interaction(Predictor(predict_function=g, data=X, batch_size=120), feature="d", grid_size=G,
                     random_state=4)
    assert max(calls) <= 120
    grid = ia.partial_dependence["a:d"]["grid"]
    n_d_values = len(np.unique(X["d"].to_numpy()[grid]))
    # shared grid: per feature G*n (jk) + G*n (j); the PD on d once per distinct d value; no other
    # call (the outputs are read from these predictions)
    assert sum(calls) == 3 * (2 * G * n) + n_d_values * n
    ref = Interaction(Predictor(predict_function=f, data=X), feature="d", grid_size=G, random_state=4)
    pd.testing.assert_frame_equal(ia.results, ref.results, check_exact=False, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("feature", [None, "b"])
@pytest.mark.parametrize("random_state", [1, "rr"])
def test_data_longer_than_a_batch_is_predicted_in_full_batches(feature, random_state):
    """n = batch_size + 1: the design of all blocks is cut into full batches that span block
    ends (cut at each block's own end, half the calls were one row), same results."""
    rng = np.random.default_rng(0)
    n, bs = 41, 40
    X = pd.DataFrame(rng.uniform(size=(n, 3)), columns=list("abc"))
    f = lambda d: d["a"].to_numpy() * d["b"].to_numpy() + d["c"].to_numpy()
    g, calls = _counting(f)
    rs = (lambda: RRandom(2)) if random_state == "rr" else (lambda: random_state)
    ia = Interaction(Predictor(predict_function=g, data=X, batch_size=bs), feature=feature, grid_size=5,
                     random_state=rs())
    assert max(calls) <= bs
    # the designs' last batches (one design per feature under RRandom, whose grids differ) may
    # be short; cut at every block's end there were twice the minimum
    assert len(calls) <= 1.3 * -(-sum(calls) // bs), calls
    assert calls.count(1) <= 1, calls
    ref = Interaction(Predictor(predict_function=f, data=X, batch_size=10_000), feature=feature, grid_size=5,
                      random_state=rs())
    pd.testing.assert_frame_equal(ia.results, ref.results)


@pytest.mark.parametrize("random_state", [5, "rr"])
def test_n_jobs_do_not_change_results(random_state):
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.uniform(size=(40, 4)), columns=list("abcd"))
    f = lambda d: d["a"].to_numpy() * d["b"].to_numpy() + d["c"].to_numpy()
    rs = (lambda: RRandom(2)) if random_state == "rr" else (lambda: random_state)
    p = Predictor(predict_function=f, data=X)
    big = Predictor(predict_function=f, data=X, batch_size=20_000)  # large batches: threads
    for feature in (None, "a"):
        a = Interaction(p, feature=feature, grid_size=8, random_state=rs())
        for q in (p, big):
            b = Interaction(q, feature=feature, grid_size=8, random_state=rs(), n_jobs=2)
            pd.testing.assert_frame_equal(a.results, b.results)


@pytest.mark.parametrize("batch_size", [100_000, 4000, 1000])
@pytest.mark.parametrize("feature", [None, "a"])
def test_partial_dependences_are_imls_means_in_imls_order(batch_size, feature):
    """Under RRandom each partial dependence is iml's to the bit: R's ``mean`` (what
    ``dcast(..., fun.aggregate = mean)`` computes: a long-double sum in row order divided by n,
    plus R's correction pass) of the predictions in the order of the permutation iml's
    MarginalGenerator draws for that grid row, from the feature's own stream after its grid rows
    (overall: generators j, no.j; two-way: jk, j, k). In one batch and across batches."""

    def r_mean(v):
        x = np.asarray(v, dtype=float).astype(np.longdouble)
        s = np.cumsum(x)[-1] / len(x)
        return float(s + np.cumsum(x - s)[-1] / len(x))

    rng = np.random.default_rng(8)
    n, G = 1500, 5   # predictions spread far more widely than their mean: the order decides last bits
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=list("abc"))
    X["c"] = np.round(X["c"])       # repeated values: shared predictions, each added in its own order
    f = lambda d: 1e3 * np.sin(7 * d["a"].to_numpy() + 3 * d["b"].to_numpy() * d["c"].to_numpy()) + 0.01
    ia = Interaction(Predictor(predict_function=f, data=X, batch_size=batch_size), feature=feature, grid_size=G,
                     random_state=RRandom(3))
    evals = [c for c in X.columns if c != feature]
    streams = RRandom(3).element_streams(len(evals))
    for x, stream in zip(evals, streams):
        grid = stream.choice(n, G)
        fixed = [[x], [c for c in evals if c != x]] if feature is None else [[x, feature], [x], [feature]]
        perms = stream.permutations(n, G * len(fixed)).reshape(len(fixed), G, n)
        label = x if feature is None else f"{x}:{feature}"
        kinds = ["j", "no.j"] if feature is None else ["jk", "j", "k"]
        got = ia.partial_dependence[label]
        np.testing.assert_array_equal(got["grid"], grid)
        for kind, cols, order in zip(kinds, fixed, perms):
            for g, row in enumerate(grid):
                design = X.copy()
                for c in cols:
                    design[c] = X[c].iloc[row]
                assert got[kind][g, 0] == r_mean(f(design)[order[g]]), (label, kind, g)


@pytest.mark.parametrize("batch_size", [20, 40, 60, 100_000])
@pytest.mark.parametrize("feature", [None, "b"])
def test_partial_dependences_equal_their_definition_in_any_batching(batch_size, feature):
    """Each partial dependence is the mean prediction over all data rows with its features set
    from the grid row, whatever the batching: blocks of n rows share model calls (and, for
    all-float data, a design buffer whose slots keep the data's columns from call to call), in
    an order of their own; a two-output model, ties in one feature."""
    rng = np.random.default_rng(11)
    n, G = 20, 6
    X = pd.DataFrame(rng.uniform(size=(n, 4)), columns=list("abcd"))
    X["d"] = np.round(X["d"] * 3)

    def f(d):
        a, b, c, e = (d[k].to_numpy() for k in "abcd")
        return pd.DataFrame({"u": a * b + np.sin(3 * c) * e, "v": np.exp(a - e) + b * c})

    ia = Interaction(Predictor(predict_function=f, data=X, batch_size=batch_size), feature=feature, grid_size=G,
                     random_state=7)
    cols = list(X.columns)
    for x in [c for c in cols if c != feature]:
        label = x if feature is None else f"{x}:{feature}"
        got = ia.partial_dependence[label]
        fixed = ({"j": [x], "no.j": [c for c in cols if c != x]} if feature is None
                 else {"jk": [x, feature], "j": [x], "k": [feature]})
        for kind, fix in fixed.items():
            want = []
            for row in got["grid"]:
                design = X.copy()
                for c in fix:
                    design[c] = X[c].iloc[row]
                want.append(f(design).to_numpy().mean(axis=0))
            np.testing.assert_allclose(got[kind], np.array(want), rtol=1e-13, atol=1e-14, err_msg=f"{label} {kind}")
        if feature is None:
            np.testing.assert_array_equal(got["f"], f(X.iloc[got["grid"]]).to_numpy())


def test_grid_size_equal_n_does_not_depend_on_seed():
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.uniform(size=(30, 3)), columns=list("abc"))
    f = lambda d: d["a"].to_numpy() * d["b"].to_numpy() ** 2 + d["c"].to_numpy()
    p = Predictor(predict_function=f, data=X)
    a = Interaction(p, grid_size=100, random_state=RRandom(1))
    b = Interaction(p, grid_size=30, random_state=7)
    assert a.grid_size == 30
    pd.testing.assert_frame_equal(a.results, b.results, check_exact=False, rtol=1e-12, atol=1e-14)


def test_multiclass_layout():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["u", "v", "w"])
    lab = np.where(X["u"] * X["v"] > 0, "p", np.where(X["w"] > 0, "q", "r"))
    m = LogisticRegression(max_iter=500).fit(X, lab)
    ia = Interaction(Predictor(m, data=X), grid_size=5, random_state=1)
    r = ia.results
    assert list(r.columns) == [".feature", ".class", ".interaction"]
    assert r[".feature"].tolist() == ["u"] * 3 + ["v"] * 3 + ["w"] * 3
    assert list(r[".class"].cat.categories) == ["p", "q", "r"]
    assert r[".class"].astype(str).tolist() == ["p", "q", "r"] * 3
    fig = ia.plot()
    assert len(fig.axes) == 3


def test_categorical_and_inputs_not_modified():
    rng = np.random.default_rng(6)
    X = pd.DataFrame({"num": rng.normal(size=40), "cat": pd.Categorical(rng.choice(list("xyz"), 40)),
                      "i": rng.integers(0, 4, 40), "s": rng.choice(["lo", "hi"], 40)})
    X0 = X.copy()
    f = lambda d: (d["num"].to_numpy() * (d["cat"].astype(str).to_numpy() == "y") + d["i"].to_numpy()
                   + d["num"].to_numpy() * (d["s"].to_numpy() == "hi"))
    ia = Interaction(Predictor(predict_function=f, data=X), feature="cat", grid_size=6, random_state=2)
    res = ia.results.set_index(".feature")[".interaction"]
    assert res["num:cat"] > 0.1 and res["i:cat"] < 1e-10 and res["s:cat"] < 1e-10
    two = Interaction(Predictor(predict_function=f, data=X), feature="s", grid_size=6, random_state=2).results
    assert two.set_index(".feature").loc["num:s", ".interaction"] > 0.1
    pd.testing.assert_frame_equal(X, X0)


def test_bad_input():
    X = pd.DataFrame({"a": [1.0, 2, 3], "b": [0.0, 1, 0]})
    p = Predictor(predict_function=lambda d: d["a"].to_numpy(), data=X)
    with pytest.raises(ValueError, match="grid_size must be >= 2"):
        Interaction(p, grid_size=1)
    with pytest.raises(TypeError, match="grid_size must be a number"):
        Interaction(p, grid_size="10")
    with pytest.raises(ValueError, match="feature='zz' is not a feature"):
        Interaction(p, feature="zz")
    with pytest.raises(TypeError, match=r"feature must be a feature name, got the number 1 \('b' at 0-based"):
        Interaction(p, feature=1)
    with pytest.raises(TypeError, match="feature must be one feature name"):
        Interaction(p, feature=["a", "b"])
    with pytest.raises(ValueError, match="n_jobs"):
        Interaction(p, n_jobs=-3)


def test_plot_single_output(balanced):
    from matplotlib.figure import Figure

    f = lambda d: d["x1"].to_numpy() + d["x2"].to_numpy() * (1 + d["x1"].to_numpy()) + d["x3"].to_numpy()
    ia = Interaction(Predictor(predict_function=f, data=balanced), grid_size=12, random_state=1)
    fig = ia.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Overall interaction strength" and ax.get_ylabel() == "Features"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    top = ia.results.sort_values(".interaction", kind="stable")[".feature"].tolist()
    assert labels == top


def test_progress_only_when_asked(balanced, capsys):
    p = Predictor(predict_function=lambda d: d["x1"].to_numpy() * d["x2"].to_numpy(), data=balanced)
    Interaction(p, grid_size=4, random_state=1)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    Interaction(p, grid_size=4, random_state=1, progress=True)
    assert "Interaction" in capsys.readouterr().err


@pytest.mark.r
def test_odd_batch_size_where_iml_skips_rows(r):
    """iml's overall statistic steps its generators by floor(batch.size) / 2 rows; with an odd
    batch.size that fraction makes R skip data rows. pyiml averages over every row whatever
    batch_size: equal to iml with an even batch.size, different from iml with the odd one."""
    from r_bridge import iml as riml

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(41, 3)), columns=["a", "b", "c"])

    def f(df):
        return df["a"].to_numpy() * df["b"].to_numpy() + np.sin(df["c"].to_numpy()) * df["a"].to_numpy()

    py = Interaction(Predictor(predict_function=f, data=X, batch_size=7), grid_size=5, random_state=RRandom(9))
    r_even = riml.iml("Interaction", riml.r_predictor(data=X, model=f, batch_size=8), seed=9, grid_size=5).results
    r_odd = riml.iml("Interaction", riml.r_predictor(data=X, model=f, batch_size=7), seed=9, grid_size=5).results
    np.testing.assert_allclose(py.results[".interaction"], r_even[".interaction"], rtol=1e-12)
    assert np.abs(r_odd[".interaction"].to_numpy() - r_even[".interaction"].to_numpy()).max() > 1e-3


def test_group_keys_is_unique_rows():
    # the grid rows predicted once per distinct value (pair): the same groups, first rows and
    # order as np.unique(..., axis=0), ties, signed zeros and wide magnitudes included
    from pyiml.interaction import _group_keys

    rng = np.random.default_rng(0)
    pool = np.array([-0.0, 0.0, 1.5, 2.0, -3.0, 7.25, 1e300, -1e-300])
    for _ in range(500):
        m, c = int(rng.integers(1, 40)), int(rng.integers(1, 3))
        cols = [rng.choice(pool, m) if rng.random() < 0.7 else rng.normal(size=m) for _ in range(c)]
        _, first, inv = np.unique(np.stack(cols, axis=1), axis=0, return_index=True, return_inverse=True)
        got_first, got_inv = _group_keys(cols)
        np.testing.assert_array_equal(got_first, first)
        np.testing.assert_array_equal(got_inv, np.asarray(inv).reshape(-1))
