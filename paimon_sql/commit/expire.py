"""Snapshot expiration and the file clean-up it shares with tag deletion (seed 003, format §10).

A data file, manifest, index file or changelog file may be deleted only when no live snapshot and no
tag still uses it. The rules follow Apache Paimon's ``ExpireSnapshotsImpl``, ``SnapshotDeletion``,
``FileDeletionBase`` and ``TagManager.deleteTag`` (0.9):

* **Which snapshots.** Ids from the earliest up to an exclusive end ``E``: at most ``latest -
  retain_min + 1``, the smallest consumer's ``nextSnapshot`` and ``earliest + max_deletes``. Ids
  below ``latest - retain_max + 1`` go regardless of age; from there on, expiration stops at the
  first snapshot not older than ``older_than``.
* **Data files.** For each id in ``(begin, E]`` the files its *delta* DELETEs (and does not re-ADD)
  are not used by that snapshot or any later one; they are deleted unless the newest tag older than
  that id still holds them (seed 003: a file lives in an interval of snapshots, so that tag is the
  only one that can).
* **Changelog files** of the expired snapshots, then their **manifests, manifest lists, index
  manifests and index files**, except those of snapshot ``E`` and of the tags overlapping the range.

**Order (not Java's).** Java deletes the files first and the ``snapshot-<id>`` files last, so a
process killed part-way leaves listed snapshots whose files are gone. Here the ``EARLIEST`` hint
moves to ``E`` first, then the expired ``snapshot-<id>`` files go, oldest first, and only then their
files: every snapshot still listed reads completely at every moment (the listing is one contiguous
run up to the latest), snapshot ``E`` and everything newer never lose a file, and what a killed run
leaves is unreferenced, for ``remove_orphan_files``. Every step tolerates files already deleted
(a concurrent expiration, as Java's does).

>>> _previous_tag_index([3, 7, 9], 8), _previous_tag_index([3, 7, 9], 3)
(1, -1)
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING, Any

from paimon_sql.catalog import Table, names
from paimon_sql.commit.plan import fold
from paimon_sql.errors import (
    ArgumentError,
    DataFileNotFoundError,
    PaimonSqlError,
    PathEscapeError,
    SnapshotNotFoundError,
)
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.manifest import FileKind, IndexFileMeta, ManifestEntry, ManifestFileMeta
from paimon_sql.format.options import ChangelogProducer, CoreOptions
from paimon_sql.format.partition import PartitionLayout
from paimon_sql.format.snapshot import snapshot_from_json, snapshot_to_json

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from paimon_sql.format.manifest import IndexFileMeta, ManifestEntry, ManifestFileMeta
    from paimon_sql.format.snapshot import Snapshot

log = logging.getLogger(__name__)

INT_MAX = 2**31 - 1
"""Java's Integer.MAX_VALUE: default of ``snapshot.num-retained.max`` and the procedure's limits."""

FileKey = tuple[bytes, int, str]
"""(partition, bucket, file name): how Java matches a data file across snapshots."""


# --- where files live -----------------------------------------------------------------------------


class Layout:
    """Paths of a table's data, changelog and index files (format §1: derived, never stored)."""

    def __init__(self, table: Table) -> None:
        """The layout of `table`'s latest schema (partition keys and path options never change)."""
        schema = table.latest_schema
        self.table = table
        self.options = CoreOptions(schema.options)
        self.part_names = schema.partition_keys
        self.part_types = [schema.field(n).type for n in self.part_names]
        self._partitions = PartitionLayout.of(schema)
        self._dirs: dict[tuple[bytes, int], str] = {}

    def bucket_dir(self, partition: bytes, bucket: int) -> str:
        """``[<data-file.path-directory>/]<partition path>/bucket-<b>``."""
        key = (partition, bucket)
        cached = self._dirs.get(key)
        if cached is None:
            parts = []
            directory = names.path_directory(self.options.options)
            if directory:
                parts.append(directory)
            if self.part_names:
                parts.append(self._partitions.path(decode_row(partition, self.part_types)))
            parts.append("bucket-postpone" if bucket == -2 else f"bucket-{bucket}")
            cached = self._dirs[key] = self.table.sub(*parts)
        return cached

    def data_paths(self, entry: ManifestEntry) -> list[str]:
        """The data (or changelog) file of an entry and its extra files (file-index sidecars)."""
        f = entry.file
        folder = self.bucket_dir(entry.partition, entry.bucket)
        what = f"data file of table {self.table.name}"
        name = names.validate_file_name(f.file_name, what=what)
        main = (
            names.external_path(f.external_path, self.options.options, what=f"{what} {name}")
            if f.external_path
            else self.table.fileio.join(folder, name)
        )
        extra = [
            names.validate_file_name(x, what=f"extra file of {what} {name}") for x in f.extra_files
        ]
        return [main, *(self.table.fileio.join(folder, x) for x in extra)]

    def index_path(self, partition: bytes, bucket: int, meta: IndexFileMeta) -> str:
        """An index file: ``index/<name>``, its external path, or (if so configured) the bucket.

        A global index file (Java 1.4) lives in ``index/`` or under ``global-index.external-path``,
        never in a bucket (Java's ``globalIndexFileFactory``).
        """
        what = f"index file of table {self.table.name}"
        name = names.validate_file_name(meta.file_name, what=what)
        if meta.external_path:
            options = self.options.options
            key = names.EXTERNAL_PATHS
            if meta.global_index is not None:
                key = names.GLOBAL_INDEX_EXTERNAL_PATH
            return names.external_path(meta.external_path, options, what=f"{what} {name}", key=key)
        if meta.global_index is None and self.options.flag("index-file-in-data-file-dir"):
            return self.table.fileio.join(self.bucket_dir(partition, bucket), name)
        return self.table.sub("index", name)


