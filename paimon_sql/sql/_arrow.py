"""Paimon types as Arrow types, for data files DuckDB cannot read itself (ORC, Avro)."""

from __future__ import annotations

import pyarrow as pa

from paimon_sql.types import DataType

_SIMPLE = {
    "BOOLEAN": pa.bool_(),
    "TINYINT": pa.int8(),
    "SMALLINT": pa.int16(),
    "INT": pa.int32(),
    "BIGINT": pa.int64(),
    "FLOAT": pa.float32(),
    "DOUBLE": pa.float64(),
    "DATE": pa.date32(),
    "CHAR": pa.string(),
    "VARCHAR": pa.string(),
    "BINARY": pa.binary(),
    "VARBINARY": pa.binary(),
    "TIME": pa.time32("ms"),
}


def _unit(precision: int | None) -> str:
    p = 6 if precision is None else precision
    return "ms" if p <= 3 else ("us" if p <= 6 else "ns")


def arrow_type(t: DataType) -> pa.DataType:
    """The Arrow type of a Paimon type."""
    if t.root in _SIMPLE:
        return _SIMPLE[t.root]
    if t.root == "DECIMAL":
        return pa.decimal128(t.precision or 10, t.scale or 0)
    if t.root == "TIMESTAMP":
        return pa.timestamp(_unit(t.precision))
    if t.root == "TIMESTAMP_LTZ":
        return pa.timestamp(_unit(t.precision), tz="UTC")
    if t.root == "ARRAY":
        assert t.element is not None
        return pa.list_(arrow_type(t.element))
    if t.root == "MULTISET":
        assert t.element is not None
        return pa.map_(arrow_type(t.element), pa.int32())
    if t.root == "MAP":
        assert t.key is not None and t.value is not None
        return pa.map_(arrow_type(t.key), arrow_type(t.value))
    if t.root == "ROW":
        return pa.struct([pa.field(f.name, arrow_type(f.type)) for f in t.fields])
    return pa.binary()
