"""``make bench``: pyiml against R's iml, scikit-learn and the prediction floor, side by side.

Every case runs on the same data and the same model in one process:

* the closed-form Friedman #1 model (p = 10) written in Python and in R, which measures the
  libraries' own overhead;
* R iml is timed inside R (``proc.time`` around the call, the R closed form as predict.function);
* scikit-learn's ``permutation_importance`` / ``partial_dependence(method="brute")`` where they
  compute the same thing;
* the floor: one model call on all the rows the method needs.

Each time is the median of ``--repeats`` runs (default 7; the Python sides take turns run by
run); pyiml's peak memory is measured with ``tracemalloc`` (numpy buffers included). The table is printed and written to
``docs/benchmarks.md``.

Cases are registered by the method modules' ``bench_cases(n)`` functions in :data:`CASE_MODULES`.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import resource
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np
import pandas as pd

FRIEDMAN_R = ("function(newdata) 10 * sin(pi * newdata$x1 * newdata$x2) + 20 * (newdata$x3 - 0.5)^2 + "
              "10 * newdata$x4 + 5 * newdata$x5")


def friedman_f(df: pd.DataFrame) -> np.ndarray:
    """Friedman #1 (the same expression as :data:`FRIEDMAN_R`)."""
    x = {c: df[c].to_numpy() for c in ("x1", "x2", "x3", "x4", "x5")}
    return 10 * np.sin(np.pi * x["x1"] * x["x2"]) + 20 * (x["x3"] - 0.5) ** 2 + 10 * x["x4"] + 5 * x["x5"]


def friedman_data(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.uniform(size=(n, 10)), columns=[f"x{i + 1}" for i in range(10)])
    df["y"] = friedman_f(df) + rng.normal(size=n)
    return df


def repeat_rows(X: pd.DataFrame, k: int) -> pd.DataFrame:
    """The rows of ``X`` repeated cyclically to ``k`` rows, index 0..k-1, every column contiguous.

    The floor's rows are laid out as pyiml lays out its designs (one contiguous array per column),
    the layout in which a model that reads columns predicts fastest. A frame made from a
    row-major array (e.g. ``pd.concat`` of ``friedman_data``'s frames) holds each column with a
    stride of p values: the closed form predicts it up to three times slower (2 ms instead of
    0.67 ms for 2 * 10^5 rows), which would make the floor too easy to reach."""
    return X.iloc[np.arange(k) % len(X)].reset_index(drop=True)


def floor_call(predict: Callable[[pd.DataFrame], object], rows: pd.DataFrame) -> Callable[[], object]:
    """The floor's model call: ``predict`` on a new frame object holding the prebuilt ``rows``.

    The frame is a shallow copy (the rows are not copied; about 4 µs), because a pandas frame
    caches the columns it has handed out: calling a model on the same frame object again reads
    them from that cache, about 35 µs less for 10 columns, a saving no method ever gets, since
    every design it predicts is a new frame."""
    return lambda: predict(rows.copy(deep=False))


class FriedmanModel:
    """The closed form as a scikit-learn-like regressor (so sklearn.inspection accepts it)."""

    _estimator_type = "regressor"

    def fit(self, X, y=None):
        self.fitted_ = True
        return self

    def predict(self, X):
        return friedman_f(X)

    def __sklearn_is_fitted__(self):
        return True

    def get_params(self, deep=True):
        return {}


@dataclass
class Case:
    """One row of the table: ``method`` at size ``n``."""

    method: str
    n: int
    pyiml: Callable[[], object]
    r_code: Optional[str] = None          # R code timed in R; `predictor` and `X` are bound
    sklearn: Optional[Callable[[], object]] = None
    floor: Optional[Callable[[], object]] = None
    data: Optional[pd.DataFrame] = None   # the data the R side gets (features + y)
    r_scale: float = 1.0                    # R time × this (R runs a fraction of the work)
    repeats: Optional[int] = None
    r_model: Optional[object] = None        # an R model (rpy2 object): R's Predictor uses it, not the closed form
    model: str = "closed form"              # what the "model" column of the table says


CASE_MODULES: List[str] = ["parity.bench_cases"]


