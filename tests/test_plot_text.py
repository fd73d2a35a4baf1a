"""Plots print names and labels as they are (as ggplot does) and draw data at the double range's ends."""
import io

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib import cbook
from matplotlib.text import Text

import pyiml

TIERS = ["$", "$$", "$$$"]


def _texts(fig):
    """Every non-empty text of the drawn figure (tick labels included)."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _drawn_as_is(fig, expected):
    buf = io.BytesIO()
    fig.savefig(buf, format="png")    # math text that does not parse raised here
    texts = _texts(fig)
    math = [t for t in texts if cbook.is_math_text(t) and t != r"$\hat{y}$"]
    assert not math, math
    shown = {t.replace(r"\$", "$") for t in texts}
    for e in expected:
        assert any(e in t for t in shown), (e, sorted(shown))


@pytest.fixture(scope="module")
def priced():
    rng = np.random.default_rng(0)
    n = 40
    df = pd.DataFrame({"$x^$": rng.normal(size=n),
                       "price": pd.Categorical(rng.choice(TIERS, size=n), categories=TIERS),
                       "b": rng.normal(size=n)})
    df["y"] = df["$x^$"] + df["price"].cat.codes + 0.3 * df["b"] + rng.normal(scale=0.1, size=n)

    def f(d):
        return d["$x^$"].to_numpy() + d["price"].cat.codes.to_numpy() + 0.3 * d["b"].to_numpy()

    return pyiml.Predictor(data=df, y="y", predict_function=f), df


def test_dollar_labels_regression(priced):
    p, df = priced
    x = df.drop(columns="y").iloc[[1]]
    cases = [
        (pyiml.FeatureImp(p, loss="mae", n_repetitions=2, random_state=1).plot(), ["$x^$", "price"]),
        (pyiml.FeatureEffect(p, "price", method="pdp").plot(), TIERS + ["price"]),
        (pyiml.FeatureEffect(p, "price", method="ale").plot(), TIERS),
        (pyiml.FeatureEffect(p, "price", method="pdp+ice").plot(), TIERS),
        (pyiml.FeatureEffect(p, "$x^$", method="ale").plot(), ["$x^$"]),
        (pyiml.FeatureEffect(p, ["$x^$", "price"], method="ale").plot(), TIERS + ["$x^$"]),
        (pyiml.FeatureEffect(p, ["$x^$", "price"], method="pdp").plot(), TIERS + ["$x^$", "price"]),
        (pyiml.FeatureEffect(p, ["price", "b"], method="ale").plot(), TIERS),
        (pyiml.FeatureEffects(p, method="pdp").plot(), TIERS + ["$x^$"]),
        (pyiml.Interaction(p, grid_size=5, random_state=1).plot(), ["$x^$", "price"]),
        (pyiml.Interaction(p, feature="price", grid_size=5, random_state=1).plot(), ["$x^$:price"]),
        (pyiml.Shapley(p, x_interest=x, sample_size=5, random_state=1).plot(), ["price=" + str(x["price"].iloc[0])]),
        (pyiml.LocalModel(p, x_interest=x, k=2).plot(), ["$x^$="]),
        (pyiml.TreeSurrogate(p, maxdepth=2).plot(), []),
        (pyiml.TreeSurrogate(p, maxdepth=2).plot(kind="tree"), []),
    ]
    for fig, expected in cases:
        _drawn_as_is(fig, expected)


def test_dollar_labels_classes():
    rng = np.random.default_rng(1)
    n = 40
    df = pd.DataFrame({"a": rng.normal(size=n), "tier": pd.Categorical(rng.choice(TIERS, size=n), categories=TIERS)})

    def f(d):
        z = d["a"].to_numpy()
        p1 = 1 / (1 + np.exp(-z))
        return pd.DataFrame({"$cheap$": p1, "$$": 1 - p1})

    p = pyiml.Predictor(data=df, predict_function=f)
    x = df.iloc[[0]]
    for fig in [pyiml.FeatureEffect(p, "tier", method="pdp").plot(), pyiml.FeatureEffect(p, "a").plot(),
                pyiml.Shapley(p, x_interest=x, sample_size=5, random_state=1).plot(),
                pyiml.Interaction(p, grid_size=5, random_state=1).plot(),
                pyiml.TreeSurrogate(p, maxdepth=1).plot(), pyiml.TreeSurrogate(p, maxdepth=1).plot(kind="tree")]:
        _drawn_as_is(fig, ["$cheap$"])


@pytest.mark.parametrize("values", ["huge", "inf"])
def test_rug_of_a_feature_at_the_double_range(values):
    rng = np.random.default_rng(13)
    n = 20
    if values == "huge":   # the range (3e308) overflows
        x1 = np.round(rng.uniform(-1, 1, size=n), 3) * 1.5e308
    else:
        x1 = np.round(rng.normal(size=n), 2)
        x1[2], x1[5] = np.inf, -np.inf
    df = pd.DataFrame({"x1": x1, "x2": rng.normal(size=n)})
    p = pyiml.Predictor(data=df, predict_function=lambda d: np.tanh(1e-300 * d["x1"].to_numpy()) + d["x2"].to_numpy())
    fig = pyiml.FeatureEffect(p, "x1", method="pdp").plot()
    if values == "inf":   # (matplotlib's tick locator cannot draw an axis whose range overflows)
        fig.savefig(io.BytesIO(), format="png")
    rug = [c for c in fig.axes[0].collections if c.get_zorder() == 2.5]
    segs = rug[0].get_segments()
    finite = np.isfinite(x1)
    assert len(segs) == n and all(len(s) == 0 for s, ok in zip(segs, finite) if not ok)   # ±Inf: no tick
    ticks = np.array([s[0][0] for s, ok in zip(segs, finite) if ok])
    assert np.isfinite(ticks).all()
    # jittered by at most 1% of the finite values' range
    span = 0.01 * x1[finite].max() - 0.01 * x1[finite].min()
    assert np.all(np.abs(ticks - x1[finite]) <= span)


def test_facets_label_only_their_outer_axes():
    """As facet_wrap (fixed scales): x tick labels and title only under the last panel of each
    column, y tick labels and title only left of each row (were repeated on every panel)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(30, 3)), columns=["a", "b", "c"])

    def four(d):
        s = np.column_stack([d["a"], d["b"], d["c"], d["a"] * d["b"]])
        return pd.DataFrame(s / s.sum(axis=1, keepdims=True), columns=["k1", "k2", "k3", "k4"])

    fig = pyiml.Interaction(pyiml.Predictor(predict_function=four, data=X), grid_size=4, random_state=1).plot()
    fig.canvas.draw()
    axes = fig.axes
    assert [a.get_title() for a in axes] == ["k1", "k2", "k3", "k4"]           # 2 x 2
    shown_x = [any(t.get_visible() and t.get_text() for t in a.get_xticklabels()) for a in axes]
    shown_y = [any(t.get_visible() and t.get_text() for t in a.get_yticklabels()) for a in axes]
    assert shown_x == [False, False, True, True] and shown_y == [True, False, True, False]
    # the shared axis titles once for the figure, as ggplot draws them (were under every column)
    assert not any(a.xaxis.label.get_visible() or a.yaxis.label.get_visible() for a in axes)
    assert [t for t in _texts(fig) if t in ("Features", "Overall interaction strength")] == \
        ["Overall interaction strength", "Features"]
    assert all(a.get_ylabel() == "Features" for a in axes)     # the hidden titles keep their text


