"""Models across the language border.

* :class:`RModel` — an R model (``randomForest``, ``lm``, ``glm``, ``rpart``…) usable in Python
  as ``pyiml.Predictor(model=RModel(...), data=df)``; predictions come back with exactly the
  columns R's ``iml::Predictor`` gives for the same model and arguments (spec §4.1).
* :class:`RFunction` — a closed-form model written in R, ``function(newdata) ...``; used as
  ``predict.function`` with ``model = NULL`` on the R side (see :func:`r_bridge.iml.r_predictor`).
* :func:`as_r_predict_function` — a Python model (scikit-learn estimator, anything with
  ``predict``, a plain callable) as an R function for ``iml::Predictor$new(predict.function = )``.
"""
from __future__ import annotations

import traceback
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

import numpy as np
import pandas as pd

from . import convert, session

__all__ = ["RModel", "RFunction", "as_r_predict_function"]

# R code mirroring iml 0.11.4's create_predict_fun2.default (no predict.function) and
# sanitizePrediction (with predict.function), so RModel needs no iml installed.
_R_PREDICT = r"""function(model, newdata, type, pf) {
  is_label <- function(pred) {
    if (inherits(pred, c("character", "factor"))) return(TRUE)
    if (inherits(pred, c("data.frame", "matrix")) && inherits(pred[, 1], "character") && ncol(pred) == 1)
      return(TRUE)
    FALSE
  }
  factor_to_dataframe <- function(fac) {
    res <- data.frame(stats::model.matrix(~fac - 1, data.frame(fac = fac), sep = ":"), check.names = FALSE)
    colnames(res) <- substring(colnames(res), 4)
    res
  }
  # predict() methods that return a plain list of results (MASS::lda/qda: class, posterior, x):
  # iml's data.frame() makes one table of every element, labels and scores beside the
  # predictions, or fails. Such a list whose elements are not all numbers is refused, naming the
  # element to return. A list with a class of its own that as.data.frame() knows (ranger's
  # ranger.prediction: its predictions) is converted as iml converts it.
  refuse_list <- function(pred, n, whose, fix) {
    if (!is.list(pred) || is.data.frame(pred) || all(vapply(pred, is.numeric, NA))) return(invisible())
    own <- vapply(setdiff(class(pred), "list"), function(k)
      !is.null(utils::getS3method("as.data.frame", k, optional = TRUE)), NA)
    if (any(own)) return(invisible())
    named <- !is.null(names(pred))
    els <- if (named) names(pred) else as.character(seq_along(pred))
    rows <- vapply(pred, function(e) is.numeric(e) && NROW(e) == n, NA)
    pick <- intersect(c("posterior", "predictions", "prob", "probs", "probabilities", "fit"), els[rows])
    pick <- if (length(pick)) pick[1L] else if (any(rows)) els[rows][1L] else NA_character_
    acc <- if (is.na(pick)) "$<element>" else if (!named) sprintf("[[%s]]", pick)
      else if (make.names(pick) == pick) paste0("$", pick) else sprintf("[['%s']]", pick)
    kind <- if (identical(class(pred)[1L], "list")) "a list" else sprintf("a list of class %s", class(pred)[1L])
    stop(sprintf(paste0("%s returned %s (elements: %s), not a table of predictions: return the element that ",
                        "holds them, e.g. %s"),
                 whose, kind, paste(els, collapse = ", "), sprintf(fix, acc)), call. = FALSE)
  }
  sanitize <- function(prediction) {
    if (inherits(prediction, c("numeric", "integer"))) {
      prediction <- data.frame(..prediction = prediction, fix.empty.names = FALSE)
    } else if (inherits(prediction, "matrix")) {
      cnames <- colnames(prediction)
      prediction <- data.frame(prediction)
      if (is.null(cnames)) {
        if (ncol(prediction) == 1) colnames(prediction) <- "..prediction"
        else colnames(prediction) <- paste("..prediction", 1:ncol(prediction), sep = ".")
      } else {
        colnames(prediction) <- cnames
      }
    } else {
      prediction <- data.frame(prediction)
    }
    prediction
  }
  seed <- function() if (exists(".Random.seed", envir = globalenv(), inherits = FALSE))
    get(".Random.seed", envir = globalenv(), inherits = FALSE)
  # A model whose predict() draws random numbers gets the same ones on every call: the call
  # starts from set.seed(0) and the session's generator is restored afterwards, so predictions
  # are a function of newdata (reproducible run to run) and R's session stream is left alone.
  # set.seed also loads the generator's C state, from which C code that calls unif_rand()
  # without GetRNGstate()/PutRNGstate() draws (randomForest breaks ties of class votes so,
  # without ever changing .Random.seed).
  # ties of a classification randomForest's (cutoff-weighted) votes, which predict() breaks at
  # random when it returns labels. Its C code compares (votes / ntree) / cutoff, so the shares
  # of the trees are divided by the cutoffs as it divides them (votes / cutoff rounds otherwise,
  # and misses ties of a non-default cutoff); shares: votes / ntree, in the forest's class order
  tied <- function(fit, shares) {
    crit <- sweep(as.matrix(shares), 2, fit$forest$cutoff, "/")
    any(rowSums(crit == apply(crit, 1, max)) > 1, na.rm = TRUE)
  }
  vote_shares <- function(fit, newdata)
    stats::predict(fit, newdata, type = "vote", norm.votes = FALSE) / fit$ntree
  is_rf_classifier <- function(fit) inherits(fit, "randomForest") && identical(fit$type, "classification")
  seed0 <- seed()
  on.exit(if (is.null(seed0)) rm(".Random.seed", envir = globalenv()) else
            assign(".Random.seed", seed0, envir = globalenv()))
  set.seed(0L)
  fixed <- seed()
  hidden <- FALSE
  if (is.null(pf) && inherits(model, c("WrappedModel", "Learner", "train"))) {
    # iml's create_predict_fun2 methods for mlr, mlr3 and caret models (their task from the model,
    # as inferTaskFromModel finds it)
    if (inherits(model, "WrappedModel")) {
      task <- model$task.desc$type
      pred <- stats::predict(model, newdata = newdata)
      labels <- identical(task, "classif") && model$learner$predict.type == "response"
      if (labels) {
        # mlr's classif.randomForest predicts labels: a tie of votes was broken at random (the
        # learner's own forest, given the task's columns; a wrapper that changes them: not checked)
        fit <- mlr::getLearnerModel(model, more.unwrap = TRUE)
        if (is_rf_classifier(fit))
          hidden <- isTRUE(tryCatch(tied(fit, vote_shares(fit, newdata)),
                                    error = function(e) FALSE))
      }
      out <- if (identical(task, "regr")) data.frame(.prediction = mlr::getPredictionResponse(pred))
        else if (labels)
          factor_to_dataframe(mlr::getPredictionResponse(pred))
        else if (identical(task, "classif"))
          data.frame(mlr::getPredictionProbabilities(pred, cl = model$task.desc$class.levels), check.names = FALSE)
        else stop(sprintf("mlr task type <%s> not supported", task))
    } else if (inherits(model, "Learner")) {
      task <- model$task_type
      out <- if (identical(task, "regr")) data.frame(.prediction = stats::predict(model, newdata = newdata))
        else if (identical(task, "classif") && model$predict_type == "response")
          factor_to_dataframe(stats::predict(model, newdata = newdata))
        else if (identical(task, "classif"))
          data.frame(stats::predict(model, newdata = newdata, predict_type = "prob"), check.names = FALSE)
        else stop(sprintf("mlr task type <%s> not supported", task))
    } else {
      pred <- if (is.null(type)) stats::predict(model, newdata = newdata)
        else stats::predict(model, newdata = newdata, type = type)
      out <- if (identical(model$modelType, "Regression")) data.frame(.prediction = pred, check.names = FALSE)
        else if (identical(model$modelType, "Classification")) {
          if (is_label(pred) && is_rf_classifier(model$finalModel)) {
            # caret's "rf": labels from the forest's votes, ties broken at random; its class
            # probabilities are the vote fractions (caret's own preprocessing of newdata applied)
            fit <- model$finalModel
            hidden <- isTRUE(tryCatch({
              pr <- stats::predict(model, newdata = newdata, type = "prob")
              tied(fit, as.matrix(pr)[, fit$classes, drop = FALSE])
            }, error = function(e) FALSE))
          }
          if (is_label(pred)) factor_to_dataframe(if (inherits(pred, c("data.frame", "matrix"))) pred[, 1] else pred)
          else data.frame(pred, check.names = FALSE)
        } else stop(sprintf("caret model type %s not supported.", model$modelType))
    }
  } else if (is.null(pf)) {
    pred <- if (is.null(type)) stats::predict(model, newdata) else stats::predict(model, newdata, type = type)
    refuse_list(pred, nrow(newdata), sprintf("predict() of this %s model", class(model)[1L]),
                "RModel(model, predict_function=\"function(model, newdata) predict(model, newdata)%s\")")
    if (nrow(newdata) == 1L && is.numeric(pred) && is.null(dim(pred)) && length(pred) > 1L)
      # one row of k outputs that predict() dropped to a vector (nnet::multinom(type = "probs"),
      # predict.gbm...): iml stops at "Must have exactly 1 rows"
      pred <- matrix(pred, nrow = 1L, dimnames = list(NULL, names(pred)))
    if (is_rf_classifier(model) && is.factor(pred))
      # labels: ties of the (cutoff-weighted) votes were broken at random
      hidden <- tied(model, vote_shares(model, newdata))
    if (is_label(pred)) {
      if (inherits(pred, c("data.frame", "matrix"))) pred <- pred[, 1]
      # a factor one-hot by its levels, as iml; strings go back as one column of labels, whose
      # classes pyiml's Predictor fixes once (iml's factor() of each call's strings may miss some)
      pred <- if (is.factor(pred)) factor_to_dataframe(pred) else
        data.frame(.label = as.character(pred), stringsAsFactors = FALSE)
    }
    out <- data.frame(pred, check.names = FALSE)
  } else {
    pred <- pf(model, newdata = newdata)
    refuse_list(pred, nrow(newdata), "the predict_function", "a predict_function that ends in %s")
    out <- sanitize(pred)
  }
  rownames(out) <- NULL
  # the prediction frame, and whether predict() drew from R's random number generator
  list(out, hidden || !identical(fixed, seed()))
}"""

