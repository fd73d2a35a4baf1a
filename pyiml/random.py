"""Random sources: a fast numpy-backed default and :class:`RRandom`, which replays R 4.x bit for bit.

Every random method in pyiml asks a :class:`RandomSource` for what it needs -- a permutation of
``n``, ``k`` indices, uniforms, normals, or one independent source per element of a parallel map --
so each method runs on either source:

* :class:`NumpySource` wraps a :class:`numpy.random.Generator`. Draws are fast and reproducible for
  a given seed, but they are numpy's, not R's.
* :class:`RRandom` reproduces R's session random number generator exactly (R >= 3.6 defaults:
  ``RNGkind("Mersenne-Twister", "Inversion", "Rejection")``): ``set.seed``, ``runif``, ``rnorm``,
  ``sample.int``/``sample`` (with and without replacement, including the hash algorithm R uses for
  ``n > 1e7``), the L'Ecuyer-CMRG generator, ``parallel::nextRNGStream``/``nextRNGSubStream`` and
  the per-element streams of ``future.apply`` 1.10.0 with ``future.seed = TRUE``. One
  ``RRandom`` carries its state across calls exactly like R's session generator.

R's algorithms are restated here from their documented behaviour; the implementation is vectorised
with numpy (a random permutation of 10^6 takes a fraction of a second) while consuming exactly the
uniforms R consumes, so the state after every call equals R's.
"""
from __future__ import annotations

import abc
import math
import numbers
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ._text import shown

__all__ = [
    "RandomSource",
    "NumpySource",
    "RRandom",
    "as_random_source",
    "next_rng_stream",
    "next_rng_substream",
]

# --------------------------------------------------------------------------------------------
# constants of R's generators
# --------------------------------------------------------------------------------------------

_TWO32 = 4294967296
_UINT_MAX = 4294967295
_U32_SCALE = 2.3283064365386963e-10          # 2^-32: MT output -> [0, 1)
_I2_32M1 = 2.328306437080797e-10             # 1 / (2^32 - 1), used by R's fix-up into (0, 1)
_FIX_LOW = 0.5 * _I2_32M1
_FIX_HIGH = 1.0 - 0.5 * _I2_32M1
_LCG_A = 69069
_SEED_MIN = -(2 ** 31) + 1
_SEED_MAX = 2 ** 31 - 1

_M1 = 4294967087
_M2 = 4294944443
_A12, _A13N = 1403580, 810728
_A21, _A23N = 527612, 1370589
_NORMC = 2.328306549295727688e-10

# One-step transition matrices of the two MRG32k3a components acting on (s0, s1, s2) / (s3, s4, s5).
_A1 = ((0, 1, 0), (0, 0, 1), ((-_A13N) % _M1, _A12, 0))
_A2 = ((0, 1, 0), (0, 0, 1), ((-_A23N) % _M2, 0, _A21))

# RngStreams jump matrices (2^127 steps: next stream; 2^76 steps: next sub-stream).
_A1P127 = ((2427906178, 3580155704, 949770784),
           (226153695, 1230515664, 3580155704),
           (1988835001, 986791581, 1230515664))
_A2P127 = ((1464411153, 277697599, 1610723613),
           (32183930, 1464411153, 1022607788),
           (2824425944, 32183930, 2093834863))
_A1P76 = ((82758667, 1871391091, 4127413238),
          (3672831523, 69195019, 1871391091),
          (3672091415, 3528743235, 69195019))
_A2P76 = ((1511326704, 3759209742, 1610795712),
          (4292754251, 1511326704, 3889917532),
          (3859662829, 4292754251, 3708466080))

_KIND_MT = "Mersenne-Twister"
_KIND_LECUYER = "L'Ecuyer-CMRG"
_KIND_CODES = {_KIND_MT: 3, _KIND_LECUYER: 7}
# .Random.seed[1] = kind + 100 * normal.kind + 10000 * sample.kind (Inversion = 4, Rejection = 1)
_SEED_HEAD = {kind: code + 100 * 4 + 10000 * 1 for kind, code in _KIND_CODES.items()}

_BIG = 134217728.0                            # 2^27, R's inversion for normals
_HASH_MAX_TRIES = 100                         # R's sample2 gives up a slot after 100 duplicates

# --------------------------------------------------------------------------------------------
# argument checks shared by both sources
# --------------------------------------------------------------------------------------------


def _is_int(value) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _count(value, name: str, what: str = "a non-negative integer") -> int:
    if not _is_int(value):
        raise TypeError(f"`{name}` must be {what}, got {shown(value)} of type {type(value).__name__}")
    value = int(value)
    if value < 0:
        raise ValueError(f"`{name}` must be {what}, got {value}")
    return value


def _check_choice(n, k, replace, n_name="n", k_name="k") -> Tuple[int, int]:
    n = _count(n, n_name)
    k = _count(k, k_name, "a non-negative integer (the sample size)")
    if not isinstance(replace, (bool, np.bool_)):
        raise TypeError(f"`replace` must be True or False, got {shown(replace)}")
    if k > 0 and n == 0:
        raise ValueError(f"`{n_name}` must be >= 1 to draw a sample of size `{k_name}`={k}, got {n_name}=0")
    if not replace and k > n:
        raise ValueError(f"`{k_name}` (the sample size) must be <= `{n_name}` when replace=False, "
                         f"got {k_name}={k} > {n_name}={n}")
    return n, k


def _check_seed(seed, name: str = "seed", optional: bool = False) -> Optional[int]:
    """``seed`` as an int R's ``set.seed`` takes (None stays None when ``optional``): TypeError
    for a non-integer, ValueError outside R's 32-bit range (-2^31 is R's NA). The one check of
    R seeds (RRandom, r_bridge); it needs no R."""
    if seed is None and optional:
        return None
    if not _is_int(seed):
        raise TypeError(f"{name} must be an int (R: set.seed({name})){' or None' if optional else ''}, "
                        f"got {shown(seed)} of type {type(seed).__name__}")
    seed = int(seed)
    if not _SEED_MIN <= seed <= _SEED_MAX:
        raise ValueError(f"{name} must be an integer in [{_SEED_MIN}, {_SEED_MAX}] (as R's set.seed, which takes a "
                         f"32-bit integer; -2147483648 is R's NA), got {seed}: pass a seed in that range")
    return seed


# --------------------------------------------------------------------------------------------
# public interface
# --------------------------------------------------------------------------------------------


