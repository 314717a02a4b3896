"""Statements over Paimon tables behave as in DuckDB, or are refused with a clear error: never a
silent no-op, a different meaning or a commit the user did not ask for (issue 16, item 3).

Each case runs through `paimon_sql.connect` as a new user would; a few run the shell as a process.
Every refusal checks the error type, that its message names no internal relation, and that nothing
was written (no new snapshot, schema or table).
"""

from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest

import paimon_sql
from paimon_sql.errors import (
    ExecutionError,
    PaimonSqlError,
    SchemaError,
    SqlError,
    UnsupportedFeatureError,
)


@pytest.fixture
def wh(tmp_path):
    return tmp_path / "wh"


@pytest.fixture
def s(wh):
    session = paimon_sql.connect(wh, create=True)
    session.sql("CREATE DATABASE d")
    session.sql("CREATE TABLE d.pk (k INT, v STRING, n INT, PRIMARY KEY (k) NOT ENFORCED)")
    session.sql("CREATE TABLE d.app (x INT, y STRING)")
    session.sql("INSERT INTO d.pk VALUES (1, 'a', 10), (2, 'b', 20)")
    yield session
    session.close()


def snapshots(s, name):
    return s.table(name).snapshot_ids()


def rows(s, query):
    return s.sql(query).fetchall()


def refused(s, statement, error, *, table="d.pk", match=None):
    """Run `statement`, expect `error`; nothing may have been committed to `table`."""
    before = snapshots(s, table) if table else None
    schema = s.table(table).latest_schema.id if table else None
    with pytest.raises(error, match=match) as caught:
        s.sql(statement)
    assert "__paimon" not in str(caught.value)
    assert "__c_" not in str(caught.value)
    if table:
        fresh = paimon_sql.connect(s.catalog.warehouse)
        try:
            assert fresh.table(table).snapshot_ids() == before
            assert fresh.table(table).latest_schema.id == schema
        finally:
            fresh.close()
    return caught.value


def duckdb_copy(s, *names: str) -> duckdb.DuckDBPyConnection:
    """A new DuckDB connection with a copy of the rows of each Paimon table `names` (``d.t``) or
    DuckDB table of `s`, under the same name: the oracle a statement's result is compared with."""
    plain = duckdb.connect()
    plain.sql("CREATE SCHEMA d")
    for name in names:
        plain.register("rows", s.sql(f"SELECT * FROM {name}").arrow())  # noqa: S608
        plain.sql(f"CREATE TABLE {name.removeprefix('memory.main.')} AS SELECT * FROM rows")  # noqa: S608
        plain.unregister("rows")
    return plain


# --------------------------------------------------------------------- CREATE TABLE in a database


def test_use_database_then_create_table_makes_a_paimon_table(s, wh):
    s.sql("USE d")
    assert rows(s, "CREATE TABLE t (x INT, y VARCHAR)") == [("created table d.t",)]
    assert rows(s, "INSERT INTO t VALUES (1, 'one')") == [(1,)]
    assert rows(s, "SELECT * FROM t") == [(1, "one")]
    other = paimon_sql.connect(wh)
    assert rows(other, "SELECT * FROM d.t") == [(1, "one")]
    assert "t" in other.catalog.tables("d")
    other.close()


def test_create_table_in_a_database_without_options_is_paimon(s, wh):
    s.sql("CREATE TABLE d.plain (id BIGINT, name VARCHAR)")
    s.sql("INSERT INTO d.plain VALUES (1, 'x')")
    other = paimon_sql.connect(wh)
    assert rows(other, "SELECT * FROM d.plain") == [(1, "x")]
    assert rows(other, "DESCRIBE d.plain")[1][:2] == ("name", "STRING")
    other.close()


def test_use_a_database_made_by_another_session_before_its_first_table(s, wh):
    other = paimon_sql.connect(wh)
    other.sql("CREATE DATABASE fresh")
    s.sql("USE fresh")
    s.sql("CREATE TABLE t (x INT)")
    assert "t" in s.catalog.tables("fresh")
    other.close()


def test_duckdb_tables_stay_available_under_memory_and_temp(s):
    s.sql("USE d")
    s.sql("CREATE TABLE memory.main.m (id UUID)")
    s.sql("CREATE TEMP TABLE scratch (x HUGEINT)")
    s.sql("INSERT INTO memory.main.m SELECT gen_random_uuid()")
    s.sql("INSERT INTO scratch VALUES (1)")
    assert rows(s, "SELECT count(*) FROM memory.main.m") == [(1,)]
    assert rows(s, "SELECT x FROM scratch") == [(1,)]
    assert sorted(s.catalog.tables("d")) == ["app", "pk"]


