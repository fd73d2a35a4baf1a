"""Conditional inference trees as R's ``partykit::ctree`` (partykit 1.2-16, libcoin 1.0-9) fits them.

iml's ``TreeSurrogate`` calls ``partykit::ctree(y.hat ~ ., data, maxdepth = maxdepth, ...)``
(several prediction columns become a multivariate response ``c1 + c2 + ... ~ .``). This module
restates that algorithm in numpy so that the tree, its p-values, the terminal node of every row,
the node means and iml's rule strings agree with R.

Algorithm (``partykit:::.extree_node`` with ``ctree_control()`` defaults)
------------------------------------------------------------------------
Nodes are grown depth-first and numbered in pre-order (root 1, then the whole left subtree,
then the right one). A node is terminal without any test when its depth reaches ``maxdepth``
(the root has depth 0), when ``stump`` is set and it is not the root, or when it holds fewer
than ``minsplit`` observations. Otherwise:

1. *Variable selection* (``.ctree_test``, libcoin ``LinStatExpCov`` + ``doTest``). For every
   predictor ``x`` and the response matrix ``Y`` (numeric responses are used as they are, several
   columns form a multivariate response) the linear statistic ``T = sum_i g(x_i) Y_i^T`` is
   compared with its conditional expectation and covariance under permutation
   (Strasser & Weber 1999)::

       mu = sum(Y)/n,  S = sum((Y_i - mu)(Y_i - mu)^T)/n,
       E(T) = sum(g(x)) (x) mu,
       Cov(T) = S (x) [n/(n-1) sum(g g^T) - 1/(n-1) sum(g) sum(g)^T].

   ``g`` is the identity for a numeric or integer ``x`` and the indicator vector of the levels for
   a factor; for an ordered factor the indicator statistic is multiplied by the scores
   ``1..K`` (``libcoin::lmult``) -- K counts the levels *used in the data* (``model.frame`` drops
   unused levels). If every variance is below ``tol`` the variable is not tested. The
   ``"quadratic"`` statistic is ``(T - E)^T Cov^+ (T - E)`` with the Moore-Penrose inverse from an
   eigen decomposition (eigenvalues below ``max eigenvalue * sqrt(.Machine$double.eps)`` are
   dropped; a 1x1 covariance is inverted when it exceeds that tolerance in absolute value); its
   rank is the degrees of freedom of the asymptotic chi^2 distribution. partykit keeps
   ``log(1 - p)`` and ``log(max(statistic, .Machine$double.eps))``.
2. *Multiplicity*: ``testtype = "Bonferroni"`` multiplies ``log(1 - p)`` by the number k of
   variables with a test result, i.e. the adjusted p-value is ``1 - (1 - p)^k`` (Sidak form,
   not ``min(1, k p)``). ``"Univariate"`` leaves p alone; ``"Teststatistic"`` uses the statistic as
   the criterion.
3. *Stop rule*: the criterion is ``log(1 - p_adj)``; criteria tied with the maximum (within
   ``sqrt(.Machine$double.xmin)``, which happens whenever several p-values underflow to 0) get
   ``rank(log statistic) / (sum(positions) * 1000)`` added, where positions are the 1-based
   column numbers in the model frame (responses first). The node is terminal when no criterion
   exceeds ``log(mincriterion)`` (``mincriterion = 1 - alpha``).
4. *Split search* (``.ctree_split``): the best ``splittry`` variables with a criterion above the
   threshold are tried in decreasing order of criterion (ties: later column first) until one
   admits a split. ``minbucket`` becomes ``max(minbucket, ceiling(n * minprob))``. For numeric,
   integer and ordered ``x`` every cut between adjacent observed values is scored with the
   maximally selected two-sample statistic (``splitstat``) for ``x <= cut`` against the rest,
   subject to both sides having at least ``minbucket`` observations; the first maximum wins and
   the break is the observed value itself (``intersplit = TRUE``: the midpoint to the next
   distinct value of the *whole* data). For an unordered factor all ``2^(L-1) - 1`` binary
   partitions of its L observed levels are enumerated exhaustively (levels in level order; the
   first observed level always goes to the left child; unobserved levels get no child, ``NA``);
   more than 30 observed levels is an error as in libcoin. ``multiway = TRUE`` splits an
   unordered factor into one child per level (levels with fewer than ``minbucket`` observations
   pooled into a last child).
5. Node predictions are the means of the response column(s) of the node's observations (R's
   ``weighted.mean`` with unit weights: a long-double sum divided by n).

Sums are accumulated sequentially in row order as libcoin's C loops do (numpy's pairwise ``sum``
would differ in the last bits), so the linear statistics and the split statistics of a single
response are R's to the bit and ties between cut points resolve as in R. Eigen decompositions
(several responses, factor predictors) and the chi^2 distribution function agree to rounding
error: statistics and p-values match R to about 1e-13 relative, node means exactly.

Speed: the statistics of all cut points of a variable come from cumulative sums over its
distinct values; n = 100,000 rows, 10 numeric predictors, ``maxdepth = 2`` take about 0.1 s
(R: about 1.5 s).

Options that need R's random number generator (``testtype = "MonteCarlo"``, ``mtry`` smaller
than the number of predictors, ``teststat = "maximum"`` p-values in more than one dimension) or
binning (finite ``nmax``) raise :class:`ValueError`; missing values are rejected because
partykit sends them down the tree at random.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd
from scipy import special

from .rformat import r_as_character
from .rstats import r_arithmetic

__all__ = ["CTree", "CTreeNode", "CTreeSplit", "ctree"]

_EPS = float(np.finfo(float).eps)
_LIBCOIN_TOL = math.sqrt(_EPS)  # libcoin's MPinv tolerance (LinStatExpCov default)
_SQRT_XMIN = math.sqrt(float(np.finfo(float).tiny))  # sqrt(.Machine$double.xmin)
_CHUNK = 1 << 15  # unordered-factor partitions scored per block


# ---------------------------------------------------------------------------------------------
# public result objects
# ---------------------------------------------------------------------------------------------

@dataclass
class CTreeSplit:
    """A primary split (partykit ``partysplit``).

    Attributes
    ----------
    variable : str
        Name of the split variable.
    varid : int
        0-based column of the variable in ``X`` (partykit's ``varid`` is this + number of
        response columns + 1).
    kind : str
        ``"numeric"``, ``"integer"``, ``"factor"`` or ``"ordered"``.
    breaks : float, int or None
        ``x <= breaks`` goes to the first child. Numeric: an observed value (a float, or the
        midpoint with ``intersplit``); integer: an observed value (an int); ordered factor: the
        1-based index of the last level going left; ``None`` for unordered factors.
    index : tuple
        partykit's ``index``: ``(1, 2)`` for numeric/ordered splits; for unordered factors the
        child (1-based) of every level of the factor, ``None`` (R ``NA``) for levels not present
        in the node.
    levels : tuple of str or None
        The factor levels (after dropping levels unused in the training data).
    prob : numpy.ndarray
        Share of the node's observations in each child (partykit ``prob``; with
        ``majority = TRUE`` an indicator of the largest child).
    right : bool
        Always ``True`` (intervals closed on the right).
    """

    variable: str
    varid: int
    kind: str
    breaks: Optional[Union[float, int]]
    index: Tuple[Optional[int], ...]
    levels: Optional[Tuple[str, ...]]
    prob: np.ndarray
    right: bool = True

    @property
    def n_kids(self) -> int:
        """Number of children."""
        if self.levels is None or self.breaks is not None:
            return 2
        return max(k for k in self.index if k is not None)

    def level_sets(self) -> Optional[Tuple[Tuple[str, ...], ...]]:
        """Levels sent to each child (factor splits only; levels absent from the node omitted).

        Unlike :meth:`condition` this is the partition itself, without iml's recycling of the
        ``index`` of ordered splits.
        """
        if self.levels is None:
            return None
        if self.breaks is not None:  # ordered factor
            b = int(self.breaks)
            return tuple(self.levels[:b]), tuple(self.levels[b:])
        return tuple(tuple(lev for lev, k in zip(self.levels, self.index) if k == kid)
                     for kid in range(1, self.n_kids + 1))

    def condition(self, kid: int) -> str:
        """The rule text of child ``kid`` (1-based) as iml's ``list.rules.party`` writes it."""
        if self.levels is not None:
            # levels(x)[index == kid], with R's recycling of a shorter logical index (ordered
            # splits have index 1:2, which iml recycles over the levels) and NA -> "NA".
            sel = []
            m = len(self.index)
            for pos, lev in enumerate(self.levels):
                v = self.index[pos % m]
                if v is None:
                    sel.append("NA")
                elif v == kid:
                    sel.append(lev)
            return self.variable + ' %in% c("' + '", "'.join(sel) + '")'
        return f"{self.variable} {'<=' if kid == 1 else '>'} {self.break_text}"

    @functools.cached_property
    def break_text(self) -> str:
        """The split point as the rules print it, formatted once per split: R's
        ``as.character`` of a double also for an integer split (partykit's rules put the breaks
        into ``cbind(c(-Inf, breaks), c(breaks, Inf))``, a double matrix, so 100000 prints as
        ``1e+05``)."""
        return r_as_character(float(self.breaks))


