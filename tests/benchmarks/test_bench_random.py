"""Benchmarks of RRandom's vectorised sampling (run with ``pytest --benchmark-enable``; the default
``--benchmark-disable`` runs each body once as a plain test)."""
import numpy as np

from pyiml.random import RRandom


def test_bench_rrandom_permutation_1e6(benchmark):
    """R's ``set.seed(1); sample.int(1e6)``: must stay well under a second."""
    perm = benchmark(lambda: RRandom(1).permutation(10 ** 6))
    assert perm.shape == (10 ** 6,)
    assert np.array_equal(np.sort(perm), np.arange(10 ** 6))


def test_bench_rrandom_sample_int_1e6_choose_1e3(benchmark):
    """R's ``set.seed(1); sample.int(1e6, 1e3)``."""
    idx = benchmark(lambda: RRandom(1).sample_int(10 ** 6, 10 ** 3))
    assert idx.shape == (10 ** 3,) and np.unique(idx).size == 10 ** 3


def test_bench_rrandom_element_stream_permutations(benchmark):
    """FeatureImp-like draws: 10 L'Ecuyer-CMRG element streams, 5 permutations of 10^5 each."""
    def run():
        return [s.permutations(10 ** 5, 5) for s in RRandom(1).element_streams(10)]

    perms = benchmark(run)
    assert len(perms) == 10 and perms[0].shape == (5, 10 ** 5)
