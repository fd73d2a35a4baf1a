"""Values in messages as Python writes them."""
from __future__ import annotations

import numpy as np

__all__ = ["shown"]


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def shown(value) -> str:
    """``repr(value)`` with numpy scalars written as their Python values, also inside lists and
    tuples: numpy 2 writes ``np.float64(2.5)`` and ``np.str_('a')`` where numpy 1 wrote ``2.5``
    and ``'a'`` (arguments computed with numpy or pandas, values taken from the data)."""
    return repr(_plain(value))
