"""Pure commit planning: what a commit adds and deletes, conflict checks, the next index manifest.

The conflict checks are Java's.

Nothing here touches storage: `paimon_sql.commit.publish` reads the latest snapshot, calls these
functions and writes the result (paimon-format.md §1.3, §4.5).

>>> from paimon_sql.format.manifest import DataFileMeta, EMPTY_STATS
>>> f = DataFileMeta(file_name="data-a-0.parquet", file_size=1, row_count=1, min_key=b"",
...                  max_key=b"", key_stats=EMPTY_STATS, value_stats=EMPTY_STATS,
...                  min_sequence_number=0, max_sequence_number=0, schema_id=0, level=0)
>>> msg = CommitMessage(partition=b"p", bucket=0, total_buckets=1, new_files=(f,))
>>> [e.kind.name for e in delta_entries([msg])]
['ADD']
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import CommitConflictError, UnsupportedFeatureError
from paimon_sql.format.binary_row import decode_row, row_arity
from paimon_sql.format.manifest import (
    FileKind,
    FileSource,
    IndexManifestEntry,
    ManifestEntry,
)
from paimon_sql.format.snapshot import CommitKind

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence

    from paimon_sql.format.manifest import (
        DataFileMeta,
        IndexFileMeta,
        SimpleStats,
    )
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.types import DataType


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitMessage:
    """What one writer changed in one (partition, bucket)."""

    partition: bytes
    bucket: int
    total_buckets: int
    new_files: tuple[DataFileMeta, ...] = ()
    deleted_files: tuple[DataFileMeta, ...] = ()
    changelog_files: tuple[DataFileMeta, ...] = ()
    new_index_files: tuple[IndexFileMeta, ...] = ()
    deleted_index_files: tuple[IndexFileMeta, ...] = ()

    @property
    def is_empty(self) -> bool:
        """No change at all."""
        return not (
            self.new_files
            or self.deleted_files
            or self.changelog_files
            or self.new_index_files
            or self.deleted_index_files
        )


@dataclass(frozen=True, slots=True)
class ReadAt:
    """The snapshot a statement read: the rows it writes were computed from it.

    `snapshot_id` (None: the table had none) and that snapshot's delta manifest list, whose unique
    name tells it from a snapshot of the same id made again after a rollback. An UPDATE, DELETE,
    MERGE or ON CONFLICT is refused when a snapshot since wrote keys it writes (`overwritten_by`):
    its rows were computed from values that are no longer the table's, and landing them would undo
    that commit's change (a lost update). First committer wins, as in snapshot isolation; Apache
    Paimon has no such check.
    """

    snapshot_id: int | None
    delta_list: str | None = None

    @classmethod
    def of(cls, snapshot: Snapshot | None) -> ReadAt:
        """The statement read `snapshot` (None: an empty table)."""
        if snapshot is None:
            return cls(None, None)
        return cls(snapshot.id, snapshot.delta_manifest_list)

    def is_snapshot(self, snapshot: Snapshot | None) -> bool:
        """Whether `snapshot` is the one read (nothing was committed since)."""
        if snapshot is None:
            return self.snapshot_id is None
        return (snapshot.id, snapshot.delta_manifest_list) == (self.snapshot_id, self.delta_list)


@dataclass(frozen=True, slots=True)
class AssignedOn(ReadAt):
    """The key index a dynamic-bucket write gave its new keys buckets from (§6): a `ReadAt`.

    `hash_files`: partition -> the names of its HASH index files at that snapshot (``bucket = -1``
    with every partition column in the key); None for a cross-partition key, whose routing read
    every key of the table. The commit refuses the write when a snapshot since changed that index
    (`stale_partitions`, `changes_keys`): the write's buckets may then put a key in two places.
    """

    hash_files: Mapping[bytes, frozenset[str]] | None = None

    @classmethod
    def of(
        cls, snapshot: Snapshot | None, hash_files: Mapping[bytes, frozenset[str]] | None = None
    ) -> AssignedOn:
        """The key index read at `snapshot` (None: an empty table)."""
        if snapshot is None:
            return cls(None, None, hash_files)
        return cls(snapshot.id, snapshot.delta_manifest_list, hash_files)


def overwritten_by(
    entries: Iterable[ManifestEntry],
    messages: Iterable[CommitMessage],
    key_compare: Callable[[bytes, bytes], int],
    *,
    replaces: bool,
) -> ManifestEntry | None:
    """A file another commit added or removed (`entries`) that may hold a key this write writes.

    Files of one (partition, bucket) whose ``[min key, max key]`` ranges overlap may share a key (a
    key lives in one bucket of a partition). `replaces`: that commit was an overwrite, which changes
    every key of the partitions it touches.

    >>> from paimon_sql.format.binary_row import encode_row
    >>> from paimon_sql.format.manifest import DataFileMeta, EMPTY_STATS
    >>> from paimon_sql.types import parse_type
    >>> t = [parse_type("INT NOT NULL")]
    >>> def f(lo, hi):
    ...     return DataFileMeta(file_name="f", file_size=1, row_count=1,
    ...                         min_key=encode_row([lo], t), max_key=encode_row([hi], t),
    ...                         key_stats=EMPTY_STATS, value_stats=EMPTY_STATS,
    ...                         min_sequence_number=0, max_sequence_number=0, schema_id=0, level=0)
    >>> ours = [CommitMessage(partition=b"", bucket=0, total_buckets=2, new_files=(f(5, 9),))]
    >>> def theirs(lo, hi, bucket=0):
    ...     return ManifestEntry(kind=FileKind.ADD, partition=b"", bucket=bucket, total_buckets=2,
    ...                          file=f(lo, hi))
    >>> cmp = key_comparator(t)
    >>> overwritten_by([theirs(1, 4), theirs(5, 5, bucket=1)], ours, cmp, replaces=False) is None
    True
    >>> overwritten_by([theirs(9, 12)], ours, cmp, replaces=False).file.min_key == f(9, 9).min_key
    True
    """
    written = _new_files(messages)
    partitions = {partition for partition, _ in written}
    for e in entries:
        if replaces:
            if e.partition in partitions:
                return e
            continue
        if any(
            _keys_overlap(e.file, f, key_compare) for f in written.get((e.partition, e.bucket), ())
        ):
            return e
    return None


def outranked_by(
    live: Iterable[ManifestEntry],
    messages: Iterable[CommitMessage],
    key_compare: Callable[[bytes, bytes], int],
) -> ManifestEntry | None:
    """A live file that may hold a key this write writes, with sequence numbers as high as its own.

    A writer numbers its rows from one past the highest sequence number of its buckets' live files
    when it starts; a live file of such a bucket that reaches that number was committed by another
    writer since. Where both hold a key, a read keeps the higher sequence number (a tie is broken
    arbitrarily, in Java as here): the earlier commit's row could win over this later one, so the
    statement would report success and have no effect, or keep one writer's rows for some keys and
    the other's for the rest.

    >>> from paimon_sql.format.binary_row import encode_row
    >>> from paimon_sql.format.manifest import DataFileMeta, EMPTY_STATS
    >>> from paimon_sql.types import parse_type
    >>> t = [parse_type("INT NOT NULL")]
    >>> def f(lo, hi, seq):
    ...     return DataFileMeta(file_name=f"f{seq}", file_size=1, row_count=1,
    ...                         min_key=encode_row([lo], t), max_key=encode_row([hi], t),
    ...                         key_stats=EMPTY_STATS, value_stats=EMPTY_STATS,
    ...                         min_sequence_number=seq, max_sequence_number=seq, schema_id=0,
    ...                         level=0)
    >>> ours = [CommitMessage(partition=b"", bucket=0, total_buckets=2, new_files=(f(1, 9, 7),))]
    >>> def live(lo, hi, seq):
    ...     return ManifestEntry(kind=FileKind.ADD, partition=b"", bucket=0, total_buckets=2,
    ...                          file=f(lo, hi, seq))
    >>> cmp = key_comparator(t)
    >>> outranked_by([live(1, 9, 6), live(10, 12, 7)], ours, cmp) is None  # older, other keys
    True
    >>> outranked_by([live(5, 5, 7)], ours, cmp).file.file_name
    'f7'
    """
    written = _new_files(messages)
    for e in live:
        for f in written.get((e.partition, e.bucket), ()):
            if e.file.max_sequence_number >= f.min_sequence_number and _keys_overlap(
                e.file, f, key_compare
            ):
                return e
    return None


def _new_files(messages: Iterable[CommitMessage]) -> dict[tuple[bytes, int], list[DataFileMeta]]:
    """(partition, bucket) -> the data files a write adds there."""
    written: dict[tuple[bytes, int], list[DataFileMeta]] = defaultdict(list)
    for m in messages:
        written[m.partition, m.bucket].extend(m.new_files)
    return {where: files for where, files in written.items() if files}


def _keys_overlap(
    a: DataFileMeta, b: DataFileMeta, key_compare: Callable[[bytes, bytes], int]
) -> bool:
    """Whether the ``[min key, max key]`` ranges of two files of one bucket overlap."""
    return key_compare(a.min_key, b.max_key) <= 0 and key_compare(b.min_key, a.max_key) <= 0


def hash_files_by_partition(entries: Iterable[IndexManifestEntry]) -> dict[bytes, frozenset[str]]:
    """Partition -> the names of its HASH index files in an index manifest.

    >>> from paimon_sql.format.manifest import IndexFileMeta
    >>> f = IndexFileMeta(index_type="HASH", file_name="index-1", file_size=4, row_count=1)
    >>> e = IndexManifestEntry(kind=FileKind.ADD, partition=b"p", bucket=0, index_file=f)
    >>> hash_files_by_partition([e])
    {b'p': frozenset({'index-1'})}
    """
    out: dict[bytes, set[str]] = defaultdict(set)
    for e in entries:
        if e.index_file.index_type == "HASH":
            out[e.partition].add(e.index_file.file_name)
    return {p: frozenset(names) for p, names in out.items()}


def stale_partitions(
    assigned: Mapping[bytes, frozenset[str]],
    now: Mapping[bytes, frozenset[str]],
    messages: Iterable[CommitMessage],
) -> list[bytes]:
    """The partitions a write adds HASH files to whose HASH files changed since it read them.

    A write that gives new keys buckets writes a new HASH file for each bucket it adds keys to. A
    partition whose HASH files another commit replaced meanwhile got keys this write did not see:
    its buckets may hold one of this write's keys already, or its new HASH file would drop them.

    >>> from paimon_sql.format.manifest import IndexFileMeta
    >>> f = IndexFileMeta(index_type="HASH", file_name="index-2", file_size=4, row_count=1)
    >>> m = CommitMessage(partition=b"p", bucket=1, total_buckets=-1, new_index_files=(f,))
    >>> stale_partitions({b"p": frozenset({"index-0"})}, {b"p": frozenset({"index-0"})}, [m])
    []
    >>> stale_partitions({}, {b"p": frozenset({"index-1"})}, [m])
    [b'p']
    """
    written = sorted(
        {m.partition for m in messages if any(f.index_type == "HASH" for f in m.new_index_files)}
    )
    empty: frozenset[str] = frozenset()
    return [p for p in written if assigned.get(p, empty) != now.get(p, empty)]


def changes_keys(kind: CommitKind) -> bool:
    """Whether a snapshot of this kind may add, remove or move keys (all but compaction, stats).

    >>> changes_keys(CommitKind.COMPACT), changes_keys(CommitKind.APPEND)
    (False, True)
    """
    return kind not in (CommitKind.COMPACT, CommitKind.ANALYZE)


def delta_entries(messages: Iterable[CommitMessage]) -> list[ManifestEntry]:
    """The manifest entries of a commit's delta: DELETEs first, then ADDs (an upgrade is both)."""
    deletes, adds = [], []
    for m in messages:
        for f in m.deleted_files:
            deletes.append(_entry(FileKind.DELETE, m, f))
        for f in m.new_files:
            adds.append(_entry(FileKind.ADD, m, f))
    return deletes + adds


