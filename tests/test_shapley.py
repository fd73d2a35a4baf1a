"""Shapley: efficiency and linear-model oracles, iml's layout, several rows, bad input, plots (no R)."""

import numpy as np
import pandas as pd
import pytest

from pyiml import Predictor, RRandom, Shapley

BETA = np.array([2.0, -1.0, 0.5, 0.0])
COLS = ["a", "b", "c", "d"]


def linear(df):
    return df[COLS].to_numpy() @ BETA


def nonlinear(df):
    a, b, c = (df[k].to_numpy() for k in "abc")
    return np.sin(3 * a) * b + c ** 2 + a * c


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.uniform(size=(300, 4)), columns=COLS)


def test_linear_model_phi_is_beta_times_centred_x(data):
    p = Predictor(predict_function=linear, data=data)
    sh = Shapley(p, data.iloc[[5]], sample_size=4000, random_state=1)
    phi = sh.results["phi"].to_numpy()
    x = data.iloc[5].to_numpy()
    expected = BETA * (x - data.mean().to_numpy())
    se = np.abs(BETA) * data.std().to_numpy() / np.sqrt(4000)
    assert np.all(np.abs(phi - expected) <= 5 * se + 1e-12)
    # every sample's contribution is beta_j (x_j - z_j) exactly: no variance for an unused feature
    assert phi[3] == 0 and sh.results["phi.var"].iloc[3] == 0


def test_efficiency_exact_per_sample_and_on_average(data):
    p = Predictor(predict_function=nonlinear, data=data)
    sh = Shapley(p, data.iloc[[7]], sample_size=3000, random_state=2)
    f = nonlinear(data)
    # per sample the contributions telescope: sum_j = f(x) - f(z) with z a data row
    per_sample = sh.contributions[0, :, :, 0].sum(axis=1)
    gaps = sh.y_hat_interest - per_sample
    assert np.all(np.min(np.abs(gaps[:, None] - f[None, :]), axis=1) < 1e-12)
    # on average: sum phi = prediction - average prediction, within Monte-Carlo error
    total = sh.results["phi"].sum()
    se = f.std() / np.sqrt(3000)
    assert abs(total - (sh.y_hat_interest - sh.y_hat_average)) < 5 * se
    assert sh.y_hat_average == pytest.approx(f.mean(), rel=1e-14)
    assert sh.y_hat_interest == pytest.approx(f[7], rel=1e-14)


def test_layout_single_output(data):
    sh = Shapley(Predictor(predict_function=nonlinear, data=data), data.iloc[[0]], sample_size=20, random_state=3)
    r = sh.results
    assert list(r.columns) == ["feature", "phi", "phi.var", "feature.value"]
    assert r["feature"].tolist() == COLS
    assert r["feature.value"].iloc[0] == f"a={data['a'].iloc[0]:.15g}"
    d = sh.contributions
    assert d.shape == (1, 20, 4, 1)
    np.testing.assert_allclose(r["phi"], d[0, :, :, 0].mean(axis=0), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(r["phi.var"], d[0, :, :, 0].var(axis=0, ddof=1), rtol=1e-12, atol=1e-15)
    assert "Predicted value:" in repr(sh)


def test_feature_value_formatting_as_r():
    X = pd.DataFrame({"big": [100000.0, 2.0, 3.0], "small": [0.0001, 1 / 3, 0.5], "i": [1, 2, 3],
                      "k": pd.Categorical(["u", "v", "u"]), "s": ["lo", "hi", "hi"]})
    f = lambda d: d["big"].to_numpy() * 0 + d["small"].to_numpy() + d["i"].to_numpy() + (d["s"] == "hi").to_numpy()
    sh = Shapley(Predictor(predict_function=f, data=X), X.iloc[[0]], sample_size=3, random_state=1)
    assert sh.results["feature.value"].tolist() == ["big=1e+05", "small=1e-04", "i=1", "k=u", "s=lo"]
    sh.explain(X.iloc[[1]])
    assert sh.results["feature.value"].tolist() == ["big=2", "small=0.333333333333333", "i=2", "k=v", "s=hi"]
    with pytest.raises(ValueError, match=r"column 's' has value\(s\) \['mid'\]"):
        sh.explain(X.iloc[[1]].assign(s="mid"))


def test_multiclass_layout():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["u", "v", "w"])
    lab = np.where(X["u"] > 0.3, "p", np.where(X["v"] > 0, "q", "r"))
    m = LogisticRegression(max_iter=500).fit(X, lab)
    sh = Shapley(Predictor(m, data=X), X.iloc[[1]], sample_size=50, random_state=4)
    r = sh.results
    assert list(r.columns) == ["feature", "class", "phi", "phi.var", "feature.value"]
    assert list(r["class"].cat.categories) == ["p", "q", "r"]
    assert r["class"].astype(str).tolist() == ["p"] * 3 + ["q"] * 3 + ["r"] * 3
    assert r["feature"].tolist() == ["u", "v", "w"] * 3
    # probabilities sum to one: the contributions over classes cancel
    np.testing.assert_allclose(r.groupby("feature")["phi"].sum(), 0, atol=1e-12)
    assert isinstance(sh.y_hat_interest, pd.DataFrame) and list(sh.y_hat_interest.columns) == ["p", "q", "r"]
    assert isinstance(sh.y_hat_average, pd.Series)
    fig = sh.plot()
    assert len(fig.axes) == 3 and fig.axes[0].get_title() == "p"


