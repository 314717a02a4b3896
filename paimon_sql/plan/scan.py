"""Scan planning: a snapshot's live files, pruned by partition, bucket and statistics, in splits.

Pruning rules (paimon-format.md §4.5, §8, §9):

* manifests by their partition statistics, entries by partition value and, when the filter fixes the
  bucket key, by bucket;
* files by key statistics on primary-key columns (always safe), and by value statistics only where
  no merge can bring an older version of a row back: append tables, deletion-vector tables,
  first-row;
* files by their file indexes (bloom-filter, bitmap, bsi; embedded in the manifest or a
  ``<file>.index`` beside the data file) where Java uses them: append tables and deletion-vector
  tables (``file-index.read.enabled``, default true), never for merged reads;
* visibility: level-0 files are hidden for deletion-vector and first-row tables (unless
  ``deletion-vectors.merge-on-read``; compaction plans with ``include_level0``), postpone-bucket
  files are always hidden.

Files of one (partition, bucket) are cut into sections of overlapping key ranges; a split holds
whole sections, so a merge never spans two readers.
"""

from __future__ import annotations

import enum
import struct
import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paimon_sql.catalog import names
from paimon_sql.catalog.gc_pause import gc_paused
from paimon_sql.errors import (
    CorruptFileError,
    DataFileNotFoundError,
    SpecViolationError,
    UnsupportedFeatureError,
)
from paimon_sql.format.binary_row import decode_row, row_arity
from paimon_sql.format.bucket import bucket_of
from paimon_sql.format.deletion_vector import decode_vector
from paimon_sql.format.file_index import INDEX_SUFFIX, FileIndex
from paimon_sql.format.manifest import (
    FileKind,
)
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.format.partition import PartitionLayout
from paimon_sql.plan.file_index import index_may_match
from paimon_sql.plan.predicate import ValueRange, fixed_values, may_match
from paimon_sql.types import refuse_case_clashes

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

    from pyroaring import BitMap, BitMap64

    from paimon_sql.catalog import Table
    from paimon_sql.format.manifest import (
        DataFileMeta,
        DeletionVectorMeta,
        ManifestEntry,
        SimpleStats,
    )
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.types import DataType

POSTPONE_BUCKET = -2
TARGET_SPLIT_BYTES = 128 * 1024 * 1024


class ReadMode(enum.Enum):
    """How a split's files become rows."""

    APPEND = "append"  # no primary key: concatenate (deletion vectors applied)
    DELETION_VECTORS = (
        "deletion-vectors"  # PK table with DVs: compacted files as they are, DVs applied
    )
    MERGE = "merge"  # PK table: merge sections by key with the merge engine


@dataclass(frozen=True, slots=True, kw_only=True)
class DvRef:
    """The deletion vector of one data file: index file and range inside it."""

    index_file: str
    index_path: str
    meta: DeletionVectorMeta
    index_file_size: int | None = None  # as the index manifest records it (checked when read)
    index_manifest: str = (
        "the index manifest"  # the path of the index manifest naming it, for errors
    )


def read_vector(table: Table, ref: DvRef, blobs: dict[str, bytes]) -> BitMap | BitMap64:
    """The deletion vector `ref` points at, checked against what the index manifest records.

    Checked (§8): the file's size, the vector's length and cardinality. `blobs` caches the index
    files read so far.
    """
    data = blobs.get(ref.index_path)
    if data is None:
        try:
            data = table.fileio.read_bytes(ref.index_path)
        except DataFileNotFoundError as err:
            raise DataFileNotFoundError(
                f"deletion-vector index file {ref.index_path} does not exist; "
                f"{ref.index_manifest} names it"
            ) from err
        if ref.index_file_size is not None and len(data) != ref.index_file_size:
            raise CorruptFileError(
                ref.index_path,
                f"it has {len(data)} bytes, {ref.index_manifest} says {ref.index_file_size}",
            )
        blobs[ref.index_path] = data
    try:
        return decode_vector(
            data,
            ref.meta.offset,
            ref.index_path,
            length=ref.meta.length,
            cardinality=ref.meta.cardinality,
        )
    except SpecViolationError as err:
        problem = str(err).removeprefix(ref.index_path + ": ")
        raise CorruptFileError(
            ref.index_path, f"{problem} (as listed by {ref.index_manifest})"
        ) from err


@dataclass(frozen=True, slots=True, kw_only=True)
class Section:
    """Files whose key ranges overlap; `merge` is False when one file (no retractions) suffices."""

    files: tuple[DataFileMeta, ...]
    merge: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Split:
    """The unit one reader handles: some sections of one (partition, bucket)."""

    partition: tuple[Any, ...]
    partition_bytes: bytes
    bucket: int
    bucket_path: str
    sections: tuple[Section, ...]
    deletion_vectors: tuple[tuple[str, DvRef], ...] = ()
    total_buckets: int = 0  # as the bucket's first live manifest entry records it (0: unknown)

    @property
    def files(self) -> tuple[DataFileMeta, ...]:
        """Every file of the split."""
        return tuple(f for s in self.sections for f in s.files)

    @property
    def row_count(self) -> int:
        """Physical rows in the split's files."""
        return sum(f.row_count for f in self.files)


