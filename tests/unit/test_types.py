"""The one type-mapping module: Paimon types to Arrow and DuckDB, and DuckDB query types back."""

from __future__ import annotations

import itertools

import duckdb
import pyarrow as pa
import pytest

from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.types import (
    NUMERIC_ROOTS,
    arrow_type,
    duckdb_type,
    from_duckdb_field,
    parse_type,
    type_sql,
)


@pytest.mark.parametrize(
    ("paimon", "arrow"),
    [
        ("INT", pa.int32()),
        ("DECIMAL(5, 2)", pa.decimal128(5, 2)),
        ("TIMESTAMP(3)", pa.timestamp("ms")),
        ("TIMESTAMP(9)", pa.timestamp("ns")),
        ("TIMESTAMP(6) WITH LOCAL TIME ZONE", pa.timestamp("us", tz="UTC")),
        ("TIME(0)", pa.time32("ms")),
        ("STRING", pa.string()),
        ("VARIANT", pa.binary()),
        ({"type": "MULTISET", "element": "INT"}, pa.map_(pa.int32(), pa.int32())),
    ],
)
def test_arrow_type(paimon, arrow):
    assert arrow_type(parse_type(paimon)) == arrow


def test_duckdb_query_types_round_trip():
    query = (
        "SELECT 1::INTEGER a, 2::HUGEINT b, 1.5::DECIMAL(9, 3) c, 'x' d, [1]::BIGINT[] e, "
        "MAP {1: 'a'} f, {'x': 1::SMALLINT} g, now()::TIMESTAMPTZ h, now()::TIMESTAMP_NS i"
    )
    rel = duckdb.sql(query)
    ids = itertools.count()
    fields = [from_duckdb_field(n, t, ids) for n, t in zip(rel.columns, rel.types, strict=True)]
    assert [type_sql(f.type) for f in fields] == [
        "INT", "DECIMAL(38, 0)", "DECIMAL(9, 3)", "STRING", "ARRAY<BIGINT>", "MAP<INT, STRING>",
        "ROW<`x` SMALLINT>", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(9)",
    ]  # fmt: skip
    assert [f.id for f in fields] == [0, 1, 2, 3, 4, 5, 6, 8, 9]  # the ROW's field takes id 7
    assert duckdb_type(fields[0].type) == "INTEGER"


def test_duckdb_type_without_paimon_type():
    with pytest.raises(UnsupportedFeatureError, match="INTERVAL"):
        from_duckdb_field("x", duckdb.sql("SELECT INTERVAL 1 DAY").types[0], itertools.count())


def test_root_sets():
    assert {"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL"} == NUMERIC_ROOTS
