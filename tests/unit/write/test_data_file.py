"""Data files we write: physical layout against Java's files.

Read back by pyarrow/fastavro and by paimon_sql.
"""

from __future__ import annotations

import datetime
import decimal
import io
import json
import os

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.errors import SchemaError, UnsupportedFeatureError
from paimon_sql.format.avro_schemas import MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_META_SCHEMA
from paimon_sql.format.binary_row import EMPTY_ROW, decode_row, encode_row
from paimon_sql.format.manifest import (
    FileKind,
    FileSource,
    ManifestEntry,
    ManifestFileMeta,
    manifest_entry_to_record,
    manifest_file_meta_to_record,
)
from paimon_sql.format.schema import TableSchema, schema_from_json, schema_to_json
from paimon_sql.format.snapshot import CommitKind, Snapshot, snapshot_to_json
from paimon_sql.io.fileio import file_io
from paimon_sql.io.records import encode_avro
from paimon_sql.types import parse_field
from paimon_sql.write.data_file import data_file_name, physical_schema, write_data_file
from paimon_sql.write.stats import row_stats
from tests.fixtures import FIXTURES

PARQUET = FIXTURES / "paimon-cpp/test/test_data/parquet"


def _schema(fields, pk=(), partition=(), **options) -> TableSchema:
    parsed = tuple(parse_field({"id": i, "name": n, "type": t}) for i, (n, t) in enumerate(fields))
    return TableSchema(
        id=0,
        fields=parsed,
        highest_field_id=len(parsed) - 1,
        partition_keys=tuple(partition),
        primary_keys=tuple(pk),
        options=options,
    )


PK = _schema(
    [
        ("id", "BIGINT NOT NULL"),
        ("name", "STRING"),
        ("price", "DECIMAL(10, 2)"),
        ("ts", "TIMESTAMP(3)"),
    ],
    pk=["id"],
    bucket="1",
)
ROWS = pa.table(
    {
        "id": [1, 2, 3],
        "name": ["apple", None, "cherry"],
        "price": pa.array(
            [decimal.Decimal("1.50"), decimal.Decimal("2.00"), None], pa.decimal128(10, 2)
        ),
        "ts": pa.array(
            [datetime.datetime(2024, 5, 14, 10, 0, 0, 123000), None, None], pa.timestamp("ms")
        ),
        "_VALUE_KIND": pa.array([0, 0, 3], pa.int8()),
    }
)


def _java_file(table: str) -> str:
    base = PARQUET / f"{table}.db" / table
    return str(sorted(base.rglob("*.parquet"))[0])


def _parquet_schema_lines(path) -> list[str]:
    """The Parquet schema text without the root group's name (pyarrow names it ``schema``, Java
    ``paimon_schema``) and without the legacy MAP_KEY_VALUE annotation parquet-mr puts on
    ``key_value`` (pyarrow does not; readers ignore it)."""
    text = str(pq.ParquetFile(path).schema).replace("key_value (Map) {", "key_value {")
    return text.splitlines()[2:]


# --- physical layout against Java ---------------------------------------------------------------


@pytest.mark.parametrize(
    "table", ["pk_table_with_dv_cardinality", "pk_table_nested_type", "append_complex_data"]
)
def test_parquet_schema_equals_java(tmp_path, table):
    """Same field names, repetition, physical/logical types and field ids as a Java-written file."""
    java = _java_file(table)
    schema = schema_from_json((PARQUET / f"{table}.db" / table / "schema" / "schema-0").read_text())
    data = pq.read_table(java)
    path = str(tmp_path / data_file_name("u", 0, "parquet"))
    meta = write_data_file(
        file_io(str(tmp_path)), path, data, schema=schema, first_sequence_number=0, creation_time=0
    )
    assert _parquet_schema_lines(path) == _parquet_schema_lines(java)
    assert pq.read_table(path).equals(data)
    assert meta.file_size == os.path.getsize(path)


def test_parquet_column_chunks_use_zstd(tmp_path):
    path = str(tmp_path / data_file_name("u", 0, "parquet"))
    write_data_file(file_io(str(tmp_path)), path, ROWS, schema=PK, first_sequence_number=0)
    meta = pq.ParquetFile(path).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert meta.metadata is None or b"ARROW:schema" not in meta.metadata


