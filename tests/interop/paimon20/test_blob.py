"""BLOB columns (Paimon 1.4+): Java 1.4.2 writes them into ``.blob`` files, paimon-sql reads every
snapshot and tag exactly as Java's read returns them (``Blob.toData``: the bytes), as DuckDB BLOB.

The corpus, written through Paimon's Java API (`tests.interop.paimon20.harness`):

* ``blobs``: two BLOB columns; NULL, empty and 50 KB values; ``blob.target-file-size`` of 20 KB so
  one data file's BLOB column rolls over several ``.blob`` files; a second commit; a data-evolution
  update of ``name`` over the first row-id range; an update of ``name`` and ``pic`` over the second
  (a newer ``.blob`` file of the same range); Java's data-evolution compaction (one data file now
  spans ranges whose ``.blob`` files stay apart); an added column and a write after it; a tag.
* ``blobs_part``: partitioned, two commits in two partitions.

paimon-cpp's Java-written ``blob_data_evolution_with_dense_stats`` is compared with Java's read of
it here too. BLOB layouts paimon-sql does not read are refused by name, and so is writing BLOB.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql.errors import CorruptFileError, UnsupportedFeatureError
from paimon_sql.format.blob_file import decode_blob_file, decode_lengths, encode_lengths
from tests.fixtures import FIXTURES
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

EVOLUTION = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
BIG = bytes((i * 7) % 251 for i in range(50_000)).hex()  # rolls a 20 KB .blob file
CPP_TABLE = "blob_data_evolution_with_dense_stats"


def _build(java: JavaApiOracle, warehouse: Path) -> None:
    fields = [("id", "INT"), ("name", "STRING"), ("pic", "BLOB"), ("doc", "BLOB")]
    options = {**EVOLUTION, "blob.target-file-size": "20 kb", "compaction.min.file-num": "2"}
    java.create(warehouse, "blobs", fields, options=options)
    rows: list[list[Any]] = [[1, "a", "0102", None], [2, "b", None, "aa"], [3, "c", BIG, BIG]]
    rows.append([4, None, "", "bb"])
    java.write(warehouse, "blobs", [*rows, [5, "e", BIG, None]])
    java.write(warehouse, "blobs", [[6, "f", "ff", None]])
    names: list[list[Any]] = [["A"], ["B"], [None], ["D"], ["E"]]
    java.write(warehouse, "blobs", names, write_cols=["name"], first_row_id=0)
    java.write(warehouse, "blobs", [["F", "0a0b"]], write_cols=["name", "pic"], first_row_id=5)
    java.tag(warehouse, "blobs", "before_compaction", 4)
    assert java.compact_data_evolution(warehouse, "blobs") == 1
    java.alter(warehouse, "blobs", [{"add": "score", "type": "DOUBLE"}])
    java.write(warehouse, "blobs", [[7, "g", "77", None, 1.5]])

    fields = [("dt", "STRING"), ("id", "INT"), ("pic", "BLOB")]
    java.create(warehouse, "blobs_part", fields, partition_keys=("dt",), options=EVOLUTION)
    java.write(warehouse, "blobs_part", [["x", 1, "01"], ["y", 2, None]])
    java.write(warehouse, "blobs_part", [["x", 3, BIG], ["y", 4, ""]])


@pytest.fixture(scope="module")
def blob_warehouse(java_api: JavaApiOracle, tmp_path_factory: pytest.TempPathFactory) -> Path:
    warehouse = tmp_path_factory.mktemp("java-blob") / "warehouse"
    _build(java_api, warehouse)
    return warehouse


def _ours(session: paimon_sql.Session, db: str, name: str, snapshot: int | None, tag: str | None):
    if snapshot is None and tag is None:
        query = exp.select("*").from_(exp.table_(name, db=db, quoted=True))
        return arrow_rows(session.sql(query.sql("duckdb")).to_arrow_table())
    return arrow_rows(session.scan(f"{db}.{name}", snapshot=snapshot, tag=tag).to_arrow_table())


def _compare_every_version(
    java: JavaApiOracle, warehouse: Path, db: str, name: str, tags: tuple[str, ...] = ()
) -> int:
    """Every snapshot, tag and the latest read alike by Java and paimon-sql: versions compared."""
    versions: list[tuple[int | None, str | None]] = [
        (s["id"], None) for s in java.snapshots(warehouse, name, database=db)
    ]
    versions += [(None, t) for t in tags]
    versions.append((None, None))
    session = paimon_sql.connect(warehouse)
    failures = []
    try:
        for snapshot, tag in versions:
            label = f"{name} @ {tag or snapshot or 'latest'}"
            java_columns, java_rows = java.read(
                warehouse, name, snapshot=snapshot, tag=tag, database=db
            )
            columns, rows = _ours(session, db, name, snapshot, tag)
            if columns != java_columns:
                failures.append(f"{label}: columns {columns} != Java's {java_columns}")
                continue
            try:
                assert_same_rows(rows, java_rows, context=f"{label} (paimon-sql vs Java)")
            except AssertionError as err:
                failures.append(str(err))
    finally:
        session.close()
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)
    return len(versions)


@pytest.mark.parametrize(
    ("name", "tags"),
    [("blobs", ("before_compaction",)), ("blobs_part", ())],
    ids=["blobs", "blobs_part"],
)
def test_reads_like_java(java_api: JavaApiOracle, blob_warehouse: Path, name, tags):
    assert _compare_every_version(java_api, blob_warehouse, "db", name, tags) >= 3


def test_corpus_has_what_it_claims(java_api: JavaApiOracle, blob_warehouse: Path):
    """Rolled and all-NULL ``.blob`` files, a 50 KB value, a compaction, a later schema."""
    table = blob_warehouse / "db.db" / "blobs"
    files = sorted(table.glob("bucket-0/*.blob"))
    decoded = {p.name: decode_blob_file(p.read_bytes(), p.name) for p in files}
    assert len(files) >= 8
    assert any(v and all(x is None for x in v) for v in decoded.values())
    assert any(x is not None and len(x) == len(BIG) // 2 for v in decoded.values() for x in v)
    assert any(x == b"" for v in decoded.values() for x in v)
    kinds = [s["kind"] for s in java_api.snapshots(blob_warehouse, "blobs")]
    assert "COMPACT" in kinds
    _, rows = java_api.read(blob_warehouse, "blobs")
    assert {r["id"]: r["pic"] for r in rows}[6] == ["binary", "0a0b"]  # the newer .blob file


def test_blob_index_is_javas(blob_warehouse: Path):
    """Every ``.blob`` index Java wrote decodes to lengths that encode back to Java's bytes."""
    seen = 0
    for path in sorted(blob_warehouse.glob("db.db/*/**/*.blob")):
        data = path.read_bytes()
        size = int.from_bytes(data[-5:-1], "little")
        index = data[-5 - size : -5]
        lengths = decode_lengths(index, path.name)
        assert encode_lengths(lengths) == index, path.name
        assert len(decode_blob_file(data, path.name)) == len(lengths)
        seen += 1
    assert seen >= 10