@dataclass(slots=True)
class PruneStats:
    """What planning kept and dropped, for EXPLAIN."""

    manifests_total: int = 0
    manifests_pruned: int = 0
    files_total: int = 0
    files_pruned_partition: int = 0
    files_pruned_bucket: int = 0
    files_pruned_stats: int = 0
    files_pruned_index: int = 0
    files_hidden_level0: int = 0
    files_hidden_postpone: int = 0
    partitions: set[bytes] = field(default_factory=set)
    buckets: set[tuple[bytes, int]] = field(default_factory=set)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanPlan:
    """Everything a reader needs: the snapshot, schemas, mode and splits."""

    table: Table
    snapshot: Snapshot | None
    schema: TableSchema
    mode: ReadMode
    options: CoreOptions
    splits: tuple[Split, ...]
    stats: PruneStats


def read_mode(schema: TableSchema, options: CoreOptions) -> ReadMode:
    """Append, deletion vectors, or merge."""
    return _mode(bool(schema.primary_keys), options)


def _mode(keyed: bool, options: CoreOptions) -> ReadMode:
    if not keyed:
        return ReadMode.APPEND
    if options.deletion_vectors and not options.deletion_vectors_merge_on_read:
        return ReadMode.DELETION_VECTORS
    return ReadMode.MERGE


def hides_level0(options: Mapping[str, str], primary_keys: Sequence[str]) -> bool:
    """Whether batch reads of the table skip its level-0 files (deletion vectors, first-row).

    Java's batch scan of such a table reads only compacted files: a write's rows show once the
    compaction after it committed.

    >>> hides_level0({"deletion-vectors.enabled": "true"}, ["id"]), hides_level0({}, ["id"])
    (True, False)
    """
    core = CoreOptions(options)
    return _level0_hidden(_mode(bool(primary_keys), core), core)


def _level0_hidden(mode: ReadMode, options: CoreOptions) -> bool:
    return mode is ReadMode.DELETION_VECTORS or (
        mode is ReadMode.MERGE and options.merge_engine is MergeEngine.FIRST_ROW
    )


def _types(schema: TableSchema, names: Sequence[str]) -> list[DataType]:
    return [schema.field(n).type for n in names]


def _padding_differs(t: DataType, file_format: str) -> bool:
    """Whether a CHAR column's values in a file of `file_format` may read other than Java saw them.

    CHAR(n) statistics hold values padded to n characters (``'ab   '``, Java's and ours); ORC
    gives the values back without the padding (``'ab'``, as Flink reads them too), Parquet and
    Avro as stored (padded). So an ORC file's CHAR bounds say nothing about the values a filter
    meets; its null counts still do. (File indexes are never used for CHAR: `_leaf` in
    paimon_sql.format.file_index.)

    >>> from paimon_sql.types import DataType
    >>> _padding_differs(DataType(root="CHAR", precision=5), "orc")
    True
    >>> _padding_differs(DataType(root="CHAR", precision=5), "parquet")
    False
    """
    return t.root == "CHAR" and file_format == "orc"


def _ranges_from_stats(
    stats: SimpleStats,
    names: Sequence[str],
    types: Sequence[DataType],
    row_count: int | None,
    file_format: str,
) -> dict[str, ValueRange]:
    if not names or row_arity(stats.min_values) != len(names):
        return {}
    mins = decode_row(stats.min_values, types)
    maxs = decode_row(stats.max_values, types)
    counts = stats.null_counts or ()
    out = {}
    for i, name in enumerate(names):
        nulls = counts[i] if i < len(counts) else None
        if _padding_differs(types[i], file_format):
            out[name] = ValueRange(None, None, nulls, row_count)
        else:
            out[name] = ValueRange(mins[i], maxs[i], nulls, row_count)
    return out


#: Per table object and partition layout: partition bytes -> decoded values / relative folder.
_PARTITIONS: weakref.WeakKeyDictionary[Table, dict[tuple[Any, ...], dict[Any, Any]]] = (
    weakref.WeakKeyDictionary()
)
_PARTITION_MEMO = 200_000  # entries per table before the memo starts over


def data_file_path(plan: ScanPlan, split: Split, f: DataFileMeta) -> str:
    """Where a data file lives: its external path, else the derived bucket path (§1)."""
    if f.external_path:
        what = f"data file {f.file_name} of table {plan.table.name}"
        return names.external_path(f.external_path, plan.options.options, what=what)
    # a plain file name (planning checks): joined as os.path.join / posixpath.join would
    folder = split.bucket_path
    return f"{folder}/{f.file_name}" if folder and folder[-1] != "/" else folder + f.file_name


def _index_path(table: Table, options: CoreOptions, bucket_dir: str, name: str) -> str:
    """Where a bucket's index file lives (§8): the bucket folder or the table's ``index`` folder."""
    if options.flag("index-file-in-data-file-dir"):
        return table.fileio.join(bucket_dir, name)
    return table.sub("index", name)


def index_file_path(plan: ScanPlan, split: Split, name: str) -> str:
    """Where an index file `name` of `split`'s (partition, bucket) lives (§8)."""
    return _index_path(plan.table, plan.options, split.bucket_path, name)


