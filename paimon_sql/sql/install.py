"""`install`: paimon-sql's views and SQL functions (``functions/*.sql``) on a DuckDB connection.

DuckDB 2.0's Python API has no table functions (only scalar UDFs), and a macro cannot create a
view, so the functions in ``functions/`` reach Paimon through *routing sources* registered here:

* ``__paimon_scan``: one streaming source for every table and every snapshot. ``paimon_scan``
  passes the scalar UDF ``__paimon_scan_bind(table, snapshot, tag, timestamp)`` to
  ``query_table``; DuckDB folds it while binding (once per call, never per row). The UDF resolves
  the table and the snapshot, leaves the Arrow schema for the source's next
  ``__arrow_c_schema__`` (same thread, right after; see `_ScanRouter`) and returns the source's
  name. The same arguments reach the source's ``stream`` as pushed-down filters on hidden columns
  (``__paimon_table = 'db.t'``, ``__paimon_snapshot = 3`` or ``IS NULL`` ...), next to the
  user's own filters and projection, so each call plans its own snapshot with partition, bucket
  and statistics pruning, and streams.
* ``__paimon_<name>`` for each system table ``t$<name>`` and ``__paimon_sys_<name>`` for each global
  ``sys`` table: the table's fixed schema plus hidden ``__paimon_table`` (and ``__paimon_snapshot``)
  columns; ``stream`` builds the content with `paimon_sql.catalog.system_tables` at each query (the
  sources live in `paimon_sql.engine.source`), so new commits show up on the next call.

A hidden column DuckDB asks to *read* means a routing filter was not pushed down (an argument
that is not a constant): the sources then refuse with an error rather than answer for the wrong
table or snapshot.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from paimon_sql.catalog.system_tables import CATALOG_SCHEMAS, SCHEMAS
from paimon_sql.engine.source import install_sources
from paimon_sql.sql.data_tables import audit_log_schema
from paimon_sql.sql.incremental import change_batches
from paimon_sql.sql.session import SYSTEM_TABLES, Session

if TYPE_CHECKING:
    import os
    from collections.abc import Callable

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


def install(
    con: duckdb.DuckDBPyConnection,
    warehouse: str | os.PathLike[str],
    *,
    filesystem: Any = None,
    storage_options: dict[str, Any] | None = None,
) -> Session:
    """Expose `warehouse`'s tables as ``"db"."table"`` views on `con` and create the SQL functions.

    >>> import duckdb, paimon_sql, tempfile
    >>> con = duckdb.connect()
    >>> _ = paimon_sql.install(con, tempfile.mkdtemp())
    >>> query = "SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'paimon_%'"
    >>> con.sql(query).fetchall()[0][0] > 10
    True

    Over ``warehouse`` (the doctest namespace of the repository's ``conftest.py``: the table
    ``db.t``, two snapshots, tag ``v1``):

    >>> con = duckdb.connect()
    >>> _ = paimon_sql.install(con, warehouse)
    >>> con.sql('SELECT * FROM "db"."t" ORDER BY id').fetchall()
    [(1, 'a'), (2, 'B')]
    >>> con.sql("SELECT * FROM paimon_scan('db.t', tag := 'v1') ORDER BY id").fetchall()
    [(1, 'a'), (2, 'b')]
    """
    session = Session(
        warehouse, connection=con, filesystem=filesystem, storage_options=storage_options
    )
    binds = install_sources(
        con,
        session.engine,
        SYSTEM_TABLES,
        schemas=SCHEMAS,
        catalog_schemas=CATALOG_SCHEMAS,
        audit_log_schema=audit_log_schema,
        changes=functools.partial(change_batches, session.engine),
    )
    for name, (function, parameters) in binds.items():
        _function(con, name, function, parameters)
    for path in sorted(functions_dir().glob("*.sql")):
        con.execute(path.read_text(encoding="utf-8"))
    return session
