"""``Interaction``: Friedman's H-statistic, overall and two-way.

R equivalent: ``iml::Interaction`` (iml 0.11.4, spec §12). Partial dependences are evaluated
at a grid of randomly chosen data rows and averaged over all data rows; the H-statistic is the
share of the (centred) variance that the additive decomposition leaves unexplained
(Friedman & Popescu 2008), reported as H, not H².
"""
from __future__ import annotations

import numbers
from typing import Dict, List, Optional

import numpy as np
import pandas as pd

from ._base import InterpretationMethod, check_bool, is_finite_real, real_scalar
from ._algorithms.rstats import r_colMeans, r_means, r_seq_sum
from ._design import gather_design
from ._parallel import check_n_jobs, map_items, plan_chunks
from .predictor import Predictor
from .random import as_random_source
from ._text import shown

__all__ = ["Interaction"]

_LD = np.longdouble


def _r_scale(x: np.ndarray) -> np.ndarray:
    """iml's ``my.scale``: centre each column by R's ``colMeans``; NaN after centring → 0."""
    y = x - r_colMeans(x)
    y[np.isnan(y)] = 0.0
    return y


def h_statistic(f_all: np.ndarray, f_j: np.ndarray, f_k: np.ndarray) -> np.ndarray:
    """iml's ``h.test``: ``sqrt(sum((a - (b + c))^2) / sum(a^2))`` of the centred vectors.

    Columns are handled separately (one per output); sums in long double like R's ``sum``.
    A constant ``f_all`` gives 0/0 = NaN, as in iml.
    """
    a, b, c = (_r_scale(np.asarray(v, dtype=float).reshape(len(v), -1)) for v in (f_all, f_j, f_k))
    num = r_seq_sum(((a - (b + c)) ** 2).astype(_LD)).astype(float)
    den = r_seq_sum((a ** 2).astype(_LD)).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(num / den)


