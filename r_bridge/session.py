"""The embedded R session: start-up, package checks, evaluation, R errors as Python exceptions.

rpy2 is imported lazily, so ``import r_bridge`` works without R; the first call that needs R
raises :class:`RNotAvailableError` naming what to install.

R is not thread-safe: every interaction goes through :data:`lock`. A thread that waits for the
lock while the thread holding it waits for that very thread (a Python model called by R that
hands an R call to a worker thread and waits for its result) gets a :class:`RuntimeError`
instead of hanging; see :class:`SessionLock`.
"""
from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
import time
from typing import Iterable, Optional

__all__ = [
    "RNotAvailableError",
    "RError",
    "RWarning",
    "lock",
    "robjects",
    "availability_problem",
    "require",
    "r_eval",
    "package_version",
    "r_function",
    "r_call",
    "to_robjects",
    "SessionLock",
]


class SessionLock:
    """The lock around every use of the embedded R: a reentrant lock (``threading.RLock``)
    that knows which thread holds it.

    R cannot run two calls at once, and it cannot be entered from another thread while it is
    suspended in a Python function it called (a model or loss handed to R's iml): R's state
    lives on the holding thread's stack. So if that Python function waits for another thread
    that needs R (a worker of a ``concurrent.futures`` executor predicting with an
    :class:`r_bridge.RModel`, or a ``threading.Thread`` it joins), neither can go on. A thread
    that has waited for the lock for a moment looks at what the holding thread is doing; when
    it is waiting for this very thread (``Future.result``/``exception``,
    ``concurrent.futures.wait``/``as_completed`` on a future this thread runs, or
    ``Thread.join`` of this thread), the waiting thread raises :class:`RuntimeError` naming the
    cause and the fix instead of hanging forever. Any other wait is left alone (the holder
    will release the lock); a deadlock through other means (queues, events, locks of your
    own) is not detected.
    """

    _POLL = 0.05   # seconds between looks at the holder while waiting

    def __init__(self):
        self._lock = threading.RLock()
        self._owner: Optional[int] = None
        self._count = 0

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not self._lock.acquire(False) and not (blocking and self._wait(timeout)):
            return False
        self._owner = threading.get_ident()
        self._count += 1
        return True

    def release(self) -> None:
        if self._owner != threading.get_ident():
            raise RuntimeError("cannot release un-acquired lock")
        self._count -= 1
        if self._count == 0:
            self._owner = None
        self._lock.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def _wait(self, timeout: float) -> bool:
        deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        while True:
            step = self._POLL if deadline is None else max(0.0, min(self._POLL, deadline - time.monotonic()))
            if self._lock.acquire(True, step):
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            owner = self._owner
            if _waits_for_this_thread(owner):
                if self._lock.acquire(False):     # released meanwhile: no deadlock
                    return True
                if self._owner == owner:
                    _raise_deadlock(owner)


def _waits_for_this_thread(owner: Optional[int]) -> bool:
    """Whether thread ``owner`` is waiting for the calling thread (a future this thread runs
    as a ThreadPoolExecutor worker, or a join of this thread)."""
    me = threading.get_ident()
    if owner is None or owner == me:
        return False
    frame = sys._current_frames().get(owner)
    if frame is None:
        return False
    import concurrent.futures._base as fbase
    import concurrent.futures.thread as fthread

    mine = []   # the futures this thread is running (as a ThreadPoolExecutor worker)
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_filename == fthread.__file__ and f.f_code.co_name == "run":
            fut = getattr(f.f_locals.get("self"), "future", None)
            if fut is not None:
                mine.append(fut)
        f = f.f_back
    waits_for_me = False
    f = frame
    while f is not None and not waits_for_me:
        code = f.f_code
        if code.co_filename == fbase.__file__ and code.co_name in ("result", "exception", "wait", "as_completed"):
            loc = f.f_locals
            futures = [loc.get("self")] if code.co_name in ("result", "exception") else list(loc.get("fs") or ())
            waits_for_me = any(a is b for a in futures for b in mine)
        elif code.co_filename == threading.__file__ and code.co_name == "join":
            waits_for_me = getattr(f.f_locals.get("self"), "ident", None) == me
        f = f.f_back
    return waits_for_me


def _raise_deadlock(owner: int) -> None:
    me = threading.get_ident()
    names = {t.ident: t.name for t in threading.enumerate()}
    raise RuntimeError(
        f"r_bridge: thread {names.get(me, me)!r} needs R, but R is held by thread {names.get(owner, owner)!r}, "
        "which waits for this thread to finish: a deadlock. R runs one call at a time on one thread; when R "
        "calls a Python function (a model or loss handed to R's iml) that function holds R until it returns, "
        "so it cannot wait for R calls (an RModel's predictions) made in other threads. Make those R calls in "
        "the function's own thread (call the RModel directly instead of through an executor or thread)")


