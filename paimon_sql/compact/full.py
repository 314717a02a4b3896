"""Full compaction: each (partition, bucket) rewritten as one sorted run, in one COMPACT snapshot.

What Java's full compaction does (seed 000; paimon-format.md §7, §8, §9), restated:

* **Primary-key tables.** A bucket is compacted unless it already is one sorted run at the top
  level (``num-levels - 1``; ``num-levels`` defaults to ``num-sorted-run.compaction-trigger + 1``
  = 6) without deletion vectors. All its live files, level 0 included (also where batch reads hide
  level 0: deletion vectors, first-row), are merged by the merge engine with deletion vectors
  applied; retractions are dropped (the output is the top level). Each row keeps the sequence
  number of the record that won (deduplicate, first-row) or of the last merged record
  (partial-update, aggregation, whose rows become ``+I``). Rows are written sorted by key into
  files rolled at ``target-file-size`` (128 MiB), ``_LEVEL`` = top level, ``_FILE_SOURCE`` =
  COMPACT.
  A bucket that is a single file without retractions or deletion vectors is only moved to the
  top level (Java's upgrade: the same file, DELETE at its old level and ADD at the top level).
* **Append tables.** Per (partition, bucket), the small files (under half of
  ``target-file-size``, 256 MiB) and every file with a deletion vector are rewritten in sequence
  order, deletion vectors applied, into files of ``target-file-size`` at level 0. The new files
  number their rows from the first rewritten file's ``_MIN_SEQUENCE_NUMBER`` (Java's append
  compaction). Nothing happens while fewer than two such files exist and none has a deletion
  vector.
* **The commit.** One COMPACT snapshot: DELETE entries for the rewritten files (compact before),
  ADD entries for the new ones (compact after); the bucket's deletion-vector index files leave the
  index manifest (every file they covered is gone). A compaction that fails deletes the files it
  wrote and makes no snapshot.

Reading the merged rows needs the reader's SQL run on DuckDB, which this package never imports:
the caller passes `read`, a `BucketReader` (a function from a `ScanPlan` of one bucket to its
rows; ``paimon_sql.engine.context.Engine.bucket_reader`` runs it on DuckDB).
"""

from __future__ import annotations

import itertools
import uuid
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa

from paimon_sql.catalog import names
from paimon_sql.commit.plan import CommitMessage, refuse_row_rewrite
from paimon_sql.commit.publish import Committer
from paimon_sql.commit.retry import on_latest
from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.manifest import FileKind, FileSource
from paimon_sql.format.options import ChangelogProducer, CoreOptions
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.plan.scan import ReadMode, ScanPlan, plan_scan
from paimon_sql.write.data_file import data_file_name, write_data_file

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.format.manifest import DataFileMeta, IndexFileMeta
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.scan import Split

DV_INDEX = "DELETION_VECTORS"


class BucketReader(Protocol):
    """The bucket reader: the rows of a one-bucket `ScanPlan`.

    The table columns (PK tables: then ``_SEQUENCE_NUMBER`` and ``_VALUE_KIND``), merged and sorted
    by key for primary-key tables, in split order for append tables; with `keys` (a table of key
    columns), only the rows of those keys; with `keep_retractions`, a key whose merged record is a
    retraction too (its ``_VALUE_KIND`` says which); with `rows` (per data file name, the
    ascending positions of its rows to read), only those rows of the files it names, merged as the
    whole files would be (a reader may read other files than Parquet whole: the same rows come
    out). The SQL layer passes one that runs the reader's SQL on DuckDB
    (``paimon_sql.engine.reader.BucketRead``, which also carries the session's ``key_lookup``
    cache).
    """

    def __call__(  # noqa: D102
        self,
        plan: ScanPlan,
        keys: pa.Table | None = None,
        *,
        keep_retractions: bool = False,
        rows: Mapping[str, pa.Array[Any]] | None = None,
    ) -> Iterable[pa.RecordBatch]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactUnit:
    """One (partition, bucket) to rewrite: its files to replace, its DV index files to drop."""

    partition: bytes
    bucket: int
    total_buckets: int
    files: tuple[DataFileMeta, ...]
    index_files: tuple[IndexFileMeta, ...] = ()


def _plan(
    table: Table,
    snapshot: Snapshot,
    schema: TableSchema,
    buckets: Collection[tuple[bytes, int]] | None = None,
) -> ScanPlan:
    """A scan of every live file of `snapshot` (postpone buckets aside), level 0 included.

    Batch reads of deletion-vector and first-row tables hide level 0; compaction reads it.
    Primary-key tables are merged by key, deletion vectors applied.
    """
    mode = ReadMode.MERGE if schema.primary_keys else None
    return plan_scan(
        table, snapshot, schema=schema, mode=mode, include_level0=True, buckets=buckets
    )


