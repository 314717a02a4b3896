"""System tables on the Java-written 0.9 fixtures.

Expected values were read off the metadata files and confirmed against Paimon 0.9's own output
(``SELECT * FROM paimon.db.`t$...``` through Spark on a copy of the same warehouse).
"""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pytest

from paimon_sql.catalog import Catalog
from paimon_sql.catalog.system_tables import (
    CATALOG_TABLES,
    SYSTEM_TABLES,
    catalog_table,
    java_double,
    local_time,
    split_system_name,
    system_table,
)
from paimon_sql.errors import TableNotFoundError, UnsupportedFeatureError
from paimon_sql.plan.scan import plan_scan
from paimon_sql.plan.system import read_optimized_filter
from paimon_sql.sql.data_tables import read_data_table
from tests.fixtures import FIXTURES

WAREHOUSE = FIXTURES / "generated-paimon-java-0.9" / "warehouse"
pytestmark = pytest.mark.skipif(not WAREHOUSE.is_dir(), reason="Java fixtures not present")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog(WAREHOUSE)


def rows(catalog: Catalog, table: str, name: str, **kw) -> list[dict]:
    return system_table(catalog.load_table(f"db.{table}"), name, **kw).to_pylist()


def test_every_system_table_builds_with_its_declared_schema(catalog):
    for table in ("pk_dedup", "pk_dv", "append_tags", "pk_part_dv", "pk_agg"):
        for name in SYSTEM_TABLES:
            if name == "row_tracking":  # these tables have no row tracking: refused, as in Java
                with pytest.raises(UnsupportedFeatureError, match=r"row-tracking\.enabled"):
                    system_table(catalog.load_table(f"db.{table}"), name, read_data=read_data_table)
                continue
            result = system_table(
                catalog.load_table(f"db.{table}"), name, read_data=read_data_table
            )
            assert isinstance(result, pa.Table)
            if name not in ("audit_log", "ro"):
                assert result.schema.names  # declared columns, even when empty


def test_snapshots_schema_and_values(catalog):
    t = system_table(catalog.load_table("db.pk_dv"), "snapshots")
    assert [(f.name, str(f.type), f.nullable) for f in t.schema] == [
        ("snapshot_id", "int64", False),
        ("schema_id", "int64", False),
        ("commit_user", "string", False),
        ("commit_identifier", "int64", False),
        ("commit_kind", "string", False),
        ("commit_time", "timestamp[ms]", False),
        ("base_manifest_list", "string", False),
        ("delta_manifest_list", "string", False),
        ("changelog_manifest_list", "string", True),
        ("total_record_count", "int64", True),
        ("delta_record_count", "int64", True),
        ("changelog_record_count", "int64", True),
        ("watermark", "int64", True),
    ]
    got = t.to_pylist()
    assert [r["snapshot_id"] for r in got] == [1, 2, 3, 4, 5, 6]
    assert [r["commit_kind"] for r in got] == ["APPEND", "COMPACT"] * 3
    assert [r["total_record_count"] for r in got] == [3, 3, 5, 5, 6, 6]
    raw = json.loads((WAREHOUSE / "db.db/pk_dv/snapshot/snapshot-1").read_text())
    assert got[0]["commit_time"] == local_time(raw["timeMillis"])
    assert got[0]["commit_identifier"] == 9223372036854775807
    assert got[0]["changelog_manifest_list"] is None
    assert got[0]["watermark"] is None


def test_schemas_json_and_hash_map_option_order(catalog):
    (row,) = rows(catalog, "pk_agg", "schemas")
    assert row["fields"] == (
        '[{"id":0,"name":"id","type":"INT NOT NULL"},{"id":1,"name":"name","type":"STRING"},'
        '{"id":2,"name":"v","type":"BIGINT"}]'
    )
    assert row["primary_keys"] == '["id"]'
    assert row["partition_keys"] == "[]"
    # Java prints a HashMap, not the file's (sorted) order
    assert row["options"] == (
        '{"bucket":"1","merge-engine":"aggregation",'
        '"fields.name.aggregate-function":"listagg","fields.v.aggregate-function":"sum"}'
    )
    assert [r["key"] for r in rows(catalog, "pk_agg", "options")] == [
        "bucket",
        "merge-engine",
        "fields.name.aggregate-function",
        "fields.v.aggregate-function",
    ]
    evolved = sorted(rows(catalog, "append_tags", "schemas"), key=lambda r: r["schema_id"])
    assert [r["schema_id"] for r in evolved] == [0, 1]
    assert '"name":"extra"' in evolved[1]["fields"]


def test_tags(catalog):
    got = sorted(rows(catalog, "append_tags", "tags"), key=lambda r: r["tag_name"])
    assert [(r["tag_name"], r["snapshot_id"], r["schema_id"], r["record_count"]) for r in got] == [
        ("tag1", 1, 0, 3),
        ("tag2", 2, 0, 5),
    ]
    assert got[0]["create_time"] is None
    assert got[0]["time_retained"] is None
    snap = catalog.load_table("db.append_tags").snapshot(1)
    assert got[0]["commit_time"] == local_time(snap.time_millis)


