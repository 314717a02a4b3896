"""DuckDB's habits on Paimon tables (issue 16, item 4), as a new user meets them.

* ``session.sql(q, params=…)`` / ``session.execute(q, params)`` with ``?``, ``$1`` and ``$name``,
  in reads and writes (DuckDB itself is the oracle for what a parameter means);
* the caller's pandas DataFrames and Arrow tables in ``FROM df`` (DuckDB's replacement scans), also
  in INSERT … SELECT and MERGE … USING, and ``session.write(table, data, mode=)``;
* ``SHOW TABLES``, ``SHOW ALL TABLES``, ``DESCRIBE``, ``SUMMARIZE`` with Paimon names and types
  (DuckDB's columns and statistics, compared with DuckDB on the same rows);
* ``COPY d.t TO 'file'`` exports (``COPY … FROM`` into a Paimon table and ``COPY … TO`` into the
  warehouse are refused);
* ``install(con, wh)``: writes go through the session it returns; DuckDB refuses them on the bare
  connection, and nothing is written;
* no error message quotes an internal name, rewritten SQL or a storage path.
"""

from __future__ import annotations

import datetime
import decimal

import duckdb
import pandas as pd  # type: ignore[import-untyped]
import pyarrow as pa
import pytest

import paimon_sql
from paimon_sql.errors import (
    ArgumentError,
    ExecutionError,
    PaimonSqlError,
    SqlError,
    TableNotFoundError,
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
    session.sql("CREATE TABLE d.part (k INT, dt STRING) PARTITIONED BY (dt)")
    session.sql("INSERT INTO d.pk VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)")
    session.sql("INSERT INTO d.part VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    yield session
    session.close()


def rows(s, query, params=None):
    return s.sql(query, params=params).fetchall()


def fresh_rows(wh, query):
    other = paimon_sql.connect(wh)
    try:
        return other.sql(query).fetchall()
    finally:
        other.close()


# ------------------------------------------------------------------------------------ parameters


def test_parameters_in_reads(s):
    assert rows(s, "SELECT v FROM d.pk WHERE k = ?", [2]) == [("b",)]
    assert rows(s, "SELECT v FROM d.pk WHERE k = $1 OR n = $2 ORDER BY k", (1, 30)) == [
        ("a",),
        ("c",),
    ]
    assert rows(s, "SELECT v FROM d.pk WHERE k = $key", {"key": 3}) == [("c",)]
    assert s.execute("SELECT v FROM d.pk WHERE v = ?", ["a"]).fetchone() == ("a",)


def test_parameters_prune_partitions(s):
    assert rows(s, "SELECT k FROM d.part WHERE dt = ?", ["y"]) == [(2,)]
    plan = s.last_plan("d.part")
    assert len(plan.splits) == 1  # the parameter is a constant while planning: one partition read


def test_parameters_in_writes(s, wh):
    assert s.execute("INSERT INTO d.pk VALUES (?, ?, ?)", [4, "d", 40]).fetchall() == [(1,)]
    s.execute("INSERT INTO d.pk VALUES ($k, $v, $n)", {"k": 5, "v": "it's", "n": None})
    s.execute("UPDATE d.pk SET v = ? WHERE k = ?", ["B", 2])
    s.execute("DELETE FROM d.pk WHERE k = ?", [1])
    assert fresh_rows(wh, "SELECT * FROM d.pk ORDER BY k") == [
        (2, "B", 20),
        (3, "c", 30),
        (4, "d", 40),
        (5, "it's", None),
    ]


def test_parameter_order_follows_the_text_as_in_duckdb(s):
    query = (
        "WITH c AS (SELECT ? AS a) SELECT c.a, '?' AS q, k FROM c, {t} WHERE k = ? LIMIT ? OFFSET ?"
    )
    params = [7, 2, 5, 0]
    con = duckdb.connect()
    con.execute("CREATE TABLE pk AS SELECT * FROM (VALUES (1), (2), (3)) v(k)")
    expected = con.execute(query.format(t="pk"), params).fetchall()
    assert rows(s, query.format(t="d.pk"), params) == expected == [(7, "?", 2)]


def test_a_parameter_with_a_cast_after_it(s, wh):
    """``?::DATE`` (sqlglot alone reads ``?::`` as one operator), in a read and a write."""
    s.sql("CREATE TABLE d.casts (k INT, dd DATE, ts TIMESTAMP(6))")
    s.execute(
        "INSERT INTO d.casts SELECT i, ?::DATE + i::INT, ?::TIMESTAMP FROM range(2) r(i)",
        ["2024-01-01", "2024-01-01 10:00:00"],
    )
    query = "SELECT k, '?::x' FROM d.casts WHERE dd = ?::DATE AND ts = $2::TIMESTAMP"
    assert rows(s, query.replace("?::DATE", "$1::DATE"), ["2024-01-02", "2024-01-01 10:00"]) == [
        (1, "?::x")
    ]
    assert rows(s, "SELECT k FROM d.casts WHERE dd = ?::DATE", ["2024-01-01"]) == [(0,)]
    assert fresh_rows(wh, "SELECT k, dd FROM d.casts ORDER BY k") == [
        (0, datetime.date(2024, 1, 1)),
        (1, datetime.date(2024, 1, 2)),
    ]


def test_parameters_in_insert_overwrite(s, wh):
    """INSERT OVERWRITE is no DuckDB syntax, so sqlglot finds its parameters."""
    s.sql("CREATE TABLE d.ow (k INT, v STRING, dt STRING) PARTITIONED BY (dt)")
    s.execute("INSERT INTO d.ow VALUES (?, ?, ?), (2, 'b', 'y')", [1, "a", "x"])
    s.execute("INSERT OVERWRITE d.ow PARTITION (dt = ?) SELECT ?, ?", ["x", 3, "c"])
    s.execute("INSERT OVERWRITE d.ow SELECT $k, $v, 'y'", {"k": 4, "v": "d"})
    with pytest.raises(ArgumentError, match="no value for parameter"):
        s.execute("INSERT OVERWRITE d.ow SELECT ?, ?, 'y'", [5])
    assert fresh_rows(wh, "SELECT * FROM d.ow ORDER BY k") == [(3, "c", "x"), (4, "d", "y")]


def test_parameter_values_keep_duckdbs_types(s, wh):
    s.sql(
        "CREATE TABLE d.typed (i BIGINT, f DOUBLE, m DECIMAL(10, 3), t STRING, b BYTES, "
        "dd DATE, ts TIMESTAMP(6), ok BOOLEAN)"
    )
    values = [
        2**40,
        0.1,
        decimal.Decimal("12.345"),
        "x'y",
        b"\x00\xff",
        datetime.date(2024, 2, 29),
        datetime.datetime(2024, 2, 29, 13, 14, 15, 123456),
        True,
    ]
    s.execute("INSERT INTO d.typed VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
    con = duckdb.connect()  # DuckDB binding the same values natively
    con.execute(
        "CREATE TABLE typed (i BIGINT, f DOUBLE, m DECIMAL(10, 3), t VARCHAR, b BLOB, dd DATE, "
        "ts TIMESTAMP, ok BOOLEAN)"
    )
    con.execute("INSERT INTO typed VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
    expected = con.sql("SELECT * FROM typed").fetchall()
    assert fresh_rows(wh, "SELECT * FROM d.typed") == expected
    # a float parameter is a DOUBLE, as in DuckDB (not the DECIMAL a literal 0.1 would be)
    assert rows(s, "SELECT typeof(?)", [0.1]) == [("DOUBLE",)]
    assert rows(s, "SELECT typeof(?) FROM d.pk LIMIT 1", [0.1]) == [("DOUBLE",)]


def test_executemany_inserts_every_row_in_one_snapshot(s, wh):
    before = len(s.table("d.pk").snapshot_ids())
    rows_in = [(10, "j", 1), (11, "k", None), (12, "it's", 3)]
    assert s.executemany("INSERT INTO d.pk VALUES (?, ?, ?)", rows_in).fetchall() == [(3,)]
    assert len(s.table("d.pk").snapshot_ids()) == before + 1
    assert fresh_rows(wh, "SELECT * FROM d.pk WHERE k >= 10 ORDER BY k") == rows_in
    s.executemany("DELETE FROM d.pk WHERE k = ?", [[10], [11]])  # one statement per set
    assert fresh_rows(wh, "SELECT k FROM d.pk WHERE k >= 10") == [(12,)]


def test_parameters_in_plain_duckdb_statements_reach_duckdb(s):
    assert rows(s, "SELECT ? + 1, $1", [41]) == [(42, 41)]
    s.execute("CREATE TABLE memory.main.x AS SELECT ? AS a", ["kept"])
    assert rows(s, "SELECT a FROM memory.main.x") == [("kept",)]


@pytest.mark.parametrize(
    ("statement", "params", "match"),
    [
        ("INSERT INTO d.pk VALUES (?, ?, ?)", [9, "z"], "3 parameter"),
        ("INSERT INTO d.pk VALUES (?, ?, ?)", [9, "z", 1, 2], "4 value"),
        ("DELETE FROM d.pk WHERE k = $key", {"other": 1}, "parameter"),
        ("DELETE FROM d.pk WHERE k = ?", 1, "list or tuple"),
        ("DELETE FROM d.pk WHERE k = ?", [object()], "cannot be bound"),
        ("INSERT INTO d.pk VALUES (9, 'z', 0); DELETE FROM d.pk WHERE k = ?", [1], "one statement"),
        ("CALL sys.create_tag('d.pk', ?)", ["t1"], "write the value"),
    ],
)
def test_bad_parameters_are_refused_and_write_nothing(s, wh, statement, params, match):
    before = s.table("d.pk").snapshot_ids()
    with pytest.raises(ArgumentError, match=match) as caught:
        s.sql(statement, params=params)
    assert "paimonparam" not in str(caught.value)
    other = paimon_sql.connect(wh)
    assert other.table("d.pk").snapshot_ids() == before
    assert other.table("d.pk").tag_names() == []
    other.close()


def test_a_missing_parameter_in_a_plain_duckdb_statement_is_duckdbs_error(s):
    with pytest.raises(ExecutionError):
        s.sql("SELECT ? + ?", params=[1])


# ------------------------------------------------------------------ the caller's DataFrames


def test_a_local_pandas_dataframe_in_from_and_insert(s, wh):
    df = pd.DataFrame({"k": [7, 8], "v": ["g", "h"], "n": [70, 80]})  # noqa: F841 - read by SQL
    # as DuckDB, the frame that calls sql() is searched (not a helper's caller)
    assert s.sql("SELECT count(*), sum(n) FROM df").fetchall() == [(2, 150)]
    assert s.sql("INSERT INTO d.pk SELECT * FROM df").fetchall() == [(2,)]
    assert fresh_rows(wh, "SELECT * FROM d.pk WHERE k > 5 ORDER BY k") == [
        (7, "g", 70),
        (8, "h", 80),
    ]


def _helper_reading(s):
    local_table = pa.table({"k": [2, 3], "v": ["from arrow", "too"]})  # noqa: F841 - read by SQL
    return s.sql(
        "SELECT p.k, p.v, t.v FROM d.pk AS p JOIN local_table AS t ON p.k = t.k ORDER BY p.k"
    ).fetchall()


def test_an_arrow_table_local_to_a_function_joins_a_paimon_table(s):
    assert _helper_reading(s) == [(2, "b", "from arrow"), (3, "c", "too")]


def test_a_dataframe_as_merge_source_and_in_a_subquery(s, wh):
    changes = pa.table({"k": [1, 9], "v": ["A", "new"]})  # noqa: F841 - read by SQL
    s.sql(
        "MERGE INTO d.pk USING changes AS c ON pk.k = c.k WHEN MATCHED THEN UPDATE SET v = c.v "
        "WHEN NOT MATCHED THEN INSERT (k, v) VALUES (c.k, c.v)"
    )
    assert fresh_rows(wh, "SELECT k, v FROM d.pk WHERE k IN (1, 9) ORDER BY k") == [
        (1, "A"),
        (9, "new"),
    ]
    assert s.sql("DELETE FROM d.pk WHERE k IN (SELECT k FROM changes)").fetchall() == [(2,)]
    assert rows(s, "SELECT k FROM d.pk ORDER BY k") == [(2,), (3,)]


def test_execute_sees_the_callers_variables_too(s):
    wanted = pd.DataFrame({"k": [3]})  # noqa: F841 - read by SQL
    assert s.execute("SELECT v FROM d.pk WHERE k IN (SELECT k FROM wanted)").fetchall() == [("c",)]


def test_tables_win_over_variables_as_in_duckdb(s):
    pk = pd.DataFrame({"k": [99]})  # noqa: F841 - the variable the statement must not read
    s.sql("USE d")
    assert s.sql("SELECT count(*) FROM pk").fetchall() == [(3,)]
    s.sql("CREATE TABLE memory.main.loose AS SELECT 1 AS one")
    s.sql("USE memory.main")
    loose = pa.table({"one": [5, 6]})  # noqa: F841 - DuckDB's table of that name wins
    assert s.sql("SELECT * FROM loose").fetchall() == [(1,)]


def test_a_dataframe_named_as_a_paimon_table_of_another_database(s, wh):
    pk = pd.DataFrame({"k": [50], "v": ["df"], "n": [5]})  # noqa: F841 - read by SQL
    # d.pk is not on the search path (main is current): the bare name is the DataFrame
    assert s.sql("INSERT INTO d.pk SELECT * FROM pk").fetchall() == [(1,)]
    assert fresh_rows(wh, "SELECT v FROM d.pk WHERE k = 50") == [("df",)]


def test_a_variable_that_is_no_table_is_not_scanned(s):
    not_a_frame = [1, 2, 3]  # noqa: F841 - DuckDB would not scan it either
    with pytest.raises(ExecutionError, match="not_a_frame"):
        s.sql("SELECT * FROM not_a_frame")


def test_an_error_about_a_dataframe_names_the_variable(s):
    df = pd.DataFrame({"a": [1]})  # noqa: F841 - read by the statement
    with pytest.raises(ExecutionError) as caught:
        s.sql("SELECT nope FROM df")
    assert "__paimon" not in str(caught.value)
    with pytest.raises(ExecutionError) as caught:
        s.sql("INSERT INTO d.pk SELECT * FROM df")
    assert "has 3 columns but 1 values" in str(caught.value)
    assert "__paimon" not in str(caught.value)


# ---------------------------------------------------------------------------- session.write


def test_write_appends_by_name_and_overwrites(s, wh):
    frame = pd.DataFrame({"v": ["p", "q"], "k": [10, 11], "n": [1, 2]})  # columns out of order
    before = len(s.table("d.pk").snapshot_ids())
    assert s.write("d.pk", frame) == 2
    assert len(s.table("d.pk").snapshot_ids()) == before + 1
    assert fresh_rows(wh, "SELECT * FROM d.pk WHERE k >= 10 ORDER BY k") == [
        (10, "p", 1),
        (11, "q", 2),
    ]
    assert s.write("d.pk", pa.table({"k": [1], "v": ["only"]}), mode="overwrite") == 1
    assert fresh_rows(wh, "SELECT * FROM d.pk") == [(1, "only", None)]


def test_write_overwrite_of_a_partitioned_table_replaces_the_written_partitions(s, wh):
    s.write("d.part", pa.table({"k": [20], "dt": ["y"]}), mode="overwrite")
    assert fresh_rows(wh, "SELECT * FROM d.part ORDER BY k") == [(1, "x"), (3, "z"), (20, "y")]


def test_write_refusals(s, wh):
    before = s.table("d.pk").snapshot_ids()
    with pytest.raises(ArgumentError, match="mode"):
        s.write("d.pk", pa.table({"k": [1]}), mode="upsert")
    with pytest.raises(ArgumentError, match="DataFrame"):
        s.write("d.pk", [{"k": 1}])
    with pytest.raises(TableNotFoundError):
        s.write("d.missing", pa.table({"k": [1]}))
    with pytest.raises(ExecutionError, match='does not have a column with name "nope"'):
        s.write("d.pk", pa.table({"k": [1], "nope": [2]}))
    with pytest.raises(PaimonSqlError, match="k"):
        s.write("d.pk", pa.table({"v": ["no key"]}))
    assert paimon_sql.connect(wh).table("d.pk").snapshot_ids() == before


# ------------------------------------------------------------------------------------------ COPY


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_copy_a_paimon_table_or_query_to_a_file(s, tmp_path):
    """DuckDB's export: ``COPY db.t [(cols)] TO`` is ``COPY (SELECT cols FROM db.t) TO``."""
    out = tmp_path / "out"
    out.mkdir()
    assert rows(s, f"COPY d.pk TO '{out / 'pk.csv'}'") == [(3,)]
    assert (out / "pk.csv").read_text() == "k,v,n\n1,a,10\n2,b,20\n3,c,30\n"
    s.sql(f"COPY d.pk (k, v) TO '{out / 'kv.csv'}' (HEADER false)")
    assert (out / "kv.csv").read_text() == "1,a\n2,b\n3,c\n"
    query = f"COPY (SELECT k FROM d.part WHERE dt > 'x') TO '{out / 'p.parquet'}'"  # noqa: S608
    assert rows(s, query) == [(2,)]
    assert rows(s, f"SELECT k FROM '{out / 'p.parquet'}' ORDER BY k") == [(2,), (3,)]  # noqa: S608


@pytest.mark.parametrize(
    ("statement", "match"),
    [
        ("COPY d.pk FROM '{out}/pk.csv'", r"INSERT INTO d\.pk SELECT \* FROM read_csv"),
        ("COPY d.pk TO '{wh}/d.db/pk/planted.csv'", "inside the warehouse"),
        ("COPY (SELECT 1 AS x) TO '{wh}/planted.parquet'", "inside the warehouse"),
        ("COPY d.pk TO '{wh}/../wh/d.db/x.csv'", "inside the warehouse"),
    ],
)
def test_copy_into_a_paimon_table_or_the_warehouse_is_refused(s, wh, tmp_path, statement, match):
    out = tmp_path / "out"
    out.mkdir()
    (out / "pk.csv").write_text("k,v,n\n9,z,90\n")
    before = _files(wh)
    with pytest.raises(UnsupportedFeatureError, match=match):
        s.sql(statement.format(out=out, wh=wh))
    assert _files(wh) == before
    assert rows(s, "SELECT count(*) FROM d.pk") == [(3,)]


# ------------------------------------------------------------- SHOW, DESCRIBE, SUMMARIZE


def test_export_database_of_the_paimon_views_is_refused_and_writes_nothing(s, tmp_path):
    """DuckDB would export the Paimon tables as views of this session, without their rows."""
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    for statement in (
        f"EXPORT DATABASE '{tmp_path / 'a'}'",
        f"export database memory to '{tmp_path / 'b'}' (FORMAT parquet)",
    ):
        with pytest.raises(UnsupportedFeatureError, match=r"COPY db\.t TO"):
            s.sql(statement)
    assert list(tmp_path.iterdir()) == []
    s.sql("ATTACH ':memory:' AS other")  # a database of DuckDB tables exports as in DuckDB
    s.sql("CREATE TABLE other.main.z AS SELECT 1 AS a")
    s.sql(f"EXPORT DATABASE other TO '{tmp_path / 'c'}'")
    assert (tmp_path / "c" / "load.sql").exists()


def test_show_tables_lists_no_hidden_relations(s):
    s.sql("CREATE TABLE memory.main.mine (x INT)")
    s.sql("SELECT * FROM d.pk JOIN d.part USING (k)").fetchall()  # registers hidden sources
    assert rows(s, "SHOW TABLES") == [("mine",)]
    s.sql("USE d")  # DuckDB's SHOW TABLES then lists d's tables and main's
    assert sorted(rows(s, "SHOW TABLES")) == [("mine",), ("part",), ("pk",)]


def test_show_all_tables_gives_paimon_types(s):
    s.sql("CREATE TABLE memory.main.mine (x HUGEINT, u UUID)")
    s.sql("SELECT * FROM d.pk").fetchall()
    result = s.sql("SHOW ALL TABLES")
    assert result.columns == [
        "database",
        "schema",
        "name",
        "column_names",
        "column_types",
        "temporary",
    ]
    found = {(r[1], r[2]): (r[3], r[4]) for r in result.fetchall()}
    assert set(found) == {("d", "pk"), ("d", "part"), ("main", "mine")}
    assert found["d", "pk"] == (["k", "v", "n"], ["INT NOT NULL", "STRING", "INT"])
    assert found["main", "mine"] == (["x", "u"], ["HUGEINT", "UUID"])


def test_describe_has_duckdbs_columns_and_paimon_types(s):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (k INT)")
    duckdb_columns = con.sql("DESCRIBE t").columns
    result = s.sql("DESCRIBE d.pk")
    assert result.columns[: len(duckdb_columns)] == duckdb_columns
    assert [r[:4] for r in result.fetchall()] == [
        ("k", "INT NOT NULL", "NO", "PRI"),
        ("v", "STRING", "YES", None),
        ("n", "INT", "YES", None),
    ]
    s.sql("USE d")
    assert [r[:2] for r in rows(s, "DESCRIBE part")] == [("k", "INT"), ("dt", "STRING")]
    assert rows(s, "DESCRIBE part")[1][3] == "PART"


def test_summarize_gives_duckdbs_statistics_with_paimon_types(s):
    con = duckdb.connect()
    con.execute("CREATE TABLE pk (k INT, v VARCHAR, n INT)")
    con.execute("INSERT INTO pk VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)")
    theirs = con.sql("SUMMARIZE pk")
    ours = s.sql("SUMMARIZE d.pk")
    assert ours.columns == theirs.columns
    expected = [
        (r[0], t, *r[2:])
        for r, t in zip(theirs.fetchall(), ["INT NOT NULL", "STRING", "INT"], strict=True)
    ]
    assert ours.fetchall() == expected
    s.sql("USE d")
    assert rows(s, "SUMMARIZE pk") == expected


def test_show_table_is_describe_and_system_tables_describe_as_duckdb(s):
    assert rows(s, "SHOW d.pk") == rows(s, "DESCRIBE d.pk")
    described = rows(s, 'DESCRIBE "d"."pk$snapshots"')
    assert [r[0] for r in described[:2]] == ["snapshot_id", "schema_id"]
    summary = rows(s, 'SUMMARIZE "d"."pk$snapshots"')
    assert summary[0][:4] == ("snapshot_id", "BIGINT", "1", "1")


@pytest.mark.parametrize("statement", ["DESCRIBE d.nope", "SUMMARIZE d.nope"])
def test_describe_or_summarize_of_a_missing_table_names_no_path(s, wh, statement):
    with pytest.raises(TableNotFoundError) as caught:
        s.sql(statement)
    assert "d.nope" in str(caught.value)
    assert "pk" in str(caught.value)  # the tables the database has
    assert str(wh) not in str(caught.value)


@pytest.mark.parametrize(
    ("statement", "name"),
    [
        ("SELECT * FROM d.nope", "d.nope"),
        ("INSERT INTO d.nope VALUES (1)", "d.nope"),
        ("DELETE FROM d.nope", "d.nope"),
        ("SELECT * FROM d.pkk", "d.pkk"),
    ],
)
def test_reading_or_writing_a_missing_table_names_no_path(s, wh, statement, name):
    with pytest.raises(TableNotFoundError) as caught:
        s.sql(statement)
    message = str(caught.value)
    assert message.startswith(f"table {name} not found; ")
    assert "pk" in message  # the tables the database has, or the one meant
    assert str(wh) not in message
    assert "/" not in message


def test_uuid_hugeint_json_columns_are_duckdbs_or_refused_clearly(s):
    s.sql("CREATE TABLE memory.main.m (id UUID, h HUGEINT, j JSON)")
    s.sql("INSERT INTO memory.main.m VALUES (uuid(), 1, '{}')")
    assert [r[:2] for r in rows(s, "DESCRIBE m")] == [
        ("id", "UUID"),
        ("h", "HUGEINT"),
        ("j", "JSON"),
    ]
    assert [r[:2] for r in rows(s, "SUMMARIZE m")] == [
        ("id", "UUID"),
        ("h", "HUGEINT"),
        ("j", "JSON"),
    ]
    with pytest.raises(SqlError, match=r"column 'id'.*UUID.*STRING"):
        s.sql("CREATE TABLE d.copy AS SELECT * FROM m")
    assert "copy" not in s.catalog.tables("d")
    with pytest.raises(SqlError, match=r"column 'h'.*use DECIMAL\(38, 0\)"):
        s.sql("CREATE TABLE d.copy (h HUGEINT)")
    # the alternatives the refusals name work
    s.sql("CREATE TABLE d.copy AS SELECT CAST(id AS STRING) AS id, h, j FROM m")
    assert [r[:2] for r in rows(s, "DESCRIBE d.copy")] == [
        ("id", "STRING"),
        ("h", "DECIMAL(38, 0)"),
        ("j", "STRING"),
    ]


def test_create_view_in_a_paimon_database_is_refused_by_name(s):
    with pytest.raises(UnsupportedFeatureError, match="does not store views"):
        s.sql("CREATE VIEW d.v AS SELECT 1 AS one")
    s.sql("CREATE VIEW memory.main.v AS SELECT * FROM d.pk")
    assert rows(s, "SELECT count(*) FROM memory.main.v") == [(3,)]


# ------------------------------------------------------------------------- bare names after USE


def test_bare_names_after_use_read_as_qualified_ones(s):
    """``USE d`` then ``t``: time travel, hints, system tables, EXPLAIN and the inlined scan."""
    s.sql("INSERT INTO d.pk VALUES (4, 'd', 40)")  # snapshot 2
    s.sql("USE d")
    first = [(1, "a", 10), (2, "b", 20), (3, "c", 30)]
    assert rows(s, "SELECT * FROM pk VERSION AS OF 1 ORDER BY k") == first
    assert rows(s, "SELECT * FROM PK AT (VERSION => 1) ORDER BY k") == first
    hinted = "SELECT * FROM pk /*+ OPTIONS('scan.snapshot-id'='1') */ ORDER BY k"
    assert rows(s, hinted) == first
    assert rows(s, 'SELECT snapshot_id FROM "pk$snapshots" ORDER BY 1') == [(1,), (2,)]
    assert rows(s, "SELECT pk.k FROM pk WHERE pk.k = 4") == [(4,)]
    assert rows(s, "SELECT count(*) FROM pk a JOIN d.pk b USING (k)") == [(4,)]
    plan = {key: value for scope, key, value in s.explain("SELECT * FROM pk VERSION AS OF 1")}
    assert plan["reader"] == "inlined SQL"
    assert plan["snapshot"].startswith("1 ")
    s.sql("INSERT INTO pk SELECT k + 10, v, n FROM pk VERSION AS OF 1")
    assert rows(s, "SELECT count(*) FROM Pk") == [(7,)]


def test_a_table_named_without_its_database_in_functions_and_calls_is_in_uses(s, wh):
    """As Paimon's Spark procedures take the current namespace; Java's ``default`` without USE."""
    s.sql("USE d")  # the first paimon_* function of the session is installed here
    s.sql("INSERT INTO pk VALUES (2, 'B', 20)")  # snapshot 2
    assert rows(s, "SELECT change, k FROM paimon_diff('pk', 1, 2)") == [("changed", 2)]
    assert rows(s, "SELECT verdict FROM paimon_explain_key('pk', 2) LIMIT 1") == [("result",)]
    changes = "SELECT * FROM paimon_changes('{}', 1, 2)"
    assert rows(s, changes.format("pk")) == rows(s, changes.format("d.pk")) != []
    assert rows(s, "CALL sys.check_table(table => 'pk')") == []
    assert rows(s, "CALL sys.create_tag(table => 'pk', tag => 'one', snapshot => 1)") == [(True,)]
    assert s.write("pk", pa.table({"k": [9], "v": ["w"], "n": [90]})) == 1
    assert fresh_rows(wh, "SELECT count(*) FROM d.pk VERSION AS OF 'one'") == [(3,)]
    assert fresh_rows(wh, "SELECT v FROM d.pk WHERE k = 9") == [("w",)]
    s.sql("USE memory.main")  # the functions stay where they were installed
    assert rows(s, "SELECT change FROM paimon_diff('d.pk', 1, 2)") == [("changed",)]
    with pytest.raises(PaimonSqlError, match="database 'default' not found"):
        s.sql("SELECT * FROM paimon_diff('pk', 1, 2)")


def test_a_bare_name_writes_a_table_another_session_made_after_use(s, wh):
    s.sql("USE d")
    other = paimon_sql.connect(wh)
    other.sql("CREATE TABLE d.later (k INT)")
    other.close()
    s.sql("INSERT INTO later VALUES (1)")
    assert [r[0] for r in rows(s, "DESCRIBE later")] == ["k"]
    assert fresh_rows(wh, "SELECT * FROM d.later") == [(1,)]


def test_a_cte_or_temporary_table_of_the_name_comes_first_as_in_duckdb(s):
    s.sql("USE d")
    assert rows(s, "WITH pk AS (SELECT 42 AS k) SELECT * FROM pk") == [(42,)]
    s.sql("CREATE TEMP VIEW pk AS SELECT 98 AS k")  # DuckDB's, whatever USE selected
    assert rows(s, "SELECT * FROM pk") == [(98,)]
    assert s.explain("SELECT * FROM pk") is None
    with pytest.raises(ExecutionError):  # DuckDB's error: a view takes no INSERT
        s.sql("INSERT INTO pk VALUES (5, 'e', 50)")
    s.sql("DROP VIEW temp.pk")
    assert rows(s, "SELECT count(*) FROM pk") == [(3,)]
    con = duckdb.connect()  # DuckDB resolves the same way
    con.execute("CREATE SCHEMA d; CREATE TABLE d.pk AS SELECT 1 AS k; USE d")
    con.execute("CREATE TEMP VIEW pk AS SELECT 98 AS k")
    assert con.sql("SELECT * FROM pk").fetchall() == [(98,)]


def test_names_differing_in_case_resolve_as_duckdb_resolves_them(s, wh):
    """``D.PK`` is ``d.pk`` in reads, writes, time travel, system tables and DESCRIBE."""
    s.sql("INSERT INTO D.PK VALUES (4, 'd', 40)")
    s.sql("UPDATE d.Pk SET v = 'D' WHERE k = 4")
    s.sql("DELETE FROM D.pk WHERE k = 1")
    assert rows(s, "SELECT * FROM D.PK ORDER BY k") == [(2, "b", 20), (3, "c", 30), (4, "D", 40)]
    assert rows(s, "SELECT count(*) FROM d.PK VERSION AS OF 1") == [(3,)]
    assert rows(s, 'SELECT count(*) FROM D."PK$snapshots"') == [(4,)]
    assert [r[0] for r in rows(s, "DESCRIBE D.PK")] == ["k", "v", "n"]
    assert rows(s, "SHOW TABLES FROM D") == [("part",), ("pk",)]
    plan = {key: value for scope, key, value in s.explain("SELECT * FROM D.PK")}
    assert plan["reader"] == "inlined SQL"
    assert fresh_rows(wh, "SELECT count(*) FROM d.pk") == [(3,)]
    with pytest.raises(TableNotFoundError, match=r"table d\.nope not found"):
        s.sql("SELECT * FROM D.nope")


# ---------------------------------------------------------------------------------- install()


def test_ddl_procedures_and_write_take_names_in_any_case_as_duckdb_does(s, wh):
    """DROP, TRUNCATE, ALTER, COMMENT ON, SHOW CREATE, CREATE, CALL and `session.write` match
    ``D.PK`` to ``d.pk`` (they matched exactly, and after ``USE d`` leaked DuckDB's "is of type
    View" errors)."""
    s.sql("ALTER TABLE D.PK ADD COLUMN w INT")
    s.sql("COMMENT ON COLUMN D.Pk.w IS 'new'")
    assert "`w` INT COMMENT 'new'" in rows(s, "SHOW CREATE TABLE d.PK")[0][0]
    s.sql("CALL sys.create_tag(table => 'D.PK', tag => 'before')")
    assert rows(s, "SELECT tag_name FROM d.pk$tags") == [("before",)]
    assert s.write("D.Pk", pa.table({"k": [9], "v": ["z"], "n": [90], "w": [1]})) == 1
    s.sql("TRUNCATE TABLE D.PK")
    assert fresh_rows(wh, "SELECT count(*) FROM d.pk") == [(0,)]
    s.sql("CREATE TABLE D.made (x INT)")  # a Paimon table in d, not DuckDB's table in its schema
    assert fresh_rows(wh, "SHOW TABLES FROM d") == [("made",), ("part",), ("pk",)]
    s.sql("USE d")
    s.sql("TRUNCATE TABLE PART")
    s.sql("DROP TABLE Made")
    assert fresh_rows(wh, "SELECT count(*) FROM d.part") == [(0,)]
    assert fresh_rows(wh, "SHOW TABLES FROM d") == [("part",), ("pk",)]


def test_a_new_table_whose_name_differs_only_in_case_is_refused(s, wh):
    """DuckDB could not tell ``d.PK`` from ``d.pk``: CREATE and RENAME TO refuse it, CREATE IF
    NOT EXISTS is a no-op."""
    with pytest.raises(paimon_sql.errors.AlreadyExistsError, match=r"table d\.pk exists"):
        s.sql("CREATE TABLE d.PK (k INT)")
    with pytest.raises(paimon_sql.errors.AlreadyExistsError, match=r"table d\.pk exists"):
        s.sql("CREATE TABLE d.Pk AS SELECT 1 AS k")
    assert rows(s, "CREATE TABLE IF NOT EXISTS d.PK (k INT)") == [
        ("table d.pk already exists; nothing created",)
    ]
    with pytest.raises(paimon_sql.errors.AlreadyExistsError, match=r"table d\.pk exists"):
        s.sql("ALTER TABLE d.part RENAME TO Pk")
    assert fresh_rows(wh, "SHOW TABLES FROM d") == [("part",), ("pk",)]
    s.sql("ALTER TABLE d.pk RENAME TO PK")  # its own name in another case: DuckDB allows it
    assert fresh_rows(wh, "SHOW TABLES FROM d") == [("PK",), ("part",)]


def test_a_name_several_java_tables_match_but_for_case_is_refused_as_ambiguous(s, wh):
    """A warehouse Java wrote may hold ``d.Ab`` and ``d.aB``: each exact name is its table; ``ab``
    is refused in reads, writes, DDL and procedures, naming both, and nothing is dropped."""
    s.sql("CREATE TABLE d.Ab (k INT)")
    s.catalog.create_table(
        paimon_sql.Identifier("d", "aB"), s.table("d.Ab").latest_schema
    )  # as Java's catalog may: it matches names exactly
    s.refresh()
    s.sql("INSERT INTO d.Ab VALUES (1)")
    s.sql("INSERT INTO d.aB VALUES (2)")
    assert rows(s, "SELECT * FROM d.Ab") == [(1,)]
    assert rows(s, "SELECT * FROM d.aB") == [(2,)]
    for statement in [
        "SELECT * FROM d.ab",
        "INSERT INTO d.AB VALUES (3)",
        "DROP TABLE d.ab",
        "TRUNCATE TABLE d.ab",
        "ALTER TABLE d.ab ADD COLUMN z INT",
        "CALL sys.create_tag(table => 'd.ab', tag => 't')",
        "USE d; SELECT * FROM ab",
    ]:
        *first, last = statement.split("; ")
        for setup in first:
            s.sql(setup)
        with pytest.raises(SqlError, match=r"d\.(ab|AB) matches tables Ab, aB of d"):
            s.sql(last)
    assert fresh_rows(wh, "SELECT (SELECT sum(k) FROM d.Ab), (SELECT sum(k) FROM d.aB)") == [(1, 2)]


def test_install_session_writes_and_the_connection_sees_them(s, wh):
    con = duckdb.connect()
    session = paimon_sql.install(con, wh)
    assert session.sql("INSERT INTO d.pk VALUES (4, 'd', 40)").fetchall() == [(1,)]
    session.execute("UPDATE d.pk SET v = ? WHERE k = ?", ["A", 1])
    assert con.sql('SELECT v FROM "d"."pk" ORDER BY k').fetchall() == [
        ("A",),
        ("b",),
        ("c",),
        ("d",),
    ]
    assert con.sql("SELECT count(*) FROM paimon_scan('d.pk')").fetchall() == [(4,)]
    assert fresh_rows(wh, "SELECT count(*) FROM d.pk") == [(4,)]


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO d.pk VALUES (9, 'z', 0)",
        "UPDATE d.pk SET v = 'z'",
        "DELETE FROM d.pk",
        "MERGE INTO d.pk USING (SELECT 1 AS k) s ON pk.k = s.k WHEN MATCHED THEN DELETE",
    ],
)
def test_writes_on_the_bare_connection_are_refused_by_duckdb(s, wh, statement):
    con = duckdb.connect()
    paimon_sql.install(con, wh)
    before = s.table("d.pk").snapshot_ids()
    with pytest.raises(duckdb.Error):
        con.sql(statement)
    assert paimon_sql.connect(wh).table("d.pk").snapshot_ids() == before


# ---------------------------------------------------------------------- no internal names


INTERNAL = ("__paimon", "__c_", "paimonparam", "read_parquet", "LINE 1:", "CAST(NULL", "_KEY_")
#: The data files' folders: a message may name the warehouse (a missing table's folder), never a
#: data file the rewritten SQL reads.
FILES = ("bucket-", ".parquet", "manifest-")

BAD_STATEMENTS = [
    ("SELECT nope FROM d.pk", None),
    ("SELECT * FROM d.pk WHERE k = 'abc'", None),
    ("SELECT sum(v) FROM d.pk", None),
    ("SELECT * FROM d.pk JOIN d.part ON pk.nope = part.k", None),
    ("SELECT * FROM d.pk VERSION AS OF 99", None),
    ('SELECT * FROM "d"."pk$nope"', None),
    ("SELECT * FROM d.nope", None),
    ("INSERT INTO d.pk VALUES (1, 2, 3, 4)", None),
    ("INSERT INTO d.pk (k, nope) VALUES (1, 2)", None),
    ("INSERT INTO d.pk VALUES ('x', 'a', 1)", None),
    ("INSERT INTO d.pk SELECT * FROM d.part", None),
    ("INSERT INTO d.pk BY NAME SELECT 1 AS nope", None),
    ("INSERT INTO d.pk VALUES (NULL, 'a', 1)", None),
    ("INSERT INTO d.pk SELECT k, v, n / 0 FROM d.pk", None),
    ("INSERT INTO d.pk SELECT k, v, n FROM d.pk WHERE nope", None),
    ("UPDATE d.pk SET n = 'x' WHERE k = 1", None),
    ("UPDATE d.pk SET nope = 1", None),
    ("UPDATE d.pk SET v = nope", None),
    ("DELETE FROM d.pk WHERE nope = 1", None),
    (
        "MERGE INTO d.pk USING d.part AS s ON pk.k = s.k WHEN MATCHED THEN UPDATE SET v = s.nope",
        None,
    ),
    ("MERGE INTO d.pk USING d.part AS s ON pk.nope = s.k WHEN MATCHED THEN DELETE", None),
    (
        "MERGE INTO d.pk USING (SELECT 1 AS k UNION ALL SELECT 1) AS s ON pk.k = s.k "
        "WHEN MATCHED THEN DELETE",
        None,
    ),
    ("SELECT * FROM d.pk WHERE k = ?", []),
    ("SELECT * FROM d.pk WHERE k = ?", [1, 2]),
    ("SUMMARIZE d.nope", None),
    ("DESCRIBE d.nope", None),
    ("CREATE TABLE d.u AS SELECT uuid() AS u", None),
    ("CREATE TABLE d.pk (x INT)", None),
    ("SELECT * FROM d.pk WHERE", None),
    ("SELECT 'open FROM d.pk", None),
    ("INSERT INTO d.part PARTITION (dt = 'x') VALUES (1, 2, 3)", None),
]


@pytest.mark.parametrize(("statement", "params"), BAD_STATEMENTS)
def test_error_messages_quote_no_internal_name_or_path(s, wh, statement, params):
    with pytest.raises(PaimonSqlError) as caught:
        s.sql(statement, params=params).fetchall()
    message = str(caught.value)
    assert message.strip()
    for internal in (*INTERNAL, *FILES):
        assert internal not in message, message


def test_a_hint_option_no_read_honours_is_refused_by_name(tmp_path):
    session = paimon_sql.connect(str(tmp_path / "wh"), create=True)
    session.sql("CREATE DATABASE d")
    session.sql("CREATE TABLE d.t (id INT)")
    session.sql("INSERT INTO d.t VALUES (1)")
    for option in ("scan.mode", "file-index.read.enabled", "nonsense"):
        with pytest.raises(UnsupportedFeatureError, match=f"hint option '{option}'"):
            session.sql(f"SELECT * FROM d.t /*+ OPTIONS('{option}' = 'x') */")  # noqa: S608
    hinted = "SELECT * FROM d.t /*+ OPTIONS('scan.snapshot-id' = '1') */"
    assert session.sql(hinted).fetchall() == [(1,)]


@pytest.mark.parametrize(
    ("statement", "match"),
    [
        # on a view of a Paimon table, a DuckDB table or a CTE: nothing reads it
        (
            "SELECT * FROM memory.main.v /*+ OPTIONS('scan.snapshot-id'='1') */",
            "is on memory.main.v",
        ),
        ("SELECT * FROM x /*+ OPTIONS('scan.snapshot-id'='1') */", "is on x, which is no Paimon"),
        ("WITH c AS (SELECT 1) SELECT * FROM c /*+ OPTIONS('scan.tag-name'='t') */", "is on c,"),
        ("SELECT * FROM v /*+ OPTIONS('nonsense'='1') */", "is on v, which is no Paimon"),
        # Spark's time travel on what is no Paimon table (DuckDB cannot parse it)
        ("SELECT * FROM v VERSION AS OF 1", "v VERSION AS OF 1: v is no Paimon table"),
        # after a subquery sqlglot drops the comment: it is refused, not lost
        (
            "SELECT * FROM (SELECT * FROM d.pk) /*+ OPTIONS('scan.snapshot-id'='1') */ s",
            "is not read where it stands",
        ),
    ],
)
def test_a_hint_or_time_travel_nothing_would_read_is_refused(s, statement, match):
    s.sql("CREATE VIEW memory.main.v AS SELECT * FROM d.pk")
    s.sql("CREATE TABLE memory.main.x AS SELECT 1 AS a")
    with pytest.raises(SqlError, match=match):
        s.sql(statement)
    assert rows(s, "SELECT count(*) FROM v") == [(3,)]  # and the hint on the table still works
    assert rows(s, "SELECT count(*) FROM d.pk /*+ OPTIONS('scan.snapshot-id'='1') */") == [(3,)]


_UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def _settings(con: duckdb.DuckDBPyConnection) -> tuple[float, int]:
    """``memory_limit`` in MiB (DuckDB shows it rounded to 0.1 of its unit) and ``threads``."""
    query = "SELECT current_setting('memory_limit'), current_setting('threads')"
    ((limit, threads),) = con.sql(query).fetchall()
    number, unit = limit.split()
    return float(number) * _UNITS[unit] / 2**20, threads


def test_the_connections_memory_limit_and_threads_hold_for_streamed_reads(tmp_path):
    """Streamed reads run their split queries on a private DuckDB: it follows the connection's
    ``memory_limit`` and ``threads``, as given at connect and as changed through the session."""
    con = duckdb.connect(config={"memory_limit": "500MB", "threads": 1})
    session = paimon_sql.connect(tmp_path / "wh", create=True, connection=con)
    private = session.engine.private
    try:
        assert _settings(private) == pytest.approx((476.8, 1), abs=0.11)
        session.sql("SET memory_limit = '300MB'")
        session.sql("SET threads TO 2")
        assert _settings(private) == pytest.approx((286.1, 2), abs=0.11)
        session.sql("PRAGMA memory_limit = '1GB'")
        assert _settings(private) == pytest.approx((953.7, 2), abs=0.25)
        session.sql("RESET threads")
        assert _settings(private)[1] == _settings(con)[1]
    finally:
        session.close()


def test_a_connection_without_memory_limit_works_and_keeps_it(tmp_path):
    """``memory_limit = '-1'`` (no limit), which DuckDB shows as ``16383.9 PiB`` but cannot parse
    back: the session starts, its private DuckDB gets no limit either, and a write (which caps the
    connection while it sorts) gives the connection its unlimited setting back."""
    query = "SELECT current_setting('memory_limit')"
    con = duckdb.connect()
    con.execute("SET memory_limit = '-1'")
    (unlimited,) = con.sql(query).fetchall()
    session = paimon_sql.connect(tmp_path / "wh", create=True, connection=con)
    try:
        assert session.engine.private.sql(query).fetchall() == [unlimited]
        session.sql("CREATE DATABASE d")
        session.sql(
            "CREATE TABLE d.t (a INT PRIMARY KEY NOT ENFORCED, b INT) WITH ('bucket' = '2')"
        )
        session.sql("INSERT INTO d.t SELECT i, i FROM range(1000) t(i)")
        assert session.sql("SELECT count(*), sum(b) FROM d.t").fetchall() == [(1000, 499500)]
        assert con.sql(query).fetchall() == [unlimited]
        session.sql("SET threads TO 1")  # copies the unlimited setting again
        assert session.engine.private.sql(query).fetchall() == [unlimited]
    finally:
        session.close()
