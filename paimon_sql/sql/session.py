"""`Session`: a DuckDB connection where every Paimon table of a warehouse is a view ``"db"."table"``.

>>> import tempfile
>>> s = connect(tempfile.mkdtemp())
>>> s.sql("SELECT 1 + 1").fetchall()
[(2,)]
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import os
import tempfile
import threading
import weakref
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp

from paimon_sql._sqlnodes import (
    create_schema,
    create_view,
    drop,
    drop_schema,
    select_all,
    set_setting,
    table_node,
)
from paimon_sql.catalog import Catalog, Identifier, Table
from paimon_sql.errors import DatabaseNotFoundError, PaimonSqlError, SqlError
from paimon_sql.sql._damage import damaged_view
from paimon_sql.sql._errors import from_sqlglot
from paimon_sql.sql._reader import SplitReader
from paimon_sql.plan.explain import explain_rows
from paimon_sql.plan.scan import ScanPlan, plan_scan
from paimon_sql.sql._pushdown import table_predicate
from paimon_sql.sql._rewrite import TimeTravel, select_travel, strip_travel, travel_of
from paimon_sql.sql._source import PaimonSource, register
from paimon_sql.sql.relation import ErrorLog, Relation
from paimon_sql.sql.system_tables import catalog_table, split_system_name, system_table
from paimon_sql.sql.statements import dispatch, dispatch_text
from paimon_sql.types import duckdb_type_node

if TYPE_CHECKING:
    from paimon_sql.format.snapshot import Snapshot

_counter = itertools.count()
_open_sessions: weakref.WeakSet[Session] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # DuckDB connections still open at interpreter exit make nanobind print leak reports.
    for session in list(_open_sessions):
        session.close()


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
        self.catalog = Catalog(
            warehouse, filesystem, storage_options=storage_options, create=create and filesystem is None
        )
        self.catalog.databases()  # fail early, naming the path, when the warehouse is missing
        self.con = connection if connection is not None else _private_duckdb()
        self._engine = _private_duckdb()
        self._reader = SplitReader(self._engine)
        self._arrow_schemas: dict[tuple[str, int], pa.Schema] = {}
        self._views: dict[Identifier, tuple[PaimonSource, int]] = {}
        self._tables: dict[Identifier, Table] = {}
        self._lock = threading.Lock()
        self._log = ErrorLog()
        self._keep: list[str] = []  # deletion-vector tables the inlined queries read
        self._last: dict[str, ScanPlan | PaimonSource] = {}
        _open_sessions.add(self)
        self.refresh()

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
        ident = Identifier.parse(identifier) if isinstance(identifier, str) else identifier
        table = self._tables.get(ident)
        if table is None:
            table = self.catalog.load_table(ident)
            self._tables[ident] = table
        return table

    def refresh(self) -> None:
        """Expose every table of the warehouse as a view (new tables, changed schemas).

        A table whose metadata is damaged does not stop the others: its view raises the error naming the
        damaged file when it is read (`paimon_sql.sql._damage`), and `sql` reports it as the paimon-sql error.

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
        for database in self.catalog.databases():
            for name in self.catalog.tables(database):
                ident = Identifier(database, name)
                try:
                    self._ensure_view(ident)
                except PaimonSqlError as err:
                    damaged_view(self.con, ident, err)
                except duckdb.Error as err:  # the source's error, wrapped by DuckDB while binding
                    original = self._log.original(err)
                    if original is None:
                        raise
                    damaged_view(self.con, ident, original)

    def _arrow_schema(self, table: Table, schema_id: int) -> pa.Schema:
        key = (table.path, schema_id)
        schema = self._arrow_schemas.get(key)
        if schema is None:
            fields = table.schema(schema_id).fields
            select = exp.select(
                *[
                    exp.alias_(
                        exp.Cast(this=exp.null(), to=duckdb_type_node(f.type)),
                        f.name,
                        quoted=True,
                    )
                    for f in fields
                ]
            )
            cursor = self._engine.cursor()
            try:
                schema = cursor.sql(select.sql("duckdb")).arrow().schema
            finally:
                cursor.close()
            self._arrow_schemas[key] = schema
        return schema

    def source(
        self, table: Table, snapshot: Snapshot | None = None, *, pinned: bool = False, first_rows: bool = False
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
        select = (lambda: snapshot) if pinned else table.latest_snapshot
        return PaimonSource(
            table,
            self._reader,
            lambda sid: self._arrow_schema(table, sid),
            select,
            self._log,
            pinned=pinned,
            first_rows=first_rows,
        )

    def _ensure_view(self, ident: Identifier) -> None:
        table = self.table(ident)
        schema_id = table.latest_schema.id
        with self._lock:
            known = self._views.get(ident)
            if known is not None and known[1] == schema_id:
                return
            source = self.source(table)
            hidden = f"__paimon_{next(_counter)}"
            register(self.con, hidden, source)
            self._log.name(hidden, str(ident))
            self.con.execute(create_schema(ident.database).sql("duckdb"))
            target = table_node(ident.database, ident.table)
            view = create_view(target, select_all(table_node(hidden)))
            self.con.execute(view.sql("duckdb"))
            self._views[ident] = (source, schema_id)

    # --- queries ----------------------------------------------------------------------------------

    def sql(self, text: str) -> Relation:
        """Run SQL; Paimon tables are ``"db"."table"``. Returns a DuckDB relation (`Relation` proxy).

        Several statements run in order; the relation of the last one is returned. Every failure is a
        `paimon_sql.errors` error: DuckDB's become `ExecutionError`, sqlglot's `SqlError`.

        Examples:
            >>> session = connect(warehouse)
            >>> session.sql("INSERT INTO db.t VALUES (3, 'c')").fetchall()
            [(1,)]
            >>> session.sql("SELECT name FROM db.t WHERE id >= 2 ORDER BY id").fetchall()
            [('B',), ('c',)]
            >>> session.sql('SELECT snapshot_id, commit_kind FROM "db"."t$snapshots"').fetchall()
            [(1, 'APPEND'), (2, 'APPEND'), (3, 'APPEND')]
            >>> session.sql("SELECT * FROM db.missing")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.TableNotFoundError: table db.missing not found ...
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
                raise self._log.translate(err) from err
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
            return self._wrap(lambda: self.con.sql(text))
        handled = dispatch(self, statement)
        if handled is not None:
            return handled
        # A view outlives this statement: it must re-plan on every read, so it gets streaming sources.
        view = isinstance(statement, exp.Create) and str(statement.args.get("kind", "")).upper() == "VIEW"
        if self._rewrite(statement, inline=not view):
            text = statement.sql("duckdb")
        return self._wrap(lambda: self.con.sql(text))

    def _wrap(self, make: Any) -> Relation:
        try:
            return Relation(make(), self._log)
        except duckdb.Error as err:
            raise self._log.translate(err) from err

    def relation(self, make: Any) -> Relation:
        """A `Relation` from a function making a DuckDB relation on this session's connection.

        Examples:
            >>> session = connect(warehouse)
            >>> session.relation(lambda con: con.sql('SELECT max(id) FROM "db"."t"')).fetchall()
            [(2,)]
        """
        return self._wrap(lambda: make(self.con))

    def _rewrite(self, statement: exp.Expression, *, inline: bool = True) -> bool:
        """Replace each Paimon table a statement names by its planned scan.

        Local Parquet tables become the merge SQL itself, inlined, so one DuckDB engine runs the whole query
        (filters pushed into the file scans, aggregates next to them); other tables (ORC, Avro, remote) become
        a streaming source. The statement's WHERE prunes partitions, buckets and files while planning.
        """
        changed = False
        for node in list(statement.find_all(exp.Table)):
            if not node.db:
                continue
            if "$" in node.name or node.db == "sys":
                changed |= self._system(node)
                continue
            if not self.catalog.has_database(node.db):
                continue  # not a Paimon database: DuckDB resolves (or reports) it
            ident = Identifier(node.db, node.name)
            try:
                table = self.table(ident)
            except DatabaseNotFoundError:
                continue  # not a Paimon database: DuckDB resolves (or reports) it
            travel = travel_of(node)
            if travel is None:
                snapshot, pinned = table.latest_snapshot(), False
            else:
                snapshot, pinned = select_travel(table, travel), True
            early = _early_stop(node)
            self._replace(node, table, snapshot, pinned, inline and not early, first_rows=early)
            changed = True
        return changed

    #: Registered helper tables (DV masks, system tables) kept for relations not yet consumed.
    KEEP_REGISTERED = 2048

    def _hold(self, names: list[str]) -> None:
        self._keep.extend(names)
        while len(self._keep) > self.KEEP_REGISTERED:
            self.con.unregister(self._keep.pop(0))

    def _system(self, node: exp.Table) -> bool:
        """``"db"."t$snapshots"`` … and ``sys.tables`` / ``sys.partitions``: metadata as Arrow tables."""
        if node.db == "sys" and "$" not in node.name:
            if "sys" in self.catalog.databases():
                return False  # a real database called sys wins
            content = catalog_table(self.catalog, node.name)
        else:
            base, name = split_system_name(node.name)
            if not self.catalog.has_database(node.db):
                return False
            try:
                table = self.table(Identifier(node.db, base))
            except DatabaseNotFoundError:
                return False
            travel = travel_of(node)
            snapshot = None
            if travel is not None:
                snapshot = select_travel(table, travel)
            assert name is not None
            content = system_table(table, name, snapshot)
        hidden = f"__paimon_sys_{next(_counter)}"
        self.con.register(hidden, content)
        self._log.name(hidden, f"{node.db}.{node.name}")
        self._hold([hidden])
        alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name, quoted=True))
        strip_travel(node)
        node.replace(exp.Table(this=exp.to_identifier(hidden, quoted=True), alias=alias))
        return True

    def _replace(
        self,
        node: exp.Table,
        table: Table,
        snapshot: Snapshot | None,
        pinned: bool,
        inline: bool,
        *,
        first_rows: bool = False,
    ) -> None:
        schema = table.schema(snapshot.schema_id) if pinned and snapshot is not None else table.latest_schema
        alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name, quoted=True))
        predicate = table_predicate(node, set(schema.field_names))
        plan = plan_scan(table, snapshot, predicate, schema)
        inlined = None
        if inline and not plan.options.get("scan.fallback-branch"):
            inlined = self._reader.inline(self.con, plan, predicate)
        if inlined is not None:
            query, registered = inlined
            self._hold(registered)
            for name in registered:
                self._log.name(name, table.name)
            self._last[table.name] = plan
            self._log.reading(plan)
            node.replace(exp.Subquery(this=query, alias=alias))
            return
        hidden = f"__paimon_{next(_counter)}"
        source = self.source(table, snapshot, pinned=pinned, first_rows=first_rows)
        register(self.con, hidden, source)
        self._log.name(hidden, table.name)
        self._last[table.name] = source
        strip_travel(node)
        node.replace(exp.Table(this=exp.to_identifier(hidden, quoted=True), alias=alias))

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
        if statement is None:
            return None
        before = dict(self._last)
        names = [f"{t.db}.{t.name}" for t in statement.find_all(exp.Table) if t.db]
        if not self._rewrite(statement):
            return None
        rows: list[tuple[str, str, str]] = []
        for name in names:
            last = self._last.get(name)
            if last is None or last is before.get(name):
                continue
            plan = last if isinstance(last, ScanPlan) else None
            if plan is None:
                assert isinstance(last, PaimonSource)
                plan = plan_scan(last.table, last.snapshot())
                rows.append((name, "reader", "streamed (ORC/Avro/remote files)"))
            else:
                rows.append((name, "reader", "inlined SQL"))
            rows.extend((name, key, value) for key, value in explain_rows(plan))
        # sqlglot has no EXPLAIN node for DuckDB: a constant keyword before the rewritten AST.
        physical = self.con.sql("EXPLAIN " + statement.sql("duckdb")).fetchall()
        rows.extend(("duckdb", str(kind), str(text)) for kind, text in physical)
        return rows

    def refresh_table(self, ident: Identifier) -> None:
        """(Re)expose a table as a view after DDL.

        Examples:
            >>> session = connect(warehouse)
            >>> _ = connect(warehouse).sql("CREATE TABLE db.u (id INT)")
            >>> session.refresh_table(paimon_sql.Identifier("db", "u"))
            >>> session.con.sql('SELECT count(*) FROM "db"."u"').fetchall()
            [(0,)]
        """
        self._tables.pop(ident, None)
        self._views.pop(ident, None)
        self._ensure_view(ident)

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
        self._tables.pop(ident, None)
        self._views.pop(ident, None)
        self.con.execute(drop("VIEW", table_node(ident.database, ident.table)).sql("duckdb"))

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
        for ident in [i for i in self._views if i.database == database]:
            self.forget(ident)
        self.con.execute(drop_schema(database).sql("duckdb"))

    def rewrite_sources(self, expression: exp.Expression) -> None:
        """Plan the Paimon tables an expression (a DML source query) reads, in place.

        Examples:
            >>> import sqlglot
            >>> session = connect(warehouse)
            >>> query = sqlglot.parse_one("SELECT count(*) FROM db.t", read="duckdb")
            >>> session.rewrite_sources(query)
            >>> session.con.sql(query.sql("duckdb")).fetchall()
            [(2,)]
        """
        self._rewrite(expression)

    def invalidate(self, table: Table) -> None:
        """After a write: views re-bind when the schema changed (the snapshot is read per query).

        Examples:
            >>> session = connect(warehouse)
            >>> _ = connect(warehouse).sql("ALTER TABLE db.t ADD COLUMN price DOUBLE")
            >>> session.invalidate(session.table("db.t"))
            >>> session.con.sql('SELECT * FROM "db"."t" ORDER BY id').columns
            ['id', 'name', 'price']
        """
        ident = Identifier.parse(table.name)
        self._views.pop(ident, None)
        self._ensure_view(ident)

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
        last = self._last.get(name)
        return last.last_plan if isinstance(last, PaimonSource) else last

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
        table = self.table(identifier)
        travel = TimeTravel(snapshot_id=snapshot, tag=tag, timestamp_ms=timestamp_ms)
        chosen = select_travel(table, travel)
        source = self.source(table, chosen, pinned=True)
        hidden = f"__paimon_{next(_counter)}"
        register(self.con, hidden, source)
        self._log.name(hidden, table.name)
        query = select_all(table_node(hidden)).sql("duckdb")
        return self._wrap(lambda: self.con.sql(query))

    def close(self) -> None:
        """Close both DuckDB connections.

        Examples:
            >>> session = connect(warehouse)
            >>> session.close()
            >>> session.sql("SELECT 1")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.ExecutionError: Connection Error: Connection has already been closed
        """
        self._views.clear()
        self.con.close()
        self._engine.close()
        _open_sessions.discard(self)


def _private_duckdb() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB that spills to the system's temporary folder (DuckDB's own default is
    ``./.tmp`` under the current directory, which a write would litter)."""
    con = duckdb.connect()
    spill = os.path.join(tempfile.gettempdir(), f"paimon-sql-{os.getpid()}")
    con.execute(set_setting("temp_directory", spill).sql("duckdb"))
    return con


def _early_stop(node: exp.Table) -> bool:
    """A plain ``SELECT … FROM t [WHERE …] LIMIT n``: the streaming source stops after the first splits."""
    select = node.parent_select
    if select is None or select.args.get("limit") is None:
        return False
    blockers = ("order", "group", "joins", "distinct", "having", "qualify")
    if any(select.args.get(b) for b in blockers):
        return False
    return not any(select.find_all(exp.AggFunc, exp.Window))


def _parse(text: str) -> exp.Expression | None:
    """One statement as a sqlglot AST (DuckDB dialect, else Spark's), or None when neither parses it."""
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
    """Open a warehouse in DuckDB: every Paimon table becomes ``"db"."table"``.

    The warehouse is a folder or an ``s3://bucket/path`` (``gs://``, ``az://``) URI (`create=True`
    makes the folder when absent; never a bucket).

    Object store credentials, region and endpoint come from `storage_options` (obstore's key names:
    ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_endpoint``, ``aws_allow_http`` ...), else the
    standard ``AWS_*`` environment variables, else the AWS profile (``AWS_PROFILE``).

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


__all__ = ["Session", "SqlError", "connect"]
