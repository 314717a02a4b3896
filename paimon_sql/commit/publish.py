"""Atomic publishing of a commit: manifests, lists, index manifest, then ``snapshot-N`` if absent.

The loop is Java's optimistic concurrency (paimon-format.md §1.3): find the latest snapshot L
(`Table.latest_snapshot_id`: the LATEST hint, checked against the files, else a listing), check
Java's conflicts against L's live files (the cumulative effect of every snapshot since the
statement's base), write the lists on top of L, then, holding the snapshot folder's lock, create
``snapshot-(L+1)`` only if L is still the latest (`Table.is_latest`). Otherwise the attempt is
planned again on the new latest, with back-off.

Why "``snapshot-(L+1)`` is absent" is not enough: expiration deletes old snapshot files -- a
committer that planned on L and resumed after others committed L+1, L+2 … and expired L+1 would
otherwise create ``snapshot-(L+1)`` *below* EARLIEST, on a stale base, and its rows would be lost.
So ``snapshot-L`` must still be there, checked *after* ``snapshot-(L+1)`` was seen absent:
expiration deletes oldest first, so L+1 cannot have gone while L stays. ``snapshot-(L-1)`` must be
there too (else the folder is listed): a lone L may be a stray that a commit on an expired base
left below a gap. A snapshot id above L that exists at the check never goes away (expiration keeps
at least the latest), and every paimon-sql committer creates its snapshot under the same lock, so
the check and the create cannot be interleaved.

Beyond Java's checks, each attempt refuses what would silently undo another writer's commit
(`CommitConflictError`, "run the statement again"): new keys given buckets from a key index that
changed since (`_check_assigned`), rows computed from a snapshot when a commit since wrote one of
their keys (`_check_read`: UPDATE, DELETE, MERGE, ON CONFLICT), and rows that rows committed
meanwhile would outrank by sequence number (`_check_sequences`).

A retried commit first looks for a snapshot of its own (commit user + commit identifier, Java's
``filterCommitted``) so it never lands twice. A statement that fails leaves no snapshot and deletes
every metadata file it wrote; the data files are the writer's to delete (`abort`). Nothing after
the snapshot file is created can fail the commit: hints are hints, maintenance only logs.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paimon_sql.commit.maintenance import after_commit
from paimon_sql.commit.plan import (
    assign_row_ids,
    changelog_entries,
    changes_keys,
    check_bucket_counts,
    check_conflicts,
    check_vectors_live,
    delta_entries,
    fold,
    global_indexes_after,
    hash_files_by_partition,
    hash_indexes_replaced,
    key_comparator,
    may_hold,
    merge_entries,
    next_index_manifest,
    outranked_by,
    overwrite_entries,
    overwritten_by,
    record_counts,
    stale_partitions,
    without_removed_vectors,
)
from paimon_sql.commit.retry import FIRST_PAUSE, pause
from paimon_sql.errors import (
    CommitConflictError,
    DataFileNotFoundError,
    PaimonSqlError,
    SnapshotNotFoundError,
)
from paimon_sql.format import avro_schemas
from paimon_sql.format.binary_row import decode_row, encode_row
from paimon_sql.format.format_options import avro_codec
from paimon_sql.format.manifest import (
    FileKind,
    ManifestFileMeta,
    SimpleStats,
    index_manifest_entry_to_record,
    manifest_entry_to_record,
    manifest_file_meta_to_record,
)
from paimon_sql.format.options import CoreOptions
from paimon_sql.format.snapshot import CommitKind, Snapshot, snapshot_to_json
from paimon_sql.io.records import encode_avro
from paimon_sql.plan.scan import hides_level0

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.commit.plan import (
        AssignedOn,
        CommitMessage,
        ReadAt,
    )
    from paimon_sql.format.manifest import (
        IndexManifestEntry,
        ManifestEntry,
    )
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.io.fileio import FileIO
    from paimon_sql.types import DataType

BATCH_IDENTIFIER = 9223372036854775807  # Long.MAX_VALUE: batch writers (§3)

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Attempt:
    """Metadata files written by one attempt (deleted when the attempt loses)."""

    paths: list[str] = field(default_factory=list)


def new_commit_user(options: Mapping[str, str], unique: str | None = None) -> str:
    """The commit user of a writing job: `unique` (a fresh UUID by default).

    After the table's ``commit.user-prefix`` and ``_`` when it has one, as Java's
    ``CoreOptions.createCommitUser``.

    >>> new_commit_user({"commit.user-prefix": "etl"}, "42"), new_commit_user({}, "42")
    ('etl_42', '42')
    """
    unique = unique or str(uuid.uuid4())
    prefix = options.get("commit.user-prefix")
    return unique if prefix is None else f"{prefix}_{unique}"


class Committer:
    """Commits `CommitMessage`s to a table as new snapshots."""

    def __init__(self, table: Table, *, commit_user: str | None = None) -> None:
        """`commit_user` identifies the writing job.

        By default a fresh UUID after the table's ``commit.user-prefix``.
        """
        self.table = table
        self.commit_user = commit_user or new_commit_user(table.latest_schema.options)
        #: The snapshot this committer created, set the moment ``snapshot-N`` exists: from then on
        #: nothing (an error, Ctrl-C) may delete the files it references.
        self.landed: Snapshot | None = None
        self._prefix = str(uuid.uuid4())
        self._counter = 0

    # --- naming and writing -----------------------------------------------------------------------

    def _name(self, kind: str) -> str:
        name = f"{kind}-{self._prefix}-{self._counter}"
        self._counter += 1
        return name

    def _write(self, attempt: _Attempt, name: str, data: bytes) -> int:
        path = self.table.sub("manifest", name)
        self.table.fileio.write_bytes(path, data)
        attempt.paths.append(path)
        return len(data)

    def _avro(self, records: list[dict[str, Any]], schema: dict[str, Any]) -> bytes:
        """A manifest file's bytes, compressed as the table asks (``manifest.compression``)."""
        codec, level = avro_codec(self.table.latest_schema.options, manifest=True)
        return encode_avro(records, schema, codec=codec, level=level)

    def _write_manifest(
        self, attempt: _Attempt, entries: Sequence[ManifestEntry], schema: TableSchema
    ) -> ManifestFileMeta:
        name = self._name("manifest")
        records = [manifest_entry_to_record(e) for e in entries]
        size = self._write(attempt, name, self._avro(records, avro_schemas.MANIFEST_ENTRY_SCHEMA))
        part_types = [schema.field(k).type for k in schema.partition_keys]
        parts = [decode_row(e.partition, part_types) for e in entries]
        buckets = [e.bucket for e in entries] or [0]
        levels = [e.file.level for e in entries] or [0]
        return ManifestFileMeta(
            file_name=name,
            file_size=size,
            num_added_files=sum(e.kind is FileKind.ADD for e in entries),
            num_deleted_files=sum(e.kind is FileKind.DELETE for e in entries),
            partition_stats=partition_stats(parts, part_types),
            schema_id=max((e.file.schema_id for e in entries), default=schema.id),
            min_bucket=min(buckets),
            max_bucket=max(buckets),
            min_level=min(levels),
            max_level=max(levels),
        )

    def _write_list(self, attempt: _Attempt, metas: Sequence[ManifestFileMeta]) -> tuple[str, int]:
        name = self._name("manifest-list")
        records = [manifest_file_meta_to_record(m) for m in metas]
        return name, self._write(
            attempt, name, self._avro(records, avro_schemas.MANIFEST_FILE_META_SCHEMA)
        )

    def _write_index(self, attempt: _Attempt, entries: Sequence[IndexManifestEntry]) -> str:
        name = self._name("index-manifest")
        records = [index_manifest_entry_to_record(e) for e in entries]
        self._write(attempt, name, self._avro(records, avro_schemas.index_manifest_schema(records)))
        return name

    # --- the loop ---------------------------------------------------------------------------------

    def commit(
        self,
        messages: Sequence[CommitMessage],
        *,
        kind: CommitKind = CommitKind.APPEND,
        overwrite: Callable[[ManifestEntry], bool] | None = None,
        identifier: int = BATCH_IDENTIFIER,
        properties: dict[str, str] | None = None,
        assigned_on: AssignedOn | None = None,
        read_at: ReadAt | None = None,
    ) -> Snapshot | None:
        """Publish the messages as one snapshot; `overwrite` selects the live files it replaces.

        `assigned_on`: the key index a dynamic-bucket write assigned its buckets from; the commit
        fails with `CommitConflictError` when a snapshot since changed it (`_check_assigned`).
        `read_at`: the snapshot the written rows were computed from (UPDATE, DELETE, MERGE, ON
        CONFLICT); the commit fails when a snapshot since wrote one of their keys (`_check_read`).
        Returns None when nothing changed (no empty snapshot, as Java).
        """
        messages = [m for m in messages if not m.is_empty]
        if not messages and overwrite is None:
            return None
        options = CoreOptions(self.table.latest_schema.options)
        retries = options.integer("commit.max-retries")
        if identifier != BATCH_IDENTIFIER:  # a resumed job re-commits what may have landed
            landed = self.committed(identifier)
            if landed is not None:
                return landed
        start = self.table.latest_snapshot_id()
        delay = FIRST_PAUSE
        for attempt in range(retries + 1):
            if attempt:
                landed = self.committed(identifier, above=start or 0)
                if landed is not None:
                    return landed
            # the first attempt plans on the listing just made (a stale base loses in `_create`)
            base = start if not attempt else self.table.latest_snapshot_id()
            snapshot = self._attempt(
                messages, kind, overwrite, identifier, properties, base, assigned_on, read_at
            )
            if snapshot is not None:
                try:
                    after_commit(self.table, snapshot)
                except Exception as err:  # noqa: BLE001 (the commit is made: never report it failed)
                    log.warning(
                        "table %s: snapshot %s was committed, but the maintenance after it "
                        "failed: %r",
                        self.table.name,
                        snapshot.id,
                        err,
                    )
                return snapshot
            delay = pause(delay, 10.0)
        raise CommitConflictError(
            f"gave up committing to {self.table.name} after {retries} retries: other writers kept "
            "winning the next snapshot id; no snapshot was made"
        )

    def committed(self, identifier: int, *, above: int = 0) -> Snapshot | None:
        """This commit user's snapshot with `identifier` (or a later one) if it already landed.

        As Java's ``filterCommitted``: the snapshots are read from the latest down to the newest one
        this commit user made (identifiers only grow per user), but not at or below `above` (a batch
        commit, whose identifier is always Long.MAX, looks only above the latest it started on).
        """
        table = self.table
        for snapshot_id in reversed(table.snapshot_ids()):
            if snapshot_id <= above:
                break
            try:
                snap = table.snapshot(snapshot_id)
            except (DataFileNotFoundError, SnapshotNotFoundError):  # expired meanwhile, older too
                break
            if snap.commit_user == self.commit_user:
                return snap if snap.commit_identifier >= identifier else None
        return None

    def _attempt(
        self,
        messages: Sequence[CommitMessage],
        kind: CommitKind,
        overwrite: Callable[[ManifestEntry], bool] | None,
        identifier: int,
        properties: dict[str, str] | None,
        base_id: int | None,
        assigned_on: AssignedOn | None = None,
        read_at: ReadAt | None = None,
    ) -> Snapshot | None:
        table = self.table
        schema = table.latest_schema
        attempt = _Attempt()
        try:
            latest = None if base_id is None else table.snapshot(base_id)
            if assigned_on is not None:
                self._check_assigned(assigned_on, latest, messages, replaces=overwrite is not None)
            base_metas = table.data_manifests(latest)
            delta = delta_entries(messages)
            delta, live = self._checked(base_metas, delta, kind, overwrite, schema, messages)
            if live is not None:
                check_vectors_live(messages, live, delta)
            self._check_writes(
                latest,
                base_metas,
                live,
                messages,
                read_at,
                sequences=kind is CommitKind.APPEND and overwrite is None,
            )
            if overwrite is not None:
                kind = CommitKind.OVERWRITE
            base_metas = self._merge_manifests(attempt, base_metas, schema)
            snapshot = self._publish(
                latest,
                base_metas,
                delta,
                messages,
                kind,
                schema,
                identifier,
                properties,
                attempt,
                replaces=overwrite is not None,
            )
        except (DataFileNotFoundError, SnapshotNotFoundError):
            self._discard(attempt)
            # Expiration removed the base while it was read: only possible once a newer snapshot
            # exists, so plan again on that one; a base that is still the latest really lacks files.
            if table.latest_snapshot_id() != base_id:
                return None
            raise
        except BaseException:
            if self.landed is None:
                self._discard(attempt)
            raise
        if snapshot is None:
            self._discard(attempt)
        return snapshot

    def _checked(
        self,
        base_metas: Sequence[ManifestFileMeta],
        delta: list[ManifestEntry],
        kind: CommitKind,
        overwrite: Callable[[ManifestEntry], bool] | None,
        schema: TableSchema,
        messages: Sequence[CommitMessage],
    ) -> tuple[list[ManifestEntry], list[ManifestEntry] | None]:
        """Java's conflict checks against the latest snapshot's live files (§1.3).

        Returns the delta, with the DELETE entries of an overwrite prepended, and the live files of
        the partitions read (None if none were read). A plain append of new files into fixed
        buckets only needs the bucket-count check (Java's checkSameBucketByTotalBuckets); an append
        into unaware or dynamic buckets needs none. Every check compares files of one partition, so
        only the manifests that may list files of the partitions this commit touches (its files and
        its index files) are read (their partition stats say which); an overwrite, whose predicate
        may select any partition, reads every manifest. Those manifests list every file of the
        touched partitions, but only some of the entries of the others (a manifest whose stats range
        only over another partition is skipped, and with it that partition's DELETEs): the live
        files of other partitions are dropped before any check, or a file deleted long ago would
        look live (Java's ``readAllEntriesFromChangedPartitions`` filters the entries too).
        """
        deletes = any(e.kind is FileKind.DELETE for e in delta)
        full = kind is not CommitKind.APPEND or overwrite is not None or deletes
        fixed = any(e.total_buckets > 0 for e in delta)
        if not (full or fixed):
            return delta, None
        touched: set[bytes] | None = None
        if overwrite is None:
            indexed = {m.partition for m in messages if m.new_index_files or m.deleted_index_files}
            touched = {e.partition for e in delta} | indexed
            base_metas = self._touching(base_metas, touched, schema)
        live = _live(self.table, base_metas)
        if touched is not None:
            live = [e for e in live if e.partition in touched]
        if not full:
            check_bucket_counts(live, delta)
            return delta, live
        if overwrite is not None:
            delta = overwrite_entries(live, lambda e: not overwrite(e)) + delta
        keys = schema.trimmed_primary_keys if schema.primary_keys else ()
        compare = key_comparator([schema.field(k).type for k in keys]) if keys else None
        check_conflicts(live, delta, overwrite=overwrite is not None, key_compare=compare)
        return delta, live

    def _check_writes(
        self,
        latest: Snapshot | None,
        base_metas: Sequence[ManifestFileMeta],
        live: list[ManifestEntry] | None,
        messages: Sequence[CommitMessage],
        read_at: ReadAt | None,
        *,
        sequences: bool,
    ) -> None:
        """The write-write checks of a primary-key table (`_check_read`, `_check_sequences`).

        `live`: the latest live files of the partitions the commit touches, if Java's checks read
        them (`_checked`); else read here, once, and only when a check needs them.
        """
        schema = self.table.latest_schema
        if not schema.primary_keys:
            return
        sequences = sequences and not CoreOptions(schema.options).sequence_fields
        hidden = read_at is not None and hides_level0(schema.options, schema.primary_keys)
        written = {m.partition for m in messages if m.new_files}
        if not written or not (sequences or read_at is not None):
            return
        if live is None and (sequences or hidden):
            live = _live(self.table, self._touching(base_metas, written, schema))
        keys = schema.trimmed_primary_keys
        compare = key_comparator([schema.field(k).type for k in keys])
        if read_at is not None:
            level0 = [e for e in live or () if e.file.level == 0] if hidden else None
            self._check_read(read_at, latest, messages, compare, level0)
        if sequences:
            assert live is not None
            self._check_sequences(live, messages, compare)

    def _check_sequences(
        self,
        live: Sequence[ManifestEntry],
        messages: Sequence[CommitMessage],
        compare: Callable[[bytes, bytes], int],
    ) -> None:
        """Refuse new rows of a primary-key table that rows committed since would outrank.

        `outranked_by`: another writer committed rows of this write's keys and buckets since it
        numbered its rows, with sequence numbers as high. Landing the write could leave those rows
        the winners (a statement reporting success without effect), so the statement fails and is
        run again on the newer snapshot; `sequence.field` tables order rows by their own values and
        are not checked (`_check_writes`). Apache Paimon has no such check (one writer per bucket
        is its rule).
        """
        hit = outranked_by(live, messages, compare)
        if hit is not None:
            raise CommitConflictError(
                f"a concurrent commit to {self.table.name} wrote keys of this statement to bucket "
                f"{hit.bucket} (file {hit.file.file_name}) with sequence numbers as high as this "
                "statement's, so its rows might not win over the older ones; no snapshot was "
                "made: run the statement again"
            )

    def _check_assigned(
        self,
        assigned: AssignedOn,
        latest: Snapshot | None,
        messages: Sequence[CommitMessage],
        *,
        replaces: bool,
    ) -> None:
        """Refuse a dynamic-bucket write whose key index another commit changed since it was read.

        Cross-partition keys (`assigned.hash_files` None): any snapshot since that may change keys
        (`changes_keys`: not a compaction) conflicts, as the routing read every key of the table.
        Dynamic buckets: only the partitions this write adds HASH files to whose HASH files changed
        (`stale_partitions`); an overwrite replaces those partitions whole and never conflicts here.
        Apache Paimon has no such check (one writer job per table is its rule); without it, two
        writers can leave one key in two buckets or two partitions.
        """
        if assigned.is_snapshot(latest):
            return
        if assigned.hash_files is None:
            for snap in self._since(assigned, latest, self._assign_conflict):
                if changes_keys(snap.commit_kind):
                    raise self._assign_conflict(
                        f"snapshot {snap.id} ({snap.commit_kind.value}, by "
                        f"{snap.commit_user}) changed its keys"
                    )
            return
        if replaces:
            return
        entries = (
            []
            if latest is None or latest.index_manifest is None
            else self.table.index_manifest(latest.index_manifest)
        )
        stale = stale_partitions(assigned.hash_files, hash_files_by_partition(entries), messages)
        if stale:
            keys = self.table.latest_schema.partition_keys
            types = [self.table.latest_schema.field(k).type for k in keys]
            values = "; ".join(
                ", ".join(f"{k}={v!r}" for k, v in zip(keys, decode_row(p, types), strict=True))
                for p in stale[:3]
            )
            raise self._assign_conflict(
                f"another commit gave new keys buckets in partition {values} meanwhile"
            )

    def _since(
        self,
        read: ReadAt,
        latest: Snapshot | None,
        conflict: Callable[[str], CommitConflictError],
    ) -> Iterator[Snapshot]:
        """The snapshots committed after the one `read`, up to `latest`.

        `conflict(why)` is raised when what came since cannot be told: the table was rolled back,
        or a snapshot in between has expired.
        """
        if read.is_snapshot(latest):
            return
        since = read.snapshot_id or 0
        if latest is None or latest.id <= since or not self._still(read):
            raise conflict(
                f"the table was rolled back to snapshot {None if latest is None else latest.id}"
            )
        for number in range(since + 1, latest.id + 1):
            try:
                yield latest if number == latest.id else self.table.snapshot(number)
            except (DataFileNotFoundError, SnapshotNotFoundError) as err:
                raise conflict(
                    f"snapshot {number}, committed since, has expired: what it changed cannot be "
                    "told"
                ) from err

    def _still(self, read: ReadAt) -> bool:
        """Whether the snapshot `read` is still the one read (not made again after a rollback).

        True once it has expired: the snapshots after it are then checked one by one.
        """
        if not read.snapshot_id:
            return True
        try:
            snap = self.table.snapshot(read.snapshot_id)
        except (DataFileNotFoundError, SnapshotNotFoundError):
            return True
        return snap.delta_manifest_list == read.delta_list

    def _check_read(
        self,
        read_at: ReadAt,
        latest: Snapshot | None,
        messages: Sequence[CommitMessage],
        compare: Callable[[bytes, bytes], int],
        level0: Sequence[ManifestEntry] | None,
    ) -> None:
        """Refuse rows computed from a snapshot when a commit since wrote one of their keys.

        Snapshots since `read_at` that are not compactions are read (their delta manifests only):
        a file added to a bucket this write writes, whose key range overlaps one of this write's
        files, may hold a key whose new value this write would replace by one computed from the
        old (`overwritten_by`); an overwrite of a partition this write writes replaced all of it.
        Apache Paimon has no such check: concurrent UPDATEs of one key keep only one change.

        A table whose reads skip level 0 (`hides_level0`: deletion vectors, first-row) did not show
        the statement the rows of level-0 files live when it read: a compaction since that took
        such a file, or one still live now (`level0`: the live level-0 files of the partitions
        written; None for other tables), conflicts as well.
        """
        table = self.table
        hidden = level0 is not None

        def conflict(why: str) -> CommitConflictError:
            return CommitConflictError(
                f"a concurrent commit to {self.table.name} changed rows this statement read: "
                f"{why}; landing it would undo that change, so no snapshot was made: run the "
                "statement again"
            )

        for snap in self._since(read_at, latest, conflict):
            rewrites = not changes_keys(snap.commit_kind)
            if rewrites and not hidden:
                continue
            entries = [
                e
                for meta in table.manifest_list(snap.delta_manifest_list)
                for e in table.manifest(meta.file_name)
                if not rewrites or (e.kind is FileKind.DELETE and e.file.level == 0)
            ]
            hit = overwritten_by(
                entries, messages, compare, replaces=snap.commit_kind is CommitKind.OVERWRITE
            )
            if hit is not None:
                raise conflict(
                    f"snapshot {snap.id} ({snap.commit_kind.value}, by {snap.commit_user}) "
                    f"{'compacted' if rewrites else 'wrote'} file {hit.file.file_name} in bucket "
                    f"{hit.bucket}, which may hold keys this statement writes"
                )
        if level0:
            hit = overwritten_by(level0, messages, compare, replaces=False)
            if hit is not None:
                raise conflict(
                    f"file {hit.file.file_name} in bucket {hit.bucket} holds rows committed but "
                    "not compacted yet, which reads of this table do not show (if the table is "
                    f"write-only, CALL sys.compact(table => '{table.name}') first)"
                )

    def _assign_conflict(self, why: str) -> CommitConflictError:
        return CommitConflictError(
            f"a concurrent commit to {self.table.name} changed the key index this write assigned "
            f"its buckets from: {why}; one key could have been left in two places, so no snapshot "
            "was made: run the statement again"
        )

    def _touching(
        self,
        metas: Sequence[ManifestFileMeta],
        partitions: set[bytes],
        schema: TableSchema,
    ) -> list[ManifestFileMeta]:
        """The manifests of `metas` that may list files of `partitions` (serialized rows).

        Every bucket of them: the bucket-count check compares a partition's buckets (as Java's
        ``readAllEntriesFromChangedPartitions``).
        """
        types = [schema.field(k).type for k in schema.partition_keys]
        parts = {decode_row(p, types) for p in partitions}
        return [m for m in metas if may_hold(m.partition_stats, parts, types)]

    def _publish(
        self,
        latest: Snapshot | None,
        base_metas: list[ManifestFileMeta],
        delta: list[ManifestEntry],
        messages: Sequence[CommitMessage],
        kind: CommitKind,
        schema: TableSchema,
        identifier: int,
        properties: dict[str, str] | None,
        attempt: _Attempt,
        *,
        replaces: bool,
    ) -> Snapshot | None:
        table = self.table
        snapshot_id = 1 if latest is None else latest.id + 1
        next_row_id = None
        if CoreOptions(schema.options).row_tracking:
            start = 0 if latest is None else (latest.next_row_id or 0)
            delta, next_row_id = assign_row_ids(delta, snapshot_id, start)
        base_name, base_size = self._write_list(attempt, base_metas)
        delta_metas = [self._write_manifest(attempt, delta, schema)] if delta else []
        delta_name, delta_size = self._write_list(attempt, delta_metas)
        changelog = changelog_entries(messages)
        changelog_name = changelog_size = None
        if changelog:
            metas = [self._write_manifest(attempt, changelog, schema)]
            changelog_name, changelog_size = self._write_list(attempt, metas)
        base_index = (
            []
            if latest is None or latest.index_manifest is None
            else table.index_manifest(latest.index_manifest)
        )
        unaware = schema.bucket == -1 and not schema.primary_keys
        replaced_hashes = hash_indexes_replaced(base_index, delta, messages) if replaces else None
        if replaced_hashes is not None:
            base_index = replaced_hashes
        index_entries = next_index_manifest(base_index, messages, unaware=unaware)
        if index_entries is None and replaced_hashes is not None:
            index_entries = replaced_hashes
        pruned = without_removed_vectors(
            base_index if index_entries is None else index_entries, delta
        )
        if pruned is not None:
            index_entries = pruned
        guarded = global_indexes_after(
            base_index if index_entries is None else index_entries,
            delta,
            overwrite=replaces,
            table=table.name,
        )
        if guarded is not None:
            index_entries = guarded
        index_name = latest.index_manifest if latest is not None else None
        if index_entries is not None:
            index_name = self._write_index(attempt, index_entries) if index_entries else None
        previous_total = 0 if latest is None else (latest.total_record_count or 0)
        added = record_counts(delta)
        snapshot = Snapshot(
            id=snapshot_id,
            schema_id=schema.id,
            base_manifest_list=base_name,
            base_manifest_list_size=base_size,
            delta_manifest_list=delta_name,
            delta_manifest_list_size=delta_size,
            changelog_manifest_list=changelog_name,
            changelog_manifest_list_size=changelog_size,
            index_manifest=index_name,
            commit_user=self.commit_user,
            commit_identifier=identifier,
            commit_kind=kind,
            time_millis=int(time.time() * 1000),
            log_offsets={},
            total_record_count=previous_total + added,
            delta_record_count=added,
            changelog_record_count=sum(e.file.row_count for e in changelog),  # Java: 0 when none
            watermark=None if latest is None else latest.watermark,
            properties=properties or None,
            next_row_id=next_row_id,
        )
        if not self._create(latest, snapshot):
            return None
        return snapshot

    def _create(self, base: Snapshot | None, snapshot: Snapshot) -> bool:
        """Create ``snapshot-N`` if the base is still the latest snapshot; False when it is stale.

        The check (`Table.is_latest`: ``snapshot-(B+1)`` absent, then ``snapshot-B`` and
        ``snapshot-(B-1)`` present, else a listing) is made under the folder lock; then the LATEST
        (for the first snapshot also EARLIEST) hint moves.
        """
        table = self.table
        fileio = table.fileio
        folder = table.meta("snapshot")
        path = table.meta("snapshot", f"snapshot-{snapshot.id}")
        data = snapshot_to_json(snapshot).encode("utf-8")
        with fileio.folder_lock(folder):
            stale = (
                table.latest_snapshot_id() is not None
                if base is None
                else not table.is_latest(base.id)
            )
            if stale:
                return False  # someone committed since the base (and maybe expired it): plan again
            try:
                if not fileio.try_create(path, data):
                    return False
            except OSError as err:  # did the create happen before the error? (remote stores)
                if not _holds(fileio, path, data):
                    raise
                log.warning("creating %s reported %s, but the snapshot is there", path, err)
            self.landed = snapshot
            hints = [("LATEST", snapshot.id)]
            if base is None:
                hints.append(("EARLIEST", snapshot.id))
            for hint, value in hints:
                try:
                    fileio.write_bytes(table.meta("snapshot", hint), str(value).encode())
                except OSError as err:  # the commit is made; a hint is only a hint (§1.2)
                    log.warning("table %s: cannot write the %s hint: %s", table.name, hint, err)
        return True

    def _merge_manifests(
        self, attempt: _Attempt, metas: list[ManifestFileMeta], schema: TableSchema
    ) -> list[ManifestFileMeta]:
        """Java's manifest merging (``ManifestFileMerger``): reads stay cheap, commits stay small.

        Full compaction when the manifests after the leading run of big manifests without DELETE
        entries reach ``manifest.full-compaction-threshold-size`` (16 MiB): those, and the big ones
        that may hold a file they delete, are folded into the live entries and rewritten. Otherwise
        minor compaction: runs of consecutive small manifests that together reach
        ``manifest.target-file-size`` (8 MiB) are merged into one, and a trailing run of at least
        ``manifest.merge-min-count`` (30) too. A commit therefore reads only the manifests it
        rewrites, never the whole history.
        """
        options = CoreOptions(schema.options)
        target = options.memory("manifest.target-file-size")
        full = self._full_compaction(
            attempt,
            metas,
            schema,
            target,
            options.memory("manifest.full-compaction-threshold-size"),
        )
        if full is not None:
            return full
        min_count = options.integer("manifest.merge-min-count")
        result: list[ManifestFileMeta] = []
        candidates: list[ManifestFileMeta] = []
        size = 0
        for meta in metas:
            candidates.append(meta)
            size += meta.file_size
            if size >= target:
                result += self._merge_candidates(attempt, candidates, schema, target)
                candidates, size = [], 0
        if len(candidates) >= min_count:
            result += self._merge_candidates(attempt, candidates, schema, target)
        else:
            result += candidates
        return result

    def _merge_candidates(
        self,
        attempt: _Attempt,
        candidates: list[ManifestFileMeta],
        schema: TableSchema,
        target: int,
    ) -> list[ManifestFileMeta]:
        if len(candidates) == 1:
            return candidates
        entries = merge_entries(e for m in candidates for e in self.table.manifest(m.file_name))
        return self._write_rolled(attempt, entries, candidates, schema, target)

    def _write_rolled(
        self,
        attempt: _Attempt,
        entries: list[ManifestEntry],
        sources: Sequence[ManifestFileMeta],
        schema: TableSchema,
        target: int,
    ) -> list[ManifestFileMeta]:
        """`entries` written as manifests of about `target` bytes (estimated from `sources`)."""
        header = len(self._avro([], avro_schemas.MANIFEST_ENTRY_SCHEMA))  # schema, once a file
        payload = sum(max(m.file_size - header, 1) for m in sources)
        count = sum(m.num_added_files + m.num_deleted_files for m in sources) or 1
        per_file = max(1, int((target - header) * count / payload))
        return [
            self._write_manifest(attempt, entries[i : i + per_file], schema)
            for i in range(0, len(entries), per_file)
        ]

    def _full_compaction(
        self,
        attempt: _Attempt,
        metas: list[ManifestFileMeta],
        schema: TableSchema,
        target: int,
        threshold: int,
    ) -> list[ManifestFileMeta] | None:
        """Java's ``tryFullCompaction``; None when the delta manifests are below `threshold`."""
        first = 0
        while (
            first < len(metas)
            and metas[first].num_deleted_files == 0
            and metas[first].file_size >= target
        ):
            first += 1
        base, delta = metas[:first], metas[first:]
        if sum(m.file_size for m in delta) < threshold:
            return None
        delta_entries_ = [e for m in delta for e in self.table.manifest(m.file_name)]
        types = [schema.field(k).type for k in schema.partition_keys]
        deleted = {
            decode_row(p, types)
            for p in {e.partition for e in delta_entries_ if e.kind is FileKind.DELETE}
        }
        kept = [m for m in base if not (deleted and may_hold(m.partition_stats, deleted, types))]
        rewritten = [m for m in base if m not in kept]
        entries = [e for m in rewritten for e in self.table.manifest(m.file_name)]
        live = list(fold([*entries, *delta_entries_]).values())
        return kept + self._write_rolled(attempt, live, [*rewritten, *delta], schema, target)

    def _discard(self, attempt: _Attempt) -> None:
        for path in attempt.paths:
            self.table.fileio.delete(path)


def _holds(fileio: FileIO, path: str, data: bytes) -> bool:
    try:
        return fileio.read_bytes(path) == data
    except PaimonSqlError:
        return False


def _live(table: Table, metas: Sequence[ManifestFileMeta]) -> list[ManifestEntry]:
    """The live entries of the manifests `metas`, folded in order."""
    return list(fold(e for m in metas for e in table.manifest(m.file_name)).values())


def partition_stats(rows: Sequence[tuple[Any, ...]], types: Sequence[DataType]) -> SimpleStats:
    """Full (untruncated) min/max/null counts of partition values.

    Java prunes whole manifests with them.
    """
    mins: list[object] = []
    maxs: list[object] = []
    nulls: list[int | None] = []
    for i in range(len(types)):
        present = [r[i] for r in rows if r[i] is not None]
        mins.append(min(present) if present else None)
        maxs.append(max(present) if present else None)
        nulls.append(len(rows) - len(present))
    return SimpleStats(
        min_values=encode_row(mins, types),
        max_values=encode_row(maxs, types),
        null_counts=tuple(nulls),
    )