def entry_key(entry: ManifestEntry) -> FileKey:
    """The (partition, bucket, file name) of a manifest entry."""
    return (entry.partition, entry.bucket, entry.file.file_name)


# --- reading metadata: strict for what must be kept, tolerant for what is being removed ---


def manifest_list(table: Table, name: str | None, *, strict: bool = True) -> list[ManifestFileMeta]:
    """A manifest list; non-strict, an unreadable one (deleted by a crashed run) reads as empty."""
    if name is None:
        return []
    try:
        return table.manifest_list(name)
    except PathEscapeError:
        raise  # a name that leaves the table is never "deleted by a crashed run"
    except (PaimonSqlError, OSError) as err:
        if strict:
            raise
        log.warning("skipping unreadable manifest list %s: %s", name, err)
        return []


def list_entries(table: Table, name: str | None, *, strict: bool = True) -> list[ManifestEntry]:
    """Every entry of every manifest of a manifest list, in order."""
    out: list[ManifestEntry] = []
    for meta in manifest_list(table, name, strict=strict):
        try:
            out.extend(table.manifest(meta.file_name))
        except PathEscapeError:
            raise
        except (PaimonSqlError, OSError) as err:
            if strict:
                raise
            log.warning("skipping unreadable manifest %s: %s", meta.file_name, err)
    return out


def live_entries(table: Table, snapshot: Snapshot, *, strict: bool = True) -> list[ManifestEntry]:
    """The data files a snapshot (or tag) holds: base + delta folded (§4.5)."""
    entries = list_entries(table, snapshot.base_manifest_list, strict=strict)
    entries += list_entries(table, snapshot.delta_manifest_list, strict=strict)
    return list(fold(entries).values())


def live_files(table: Table, snapshots: Iterable[Snapshot]) -> set[FileKey]:
    """The data files any of `snapshots` holds."""
    return {entry_key(e) for s in snapshots for e in live_entries(table, s)}


def index_manifest(table: Table, name: str | None, *, strict: bool = True) -> list[Any]:
    """The entries of an index manifest (empty when it has none or, non-strict, it is gone)."""
    if name is None:
        return []
    if not strict and not table.fileio.exists(table.manifest_path(name)):
        return []
    try:
        return table.index_manifest(name)
    except PathEscapeError:
        raise
    except (PaimonSqlError, OSError) as err:
        if strict:
            raise
        log.warning("skipping unreadable index manifest %s: %s", name, err)
        return []