def _by_bucket(plan: ScanPlan) -> dict[tuple[bytes, int], list[Split]]:
    """The plan's splits per (partition, bucket), in plan order."""
    out: dict[tuple[bytes, int], list[Split]] = defaultdict(list)
    for split in plan.splits:
        out[(split.partition_bytes, split.bucket)].append(split)
    return out


def _dv_index_files(
    table: Table, snapshot: Snapshot
) -> dict[tuple[bytes, int], list[IndexFileMeta]]:
    out: dict[tuple[bytes, int], list[IndexFileMeta]] = defaultdict(list)
    if snapshot.index_manifest is None:
        return out
    for entry in table.index_manifest(snapshot.index_manifest):
        if entry.kind is FileKind.ADD and entry.index_file.index_type == DV_INDEX:
            out[(entry.partition, entry.bucket)].append(entry.index_file)
    return out


def _pick(
    files: Sequence[DataFileMeta], with_dv: set[str], schema: TableSchema
) -> tuple[DataFileMeta, ...]:
    """The files of one bucket (in sequence order) that full compaction rewrites.

    None when the bucket is compacted already.

    Primary-key tables: all, unless one run at the top level without deletion vectors. Append
    tables: the small files and those with deletion vectors; in fixed buckets (ordered queues) all
    files from the first such one on, so the rows keep their order.
    """
    if schema.primary_keys:
        top = CoreOptions(schema.options).top_level
        if with_dv or any(f.level != top for f in files):
            return tuple(files)
        return ()
    small = CoreOptions(schema.options).target_file_size(False) // 2

    def rewrite(f: DataFileMeta) -> bool:
        return f.file_size < small or f.file_name in with_dv

    if schema.bucket > 0:
        first = next((i for i, f in enumerate(files) if rewrite(f)), len(files))
        chosen = tuple(files[first:])
    else:
        chosen = tuple(f for f in files if rewrite(f))
    return chosen if len(chosen) > 1 or any(f.file_name in with_dv for f in chosen) else ()


def compaction_units(
    table: Table,
    snapshot: Snapshot,
    schema: TableSchema,
    partition_ok: Callable[[tuple[Any, ...]], bool] | None = None,
) -> list[CompactUnit]:
    """What a full compaction of `snapshot` rewrites, per (partition, bucket).

    `partition_ok` selects partitions by their values (in partition-key order). Postpone-bucket
    files are left alone.
    """
    return [unit for unit, _ in _units(table, _plan(table, snapshot, schema), partition_ok)]


def _units(
    table: Table,
    plan: ScanPlan,
    partition_ok: Callable[[tuple[Any, ...]], bool] | None,
) -> list[tuple[CompactUnit, ScanPlan]]:
    """The units to rewrite, each with the scan of exactly its files."""
    assert plan.snapshot is not None
    dv_files = _dv_index_files(table, plan.snapshot)
    units = []
    for (part, bucket), splits in _by_bucket(plan).items():
        if partition_ok is not None and not partition_ok(splits[0].partition):
            continue
        files = sorted(
            (f for s in splits for f in s.files), key=lambda f: (f.min_sequence_number, f.file_name)
        )
        with_dv = {name for s in splits for name, _ in s.deletion_vectors}
        chosen = _pick(files, with_dv, plan.schema)
        if chosen:
            unit = CompactUnit(
                partition=part,
                bucket=bucket,
                total_buckets=splits[0].total_buckets,
                files=chosen,
                index_files=tuple(dv_files.get((part, bucket), ())),
            )
            units.append((unit, _unit_plan(plan, splits, unit)))
    return units


def _unit_plan(plan: ScanPlan, splits: Sequence[Split], unit: CompactUnit) -> ScanPlan:
    """A scan of exactly the unit's files, cut from `splits` (its bucket's splits in `plan`).

    Primary-key tables: the bucket's key-ordered splits, merged (a unit is every file of its
    bucket). Append tables: one split per file in sequence order, so the rows keep their order.
    """
    if plan.schema.primary_keys:
        return replace(plan, splits=tuple(splits))
    sections = {sec.files[0].file_name: (s, sec) for s in splits for sec in s.sections}
    out = []
    for f in unit.files:
        split, section = sections[f.file_name]
        dvs = tuple((name, ref) for name, ref in split.deletion_vectors if name == f.file_name)
        out.append(replace(split, sections=(section,), deletion_vectors=dvs))
    return replace(plan, splits=tuple(out))


