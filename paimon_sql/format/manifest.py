"""Manifest lists, manifests and index manifests as records (paimon-format.md §4).

The container (Avro, or ORC in tables written with ``manifest.format=orc``) is read by
`paimon_sql.io`; this module turns one record (a dict) into a frozen object and back.

>>> rec = {"_VERSION": 2, "_FILE_NAME": "manifest-x-0", "_FILE_SIZE": 10, "_NUM_ADDED_FILES": 1,
...        "_NUM_DELETED_FILES": 0, "_SCHEMA_ID": 0,
...        "_PARTITION_STATS": {"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": []}}
>>> manifest_file_meta_from_record(rec).file_name
'manifest-x-0'
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import SpecViolationError

if TYPE_CHECKING:
    from collections.abc import Sequence


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
class GlobalIndexMeta:
    """What a global index file covers (Java 1.4's ``GlobalIndexMeta``, ``_GLOBAL_INDEX``).

    A global index (``bitmap``, ``btree``, ...; Java builds it with the ``create_global_index``
    procedure on row-tracking tables) answers for the rows whose row ids lie in
    [`row_range_start`, `row_range_end`] (both inclusive) of one partition, by the values of the
    field with id `index_field_id`. `index_meta` is the index type's own header (a btree's key
    range), `source_meta` the 2.0 builds' addition; both are kept as bytes, never interpreted.
    """

    row_range_start: int
    row_range_end: int
    index_field_id: int
    extra_field_ids: tuple[int, ...] | None = None
    index_meta: bytes | None = None
    source_meta: bytes | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexFileMeta:
    """An index file: HASH (dynamic bucket), DELETION_VECTORS or a global index (`global_index`)."""

    index_type: str
    file_name: str
    file_size: int
    row_count: int
    dv_ranges: tuple[DeletionVectorMeta, ...] | None = None
    external_path: str | None = None
    global_index: GlobalIndexMeta | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexManifestEntry:
    """ADD or DELETE of an index file in a (partition, bucket)."""

    kind: FileKind
    partition: bytes
    bucket: int
    index_file: IndexFileMeta


def _opt_tuple(value: Sequence[Any] | None) -> tuple[Any, ...] | None:
    return None if value is None else tuple(value)


# Field checks (§4): (key, accepted exact types, nullable). Avro gives each field its schema's type,
# but the schema is the file's own, so a damaged or foreign file can carry anything: checked per
# record.
_Spec = tuple[tuple[str, tuple[type, ...], bool], ...]
_INT, _STR, _BYTES = (int,), (str,), (bytes,)
_STATS_SPEC: _Spec = (
    ("_MIN_VALUES", _BYTES, False),
    ("_MAX_VALUES", _BYTES, False),
    ("_NULL_COUNTS", (list,), True),
)
_LIST_SPEC: _Spec = (
    ("_FILE_NAME", _STR, False),
    ("_FILE_SIZE", _INT, False),
    ("_NUM_ADDED_FILES", _INT, False),
    ("_NUM_DELETED_FILES", _INT, False),
    ("_PARTITION_STATS", (dict,), False),
    ("_SCHEMA_ID", _INT, False),
    ("_MIN_BUCKET", _INT, True),
    ("_MAX_BUCKET", _INT, True),
    ("_MIN_LEVEL", _INT, True),
    ("_MAX_LEVEL", _INT, True),
    ("_MIN_ROW_ID", _INT, True),
    ("_MAX_ROW_ID", _INT, True),
)
_ENTRY_SPEC: _Spec = (
    ("_KIND", _INT, False),
    ("_PARTITION", _BYTES, False),
    ("_BUCKET", _INT, False),
    ("_TOTAL_BUCKETS", _INT, False),
    ("_FILE", (dict,), False),
)
_FILE_SPEC: _Spec = (
    ("_FILE_NAME", _STR, False),
    ("_FILE_SIZE", _INT, False),
    ("_ROW_COUNT", _INT, False),
    ("_MIN_KEY", _BYTES, False),
    ("_MAX_KEY", _BYTES, False),
    ("_KEY_STATS", (dict,), False),
    ("_VALUE_STATS", (dict,), False),
    ("_MIN_SEQUENCE_NUMBER", _INT, False),
    ("_MAX_SEQUENCE_NUMBER", _INT, False),
    ("_SCHEMA_ID", _INT, False),
    ("_LEVEL", _INT, False),
    ("_EXTRA_FILES", (list,), False),
    ("_CREATION_TIME", (int, datetime.datetime), True),
    ("_DELETE_ROW_COUNT", _INT, True),
    ("_EMBEDDED_FILE_INDEX", _BYTES, True),
    ("_FILE_SOURCE", _INT, True),
    ("_VALUE_STATS_COLS", (list,), True),
    ("_EXTERNAL_PATH", _STR, True),
    ("_FIRST_ROW_ID", _INT, True),
    ("_WRITE_COLS", (list,), True),
)
_INDEX_SPEC: _Spec = (
    ("_KIND", _INT, False),
    ("_PARTITION", _BYTES, False),
    ("_BUCKET", _INT, False),
    ("_INDEX_TYPE", _STR, False),
    ("_FILE_NAME", _STR, False),
    ("_FILE_SIZE", _INT, False),
    ("_ROW_COUNT", _INT, False),
    ("_DELETIONS_VECTORS_RANGES", (list,), True),
    ("_EXTERNAL_PATH", _STR, True),
    ("_GLOBAL_INDEX", (dict,), True),
)
_GLOBAL_SPEC: _Spec = (
    ("_ROW_RANGE_START", _INT, False),
    ("_ROW_RANGE_END", _INT, False),
    ("_INDEX_FIELD_ID", _INT, False),
    ("_EXTRA_FIELD_IDS", (list,), True),
    ("_INDEX_META", _BYTES, True),
    ("_SOURCE_META", _BYTES, True),
)
_DV_SPEC: _Spec = (
    ("f0", _STR, False),
    ("f1", _INT, False),
    ("f2", _INT, False),
    ("_CARDINALITY", _INT, True),
)
# : Index types this reader knows; others are only allowed as global indexes (``_GLOBAL_INDEX`` set,
# Java 1.4).
INDEX_TYPES = frozenset({"HASH", "DELETION_VECTORS"})


def _check(rec: Any, spec: _Spec, what: str) -> None:
    if not isinstance(rec, Mapping):
        raise SpecViolationError(f"{what} is not a record: {rec!r}")
    for key, types, nullable in spec:
        value = rec.get(key)
        if value is None:
            if not nullable:
                raise SpecViolationError(f"{what} lacks the field {key}")
        elif type(value) not in types and (isinstance(value, bool) or not isinstance(value, types)):
            raise SpecViolationError(
                f"{what} field {key} holds {type(value).__name__} {value!r:.40}"
            )


def _not_negative(rec: Mapping[str, Any], keys: Sequence[str], what: str) -> None:
    for key in keys:
        if rec[key] < 0:
            raise SpecViolationError(f"{what} field {key} is negative ({rec[key]})")


def _name(value: str, what: str) -> str:
    if not value or "/" in value or "\\" in value or value in (".", ".."):
        raise SpecViolationError(f"{what} names the file {value!r}: not a bare file name")
    return value


def _kind(value: int, what: str) -> FileKind:
    if value not in (0, 1):
        raise SpecViolationError(f"{what} has _KIND {value}: 0 (ADD) or 1 (DELETE) expected")
    return FileKind(value)


def stats_from_record(rec: Mapping[str, Any]) -> SimpleStats:
    """`SimpleStats` from its record."""
    _check(rec, _STATS_SPEC, "stats")
    return SimpleStats(
        min_values=bytes(rec["_MIN_VALUES"]),
        max_values=bytes(rec["_MAX_VALUES"]),
        null_counts=_opt_tuple(rec.get("_NULL_COUNTS")),
    )


def stats_to_record(stats: SimpleStats) -> dict[str, Any]:
    """The record of `SimpleStats`."""
    counts = None if stats.null_counts is None else list(stats.null_counts)
    return {
        "_MIN_VALUES": stats.min_values,
        "_MAX_VALUES": stats.max_values,
        "_NULL_COUNTS": counts,
    }


def _version(rec: object, expected: int, what: str) -> None:
    version = rec.get("_VERSION") if isinstance(rec, Mapping) else None
    if version != expected or type(version) is not int:
        raise SpecViolationError(f"{what} record has _VERSION {version!r}, expected {expected}")


def manifest_file_meta_from_record(rec: Mapping[str, Any]) -> ManifestFileMeta:
    """A manifest-list entry from its record, every field checked (§4.2)."""
    _version(rec, 2, "manifest list")
    _check(rec, _LIST_SPEC, "manifest list record")
    _not_negative(
        rec, ("_FILE_SIZE", "_NUM_ADDED_FILES", "_NUM_DELETED_FILES", "_SCHEMA_ID"), "manifest list"
    )
    return ManifestFileMeta(
        file_name=_name(rec["_FILE_NAME"], "manifest list record"),
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


def data_file_from_record(rec: Mapping[str, Any]) -> DataFileMeta:
    """A `DataFileMeta` from its record, every field checked (§4.3)."""
    _check(rec, _FILE_SPEC, "manifest record _FILE")
    _not_negative(
        rec, ("_FILE_SIZE", "_ROW_COUNT", "_SCHEMA_ID", "_LEVEL"), "manifest record _FILE"
    )
    source = rec.get("_FILE_SOURCE")
    if source not in (None, 0, 1):
        raise SpecViolationError(f"manifest record has _FILE_SOURCE {source}: 0 or 1 expected")
    if any(type(n) is not str for n in rec["_EXTRA_FILES"]):
        raise SpecViolationError("manifest record _EXTRA_FILES must be file names")
    return DataFileMeta(
        file_name=_name(rec["_FILE_NAME"], "manifest record"),
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
    """A `ManifestEntry` from its record, every field checked (§4.3)."""
    _version(rec, 2, "manifest")
    _check(rec, _ENTRY_SPEC, "manifest record")
    return ManifestEntry(
        kind=_kind(rec["_KIND"], "manifest record"),
        partition=bytes(rec["_PARTITION"]),
        bucket=rec["_BUCKET"],
        total_buckets=rec["_TOTAL_BUCKETS"],
        file=data_file_from_record(rec["_FILE"]),
    )


def _dv_ranges(ranges: list[Any] | None, row_count: int) -> tuple[DeletionVectorMeta, ...] | None:
    if ranges is None:
        return None
    out = []
    for r in ranges:
        if r is None:
            continue
        _check(r, _DV_SPEC, "deletion-vector range")
        _not_negative(r, ("f1", "f2"), "deletion-vector range")
        cardinality = r.get("_CARDINALITY")
        if cardinality is not None and cardinality < 0:
            raise SpecViolationError(f"deletion vector of {r['f0']} has cardinality {cardinality}")
        out.append(
            DeletionVectorMeta(
                data_file_name=r["f0"], offset=r["f1"], length=r["f2"], cardinality=cardinality
            )
        )
    if len(out) != row_count or len({dv.data_file_name for dv in out}) != len(out):
        raise SpecViolationError(
            f"index record lists {len(out)} deletion vectors "
            f"({len({dv.data_file_name for dv in out})} files), "
            f"its _ROW_COUNT says {row_count}"
        )
    return tuple(out)


def global_index_from_record(rec: Mapping[str, Any], file_name: str) -> GlobalIndexMeta:
    """The `GlobalIndexMeta` of index file `file_name` from its ``_GLOBAL_INDEX`` record.

    A row range is non-negative and not reversed; field ids are non-negative ints.

    >>> meta = global_index_from_record({"_ROW_RANGE_START": 0, "_ROW_RANGE_END": 7,
    ...                                  "_INDEX_FIELD_ID": 1}, "bitmap-global-index-u.index")
    >>> meta.row_range_end, meta.index_field_id, meta.index_meta
    (7, 1, None)
    >>> global_index_from_record({"_ROW_RANGE_START": 8, "_ROW_RANGE_END": 7,
    ...                           "_INDEX_FIELD_ID": 1}, "x.index")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    paimon_sql.errors.SpecViolationError: global index of x.index has the row range [8, 7]: ...
    """
    what = f"global index of {file_name}"
    _check(rec, _GLOBAL_SPEC, what)
    _not_negative(rec, ("_ROW_RANGE_START", "_INDEX_FIELD_ID"), what)
    start, end = rec["_ROW_RANGE_START"], rec["_ROW_RANGE_END"]
    if end < start:
        raise SpecViolationError(
            f"{what} has the row range [{start}, {end}]: its end lies before its start"
        )
    extra = rec.get("_EXTRA_FIELD_IDS")
    if extra is not None:
        for field_id in extra:
            if type(field_id) is not int or field_id < 0:
                raise SpecViolationError(f"{what} has the extra field id {field_id!r}")
        extra = tuple(extra)
    meta, source = rec.get("_INDEX_META"), rec.get("_SOURCE_META")
    return GlobalIndexMeta(
        row_range_start=start,
        row_range_end=end,
        index_field_id=rec["_INDEX_FIELD_ID"],
        extra_field_ids=extra,
        index_meta=None if meta is None else bytes(meta),
        source_meta=None if source is None else bytes(source),
    )


def index_manifest_entry_from_record(rec: Mapping[str, Any]) -> IndexManifestEntry:
    """An `IndexManifestEntry` from its record, every field checked (§4.4).

    A deletion-vector entry must list as many vectors as its ``_ROW_COUNT``; an index type other
    than HASH and DELETION_VECTORS is only valid as a global index, and those two never are one.
    """
    _version(rec, 1, "index manifest")
    _check(rec, _INDEX_SPEC, "index manifest record")
    _not_negative(rec, ("_FILE_SIZE", "_ROW_COUNT"), "index manifest record")
    index_type = rec["_INDEX_TYPE"]
    file_name = _name(rec["_FILE_NAME"], "index manifest record")
    global_record = rec.get("_GLOBAL_INDEX")
    if index_type not in INDEX_TYPES and global_record is None:
        raise SpecViolationError(
            f"index manifest record has the unknown _INDEX_TYPE {index_type!r}"
        )
    if index_type in INDEX_TYPES and global_record is not None:
        raise SpecViolationError(
            f"index manifest record of {file_name} (type {index_type}) has a _GLOBAL_INDEX: "
            "only global index types (bitmap, btree, ...) carry one"
        )
    global_index = None
    if global_record is not None:
        global_index = global_index_from_record(global_record, file_name)
    ranges = rec.get("_DELETIONS_VECTORS_RANGES")
    if index_type != "DELETION_VECTORS" and ranges is not None:
        raise SpecViolationError(
            f"index manifest record of type {index_type} has _DELETIONS_VECTORS_RANGES"
        )
    if index_type == "DELETION_VECTORS" and ranges is None:
        raise SpecViolationError(
            "index manifest record of type DELETION_VECTORS has no _DELETIONS_VECTORS_RANGES"
        )
    dv = _dv_ranges(ranges, rec["_ROW_COUNT"]) if index_type == "DELETION_VECTORS" else None
    return IndexManifestEntry(
        kind=_kind(rec["_KIND"], "index manifest record"),
        partition=bytes(rec["_PARTITION"]),
        bucket=rec["_BUCKET"],
        index_file=IndexFileMeta(
            index_type=index_type,
            file_name=file_name,
            file_size=rec["_FILE_SIZE"],
            row_count=rec["_ROW_COUNT"],
            dv_ranges=dv,
            external_path=rec.get("_EXTERNAL_PATH"),
            global_index=global_index,
        ),
    )


# --- encoding (inverse of the decoders above) --------------------------------------------------

_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def creation_time_millis(value: datetime.datetime | int | None) -> int | None:
    """``_CREATION_TIME`` as the plain int Java stores: local wall-clock millis as if UTC (§4.3).

    fastavro decodes it as a UTC-aware datetime; a naive datetime is taken as that wall-clock time.

    >>> creation_time_millis(datetime.datetime(1970, 1, 1, 0, 0, 1))
    1000
    >>> creation_time_millis(1000), creation_time_millis(None)
    (1000, None)
    """
    if value is None or isinstance(value, int):
        return value
    aware = value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)
    delta = aware - _EPOCH_UTC
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _opt_list(value: Sequence[Any] | None) -> list[Any] | None:
    return None if value is None else list(value)


def data_file_to_record(f: DataFileMeta) -> dict[str, Any]:
    """The ``_FILE`` record of a `DataFileMeta` (every field of `avro_schemas.DATA_FILE_SCHEMA`)."""
    return {
        "_FILE_NAME": f.file_name,
        "_FILE_SIZE": f.file_size,
        "_ROW_COUNT": f.row_count,
        "_MIN_KEY": f.min_key,
        "_MAX_KEY": f.max_key,
        "_KEY_STATS": stats_to_record(f.key_stats),
        "_VALUE_STATS": stats_to_record(f.value_stats),
        "_MIN_SEQUENCE_NUMBER": f.min_sequence_number,
        "_MAX_SEQUENCE_NUMBER": f.max_sequence_number,
        "_SCHEMA_ID": f.schema_id,
        "_LEVEL": f.level,
        "_EXTRA_FILES": list(f.extra_files),
        "_CREATION_TIME": creation_time_millis(f.creation_time),
        "_DELETE_ROW_COUNT": f.delete_row_count,
        "_EMBEDDED_FILE_INDEX": f.embedded_index,
        "_FILE_SOURCE": None if f.file_source is None else int(f.file_source),
        "_VALUE_STATS_COLS": _opt_list(f.value_stats_cols),
        "_EXTERNAL_PATH": f.external_path,
        "_FIRST_ROW_ID": f.first_row_id,
        "_WRITE_COLS": _opt_list(f.write_cols),
    }


def manifest_entry_to_record(entry: ManifestEntry) -> dict[str, Any]:
    """The record of a `ManifestEntry` (``_VERSION`` 2), inverse of `manifest_entry_from_record`.

    >>> from paimon_sql.format.binary_row import EMPTY_ROW
    >>> f = DataFileMeta(file_name="data-u-0.parquet", file_size=1, row_count=1, min_key=EMPTY_ROW,
    ...                  max_key=EMPTY_ROW, key_stats=EMPTY_STATS, value_stats=EMPTY_STATS,
    ...                  min_sequence_number=0, max_sequence_number=0, schema_id=0, level=0)
    >>> e = ManifestEntry(kind=FileKind.ADD, partition=EMPTY_ROW, bucket=0, total_buckets=-1,
    ...                   file=f)
    >>> manifest_entry_from_record(manifest_entry_to_record(e)) == e
    True
    """
    return {
        "_VERSION": 2,
        "_KIND": int(entry.kind),
        "_PARTITION": entry.partition,
        "_BUCKET": entry.bucket,
        "_TOTAL_BUCKETS": entry.total_buckets,
        "_FILE": data_file_to_record(entry.file),
    }


def manifest_file_meta_to_record(meta: ManifestFileMeta) -> dict[str, Any]:
    """The manifest-list record of a `ManifestFileMeta` (``_VERSION`` 2).

    >>> m = ManifestFileMeta(file_name="manifest-u-0", file_size=9, num_added_files=1,
    ...                      num_deleted_files=0, partition_stats=EMPTY_STATS, schema_id=0)
    >>> manifest_file_meta_from_record(manifest_file_meta_to_record(m)) == m
    True
    """
    return {
        "_VERSION": 2,
        "_FILE_NAME": meta.file_name,
        "_FILE_SIZE": meta.file_size,
        "_NUM_ADDED_FILES": meta.num_added_files,
        "_NUM_DELETED_FILES": meta.num_deleted_files,
        "_PARTITION_STATS": stats_to_record(meta.partition_stats),
        "_SCHEMA_ID": meta.schema_id,
        "_MIN_BUCKET": meta.min_bucket,
        "_MAX_BUCKET": meta.max_bucket,
        "_MIN_LEVEL": meta.min_level,
        "_MAX_LEVEL": meta.max_level,
        "_MIN_ROW_ID": meta.min_row_id,
        "_MAX_ROW_ID": meta.max_row_id,
    }


def _dv_range_record(dv: DeletionVectorMeta) -> dict[str, Any]:
    return {
        "f0": dv.data_file_name,
        "f1": dv.offset,
        "f2": dv.length,
        "_CARDINALITY": dv.cardinality,
    }


def index_manifest_entry_to_record(entry: IndexManifestEntry) -> dict[str, Any]:
    r"""The index-manifest record of an `IndexManifestEntry` (``_VERSION`` 1, §4.4).

    >>> dv = DeletionVectorMeta(data_file_name="data-u-0.parquet", offset=1, length=24,
    ...                         cardinality=2)
    >>> f = IndexFileMeta(index_type="DELETION_VECTORS", file_name="index-u-0", file_size=31,
    ...                   row_count=1, dv_ranges=(dv,))
    >>> e = IndexManifestEntry(kind=FileKind.ADD, partition=b"\x00" * 12, bucket=0, index_file=f)
    >>> index_manifest_entry_to_record(e)["_DELETIONS_VECTORS_RANGES"][0]["f2"]
    24
    """
    f = entry.index_file
    ranges = None if f.dv_ranges is None else [_dv_range_record(dv) for dv in f.dv_ranges]
    return {
        "_VERSION": 1,
        "_KIND": int(entry.kind),
        "_PARTITION": entry.partition,
        "_BUCKET": entry.bucket,
        "_INDEX_TYPE": f.index_type,
        "_FILE_NAME": f.file_name,
        "_FILE_SIZE": f.file_size,
        "_ROW_COUNT": f.row_count,
        "_DELETIONS_VECTORS_RANGES": ranges,
        "_EXTERNAL_PATH": f.external_path,
        "_GLOBAL_INDEX": None if f.global_index is None else global_index_to_record(f.global_index),
    }


def global_index_to_record(meta: GlobalIndexMeta) -> dict[str, Any]:
    r"""The ``_GLOBAL_INDEX`` record of a `GlobalIndexMeta`, inverse of `global_index_from_record`.

    ``_SOURCE_META`` is only present when set (Java 1.4's layout has no such field; the schema is
    chosen by `avro_schemas.index_manifest_schema`).

    >>> meta = GlobalIndexMeta(row_range_start=0, row_range_end=5, index_field_id=2,
    ...                        index_meta=b"\x01")
    >>> global_index_from_record(global_index_to_record(meta), "f") == meta
    True
    >>> sorted(global_index_to_record(meta))[:2]
    ['_EXTRA_FIELD_IDS', '_INDEX_FIELD_ID']
    """
    rec: dict[str, Any] = {
        "_ROW_RANGE_START": meta.row_range_start,
        "_ROW_RANGE_END": meta.row_range_end,
        "_INDEX_FIELD_ID": meta.index_field_id,
        "_EXTRA_FIELD_IDS": _opt_list(meta.extra_field_ids),
        "_INDEX_META": meta.index_meta,
    }
    if meta.source_meta is not None:
        rec["_SOURCE_META"] = meta.source_meta
    return rec