@dataclass
class CTreeNode:
    """One node of a :class:`CTree` (partykit ``partynode`` plus its ``info``).

    Attributes
    ----------
    id : int
        Node id (pre-order, root = 1), as ``partykit::nodeids``.
    depth : int
        Root depth 0.
    n : int
        Number of training observations in the node.
    prediction : numpy.ndarray
        Mean of each response column over the node's observations.
    kids : tuple of int
        Ids of the children (empty for a terminal node).
    split : CTreeSplit or None
    criterion : pandas.DataFrame or None
        ``info_node(node)$criterion``: rows ``statistic``, ``p.value`` (adjusted), ``criterion``;
        one column per tested variable. ``None`` when no test was run (maxdepth, minsplit, ...).
    p_value : float or None
        ``info_node(node)$p.value``: the adjusted p-value of the selected variable.
    p_value_variable : str or None
        Name attached to ``p_value``.
    """

    id: int
    depth: int
    n: int
    prediction: np.ndarray
    kids: Tuple[int, ...] = ()
    split: Optional[CTreeSplit] = None
    criterion: Optional[pd.DataFrame] = None
    p_value: Optional[float] = None
    p_value_variable: Optional[str] = None

    @property
    def is_terminal(self) -> bool:
        """``True`` when the node has no children."""
        return len(self.kids) == 0

    @property
    def left(self) -> Optional[int]:
        """Id of the first child (``x <= break`` / first level set), ``None`` if terminal."""
        return self.kids[0] if self.kids else None

    @property
    def right(self) -> Optional[int]:
        """Id of the second child of a binary split, ``None`` otherwise."""
        return self.kids[1] if len(self.kids) == 2 else None


@dataclass
class _Column:
    name: str
    kind: str  # numeric, integer, factor, ordered
    values: Optional[np.ndarray] = None  # float64 values (numeric / integer)
    codes: Optional[np.ndarray] = None  # 0-based level codes (factor / ordered)
    levels: Optional[Tuple[str, ...]] = None
    _ucodes: Optional[np.ndarray] = None
    _ux: Optional[np.ndarray] = None

    def unique_codes(self):
        """0-based rank of each value among the sorted distinct values (inum's index)."""
        if self._ucodes is None:
            ux, inv = np.unique(self.values, return_inverse=True)
            self._ux = ux
            self._ucodes = inv.astype(np.int64).ravel()
        return self._ucodes, self._ux