# iml's inferTaskFromModel for mlr, mlr3 and caret models ("unknown" for S3 models), and whether
# the model is an mlr or mlr3 classifier that predicts labels (iml: "Output seems to be class").
_R_MODEL_TASK = """function(model) {
  type <- if (inherits(model, "WrappedModel")) model$task.desc$type else if (inherits(model, "Learner"))
    model$task_type else NULL
  if (!is.null(type)) {
    predicts <- if (inherits(model, "WrappedModel")) model$learner$predict.type else model$predict_type
    task <- if (identical(type, "classif")) "classification" else if (identical(type, "regr")) "regression"
      else "unknown"
    return(c(task, as.character(identical(type, "classif") && !identical(predicts, "prob"))))
  }
  if (inherits(model, "train"))
    return(c(switch(model$modelType, Regression = "regression", Classification = "classification", "unknown"),
             "FALSE"))
  c("unknown", "FALSE")
}"""

# The target named by the model's formula, as iml's find_y finds it for S3 models: the
# variables of the formula's left-hand side (character(0) when the model has no two-sided
# formula). Formula (an iml dependency) splits the left-hand side as iml does; without it the
# top-level "+" terms are taken.
_R_FIND_Y = """function(model) {
  if (inherits(model, "WrappedModel")) return(as.character(model$task.desc$target))   # mlr's task
  f <- tryCatch(stats::formula(model), error = function(e) NULL)
  if (!inherits(f, "formula") || length(f) != 3L) return(character(0))
  if (requireNamespace("Formula", quietly = TRUE)) {
    lhs <- tryCatch(as.list(attr(stats::terms(Formula::as.Formula(f), lhs = 1L, rhs = 0L), "variables")[-1L]),
                    error = function(e) list())
  } else {
    split_plus <- function(e) {
      if (is.call(e) && identical(e[[1L]], as.name("+")) && length(e) == 3L) c(split_plus(e[[2L]]), split_plus(e[[3L]]))
      else list(e)
    }
    lhs <- split_plus(f[[2L]])
  }
  vapply(lhs, function(v) paste(deparse(v, width.cutoff = 500L), collapse = ""), "")
}"""