def test_physical_schema_of_pk_table():
    schema = physical_schema(PK)
    assert schema.names == [
        "_KEY_id",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND",
        "id",
        "name",
        "price",
        "ts",
    ]
    ids = [int(f.metadata[b"PARQUET:field_id"]) for f in schema]
    assert ids == [1073741823, 2147483646, 2147483645, 0, 1, 2, 3]
    assert [f.nullable for f in schema] == [False, False, False, False, True, True, True]
    assert schema.field("_VALUE_KIND").type == pa.int8()


def test_thin_mode_drops_key_copies():
    assert physical_schema(PK, {"data-file.thin-mode": "true"}).names[:2] == [
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND",
    ]


def test_decimal_and_timestamp_physical_types(tmp_path):
    schema = _schema(
        [
            ("d9", "DECIMAL(9, 2)"),
            ("d18", "DECIMAL(18, 2)"),
            ("d38", "DECIMAL(38, 2)"),
            ("t3", "TIMESTAMP(3)"),
            ("t6", "TIMESTAMP(6)"),
            ("l3", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
            ("i8", "TINYINT"),
            ("i16", "SMALLINT"),
            ("tm", "TIME(0)"),
        ]
    )
    table = pa.table(
        {
            "d9": pa.array([decimal.Decimal("1.00")], pa.decimal128(9, 2)),
            "d18": pa.array([decimal.Decimal("1.00")], pa.decimal128(18, 2)),
            "d38": pa.array([decimal.Decimal("1.00")], pa.decimal128(38, 2)),
            "t3": pa.array([0], pa.timestamp("ms")),
            "t6": pa.array([0], pa.timestamp("us")),
            "l3": pa.array([0], pa.timestamp("ms", "UTC")),
            "i8": pa.array([1], pa.int8()),
            "i16": pa.array([1], pa.int16()),
            "tm": pa.array([datetime.time(1, 2, 3)], pa.time32("ms")),
        }
    )
    path = str(tmp_path / "data-u-0.parquet")
    write_data_file(file_io(str(tmp_path)), path, table, schema=schema, first_sequence_number=0)
    lines = [line.strip() for line in _parquet_schema_lines(path)]
    assert lines[:-1] == [
        "optional int32 field_id=0 d9 (Decimal(precision=9, scale=2));",
        "optional int64 field_id=1 d18 (Decimal(precision=18, scale=2));",
        "optional fixed_len_byte_array(16) field_id=2 d38 (Decimal(precision=38, scale=2));",
        "optional int64 field_id=3 t3 (Timestamp(isAdjustedToUTC=false, timeUnit=milliseconds, "
        "is_from_converted_type=false, force_set_converted_type=false));",
        "optional int64 field_id=4 t6 (Timestamp(isAdjustedToUTC=false, timeUnit=microseconds, "
        "is_from_converted_type=false, force_set_converted_type=false));",
        "optional int64 field_id=5 l3 (Timestamp(isAdjustedToUTC=true, timeUnit=milliseconds, "
        "is_from_converted_type=false, force_set_converted_type=false));",
        "optional int32 field_id=6 i8 (Int(bitWidth=8, isSigned=true));",
        "optional int32 field_id=7 i16 (Int(bitWidth=16, isSigned=true));",
        # parquet-mr's TIME_MILLIS reads as isAdjustedToUTC=true; pyarrow cannot set it (readers
        # ignore it)
        "optional int32 field_id=8 tm (Time(isAdjustedToUTC=false, timeUnit=milliseconds));",
    ]


def test_nanosecond_timestamps_are_int96_and_mixing_is_refused(tmp_path):
    schema = _schema([("t9", "TIMESTAMP(9)")])
    path = str(tmp_path / "data-u-0.parquet")
    table = pa.table({"t9": pa.array([1_000_000_001], pa.timestamp("ns"))})
    write_data_file(file_io(str(tmp_path)), path, table, schema=schema, first_sequence_number=0)
    assert "int96 field_id=0 t9" in str(pq.ParquetFile(path).schema)
    mixed = _schema([("t9", "TIMESTAMP(9)"), ("t3", "TIMESTAMP(3)")])
    table = table.append_column("t3", pa.array([0], pa.timestamp("ms")))
    with pytest.raises(UnsupportedFeatureError):
        write_data_file(file_io(str(tmp_path)), path, table, schema=mixed, first_sequence_number=0)


def test_not_null_and_missing_columns_are_schema_errors(tmp_path):
    path = str(tmp_path / "data-u-0.parquet")
    with pytest.raises(SchemaError, match="NOT NULL"):
        write_data_file(
            file_io(str(tmp_path)),
            path,
            pa.table({"id": pa.array([None], pa.int64())})
            .append_column("name", pa.array(["x"]))
            .append_column("price", pa.array([None], pa.decimal128(10, 2)))
            .append_column("ts", pa.array([None], pa.timestamp("ms"))),
            schema=PK,
            first_sequence_number=0,
        )
    with pytest.raises(SchemaError, match="lacks column"):
        write_data_file(
            file_io(str(tmp_path)), path, pa.table({"id": [1]}), schema=PK, first_sequence_number=0
        )


# --- DataFileMeta ---------------------------------------------------------------------------------


def test_meta_of_pk_file(tmp_path):
    path = str(tmp_path / "bucket-0" / data_file_name("u", 0, "parquet"))
    meta = write_data_file(
        file_io(str(tmp_path)), path, ROWS, schema=PK, first_sequence_number=10, level=0
    )
    bigint = PK.field("id").type
    assert meta.file_name == "data-u-0.parquet"
    assert (meta.row_count, meta.delete_row_count) == (3, 1)
    assert (meta.min_sequence_number, meta.max_sequence_number) == (10, 12)
    assert meta.min_key == encode_row([1], [bigint])
    assert meta.max_key == encode_row([3], [bigint])
    assert decode_row(meta.key_stats.max_values, [bigint]) == (3,)
    assert meta.value_stats.null_counts == (0, 1, 1, 2)
    assert meta.value_stats_cols is None
    assert (meta.level, meta.file_source, meta.extra_files, meta.schema_id) == (
        0,
        FileSource.APPEND,
        (),
        0,
    )
    assert isinstance(meta.creation_time, int)
    now = datetime.datetime.now()
    written = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=meta.creation_time)
    assert abs((now - written).total_seconds()) < 60  # local wall clock, not UTC