def manifest_skipping_set(table: Table, snapshots: Iterable[Snapshot]) -> set[str]:
    """Manifest lists, manifests, index manifests and index files the snapshots use (strict)."""
    keep: set[str] = set()
    for s in snapshots:
        keep.update((s.base_manifest_list, s.delta_manifest_list))
        for name in (s.base_manifest_list, s.delta_manifest_list):
            keep.update(m.file_name for m in manifest_list(table, name))
        if s.index_manifest is not None:
            keep.add(s.index_manifest)
            keep.update(e.index_file.file_name for e in index_manifest(table, s.index_manifest))
    return keep


def tagged_snapshots(table: Table) -> list[Snapshot]:
    """The snapshots tags hold, one per snapshot id, by id (TagManager.taggedSnapshots)."""
    by_id: dict[int, Snapshot] = {}
    for name in table.tag_names():
        try:
            snap = table.tag(name)
        except PaimonSqlError:
            if table.fileio.exists(table.meta("tag", f"tag-{name}")):
                raise  # a damaged tag stops the clean-up: skipping it would delete what it holds
            continue  # deleted meanwhile, as Java skips it
        by_id.setdefault(snap.id, snap)
    return [by_id[i] for i in sorted(by_id)]


# --- branches: they share the table's data files and manifests ---------------------------------


def branches(table: Table) -> list[Table]:
    """Every branch of the table (``branch/branch-<name>/``), the main branch first."""
    out = [table if table.branch == "main" else Table(table.fileio, table.path, table.name)]
    for name in table.fileio.list_names(table.sub("branch")):
        if name.startswith("branch-"):
            out.append(Table(table.fileio, table.path, table.name, name[len("branch-") :]))
    return out


def _version_files(branch: Table) -> list[tuple[list[str], str | None, str | None]]:
    """(manifest lists, index manifest, statistics) of each snapshot, tag, changelog of a branch."""
    found: list[Snapshot] = [branch.snapshot(i) for i in branch.snapshot_ids()]
    found += [branch.tag(n) for n in branch.tag_names()]
    out = [
        ([n for n in (s.base_manifest_list, s.delta_manifest_list, s.changelog_manifest_list) if n],
         s.index_manifest, s.statistics)
        for s in found
    ]  # fmt: skip
    folder = branch.meta("changelog")
    for name in branch.fileio.list_names(folder):
        if name.startswith("changelog-") and name[len("changelog-") :].isdigit():
            data = json.loads(branch.fileio.read_text(branch.fileio.join(folder, name)))
            keys = ("baseManifestList", "deltaManifestList", "changelogManifestList")
            out.append(
                (
                    [data[k] for k in keys if data.get(k)],
                    data.get("indexManifest"),
                    data.get("statistics"),
                )
            )
    return out


def used_file_names(table: Table, *, other_branches_only: bool = False) -> set[str]:
    """Names of the metadata, data, changelog, index and statistics files any version uses.

    Every branch's snapshots, tags and changelogs; `other_branches_only`: those of the branches
    other than `table`'s own (what a clean-up of `table`'s branch must leave).
    """
    used: set[str] = set()
    for branch in branches(table):
        if other_branches_only and branch.branch == table.branch:
            continue
        for lists, index_name, statistics in _version_files(branch):
            for list_name in lists:
                used.add(list_name)
                used.update(m.file_name for m in manifest_list(branch, list_name))
                for entry in list_entries(branch, list_name):
                    used.add(entry.file.file_name)
                    used.update(entry.file.extra_files)
            if index_name:
                used.add(index_name)
                used.update(e.index_file.file_name for e in index_manifest(branch, index_name))
            if statistics:
                used.add(statistics)
    return used


# --- deleting -----------------------------------------------------------------------------------


