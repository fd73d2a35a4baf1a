"""``FeatureImp``: permutation feature importance.

R equivalent: ``iml::FeatureImp`` (iml 0.11.4, spec §8). The model error after permuting a
feature (or a group of features) is compared with the error on the data as it is.

This module also holds the small design-matrix and R-arithmetic helpers that FeatureImp,
Shapley and Interaction share (:func:`_gather_design`, :func:`_seq_sum`, :func:`_r_col_means`,
:func:`_map`).
"""
from __future__ import annotations

import numbers
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List, Literal, Optional, Union

import numpy as np
import pandas as pd

from ._algorithms.rstats import r_median, r_quantile
from ._base import InterpretationMethod
from .losses import LABEL_LOSSES, get_loss
from .predictor import Predictor
from .random import as_random_source

__all__ = ["FeatureImp"]

Compare = Literal["ratio", "difference"]
On = Literal["label", "prob"]

_LD = np.longdouble


# ---------------------------------------------------------------------------- shared helpers
def _gather_design(data, base: Dict[str, np.ndarray], src: Dict[str, Union[np.ndarray, range]],
                   patches: Optional[Dict[str, list]] = None) -> pd.DataFrame:
    """Design frame whose column ``c`` is ``base[c][src[c]]``.

    ``base`` maps every feature to its encoded values (:meth:`pyiml.data.Data.encoded`, possibly
    with extra rows such as a point of interest appended); ``src`` maps every feature to the row
    indices to take, either an index array or a ``range(start, stop)`` meaning rows
    ``start..stop-1`` modulo ``len(base[c])`` (the data repeated in order, copied without
    index arithmetic); ``patches`` optionally maps a feature to ``(lo, hi, idx)`` triples: rows
    ``lo:hi`` of that column take ``base[c][idx]`` instead (when ``idx`` is shorter than
    ``hi - lo``, the rows form ``len(idx)`` equal blocks, block k taking ``base[c][idx[k]]``;
    a scalar ``idx`` sets them all). When every feature is float64 the
    frame is built from one 2-D block (about seven times faster than a frame built column by
    column); otherwise through :meth:`pyiml.data.Data.decode_frame`, which restores
    categorical dtypes.
    """
    names = data.feature_names
    patches = patches or {}
    m = len(src[names[0]])
    fast = _all_float(data)
    mat = np.empty((len(names), m)) if fast else None
    cols = list(mat) if fast else [np.empty(m, dtype=base[c].dtype) for c in names]
    for j, c in enumerate(names):
        s, col = src[c], base[c]
        for g0, g1 in _gaps(m, patches.get(c, ())):  # rows no patch overwrites
            if isinstance(s, range):
                if fast:
                    _fill_cyclic(cols[j][g0:g1], col, s.start + g0, s.start + g1)
                else:
                    cols[j][g0:g1] = col[np.arange(s.start + g0, s.start + g1) % len(col)]
            elif fast:
                np.take(col, s[g0:g1], out=cols[j][g0:g1], mode="clip")  # "clip": no buffered bounds check
            else:
                cols[j][g0:g1] = col[s[g0:g1]]
    for j, c in enumerate(names):
        for lo, hi, idx in patches.get(c, ()):
            vals = base[c][idx]
            if np.ndim(vals) == 0 or len(vals) == hi - lo:
                cols[j][lo:hi] = vals
            else:  # len(idx) equal blocks of rows, each one value
                cols[j][lo:hi].reshape(len(vals), -1)[:] = vals[:, None]
    if _all_float(data):
        return pd.DataFrame(mat.T, columns=names, copy=False)
    return data.decode_frame(dict(zip(names, cols)))


def _gaps(m: int, patches) -> list:
    """The row ranges of ``0..m`` that no ``(lo, hi, idx)`` patch covers."""
    out, pos = [], 0
    for lo, hi, _ in sorted(patches, key=lambda t: t[0]):
        if lo > pos:
            out.append((pos, lo))
        pos = max(pos, hi)
    if pos < m:
        out.append((pos, m))
    return out


def _fill_cyclic(out: np.ndarray, col: np.ndarray, start: int, stop: int) -> None:
    """``out[:] = col[np.arange(start, stop) % len(col)]`` by slice copies."""
    n = len(col)
    pos, i = 0, start
    k = i % n
    if k:  # the rest of a cycle
        take = min(n - k, stop - i)
        out[:take] = col[k:k + take]
        pos, i = take, i + take
    full = (stop - i) // n
    if full:
        out[pos:pos + full * n].reshape(full, n)[:] = col
        pos, i = pos + full * n, i + full * n
    if i < stop:
        out[pos:] = col[:stop - i]


