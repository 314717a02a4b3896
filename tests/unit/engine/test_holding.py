"""`SplitReader.holding`: which data files may hold rows matching a predicate (a superset)."""

from __future__ import annotations

import pyarrow.parquet as pq

import paimon_sql
from paimon_sql.plan.predicate import Compare, InList
from paimon_sql.plan.scan import plan_scan


def _holders(session, name, predicate):
    table = session.table(name)
    plan = plan_scan(table, table.latest_snapshot())
    found = session.engine.reader.holding(plan, predicate)
    return plan, found


def test_the_files_holding_a_value_are_exactly_those_whose_rows_hold_it(tmp_path):
    """Every file of several partitions and buckets and two commits (two schemas) is checked
    against its own rows, read with pyarrow: a file is named if and only if a row matches."""
    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (k BIGINT NOT NULL, p INT NOT NULL, s STRING, "
        "PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '3')"
    )
    session.sql("INSERT INTO db.t SELECT i, i % 4, 'a' || i FROM range(400) r(i)")
    # files of two column layouts in one scan
    session.sql("ALTER TABLE db.t ADD COLUMN extra INT")
    session.sql("INSERT INTO db.t SELECT i * 3, i % 4, 'b' || i, i FROM range(100) r(i)")
    wanted = (5, 6, 299, 1000)
    plan, found = _holders(session, "db.t", InList(("k",), wanted))
    files = 0
    for split in plan.splits:
        for f in split.files:
            files += 1
            (path,) = tmp_path.rglob(f.file_name)
            keys = set(pq.read_table(path, columns=["k"]).column("k").to_pylist())
            assert (f.file_name in found) == bool(keys & set(wanted)), f.file_name
    assert files > 20
    assert 0 < len(found) < files
    session.close()


def test_files_that_cannot_be_searched_are_named(tmp_path):
    """ORC files (no DuckDB reader here) and a predicate on a column DuckDB's multi-file scan
    shadows with its own (``file_index``) are not searched: every file is named."""
    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.o (k INT NOT NULL, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('bucket' = '4', 'file.format' = 'orc')"
    )
    session.sql(
        "CREATE TABLE db.v (file_index INT NOT NULL, PRIMARY KEY (file_index) NOT ENFORCED) "
        "WITH ('bucket' = '4')"
    )
    session.sql("INSERT INTO db.o SELECT i FROM range(40) r(i)")
    session.sql("INSERT INTO db.v SELECT i FROM range(40) r(i)")
    for name, column in (("db.o", "k"), ("db.v", "file_index")):
        plan, found = _holders(session, name, Compare((column,), "=", 1000))
        assert found == {f.file_name for s in plan.splits for f in s.files}
        assert len(found) == 4
    session.close()
