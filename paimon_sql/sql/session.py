"""`Session`: a DuckDB connection where every Paimon table of a warehouse is a view
``"db"."table"``.

A thin facade: `paimon_sql.engine.context.Engine` owns the connections and views,
`paimon_sql.engine.binder.Binder` binds table references, and the handlers in
`paimon_sql.sql.statements` and `paimon_sql.sql.procedures` run Paimon's statements through the
session's `Context` side.

>>> import tempfile
>>> s = connect(tempfile.mkdtemp())
>>> s.sql("SELECT 1 + 1").fetchall()
[(2,)]
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
from typing import TYPE_CHECKING, Any

import duckdb
import sqlglot
from sqlglot import exp

from paimon_sql.catalog import Catalog, Identifier, Table
from paimon_sql.catalog.system_tables import catalog_table, split_system_name, system_table
from paimon_sql.engine.binder import Binder
from paimon_sql.engine.context import Engine
from paimon_sql.engine.errors import from_sqlglot
from paimon_sql.engine.source import SystemTables
from paimon_sql.engine.travel import TimeTravel
from paimon_sql.errors import SqlError
from paimon_sql.sql.data_tables import read_data_table
from paimon_sql.sql.dialect import hint_options
from paimon_sql.sql.statements.dispatch import dispatch, dispatch_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_sql.engine.relation import Relation
    from paimon_sql.engine.source import PaimonSource
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.scan import ScanPlan

#: The SQL layer's system tables, as the binder gets them.
SYSTEM_TABLES = SystemTables(
    split_name=split_system_name,
    catalog_table=catalog_table,
    table=functools.partial(system_table, read_data=read_data_table),
)


class Session:
    """A warehouse opened in DuckDB. Use `sql` for queries; tables are ``"db"."table"``."""

    def __init__(
        self,
        warehouse: str | os.PathLike[str],
        *,
        connection: duckdb.DuckDBPyConnection | None = None,
        filesystem: Any = None,
        create: bool = False,
        storage_options: dict[str, Any] | None = None,
    ) -> None:
        """Open `warehouse` on `connection` (a new in-memory DuckDB when omitted)."""
        catalog = Catalog(
            warehouse,
            filesystem,
            storage_options=storage_options,
            create=create and filesystem is None,
        )
        catalog.databases()  # fail early, naming the path, when the warehouse is missing
        self._engine = Engine(catalog, connection)
        self._binder = Binder(self._engine, SYSTEM_TABLES, hint_options)
        self.refresh()

    @property
    def catalog(self) -> Catalog:
        """The warehouse's catalog."""
        return self._engine.catalog

    @property
    def engine(self) -> Engine:
        """The DuckDB side: connections, views, registered sources."""
        return self._engine

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection the tables are views on."""
        return self._engine.con

    # --- catalog ----------------------------------------------------------------------------------

    def table(self, identifier: str | Identifier) -> Table:
        """The `Table` (metadata access) behind ``db.table``."""
        return self._engine.table(identifier)

    def refresh(self) -> None:
        """Expose every table of the warehouse as a view (new tables, changed schemas).

        A table whose metadata is damaged does not stop the others: its view raises the error naming
        the damaged file when it is read (`paimon_sql.engine.damage`), and `sql` reports it as the
        paimon-sql error.
        """
        self._engine.refresh()

    def source(
        self,
        table: Table,
        snapshot: Snapshot | None = None,
        *,
        pinned: bool = False,
        first_rows: bool = False,
    ) -> PaimonSource:
        """A DuckDB source over `table`: the latest snapshot, or `snapshot` when `pinned`.
        `first_rows`: the query will stop early (``LIMIT``), so splits are read to give their first
        rows fast."""
        return self._engine.source(table, snapshot, pinned=pinned, first_rows=first_rows)

    # --- queries ----------------------------------------------------------------------------------

    def sql(self, text: str) -> Relation:
        """Run SQL; Paimon tables are ``"db"."table"``. Returns a DuckDB relation (`Relation`
        proxy).

        Several statements run in order; the relation of the last one is returned. Every failure is
        a `paimon_sql.errors` error: DuckDB's become `ExecutionError`, sqlglot's `SqlError`.
        """
        try:
            pieces = [st.query for st in self.con.extract_statements(text)]
        except duckdb.Error:
            pieces = [text]  # DuckDB's parser rejects it; sqlglot may still know it (Spark forms)
        result: Relation | None = None
        for piece in pieces or [text]:
            try:
                result = self._statement(piece)
            except duckdb.Error as err:
                raise self._engine.translate(err) from err
            except sqlglot.errors.SqlglotError as err:
                raise from_sqlglot(err) from err
        assert result is not None
        return result

    def _statement(self, text: str) -> Relation:
        handled = dispatch_text(self, text)
        if handled is not None:
            return handled
        statement = _parse(text)
        if statement is None:
            return self._engine.run(text)
        handled = dispatch(self, statement)
        if handled is not None:
            return handled
        # A view outlives this statement: it must re-plan on every read, so it gets streaming
        # sources.
        view = (
            isinstance(statement, exp.Create)
            and str(statement.args.get("kind", "")).upper() == "VIEW"
        )
        if self._binder.bind(statement, inline=not view):
            text = statement.sql("duckdb")
        return self._engine.run(text)

    def relation(self, make: Callable[[duckdb.DuckDBPyConnection], Any]) -> Relation:
        """A `Relation` from a function making a DuckDB relation on this session's connection."""
        return self._engine.relation(make)

    def explain(self, query: str) -> list[tuple[str, str, str]] | None:
        """EXPLAIN lines (scope, property, value) of a query over Paimon tables; None if it reads
        none."""
        statement = _parse(query)
        return None if statement is None else self._binder.explain(statement)

    def bind(self, expression: exp.Expression) -> None:
        """Plan the Paimon tables an expression (a DML source query) reads, in place."""
        self._binder.bind(expression)

    def changed(self, table: Table) -> None:
        """After a write: views re-bind when the schema changed (the snapshot is read per query)."""
        self._engine.changed(table)

    def refresh_table(self, ident: Identifier) -> None:
        """(Re)expose a table as a view after DDL."""
        self._engine.reexpose(ident)

    def forget(self, ident: Identifier) -> None:
        """Drop a table's view after DROP / RENAME."""
        self._engine.forget(ident)

    def forget_database(self, database: str) -> None:
        """Drop the DuckDB schema of a dropped database."""
        self._engine.forget_database(database)

    def rewrite_sources(self, expression: exp.Expression) -> None:
        """Plan the Paimon tables an expression (a DML source query) reads, in place (as `bind`)."""
        self._binder.bind(expression)

    def invalidate(self, table: Table) -> None:
        """After a write: views re-bind when the schema changed (as `changed`)."""
        self._engine.changed(table)

    def last_plan(self, name: str) -> ScanPlan | None:
        """The plan of the latest scan of table `name` (``db.table``) by `sql` (for EXPLAIN and
        tests)."""
        return self._engine.last_plan(name)

    def scan(
        self,
        identifier: str | Identifier,
        *,
        snapshot: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
    ) -> Relation:
        """A relation over the table at a snapshot id, tag or time (default: the latest)."""
        travel = TimeTravel(snapshot_id=snapshot, tag=tag, timestamp_ms=timestamp_ms)
        return self._binder.scan(self.table(identifier), travel)

    def close(self) -> None:
        """Close both DuckDB connections."""
        self._engine.close()