def test_several_rows_equal_successive_explain_under_rrandom(data):
    p = Predictor(predict_function=nonlinear, data=data)
    many = Shapley(p, data.iloc[[3, 8, 9]], sample_size=30, random_state=RRandom(7))
    one = Shapley(p, data.iloc[[3]], sample_size=30, random_state=RRandom(7))
    parts = [one.results.copy()]
    for i in (8, 9):
        parts.append(one.explain(data.iloc[[i]]).results.copy())
    assert many.results[".id"].tolist() == [1] * 4 + [2] * 4 + [3] * 4
    expect = pd.concat(parts, ignore_index=True)
    pd.testing.assert_frame_equal(many.results.drop(columns=".id"), expect)
    assert many.y_hat_interest.shape == (3, 1)


@pytest.mark.parametrize("random_state", [11, "rr"])
def test_n_jobs_and_batch_size_do_not_change_results(data, random_state):
    rs = (lambda: RRandom(3)) if random_state == "rr" else (lambda: random_state)
    p1 = Predictor(predict_function=nonlinear, data=data)
    a = Shapley(p1, data.iloc[:6], sample_size=25, random_state=rs())
    for bs in (37, 20_000):  # small batches run sequentially, large ones on threads
        p2 = Predictor(predict_function=nonlinear, data=data, batch_size=bs)
        b = Shapley(p2, data.iloc[:6], sample_size=25, random_state=rs(), n_jobs=2)
        pd.testing.assert_frame_equal(a.results, b.results, check_exact=True)


def test_batches_never_exceed_batch_size(data):
    sizes = []

    def f(df):
        sizes.append(len(df))
        return linear(df)

    Shapley(Predictor(predict_function=f, data=data, batch_size=50), data.iloc[:3], sample_size=10, random_state=1)
    assert max(sizes) <= 50
    # p rows per sample plus the point, for 3 points; plus the data once for the average
    assert sum(sizes) == 3 * (10 * 4 + 1) + len(data)


def test_x_interest_matched_by_name_and_target_dropped(data):
    df = data.assign(y=linear(data))
    p = Predictor(predict_function=nonlinear, data=df, y="y")
    a = Shapley(p, df.iloc[[2]], sample_size=15, random_state=RRandom(1))
    shuffled = df.iloc[[2]][["y", "d", "c", "b", "a"]]
    b = Shapley(p, shuffled, sample_size=15, random_state=RRandom(1))
    pd.testing.assert_frame_equal(a.results, b.results)
    assert list(b.x_interest.columns) == COLS


def test_without_x_interest_explain_later(data):
    p = Predictor(predict_function=linear, data=data)
    sh = Shapley(p, sample_size=10, random_state=1)
    assert sh.results is None and sh.x_interest is None
    with pytest.raises(RuntimeError, match="call run\\(\\) first"):
        sh.plot()
    sh.explain(data.iloc[[0]])
    assert len(sh.results) == 4


