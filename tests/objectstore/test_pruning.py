"""Reads that fetch a small part of a big remote table: row groups skipped by their footer
statistics, ``LIMIT`` streamed row group by row group, metadata listed once per statement.

Expected rows come from the rows inserted (Python), never from another paimon-sql read.
"""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.io import datafiles
from paimon_sql.io.datafiles import FOOTER_BYTES

ROWS = 150_000


def _data_bytes(io, warehouse):
    return sum(io.file_size(p) for p in io.walk(warehouse) if p.endswith(".parquet"))


def _cost(session, query):
    """(rows, bytes fetched, requests sent) of one query."""
    io = session.catalog.fileio
    before = io.bytes_fetched, io.requests
    rows = session.sql(query).fetchall()
    return rows, io.bytes_fetched - before[0], io.requests - before[1]


def _row(i):
    return (i, f"name-{i}", i % 7)


@pytest.fixture
def pk_table(s3_warehouse):
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql(
        "CREATE TABLE d.t (id BIGINT, name STRING, g INT) "
        "WITH ('primary-key' = 'id', 'bucket' = '1')"
    )
    s.sql(f"INSERT INTO d.t SELECT i, 'name-' || i, i % 7 FROM range({ROWS}) r(i)")  # noqa: S608
    yield s
    s.close()