def _all_float(data) -> bool:
    flag = getattr(data, "_pyiml_all_float", None)
    if flag is None:
        flag = all(data.X[c].dtype == np.float64 for c in data.feature_names)
        try:
            data._pyiml_all_float = flag
        except AttributeError:  # pragma: no cover - Data without __dict__
            pass
    return flag


def _seq_sum(v: np.ndarray) -> np.ndarray:
    """Sum down axis 0, strictly in row order, in ``v``'s dtype (R's sequential ``sum``).

    numpy's ``sum`` may add pairwise; R adds one value after the other."""
    if v.shape[0] == 0:
        return np.zeros(v.shape[1:], dtype=v.dtype)
    if v.shape[0] > 256 or v[0].size < 32:  # long or narrow: one cumulative sum
        return np.cumsum(v, axis=0)[-1]
    s = v[0].copy()
    for row in v[1:]:
        s += row
    return s


def _r_col_means(m: np.ndarray) -> np.ndarray:
    """R's ``colMeans`` of an (n, k) matrix: sequential long-double sum divided by n."""
    m = np.asarray(m, dtype=float)
    if m.shape[0] == 0:
        return np.full(m.shape[1:], np.nan)
    return (_seq_sum(m.astype(_LD)) / m.shape[0]).astype(float)


def _check_n_jobs(n_jobs) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1 (all cores), got {n_jobs!r}")
    return _cpus() if n_jobs == -1 else int(n_jobs)


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


#: Threads only pay when model calls are large enough for numpy models to release the GIL for
#: most of the time; with smaller batches the per-call Python work (building frames) dominates
#: and threads would be slower than one.
THREAD_MIN_BATCH = 10_000

#: Design rows per unit of parallel work (model calls within it are still at most batch_size rows).
_CHUNK_ROWS = 50_000


