"""The model and data of iml's upstream testthat helper, rebuilt for pyiml and for R.

iml's tests (``tests/testthat/helper.R``) explain a closed-form model ``f`` of five rows
``X`` (numeric ``a`` and ``b``, factors ``c`` and ``d``; ``d`` unused)::

    f(x)       = (a + b + 100 * [c == "a"]) / 155                  output "pred"
    f(x, multi) = f(x) and 1 - f(x)                                 outputs "pred", "pred2"
    f.inter(x) = (a + b + a*b + 100 * [c == "a"] + a * [c == "a"]) / 155

``predictor1``: ``f`` with the target ``y = f(X) + rnorm(5)`` after ``set.seed(12)`` (a data
frame, so its column name "pred" is the target name); ``predictor2``: ``f(multi)`` with the
label target ``y2``; ``predictor1.inter``: ``f.inter`` without target.

Here ``f`` is written in Python and, for the R side, in R (:data:`F_R`, ...), so both sides
predict with the same formula (DESIGN §4); the R predictors come from
:func:`r_bridge.iml.r_predictor`. ``rnorm`` is :meth:`pyiml.RRandom.normal` (the tests check
it against R's). The plot helpers read the facts of a ggplot that a matplotlib figure can be
compared with: the discrete axis order, the axis titles, the title and the facets.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from pyiml import Predictor, RRandom

__all__ = ["X", "Y", "Y2", "f", "f_multi", "f_inter", "f_args", "predict_fun", "F_ARGS_R", "PREDICT_FUN_R",
           "predictor1", "predictor2", "predictor1_inter", "r_predictors", "r_plot_facts", "py_plot_facts",
           "assert_equal_results"]

X = pd.DataFrame({
    "a": [1.0, 2.0, 3.0, 4.0, 5.0],
    "b": [10.0, 20.0, 30.0, 40.0, 50.0],
    "c": pd.Categorical(["a", "b", "c", "a", "b"]),
    "d": pd.Categorical(["A", "A", "B", "B", "B"]),
})


def f(newdata: pd.DataFrame) -> pd.DataFrame:
    """The upstream model: one output column ``pred``."""
    a, b = newdata["a"].to_numpy(dtype=float), newdata["b"].to_numpy(dtype=float)
    is_a = np.asarray(newdata["c"].astype(str)) == "a"
    return pd.DataFrame({"pred": (a + b + 100 * is_a) / 155})


def f_multi(newdata: pd.DataFrame) -> pd.DataFrame:
    """``f(newdata, multi = TRUE)``: outputs ``pred`` and ``pred2 = 1 - pred``."""
    out = f(newdata)
    out["pred2"] = 1 - out["pred"]
    return out


def f_inter(newdata: pd.DataFrame) -> pd.DataFrame:
    """``f.inter``: ``f`` with the interactions ``a * b`` and ``a * [c == "a"]``."""
    a, b = newdata["a"].to_numpy(dtype=float), newdata["b"].to_numpy(dtype=float)
    is_a = np.asarray(newdata["c"].astype(str)) == "a"
    return pd.DataFrame({"pred": (a + b + a * b + 100 * is_a + a * is_a) / 155})


F_R = """function(newdata) {
  data.frame(pred = (newdata$a + newdata$b + 100 * (newdata$c == "a")) / 155)
}"""
F_MULTI_R = """function(newdata) {
  pred <- (newdata$a + newdata$b + 100 * (newdata$c == "a")) / 155
  data.frame(pred = pred, pred2 = 1 - pred)
}"""
F_INTER_R = """function(newdata) {
  a <- newdata$a; b <- newdata$b; is_a <- newdata$c == "a"
  data.frame(pred = (a + b + a * b + 100 * is_a + a * is_a) / 155)
}"""

#: iml's helper as written there: ``f(newdata, multi = FALSE)`` and the ``predict.fun`` of
#: ``predictor2`` / ``predictor3`` that calls it with ``multi = TRUE`` (R side)
F_ARGS_R = """function(newdata, multi = FALSE) {
  pred <- unlist(newdata[, "a"] + newdata[, "b"] + 100 * (newdata[, "c"] == "a")) / 155
  dat <- data.frame(pred = pred)
  if (multi) dat$pred2 <- 1 - dat$pred
  dat
}"""
PREDICT_FUN_R = "function(obj, newdata) obj(newdata, multi = TRUE)"


def f_args(newdata: pd.DataFrame, multi: bool = False) -> pd.DataFrame:
    """``f(newdata, multi = FALSE)`` of iml's helper: :func:`f`, or :func:`f_multi` with ``multi``."""
    return f_multi(newdata) if multi else f(newdata)


def predict_fun(obj, newdata: pd.DataFrame) -> pd.DataFrame:
    """``predict.fun = function(obj, newdata) obj(newdata, multi = TRUE)``."""
    return obj(newdata, multi=True)


