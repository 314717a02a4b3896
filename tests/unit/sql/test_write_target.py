"""The target of a write: no time travel on it, its OPTIONS hint checked per key, no system table.

Time travel on a source of the write still reads the old version.
"""

from __future__ import annotations

import os

import pytest

import paimon_sql
from paimon_sql.errors import OptionError, SqlError, UnsupportedFeatureError


def _listing(root):
    return sorted(
        os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
    )


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket'='1')")
    s.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")  # snapshot 1
    s.sql("INSERT INTO db.t VALUES (3, 'c')")  # snapshot 2
    s.sql("CREATE TABLE db.s (id INT, v STRING)")
    s.sql("INSERT INTO db.s VALUES (1, 'S1'), (3, 'S3')")
    return s


def _rows(session, table="db.t"):
    return session.sql(f"SELECT * FROM {table} ORDER BY id").fetchall()  # noqa: S608 - test SQL


TRAVEL_ON_TARGET = [
    "UPDATE db.t VERSION AS OF 1 SET v = 'x'",
    "UPDATE db.t AT (VERSION => 1) SET v = 'x'",
    "UPDATE db.t TIMESTAMP AS OF '2000-01-01 00:00:00' SET v = 'x'",
    "DELETE FROM db.t VERSION AS OF 1 WHERE id = 1",
    "DELETE FROM db.t FOR SYSTEM_TIME AS OF TIMESTAMP '2000-01-01 00:00:00' WHERE id = 2",
    "DELETE FROM db.t FOR SYSTEM_VERSION AS OF 1 WHERE id = 2",
    "MERGE INTO db.t VERSION AS OF 1 USING db.s ON t.id = s.id WHEN MATCHED THEN DELETE",
    "INSERT INTO db.t VERSION AS OF 1 VALUES (9, 'z')",
    "INSERT OVERWRITE db.t TIMESTAMP AS OF '2000-01-01' VALUES (9, 'z')",
    "INSERT INTO db.t FOR SYSTEM_TIME AS OF TIMESTAMP '2000-01-01 00:00:00' VALUES (9, 'z')",
    "UPDATE db.t /*+ OPTIONS('scan.snapshot-id'='1') */ SET v = 'x'",
    "DELETE FROM db.t /*+ OPTIONS('scan.tag-name'='x') */ WHERE id = 1",
    "INSERT INTO db.t /*+ OPTIONS('scan.timestamp-millis'='1') */ VALUES (9, 'z')",
]


@pytest.mark.parametrize("statement", TRAVEL_ON_TARGET)
def test_time_travel_on_a_write_target_is_refused(session, statement, tmp_path):
    before = _listing(tmp_path / "wh")
    with pytest.raises(UnsupportedFeatureError, match="a write acts on the latest snapshot"):
        session.sql(statement)
    assert _listing(tmp_path / "wh") == before
    assert _rows(session) == [(1, "a"), (2, "b"), (3, "c")]


def test_time_travel_on_a_source_of_a_write_reads_the_old_version(session):
    session.sql("CREATE TABLE db.copy (id INT, v STRING)")
    session.sql("INSERT INTO db.copy SELECT * FROM db.t VERSION AS OF 1")
    assert _rows(session, "db.copy") == [(1, "a"), (2, "b")]
    session.sql("DELETE FROM db.t WHERE id NOT IN (SELECT id FROM db.t VERSION AS OF 1)")
    assert _rows(session) == [(1, "a"), (2, "b")]
    session.sql("INSERT INTO db.t VALUES (3, 'c')")
    session.sql(
        "MERGE INTO db.t USING (SELECT * FROM db.t VERSION AS OF 1) AS old ON t.id = old.id "
        "WHEN MATCHED THEN UPDATE SET v = old.v || '!'"
    )
    assert _rows(session) == [(1, "a!"), (2, "b!"), (3, "c")]
    session.sql("UPDATE db.t SET v = 'u' WHERE id IN (SELECT id FROM db.t AT (VERSION => 1))")
    assert _rows(session) == [(1, "u"), (2, "u"), (3, "c")]
    session.sql(
        "MERGE INTO db.copy USING db.t VERSION AS OF 2 AS old ON copy.id = old.id "
        "WHEN NOT MATCHED THEN INSERT VALUES (old.id, old.v)"
    )
    assert _rows(session, "db.copy") == [(1, "a"), (2, "b"), (3, "c")]


def test_a_write_hint_sets_the_file_format_of_this_write_only(session):
    session.sql("INSERT INTO db.t /*+ OPTIONS('file.format'='orc') */ VALUES (4, 'd')")
    session.sql("INSERT INTO db.t (id, v) VALUES (5, 'e')")
    formats = session.sql('SELECT file_format FROM db."t$files"').fetchall()
    assert sorted(f for (f,) in formats) == ["orc", "parquet", "parquet", "parquet"]
    assert "file.format" not in session.table("db.t").latest_schema.options
    assert _rows(session)[-2:] == [(4, "d"), (5, "e")]


