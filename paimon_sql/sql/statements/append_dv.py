"""DELETE and UPDATE on append tables with ``deletion-vectors.enabled``: rows marked, not rewritten.

As Java (Paimon 1.x Spark ``DeleteFromPaimonTableCommand`` / ``UpdatePaimonTableCommand`` with
``PaimonSparkWriter.persistDeletionVectors``):

* the positions of the matching live rows of each data file become (or join) its deletion vector;
* unaware-bucket tables (``bucket`` = -1) keep their vectors per partition in bucket 0, in any
  number of index files (Java's ``AppendDeleteFileMaintainer``): the new and merged vectors go
  into a new index file; an old index file holding a vector that changed is replaced by one with
  its unchanged vectors (or by none) and deleted by name;
* fixed-bucket tables keep one index file per bucket with every vector of the bucket (Java's
  ``BucketedAppendDeleteFileMaintainer``): the new file replaces the old one;
* UPDATE writes the updated rows as new data files, in the same commit;
* the commit is an ``OVERWRITE`` snapshot (Java's ``FileStoreCommitImpl``: an append commit that
  carries deletion-vector index files is one).
"""

from __future__ import annotations

import itertools
import uuid
from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
from pyroaring import BitMap, BitMap64
from sqlglot import exp

from paimon_sql.commit.plan import CommitMessage
from paimon_sql.commit.publish import Committer
from paimon_sql.engine.pushdown import table_predicate
from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.deletion_vector import encode_index
from paimon_sql.format.manifest import DeletionVectorMeta, FileKind, IndexFileMeta
from paimon_sql.format.options import CoreOptions
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.io.arrays import arange
from paimon_sql.plan.scan import DvRef, index_file_path, plan_scan, read_vector
from paimon_sql.read.build import ReadRequest
from paimon_sql.sqlnodes import drop, table_node
from paimon_sql.types import RowKind, duckdb_type_node
from paimon_sql.write.writer import TableWriter

if TYPE_CHECKING:
    from paimon_sql.catalog import Identifier, Table
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import ScanPlan, Split
    from paimon_sql.sql._context import Context

DV_INDEX = "DELETION_VECTORS"
_FILE, _POS = "__paimon_dv_file", "__paimon_dv_pos"
_names = itertools.count()

Vector = BitMap | BitMap64


def uses_vectors(table: Table) -> bool:
    """An append table whose DELETE/UPDATE mark rows in deletion vectors.

    >>> from types import SimpleNamespace as NS
    >>> schema = NS(primary_keys=(), options={"deletion-vectors.enabled": "true"})
    >>> uses_vectors(NS(latest_schema=schema))
    True
    """
    schema = table.latest_schema
    return not schema.primary_keys and CoreOptions(schema.options).deletion_vectors


class LiveRows:
    """The latest snapshot's live rows, registered on the statement's connection.

    Each row carries its data file (``FILE``, an index into `files`) and its position in that file
    (``POS``); `name` is the registered table (None when the table has no rows).
    """

    FILE, POS = _FILE, _POS

    def __init__(self, ctx: Context, table: Table, where: exp.Expression | None = None) -> None:
        """Read the live rows of `table` (planned on its latest snapshot).

        With `where` (a condition on the table's columns, as the statement spells it), only the
        files whose partition and statistics may hold a matching row (whole files: positions
        count from a file's start).
        """
        self.ctx = ctx
        self.table = table
        self.files: list[tuple[Split, DataFileMeta]] = []
        self.name: str | None = None
        #: `name` is a temporary table (not a registered Arrow table) that `close` drops.
        self.temporary = False
        snapshot_id = table.latest_snapshot_id()
        snapshot = None if snapshot_id is None else table.snapshot(snapshot_id)
        self.plan = plan_scan(table, snapshot, _predicate(table, where))
        pieces = _live_rows(ctx, self.plan, self.files)
        if pieces:
            self.name = f"__paimon_append_dv_{next(_names)}"
            ctx.engine.con.register(self.name, pa.concat_tables(pieces))

    def close(self) -> None:
        """Unregister the rows (or drop the temporary table a caller put in their place)."""
        if self.name is not None:
            con = self.ctx.engine.con
            if self.temporary:
                con.execute(drop("TABLE", table_node(self.name)).sql("duckdb"))
            else:
                con.unregister(self.name)
            self.name = None

    def commit(self, hits: list[tuple[Any, ...]], new_rows: exp.Select | None) -> None:
        """Mark `hits` (``(file, position)`` pairs) deleted, append `new_rows`: one snapshot.

        ``OVERWRITE`` when vectors change, as Java; a plain ``APPEND`` when only rows are added.
        """
        table = self.table
        writer = None
        index_written: list[str] = []
        messages: list[CommitMessage] = []
        committer = Committer(table)
        try:
            if new_rows is not None:
                writer = TableWriter(self.ctx.engine.con, table)
                written, _ = writer.write_stream(new_rows, RowKind.INSERT)
                messages.extend(written)
            messages.extend(_vector_messages(self.plan, self.files, hits, index_written))
            kind = CommitKind.OVERWRITE if hits else CommitKind.APPEND
            committer.commit(messages, kind=kind)
        except BaseException:
            if committer.landed is None:
                if writer is not None:
                    writer.abort()
                for path in index_written:
                    table.fileio.delete(path)
            raise
        self.ctx.changed(table)


