"""Load parity specs, run them in pyiml and in R's iml, compare the results.

A spec (``parity/specs/*.toml``) names a data set and a model of :mod:`parity.fixtures`, the
method and its parameters, a seed and a tolerance::

    name = "featureimp_mae_friedman"
    method = "FeatureImp"           # a pyiml class / iml class, or "Predictor", or "loss"
    model = "friedman1_closed"
    seed = 1                        # set.seed(seed) in R, RRandom(seed) in pyiml
    tolerance = 1e-12               # on max |py - R| relative to the result's scale
    [predictor]                     # Predictor arguments other than model/data
    class_ = "setosa"
    [params]                        # the method's arguments, snake_case
    loss = "mae"
    [[calls]]                       # optional follow-up method calls, compared too
    method = "explain"
    args = { x_interest = { row = 2 } }

Values of the form ``{ row = i }`` (1-based, as in R) become that row of the data's features;
``{ rows = [i, j] }`` several rows.
"""
from __future__ import annotations

import math
import time
import warnings
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

from . import fixtures

SPEC_DIR = Path(__file__).parent / "specs"

__all__ = ["Spec", "SpecResult", "load_specs", "run_spec", "compare_frames", "compare_outputs", "py_outputs",
           "r_outputs",
           "write_report"]


@dataclass
class Spec:
    name: str
    method: str
    model: Optional[str] = None
    seed: Optional[int] = None
    tolerance: float = 1e-10
    #: both sides compute from the same numbers (the same model, no arithmetic written twice):
    #: the live test requires no difference at all, not only the tolerance
    exact: bool = False
    predictor: Dict[str, Any] = field(default_factory=dict)
    params: Dict[str, Any] = field(default_factory=dict)
    calls: List[Dict[str, Any]] = field(default_factory=list)
    fields: List[str] = field(default_factory=list)
    description: str = ""
    path: Optional[Path] = None


@dataclass
class SpecResult:
    spec: Spec
    max_abs_diff: float
    scale: float
    passed: bool
    detail: str = ""
    seconds: float = 0.0

    @property
    def rel_diff(self) -> float:
        return self.max_abs_diff / self.scale if self.scale else self.max_abs_diff