# The levels a fitted model recorded for its factor predictors: list(<levels in the training
# factor's order, by variable>, <names of variables whose levels the model matches by name in its
# own order>). Training order: `xlevels` of lm, glm, nnet, multinom, lda, coxph…; rpart's
# attribute "xlevels"; randomForest's forest$xlevels (character entries: numeric ones are
# placeholders). ranger's forest$covariate.levels (respect.unordered.factors = "order") are
# ordered by the response, not as the factor, and ranger's predict matches them by name.
_R_MODEL_LEVELS = """function(model) {
  field <- function(x, name) if (is.list(x)) x[[name, exact = TRUE]]
  chr <- function(x) {
    if (!is.list(x) || is.null(names(x))) return(list())
    x[vapply(x, is.character, NA) & nzchar(names(x))]
  }
  forest <- field(model, "forest")
  exact <- c(chr(field(model, "xlevels")), chr(attr(model, "xlevels", exact = TRUE)), chr(field(forest, "xlevels")))
  exact <- exact[!duplicated(names(exact))]
  list(exact, as.character(names(chr(field(forest, "covariate.levels")))))
}"""

_R_SORT = "function(x) sort(x)"


def _r_sorted(strings: tuple) -> tuple:
    """R's ``sort()`` of ``strings`` in the session's collation (called once per RModel, column
    and categories: :meth:`RModel._in_training_levels` keeps what it decided)."""
    with session.lock:
        return tuple(str(v) for v in session.r_call(_R_SORT, session.robjects().StrVector(list(strings))))


_R_EVAL_MODEL = """function(code, seed) {
  if (!is.null(seed)) set.seed(seed)
  eval(parse(text = code), new.env(parent = globalenv()))
}"""

_R_EVAL_FUNCTION = """function(code, what) {
  f <- eval(parse(text = code), new.env(parent = globalenv()))
  if (!is.function(f)) stop(what, " must be R code of a function, but it evaluates to an object of class ",
                            paste(class(f), collapse = "/"))
  f
}"""

# model = NULL path of iml: f(newdata = newdata); with a model: f(model, newdata = newdata).
_R_WRAP_PY = """function(py_fun) {
  force(py_fun)
  function(model = NULL, newdata) {
    res <- py_fun(newdata)
    if (inherits(res, "pyiml_python_error")) stop(unclass(res), call. = FALSE)
    res
  }
}"""


# Python callbacks handed to R: kept here so they are never garbage collected while R holds
# the closure (R has only an external pointer to them).
_CALLBACKS: Dict[tuple, Tuple[Any, Callable, Callable, Any, Any]] = {}
_PY_FUNCTIONS: dict = {}  # other Python callables handed to R (r_bridge.iml.to_r)


def _release_callbacks() -> None:
    _CALLBACKS.clear()
    _PY_FUNCTIONS.clear()


session.exit_hooks.append(_release_callbacks)


def _is_sexp(obj) -> bool:
    try:
        import rpy2.rinterface as ri
    except ImportError:
        return False
    return isinstance(obj, ri.Sexp)


def _eval_function(code, what: str):
    """R code of a function (or an rpy2 function) → R closure."""
    if isinstance(code, str):
        session.robjects()  # start the embedded R before building R strings
        with session.lock:
            return session.r_call(_R_EVAL_FUNCTION, _str(code), _str(what))
    if _is_sexp(code) and code.typeof in _closure_types():
        return code
    raise TypeError(f"{what} must be R code of a function (a str such as 'function(model, newdata) ...') "
                    f"or an rpy2 R function, got {type(code).__name__}")


def _closure_types():
    import rpy2.rinterface as ri

    return (ri.RTYPES.CLOSXP, ri.RTYPES.BUILTINSXP, ri.RTYPES.SPECIALSXP)


def _str(x: str):
    import rpy2.rinterface as ri

    return ri.StrSexpVector([x])


def _checked_seed(seed, optional: bool = True) -> Optional[int]:
    """``seed`` by pyiml's one check of R seeds (:func:`pyiml.random._check_seed`), before
    anything runs in R; None passes when ``optional``."""
    from pyiml.random import _check_seed

    return _check_seed(seed, "seed", optional)


def _r_seed(seed: Optional[int]):
    """A seed :func:`_checked_seed` returned, as R gets it: an integer, or ``NULL`` for None."""
    import rpy2.rinterface as ri

    return ri.NULL if seed is None else ri.IntSexpVector([seed])


def _null_or(x):
    import rpy2.rinterface as ri

    return ri.NULL if x is None else x


