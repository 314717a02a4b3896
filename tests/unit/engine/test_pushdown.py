# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""DATE and TIMESTAMP constants in a WHERE prune files by their statistics; the answer is unchanged.

The expected counts come from filtering the unfiltered read in Python, so a file pruned wrongly
fails the test; EXPLAIN shows the pruning happened.
"""

from __future__ import annotations

import datetime
import decimal
import operator
import shutil
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

import paimon_sql
from paimon_sql.engine.pushdown import table_predicate
from paimon_sql.plan.predicate import And, Compare, InList, IsNull
from paimon_sql.types import DataType

FIXTURES = Path(__file__).parents[2] / "data" / "fixtures"
CPP_TABLE = FIXTURES / "paimon-cpp/test/test_data/parquet/append_complex_data.db"

_OPS = {"=": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}

TYPES = {
    "d": DataType(root="DATE"),
    "ts": DataType(root="TIMESTAMP", precision=6),
    "t9": DataType(root="TIMESTAMP", precision=9),
    "lz": DataType(root="TIMESTAMP_LTZ", precision=6),
    "s": DataType(root="VARCHAR", length=10),
    "n": DataType(root="BIGINT"),
    "i": DataType(root="INT"),
    "dc": DataType(root="DECIMAL", precision=38, scale=7),
    "f": DataType(root="FLOAT"),
}


def _predicate(where: str) -> object:
    query = sqlglot.parse_one(f"SELECT * FROM t WHERE {where}", read="duckdb")
    table = query.find(exp.Table)
    assert table is not None
    return table_predicate(table, set(TYPES), TYPES)


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("d = DATE '2024-01-02'", Compare(("d",), "=", datetime.date(2024, 1, 2))),
        ("d > '2024-01-02'", Compare(("d",), ">", datetime.date(2024, 1, 2))),
        ("'2024-01-02' < d", Compare(("d",), ">", datetime.date(2024, 1, 2))),
        (
            "ts >= '2024-01-02 10:00:00.5'",
            Compare(("ts",), ">=", datetime.datetime(2024, 1, 2, 10, 0, 0, 500000)),
        ),
        ("ts < DATE '2024-01-02'", Compare(("ts",), "<", datetime.datetime(2024, 1, 2))),
        (
            "ts < TIMESTAMP '2024-01-02T01:02'",
            Compare(("ts",), "<", datetime.datetime(2024, 1, 2, 1, 2)),
        ),
        (
            "d IN ('2024-01-02', DATE '2024-01-03')",
            InList(("d",), (datetime.date(2024, 1, 2), datetime.date(2024, 1, 3))),
        ),
        ("s = '2024-01-02'", Compare(("s",), "=", "2024-01-02")),
        # not used (DuckDB still filters): nanosecond statistics are decoded to microseconds, time
        # zones follow the session, spellings Python and DuckDB might read differently
        ("t9 > '2024-01-02'", None),
        ("t9 > TIMESTAMP '2024-01-02'", None),
        ("lz > TIMESTAMP '2024-01-02'", None),
        ("d = '2024-1-2'", None),
        ("d = TIMESTAMP '2024-01-02 00:00:00'", None),
        ("ts > '2024-01-02 10:00:00+02'", None),
        ("ts > '2024-01-02 10:00:00.123456789'", None),
        ("ts > TIMESTAMPTZ '2024-01-02 10:00:00'", None),
        ("s = DATE '2024-01-02'", None),
        # arithmetic on exact numbers is folded as DuckDB folds it; division (a DOUBLE in DuckDB),
        # floats and strings are not
        ("n = 20000 + 80000", Compare(("n",), "=", 100000)),
        ("n IN (1 + 1, (2 * 3) - -1)", InList(("n",), (2, 7))),
        ("5 - 2 < n", Compare(("n",), ">", 3)),
        ("n = 1.5 * 2", Compare(("n",), "=", decimal.Decimal("3.0"))),
        ("n = 10 / 2", None),
        ("n = 1e1 + 1", None),
        ("n = '1' + 1", None),
        # other constant expressions DuckDB evaluates once (casts of literals, integer division,
        # date arithmetic), used when the value has the column's kind
        ("n = CAST('100000' AS BIGINT)", Compare(("n",), "=", 100000)),
        ("n IN (CAST('5' AS INT), 7 // 2, 7 % 4)", InList(("n",), (5, 3, 3))),
        ("d = DATE '2024-01-31' + 1", Compare(("d",), "=", datetime.date(2024, 2, 1))),
        (
            "ts < DATE '2024-01-31' + INTERVAL 1 DAY",
            Compare(("ts",), "<", datetime.datetime(2024, 2, 1)),
        ),
        ("s = CAST(5 AS VARCHAR)", Compare(("s",), "=", "5")),
        # left to DuckDB: errors, NULL, a DOUBLE or text for a BIGINT, a TIMESTAMP for a DATE,
        # infinity, time zones, functions
        ("n = CAST('x' AS BIGINT)", None),
        ("n = 9223372036854775807 * CAST('2' AS BIGINT)", None),
        ("n = 1 // 0", None),
        ("n = CAST(NULL AS BIGINT) + 1", None),
        ("n = CAST('10' AS DOUBLE)", None),
        ("n = CAST(5 AS VARCHAR)", None),
        ("d = DATE '2024-01-31' + INTERVAL 1 DAY", None),
        ("d = CAST('infinity' AS DATE) - 1", None),
        ("ts = CAST(TIMESTAMPTZ '2024-01-02 10:00:00' AS TIMESTAMP)", None),
        ("n = CAST(random() AS BIGINT)", None),
        # a string literal compared with a number column is cast to the column's type by DuckDB
        # (so here too); a number compared with a string column casts the column (``s = 2``
        # matches '02'), which no statistic or bucket hash of `s` can prune for
        ("n = ' 6 '", Compare(("n",), "=", 6)),
        ("n = '5.5'", Compare(("n",), "=", 6)),
        ("n IN ('5', 7)", InList(("n",), (5, 7))),
        ("n = 'x'", None),
        ("s = 2", None),
        ("s = 1 + 1", None),
        ("s IN ('2', 7)", None),
        ("s > 2.5", None),
        ("s = true", None),
        # DECIMAL arithmetic as DuckDB computes it (exact to 38 digits; Python's context rounds)
        (
            "dc = 1234567890123456.789 * 1234567890123.4567",
            Compare(("dc",), "=", decimal.Decimal("1524157875323883565142509777.7625363")),
        ),
        # a number no value of the column equals: the exact test on its neighbours (DuckDB widens
        # the column, never narrows the constant), or nothing where no row can match
        ("i > 2.5", Compare(("i",), ">=", 3)),
        ("i <= 2.5", Compare(("i",), "<=", 2)),
        ("i <> 2.5", IsNull(("i",), negated=True)),
        ("i = 2.5", None),
        ("i < 3000000000", Compare(("i",), "<=", 2**31 - 1)),
        ("i > 3000000000", None),
        ("i IN (9223372036854775807, 1, 1.5)", InList(("i",), (1,))),
        ("i IN (2.5)", None),
        ("i BETWEEN 0.5 AND 2.5", And((Compare(("i",), ">=", 1), Compare(("i",), "<=", 2)))),
        ("n = 1234567890123456.789 * 1234567890123.4567", None),
        ("dc > 1.00000005", Compare(("dc",), ">=", decimal.Decimal("1.0000001"))),
        ("dc = 1.00000010", Compare(("dc",), "=", decimal.Decimal("1.0000001"))),
        # more than 38 digits: a DOUBLE in DuckDB, so not compared exactly
        ("i >= 1.00000000000000000000000000000000000001", None),
        # FLOAT: only a constant the type holds exactly (DuckDB may compare in DOUBLE)
        ("f = 0.5", Compare(("f",), "=", 0.5)),
        ("f < 1.00000001e0", None),
        ("f = 0.1", None),
    ],
)
def test_temporal_constants(where: str, expected: object) -> None:
    assert _predicate(where) == expected


def _rows_and_files(session: paimon_sql.Session, query: str) -> tuple[int, int]:
    count = session.sql(f"SELECT count(*) FROM ({query})").fetchall()[0][0]
    lines = [str(r[-1]) for r in session.sql(f"EXPLAIN {query}").fetchall()]
    read = [line for text in lines for line in text.splitlines() if "read of" in line]
    return count, int(read[0].split()[0])


def test_java_written_date_statistics_prune_exactly(tmp_path: Path) -> None:
    """paimon-cpp's Java-written append table: a DATE column over 6 files in 4 partitions."""
    shutil.copytree(CPP_TABLE, tmp_path / "wh" / CPP_TABLE.name)
    session = paimon_sql.connect(tmp_path / "wh")
    table = "append_complex_data.append_complex_data"
    values = [r[0] for r in session.sql(f"SELECT f3 FROM {table}").fetchall()]
    days = sorted({v for v in values if v is not None})
    _, files = _rows_and_files(session, f"SELECT * FROM {table}")
    pruned = 0
    for day in days:
        for op, fn in _OPS.items():
            for literal in (f"DATE '{day}'", f"'{day}'"):
                expected = sum(1 for v in values if v is not None and fn(v, day))
                count, read = _rows_and_files(
                    session, f"SELECT * FROM {table} WHERE f3 {op} {literal}"
                )
                assert count == expected, (op, literal)
                pruned += files - read
    assert pruned > 0


