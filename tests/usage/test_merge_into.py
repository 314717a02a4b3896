"""``MERGE INTO`` a Paimon table behaves as DuckDB's own MERGE (issue 16, item 3).

Every statement runs twice: through `paimon_sql.connect` on a Paimon table, and on a plain DuckDB
table with the same rows (DuckDB is the oracle: the rows left and the count it reports). Each
MERGE makes one snapshot (none when it changes nothing). Refusals name what is refused, leak no
internal name, and write nothing. Spark reading a MERGE's result back is in
``tests/interop/test_merge_spark.py``.
"""

from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest

import paimon_sql
from paimon_sql.errors import (
    ExecutionError,
    SchemaError,
    SqlError,
    TableNotFoundError,
    UnsupportedFeatureError,
)

TARGET_ROWS = "(1, 'a', 10, 'x'), (2, 'b', 20, 'x'), (3, 'c', 30, 'y'), (4, 'd', 40, 'z')"
SOURCE_ROWS = "(1, 'one', 100), (3, 'three', 300), (5, 'five', 500), (6, 'six', 600)"

#: (Paimon DDL, DuckDB DDL) of the target: a primary-key table, an append table, a partitioned one.
TARGETS = {
    "pk": (
        "CREATE TABLE d.t (k INT, v STRING, n INT, dt STRING, PRIMARY KEY (k) NOT ENFORCED)",
        "CREATE TABLE d.t (k INT PRIMARY KEY, v VARCHAR, n INT, dt VARCHAR)",
    ),
    "append": (
        "CREATE TABLE d.t (k INT, v STRING, n INT, dt STRING)",
        "CREATE TABLE d.t (k INT, v VARCHAR, n INT, dt VARCHAR)",
    ),
    "append_partitioned": (
        "CREATE TABLE d.t (k INT, v STRING, n INT, dt STRING) PARTITIONED BY (dt)",
        "CREATE TABLE d.t (k INT, v VARCHAR, n INT, dt VARCHAR)",
    ),
    "pk_partitioned": (
        "CREATE TABLE d.t (k INT, v STRING, n INT, dt STRING, PRIMARY KEY (k, dt) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '2')",
        "CREATE TABLE d.t (k INT, v VARCHAR, n INT, dt VARCHAR, PRIMARY KEY (k, dt))",
    ),
    "pk_cross_partition": (
        "CREATE TABLE d.t (k INT, v STRING, n INT, dt STRING, PRIMARY KEY (k) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '-1')",
        "CREATE TABLE d.t (k INT PRIMARY KEY, v VARCHAR, n INT, dt VARCHAR)",
    ),
    "append_dv_partitioned": (
        "CREATE TABLE d.t (k INT, v STRING, n INT, dt STRING) PARTITIONED BY (dt) "
        "WITH ('deletion-vectors.enabled' = 'true')",
        "CREATE TABLE d.t (k INT, v VARCHAR, n INT, dt VARCHAR)",
    ),
}

