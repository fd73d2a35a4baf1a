"""Parity without R: record R's side of every spec once, replay it on another software stack.

``python -m parity --record FILE`` (needs R and iml) runs every spec as usual and also writes
FILE: per spec, R's outputs, pyiml's outputs, the data set, and every prediction pyiml asked the
model for, keyed by the exact rows asked. ``python -m parity --replay FILE`` needs neither R
nor the models: it runs pyiml's side of every spec on the recorded data set, answers each model
call from the recording and compares pyiml's outputs with the recorded R outputs, with the
spec's tolerance. A model call that was not recorded means pyiml built different rows than on
the recording machine, and fails the spec. Each spec also says whether pyiml's outputs are
bit-identical to those of the recording machine.

This is how parity is checked on numpy 2 / pandas 2 (``scripts/test-modern``): record on the
project's Debian 12 stack with R, replay in a Debian 13 chroot without R. Replayed Predictor
specs check pyiml's handling of the recorded outputs (class selection, naming), not the model
call itself, which the recording replaces.

The file is a pickle of plain Python values (arrays as dtype, shape and bytes), so a recording
made with numpy 1 / pandas 1 loads with numpy 2 / pandas 2 and the other way round. Load only
recordings you made: unpickling runs code.
"""
from __future__ import annotations

import hashlib
import math
import pickle
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

from .harness import Spec, SpecResult, _loss_py, compare_outputs, load_specs, py_outputs

__all__ = ["Recording", "ReplayResult", "encode", "decode", "frame_key", "record", "replay"]

FORMAT = "pyiml-parity-recording-1"


# ---------------------------------------------------------------------------- encoding
def _scalar(v):
    if isinstance(v, np.generic):
        return v.item()
    if v is None or v is pd.NA or isinstance(v, (bool, int, float, str)):
        return None if v is pd.NA else v
    raise TypeError(f"cannot record a value of type {type(v).__name__}: {v!r}")


def _encode_array(a: np.ndarray):
    if a.dtype == object:
        return {"objarray": [_scalar(v) for v in a.ravel().tolist()], "shape": list(a.shape)}
    if a.dtype.kind not in "biufcUSM":
        raise TypeError(f"cannot record an array of dtype {a.dtype}")
    return {"array": a.dtype.str, "shape": list(a.shape), "data": np.ascontiguousarray(a).tobytes()}


def _decode_array(n) -> np.ndarray:
    if "objarray" in n:
        out = np.empty(len(n["objarray"]), dtype=object)
        out[:] = n["objarray"]
        return out.reshape(n["shape"])
    return np.frombuffer(n["data"], dtype=np.dtype(n["array"])).reshape(n["shape"]).copy()


def _encode_series(s: pd.Series):
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        return {"categorical": _encode_array(np.asarray(dt.categories)), "ordered": bool(dt.ordered),
                "codes": _encode_array(s.cat.codes.to_numpy().astype(np.int64))}
    if isinstance(dt, np.dtype):
        return _encode_array(s.to_numpy())
    # pandas extension dtypes (Int64, boolean, string, Float64): the values with None for NA
    return {"extension": str(dt), "values": [_scalar(v) for v in s.astype(object).tolist()]}


def _decode_series(n):
    if "categorical" in n:
        cats = pd.Index(_decode_array(n["categorical"]))
        return pd.Categorical.from_codes(_decode_array(n["codes"]), categories=cats, ordered=n["ordered"])
    if "extension" in n:
        return pd.array(n["values"], dtype=n["extension"])
    return _decode_array(n)


def encode(x):
    """``x`` (frames, series, arrays, dicts, lists, scalars) as plain Python values."""
    if isinstance(x, pd.DataFrame):
        return {"frame": [_scalar(c) for c in x.columns], "columns": [_encode_series(x.iloc[:, j])
                                                                    for j in range(x.shape[1])],
                "nrow": len(x)}
    if isinstance(x, pd.Series):
        return {"series": _encode_series(x), "name": _scalar(x.name)}
    if isinstance(x, np.ndarray):
        return _encode_array(x)
    if isinstance(x, dict):
        return {"dict": [(_scalar(k), encode(v)) for k, v in x.items()]}
    if isinstance(x, (list, tuple)):
        return {"list": [encode(v) for v in x]}
    return {"scalar": _scalar(x)}


def decode(n):
    """The inverse of :func:`encode` (frames get a default RangeIndex)."""
    if "frame" in n:
        out = pd.DataFrame({j: _decode_series(c) for j, c in enumerate(n["columns"])}, index=pd.RangeIndex(n["nrow"]))
        out.columns = pd.Index(n["frame"], dtype=object)
        return out
    if "series" in n:
        return pd.Series(_decode_series(n["series"]), name=n["name"])
    if "dict" in n:
        return {k: decode(v) for k, v in n["dict"]}
    if "list" in n:
        return [decode(v) for v in n["list"]]
    if "scalar" in n:
        return n["scalar"]
    return _decode_array(n)


