"""Append tables with deletion vectors, against Apache Paimon 0.9 through Spark.

The same statements (INSERT, DELETE, UPDATE) run on twin tables, one written by paimon-sql, one by
Spark. Both end with the same rows, and the same deleted-row count per partition and bucket in
their deletion vectors (neither rewrote a data file: the rows are marked). Spark reads every
snapshot of ours as we do, then deletes and updates on top of our vectors, and paimon-sql deletes
on top of Spark's; both read the result alike.

Commit kinds differ by design: Spark 0.9 commits a DELETE's vectors as COMPACT (an UPDATE as
APPEND then COMPACT); paimon-sql follows Paimon 1.x, one OVERWRITE snapshot (Flink 1.3.1 checks
that layout in ``tests/interop/flink``).
"""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.format.deletion_vector import decode_vector
from tests.interop.harness import assert_rows_equal, spark_rows, spark_session, spark_sql

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_COLUMNS = "(id INT, dt STRING, v STRING)"
CASES = {
    "unaware_partitioned": ("PARTITIONED BY (dt)", "'deletion-vectors.enabled' = 'true'"),
    "fixed_bucket": (
        "",
        "'bucket' = '2', 'bucket-key' = 'id', 'deletion-vectors.enabled' = 'true'",
    ),
}
STATEMENTS = [
    "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'w')",
    "INSERT INTO {t} VALUES (5, 'a', 'q'), (6, 'b', 'r'), (7, 'a', 's')",
    "DELETE FROM {t} WHERE id IN (2, 5)",
    "UPDATE {t} SET v = 'u' WHERE id IN (3, 4)",
    "DELETE FROM {t} WHERE id = 1 OR v = 'u' AND id = 4",
]


def _ours(session, table, version=None):
    query = f"SELECT * FROM {table}" + (f" VERSION AS OF {version}" if version is not None else "")  # noqa: S608
    rel = session.sql(query)
    names = list(rel.columns)
    return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]


def _deleted(session, warehouse, table):
    """Deleted rows per (partition, bucket), counted in the index files' vectors.

    (0.9 records no cardinality in the index manifest: the vectors themselves are counted.)
    """
    indexes = table.replace(".", ".`", 1) + "$table_indexes`"
    query = f"SELECT partition, bucket, file_name, dv_ranges FROM {indexes}"  # noqa: S608
    folder = warehouse / "db.db" / table.split(".")[1] / "index"
    out: dict[tuple[str, int], int] = {}
    for partition, bucket, name, ranges in session.sql(query).fetchall():
        blob = (folder / name).read_bytes()
        for r in ranges:
            vector = decode_vector(blob, r["f1"], name, length=r["f2"])
            out[(partition, bucket)] = out.get((partition, bucket), 0) + len(vector)
    return out


def _data_files(session, table):
    files = table.replace(".", ".`", 1) + "$files`"
    return sorted(session.sql(f"SELECT file_path FROM {files}").fetchall())  # noqa: S608


def _twins(warehouse, case):
    """Table ``db.ours`` made by paimon-sql and ``db.twin`` by Spark, both of `case`.

    Returns the session, the Spark session and the two names.
    """
    partitioned, props = CASES[case]
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    ours, twin = "db.ours", "db.twin"
    session.sql(f"CREATE TABLE {ours} {_COLUMNS} {partitioned} WITH ({props})")
    spark = spark_session(warehouse)
    spark_sql(
        spark, f"CREATE TABLE {twin} {_COLUMNS} USING paimon {partitioned} TBLPROPERTIES ({props})"
    )
    return session, spark, ours, twin


@pytest.mark.parametrize("case", list(CASES))
def test_append_deletion_vectors_like_spark(tmp_path, case):
    warehouse = tmp_path / "wh"
    session, spark, ours, twin = _twins(warehouse, case)
    for statement in STATEMENTS:
        files_before = _data_files(session, ours)
        session.sql(statement.format(t=ours))
        spark_sql(spark, statement.format(t=twin))
        if not statement.startswith("INSERT"):  # marked, never rewritten
            assert set(files_before) <= set(_data_files(session, ours)), statement
        assert_rows_equal(
            _ours(session, ours), _ours(session, twin), context=f"{case}: after {statement}"
        )
    deleted = _deleted(session, warehouse, ours)
    assert deleted == _deleted(session, warehouse, twin)
    assert sum(deleted.values()) == 6  # 2, 5; 3, 4 (updated); 1, 4 (new copy)

    snapshots = session.sql(
        "SELECT snapshot_id FROM db.`ours$snapshots` ORDER BY snapshot_id"
    ).fetchall()
    for (snapshot_id,) in snapshots:
        assert_rows_equal(
            spark_rows(spark, ours, version=snapshot_id),
            _ours(session, ours, snapshot_id),
            context=f"{case}: snapshot {snapshot_id}",
        )

    # Spark marks rows on top of our vectors, we mark rows on top of Spark's
    for statement in ["DELETE FROM {t} WHERE id = 6", "UPDATE {t} SET v = 'spark' WHERE id = 3"]:
        spark_sql(spark, statement.format(t=ours))
        assert_rows_equal(
            _ours(session, ours), spark_rows(spark, ours), context=f"{case}: after {statement}"
        )
    session.sql(f"DELETE FROM {ours} WHERE id = 7")  # noqa: S608
    session.sql(f"UPDATE {ours} SET v = 'last' WHERE id = 3")  # noqa: S608
    rows = spark_rows(spark, ours)
    assert_rows_equal(_ours(session, ours), rows, context=f"{case}: our writes on Spark's")
    assert sorted((r["id"], r["v"]) for r in rows) == [(3, "last")]


def _partition_layout(session, table):
    """Per partition: live data files, index files, and the latest snapshot's commit kind."""
    files = table.replace(".", ".`", 1) + "$files`"
    indexes = table.replace(".", ".`", 1) + "$table_indexes`"
    snapshots = table.replace(".", ".`", 1) + "$snapshots`"
    data = session.sql(f"SELECT partition, count(*) FROM {files} GROUP BY ALL ORDER BY 1")  # noqa: S608
    index = session.sql(f"SELECT partition, count(*) FROM {indexes} GROUP BY ALL ORDER BY 1")  # noqa: S608
    kind = session.sql(f"SELECT commit_kind FROM {snapshots} ORDER BY snapshot_id DESC LIMIT 1")  # noqa: S608
    return data.fetchall(), index.fetchall(), kind.fetchall()[0][0]


def test_partition_only_delete_drops_the_partition_like_spark(tmp_path):
    """A DELETE whose condition names only partition columns drops the partitions it selects, as
    Spark's (Paimon 0.9) does: their files and index files leave the table in one OVERWRITE
    snapshot, instead of a vector marking every row of them."""
    session, spark, ours, twin = _twins(tmp_path / "wh", "unaware_partitioned")
    for statement in [*STATEMENTS[:3], "DELETE FROM {t} WHERE dt = 'b'"]:
        session.sql(statement.format(t=ours))
        spark_sql(spark, statement.format(t=twin))
        assert_rows_equal(_ours(session, ours), _ours(session, twin), context=f"after {statement}")
    (data, index, kind), (twin_data, twin_index, twin_kind) = (
        _partition_layout(session, t) for t in (ours, twin)
    )
    assert [p for p, _ in data] == [p for p, _ in twin_data] == ["[a]"]
    assert [p for p, _ in index] == [p for p, _ in twin_index] == ["{a}"]
    assert kind == twin_kind == "OVERWRITE"
    assert_rows_equal(spark_rows(spark, ours), _ours(session, ours), context="Spark reads ours")
