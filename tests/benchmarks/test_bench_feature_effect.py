"""Speed of FeatureEffect (ALE 1-D/2-D, PDP+ICE 1-D, PDP 2-D): pyiml against R's iml,
scikit-learn and the floor.

Same model and data on every side, in one process: the closed-form Friedman #1 model (p = 10)
written in Python and in R (:mod:`parity.bench`), grid size 20, n = 1000 and n = 100 000 rows.
R iml is timed inside R (n = 1000; its PDP/ICE predicts 1000 rows per call and would take
minutes at n = 100 000); scikit-learn's ``partial_dependence(method="brute")`` computes the same
PDP/ICE on the same equidistant min–max grid (``percentiles=(0, 1)``); the floor is the time to
predict the rows the method needs with one model call on a prebuilt frame (for the 4·10⁷ rows
of the 2-D PDP at n = 100 000: 40 calls of 10⁶ rows). The suite runs with
``--benchmark-disable`` (each benchmark once); the comparisons are timed here with the minimum
of a few runs, since the machine is shared. Ratios are attached to ``extra_info`` and printed
(``-s``).

Targets: ≥ 10× faster than R iml; faster than scikit-learn on the same work; within 3× of the
floor at n = 100 000 (asserted with a margin for the shared machine: 4×, 2-D PDP). Known gaps,
asserted as regression guards: PDP+ICE at n = 100 000 builds iml's long results table of
G·n = 2·10⁶ rows (an object ``.type`` column included), which sklearn's arrays skip, so it is
slower than sklearn there; ALE at n = 100 000 selects quantiles and looks up intervals of 10⁵
values, which costs more than predicting 2n / 4n rows with this closed form (a real model's
prediction dominates instead). At n = 1000 the floor is a fraction of a millisecond and pyiml's
fixed cost of a few milliseconds dominates; that ratio is reported, not asserted.
"""


import numpy as np
import pandas as pd
import pytest

from parity.bench import (FriedmanModel, best_time, floor_call, friedman_data, friedman_f, repeat_rows, time_r,
                          user_time_per_call)
from pyiml import FeatureEffect, Predictor

N = 1000
BIG = 100_000
G = 20

# method → (pyiml arguments, rows the method predicts per data row, R call)
CASES = {
    "ale_1d": (dict(feature="x1", method="ale"), 2, 'iml::FeatureEffect$new(predictor, "x1", method = "ale")'),
    "ale_2d": (dict(feature=["x1", "x2"], method="ale"), 4,
               'iml::FeatureEffect$new(predictor, c("x1", "x2"), method = "ale")'),
    "pdp_ice_1d": (dict(feature="x1", method="pdp+ice"), G,
                   'iml::FeatureEffect$new(predictor, "x1", method = "pdp+ice")'),
    "pdp_2d": (dict(feature=["x1", "x2"], method="pdp"), G * G,
               'iml::FeatureEffect$new(predictor, c("x1", "x2"), method = "pdp")'),
}


def _floor(X: pd.DataFrame, rows: int, chunk: int = 10 ** 6, measure=best_time) -> float:
    """One model call on ``rows`` prebuilt rows (calls of ``chunk`` rows, scaled, beyond that)."""
    m = min(rows, chunk)
    big = repeat_rows(X, m)
    return measure(floor_call(friedman_f, big)) * rows / m


def _report(benchmark, name, **ratios):
    benchmark.extra_info.update(ratios)
    print(f"\n{name}: " + ", ".join(f"{k} {v:.3g}" for k, v in ratios.items()))


@pytest.fixture(scope="module")
def sizes():
    out = {}
    for n in (N, BIG):
        data = friedman_data(n, seed=n % 7)
        # model calls of 10^5 rows: as many as scikit-learn's brute method predicts per call (n
        # rows per grid value), and what `make bench` uses
        out[n] = (data, Predictor(data=data, y="y", predict_function=friedman_f, batch_size=10 ** 5))
    return out


def _sklearn(case: str, X: pd.DataFrame):
    from sklearn.inspection import partial_dependence

    model = FriedmanModel().fit(X)
    if case == "pdp_ice_1d":
        return lambda: partial_dependence(model, X, ["x1"], method="brute", kind="both", grid_resolution=G,
                                          percentiles=(0, 1))
    if case == "pdp_2d":
        return lambda: partial_dependence(model, X, ["x1", "x2"], method="brute", kind="average",
                                          grid_resolution=G, percentiles=(0, 1))
    return None


