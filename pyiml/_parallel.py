"""Chunking, threads and progress bars for the methods' work items (``n_jobs``, ``progress``)."""
from __future__ import annotations

import numbers
import os
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, List, Optional, Tuple

from .data import run_at_site, user_site

__all__ = ["check_n_jobs", "min_items", "thread_workers", "even_ranges", "plan_chunks", "map_items",
           "THREAD_MIN_BATCH"]


def check_n_jobs(n_jobs) -> int:
    """``n_jobs`` as a number of threads: None is 1 (as in scikit-learn and joblib), -1 all cores."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer, -1 (all cores) or None (1), got {n_jobs!r}")
    return _cpus() if n_jobs == -1 else int(n_jobs)


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


#: Threads only pay when model calls are large enough for numpy models to release the GIL for
#: most of the time; with smaller batches the per-call Python work (building frames) dominates
#: and threads would be slower than one.
THREAD_MIN_BATCH = 10_000

#: Design rows per unit of parallel work (model calls within it are still at most batch_size rows).
_CHUNK_ROWS = 50_000


def thread_workers(n_jobs: int, batch_size: int, desc: Optional[str] = None, key=None,
                   rows: Optional[int] = None, count: bool = False) -> int:
    """The threads :func:`map_items` can use for a kind of work: 1 unless ``n_jobs`` > 1, model
    calls of at least :data:`THREAD_MIN_BATCH` rows, several usable CPUs (never more threads
    than those CPUs) and, when the work's design ``rows`` are given, at least one full model
    call per thread (work that ``n_jobs = 1`` predicts in fewer calls would be cut into more
    calls for the threads, and a model with a cost per call, such as a random forest, loses
    more that way than the threads gain); 1 also while the decision measured for ``(desc,
    key)`` says threads lose. Where it is 1 the work is cut as for ``n_jobs = 1`` and makes no
    more model calls than that. ``count``: such a use of the decision counts towards its next
    measurement here (for work that then skips :func:`map_items`, which counts it otherwise)."""
    if n_jobs <= 1 or batch_size < THREAD_MIN_BATCH:
        return 1
    workers = min(n_jobs, _cpus())
    if rows is not None and rows < workers * batch_size:
        return 1
    if workers > 1 and desc is not None:
        slot, ref = _slot(desc, key)
        known = _known(slot, ref)
        if known is not None and not known[0] and known[1] < RECHECK_EVERY:
            if count:
                with _PAY_LOCK:
                    known[1] += 1
            return 1
    return workers


def even_ranges(n: int, k: int) -> List[range]:
    """``0..n`` cut into ``min(k, n)`` consecutive ranges of nearly equal length."""
    k = min(k, n)
    bounds = [n * i // k for i in range(k + 1)] if k else [0]
    return [range(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def plan_chunks(n_items: int, rows_per_item: int, batch_size: int, n_jobs: int, progress: bool,
                desc: Optional[str] = None, key=None, count: bool = True) -> Tuple[List[range], int]:
    """Split ``n_items`` work items (groups, points) into consecutive chunks; return them and the
    threads (:func:`thread_workers`) to give :func:`map_items` for them.

    A chunk holds about ``max(batch_size, 50 000)`` design rows, so that model calls are full;
    when threads may run (:func:`thread_workers` for ``desc`` and ``key``, the kind of work
    :func:`map_items` gets) at least :func:`min_items` chunks of nearly equal size (one per
    thread and one more, so that :func:`map_items` can measure whether threads pay); with a
    progress bar at most 1/20 of the items. Where threads cannot pay the chunks are those of
    ``n_jobs = 1`` and the thread count is 1, so that :func:`map_items` runs them on the calling
    thread as ``n_jobs = 1`` does. ``count`` as in :func:`thread_workers`. Results never depend
    on the chunking.
    """
    per = max(1, max(batch_size, _CHUNK_ROWS) // max(1, rows_per_item))
    if progress:
        per = min(per, max(1, n_items // 20))
    workers = thread_workers(n_jobs, batch_size, desc, key, rows=n_items * rows_per_item, count=count)
    if workers > 1:
        k = max(min_items(workers), -(-n_items // per))   # chunks: enough to measure, none over per
        return even_ranges(n_items, k), workers
    return [range(i, min(i + per, n_items)) for i in range(0, n_items, per)], 1


#: Threads are kept only when two items on two threads take less than this share of the time
#: one item takes alone, times two (below 1 so that noise does not turn a tie into a loss).
THREAD_GAIN = 0.9

#: A decision is measured again after this many calls that used it.
RECHECK_EVERY = 16

#: The last measured decision per kind of work ``(desc, key)``: [threads pay, calls since,
#: weak reference to the key object (None for plain keys)].
_THREADS_PAY: dict = {}
_PAY_LOCK = threading.Lock()   # methods run from several threads at once share _THREADS_PAY


def _slot(desc: str, key):
    """The dictionary key of a kind of work, and a weak reference to ``key`` when it is an object
    (a Predictor): its ``id`` names it, and the reference tells a decision about a predictor
    that has since been freed (whose ``id`` a new one may reuse) from one about this one."""
    try:
        ref = weakref.ref(key)
    except TypeError:   # None, numbers, strings: plain labels
        return (desc, key), None
    return (desc, id(key)), ref


def _known(slot, ref):
    with _PAY_LOCK:
        known = _THREADS_PAY.get(slot)
    if known is not None and ref is not None and (known[2] is None or known[2]() is not ref()):
        return None   # a decision about another object that had the same id
    return known


def _size(item) -> int:
    """The amount of work in an item: its length (a chunk of points or features), else 1."""
    try:
        return max(1, len(item))
    except TypeError:
        return 1


def min_items(n_jobs: int) -> int:
    """Work items a call needs for :func:`map_items` to measure whether threads pay: one to run
    alone and one per thread."""
    return n_jobs + 1


def map_items(fn: Callable, items: list, n_jobs: int, batch_size: int, progress: bool, desc: str,
              key=None, whole: Optional[Callable] = None) -> list:
    """``[fn(x) for x in items]``, with an optional tqdm bar, on up to ``n_jobs`` threads.

    Threads are used only when they can pay: several items, several usable CPUs and model calls
    of at least :data:`THREAD_MIN_BATCH` rows. Whether they do pay is measured, not assumed (a
    numpy model that is bound by memory bandwidth, or Python work under the GIL, gains little
    from threads): the first item runs alone, the next ``workers`` items on the threads, and the
    rest stays on the threads only when those took less than :data:`THREAD_GAIN` times
    ``workers`` times the first item; otherwise it runs on the calling thread. The decision is
    kept for the kind of work (``desc`` and the caller's ``key``, e.g. the predictor) and used
    by later calls, which measure again after :data:`RECHECK_EVERY` calls or when nothing is
    known yet (a call with too few items to measure uses threads then). When the decision says
    the calling thread and ``whole`` is given, ``[whole()]`` is returned instead: the same work
    done in one piece (which may be cheaper than item by item). The results do not depend on
    any of this: every item carries its own random draws.
    """
    workers = 1
    if n_jobs > 1 and len(items) > 1 and batch_size >= THREAD_MIN_BATCH:
        workers = min(n_jobs, len(items), _cpus())
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=desc)

    def run(x):
        out = fn(x)
        if bar is not None:
            bar.update(1)
        return out

    site = user_site()   # the line a worker thread's warnings name (the user's, not the thread's)

    def run_on_thread(x):
        return run_at_site(site, run, x)

    try:
        if workers <= 1:
            return [run(x) for x in items]
        slot, ref = _slot(desc, key)
        known = _known(slot, ref)
        use_known = known is not None and (known[1] < RECHECK_EVERY or len(items) <= workers)
        if use_known:
            with _PAY_LOCK:
                known[1] += 1
            if not known[0]:
                if whole is None:
                    return [run(x) for x in items]
                out = [whole()]
                if bar is not None:
                    bar.update(len(items))
                return out
        with ThreadPoolExecutor(max_workers=workers) as ex:
            if use_known or len(items) <= workers:
                return list(ex.map(run_on_thread, items))
            t0 = time.perf_counter()
            out = [run(items[0])]
            alone = time.perf_counter() - t0
            t0 = time.perf_counter()
            out += list(ex.map(run_on_thread, items[1:1 + workers]))
            together = time.perf_counter() - t0
            # the items' sizes (chunks of items) weigh the time the first one took alone: the
            # threads pay when they took less than that item would take serially for their work
            serial = alone * sum(_size(x) for x in items[1:1 + workers]) / _size(items[0])
            pays = together < THREAD_GAIN * serial
            with _PAY_LOCK:
                for k in [k for k, v in _THREADS_PAY.items() if v[2] is not None and v[2]() is None]:
                    del _THREADS_PAY[k]   # decisions about freed predictors
                _THREADS_PAY[slot] = [pays, 0, ref]
            rest = items[1 + workers:]
            out += list(ex.map(run_on_thread, rest)) if pays else [run(x) for x in rest]
            return out
    finally:
        if bar is not None:
            bar.close()
