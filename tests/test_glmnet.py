"""The lasso path of ``pyiml._algorithms.glmnet`` against R's glmnet (4.1-x) run live.

Random weighted problems shaped like iml's ``LocalModel`` input (numeric columns, 0/1
indicator columns from ``recode``, constant columns, n < p and n > p) are sent to R; the path
length, df, lambdas, intercepts, coefficients, deviance ratios and even the number of
coordinate-descent passes must agree. The coefficients are only converged to ``thresh``, so
this equality at 1e-8 shows that the same iterations were run, not just the same problem
solved. The gaussian path's sums are added in glmnetpp's (Eigen's) order; that order is checked
against a scalar restatement of it at the end.
"""
import warnings

import numpy as np
import pytest

from pyiml._algorithms.glmnet import GlmnetFit, glmnet, predict

RTOL = 1e-8


# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------

def _rmat(r, x):
    ro = r.robjects()
    return ro.r.matrix(ro.FloatVector(np.asarray(x, dtype=float).ravel(order="F").tolist()), nrow=x.shape[0])


_R_FIT = """
suppressMessages(library(glmnet))
ww <- character(0)
fit <- withCallingHandlers(
  glmnet(x, y, family = fam, weights = w, intercept = TRUE, standardize = std,
         type.multinomial = "grouped" {extra}),
  warning = function(w) {{ ww <<- c(ww, conditionMessage(w)); invokeRestart("muffleWarning") }})
if (fam == "gaussian") {{
  B <- as.matrix(fit$beta); a0 <- as.vector(fit$a0)
}} else {{
  B <- do.call(rbind, lapply(fit$beta, as.matrix)); a0 <- as.vector(fit$a0)
}}
link <- predict(fit, newx, type = "link"); resp <- predict(fit, newx, type = "response")
list(lambda = fit$lambda, df = as.numeric(fit$df), a0 = a0, beta = as.vector(B), nbeta = nrow(B),
     dev = fit$dev.ratio, nulldev = fit$nulldev, npasses = fit$npasses, warnings = ww,
     link = as.vector(link), resp = as.vector(resp), classnames = if (is.null(fit$classnames)) "" else fit$classnames)
"""


def r_glmnet(r, x, y, w, family, newx, extra="", standardize=True):
    ro = r.robjects()
    yr = ro.FloatVector(np.asarray(y, dtype=float).tolist()) if family == "gaussian" else \
        ro.StrVector([str(v) for v in y])
    res = r.r_eval(_R_FIT.format(extra=extra), x=_rmat(r, x), y=yr, w=ro.FloatVector(np.asarray(w, float).tolist()),
                   fam=family, newx=_rmat(r, newx), std=standardize)
    out = {k: v for k, v in zip(res.names, res)}
    for k in ("lambda", "df", "a0", "beta", "dev", "link", "resp"):
        out[k] = np.asarray(out[k], dtype=float)
    out["nbeta"] = int(np.asarray(out["nbeta"])[0])
    out["nulldev"] = float(np.asarray(out["nulldev"])[0])
    out["npasses"] = int(np.asarray(out["npasses"])[0])
    out["warnings"] = [str(s) for s in out["warnings"]]
    out["classnames"] = [str(s) for s in out["classnames"]]
    return out