class Deleter:
    """Deletes files quietly (absent is fine) and counts them; `dry_run` only records.

    Branches share the table's data files and manifests: a branch made from a tag holds that
    snapshot's files after the main branch let them go. So a file another branch still uses is
    never deleted (`spare_branches`; Java 1.3's expiration, tag deletion and rollback do delete
    it, and the branch no longer reads); `remove_orphan_files`, which checks every branch itself,
    turns it off.
    """

    def __init__(self, table: Table, *, dry_run: bool = False, spare_branches: bool = True) -> None:
        """Deletes inside `table`'s storage."""
        self.table = table
        self.dry_run = dry_run
        self.deleted: list[str] = []
        self._roots: list[str] | None = None
        self._spared: set[str] | None = None if spare_branches else set()

    def __call__(self, path: str) -> None:
        """Delete one file, only inside the table folder or a configured external root.

        Never through a symbolic link leading out of them (`PathEscapeError` otherwise), never one
        another branch uses (read on the first call).
        """
        if self._spared is None:
            self._spared = used_file_names(self.table, other_branches_only=True)
        if path.rsplit("/", 1)[-1] in self._spared:
            return
        if self._roots is None:
            options = self.table.latest_schema.options
            self._roots = [
                self.table.path,
                *names.external_roots(options),
                *names.external_roots(options, key=names.GLOBAL_INDEX_EXTERNAL_PATH),
            ]
        names.inside(path, self._roots, local=self.table.fileio.local, what="file to delete")
        self.deleted.append(path)
        if not self.dry_run:
            self.table.fileio.delete(path)

    def manifest(self, name: str) -> None:
        """A file of ``manifest/``."""
        self(self.table.manifest_path(name))


def clean_manifests(
    table: Table,
    layout: Layout,
    snapshot: Snapshot,
    keep: set[str],
    delete: Deleter,
    *,
    changelog: bool,
) -> None:
    """Delete a snapshot's (or tag's) manifests, lists, index manifest, index files not in `keep`.

    Deleted names join `keep` so later snapshots do not delete them again (FileDeletionBase).
    """
    for meta in manifest_list(table, snapshot.base_manifest_list, strict=False) + manifest_list(
        table, snapshot.delta_manifest_list, strict=False
    ):
        if meta.file_name not in keep:
            delete.manifest(meta.file_name)
            keep.add(meta.file_name)
    for name in (snapshot.base_manifest_list, snapshot.delta_manifest_list):
        if name not in keep:
            delete.manifest(name)
    if changelog and snapshot.changelog_manifest_list is not None:
        for meta in manifest_list(table, snapshot.changelog_manifest_list, strict=False):
            delete.manifest(meta.file_name)
        delete.manifest(snapshot.changelog_manifest_list)
    if snapshot.index_manifest is not None:
        for entry in index_manifest(table, snapshot.index_manifest, strict=False):
            if entry.index_file.file_name not in keep:
                delete(layout.index_path(entry.partition, entry.bucket, entry.index_file))
        if snapshot.index_manifest not in keep:
            delete.manifest(snapshot.index_manifest)


def _deleted_in_delta(table: Table, snapshot: Snapshot) -> dict[FileKey, ManifestEntry]:
    """Files the snapshot's delta DELETEs and does not ADD back (a level upgrade is both)."""
    gone: dict[FileKey, ManifestEntry] = {}
    for e in list_entries(table, snapshot.delta_manifest_list, strict=False):
        if e.kind is FileKind.ADD:
            gone.pop(entry_key(e), None)
        else:
            gone[entry_key(e)] = e
    return gone


# --- expiration ---------------------------------------------------------------------------------


def _previous_tag_index(tag_ids: Sequence[int], snapshot_id: int) -> int:
    """Index of the newest tag with id < snapshot_id, -1 if none (TagManager.findPreviousTag)."""
    for i in range(len(tag_ids) - 1, -1, -1):
        if tag_ids[i] < snapshot_id:
            return i
    return -1


def _overlapped_tags(tags: Sequence[Snapshot], begin: int, end: int) -> list[Snapshot]:
    """Tags from the newest at or before `begin` to the newest before `end` (Java's overlap)."""
    ids = [t.id for t in tags]
    right = _previous_tag_index(ids, end)
    if right < 0:
        return []
    left = max(_previous_tag_index(ids, begin + 1), 0)
    return list(tags[left : right + 1])


