"""Arrow array helpers shared by the readers and the writers (no numpy: pyarrow requires none)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc


def arange(n: int, start: int = 0) -> pa.Array[Any]:
    """`start`, `start` + 1, ..., `start` + n - 1 as int64, computed by Arrow (no Python list).

    >>> arange(3).to_pylist(), arange(2, 10).to_pylist(), len(arange(0))
    ([0, 1, 2], [10, 11], 0)
    """
    if n == 0:
        return pa.array([], pa.int64())
    return pc.add(pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), n)), start - 1)