class CTree:
    """A fitted conditional inference tree (R ``constparty`` from ``partykit::ctree``).

    Use :func:`ctree` to fit one.

    Attributes
    ----------
    nodes : dict of int to CTreeNode
        All nodes by id, in id order.
    fitted_nodes : numpy.ndarray
        Terminal node id of every training row (``predict(tree, type = "node")``).
    feature_names : list of str
    response_names : list of str
    control : dict
        The control options used.
    """

    def __init__(self, nodes, fitted_nodes, columns, response_names, control):
        self.nodes: Dict[int, CTreeNode] = dict(sorted(nodes.items()))
        self.fitted_nodes = fitted_nodes
        self._columns: List[_Column] = columns
        self.feature_names = [c.name for c in columns]
        self.response_names = list(response_names)
        self.control = control

    # --- structure -------------------------------------------------------------------------
    @property
    def root(self) -> CTreeNode:
        """The root node (id 1)."""
        return self.nodes[1]

    @property
    def terminal_ids(self) -> List[int]:
        """Ids of the terminal nodes (``nodeids(tree, terminal = TRUE)``)."""
        return [i for i, nd in self.nodes.items() if nd.is_terminal]

    @property
    def inner_ids(self) -> List[int]:
        """Ids of the inner nodes."""
        return [i for i, nd in self.nodes.items() if not nd.is_terminal]

    @property
    def depth(self) -> int:
        """Depth of the tree (0 for a root-only tree)."""
        return max(nd.depth for nd in self.nodes.values())

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return (f"CTree({len(self.nodes)} nodes, {len(self.terminal_ids)} terminal, "
                f"depth {self.depth}, responses {self.response_names})")

    def sctest(self) -> Dict[int, Optional[pd.DataFrame]]:
        """Test statistics and adjusted p-values of every node (R ``sctest(tree)``)."""
        out = {}
        for i, nd in self.nodes.items():
            out[i] = None if nd.criterion is None else nd.criterion.loc[["statistic", "p.value"]]
        return out

    # --- prediction ------------------------------------------------------------------------
    def apply(self, X: Optional[pd.DataFrame] = None) -> np.ndarray:
        """Terminal node id of each row (``predict(tree, newdata, type = "node")``).

        Parameters
        ----------
        X : pandas.DataFrame, optional
            New data with (at least) the training columns; ``None`` returns the training
            assignment.

        Returns
        -------
        numpy.ndarray of int

        Notes
        -----
        Values partykit cannot route (missing values, factor levels absent from a node or
        unknown) are sent by R to a random child drawn with the split's ``prob``; here they go to
        the child with the largest ``prob`` (the first on ties).
        """
        if X is None:
            return self.fitted_nodes.copy()
        n = len(X)
        cols = {}
        for j, c in enumerate(self._columns):
            if c.name not in X.columns:
                raise ValueError(f"X lacks the column {c.name!r}")
            cols[j] = _encode_new(c, X[c.name])
        out = np.ones(n, dtype=np.int64)
        for nid, nd in self.nodes.items():
            if nd.is_terminal:
                continue
            rows = np.flatnonzero(out == nid)
            if rows.size == 0:
                continue
            kid = _kid_of(nd.split, self._columns[nd.split.varid], cols[nd.split.varid][rows])
            miss = kid < 1
            if miss.any():
                kid[miss] = int(np.argmax(nd.split.prob)) + 1
            out[rows] = np.asarray(nd.kids, dtype=np.int64)[kid - 1]
        return out

    def predict(self, X: Optional[pd.DataFrame] = None) -> np.ndarray:
        """Node means of the response(s): ``predict(tree, newdata, type = "response")``.

        Returns
        -------
        numpy.ndarray of shape (n, k)
        """
        ids = self.apply(X)
        table = {i: nd.prediction for i, nd in self.nodes.items()}
        k = len(self.response_names)
        out = np.empty((ids.size, k))
        for i in np.unique(ids):
            out[ids == i] = table[int(i)]
        return out

    # --- rules -----------------------------------------------------------------------------
    def rules(self) -> Dict[int, str]:
        """Rule of each terminal node as iml's ``list.rules.party(tree)`` builds it.

        Conditions from the root down, joined by ``" & "``: ``"<var> <= <break>"`` /
        ``"<var> > <break>"`` (breaks through R's ``as.character``), factor splits
        ``<var> %in% c("l1", "l2")``. A root-only tree gives ``{1: ""}``.
        """
        out = {}
        for tid in self.terminal_ids:
            conds = []
            node = self.root
            while node.id != tid:
                kids = node.kids
                which = max(k for k, kid_id in enumerate(kids, start=1) if kid_id <= tid)
                conds.append(node.split.condition(which))
                node = self.nodes[kids[which - 1]]
            out[tid] = " & ".join(conds)
        return out

    def paths(self, X: Optional[pd.DataFrame] = None) -> np.ndarray:
        """iml's ``pathpred(tree)``: the rule of each row's node with ``"&"`` -> ``"&\\n"``.

        Returns an object array of strings; for a root-only tree every entry is ``None``
        (R gives ``NA`` there).
        """
        ids = self.apply(X)
        out = np.empty(ids.size, dtype=object)
        if len(self.nodes) == 1:
            out[:] = None
            return out
        rules = {k: v.replace("&", "&\n") for k, v in self.rules().items()}
        for i in np.unique(ids):
            out[ids == i] = rules[int(i)]
        return out


# ---------------------------------------------------------------------------------------------
# data preparation
# ---------------------------------------------------------------------------------------------

def _missing_message(name) -> str:
    return (f"column {name!r} has missing values: partykit sends such rows down a random child (R's random "
            "numbers, which pyiml does not replay); impute them or drop those rows from data")


def _prepare_columns(X: pd.DataFrame) -> List[_Column]:
    if not isinstance(X, pd.DataFrame):
        raise TypeError("X must be a pandas DataFrame")
    cols = []
    for name in X.columns:
        s = X[name]
        dt = s.dtype
        if isinstance(dt, pd.CategoricalDtype):
            if s.isna().any():
                raise ValueError(_missing_message(name))
            cat = s.cat.remove_unused_categories()  # model.frame(drop.unused.levels = TRUE)
            levels = tuple(str(c) for c in cat.cat.categories)
            cols.append(_Column(str(name), "ordered" if cat.cat.ordered else "factor",
                                codes=np.asarray(cat.cat.codes, dtype=np.int64), levels=levels))
        elif pd.api.types.is_bool_dtype(dt):
            raise ValueError(f"column {name!r} is logical; ctree needs numeric, integer or factor predictors")
        elif pd.api.types.is_integer_dtype(dt):
            if s.isna().any():
                raise ValueError(_missing_message(name))
            cols.append(_Column(str(name), "integer", values=s.to_numpy(dtype=np.float64)))
        elif pd.api.types.is_float_dtype(dt):
            v = s.to_numpy(dtype=np.float64, na_value=np.nan)   # nullable Float64: pd.NA is missing too
            if np.isnan(v).any():
                raise ValueError(_missing_message(name))
            if (v == -np.inf).any():   # (+Inf is a value like any other for partykit, as for pyiml)
                raise ValueError(f"column {name!r} holds -Inf, on which partykit's ctree fails (iml: \"'breaks' are "
                                 "not unique\"): replace it by a finite value, e.g. the column's finite minimum")
            cols.append(_Column(str(name), "numeric", values=v))
        else:
            raise ValueError(f"column {name!r} has dtype {dt}; ctree needs numeric, integer or factor "
                             "(pandas Categorical) predictors")
    return cols


def _encode_new(c: _Column, s: pd.Series) -> np.ndarray:
    """New-data values of column ``c``: floats for numeric/integer, 0-based codes (-1 unknown)."""
    if c.kind in ("numeric", "integer"):
        return pd.to_numeric(s).to_numpy(dtype=np.float64, na_value=np.nan)   # pd.NA of Float64/Int64 too
    values = s.astype(object)
    missing = pd.isna(values).to_numpy()
    codes = np.asarray(pd.Categorical(values.astype(str), categories=list(c.levels)).codes, dtype=np.int64)
    codes[missing] = -1
    return codes


def _kid_of(split: CTreeSplit, col: _Column, v: np.ndarray) -> np.ndarray:
    """1-based child of values ``v`` (0 where partykit would route at random)."""
    if split.kind in ("numeric", "integer"):
        kid = np.where(v <= float(split.breaks), 1, 2)
        kid[np.isnan(v)] = 0
        return kid
    if split.kind == "ordered" and split.breaks is not None:
        kid = np.where(v + 1 <= int(split.breaks), 1, 2)
        kid[v < 0] = 0
        return kid
    idx = np.array([0 if k is None else k for k in split.index] + [0], dtype=np.int64)
    v = np.where(v < 0, len(split.index), v)
    return idx[v]