def consumer_min_next(table: Table) -> int | None:
    """The smallest ``nextSnapshot`` of the consumers (``consumer/consumer-<id>``), or None."""
    folder = table.meta("consumer")
    found: list[int] = []
    for name in table.fileio.list_names(folder):
        if not name.startswith("consumer-"):
            continue
        try:
            data = json.loads(table.fileio.read_text(table.fileio.join(folder, name)))
            found.append(int(data["nextSnapshot"]))
        except (PaimonSqlError, ValueError, KeyError, TypeError):
            continue
    return min(found) if found else None


def expire_snapshots(
    table: Table,
    *,
    retain_max: int | None = None,
    retain_min: int | None = None,
    older_than_ms: int | None = None,
    max_deletes: int | None = None,
    keep_changelog: bool = False,
) -> int:
    """Expire snapshots as Java's ``ExpireSnapshotsImpl`` does; the number of snapshots expired.

    `keep_changelog` (a decoupled changelog lifecycle): each expired snapshot becomes a long-lived
    ``changelog/changelog-<id>`` and keeps its changelog files (`expire_changelogs` removes them).

    Defaults are those of ``CALL sys.expire_snapshots`` (Java's ``ExpireConfig`` builder): keep all
    (``retain_max`` = Integer.MAX), at least 1, no age limit, no limit on how many go at once. So
    only the arguments given expire anything: ``retain_max=2`` keeps the 2 newest; ``older_than_ms``
    expires those older, down to ``retain_min``.
    """
    retain_max = INT_MAX if retain_max is None else retain_max
    retain_min = 1 if retain_min is None else retain_min
    max_deletes = INT_MAX if max_deletes is None else max_deletes
    if retain_min < 1:
        raise ArgumentError(
            f"retain_min must be at least 1 (the latest snapshot always stays), got {retain_min}"
        )
    if retain_max < retain_min:
        raise ArgumentError(f"retain_max ({retain_max}) must be at least retain_min ({retain_min})")
    if max_deletes < 0:
        raise ArgumentError(f"max_deletes must not be negative, got {max_deletes}")
    # both ends from the hints checked against the files (a listing only when they do not hold)
    latest = table.latest_snapshot_id()
    earliest = table.earliest_snapshot_id()
    if latest is None or earliest is None:
        return 0
    ids = range(earliest, latest + 1)  # the consecutive run ending at the latest
    lowest_kept = max(latest - retain_max + 1, earliest)
    end = latest - retain_min + 1
    consumer = consumer_min_next(table)
    if consumer is not None:
        end = min(end, consumer)
    end = min(end, earliest + max_deletes)
    if end <= earliest:  # nothing to expire: only the EARLIEST hint is checked
        return expire_until(table, earliest, end, keep_changelog=keep_changelog, listed=ids)
    older = -(2**63) if older_than_ms is None else older_than_ms
    for snapshot_id in range(lowest_kept, end):
        try:
            moment = table.snapshot(snapshot_id).time_millis
        except (SnapshotNotFoundError, DataFileNotFoundError):  # expired concurrently
            continue
        if older <= moment:
            return expire_until(
                table, earliest, snapshot_id, keep_changelog=keep_changelog, listed=ids
            )
    return expire_until(table, earliest, end, keep_changelog=keep_changelog, listed=ids)


def _write_earliest(table: Table, snapshot_id: int) -> None:
    table.fileio.write_bytes(table.meta("snapshot", "EARLIEST"), str(snapshot_id).encode())


