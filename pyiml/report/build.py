"""Compute the sections of the report: every pyiml method on one model and its data.

:func:`build_report` explains one or more :class:`Case` objects (a fitted model, its data and
target) with each requested interpretation method, draws every plot through the method's own
``.plot()``, optionally adds the same numbers from CRAN iml (:mod:`pyiml.report.r_side`), and
writes one self-contained ``index.html`` (:mod:`pyiml.report.html`).

The list of sections follows the methods requested; by default every method that this pyiml
provides (:func:`available_methods`).
"""
from __future__ import annotations

import dataclasses
import importlib
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from .html import Image, KeyValues, Note, Pre, Report, Section, Table, Text, code, figure_png, format_number, render
from .html import slug as _slug

__all__ = [
    "METHODS", "Settings", "Case", "Run", "CaseResult", "available_methods", "resolve_methods",
    "explain_case", "build_report", "BuildResult", "demo_cases", "loss_problem", "ReportWriteError",
    "check_report_path",
]

#: Every interpretation method the report knows, in report order.
METHODS: Tuple[str, ...] = ("FeatureImp", "FeatureEffect", "FeatureEffects", "Interaction", "Shapley",
                            "LocalModel", "TreeSurrogate")


def _pyiml():
    return importlib.import_module("pyiml")


def available_methods() -> List[str]:
    """The methods of :data:`METHODS` that this installation of pyiml provides."""
    mod = _pyiml()
    return [m for m in METHODS if hasattr(mod, m)]


def resolve_methods(requested: Optional[Sequence[str]] = None) -> List[str]:
    """Check and normalise a list of method names (case-insensitive), in report order.

    Parameters
    ----------
    requested : sequence of str or None
        Method names such as ``"FeatureImp"`` or ``"shapley"``; None means every available one.

    Raises
    ------
    ValueError
        For a name that is not a pyiml method, or a method this pyiml does not provide.
    """
    avail = available_methods()
    if requested is None:
        return avail
    lower = {m.lower(): m for m in METHODS}
    out = []
    for name in requested:
        key = str(name).strip()
        if not key:
            continue
        m = lower.get(key.lower())
        if m is None:
            raise ValueError(f"unknown method {name!r}: choose from {', '.join(METHODS)}")
        if m not in avail:
            raise ValueError(
                f"method {m!r} is not available in this pyiml (it provides {', '.join(avail) or 'none'})")
        if m not in out:
            out.append(m)
    if not out:
        raise ValueError(f"no method requested: choose from {', '.join(avail)}")
    return [m for m in METHODS if m in out]


@dataclass
class Settings:
    """How much work each method does (iml's arguments, in snake_case).

    Attributes
    ----------
    n_repetitions : int
        FeatureImp permutations per feature (intervals need at least 2).
    grid_size : int
        FeatureEffect / FeatureEffects grid size.
    interaction_grid_size : int
        Interaction grid size (iml's default is 30).
    sample_size : int
        Shapley Monte-Carlo samples per row.
    batch_rows : int
        Rows explained in the Shapley batch.
    top_features : int
        Features shown with ALE and PDP+ICE (the most important ones).
    k : int
        LocalModel's number of features.
    maxdepth : int
        TreeSurrogate's depth.
    max_rows : int or None
        Use at most this many rows of the data (a fixed random subset) to keep run time bounded.
    dpi : int
        Resolution of the embedded plots.
    """

    n_repetitions: int = 5
    grid_size: int = 20
    interaction_grid_size: int = 20
    sample_size: int = 100
    batch_rows: int = 5
    top_features: int = 2
    k: int = 3
    maxdepth: int = 2
    max_rows: Optional[int] = 2000
    dpi: int = 90

    @classmethod
    def small(cls) -> "Settings":
        """Settings for tests and quick looks: a few seconds per model."""
        return cls(n_repetitions=2, grid_size=6, interaction_grid_size=4, sample_size=10, batch_rows=2,
                   top_features=1, k=2, maxdepth=2, max_rows=120, dpi=60)

    def describe(self) -> Dict[str, object]:
        return {f.name.replace("_", " "): getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "dpi"}


@dataclass
class Case:
    """One model to explain.

    Parameters
    ----------
    key : str
        Short identifier (used in section anchors), e.g. ``"diabetes"``.
    title : str
        Heading of the case in the report.
    model : object
        A fitted model with ``predict`` (classifiers: ``predict_proba``).
    data : pandas.DataFrame
        Features and the target column.
    target : str
        Name of the target column of ``data``.
    description : str
        A sentence about the data and the model.
    loss : str or None
        FeatureImp loss (a name of :mod:`pyiml.losses`); default ``"ce"`` for classifiers,
        ``"mae"`` otherwise.
    row : int
        0-based position (``data.iloc[row]``, not an index label) of the row explained by Shapley
        and LocalModel. The report numbers rows this way, also when ``Settings.max_rows`` makes
        it use a subset of the rows.
    """

    key: str
    title: str
    model: Any
    data: pd.DataFrame
    target: str
    description: str = ""
    loss: Optional[str] = None
    row: int = 0


@dataclass
class Run:
    """One computed method call, kept so the R side can replay it with the same arguments.

    Attributes
    ----------
    key : str
        Identifier, unique within a case.
    label : str
        What was computed, for the comparison table.
    method : str
        The pyiml / iml class name.
    kwargs : dict
        The constructor arguments (snake_case, no ``random_state``).
    outputs : dict
        pyiml's outputs to compare: ``"results"`` and fields such as ``"r.squared"``.
    random : bool
        True when the numbers depend on random draws.
    seeded : bool
        True when ``outputs`` were computed with ``RRandom`` (R-exact draws).
    rerun : callable or None
        ``rerun(random_state) -> outputs`` recomputes with another random source.
    explain_rows : list of pandas.DataFrame
        For a Shapley batch: the further rows, explained one after the other
        (R: ``$explain(x.interest)``).
    value_columns : list of str
        The columns shown side by side.
    key_columns : list of str
        The columns that identify a row in the side-by-side table.
    seconds : float
        pyiml's time for the call (its constructor; the plot is timed apart).
    """

    key: str
    label: str
    method: str
    kwargs: Dict[str, Any]
    outputs: Dict[str, Any]
    random: bool = False
    seeded: bool = False
    rerun: Optional[Callable[[Any], Dict[str, Any]]] = None
    explain_rows: List[pd.DataFrame] = field(default_factory=list)
    value_columns: List[str] = field(default_factory=list)
    key_columns: List[str] = field(default_factory=list)
    seconds: float = float("nan")


