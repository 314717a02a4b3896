"""Integrity check of one table (``CALL sys.check_table``): is everything its metadata names there?

A table is intact when every version it keeps (each snapshot in ``snapshot/`` and each tag) reads
completely. `check_table` walks them all and returns one `Problem` per thing that is wrong, never
raising for damage (the point is to find it):

* **the chain**: snapshot files form one run of consecutive ids; each decodes, carries the id of
  its name and a schema that exists; the ``EARLIEST``/``LATEST`` hints parse and name a snapshot
  that exists (Java tolerates a stale hint, so a hint is a *warning*); every schema file decodes;
* **manifests**: each manifest list, manifest and index manifest of each version exists with the
  size its referrer recorded, decodes, and holds as many ADD/DELETE entries as its manifest list
  says; the snapshot's total record count is the sum of its live files' row counts;
* **files**: every data file, extra file and index file a version holds exists with the recorded
  size; a data file's footer holds the recorded row count; files of one LSM level (>= 1) of a
  bucket have key ranges that do not overlap;
* **deletion vectors**: each decodes (CRC, magic, bounds), holds the recorded cardinality, points
  at a data file of the same bucket that the version holds, and deletes no row past its end;
* **deep** (opt-in, reads every byte): Parquet page checksums (where the writer stored them) and a
  full decode of every data file.

Each file is checked once, however many versions share it; the problems name the file by its path
relative to the table folder and the first version found using it.

>>> session = paimon_sql.connect(tmp_warehouse)
>>> for statement in (
...     "CREATE DATABASE db",
...     "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
...     " WITH ('bucket' = '1')",
...     "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
... ):
...     _ = session.sql(statement)
>>> check_table(session.table("db.t"))
[]
"""

from __future__ import annotations

import io
import itertools
import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import fastavro
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq

from paimon_sql.commit.expire import Layout
from paimon_sql.commit.plan import fold, key_comparator, level_overlaps
from paimon_sql.errors import PaimonSqlError, SnapshotNotFoundError
from paimon_sql.format.deletion_vector import decode_vector
from paimon_sql.format.manifest import FileKind
from paimon_sql.io.datafiles import read_orc

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_sql.catalog import Table
    from paimon_sql.format.manifest import DataFileMeta, ManifestEntry
    from paimon_sql.format.snapshot import Snapshot

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a table: where (`file`, relative to the table folder), what, how bad.

    `version` is the snapshot id or ``tag:<name>`` whose reading found it (None for table-wide
    problems such as a gap in the snapshot chain).
    """

    severity: str
    check: str
    file: str
    version: str | None
    problem: str

    def as_row(self) -> dict[str, Any]:
        """The problem as a result row of ``CALL sys.check_table``."""
        return {
            "severity": self.severity,
            "check": self.check,
            "file": self.file,
            "version": self.version,
            "problem": self.problem,
        }


COLUMNS = ("severity", "check", "file", "version", "problem")
"""The result columns of ``CALL sys.check_table``, in order."""


class _Checker:
    def __init__(self, table: Table, *, deep: bool) -> None:
        self.table = table
        self.deep = deep
        self.problems: list[Problem] = []
        self.seen: set[str] = set()  # paths already checked (shared by versions)
        self.layout = Layout(table)

    # --- reporting ------------------------------------------------------------------------------

    def rel(self, path: str) -> str:
        root = self.table.path.rstrip("/") + "/"
        return path[len(root) :] if path.startswith(root) else path

    def report(
        self, check: str, path: str, version: str | None, problem: str, severity: str = ERROR
    ) -> None:
        self.problems.append(Problem(severity, check, self.rel(path), version, problem))

    def error_text(self, err: BaseException, path: str) -> str:
        """An error's message without the path it names (the problem row carries it)."""
        text = str(err)
        for prefix in (f"{path}: ", f"{self.rel(path)}: "):
            text = text.removeprefix(prefix)
        return text

    def first_time(self, path: str) -> bool:
        if path in self.seen:
            return False
        self.seen.add(path)
        return True

    # --- the walk -------------------------------------------------------------------------------

    def run(self) -> list[Problem]:
        schema_ids = self.check_schemas()
        versions = self.check_chain()
        for name in self.table.tag_names():
            path = self.table.meta("tag", f"tag-{name}")
            try:
                versions.append((f"tag:{name}", self.table.tag(name)))
            except (PaimonSqlError, OSError) as err:
                self.report("tag", path, f"tag:{name}", self.error_text(err, path))
        for label, snapshot in versions:
            if snapshot.schema_id not in schema_ids:
                path = self.version_path(label)
                self.report("schema", path, label, f"schema {snapshot.schema_id} does not exist")
            self.check_version(label, snapshot)
        return self.problems

    def version_path(self, label: str) -> str:
        if label.startswith("tag:"):
            return self.table.meta("tag", f"tag-{label[4:]}")
        return self.table.meta("snapshot", f"snapshot-{label}")

    def check_schemas(self) -> set[int]:
        ids: set[int] = set()
        for schema_id in self.table.schema_ids():
            path = self.table.meta("schema", f"schema-{schema_id}")
            try:
                self.table.schema(schema_id)
            except (PaimonSqlError, OSError) as err:
                self.report("schema", path, None, self.error_text(err, path))
            else:
                ids.add(schema_id)
        return ids

    def check_chain(self) -> list[tuple[str, Snapshot]]:
        table = self.table
        ids = table.snapshot_ids()
        for low, high in itertools.pairwise(ids):
            if high != low + 1:
                missing = (
                    f"snapshot {low + 1} is"
                    if high == low + 2
                    else f"snapshots {low + 1}..{high - 1} are"
                )
                self.report(
                    "chain",
                    table.meta("snapshot", f"snapshot-{low + 1}"),
                    None,
                    f"{missing} missing between snapshot {low} and {high}: "
                    f"snapshots up to {low} are cut off from the table's history",
                )
        for hint in ("EARLIEST", "LATEST"):
            self.check_hint(hint, set(ids))
        versions: list[tuple[str, Snapshot]] = []
        for snapshot_id in ids:
            path = table.meta("snapshot", f"snapshot-{snapshot_id}")
            try:
                versions.append((str(snapshot_id), table.snapshot(snapshot_id)))
            except SnapshotNotFoundError:
                continue  # expired while we looked
            except (PaimonSqlError, OSError) as err:
                self.report("snapshot", path, str(snapshot_id), self.error_text(err, path))
        return versions

    def check_hint(self, hint: str, ids: set[int]) -> None:
        path = self.table.meta("snapshot", hint)
        if not self.table.fileio.exists(path):
            return
        try:
            text = self.table.fileio.read_text(path).strip()
        except (PaimonSqlError, OSError) as err:
            self.report("hint", path, None, self.error_text(err, path))
            return
        if not text.isdigit():
            self.report("hint", path, None, f"hint {text[:40]!r} is not a snapshot id")
        elif ids and int(text) not in ids:
            self.report(
                "hint",
                path,
                None,
                f"hint names snapshot {text}, which does not exist (readers fall back to listing)",
                WARNING,
            )

    def check_version(self, label: str, snapshot: Snapshot) -> None:
        entries: list[ManifestEntry] = []
        complete = True
        for list_name in (snapshot.base_manifest_list, snapshot.delta_manifest_list):
            got = self.check_manifest_list(label, list_name)
            complete = complete and got is not None
            entries += got or []
        if snapshot.changelog_manifest_list:
            changelog = self.check_manifest_list(label, snapshot.changelog_manifest_list)
            for entry in changelog or []:
                self.check_data_file(label, entry)
        live = list(fold(entries).values())
        if complete:
            total = sum(e.file.row_count for e in live)
            if snapshot.total_record_count is not None and total != snapshot.total_record_count:
                self.report(
                    "record count",
                    self.version_path(label),
                    label,
                    f"totalRecordCount is {snapshot.total_record_count}, its files hold {total} "
                    "rows",
                )
        for entry in live:
            self.check_data_file(label, entry)
        self.check_levels(label, live)
        if snapshot.index_manifest:
            self.check_index(label, snapshot.index_manifest, live)

    def check_manifest_list(self, label: str, name: str) -> list[ManifestEntry] | None:
        """Every entry of the list's manifests; None when something of it could not be read."""
        table = self.table
        path = table.manifest_path(name)
        try:
            metas = table.manifest_list(name)
        except (PaimonSqlError, OSError) as err:
            if self.first_time(path):
                self.report("manifest list", path, label, self.error_text(err, path))
            return None
        entries: list[ManifestEntry] = []
        complete = True
        for meta in metas:
            manifest = table.manifest_path(meta.file_name)
            try:
                got = table.manifest(meta.file_name)
            except (PaimonSqlError, OSError) as err:
                if self.first_time(manifest):
                    self.report("manifest", manifest, label, self.error_text(err, manifest))
                complete = False
                continue
            entries += got
            if not self.first_time(manifest):
                continue
            added = sum(1 for e in got if e.kind is FileKind.ADD)
            deleted = len(got) - added
            if (added, deleted) != (meta.num_added_files, meta.num_deleted_files):
                self.report(
                    "manifest",
                    manifest,
                    label,
                    f"it holds {added} added and {deleted} deleted entries, manifest list {name} "
                    f"says {meta.num_added_files} and {meta.num_deleted_files}",
                )
        return entries if complete else None

    def check_data_file(self, label: str, entry: ManifestEntry) -> None:
        try:
            paths = self.layout.data_paths(entry)
        except PaimonSqlError as err:
            self.report("data file", entry.file.file_name, label, str(err))
            return
        main, *extra = paths
        if self.first_time(main):
            self.check_file_body(label, main, entry.file)
        for path in extra:
            if self.first_time(path) and not self.table.fileio.exists(path):
                self.report(
                    "data file", path, label, f"extra file of {entry.file.file_name} is missing"
                )

    def check_file_body(self, label: str, path: str, f: DataFileMeta) -> None:
        fileio = self.table.fileio
        try:
            size = fileio.file_size(path)
        except (PaimonSqlError, OSError):
            self.report("data file", path, label, "the data file is missing")
            return
        if size != f.file_size:
            self.report(
                "data file", path, label, f"it has {size} bytes, its manifest says {f.file_size}"
            )
            return  # a rewritten file: its footer is not what the manifest describes
        try:
            rows = _row_count(fileio, path, deep=self.deep)
        except Exception as err:  # noqa: BLE001 -- any decoder failure is damage to report
            self.report("data file", path, label, f"cannot be read: {err}")
            return
        if rows is not None and rows != f.row_count:
            self.report(
                "row count", path, label, f"it holds {rows} rows, its manifest says {f.row_count}"
            )

    def check_levels(self, label: str, live: Iterable[ManifestEntry]) -> None:
        schema = self.table.latest_schema
        keys = schema.trimmed_primary_keys if schema.primary_keys else ()
        if not keys:
            return
        compare = key_comparator([schema.field(k).type for k in keys])
        for a, b in level_overlaps(live, compare):
            self.report(
                "levels",
                self.layout.data_paths(b)[0],
                label,
                f"its key range overlaps {a.file.file_name}'s in bucket {b.bucket}, level "
                f"{b.file.level} (files of one level >= 1 must not overlap)",
            )

    def check_index(self, label: str, name: str, live: list[ManifestEntry]) -> None:
        table = self.table
        path = table.manifest_path(name)
        try:
            entries = table.index_manifest(name)
        except (PaimonSqlError, OSError) as err:
            if self.first_time(path):
                self.report("index manifest", path, label, self.error_text(err, path))
            return
        files = {(e.partition, e.bucket, e.file.file_name): e.file for e in live}
        for entry in entries:
            meta = entry.index_file
            try:
                index_path = self.layout.index_path(entry.partition, entry.bucket, meta)
            except PaimonSqlError as err:
                self.report("index file", meta.file_name, label, str(err))
                continue
            for dv in meta.dv_ranges or ():
                target = files.get((entry.partition, entry.bucket, dv.data_file_name))
                if target is None:
                    self.report(
                        "deletion vector",
                        index_path,
                        label,
                        f"it holds a deletion vector for {dv.data_file_name}, which this version "
                        f"does not hold in bucket {entry.bucket}",
                        WARNING,  # Java ignores such a vector
                    )
            if not self.first_time(index_path):
                continue
            try:
                data = table.fileio.read_bytes(index_path)
            except (PaimonSqlError, OSError):
                self.report(
                    "index file", index_path, label, f"the index file is missing; {name} names it"
                )
                continue
            if len(data) != meta.file_size:
                self.report(
                    "index file",
                    index_path,
                    label,
                    f"it has {len(data)} bytes, index manifest {name} says {meta.file_size}",
                )
                continue
            for dv in meta.dv_ranges or ():
                self.check_vector(label, index_path, data, dv, files, entry)

    def check_vector(
        self,
        label: str,
        index_path: str,
        data: bytes,
        dv: Any,
        files: dict[tuple[bytes, int, str], DataFileMeta],
        entry: Any,
    ) -> None:
        try:
            bitmap = decode_vector(
                data, dv.offset, index_path, length=dv.length, cardinality=dv.cardinality
            )
        except PaimonSqlError as err:
            self.report("deletion vector", index_path, label, self.error_text(err, index_path))
            return
        target = files.get((entry.partition, entry.bucket, dv.data_file_name))
        if target is not None and len(bitmap) and bitmap.max() >= target.row_count:
            self.report(
                "deletion vector",
                index_path,
                label,
                f"the vector of {dv.data_file_name} deletes row {bitmap.max()}, but the file has "
                f"{target.row_count} rows",
            )


