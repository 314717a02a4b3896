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
* ``__paimon_<name>`` for each system table ``t$<name>`` and ``__paimon_sys_<name>`` for each
  global ``sys`` table: the table's fixed schema plus hidden ``__paimon_table`` (and
  ``__paimon_snapshot``) columns; ``stream`` builds the content with
  `paimon_sql.sql.system_tables` at each query, so new commits show up on the next call.

A hidden column DuckDB asks to *read* means a routing filter was not pushed down (an argument
that is not a constant): the sources then refuse with an error rather than answer for the wrong
table or snapshot.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
from duckdb._sources import ArrowScanSource
from duckdb._sources.nodes import Binary, Col, Lit, Node, Postfix

from paimon_sql.catalog import Identifier
from paimon_sql.errors import SqlError
from paimon_sql.sql._rewrite import TimeTravel, select_travel
from paimon_sql.sql._source import Untranslatable, to_predicate
from paimon_sql.sql.session import Session
from paimon_sql.sql.system_tables import (
    CATALOG_SCHEMAS,
    SCHEMAS,
    audit_log_schema,
    catalog_table,
    system_table,
)

if TYPE_CHECKING:
    from paimon_sql.catalog import Table
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.sql._source import PaimonSource

#: functions/ beside the package (a source checkout) or inside it (an installed wheel).
_CANDIDATES = (
    Path(__file__).resolve().parents[2] / "functions",
    Path(__file__).resolve().parents[1] / "functions",
)

TABLE, SNAPSHOT, TAG, TIMESTAMP = (
    "__paimon_table",
    "__paimon_snapshot",
    "__paimon_tag",
    "__paimon_timestamp",
)
_HIDDEN_TYPES = {
    TABLE: pa.string(),
    SNAPSHOT: pa.int64(),
    TAG: pa.string(),
    TIMESTAMP: pa.timestamp("us"),
}
#: The system tables whose content depends on a snapshot (``$files`` at snapshot 2 or a tag ...).
PER_SNAPSHOT = ("files", "manifests", "partitions", "buckets", "table_indexes")
#: The data system tables: their columns are the table's, so they route like `paimon_scan`.
DATA_KINDS = ("audit_log", "ro")
SCAN_SOURCE = "__paimon_scan"
SCAN_BIND = "__paimon_scan_bind"


def functions_dir() -> Path:
    """The folder holding the ``*.sql`` function families."""
    for candidate in _CANDIDATES:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("paimon-sql's functions/ folder is missing from this installation")


# --- routing filters ----------------------------------------------------------------------


def _hidden_of(node: Node) -> str | None:
    """The hidden column a routing filter (``col = lit`` / ``col IS NULL``) pins, else None."""
    if isinstance(node, Binary) and node.op == "=" and isinstance(node.left, Col):
        column = node.left
    elif isinstance(node, Postfix) and node.op == "IS NULL" and isinstance(node.operand, Col):
        column = node.operand
    else:
        return None
    name = column.parts[0] if len(column.parts) == 1 else None
    return name if name in _HIDDEN_TYPES else None


def _column_names(node: Node) -> list[str]:
    """The (first parts of the) column names `node` mentions."""
    names: list[str] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, Col) and current.parts:
            names.append(current.parts[0])
        pending.extend(current._children())
    return names


def _split(filters: Sequence[Node]) -> tuple[dict[str, Any], list[Node]]:
    """Routing values (column → constant, None for IS NULL) and the user's own filters."""
    routing: dict[str, Any] = {}
    rest: list[Node] = []
    for node in filters:
        name = _hidden_of(node)
        if name is None:
            rest.append(node)
        elif isinstance(node, Binary):
            assert isinstance(node.right, Lit)
            routing[name] = node.right.value
        else:
            routing[name] = None
    return routing, rest


def _accepts(predicate: Node) -> bool:
    """Routing filters, and the user's filters a `PaimonSource` evaluates exactly."""
    if _hidden_of(predicate) is not None:
        return isinstance(predicate, Postfix) or isinstance(predicate.right, Lit)  # type: ignore[attr-defined]
    names = _column_names(predicate)
    if any(name in _HIDDEN_TYPES for name in names):
        return False
    try:
        to_predicate(predicate, names)
    except Untranslatable:
        return False
    return True


def _not_pushed(function: str) -> SqlError:
    return SqlError(
        f"{function}: its arguments did not reach the source as pushed-down filters; they must be "
        "constants, and DuckDB's optimizer must be on"
    )


def _timestamp_ms(value: datetime.datetime) -> int:
    """A naive TIMESTAMP is local wall-clock time, as Paimon's Java reads ``scan.timestamp``."""
    moment = value.astimezone() if value.tzinfo is None else value
    return int(moment.timestamp() * 1000)


def _identifier(name: str | None, function: str) -> Identifier:
    if name is None:
        raise _not_pushed(function)
    return Identifier.parse(name)


