"""Incremental reads: the rows that changed between two snapshots, with their row kinds.

Three ways, as Paimon 1.3 reads them (`paimon_sql.changes.bounds` resolves the ends and the mode):

* ``delta``: the files the APPEND snapshots in (start, end] added (COMPACT and OVERWRITE
  snapshots are skipped), every record as written, with its own kind (``+I``, ``-U``, ``+U``,
  ``-D``): Java's ``IncrementalDeltaStartingScanner`` with streaming splits, read without merging.
* ``changelog``: the changelog files of the snapshots in (start, end] (OVERWRITE skipped), read
  the same way.
* ``diff``: the table's merged state at the end compared with its state at the start, per primary
  key: a key only at the end is ``+I``, a key only at the start ``-D`` (its old row), a key whose
  row changed ``-U`` (old row) then ``+U`` (new row). Append tables compare rows as multisets.

  Paimon's ``IncrementalDiffSplitRead`` merges only the files *not shared* by the two snapshots and
  emits only the new row of a changed key (with the merged record's kind). That shortcut misses a
  delete that a deletion vector made on a shared file, and compares partial aggregates when a
  compaction kept some files; here every (partition, bucket) whose files or vectors differ is read
  in full at both ends, so the diff is exactly "state at end minus state at start".

`changes` yields Arrow batches: ``rowkind`` then the table's columns (latest schema). With
``row_kinds=False`` (a plain ``SELECT … /*+ OPTIONS('incremental-between' …) */``) only the rows
that are in the table after their change come out, without ``rowkind``: ``-U`` and ``-D`` are
dropped, as Paimon's batch SQL drops retractions.

Reading is the caller's: `ChangeReader` runs a `ScanPlan` (the engine's ``SplitReader.batches``),
so this package never imports DuckDB.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import SpecViolationError, UnsupportedFeatureError
from paimon_sql.format.manifest import FileKind
from paimon_sql.format.options import CoreOptions
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.plan.scan import ScanPlan, plan_files, plan_scan
from paimon_sql.read.build import KIND, ReadRequest
from paimon_sql.types import RowKind, arrow_type

if TYPE_CHECKING:
    from collections.abc import Iterator

    from paimon_sql.catalog import Table
    from paimon_sql.changes.bounds import Between
    from paimon_sql.format.manifest import ManifestEntry
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.plan.scan import Split

#: Runs a plan: the engine's ``SplitReader(con).batches``.
ChangeReader = Callable[[ScanPlan, ReadRequest], Iterable[pa.RecordBatch]]
ROWKIND = "rowkind"
_SHORT = pa.array([k.short for k in RowKind], pa.string())


def change_schema(table: Table, *, row_kinds: bool = True) -> pa.Schema:
    """``rowkind`` (nullable STRING, as ``$audit_log``) then the latest schema's columns."""
    fields = [
        pa.field(f.name, arrow_type(f.type), f.type.nullable) for f in table.latest_schema.fields
    ]
    schema = pa.schema(fields)
    return schema.insert(0, pa.field(ROWKIND, pa.string(), True)) if row_kinds else schema


def changes(
    table: Table,
    between: Between,
    read: ChangeReader,
    *,
    row_kinds: bool = True,
    java_diff: bool = False,
) -> Iterator[pa.RecordBatch]:
    """The changed rows `between` covers, batch by batch, in `change_schema`'s columns.

    `java_diff`: a diff in the form of Paimon's ``t$audit_log`` (a new or changed key gives only
    its new row, with the kind of its merged record; a removed key ``-D``), not the ``-U``/``+U``
    pairs of `paimon_changes`.
    """
    schema = change_schema(table, row_kinds=row_kinds)
    if between.empty:
        return
    if between.mode == "diff":
        batches = _diff(table, between, read, row_kinds, java_diff)
    else:
        options = CoreOptions(table.latest_schema.options)
        if options.row_tracking and options.data_evolution:
            # a delta file may hold only some columns of its rows: they need the other files of
            # their row-id range, which a delta read does not have
            raise UnsupportedFeatureError(
                f"{between.mode} read of {table.name}: the table has 'data-evolution.enabled' = "
                "'true', whose delta files may hold only some columns; read it in diff mode or "
                "by snapshot"
            )
        batches = _raw(table, between, read, row_kinds)
    for batch in batches:
        if batch.num_rows:
            yield pa.RecordBatch.from_arrays(
                [
                    batch.column(name).cast(f.type)
                    for name, f in zip(schema.names, schema, strict=True)
                ],
                schema=schema,
            )