def test_facets_in_one_row_share_one_x_title_and_a_2d_pdp_one_legend():
    """Three class panels in one row showed the x title three times (R: once, under all of
    them), and a numerical x categorical 2-D PDP drew one legend inside every panel (R: one
    colour guide right of the panels). In a FeatureEffects grid each feature keeps its title,
    once, under its middle panel."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.uniform(size=40), "b": rng.uniform(size=40),
                      "k": pd.Categorical(rng.choice(["u", "v"], size=40))})

    def three(d):
        s = np.column_stack([d["a"] + 0.1, d["b"] + 0.1, (d["k"] == "u") + 0.1])
        return pd.DataFrame(s / s.sum(axis=1, keepdims=True), columns=["c1", "c2", "c3"])

    p = pyiml.Predictor(predict_function=three, data=X)
    fig = pyiml.FeatureEffect(p, "a", method="pdp", grid_size=4).plot()
    fig.canvas.draw()
    assert _texts(fig).count("a") == 1 and not any(ax.xaxis.label.get_visible() for ax in fig.axes)
    fig = pyiml.FeatureEffect(p, ["a", "k"], method="pdp", grid_size=4).plot()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert len(legends) == 1 and legends[0].get_title().get_text() == "k"
    assert [t.get_text() for t in legends[0].get_texts()] == ["u", "v"]
    assert legends[0].axes is fig.axes[2]                  # the top row's last panel, outside right
    fig = pyiml.FeatureEffects(p, features=["a", "b"], method="pdp", grid_size=4).plot()
    fig.canvas.draw()
    shown = [ax.get_xlabel() for ax in fig.axes if ax.xaxis.label.get_visible()]
    assert shown == ["a", "b"]                             # one per feature: its middle panel


def test_infinite_values_are_drawn_at_the_panels_edge():
    """ggplot draws ±Inf at the edge of a scale spanning the finite values: an infinite H
    statistic, importance or phi is a full-length segment or bar (were left out, and a facet of
    infinite values was empty)."""
    import warnings

    from pyiml.plotting.feature_imp import plot_feature_imp
    from pyiml.plotting.interaction import plot_interaction
    from pyiml.plotting.shapley import plot_shapley

    ia = pd.DataFrame({".feature": ["a", "b", "c"] * 2, ".class": ["u"] * 3 + ["v"] * 3,
                       ".interaction": [0.2, np.inf, 0.4, np.inf, np.inf, np.inf]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # (matplotlib warned about masked elements)
        one = plot_interaction(ia.iloc[:3], multiclass=False)
        facets = plot_interaction(ia, multiclass=True)
        fi = plot_feature_imp(pd.DataFrame({"feature": ["a", "b"], "importance.05": [1.0, 2.0],
                                            "importance": [1.5, np.inf], "importance.95": [2.0, np.inf]}), "mae")
        sh = plot_shapley(pd.DataFrame({"feature": ["a", "b"], "phi": [-1.0, np.inf], "feature.value": ["a=1", "b=2"]}),
                          multiclass=False)
    # finite range [0, 0.4] expanded by 5%: the Inf segment ends at 0.42
    ax = one.axes[0]
    assert ax.get_xlim() == pytest.approx((-0.02, 0.42))
    ends = sorted(seg[1][0] for seg in ax.collections[1].get_segments())
    assert ends == pytest.approx([0.2, 0.4, 0.42])
    # the facets share the scale of all classes; the all-Inf class draws its three segments to its edge
    v = facets.axes[1]
    assert v.get_xlim() == pytest.approx((-0.02, 0.42))
    assert [seg[1][0] for seg in v.collections[1].get_segments()] == pytest.approx([0.42] * 3)
    assert fi.axes[0].get_xlim() == pytest.approx((0.95, 2.05))
    assert sorted(fi.axes[0].collections[1].get_offsets()[:, 0]) == pytest.approx([1.5, 2.05])
    assert sh.axes[0].get_xlim() == pytest.approx((-1.05, 0.05))
    assert sorted(p.get_width() for p in sh.axes[0].patches) == pytest.approx([-1.0, 0.05])


def test_rows_by_text_splits_as_the_text_filter_does():
    """The facets' and levels' rows come from one grouping (was one astype(str) pass per facet:
    quadratic in the number of classes or levels); the same rows, in row order."""
    from pyiml.plotting._common import rows_by_text, rows_of

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"k": pd.Categorical(rng.choice(["b", "a", "c"], 50), categories=["c", "b", "a", "z"]),
                          "x": rng.choice([1.0, 2.5, np.nan], 50), "v": np.arange(50)})
    for col in ("k", "x"):
        groups = rows_by_text(table[col])
        for key in list(table[col].astype(str).unique()) + ["z", "nope"]:
            want = table[table[col].astype(str) == key]
            pd.testing.assert_frame_equal(rows_of(table, groups, key), want)


def test_the_kept_x_title_of_facets_in_a_cell_is_under_the_middle_column():
    """With a short last row (7 facets in 3 x 3) the title went under the left column."""
    from matplotlib.figure import Figure

    from pyiml.plotting._common import outer_labels

    for n, ncol, want in ((7, 3, 4), (13, 4, 9), (3, 3, 1), (4, 2, 2), (5, 3, 4)):
        fig = Figure()
        axes = [fig.add_subplot(-(-n // ncol), ncol, i + 1) for i in range(n)]
        for ax in axes:
            ax.set_xlabel("x")
            ax.set_ylabel("y")
        outer_labels(axes, ncol, whole_figure=False)
        assert [i for i, ax in enumerate(axes) if ax.xaxis.label.get_visible()] == [want], (n, ncol)