class RModel:
    """An R model used from Python, e.g. as ``pyiml.Predictor(model=RModel(...), data=df)``.

    R equivalent: the ``model`` argument of ``iml::Predictor$new(model, predict.function, type)``;
    predictions are made by R's ``predict()`` and named as iml names them.

    Parameters
    ----------
    model : str or rpy2 R object
        A fitted R model, or R code evaluated once (in a fresh environment whose parent is the
        global environment) that returns one, e.g.
        ``"randomForest::randomForest(medv ~ ., data = MASS::Boston, ntree = 50)"``.
    predict_function : str or rpy2 R function, optional
        R code of ``function(model, newdata)`` returning the predictions (R:
        ``predict.function``). Its output is named by iml's ``sanitizePrediction``: a numeric
        vector → column ``..prediction``; a matrix without column names → ``..prediction``
        (one column) or ``..prediction.1``, ``..prediction.2``…; a matrix with column names
        keeps them; anything else → ``data.frame(x)``.
    type : str, optional
        Forwarded as ``predict(model, newdata, type = type)`` (e.g. ``"prob"``,
        ``"response"``, ``"class"``); not allowed with ``predict_function`` (``ValueError``;
        iml ignores ``type`` there). None calls
        ``predict(model, newdata)``, as iml's ``Predictor`` does without ``type``: for a
        ``glm`` that is the link scale (log-odds of a binomial glm), so give
        ``type="response"`` for probabilities.
    packages : iterable of str
        R packages the model needs (loaded with ``requireNamespace`` before ``model`` is
        evaluated, so ``predict`` finds their S3 methods).
    seed : int, optional
        ``set.seed(seed)`` right before ``model`` (R code) is evaluated; in R's range
        -2147483647..2147483647 (``ValueError`` otherwise).

    Attributes
    ----------
    r_object : rpy2 R object
        The fitted R model.
    predict_function : str, rpy2 function or None
        As given.
    type : str or None
    packages : tuple of str
    task : str
        As iml's ``inferTaskFromModel``: ``"classification"`` or ``"regression"`` for mlr, mlr3
        and caret models, ``"unknown"`` for other (S3) models.
    target : str or None
        The response named by the model's formula (``Species`` for ``randomForest(Species ~ .,
        ...)``) or an mlr model's task (R: iml's ``find_y(model)``), or None when the model has
        no formula or its left-hand side is not one variable. :class:`pyiml.Predictor` uses it as ``y`` when no
        ``y`` is given and ``data`` has that column, as iml does.
    draws_random : bool
        True once a prediction has drawn from R's random number generator (changed
        ``.Random.seed``, or, for ``randomForest`` class labels -- bare, caret's ``"rf"`` or mlr's
        ``classif.randomForest`` -- had votes that tie, which its C code breaks with
        ``unif_rand()`` without touching ``.Random.seed``): ``ranger``'s
        ``predict`` always draws, ``max.col``'s random tie-breaking (``MASS::lda``,
        ``nnet::multinom`` labels) on near-ties. R's iml run under ``set.seed`` then gives random
        methods results that depend on those draws, which :class:`pyiml.RRandom` cannot replay;
        pyiml's random methods warn when they run under ``RRandom`` with such a model
        (docs/differences.md). Every prediction starts from ``set.seed(0)`` and R's session
        generator is restored afterwards, so such a model's predictions are still the same for
        the same ``newdata``, run to run.

    Notes
    -----
    mlr models (``WrappedModel``), mlr3 ``Learner`` objects and caret's ``train`` are predicted
    as iml predicts them (its ``create_predict_fun2`` methods): ``predict(model, newdata =
    newdata)``, then class probabilities in the task's class order, one-hot labels (a classifier
    without probabilities; iml's "Output seems to be class" warning is given when the RModel is
    made) or one column ``.prediction`` (regression).
    For other models, without ``predict_function``, the output follows iml's rule for S3 models:
    a factor output becomes a one-hot frame with one 0/1 column per level, named by level; otherwise
    ``data.frame(pred, check.names = FALSE)``: a vector gives the column ``pred``, a matrix
    keeps its column names (``randomForest(type = "prob")`` → ``setosa``, ``versicolor``,
    ``virginica``). Character labels (a vector or a one-column character frame) come back as
    one column of labels, which :class:`pyiml.Predictor` one-hot encodes with the classes the
    model predicts for its data (iml's ``factor()`` of each call's labels can miss classes).

    Categorical features must reach R as factors with the training levels: pass them as
    pandas Categoricals whose categories are the R levels (what :func:`r_bridge.r2py` returns
    for R data). A Categorical reaches R as a factor whose levels are its categories in their
    order. When the model records its training levels (``xlevels`` of ``lm``, ``glm``,
    ``nnet``, ``multinom``…, the ``xlevels`` attribute of ``rpart``, ``forest$xlevels`` of
    ``randomForest``; found once per RModel) and a Categorical has the same categories in
    another order, the categories are put in the training order before the data goes to R
    (values unchanged; the caller's frame is not modified). Models that record no levels and
    read factors by position (``ranger``, ``e1071::svm``) predict wrong numbers, without an
    error, from a Categorical ordered otherwise than their training factor. For those, a
    ``UserWarning`` (once per RModel and column) flags the usual cause: an unordered
    Categorical whose string categories are in Python's sorted order (what
    ``astype('category')`` gives), where R sorts them otherwise (R's ``factor()`` levels,
    e.g. ``a, B`` against Python's ``B, a``). It names the column and the fix,
    ``df[col] = df[col].cat.reorder_categories([...])``.

    R warnings raised while predicting (``predict()`` of a rank-deficient ``lm`` warns on
    every call) are re-emitted as :class:`r_bridge.RWarning` once per distinct message and
    RModel object, so a pyiml method that predicts hundreds of times shows them once; other
    R calls (fitting, R's iml, other RModels) are not affected.

    An RModel pickles (rpy2 serialises its R objects). Unpickling loads ``packages``
    (:class:`r_bridge.RNotAvailableError` when one is missing), so the model predicts in a
    new process too.

    Examples
    --------
    >>> rf = RModel("randomForest::randomForest(Species ~ ., data = iris, ntree = 50)",
    ...             packages=["randomForest"], type="prob", seed=1)  # doctest: +SKIP
    >>> Predictor(rf, data=iris).predict(iris).columns.tolist()  # doctest: +SKIP
    ['setosa', 'versicolor', 'virginica']
    """

    task = "unknown"

    def __init__(self, model, predict_function=None, type: Optional[str] = None, packages: Iterable[str] = (),
                 seed: Optional[int] = None):
        if isinstance(packages, str):
            packages = (packages,)
        if not isinstance(packages, Iterable):
            raise TypeError(f"packages must be R package names (a str or a sequence of str), got {packages!r}")
        packages = tuple(packages)
        if not all(isinstance(p, str) for p in packages):
            raise TypeError(f"packages must be R package names (str), got {packages!r}")
        if type is not None and not isinstance(type, str):
            raise TypeError(f"type must be None or a string such as 'prob' or 'response', got {type!r}")
        if type is not None and predict_function is not None:
            raise ValueError(f"type={type!r} is not used with a predict_function (it calls the model itself): "
                             f"pass type {type!r} to predict inside predict_function, or leave predict_function "
                             "out")
        seed = _checked_seed(seed)   # before anything runs in R
        if not isinstance(model, str) and not _is_sexp(model):
            session.robjects()  # RNotAvailableError first when R is missing
            raise TypeError(
                f"model must be an R model (an rpy2 object) or R code that fits one (str), got "
                f"{model.__class__.__name__}; a Python model needs no RModel: "
                "pass it to pyiml.Predictor directly"
            )
        session.require(packages)
        self.packages = packages
        self.type = type
        self.predict_function = predict_function
        self.expression = model if isinstance(model, str) else None
        if isinstance(model, str):
            with session.lock:
                seed_r = _r_seed(seed)
                self.r_object = session.to_robjects(session.r_call(_R_EVAL_MODEL, _str(model), seed_r))
        else:
            self.r_object = model
        self._pf = None if predict_function is None else _eval_function(predict_function, "predict_function")
        with session.lock:
            names = [str(v) for v in session.r_call(_R_FIND_Y, self.r_object)]
        self.target: Optional[str] = names[0] if len(names) == 1 else None
        with session.lock:
            task, labels_only = [str(v) for v in session.r_call(_R_MODEL_TASK, self.r_object)]
        self.task = task
        if labels_only == "TRUE" and self._pf is None:   # iml's inferTaskFromModel warns so
            from pyiml.data import user_stacklevel, warn_user

            warn_user("Output seems to be class instead of probabilities. Automatically transformed to 0 and 1 "
                      "probabilities. You might want to set predict.type = 'prob' for Learner!",
                      UserWarning, user_stacklevel(("pyiml", "r_bridge")))
        self.draws_random = False
        self._reset_caches()

    # per-object caches, rebuilt after unpickling (not part of the pickled state)
    _CACHES = ("_r_warnings", "_model_levels", "_level_actions", "_level_warned")

    def _reset_caches(self) -> None:
        self._r_warnings: set = set()         # R warning messages already re-emitted (once per model)
        self._model_levels = None             # (training levels by column, columns matched by name)
        self._level_actions: dict = {}        # (column, categories, ordered) -> (code map, dtype) or None
        self._level_warned: set = set()       # columns warned about (category order)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in self._CACHES}

    def __setstate__(self, state) -> None:
        # A new process has not loaded the model's packages: without them predict() finds no
        # S3 method ("no applicable method for 'predict'").
        session.require(state.get("packages", ()))
        self.__dict__.update(state)
        self._reset_caches()

    def _pyiml_predict(self, newdata: pd.DataFrame, type: Optional[str] = None) -> pd.DataFrame:
        """Predict ``newdata`` in R and return iml's prediction frame.

        R equivalent: the prediction function iml's ``Predictor`` builds for this model
        (``create_predict_fun``), before ``class`` selection.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Converted with :func:`r_bridge.py2r` (categoricals → factors).
        type : str, optional
            ``predict(model, newdata, type = type)`` instead of the model's own ``type``
            (``pyiml.Predictor(model, type=...)``, as iml's ``Predictor$new(type = )``).

        Returns
        -------
        pandas.DataFrame
            One column per output, named as iml names them; index 0..n-1.
        """
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(f"newdata must be a pandas DataFrame, got {type(newdata).__name__}")
        from pyiml.data import user_stacklevel

        with session.lock:
            nd = convert.frame_sexp(self._in_training_levels(newdata))   # (no robjects cycle: freed at once)
            type_ = self.type if type is None else type
            type_r = _null_or(None if type_ is None else _str(type_))
            try:
                out, drew = session.r_call(_R_PREDICT, self.r_object, nd, type_r, _null_or(self._pf),
                                           _warned=self._r_warnings,
                                           _stacklevel=user_stacklevel(("pyiml", "r_bridge")))   # the user's line
            except session.RError as err:
                if self._pf is None and "no applicable method for 'predict'" in err.r_message:
                    # the model's package is not loaded (a model read by readRDS, or made in another session)
                    cls = "/".join(self.r_object.rclass)
                    raise session.RError(
                        f"{err.r_message} (R has no predict() method for this model of class {cls!r}: load the "
                        f"package that made it with packages=, e.g. RModel(model, packages=['randomForest']) for a "
                        f"randomForest; packages given: {list(self.packages)})", err.code) from err
                raise
            if drew[0]:
                self.draws_random = True
            return convert.r2py(out)

    def _in_training_levels(self, newdata: pd.DataFrame) -> pd.DataFrame:
        """``newdata`` with each Categorical whose categories are the model's training levels in
        another order put in that order (a shallow copy; ``newdata`` itself is left alone)."""
        out = newdata
        for j, action in self._level_actions_of(newdata):
            if action is None:
                continue
            if out is newdata:
                out = newdata.copy(deep=False)
            out.isetitem(j, newdata.iloc[:, j].cat.reorder_categories(action))   # missing values stay missing
        return out

    def _level_actions_of(self, newdata: pd.DataFrame):
        """(position, :meth:`_level_action`) of each Categorical column of ``newdata``, each
        action found once per column, categories and order (its warning given then)."""
        for j, dt in enumerate(newdata.dtypes):
            if not isinstance(dt, pd.CategoricalDtype):
                continue
            name = newdata.columns[j]
            name = name if isinstance(name, str) else str(name)
            strs = tuple(c if isinstance(c, str) else str(c) for c in dt.categories)
            key = (name, strs, bool(dt.ordered))
            try:
                action = self._level_actions[key]
            except KeyError:
                action = self._level_actions[key] = self._level_action(name, strs, dt)
            yield j, action

    def _level_action(self, name: str, strs: tuple, dt):
        """How a Categorical column reaches R: its categories in the model's training order, or
        None (as it is; after warning when its order looks wrong)."""
        exact, by_name = self._training_levels()
        levels = exact.get(name)
        if levels is not None or name in by_name:
            if levels is None or levels == strs or sorted(levels) != sorted(strs):
                return None          # the model matches these by name, or other levels (R checks)
            pos = {v: i for i, v in enumerate(strs)}
            return dt.categories[[pos[v] for v in levels]]   # training level i is that category
        if dt.ordered or len(strs) < 2 or not all(isinstance(c, str) for c in dt.categories):
            return None
        if list(strs) != sorted(strs):
            return None
        r_order = _r_sorted(strs)
        if r_order != strs and name not in self._level_warned:
            from pyiml.data import user_stacklevel, warn_user

            self._level_warned.add(name)
            warn_user(
                f"RModel: column {name!r} is a pandas Categorical whose categories {list(strs)} are in Python's "
                f"sorted order (what astype('category') makes), but R sorts them {list(r_order)} (the levels of "
                "R's factor()). It reaches R as a factor with the levels in the Categorical's order, and models "
                "that use factor codes (ranger, e1071::svm) read levels by position: if the model was trained on "
                "an R factor, its predictions are wrong. Then reorder the categories as the training factor's "
                f"levels: df[{name!r}] = df[{name!r}].cat.reorder_categories({list(r_order)}) if it was made by "
                "factor() with its default levels, the levels given to factor(levels = ...) otherwise",
                UserWarning, user_stacklevel(("pyiml", "r_bridge")))
        return None

    def _training_levels(self) -> Tuple[Dict[str, tuple], frozenset]:
        """The model's training levels by column and the columns it matches by name (found once)."""
        if self._model_levels is None:
            try:
                with session.lock:
                    res = session.r_call(_R_MODEL_LEVELS, self.r_object)
                    exact_r, by_name_r = res[0], res[1]
                    names = [] if len(exact_r) == 0 else [str(n) for n in exact_r.names]
                    exact = {n.strip("`"): tuple(str(v) for v in exact_r[i]) for i, n in enumerate(names)}
                    by_name = frozenset(str(n).strip("`") for n in by_name_r)
            except session.RError:   # an R object that cannot be inspected: no levels known
                exact, by_name = {}, frozenset()
            self._model_levels = (exact, by_name)
        return self._model_levels

    def __repr__(self) -> str:
        what = self.expression if self.expression is not None else "<R object>"
        extra = "" if self.type is None else f", type={self.type!r}"
        extra += "" if self.predict_function is None else ", predict_function=..."
        return f"RModel({what!r}{extra})"


