"""Bugs the state machine found, pinned as plain tests (minimal SQL reproductions)."""

from __future__ import annotations

import importlib.metadata

import pytest
import sqlglot

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.sql.statements.dml import DELETE, write_rows


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    return s


def _create(session, engine_options):
    session.sql(
        "CREATE TABLE db.t (id INT, a STRING, b BIGINT, c INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '2', {engine_options})"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'x', 1, 1), (2, NULL, NULL, 2)")
    session.sql("CALL sys.compact(table => 'db.t')")  # first-row shows rows once compacted


AGG = (
    "'merge-engine' = 'aggregation', 'fields.b.aggregate-function' = 'sum', "
    "'fields.c.aggregate-function' = 'max'"
)


@pytest.mark.parametrize(
    ("options", "statement"),
    [
        # Was accepted; the -D record then failed every read and compaction ("partial-update
        # received a retraction"): the table was unreadable until a rollback.
        ("'merge-engine' = 'partial-update'", "DELETE FROM db.t WHERE id = 2"),
        # Same, through the max function ("cannot retract").
        (AGG, "DELETE FROM db.t WHERE id = 2"),
        # Was accepted and added 100 to the sum instead of setting it: (1, 'x', 101, 1).
        (AGG, "UPDATE db.t SET b = 100 WHERE id = 1"),
        # Were reported as 1 row each, with no effect on the table.
        ("'merge-engine' = 'first-row'", "DELETE FROM db.t WHERE id = 2"),
        ("'merge-engine' = 'first-row'", "UPDATE db.t SET b = 100 WHERE id = 1"),
    ],
)
def test_row_level_statements_the_merge_engine_cannot_apply_are_refused(
    session, options, statement
):
    _create(session, options)
    table = session.table("db.t")
    before = table.snapshot_ids()
    with pytest.raises(UnsupportedFeatureError, match="Java refuses it too"):
        session.sql(statement)
    assert table.snapshot_ids() == before
    assert len(session.sql("SELECT * FROM db.t").fetchall()) == 2
    session.sql("CALL sys.compact(table => 'db.t')")


@pytest.mark.parametrize(
    "options",
    [
        "'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'",
        AGG + ", 'aggregation.remove-record-on-delete' = 'true'",
    ],
)
def test_delete_is_accepted_where_the_engine_removes_the_row(session, options):
    _create(session, options)
    assert session.sql("DELETE FROM db.t WHERE id = 2").fetchall() == [(1,)]
    assert session.sql("SELECT id FROM db.t").fetchall() == [(1,)]


def test_update_on_partial_update_writes_non_null_fields(session):
    _create(session, "'merge-engine' = 'partial-update'")
    session.sql("UPDATE db.t SET b = 100 WHERE id = 1")
    session.sql("UPDATE db.t SET a = NULL WHERE id = 1")  # NULL never overwrites: no change
    assert session.sql("SELECT * FROM db.t WHERE id = 1").fetchall() == [(1, "x", 100, 1)]


@pytest.mark.parametrize(("ignore_retract", "expected"), [(False, None), (True, "y")])
def test_last_non_null_value_retraction_nulls_the_field(session, ignore_retract, expected):
    # Java's FieldLastNonNullValueAgg.retract returns NULL for a non-null retracted value; the
    # reader ignored retractions, so a -D left the old value: (2, 'y', 0) instead of (2, NULL, 0).
    # SQL DELETE is refused on aggregation tables; Java (Flink CDC) writes such records.
    extra = ", 'fields.a.ignore-retract' = 'true'" if ignore_retract else ""
    session.sql(
        "CREATE TABLE db.t (id INT, a STRING, b BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH "
        "('bucket' = '1', 'merge-engine' = 'aggregation', 'fields.b.aggregate-function' = 'sum'"
        f"{extra})"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'x', 5), (2, 'y', 7)")
    retraction = sqlglot.parse_one("SELECT 2 AS id, 'y' AS a, CAST(7 AS BIGINT) AS b")
    write_rows(session, session.table("db.t"), retraction, kind=DELETE)
    rows = [(1, "x", 5), (2, expected, 0)]
    assert sorted(session.sql("SELECT * FROM db.t").fetchall()) == rows
    session.sql("CALL sys.compact(table => 'db.t')")
    assert sorted(session.sql("SELECT * FROM db.t").fetchall()) == rows


# DuckDB 2.0.0 answers `s IS NULL` on a PLAIN-encoded Parquet string column whose statistics have
# min == max (one distinct value plus NULLs) with every row, the non-null values read as NULL. Our
# writer wrote such files from 148ba27 to 2ce4ff7 (which keeps dictionaries for those columns);
# found by the state machine as DELETE WHERE a IS NULL removing rows with a = 'x'.


def test_is_null_filter_on_a_string_column(session):
    session.sql(
        "CREATE TABLE db.t (id INT, a STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'x'), (2, NULL)")
    assert session.sql("SELECT * FROM db.t WHERE a IS NULL").fetchall() == [(2, None)]


def test_delete_where_is_null_keeps_the_other_rows(session):
    session.sql(
        "CREATE TABLE db.t (id INT, a STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'x'), (2, NULL)")
    session.sql("DELETE FROM db.t WHERE a IS NULL")  # deleted both rows
    assert session.sql("SELECT * FROM db.t").fetchall() == [(1, "x")]


@pytest.mark.xfail(
    importlib.metadata.version("duckdb") == "2.0.0",
    strict=True,
    reason="DuckDB 2.0.0 bug: IS NULL on a PLAIN string column with min == max statistics "
    "(fixed in 2.0.1)",
)
def test_duckdb_reads_such_a_parquet_file_wrong(tmp_path):
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(tmp_path / "f.parquet")
    table = pa.table({"id": pa.array([1, 2], pa.int32()), "a": pa.array(["x", None])})
    pq.write_table(table, path, use_dictionary=False)  # statistics: min = max = 'x', 1 null
    query = "SELECT id, a FROM read_parquet(?) WHERE a IS NULL"
    assert duckdb.connect().execute(query, [path]).fetchall() == [(2, None)]


def test_first_row_write_after_rollback_compacts_only_its_buckets(session):
    # Found by the dev profile (an oracle gap, not a bug): rolled back to the APPEND snapshot
    # before its COMPACT, a row stays at level 0, hidden, until a write or compaction touches its
    # bucket; Java's batch scan hides it too (ids 0 and 1 fall in different buckets of 2).
    session.sql(
        "CREATE TABLE db.t (id INT, a STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'merge-engine' = 'first-row')"
    )
    session.sql("INSERT INTO db.t VALUES (0, NULL)")  # snapshots 1 (APPEND), 2 (COMPACT)
    session.sql("CALL sys.rollback(table => 'db.t', version => '1')")
    session.sql("INSERT INTO db.t VALUES (1, NULL)")
    assert session.sql("SELECT id FROM db.t").fetchall() == [(1,)]
    session.sql("CALL sys.compact(table => 'db.t')")
    assert sorted(session.sql("SELECT id FROM db.t").fetchall()) == [(0,), (1,)]
