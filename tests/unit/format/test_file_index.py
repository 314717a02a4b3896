"""File indexes against the Java-written fixture ``pk_with_bitmap_dv`` (bitmaps in .index files).

* our encoder gives Java's bytes for the rows of each data file (read with pyarrow, not paimon-sql);
* queries on the indexed columns return the rows of an unfiltered read, and EXPLAIN counts the files
  an index skipped; ``file-index.read.enabled = false`` turns it off;
* a damaged or missing index file is an error naming it;
* what is not supported is refused by name, before anything is written.
"""

from __future__ import annotations

import dataclasses
import shutil
from types import MappingProxyType

import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.errors import (
    CorruptFileError,
    DataFileNotFoundError,
    PaimonSqlError,
    UnsupportedFeatureError,
)
from paimon_sql.format._file_index_codecs import index_key
from paimon_sql.format.file_index import decode_container, encode_file_index
from paimon_sql.types import DataType
from tests.fixtures import FIXTURES

PARQUET = FIXTURES / "paimon-cpp/test/test_data/parquet"
TABLE = PARQUET / "pk_with_bitmap_dv.db/pk_with_bitmap_dv"
NAME = "pk_with_bitmap_dv.pk_with_bitmap_dv"
TYPES = {"f0": DataType(root="VARCHAR"), "f1": DataType(root="INT"), "f2": DataType(root="INT")}


def test_our_bitmap_index_bytes_equal_javas():
    files = sorted((TABLE / "bucket-0").glob("*.parquet.index"))
    assert len(files) == 2
    for path in files:
        java = path.read_bytes()
        assert list(decode_container(java, str(path))) == ["f0", "f1", "f2"]
        rows = pq.read_table(path.with_suffix("")).to_pydict()  # the data file it indexes
        columns = [
            (c, "bitmap", [None if v is None else index_key(TYPES[c], v) for v in rows[c]])
            for c in ("f2", "f0", "f1")  # any order in: Java's HashMap order out
        ]
        assert encode_file_index(columns, TYPES, {}) == java, path.name


def _info(session, where):
    rows = session.sql(f"EXPLAIN SELECT * FROM {NAME} WHERE {where}").fetchall()  # noqa: S608
    return next(v for scope, prop, v in rows if prop == "files" and scope != "duckdb")


def _skipped(line):
    if " by file index" not in line:  # EXPLAIN names the count only when an index skipped files
        return 0
    return int(line.split(" by file index")[0].rsplit(" ", 1)[-1])


CASES = [
    # (filter, python test of a row, files the index must skip)
    ("f0 = 'Emily'", lambda r: r["f0"] == "Emily", 0),
    ("f0 = 'Nobody'", lambda r: r["f0"] == "Nobody", 1),
    ("f0 IN ('Nobody', 'Zed')", lambda r: r["f0"] in ("Nobody", "Zed"), 1),
    ("f1 = 20 AND f0 = 'Bob'", lambda r: r["f1"] == 20 and r["f0"] == "Bob", 1),
    ("f1 = 20 OR f0 = 'Nobody'", lambda r: r["f1"] == 20 or r["f0"] == "Nobody", 0),
    ("f2 IS NULL", lambda r: r["f2"] is None, 0),
    ("f2 = 1 AND f0 = 'Tony'", lambda r: r["f2"] == 1 and r["f0"] == "Tony", 1),
    ("f0 = 'Nobody' AND f3 > 0", lambda r: r["f0"] == "Nobody" and r["f3"] > 0, 1),
]


def _check(session, expect_skips=True):
    everything = session.sql(f"SELECT * FROM {NAME}").to_arrow_table().to_pylist()  # noqa: S608
    assert len(everything) == 6
    for where, keep, skips in CASES:
        got = session.sql(f"SELECT * FROM {NAME} WHERE {where}").to_arrow_table().to_pylist()  # noqa: S608
        assert sorted(got, key=str) == sorted(filter(keep, everything), key=str), where
        assert _skipped(_info(session, where)) == (skips if expect_skips else 0), where


def test_java_indexes_prune_and_rows_stay():
    _check(paimon_sql.connect(PARQUET))


@pytest.fixture
def copy(tmp_path):
    target = tmp_path / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    shutil.copytree(TABLE, target)
    return tmp_path, target


def test_read_enabled_false_turns_index_pruning_off(copy):
    warehouse, _ = copy
    session = paimon_sql.connect(warehouse)
    session.sql(f"ALTER TABLE {NAME} SET ('file-index.read.enabled' = 'false')")
    _check(session, expect_skips=False)


