"""The Paimon dialect: CALL, SHOW, OPTIONS hints, ``t$…`` names and statement prefixes as nodes."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from paimon_sql.errors import InvalidNameError, PaimonSqlError, SqlError
from paimon_sql.sql.dialect import (
    Call,
    Paimon,
    TableName,
    TableOptions,
    create_table_database,
    is_alter_table,
    is_create_table,
    names_paimon_options,
    parse_call,
    parse_hint,
    parse_show,
    table_name,
)

# --- CALL -------------------------------------------------------------------------------------


def test_call_named_and_positional_arguments() -> None:
    call = parse_call("CALL sys.create_tag('db.t', tag => 'nightly', snapshot => -3)")
    assert isinstance(call, Call)
    assert call.procedure == "create_tag"
    positional, *named = call.expressions
    assert positional == exp.Literal.string("db.t")
    assert [(k.this.name, k.expression.sql()) for k in named] == [
        ("tag", "'nightly'"),
        ("snapshot", "-3"),
    ]


def test_call_keywords_as_parameter_names() -> None:
    call = parse_call("CALL sys.compact(table => 'db.t', where => 'dt = 1', order_by => 'a')")
    assert call is not None
    assert [k.this.name for k in call.expressions] == ["table", "where", "order_by"]


@pytest.mark.parametrize(
    ("text", "procedure"),
    [
        ("call Sys.Rollback('db.t', 2)", "rollback"),
        ("CALL rollback('db.t', 2)", "rollback"),
        ("  CALL\n sys.rollback('db.t', 2) ;", "rollback"),
        ("-- a comment first\nCALL sys.rollback('db.t', 2)", "rollback"),
        ("CALL sys.expire_snapshots()", "expire_snapshots"),
    ],
)
def test_call_spellings(text: str, procedure: str) -> None:
    call = parse_call(text)
    assert call is not None
    assert call.procedure == procedure


def test_call_arguments_follow_spark_lexing() -> None:
    """Double quotes are strings and backslash escapes, as in Spark's CALL."""
    call = parse_call(r"""CALL sys.create_tag(table => "db.t", tag => 'it\'s')""")
    assert call is not None
    values = [k.expression for k in call.expressions]
    assert values == [exp.Literal.string("db.t"), exp.Literal.string("it's")]


def test_call_strings_take_the_sql_quote_escape() -> None:
    """``''`` in a single-quoted string is one quote (SQL's and Flink's escape), as ``\\'`` is."""
    call = parse_call(
        "CALL sys.compact(table => 'db.t', where => 'p = ''x''', tag => 'it''s', e => '''')"
    )
    assert call is not None
    values = [k.expression for k in call.expressions]
    assert values == [exp.Literal.string(v) for v in ("db.t", "p = 'x'", "it's", "'")]
    double = parse_call("""CALL sys.x(a => "d''q")""")  # a double-quoted string keeps both
    assert double is not None
    assert double.expressions[0].expression == exp.Literal.string("d''q")


def test_call_literal_kinds() -> None:
    call = parse_call("CALL sys.x(1, 1.5, true, NULL, TIMESTAMP '2024-01-01 00:00:00')")
    assert call is not None
    kinds = [type(a) for a in call.expressions]
    assert kinds == [exp.Literal, exp.Literal, exp.Boolean, exp.Null, exp.Cast]


@pytest.mark.parametrize("text", ["SELECT 1", "CALL", "CALL ", "calls sys.x()", "'CALL sys.x()'"])
def test_not_a_call(text: str) -> None:
    """None hands the text on (a bare CALL is DuckDB's to report)."""
    assert parse_call(text) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("CALL sys.create_tag(table => 'd.t' tag => 'x')", "cannot parse CALL statement"),
        ("CALL sys.x(1", "cannot parse CALL statement"),
        ("CALL sys.x('open", "unterminated"),
        ("CALL sys.x(a => 1, 2)", "positional arguments must come before named ones"),
        ("CALL sys.x(tag => 'a', b => 1, TAG => 'z')", "parameter 'tag' is given twice"),
        ("CALL other.x()", "write CALL sys.x(...)"),
        ("CALL a.b.c()", "write CALL sys.c(...)"),
        ("CALL sys.x", "not a procedure call: CALL sys.x"),
        ("CALL 1", "not a procedure call: CALL 1"),
        ("CALL sys.x() y;", "not a procedure call: CALL sys.x() y"),
    ],
)
def test_malformed_call_is_sql_error(text: str, words: str) -> None:
    with pytest.raises(SqlError) as caught:
        parse_call(text)
    assert words in str(caught.value)
    assert isinstance(caught.value, PaimonSqlError)


