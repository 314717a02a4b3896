"""Statements paimon-sql executes itself (catalog DDL, SHOW, DESCRIBE).

Everything else goes to DuckDB.

`dispatch` returns None for a statement that is not about Paimon objects, so DuckDB runs it
unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.engine.context import HIDDEN_PREFIX
from paimon_sql.errors import (
    DatabaseNotFoundError,
    PaimonSqlError,
    SqlError,
    TableNotFoundError,
    UnsupportedFeatureError,
)
from paimon_sql.sql.dialect import parse_comment, parse_show
from paimon_sql.sql.names import (
    database_of,
    refuse_in_transaction,
    refuse_system_table,
    refuse_unknown_database,
)
from paimon_sql.sql.procedures import procedures
from paimon_sql.sql.statements import catalog_ddl, dml, merge
from paimon_sql.sqlnodes import table_node
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
    """``DESCRIBE t``: DuckDB's columns, with Paimon's types, keys (PRI, PART) and comments."""
    schema = ctx.table(ident).latest_schema
    keys = set(schema.primary_keys)
    parts = set(schema.partition_keys)
    n = len(schema.fields)
    return _rows(
        ctx,
        pa.table(
            {
                "column_name": [f.name for f in schema.fields],
                "column_type": [type_sql(f.type) for f in schema.fields],
                "null": ["YES" if f.type.nullable else "NO" for f in schema.fields],
                "key": pa.array(
                    [
                        "PRI" if f.name in keys else ("PART" if f.name in parts else None)
                        for f in schema.fields
                    ],
                    pa.string(),
                ),
                "default": pa.array([None] * n, pa.string()),
                "extra": pa.array([None] * n, pa.string()),
                "comment": pa.array([f.description for f in schema.fields], pa.string()),
            }
        ),
    )


def _summarize(ctx: Context, ident: Identifier) -> Relation:
    """``SUMMARIZE t``: DuckDB's summary of the table's rows, with Paimon's column types."""
    query = exp.select(exp.Star()).from_(table_node(ident.database, ident.table))
    ctx.bind(query)
    summary = exp.Summarize(this=query)
    try:
        rows = ctx.engine.con.sql(summary.sql("duckdb")).to_arrow_table()
    except duckdb.Error as err:
        raise ctx.engine.translate(err) from err
    types = {f.name: type_sql(f.type) for f in ctx.table(ident).latest_schema.fields}
    names = rows.column("column_name").to_pylist()
    paimon = pa.array([types.get(n) for n in names], pa.string())
    index = rows.schema.get_field_index("column_type")
    return _rows(ctx, rows.set_column(index, "column_type", paimon))


def _known_table(ctx: Context, ident: Identifier) -> None:
    """A `TableNotFoundError` naming the table and its database's tables (no storage path)."""
    if ident.table in ctx.catalog.tables(ident.database):
        return
    tables = ", ".join(ctx.catalog.tables(ident.database)) or "none"
    raise TableNotFoundError(f"table {ident} not found; database {ident.database} has: {tables}")


def _show_tables(ctx: Context, everything: bool) -> Relation:
    """``SHOW TABLES`` / ``SHOW ALL TABLES``: DuckDB's rows without paimon-sql's hidden relations.

    SHOW ALL TABLES gives a Paimon table's column types as Paimon's.
    """
    text = "SHOW ALL TABLES" if everything else "SHOW TABLES"
    rows = ctx.engine.con.sql(text).to_arrow_table()
    names = rows.column("name").to_pylist()
    keep = [not str(n).startswith(HIDDEN_PREFIX) for n in names]
    rows = rows.filter(pa.array(keep, pa.bool_()))
    if not everything:
        return _rows(ctx, rows)
    column_types = []
    for database, schema, name, types in zip(
        rows.column("database").to_pylist(),
        rows.column("schema").to_pylist(),
        rows.column("name").to_pylist(),
        rows.column("column_types").to_pylist(),
        strict=True,
    ):
        paimon = _paimon_types(ctx, database, schema, name)
        column_types.append(types if paimon is None else paimon)
    index = rows.schema.get_field_index("column_types")
    field = rows.schema.field(index)
    return _rows(ctx, rows.set_column(index, field, pa.array(column_types, field.type)))


def _paimon_types(ctx: Context, database: str, schema: str, name: str) -> list[str] | None:
    """The Paimon column types of ``schema.name`` when it is a Paimon table's view, else None."""
    if database != ctx.engine.home or not ctx.catalog.has_database(schema):
        return None
    if name not in ctx.catalog.tables(schema):
        return None
    try:
        fields = ctx.table(Identifier(schema, name)).latest_schema.fields
    except PaimonSqlError:
        return None  # a damaged table: DuckDB's view reports it when read
    return [type_sql(f.type) for f in fields]


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
    catalog_ddl.database_command(ctx, statement)
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
        return _show_table(ctx, statement, rest_text)
    if show.this in ("DATABASES", "SCHEMAS"):
        return _rows(ctx, pa.table({"database_name": ctx.catalog.databases()}))
    target = show.args.get("target")
    if target is not None and target.db:
        return catalog_ddl.show_create_table(ctx, Identifier(target.db, target.name))
    database = show.args.get("db")
    if database is not None:
        return _rows(ctx, pa.table({"table_name": ctx.catalog.tables(database.name)}))
    return None