def test_create_table_outside_paimon_databases_stays_duckdb(s):
    s.sql("CREATE TABLE loose (x INT)")  # `main` is current: DuckDB's table, as in DuckDB
    s.sql("INSERT INTO loose VALUES (1)")
    assert rows(s, "SELECT * FROM loose") == [(1,)]
    assert sorted(s.catalog.tables("d")) == ["app", "pk"]


def test_varchar_without_length_is_string(s):
    s.sql("CREATE TABLE d.v (a VARCHAR, b VARCHAR(10))")
    fields = s.table("d.v").latest_schema.fields
    assert [paimon_sql.types.type_sql(f.type) for f in fields] == ["STRING", "VARCHAR(10)"]


@pytest.mark.parametrize(
    ("column_type", "alternative"),
    [
        ("UUID", "STRING"),
        ("HUGEINT", "DECIMAL(38, 0)"),
        ("JSON", "STRING"),
        ("UTINYINT", "SMALLINT"),
        ("UBIGINT", "DECIMAL(20, 0)"),
        ("TIMESTAMPTZ", "TIMESTAMP_LTZ"),
        ("INTERVAL", "BIGINT"),
    ],
)
def test_unsupported_types_are_refused_naming_column_and_alternative(s, column_type, alternative):
    err = refused(s, f"CREATE TABLE d.bad (id INT, payload {column_type})", SqlError, table=None)
    assert "'payload'" in str(err)
    assert f"use {alternative}" in str(err)
    assert "bad" not in s.catalog.tables("d")


def test_unsupported_type_refused_after_use_too(s):
    s.sql("USE d")
    with pytest.raises(SqlError, match=r"column 'u'.*use STRING"):
        s.sql("CREATE TABLE bad (u UUID)")
    assert "bad" not in s.catalog.tables("d")


# ------------------------------------------------------------------------------- options and keys


@pytest.mark.parametrize("producer", ["input", "lookup", "full-compaction"])
def test_changelog_producers_accepted(s, producer):
    # issue 17: every producer is written (Flink reads our changelog as its own:
    # tests/interop/flink/test_changes_flink.py), so none is refused any more
    name = "cl_" + producer.replace("-", "_")
    s.sql(
        f"CREATE TABLE d.{name} (k INT, v INT, PRIMARY KEY (k) NOT ENFORCED) "
        f"WITH ('changelog-producer' = '{producer}')"
    )
    assert name in s.catalog.tables("d")
    s.sql(f"ALTER TABLE d.{name} SET ('changelog-producer' = 'none')")


def test_cross_partition_primary_key_moves_a_key_between_partitions(s):
    """A key that leaves out a partition column (here dt; hr is in both) lives in one partition:
    an upsert naming another dt moves it (deduplicate), the key (k, hr) stays unique."""
    s.sql(
        "CREATE TABLE d.cp (k INT, dt STRING, hr INT, v STRING, PRIMARY KEY (k, hr) NOT ENFORCED) "
        "PARTITIONED BY (dt, hr)"
    )
    s.sql("INSERT INTO d.cp VALUES (1, 'x', 1, 'a'), (1, 'x', 2, 'b'), (2, 'y', 1, 'c')")
    s.sql("INSERT INTO d.cp VALUES (1, 'y', 1, 'moved'), (3, 'x', 1, 'new')")
    assert rows(s, "SELECT * FROM d.cp ORDER BY k, hr") == [
        (1, "y", 1, "moved"),
        (1, "x", 2, "b"),
        (2, "y", 1, "c"),
        (3, "x", 1, "new"),
    ]


