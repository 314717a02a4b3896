"""sqlglot nodes for the statements paimon-sql runs on DuckDB itself (views, staging tables, SET).

Every name and value goes in as an identifier or literal node, never as SQL text, so a table or
column name with quotes or semicolons stays a name. Used by `sql/` and `write/` (both run DuckDB
statements).

>>> hidden = select_all(table_node("__paimon_1"))
>>> view = create_view(table_node("db", 'a"; DROP TABLE x; --'), hidden)
>>> view.sql("duckdb")
'CREATE OR REPLACE VIEW "db"."a""; DROP TABLE x; --" AS SELECT * FROM "__paimon_1"'
>>> set_setting("memory_limit", "1GB").sql("duckdb")
"SET memory_limit = '1GB'"
"""

from __future__ import annotations

from typing import TypeVar, cast

from sqlglot import exp

_E = TypeVar("_E", bound=exp.Expr)


def ident(name: str) -> exp.Identifier:
    """A quoted identifier: `name` exactly, whatever characters it holds."""
    return exp.to_identifier(name, quoted=True)


def table_node(*parts: str, alias: str | None = None) -> exp.Table:
    r"""``"db"."table"`` (or ``"table"``) as a node, optionally aliased.

    >>> table_node("d", "t'x", alias="s").sql("duckdb")
    '"d"."t\'x" AS "s"'
    """
    if not 1 <= len(parts) <= 2:
        raise ValueError(f"expected (table) or (database, table), got {parts!r}")
    node = exp.Table(this=ident(parts[-1]), db=ident(parts[0]) if len(parts) == 2 else None)
    if alias is not None:
        node.set("alias", exp.TableAlias(this=ident(alias)))
    return node


def unqualify(statement: exp.Expression, node: exp.Table) -> None:
    """Columns written ``db.t.col`` of an unaliased table ``db.t`` become ``t.col``.

    What reads a Paimon table in its place (a subquery, a staged table) is named ``t`` only, so
    DuckDB would not find ``db.t``; Spark and DuckDB accept a column qualified by the database and
    table name (``DELETE FROM db.t WHERE EXISTS (… WHERE s.k = db.t.k)``). An aliased table is
    named by its alias only, as in SQL.

    >>> import sqlglot
    >>> query = sqlglot.parse_one("SELECT db.t.k, x.t.k FROM db.t", read="duckdb")
    >>> unqualify(query, query.find(exp.Table))
    >>> query.sql("duckdb")
    'SELECT t.k, x.t.k FROM db.t'
    """
    if node.args.get("alias") is not None or node.args.get("catalog") is not None:
        return
    db, name = node.db.lower(), node.name.lower()
    for column in list(statement.find_all(exp.Column)):
        if column.args.get("catalog") is not None or column.args.get("db") is None:
            continue
        if (column.db.lower(), column.table.lower()) == (db, name):
            column.set("db", None)


def pivot_sources_hoisted(statement: exp.Expression) -> exp.Expression:
    """`statement` with the source of each ``PIVOT source ON …`` statement moved into a CTE.

    sqlglot's DuckDB generator removes the table qualifier of every column inside a PIVOT
    statement, its source's included: a source joining ``f.k = n.k`` would run as ``k = k``
    (ambiguous), and ``s.a`` (a struct's field) as the column ``a``. Outside the PIVOT, in
    ``WITH src AS (source) SELECT * FROM (PIVOT src ON …)``, the source keeps them. Changes
    `statement` in place; returns it, or the query now in its place when it was such a PIVOT.

    >>> import sqlglot
    >>> text = "PIVOT (SELECT s.a, n.b FROM s JOIN n ON s.k = n.k) AS q ON a USING sum(b)"
    >>> sql = pivot_sources_hoisted(sqlglot.parse_one(text, read="duckdb")).sql("duckdb")
    >>> sql.split(" SELECT * FROM ")
    ['WITH "q" AS (SELECT s.a, n.b FROM s JOIN n ON s.k = n.k)', '(PIVOT "q" ON a USING SUM(b))']
    """
    for pivot in list(statement.find_all(exp.Pivot)):
        source = pivot.this
        if not isinstance(source, exp.Subquery) or not any(
            column.table for column in source.find_all(exp.Column)
        ):
            continue  # the PIVOT clause (``FROM t PIVOT (…)``), or nothing to lose
        name = source.alias_or_name or "source"
        pivot.set("this", exp.Table(this=ident(name)))
        wrapper = select_all(exp.Subquery(this=pivot.copy()))
        cte = exp.CTE(this=source.this, alias=exp.TableAlias(this=ident(name)))
        wrapper.set("with_", exp.With(expressions=[cte]))
        if pivot is statement:
            statement = wrapper
        else:
            pivot.replace(wrapper)
    return statement


