"""Bare numpy lower bounds for the floor ratios of ``make bench`` (the closed-form model).

The speed issues ask every method to stay within 3 times the floor: one model call on the rows
the method needs. With the closed form (Friedman #1, about 5 ns a row) the floor is so short that
the rest of a method's work can exceed twice the floor however it is written. This module
measures that: each *bare* version computes a method's result the shortest way numpy and pandas
allow — no argument checks, no ``pyiml.Predictor``, the data already laid out as a (p, n)
array, the whole design in one model call, no R-exact arithmetic or number formatting — and
returns iml's results table. DESIGN.md makes pyiml pure Python on numpy and pandas, so the faster
of the bare version and pyiml estimates what such an implementation needs (the bare version is
not always the faster: pyiml predicts large designs in chunks through one reused buffer); where
both stay above 3 times the floor, no way of writing the method that we know of meets the target.

ALE (1-D and 2-D) and PDP+ICE are checked to give pyiml's numbers (max abs diff in the table;
for 2-D ALE also the same grids and cell rectangles, else the diff is inf). FeatureImp and
Shapley draw their own permutations, so their numbers differ from pyiml's by the Monte-Carlo
error; they do the same amount of work (the same rows predicted or fewer). Shapley's bare
version formats feature values with ``{:.7g}``, cheaper than R's rules that pyiml follows. At
n = 100,000 only ALE and Shapley are timed, the cases where pyiml's own work keeps it above 3
times the floor there. Interaction, within 3 times the floor at both sizes, has no bare version.

Run ``python -m parity.bounds`` (also part of ``make bench``); writes ``docs/bounds.md``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, List, NamedTuple, Optional

import numpy as np
import pandas as pd

import pyiml
from pyiml._ale import _half_steps, _midpoints
from pyiml._algorithms.grids import ale_grid

from .bench import _median_times, friedman_data, friedman_f
from .bench_cases import _floor, floor_rows

G = 20      # grid size of the ALE and PDP cases, as in the bench
M = 100     # Shapley's sample size
R = 5       # FeatureImp's repetitions


#: From this n on, only the cases whose pyiml/floor ratio in docs/benchmarks.md is above 3. The
#: others' designs are millions of rows (G·n, p·R·n), which pyiml predicts in ``batch_size``
#: chunks through one reused buffer; a bare version that builds them whole is slower than pyiml.
LARGE = 10_000
LARGE_CASES = ("ALE 1-D", "ALE 2-D", "Shapley 1 row", "Shapley 100 rows")


class Bound(NamedTuple):
    name: str
    floor_rows: int
    bare: Callable[[], object]
    pyiml: Callable[[], object]
    check: Optional[Callable[[object, object], float]] = None   # max abs diff of bare's and pyiml's outputs


def _frame(D: np.ndarray, cols) -> pd.DataFrame:
    """A (p, m) design as the model's frame, each column contiguous (no copy)."""
    return pd.DataFrame(D.T, columns=cols, copy=False)


def bare_ale(E: np.ndarray, cols, j: int = 0) -> pd.DataFrame:
    """1-D ALE of feature ``j``: type-1 quantile grid with the intervals (one bucket pass where it
    applies), lower/upper design in one call."""
    p, n = E.shape
    x = E[j]
    z, k = ale_grid(x, G + 1, "numerical")     # (finite data: the intervals come with the grid)
    D = np.empty((p, 2 * n))
    D[:, :n] = E
    D[:, n:] = E
    D[j, :n] = z[k - 1]
    D[j, n:] = z[k]
    pr = np.asarray(friedman_f(_frame(D, cols)), dtype=float)
    K = z.size - 1
    cnt = np.bincount(k - 1, minlength=K)
    s = np.bincount(k - 1, weights=pr[n:] - pr[:n], minlength=K)
    dm = np.where(cnt > 0, s / np.maximum(cnt, 1), 0.0)
    C = np.concatenate(([0.0], np.cumsum(dm)))
    vals = C - ((C[:-1] + C[1:]) / 2 * cnt).sum() / cnt.sum()
    return pd.DataFrame({".type": np.full(vals.size, "ale", dtype=object), ".value": vals, cols[j]: z}, copy=False)