class Rewriter:
    """Writes a unit's rows into new files.

    Files are rolled at a row count estimated from the inputs' bytes per row.
    """

    def __init__(self, table: Table, schema: TableSchema, written: list[str]) -> None:
        self.table = table
        self.schema = schema
        self.options = CoreOptions(schema.options)
        self.pk = bool(schema.primary_keys)
        self.written = written
        self._prefix = str(uuid.uuid4())
        self._counter = itertools.count()

    def rows_per_file(self, unit: CompactUnit) -> int:
        """Rows per new file: ``target-file-size`` over the unit's bytes per row."""
        rows = sum(f.row_count for f in unit.files) or 1
        per_row = max(1.0, sum(f.file_size for f in unit.files) / rows)
        return max(1, int(self.options.target_file_size(self.pk) / per_row))

    def _path(self, bucket_path: str) -> str:
        fmt = self.options.file_format
        prefix = names.file_prefix(self.options.options, "data-file.prefix")
        name = data_file_name(self._prefix, next(self._counter), fmt, prefix)
        return self.table.fileio.join(bucket_path, name)

    def write(
        self,
        unit: CompactUnit,
        bucket_path: str,
        batches: Iterable[pa.RecordBatch],
        level: int | None = None,
    ) -> CommitMessage:
        """The unit's files replaced by `batches`, written at `level`.

        `level` defaults to the top level for primary-key tables, 0 for append tables.
        """
        if level is None:
            level = self.options.top_level if self.pk else 0
        sequence = min(f.min_sequence_number for f in unit.files)
        new_files: list[DataFileMeta] = []
        # Primary-key files are also cut at ``write-buffer-size`` Arrow bytes (bounded memory;
        # their level, not their size, marks them compacted). Append files are not: a smaller file
        # would count as small and be compacted again.
        budget = self.options.memory("write-buffer-size") if self.pk else None
        for chunk in _chunks(batches, self.rows_per_file(unit), budget):
            path = self._path(bucket_path)
            self.written.append(path)
            meta = write_data_file(
                self.table.fileio,
                path,
                chunk,
                schema=self.schema,
                level=level,
                first_sequence_number=None if self.pk else sequence,
                file_source=FileSource.COMPACT,
            )
            sequence += chunk.num_rows
            new_files.append(meta)
        return CommitMessage(
            partition=unit.partition,
            bucket=unit.bucket,
            total_buckets=unit.total_buckets,
            new_files=tuple(new_files),
            deleted_files=unit.files,
            deleted_index_files=unit.index_files,
        )