def _parse(text: str) -> exp.Expression | None:
    """One statement as a sqlglot AST (DuckDB dialect, else Spark's), or None when neither parses
    it."""
    for dialect in ("duckdb", "spark"):
        try:
            with _quiet_sqlglot():
                statement = sqlglot.parse_one(text, read=dialect)
        except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
            continue  # neither dialect reads it: DuckDB runs the text and reports what is wrong
        if statement is not None:
            return statement
    return None


@contextlib.contextmanager
def _quiet_sqlglot() -> Any:
    # sqlglot warns when it falls back to an opaque Command (SHOW, CALL): expected here.
    log = logging.getLogger("sqlglot")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def connect(
    warehouse: str | os.PathLike[str],
    *,
    connection: duckdb.DuckDBPyConnection | None = None,
    filesystem: Any = None,
    create: bool = False,
    storage_options: dict[str, Any] | None = None,
) -> Session:
    """Open a warehouse in DuckDB: a folder or an ``s3://bucket/path`` (``gs://``, ``az://``) URI
    (`create=True` makes the folder when absent; never a bucket).

    Object store credentials, region and endpoint come from `storage_options` (obstore's key names:
    ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_endpoint``, ``aws_allow_http`` ...),
    else the standard ``AWS_*`` environment variables, else the AWS profile (``AWS_PROFILE``).
    """
    return Session(
        warehouse,
        connection=connection,
        filesystem=filesystem,
        create=create,
        storage_options=storage_options,
    )


__all__ = ["Session", "SqlError", "connect"]
