"""pandas ↔ R data.frame, column by column, without loss.

R equivalents: ``data.frame(..., check.names = FALSE, stringsAsFactors = FALSE)`` on the way
in, ``as.list(<data.frame>)`` on the way out. rpy2's ``pandas2ri`` is not used: it is lossy for
ordered factors, ``NA_character_`` (rpy2 3.5.7/3.5.8), int64 beyond R's 32-bit integers and
logicals, and it keeps the pandas index as row names. Numeric, integer, logical and factor
columns cross as one memory copy of a numpy buffer; character columns cross as integer codes
plus their distinct strings, so a million rows convert in milliseconds.

Column types (pandas → R → pandas):

============================================  ======================  ===========================
pandas                                        R                       back in pandas
============================================  ======================  ===========================
float64 / float32 (NaN)                       double (NaN)            float64 (``NA_real_`` → NaN)
Float64/Float32 (pd.NA)                       double (``NA_real_``)   float64 (NaN)
int8 … int64, uint8 … uint64                  integer                 int64
Int8 … Int64, UInt8 … UInt64 (pd.NA)          integer (``NA``)        int64, or Int64 with NAs
bool                                          logical                 bool
boolean (pd.NA)                               logical (``NA``)        bool, or boolean with NAs
object of str (None/NaN/pd.NA = missing)      character               object of str, or
string (pd.NA)                                character (``NA``)      string (pd.NA) with NAs
Categorical (any categories)                  factor / ordered        Categorical, str categories
============================================  ======================  ===========================

An R vector with missing values comes back as the pandas nullable dtype (``Int64``,
``boolean``, ``string``) — except doubles, whose NAs are NaN. Category labels are converted
with ``str()`` (R levels are strings); level order, unused levels and the ``ordered`` flag are
kept; an ``NA`` level (R's ``addNA``) becomes missing values. Column names are kept exactly
(``check.names = FALSE``), the index is dropped (R row names are 1..n) and row order is kept.
Anything else (datetime, timedelta, complex, periods, intervals, mixed object columns) raises
:class:`TypeError` naming the column.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from . import session

__all__ = ["py2r", "r2py", "vector_py2r", "vector_r2py"]

_INT_MAX = 2147483647  # R integers are 32-bit; -2^31 is NA_integer_
_NA_INT = -2147483648
_NA_REAL = np.array([0x7FF00000000007A2], dtype=np.uint64).view(np.float64)[0]  # R's NA_real_ bit pattern

# distinct values and 1-based codes of a character vector (NA → NA code)
_R_CHAR_CODES = """function(x) {
  u <- unique(x)
  u <- u[!is.na(u)]
  list(u, match(x, u))
}"""
_R_CHAR_FROM_CODES = "function(levels, codes) levels[codes]"


# ---------------------------------------------------------------------------- Python → R
def py2r(df: pd.DataFrame):
    """Convert a pandas DataFrame to an R ``data.frame``.

    R equivalent: ``data.frame(..., check.names = FALSE, stringsAsFactors = FALSE)``.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns of the types in the module table. Column names are kept exactly (non-string
        names are converted with ``str``); the index is dropped (R row names 1..n). A Series is
        converted with :func:`vector_py2r`.

    Returns
    -------
    rpy2.robjects.vectors.DataFrame

    Raises
    ------
    TypeError
        A column has an unsupported dtype (the message names the column).
    ValueError
        An integer column has values outside R's integer range ±(2^31−1), or a string (a
        value, a category or a column name) contains a NUL character or is not valid Unicode
        (a lone surrogate); the message names the column.
    """
    if isinstance(df, pd.Series):
        return vector_py2r(df)
    return session.to_robjects(frame_sexp(df))


def frame_sexp(df: pd.DataFrame):
    """:func:`py2r` at rpy2's ``rinterface`` level: the ``data.frame`` as a plain R list object,
    for R calls that need no ``robjects`` wrapper. An ``rpy2.robjects`` DataFrame holds delegate
    objects that refer back to it, a reference cycle that keeps the R object (the whole data) alive
    until Python's garbage collector runs; this object is freed as soon as it is dropped."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"py2r(df): df must be a pandas DataFrame, got {type(df).__name__}")
    if isinstance(df.columns, pd.MultiIndex):
        raise TypeError("py2r(df): df has MultiIndex columns; flatten them to strings first "
                        "(e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns])")
    session.robjects()
    import rpy2.rinterface as ri

    names = [c if isinstance(c, str) else str(c) for c in df.columns]
    for nm in names:
        if "\x00" in nm:
            raise ValueError(f"py2r(df): column name {nm!r} contains a NUL character, which R cannot hold")
        if not _utf8(nm):
            raise ValueError(f"py2r(df): column name {nm!r} is not valid Unicode (a lone surrogate, e.g. from "
                             "bytes decoded with errors='surrogateescape'); R needs UTF-8: rename the column")
    n = len(df)
    with session.lock:
        cols = [_column_py2r(df.iloc[:, j], names[j]) for j in range(df.shape[1])]
        lst = ri.ListSexpVector(cols)
        lst.names = ri.StrSexpVector(names)
        lst.do_slot_assign("row.names", ri.IntSexpVector([_NA_INT, -n]) if n > 0 else ri.IntSexpVector([]))
        lst.rclass = ri.StrSexpVector(["data.frame"])
        return lst