# --- delta and changelog: the files as written --------------------------------------------------


def added_entries(table: Table, between: Between) -> list[ManifestEntry]:
    """The files a delta or changelog read covers, in snapshot order."""
    entries: list[ManifestEntry] = []
    for snapshot_id in range(between.start_id + 1, between.end_id + 1):
        snap = table.snapshot(snapshot_id)
        if between.mode == "delta":
            if snap.commit_kind is not CommitKind.APPEND:
                continue
            listed: str | None = snap.delta_manifest_list
        else:
            if snap.commit_kind is CommitKind.OVERWRITE:
                continue
            listed = snap.changelog_manifest_list
        if listed is None:
            continue
        for meta in table.manifest_list(listed):
            for entry in table.manifest(meta.file_name):
                if entry.kind is not FileKind.ADD:
                    raise SpecViolationError(
                        f"manifest {meta.file_name} of snapshot {snapshot_id} of {table.name} "
                        f"deletes file {entry.file.file_name}: a {between.mode} read expects "
                        "only added files there"
                    )
                entries.append(entry)
    return entries


def _raw(
    table: Table,
    between: Between,
    read: ChangeReader,
    row_kinds: bool,
) -> Iterator[pa.RecordBatch]:
    schema = table.latest_schema
    entries = added_entries(table, between)
    if not entries:
        return
    plan = plan_files(table, between.end, entries, schema)
    pk = bool(schema.primary_keys)
    request = ReadRequest(columns=tuple(schema.field_names), system_columns=pk, keep_retractions=pk)
    for batch in read(plan, request):
        if pk:
            kinds = batch.column(KIND).cast(pa.int32())
        else:
            kinds = pa.array([0] * batch.num_rows, pa.int32())
        if not row_kinds:
            adds = pa.array([RowKind.INSERT.value, RowKind.UPDATE_AFTER.value], pa.int32())
            yield batch.filter(pc.is_in(kinds, value_set=adds))
            continue
        rowkind = pc.take(_SHORT, kinds)
        yield _with_column(batch, ROWKIND, rowkind)


def _with_column(batch: pa.RecordBatch, name: str, values: pa.Array[Any]) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([*batch.columns, values], names=[*batch.schema.names, name])


# --- diff: the merged states at both ends -------------------------------------------------------


def _by_bucket(plan: ScanPlan) -> dict[tuple[bytes, int], list[Split]]:
    out: dict[tuple[bytes, int], list[Split]] = {}
    for split in plan.splits:
        out.setdefault((split.partition_bytes, split.bucket), []).append(split)
    return out


def _fingerprint(splits: list[Split]) -> tuple[Any, ...]:
    """What decides a bucket's state: its files and their deletion vectors."""
    files = sorted(f.file_name for s in splits for f in s.files)
    vectors = sorted(
        (name, ref.index_file, ref.meta.offset, ref.meta.length)
        for s in splits
        for name, ref in s.deletion_vectors
    )
    return tuple(files), tuple(vectors)


def _empty_plan(table: Table, schema: TableSchema) -> ScanPlan:
    return plan_scan(table, None, None, schema)


