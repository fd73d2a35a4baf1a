"""The timing rule of ``make bench`` (parity.bench): the Python sides are timed as R's side is,
calls repeated back to back until ``min_time`` has passed, the mean per call; the median of the
runs; the sides take turns run by run."""
import gc

from parity import bench


class FakeClock:
    """A clock that advances ``step`` seconds per call of the timed function."""

    def __init__(self, step):
        self.now = 0.0
        self.step = step

    def __call__(self):
        return self.now

    def tick(self):
        self.now += self.step


def test_loop_time_repeats_until_min_time_and_returns_the_mean():
    clock = FakeClock(0.03)
    calls = []

    def fn():
        calls.append(1)
        clock.tick()

    t = bench._loop_time(fn, 0.2, clock)
    assert len(calls) == 7            # 6 calls make 0.18 s < 0.2, the 7th 0.21 s
    assert abs(t - 0.03) < 1e-12


def test_loop_time_calls_a_slow_function_once():
    clock = FakeClock(0.5)
    calls = []

    def fn():
        calls.append(1)
        clock.tick()

    assert bench._loop_time(fn, 0.2, clock) == 0.5
    assert len(calls) == 1


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