def test_update_moves_rows_between_partitions_where_java_does(s):
    """As Java's UPDATE: a partition column outside the primary key may change, the row moves
    (cross-partition keys, append tables with or without deletion vectors); a key column may not.
    The counts are the rows the statement names, as DuckDB's (a moved key's retraction is not
    counted)."""
    tables = {
        "cp": "WITH ('primary-key' = 'k', 'bucket' = '-1')",
        "ap": "",
        "dv": "WITH ('deletion-vectors.enabled' = 'true')",
    }
    for name, options in tables.items():
        s.sql(f"CREATE TABLE d.{name} (k INT, v STRING, dt STRING) PARTITIONED BY (dt) {options}")
        s.sql(f"INSERT INTO d.{name} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')")  # noqa: S608
        assert rows(s, f"UPDATE d.{name} SET dt = 'q' WHERE k = 1") == [(1,)]  # noqa: S608
        assert rows(s, f"UPDATE d.{name} SET dt = 'y', v = 'm' WHERE k = 2") == [(1,)]  # noqa: S608
        assert rows(s, f"SELECT * FROM d.{name} ORDER BY k") == [  # noqa: S608
            (1, "a", "q"),
            (2, "m", "y"),
            (3, "c", "y"),
        ], name
    assert rows(s, "INSERT INTO d.cp VALUES (3, 'moved', 'w')") == [(1,)]
    assert rows(s, "SELECT * FROM d.cp WHERE k = 3") == [(3, "moved", "w")]
    s.sql(
        "CREATE TABLE d.kp (k INT, dt STRING, PRIMARY KEY (k, dt) NOT ENFORCED) PARTITIONED BY (dt)"
    )
    with pytest.raises(SchemaError, match="UPDATE cannot change primary-key column 'dt'"):
        s.sql("UPDATE d.kp SET dt = 'q'")


def test_cross_partition_index_ttl_forgets_old_buckets(s):
    """'cross-partition-upsert.index-ttl': as Java's IndexBootstrap, a bucket none of whose files
    is younger than the TTL lends no keys to the index, so its key is written again elsewhere
    (the duplicate Java's documentation warns of); without the TTL the key moves."""
    import time

    for name, ttl in (("ttl", ", 'cross-partition-upsert.index-ttl' = '1 ms'"), ("nottl", "")):
        s.sql(
            f"CREATE TABLE d.{name} (k INT, dt STRING, PRIMARY KEY (k) NOT ENFORCED) "
            f"PARTITIONED BY (dt) WITH ('bucket' = '-1'{ttl})"
        )
        s.sql(f"INSERT INTO d.{name} VALUES (1, 'a')")  # noqa: S608 - test names
    time.sleep(0.05)
    for name in ("ttl", "nottl"):
        s.sql(f"INSERT INTO d.{name} VALUES (1, 'b')")  # noqa: S608 - test names
    assert rows(s, "SELECT * FROM d.ttl ORDER BY dt") == [(1, "a"), (1, "b")]
    assert rows(s, "SELECT * FROM d.nottl") == [(1, "b")]


# ------------------------------------------------------------------------------------------ INSERT


def test_insert_by_name_matches_columns_by_name(s):
    s.sql("INSERT INTO d.app BY NAME SELECT 'one' AS y, 1 AS x")
    s.sql("INSERT INTO d.app BY NAME SELECT 'only y' AS y")
    assert rows(s, "SELECT * FROM d.app ORDER BY y") == [(1, "one"), (None, "only y")]


def test_insert_by_name_unknown_column_is_refused(s):
    err = refused(s, "INSERT INTO d.app BY NAME SELECT 1 AS z", ExecutionError, table="d.app")
    assert 'does not have a column with name "z"' in str(err)


def test_insert_column_list_fills_the_rest_with_null(s):
    s.sql("INSERT INTO d.app (y) VALUES ('no x')")
    s.sql("INSERT INTO d.app (y, x) VALUES ('swapped', 7)")
    assert rows(s, "SELECT * FROM d.app ORDER BY y") == [(None, "no x"), (7, "swapped")]


def test_column_names_in_insert_and_update_resolve_as_in_select(s):
    """Case-insensitively, as DuckDB resolves every other name of the statement (and MERGE)."""
    s.sql("INSERT INTO d.app (Y, X) VALUES ('upper', 3)")
    s.sql("UPDATE d.pk SET V = 'A', N = n + 1 WHERE K = 1")
    s.sql("UPDATE d.pk SET K = k, \"V\" = 'B' WHERE k = 2")  # SET k = k keeps the key
    assert rows(s, "SELECT * FROM d.app") == [(3, "upper")]
    assert rows(s, "SELECT * FROM d.pk ORDER BY k") == [(1, "A", 11), (2, "B", 20)]
    refused(s, "UPDATE d.pk SET K = 5 WHERE k = 1", SchemaError, match="primary-key column 'k'")
    refused(s, "UPDATE d.pk SET w = 5", SchemaError, match="unknown column 'w' in UPDATE of d.pk")
    refused(s, "INSERT INTO d.app (x, W) VALUES (1, 2)", SchemaError, table="d.app", match="W")