def _predicate(table: Table, where: exp.Expression | None) -> Predicate | None:
    """What `where` implies about the table's files (pruning only: rows are filtered again)."""
    if where is None:
        return None
    schema = table.latest_schema
    select = (
        exp.select(exp.Star())
        .from_(exp.table_(table.name.split(".")[-1], quoted=True))
        .where(where.copy())
    )
    target = next(select.find_all(exp.Table))
    types = {f.name: f.type for f in schema.fields}
    return table_predicate(target, set(schema.field_names), types)


def mark_rows(
    ctx: Context,
    ident: Identifier,
    table: Table,
    where: exp.Where | None,
    sets: dict[str, exp.Expression] | None,
) -> int:
    """DELETE (`sets` None) or UPDATE of an append table with deletion vectors; rows affected."""
    schema = table.latest_schema
    live = LiveRows(ctx, table, where.this if where is not None else None)
    try:
        if live.name is None:
            return 0
        source = exp.alias_(
            exp.table_(live.name, quoted=True), ident.table, table=True, quoted=True
        )
        cond = exp.func(
            "COALESCE", where.this.copy() if where is not None else exp.true(), exp.false()
        )
        matched = (
            exp.select(exp.column(_FILE), exp.column(_POS)).from_(source.copy()).where(cond.copy())
        )
        ctx.bind(matched)
        hits = ctx.engine.con.sql(matched.sql("duckdb")).fetchall()
        if not hits:
            return 0
        updated = None
        if sets is not None:
            outputs = [
                exp.alias_(
                    exp.cast(sets[f.name].copy(), duckdb_type_node(f.type)), f.name, quoted=True
                )
                if f.name in sets
                else exp.column(f.name, quoted=True)
                for f in schema.fields
            ]
            updated = exp.select(*outputs).from_(source.copy()).where(cond.copy())
            ctx.bind(updated)
        live.commit(hits, updated)
    finally:
        live.close()
    return len(hits)


def _live_rows(
    ctx: Context, plan: ScanPlan, files: list[tuple[Split, DataFileMeta]]
) -> list[pa.Table]:
    """Every live row of the plan's files, with its file (index into `files`) and position."""
    reader = ctx.engine.reader
    columns = tuple(plan.schema.field_names)
    blobs: dict[str, bytes] = {}
    pieces = []
    for split in plan.splits:
        vectors = dict(split.deletion_vectors)
        for section in split.sections:
            for f in section.files:
                one = replace(
                    plan,
                    splits=(
                        replace(
                            split,
                            sections=(replace(section, files=(f,), merge=False),),
                            deletion_vectors=(),
                        ),
                    ),
                )
                batches = list(reader.batches(one, ReadRequest(columns=columns)))
                if not batches:
                    continue
                rows = pa.Table.from_batches(batches)
                if rows.num_rows != f.row_count:
                    raise AssertionError(
                        f"{f.file_name}: read {rows.num_rows} rows, the manifest says {f.row_count}"
                    )
                index = len(files)
                files.append((split, f))
                rows = rows.append_column(_POS, arange(rows.num_rows))
                rows = rows.append_column(_FILE, pa.array([index] * rows.num_rows, pa.int64()))
                ref = vectors.get(f.file_name)
                if ref is not None:
                    gone = read_vector(plan.table, ref, blobs)
                    keep = np.ones(rows.num_rows, dtype=bool)
                    keep[np.fromiter(gone, dtype=np.int64, count=len(gone))] = False
                    rows = rows.filter(pa.array(keep))
                pieces.append(rows)
    return pieces


