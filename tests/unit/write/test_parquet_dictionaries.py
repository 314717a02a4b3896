"""Which Parquet columns get a dictionary; DuckDB reads `IS NULL` right on the files we write."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_sql.write.data_file import _dictionary_columns, _parquet_bytes


def _encodings(data: bytes, column: int) -> tuple[str, ...]:
    return pq.ParquetFile(pa.BufferReader(data)).metadata.row_group(0).column(column).encodings


@pytest.mark.parametrize(
    ("values", "dictionary"),
    [
        (["x", None], True),  # one distinct value: DuckDB 2.0.0 misreads such a PLAIN column
        ([None, None, "x"], True),
        ([None] * 3, True),
        (["x", "y"], False),
        ([f"user_{i}" for i in range(5000)], False),
        ([f"c{i % 10}" for i in range(5000)], True),
    ],
)
def test_dictionary_choice(values, dictionary):
    table = pa.table({"s": pa.array(values, pa.string())})
    assert (_dictionary_columns(table) == ["s"]) is dictionary


def test_duckdb_reads_is_null_on_a_single_value_string_column(tmp_path):
    table = pa.table({"id": pa.array([1, 2], pa.int32()), "a": pa.array(["x", None])})
    data = _parquet_bytes(table, {})
    assert any("DICTIONARY" in e for e in _encodings(data, 1))
    path = tmp_path / "f.parquet"
    path.write_bytes(data)
    con = duckdb.connect()
    query = "SELECT id FROM read_parquet(?) WHERE a IS NULL"
    assert con.execute(query, [str(path)]).fetchall() == [(2,)]


def test_parquet_enable_dictionary_false_writes_plain_columns(tmp_path):
    """'parquet.enable.dictionary' = 'false' (parquet-mr's option): no dictionary, except for a
    column of one distinct value (DuckDB misreads that one PLAIN); DuckDB reads the file right."""
    table = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "a": pa.array(["x", None, "x"])})
    data = _parquet_bytes(table, {"parquet.enable.dictionary": "false"})
    assert not any("DICTIONARY" in e for e in _encodings(data, 0))
    assert any("DICTIONARY" in e for e in _encodings(data, 1))
    assert any("DICTIONARY" in e for e in _encodings(_parquet_bytes(table, {}), 0))
    path = tmp_path / "f.parquet"
    path.write_bytes(data)
    query = "SELECT id FROM read_parquet(?) WHERE a IS NULL"
    assert duckdb.connect().execute(query, [str(path)]).fetchall() == [(2,)]