def _show_table(ctx: Context, statement: exp.Command, rest: str) -> Relation | None:
    """DuckDB's ``SHOW t`` (``DESCRIBE t``) of a Paimon table."""
    if str(statement.this).upper() != "SHOW" or not rest.strip():
        return None
    try:
        node = exp.to_table(rest.strip(), dialect="duckdb")
    except sqlglot.errors.SqlglotError:
        return None
    return _inspect(ctx, exp.Describe(this=node))


def _target(ctx: Context, node: exp.Expression | None) -> Identifier | None:
    table = node.this if isinstance(node, exp.Schema) else node
    if not isinstance(table, exp.Table):
        return None
    database = database_of(ctx, table)
    if database is None:
        return None
    if not table.db and table.name not in ctx.catalog.tables(database):
        return None  # a bare name of no Paimon table (a TEMP table ...): DuckDB resolves it
    refuse_system_table(database, table.name, "writing to")
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
    comment = parse_comment(text)
    if comment is not None:
        return catalog_ddl.comment_on(ctx, comment)
    return catalog_ddl.create_table(ctx, text) or catalog_ddl.alter_table(ctx, text)


def dispatch(ctx: Context, statement: exp.Expression) -> Relation | None:
    """Execute `statement` when it is about Paimon objects; None hands it to DuckDB."""
    if isinstance(statement, exp.Command):
        return _command(ctx, statement)
    if isinstance(statement, (exp.Create, exp.Drop, exp.TruncateTable)):
        handled = catalog_ddl.database_statement(ctx, statement)
        return handled if handled is not None else _inspect(ctx, statement)
    if isinstance(statement, exp.Use):
        _use(ctx, statement)
        return None
    if isinstance(statement, exp.Delete) and not isinstance(statement.this, exp.Table):
        tables = statement.args.get("tables") or []
        if any(isinstance(t, exp.Table) and database_of(ctx, t) for t in tables):
            raise SqlError("syntax error: write DELETE FROM db.table [WHERE …]")
    if isinstance(statement, (exp.Insert, exp.Delete, exp.Update)):
        return _write(ctx, statement)
    if isinstance(statement, exp.Merge):
        ident = _target(ctx, statement.this)
        if ident is None:
            return None
        refuse_in_transaction(ctx, "MERGE INTO", ident)
        return merge.merge(ctx, ident, statement)
    return _inspect(ctx, statement)


def _write(ctx: Context, statement: exp.Insert | exp.Delete | exp.Update) -> Relation | None:
    """INSERT, DELETE or UPDATE of a Paimon table; None for DuckDB's own tables."""
    ident = _target(ctx, statement.this)
    if ident is None:
        node = statement.this
        target = node.this if isinstance(node, exp.Schema) else node
        if isinstance(target, exp.Table):
            refuse_unknown_database(ctx, target)  # ``nope.t``: the missing database named
        return None
    refuse_in_transaction(ctx, statement.key.upper(), ident)
    if isinstance(statement, exp.Insert):
        return dml.insert(ctx, ident, statement)
    if isinstance(statement, exp.Delete):
        return dml.delete(ctx, ident, statement)
    return dml.update(ctx, ident, statement)


def _inspect(ctx: Context, statement: exp.Expression) -> Relation | None:
    """SHOW [ALL] TABLES, DESCRIBE / SUMMARIZE of a Paimon table, CREATE VIEW in a Paimon db."""
    kind = statement.name.upper() if isinstance(statement, exp.Show) else ""
    if kind in ("TABLES", "ALL TABLES") and not any(
        statement.args.get(k) for k in ("db", "like", "target", "where", "full")
    ):
        return _show_tables(ctx, kind == "ALL TABLES")
    if isinstance(statement, (exp.Describe, exp.Summarize)) and isinstance(
        statement.this, exp.Table
    ):
        node = statement.this
        database = database_of(ctx, node)
        if database is None:
            return None
        if "$" in node.name:  # a system table: DuckDB describes (summarizes) its rows
            query = exp.select(exp.Star()).from_(node.copy())
            ctx.bind(query)
            return ctx.engine.run(type(statement)(this=query).sql("duckdb"))
        if not node.db and node.name not in ctx.catalog.tables(database):
            return None  # a bare name of no Paimon table: DuckDB resolves it
        ident = Identifier(database, node.name)
        _known_table(ctx, ident)
        if isinstance(statement, exp.Summarize):
            return _summarize(ctx, ident)
        return _describe(ctx, ident)
    if isinstance(statement, exp.Create) and str(statement.args.get("kind", "")).upper() == "VIEW":
        target = statement.this.this if isinstance(statement.this, exp.Schema) else statement.this
        if isinstance(target, exp.Table) and database_of(ctx, target) is not None:
            raise UnsupportedFeatureError(
                f"CREATE VIEW {target.name} in Paimon database {database_of(ctx, target)}: "
                "paimon-sql does not store views in the warehouse; create it in DuckDB (CREATE "
                f"VIEW memory.main.{target.name} AS … , or a TEMP VIEW), where it lasts for this "
                "session"
            )
    return None
