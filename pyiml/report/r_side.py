"""The report's comparison with CRAN iml: every computed method replayed in R through r_bridge.

For each :class:`~pyiml.report.build.Run` of a case, the same model (the Python model called
from R through ``r_bridge.as_r_predict_function``), the same data and the same arguments go to
``iml::<Class>$new(...)`` after ``set.seed(seed)``; pyiml's numbers come from ``RRandom(seed)``,
so random methods agree too. The section shows both sides next to each other and the max abs
difference per method.

Without R or iml the section is one line saying how to get it (:data:`MISSING_LINE`).
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from .html import KeyValues, Note, Section, Table, Text, plain, slug

__all__ = ["MISSING_LINE", "SECTION_ID", "VALUE_COLUMNS", "r_problem", "missing_section", "n_steps", "compare_case",
           "CaseComparison", "comparison_section", "diff_outputs", "value_columns"]

MISSING_LINE = ("Install R and the iml package (run `make test` once) to add the side-by-side comparison "
                "with CRAN iml.")
SECTION_ID = "cran-iml"
SECTION_TITLE = "Same numbers from CRAN iml"

#: The columns of iml's results that hold computed values; the others are identifiers (``.id``,
#: ``.node``), grid points and interval borders (a feature's own column, ``.borders``, ``.left``,
#: ``.right``, ``.bottom``, ``.top``), the data's feature values (TreeSurrogate) or the explained
#: row's values (``x.recoded``). Prediction columns ``.y.hat…`` are values too.
VALUE_COLUMNS = frozenset({"importance.05", "importance", "importance.95", "permutation.error", ".value", ".ale",
                           ".interaction", "phi", "phi.var", "beta", "effect"})


def value_columns(columns: Sequence[str], features: Sequence[str] = ()) -> List[str]:
    """The value columns among ``columns`` (:data:`VALUE_COLUMNS` and ``.y.hat…``), leaving out
    a feature's own column (a grid or the data) that happens to have such a name."""
    feats = {str(f) for f in features}
    return [c for c in columns if str(c) not in feats and (c in VALUE_COLUMNS or str(c).startswith(".y.hat"))]


def r_problem() -> Optional[str]:
    """None when R and iml can be used, else what is missing."""
    try:
        from r_bridge import session
    except ImportError as exc:  # pragma: no cover - r_bridge ships with pyiml
        return f"r_bridge cannot be imported: {exc}"
    problem = session.availability_problem(["iml"])
    if problem is None:
        try:
            from r_bridge import iml  # noqa: F401
        except ImportError as exc:
            return f"r_bridge.iml cannot be imported: {exc}"
    return problem


def missing_section(problem: Optional[str] = None) -> Section:
    """The section shown when R or iml is missing: what is missing (``problem``, from
    :func:`r_problem`) and how to get it."""
    text = MISSING_LINE if not problem else f"No comparison: {problem.rstrip('.')}. {MISSING_LINE}"
    return Section(SECTION_ID, SECTION_TITLE, [Note(text)])


def n_steps(methods: Sequence[str], settings) -> int:
    """Progress steps of :func:`compare_case` for these methods."""
    per = {"FeatureImp": 1, "FeatureEffect": 2 * max(settings.top_features, 1), "FeatureEffects": 1,
           "Interaction": 3, "Shapley": 2, "LocalModel": 1, "TreeSurrogate": 1}
    return 1 + sum(per[m] for m in methods)


# ---------------------------------------------------------------------------- comparison
def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


def _label(v) -> Optional[str]:
    """A non-numeric cell as text (missing values as None)."""
    return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else str(v)


