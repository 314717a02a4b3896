"""Manifest lists, manifests and index manifests as records (paimon-format.md §4).

The container (Avro, or ORC in tables written with ``manifest.format=orc``) is read by `paimon_sql.io`; this module
turns one record (a dict) into a frozen object and back.

>>> rec = {"_VERSION": 2, "_FILE_NAME": "manifest-x-0", "_FILE_SIZE": 10, "_NUM_ADDED_FILES": 1,
...        "_NUM_DELETED_FILES": 0, "_SCHEMA_ID": 0,
...        "_PARTITION_STATS": {"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": []}}
>>> manifest_file_meta_from_record(rec).file_name
'manifest-x-0'
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paimon_sql.errors import SpecViolationError


class FileKind(enum.IntEnum):
    """ADD or DELETE of a file in a manifest."""

    ADD = 0
    DELETE = 1


class FileSource(enum.IntEnum):
    """Whether a data file was flushed by a write or produced by compaction."""

    APPEND = 0
    COMPACT = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class SimpleStats:
    """Min/max BinaryRows and null counts over some columns."""

    min_values: bytes
    max_values: bytes
    null_counts: tuple[int | None, ...] | None


EMPTY_STATS = SimpleStats(min_values=b"\x00" * 12, max_values=b"\x00" * 12, null_counts=())


@dataclass(frozen=True, slots=True, kw_only=True)
class ManifestFileMeta:
    """One entry of a manifest list: a manifest file and its partition stats."""

    file_name: str
    file_size: int
    num_added_files: int
    num_deleted_files: int
    partition_stats: SimpleStats
    schema_id: int
    min_bucket: int | None = None
    max_bucket: int | None = None
    min_level: int | None = None
    max_level: int | None = None
    min_row_id: int | None = None
    max_row_id: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DataFileMeta:
    """A data file (or changelog file) and its statistics."""

    file_name: str
    file_size: int
    row_count: int
    min_key: bytes
    max_key: bytes
    key_stats: SimpleStats
    value_stats: SimpleStats
    min_sequence_number: int
    max_sequence_number: int
    schema_id: int
    level: int
    extra_files: tuple[str, ...] = ()
    creation_time: datetime.datetime | int | None = None
    delete_row_count: int | None = None
    embedded_index: bytes | None = None
    file_source: FileSource | None = None
    value_stats_cols: tuple[str, ...] | None = None
    external_path: str | None = None
    first_row_id: int | None = None
    write_cols: tuple[str, ...] | None = None

    @property
    def format(self) -> str:
        """The data format, from the file name's last suffix (never from table options)."""
        return self.file_name.rsplit(".", 1)[-1].lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class ManifestEntry:
    """ADD or DELETE of a data file in a (partition, bucket)."""

    kind: FileKind
    partition: bytes
    bucket: int
    total_buckets: int
    file: DataFileMeta

    @property
    def identifier(self) -> tuple[Any, ...]:
        """What matches a DELETE to its ADD (FileEntry.Identifier)."""
        f = self.file
        return (
            self.partition,
            self.bucket,
            f.level,
            f.file_name,
            f.extra_files,
            f.embedded_index,
            f.external_path,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DeletionVectorMeta:
    """Where one data file's deletion vector sits inside an index file."""

    data_file_name: str
    offset: int
    length: int
    cardinality: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexFileMeta:
    """An index file: HASH (dynamic bucket) or DELETION_VECTORS."""

    index_type: str
    file_name: str
    file_size: int
    row_count: int
    dv_ranges: tuple[DeletionVectorMeta, ...] | None = None
    external_path: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexManifestEntry:
    """ADD or DELETE of an index file in a (partition, bucket)."""

    kind: FileKind
    partition: bytes
    bucket: int
    index_file: IndexFileMeta


def _opt_tuple(value: Sequence[Any] | None) -> tuple[Any, ...] | None:
    return None if value is None else tuple(value)


def stats_from_record(rec: Mapping[str, Any]) -> SimpleStats:
    """`SimpleStats` from its record."""
    return SimpleStats(
        min_values=bytes(rec["_MIN_VALUES"]),
        max_values=bytes(rec["_MAX_VALUES"]),
        null_counts=_opt_tuple(rec.get("_NULL_COUNTS")),
    )


def stats_to_record(stats: SimpleStats) -> dict[str, Any]:
    """The record of `SimpleStats`."""
    counts = None if stats.null_counts is None else list(stats.null_counts)
    return {"_MIN_VALUES": stats.min_values, "_MAX_VALUES": stats.max_values, "_NULL_COUNTS": counts}


def _version(rec: Mapping[str, Any], expected: int, what: str) -> None:
    version = rec.get("_VERSION")
    if version != expected:
        raise SpecViolationError(f"{what} record has _VERSION {version!r}, expected {expected}")


def manifest_file_meta_from_record(rec: Mapping[str, Any]) -> ManifestFileMeta:
    """A manifest-list entry from its record."""
    try:
        _version(rec, 2, "manifest list")
        return ManifestFileMeta(
            file_name=rec["_FILE_NAME"],
            file_size=rec["_FILE_SIZE"],
            num_added_files=rec["_NUM_ADDED_FILES"],
            num_deleted_files=rec["_NUM_DELETED_FILES"],
            partition_stats=stats_from_record(rec["_PARTITION_STATS"]),
            schema_id=rec["_SCHEMA_ID"],
            min_bucket=rec.get("_MIN_BUCKET"),
            max_bucket=rec.get("_MAX_BUCKET"),
            min_level=rec.get("_MIN_LEVEL"),
            max_level=rec.get("_MAX_LEVEL"),
            min_row_id=rec.get("_MIN_ROW_ID"),
            max_row_id=rec.get("_MAX_ROW_ID"),
        )
    except (KeyError, TypeError) as err:
        raise SpecViolationError(f"malformed manifest list record: missing {err}") from err


def data_file_from_record(rec: Mapping[str, Any]) -> DataFileMeta:
    """A `DataFileMeta` from its record."""
    source = rec.get("_FILE_SOURCE")
    return DataFileMeta(
        file_name=rec["_FILE_NAME"],
        file_size=rec["_FILE_SIZE"],
        row_count=rec["_ROW_COUNT"],
        min_key=bytes(rec["_MIN_KEY"]),
        max_key=bytes(rec["_MAX_KEY"]),
        key_stats=stats_from_record(rec["_KEY_STATS"]),
        value_stats=stats_from_record(rec["_VALUE_STATS"]),
        min_sequence_number=rec["_MIN_SEQUENCE_NUMBER"],
        max_sequence_number=rec["_MAX_SEQUENCE_NUMBER"],
        schema_id=rec["_SCHEMA_ID"],
        level=rec["_LEVEL"],
        extra_files=tuple(rec.get("_EXTRA_FILES") or ()),
        creation_time=rec.get("_CREATION_TIME"),
        delete_row_count=rec.get("_DELETE_ROW_COUNT"),
        embedded_index=rec.get("_EMBEDDED_FILE_INDEX"),
        file_source=None if source is None else FileSource(source),
        value_stats_cols=_opt_tuple(rec.get("_VALUE_STATS_COLS")),
        external_path=rec.get("_EXTERNAL_PATH"),
        first_row_id=rec.get("_FIRST_ROW_ID"),
        write_cols=_opt_tuple(rec.get("_WRITE_COLS")),
    )


def manifest_entry_from_record(rec: Mapping[str, Any]) -> ManifestEntry:
    """A `ManifestEntry` from its record."""
    try:
        _version(rec, 2, "manifest")
        return ManifestEntry(
            kind=FileKind(rec["_KIND"]),
            partition=bytes(rec["_PARTITION"]),
            bucket=rec["_BUCKET"],
            total_buckets=rec["_TOTAL_BUCKETS"],
            file=data_file_from_record(rec["_FILE"]),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise SpecViolationError(f"malformed manifest record: {err!r}") from err


def index_manifest_entry_from_record(rec: Mapping[str, Any]) -> IndexManifestEntry:
    """An `IndexManifestEntry` from its record."""
    try:
        _version(rec, 1, "index manifest")
        ranges = rec.get("_DELETIONS_VECTORS_RANGES")
        dv = None
        if ranges is not None:
            dv = tuple(
                DeletionVectorMeta(
                    data_file_name=r["f0"],
                    offset=r["f1"],
                    length=r["f2"],
                    cardinality=r.get("_CARDINALITY"),
                )
                for r in ranges
                if r is not None
            )
        return IndexManifestEntry(
            kind=FileKind(rec["_KIND"]),
            partition=bytes(rec["_PARTITION"]),
            bucket=rec["_BUCKET"],
            index_file=IndexFileMeta(
                index_type=rec["_INDEX_TYPE"],
                file_name=rec["_FILE_NAME"],
                file_size=rec["_FILE_SIZE"],
                row_count=rec["_ROW_COUNT"],
                dv_ranges=dv,
                external_path=rec.get("_EXTERNAL_PATH"),
            ),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise SpecViolationError(f"malformed index manifest record: {err!r}") from err
