"""Lookup compaction of deletion-vector tables: leading runs merged a level up, old rows marked.

Java's writer of a primary-key table with ``deletion-vectors.enabled`` compacts every write with a
lookup compaction (seed 001; paimon-format.md §7, §8; ``ForceUpLevel0Compaction`` over
``UniversalCompaction``, ``LookupMergeTreeCompactRewriter``). `paimon_sql.compact.picking`
chooses the runs as Java does; picking every run is a full compaction
(`paimon_sql.compact.full`). `lookup_rewrite` then, for one (partition, bucket):

* writes one new file holding, for every key that occurs in a picked file (retractions
  included), the row a merge of all the bucket's files gives (deletion vectors applied; a key
  that ends deleted is left out: every older copy of it is marked deleted, so nothing of it stays
  live), sorted by key, with the winning record's sequence number. ``sequence.field``,
  partial-update and aggregation are merged by the reader exactly as in full compaction;
* adds every row of a file it keeps whose key is such a key to that file's deletion vector; the
  bucket's one DV index file (``index/index-<uuid>-<n>``) is rewritten in full (§8: one DV file
  per bucket, rewritten whenever one of its DVs changes; encoded by
  `paimon_sql.format.deletion_vector.encode_index`); the picked files' vectors go.

Java's file sizes differ from ours, so where a size falls on the other side of a ratio the layout
(not the rows) may differ from Java's. A bucket whose files have another schema than the table's,
is fully compacted instead. Under ``deletion-vectors.bitmap64`` a file's new vector is 64-bit
(Java's ``Bitmap64DeletionVector``); a vector that exists keeps its width, as in Java.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyroaring import BitMap, BitMap64

from paimon_sql.compact.full import DV_INDEX
from paimon_sql.compact.picking import pick, sorted_runs
from paimon_sql.errors import SpecViolationError
from paimon_sql.format.deletion_vector import encode_index
from paimon_sql.format.manifest import DeletionVectorMeta, IndexFileMeta
from paimon_sql.format.options import CoreOptions
from paimon_sql.io.arrays import arange
from paimon_sql.io.datafiles import read_avro, read_orc
from paimon_sql.plan.scan import data_file_path, index_file_path, read_vector
from paimon_sql.types import arrow_type

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.compact.full import BucketReader, CompactUnit, Rewriter, UnitRewrite
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.plan.scan import ScanPlan

_POS = "__paimon_pos"


def lookup_rewrite(read: BucketReader) -> UnitRewrite:
    """The lookup compaction of one unit, reading merged rows with `read`."""

    def rewrite(unit: CompactUnit, rewriter: Rewriter, plan: ScanPlan) -> CommitMessage | None:
        schema = plan.schema
        if any(f.schema_id != schema.id for f in unit.files):
            return None
        runs = sorted_runs(unit.files)
        picked = pick(runs, schema.options) if runs and runs[0].level == 0 else None
        if picked is None:
            return None
        count, out_level = picked
        merged_files = [f for r in runs[:count] for f in r.files]
        kept = [f for r in runs[count:] for f in r.files]
        keys = _distinct(pa.concat_tables([_keys(plan, f) for f in merged_files]))
        rows = _semi_join(_merged(read, plan), keys)
        message = rewriter.write(
            replace(unit, files=tuple(merged_files)),
            plan.splits[0].bucket_path,
            rows.to_batches(),
            out_level,
        )
        vectors = _old_vectors(plan)
        wide = CoreOptions(schema.options).flag("deletion-vectors.bitmap64")
        for f in kept:
            marked = _positions(_keys(plan, f), keys)
            if len(marked):
                # a file's existing vector keeps its width, a new one is 64-bit under
                # deletion-vectors.bitmap64 (Java's BucketedDvMaintainer)
                old = vectors.get(f.file_name)
                if old is None:
                    old = BitMap64() if wide else BitMap()
                old.update(int(p) for p in marked.to_numpy())
                vectors[f.file_name] = old
        index = _write_index(plan, rewriter, [f.file_name for f in kept], vectors)
        return replace(message, new_index_files=index)

    return rewrite


def _key_schema(plan: ScanPlan) -> pa.Schema:
    schema = plan.schema
    return pa.schema(
        [pa.field(k, arrow_type(schema.field(k).type)) for k in schema.trimmed_primary_keys]
    )


def _keys(plan: ScanPlan, f: DataFileMeta) -> pa.Table:
    """The key columns of every stored row of `f`, in file order (row i = position i)."""
    target = _key_schema(plan)
    path = data_file_path(plan, plan.splits[0], f)
    columns = list(target.names)
    name = f.file_name.lower()
    if name.endswith(".orc"):
        raw = read_orc(plan.table.fileio, path, columns, size=f.file_size)
    elif name.endswith(".avro"):  # the file's schema is the table's (`lookup_rewrite` checks)
        raw = read_avro(plan.table.fileio, path, target)
    else:  # only the key columns decoded
        data = plan.table.fileio.read_bytes(path)
        try:
            raw = pq.read_table(pa.BufferReader(data), columns=columns)
        except (OSError, ValueError, pa.ArrowException) as err:
            raise SpecViolationError(f"corrupt Parquet data file {path}: {err}") from err
    return raw.select(columns).cast(target)


def _distinct(keys: pa.Table) -> pa.Table:
    return keys.group_by(keys.column_names).aggregate([])


def _positions(rows: pa.Table, keys: pa.Table) -> pa.Array:
    """The positions of `rows` whose key is in `keys`, ascending."""
    indexed = rows.append_column(_POS, arange(rows.num_rows))
    hit = indexed.join(keys, keys=list(keys.column_names), join_type="left semi")
    positions = hit.column(_POS).combine_chunks()
    return positions.take(pc.array_sort_indices(positions))


def _merged(read: BucketReader, plan: ScanPlan) -> pa.Table:
    batches = [b for b in read(plan) if b.num_rows]
    if not batches:
        return pa.table({})
    return pa.Table.from_batches(batches)


def _semi_join(merged: pa.Table, keys: pa.Table) -> pa.Table:
    """The merged rows whose key is in `keys`, in the reader's (key) order."""
    if merged.num_rows == 0:
        return merged
    key_rows = merged.select(keys.column_names).cast(keys.schema)
    return merged.take(_positions(key_rows, keys))


