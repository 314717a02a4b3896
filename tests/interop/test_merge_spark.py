"""``MERGE INTO`` by paimon-sql, read back by Apache Paimon 0.9 through Spark (issue 16).

The same MERGE statements run on twin tables: paimon-sql merges one, Spark (Paimon's own MERGE)
the other. Spark must read our table exactly as its twin, at every snapshot our MERGEs made, and
keep writing on top of it; both sides end with the rows a Python model of the statements gives.
Cases: a primary-key table (fixed buckets, partitioned), a deletion-vector primary-key table and a
partitioned append table (copy-on-write of the touched partitions).
"""

# ruff: noqa: S608 - the statements are test inputs built from our own names and values
from __future__ import annotations

import pytest

import paimon_sql
from tests.interop.harness import assert_rows_equal, spark_rows, spark_session, spark_sql

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_COLUMNS = "(k INT, v STRING, n INT, dt STRING)"

CASES = {
    "pk_partitioned": (
        "PARTITIONED BY (dt)",
        "'primary-key' = 'k,dt', 'bucket' = '2'",
    ),
    "pk_deletion_vectors": (
        "",
        "'primary-key' = 'k', 'bucket' = '1', 'deletion-vectors.enabled' = 'true'",
    ),
    "append_partitioned": ("PARTITIONED BY (dt)", "'bucket' = '-1'"),
}

START = [(1, "a", 10, "x"), (2, "b", 20, "x"), (3, "c", 30, "y"), (4, "d", 40, "z")]
SOURCE = [(1, "one", 100, "x"), (3, "three", 300, "y"), (5, "five", 500, "x"), (6, "six", 600, "w")]

#: Statements both engines read alike (Spark 3.5's and DuckDB's MERGE).
MERGES = [
    "MERGE INTO {t} AS t USING src AS s ON t.k = s.k AND t.dt = s.dt "
    "WHEN MATCHED AND s.n > 200 THEN DELETE "
    "WHEN MATCHED THEN UPDATE SET v = s.v, n = t.n + s.n "
    "WHEN NOT MATCHED THEN INSERT (k, v, n, dt) VALUES (s.k, s.v, s.n, s.dt)",
    "MERGE INTO {t} AS t USING (SELECT k + 1 AS k, v, n, dt FROM src) AS s "
    "ON t.k = s.k AND t.dt = s.dt "
    "WHEN MATCHED THEN UPDATE SET v = concat(t.v, '+', s.v) "
    "WHEN NOT MATCHED AND s.k > 6 THEN INSERT (k, v, n, dt) VALUES (s.k, s.v, 0, s.dt)",
]


def _model() -> list[dict[str, object]]:
    """The rows the two MERGEs leave, computed in Python (a row per (k, dt))."""
    rows: dict[tuple[int, str], tuple[int, str, int, str]] = {(r[0], r[3]): r for r in START}
    for k, v, n, dt in SOURCE:  # the first MERGE
        old = rows.get((k, dt))
        if old is None:
            rows[k, dt] = (k, v, n, dt)
        elif n > 200:
            del rows[k, dt]
        else:
            rows[k, dt] = (k, v, old[2] + n, dt)
    for k0, v, _n, dt in SOURCE:  # the second: keys shifted by one
        k = k0 + 1
        old = rows.get((k, dt))
        if old is not None:
            rows[k, dt] = (k, old[1] + "+" + v, old[2], dt)
        elif k > 6:
            rows[k, dt] = (k, v, 0, dt)
    return [dict(zip(("k", "v", "n", "dt"), r, strict=True)) for r in rows.values()]


def _ours(session, table, version=None):
    query = f"SELECT * FROM {table}" + (f" VERSION AS OF {version}" if version else "")
    rel = session.sql(query)
    return [dict(zip(rel.columns, row, strict=True)) for row in rel.fetchall()]


def _values(rows) -> str:
    return ", ".join(f"({k}, '{v}', {n}, '{dt}')" for k, v, n, dt in rows)


def _twins(tmp_path, partitioned, props):
    """A session and Spark over one warehouse holding two equal Spark-made tables (ours and its
    twin), and the source rows ``src`` on both sides: (session, spark, ours, twin)."""
    warehouse = tmp_path / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    spark = spark_session(warehouse)
    ours, twin = "db.ours", "db.twin"
    for name in (ours, twin):
        spark_sql(
            spark,
            f"CREATE TABLE {name} {_COLUMNS} USING paimon {partitioned} TBLPROPERTIES ({props})",
        )
        spark_sql(spark, f"INSERT INTO {name} VALUES {_values(START)}")
    # the source: a Spark temporary view and a DuckDB table of the same rows (Paimon 0.9's Spark
    # MERGE cannot read another Paimon table as its source: ambiguous __paimon_file_path)
    source = f"SELECT * FROM (VALUES {_values(SOURCE)}) AS v(k, v, n, dt)"
    spark_sql(spark, f"CREATE OR REPLACE TEMPORARY VIEW src AS {source}")
    session.sql(f"CREATE TABLE memory.main.src AS {source}")
    session.refresh()
    return session, spark, ours, twin