def _select(table: Table, function: str, travel: TimeTravel) -> Snapshot | None:
    """The snapshot `travel` picks, as a session's ``VERSION`` / ``TIMESTAMP AS OF`` does."""
    try:
        return select_travel(table, travel)
    except ValueError as err:  # two travel arguments at once
        raise SqlError(f"{function}: {err}") from err


# --- paimon_scan ----------------------------------------------------------------------------------


class _Request:
    """One `paimon_scan` call: a table and at most one of snapshot, tag, timestamp."""

    def __init__(self, session: Session, routing: dict[str, Any]) -> None:
        self.table = session.table(_identifier(routing.get(TABLE), "paimon_scan"))
        self.snapshot_id: int | None = routing.get(SNAPSHOT)
        self.tag: str | None = routing.get(TAG)
        stamp = routing.get(TIMESTAMP)
        self.timestamp_ms = None if stamp is None else _timestamp_ms(stamp)
        self.session = session

    @property
    def pinned(self) -> bool:
        return any(v is not None for v in (self.snapshot_id, self.tag, self.timestamp_ms))

    def chosen(self) -> Snapshot | None:
        travel = TimeTravel(
            snapshot_id=self.snapshot_id, tag=self.tag, timestamp_ms=self.timestamp_ms
        )
        return _select(self.table, "paimon_scan", travel)

    def source(self) -> PaimonSource:
        """A fresh source: pinned (time travel, the snapshot's schema) or the latest."""
        if self.pinned:
            return self.session.source(self.table, self.chosen(), pinned=True)
        return self.session.source(self.table)


def _with_hidden(schema: pa.Schema, hidden: Sequence[str]) -> pa.Schema:
    for name in hidden:
        schema = schema.append(pa.field(name, _HIDDEN_TYPES[name]))
    return schema