def test_blob_column_as_duckdb_blob(blob_warehouse: Path):
    session = paimon_sql.connect(blob_warehouse)
    try:
        query = 'SELECT typeof(pic), octet_length(pic) FROM "db"."blobs" WHERE id = 3'
        assert session.sql(query).fetchall() == [("BLOB", len(BIG) // 2)]
        query = 'SELECT id FROM "db"."blobs" WHERE pic IS NULL OR doc = \'\\xBB\'::BLOB'
        assert sorted(session.sql(query).fetchall()) == [(2,), (4,)]
    finally:
        session.close()


def test_damaged_blob_file_is_named_and_unread_columns_skip_it(
    blob_warehouse: Path, tmp_path: Path
):
    """A flipped byte inside a value fails its record's CRC32 (Java's reader would return the
    changed bytes); a query that does not select the BLOB column never opens the file."""
    warehouse = tmp_path / "warehouse"
    shutil.copytree(blob_warehouse, warehouse)
    files = (warehouse / "db.db" / "blobs").glob("bucket-0/*.blob")
    damaged = max(files, key=lambda p: p.stat().st_size)  # a 50 KB value from byte 26 on
    data = bytearray(damaged.read_bytes())
    data[100] ^= 0xFF
    damaged.write_bytes(bytes(data))
    session = paimon_sql.connect(warehouse)
    try:
        assert len(session.sql('SELECT id, name FROM "db"."blobs"').fetchall()) == 7
        with pytest.raises(CorruptFileError) as err:
            session.sql('SELECT pic, doc FROM "db"."blobs"').fetchall()
        assert damaged.name in str(err.value)
    finally:
        session.close()


def test_paimon_cpp_blob_table_reads_like_java(java_api: JavaApiOracle, tmp_path: Path):
    """paimon-cpp's Java-written BLOB table (a .blob file, then f2/f3 rewritten over its row-id
    range) at every snapshot, against Java 1.4.2's read of a copy (the catalog writes a folder)."""
    source = FIXTURES / "paimon-cpp/test/test_data/parquet" / f"{CPP_TABLE}.db"
    shutil.copytree(source, tmp_path / f"{CPP_TABLE}.db")
    assert _compare_every_version(java_api, tmp_path, CPP_TABLE, CPP_TABLE) == 3


def test_blob_as_descriptor_is_refused_by_name(java_api: JavaApiOracle, tmp_path: Path):
    """With ``blob-as-descriptor`` Java's engines return serialized descriptors of the path they
    saw, not the bytes: refused, never read as something else."""
    options = {**EVOLUTION, "blob-as-descriptor": "true"}
    java_api.create(tmp_path, "d", [("id", "INT"), ("pic", "BLOB")], options=options)
    java_api.write(tmp_path, "d", [[1, "01"]])
    session = paimon_sql.connect(tmp_path)
    try:
        with pytest.raises(UnsupportedFeatureError, match="'blob-as-descriptor'"):
            session.sql('SELECT * FROM "db"."d"').fetchall()
    finally:
        session.close()


def test_descriptor_fields_are_refused_by_name(java_api: JavaApiOracle, tmp_path: Path):
    """``blob-descriptor-field``: Java stores a descriptor (URI, offset, length) in the Parquet
    file and reads the bytes at that URI, here a file outside the warehouse: refused by name."""
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"hello")
    warehouse = tmp_path / "warehouse"
    options = {**EVOLUTION, "blob-descriptor-field": "pic"}
    java_api.create(warehouse, "d", [("id", "INT"), ("pic", "BLOB")], options=options)
    java_api.write(warehouse, "d", [[1, {"local": str(outside)}], [2, None]])
    assert java_api.read(warehouse, "d")[1][0] == {"id": 1, "pic": ["binary", b"hello".hex()]}
    assert not list(warehouse.glob("db.db/d/bucket-0/*.blob"))
    session = paimon_sql.connect(warehouse)
    try:
        with pytest.raises(UnsupportedFeatureError, match="'blob-descriptor-field'"):
            session.sql('SELECT * FROM "db"."d"').fetchall()
    finally:
        session.close()


def test_blob_write_is_refused_and_leaves_the_table(java_api: JavaApiOracle, tmp_path: Path):
    java_api.create(tmp_path, "w", [("id", "INT"), ("pic", "BLOB")], options=EVOLUTION)
    java_api.write(tmp_path, "w", [[1, "01"]])
    session = paimon_sql.connect(tmp_path)
    try:
        for statement in (
            """INSERT INTO "db"."w" VALUES (2, '\\x02'::BLOB)""",
            """INSERT INTO "db"."w" (id) VALUES (3)""",
        ):
            with pytest.raises(UnsupportedFeatureError, match="BLOB"):
                session.sql(statement)
    finally:
        session.close()
    assert len(java_api.snapshots(tmp_path, "w")) == 1
    assert java_api.read(tmp_path, "w")[1] == [{"id": 1, "pic": ["binary", "01"]}]
