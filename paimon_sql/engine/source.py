"""The one module that touches DuckDB's underscore-named source protocol.

That is ``duckdb._sources``, which DuckDB 2.0 introduced: pyproject declares the tested range
(`DUCKDB_RANGE`), and a DuckDB without the protocol makes ``import paimon_sql`` fail with a
`MissingDependencyError` that names the installed version and the range to install.

A `PaimonSource` is a lazily planned table: DuckDB asks it for its schema when binding, offers it
filter predicates (`accepts`), then asks for a stream of the chosen columns with the accepted
filters (`stream`). Planning happens in `stream`, with the filters, so partition, bucket and
statistics pruning see them; an accepted filter is always applied exactly (it is part of the split
SQL), pruning only makes it cheaper.

The routing sources of `paimon_sql.sql.install` live here too (`install_sources`): ``__paimon_scan``
(every table at every snapshot, for ``paimon_scan``) and one source per system table, each resolving
its table from pushed-down filters on hidden columns.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import functools
import math
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import duckdb
import pyarrow as pa

from paimon_sql.catalog import Identifier
from paimon_sql.engine.travel import TimeTravel, select_travel
from paimon_sql.errors import MissingDependencyError, PaimonSqlError, SchemaError, SqlError
from paimon_sql.plan.predicate import And, Compare, InList, IsNull, Not, Or, and_all
from paimon_sql.plan.scan import plan_scan
from paimon_sql.read.build import ReadRequest

#: The DuckDB releases whose source protocol this module is tested with (pyproject's requirement;
#: tests/usage/test_packaging.py checks the two agree and runs both ends).
DUCKDB_RANGE = ">=2.0.0,<2.1"

try:
    from duckdb._sources import ArrowScanSource
    from duckdb._sources.nodes import Binary, Col, In, Lit, Postfix, Unary
except ImportError as err:  # an older DuckDB (or a newer one that moved its private API)
    raise MissingDependencyError(
        f"paimon-sql needs DuckDB's Python source protocol (duckdb._sources), which duckdb "
        f"{duckdb.__version__} does not have: pip install 'duckdb{DUCKDB_RANGE}'"
    ) from err

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from duckdb._sources.nodes import Node

    from paimon_sql.catalog import Catalog, Table
    from paimon_sql.engine.reader import SplitReader
    from paimon_sql.engine.relation import ErrorLog
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import ScanPlan

_COMPARISONS = frozenset({"=", "!=", "<", "<=", ">", ">="})
_REJECTED_TYPES = ("TIMESTAMP WITH TIME ZONE", "TIME WITH TIME ZONE", "INTERVAL", "UUID", "HUGEINT")


class Untranslatable(Exception):
    """A predicate node we do not evaluate ourselves (DuckDB then applies it)."""


def _constant(node: Node) -> Any:
    if not isinstance(node, Lit) or node.type in _REJECTED_TYPES:
        raise Untranslatable
    value = node.value
    if isinstance(value, float) and not math.isfinite(value):
        raise Untranslatable
    if value is None or isinstance(
        value, (bool, int, float, str, bytes, decimal.Decimal, datetime.date, datetime.time)
    ):
        if isinstance(value, datetime.datetime) and value.tzinfo is not None:
            raise Untranslatable
        return value
    raise Untranslatable


def to_predicate(node: Node, columns: Sequence[str]) -> Predicate:
    """Translate an engine predicate node; raises `Untranslatable` for anything else."""
    if isinstance(node, Binary):
        if node.op in ("AND", "OR"):
            left, right = to_predicate(node.left, columns), to_predicate(node.right, columns)
            return And((left, right)) if node.op == "AND" else Or((left, right))
        if node.op in _COMPARISONS and isinstance(node.left, Col):
            value = _constant(node.right)
            if value is None:
                raise Untranslatable
            return Compare(_path(node.left, columns), node.op, value)
        raise Untranslatable
    if isinstance(node, Unary) and node.op == "NOT":
        return Not(to_predicate(node.operand, columns))
    if isinstance(node, Postfix) and isinstance(node.operand, Col):
        if node.op == "IS NULL":
            return IsNull(_path(node.operand, columns))
        if node.op == "IS NOT NULL":
            return IsNull(_path(node.operand, columns), negated=True)
    if isinstance(node, In) and isinstance(node.operand, Col) and node.values:
        values = tuple(_constant(v) for v in node.values)
        if any(v is None for v in values):
            raise Untranslatable
        return InList(_path(node.operand, columns), values)
    raise Untranslatable


def _path(column: Col, columns: Sequence[str]) -> tuple[str, ...]:
    if not column.parts or column.parts[0] not in columns:
        raise Untranslatable
    return tuple(column.parts)


class PaimonSource(ArrowScanSource):
    """A Paimon table (at the latest snapshot, or a pinned one) as a DuckDB source."""

    schema_is_stable = False

    def __init__(
        self,
        table: Table,
        reader: SplitReader,
        schema_of: Callable[[int], pa.Schema],
        select: Callable[[], Snapshot | None],
        log: ErrorLog | None = None,
        *,
        pinned: bool = False,
        first_rows: bool = False,
        latest_schema: bool = False,
    ) -> None:
        """`select` picks the snapshot (latest or pinned); `schema_of` maps a schema id to Arrow.

        `first_rows`: the engine will likely stop after a few rows (`ReadRequest.first_rows`).
        `latest_schema`: a pinned snapshot is read in the latest schema (Flink's ``scan.*`` hints).
        """
        super().__init__(None)
        self.table = table
        self.reader = reader
        self.schema_of = schema_of
        self.select = select
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._resolved = False
        self._latest_schema: int | None = None  # the latest schema id, resolved with the snapshot
        self.last_plan: ScanPlan | None = None
        self.log = log
        #: A pinned source (time travel) reads with its snapshot's schema, the latest state with the
        #: latest.
        self.pinned = pinned
        self.latest_schema = latest_schema
        self.first_rows = first_rows

    def snapshot(self) -> Snapshot | None:
        """The snapshot this source reads (resolved when the engine binds; kept for the query)."""
        with self._lock:
            if not self._resolved:
                self._snapshot = self.select()
                self._resolved = True
            return self._snapshot

    def refresh(self) -> None:
        """Forget the resolved snapshot: the next bind reads the newest state again."""
        with self._lock:
            self._resolved = False
            self._latest_schema = None

    def _schema_id(self) -> int:
        snap = self.snapshot()
        if self.pinned and snap is not None and not self.latest_schema:
            return snap.schema_id
        with self._lock:
            if self._latest_schema is None:
                # kept until the next bind: the stream reads with the schema DuckDB bound
                self._latest_schema = self.table.latest_schema.id
            return self._latest_schema

    def declared_schema(self) -> pa.Schema:
        """The Arrow schema of the rows, as DuckDB produces them."""
        return self.schema_of(self._schema_id())

    def __arrow_c_schema__(self) -> object:
        """Schema for DuckDB's binder."""
        self.refresh()
        try:
            return self.declared_schema().__arrow_c_schema__()
        except (
            PaimonSqlError
        ) as err:  # e.g. damaged metadata: DuckDB wraps it, `Relation` re-raises it
            self._record(err)
            raise

    def accepts(self, predicate: Node) -> bool:
        """Accept what we can translate; the split SQL applies it exactly."""
        try:
            to_predicate(predicate, self.declared_schema().names)
        except Untranslatable:
            return False
        return True

    def stream(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """Plan with the filters, then stream the splits' rows."""
        try:
            schema = self.declared_schema()
            names = schema.names
            preds = [to_predicate(f, names) for f in filters]
            chosen = list(range(len(names))) if columns is None else list(columns)
            out_schema = pa.schema([schema.field(i) for i in chosen])
            read_schema = self.table.schema(self._schema_id())
            plan = plan_scan(self.table, self.snapshot(), and_all(preds), read_schema)
        except PaimonSqlError as err:
            self._record(err)
            raise
        self.last_plan = plan
        if self.log is not None:
            self.log.reading(plan)
        request = ReadRequest(
            columns=tuple(names[i] for i in chosen),
            filters=tuple(preds),
            first_rows=self.first_rows,
        )
        plans = [plan]
        # the latest schema's option, as Java's catalog wraps the table before any time travel
        fallback = self.table.latest_schema.options.get("scan.fallback-branch")
        if fallback:
            plans.append(self._fallback_plan(plan, fallback, and_all(preds)))
        batches = self._logged(
            _conform((b for p in plans for b in self.reader.batches(p, request)), out_schema)
        )
        reader = pa.RecordBatchReader.from_batches(out_schema, batches)
        return reader.__arrow_c_stream__(), columns is not None

    def _fallback_plan(self, plan: ScanPlan, branch: str, predicate: Predicate | None) -> ScanPlan:
        """``scan.fallback-branch``: partitions the main branch lacks are read from `branch`.

        As Java's ``FallbackReadFileStoreTable``: a time-travel read of main reads the branch at
        its last snapshot no later than main's (its first snapshot when none is), in that
        snapshot's schema; the two row types must have the same field types (nullability aside).
        """
        main_partitions = {s.partition for s in plan_scan(self.table, plan.snapshot).splits}
        other = self.table.branch_table(branch)
        other_snapshot = other.latest_snapshot()
        if self.pinned and plan.snapshot is not None:
            ids = other.snapshot_ids()
            earlier = [i for i in ids if other.snapshot(i).time_millis <= plan.snapshot.time_millis]
            if ids:
                other_snapshot = other.snapshot(max(earlier) if earlier else min(ids))
        other_schema = (
            other.schema(other_snapshot.schema_id)
            if other_snapshot is not None
            else other.latest_schema
        )
        main_types = [f.type.with_nullable(True) for f in plan.schema.fields]
        other_types = [f.type.with_nullable(True) for f in other_schema.fields]
        if main_types != other_types:
            raise SchemaError(
                f"table {self.table.name} reads branch {branch!r} for the partitions main lacks "
                f"('scan.fallback-branch'), but the branch's row type ({other_schema.field_names}"
                f", schema {other_schema.id}) differs from main's ({plan.schema.field_names}, "
                f"schema {plan.schema.id}); Java refuses this read too: give both branches the "
                "same columns"
            )
        other_plan = plan_scan(other, other_snapshot, predicate, other_schema)
        splits = tuple(s for s in other_plan.splits if s.partition not in main_partitions)
        return dataclasses.replace(other_plan, splits=splits)

    def _record(self, err: PaimonSqlError) -> None:
        if self.log is not None:
            self.log.record(err)

    def _logged(self, batches: Any) -> Any:
        try:
            yield from batches
        except PaimonSqlError as err:
            self._record(err)
            raise


def _conform(batches: Any, schema: pa.Schema) -> Any:
    for batch in batches:
        if batch.schema.equals(schema):
            yield batch
        else:
            arrays = [batch.column(i).cast(schema.field(i).type) for i in range(batch.num_columns)]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def register(con: duckdb.DuckDBPyConnection, name: str, source: PaimonSource) -> None:
    """Register `source` as a view called `name` on `con`."""
    con._register_arrow_source(name, source)


# --- routing sources of install() (see `paimon_sql.sql.install`) ---------------------------------


class Engine(Protocol):
    """What the routing sources need of `paimon_sql.engine.context.Engine`.

    A protocol, so that this module does not import the one that registers its sources.
    """

    @property
    def catalog(self) -> Catalog:
        """The warehouse's catalog."""
        ...

    @property
    def log(self) -> ErrorLog:
        """Where a stream's paimon-sql errors are kept, for the statement to raise them as such."""
        ...

    @property
    def reader(self) -> SplitReader:
        """The split reader on the engine's private DuckDB (streamed reads)."""
        ...

    def table(self, identifier: str | Identifier) -> Table:
        """The `Table` behind ``db.table``."""
        ...

    def source(
        self,
        table: Table,
        snapshot: Snapshot | None = None,
        *,
        pinned: bool = False,
        first_rows: bool = False,
        latest_schema: bool = False,
    ) -> PaimonSource:
        """A source over `table` (the latest snapshot, or `snapshot` when `pinned`)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class SystemTables:
    """Where metadata tables come from (the SQL layer's system tables, given to the binder)."""

    #: ``"t$snapshots"`` → ``("t", "snapshots")``; ``("t", None)`` for a plain name.
    split_name: Callable[[str], tuple[str, str | None]]
    #: ``sys.tables`` … : the content of a global system table.
    catalog_table: Callable[[Catalog, str], pa.Table]
    #: ``t$snapshots`` … : the content of a table's system table (at a snapshot, when time
    #: travelling).
    table: Callable[[Table, str, Snapshot | None], pa.Table]


TABLE, SNAPSHOT, TAG, TIMESTAMP = (
    "__paimon_table",
    "__paimon_snapshot",
    "__paimon_tag",
    "__paimon_timestamp",
)
#: The start and end of ``paimon_diff`` / ``paimon_changes``, the key of ``paimon_explain_key``,
#: the mode of ``paimon_changes``.
FROM, TO, KEY, MODE = "__paimon_from", "__paimon_to", "__paimon_key", "__paimon_mode"
_HIDDEN_TYPES = {
    TABLE: pa.string(),
    SNAPSHOT: pa.int64(),
    TAG: pa.string(),
    TIMESTAMP: pa.timestamp("us"),
    FROM: pa.string(),
    TO: pa.string(),
    KEY: pa.string(),
    MODE: pa.string(),
}
#: The system tables whose content depends on a snapshot (``$files`` at snapshot 2 or a tag ...).
PER_SNAPSHOT = ("files", "manifests", "partitions", "buckets", "table_indexes")
#: The data system tables: their columns are the table's, so they route like `paimon_scan`.
DATA_KINDS = ("audit_log", "ro")
SCAN_SOURCE = "__paimon_scan"
SCAN_BIND = "__paimon_scan_bind"


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

    def __init__(self, engine: Engine, routing: dict[str, Any]) -> None:
        self.table = engine.table(_identifier(routing.get(TABLE), "paimon_scan"))
        self.snapshot_id: int | None = routing.get(SNAPSHOT)
        self.tag: str | None = routing.get(TAG)
        stamp = routing.get(TIMESTAMP)
        self.timestamp_ms = None if stamp is None else _timestamp_ms(stamp)
        self.engine = engine

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
            return self.engine.source(self.table, self.chosen(), pinned=True)
        return self.engine.source(self.table)


def _with_hidden(schema: pa.Schema, hidden: Sequence[str]) -> pa.Schema:
    for name in hidden:
        schema = schema.append(pa.field(name, _HIDDEN_TYPES[name]))
    return schema


_R = TypeVar("_R")


class _Routing(ArrowScanSource):
    """A routing source: `routed` answers ``stream``; its paimon-sql errors go to the engine's log.

    DuckDB re-raises a source's exception as its own error text; the log lets the session raise
    the original (`SnapshotNotFoundError` naming the snapshot, not "exporting a stream failed").
    """

    engine: Engine

    def stream(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """`routed`, its errors recorded."""
        return _recorded(self.engine, self.routed)(columns, filters)

    def routed(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """The rows of the call the routing filters name."""
        raise NotImplementedError


def _recorded(engine: Engine, function: Callable[..., _R]) -> Callable[..., _R]:
    """`function` (a bind UDF or a stream), recording the paimon-sql errors it raises.

    ``functools.wraps`` keeps its signature: DuckDB counts a UDF's parameters from it.
    """

    @functools.wraps(function)
    def call(*args: Any) -> _R:
        try:
            return function(*args)
        except PaimonSqlError as err:
            engine.log.record(err)
            raise

    return call


class _ScanRouter(_Routing):
    """``__paimon_scan``: every table at every snapshot; the arguments come as pushed-down filters.

    The schema depends on the call (the table; the snapshot's schema when time travelling).
    DuckDB binds ``query_table(__paimon_scan_bind(...))`` by folding the UDF and then, on the same
    thread, reading this source's ``__arrow_c_schema__``; `bind` leaves the schema in a
    thread-local for that read. Each ``stream`` call resolves its own table and snapshot from its
    filters, so several calls in one query (two snapshots joined) never share state.
    """

    schema_is_stable = False
    HIDDEN = (TABLE, SNAPSHOT, TAG, TIMESTAMP)

    def __init__(self, engine: Engine) -> None:
        super().__init__(None)
        self.engine = engine
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
        request = _Request(self.engine, routing)
        self._bound.schema = _with_hidden(request.source().declared_schema(), self.HIDDEN)
        return SCAN_SOURCE

    def __arrow_c_schema__(self) -> object:
        """The schema `bind` resolved on this thread (only the hidden columns before any bind)."""
        schema = getattr(self._bound, "schema", None) or _with_hidden(pa.schema([]), self.HIDDEN)
        return schema.__arrow_c_schema__()

    def accepts(self, predicate: Node) -> bool:
        """Routing filters and the user's translatable filters."""
        return _accepts(predicate)

    def routed(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """Resolve the call from the routing filters, then stream it."""
        routing, rest = _split(filters)
        inner = _Request(self.engine, routing).source()
        width = len(inner.declared_schema())
        if columns is not None and any(c >= width for c in columns):
            raise _not_pushed("paimon_scan")
        if columns is None:
            columns = list(range(width))
        return inner.stream(columns, rest)


# --- system tables ------------------------------------------------------------------------


class _SystemSource(_Routing):
    """``__paimon_<kind>``: the system table ``t$<kind>`` or a ``sys`` table, rebuilt per query."""

    schema_is_stable = True

    def __init__(
        self,
        engine: Engine,
        system: SystemTables,
        kind: str,
        schema: pa.Schema,
        hidden: Sequence[str],
    ) -> None:
        super().__init__(None)
        self.engine = engine
        self.system = system
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
            return self.system.catalog_table(self.engine.catalog, self.kind)
        table = self.engine.table(_identifier(routing.get(TABLE), "paimon_" + self.kind))
        snapshot = None
        if routing.get(SNAPSHOT) is not None or routing.get(TAG) is not None:
            travel = TimeTravel(snapshot_id=routing.get(SNAPSHOT), tag=routing.get(TAG))
            snapshot = _select(table, "paimon_" + self.kind, travel)
        return self.system.table(table, self.kind, snapshot)

    def routed(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
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


class _DataSystemRouter(_Routing):
    """``__paimon_audit_log`` / ``__paimon_ro``: the table's columns (``rowkind`` first in the log).

    As for `_ScanRouter`, the schema depends on the table, so ``__paimon_<kind>_bind(table)``
    resolves it while DuckDB binds. The content is `system_table`'s, materialized (as for
    ``"db"."t$audit_log"`` in a session).
    """

    schema_is_stable = False

    def __init__(
        self,
        engine: Engine,
        system: SystemTables,
        kind: str,
        audit_log_schema: Callable[[Table], pa.Schema],
    ) -> None:
        super().__init__(None)
        self.engine = engine
        self.system = system
        self.audit_log_schema = audit_log_schema
        self.kind = kind
        self._bound = threading.local()

    def _columns(self, table: Table) -> pa.Schema:
        schema = self.audit_log_schema(table)
        return schema if self.kind == "audit_log" else schema.remove(0)

    def bind(self, table: str | None) -> str:
        """The scalar UDF ``__paimon_<kind>_bind``: remember the table's schema, name the source."""
        resolved = self.engine.table(_identifier(table, "paimon_" + self.kind))
        self._bound.schema = _with_hidden(self._columns(resolved), (TABLE,))
        return "__paimon_" + self.kind

    def __arrow_c_schema__(self) -> object:
        """The schema `bind` resolved on this thread."""
        schema = getattr(self._bound, "schema", None) or _with_hidden(pa.schema([]), (TABLE,))
        return schema.__arrow_c_schema__()

    def accepts(self, predicate: Node) -> bool:
        """Only the routing filter."""
        return _hidden_of(predicate) == TABLE

    def routed(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """The table's content now, every column."""
        routing, _ = _split(filters)
        table = self.engine.table(_identifier(routing.get(TABLE), "paimon_" + self.kind))
        schema = self._columns(table)
        if columns is not None and any(c >= len(schema) for c in columns):
            raise _not_pushed("paimon_" + self.kind)
        data = self.system.table(table, self.kind, None).cast(schema)
        data = _append_hidden(data, (TABLE,), routing)
        return data.to_reader().__arrow_c_stream__(), False


# --- table functions computed in Python (paimon_diff, paimon_explain_key) ----------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFunction:
    """A ``paimon_<name>(table_name, ...)`` function whose rows are computed in Python.

    Its arguments are the hidden columns (`hidden`, all VARCHAR but the table), passed to the
    bind UDF ``__paimon_<name>_bind`` and again as routing filters; `schema` gives the result's
    columns for the arguments and `content` the rows (materialized: these are debugging reads).
    """

    name: str
    hidden: tuple[str, ...]
    schema: Callable[[Engine, Mapping[str, Any]], pa.Schema]
    content: Callable[[Engine, Mapping[str, Any]], pa.Table]


class _FunctionRouter(_Routing):
    """``__paimon_<name>`` for a `TableFunction`: the schema per call, as for `_ScanRouter`."""

    schema_is_stable = False

    def __init__(self, engine: Engine, function: TableFunction) -> None:
        super().__init__(None)
        self.engine = engine
        self.function = function
        self._bound = threading.local()

    def bind(self, *arguments: Any) -> str:
        """The scalar UDF ``__paimon_<name>_bind``: check the arguments, keep the schema."""
        routing = dict(zip(self.function.hidden, arguments, strict=True))
        _identifier(routing.get(TABLE), "paimon_" + self.function.name)
        schema = self.function.schema(self.engine, routing)
        self._bound.schema = _with_hidden(schema, self.function.hidden)
        return "__paimon_" + self.function.name

    def __arrow_c_schema__(self) -> object:
        """The schema `bind` resolved on this thread."""
        hidden = self.function.hidden
        schema = getattr(self._bound, "schema", None) or _with_hidden(pa.schema([]), hidden)
        return schema.__arrow_c_schema__()

    def accepts(self, predicate: Node) -> bool:
        """Only routing filters; DuckDB filters the (small) content itself."""
        name = _hidden_of(predicate)
        return name is not None and name in self.function.hidden

    def routed(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """The function's rows for the call's arguments, every column."""
        routing, _ = _split(filters)
        label = "paimon_" + self.function.name
        if TABLE not in routing:
            raise _not_pushed(label)
        schema = self.function.schema(self.engine, routing)
        if columns is not None and any(c >= len(schema) for c in columns):
            raise _not_pushed(label)
        data = self.function.content(self.engine, routing).cast(schema)
        data = _append_hidden(data, self.function.hidden, routing)
        return data.to_reader().__arrow_c_stream__(), False


def _fixed_arity(bind: Callable[..., str], count: int) -> Callable[..., str]:
    """`bind` with `count` named parameters: DuckDB's UDFs count the parameters they declare."""
    if count == 3:

        def three(a: Any, b: Any, c: Any) -> str:
            return bind(a, b, c)

        return three
    raise ValueError(f"no bind wrapper for {count} arguments")


# --- paimon_changes -----------------------------------------------------------------------


class _ChangesRouter(_Routing):
    """``__paimon_changes``: the changes of a table between two bounds (``paimon_changes``).

    ``__paimon_changes_bind(table, start, end, mode)`` resolves the bounds while DuckDB binds (a
    bad bound fails there) and leaves the schema (``rowkind`` first) for this thread; ``stream``
    reads the same arguments from the routing filters and streams the batches.
    """

    schema_is_stable = False
    HIDDEN = (TABLE, FROM, TO, MODE)

    def __init__(self, engine: Engine, rows: Callable[..., Any]) -> None:
        super().__init__(None)
        self.engine = engine
        self.change_rows = rows
        self._bound = threading.local()

    def _call(self, routing: dict[str, Any]) -> tuple[pa.Schema, Any]:
        table = self.engine.table(_identifier(routing.get(TABLE), "paimon_changes"))
        start, end, mode = routing.get(FROM), routing.get(TO), routing.get(MODE)
        if start is None or end is None:
            raise SqlError("paimon_changes: give the start (exclusive) and the end, not NULL")
        schema, batches = self.change_rows(table, str(start), str(end), str(mode or "auto"))
        return schema, batches

    def bind(self, table: str | None, start: str | None, end: str | None, mode: str | None) -> str:
        """The UDF ``__paimon_changes_bind``: check the bounds, keep the schema, name the source."""
        routing = {TABLE: table, FROM: start, TO: end, MODE: mode}
        schema, _ = self._call(routing)
        self._bound.schema = _with_hidden(schema, self.HIDDEN)
        return "__paimon_changes"

    def __arrow_c_schema__(self) -> object:
        """The schema `bind` resolved on this thread."""
        schema = getattr(self._bound, "schema", None) or _with_hidden(pa.schema([]), self.HIDDEN)
        return schema.__arrow_c_schema__()

    def accepts(self, predicate: Node) -> bool:
        """Only the routing filters."""
        return _hidden_of(predicate) in self.HIDDEN

    def routed(self, columns: Sequence[int] | None, filters: Sequence[Node]) -> tuple[object, bool]:
        """The changes, batch by batch, with the routing values in the hidden columns."""
        routing, _ = _split(filters)
        if any(routing.get(h) is None for h in (TABLE, FROM, TO)):
            raise _not_pushed("paimon_changes")
        schema, batches = self._call(routing)
        if columns is not None and any(c >= len(schema) for c in columns):
            raise _not_pushed("paimon_changes")
        full = _with_hidden(schema, self.HIDDEN)

        def with_hidden() -> Any:
            for batch in batches:
                table = _append_hidden(pa.Table.from_batches([batch]), self.HIDDEN, routing)
                yield from table.cast(full).to_batches()

        stream = pa.RecordBatchReader.from_batches(full, with_hidden())
        return stream.__arrow_c_stream__(), False  # type: ignore[no-untyped-call]


# --- install ------------------------------------------------------------------------------


def install_sources(
    con: duckdb.DuckDBPyConnection,
    engine: Engine,
    system: SystemTables,
    *,
    schemas: Mapping[str, pa.Schema],
    catalog_schemas: Mapping[str, pa.Schema],
    audit_log_schema: Callable[[Table], pa.Schema],
    functions: Sequence[TableFunction] = (),
    changes: Callable[..., Any] | None = None,
) -> dict[str, tuple[Callable[..., str], list[str]]]:
    """Register the routing sources on `con`.

    Their bind UDFs (function, DuckDB parameter types) by name, for the caller to create.

    `schemas`: each table system table's columns (``t$<kind>``), `catalog_schemas` each global
    ``sys`` table's; `audit_log_schema`: the columns of ``t$audit_log`` for a table; `changes`:
    ``paimon_changes``' rows, (table, start, end, mode) → (schema, batches).
    ``_register_arrow_source`` is the pinned duckdb's underscore-named source protocol, as in
    `register`.
    """
    binds: dict[str, tuple[Callable[..., str], list[str]]] = {}
    scan = _ScanRouter(engine)
    con._register_arrow_source(SCAN_SOURCE, scan)
    binds[SCAN_BIND] = (_recorded(engine, scan.bind), ["VARCHAR", "BIGINT", "VARCHAR", "TIMESTAMP"])
    for kind, schema in schemas.items():
        hidden = (TABLE, SNAPSHOT, TAG) if kind in PER_SNAPSHOT else (TABLE,)
        source = _SystemSource(engine, system, kind, schema, hidden)
        con._register_arrow_source("__paimon_" + kind, source)
    for kind, schema in catalog_schemas.items():
        source = _SystemSource(engine, system, kind, schema, ())
        con._register_arrow_source("__paimon_sys_" + kind, source)
    for kind in DATA_KINDS:
        router = _DataSystemRouter(engine, system, kind, audit_log_schema)
        con._register_arrow_source("__paimon_" + kind, router)
        binds[f"__paimon_{kind}_bind"] = (_recorded(engine, router.bind), ["VARCHAR"])
    for function in functions:
        routed = _FunctionRouter(engine, function)
        con._register_arrow_source("__paimon_" + function.name, routed)
        binds[f"__paimon_{function.name}_bind"] = (
            _recorded(engine, _fixed_arity(routed.bind, len(function.hidden))),
            ["VARCHAR"] * len(function.hidden),
        )
    if changes is not None:
        changes_router = _ChangesRouter(engine, changes)
        con._register_arrow_source("__paimon_changes", changes_router)
        binds["__paimon_changes_bind"] = (_recorded(engine, changes_router.bind), ["VARCHAR"] * 4)
    return binds