class _ScanRouter(ArrowScanSource):
    """``__paimon_scan``: every table at every snapshot; the arguments come as pushed-down filters.

    The schema depends on the call (the table; the snapshot's schema when time travelling).
    DuckDB binds ``query_table(__paimon_scan_bind(...))`` by folding the UDF and then, on the same
    thread, reading this source's ``__arrow_c_schema__``; `bind` leaves the schema in a
    thread-local for that read. Each ``stream`` call resolves its own table and snapshot from its
    filters, so several calls in one query (two snapshots joined) never share state.
    """

    schema_is_stable = False
    HIDDEN = (TABLE, SNAPSHOT, TAG, TIMESTAMP)

    def __init__(self, session: Session) -> None:
        super().__init__(None)
        self.session = session
        self._bound = threading.local()

    def bind(
        self,
        table: str | None,
        snapshot: int | None,
        tag: str | None,
        timestamp: datetime.datetime | None,
    ) -> str:
        """The UDF ``__paimon_scan_bind``: check the arguments, keep the schema, name the source."""
        routing = {TABLE: table, SNAPSHOT: snapshot, TAG: tag, TIMESTAMP: timestamp}
        request = _Request(self.session, routing)
        self._bound.schema = _with_hidden(request.source().declared_schema(), self.HIDDEN)
        return SCAN_SOURCE

    def __arrow_c_schema__(self) -> object:
        """The schema `bind` resolved on this thread (only the hidden columns before any bind)."""
        schema = getattr(self._bound, "schema", None) or _with_hidden(pa.schema([]), self.HIDDEN)
        return schema.__arrow_c_schema__()

    def accepts(self, predicate: Node) -> bool:
        """Routing filters and the user's translatable filters."""
        return _accepts(predicate)

    def stream(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """Resolve the call from the routing filters, then stream it."""
        routing, rest = _split(filters)
        inner = _Request(self.session, routing).source()
        width = len(inner.declared_schema())
        if columns is not None and any(c >= width for c in columns):
            raise _not_pushed("paimon_scan")
        if columns is None:
            columns = list(range(width))
        return inner.stream(columns, rest)


# --- system tables ------------------------------------------------------------------------


class _SystemSource(ArrowScanSource):
    """``__paimon_<kind>``: the system table ``t$<kind>`` or a ``sys`` table, rebuilt per query."""

    schema_is_stable = True

    def __init__(
        self, session: Session, kind: str, schema: pa.Schema, hidden: Sequence[str]
    ) -> None:
        super().__init__(None)
        self.session = session
        self.kind = kind
        self.hidden = tuple(hidden)
        self.schema = _with_hidden(schema, hidden)
        self.width = len(schema)

    def __arrow_c_schema__(self) -> object:
        """The system table's columns, then the hidden routing columns."""
        return self.schema.__arrow_c_schema__()

    def accepts(self, predicate: Node) -> bool:
        """Only routing filters; DuckDB filters the (small) content itself."""
        name = _hidden_of(predicate)
        return name is not None and name in self.hidden

    def content(self, routing: dict[str, Any]) -> pa.Table:
        """The rows, built now from the table's current metadata."""
        if TABLE not in self.hidden:
            return catalog_table(self.session.catalog, self.kind)
        table = self.session.table(_identifier(routing.get(TABLE), "paimon_" + self.kind))
        snapshot = None
        if routing.get(SNAPSHOT) is not None or routing.get(TAG) is not None:
            travel = TimeTravel(snapshot_id=routing.get(SNAPSHOT), tag=routing.get(TAG))
            snapshot = _select(table, "paimon_" + self.kind, travel)
        return system_table(table, self.kind, snapshot)

    def stream(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """Every declared column; the hidden ones carry the routing values."""
        routing, _ = _split(filters)
        reads_hidden = columns is not None and any(c >= self.width for c in columns)
        if reads_hidden or len(routing) < len(self.hidden):
            raise _not_pushed("paimon_" + self.kind)
        data = _append_hidden(self.content(routing), self.hidden, routing)
        return data.to_reader().__arrow_c_stream__(), False


def _append_hidden(data: pa.Table, hidden: Sequence[str], routing: dict[str, Any]) -> pa.Table:
    """Hidden columns holding the routing values: the accepted routing filters hold on every row."""
    for name in hidden:
        values = pa.array([routing.get(name)] * data.num_rows, _HIDDEN_TYPES[name])
        data = data.append_column(pa.field(name, _HIDDEN_TYPES[name]), values)
    return data


class _DataSystemRouter(ArrowScanSource):
    """``__paimon_audit_log`` / ``__paimon_ro``: the table's columns (``rowkind`` first in the log).

    As for `_ScanRouter`, the schema depends on the table, so ``__paimon_<kind>_bind(table)``
    resolves it while DuckDB binds. The content is `system_table`'s, materialized (as for
    ``"db"."t$audit_log"`` in a session).
    """

    schema_is_stable = False

    def __init__(self, session: Session, kind: str) -> None:
        super().__init__(None)
        self.session = session
        self.kind = kind
        self._bound = threading.local()

    def _columns(self, table: Table) -> pa.Schema:
        schema = audit_log_schema(table)
        return schema if self.kind == "audit_log" else schema.remove(0)

    def bind(self, table: str | None) -> str:
        """The scalar UDF ``__paimon_<kind>_bind``: remember the table's schema, name the source."""
        resolved = self.session.table(_identifier(table, "paimon_" + self.kind))
        self._bound.schema = _with_hidden(self._columns(resolved), (TABLE,))
        return "__paimon_" + self.kind

    def __arrow_c_schema__(self) -> object:
        """The schema `bind` resolved on this thread."""
        schema = getattr(self._bound, "schema", None) or _with_hidden(pa.schema([]), (TABLE,))
        return schema.__arrow_c_schema__()

    def accepts(self, predicate: Node) -> bool:
        """Only the routing filter."""
        return _hidden_of(predicate) == TABLE

    def stream(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """The table's content now, every column."""
        routing, _ = _split(filters)
        table = self.session.table(_identifier(routing.get(TABLE), "paimon_" + self.kind))
        schema = self._columns(table)
        if columns is not None and any(c >= len(schema) for c in columns):
            raise _not_pushed("paimon_" + self.kind)
        data = system_table(table, self.kind).cast(schema)
        data = _append_hidden(data, (TABLE,), routing)
        return data.to_reader().__arrow_c_stream__(), False


# --- install ------------------------------------------------------------------------------


def _register_sources(con: duckdb.DuckDBPyConnection, session: Session) -> None:
    """The routing sources and their bind UDFs (see the module docstring).

    ``_register_arrow_source`` is the pinned duckdb's underscore-named source protocol, as in
    `paimon_sql.sql._source.register`.
    """
    scan = _ScanRouter(session)
    con._register_arrow_source(SCAN_SOURCE, scan)
    _function(con, SCAN_BIND, scan.bind, ["VARCHAR", "BIGINT", "VARCHAR", "TIMESTAMP"])
    for kind, schema in SCHEMAS.items():
        hidden = (TABLE, SNAPSHOT, TAG) if kind in PER_SNAPSHOT else (TABLE,)
        source = _SystemSource(session, kind, schema, hidden)
        con._register_arrow_source("__paimon_" + kind, source)
    for kind, schema in CATALOG_SCHEMAS.items():
        source = _SystemSource(session, kind, schema, ())
        con._register_arrow_source("__paimon_sys_" + kind, source)
    for kind in DATA_KINDS:
        router = _DataSystemRouter(session, kind)
        con._register_arrow_source("__paimon_" + kind, router)
        _function(con, f"__paimon_{kind}_bind", router.bind, ["VARCHAR"])


def _function(
    con: duckdb.DuckDBPyConnection, name: str, function: Any, parameters: list[str]
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
    _register_sources(con, session)
    for path in sorted(functions_dir().glob("*.sql")):
        con.execute(path.read_text(encoding="utf-8"))
    return session
