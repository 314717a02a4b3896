# ruff: noqa: S608 - the statements are generated test inputs over our own names
"""Random WHERE clauses over Paimon tables give DuckDB's own answer over the same rows.

Pruning (partitions, buckets, key and value statistics) uses the constants of a WHERE; a constant
read differently from DuckDB prunes files that hold matches. The model here is DuckDB itself: the
same rows in a plain DuckDB table, the same WHERE. The rows are made to trip pruning: digit
strings (``'02'``, ``' 2'``) where DuckDB casts a VARCHAR to compare it with a number, NULLs,
dates, decimals, negative numbers; the constants mix kinds (numbers for strings, strings for
numbers and dates, arithmetic, casts, numbers no value of the column equals). Four layouts: a
partitioned primary-key table in 4 buckets (several files per bucket), the same in 1 bucket written
in key order (sections read without a merge), a partitioned append table, and a deletion-vector
table.

A WHERE that DuckDB itself rejects (a conversion error) is not compared: whether it fails depends on
which rows are read, which pruning rightly changes.
"""

from __future__ import annotations

import datetime
import decimal
import random
from typing import TYPE_CHECKING, Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paimon_sql

if TYPE_CHECKING:
    from pathlib import Path

COLUMNS = {
    "p": "INT",
    "k": "STRING",
    "i": "INT",
    "b": "BIGINT",
    "s": "STRING",
    "d": "DATE",
    "ts": "TIMESTAMP",
    "dec": "DECIMAL(10, 2)",
    "f": "DOUBLE",
    "flag": "BOOLEAN",
}
DUCK = {"STRING": "VARCHAR", "TIMESTAMP": "TIMESTAMP"}
TABLES = {
    "db.pk": "PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '4')",
    "db.ap": ") PARTITIONED BY (p)",
    "db.dv": "PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2', "
    "'deletion-vectors.enabled' = 'true')",
    # written in key order, so no two files overlap: sections read unmerged, value filters below
    "db.pks": "PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '1')",
}
DIGITS = ["02", "2", " 2", "10", "-3", "007", "1e1", "abc", "", "2024-01-02"]


def _rows() -> list[tuple[Any, ...]]:
    rng = random.Random(18)
    rows = []
    keys: set[str] = set()
    for n in range(240):
        maybe = rng.random() < 0.1
        key = DIGITS[n % len(DIGITS)] + str(n // len(DIGITS)) if n % 4 else str(n)
        key = key if key not in keys else f"{key}#{n}"  # every key once (the tables' keys)
        keys.add(key)
        rows.append(
            (
                n % 3 - 1,
                key,
                None if maybe else rng.randint(-20, 20),
                rng.choice([None, -(2**40), 0, 5, 2**33 + n]),
                None if rng.random() < 0.1 else rng.choice([*DIGITS, f"w{n}"]),
                datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(-3, 40)),
                datetime.datetime(2024, 1, 1, 12) + datetime.timedelta(hours=rng.randint(-50, 50)),
                decimal.Decimal(rng.randint(-500, 500)) / 100,
                rng.choice([-1.5, 0.0, 2.5, 1e10, float(n)]),
                rng.choice([True, False, None]),
            )
        )
    return rows


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, datetime.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, datetime.date):
        return f"DATE '{value.isoformat()}'"
    return str(value)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path: Path = tmp_path_factory.mktemp("pushdown") / "wh"
    return path


@pytest.fixture(scope="module")
def plain(warehouse: Path, session: paimon_sql.Session) -> duckdb.DuckDBPyConnection:
    """A plain DuckDB connection with the warehouse installed: DuckDB pushes its own filters into
    the tables' sources, which must apply each one they accept exactly."""
    con = duckdb.connect()
    paimon_sql.install(con, str(warehouse))
    return con


@pytest.fixture(scope="module")
def session(warehouse: Path) -> paimon_sql.Session:
    s = paimon_sql.connect(warehouse, create=True)
    s.sql("CREATE DATABASE db")
    columns = ", ".join(
        f"{c} {t}{' NOT NULL' if c in ('p', 'k') else ''}" for c, t in COLUMNS.items()
    )
    for name, tail in TABLES.items():
        s.sql(f"CREATE TABLE {name} ({columns}{', ' if tail.startswith('PRIMARY') else ''}{tail}")
    duck_columns = ", ".join(f"{c} {DUCK.get(t, t)}" for c, t in COLUMNS.items())
    s.sql(f"CREATE TABLE expected ({duck_columns})")
    rows = _rows()
    for start in range(0, len(rows), 60):  # several files per bucket and partition
        values = ", ".join(
            "(" + ", ".join(_literal(v) for v in row) + ")" for row in rows[start : start + 60]
        )
        for name in (*TABLES, "expected"):
            if name in ("db.dv", "db.pks"):
                continue
            s.sql(f"INSERT INTO {name} VALUES {values}")
    ordered = sorted(rows, key=lambda row: row[1])
    for start in range(0, len(ordered), 60):
        values = ", ".join(
            "(" + ", ".join(_literal(v) for v in row) + ")" for row in ordered[start : start + 60]
        )
        s.sql(f"INSERT INTO db.pks VALUES {values}")
    # the deletion-vector table is keyed by k alone: the same rows, each key once
    s.sql("INSERT INTO db.dv SELECT * FROM expected")
    s.sql("UPDATE db.dv SET i = i WHERE p = 0")  # rewrites a third of the rows: vectors
    return s