@pytest.mark.parametrize(
    ("hint", "error", "match"),
    [
        ("'totally-bogus'='1'", OptionError, "unknown table option 'totally-bogus'"),
        ("'file.format'='nope'", OptionError, "invalid value 'nope'"),
        ("'bucket'='5'", UnsupportedFeatureError, "'bucket' is fixed when the table is created"),
        ("'merge-engine'='first-row'", UnsupportedFeatureError, "'merge-engine' is fixed"),
        ("'sequence.field'='v'", UnsupportedFeatureError, "'sequence.field' is fixed"),
        ("'scan.mode'='latest'", UnsupportedFeatureError, "'scan.mode' is a read option"),
        ("'incremental-between'='1,2'", UnsupportedFeatureError, "is a read option"),
        ("'sink.parallelism'='4'", UnsupportedFeatureError, "'sink.parallelism' is not taken"),
    ],
)
@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO db.t /*+ OPTIONS({}) */ VALUES (9, 'z')",
        "INSERT OVERWRITE db.t /*+ OPTIONS({}) */ VALUES (9, 'z')",
        "UPDATE db.t /*+ OPTIONS({}) */ SET v = 'x' WHERE id = 1",
        "DELETE FROM db.t /*+ OPTIONS({}) */ WHERE id = 1",
        "MERGE INTO db.t /*+ OPTIONS({}) */ USING db.s ON t.id = s.id WHEN MATCHED THEN DELETE",
    ],
)
def test_a_write_hint_option_the_write_cannot_take_is_refused_by_name(
    session, statement, hint, error, match, tmp_path
):
    before = _listing(tmp_path / "wh")
    with pytest.raises(error, match=match):
        session.sql(statement.format(hint))
    assert _listing(tmp_path / "wh") == before


@pytest.mark.parametrize(
    "statement",
    [
        'INSERT INTO db."t$snapshots" VALUES (1)',
        'DELETE FROM db."t$files"',
        "UPDATE db.\"t$options\" SET value = 'x'",
        'MERGE INTO db."t$files" USING db.s ON true WHEN MATCHED THEN DELETE',
    ],
)
def test_a_write_to_a_system_table_is_refused(session, statement):
    name = statement.split('"')[1]
    with pytest.raises(
        SqlError, match=rf"db\.{name.replace('$', '[$]')}: system tables are read-only"
    ):
        session.sql(statement)


@pytest.fixture
def parted(session):
    session.sql("CREATE TABLE db.p (id INT, p STRING) PARTITIONED BY (p)")
    session.sql("INSERT INTO db.p VALUES (1, 'a'), (2, 'b')")
    return session


def test_insert_overwrite_replaces_the_written_partitions_by_default(parted):
    parted.sql("INSERT OVERWRITE db.p SELECT 3, 'a'")
    assert _rows(parted, "db.p") == [(2, "b"), (3, "a")]


def test_dynamic_partition_overwrite_false_as_a_hint_replaces_the_whole_table(parted):
    parted.sql(
        "INSERT OVERWRITE db.p /*+ OPTIONS('dynamic-partition-overwrite'='false') */ SELECT 3, 'a'"
    )
    assert _rows(parted, "db.p") == [(3, "a")]
    # a PARTITION clause still names the one partition replaced
    parted.sql("INSERT INTO db.p VALUES (4, 'b')")
    parted.sql(
        "INSERT OVERWRITE db.p /*+ OPTIONS('dynamic-partition-overwrite'='false') */ "
        "PARTITION (p = 'a') SELECT 5"
    )
    assert _rows(parted, "db.p") == [(4, "b"), (5, "a")]


def test_dynamic_partition_overwrite_false_as_a_table_option_replaces_the_whole_table(parted):
    parted.sql("ALTER TABLE db.p SET TBLPROPERTIES ('dynamic-partition-overwrite' = 'false')")
    parted.sql("INSERT OVERWRITE db.p SELECT 3, 'a'")
    assert _rows(parted, "db.p") == [(3, "a")]


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT /*+ OPTIONS('scan.snapshot-id'='1') */ * FROM db.t",
        "INSERT INTO db.s SELECT /*+ OPTIONS('scan.snapshot-id'='1') */ * FROM db.t",
        "INSERT OVERWRITE TABLE db.s SELECT /*+ OPTIONS('scan.snapshot-id'='1') */ * FROM db.t",
    ],
)
def test_an_options_hint_after_select_is_refused(session, statement):
    with pytest.raises(SqlError, match="put the hint after the table name"):
        session.sql(statement)


def test_other_comments_after_select_still_run(session):
    assert len(session.sql("SELECT /*+ BROADCAST(t) */ * FROM db.t").fetchall()) == 3
    assert len(session.sql("SELECT /* a note */ * FROM db.t").fetchall()) == 3


