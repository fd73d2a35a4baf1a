"""``map_items``: threads are kept only when they are measured to pay; results never change."""
import threading
import time

import pytest

from pyiml import _parallel
from pyiml._parallel import map_items, plan_chunks


def split_chunks(*args, **kwargs):
    """plan_chunks' chunks, without counting a use of a measured decision (map_items counts it here)."""
    return plan_chunks(*args, **kwargs, count=False)[0]


@pytest.fixture(autouse=True)
def two_cpus(monkeypatch):
    monkeypatch.setattr(_parallel, "_cpus", lambda: 2)
    monkeypatch.setattr(_parallel, "_THREADS_PAY", {})


def _recorder(lock=None, pause=0.02):
    seen = []

    def fn(x):
        seen.append((x, threading.get_ident()))
        if lock is None:
            time.sleep(pause)          # releases the GIL: two threads overlap
        else:
            with lock:                 # one at a time, as work under the GIL
                time.sleep(pause)
        return x * x

    return fn, seen


def test_threads_kept_when_they_pay():
    fn, seen = _recorder()
    out = map_items(fn, list(range(7)), n_jobs=2, batch_size=10 ** 5, progress=False, desc="pays")
    assert out == [x * x for x in range(7)]
    assert _parallel._THREADS_PAY[("pays", None)][0] is True
    main = threading.get_ident()
    assert seen[0] == (0, main)                            # the first item alone, on the caller
    assert all(t != main for x, t in seen[1:])             # the rest on the pool


def test_threads_dropped_when_they_do_not_pay():
    fn, seen = _recorder(lock=threading.Lock(), pause=0.05)
    out = map_items(fn, list(range(7)), n_jobs=2, batch_size=10 ** 5, progress=False, desc="serial")
    assert out == [x * x for x in range(7)]
    assert _parallel._THREADS_PAY[("serial", None)][0] is False
    main = threading.get_ident()
    assert [t == main for _, t in seen] == [True, False, False, True, True, True, True]
    # later calls follow the decision (all on the caller) until it is measured again
    for _ in range(_parallel.RECHECK_EVERY):
        seen.clear()
        assert map_items(fn, [5, 6, 7], n_jobs=2, batch_size=10 ** 5, progress=False, desc="serial") == [25, 36, 49]
        assert all(t == main for _, t in seen)
    seen.clear()
    map_items(fn, [5, 6, 7], n_jobs=2, batch_size=10 ** 5, progress=False, desc="serial")
    assert [t == main for _, t in seen] == [True, False, False]   # measured again
    # the decision is per key: another predictor measures for itself
    seen.clear()
    map_items(fn, [5, 6, 7], n_jobs=2, batch_size=10 ** 5, progress=False, desc="serial", key=1)
    assert [t == main for _, t in seen] == [True, False, False]


def test_a_decision_about_a_freed_object_is_not_used_for_a_new_one_with_its_id():
    """Decisions are kept per predictor; a new predictor may get the id of a freed one, and must
    measure for itself instead of inheriting the old decision."""
    class Owner:
        pass

    fn, seen = _recorder(lock=threading.Lock(), pause=0.02)
    old = Owner()
    map_items(fn, [1, 2, 3], n_jobs=2, batch_size=10 ** 5, progress=False, desc="serial", key=old)
    slot = ("serial", id(old))
    assert _parallel._THREADS_PAY[slot][0] is False
    new = Owner()
    _parallel._THREADS_PAY[("serial", id(new))] = _parallel._THREADS_PAY.pop(slot)   # as if new reused old's id
    seen.clear()
    map_items(fn, [5, 6, 7], n_jobs=2, batch_size=10 ** 5, progress=False, desc="serial", key=new)
    main = threading.get_ident()
    assert [t == main for _, t in seen] == [True, False, False]   # measured anew, not all on the caller
    seen.clear()
    map_items(fn, [5, 6, 7], n_jobs=2, batch_size=10 ** 5, progress=False, desc="serial", key=old)
    assert [t == main for _, t in seen] == [True, False, False]   # and the old owner's decision is gone


def test_no_threads_for_small_batches_or_one_job():
    for n_jobs, bs in ((1, 10 ** 5), (2, 100)):
        fn, seen = _recorder(pause=0)
        assert map_items(fn, list(range(5)), n_jobs=n_jobs, batch_size=bs, progress=False, desc="x") == [0, 1, 4, 9, 16]
        assert {t for _, t in seen} == {threading.get_ident()}
    assert ("x", None) not in _parallel._THREADS_PAY


def test_split_chunks_cover_the_items_once():
    for n_items, rows, bs, jobs in ((10, 500_000, 10 ** 5, 1), (100, 10_001, 10 ** 5, 2), (7, 10 ** 5, 10 ** 5, 3),
                                    (100, 1001, 10 ** 5, 2), (1, 5, 1, 2)):
        chunks = split_chunks(n_items, rows, bs, jobs, progress=False)
        assert [i for c in chunks for i in c] == list(range(n_items))
        if jobs > 1 and bs >= _parallel.THREAD_MIN_BATCH and n_items * rows >= 2 * bs:
            # threads on 2 CPUs: one chunk each and one more, of nearly equal size
            assert len(chunks) >= min(n_items, _parallel.min_items(min(jobs, 2)))
            assert max(map(len, chunks)) - min(map(len, chunks)) <= 1


