"""`Table`: one table folder's metadata.

Schemas, snapshots (with the LATEST/EARLIEST hints), tags, manifests.

Metadata files have unique names and never change, so decoded manifests are cached per table.

The examples use the doctest namespace of the repository's ``conftest.py``: ``warehouse`` holds the
primary-key table ``db.t`` with two snapshots and the tag ``v1``; ``tmp_warehouse`` is empty.
"""

from __future__ import annotations

import dataclasses
import datetime
import numbers
import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, TypeVar, cast

from paimon_sql.catalog import names
from paimon_sql.catalog.gc_pause import gc_paused
from paimon_sql.errors import (
    ArgumentError,
    ArgumentTypeError,
    CorruptFileError,
    DataFileNotFoundError,
    PaimonSqlError,
    SnapshotNotFoundError,
    SpecViolationError,
)
from paimon_sql.format.manifest import (
    FileKind,
    index_manifest_entry_from_record,
    manifest_file_meta_from_record,
)
from paimon_sql.format.manifest_bulk import entries_from_records, plain_creation_time
from paimon_sql.format.schema import schema_from_json, schema_to_json
from paimon_sql.format.snapshot import snapshot_from_json
from paimon_sql.io.records import stream_records

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    from paimon_sql.format.manifest import (
        IndexManifestEntry,
        ManifestEntry,
        ManifestFileMeta,
    )
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.io import FileIO

_T = TypeVar("_T")
if TYPE_CHECKING:
    #: Decodes a metadata file from its records and its Avro writer schema (None: ORC/Parquet).
    _Decoder = Callable[[Iterator[dict[str, Any]], Any], list[_T]]

_SCHEMA = re.compile(r"^schema-(\d+)$")
_TAG_PREFIX = "tag-"
#: How many ids a lagging hint is walked (each a probe) before the snapshot folder is listed.
_PROBES = 8