def test_a_column_named_twice_is_refused_as_duckdb_refuses_it(s):
    refused(
        s,
        "UPDATE d.pk SET v = 'x', V = 'y' WHERE k = 1",
        SqlError,
        match='Multiple assignments to same column "V" in UPDATE of d.pk',
    )
    refused(
        s,
        "INSERT INTO d.app (x, X) VALUES (1, 2)",
        SqlError,
        table="d.app",
        match='Duplicate column name "X" in INSERT into d.app',
    )
    con = duckdb.connect()  # DuckDB's own tables say the same
    con.execute("CREATE TABLE app (x INT, y VARCHAR)")
    with pytest.raises(duckdb.BinderException, match='Multiple assignments to same column "Y"'):
        con.execute("UPDATE app SET y = 'a', Y = 'b'")
    with pytest.raises(duckdb.BinderException, match='Duplicate column name "X" in INSERT'):
        con.execute("INSERT INTO app (x, X) VALUES (1, 2)")


def test_value_count_mismatch_uses_duckdbs_message(s):
    err = refused(s, "INSERT INTO d.app VALUES (1, 'a', 3)", ExecutionError, table="d.app")
    assert "has 2 columns but 3 values were supplied" in str(err)
    err = refused(s, "INSERT INTO d.app VALUES (1)", ExecutionError, table="d.app")
    assert "has 2 columns but 1 values were supplied" in str(err)
    err = refused(s, "INSERT INTO d.app (x) VALUES (1, 'a')", ExecutionError, table="d.app")
    assert "expected 1 columns but 2 values were supplied" in str(err)
    err = refused(s, "INSERT INTO d.app VALUES (1, 'a'), (2)", ExecutionError, table="d.app")
    assert "VALUES lists must all be the same length" in str(err)
    con = duckdb.connect()  # the same words as DuckDB's own tables
    con.execute("CREATE TABLE app (x INT, y VARCHAR)")
    with pytest.raises(duckdb.BinderException, match="has 2 columns but 3 values were supplied"):
        con.execute("INSERT INTO app VALUES (1, 'a', 3)")


def test_on_conflict_do_nothing_keeps_existing_rows(s):
    result = rows(s, "INSERT INTO d.pk VALUES (1, 'new', 0), (3, 'c', 30) ON CONFLICT DO NOTHING")
    assert result == [(1,)]
    assert rows(s, "SELECT * FROM d.pk ORDER BY k") == [(1, "a", 10), (2, "b", 20), (3, "c", 30)]


def test_on_conflict_do_nothing_keeps_the_first_of_a_repeated_key(s):
    s.sql("INSERT INTO d.pk VALUES (5, 'first', 0), (5, 'second', 0) ON CONFLICT (k) DO NOTHING")
    assert rows(s, "SELECT v FROM d.pk WHERE k = 5") == [("first",)]


def test_insert_or_ignore_with_every_key_present_writes_no_snapshot(s):
    before = snapshots(s, "d.pk")
    assert rows(s, "INSERT OR IGNORE INTO d.pk VALUES (1, 'x', 0), (2, 'y', 0)") == [(0,)]
    assert snapshots(s, "d.pk") == before
    assert rows(s, "SELECT * FROM d.pk ORDER BY k") == [(1, "a", 10), (2, "b", 20)]


def test_on_conflict_do_update_applies_the_update_to_existing_keys(s):
    s.sql(
        "INSERT INTO d.pk VALUES (1, 'z', 1), (4, 'd', 40) "
        "ON CONFLICT (k) DO UPDATE SET v = excluded.v || v, n = n + excluded.n"
    )
    assert rows(s, "SELECT * FROM d.pk ORDER BY k") == [(1, "za", 11), (2, "b", 20), (4, "d", 40)]


def test_on_conflict_do_update_where_false_keeps_the_row(s):
    s.sql(
        "INSERT INTO d.pk VALUES (1, 'z', 1), (2, 'y', 2) "
        "ON CONFLICT DO UPDATE SET v = excluded.v WHERE n > 15"
    )
    assert rows(s, "SELECT * FROM d.pk ORDER BY k") == [(1, "a", 10), (2, "y", 20)]


