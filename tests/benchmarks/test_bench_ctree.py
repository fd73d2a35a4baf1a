"""Speed of the ctree reimplementation (n = 100 000, p = 10, maxdepth 2)."""
import numpy as np
import pandas as pd

from pyiml._algorithms.ctree import ctree


def test_bench_ctree_100k(benchmark):
    rng = np.random.default_rng(36)
    n = 100_000
    X = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(10)})
    y = X["x0"].to_numpy() * 2 + np.sin(X["x1"].to_numpy() * 3) + rng.normal(size=n)
    tree = benchmark(ctree, X, y, maxdepth=2)
    assert len(tree) == 7