def bare_ale_2d(E: np.ndarray, cols, j1: int = 0, j2: int = 1) -> pd.DataFrame:
    """2-D ALE of features ``j1`` x ``j2``: both quantile grids with their intervals, the four
    corner designs in one call, cell means, empty cells filled from the nearest non-empty cell
    (brute force over the cell centres), the double cumulative sum with both first-order effects
    taken out, and iml's table (``.ale`` and the cell rectangles). Cumulative sums in double, not
    R's long double."""
    p, n = E.shape
    z1, k1 = ale_grid(E[j1], G + 1, "numerical")
    z2, k2 = ale_grid(E[j2], G + 1, "numerical")
    K1, K2 = z1.size - 1, z2.size - 1
    D = np.empty((p, 4, n))
    D[:] = E[:, None, :]
    D[j1, 0::2] = z1[k1 - 1]
    D[j1, 1::2] = z1[k1]
    D[j2, :2] = z2[k2 - 1]
    D[j2, 2:] = z2[k2]
    pr = np.asarray(friedman_f(_frame(D.reshape(p, -1), cols)), dtype=float).reshape(4, n)
    cell = (k1 - 1) * K2 + (k2 - 1)
    N = np.bincount(cell, minlength=K1 * K2).astype(float)
    s = np.bincount(cell, weights=(pr[3] - pr[1]) - (pr[2] - pr[0]), minlength=K1 * K2)
    dl = s / np.maximum(N, 1.0)
    empty = N == 0
    if empty.any():
        xy = np.column_stack([np.repeat(_midpoints(z1), K2), np.tile(_midpoints(z2), K1)])
        full = np.flatnonzero(~empty)
        d2 = ((xy[empty][:, None, :] - xy[full][None, :, :]) ** 2).sum(axis=2)
        dl[empty] = dl[full[d2.argmin(axis=1)]]
    N, dl = N.reshape(K1, K2), dl.reshape(K1, K2)
    F = np.zeros((K1 + 1, K2 + 1))
    F[1:, 1:] = dl.cumsum(axis=1).cumsum(axis=0)
    D1 = F[1:] - F[:-1]
    D2 = F[:, 1:] - F[:, :-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        a1 = (N * (D1[:, :-1] + D1[:, 1:]) / 2).sum(axis=1) / N.sum(axis=1)
        a2 = (N * (D2[:-1] + D2[1:]) / 2).sum(axis=0) / N.sum(axis=0)
    A1 = np.concatenate(([0.0], np.nan_to_num(a1).cumsum()))
    A2 = np.concatenate(([0.0], np.nan_to_num(a2).cumsum()))
    Gm = F - A1[:, None] - A2[None, :]
    ale = Gm - (N * (Gm[:-1, :-1] + Gm[:-1, 1:] + Gm[1:, :-1] + Gm[1:, 1:]) / 4).sum() / N.sum()
    (left1, right1), (left2, right2) = _half_steps(z1), _half_steps(z2)
    ii, jj = np.tile(np.arange(K1 + 1), K2 + 1), np.repeat(np.arange(K2 + 1), K1 + 1)
    return pd.DataFrame({".type": np.full(ii.size, "ale", dtype=object), ".ale": ale.T.ravel(),
                         ".right": z1[ii] + right1[ii], ".left": z1[ii] - left1[ii],
                         ".bottom": z2[jj] + right2[jj], ".top": z2[jj] - left2[jj],
                         cols[j1]: z1[ii], cols[j2]: z2[jj]}, copy=False)


def bare_pdp_ice(E: np.ndarray, cols, j: int = 0):
    """1-D PDP+ICE of feature ``j``: equidistant grid, G·n design in one call, the PDP rows and
    the ICE matrix (pyiml's constructor also defers the long ICE table)."""
    p, n = E.shape
    x = E[j]
    lo, hi = x.min(), x.max()
    grid = lo + np.arange(G) * ((hi - lo) / (G - 1))
    D = np.empty((p, G * n))
    D.reshape(p, G, n)[:] = E[:, None, :]
    D[j].reshape(G, n)[:] = grid[:, None]
    ice = np.asarray(friedman_f(_frame(D, cols)), dtype=float).reshape(G, n)
    pdp = pd.DataFrame({cols[j]: grid, ".value": ice.mean(axis=1), ".type": np.full(G, "pdp", dtype=object)}, copy=False)
    return pdp, ice


def bare_feature_imp(E: np.ndarray, cols, y: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """FeatureImp (mae, ratio): R permutations shared by the p features, the p·R·n permuted rows
    and the data in one call."""
    p, n = E.shape
    perms = rng.permuted(np.tile(np.arange(n), (R, 1)), axis=1)
    D = np.empty((p, p * R + 1, n))
    D[:] = E[:, None, :]
    for j in range(p):
        D[j, j * R:(j + 1) * R] = E[j][perms]
    pr = np.asarray(friedman_f(_frame(D.reshape(p, -1), cols)), dtype=float).reshape(p * R + 1, n)
    err = np.abs(pr - y).mean(axis=1)
    ratio = (err[:-1] / err[-1]).reshape(p, R)
    imp = np.median(ratio, axis=1)
    q = np.quantile(ratio, [0.05, 0.95], axis=1)
    o = np.argsort(-imp, kind="stable")
    return pd.DataFrame({"feature": np.asarray(cols, dtype=object)[o], "importance.05": q[0][o], "importance": imp[o],
                         "importance.95": q[1][o], "permutation.error": np.median(err[:-1].reshape(p, R), axis=1)[o]})


def bare_shapley(E: np.ndarray, cols, xs: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """Shapley for the points ``xs`` (p, r): per sample the chain of p + 1 rows from z to x (p
    rows predicted, as pyiml does, instead of iml's 2p), the points and the data (the average
    prediction) in one call."""
    p, n = E.shape
    r = xs.shape[1]
    S = r * M
    bg = rng.integers(0, n, S).reshape(r, M)
    rank = rng.permuted(np.tile(np.arange(p), (S, 1)), axis=1).T      # (p, S): position of each feature
    zr = np.take_along_axis(bg, rng.integers(0, M, S).reshape(r, M), axis=1).ravel()
    X, Z = xs[:, np.repeat(np.arange(r), M)], E[:, zr]
    D = np.empty((p, p * S + r + n))
    for t in range(p):          # chain row t: x on the features ranked before t
        np.copyto(D[:, t * S:(t + 1) * S], np.where(rank < t, X, Z))
    D[:, p * S:p * S + r] = xs
    D[:, p * S + r:] = E
    pr = np.asarray(friedman_f(_frame(D, cols)), dtype=float)
    chain = pr[:p * S].reshape(p, S)
    step = np.empty((p, S))
    step[:p - 1] = chain[1:] - chain[:-1]
    step[p - 1] = np.repeat(pr[p * S:p * S + r], M) - chain[p - 1]
    diff = np.take_along_axis(step, rank, axis=0).reshape(p, r, M)
    fv = [f"{c}={v:.7g}" for i in range(r) for c, v in zip(cols, xs[:, i])]
    return pd.DataFrame({"feature": np.tile(np.asarray(cols, dtype=object), r), "phi": diff.mean(axis=2).T.ravel(),
                         "phi.var": diff.var(axis=2, ddof=1).T.ravel(), "feature.value": fv}, copy=False)


def bounds(n: int):
    """(data features, the bounds at ``n``)."""
    data = friedman_data(n)
    X = data.drop(columns="y")
    cols = X.columns
    p = len(cols)
    E = np.ascontiguousarray(X.to_numpy().T)
    y = data["y"].to_numpy()
    predictor = pyiml.Predictor(data=data, y="y", predict_function=friedman_f, batch_size=100_000)
    rng = np.random.default_rng(1)

    def ale_diff(a: pd.DataFrame, eff) -> float:
        return float(np.abs(a[".value"].to_numpy() - eff.results[".value"].to_numpy()).max())

    def ale_2d_diff(a: pd.DataFrame, eff) -> float:
        res = eff.results
        same = all(np.array_equal(a[c].to_numpy(), res[c].to_numpy()) for c in a.columns if c != ".ale")
        return float(np.abs(a[".ale"].to_numpy() - res[".ale"].to_numpy()).max()) if same else float("inf")

    def pdp_diff(bare, eff) -> float:
        pdp, ice = bare
        res = eff.results
        got = res[res[".type"] == "pdp"][".value"].to_numpy()
        ice_py = res[res[".type"] == "ice"].sort_values([".id", "x1"])[".value"].to_numpy().reshape(n, G).T
        return float(max(np.abs(got - pdp[".value"].to_numpy()).max(), np.abs(ice_py - ice).max()))

    rows = floor_rows(n, p, G, R, M)   # the bench's floors
    out = [
        Bound("ALE 1-D (grid 20)", rows["ALE 1-D"], lambda: bare_ale(E, cols),
              lambda: pyiml.FeatureEffect(predictor, "x1", method="ale", grid_size=G), ale_diff),
        Bound("ALE 2-D (grid 20x20)", rows["ALE 2-D"], lambda: bare_ale_2d(E, cols),
              lambda: pyiml.FeatureEffect(predictor, ["x1", "x2"], method="ale", grid_size=G), ale_2d_diff),
        Bound("PDP+ICE 1-D (grid 20)", rows["PDP+ICE 1-D"], lambda: bare_pdp_ice(E, cols),
              lambda: pyiml.FeatureEffect(predictor, "x1", method="pdp+ice", grid_size=G), pdp_diff),
        Bound("FeatureImp (mae, 5 reps)", rows["FeatureImp"], lambda: bare_feature_imp(E, cols, y, rng),
              lambda: pyiml.FeatureImp(predictor, loss="mae", n_repetitions=R, random_state=1)),
        Bound("Shapley 1 row (M 100)", rows["Shapley 1 row"], lambda: bare_shapley(E, cols, E[:, :1], rng),
              lambda: pyiml.Shapley(predictor, x_interest=X.iloc[:1], sample_size=M, random_state=1)),
    ]
    if n >= 100:
        out.append(Bound("Shapley 100 rows (M 100)", rows["Shapley 100 rows"],
                         lambda: bare_shapley(E, cols, E[:, :100], rng),
                         lambda: pyiml.Shapley(predictor, x_interest=X.iloc[:100], sample_size=M, random_state=1)))
    if n >= LARGE:
        out = [b for b in out if b.name.split(" (")[0] in LARGE_CASES]
    return X, out


def run(sizes, repeats: int) -> pd.DataFrame:
    rows = []
    for n in sizes:
        X, todo = bounds(n)
        for b in todo:
            t = _median_times({"floor": _floor(X, b.floor_rows), "bare": b.bare, "pyiml": b.pyiml}, repeats)
            diff = b.check(b.bare(), b.pyiml()) if b.check is not None else None
            rows.append(dict(method=b.name, n=n, floor=t["floor"], bare=t["bare"], pyiml=t["pyiml"],
                             bare_floor=t["bare"] / t["floor"], pyiml_floor=t["pyiml"] / t["floor"], diff=diff))
            r = rows[-1]
            print(f"{b.name:28s} {n:>7d}  floor {r['floor']:.4g}s  bare {r['bare']:.4g}s  pyiml {r['pyiml']:.4g}s  "
                  f"bare/floor {r['bare_floor']:.2f}  pyiml/floor {r['pyiml_floor']:.2f}", flush=True)
    return pd.DataFrame(rows)


def to_markdown(table: pd.DataFrame, repeats: int) -> str:
    head = ["# Lower bounds of the floor ratios", "",
            "Written by `python -m parity.bounds` (part of `make bench`). " + __doc__.split("\n\n")[1].replace("\n", " "),
            "", __doc__.split("\n\n")[2].replace("\n", " "), "",
            f"Seconds are medians of {repeats} runs, each the mean per call of calls repeated until 0.2 s have passed (the three take turns run by run, as in `make bench`); the floor is the bench's.", "",
            "| method | n | floor s | bare s | pyiml s | bare/floor | pyiml/floor | bare vs pyiml max abs diff |",
            "|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        diff = "— (own draws)" if r.diff is None or pd.isna(r.diff) else f"{r.diff:.3g}"
        head.append(f"| {r.method} | {r.n:,} | {r.floor:.4g} | {r.bare:.4g} | {r.pyiml:.4g} | {r.bare_floor:.2f} | "
                    f"{r.pyiml_floor:.2f} | {diff} |")
    return "\n".join(head) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parity.bounds", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "bounds.md"))
    args = ap.parse_args(argv)
    table = run([int(s) for s in args.sizes.split(",")], args.repeats)
    Path(args.out).write_text(to_markdown(table, args.repeats))
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