def test_insert_by_position_is_the_default_order(session):
    session.sql("INSERT INTO db.t BY POSITION VALUES (7, 'g')")
    session.sql("INSERT INTO db.t BY POSITION SELECT 8, 'h'")
    assert _rows(session)[-2:] == [(7, "g"), (8, "h")]


def test_delete_and_update_through_an_alias_of_the_target(session):
    session.sql("CREATE TABLE db.a (id INT, v STRING)")
    session.sql("INSERT INTO db.a VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    for table in ("db.t", "db.a"):
        delete = f"DELETE FROM {table} AS x WHERE x.id = 2"  # noqa: S608 - fixed test SQL
        assert session.sql(delete).fetchall() == [(1,)]
        session.sql(f"UPDATE {table} AS x SET v = x.v || '!' WHERE x.id = 3")  # noqa: S608
        assert _rows(session, table) == [(1, "a"), (3, "c!")]


def test_an_alias_of_the_target_reused_in_a_subquery_names_the_subquery_source(session):
    """SQL's scoping: in ``… AS x WHERE x.id IN (SELECT x.id FROM s AS x)`` the inner ``x`` is
    s. Checked against DuckDB's own tables running the same statements."""
    import duckdb

    duck = duckdb.connect()
    duck.sql("CREATE SCHEMA db")
    duck.sql("CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR)")
    duck.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    duck.sql("CREATE TABLE db.s AS SELECT * FROM (VALUES (1, 'S1'), (3, 'S3')) s(id, v)")
    statements = [
        "DELETE FROM db.t AS x WHERE x.id IN (SELECT x.id FROM db.s AS x WHERE x.v = 'S1')",
        "UPDATE db.t AS x SET v = 'u' WHERE EXISTS (SELECT 1 FROM db.s AS x WHERE x.id = 3) "
        "AND x.id = 2",
        "UPDATE db.t AS x SET v = (SELECT max(y.v) FROM db.s AS y WHERE y.id = x.id) "
        "WHERE x.id = 3",
    ]
    for statement in statements:
        session.sql(statement)
        duck.sql(statement)
        assert _rows(session) == duck.sql("SELECT * FROM db.t ORDER BY id").fetchall(), statement


def test_columns_qualified_by_database_and_table_name_in_delete_update_and_select(session):
    """``db.t.col`` names the target of DELETE/UPDATE and a table read, as in Spark and DuckDB."""
    session.sql("CREATE TABLE db.a (id INT, v STRING)")
    session.sql("INSERT INTO db.a VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    session.sql("CREATE TABLE db.dv (id INT, v STRING) WITH ('deletion-vectors.enabled' = 'true')")
    session.sql("INSERT INTO db.dv VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    for table in ("db.t", "db.a", "db.dv"):
        matched = f"SELECT 1 FROM db.s WHERE db.s.id = {table}.id"  # noqa: S608 - fixed test SQL
        gone = f"DELETE FROM {table} WHERE EXISTS ({matched})"  # noqa: S608
        assert session.sql(gone).fetchall() == [(2,)]
        session.sql(f"UPDATE {table} SET v = {table}.v || '!' WHERE {table}.id = 2")  # noqa: S608
        assert _rows(session, table) == [(2, "b!")]
        assert session.sql(f"SELECT {table}.v FROM {table}").fetchall() == [("b!",)]  # noqa: S608


def test_with_before_insert_gives_the_query_its_ctes(session):
    session.sql("WITH src AS (SELECT 9 AS id, 'n' AS v) INSERT INTO db.t SELECT * FROM src")
    session.sql("WITH unused AS (SELECT 1) INSERT INTO db.t VALUES (10, 'v')")
    assert _rows(session)[-2:] == [(9, "n"), (10, "v")]


@pytest.mark.parametrize(
    "statement",
    ["INSERT INTO db.t VALUES (15, DEFAULT)", "INSERT INTO db.t DEFAULT VALUES"],
)
def test_default_values_are_refused(session, statement):
    with pytest.raises(UnsupportedFeatureError, match="no column defaults on write"):
        session.sql(statement)


@pytest.mark.parametrize(
    "statement",
    [
        "EXPLAIN INSERT INTO db.t VALUES (1, 'a')",
        "EXPLAIN ANALYZE INSERT INTO db.t VALUES (1, 'a')",
        "EXPLAIN DELETE FROM db.t WHERE id = 1",
        "EXPLAIN UPDATE db.t SET v = 'x'",
        "PREPARE p AS INSERT INTO db.t VALUES (1, 'a')",
    ],
)
def test_a_planned_write_into_a_paimon_table_is_refused(session, statement, tmp_path):
    before = _listing(tmp_path / "wh")
    with pytest.raises(UnsupportedFeatureError, match="paimon-sql runs the write itself"):
        session.sql(statement)
    assert _listing(tmp_path / "wh") == before
    assert session.sql("EXPLAIN SELECT * FROM db.t").fetchall()  # a read still explains
