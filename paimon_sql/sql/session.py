"""`Session`: a DuckDB connection where every Paimon table of a warehouse is a view.

The view of a table is ``"db"."table"``.

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

import contextvars
import functools
import numbers
import os
import sys
import threading
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp

from paimon_sql.catalog import Catalog, Identifier
from paimon_sql.catalog.system_tables import catalog_table, split_system_name, system_table
from paimon_sql.engine.binder import Binder, scannable
from paimon_sql.engine.context import Engine
from paimon_sql.engine.errors import from_sqlglot
from paimon_sql.engine.source import SystemTables
from paimon_sql.engine.travel import TimeTravel
from paimon_sql.errors import (
    ArgumentError,
    ArgumentTypeError,
    PaimonSqlError,
    SqlError,
    UnsupportedFeatureError,
)
from paimon_sql.sql.data_tables import read_data_table
from paimon_sql.sql.dialect import quiet_sqlglot, refuse_misplaced_hint
from paimon_sql.sql.functions import install_functions
from paimon_sql.sql.incremental import change_table, hint_reader, read_hint, table_reads
from paimon_sql.sql.names import current_database, refuse_in_transaction
from paimon_sql.sql.params import bind_parameters, parameter_names
from paimon_sql.sql.statements import dml
from paimon_sql.sql.statements.dispatch import dispatch, dispatch_text
from paimon_sql.sql.statements.target import unparsed_write
from paimon_sql.sqlnodes import table_node

if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    from paimon_sql.catalog import Table
    from paimon_sql.engine.relation import Relation
    from paimon_sql.engine.source import PaimonSource
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.scan import ScanPlan

#: The exception plain SQL (what DuckDB runs itself) fails with, ``duckdb.Error``: re-exported for
#: the layers above (the CLI), which do not import duckdb.
DuckDBError = duckdb.Error

#: The SQL layer's system tables, as the binder gets them.
SYSTEM_TABLES = SystemTables(
    split_name=split_system_name,
    catalog_table=catalog_table,
    table=functools.partial(system_table, read_data=read_data_table),
)


def _changes_settings(statement: exp.Expression) -> bool:
    """``SET``, ``RESET`` or ``PRAGMA``: DuckDB settings the private database may follow."""
    if isinstance(statement, (exp.Set, exp.Pragma)):
        return True
    return isinstance(statement, exp.Command) and str(statement.this).upper() == "RESET"


def _parameterizable(statement: exp.Expression) -> bool:
    """Whether DuckDB runs `statement` with prepared-statement parameters.

    Queries, INSERT, COPY, CREATE TABLE … AS, DESCRIBE and SUMMARIZE do; views and macros cannot
    hold parameters, and a PIVOT whose columns come from the data cannot have them in its source.

    >>> import sqlglot
    >>> _parameterizable(sqlglot.parse_one("SELECT * FROM db.t", read="duckdb"))
    True
    >>> _parameterizable(sqlglot.parse_one("PIVOT db.t ON a USING sum(b)", read="duckdb"))
    False
    """
    if isinstance(statement, exp.Create):
        if str(statement.args.get("kind", "")).upper() != "TABLE":
            return False
    elif not isinstance(statement, _PARAMETERIZED):
        return False
    return statement.find(exp.Pivot) is None


#: The statements DuckDB prepares with parameters (besides CREATE TABLE).
_PARAMETERIZED = (exp.Query, exp.Insert, exp.Copy, exp.Describe, exp.Summarize)


class Session:
    """A warehouse opened in DuckDB. Use `sql` for queries; tables are ``"db"."table"``.

    Open one with `connect`. The examples use the doctest namespace of the repository's
    ``conftest.py``: ``warehouse`` holds the primary-key table ``db.t`` (snapshot 1 wrote
    ``(1, 'a'), (2, 'b')``, snapshot 2 updated ``(2, 'B')``, tag ``v1`` holds snapshot 1).

    Examples:
        >>> session = Session(warehouse)
        >>> session.sql("SELECT * FROM db.t ORDER BY id").fetchall()
        [(1, 'a'), (2, 'B')]
        >>> session.sql("SELECT * FROM db.t VERSION AS OF 'v1' ORDER BY id").fetchall()
        [(1, 'a'), (2, 'b')]
    """

    def __init__(
        self,
        warehouse: str | os.PathLike[str],
        *,
        connection: duckdb.DuckDBPyConnection | None = None,
        filesystem: Any = None,
        create: bool = False,
        storage_options: dict[str, Any] | None = None,
    ) -> None:
        """Open `warehouse` on `connection` (a new in-memory DuckDB when omitted); see `connect`.

        Examples:
            >>> import duckdb
            >>> con = duckdb.connect()
            >>> session = Session(warehouse, connection=con)
            >>> con.sql('SELECT count(*) FROM "db"."t"').fetchall()
            [(2,)]
        """
        catalog = Catalog(
            warehouse,
            filesystem,
            storage_options=storage_options,
            create=create and filesystem is None,
        )
        catalog.databases()  # fail early, naming the path, when the warehouse is missing
        self._engine = Engine(catalog, connection)
        self._binder = Binder(
            self._engine,
            SYSTEM_TABLES,
            read_hint,
            incremental=hint_reader(self._engine),
            changes=change_table(self._engine),
            table_reads=table_reads,
        )
        # the paimon_* SQL functions: install() puts them on a caller's connection itself; a
        # session's own connection gets them on first use (they cost ~70 ms to register)
        self._functions_pending = connection is None
        self.refresh()

    @property
    def catalog(self) -> Catalog:
        """The warehouse's catalog.

        Examples:
            >>> connect(warehouse).catalog.tables("db")
            ['t']
        """
        return self._engine.catalog

    @property
    def engine(self) -> Engine:
        """The DuckDB side: connections, views, registered sources.

        Examples:
            >>> session = connect(warehouse)
            >>> session.engine.con is session.con
            True
        """
        return self._engine

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection the tables are views on.

        Examples:
            >>> connect(warehouse).con.sql('SELECT count(*) FROM "db"."t"').fetchall()
            [(2,)]
        """
        return self._engine.con

    # --- catalog ----------------------------------------------------------------------------------

    def table(self, identifier: str | Identifier) -> Table:
        """The `Table` (metadata access) behind ``db.table``, cached by the session.

        Raises:
            TableNotFoundError: when the table does not exist.

        Examples:
            >>> table = connect(warehouse).table("db.t")
            >>> table.name, table.snapshot_ids(), table.tag_names()
            ('db.t', [1, 2], ['v1'])
        """
        return self._engine.table(_identifier(identifier))

    def refresh(self) -> None:
        """Expose every table of the warehouse as a view (new tables, changed schemas).

        A table whose metadata is damaged does not stop the others: its view raises the error naming
        the damaged file when it is read (`paimon_sql.engine.damage`), and `sql` reports it as the
        paimon-sql error.

        Examples:
            >>> session = connect(warehouse)
            >>> other = connect(warehouse)
            >>> _ = other.sql("CREATE TABLE db.u (id INT)")
            >>> session.refresh()
            >>> session.con.sql(
            ...     "SELECT table_name FROM information_schema.tables"
            ...     " WHERE table_schema = 'db' ORDER BY 1"
            ... ).fetchall()
            [('t',), ('u',)]
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

        Args:
            table: the table to read.
            snapshot: the snapshot a `pinned` source reads.
            pinned: read `snapshot`, not the latest snapshot at each scan.
            first_rows: the query will stop early (``LIMIT``), so splits are read to give their
                first rows fast.

        Examples:
            >>> session = connect(warehouse)
            >>> table = session.table("db.t")
            >>> source = session.source(table, table.snapshot(1), pinned=True)
            >>> source.snapshot().id, source.table.name
            (1, 'db.t')
        """
        return self._engine.source(table, snapshot, pinned=pinned, first_rows=first_rows)

    # --- queries ----------------------------------------------------------------------------------

    def sql(self, text: str, params: Any = None) -> Relation:
        """Run SQL; Paimon tables are ``"db"."table"``.

        Returns a DuckDB relation (`Relation` proxy).

        Several statements run in order; the relation of the last one is returned. Every failure is
        a `paimon_sql.errors` error: DuckDB's become `ExecutionError`, sqlglot's `SqlError`.

        As in DuckDB, `params` binds the statement's ``?`` / ``$1`` (a list or tuple) or ``$name``
        (a dict) parameters, in queries and in INSERT, UPDATE, DELETE and MERGE; and a pandas or
        polars DataFrame or Arrow table in the caller's variables can be read by its name
        (``FROM df``; a table or view of that name wins).

        Examples:
            >>> session = connect(warehouse)
            >>> session.sql("INSERT INTO db.t VALUES (3, 'c')").fetchall()
            [(1,)]
            >>> session.sql("SELECT name FROM db.t WHERE id >= 2 ORDER BY id").fetchall()
            [('B',), ('c',)]
            >>> session.sql("SELECT name FROM db.t WHERE id = ?", params=[3]).fetchall()
            [('c',)]
            >>> import pyarrow as pa
            >>> more = pa.table({"id": [4], "name": ["d"]})
            >>> session.sql("INSERT INTO db.t SELECT * FROM more").fetchall()
            [(1,)]
            >>> session.sql('SELECT snapshot_id, commit_kind FROM "db"."t$snapshots"').fetchall()
            [(1, 'APPEND'), (2, 'APPEND'), (3, 'APPEND'), (4, 'APPEND')]
            >>> session.sql("SELECT * FROM db.missing")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.TableNotFoundError: table db.missing not found; ...
        """
        _expect(text, str, "the SQL text", "a str")
        if self._functions_pending and "paimon_" in text.lower():
            self._functions_pending = False
            install_functions(self._engine.con, self._engine, SYSTEM_TABLES)
        lookup = _caller_variables()
        try:
            pieces = list(self.con.extract_statements(text))
        except duckdb.Error:
            pieces = []  # DuckDB's parser rejects it; sqlglot may still know it (Spark forms)
        if params is not None and len(pieces) > 1:
            raise ArgumentError(
                "parameters bind one statement: run the statements one by one with their own params"
            )
        result: Relation | None = None
        units: list[tuple[str, set[str] | None]] = [
            (piece.query, set(piece.named_parameters)) for piece in pieces
        ] or [(text, None)]  # None: DuckDB cannot say which parameters it has
        ran: list[str] = []  # the earlier statements that changed something: they stay
        for index, (query, expected) in enumerate(units):
            try:
                try:
                    with self.catalog.fileio.statement():  # an object store lists a folder once
                        result = self._statement(query, params, expected, lookup)
                except duckdb.Error as err:
                    raise self._engine.translate(err) from err
                except sqlglot.errors.SqlglotError as err:
                    raise from_sqlglot(err) from err
            except PaimonSqlError as err:
                _say_what_stays(err, index, len(units), ran)
                raise
            if pieces and pieces[index].type not in _READS:
                ran.append(f"statement {index + 1} ({_summary(query)})")
        assert result is not None
        return result

    def execute(self, text: str, params: Any = None) -> Cursor:
        """Run SQL with optional parameters, as DuckDB's ``con.execute(query, params)``.

        The statement runs now; the returned `Cursor` reads its rows as DuckDB's does
        (``fetchone()``, ``fetchmany(n)``, ``fetchall()``, ``df()``, ``arrow()``).

        Examples:
            >>> session = connect(warehouse)
            >>> session.execute("INSERT INTO db.t VALUES (?, ?)", [5, "e"]).fetchall()
            [(1,)]
            >>> session.execute("SELECT name FROM db.t WHERE id = $id", {"id": 5}).fetchone()
            ('e',)
        """
        lookup = _caller_variables()
        token = _LOOKUP.set(lookup or _NOTHING)
        try:
            return Cursor(self.sql(text, params))
        finally:
            _LOOKUP.reset(token)

    def executemany(self, text: str, params: Any) -> Cursor:
        """Run one statement once per parameter set, as DuckDB's ``con.executemany``.

        ``INSERT INTO <Paimon table> … VALUES (?, …)`` writes every row in one statement (one
        snapshot); any other statement runs once per parameter set, each its own commit.

        Examples:
            >>> session = connect(warehouse)
            >>> rows = [(8, "h"), (9, "i")]
            >>> session.executemany("INSERT INTO db.t VALUES (?, ?)", rows).fetchall()
            [(2,)]
            >>> session.table("db.t").snapshot_ids()
            [1, 2, 3]
        """
        lookup = _caller_variables()
        token = _LOOKUP.set(lookup or _NOTHING)
        try:
            sets = list(params)
            batched = self._batched_values(text, sets)
            if batched is not None:
                return Cursor(self.sql(batched))
            result = None
            for values in sets:
                result = self.sql(text, values)
            if result is None:
                raise ArgumentError("executemany needs at least one parameter set")
            return Cursor(result)
        finally:
            _LOOKUP.reset(token)

    def _batched_values(self, text: str, sets: list[Any]) -> str | None:
        """``INSERT … VALUES (?, …)`` into a Paimon table with every set bound: one statement."""
        statement = _parse(text)
        if not sets or not isinstance(statement, exp.Insert) or not self._rewritten(statement):
            return None
        values = statement.expression
        if not isinstance(values, exp.Values) or len(values.expressions) != 1:
            return None
        try:
            pieces = self.con.extract_statements(text)
        except duckdb.Error:
            return None
        expected = set(pieces[0].named_parameters) if len(pieces) == 1 else set()
        rows = [bind_parameters(values.expressions[0].copy(), v, expected) for v in sets]
        values.set("expressions", rows)
        return statement.sql("duckdb")

    def write(self, table: str | Identifier, data: Any, *, mode: str = "append") -> int:
        """Write a pandas or polars DataFrame or an Arrow table into a Paimon table; the row count.

        Columns are matched by name (as ``INSERT … BY NAME``; a column the data lacks is NULL, one
        the table lacks is an error). `mode` ``"append"`` inserts (a primary-key table upserts),
        ``"overwrite"`` replaces the table (a partitioned table: the partitions the data writes,
        as ``INSERT OVERWRITE``). One snapshot, or none when an error occurs.

        Raises:
            ArgumentError: for an unknown `mode` or data DuckDB cannot scan.

        Examples:
            >>> import pyarrow as pa
            >>> session = connect(warehouse)
            >>> session.write("db.t", pa.table({"name": ["w"], "id": [7]}))
            1
            >>> session.sql("SELECT * FROM db.t WHERE id = 7").fetchall()
            [(7, 'w')]
        """
        if mode not in ("append", "overwrite"):
            raise ArgumentError(f"mode must be 'append' or 'overwrite', not {mode!r}")
        if not scannable(data):
            raise ArgumentError(
                f"cannot write a {type(data).__name__}: pass a pandas or polars DataFrame or an "
                "Arrow table, record batch, reader or dataset"
            )
        # the warehouse's spelling of a name matched as DuckDB matches it; TableNotFoundError
        ident = Identifier.parse(self.table(_identifier(table)).name)
        hidden = self._engine.register_arrow(data, "the data")
        insert = exp.Insert(
            this=table_node(ident.database, ident.table),
            expression=exp.select(exp.Star()).from_(table_node(hidden)),
            overwrite=mode == "overwrite",
            by_name=True,
        )
        try:
            refuse_in_transaction(self, "INSERT", ident)
            result = dml.insert(self, ident, insert)
        except duckdb.Error as err:
            raise self._engine.translate(err) from err
        finally:
            self._engine.release([hidden])
        ((count,),) = result.fetchall()
        return int(count)

    def _statement(
        self,
        text: str,
        params: Any = None,
        expected: set[str] | None = None,
        lookup: Callable[[str], object | None] | None = None,
    ) -> Relation:
        native = None  # DuckDB binds the parameters itself when nothing else rewrites the text
        if expected is None:  # a statement DuckDB cannot parse (INSERT OVERWRITE …): sqlglot's
            parsed = _parse(text) if params is not None else None
            expected = parameter_names(parsed) if parsed is not None else set()
        if params is not None and not expected and isinstance(params, (list, tuple, dict)):
            if params:
                bind_parameters(exp.select("1"), params, set())  # the count error
            params = None  # no parameters and no values: the statement as it is
        parsed = None  # `text` as parsed by `_prepare`, when it left the text as it was
        if params is not None or lookup is not None:
            prepared, parsed = self._prepare(text, params, expected or set(), lookup)
            if prepared is None:
                native = text
            else:
                text = prepared
        with quiet_sqlglot():
            handled = dispatch_text(self, text)
        if handled is not None:
            return handled
        statement = parsed if parsed is not None else _parse(text)
        if statement is None:
            rewritten = unparsed_write(text)
            if rewritten is not None:
                return self._statement(rewritten, params, expected, lookup)
            return self._plain(text, native, params)
        refuse_misplaced_hint(statement, text)
        with quiet_sqlglot():
            handled = dispatch(self, statement)
        if handled is not None:
            return handled
        # A view outlives this statement: it must re-plan on every read, so it gets streaming
        # sources.
        view = (
            isinstance(statement, exp.Create)
            and str(statement.args.get("kind", "")).upper() == "VIEW"
        )
        # the inlined scans' file lists, as parameters where DuckDB takes them
        files: dict[str, Any] | None = {} if _parameterizable(statement) else None
        used: list[object] = []  # the statement is only rendered: kept scans are not copied
        if self._binder.bind(statement, inline=not view, params=files, used=used):
            return self._engine.run(self._binder.render(text, statement, used), files)
        result = self._plain(text, native, params)
        if _changes_settings(statement):
            self._engine.mirror_settings()
        return result

    def _plain(self, text: str, native: str | None, params: Any) -> Relation:
        """A statement DuckDB runs as it is: the user's text and parameters when they were kept."""
        if native is not None and params is not None:
            return self._engine.relation(lambda con: con.sql(native, params=params))
        try:
            return self._engine.run(text)
        except PaimonSqlError as err:
            if "Can only merge into base tables" in str(err):
                raise UnsupportedFeatureError(
                    "this MERGE INTO a Paimon table is not supported (paimon-sql runs WHEN … THEN "
                    "UPDATE, DELETE, INSERT and DO NOTHING; not THEN ERROR): write the "
                    "condition as a check before the MERGE"
                ) from err
            raise

    def _prepare(
        self,
        text: str,
        params: Any,
        expected: set[str],
        lookup: Callable[[str], object | None] | None,
    ) -> tuple[str | None, exp.Expression | None]:
        """`text` with parameters bound and the caller's variables replaced (None: unchanged).

        With the parsed statement when the text is unchanged (not parsed twice), else None.
        """
        statement = _parse(text)
        if statement is None:
            return None, None  # DuckDB binds the parameters (and reports what is wrong)
        replaced = lookup is not None and self._binder.replace_variables(statement, lookup)
        if params is None:
            return (statement.sql("duckdb"), None) if replaced else (None, statement)
        if not replaced and not self._rewritten(statement):
            return None, statement
        bind_parameters(statement, params, expected)
        return statement.sql("duckdb"), None

    def _rewritten(self, statement: exp.Expression) -> bool:
        """Whether paimon-sql (not DuckDB alone) runs `statement`: it names a Paimon table."""
        if isinstance(statement, exp.Command):
            return True
        for node in statement.find_all(exp.Table):
            if node.db and (self.catalog.has_database(node.db) or node.db == "sys"):
                return True
            current = None if node.db else current_database(self)
            if current is not None and node.name in self.catalog.tables(current):
                return True
        return False

    def relation(self, make: Callable[[duckdb.DuckDBPyConnection], Any]) -> Relation:
        """A `Relation` from a function making a DuckDB relation on this session's connection.

        Examples:
            >>> session = connect(warehouse)
            >>> session.relation(lambda con: con.sql('SELECT max(id) FROM "db"."t"')).fetchall()
            [(2,)]
        """
        return self._engine.relation(make)

    def explain(self, query: str) -> list[tuple[str, str, str]] | None:
        """The EXPLAIN rows (scope, property, value) of a query; None when it reads no Paimon table.

        Examples:
            >>> session = connect(warehouse)
            >>> rows = session.explain("SELECT * FROM db.t WHERE id = 1")
            >>> [value for scope, key, value in rows if key in ("reader", "snapshot", "splits")]
            ['inlined SQL', '2 (APPEND)', '1']
            >>> session.explain("SELECT 1") is None
            True
        """
        statement = _parse(query)
        return None if statement is None else self._binder.explain(statement)

    def bind(self, expression: exp.Expression) -> None:
        """Plan the Paimon tables an expression (a DML source query) reads, in place.

        Examples:
            >>> import sqlglot
            >>> session = connect(warehouse)
            >>> query = sqlglot.parse_one("SELECT count(*) FROM db.t", read="duckdb")
            >>> session.bind(query)
            >>> session.con.sql(query.sql("duckdb")).fetchall()
            [(2,)]
        """
        self._binder.bind(expression)

    def changed(self, table: Table) -> None:
        """After a write: views re-bind when the schema changed (the snapshot is read per query).

        Examples:
            >>> session = connect(warehouse)
            >>> session.changed(session.table("db.t"))
            >>> session.con.sql('SELECT count(*) FROM "db"."t"').fetchall()
            [(2,)]
        """
        self._engine.changed(table)

    def refresh_table(self, ident: Identifier) -> None:
        """(Re)expose a table as a view after DDL.

        Examples:
            >>> session = connect(warehouse)
            >>> _ = connect(warehouse).sql("CREATE TABLE db.u (id INT)")
            >>> session.refresh_table(paimon_sql.Identifier("db", "u"))
            >>> session.con.sql('SELECT count(*) FROM "db"."u"').fetchall()
            [(0,)]
        """
        self._engine.reexpose(ident)

    def forget(self, ident: Identifier) -> None:
        """Drop a table's view after DROP / RENAME.

        Examples:
            >>> session = connect(warehouse)
            >>> session.forget(paimon_sql.Identifier("db", "t"))
            >>> session.con.sql(
            ...     "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'db'"
            ... ).fetchall()
            [(0,)]
        """
        self._engine.forget(ident)

    def forget_database(self, database: str) -> None:
        """Drop the DuckDB schema of a dropped database (and the views in it).

        Examples:
            >>> session = connect(warehouse)
            >>> session.forget_database("db")
            >>> session.con.sql(
            ...     "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'db'"
            ... ).fetchall()
            [(0,)]
        """
        self._engine.forget_database(database)

    def last_plan(self, name: str) -> ScanPlan | None:
        """The plan of the latest `sql` scan of table `name` (``db.table``), for EXPLAIN and tests.

        Examples:
            >>> session = connect(warehouse)
            >>> session.last_plan("db.t") is None
            True
            >>> _ = session.sql("SELECT * FROM db.t WHERE id = 1").fetchall()
            >>> plan = session.last_plan("db.t")
            >>> plan.snapshot.id, len(plan.splits)
            (2, 1)
        """
        return self._engine.last_plan(name)

    def scan(
        self,
        identifier: str | Identifier,
        *,
        snapshot: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
    ) -> Relation:
        """A relation over the table at a snapshot id, tag or time (default: the latest).

        Args:
            identifier: the table, ``db.table``.
            snapshot: a snapshot id.
            tag: a tag name.
            timestamp_ms: epoch milliseconds: the newest snapshot committed at or before it.

        Raises:
            ArgumentError: when more than one of `snapshot`, `tag` and `timestamp_ms` is given.
            SnapshotNotFoundError: when the snapshot or tag does not exist.

        Examples:
            >>> session = connect(warehouse)
            >>> session.scan("db.t", tag="v1").order("id").fetchall()
            [(1, 'a'), (2, 'b')]
            >>> session.scan("db.t").order("id").fetchall()
            [(1, 'a'), (2, 'B')]
        """
        _expect(snapshot, numbers.Integral, "snapshot", "a snapshot id (an int)")
        _expect(tag, str, "tag", "a tag name (a str)")
        _expect(timestamp_ms, numbers.Integral, "timestamp_ms", "epoch milliseconds (an int)")
        travel = TimeTravel(snapshot_id=snapshot, tag=tag, timestamp_ms=timestamp_ms)
        return self._binder.scan(self.table(identifier), travel)

    def __enter__(self) -> Session:
        """The session itself: ``with connect(...) as session:`` closes it at the block's end.

        Examples:
            >>> with connect(warehouse) as session:
            ...     session.sql('SELECT count(*) FROM "db"."t"').fetchall()
            [(2,)]
        """
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the session (`close`), whether the block raised or not."""
        self.close()

    def close(self) -> None:
        """Close the session's DuckDB connections.

        A session made by `paimon_sql.install` on a caller's connection leaves that connection
        open and drops only the views of the warehouse's tables from it.

        Examples:
            >>> session = connect(warehouse)
            >>> session.close()
            >>> session.sql("SELECT 1")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.ExecutionError: Connection Error: Connection has already been closed
        """
        self._engine.close()


#: The variables a statement may read (`Session.execute` passes its caller's to `Session.sql`).
_LOOKUP: contextvars.ContextVar[Callable[[str], object | None] | None] = contextvars.ContextVar(
    "paimon_sql_lookup", default=None
)
_NOTHING: Callable[[str], object | None] = lambda _name: None  # noqa: E731 - a constant
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Cursor:
    """The rows of a statement run by `Session.execute`, read as from DuckDB's cursor.

    Examples:
        >>> cursor = connect(warehouse).execute("SELECT id FROM db.t ORDER BY id")
        >>> cursor.description[0][0], cursor.fetchone(), cursor.fetchall(), cursor.fetchone()
        ('id', (1,), [(2,)], None)
    """

    def __init__(self, relation: Relation) -> None:
        """Start reading `relation` (its errors are already paimon-sql errors)."""
        self._relation = relation
        self.description = relation.description
        self._reader: pa.RecordBatchReader = relation.to_arrow_reader()
        self._schema = self._reader.schema
        self._rows: list[tuple[Any, ...]] = []

    def _next_batch(self) -> bool:
        try:
            batch = self._reader.read_next_batch()
        except StopIteration:
            return False
        except duckdb.Error as err:
            raise self._relation._log.translate(err) from err
        columns = [c.to_pylist() for c in batch.columns]
        self._rows.extend(zip(*columns, strict=True))
        return True

    def fetchone(self) -> tuple[Any, ...] | None:
        """The next row, or None after the last."""
        while not self._rows:
            if not self._next_batch():
                return None
        return self._rows.pop(0)

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        """Up to `size` next rows."""
        while len(self._rows) < size and self._next_batch():
            pass
        taken, self._rows = self._rows[:size], self._rows[size:]
        return taken

    def fetchall(self) -> list[tuple[Any, ...]]:
        """Every remaining row."""
        while self._next_batch():
            pass
        taken, self._rows = self._rows, []
        return taken

    def arrow(self) -> pa.Table:
        """The remaining rows as an Arrow table."""
        rows = self.fetchall()
        columns: list[Any] = list(zip(*rows, strict=True)) if rows else [()] * len(self._schema)
        return pa.Table.from_arrays(
            [pa.array(list(c), f.type) for c, f in zip(columns, self._schema, strict=True)],
            schema=self._schema,
        )

    fetch_arrow_table = arrow

    def df(self) -> Any:
        """The remaining rows as a pandas DataFrame."""
        return self.arrow().to_pandas()

    fetchdf = df


def _expect(value: object, kind: type, name: str, accepted: str) -> None:
    """`ArgumentTypeError` unless `value` is None or a `kind` (a bool is no integer).

    ``snapshot="1"`` would be read as a file name, ``True`` as snapshot 1: both are refused here.
    """
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return
    raise ArgumentTypeError(f"{name} must be {accepted}, got {type(value).__name__} {value!r}")


def _identifier(value: str | Identifier) -> str | Identifier:
    """`value` if it names a table: ``"db.table"`` or an `Identifier`."""
    if not isinstance(value, (str, Identifier)):
        raise ArgumentTypeError(
            "a table is named by a str 'db.table' or a paimon_sql.Identifier, got "
            f"{type(value).__name__} {value!r}"
        )
    return value


def _caller_variables() -> Callable[[str], object | None] | None:
    """A lookup of the variables of the first caller outside paimon-sql.

    DuckDB's replacement scan reads the frame that calls it: here that is paimon-sql's, not the
    user's. Its locals, then its globals, as DuckDB. None when that frame holds nothing DuckDB
    could scan (the statement is then not searched for variables at all).
    """
    given = _LOOKUP.get()
    if given is not None:
        return given
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return None
    local_vars, global_vars = frame.f_locals, frame.f_globals
    del frame
    if not any(scannable(v) for scope in (local_vars, global_vars) for v in list(scope.values())):
        return None

    def lookup(name: str) -> object | None:
        for scope in (local_vars, global_vars):
            if name in scope:
                found: object = scope[name]
                return found
        return None

    return lookup


def _spaced_placeholders(text: str) -> str:
    """`text` with a space between a ``?`` parameter and a ``::`` cast after it.

    sqlglot's tokenizer reads ``?::`` as one operator, so ``?::DATE`` would not parse; DuckDB's
    tokenizer tells which ``?`` are parameters (not inside strings or comments).

    >>> _spaced_placeholders("SELECT ?::DATE, '?::x'")
    "SELECT ? ::DATE, '?::x'"
    """
    if "?::" not in text:
        return text
    try:
        starts = [pos for pos, _ in duckdb.tokenize(text)]
    except duckdb.Error:
        return text
    out = []
    last = 0
    for pos in starts:
        if text.startswith("?::", pos):
            out += [text[last : pos + 1], " "]
            last = pos + 1
    return "".join(out) + text[last:]


#: The statement types that change nothing (`Session.sql` names the others after a failure).
_READS = frozenset(
    {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN, duckdb.StatementType.PRAGMA}
)


def _summary(query: str, limit: int = 60) -> str:
    """The start of a statement, on one line, for messages.

    >>> _summary("  INSERT INTO db.t  VALUES (1, 'a');")
    "INSERT INTO db.t VALUES (1, 'a')"
    """
    text = " ".join(query.split()).rstrip(";").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _say_what_stays(err: PaimonSqlError, index: int, total: int, ran: list[str]) -> None:
    """Prefix `err`'s message with which statement of a script failed and which earlier ones ran.

    Each statement commits on its own: what the earlier ones wrote stays. The error keeps its
    type; nothing is added to the error of a single statement.
    """
    if total < 2:
        return
    stays = f"; {', '.join(ran)} had run and committed" if ran else ""
    err.args = (f"statement {index + 1} of {total} failed{stays}: {err}", *err.args[1:])


def _parse(text: str) -> exp.Expression | None:
    """One statement as a sqlglot AST (DuckDB dialect, else Spark's).

    Or None when neither parses it. A repeated query is parsed once (about 1 ms for a short
    SELECT): from its second run its AST is kept, and each run gets a fresh copy (the caller may
    rewrite it). A statement seen once is not kept: most are never run again (an ``INSERT …
    VALUES`` of new rows), and keeping them would hold their text and AST and cost a copy.

    >>> first = _parse("SELECT 1 AS x")
    >>> first.set("expressions", [])
    >>> second = _parse("SELECT 1 AS x")
    >>> second.set("expressions", [])
    >>> _parse("SELECT 1 AS x").sql("duckdb")
    'SELECT 1 AS x'
    """
    if text in _PARSED:
        parsed = _PARSED[text]
        return None if parsed is None else parsed.copy()
    parsed = _parse_text(text)
    key = hash(text)
    with _PARSED_LOCK:  # sessions may run on several threads
        if key not in _SEEN:
            if len(_SEEN) >= _SEEN_MAX:
                del _SEEN[next(iter(_SEEN))]
            _SEEN[key] = None
            return parsed  # the only reference: nothing to copy
        if len(_PARSED) >= _PARSED_MAX:
            del _PARSED[next(iter(_PARSED))]  # the oldest: a plain FIFO is enough here
        _PARSED[text] = parsed
    return None if parsed is None else parsed.copy()


#: `_parse`'s statements by text, from their second run (at most `_PARSED_MAX`, the oldest dropped
#: first).
_PARSED: dict[str, exp.Expression | None] = {}
_PARSED_MAX = 256
#: The hashes of the texts `_parse` has seen once (at most `_SEEN_MAX`, the oldest dropped first).
_SEEN: dict[int, None] = {}
_SEEN_MAX = 4096
_PARSED_LOCK = threading.Lock()


def _parse_text(text: str) -> exp.Expression | None:
    text = _spaced_placeholders(text)
    for dialect in ("duckdb", "spark"):
        try:
            with quiet_sqlglot():
                statement = sqlglot.parse_one(text, read=dialect)
        except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
            continue  # neither dialect reads it: DuckDB runs the text and reports what is wrong
        if statement is not None:
            return statement
    return None


def connect(
    warehouse: str | os.PathLike[str],
    *,
    connection: duckdb.DuckDBPyConnection | None = None,
    filesystem: Any = None,
    create: bool = False,
    storage_options: dict[str, Any] | None = None,
) -> Session:
    """Open a warehouse in DuckDB: every Paimon table becomes ``"db"."table"``.

    The warehouse is a folder or an ``s3://bucket/path`` URI (``gs://`` and ``az://`` are refused;
    `create=True` makes the folder when absent; never a bucket).

    Object store credentials, region and endpoint come from `storage_options` (obstore's key names:
    ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_endpoint``, ``aws_allow_http`` ...),
    else the standard ``AWS_*`` environment variables, else the AWS profile (``AWS_PROFILE``).

    Args:
        warehouse: the warehouse folder or URI.
        connection: the DuckDB connection to expose the tables in (default: a new in-memory one).
        filesystem: a pyarrow or fsspec filesystem to reach `warehouse` through.
        create: make the warehouse folder when absent.
        storage_options: object store settings (see above).

    Returns:
        The session.

    Raises:
        WarehouseNotFoundError: when the warehouse does not exist and not `create`.

    Examples:
        >>> import os
        >>> session = connect(os.path.join(tmp_warehouse, "new"), create=True)
        >>> session.sql("CREATE DATABASE db").fetchall()
        [('created database db',)]
        >>> session.sql(
        ...     "CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
        ... ).fetchall()
        [('created table db.t',)]
        >>> session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')").fetchall()
        [(2,)]
        >>> session.sql("INSERT INTO db.t VALUES (2, 'B')").fetchall()
        [(1,)]
        >>> session.sql("SELECT * FROM db.t ORDER BY id").fetchall()
        [(1, 'a'), (2, 'B')]
    """
    return Session(
        warehouse,
        connection=connection,
        filesystem=filesystem,
        create=create,
        storage_options=storage_options,
    )


__all__ = ["Cursor", "Session", "SqlError", "connect"]