def test_call_error_position_is_the_users() -> None:
    with pytest.raises(SqlError) as caught:
        parse_call("CALL sys.create_tag(table => 'd.t' tag => 'x')")
    assert (caught.value.line, caught.value.col) == (1, 38)
    assert isinstance(caught.value.__cause__, sqlglot.errors.ParseError)


def test_call_through_sqlglot_and_back() -> None:
    node = sqlglot.parse_one("CALL sys.rollback(table => 'db.t', version => 2)", read=Paimon)
    assert isinstance(node, Call)
    assert node.sql(Paimon) == "CALL sys.rollback(table => 'db.t', version => 2)"


# --- SHOW -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["SHOW DATABASES", "show schemas;", "SHOW DATABASES ; "])
def test_show_databases(text: str) -> None:
    show = parse_show(text)
    assert show is not None
    assert show.this in ("DATABASES", "SCHEMAS")


@pytest.mark.parametrize(
    ("text", "database"),
    [
        ("SHOW TABLES FROM shop", "shop"),
        ("show tables in `shop`", "shop"),
        ('SHOW TABLES FROM "my db"', "my db"),
        ("SHOW TABLES FROM my-db;", "my-db"),
        ("SHOW TABLES FROM 1st", "1st"),
        ("SHOW TABLES", None),
    ],
)
def test_show_tables(text: str, database: str | None) -> None:
    show = parse_show(text)
    assert show is not None
    assert show.this == "TABLES"
    db = show.args.get("db")
    assert (db.name if db is not None else None) == database


def test_show_create_table() -> None:
    show = parse_show("SHOW CREATE TABLE `shop`.orders")
    assert show is not None
    assert show.this == "CREATE TABLE"
    target = show.args["target"]
    assert (target.db, target.name) == ("shop", "orders")
    unqualified = parse_show("SHOW CREATE TABLE orders")
    assert unqualified is not None
    assert not unqualified.args["target"].db


@pytest.mark.parametrize(
    "text",
    [
        "SELECT 1",
        "SHOW TABLES LIKE 'o%'",
        "SHOW TABLES FROM a b",
        "SHOW TABLES FROM my - db",
        "SHOW CREATE TABLE a.b.c",
        "SHOW ALL TABLES",
        "SHOW FUNCTIONS",
        "SHOW TABLES FROM",
        "SHOW 'open",
    ],
)
def test_other_show_forms_go_to_duckdb(text: str) -> None:
    assert parse_show(text) is None


# --- OPTIONS hints ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "comment",
    [
        "+ OPTIONS('scan.snapshot-id'='3', 'scan.tag-name' = 'x') ",
        " OPTIONS('scan.snapshot-id'='3', 'scan.tag-name' = 'x') ",  # Spark drops the +
        "+ options ( 'scan.snapshot-id' = '3' , 'scan.tag-name'='x' )",
    ],
)
def test_hint_options(comment: str) -> None:
    hint = parse_hint(comment)
    assert isinstance(hint, TableOptions)
    assert hint.to_dict() == {"scan.snapshot-id": "3", "scan.tag-name": "x"}


def test_hint_from_a_parsed_query() -> None:
    """The comment sqlglot keeps on the table (DuckDB and Spark spellings) reads as the hint."""
    sql = "SELECT * FROM db.t /*+ OPTIONS('scan.snapshot-id'='1') */ WHERE id > 1"
    for dialect in ("duckdb", "spark"):
        table = sqlglot.parse_one(sql, read=dialect).find(exp.Table)
        assert table is not None
        hints = [parse_hint(c) for c in table.comments or []]
        assert [h.to_dict() for h in hints if h is not None] == [{"scan.snapshot-id": "1"}]


def test_hint_renders_back() -> None:
    hint = parse_hint("+ OPTIONS('a'='b')")
    assert hint is not None
    assert hint.sql(Paimon) == "/*+ OPTIONS('a' = 'b') */"
    assert parse_hint(hint.sql(Paimon)[2:-2]) == hint