def test_insert_or_replace_upserts(s):
    s.sql("INSERT OR REPLACE INTO d.pk VALUES (1, 'r', 0)")
    assert rows(s, "SELECT * FROM d.pk WHERE k = 1") == [(1, "r", 0)]


def test_on_conflict_on_an_append_table_is_refused(s):
    err = refused(
        s, "INSERT INTO d.app VALUES (1, 'a') ON CONFLICT DO NOTHING", ExecutionError, table="d.app"
    )
    assert "PRIMARY KEY" in str(err)


def test_on_conflict_target_must_be_the_primary_key(s):
    err = refused(
        s, "INSERT INTO d.pk VALUES (1, 'a', 0) ON CONFLICT (v) DO NOTHING", ExecutionError
    )
    assert "conflict target" in str(err)


def test_on_conflict_do_update_of_a_key_twice_is_refused(s):
    refused(
        s,
        "INSERT INTO d.pk VALUES (1, 'x', 0), (1, 'y', 0) ON CONFLICT DO UPDATE SET v = excluded.v",
        ExecutionError,
        match="same row twice",
    )


def test_on_conflict_do_update_on_a_merging_engine_is_refused(s):
    s.sql(
        "CREATE TABLE d.pu (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('merge-engine' = 'partial-update')"
    )
    s.sql("INSERT INTO d.pu VALUES (1, 'a')")
    refused(
        s,
        "INSERT INTO d.pu VALUES (1, 'b') ON CONFLICT DO UPDATE SET v = excluded.v",
        UnsupportedFeatureError,
        table="d.pu",
        match="partial-update",
    )


def test_on_conflict_do_update_with_a_subquery(s):
    s.sql("INSERT INTO d.app VALUES (5, 'sub')")
    s.sql(
        "INSERT INTO d.pk VALUES (1, 'x', 0) "
        "ON CONFLICT DO UPDATE SET v = (SELECT max(y) FROM d.app) || v, n = excluded.n"
    )
    assert rows(s, "SELECT * FROM d.pk WHERE k = 1") == [(1, "suba", 0)]


def test_insert_or_replace_on_a_merging_engine_is_refused(s):
    s.sql(
        "CREATE TABLE d.agg (k INT, n INT, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum')"
    )
    s.sql("INSERT INTO d.agg VALUES (1, 1)")
    refused(s, "INSERT OR REPLACE INTO d.agg VALUES (1, 5)", UnsupportedFeatureError, table="d.agg")
    assert rows(s, "SELECT * FROM d.agg") == [(1, 1)]


def test_an_error_in_returning_writes_nothing(s):
    refused(s, "INSERT INTO d.pk VALUES (3, 'c', 30) RETURNING nope", ExecutionError)
    assert rows(s, "SELECT count(*) FROM d.pk") == [(2,)]


def test_on_conflict_do_update_cannot_change_the_key(s):
    refused(
        s,
        "INSERT INTO d.pk VALUES (1, 'x', 0) ON CONFLICT DO UPDATE SET k = 9",
        SchemaError,
        match="primary-key column 'k'",
    )


def test_insert_returning_gives_the_inserted_rows(s):
    result = rows(s, "INSERT INTO d.app VALUES (1, 'a'), (2, 'b') RETURNING *")
    assert sorted(result) == [(1, "a"), (2, "b")]
    result = rows(s, "INSERT INTO d.app (y) VALUES ('c') RETURNING x IS NULL AS no_x, upper(y)")
    assert result == [(True, "C")]
    assert rows(s, "SELECT count(*) FROM d.app") == [(3,)]


def test_insert_on_conflict_returning_gives_the_rows_written(s):
    result = rows(
        s,
        "INSERT INTO d.pk VALUES (1, 'x', 0), (3, 'c', 30) ON CONFLICT DO NOTHING RETURNING k, v",
    )
    assert result == [(3, "c")]
    result = rows(
        s,
        "INSERT INTO d.pk VALUES (2, 'B', 0) ON CONFLICT DO UPDATE SET v = excluded.v RETURNING *",
    )
    assert result == [(2, "B", 20)]


@pytest.mark.parametrize(
    "statement",
    ["UPDATE d.pk SET v = 'q' RETURNING *", "DELETE FROM d.pk WHERE k = 1 RETURNING k"],
)
def test_update_and_delete_returning_are_refused(s, statement):
    refused(s, statement, UnsupportedFeatureError, match="RETURNING")
    assert rows(s, "SELECT * FROM d.pk ORDER BY k") == [(1, "a", 10), (2, "b", 20)]


