"""R's summary statistics: bit-for-bit against R run live."""
import numpy as np
import pytest

from pyiml._algorithms.rstats import r_col_means, r_mean, r_median, r_quantile, r_sum, r_var


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
    np.testing.assert_array_equal(r_col_means(m), np.asarray(r.r_eval("apply(m, 2, mean)", m=rm)))
    np.testing.assert_array_equal(r_col_means(m), [r_mean(m[:, j]) for j in range(4)])


def test_edge_cases():
    assert np.isnan(r_mean([])) and r_sum([]) == 0.0
    assert r_median([3.0, 1.0, 2.0]) == 2.0 and r_median([1.0, 2.0]) == 1.5
    assert np.isnan(r_median([1.0, np.nan]))
    assert np.isnan(r_var([1.0]))
    with pytest.raises(ValueError, match="type must be 1 or 7"):
        r_quantile([1.0], 0.5, type=3)