class RandomSource(abc.ABC):
    """Where a method's random draws come from.

    The one small interface every random method in pyiml uses, implemented by
    :class:`NumpySource` (fast, numpy's draws) and :class:`RRandom` (R's draws, bit for bit).
    The R equivalent is R's session random number generator together with ``sample.int``,
    ``runif``, ``rnorm`` and ``future.apply``'s ``future.seed = TRUE``.

    All indices are 0-based.

    Attributes
    ----------
    r_exact : bool
        True when the source reproduces R's sequence of draws (then a method must ask for its
        draws in iml's order); False when the method may draw in whatever order is fastest.
    """

    r_exact: bool = False

    @abc.abstractmethod
    def permutation(self, n: int) -> np.ndarray:
        """A random permutation of ``range(n)``.

        R equivalent: ``sample.int(n) - 1``.

        Parameters
        ----------
        n : int
            Number of items, ``n >= 0``.

        Returns
        -------
        numpy.ndarray of int64, shape (n,)
        """

    @abc.abstractmethod
    def choice(self, n: int, k: int, replace: bool = False) -> np.ndarray:
        """``k`` random indices from ``range(n)``.

        R equivalent: ``sample.int(n, k, replace) - 1``.

        Parameters
        ----------
        n : int
            Population size, ``n >= 0`` (``n >= 1`` when ``k > 0``).
        k : int
            Sample size, ``0 <= k`` (``k <= n`` when ``replace`` is False).
        replace : bool, default False
            Draw with replacement.

        Returns
        -------
        numpy.ndarray of int64, shape (k,)
        """

    @abc.abstractmethod
    def uniform(self, size: int) -> np.ndarray:
        """``size`` uniforms on (0, 1).

        R equivalent: ``runif(size)``.

        Returns
        -------
        numpy.ndarray of float64, shape (size,)
        """

    @abc.abstractmethod
    def normal(self, size: int) -> np.ndarray:
        """``size`` standard normal draws.

        R equivalent: ``rnorm(size)``.

        Returns
        -------
        numpy.ndarray of float64, shape (size,)
        """

    @abc.abstractmethod
    def element_streams(self, k: int) -> List["RandomSource"]:
        """One independent source per element of a parallel map over ``k`` elements.

        R equivalent: the per-element seeds of ``future.apply::future_lapply(...,
        future.seed = TRUE)`` (and ``future_mapply``).

        Parameters
        ----------
        k : int
            Number of elements.

        Returns
        -------
        list of RandomSource, length k
            Element ``i`` of the map draws from ``streams[i]`` only, so results do not depend on
            how elements are scheduled over workers.
        """

    def permutations(self, n: int, m: int) -> np.ndarray:
        """``m`` successive random permutations of ``range(n)``.

        R equivalent: ``t(replicate(m, sample.int(n) - 1))``.

        Parameters
        ----------
        n : int
            Length of each permutation.
        m : int
            Number of permutations.

        Returns
        -------
        numpy.ndarray of int64, shape (m, n)
        """
        n = _count(n, "n")
        m = _count(m, "m")
        out = np.empty((m, n), dtype=np.int64)
        for i in range(m):
            out[i] = self.permutation(n)
        return out


class NumpySource(RandomSource):
    """Random source backed by a :class:`numpy.random.Generator` (the default).

    Fast, vectorised and reproducible for a given seed, but the draws are numpy's, not R's. The R
    equivalent is R's session generator (without bit-for-bit equality; use :class:`RRandom` for
    that).

    Parameters
    ----------
    generator : numpy.random.Generator, numpy.random.RandomState or None, default None
        The generator to draw from (used in place, so it advances). ``None`` creates a fresh
        ``numpy.random.default_rng()``. A legacy ``RandomState`` is wrapped by seeding a new
        ``Generator`` with 128 bits drawn from it (so a seeded ``RandomState`` still gives
        reproducible results).

    Examples
    --------
    >>> src = NumpySource(np.random.default_rng(1))
    >>> src.permutation(5).shape
    (5,)
    """

    r_exact = False

    def __init__(self, generator=None):
        if generator is None:
            generator = np.random.default_rng()
        elif isinstance(generator, np.random.RandomState):
            generator = np.random.default_rng(
                np.random.SeedSequence(generator.randint(0, 2 ** 32, size=4, dtype=np.uint64).tolist()))
        elif not isinstance(generator, np.random.Generator):
            raise TypeError("`generator` must be a numpy.random.Generator, a numpy.random.RandomState or None, "
                            f"got {type(generator).__name__}")
        self._gen = generator

    @property
    def generator(self) -> np.random.Generator:
        """The wrapped :class:`numpy.random.Generator`."""
        return self._gen

    def __repr__(self) -> str:
        return f"NumpySource({self._gen!r})"

    def permutation(self, n: int) -> np.ndarray:
        """A random permutation of ``range(n)`` (R: ``sample.int(n) - 1``; numpy's draws)."""
        n = _count(n, "n")
        return self._gen.permutation(n).astype(np.int64, copy=False)

    def choice(self, n: int, k: int, replace: bool = False) -> np.ndarray:
        """``k`` random indices from ``range(n)`` (R: ``sample.int(n, k, replace) - 1``; numpy's draws)."""
        n, k = _check_choice(n, k, replace)
        if k == 0:
            return np.empty(0, dtype=np.int64)
        if replace:
            return self._gen.integers(0, n, size=k, dtype=np.int64)
        return self._gen.choice(n, size=k, replace=False).astype(np.int64, copy=False)

    def uniform(self, size: int) -> np.ndarray:
        """``size`` uniforms on [0, 1) (R: ``runif(size)``; numpy's draws)."""
        size = _count(size, "size")
        return self._gen.random(size)

    def normal(self, size: int) -> np.ndarray:
        """``size`` standard normal draws (R: ``rnorm(size)``; numpy's draws)."""
        size = _count(size, "size")
        return self._gen.standard_normal(size)

    def permutations(self, n: int, m: int) -> np.ndarray:
        """``m`` independent permutations of ``range(n)`` as rows, drawn in one vectorised call.

        R equivalent: ``t(replicate(m, sample.int(n) - 1))`` (numpy's draws).
        """
        n = _count(n, "n")
        m = _count(m, "m")
        base = np.broadcast_to(np.arange(n, dtype=np.int64), (m, n))
        return self._gen.permuted(base, axis=1)

    def element_streams(self, k: int) -> List["NumpySource"]:
        """``k`` independent child sources, spawned from the generator's seed sequence.

        R equivalent: the per-element seeds of ``future.apply`` with ``future.seed = TRUE``
        (numpy's construction: :meth:`numpy.random.SeedSequence.spawn`, the same children as
        ``Generator.spawn`` in numpy >= 1.25). Reproducible for a seeded generator; successive
        calls give new, independent children.
        """
        k = _count(k, "k")
        bitgen = self._gen.bit_generator
        seq = getattr(bitgen, "seed_seq", None) or getattr(bitgen, "_seed_seq", None)
        if not hasattr(seq, "spawn"):
            # A bit generator without a seed sequence: derive one from its own draws.
            seq = np.random.SeedSequence(self._gen.integers(0, 2 ** 32, size=4, dtype=np.uint64).tolist())
        return [NumpySource(np.random.Generator(type(bitgen)(child))) for child in seq.spawn(k)]


def as_random_source(random_state) -> RandomSource:
    """Turn a ``random_state`` argument into a :class:`RandomSource`.

    R equivalent: none (R methods use the session generator; pass ``RRandom(seed)`` for R's
    ``set.seed(seed)``).

    Parameters
    ----------
    random_state : None, int, Generator, RandomState, BitGenerator, SeedSequence or RandomSource
        ``None`` -> a fresh ``NumpySource(numpy.random.default_rng())``; an int ``>= 0`` ->
        ``NumpySource(numpy.random.default_rng(int))``; a Generator, BitGenerator, SeedSequence or
        RandomState -> wrapped in a :class:`NumpySource`; a :class:`RandomSource` (including
        :class:`RRandom`) is returned as is.

    Returns
    -------
    RandomSource

    Raises
    ------
    TypeError
        For any other type (including bool and float).
    ValueError
        For a negative int.
    """
    if random_state is None:
        return NumpySource(np.random.default_rng())
    if isinstance(random_state, RandomSource):
        return random_state
    if _is_int(random_state):
        if int(random_state) < 0:
            raise ValueError(f"`random_state` as an int must be >= 0 (a numpy seed), got {int(random_state)}; "
                             "use pyiml.RRandom(seed) for R's set.seed(seed), which also takes negative seeds")
        return NumpySource(np.random.default_rng(int(random_state)))
    if isinstance(random_state, np.random.Generator):
        return NumpySource(random_state)
    if isinstance(random_state, np.random.RandomState):
        return NumpySource(random_state)
    if isinstance(random_state, (np.random.BitGenerator, np.random.SeedSequence)):
        return NumpySource(np.random.default_rng(random_state))
    raise TypeError("`random_state` must be None, a non-negative int, a numpy.random.Generator, "
                    "a numpy.random.RandomState, a numpy BitGenerator/SeedSequence, or a pyiml RandomSource "
                    f"such as pyiml.RRandom(seed); got {shown(random_state)} of type {type(random_state).__name__}")