@dataclass
class CaseResult:
    """What :func:`explain_case` computed for one case."""

    case: Case
    data: pd.DataFrame
    predictor: Any
    methods: List[str]
    section: Section
    runs: List[Run] = field(default_factory=list)
    failures: List[str] = field(default_factory=list)
    seconds: Dict[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------------------- progress
class _Progress:
    """Step progress on stderr (a tqdm bar) when ``enabled``."""

    def __init__(self, total: int, enabled: bool, desc: str):
        self.bar = None
        self.enabled = bool(enabled)
        if not self.enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:  # plain step lines
            self.bar = None
            self.desc = desc
            return
        self.bar = tqdm(total=total, desc=desc, unit="step", file=sys.stderr, leave=True)

    def step(self, text: str) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=True)
        else:
            print(f"{self.desc}: {text}", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------------- helpers
def _model_name(model) -> str:
    return type(model).__name__


def _model_text(model) -> str:
    """The model's repr (scikit-learn prints only the non-default parameters), shortened."""
    try:
        text = repr(model)
    except Exception as exc:  # a broken __repr__ must not stop the report
        text = f"{type(model).__name__} (repr failed: {exc})"
    return text if len(text) < 2000 else text[:2000] + " …"


def _feature_summary(data) -> pd.DataFrame:
    rows = []
    for name in data.feature_names:
        col = data.X[name]
        ftype = data.feature_types[name]
        if ftype == "categorical":
            counts = col.astype(object).value_counts()
            top = ", ".join(f"{k} ({v})" for k, v in counts.head(4).items())
            rows.append({"feature": name, "type": ftype, "mean": "", "sd": "", "min": "", "max": "",
                         "levels (count)": top + (" …" if len(counts) > 4 else "")})
        else:
            v = col.to_numpy(dtype=float)
            rows.append({"feature": name, "type": ftype, "mean": np.nanmean(v), "sd": np.nanstd(v, ddof=1),
                         "min": np.nanmin(v), "max": np.nanmax(v), "levels (count)": ""})
    out = pd.DataFrame(rows)
    for c in ("mean", "sd", "min", "max"):   # numbers shown with 4 significant digits, text cells empty
        out[c] = [v if isinstance(v, str) else format_number(v, 4) for v in out[c]]
    return out


def _correlated_pairs(data, threshold: float = 0.7, limit: int = 5) -> List[Tuple[str, str, float]]:
    """Pairs of numerical/integer features whose Pearson correlation is at least ``threshold``
    in absolute value, strongest first (at most ``limit``)."""
    num = [f for f in data.feature_names if data.feature_types[f] != "categorical"]
    if len(num) < 2 or data.n_rows < 3:
        return []
    X = data.X[num].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.corrcoef(X.to_numpy(), rowvar=False)
    pairs = [(num[i], num[j], float(corr[i, j])) for i in range(len(num)) for j in range(i + 1, len(num))
             if np.isfinite(corr[i, j]) and abs(corr[i, j]) >= threshold]
    pairs.sort(key=lambda t: -abs(t[2]))
    return pairs[:limit]


def _class_names(y: pd.Series, classes: List[str]) -> np.ndarray:
    """The target's values written as the class names of the prediction columns: of the
    spellings ``str(v)`` (``True``, ``1.0``, ``a``), whole numbers without decimals (``1``) and R's
    ``as.character``, the one that names the most classes."""
    from .._algorithms.rformat import r_as_character

    vals = y.to_numpy(dtype=object)
    ways = [np.asarray([str(v) for v in vals], dtype=object)]
    if pd.api.types.is_numeric_dtype(y.dtype) and not pd.api.types.is_bool_dtype(y.dtype):
        f = y.to_numpy(dtype=float)
        if np.all(np.mod(f, 1) == 0):
            ways.append(np.asarray([str(int(v)) for v in f], dtype=object))
        ways.append(np.asarray(r_as_character(f), dtype=object))
    names = set(classes)
    return max(ways, key=lambda w: np.isin(w, list(names)).sum())


#: H statistics below this are rounding noise of an additive model (about 1e-16 on such models).
_H_NOISE = 1e-6


def _finite_strength(res: pd.DataFrame) -> pd.Series:
    """Interaction results: each ``.feature``'s largest finite H (over classes), in results order;
    features whose H is not finite anywhere are left out."""
    finite = res[np.isfinite(res[".interaction"].to_numpy(dtype=float))]
    return finite.groupby(".feature", sort=False)[".interaction"].max()


def _image(fig, alt: str, caption: str, dpi: int) -> Image:
    return Image(figure_png(fig, dpi=dpi), alt=alt, caption=caption)


def _subset_rows(data: pd.DataFrame, max_rows: Optional[int], keep: int
                 ) -> Tuple[pd.DataFrame, Optional[str], int, np.ndarray]:
    """At most ``max_rows`` rows (a fixed random subset that contains row ``keep``).

    Returns the rows (index 0..m-1), a note for the report (None when all rows are used), the
    position of row ``keep`` in the result and, for each row of the result, its 0-based position
    in ``data``.
    """
    if max_rows is None or len(data) <= max_rows:
        return data.reset_index(drop=True), None, keep, np.arange(len(data))
    others = np.delete(np.arange(len(data)), keep)
    idx = np.sort(np.append(np.random.default_rng(0).choice(others, size=max_rows - 1, replace=False), keep))
    note = (f"The data has {len(data)} rows; the report uses a fixed random subset of {max_rows} of them (numpy "
            f"seed 0; it always contains the explained row {keep}) to bound the run time (`--max-rows`). Row "
            "numbers in this report are 0-based positions in the full data as given (row 0 is its first data "
            "row), not positions within the subset.")
    return data.iloc[idx].reset_index(drop=True), note, int(np.searchsorted(idx, keep)), idx


def loss_problem(loss: str, predictor, target: pd.Series, n_check: int = 50) -> Optional[str]:
    """Why FeatureImp's named ``loss`` does not suit the model and its target, or None.

    ``f1`` never suits a report: iml's ``Metrics::f1`` compares the sets of classes, not rows.
    With several prediction columns (class probabilities) FeatureImp compares the most probable
    class with the target (iml's ``probs.to.labels``), so only the classification loss ``ce``
    applies; the others need numbers. With one prediction column, ``ce`` compares each
    prediction with the target for equality, which suits only a model that
    predicts values of the target (labels); predictions of a regression model are never equal
    to the target, and ``ce`` would count every row as an error whatever the permutation.

    Parameters
    ----------
    loss : str
        A name of :data:`pyiml.losses.LOSSES` (other values give None).
    predictor : pyiml.Predictor
    target : pandas.Series
        The target column.
    n_check : int
        How many rows' predictions are compared with the target's values (one output).
    """
    from ..losses import LABEL_LOSSES, LOSSES

    if not isinstance(loss, str) or loss not in LOSSES:
        return None
    if loss == "f1":
        return ("'f1' compares the set of classes in the target with the set of predicted classes (Metrics::f1, as "
                "iml uses it), not row by row: a permuted feature rarely removes a class from the predictions, so "
                "every importance would be 1; use ce (the share of rows whose predicted class is wrong)")
    model = type(predictor.model).__name__ if predictor.model is not None else "the"
    if predictor.is_multiclass:
        if loss in LABEL_LOSSES:
            return None
        names = list(predictor.output_names)
        shown = ", ".join(map(str, names[:5])) + (", …" if len(names) > 5 else "")
        return (f"{loss!r} needs one numeric prediction per row, but the {model} model predicts "
                f"{len(names)} classes ({shown}), of which FeatureImp compares the most probable with the target "
                f"(iml's probs.to.labels): use the classification loss ce")
    if loss == "logLoss":
        pred = predictor.predict_array(predictor.data.X).ravel()
        lo, hi = float(np.nanmin(pred)), float(np.nanmax(pred))
        if lo < 0 or hi > 1:
            return (f"'logLoss' needs predicted probabilities in [0, 1], but the {model} model predicts values "
                    f"from {lo:.4g} to {hi:.4g}: use a regression loss such as mae, mse or rmse")
    if loss not in LABEL_LOSSES:
        return None
    pred = predictor.predict(predictor.data.X.iloc[:n_check]).iloc[:, 0].to_numpy(dtype=float)
    if pd.api.types.is_numeric_dtype(target.dtype):   # bool too: ce compares True with 1.0 as equal
        values = pd.unique(target.to_numpy(dtype=float))
        off = pred[~np.isin(pred, values)]
    else:
        off = pred
    if off.size == 0:
        return None
    return (f"{loss!r} is a classification loss (it compares predictions with the target for equality), but the "
            f"{model} model predicts numbers that are not values of the target {code(target.name)} "
            f"(e.g. {off[0]:.6g}), so every row would count as an error: use a regression loss such as mae, mse "
            "or rmse")


def _count(n: int, noun: str) -> str:
    """``"1 repetition"``, ``"5 repetitions"``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _spread_rows(n: int, k: int, exclude: int) -> List[int]:
    cand = [int(i) for i in np.unique(np.round(np.linspace(0, n - 1, k + 1)).astype(int)) if i != exclude]
    return cand[:k]


# ---------------------------------------------------------------------------- the explainer
class _CaseExplainer:
    """Runs the methods of one case and assembles its section."""

    def __init__(self, case: Case, methods: List[str], settings: Settings, seed: Optional[int],
                 r_seed: Optional[int], progress: _Progress):
        self.case = case
        self.methods = methods
        self.s = settings
        self.seed = seed
        self.r_seed = r_seed
        self.progress = progress
        self.pyiml = _pyiml()
        self.runs: List[Run] = []
        self.failures: List[str] = []
        self.seconds: Dict[str, float] = {}
        self._last_seconds = float("nan")
        self.top: List[str] = []
        self.row = case.row
        self.correlated: List[Tuple[str, str, float]] = []
        self._ids: set = set()

    # random sources -------------------------------------------------------
    def random_state(self):
        """A fresh random source per method: RRandom(r_seed), an int seed, or None."""
        if self.r_seed is not None:
            return self.pyiml.RRandom(self.r_seed)
        return self.seed

    @property
    def exact(self) -> bool:
        return self.r_seed is not None

    def _sid(self, name: str) -> str:
        """A section id unique in the case (features whose names slug alike, ``x 1`` and ``x-1``,
        get ``-2``, ``-3``, …)."""
        base = sid = f"{self.case.key}-{name}"
        k = 1
        while sid in self._ids:
            k += 1
            sid = f"{base}-{k}"
        self._ids.add(sid)
        return sid

    def _add_run(self, run: Run) -> None:
        """Keep ``run`` for the R side, with the time of the step that computed it (the last
        step that was not a plot)."""
        run.seconds = self._last_seconds
        self.runs.append(run)

    def _step(self, label: str, fn: Callable[[], Any], section: Section):
        """Run ``fn`` with its warnings recorded as notes of ``section``; failures become notes."""
        self.progress.step(f"{self.case.key}: {label}")
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = fn()
            except Exception as exc:  # shown in the report and returned to the CLI
                msg = f"{label} failed: {type(exc).__name__}: {exc}"
                self.failures.append(f"{self.case.key}: {msg}")
                section.add(Note(msg, kind="warn"))
                out = None
        self.seconds[label] = time.perf_counter() - t0
        if not label.endswith(" plot"):
            self._last_seconds = self.seconds[label]
        seen = []
        for w in caught:
            text = str(w.message)
            if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)):
                continue
            if text not in seen:
                seen.append(text)
        for text in seen:
            section.add(Note(f"pyiml warned ({label}): {text}", kind="warn"))
        self.progress.done()
        return out

    # the run ---------------------------------------------------------------
    def run(self) -> CaseResult:
        case = self.case
        if case.target not in case.data.columns:
            raise ValueError(f"target {case.target!r} is not a column of the data")
        if len(case.data) < 2:
            raise ValueError(f"the data has {len(case.data)} row(s); the report needs at least 2")
        if not 0 <= case.row < len(case.data):
            raise ValueError(f"row {case.row} is outside the data (0..{len(case.data) - 1})")
        data, subset_note, self.row, self.positions = _subset_rows(case.data, self.s.max_rows, case.row)
        self.data = data
        top = Section(self._sid("case"), case.title)
        self.predictor = self.pyiml.Predictor(case.model, data=data, y=case.target)
        self.features = list(self.predictor.data.feature_names)
        top.children.append(self._model_section(subset_note))
        builders = {
            "FeatureImp": self._feature_imp,
            "FeatureEffect": self._feature_effect,
            "FeatureEffects": self._feature_effects,
            "Interaction": self._interaction,
            "Shapley": self._shapley,
            "LocalModel": self._local_model,
            "TreeSurrogate": self._tree_surrogate,
        }
        self.top = self.features[: max(self.s.top_features, 1)]
        for m in self.methods:
            sec = builders[m]()
            if sec is not None:
                top.children.append(sec)
        return CaseResult(case=case, data=data, predictor=self.predictor, methods=self.methods, section=top,
                          runs=self.runs, failures=self.failures, seconds=self.seconds)

    # sections --------------------------------------------------------------
    def _model_section(self, subset_note: Optional[str]) -> Section:
        case, p, data = self.case, self.predictor, self.data
        sec = Section(self._sid("model"), "Model and data")
        if case.description:
            sec.add(Text(case.description))
        X = p.data.X
        pred = self._step("predict the data", lambda: p.predict(X), sec)
        info: Dict[str, object] = {
            "model": _model_name(case.model),
            "task": p.task,
            "target": code(case.target),
            "rows × features": f"{p.data.n_rows} × {p.data.n_features}",
            "outputs explained": ", ".join(code(c) for c in (p.output_names or [])),
        }
        if pred is not None:
            y = data[case.target]
            if pred.shape[1] > 1:
                labels = np.asarray(pred.columns)[np.argmax(pred.to_numpy(), axis=1)]
                truth = _class_names(y, list(pred.columns))
                acc = float(np.mean(labels == truth))
                info["accuracy on these data"] = f"{acc:.3f}"
            elif pd.api.types.is_numeric_dtype(y.dtype):
                yv, fv = y.to_numpy(dtype=float), pred.iloc[:, 0].to_numpy(dtype=float)
                ss = float(np.sum((yv - yv.mean()) ** 2))
                info["R² on these data"] = (f"{1 - float(np.sum((yv - fv) ** 2)) / ss:.3f}" if ss > 0
                                            else "undefined (constant target)")
                info["mean prediction"] = f"{fv.mean():.4g}"
        sec.add(KeyValues(info))
        if subset_note:
            sec.add(Note(subset_note))
        sec.add(Pre(_model_text(case.model), caption="The model as given."))
        sec.add(Table(_feature_summary(p.data), caption="Features: iml's feature types and summaries.", max_rows=None))
        self.correlated = _correlated_pairs(p.data)
        if self.correlated:
            pairs = ", ".join(f"{code(a)}–{code(b)} (r = {r:.2f})" for a, b, r in self.correlated)
            sec.add(Note(f"Correlated features: {pairs}. Permutation importance, PDP/ICE, the H statistic and "
                         "Shapley values combine their values freely and so evaluate the model where the data has "
                         "no rows (extrapolation); ALE does not. See docs/methods.md.", kind="warn"))
        return sec

    def _feature_imp(self) -> Section:
        pyiml, case = self.pyiml, self.case
        loss = case.loss or ("ce" if self.predictor.is_multiclass else "mae")
        sec = Section(self._sid("featureimp"), "Feature importance (FeatureImp)")
        intro = Text(f"Permutation feature importance: the model error (loss `{loss}`) after permuting a "
                     f"feature, as a ratio of the original error, {_count(self.s.n_repetitions, 'permutation')} per "
                     "feature. The bars span the 5% and 95% quantiles of the repetitions, the point is their "
                     "median.")
        sec.add(intro)
        kwargs = dict(loss=loss, compare="ratio", n_repetitions=self.s.n_repetitions)
        if self.s.n_repetitions < 2:
            sec.add(Note("One permutation per feature: importance.05 = importance = importance.95, so there is no "
                         "interval; use several repetitions before ranking features.", kind="warn"))

        def make(rs):
            return pyiml.FeatureImp(self.predictor, random_state=rs, **kwargs)

        def first():
            if case.loss is not None:   # a loss the model and target do not suit: no numbers
                problem = loss_problem(loss, self.predictor, self.data[case.target])
                if problem:
                    raise ValueError(f"loss {problem}")
            return make(self.random_state())

        obj = self._step("FeatureImp", first, sec)
        if obj is None:
            return sec
        if obj.compare == "difference":   # iml's switch when the model error is 0
            intro.text = intro.text.replace("as a ratio of the original error", "minus the original error (0)")
        res = obj.results
        self.top = [str(f) for f in res["feature"].tolist()][: max(self.s.top_features, 1)]
        fig = self._step("FeatureImp plot", obj.plot, sec)
        if fig is not None:
            sec.add(_image(fig, "FeatureImp plot", "Feature importance with its 5%–95% interval.", self.s.dpi))
        sec.add(Table(res, caption="`FeatureImp$results`", max_rows=None))
        self._add_run(Run("featureimp", f"FeatureImp (loss {loss}, {_count(self.s.n_repetitions, 'repetition')})",
                          "FeatureImp", kwargs, {"results": res}, random=True, seeded=self.exact,
                          rerun=lambda rs: {"results": make(rs).results},
                          value_columns=["importance", "permutation.error"], key_columns=["feature"]))
        return sec

    def _feature_effect(self) -> Section:
        pyiml = self.pyiml
        sec = Section(self._sid("effects"), "Feature effects of the top features (FeatureEffect)")
        which = "the most important features" if "FeatureImp" in self.methods else "the first features"
        sec.add(Text(f"Accumulated local effects (ALE) and partial dependence with individual conditional "
                     f"expectation curves (PDP+ICE) for {which}, grid size {self.s.grid_size}. ALE stays "
                     "inside the data where features are correlated; PDP+ICE shows the average and every "
                     "row's curve, so heterogeneous effects that the average hides become visible."))
        for feat in self.top:
            sub = Section(self._sid(f"effect-{_slug(feat)}"), code(feat))
            for method, title in (("ale", "ALE"), ("pdp+ice", "PDP+ICE")):
                kwargs = dict(feature=feat, method=method, grid_size=self.s.grid_size)

                def make(rs, kw=kwargs):
                    return pyiml.FeatureEffect(self.predictor, random_state=rs, **kw)

                obj = self._step(f"FeatureEffect {method} {feat}", lambda: make(self.random_state()), sub)
                if obj is None:
                    continue
                fig = self._step(f"FeatureEffect {method} {feat} plot", obj.plot, sub)
                if fig is not None:
                    sub.add(_image(fig, f"{title} of {feat}", f"{title} of {code(feat)}.", self.s.dpi))
                res = obj.results
                keys = [c for c in (".class", feat, ".type", ".id") if c in res.columns]
                # PDP/ICE draw (RNG-dependent row order of multi-output ICE rows); ALE draws nothing
                self._add_run(Run(f"effect-{method}-{feat}", f"FeatureEffect {method} {code(feat)}", "FeatureEffect",
                                  kwargs, {"results": res}, random=method != "ale", seeded=self.exact,
                                  rerun=lambda rs, mk=make: {"results": mk(rs).results},
                                  value_columns=[".value"], key_columns=keys))
                if method == "ale":
                    sub.add(Table(res, caption=f"ALE of {code(feat)}: `FeatureEffect$results`", max_rows=12))
            sec.children.append(sub)
        return sec

    def _feature_effects(self) -> Section:
        pyiml = self.pyiml
        sec = Section(self._sid("featureeffects"), "All features at a glance (FeatureEffects)")
        sec.add(Text(f"ALE of every feature on a shared y axis (grid size {self.s.grid_size}): a flat curve means "
                     "the feature hardly changes the prediction."))
        kwargs = dict(method="ale", grid_size=self.s.grid_size)
        X = self.predictor.data.X
        constant = [f for f in self.features if X[f].nunique(dropna=True) < 2]
        if constant:
            kwargs["features"] = [f for f in self.features if f not in constant]
            names = ", ".join(code(c) for c in constant)
            sec.add(Note(f"Left out, constant in the data (no effect to show): {names}."))
            if not kwargs["features"]:
                return sec
        obj = self._step("FeatureEffects", lambda: pyiml.FeatureEffects(
            self.predictor, random_state=self.random_state(), **kwargs), sec)
        if obj is None:
            return sec
        fig = self._step("FeatureEffects plot", obj.plot, sec)
        if fig is not None:
            sec.add(_image(fig, "FeatureEffects plot", "ALE of every feature.", self.s.dpi))
        res = obj.results
        self._add_run(Run("featureeffects", f"FeatureEffects ale ({len(res)} features)", "FeatureEffects",
                          kwargs, {"results": res}, value_columns=[".value"],
                          key_columns=[".feature", ".class", ".borders"]))
        return sec

    def _interaction(self) -> Section:
        pyiml = self.pyiml
        sec = Section(self._sid("interaction"), "Interactions (Interaction)")
        G = self.s.interaction_grid_size
        sec.add(Text(f"Friedman's H statistic (iml reports H, not H²) on a grid of {G} data rows drawn at "
                     "random: the share of a feature's effect variance that comes from interactions with "
                     "the other features (0: none, 1: all; iml's estimate can exceed 1 where a feature's own "
                     "effect is small next to its interactions, as the denominator is then small)."))
        kwargs = dict(grid_size=G)

        def make(rs, **kw):
            return pyiml.Interaction(self.predictor, random_state=rs, **kwargs, **kw)

        obj = self._step("Interaction", lambda: make(self.random_state()), sec)
        if obj is None:
            return sec
        res = obj.results
        fig = self._step("Interaction plot", obj.plot, sec)
        if fig is not None:
            sec.add(_image(fig, "Interaction plot", "Overall interaction strength per feature.", self.s.dpi))
        sec.add(Table(res, caption="`Interaction$results` (overall)", max_rows=None))
        keys = [c for c in (".feature", ".class") if c in res.columns]
        self._add_run(Run("interaction", f"Interaction overall (grid {G})", "Interaction", kwargs,
                          {"results": res}, random=True, seeded=self.exact,
                          rerun=lambda rs: {"results": make(rs).results},
                          value_columns=[".interaction"], key_columns=keys))
        strength = _finite_strength(res)
        if strength.empty:
            sec.add(Note("No finite H statistic (every grid prediction equal, H = 0/0 or noise/0): the two-way "
                         "interactions are not shown."))
            return sec
        if float(strength.max()) < _H_NOISE:
            sec.add(Note(f"No interaction above numerical noise (the largest H is {float(strength.max()):.2g}): the "
                         "model is additive in these features, and the two-way interactions are not shown."))
            return sec
        best = str(strength.idxmax())
        two = Section(self._sid("interaction-2way"), f"Two-way interactions of {code(best)}")
        two.add(Text(f"{code(best)} interacts most with the other features; its two-way H statistics with each other "
                     "feature follow."))
        obj2 = self._step(f"Interaction with {best}", lambda: make(self.random_state(), feature=best), two)
        if obj2 is not None:
            res2 = obj2.results
            fig = self._step("Interaction two-way plot", obj2.plot, two)
            if fig is not None:
                two.add(_image(fig, f"Two-way interactions of {best}", f"Two-way H statistics of {code(best)}.",
                               self.s.dpi))
            two.add(Table(res2, caption=code(f'Interaction$new(predictor, feature = "{best}")$results'), max_rows=None))
            self._add_run(Run("interaction-2way", f"Interaction with {code(best)} (grid {G})", "Interaction",
                              dict(kwargs, feature=best), {"results": res2}, random=True, seeded=self.exact,
                              rerun=lambda rs: {"results": make(rs, feature=best).results},
                              value_columns=[".interaction"], key_columns=keys))
            s2 = _finite_strength(res2)
            if not s2.empty:
                pair_label = str(s2.idxmax())   # iml's "a:b" (feature names may hold colons themselves)
                other = [f for f in self.features if f != best and pair_label in (f"{best}:{f}", f"{f}:{best}")]
                partner = other[0] if other else None
                types = self.predictor.data.feature_types
                if hasattr(pyiml, "FeatureEffect") and partner in types and not (
                        types[best] == "categorical" and types[partner] == "categorical"):
                    kw = dict(feature=[best, partner], method="ale", grid_size=self.s.grid_size)
                    eff = self._step(f"FeatureEffect ale {best}×{partner}",
                                     lambda: pyiml.FeatureEffect(self.predictor, **kw), two)
                    if eff is not None:
                        fig = self._step("2-D ALE plot", eff.plot, two)
                        if fig is not None:
                            two.add(_image(fig, f"2-D ALE of {best} and {partner}",
                                           f"Second-order ALE of the strongest pair {code(best)} × "
                                           f"{code(partner)}: the joint effect beyond the two main effects.",
                                           self.s.dpi))
                        r2d = eff.results
                        keys2 = [c for c in (".class", best, partner) if c in r2d.columns]
                        val = ".ale" if ".ale" in r2d.columns else ".value"
                        self._add_run(Run("ale-2d", f"FeatureEffect ale {code(best)} × {code(partner)}",
                                          "FeatureEffect", kw, {"results": r2d}, value_columns=[val],
                                          key_columns=keys2))
        sec.children.append(two)
        return sec

    def _row(self, i: int) -> pd.DataFrame:
        return self.predictor.data.X.iloc[[i]].reset_index(drop=True)

    def _label(self, i: int) -> int:
        """The number a row of ``self.data`` (a subset when ``max_rows`` cut the data) has in the
        report: its 0-based position in the case's data."""
        return int(self.positions[i])

    def _shapley(self) -> Section:
        pyiml, s = self.pyiml, self.s
        sec = Section(self._sid("shapley"), "Shapley values (Shapley)")
        row, shown = self.row, self._label(self.row)
        sec.add(Text(f"Shapley values by Monte-Carlo sampling ({_count(s.sample_size, 'sample')} per row): how "
                     "much each feature's value moved this prediction away from the average prediction. Exact "
                     "Shapley values of one row add up to prediction − average; these sampled ones do so up to "
                     "their Monte-Carlo error."))
        one = Section(self._sid("shapley-row"), f"Row {shown}")
        x = self._row(row)
        one.add(Table(x, caption=f"The explained row: row {shown} of the data (0-based position; row 0 is the first "
                                 "data row).", max_rows=None))
        kwargs = dict(x_interest=x, sample_size=s.sample_size)

        def make(rs, **kw):
            return pyiml.Shapley(self.predictor, random_state=rs, **kw)

        obj = self._step("Shapley", lambda: make(self.random_state(), **kwargs), one)
        keys = ["feature", "class", "feature.value"]
        if obj is not None:
            res = obj.results
            fig = self._step("Shapley plot", obj.plot, one)
            if fig is not None:
                one.add(_image(fig, f"Shapley values of row {shown}", f"Shapley values of row {shown}.", s.dpi))
            one.add(Table(res, caption="`Shapley$results`", max_rows=None))
            se = np.sqrt(res["phi.var"].to_numpy(dtype=float) / s.sample_size)
            if np.isfinite(se).any():
                one.add(Text(f"`sqrt(phi.var / sample.size)` is at most {np.nanmax(se):.3g} (φ ranges from "
                             f"{res['phi'].min():.3g} to {res['phi'].max():.3g}): a lower bound of φ's Monte-Carlo "
                             "standard error, since the background rows are themselves a sample drawn with "
                             "replacement (as in iml), which adds variance of its own; raise `--sample-size` for more "
                             "precise values."))
            self._add_run(Run("shapley", f"Shapley row {shown} (sample size {s.sample_size})", "Shapley", kwargs,
                              {"results": res}, random=True, seeded=self.exact,
                              rerun=lambda rs: {"results": make(rs, **kwargs).results},
                              value_columns=["phi"], key_columns=[k for k in keys if k in res.columns]))
        sec.children.append(one)
        rows = _spread_rows(len(self.data), s.batch_rows, row)
        if rows:
            batch = Section(self._sid("shapley-batch"), f"A batch of {len(rows)} rows")
            xb = self.predictor.data.X.iloc[rows].reset_index(drop=True)
            labels = [self._label(i) for i in rows]
            bkw = dict(x_interest=xb, sample_size=s.sample_size)
            objb = self._step("Shapley batch", lambda: make(self.random_state(), **bkw), batch)
            if objb is not None:
                resb = objb.results
                batch.add(Text(f"Rows {', '.join(map(str, labels))} of the data (0-based positions) explained with "
                               "one Shapley object; the table shows φ per row (columns) and feature, for the first "
                               "output."))
                batch.add(Table(_phi_matrix(resb, labels, self.features), caption="φ per feature and row",
                                max_rows=None))
                fig = self._step("Shapley batch plot", objb.plot, batch)
                if fig is not None:
                    batch.add(_image(fig, "Shapley batch plot",
                                     f"Shapley values of row {labels[0]}, the first of the batch (`plot(id = 1)`).",
                                     s.dpi))
                self._add_run(Run("shapley-batch", f"Shapley batch of {len(rows)} rows", "Shapley",
                                  dict(x_interest=xb.iloc[[0]].reset_index(drop=True), sample_size=s.sample_size),
                                  {"results": resb}, random=True, seeded=self.exact,
                                  rerun=lambda rs: {"results": make(rs, **bkw).results},
                                  explain_rows=[xb.iloc[[i]].reset_index(drop=True) for i in range(1, len(rows))],
                                  value_columns=["phi"], key_columns=[k for k in keys if k in resb.columns]))
            sec.children.append(batch)
        return sec

    def _local_model(self) -> Section:
        pyiml, s = self.pyiml, self.s
        row, shown = self.row, self._label(self.row)
        sec = Section(self._sid("localmodel"), f"Local surrogate of row {shown} (LocalModel)")
        sec.add(Text(f"A sparse linear model (lasso, k = {s.k} features) fitted to the model's predictions on the "
                     "data, weighted by Gower proximity to the explained row; `effect` = coefficient × the row's "
                     "value."))
        kwargs = dict(x_interest=self._row(row), k=s.k)
        obj = self._step("LocalModel", lambda: pyiml.LocalModel(self.predictor, **kwargs), sec)
        if obj is None:
            return sec
        fig = self._step("LocalModel plot", obj.plot, sec)
        if fig is not None:
            sec.add(_image(fig, "LocalModel plot", f"Effects of the local model at row {shown}.", s.dpi))
        res = obj.results
        sec.add(Table(res, caption="`LocalModel$results`", max_rows=None))
        self._add_run(Run("localmodel", f"LocalModel row {shown} (k {s.k})", "LocalModel", kwargs, {"results": res},
                          value_columns=["beta", "effect"],
                          key_columns=[c for c in ("feature.value", ".class") if c in res.columns]))
        return sec

    def _tree_surrogate(self) -> Section:
        pyiml, s = self.pyiml, self.s
        sec = Section(self._sid("treesurrogate"), "Global surrogate tree (TreeSurrogate)")
        sec.add(Text(f"A conditional inference tree of depth ≤ {s.maxdepth} fitted to the model's predictions. "
                     "r.squared says how much of the prediction variance the tree reproduces."))
        kwargs = dict(maxdepth=s.maxdepth)
        obj = self._step("TreeSurrogate", lambda: pyiml.TreeSurrogate(self.predictor, **kwargs), sec)
        if obj is None:
            return sec
        r2 = np.atleast_1d(np.asarray(obj.r_squared, dtype=float))
        names = self.predictor.output_names or [""]
        label = ", ".join(f"{n}: {v:.4f}" if len(r2) > 1 else f"{v:.4f}" for n, v in zip(names, r2))
        sec.add(KeyValues({"r.squared": label, "maxdepth": s.maxdepth,
                           "terminal nodes": int(obj.results[".node"].nunique())}))
        tree_text = _tree_text(obj, list(names))
        if tree_text:
            sec.add(Pre(tree_text, caption="The tree (partykit's print layout): splits, then n and the mean "
                                           "prediction per terminal node."))
        fig = self._step("TreeSurrogate plot", obj.plot, sec)
        if fig is not None:
            sec.add(_image(fig, "TreeSurrogate plot", "iml's plot: the model's predictions in each terminal node.",
                           s.dpi))
        res = obj.results
        sec.add(Table(_node_table(res), caption="Terminal nodes: rows, rule and mean predictions.", max_rows=None))
        tree_cols = [c for c in res.columns if c.startswith(".y.hat.tree")]
        self._add_run(Run("treesurrogate", f"TreeSurrogate (maxdepth {s.maxdepth})", "TreeSurrogate", kwargs,
                          {"results": res, "r.squared": r2}, value_columns=tree_cols,
                          key_columns=[".node", ".path"]))
        return sec


def _phi_matrix(res: pd.DataFrame, rows: List[int], features: List[str]) -> pd.DataFrame:
    """φ of a multi-row Shapley result as a feature × row table (first output class)."""
    df = res
    if "class" in df.columns:
        first = df["class"].iloc[0]
        df = df[df["class"] == first]
    n = len(rows)
    p = len(features)
    if len(df) != n * p:
        raise ValueError(f"Shapley batch results have {len(df)} rows for {n} rows × {p} features")
    idcol = next((c for c in (".id", "row", ".row", "x.interest.row") if c in df.columns), None)
    if idcol is not None:
        ids = pd.unique(df[idcol])
        phi = np.column_stack([df.loc[df[idcol] == i, "phi"].to_numpy(dtype=float) for i in ids])
        feats = df.loc[df[idcol] == ids[0], "feature"].astype(str).to_list()
    else:
        phi = df["phi"].to_numpy(dtype=float).reshape(n, p).T
        feats = df["feature"].astype(str).to_list()[:p]
    out = pd.DataFrame(phi, columns=[f"row {r}" for r in rows])
    out.insert(0, "feature", feats)
    return out


def _node_table(res: pd.DataFrame) -> pd.DataFrame:
    yhat = [c for c in res.columns if c.startswith(".y.hat") and not c.startswith(".y.hat.tree")]
    tree = [c for c in res.columns if c.startswith(".y.hat.tree")]
    g = res.groupby(".node", sort=True)
    out = pd.DataFrame({".node": list(g.groups.keys())})
    out["rows"] = g.size().to_numpy()
    if ".path" in res.columns:
        out[".path"] = g[".path"].first().astype(object).where(g[".path"].first().notna(), "(root)").to_numpy()
    for c in tree:
        out[c] = g[c].first().to_numpy()
    for c in yhat:
        out[f"mean {c}"] = g[c].mean().to_numpy()
    return out


def _tree_text(obj, outputs: List[str]) -> str:
    """The fitted tree as partykit prints it: one line per node, leaves with n and the means."""
    tree = getattr(obj, "tree", None)
    nodes = getattr(tree, "nodes", None)
    if not isinstance(nodes, dict) or 1 not in nodes:
        return ""
    lines: List[str] = []

    def walk(nid: int, depth: int, label: str) -> None:
        nd = nodes[nid]
        head = "|   " * depth + f"[{nid}] {label}"
        if nd.kids:
            p = getattr(nd, "p_value", None)
            lines.append(head + (f" (split p = {p:.3g})" if p is not None and np.isfinite(p) else ""))
            for k, kid in enumerate(nd.kids):
                walk(kid, depth + 1, nd.split.condition(k + 1))
        else:
            mean = np.atleast_1d(np.asarray(nd.prediction, dtype=float))
            names = outputs if len(outputs) == len(mean) and len(mean) > 1 else [""] * len(mean)
            shown = ", ".join(f"{n}{'=' if n else ''}{v:.4g}" for n, v in zip(names, mean))
            lines.append(f"{head}: n = {nd.n}, mean prediction {shown}")

    walk(1, 0, "root")
    return "\n".join(lines)


def explain_case(case: Case, methods: Optional[Sequence[str]] = None, settings: Optional[Settings] = None,
                 seed: Optional[int] = None, r_seed: Optional[int] = None, progress: bool = False
                 ) -> CaseResult:
    """Explain one case with every requested method.

    Parameters
    ----------
    case : Case
    methods : sequence of str or None
        Method names (default: every available method).
    settings : Settings or None
    seed : int or None
        numpy seed for the random methods (one fresh seed per method).
    r_seed : int or None
        Use ``pyiml.RRandom(r_seed)`` per method, so the numbers equal CRAN iml's after
        ``set.seed(r_seed)``. Takes precedence over ``seed``.
    progress : bool, default False
        Step progress on stderr (a tqdm bar).

    Returns
    -------
    CaseResult
    """
    methods = resolve_methods(methods)
    settings = settings or Settings()
    _check_seeds(seed, r_seed)
    bar = _Progress(_n_steps(methods, settings), progress, "pyiml report")
    try:
        return _CaseExplainer(case, methods, settings, seed, r_seed, bar).run()
    finally:
        bar.close()


def _n_steps(methods: Sequence[str], s: Settings) -> int:
    per = {"FeatureImp": 2, "FeatureEffect": 4 * max(s.top_features, 1), "FeatureEffects": 2, "Interaction": 6,
           "Shapley": 4, "LocalModel": 2, "TreeSurrogate": 2}
    return 1 + sum(per[m] for m in methods)


class ReportWriteError(OSError):
    """The report cannot be written where it was asked to be; the message names the path, why,
    and the fix."""


def check_report_path(out_dir) -> Path:
    """``out_dir/index.html``, the report's file, once it is known that it can be written.

    ``out_dir`` is made if it is missing. Writing is tried, not inferred from permissions (root
    passes every permission check but cannot write to ``/proc``): an existing ``index.html`` is
    opened for appending, which writes nothing; otherwise a temporary file is made (and removed)
    in ``out_dir``.

    Raises
    ------
    ReportWriteError
        For an ``out_dir`` that is a file or cannot be made or written to, and an ``index.html``
        there that is a directory (or another non-file) or cannot be written (a symbolic link
        to a missing file: where the directory it points to is missing or cannot be written).
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ReportWriteError(f"{out} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportWriteError(f"cannot make the directory {out}: {exc.strerror or exc}") from exc
    path = out / "index.html"
    if path.is_dir():
        raise ReportWriteError(f"{path} is a directory, where the report's file goes: remove or rename it, or "
                               "write the report to another directory")
    if path.exists() and not path.is_file():
        raise ReportWriteError(f"{path} is not a regular file, where the report's file goes: remove or rename it, "
                               "or write the report to another directory")
    existing = path.exists()
    if path.is_symlink() and not existing:   # a link to nothing: the report would go where it points
        target = path.resolve()
        if not target.parent.is_dir():
            raise ReportWriteError(f"{path} is a symbolic link to {target}, whose directory does not exist: "
                                   "remove the link, or write the report to another directory")
    try:
        if existing:
            with open(path, "ab"):   # appends nothing
                pass
        else:
            with tempfile.TemporaryFile(dir=path.resolve().parent if path.is_symlink() else out):
                pass
    except OSError as exc:
        if existing:
            raise ReportWriteError(f"cannot write {path}: {exc.strerror or exc}; make it writable, remove it, or "
                                   "write the report to another directory") from exc
        raise ReportWriteError(f"cannot write to {out}: {exc.strerror or exc}") from exc
    return path


def _check_seeds(seed, r_seed) -> None:
    """``TypeError``/``ValueError`` before any method runs for a seed that every random method
    would fail on: ``seed`` (numpy's) must be an int >= 0, ``r_seed`` an int R's ``set.seed``
    takes (see :func:`_check_compared_seed` for ``seed`` in the comparison with CRAN iml)."""
    from ..random import _SEED_MAX, _SEED_MIN, _is_int

    for name, value in (("seed", seed), ("r_seed", r_seed)):
        if value is not None and not _is_int(value):
            raise TypeError(f"{name} must be an int or None, got {value!r} of type {type(value).__name__}")
    if r_seed is not None and not _SEED_MIN <= r_seed <= _SEED_MAX:
        raise ValueError(f"r_seed must be in [{_SEED_MIN}, {_SEED_MAX}] (R's set.seed takes a 32-bit integer), "
                         f"got {r_seed}: pass a seed in that range")
    if seed is not None and seed < 0:
        raise ValueError(f"seed must be >= 0 (a numpy seed), got {seed}: pass r_seed for R's negative seeds")


def _check_compared_seed(seed) -> None:
    """A numpy ``seed`` that the comparison with CRAN iml replays as ``set.seed(seed)`` must be
    within R's 32-bit range."""
    from ..random import _SEED_MAX

    if seed is not None and seed > _SEED_MAX:
        raise ValueError(f"seed must be <= {_SEED_MAX} when the report is compared with CRAN iml (the comparison "
                         f"replays R's set.seed(seed), a 32-bit integer), got {seed}: pass a smaller seed, or "
                         "compare_r=False")


def build_report(cases: Sequence[Case], out_dir="report", methods: Optional[Sequence[str]] = None,
                 settings: Optional[Settings] = None, seed: Optional[int] = None, r_seed: Optional[int] = None,
                 compare_r: bool = True, progress: bool = False, title: Optional[str] = None,
                 intro: str = "") -> "BuildResult":
    """Explain ``cases`` and write ``out_dir/index.html``.

    Parameters
    ----------
    cases : sequence of Case
    out_dir : str or Path
        Created if missing; the report is ``out_dir/index.html``.
    methods : sequence of str or None
        Method names (case-insensitive); default every method this pyiml provides.
    settings : Settings or None
    seed, r_seed : int or None
        See :func:`explain_case`. The CRAN iml comparison always uses R-exact draws: with
        ``r_seed`` it compares the report's own numbers, otherwise it recomputes the random
        methods with ``RRandom(seed or 1)`` for the comparison.
    compare_r : bool
        Add the CRAN iml section when R and iml are available (else one line says how to get it).
    progress : bool, default False
        Step progress on stderr (a tqdm bar).
    title : str or None
    intro : str
        A sentence under the title.

    Returns
    -------
    BuildResult
        ``path`` of the written file, the per-case results, the comparison summaries, pyiml's
        failures (``failures``) and CRAN iml's (``r_failures``: a method iml could not run).

    Raises
    ------
    ReportWriteError
        Before any method runs, when ``out_dir/index.html`` cannot be written (see
        :func:`check_report_path`); after the work, when writing it fails after all.
    TypeError, ValueError
        Before any method runs, for a ``seed`` or ``r_seed`` the random methods cannot use
        (``seed``: an int >= 0, and <= 2147483647 when compared with CRAN iml under numpy draws;
        ``r_seed``: in R's 32-bit range, [-2147483647, 2147483647]).
    """
    from . import r_side

    methods = resolve_methods(methods)
    settings = settings or Settings()
    cmp_seed = r_seed if r_seed is not None else (seed if seed is not None else 1)
    _check_seeds(seed, r_seed)
    path = check_report_path(out_dir)   # before any work (R's start too): a report that cannot be written fails now
    r_problem = r_side.r_problem() if compare_r else None
    do_r = compare_r and r_problem is None
    if do_r and r_seed is None:
        _check_compared_seed(seed)
    total = sum(_n_steps(methods, settings) for _ in cases)
    if do_r:
        total += sum(r_side.n_steps(methods, settings) for _ in cases)
    bar = _Progress(total, progress, "pyiml report")
    results: List[CaseResult] = []
    comparisons = []
    failures: List[str] = []
    r_failures: List[str] = []
    try:
        for case in cases:
            res = _CaseExplainer(case, methods, settings, seed, r_seed, bar).run()
            results.append(res)
            failures.extend(res.failures)
            if do_r:
                cmp = r_side.compare_case(res, cmp_seed, bar)
                comparisons.append(cmp)
                r_failures.extend(cmp.failures)
    finally:
        bar.close()
    pyiml = _pyiml()
    rand = (f"R-exact random draws: `RRandom({r_seed})` per method (= `set.seed({r_seed})` in R)" if r_seed is not None
            else f"numpy random seed {seed} per method" if seed is not None else "unseeded numpy random draws")
    header = [Text(intro or "Model-agnostic interpretation with pyiml."),
              Text(f"pyiml {pyiml.__version__} · methods: {', '.join(methods)} · {rand}.")]
    if do_r:
        rows = [row for c in comparisons for row in c.rows]
        agree = sum(str(row["agreement"]).startswith(("identical", "equal")) for row in rows)
        failed = sum(str(row["agreement"]) == "iml failed" for row in rows)
        parts = []
        if rows:
            parts.append(f"{agree} of {len(rows) - failed} compared results agree (identical, or equal to 1e-10 "
                         "relative)")
        if failed:
            parts.append(f"iml failed on {failed} (notes in that section)")
        no_pred = [f"`{c.key}`" for c in comparisons if c.predictor_failed]
        if no_pred:
            parts.append(f"iml could not make its Predictor for {', '.join(no_pred)}")
        header.append(Text(f"CRAN iml, run on the same model and data: {'; '.join(parts)} — see the last section."))
    report = Report(title=title or "pyiml report", intro=header)
    settings_sec = Section("settings", "Settings")
    settings_sec.add(KeyValues(settings.describe(), caption="Method settings used for every model."))
    report.sections = [settings_sec] + [r.section for r in results]
    if do_r:
        report.sections.append(r_side.comparison_section(comparisons))
    elif compare_r:
        report.sections.append(r_side.missing_section(r_problem))
    report.footer = f"pyiml {pyiml.__version__}"
    page = render(report)
    try:   # checked before the work, but the file or the disk may have changed since
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ReportWriteError(f"cannot write {path}: {exc.strerror or exc}; free some space or make it writable, "
                               "or write the report to another directory") from exc
    return BuildResult(path=path, cases=results, comparisons=comparisons, failures=failures,
                       section_ids=report.section_ids(), r_problem=r_problem if compare_r else None,
                       r_failures=r_failures)


@dataclass
class BuildResult:
    """What :func:`build_report` wrote and computed (``failures``: pyiml methods that failed;
    ``r_failures``: iml calls of the comparison that failed)."""

    path: Path
    cases: List[CaseResult]
    comparisons: list
    failures: List[str]
    section_ids: List[str]
    r_problem: Optional[str] = None
    r_failures: List[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- shipped data
def demo_cases() -> List[Case]:
    """The demo: models fitted on data that ships with scikit-learn (no download).

    * ``diabetes``: a ``GradientBoostingRegressor`` on scikit-learn's diabetes data (442 patients,
      10 baseline measurements in their original units, target: disease progression after one year).
    * ``iris``: a ``RandomForestClassifier`` on Fisher's iris data (150 flowers, 4 measurements,
      3 species), explained through its class probabilities.
    """
    from sklearn.datasets import load_diabetes, load_iris
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier

    try:
        diab = load_diabetes(as_frame=True, scaled=False).frame
        units = "in their original units"
    except TypeError:  # scikit-learn < 1.1 has no `scaled`
        diab = load_diabetes(as_frame=True).frame
        units = "mean-centred and scaled"
    diab = diab.rename(columns={"target": "progression"})
    Xd = diab.drop(columns="progression")
    gbr = GradientBoostingRegressor(n_estimators=100, max_depth=3, learning_rate=0.1, random_state=0)
    gbr.fit(Xd, diab["progression"])
    iris_raw = load_iris(as_frame=True)
    iris = iris_raw.data.copy()
    iris.columns = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    names = [str(n) for n in iris_raw.target_names]
    iris["species"] = pd.Categorical.from_codes(iris_raw.target.to_numpy(), categories=names)
    rf = RandomForestClassifier(n_estimators=100, max_depth=4, random_state=0)
    rf.fit(iris.drop(columns="species"), iris["species"].astype(str))
    return [
        Case("diabetes", "Diabetes progression: gradient boosting regression", gbr, diab, "progression",
             description=(f"scikit-learn's diabetes data: 442 patients, 10 baseline variables {units} (age, sex, "
                          "body mass index `bmi`, mean blood pressure `bp`, six blood serum measurements `s1`–`s6`: "
                          "total cholesterol, LDL, HDL, total/HDL, log triglycerides, blood sugar); target "
                          "`progression`, a measure of disease progression one year later. Model: "
                          "`GradientBoostingRegressor(n_estimators=100, max_depth=3, random_state=0)`."),
             loss="mae", row=0),
        Case("iris", "Iris species: random forest classifier", rf, iris, "species",
             description=("Fisher's iris data as shipped with scikit-learn: 150 flowers, 4 measurements in cm, "
                          "3 species. Model: `RandomForestClassifier(n_estimators=100, max_depth=4, "
                          "random_state=0)`, explained through its class probabilities (one output per "
                          "species); FeatureImp uses the classification error of the most probable class."),
             loss="ce", row=77),
    ]