def test_work_is_cut_as_for_one_job_where_threads_will_not_run():
    """n_jobs > 1 cut the work into n_jobs + 1 chunks even where no thread runs (small batches,
    one CPU, or threads measured to lose) or where n_jobs = 1 makes fewer model calls than the
    threads would (a random forest's cost per call then outweighs them), so it was slower than
    n_jobs = 1; and n_jobs beyond the CPUs cut it finer still."""
    def one(*a):
        return split_chunks(*a[:3], 1, False)

    for args in ((10, 1000, 1000), (10, 1000, 10 ** 5), (12, 20_000, 10 ** 6)):   # small batch; < 1 call per thread
        assert split_chunks(*args, 4, False) == one(*args)
    assert one(12, 20_000, 10 ** 5) == [range(0, 5), range(5, 10), range(10, 12)]
    assert split_chunks(12, 20_000, 10 ** 5, 8, False) == [range(0, 4), range(4, 8), range(8, 12)]   # 2 CPUs: 2 + 1
    _parallel._THREADS_PAY[("FeatureImp", None)] = [False, 0, None]
    assert split_chunks(12, 20_000, 10 ** 5, 2, False, "FeatureImp") == one(12, 20_000, 10 ** 5)
    assert _parallel._THREADS_PAY[("FeatureImp", None)][1] == 0          # map_items counts the use
    assert _parallel.thread_workers(2, 10 ** 5, "FeatureImp", count=True) == 1
    assert _parallel._THREADS_PAY[("FeatureImp", None)][1] == 1          # (work that skips map_items)
    _parallel._THREADS_PAY[("FeatureImp", None)][1] = _parallel.RECHECK_EVERY
    assert len(split_chunks(12, 20_000, 10 ** 5, 2, False, "FeatureImp")) == 3           # due to measure again


def test_unequal_chunks_are_weighed_when_measuring():
    """A first chunk larger than the ones run on the threads made serial threads look fast
    (half the work in less than 0.9 times twice the first chunk's time): now each chunk's
    size weighs the time the first took."""
    lock = threading.Lock()

    def fn(x):
        with lock:                       # one at a time: threads cannot pay
            time.sleep(0.01 * len(x))
        return sum(x)

    out = map_items(fn, [[1, 2, 3, 4], [5, 6], [7], [8]], n_jobs=2, batch_size=10 ** 5, progress=False, desc="w")
    assert out == [10, 11, 7, 8]
    assert _parallel._THREADS_PAY[("w", None)][0] is False


def test_whole_replaces_the_items_once_threads_are_known_to_lose():
    fn, seen = _recorder(lock=threading.Lock(), pause=0.05)
    map_items(fn, [1, 2, 3], n_jobs=2, batch_size=10 ** 5, progress=False, desc="w")  # measures: serial
    assert _parallel._THREADS_PAY[("w", None)][0] is False
    seen.clear()
    out = map_items(fn, [1, 2, 3], n_jobs=2, batch_size=10 ** 5, progress=False, desc="w", whole=lambda: "all")
    assert out == ["all"] and seen == []


def test_n_jobs_none_is_one_as_in_scikit_learn():
    assert _parallel.check_n_jobs(None) == 1
    with pytest.raises(ValueError, match="None"):
        _parallel.check_n_jobs(0)


def test_methods_run_from_many_threads_share_the_decisions_safely():
    """Methods with n_jobs > 1 run at once from several user threads: the shared decisions
    (and their clean-up of freed predictors) never fail ('dictionary changed size during
    iteration', KeyError), and each result is the serial one."""
    import sys
    import weakref
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import pandas as pd

    from pyiml import Predictor, Shapley

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(size=40), "b": rng.normal(size=40), "c": rng.uniform(size=40)})

    def f(d):
        return (3 * d["a"] - d["b"]).to_numpy()

    keep = [Predictor(predict_function=f, data=X, batch_size=10_000) for _ in range(2000)]
    for k in keep:   # decisions about many live predictors: a long dictionary to clean up
        _parallel._THREADS_PAY[("Shapley", id(k))] = [True, 0, weakref.ref(k)]
    want = Shapley(keep[0], X.iloc[:9], sample_size=5, random_state=3).results

    def job(i):
        p = Predictor(predict_function=f, data=X, batch_size=10_000)
        return Shapley(p, X.iloc[:9], sample_size=5, random_state=3, n_jobs=2).results

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)   # switch threads often: the race shows within a few dozen jobs
    try:
        with ThreadPoolExecutor(8) as ex:
            results = list(ex.map(job, range(120)))
    finally:
        sys.setswitchinterval(old)
    for got in results:
        pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_progress_must_be_a_bool(value):
    """progress was taken as bool(progress): "yes" (or 1) showed bars, None hid them silently."""
    import pandas as pd
    from pyiml import FeatureEffects, FeatureImp, Interaction, Predictor, Shapley

    X = pd.DataFrame({"a": [0.1, 0.5, 0.9, 0.3], "b": [1.0, 2.0, 0.5, 1.5]})
    p = Predictor(predict_function=lambda d: d["a"] * d["b"], data=X, y=X["a"] + X["b"])
    for make in (lambda: FeatureImp(p, "mae", progress=value), lambda: FeatureEffects(p, progress=value),
                 lambda: Interaction(p, grid_size=2, progress=value),
                 lambda: Shapley(p, X.iloc[[0]], sample_size=2, progress=value)):
        with pytest.raises(TypeError, match="progress must be True or False"):
            make()