#: UPDATE … FROM and DELETE … USING, each run by paimon-sql on a primary-key and an append
#: table and by DuckDB on copies of the same rows (``src`` is a DuckDB table, ``d.app`` Paimon's).
_JOINED_WRITES = [
    "UPDATE d.{t} SET v = src.v FROM src WHERE src.k = d.{t}.k",
    "UPDATE d.{t} AS t SET v = s.v || '!', n = t.n + s.k FROM (SELECT k, v FROM src) AS s "
    "WHERE t.k = s.k AND s.v <> 'x'",
    "UPDATE d.{t} SET n = 0 FROM d.app WHERE {t}.k = app.x AND app.y <> 'again'",
    "UPDATE d.{t} SET n = -1 FROM (SELECT 1) AS one(c)",
    "DELETE FROM d.{t} USING src WHERE src.k = d.{t}.k",
    "DELETE FROM d.{t} AS t USING src, d.app WHERE t.k = src.k AND src.k = app.x",
    "DELETE FROM d.{t} USING d.app WHERE app.x IS NULL",
]


@pytest.mark.parametrize("kind", ["pk", "ap"])
@pytest.mark.parametrize("statement", _JOINED_WRITES)
def test_update_from_and_delete_using_give_duckdbs_answer(s, wh, kind, statement):
    s.sql("CREATE TABLE d.ap (k INT, v STRING, n INT)")
    s.sql("INSERT INTO d.ap SELECT * FROM d.pk")
    s.sql("INSERT INTO d.pk VALUES (3, 'c', 30)")
    s.sql("INSERT INTO d.ap VALUES (3, 'c', 30), (3, 'c2', 31)")
    s.sql("INSERT INTO d.app VALUES (2, 'two'), (3, 'three'), (3, 'again')")
    s.sql("CREATE TABLE memory.main.src AS FROM (VALUES (1, 'x'), (2, 'y'), (3, 'z')) v(k, v)")
    plain = duckdb_copy(s, f"d.{kind}", "d.app", "memory.main.src")
    text = statement.format(t=kind)
    plain.sql(text)
    s.sql(text)
    want = sorted(plain.sql(f"SELECT * FROM d.{kind}").fetchall())  # noqa: S608
    other = paimon_sql.connect(wh)
    assert sorted(rows(other, f"SELECT * FROM d.{kind}")) == want  # noqa: S608
    other.close()


def test_update_from_where_a_row_matches_several_source_rows_is_refused(s):
    """DuckDB takes one of the source rows at random; paimon-sql refuses, as its MERGE does."""
    s.sql("CREATE TABLE memory.main.src AS SELECT * FROM (VALUES (1, 'x'), (1, 'y')) AS v(k, v)")
    refused(
        s,
        "UPDATE d.pk SET v = src.v FROM src WHERE src.k = pk.k",
        PaimonSqlError,
        match=r"UPDATE d\.pk … FROM: a row of d\.pk matched more than one row of FROM",
    )
    refused(
        s,
        "UPDATE d.pk SET v = 'q' FROM src, d.app WHERE src.k = pk.k",
        UnsupportedFeatureError,
        match="several tables",
    )
    refused(
        s,
        "DELETE FROM d.pk USING src WHERE src.k = pk.k RETURNING *",
        UnsupportedFeatureError,
        match="RETURNING",
    )


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE d.pk SET (v, n) = ('z', n + 1) WHERE k = 2",
        "UPDATE d.pk SET (v) = ('y')",
        "UPDATE d.pk SET (n) = (SELECT max(n) FROM d.pk) WHERE k = 1",
    ],
)
def test_update_of_a_column_tuple_gives_duckdbs_answer(s, wh, statement):
    plain = duckdb_copy(s, "d.pk")
    plain.sql(statement)
    s.sql(statement)
    other = paimon_sql.connect(wh)
    want = sorted(plain.sql("SELECT * FROM d.pk").fetchall())
    assert sorted(rows(other, "SELECT * FROM d.pk")) == want
    other.close()