def _diff_frames(py: pd.DataFrame, r: pd.DataFrame, what: str,
                 scale_columns: Optional[Sequence[str]] = None) -> Tuple[float, float, List[str]]:
    if list(py.columns) != list(r.columns):
        return math.inf, 1.0, [f"{what}: columns differ (pyiml {list(py.columns)}, iml {list(r.columns)})"]
    if len(py) != len(r):
        return math.inf, 1.0, [f"{what}: {len(py)} rows in pyiml, {len(r)} in iml"]
    worst, scale, problems = 0.0, 0.0, []
    for c in r.columns:
        a, b = py[c].reset_index(drop=True), r[c].reset_index(drop=True)
        if _numeric(a) and _numeric(b):
            av, bv = a.to_numpy(dtype=float, na_value=np.nan), b.to_numpy(dtype=float, na_value=np.nan)
            if not np.array_equal(np.isnan(av), np.isnan(bv)):
                problems.append(f"{what}: column {c!r}: missing values differ")
                worst = math.inf
                continue
            ok = np.isfinite(av) & np.isfinite(bv)
            if not np.array_equal(av[~ok & ~np.isnan(av)], bv[~ok & ~np.isnan(bv)]):
                problems.append(f"{what}: column {c!r}: infinite values differ")
                worst = math.inf
                continue
            if ok.any():
                worst = max(worst, float(np.max(np.abs(av[ok] - bv[ok]))))
                if scale_columns is None or c in scale_columns:
                    scale = max(scale, float(np.max(np.abs(bv[ok]))))
        else:
            sa, sb = a.astype(object).map(_label), b.astype(object).map(_label)
            neq = sa.to_numpy() != sb.to_numpy()
            if neq.any():
                i = int(np.argmax(neq))
                problems.append(f"{what}: column {c!r} row {i + 1}: pyiml {sa.iloc[i]!r}, iml {sb.iloc[i]!r}")
                worst = math.inf
    return worst, scale, problems


def diff_outputs(py: Any, r: Any, what: str = "results",
                 scale_columns: Optional[Sequence[str]] = None) -> Tuple[float, float, List[str]]:
    """Max abs difference between pyiml and iml outputs (frames, dicts of frames, numbers).

    Returns ``(max_abs_diff, scale, problems)`` where ``max_abs_diff`` is over every numeric
    value (key columns such as grid points too: a different grid is a difference), ``scale``
    is the largest absolute iml value of the frames' ``scale_columns`` (default: every numeric
    column; the comparison passes the value columns, :func:`value_columns`) and of plain
    numbers, and ``problems`` lists structural differences (columns, rows, labels), which make
    the difference infinite.
    """
    if isinstance(r, pd.DataFrame):
        if not isinstance(py, pd.DataFrame):
            return math.inf, 1.0, [f"{what}: pyiml gave {type(py).__name__}, iml a data frame"]
        return _diff_frames(py, r, what, scale_columns)
    if isinstance(r, dict):
        if not isinstance(py, dict) or list(map(str, py)) != list(map(str, r)):
            return math.inf, 1.0, [f"{what}: parts differ"]
        worst, scale, problems = 0.0, 0.0, []
        for (k, pv), rv in zip(py.items(), r.values()):
            d, s, p = diff_outputs(pv, rv, f"{what}[{k}]", scale_columns)
            worst, scale, problems = max(worst, d), max(scale, s), problems + p
        return worst, scale, problems
    a = np.atleast_1d(np.asarray(py, dtype=float)).ravel()
    b = np.atleast_1d(np.asarray(r, dtype=float)).ravel()
    if a.shape != b.shape:
        return math.inf, 1.0, [f"{what}: {a.size} values in pyiml, {b.size} in iml"]
    ok = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return math.inf, 1.0, [f"{what}: missing values differ"]
    d = float(np.max(np.abs(a[ok] - b[ok]))) if ok.any() else 0.0
    s = float(np.max(np.abs(b[ok]))) if ok.any() else 0.0
    return d, s, []


def _agreement(d: float, scale: float, problems: List[str]) -> str:
    if problems:
        return "differs: " + problems[0]
    if d == 0:
        return "identical"
    rel = d / scale if scale > 0 else d
    if rel <= 1e-10:
        return "equal (rel. ≤ 1e-10)"
    return f"differs (rel. {rel:.2g})"


