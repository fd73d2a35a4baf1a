"""``Shapley``: Shapley values of single predictions by Monte-Carlo sampling.

R equivalent: ``iml::Shapley`` (iml 0.11.4, spec §13); the estimator of Štrumbelj and
Kononenko (2014): for random feature orders and random background rows, the change in the
prediction when feature j joins the features that precede it.
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np
import pandas as pd

from ._base import InterpretationMethod, check_bool, check_int
from ._algorithms.rstats import r_colMeans, r_seq_sum
from ._design import gather_design
from ._parallel import check_n_jobs, map_items, plan_chunks
from .data import extension_values
from .predictor import Predictor
from .random import as_random_source
from ._text import shown

__all__ = ["Shapley"]

_LD = np.longdouble


#: Chains of at most this many design values (features x rows) are built in one selection.
_SELECT_AT_ONCE = 2 ** 16


# ---------------------------------------------------------------------------- statistics
def _dt_mean(v: np.ndarray) -> np.ndarray:
    """data.table's grouped ``mean`` (GForce ``gmean``) down axis 0: a sequential double sum
    divided by the group size."""
    return r_seq_sum(v) / v.shape[0]


def _dt_var(v: np.ndarray, exact: bool = True) -> np.ndarray:
    """data.table's grouped ``var`` (GForce ``gvar``) down axis 0.

    Long-double mean with a correction pass, then the sum of squared deviations (each in double)
    accumulated in long double, divided by n - 1 in double; NaN for one value (R's NA). With
    ``exact=False`` the same two-pass variance in double (within a few ulps of it).
    """
    n = v.shape[0]
    if n < 2:
        return np.full(v.shape[1:], np.nan)
    if not exact:
        d = v - v.mean(axis=0)
        return np.einsum("ij,ij->j", d, d) / (n - 1)
    vl = v.astype(_LD)
    m = r_seq_sum(vl) / n
    m = m + r_seq_sum(vl - m) / n
    d = v - m.astype(float)
    return r_seq_sum((d * d).astype(_LD)).astype(float) / (n - 1)


def _select_into(out: np.ndarray, take: np.ndarray, x: np.ndarray, z: np.ndarray) -> None:
    """``out[:] = np.where(take, x, z)`` for float64 arrays, bit for bit, as a bitwise select
    (``z ^ ((x ^ z) & mask)``), which is several times faster than ``np.where``."""
    mask = take.astype(np.uint64)
    np.negative(mask, out=mask)  # True -> all bits set
    zu, o = z.view(np.uint64), out.view(np.uint64)
    np.bitwise_xor(x.view(np.uint64), zu, out=o)
    np.bitwise_and(o, mask, out=o)
    np.bitwise_xor(o, zu, out=o)


def _feature_values(x: pd.DataFrame, all_float: Optional[bool] = None) -> np.ndarray:
    """``"<name>=<as.character(value)>"`` for every cell of x, shape (rows, features).

    Doubles print as R prints them (15 significant digits, :func:`r_as_character`), integers
    plainly, categories by their label. ``all_float``: whether every column is float64, where the
    caller knows (points checked by :func:`check_x_interest` have the data's dtypes)."""
    from ._algorithms.rformat import r_as_character

    if all_float is None:
        all_float = all(dt == np.float64 for dt in x.dtypes)
    if all_float:  # one call for the whole frame
        vals = np.asarray(r_as_character(x.to_numpy(dtype=float).ravel()), dtype=object).reshape(x.shape)
        return np.asarray([f"{c}=" for c in x.columns], dtype=object)[None, :] + vals
    out = np.empty(x.shape, dtype=object)
    dbl = [j for j, dt in enumerate(x.dtypes) if pd.api.types.is_float_dtype(dt)]
    if dbl:
        out[:, dbl] = np.asarray(r_as_character(x.iloc[:, dbl].to_numpy(dtype=float)), dtype=object)
    for j, (c, dt) in enumerate(zip(x.columns, x.dtypes)):
        if j not in dbl:
            col = x[c]
            vals = r_as_character(col.to_numpy()) if pd.api.types.is_integer_dtype(dt) else col.astype(str).to_numpy()
            out[:, j] = np.asarray(vals, dtype=object)
        out[:, j] = c + "=" + out[:, j]
    return out


def row_labels(rows) -> pd.Index:
    """The row labels of points given as a frame, or a row given as a Series (its name), for
    results that keep them (``predict``); 0 for an unnamed Series."""
    if isinstance(rows, pd.Series):
        return pd.Index([0 if rows.name is None else rows.name])
    return rows.index


def check_x_interest(data, x_interest, argument: str = "x_interest", allow_missing: bool = False) -> pd.DataFrame:
    """Validate points of interest against the data and return them as a clean frame.

    Target columns are dropped (as iml does); the remaining columns are matched by name
    (missing features raise, extra columns are dropped with a warning — iml's ``match_cols``);
    missing values, categories the data never had and non-integral values of integer
    features raise ``ValueError``. The input is not modified.

    Parameters
    ----------
    allow_missing : bool, default False
        Accept missing values (for TreeSurrogate's ``predict``, whose tree routes them). An
        integer feature with missing values is returned as float64, a bool one as object.

    Returns
    -------
    pandas.DataFrame
        The feature columns in data order with the data's dtypes, index 0..n-1.
    """
    if isinstance(x_interest, pd.Series):
        x_interest = x_interest.to_frame().T
    if not isinstance(x_interest, pd.DataFrame):
        raise TypeError(f"{argument} must be a pandas DataFrame (one row per point), not {type(x_interest).__name__}")
    names = data.feature_names
    # all-float data given with exactly the feature columns, all numpy numbers that share float64
    # (float64 or float32 columns, integer columns next to a float one): nothing to match, and the
    # values are those the general path converts them to (one array: no per-column dtype look-up)
    vals = x_interest.to_numpy() if data.all_float and list(x_interest.columns) == list(names) else None
    plain = vals is not None and vals.dtype == np.float64
    if plain:
        arr = np.array(vals, dtype=float, copy=True)
        x = pd.DataFrame(arr, columns=data.feature_index.copy(), copy=False)   # (a prebuilt Index: 20 us less)
        isna = np.isnan(arr)
    else:
        drop = [c for c in (data.y_names or []) if c in x_interest.columns]
        x = data.match_cols(x_interest.drop(columns=drop) if drop else x_interest, argument=argument)
        isna = x.isna().to_numpy()
    if len(x) == 0:
        raise ValueError(f"{argument} has no rows: pass at least one row to "
                         f"{'explain' if argument == 'x_interest' else 'predict'}")
    na = [c for c, bad in zip(x.columns, isna.any(axis=0)) if bad] if isna.any() else []
    if na and not allow_missing:
        raise ValueError(f"{argument} has missing values in column(s) {na}: every feature needs a value")
    if plain:
        return x
    out = {}
    for j, (c, dt) in enumerate(zip(data.feature_names, x.dtypes)):
        kind = data.feature_types[c]
        src_dt = data.X[c].dtype
        v = x[c]
        miss = isna[:, j]
        if kind == "categorical":
            level_list = data.levels(c)
            levels = set(level_list)
            vals = v.tolist()
            bad = list(dict.fromkeys(a for a, m in zip(vals, miss) if not m and a not in levels))
            if bad:
                text = any(isinstance(a, str) for a in bad) and not any(isinstance(a, str) for a in level_list)
                raise ValueError(
                    f"{argument}: column {c!r} has value(s) {shown(bad[:5])} that are not categories of the data "
                    f"({shown(level_list)})" + (
                        ": the levels are not text; pass values of the data's type" if text else "")
                )
            # missing strings or bools stay missing (np.asarray would make NaN True)
            kept = np.array([None if m else a for a, m in zip(vals, miss)], dtype=object)
            if isinstance(src_dt, pd.CategoricalDtype):
                out[c] = pd.Categorical(vals, dtype=src_dt)
            elif isinstance(src_dt, pd.api.extensions.ExtensionDtype):  # string, boolean: pd.NA if missing
                out[c] = extension_values(kept, src_dt, len(vals))
            else:
                out[c] = kept if miss.any() else np.asarray(vals, dtype=src_dt)
        elif dt == src_dt:
            out[c] = v.array.copy() if isinstance(src_dt, pd.api.extensions.ExtensionDtype) else v.to_numpy()
        else:
            if not (pd.api.types.is_numeric_dtype(dt) or dt == object) or pd.api.types.is_bool_dtype(dt) or (
                    dt == object and any(isinstance(a, (str, bytes, bool, np.bool_)) for a in v.tolist())):
                raise TypeError(f"{argument}: column {shown(c)} must be numeric like the data, got dtype {dt} "
                                f"with values {shown(v.tolist()[:3])}: pass numbers, e.g. x[{shown(c)}].astype(float)")
            try:
                num = pd.to_numeric(v).to_numpy(dtype=float, na_value=np.nan)
            except (TypeError, ValueError):
                raise TypeError(f"{argument}: column {c!r} must be numeric like the data") from None
            if kind == "integer" and not np.all(num[~miss] == np.round(num[~miss])):
                raise ValueError(f"{argument}: column {shown(c)} is an integer feature but got non-integer values")
            if isinstance(src_dt, pd.api.extensions.ExtensionDtype):  # Int64, Float64: pd.NA if missing
                out[c] = extension_values(np.where(miss, None, num).astype(object), src_dt, len(num))
            elif kind == "integer":
                out[c] = num if miss.any() else _in_range(num, src_dt if pd.api.types.is_integer_dtype(src_dt)
                                                          else np.int64)
            else:
                out[c] = _in_range(num, src_dt)
    return pd.DataFrame(out)  # in feature order (columns= would make pandas 1.5 convert each column to objects)


def _in_range(num: np.ndarray, dtype) -> np.ndarray:
    """Float values ``num`` in the data's numpy ``dtype``, or, where that dtype cannot hold them
    (-1 or 300 for uint8, 1e39 for float32), in int64 / float64: a cast would wrap them around
    or overflow them to inf, silently explaining another point."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if num.size and (num.min() < info.min or num.max() > info.max):
            i64 = np.iinfo(np.int64)
            return num.astype(np.int64) if num.min() >= i64.min and num.max() <= i64.max else num
        return num.astype(dtype)
    with np.errstate(over="ignore"):
        out = num.astype(dtype)
    return num if np.any(np.isinf(out) & np.isfinite(num)) else out


def _encode_rows(data, x: pd.DataFrame) -> dict:
    """Rows of ``x`` encoded like :meth:`pyiml.data.Data.encoded` (category codes, values)."""
    if data.all_float:  # one conversion instead of a Series per column
        arr = x.to_numpy(dtype=float)
        return {c: arr[:, j] for j, c in enumerate(data.feature_names)}
    enc = {}
    for c in data.feature_names:
        col = x[c]
        enc[c] = col.cat.codes.to_numpy() if isinstance(col.dtype, pd.CategoricalDtype) else col.to_numpy()
    return enc


# ---------------------------------------------------------------------------- Shapley
class Shapley(InterpretationMethod):
    """Shapley values of the prediction of one (or several) points of interest.

    R equivalent: ``iml::Shapley$new(predictor, x.interest = NULL, sample.size = 100)`` and
    ``$explain(x.interest)``.

    For ``m = 1..sample_size``: a random order of the features and a random row ``z`` of a
    background sample (``sample_size`` data rows drawn with replacement); feature j's
    contribution is ``f(x on j and the features before it, z elsewhere) - f(the same without
    j)``. ``phi`` is the mean contribution, ``phi.var`` its variance.

    Parameters
    ----------
    predictor : Predictor
    x_interest : pandas.DataFrame, optional
        The point(s) to explain. Columns are matched by name (iml matches by position); target
        columns are ignored, other extra columns dropped with a warning. Several rows are
        explained in one vectorised pass; the results then carry a ``.id`` column (1-based row
        of ``x_interest``). Without ``x_interest`` the object has no results until
        :meth:`explain`.
    sample_size : int, default 100
        Monte-Carlo samples per point (R: ``sample.size``).
    random_state : None, int, numpy.random.Generator or RRandom
        With :class:`pyiml.RRandom` every draw follows R's session generator exactly (the
        background sample, then per sample a feature order and a background row), so results
        equal iml's after ``set.seed``; several rows equal successive ``explain()`` calls in R.
        The source is kept: later :meth:`explain` calls continue it, as R's session does.
    n_jobs : int or None, default 1
        Threads over rows of ``x_interest``, used only when the predictor's ``batch_size`` is at
        least 10 000 rows with a full model call per thread and kept only where they are measured to
        pay (see docs/differences.md); results do not depend on it.
    progress : bool, default False
        Show a tqdm progress bar.

    Attributes
    ----------
    results : pandas.DataFrame or None
        iml's columns ``feature, phi, phi.var, feature.value``; for several outputs
        ``feature, class, phi, phi.var, feature.value`` (``class`` without a dot, as iml), rows
        class-major with features in data order; ``.id`` first when x_interest has several rows.
    contributions : numpy.ndarray or None
        The raw draws, shape (rows, sample_size, features, outputs): every sample's
        contribution; ``phi`` and ``phi.var`` are their mean and variance.
    x_interest : pandas.DataFrame or None
    y_hat_interest : float or pandas.DataFrame
        Prediction of the point (a float for one row and one output, else a frame).
    y_hat_average : float or pandas.Series
        Mean prediction over the data (R: ``colMeans``).
    sample_size : int

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"a": np.arange(10.0), "b": np.ones(10)})
    >>> p = Predictor(predict_function=lambda d: 2 * d["a"].to_numpy(), data=X)
    >>> sh = Shapley(p, X.iloc[[9]], sample_size=50, random_state=1)
    >>> sh.results[["feature", "phi"]].round(6).values.tolist()  # linear model: 2 * (9 - z_a)
    [['a', 9.52], ['b', 0.0]]
    """

    def __init__(self, predictor: Predictor, x_interest: Optional[pd.DataFrame] = None, sample_size: int = 100, *,
                 random_state=None, n_jobs: int = 1, progress: bool = False):
        sample_size = check_int(sample_size, "sample_size", 1)
        super().__init__(predictor)
        self.sample_size = sample_size
        self.n_jobs = check_n_jobs(n_jobs)
        self.progress = check_bool(progress, "progress")
        self._rs = as_random_source(random_state)
        self.x_interest: Optional[pd.DataFrame] = None
        self.y_hat_interest = None
        self.y_hat_average = None
        self.contributions: Optional[np.ndarray] = None
        self._avg: Optional[np.ndarray] = None
        if x_interest is not None:
            self.explain(x_interest)

    def explain(self, x_interest: pd.DataFrame) -> "Shapley":
        """Explain new point(s) of interest (R: ``$explain(x.interest)``); returns self."""
        x = check_x_interest(self.sampler, x_interest)
        with self._all_or_nothing():   # a failing model leaves the previous point's results
            self._flush()
            self.x_interest = x
            self._run()
        self._warn_if_model_draws(self._rs)
        return self

    # ------------------------------------------------------------------ run
    def _draws(self, n_points: int):
        """Background rows (R, M), feature ranks (R, M, p) and chosen background samples (R, M).

        ``rank[r, m, k]`` is the position of feature k in sample m's feature order. Under
        :class:`~pyiml.RRandom` the orders are drawn as iml draws them and inverted; a numpy
        source draws the ranks directly (the inverse of a uniform permutation is uniform)."""
        rs, N, M, p = self._rs, self.sampler.n_rows, self.sample_size, self.sampler.n_features
        if rs.r_exact:
            bg = np.empty((n_points, M), dtype=np.intp)
            orders = np.empty((n_points, M, p), dtype=np.intp)
            zsel = np.empty((n_points, M), dtype=np.intp)
            for r in range(n_points):  # iml: sample(n), then per m: sample(1:p), sample(1:M, 1)
                bg[r] = rs.choice(N, M, replace=True)
                for m in range(M):
                    orders[r, m] = rs.permutation(p)
                    zsel[r, m] = rs.choice(M, 1)[0]
            return bg, np.argsort(orders, axis=2), zsel
        bg = np.asarray(rs.choice(N, n_points * M, replace=True), dtype=np.intp).reshape(n_points, M)
        rank = np.asarray(rs.permutations(p, n_points * M), dtype=np.intp).reshape(n_points, M, p)
        zsel = np.asarray(rs.choice(M, n_points * M, replace=True), dtype=np.intp).reshape(n_points, M)
        return bg, rank, zsel

    def _run(self, force: bool = False) -> None:
        data = self.sampler
        x = self.x_interest
        n_points, M, p = len(x), self.sample_size, data.n_features
        bg, rank, zsel = self._draws(n_points)
        zrow = bg[np.arange(n_points)[:, None], zsel]  # (R, M) data row of each sample's z
        xenc = _encode_rows(data, x)
        bs = self.predictor.batch_size
        ranges, workers = plan_chunks(n_points, M * p + 1, bs, self.n_jobs, self.progress, "Shapley", self.predictor)
        chunks = [np.arange(c.start, c.stop) for c in ranges]
        parts = map_items(lambda rows: self._contributions(rows, rank, zrow, xenc), chunks, workers, bs,
                          self.progress, "Shapley", key=self.predictor)
        if len(parts) == 1:
            diff, y_x = parts[0]
        else:
            diff = np.concatenate([d for d, _ in parts], axis=0)
            y_x = np.concatenate([px for _, px in parts], axis=0)
        self.contributions = diff
        self._multiclass = diff.shape[3] > 1
        outputs = list(self.predictor.output_names)
        with np.errstate(invalid="ignore"):   # infinite predictions give NaN phi and variances, as in R
            self._set_predictions(y_x, outputs)
            self.results = self._aggregate_results(diff, outputs)
        self._finished = True

    def _contributions(self, rows: np.ndarray, rank, zrow, xenc):
        """Contributions (len(rows), M, p, k) and predictions of the points (len(rows), k).

        Per sample only p + 1 distinct rows exist — the chain from z (t = 0 features of x)
        to x (t = p): feature k's "with" row is chain[rank_k + 1] and its "without" row
        chain[rank_k] — so p rows per sample plus x once are predicted instead of iml's 2p.
        The design holds chain row t of every sample, for t = 0..p-1 in turn (so each step of
        building it runs over all samples at once), then the points themselves.
        """
        data = self.sampler
        names = data.feature_names
        enc = data.encoded()
        M, p = self.sample_size, data.n_features
        Rc = len(rows)
        S = Rc * M
        rkT = np.ascontiguousarray(rank[rows].reshape(S, p).T)  # (feature, sample)
        zr = zrow[rows].reshape(S)
        pts = np.repeat(rows, M)  # the point of interest of each sample
        n_chain = S * p
        fast = data.all_float
        at_once = fast and n_chain * p <= _SELECT_AT_ONCE   # (the whole chain in one selection, if in one batch)
        if fast:  # (feature, sample) values of x and of z
            xs = np.vstack([xenc[c][pts] for c in names])
            zs = np.vstack([enc[c][zr] for c in names])
            xs_flat = xs.reshape(-1)
        else:
            xs = [xenc[c][pts] for c in names]
            zs = [enc[c][zr] for c in names]
        order: Optional[np.ndarray] = None

        def positions() -> np.ndarray:
            """[t, s]: the feature at position t of sample s (made when a chain is first built row by row)."""
            nonlocal order
            if order is None:
                order = np.empty((p, S), dtype=np.intp)
                np.put_along_axis(order, rkT, np.arange(p)[:, None], axis=0)
            return order

        def make(s: int, e: int):
            # (a point's value may need a wider dtype than the data's: -1 for a uint8 feature)
            dst = np.empty((p, e - s)) if fast else [np.empty(e - s, dtype=np.result_type(enc[c], xenc[c]))
                                                     for c in names]
            pos, prev = s, None
            if at_once and s == 0 and e >= n_chain:
                # the whole chain of few samples in one selection (row t of sample a: x on the
                # features ranked before t); larger chains go row by row below, each row copied from
                # the one before with one feature switched (less memory traffic than a full select)
                take_x = rkT[:, None, :] < np.arange(p)[None, :, None]        # (feature, t, sample)
                dst[:, :n_chain] = np.where(take_x, xs[:, None, :], zs[:, None, :]).reshape(p, n_chain)
                pos = n_chain
            while pos < min(e, n_chain):  # chain row t of samples a..b-1: x on features ranked before t
                t, a = divmod(pos, S)
                b = min(S, a + min(e, n_chain) - pos)
                lo = pos - s
                at = slice(lo, lo + b - a)
                if not fast:
                    take_x = rkT[:, a:b] < t
                    for j in range(p):
                        dst[j][at] = np.where(take_x[j], xs[j][a:b], zs[j][a:b])
                elif t == 0:
                    dst[:, at] = zs[:, a:b]
                elif prev is not None and prev[1:] == (a, b):
                    # row t is row t - 1 with the feature at position t - 1 switched to x
                    dst[:, at] = dst[:, prev[0]]
                    f = positions()[t - 1, a:b]
                    dst.reshape(-1)[f * (e - s) + np.arange(lo, lo + b - a)] = xs_flat[f * S + np.arange(a, b)]
                else:
                    _select_into(dst[:, at], rkT[:, a:b] < t, xs[:, a:b], zs[:, a:b])
                prev = (at, a, b)
                pos += b - a
            if e > n_chain:  # the points themselves
                lo = max(s, n_chain)
                idx = rows[np.arange(lo, e) - n_chain]
                for j, c in enumerate(names):
                    dst[j][lo - s:] = xenc[c][idx]
            if fast:
                return pd.DataFrame(dst.T, columns=data.feature_index, copy=False)
            return data.decode_frame(dict(zip(names, dst)))

        P = self.predictor.predict_batched(n_chain + Rc, make)
        K = P.shape[1]
        chain = P[:n_chain].reshape(p, S, K)  # (chain row t, sample, class)
        px = P[n_chain:]
        step = np.empty((p, S, K))  # step t: the change when the feature at position t joins
        with np.errstate(invalid="ignore"):   # inf - inf (a model infinite at an infinite x_interest) is NaN, as in R
            np.subtract(chain[1:], chain[:-1], out=step[:p - 1])
            np.subtract(np.repeat(px, M, axis=0), chain[p - 1], out=step[p - 1])
        diff = step[rkT[:, :, None], np.arange(S)[None, :, None], np.arange(K)]  # (feature, sample, class)
        return diff.transpose(1, 0, 2).reshape(Rc, M, p, K), px

    def _set_predictions(self, y_x: np.ndarray, outputs: List[str]) -> None:
        key = self._class_key()
        if self._avg is None or getattr(self, "_avg_key", None) != key:   # (re-predicted after a class_ change)
            X = self.sampler.X
            P = self.predictor.predict_batched(len(X), lambda s, e: X.iloc[s:e])
            # R's colMeans (a sequential long-double sum, 6-8 ns a value) where the draws are R's; numpy's
            # pairwise mean otherwise (the same up to an ulp or two, and 10 times faster)
            self._avg = r_colMeans(P) if self._rs.r_exact else P.mean(axis=0)
            self._avg_key = key
        single = len(outputs) == 1
        self.y_hat_average = float(self._avg[0]) if single else pd.Series(self._avg, index=outputs)
        if single and len(y_x) == 1:
            self.y_hat_interest = float(y_x[0, 0])
        else:
            self.y_hat_interest = pd.DataFrame(y_x, columns=outputs)

    def _aggregate_results(self, diff: np.ndarray, outputs: List[str]) -> pd.DataFrame:
        data = self.sampler
        n_points, M, p, K = diff.shape
        v = np.ascontiguousarray(diff.transpose(1, 0, 3, 2)).reshape(M, -1)  # (M, R*K*p): r, class, feature
        phi = _dt_mean(v).reshape(n_points, K, p)
        var = _dt_var(v, exact=self._rs.r_exact).reshape(n_points, K, p)
        names = data.feature_names
        values = _feature_values(self.x_interest, data.all_float)  # (R, p)
        cols = {}
        if n_points > 1:
            cols[".id"] = np.repeat(np.arange(1, n_points + 1), K * p)
        cols["feature"] = np.tile(np.asarray(names, dtype=object), n_points * K)
        if K > 1:
            cols["class"] = pd.Categorical(np.tile(np.repeat(outputs, p), n_points), categories=outputs)
        cols["phi"] = phi.ravel()
        cols["phi.var"] = var.ravel()
        cols["feature.value"] = np.repeat(values[:, None, :], K, axis=1).ravel()
        return pd.DataFrame(cols, copy=False)

    # ------------------------------------------------------------------ public
    def _params_repr(self) -> list:
        from ._algorithms.rprint import r_sprintf_f as f

        a, b = self.y_hat_interest, self.y_hat_average
        if isinstance(a, float) and isinstance(b, float):
            return [f"Predicted value: {f(a)}, Average prediction: {f(b)} (diff = {f(a - b)})"]
        if isinstance(a, pd.DataFrame) and len(a) == 1 and isinstance(b, pd.Series):
            # several outputs: R's vectorised sprintf, the classes' lines joined by cat's space
            return [" ".join(f"Predicted value: {f(u)}, Average prediction: {f(v)} (diff = {f(u - v)})"
                             for u, v in zip(a.iloc[0].to_numpy(dtype=float), b.to_numpy(dtype=float)))]
        return []

    def plot(self, sort: bool = True, id: Optional[int] = None):
        """iml's plot: a horizontal bar of ``phi`` per ``feature.value``.

        R equivalent: ``plot(<Shapley>, sort = TRUE)``. With several explained rows, ``id``
        (1-based, the ``.id`` column: a whole number in 1..rows) chooses the row; default the
        first. Returns a matplotlib Figure.
        """
        return super().plot(sort=check_bool(sort, "sort"), id=id)

    def _plot(self, sort: bool = True, id: Optional[int] = None):
        from .plotting.shapley import plot_shapley

        res = self.results
        y_int, y_avg = self.y_hat_interest, self.y_hat_average
        n_points = len(self.x_interest)
        if id is not None and (isinstance(id, (bool, np.bool_)) or not isinstance(id, (int, np.integer))):
            raise TypeError(f"id must be a whole number between 1 and {n_points} (the row's .id), got {shown(id)}")
        if id is not None and not 1 <= id <= n_points:
            raise ValueError(f"id must be between 1 and {n_points} (the row's .id, 1-based), got {shown(id)}")
        if ".id" in res.columns:
            i = 1 if id is None else int(id)
            res = res[res[".id"] == i].drop(columns=".id").reset_index(drop=True)
            if not self._multiclass:
                y_int = float(self.y_hat_interest.iloc[i - 1, 0])
        elif isinstance(y_int, pd.DataFrame) and not self._multiclass:
            y_int = float(y_int.iloc[0, 0])
        return plot_shapley(res, multiclass=self._multiclass, y_hat_interest=y_int, y_hat_average=y_avg, sort=sort)
