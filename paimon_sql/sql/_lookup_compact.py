"""Lookup compaction of deletion-vector tables: level 0 merged a level up, old rows marked deleted.

Java's writer of a primary-key table with ``deletion-vectors.enabled`` compacts every write with a
lookup compaction (seed 001; paimon-format.md §7, §8; ``ForceUpLevel0Compaction``,
``LookupMergeTreeCompactRewriter``): the level-0 files are merged, each key with what the higher
levels hold for it, into a new file one level above the highest non-empty run (``next run level
- 1``), and the rows of higher-level files whose key now lives in the new file are marked in the
bucket's deletion vectors instead of being rewritten. `lookup_rewrite` does that for one
(partition, bucket) of `paimon_sql.write.compact`:

* the new file holds, for every key that occurs in a level-0 file (retractions included), the
  row a merge of all the bucket's files gives (deletion vectors applied; a key that ends deleted
  is left out: every older copy of it is marked deleted, so nothing of it stays live), sorted by
  key, with the winning record's sequence number. ``sequence.field``, partial-update and
  aggregation are merged by the reader exactly as in full compaction;
* every row of a higher-level file whose key is such a key is added to that file's deletion
  vector; the bucket's one DV index file (``index/index-<uuid>-<n>``) is rewritten in full
  (§8: one DV file per bucket, rewritten whenever one of its DVs changes).

Where Java would merge down into level 1 (the highest run is there already), where the bucket
has no higher-level file, where a file has another schema than the table's, or with
``deletion-vectors.bitmap64``, it returns None and the bucket is fully compacted instead.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from pyroaring import BitMap

from paimon_sql.format.deletion_vector import decode_vector, encode_vector
from paimon_sql.format.manifest import DeletionVectorMeta, IndexFileMeta
from paimon_sql.sql._arrow import arrow_type
from paimon_sql.sql._reader import _avro_table, _orc_table, _parquet_remote, data_file_path
from paimon_sql.write.compact import DV_INDEX

if TYPE_CHECKING:
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.plan.scan import ScanPlan
    from paimon_sql.write.compact import CompactUnit, ReadBucket, UnitRewrite, _Planner, _Rewriter

_POS = "__paimon_pos"


def lookup_rewrite(read: ReadBucket) -> UnitRewrite:
    """The lookup compaction of one unit, reading merged rows with `read`."""

    def rewrite(
        planner: _Planner, unit: CompactUnit, rewriter: _Rewriter, plan: ScanPlan
    ) -> CommitMessage | None:
        level0 = [f for f in unit.files if f.level == 0]
        higher = [f for f in unit.files if f.level > 0]
        schema = planner.schema
        if not level0 or not higher or min(f.level for f in higher) <= 1:
            return None
        if any(f.schema_id != schema.id for f in unit.files):
            return None
        if (schema.options.get("deletion-vectors.bitmap64") or "").lower() == "true":
            return None
        keys = _distinct(pa.concat_tables([_keys(plan, f) for f in level0]))
        merged = _semi_join(_merged(read, plan), keys)
        bucket_path = plan.splits[0].bucket_path
        out_level = min(f.level for f in higher) - 1
        message = rewriter.write(
            replace(unit, files=tuple(level0)), bucket_path, merged.to_batches(), out_level
        )
        vectors = _old_vectors(planner, unit)
        for f in higher:
            marked = _positions(_keys(plan, f), keys)
            if len(marked):
                vectors[f.file_name] = vectors.get(f.file_name, BitMap()) | BitMap(marked)
        index = _write_index(planner, unit, rewriter, [f.file_name for f in higher], vectors)
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
        raw = _orc_table(plan, path, columns)
    elif name.endswith(".avro"):
        raw = _avro_table(plan, f, path, columns)
    else:
        raw = _parquet_remote(plan, path, columns)
    return raw.select(columns).cast(target)


def _distinct(keys: pa.Table) -> pa.Table:
    return keys.group_by(keys.column_names).aggregate([])


def _positions(rows: pa.Table, keys: pa.Table) -> np.ndarray:
    """The positions of `rows` whose key is in `keys`, ascending."""
    indexed = rows.append_column(_POS, pa.array(np.arange(rows.num_rows, dtype=np.int64)))
    hit = indexed.join(keys, keys=list(keys.column_names), join_type="left semi")
    return np.sort(hit.column(_POS).to_numpy())


def _merged(read: ReadBucket, plan: ScanPlan) -> pa.Table:
    batches = [b for b in read(plan) if b.num_rows]
    if not batches:
        return pa.table({})
    return pa.Table.from_batches(batches)


def _semi_join(merged: pa.Table, keys: pa.Table) -> pa.Table:
    """The merged rows whose key is in `keys`, in the reader's (key) order."""
    if merged.num_rows == 0:
        return merged
    key_rows = merged.select(keys.column_names).cast(keys.schema)
    return merged.take(pa.array(_positions(key_rows, keys)))


def _old_vectors(planner: _Planner, unit: CompactUnit) -> dict[str, BitMap]:
    out: dict[str, BitMap] = {}
    blobs: dict[str, bytes] = {}
    for name, ref in planner.dvs.get((unit.partition, unit.bucket), {}).items():
        if ref.index_path not in blobs:
            blobs[ref.index_path] = planner.table.fileio.read_bytes(ref.index_path)
        vector = decode_vector(blobs[ref.index_path], ref.meta.offset, ref.index_file)
        out[name] = BitMap(vector)
    return out


def _write_index(
    planner: _Planner,
    unit: CompactUnit,
    rewriter: _Rewriter,
    files: Sequence[str],
    vectors: dict[str, BitMap],
) -> tuple[IndexFileMeta, ...]:
    """The bucket's new DV index file (§8), covering the live files in `files`; none if empty."""
    entries = [(name, vectors[name]) for name in files if vectors.get(name)]
    if not entries:
        return ()
    blob, metas = _encode(entries)
    name = f"index-{uuid.uuid4()}-0"
    path = planner.index_path(unit.partition, unit.bucket, name)
    rewriter.written.append(path)
    planner.table.fileio.write_bytes(path, blob)
    meta = IndexFileMeta(
        index_type=DV_INDEX,
        file_name=name,
        file_size=len(blob),
        row_count=len(metas),
        dv_ranges=tuple(metas),
    )
    return (meta,)


def _encode(entries: Iterable[tuple[str, BitMap]]) -> tuple[bytes, list[DeletionVectorMeta]]:
    """Index file bytes and ranges: f1 = entry offset, f2 = size (32-bit: without length, CRC)."""
    parts, metas = [b"\x01"], []
    offset = 1
    for name, bitmap in entries:
        entry = encode_vector(bitmap)
        size = len(entry) - 8
        metas.append(
            DeletionVectorMeta(
                data_file_name=name, offset=offset, length=size, cardinality=len(bitmap)
            )
        )
        parts.append(entry)
        offset += len(entry)
    return b"".join(parts), metas