# ---------------------------------------------------------------------------------------------
# libcoin arithmetic
# ---------------------------------------------------------------------------------------------

def _seqsum(a: np.ndarray) -> np.ndarray:
    """Left-to-right double sum along axis 0 (libcoin's C loops; numpy's sum is pairwise)."""
    if a.shape[0] == 0:
        return np.zeros(a.shape[1:])
    return np.cumsum(a, axis=0)[-1]


@dataclass
class _Moments:
    sw: float
    mu: np.ndarray  # (Q,) ExpectationInfluence
    cov: np.ndarray  # (Q, Q) CovarianceInfluence
    f1: float
    f2: float


def _moments(Ys: np.ndarray) -> _Moments:
    m = Ys.shape[0]
    sw = float(m)
    mu = _seqsum(Ys) / sw
    Yc = Ys - mu
    q = Ys.shape[1]
    cov = np.empty((q, q))
    for a in range(q):
        for b in range(a, q):
            cov[a, b] = cov[b, a] = _seqsum(Yc[:, a] * Yc[:, b]) / sw
    if sw == 1.0:  # C's x / 0 (the node of one observation is not tested: _test_variable)
        return _Moments(sw, mu, cov, math.inf, math.inf)
    return _Moments(sw, mu, cov, sw / (sw - 1.0), 1.0 / (sw - 1.0))


def _mpinv(cov: np.ndarray):
    """libcoin ``C_MPinv_sym``: Moore-Penrose inverse and rank."""
    if cov.shape[0] == 1:
        v = cov[0, 0]
        if v > _LIBCOIN_TOL:
            return np.array([[1.0 / v]]), 1
        return np.zeros((1, 1)), 0
    if not np.isfinite(cov).all():  # overflowed moments: LAPACK gives no eigenvalues, R's statistic is NA
        return np.full(cov.shape, np.nan), 0
    val, vec = np.linalg.eigh(cov)
    keep = val >= val[-1] * _LIBCOIN_TOL
    vk = vec[:, keep]
    return (vk / val[keep]) @ vk.T, int(keep.sum())


def _pchisq_log_lower(stat: float, df: int) -> float:
    """``pchisq(stat, df, lower.tail = TRUE, log.p = TRUE)``, accurate when the cdf is near 1."""
    if np.isnan(stat):
        return float("nan")
    if df == 0:
        return 0.0 if stat > 0 else float("-inf")
    if stat <= 0:
        return float("-inf")
    sf = special.chdtrc(df, stat)
    if sf < 0.5:
        return float(np.log1p(-sf))
    return float(np.log(special.chdtr(df, stat)))


def _pnorm_twosided_log_lower(stat: float) -> float:
    """libcoin ``C_norm_pvalue`` (two-sided, lower, log): ``log1p(-2 pnorm(-|stat|))``."""
    return float(np.log1p(-2.0 * special.ndtr(-abs(stat))))


def _cov_linstat(mom: _Moments, expx: np.ndarray, covx: np.ndarray) -> np.ndarray:
    """libcoin ``C_CovarianceLinearStatistic`` (one block) as a full (PQ, PQ) matrix."""
    P = expx.size
    Q = mom.mu.size
    if P * Q == 1:
        c = mom.cov[0, 0]
        t = mom.f1 * c * covx[0, 0]
        t -= mom.f2 * c * expx[0] * expx[0]
        return np.array([[t]])
    pp = mom.f1 * covx - mom.f2 * np.outer(expx, expx)
    return np.kron(mom.cov, pp)


# ---------------------------------------------------------------------------------------------
# variable selection: one test
# ---------------------------------------------------------------------------------------------

def _test_variable(col: _Column, idx: np.ndarray, Ys: np.ndarray, mom: _Moments, ctl: dict):
    """``.ctree_test``: (log statistic, log(1 - p)) of one variable, NaN where R gives NA."""
    if idx.size == 0 or mom.sw <= 1.0:
        return float("nan"), float("nan")
    Q = Ys.shape[1]
    if col.kind in ("numeric", "integer"):
        x = col.values[idx]
        T = _seqsum(x[:, None] * Ys)
        ex = _seqsum(x)
        cx = _seqsum(x * x)
        E = ex * mom.mu
        Cov = _cov_linstat(mom, np.array([ex]), np.array([[cx]]))
    else:
        P = len(col.levels)
        codes = col.codes[idx]
        Tm = np.empty((P, Q))
        for q in range(Q):
            Tm[:, q] = np.bincount(codes, weights=Ys[:, q], minlength=P)
        expx = np.bincount(codes, minlength=P).astype(np.float64)
        Em = expx[:, None] * mom.mu[None, :]
        Cov = _cov_linstat(mom, expx, np.diag(expx))
        if col.kind == "ordered":  # libcoin::lmult with the scores 1..K
            s = np.arange(1.0, P + 1.0)
            T = s @ Tm
            E = s @ Em
            M = np.kron(np.eye(Q), s[None, :])
            Cov = M @ Cov @ M.T
        else:
            T = Tm.T.ravel()
            E = Em.T.ravel()
    var = np.diag(Cov)
    if np.all(np.where(np.isnan(var), 0.0, var) < ctl["tol"]):
        return float("nan"), float("nan")
    d = T - E
    pq = d.size
    if ctl["teststat"] == "quadratic":
        if pq == 1:
            mp, rank = _mpinv(Cov)
            stat = (d[0] * mp[0, 0]) * d[0]
        else:
            mp, rank = _mpinv(Cov)
            stat = float(d @ mp @ d)
        logp = _pchisq_log_lower(stat, rank) if ctl["pvalue"] else float("nan")
    else:  # maximum
        sd = np.sqrt(np.where(var > _LIBCOIN_TOL, var, 1.0))
        z = np.where(var > _LIBCOIN_TOL, np.abs(d / sd), 0.0)
        stat = float(z.max())
        if ctl["pvalue"]:
            if pq != 1:
                raise ValueError("teststat='maximum' with p-values needs the randomised multivariate normal "
                                 "integration of mvtnorm for this variable (more than one dimension); "
                                 "use teststat='quadratic' or testtype='Teststatistic'")
            logp = _pnorm_twosided_log_lower(stat)
        else:
            logp = float("nan")
    return float(np.log(max(stat, _EPS))), logp


# ---------------------------------------------------------------------------------------------
# split search
# ---------------------------------------------------------------------------------------------