class _Planner:
    def __init__(
        self,
        table: Table,
        snapshot: Snapshot | None,
        predicate: Predicate | None,
        schema: TableSchema | None,
        mode: ReadMode | None = None,
        include_level0: bool = False,
        buckets: Collection[tuple[bytes, int]] | None = None,
    ) -> None:
        self.table = table
        self.snapshot = snapshot
        self.predicate = predicate
        self.schema = schema or table.latest_schema
        self.options = CoreOptions(self.schema.options).check(table.name)
        self.mode = mode or read_mode(self.schema, self.options)
        if (self.mode is ReadMode.APPEND) != (not self.schema.primary_keys):
            raise ValueError(f"{table.name}: read mode {self.mode.value} does not fit the table")
        self.include_level0 = include_level0
        self.buckets = buckets
        self.part_names = self.schema.partition_keys
        self.part_types = _types(self.schema, self.part_names)
        self.key_names = self.schema.trimmed_primary_keys
        self.key_types = _types(self.schema, self.key_names)
        self.stats = PruneStats()
        # decoded partition values and their relative folders, kept with the table object across
        # plans: pure functions of the bytes, the partition keys' names and types and the default
        # partition name (the key); the folders themselves are still checked on every plan
        memo = _PARTITIONS.setdefault(table, {})
        if sum(len(m) for m in memo.values()) > _PARTITION_MEMO:
            memo.clear()
        shape = (tuple(self.part_names), tuple(self.part_types))
        self._partition_cache: dict[bytes, Any] = memo.setdefault(("values", *shape), {})
        default = self.options.partition_default_name
        self._part_ok: dict[bytes, bool] = {}
        self._part_dirs: dict[bytes, str] = {}
        self._bucket_dirs: dict[tuple[bytes, int], str] = {}  # checked once per plan
        self._links = names.LinkScan(table.path, local=table.fileio.local)
        # Folder paths are built by string joins from checked parts (one component each, no
        # leading '/'): the directory option is checked here, partition names and values are
        # escaped (`PartitionLayout.path`), and every folder then passes `LinkScan.inside`.
        directory = names.path_directory(self.options.options)
        root = table.path.rstrip("/")
        self._data_root = f"{root}/{directory}" if directory else table.path
        self._layout = PartitionLayout.of(self.schema)
        # each partition's folder with the lexical half of its check (`LinkScan.lexical`), kept
        # with the table; the links are looked for on every plan
        self._part_folders: dict[bytes, names.Folder] = memo.setdefault(
            ("folder", *shape, default, self._layout.legacy, self._data_root), {}
        )
        self._what_data = f"data file of table {table.name}"
        self._table_roots = (table.path,)
        self._hide_level0 = not include_level0 and _level0_hidden(self.mode, self.options)
        self._index_columns = self.indexed_columns()
        # Data evolution: the files of one row-id range hold different columns and are stitched
        # (`row_id_groups`); Java's DataEvolutionFileStoreScan never drops a file by its stats,
        # since one file's columns say nothing about the row's other columns.
        self.data_evolution = self.options.row_tracking and self.options.data_evolution
        # data file names that passed `validate_file_name` and the BLOB rule (pure checks of the
        # name), kept with the table
        self._names_ok: dict[str, bool] = memo.setdefault(("names", self.data_evolution), {})

    # --- partitions -------------------------------------------------------------------------------

    def partition_values(self, data: bytes) -> tuple[Any, ...]:
        values = self._partition_cache.get(data)
        if values is None:
            values = decode_row(data, self.part_types)
            self._partition_cache[data] = values
        return values

    def partition_ok(self, data: bytes) -> bool:
        ok = self._part_ok.get(data)
        if ok is None:
            values = dict(zip(self.part_names, self.partition_values(data), strict=True))
            ok = may_match(
                self.predicate, lambda c: ValueRange.exact(values[c]) if c in values else None
            )
            self._part_ok[data] = ok
        return ok

    def manifest_ok(self, stats: SimpleStats, num_files: int) -> bool:
        if not self.part_names or self.predicate is None:
            return True
        # partition values are read from the partition's bytes, as the statistics hold them
        ranges = _ranges_from_stats(stats, self.part_names, self.part_types, num_files, "")
        return may_match(self.predicate, ranges.get)

    # --- live files -------------------------------------------------------------------------------

    def live_entries(self) -> list[ManifestEntry]:
        if self.snapshot is None:
            return []
        metas = self.table.data_manifests(self.snapshot)
        self.stats.manifests_total = len(metas)
        live: dict[tuple[Any, ...], ManifestEntry] = {}
        for meta in metas:
            num = meta.num_added_files + meta.num_deleted_files
            if not self.manifest_ok(meta.partition_stats, num):
                self.stats.manifests_pruned += 1
                continue
            for entry in self.table.manifest(meta.file_name):
                ident = entry.identifier
                if entry.kind is FileKind.DELETE:
                    live.pop(ident, None)
                elif (
                    ident in live
                ):  # Java refuses this too ("already added"): damage, not a table state
                    raise CorruptFileError(
                        self.table.sub("manifest", meta.file_name),
                        f"it adds the data file {entry.file.file_name}, which is already live "
                        f"(manifest listed by {self.table.referrer(meta.file_name)})",
                    )
                else:
                    live[ident] = entry
        if self.stats.manifests_pruned == 0:
            self.check_total(live.values())
        return list(live.values())

    def check_total(self, live: Iterable[ManifestEntry]) -> None:
        """§3: a snapshot's ``totalRecordCount`` is the row count of its live files.

        A manifest list or manifest that lost (or gained) entries and still decodes shows here, not
        as silently missing rows.
        """
        snap = self.snapshot
        if snap is None or snap.total_record_count is None:
            return
        total = sum(e.file.row_count for e in live)
        if total != snap.total_record_count:
            source = self.table.referrer(snap.base_manifest_list) or self.table.meta(
                "snapshot", f"snapshot-{snap.id}"
            )
            raise CorruptFileError(
                source,
                f"totalRecordCount is {snap.total_record_count}, but its manifest lists "
                f"{snap.base_manifest_list} and {snap.delta_manifest_list} hold {total} records",
            )

    def bucket_filter(self) -> Callable[[ManifestEntry], bool] | None:
        keys = self.schema.bucket_keys
        if self.schema.bucket <= 0 or not keys or self.predicate is None:
            return None
        combos = fixed_values(self.predicate, keys)
        if combos is None:
            return None
        types = _types(self.schema, keys)
        wanted: dict[int, set[int]] = {}

        def keep(entry: ManifestEntry) -> bool:
            total = entry.total_buckets
            if total <= 0:
                return True
            if total not in wanted:
                try:
                    wanted[total] = {bucket_of(c, types, total) for c in combos}
                except (TypeError, ValueError, OverflowError, AttributeError, struct.error):
                    wanted[total] = set(range(total))
            return entry.bucket in wanted[total]

        return keep

    def visible(self, entry: ManifestEntry) -> bool:
        if entry.bucket == POSTPONE_BUCKET:
            self.stats.files_hidden_postpone += 1
            return False
        if self._hide_level0 and entry.file.level == 0:
            self.stats.files_hidden_level0 += 1
            return False
        return True

    def file_stats_ok(self, f: DataFileMeta) -> bool:
        if self.predicate is None:
            return True
        ranges: dict[str, ValueRange] = {}
        if self.key_names:
            ranges.update(
                _ranges_from_stats(
                    f.key_stats, self.key_names, self.key_types, f.row_count, f.format
                )
            )
        value_safe = self.mode is not ReadMode.MERGE or (
            self.options.merge_engine is MergeEngine.FIRST_ROW
        )
        if value_safe:
            file_schema = (
                self.table.schema(f.schema_id) if f.schema_id != self.schema.id else self.schema
            )
            names = (
                f.value_stats_cols if f.value_stats_cols is not None else file_schema.field_names
            )
            current = {fld.id: fld.name for fld in self.schema.fields}
            try:
                file_types = _types(file_schema, names)
                raw = _ranges_from_stats(f.value_stats, names, file_types, f.row_count, f.format)
            except (KeyError, ValueError):
                raw = {}
            for name, rng in raw.items():
                field_id = file_schema.field(name).id
                now = current.get(field_id)
                if now is not None and file_schema.field(name).type == self.schema.field(now).type:
                    ranges.setdefault(now, rng)
        return may_match(self.predicate, ranges.get)

    # --- file indexes -----------------------------------------------------------------------------

    def indexed_columns(self) -> set[str]:
        """Predicate columns some ``file-index.<type>.columns`` option names (empty: no index use).

        Java reads file indexes for append tables and, for primary-key tables, only with deletion
        vectors (``KeyValueFileStore``: ``fileIndexReadEnabled && deletionVectorsEnabled``): a
        merged read may need a file's rows that do not match (an older version of a key).
        """
        if self.predicate is None or self.mode is ReadMode.MERGE:
            return set()
        if not self.options.flag("file-index.read.enabled"):
            return set()
        listed: set[str] = set()
        for key, value in self.options.options.items():
            if key.startswith("file-index.") and key.endswith(".columns"):
                listed.update(c.strip() for c in value.split(","))
        return listed & self.predicate.columns()

    def file_index_ok(self, entry: ManifestEntry) -> bool:
        f = entry.file
        if not self._index_columns:
            return True
        index_files = [n for n in f.extra_files if n.endswith(INDEX_SUFFIX)]
        if f.embedded_index is None and not index_files:
            return True
        if f.embedded_index is None and len(index_files) > 1:
            raise CorruptFileError(
                f.file_name, f"it has more than one index file: {', '.join(index_files)}"
            )
        file_schema = (
            self.table.schema(f.schema_id) if f.schema_id != self.schema.id else self.schema
        )
        by_id = {fld.id: fld for fld in file_schema.fields}
        columns = {}
        for name in self._index_columns:
            now = self.schema.field(name)
            old = by_id.get(now.id)
            if old is not None and old.type.with_nullable(True) == now.type.with_nullable(True):
                columns[name] = (old.name, old.type)

        def decode() -> FileIndex:
            if f.embedded_index is not None:
                data, where = f.embedded_index, f"the embedded file index of {f.file_name}"
            else:
                data, where = self.read_index_file(entry, index_files[0])
            try:
                return FileIndex.decode(data, where)
            except SpecViolationError as err:
                raise CorruptFileError(where, str(err).removeprefix(where + ": ")) from err

        # immutable once committed: parsed once per table object (a session keeps its tables)
        key = f"{f.file_name}#embedded" if f.embedded_index is not None else index_files[0]
        index = self.table.file_index(key, decode)
        return index_may_match(index, self.predicate, columns)

    def read_index_file(self, entry: ManifestEntry, name: str) -> tuple[bytes, str]:
        f = entry.file
        what = f"file index of data file {f.file_name} of table {self.table.name}"
        names.validate_file_name(name, what=what)
        if f.external_path:
            data_path = names.external_path(f.external_path, self.options.options, what=what)
            path = data_path.rsplit("/", 1)[0] + "/" + name
        else:
            path = self.table.fileio.join(self.bucket_dir(entry.partition, entry.bucket), name)
        try:
            return self.table.fileio.read_bytes(path), path
        except DataFileNotFoundError as err:
            raise DataFileNotFoundError(
                f"file index {path} does not exist; the manifest entry of {f.file_name} names it"
            ) from err

    # --- splits -----------------------------------------------------------------------------------

    def check_whole_file(self, f: DataFileMeta) -> None:
        """Refuse a data file that holds only some of its schema's columns.

        ``_WRITE_COLS`` (Paimon 1.2+) names the columns a partial-column write stored; Java's
        data-evolution read merges such files column-wise with the files of the same row-id range
        (and 2.0 reads an empty list as "no columns", where 1.3 read it as "all"). Read as a whole
        row, such a file would give NULLs, so outside such a table it is refused by name.
        """
        if f.write_cols is None:
            return
        schema = self.schema if f.schema_id == self.schema.id else self.table.schema(f.schema_id)
        missing = [c.name for c in schema.fields if c.name not in f.write_cols]
        if missing:
            raise UnsupportedFeatureError(
                f"data file {f.file_name} of {self.table.name} holds only the columns "
                f"{', '.join(f.write_cols) or '(none)'} (its _WRITE_COLS; written by "
                "'data-evolution.enabled' tables, whose reads merge files column-wise by row "
                f"id): paimon-sql does not read such files yet (missing: {', '.join(missing)})"
            )

    def kept(
        self, entries: Sequence[ManifestEntry]
    ) -> tuple[dict[tuple[bytes, int], list[DataFileMeta]], dict[tuple[bytes, int], int]]:
        """The files of `entries` the plan reads by (partition, bucket), and each bucket's total."""
        keep_bucket = self.bucket_filter()
        # what `file_stats_ok` / `file_index_ok` would answer True for every file is not asked
        by_stats = not self.data_evolution and self.predicate is not None
        by_index = not self.data_evolution and bool(self._index_columns)
        by_partition = bool(self.part_names) and self.predicate is not None
        groups: dict[tuple[bytes, int], list[DataFileMeta]] = defaultdict(list)
        totals: dict[tuple[bytes, int], int] = {}
        for e in entries:
            if self.buckets is not None and (e.partition, e.bucket) not in self.buckets:
                self.stats.files_pruned_bucket += 1
                continue
            if not self.visible(e):
                continue
            if by_partition and not self.partition_ok(e.partition):
                self.stats.files_pruned_partition += 1
                continue
            if keep_bucket is not None and not keep_bucket(e):
                self.stats.files_pruned_bucket += 1
                continue
            if by_stats and not self.file_stats_ok(e.file):
                self.stats.files_pruned_stats += 1
                continue
            if by_index and not self.file_index_ok(e):
                self.stats.files_pruned_index += 1
                continue
            groups[(e.partition, e.bucket)].append(e.file)
            totals.setdefault((e.partition, e.bucket), e.total_buckets)
        return groups, totals

    def plan(self) -> ScanPlan:
        entries = self.live_entries()
        self.stats.files_total = len(entries)
        if not self.data_evolution:  # there, files of one row-id range are stitched column-wise
            for e in entries:
                self.check_whole_file(e.file)
        groups, totals = self.kept(entries)
        dvs = self.deletion_vectors() if groups else {}
        if dvs:
            self.check_vectors(entries, dvs, groups)
        if groups:
            refuse_blobs(self.table.name, self.schema)  # an empty BLOB table reads as empty
            refuse_case_clashes(
                self.schema.field_names,
                f"of table {self.table.name}",
                "paimon-sql cannot read it until one of them is renamed (RENAME COLUMN)",
            )
        splits: list[Split] = []
        empty: dict[str, DvRef] = {}
        for key in sorted(groups):  # (partition bytes, bucket): unique, so no list is compared
            part, bucket = key
            self.stats.partitions.add(part)
            self.stats.buckets.add(key)
            splits.extend(
                self.bucket_splits(part, bucket, groups[key], dvs.get(key, empty), totals[key])
            )
        return ScanPlan(
            table=self.table,
            snapshot=self.snapshot,
            schema=self.schema,
            mode=self.mode,
            options=self.options,
            splits=tuple(splits),
            stats=self.stats,
        )

    def deletion_vectors(self) -> dict[tuple[bytes, int], dict[str, DvRef]]:
        out: dict[tuple[bytes, int], dict[str, DvRef]] = defaultdict(dict)
        if self.snapshot is None or self.snapshot.index_manifest is None:
            return out
        manifest = self.table.sub("manifest", self.snapshot.index_manifest)
        for entry in self.table.index_manifest(self.snapshot.index_manifest):
            meta = entry.index_file
            if entry.kind is not FileKind.ADD or meta.index_type != "DELETION_VECTORS":
                continue
            what = f"index file of table {self.table.name}"
            name = names.validate_file_name(meta.file_name, what=what)
            path = (
                names.external_path(meta.external_path, self.options.options, what=f"{what} {name}")
                if meta.external_path
                else self.index_path(entry.partition, entry.bucket, name)
            )
            for dv in meta.dv_ranges or ():
                ref = DvRef(
                    index_file=meta.file_name,
                    index_path=path,
                    meta=dv,
                    index_file_size=meta.file_size,
                    index_manifest=manifest,
                )
                out[(entry.partition, entry.bucket)][dv.data_file_name] = ref
        return out

    def check_vectors(
        self,
        entries: Sequence[ManifestEntry],
        dvs: Mapping[tuple[bytes, int], Mapping[str, DvRef]],
        groups: Mapping[tuple[bytes, int], Sequence[DataFileMeta]],
    ) -> None:
        """Every deletion vector of a bucket being read belongs to a live data file of that bucket.

        §8: Java drops the vectors of files compaction removes. One that does not means the
        snapshot and its index manifest disagree: vectors would be silently lost.
        """
        live: dict[tuple[bytes, int], set[str]] = defaultdict(set)
        for e in entries:
            live[(e.partition, e.bucket)].add(e.file.file_name)
        for key in groups:
            stale = [name for name in dvs.get(key, ()) if name not in live[key]]
            if stale:
                assert self.snapshot is not None
                assert self.snapshot.index_manifest is not None
                raise CorruptFileError(
                    self.table.sub("manifest", self.snapshot.index_manifest),
                    f"it holds the deletion vector of {stale[0]} (bucket {key[1]}), which "
                    f"snapshot {self.snapshot.id} (snapshot-{self.snapshot.id}) does not list as a "
                    "live data file",
                )

    def index_path(self, partition: bytes, bucket: int, name: str) -> str:
        return _index_path(self.table, self.options, self.bucket_dir(partition, bucket), name)

    def partition_dir(self, partition: bytes) -> str:
        """The folder of `partition` (the table's for an unpartitioned table), checked once."""
        path = self._part_dirs.get(partition)
        if path is None:
            folder = self._part_folders.get(partition)
            if folder is None:
                folder = self._links.lexical(
                    self._partition_path(partition), what="partition folder"
                )
                self._part_folders[partition] = folder
            # never read through a symbolic link leading out of the table folder
            path = self._links.check(folder, what="partition folder")
            self._part_dirs[partition] = path
        return path

    def _partition_path(self, partition: bytes) -> str:
        """`partition`'s folder, joined from its escaped names and values (not yet checked)."""
        if not self.part_names:
            return self._data_root
        return (
            f"{self._data_root.rstrip('/')}/{self._layout.path(self.partition_values(partition))}"
        )

    def bucket_dir(self, partition: bytes, bucket: int) -> str:
        """The folder of a bucket, checked for a symbolic link once per plan.

        Asked for again by the deletion vectors' index paths and by the splits.
        """
        path = self._bucket_dirs.get((partition, bucket))
        if path is None:
            name = "bucket-postpone" if bucket == POSTPONE_BUCKET else f"bucket-{bucket}"
            local = self.table.fileio.local
            parent = self.partition_dir(partition)
            path = names.child_inside(
                parent, name, self._table_roots, local=local, what="bucket folder"
            )
            self._bucket_dirs[(partition, bucket)] = path
        return path

    def sections(self, files: list[DataFileMeta]) -> list[Section]:
        if self.data_evolution:
            return [Section(files=g, merge=False) for g in row_id_groups(files, self.table.name)]
        if self.mode is not ReadMode.MERGE:
            return [Section(files=(f,), merge=False) for f in files]
        keyed = sorted(
            (
                (decode_row(f.min_key, self.key_types), decode_row(f.max_key, self.key_types), f)
                for f in files
            ),
            key=_key_sort,
        )
        sections: list[list[DataFileMeta]] = []
        bound: tuple[Any, ...] | None = None
        for lo, hi, f in keyed:
            if sections and bound is not None and _key_le(lo, bound):
                sections[-1].append(f)
                if _key_le(bound, hi):
                    bound = hi
            else:
                sections.append([f])
                bound = hi
        return [
            Section(files=tuple(s), merge=len(s) > 1 or bool(s[0].delete_row_count))
            for s in sections
        ]

    def bucket_splits(
        self,
        part: bytes,
        bucket: int,
        files: list[DataFileMeta],
        dvs: dict[str, DvRef],
        total_buckets: int,
    ) -> list[Split]:
        path = self.bucket_dir(part, bucket)
        what = self._what_data
        checked = self._names_ok
        for f in files:  # names from manifests become paths: plain file names only
            if f.file_name in checked:
                continue
            names.validate_file_name(f.file_name, what=what)
            if f.format == "blob" and not self.data_evolution:
                raise UnsupportedFeatureError(
                    f"table {self.table.name} has BLOB data file {path}/{f.file_name} but not "
                    "'data-evolution.enabled' = 'true': Java reads .blob files only in "
                    "data-evolution tables"
                )
            checked[f.file_name] = True
        values = self.partition_values(part) if self.part_names else ()
        sections = self.sections(files)
        chunks: list[list[Section]] = [sections]
        if sum(f.file_size for f in files) > TARGET_SPLIT_BYTES:
            chunks = [[]]
            size = 0
            for section in sections:
                section_size = sum(f.file_size for f in section.files)
                if chunks[-1] and size + section_size > TARGET_SPLIT_BYTES:
                    chunks.append([])
                    size = 0
                chunks[-1].append(section)
                size += section_size
        out = []
        for chunk in chunks:
            split_dvs: tuple[tuple[str, DvRef], ...] = ()
            if dvs:
                in_chunk = {f.file_name for s in chunk for f in s.files}
                split_dvs = tuple(sorted((n, r) for n, r in dvs.items() if n in in_chunk))
            out.append(
                Split(
                    partition=values,
                    partition_bytes=part,
                    bucket=bucket,
                    bucket_path=path,
                    sections=tuple(chunk),
                    deletion_vectors=split_dvs,
                    total_buckets=total_buckets,
                )
            )
        return out


