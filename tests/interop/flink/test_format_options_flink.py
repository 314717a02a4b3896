"""The format writers' options, Apache Paimon 1.3.1 (Flink) and paimon-sql side by side.

For each format, Flink and paimon-sql each create the same table with the same ``parquet.*`` /
``orc.*`` / ``avro.*`` / ``manifest.compression`` options and write the same rows. Then:

1. each reads the other's table exactly as its writer does (Flink reads ours, we read Flink's);
2. the files agree on what the options ask for, measured in Java's files and in ours alike:
   Parquet codec, data page version, which columns carry a bloom filter or a dictionary, more than
   one row group; ORC codec, row index
   stride, file version, which columns carry a bloom filter, more than one stripe; the Avro codec
   of data files and of manifests;
3. Flink writes on top of our table, and both read the result alike.
"""

# SQL text here is fixed test input built from constants of this file.
# ruff: noqa: S608
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import fastavro
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.io.orc_timestamps import _stripes
from tests.interop.flink.harness import arrow_rows, assert_same_rows
from tests.parquet_footer import column_chunks

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

ROWS = 20_000
COLUMNS = "id INT, s STRING, b BOOLEAN, r ROW<x INT, y STRING>"
GEN = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS gen (i INT) WITH ('connector' = 'datagen', "
    f"'fields.i.kind' = 'sequence', 'fields.i.start' = '0', 'fields.i.end' = '{ROWS - 1}', "
    f"'number-of-rows' = '{ROWS}')"
)
FLINK_ROWS = "SELECT i, CONCAT('v', CAST(MOD(i, 7) AS STRING)), MOD(i, 2) = 0, ROW(i, 'q') FROM gen"
OUR_ROWS = f"SELECT i, 'v' || (i % 7), i % 2 = 0, {{'x': i, 'y': 'q'}} FROM range({ROWS}) t(i)"

CASES = {
    "parquet": {
        "parquet.block.size": "4096",
        "parquet.writer.version": "v2",
        "parquet.compression": "GZIP",
        "parquet.bloom.filter.enabled#id": "true",
        # r.y holds one value: both writers keep its dictionary and so write no filter
        "parquet.bloom.filter.enabled#r.y": "true",
        "parquet.bloom.filter.expected.ndv#r.y": "10",
        "parquet.bloom.filter.expected.ndv#s": "10",  # turns the filter on
        "parquet.enable.dictionary#s": "false",
        "manifest.compression": "snappy",
    },
    "orc": {
        "orc.stripe.size": "1024",
        "orc.compress": "NONE",
        "orc.row.index.stride": "1000",
        "orc.bloom.filter.columns": "s,r",
        "manifest.compression": "deflate",
    },
    "orc-0.11": {"orc.write.format": "0.11", "orc.compress": "SNAPPY"},
    "avro": {"avro.codec": "deflate"},
}


def _ddl(table: str, case: str) -> str:
    options = {"file.format": case.split("-")[0], **CASES[case]}
    pairs = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
    return f"CREATE TABLE {table} ({COLUMNS}) WITH ({pairs})"


def _data_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("bucket-0/data-*"))


def _avro_codec(path: Path) -> str:
    with path.open("rb") as fh:
        return fastavro.reader(fh).codec


def _parquet_shape(path: Path) -> dict[str, Any]:
    chunks = column_chunks(path)
    return {
        "bloom": {p for p, c in chunks.items() if c["bloom"]},
        "plain": {p for p, c in chunks.items() if not c["dictionary"]},
        "codec": {c["codec"] for c in chunks.values()},
        "pages": {c["page_type"] for c in chunks.values()},
        "row groups > 1": pq.ParquetFile(path).metadata.num_row_groups > 1,
    }


def _orc_shape(path: Path) -> dict[str, Any]:
    reader = orc.ORCFile(path)
    with path.open("rb") as source:
        blooms = {
            column
            for stripe in _stripes(reader, source)
            for column, kind in stripe.streams
            if kind in (7, 8)  # Stream.Kind BLOOM_FILTER, BLOOM_FILTER_UTF8
        }
    return {
        "codec": reader.compression,
        "stride": reader.row_index_stride,
        "version": reader.file_version,
        "bloom": blooms,
        "stripes > 1": reader.nstripes > 1,
    }


def _shape(folder: Path, fmt: str) -> dict[str, Any]:
    """What the options decide, in every data file of the table, and its manifests' codec."""
    shapes = []
    for path in _data_files(folder):
        if fmt == "parquet":
            shapes.append(_parquet_shape(path))
        elif fmt == "orc":
            shapes.append(_orc_shape(path))
        else:
            shapes.append({"codec": _avro_codec(path)})
    first = shapes[0]
    assert all(s == first for s in shapes), shapes
    manifests = {_avro_codec(m) for m in folder.glob("manifest/manifest-*")}
    return {**first, "manifests": manifests}


def _ours(warehouse: Path, table: str) -> tuple[list[str], list[dict[str, Any]]]:
    session = paimon_sql.connect(warehouse)
    try:
        return arrow_rows(session.sql(f'SELECT * FROM "db"."{table}"').to_arrow_table())
    finally:
        session.close()


@pytest.mark.parametrize("case", list(CASES))
def test_format_options_write_files_as_java_does(flink: FlinkOracle, tmp_path: Path, case: str):
    warehouse = tmp_path / "warehouse"
    fmt = case.split("-")[0]
    flink.run(warehouse, GEN, _ddl("java_t", case), f"INSERT INTO java_t {FLINK_ROWS}")
    session = paimon_sql.connect(warehouse)
    try:
        session.sql(_ddl('"db"."our_t"', case))
        session.sql(f'INSERT INTO "db"."our_t" {OUR_ROWS}')
    finally:
        session.close()

    # 1. each reads the other's table as its writer does
    for table in ("java_t", "our_t"):
        columns, rows = _ours(warehouse, table)
        flink_columns, flink_rows = flink.read(warehouse, table)
        assert flink_columns == columns
        assert len(rows) == ROWS
        assert_same_rows(flink_rows, rows, context=f"{fmt} {table} (Flink vs paimon-sql)")

    # 2. the files agree on what the options ask for
    java = _shape(warehouse / "db.db" / "java_t", fmt)
    ours = _shape(warehouse / "db.db" / "our_t", fmt)
    assert ours == java

    # 3. Flink writes on top of ours; both read it alike
    flink.run(warehouse, "INSERT INTO our_t VALUES (-1, 'flink', true, ROW(-1, 'f'))")
    columns, rows = _ours(warehouse, "our_t")
    flink_columns, flink_rows = flink.read(warehouse, "our_t")
    assert flink_columns == columns
    assert len(rows) == ROWS + 1
    assert_same_rows(rows, flink_rows, context=f"{fmt} our_t after Flink's INSERT")