def test_damaged_or_missing_index_file_is_named(copy):
    warehouse, table = copy
    (index,) = [
        p
        for p in (table / "bucket-0").glob("*.index")
        if len(pq.read_table(p.with_suffix(""))) == 8
    ]
    index.write_bytes(index.read_bytes()[:40])
    session = paimon_sql.connect(warehouse)
    with pytest.raises(CorruptFileError, match=index.name):
        session.sql(f"SELECT * FROM {NAME} WHERE f0 = 'Nobody'").fetchall()  # noqa: S608
    assert len(session.sql(f"SELECT * FROM {NAME} WHERE f3 > 0").fetchall()) == 6  # noqa: S608
    index.unlink()
    with pytest.raises(DataFileNotFoundError, match=index.name):
        session.sql(f"SELECT * FROM {NAME} WHERE f0 = 'Nobody'").fetchall()  # noqa: S608


def test_index_files_are_read_once_per_session(copy):
    """Index files never change once committed: a session parses each one once (issue 18: the
    bitmap point query re-read nine ``.index`` files per query). After the files are gone, the
    session still prunes from what it parsed; a new session names the missing file."""
    warehouse, table = copy
    session = paimon_sql.connect(warehouse)
    query = f"SELECT * FROM {NAME} WHERE f0 = 'Nobody'"  # noqa: S608
    assert session.sql(query).fetchall() == []
    assert _skipped(_info(session, "f0 = 'Nobody'")) == 1
    for index in (table / "bucket-0").glob("*.index"):
        index.unlink()
    assert session.sql(query).fetchall() == []
    assert _skipped(_info(session, "f0 = 'Nobody'")) == 1
    with pytest.raises(DataFileNotFoundError, match=r"\.index"):
        paimon_sql.connect(warehouse).sql(query).fetchall()


def _table(tmp_path, options):
    session = paimon_sql.connect(tmp_path)
    session.sql("CREATE DATABASE db")
    session.sql(f"CREATE TABLE db.t (k INT, s STRING, b BOOLEAN) WITH ({options})")
    return session


def test_threshold_puts_small_indexes_in_the_manifest(tmp_path):
    session = _table(
        tmp_path,
        "'file-index.bitmap.columns' = 'k', 'file-index.bloom-filter.columns' = 's', "
        "'file-index.bloom-filter.s.items' = '10', 'file-index.in-manifest-threshold' = '200 b'",
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a', true), (2, 'b', false)")
    assert not list(tmp_path.rglob("*.index"))  # small: embedded
    session.sql("INSERT INTO db.t SELECT r, 'x' || r, true FROM range(3, 200) t(r)")
    (index,) = tmp_path.rglob("*.index")  # bitmap of 197 values: its own file
    assert index.name.endswith(".parquet.index")
    rows = session.sql("SELECT k FROM db.t WHERE k = 2 OR s = 'x7' ORDER BY k").fetchall()
    assert rows == [(2,), (7,)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("'file-index.range-bitmap.columns' = 'k'", "range-bitmap"),
        ("'file-index.bloom-filter.columns' = 'b'", "bloom-filter index of column b"),
        ("'file-index.bitmap.columns' = 'nope'", "nope"),
        ("'file-index.bitmap.columns' = 'k', 'file-index.bitmap.s.version' = '1'", "bitmap.s"),
    ],
)
def test_unsupported_index_refused_before_writing(tmp_path, options, message):
    """Refused at CREATE TABLE (the writer's own check), and at INSERT into a table made elsewhere
    with them (here: created without them, then given them through the catalog)."""
    with pytest.raises(PaimonSqlError, match=message):
        _table(tmp_path, options)
    session = paimon_sql.connect(tmp_path)
    session.sql("CREATE TABLE db.t (k INT, s STRING, b BOOLEAN)")
    table = session.table("db.t")
    schema = table.latest_schema
    pairs = dict(p.split(" = ") for p in options.replace("'", "").split(", "))
    given = MappingProxyType({**schema.options, **pairs})
    assert table.commit_schema(dataclasses.replace(schema, id=schema.id + 1, options=given))
    with pytest.raises(PaimonSqlError, match=message) as err:
        session.sql("INSERT INTO db.t VALUES (1, 'a', true)")
    assert isinstance(err.value, UnsupportedFeatureError | PaimonSqlError)
    assert not list(tmp_path.rglob("data-*"))
    assert session.sql("SELECT count(*) FROM db.t").fetchall() == [(0,)]


def test_merged_primary_key_reads_never_skip_by_index(tmp_path):
    """Java uses file indexes on primary-key tables only with deletion vectors: in a merged read
    a file without the value may still hold the newest version of a key (here key 1)."""
    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.pk (k INT NOT NULL, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
        "'bucket' = '1', 'file-index.bitmap.columns' = 'v', 'write-only' = 'true')"
    )
    session.sql("INSERT INTO db.pk VALUES (1, 10), (2, 10), (3, 10)")
    session.sql("INSERT INTO db.pk VALUES (1, 20)")
    rows = session.sql("SELECT k FROM db.pk WHERE v = 10 ORDER BY k").fetchall()
    assert rows == [(2,), (3,)]
    rows = session.sql("EXPLAIN SELECT k FROM db.pk WHERE v = 10").fetchall()
    line = next(v for scope, prop, v in rows if prop == "files" and scope != "duckdb")
    assert line.startswith("2 read of 2 live"), line
    assert "by file index" not in line