def load_specs(pattern: str = "*.toml") -> List[Spec]:
    specs = []
    for p in sorted(SPEC_DIR.glob(pattern)):
        with open(p, "rb") as fh:
            d = tomllib.load(fh)
        d.setdefault("name", p.stem)
        known = set(Spec.__dataclass_fields__)
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"{p.name}: unknown spec keys {sorted(unknown)}")
        specs.append(Spec(path=p, **d))
    names = [s.name for s in specs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicated spec names: {sorted(dup)}")
    return specs


# ---------------------------------------------------------------------------- comparison
def _is_num(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


def compare_frames(py: pd.DataFrame, r: pd.DataFrame, what: str = "results"):
    """Compare two result frames: columns, row count, categorical levels, values.

    Returns ``(max_abs_diff, scale, problems)``; a structural mismatch gives ``inf``.
    """
    problems = []
    if list(py.columns) != list(r.columns):
        return math.inf, 1.0, [f"{what}: columns differ: pyiml {list(py.columns)} vs R {list(r.columns)}"]
    if len(py) != len(r):
        return math.inf, 1.0, [f"{what}: {len(py)} rows in pyiml vs {len(r)} in R"]
    maxdiff, scale = 0.0, 0.0
    for c in r.columns:
        a, b = py[c], r[c]
        if _is_num(b) and _is_num(a):
            av = pd.to_numeric(a, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            bv = pd.to_numeric(b, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            na_a, na_b = np.isnan(av), np.isnan(bv)
            if (na_a != na_b).any():
                i = int(np.argmax(na_a != na_b))
                problems.append(f"{what}: column {c!r}: missing values differ (first at row {i + 1})")
                maxdiff = math.inf
                continue
            ok = ~na_a
            inf_a = np.isinf(av) & ok
            if (inf_a != (np.isinf(bv) & ok)).any() or (av[inf_a] != bv[inf_a]).any():
                problems.append(f"{what}: column {c!r}: infinite values differ")
                maxdiff = math.inf
                continue
            fin = ok & ~inf_a
            if fin.any():
                d = float(np.max(np.abs(av[fin] - bv[fin])))
                if d > maxdiff:
                    maxdiff = d
                scale = max(scale, float(np.max(np.abs(bv[fin]))))
        else:
            if isinstance(b.dtype, pd.CategoricalDtype):
                if not isinstance(a.dtype, pd.CategoricalDtype):
                    problems.append(f"{what}: column {c!r} is categorical in R but {a.dtype} in pyiml")
                    maxdiff = math.inf
                    continue
                la, lb = [str(x) for x in a.cat.categories], [str(x) for x in b.cat.categories]
                if la != lb:
                    problems.append(f"{what}: column {c!r} levels differ: pyiml {la} vs R {lb}")
                    maxdiff = math.inf
            sa = a.astype(object).where(a.notna(), None).map(lambda v: None if v is None else str(v))
            sb = b.astype(object).where(b.notna(), None).map(lambda v: None if v is None else str(v))
            neq = (sa.to_numpy() != sb.to_numpy())
            if neq.any():
                i = int(np.argmax(neq))
                problems.append(f"{what}: column {c!r} differs at row {i + 1}: pyiml {sa.iloc[i]!r} vs R {sb.iloc[i]!r}")
                maxdiff = math.inf
    return maxdiff, (scale if scale > 0 else 1.0), problems


def _compare_values(py, r, what):
    if isinstance(r, pd.DataFrame):
        if not isinstance(py, pd.DataFrame):
            return math.inf, 1.0, [f"{what}: pyiml gave {type(py).__name__}, R a data frame"]
        return compare_frames(py.reset_index(drop=True), r.reset_index(drop=True), what)
    if isinstance(r, dict):
        if not isinstance(py, dict) or list(py) != list(r):
            return math.inf, 1.0, [f"{what}: keys differ: {list(py) if isinstance(py, dict) else py!r} vs {list(r)}"]
        out = (0.0, 0.0, [])
        for k in r:
            d, s, p = _compare_values(py[k], r[k], f"{what}[{k}]")
            out = (max(out[0], d), max(out[1], s), out[2] + p)
        return out
    a = np.atleast_1d(np.asarray(py, dtype=float))
    b = np.atleast_1d(np.asarray(r, dtype=float))
    if a.shape != b.shape:
        return math.inf, 1.0, [f"{what}: shapes differ {a.shape} vs {b.shape}"]
    if (np.isnan(a) != np.isnan(b)).any():
        return math.inf, 1.0, [f"{what}: NaN positions differ"]
    ok = ~np.isnan(a)
    d = float(np.max(np.abs(a[ok] - b[ok]))) if ok.any() else 0.0
    s = float(np.max(np.abs(b[ok]))) if ok.any() else 0.0
    return d, (s if s > 0 else 1.0), []


# ---------------------------------------------------------------------------- running
def _resolve(value, features: pd.DataFrame):
    if isinstance(value, dict) and set(value) == {"row"}:
        return features.iloc[[value["row"] - 1]].reset_index(drop=True)
    if isinstance(value, dict) and set(value) == {"rows"}:
        return features.iloc[[i - 1 for i in value["rows"]]].reset_index(drop=True)
    if isinstance(value, dict):
        return {k: _resolve(v, features) for k, v in value.items()}
    return value


def _build(spec: Spec):
    mp = fixtures.model_pair(spec.model)
    data = fixtures.dataset(mp.data)
    pargs = dict(spec.predictor)
    y = pargs.pop("y", mp.y)
    if y is not None and y not in data.columns:
        y = None
    features = data.drop(columns=[y]) if y is not None else data
    return mp, data, y, pargs, features


def _loss_inputs(loss: str, seed: int, n: int = 60):
    rng = np.random.default_rng(seed)
    if loss in ("ce", "f1"):
        a = rng.choice(["a", "b", "c"], size=n)
        p = np.where(rng.uniform(size=n) < 0.7, a, rng.choice(["a", "b", "c", "d"], size=n))
        return a, p
    if loss == "logLoss":
        a = rng.integers(0, 2, size=n).astype(float)
        p = rng.uniform(0.01, 0.99, size=n)
        p[:3] = a[:3]  # exact hits give 0 loss
        return a, p
    a = rng.uniform(0.5, 10, size=n)
    p = a + rng.normal(scale=1.0, size=n)
    if loss in ("msle", "rmsle"):
        p = np.abs(p)
    return a, p


def _loss_py(spec: Spec) -> Dict[str, np.ndarray]:
    from pyiml.losses import get_loss

    name = spec.params["loss"]
    out = [get_loss(name)[0](*_loss_inputs(name, (spec.seed or 0) * 1000 + rep))
           for rep in range(int(spec.params.get("repetitions", 20)))]
    return {"loss": np.array(out)}


def _loss_r(spec: Spec) -> Dict[str, np.ndarray]:
    from r_bridge import session

    name = spec.params["loss"]
    out = []
    for rep in range(int(spec.params.get("repetitions", 20))):
        a, p = _loss_inputs(name, (spec.seed or 0) * 1000 + rep)
        ro = session.robjects()
        av = ro.StrVector(a.tolist()) if a.dtype.kind == "U" else ro.FloatVector(a.tolist())
        pv = ro.StrVector(p.tolist()) if p.dtype.kind == "U" else ro.FloatVector(p.tolist())
        session.require(["Metrics"])
        out.append(float(session.r_eval(f"Metrics::{name}(a, p)", a=av, p=pv)[0]))
    return {"loss": np.array(out)}


#: pyiml methods that take ``random_state`` (the others draw nothing, in iml too)
RANDOM_METHODS = ("FeatureEffect", "FeatureEffects", "FeatureImp", "Shapley", "Interaction", "Partial")


def _py_method(spec: Spec, p, params, random_state=None):
    import pyiml

    cls = getattr(pyiml, spec.method)
    kw = dict(params)
    if spec.seed is not None:
        kw["random_state"] = pyiml.RRandom(spec.seed)
    elif random_state is not None and spec.method in RANDOM_METHODS:
        kw["random_state"] = random_state
    with warnings.catch_warnings():
        if spec.method == "Partial":   # deprecated on purpose, as in iml: its warning is expected
            warnings.simplefilter("ignore", FutureWarning)
        return cls(p, **kw)


def py_outputs(spec: Spec, p, features: pd.DataFrame, random_state=None) -> Dict[str, Any]:
    """pyiml's outputs of a Predictor or method spec, given the spec's ``pyiml.Predictor``.

    Without a spec seed, a random method gets ``random_state`` (e.g. an ``RRandom`` shared by
    several specs run one after the other, as R's session generator is)."""
    if spec.method == "Predictor":
        return {"predict": p.predict(features)}
    obj = _py_method(spec, p, _resolve(spec.params, features), random_state)
    out = {"results": obj.results}
    for f in spec.fields:
        out[f] = getattr(obj, f.replace(".", "_"))
    for i, call in enumerate(spec.calls):
        res = getattr(obj, call["method"].replace(".", "_"))(**_resolve(call.get("args", {}), features))
        out[f"call{i + 1}:{call['method']}"] = res if call.get("compare", "results") == "return" else obj.results
    return out


def r_outputs(spec: Spec, mp, data, y, pargs, features: pd.DataFrame) -> Dict[str, Any]:
    """iml's outputs of a Predictor or method spec, with the R side of the model pair ``mp``."""
    from r_bridge import convert, iml as riml, session

    rp = riml.r_predictor(data=data, y=y, **mp.r, **pargs)
    if spec.method == "Predictor":
        return {"predict": convert.r2py(session.r_eval("p$predict(d)", p=rp, d=convert.py2r(features)))}
    robj = riml.iml(spec.method, rp, seed=spec.seed, **_resolve(spec.params, features))
    out = {"results": robj.results}
    for f in spec.fields:
        out[f] = robj.field(f)
    for i, call in enumerate(spec.calls):
        res = robj.call(call["method"], **_resolve(call.get("args", {}), features))
        out[f"call{i + 1}:{call['method']}"] = res if call.get("compare", "results") == "return" else robj.results
    return out


def _outputs(spec: Spec, recording=None):
    """(pyiml outputs, R outputs) of a spec; ``recording`` (a :class:`parity.replay.Recording`)
    stores R's outputs, the data set and every model prediction pyiml asks for."""
    import pyiml

    if spec.method == "loss":
        py, r = _loss_py(spec), _loss_r(spec)
        if recording is not None:
            recording.add(spec, py, r)
        return py, r
    mp, data, y, pargs, features = _build(spec)
    model_kw = mp.py if recording is None else recording.model_kw(spec, mp, data)
    p = pyiml.Predictor(data=data, y=y, **model_kw, **pargs)
    py = py_outputs(spec, p, features)
    r = r_outputs(spec, mp, data, y, pargs, features)
    if recording is not None:
        recording.add(spec, py, r, data_name=mp.data, y=y)
    return py, r


def compare_outputs(spec: Spec, py, r, seconds: float = 0.0) -> SpecResult:
    """Compare a spec's pyiml and R outputs with the spec's tolerance."""
    d, s, problems = _compare_values(py, r, spec.method)
    if spec.exact and d != 0 and not problems:
        problems = [f"an exact spec (both sides compute from the same numbers) differs by {d:.3g}"]
    passed = not problems and d <= spec.tolerance * s
    return SpecResult(spec, d, s, passed, "; ".join(problems), seconds)


def run_spec(spec: Spec, recording=None) -> SpecResult:
    """Run one spec on both sides and compare (and record it, given a ``recording``)."""
    t0 = time.perf_counter()
    try:
        py, r = _outputs(spec, recording)
        return compare_outputs(spec, py, r, time.perf_counter() - t0)
    except Exception as exc:  # reported as a failure with the reason
        return SpecResult(spec, math.inf, 1.0, False, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)


def write_report(results: List[SpecResult], path: Path) -> None:
    from r_bridge import session

    try:
        r_version = session.r_eval("paste(R.version$major, R.version$minor, sep = '.')")[0]
        versions = f"R {r_version}, iml {session.package_version('iml')}"
    except Exception as exc:  # pragma: no cover
        versions = f"R unavailable ({exc})"
    import pyiml

    n_pass = sum(r.passed for r in results)
    lines = [
        "# Parity report",
        "",
        f"pyiml {pyiml.__version__} against {versions}; {n_pass} of {len(results)} specs pass.",
        "Max abs diff is over every numeric value of every compared output; the tolerance applies to",
        "max abs diff / scale (scale = largest absolute R value). Structural differences (columns, row",
        "order, levels, labels) fail a spec whatever the numbers. Specs whose two sides compute from the",
        "same numbers (one model called by both, or a closed form without functions whose last bits",
        "differ between R and numpy) are `exact`: any difference at all fails them.",
        "",
        "| spec | method | model | max abs diff | scale | rel. diff | tolerance | result | seconds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.spec.name} | {r.spec.method} | {r.spec.model or '-'} | {r.max_abs_diff:.3g} | {r.scale:.3g} | "
            f"{r.rel_diff:.3g} | {'exact' if r.spec.exact else f'{r.spec.tolerance:g}'} | {'pass' if r.passed else 'FAIL'} | "
            f"{r.seconds:.2f} |")
    fails = [r for r in results if not r.passed]
    if fails:
        lines += ["", "## Failures", ""]
        lines += [f"- **{r.spec.name}**: {r.detail}" for r in fails]
    path.write_text("\n".join(lines) + "\n")