# --------------------------------------------------------------------------------------------
# modular 3x3 matrix helpers (exact, Python ints)
# --------------------------------------------------------------------------------------------


def _matvec(a, v, m):
    return tuple((a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2]) % m for i in range(3))


def _matmul(a, b, m):
    return tuple(tuple((a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j]) % m for j in range(3))
                 for i in range(3))


def _matpow(a, e, m):
    result = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    while e:
        if e & 1:
            result = _matmul(a, result, m)
        a = _matmul(a, a, m)
        e >>= 1
    return result


def _lcg(seed: int) -> int:
    return (_LCG_A * seed + 1) & 0xFFFFFFFF


def _scrambled(seed: int) -> int:
    """R's ``Randomize``: the seed as a 32-bit unsigned int, scrambled 50 times."""
    seed &= 0xFFFFFFFF
    for _ in range(50):
        seed = _lcg(seed)
    return seed


def _as_uint32_list(values) -> List[int]:
    return [int(v) & 0xFFFFFFFF for v in values]


def _as_int32_array(values) -> np.ndarray:
    return np.array([v - _TWO32 if v >= 2 ** 31 else v for v in (int(x) for x in values)], dtype=np.int32)


def _check_lecuyer_state(state: Sequence[int]) -> Tuple[int, ...]:
    state = tuple(int(s) for s in state)
    if len(state) != 6:
        raise ValueError(f"a L'Ecuyer-CMRG state has 6 words, got {len(state)}")
    if any(s >= _M1 for s in state[:3]) or any(s >= _M2 for s in state[3:]) or not any(state[:3]) \
            or not any(state[3:]):
        raise ValueError(f"invalid L'Ecuyer-CMRG state {state}: words 1-3 must be in [0, {_M1}) and words 4-6 "
                         f"in [0, {_M2}), each triple not all zero")
    return state


def _lecuyer_state_from_seed(seed: int) -> Tuple[int, ...]:
    """R's ``RNG_Init`` for L'Ecuyer-CMRG (used by ``set.seed`` and by switching ``RNGkind``)."""
    seed = _scrambled(seed)
    out = []
    for _ in range(6):
        seed = _lcg(seed)
        while seed >= _M2:
            seed = _lcg(seed)
        out.append(seed)
    return tuple(out)


def _mt_state_from_seed(seed: int) -> Tuple[np.ndarray, int]:
    """R's ``RNG_Init`` for the Mersenne-Twister: 625 LCG words; word 0 (``mti``) forced to 624."""
    seed = _scrambled(seed)
    words = []
    for _ in range(625):
        seed = _lcg(seed)
        words.append(seed)
    return np.array(words[1:], dtype=np.uint32), 624


def _seed_vector_to_lecuyer(seed) -> Tuple[int, ...]:
    vec = np.asarray(seed)
    if vec.shape != (7,) or not np.issubdtype(vec.dtype, np.number) or not np.all(np.isfinite(vec)) \
            or not np.all(vec == np.round(vec)) or int(vec[0]) % 100 != 7:
        raise ValueError("`seed` must be a L'Ecuyer-CMRG .Random.seed: 7 integers whose first is ..07 (e.g. 10407), "
                         f"got {shown(seed)}")
    return tuple(_as_uint32_list(vec[1:].astype(np.int64)))


def next_rng_stream(seed) -> np.ndarray:
    """The seed of the next L'Ecuyer-CMRG stream (2^127 steps ahead).

    R equivalent: ``parallel::nextRNGStream(seed)``.

    Parameters
    ----------
    seed : array-like of 7 ints
        A L'Ecuyer-CMRG ``.Random.seed`` (first element ``10407`` for R's defaults).

    Returns
    -------
    numpy.ndarray of int32, shape (7,)
    """
    s = _seed_vector_to_lecuyer(seed)
    new = _matvec(_A1P127, s[:3], _M1) + _matvec(_A2P127, s[3:], _M2)
    return np.concatenate([np.asarray(seed, dtype=np.int64)[:1].astype(np.int32), _as_int32_array(new)])


def next_rng_substream(seed) -> np.ndarray:
    """The seed of the next L'Ecuyer-CMRG sub-stream (2^76 steps ahead).

    R equivalent: ``parallel::nextRNGSubStream(seed)``.

    Parameters
    ----------
    seed : array-like of 7 ints
        A L'Ecuyer-CMRG ``.Random.seed``.

    Returns
    -------
    numpy.ndarray of int32, shape (7,)
    """
    s = _seed_vector_to_lecuyer(seed)
    new = _matvec(_A1P76, s[:3], _M1) + _matvec(_A2P76, s[3:], _M2)
    return np.concatenate([np.asarray(seed, dtype=np.int64)[:1].astype(np.int32), _as_int32_array(new)])


# --------------------------------------------------------------------------------------------
# generator cores: exact unif_rand() streams with a look-ahead buffer
# --------------------------------------------------------------------------------------------


class _Core(abc.ABC):
    """A stream of R's ``unif_rand()`` values with look-ahead.

    Values are generated in blocks and kept in ``_pending``; ``take`` hands out the next ones,
    ``untake`` gives back the tail of the last ``take``. The exact R state is
    ``_snap`` advanced by ``_consumed`` values; it is recomputed only when asked for.
    """

    kind = ""
    _min_block = 1024

    def __init__(self):
        self._pending = np.empty(0)
        self._ppos = 0
        self._snap = self._snapshot()
        self._consumed = 0

    # subclass hooks -------------------------------------------------------------------------
    @abc.abstractmethod
    def _snapshot(self):
        """Implemented by each generator kind."""

    @abc.abstractmethod
    def _load(self, snap) -> None:
        """Implemented by each generator kind."""

    @abc.abstractmethod
    def _advance(self, snap, count: int):
        """Implemented by each generator kind."""

    @abc.abstractmethod
    def _generate(self, count: int) -> np.ndarray:
        """Implemented by each generator kind."""

    # stream ------------------------------------------------------------------------------------
    def reserve(self, count: int) -> None:
        """Make sure the next ``count`` values are generated (one call to the generator)."""
        avail = self._pending.shape[0] - self._ppos
        if avail < count:
            if avail == 0:
                # the underlying generator is exactly at the R state: re-anchor the snapshot
                self._snap = self._snapshot()
                self._consumed = 0
                self._pending = self._generate(max(count, self._min_block))
            else:
                more = self._generate(max(count - avail, self._min_block))
                self._pending = np.concatenate([self._pending[self._ppos:], more])
            self._ppos = 0

    def take(self, count: int) -> np.ndarray:
        self.reserve(count)
        out = self._pending[self._ppos:self._ppos + count]
        self._ppos += count
        self._consumed += count
        return out

    def untake(self, count: int) -> None:
        if count:
            self._ppos -= count
            self._consumed -= count

    def exact_snapshot(self):
        """The R state after the values handed out so far."""
        if self._ppos == self._pending.shape[0]:
            return self._snapshot()
        snap = self._advance(self._snap, self._consumed)
        self._snap, self._consumed = snap, 0
        return snap


