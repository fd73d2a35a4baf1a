"""``pyiml._algorithms.ctree`` against R's ``partykit::ctree`` (1.2-16) run live.

Each problem is fitted in R (``ctree(y ~ ., data, <options>)``, a multivariate response
``y1 + y2 ~ .`` for several columns) and in Python, and everything iml uses must agree: node
ids and children, split variables and break points / level indices, the statistics, adjusted
p-values and criteria of every tested variable (``info_node(node)$criterion``, relative 1e-8),
the terminal node of every row, the node means (1e-10), iml's rule strings
(``list.rules.party``) and per-row paths (``pathpred``), and the nodes of new data.
"""
import collections

import numpy as np
import pandas as pd
import pytest

from pyiml._algorithms.ctree import CTree, ctree

RTOL = 1e-8
PRED_TOL = 1e-10

# ------------------------------------------------------------------------------------------
# R side
# ------------------------------------------------------------------------------------------

_R_EXTRACT = r"""
suppressMessages(library(partykit))
t <- ctree(FORMULA, data = d ARGS)
ids <- nodeids(t)
info <- nodeapply(t, ids, function(n) {
  term <- is.terminal(n)
  sp <- split_node(n)
  list(kids = if (term) "" else paste(sapply(kids_node(n), id_node), collapse = ","),
       varid = if (term) NA_integer_ else varid_split(sp),
       breaks = if (term || is.null(breaks_split(sp))) NA_real_ else as.double(breaks_split(sp)),
       index = if (term || is.null(index_split(sp))) "" else paste(index_split(sp), collapse = ","),
       crit = info_node(n)$criterion,
       pval = if (is.null(info_node(n)$p.value)) NA_real_ else unname(info_node(n)$p.value))
})
g <- function(nm) sapply(info, function(z) z[[nm]])
cr <- do.call(rbind, lapply(seq_along(ids), function(k) {
  cm <- info[[k]]$crit
  if (is.null(cm)) return(NULL)
  data.frame(node = ids[k], var = colnames(cm), statistic = cm["statistic", ], p.value = cm["p.value", ],
             criterion = cm["criterion", ])
}))
if (is.null(cr)) cr <- data.frame(node = integer(0), var = character(0), statistic = numeric(0),
                                  p.value = numeric(0), criterion = numeric(0))
sct <- partykit:::sctest.constparty(t)
if (length(ids) == 1) sct <- list(`1` = sct)
sct_p <- unlist(lapply(sct, function(m) if (is.null(m)) NULL else m["p.value", ]))
rules <- iml:::list.rules.party(t)
out <- list(id = ids, kids = g("kids"), varid = g("varid"), breaks = g("breaks"), index = g("index"),
     pval = g("pval"), crit_node = cr$node, crit_var = cr$var, crit_stat = cr$statistic,
     crit_p = cr$p.value, crit_crit = cr$criterion, sct_p = as.double(sct_p),
     fitted = unname(predict(t, type = "node")),
     pred = as.matrix(as.data.frame(predict(t, type = "response"))),
     rules = unname(rules), rule_ids = if (length(ids) == 1) 1L else as.integer(names(rules)),
     paths = iml:::pathpred(t))
out$paths_na <- all(is.na(out$paths))
if (!is.null(nd)) {
  out$new_nodes <- unname(predict(t, newdata = nd, type = "node"))
  out$new_pred <- as.matrix(as.data.frame(predict(t, newdata = nd, type = "response")))
}
out
"""