def test_n_jobs_makes_no_more_model_calls_than_one_job_on_small_work():
    """Work that n_jobs=1 predicts in one call per method (300 rows, batch_size 50,000) was cut
    into n_jobs + 1 chunks, each a model call: a model with a cost per call (a random forest)
    was up to 1.5 times slower with n_jobs=2. The calls are now those of n_jobs=1."""
    import numpy as np
    import pandas as pd

    from pyiml import FeatureEffects, FeatureImp, Interaction, Predictor, Shapley

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.uniform(size=(300, 6)), columns=list("abcdef"))
    y = X["a"] * 2 + X["b"] + rng.normal(scale=0.1, size=300)
    runs = {
        "FeatureImp": lambda p, j: FeatureImp(p, "mae", random_state=1, n_jobs=j),
        "FeatureEffects": lambda p, j: FeatureEffects(p, method="ale", n_jobs=j),
        "Shapley": lambda p, j: Shapley(p, X.iloc[:20], sample_size=20, random_state=1, n_jobs=j),
        "Interaction": lambda p, j: Interaction(p, feature="a", grid_size=5, random_state=1, n_jobs=j),
    }
    for name, run in runs.items():
        calls = {}
        for j in (1, 2, 4):
            seen = []

            def f(d):
                seen.append(len(d))
                return (2 * d["a"] + d["b"]).to_numpy()

            run(Predictor(predict_function=f, data=X, y=y, batch_size=50_000), j)
            calls[j] = seen
        assert calls[2] == calls[1] and calls[4] == calls[1], (name, calls)


def test_a_losing_decision_is_counted_once_per_call():
    """split_chunks (through thread_workers) and map_items both counted a use of a decision that
    threads lose, so it was measured again after 8 calls instead of RECHECK_EVERY (16)."""
    lock = threading.Lock()

    def fn(ch):
        with lock:
            time.sleep(0.002 * len(ch))
        return len(ch)

    def call():
        chunks = split_chunks(12, 20_000, 10 ** 5, 2, False, "c")
        return map_items(fn, chunks, 2, 10 ** 5, False, "c"), len(chunks)

    _parallel._THREADS_PAY[("c", None)] = [False, 0, None]
    for i in range(_parallel.RECHECK_EVERY):
        assert _parallel._THREADS_PAY[("c", None)][1] == i
        assert call()[1] == 3                      # n_jobs=1's chunks: 5 + 5 + 2 items
    assert _parallel._THREADS_PAY[("c", None)][1] == _parallel.RECHECK_EVERY
    call()                                         # measured again: equal chunks, a new decision
    assert _parallel._THREADS_PAY[("c", None)][1] == 0


@pytest.mark.parametrize("method", ["Shapley", "FeatureImp", "Interaction"])
def test_work_that_threads_cannot_share_runs_on_the_calling_thread(method):
    """Where the design fits in fewer model calls than there are threads, n_jobs = 2 cuts the work
    as n_jobs = 1 does and runs it on the calling thread (its chunks ran on two threads, a
    model call each: Shapley of 100 points with batch_size 10^5 took 1.15-1.3 times as long)."""
    import numpy as np
    import pandas as pd

    from pyiml import FeatureImp, Interaction, Predictor, Shapley

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(2200, 5)), columns=list("abcde"))
    threads = set()

    def model(d):
        threads.add(threading.get_ident())
        return d["a"].to_numpy() * d["b"].to_numpy() + d["c"].to_numpy()

    # designs of 50,000-60,000 rows: two chunks for n_jobs = 1, under one model call per thread
    p = Predictor(predict_function=model, data=X, y=X["a"] + X["c"], batch_size=30_000)
    run = {"Shapley": lambda j: Shapley(p, X.iloc[:100], sample_size=110, random_state=1, n_jobs=j).results,
           "FeatureImp": lambda j: FeatureImp(p, "mae", random_state=1, n_jobs=j).results,
           "Interaction": lambda j: Interaction(p, "a", grid_size=3, random_state=1, n_jobs=j).results}[method]
    want = run(1)
    threads.clear()
    pd.testing.assert_frame_equal(run(2), want)
    assert threads == {threading.get_ident()}