@pytest.mark.parametrize("case", list(CASES))
def test_spark_reads_our_merge_like_its_own(tmp_path, case):
    partitioned, props = CASES[case]
    session, spark, ours, twin = _twins(tmp_path, partitioned, props)
    merged = []
    for statement in MERGES:
        session.sql(statement.format(t=ours))
        latest = session.table(ours).latest_snapshot()
        assert latest is not None
        merged.append(latest.id)
        spark_sql(spark, statement.format(t=twin))

    expected = _model()
    assert_rows_equal(_ours(session, ours), expected, context=f"{case}: paimon-sql")
    assert_rows_equal(spark_rows(spark, ours), expected, context=f"{case}: Spark reads ours")
    assert_rows_equal(spark_rows(spark, twin), expected, context=f"{case}: Spark's own MERGE")
    for snapshot_id in merged:  # each MERGE's snapshot, as Spark reads it
        assert_rows_equal(
            spark_rows(spark, ours, version=snapshot_id),
            _ours(session, ours, snapshot_id),
            context=f"{case}: snapshot {snapshot_id}",
        )
    # one snapshot per MERGE (plus the compaction a deletion-vector table makes after a write)
    kinds = session.sql(
        'SELECT commit_kind FROM "db"."ours$snapshots" WHERE snapshot_id > 1 ORDER BY snapshot_id'
    ).fetchall()
    assert [k for (k,) in kinds if k != "COMPACT"] == (
        ["OVERWRITE", "OVERWRITE"] if case.startswith("append") else ["APPEND", "APPEND"]
    )
    # Spark keeps writing on our table, and both read the same
    spark_sql(spark, f"INSERT INTO {ours} VALUES (1, 'spark', 1, 'x'), (9, 'nine', 9, 'z')")
    assert_rows_equal(_ours(session, ours), spark_rows(spark, ours), context=f"{case}: after Spark")
    session.close()


#: (partitioning, properties, statements) of tables where rows move between partitions. Spark's
#: UPDATE and MERGE fix only primary-key columns: a partition column outside the key may change.
MOVES = {
    "pk_cross_partition": (
        "'primary-key' = 'k', 'bucket' = '-1'",
        [
            "UPDATE {t} SET dt = 'q', n = n + 1 WHERE k = 1",
            "MERGE INTO {t} AS t USING src AS s ON t.k = s.k "
            "WHEN MATCHED THEN UPDATE SET dt = s.dt, v = s.v",
        ],
    ),
    "append_deletion_vectors": (
        "'deletion-vectors.enabled' = 'true'",
        [
            "UPDATE {t} SET dt = 'q', n = n + 1 WHERE k = 1",
            "MERGE INTO {t} AS t USING src AS s ON t.k = s.k "
            "WHEN MATCHED THEN UPDATE SET dt = s.dt, v = s.v",
        ],
    ),
    "append_copy_on_write": (
        "'bucket' = '-1'",
        [
            "UPDATE {t} SET dt = 'q', n = n + 1 WHERE k < 3",
            "MERGE INTO {t} AS t USING src AS s ON t.k = s.k "
            "WHEN MATCHED AND s.k = 3 THEN UPDATE SET dt = s.dt, v = s.v "
            "WHEN MATCHED THEN UPDATE SET dt = 'x' "
            "WHEN NOT MATCHED THEN INSERT *",
        ],
    ),
}

#: A correlated subquery naming the target by database and table (``db.t.k``): then every row
#: read back again.
QUALIFIED = "DELETE FROM {t} WHERE EXISTS (SELECT 1 FROM src WHERE src.k = {t}.k AND src.n = 300)"


@pytest.mark.parametrize("case", list(MOVES))
def test_rows_move_between_partitions_as_in_spark(tmp_path, case):
    props, statements = MOVES[case]
    session, spark, ours, twin = _twins(tmp_path, "PARTITIONED BY (dt)", props)
    for statement in [*statements, QUALIFIED]:
        session.sql(statement.format(t=ours))
        spark_sql(spark, statement.format(t=twin))
        expected = spark_rows(spark, twin)
        context = f"{case}: {statement}"
        assert_rows_equal(_ours(session, ours), expected, context=context)
        assert_rows_equal(spark_rows(spark, ours), expected, context=f"Spark reads ours, {context}")
    session.close()