def r_frame(r, X, Y=None, ynames=()):
    """An R data.frame with the responses first, then X (float -> numeric, int -> integer,
    Categorical -> factor/ordered with all its categories as levels)."""
    ro = r.robjects()
    cols = collections.OrderedDict()
    if Y is not None:
        for j, nm in enumerate(ynames):
            cols[nm] = ro.FloatVector(Y[:, j].tolist())
    for c in X.columns:
        s = X[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cols[c] = r.r_eval("factor(levs[codes], levels = levs, ordered = o)",
                               levs=ro.StrVector([str(v) for v in s.cat.categories]),
                               codes=ro.IntVector((s.cat.codes + 1).tolist()), o=bool(s.cat.ordered))
        elif pd.api.types.is_integer_dtype(s.dtype):
            cols[c] = ro.IntVector([int(v) for v in s])
        else:
            cols[c] = ro.FloatVector(s.astype(float).tolist())
    return ro.vectors.DataFrame(cols)


def fit_r(r, X, Y, ynames, args="", newdata=None):
    ro = r.robjects()
    formula = " + ".join(ynames) + " ~ ."
    code = _R_EXTRACT.replace("FORMULA", formula).replace("ARGS", (", " + args) if args else "")
    nd = r_frame(r, newdata) if newdata is not None else ro.NULL
    res = r.r_eval(code, d=r_frame(r, X, Y, ynames), nd=nd)
    return {k: res.rx2(k) for k in res.names}


def _rel(a, b):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(same, 0.0, np.abs(a - b))
        d = np.where(d < 1e-300, 0.0, d)
        rel = np.where(d == 0, 0.0, d / np.abs(b))
    return float(rel.max()) if rel.size else 0.0


def check_against_r(r, X, Y, ynames=None, args="", newdata=None, **kwargs):
    """Fit in R and Python and assert agreement; returns (tree, max relative p-value diff)."""
    Y = np.asarray(Y, dtype=float)
    if Y.ndim == 1:
        Y = Y[:, None]
    if ynames is None:
        ynames = ["y"] if Y.shape[1] == 1 else [f"y{i + 1}" for i in range(Y.shape[1])]
    R = fit_r(r, X, Y, ynames, args, newdata)
    t = ctree(X, Y, response_names=ynames, **kwargs)
    k = Y.shape[1]

    # structure
    assert list(np.asarray(R["id"]).astype(int)) == list(t.nodes)
    assert [str(s) for s in R["kids"]] == [",".join(map(str, nd.kids)) for nd in t.nodes.values()]
    varid = np.asarray(R["varid"], dtype=float)
    breaks = np.asarray(R["breaks"], dtype=float)
    for nd, v, b, ix in zip(t.nodes.values(), varid, breaks, R["index"]):
        if nd.is_terminal:
            assert nd.split is None
            continue
        assert nd.split.varid + k + 1 == int(v), nd.id
        assert (np.isnan(b) if nd.split.breaks is None else float(nd.split.breaks) == b), (nd.id, nd.split.breaks, b)
        assert ",".join("NA" if z is None else str(z) for z in nd.split.index) == str(ix), nd.id

    # tests: statistics, adjusted p-values, criteria
    cnode = np.asarray(R["crit_node"]).astype(int)
    cvar = [str(s) for s in R["crit_var"]]
    rows = {"statistic": np.asarray(R["crit_stat"], float), "p.value": np.asarray(R["crit_p"], float),
            "criterion": np.asarray(R["crit_crit"], float)}
    maxrel = 0.0
    for nd, pv in zip(t.nodes.values(), np.asarray(R["pval"], float)):
        sel = cnode == nd.id
        if nd.criterion is None:
            assert not sel.any(), nd.id
            assert np.isnan(pv)
            continue
        assert list(nd.criterion.columns) == [cvar[i] for i in np.flatnonzero(sel)], nd.id
        for row, values in rows.items():
            ours = nd.criterion.loc[row].to_numpy(float)
            np.testing.assert_allclose(ours, values[sel], rtol=RTOL, atol=1e-300, err_msg=f"node {nd.id} {row}")
            maxrel = max(maxrel, _rel(ours, values[sel]))
        np.testing.assert_allclose(nd.p_value, pv, rtol=RTOL, atol=1e-300)
    sct = np.concatenate([v.loc["p.value"].to_numpy(float) for v in t.sctest().values() if v is not None] or [[]])
    np.testing.assert_allclose(sct, np.asarray(R["sct_p"], float), rtol=RTOL, atol=1e-300)

    # assignments, predictions, rules
    np.testing.assert_array_equal(t.fitted_nodes, np.asarray(R["fitted"]).astype(int))
    np.testing.assert_array_equal(t.apply(X), t.fitted_nodes)
    pred_r = np.asarray(R["pred"], float).reshape(len(X), k, order="F")
    assert np.max(np.abs(t.predict() - pred_r)) <= PRED_TOL
    assert np.max(np.abs(t.predict(X) - pred_r)) <= PRED_TOL
    if len(t.nodes) > 1:
        assert t.rules() == dict(zip(np.asarray(R["rule_ids"]).astype(int).tolist(), [str(s) for s in R["rules"]]))
        assert list(t.paths()) == [str(s) for s in R["paths"]]
    else:
        assert t.rules() == {1: ""}
        assert all(p is None for p in t.paths())
        assert bool(R["paths_na"][0])
    if newdata is not None:
        np.testing.assert_array_equal(t.apply(newdata), np.asarray(R["new_nodes"]).astype(int))
        new_pred = np.asarray(R["new_pred"], float).reshape(len(newdata), k, order="F")
        assert np.max(np.abs(t.predict(newdata) - new_pred)) <= PRED_TOL
    return t, maxrel


# ------------------------------------------------------------------------------------------
# problems
# ------------------------------------------------------------------------------------------

def _mixed(seed, n=400):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.integers(0, 100000, n) * 3,  # integer with large values: breaks print plainly
        "c": pd.Categorical(rng.choice(list("pqrstu"), n), categories=list("zpqrstu")),  # unused "z"
        "o": pd.Categorical(rng.choice(list("abcde"), n), categories=list("abxcdef"), ordered=True),
        "x": np.round(rng.normal(size=n), 1),  # ties
    })
    y = (X["a"] * 2 + X["c"].astype(str).isin(["q", "s"]) * 3 + X["o"].cat.codes * 0.8
         + rng.normal(size=n)).to_numpy()
    return X, y, rng