_CONSTANTS = st.one_of(
    st.integers(-25, 25),
    st.sampled_from([0, 2, 10, 2**33, -(2**40), 1.5, -0.5, 2.5]),
    st.sampled_from([*DIGITS, "w3", "5", "1.5", "true"]),
    st.dates(datetime.date(2023, 12, 25), datetime.date(2024, 2, 15)),
    st.sampled_from(["1 + 1", "2 * 3 - 10", "CAST('5' AS INT)", "7 // 2", "CAST(2 AS VARCHAR)"]),
    st.sampled_from(["DATE '2024-01-05' + 1", "TIMESTAMP '2024-01-01 10:00:00'", "NULL"]),
)


def _constant(value: Any) -> str:
    if isinstance(value, str) and value[:1].isalpha() and (" " in value or "(" in value):
        return value  # an expression or a typed literal
    if isinstance(value, str) and value == "NULL":
        return value
    return _literal(value)


#: Numbers no value of the INT, BIGINT or DECIMAL(10, 2) column they meet equals (a fraction, a
#: scale, a range beyond it): DuckDB widens the column, so they are never narrowed to its type.
_WIDER = st.sampled_from(
    [0.5, -4.5, 1.005, -0.015, 2**31, -(2**31) - 1, 2**63, -(2**63) - 1, 10**8, -(10**8)]
)


@st.composite
def _wider(draw: st.DrawFn) -> str:
    column = draw(st.sampled_from(["p", "i", "b", "dec"]))
    if draw(st.booleans()):
        values = draw(st.lists(st.one_of(_WIDER, st.integers(-3, 3)), min_size=1, max_size=3))
        return f"{column} IN ({', '.join(map(str, values))})"
    op = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">="]))
    return f"{column} {op} {draw(_WIDER)}"


@st.composite
def _leaf(draw: st.DrawFn) -> str:
    column = draw(st.sampled_from(list(COLUMNS)))
    form = draw(st.sampled_from(["cmp", "cmp", "cmp", "in", "between", "null", "wider"]))
    if form == "wider":
        return draw(_wider())
    if form == "null":
        return f"{column} IS {draw(st.sampled_from(['', 'NOT ']))}NULL"
    if form == "in":
        values = draw(st.lists(_CONSTANTS, min_size=1, max_size=3))
        return f"{column} IN ({', '.join(_constant(v) for v in values)})"
    if form == "between":
        low, high = draw(_CONSTANTS), draw(_CONSTANTS)
        return f"{column} BETWEEN {_constant(low)} AND {_constant(high)}"
    op = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">="]))
    left, right = column, _constant(draw(_CONSTANTS))
    if draw(st.booleans()):
        left, right = right, left
    return f"{left} {op} {right}"


@st.composite
def _where(draw: st.DrawFn) -> str:
    parts = draw(st.lists(_leaf(), min_size=1, max_size=3))
    if len(parts) > 1 and draw(st.integers(0, 4)) == 0:
        return f"({parts[0]}) OR ({' AND '.join(parts[1:])})"
    return " AND ".join(parts)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(where=_where())
def test_a_where_gives_duckdb_s_answer(
    session: paimon_sql.Session, plain: duckdb.DuckDBPyConnection, where: str
) -> None:
    names = ", ".join(COLUMNS)
    try:
        expected = session.sql(f"SELECT {names} FROM expected WHERE {where}").fetchall()
    except (duckdb.Error, paimon_sql.errors.PaimonSqlError):
        return  # DuckDB rejects it for these rows (or at all): not comparable
    for name in ("db.pk", "db.ap", "db.pks"):
        got = session.sql(f"SELECT {names} FROM {name} WHERE {where}").fetchall()
        assert sorted(map(repr, got)) == sorted(map(repr, expected)), (name, where)
        try:
            through = plain.sql(f"SELECT {names} FROM {name} WHERE {where}").fetchall()
        except duckdb.ConversionException:
            continue  # DuckDB ordered the conjuncts otherwise: a cast met a row another drops
        assert sorted(map(repr, through)) == sorted(map(repr, expected)), ("plain", name, where)
    keyed = session.sql(
        f"SELECT {names} FROM (SELECT * FROM expected QUALIFY row_number() OVER "
        f"(PARTITION BY k ORDER BY p DESC) = 1) WHERE {where}"
    ).fetchall()
    got = session.sql(f"SELECT {names} FROM db.dv WHERE {where}").fetchall()
    assert sorted(map(repr, got)) == sorted(map(repr, keyed)), ("db.dv", where)