def _chunks(n_items: int, rows_per_item: int, batch_size: int, n_jobs: int, progress: bool) -> List[range]:
    """Split ``n_items`` work items (groups, points) into consecutive chunks.

    A chunk holds about ``max(batch_size, 50 000)`` design rows, so that model calls are full;
    with threads at least one chunk per thread, with a progress bar at most 1/20 of the items.
    Results never depend on the chunking.
    """
    per = max(1, max(batch_size, _CHUNK_ROWS) // max(1, rows_per_item))
    if n_jobs > 1:
        per = min(per, -(-n_items // n_jobs))
    if progress:
        per = min(per, max(1, n_items // 20))
    return [range(i, min(i + per, n_items)) for i in range(0, n_items, per)]


def _map(fn: Callable, items: list, n_jobs: int, batch_size: int, progress: bool, desc: str) -> list:
    """``[fn(x) for x in items]``, with an optional tqdm bar, on up to ``n_jobs`` threads.

    Threads are used only when they can pay: several items, several usable CPUs and model calls
    of at least :data:`THREAD_MIN_BATCH` rows. The results do not depend on it: every item
    carries its own random draws.
    """
    workers = 1
    if n_jobs > 1 and len(items) > 1 and batch_size >= THREAD_MIN_BATCH:
        workers = min(n_jobs, len(items), _cpus())
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=desc)

    def run(x):
        out = fn(x)
        if bar is not None:
            bar.update(1)
        return out

    try:
        if workers <= 1:
            return [run(x) for x in items]
        with ThreadPoolExecutor(max_workers=workers) as ex:
            return list(ex.map(run, items))
    finally:
        if bar is not None:
            bar.close()


def _label_strings(values) -> np.ndarray:
    """Target values as the class labels R compares them with (``as.character``)."""
    s = pd.Series(values)
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.map(str).to_numpy(dtype=object)
    if pd.api.types.is_numeric_dtype(s.dtype):
        from ._algorithms.rformat import r_as_character

        return np.asarray(r_as_character(s.to_numpy()), dtype=object)
    return s.astype(str).to_numpy(dtype=object)


def _check_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or value != int(value) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------- FeatureImp
class FeatureImp(InterpretationMethod):
    """Permutation feature importance.

    R equivalent: ``iml::FeatureImp$new(predictor, loss, compare = "ratio", n.repetitions = 5,
    features = NULL)``.

    For every feature (or group of features) the feature's values are permuted
    ``n_repetitions`` times and the model error on the permuted data is compared with the
    error on the original data: ``error / original_error`` (``compare="ratio"``) or
    ``error - original_error`` (``"difference"``).

    Parameters
    ----------
    predictor : Predictor
        The model and data; must have been created with the target ``y``.
    loss : str or callable
        One of the 15 names of :data:`pyiml.losses.LOSSES` ("ce", "f1", "logLoss", "mae",
        "mse", "rmse", "mape", "mdae", "msle", "percent_bias", "rae", "rmsle", "rse", "rrse",
        "smape"; R's ``Metrics`` definitions) or a function ``loss(actual, predicted) -> float``.
    compare : {"ratio", "difference"}, default "ratio"
        As in iml; when the original error is 0 a ratio is undefined and iml (and pyiml)
        switches to "difference" with a warning.
    n_repetitions : int, default 5
        Permutations per feature.
    features : None, list of str or dict, optional
        None: every feature. A list of feature names: those features. A dict
        ``{name: [columns]}``: groups of features permuted together, reported under ``name``
        (iml's named list).
    on : {"label", "prob"}, default "label"
        What the loss compares for a model with several outputs. "label" is iml's behaviour:
        each row's prediction becomes the label of the output with the highest value (the
        first on ties; ``probs.to.labels``), so use a label loss such as "ce". "prob" (pyiml
        only) keeps the probabilities and compares them with the one-hot encoded target:
        named losses get the flattened ``(n * k,)`` arrays (for one output column simply the
        per-row probabilities, e.g. ``loss="logLoss"`` on a binary classifier's
        ``class_="yes"`` column), a callable gets ``(n, k)`` arrays so it can compute e.g. the
        multinomial log loss.
    random_state : None, int, numpy.random.Generator or RRandom
        With :class:`pyiml.RRandom` the permutations are R's after ``set.seed`` (each group
        draws from its own L'Ecuyer stream, as ``future.apply(future.seed = TRUE)`` does), so
        the results equal iml's to the last bits.
    n_jobs : int, default 1
        Threads over feature groups (-1: all cores). Results do not depend on it.
    progress : bool, default False
        Show a tqdm progress bar.

    Attributes
    ----------
    results : pandas.DataFrame
        iml's columns ``feature, importance.05, importance, importance.95,
        permutation.error``, one row per group, sorted by ``importance`` (descending, ties in
        group order). ``importance`` is the median over the repetitions, the ``.05`` / ``.95``
        columns R's type-7 quantiles, ``permutation.error`` the median error.
    errors : pandas.DataFrame
        The raw draws: ``feature, repetition, permutation.error`` for every repetition;
        ``results`` is derived from it.
    original_error : float
        The loss on the unpermuted data.
    loss : callable
        The loss function; ``loss_name`` its label (the name, or a function's ``__name__``).
    compare, n_repetitions, features, on

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"a": np.arange(20.0), "b": np.zeros(20)})
    >>> p = Predictor(predict_function=lambda d: 2 * d["a"].to_numpy(), data=X, y=2 * X["a"] + 1)
    >>> fi = FeatureImp(p, loss="mae", random_state=1)
    >>> list(fi.results["feature"])
    ['a', 'b']
    """

    def __init__(self, predictor: Predictor, loss: Union[str, Callable], compare: Compare = "ratio",
                 n_repetitions: int = 5, features=None, *, on: On = "label", random_state=None, n_jobs: int = 1,
                 progress: bool = False):
        if compare not in ("ratio", "difference"):
            raise ValueError(f"compare must be 'ratio' or 'difference', got {compare!r}")
        n_repetitions = _check_int(n_repetitions, "n_repetitions", 1)
        loss_fn, loss_name = get_loss(loss)
        if on not in ("label", "prob"):
            raise ValueError(f"on must be 'label' (iml: losses on predicted labels) or 'prob', got {on!r}")
        if isinstance(predictor, Predictor) and predictor.data.y is None:
            raise ValueError(
                "Please call Predictor() with the y target vector: FeatureImp needs the true values, e.g. "
                "Predictor(model, data=df, y='target') or Predictor(model, data=X, y=y_values)"
            )
        super().__init__(predictor)
        self.n_jobs = _check_n_jobs(n_jobs)
        self.progress = bool(progress)
        self.compare = compare
        self.n_repetitions = n_repetitions
        self.loss = loss_fn
        self.loss_name = loss_name
        self.on = on
        self._named_loss = isinstance(loss, str)
        self._rs = as_random_source(random_state)

        self.features: Dict[str, List[str]] = self._check_features(features)
        data = self.sampler
        n = data.n_rows
        preds = predictor.predict_batched(n, lambda s, e: data.X.iloc[s:e])
        self._multiclass = preds.shape[1] > 1
        self._outputs = list(predictor.output_names)
        self._actual = self._prepare_actual(data.y.iloc[:, 0])
        self.original_error = float(self.loss(self._loss_actual(np.arange(n)), self._q(preds)))
        if self.original_error == 0 and self.compare == "ratio":
            warnings.warn("Model error is 0, switching from compare='ratio' to compare='difference'",
                          UserWarning, stacklevel=2)
            self.compare = "difference"
        self.errors: Optional[pd.DataFrame] = None
        self._run()

    # ------------------------------------------------------------------ set-up
    def _prepare_actual(self, y: pd.Series):
        """The ``actual`` argument of the loss (unpermuted)."""
        numeric = pd.api.types.is_numeric_dtype(y.dtype) and not pd.api.types.is_bool_dtype(y.dtype)
        if self.on == "prob" and not (numeric and len(self._outputs) == 1):
            labels = _label_strings(y)
            onehot = (labels[:, None] == np.asarray(self._outputs, dtype=object)[None, :]).astype(float)
            if not onehot.any():
                raise ValueError(
                    f"on='prob' compares the predicted probabilities with the one-hot target, but no value of "
                    f"y ({sorted(set(labels.tolist()))[:5]}) names a prediction column ({self._outputs}); "
                    "use y with the class labels the model predicts, or on='label'"
                )
            return onehot[:, 0] if onehot.shape[1] == 1 else onehot
        if self._multiclass:
            return _label_strings(y)
        if numeric:  # with one output column: the probability against a 0/1 target, as iml does
            return y.to_numpy(dtype=float)
        if self._named_loss and self.loss_name not in LABEL_LOSSES:
            raise ValueError(
                f"loss={self.loss_name!r} needs a numeric target, but y holds labels and the model has one "
                "output column: for a classifier's probability use on='prob' (the loss then compares it "
                "with the 0/1 target), or a label loss ('ce', 'f1') on all class columns"
            )
        return _label_strings(y)

    def _q(self, preds: np.ndarray):
        """iml's ``probs.to.labels`` (on="label") or the probabilities (on="prob")."""
        if self.on == "prob":
            if preds.shape[1] == 1:
                return preds[:, 0]
            return preds.ravel() if self._named_loss else preds
        if preds.shape[1] > 1:
            return np.asarray(self._outputs, dtype=object)[np.argmax(preds, axis=1)]
        return preds[:, 0]

    def _loss_actual(self, idx: np.ndarray):
        a = self._actual[idx]
        if a.ndim == 2 and self._named_loss:
            return a.ravel()
        return a

    def _check_features(self, features) -> Dict[str, List[str]]:
        names = self.sampler.feature_names
        if features is None:
            groups = {f: [f] for f in names}
        elif isinstance(features, str):
            groups = {features: [features]}
        elif isinstance(features, dict):
            groups = {}
            for k, v in features.items():
                if not isinstance(k, str):
                    raise TypeError(f"features: group names must be strings, got {k!r}")
                cols = [v] if isinstance(v, str) else list(v)
                if not cols or not all(isinstance(c, str) for c in cols):
                    raise ValueError(f"features: group {k!r} must be a non-empty list of column names, got {v!r}")
                groups[k] = cols
        elif isinstance(features, (list, tuple, pd.Index, np.ndarray)):
            feats = list(features)
            if not all(isinstance(f, str) for f in feats):
                raise TypeError(
                    f"features must be feature names (str) or a dict of groups {{name: [columns]}}, got {feats!r}"
                )
            if len(set(feats)) != len(feats):
                raise ValueError(f"features contains duplicated names: {feats!r}")
            groups = {f: [f] for f in feats}
        else:
            raise TypeError(
                f"features must be None, a list of feature names or a dict {{group name: [columns]}}, "
                f"got {type(features).__name__}"
            )
        if not groups:
            raise ValueError("features must name at least one feature")
        unknown = sorted({c for cols in groups.values() for c in cols if c not in names})
        if unknown:
            where = [k for k, cols in groups.items() if any(c in unknown for c in cols)]
            raise ValueError(
                f"features: unknown column(s) {unknown} (in {where}); the features are {names}"
            )
        return groups

    # ------------------------------------------------------------------ run
    def _run(self, force: bool = False) -> None:
        data = self.sampler
        n, R = data.n_rows, self.n_repetitions
        groups = list(self.features.items())
        streams = self._rs.element_streams(len(groups))
        perms = [np.asarray(s.permutations(n, R), dtype=np.intp).reshape(R, n) for s in streams]
        # chunks of whole groups, each at least one group and about max(batch_size, R*n) rows
        bs = self.predictor.batch_size
        chunks = [list(c) for c in _chunks(len(groups), R * n, bs, self.n_jobs, self.progress)]
        errs = _map(lambda ch: self._chunk_errors(ch, groups, perms), chunks, self.n_jobs, bs, self.progress,
                    "FeatureImp")
        errors = np.concatenate(errs, axis=0) if errs else np.empty((0, R))
        self.errors = pd.DataFrame({
            "feature": np.repeat([g for g, _ in groups], R),
            "repetition": np.tile(np.arange(1, R + 1), len(groups)),
            "permutation.error": errors.ravel(),
        })
        self.results = self._summarise()
        self._finished = True

    def _chunk_errors(self, chunk: List[int], groups, perms) -> np.ndarray:
        """Errors (len(chunk), R) of the groups in ``chunk``.

        Under an R-exact source row i of repetition r is iml's design row: the group's columns
        from data row i, every other column and the target from row ``perm[i]``
        (MarginalGenerator with ``n.sample.dist = 1``), and the loss sees the rows in that
        order. Otherwise the group's columns come from row ``perm[i]`` and everything else from
        row i — the same rows up to their order, but the unchanged columns are copied in order
        instead of gathered at random, which is several times faster for large data.
        """
        data = self.sampler
        n, R = data.n_rows, self.n_repetitions
        names = data.feature_names
        enc = data.encoded()
        member = np.array([[c in groups[g][1] for c in names] for g in chunk], dtype=bool)
        pflat = np.concatenate([perms[g].ravel() for g in chunk])
        block = R * n
        r_order = self._rs.r_exact

        def make(s, e):
            pidx = pflat[s:e]
            rest, group = (pidx, np.arange(s, e) % n) if r_order else (range(s, e), pidx)
            patches = {}
            for j, c in enumerate(names):
                for a in np.flatnonzero(member[:, j]):  # the row blocks of groups holding c
                    lo, hi = max(s, a * block) - s, min(e, (a + 1) * block) - s
                    if lo < hi:
                        patches.setdefault(c, []).append((lo, hi, group[lo:hi]))
            return _gather_design(data, enc, dict.fromkeys(names, rest), patches)

        preds = self.predictor.predict_batched(len(pflat), make)
        out = np.empty((len(chunk), R))
        natural = np.arange(n)
        for a, _g in enumerate(chunk):
            for r in range(R):
                lo = a * block + r * n
                rows = pflat[lo:lo + n] if r_order else natural
                out[a, r] = self.loss(self._loss_actual(rows), self._q(preds[lo:lo + n]))
        return out

    def _summarise(self) -> pd.DataFrame:
        """iml's summary of :attr:`errors` (medians and type-7 quantiles per group)."""
        R = self.n_repetitions
        feats = list(self.features)
        err = self.errors["permutation.error"].to_numpy(dtype=float).reshape(len(feats), R)
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = err / self.original_error if self.compare == "ratio" else err - self.original_error
        imp = np.array([r_median(v) for v in raw])
        perr = np.array([r_median(v) for v in err])
        q = np.array([r_quantile(v, [0.05, 0.95], type=7) for v in raw]).reshape(len(feats), 2)
        order = np.argsort(-imp, kind="stable")
        res = pd.DataFrame({
            "feature": np.asarray(feats, dtype=object)[order],
            "importance.05": q[order, 0],
            "importance": imp[order],
            "importance.95": q[order, 1],
            "permutation.error": perr[order],
        })
        return res

    # ------------------------------------------------------------------ public
    def _params_repr(self) -> list:
        return [f"error function: {self.loss_name}"]

    def _plot(self, sort: bool = True):
        from .plotting.feature_imp import plot_feature_imp

        return plot_feature_imp(self.results, loss_name=self.loss_name, sort=sort)

    def plot(self, sort: bool = True):
        """iml's plot: the median importance per feature with its 5%–95% range.

        R equivalent: ``plot(<FeatureImp>, sort = TRUE)``. Returns a matplotlib Figure.
        """
        return super().plot(sort=sort)
