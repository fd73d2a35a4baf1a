"""``TreeSurrogate``: a shallow decision tree that mimics the model's predictions.

R equivalent: ``iml::TreeSurrogate`` (iml 0.11.4, spec §15). Every data row is predicted once
and a conditional inference tree (R's ``partykit::ctree``, reproduced by
:mod:`pyiml._algorithms.ctree`) is fitted to the predictions; ``r_squared`` measures how well
the tree reproduces the model (its fidelity).
"""
from __future__ import annotations

import inspect
import math
import numbers
from typing import Dict, List, Optional, Union

import numpy as np
import pandas as pd

from ._algorithms.ctree import CTree, ctree
from ._algorithms.rformat import r_as_character
from ._algorithms.rstats import r_var
from ._base import InterpretationMethod, refuse_result_names
from .predictor import Predictor
from .shapley import check_x_interest, row_labels
from ._text import shown

__all__ = ["TreeSurrogate", "ENGINES"]

#: Tree learners: iml's conditional inference tree, or scikit-learn's CART (not iml parity).
ENGINES = ("ctree", "cart")

_CTREE_OPTIONS = tuple(n for n in inspect.signature(ctree).parameters
                       if n not in ("X", "Y", "response_names", "maxdepth"))


def _normalise_tree_args(tree_args, engine: str) -> dict:
    """``tree_args`` with R's dotted names (``mincriterion``, ``MIA``, ``max.depth``…) in snake_case."""
    if tree_args is None:
        return {}
    if not isinstance(tree_args, dict):
        raise TypeError(f"tree_args must be a dict of tree options, got {type(tree_args).__name__}")
    out = {}
    for key, value in tree_args.items():
        if not isinstance(key, str):
            raise TypeError(f"tree_args keys must be option names (str), got {shown(key)}")
        name = key.replace(".", "_")
        if engine == "ctree":
            name = "mia" if name == "MIA" else name
            if name == "maxdepth":
                raise ValueError("tree_args: give maxdepth as TreeSurrogate's maxdepth argument, not in "
                                 "tree_args (iml: formal argument matched by multiple actual arguments)")
            if name not in _CTREE_OPTIONS:
                raise ValueError(f"tree_args: {key!r} is not a ctree_control option; allowed: "
                                 f"{', '.join(_CTREE_OPTIONS)}")
        elif name in ("max_depth", "maxdepth"):
            raise ValueError("tree_args: give the depth as TreeSurrogate's maxdepth argument")
        if name in out:
            raise ValueError(f"tree_args: option {name!r} given twice")
        out[name] = value
    return out


def _tree_frame(X: pd.DataFrame) -> pd.DataFrame:
    """Features as ctree takes them: strings and bools become categoricals (sorted levels)."""
    if all(isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_float_dtype(dt)
           or (pd.api.types.is_integer_dtype(dt) and not pd.api.types.is_bool_dtype(dt)) for dt in X.dtypes):
        return X
    cols = {}
    for c in X.columns:
        s = X[c]
        dt = s.dtype
        if isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_float_dtype(dt) or (
                pd.api.types.is_integer_dtype(dt) and not pd.api.types.is_bool_dtype(dt)):
            cols[c] = s
        elif pd.api.types.is_bool_dtype(dt):
            vals = s.astype(object) if s.hasnans else s.to_numpy(dtype=bool)    # a boolean <NA> stays missing
            cols[c] = pd.Categorical(vals, categories=[False, True])
        else:
            cols[c] = pd.Categorical(s.astype(object), categories=sorted(pd.unique(s.dropna())))
    return pd.DataFrame(cols)  # in X's column order (columns= would make pandas 1.5 copy each column to objects)


def _fidelity(tree_pred: np.ndarray, model_pred: np.ndarray):
    """iml's ``compute_r2``: ``1 - var(tree - model) / var(model)`` per output (R's var)."""
    out = np.empty(model_pred.shape[1])
    for j in range(model_pred.shape[1]):
        sst = r_var(model_pred[:, j])
        sse = r_var(tree_pred[:, j] - model_pred[:, j])
        with np.errstate(divide="ignore", invalid="ignore"):
            out[j] = 1.0 - np.float64(sse) / np.float64(sst)
    return out