def _old_vectors(plan: ScanPlan) -> dict[str, BitMap | BitMap64]:
    """The deletion vectors of the unit's files (a unit is every file of its bucket).

    Each keeps the width (32 or 64 bits) it was written in.
    """
    out: dict[str, BitMap | BitMap64] = {}
    blobs: dict[str, bytes] = {}
    for split in plan.splits:
        for name, ref in split.deletion_vectors:
            out[name] = read_vector(plan.table, ref, blobs)
    return out


def _write_index(
    plan: ScanPlan,
    rewriter: Rewriter,
    files: Sequence[str],
    vectors: dict[str, BitMap | BitMap64],
) -> tuple[IndexFileMeta, ...]:
    """The bucket's new DV index file (§8), covering the live files in `files`; none if empty."""
    entries = [(name, vectors[name]) for name in files if vectors.get(name)]
    if not entries:
        return ()
    blob, ranges = encode_index([bitmap for _, bitmap in entries])
    metas = [
        DeletionVectorMeta(
            data_file_name=name, offset=offset, length=length, cardinality=len(bitmap)
        )
        for (name, bitmap), (offset, length) in zip(entries, ranges, strict=True)
    ]
    name = f"index-{uuid.uuid4()}-0"
    path = index_file_path(plan, plan.splits[0], name)
    rewriter.written.append(path)
    plan.table.fileio.write_bytes(path, blob)
    meta = IndexFileMeta(
        index_type=DV_INDEX,
        file_name=name,
        file_size=len(blob),
        row_count=len(metas),
        dv_ranges=tuple(metas),
    )
    return (meta,)
