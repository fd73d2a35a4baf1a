"""R's ``as.character()`` for numbers, restated in Python.

``as.character(<double>)`` in R 4.2 formats each value on its own with ``R_print.digits = 15``
(``DBL_DIG``) through the same ``formatReal``/``scientific`` logic that ``print`` uses:

1. ``scientific()`` finds the decimal exponent ``kpower`` and the number of significant digits
   ``nsig`` (at most 15, trailing zeros dropped). It scales ``|x|`` by a power of ten in
   ``long double`` so that it has 15 digits before the point, rounds that to an integer
   (``nearbyintl``, half to even) and strips trailing zeros. A flag ``roundingwidens`` notes the
   case where rounding to 15 digits carries into a new leading digit (e.g. ``99999.9999999999999``)
   although fixed notation would not.
2. ``formatReal()`` compares the width of fixed notation (``sign + digits left of the point +
   point + digits right``) with the width of scientific notation (``sign + mantissa + "e+XX"``)
   and uses fixed notation unless scientific is strictly narrower (``scipen = 0``).
3. The value is printed with C's ``%.*f`` or ``%#.*e`` (both exactly rounded, like Python's
   ``%`` formatting), and trailing zeros after the decimal point are dropped
   (``EncodeRealDrop0``).

Examples (verified against R 4.2.2): ``100000 -> "1e+05"``, ``0.0001 -> "1e-04"``,
``0.00012 -> "0.00012"``, ``1/3 -> "0.333333333333333"``, ``0.1 + 0.2 -> "0.3"``,
``1e15 -> "1e+15"``, ``123456789012345678 -> "123456789012345680"``, ``-0 -> "0"``,
``NaN -> "NaN"``, ``Inf -> "Inf"``, ``-Inf -> "-Inf"``.

Integers (R ``integer``) print as plain decimal numbers (``as.character(100000L)`` is
``"100000"``) and logicals as ``"TRUE"``/``"FALSE"``; a missing value (``None``) stays missing.

The long-double steps use ``numpy.longdouble``; on platforms where that is the 80-bit x87 type
(x86-64 Linux, as R's own build) the results are R's exactly. ``log10`` of values close to a
power of ten is taken from the C library (``math.log10``), as R does.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["r_as_character", "r_make_names", "r_make_unique"]

_DIGITS = 15  # R_print.digits inside as.character(): DBL_DIG
_KP_MAX = 27
_LD = np.longdouble


def _power_table():
    # tbl[0] = 1e-1, tbl[k + 1] = 10^k for k = 0..27. R declares the table as long double but
    # initialises it from double literals, so 1e23 and above are the nearest *doubles* (the
    # literal 1e23, not pow(10, 23), which rounds the other way).
    return np.array([float("1e%d" % k) for k in range(-1, _KP_MAX + 1)], dtype=np.float64).astype(_LD)


_TBL = _power_table()


def _floor_log10(r: np.ndarray) -> np.ndarray:
    """``(int) floor(log10(r))`` with the C library's ``log10`` near exact powers of ten."""
    with np.errstate(divide="ignore"):
        lg = np.log10(r)
    near = np.abs(lg - np.rint(lg)) < 1e-9
    if near.any():
        lg = lg.copy()
        lg[near] = [math.log10(v) for v in r[near]]
    return np.floor(lg).astype(np.int64)


def _scientific(r: np.ndarray):
    """R's ``scientific()`` for positive finite doubles ``r``: (kpower, nsig, roundingwidens)."""
    kp = _floor_log10(r) - _DIGITS + 1
    r_prec = r.astype(_LD)
    small = np.abs(kp) <= _KP_MAX
    pos = small & (kp > 0)
    neg = small & (kp < 0)
    r_prec[pos] = r_prec[pos] / _TBL[kp[pos] + 1]
    r_prec[neg] = r_prec[neg] * _TBL[-kp[neg] + 1]
    big = ~small
    if big.any():
        r_prec[big] = r_prec[big] / np.power(_LD(10), kp[big].astype(_LD))
    low = r_prec < _TBL[_DIGITS]
    r_prec[low] = r_prec[low] * _LD(10)
    kp = kp - low.astype(np.int64)
    alpha = np.rint(r_prec).astype(np.float64)
    nsig = np.full(r.shape, _DIGITS, dtype=np.int64)
    active = np.ones(r.shape, dtype=bool)
    for _ in range(_DIGITS):
        alpha = alpha / 10.0
        whole = active & (alpha == np.floor(alpha))
        nsig -= whole
        active = whole
        if not active.any():
            break
    zero = nsig == 0
    nsig[zero] = 1
    kp = kp + zero
    kpower = kp + _DIGITS - 1
    rgt = np.clip(_DIGITS - kpower, 0, _KP_MAX)
    fuzz = 0.5 / _TBL[1 + rgt].astype(np.float64)
    in_tbl = (kpower > 0) & (kpower <= _KP_MAX)
    widens = np.zeros(r.shape, dtype=bool)
    if in_tbl.any():
        kk = kpower[in_tbl]
        widens[in_tbl] = r[in_tbl].astype(_LD) < (_TBL[kk + 1] - fuzz[in_tbl].astype(_LD))
    return kpower, nsig, widens