STATEMENTS = {
    "update_delete_insert": (
        "MERGE INTO d.t USING src ON t.k = src.k "
        "WHEN MATCHED AND src.n > 200 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET v = src.v, n = t.n + src.n "
        "WHEN NOT MATCHED THEN INSERT VALUES (src.k, src.v, src.n, 'w')"
    ),
    "insert_only_with_condition": (
        "MERGE INTO d.t USING src ON t.k = src.k "
        "WHEN NOT MATCHED AND src.k > 5 THEN INSERT (k, v, dt) VALUES (src.k, upper(src.v), 'x')"
    ),
    "first_clause_wins": (
        "MERGE INTO d.t AS tgt USING src AS s ON tgt.k = s.k "
        "WHEN MATCHED AND s.k = 1 THEN DO NOTHING "
        "WHEN MATCHED THEN UPDATE SET v = 'updated' "
        "WHEN NOT MATCHED AND s.k = 5 THEN DO NOTHING "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v, NULL, 'y')"
    ),
    "not_matched_by_source": (
        "MERGE INTO d.t USING src ON t.k = src.k "
        "WHEN MATCHED THEN UPDATE SET n = src.n "
        "WHEN NOT MATCHED BY SOURCE AND t.k = 2 THEN DELETE "
        "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 'orphan'"
    ),
    "using_columns_and_by_name": (
        "MERGE INTO d.t USING (SELECT n, v, 'x' AS dt, k FROM src) AS s USING (k) "
        "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT BY NAME"
    ),
    "star_by_position": (
        "MERGE INTO d.t USING (SELECT src.k, src.v || '!' AS v, src.n, coalesce(o.dt, 'x') AS dt "
        "FROM src LEFT JOIN d.t AS o ON o.k = src.k) AS s "
        "ON t.k = s.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    ),
    "cte_source": (
        "WITH s AS (SELECT k + 1 AS k, v FROM src) "
        "MERGE INTO d.t USING s ON t.k = s.k "
        "WHEN MATCHED THEN UPDATE SET v = s.v "
        "WHEN NOT MATCHED THEN INSERT (k, v, dt) VALUES (s.k, s.v, 'q')"
    ),
    "nothing_matches": "MERGE INTO d.t USING src ON t.k = src.k + 100 WHEN MATCHED THEN DELETE",
    "qualified_target_name": (
        "MERGE INTO d.t USING src ON d.t.k = src.k WHEN MATCHED THEN UPDATE SET n = d.t.n + 1"
    ),
}


@pytest.fixture
def s(tmp_path):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE d")
    session.sql("CREATE TABLE memory.main.src (k INT, v VARCHAR, n INT)")
    session.sql(f"INSERT INTO memory.main.src VALUES {SOURCE_ROWS}")  # noqa: S608 - constants
    yield session
    session.close()


