"""Statements paimon-sql executes itself (catalog DDL, SHOW, DESCRIBE).

Everything else goes to DuckDB.

`dispatch` returns None for a statement that is not about Paimon objects, so DuckDB runs it
unchanged.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.engine.context import HIDDEN_PREFIX, current_position
from paimon_sql.errors import (
    DatabaseNotFoundError,
    PaimonSqlError,
    SqlError,
    TableNotFoundError,
    UnsupportedFeatureError,
)
from paimon_sql.sql.dialect import export_database_target, parse_comment, parse_show
from paimon_sql.sql.names import (
    database_of,
    refuse_in_transaction,
    refuse_system_table,
    refuse_unknown_database,
    table_of,
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
    verb = str(statement.this).upper()
    if verb in ("EXPLAIN", "PREPARE"):
        _refuse_planned_write(ctx, verb, rest_text)
    if verb == "EXPLAIN" and not rest_text.upper().startswith("ANALYZE"):
        return _explain(ctx, rest_text)
    show = parse_show(f"{statement.this} {rest_text}")
    if show is None:
        return _show_table(ctx, statement, rest_text)
    if show.this in ("DATABASES", "SCHEMAS"):
        return _rows(ctx, pa.table({"database_name": ctx.catalog.databases()}))
    target = show.args.get("target")
    if isinstance(target, exp.Table):
        found = table_of(ctx, target)
        if found is not None:
            return catalog_ddl.show_create_table(ctx, Identifier(*found))
        if target.db:  # the catalog's error names the database and those it has
            return catalog_ddl.show_create_table(ctx, Identifier(target.db, target.name))
    database = show.args.get("db")
    if database is not None:
        name = ctx.engine.database_named(database.name) or database.name
        return _rows(ctx, pa.table({"table_name": ctx.catalog.tables(name)}))
    return None


def _refuse_planned_write(ctx: Context, verb: str, rest: str) -> None:
    """``EXPLAIN [ANALYZE] <write>`` and ``PREPARE p AS <write>`` of a write into a Paimon table.

    paimon-sql runs such a write itself (a query, files, a commit), never as one DuckDB plan.
    """
    words = rest.split(None, 2) if verb == "PREPARE" else rest.split(None, 1)
    if verb == "PREPARE":
        text = words[2] if len(words) == 3 and words[1].upper() == "AS" else ""
    else:
        text = words[-1] if words and words[0].upper() == "ANALYZE" else rest
    if not text.strip():
        return
    try:
        statement = sqlglot.parse_one(text, read="duckdb")
    except sqlglot.errors.SqlglotError:
        return
    if not isinstance(statement, (exp.Insert, exp.Delete, exp.Update, exp.Merge)):
        return
    ident = _target(ctx, statement.this)
    if ident is None:
        return
    how = (
        "run it with its parameters: session.execute(sql, params)"
        if verb == "PREPARE"
        else "EXPLAIN the query that gives its rows (EXPLAIN SELECT …)"
    )
    raise UnsupportedFeatureError(
        f"{verb} … {statement.key.upper()} on Paimon table {ident} is not supported: "
        f"paimon-sql runs the write itself, not as one DuckDB plan; {how}"
    )


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
    found = table_of(ctx, table)
    if found is None:
        return None  # DuckDB's table, or a bare name of no Paimon table (a TEMP table ...)
    database, name = found
    refuse_system_table(database, name, "writing to")
    ident = Identifier(database, name)
    try:
        ctx.catalog.load_table(ident)
    except DatabaseNotFoundError:
        return None
    return ident


def _prepare(ctx: Context, statement: exp.Use | exp.Copy) -> None:
    """Statements DuckDB runs, once paimon-sql has prepared them (`_use`, `_copy`)."""
    if isinstance(statement, exp.Use):
        _use(ctx, statement)
    else:
        _copy(ctx, statement)


def _copy(ctx: Context, statement: exp.Copy) -> None:
    """``COPY db.t [(cols)] TO 'file'`` exports as ``COPY (SELECT cols FROM db.t) TO`` does.

    The statement is rewritten in place (its tables are then bound as a query's) and left to
    DuckDB. ``COPY db.t FROM`` is refused (a Paimon write is an INSERT), and so is a ``COPY … TO``
    a path inside the warehouse: it would plant foreign files among the tables' own.
    """
    source = statement.this
    if statement.args.get("kind"):  # COPY … FROM
        ident = _target(ctx, source)
        if ident is not None:
            raise UnsupportedFeatureError(
                f"COPY {ident} FROM … is not supported: write INSERT INTO {ident} SELECT * FROM "  # noqa: S608 - a message
                "read_csv('file') (or read_parquet, read_json)"
            )
        return
    for file in statement.args.get("files") or ():
        if isinstance(file, exp.Literal) and file.is_string and _in_warehouse(ctx, file.name):
            raise UnsupportedFeatureError(
                f"COPY … TO {file.name!r}: that is inside the warehouse "
                f"{ctx.catalog.warehouse}, where only Paimon's own files belong; write it elsewhere"
            )
    table = source.this if isinstance(source, exp.Schema) else source
    if isinstance(table, exp.Table) and database_of(ctx, table) is not None:
        columns = source.expressions if isinstance(source, exp.Schema) else [exp.Star()]
        query = exp.select(*(c.copy() for c in columns)).from_(table.copy())
        statement.set("this", exp.Subquery(this=query))


def _in_warehouse(ctx: Context, path: str) -> bool:
    """Whether a file name DuckDB will write lies inside the warehouse (local: through links)."""
    root = ctx.catalog.warehouse
    if ctx.catalog.fileio.local:
        local = path.removeprefix("file://")
        if "://" in local:
            return False  # an object store: not this local warehouse
        path, root = os.path.realpath(local), os.path.realpath(root)
    else:
        path = path.rstrip("/")
    return path == root or path.startswith(root.rstrip("/") + "/")


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
    _refuse_export(ctx, text)
    show = parse_show(text)
    database = show.args.get("db") if show is not None else None
    name = None if database is None else ctx.engine.database_named(database.name)
    if name is not None:
        tables = ctx.catalog.tables(name)
        return _rows(ctx, pa.table({"table_name": pa.array(tables, pa.string())}))
    if show is not None and show.this in ("DATABASES", "SCHEMAS"):
        return _rows(
            ctx, pa.table({"database_name": pa.array(ctx.catalog.databases(), pa.string())})
        )
    comment = parse_comment(text)
    if comment is not None:
        return catalog_ddl.comment_on(ctx, comment)
    return catalog_ddl.create_table(ctx, text) or catalog_ddl.alter_table(ctx, text)


def _refuse_export(ctx: Context, text: str) -> None:
    """Refuse ``EXPORT DATABASE`` of the DuckDB database that holds the Paimon tables' views.

    DuckDB would write each Paimon table as a view over a relation of this session only, and
    none of its rows: an export that cannot be imported, reported as done.
    """
    target = export_database_target(text)
    if target is None or not ctx.engine.paimon_schemas:
        return
    current, _ = current_position(ctx.engine.con)
    if (target or current).lower() == ctx.engine.home.lower():
        raise UnsupportedFeatureError(
            f"EXPORT DATABASE {ctx.engine.home} would write the Paimon tables as views of this "
            "session, without their rows; export a Paimon table with COPY db.t TO 'file.parquet' "
            "(FORMAT parquet), and keep DuckDB tables you export in an attached database "
            "(ATTACH 'x.duckdb' AS x; EXPORT DATABASE x TO 'dir')"
        )


def dispatch(ctx: Context, statement: exp.Expression) -> Relation | None:
    """Execute `statement` when it is about Paimon objects; None hands it to DuckDB."""
    if isinstance(statement, exp.Command):
        return _command(ctx, statement)
    if isinstance(statement, (exp.Create, exp.Drop, exp.TruncateTable)):
        handled = catalog_ddl.database_statement(ctx, statement)
        return handled if handled is not None else _inspect(ctx, statement)
    if isinstance(statement, (exp.Use, exp.Copy)):
        _prepare(ctx, statement)
        return None
    if isinstance(statement, exp.Delete) and not isinstance(statement.this, exp.Table):
        tables = statement.args.get("tables") or []
        if any(isinstance(t, exp.Table) and database_of(ctx, t) for t in tables):
            raise SqlError("syntax error: write DELETE FROM db.table [WHERE …]")
    if isinstance(statement, (exp.Insert, exp.Delete, exp.Update, exp.Merge)):
        return _write(ctx, statement)
    return _inspect(ctx, statement)


def _write(
    ctx: Context, statement: exp.Insert | exp.Delete | exp.Update | exp.Merge
) -> Relation | None:
    """INSERT, DELETE, UPDATE or MERGE INTO a Paimon table; None for another target (DuckDB's)."""
    what = "MERGE INTO" if isinstance(statement, exp.Merge) else statement.key.upper()
    ident = _target(ctx, statement.this)  # a system table is refused there (read-only)
    if ident is None:
        node = statement.this.this if isinstance(statement.this, exp.Schema) else statement.this
        if isinstance(node, exp.Table):
            refuse_unknown_database(ctx, node)  # ``nope.t``: the missing database named
        return None
    refuse_in_transaction(ctx, what, ident)
    if isinstance(statement, exp.Update) and statement.args.get("from_"):
        statement = dml.update_from_as_merge(statement)
    elif isinstance(statement, exp.Delete) and statement.args.get("using"):
        statement = dml.delete_using_as_exists(statement)
    ctx.engine.writing = ident  # its reads of the target are at the latest snapshot
    try:
        if isinstance(statement, exp.Insert):
            return dml.insert(ctx, ident, statement)
        if isinstance(statement, exp.Delete):
            return dml.delete(ctx, ident, statement)
        if isinstance(statement, exp.Update):
            return dml.update(ctx, ident, statement)
        return merge.merge(ctx, ident, statement)
    finally:
        ctx.engine.writing = None


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
        found = table_of(ctx, node)
        if found is None:
            return None  # DuckDB's table, or a bare name of no Paimon table
        database, name = found
        if "$" in name:  # a system table: DuckDB describes (summarizes) its rows
            query = exp.select(exp.Star()).from_(node.copy())
            ctx.bind(query)
            return ctx.engine.run(type(statement)(this=query).sql("duckdb"))
        ident = Identifier(database, name)
        _known_table(ctx, ident)
        if isinstance(statement, exp.Summarize):
            return _summarize(ctx, ident)
        return _describe(ctx, ident)
    if isinstance(statement, exp.Create) and str(statement.args.get("kind", "")).upper() == "VIEW":
        target = statement.this.this if isinstance(statement.this, exp.Schema) else statement.this
        properties = statement.args.get("properties")
        temporary = properties is not None and properties.find(exp.TemporaryProperty)
        if temporary and not target.db:
            return None  # DuckDB's own temporary view, whatever database USE selected
        if isinstance(target, exp.Table) and database_of(ctx, target) is not None:
            raise UnsupportedFeatureError(
                f"CREATE VIEW {target.name} in Paimon database {database_of(ctx, target)}: "
                "paimon-sql does not store views in the warehouse; create it in DuckDB (CREATE "
                f"VIEW memory.main.{target.name} AS … , or a TEMP VIEW), where it lasts for this "
                "session"
            )
    return None