def test_timestamp_and_date_pruning_on_our_files(tmp_path: Path) -> None:
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.e (id INT, ts TIMESTAMP(6), d DATE) WITH ('bucket' = '-1')")
    start = datetime.datetime(2024, 1, 1, 10, 0, 0, 123456)
    for i in range(6):
        session.sql(
            "INSERT INTO db.e SELECT i, ?::TIMESTAMP + i * INTERVAL 1 MINUTE, ?::DATE "
            "FROM range(3) r(i)",
            [start + datetime.timedelta(days=i), (start + datetime.timedelta(days=i)).date()],
        )
    rows = session.sql("SELECT ts, d FROM db.e").fetchall()
    for i in range(6):
        ts = start + datetime.timedelta(days=i, minutes=1)
        for op, fn in _OPS.items():
            literal = ts.isoformat(sep=" ")
            count, read = _rows_and_files(session, f"SELECT * FROM db.e WHERE ts {op} '{literal}'")
            assert count == sum(1 for t, _ in rows if fn(t, ts)), (op, literal)
            if op == "=":
                assert read == 1
            day = ts.date()
            count, _ = _rows_and_files(session, f"SELECT * FROM db.e WHERE ts {op} DATE '{day}'")
            midnight = datetime.datetime.combine(day, datetime.time())
            assert count == sum(1 for t, _ in rows if fn(t, midnight)), (op, day)