lock = SessionLock()
_ro = None
# Callables run at interpreter exit, before rpy2 ends R (see robjects()): they drop cached R
# objects so that their finalizers run while rpy2 is intact.
exit_hooks: list = []
_checked_packages: set = set()


class RNotAvailableError(ImportError):
    """R, rpy2 or an R package needed by the bridge is not installed."""


class RError(RuntimeError):
    """An error raised inside R; ``r_message`` carries R's own message."""

    def __init__(self, r_message: str, code: Optional[str] = None):
        self.r_message = r_message
        self.code = code
        super().__init__(f"R error: {r_message}")


class RWarning(UserWarning):
    """A warning raised inside R during a bridge call, re-emitted in Python.

    ``r_message`` carries R's own message (``conditionMessage(w)``).
    """

    def __init__(self, r_message: str):
        self.r_message = r_message
        super().__init__(f"R warning: {r_message}")


def robjects():
    """Return ``rpy2.robjects`` (starting the embedded R on first use)."""
    global _ro
    if _ro is not None:
        return _ro
    _check_r_home()
    try:
        import rpy2.robjects as ro  # noqa: F401
        import rpy2.rinterface_lib.callbacks as cb
    except ImportError as exc:
        raise RNotAvailableError(
            "r_bridge needs rpy2 and R: install them with `apt-get install python3-rpy2 r-base-core` "
            "(or run `make test`, which runs scripts/bootstrap)"
        ) from exc
    except Exception as exc:  # R shared library missing or broken
        raise RNotAvailableError(f"rpy2 is installed but R could not start: {exc}") from exc
    # Keep R quiet: warnings/messages are collected by the calls that care about them.
    cb.consolewrite_warnerror = lambda s: None
    cb.consolewrite_print = lambda s: None
    with lock:
        ro.r("options(warn = 1, future.rng.onMisuse = 'ignore'); if (requireNamespace('future', quietly = TRUE)) future::plan('sequential')")
    _ro = ro
    atexit.register(_release_cached)  # registered after rpy2's own handler, so it runs first
    return ro


def _check_r_home() -> None:
    """Raise :class:`RNotAvailableError` when ``R_HOME`` is set to a directory that holds no R.

    An embedded R that cannot open its base package ends the whole process ("Fatal error:
    unable to open the base package"), so a wrong ``R_HOME`` must be caught before rpy2 starts
    R. R's base package always lies in ``$R_HOME/library/base``; an unset ``R_HOME`` is left to
    rpy2, which asks ``R RHOME``.
    """
    home = os.environ.get("R_HOME")
    if home and not os.path.isfile(os.path.join(home, "library", "base", "R", "base")):
        raise RNotAvailableError(
            f"R_HOME is {home!r}, which is not an R installation (it has no library/base): unset R_HOME, "
            "or set it to what `R RHOME` prints"
        )


def _release_cached() -> None:
    for hook in exit_hooks:
        hook()
    _functions.clear()
    gc.collect()


def availability_problem(packages: Iterable[str] = ()) -> Optional[str]:
    """Describe what is missing for the bridge (None when R and ``packages`` are usable)."""
    try:
        require(packages)
    except RNotAvailableError as exc:
        return str(exc)
    return None


def require(packages: Iterable[str] = ()) -> None:
    """Raise :class:`RNotAvailableError` unless R and every package in ``packages`` load."""
    ro = robjects()
    todo = [p for p in packages if p not in _checked_packages]
    if not todo:
        return
    with lock:
        ok = ro.r["vapply"](ro.StrVector(todo), ro.r("function(p) requireNamespace(p, quietly = TRUE)"), True)
    missing = [p for p, good in zip(todo, ok) if not good]
    if missing:
        raise RNotAvailableError(
            f"R package(s) {', '.join(missing)} not installed: run `make test` (scripts/bootstrap installs "
            f"them) or in R `install.packages(c({', '.join(repr(m) for m in missing)}))`"
        )
    _checked_packages.update(todo)


def r_eval(code: str, **variables):
    """Evaluate R ``code`` in a fresh environment holding ``variables`` (already R objects or
    plain Python scalars/sequences that rpy2 converts). Returns the rpy2 object.

    R errors become :class:`RError` with R's message (``conditionMessage``); R warnings are
    re-emitted as :class:`RWarning`.
    """
    ro = robjects()
    import rpy2.rinterface as ri

    with lock:
        env = ro.r("new.env(parent = globalenv())")
        for name, value in variables.items():
            env[name] = value
        try:
            value = r_call(_R_EVAL_TEXT, ri.StrSexpVector([code]), env, _stacklevel=3)
        except RError as exc:
            raise RError(exc.r_message, code) from None
        return to_robjects(value)