class RFunction:
    """A closed-form model written in R: ``function(newdata)`` returning predictions.

    R equivalent: ``iml::Predictor$new(model = NULL, predict.function = f)``. Used by
    :func:`r_bridge.iml.r_predictor` (``model=RFunction(...)``) so that the R side predicts
    without any Python in the loop; the Python side uses the same formula written in Python.

    Parameters
    ----------
    code : str or rpy2 R function
        R code of ``function(newdata) ...``, evaluated once in a fresh environment whose parent
        is the global environment.

    Attributes
    ----------
    code : str or None
        The R code as given.
    r_object : rpy2 R function
    """

    def __init__(self, code):
        self.code = code if isinstance(code, str) else None
        self.r_object = session.to_robjects(_eval_function(code, "RFunction(code)"))

    def __repr__(self) -> str:
        return f"RFunction({self.code!r})" if self.code is not None else "RFunction(<R function>)"


# ---------------------------------------------------------------------------- Python → R
def _python_predictor(model, type_: Optional[str]) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """The prediction function pyiml's Predictor uses for ``model`` (same column names)."""
    from pyiml.predictor import prediction_function

    if hasattr(model, "_pyiml_predict") or hasattr(model, "predict"):
        return prediction_function(model, None, type_)
    if callable(model):
        return prediction_function(None, model, None)
    raise TypeError(f"model must have a predict method or be a callable f(newdata), got {type(model).__name__}")