def test_meta_of_append_file(tmp_path):
    schema = _schema([("a", "INT"), ("b", "STRING")])
    path = str(tmp_path / "data-u-0.orc")
    meta = write_data_file(
        file_io(str(tmp_path)),
        path,
        pa.table({"a": [3, 1], "b": ["x", "y"]}),
        schema=schema,
        first_sequence_number=7,
    )
    assert (meta.min_key, meta.max_key) == (EMPTY_ROW, EMPTY_ROW)
    assert (meta.min_sequence_number, meta.max_sequence_number, meta.delete_row_count) == (7, 8, 0)
    assert decode_row(meta.value_stats.min_values, [f.type for f in schema.fields]) == (1, "x")


# --- ORC and Avro ---------------------------------------------------------------------------------


def test_orc_round_trip(tmp_path):
    path = str(tmp_path / "data-u-0.orc")
    write_data_file(file_io(str(tmp_path)), path, ROWS, schema=PK, first_sequence_number=0)
    got = orc.ORCFile(path)
    assert got.schema.names == physical_schema(PK).names
    assert got.compression == "ZSTD"
    table = got.read()
    assert table.column("_SEQUENCE_NUMBER").to_pylist() == [0, 1, 2]
    assert table.column("_VALUE_KIND").type == pa.int8()
    assert table.column("name").to_pylist() == ["apple", None, "cherry"]