_R_EVAL_TEXT = "function(code, env) eval(parse(text = code), envir = env)"


def _last_r_error() -> str:
    ro = _ro
    try:
        return str(ro.r("geterrmessage()")[0]).replace("Error in eval(expr, envir, enclos) : ", "").replace(
            "Error in eval(ei, envir) : ", "")
    except Exception:  # pragma: no cover
        return ""


def package_version(package: str) -> str:
    """Installed version of an R package, as a string."""
    require([package])
    with lock:
        return str(robjects().r(f"as.character(packageVersion('{package}'))")[0])


# ---------------------------------------------------------------------------- R helpers
_functions: dict = {}

# Calls .f with the argument list .args; R warnings are collected (and muffled), an R error
# becomes list(FALSE, <message>, <warnings>) instead of unwinding through rpy2.
_TRY_CALL = """function(.f, .args) {
  .w <- character(0)
  .ok <- TRUE
  .v <- tryCatch(
    withCallingHandlers(do.call(.f, .args),
      warning = function(w) {
        .w <<- c(.w, conditionMessage(w))
        invokeRestart("muffleWarning")
      }),
    error = function(e) {
      .ok <<- FALSE
      conditionMessage(e)
    })
  list(.ok, .v, .w)
}"""


def r_function(code: str):
    """The R closure defined by ``code`` (evaluated once, cached by its text).

    R equivalent: ``eval(parse(text = code), new.env(parent = .BaseNamespaceEnv))``.

    Parameters
    ----------
    code : str
        R code of a function. Its environment is a child of R's base namespace (whose parent
        is the global environment): base functions come first; qualify others
        (``stats::predict``).

    Returns
    -------
    rpy2.rinterface.SexpClosure
    """
    fun = _functions.get(code)
    if fun is not None:
        return fun
    robjects()
    import rpy2.rinterface as ri

    with lock:
        env = ri.baseenv["new.env"](parent=ri.baseenv[".BaseNamespaceEnv"])
        fun = ri.baseenv["eval"](ri.parse(code), env)
    if fun.typeof != ri.RTYPES.CLOSXP:
        raise ValueError(f"R code does not define a function: {code[:80]!r}")
    _functions[code] = fun
    return fun


def r_call(fun, *args, _stacklevel: int = 2, _warned: Optional[set] = None, **kwargs):
    """Call the R function ``fun`` with rpy2 arguments; R warnings are re-emitted as
    :class:`RWarning` (with R's message) and an R error becomes :class:`RError` carrying
    ``conditionMessage()`` of the R condition.

    Each distinct warning message of one call is re-emitted once (R raises the same warning
    once per loop iteration, where it would print one summary). ``_warned`` (private) is a set
    of messages the caller has already warned about: they are not re-emitted, and the new ones
    are added to it (:class:`r_bridge.RModel` keeps one per model, so that a warning of its
    ``predict()`` is not repeated on every prediction of a pyiml method). Calls without it
    re-emit every message.

    Parameters
    ----------
    fun : str or rpy2 closure
        R code of a function (``"function(x) x + 1"``, cached) or an R function object.
    *args, **kwargs
        rpy2 objects (``rpy2.rinterface``/``rpy2.robjects`` level). Keyword names may contain
        dots (pass them as ``**{"n.repetitions": v}``).

    Returns
    -------
    rpy2.rinterface.Sexp
        The value returned by R (rinterface level; see :func:`to_robjects`).
    """
    from pyiml.data import warn_user

    robjects()
    import rpy2.rinterface as ri

    with lock:
        f = r_function(fun) if isinstance(fun, str) else fun
        arglist = ri.baseenv["list"](*args, **kwargs)
        res = r_function(_TRY_CALL)(f, arglist)
        ok = bool(res[0][0])
        value = res[1]
        messages = list(dict.fromkeys(str(m) for m in res[2]))   # distinct, in order
    if _warned is not None:
        messages = [m for m in messages if m not in _warned]
        _warned.update(messages)
    for m in messages:
        warn_user(RWarning(m), RWarning, _stacklevel + 1)   # (from a pyiml worker thread: at the user's line)
    if not ok:
        raise RError(str(value[0]).strip())
    return value


def to_robjects(obj):
    """Wrap an ``rpy2.rinterface`` object as its ``rpy2.robjects`` counterpart.

    Parameters
    ----------
    obj : rpy2.rinterface.Sexp

    Returns
    -------
    rpy2.robjects object
        ``DataFrame``, ``FloatVector``, ``Environment``, ``Function``… (no conversion to
        Python types; rpy2's default converter).
    """
    ro = robjects()
    with lock, ro.default_converter.context():
        return ro.default_converter.rpy2py(obj)