def test_a_key_written_as_arithmetic_prunes_as_the_literal(tmp_path: Path) -> None:
    """``WHERE a = 20000 + 80000`` reads the files ``WHERE a = 100000`` reads (it read them all);
    SELECT, UPDATE and DELETE give the literal's answer."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (a BIGINT NOT NULL, v VARCHAR, PRIMARY KEY (a) NOT ENFORCED) "
        "WITH ('bucket' = '4')"
    )
    for low in (0, 1000, 2000):
        session.sql(f"INSERT INTO db.t SELECT i, 'v' || i FROM range({low}, {low + 1000}) r(i)")
    literal = _rows_and_files(session, "SELECT * FROM db.t WHERE a = 1500")
    folded = _rows_and_files(session, "SELECT * FROM db.t WHERE a = 1000 + 250 * 2")
    everything = _rows_and_files(session, "SELECT * FROM db.t")
    assert folded == literal == (1, 1)
    assert everything[1] == 12
    session.sql("UPDATE db.t SET v = 'u' WHERE a = 1000 + 250 * 2")
    session.sql("DELETE FROM db.t WHERE a = (2000 + 1) * 1")
    assert session.sql("SELECT a, v FROM db.t WHERE a IN (1500, 2001, 2002)").fetchall() == [
        (1500, "u"),
        (2002, "v2002"),
    ]


def _files_read(session: paimon_sql.Session) -> int:
    plan = session.last_plan("db.k")
    assert plan is not None
    return sum(len(split.files) for split in plan.splits)


def test_keys_and_partitions_written_as_casts_prune_as_literals(tmp_path: Path) -> None:
    """``d = DATE '2024-01-01' + 1 AND a = CAST('1500' AS BIGINT)`` reads the files the literal
    reads in SELECT, UPDATE and DELETE (they read every partition and bucket); same answers."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.k (d DATE NOT NULL, a BIGINT NOT NULL, v VARCHAR, "
        "PRIMARY KEY (d, a) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket' = '4')"
    )
    for low in (0, 1000, 2000):
        session.sql(
            "INSERT INTO db.k SELECT DATE '2024-01-01' + (i % 3)::INT, i, 'v' || i "
            f"FROM range({low}, {low + 1000}) r(i)"
        )
    literal = "d = DATE '2024-01-02' AND a = 1501"
    folded = "d = DATE '2024-01-01' + 1 AND a = CAST('1501' AS BIGINT)"
    expected = _rows_and_files(session, f"SELECT * FROM db.k WHERE {literal}")
    assert expected == (1, 1)
    rows, select = _rows_and_files(session, f"SELECT * FROM db.k WHERE {folded}")
    assert rows == 1
    session.sql(f"UPDATE db.k SET v = 'u' WHERE {folded}")
    update = _files_read(session)
    _, before = _rows_and_files(session, "SELECT * FROM db.k WHERE d = '2024-01-03' AND a = 2")
    session.sql("DELETE FROM db.k WHERE d = DATE '2024-01-02' + 1 AND a = 1 // 1 + 1")
    assert {"select": select, "update": update, "delete": _files_read(session)} == {
        "select": 1,
        "update": 1,
        "delete": before,
    }
    assert before == 1
    assert session.sql("SELECT a, v FROM db.k WHERE a IN (1501, 2, 5) ORDER BY a").fetchall() == [
        (5, "v5"),
        (1501, "u"),
    ]