def test_inputs_not_modified(data):
    X0 = data.copy()
    xi = data.iloc[[1]].copy()
    xi0 = xi.copy()
    Shapley(Predictor(predict_function=linear, data=data), xi, sample_size=5, random_state=1)
    pd.testing.assert_frame_equal(data, X0)
    pd.testing.assert_frame_equal(xi, xi0)


def test_bad_input(data):
    p = Predictor(predict_function=linear, data=data)
    with pytest.raises(ValueError, match="Missing columns: c"):
        Shapley(p, data.iloc[[0]].drop(columns="c"))
    with pytest.warns(UserWarning, match="Dropping additional columns: extra") as rec:
        Shapley(p, data.iloc[[0]].assign(extra=1.0), sample_size=2, random_state=1)
    assert rec[0].filename == __file__   # reported at the caller's line, not inside pyiml
    with pytest.raises(ValueError, match=r"x_interest has missing values in column\(s\) \['b'\]"):
        Shapley(p, data.iloc[[0]].assign(b=np.nan))
    with pytest.raises(ValueError, match="sample_size must be a whole number >= 1"):
        Shapley(p, data.iloc[[0]], sample_size=0)
    with pytest.raises(TypeError, match="x_interest must be a pandas DataFrame"):
        Shapley(p, data.iloc[0].to_numpy())
    with pytest.raises(ValueError, match="x_interest has no rows"):
        Shapley(p, data.iloc[[]])
    Xc = pd.DataFrame({"k": pd.Categorical(["u", "v", "u"]), "z": [1.0, 2.0, 3.0]})
    pc = Predictor(predict_function=lambda d: d["z"].to_numpy(), data=Xc)
    with pytest.raises(ValueError, match=r"column 'k' has value\(s\) \['w'\] that are not categories"):
        Shapley(pc, pd.DataFrame({"k": ["w"], "z": [1.0]}))


def test_plot_single_output(data):
    from matplotlib.figure import Figure

    sh = Shapley(Predictor(predict_function=nonlinear, data=data), data.iloc[[4]], sample_size=30, random_state=2)
    fig = sh.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title(loc="left").startswith(f"Actual prediction: {sh.y_hat_interest:.2f}\nAverage prediction:")
    bars = ax.patches
    assert len(bars) == 4
    widths = [b.get_width() for b in sorted(bars, key=lambda b: b.get_y())]
    assert widths == sorted(widths)  # largest phi on top
    many = Shapley(Predictor(predict_function=nonlinear, data=data), data.iloc[[4, 5]], sample_size=10,
                   random_state=2)
    assert isinstance(many.plot(id=2), Figure)
    with pytest.raises(ValueError, match="id must be between 1 and 2"):
        many.plot(id=3)


def test_progress_only_when_asked(data, capsys):
    p = Predictor(predict_function=linear, data=data)
    Shapley(p, data.iloc[:3], sample_size=5, random_state=1)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    Shapley(p, data.iloc[:3], sample_size=5, random_state=1, progress=True)
    assert "Shapley" in capsys.readouterr().err


def test_mixed_dtypes_same_results_for_any_batch_size():
    # categorical and integer features take the column-by-column design path; batches that
    # start inside a sample's chain must give the same design rows
    rng = np.random.default_rng(5)
    n = 80
    X = pd.DataFrame({"a": rng.normal(size=n), "k": pd.Categorical(rng.choice(["u", "v", "w"], n)),
                      "i": rng.integers(0, 9, n), "b": rng.normal(size=n)})

    def f(d):
        return d["a"].to_numpy() * (d["k"] == "v").to_numpy() + np.sqrt(d["i"].to_numpy() + 1.0) * d["b"].to_numpy()

    ref = None
    for bs in (7, 33, 1000, 10 ** 6):
        sh = Shapley(Predictor(predict_function=f, data=X, batch_size=bs), X.iloc[:4], sample_size=15, random_state=8)
        if ref is None:
            ref = sh
        else:
            pd.testing.assert_frame_equal(sh.results, ref.results, check_exact=True)
    # per sample the contributions telescope to f(x) - f(z), z a data row
    fz = ref.y_hat_interest.to_numpy()[:, :1] - ref.contributions.sum(axis=2)[..., 0]  # (points, samples)
    assert np.abs(fz.ravel()[:, None] - f(X)[None, :]).min(axis=1).max() < 1e-12


