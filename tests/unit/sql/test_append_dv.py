"""DELETE / UPDATE / MERGE INTO on append tables with deletion vectors: rows marked, not rewritten.

Java's layout (checked against Spark 0.9, Flink 1.3.1 and the Java API in ``tests/interop``); here
the cheap parts: expected rows computed in plain Python from the statements, no data file ever
removed by a marking statement, the index layout of an unaware-bucket table (per partition in
bucket 0, an index file replaced only when one of its vectors changes), one OVERWRITE per statement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.errors import SchemaError

if TYPE_CHECKING:
    from pathlib import Path


def _session(tmp_path: Path, with_: str) -> paimon_sql.Session:
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    s.sql(f"CREATE TABLE db.t (id INT, v STRING, dt STRING) {with_}")
    return s


def _files(s: paimon_sql.Session) -> set[str]:
    return {r[0] for r in s.sql('SELECT file_path FROM db."t$files"').fetchall()}


def _indexes(s: paimon_sql.Session) -> dict[str, tuple[str, int, tuple[str, ...]]]:
    rows = s.sql('SELECT file_name, partition, bucket, dv_ranges FROM db."t$table_indexes"')
    return {
        name: (part, bucket, tuple(sorted(r["f0"] for r in ranges)))
        for name, part, bucket, ranges in rows.fetchall()
    }


def test_unaware_table_marks_rows_in_per_partition_index_files(tmp_path: Path) -> None:
    s = _session(tmp_path, "PARTITIONED BY (dt) WITH ('deletion-vectors.enabled' = 'true')")
    rows = {1: ("a", "x"), 2: ("b", "x"), 3: ("c", "y"), 4: ("d", "x")}
    s.sql("INSERT INTO db.t VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'), (4, 'd', 'x')")
    s.sql("INSERT INTO db.t VALUES (5, 'e', 'x')")
    rows[5] = ("e", "x")
    written = _files(s)

    assert s.sql("DELETE FROM db.t WHERE id IN (2, 5)").fetchall() == [(2,)]
    del rows[2], rows[5]
    # one new index file in partition x, bucket 0, covering both data files there
    (first,) = _indexes(s).values()
    assert first[:2] == ("{x}", 0)
    assert len(first[2]) == 2

    assert s.sql("UPDATE db.t SET v = 'u' WHERE id = 4").fetchall() == [(1,)]
    rows[4] = ("u", "x")
    after = _indexes(s)
    # the file of rows 1..4 got a merged vector in a new index file; the vector of row 5's file
    # moved unchanged into another new one; the old index file is gone
    assert first not in after.values()
    assert sorted(len(v[2]) for v in after.values()) == [1, 1]
    assert {v[:2] for v in after.values()} == {("{x}", 0)}

    merged = s.sql(
        "MERGE INTO db.t AS t USING (SELECT * FROM (VALUES (3, 'm'), (1, 'gone'), (9, 'n')) "
        "s(id, v)) AS s ON t.id = s.id WHEN MATCHED AND s.v = 'gone' THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, 'y')"
    ).fetchall()
    assert merged == [(3,)]
    del rows[1]
    rows[3] = ("m", "y")
    rows[9] = ("n", "y")
    assert written <= _files(s)  # marked, never rewritten
    got = s.sql("SELECT id, v, dt FROM db.t").fetchall()
    assert sorted(got) == sorted((k, *v) for k, v in rows.items())
    kinds = [r[0] for r in s.sql('SELECT commit_kind FROM db."t$snapshots"').fetchall()]
    assert kinds == ["APPEND", "APPEND", "OVERWRITE", "OVERWRITE", "OVERWRITE"]
    # a statement that matches nothing commits nothing
    assert s.sql("DELETE FROM db.t WHERE id = 42").fetchall() == [(0,)]
    assert s.sql('SELECT count(*) FROM db."t$snapshots"').fetchall() == [(5,)]
    # compaction applies the vectors and drops them
    s.sql("CALL sys.compact(table => 'db.t')")
    assert _indexes(s) == {}
    assert sorted(s.sql("SELECT id, v, dt FROM db.t").fetchall()) == sorted(got)


def test_fixed_bucket_table_keeps_one_index_file_per_bucket(tmp_path: Path) -> None:
    s = _session(
        tmp_path,
        "WITH ('bucket' = '2', 'bucket-key' = 'id', 'deletion-vectors.enabled' = 'true')",
    )
    s.sql("INSERT INTO db.t SELECT i, 'v' || i, 'x' FROM range(20) r(i)")
    s.sql("INSERT INTO db.t SELECT i, 'w' || i, 'x' FROM range(20, 30) r(i)")
    s.sql("DELETE FROM db.t WHERE id % 3 = 0")
    s.sql("UPDATE db.t SET v = 'u' WHERE id % 5 = 1")
    indexes = _indexes(s)
    buckets = [v[1] for v in indexes.values()]
    assert sorted(buckets) == sorted(set(buckets))  # one index file per bucket
    expected = {i: f"v{i}" if i < 20 else f"w{i}" for i in range(30) if i % 3}
    expected.update({i: "u" for i in expected if i % 5 == 1})
    assert sorted(s.sql("SELECT id, v FROM db.t").fetchall()) == sorted(expected.items())


def test_marking_reads_only_the_files_the_condition_may_match(tmp_path: Path) -> None:
    s = _session(tmp_path, "PARTITIONED BY (dt) WITH ('deletion-vectors.enabled' = 'true')")
    s.sql("INSERT INTO db.t VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'y')")
    (lost,) = (tmp_path / "wh" / "db.db" / "t" / "dt=x").rglob("data-*")
    lost.unlink()  # partition x is unreadable now: a DELETE in y must not read it
    assert s.sql("DELETE FROM db.t WHERE dt = 'y' AND id = 2").fetchall() == [(1,)]
    assert s.sql("SELECT id FROM db.t WHERE dt = 'y'").fetchall() == [(3,)]


def test_a_value_that_does_not_fit_is_a_schema_error_and_writes_nothing(tmp_path: Path) -> None:
    """As on every other table: a SET value that does not convert names the table, no snapshot."""
    s = _session(tmp_path, "WITH ('deletion-vectors.enabled' = 'true')")
    s.sql("ALTER TABLE db.t ADD COLUMN n INT")
    s.sql("INSERT INTO db.t VALUES (1, 'a', 'x', 10)")
    listing = sorted((tmp_path / "wh").rglob("*"))
    for value in ("'abc'", "3000000000"):
        with pytest.raises(SchemaError, match=r"cannot write to table db\.t: Conversion Error"):
            s.sql(f"UPDATE db.t SET n = {value} WHERE id = 1")  # noqa: S608 - constants
    assert sorted((tmp_path / "wh").rglob("*")) == listing
    assert s.sql("SELECT n FROM db.t").fetchall() == [(10,)]