def changelog_entries(messages: Iterable[CommitMessage]) -> list[ManifestEntry]:
    """ADD entries of the changelog files."""
    return [_entry(FileKind.ADD, m, f) for m in messages for f in m.changelog_files]


def _entry(kind: FileKind, m: CommitMessage, f: DataFileMeta) -> ManifestEntry:
    return ManifestEntry(
        kind=kind, partition=m.partition, bucket=m.bucket, total_buckets=m.total_buckets, file=f
    )


def overwrite_entries(
    live: Iterable[ManifestEntry], keep: Callable[[ManifestEntry], bool] | None = None
) -> list[ManifestEntry]:
    """DELETE entries for the live files an overwrite replaces (all unless `keep` says so)."""
    return [
        ManifestEntry(
            kind=FileKind.DELETE,
            partition=e.partition,
            bucket=e.bucket,
            total_buckets=e.total_buckets,
            file=e.file,
        )
        for e in live
        if keep is None or not keep(e)
    ]


def fold(entries: Iterable[ManifestEntry]) -> dict[tuple[Any, ...], ManifestEntry]:
    """Live files after applying entries in order.

    A DELETE without its ADD stays pending, then drops.
    """
    live: dict[tuple[Any, ...], ManifestEntry] = {}
    for e in entries:
        if e.kind is FileKind.ADD:
            live[e.identifier] = e
        else:
            live.pop(e.identifier, None)
    return live