def expire_until(
    table: Table,
    earliest: int,
    end: int,
    *,
    keep_changelog: bool = False,
    listed: Iterable[int] | None = None,
) -> int:
    """Expire snapshots ``[earliest, end)`` (ids already gone are skipped); the number expired.

    The order keeps every snapshot still listed readable if the process dies at any point: the
    EARLIEST hint moves first, then the snapshot files go oldest first (the listing stays one
    contiguous run ``k..latest`` of complete snapshots), and only then the files no remaining
    snapshot or tag uses. A crash part-way leaves those files unreferenced, for
    ``remove_orphan_files``; it never leaves a listed snapshot whose files are gone.
    """
    listed = listed if isinstance(listed, range) else set(listed or table.snapshot_ids())
    begin = end
    while begin - 1 >= earliest and begin - 1 in listed:
        begin -= 1
    if end <= begin:
        if not table.fileio.exists(table.meta("snapshot", "EARLIEST")):  # Java writes it if missing
            _write_earliest(table, min(listed, default=earliest))
        return 0
    read = _read_range(table, begin, end)
    if read is None:
        return 0
    kept, expired = read
    begin = expired[0].id
    delete = Deleter(table)
    if keep_changelog:  # Java's commitChangelog: written before the snapshot file goes
        for snap in expired:
            table.fileio.write_bytes(
                table.meta("changelog", f"changelog-{snap.id}"), snapshot_to_json(snap).encode()
            )
        table.fileio.write_bytes(table.meta("changelog", "LATEST"), str(expired[-1].id).encode())
    _write_earliest(table, end)
    for snap in expired:
        delete(table.meta("snapshot", f"snapshot-{snap.id}"))
    # Tags are listed only now: one created meanwhile on an expired snapshot is either seen here or
    # undone by its creator, which checks after writing it that the snapshot still exists.
    tags = tagged_snapshots(table)
    layout = Layout(table)
    keep = manifest_skipping_set(table, [*_overlapped_tags(tags, begin, end), kept])
    kept_files = live_files(table, [kept])
    _delete_data_files(table, layout, tags, [*expired, kept][1:], kept_files, delete)
    if not keep_changelog:  # changelog files (without a decoupled changelog lifecycle)
        for snap in expired:
            _delete_changelog_files(table, layout, snap, delete)
    for snap in expired:
        clean_manifests(table, layout, snap, keep, delete, changelog=not keep_changelog)
    return len(expired)


def _delete_changelog_files(table: Table, layout: Layout, snap: Snapshot, delete: Deleter) -> None:
    for e in list_entries(table, snap.changelog_manifest_list, strict=False):
        if e.kind is FileKind.ADD:
            for path in layout.data_paths(e):
                delete(path)


# --- long-lived changelogs (a decoupled changelog lifecycle) ------------------------------------


def changelog_ids(table: Table) -> list[int]:
    """Ids of the long-lived ``changelog/changelog-<id>`` files, ascending."""
    listed = table.fileio.list_names(table.meta("changelog"))
    prefix = "changelog-"
    return sorted(
        int(n[len(prefix) :]) for n in listed if n.startswith(prefix) and n[len(prefix) :].isdigit()
    )


def _changelog(table: Table, changelog_id: int) -> Snapshot:
    path = table.meta("changelog", f"changelog-{changelog_id}")
    return snapshot_from_json(table.fileio.read_bytes(path))


def expire_changelogs(
    table: Table,
    *,
    retain_max: int,
    retain_min: int,
    older_than_ms: int,
    max_deletes: int,
) -> int:
    """Expire long-lived changelogs as Java's ``ExpireChangelogImpl``; the number expired.

    Ids from the earliest changelog up to an exclusive end: at most ``latest snapshot -
    retain_min + 1``, the smallest consumer's next snapshot, ``earliest + max_deletes`` and the
    latest changelog; those below ``latest snapshot - retain_max + 1`` go regardless of age, from
    there on the first changelog not older than `older_than_ms` stops it. Each expired changelog's
    changelog files, changelog manifests and list, then its ``changelog-<id>`` file are deleted.
    """
    if retain_max < retain_min:
        raise ArgumentError(
            f"changelog.num-retained.max ({retain_max}) must be at least "
            f"changelog.num-retained.min ({retain_min})"
        )
    latest = table.latest_snapshot_id()
    ids = changelog_ids(table)
    if latest is None or table.earliest_snapshot_id() is None or not ids:
        return 0
    earliest, newest = ids[0], ids[-1]
    lowest = max(latest - retain_max + 1, earliest)
    end = latest - retain_min + 1
    consumer = consumer_min_next(table)
    if consumer is not None:
        end = min(end, consumer)
    end = min(end, earliest + max_deletes, newest)
    for changelog_id in range(lowest, end + 1):
        if changelog_id in ids and older_than_ms <= _changelog(table, changelog_id).time_millis:
            end = changelog_id
            break
    layout = Layout(table)
    delete = Deleter(table)
    gone = 0
    for changelog_id in (i for i in ids if i < end):
        log_snapshot = _changelog(table, changelog_id)
        _delete_changelog_files(table, layout, log_snapshot, delete)
        listed = log_snapshot.changelog_manifest_list
        if listed is not None:
            for meta in manifest_list(table, listed, strict=False):
                delete.manifest(meta.file_name)
            delete.manifest(listed)
        delete(table.meta("changelog", f"changelog-{changelog_id}"))
        gone += 1
    if gone:
        table.fileio.write_bytes(table.meta("changelog", "EARLIEST"), str(end).encode())
    return gone