def _oracle(duckdb_ddl: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE SCHEMA d")
    con.execute(duckdb_ddl)
    con.execute(f"INSERT INTO d.t VALUES {TARGET_ROWS}")  # noqa: S608 - constants
    con.execute("CREATE TABLE src (k INT, v VARCHAR, n INT)")
    con.execute(f"INSERT INTO src VALUES {SOURCE_ROWS}")  # noqa: S608 - constants
    return con


def _target(s, kind):
    s.sql(TARGETS[kind][0])
    s.sql(f"INSERT INTO d.t VALUES {TARGET_ROWS}")  # noqa: S608 - constants
    return _oracle(TARGETS[kind][1])


@pytest.mark.parametrize("kind", sorted(TARGETS))
@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_merge_leaves_the_rows_duckdb_leaves(s, kind, name):
    ref = _target(s, kind)
    statement = STATEMENTS[name]
    before = s.table("d.t").snapshot_ids()
    expected_count = ref.sql(statement).fetchall()
    assert s.sql(statement).fetchall() == expected_count
    expected = sorted(ref.sql("SELECT * FROM d.t").fetchall(), key=repr)
    assert sorted(s.sql("SELECT * FROM d.t").fetchall(), key=repr) == expected
    fresh = paimon_sql.connect(s.catalog.warehouse)  # what is on disk, read by a new session
    assert sorted(fresh.sql("SELECT * FROM d.t").fetchall(), key=repr) == expected
    after = fresh.table("d.t").snapshot_ids()
    fresh.close()
    changed = expected_count[0][0]
    assert len(after) - len(before) == (1 if changed else 0)


MOVE = (
    "MERGE INTO d.t USING src ON t.k = src.k "
    "WHEN MATCHED AND src.k = 1 THEN UPDATE SET dt = 'moved', v = src.v "
    "WHEN MATCHED THEN UPDATE SET * "
    "WHEN NOT MATCHED THEN INSERT VALUES (src.k, src.v, src.n, 'w')"
)


@pytest.mark.parametrize(
    "kind", ["pk", "append", "pk_cross_partition", "append_dv_partitioned", "append_partitioned"]
)
def test_merge_moves_a_row_to_another_partition_where_java_does(s, kind):
    """A partition column outside the primary key may change (Java's rule: only key columns are
    fixed); the row leaves its partition. ``SET *`` moves it too."""
    ref = _target(s, kind)
    source = f"SELECT k, v, n, 'q' AS dt FROM (VALUES {SOURCE_ROWS}) AS v(k, v, n)"  # noqa: S608
    s.sql("DROP TABLE memory.main.src")
    s.sql(f"CREATE TABLE memory.main.src AS {source}")
    ref.sql("DROP TABLE src")
    ref.sql(f"CREATE TABLE src AS {source}")
    assert s.sql(MOVE).fetchall() == ref.sql(MOVE).fetchall()
    expected = sorted(ref.sql("SELECT * FROM d.t").fetchall(), key=repr)
    assert sorted(s.sql("SELECT * FROM d.t").fetchall(), key=repr) == expected
    assert ("moved", 1) in [(dt, k) for k, _v, _n, dt in expected]


def test_merge_cannot_move_a_row_to_another_key(s):
    _target(s, "pk_partitioned")  # dt is part of the primary key
    refused(
        s,
        "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN UPDATE SET dt = 'q'",
        SchemaError,
        match="primary-key column 'dt'",
    )


def test_merge_source_may_be_a_paimon_table_and_the_target_itself(s):
    ref = _target(s, "pk")
    s.sql("CREATE TABLE d.src (k INT, v STRING, n INT)")
    s.sql(f"INSERT INTO d.src VALUES {SOURCE_ROWS}")  # noqa: S608 - constants
    statement = (
        "MERGE INTO d.t USING d.src AS s ON t.k = s.k "
        "WHEN MATCHED THEN UPDATE SET n = s.n WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)"
    )
    ref.execute(statement.replace("d.src", "src"))
    s.sql(statement)
    expected = sorted(ref.sql("SELECT * FROM d.t").fetchall(), key=repr)
    assert sorted(s.sql("SELECT * FROM d.t").fetchall(), key=repr) == expected
    s.sql(
        "MERGE INTO d.t AS a USING d.t AS b ON a.k = b.k WHEN MATCHED THEN UPDATE SET n = b.n * 2"
    )
    ref.execute("UPDATE d.t SET n = n * 2")
    expected = sorted(ref.sql("SELECT * FROM d.t").fetchall(), key=repr)
    assert sorted(s.sql("SELECT * FROM d.t").fetchall(), key=repr) == expected


def test_merge_after_use_with_a_bare_target_name(s):
    _target(s, "pk")
    s.sql("USE d")
    s.sql("MERGE INTO t USING memory.main.src AS s ON t.k = s.k WHEN MATCHED THEN DELETE")
    assert s.sql("SELECT k FROM t ORDER BY k").fetchall() == [(2,), (4,)]


def test_merge_on_a_partitioned_append_table_rewrites_only_the_touched_partitions(s):
    _target(s, "append_partitioned")
    files = 'SELECT partition, file_path FROM "d"."t$files" ORDER BY 1, 2'
    before = s.sql(files).fetchall()
    s.sql("MERGE INTO d.t USING src ON t.k = src.k AND src.k = 3 WHEN MATCHED THEN DELETE")
    after = s.sql(files).fetchall()
    untouched = [f for f in before if "y" not in str(f[0])]
    assert [f for f in after if "y" not in str(f[0])] == untouched
    assert [f for f in after if "y" in str(f[0])] == []  # partition y held only the deleted row
    assert s.table("d.t").snapshot(s.table("d.t").snapshot_ids()[-1]).commit_kind.value == (
        "OVERWRITE"
    )


def test_merge_with_parameters(s):
    _target(s, "pk")
    s.execute(
        "MERGE INTO d.t USING (SELECT ? AS k, ? AS v) AS s ON t.k = s.k "
        "WHEN MATCHED THEN UPDATE SET v = s.v "
        "WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)",
        [2, "param"],
    )
    assert s.sql("SELECT v FROM d.t WHERE k = 2").fetchall() == [("param",)]


def test_merge_on_a_partial_update_table_inserts_and_updates(s):
    s.sql(
        "CREATE TABLE d.pu (k INT, a STRING, b STRING, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('merge-engine' = 'partial-update')"
    )
    s.sql("INSERT INTO d.pu VALUES (1, 'a1', 'b1')")
    s.sql(
        "MERGE INTO d.pu USING (SELECT 1 AS k, 'A' AS a UNION ALL SELECT 2, 'new') AS s "
        "ON pu.k = s.k WHEN MATCHED THEN UPDATE SET a = s.a "
        "WHEN NOT MATCHED THEN INSERT (k, a) VALUES (s.k, s.a)"
    )
    assert s.sql("SELECT * FROM d.pu ORDER BY k").fetchall() == [(1, "A", "b1"), (2, "new", None)]


# -------------------------------------------------------------------------------------- refusals


def refused(s, statement, error, *, match=None):
    """Run `statement`, expect `error`, with no internal name in it and nothing committed."""
    before = s.table("d.t").snapshot_ids()
    with pytest.raises(error, match=match) as caught:
        s.sql(statement)
    message = str(caught.value)
    for internal in ("__paimon", "__c_", "paimonparam"):
        assert internal not in message
    fresh = paimon_sql.connect(s.catalog.warehouse)
    assert fresh.table("d.t").snapshot_ids() == before
    fresh.close()
    return caught.value


@pytest.mark.parametrize("kind", ["pk", "append"])
def test_a_target_row_changed_by_two_source_rows_is_duckdbs_error(s, kind):
    ref = _target(s, kind)
    statement = (
        "MERGE INTO d.t USING (SELECT 1 AS k, 'p' AS v UNION ALL SELECT 1, 'q') AS s "
        "ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v"
    )
    ours = refused(s, statement, ExecutionError)
    assert "more than one" in str(ours).lower() or "multiple" in str(ours).lower(), ours
    # DuckDB 2.0.0 refuses this with the same message; 2.0.1 updates the row with one of the two
    # (an arbitrary one): paimon-sql keeps the refusal, as Spark's MERGE does
    theirs: str | None = None
    try:
        ref.execute(statement)
    except duckdb.InvalidInputException as err:
        theirs = str(err)
    if theirs is not None:
        assert str(ours).split(".")[0] == theirs.split(".")[0]


def test_two_source_rows_matching_one_target_row_are_fine_when_none_acts(s):
    ref = _target(s, "pk")
    statement = (
        "MERGE INTO d.t USING (SELECT 1 AS k, 'p' AS v UNION ALL SELECT 1, 'q') AS s "
        "ON t.k = s.k WHEN MATCHED AND s.v = 'zzz' THEN DELETE "
        "WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)"
    )
    assert s.sql(statement).fetchall() == ref.sql(statement).fetchall() == [(0,)]


@pytest.mark.parametrize(
    ("statement", "error", "match"),
    [
        (
            "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN DELETE RETURNING *",
            UnsupportedFeatureError,
            "RETURNING",
        ),
        (
            "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN ERROR 'no'",
            UnsupportedFeatureError,
            "THEN ERROR",
        ),
        (
            "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN UPDATE SET k = 9",
            SchemaError,
            "primary-key column 'k'",
        ),
        (
            "MERGE INTO d.t USING (SELECT n, v, k, 'x' AS dt FROM src) AS s ON t.k = s.k "
            "WHEN NOT MATCHED THEN INSERT *",
            SqlError,
            "by position, Spark by name",
        ),
        (
            "MERGE INTO d.t USING (SELECT k + 1 AS k, v, n, dt FROM d.t) AS s ON t.k + 1 = s.k "
            "WHEN MATCHED THEN UPDATE SET *",
            SchemaError,
            r"UPDATE SET \* would change",
        ),
        (
            "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN UPDATE SET nope = 1",
            SchemaError,
            "unknown column 'nope'",
        ),
        (
            "MERGE INTO d.t USING src ON t.k = src.k WHEN NOT MATCHED THEN INSERT VALUES (1, 2)",
            ExecutionError,
            "expected 4 columns but 2 values were supplied",
        ),
        (
            "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN UPDATE SET v = src.nope",
            ExecutionError,
            "nope",
        ),
        (
            "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN UPDATE SET n = 'text'",
            SchemaError,
            "does not fit",
        ),
        (
            "MERGE INTO d.t USING nowhere ON t.k = nowhere.k WHEN MATCHED THEN DELETE",
            ExecutionError,
            "nowhere",
        ),
    ],
)
def test_refused_merges_name_the_problem_and_write_nothing(s, statement, error, match):
    _target(s, "pk")
    refused(s, statement, error, match=match)


def test_merge_into_a_missing_paimon_table(s):
    with pytest.raises(TableNotFoundError):
        s.sql("MERGE INTO d.missing USING src ON missing.k = src.k WHEN MATCHED THEN DELETE")


def test_merge_needs_a_merge_engine_that_applies_it(s):
    s.sql(
        "CREATE TABLE d.t (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('merge-engine' = 'first-row')"
    )
    s.sql("INSERT INTO d.t VALUES (1, 'a')")
    refused(
        s,
        "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN UPDATE SET v = src.v",
        UnsupportedFeatureError,
        match="first-row",
    )
    # inserting keys the table lacks is fine on any engine
    s.sql(
        "MERGE INTO d.t USING src ON t.k = src.k WHEN NOT MATCHED THEN INSERT VALUES (src.k, src.v)"
    )
    assert s.sql("SELECT * FROM d.t ORDER BY k").fetchall() == [
        (1, "a"),
        (3, "three"),
        (5, "five"),
        (6, "six"),
    ]


def test_merge_inside_a_transaction_is_refused(s):
    _target(s, "pk")
    s.sql("BEGIN")
    refused(
        s,
        "MERGE INTO d.t USING src ON t.k = src.k WHEN MATCHED THEN DELETE",
        UnsupportedFeatureError,
        match="transaction",
    )
    s.sql("ROLLBACK")


def test_merge_through_the_shell(tmp_path):
    wh = tmp_path / "shell"
    session = paimon_sql.connect(wh, create=True)
    session.sql("CREATE DATABASE d")
    session.sql("CREATE TABLE d.t (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED)")
    session.sql("INSERT INTO d.t VALUES (1, 'a'), (2, 'b')")
    session.close()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "paimon_sql.cli",
            str(wh),
            "-c",
            "MERGE INTO d.t USING (SELECT 2 AS k, 'B' AS v UNION ALL SELECT 3, 'c') AS s "
            "ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *;",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    fresh = paimon_sql.connect(wh)
    assert fresh.sql("SELECT * FROM d.t ORDER BY k").fetchall() == [(1, "a"), (2, "B"), (3, "c")]
    assert len(fresh.table("d.t").snapshot_ids()) == 2
    fresh.close()


def test_columns_qualified_by_database_and_table_name_the_source_too(s):
    ref = _target(s, "pk")
    s.sql("CREATE TABLE d.a (k INT, v STRING)")
    s.sql("INSERT INTO d.a VALUES (1, 'one'), (42, 'new')")
    ref.sql("CREATE TABLE d.a (k INT, v VARCHAR)")
    ref.sql("INSERT INTO d.a VALUES (1, 'one'), (42, 'new')")
    statement = (
        "MERGE INTO d.t USING d.a ON d.t.k = d.a.k "
        "WHEN MATCHED THEN UPDATE SET v = d.a.v "
        "WHEN NOT MATCHED THEN INSERT (k, v, dt) VALUES (d.a.k, d.a.v, 'z')"
    )
    assert s.sql(statement).fetchall() == ref.sql(statement).fetchall()
    expected = sorted(ref.sql("SELECT * FROM d.t").fetchall(), key=repr)
    assert sorted(s.sql("SELECT * FROM d.t").fetchall(), key=repr) == expected