def merge_entries(entries: Iterable[ManifestEntry]) -> list[ManifestEntry]:
    """Entries of several manifests merged in order, as Java's minor manifest compaction.

    A DELETE cancels its ADD; a DELETE whose ADD is in an earlier manifest (not merged here) is
    kept, so the merged file still removes it.

    >>> from paimon_sql.format.manifest import DataFileMeta, EMPTY_STATS
    >>> f = DataFileMeta(file_name="f", file_size=1, row_count=1, min_key=b"", max_key=b"",
    ...                  key_stats=EMPTY_STATS, value_stats=EMPTY_STATS, min_sequence_number=0,
    ...                  max_sequence_number=0, schema_id=0, level=0)
    >>> add = ManifestEntry(kind=FileKind.ADD, partition=b"", bucket=0, total_buckets=1, file=f)
    >>> gone = replace(add, kind=FileKind.DELETE)
    >>> merge_entries([add, gone]), [e.kind.name for e in merge_entries([gone])]
    ([], ['DELETE'])
    """
    merged: dict[tuple[Any, ...], ManifestEntry] = {}
    for e in entries:
        ident = e.identifier
        if e.kind is FileKind.DELETE and ident in merged and merged[ident].kind is FileKind.ADD:
            del merged[ident]
        else:
            merged[ident] = e
    return list(merged.values())