def _same(a, b) -> bool:
    """Equality of two encodings, bit for bit (NaN equals NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    return type(a) is type(b) and a == b


def frame_key(newdata: pd.DataFrame) -> str:
    """A digest of the rows a model is asked to predict: column names, types and values."""
    h = hashlib.sha256()
    h.update(repr(([str(c) for c in newdata.columns], len(newdata))).encode())
    for j in range(newdata.shape[1]):
        s = newdata.iloc[:, j]
        dt = s.dtype
        if isinstance(dt, pd.CategoricalDtype):
            h.update(repr(("categorical", [str(v) for v in dt.categories], bool(dt.ordered))).encode())
            h.update(s.cat.codes.to_numpy().astype(np.int64).tobytes())
        elif isinstance(dt, np.dtype) and dt != object:
            h.update(dt.str.encode())
            h.update(np.ascontiguousarray(s.to_numpy()).tobytes())
        else:
            h.update(repr((str(dt), [None if v is pd.NA else str(v) for v in s.astype(object).tolist()])).encode())
    return h.hexdigest()


# ---------------------------------------------------------------------------- models
class _RecordingModel:
    """Calls the real model and keeps every answer, keyed by :func:`frame_key` of the rows."""

    def __init__(self, call, task: str, calls: Dict[str, Any]):
        self._call, self.task, self._calls = call, task, calls

    def _pyiml_predict(self, newdata: pd.DataFrame) -> pd.DataFrame:
        out = self._call(newdata)
        self._calls[frame_key(newdata)] = encode(out)
        return out


class _ReplayModel:
    """Answers each model call from a recording."""

    def __init__(self, task: str, calls: Dict[str, Any]):
        self.task, self._calls = task, calls

    def _pyiml_predict(self, newdata: pd.DataFrame) -> pd.DataFrame:
        key = frame_key(newdata)
        if key not in self._calls:
            raise KeyError(f"the model was asked for {len(newdata)} rows that the recording does not have: pyiml built "
                           "different rows (values, types or column order) than on the recording machine")
        return decode(self._calls[key])


# ---------------------------------------------------------------------------- record
class Recording:
    """What :func:`harness.run_spec` stores when it records (see the module docstring)."""

    def __init__(self):
        self.specs: Dict[str, Dict[str, Any]] = {}
        self.data: Dict[str, Any] = {}
        self._calls: Dict[str, Dict[str, Any]] = {}
        self._tasks: Dict[str, str] = {}

    def model_kw(self, spec: Spec, mp, data: pd.DataFrame) -> Dict[str, Any]:
        """The Predictor keywords of the spec's Python model, wrapped to record every call."""
        import pyiml
        from pyiml.predictor import prediction_function

        if not data.index.equals(pd.RangeIndex(len(data))):
            raise ValueError(f"data set {mp.data!r}: only a default RangeIndex can be recorded")
        self.data.setdefault(mp.data, encode(data))
        task = pyiml.Predictor(data=data, **mp.py).task
        self._calls[spec.name], self._tasks[spec.name] = {}, task
        return {"model": _RecordingModel(prediction_function(**mp.py), task, self._calls[spec.name])}

    def add(self, spec: Spec, py, r, data_name: Optional[str] = None, y=None) -> None:
        self.specs[spec.name] = {"py": encode(py), "r": encode(r), "data": data_name, "y": y,
                                 "task": self._tasks.pop(spec.name, None), "calls": self._calls.pop(spec.name, {})}

    def save(self, path) -> None:
        import pyiml

        meta = {"format": FORMAT, "pyiml": pyiml.__version__, "numpy": np.__version__, "pandas": pd.__version__}
        with open(path, "wb") as fh:
            pickle.dump({"meta": meta, "data": self.data, "specs": self.specs}, fh, protocol=4)


def record(specs: List[Spec], path) -> List[SpecResult]:
    """Run ``specs`` on both sides (as :func:`harness.run_spec`) and write the recording to ``path``."""
    from .harness import run_spec

    rec = Recording()
    results = [run_spec(s, recording=rec) for s in specs]
    rec.save(path)
    return results


# ---------------------------------------------------------------------------- replay
@dataclass
class ReplayResult(SpecResult):
    """A :class:`SpecResult` that also says whether pyiml's outputs are bit-identical to the
    recording machine's."""

    identical: bool = False


def load(path) -> Dict[str, Any]:
    with open(path, "rb") as fh:
        rec = pickle.load(fh)
    if not isinstance(rec, dict) or rec.get("meta", {}).get("format") != FORMAT:
        raise ValueError(f"{path} is not a parity recording (python -m parity --record FILE writes one)")
    return rec


def _replay_spec(spec: Spec, entry: Dict[str, Any], data_sets: Dict[str, Any]) -> ReplayResult:
    t0 = time.perf_counter()
    try:
        if spec.method == "loss":
            py = _loss_py(spec)
        else:
            import pyiml

            data = decode(data_sets[entry["data"]])
            y = entry["y"]
            features = data.drop(columns=[y]) if y is not None else data
            pargs = {k: v for k, v in spec.predictor.items() if k != "y"}
            p = pyiml.Predictor(data=data, y=y, model=_ReplayModel(entry["task"], entry["calls"]), **pargs)
            py = py_outputs(spec, p, features)
        res = compare_outputs(spec, py, decode(entry["r"]), time.perf_counter() - t0)
        return ReplayResult(res.spec, res.max_abs_diff, res.scale, res.passed, res.detail, res.seconds,
                            identical=_same(encode(py), entry["py"]))
    except Exception as exc:  # reported as a failure with the reason
        return ReplayResult(spec, math.inf, 1.0, False, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)


def replay(path, specs: Optional[List[Spec]] = None) -> List[ReplayResult]:
    """Replay a recording: each spec (default: every spec of ``parity/specs``) run in pyiml
    without R, compared with the recorded R outputs."""
    rec = load(path)
    out = []
    for spec in load_specs() if specs is None else specs:
        entry = rec["specs"].get(spec.name)
        if entry is None:
            out.append(ReplayResult(spec, math.inf, 1.0, False, f"not in the recording {Path(path).name}"))
            continue
        out.append(_replay_spec(spec, entry, rec["data"]))
    return out


def recorded_versions(path) -> Dict[str, str]:
    """pyiml, numpy and pandas versions of the machine that made a recording."""
    meta = load(path)["meta"]
    return {k: meta[k] for k in ("pyiml", "numpy", "pandas")}
