"""Lookup compaction of deletion-vector tables: leading runs merged a level up, old rows marked.

Java's writer of a primary-key table with ``deletion-vectors.enabled`` compacts every write with a
lookup compaction (seed 001; paimon-format.md §7, §8; ``ForceUpLevel0Compaction`` over
``UniversalCompaction``, ``LookupMergeTreeCompactRewriter``). `pick` chooses the runs as Java
does: the bucket's sorted runs are its level-0 files (newest first) and then each level >= 1;
with ``num-sorted-run.compaction-trigger`` (5) runs or more, size amplification
(``compaction.max-size-amplification-percent``) or the size ratio (``compaction.size-ratio``) may
pick; otherwise all level-0 runs, plus each following run while the picked size (times
``1 + ratio/100``) reaches it. The output level is the next run's level minus one (never 0);
picking every run is a full compaction (`paimon_sql.write.compact`). `lookup_rewrite` then, for
one (partition, bucket):

* writes one new file holding, for every key that occurs in a picked file (retractions
  included), the row a merge of all the bucket's files gives (deletion vectors applied; a key
  that ends deleted is left out: every older copy of it is marked deleted, so nothing of it stays
  live), sorted by key, with the winning record's sequence number. ``sequence.field``,
  partial-update and aggregation are merged by the reader exactly as in full compaction;
* adds every row of a file it keeps whose key is such a key to that file's deletion vector; the
  bucket's one DV index file (``index/index-<uuid>-<n>``) is rewritten in full (§8: one DV file
  per bucket, rewritten whenever one of its DVs changes); the picked files' vectors go.

Java's file sizes differ from ours, so where a size falls on the other side of a ratio the layout
(not the rows) may differ from Java's. A bucket whose files have another schema than the table's,
or ``deletion-vectors.bitmap64``, is fully compacted instead.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyroaring import BitMap

from paimon_sql.errors import SpecViolationError
from paimon_sql.format.deletion_vector import encode_vector
from paimon_sql.format.manifest import DeletionVectorMeta, IndexFileMeta
from paimon_sql.io.arrays import arange
from paimon_sql.plan.scan import read_vector
from paimon_sql.sql._arrow import arrow_type
from paimon_sql.sql._reader import _avro_table, _orc_table, data_file_path
from paimon_sql.compact.full import DV_INDEX, top_level

if TYPE_CHECKING:
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.plan.scan import ScanPlan
    from paimon_sql.compact.full import CompactUnit, ReadBucket, UnitRewrite, _Planner, _Rewriter

_POS = "__paimon_pos"


@dataclass(frozen=True, slots=True)
class _Run:
    """One sorted run of a bucket: a level-0 file, or all files of a level >= 1."""

    level: int
    files: tuple[DataFileMeta, ...]

    @property
    def size(self) -> int:
        return sum(f.file_size for f in self.files)


def _runs(files: Sequence[DataFileMeta]) -> list[_Run]:
    """Java's ``Levels.levelSortedRuns``: level-0 files newest first, then levels ascending."""
    level0 = sorted(
        (f for f in files if f.level == 0),
        key=lambda f: (f.max_sequence_number, f.file_name),
        reverse=True,
    )
    runs = [_Run(0, (f,)) for f in level0]
    for level in sorted({f.level for f in files if f.level > 0}):
        runs.append(_Run(level, tuple(f for f in files if f.level == level)))
    return runs


def pick(runs: Sequence[_Run], options: Mapping[str, str]) -> tuple[int, int] | None:
    """Java's ``ForceUpLevel0Compaction`` over ``UniversalCompaction``: (number of leading runs to
    merge, output level), or None when every run is merged (a full compaction to the top level).

    >>> runs = [_Run(0, ()), _Run(5, ())]
    >>> pick(runs, {}) is None
    True
    """
    max_level = top_level(options)
    trigger = int(options.get("num-sorted-run.compaction-trigger") or 5)
    ratio = int(options.get("compaction.size-ratio") or 1)
    amp = int(options.get("compaction.max-size-amplification-percent") or 200)
    sizes = [r.size for r in runs]

    def by_ratio(count: int, force: bool) -> int | None:
        candidate = sum(sizes[:count])
        for size in sizes[count:]:
            if candidate * (100.0 + ratio) / 100.0 < size:
                break
            candidate += size
            count += 1
        return count if force or count > 1 else None

    count: int | None = None
    if len(runs) >= trigger:
        if sum(sizes[:-1]) * 100 > amp * sizes[-1]:  # size amplification
            return None
        count = by_ratio(1, False)
        if count is None and len(runs) > trigger:
            count = by_ratio(len(runs) - trigger + 1, False)
    if count is None:
        count = by_ratio(sum(1 for r in runs if r.level == 0), True)
    return _unit(runs, count or 0, max_level)


def _unit(runs: Sequence[_Run], count: int, max_level: int) -> tuple[int, int] | None:
    """Java's ``UniversalCompaction.createUnit``: the output level is the next run's minus one,
    never 0; merging every run is a full compaction."""
    level = max(0, runs[count].level - 1) if count < len(runs) else max_level
    if level == 0:
        for run in runs[count:]:
            count += 1
            if run.level != 0:
                level = run.level
                break
    if count == len(runs):
        return None
    return count, level


def lookup_rewrite(read: ReadBucket) -> UnitRewrite:
    """The lookup compaction of one unit, reading merged rows with `read`."""

    def rewrite(
        planner: _Planner, unit: CompactUnit, rewriter: _Rewriter, plan: ScanPlan
    ) -> CommitMessage | None:
        schema = planner.schema
        if any(f.schema_id != schema.id for f in unit.files):
            return None
        if (schema.options.get("deletion-vectors.bitmap64") or "").lower() == "true":
            return None
        runs = _runs(unit.files)
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
        vectors = _old_vectors(planner, unit)
        for f in kept:
            marked = _positions(_keys(plan, f), keys)
            if len(marked):
                vectors[f.file_name] = vectors.get(f.file_name, BitMap()) | BitMap(marked.to_pylist())
        index = _write_index(planner, unit, rewriter, [f.file_name for f in kept], vectors)
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
        raw = _orc_table(plan, f, path, columns)
    elif name.endswith(".avro"):
        raw = _avro_table(plan, f, path, columns)
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
    return merged.take(_positions(key_rows, keys))


def _old_vectors(planner: _Planner, unit: CompactUnit) -> dict[str, BitMap]:
    out: dict[str, BitMap] = {}
    blobs: dict[str, bytes] = {}
    for name, ref in planner.dvs.get((unit.partition, unit.bucket), {}).items():
        vector = read_vector(planner.table, ref, blobs)
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