def _scientific_one(r: float, digits: int = _DIGITS):
    """:func:`_scientific` for one positive finite double, in scalar arithmetic (the same
    steps, long double where R uses it; much faster than array calls for a few values).
    ``digits`` is R's ``R_print.digits`` (15 inside ``as.character``, 7 for ``print``)."""
    kp = math.floor(math.log10(r)) - digits + 1
    r_prec = _LD(r)
    if abs(kp) <= _KP_MAX:
        if kp > 0:
            r_prec = r_prec / _TBL[kp + 1]
        elif kp < 0:
            r_prec = r_prec * _TBL[-kp + 1]
    else:
        r_prec = r_prec / np.power(_LD(10), _LD(kp))
    if r_prec < _TBL[digits]:
        r_prec = r_prec * _LD(10)
        kp -= 1
    alpha = float(np.rint(r_prec))
    nsig = digits
    for _ in range(digits):
        alpha = alpha / 10.0
        if alpha != math.floor(alpha):
            break
        nsig -= 1
    if nsig == 0:
        nsig = 1
        kp += 1
    kpower = kp + digits - 1
    widens = False
    if 0 < kpower <= _KP_MAX:
        fuzz = 0.5 / float(_TBL[1 + min(max(digits - kpower, 0), _KP_MAX)])
        widens = bool(_LD(r) < (_TBL[kpower + 1] - _LD(fuzz)))
    return kpower, nsig, widens


def _format_one(v: float) -> str:
    """R's ``as.character`` of one finite non-zero double (:func:`_format_doubles`' steps)."""
    neg = 1 if v < 0 else 0
    kpower, nsig, widens = _scientific_one(abs(v))
    left = kpower + 1 - widens
    sleft = neg + (1 if left <= 0 else left)
    rgt = max(nsig - left, 0)
    mxsl = 1 + neg if left < 0 else sleft
    w_fixed = mxsl + rgt + (rgt != 0)
    d = nsig - 1
    w_sci = neg + (d > 0) + d + 4 + (2 if (left > 100 or left <= -99) else 1)
    if w_fixed <= w_sci:
        return _drop0("%.*f" % (rgt, v))
    return _drop0("%.*e" % (d, v))


def _format_any(v: float) -> str:
    """R's ``as.character`` of one double, special values included."""
    if v != v:
        return "NaN"
    if v in (math.inf, -math.inf):
        return "Inf" if v > 0 else "-Inf"
    return "0" if v == 0.0 else _format_one(v)


#: Up to this many values are formatted one by one (array calls cost more for a few values).
_SCALAR_MAX = 24


def _drop0(s: str) -> str:
    """``EncodeRealDrop0``: drop trailing zeros (and a bare point) after the decimal point."""
    if "." not in s:
        return s
    e = s.find("e")
    if e < 0:
        return s.rstrip("0").rstrip(".")
    return s[:e].rstrip("0").rstrip(".") + s[e:]


def _format_doubles(x: np.ndarray) -> list:
    """Format a 1-D float64 array element by element as R's ``as.character``."""
    if x.size <= _SCALAR_MAX:
        return [_format_any(v) for v in x.tolist()]
    out: list = [None] * x.size
    finite = np.isfinite(x)
    nz = finite & (x != 0.0)
    for i in np.flatnonzero(~finite):
        v = x[i]
        out[i] = "NaN" if np.isnan(v) else ("Inf" if v > 0 else "-Inf")
    for i in np.flatnonzero(finite & (x == 0.0)):
        out[i] = "0"
    idx = np.flatnonzero(nz)
    if idx.size == 0:
        return out
    v = x[idx]
    neg = (v < 0).astype(np.int64)
    kpower, nsig, widens = _scientific(np.abs(v))
    left = kpower + 1 - widens
    sleft = neg + np.where(left <= 0, 1, left)
    rgt = np.maximum(nsig - left, 0)
    mxsl = np.where(left < 0, 1 + neg, sleft)
    w_fixed = mxsl + rgt + (rgt != 0)
    e = np.where((left > 100) | (left <= -99), 2, 1)
    d = nsig - 1
    w_sci = neg + (d > 0) + d + 4 + e
    fixed = w_fixed <= w_sci
    digits = np.where(fixed, rgt, d).tolist()
    strs = [_drop0(("%.*f" if f else "%.*e") % (k, val)) for f, k, val in zip(fixed.tolist(), digits, v.tolist())]
    if idx.size == x.size:
        return strs
    for i, s in zip(idx.tolist(), strs):
        out[i] = s
    return out