@pytest.mark.filterwarnings("ignore:Had to choose a smaller k")
def test_points_outside_a_small_dtype_are_explained_as_given():
    """A point's value that the data's numpy dtype cannot hold (-1, 300 for uint8; 1e39 for
    float32) was cast with wrap-around / overflow: b=-1 explained as b=255, a=1e39 as inf."""
    from pyiml import LocalModel, TreeSurrogate

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=40).round(2), "b": rng.integers(0, 100, 40)})

    def f(nd):
        return nd["a"].to_numpy(float) * 1e-38 + 0.01 * nd["b"].to_numpy(float)

    x = pd.DataFrame({"a": [1e39], "b": [-1]})
    wide = Predictor(f, data=X)
    for small in (X.astype({"b": "uint8", "a": "float32"}), X.astype({"b": "int8", "a": "float32"})):
        p = Predictor(f, data=small)
        for pts in (x, x.assign(b=[300])):
            ref = Shapley(wide, pts, sample_size=20, random_state=RRandom(3))
            got = Shapley(p, pts, sample_size=20, random_state=RRandom(3))
            assert got.x_interest["b"].iloc[0] == pts["b"].iloc[0] and got.x_interest["a"].iloc[0] == 1e39
            assert got.y_hat_interest == ref.y_hat_interest == pytest.approx(10 + 0.01 * pts["b"].iloc[0])
            np.testing.assert_allclose(got.results["phi"], ref.results["phi"], rtol=1e-6)
            assert got.results["feature.value"].tolist() == ref.results["feature.value"].tolist()
            lm = LocalModel(p, pts, k=2)
            assert lm.predict().iloc[0, 0] == pytest.approx(LocalModel(wide, pts, k=2).predict().iloc[0, 0])
        ts = TreeSurrogate(p, maxdepth=2)
        assert ts.predict(x).equals(TreeSurrogate(wide, maxdepth=2).predict(x))


def test_points_in_other_numeric_dtypes_for_float_data_are_the_same_points(data):
    """float32, int64 and uint8 columns of a point (float data) are converted as the general path
    converts them: the same results and point as the float64 point; a bool column is refused."""
    from pyiml.shapley import check_x_interest

    p = Predictor(predict_function=nonlinear, data=data)
    point = pd.DataFrame({"a": [2.0], "b": [0.5], "c": [3.0], "d": [4.0]})
    want = Shapley(p, point, sample_size=20, random_state=RRandom(5))
    for dtypes in ({c: np.float32 for c in COLS}, {"a": np.int64, "c": np.int64, "d": np.int64},
                   {"a": np.uint8, "b": np.float32, "c": np.int64}):
        other = point.astype(dtypes)
        got = Shapley(p, other, sample_size=20, random_state=RRandom(5))
        pd.testing.assert_frame_equal(got.results, want.results, check_exact=True)
        pd.testing.assert_frame_equal(got.x_interest, want.x_interest, check_exact=True)
    with pytest.raises(TypeError, match="column 'a' must be numeric"):
        check_x_interest(p.data, point.assign(a=[True]))


@pytest.mark.parametrize("rows", [1, 3])
def test_chain_built_in_one_selection_equals_row_by_row(data, monkeypatch, rows):
    """Few samples' chains are built in one selection, larger ones row by row: the same design,
    so the same contributions to the bit (batches cutting the chain take the row-by-row path)."""
    import pyiml.shapley as shapley_module

    p = Predictor(predict_function=nonlinear, data=data)
    X = data.iloc[:rows]
    one = Shapley(p, X, sample_size=30, random_state=RRandom(2))
    monkeypatch.setattr(shapley_module, "_SELECT_AT_ONCE", 0)
    by_row = Shapley(p, X, sample_size=30, random_state=RRandom(2))
    np.testing.assert_array_equal(one.contributions, by_row.contributions)
    pd.testing.assert_frame_equal(one.results, by_row.results, check_exact=True)
    monkeypatch.undo()
    small = Shapley(Predictor(predict_function=nonlinear, data=data, batch_size=7), X, sample_size=30,
                    random_state=RRandom(2))
    np.testing.assert_array_equal(small.contributions, one.contributions)