def _vector_messages(
    plan: ScanPlan,
    files: list[tuple[Split, DataFileMeta]],
    hits: list[tuple[Any, ...]],
    written: list[str],
) -> list[CommitMessage]:
    """One commit message per (partition, bucket) whose deletion vectors change."""
    options = CoreOptions(plan.schema.options)
    wide = options.flag("deletion-vectors.bitmap64")
    unaware = plan.schema.bucket == -1
    marked: dict[int, list[int]] = defaultdict(list)
    for file_index, pos in hits:
        marked[int(file_index)].append(int(pos))
    by_bucket: dict[tuple[bytes, int], dict[str, list[int]]] = defaultdict(dict)
    splits: dict[tuple[bytes, int], Split] = {}
    for file_index, positions in marked.items():
        split, f = files[file_index]
        key = (split.partition_bytes, split.bucket)
        by_bucket[key][f.file_name] = positions
        splits.setdefault(key, split)
    index_files = _index_files(plan)
    old_refs: dict[tuple[bytes, int], dict[str, DvRef]] = defaultdict(dict)
    for split in plan.splits:
        for file_name, ref in split.deletion_vectors:
            old_refs[(split.partition_bytes, split.bucket)][file_name] = ref
    blobs: dict[str, bytes] = {}
    out = []
    for key, changed in by_bucket.items():
        split = splits[key]
        olds = index_files.get(key, {})
        refs = _bucket_refs(plan, split, olds, old_refs.get(key, {}))

        def vector(file_name: str, refs: dict[str, DvRef] = refs) -> Vector:
            ref = refs.get(file_name)
            if ref is not None:
                return read_vector(plan.table, ref, blobs)
            return BitMap64() if wide else BitMap()

        new_vectors: dict[str, Vector] = {}
        for file_name, positions in changed.items():
            v = vector(file_name)
            v.update(positions)
            new_vectors[file_name] = v
        if unaware:
            touched = {refs[n].index_file for n in changed if n in refs}
            new_files = []
            for index_name in sorted(touched):
                unchanged = {
                    d.data_file_name: vector(d.data_file_name)
                    for d in olds[index_name].dv_ranges or ()
                    if d.data_file_name not in changed
                }
                if unchanged:
                    new_files.append(_write(plan, split, unchanged, written))
            new_files.append(_write(plan, split, new_vectors, written))
            deleted = tuple(olds[n] for n in sorted(touched))
        else:
            merged = {n: vector(n) for n in refs}
            merged.update(new_vectors)
            new_files = [_write(plan, split, merged, written)]
            deleted = tuple(olds.values())
        out.append(
            CommitMessage(
                partition=split.partition_bytes,
                bucket=split.bucket,
                total_buckets=split.total_buckets,
                new_index_files=tuple(new_files),
                deleted_index_files=deleted,
            )
        )
    return out


def _bucket_refs(
    plan: ScanPlan, split: Split, olds: dict[str, IndexFileMeta], planned: dict[str, DvRef]
) -> dict[str, DvRef]:
    """Every vector of a bucket, also of files the condition pruned from the plan.

    Their vectors are rewritten or carried over too. `planned`: the refs the planner resolved.
    """
    refs: dict[str, DvRef] = {}
    for meta in olds.values():
        for d in meta.dv_ranges or ():
            if d.data_file_name in planned:
                continue
            if meta.external_path:
                raise UnsupportedFeatureError(
                    f"{plan.table.name}: deletion-vector index file {meta.file_name} has an "
                    "external path; paimon-sql marks rows only in index files under the table"
                )
            refs[d.data_file_name] = DvRef(
                index_file=meta.file_name,
                index_path=index_file_path(plan, split, meta.file_name),
                meta=d,
                index_file_size=meta.file_size,
            )
    refs.update(planned)
    return refs


def _index_files(plan: ScanPlan) -> dict[tuple[bytes, int], dict[str, IndexFileMeta]]:
    """The deletion-vector index files of the plan's snapshot, per (partition, bucket)."""
    out: dict[tuple[bytes, int], dict[str, IndexFileMeta]] = defaultdict(dict)
    snapshot = plan.snapshot
    if snapshot is None or snapshot.index_manifest is None:
        return out
    for entry in plan.table.index_manifest(snapshot.index_manifest):
        if entry.kind is FileKind.ADD and entry.index_file.index_type == DV_INDEX:
            out[(entry.partition, entry.bucket)][entry.index_file.file_name] = entry.index_file
    return out


def _write(
    plan: ScanPlan, split: Split, vectors: dict[str, Vector], written: list[str]
) -> IndexFileMeta:
    """One deletion-vector index file holding `vectors` (§8)."""
    entries = sorted(vectors.items())
    blob, ranges = encode_index([bitmap for _, bitmap in entries])
    metas = tuple(
        DeletionVectorMeta(
            data_file_name=name, offset=offset, length=length, cardinality=len(bitmap)
        )
        for (name, bitmap), (offset, length) in zip(entries, ranges, strict=True)
    )
    name = f"index-{uuid.uuid4()}-0"
    path = index_file_path(plan, split, name)
    written.append(path)
    plan.table.fileio.write_bytes(path, blob)
    return IndexFileMeta(
        index_type=DV_INDEX,
        file_name=name,
        file_size=len(blob),
        row_count=len(metas),
        dv_ranges=metas,
    )