def _read_range(table: Table, begin: int, end: int) -> tuple[Snapshot, list[Snapshot]] | None:
    """Snapshot `end` and those of ``[begin, end)`` still there (read before their files go).

    None when a concurrent expiration already removed them.
    """
    try:
        kept = table.snapshot(end)
    except (SnapshotNotFoundError, DataFileNotFoundError):
        return None  # a concurrent expiration went further: nothing left for this one
    expired: list[Snapshot] = []
    for snapshot_id in range(begin, end):
        try:
            expired.append(table.snapshot(snapshot_id))
        except (SnapshotNotFoundError, DataFileNotFoundError):
            expired = []  # deleted by a concurrent expiration, and every older one with it
    return (kept, expired) if expired else None


def _delete_data_files(
    table: Table,
    layout: Layout,
    tags: Sequence[Snapshot],
    snapshots: Sequence[Snapshot],
    kept_files: set[FileKey],
    delete: Deleter,
) -> None:
    """Files DELETEd by the deltas of `snapshots` (``(begin, end]``).

    Except those the last tag or `end` holds.
    """
    tag_ids = [t.id for t in tags]
    cached_index, cached_files = -1, set[FileKey]()
    for snapshot in snapshots:
        snapshot_id = snapshot.id
        index = _previous_tag_index(tag_ids, snapshot_id)
        if index >= 0 and index != cached_index:
            try:
                cached_files = live_files(table, [tags[index]])
            except (
                PaimonSqlError,
                OSError,
            ) as err:  # Java: skip this snapshot's data files, keep them
                log.info(
                    "keeping data files of snapshot %s: cannot read tag %s: %s",
                    snapshot_id,
                    tags[index].id,
                    err,
                )
                cached_index = -1
                continue
            cached_index = index
        protected = cached_files if index >= 0 else set()
        for key, entry in _deleted_in_delta(table, snapshot).items():
            # Safety net beyond Java: a file that snapshot `end` still reads is never deleted.
            if key not in protected and key not in kept_files:
                for path in layout.data_paths(entry):
                    delete(path)


# --- expiration at commit time ------------------------------------------------------------------


def changelog_decoupled(options: CoreOptions) -> bool:
    """Whether ``changelog.*`` retention exceeds the snapshot retention (unset = equal)."""
    s_max = options.integer("snapshot.num-retained.max")
    s_min = options.integer("snapshot.num-retained.min")
    s_time = options.duration_ms("snapshot.time-retained")
    c_max = options.optional_integer("changelog.num-retained.max")
    c_min = options.optional_integer("changelog.num-retained.min")
    c_time = options.optional_duration_ms("changelog.time-retained")
    c_max = s_max if c_max is None else c_max
    c_min = s_min if c_min is None else c_min
    c_time = s_time if c_time is None else c_time
    return c_max > s_max or c_min > s_min or c_time > s_time


