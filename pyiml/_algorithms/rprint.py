"""R's printing of numbers and data frames, restated in Python (for the methods' ``repr``).

* :func:`r_format_real` is ``format(x, digits = 7)`` of a double vector, as ``print`` formats a
  numeric column: R's ``formatReal`` finds one layout for the whole vector -- fixed notation with
  as many decimals as the value needing most of them (at most 7 significant digits each), unless
  scientific notation is narrower -- and ``encodeReal`` writes each value in it, padded to the
  common width (trailing zeros kept, ``-0`` as ``0``).
* :func:`r_sprintf_f` is ``sprintf("%.*f", x)`` (``Inf``, ``-Inf``, ``NaN``, ``NA`` as R writes
  them, where Python's formatting gives ``inf``/``nan``).
* :func:`r_print_frame` is ``print(<data.frame>)``: every column formatted as ``format.data.frame``
  does (numbers as above, integers plainly, logicals ``TRUE``/``FALSE``, missing numbers ``NA``,
  missing text ``<NA>``), right-justified under right-justified names, row labels
  left-justified, and the columns cut into blocks that fit the line width of 80 (each block
  with its header and the row labels again), as ``print.matrix`` does. Text (values, levels and
  column names) is escaped as R's ``encodeString`` escapes it (``\\n``, ``\\t``, ``\\\\``, ``\\001``) and
  padded by its width on screen (two columns for a CJK character, none for a combining mark).
"""
from __future__ import annotations

import math
import unicodedata
from typing import List, Optional

import numpy as np
import pandas as pd

from .rformat import _scientific_one

__all__ = ["r_format_real", "r_print_frame", "r_sprintf_f"]

_NA_WIDTH = 2  # R_print.na.width: nchar("NA")

#: The C escapes R's ``encodeString`` writes for control characters (others as octal ``\\ooo``).
_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
              "\v": "\\v", "\\": "\\\\"}


def r_encode(text: str) -> str:
    """R's ``encodeString(text)`` (no quotes) in a UTF-8 locale, as ``print`` shows a string: a
    backslash doubled, control characters as C escapes or octal (``\\001``, ``\\177``), the C1
    controls U+0080-U+009F, the line and paragraph separators U+2028/U+2029 and unassigned code
    points as ``\\u0085`` (``\\U{02fffe}`` beyond U+FFFF; unassigned in Python's Unicode
    version, which may be newer than R's); everything else as it is."""
    if text.isprintable() and "\\" not in text:
        return text
    out = []
    for ch in text:
        o = ord(ch)
        if ch in _C_ESCAPES:
            out.append(_C_ESCAPES[ch])
        elif o < 0x20 or o == 0x7F:
            out.append("\\%03o" % o)
        elif 0x80 <= o < 0xA0 or unicodedata.category(ch) in ("Zl", "Zp", "Cn"):
            out.append("\\u%04x" % o if o <= 0xFFFF else "\\U{%06x}" % o)
        else:
            out.append(ch)
    return "".join(out)


def r_width(text: str) -> int:
    """The columns ``text`` takes on screen, as R pads it: 2 for East Asian wide and full-width
    characters, 0 for combining marks, format characters (zero-width space; not the soft hyphen,
    1 in R) and the Hangul medial and final jamo U+1160-U+11FF, else 1."""
    if text.isascii():
        return len(text)
    w = 0
    for ch in text:
        if ch == "\u00ad":
            w += 1
            continue
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf") or "\u1160" <= ch <= "\u11ff":
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def _rjust(text: str, width: int) -> str:
    return " " * (width - r_width(text)) + text


def _ljust(text: str, width: int) -> str:
    return text + " " * (width - r_width(text))


def _special(v: Optional[float]) -> Optional[str]:
    if v is None:
        return "NA"
    if v != v:
        return "NaN"
    if v in (math.inf, -math.inf):
        return "Inf" if v > 0 else "-Inf"
    return None


def r_sprintf_f(x, decimals: int = 6) -> str:
    """R's ``sprintf("%.<decimals>f", x)`` of one number: ``Inf``, ``-Inf``, ``NaN`` and (for
    ``None``) ``NA`` where Python writes ``inf``, ``-inf`` and ``nan``."""
    v = None if x is None else float(x)
    special = _special(v)
    return special if special is not None else "%.*f" % (decimals, v)


