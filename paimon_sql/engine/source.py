"""The one module that touches DuckDB's underscore-named source protocol (``duckdb._sources``, duckdb pinned).

A `PaimonSource` is a lazily planned table: DuckDB asks it for its schema when binding, offers it filter predicates
(`accepts`), then asks for a stream of the chosen columns with the accepted filters (`stream`). Planning happens
in `stream`, with the filters, so partition, bucket and statistics pruning see them; an accepted filter is always
applied exactly (it is part of the split SQL), pruning only makes it cheaper.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import math
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from duckdb._sources import ArrowScanSource
from duckdb._sources.nodes import Binary, Col, In, Lit, Node, Postfix, Unary

from paimon_sql.errors import PaimonSqlError
from paimon_sql.plan.predicate import And, Compare, InList, IsNull, Not, Or, Predicate, and_all
from paimon_sql.plan.scan import ScanPlan, plan_scan
from paimon_sql.read.build import ReadRequest

if TYPE_CHECKING:
    import duckdb

    from paimon_sql.catalog import Table
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.engine.reader import SplitReader
    from paimon_sql.engine.relation import ErrorLog

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
    ) -> None:
        """`select` picks the snapshot (latest or pinned); `schema_of` maps a schema id to Arrow;
        `first_rows`: the engine will likely stop after a few rows (`ReadRequest.first_rows`)."""
        super().__init__(None)
        self.table = table
        self.reader = reader
        self.schema_of = schema_of
        self.select = select
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._resolved = False
        self.last_plan: ScanPlan | None = None
        self.log = log
        #: A pinned source (time travel) reads with its snapshot's schema, the latest state with the latest.
        self.pinned = pinned
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

    def _schema_id(self) -> int:
        snap = self.snapshot()
        if self.pinned and snap is not None:
            return snap.schema_id
        return self.table.latest_schema.id

    def declared_schema(self) -> pa.Schema:
        """The Arrow schema of the rows, as DuckDB produces them."""
        return self.schema_of(self._schema_id())

    def __arrow_c_schema__(self) -> object:
        """Schema for DuckDB's binder."""
        self.refresh()
        try:
            return self.declared_schema().__arrow_c_schema__()
        except PaimonSqlError as err:  # e.g. damaged metadata: DuckDB wraps it, `Relation` re-raises it
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
            columns=tuple(names[i] for i in chosen), filters=tuple(preds), first_rows=self.first_rows
        )
        plans = [plan]
        fallback = plan.options.get("scan.fallback-branch")
        if fallback and not self.pinned:
            plans.append(self._fallback_plan(plan, fallback, and_all(preds)))
        batches = self._logged(
            _conform((b for p in plans for b in self.reader.batches(p, request)), out_schema)
        )
        reader = pa.RecordBatchReader.from_batches(out_schema, batches)
        return reader.__arrow_c_stream__(), columns is not None

    def _fallback_plan(self, plan: ScanPlan, branch: str, predicate: Predicate | None) -> ScanPlan:
        """``scan.fallback-branch``: partitions the main branch lacks are read from `branch`."""
        main_partitions = {s.partition for s in plan_scan(self.table, plan.snapshot).splits}
        other = self.table.branch_table(branch)
        other_plan = plan_scan(other, other.latest_snapshot(), predicate, other.latest_schema)
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
    con._register_arrow_source(name, source)  # noqa: SLF001 - the pinned duckdb's source protocol