def _chunks(
    batches: Iterable[pa.RecordBatch], rows: int, max_bytes: int | None = None
) -> Iterator[pa.Table]:
    """The stream cut into tables of `rows` rows (the last one shorter), one held at a time.

    With `max_bytes`, a table is also cut once it holds that many Arrow bytes.
    """
    pending: list[pa.RecordBatch] = []
    have = size = 0
    budget = max_bytes or 0
    for batch in batches:
        if not batch.num_rows:
            continue
        pending.append(batch)
        have += batch.num_rows
        size += batch.nbytes
        while have >= rows or (budget and size >= budget and have):
            table = pa.Table.from_batches(pending)
            cut = rows if have >= rows else max(1, have * budget // size)
            yield table.slice(0, cut)
            rest = table.slice(cut)
            pending, have = rest.to_batches(), rest.num_rows
            size = sum(b.nbytes for b in pending)
    if have:
        yield pa.Table.from_batches(pending)


def _upgrade(unit: CompactUnit, schema: TableSchema) -> CommitMessage | None:
    """Java's level upgrade; None when the unit needs a rewrite.

    A bucket that is a single file without retractions or deletion vectors moves to the top level
    without a rewrite (DELETE at its level + ADD of the same file at the top level).
    """
    if not schema.primary_keys or len(unit.files) != 1 or unit.index_files:
        return None
    (f,) = unit.files
    if f.delete_row_count != 0:  # None: unknown (old files), rewrite
        return None
    return CommitMessage(
        partition=unit.partition,
        bucket=unit.bucket,
        total_buckets=unit.total_buckets,
        new_files=(replace(f, level=CoreOptions(schema.options).top_level),),
        deleted_files=unit.files,
    )


def _check_supported(table: Table, schema: TableSchema, units: Sequence[CompactUnit]) -> None:
    """Refuse a compaction that would have to write changelog files but was given no maker.

    Changelog producers that need them: ``full-compaction`` always, ``lookup`` when level-0 files
    (not yet looked up) are compacted (`paimon_sql.compact.changelog` writes them).
    """
    producer = CoreOptions(schema.options).changelog_producer
    if not schema.primary_keys or producer not in (
        ChangelogProducer.FULL_COMPACTION,
        ChangelogProducer.LOOKUP,
    ):
        return
    if producer is ChangelogProducer.LOOKUP and all(f.level > 0 for u in units for f in u.files):
        return
    raise UnsupportedFeatureError(
        f"compacting {table.name}: 'changelog-producer'='{producer.value}' needs the "
        "compaction to write changelog files; compact it with paimon_sql.compact.changelog.compact"
    )


#: A different rewrite of one unit (the lookup compaction of deletion-vector tables): given the
#: unit, the rewriter (its ``written`` list collects every file to delete on failure) and the
#: unit's merged scan; its CommitMessage, or None to rewrite the unit in full.
UnitRewrite = Callable[[CompactUnit, Rewriter, ScanPlan], CommitMessage | None]
#: The changelog files of one unit (``changelog-producer`` lookup, full-compaction), written from
#: the unit's merged scan before it is rewritten (`paimon_sql.compact.changelog`).
ChangelogMaker = Callable[[CompactUnit, Rewriter, ScanPlan], tuple["DataFileMeta", ...]]


def compact(
    table: Table,
    read: BucketReader,
    *,
    partition_ok: Callable[[tuple[Any, ...]], bool] | None = None,
    buckets: Collection[tuple[bytes, int]] | None = None,
    rewrite: UnitRewrite | None = None,
    changelog: ChangelogMaker | None = None,
) -> Snapshot | None:
    """Fully compact `table`: one COMPACT snapshot.

    Only the partitions `partition_ok` accepts, and with `buckets` only those (partition,
    bucket)s. `changelog` writes each unit's changelog files (tables with a ``lookup`` or
    ``full-compaction`` changelog producer; refused without it).

    Returns the snapshot, or None when every selected bucket is compacted already (no snapshot,
    as Java). Planned again on the new latest when expiration removes the planned-on snapshot.
    A row-tracking table is refused (`refuse_row_rewrite`).
    """
    refuse_row_rewrite(table.latest_schema.options, table.name, "compaction")
    return on_latest(
        table,
        lambda snapshot: _compact(table, snapshot, read, partition_ok, buckets, rewrite, changelog),
    )


def _rewrite(
    unit: CompactUnit,
    plan: ScanPlan,
    schema: TableSchema,
    rewriter: Rewriter,
    read: BucketReader,
    rewrite: UnitRewrite | None,
) -> CommitMessage:
    """One unit's commit message: upgraded, rewritten by `rewrite`, or merged in full."""
    upgraded = _upgrade(unit, schema)
    if upgraded is not None:
        return upgraded
    custom = rewrite(unit, rewriter, plan) if rewrite is not None else None
    if custom is not None:
        return custom
    return rewriter.write(unit, plan.splits[0].bucket_path, read(plan))


def _compact(
    table: Table,
    snapshot: Snapshot | None,
    read: BucketReader,
    partition_ok: Callable[[tuple[Any, ...]], bool] | None,
    buckets: Collection[tuple[bytes, int]] | None,
    rewrite: UnitRewrite | None,
    changelog: ChangelogMaker | None = None,
) -> Snapshot | None:
    if snapshot is None:
        return None
    schema = table.latest_schema
    units = _units(table, _plan(table, snapshot, schema, buckets), partition_ok)
    if not units:
        return None
    if changelog is None:
        _check_supported(table, schema, [unit for unit, _ in units])
    written: list[str] = []
    rewriter = Rewriter(table, schema, written)
    committer = Committer(table)
    try:
        messages = []
        for unit, plan in units:
            logged = changelog(unit, rewriter, plan) if changelog is not None else ()
            messages.append(
                replace(
                    _rewrite(unit, plan, schema, rewriter, read, rewrite), changelog_files=logged
                )
            )
        return committer.commit(messages, kind=CommitKind.COMPACT)
    except BaseException:
        if committer.landed is None:  # a landed snapshot keeps its files, whatever came after
            for path in written:
                table.fileio.delete(path)
                table.fileio.delete(path + ".index")  # its file index, if one was written
        raise