#: Options under which Java 1.4 keeps BLOB values as serialized descriptors inline in the data
#: files (the bytes at URIs that may lie outside the table), which paimon-sql does not follow.
BLOB_DESCRIPTOR_OPTIONS = (
    "blob-descriptor-field",
    "blob.stored-descriptor-fields",
    "blob-external-storage-field",
)


def refuse_blobs(table: str, schema: TableSchema) -> None:
    """An `UnsupportedFeatureError` for the BLOB layouts paimon-sql does not read.

    BLOB columns in ``.blob`` files of a data-evolution table are read (their bytes, as Java's
    ``Blob.toData``). Refused by name: BLOB values stored as descriptors
    (`BLOB_DESCRIPTOR_OPTIONS`); ``'blob-as-descriptor' = 'true'`` (Java's engines then return
    each value as a serialized descriptor holding the absolute path Java saw); a BLOB column
    outside a data-evolution table (Java refuses such a schema).

    >>> from paimon_sql.format.schema import TableSchema
    >>> from paimon_sql.types import DataField, DataType
    >>> a = DataField(id=0, name="a", type=DataType(root="INT"))
    >>> b = DataField(id=1, name="b", type=DataType(root="BLOB"))
    >>> evolving = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    >>> refuse_blobs("db.t", TableSchema(id=0, fields=(a, b), highest_field_id=1,
    ...                                  options=evolving)) is None
    True
    >>> refuse_blobs("db.t", TableSchema(id=0, fields=(a, b), highest_field_id=1,
    ...              options={**evolving, "blob-as-descriptor": "true"}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: table db.t: 'blob-as-descriptor' = 'true' ...
    """
    blobs = [f.name for f in schema.fields if f.type.root == "BLOB"]
    if not blobs:
        return
    options = schema.options
    enabled = [options.get(k, "false").lower() == "true" for k in _EVOLUTION]
    if not all(enabled):
        raise UnsupportedFeatureError(
            f"table {table} has BLOB column(s) {', '.join(blobs)} without "
            "'row-tracking.enabled' and 'data-evolution.enabled' = 'true': Java 1.4 keeps BLOB "
            "values only in data-evolution tables, so paimon-sql does not read this one"
        )
    for key in BLOB_DESCRIPTOR_OPTIONS:
        if options.get(key, "").strip():
            raise UnsupportedFeatureError(
                f"table {table}: BLOB column(s) stored as descriptors ({key!r} = "
                f"{options[key]!r}) are not read by paimon-sql yet: their bytes live at the "
                "URIs the descriptors name, which may lie outside the warehouse"
            )
    if options.get("blob-as-descriptor", "false").lower() == "true":
        raise UnsupportedFeatureError(
            f"table {table}: 'blob-as-descriptor' = 'true' makes Java's engines return each BLOB "
            "as a serialized descriptor of the path Java saw; paimon-sql reads BLOB values only "
            "as their bytes (unset the option)"
        )