def expire_by_options(table: Table, snapshot: Snapshot, *, now_ms: int | None = None) -> int:
    """Expiration after a commit, configured by the table options as Java's committer does.

    ``snapshot.num-retained.min`` (10), ``snapshot.num-retained.max`` (Integer.MAX),
    ``snapshot.time-retained`` (1 h) and ``snapshot.expire.limit`` (10 in Paimon 0.9). Nothing
    happens with ``write-only`` = true, or with a decoupled changelog lifecycle (its ``changelog/``
    files are not written here, so everything is kept rather than deleting what Java would keep).
    """
    options = CoreOptions(table.schema(snapshot.schema_id).options)
    if options.flag("write-only"):
        return 0
    decoupled = changelog_decoupled(options)
    if decoupled and options.changelog_producer is ChangelogProducer.NONE:
        log.warning(
            "table %s: not expiring snapshots, a decoupled changelog lifecycle (changelog.* "
            "retention) without a changelog producer keeps delta files, which paimon-sql does not "
            "do yet; expire with Java or align changelog.* to snapshot.*",
            table.name,
        )
        return 0
    now = int(time.time() * 1000) if now_ms is None else now_ms
    try:
        retained = options.duration_ms("snapshot.time-retained")
        expired = expire_snapshots(
            table,
            retain_max=options.integer("snapshot.num-retained.max"),
            retain_min=options.integer("snapshot.num-retained.min"),
            older_than_ms=int(now - retained),
            max_deletes=options.snapshot_expire_limit,
            keep_changelog=decoupled,
        )
        if decoupled:
            _expire_changelogs_by_options(table, options, now)
        return expired
    except (PaimonSqlError, OSError, ValueError) as err:
        # The commit is already visible; a failed expiration only leaves more snapshots; the next
        # commit (or CALL sys.expire_snapshots) tries again.
        log.warning(
            "table %s: snapshot expiration after commit %s failed: %s", table.name, snapshot.id, err
        )
        return 0


def _expire_changelogs_by_options(table: Table, options: CoreOptions, now: int) -> int:
    """``changelog.num-retained.*`` / ``changelog.time-retained`` (unset: the snapshot values)."""

    def pick(key: str, fallback: int) -> int:
        value = options.optional_integer(key)
        return fallback if value is None else value

    retain_max = pick("changelog.num-retained.max", options.integer("snapshot.num-retained.max"))
    retain_min = pick("changelog.num-retained.min", options.integer("snapshot.num-retained.min"))
    time_retained = options.optional_duration_ms("changelog.time-retained")
    if time_retained is None:
        time_retained = options.duration_ms("snapshot.time-retained")
    return expire_changelogs(
        table,
        retain_max=retain_max,
        retain_min=retain_min,
        older_than_ms=int(now - time_retained),
        max_deletes=options.snapshot_expire_limit,
    )


# --- tag deletion -------------------------------------------------------------------------------


def clean_after_tag_deletion(table: Table, tagged: Snapshot) -> int:
    """Delete the files only the deleted tag's snapshot held (call after removing the tag file).

    Returns the number of files deleted. As ``TagManager.deleteTag``: nothing when the snapshot
    still exists or another tag holds it; else the tag's data files, manifests and index files that
    neither the previous tag nor the nearest later one (the next tag or the earliest snapshot) uses.
    """
    if table.fileio.exists(table.meta("snapshot", f"snapshot-{tagged.id}")):
        return 0
    tags = tagged_snapshots(table)
    if any(t.id == tagged.id for t in tags):
        return 0
    neighbours = [t for t in tags if t.id < tagged.id][-1:]
    later = [t for t in tags if t.id > tagged.id][:1]
    earliest_id = table.earliest_snapshot_id()
    if earliest_id is not None:
        earliest = table.snapshot(earliest_id)
        later = [earliest] if not later or earliest.id < later[0].id else later
    neighbours += later
    layout = Layout(table)
    delete = Deleter(table)
    keep_files = live_files(table, neighbours)
    keep = manifest_skipping_set(table, neighbours)
    for entry in live_entries(table, tagged, strict=False):
        if entry_key(entry) not in keep_files:
            for path in layout.data_paths(entry):
                delete(path)
    clean_manifests(table, layout, tagged, keep, delete, changelog=False)
    return len(delete.deleted)