def _results_frame(x: Any) -> Optional[pd.DataFrame]:
    if isinstance(x, pd.DataFrame):
        return x
    if isinstance(x, dict) and x and all(isinstance(v, pd.DataFrame) for v in x.values()):
        return pd.concat([v.reset_index(drop=True) for v in x.values()], ignore_index=True)
    return None


def _side_by_side(run, py: pd.DataFrame, r: pd.DataFrame, max_rows: int = 15) -> Optional[pd.DataFrame]:
    """Key columns from iml, then each value column as pyiml / iml / |diff|."""
    if list(py.columns) != list(r.columns) or len(py) != len(r):
        return None
    py, r = py.reset_index(drop=True), r.reset_index(drop=True)
    if run.method == "TreeSurrogate" and ".node" in r.columns:  # one row per terminal node
        first = ~r[".node"].duplicated()
        py, r = py[first.to_numpy()].reset_index(drop=True), r[first].reset_index(drop=True)
    keys = [c for c in run.key_columns if c in r.columns]
    vals = [c for c in run.value_columns if c in r.columns]
    if not vals:
        return None
    out = r[keys].copy() if keys else pd.DataFrame(index=r.index)
    for c in vals:
        a, b = py[c].to_numpy(dtype=float), r[c].to_numpy(dtype=float)
        out[f"{c} pyiml"] = a
        out[f"{c} iml"] = b
        with np.errstate(invalid="ignore"):
            out[f"{c} |diff|"] = np.abs(a - b)
    return out.head(max_rows) if len(out) > max_rows else out


@dataclass
class CaseComparison:
    """The comparison of one case: its section, one summary row per run, failures."""

    key: str
    title: str
    section: Section
    rows: List[Dict[str, Any]] = field(default_factory=list)
    failures: List[str] = field(default_factory=list)
    predictor_failed: bool = False


def _r_outputs(run, robj, dtypes) -> Dict[str, Any]:
    res = robj.results
    if run.explain_rows:
        parts = [res]
        for x in run.explain_rows:
            robj.call("explain", x_interest=_conform(x, dtypes))
            parts.append(robj.results)
        res = pd.concat([p.reset_index(drop=True) for p in parts], ignore_index=True)
    out = {"results": res}
    for k in run.outputs:
        if k != "results":
            out[k] = robj.field(k)
    return out


def _py_for_r(run, outputs: Dict[str, Any]) -> Dict[str, Any]:
    """pyiml outputs in iml's layout (a multi-row Shapley result drops its row-id column)."""
    out = dict(outputs)
    res = out.get("results")
    if run.explain_rows and isinstance(res, pd.DataFrame):
        extra = [c for c in res.columns if c not in ("feature", "class", "phi", "phi.var", "feature.value")]
        out["results"] = res.drop(columns=extra)
    return out


def _used_levels(data: pd.DataFrame) -> Dict[str, pd.CategoricalDtype]:
    """The categorical columns of ``data`` that have categories no row has, each with the dtype
    of the used ones. The report's row subset can leave a level of the full data unused, and iml
    mishandles unused levels (docs/differences.md) where pyiml drops them: R gets them dropped."""
    return {c: data[c].cat.remove_unused_categories().dtype for c in data.columns
            if isinstance(data[c].dtype, pd.CategoricalDtype)
            and data[c].nunique(dropna=True) < len(data[c].cat.categories)}


def _conform(value, dtypes: Dict[str, pd.CategoricalDtype]):
    """A frame (the data, a point of interest) with ``dtypes``' categoricals; other values as they are."""
    if not dtypes or not isinstance(value, pd.DataFrame):
        return value
    return value.astype({c: t for c, t in dtypes.items() if c in value.columns})


