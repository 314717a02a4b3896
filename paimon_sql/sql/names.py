"""Which Paimon database a statement's table name is in, as DuckDB itself resolves it.

``db.t``, ``memory.db.t``, or a bare ``t`` after ``USE db`` (DuckDB's current schema).

A name in any other schema or catalog (``memory.main.t``, ``temp.t``, a bare name while ``main``
is current) is DuckDB's own table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from paimon_sql.catalog.names import SYSTEM_TABLE_SPLITTER, table_name, validate_name
from paimon_sql.errors import (
    DatabaseNotFoundError,
    InvalidNameError,
    SqlError,
    UnsupportedFeatureError,
)

if TYPE_CHECKING:
    from paimon_sql.sql._context import Context


def database_of(ctx: Context, node: exp.Table) -> str | None:
    """The Paimon database `node` names (explicitly or through ``USE``), else None."""
    if node.catalog and node.catalog != ctx.engine.home:
        return None
    if node.db:
        return ctx.engine.database_named(node.db)  # matched as DuckDB matches it
    if node.catalog:
        return None
    database = ctx.engine.current_schema()
    if database is None or not ctx.catalog.has_database(database):
        return None
    return database


def table_of(ctx: Context, node: exp.Table) -> tuple[str, str] | None:
    """The Paimon database and table `node` names, spelled as the warehouse spells them.

    DuckDB's matching (`database_of`, `Engine.table_spelling`): ``Shop.Orders`` is
    ``shop.orders``. A name no table has is kept as written, so that the statement's not-found
    error names it. A bare name after ``USE db`` is the table DuckDB would read
    (`Engine.bare_table`, a table made by another session included). None when the name is not
    Paimon's: another catalog or schema, or a bare name that reads no Paimon table (a TEMP table
    of that name comes first, or no table has it): DuckDB resolves or reports it. A system-table
    or branch suffix (``t$snapshots``) is kept.
    """
    database = database_of(ctx, node)
    if database is None:
        return None
    base, sep, suffix = node.name.partition(SYSTEM_TABLE_SPLITTER)
    if node.db:
        try:
            return database, ctx.engine.table_spelling(database, base) + sep + suffix
        except DatabaseNotFoundError:
            return database, node.name  # dropped meanwhile: the statement's error names it
    ident = ctx.engine.bare_table(base, exposed=False)
    return None if ident is None else (ident.database, ident.table + sep + suffix)


def current_database(ctx: Context) -> str | None:
    """The Paimon database ``USE`` selected, if any."""
    schema = ctx.engine.current_schema()
    return schema if schema is not None and ctx.catalog.has_database(schema) else None


def refuse_in_transaction(ctx: Context, statement: str, target: object) -> None:
    """Refuse `statement` (``INSERT`` ...) on `target` inside an explicit transaction.

    A Paimon write commits at once: inside ``BEGIN`` … ``COMMIT`` a later ``ROLLBACK`` could not
    undo it, so nothing is written.
    """
    if ctx.engine.in_transaction():
        raise UnsupportedFeatureError(
            f"{statement} {target} inside a transaction: writes to Paimon tables commit per "
            "statement and a ROLLBACK could not undo them; COMMIT or ROLLBACK the transaction "
            "first, then run it on its own"
        )


def refuse_system_table(database: str, name: str, statement: str) -> None:
    """Refuse `statement` (``DROP TABLE`` ...) on a system table such as ``db.t$snapshots``.

    A system table is a view of the table's metadata: it cannot be changed, only read. Checked
    before the name becomes an `Identifier`, which refuses a '$' as an invalid table name.
    """
    if SYSTEM_TABLE_SPLITTER not in name:
        return
    try:
        parts = table_name(name)
    except InvalidNameError:
        return  # not a system table's name: the catalog's error names what is wrong with it
    if parts.system is not None:
        raise SqlError(
            f"{statement} {database}.{name}: system tables are read-only (they show the metadata "
            f"of {database}.{parts.table}); name the table itself"
        )


def no_database(name: str) -> DatabaseNotFoundError:
    """The error for a table named in database `name`, which the warehouse does not have."""
    return DatabaseNotFoundError(
        f"database {name!r} does not exist in the warehouse; CREATE DATABASE {name} first"
    )


def refuse_unknown_database(ctx: Context, node: exp.Table) -> None:
    """Refuse a table `node` in a database neither the warehouse nor DuckDB has.

    ``nope.t`` (or ``<home>.nope.t``) where ``nope`` is no Paimon database, no DuckDB schema and
    no attached DuckDB catalog: `no_database`'s message rather than DuckDB's "Schema with name
    nope does not exist!". Any name DuckDB may resolve stays DuckDB's.
    """
    if not node.db or (node.catalog and node.catalog != ctx.engine.home):
        return
    try:
        validate_name("database", node.db)
    except InvalidNameError:
        return  # no database could have that name ('../x'): not the warehouse's to answer
    if ctx.catalog.has_database(node.db) or _duckdb_knows(ctx, node.db, bool(node.catalog)):
        return
    raise no_database(node.db)


def _duckdb_knows(ctx: Context, name: str, qualified: bool) -> bool:
    """Whether DuckDB may resolve `name` as a schema, or (not `qualified`) as a catalog.

    A schema of the home catalog when `qualified` (``<home>.name.t``), of any catalog when not.
    """
    lowered = exp.Literal.string(name.lower())
    schemas = exp.select("1").from_(exp.func("duckdb_schemas"))
    schemas = schemas.where(exp.func("lower", exp.column("schema_name")).eq(lowered))
    if qualified:
        schemas = schemas.where(exp.column("database_name").eq(exp.Literal.string(ctx.engine.home)))
    queries: list[exp.Query] = [schemas]
    if not qualified:
        catalogs = (
            exp.select("1")
            .from_(exp.func("duckdb_databases"))
            .where(exp.func("lower", exp.column("database_name")).eq(lowered.copy()))
        )
        queries.append(catalogs)
    return any(ctx.engine.con.sql(q.sql("duckdb")).fetchall() for q in queries)


__all__ = [
    "current_database",
    "database_of",
    "no_database",
    "refuse_in_transaction",
    "refuse_system_table",
    "refuse_unknown_database",
    "table_of",
]
