"""``FeatureImp``: permutation feature importance.

R equivalent: ``iml::FeatureImp`` (iml 0.11.4, spec §8). The model error after permuting a
feature (or a group of features) is compared with the error on the data as it is.

This module also holds the small design-matrix and R-arithmetic helpers that FeatureImp,
Shapley and Interaction share (:func:`gather_design`, :func:`r_seq_sum`, :func:`r_colMeans`,
:func:`_map`).
"""
from __future__ import annotations

import numbers
import threading
import warnings
from typing import Callable, Dict, List, Literal, Optional, Union

import numpy as np
import pandas as pd

from ._base import InterpretationMethod, check_bool, check_int, user_stacklevel
from .data import warn_user
from ._design import gather_design
from ._parallel import check_n_jobs, map_items, plan_chunks
from ._algorithms.rformat import r_as_character
from ._algorithms.rstats import r_median_rows, r_quantile7_rows
from .losses import FAST_ROWS, LABEL_LOSSES, comparable_labels, get_loss
from .predictor import Predictor
from .random import as_random_source
from ._text import shown

__all__ = ["FeatureImp"]

Compare = Literal["ratio", "difference"]
On = Literal["label", "prob"]



def _label_strings(values) -> np.ndarray:
    """Target values as class labels, to compare with the prediction column names: numbers as
    R's ``as.character`` writes them (``1``, ``0.5``), bools as Python writes them (``True``, the
    name a Python classifier's class gets; R's logical gives ``TRUE``), others as ``str``."""
    s = pd.Series(values)
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.map(str).to_numpy(dtype=object)
    if pd.api.types.is_numeric_dtype(s.dtype):
        from ._algorithms.rformat import r_as_character

        return np.asarray(r_as_character(s.to_numpy()), dtype=object)
    return s.astype(str).to_numpy(dtype=object)


def _class_labels(y: pd.Series, outputs: List[str]) -> np.ndarray:
    """Target values as class labels to compare with the model's class names: a numeric target
    matched by value to class names that are numbers (a classifier fitted on a float target
    names its classes ``0.0``, ``1.0``, where R's ``as.character`` writes y's values ``0``,
    ``1``); other values, and targets with no such match, as :func:`_label_strings` writes them."""
    out = _label_strings(y)
    if not pd.api.types.is_numeric_dtype(y.dtype) or pd.api.types.is_bool_dtype(y.dtype):
        return out
    try:
        by_value = {float(c): c for c in outputs}
    except ValueError:
        return out
    if len(by_value) != len(outputs):
        return out
    names = pd.Series(y.to_numpy(dtype=float)).map(by_value)
    hit = names.notna().to_numpy()
    out[hit] = names[hit].to_numpy(dtype=object)   # values that are no class stay as R writes them (wrong)
    return out


