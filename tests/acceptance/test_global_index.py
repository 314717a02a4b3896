"""Java 1.4's global indexes (``_GLOBAL_INDEX`` in index manifests) read, kept and guarded.

The table is ``generated-paimon-java-1.4.2``'s ``db.global_index`` (written by Apache Paimon 1.4.2
through its Java API, `tests.interop.paimon20.global_index`): a partitioned data-evolution table
with a bitmap index on ``name`` and a btree index on ``k`` over row ids 0..5, then two rows more.
``java_truth.json`` holds Java's reads. No JVM here; ``tests/interop/paimon20/test_global_index.py``
re-derives the table and checks our writes against Java.
"""

from __future__ import annotations

import io
import json
import shutil
from typing import TYPE_CHECKING, Any

import fastavro
import pytest

import paimon_sql
from paimon_sql import errors
from paimon_sql.commit.expire import live_entries
from paimon_sql.commit.plan import CommitMessage
from paimon_sql.commit.publish import Committer
from paimon_sql.format.avro_schemas import index_manifest_schema
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.manifest import (
    index_manifest_entry_from_record,
    index_manifest_entry_to_record,
)
from paimon_sql.io.records import decode_records, encode_avro
from paimon_sql.types import parse_type
from tests.fixtures import FIXTURES
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

ROOT = FIXTURES / "generated-paimon-java-1.4.2"
TABLE_DIR = ROOT / "warehouse" / "db.db" / "global_index"
TRUTH = json.loads((ROOT / "java_truth.json").read_text())["global_index"]


def _latest_index_manifest(table_dir: Path) -> Path:
    latest = (table_dir / "snapshot" / "LATEST").read_text().strip()
    snap = json.loads((table_dir / "snapshot" / f"snapshot-{latest}").read_text())
    name: str = snap["indexManifest"]
    return table_dir / "manifest" / name


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """A private copy of the Java-written warehouse (tests write into it)."""
    target = tmp_path / "warehouse"
    shutil.copytree(ROOT / "warehouse", target)
    return target


def _session(warehouse: Path) -> Any:
    return paimon_sql.connect(warehouse)


def _partition(entry: Any) -> str:
    (value,) = decode_row(entry.partition, [parse_type("STRING")])
    return str(value)


def _global(table: Any) -> list[Any]:
    snap = table.latest_snapshot()
    if snap.index_manifest is None:
        return []
    return [e for e in table.index_manifest(snap.index_manifest) if e.index_file.global_index]


def test_global_index_entries_decode_like_java_wrote_them(warehouse: Path):
    """Every ``_GLOBAL_INDEX`` field decoded; a range is its partition's row ids at index time."""
    session = _session(warehouse)
    try:
        table = session.table("db.global_index")
        fields = {f.name: f.id for f in table.latest_schema.fields}
        entries = _global(table)
        assert sorted((e.index_file.index_type, _partition(e)) for e in entries) == [
            ("bitmap", "a"),
            ("bitmap", "b"),
            ("btree", "a"),
            ("btree", "b"),
        ]
        # the row ids of each partition's files at snapshot 2 (before the index), from Java's
        # manifests: the index covers exactly them
        ranges: dict[str, tuple[int, int]] = {}
        for e in live_entries(table, table.snapshot(2)):
            first = e.file.first_row_id
            assert first is not None
            ranges[_partition(e)] = (first, first + e.file.row_count - 1)
        for e in entries:
            meta = e.index_file.global_index
            assert (meta.row_range_start, meta.row_range_end) == ranges[_partition(e)]
            column = "name" if e.index_file.index_type == "bitmap" else "k"
            assert meta.index_field_id == fields[column]
            assert meta.extra_field_ids is None
            assert e.index_file.row_count == 3
            assert e.index_file.dv_ranges is None
            assert e.index_file.external_path is None
            # Java's btree keeps its key range as index meta; the bitmap none
            assert (meta.index_meta is None) == (e.index_file.index_type == "bitmap")
    finally:
        session.close()


def test_index_manifest_round_trip_is_byte_identical_to_java():
    """Decode, encode: the same records, the same writer schema and the same data blocks."""
    path = _latest_index_manifest(TABLE_DIR)
    data = path.read_bytes()
    raw = decode_records(data, str(path))
    records = [index_manifest_entry_to_record(index_manifest_entry_from_record(r)) for r in raw]
    assert records == raw  # field for field, _GLOBAL_INDEX included
    ours = encode_avro(records, index_manifest_schema(records))
    java_reader, our_reader = (fastavro.reader(io.BytesIO(b)) for b in (data, ours))
    schema: Any = our_reader.writer_schema
    assert schema == java_reader.writer_schema
    nested = [f for f in schema["fields"] if f["name"] == "_GLOBAL_INDEX"]
    assert nested[0]["type"][0] == "null"
    assert nested[0]["type"][1]["name"].endswith(".record__GLOBAL_INDEX")

    def blocks(raw_bytes: bytes) -> bytes:
        return b"".join(
            b.bytes_.getvalue()  # type: ignore[attr-defined]  # fastavro's Block has bytes_
            for b in fastavro.block_reader(io.BytesIO(raw_bytes))
        )

    assert blocks(ours) == blocks(data)