def may_hold(
    stats: SimpleStats, partitions: Collection[tuple[Any, ...]], types: Sequence[DataType]
) -> bool:
    """Whether a manifest whose partition stats are `stats` may list files of `partitions`.

    Every field of a partition must lie within the manifest's min/max (or be NULL where the
    manifest counts NULLs); stats that do not fit the types (another writer, no stats) may hold
    anything.

    >>> from paimon_sql.format.binary_row import encode_row
    >>> from paimon_sql.format.manifest import SimpleStats
    >>> from paimon_sql.types import parse_type
    >>> t = [parse_type("INT")]
    >>> s = SimpleStats(min_values=encode_row([3], t), max_values=encode_row([5], t),
    ...                 null_counts=(0,))
    >>> may_hold(s, [(4,)], t), may_hold(s, [(6,), (None,)], t)
    (True, False)
    """
    if not types:
        return True
    try:
        if row_arity(stats.min_values) != len(types) or row_arity(stats.max_values) != len(types):
            return True
        mins = decode_row(stats.min_values, types)
        maxs = decode_row(stats.max_values, types)
    except Exception:  # noqa: BLE001 (stats we cannot read prune nothing)
        return True
    nulls = stats.null_counts or ()
    for values in partitions:
        for i, v in enumerate(values):
            if v is None:
                if i < len(nulls) and nulls[i] == 0:
                    break
            elif mins[i] is None or maxs[i] is None or not (mins[i] <= v <= maxs[i]):
                break
        else:
            return True
    return False


def check_conflicts(
    live: Sequence[ManifestEntry],
    delta: Sequence[ManifestEntry],
    *,
    overwrite: bool,
    key_compare: Callable[[bytes, bytes], int] | None,
) -> None:
    """Java's checks (§1.3): deleted files live, no re-add, bucket counts, no level >= 1 overlap.

    `key_compare` orders serialized min/max keys (None for append tables: no LSM check).
    """
    current = {e.identifier: e for e in live}
    for e in delta:
        if e.kind is FileKind.DELETE and e.identifier not in current:
            raise CommitConflictError(
                f"file {e.file.file_name} (bucket {e.bucket}) was deleted by a concurrent commit; "
                "the statement made no snapshot, run it again"
            )
    deleted = {e.identifier for e in delta if e.kind is FileKind.DELETE}
    for e in delta:
        if e.kind is FileKind.ADD and e.identifier in current and e.identifier not in deleted:
            raise CommitConflictError(f"file {e.file.file_name} is already part of the table")
    if not overwrite:
        check_bucket_counts(live, delta)
    if key_compare is not None:
        after = fold([*live, *delta]).values()
        _check_levels(after, key_compare)