def test_files_partitioned_with_java_renderings(catalog):
    got = sorted(rows(catalog, "pk_part_dv", "files"), key=lambda r: (r["partition"], r["bucket"]))
    assert [(r["partition"], r["bucket"], r["level"], r["min_key"]) for r in got] == [
        ("[2024-01-01]", 0, 5, "[1]"),
        ("[2024-01-02]", 0, 5, "[2]"),
        ("[2024-01-02]", 1, 5, "[3]"),
    ]
    first = got[0]
    assert first["null_value_counts"] == "{dt=0, id=0, name=0}"
    assert first["min_value_stats"] == "{dt=2024-01-01, id=1, name=a2}"
    assert first["file_format"] == "parquet"
    assert first["file_path"].startswith("data-")
    assert first["file_path"].endswith(".parquet")
    assert (first["min_sequence_number"], first["max_sequence_number"]) == (1, 1)


def test_files_stats_follow_schema_evolution(catalog):
    got = {
        r["schema_id"]: r for r in rows(catalog, "append_tags", "files") if r["record_count"] != 2
    }
    # a column added later is all null in old files (null count = row count); no keys (append)
    assert got[0]["null_value_counts"] == "{extra=3, id=0, name=0, v=0}"
    assert got[0]["min_value_stats"] == "{extra=null, id=1, name=a, v=10}"
    assert got[0]["min_key"] is None
    assert got[0]["max_key"] is None
    assert got[1]["max_value_stats"] == "{extra=x, id=9, name=z, v=90}"


def test_files_and_manifests_at_a_chosen_snapshot(catalog):
    table = catalog.load_table("db.pk_dedup")
    assert len(system_table(table, "files")) == 3
    assert len(system_table(table, "files", table.snapshot(1))) == 1
    assert len(system_table(table, "manifests", table.snapshot(1))) == 1
    manifests = rows(catalog, "pk_dv", "manifests")
    assert [(m["num_added_files"], m["num_deleted_files"]) for m in manifests] == [
        (1, 0), (1, 1), (1, 0), (1, 1), (1, 0), (1, 1),
    ]  # fmt: skip


def test_partitions_and_buckets(catalog):
    parts = sorted(rows(catalog, "pk_part_dv", "partitions"), key=lambda r: r["partition"])
    assert [
        (p["partition"], p["record_count"], p["file_size_in_bytes"], p["file_count"]) for p in parts
    ] == [
        ("[2024-01-01]", 1, 1220, 1),
        ("[2024-01-02]", 2, 2426, 2),
    ]
    buckets = rows(catalog, "pk_part_dv", "buckets")
    assert sorted((b["partition"], b["bucket"], b["file_count"]) for b in buckets) == [
        ("[2024-01-01]", 0, 1),
        ("[2024-01-02]", 0, 1),
        ("[2024-01-02]", 1, 1),
    ]
    (whole,) = rows(catalog, "pk_dedup", "partitions")
    assert (whole["partition"], whole["record_count"], whole["file_count"]) == ("[]", 6, 3)


def test_table_indexes_lists_deletion_vector_files(catalog):
    table = catalog.load_table("db.pk_dv")
    got = system_table(table, "table_indexes")
    assert got.schema.field("dv_ranges").type == pa.list_(
        pa.struct(
            [
                pa.field("f0", pa.string(), False),
                pa.field("f1", pa.int32(), False),
                pa.field("f2", pa.int32(), False),
                pa.field("_CARDINALITY", pa.int64(), True),
            ]
        )
    )
    entries = table.index_manifest(table.latest_snapshot().index_manifest)
    assert [r["file_name"] for r in got.to_pylist()] == [e.index_file.file_name for e in entries]
    for r in got.to_pylist():
        assert r["partition"] == "{}"
        assert r["index_type"] == "DELETION_VECTORS"
        assert all(d["f0"].startswith("data-") for d in r["dv_ranges"])
    assert rows(catalog, "pk_dedup", "table_indexes") == []


def test_consumers(tmp_path, catalog):
    assert rows(catalog, "pk_dedup", "consumers") == []
    shutil.copytree(WAREHOUSE, tmp_path / "wh")
    consumer = tmp_path / "wh/db.db/pk_dedup/consumer"
    consumer.mkdir()
    (consumer / "consumer-job1").write_text('{"nextSnapshot": 3}')
    got = rows(Catalog(tmp_path / "wh"), "pk_dedup", "consumers")
    assert got == [{"consumer_id": "job1", "next_snapshot_id": 3}]


def test_aggregation_fields(catalog):
    got = rows(catalog, "pk_agg", "aggregation_fields")
    assert [
        (r["field_name"], r["field_type"], r["function"], r["function_options"]) for r in got
    ] == [
        ("id", "INT NOT NULL", "[]", "[]"),
        ("name", "STRING", "[listagg]", "[fields.name.aggregate-function]"),
        ("v", "BIGINT", "[sum]", "[fields.v.aggregate-function]"),
    ]