def _maxsel_stats(d: np.ndarray, sl: np.ndarray, mom: _Moments, splitstat: str) -> np.ndarray:
    """Two-sample statistic of each candidate (rows of ``d``: linear statistic minus expectation
    of the left group, ``sl`` its size), as in libcoin's ``C_ordered_Xfactor``."""
    Q = d.shape[1]
    f1, f2 = mom.f1, mom.f2
    if Q == 1:
        c = mom.cov[0, 0]
        v = (f1 * c) * sl - ((f2 * c) * sl) * sl
        if splitstat == "quadratic":
            mp = np.where(v > _LIBCOIN_TOL, 1.0 / v, 0.0)
            return (d[:, 0] * mp) * d[:, 0]
        return np.where(v > _LIBCOIN_TOL, np.abs(d[:, 0] / np.sqrt(np.abs(v))), 0.0)
    s = f1 * sl - f2 * (sl * sl)
    if splitstat == "quadratic":
        val, vec = np.linalg.eigh(mom.cov)
        keep = val >= val[-1] * _LIBCOIN_TOL
        proj = d @ vec[:, keep]
        st = (proj * proj / val[keep]).sum(axis=1) / s
        return np.where(s > 0, st, -np.inf)
    varinf = np.diag(mom.cov)
    mvar = varinf[None, :] * s[:, None]
    z = np.where(mvar > _LIBCOIN_TOL, np.abs(d / np.sqrt(np.abs(mvar))), 0.0)
    return z.max(axis=1)


@functools.lru_cache(maxsize=1)
def _lapack_dspev():
    """LAPACK's ``dspev`` (packed symmetric eigen decomposition) from the system library R
    links to (Debian: reference LAPACK through the alternatives), or None where it cannot be
    loaded. numpy exposes only ``dsyevd``, whose last bits differ."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("lapack")
    if name is None:
        return None
    try:
        fn = ctypes.CDLL(name).dspev_
    except (OSError, AttributeError):
        return None
    return fn


def _packed_lower(i: int, j: int, n: int) -> int:
    """libcoin's ``S(i, j, n)``: the column-major packed lower-triangle index of (i, j)."""
    if i < j:
        i, j = j, i
    return n * j + i - j * (j + 1) // 2


def _libcoin_quadratic(mlin: np.ndarray, mexp: np.ndarray, sl: float, mom: _Moments) -> float:
    """The quadratic statistic of one candidate split, with libcoin's own arithmetic.

    ``C_ordered_Xfactor`` / ``C_unordered_Xfactor`` (one block): the packed covariance
    ``CovInf * (f1 * sl - f2 * sl * sl)``, its Moore-Penrose inverse from LAPACK ``dspev``
    (``C_MPinv_sym``: eigenvalues below ``tol`` times the largest dropped, the inverse summed
    eigenvector by eigenvector) and ``C_quadform``, each sum in libcoin's order. Used only to
    decide between candidates whose statistics tie up to rounding: then R's choice is decided
    by the last bits (e.g. several outputs taking at most rank + 1 distinct values in a node,
    where every split scores n - 1)."""
    import ctypes

    Q = mlin.size
    tmp = mom.f1 * sl - mom.f2 * (sl * sl)
    npk = Q * (Q + 1) // 2
    rx = np.empty(npk)
    for j in range(Q):
        for i in range(j, Q):
            rx[_packed_lower(i, j, Q)] = mom.cov[i, j] * tmp
    d = (mlin - mexp).tolist()
    dspev = _lapack_dspev()
    if dspev is None:  # no system LAPACK: numpy's Moore-Penrose inverse (the same up to rounding)
        dv = np.asarray(d)
        return float(dv @ _mpinv(mom.cov * tmp)[0] @ dv)
    val, vec, work = np.zeros(Q), np.zeros(Q * Q), np.zeros(3 * Q)
    info, n = ctypes.c_int(0), ctypes.c_int(Q)
    ptr = [a.ctypes.data_as(ctypes.POINTER(ctypes.c_double)) for a in (rx, val, vec, work)]
    dspev(ctypes.c_char_p(b"V"), ctypes.c_char_p(b"L"), ctypes.byref(n), ptr[0], ptr[1], ptr[2],
          ctypes.byref(n), ptr[3], ctypes.byref(info), ctypes.c_size_t(1), ctypes.c_size_t(1))
    val, vec = val.tolist(), vec.tolist()
    dtol = val[Q - 1] * _LIBCOIN_TOL
    mp = [0.0] * npk
    for k in range(sum(v < dtol for v in val), Q):
        vinv, kn = 1 / val[k], k * Q
        for i in range(Q):
            for j in range(i + 1):
                mp[_packed_lower(i, j, Q)] += vinv * vec[kn + i] * vec[kn + j]
    ans = 0.0
    for q in range(Q):
        t = 0.0
        for p in range(Q):
            t += d[p] * mp[_packed_lower(p, q, Q)]
        ans += t * d[q]
    return ans


def _near_ties(stats: np.ndarray, valid: np.ndarray, best: float) -> np.ndarray:
    """Valid candidates whose statistic equals the best one up to rounding (1e-9 relative)."""
    return np.flatnonzero(valid & (stats >= best - 1e-9 * abs(best)))


def _break_tie(cands, mlin: np.ndarray, mexp: np.ndarray, sl: np.ndarray, mom: _Moments):
    """Among tied candidates (in libcoin's order), the one libcoin keeps: the first whose
    statistic, computed as libcoin computes it, exceeds every earlier one."""
    best_c, best = None, 0.0
    for c in cands:
        st = _libcoin_quadratic(mlin[c], mexp[c], float(sl[c]), mom)
        if st > best:
            best_c, best = c, st
    return cands[0] if best_c is None else best_c


def _first_max(stats: np.ndarray, valid: np.ndarray):
    st = np.where(valid & ~np.isnan(stats), stats, -np.inf)
    if st.size == 0:
        return None, 0.0
    b = int(np.argmax(st))
    return b, float(st[b])


def _split_variance_ok(counts: np.ndarray, P: int, mom: _Moments, tol: float) -> bool:
    """The ``all(Variance < tol)`` check of the maximally selected statistic (varonly)."""
    Q = mom.mu.size
    varinf = np.diag(mom.cov)
    if P * Q == 1:
        c = varinf[0]
        v = mom.f1 * c * counts - mom.f2 * c * counts * counts
        return bool(np.any(v >= tol))
    ptmp = mom.f1 * counts - mom.f2 * counts * counts
    v = varinf[None, :] * ptmp[:, None]
    return bool(np.any(v >= tol))


def _level_sums(codes: np.ndarray, P: int, Ys: np.ndarray):
    counts = np.bincount(codes, minlength=P).astype(np.float64)
    T = np.empty((P, Ys.shape[1]))
    for q in range(Ys.shape[1]):
        T[:, q] = np.bincount(codes, weights=Ys[:, q], minlength=P)
    return counts, T


