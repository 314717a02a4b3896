"""Lookup compaction: leading runs merged a level up, reading only the keys they hold.

Java's writer of a primary-key table that needs lookup (``deletion-vectors.enabled``, first-row,
``changelog-producer`` = lookup) compacts every write with a lookup compaction (seed 001;
paimon-format.md §7, §8; ``ForceUpLevel0Compaction`` over ``UniversalCompaction``,
``LookupMergeTreeCompactRewriter``). `paimon_sql.compact.picking` chooses the runs as Java does;
picking every run is a full compaction (`paimon_sql.compact.full`). `lookup_rewrite` then, for one
(partition, bucket), writes one new file at the output level holding, per key of a picked file,
the row Java's lookup wrappers give, sorted by key:

* **deletion vectors**: the row a merge of the bucket gives (vectors applied; a key that ends
  deleted is left out: every older copy of it is marked deleted, so nothing of it stays live),
  with the winning record's sequence number; every row of a kept file with such a key is added to
  that file's deletion vector, and the bucket's one DV index file (``index/index-<uuid>-<n>``) is
  rewritten in full (§8; `paimon_sql.format.deletion_vector.encode_index`); the picked files'
  vectors go;
* **no deletion vectors** (first-row, lookup changelog): the kept files stay as they are
  (`_rewrite_without_vectors`); the reader merges such a table as Java's ``LookupMergeFunction``
  (level 0 plus each key's lowest level >= 1: `paimon_sql.read.build`).

Only the keys the picked runs hold are read. The keys only level-0 files hold are looked up in
the kept files (`_look_up`): files whose ``_MIN_KEY``/``_MAX_KEY`` hold none are skipped, and in
the others only the Parquet row groups whose key statistics may hold one are read
(`paimon_sql.io.key_lookup.KeyLookup`, whose footers and key columns the session caches per data
file, in memory and then in local files: a warm lookup of k keys costs O(k log n)). The merged
rows come from the reader restricted to those keys (a semi-join below the merge) over the picked
files and the kept files that hold one -- only the picked files for a deduplicate table without
``sequence.field`` that produces no changelog: its newest record wins whatever the kept ones hold,
which are only marked (Java's lookup keeps positions only there, ``PersistPositionProcessor``).
Of a kept Parquet file only the rows at the positions found are read (`_old_rows`; the reader's
``rows``: the row groups holding them, through the cached footer, then those rows), and merged
as the whole file would be (its level, sequence numbers, vector); a kept ORC or Avro file is read
whole, restricted by the semi-join (the same rows, more bytes). The changelog of
``changelog-producer`` = lookup (`paimon_sql.compact.changelog`) reads its older rows the same
way.
First-row tables take which keys the kept files hold from the lookup. ``sequence.field``,
partial-update and aggregation are merged by the reader exactly as in full compaction.

What is cached is per immutable data file: which files are live, and their deletion vectors, are
always the snapshot's being compacted, so a compaction or expiration by another writer between
two writes of a session is seen at once, and a concurrent commit is caught by the commit's
conflict check (the compaction is then planned again on the new latest snapshot).

Java's file sizes differ from ours, so where a size falls on the other side of a ratio the layout
(not the rows) may differ from Java's. A bucket whose files have another schema than the table's,
is fully compacted instead. Under ``deletion-vectors.bitmap64`` a file's new vector is 64-bit
(Java's ``Bitmap64DeletionVector``); a vector that exists keeps its width, as in Java.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyroaring import BitMap, BitMap64

from paimon_sql.compact.full import DV_INDEX
from paimon_sql.compact.picking import pick, sorted_runs
from paimon_sql.errors import SpecViolationError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.deletion_vector import encode_index
from paimon_sql.format.manifest import DeletionVectorMeta, IndexFileMeta
from paimon_sql.format.options import ChangelogProducer, CoreOptions, MergeEngine
from paimon_sql.io.arrays import arange
from paimon_sql.io.datafiles import read_avro, read_orc
from paimon_sql.io.key_lookup import KeyLookup
from paimon_sql.plan.scan import Section, data_file_path, index_file_path, read_vector
from paimon_sql.types import arrow_type

_ROW = "__paimon_row"

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.compact.full import BucketReader, CompactUnit, Rewriter, UnitRewrite
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.plan.scan import ScanPlan


def lookup_rewrite(read: BucketReader) -> UnitRewrite:
    """The lookup compaction of one unit, reading merged rows with `read`.

    Deletion-vector tables as the module says; tables without vectors (first-row,
    ``changelog-producer`` = lookup) by `_rewrite_without_vectors`.
    """

    def rewrite(unit: CompactUnit, rewriter: Rewriter, plan: ScanPlan) -> CommitMessage | None:
        schema = plan.schema
        options = CoreOptions(schema.options)
        if any(f.schema_id != schema.id for f in unit.files):
            return None
        vectors_on = options.deletion_vectors and not options.deletion_vectors_merge_on_read
        runs = sorted_runs(unit.files)
        picked = pick(runs, schema.options) if runs and runs[0].level == 0 else None
        if picked is None:
            return None
        count, out_level = picked
        merged_files = [f for r in runs[:count] for f in r.files]
        kept = [f for r in runs[count:] for f in r.files]
        keyed = [(f, _keys(plan, f)) for f in merged_files]
        keys = _distinct(pa.concat_tables([k for _, k in keyed]))
        held: list[pa.Table] = []
        lookup = _key_lookup(read)
        looked = _level0_only(keyed, keys)
        hits = _look_up(plan, kept, looked, lookup, held)
        # the picked files are replaced by this compaction: what is cached of them is dead weight
        lookup.forget(data_file_path(plan, plan.splits[0], f) for f in merged_files)
        found = [f for f in kept if f.file_name in hits]
        target = replace(unit, files=tuple(merged_files))
        old_values = _needs_old_values(options)
        # first-row without vectors reads only the picked files (`_rewrite_without_vectors`)
        first_row = options.merge_engine is MergeEngine.FIRST_ROW
        values_read = old_values and (vectors_on or not first_row)
        rows = _old_rows(plan, found, keys, looked, hits, lookup) if values_read else {}
        if not vectors_on:
            return _rewrite_without_vectors(
                target, rewriter, plan, read, keyed, keys, found, out_level, held, rows
            )
        # the kept files' rows of the keys take part in the merge unless the newest record
        # wins whatever they hold (Java's lookup then keeps positions only, no values)
        sources = merged_files + (found if old_values else [])
        message = rewriter.write(
            target,
            plan.splits[0].bucket_path,
            read(_only_files(plan, sources), keys, rows=rows) if keys.num_rows else (),
            out_level,
        )
        vectors = _old_vectors(plan)
        wide = options.flag("deletion-vectors.bitmap64")
        for name, marked in hits.items():
            # a file's existing vector keeps its width, a new one is 64-bit under
            # deletion-vectors.bitmap64 (Java's BucketedDvMaintainer)
            old = vectors.get(name)
            if old is None:
                old = BitMap64() if wide else BitMap()
            old.update(marked.to_numpy().tolist())
            vectors[name] = old
        index = _write_index(plan, rewriter, [f.file_name for f in kept], vectors)
        return replace(message, new_index_files=index)

    return rewrite


def _rewrite_without_vectors(
    unit: CompactUnit,
    rewriter: Rewriter,
    plan: ScanPlan,
    read: BucketReader,
    keyed: Sequence[tuple[DataFileMeta, pa.Table]],
    keys: pa.Table,
    found: Sequence[DataFileMeta],
    out_level: int,
    held: Sequence[pa.Table] = (),
    rows: Mapping[str, pa.Array[Any]] | None = None,
) -> CommitMessage:
    """Java's lookup rewrite without deletion vectors: the kept files stay as they are.

    The new file at `out_level` holds, per key of the picked files (`unit.files`):

    * first-row (``FirstRowMergeFunctionWrapper``): the first record among the picked files,
      left out when all of them are level-0 records and a kept file holds the key (the older
      row stays the first one);
    * other merge engines (``LookupChangelogMergeFunctionWrapper``): the level-0 records merged
      with the key's record of its lowest level >= 1 (picked or kept), as the reader merges a
      lookup table; retractions are written too (the output is not the top level: a ``-D`` must
      hide the older record above it). Of the kept files only the rows at `rows` are read.
    """
    bucket_path = plan.splits[0].bucket_path
    if keys.num_rows == 0:
        return rewriter.write(unit, bucket_path, (), out_level)
    if CoreOptions(plan.schema.options).merge_engine is not MergeEngine.FIRST_ROW:
        merged_rows = read(
            _only_files(plan, [*unit.files, *found]), keys, keep_retractions=True, rows=rows
        )
        return rewriter.write(unit, bucket_path, merged_rows, out_level)
    merged = _table(read(_only_files(plan, list(unit.files)), keys))
    if found and held and merged is not None:
        # the keys the kept files hold (found by the lookup, among the keys no picked file
        # above level 0 holds): without vectors every stored row of a first-row table is live
        names = keys.column_names
        drop = _distinct(pa.concat_tables(held))
        merged = merged.filter(_not_in(merged.select(names).cast(keys.schema), drop))
    batches = merged.to_batches() if merged is not None else ()
    return rewriter.write(unit, bucket_path, batches, out_level)


def _needs_old_values(options: CoreOptions) -> bool:
    """Whether merging a key needs its older records, not only the newest one's position.

    Java's lookup keeps positions only (``PersistPositionProcessor``) for a deduplicate table
    without ``sequence.field`` that produces no changelog: the newest record wins.
    """
    return (
        options.merge_engine is not MergeEngine.DEDUPLICATE
        or bool(options.sequence_fields)
        or options.changelog_producer is ChangelogProducer.LOOKUP
    )


def _old_rows(
    plan: ScanPlan,
    found: Sequence[DataFileMeta],
    keys: pa.Table,
    looked: pa.Table,
    hits: Mapping[str, pa.Array[Any]],
    lookup: KeyLookup,
) -> dict[str, pa.Array[Any]]:
    """Per kept file of `found`: the positions of its rows with one of `keys`.

    Exactly the rows of those files the semi-join on `keys` keeps, so reading only them
    (`BucketReader`'s ``rows``) merges to what reading the whole files gives. `hits` holds the
    positions of the keys `looked` (looked up already): when those are all of `keys` they are
    the answer; otherwise (a picked run above level 0 holds some keys) the found files are
    searched again for every key (their key columns are cached by then).
    """
    if looked.num_rows == keys.num_rows:
        return {f.file_name: hits[f.file_name] for f in found}
    return _look_up(plan, found, keys, lookup)


def _table(batches: Iterable[pa.RecordBatch]) -> pa.Table | None:
    """The batches as one table (None when there are none)."""
    kept = list(batches)
    return pa.Table.from_batches(kept) if kept else None


def _not_in(rows: pa.Table, keys: pa.Table) -> pa.Array[Any]:
    """Per row of `rows` (key columns only): whether its key is not a row of `keys`."""
    if keys.num_rows == 0:
        return pa.array([True] * rows.num_rows, pa.bool_())
    if rows.num_columns == 1:
        return pc.invert(pc.is_in(rows.column(0), value_set=keys.column(0).combine_chunks()))
    indexed = rows.append_column(_ROW, arange(rows.num_rows))
    hit = indexed.join(keys, keys=list(keys.column_names), join_type="left semi").column(_ROW)
    mask = pc.is_in(arange(rows.num_rows), value_set=hit.combine_chunks())
    return pc.invert(mask)


def _level0_only(keyed: Sequence[tuple[DataFileMeta, pa.Table]], keys: pa.Table) -> pa.Table:
    """The keys of `keys` no picked file above level 0 holds: those looked up in the kept files.

    As Java's lookup wrappers: a key with a record in a picked run above level 0 merges with that
    record (its older copies further up were marked, or lose to it, when it got there).
    """
    high = [k for f, k in keyed if f.level > 0]
    if not high or keys.num_rows == 0:
        return keys
    return keys.filter(_not_in(keys, _distinct(pa.concat_tables(high))))


def _key_lookup(read: BucketReader) -> KeyLookup:
    """The session's key-column cache the reader carries, or a fresh one."""
    found = getattr(read, "key_lookup", None)
    return found if isinstance(found, KeyLookup) else KeyLookup()


def _look_up(
    plan: ScanPlan,
    files: Sequence[DataFileMeta],
    keys: pa.Table,
    lookup: KeyLookup,
    held: list[pa.Table] | None = None,
) -> dict[str, pa.Array[Any]]:
    """Per file of `files` holding one of `keys`: the positions of its rows with those keys.

    Files whose key range (``_MIN_KEY``/``_MAX_KEY``) holds none of the keys are not opened; in the
    others only the row groups whose statistics may hold one are read (`KeyLookup`). The keys
    found are appended to `held`, if given (per file; a key may be in several).
    """
    out: dict[str, pa.Array[Any]] = {}
    if keys.num_rows == 0:
        return out
    types = [plan.schema.field(k).type for k in keys.column_names]
    ordered = keys.sort_by([(k, "ascending") for k in keys.column_names])
    low = _sortable(tuple(ordered.slice(0, 1).to_pylist()[0].values()))
    high = _sortable(tuple(ordered.slice(ordered.num_rows - 1).to_pylist()[0].values()))
    for f in files:
        if _sortable(decode_row(f.max_key, types)) < low:
            continue
        if _sortable(decode_row(f.min_key, types)) > high:
            continue
        path = data_file_path(plan, plan.splits[0], f)
        found, present = lookup.find(plan.table.fileio, path, f.file_size, f.format, keys)
        if len(found):
            out[f.file_name] = found
            if held is not None:
                held.append(present)
    return out


def _sortable(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0, 0) if v is None else (1, v) for v in key)


def _only_files(plan: ScanPlan, files: Sequence[DataFileMeta]) -> ScanPlan:
    """`plan` (one bucket) reading just `files`, merged as one section, their vectors applied."""
    names = {f.file_name for f in files}
    vectors = tuple(
        (name, ref)
        for split in plan.splits
        for name, ref in split.deletion_vectors
        if name in names
    )
    split = replace(
        plan.splits[0],
        sections=(Section(files=tuple(files), merge=True),),
        deletion_vectors=vectors,
    )
    return replace(plan, splits=(split,))


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