def check_bucket_counts(live: Sequence[ManifestEntry], delta: Sequence[ManifestEntry]) -> None:
    """Java's checkBucketKeepSame: every file of a partition has the same bucket count.

    Entries with a count <= 0 (dynamic and unaware buckets) are not compared; only an overwrite may
    change the count.
    """
    totals: dict[bytes, int] = {}
    for e in live:
        if e.total_buckets > 0:
            totals.setdefault(e.partition, e.total_buckets)
    for e in delta:
        if e.kind is not FileKind.ADD or e.total_buckets <= 0:
            continue
        known = totals.setdefault(e.partition, e.total_buckets)
        if known != e.total_buckets:
            raise CommitConflictError(
                f"the files of a partition have {known} buckets but this commit writes "
                f"{e.total_buckets} (the 'bucket' option changed, or a concurrent writer used "
                "another count); only INSERT OVERWRITE may change the bucket count: rescale with "
                "INSERT OVERWRITE first. No snapshot was made"
            )


def key_comparator(key_types: Sequence[DataType]) -> Callable[[bytes, bytes], int]:
    """Orders serialized key rows field by field, as Java's generated key comparator.

    The rows are a data file's ``_MIN_KEY``/``_MAX_KEY`` (the trimmed primary key); strings compare
    by code point (= UTF-8 bytes), NULL first.

    >>> from paimon_sql.format.binary_row import encode_row
    >>> from paimon_sql.types import parse_type
    >>> t = [parse_type("INT NOT NULL"), parse_type("STRING NOT NULL")]
    >>> cmp = key_comparator(t)
    >>> cmp(encode_row([1, "b"], t), encode_row([1, "a"], t))
    1
    >>> cmp(encode_row([1, "a"], t), encode_row([2, "a"], t))
    -1
    """
    types = list(key_types)
    # each key is decoded once: sorting a level's files compares every key O(log n) times
    decoded: dict[bytes, tuple[Any, ...]] = {}

    def values(row: bytes) -> tuple[Any, ...]:
        found = decoded.get(row)
        if found is None:
            found = decoded[row] = decode_row(row, types)
        return found

    def compare(a: bytes, b: bytes) -> int:
        for x, y in zip(values(a), values(b), strict=True):
            if x == y:
                continue
            if x is None or y is None:
                return -1 if x is None else 1
            return -1 if x < y else 1
        return 0

    return compare


def _check_levels(
    entries: Iterable[ManifestEntry], key_compare: Callable[[bytes, bytes], int]
) -> None:
    for a, b in level_overlaps(entries, key_compare):
        raise CommitConflictError(
            f"LSM conflict in bucket {b.bucket}, level {b.file.level}: key ranges of "
            f"{a.file.file_name} and {b.file.file_name} overlap (a concurrent compaction); run "
            "the statement again"
        )


def level_overlaps(
    entries: Iterable[ManifestEntry], key_compare: Callable[[bytes, bytes], int]
) -> Iterator[tuple[ManifestEntry, ManifestEntry]]:
    """Neighbouring files of one LSM level (>= 1) of a bucket whose key ranges overlap.

    Each pair is (the file with the smaller min key, the next one).
    """
    runs: dict[tuple[bytes, int, int], list[ManifestEntry]] = defaultdict(list)
    for e in entries:
        if e.file.level >= 1:
            runs[(e.partition, e.bucket, e.file.level)].append(e)

    def by_min_key(a: ManifestEntry, b: ManifestEntry) -> int:
        return key_compare(a.file.min_key, b.file.min_key)

    order = functools.cmp_to_key(by_min_key)
    for group in runs.values():
        for a, b in itertools.pairwise(sorted(group, key=order)):
            if key_compare(a.file.max_key, b.file.min_key) >= 0:
                yield a, b


