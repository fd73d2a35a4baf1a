"""Parity without R (parity/replay.py): R's side recorded once, replayed in pyiml with the same verdicts."""
import pickle

import numpy as np
import pandas as pd
import pytest

from parity import replay
from parity.harness import load_specs


def _frame():
    return pd.DataFrame({
        "num": [0.1, np.nan, -0.0],
        "int": np.array([1, 2, 3], dtype=np.int64),
        "cat": pd.Categorical(["b", "a", "b"], categories=["b", "a", "unused"]),
        "ord": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True),
        "nullable": pd.array([1, None, 3], dtype="Int64"),
        "text": np.array(["x", None, "z"], dtype=object),
        "flag": [True, False, True],
    })


def test_encoding_round_trips_frames_and_values():
    df = _frame()
    enc = replay.encode(df)
    pd.testing.assert_frame_equal(replay.decode(pickle.loads(pickle.dumps(enc))), df)
    nested = {"a": np.arange(6.0).reshape(2, 3), "b": [1, 2.5, "s", None], "c": np.float64(0.25)}
    back = replay.decode(replay.encode(nested))
    np.testing.assert_array_equal(back["a"], nested["a"])
    assert back["b"] == [1, 2.5, "s", None] and back["c"] == 0.25 and type(back["c"]) is float
    assert replay._same(enc, replay.encode(df.copy()))
    assert not replay._same(enc, replay.encode(df.assign(num=[0.1, np.nan, 0.0])))  # -0.0 is not 0.0
    with pytest.raises(TypeError, match="cannot record"):
        replay.encode({"x": object()})


def test_frame_key_sees_values_types_levels_and_column_order():
    df = _frame()
    key = replay.frame_key(df)
    assert replay.frame_key(df.copy()) == key
    variants = [
        df.assign(num=[0.1, np.nan, 0.0]),
        df.assign(int=df["int"].astype(float)),
        df.assign(cat=df["cat"].cat.reorder_categories(["a", "b", "unused"])),
        df.assign(ord=df["ord"].cat.as_unordered()),
        df.assign(nullable=pd.array([1, 2, 3], dtype="Int64")),
        df.assign(text=np.array(["x", None, "y"], dtype=object)),
        df[list(df.columns[::-1])],
        df.iloc[:2],
    ]
    assert len({replay.frame_key(v) for v in variants} | {key}) == len(variants) + 1


@pytest.mark.r
def test_replay_without_r_gives_the_recorded_verdicts(r, tmp_path):
    names = ["loss_mdae", "predictor_rf_iris_class", "sh_mixed_categorical", "ts_mixed_categorical_depth3",
             "fe_pdpice_int_mixed"]
    specs = [s for s in load_specs() if s.name in names]
    assert len(specs) == len(names)
    path = tmp_path / "recording.pkl"
    assert all(res.passed for res in replay.record(specs, path))
    replayed = replay.replay(path, specs)
    assert [res.spec.name for res in replayed] == [s.name for s in specs]
    assert all(res.passed and res.identical for res in replayed), [(res.spec.name, res.detail) for res in replayed]

    # a recorded R value that pyiml does not reproduce, and rows pyiml did not ask for, both fail
    with open(path, "rb") as fh:
        rec = pickle.load(fh)
    shap = rec["specs"]["sh_mixed_categorical"]
    r_out = replay.decode(shap["r"])
    r_out["results"].loc[0, "phi"] += 1e-6
    shap["r"] = replay.encode(r_out)
    rec["specs"]["ts_mixed_categorical_depth3"]["calls"].clear()
    with open(path, "wb") as fh:
        pickle.dump(rec, fh)
    by_name = {res.spec.name: res for res in replay.replay(path, specs)}
    assert not by_name["sh_mixed_categorical"].passed
    assert by_name["sh_mixed_categorical"].max_abs_diff == pytest.approx(1e-6, rel=1e-6)
    assert not by_name["ts_mixed_categorical_depth3"].passed
    assert "recording does not have" in by_name["ts_mixed_categorical_depth3"].detail
    assert by_name["loss_mdae"].passed and by_name["fe_pdpice_int_mixed"].passed
    with pytest.raises(ValueError, match="not a parity recording"):
        (tmp_path / "other.pkl").write_bytes(pickle.dumps({"x": 1}))
        replay.load(tmp_path / "other.pkl")