def conjuncts(node: _E) -> list[_E]:
    """The parts of `node` joined by AND, parentheses removed.

    >>> import sqlglot
    >>> [c.sql() for c in conjuncts(sqlglot.parse_one("(a = 1 AND (b OR c)) AND d"))]
    ['a = 1', 'b OR c', 'd']
    """
    inner = node.unnest()
    if isinstance(inner, exp.And):
        return conjuncts(cast("_E", inner.this)) + conjuncts(cast("_E", inner.expression))
    return [cast("_E", inner)]


def select_all(source: exp.Expression) -> exp.Select:
    """``SELECT * FROM source``."""
    return exp.select(exp.Star()).from_(source, copy=False)


def create_schema(name: str) -> exp.Create:
    """``CREATE SCHEMA IF NOT EXISTS "name"``."""
    return exp.Create(this=exp.Table(db=ident(name)), kind="SCHEMA", exists=True)


def drop_schema(name: str) -> exp.Drop:
    """``DROP SCHEMA IF EXISTS "name" CASCADE``."""
    return exp.Drop(tables=[exp.Table(db=ident(name))], kind="SCHEMA", exists=True, cascade=True)


def create_view(target: exp.Table, query: exp.Expression) -> exp.Create:
    """``CREATE OR REPLACE VIEW target AS query``."""
    return exp.Create(this=target, kind="VIEW", replace=True, expression=query)


def drop(kind: str, target: exp.Table, *, if_exists: bool = True) -> exp.Drop:
    """``DROP <kind> [IF EXISTS] target`` (`kind`: ``VIEW`` or ``TABLE``)."""
    if kind not in ("VIEW", "TABLE"):
        raise ValueError(f"kind must be VIEW or TABLE, got {kind!r}")
    return exp.Drop(tables=[target], kind=kind, exists=if_exists)


def create_temp_table(name: str, query: exp.Expression) -> exp.Create:
    """``CREATE TEMPORARY TABLE "name" AS query``."""
    properties = exp.Properties(expressions=[exp.TemporaryProperty()])
    return exp.Create(this=table_node(name), kind="TABLE", expression=query, properties=properties)


def add_column(
    table: str, column: str, data_type: exp.DataType, default: exp.Expression
) -> exp.Alter:
    """``ALTER TABLE "table" ADD COLUMN "column" <type> DEFAULT <default>``."""
    constraint = exp.ColumnConstraint(kind=exp.DefaultColumnConstraint(this=default))
    definition = exp.ColumnDef(this=ident(column), kind=data_type, constraints=[constraint])
    return exp.Alter(this=table_node(table), kind="TABLE", actions=[definition])


#: DuckDB settings paimon-sql changes (a setting name is SQL syntax, so only these are accepted).
SETTINGS = frozenset(
    {
        "memory_limit",
        "temp_directory",
        "streaming_buffer_size",
        "parquet_metadata_cache",
        "threads",
        "TimeZone",
    }
)


def _known_setting(name: str) -> str:
    if name not in SETTINGS:
        raise ValueError(
            f"setting {name!r} is not one paimon-sql changes; known: {sorted(SETTINGS)}"
        )
    return name


def set_setting(name: str, value: str) -> exp.Set:
    """``SET name = 'value'`` for one of `SETTINGS`, the value a string literal.

    `value` may be what `current_settings` read, to restore or copy a setting. DuckDB shows a
    memory limit in units up to PiB but takes at most TiB, and shows "no limit" (``-1``) as
    ``16383.9 PiB``: a shown limit of a PiB or more is set back as ``-1``.

    >>> set_setting("memory_limit", "16383.9 PiB").sql("duckdb")
    "SET memory_limit = '-1'"
    """
    column = exp.column(_known_setting(name))
    if name == "memory_limit" and value.strip().lower().endswith(("pib", "eib")):
        value = "-1"
    item = exp.SetItem(this=exp.EQ(this=column, expression=exp.Literal.string(value)))
    return exp.Set(expressions=[item])


def current_settings(*names: str) -> exp.Select:
    """One row of the current values of `names` (each one of `SETTINGS`), in order.

    >>> current_settings("memory_limit", "threads").sql("duckdb")
    "SELECT CURRENT_SETTING('memory_limit'), CURRENT_SETTING('threads')"
    """
    return exp.select(
        *[exp.func("current_setting", exp.Literal.string(_known_setting(n))) for n in names]
    )


__all__ = [
    "SETTINGS",
    "add_column",
    "create_schema",
    "create_temp_table",
    "create_view",
    "current_settings",
    "drop",
    "drop_schema",
    "ident",
    "select_all",
    "set_setting",
    "table_node",
]


def explain_sql(query: exp.Expression, *, json: bool = False) -> str:
    """``EXPLAIN`` (or ``EXPLAIN (FORMAT JSON)``) of `query`, as text to run.

    sqlglot has no EXPLAIN node for DuckDB: a constant keyword before the rendered AST, the one
    place paimon-sql puts text before a statement.

    >>> explain_sql(select_all(table_node("t")), json=True)
    'EXPLAIN (FORMAT JSON) SELECT * FROM "t"'
    """
    return ("EXPLAIN (FORMAT JSON) " if json else "EXPLAIN ") + query.sql("duckdb")