def _count_missing(y: pd.Series) -> int:
    """The number of missing values in ``y`` (numpy's NaN count for a float column: pandas'
    ``isna`` costs about 40 µs a call)."""
    if isinstance(y.dtype, np.dtype) and y.dtype.kind == "f":
        return int(np.count_nonzero(np.isnan(y.to_numpy())))
    return int(y.isna().sum())


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
        The model and data; must have been created with the target ``y``. Against one
        output column a bool target counts as 0/1, as R's ``Metrics`` coerce a logical one
        (e.g. ``y = species == "setosa"`` with ``class_="setosa"`` and ``loss="mae"``).
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
        the results equal iml's to the last bits. With any other source all groups share one
        set of ``n_repetitions`` permutations and the losses use numpy's float64 sums (faster;
        see docs/differences.md).
    n_jobs : int or None, default 1
        Threads over feature groups (-1: all cores, None: 1), used only when the predictor's
        ``batch_size`` is at least 10 000 rows with a full model call per thread and kept only where
        they are measured to pay (see docs/differences.md). Results do not depend on it.
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
            raise ValueError(f"compare must be 'ratio' or 'difference', got {shown(compare)}")
        n_repetitions = check_int(n_repetitions, "n_repetitions", 1)
        loss_fn, loss_name = get_loss(loss)
        if on not in ("label", "prob"):
            raise ValueError(f"on must be 'label' (iml: losses on predicted labels) or 'prob', got {shown(on)}")
        if isinstance(predictor, Predictor) and predictor.data.y is None:
            raise ValueError(
                "Please call Predictor() with the y target vector: FeatureImp needs the true values, e.g. "
                "Predictor(model, data=df, y='target') or Predictor(model, data=X, y=y_values)"
            )
        super().__init__(predictor)
        self.n_jobs = check_n_jobs(n_jobs)
        self.progress = check_bool(progress, "progress")
        self.compare = compare
        self.n_repetitions = n_repetitions
        self.loss = loss_fn
        self.loss_name = loss_name
        self.on = on
        self._named_loss = isinstance(loss, str)
        self._rs = as_random_source(random_state)
        # R's arithmetic only where the draws are R's too; otherwise numpy's (faster, same up to rounding)
        self._eval_loss = get_loss(loss, exact=self._rs.r_exact)[0]

        self.features: Dict[str, List[str]] = self._check_features(features)
        data = self.sampler
        n = data.n_rows
        preds = predictor.predict_batched(n, lambda s, e: data.X.iloc[s:e])
        self._multiclass = preds.shape[1] > 1
        self._outputs = list(predictor.output_names)
        y = data.y.iloc[:, 0]
        if data.y.shape[1] > 1:
            warn_user(
                f"y has {data.y.shape[1]} columns {list(data.y_names)}: FeatureImp compares the model's output(s) "
                f"{self._outputs} with the first, {data.y_names[0]!r}, as iml does. If another column is the target "
                "of the explained output (class_), give the Predictor that column alone as y",
                UserWarning, user_stacklevel())
        missing = _count_missing(y)
        if missing:
            raise ValueError(
                f"the target y ({data.y_names[0]!r}) has {missing} missing value(s): FeatureImp needs "
                "the true value of every row; drop those rows from data before building the Predictor"
            )
        self._actual = self._prepare_actual(y)
        predicted = self._q(preds)
        self._check_probabilities(predicted)
        self._warn_if_labels_meet_numbers(predicted)
        self.original_error = self._first_loss(self._loss_actual(None), predicted)
        if np.isnan(self.original_error):
            raise ValueError(
                f"loss={self.loss_name!r} of the model's predictions is NaN (undefined), so every importance "
                f"would be NaN (iml fails here too): {self._undefined_hint()}")
        if self.original_error == 0 and self.compare == "ratio":
            warnings.warn("Model error is 0, switching from compare='ratio' to compare='difference'",
                          UserWarning, stacklevel=2)
            self.compare = "difference"
        self.errors: Optional[pd.DataFrame] = None
        self._run()
        self._warn_if_model_draws(self._rs)

    # ------------------------------------------------------------------ set-up
    def _first_loss(self, actual, predicted) -> float:
        """The loss of the unpermuted predictions; checks that a user's loss returns one number."""
        if self._named_loss:
            return float(self._eval_loss(actual, predicted))
        try:
            value = self._eval_loss(actual, predicted)
        except Exception as err:
            if hasattr(err, "add_note"):   # Python >= 3.11
                err.add_note(f"(raised by the loss function {self.loss_name!r} that FeatureImp called as "
                             "loss(actual, predicted))")
                a, p = np.asarray(actual), np.asarray(predicted)
                if a.dtype.kind == "O" and p.dtype.kind == "f":   # iml #134: labels against probabilities
                    err.add_note(
                        f"actual holds y's class labels (such as {shown(a[0])}) and predicted the model's numbers "
                        f"(output {shown(self._outputs[0]) if len(self._outputs) == 1 else self._outputs}): for a "
                        "loss on probabilities use on='prob' (actual is then the 0/1 or one-hot target); for a "
                        "loss on labels give the model one column per class (leave out class_)")
            raise
        if isinstance(value, (bool, np.bool_)) or not (
                isinstance(value, (numbers.Real, np.number)) or (isinstance(value, np.ndarray) and value.size == 1
                                                                and value.dtype.kind in "iuf")):
            raise TypeError(
                f"loss must return one number (the loss of all rows), but {self.loss_name!r} returned "
                f"{type(value).__name__}" + (f" of shape {value.shape}" if isinstance(value, np.ndarray) else
                                             f" {value!r}"))
        return float(value)

    #: Why a named loss can be undefined (NaN) or infinite for some data.
    _UNDEFINED = {
        **dict.fromkeys(("mape", "percent_bias"), "divides by the actual values, and the target has zeros"),
        "smape": "divides by |actual| + |predicted|, which is 0 where both are 0",
        **dict.fromkeys(("msle", "rmsle"),
                        "takes log(1 + x) of the actual and predicted values, which is undefined below -1"),
        "rae": "divides by the spread of the target, which is 0 for a constant target",
        **dict.fromkeys(("rse", "rrse"),
                        "divides by the squared spread of the target, which is 0 for a constant target (and 0 or "
                        "Inf in double precision where the target or the predictions are beyond about 1e-154 or "
                        "1e154 in size: rescale them)"),
    }

    def _undefined_hint(self) -> str:
        why = self._UNDEFINED.get(self.loss_name) if self._named_loss else None
        if why is None:
            return "the loss returned NaN; check the loss against the target and the predictions"
        return f"{self.loss_name} {why}. Use a loss defined for every row, e.g. 'mae' or 'mse'"

    def _check_probabilities(self, predicted) -> None:
        """logLoss needs probabilities: outside [0, 1] Metrics gives NaN → Inf errors (and iml
        fails in ``quantile``: "missing values and NaN's not allowed")."""
        if not (self._named_loss and self.loss_name == "logLoss"):
            return
        p = np.asarray(predicted)
        if p.dtype.kind != "f" or not p.size:
            return
        lo, hi = float(np.nanmin(p)), float(np.nanmax(p))
        if lo < 0 or hi > 1:
            raise ValueError(
                f"loss='logLoss' needs predicted probabilities in [0, 1], but the model predicts values from "
                f"{lo:.4g} to {hi:.4g}. An R glm's predict() gives the link scale unless type = 'response': use "
                "r_bridge.RModel(model, type='response') (R: Predictor$new(model, type = 'response')); for other "
                "models predict probabilities (predict_proba, type='prob') or use a loss for numbers such as 'mse'"
            )

    def _prepare_actual(self, y: pd.Series):
        """The ``actual`` argument of the loss (unpermuted)."""
        numeric = pd.api.types.is_numeric_dtype(y.dtype) and not pd.api.types.is_bool_dtype(y.dtype)
        if pd.api.types.is_bool_dtype(y.dtype) and len(self._outputs) == 1:
            numeric = True  # against one numeric output R's Metrics coerce a logical target to 0/1
        regression = getattr(self.predictor, "task", None) == "regression"
        if self._multiclass and regression and (self.on == "prob" or (self._named_loss
                                                                       and self.loss_name not in LABEL_LOSSES)):
            # several outputs of a regression model: iml's predicted labels (probs.to.labels) and
            # class probabilities mean nothing here
            raise ValueError(
                f"FeatureImp compares one target with one output, but the regression model has several output columns "
                f"({self._outputs[:5]}; iml would turn them into predicted labels, which means nothing for a "
                f"regression): keep one with class_= in Predictor, with y that output's target, e.g. "
                f"Predictor(model, data=X, y=targets[...], class_={self._outputs[0]!r})")
        if self.on == "prob" and not (numeric and len(self._outputs) == 1):
            labels = _class_labels(y, self._outputs)
            onehot = (labels[:, None] == np.asarray(self._outputs, dtype=object)[None, :]).astype(float)
            if not onehot.any():
                raise ValueError(
                    f"on='prob' compares the predicted probabilities with the one-hot target, but no value of "
                    f"y ({sorted(set(labels.tolist()))[:5]}) names a prediction column ({self._outputs}); "
                    "use y with the class labels the model predicts, or on='label'"
                )
            return onehot[:, 0] if onehot.shape[1] == 1 else onehot
        if self._multiclass:
            if self._named_loss and self.loss_name not in LABEL_LOSSES:
                raise ValueError(
                    f"loss={self.loss_name!r} needs numbers, but the model has several output columns "
                    f"({self._outputs[:5]}), which iml turns into predicted labels (probs.to.labels): use a label "
                    "loss ('ce', 'f1'), on='prob' to compare the class probabilities with the one-hot target, or "
                    "class_= in Predictor to keep one output column"
                )
            labels = _class_labels(y, self._outputs)
            if not np.isin(labels, np.asarray(self._outputs, dtype=object)).any():
                warn_user(
                    f"no value of y ({sorted(set(labels.tolist()))[:5]}) is one of the model's classes "
                    f"({self._outputs}), so every predicted label counts as wrong (iml does the same). y's values "
                    "must be the model's classes (as text, or as numbers for a numeric y): give y the labels the "
                    "model was fitted on",
                    UserWarning, user_stacklevel())
            return labels
        if numeric:  # with one output column: the probability against a 0/1 target, as iml does
            return y.to_numpy(dtype=float)
        if self._named_loss and self.loss_name not in LABEL_LOSSES:
            raise ValueError(
                f"loss={self.loss_name!r} needs a numeric target, but y holds labels and the model has one "
                "output column: for a classifier's probability use on='prob' (the loss then compares it "
                "with the 0/1 target), or a label loss ('ce', 'f1') on all class columns"
            )
        return _label_strings(y)

    def _warn_if_labels_meet_numbers(self, predicted: np.ndarray) -> None:
        """A label loss with a label (or logical) ``y`` and one numeric output compares the labels
        with the numbers (as R does): a prediction that reads as no label, such as a probability
        of 0.98, counts as wrong whatever the model (iml says nothing, iml #223): say so."""
        if not (self._named_loss and self.loss_name in LABEL_LOSSES and not self._multiclass
                and self.on == "label" and self._actual.dtype.kind in "Of" and predicted.dtype.kind == "f"):
            return
        if self._actual.dtype.kind == "f":
            # a numeric or logical target (y = Species == "setosa", 0/1 in actual): compared with
            # the numbers as numbers, as R compares them (TRUE is 1)
            off = ~np.isin(predicted, self._actual)
            labels = np.asarray(r_as_character(np.unique(self._actual)), dtype=str)
            text = np.asarray(r_as_character(predicted[off][:1]), dtype=str)
        else:
            labels, all_text = comparable_labels(np.asarray(self._actual).astype(str), predicted)
            off = ~np.isin(all_text, labels)
            text = all_text[off][:1]
        if not off.any():
            return
        k, n = int(off.sum()), off.size
        warn_user(
            f"loss={self.loss_name!r} compares y's labels ({sorted(set(labels.tolist()))[:5]}) with the model's one "
            f"output column ({self._outputs[0]!r}), which holds numbers such as {text[0]}: "
            + ("no prediction reads as a label, so every one counts as wrong and the importances say nothing"
               if k == n else f"{k} of {n} predictions read as no label and count as wrong, whatever their value")
            + " (iml does the same). For a probability use on='prob' (it is compared with the 0/1 target) and a "
            "numeric loss such as 'logLoss' or 'mae'; for predicted labels leave out class_ so that the model has "
            "one column per class",
            UserWarning, user_stacklevel())

    def _q(self, preds: np.ndarray):
        """iml's ``probs.to.labels`` (on="label") or the probabilities (on="prob")."""
        if self.on == "prob":
            if preds.shape[1] == 1:
                return preds[:, 0]
            return preds.ravel() if self._named_loss else preds
        if preds.shape[1] > 1:
            return np.asarray(self._outputs, dtype=object)[np.argmax(preds, axis=1)]
        return preds[:, 0]

    def _loss_actual(self, idx: Optional[np.ndarray]):
        """The loss's ``actual`` at rows ``idx`` (None: all rows in order; shared with the named
        losses, which do not modify it, copied for a user's callable)."""
        if idx is None:
            a = self._actual if self._named_loss else self._actual.copy()
        else:
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
                    raise TypeError(f"features: group names must be strings, got {shown(k)}")
                cols = [v] if isinstance(v, str) else list(v)
                if not cols or not all(isinstance(c, str) for c in cols):
                    raise ValueError(f"features: group {k!r} must be a non-empty list of column names, got {shown(v)}")
                groups[k] = cols
        elif isinstance(features, (list, tuple, pd.Index, pd.Series, np.ndarray)):
            feats = list(features)
            if not all(isinstance(f, str) for f in feats):
                raise TypeError(
                    f"features must be feature names (str) or a dict of groups {{name: [columns]}}, got {shown(feats)}"
                )
            if len(set(feats)) != len(feats):
                dup = sorted({str(f) for f in feats if feats.count(f) > 1})
                raise ValueError(f"features contains duplicated names {dup}: give each feature once "
                                 f"(got {shown(feats)})")
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
                f"features: unknown column(s) {shown(unknown)} (in {shown(where)}); the features are {names}"
            )
        return groups

    # ------------------------------------------------------------------ run
    def _run(self, force: bool = False) -> None:
        data = self.sampler
        n, R = data.n_rows, self.n_repetitions
        groups = list(self.features.items())
        if self._rs.r_exact:  # iml: each group draws from its own L'Ecuyer stream
            perms = [np.asarray(s.permutations(n, R), dtype=np.intp).reshape(R, n)
                     for s in self._rs.element_streams(len(groups))]
        else:  # one set of R permutations for every group: each group's estimate is as random
            perms = [np.asarray(self._rs.permutations(n, R), dtype=np.intp).reshape(R, n)] * len(groups)
        # chunks of whole groups, each at least one group and about max(batch_size, R*n) rows
        bs = self.predictor.batch_size
        ranges, workers = plan_chunks(len(groups), R * n, bs, self.n_jobs, self.progress, "FeatureImp", self.predictor)
        chunks = [list(c) for c in ranges]
        if self._patchable():
            enc = data.encoded()
            base = np.vstack([enc[c] for c in data.feature_names]).astype(float, copy=False)  # (p, n)
            local = threading.local()      # one design buffer per thread

            def errors_of(ch):
                return self._chunk_errors_patched(ch, groups, perms, base, local)
        else:
            def errors_of(ch):
                return self._chunk_errors(ch, groups, perms)
        errs = map_items(errors_of, chunks, workers, bs, self.progress, "FeatureImp", key=self.predictor)
        errors = np.concatenate(errs, axis=0) if errs else np.empty((0, R))
        self.errors = pd.DataFrame({   # (object labels: pandas converts a numpy str array more slowly)
            "feature": np.repeat(np.asarray([g for g, _ in groups], dtype=object), R),
            "repetition": np.tile(np.arange(1, R + 1), len(groups)),
            "permutation.error": errors.ravel(),
        }, copy=False)
        self.results = self._summarise(errors)
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
            return gather_design(data, enc, dict.fromkeys(names, rest), patches)

        preds = self.predictor.predict_batched(len(pflat), make)
        out = np.empty((len(chunk), R))
        for a, _g in enumerate(chunk):
            for r in range(R):
                lo = a * block + r * n
                rows = pflat[lo:lo + n] if r_order else None
                out[a, r] = self._eval_loss(self._loss_actual(rows), self._q(preds[lo:lo + n]))
        return out

    def _patchable(self) -> bool:
        """Whether designs can be patched in place: all-float data, row order free (not R-exact),
        and whole data copies per model call (``batch_size >= n``)."""
        return self.sampler.all_float and not self._rs.r_exact and self.predictor.batch_size >= self.sampler.n_rows

    def _chunk_errors_patched(self, chunk: List[int], groups, perms, base: np.ndarray, local) -> np.ndarray:
        """Errors (len(chunk), R) as :meth:`_chunk_errors` computes them with a non-R source, with
        less copying: ``local.buf`` (made once per thread) holds the data ``base`` (p, n)
        repeated ``min(batch_size // n, groups * R)`` times, and for each batch only the permuted
        groups' columns are written; they are restored before a batch that does not permute them
        again, and at the end. All-float data only; the model must not keep a reference to its
        input frame."""
        names = self.sampler.feature_names
        p, n = base.shape
        R = self.n_repetitions
        buf = getattr(local, "buf", None)
        if buf is None:
            per = max(1, min(self.predictor.batch_size // n, len(groups) * R))
            buf = local.buf = np.empty((p, per * n))
            buf.reshape(p, per, n)[:] = base[:, None, :]
        col_idx = {c: j for j, c in enumerate(names)}
        blocks = [(a, r) for a in range(len(chunk)) for r in range(R)]
        per = buf.shape[1] // n
        out = np.empty((len(chunk), R))
        actual = self._loss_actual(None)
        rows_loss = self._rows_loss(actual)
        dirty: Dict[int, List[int]] = {}  # slot k -> the permuted columns it still holds

        def restore(keep: Dict[int, List[int]]) -> None:
            for k, cols in dirty.items():
                for j in cols:
                    if j not in keep.get(k, ()):  # a column the next batch permutes again needs no restoring
                        buf[j, k * n:(k + 1) * n] = base[j]

        for s in range(0, len(blocks), per):
            todo = blocks[s:s + per]
            m = len(todo) * n
            written = {k: [col_idx[c] for c in groups[chunk[a]][1]] for k, (a, r) in enumerate(todo)}
            restore(written)
            for k, (a, r) in enumerate(todo):
                for j in written[k]:
                    # "clip": the indices are valid, and without a bounds check numpy writes straight into out
                    base[j].take(perms[chunk[a]][r], out=buf[j, k * n:(k + 1) * n], mode="clip")
            dirty = written
            frame = pd.DataFrame(buf[:, :m].T, columns=self.sampler.feature_index, copy=False)
            preds = self.predictor.predict_array(frame)
            if rows_loss is not None:  # every block's loss in one call
                vals = rows_loss(actual, preds[:m, 0].reshape(len(todo), n))
                for k, (a, r) in enumerate(todo):
                    out[a, r] = vals[k]
                continue
            for k, (a, r) in enumerate(todo):
                out[a, r] = self._eval_loss(actual, self._q(preds[k * n:(k + 1) * n]))
        restore({})  # the buffer is the thread's: leave it holding the data
        return out

    def _rows_loss(self, actual):
        """The row-wise form of the loss (:data:`pyiml.losses.FAST_ROWS`) when it gives the same
        values as calling the loss per block: a named loss in numpy's arithmetic, one output
        column and a float target; else None."""
        if self._rs.r_exact or not self._named_loss or len(self._outputs) != 1:
            return None
        if not (isinstance(actual, np.ndarray) and actual.ndim == 1 and actual.dtype == np.float64):
            return None
        return FAST_ROWS.get(self.loss_name)

    def _summarise(self, errors: np.ndarray) -> pd.DataFrame:
        """iml's summary of the errors (groups, repetitions): medians and type-7 quantiles per group."""
        R = self.n_repetitions
        feats = list(self.features)
        err = errors.reshape(len(feats), R)
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = err / self.original_error if self.compare == "ratio" else err - self.original_error
        nan = np.isnan(raw).any(axis=1)
        if nan.any():   # iml: quantile() fails, "missing values and NaN's not allowed"
            bad = [feats[i] for i in np.flatnonzero(nan)]
            why = ("NaN" if np.isnan(err[nan]).any() else
                   f"{err[nan][~np.isfinite(err[nan])][0]:g}, as is the model error ({self.original_error:g})")
            raise ValueError(
                f"loss={self.loss_name!r} gives undefined (NaN) importances for feature(s) {bad} (iml fails here "
                f"too): the error after permuting is {why}; {self._undefined_hint()}")
        imp = r_median_rows(raw)
        perr = r_median_rows(err)
        q = r_quantile7_rows(raw, [0.05, 0.95])
        order = np.argsort(-imp, kind="stable")
        res = pd.DataFrame({
            "feature": np.asarray(feats, dtype=object)[order],
            "importance.05": q[order, 0],
            "importance": imp[order],
            "importance.95": q[order, 1],
            "permutation.error": perr[order],
        }, copy=False)
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
        return super().plot(sort=check_bool(sort, "sort"))
