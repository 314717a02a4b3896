"""`install`: put paimon-sql's views and SQL functions (``functions/*.sql``) on a plain DuckDB connection."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paimon_sql.sql.session import Session

if TYPE_CHECKING:
    import duckdb

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


def install(
    con: duckdb.DuckDBPyConnection, warehouse: str | os.PathLike[str], *, filesystem: Any = None
) -> Session:
    """Expose `warehouse`'s tables as ``"db"."table"`` views on `con` and create the SQL functions.

    >>> import duckdb, paimon_sql, tempfile
    >>> con = duckdb.connect()
    >>> _ = paimon_sql.install(con, tempfile.mkdtemp())
    >>> con.sql("SELECT function_name FROM duckdb_functions() WHERE function_name = 'paimon_scan'").fetchall()
    [('paimon_scan',)]
    """
    session = Session(warehouse, connection=con, filesystem=filesystem)
    for path in sorted(functions_dir().glob("*.sql")):
        con.execute(path.read_text(encoding="utf-8"))
    return session