def test_decimal_arithmetic_prunes_by_duckdb_s_exact_value(tmp_path: Path) -> None:
    """A product with more than 28 digits: pruning by a rounded value dropped the file holding the
    row DuckDB's exact DECIMAL matches."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.m (id INT, m DECIMAL(38, 7))")
    product = "1234567890123456.789 * 1234567890123.4567"
    session.sql(f"INSERT INTO db.m SELECT 1, {product}")
    session.sql("INSERT INTO db.m SELECT 2, 1.5")
    assert _rows_and_files(session, f"SELECT * FROM db.m WHERE m = {product}") == (1, 1)


def test_constants_of_another_kind_than_the_column_answer_as_duckdb(tmp_path: Path) -> None:
    """``s = 2`` on a STRING key casts the key (DuckDB matches '02' and ' 2'); ``k = '15.5'`` on an
    INT key casts the text (``k = 16``). Each query gives DuckDB's own answer over the same rows,
    for a bucketed primary-key table, a string-partitioned append table, SELECT and DELETE (the
    bucket hash of the number 2 once pruned every file holding '02')."""
    rows = [("02", "20240101", 1), ("2", "20240101", 2), (" 2", "2", 3), ("10", "02", 4)]
    rows += [(str(i), str(20240100 + i % 5), i) for i in range(11, 60)]
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.pk (s STRING NOT NULL, dt STRING, k INT, PRIMARY KEY (s) NOT ENFORCED) "
        "WITH ('bucket' = '4')"
    )
    session.sql("CREATE TABLE db.ap (s STRING, dt STRING, k INT) PARTITIONED BY (dt)")
    session.sql("CREATE TABLE expected (s VARCHAR, dt VARCHAR, k INT)")
    for chunk in (rows[:4], rows[4:30], rows[30:]):
        values = ", ".join(f"('{s}', '{dt}', {k})" for s, dt, k in chunk)
        for table in ("db.pk", "db.ap", "expected"):
            session.sql(f"INSERT INTO {table} VALUES {values}")
    wheres = [
        "s = 2",
        "s = 1 + 1",
        "s IN (2, 10)",
        "s = 10",
        "dt = 20240101",
        "dt = 2",
        "dt IN (2, 20240103)",
        "k = '15.5'",
        "k IN ('13', 19)",
        "k = ' 3 '",
        "k = '12.6'",
    ]
    for table in ("db.ap", "db.pk"):
        for where in wheres:
            query = "SELECT s, dt, k FROM {} WHERE " + where + " ORDER BY k"
            got = session.sql(query.format(table)).fetchall()
            assert got == session.sql(query.format("expected")).fetchall(), (table, where)
            assert got, where
    session.sql("DELETE FROM db.pk WHERE s = 1 + 1")
    session.sql("DELETE FROM expected WHERE s = 1 + 1")
    everything = "SELECT s, k FROM {} ORDER BY k"
    assert (
        session.sql(everything.format("db.pk")).fetchall()
        == session.sql(everything.format("expected")).fetchall()
    )
    assert session.sql("SELECT count(*) FROM db.pk WHERE k <= 3").fetchall() == [(0,)]


def _predicate_of(query: str, name: str = "t") -> object:
    tree = sqlglot.parse_one(query, read="duckdb")
    table = next(t for t in tree.find_all(exp.Table) if t.name == name and t.db == "db")
    return table_predicate(table, set(TYPES), TYPES)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT * FROM db.t WHERE t.n = 4", Compare(("n",), "=", 4)),
        ("SELECT * FROM db.t AS x WHERE X.n = 4", Compare(("n",), "=", 4)),
        # once aliased, `t` is no longer db.t: another relation's, or an outer query's
        ("SELECT * FROM db.t AS x, (SELECT 5 AS n) AS t WHERE t.n = 5", None),
        ("SELECT * FROM db.t AS x JOIN db.u AS t ON true WHERE t.n = 5", None),
        (
            "SELECT * FROM (SELECT 5 AS n) AS t "
            "WHERE EXISTS (SELECT 1 FROM db.t AS b WHERE t.n = 5)",
            None,
        ),
        # the WHERE applies after joins that pair rows by as-of match or position, and samples
        ("SELECT * FROM (SELECT 10 AS q) s ASOF JOIN db.t a ON s.q >= a.n WHERE a.n = 4", None),
        ("SELECT * FROM db.t a ASOF JOIN db.u b ON a.n >= b.n WHERE a.n = 4", None),
        ("SELECT * FROM db.t a POSITIONAL JOIN db.u b WHERE a.n = 4", None),
        ("SELECT * FROM db.t WHERE n = 4 USING SAMPLE 10 ROWS", None),
        ("SELECT * FROM db.t TABLESAMPLE RESERVOIR(10 ROWS) WHERE n = 4", None),
        # a LIMIT inside: the outer WHERE is not the inner scan's
        ("SELECT * FROM (SELECT * FROM db.t LIMIT 3) WHERE n = 4", None),
        # inner lateral joins see each row on its own: still pruned
        ("SELECT * FROM db.t a, unnest([a.n]) AS u(x) WHERE a.n = 4", Compare(("n",), "=", 4)),
    ],
)
def test_predicate_follows_sql_scopes_and_order(query: str, expected: object) -> None:
    assert _predicate_of(query) == expected