@pytest.mark.parametrize("comment", [" just a comment ", "+ BROADCAST(t) ", "don't", "OPTIONS"])
def test_other_comments_are_no_hint(comment: str) -> None:
    assert parse_hint(comment) is None


@pytest.mark.parametrize(
    "comment",
    [
        "+ OPTIONS('scan.snapshot-id'=3)",
        "+ OPTIONS(scan.snapshot-id='3')",
        "+ OPTIONS('a'='b' 'c'='d')",
        "+ OPTIONS('a'='b'",
        "+ OPTIONS('a')",
        "+ OPTIONS('a'='b') extra",
        "+ OPTIONS('a'='open",
    ],
)
def test_malformed_hint_is_sql_error(comment: str) -> None:
    with pytest.raises(SqlError, match="OPTIONS hint"):
        parse_hint(comment)


# --- t$… names --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("t", TableName("t")),
        ("t$snapshots", TableName("t", system="snapshots")),
        ("t$Files", TableName("t", system="files")),
        ("t$branch_b", TableName("t", branch="b")),
        ("t$BRANCH_dev-1", TableName("t", branch="dev-1")),
        ("t$branch_b$files", TableName("t", branch="b", system="files")),
        ("t$", TableName("t", system="")),
    ],
)
def test_table_name_parts(name: str, parts: TableName) -> None:
    assert table_name(name) == parts


def test_table_name_with_too_many_parts() -> None:
    with pytest.raises(InvalidNameError, match="too many"):
        table_name("t$snapshots$files")


def test_system_table_names_in_queries() -> None:
    """Unquoted and quoted ``t$…`` names reach the table node whole; the dialect splits them."""
    for sql in ("SELECT * FROM db.t$branch_b$files", 'SELECT * FROM db."t$branch_b$files"'):
        for dialect in ("duckdb", Paimon):
            table = sqlglot.parse_one(sql, read=dialect).find(exp.Table)
            assert table is not None
            assert table_name(table.name) == TableName("t", branch="b", system="files")


# --- CREATE / ALTER TABLE prefixes ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CREATE TABLE db.t (id INT)", True),
        ("create or replace table t (id INT)", True),
        ("/* c */ CREATE TABLE db.t (id INT)", True),
        ("CREATE TABLE db.t (s STRING DEFAULT 'open", True),  # unreadable later: still a CREATE
        ("CREATE VIEW v AS SELECT 1", False),
        ("CREATE TEMP TABLE t (id INT)", False),
        ('"CREATE" TABLE', False),
        ("SELECT 'CREATE TABLE'", False),
    ],
)
def test_is_create_table(text: str, expected: bool) -> None:
    assert is_create_table(text) is expected


def test_is_alter_table() -> None:
    assert is_alter_table("alter table db.t add c int")
    assert not is_alter_table("ALTER VIEW v RENAME TO w")
    assert not is_alter_table("SELECT 1")


@pytest.mark.parametrize(
    ("text", "database"),
    [
        ("CREATE TABLE shop.t (id INT)", "shop"),
        ("CREATE TABLE IF NOT EXISTS `shop`.t (id NOPE)", "shop"),
        ('CREATE OR REPLACE TABLE "my db".t (id INT)', "my db"),
        ("CREATE TABLE my-db.t (id INT)", "my-db"),
        ("CREATE TABLE shop.t (s STRING COMMENT 'open", "shop"),
        ("CREATE TABLE t (id INT)", None),
        ("CREATE VIEW shop.v AS SELECT 1", None),
    ],
)
def test_create_table_database(text: str, database: str | None) -> None:
    assert create_table_database(text) == database


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CREATE TABLE t (id INT) WITH ('bucket' = '2')", True),
        ("CREATE TABLE t (id INT) with('bucket' = '2')", True),
        ("CREATE TABLE t (id INT) USING PAIMON", True),
        ("CREATE TABLE t (id INT) USING paimon TBLPROPERTIES ('bucket' = '2')", True),
        ("CREATE TABLE t (id INT) tblproperties ('bucket' = '2')", True),
        ("CREATE TABLE t (id INT)", False),
        ("CREATE TABLE t (id INT) USING parquet", False),
        ("CREATE TABLE t (c STRING DEFAULT 'WITH (')", False),
        ("CREATE TABLE t AS WITH q AS (SELECT 1) SELECT * FROM q", False),
    ],
)
def test_names_paimon_options(text: str, expected: bool) -> None:
    assert names_paimon_options(text) is expected