class _MersenneTwisterCore(_Core):
    """R's Mersenne-Twister; numpy's MT19937 carries the state (key = mt[], pos = mti)."""

    kind = _KIND_MT

    def __init__(self, key: np.ndarray, pos: int):
        self._bg = np.random.MT19937()
        self._load((np.asarray(key, dtype=np.uint32).copy(), int(pos)))
        super().__init__()

    def _snapshot(self):
        st = self._bg.state["state"]
        return (st["key"], int(st["pos"]))

    def _load(self, snap) -> None:
        key, pos = snap
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": np.array(key, dtype=np.uint32), "pos": pos}}

    def _advance(self, snap, count: int):
        tmp = np.random.MT19937()
        tmp.state = {"bit_generator": "MT19937", "state": {"key": np.array(snap[0], dtype=np.uint32),
                                                          "pos": snap[1]}}
        while count > 0:
            step = min(count, 1 << 22)
            tmp.random_raw(step)
            count -= step
        st = tmp.state["state"]
        return (st["key"], int(st["pos"]))

    def _generate(self, count: int) -> np.ndarray:
        raw = self._bg.random_raw(count)
        u = raw.astype(np.float64) * _U32_SCALE
        u[raw == 0] = _FIX_LOW          # fix-up into (0, 1); 1 cannot occur
        return u

    def random_seed(self) -> np.ndarray:
        key, pos = self.exact_snapshot()
        return np.concatenate([np.array([_SEED_HEAD[_KIND_MT], pos], dtype=np.int32),
                               np.asarray(key, dtype=np.uint32).view(np.int32)])


class _LEcuyerCore(_Core):
    """R's L'Ecuyer-CMRG (MRG32k3a), generated in vectorised lanes (see ``_mrg32k3a_lanes``)."""

    kind = _KIND_LECUYER

    def __init__(self, state: Sequence[int]):
        self._s = _check_lecuyer_state(state)
        super().__init__()

    def _snapshot(self):
        return self._s

    def _load(self, snap) -> None:
        self._s = tuple(snap)

    def _advance(self, snap, count: int):
        return _lecuyer_jump(snap, count)

    def _generate(self, count: int) -> np.ndarray:
        s = self._s
        if count <= 256:
            s0, s1, s2, s3, s4, s5 = s
            out = np.empty(count)
            for t in range(count):
                p1 = (_A12 * s1 - _A13N * s0) % _M1
                s0, s1, s2 = s1, s2, p1
                p2 = (_A21 * s5 - _A23N * s3) % _M2
                s3, s4, s5 = s4, s5, p2
                out[t] = (p1 - p2 if p1 > p2 else p1 - p2 + _M1) * _NORMC
            self._s = (s0, s1, s2, s3, s4, s5)
            return out
        self._s = _lecuyer_jump(s, count)
        return _mrg32k3a_lanes(s, count)

    def random_seed(self) -> np.ndarray:
        s = self.exact_snapshot()
        return np.concatenate([np.array([_SEED_HEAD[_KIND_LECUYER]], dtype=np.int32), _as_int32_array(s)])


_POW2 = {}


def _pow2_matrices(comp: int):
    """``A^(2^j)`` for j = 0..127 of MRG32k3a component ``comp`` (0 or 1), computed once."""
    if comp not in _POW2:
        a, m = (_A1, _M1) if comp == 0 else (_A2, _M2)
        mats = [a]
        for _ in range(127):
            mats.append(_matmul(mats[-1], mats[-1], m))
        _POW2[comp] = mats
    return _POW2[comp]


def _jump_component(vec, count: int, comp: int):
    m = _M1 if comp == 0 else _M2
    mats = _pow2_matrices(comp)
    j = 0
    while count:
        if count & 1:
            vec = _matvec(mats[j], vec, m)
        count >>= 1
        j += 1
    return tuple(vec)


def _lecuyer_jump(state: Sequence[int], count: int) -> Tuple[int, ...]:
    """The L'Ecuyer-CMRG state ``count`` steps ahead (exact, via cached powers of the matrices)."""
    return _jump_component(state[:3], count, 0) + _jump_component(state[3:], count, 1)


def _mulmod_rows(mat, vecs: np.ndarray, m: int) -> np.ndarray:
    """``mat @ v mod m`` for each row ``v`` of ``vecs`` (entries < 2^32; exact in uint64)."""
    mu = np.uint64(m)
    out = np.empty_like(vecs)
    for i in range(3):
        acc = (np.uint64(mat[i][0]) * vecs[:, 0]) % mu
        acc += (np.uint64(mat[i][1]) * vecs[:, 1]) % mu
        acc += (np.uint64(mat[i][2]) * vecs[:, 2]) % mu
        out[:, i] = acc % mu
    return out


# x_t = c1 x_{t-1} + c2 x_{t-2} + c3 x_{t-3} (mod m), one row per component
_REC_C1 = np.array([[0.0], [float(_A21)]])
_REC_C2 = np.array([[float(_A12)], [0.0]])
_REC_C3 = np.array([[-float(_A13N)], [-float(_A23N)]])
_REC_M = np.array([[float(_M1)], [float(_M2)]])