_EVOLUTION = ("row-tracking.enabled", "data-evolution.enabled")


def row_id_groups(files: Sequence[DataFileMeta], table: str) -> list[tuple[DataFileMeta, ...]]:
    """A data-evolution table's files grouped as Java 1.4's ``DataEvolutionSplitRead``.

    Files whose row-id ranges overlap form a group (``mergeRangesAndSort``): first its normal
    data files, newest (largest max sequence number) first, then its ``.blob`` files by first
    row id, newest first; their columns are stitched row by row (`paimon_sql.engine.reader`).
    The normal files of a group must share one range (Java refuses anything else: damage here);
    a ``.blob`` file covers part of it. A file without a first row id is a group of its own.
    Groups come in row-id order.

    >>> from paimon_sql.format.manifest import EMPTY_STATS, DataFileMeta
    >>> def f(name, first, seq, rows=2):
    ...     return DataFileMeta(file_name=name, file_size=1, row_count=rows, first_row_id=first,
    ...                         min_sequence_number=seq, max_sequence_number=seq, min_key=b"",
    ...                         max_key=b"", key_stats=EMPTY_STATS, value_stats=EMPTY_STATS,
    ...                         schema_id=0, level=0)
    >>> [[x.file_name for x in g] for g in row_id_groups([f("a", 0, 1), f("b", 2, 2),
    ...     f("c", 0, 3), f("d.blob", 1, 1, rows=1), f("e.blob", 0, 1, rows=1)], "db.t")]
    [['c', 'a', 'e.blob', 'd.blob'], ['b']]
    """
    order = sorted(
        files,
        key=lambda f: (
            -(2**63) if f.first_row_id is None else f.first_row_id,
            f.format == "blob",
            -f.max_sequence_number,
        ),
    )
    groups: list[list[DataFileMeta]] = []
    end: int | None = None  # the current group's range ends before this row id
    for f in order:
        if f.first_row_id is None:
            groups.append([f])
            end = None
        elif end is not None and f.first_row_id < end:
            groups[-1].append(f)
            end = max(end, f.first_row_id + f.row_count)
        else:
            groups.append([f])
            end = f.first_row_id + f.row_count
    out = []
    for group in groups:
        normal = sorted(
            (f for f in group if f.format != "blob"), key=lambda f: -f.max_sequence_number
        )
        blobs = sorted(
            (f for f in group if f.format == "blob"),
            key=lambda f: (f.first_row_id, -f.max_sequence_number),
        )
        for f in normal[1:]:
            if (f.first_row_id, f.row_count) != (normal[0].first_row_id, normal[0].row_count):
                raise CorruptFileError(
                    f.file_name,
                    f"of table {table}: its row ids {_row_range(f)} overlap those of "
                    f"{normal[0].file_name} ({_row_range(normal[0])}) without matching them",
                )
        out.append((*normal, *blobs))
    return [tuple(g) for g in out]