def test_our_files_have_row_groups_a_point_query_can_skip(pk_table, s3_warehouse):
    io = pk_table.catalog.fileio
    (path,) = [p for p in io.walk(s3_warehouse) if p.endswith(".parquet")]
    import io as pyio

    meta = pq.ParquetFile(pyio.BytesIO(io.read_bytes(path))).metadata
    assert meta.num_row_groups >= 4, meta.num_row_groups
    data = _data_bytes(io, s3_warehouse)
    for key in (0, ROWS // 2, ROWS - 1):
        rows, fetched, _ = _cost(pk_table, f"SELECT * FROM d.t WHERE id = {key}")  # noqa: S608
        assert rows == [_row(key)]
        assert fetched < data / 4, (key, fetched, data)
    rows, fetched, _ = _cost(pk_table, "SELECT * FROM d.t WHERE id IN (3, 149998) ORDER BY id")
    assert rows == [_row(3), _row(149998)]
    rows, _, _ = _cost(pk_table, f"SELECT count(*) FROM d.t WHERE id >= {ROWS - 10}")  # noqa: S608
    assert rows == [(10,)]
    rows, _, _ = _cost(pk_table, f"SELECT * FROM d.t WHERE id = {ROWS + 5}")  # noqa: S608
    assert rows == []


def test_limit_fetches_a_few_row_groups(pk_table, s3_warehouse):
    data = _data_bytes(pk_table.catalog.fileio, s3_warehouse)
    rows, fetched, _ = _cost(pk_table, "SELECT * FROM d.t LIMIT 10")
    assert len(rows) == 10
    assert all(r == _row(r[0]) for r in rows)
    assert fetched < data / 2, (fetched, data)


def test_a_newer_version_in_a_skipped_row_group_of_another_file_still_wins(pk_table):
    """Two overlapping files: the key filter skips row groups in both, the merge stays right."""
    pk_table.sql("INSERT INTO d.t VALUES (77777, 'new', 1), (5, 'five', 2)")
    assert pk_table.sql("SELECT * FROM d.t WHERE id = 77777").fetchall() == [(77777, "new", 1)]
    assert pk_table.sql("SELECT * FROM d.t WHERE id = 77778").fetchall() == [_row(77778)]
    got = pk_table.sql("SELECT id, name FROM d.t WHERE id IN (5, 6) ORDER BY id").fetchall()
    assert got == [(5, "five"), (6, "name-6")]
    # a value filter is applied after the merge, never used to skip row groups: the new file's
    # g values are 1 and 2, and skipping it for g = 5 would bring key 5's old version back
    got = pk_table.sql("SELECT count(*), count(*) FILTER (id = 5) FROM d.t WHERE g = 5").fetchall()
    assert got == [(sum(1 for i in range(ROWS) if i % 7 == 5) - 1, 0)]


def test_deletion_vectors_count_positions_in_the_whole_file(s3_warehouse):
    """Skipped row groups must not shift the positions a deletion vector names."""
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql(
        "CREATE TABLE d.t (id BIGINT, name STRING, g INT) WITH ('primary-key' = 'id', "
        "'bucket' = '1', 'deletion-vectors.enabled' = 'true')"
    )
    s.sql(f"INSERT INTO d.t SELECT i, 'name-' || i, i % 7 FROM range({ROWS}) r(i)")  # noqa: S608
    s.sql("INSERT INTO d.t VALUES (140001, 'changed', 0)")
    s.sql("DELETE FROM d.t WHERE id IN (140002, 3)")
    assert s.sql('SELECT count(*) FROM d."t$table_indexes"').fetchall() != [(0,)]
    got = s.sql("SELECT * FROM d.t WHERE id BETWEEN 139999 AND 140003 ORDER BY id").fetchall()
    assert got == [_row(139999), _row(140000), (140001, "changed", 0), _row(140003)]
    assert s.sql("SELECT * FROM d.t WHERE id IN (2, 3, 4) ORDER BY id").fetchall() == [
        _row(2),
        _row(4),
    ]
    assert s.sql("SELECT count(*) FROM d.t").fetchall() == [(ROWS - 2,)]
    s.close()


def test_append_table_skips_by_value_columns(s3_warehouse):
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.a (id BIGINT, name STRING, g INT)")
    s.sql(f"INSERT INTO d.a SELECT i, 'name-' || i, i % 7 FROM range({ROWS}) r(i)")  # noqa: S608
    data = _data_bytes(s.catalog.fileio, s3_warehouse)
    rows, fetched, _ = _cost(s, "SELECT * FROM d.a WHERE id = 100000")
    assert rows == [_row(100000)]
    # one row group of four (a small file: its footer read, the last 64 KiB, is a big part of it)
    assert fetched - FOOTER_BYTES < data / 3, (fetched, data)
    rows, _, _ = _cost(s, "SELECT count(*) FROM d.a WHERE id < 1000 OR id > 149000")
    assert rows == [(1000 + 999,)]
    s.close()


def test_a_select_lists_the_table_metadata_once(pk_table, s3_env):
    """Snapshot listing, snapshot and schema listing: asked once per statement, not per lookup."""
    pk_table.sql("SELECT count(*) FROM d.t").fetchall()  # manifests cached
    start = len(s3_env.app.log)
    assert pk_table.sql("SELECT * FROM d.t WHERE id = 42").fetchall() == [_row(42)]
    log = [line for line in s3_env.app.log[start:] if ".parquet" not in line]
    listings = [line for line in log if "list-type=2" in line and "snapshot%2F" in line]
    snapshot_reads = [line for line in log if line.startswith("GET") and "/snapshot/snap" in line]
    assert len(listings) == 1, log
    assert len(snapshot_reads) == 1, log
    # database listing, LATEST hint, snapshot listing (a hint of 1 is not trusted alone), the
    # snapshot (with at most one HEAD for its size), two schema listings
    assert len(log) <= 7, "\n".join(log)


def test_a_result_run_again_sees_commits_made_since(pk_table, s3_warehouse):
    """A statement remembers its listings for its own run, not for later re-runs of its result."""
    rel = pk_table.sql(f"SELECT count(*) FROM d.t WHERE id >= {ROWS}")  # noqa: S608
    assert rel.fetchall() == [(0,)]
    other = paimon_sql.connect(s3_warehouse)  # another writer: this session's FileIO sees nothing
    other.sql(f"INSERT INTO d.t VALUES ({ROWS + 1}, 'new', 1)")  # noqa: S608
    other.close()
    assert rel.fetchall() == [(1,)]


@pytest.mark.parametrize("page_by_page", [False, True])
def test_limit_streams_keep_deletion_vector_positions(s3_warehouse, monkeypatch, page_by_page):
    """A LIMIT read streams files (row group by row group, or page by page for big groups, as
    Java writes them): the positions a deletion vector names stay those of the whole file."""
    if page_by_page:
        monkeypatch.setattr(datafiles, "PREFETCH_GROUP_BYTES", 0)
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql(
        "CREATE TABLE d.t (id BIGINT, name STRING, g INT) WITH ('primary-key' = 'id', "
        "'bucket' = '1', 'deletion-vectors.enabled' = 'true')"
    )
    s.sql(f"INSERT INTO d.t SELECT i, 'name-' || i, i % 7 FROM range({ROWS}) r(i)")  # noqa: S608
    s.sql("DELETE FROM d.t WHERE id IN (7, 100003, 149999)")
    got = s.sql(f"SELECT * FROM d.t LIMIT {ROWS}").fetchall()  # noqa: S608
    assert sorted(got) == [_row(i) for i in range(ROWS) if i not in (7, 100003, 149999)]
    assert len(s.sql("SELECT * FROM d.t LIMIT 10").fetchall()) == 10
    s.close()