def as_r_predict_function(model, type: Optional[str] = None, data: Optional[pd.DataFrame] = None):
    """A Python model as an R prediction function for R's ``iml::Predictor``.

    R equivalent: the ``predict.function`` argument of ``iml::Predictor$new``. The R function
    has the signature ``function(model = NULL, newdata)``, so iml can call it as
    ``f(newdata = nd)`` (its ``model = NULL`` path) or ``f(model, newdata = nd)``.

    Parameters
    ----------
    model : object
        * a scikit-learn classifier: with ``type`` None or ``"prob"`` the R function returns
          ``predict_proba`` as a data.frame with one column per class named ``str(c)`` for ``c``
          in ``classes_``; with ``type`` ``"class"``/``"response"`` the predicted labels
          one-hot encoded, one column per class;
        * anything else with ``predict`` (regressors, statsmodels results with a formula, an
          :class:`RModel`): its output — a numeric vector or a one-column array (R names the
          column ``pred``), a 2-d array (columns ``1``, ``2``…, as R's
          ``data.frame(pred, check.names = FALSE)``), or a DataFrame (its column names);
        * a plain callable ``f(newdata)``: its output, as above.

        Label vectors (strings, categoricals) are one-hot encoded over their sorted distinct
        values (categories for a Categorical), as pyiml's ``Predictor`` does.
    type : str, optional
        See ``model``.
    data : pandas.DataFrame, optional
        Data with the column types the model was trained on (the training data, or the data
        given to iml's ``Predictor``; only its dtypes are kept). R hands over factor levels as
        strings and character columns as they are, so without it the model sees what
        :func:`r_bridge.r2py` makes of ``newdata``; with it each column of ``newdata`` gets
        ``data``'s type back where the values allow it: a Categorical whose categories are not
        strings (e.g. ``[1, 2, 3]``) gets its original categories (R level ``"2"`` → ``2``), a
        Categorical the categories and order of ``data``'s, a string column that arrives as a
        factor becomes strings again and a factor column that arrives as strings a
        Categorical. Values not among ``data``'s categories leave the column as R sent it (the
        model then reports them). :func:`r_bridge.r_predictor` passes its ``data``.

    Returns
    -------
    rpy2.robjects.functions.Function
        ``function(model = NULL, newdata)``; ``newdata`` is converted with
        :func:`r_bridge.r2py` (factors → Categoricals), then to ``data``'s column types when
        ``data`` is given. A Python exception inside the model
        becomes an R error whose message is ``"<ExceptionType>: <message> (Python, <file>:<line>
        in <function>)"`` (and so an
        :class:`r_bridge.RError` when the R call came from Python).

    Notes
    -----
    The Python callback is kept in a module-level registry for the life of the process, so it
    cannot be garbage collected while R holds the function (the same model and ``type``
    reuse one R function, unless the model was refitted with other classes or columns since).
    R must call it from this process: keep ``future::plan("sequential")``
    (:func:`r_bridge.iml.iml` does).
    """
    if type is not None and not isinstance(type, str):
        raise TypeError(f"type must be None or a string such as 'prob' or 'class', got {type!r}")
    if data is not None and not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be None or a pandas DataFrame with the model's training column types, got "
                        f"{data.__class__.__name__}")   # (the argument `type` hides the builtin)
    dtypes = _dtype_template(data)
    renamed = _renamed_by_iml(data)
    key = (id(model), type, _dtype_key(dtypes), tuple(renamed), _fitted_state(model))
    hit = _CALLBACKS.get(key)
    if hit is not None and hit[0] is model:
        return hit[4]
    predict = _python_predictor(model, type)
    if dtypes:
        predict = _with_dtypes(predict, dtypes)
    if renamed:
        predict = _naming_renamed_columns(predict, renamed)
    session.robjects()
    import rpy2.rinterface as ri

    with session.lock:
        callback = _predict_callback(key)
        py_fun = ri.rternalize(callback)
        r_fun = session.to_robjects(session.r_function(_R_WRAP_PY)(py_fun))
    _CALLBACKS[key] = (model, predict, callback, py_fun, r_fun)
    return r_fun


