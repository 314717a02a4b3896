"""The format writers' options (``parquet.*``, ``orc.*``, ``avro.*``, ``file.block-size``,
``manifest.compression``) shape the files paimon-sql writes, read back from the files themselves
(Parquet footers through pyarrow and DuckDB, ORC footers and stripe footers, Avro headers).

That Java reads such files and writes alike is tests/interop/flink/test_format_options_flink.py.
"""

# SQL text here is fixed test input built from constants of this file.
# ruff: noqa: S608
from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import MappingProxyType

import duckdb
import fastavro
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.io.orc_timestamps import _stripes
from tests.parquet_footer import column_chunks

BLOOM_KINDS = {7, 8}  # ORC Stream.Kind BLOOM_FILTER, BLOOM_FILTER_UTF8


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    yield s
    s.close()


def _table(session, name: str, options: dict[str, str], *, pk: bool = False, rows: int = 5000):
    options = {**options, "bucket": "1" if pk else "-1"}
    pairs = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
    key = ", PRIMARY KEY (id) NOT ENFORCED" if pk else ""
    session.sql(
        f"CREATE TABLE db.{name} (id INT NOT NULL, s STRING, b BOOLEAN, r ROW<x INT, y STRING>"
        f"{key}) WITH ({pairs})"
    )
    session.sql(
        f"INSERT INTO db.{name} SELECT i, 'v' || (i % 7), i % 2 = 0, {{'x': i, 'y': 'q'}} "
        f"FROM range({rows}) t(i)"
    )
    assert session.sql(f"SELECT count(*), sum(id) FROM db.{name}").fetchall() == [
        (rows, rows * (rows - 1) // 2)
    ]
    folder = Path(session.table(f"db.{name}").path)
    (data,) = sorted(folder.glob("bucket-0/data-*"))
    return folder, data


def _codec(path: Path) -> str:
    with path.open("rb") as fh:
        return fastavro.reader(fh).codec


def test_parquet_options_shape_row_groups_pages_codec_dictionaries_and_bloom_filters(session):
    _, data = _table(
        session,
        "p",
        {
            "parquet.block.size": "4096",
            "parquet.page.row.count.limit": "100",
            "parquet.writer.version": "v2",
            "parquet.compression": "GZIP",
            "parquet.bloom.filter.enabled": "true",
            "parquet.bloom.filter.enabled#r.y": "false",
            "parquet.bloom.filter.expected.ndv#s": "7",
            "parquet.enable.dictionary#s": "false",
            "parquet.enable.dictionary#r.y": "true",
        },
        pk=True,
    )
    meta = pq.ParquetFile(data).metadata
    assert meta.num_row_groups > 5  # 4 KB of Arrow data per group, about 40 bytes a row
    columns = column_chunks(data)
    # global bloom filters: every column but BOOLEANs, r.y (opted out) and those that keep a
    # dictionary (_VALUE_KIND: one value), as parquet-mr writes them
    assert {p for p, c in columns.items() if c["bloom"]} == {
        "_KEY_id", "_SEQUENCE_NUMBER", "id", "s", "r.x"
    }  # fmt: skip
    assert not columns["s"]["dictionary"]
    assert columns["r.y"]["dictionary"]
    assert {c["codec"] for c in columns.values()} == {"GZIP"}
    rows_per_group = meta.row_group(0).num_rows
    assert columns["id"]["pages"] == -(-rows_per_group // 100)
    assert columns["id"]["page_type"] == 3  # DATA_PAGE_V2
    # DuckDB's own probe: the filters hold the values written, and not others
    con = duckdb.connect()
    probe = "SELECT bool_and(bloom_filter_excludes) FROM parquet_bloom_probe($f, 's', $v)"
    assert con.sql(probe, params={"f": str(data), "v": "v3"}).fetchall() == [(False,)]
    assert con.sql(probe, params={"f": str(data), "v": "nope"}).fetchall() == [(True,)]


def test_without_options_parquet_is_as_before(session):
    _, data = _table(session, "plain", {})
    columns = column_chunks(data)
    assert not any(c["bloom"] for c in columns.values())
    assert {c["codec"] for c in columns.values()} == {"ZSTD"}
    assert columns["id"]["page_type"] == 0
    assert pq.ParquetFile(data).metadata.num_row_groups == 1


def test_file_block_size_wins_over_the_format_keys_as_in_java(session):
    _, small = _table(session, "blk", {"file.block-size": "4 kb", "parquet.block.size": "1000000"})
    assert pq.ParquetFile(small).metadata.num_row_groups > 5
    _, stripes = _table(
        session,
        "blk_orc",
        # uncompressed: pyarrow's ORC writer weighs a stripe by its compressed bytes
        {
            "file.format": "orc",
            "file.block-size": "1 kb",
            "orc.stripe.size": "100000000",
            "orc.compress": "NONE",
        },
        rows=50_000,
    )
    assert orc.ORCFile(stripes).nstripes > 1


def test_orc_options_shape_stripes_codec_index_and_bloom_filters(session):
    _, data = _table(
        session,
        "o",
        {
            "file.format": "orc",
            "orc.stripe.size": "1024",
            "orc.compress": "NONE",  # a compressed stripe is weighed by its compressed bytes
            "orc.compress.size": "131072",
            "orc.row.index.stride": "1000",
            "orc.write.format": "0.12",
            "orc.bloom.filter.columns": "s,r",
            "orc.bloom.filter.fpp": "0.01",
        },
        rows=50_000,
    )
    reader = orc.ORCFile(data)
    assert (reader.compression, reader.compression_size) == ("UNCOMPRESSED", 131072)
    assert (reader.row_index_stride, reader.file_version) == (1000, "0.12")
    assert reader.nstripes > 1
    with data.open("rb") as source:
        blooms = {
            column
            for stripe in _stripes(reader, source)
            for column, kind in stripe.streams
            if kind in BLOOM_KINDS
        }
    # ids in pre-order: 0 the row, 1 id, 2 s, 3 b, 4 r, 5 r.x, 6 r.y
    assert blooms == {2, 4, 5, 6}


def test_avro_codec_rules_data_files_and_manifests(session):
    folder, data = _table(session, "a", {"file.format": "avro", "avro.codec": "deflate"})
    assert _codec(data) == "deflate"
    assert {_codec(m) for m in folder.glob("manifest/*")} == {"deflate"}


@pytest.mark.parametrize(
    ("compression", "codec"), [("snappy", "snappy"), ("null", "null"), ("zstd", "zstandard")]
)
def test_manifest_compression_is_written(session, compression, codec):
    folder, _ = _table(session, f"m_{compression}", {"manifest.compression": compression})
    assert {_codec(m) for m in folder.glob("manifest/*")} == {codec}


def test_a_java_table_with_a_format_key_pyarrow_cannot_honour_is_read_not_written(session):
    """A table Java made with 'orc.stripe.row.count' (the paimon-cpp corpus has one): reads
    work, writes are refused by name before any file."""
    folder, _ = _table(session, "j", {"file.format": "orc"}, rows=10)
    table = session.table("db.j")
    schema = table.latest_schema
    options = {**schema.options, "orc.stripe.row.count": "1"}
    assert table.commit_schema(
        dataclasses.replace(schema, id=schema.id + 1, options=MappingProxyType(options))
    )
    files = sorted(folder.rglob("*"))
    with pytest.raises(UnsupportedFeatureError, match=re.escape("'orc.stripe.row.count'")):
        session.sql("INSERT INTO db.j (id) VALUES (99)")
    assert sorted(folder.rglob("*")) == files
    assert session.sql("SELECT count(*) FROM db.j").fetchall() == [(10,)]


def test_a_bloom_filter_on_a_column_whose_name_holds_a_dot(session):
    """Parquet paths join names with dots: a column named 'a.b' is the path 'a.b'."""
    session.sql(
        """CREATE TABLE db.dotted ("a.b" INT, r ROW<x INT>) WITH ("""
        "'parquet.bloom.filter.enabled#a.b' = 'true', 'parquet.bloom.filter.enabled#r.x' = 'true')"
    )
    session.sql("""INSERT INTO db.dotted SELECT i, {'x': i} FROM range(5000) t(i)""")
    (data,) = sorted(Path(session.table("db.dotted").path).glob("bucket-0/data-*"))
    assert {p for p, c in column_chunks(data).items() if c["bloom"]} == {"a.b", "r.x"}