class Table:
    """Read access to a table's metadata (the write path adds to it through `paimon_sql.commit`).

    Open one with `Catalog.load_table` (or `Session.table`).

    Examples:
        >>> session = paimon_sql.connect(tmp_warehouse)
        >>> for statement in (
        ...     "CREATE DATABASE db",
        ...     "CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)",
        ...     "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
        ...     "INSERT INTO db.t VALUES (2, 'B')",
        ... ):
        ...     _ = session.sql(statement)
        >>> table = session.catalog.load_table("db.t")
        >>> table
        Table('db.t', '...db.db/t')
        >>> table.snapshot_ids(), table.latest_schema.primary_keys
        ([1, 2], ('id',))
    """

    def __init__(self, fileio: FileIO, path: str, name: str, branch: str = "main") -> None:
        """A table at `path`, called `name` in messages; `branch` selects its metadata folders.

        Examples:
            >>> from paimon_sql.io import file_io
            >>> fileio = file_io(warehouse)
            >>> Table(fileio, fileio.join(warehouse, "db.db", "t"), "db.t").snapshot_ids()
            [1, 2]
        """
        self.fileio = fileio
        self.path = path
        self.name = name
        self.branch = names.validate_name("branch", branch)
        self._schemas: dict[int, TableSchema] = {}
        self._manifests: OrderedDict[str, list[ManifestEntry]] = OrderedDict()
        self._cached_entries = 0
        self._lists: dict[str, list[ManifestFileMeta]] = {}
        self._indexes: dict[str, list[IndexManifestEntry]] = {}
        self._digests: dict[tuple[str, str], object] = {}
        self._file_indexes: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()
        # What metadata said about the files it names: checked when they are read (damage is named).
        self._referrers: dict[str, str] = {}  # manifest (list) name -> the file that named it
        self._sizes: dict[str, int] = {}  # manifest (list) name -> its size in bytes, as recorded
        #: Options laid over the latest schema's for one statement (`with_options`).
        self._overlay: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"Table({self.name!r}, {self.path!r})"

    # --- paths ------------------------------------------------------------------------------------

    def sub(self, *parts: str) -> str:
        """A path inside the table folder.

        Examples:
            >>> import os
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> os.path.relpath(table.sub("snapshot", "LATEST"), warehouse)
            'db.db/t/snapshot/LATEST'
        """
        return self.fileio.join(self.path, *parts)

    def manifest_path(self, name: str) -> str:
        """The path ``manifest/<name>`` for a file name read from metadata.

        Raises:
            PathEscapeError: when `name` is not a plain file name (a path, ``..``).

        Examples:
            >>> import os
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> os.path.relpath(table.manifest_path("manifest-1"), warehouse)
            'db.db/t/manifest/manifest-1'
            >>> table.manifest_path("../snapshot/snapshot-1")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.PathEscapeError: manifest file ... is not a plain file name ...
        """
        what = f"manifest file of table {self.name}"
        return self.sub("manifest", names.validate_file_name(name, what=what))

    def meta(self, *parts: str) -> str:
        """A path in this branch's metadata (schema/, snapshot/, tag/).

        Branches share data files and manifests, so those are under `sub`, never here.

        Examples:
            >>> import os
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> os.path.relpath(table.meta("snapshot", "snapshot-1"), warehouse)
            'db.db/t/snapshot/snapshot-1'
        """
        if self.branch == "main":
            return self.sub(*parts)
        return self.sub("branch", f"branch-{self.branch}", *parts)

    def branch_table(self, branch: str) -> Table:
        """The same table on another branch (``branch/branch-<name>/``).

        Raises:
            SnapshotNotFoundError: when the branch does not exist.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> table.branch_table("main").name
            'db.t$branch_main'
            >>> table.branch_table("dev")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.SnapshotNotFoundError: branch 'dev' of table db.t does not exist
        """
        names.validate_name("branch", branch)
        if branch != "main" and not self.fileio.is_dir(self.sub("branch", f"branch-{branch}")):
            raise SnapshotNotFoundError(f"branch {branch!r} of table {self.name} does not exist")
        return Table(self.fileio, self.path, f"{self.name}${'branch_' + branch}", branch)

    def with_options(self, options: Mapping[str, str]) -> Table:
        """This table with `options` laid over its latest schema's, for one write statement.

        Java's ``FileStoreTable.copy(dynamicOptions)``, which Flink's sink applies to a write's
        ``/*+ OPTIONS(…) */`` hint. Only `latest_schema` (what writers, commits and the compaction
        after a write read) carries them; its id stays the stored schema's, so nothing written
        names a schema that does not exist. The options are never stored.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> hinted = table.with_options({"file.format": "orc"})
            >>> hinted.latest_schema.options["file.format"], hinted.latest_schema.id
            ('orc', 0)
            >>> "file.format" in table.latest_schema.options
            False
        """
        copy = Table(self.fileio, self.path, self.name, self.branch)
        copy._overlay = {**self._overlay, **options}
        return copy

    # --- schemas ----------------------------------------------------------------------------------

    def schema_ids(self) -> list[int]:
        """Ids of the schema files present, ascending.

        Examples:
            >>> paimon_sql.Catalog(warehouse).load_table("db.t").schema_ids()
            [0]
        """
        listed = self.fileio.list_names(self.meta("schema"))
        return sorted(int(m[1]) for n in listed if (m := _SCHEMA.match(n)))

    def schema(self, schema_id: int) -> TableSchema:
        """The schema ``schema-<id>`` (cached: schema files never change).

        Raises:
            CorruptFileError: when the file is not a valid schema, or holds another id.

        Examples:
            >>> schema = paimon_sql.Catalog(warehouse).load_table("db.t").schema(0)
            >>> schema.field_names, schema.primary_keys, schema.options["bucket"]
            (('id', 'name'), ('id',), '1')
        """
        cached = self._schemas.get(schema_id)
        if cached is None:
            path = self.meta("schema", f"schema-{schema_id}")
            text = self.fileio.read_bytes(path)
            try:
                cached = schema_from_json(text)
            except SpecViolationError as err:
                raise CorruptFileError(path, _problem(err)) from err
            if cached.id != schema_id:
                raise CorruptFileError(
                    path, f"its id is {cached.id}, its file name says {schema_id}"
                )
            self._schemas[schema_id] = cached
        return cached

    def commit_schema(self, schema: TableSchema) -> bool:
        """Write `schema` as ``schema-<id>`` only if absent.

        Returns:
            True when written; False when another writer took that id first.

        Examples:
            >>> import dataclasses
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> evolved = dataclasses.replace(table.latest_schema, id=1, comment="orders")
            >>> table.commit_schema(evolved), table.commit_schema(evolved)
            (True, False)
            >>> table.latest_schema.comment
            'orders'
        """
        names.check_path_options(schema.options)
        path = self.meta("schema", f"schema-{schema.id}")
        created = self.fileio.try_create(path, schema_to_json(schema).encode("utf-8"))
        if created:
            self._schemas[schema.id] = schema
        return created

    @property
    def latest_schema(self) -> TableSchema:
        """The newest schema.

        Examples:
            >>> paimon_sql.Catalog(warehouse).load_table("db.t").latest_schema.id
            0
        """
        ids = self.schema_ids()
        if not ids:
            raise SpecViolationError(
                f"table {self.name} has no schema files in {self.sub('schema')}"
            )
        schema = self.schema(ids[-1])
        if self._overlay:
            schema = dataclasses.replace(schema, options={**schema.options, **self._overlay})
        return schema

    # --- snapshots --------------------------------------------------------------------------------

    def snapshot_ids(self) -> list[int]:
        """Ids of the snapshot files present, ascending (a listing, no hints).

        Examples:
            >>> paimon_sql.Catalog(warehouse).load_table("db.t").snapshot_ids()
            [1, 2]
        """
        listed = self.fileio.list_names(self.meta("snapshot"))
        # string tests, not the regex: this listing is most of a commit's CPU at 10,000 snapshots
        ids = [
            int(n[9:])
            for n in listed
            if n.startswith("snapshot-") and n[9:].isascii() and n[9:].isdigit()
        ]
        ids.sort()
        return ids

    def latest_snapshot_id(self) -> int | None:
        """The id of the newest snapshot, None when there is none.

        Java's way (``HintFileUtils.findLatest``), made safe against a stray snapshot below a gap:
        the ``LATEST`` hint `n` is trusted when ``snapshot-n`` and ``snapshot-(n-1)`` exist and
        ``snapshot-(n+1)`` does not; a hint that lags is walked forward a few ids. Otherwise (no
        hint, garbage, ahead of the files, a run of one that may be a stray left by a commit on an
        expired base) the snapshot folder is listed. A run of two consecutive snapshots has no gap
        right above it only if it is the latest: expiration deletes oldest first and every writer
        creates ``snapshot-(L+1)`` on the latest ``L``.

        Examples:
            >>> paimon_sql.Catalog(warehouse).load_table("db.t").latest_snapshot_id()
            2
        """
        hinted = self._latest_from_hint()
        if hinted is not None:
            return hinted
        ids = self.snapshot_ids()
        return ids[-1] if ids else None

    def earliest_snapshot_id(self) -> int | None:
        """The lowest id of the run of consecutive snapshots that ends at the latest, else None.

        The ``EARLIEST`` hint `e` is trusted when the latest is found from its hint, ``e`` is at
        most the latest, ``snapshot-e`` exists, ``snapshot-(e-1)`` does not (an expiration moves
        the hint before it deletes), and ``snapshot-(e+1)`` exists unless `e` is the latest (a stray
        below a gap has none above it). A hint naming an expired snapshot is walked forward a few
        ids (Java moves it after deleting). Otherwise the folder is listed.

        Examples:
            >>> paimon_sql.Catalog(warehouse).load_table("db.t").earliest_snapshot_id()
            1
        """
        latest = self._latest_from_hint()
        hint = None if latest is None else self._hint("EARLIEST")
        if latest is not None and hint is not None:
            present = self._snapshot_present
            candidate = hint
            for _ in range(_PROBES):
                if candidate > latest:
                    break
                if present(candidate):
                    if candidate > 1 and present(candidate - 1):
                        break  # expiration under way, or a stale hint: list
                    if candidate == latest or present(candidate + 1):
                        return candidate
                    break
                candidate += 1
        ids = self.snapshot_ids()
        if not ids:
            return None
        first = len(ids) - 1
        while first > 0 and ids[first - 1] == ids[first] - 1:
            first -= 1
        return ids[first]

    def is_latest(self, snapshot_id: int) -> bool:
        """Whether ``snapshot-<id>`` exists and no newer snapshot does (the commit check).

        Without a listing when ``snapshot-(id-1)`` exists too (see `latest_snapshot_id`): first
        ``snapshot-(id+1)`` must be absent, then ``snapshot-<id>`` present. A newer snapshot
        whose successor was expired means `id` was expired before it (oldest first).

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> table.is_latest(2), table.is_latest(1), table.is_latest(3)
            (True, False, False)
        """
        present = self._snapshot_present
        if present(snapshot_id + 1) or not present(snapshot_id):
            return False
        if snapshot_id > 1 and present(snapshot_id - 1):
            return True
        ids = self.snapshot_ids()
        return bool(ids) and ids[-1] == snapshot_id

    def _hint(self, name: str) -> int | None:
        """The id a hint file (``LATEST`` / ``EARLIEST``) holds; None if absent or not an id > 0."""
        try:
            text = self.fileio.read_bytes(self.meta("snapshot", name)).strip()
        except PaimonSqlError:
            return None
        if not text.isdigit() or len(text) > 18:
            return None
        value = int(text)
        return value if value > 0 else None

    def _snapshot_present(self, snapshot_id: int) -> bool:
        if snapshot_id < 1:
            return False
        return self.fileio.is_file(self.meta("snapshot", f"snapshot-{snapshot_id}"))

    def _latest_from_hint(self) -> int | None:
        """The latest id found from the ``LATEST`` hint without a listing, else None."""
        hint = self._hint("LATEST")
        present = self._snapshot_present
        # a hint of 1 has no snapshot below it to vouch for it: list at once, without a probe
        if hint is None or hint <= 1 or not present(hint) or not present(hint - 1):
            return None
        latest = hint
        for _ in range(_PROBES):
            if not present(latest + 1):
                return latest
            latest += 1
        return None

    def snapshot(self, snapshot_id: int) -> Snapshot:
        """The snapshot ``snapshot-<id>``.

        Raises:
            SnapshotNotFoundError: when absent, naming the range of snapshots that exists.
            CorruptFileError: when the file is not a valid snapshot, or holds another id.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> snapshot = table.snapshot(2)
            >>> snapshot.commit_kind.value, snapshot.total_record_count, snapshot.delta_record_count
            ('APPEND', 3, 1)
            >>> table.snapshot(7)
            Traceback (most recent call last):
            ...
            paimon_sql.errors.SnapshotNotFoundError: snapshot 7 of table db.t does not exist ...
        """
        given: object = snapshot_id  # a caller's "1" would name file snapshot-1 and mismatch it
        if isinstance(given, bool) or not isinstance(given, numbers.Integral):
            raise ArgumentTypeError(
                f"a snapshot id is an int, got {type(given).__name__} {given!r}"
            )
        path = self.meta("snapshot", f"snapshot-{snapshot_id}")
        if not self.fileio.exists(path):
            ids = self.snapshot_ids()
            have = f"snapshots {ids[0]}..{ids[-1]}" if ids else "no snapshots"
            raise SnapshotNotFoundError(
                f"snapshot {snapshot_id} of table {self.name} does not exist (no file {path}; it "
                f"has {have})"
            )
        snap = self._decode_snapshot(path)
        if snap.id != snapshot_id:
            raise CorruptFileError(path, f"its id is {snap.id}, its file name says {snapshot_id}")
        return snap

    def _decode_snapshot(self, path: str) -> Snapshot:
        """A snapshot or tag file, checked: valid JSON of the right types, its schema exists.

        The manifest lists it names are remembered with their sizes, to be checked when read.
        """
        try:
            snap = snapshot_from_json(self.fileio.read_bytes(path))
        except SpecViolationError as err:
            raise CorruptFileError(path, _problem(err)) from err
        if snap.schema_id not in self._schemas and not self.fileio.exists(
            self.meta("schema", f"schema-{snap.schema_id}")
        ):
            raise CorruptFileError(
                path, f"schemaId {snap.schema_id}: the table has no schema-{snap.schema_id}"
            )
        names = (
            (snap.base_manifest_list, snap.base_manifest_list_size),
            (snap.delta_manifest_list, snap.delta_manifest_list_size),
            (snap.changelog_manifest_list, snap.changelog_manifest_list_size),
            (snap.index_manifest, None),
        )
        for name, size in names:
            if name is not None:
                self._referrers[name] = path
                if size is not None:
                    self._sizes[name] = size
        return snap

    def latest_snapshot(self) -> Snapshot | None:
        """The newest snapshot, None for a table never written.

        Examples:
            >>> paimon_sql.Catalog(warehouse).load_table("db.t").latest_snapshot().id
            2
        """
        for _ in range(20):
            latest = self.latest_snapshot_id()
            try:
                return None if latest is None else self.snapshot(latest)
            except (SnapshotNotFoundError, DataFileNotFoundError):
                if self.latest_snapshot_id() == latest:
                    raise  # expired after the listing: a newer one exists, read that one
        return self.snapshot(latest)  # type: ignore[arg-type]

    # --- tags -------------------------------------------------------------------------------------

    def tag_names(self) -> list[str]:
        """Tag names, sorted.

        Examples:
            >>> paimon_sql.Catalog(warehouse).load_table("db.t").tag_names()
            ['v1']
        """
        listed = self.fileio.list_names(self.meta("tag"))
        # Every tag-<name> file, also of names paimon-sql does not create but Java does ('..',
        # 'release:2024', 'a\\b'): a tag left out here would be left out of what expiration keeps.
        # A listed name is a file of the tag folder, whatever its characters.
        return [
            n[len(_TAG_PREFIX) :] for n in listed if n.startswith(_TAG_PREFIX) and n != _TAG_PREFIX
        ]

    def tag(self, name: str) -> Snapshot:
        """The snapshot a tag holds.

        Raises:
            SnapshotNotFoundError: when the tag does not exist, listing the tags that do.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> table.tag("v1").id
            1
            >>> table.tag("v2")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.SnapshotNotFoundError: tag 'v2' of table db.t ... (...; tags: v1)
        """
        if not names.is_valid_name("tag", name) and name not in self.tag_names():
            names.validate_name("tag", name)  # raises, saying what is wrong with the name
        path = self.meta("tag", _TAG_PREFIX + name)  # a valid name, or a listed tag file's
        if not self.fileio.exists(path):
            tags = self.tag_names()
            raise SnapshotNotFoundError(
                f"tag {name!r} of table {self.name} does not exist (no file {path}; "
                + (f"tags: {', '.join(tags)})" if tags else "it has no tags)")
            )
        return self._decode_snapshot(path)

    def snapshot_before(self, timestamp_ms: int) -> Snapshot | None:
        """The newest listed snapshot committed at or before `timestamp_ms`; None if all are newer.

        Unlike `snapshot_at`, tags are not looked at.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> table.snapshot_before(table.snapshot(2).time_millis).id
            2
            >>> table.snapshot_before(0) is None
            True
        """
        found: Snapshot | None = None
        for snapshot_id in self.snapshot_ids():
            snap = self.snapshot(snapshot_id)
            if snap.time_millis > timestamp_ms:
                break
            found = snap
        return found

    def snapshot_at(self, timestamp_ms: int) -> Snapshot:
        """The newest snapshot committed at or before `timestamp_ms` (epoch millis).

        Older than every snapshot: the newest tag at or before it (seed 003), else an error.

        Raises:
            SnapshotNotFoundError: when no snapshot or tag is that old, naming the earliest.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> table.snapshot_at(table.snapshot(1).time_millis).id
            1
            >>> table.snapshot_at(0)
            Traceback (most recent call last):
            ...
            paimon_sql.errors.SnapshotNotFoundError: table db.t has no snapshot or tag at or ...
        """
        found = self.snapshot_before(timestamp_ms)
        if found is None:
            tagged = {n: self.tag(n) for n in self.tag_names()}
            earlier = [t for t in tagged.values() if t.time_millis <= timestamp_ms]
            if earlier:
                return max(earlier, key=lambda t: t.id)
            raise SnapshotNotFoundError(
                f"table {self.name} has no snapshot or tag at or before "
                f"{instant_text(timestamp_ms)}; " + self._what_exists(tagged)
            )
        return found

    def _what_exists(self, tagged: dict[str, Snapshot]) -> str:
        """What the table has, for an error message.

        ``the earliest snapshot is snapshot 6 (2024-05-14 10:00:00.000); tags: t1 (snapshot 2, …)``.
        """
        earliest = self.earliest_snapshot_id()
        if earliest is None:
            text = "it has no snapshots"
        else:
            when = _when(self.snapshot(earliest).time_millis)
            text = f"the earliest snapshot is snapshot {earliest} ({when})"
        tags = [f"{name} (snapshot {t.id}, {_when(t.time_millis)})" for name, t in tagged.items()]
        return text + ("; tags: " + ", ".join(tags) if tags else "; no tags")

    def select_snapshot(
        self,
        *,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
    ) -> Snapshot | None:
        """The snapshot to read: by id, tag or timestamp, else the latest (None for an empty table).

        Raises:
            ArgumentError: when more than one of them is given.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> table.select_snapshot().id, table.select_snapshot(tag="v1").id
            (2, 1)
            >>> table.select_snapshot(snapshot_id=1, tag="v1")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.ArgumentError: choose at most one of snapshot id, tag and timestamp
        """
        chosen = [x for x in (snapshot_id, tag, timestamp_ms) if x is not None]
        if len(chosen) > 1:
            raise ArgumentError("choose at most one of snapshot id, tag and timestamp")
        if snapshot_id is not None:
            return self.snapshot(snapshot_id)
        if tag is not None:
            return self.tag(tag)
        if timestamp_ms is not None:
            return self.snapshot_at(timestamp_ms)
        return self.latest_snapshot()

    # --- manifests --------------------------------------------------------------------------------

    def manifest_list(self, name: str) -> list[ManifestFileMeta]:
        """The entries of a manifest list in ``manifest/`` (cached).

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> metas = table.manifest_list(table.snapshot(2).delta_manifest_list)
            >>> [(m.num_added_files, m.num_deleted_files) for m in metas]
            [(1, 0)]
        """
        cached = self._lists.get(name)
        if cached is None:
            cached = self._read(name, "manifest list", _each(manifest_file_meta_from_record))
            for meta in cached:
                self._referrers[meta.file_name] = self.sub("manifest", name)
                self._sizes[meta.file_name] = meta.file_size
            self._lists[name] = cached
        return cached

    def data_manifests(self, snapshot: Snapshot | None) -> list[ManifestFileMeta]:
        """The base then delta manifests of `snapshot`: its data files, folded in order.

        None (an empty table) has none.

        Raises:
            CorruptFileError: when a manifest is listed twice.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> [len(table.data_manifests(table.snapshot(i))) for i in (1, 2)]
            [1, 2]
            >>> table.data_manifests(None)
            []
        """
        if snapshot is None:
            return []
        metas = self.manifest_list(snapshot.base_manifest_list) + self.manifest_list(
            snapshot.delta_manifest_list
        )
        seen: set[str] = set()
        for meta in metas:  # a manifest listed twice would add its files twice
            if meta.file_name in seen:
                raise CorruptFileError(
                    self.referrer(meta.file_name)
                    or self.sub("manifest", snapshot.base_manifest_list),
                    f"it lists the manifest {meta.file_name} twice",
                )
            seen.add(meta.file_name)
        return metas

    def referrer(self, name: str) -> str | None:
        """The path of the file that named `name` (a manifest list, manifest or index manifest).

        None until a file naming it has been read through this table.

        Examples:
            >>> import os
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> snapshot = table.snapshot(2)
            >>> os.path.relpath(table.referrer(snapshot.delta_manifest_list), warehouse)
            'db.db/t/snapshot/snapshot-2'
            >>> table.referrer("manifest-unknown") is None
            True
        """
        return self._referrers.get(name)

    #: Manifest entries kept decoded per table (least recently used manifests go first).
    MANIFEST_CACHE_ENTRIES = 1_000_000

    def manifest(self, name: str) -> list[ManifestEntry]:
        """The entries of a manifest file in ``manifest/`` (cached).

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> meta = table.manifest_list(table.snapshot(1).delta_manifest_list)[0]
            >>> entries = table.manifest(meta.file_name)
            >>> [(e.kind.name, e.bucket, e.file.row_count, e.file.level) for e in entries]
            [('ADD', 0, 2, 0)]
        """
        with self._lock:
            cached = self._manifests.get(name)
            if cached is not None:
                self._manifests.move_to_end(name)
                return cached
        cached = self._read(name, "manifest", entries_from_records, plain_creation_time)
        with self._lock:
            if name not in self._manifests:
                self._manifests[name] = cached
                self._cached_entries += len(cached)
            # merged manifests supersede each other as a session commits: keep the recent ones
            while self._cached_entries > self.MANIFEST_CACHE_ENTRIES and len(self._manifests) > 1:
                old, entries = self._manifests.popitem(last=False)
                self._cached_entries -= len(entries)
                for key in [k for k in self._digests if k[0] == old]:
                    del self._digests[key]
        return cached

    def index_manifest(self, name: str) -> list[IndexManifestEntry]:
        """The entries of an index manifest in ``manifest/``: a full listing, so ADD entries only.

        Raises:
            CorruptFileError: for a DELETE entry, an index file listed twice, or two deletion
                vectors for one data file (§4.4).

        Examples:
            >>> session = paimon_sql.connect(tmp_warehouse)
            >>> for statement in (
            ...     "CREATE DATABASE db",
            ...     "CREATE TABLE db.dv (id INT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED)"
            ...     " WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')",
            ...     "INSERT INTO db.dv VALUES (1, 1), (2, 2)",
            ...     "INSERT INTO db.dv VALUES (2, 3)",
            ... ):
            ...     _ = session.sql(statement)
            >>> table = session.table("db.dv")
            >>> entries = table.index_manifest(table.latest_snapshot().index_manifest)
            >>> [(e.index_file.index_type, e.index_file.row_count) for e in entries]
            [('DELETION_VECTORS', 1)]
        """
        cached = self._indexes.get(name)
        if cached is None:  # index manifests never change either: read once per table
            cached = self._read(name, "index manifest", _each(index_manifest_entry_from_record))
            _check_index_manifest(self.sub("manifest", name), cached)
            self._indexes[name] = cached
        return cached

    def manifest_digest(
        self, name: str, kind: str, build: Callable[[list[ManifestEntry]], _T]
    ) -> _T:
        """`build` of a manifest's entries, cached per table under (`name`, `kind`).

        A manifest never changes once written, so whatever is derived from it (a writer's sequence
        numbers per bucket) is computed once per session.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> meta = table.manifest_list(table.snapshot(1).delta_manifest_list)[0]
            >>> table.manifest_digest(meta.file_name, "count", len)
            1
            >>> table.manifest_digest(meta.file_name, "count", lambda entries: "not again")
            1
        """
        key = (name, kind)
        if key not in self._digests:
            value = build(self.manifest(name))
            with self._lock:
                self._digests[key] = value
        return cast("_T", self._digests[key])

    #: Decoded file indexes kept per table (most recently used).
    FILE_INDEX_CACHE = 4096

    def file_index(self, key: str, decode: Callable[[], _T]) -> _T:
        """A data file's decoded file index, cached under `key`.

        `key` is its ``.index`` file's name, or the data file's for an embedded index: both are
        immutable once committed, so a query that prunes by file indexes reads and parses each
        one once per session.

        Examples:
            >>> table = paimon_sql.Catalog(warehouse).load_table("db.t")
            >>> table.file_index("f.index", lambda: ["decoded"])
            ['decoded']
            >>> table.file_index("f.index", lambda: ["not decoded again"])
            ['decoded']
        """
        with self._lock:
            cached = self._file_indexes.get(key)
            if cached is not None:
                self._file_indexes.move_to_end(key)
                return cast("_T", cached)
        value = decode()
        with self._lock:
            self._file_indexes[key] = value
            while len(self._file_indexes) > self.FILE_INDEX_CACHE:
                self._file_indexes.popitem(last=False)
        return value

    def _read(
        self,
        name: str,
        what: str,
        decode: _Decoder[_T],
        schema_edit: Callable[[Any], Any] | None = None,
    ) -> list[_T]:
        """Decode a metadata file of ``manifest/``: `decode` gets its records and Avro schema.

        It is checked against the size its referrer recorded. `schema_edit`: as in
        `stream_records`.
        """
        path = self.manifest_path(name)
        referrer = self._referrers.get(name)
        try:
            data = self.fileio.read_bytes(path)
        except DataFileNotFoundError as err:
            if referrer is None:
                raise
            raise DataFileNotFoundError(
                f"{what} {path} does not exist; {referrer} names it"
            ) from err
        size = self._sizes.get(name)
        if size is not None and size != len(data):
            raise CorruptFileError(path, f"it has {len(data)} bytes, {referrer} says {size}")
        try:
            schema, records = stream_records(data, path, schema_edit=schema_edit)
            with gc_paused():
                return decode(records, schema)
        except CorruptFileError:
            raise
        except SpecViolationError as err:
            raise CorruptFileError(path, _problem(err)) from err


