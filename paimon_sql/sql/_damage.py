"""Containment of damaged tables: one table whose metadata does not read never stops the warehouse.

`Session.refresh` exposes every table as a view; a table that fails (a damaged snapshot or schema file) gets a
view that raises its error, naming the file, when it is read. Everything else (`connect`, `install`,
``SHOW TABLES``, the other tables) keeps working; `Session.sql` plans the table itself and raises the original
`paimon_sql.errors` error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

if TYPE_CHECKING:
    import duckdb

    from paimon_sql.catalog import Identifier
    from paimon_sql.errors import PaimonSqlError


def damaged_view(con: duckdb.DuckDBPyConnection, ident: Identifier, error: PaimonSqlError) -> None:
    """Make ``"db"."table"`` a view that fails with `error`'s message (a string literal node) when read.

    >>> import duckdb
    >>> from paimon_sql.catalog import Identifier
    >>> from paimon_sql.errors import CorruptFileError
    >>> con = duckdb.connect()
    >>> damaged_view(con, Identifier("db", "t"), CorruptFileError("/wh/db.db/t/snapshot/snapshot-1", "empty"))
    >>> try:
    ...     con.sql('SELECT * FROM "db"."t"').fetchall()
    ... except duckdb.Error as err:
    ...     print(str(err).splitlines()[0])
    Invalid Input Error: table db.t cannot be read: damaged file /wh/db.db/t/snapshot/snapshot-1: empty
    """
    message = f"table {ident} cannot be read: {error}"
    schema = exp.to_identifier(ident.database, quoted=True)
    con.execute(exp.Create(this=exp.Table(this=schema), kind="SCHEMA", exists=True).sql("duckdb"))
    failing = exp.Anonymous(this="error", expressions=[exp.Literal.string(message)])
    query = exp.select(exp.alias_(failing, "damaged", quoted=True))
    view = exp.Create(
        this=exp.Table(this=exp.to_identifier(ident.table, quoted=True), db=schema),
        kind="VIEW",
        replace=True,
        expression=query,
    )
    con.execute(view.sql("duckdb"))
