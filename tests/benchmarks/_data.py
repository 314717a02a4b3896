"""Deterministic benchmark rows: a base load and an upsert (half updates, half new keys)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Paimon column types for CREATE TABLE (pypaimon-rust DDL / pypaimon schema / Spark DDL).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "BIGINT NOT NULL"),
    ("i1", "INT"),
    ("i2", "INT"),
    ("d1", "DOUBLE"),
    ("d2", "DOUBLE"),
    ("s1", "STRING"),
    ("s2", "STRING"),
)
VALUE_COLUMNS = tuple(name for name, _ in COLUMNS)

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("i1", pa.int32()),
        pa.field("i2", pa.int32()),
        pa.field("d1", pa.float64()),
        pa.field("d2", pa.float64()),
        pa.field("s1", pa.string()),
        pa.field("s2", pa.string()),
    ]
)

_CATEGORIES = pa.array([f"category-{i:03d}-{'x' * (i % 7)}" for i in range(100)])


def rows(ids: np.ndarray, seed: int) -> pa.Table:
    """Rows for ``ids``: i1 uniform in [0, 1e6), i2 in [-1000, 1000), doubles, two strings."""
    rng = np.random.default_rng(seed)
    n = len(ids)
    id_col = pa.array(ids, pa.int64())
    return pa.Table.from_arrays(
        [
            id_col,
            pa.array(rng.integers(0, 1_000_000, n, dtype=np.int32)),
            pa.array(rng.integers(-1000, 1000, n, dtype=np.int32)),
            pa.array(rng.random(n)),
            pa.array(rng.normal(size=n)),
            pc.binary_join_element_wise("user_", pc.cast(id_col, pa.string()), ""),
            _CATEGORIES.take(pa.array(rng.integers(0, 100, n))),
        ],
        schema=SCHEMA,
    )


def base(n: int) -> pa.Table:
    """Keys 0..n-1, in a shuffled order (writers must sort)."""
    ids = np.random.default_rng(1).permutation(n).astype(np.int64)
    return rows(ids, seed=2)


def upsert(n: int) -> pa.Table:
    """n/5 rows: n/10 updates of random existing keys, n/10 new keys n..n+n/10-1."""
    half = max(n // 10, 1)
    updated = np.random.default_rng(3).choice(n, size=half, replace=False).astype(np.int64)
    new = np.arange(n, n + half, dtype=np.int64)
    return rows(np.concatenate([updated, new]), seed=4)


def point_key(n: int) -> int:
    """A key that the upsert updated, so a point query has to merge two versions."""
    return int(np.random.default_rng(3).choice(n, size=max(n // 10, 1), replace=False)[0])


#: Partition counts of the partitioned append tables (issue 18: 1, 10 and 1,000 partitions).
PARTITION_COUNTS = (1, 10, 1000)


def with_partition(table: pa.Table, parts: int) -> pa.Table:
    """``table`` plus ``p INT`` = ``id % parts`` (the partition column), in the table's order."""
    ids = table.column("id").to_numpy()
    return table.append_column(pa.field("p", pa.int32()), pa.array((ids % parts).astype(np.int32)))


def partitioned(n: int, parts: int) -> pa.Table:
    """The base load plus ``p INT`` = ``id % parts`` (the partition column), in the base's order."""
    return with_partition(base(n), parts)