@pytest.mark.parametrize("n", [N, BIG])
@pytest.mark.parametrize("case", list(CASES))
def test_feature_effect_vs_floor_and_sklearn(benchmark, sizes, case, n):
    data, p = sizes[n]
    X = data.drop(columns="y")
    kwargs, per_row, _ = CASES[case]
    run = lambda: FeatureEffect(p, **kwargs)
    fe = benchmark(run)
    assert len(fe.results) > 0
    reps = 5
    t_py = best_time(run, reps)
    t_floor = _floor(X, per_row * n)
    ratios = dict(pyiml_s=t_py, pyiml_over_floor=t_py / t_floor)
    sk = _sklearn(case, X)
    if sk is not None:
        t_sk = best_time(sk, reps)
        ratios["sklearn_over_pyiml"] = t_sk / t_py
    _report(benchmark, f"FeatureEffect {case} n={n}", **ratios)
    if n == BIG:
        # The guards at n = 10^5 compare user-mode CPU time (parity.bench.user_time): a call that
        # allocates its 16 MB of predictions spends 0-40 ms in the kernel when transparent huge
        # pages meet fragmented memory (seen on this machine: 12-58 ms wall for PDP+ICE, with the
        # same user time), which says nothing of pyiml's code.
        t_py = user_time_per_call(run)
        t_floor = _floor(X, per_row * n, measure=user_time_per_call)
        if sk is not None:
            t_sk = user_time_per_call(sk)
            # both are bound by predicting 2·10⁶ / 4·10⁷ rows; on a shared machine the ratio swings
            # by ±30% between runs, so this is a regression guard. PDP+ICE also builds iml's long
            # table (G·n rows: feature, .value, .type, .id), which sklearn's arrays do not.
            assert t_py < (2.5 if case == "pdp_ice_1d" else 1.5) * t_sk
        # ALE: the type-1 quantile selection and the interval lookup of 10^5 values cost more
        # than this closed-form model's prediction of the 2n / 4n rows (a regression guard)
        # PDP+ICE: the 2·10⁶-row results table costs about as much as the predictions
        assert t_py < {"pdp_2d": 4, "pdp_ice_1d": 6}.get(case, 15) * t_floor
    elif sk is not None:
        assert t_py < t_sk


@pytest.mark.r
@pytest.mark.parametrize("case", list(CASES))
def test_feature_effect_vs_r(benchmark, r, sizes, case):
    data, p = sizes[N]
    kwargs, _, r_code = CASES[case]
    run = lambda: FeatureEffect(p, **kwargs)
    benchmark(run)
    t_py = best_time(run, 10)
    t_r = time_r(r_code, data, 3)
    _report(benchmark, f"FeatureEffect {case} vs R (n={N})", r_s=t_r, r_over_pyiml=t_r / t_py)
    assert t_r / t_py >= 10


@pytest.fixture(scope="module")
def mixed():
    """n = 100 000 rows of nine float features and a categorical one: designs of mixed dtypes,
    which are built column by column (not as one float block)."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.uniform(size=(BIG, 9)), columns=[f"x{i + 1}" for i in range(9)])
    X["c"] = pd.Categorical(rng.choice(list("abcd"), BIG))

    def f(d):
        return friedman_f(d) + 2.0 * (d["c"].cat.codes.to_numpy() == 1)

    return X, f, Predictor(data=X, predict_function=f, batch_size=10 ** 5)


@pytest.mark.parametrize("case, per_row", [("pdp", 10), ("ale", 2)])
def test_mixed_dtype_designs_vs_floor(benchmark, mixed, case, per_row):
    """Mixed-dtype designs against one model call on the same rows with the same dtypes. Each
    design column is written in place by the blocks' fill (no gather through index arrays) and
    the frame takes the columns as they are (no consolidating copy, no conversion of the
    categorical to objects): PDP 100 -> 14 ms, ALE 17 -> 6 ms. ALE's quantiles and interval
    lookup of 10^5 values weigh as in the float benchmark above (a regression guard)."""
    X, f, p = mixed
    kwargs = dict(feature="x1", method=case, grid_size=per_row) if case == "pdp" else dict(feature="x1", method="ale")
    run = lambda: FeatureEffect(p, **kwargs)
    benchmark(run)
    t_py = best_time(run, 3)
    rows = repeat_rows(X, per_row * BIG)
    t_floor = best_time(lambda: f(rows.copy(deep=False)), 3)
    _report(benchmark, f"FeatureEffect {case} mixed dtypes n={BIG}", pyiml_s=t_py, pyiml_over_floor=t_py / t_floor)
    assert t_py < {"pdp": 3, "ale": 10}[case] * t_floor
