"""R's summary statistics: bit-for-bit against R run live."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyiml._algorithms.rstats import r_col_means, r_mean, r_median, r_quantile, r_sum, r_var, type1_ranks


def _rvec(r, x):
    return r.robjects().FloatVector(list(map(float, x)))


@pytest.mark.r
@pytest.mark.parametrize("seed", range(12))
def test_against_r(r, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    x = rng.normal(size=n) * 10 ** rng.uniform(-3, 6)
    if seed % 3 == 0:
        x = np.round(x, 1)  # ties
    probs = np.r_[0.0, 0.05, 0.5, 0.95, 1.0, np.linspace(0, 1, 21), rng.uniform(size=5)]
    res = r.r_eval(
        "list(sum(x), mean(x), median(x), if (length(x) > 1) var(x) else NaN, "
        "quantile(x, p, type = 7, names = FALSE), quantile(x, p, type = 1, names = FALSE))",
        x=_rvec(r, x), p=_rvec(r, probs))
    got = [np.asarray(v) for v in res]
    assert r_sum(x) == got[0][0]
    assert r_mean(x) == got[1][0]
    assert r_median(x) == got[2][0]
    if n > 1:
        assert r_var(x) == pytest.approx(got[3][0], rel=1e-14)
    np.testing.assert_array_equal(r_quantile(x, probs, type=7), got[4])
    np.testing.assert_array_equal(r_quantile(x, probs, type=1), got[5])


@pytest.mark.r
def test_col_means_against_r(r):
    rng = np.random.default_rng(5)
    m = rng.normal(size=(37, 4)) * 1e3
    ro = r.robjects()
    rm = ro.r.matrix(ro.FloatVector(m.ravel(order="F").tolist()), nrow=37)
    np.testing.assert_array_equal(r_col_means(m), np.array(r.r_eval("apply(m, 2, mean)", m=rm)))
    np.testing.assert_array_equal(r_col_means(m), [r_mean(m[:, j]) for j in range(4)])


def test_edge_cases():
    assert np.isnan(r_mean([])) and r_sum([]) == 0.0
    assert r_median([3.0, 1.0, 2.0]) == 2.0 and r_median([1.0, 2.0]) == 1.5
    assert np.isnan(r_median([1.0, np.nan]))
    assert np.isnan(r_var([1.0]))
    with pytest.raises(ValueError, match="type must be 1 or 7"):
        r_quantile([1.0], 0.5, type=3)


@pytest.mark.parametrize("x", [np.random.default_rng(0).uniform(-1, 1, 5000) * 1.7e308,       # range overflows
                               np.random.default_rng(1).uniform(size=5000) * 5e-324 * 1000])  # subnormal range
def test_order_statistics_of_ranges_beyond_the_buckets(x):
    """max - min beyond the double range made the bucket scale 0 (was ValueError in bincount)."""
    from pyiml._algorithms.rstats import order_statistics

    ranks = type1_ranks(x.size, np.linspace(0, 1, 21))
    np.testing.assert_array_equal(order_statistics(x, ranks), np.sort(x)[ranks])


def _column(seed: int, sizes=(4095, 4096, 5000, 30_000, 100_000)) -> np.ndarray:
    """Feature columns of every shape the bucketed order statistics meet (seed % 10): spread,
    heavy ties, signed zeros, outliers that leave the rest in two buckets, a huge or a tiny
    range, sorted descending, skewed, NaN, constant."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice(sizes))
    kind = seed % 10
    if kind == 0:
        x = rng.uniform(size=n)
    elif kind == 1:
        x = np.round(rng.normal(size=n), 1)
    elif kind == 2:
        x = np.where(rng.random(n) < 0.5, -0.0, 0.0) + rng.integers(-2, 3, n)   # signed zeros, 5 values
    elif kind == 3:
        x = np.append(rng.uniform(size=n - 3), [1e12, 1e12, -1e6])
    elif kind == 4:
        x = rng.uniform(-1e300, 1e300, n)
    elif kind == 5:
        x = rng.uniform(size=n) * 1e-300
    elif kind == 6:
        x = np.sort(rng.normal(size=n))[::-1].copy()
    elif kind == 7:
        x = rng.exponential(size=n) ** 3
    elif kind == 8:
        x = rng.uniform(size=n)
        x[rng.integers(0, n, 5)] = np.nan
    else:
        x = np.full(n, 2.5)
    return x


@pytest.mark.parametrize("seed", range(20))
def test_order_statistics_equal_sorting(seed):
    from pyiml._algorithms.rstats import order_statistics

    x = _column(seed, sizes=(10, 4095, 5000, 30_000, 120_000))
    x = x[~np.isnan(x)]            # (finite values: callers drop the others)
    n = x.size
    ranks = type1_ranks(n, np.linspace(0, 1, 21))
    np.testing.assert_array_equal(order_statistics(x, ranks), np.sort(x)[ranks])
    sorted_x = np.sort(x)
    np.testing.assert_array_equal(r_quantile(x, [0, 0.1, 0.5, 0.93, 1], type=1),
                                  sorted_x[type1_ranks(n, [0, 0.1, 0.5, 0.93, 1])])
    # type 7 from the selected order statistics equals R's definition on all values sorted
    p = np.linspace(0, 1, 100)
    index = 1 + (n - 1) * p
    lo, hi = np.floor(index).astype(int), np.ceil(index).astype(int)
    want = [sorted_x[a - 1] if i <= a or sorted_x[b - 1] == sorted_x[a - 1] else
            (1 - (i - a)) * sorted_x[a - 1] + (i - a) * sorted_x[b - 1] for i, a, b in zip(index, lo, hi)]
    np.testing.assert_array_equal(r_quantile(x, p, type=7), want)