def _mrg32k3a_lanes(state: Sequence[int], count: int) -> np.ndarray:
    """The next ``count`` L'Ecuyer-CMRG uniforms from ``state`` (exactly R's ``unif_rand()``).

    The sequence is cut into ``lanes`` (a power of two) contiguous pieces of ``steps`` outputs;
    the lane start states come from the jump matrix ``A^steps`` (applied by doubling), then all
    lanes of both components advance together with the recurrence itself, whose small
    multipliers keep every product below 2^53, so float64 arithmetic (with a floor-based
    reduction and one correction) is exact.
    """
    lanes = 1 << int(min(13, max(4, (4 * math.isqrt(count)).bit_length() - 1)))
    steps = -(-count // lanes)
    starts = np.empty((2, lanes, 3), dtype=np.uint64)
    starts[0, 0] = state[:3]
    starts[1, 0] = state[3:]
    jumps = [_matpow(_A1, steps, _M1), _matpow(_A2, steps, _M2)]
    h = 1
    while h < lanes:
        for c, m in ((0, _M1), (1, _M2)):
            starts[c, h:2 * h] = _mulmod_rows(jumps[c], starts[c, :h], m)
            jumps[c] = _matmul(jumps[c], jumps[c], m)
        h *= 2
    st = starts.astype(np.float64)
    x3, x2, x1 = st[:, :, 0].copy(), st[:, :, 1].copy(), st[:, :, 2].copy()   # oldest .. newest
    out = np.empty((steps, lanes))
    neg = np.empty((2, lanes), dtype=bool)
    for b in range(steps):
        p = _REC_C1 * x1
        p += _REC_C2 * x2
        p += _REC_C3 * x3                        # |p| < 2^53: exact
        p -= np.floor(p / _REC_M) * _REC_M       # exact; at most one modulus too low
        np.less(p, 0.0, out=neg)
        np.add(p, _REC_M, out=p, where=neg)
        np.subtract(p[0], p[1], out=out[b])      # p1 - p2, exact
        x3, x2, x1 = x2, x1, p
    out[out <= 0] += float(_M1)
    out *= _NORMC
    return out.T.ravel()[:count]


# --------------------------------------------------------------------------------------------
# R's sampling algorithms on a core
# --------------------------------------------------------------------------------------------


def _bits(dn: float) -> int:
    """``(int) ceil(log2(dn))`` as in R's ``R_unif_index`` (same libm, same rounding)."""
    return int(math.ceil(math.log2(dn)))


def _candidates(core: _Core, count: int, bits: int) -> np.ndarray:
    """``count`` successive values of R's ``rbits(bits)``: ``bits // 16 + 1`` uniforms each,
    16 bits per uniform (``floor(u * 65536)``), masked to ``bits`` bits (R accumulates in 64 bits;
    masking the first chunk before shifting gives the same low bits)."""
    nch = bits // 16 + 1
    u = core.take(count * nch)
    c = (u * 65536.0).astype(np.int64)       # floor: u > 0
    top = bits - 16 * (nch - 1)              # bits kept from the first chunk, 0..15
    if nch == 1:
        return c & ((1 << top) - 1)
    c = c.reshape(count, nch)
    v = (c[:, 0] & ((1 << top) - 1)) << (16 * (nch - 1))
    for q in range(1, nch):
        v |= c[:, q] << (16 * (nch - 1 - q))
    return v


def _margin(expected: float) -> int:
    return int(expected * 1.03 + 4.0 * math.sqrt(expected) + 16)


def _unif_index_many(core: _Core, dn: float, k: int) -> np.ndarray:
    """``k`` successive ``R_unif_index(dn)`` (R's ``sample.int(n, k, replace = TRUE) - 1``)."""
    if k == 0:
        return np.empty(0, dtype=np.int64)
    if dn <= 0:
        return np.zeros(k, dtype=np.int64)
    bits = _bits(dn)
    nch = bits // 16 + 1
    p_acc = dn / 2.0 ** bits
    parts = []
    need = k
    while need:
        count = _margin(need / p_acc)
        v = _candidates(core, count, bits)
        acc = np.flatnonzero(v < dn)
        if acc.shape[0] >= need:
            last = int(acc[need - 1])
            parts.append(v[acc[:need]])
            core.untake((count - last - 1) * nch)
            need = 0
        else:
            parts.append(v[acc])
            need -= acc.shape[0]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _accept_run(v: np.ndarray, nl0: int, need: int) -> Tuple[np.ndarray, int]:
    """Sequential rejection with a decreasing bound, vectorised.

    Candidate ``v[t]`` is accepted iff ``v[t] < nl0 - (number accepted before t)``; stops after
    ``need`` acceptances. Returns the accepted values and the number of candidates consumed.

    Chunks are decided with numpy: inside a chunk the bound lies between ``base - u`` (every
    earlier candidate of the chunk accepted) and ``base``; candidates outside that band are
    decided at once, the few inside it one by one.
    """
    C = v.shape[0]
    if C <= 96 or nl0 <= 256:
        acc = []
        nl = nl0
        for t, x in enumerate(v.tolist()):
            if x < nl:
                acc.append(x)
                nl -= 1
                if len(acc) == need:
                    return np.array(acc, dtype=np.int64), t + 1
        return np.array(acc, dtype=np.int64), C
    B = int(min(1 << 16, max(64, 8 * math.isqrt(nl0))))
    local = np.arange(B, dtype=np.int64)
    parts = []
    got = 0
    t0 = 0
    while got < need and t0 < C:
        ch = v[t0:t0 + B]
        m = ch.shape[0]
        base = nl0 - got
        sure = ch < (base - local[:m])
        amb = np.flatnonzero((ch < base) & ~sure)
        if amb.shape[0]:
            acc = sure.copy()
            before = np.cumsum(sure)[amb]            # sure acceptances before each ambiguous one
            extra = 0
            for a, x, c in zip(amb.tolist(), ch[amb].tolist(), before.tolist()):
                if x < base - c - extra:
                    acc[a] = True
                    extra += 1
        else:
            acc = sure
        idx = np.flatnonzero(acc)
        if got + idx.shape[0] >= need:
            take = need - got
            parts.append(ch[idx[:take]])
            t0 += int(idx[take - 1]) + 1
            got = need
            break
        parts.append(ch[idx])
        got += idx.shape[0]
        t0 += m
    out = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.empty(0, np.int64)
    return out, t0


def _stable_argsort_nonneg(values: np.ndarray, upper: int) -> np.ndarray:
    """Stable argsort of non-negative ints ``< upper`` (LSD radix on 16-bit digits)."""
    npass = max(1, -(-max(1, int(upper - 1).bit_length()) // 16))
    order = np.argsort((values & 0xFFFF).astype(np.uint16), kind="stable")
    for p in range(1, npass):
        digit = ((values[order] >> (16 * p)) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
    return order


def _resolve_picks(picks: np.ndarray, n: int) -> np.ndarray:
    """The values R's partial Fisher-Yates returns for the pick sequence ``picks``.

    Step ``i`` (0-based) of R's ``sample.int(n, k)``: output ``x[j_i]``, then
    ``x[j_i] = x[n - 1 - i]``, with ``x`` initially ``0..n-1``. Vectorised: the value at a
    position is the value written by the last earlier step that picked that position (else the
    position itself); following those links is done by pointer jumping.
    """
    k = picks.shape[0]
    if k <= 256:
        x = {}
        out = []
        nl = n
        for j in picks.tolist():
            nl -= 1
            out.append(x.get(j, j))
            x[j] = x.get(nl, nl)
        return np.array(out, dtype=np.int64)
    idx = np.arange(k, dtype=np.int64)
    order = _stable_argsort_nonneg(picks, n)
    sj = picks[order]
    same = sj[1:] == sj[:-1]
    prev = np.empty(k, dtype=np.int64)                    # previous step that picked the same position
    prev[order[0]] = -1
    prev[order[1:]] = np.where(same, order[:-1], -1)
    is_end = np.ones(k, dtype=bool)
    is_end[:-1] = ~same
    ends = np.flatnonzero(is_end & (sj >= n - k))
    writer = np.full(k, -1, dtype=np.int64)               # last step picking position n-1-i, at index i
    writer[(n - 1) - sj[ends]] = order[ends]
    # Step i moves the value at position n-1-i: the value its last earlier writer moved there
    # (a tree: parent < i), or n-1-i itself at a root. Pointer jumping over the unresolved nodes.
    parent = np.where(writer == idx, prev, writer)
    jump = np.where(parent < 0, idx, parent)
    act = np.flatnonzero(parent >= 0)
    while act.shape[0]:
        nxt = jump[jump[act]]
        jump[act] = nxt
        act = act[parent[nxt] >= 0]
    moved = (n - 1) - jump
    return np.where(prev < 0, picks, moved[np.maximum(prev, 0)])


def _noreplace_uniforms(n: int, k: int) -> float:
    """Expected number of uniforms R's ``sample.int(n, k)`` (no replacement, no hash) uses."""
    total, i, nl = 0.0, 0, n
    while i < k:
        bits = _bits(nl)
        low = (1 << (bits - 1)) if bits > 0 else 0
        need = min(k - i, nl - low)
        total += (bits // 16 + 1) * (1.0 if bits == 0 else (2.0 ** bits) * math.log(nl / (nl - need)))
        i += need
        nl -= need
    return total


_TAIL = 256
_TAIL_MASKS = [0] + [(1 << _bits(v)) - 1 for v in range(1, _TAIL + 1)]   # by bound nl


def _tail_picks(core: _Core, picks: np.ndarray, i: int, k: int, nl: int) -> int:
    """Picks ``i..k-1`` of :func:`_sample_noreplace` once the bound ``nl`` is at most 256: each
    candidate is one uniform's 16 bits masked to ``bits(nl)`` bits (R's ``rbits``), accepted iff
    below ``nl``, which then drops by one. Returns k."""
    while i < k:
        count = _margin(_noreplace_uniforms(nl, k - i))
        u = (core.take(count) * 65536.0).astype(np.int64).tolist()
        pos = 0
        for x in u:
            pos += 1
            x &= _TAIL_MASKS[nl]
            if x < nl:
                picks[i] = x
                i += 1
                nl -= 1
                if i == k:
                    break
        core.untake(count - pos)
    return i


def _sample_noreplace(core: _Core, n: int, k: int) -> np.ndarray:
    """R's ``sample.int(n, k)`` (k >= 2, no replacement, no hash) minus 1."""
    picks = np.empty(k, dtype=np.int64)
    # expected number of uniforms for the whole call, generated in one go
    core.reserve(_margin(_noreplace_uniforms(n, k)))
    i = 0
    nl = n
    while i < k:
        if nl <= _TAIL:   # the last bit levels: one uniform per candidate, one plain loop
            i = _tail_picks(core, picks, i, k, nl)
            break
        bits = _bits(nl)
        low = (1 << (bits - 1)) if bits > 0 else 0
        need = min(k - i, nl - low)
        nch = bits // 16 + 1
        got = 0
        while got < need:
            cur, rem = nl - got, need - got
            expected = 1.0 if bits == 0 else (2.0 ** bits) * math.log(cur / (cur - rem))
            count = _margin(expected)
            v = _candidates(core, count, bits)
            vals, used = _accept_run(v, cur, rem)
            picks[i + got:i + got + vals.shape[0]] = vals
            got += vals.shape[0]
            core.untake((count - used) * nch)
        i += need
        nl -= need
    return _resolve_picks(picks, n)


def _hash_outputs(vals: np.ndarray, k: int, max_tries: int = _HASH_MAX_TRIES) -> np.ndarray:
    """Indices of the draws R's hash sampler keeps: first occurrences, plus a repeated value
    whenever ``max_tries`` draws in a row for one slot were all repeats."""
    m = vals.shape[0]
    if m == 0:
        return np.empty(0, dtype=np.int64)
    _, first = np.unique(vals, return_index=True)
    is_first = np.zeros(m, dtype=bool)
    is_first[first] = True
    t = np.arange(m, dtype=np.int64)
    last_first = np.maximum.accumulate(np.where(is_first, t, -1))
    forced = ~is_first & ((t - last_first) % max_tries == 0)
    return np.flatnonzero(is_first | forced)[:k]


def _sample_hash(core: _Core, dn: float, k: int) -> np.ndarray:
    """R's ``.Internal(sample2(n, size))`` (``sample.int`` with ``useHash = TRUE``) minus 1:
    draw ``R_unif_index(n)`` until the value is new (at most 100 tries per slot)."""
    if k == 0:
        return np.empty(0, dtype=np.int64)
    bits = _bits(dn)
    nch = bits // 16 + 1
    p_acc = dn / 2.0 ** bits
    expected = dn * math.log(dn / (dn - k))
    vals_parts, pos_parts = [], []
    total = 0
    count = _margin(expected / p_acc)
    while True:
        v = _candidates(core, count, bits)
        ok = np.flatnonzero(v < dn)
        vals_parts.append(v[ok])
        pos_parts.append(ok + total)
        total += count
        vals = np.concatenate(vals_parts)
        keep = _hash_outputs(vals, k)
        if keep.shape[0] == k:
            pos = np.concatenate(pos_parts)
            used = int(pos[keep[-1]]) + 1
            core.untake((total - used) * nch)
            return vals[keep]
        count = _margin(max(64.0, 0.25 * expected) / p_acc)


def _qnorm(p: np.ndarray) -> np.ndarray:
    """R 4.2's ``qnorm(p)`` (Wichura's AS 241), evaluated in R's operation order."""
    p = np.asarray(p, dtype=np.float64)
    q = p - 0.5
    out = np.empty_like(p)
    central = np.abs(q) <= 0.425
    if central.any():
        qc = q[central]
        r = 0.180625 - qc * qc
        num = (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r + 67265.770927008700853) * r
                   + 45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r
                + 133.14166789178437745) * r + 3.387132872796366608)
        den = (((((((r * 5226.495278852854561 + 28729.085735721942674) * r + 39307.89580009271061) * r
                   + 21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r
                + 42.313330701600911252) * r + 1.0)
        out[central] = qc * num / den
    tail = ~central
    if tail.any():
        qt = q[tail]
        pt = p[tail]
        rr = np.where(qt > 0, 0.5 - pt + 0.5, pt)
        # the C library's log (as R uses), element by element
        r = np.sqrt(-np.array([math.log(x) for x in rr.tolist()], dtype=np.float64))
        val = np.empty_like(r)
        near = r <= 5.0
        if near.any():
            x = r[near] + -1.6
            num = (((((((x * 7.7454501427834140764e-4 + .0227238449892691845833) * x + .24178072517745061177) * x
                       + 1.27045825245236838258) * x + 3.64784832476320460504) * x + 5.7694972214606914055) * x
                    + 4.6303378461565452959) * x + 1.42343711074968357734)
            den = (((((((x * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * x + .0151986665636164571966) * x
                       + .14810397642748007459) * x + .68976733498510000455) * x + 1.6763848301838038494) * x
                    + 2.05319162663775882187) * x + 1.0)
            val[near] = num / den
        far = ~near
        if far.any():
            x = r[far] + -5.0
            num = (((((((x * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * x + .0012426609473880784386) * x
                       + .026532189526576123093) * x + .29656057182850489123) * x + 1.7848265399172913358) * x
                    + 5.4637849111641143699) * x + 6.6579046435011037772)
            den = (((((((x * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * x + 1.8463183175100546818e-5) * x
                       + 7.868691311456132591e-4) * x + .0148753612908506148525) * x + .13692988092273580531) * x
                    + .59983220655588793769) * x + 1.0)
            val[far] = num / den
        out[tail] = np.where(qt < 0.0, -val, val)
    return out


# --------------------------------------------------------------------------------------------
# RRandom
# --------------------------------------------------------------------------------------------


class RRandom(RandomSource):
    """R's session random number generator, reproduced bit for bit (R >= 3.6 defaults).

    ``RRandom(seed)`` is R's ``set.seed(seed)`` with ``RNGkind("Mersenne-Twister", "Inversion",
    "Rejection")``. The object then carries its state across calls exactly like R's session
    generator: the same sequence of calls (``sample.int``, ``runif``, ``rnorm``, seeded
    ``future.apply`` maps, ...) gives the same numbers and leaves the same ``.Random.seed``.

    :meth:`element_streams` reproduces ``future.apply`` 1.10.0 with ``future.seed = TRUE``:
    element ``i`` gets its own L'Ecuyer-CMRG sub-stream, returned as an ``RRandom`` whose
    generator kind is ``"L'Ecuyer-CMRG"`` (with the same methods), and the generator advances
    by two uniforms, as the seeded ``future_lapply``/``future_mapply`` call leaves it.

    Parameters
    ----------
    seed : int
        An integer in ``[-2**31 + 1, 2**31 - 1]`` (numpy integers accepted), as R's ``set.seed``.

    Attributes
    ----------
    kind : str
        ``"Mersenne-Twister"`` or ``"L'Ecuyer-CMRG"`` (R: ``RNGkind()[1]``).
    random_seed : numpy.ndarray of int32
        R's ``.Random.seed`` (626 ints for Mersenne-Twister, 7 for L'Ecuyer-CMRG).

    Notes
    -----
    Supported generator kinds are R's default Mersenne-Twister and L'Ecuyer-CMRG, with normal
    kind Inversion and sample kind Rejection. Sampling with ``prob`` weights is not provided.
    Results of :meth:`sample_int` are int64 also where R returns doubles (``n > 2^31 - 1``).

    Examples
    --------
    >>> rr = RRandom(1)
    >>> rr.runif(3)                    # R: set.seed(1); runif(3)
    array([0.26550866, 0.3721239 , 0.57285336])
    >>> RRandom(1).sample_int(10, 3)   # R: set.seed(1); sample.int(10, 3)
    array([9, 4, 7])
    >>> streams = RRandom(1).element_streams(3)   # future_lapply(1:3, ..., future.seed = TRUE)
    >>> streams[0].sample_int(7)
    array([6, 5, 4, 2, 7, 3, 1])
    """

    r_exact = True

    def __init__(self, seed: int):
        self._core: _Core
        self.set_seed(seed, kind=_KIND_MT)

    # ---- construction and state ------------------------------------------------------------
    @classmethod
    def from_random_seed(cls, random_seed) -> "RRandom":
        """An ``RRandom`` whose state is the given ``.Random.seed``.

        R equivalent: ``assign(".Random.seed", random_seed, envir = globalenv())``.

        Parameters
        ----------
        random_seed : array-like of int
            626 ints (Mersenne-Twister, first element 10403) or 7 ints (L'Ecuyer-CMRG, 10407).

        Returns
        -------
        RRandom
        """
        vec = np.asarray(random_seed)
        if vec.ndim != 1 or vec.shape[0] < 1 or not np.issubdtype(vec.dtype, np.integer) and not (
                np.issubdtype(vec.dtype, np.floating) and np.all(np.isfinite(vec)) and np.all(vec == np.round(vec))):
            raise ValueError("`random_seed` must be a 1-d vector of integers like R's .Random.seed, "
                             f"got {shown(random_seed)}")
        vec = vec.astype(np.int64)
        head = int(vec[0])
        if head % 100 not in (3, 7) or (head // 100) % 100 != 4 or head // 10000 != 1:
            raise ValueError("`random_seed` must start with 10403 (Mersenne-Twister) or 10407 (L'Ecuyer-CMRG) -- "
                             "normal.kind Inversion, sample.kind Rejection; "
                             f"got {head}")
        obj = cls.__new__(cls)
        if head % 100 == 3:
            if vec.shape[0] != 626:
                raise ValueError(f"a Mersenne-Twister `random_seed` has 626 ints, got {vec.shape[0]}")
            key = np.array(_as_uint32_list(vec[2:]), dtype=np.uint32)
            if not key.any():
                raise ValueError("invalid Mersenne-Twister `random_seed`: the state is all zero")
            pos = int(vec[1])
            if not 0 <= pos <= 624:  # R reads the position unsigned: a negative one indexes outside the state
                raise ValueError(f"invalid Mersenne-Twister `random_seed`: position {pos} is not in 0..624")
            if pos == 0:  # R's fix-up of a state without a valid position
                pos = 624
            obj._core = _MersenneTwisterCore(key, pos)
        else:
            if vec.shape[0] != 7:
                raise ValueError(f"a L'Ecuyer-CMRG `random_seed` has 7 ints, got {vec.shape[0]}")
            obj._core = _LEcuyerCore(_as_uint32_list(vec[1:]))
        return obj

    def set_seed(self, seed: int, kind: Optional[str] = None) -> "RRandom":
        """Re-seed the generator.

        R equivalent: ``set.seed(seed, kind)``.

        Parameters
        ----------
        seed : int
            An integer in ``[-2**31 + 1, 2**31 - 1]``.
        kind : {"Mersenne-Twister", "L'Ecuyer-CMRG"} or None, default None
            Generator kind; ``None`` keeps the current kind (as R does).

        Returns
        -------
        RRandom
            ``self``.
        """
        seed = _check_seed(seed)
        kind = self._check_kind(kind) if kind is not None else self.kind
        self._core = self._new_core(kind, seed)
        return self

    def rng_kind(self, kind: str) -> "RRandom":
        """Switch the generator kind, seeding the new one from one uniform of the current one.

        R equivalent: ``RNGkind(kind)`` (R re-seeds even when ``kind`` is the current kind).

        Parameters
        ----------
        kind : {"Mersenne-Twister", "L'Ecuyer-CMRG"}

        Returns
        -------
        RRandom
            ``self``.
        """
        kind = self._check_kind(kind)
        u = float(self._core.take(1)[0])
        self._core = self._new_core(kind, int(u * _UINT_MAX))
        return self

    @staticmethod
    def _check_kind(kind) -> str:
        if kind not in _KIND_CODES:
            raise ValueError(f"`kind` must be one of {list(_KIND_CODES)}, got {shown(kind)}")
        return kind

    @staticmethod
    def _new_core(kind: str, seed: int) -> _Core:
        if kind == _KIND_MT:
            return _MersenneTwisterCore(*_mt_state_from_seed(seed))
        return _LEcuyerCore(_lecuyer_state_from_seed(seed))

    @property
    def kind(self) -> str:
        """The generator kind (R: ``RNGkind()[1]``)."""
        return self._core.kind

    @property
    def random_seed(self) -> np.ndarray:
        """R's ``.Random.seed`` for the current state (int32; 626 or 7 elements)."""
        return self._core.random_seed()

    def copy(self) -> "RRandom":
        """An independent copy in the same state (R: saving and restoring ``.Random.seed``)."""
        return RRandom.from_random_seed(self.random_seed)

    def __repr__(self) -> str:
        return f"RRandom(kind={self.kind!r})"

    def __getstate__(self):
        return {"random_seed": self.random_seed}

    def __setstate__(self, state):
        self._core = RRandom.from_random_seed(state["random_seed"])._core

    # ---- R-named draws -----------------------------------------------------------------------
    def runif(self, n: int, min: float = 0.0, max: float = 1.0) -> np.ndarray:
        """Uniform draws.

        R equivalent: ``runif(n, min, max)`` (``min + (max - min) * unif_rand()``; no draws when
        ``min == max``).

        Parameters
        ----------
        n : int
            Number of draws.
        min, max : float
            Finite bounds with ``min <= max``.

        Returns
        -------
        numpy.ndarray of float64, shape (n,)
        """
        n = _count(n, "n")
        lo, hi = float(min), float(max)
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
            raise ValueError(f"`min` and `max` must be finite with min <= max, got min={shown(min)}, max={shown(max)}")
        if n == 0:
            return np.empty(0)
        if lo == hi:
            return np.full(n, lo)
        u = self._core.take(n).copy()
        if lo == 0.0 and hi == 1.0:
            return u
        return lo + (hi - lo) * u

    def rnorm(self, n: int, mean: float = 0.0, sd: float = 1.0) -> np.ndarray:
        """Normal draws by inversion.

        R equivalent: ``rnorm(n, mean, sd)`` with ``normal.kind = "Inversion"``: per draw two
        uniforms ``u1, u2``, ``z = qnorm((floor(2^27 u1) + u2) / 2^27)``, result
        ``mean + sd * z`` (no draws when ``sd == 0``).

        Parameters
        ----------
        n : int
            Number of draws.
        mean : float, default 0
            Finite mean.
        sd : float, default 1
            Standard deviation, ``>= 0``.

        Returns
        -------
        numpy.ndarray of float64, shape (n,)
        """
        n = _count(n, "n")
        mu, sigma = float(mean), float(sd)
        if math.isnan(mu) or not math.isfinite(sigma) or sigma < 0:
            raise ValueError(f"`sd` must be finite and >= 0 and `mean` not NaN, got mean={shown(mean)}, sd={shown(sd)}")
        if n == 0:
            return np.empty(0)
        if sigma == 0.0 or not math.isfinite(mu):
            return np.full(n, mu)
        u = self._core.take(2 * n)
        w = np.floor(_BIG * u[0::2]) + u[1::2]
        z = _qnorm(w / _BIG)
        return mu + sigma * z

    def sample_int(self, n: int, size: Optional[int] = None, replace: bool = False,
                   use_hash: Optional[bool] = None) -> np.ndarray:
        """Random integers from ``1..n`` (1-based, exactly like R).

        R equivalent: ``sample.int(n, size, replace, useHash = use_hash)`` (R >= 3.6 rejection
        sampling; hash algorithm by default when ``n > 1e7``, no replacement and
        ``size <= n / 2``).

        Parameters
        ----------
        n : int
            Population size, ``0 <= n <= 4.5e15`` (``>= 1`` when ``size > 0``).
        size : int, optional
            Sample size; default ``n``. Must be ``<= n`` without replacement.
        replace : bool, default False
        use_hash : bool, optional
            Force or forbid R's hash algorithm (R's ``useHash``); needs ``replace=False`` and
            ``size <= n / 2``.

        Returns
        -------
        numpy.ndarray of int64, shape (size,)
        """
        n = _count(n, "n")
        size = n if size is None else size
        _check_choice(n, size, replace, "n", "size")
        return self._sample(float(n), int(size), bool(replace), use_hash) + 1

    def _sample(self, dn: float, k: int, replace: bool, use_hash: Optional[bool]) -> np.ndarray:
        """0-based draws of R's ``sample.int`` with an already-validated real ``n``."""
        if dn > 4.5e15:
            raise ValueError(f"`n` must be <= 4.5e15 (R's limit), got {dn:.17g}")
        if use_hash is None:
            use_hash = dn > 1e7 and not replace and k <= dn / 2
        if use_hash:
            if replace:
                raise ValueError("`use_hash` needs replace=False")
            if k > dn / 2:
                raise ValueError(f"`size` must be <= n/2 for the hash algorithm (use_hash=True), got size={k}, "
                                 f"n={dn:.17g}")
            return _sample_hash(self._core, dn, k)
        if replace or k < 2:
            return _unif_index_many(self._core, dn, k)
        return _sample_noreplace(self._core, int(dn), k)

    def sample(self, x, size: Optional[int] = None, replace: bool = False):
        """Random sample of the elements of ``x``.

        R equivalent: ``sample(x, size, replace)``: a single number ``x >= 1`` means ``1:x``
        (R's ``sample.int(x, size, replace)``); otherwise ``x[sample.int(length(x), size,
        replace)]``.

        Parameters
        ----------
        x : number, sequence, numpy array or pandas Series/Index
            What to sample from. A string is one element (like an R character value).
        size : int, optional
            Sample size; default ``len(x)`` (or ``trunc(x)`` for a single number).
        replace : bool, default False

        Returns
        -------
        numpy.ndarray, list or pandas object
            An int64 array for a single number; for a sequence, the sampled elements in the
            container's kind (numpy array for arrays, ``.iloc`` selection for pandas, else a list).
        """
        if not isinstance(replace, (bool, np.bool_)):
            raise TypeError(f"`replace` must be True or False, got {shown(replace)}")
        if isinstance(x, (numbers.Real, np.number)) and not isinstance(x, (bool, np.bool_)) \
                and math.isfinite(float(x)) and float(x) >= 1:
            dn = float(x)
            k = int(dn) if size is None else _count(size, "size")
            if not replace and k > dn:
                raise ValueError(f"`size` must be <= x when replace=False, got size={k} > x={x}")
            return self._sample(dn, k, bool(replace), None) + 1
        if isinstance(x, (str, bytes)) or np.ndim(x) == 0:
            x = [x]
        n = len(x)
        k = n if size is None else size
        n, k = _check_choice(n, k, replace, "len(x)", "size")
        idx = self._sample(float(n), k, bool(replace), None)
        if hasattr(x, "iloc"):
            return x.iloc[idx]
        if isinstance(x, np.ndarray):
            return x[idx]
        seq = list(x)
        return [seq[i] for i in idx.tolist()]

    # ---- RandomSource interface --------------------------------------------------------------
    def permutation(self, n: int) -> np.ndarray:
        """A random permutation of ``range(n)``; R: ``sample.int(n) - 1``."""
        n = _count(n, "n")
        return self._sample(float(n), n, False, None)

    def choice(self, n: int, k: int, replace: bool = False) -> np.ndarray:
        """``k`` random indices from ``range(n)``; R: ``sample.int(n, k, replace) - 1``."""
        n, k = _check_choice(n, k, replace)
        return self._sample(float(n), k, bool(replace), None)

    def uniform(self, size: int) -> np.ndarray:
        """``size`` uniforms; R: ``runif(size)``."""
        return self.runif(_count(size, "size"))

    def normal(self, size: int) -> np.ndarray:
        """``size`` standard normals; R: ``rnorm(size)``."""
        return self.rnorm(_count(size, "size"))

    def permutations(self, n: int, m: int) -> np.ndarray:
        """``m`` successive permutations of ``range(n)`` as rows; R: ``m`` calls of ``sample.int(n) - 1``."""
        n, m = _count(n, "n"), _count(m, "m")
        if m > 1 and 2 <= n <= 1e7:   # the uniforms of all m, generated in one go
            self._core.reserve(_margin(m * _noreplace_uniforms(n, n)))
        return super().permutations(n, m)

    def future_seeds(self, k: int) -> List[np.ndarray]:
        """The per-element ``.Random.seed`` vectors of a seeded ``future.apply`` call over ``k`` elements.

        R equivalent: what ``future.apply::future_lapply(X, FUN, future.seed = TRUE)`` (1.10.0)
        assigns before element ``i`` runs, with ``length(X) == k``. Advances this generator as
        that call does: by two uniforms (none when ``k == 0``).

        The base L'Ecuyer-CMRG seed is, under Mersenne-Twister, the one ``RNGkind("L'Ecuyer-CMRG")``
        would create from the next uniform (the switch itself is undone); under L'Ecuyer-CMRG it
        is the current state. Element ``i`` gets ``nextRNGSubStream`` of the base advanced by
        ``i - 1`` ``nextRNGStream`` steps.

        Parameters
        ----------
        k : int
            Number of elements.

        Returns
        -------
        list of numpy.ndarray of int32 (7 each)
        """
        k = _count(k, "k")
        if k == 0:
            return []
        if self.kind == _KIND_LECUYER:
            base = self._core.exact_snapshot()
            self._core.take(2)
        else:
            u = self._core.take(2)
            base = _lecuyer_state_from_seed(int(float(u[0]) * _UINT_MAX))
        head = np.array([_SEED_HEAD[_KIND_LECUYER]], dtype=np.int32)
        seeds = []
        s = tuple(base)
        for _ in range(k):
            sub = _matvec(_A1P76, s[:3], _M1) + _matvec(_A2P76, s[3:], _M2)
            seeds.append(np.concatenate([head, _as_int32_array(sub)]))
            s = _matvec(_A1P127, s[:3], _M1) + _matvec(_A2P127, s[3:], _M2)
        return seeds

    def element_streams(self, k: int) -> List["RRandom"]:
        """One L'Ecuyer-CMRG ``RRandom`` per element, as ``future.apply`` (``future.seed = TRUE``) assigns.

        R equivalent: the ``.Random.seed`` element ``i`` of ``future_lapply(X, FUN, future.seed
        = TRUE)`` / ``future_mapply(...)`` (future.apply 1.10.0) runs with; this generator then
        stands where the session generator stands after the call (two uniforms further; nothing
        drawn for ``k == 0``). Nested calls from an element stream use that stream's state as
        the base seed, as ``future.apply`` does when the current kind is L'Ecuyer-CMRG.

        Parameters
        ----------
        k : int
            Number of elements.

        Returns
        -------
        list of RRandom, length k
        """
        return [RRandom.from_random_seed(s) for s in self.future_seeds(k)]