def user_time() -> float:
    """This process's CPU time in user mode (seconds, microsecond resolution on Linux).

    A clock for regression guards that must not fail on the kernel's work: on a machine whose
    transparent huge pages are on (``/sys/kernel/mm/transparent_hugepage/enabled`` = always),
    fresh memory of many MB is backed by 2 MB pages, and when free memory is fragmented the
    kernel compacts it first; a call that allocates a large array then spends 0-40 ms in the
    kernel (system time) depending on the machine's state, not on the code. Linux splits the run
    time into user and system time by the share of timer ticks found in each mode, so over a
    few milliseconds it is coarse (:func:`user_time_per_call`)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def user_time_per_call(fn: Callable, min_time: float = 0.2) -> float:
    """User-mode CPU seconds per call of ``fn``, over calls repeated until ``min_time`` seconds of
    it have passed (at least one call).

    Over a few milliseconds spent mostly in the kernel (page faults of fresh memory) the user time
    may not advance at all, as the split between user and system time follows the timer ticks:
    the best of three single calls once gave a floor of 0.0 s. Over 0.2 s the split is accurate."""
    return _loop_time(fn, min_time, clock=user_time)


def best_time(fn: Callable, repeats: int = 3, clock: Callable[[], float] = time.perf_counter) -> float:
    """Best of ``repeats`` runs of ``fn`` by ``clock`` (wall time by default; pass
    ``time.process_time`` for CPU time, which other processes on a shared machine disturb less)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


MIN_LOOP_S = 0.2


