"""Avro data files of atomic columns (`paimon_sql.write.avro_columns`, numpy) read by Flink 1.3.1.

Every atomic type Paimon writes to Avro, nullable and NOT NULL, over more than one block of
rows, with Paimon's default codec (zstd) and snappy: Apache Paimon reads the rows paimon-sql reads
(paimon-sql's reader is fastavro, not the encoder under test), and Flink's own upsert into the
table is read alike afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.write.avro_columns import _BLOCK_ROWS
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_ROWS = _BLOCK_ROWS + 4_464  # two blocks
_COLUMNS = (
    "id BIGINT NOT NULL, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT NOT NULL, f FLOAT, "
    "d DOUBLE, s STRING, c CHAR(4), vc VARCHAR(9), bin BYTES, dt DATE, tm TIME, "
    "ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ltz TIMESTAMP_LTZ(6)"
)
_SELECT = (  # constant text
    "SELECT range, CASE WHEN range % 11 = 0 THEN NULL ELSE range % 3 = 0 END, "  # noqa: S608
    "(range % 256 - 128)::TINYINT, (range * 7 % 65536 - 32768)::SMALLINT, "
    "(range * 2654435761 % 4294967296 - 2147483648)::INT, "
    "CASE WHEN range % 13 = 0 THEN NULL ELSE (range / 3.0)::FLOAT END, range * -1.5e200, "
    "CASE WHEN range % 5 = 0 THEN NULL ELSE 'é' || repeat('x', (range % 40)::INT) END, "
    "chr(97 + (range % 26)::INT), (range % 100000)::VARCHAR, encode(range::VARCHAR), "
    "DATE '1600-03-01' + (range * 37 % 2900000)::INT, "
    "TIME '00:00:00' + INTERVAL (range * 1001 % 86400000) MILLISECOND, "
    "TIMESTAMP '1950-01-01' + INTERVAL (range * 997) SECOND, "
    "TIMESTAMP '1969-12-31 23:00:00' + INTERVAL (range * 123457) MICROSECOND, "
    "TIMESTAMPTZ '2024-01-01 00:00:00+00' - INTERVAL (range * 3) SECOND "
    f"FROM range({_ROWS})"
)


@pytest.mark.parametrize("compression", ["zstd", "snappy"])
def test_flink_reads_the_avro_columns_we_encoded(
    flink: FlinkOracle, tmp_path: Path, compression: str
):
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    try:
        session.sql("CREATE DATABASE db")
        session.sql(
            f"CREATE TABLE db.t ({_COLUMNS}, PRIMARY KEY (id) NOT ENFORCED) WITH ("
            f"'bucket' = '1', 'file.format' = 'avro', 'file.compression' = '{compression}')"
        )
        session.sql(f"INSERT INTO db.t {_SELECT}")
        ours = arrow_rows(session.sql("SELECT * FROM db.t").to_arrow_table())[1]
    finally:
        session.close()
    assert len(ours) == _ROWS
    assert_same_rows(flink.read(warehouse, "t")[1], ours, context=f"{compression}: our write")
    flink.run(warehouse, "INSERT INTO t (id, i32, s) VALUES (7, 70, 'flink')")
    session = paimon_sql.connect(warehouse)
    try:
        ours = arrow_rows(session.sql("SELECT * FROM db.t").to_arrow_table())[1]
    finally:
        session.close()
    assert_same_rows(flink.read(warehouse, "t")[1], ours, context=f"{compression}: Flink's upsert")
    assert next(r for r in ours if r["id"] == 7)["s"] == "flink"