def _row_count(fileio: Any, path: str, *, deep: bool) -> int | None:
    """The rows a data file's footer says it holds (deep: counted by decoding every row)."""
    extension = posixpath.splitext(path)[1].lower()
    source: Any = path if fileio.local else io.BytesIO(fileio.read_bytes(path))
    if extension == ".parquet":
        parquet = pq.ParquetFile(source, page_checksum_verification=deep)
        if deep:
            return int(parquet.read().num_rows)
        return int(parquet.metadata.num_rows)
    if extension == ".orc":
        orc = pa_orc.ORCFile(source)
        if deep:  # read as a scan reads it (TIMESTAMPs pyarrow cannot return decoded here)
            return read_orc(fileio, path, orc.schema.names).num_rows
        return int(orc.nrows)
    if extension == ".avro":
        with open(source, "rb") if isinstance(source, str) else source as stream:
            if deep:
                return sum(1 for _ in fastavro.reader(stream))
            return sum(block.num_records for block in fastavro.block_reader(stream))
    return None


def check_table(table: Table, *, deep: bool = False) -> list[Problem]:
    """Every problem found in `table`'s snapshots, tags, manifests, index and data files.

    An empty list means every version the table keeps reads completely. `deep` also decodes every
    data file and verifies Parquet page checksums.

    Examples:
        >>> import os
        >>> session = paimon_sql.connect(tmp_warehouse)
        >>> for statement in (
        ...     "CREATE DATABASE db",
        ...     "CREATE TABLE db.a (id INT, v STRING)",
        ...     "INSERT INTO db.a VALUES (1, 'x'), (2, 'y')",
        ... ):
        ...     _ = session.sql(statement)
        >>> table = session.table("db.a")
        >>> check_table(table, deep=True)
        []
        >>> data = [e.path for e in os.scandir(table.sub("bucket-0"))]
        >>> os.remove(data[0])
        >>> [(p.check, p.problem) for p in check_table(table)]
        [('data file', 'the data file is missing')]
    """
    return _Checker(table, deep=deep).run()


__all__ = ["COLUMNS", "ERROR", "WARNING", "Problem", "check_table"]
