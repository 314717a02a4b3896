"""`Engine`: a warehouse's Paimon tables on a DuckDB connection.

The one place that owns DuckDB connections for SQL: the user's connection ``con`` (where every table
is a view ``"db"."table"``), a private in-memory database the `SplitReader` runs split queries on,
the hidden sources and helper tables registered on ``con``, and the `ErrorLog` that turns DuckDB's
errors back into paimon-sql errors. What a statement's table references become (a source or inlined
SQL) is `paimon_sql.engine.binder`'s job.

>>> import tempfile
>>> from paimon_sql.catalog import Catalog
>>> engine = Engine(Catalog(tempfile.mkdtemp()))
>>> engine.relation(lambda con: con.sql("SELECT 40 + 2")).fetchall()
[(42,)]
>>> engine.close()
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import tempfile
import threading
import weakref
from typing import TYPE_CHECKING, Any

import duckdb
from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.catalog.names import duckdb_matches
from paimon_sql.engine.damage import damaged_view
from paimon_sql.engine.reader import BucketRead, SplitReader
from paimon_sql.engine.relation import ErrorLog, Relation
from paimon_sql.engine.source import PaimonSource, register
from paimon_sql.errors import (
    DatabaseNotFoundError,
    PaimonSqlError,
    SqlError,
    TableNotFoundError,
)
from paimon_sql.io.key_lookup import KeyLookup
from paimon_sql.sqlnodes import (
    create_schema,
    create_view,
    current_settings,
    drop,
    drop_schema,
    select_all,
    set_setting,
    table_node,
)
from paimon_sql.types import duckdb_type_node

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from contextlib import AbstractContextManager

    import pyarrow as pa

    from paimon_sql.catalog import Catalog, Table
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.scan import ScanPlan

_counter = itertools.count()
_open_engines: weakref.WeakSet[Engine] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # DuckDB connections still open at interpreter exit make nanobind print leak reports.
    for engine in list(_open_engines):
        engine.close()


#: Every hidden relation's name starts with it (SHOW TABLES leaves them out).
HIDDEN_PREFIX = "__paimon_"


def hidden_name(prefix: str = HIDDEN_PREFIX) -> str:
    """A fresh name for a hidden relation.

    DuckDB's errors naming it are mapped back by the `ErrorLog`.
    """
    return f"{prefix}{next(_counter)}"


class Sources:
    """The part of an `Engine` that what DuckDB holds may hold: tables and sources, no connection.

    DuckDB keeps the sources and functions registered on a connection in C++, where Python's
    collector cannot see them: were they to hold the engine, and so its connection, an engine
    no longer used would never be freed (nor DuckDB's threads of its two databases). The routing
    sources of ``paimon_*`` functions and a table's views hold this instead.
    """

    def __init__(self, catalog: Catalog, reader: SplitReader, log: ErrorLog) -> None:
        """Tables of `catalog`, read by `reader`; stream errors kept in `log`."""
        self.catalog, self.reader, self.log = catalog, reader, log
        self.tables: dict[Identifier, Table] = {}
        self.arrow_schemas: dict[tuple[str, int], pa.Schema] = {}

    def table(self, identifier: str | Identifier) -> Table:
        """The `Table` (metadata access) behind ``db.table``, cached until it changes."""
        ident = Identifier.parse(identifier) if isinstance(identifier, str) else identifier
        table = self.tables.get(ident)
        if table is None:
            table = self.catalog.load_table(ident)
            self.tables[ident] = table
        return table

    def arrow_schema(self, table: Table, schema_id: int) -> pa.Schema:
        """The Arrow schema DuckDB produces for the rows of `table` at schema `schema_id`."""
        key = (table.path, schema_id)
        schema = self.arrow_schemas.get(key)
        if schema is None:
            fields = table.schema(schema_id).fields
            select = exp.select(
                *[
                    exp.alias_(
                        exp.Cast(this=exp.null(), to=duckdb_type_node(f.type)), f.name, quoted=True
                    )
                    for f in fields
                ]
            )
            cursor = self.reader.engine.cursor()
            try:
                schema = cursor.sql(select.sql("duckdb")).arrow().schema
            finally:
                cursor.close()
            self.arrow_schemas[key] = schema
        return schema

    def source(
        self,
        table: Table,
        snapshot: Snapshot | None = None,
        *,
        pinned: bool = False,
        first_rows: bool = False,
        latest_schema: bool = False,
    ) -> PaimonSource:
        """A DuckDB source over `table`: the latest snapshot, or `snapshot` when `pinned`.

        `first_rows`: the query will stop early (``LIMIT``), so splits are read to give their first
        rows fast. `latest_schema`: a pinned snapshot read in the latest schema (Flink's hints).
        """
        select = (lambda: snapshot) if pinned else table.latest_snapshot
        return PaimonSource(
            table,
            self.reader,
            functools.partial(self.arrow_schema, table),
            select,
            self.log,
            pinned=pinned,
            first_rows=first_rows,
            latest_schema=latest_schema,
        )


class Engine:
    """The DuckDB side of a session: connections, views, registered sources, error relay."""

    #: Registered helper tables (DV masks, system tables) kept for relations not yet consumed.
    KEEP_REGISTERED = 2048

    def __init__(
        self, catalog: Catalog, connection: duckdb.DuckDBPyConnection | None = None
    ) -> None:
        """Expose `catalog`'s tables on `connection` (a new in-memory DuckDB when omitted)."""
        self.catalog = catalog
        self.con = connection if connection is not None else private_duckdb()
        #: Whether ``con`` is the engine's own (closed with it) or a caller's (left open).
        self.owns_connection = connection is None
        #: The DuckDB catalog the views live in (the connection's default database).
        ((self.home,),) = self.con.sql(
            exp.select(exp.func("current_database")).sql("duckdb")
        ).fetchall()
        #: The private database split queries run on (streamed reads), under ``con``'s memory
        #: limit and thread count (`mirror_settings`).
        self.private = private_duckdb()
        self.reader = SplitReader(self.private)
        self.mirror_settings()
        #: Key columns of data files, cached for lookup compaction across the session's writes.
        #: Spilled key columns go where DuckDB spills (`scratch_folder`), nowhere near a warehouse.
        self.key_lookup = KeyLookup(spill_dir=scratch_folder())
        self.log = ErrorLog()
        #: Tables and sources, for what is registered on ``con`` (`Sources`).
        self.sources = Sources(catalog, self.reader, self.log)
        self._views: dict[Identifier, tuple[PaimonSource, int]] = {}
        #: The DuckDB schemas made for Paimon databases (no other schema can be one: `bare_table`
        #: asks the warehouse only about these)
        self._schemas: set[str] = set()
        self._lock = threading.Lock()
        self._keep: list[str] = []  # deletion-vector tables the inlined queries read
        #: The latest scan of each table (``db.table``): its plan (inlined) or its source
        #: (streamed).
        self.last: dict[str, ScanPlan | PaimonSource] = {}
        #: The table the running write statement writes: its reads of it are at the latest
        #: snapshot, whatever time travel its own ``scan.*`` options ask a plain read for.
        self.writing: Identifier | None = None
        _open_engines.add(self)

    # --- tables and sources -----------------------------------------------------------------------

    def table(self, identifier: str | Identifier) -> Table:
        """The `Table` (metadata access) behind ``db.table``, cached until it changes.

        A name the user wrote (a string) is matched as DuckDB matches names (`database_named`,
        `table_spelling`), and one without its database (``"t"``) is in `default_database`; an
        `Identifier` is the warehouse's own spelling.
        """
        if isinstance(identifier, Identifier):
            return self.sources.table(identifier)
        if "." in identifier:
            ident = Identifier.parse(identifier)
        else:
            ident = Identifier.parse(identifier, self.default_database())
        try:
            return self.sources.table(ident)
        except DatabaseNotFoundError:
            database = self.database_named(ident.database)
            if database is None:
                raise
            return self.table_named(database, ident.table)
        except TableNotFoundError as err:
            return self._respelled(ident.database, ident.table, err)

    def default_database(self) -> str:
        """Where a table named without its database is.

        ``USE``'s Paimon database, else Java's ``default`` (as Paimon's Spark procedures take the
        current namespace).
        """
        schema = self.current_schema()
        return schema if schema is not None and schema in self._schemas else "default"

    def source(
        self,
        table: Table,
        snapshot: Snapshot | None = None,
        *,
        pinned: bool = False,
        first_rows: bool = False,
        latest_schema: bool = False,
    ) -> PaimonSource:
        """`Sources.source`: a DuckDB source over `table` (holding no engine)."""
        return self.sources.source(
            table, snapshot, pinned=pinned, first_rows=first_rows, latest_schema=latest_schema
        )

    def register(self, source: PaimonSource, shown: str) -> str:
        """Register `source` on ``con`` under a hidden name (returned); errors name it `shown`."""
        hidden = hidden_name()
        register(self.con, hidden, source)
        self.log.name(hidden, shown)
        return hidden

    def register_arrow(self, content: pa.Table, shown: str) -> str:
        """Register an Arrow table on ``con`` under a hidden name (returned).

        Kept while queries may read it.
        """
        hidden = hidden_name("__paimon_sys_")
        self.con.register(hidden, content)
        self.log.name(hidden, shown)
        self.hold([hidden])
        return hidden

    def release(self, names: list[str]) -> None:
        """Drop registered helper tables at once (a statement's scratch rows, no longer read)."""
        for name in names:
            if name in self._keep:
                self._keep.remove(name)
                self.con.unregister(name)

    def hold(self, names: list[str]) -> None:
        """Keep registered helper tables alive (the oldest beyond `KEEP_REGISTERED` are dropped)."""
        self._keep.extend(names)
        while len(self._keep) > self.KEEP_REGISTERED:
            self.con.unregister(self._keep.pop(0))

    def view_source(self, ident: Identifier) -> PaimonSource | None:
        """The source behind the view ``"db"."table"`` (None before it is exposed)."""
        known = self._views.get(ident)
        return None if known is None else known[0]

    def bucket_reader(self) -> BucketRead:
        """What compaction reads a plan with.

        Its rows merged (with the system columns and in key order for primary-key tables), run on
        ``con``; with ``keys``, only those keys' rows. It carries the session's `KeyLookup`
        (lookup compaction's cache of data files' key columns).
        """
        return BucketRead(SplitReader(self.con), self.key_lookup)

    def last_plan(self, name: str) -> ScanPlan | None:
        """The plan of the latest scan of table `name` (``db.table``)."""
        last = self.last.get(name)
        return last.last_plan if isinstance(last, PaimonSource) else last

    # --- views ------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Expose every table of the warehouse as a view (new tables, changed schemas).

        A table whose metadata is damaged does not stop the others: its view raises the error naming
        the damaged file when it is read (`paimon_sql.engine.damage`).
        """
        for database in self.catalog.databases():
            self.expose_database(database)
            for name in self.catalog.tables(database):
                ident = Identifier(database, name)
                try:
                    self.expose(ident)
                except PaimonSqlError as err:
                    damaged_view(self.con, ident, err)
                except duckdb.Error as err:  # the source's error, wrapped by DuckDB while binding
                    original = self.log.original(err)
                    if original is None:
                        raise
                    damaged_view(self.con, ident, original)

    def expose(self, ident: Identifier) -> None:
        """Make ``"db"."table"`` a view over a streaming source (again when its schema changed)."""
        table = self.table(ident)
        schema_id = table.latest_schema.id
        with self._lock:
            known = self._views.get(ident)
            if known is not None and known[1] == schema_id:
                return
            source = self.source(table)
            hidden = self.register(source, str(ident))
            self.expose_database(ident.database)
            target = table_node(ident.database, ident.table)
            view = create_view(target, select_all(table_node(hidden)))
            self.con.execute(view.sql("duckdb"))
            self._views[ident] = (source, schema_id)

    def expose_database(self, database: str) -> None:
        """Make the DuckDB schema of a Paimon database.

        So that ``USE db`` works before its first table.
        """
        self.con.execute(create_schema(database).sql("duckdb"))
        self._schemas.add(database)

    def current_schema(self) -> str | None:
        """The schema ``USE`` selected on ``con``.

        None when a catalog other than the one the views live in is current.
        """
        catalog, schema = current_position(self.con)
        return schema if catalog == self.home else None

    @property
    def paimon_schemas(self) -> frozenset[str]:
        """The DuckDB schemas of ``home`` this engine made for Paimon databases (their views)."""
        return frozenset(self._schemas)

    def database_named(self, name: str) -> str | None:
        """The Paimon database a qualified name's ``db`` part reads, matched as DuckDB matches it.

        Exactly, else the one database (of those whose DuckDB schema this engine made) whose name
        differs only in case; None for any other schema (DuckDB's own).
        """
        if self.catalog.has_database(name):
            return name
        found = _as_duckdb_matches(name, self._schemas)
        return found if found is not None and self.catalog.has_database(found) else None

    def table_named(self, database: str, name: str) -> Table:
        """`table`, for a name matched as DuckDB matches it: else the one differing only in case.

        Raises:
            TableNotFoundError: when neither exists (the error of the name as written).
            SqlError: when several tables differ from `name` only in case.
        """
        try:
            return self.table(Identifier(database, name))
        except TableNotFoundError as err:
            return self._respelled(database, name, err)

    def _respelled(self, database: str, name: str, missing: TableNotFoundError) -> Table:
        """The table `name` (not found as written: `missing`) names, differing only in case."""
        found = self.table_spelling(database, name)
        if found == name:
            raise missing
        return self.table(Identifier(database, found))

    def table_spelling(self, database: str, name: str) -> str:
        """How the warehouse spells the table of `database` that `name` names, as DuckDB matches.

        Exactly `name` if the database has that table, else the one table whose name differs only
        in case, else `name` as written (so that a not-found error names it).

        Raises:
            SqlError: when several tables differ from `name` only in case (a warehouse Java wrote
                may have them; DuckDB cannot tell them apart).
        """
        if any(i.database == database and i.table == name for i in self.sources.tables):
            return name  # a table this engine has opened: no listing of the database
        return _spelled(database, name, self.catalog.tables(database)) or name

    def bare_table(self, name: str, *, exposed: bool = True) -> Identifier | None:
        """The Paimon table a bare name (no database) reads, as DuckDB resolves the name.

        After ``USE db`` of a Paimon database, DuckDB finds ``t`` in the schema of ``db``'s views,
        unless a temporary table or view of that name comes first in its search path. Names are
        matched as DuckDB matches them: exactly, else the one table whose name differs only in
        case. A system-table or branch suffix (``t$snapshots``) is the caller's: `name` is the
        table's part. None when the name reads no Paimon table (DuckDB resolves or reports it); a
        common table expression of the statement is the caller's to rule out.

        With `exposed` (reads: DuckDB finds only the tables it has views of), a name no exposed
        Paimon table has asks DuckDB nothing: most bare names are DuckDB's. Without it (writes,
        DESCRIBE), a table another process made since the views were made is found too.
        """
        if exposed and not any(i.table.lower() == name.lower() for i in list(self._views)):
            return None

        resolved = self.con.execute(_resolution_query(), {"name": name.lower()}).fetchall()
        ((catalog, database, shadowed),) = resolved
        if catalog != self.home or database not in self._schemas or shadowed:
            return None  # not USE's Paimon database, or a temporary table or view comes first
        if not self.catalog.has_database(database):
            return None
        found = _spelled(database, name, self.catalog.tables(database))
        return None if found is None else Identifier(database, found)

    def in_transaction(self) -> bool:
        """Whether ``con`` is inside an explicit transaction.

        That is ``BEGIN`` ... ``COMMIT``/``ROLLBACK``: outside one every query is its own
        transaction with a new id.
        """
        query = exp.select(exp.func("txid_current")).sql("duckdb")
        first = self.con.sql(query).fetchall()
        return bool(first == self.con.sql(query).fetchall())

    def reexpose(self, ident: Identifier) -> None:
        """(Re)expose a table as a view after DDL."""
        self.sources.tables.pop(ident, None)
        self._views.pop(ident, None)
        self.expose(ident)

    def changed(self, table: Table) -> None:
        """After a write: views re-bind when the schema changed (the snapshot is read per query)."""
        ident = Identifier.parse(table.name)
        self._views.pop(ident, None)
        self.expose(ident)

    def forget(self, ident: Identifier) -> None:
        """Drop a table's view after DROP / RENAME."""
        self.sources.tables.pop(ident, None)
        self._views.pop(ident, None)
        self.con.execute(drop("VIEW", table_node(ident.database, ident.table)).sql("duckdb"))

    def forget_database(self, database: str) -> None:
        """Drop the DuckDB schema of a dropped database."""
        for ident in [i for i in self._views if i.database == database]:
            self.forget(ident)
        self.con.execute(drop_schema(database).sql("duckdb"))

    #: ``con``'s settings the private database follows: a limit set on the user's connection
    #: holds for the split queries of its streamed reads too.
    MIRRORED = ("memory_limit", "threads")

    def mirror_settings(self) -> None:
        """Give the private database ``con``'s memory limit and thread count.

        Run when the engine starts and after each ``SET`` / ``RESET`` / ``PRAGMA`` statement a
        session runs. Not from inside a query on ``con`` (a source's bind): it queries ``con``.

        >>> import paimon_sql, tempfile
        >>> s = paimon_sql.connect(tempfile.mkdtemp(), create=True)
        >>> _ = s.sql("SET memory_limit = '300MB'")
        >>> s.engine.private.sql("SELECT current_setting('memory_limit')").fetchall()
        [('286.0 MiB',)]
        >>> s.close()
        """
        wanted = current_settings(*self.MIRRORED).sql("duckdb")
        (mine,) = self.con.sql(wanted).fetchall()
        (theirs,) = self.private.sql(wanted).fetchall()
        for name, value, current in zip(self.MIRRORED, mine, theirs, strict=True):
            if value != current:
                self.private.execute(set_setting(name, str(value)).sql("duckdb"))

    # --- running ----------------------------------------------------------------------------------

    def run(self, sql: str, params: dict[str, Any] | None = None) -> Relation:
        """A `Relation` of `sql` (DuckDB's dialect) on ``con``, with its named `params` if any."""
        if params:
            return self.relation(lambda con: con.sql(sql, params=params))
        return self.relation(lambda con: con.sql(sql))

    def relation(self, make: Callable[[duckdb.DuckDBPyConnection], Any]) -> Relation:
        """A `Relation` from a function making a DuckDB relation on ``con``.

        DuckDB's errors translated.
        """
        try:
            fileio = self.catalog.fileio
            # the first use of the result (its run) reuses what its statement listed; a later
            # re-run lists afresh and sees commits made since
            memo = [fileio.memo()]

            def scope() -> AbstractContextManager[None]:
                remembered, memo[0] = memo[0], None
                return fileio.statement(remembered)

            return Relation(make(self.con), self.log, scope)
        except duckdb.Error as err:
            raise self.log.translate(err) from err

    def rows(self, table: pa.Table) -> Relation:
        """A `Relation` over an Arrow table (a statement's result rows)."""
        return self.relation(lambda con: con.from_arrow(table))

    def fetch(self, query: exp.Expression) -> list[tuple[Any, ...]]:
        """The rows of `query` run on ``con`` (DuckDB's errors raised as they are)."""
        return self.con.sql(query.sql("duckdb")).fetchall()

    def translate(self, err: duckdb.Error) -> PaimonSqlError:
        """The paimon-sql error for a DuckDB error.

        A source's recorded original, else `ExecutionError`.
        """
        return self.log.translate(err)

    def close(self) -> None:
        """Close the private DuckDB and ``con`` when it is the engine's own.

        A caller's connection (`paimon_sql.sql.install.install`) stays open: only the views of
        the warehouse's tables are dropped from it. The key cache's local files go too.
        """
        if not self.owns_connection:
            for ident in list(self._views):
                with contextlib.suppress(duckdb.Error):  # the caller may have dropped it
                    self.forget(ident)
        self._views.clear()
        self.key_lookup.clear()
        if self.owns_connection:
            self.con.close()
        self.private.close()
        _open_engines.discard(self)


def scratch_folder() -> str:
    """The one folder a process's sessions spill to: DuckDB's sorts and the spilled key columns.

    In the system's temporary folder, never in a warehouse or the current directory.

    >>> scratch_folder().endswith(f"paimon-sql-{os.getpid()}")
    True
    """
    return os.path.join(tempfile.gettempdir(), f"paimon-sql-{os.getpid()}")


def private_duckdb() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB that spills to the system's temporary folder.

    DuckDB's own default is ``./.tmp`` under the current directory, which a write would litter.
    Parquet footers are cached across queries (``parquet_metadata_cache``; DuckDB checks each
    file's modification time): Paimon data files never change, and a point query on a 10M-row
    table spends about a tenth of its time parsing the footers of the files it opens.
    """
    con = duckdb.connect()
    con.execute(set_setting("temp_directory", scratch_folder()).sql("duckdb"))
    con.execute(set_setting("parquet_metadata_cache", "true").sql("duckdb"))
    return con


def current_position(con: duckdb.DuckDBPyConnection) -> tuple[str, str]:
    """`con`'s current database and schema (what ``USE`` selected)."""
    ((database, schema),) = con.sql(_current_query()).fetchall()
    return database, schema


@functools.cache
def _current_query() -> str:
    """DuckDB's current database and schema (built once: sqlglot is most of its cost)."""
    return exp.select(exp.func("current_database"), exp.func("current_schema")).sql("duckdb")


@functools.cache
def _resolution_query() -> str:
    """DuckDB's current database and schema, and whether a temporary table or view is ``$name``.

    Built once (sqlglot's building is most of a small query's cost); the name is a parameter.
    """

    def named(column: str) -> exp.Condition:
        return exp.and_(
            exp.EQ(this=exp.column("database_name"), expression=exp.Literal.string("temp")),
            exp.EQ(
                this=exp.func("lower", exp.column(column)),
                expression=exp.Placeholder(this="name"),
            ),
        )

    temporary = exp.or_(
        exp.Exists(this=exp.select("1").from_("duckdb_tables()").where(named("table_name"))),
        exp.Exists(this=exp.select("1").from_("duckdb_views()").where(named("view_name"))),
    )
    query = exp.select(exp.func("current_database"), exp.func("current_schema"), temporary)
    return query.sql("duckdb")


def _spelled(database: str, name: str, tables: Iterable[str]) -> str | None:
    """The one table of `tables` (of `database`) DuckDB would take `name` for, else None.

    Raises:
        SqlError: when several differ from `name` only in case.
    """
    matches = duckdb_matches(name, tables)
    if len(matches) > 1:
        raise SqlError(
            f"{database}.{name} matches tables {', '.join(matches)} of {database}, whose names "
            "differ only in case: name one of them exactly as it is spelled"
        )
    return matches[0] if matches else None


def _as_duckdb_matches(name: str, names: Iterable[str]) -> str | None:
    """The one name of `names` DuckDB would take `name` for (`duckdb_matches`), else None."""
    matches = duckdb_matches(name, names)
    return matches[0] if len(matches) == 1 else None


__all__ = [
    "HIDDEN_PREFIX",
    "Engine",
    "Sources",
    "current_position",
    "hidden_name",
    "private_duckdb",
    "scratch_folder",
]