def test_avro_schema_follows_paimon_conventions(tmp_path):
    path = str(tmp_path / "data-u-0.avro")
    write_data_file(file_io(str(tmp_path)), path, ROWS, schema=PK, first_sequence_number=0)
    with open(path, "rb") as fh:
        reader = fastavro.reader(fh)
        records = list(reader)
        raw = json.loads(reader.metadata["avro.schema"])
        codec = reader.metadata["avro.codec"]
    assert codec == "zstandard"
    # a plain top-level record, as Paimon 1.x writes (0.9 wrapped it in ["null", record])
    assert isinstance(raw, dict)
    assert raw["type"] == "record"
    record = raw
    assert record["name"].endswith("org.apache.paimon.avro.generated.record")
    fields = {f["name"]: f for f in record["fields"]}
    assert list(fields) == physical_schema(PK).names
    assert fields["_KEY_id"]["type"] == "long"
    assert "default" not in fields["_KEY_id"]
    assert fields["_VALUE_KIND"]["type"] == "int"
    assert fields["name"] == {"name": "name", "type": ["null", "string"], "default": None}
    assert fields["ts"]["type"][1] == {"type": "long", "logicalType": "timestamp-millis"}
    assert records[0]["price"] == decimal.Decimal("1.50")
    assert records[2]["_VALUE_KIND"] == 3


def test_avro_matches_java_pk_avro_fixture_schema(tmp_path):
    """Same record schema as Java 0.9's Avro data file of the same table; 0.9 wraps it in
    ``["null", record]``, 1.x writes it plain as we do (tests/interop/flink compares with 1.3)."""
    base = FIXTURES / "generated-paimon-java-0.9/warehouse/db.db/pk_avro"
    schema = schema_from_json((base / "schema" / "schema-0").read_text())
    java = sorted((base / "bucket-0").glob("*.avro"))[0]
    with open(java, "rb") as fh:
        java_reader = fastavro.reader(fh)
        java_records = list(java_reader)
        java_schema = java_reader.writer_schema
    table = pa.Table.from_pylist(java_records)
    path = str(tmp_path / "data-u-0.avro")
    write_data_file(file_io(str(tmp_path)), path, table, schema=schema, first_sequence_number=0)
    with open(path, "rb") as fh:
        ours = fastavro.reader(fh)
        assert java_schema[0] == "null"
        assert ours.writer_schema == java_schema[1]
        assert list(ours) == java_records


def test_avro_nested_values(tmp_path):
    schema = _schema(
        [
            ("tags", {"type": "ARRAY", "element": "STRING"}),
            ("attrs", {"type": "MAP", "key": "STRING NOT NULL", "value": "INT"}),
            ("ids", {"type": "MAP", "key": "INT NOT NULL", "value": "STRING"}),
            ("r", {"type": "ROW", "fields": [{"id": 10, "name": "a", "type": "INT"}]}),
            ("d", "DATE"),
        ]
    )
    table = pa.table(
        {
            "tags": [["x", None], None],
            "attrs": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int32())),
            "ids": pa.array([[(1, "one")], None], pa.map_(pa.int32(), pa.string())),
            "r": [{"a": 5}, None],
            "d": [datetime.date(2024, 1, 2), None],
        }
    )
    path = str(tmp_path / "data-u-0.avro")
    write_data_file(file_io(str(tmp_path)), path, table, schema=schema, first_sequence_number=0)
    with open(path, "rb") as fh:
        records = list(fastavro.reader(fh))
    assert records[0] == {
        "tags": ["x", None],
        "attrs": {"k": 1},
        "ids": [{"key": 1, "value": "one"}],
        "r": {"a": 5},
        "d": datetime.date(2024, 1, 2),
    }
    assert records[1] == dict.fromkeys(records[1])


# --- read back through paimon_sql -----------------------------------------------------------------