def _row_range(f: DataFileMeta) -> str:
    assert f.first_row_id is not None
    return f"{f.first_row_id}..{f.first_row_id + f.row_count - 1}"


def blob_chain(
    files: Sequence[DataFileMeta], first: int, rows: int, table: str
) -> list[DataFileMeta]:
    """The ``.blob`` files of one BLOB column that hold rows ``first .. first+rows-1``, in order.

    `files` are that column's files of one row-id group (`row_id_groups` order: by first row id,
    newest first). As Java 1.4's ``SpecialFieldBunch``: a file of a range already covered is an
    older version and skipped (it must be older); the kept files must follow one another without
    a gap and cover the group's range exactly, all with the same ``write_cols``.

    >>> from paimon_sql.format.manifest import EMPTY_STATS, DataFileMeta
    >>> def f(name, first, seq, rows):
    ...     return DataFileMeta(file_name=name, file_size=1, row_count=rows, first_row_id=first,
    ...                         min_sequence_number=seq, max_sequence_number=seq, min_key=b"",
    ...                         max_key=b"", key_stats=EMPTY_STATS, value_stats=EMPTY_STATS,
    ...                         schema_id=0, level=0, write_cols=("b",))
    >>> [x.file_name for x in blob_chain([f("x", 0, 2, 2), f("y", 0, 1, 2), f("z", 2, 1, 1)],
    ...                                  0, 3, "db.t")]
    ['x', 'z']
    """
    chain: list[DataFileMeta] = []
    expected = first
    for f in files:
        assert f.first_row_id is not None
        if chain and f.first_row_id < expected:
            if f.max_sequence_number >= chain[-1].max_sequence_number:
                raise CorruptFileError(
                    f.file_name,
                    f"of table {table}: this BLOB file overlaps the rows of "
                    f"{chain[-1].file_name} but is not older",
                )
            continue
        if f.first_row_id != expected or (chain and f.write_cols != chain[0].write_cols):
            raise CorruptFileError(
                f.file_name,
                f"of table {table}: this BLOB file starts at row id {f.first_row_id}, where "
                f"row id {expected} was expected (its column's files must follow one another)",
            )
        chain.append(f)
        expected = f.first_row_id + f.row_count
    if expected != first + rows:
        where = chain[-1].file_name if chain else files[0].file_name
        raise CorruptFileError(
            where,
            f"of table {table}: the BLOB files of its column end before row id {first + rows} "
            f"(their data file's range is {first}..{first + rows - 1})",
        )
    return chain


