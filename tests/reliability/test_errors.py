"""One error hierarchy: the failures the fuzzer found on main, each as a `paimon_sql.errors`
error that says what is wrong, chains the original, and names no internal object."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import pytest
import sqlglot

import paimon_sql
from paimon_sql.errors import (
    ArgumentError,
    ExecutionError,
    PaimonSqlError,
    SchemaError,
    SqlError,
    UnsupportedFeatureError,
)

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> paimon_sql.Session:
    """d.t (primary key, partitioned, 2 buckets, tag 'tg') and d.a (append)."""
    s = paimon_sql.connect(tmp_path_factory.mktemp("errors"))
    s.sql("CREATE DATABASE d")
    s.sql(
        "CREATE TABLE d.t (id INT, v STRING, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '2')"
    )
    s.sql("INSERT INTO d.t VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    s.sql("CREATE TABLE d.a (id INT, v STRING)")
    s.sql("CALL sys.create_tag(table => 'd.t', tag => 'tg', snapshot => 1)")
    yield s
    s.close()


# (statement, error type, words the message must contain): each raised a builtin or a raw DuckDB
# or sqlglot exception on main, or named an internal object.
CASES = [
    ("SELECT * FROM d.t /*+ OPTIONS('scan.snapshot-id'='x') */", SqlError, "scan.snapshot-id"),
    ("SELECT * FROM d.t /*+ OPTIONS('scan.timestamp-millis'='x') */", SqlError, "whole number"),
    ("SELECT * FROM d.t VERSION AS OF 1.5", SqlError, "VERSION AS OF"),
    ("SELECT * FROM d.t TIMESTAMP AS OF '0001-01-01'", SqlError, "out of range"),
    ("INSERT INTO d.t", SqlError, "no rows to write"),
    ("INSERT OVERWRITE d.t PARTITION (dt = 1 + 1) SELECT 1, 'a'", SqlError, "not a constant"),
    ("ALTER TABLE d.t ADD", SqlError, "needs a column"),
    ('SELECT id FROM d."t$snapshots" TIMESTAMP AS OF', SqlError, "needs a value"),
    ("CREATE TABLE d.x (id MAP<INT>)", SchemaError, "MAP<K, V>"),
    ("CREATE TABLE d.x (id NOPE)", SqlError, "unknown type 'NOPE'"),
    ("ALTER TABLE d.t SET TBLPROPERTIES ()", UnsupportedFeatureError, "SET ()"),
    ("INSERT INTO d.t VALUES (1)", ExecutionError, "has 3 columns but 1 values were supplied"),
    ("SELECT nope FROM d.t", ExecutionError, 'column "nope" not found'),
    ("SELECT (", ExecutionError, "syntax error"),
    ("'unterminated", ExecutionError, "unterminated"),
    ("SELECT * FROM d.t WHERE id = 'x'", ExecutionError, "Could not convert"),
    (
        "MERGE INTO d.t USING d.a ON d.t.id = d.a.id WHEN MATCHED THEN ERROR",
        UnsupportedFeatureError,
        "THEN ERROR",
    ),
    (
        "CALL sys.create_tag(table => 'd.t', tag => 'a', snapshot => 'x')",
        ArgumentError,
        "snapshot id",
    ),
    ("CALL sys.create_tag(table => 'd.t', tag => '', snapshot => 1)", ArgumentError, "blank"),
    (
        "CALL sys.create_tag(table => 'd.t', tag => 'b', time_retained => 'x')",
        ArgumentError,
        "duration",
    ),
    ("CALL sys.create_tag(table => 'x.y.z', tag => 'q')", ArgumentError, "'db.table'"),
    (
        "CALL sys.create_tag_from_timestamp(table => 'd.t', tag => 'q', timestamp => 1.5)",
        ArgumentError,
        "epoch",
    ),
    ("CALL sys.rename_tag(table => 'd.t', tag => 'tg', target_tag => '')", ArgumentError, "blank"),
    ("CALL sys.expire_tags(table => 'd.t', older_than => 'x')", ArgumentError, "not a timestamp"),
    ("CALL sys.create_tag(table => 'd.t' tag => 'x')", SqlError, "cannot parse CALL"),
    ("CALL sys.compact(table => 'd.t', where => '`dt = 1')", SqlError, "unterminated"),
    ("CALL", ExecutionError, "syntax error"),
]


@pytest.mark.parametrize(("statement", "kind", "words"), CASES, ids=[c[0][:40] for c in CASES])
def test_user_error_is_paimon_error(
    session: paimon_sql.Session, statement: str, kind: type, words: str
) -> None:
    """Each statement raises the paimon-sql error it should, with its cause chained."""
    with pytest.raises(kind, match=None) as caught:
        session.sql(statement).fetchall()
    message = str(caught.value)
    assert words in message
    assert "__paimon" not in message
    assert "__c_" not in message
    assert "SELECT sys." not in message
    assert "LINE 1:" not in message
    assert isinstance(caught.value, PaimonSqlError)


def test_duckdb_error_is_chained(session: paimon_sql.Session) -> None:
    """An `ExecutionError` keeps DuckDB's exception as its cause (for debugging)."""
    with pytest.raises(ExecutionError) as caught:
        session.sql("SELECT nope FROM d.t")
    assert isinstance(caught.value.__cause__, duckdb.Error)


def test_lazy_relation_error_names_the_table(session: paimon_sql.Session) -> None:
    """A failure while a relation is consumed names the user's table, not its hidden source."""
    relation = session.sql("SELECT CAST(v AS INT) FROM d.t")
    with pytest.raises(ExecutionError) as caught:
        relation.fetchall()
    assert "__paimon" not in str(caught.value)


def test_sqlglot_error_keeps_position() -> None:
    """sqlglot's line and column reach `SqlError` (the column counted in the user's CALL text)."""
    from paimon_sql.sql.procedures.procedures import parse_call

    with pytest.raises(SqlError) as caught:
        parse_call("CALL sys.create_tag(table => 'd.t' tag => 'x')")
    assert caught.value.line == 1
    assert caught.value.col is not None
    assert 30 <= caught.value.col <= 40
    assert isinstance(caught.value.__cause__, sqlglot.errors.ParseError)


def test_argument_error_is_a_value_error(tmp_path: Path) -> None:
    """`ArgumentError` stays catchable as ValueError (the Python API documented ValueError)."""
    assert issubclass(ArgumentError, ValueError)
    assert issubclass(ExecutionError, SqlError)


def test_a_statement_without_rows_has_nothing_to_fetch(session: paimon_sql.Session) -> None:
    """Text without a statement gives no relation: fetching is a `SqlError`, not AttributeError."""
    result = session.sql("-- only a comment")
    assert result.relation is None
    with pytest.raises(SqlError, match="no rows"):
        result.fetchall()