def _numeric(seed, n=500, p=5):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(p)})
    y = (X["x0"] * 2 + np.sin(X["x1"] * 3) + X["x2"] * X["x3"] + rng.normal(size=n)).to_numpy()
    return X, y, rng


def p_numeric_default():
    X, y, _ = _numeric(1)
    return dict(X=X, Y=y)


def p_infinite_values():
    """iml #80: +Inf is an ordinary value of a numeric predictor for partykit (NA is routed at
    random, and -Inf makes its discretisation fail: "'breaks' are not unique"): an informative
    column with +Inf, a second one, and new data holding them."""
    X, y, rng = _numeric(5, n=400)
    X.loc[:19, "x0"] = np.inf
    X.loc[20:29, "x1"] = np.inf
    y = y.copy()
    y[:20] += 8.0
    new = X.sample(60, random_state=1).reset_index(drop=True)
    return dict(X=X, Y=y, newdata=new)


def p_integer_ties():
    rng = np.random.default_rng(2)
    n = 500
    X = pd.DataFrame({"i": rng.integers(0, 12, n), "j": rng.integers(-3, 3, n), "u": np.round(rng.uniform(size=n), 1)})
    y = (X["i"] > 6) * 3.0 + X["j"] * 0.5 + X["u"] + rng.normal(size=n)
    return dict(X=X, Y=y.to_numpy())


def p_mixed_default():
    X, y, _ = _mixed(3)
    return dict(X=X, Y=y)


def p_mixed_maxdepth(md):
    def f():
        X, y, _ = _mixed(4)
        return dict(X=X, Y=y, args=f"maxdepth = {md}", kwargs=dict(maxdepth=md))
    f.__name__ = f"p_mixed_maxdepth{md}"
    return f


def p_factor_two_levels():
    rng = np.random.default_rng(5)
    n = 300
    X = pd.DataFrame({"f": pd.Categorical(rng.choice(["no", "yes"], n)), "x": rng.normal(size=n)})
    y = (X["f"] == "yes") * 2.0 + X["x"] + rng.normal(size=n)
    return dict(X=X, Y=y.to_numpy())


def p_factor_absent_levels():
    # levels that vanish in child nodes: the index carries NA, the rules print "NA"
    rng = np.random.default_rng(6)
    n = 600
    a = rng.normal(size=n)
    lv = np.where(a > 0.8, rng.choice(list("zyx"), n), rng.choice(list("pqrstuvwklmn"), n))
    X = pd.DataFrame({"a": a, "c": pd.Categorical(lv), "i": rng.integers(-5, 5, n)})
    y = a + np.isin(lv, ["q", "r", "z", "k", "m"]) * 2 + rng.normal(size=n) * 0.5
    return dict(X=X, Y=y)


