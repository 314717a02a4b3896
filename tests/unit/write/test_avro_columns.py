"""The numpy Avro encoder (`paimon_sql.write.avro_columns`) against fastavro's.

Every atomic type Paimon writes to Avro, nullable and not, with edge values, several blocks and
every codec: fastavro decodes the numpy encoder's file to the records it decodes from its own
encoding of the same table (the record path `write.data_file` used before). Java reads the files:
`tests/interop/test_write_spark_reads.py` (Apache Paimon 0.9, every primitive type, Avro) and the
Flink 1.3.1 tests write Avro tables through this encoder.
"""

from __future__ import annotations

import io
import math
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from paimon_sql.types import parse_type
from paimon_sql.write import avro_columns
from paimon_sql.write.data_file import _avro_column, avro_type

_I64 = (-(2**63), 2**63 - 1, 0, -1, 1, 63, 64, -64, -65, 2**35)
_COLUMNS: list[tuple[str, str, pa.DataType, list[Any]]] = [
    ("b", "BOOLEAN", pa.bool_(), [True, False]),
    ("i8", "TINYINT", pa.int8(), [-128, 127, 0]),
    ("i16", "SMALLINT", pa.int16(), [-32768, 32767, 5]),
    ("i32", "INT", pa.int32(), [-(2**31), 2**31 - 1, 0, -1]),
    ("i64", "BIGINT", pa.int64(), list(_I64)),
    ("f32", "FLOAT", pa.float32(), [1.5, -0.0, math.inf, 3.4e38]),
    ("f64", "DOUBLE", pa.float64(), [math.pi, -math.inf, 1e-300, 0.0]),
    ("s", "STRING", pa.string(), ["", "a", "héllo wörld", "x" * 300, "日本"]),
    ("c", "CHAR(3)", pa.string(), ["ab ", "   "]),
    ("bin", "BYTES", pa.binary(), [b"", b"\x00\xff", b"y" * 200]),
    ("d", "DATE", pa.date32(), [0, -719162, 2932896, 19000]),
    ("t", "TIME", pa.time32("ms"), [0, 86_399_999, 12345]),
    ("ts3", "TIMESTAMP(3)", pa.timestamp("ms"), [0, -62135596800000, 253402300799999, -1]),
    ("ts6", "TIMESTAMP(6)", pa.timestamp("us"), [0, -1, 1_700_000_000_123_456]),
    ("ltz", "TIMESTAMP(6) WITH LOCAL TIME ZONE", pa.timestamp("us", "UTC"), [5, -5]),
]


def _table(rows: int, nullable: bool) -> tuple[pa.Table, list[Any]]:
    arrays, types = [], []
    for i, (_, sql, arrow, values) in enumerate(_COLUMNS):
        cycle = [values[(r + i) % len(values)] for r in range(rows)]
        if nullable:
            cycle = [None if (r * 7 + i) % 5 == 0 else v for r, v in enumerate(cycle)]
        arrays.append(pa.array(cycle, arrow))
        types.append(parse_type(sql if nullable else sql + " NOT NULL"))
    return pa.table(arrays, names=[name for name, *_ in _COLUMNS]), types


def _records(data: bytes) -> list[Any]:
    return list(fastavro.reader(io.BytesIO(data)))


@pytest.mark.parametrize("codec", ["null", "deflate", "zstandard", "snappy"])
@pytest.mark.parametrize("nullable", [True, False])
def test_numpy_encoding_decodes_as_fastavros(codec: str, nullable: bool):
    table, types = _table(1_000, nullable)
    schema = {
        "type": "record",
        "name": "record",
        "namespace": "org.apache.paimon.avro.generated",
        "fields": [
            {"name": name, "type": avro_type(t, "record_" + name)}
            for name, t in zip(table.column_names, types, strict=True)
        ],
    }
    assert avro_columns.flat_types(types, codec)
    ours = avro_columns.encode_flat(table, types, schema, codec, None, block_rows=300)
    columns = [_avro_column(table.column(i), t) for i, t in enumerate(types)]
    rows = [dict(zip(table.column_names, v, strict=True)) for v in zip(*columns, strict=True)]
    theirs = io.BytesIO()
    fastavro.writer(theirs, fastavro.parse_schema(schema), rows, codec=codec)
    got, want = _records(ours), _records(theirs.getvalue())
    assert len(got) == 1_000
    assert repr(got) == repr(want)  # repr: NaN-safe, -0.0 kept
    assert ours == avro_columns.encode_flat(table, types, schema, codec, None, block_rows=300)


def test_an_empty_table_is_a_valid_container():
    table, types = _table(0, True)
    schema = {"type": "record", "name": "r", "fields": [{"name": "b", "type": ["null", "boolean"]}]}
    assert (
        _records(avro_columns.encode_flat(table.select(["b"]), types[:1], schema, "null", 1)) == []
    )


def test_nested_decimal_and_nanosecond_types_stay_with_fastavro():
    for sql in ("DECIMAL(10, 2)", "TIMESTAMP(9)"):
        assert not avro_columns.flat_types([parse_type(sql)], "zstandard")
    nested = parse_type({"type": "ARRAY", "element": "INT"})
    assert not avro_columns.flat_types([nested], "zstandard")
    assert not avro_columns.flat_types([parse_type("INT")], "bzip2")