def _split_ordered(codes: np.ndarray, P: int, Ys: np.ndarray, mom: _Moments, mb: float, ctl: dict):
    """Best cut ``code <= c`` (0-based level id) or None."""
    if 4 * codes.size < P:  # compact to the levels present in the node
        lv, inv = np.unique(codes, return_inverse=True)
        counts, T = _level_sums(inv.ravel(), lv.size, Ys)
    else:
        counts, T = _level_sums(codes, P, Ys)
        lv = np.flatnonzero(counts > 0)
        counts, T = counts[lv], T[lv]
    if not _split_variance_ok(counts, P, mom, ctl["tol"]):
        return None
    sl = np.cumsum(counts)
    sr = mom.sw - sl
    mlin = np.cumsum(T, axis=0)
    mexp = np.cumsum(counts[:, None] * mom.mu[None, :], axis=0)
    stats = _maxsel_stats(mlin - mexp, sl, mom, ctl["splitstat"])
    valid = (sl >= mb) & (sr >= mb)
    b, best = _first_max(stats, valid)
    if b is None or not best > 0:
        return None
    if mlin.shape[1] > 1 and ctl["splitstat"] == "quadratic":
        tied = _near_ties(stats, valid, best)
        if tied.size > 1:
            b = _break_tie(tied, mlin, mexp, sl, mom)
    return int(lv[b])


def _split_unordered(codes: np.ndarray, P: int, Ys: np.ndarray, mom: _Moments, mb: float, ctl: dict):
    """Best binary partition of the observed levels: tuple of child per level, or None."""
    counts_all, T_all = _level_sums(codes, P, Ys)
    if not _split_variance_ok(counts_all, P, mom, ctl["tol"]):
        return None
    present = np.flatnonzero(counts_all > 0)
    L = present.size
    if L >= 31:
        raise ValueError("cannot search for unordered splits in >= 31 levels")
    if L < 2:
        return None
    n = counts_all[present]
    T = T_all[present]
    E = n[:, None] * mom.mu[None, :]
    total = (1 << (L - 1)) - 1
    best_j, best = None, 0.0
    Q = Ys.shape[1]
    exact_ties = Q > 1 and ctl["splitstat"] == "quadratic"
    ties: list = []
    for start in range(1, total + 1, _CHUNK):
        j = np.arange(start, min(start + _CHUNK, total + 1), dtype=np.int64)
        bits = np.zeros((j.size, L))
        for l in range(1, L):
            bits[:, l] = (j >> (l - 1)) & 1
        sl = np.zeros(j.size)
        sr = np.zeros(j.size)
        mlin = np.zeros((j.size, Q))
        mexp = np.zeros((j.size, Q))
        for l in range(L):
            sl += bits[:, l] * n[l]
            sr += (1.0 - bits[:, l]) * n[l]
            mlin += bits[:, l][:, None] * T[l][None, :]
            mexp += bits[:, l][:, None] * E[l][None, :]
        stats = _maxsel_stats(mlin - mexp, sl, mom, ctl["splitstat"])
        valid = (sl >= mb) & (sr >= mb)
        b, st = _first_max(stats, valid)
        if b is not None and st > best:
            best, best_j = st, int(j[b])
        if exact_ties and b is not None and st > 0:   # keep this block's near-best partitions
            near = _near_ties(stats, valid, st)
            ties.append((j[near], stats[near], mlin[near], mexp[near], sl[near]))
    if best_j is None:
        return None
    if exact_ties:
        j_all, st_all, ml_all, me_all, sl_all = (np.concatenate(a) for a in zip(*ties))
        tied = _near_ties(st_all, np.ones(st_all.size, dtype=bool), best)
        if tied.size > 1:   # j ascending: libcoin's order of the partitions
            best_j = int(j_all[_break_tie(tied, ml_all, me_all, sl_all, mom)])
    index: List[Optional[int]] = [None] * P
    index[int(present[0])] = 1
    for l in range(1, L):
        index[int(present[l])] = ((best_j >> (l - 1)) & 1) + 1
    return tuple(index)


def _find_split(col: _Column, varid: int, idx: np.ndarray, Ys: np.ndarray, mom: _Moments,
                mb: float, ctl: dict):
    """``.split`` for one variable: a :class:`CTreeSplit` without ``prob``, or None."""
    if ctl["multiway"] and col.kind == "factor" and ctl["maxsurrogate"] == 0:
        P = len(col.levels)
        xt = np.bincount(col.codes[idx], minlength=P)
        if np.count_nonzero(xt) > 1:
            raw = np.arange(1, P + 1, dtype=np.float64)
            raw[xt == 0] = np.nan
            raw[(xt > 0) & (xt < mb)] = P + 1
            uniq = np.unique(raw[~np.isnan(raw)])
            n_unique = uniq.size + (1 if np.isnan(raw).any() else 0)
            if n_unique == 1:
                return None
            rank = {v: i + 1 for i, v in enumerate(uniq)}
            index = tuple(None if np.isnan(v) else rank[v] for v in raw)
            return CTreeSplit(col.name, varid, col.kind, None, index, col.levels, np.array([]))
    if idx.size == 0 or mom.sw <= 1.0:
        return None
    if col.kind in ("numeric", "integer"):
        ucodes, ux = col.unique_codes()
        sp = _split_ordered(ucodes[idx], ux.size, Ys, mom, mb, ctl)
        if sp is None:
            return None
        if ctl["intersplit"] and sp + 1 < ux.size:
            brk = (ux[sp] + ux[sp + 1]) / 2.0
            brk = float(brk)
        else:
            brk = int(ux[sp]) if col.kind == "integer" else float(ux[sp])
        return CTreeSplit(col.name, varid, col.kind, brk, (1, 2), None, np.array([]))
    P = len(col.levels)
    if col.kind == "ordered":
        sp = _split_ordered(col.codes[idx], P, Ys, mom, mb, ctl)
        if sp is None:
            return None
        return CTreeSplit(col.name, varid, col.kind, sp + 1, (1, 2), col.levels, np.array([]))
    index = _split_unordered(col.codes[idx], P, Ys, mom, mb, ctl)
    if index is None:
        return None
    return CTreeSplit(col.name, varid, col.kind, None, index, col.levels, np.array([]))


def _kids_train(split: CTreeSplit, col: _Column, idx: np.ndarray) -> np.ndarray:
    if split.kind in ("numeric", "integer"):
        return np.where(col.values[idx] <= float(split.breaks), 1, 2)
    if split.kind == "ordered":
        return np.where(col.codes[idx] + 1 <= int(split.breaks), 1, 2)
    table = np.array([0 if k is None else k for k in split.index], dtype=np.int64)
    return table[col.codes[idx]]


def _node_mean(Ys: np.ndarray) -> np.ndarray:
    """R's ``weighted.mean(y, w = 1)``: long-double sum divided by n, per column."""
    m = Ys.shape[0]
    if m == 0:
        return np.full(Ys.shape[1], np.nan)
    s = np.cumsum(Ys.astype(np.longdouble), axis=0)[-1].astype(np.float64)
    return s / float(m)