def _loop_time(fn: Callable, min_time: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per call of ``fn``, called back to back until ``min_time`` seconds have passed
    (at least once): the mean per call, as R's side is timed and as ``timeit``'s ``autorange``
    chooses its loop."""
    k = 0
    t0 = clock()
    while True:
        fn()
        k += 1
        el = clock() - t0
        if el >= min_time:
            return el / k


def _median_times(fns: Dict[str, Callable], repeats: int, min_time: float = MIN_LOOP_S) -> Dict[str, float]:
    """Median over ``repeats`` runs of each function's time per call, after one warm-up call each.

    A run calls the function back to back until ``min_time`` seconds have passed and takes the
    mean per call, exactly as R's side is timed inside R (calls shorter than 0.2 s repeated until
    0.2 s have passed): both sides are measured warm, as ``timeit`` measures. The functions take
    turns run by run, so a slow spell of a shared machine falls on all of them alike instead of
    on whichever was being timed then. Python's garbage collector is paused within a run, as
    ``timeit`` does (its pauses depend on everything else the process holds, here an embedded R
    and every earlier case's objects, not on the code timed), and collects between runs."""
    for fn in fns.values():
        fn()
    times: Dict[str, list] = {k: [] for k in fns}
    was_enabled = gc.isenabled()
    try:
        for _ in range(repeats):
            for k, fn in fns.items():
                gc.collect()
                gc.disable()
                try:
                    times[k].append(_loop_time(fn, min_time))
                finally:
                    gc.enable()
    finally:
        if not was_enabled:
            gc.disable()
    return {k: statistics.median(v) for k, v in times.items()}


def _peak_mb(fn: Callable) -> float:
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


_R_SETUP = """function(X, y, repeats, code, model) {
  suppressPackageStartupMessages(library(iml))
  future::plan("sequential")
  f <- eval(parse(text = "%s"))
  predictor <- if (is.null(model)) {
    iml::Predictor$new(data = cbind(X, y = y), y = "y", predict.function = f, batch.size = 100000)
  } else {
    iml::Predictor$new(model, data = cbind(X, y = y), y = "y", batch.size = 100000)
  }
  expr <- parse(text = code)
  times <- numeric(repeats)
  for (rep in seq_len(repeats)) {
    set.seed(rep)
    env <- new.env()  # the timed code's own variables (e.g. a loop's i) stay there
    env$predictor <- predictor; env$X <- X
    # proc.time() ticks in milliseconds: calls shorter than 0.2 s are repeated until 0.2 s have
    # passed, and the time per call is the mean of those
    k <- 0
    t0 <- proc.time()[["elapsed"]]
    repeat {
      eval(expr, env)
      k <- k + 1
      el <- proc.time()[["elapsed"]] - t0
      if (el >= 0.2) break
    }
    times[rep] <- el / k
  }
  median(times)
}""" % FRIEDMAN_R.replace('"', '\\"')


def time_r(code: str, data: pd.DataFrame, repeats: int, model=None) -> Optional[float]:
    """Median seconds of R ``code`` (with ``predictor`` bound to an iml Predictor on ``data`` of
    the R closed form, or of the R ``model`` when one is given), timed inside R; None without R."""
    try:
        from r_bridge import convert, session

        session.require(["iml"])
    except Exception:
        return None
    X = data.drop(columns="y")
    ro = session.robjects()
    with session.lock:
        fn = ro.r(_R_SETUP)
        res = fn(convert.py2r(X), ro.FloatVector(data["y"].to_numpy()), repeats, code,
                 ro.NULL if model is None else model)
    return float(res[0])


def run_cases(cases: List[Case], repeats: int) -> pd.DataFrame:
    rows = []
    for c in cases:
        rep = c.repeats or repeats
        sides = {k: f for k, f in (("pyiml", c.pyiml), ("sklearn", c.sklearn), ("floor", c.floor)) if f}
        t = _median_times(sides, rep)
        t_py, t_sk, t_fl = t["pyiml"], t.get("sklearn"), t.get("floor")
        mem = _peak_mb(c.pyiml)
        t_r = time_r(c.r_code, c.data, rep, c.r_model) if c.r_code is not None and c.data is not None else None
        if t_r is not None:
            t_r *= c.r_scale
        rows.append({
            "method": c.method, "model": c.model, "n": c.n, "pyiml s": t_py, "R iml s": t_r, "sklearn s": t_sk, "floor s": t_fl,
            "pyiml/R": t_py / t_r if t_r else None, "pyiml/sklearn": t_py / t_sk if t_sk else None,
            "pyiml/floor": t_py / t_fl if t_fl else None, "pyiml peak MB": mem,
        })
        print(_fmt_row(rows[-1]), flush=True)
    return pd.DataFrame(rows)


def _f(v, spec="{:.4g}"):
    return "—" if v is None or (isinstance(v, float) and np.isnan(v)) else spec.format(v)


def _fmt_row(r) -> str:
    return (f"{r['method']:28} {r['model'][:12]:12} {r['n']:>7}  pyiml {_f(r['pyiml s'])}s  R {_f(r['R iml s'])}s  "
            f"sklearn {_f(r['sklearn s'])}s  floor {_f(r['floor s'])}s  "
            f"ratios R {_f(r['pyiml/R'], '{:.3f}')} sk {_f(r['pyiml/sklearn'], '{:.3f}')} "
            f"floor {_f(r['pyiml/floor'], '{:.2f}')}  mem {_f(r['pyiml peak MB'], '{:.1f}')} MB")


def to_markdown(table: pd.DataFrame) -> str:
    cols = list(table.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            if c in ("method", "model"):
                cells.append(str(v))
            elif c == "n":
                cells.append(f"{int(v):,}")
            elif "/" in c:
                cells.append(_f(v, "{:.3f}"))
            elif "MB" in c:
                cells.append(_f(v, "{:.1f}"))
            else:
                cells.append(_f(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def collect_cases(sizes, methods=None) -> List[Case]:
    cases = []
    for modname in CASE_MODULES:
        mod = importlib.import_module(modname)
        for n in sizes:
            for c in mod.bench_cases(n):
                if methods and not any(m in c.method for m in methods):
                    continue
                cases.append(c)
    return cases


NOTES = """Notes:

- Every side's time per call is measured by the same rule: a run repeats calls shorter than
  0.2 s back to back until 0.2 s have passed and takes the mean per call (R's clock ticks in milliseconds; `timeit`
  chooses its loops the same way), and the table gives the median of the runs. R iml is timed
  so inside R. The Python sides (pyiml, scikit-learn, floor) get one warm-up call each, take
  turns run by run, so that a slow spell of the shared machine falls on all of them alike, and
  run with the garbage collector paused, as `timeit` does. Tables before 2026-11-27 timed the
  Python sides one call per run (R's side already as now), so that each call followed the other
  sides' calls and found the processor's caches cold: at n = 1,000 pyiml's calls then took about
  1.2-2.6 times as long as in a loop and the floor's 1.3-2.2 times, so the floor ratios moved
  both ways with the change (PDP+ICE 5.0 -> 3.6, ALE 2-D 11.2 -> 18.1, Shapley 1 row
  10.3 -> 12.2), and the ratios to R iml fell (PDP+ICE 0.080 -> 0.033).
- R is not run where the rows its design predicts would exceed
  10^7: at n = 100,000 the 2-D PDP (4 * 10^7 rows, in 400 calls of 10^5 rows that iml binds
  into one table) and Interaction (6 * 10^7 rows overall, 8.1 * 10^7 two-way, in calls of
  6-9 * 10^6 rows per feature), tens of GB and many minutes in R; pyiml predicts those designs
  in `batch_size` chunks.
- Both sides run with `batch_size` (R: `batch.size`) = 100,000, and pyiml's random methods with a
  numpy source (`random_state=1`). With the default `batch_size` of 1000 a cheap model is called
  100 times as often: Interaction overall (closed form, n = 1,000) takes about 0.28 s instead of
  0.013 s, and about 0.65 s under `RRandom`, which draws iml's permutations.
- The R side of "Shapley 100 rows" is 10 `explain()` calls, scaled by 10.
- PDP+ICE: the constructor computes every curve (the predictions already sit in the `.value`
  column), as scikit-learn's `partial_dependence` does; iml's long table of n·G ICE rows (grid,
  `.type` and `.id` columns) is made when `results` is first read. The row ".results read" times
  both, against scikit-learn's arrays and R's `$results`.
- Large allocations and the kernel: at n = 100,000 the PDP+ICE constructor allocates its 16 MB
  of predictions (the `.value` column) and reading `results` about 50 MB more (grid, `.type`
  and `.id`). This machine's transparent huge pages are on (`enabled` = always): fresh memory is
  backed by 2 MB pages, and when free memory is fragmented the kernel first compacts it, which
  took the constructor 0-41 ms of system time per call in the tables until 2026-11-27 (12-58 ms
  in all). Most of that memory was fresh only because each PDP/ICE object was a reference cycle
  that the timing's paused garbage collector left in place (see below); since that was
  removed (2026-11-28) the constructor reuses the memory of the last call: no page faults, about
  11-12 ms per call steadily. Reading `results` still allocates its new table (about 140 faults,
  0.2 ms of system time per call). The regression guards of `tests/benchmarks` at n = 100,000
  compare user time, which the kernel's work does not disturb.
- The floor is one model call on a prebuilt frame of the rows the method predicts (calls of 10^6
  rows beyond that): for FeatureImp the n·p·repetitions permuted rows plus the data once (the
  model error), for Shapley iml's 2·M·p rows per point plus the data once (the average
  prediction) and the points. The frame holds each column as one contiguous array, as pyiml's
  designs do (`repeat_rows`); a frame made from a row-major array (strided columns) takes the
  closed form up to 3 times longer, and tables before 2026-11-24 used such a frame, which made
  their floor ratios too low (ALE 1-D at n = 100,000: 2.1 instead of 5). Each call gets a new
  frame object over the same rows (a shallow copy, about 4 µs): a frame that was predicted
  before hands the model its columns from pandas' cache, which would make the closed form's call
  at n = 1,000 about 35 µs (2.3 times) faster than on any design a method builds. Model (b)'s
  floor predicts the rows the method's design holds, built as the method builds them
  (`parity.bench_cases.design_rows`: the permuted features, the grid values, the interval ends,
  the fixed grid rows, the Shapley samples), not the data repeated: a tree model predicts the
  same 1,000 rows repeated 50 times in about half the time it takes for 50,000 distinct rows
  (0.07 s against 0.14-0.16 s for the randomForest here; the same 1,000 rows shuffled take the
  longer time too), as the processor's caches and branch predictors learn the repeated paths.
  Tables before 2026-11-28 used repeated rows for model (b) too, which made its floors about half
  what the methods' rows cost (FeatureImp: floor 0.08 s, now 0.13 s). The closed form's time
  does not depend on the values, so model (a) keeps the repeated rows.
- Where pyiml stays above 3 times the floor with the closed form, the floor is small next to
  work that the floor leaves out. At n = 1,000 most floors are 0.05-0.16 ms, less than pyiml's
  fixed cost per call (argument checks, grids, the result DataFrame, R's number formatting:
  0.2-0.9 ms). Interaction overall at n = 1,000 writes 6 * 10^5 design rows of 10 columns, which
  costs about as much as the closed form's reading of them. Memory that the C library hands back
  to the system and maps again costs page faults: until 2026-11-28 a PDP/ICE object was a
  reference cycle (its plan's closures), freed only by the garbage collector, which the timing
  pauses, so each PDP+ICE call at n = 1,000 took fresh memory (about 39 faults, 0.30 instead of
  0.23 ms per call).
  At n = 100,000, ALE 1-D takes about 2 ms against a floor of 0.5 ms: its type-1 quantile grid
  and the interval of each of the 10^5 values (one pass that puts the values into buckets, sorts
  only the buckets holding grid points and compares only their values with the grid: about
  0.55 ms, against 0.9 ms as two passes until 2026-11-28, when ALE took about 3 ms), the writing
  of its 2 * 10^5-row design (0.4 ms) and the per-interval means of the prediction differences
  (0.35 ms) each cost nearly as much as the closed form's prediction of those rows. Shapley for 100 rows (about 6 ms against a
  floor of 0.8 ms, although pyiml predicts p + 1 rows per sample where iml and the floor predict
  2p) draws 10^4 feature orders (about 0.7 ms), writes its design row by row of each sample's
  chain (about 1.5 ms) and formats its 1,000 feature values as R prints them (about 1 ms). With a model whose prediction costs anything (model (b)) pyiml stays
  within about twice the floor (see the table). `docs/bounds.md` (`python -m parity.bounds`)
  times bare numpy versions of the cases above 3 (no checks, the design in one call, iml's
  results table) beside pyiml and the floor: where both stay above 3 times the floor (its table
  says which), no way of writing the method in numpy and pandas that we know of meets the
  target with the closed form; where the bare version comes within 3, pyiml's fixed cost per
  call is what keeps it above.
- Model (b) runs at n = 1,000 only: R's randomForest predicts about 10^5 rows a second, and both
  sides spend nearly all their time in it, so the ratios against R iml are close to 1 there. With
  3 runs per side these rows are noisy, also because R's garbage collector runs inside some model
  calls: a full collection adds about 0.06 s to the call that triggers it (`gc.time()` before and
  after: FeatureImp took pyiml 0.13-0.15 s in calls without one and 0.20-0.21 s in calls with one,
  the floor 0.07 s and 0.14 s). FeatureImp took pyiml 0.14-0.15 s in full runs until 2026-11-27,
  but 0.29-0.38 s in that day's last two full runs and in one of 2026-11-28 (0.365 s), which
  collection alone does not explain. Until then each model call also left the data.frame it
  handed to R in a Python reference cycle (an rpy2 robjects DataFrame), which the paused
  collector kept alive with its R memory; the two full runs since that was removed gave 0.15 s."""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parity.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--methods", default=None, help="comma-separated substrings of method names")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"))
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    methods = args.methods.split(",") if args.methods else None
    cases = collect_cases(sizes, methods)
    if not cases:
        print("no benchmark cases registered", file=sys.stderr)
        return 1
    table = run_cases(cases, args.repeats)
    md = ["# Benchmarks", "", "Written by `make bench` (`python -m parity.bench`). Seconds are medians of "
          f"{args.repeats} runs on this machine (3 for model (b)); ratios are pyiml time / other time (smaller "
          "is better); "
          "the floor is one model call on all rows the method needs. Models: (a) the Friedman #1 closed form "
          "(p = 10) written in Python and in R, which measures the libraries' own overhead; (b) one R "
          "randomForest (50 trees) on the same data, called by R's iml directly and by pyiml through "
          "`r_bridge.RModel` (each pyiml model call crosses rpy2), so both sides predict with the same model.",
          "", to_markdown(table), "", NOTES, ""]
    Path(args.out).write_text("\n".join(md))
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