@pytest.mark.parametrize(
    ("statement", "error", "match"),
    [
        ("UPDATE d.pk SET (v, n) = ('z')", SqlError, r"SET \(v, n\) = … needs as many values"),
        ("UPDATE d.pk SET v = DEFAULT", UnsupportedFeatureError, "no column defaults"),
        (
            "MERGE INTO d.pk USING (SELECT 1 AS k) AS s ON pk.k = s.k "
            "WHEN MATCHED THEN UPDATE SET v = DEFAULT",
            UnsupportedFeatureError,
            "no column defaults",
        ),
    ],
    ids=["too-few-values", "update-default", "merge-default"],
)
def test_update_set_forms_paimon_cannot_write_are_refused(s, statement, error, match):
    refused(s, statement, error, match=match)


# ------------------------------------------------------------------------------- malformed DML


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE d.pk SET WHERE k = 1",
        "UPDATE d.pk SET",
        "DELETE FROM d.pk WHERE",
        "DELETE d.pk WHERE k = 1",
        "INSERT INTO d.pk VALUES",
        "INSERT INTO d.pk",
    ],
)
def test_malformed_dml_is_an_error_and_writes_nothing(s, statement):
    refused(s, statement, SqlError)


# ----------------------------------------------------------------------------------- transactions


def test_write_inside_a_transaction_is_refused(s):
    s.sql("BEGIN")
    refused(s, "INSERT INTO d.pk VALUES (3, 'c', 30)", UnsupportedFeatureError, match="transaction")
    s.sql("ROLLBACK")
    assert rows(s, "SELECT count(*) FROM d.pk") == [(2,)]
    s.sql("INSERT INTO d.pk VALUES (3, 'c', 30)")  # outside a transaction: written
    assert rows(s, "SELECT count(*) FROM d.pk") == [(3,)]


def test_transaction_in_one_text_is_refused_and_rolls_nothing_in(s):
    with pytest.raises(UnsupportedFeatureError, match="commit per statement"):
        s.sql("BEGIN; INSERT INTO d.pk VALUES (3, 'c', 30); ROLLBACK")
    s.con.rollback()
    assert rows(s, "SELECT count(*) FROM d.pk") == [(2,)]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE d.pk SET v = 'q'",
        "DELETE FROM d.pk",
        "TRUNCATE TABLE d.pk",
        "ALTER TABLE d.pk ADD COLUMN extra INT",
        "DROP TABLE d.pk",
        "CALL sys.create_tag(`table` => 'd.pk', tag => 'v1')",
    ],
)
def test_other_paimon_writes_inside_a_transaction_are_refused(s, statement):
    s.con.begin()  # a transaction begun on the connection counts too
    refused(s, statement, UnsupportedFeatureError, match="transaction")
    s.con.rollback()
    assert "pk" in s.catalog.tables("d")
    assert s.table("d.pk").tag_names() == []


def test_create_table_inside_a_transaction_is_refused(s):
    s.sql("BEGIN TRANSACTION")
    with pytest.raises(UnsupportedFeatureError, match="transaction"):
        s.sql("CREATE TABLE d.tx (x INT)")
    s.sql("ROLLBACK")
    assert "tx" not in s.catalog.tables("d")


def test_reads_inside_a_transaction_work(s):
    s.sql("BEGIN")
    assert rows(s, "SELECT count(*) FROM d.pk") == [(2,)]
    s.sql("COMMIT")


def test_every_error_is_a_paimon_sql_error(s):
    for statement in (
        "INSERT INTO d.app VALUES (1, 'a', 3)",
        "INSERT INTO d.app BY NAME SELECT 1 AS nope",
        "UPDATE d.pk SET WHERE k = 1",
    ):
        with pytest.raises(PaimonSqlError):
            s.sql(statement)


# ----------------------------------------------------------------------- table clauses and PIVOT