def next_index_manifest(
    base: Sequence[IndexManifestEntry],
    messages: Iterable[CommitMessage],
    *,
    unaware: bool = False,
) -> list[IndexManifestEntry] | None:
    """The complete index manifest after this commit (a listing, not a delta); None if unchanged.

    HASH and bucketed DV files: one per (partition, bucket, type); a new file replaces the old one.
    A deletion-vectors file is built from the bucket's vectors at the writer's base: if the latest
    snapshot no longer holds the DV files the message replaces (`deleted_index_files`), or holds one
    it does not name, a concurrent commit changed them and this one would drop its deletions
    (Java's conflict detection of index files): `CommitConflictError`.

    `unaware`: an unaware-bucket append table, whose deletion-vector files are combined by file
    name (Java's ``GlobalCombiner``): a partition holds any number of them; a new file that covers a
    data file another kept file also covers means a concurrent DELETE marked it too.
    """
    entries = {(e.partition, e.bucket, e.index_file.file_name): e for e in base}
    if unaware:
        return _by_file_name(entries, messages)
    changed = False
    for m in messages:
        replaced = {f.file_name for f in m.deleted_index_files}
        for f in m.deleted_index_files:
            gone = entries.pop((m.partition, m.bucket, f.file_name), None) is None
            if gone and f.index_type == "DELETION_VECTORS":
                raise _index_conflict(f.file_name, m.bucket)
            changed |= not gone
        for f in m.new_index_files:
            if f.index_type in ("HASH", "DELETION_VECTORS") and m.bucket >= 0:
                for key in [k for k, e in entries.items() if k[:2] == (m.partition, m.bucket)]:
                    if entries[key].index_file.index_type == f.index_type:
                        if f.index_type == "DELETION_VECTORS" and key[2] not in replaced:
                            raise _index_conflict(key[2], m.bucket)
                        del entries[key]
            entries[(m.partition, m.bucket, f.file_name)] = IndexManifestEntry(
                kind=FileKind.ADD, partition=m.partition, bucket=m.bucket, index_file=f
            )
            changed = True
    return list(entries.values()) if changed else None


def _by_file_name(
    entries: dict[tuple[bytes, int, str], IndexManifestEntry], messages: Iterable[CommitMessage]
) -> list[IndexManifestEntry] | None:
    changed = False
    added: set[tuple[bytes, int, str]] = set()
    for m in messages:
        for f in m.deleted_index_files:
            gone = entries.pop((m.partition, m.bucket, f.file_name), None) is None
            if gone and f.index_type == "DELETION_VECTORS":
                raise _index_conflict(f.file_name, m.bucket)
            changed |= not gone
        for f in m.new_index_files:
            key = (m.partition, m.bucket, f.file_name)
            entries[key] = IndexManifestEntry(
                kind=FileKind.ADD, partition=m.partition, bucket=m.bucket, index_file=f
            )
            added.add(key)
            changed = True
    covered: dict[tuple[bytes, str], str] = {}
    for key, e in entries.items():
        for r in e.index_file.dv_ranges or ():
            other = covered.setdefault((e.partition, r.data_file_name), key[2])
            if other != key[2] and (key in added or (e.partition, e.bucket, other) in added):
                raise _index_conflict(key[2], e.bucket)
    return list(entries.values()) if changed else None


def hash_indexes_replaced(
    entries: Sequence[IndexManifestEntry],
    delta: Sequence[ManifestEntry],
    messages: Iterable[CommitMessage],
) -> list[IndexManifestEntry] | None:
    """`entries` without the HASH index files of the partitions an overwrite replaces.

    Java's overwrite deletes every index file of the partitions it replaces and adds the write's
    own (``OverwriteChangesProvider``): a dynamic-bucket table's HASH files then hold only the keys
    written, not the keys of the rows the overwrite dropped. The replaced partitions are those
    whose data files the overwrite deletes and those it writes to. None when nothing is dropped.

    >>> hash_indexes_replaced([], [], []) is None
    True
    """
    replaced = {e.partition for e in delta if e.kind is FileKind.DELETE}
    replaced |= {m.partition for m in messages}
    kept = [e for e in entries if e.index_file.index_type != "HASH" or e.partition not in replaced]
    return kept if len(kept) != len(entries) else None