def test_audit_log_prepends_rowkind(catalog):
    t = read_data_table(catalog.load_table("db.pk_dedup"), "audit_log")
    assert [(f.name, str(f.type), f.nullable) for f in t.schema] == [
        ("rowkind", "string", True),
        ("id", "int32", False),
        ("name", "string", True),
        ("v", "int64", True),
    ]
    assert sorted(t.to_pylist(), key=lambda r: r["id"]) == [
        {"rowkind": "+I", "id": 1, "name": "a2", "v": None},
        {"rowkind": "+I", "id": 2, "name": None, "v": 25},
        {"rowkind": "+I", "id": 3, "name": "c", "v": 30},
        {"rowkind": "+I", "id": 4, "name": "d", "v": 40},
    ]


def test_read_optimized(catalog):
    # pk_dedup has only level-0 files: nothing is compacted to the top level yet
    assert read_data_table(catalog.load_table("db.pk_dedup"), "ro").num_rows == 0
    # deletion-vector tables: Java's level > 0 batch filter wins, $ro equals the normal read
    assert read_data_table(catalog.load_table("db.pk_dv"), "ro").num_rows == 4
    assert read_data_table(catalog.load_table("db.append_tags"), "ro").num_rows == 6
    top = read_data_table(catalog.load_table("db.pk_part_dv"), "ro")
    assert sorted(top.column("id").to_pylist()) == [1, 2, 3]


@pytest.mark.parametrize(
    "options",
    [
        "'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'",
        "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', "
        "'aggregation.remove-record-on-delete' = 'true'",
    ],
)
def test_audit_log_shows_the_delete_a_merge_ends_with(tmp_path, options):
    """remove-record-on-delete: a key whose records end with a -D shows as Java's merge function
    returns it (Flink's audit log): -D, its NULLable fields NULL (``initRow``); a lone -D as
    written. It was left out."""
    import paimon_sql

    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (k INT NOT NULL, v STRING, n INT, PRIMARY KEY (k) NOT ENFORCED) "
        f"WITH ('bucket' = '1', {options})"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a', 1), (2, 'b', 2)")
    session.sql("DELETE FROM db.t WHERE k = 1")
    rows = sorted(session.sql("SELECT * FROM db.t$audit_log").fetchall())
    assert rows == [("+I", 2, "b", 2), ("-D", 1, None, None)]


def test_data_tables_need_a_reader(catalog):
    # the catalog builds metadata only: the rows of $audit_log / $ro come from the reader it is
    # given
    table = catalog.load_table("db.pk_dedup")
    with pytest.raises(UnsupportedFeatureError, match="rows"):
        system_table(table, "ro")
    got = system_table(table, "AUDIT_LOG", read_data=lambda t, name, snap: pa.table({"n": [name]}))
    assert got.to_pylist() == [{"n": "audit_log"}]


def test_read_optimized_filter_keeps_only_top_level(catalog):
    table = catalog.load_table("db.pk_dedup")
    plan = plan_scan(table, table.latest_snapshot())
    assert plan.splits
    assert not read_optimized_filter(plan).splits


def test_unknown_names(catalog):
    with pytest.raises(TableNotFoundError, match="snapshots, schemas"):
        system_table(catalog.load_table("db.pk_dedup"), "snapshotz")
    with pytest.raises(TableNotFoundError, match="tables"):
        catalog_table(catalog, "nope")
    with pytest.raises(TableNotFoundError):
        split_system_name("t$bogus")
    assert split_system_name("t$FILES") == ("t", "files")


def test_sys_tables_and_partitions(catalog):
    tables = catalog_table(catalog, "tables").to_pylist()
    by_name = {r["table_name"]: r for r in tables}
    assert set(by_name) == set(catalog.tables("db"))
    assert by_name["pk_part_dv"]["partitioned"] is True
    assert by_name["pk_part_dv"]["primary_key"] is True
    assert by_name["append_tags"]["primary_key"] is False
    assert by_name["pk_dedup"]["table_type"] == "table"
    assert by_name["pk_dedup"]["owner"] is None
    parts = catalog_table(catalog, "partitions").to_pylist()
    assert sorted((p["table_name"], p["partition_name"], p["recordCount"]) for p in parts) == [
        ("pk_part_dv", "dt=2024-01-01", 1),
        ("pk_part_dv", "dt=2024-01-02", 2),
    ]
    assert all(p["done"] is False for p in parts)
    options = catalog_table(catalog, "all_table_options").to_pylist()
    assert {
        "database_name": "db",
        "table_name": "pk_agg",
        "key": "merge-engine",
        "value": "aggregation",
    } in options
    assert set(CATALOG_TABLES) == {"tables", "partitions", "all_table_options"}


@pytest.mark.parametrize(
    ("value", "single", "text"),
    [
        (1.5, False, "1.5"),
        (100.0, False, "100.0"),
        (1e7, False, "1.0E7"),
        (12345678.9, False, "1.23456789E7"),
        (0.001, False, "0.001"),
        (-2.5e-5, False, "-2.5E-5"),
        (0.0, False, "0.0"),
        (float("nan"), False, "NaN"),
        (3.14, True, "3.14"),
    ],
)
def test_java_double(value, single, text):
    assert java_double(value, single=single) == text