def py_glmnet(x, y, w, family, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = glmnet(x, y, family, weights=w, **kw)
    return fit, [str(c.message) for c in caught]


def assert_same_path(fit: GlmnetFit, R, pywarn):
    L = len(R["lambda"])
    assert len(fit.lambda_) == L, "path length"
    np.testing.assert_array_equal(fit.df, R["df"])
    assert fit.npasses == R["npasses"]
    np.testing.assert_allclose(fit.lambda_, R["lambda"], rtol=RTOL, atol=0)
    rb = R["beta"].reshape(R["nbeta"], L, order="F")
    pb = fit.beta if fit.family == "gaussian" else fit.beta.reshape(-1, L)
    scale = max(np.abs(rb).max(), 1e-300)
    np.testing.assert_allclose(pb, rb, rtol=RTOL, atol=RTOL * scale)
    np.testing.assert_array_equal(pb == 0, rb == 0)  # same sparsity pattern
    ra0 = R["a0"] if fit.family == "gaussian" else R["a0"].reshape(fit.a0.shape, order="F")
    np.testing.assert_allclose(fit.a0, ra0, rtol=RTOL, atol=RTOL * max(1.0, np.abs(ra0).max()))
    np.testing.assert_allclose(fit.dev_ratio, R["dev"], rtol=0, atol=1e-10)
    assert fit.nulldev == pytest.approx(R["nulldev"], rel=1e-12)
    assert pywarn == R["warnings"]


def assert_same_predictions(fit, R, newx):
    L = len(fit.lambda_)
    m = newx.shape[0]
    if fit.family == "gaussian":
        rl = R["link"].reshape(m, L, order="F")
        got = predict(fit, newx)
        np.testing.assert_allclose(got, rl, rtol=1e-8, atol=1e-8 * np.abs(rl).max())
        np.testing.assert_allclose(predict(fit, newx, type="response"), rl, rtol=1e-8, atol=1e-8 * np.abs(rl).max())
        s = L // 2
        np.testing.assert_allclose(predict(fit, newx, s_index=s), rl[:, s], rtol=1e-8, atol=1e-8 * np.abs(rl).max())
    else:
        K = fit.a0.shape[0]
        rl = R["link"].reshape(m, K, L, order="F")
        rr = R["resp"].reshape(m, K, L, order="F")
        np.testing.assert_allclose(predict(fit, newx), rl, rtol=1e-8, atol=1e-8 * np.abs(rl).max())
        np.testing.assert_allclose(predict(fit, newx, type="response"), rr, rtol=1e-8, atol=1e-10)
        s = L - 1
        np.testing.assert_allclose(predict(fit, newx, s_index=s, type="response"), rr[:, :, s], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(predict(fit, newx, s_index=[0, s])[..., 1], rl[:, :, s], rtol=1e-8,
                                   atol=1e-8 * np.abs(rl).max())


def make_x(rng, n, p):
    """Numeric, 0/1 indicator and constant columns, as iml's recode produces."""
    x = rng.normal(size=(n, p)) * rng.uniform(0.1, 20, size=p) + rng.normal(size=p) * 3
    kinds = rng.choice(["num", "ind", "const"], size=p, p=[0.55, 0.35, 0.10])
    kinds[0] = "num"
    for j in range(p):
        if kinds[j] == "ind":
            x[:, j] = (rng.uniform(size=n) < rng.uniform(0.15, 0.85)).astype(float)
        elif kinds[j] == "const":
            x[:, j] = rng.choice([0.0, 1.0, 2.5])
    return x


def make_weights(rng, x):
    """Either uniform weights or iml-style gower proximities 1 - mean(|x - x_i| / range)."""
    n = x.shape[0]
    if rng.uniform() < 0.5:
        return rng.uniform(0.05, 1.0, size=n)
    rngs = x.max(0) - x.min(0)
    use = rngs > 1e-8
    d = (np.abs(x[:, use] - x[rng.integers(n), use]) / rngs[use]).mean(axis=1)
    return 1.0 - d


def gaussian_problem(seed):
    rng = np.random.default_rng(1000 + seed)
    if seed % 3 == 0:
        n, p = int(rng.integers(12, 40)), int(rng.integers(41, 70))  # n < p
    else:
        n, p = int(rng.integers(40, 400)), int(rng.integers(2, 25))
    x = make_x(rng, n, p)
    beta = rng.normal(size=p) * (rng.uniform(size=p) < 0.4) / (x.std(0) + 1)
    y = x @ beta + rng.normal(size=n) * rng.uniform(0.05, 2.0)
    return x, y, make_weights(rng, x), make_x(rng, 7, p)


def multinomial_problem(seed):
    rng = np.random.default_rng(2000 + seed)
    if seed % 4 == 0:
        n, p = int(rng.integers(20, 40)), int(rng.integers(41, 60))  # n < p
    else:
        n, p = int(rng.integers(50, 220)), int(rng.integers(2, 16))
    K = int(rng.integers(2, 6))
    x = make_x(rng, n, p)
    z = (x - x.mean(0)) / (x.std(0) + 1e-9) @ (rng.normal(size=(p, K)) * (rng.uniform(size=(p, 1)) < 0.4))
    z += rng.gumbel(size=(n, K)) * 3.0
    labels = np.array(["class_%d" % k for k in range(K)])[z.argmax(1)]
    for k in range(K):  # every class at least twice
        if (labels == "class_%d" % k).sum() < 2:
            labels[rng.choice(n, 2, replace=False)] = "class_%d" % k
    return x, labels, make_weights(rng, x), make_x(rng, 6, p)


# ------------------------------------------------------------------------------------------
# parity on random problems
# ------------------------------------------------------------------------------------------

@pytest.mark.r
@pytest.mark.parametrize("seed", range(24))
def test_gaussian_path_matches_r(r, seed):
    x, y, w, newx = gaussian_problem(seed)
    R = r_glmnet(r, x, y, w, "gaussian", newx)
    fit, pywarn = py_glmnet(x, y, w, "gaussian")
    assert_same_path(fit, R, pywarn)
    assert_same_predictions(fit, R, newx)
    # constant columns are excluded and get exactly zero
    const = (x == x[0]).all(axis=0)
    np.testing.assert_array_equal(fit.ju, ~const)
    assert (fit.beta[const] == 0).all()
    # the first lambda is lambda_max: nothing is selected there
    assert fit.df[0] == 0 and (fit.beta[:, 0] == 0).all()


@pytest.mark.r
@pytest.mark.parametrize("seed", range(6))
def test_wide_gaussian_path_matches_r(r, seed):
    """64 or more usable variables: the covariance path updates its gradients as arrays (one
    vector operation per changed coefficient, in the full pass and over the active set); the
    same bits as glmnet, with many variables active (dense coefficients)."""
    rng = np.random.default_rng(3000 + seed)
    n, p = (int(rng.integers(300, 600)), int(rng.integers(64, 200))) if seed % 2 else \
        (int(rng.integers(40, 90)), int(rng.integers(100, 250)))
    x = rng.normal(size=(n, p)) * rng.uniform(0.5, 3, size=p)
    beta = rng.normal(size=p) * (rng.uniform(size=p) < 0.7)
    y = x @ beta + rng.normal(size=n)
    w = make_weights(rng, x)
    newx = rng.normal(size=(5, p))
    R = r_glmnet(r, x, y, w, "gaussian", newx)
    fit, pywarn = py_glmnet(x, y, w, "gaussian")
    assert (fit.df >= 48).any()          # the vectorised active-set passes ran (48 or more active)
    assert_same_path(fit, R, pywarn)
    assert_same_predictions(fit, R, newx)


@pytest.mark.r
@pytest.mark.parametrize("family", ["gaussian", "multinomial"])
def test_a_column_whose_spread_underflows_matches_r_without_numpy_warnings(r, family):
    """Values of order 1e-300: the weighted variance underflows to 0 and standardising divides
    by it, in R's C++ silently (the column's gradient is NaN here, so it never enters); the same
    path, no numpy RuntimeWarning, and pyiml's warning naming the column."""
    x, y, w, newx = (gaussian_problem if family == "gaussian" else multinomial_problem)(1)
    x = x.copy()
    x[:, 0] = np.random.default_rng(9).normal(size=len(x)) * 1e-300
    R = r_glmnet(r, x, y, w, family, newx)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fit, pywarn = py_glmnet(x, y, w, family)
    assert not any("encountered" in m for m in pywarn), pywarn
    ours = [m for m in pywarn if m.startswith("the spread of V1 underflows")]
    assert len(ours) == 1 and "leaves it out; rescale it" in ours[0]
    assert_same_path(fit, R, [m for m in pywarn if m not in ours])


@pytest.mark.r
def test_a_column_whose_spread_underflows_with_an_infinite_gradient_is_left_out(r):
    """When the underflowing column's standardised values are ±Inf with an Inf gradient, R's
    path has infinite lambdas and no variable ever enters (df 0 throughout); pyiml leaves the
    column out and fits the others: the same path as R's without that column."""
    x, y, w, newx = gaussian_problem(1)
    x = x.copy()
    x[:, 0] = (y - np.average(y, weights=w)) * 1e-300     # every term of its gradient has the same sign
    R_bad = r_glmnet(r, x, y, w, "gaussian", newx)
    assert np.isnan(R_bad["lambda"][0]) and np.isinf(R_bad["lambda"][1:]).all() and (R_bad["df"] == 0).all()
    R = r_glmnet(r, np.where(np.arange(x.shape[1]) == 0, 0.0, x), y, w, "gaussian", newx)
    fit, pywarn = py_glmnet(x, y, w, "gaussian")
    ours = [m for m in pywarn if m.startswith("the spread of V1 underflows")]
    assert len(ours) == 1
    assert_same_path(fit, R, [m for m in pywarn if m not in ours])


@pytest.mark.r
@pytest.mark.parametrize("seed", range(24))
def test_multinomial_path_matches_r(r, seed):
    x, y, w, newx = multinomial_problem(seed)
    R = r_glmnet(r, x, y, w, "multinomial", newx)
    fit, pywarn = py_glmnet(x, y, w, "multinomial")
    assert fit.classnames == R["classnames"]
    assert_same_path(fit, R, pywarn)
    assert_same_predictions(fit, R, newx)
    # grouped penalty: a variable is in or out for all classes together
    nz = fit.beta != 0
    np.testing.assert_array_equal(nz.any(axis=0), nz.all(axis=0))
    np.testing.assert_allclose(fit.a0.sum(axis=0), 0, atol=1e-12)


# ------------------------------------------------------------------------------------------
# other settings and path stops, against R
# ------------------------------------------------------------------------------------------

@pytest.mark.r
@pytest.mark.parametrize("seed", [1, 3, 6])
def test_naive_method_matches_r(r, seed):
    x, y, w, newx = gaussian_problem(seed)
    R = r_glmnet(r, x, y, w, "gaussian", newx, ', type.gaussian = "naive"')
    fit, pywarn = py_glmnet(x, y, w, "gaussian", type_gaussian="naive")
    assert_same_path(fit, R, pywarn)


@pytest.mark.r
def test_naive_is_default_from_500_variables(r):
    rng = np.random.default_rng(7)
    x = make_x(rng, 60, 520)
    y = x[:, :3] @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=60)
    w = rng.uniform(0.1, 1, 60)
    R = r_glmnet(r, x, y, w, "gaussian", x[:3])
    fit, pywarn = py_glmnet(x, y, w, "gaussian")
    assert_same_path(fit, R, pywarn)


@pytest.mark.r
@pytest.mark.parametrize("family", ["gaussian", "multinomial"])
def test_standardize_false_matches_r(r, family):
    x, y, w, newx = (gaussian_problem if family == "gaussian" else multinomial_problem)(2)
    R = r_glmnet(r, x, y, w, family, newx, standardize=False)
    fit, pywarn = py_glmnet(x, y, w, family, standardize=False)
    assert_same_path(fit, R, pywarn)


_TRUNCATIONS = [
    ("gaussian", ", pmax = 3", {"pmax": 3}, True),
    ("gaussian", ", dfmax = 2", {"dfmax": 2}, False),
    ("gaussian", ", maxit = 60", {"maxit": 60}, True),
    ("gaussian", ", nlambda = 9, lambda.min.ratio = 0.3", {"nlambda": 9, "lambda_min_ratio": 0.3}, False),
    ("multinomial", ", pmax = 3", {"pmax": 3}, True),
    ("multinomial", ", dfmax = 2", {"dfmax": 2}, False),
    ("multinomial", ", maxit = 600", {"maxit": 600}, True),
    ("multinomial", ", nlambda = 9, lambda.min.ratio = 0.3", {"nlambda": 9, "lambda_min_ratio": 0.3}, False),
]


@pytest.mark.r
@pytest.mark.parametrize("family,extra,kw,truncated", _TRUNCATIONS)
def test_truncated_paths_match_r(r, family, extra, kw, truncated):
    """pmax / maxit truncate the path with glmnet's warning; dfmax and short sequences stop it."""
    x, y, w, newx = (gaussian_problem if family == "gaussian" else multinomial_problem)(2)
    R = r_glmnet(r, x, y, w, family, newx, extra)
    fit, pywarn = py_glmnet(x, y, w, family, **kw)
    assert_same_path(fit, R, pywarn)
    assert (fit.jerr < 0) == truncated and len(pywarn) == int(truncated)
    if "dfmax" in kw:
        assert len(fit.lambda_) < 100 and fit.df[-1] > kw["dfmax"]


@pytest.mark.r
def test_deviance_ratio_stop_matches_r(r):
    rng = np.random.default_rng(3)
    x = make_x(rng, 30, 50)
    y = 2 * x[:, 0] - x[:, 1] + rng.normal(size=30) * 1e-4  # near-perfect fit: dev.ratio > 0.999
    w = np.ones(30)
    R = r_glmnet(r, x, y, w, "gaussian", x[:2])
    fit, pywarn = py_glmnet(x, y, w, "gaussian")
    assert_same_path(fit, R, pywarn)
    assert fit.dev_ratio[-1] > 0.999 and len(fit.lambda_) < 100


@pytest.mark.r
def test_zero_weights_match_r(r):
    """lognet drops zero-weight rows (before the constant-column check); elnet keeps them."""
    xm, ym, wm, newx = multinomial_problem(3)
    wm = wm.copy()
    wm[::6] = 0.0
    R = r_glmnet(r, xm, ym, wm, "multinomial", newx)
    fit, pywarn = py_glmnet(xm, ym, wm, "multinomial")
    assert_same_path(fit, R, pywarn)
    xg, yg, wg, newx = gaussian_problem(4)
    wg = wg.copy()
    wg[::5] = 0.0
    R = r_glmnet(r, xg, yg, wg, "gaussian", newx)
    fit, pywarn = py_glmnet(xg, yg, wg, "gaussian")
    assert_same_path(fit, R, pywarn)


@pytest.mark.r
def test_few_observations_warning_matches_r(r):
    rng = np.random.default_rng(11)
    x = make_x(rng, 40, 5)
    y = np.where(x[:, 0] > np.median(x[:, 0]), "b", "a")
    y[:3] = "c"  # 3 < 8 observations
    w = rng.uniform(0.2, 1, 40)
    R = r_glmnet(r, x, y, w, "multinomial", x[:2])
    fit, pywarn = py_glmnet(x, y, w, "multinomial")
    assert pywarn[0] == "one multinomial or binomial class has fewer than 8  observations; dangerous ground"
    assert_same_path(fit, R, pywarn)


@pytest.mark.r
def test_iml_localmodel_inputs_match_r(r):
    """The exact call iml's LocalModel makes, on recoded data and gower weights computed in R."""
    res = r.r_eval("""
      suppressMessages({library(glmnet); library(gower)})
      X <- mtcars[, c("mpg", "cyl", "disp", "hp", "wt", "am")]
      X$cyl <- factor(X$cyl); X$am <- factor(X$am)
      xi <- X[5, ]
      recode <- function(dat, xi) {
        for (j in names(dat)) if (is.factor(dat[[j]])) {
          v <- as.numeric(dat[[j]] == xi[[j]]); dat[[j]] <- v
          names(dat)[names(dat) == j] <- paste0(j, "=", xi[[j]])
        }
        dat
      }
      Xr <- recode(X[, -1], xi); xr <- recode(xi[, -1], xi)
      w <- 1 - gower_dist(Xr, xr)
      fit <- glmnet(as.matrix(Xr), X$mpg, family = "gaussian", weights = w, intercept = TRUE, standardize = TRUE)
      list(as.matrix(Xr), X$mpg, w, fit$lambda, as.matrix(fit$beta), fit$df, fit$a0, colnames(Xr))
    """)
    Xr, y, w, lam, beta, df, a0 = [np.asarray(v, dtype=float) for v in list(res)[:7]]
    names = [str(s) for s in res[7]]
    import pandas as pd
    fit = glmnet(pd.DataFrame(Xr, columns=names), y, "gaussian", weights=w)
    assert fit.var_names == names
    np.testing.assert_array_equal(fit.df, df)
    np.testing.assert_allclose(fit.lambda_, lam, rtol=RTOL)
    np.testing.assert_allclose(fit.beta, beta.reshape(fit.beta.shape), rtol=RTOL, atol=RTOL * np.abs(beta).max())
    np.testing.assert_allclose(fit.a0, a0, rtol=RTOL)


# ------------------------------------------------------------------------------------------
# errors (R's messages where R has one)
# ------------------------------------------------------------------------------------------

@pytest.mark.r
def test_r_error_messages_are_reproduced(r):
    rng = np.random.default_rng(0)
    x = make_x(rng, 20, 3)
    w = np.ones(20)
    ro = r.robjects()

    def r_message(code, **kw):
        with pytest.raises(r.RError) as info:
            r.r_eval("suppressMessages(library(glmnet)); " + code, **kw)
        return info.value.r_message

    y1 = np.array(["a"] * 19 + ["b"])
    msg = r_message("glmnet(x, y, family = 'multinomial')", x=_rmat(r, x), y=ro.StrVector(list(y1)))
    with pytest.raises(ValueError) as info:
        glmnet(x, y1, "multinomial", weights=w)
    assert str(info.value) in msg
    assert str(info.value) == "one multinomial or binomial class has 1 or 0 observations; not allowed"

    msg = r_message("glmnet(x[, 1, drop = FALSE], y)", x=_rmat(r, x), y=ro.FloatVector(rng.normal(size=20)))
    with pytest.raises(ValueError) as info:
        glmnet(x[:, :1], rng.normal(size=20))
    assert str(info.value) in msg

    xn = x.copy()
    xn[2, 1] = np.nan
    msg = r_message("glmnet(x, y)", x=_rmat(r, xn), y=ro.FloatVector(rng.normal(size=20)))
    with pytest.raises(ValueError) as info:
        glmnet(xn, rng.normal(size=20))
    assert str(info.value) in msg
    xn[0, 0] = np.inf      # a missing value is named first, also after an infinite one
    msg = r_message("glmnet(x, y)", x=_rmat(r, xn), y=ro.FloatVector(rng.normal(size=20)))
    with pytest.raises(ValueError) as info:
        glmnet(xn, rng.normal(size=20))
    assert str(info.value) in msg

    msg = r_message("glmnet(x, y, weights = rep(1, 19))", x=_rmat(r, x), y=ro.FloatVector(rng.normal(size=20)))
    with pytest.raises(ValueError) as info:
        glmnet(x, rng.normal(size=20), weights=np.ones(19))
    assert str(info.value) in msg

    msg = r_message("glmnet(x, y)", x=_rmat(r, x), y=ro.FloatVector(rng.normal(size=19)))
    with pytest.raises(ValueError) as info:
        glmnet(x, rng.normal(size=19))
    assert str(info.value) in msg

    msg = r_message("glmnet(x, y)", x=_rmat(r, x), y=ro.FloatVector(np.full(20, 3.0)))
    with pytest.raises(ValueError) as info:
        glmnet(x, np.full(20, 3.0))
    assert str(info.value) in msg

    xc = np.ones((20, 3))
    msg = r_message("glmnet(x, y)", x=_rmat(r, xc), y=ro.FloatVector(rng.normal(size=20)))
    with pytest.raises(ValueError) as info:
        glmnet(xc, rng.normal(size=20))
    assert str(info.value) in msg


def test_unsupported_arguments_are_named():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(30, 4))
    y = rng.normal(size=30)
    with pytest.raises(ValueError, match="alpha"):
        glmnet(x, y, alpha=0.5)
    with pytest.raises(ValueError, match="intercept"):
        glmnet(x, y, intercept=False)
    with pytest.raises(ValueError, match="type_multinomial"):
        glmnet(x, np.repeat(["a", "b", "c"], 10), "multinomial", type_multinomial="ungrouped")
    with pytest.raises(ValueError, match="family"):
        glmnet(x, y, "poisson")
    with pytest.raises(ValueError, match="lambda.min.ratio"):
        glmnet(x, y, lambda_min_ratio=1.0)
    with pytest.raises(ValueError, match="non-negative"):
        glmnet(x, y, weights=-np.ones(30))
    with pytest.raises(ValueError, match="levels"):
        glmnet(x, np.repeat(["a", "b", "c"], 10), "multinomial", levels=["a", "b"])
    # a declared level without observations is an error, as an unused factor level is in R
    with pytest.raises(ValueError, match="1 or 0 observations"):
        glmnet(x, np.repeat(["a", "b", "c"], 10), "multinomial", levels=["a", "b", "c", "d"])