def _labels_key(values) -> tuple:
    """Labels (categories, classes, column names) as a hashable key that tells ``1`` from ``"1"``."""
    return tuple((type(v).__name__, str(v)) for v in values)


def _fitted_state(model) -> tuple:
    """What a prediction function made for ``model`` keeps of its fit: scikit-learn's
    ``classes_`` (the output names), ``feature_names_in_`` and ``n_features_in_`` (the columns
    handed to it; the attributes :func:`pyiml.predictor._raw_prediction` and ``_fit_columns``
    read when they make it). Part of the registry key, so that a model refitted in place (a
    cross-validation loop reusing one estimator) gets a new function instead of one that names
    its outputs by the classes of an earlier fit."""
    out = []
    for attr in ("classes_", "feature_names_in_", "n_features_in_"):
        try:
            value = getattr(model, attr, None)
        except Exception:   # a property that fails (an unfitted step of a pipeline)
            value = None
        if value is None:
            out.append(None)
        elif np.ndim(value) == 0:
            out.append(repr(value))
        else:
            out.append(_labels_key(np.asarray(value, dtype=object).ravel()))
    return tuple(out)


def _renamed_by_iml(data: Optional[pd.DataFrame]) -> Dict[str, str]:
    """``data``'s column names that are not syntactic in R, and what R's ``make.names`` makes of them."""
    if data is None:
        return {}
    from pyiml._algorithms.rformat import r_make_names

    names = [str(c) for c in data.columns]
    return {a: b for a, b in zip(names, r_make_names(names)) if a != b}


def _naming_renamed_columns(predict: Callable, renamed: Dict[str, str]) -> Callable:
    """``predict`` whose failure on ``newdata`` without some of those columns says why: iml
    0.11.4 renames them (``a b`` → ``a.b``) and drops them (docs/differences.md)."""
    def predict_named(newdata: pd.DataFrame):
        try:
            return predict(newdata)
        except Exception as err:
            hit = {a: b for a, b in renamed.items() if a not in newdata.columns}
            if not hit:
                raise
            raise ValueError(
                f"R's iml handed the model newdata without data's column(s) {list(hit)} (it has "
                f"{[str(c) for c in newdata.columns]}), and the model failed ({err.__class__.__name__}: {err}): "
                f"iml 0.11.4's methods make feature names syntactic (make.names: {list(hit.values())}) and then "
                "lose those columns; give the features syntactic R names, or use pyiml, which keeps them") from err

    return predict_named