def without_removed_vectors(
    entries: Sequence[IndexManifestEntry], delta: Sequence[ManifestEntry]
) -> list[IndexManifestEntry] | None:
    """`entries` without the deletion-vector files of data files this commit removes.

    None when nothing is dropped. An overwrite (or any commit that deletes files) must not leave
    their vectors behind: Java drops the index files of what it replaces, and a vector of a file no
    snapshot lists is damage to a reader (§8). A DV file is dropped when every data file it covers
    is removed.

    >>> without_removed_vectors([], []) is None
    True
    """
    removed: dict[tuple[bytes, int], set[str]] = defaultdict(set)
    for e in delta:
        if e.kind is FileKind.DELETE:
            removed[(e.partition, e.bucket)].add(e.file.file_name)
    for e in delta:
        if e.kind is FileKind.ADD:
            removed[(e.partition, e.bucket)].discard(e.file.file_name)

    def covers_only_removed(entry: IndexManifestEntry) -> bool:
        gone = removed.get((entry.partition, entry.bucket), set())
        ranges = entry.index_file.dv_ranges or ()
        return (
            entry.index_file.index_type == "DELETION_VECTORS"
            and bool(gone)
            and bool(ranges)
            and all(r.data_file_name in gone for r in ranges)
        )

    kept = [e for e in entries if not covers_only_removed(e)]
    return kept if len(kept) != len(entries) else None


def global_indexes_after(
    entries: Sequence[IndexManifestEntry],
    delta: Sequence[ManifestEntry],
    *,
    overwrite: bool,
    table: str,
) -> list[IndexManifestEntry] | None:
    """`entries` with this commit's effect on Java's global indexes (None when unchanged).

    A global index (``_GLOBAL_INDEX``: bitmap, btree, ... built by Java 1.4's
    ``create_global_index``) maps values to the row ids of a range of one partition. Java 1.4.2:

    * a commit that only adds files with fresh row ids keeps every global index file
      (``IndexManifestFileHandler``'s combiner keeps them by file name; the new rows lie outside
      every indexed range);
    * an overwrite (INSERT OVERWRITE, TRUNCATE, Spark overwrite writes: `overwrite`) drops every
      index file of the partitions it replaces (``CommitScanner.readOverwriteChanges``): so does
      this, for each partition whose data files the overwrite deletes;
    * anything else that removes data files of an indexed partition, or adds files over indexed
      row ids (compaction, DELETE, UPDATE, MERGE rewriting rows), would leave the index naming
      rows that are gone or changed; Java guards it per statement (MERGE's
      ``global-index.column-update-action``, 2.0's compaction index dropper). Refused here with
      `UnsupportedFeatureError`, before anything is published.

    `delta` has its row ids assigned (`assign_row_ids`).

    >>> global_indexes_after([], [], overwrite=False, table="db.t") is None
    True
    """
    indexed = [e for e in entries if e.index_file.global_index is not None]
    if not indexed:
        return None
    removed = {e.partition for e in delta if e.kind is FileKind.DELETE}
    if overwrite:
        kept = [
            e for e in entries if e.index_file.global_index is None or e.partition not in removed
        ]
        return kept if len(kept) != len(entries) else None
    for e in indexed:
        meta = e.index_file.global_index
        assert meta is not None
        if e.partition in removed:
            raise _global_index_refusal(table, e, "removes data files of its partition")
        for d in delta:
            f = d.file
            if d.kind is FileKind.ADD and d.partition == e.partition and f.first_row_id is not None:
                last = f.first_row_id + f.row_count - 1
                if f.first_row_id <= meta.row_range_end and last >= meta.row_range_start:
                    raise _global_index_refusal(
                        table, e, f"writes rows {f.first_row_id}..{last} of {f.file_name} over it"
                    )
    return None


def _global_index_refusal(
    table: str, entry: IndexManifestEntry, what: str
) -> UnsupportedFeatureError:
    meta = entry.index_file.global_index
    assert meta is not None
    return UnsupportedFeatureError(
        f"commit to {table}: it {what}, and Java's {entry.index_file.index_type} global index "
        f"{entry.index_file.file_name} covers rows {meta.row_range_start}..{meta.row_range_end} "
        f"there (field id {meta.index_field_id}); paimon-sql does not rebuild global indexes, so "
        "the index would describe rows that are gone. Nothing was written. Rewrite the rows with "
        "Java (Spark's MERGE/UPDATE, compaction), or drop the index first (Spark's "
        "drop_global_index procedure) and rebuild it with create_global_index afterwards"
    )