def test_predict_checks_its_input():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(40, 4))
    fit = glmnet(x, x[:, 0] + rng.normal(size=40))
    with pytest.raises(ValueError, match="number of variables in newx must be 4"):
        predict(fit, x[:, :3])
    with pytest.raises(ValueError, match="out of range"):
        predict(fit, x, s_index=len(fit.lambda_))
    with pytest.raises(ValueError, match="type"):
        predict(fit, x, type="class")
    one = predict(fit, x[0], s_index=3)  # a 1-D row is one observation
    assert one.shape == (1,)
    assert one[0] == pytest.approx(fit.a0[3] + x[0] @ fit.beta[:, 3])


def test_predict_adds_as_r_with_sparse_coefficients():
    """``predict`` sums like R's ``cbind2(1, newx) %*% rbind2(a0, beta)`` with a sparse
    coefficient matrix: 0 plus the intercept, then each nonzero ``x_j * beta_j`` in feature order,
    one after the other in double (a BLAS product adds in another order); for multinomial
    ``response`` the class totals are R's long-double ``sum``."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(60, 6)) * [1, 100, 0.01, 10, 1, 1000]
    fit = glmnet(x, x @ [1.0, 0.02, 30.0, -0.5, 0.0, 0.001] + 7.0 + rng.normal(size=60))
    newx = rng.normal(size=(25, 6)) * [1, 100, 0.01, 10, 1, 1000]
    got = predict(fit, newx)
    for s in range(len(fit.lambda_)):
        for i in range(len(newx)):
            acc = 0.0 + fit.a0[s]
            for j in range(6):
                if fit.beta[j, s] != 0:
                    acc += newx[i, j] * fit.beta[j, s]
            assert got[i, s] == acc
    y = np.repeat(["a", "b", "c"], 20)
    mfit = glmnet(x, y, "multinomial")
    probs = predict(mfit, newx, s_index=5, type="response")
    link = predict(mfit, newx, s_index=5)
    import math
    for i in range(len(newx)):
        e = [math.exp(v) for v in link[i]]
        total = float(np.cumsum(np.array(e, dtype=np.longdouble))[-1])
        assert probs[i].tolist() == [v / total for v in e]


def test_multinomial_levels_and_categoricals():
    """Class order follows the levels (R's factor), e.g. a pandas Categorical's categories."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    x = rng.normal(size=(90, 3))
    z = x @ rng.normal(size=(3, 3)) + rng.gumbel(size=(90, 3)) * 2
    lab = np.array(["setosa", "versicolor", "virginica"])[np.argmax(z, axis=1)]
    cat = pd.Categorical(lab, categories=["virginica", "setosa", "versicolor"])
    f1 = glmnet(x, pd.Series(cat), "multinomial")
    f2 = glmnet(x, lab, "multinomial", levels=["virginica", "setosa", "versicolor"])
    f3 = glmnet(x, lab, "multinomial")
    assert f1.jerr == 0
    assert f1.classnames == f2.classnames == ["virginica", "setosa", "versicolor"]
    assert f3.classnames == ["setosa", "versicolor", "virginica"]
    np.testing.assert_array_equal(f1.beta, f2.beta)
    np.testing.assert_allclose(f1.beta[[1, 2, 0]], f3.beta, rtol=1e-7, atol=1e-9)
    p = predict(f1, x[:5], s_index=len(f1.lambda_) - 1, type="response")
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


@pytest.mark.parametrize("seed", [3, 5, 6])
def test_multinomial_path_does_not_depend_on_the_builtin_sum(monkeypatch, seed):
    # Python >= 3.12 sums floats with compensation; the path must have the same bits on every Python
    import math

    from pyiml._algorithms import glmnet as glmnet_module

    x, y, w, newx = multinomial_problem(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = glmnet(x, y, "multinomial", weights=w)
        monkeypatch.setattr(glmnet_module, "sum", math.fsum, raising=False)
        compensated = glmnet(x, y, "multinomial", weights=w)
    np.testing.assert_array_equal(compensated.a0, plain.a0)
    np.testing.assert_array_equal(compensated.beta, plain.beta)
    np.testing.assert_array_equal(predict(compensated, newx, type="response"), predict(plain, newx, type="response"))


# ------------------------------------------------------------------------------------------
# Eigen's order of addition
# ------------------------------------------------------------------------------------------

def _eigen_order_sum(t):
    """Eigen's ``sum()`` of the terms ``t`` on x86-64 (SSE2), one float at a time: lanes of the
    terms at rows 0, 4, 8, … / 1, 5, … / 2, 6, … / 3, 7, … summed left to right, combined as
    ``(L0 + L2) + (L1 + L3)`` after one more packet of two when ``n mod 4 >= 2``, a last odd term
    added at the end; fewer than 4 terms left to right."""
    t = [float(v) for v in t]
    n = len(t)
    if n < 4:
        out = t[0] if n else 0.0
        for v in t[1:]:
            out += v
        return out
    a2 = n - n % 4
    lanes = t[:4]
    for i in range(4, a2):
        lanes[i % 4] += t[i]
    r0, r1 = lanes[0] + lanes[2], lanes[1] + lanes[3]
    if n - a2 >= 2:
        r0 += t[a2]
        r1 += t[a2 + 1]
    out = r0 + r1
    if n % 2:
        out += t[n - 1]
    return out


@pytest.mark.parametrize("path", ["einsum", "blocks", "blocks of 8 rows", "column-major"])
def test_eigen_dots_add_in_eigens_order(monkeypatch, path):
    from pyiml._algorithms import glmnet as g

    assert g._einsum_adds_in_order()         # numpy's einsum adds row after row here
    if path != "einsum":                     # where it did not: products and sums block by block
        monkeypatch.setattr(g, "_einsum_adds_in_order", lambda: False)
    if path == "blocks of 8 rows":           # 8 rows of 3 columns per block: many blocks, every remainder
        monkeypatch.setattr(g, "_EIGEN_BLOCK", 24)
    rng = np.random.default_rng(5)
    order_matters = 0
    for n in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 37, 30_001, 30_002]:
        X = rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-8, 9, size=(n, 3))
        if path == "column-major":           # as pandas hands a frame over: the block path
            X = np.asfortranarray(X)
        v = rng.normal(size=n) * 10.0 ** rng.integers(-4, 5, size=n)
        for args, terms in (((X, v), X * v[:, None]), ((X,), X), ((X, None, True), X * X)):
            got = g._eigen_dots(*args)
            want = [_eigen_order_sum(terms[:, j]) for j in range(3)]
            assert got.tolist() == want, (n, len(args))
            order_matters += any(w != float(np.sum(terms[:, j])) for j, w in enumerate(want))
        assert g._eigen_dots(X[:, 0], v) == _eigen_order_sum(X[:, 0] * v)       # 1-d: a float
    assert order_matters > 0          # the order changes the bits here, so the test can fail


@pytest.mark.parametrize("fault", ["reversed rows", "products rounded otherwise"])
def test_einsum_order_check_rejects_another_order(monkeypatch, fault):
    """The once-per-process check that lets _eigen_dots use np.einsum fails where einsum adds
    the rows in another order or rounds the products otherwise."""
    from pyiml._algorithms import glmnet as g

    def einsum(spec, a, b):
        terms = a * (b if b.ndim == 3 else b[:, :, None])
        if fault == "reversed rows":
            return np.add.reduce(terms[::-1], axis=0)
        # the right order, but products rounded otherwise (as a fused multiply-add rounds them
        # together with the sum): one unit in the last place off
        lanes = np.zeros(terms.shape[1:])
        for row in np.nextafter(terms, np.inf):
            lanes = lanes + row
        return lanes

    assert g._einsum_adds_in_order.__wrapped__()
    monkeypatch.setattr(g.np, "einsum", einsum)
    assert not g._einsum_adds_in_order.__wrapped__()
