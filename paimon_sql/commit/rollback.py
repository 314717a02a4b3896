"""Rollback to a snapshot, a tag or a point in time, as Java's ``rollbackTo`` / ``RollbackHelper``.

Rolling back to snapshot ``T`` deletes every snapshot newer than ``T`` and every tag of such a
snapshot, then the files those added and nothing older still uses: data and changelog files ADDed by
their deltas, their manifests, manifest lists, index manifests and index files. ``LATEST`` becomes
``T``.

Crash safety: the newer snapshot files go first, newest first, so at every moment the table is a
prefix of its history that reads completely. Beyond Java (which deletes every ADDed file of the
removed deltas), a file that snapshot ``T`` or a remaining tag still holds is never deleted, and
rolling back to a tag whose snapshot has expired writes that snapshot (from the tag, without the
tag's retention fields) *before* deleting anything.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from paimon_sql.catalog.table import instant_text
from paimon_sql.commit.expire import (
    Deleter,
    Layout,
    clean_manifests,
    entry_key,
    list_entries,
    live_entries,
    live_files,
    manifest_skipping_set,
    tagged_snapshots,
)
from paimon_sql.errors import ArgumentError, SnapshotNotFoundError, UnsupportedFeatureError
from paimon_sql.format.manifest import FileKind
from paimon_sql.format.snapshot import snapshot_to_json

if TYPE_CHECKING:
    from paimon_sql.catalog import Table
    from paimon_sql.commit.expire import FileKey
    from paimon_sql.format.manifest import ManifestEntry
    from paimon_sql.format.snapshot import Snapshot


def rollback(table: Table, snapshot_id: int | None = None, tag: str | None = None) -> Snapshot:
    """Roll the table back to a snapshot id or a tag; the snapshot it now ends at.

    A tag whose snapshot has expired brings that snapshot back as the only one. A snapshot id must
    exist, or a tag must hold it: then the rollback goes to that tag, as Paimon 1.x's
    ``rollbackTo(long)``; otherwise ``Rollback snapshot 'N' doesn't exist``, as Java.
    """
    if (snapshot_id is None) == (tag is None):
        raise ArgumentError("rollback needs exactly one of a snapshot id and a tag name")
    if tag is not None:
        target = table.tag(tag)
        path = table.meta("snapshot", f"snapshot-{target.id}")
        if not table.fileio.exists(path):
            trimmed = dataclasses.replace(
                target, tag_create_time=None, tag_time_retained_seconds=None
            )
            table.fileio.try_create(path, snapshot_to_json(trimmed).encode("utf-8"))
            _clean_larger_than(table, target)
            table.fileio.write_bytes(table.meta("snapshot", "EARLIEST"), str(target.id).encode())
            return target
        _clean_larger_than(table, target)
        return target
    assert snapshot_id is not None
    if not table.fileio.exists(table.meta("snapshot", f"snapshot-{snapshot_id}")):
        holder = _tag_holding(table, snapshot_id)
        if holder is not None:
            return rollback(table, tag=holder)
        ids = table.snapshot_ids()
        have = f"snapshots {ids[0]}..{ids[-1]}" if ids else "no snapshots"
        raise SnapshotNotFoundError(
            f"cannot roll {table.name} back to snapshot {snapshot_id}: it does not exist "
            f"(the table has {have}) and no tag holds it"
        )
    target = table.snapshot(snapshot_id)
    _clean_larger_than(table, target)
    return target


def _tag_holding(table: Table, snapshot_id: int) -> str | None:
    """The first tag (by name) holding snapshot `snapshot_id`, or None."""
    for name in table.tag_names():
        if table.tag(name).id == snapshot_id:
            return name
    return None


def rollback_to_timestamp(table: Table, timestamp_ms: int) -> Snapshot:
    """Roll back to the newest snapshot committed at or before `timestamp_ms` (epoch millis)."""
    found = None
    for snapshot_id in table.snapshot_ids():
        snap = table.snapshot(snapshot_id)
        if snap.time_millis > timestamp_ms:
            break
        found = snap
    if found is None:
        raise SnapshotNotFoundError(
            f"cannot roll {table.name} back to {instant_text(timestamp_ms)}: "
            "no snapshot was committed at or before it"
        )
    return rollback(table, snapshot_id=found.id)


def _check_no_long_lived_changelog(table: Table, target: Snapshot) -> None:
    for name in table.fileio.list_names(table.meta("changelog")):
        number = name.removeprefix("changelog-")
        if number.isdigit() and int(number) > target.id:
            raise UnsupportedFeatureError(
                f"table {table.name} has long-lived changelogs (a decoupled changelog lifecycle) "
                f"newer than snapshot {target.id}; rolling them back is not supported yet, "
                "use Java's CALL sys.rollback"
            )


def _drop_snapshots(table: Table, target: Snapshot) -> list[Snapshot]:
    """Delete the snapshot files newer than `target`, newest first; write ``LATEST``.

    Under the snapshot folder's lock, which committers hold to check their base and create the next
    snapshot: no commit lands above the rolled-back range while it is deleted.
    """
    dropped: list[Snapshot] = []
    with table.fileio.folder_lock(table.meta("snapshot")):
        latest = table.latest_snapshot_id() or target.id
        earliest = table.earliest_snapshot_id() or target.id
        for snapshot_id in range(latest, max(earliest, target.id + 1) - 1, -1):
            path = table.meta("snapshot", f"snapshot-{snapshot_id}")
            if table.fileio.exists(path):
                dropped.append(table.snapshot(snapshot_id))
                table.fileio.delete(path)
        table.fileio.write_bytes(table.meta("snapshot", "LATEST"), str(target.id).encode())
    return dropped


def _drop_tags(table: Table, dropped: list[Snapshot]) -> None:
    ids = {t.id for t in dropped}
    for name in table.tag_names():
        try:
            tagged = table.tag(name).id
        except SnapshotNotFoundError:
            continue
        if tagged in ids:
            table.fileio.delete(table.meta("tag", f"tag-{name}"))


def _delete_entries(
    layout: Layout, entries: list[ManifestEntry], keep: set[FileKey], delete: Deleter
) -> None:
    for e in entries:
        if e.kind is FileKind.ADD and entry_key(e) not in keep:
            for path in layout.data_paths(e):
                delete(path)


def _clean_larger_than(table: Table, target: Snapshot) -> None:
    """Java's ``cleanLargerThan``: drop newer snapshots and tags, then their files."""
    _check_no_long_lived_changelog(table, target)
    tags = tagged_snapshots(table)
    dropped_tags = [t for t in tags if t.id > target.id]
    remaining = [target, *(t for t in tags if t.id <= target.id)]
    # What must survive is read first: the target snapshot and the tags at or before it.
    keep_files = live_files(table, remaining)
    keep = manifest_skipping_set(table, remaining)
    dropped = _drop_snapshots(table, target)
    _drop_tags(table, dropped_tags)
    layout = Layout(table)
    delete = Deleter(table)
    for snap in dropped:  # what their deltas and changelogs ADDed
        delta = list_entries(table, snap.delta_manifest_list, strict=False)
        _delete_entries(layout, delta, keep_files, delete)
        changelog = list_entries(table, snap.changelog_manifest_list, strict=False)
        _delete_entries(layout, changelog, keep_files, delete)
    for snap in dropped_tags:  # everything the tags held
        _delete_entries(layout, live_entries(table, snap, strict=False), keep_files, delete)
    dropped_ids = {s.id for s in dropped}
    for snap in dropped:
        clean_manifests(table, layout, snap, keep, delete, changelog=True)
    for snap in dropped_tags:
        if snap.id not in dropped_ids:
            clean_manifests(table, layout, snap, keep, delete, changelog=False)