def _format_item(item: Any):
    if item is None or type(item).__name__ == "NAType":
        return None
    if isinstance(item, (bool, np.bool_)):
        return "TRUE" if item else "FALSE"
    if isinstance(item, (int, np.integer)):
        return str(int(item))
    if isinstance(item, (float, np.floating)):
        return _format_any(float(item))
    raise TypeError(f"r_as_character: cannot format {type(item).__name__} values")


def r_as_character(x: Any):
    """Format numbers as R's ``as.character()`` does.

    Parameters
    ----------
    x : float, int, bool, None or array-like of those
        Floating-point input is treated as an R ``double`` (15 significant digits, fixed or
        scientific notation, whichever is not wider); integer input as an R ``integer``
        (plain decimal); booleans as R ``logical``. ``None`` (R ``NA``) stays ``None``.

    Returns
    -------
    str or numpy.ndarray
        A ``str`` for scalar input, otherwise an object array of strings with the shape of
        ``x``.

    Notes
    -----
    R equivalent: ``as.character(x)`` (R 4.2; also what ``paste()`` does to numbers).
    """
    scalar = np.ndim(x) == 0
    arr = np.asarray(x)
    if arr.dtype == object:
        flat = arr.ravel()
        res = np.empty(flat.size, dtype=object)
        for i, item in enumerate(flat):
            res[i] = _format_item(item)
        return res[0] if scalar else res.reshape(arr.shape)
    if arr.dtype.kind == "b":
        res = np.array(["TRUE" if b else "FALSE" for b in arr.ravel()], dtype=object)
    elif arr.dtype.kind in "iu":
        res = np.array([str(int(b)) for b in arr.ravel()], dtype=object)
    elif arr.dtype.kind == "f":
        res = np.empty(arr.size, dtype=object)
        res[:] = _format_doubles(arr.astype(np.float64).ravel())
    else:
        raise TypeError(f"r_as_character: cannot format values of dtype {arr.dtype}")
    return res[0] if scalar else res.reshape(arr.shape)


# ---------------------------------------------------------------------------- names
#: R's reserved words, which ``make.names`` makes syntactic by appending a dot.
_R_RESERVED = frozenset([
    "if", "else", "repeat", "while", "function", "for", "next", "break", "in", "TRUE", "FALSE",
    "NULL", "Inf", "NaN", "NA", "NA_integer_", "NA_real_", "NA_character_", "NA_complex_",
])


def _r_alnum(c: str) -> bool:
    # a letter (as the C library's iswalpha in a UTF-8 locale) or an ASCII digit; Python's
    # isalnum would also count "²" and other non-ASCII digits, which R replaces
    return c.isalpha() or "0" <= c <= "9"


def r_make_unique(names, sep: str = ".") -> list:
    """R's ``make.unique(names, sep)``: later repeats of a name get ``.1``, ``.2``, …,
    skipping suffixed names that already occur anywhere in ``names``.

    Examples (R 4.2.2): ``["a", "a", "a.1", "a"] -> ["a", "a.2", "a.1", "a.3"]``.
    """
    names = [str(n) for n in names]
    taken = set(names)
    seen: set = set()
    next_k: dict = {}
    out = []
    for nm in names:
        if nm not in seen:
            seen.add(nm)
            out.append(nm)
            continue
        k = next_k.get(nm, 1)
        cand = f"{nm}{sep}{k}"
        while cand in taken:
            k += 1
            cand = f"{nm}{sep}{k}"
        next_k[nm] = k + 1
        taken.add(cand)
        out.append(cand)
    return out


def r_make_names(names, unique: bool = False) -> list:
    """R's ``make.names(names, unique)``: syntactically valid R names.

    A name that does not start with a letter or a dot, or starts with a dot and a digit, gets
    the prefix ``X``; every character other than a letter, a digit, ``.`` and ``_`` becomes
    ``.``; reserved words get a trailing ``.``. With ``unique``, :func:`r_make_unique` over the
    names that did not change, then those that did (so ``["", "X"]`` gives ``["X.1", "X"]``).

    Examples (R 4.2.2): ``"0" -> "X0"``, ``"1 x" -> "X1.x"``, ``"" -> "X"``, ``"if" -> "if."``,
    ``".2" -> "X.2"``, ``"_a" -> "X_a"``, ``"a-b" -> "a.b"``, ``"ä" -> "ä"``.
    """
    names = [str(n) for n in names]
    out = []
    for nm in names:
        if not nm or not (nm[0].isalpha() or nm[0] == ".") or (nm[0] == "." and len(nm) > 1 and "0" <= nm[1] <= "9"):
            nm = "X" + nm
        nm = "".join(c if _r_alnum(c) or c in "._" else "." for c in nm)
        if nm in _R_RESERVED:
            nm += "."
        out.append(nm)
    if not unique:
        return out
    # R: the names left as they were keep theirs; the changed ones give way (make.unique runs
    # over the unchanged names first, then the changed ones, each group in its order)
    order = sorted(range(len(out)), key=lambda i: out[i] != names[i])
    res = list(out)
    for i, nm in zip(order, r_make_unique([out[i] for i in order])):
        res[i] = nm
    return res
