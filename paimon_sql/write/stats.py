"""Column statistics of Arrow data as Paimon `SimpleStats` (paimon-format.md §5.3).

Vectorised: ``pyarrow.compute.min_max`` and ``null_count`` per column; only the two resulting values
    per column are
touched in Python (truncation, BinaryRow encoding).

What Java records, and what we record the same way:

* modes ``none`` (nothing), ``counts`` (null count), ``truncate(N)`` (default ``truncate(16)``),
  ``full``; per column ``fields.<c>.stats-mode`` overrides ``metadata.stats-mode``;
* truncation touches strings only: min is cut to N code points, max is cut and its last code point
  incremented (dropping code points from the end until one can be incremented); if none can, min and
  max are both null;
* nested columns (ARRAY, MAP, MULTISET, ROW; also VARIANT, BLOB) get no stats at all, as if their
  mode were ``none`` (Java leaves them out of ``_VALUE_STATS_COLS``: fixture
  ``pk_table_nested_type``);
* BINARY/VARBINARY and TIMESTAMP(p > 6) get null min/max with a real null count (as Java's Parquet
  extractor);
* FLOAT/DOUBLE columns holding NaN get null min/max (no safe bound);
* dense store (``metadata.stats-dense-store``, default true): when some column has mode ``none`` the
  stats rows hold only the other columns and ``_VALUE_STATS_COLS`` lists them; otherwise the cols
  are null (all columns).

>>> import pyarrow as pa
>>> from paimon_sql.types import DataField, parse_type
>>> fields = [DataField(id=0, name="s", type=parse_type("STRING"))]
>>> t = pa.table({"s": ["Alice", "Two roads diverged in a wood", None]})
>>> stats, cols = value_stats(t, fields, {})
>>> from paimon_sql.format.binary_row import decode_row
>>> decode_row(stats.max_values, [fields[0].type]), stats.null_counts, cols
(('Two roads diverh',), (1,), None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow.compute as pc

from paimon_sql.errors import OptionError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.format.manifest import EMPTY_STATS, SimpleStats
from paimon_sql.format.options import CoreOptions
from paimon_sql.types import (
    FLOAT_ROOTS,
    NESTED_ROOTS,
    NUMERIC_ROOTS,
    STRING_ROOTS,
    TIMESTAMP_ROOTS,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pyarrow as pa

    from paimon_sql.types import (
        DataField,
        DataType,
    )

#: Key columns are always kept to 128 characters (§5.3).
KEY_TRUNCATE = 128

_ORDERED = NUMERIC_ROOTS | STRING_ROOTS | {"BOOLEAN", "DATE", "TIME"}
_NO_STATS = NESTED_ROOTS | {"VARIANT", "BLOB"}
_TRUNCATE = re.compile(r"^\s*truncate\s*\(\s*(\d+)\s*\)\s*$", re.IGNORECASE)
_MAX_CODE_POINT = 0x10FFFF


@dataclass(frozen=True, slots=True)
class StatsMode:
    """``none``, ``counts``, ``full``, or ``truncate`` with its `length`."""

    kind: str
    length: int | None = None


def parse_stats_mode(text: str) -> StatsMode:
    """A `StatsMode` from its option value (case-insensitive).

    >>> parse_stats_mode("TRUNCATE(8)"), parse_stats_mode("full")
    (StatsMode(kind='truncate', length=8), StatsMode(kind='full', length=None))
    """
    lowered = text.strip().lower()
    if lowered in ("none", "counts", "full"):
        return StatsMode(lowered)
    match = _TRUNCATE.match(lowered)
    if match is None or int(match[1]) <= 0:
        raise OptionError(f"unknown stats mode {text!r}: use none, counts, full or truncate(N)")
    return StatsMode("truncate", int(match[1]))


def column_modes(options: Mapping[str, str], names: Sequence[str]) -> tuple[StatsMode, ...]:
    """Each column's mode: ``fields.<c>.stats-mode``, else ``metadata.stats-mode``.

    >>> column_modes({"fields.b.stats-mode": "none"}, ["a", "b"])
    (StatsMode(kind='truncate', length=16), StatsMode(kind='none', length=None))
    """
    typed = CoreOptions(options)
    default = typed.text("metadata.stats-mode") or ""
    return tuple(
        parse_stats_mode(typed.text(f"fields.{name}.stats-mode") or default) for name in names
    )


def truncate_min(value: str, length: int) -> str:
    """A lower bound of `value` at most `length` code points long.

    >>> truncate_min("abcdef", 3)
    'abc'
    """
    return value[:length]


def _next_code_point(cp: int) -> int | None:
    nxt = cp + 1
    if 0xD800 <= nxt <= 0xDFFF:  # a lone surrogate is no character; the next one is U+E000
        nxt = 0xE000
    return nxt if nxt <= _MAX_CODE_POINT else None


def truncate_max(value: str, length: int) -> str | None:
    r"""An upper bound of `value` at most `length` code points long, or None if there is none.

    >>> truncate_max("abcdef", 3), truncate_max("ab", 3), truncate_max("a\U0010ffffz", 2)
    ('abd', 'ab', 'b')
    >>> truncate_max("\U0010ffff\U0010ffffz", 2) is None
    True
    """
    if len(value) <= length:
        return value
    for i in range(length - 1, -1, -1):
        nxt = _next_code_point(ord(value[i]))
        if nxt is not None:
            return value[:i] + chr(nxt)
    return None


@dataclass(frozen=True, slots=True)
class ColumnStats:
    """Min, max (None = unknown) and null count (None = unknown) of one column."""

    min: Any
    max: Any
    null_count: int | None


_UNKNOWN = ColumnStats(None, None, None)


def _has_min_max(t: DataType) -> bool:
    if t.root in TIMESTAMP_ROOTS:
        return (t.precision if t.precision is not None else 6) <= 6
    return t.root in _ORDERED


def _min_max(column: pa.ChunkedArray | pa.Array, t: DataType) -> tuple[Any, Any]:
    if column.null_count == len(column) or not _has_min_max(t):
        return None, None
    if t.root in FLOAT_ROOTS and pc.any(pc.is_nan(column)).as_py():
        return None, None
    result = pc.min_max(column)
    return result["min"].as_py(), result["max"].as_py()


def column_stats(column: pa.ChunkedArray | pa.Array, t: DataType, mode: StatsMode) -> ColumnStats:
    """The statistics of one column under `mode`.

    >>> import pyarrow as pa
    >>> from paimon_sql.types import parse_type
    >>> column_stats(pa.array([3, None, 1]), parse_type("INT"), StatsMode("full"))
    ColumnStats(min=1, max=3, null_count=1)
    >>> column_stats(pa.array(["abc"]), parse_type("STRING"), StatsMode("truncate", 2))
    ColumnStats(min='ab', max='ac', null_count=0)
    """
    if mode.kind == "none":
        return _UNKNOWN
    nulls = column.null_count
    if mode.kind == "counts":
        return ColumnStats(None, None, nulls)
    low, high = _min_max(column, t)
    if mode.kind == "truncate" and isinstance(low, str):
        assert mode.length is not None
        assert isinstance(high, str)
        high = truncate_max(high, mode.length)
        low = None if high is None else truncate_min(low, mode.length)
    return ColumnStats(low, high, nulls)


def to_simple_stats(stats: Sequence[ColumnStats], types: Sequence[DataType]) -> SimpleStats:
    """Min/max BinaryRows over `types` (made nullable) and the null counts.

    >>> from paimon_sql.types import parse_type
    >>> to_simple_stats([], []) == EMPTY_STATS
    True
    >>> to_simple_stats([ColumnStats(1, 2, 0)], [parse_type("INT")]).null_counts
    (0,)
    """
    nullable = [t.with_nullable(True) for t in types]
    return SimpleStats(
        min_values=encode_row([s.min for s in stats], nullable),
        max_values=encode_row([s.max for s in stats], nullable),
        null_counts=tuple(s.null_count for s in stats),
    )


def value_stats(
    table: pa.Table, fields: Sequence[DataField], options: Mapping[str, str]
) -> tuple[SimpleStats, tuple[str, ...] | None]:
    """``_VALUE_STATS`` and ``_VALUE_STATS_COLS`` of `table`'s columns `fields`.

    The stats modes come from the table `options`.
    """
    modes = tuple(
        StatsMode("none") if f.type.root in _NO_STATS else m
        for f, m in zip(fields, column_modes(options, [f.name for f in fields]), strict=True)
    )
    dense = CoreOptions(options).flag("metadata.stats-dense-store")
    kept = list(zip(fields, modes, strict=True))
    cols: tuple[str, ...] | None = None
    if dense and any(m.kind == "none" for m in modes):
        kept = [(f, m) for f, m in kept if m.kind != "none"]
        cols = tuple(f.name for f, _ in kept)
    stats = [column_stats(table.column(f.name), f.type, m) for f, m in kept]
    return to_simple_stats(stats, [f.type for f, _ in kept]), cols


def key_stats(
    table: pa.Table, fields: Sequence[DataField], names: Sequence[str] | None = None
) -> SimpleStats:
    """``_KEY_STATS``: the key columns at ``truncate(128)``.

    `names` are their columns in `table` (default the field names). An append table (no key fields)
    gets the empty stats.

    >>> import pyarrow as pa
    >>> key_stats(pa.table({}), []) == EMPTY_STATS
    True
    """
    if not fields:
        return EMPTY_STATS
    mode = StatsMode("truncate", KEY_TRUNCATE)
    columns = names if names is not None else [f.name for f in fields]
    stats = [
        column_stats(table.column(c), f.type, mode) for c, f in zip(columns, fields, strict=True)
    ]
    return to_simple_stats(stats, [f.type for f in fields])


def row_stats(rows: Sequence[Sequence[Any]], types: Sequence[DataType]) -> SimpleStats:
    """Full stats over a few rows of Python values.

    For example ``_PARTITION_STATS`` over a manifest's partitions.

    >>> from paimon_sql.types import parse_type
    >>> from paimon_sql.format.binary_row import decode_row
    >>> s = row_stats([("b", 2), ("a", None)], [parse_type("STRING"), parse_type("INT")])
    >>> decode_row(s.min_values, [parse_type("STRING"), parse_type("INT")]), s.null_counts
    (('a', 2), (0, 1))
    """
    out = []
    for i, t in enumerate(types):
        values = [row[i] for row in rows]
        present = [v for v in values if v is not None]
        ordered = present and t.root not in ("ARRAY", "MAP", "MULTISET", "ROW")
        low = min(present) if ordered else None
        high = max(present) if ordered else None
        out.append(ColumnStats(low, high, len(values) - len(present)))
    return to_simple_stats(out, types)