def _iml_hint(data: pd.DataFrame, message: str) -> str:
    """What to do about an iml failure that comes from the data rather than from pyiml."""
    bools = [str(c) for c in data.columns if pd.api.types.is_bool_dtype(data[c].dtype)]
    if bools and ("feature.class" in message or "reach R as logical" in message):   # iml's, r_predictor's
        return (f" — iml takes no logical columns ({', '.join(bools)}; pyiml reads them as categories, "
                "docs/differences.md): to compare with iml, give them as categories or as 0/1 numbers")
    if "syntactic" in message or "renam" in message:
        return (" — iml's data.frame() renames non-syntactic column names, so the model no longer finds its "
                "columns: to compare with iml, name the columns with letters, digits, dots and underscores")
    if "variable lengths differ" in message:
        return (" — iml's TreeSurrogate builds a formula of the output names, which fails for classes named by "
                "numbers such as 0 and 1 (docs/differences.md, TreeSurrogate); pyiml's tree is not affected")
    return ""


def compare_case(case_result, seed: int, progress) -> CaseComparison:
    """Replay every run of ``case_result`` in CRAN iml and compare.

    Parameters
    ----------
    case_result : pyiml.report.build.CaseResult
    seed : int
        ``set.seed(seed)`` in R before each method; pyiml's random methods use ``RRandom(seed)``
        (recomputed when the report itself used numpy draws).
    progress : object with ``step(text)`` and ``done()``
    """
    import pyiml
    from r_bridge import iml as riml

    case = case_result.case
    sec = Section(f"{SECTION_ID}-{case.key}", case.title)
    cmp = CaseComparison(case.key, case.title, sec)
    used = _used_levels(case_result.data)
    progress.step(f"{case.key}: R predictor")
    t0 = time.perf_counter()
    try:
        rp = riml.r_predictor(model=case.model, data=_conform(case_result.data, used), y=case.target)
    except Exception as exc:  # shown in the report and returned to the CLI
        msg = f"R Predictor failed: {type(exc).__name__}: {exc}" + _iml_hint(case_result.data, str(exc))
        cmp.failures.append(f"{case.key}: {msg}")
        cmp.predictor_failed = True
        sec.add(Note(msg, kind="warn"))
        progress.done()
        return cmp
    progress.done()
    setup = time.perf_counter() - t0
    recomputed = []
    shown_errors: Dict[str, str] = {}
    features = [str(f) for f in case_result.predictor.data.feature_names]
    for run in case_result.runs:
        method = plain(run.label)   # the table's plain-text name of the run
        progress.step(f"{case.key}: iml {method}")
        py_out = run.outputs
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if run.random and not run.seeded:
                    py_out = run.rerun(pyiml.RRandom(seed))
                    recomputed.append(run.label)
                t1 = time.perf_counter()
                robj = riml.iml(run.method, rp, seed=seed, **{k: _conform(v, used) for k, v in run.kwargs.items()})
                r_out = _r_outputs(run, robj, used)
                secs = time.perf_counter() - t1
        except Exception as exc:  # shown in the report and returned to the CLI
            text = f"{type(exc).__name__}: {exc}"
            cmp.failures.append(f"{case.key}: iml {method} failed: {text}")
            if text in shown_errors:   # the same error as a run above: once in full is enough
                sec.add(Note(f"iml {run.label} failed with the same error as {shown_errors[text]}.", kind="warn"))
            else:
                shown_errors[text] = f"iml {run.label}"
                sec.add(Note(f"iml {run.label} failed: {text}" + _iml_hint(case_result.data, str(exc)), kind="warn"))
            cmp.rows.append({"model": case.key, "method": method, "rows": np.nan,
                             "max abs diff": np.nan,
                             "largest |value|": np.nan, "pyiml seconds": run.seconds, "iml seconds": np.nan,
                             "agreement": "iml failed"})
            progress.done()
            continue
        py_cmp = _py_for_r(run, py_out)
        r_res = _results_frame(r_out["results"])
        # largest |value| (the scale of the relative agreement) over value columns only: an .id
        # running to n, a grid of a feature in the thousands or TreeSurrogate's data columns would
        # otherwise make a difference in small values look relatively negligible
        vcols = value_columns(r_res.columns, features) if r_res is not None else []
        d, scale, problems = 0.0, 0.0, []
        for k in r_out:
            kd, ks, kp = diff_outputs(py_cmp.get(k), r_out[k], k, scale_columns=vcols or None)
            d, scale, problems = max(d, kd), max(scale, ks), problems + kp
        cmp.rows.append({"model": case.key, "method": method,
                         "rows": len(r_res) if r_res is not None else np.nan,
                         "max abs diff": d, "largest |value|": scale, "pyiml seconds": run.seconds,
                         "iml seconds": secs,
                         "agreement": _agreement(d, scale, problems)})
        sub = Section(f"{SECTION_ID}-{case.key}-{slug(run.key)}", run.label, toc=False)
        py_res = _results_frame(py_cmp["results"])
        table = _side_by_side(run, py_res, r_res) if py_res is not None and r_res is not None else None
        if table is not None:
            n = len(r_res) if run.method != "TreeSurrogate" else int(r_res[".node"].nunique())
            sub.add(Table(table, caption=f"max abs diff {d:.3g}" + (f"; first {len(table)} of {n} rows"
                                                                   if len(table) < n else ""),
                          digits=6, max_rows=None, sci_columns=[c for c in table.columns if c.endswith("|diff|")]))
        for k in py_cmp:
            if k != "results":
                kd, _, _ = diff_outputs(py_cmp[k], r_out[k], k)
                sub.add(KeyValues({f"{k} pyiml": _fmt_vec(py_cmp[k]), f"{k} iml": _fmt_vec(r_out[k]),
                                   "|diff|": f"{kd:.3g}"}))
        for p in problems:
            sub.add(Note(p, kind="warn"))
        for text in dict.fromkeys(str(w.message) for w in caught
                                  if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning))):
            sub.add(Note(f"warning while computing: {text}", kind="info"))
        sec.children.append(sub)
        progress.done()
    intro = [Text(f"`{case.key}`: the Python model called from R (`r_bridge.as_r_predict_function`), "
                  f"`set.seed({seed})` before each iml call and `RRandom({seed})` in pyiml; R predictor set-up "
                  f"{setup:.1f} s.")]
    if recomputed:
        intro.append(Note("The report above used numpy random draws; for this comparison pyiml recomputed "
                          f"{', '.join(recomputed)} with `RRandom({seed})`, the draws of R's `set.seed({seed})`."))
    sec.blocks[:0] = intro
    return cmp


def _fmt_vec(x) -> str:
    v = np.atleast_1d(np.asarray(x, dtype=float)).ravel()
    return ", ".join(f"{e:.10g}" for e in v)


def comparison_section(comparisons: List[CaseComparison]) -> Section:
    """The top-level section: the summary of every case, then one child per case."""
    sec = Section(SECTION_ID, SECTION_TITLE)
    rows = [r for c in comparisons for r in c.rows]
    sec.add(Text("Each method of this report computed again by CRAN iml in R, with the same model, data, "
                 "arguments and seed. Max abs diff is over every numeric value of the results (and fields such "
                 "as r.squared), grid points and ids included; largest |value| is the largest absolute iml "
                 "value among the computed values (such as `.value`, `importance`, `phi`, `.y.hat`, "
                 "r.squared), not ids, grid points, borders or feature values (`.id`, `.node`, a feature's "
                 "column). Agreement compares max abs diff with largest |value|."))
    if rows:
        # a run iml failed on has no numbers to compare: a dash, not R's NaN
        sec.add(Table(pd.DataFrame(rows), caption="Max abs difference per method", digits=4, max_rows=None,
                      sci_columns=["max abs diff"], missing="—"))
    sec.children = [c.section for c in comparisons]
    return sec
