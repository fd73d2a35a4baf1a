"""Speed of LocalModel and TreeSurrogate: pyiml against R's iml on the same model and data.

The closed-form Friedman #1 model (p = 10) written in Python and in R (:mod:`parity.bench`),
n = 1000 and n = 100 000 rows. R iml is timed inside R (median of its runs); pyiml with the
minimum of a few runs, since the machine is shared. The suite runs with
``--benchmark-disable`` (each benchmark once).

Targets: LocalModel >= 2x and TreeSurrogate >= 5x faster than R iml. Both methods predict
every data row once, so the floor (one model call on the data) is reported too.
The ratios are attached to each benchmark's ``extra_info`` and printed (``-s``).
"""
import warnings

import pytest

from parity.bench import best_time, floor_call, friedman_data, friedman_f, repeat_rows, time_r
from pyiml import LocalModel, Predictor, TreeSurrogate

SIZES = {"n1000": 1000, "n100000": 100_000}


def _report(benchmark, name, **values):
    benchmark.extra_info.update(values)
    print(f"\n{name}: " + ", ".join(f"{k} {v:.3g}" for k, v in values.items()))


@pytest.fixture(scope="module", params=list(SIZES))
def case(request):
    n = SIZES[request.param]
    data = friedman_data(n)
    return data, Predictor(data=data, y="y", predict_function=friedman_f, batch_size=10 ** 6)


def _local_model(p, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Had to choose a smaller k" is part of iml's algorithm
        return LocalModel(p, X.iloc[[0]], k=3)


def test_local_model_vs_floor(benchmark, case):
    data, p = case
    X = data.drop(columns="y")
    lm = benchmark(lambda: _local_model(p, X))
    assert 1 <= len(lm.results) <= 3
    t = best_time(lambda: _local_model(p, X))
    floor = best_time(floor_call(friedman_f, repeat_rows(X, len(X))))
    _report(benchmark, f"LocalModel n={len(X)}", pyiml_s=t, pyiml_over_floor=t / floor)


def test_tree_surrogate_vs_floor(benchmark, case):
    data, p = case
    X = data.drop(columns="y")
    ts = benchmark(lambda: TreeSurrogate(p, maxdepth=2))
    assert ts.results[".node"].nunique() == 4 and 0 < ts.r_squared < 1
    t = best_time(lambda: TreeSurrogate(p, maxdepth=2))
    floor = best_time(floor_call(friedman_f, repeat_rows(X, len(X))))
    _report(benchmark, f"TreeSurrogate n={len(X)}", pyiml_s=t, pyiml_over_floor=t / floor)


@pytest.mark.r
def test_local_model_vs_r(benchmark, r, case):
    data, p = case
    X = data.drop(columns="y")
    benchmark(lambda: _local_model(p, X))
    t_py = best_time(lambda: _local_model(p, X), 10 if len(X) <= 1000 else 3)   # best of more: a few ms
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_r = time_r("iml::LocalModel$new(predictor, x.interest = X[1, ], k = 3)", data, 3 if len(X) <= 1000 else 1)
    _report(benchmark, f"LocalModel vs R n={len(X)}", pyiml_s=t_py, r_s=t_r, r_over_pyiml=t_r / t_py)
    assert t_r / t_py >= 2


@pytest.mark.r
def test_tree_surrogate_vs_r(benchmark, r, case):
    data, p = case
    X = data.drop(columns="y")
    benchmark(lambda: TreeSurrogate(p, maxdepth=2))
    t_py = best_time(lambda: TreeSurrogate(p, maxdepth=2), 10 if len(X) <= 1000 else 3)
    t_r = time_r("iml::TreeSurrogate$new(predictor, maxdepth = 2)", data, 3 if len(X) <= 1000 else 1)
    _report(benchmark, f"TreeSurrogate vs R n={len(X)}", pyiml_s=t_py, r_s=t_r, r_over_pyiml=t_r / t_py)
    assert t_r / t_py >= 5
