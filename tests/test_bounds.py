"""parity.bounds: the bare numpy versions compute what pyiml computes, and the table is written."""
import numpy as np
import pandas as pd

from parity import bounds


def test_bare_ale_and_pdp_ice_equal_pyiml():
    X, todo = bounds.bounds(300)
    checked = {b.name: b.check(b.bare(), b.pyiml()) for b in todo if b.check is not None}
    assert set(checked) == {"ALE 1-D (grid 20)", "ALE 2-D (grid 20x20)", "PDP+ICE 1-D (grid 20)"}
    assert all(d < 1e-12 for d in checked.values()), checked


def test_bare_ale_equals_pyiml_with_bucket_intervals():
    # 5,000 rows: the grids and intervals come from the bucket pass, no 2-D cell is empty
    X, todo = bounds.bounds(5000)
    checked = {b.name: b.check(b.bare(), b.pyiml()) for b in todo if b.name.startswith("ALE")}
    assert len(checked) == 2 and all(d < 1e-12 for d in checked.values()), checked


def test_bare_feature_imp_and_shapley_estimate_the_same_quantities():
    X, todo = bounds.bounds(300)
    by = {b.name: b for b in todo}
    bare = by["FeatureImp (mae, 5 reps)"].bare()
    py = by["FeatureImp (mae, 5 reps)"].pyiml().results
    assert list(bare.columns) == list(py.columns)
    # x4 (10·x4) and x1/x2 matter, x6-x10 do not: the same top and bottom features
    assert set(bare["feature"][:2]) == set(py["feature"][:2])
    assert (bare.set_index("feature").loc[["x6", "x7", "x8", "x9", "x10"], "importance"] < 1.05).all()
    sb = by["Shapley 1 row (M 100)"].bare()
    sp = by["Shapley 1 row (M 100)"].pyiml().results
    assert list(sb.columns) == ["feature", "phi", "phi.var", "feature.value"]
    assert list(sb["feature"]) == list(sp["feature"])
    # efficiency: the phis sum to about f(x) - mean f (within Monte-Carlo error)
    assert abs(sb["phi"].sum() - sp["phi"].sum()) < 1.5


def test_table_is_written(tmp_path):
    out = tmp_path / "b.md"
    assert bounds.main(["--sizes", "200", "--repeats", "1", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# Lower bounds of the floor ratios")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "200 |" in ln]
    assert len(rows) == 6