#: Statements whose table clauses (PIVOT, UNPIVOT, a parenthesised join) paimon-sql must keep
#: when it replaces ``d.pk`` (three commits: a merged read) by its scan; DuckDB on a copy of the
#: rows is the oracle. Each once dropped the clause silently or failed on internal names.
_CLAUSES = [
    "SELECT * FROM d.pk PIVOT (count(*) FOR v IN ('a', 'c'))",
    "SELECT * FROM d.pk UNPIVOT (val FOR col IN (v))",
    "SELECT * FROM (d.pk JOIN d.app ON k = x)",
    # a filter on the side an outer join pads with NULLs must not reach that table's scan
    "SELECT * FROM (d.pk p RIGHT JOIN d.app a ON p.k = a.x) WHERE p.k IS NULL",
    "SELECT * FROM (d.app a LEFT JOIN d.pk p ON p.k = a.x) WHERE p.v IS NULL OR p.n > 20",
    "PIVOT d.pk ON v USING sum(n) GROUP BY k",
    "UNPIVOT d.pk ON v INTO NAME col VALUE val",
    "SELECT * FROM (PIVOT d.pk ON v USING count(*)) WHERE k > 1",
    "PIVOT (SELECT p.k, p.v, a.y FROM d.pk AS p JOIN d.app AS a ON p.k = a.x) ON v USING first(y)",
    "PIVOT (SELECT p.k, q.v FROM d.pk AS p JOIN d.pk AS q ON p.k = q.k) ON v USING count(*)",
]


@pytest.mark.parametrize("statement", _CLAUSES)
def test_table_clauses_and_pivot_statements_give_duckdbs_answer(s, statement):
    s.sql("INSERT INTO d.pk VALUES (2, 'c', 21), (3, 'a', 30)")
    s.sql("INSERT INTO d.app VALUES (1, 'one'), (2, 'two'), (9, 'nine')")
    plain = duckdb_copy(s, "d.pk", "d.app")
    assert plain.sql("SELECT count(*) FROM d.pk").fetchall() == [(3,)]
    assert sorted(rows(s, statement)) == sorted(plain.sql(statement).fetchall())
    # the same rows written by INSERT … SELECT (a write renders the statement on its own path)
    s.sql(f"CREATE TABLE d.out AS SELECT * FROM ({statement}) LIMIT 0")  # noqa: S608
    s.sql(f"INSERT INTO d.out SELECT * FROM ({statement})")  # noqa: S608
    assert sorted(rows(s, "SELECT * FROM d.out")) == sorted(plain.sql(statement).fetchall())


@pytest.mark.parametrize(
    "clause", ["WITH ORDINALITY", "AS t WITH ORDINALITY"], ids=["ordinality", "aliased"]
)
def test_a_table_clause_paimon_sql_cannot_keep_is_refused_by_name(s, clause):
    statement = f"SELECT * FROM d.pk {clause}"  # noqa: S608
    refused(s, statement, UnsupportedFeatureError, match="ORDINALITY")


def test_create_table_as_a_pivot_statement(s, wh):
    """In parentheses it makes the table; bare, sqlglot cannot read it: the error says so."""
    s.sql("INSERT INTO d.pk VALUES (2, 'c', 21)")
    refused(s, "CREATE TABLE d.p AS PIVOT d.pk ON v USING count(*)", SqlError, match="parentheses")
    assert "p" not in s.catalog.tables("d")
    assert rows(s, "CREATE TABLE d.p AS (PIVOT d.pk ON v USING count(*))") == [(2,)]
    other = paimon_sql.connect(wh)
    assert sorted(rows(other, "SELECT * FROM d.p")) == [(1, 10, 1, 0), (2, 21, 0, 1)]
    other.close()


# -------------------------------------------------------------------------------- the shell


def _shell(wh, command):
    return subprocess.run(
        [sys.executable, "-m", "paimon_sql.cli", str(wh), "-c", command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_shell_use_create_insert_by_name(s, wh):
    done = _shell(
        wh,
        "USE d; CREATE TABLE t (x INT, y VARCHAR); INSERT INTO t BY NAME SELECT 'b' AS y, 2 AS x;",
    )
    assert done.returncode == 0, done.stderr
    other = paimon_sql.connect(wh)
    assert rows(other, "SELECT * FROM d.t") == [(2, "b")]
    other.close()


def test_shell_transaction_is_refused_and_nothing_commits(s, wh):
    before = snapshots(s, "d.pk")
    done = _shell(wh, "BEGIN; INSERT INTO d.pk VALUES (9, 'z', 0); ROLLBACK;")
    assert done.returncode == 1
    assert "inside a transaction" in done.stderr
    assert "Traceback" not in done.stderr
    assert paimon_sql.connect(wh).table("d.pk").snapshot_ids() == before


def test_shell_unsupported_type_names_the_column(s, wh):
    done = _shell(wh, "CREATE TABLE d.u (id INT, tag UUID);")
    assert done.returncode == 1
    assert "column 'tag'" in done.stderr
    assert "use STRING" in done.stderr
    assert "u" not in paimon_sql.connect(wh).catalog.tables("d")