# ---------------------------------------------------------------------------- CART engine
class _Cart:
    """scikit-learn's ``DecisionTreeRegressor`` behind the small interface TreeSurrogate uses.

    Categorical features are one-hot encoded (ordered ones by their level codes); the rule
    strings use iml's format (``x <= 0.5``, ``f %in% c("a", "b")``).
    """

    def __init__(self, X: pd.DataFrame, Y: np.ndarray, maxdepth, response_names, **kwargs):
        from sklearn.tree import DecisionTreeRegressor

        self.response_names = list(response_names)
        self._spec = []  # per encoded column: (feature, kind, level or levels)
        self.levels: Dict[str, list] = {}
        for c in X.columns:
            s = X[c]
            if isinstance(s.dtype, pd.CategoricalDtype):
                levels = [lv for lv in s.cat.categories if (s == lv).any()]
                self.levels[c] = levels
                if s.cat.ordered:
                    self._spec.append((c, "ordered", levels))
                else:
                    self._spec += [(c, "level", lv) for lv in levels]
            else:
                self._spec.append((c, "numeric", None))
        kwargs.setdefault("random_state", 0)
        depth = None if math.isinf(maxdepth) else int(maxdepth)
        self.estimator = DecisionTreeRegressor(max_depth=depth, **kwargs)
        y = Y[:, 0] if Y.shape[1] == 1 else Y
        self.estimator.fit(self._encode(X), y)
        self.fitted_nodes = self.estimator.apply(self._encode(X)) + 1
        self._rules = self._build_rules()

    def _encode(self, X: pd.DataFrame) -> np.ndarray:
        cols = []
        for c, kind, lv in self._spec:
            s = X[c]
            if kind == "numeric":
                cols.append(pd.to_numeric(s).to_numpy(dtype=float, na_value=np.nan))   # pd.NA of Float64/Int64 too
            elif kind == "ordered":
                cols.append(np.asarray(pd.Categorical(s.astype(object), categories=lv).codes, dtype=float))
            else:
                cols.append(np.asarray(s.astype(object) == lv, dtype=float))
        return np.column_stack(cols)

    def _build_rules(self) -> Dict[int, str]:
        t = self.estimator.tree_
        rules: Dict[int, str] = {}
        self.edges: Dict[int, tuple] = {}  # node id -> (condition of the left kid, of the right kid)

        def walk(node: int, conds: List[str], allowed: Dict[str, list]):
            left, right = t.children_left[node], t.children_right[node]
            if left == -1:
                rules[node + 1] = " & ".join(conds)
                return
            c, kind, lv = self._spec[t.feature[node]]
            thr = float(t.threshold[node])
            if kind == "numeric":
                b = r_as_character(thr)
                self.edges[node + 1] = (f"{c} <= {b}", f"{c} > {b}")
                walk(left, conds + [self.edges[node + 1][0]], allowed)
                walk(right, conds + [self.edges[node + 1][1]], allowed)
                return
            current = allowed.get(c, self.levels[c])
            if kind == "ordered":
                go_left = [x for x in current if self.levels[c].index(x) <= thr]
            else:  # indicator of level lv: <= 0.5 means "not lv"
                go_left = [x for x in current if x != lv]
            go_right = [x for x in current if x not in go_left]
            kid_rules = [c + ' %in% c("' + '", "'.join(str(x) for x in levs) + '")' for levs in (go_left, go_right)]
            self.edges[node + 1] = tuple(kid_rules)
            for kid, levs, rule in ((left, go_left, kid_rules[0]), (right, go_right, kid_rules[1])):
                walk(kid, conds + [rule], {**allowed, c: levs})

        walk(0, [], {})
        return rules

    def apply(self, X: Optional[pd.DataFrame] = None) -> np.ndarray:
        if X is None:
            return self.fitted_nodes.copy()
        return self._walk(self._encode(X)) + 1

    def _walk(self, Z: np.ndarray) -> np.ndarray:
        """0-based leaf of each row of the encoded ``Z``: ``x <= threshold`` on float32 values, as
        ``DecisionTreeRegressor.apply``; a missing value goes to the child with more training rows
        (the right one on a tie), as scikit-learn >= 1.3 routes it for a tree fitted without
        missing values (older versions refuse NaN)."""
        t = self.estimator.tree_
        left, right = t.children_left, t.children_right
        Z = Z.astype(np.float32)
        node = np.zeros(len(Z), dtype=np.intp)
        todo = np.flatnonzero(left[node] != -1)
        while todo.size:
            nd = node[todo]
            v = Z[todo, t.feature[nd]]
            bigger_left = t.n_node_samples[left[nd]] > t.n_node_samples[right[nd]]
            go_left = np.where(np.isnan(v), bigger_left, v <= t.threshold[nd])
            node[todo] = np.where(go_left, left[nd], right[nd])
            todo = todo[left[node[todo]] != -1]
        return node

    def predict(self, X: Optional[pd.DataFrame] = None) -> np.ndarray:
        ids = self.apply(X) - 1
        return self.estimator.tree_.value[ids, :, 0]

    def paths(self, X: Optional[pd.DataFrame] = None) -> np.ndarray:
        ids = self.apply(X)
        out = np.empty(ids.size, dtype=object)
        if self.estimator.tree_.node_count == 1:
            out[:] = None
            return out
        for i in np.unique(ids):
            out[ids == i] = self._rules[int(i)].replace("&", "&\n")
        return out