#: ``y = f(X) + rnorm(nrow(X))`` after ``set.seed(12)``: a one-column frame named "pred"
Y = f(X) + RRandom(12).normal(len(X))[:, None]
#: ``factor(ifelse(X$b + X$a < 20, "pred", "pred2"))``
Y2 = pd.Series(pd.Categorical(np.where(X["a"] + X["b"] < 20, "pred", "pred2")))


def predictor1() -> Predictor:
    return Predictor(predict_function=f, data=X, y=Y)


def predictor2() -> Predictor:
    return Predictor(predict_function=f_multi, data=X, y=Y2)


def predictor1_inter() -> Predictor:
    return Predictor(predict_function=f_inter, data=X)


def r_predictors() -> dict:
    """The three upstream predictors in R (``iml::Predictor`` objects)."""
    from r_bridge import RFunction
    from r_bridge import iml as riml

    return {
        "predictor1": riml.r_predictor(data=X, y=Y, model=RFunction(F_R)),
        "predictor2": riml.r_predictor(data=X, y=Y2, model=RFunction(F_MULTI_R)),
        "predictor1.inter": riml.r_predictor(data=X, model=RFunction(F_INTER_R)),
    }


# ---------------------------------------------------------------------------- comparison
def assert_equal_results(py: pd.DataFrame, r: pd.DataFrame, atol: float = 1e-12) -> None:
    """Same columns, rows, labels, categories and missing values; numbers within ``atol``
    relative to the largest R value (1e-12: iml's draws and arithmetic, DESIGN §4)."""
    r = r.reset_index(drop=True)
    py = py.reset_index(drop=True)
    assert list(py.columns) == list(r.columns)
    assert len(py) == len(r)
    for c in r.columns:
        if pd.api.types.is_numeric_dtype(r[c].dtype):
            a, b = py[c].to_numpy(dtype=float), r[c].to_numpy(dtype=float)
            np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=c)
            ok = ~np.isnan(b)
            scale = max(1.0, float(np.max(np.abs(b[ok])))) if ok.any() else 1.0
            np.testing.assert_allclose(a[ok], b[ok], rtol=0, atol=atol * scale, err_msg=c)
        else:
            assert py[c].astype(str).tolist() == r[c].astype(str).tolist(), c
            if isinstance(r[c].dtype, pd.CategoricalDtype):
                assert isinstance(py[c].dtype, pd.CategoricalDtype), c
                assert [str(v) for v in py[c].cat.categories] == [str(v) for v in r[c].cat.categories], c


# ---------------------------------------------------------------------------- plots
_R_PLOT_FACTS = """function(p) {
  b <- ggplot2::ggplot_build(p)
  title_of <- function(a) {
    s <- p$scales$get_scales(a)
    if (!is.null(s) && !inherits(s$name, "waiver")) return(as.character(s$name))
    l <- p$labels[[a]]
    if (is.null(l)) "" else as.character(l)
  }
  flip <- inherits(p$coordinates, "CoordFlip")
  lay <- b$layout$layout
  facet <- setdiff(names(lay), c("PANEL", "ROW", "COL", "SCALE_X", "SCALE_Y"))
  list(axis = as.character(b$layout$panel_params[[1]]$y$get_labels()),
       xlab = if (flip) title_of("y") else title_of("x"),
       ylab = if (flip) title_of("x") else title_of("y"),
       title = if (is.null(p$labels$title)) "" else as.character(p$labels$title),
       facets = if (length(facet)) as.character(lay[[facet[1]]]) else character(0))
}"""


def r_plot_facts(r, code: str, **objects) -> dict:
    """Facts of the ggplot that R ``code`` returns (``objects``: iml objects it names):
    the labels of the vertical discrete axis from bottom to top, the horizontal and vertical
    axis titles as drawn (after ``coord_flip``), the title and the facet values."""
    from r_bridge.iml import ImlObject

    env = {k: (v.r_object if isinstance(v, ImlObject) else v) for k, v in objects.items()}
    p = r.r_eval(code, **env)
    out = r.r_function(_R_PLOT_FACTS)(p)
    names = list(out.names)
    vals = {k: [str(v) for v in out[i]] for i, k in enumerate(names)}
    return {"axis": vals["axis"], "xlab": vals["xlab"][0], "ylab": vals["ylab"][0], "title": vals["title"][0],
            "facets": vals["facets"]}


def py_plot_facts(fig) -> dict:
    """The same facts of a pyiml figure (first axes; facet titles of all axes)."""
    axes = fig.axes
    ax = axes[0]
    facets = [a.get_title() for a in axes] if len(axes) > 1 else []
    return {"axis": [t.get_text() for t in ax.get_yticklabels()], "xlab": ax.get_xlabel(), "ylab": ax.get_ylabel(),
            "title": ax.get_title(loc="left"), "facets": facets}
