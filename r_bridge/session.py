"""The embedded R session: start-up, package checks, evaluation, R errors as Python exceptions.

rpy2 is imported lazily, so ``import r_bridge`` works without R; the first call that needs R
raises :class:`RNotAvailableError` naming what to install.

R is not thread-safe: every interaction goes through :data:`lock`.
"""
from __future__ import annotations

import threading
from typing import Iterable, Optional

__all__ = [
    "RNotAvailableError",
    "RError",
    "lock",
    "robjects",
    "availability_problem",
    "require",
    "r_eval",
    "package_version",
]

lock = threading.RLock()
_ro = None
_checked_packages: set = set()


class RNotAvailableError(ImportError):
    """R, rpy2 or an R package needed by the bridge is not installed."""


class RError(RuntimeError):
    """An error raised inside R; ``r_message`` carries R's own message."""

    def __init__(self, r_message: str, code: Optional[str] = None):
        self.r_message = r_message
        self.code = code
        super().__init__(f"R error: {r_message}")


def robjects():
    """Return ``rpy2.robjects`` (starting the embedded R on first use)."""
    global _ro
    if _ro is not None:
        return _ro
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
    return ro


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

    R errors become :class:`RError` with R's message.
    """
    ro = robjects()
    from rpy2.rinterface_lib.embedded import RRuntimeError

    with lock:
        env = ro.r("new.env(parent = globalenv())")
        for name, value in variables.items():
            env[name] = value
        try:
            return ro.r["eval"](ro.r["parse"](text=code), env)
        except RRuntimeError as exc:
            msg = _last_r_error() or str(exc)
            raise RError(msg.strip(), code) from None


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