DAMAGE = [
    ("_ROW_RANGE_END", -1, "end lies before its start"),
    ("_ROW_RANGE_START", None, "lacks the field _ROW_RANGE_START"),
    ("_INDEX_FIELD_ID", -3, "_INDEX_FIELD_ID is negative"),
    ("_EXTRA_FIELD_IDS", [1, -2], "extra field id -2"),
]


@pytest.mark.parametrize(("key", "value", "message"), DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damaged_global_index_is_named(warehouse: Path, key: str, value: Any, message: str):
    """A damaged ``_GLOBAL_INDEX`` raises `CorruptFileError` naming the index manifest."""
    path = _latest_index_manifest(warehouse / "db.db" / "global_index")
    raw = decode_records(path.read_bytes(), str(path))
    raw[0]["_GLOBAL_INDEX"][key] = value
    schema = json.loads(json.dumps(index_manifest_schema(raw)))
    if value is None:  # a writer that lost the field: the record no longer has it
        fields = schema["fields"][-1]["type"][1]["fields"]
        fields[:] = [f for f in fields if f["name"] != key]
        for rec in raw:
            del rec["_GLOBAL_INDEX"][key]
    path.write_bytes(encode_avro(raw, schema))
    session = _session(warehouse)
    try:
        table = session.table("db.global_index")
        with pytest.raises(errors.CorruptFileError) as info:
            table.index_manifest(table.latest_snapshot().index_manifest)
        assert path.name in str(info.value)
        assert message in str(info.value)
    finally:
        session.close()


def test_global_index_type_without_global_meta_is_damage(warehouse: Path):
    """A bitmap entry that lost its ``_GLOBAL_INDEX`` is an unknown index type: named."""
    path = _latest_index_manifest(warehouse / "db.db" / "global_index")
    raw = decode_records(path.read_bytes(), str(path))
    raw[0]["_GLOBAL_INDEX"] = None
    path.write_bytes(encode_avro(raw, index_manifest_schema(raw)))
    session = _session(warehouse)
    try:
        table = session.table("db.global_index")
        with pytest.raises(errors.CorruptFileError, match="unknown _INDEX_TYPE") as info:
            table.index_manifest(table.latest_snapshot().index_manifest)
        assert path.name in str(info.value)
    finally:
        session.close()


def test_table_indexes_lists_global_index_files_like_java(warehouse: Path):
    session = _session(warehouse)
    try:
        relation = session.sql('SELECT * FROM db."global_index$table_indexes"')
        columns, rows = arrow_rows(relation.to_arrow_table())
        assert columns == TRUTH["table_indexes_columns"]
        assert_same_rows(rows, TRUTH["table_indexes"], context="$table_indexes")
    finally:
        session.close()


EQUAL_QUERY = {
    "name": "SELECT * FROM db.global_index WHERE name = ?",
    "k": "SELECT * FROM db.global_index WHERE k = ?",
}
NULL_QUERY = {
    "name": "SELECT * FROM db.global_index WHERE name IS NULL",
    "k": "SELECT * FROM db.global_index WHERE k IS NULL",
}


def test_reads_and_filters_are_complete(warehouse: Path):
    """Rows as Java reads them; a filter answers every matching row.

    Java 1.4.2 answers a filter through the global index, which covers only the rows indexed (ids
    0..5): the two rows written after it (``id`` 7 and 8) are missing from Java's answers
    (recorded in the truth file). paimon-sql reads the data itself, so its answers are the full
    ones, a superset of Java's.
    """
    session = _session(warehouse)
    try:
        _, rows = arrow_rows(session.sql("SELECT * FROM db.global_index").to_arrow_table())
        assert_same_rows(rows, TRUTH["rows"], context="global_index")
        for key, answer in TRUTH["queries"].items():
            if key.endswith(" IS NULL"):
                column = key.split()[0]
                expected = [r for r in TRUTH["rows"] if r[column] is None]
                relation = session.sql(NULL_QUERY[column])
            else:
                column, _, text = key.partition("=")
                typed: Any = int(text) if column == "k" else text
                expected = [r for r in TRUTH["rows"] if r[column] == typed]
                relation = session.sql(EQUAL_QUERY[column], params=[typed])
            _, ours = arrow_rows(relation.to_arrow_table())
            assert_same_rows(ours, expected, context=key)
            java_ids = {r["id"] for r in answer["rows"]}
            assert java_ids <= {r["id"] for r in ours}
            assert java_ids == {r["id"] for r in expected if r["id"] <= 6}  # Java's indexed ids
    finally:
        session.close()


# --- writes --------------------------------------------------------------------------------------


def _raw_global(path: Path, partition: str | None = None) -> list[dict[str, Any]]:
    records = [r for r in decode_records(path.read_bytes(), str(path)) if r["_GLOBAL_INDEX"]]
    if partition is not None:
        types = [parse_type("STRING")]
        records = [r for r in records if decode_row(r["_PARTITION"], types) == (partition,)]
    return sorted(records, key=lambda r: r["_FILE_NAME"])


def test_insert_keeps_java_global_indexes(warehouse: Path):
    """An INSERT gives new row ids: Java keeps its global index entries, and so do we (the
    snapshot keeps Java's index manifest)."""
    session = _session(warehouse)
    try:
        session.sql("INSERT INTO db.global_index VALUES (9, 'x', 10, 'a'), (10, 'q', 50, 'c')")
        table = session.table("db.global_index")
        ours = _latest_index_manifest(warehouse / "db.db" / "global_index")
        assert ours.name == _latest_index_manifest(TABLE_DIR).name
        assert len(_global(table)) == 4
        assert table.latest_snapshot().next_row_id == 10  # after every indexed range
    finally:
        session.close()


def test_overwrite_drops_the_global_indexes_of_replaced_partitions(warehouse: Path):
    """Java's overwrite drops every index file of the partitions it replaces; the others' records
    are rewritten field for field as Java wrote them."""
    session = _session(warehouse)
    try:
        session.sql("INSERT OVERWRITE db.global_index PARTITION (p = 'a') VALUES (11, 'x', 10)")
        ours = _latest_index_manifest(warehouse / "db.db" / "global_index")
        java = _latest_index_manifest(TABLE_DIR)
        assert ours.name != java.name
        assert _raw_global(ours) == _raw_global(java, "b")
        assert len(_raw_global(java, "b")) == 2
        session.sql("TRUNCATE TABLE db.global_index")
        assert _global(session.table("db.global_index")) == []
    finally:
        session.close()


def _listing(warehouse: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(warehouse)): p.read_bytes() for p in warehouse.rglob("*") if p.is_file()
    }


