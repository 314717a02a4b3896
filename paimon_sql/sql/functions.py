"""The SQL functions of ``functions/*.sql`` and the routing sources behind them, on a connection.

`paimon_sql.sql.install.install` puts them on a user's DuckDB connection; a `Session` puts them on
its own, so ``paimon_snapshots('db.t')`` or ``paimon_diff('db.t', 3, 7)`` work in
``paimon_sql.connect(...)`` and the shell as on a plain DuckDB.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp

from paimon_sql.catalog.system_tables import CATALOG_SCHEMAS, SCHEMAS
from paimon_sql.engine import debug
from paimon_sql.engine.context import current_position
from paimon_sql.engine.source import install_sources
from paimon_sql.sql.data_tables import audit_log_schema
from paimon_sql.sql.incremental import change_batches

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_sql.engine.context import Engine
    from paimon_sql.engine.source import SystemTables

__all__ = ["functions_dir", "install_functions"]

#: functions/ beside the package (a source checkout) or inside it (an installed wheel).
_CANDIDATES = (
    Path(__file__).resolve().parents[2] / "functions",
    Path(__file__).resolve().parents[1] / "functions",
)


def functions_dir() -> Path:
    """The folder holding the ``*.sql`` function families."""
    for candidate in _CANDIDATES:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("paimon-sql's functions/ folder is missing from this installation")


def _function(
    con: duckdb.DuckDBPyConnection, name: str, function: Callable[..., str], parameters: list[str]
) -> None:
    """A bind-time scalar UDF (NULLs passed through; folded once per call, never per row)."""
    with contextlib.suppress(duckdb.Error):
        con.remove_function(name)  # a second install() on the same connection
    con.create_function(name, function, parameters, "VARCHAR", null_handling="special")


def install_functions(con: duckdb.DuckDBPyConnection, engine: Engine, system: SystemTables) -> None:
    """Register the routing sources and their bind UDFs on `con`, then run ``functions/*.sql``.

    `system` builds the system tables' content (the session's ``SYSTEM_TABLES``).
    """
    # the connection-free part: what DuckDB holds must not hold the connection (`Sources`)
    sources = engine.sources
    binds = install_sources(
        con,
        sources,
        system,
        schemas=SCHEMAS,
        catalog_schemas=CATALOG_SCHEMAS,
        audit_log_schema=audit_log_schema,
        functions=debug.FUNCTIONS,
        changes=functools.partial(change_batches, sources),
    )
    for name, (function, parameters) in binds.items():
        _function(con, name, function, parameters)
    # the macros live in the current database's ``main`` schema, whatever USE selected before
    # (in a Paimon database's schema they would vanish after ``USE main``)
    database, schema = current_position(con)
    con.execute(exp.Use(this=exp.table_("main", db=database, quoted=True)).sql("duckdb"))
    try:
        for path in sorted(functions_dir().glob("*.sql")):
            con.execute(path.read_text(encoding="utf-8"))
    finally:
        con.execute(exp.Use(this=exp.table_(schema, db=database, quoted=True)).sql("duckdb"))