def _permutations(stream, n: int, m: int) -> np.ndarray:
    """``m`` successive permutations of the n data rows from ``stream`` (R's ``sample(1:n, n)``),
    as int32 where n allows, drawn at most about 4 million values at a time."""
    out = np.empty((m, n), dtype=np.int32 if n < 2 ** 31 else np.int64)
    step = max(1, 4_000_000 // max(n, 1))
    for s in range(0, m, step):
        e = min(m, s + step)
        out[s:e] = stream.permutations(n, e - s)
    return out


def _shifted_means(P: np.ndarray) -> np.ndarray:
    """(B, k) means over axis 1 of P (B, n, k) in numpy's float64, taken around each block's
    first row: exactly that value when all n are equal (a model that ignores the features the
    block does not fix), as R's long-double mean gives it."""
    first = P[:, :1, :]
    return first[:, 0, :] + (P - first).mean(axis=1)


def _as_key(values: np.ndarray) -> np.ndarray:
    """Values as floats that are equal exactly when the values are (strings by first appearance)."""
    if values.dtype.kind in "biuf":
        return values.astype(float)
    return pd.factorize(values)[0].astype(float)


def _group_keys(cols: List[np.ndarray]):
    """``np.unique(np.stack(cols, axis=1), axis=0, return_index=True, return_inverse=True)[1:]``
    for one or two key columns of floats: the first row of each distinct (pair of) value(s), in
    sorted order, and each row's group; through 1-d ``np.unique`` (several times faster)."""
    code = None
    for col in cols:
        _, inv = np.unique(col, return_inverse=True)
        inv = np.asarray(inv).reshape(-1)
        code = inv if code is None else code * (int(inv.max()) + 1 if inv.size else 1) + inv
    _, first, inv = np.unique(code, return_index=True, return_inverse=True)
    return first, np.asarray(inv).reshape(-1)


class Interaction(InterpretationMethod):
    """Interaction strength (Friedman's H) of each feature with all others, or with one feature.

    R equivalent: ``iml::Interaction$new(predictor, feature = NULL, grid.size = 30)``.

    Overall (``feature=None``), for each feature j: ``H_j`` compares the prediction ``f(x)``
    with the sum of the partial dependence on j and on all other features. Two-way
    (``feature=k``), for each other feature j: ``H_jk`` compares the two-feature partial
    dependence with the sum of the one-feature ones. The partial dependences are evaluated at
    ``grid_size`` data rows drawn without replacement and averaged over all data rows.

    Parameters
    ----------
    predictor : Predictor
    feature : str, optional
        The feature whose two-way interactions with every other feature are measured; None
        for the overall interaction of every feature. (iml also takes a 1-based index; pyiml
        takes names only, see docs/differences.md.)
    grid_size : int or float, default 30
        Grid rows per feature (at most the number of data rows); a number >= 2, as iml's
        ``assert_number``: a fraction is truncated, as R's ``sample(size = 2.5)`` draws 2 rows.
    random_state : None, int, numpy.random.Generator or RRandom
        With :class:`pyiml.RRandom` each feature's grid rows are the ones iml draws after
        ``set.seed`` (one L'Ecuyer stream per feature, as ``future.apply(future.seed = TRUE)``
        gives them), and so are the permutations of the data rows iml draws next, which set the
        order each partial dependence is added up in: results equal iml's to the bit. With a
        numpy source one grid is drawn and shared by all features, which lets pyiml reuse
        partial dependences across features, and no permutations are drawn.
    n_jobs : int or None, default 1
        Threads over features, used only when the predictor's ``batch_size`` is at least 10 000 rows
        with a full model call per thread and kept only where they are measured to pay (see
        docs/differences.md); results do not depend on it.
    progress : bool, default False
        Show a tqdm progress bar.

    Attributes
    ----------
    results : pandas.DataFrame
        iml's columns ``.feature`` (``"x"`` or ``"x:feature"``), ``.class`` (several outputs
        only, categorical) and ``.interaction``; rows in feature order, classes within.
    grid_size : int or float
        ``min(grid_size, number of rows)``, as given (iml's ``grid.size``).
    feature : str or None
    partial_dependence : dict
        The raw ingredients per evaluated feature label: the grid rows (0-based data rows) and
        the three uncentred vectors compared by the H-statistic, each of shape (grid, outputs)
        (overall: ``f``, ``j``, ``no.j``; two-way: ``jk``, ``j``, ``k``).

    Notes
    -----
    The predictions of a one- or two-feature partial dependence are computed once per distinct
    value and reused (with a numpy source, the two-way statistic's partial dependence on
    ``feature`` is shared by all features); the model is called on at most ``batch_size`` rows
    at a time (iml predicts everything in one call).

    Examples
    --------
    >>> import itertools
    >>> import pandas as pd
    >>> X = pd.DataFrame(list(itertools.product([-1.0, 1.0], [-1.0, 1.0])), columns=["a", "b"])
    >>> p = Predictor(predict_function=lambda d: (d["a"] * d["b"]).to_numpy(), data=X)
    >>> Interaction(p, grid_size=4, random_state=1).results[".interaction"].round(12).tolist()
    [1.0, 1.0]
    """

    def __init__(self, predictor: Predictor, feature: Optional[str] = None, grid_size: int = 30, *,
                 random_state=None, n_jobs: int = 1, progress: bool = False):
        if not isinstance(predictor, Predictor):
            super().__init__(predictor)  # raises the base class's TypeError
        names = predictor.data.feature_names
        feature = self._check_feature(feature, names)
        grid_size = real_scalar(grid_size)
        if not is_finite_real(grid_size):
            raise TypeError(f"grid_size must be a number >= 2, got {shown(grid_size)}")
        if grid_size < 2:
            raise ValueError(f"grid_size must be >= 2 (iml: Element 1 is not >= 2), got {shown(grid_size)}")
        super().__init__(predictor)
        self.feature = feature
        self.grid_size = min(grid_size, self.sampler.n_rows)
        self.n_jobs = check_n_jobs(n_jobs)
        self.progress = check_bool(progress, "progress")
        self._rs = as_random_source(random_state)
        self.partial_dependence: Dict[str, dict] = {}
        self._run()
        self._warn_if_model_draws(self._rs)

    @staticmethod
    def _check_feature(feature, names: List[str]) -> Optional[str]:
        if isinstance(feature, (list, tuple)) and len(feature) == 1:
            feature = feature[0]
        if feature is None:
            return None
        if isinstance(feature, (numbers.Integral, np.integer)) and not isinstance(feature, bool):
            where = []
            if 0 <= feature < len(names):
                where.append(f"{names[feature]!r} at 0-based position {feature}")
            if 1 <= feature <= len(names):
                where.append(f"{names[feature - 1]!r} at iml's 1-based index {feature}")
            hint = f" ({', '.join(where)})" if where else ""
            raise TypeError(f"feature must be a feature name, got the number {feature}{hint}")
        if not isinstance(feature, str):
            raise TypeError(
                f"feature must be one feature name (its two-way interactions) or None (overall), got {shown(feature)}"
            )
        if feature not in names:
            raise ValueError(f"feature={shown(feature)} is not a feature; the features are {names}")
        return feature

    # ------------------------------------------------------------------ run
    def _run(self, force: bool = False) -> None:
        data = self.sampler
        n = data.n_rows
        G = int(self.grid_size)
        evals = [f for f in data.feature_names if f != self.feature]
        rs = self._rs
        overall = self.feature is None
        labels = evals if overall else [f"{x}:{self.feature}" for x in evals]
        kinds = ("f", "j", "no.j") if overall else ("jk", "j", "k")
        X = data.X
        if rs.r_exact:
            # iml: one seeded future_lapply element per feature, which draws the grid rows and then,
            # for each MarginalGenerator (overall: j, no.j; two-way: jk, j, k), one permutation of
            # the data rows per grid row; they order the rows each partial dependence adds up.
            # Generator by generator: only one generator's G permutations are kept at a time.
            grids, triples = [], []
            for x, stream in zip(evals, rs.element_streams(len(evals))):
                grid = np.asarray(stream.choice(n, G), dtype=np.intp)
                pds = [self._partial_dependences([req], orders=[_permutations(stream, n, G)])[0]
                       for req in self._requests(x, evals, grid)]
                if overall:
                    f_grid = self.predictor.predict_batched(G, lambda s, e: X.iloc[grid[s:e]])
                    pds = [f_grid] + pds
                grids.append(grid)
                triples.append(tuple(pds))
        else:
            grid = np.asarray(rs.choice(n, G), dtype=np.intp)
            grids = [grid] * len(evals)
            # the partial dependences each statistic compares: (fixed features, grid rows); one grid
            # for all features, so the partial dependence on `feature` (two-way) is shared
            requests = [r for x in evals for r in self._requests(x, evals, grid)[:2]]
            if not overall:
                requests.append(([self.feature], grid))
            pds = self._partial_dependences(requests)
            if overall:
                f_grid = self.predictor.predict_batched(G, lambda s, e: X.iloc[grid[s:e]]) if evals else None
                triples = [(f_grid, pds[2 * i], pds[2 * i + 1]) for i in range(len(evals))]
            else:
                triples = [(pds[2 * i], pds[2 * i + 1], pds[-1]) for i in range(len(evals))]
        outputs = list(self.predictor.output_names)      # (of this run's predictions)
        self._multiclass = len(outputs) > 1
        rows = []
        # every feature's statistic in one call: its columns side by side (each column is summed
        # on its own, so the numbers are those of one call per feature)
        H = h_statistic(*(np.concatenate([np.asarray(t[i], dtype=float).reshape(len(t[i]), -1) for t in triples],
                                         axis=1) for i in range(3))).reshape(len(triples), -1)
        for label, grid, vecs, h in zip(labels, grids, triples, H):
            self.partial_dependence[label] = {"grid": grid, **dict(zip(kinds, vecs))}
            rows += [(label, name, h[c]) for c, name in enumerate(outputs)]
        cols = {".feature": np.array([r[0] for r in rows], dtype=object)}
        if self._multiclass:
            cols[".class"] = pd.Categorical([r[1] for r in rows], categories=outputs)
        cols[".interaction"] = np.array([r[2] for r in rows], dtype=float)
        self.results = pd.DataFrame(cols)
        self._finished = True

    def _requests(self, x: str, evals: List[str], grid: np.ndarray) -> List[tuple]:
        """The partial dependences feature ``x``'s statistic compares, as (fixed features, grid
        rows), in the order iml creates their MarginalGenerators: overall ``x`` and all other
        features; two-way ``x`` with ``feature``, ``x``, ``feature``."""
        if self.feature is None:
            return [([x], grid), ([c for c in evals if c != x], grid)]
        return [([x, self.feature], grid), ([x], grid), ([self.feature], grid)]

    def _partial_dependences(self, requests: List[tuple], orders=None) -> List[np.ndarray]:
        """For each request (fixed features, data rows): the partial dependence on the fixed
        features at the values they take in those rows, shape (len(rows), k).

        ``PD(u) = mean_i f(X_i with the fixed features set to X_u's)``. Rows with the same values
        of one or two fixed features are predicted once; all requests share the model calls.
        ``orders`` (optional, one per request): for each of its rows a permutation of the data
        rows, the order in which iml adds that partial dependence's predictions; None: data order.
        """
        data = self.sampler
        enc = data.encoded()
        names = data.feature_names
        masks, vrows, back = [], [], []
        # per block: the orders its means are taken in (None: data order); no lists at all when
        # every mean is taken in data order (a numpy random source)
        consumers: Optional[List[list]] = None if orders is None else []
        for r, (fixed, rows) in enumerate(requests):
            if len(fixed) <= 2:
                first, inv = _group_keys([_as_key(enc[c][rows]) for c in fixed])
                urows = rows[first]
            else:  # many features fixed: grid rows rarely repeat, skip the search
                urows, inv = rows, np.arange(len(rows))
            blocks = len(vrows) + inv
            order = None if orders is None else orders[r]
            if order is None:
                if consumers is not None:
                    consumers.extend([None] for _ in urows)
                slots = np.zeros(len(rows), dtype=np.intp)
            else:
                consumers.extend([] for _ in urows)
                slots = np.empty(len(rows), dtype=np.intp)
                for i, b in enumerate(blocks.tolist()):
                    slots[i] = len(consumers[b])
                    consumers[b].append(order[i])
            back.append((blocks, slots))
            vrows.extend(urows.tolist())
            fixed_set = set(fixed)
            mask = np.array([c in fixed_set for c in names], dtype=bool)
            masks.append(np.broadcast_to(mask, (len(urows), len(names))))
        masks = np.concatenate(masks) if masks else np.zeros((0, len(names)), dtype=bool)
        vrows = np.asarray(vrows, dtype=np.intp)
        n, bs = data.n_rows, self.predictor.batch_size
        chunks, workers = plan_chunks(len(vrows), n, bs, self.n_jobs, self.progress, "Interaction", self.predictor)
        parts = map_items(lambda ch: self._block_means(masks[ch.start:ch.stop], vrows[ch.start:ch.stop],
                                                       None if consumers is None else consumers[ch.start:ch.stop]),
                          chunks,
                          workers, bs, self.progress, "Interaction", key=self.predictor)
        means = np.concatenate(parts, axis=0) if parts else np.empty((0, 1))
        if consumers is None:         # one mean per block
            offsets = np.arange(len(vrows) + 1, dtype=np.intp)
        else:
            offsets = np.concatenate(([0], np.cumsum([len(c) for c in consumers]))).astype(np.intp)
        return [means[offsets[blocks] + slots] for blocks, slots in back]

    def _block_means(self, masks: np.ndarray, vrows: np.ndarray, consumers: Optional[List[list]]) -> np.ndarray:
        """Mean predictions over all data rows ("a block") with the features of ``masks[b]`` set
        to their values in data row ``vrows[b]``: for each block b one mean per entry of
        ``consumers[b]``, added in that order of the data rows (None: data order; ``consumers``
        None: one mean per block in data order), stacked block by block; at most ``batch_size``
        rows per model call.

        A mean in a given order is R's ``mean`` (iml's ``dcast(..., fun.aggregate = mean)``): a
        sequential long-double sum with R's correction pass, in that order, so the means equal
        iml's to the bit. A mean in data order (no order given: a numpy random source, whose
        results are not iml's anyway) is numpy's, around the block's first value, several times
        faster. Either way a feature the model ignores gets exactly constant partial dependences
        (H exactly 0, as in iml). Blocks longer than ``batch_size`` are predicted in pieces and
        their n predictions kept until the block's means are taken."""
        data, p = self.sampler, self.predictor
        n, bs, B = data.n_rows, p.batch_size, len(vrows)
        names = data.feature_names
        enc = data.encoded()
        out: List[np.ndarray] = []

        def predict_rows(r0: int, r1: int) -> np.ndarray:
            """Rows r0..r1-1 of the design of all B blocks (block b: rows b*n..(b+1)*n-1, the
            data in order with the features of masks[b] set from data row vrows[b])."""
            patches = {}
            b_lo = r0 // n
            # runs of consecutive blocks that fix a feature, all features at once: (feature, first
            # block, one past the last) in feature order; one patch for the blocks of a run wholly
            # inside r0..r1 (each block its value row), one for a first or last block cut by r0, r1
            sub = masks[b_lo:(r1 - 1) // n + 1]
            padded = np.zeros((len(names), sub.shape[0] + 2), dtype=np.int8)
            padded[:, 1:-1] = sub.T
            edges = np.diff(padded, axis=1)
            feats, starts = np.nonzero(edges == 1)
            ends = np.nonzero(edges == -1)[1]
            for j, s, e in zip(feats.tolist(), (starts + b_lo).tolist(), (ends + b_lo).tolist()):
                c = names[j]
                lo, hi = max(s * n, r0), min(e * n, r1)
                full0 = s if lo == s * n else s + 1      # the first block wholly inside
                full1 = e if hi == e * n else e - 1      # one past the last block wholly inside
                runs = patches.setdefault(c, [])
                if full1 < full0:                        # one block, cut at both ends
                    runs.append((lo - r0, hi - r0, vrows[s]))
                    continue
                if full0 > s:
                    runs.append((lo - r0, full0 * n - r0, vrows[s]))
                if full1 > full0:
                    runs.append((full0 * n - r0, full1 * n - r0, vrows[full0:full1]))
                if full1 < e:
                    runs.append((full1 * n - r0, hi - r0, vrows[e - 1]))
            return p.predict_array(gather_design(data, enc, dict.fromkeys(names, range(r0, r1)), patches))

        def means_of(P: np.ndarray, orders: list) -> np.ndarray:
            """(len(orders), k) means of one block's predictions P (n, k), one order at a time."""
            return np.stack([_shifted_means(P[None])[0] if o is None else r_means(P[o], axis=0) for o in orders])

        if n <= bs:
            per = bs // n
            for lo in range(0, B, per):
                hi = min(B, lo + per)
                P = predict_rows(lo * n, hi * n).reshape(hi - lo, n, -1)
                if consumers is None or all(len(c) == 1 and c[0] is None for c in consumers[lo:hi]):
                    # data order: at once
                    out.append(_shifted_means(P))
                else:
                    out.extend(means_of(P[b], consumers[lo + b]) for b in range(hi - lo))
        else:
            # the B blocks as one design of B * n rows, cut into calls of batch_size rows that may
            # span two blocks (cut at each block's own end, n = batch_size + 1 would give as many
            # one-row calls as full ones); each block's n predictions are averaged once complete
            pending: List[np.ndarray] = []
            have, b = 0, 0
            for r0 in range(0, B * n, bs):
                P = predict_rows(r0, min(B * n, r0 + bs))
                pending.append(P)
                have += len(P)
                while have >= n:
                    P_all = np.concatenate(pending) if len(pending) > 1 else pending[0]
                    out.append(means_of(P_all[:n], [None] if consumers is None else consumers[b]))
                    rest = P_all[n:]
                    pending, have, b = ([rest] if len(rest) else []), len(rest), b + 1
        return np.concatenate(out, axis=0) if out else np.empty((0, 1))

    # ------------------------------------------------------------------ public
    def plot(self, sort: bool = True):
        """iml's plot: a point and a segment from 0 per feature at its H-statistic.

        R equivalent: ``plot(<Interaction>, sort = TRUE)``. Returns a matplotlib Figure.
        """
        return super().plot(sort=check_bool(sort, "sort"))

    def _plot(self, sort: bool = True):
        from .plotting.interaction import plot_interaction

        return plot_interaction(self.results, multiclass=self._multiclass, sort=sort)