def _commit_by_hand(root: str, schema: TableSchema, metas, partition=EMPTY_ROW) -> None:
    """A minimal snapshot over `metas` (one manifest, one delta list, an empty base list)."""
    fio = file_io(root)
    fio.write_bytes(os.path.join(root, "schema", "schema-0"), schema_to_json(schema).encode())
    entries = [
        manifest_entry_to_record(
            ManifestEntry(
                kind=FileKind.ADD,
                partition=partition,
                bucket=0,
                total_buckets=schema.bucket,
                file=m,
            )
        )
        for m in metas
    ]
    manifest = encode_avro(entries, MANIFEST_ENTRY_SCHEMA)
    fio.write_bytes(os.path.join(root, "manifest", "manifest-t-0"), manifest)
    listed = ManifestFileMeta(
        file_name="manifest-t-0",
        file_size=len(manifest),
        num_added_files=len(metas),
        num_deleted_files=0,
        partition_stats=row_stats([()], []),
        schema_id=0,
        min_bucket=0,
        max_bucket=0,
        min_level=0,
        max_level=0,
    )
    delta = encode_avro([manifest_file_meta_to_record(listed)], MANIFEST_FILE_META_SCHEMA)
    base = encode_avro([], MANIFEST_FILE_META_SCHEMA)
    fio.write_bytes(os.path.join(root, "manifest", "manifest-list-t-0"), base)
    fio.write_bytes(os.path.join(root, "manifest", "manifest-list-t-1"), delta)
    rows = sum(m.row_count for m in metas)
    snapshot = Snapshot(
        id=1,
        schema_id=0,
        base_manifest_list="manifest-list-t-0",
        delta_manifest_list="manifest-list-t-1",
        commit_user="test",
        commit_identifier=2**63 - 1,
        commit_kind=CommitKind.APPEND,
        time_millis=0,
        total_record_count=rows,
        delta_record_count=rows,
    )
    fio.write_bytes(
        os.path.join(root, "snapshot", "snapshot-1"), snapshot_to_json(snapshot).encode()
    )
    fio.write_bytes(os.path.join(root, "snapshot", "LATEST"), b"1")


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_pk_files_read_back_through_paimon_sql(tmp_path, fmt):
    """Two level-0 files of a PK table: the newer one updates id 2 and deletes id 3."""
    root = str(tmp_path / "db.db" / "t")
    bucket = os.path.join(root, "bucket-0")
    first = pa.table(
        {
            "id": [1, 2, 3],
            "name": ["a", "b", "c"],
            "price": pa.array([None] * 3, pa.decimal128(10, 2)),
            "ts": pa.array([None] * 3, pa.timestamp("ms")),
        }
    )
    second = ROWS.slice(1)  # id 2 (+I, name NULL), id 3 (-D)
    fio = file_io(root)
    m1 = write_data_file(
        fio,
        os.path.join(bucket, data_file_name("u", 0, fmt)),
        first,
        schema=PK,
        first_sequence_number=0,
    )
    m2 = write_data_file(
        fio,
        os.path.join(bucket, data_file_name("u", 1, fmt)),
        second,
        schema=PK,
        first_sequence_number=3,
    )
    _commit_by_hand(root, PK, [m1, m2])
    session = paimon_sql.connect(str(tmp_path))
    got = session.sql('SELECT id, name, price FROM "db"."t" ORDER BY id').fetchall()
    assert got == [(1, "a", None), (2, None, decimal.Decimal("2.00"))]


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_append_file_reads_back_through_paimon_sql(tmp_path, fmt):
    schema = _schema(
        [("a", "INT"), ("s", "STRING"), ("d", "DATE"), ("t", "TIMESTAMP(6)")], bucket="-1"
    )
    table = pa.table(
        {
            "a": pa.array([1, None], pa.int32()),
            "s": ["x", None],
            "d": [datetime.date(2024, 5, 14), None],
            "t": pa.array(
                [datetime.datetime(2024, 5, 14, 1, 2, 3, 456789), None], pa.timestamp("us")
            ),
        }
    )
    root = str(tmp_path / "db.db" / "t")
    meta = write_data_file(
        file_io(root),
        os.path.join(root, "bucket-0", data_file_name("u", 0, fmt)),
        table,
        schema=schema,
        first_sequence_number=0,
    )
    _commit_by_hand(root, schema, [meta])
    got = paimon_sql.connect(str(tmp_path)).sql('SELECT * FROM "db"."t" ORDER BY a').fetchall()
    assert got == [
        (1, "x", datetime.date(2024, 5, 14), datetime.datetime(2024, 5, 14, 1, 2, 3, 456789)),
        (None, None, None, None),
    ]


def test_unsupported_format(tmp_path):
    with pytest.raises(UnsupportedFeatureError):
        write_data_file(
            file_io(str(tmp_path)),
            str(tmp_path / "data-u-0.csv"),
            ROWS,
            schema=PK,
            first_sequence_number=0,
        )


def test_encode_is_in_memory_container(tmp_path):
    path = str(tmp_path / "data-u-0.parquet")
    write_data_file(file_io(str(tmp_path)), path, ROWS, schema=PK, first_sequence_number=0)
    with open(path, "rb") as fh:
        assert pq.read_table(io.BytesIO(fh.read())).num_rows == 3
