"""Statements paimon-sql executes itself (catalog DDL, SHOW, DESCRIBE).

Everything else goes to DuckDB.

`dispatch` returns None for a statement that is not about Paimon objects, so DuckDB runs it
unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.errors import DatabaseNotFoundError, SqlError, UnsupportedFeatureError
from paimon_sql.sql.dialect import parse_show
from paimon_sql.sql.names import database_of, refuse_in_transaction
from paimon_sql.sql.procedures import procedures
from paimon_sql.sql.statements import catalog_ddl, dml, merge
from paimon_sql.types import type_sql

if TYPE_CHECKING:
    from paimon_sql.engine.relation import Relation
    from paimon_sql.sql._context import Context


def _rows(ctx: Context, table: pa.Table) -> Relation:
    return ctx.engine.rows(table)


def _is_paimon(ctx: Context, node: exp.Table) -> Identifier | None:
    if not node.db or not ctx.catalog.has_database(node.db):
        return None
    ident = Identifier(node.db, node.name)
    try:
        ctx.table(ident)
    except DatabaseNotFoundError:
        return None
    return ident


def _describe(ctx: Context, ident: Identifier) -> Relation:
    schema = ctx.table(ident).latest_schema
    keys = set(schema.primary_keys)
    parts = set(schema.partition_keys)
    return _rows(
        ctx,
        pa.table(
            {
                "column_name": [f.name for f in schema.fields],
                "column_type": [type_sql(f.type) for f in schema.fields],
                "null": ["YES" if f.type.nullable else "NO" for f in schema.fields],
                "key": [
                    "PRI" if f.name in keys else ("PART" if f.name in parts else None)
                    for f in schema.fields
                ],
                "comment": [f.description for f in schema.fields],
            }
        ),
    )


def _explain(ctx: Context, query: str) -> Relation | None:
    """EXPLAIN of a statement reading Paimon tables.

    Per table what planning kept and pruned, then DuckDB's plan.
    """
    rows = ctx.explain(query)
    if rows is None:
        return None
    return _rows(
        ctx,
        pa.table(
            {
                "scope": [r[0] for r in rows],
                "property": [r[1] for r in rows],
                "value": [r[2] for r in rows],
            }
        ),
    )


def _command(ctx: Context, statement: exp.Command) -> Relation | None:
    rest = statement.expression
    rest_text = (
        rest.this
        if isinstance(rest, exp.Literal)
        else (rest.sql() if isinstance(rest, exp.Expression) else rest or "")
    )
    if str(statement.this).upper() == "EXPLAIN" and not rest_text.upper().startswith("ANALYZE"):
        return _explain(ctx, rest_text)
    show = parse_show(f"{statement.this} {rest_text}")
    if show is None:
        return None
    if show.this in ("DATABASES", "SCHEMAS"):
        return _rows(ctx, pa.table({"database_name": ctx.catalog.databases()}))
    target = show.args.get("target")
    if target is not None and target.db:
        return catalog_ddl.show_create_table(ctx, Identifier(target.db, target.name))
    database = show.args.get("db")
    if database is not None:
        return _rows(ctx, pa.table({"table_name": ctx.catalog.tables(database.name)}))
    return None


def _target(ctx: Context, node: exp.Expression | None) -> Identifier | None:
    table = node.this if isinstance(node, exp.Schema) else node
    if not isinstance(table, exp.Table):
        return None
    database = database_of(ctx, table)
    if database is None:
        return None
    if not table.db and table.name not in ctx.catalog.tables(database):
        return None  # a bare name of no Paimon table (a TEMP table ...): DuckDB resolves it
    ident = Identifier(database, table.name)
    try:
        ctx.catalog.load_table(ident)
    except DatabaseNotFoundError:
        return None
    return ident


def _use(ctx: Context, statement: exp.Use) -> None:
    """``USE db`` of a Paimon database made by another session: its DuckDB schema first.

    Then DuckDB's own USE finds it, also before the database's first table.
    """
    target = statement.this
    if isinstance(target, exp.Table) and not target.db and ctx.catalog.has_database(target.name):
        ctx.engine.expose_database(target.name)


def dispatch_text(ctx: Context, text: str) -> Relation | None:
    """Statements recognised from their text before any dialect parses them.

    Paimon's DDL forms, CALL.
    """
    output = procedures.call(ctx, text)
    if output is not None:
        return _rows(ctx, output)
    show = parse_show(text)
    database = show.args.get("db") if show is not None else None
    if database is not None and database.name in ctx.catalog.databases():
        tables = ctx.catalog.tables(database.name)
        return _rows(ctx, pa.table({"table_name": pa.array(tables, pa.string())}))
    if show is not None and show.this in ("DATABASES", "SCHEMAS"):
        return _rows(
            ctx, pa.table({"database_name": pa.array(ctx.catalog.databases(), pa.string())})
        )
    return catalog_ddl.create_table(ctx, text) or catalog_ddl.alter_table(ctx, text)


def dispatch(ctx: Context, statement: exp.Expression) -> Relation | None:
    """Execute `statement` when it is about Paimon objects; None hands it to DuckDB."""
    if isinstance(statement, exp.Command):
        return _command(ctx, statement)
    if isinstance(statement, (exp.Create, exp.Drop, exp.TruncateTable)):
        return catalog_ddl.database_statement(ctx, statement)
    if isinstance(statement, exp.Use):
        _use(ctx, statement)
        return None
    if isinstance(statement, exp.Delete) and not isinstance(statement.this, exp.Table):
        tables = statement.args.get("tables") or []
        if any(isinstance(t, exp.Table) and database_of(ctx, t) for t in tables):
            raise SqlError("syntax error: write DELETE FROM db.table [WHERE …]")
    if isinstance(statement, (exp.Insert, exp.Delete, exp.Update)):
        ident = _target(ctx, statement.this)
        if ident is None:
            return None
        refuse_in_transaction(ctx, statement.key.upper(), ident)
        if isinstance(statement, exp.Insert):
            return dml.insert(ctx, ident, statement)
        if isinstance(statement, exp.Delete):
            return dml.delete(ctx, ident, statement)
        return dml.update(ctx, ident, statement)
    if isinstance(statement, exp.Merge):
        ident = _target(ctx, statement.this)
        if ident is None:
            return None
        refuse_in_transaction(ctx, "MERGE INTO", ident)
        return merge.merge(ctx, ident, statement)
    if isinstance(statement, exp.Describe) and isinstance(statement.this, exp.Table):
        ident = _is_paimon(ctx, statement.this)
        return None if ident is None else _describe(ctx, ident)
    return None
