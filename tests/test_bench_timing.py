"""The timing rule of ``make bench`` (parity.bench): the Python sides are timed as R's side is,
calls repeated back to back until ``min_time`` has passed, the mean per call; the median of the
runs; the sides take turns run by run."""
import gc
import itertools

from parity import bench


class FakeClock:
    """A clock that its timed function ``fn`` advances by the next of ``steps`` seconds (cycling)
    at each call; ``calls`` counts the calls."""

    def __init__(self, *steps):
        self.now = 0.0
        self.calls = 0
        self._steps = itertools.cycle(steps)

    def __call__(self):
        return self.now

    def fn(self):
        self.calls += 1
        self.now += next(self._steps)


def test_loop_time_repeats_until_min_time_and_returns_the_mean():
    clock = FakeClock(0.03)
    t = bench._loop_time(clock.fn, 0.2, clock)
    assert clock.calls == 7           # 6 calls make 0.18 s < 0.2, the 7th 0.21 s
    assert abs(t - 0.03) < 1e-12


def test_loop_time_calls_a_slow_function_once():
    clock = FakeClock(0.5)
    assert bench._loop_time(clock.fn, 0.2, clock) == 0.5
    assert clock.calls == 1


def test_user_time_per_call_loops_on_the_user_time_clock(monkeypatch):
    # a call whose user time advances 0 s (ticks spent in the kernel) or little is repeated until
    # 0.2 s of user time have passed: never the 0.0 s a single call can read
    clock = FakeClock(0.0, 0.0, 0.05)
    monkeypatch.setattr(bench, "user_time", clock)
    t = bench.user_time_per_call(clock.fn)
    assert clock.calls == 12           # 4 x 0.05 s = 0.2 s of user time
    assert abs(t - 0.2 / 12) < 1e-12


def test_median_times_take_turns_and_restore_the_collector():
    order = []
    fns = {"a": lambda: order.append("a"), "b": lambda: order.append("b")}
    enabled = gc.isenabled()
    try:
        gc.disable()
        bench._median_times(fns, repeats=3, min_time=0.0)
        assert not gc.isenabled()
        gc.enable()
        t = bench._median_times(fns, repeats=3, min_time=0.0)
        assert gc.isenabled()
    finally:
        (gc.enable if enabled else gc.disable)()
    # warm-up a, b; then with min_time 0 one call per run: a, b, a, b, a, b
    assert order[:8] == ["a", "b", "a", "b", "a", "b", "a", "b"]
    assert set(t) == {"a", "b"} and all(v >= 0 for v in t.values())


def test_design_rows_are_the_rows_each_method_predicts():
    import numpy as np

    from parity.bench_cases import design_rows

    X = bench.friedman_data(40).drop(columns="y")
    A = X.to_numpy()
    n, p = A.shape
    fi = design_rows(X, "FeatureImp", R=2)
    assert len(fi) == n * (p * 2 + 1) and list(fi.columns) == list(X.columns)
    assert all(fi[c].to_numpy().strides == (8,) for c in fi.columns)          # contiguous columns
    np.testing.assert_array_equal(fi.to_numpy()[:n], A)
    blk = fi.to_numpy()[n + 2 * n:n + 3 * n]                                   # feature 2, first permutation
    np.testing.assert_array_equal(np.delete(blk, 1, axis=1), np.delete(A, 1, axis=1))
    np.testing.assert_array_equal(np.sort(blk[:, 1]), np.sort(A[:, 1]))
    assert not np.array_equal(blk[:, 1], A[:, 1])
    pdp = design_rows(X, "PDP+ICE 1-D", G=5).to_numpy().reshape(5, n, p)
    np.testing.assert_array_equal(pdp[:, :, 1:], np.broadcast_to(A[:, 1:], (5, n, p - 1)))
    np.testing.assert_allclose(pdp[:, 0, 0], np.linspace(A[:, 0].min(), A[:, 0].max(), 5))
    ale = design_rows(X, "ALE 1-D", G=4).to_numpy().reshape(2, n, p)
    assert (ale[0, :, 0] <= A[:, 0]).all() and (ale[1, :, 0] >= A[:, 0]).all()
    inter = design_rows(X, "Interaction two-way", grid=3)
    assert len(inter) == (p - 1) * 3 * 3 * n
    shap = design_rows(X, "Shapley 1 row", M=7).to_numpy()
    assert len(shap) == 2 * 7 * p + n + 1
    plus, minus = shap[:7 * p].reshape(7, p, p), shap[7 * p:14 * p].reshape(7, p, p)
    # row j of a sample: x on j and the features before it ("plus"), or before it only ("minus");
    # the two differ in feature j alone, where "plus" holds x's value
    for m in range(7):
        for j in range(p):
            diff = np.flatnonzero(plus[m, j] != minus[m, j])
            assert set(diff) <= {j}
            assert plus[m, j, j] == A[0, j]
    np.testing.assert_array_equal(shap[14 * p:14 * p + n], A)
    np.testing.assert_array_equal(shap[-1], A[0])