def test_commit_that_removes_indexed_rows_is_refused_unchanged(warehouse: Path):
    """Any commit deleting data files of an indexed partition (a rewrite) is refused by name,
    before anything is written: the guard sits in the committer, below every statement."""
    session = _session(warehouse)
    try:
        table = session.table("db.global_index")
        victim = next(
            e for e in live_entries(table, table.latest_snapshot()) if _partition(e) == "a"
        )
        before = _listing(warehouse)
        message = CommitMessage(
            partition=victim.partition,
            bucket=victim.bucket,
            total_buckets=victim.total_buckets,
            deleted_files=(victim.file,),
        )
        with pytest.raises(errors.UnsupportedFeatureError, match="global index") as info:
            Committer(table).commit([message])
        assert "drop_global_index" in str(info.value)
        assert _listing(warehouse) == before
    finally:
        session.close()


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM db.global_index WHERE id = 1",
        "UPDATE db.global_index SET name = 'w' WHERE id = 1",
        "MERGE INTO db.global_index t USING (SELECT 1 AS id) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET name = 'w'",
    ],
)
def test_row_rewrites_are_refused_unchanged(warehouse: Path, statement: str):
    before = _listing(warehouse)
    session = _session(warehouse)
    try:
        with pytest.raises(errors.UnsupportedFeatureError, match="row-tracking"):
            session.sql(statement)
    finally:
        session.close()
    assert _listing(warehouse) == before


def test_global_index_files_stay_in_index_folder_with_index_file_in_data_file_dir(
    warehouse: Path,
):
    """``index-file-in-data-file-dir`` moves bucket index files (DV, HASH), never global ones:
    Java's ``globalIndexFileFactory`` keeps them in ``index/``, where check_table finds them."""
    session = _session(warehouse)
    try:
        session.sql("ALTER TABLE db.global_index SET ('index-file-in-data-file-dir' = 'true')")
        assert session.sql("CALL sys.check_table(table => 'db.global_index')").fetchall() == []
    finally:
        session.close()


def test_tree_shows_global_index_ranges():
    from paimon_sql.catalog.tree import tree_lines

    session = paimon_sql.connect(ROOT / "warehouse")
    try:
        lines = tree_lines(session.table("db.global_index"))
    finally:
        session.close()
    shown = [line for line in lines if "global index of field" in line]
    assert len(shown) == 4
    assert sum("over row ids 0..2" in line for line in shown) == 2