def _rows(
    plan: ScanPlan,
    splits: list[Split],
    columns: tuple[str, ...],
    read: ChangeReader,
) -> list[dict[str, Any]]:
    """The merged rows of `splits`; a primary-key table's also carry their merged record's kind."""
    if not splits:
        return []
    part = replace(plan, splits=tuple(splits))
    pk = bool(plan.schema.primary_keys)
    rows: list[dict[str, Any]] = []
    for batch in read(part, ReadRequest(columns=columns, system_columns=pk)):
        rows.extend(batch.select([*columns, KIND] if pk else list(columns)).to_pylist())
    return rows


def _kind(row: dict[str, Any]) -> str:
    """The short kind of a merged row (and drop it from the row)."""
    return RowKind(row.pop(KIND, 0)).short


def _freeze(value: Any) -> Any:
    """A hashable form of a row value (lists and maps of nested types)."""
    if isinstance(value, list):
        return ("list", tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("map", tuple((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, tuple):
        return ("tuple", tuple(_freeze(v) for v in value))
    return value


def _diff(
    table: Table,
    between: Between,
    read: ChangeReader,
    row_kinds: bool,
    java_diff: bool,
) -> Iterator[pa.RecordBatch]:
    schema = table.latest_schema
    columns = tuple(schema.field_names)
    before = (
        plan_scan(table, between.start, None, schema)
        if between.start
        else _empty_plan(table, schema)
    )
    after = plan_scan(table, between.end, None, schema)
    old, new = _by_bucket(before), _by_bucket(after)
    totals_old = {s.total_buckets for s in before.splits}
    totals_new = {s.total_buckets for s in after.splits}
    if totals_old and totals_new and totals_old != totals_new:  # rescaled: keys moved buckets
        old = {(b"", 0): list(before.splits)}
        new = {(b"", 0): list(after.splits)}
    keys = list(schema.primary_keys)
    out_schema = change_schema(table, row_kinds=True)
    for bucket in sorted(set(old) | set(new)):
        was, now = old.get(bucket, []), new.get(bucket, [])
        if _fingerprint(was) == _fingerprint(now):
            continue
        rows_old = _rows(before, was, columns, read)
        rows_new = _rows(after, now, columns, read)
        if keys:
            changed = _diff_keyed(rows_old, rows_new, keys, java_diff)
        else:
            changed = _diff_rows(rows_old, rows_new)
        if not row_kinds:
            changed = [r for r in changed if r[ROWKIND] in ("+I", "+U")]
        if changed:
            yield pa.RecordBatch.from_pylist(changed, schema=out_schema)


def _diff_keyed(
    old: list[dict[str, Any]], new: list[dict[str, Any]], keys: list[str], java: bool
) -> list[dict[str, Any]]:
    """Per key: ``+I`` new, ``-D`` gone, ``-U``/``+U`` changed (`java`: only the new row)."""
    before = {}
    for row in old:
        _kind(row)
        before[tuple(_freeze(row[k]) for k in keys)] = row
    out: list[dict[str, Any]] = []
    seen = set()
    for row in new:
        kind = _kind(row)
        key = tuple(_freeze(row[k]) for k in keys)
        seen.add(key)
        prior = before.get(key)
        if prior is None:
            out.append({ROWKIND: kind if java else "+I", **row})
        elif _freeze(tuple(prior.values())) != _freeze(tuple(row.values())):
            if java:
                out.append({ROWKIND: kind, **row})
                continue
            out.append({ROWKIND: "-U", **prior})
            out.append({ROWKIND: "+U", **row})
    out.extend({ROWKIND: "-D", **row} for key, row in before.items() if key not in seen)
    return out


def _diff_rows(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append tables: rows as multisets (a row added twice is two ``+I``)."""
    count = Counter(_freeze(tuple(r.values())) for r in old)
    out: list[dict[str, Any]] = []
    for row in new:
        frozen = _freeze(tuple(row.values()))
        if count[frozen] > 0:
            count[frozen] -= 1
        else:
            out.append({ROWKIND: "+I", **row})
    for row in old:
        frozen = _freeze(tuple(row.values()))
        if count[frozen] > 0:
            count[frozen] -= 1
            out.append({ROWKIND: "-D", **row})
    return out