@pytest.mark.parametrize("n_grid", [2, 5, 21, 64, 65])
def test_ale_interval_equals_find_interval(n_grid):
    from pyiml._algorithms.grids import ale_interval, find_interval

    rng = np.random.default_rng(n_grid)
    x = np.round(rng.normal(size=5000), 2)
    grid = np.unique(np.quantile(x, np.linspace(0, 1, n_grid)))
    want = find_interval(x, grid)
    want[want == 0] = 1
    np.testing.assert_array_equal(ale_interval(x, grid), want)
    x[::7] = np.nan
    want = find_interval(x, grid)
    want[want == 0] = 1
    np.testing.assert_array_equal(ale_interval(x, grid), want)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # -Inf and Inf give NaN silently, as in R
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 9), st.integers(0, 10 ** 6))
def test_row_medians_and_quantiles_equal_the_scalar_ones(rows, n, seed):
    from pyiml._algorithms.rstats import r_median, r_median_rows, r_quantile, r_quantile7_rows

    rng = np.random.default_rng(seed)
    m = rng.choice([0.1, 1 / 3, 2.0, 1e300, -1e300, np.inf, -np.inf, np.nan], size=(rows, n)) \
        if seed % 3 == 0 else np.round(rng.normal(size=(rows, n)) * 10 ** rng.integers(0, 3), rng.integers(0, 4))
    probs = [0.0, 0.05, 0.5, 0.95, 1.0]
    np.testing.assert_array_equal(r_median_rows(m), [r_median(v) for v in m])
    np.testing.assert_array_equal(r_quantile7_rows(m, probs), np.array([r_quantile(v, probs, type=7) for v in m]))


def test_r_exp_and_r_log_are_the_c_librarys():
    """R's exp and log are the C library's (what math.exp / math.log call), element by element;
    numpy's own vectorised versions differ from them in the last bit for many values."""
    import math

    from pyiml._algorithms.rstats import r_exp, r_log

    x = np.random.default_rng(0).normal(size=(300, 7)) * 5
    e = r_exp(x)
    assert e.shape == x.shape
    assert all(a == math.exp(b) for a, b in zip(e.ravel().tolist(), x.ravel().tolist()))
    lg = r_log(np.abs(x))
    assert all(a == math.log(abs(b)) for a, b in zip(lg.ravel().tolist(), x.ravel().tolist()))
    # where C's result is a special value (math raises there): 0, inf, -inf, NaN as in C
    edge = np.array([-1000.0, 1000.0, np.inf, -np.inf, np.nan, 0.0])
    np.testing.assert_array_equal(r_exp(edge), [0.0, np.inf, np.inf, 0.0, np.nan, 1.0])
    np.testing.assert_array_equal(r_log(np.array([0.0, -1.0, np.inf, np.nan, 1.0])),
                                  [-np.inf, np.nan, np.inf, np.nan, 0.0])
    x0 = x.copy()
    r_exp(x)
    np.testing.assert_array_equal(x, x0)   # inputs untouched


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("grid_size", [2, 21, 101, 1001])
def test_ale_grid_equals_the_quantile_grid_and_its_intervals(seed, grid_size):
    """ale_grid's grid is grid_1d's (distinct values), and where it finds the intervals from its
    buckets they are ale_interval's, value for value (numerical and integer features)."""
    from pyiml._algorithms.grids import ale_grid, ale_interval, grid_1d

    x = _column(seed)
    columns = [(x, "numerical")]
    if seed % 10 in (1, 2, 9):
        columns.append((np.round(x).astype(np.int64), "integer"))
    for values, kind in columns:
        grid, k = ale_grid(values, grid_size, kind)
        want = np.unique(grid_1d(values, grid_size, kind, type="quantile"))
        assert grid.dtype == want.dtype
        np.testing.assert_array_equal(grid, want)
        if k is not None:
            assert k.dtype == np.int64
            np.testing.assert_array_equal(k, ale_interval(np.asarray(values, dtype=float), want))


def test_ale_grid_finds_the_intervals_of_finite_values(monkeypatch):
    """Every value finite: the intervals, from the buckets (4096+ values, not too skewed) or
    looked up; a missing value: None (its row lies outside the grid)."""
    from pyiml._algorithms import grids

    rng = np.random.default_rng(3)
    x = rng.uniform(size=10_000)
    calls = []
    real = grids.ale_interval
    monkeypatch.setattr(grids, "ale_interval", lambda *a: calls.append(1) or real(*a))
    assert grids.ale_grid(x, 21, "numerical")[1] is not None and not calls          # buckets
    assert grids.ale_grid(np.round(x * 100).astype(np.int64), 21, "integer")[1] is not None
    assert grids.ale_grid(x[:4095], 21, "numerical")[1] is not None and calls       # looked up
    assert grids.ale_grid(rng.lognormal(0, 4, 10_000), 21, "numerical")[1] is not None
    with_nan = x.copy()
    with_nan[7] = np.nan
    assert grids.ale_grid(with_nan, 21, "numerical")[1] is None
    assert grids.ale_grid(with_nan[:100], 21, "numerical")[1] is None