def p_ordered_unused_level():
    rng = np.random.default_rng(7)
    n = 400
    o = pd.Categorical(rng.choice(["lo", "mid", "hi", "top"], n), categories=["lo", "unused", "mid", "hi", "top"],
                       ordered=True)
    X = pd.DataFrame({"o": o, "z": rng.normal(size=n)})
    y = np.asarray(o.codes) * 1.5 + rng.normal(size=n)
    return dict(X=X, Y=y)


def p_multi_output_2():
    X, y, rng = _mixed(8)
    return dict(X=X, Y=np.c_[y, rng.normal(size=len(y)) + X["x"]], ynames=["p1", "p2"])


def p_multi_output_3_probabilities():
    # class probabilities summing to one: a rank-deficient multivariate response
    X, y, rng = _numeric(9, n=600, p=4)
    z = np.c_[X["x0"] * 2, X["x1"] - X["x0"], np.zeros(len(X))]
    prob = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return dict(X=X, Y=prob, ynames=["setosa", "versicolor", "virginica"], args="maxdepth = 3",
                kwargs=dict(maxdepth=3))


def p_multi_output_3_mixed():
    X, y, rng = _mixed(10)
    return dict(X=X, Y=np.c_[y, -y + rng.normal(size=len(y)), rng.uniform(size=len(y))])


def p_minbucket():
    X, y, _ = _mixed(11)
    return dict(X=X, Y=y, args="minbucket = 40", kwargs=dict(minbucket=40))


def p_minsplit():
    X, y, _ = _mixed(12)
    return dict(X=X, Y=y, args="minsplit = 100", kwargs=dict(minsplit=100))


def p_minsplit_one():
    """Nodes of one observation (was ZeroDivisionError in the moments before the node's test)."""
    X, y, _ = _mixed(30, n=40)
    return dict(X=X, Y=y, args="minsplit = 1, minbucket = 1, alpha = 0.9",
                kwargs=dict(minsplit=1, minbucket=1, alpha=0.9))


def p_minsplit_zero():
    X, y, _ = _mixed(30, n=40)
    return dict(X=X, Y=y, args="minsplit = 0, minbucket = 0, alpha = 0.99",
                kwargs=dict(minsplit=0, minbucket=0, alpha=0.99))


def p_minprob_alpha():
    X, y, _ = _numeric(13)
    return dict(X=X, Y=y, args="minprob = 0.2, alpha = 0.2", kwargs=dict(minprob=0.2, alpha=0.2))


def p_root_only_small():
    X, y, _ = _mixed(14, n=15)
    return dict(X=X, Y=y)


def p_root_only_noise():
    X, _, rng = _mixed(15)
    return dict(X=X, Y=rng.normal(size=len(X)))


def p_constant_response():
    X, y, _ = _mixed(16, n=100)
    return dict(X=X, Y=np.full(len(X), 2.5))


def p_tied_pvalues():
    # p-values underflow to 0 for several variables: partykit breaks the tie with the ranks
    # of the statistics; an exact duplicate column is chosen last
    rng = np.random.default_rng(17)
    n = 2000
    a = rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": a * 2 + rng.normal(size=n) * 0.01, "dup": a.copy(), "c": rng.normal(size=n)})
    return dict(X=X, Y=a * 10 + rng.normal(size=n) * 0.1, args="maxdepth = 3", kwargs=dict(maxdepth=3))


def p_boston(md):
    def f(r):
        bos = r.r_eval("MASS::Boston")
        B = pd.DataFrame({nm: np.asarray(bos.rx2(nm)) for nm in bos.names})
        B["chas"] = B["chas"].astype(np.int64)
        B["rad"] = B["rad"].astype(np.int64)
        args, kwargs = ("", {}) if md is None else (f"maxdepth = {md}", dict(maxdepth=md))
        return dict(X=B.drop(columns="medv"), Y=B["medv"].to_numpy(), ynames=["medv"], args=args, kwargs=kwargs)
    f.__name__ = f"p_boston_maxdepth{md}"
    f.needs_r = True
    return f


def p_intersplit():
    X, y, _ = _mixed(18)
    return dict(X=X, Y=y, args="intersplit = TRUE", kwargs=dict(intersplit=True))


def p_multiway():
    d = p_factor_absent_levels()
    return dict(d, args="multiway = TRUE, minbucket = 30", kwargs=dict(multiway=True, minbucket=30))


