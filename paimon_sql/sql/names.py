"""Which Paimon database a statement's table name is in, as DuckDB itself resolves it.

``db.t``, ``memory.db.t``, or a bare ``t`` after ``USE db`` (DuckDB's current schema).

A name in any other schema or catalog (``memory.main.t``, ``temp.t``, a bare name while ``main``
is current) is DuckDB's own table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.catalog.names import SYSTEM_TABLE_SPLITTER, table_name
from paimon_sql.errors import InvalidNameError, SqlError, UnsupportedFeatureError

if TYPE_CHECKING:
    from sqlglot import exp

    from paimon_sql.sql._context import Context


def database_of(ctx: Context, node: exp.Table) -> str | None:
    """The Paimon database `node` names (explicitly or through ``USE``), else None."""
    if node.catalog and node.catalog != ctx.engine.home:
        return None
    database = node.db or None
    if database is None:
        if node.catalog:
            return None
        database = ctx.engine.current_schema()
    if database is None or not ctx.catalog.has_database(database):
        return None
    return database


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


__all__ = ["current_database", "database_of", "refuse_in_transaction", "refuse_system_table"]