def _each(decode: Callable[[dict[str, Any]], _T]) -> _Decoder[_T]:
    """A `Table._read` decoder that decodes each record with `decode`."""

    def decode_all(records: Iterator[dict[str, Any]], schema: Any) -> list[_T]:
        return [decode(r) for r in records]

    return decode_all


def _check_index_manifest(path: str, entries: list[IndexManifestEntry]) -> None:
    """§4.4: a full listing of live index files.

    ADD entries, each file once, each data file's vector once.
    """
    if any(e.kind is not FileKind.ADD for e in entries):
        raise CorruptFileError(
            path, "an index manifest lists the live index files: ADD entries only"
        )
    files = [e.index_file.file_name for e in entries]
    if len(set(files)) != len(files):
        raise CorruptFileError(path, "it lists an index file twice")
    vectors = [
        (e.partition, e.bucket, dv.data_file_name)
        for e in entries
        for dv in e.index_file.dv_ranges or ()
    ]
    if len(set(vectors)) != len(vectors):
        raise CorruptFileError(path, "it lists two deletion vectors for one data file")


def _problem(err: SpecViolationError) -> str:
    return err.problem if isinstance(err, CorruptFileError) else str(err)


def _when(millis: int) -> str:
    moment = datetime.datetime.fromtimestamp(millis / 1000)  # local time, as timestamps are read
    return moment.isoformat(sep=" ", timespec="milliseconds")


def instant_text(millis: int) -> str:
    """A time a user asked for, for a message: local time, with the epoch milliseconds it was.

    A bare number does not say whether it was read as seconds or milliseconds; this does.

    >>> instant_text(10**20)
    'epoch milliseconds 100000000000000000000 (out of range)'
    """
    try:
        return f"{_when(millis)} (epoch milliseconds {millis})"
    except (ValueError, OverflowError, OSError):
        return f"epoch milliseconds {millis} (out of range)"