def p_univariate_teststatistic():
    X, y, _ = _mixed(19)
    return dict(X=X, Y=y, args='testtype = "Teststatistic", mincriterion = 5',
                kwargs=dict(testtype="Teststatistic", mincriterion=5))


def p_univariate_testtype():
    X, y, _ = _mixed(20)
    return dict(X=X, Y=y, args='testtype = "Univariate"', kwargs=dict(testtype="Univariate"))


def p_maximum_statistics():
    X, y, rng = _mixed(21)
    return dict(X=X[["a", "b", "o", "x"]], Y=y, args='teststat = "maximum", splitstat = "maximum"',
                kwargs=dict(teststat="maximum", splitstat="maximum"))


def p_splitstat_maximum_multi():
    X, y, rng = _mixed(22)
    return dict(X=X, Y=np.c_[y, rng.normal(size=len(y))], args='splitstat = "maximum"',
                kwargs=dict(splitstat="maximum"))


def p_stump():
    X, y, _ = _mixed(26)
    return dict(X=X, Y=y, args="stump = TRUE", kwargs=dict(stump=True))


def p_maxvar_majority_splittry():
    X, y, _ = _mixed(23)
    return dict(X=X, Y=y, args="maxvar = 2, majority = TRUE, splittry = 1",
                kwargs=dict(maxvar=2, majority=True, splittry=1))


def p_newdata():
    X, y, rng = _mixed(24)
    new, _, _ = _mixed(25, n=80)
    return dict(X=X, Y=y, newdata=new)


PROBLEMS = [
    p_numeric_default, p_infinite_values, p_integer_ties, p_mixed_default, p_mixed_maxdepth(1), p_mixed_maxdepth(2),
    p_factor_two_levels, p_factor_absent_levels, p_ordered_unused_level, p_multi_output_2,
    p_multi_output_3_probabilities, p_multi_output_3_mixed, p_minbucket, p_minsplit, p_minsplit_one, p_minsplit_zero,
    p_minprob_alpha,
    p_root_only_small, p_root_only_noise, p_constant_response, p_tied_pvalues,
    p_boston(1), p_boston(2), p_boston(3), p_boston(4), p_boston(None),
    p_intersplit, p_multiway, p_univariate_teststatistic, p_univariate_testtype, p_maximum_statistics,
    p_splitstat_maximum_multi, p_stump, p_maxvar_majority_splittry, p_newdata,
]


@pytest.mark.r
@pytest.mark.parametrize("problem", PROBLEMS, ids=[p.__name__[2:] for p in PROBLEMS])
def test_against_r(r, problem):
    d = problem(r) if getattr(problem, "needs_r", False) else problem()
    t, maxrel = check_against_r(r, d["X"], d["Y"], ynames=d.get("ynames"), args=d.get("args", ""),
                                newdata=d.get("newdata"), **d.get("kwargs", {}))
    assert maxrel < RTOL


@pytest.mark.r
def test_boston_rules_and_surrogate_shape(r):
    """iml's TreeSurrogate(maxdepth = 2) on Boston's medv: the paths iml stores."""
    bos = r.r_eval("MASS::Boston")
    B = pd.DataFrame({nm: np.asarray(bos.rx2(nm)) for nm in bos.names})
    B["chas"] = B["chas"].astype(np.int64)
    B["rad"] = B["rad"].astype(np.int64)
    t = ctree(B.drop(columns="medv"), B["medv"].to_numpy(), maxdepth=2)
    assert t.rules() == {3: "lstat <= 9.71 & rm <= 7.42", 4: "lstat <= 9.71 & rm > 7.42",
                         6: "lstat > 9.71 & lstat <= 16.03", 7: "lstat > 9.71 & lstat > 16.03"}
    assert set(t.paths()) == {"lstat <= 9.71 &\n rm <= 7.42", "lstat <= 9.71 &\n rm > 7.42",
                              "lstat > 9.71 &\n lstat <= 16.03", "lstat > 9.71 &\n lstat > 16.03"}


# ------------------------------------------------------------------------------------------
# without R
# ------------------------------------------------------------------------------------------