def _which_max_last(x: np.ndarray) -> int:
    """partykit ``.which.max``: ``order(x)[length(x)]`` with non-finite values as -Inf."""
    y = np.where(np.isfinite(x), x, -np.inf)
    return int(np.argsort(y, kind="stable")[-1])


def _average_rank(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    ranks = np.empty(x.size)
    xs = x[order]
    i = 0
    while i < x.size:
        j = i
        while j + 1 < x.size and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


# ---------------------------------------------------------------------------------------------
# the fit
# ---------------------------------------------------------------------------------------------

def _check_control(p: int, **a) -> dict:
    def choice(name, value, allowed):
        if isinstance(value, str):
            value = [value]
        value = list(value)
        bad = [v for v in value if v not in allowed]
        if bad or not value:
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        return value

    teststat = choice("teststat", a["teststat"], ["quadratic", "maximum"])[0]
    splitstat = choice("splitstat", a["splitstat"], ["quadratic", "maximum"])[0]
    testtype = choice("testtype", a["testtype"], ["Bonferroni", "MonteCarlo", "Univariate", "Teststatistic"])
    if len(testtype) == 4:
        testtype = testtype[:1]
    if "MonteCarlo" in testtype:
        raise ValueError("testtype='MonteCarlo' draws permutations with R's random number generator; "
                         "only 'Bonferroni', 'Univariate' and 'Teststatistic' are supported")
    if len(testtype) > 1:
        raise ValueError(f"testtype: several values are only allowed as Bonferroni + MonteCarlo, got {testtype}")
    testtype = testtype[0]
    if a["splittest"]:
        raise ValueError("splittest=True needs testtype='MonteCarlo' (random permutations); not supported")
    nmax = a["nmax"]
    if np.any(np.isfinite(np.atleast_1d(np.asarray(nmax, dtype=float)))):
        raise ValueError("nmax: only nmax=inf is supported (finite nmax bins the data)")
    if not a["caseweights"]:
        raise ValueError("caseweights=False: only caseweights currently implemented in ctree")
    if a["splitflavour"] != "ctree":
        raise ValueError("splitflavour: only 'ctree' is supported")
    mtry = a["mtry"]
    if mtry is not None and np.isfinite(mtry) and mtry < p:
        raise ValueError("mtry smaller than the number of predictors samples variables with R's random "
                         "number generator; not supported")
    if a["multiway"] and a["maxsurrogate"] > 0:
        raise ValueError("maxsurrogate: surrogate splits currently not implemented for multiway splits")
    criteria = ("alpha", "mincriterion", "logmincriterion")   # no bools; the last two may be None
    for name in ("minsplit", "minbucket", "minprob", "maxdepth", "splittry", "maxvar", "tol") + criteria:
        v = a[name]
        if v is None and name in criteria[1:]:
            continue
        if v is None or not isinstance(v, (int, float, np.integer, np.floating)) or np.isnan(v) \
                or (name in criteria and isinstance(v, (bool, np.bool_))):
            raise ValueError(f"{name} must be a number, got {v!r}")
    mincriterion = a["mincriterion"]
    if mincriterion is None:
        mincriterion = 1.0 - float(a["alpha"])
    logmin = a["logmincriterion"]
    if logmin is None:
        logmin = math.log(mincriterion) if mincriterion > 0 else -math.inf
    return dict(
        teststat=teststat, splitstat=splitstat, testtype=testtype,
        pvalue=testtype != "Teststatistic", bonferroni=testtype == "Bonferroni",
        criterion="statistic" if testtype == "Teststatistic" else "p.value",
        logmincriterion=float(logmin), mincriterion=float(mincriterion),
        minsplit=float(a["minsplit"]), minbucket=float(a["minbucket"]), minprob=float(a["minprob"]),
        stump=bool(a["stump"]), maxvar=max(1.0, float(a["maxvar"])), lookahead=bool(a["lookahead"]),
        maxdepth=float(a["maxdepth"]), multiway=bool(a["multiway"]), splittry=int(a["splittry"]),
        maxsurrogate=int(a["maxsurrogate"]), intersplit=bool(a["intersplit"]),
        majority=bool(a["majority"]), saveinfo=bool(a["saveinfo"]), tol=float(a["tol"]),
        mia=bool(a["MIA"]), nresample=a["nresample"],
    )


@r_arithmetic  # responses of order 1e160 overflow the moments: NA p-values, a root-only tree, as in R
def ctree(X: pd.DataFrame, Y, *, response_names: Optional[Sequence[str]] = None,
          teststat: str = "quadratic", splitstat: str = "quadratic", splittest: bool = False,
          testtype: Union[str, Sequence[str]] = "Bonferroni", nmax=math.inf, alpha: float = 0.05,
          mincriterion: Optional[float] = None, logmincriterion: Optional[float] = None,
          minsplit: int = 20, minbucket: int = 7, minprob: float = 0.01, stump: bool = False,
          maxvar: float = math.inf, lookahead: bool = False, mia: bool = False,
          nresample: int = 9999, tol: float = math.sqrt(_EPS), maxsurrogate: int = 0,
          numsurrogate: bool = False, mtry: float = math.inf, maxdepth: float = math.inf,
          multiway: bool = False, splittry: int = 2, intersplit: bool = False,
          majority: bool = False, caseweights: bool = True, applyfun=None, cores=None,
          saveinfo: bool = True, update=None, splitflavour: str = "ctree",
          maxpts: float = 25000, abseps: float = 0.001, releps: float = 0.0) -> CTree:
    """Fit a conditional inference tree: R's ``partykit::ctree(y ~ ., data, control = ctree_control(...))``.

    Parameters
    ----------
    X : pandas.DataFrame
        Predictors: float (R numeric), integer (R integer) or Categorical (R factor; ordered
        Categoricals are R ordered factors). Categories without observations are dropped as
        R's ``model.frame`` does. Missing values are not supported.
    Y : array-like of shape (n,) or (n, k)
        Numeric response; k > 1 columns form a multivariate response (``c1 + c2 ~ .``).
    response_names : sequence of str, optional
        Names of the response columns (default ``y`` / ``y1..yk``); only used for display.
    teststat, splitstat : {"quadratic", "maximum"}
        Statistic for variable selection and for the split search. ``teststat = "maximum"``
        with p-values is supported for one-dimensional tests only (R integrates the
        multivariate normal with mvtnorm's randomised algorithm otherwise).
    splittest : bool
        Must be False (needs Monte-Carlo p-values).
    testtype : {"Bonferroni", "Univariate", "Teststatistic"}
        "MonteCarlo" is rejected (random permutations).
    nmax : float
        Must be infinite.
    alpha, mincriterion, logmincriterion : float
        Stop unless some criterion exceeds ``logmincriterion = log(mincriterion)``,
        ``mincriterion = 1 - alpha`` (defaults 0.05 / 0.95).
    minsplit, minbucket, minprob : numbers
        A node needs ``minsplit`` observations to be split; each child at least
        ``max(minbucket, ceiling(n_node * minprob))``.
    stump, maxvar, lookahead, mia, nresample, tol, maxsurrogate, numsurrogate, mtry, maxdepth,
    multiway, splittry, intersplit, majority, caseweights, applyfun, cores, saveinfo, update,
    splitflavour, maxpts, abseps, releps
        ``ctree_control`` options under their R names (``MIA`` is ``mia``; ``pargs =
        GenzBretz(maxpts, abseps, releps)`` is spread out). Without missing values ``mia``,
        ``maxsurrogate`` and ``numsurrogate`` do not change the tree; ``lookahead = TRUE`` never
        splits (partykit's check of the ctree transformation never reports convergence);
        ``applyfun``, ``cores``, ``update``, ``nresample`` and the ``pargs`` values do not
        matter for the supported tests. ``mtry`` must be at least the number of predictors.

    Returns
    -------
    CTree

    Notes
    -----
    R equivalent: ``partykit::ctree(formula, data, maxdepth = maxdepth, ...)`` as called by
    ``iml::TreeSurrogate`` (partykit 1.2-16 / libcoin 1.0-9). See the module docstring for the
    algorithm.
    """
    cols = _prepare_columns(X)
    Yarr = np.asarray(Y, dtype=np.float64)
    if Yarr.ndim == 1:
        Yarr = Yarr[:, None]
    if Yarr.ndim != 2 or Yarr.shape[0] != len(X):
        raise ValueError(f"Y must have {len(X)} rows, got shape {Yarr.shape}")
    if not np.isfinite(Yarr).all():
        raise ValueError("Y has missing or infinite values")
    k = Yarr.shape[1]
    if response_names is None:
        response_names = ["y"] if k == 1 else [f"y{i + 1}" for i in range(k)]
    if len(response_names) != k:
        raise ValueError("response_names must name every response column")
    ctl = _check_control(
        len(cols), teststat=teststat, splitstat=splitstat, splittest=splittest, testtype=testtype,
        nmax=nmax, alpha=alpha, mincriterion=mincriterion, logmincriterion=logmincriterion,
        minsplit=minsplit, minbucket=minbucket, minprob=minprob, stump=stump, maxvar=maxvar,
        lookahead=lookahead, MIA=mia, nresample=nresample, tol=tol, maxsurrogate=maxsurrogate,
        mtry=mtry, maxdepth=maxdepth, multiway=multiway, splittry=splittry, intersplit=intersplit,
        majority=majority, caseweights=caseweights, saveinfo=saveinfo, splitflavour=splitflavour)
    n = Yarr.shape[0]
    p = len(cols)
    names = [c.name for c in cols]
    mf_pos = np.arange(p) + k + 1  # 1-based model-frame column of each predictor
    splitvars = np.zeros(p, dtype=bool)
    nodes: Dict[int, CTreeNode] = {}
    fitted = np.zeros(n, dtype=np.int64)
    next_id = 1
    kid_slots: Dict[int, List[int]] = {}
    stack = [(np.arange(n, dtype=np.int64), 0, 0, 0)]
    while stack:
        idx, depth, parent, slot = stack.pop()
        nid = next_id
        next_id += 1
        if parent:
            kid_slots[parent][slot] = nid
        Ys = Yarr[idx]
        node = CTreeNode(id=nid, depth=depth, n=int(idx.size), prediction=_node_mean(Ys))
        nodes[nid] = node
        sw = float(idx.size)
        if depth >= ctl["maxdepth"] or (nid > 1 and ctl["stump"]) or sw < ctl["minsplit"]:
            fitted[idx] = nid
            continue
        if splitvars.sum() < ctl["maxvar"]:
            svars = list(range(p))
        else:
            svars = [j for j in range(p) if splitvars[j]]
        mb = ctl["minbucket"]
        swp = math.ceil(sw * ctl["minprob"])
        if mb < swp:
            mb = float(swp)
        mom = _moments(Ys)
        logstat = np.full(p, np.nan)
        logp = np.full(p, np.nan)
        for j in svars:
            logstat[j], logp[j] = _test_variable(cols[j], idx, Ys, mom, ctl)
        if ctl["bonferroni"]:
            logp = logp * np.count_nonzero(~np.isnan(logp))
        crit = (logstat if ctl["criterion"] == "statistic" else logp).copy()
        if np.all(np.isnan(crit)):
            fitted[idx] = nid
            continue
        crit[np.isnan(crit)] = -np.inf
        mx = crit.max()
        ties = np.flatnonzero(np.abs(crit - mx) < _SQRT_XMIN)
        if ties.size > 1:
            crit[ties] = crit[ties] + _average_rank(logstat[ties]) / (float(mf_pos[ties].sum()) * 1000.0)
        stat_row = np.exp(logstat)
        p_row = -np.expm1(logp)
        jmax = _which_max_last(crit)
        tested = ~np.isnan(logstat) & np.isfinite(stat_row)
        if ctl["saveinfo"]:
            node.criterion = pd.DataFrame(
                [stat_row[tested], p_row[tested], crit[tested]],
                index=["statistic", "p.value", "criterion"],
                columns=[names[j] for j in np.flatnonzero(tested)])
            node.p_value = float(p_row[jmax])
            node.p_value_variable = names[jmax]
        if np.all(crit <= ctl["logmincriterion"]):
            fitted[idx] = nid
            continue
        st = min(int(np.isfinite(crit).sum()), ctl["splittry"])
        order = np.argsort(crit, kind="stable")[::-1]
        jsel = order[:max(st, 1)]
        jsel = [int(j) for j in jsel if crit[j] > ctl["logmincriterion"]]
        split = None
        for j in jsel:
            split = _find_split(cols[j], j, idx, Ys, mom, mb, ctl)
            if split is not None and ctl["lookahead"]:
                split = None  # trafo() of ctree never reports convergence
            if split is not None:
                break
        if split is None:
            fitted[idx] = nid
            continue
        splitvars[split.varid] = True
        kid = _kids_train(split, cols[split.varid], idx)
        nk = int(kid.max())
        prob = np.bincount(kid, minlength=nk + 1)[1:].astype(np.float64) / kid.size
        if ctl["majority"]:
            prob = (np.arange(nk) == _which_max_last(prob)).astype(np.float64)
        split.prob = prob
        node.split = split
        # children are numbered in pre-order: push them in reverse order; each child records
        # its id in the parent when it is popped
        kid_slots[nid] = [0] * nk
        for kk in range(nk, 0, -1):
            stack.append((idx[kid == kk], depth + 1, nid, kk - 1))
    for nid, slots in kid_slots.items():
        nodes[nid].kids = tuple(slots)
    return CTree(nodes, fitted, cols, response_names, ctl)