def check_vectors_live(
    messages: Iterable[CommitMessage],
    live: Sequence[ManifestEntry],
    delta: Sequence[ManifestEntry],
) -> None:
    """Every vector of a new deletion-vector file belongs to a data file live after the commit.

    A concurrent compaction that removed a file this commit marks rows of would leave a vector of
    a file no snapshot lists (damage to every reader): `CommitConflictError` instead.

    >>> check_vectors_live([], [], [])
    """
    after: set[tuple[bytes, int, str]] | None = None
    for m in messages:
        for f in m.new_index_files:
            if f.index_type != "DELETION_VECTORS":
                continue
            if after is None:
                after = {
                    (e.partition, e.bucket, e.file.file_name)
                    for e in fold([*live, *delta]).values()
                }
            for r in f.dv_ranges or ():
                if (m.partition, m.bucket, r.data_file_name) not in after:
                    raise CommitConflictError(
                        f"data file {r.data_file_name} (bucket {m.bucket}) was removed by a "
                        "concurrent commit while this one marked rows of it; the statement made "
                        "no snapshot, run it again"
                    )


def _index_conflict(name: str, bucket: int) -> CommitConflictError:
    return CommitConflictError(
        f"the deletion vectors of bucket {bucket} were changed by a concurrent commit (index "
        f"file {name}); the statement made no snapshot, run it again"
    )


def record_counts(delta: Iterable[ManifestEntry]) -> int:
    """Σ rowCount(ADD) - Σ rowCount(DELETE)."""
    return sum(e.file.row_count if e.kind is FileKind.ADD else -e.file.row_count for e in delta)


def assign_row_ids(
    delta: Sequence[ManifestEntry], snapshot_id: int, next_row_id: int
) -> tuple[list[ManifestEntry], int]:
    """A row-tracking commit's delta as Java 1.3 commits it, and the snapshot's ``nextRowId``.

    ``FileStoreCommitImpl``: every delta file gets the snapshot id as its min and max sequence
    number; each APPEND file without a first row id gets the next free row ids, in delta order
    (compacted files keep theirs in their ``_ROW_ID`` column). `next_row_id` is the latest
    snapshot's ``nextRowId`` (0 when it has none).

    >>> from paimon_sql.format.manifest import DataFileMeta, EMPTY_STATS
    >>> def entry(name, rows):
    ...     f = DataFileMeta(file_name=name, file_size=1, row_count=rows, min_key=b"", max_key=b"",
    ...                      key_stats=EMPTY_STATS, value_stats=EMPTY_STATS, min_sequence_number=0,
    ...                      max_sequence_number=rows - 1, schema_id=0, level=0,
    ...                      file_source=FileSource.APPEND)
    ...     return ManifestEntry(kind=FileKind.ADD, partition=b"", bucket=0, total_buckets=-1,
    ...                          file=f)
    >>> out, end = assign_row_ids([entry("a", 2), entry("b", 3)], 7, 10)
    >>> [(e.file.first_row_id, e.file.min_sequence_number, e.file.max_sequence_number)
    ...  for e in out], end
    ([(10, 7, 7), (12, 7, 7)], 15)
    """
    out = []
    start = next_row_id
    for e in delta:
        f = replace(e.file, min_sequence_number=snapshot_id, max_sequence_number=snapshot_id)
        if f.file_source is FileSource.APPEND and f.first_row_id is None:
            f = replace(f, first_row_id=start)
            start += f.row_count
        out.append(replace(e, file=f))
    return out, start


def refuse_row_rewrite(options: Mapping[str, str], table: str, what: str) -> None:
    """Refuse `what` (a statement rewriting rows) on a row-tracking table.

    Java keeps each row's ``_ROW_ID`` when it rewrites rows (compaction stores it as a column,
    Spark's MERGE/UPDATE write it back); paimon-sql does not yet, and new row ids would silently
    differ from Java's.

    >>> refuse_row_rewrite({}, "db.t", "DELETE") is None
    True
    >>> refuse_row_rewrite({"row-tracking.enabled": "true"}, "db.t", "DELETE")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    paimon_sql.errors.UnsupportedFeatureError: DELETE on db.t: the table has 'row-tracking...
    """
    if str(options.get("row-tracking.enabled", "false")).lower() == "true":
        raise UnsupportedFeatureError(
            f"{what} on {table}: the table has 'row-tracking.enabled' = 'true', and paimon-sql "
            "does not keep row ids when it rewrites rows (INSERT and INSERT OVERWRITE work; use "
            "Java for DELETE, UPDATE, MERGE and compaction)"
        )