def vector_py2r(values, name: str = "x"):
    """Convert a pandas Series, numpy array or list to an R atomic vector or factor.

    R equivalent: ``c(...)`` / ``factor(...)``. Same type rules as the columns of
    :func:`py2r` (the index of a Series is dropped; no names are attached).

    Parameters
    ----------
    values : pandas.Series, numpy.ndarray (1-d), list or scalar
    name : str
        Used in error messages only.

    Returns
    -------
    rpy2.robjects vector (FloatVector, IntVector, BoolVector, StrVector or FactorVector)
    """
    if isinstance(values, pd.Series):
        s = values
    elif isinstance(values, (pd.Index, pd.Categorical, pd.api.extensions.ExtensionArray)):
        s = pd.Series(values)
    else:
        if np.ndim(values) == 0:
            values = [values.item() if isinstance(values, np.generic) else values]
        elif np.ndim(values) != 1:
            raise TypeError(f"vector_py2r({name}): expected a 1-d vector, got shape {np.shape(values)}")
        s = pd.Series(list(values) if isinstance(values, tuple) else values)
    session.robjects()
    with session.lock:
        return session.to_robjects(_column_py2r(s, name))


def _column_py2r(s: pd.Series, name: str):
    """One pandas column → an rpy2.rinterface vector."""
    import rpy2.rinterface as ri

    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _factor_py2r(s, name)
    if dtype == object or isinstance(dtype, pd.StringDtype):
        return _object_py2r(s, name)
    if pd.api.types.is_bool_dtype(dtype):
        mask = s.isna().to_numpy() if not isinstance(dtype, np.dtype) else None
        vals = s.to_numpy(dtype=bool, na_value=False) if mask is not None else s.to_numpy()
        out = vals.astype(np.int32)
        if mask is not None and mask.any():
            out[mask] = _NA_INT
        return ri.BoolSexpVector.from_memoryview(memoryview(np.ascontiguousarray(out)))
    if pd.api.types.is_integer_dtype(dtype):
        return _int_py2r(s, name)
    if pd.api.types.is_float_dtype(dtype):
        if isinstance(dtype, np.dtype):
            vals = np.ascontiguousarray(s.to_numpy(), dtype=np.float64)
        else:  # nullable Float32/Float64: pd.NA → NA_real_
            mask = s.isna().to_numpy()
            vals = np.array(s.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
            vals[mask] = _NA_REAL
        return ri.FloatSexpVector.from_memoryview(memoryview(vals))
    raise TypeError(
        f"column {name!r} has dtype {dtype}, which has no R data.frame equivalent in r_bridge: "
        "convert it to float64, int64, bool, str or category first"
    )


def _int_py2r(s: pd.Series, name: str):
    import rpy2.rinterface as ri

    dtype = s.dtype
    if isinstance(dtype, np.dtype):
        mask = None
        vals = s.to_numpy()
    else:  # nullable IntegerDtype
        mask = s.isna().to_numpy()
        vals = s.to_numpy(dtype=dtype.numpy_dtype, na_value=0)
    if vals.size:
        hi = vals.max()
        lo = vals.min()
        if hi > _INT_MAX or (vals.dtype.kind == "i" and lo < -_INT_MAX):
            bad = hi if hi > _INT_MAX else lo
            raise ValueError(
                f"column {name!r} has the integer value {int(bad)}, outside R's integer range "
                f"±{_INT_MAX}: convert the column to float64 (s.astype('float64')) before passing it to R"
            )
    out = vals.astype(np.int32)
    if mask is not None and mask.any():
        out[mask] = _NA_INT
    return ri.IntSexpVector.from_memoryview(memoryview(np.ascontiguousarray(out)))


def _check_strings(strings, name: str) -> None:
    for u in strings:
        if "\x00" in u:
            raise ValueError(f"column {name!r} holds a string with a NUL character ({u!r}), which R cannot hold")


def _utf8(u: str) -> bool:
    """Whether ``u`` can be written as UTF-8 (lone surrogates cannot)."""
    try:
        u.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _str_vector(strings, name: str):
    import rpy2.rinterface as ri

    _check_strings(strings, name)
    try:
        return ri.StrSexpVector(strings)
    except (UnicodeEncodeError, ValueError):
        # rpy2 3.5 reports an unencodable string as a ValueError ("from_memoryview() and
        # from_iterable() both failed"), the UnicodeEncodeError only as its context
        bad = next((u for u in strings if isinstance(u, str) and not _utf8(u)), None)
        if bad is None:
            raise
        raise ValueError(f"column {name!r} holds a string that is not valid Unicode ({bad!r}: a lone surrogate, "
                         "e.g. from bytes decoded with errors='surrogateescape'); R needs UTF-8: clean the "
                         "column first, e.g. s.str.encode('utf-8', 'replace').str.decode('utf-8')") from None


def _factor_py2r(s: pd.Series, name: str):
    import rpy2.rinterface as ri

    cats = s.cat.categories
    levels = [c if isinstance(c, str) else str(c) for c in cats]
    if len(set(levels)) != len(levels):
        raise ValueError(
            f"column {name!r}: the categories {list(cats)} are not distinct as strings, and R factor levels "
            "are strings; rename the categories (s.cat.rename_categories) first"
        )
    codes = s.cat.codes.to_numpy().astype(np.int32)
    na = codes < 0
    codes += 1
    codes[na] = _NA_INT
    vec = ri.IntSexpVector.from_memoryview(memoryview(np.ascontiguousarray(codes)))
    vec.do_slot_assign("levels", _str_vector(levels, name))
    vec.rclass = ri.StrSexpVector(["ordered", "factor"] if s.cat.ordered else ["factor"])
    return vec


def _object_py2r(s: pd.Series, name: str):
    import rpy2.rinterface as ri

    kind = pd.api.types.infer_dtype(s, skipna=True)
    if kind in ("string", "empty"):
        codes, uniques = pd.factorize(s)
        strings = [str(u) for u in np.asarray(uniques, dtype=object)]
        codes = codes.astype(np.int32)
        na = codes < 0
        codes += 1
        codes[na] = _NA_INT
        levels = _str_vector(strings, name)
        cv = ri.IntSexpVector.from_memoryview(memoryview(np.ascontiguousarray(codes)))
        return session.r_function(_R_CHAR_FROM_CODES)(levels, cv)
    mask = s.isna().to_numpy()
    if kind == "boolean":
        vals = np.zeros(len(s), dtype=np.int32)
        vals[~mask] = np.asarray(s[~mask], dtype=bool)
        vals[mask] = _NA_INT
        return ri.BoolSexpVector.from_memoryview(memoryview(vals))
    if kind == "integer":
        return _int_py2r(pd.Series(pd.array(s.where(~mask, None).tolist(), dtype="Int64")), name)
    if kind in ("floating", "mixed-integer-float", "integer-na", "decimal"):
        vals = np.full(len(s), np.nan)
        vals[~mask] = np.asarray(s[~mask], dtype=np.float64)
        return ri.FloatSexpVector.from_memoryview(memoryview(vals))
    raise TypeError(
        f"column {name!r} is an object column of {kind} values, which has no R equivalent: "
        "make it all strings (s.astype(str)), all numbers, or a Categorical"
    )


# ---------------------------------------------------------------------------- R → Python
def r2py(obj) -> Any:
    """Convert an R value to Python.

    R equivalent: the value itself; the conversion rules are the module's table.

    Parameters
    ----------
    obj : rpy2 object (``rpy2.robjects`` or ``rpy2.rinterface`` level)

    Returns
    -------
    * ``data.frame`` (also ``data.table``, ``tibble``) → :class:`pandas.DataFrame` with index
      0..n-1, names kept exactly, column dtypes per the module table;
    * ``NULL`` → None;
    * factor → :class:`pandas.Categorical`;
    * atomic vector: named → :class:`pandas.Series` indexed by the names; unnamed of length 1
      → a Python scalar (float, int, bool, str; NA → None, NaN for doubles); otherwise a numpy
      array (float64, int64, bool, object of str), or a pandas nullable array (``Int64``,
      ``boolean``, ``string``) when it has NAs;
    * matrix → 2-d numpy array, or a DataFrame when it has column names;
    * unclassed list → dict when every element is named, else list (elements converted);
    * anything else (environments, R6 objects, functions, classed lists such as fitted
      models) → returned unchanged.

    Raises
    ------
    TypeError
        A data.frame column has a class r2py does not convert (Date, POSIXct, list or matrix
        columns…); the message names the column.
    """
    session.robjects()
    import rpy2.rinterface as ri

    with session.lock:
        return _r2py(obj, ri)


def vector_r2py(obj, name: Optional[str] = None) -> pd.Series:
    """Convert an R atomic vector or factor to a pandas Series (dtype rules of :func:`r2py`'s
    data.frame columns; names are dropped, index 0..n-1).

    R equivalent: the vector itself.

    Parameters
    ----------
    obj : rpy2 vector
    name : str, optional
        The Series name (also used in error messages).
    """
    session.robjects()
    import rpy2.rinterface as ri

    with session.lock:
        values = _column_r2py(obj, name if name is not None else "x", ri)
    return pd.Series(values, name=name)


def _attrs(obj) -> list:
    """Names of the R attributes of ``obj`` (fast path: none at all, checked in C)."""
    try:
        from rpy2.rinterface_lib import openrlib

        if openrlib.rlib.ATTRIB(obj.__sexp__._cdata) == openrlib.rlib.R_NilValue:
            return []
    except Exception:  # other rpy2 versions: the generic way below
        pass
    try:
        return list(obj.list_attrs())
    except Exception:  # NULL and some special objects
        return []


def _r2py(obj, ri):
    if obj is ri.NULL or (hasattr(obj, "typeof") and obj.typeof == ri.RTYPES.NILSXP):
        return None
    if not isinstance(obj, ri.Sexp):
        return obj
    t = obj.typeof
    attrs = _attrs(obj)
    classes = list(obj.rclass) if "class" in attrs else []
    if t == ri.RTYPES.VECSXP:
        if "data.frame" in classes:
            return _dataframe_r2py(obj, ri)
        if classes:
            return obj
        items = [_r2py(obj[i], ri) for i in range(len(obj))]
        names = list(obj.names) if "names" in attrs else None
        if names is not None and all(isinstance(n, str) and n and n is not ri.NA_Character for n in names):
            return dict(zip(names, items))
        return items
    if t in (ri.RTYPES.REALSXP, ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP, ri.RTYPES.STRSXP):
        if "factor" in classes:
            return _column_r2py(obj, "x", ri)
        if classes:
            return obj
        if "dim" in attrs:
            return _matrix_r2py(obj, ri)
        values = _column_r2py(obj, "x", ri)
        if "names" in attrs:
            return pd.Series(values, index=[str(n) for n in obj.names])
        if len(values) == 1:
            v = values[0]
            if v is pd.NA:
                return None
            return v.item() if isinstance(v, np.generic) else v
        return values
    return obj


def _matrix_r2py(obj, ri):
    dims = [int(d) for d in obj.do_slot("dim")]
    if len(dims) != 2:
        return obj
    flat = _column_r2py(ri.baseenv["as.vector"](obj), "x", ri)
    arr = np.asarray(flat, dtype=object if not isinstance(flat, np.ndarray) else None)
    arr = arr.reshape(dims, order="F")
    colnames = None
    if "dimnames" in _attrs(obj):
        dn = obj.do_slot("dimnames")
        if len(dn) == 2 and dn[1] is not ri.NULL and dn[1].typeof == ri.RTYPES.STRSXP:
            colnames = [str(c) for c in dn[1]]
    if colnames is not None:
        return pd.DataFrame({j: arr[:, j] for j in range(dims[1])}).set_axis(colnames, axis=1)
    return arr


def _dataframe_r2py(obj, ri) -> pd.DataFrame:
    names = [str(n) for n in obj.names] if len(obj) else []
    n = int(ri.baseenv[".row_names_info"](obj, ri.IntSexpVector([2]))[0])
    if not names:
        return pd.DataFrame(index=pd.RangeIndex(n))
    cols = {}
    for j, nm in enumerate(names):
        cols[j] = _column_r2py(obj[j], nm, ri)
    out = pd.DataFrame(cols, index=pd.RangeIndex(n))
    out.columns = pd.Index(names, dtype=object)
    return out


def _vector_data(vec, dtype) -> np.ndarray:
    """A copy of an R vector's data (int32 for integer, factor and logical vectors, float64 for
    doubles), read through R's data pointer.

    Not ``vec.memoryview()``: in rpy2 3.5 that drops a reference to Python's ``None`` on every
    call (in its C helper ``_bufferprotocol.memoryview_swapstrides``), and a
    long session that converts many vectors (every prediction a Python model returns to R's
    iml, every R model's prediction) ends with "Fatal Python error: none_dealloc"."""
    n = len(vec)
    if n == 0:
        return np.zeros(0, dtype)
    from rpy2.rinterface_lib import openrlib

    cdata = vec.__sexp__._cdata
    ptr = openrlib.rlib.REAL(cdata) if dtype == np.float64 else (
        openrlib.rlib.INTEGER(cdata) if vec.typeof == openrlib.rlib.INTSXP else openrlib.rlib.LOGICAL(cdata))
    buf = openrlib.ffi.buffer(ptr, np.dtype(dtype).itemsize * n)
    return np.frombuffer(buf, dtype=dtype).copy()


def _column_r2py(vec, name: str, ri):
    """One R atomic vector/factor → numpy array, pandas nullable array or Categorical."""
    t = vec.typeof
    attrs = _attrs(vec)
    if "dim" in attrs or t == ri.RTYPES.VECSXP:
        raise TypeError(f"R column {name!r} is a matrix or list column, which r2py does not convert")
    classes = [c for c in vec.rclass] if "class" in attrs else []
    if classes and not (t == ri.RTYPES.INTSXP and "factor" in classes) and classes != ["AsIs"]:
        raise TypeError(
            f"R column {name!r} has class {'/'.join(classes)}, which r2py does not convert: convert it in R "
            "first (as.numeric(), as.character() or factor())"
        )
    if t == ri.RTYPES.INTSXP and "factor" in classes:
        codes = _vector_data(vec, np.int32)
        na = codes == _NA_INT
        codes = codes.astype(np.int64) - 1
        codes[na] = -1
        levels = list(vec.do_slot("levels")) if "levels" in attrs else []
        na_level = [i for i, lv in enumerate(levels) if lv is ri.NA_Character]
        if na_level:  # addNA() / exclude = NULL: NA is a level; in pandas it is a missing value
            keep = np.ones(len(levels), dtype=bool)
            keep[na_level] = False
            remap = np.where(keep, np.cumsum(keep) - 1, -1)
            codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
            levels = [lv for i, lv in enumerate(levels) if keep[i]]
        return pd.Categorical.from_codes(codes, categories=pd.Index([str(lv) for lv in levels], dtype=object),
                                         ordered="ordered" in classes)
    if t == ri.RTYPES.REALSXP:
        return _vector_data(vec, np.float64)
    if t == ri.RTYPES.INTSXP:
        raw = _vector_data(vec, np.int32)
        na = raw == _NA_INT
        vals = raw.astype(np.int64)
        if na.any():
            vals[na] = 0
            return pd.arrays.IntegerArray(vals, na)
        return vals
    if t == ri.RTYPES.LGLSXP:
        raw = _vector_data(vec, np.int32)
        na = raw == _NA_INT
        vals = raw != 0
        if na.any():
            vals[na] = False
            return pd.arrays.BooleanArray(vals, na)
        return vals
    if t == ri.RTYPES.STRSXP:
        res = session.r_function(_R_CHAR_CODES)(vec)
        levels = np.array([str(u) for u in res[0]] + [None], dtype=object)
        codes = _vector_data(res[1], np.int32)
        na = codes == _NA_INT
        codes = codes.astype(np.int64) - 1
        codes[na] = len(levels) - 1
        values = levels[codes]
        if na.any():
            return pd.array(values, dtype="string")
        return values
    raise TypeError(f"R column {name!r} has R type {t!r}, which r2py does not convert (complex or raw?)")
