"""The 15 losses equal R's Metrics (run live) to 1e-12, on hypothesis-generated inputs."""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pyiml import losses

NUMERIC = ["mae", "mse", "rmse", "mape", "mdae", "msle", "percent_bias", "rae", "rmsle", "rse", "rrse", "smape"]

pairs = st.integers(min_value=2, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0.01, 1e3, allow_nan=False), min_size=n, max_size=n),
        st.lists(st.floats(0.0, 1e3, allow_nan=False), min_size=n, max_size=n),
    )
)


def _r_loss(r, name, a, p):
    ro = r.robjects()
    conv = (lambda v: ro.StrVector([str(x) for x in v])) if np.asarray(a).dtype.kind in "UO" else ro.FloatVector
    return float(r.r_eval(f"Metrics::{name}(a, p)", a=conv(list(a)), p=conv(list(p)))[0])


def _close(x, y, tol=1e-12):
    if np.isinf(x) or np.isinf(y) or np.isnan(x) or np.isnan(y):
        return (np.isnan(x) and np.isnan(y)) or x == y
    return abs(x - y) <= tol * max(1.0, abs(y))


@pytest.mark.r
@pytest.mark.parametrize("name", NUMERIC)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.data_too_large, HealthCheck.too_slow])
@given(ap=pairs)
def test_numeric_losses_equal_metrics(r, name, ap):
    a, p = np.array(ap[0]), np.array(ap[1])
    assert _close(losses.LOSSES[name](a, p), _r_loss(r, name, a, p))


@pytest.mark.r
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.data_too_large, HealthCheck.too_slow])
@given(data=st.integers(2, 30).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 1.0, 0.2, 0.5, 0.999, 1e-9]) | st.floats(0.0, 1.0), min_size=n, max_size=n))))
def test_logloss_equals_metrics(r, data):
    a, p = np.array(data[0]), np.array(data[1])
    assert _close(losses.logLoss(a, p), _r_loss(r, "logLoss", a, p))


@pytest.mark.r
@pytest.mark.parametrize("name", ["ce", "f1"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.data_too_large, HealthCheck.too_slow])
@given(data=st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n))))
def test_label_losses_equal_metrics(r, name, data):
    a, p = np.array(data[0]), np.array(data[1])
    assert _close(losses.LOSSES[name](a, p), _r_loss(r, name, a, p))


@pytest.mark.r
@pytest.mark.parametrize("name", ["ce", "f1"])
@pytest.mark.parametrize("numbers_first", [False, True])
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.data_too_large, HealthCheck.too_slow])
@given(data=st.integers(1, 20).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from(["0", "1", "0.5", "1e+05", "100000", "0.3", "a"]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 1.0, 0.5, 1e5, 0.1 + 0.2, 1 / 3, 2.0]), min_size=n, max_size=n))))
def test_label_losses_compare_labels_with_numbers_as_r_does(r, name, numbers_first, data):
    """A factor against doubles (a label target against one probability column): R compares the
    numbers as as.character writes them, so the level "1" equals 1 and "1e+05" equals 1e5
    (pyiml wrote 1.0 and 100000.0, so no number ever matched a label)."""
    labels, nums = np.array(data[0], dtype=object), np.array(data[1])
    a, p = (nums, labels) if numbers_first else (labels, nums)
    ro = r.robjects()
    ra, rp = (ro.FloatVector(nums), ro.FactorVector(ro.StrVector(list(labels)))) if numbers_first else \
        (ro.FactorVector(ro.StrVector(list(labels))), ro.FloatVector(nums))
    want = float(r.r_eval(f"Metrics::{name}(a, p)", a=ra, p=rp)[0])
    assert _close(losses.LOSSES[name](a, p), want)


def test_known_values():
    a, p = np.array([1.0, 2.0, 4.0]), np.array([2.0, 2.0, 1.0])
    assert losses.mae(a, p) == pytest.approx(4 / 3)
    assert losses.mse(a, p) == pytest.approx(10 / 3)
    assert losses.mdae(a, p) == 1.0
    assert losses.ce(np.array(["a", "b"]), np.array(["a", "c"])) == 0.5
    assert losses.f1(np.array(["a", "b"]), np.array(["a", "c"])) == 0.5
    assert losses.logLoss(np.array([1.0, 0.0]), np.array([1.0, 0.0])) == 0.0


def test_get_loss():
    f, label = losses.get_loss("rmse")
    assert f is losses.rmse and label == "rmse"
    assert len(losses.LOSSES) == 15

    def my_loss(a, p):
        return 0.0

    assert losses.get_loss(my_loss) == (my_loss, "my_loss")
    with pytest.raises(ValueError, match="loss='rmsee' is not a known loss"):
        losses.get_loss("rmsee")
    with pytest.raises(ValueError, match="same length"):
        losses.mae([1.0, 2.0], [1.0])


@pytest.mark.parametrize("name", NUMERIC + ["ce", "f1", "logLoss"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow])
@given(ap=pairs)
def test_numpy_arithmetic_equals_r_arithmetic_up_to_rounding(name, ap):
    a, p = np.array(ap[0]), np.array(ap[1])
    if name == "logLoss":
        a, p = (a > 500).astype(float), np.clip(p / 1e3, 0.01, 0.99)
    elif name in ("ce", "f1"):
        a, p = np.round(a / 300), np.round(p / 300)
    elif name in ("rae", "rse", "rrse"):  # relative to the spread of a: ill-conditioned for an almost constant a
        assume(np.ptp(a) > 1e-3 * np.abs(a).max())
    exact, label = losses.get_loss(name)
    fast, label_fast = losses.get_loss(name, exact=False)
    assert exact is losses.LOSSES[name] and label == label_fast == name
    assert _close(fast(a, p), exact(a, p), tol=1e-13)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3000), st.integers(0, 10 ** 6))
def test_row_wise_losses_equal_the_loss_of_each_row(rows, n, seed):
    from pyiml.losses import FAST_ROWS

    rng = np.random.default_rng(seed)
    a = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
    P = a[None, :] + rng.standard_cauchy(size=(rows, n))
    for name, fn in FAST_ROWS.items():
        one = losses.get_loss(name, exact=False)[0]
        np.testing.assert_array_equal(fn(a, P), [one(a, p) for p in P], err_msg=name)
