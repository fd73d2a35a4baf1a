"""Peak memory is bounded by ``batch_size``: PDP and Interaction on 10^6 rows, batch_size 10^5.

Each run happens in a fresh Python process whose peak resident set size (``ru_maxrss``) is
read at the end, so the figure covers numpy buffers, pandas frames and the interpreter.
"""
import json
import subprocess
import sys
import textwrap

import pytest

CODE = textwrap.dedent("""
    import json, resource, sys
    import numpy as np, pandas as pd
    import pyiml
    method = sys.argv[1]
    n = 10 ** 6
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(n, 4)), columns=["x1", "x2", "x3", "x4"])
    f = lambda d: (10 * np.sin(np.pi * d["x1"].to_numpy() * d["x2"].to_numpy())
                   + 20 * (d["x3"].to_numpy() - 0.5) ** 2 + 10 * d["x4"].to_numpy())
    p = pyiml.Predictor(data=X, predict_function=f, batch_size=10 ** 5)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if method == "pdp":
        res = pyiml.FeatureEffect(p, "x1", method="pdp", grid_size=20).results
    else:
        res = pyiml.Interaction(p, grid_size=5, random_state=1).results
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"rows": len(res), "peak_mb": peak / 1024, "data_mb": base / 1024}))
""")


@pytest.mark.parametrize("method", ["pdp", "interaction"])
def test_peak_memory_bounded_by_batch_size(benchmark, method):
    def run():
        out = subprocess.run([sys.executable, "-c", CODE, method], capture_output=True, text=True, timeout=1200)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    res = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(res)
    print(f"\n{method}: peak RSS {res['peak_mb']:.0f} MB (data and interpreter {res['data_mb']:.0f} MB)")
    assert res["rows"] == (20 if method == "pdp" else 4)
    assert res["peak_mb"] < 2048
