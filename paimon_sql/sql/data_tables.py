"""The data system tables ``t$audit_log``, ``t$ro`` and ``t$row_tracking``: rows, read on DuckDB.

`paimon_sql.catalog.system_tables` builds every other system table from metadata alone; the two
that hold rows are read here and reach it as its ``read_data`` callable:
``system_table(table, name, snapshot, read_data=read_data_table)``.

* ``ro``: the plan goes through `paimon_sql.plan.system.read_optimized_filter` before reading.
* ``audit_log``: read with ``ReadRequest(system_columns=True)``, and ``_VALUE_KIND`` becomes
  ``rowkind`` (``+I``/``+U``: Java shows the merged record's kind); the schema is
  `audit_log_schema`'s.
* ``row_tracking`` (Java 1.3's ``RowTrackingTable``, row-tracking tables only): the columns, then
  ``_ROW_ID`` (BIGINT) and ``_SEQUENCE_NUMBER`` (BIGINT NOT NULL), read with
  ``ReadRequest(row_tracking=True)``. Java 1.3 exposes them only there (Flink cannot select
  ``_ROW_ID`` from the table itself), and so does paimon-sql.

Both are materialized (fine for small tables). To stream them, reuse the normal table source with
the same two changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from paimon_sql.catalog.system_tables import DATA_TABLES, snapshot_schema
from paimon_sql.engine.reader import SplitReader
from paimon_sql.errors import TableNotFoundError, UnsupportedFeatureError
from paimon_sql.format.options import CoreOptions
from paimon_sql.plan.scan import plan_scan
from paimon_sql.plan.system import read_optimized_filter
from paimon_sql.read.build import KIND, ReadRequest
from paimon_sql.types import RowKind, arrow_type

if TYPE_CHECKING:
    from paimon_sql.catalog.table import Table
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot

__all__ = ["audit_log_schema", "read_data_table"]


def _data_schema(schema: TableSchema) -> pa.Schema:
    return pa.schema([pa.field(f.name, arrow_type(f.type), f.type.nullable) for f in schema.fields])


def audit_log_schema(table: Table, snapshot: Snapshot | None = None) -> pa.Schema:
    """``rowkind`` (a nullable STRING, as in Java), then the columns of `snapshot`'s schema."""
    schema = _data_schema(snapshot_schema(table, snapshot))
    return schema.insert(0, pa.field("rowkind", pa.string(), True))


def _read(
    table: Table,
    snapshot: Snapshot | None,
    read_optimized: bool,
    row_kinds: bool = False,
    row_tracking: bool = False,
) -> pa.Table:
    """The latest state or `snapshot` (or its read-optimized part) as one Arrow table.

    With `row_kinds`, a primary-key table's rows also carry ``_VALUE_KIND`` (the merged kind).
    """
    table_schema = snapshot_schema(table, snapshot)
    schema = _data_schema(table_schema)
    with_kind = row_kinds and bool(table_schema.primary_keys)
    if with_kind:
        schema = schema.append(pa.field(KIND, pa.int8(), False))
    if row_tracking:
        if not CoreOptions(table_schema.options).row_tracking:
            raise UnsupportedFeatureError(
                f"table {table.name} does not support row tracking: {table.name}$row_tracking "
                "needs 'row-tracking.enabled' = 'true' (as in Java)"
            )
        schema = schema.append(pa.field("_ROW_ID", pa.int64(), True))
        schema = schema.append(pa.field("_SEQUENCE_NUMBER", pa.int64(), False))
    chosen = table.latest_snapshot() if snapshot is None else snapshot
    plan = plan_scan(table, chosen, None, table_schema)
    if read_optimized:
        plan = read_optimized_filter(plan)
    engine = duckdb.connect()
    try:
        request = ReadRequest(
            columns=tuple(table_schema.field_names),
            system_columns=with_kind,
            keep_retractions=with_kind,
            row_tracking=row_tracking,
        )
        batches = list(SplitReader(engine).batches(plan, request))
    finally:
        engine.close()
    if not batches:
        return schema.empty_table()
    return pa.Table.from_batches(batches).select(schema.names).cast(schema)


def _audit_log(table: Table, snapshot: Snapshot | None) -> pa.Table:
    """Each row with the kind of its merged record (``+U`` after an update, as Java shows it).

    Like Java's batch audit log (``forceKeepDelete``), a key whose merged record is a retraction
    that compaction has not dropped yet is kept, as a ``-D`` (or ``-U``) row.
    """
    data = _read(table, snapshot, read_optimized=False, row_kinds=True)
    if KIND in data.column_names:
        kinds = [RowKind(k).short for k in data.column(KIND).to_pylist()]
        data = data.drop_columns([KIND])
    else:  # append tables: every row is an insert
        kinds = [RowKind.INSERT.short] * data.num_rows
    rowkind = pa.array(kinds, pa.string())
    return data.add_column(0, pa.field("rowkind", pa.string(), True), rowkind)


def read_data_table(table: Table, name: str, snapshot: Snapshot | None = None) -> pa.Table:
    """``<table>$audit_log``, ``$ro`` or ``$row_tracking`` at `snapshot` (None: the latest).

    Materialized.

    The `paimon_sql.catalog.system_tables.DataTableReader` the SQL surface hands to
    `paimon_sql.catalog.system_tables.system_table`.

    >>> read_data_table(None, "files")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    paimon_sql.errors.TableNotFoundError: 'files' is not a data system table (valid: audit_log, ...)
    """
    key = name.lower()
    if key == "audit_log":
        return _audit_log(table, snapshot)
    if key == "ro":
        return _read(table, snapshot, read_optimized=True)
    if key == "row_tracking":
        return _read(table, snapshot, read_optimized=False, row_tracking=True)
    raise TableNotFoundError(
        f"{name!r} is not a data system table (valid: {', '.join(DATA_TABLES)})"
    )