def test_api_and_structure():
    X, y, _ = _mixed(30)
    t = ctree(X, y, maxdepth=2)
    assert isinstance(t, CTree)
    assert t.depth == 2 and t.root.id == 1 and t.root.left == 2
    assert t.terminal_ids == [i for i, nd in t.nodes.items() if nd.is_terminal]
    assert t.predict().shape == (len(X), 1)
    assert sum(t.nodes[i].n for i in t.terminal_ids) == len(X)
    for i in t.terminal_ids:
        np.testing.assert_allclose(t.nodes[i].prediction, y[t.fitted_nodes == i].mean(), rtol=1e-14)
    inner = t.nodes[t.inner_ids[0]]
    assert set(inner.criterion.index) == {"statistic", "p.value", "criterion"}
    assert inner.p_value < 0.05
    # the tested variables are all five columns at the root
    assert list(t.root.criterion.columns) == list(X.columns)


def test_factor_split_level_sets_and_unknown_levels():
    rng = np.random.default_rng(31)
    n = 300
    f = pd.Categorical(rng.choice(list("abcd"), n))
    y = np.isin(np.asarray(f), ["b", "d"]) * 5.0 + rng.normal(size=n)
    t = ctree(pd.DataFrame({"f": f}), y, maxdepth=1)
    s = t.root.split
    assert s.kind == "factor" and s.level_sets() == (("a", "c"), ("b", "d"))
    assert s.condition(1) == 'f %in% c("a", "c")'
    new = pd.DataFrame({"f": pd.Categorical(["b", "zz", "a"])})
    ids = t.apply(new)
    assert ids[0] == t.root.kids[1] and ids[2] == t.root.kids[0]
    assert ids[1] == t.root.kids[int(np.argmax(s.prob))]


def test_root_only_rules_and_paths():
    X, y, _ = _mixed(32, n=10)
    t = ctree(X, y)
    assert len(t) == 1 and t.rules() == {1: ""}
    assert all(p is None for p in t.paths())
    np.testing.assert_allclose(t.predict()[:, 0], y.mean())


@pytest.mark.parametrize("kwargs, arg", [
    (dict(testtype="MonteCarlo"), "testtype"),
    (dict(testtype=["Bonferroni", "MonteCarlo"]), "testtype"),
    (dict(testtype="Holm"), "testtype"),
    (dict(teststat="max"), "teststat"),
    (dict(splitstat="chisq"), "splitstat"),
    (dict(splittest=True), "splittest"),
    (dict(nmax=20), "nmax"),
    (dict(mtry=2), "mtry"),
    (dict(caseweights=False), "caseweights"),
    (dict(multiway=True, maxsurrogate=1), "maxsurrogate"),
    (dict(splitflavour="exhaustive"), "splitflavour"),
    (dict(minsplit=None), "minsplit"),
])
def test_unsupported_options_raise(kwargs, arg):
    X, y, _ = _mixed(33, n=50)
    with pytest.raises(ValueError, match=arg):
        ctree(X, y, **kwargs)


def test_invalid_data_raises():
    X, y, _ = _mixed(34, n=50)
    with pytest.raises(ValueError, match="missing"):
        ctree(X.assign(a=np.where(np.arange(50) == 3, np.nan, X["a"])), y)
    with pytest.raises(ValueError, match="Y"):
        ctree(X, np.r_[y[:-1], np.nan])
    with pytest.raises(ValueError, match="dtype"):
        ctree(X.assign(s=["u"] * 50), y)
    with pytest.raises(ValueError, match="31 levels"):
        rng = np.random.default_rng(0)
        lv = np.array([f"l{i:02d}" for i in range(40)])
        ctree(pd.DataFrame({"f": pd.Categorical(lv[np.arange(400) % 40])}), rng.normal(size=400) + np.arange(400) % 40)
    with pytest.raises(ValueError, match="maximum"):
        ctree(X, y, teststat="maximum")  # factor predictor: multivariate normal p-value needed


def test_lookahead_never_splits():
    X, y, _ = _mixed(35)
    assert len(ctree(X, y, lookahead=True)) == 1


def test_large_data_tree():
    rng = np.random.default_rng(36)
    n = 100_000
    X = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(10)})
    y = X["x0"].to_numpy() * 2 + np.sin(X["x1"].to_numpy() * 3) + rng.normal(size=n)
    t = ctree(X, y, maxdepth=2)  # speed: tests/benchmarks/test_bench_ctree.py
    assert len(t) == 7