class _ObjectColumn:
    """An object column of the template and the value it holds for missing: R's ``NA`` in a
    character column comes back as pandas ``string`` with ``pd.NA``; the model gets an object
    column with the training data's missing value (None, or NaN as ``read_csv`` leaves it)."""

    __slots__ = ("missing",)

    def __init__(self, missing):
        self.missing = missing

    def __str__(self) -> str:
        return f"object(missing={self.missing!r})"


def _with_missing(values: pd.Series, na, dt) -> pd.Series:
    """``values`` (object) with ``na`` rows set to the template's missing value (None by default)."""
    missing = dt.missing if isinstance(dt, _ObjectColumn) else None
    out = values.copy()
    out[np.asarray(na)] = missing
    return out


def _dtype_template(data: Optional[pd.DataFrame]) -> Dict[str, Any]:
    """The column types of ``data`` that R does not hand back as they were (categoricals, string
    and object columns and pandas' nullable Float64 / Int64 / boolean), by column name."""
    if data is None:
        return {}
    out: Dict[str, Any] = {}
    for j, name in enumerate(data.columns):
        col = data.iloc[:, j]
        dt = col.dtype
        if dt == object:
            na = col[col.isna()]
            out[str(name)] = _ObjectColumn(na.iloc[0] if len(na) else None)
        elif isinstance(dt, pd.api.extensions.ExtensionDtype):
            out[str(name)] = dt
    return out


def _dtype_key(dtypes: Dict[str, Any]):
    def one(dt):
        if isinstance(dt, pd.CategoricalDtype):
            return ("category", _labels_key(dt.categories), bool(dt.ordered))
        return str(dt)

    return tuple((name, one(dt)) for name, dt in dtypes.items())


def _restore_dtypes(nd: pd.DataFrame, dtypes: Dict[str, Any]) -> pd.DataFrame:
    """``newdata`` from R with the template's column types where the values allow it."""
    out = None
    for name, dt in dtypes.items():
        if name not in nd.columns:
            continue
        col = nd[name]
        new = None
        if isinstance(dt, pd.CategoricalDtype):
            if col.dtype == dt:
                continue
            # a factor or strings (R character): each value's text among the categories' texts
            mask = col.notna().to_numpy()
            codes = np.full(len(col), -1, dtype=np.int64)
            codes[mask] = pd.Index([str(c) for c in dt.categories]).get_indexer(col[mask].astype(str))
            if (codes[mask] < 0).any():
                continue  # labels the model never saw: leave the column as R sent it
            new = pd.Categorical.from_codes(codes, dtype=dt)
        elif isinstance(col.dtype, pd.CategoricalDtype):  # a string column that R holds as a factor
            new = _with_missing(col.astype(object), col.isna(), dt)
            if isinstance(dt, pd.StringDtype):
                new = new.astype(dt)
        elif isinstance(dt, _ObjectColumn) and isinstance(col.dtype, pd.StringDtype):
            new = _with_missing(col.astype(object), col.isna(), dt)   # R character with NA: object again
        elif isinstance(dt, pd.StringDtype) and col.dtype == object:
            new = col.astype(dt)
        elif isinstance(dt, pd.api.extensions.ExtensionDtype) and not isinstance(dt, pd.StringDtype) \
                and col.dtype != dt:  # R double / integer / logical back to Float64 / Int64 / boolean
            from pyiml.data import extension_values  # grid points 2.5 of an Int64 column: Float64, as in pyiml

            new = extension_values(col.to_numpy(), dt, len(col))
        if new is not None:
            if out is None:
                out = nd.copy()
            out[name] = new
    return nd if out is None else out


def _with_dtypes(predict: Callable, dtypes: Dict[str, Any]) -> Callable:
    def predict_restored(newdata: pd.DataFrame):
        return predict(_restore_dtypes(newdata, dtypes))

    return predict_restored


def _predict_callback(key):
    """The function R calls with ``newdata``. It holds only ``key`` and finds the model in the
    registry at call time, so nothing the user created stays referenced from rpy2's internals
    once the registry is cleared at exit."""

    def callback(newdata):
        try:
            entry = _CALLBACKS.get(key)
            if entry is None:
                raise RuntimeError("this Python prediction function was released (the Python session is ending)")
            nd = convert.r2py(newdata)
            if not isinstance(nd, pd.DataFrame):
                raise TypeError(f"newdata must be an R data.frame, got {_type_name(newdata)}")
            # (at rinterface level: no robjects reference cycle keeping it in R's memory)
            return convert.frame_sexp(entry[1](nd))
        except BaseException as exc:  # noqa: BLE001 - every Python error must reach R as an R error
            return _python_error_to_r(exc)

    return callback


def _python_error_to_r(exc: BaseException):
    """A Python exception as the marker the R wrappers turn into ``stop(<message>)``."""
    import rpy2.rinterface as ri

    msg = f"{exc.__class__.__name__}: {exc}"
    tb = traceback.extract_tb(exc.__traceback__)
    if tb:
        last = tb[-1]
        msg += f" (Python, {last.filename}:{last.lineno} in {last.name})"
    vec = ri.StrSexpVector([msg])
    vec.rclass = ri.StrSexpVector(["pyiml_python_error"])
    return vec


def _type_name(obj) -> str:
    """Class name of an R (rpy2) or Python object, for error messages."""
    try:
        return "/".join(obj.rclass)
    except Exception:
        return type(obj).__name__