# ---------------------------------------------------------------------------- TreeSurrogate
class TreeSurrogate(InterpretationMethod):
    """A decision tree fitted to the model's predictions (a global surrogate).

    R equivalent: ``iml::TreeSurrogate$new(predictor, maxdepth = 2, tree.args = NULL)``,
    ``predict(<TreeSurrogate>, newdata, type = "prob")``.

    Every data row is predicted once; ``partykit::ctree(y.hat ~ ., maxdepth = maxdepth, ...)``
    is fitted to the predictions (several outputs form a multivariate response
    ``c1 + c2 + ... ~ .``). The conditional inference tree splits only where a permutation
    test finds a significant association (Bonferroni-adjusted, ``alpha = 0.05``), needs 20 rows
    to split a node and 7 per leaf; with fewer rows the tree is the root alone.

    Parameters
    ----------
    predictor : Predictor
    maxdepth : int, default 2
        Maximal depth of the tree (at least 1; ``math.inf`` for no limit).
    tree_args : dict, optional
        ``ctree_control`` options (R: ``tree.args``), by R name (``minsplit``,
        ``mincriterion``, ``minbucket``, ``alpha``, ``testtype``, ``MIA``…) or in snake_case
        (``min_split`` is not an alias: the names are partykit's). With ``engine="cart"``:
        keyword arguments of scikit-learn's ``DecisionTreeRegressor`` (``min_samples_leaf``…).
    engine : {"ctree", "cart"}, default "ctree"
        ``"ctree"`` is iml's tree (parity with R). ``"cart"`` fits scikit-learn's
        ``DecisionTreeRegressor(max_depth=maxdepth)`` instead (categorical features one-hot
        encoded, ordered ones by level code): not iml, but splits wherever the squared error
        drops, without a significance test.

    Attributes
    ----------
    results : pandas.DataFrame
        The features, then ``.node`` (terminal node id, pre-order with root 1), ``.path`` (the
        node's rule, ``"x1 <= 0.5 &\\n x2 > 0.3"``; None for a root-only tree as R's NA), then
        ``.y.hat``, ``.y.hat.tree`` for one output, or ``.y.hat.<class>`` for every class
        followed by ``.y.hat.tree.<class>`` for every class.
    tree : CTree or sklearn.tree.DecisionTreeRegressor
        The fitted tree (R: ``tree``, a partykit ``constparty``).
    maxdepth : int or float
    r_squared : float or pandas.Series
        Fidelity ``1 - var(tree - model) / var(model)`` (sample variances) on the data: a
        float for one output, a Series indexed by class for several (R: an unnamed vector).
    predictor : Predictor

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pyiml import Predictor, TreeSurrogate
    >>> X = pd.DataFrame(np.random.default_rng(0).uniform(size=(200, 2)), columns=["a", "b"])
    >>> p = Predictor(predict_function=lambda d: (d["a"] > 0.5) * 2.0, data=X)
    >>> ts = TreeSurrogate(p, maxdepth=1)
    >>> ts.r_squared
    1.0
    """

    def __init__(self, predictor: Predictor, maxdepth: Union[int, float] = 2, tree_args: Optional[dict] = None, *,
                 engine: str = "ctree"):
        if isinstance(maxdepth, bool) or not isinstance(maxdepth, numbers.Real) or math.isnan(maxdepth) \
                or maxdepth < 1 or (not math.isinf(maxdepth) and maxdepth != int(maxdepth)):
            raise ValueError(f"maxdepth must be a whole number >= 1 (or math.inf), got {shown(maxdepth)}")
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {list(ENGINES)}, got {shown(engine)}")
        args = _normalise_tree_args(tree_args, engine)
        super().__init__(predictor)
        refuse_result_names(self.sampler.feature_names, lambda f: f in (".node", ".path") or f.startswith(".y.hat"),
                            "TreeSurrogate's results", ".node, .path, .y.hat…")
        self.maxdepth = maxdepth if math.isinf(maxdepth) else int(maxdepth)
        self.tree_args = args
        self.engine = engine
        self.tree: Optional[Union[CTree, object]] = None
        self.r_squared = None
        self._run()

    # ------------------------------------------------------------------ run
    def _run(self, force: bool = False) -> None:
        X = self.sampler.X
        P = self.predictor.predict_batched(len(X), lambda s, e: X.iloc[s:e])
        outputs = list(self.predictor.output_names)
        multi = P.shape[1] > 1
        self._multiclass = multi
        self._outputs = outputs   # the tree's own outputs: a later class_ change does not rename them
        TX = _tree_frame(X)
        names = outputs if multi else ["y.hat"]
        if self.engine == "ctree":
            self._fit = ctree(TX, P, response_names=names, maxdepth=self.maxdepth, **self.tree_args)
            self.tree = self._fit
        else:
            self._fit = _Cart(TX, P, self.maxdepth, names, **self.tree_args)
            self.tree = self._fit.estimator
        T = self._fit.predict(None)
        fid = _fidelity(T, P)
        extra = {".node": np.asarray(self._fit.apply(None), dtype=np.int64), ".path": self._fit.paths(None)}
        if multi:
            for j, c in enumerate(outputs):
                extra[f".y.hat.{c}"] = P[:, j]
            for j, c in enumerate(outputs):
                extra[f".y.hat.tree.{c}"] = T[:, j]
            self.r_squared = pd.Series(fid, index=pd.Index(outputs, dtype=object), name="r.squared")
        else:
            extra[".y.hat"] = P[:, 0]
            extra[".y.hat.tree"] = T[:, 0]
            self.r_squared = float(fid[0])
        self.results = pd.concat([X, pd.DataFrame(extra, index=X.index)], axis=1)
        self._finished = True

    # ------------------------------------------------------------------ public
    def _newdata(self, newdata) -> pd.DataFrame:
        return _tree_frame(check_x_interest(self.sampler, newdata, "newdata", allow_missing=True))

    def predict(self, newdata: pd.DataFrame, type: str = "prob") -> pd.DataFrame:
        """The tree's predictions (R: ``predict(<TreeSurrogate>, newdata, type = "prob")``).

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with every feature; extra columns are dropped with iml's warning (target
            columns silently), missing features raise ``ValueError("Missing columns: …")``.
            Missing values are allowed: at a split on a missing value the row goes to the child
            with more training rows (partykit picks a child at random with those proportions).
        type : {"prob", "class"}
            Several outputs: ``"prob"`` gives the predicted means of every output column,
            ``"class"`` a column ``.class`` with the output of the largest mean (the first
            on ties). Ignored for one output, as in iml.

        Returns
        -------
        pandas.DataFrame
            One output: a column ``.y.hat`` (the leaf means). The index is ``newdata``'s.
        """
        if type not in ("prob", "class"):
            raise ValueError(f"type must be 'prob' or 'class', got {shown(type)}")
        nd = self._newdata(newdata)
        T = self._fit.predict(nd)
        outputs = self._tree_outputs()
        # newdata's row labels (iml drops R's row names; pandas users align on the index)
        index = row_labels(newdata)
        if not self._multiclass:
            return pd.DataFrame({".y.hat": T[:, 0]}, index=index)
        if type == "class":
            return pd.DataFrame({".class": np.asarray(outputs, dtype=object)[np.argmax(T, axis=1)]}, index=index)
        return pd.DataFrame(T, columns=outputs, index=index)

    def r_squared_on(self, newdata: pd.DataFrame):
        """Fidelity on other data, e.g. held-out rows: ``1 - var(tree - model) / var(model)``.

        Not in iml (which reports the fidelity on the data the tree was fitted to).

        Parameters
        ----------
        newdata : pandas.DataFrame
            At least two rows with every feature.

        Returns
        -------
        float or pandas.Series
            As :attr:`r_squared`.
        """
        nd = check_x_interest(self.sampler, newdata, "newdata")
        if len(nd) < 2:
            raise ValueError("newdata needs at least two rows to compute a variance")
        P = self.predictor.predict_batched(len(nd), lambda s, e: nd.iloc[s:e])
        outputs, now = self._tree_outputs(), list(self.predictor.output_names)
        if now != outputs:
            # Predictor.class_ was assigned after the fit: compare each of the tree's outputs with
            # the model's output of that name
            missing = [c for c in outputs if c not in now]
            if missing:
                raise ValueError(
                    f"the tree was fitted to the model outputs {outputs}, but the predictor now gives {now} "
                    f"(its class_ was changed to {self.predictor.class_!r}): set class_ back to select "
                    f"{missing}, or fit a new TreeSurrogate")
            P = P[:, [now.index(c) for c in outputs]]
        T = self._fit.predict(_tree_frame(nd))
        fid = _fidelity(T, P)
        if self._multiclass:
            return pd.Series(fid, index=pd.Index(outputs, dtype=object), name="r.squared")
        return float(fid[0])

    def _tree_outputs(self) -> List[str]:
        """The model outputs the tree was fitted to (an object pickled before they were kept has
        none: the predictor's then)."""
        return list(getattr(self, "_outputs", None) or self.predictor.output_names)

    def _params_repr(self) -> list:
        rsq = self.r_squared
        txt = f"{rsq:.6g}" if isinstance(rsq, float) else ", ".join(f"{v:.6g}" for v in np.asarray(rsq))
        return [f"maxdepth: {self.maxdepth}", f"engine: {self.engine}", f"R-squared: {txt}"]

    def plot(self, kind: str = "leaves"):
        """Plot the surrogate; returns a matplotlib Figure.

        Parameters
        ----------
        kind : {"leaves", "tree"}
            ``"leaves"`` is iml's plot (R: ``plot(<TreeSurrogate>)``): one facet per leaf
            (``.path``) with a boxplot of the model's predictions ``.y.hat`` (one output) or bars
            counting the rows whose most probable class is each class (several outputs).
            ``"tree"`` draws the tree itself: splits with their conditions and, in every leaf,
            the number of rows and the mean prediction(s).
        """
        if kind not in ("leaves", "tree"):
            raise ValueError(f"kind must be 'leaves' or 'tree', got {shown(kind)}")
        return super().plot(kind=kind)

    def _plot(self, kind: str = "leaves"):
        from .plotting.tree_surrogate import plot_tree_diagram, plot_tree_surrogate

        outputs = self._tree_outputs()
        if kind == "tree":
            return plot_tree_diagram(self._tree_layout(), outputs if self._multiclass else None)
        return plot_tree_surrogate(self.results, multiclass=self._multiclass, outputs=outputs)

    def _tree_layout(self) -> dict:
        """Nodes as plain dicts (id, kids, edge labels, n, mean) for the diagram."""
        if self.engine == "ctree":
            nodes = {}
            for nid, nd in self.tree.nodes.items():
                labels = [nd.split.condition(k + 1) for k in range(len(nd.kids))] if nd.kids else []
                nodes[nid] = dict(kids=list(nd.kids), labels=labels, n=nd.n, mean=np.asarray(nd.prediction),
                                  var=nd.split.variable if nd.split else None, p=nd.p_value)
            return nodes
        t = self.tree.tree_
        nodes = {}
        for i in range(t.node_count):
            kids = [int(t.children_left[i]) + 1, int(t.children_right[i]) + 1] if t.children_left[i] != -1 else []
            var = self._fit._spec[t.feature[i]][0] if kids else None
            nodes[i + 1] = dict(kids=kids, labels=list(self._fit.edges.get(i + 1, ())), n=int(t.n_node_samples[i]),
                                mean=t.value[i, :, 0], var=var, p=None)
        return nodes