def r_format_real(values, digits: int = 7, missing=None) -> List[str]:
    """R's ``format(x, digits = digits)`` of a double vector: one string per value, all of one
    width (R 4.2's ``formatReal`` and ``encodeReal0`` with ``scipen = 0``).

    Parameters
    ----------
    values : sequence of float
    digits : int, default 7
        Significant digits (R's ``getOption("digits")``).
    missing : sequence of bool, optional
        Values to write as ``NA`` (R's missing value); other NaN values are written ``NaN``.
        Default: every NaN is missing, as pandas treats NaN.
    """
    xs = [float(v) for v in values]
    miss = [v != v for v in xs] if missing is None else [bool(m) for m in missing]
    neg = 0
    rgt = mxl = mxsl = mxns = -(1 << 30)
    mnl = 1 << 30
    any_finite = False
    for v in xs:
        if not math.isfinite(v):
            continue
        any_finite = True
        if v == 0.0:
            neg_i, kpower, nsig, widens = 0, 0, 1, False
        else:
            neg_i = 1 if v < 0 else 0
            kpower, nsig, widens = _scientific_one(abs(v), digits)
        left = kpower + 1 - (1 if widens else 0)
        sleft = neg_i + (1 if left <= 0 else left)
        neg = max(neg, neg_i)
        rgt = max(rgt, nsig - left)
        mxl = max(mxl, left)
        mnl = min(mnl, left)
        mxsl = max(mxsl, sleft)
        mxns = max(mxns, nsig)
    if any_finite:
        if mxl < 0:
            mxsl = 1 + neg
        rgt = max(rgt, 0)
        w_fixed = mxsl + rgt + (rgt != 0)
        e = 2 if (mxl > 100 or mnl <= -99) else 1
        d = mxns - 1
        w = neg + (d > 0) + d + 4 + e
        if w_fixed <= w:
            e, d, w = 0, rgt, w_fixed
    else:
        w = d = e = 0
    for v, m in zip(xs, miss):
        if m:
            w = max(w, _NA_WIDTH)
        elif v != v:
            w = max(w, 3)
        elif v == math.inf:
            w = max(w, 3)
        elif v == -math.inf:
            w = max(w, 4)
    out = []
    for v, m in zip(xs, miss):
        special = "NA" if m else _special(v)
        if special is not None:
            out.append(special.rjust(w))
        elif e:
            out.append(("%#*.*e" if d else "%*.*e") % (w, d, v if v != 0 else 0.0))
        else:
            out.append("%*.*f" % (w, d, v if v != 0 else 0.0))
    return out


def _column_strings(col: pd.Series, digits: int) -> List[str]:
    """One column of a data frame as ``format.data.frame`` writes it (before justification)."""
    dt = col.dtype
    na = col.isna().to_numpy()
    if isinstance(dt, pd.CategoricalDtype) or dt == object or pd.api.types.is_string_dtype(dt):
        return ["<NA>" if m else r_encode(str(v)) for v, m in zip(col.tolist(), na)]
    if pd.api.types.is_bool_dtype(dt):
        return ["NA" if m else ("TRUE" if v else "FALSE") for v, m in zip(col.tolist(), na)]
    if pd.api.types.is_integer_dtype(dt):
        return ["NA" if m else str(int(v)) for v, m in zip(col.tolist(), na)]
    if pd.api.types.is_float_dtype(dt):
        vals = col.to_numpy(dtype=float, na_value=np.nan)
        return r_format_real(vals, digits, missing=na)
    return ["<NA>" if m else r_encode(str(v)) for v, m in zip(col.tolist(), na)]


def _print_names(names: List[str], width: int) -> str:
    """``print(names, quote = FALSE)`` of a character vector: ``[k]`` labels, entries padded to
    one width (left-justified), as many per line as fit."""
    if not names:
        return "character(0)"
    w = max(r_width(s) for s in names)
    lab = len(str(len(names))) + 2        # R's IndexWidth(n) + 2
    per = max(1, (width - lab) // (w + 1))
    lines = []
    for i in range(0, len(names), per):
        lines.append(f"[{i + 1}]".rjust(lab) + "".join(" " + _ljust(s, w) for s in names[i:i + per]))
    return "\n".join(lines)


def r_print_frame(df: pd.DataFrame, width: int = 80, digits: int = 7, max_print: int = 99999) -> str:
    """The text of R's ``print(df)`` for a data frame (no final newline).

    The row labels are ``df``'s index as strings (pyiml keeps pandas' 0-based index); the
    columns are formatted as R formats them (see the module's description) and cut into blocks
    of at most ``width`` characters a line, as R prints a wide data frame. As R, at most
    ``max_print`` (``getOption("max.print")``) values: the first ``max_print // ncol`` rows,
    then a line saying how many were omitted.
    """
    names = [r_encode(str(c)) for c in df.columns]
    if not names:
        return f"data frame with 0 columns and {len(df)} row{'s' if len(df) != 1 else ''}"
    if len(df) == 0:
        return _print_names(names, width) + "\n<0 rows> (or 0-length row.names)"
    shown_rows = max_print // len(names)
    if shown_rows < len(df):
        return (r_print_frame(df.iloc[:shown_rows], width, digits, max_print)
                + f"\n [ reached 'max' / getOption(\"max.print\") -- omitted {len(df) - shown_rows} rows ]")
    rows = [r_encode(str(i)) for i in df.index]
    rlabw = max(r_width(r) for r in rows)
    cols = [_column_strings(df.iloc[:, j], digits) for j in range(len(names))]
    widths = [max(r_width(nm), max(r_width(s) for s in c)) for nm, c in zip(names, cols)]
    lines = []
    j = 0
    while j < len(names):
        # print.matrix: the first column of a block always, then while the line stays under width
        k = j + 1
        used = rlabw + widths[j] + 1
        while k < len(names) and used + widths[k] + 1 < width:
            used += widths[k] + 1
            k += 1
        lines.append(" " * rlabw + "".join(" " + _rjust(names[c], widths[c]) for c in range(j, k)))
        for i, r in enumerate(rows):
            lines.append(_ljust(r, rlabw) + "".join(" " + _rjust(cols[c][i], widths[c]) for c in range(j, k)))
        j = k
    return "\n".join(lines)
