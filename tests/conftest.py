"""Shared test fixtures.

Tests that compare against R carry the marker ``r`` and use the ``r`` fixture.
When R, rpy2 or iml is missing they are skipped with a reason naming what is missing,
unless ``PYIML_REQUIRE_R=1`` (set by ``make test``), in which case they fail: the
project's own test command must really run the parity checks.
"""
import gc
import os

import pytest


def _r_problem():
    try:
        from r_bridge import session
    except Exception as exc:  # pragma: no cover - only without rpy2
        return f"rpy2 not installed ({exc})"
    return session.availability_problem(("iml",))


@pytest.fixture(scope="session")
def r():
    """The embedded R session (``r_bridge.session``); skips or fails when R is missing."""
    problem = _r_problem()
    if problem:
        if os.environ.get("PYIML_REQUIRE_R") == "1":
            pytest.fail(f"R is required for this test run but {problem}")
        pytest.skip(reason=f"R not available: {problem}")
    from r_bridge import session

    return session


@pytest.fixture
def garbage_cycles():
    """``garbage_cycles(fn)``: the number of objects ``fn()`` leaves in reference cycles, which
    only Python's garbage collector frees (run with the collector paused; its state is restored)."""
    def count(fn) -> int:
        was = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            fn()
            return gc.collect()
        finally:
            if was:
                gc.enable()
    return count