def _null_first(value: Any) -> tuple[int, Any]:
    return (0, 0) if value is None else (1, value)


def _key_sort(item: tuple[tuple[Any, ...], tuple[Any, ...], DataFileMeta]) -> tuple[Any, ...]:
    lo, hi, f = item
    return (tuple(_null_first(v) for v in lo), tuple(_null_first(v) for v in hi), f.file_name)


def _key_le(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return tuple(_null_first(v) for v in a) <= tuple(_null_first(v) for v in b)


def plan_scan(
    table: Table,
    snapshot: Snapshot | None,
    predicate: Predicate | None = None,
    schema: TableSchema | None = None,
    *,
    mode: ReadMode | None = None,
    include_level0: bool = False,
    buckets: Collection[tuple[bytes, int]] | None = None,
) -> ScanPlan:
    """Plan a read of `snapshot` (None: the table is empty) with `predicate` for pruning.

    Rows come in `schema` (default: the table's latest schema, as Java reads the latest state; time
    travel passes the snapshot's own schema). The predicate only prunes here; the reader still
    applies it to rows.

    Compaction reads what a batch read may not: `mode` overrides the table's read mode
    (`ReadMode.MERGE` for a deletion-vector table: its files merged by key, deletion vectors
    applied), and `include_level0` keeps the level-0 files batch reads of deletion-vector and
    first-row tables hide. Postpone-bucket files stay hidden. A `mode` that does not fit the table
    (`ReadMode.APPEND` for a primary-key table, or the reverse) is a ValueError. `buckets` limits
    the plan to those (partition bytes, bucket)s (the compaction after a write).
    """
    planner = _Planner(table, snapshot, predicate, schema, mode, include_level0, buckets)
    with gc_paused():  # a plan makes a few acyclic objects per file (see gc_pause)
        return planner.plan()


def plan_files(
    table: Table,
    snapshot: Snapshot | None,
    entries: Iterable[ManifestEntry],
    schema: TableSchema | None = None,
) -> ScanPlan:
    """A plan that reads the files of `entries`, each on its own: no merge, no vectors.

    Incremental reads (`paimon_sql.changes`) read a snapshot's delta or changelog files this way:
    every record with its own row kind, as Java reads a streaming split. `snapshot` is the plan's
    end snapshot; the files' rows come in `schema` (default: the table's latest). The files a batch
    read hides are left out, as Java's batch scan filters them (level 0 of deletion-vector and
    first-row tables, postpone buckets).
    """
    planner = _Planner(table, snapshot, None, schema, mode=None)
    shown = [e for e in entries if planner.visible(e)]
    if planner.mode is ReadMode.DELETION_VECTORS:
        planner.mode = ReadMode.MERGE  # sections of one file each: nothing is merged anyway
    groups: dict[tuple[bytes, int], list[DataFileMeta]] = defaultdict(list)
    totals: dict[tuple[bytes, int], int] = {}
    for e in shown:
        groups[(e.partition, e.bucket)].append(e.file)
        totals.setdefault((e.partition, e.bucket), e.total_buckets)
    splits: list[Split] = []
    what = f"file of table {table.name}"
    for (part, bucket), files in groups.items():
        for f in files:
            names.validate_file_name(f.file_name, what=what)
        splits.append(
            Split(
                partition=planner.partition_values(part) if planner.part_names else (),
                partition_bytes=part,
                bucket=bucket,
                bucket_path=planner.bucket_dir(part, bucket),
                sections=tuple(Section(files=(f,), merge=False) for f in files),
                total_buckets=totals[(part, bucket)],
            )
        )
    return ScanPlan(
        table=table,
        snapshot=snapshot,
        schema=planner.schema,
        mode=planner.mode,
        options=planner.options,
        splits=tuple(splits),
        stats=planner.stats,
    )
