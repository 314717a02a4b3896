"""A manifest's entries decoded in bulk: types proved once per file, values checked per entry.

`manifest_entry_from_record` checks every field of every record against the spec (§4.3): its
type, then its value. For an Avro manifest the types follow from the file's own schema (fastavro
decodes each field as its schema says), so `entries_from_records` proves them once from that
schema (`avro_schema_proves`) and then only checks values per entry (version, kind, non-negative
sizes, bare file names, file source). A record that fails any check, or lacks a field, or holds
``null`` where a record is due, is decoded again by `manifest_entry_from_record`, which raises
the same error it always did; without such a schema (ORC or Parquet manifests) every record
takes that checked way. Equal partitions share one object, as do stats over no columns.

>>> from paimon_sql.format.avro_schemas import MANIFEST_ENTRY_SCHEMA
>>> from paimon_sql.format.manifest import DataFileMeta, ManifestEntry, FileKind, EMPTY_STATS
>>> from paimon_sql.format.manifest import manifest_entry_to_record
>>> f = DataFileMeta(file_name="data-u-0.parquet", file_size=1, row_count=1, min_key=b"",
...                  max_key=b"", key_stats=EMPTY_STATS, value_stats=EMPTY_STATS,
...                  min_sequence_number=0, max_sequence_number=0, schema_id=0, level=0)
>>> e = ManifestEntry(kind=FileKind.ADD, partition=b"", bucket=0, total_buckets=1, file=f)
>>> entries_from_records([manifest_entry_to_record(e)], MANIFEST_ENTRY_SCHEMA) == [e]
True
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
from typing import TYPE_CHECKING, Any

from paimon_sql.format.manifest import (
    _ENTRY_SPEC,
    _FILE_SPEC,
    _STATS_SPEC,
    DataFileMeta,
    FileKind,
    FileSource,
    ManifestEntry,
    SimpleStats,
    manifest_entry_from_record,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from paimon_sql.format.manifest import _Spec

#: The spec of a manifest record with its version, and the specs of its nested records by name.
_MANIFEST_SPEC: _Spec = (("_VERSION", (int,), False), *_ENTRY_SPEC)
_NESTED: dict[str, _Spec] = {
    "_FILE": _FILE_SPEC,
    "_KEY_STATS": _STATS_SPEC,
    "_VALUE_STATS": _STATS_SPEC,
    "_PARTITION_STATS": _STATS_SPEC,
}
#: Arrays whose items are checked one by one (`manifest_entry_from_record`): strings only.
_STRING_ITEMS = frozenset({"_EXTRA_FILES"})
#: What fastavro decodes each Avro primitive (without a logical type) as.
_PRIMITIVES: dict[str, type] = {"int": int, "long": int, "string": str, "bytes": bytes}
_KINDS = (FileKind.ADD, FileKind.DELETE)
_SOURCES = {None: None, 0: FileSource.APPEND, 1: FileSource.COMPACT}


def _branch(avro_type: Any) -> tuple[Any, bool] | None:
    """An Avro type as (the type, whether null is allowed); None for any other union."""
    if isinstance(avro_type, list):
        others = [t for t in avro_type if t != "null"]
        if len(avro_type) != 2 or len(others) != 1:
            return None
        avro_type, nullable = others[0], True
    else:
        nullable = False
    if isinstance(avro_type, str):
        avro_type = {"type": avro_type}
    return (avro_type, nullable) if isinstance(avro_type, dict) else None


def _field_proved(name: str, avro_type: Any, types: tuple[type, ...], nullable: bool) -> bool:
    """Whether every value Avro decodes for `avro_type` passes `_check`'s test of field `name`."""
    branch = _branch(avro_type)
    if branch is None:
        return False
    schema, may_be_null = branch
    kind, logical = schema.get("type"), schema.get("logicalType")
    if types == (dict,):  # a null record fails the bulk decoding and takes the checked way
        return kind == "record" and name in _NESTED and avro_schema_proves(schema, _NESTED[name])
    if may_be_null and not nullable:
        return False
    if kind == "array":
        items = _branch(schema.get("items"))
        strings = items is not None and items == ({"type": "string"}, False)
        return types == (list,) and (name not in _STRING_ITEMS or strings)
    if logical is not None:  # _CREATION_TIME: a datetime
        return kind == "long" and logical == "timestamp-millis" and datetime.datetime in types
    return isinstance(kind, str) and _PRIMITIVES.get(kind) in types


def avro_schema_proves(schema: Any, spec: _Spec = _MANIFEST_SPEC) -> bool:
    """Whether every record decoded with the Avro record `schema` has the field types of `spec`.

    A field the schema lacks is left to the per-record checks (a missing required field fails
    them); a nullable union ``["null", T]`` is accepted where `spec` allows null, and for nested
    records (a null one fails the bulk decoding). A top-level ``["null", record]`` (the Paimon
    0.9 layout of the paimon-cpp fixtures, nullable records throughout) is its record.

    >>> from paimon_sql.format.avro_schemas import MANIFEST_ENTRY_SCHEMA
    >>> avro_schema_proves(MANIFEST_ENTRY_SCHEMA)
    True
    >>> avro_schema_proves({"type": "record", "name": "r",
    ...                     "fields": [{"name": "_BUCKET", "type": "string"}]})
    False
    """
    branch = _branch(schema)
    if branch is None or branch[0].get("type") != "record":
        return False
    fields = branch[0].get("fields")
    if not isinstance(fields, list):
        return False
    by_name = {f.get("name"): f.get("type") for f in fields if isinstance(f, dict)}
    return all(
        _field_proved(name, by_name[name], types, nullable)
        for name, types, nullable in spec
        if name in by_name
    )


def plain_creation_time(schema: Any) -> Any | None:
    """The manifest schema `schema` with ``_CREATION_TIME`` a plain long; None if it is one.

    Java stores the local wall-clock time in millis as if it were UTC and declares it
    ``timestamp-millis`` (§4.3); decoded as declared it becomes a UTC datetime that every user
    turns back into those millis (`creation_time_millis`), at about a microsecond per entry, a
    tenth of decoding it. The bytes are the same long either way.

    >>> from paimon_sql.format.avro_schemas import MANIFEST_ENTRY_SCHEMA
    >>> plain = plain_creation_time(MANIFEST_ENTRY_SCHEMA)
    >>> _time_field(plain)["type"]
    ['null', 'long']
    >>> plain_creation_time(plain) is None
    True
    """
    edited = copy.deepcopy(schema)
    field = _time_field(edited)
    if field is None:
        return None
    declared = field["type"]
    if isinstance(declared, list):
        field["type"] = ["long" if t == _MILLIS else t for t in declared]
    elif declared == _MILLIS:
        field["type"] = "long"
    return None if field["type"] == declared else edited


_MILLIS = {"type": "long", "logicalType": "timestamp-millis"}


def _time_field(schema: Any) -> dict[str, Any] | None:
    """The ``_CREATION_TIME`` field of a manifest schema's ``_FILE`` record, if it has one."""
    entry = _branch(schema)
    file_field = None if entry is None else _field(entry[0], "_FILE")
    file_record = None if file_field is None else _branch(file_field.get("type"))
    return None if file_record is None else _field(file_record[0], "_CREATION_TIME")


def _field(record: dict[str, Any], name: str) -> dict[str, Any] | None:
    fields = record.get("fields") if record.get("type") == "record" else None
    if not isinstance(fields, list):
        return None
    return next((f for f in fields if isinstance(f, dict) and f.get("name") == name), None)


def entries_from_records(records: Iterable[Mapping[str, Any]], schema: Any) -> list[ManifestEntry]:
    """The `ManifestEntry` of each record of one manifest whose Avro writer schema is `schema`.

    `schema` None (an ORC or Parquet manifest) or one that does not prove the field types
    (`avro_schema_proves`): every record is checked by `manifest_entry_from_record`.

    Raises:
        SpecViolationError: as `manifest_entry_from_record`, for the first bad record.
    """
    if schema is None or not avro_schema_proves(schema):
        return [manifest_entry_from_record(r) for r in records]
    partitions: dict[bytes, bytes] = {}
    stats: dict[tuple[Any, ...], SimpleStats] = {}
    out = []
    for rec in records:
        try:
            entry = _entry(rec, partitions, stats)
        except (KeyError, TypeError, AttributeError):  # a missing field or a null record
            entry = None
        out.append(entry or manifest_entry_from_record(rec))
    return out


def _setters(cls: type, names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The slot setters of the frozen dataclass `cls`, whose fields must be `names`, in order.

    An object built with them (`object.__new__`, then each setter) equals the one its
    ``__init__`` builds (none of these classes checks anything there), at a third of the cost:
    a frozen ``__init__`` sets each field through ``object.__setattr__``. A field added to the
    class and not here fails on import.
    """
    fields = tuple(f.name for f in dataclasses.fields(cls))
    if fields != tuple(names.split()):
        raise AssertionError(f"{cls.__name__} has the fields {fields}: update manifest_bulk")
    return tuple(getattr(cls, name).__set__ for name in fields)


_new = object.__new__
_set_min_values, _set_max_values, _set_null_counts = _setters(
    SimpleStats, "min_values max_values null_counts"
)
_set_kind, _set_partition, _set_bucket, _set_total_buckets, _set_file = _setters(
    ManifestEntry, "kind partition bucket total_buckets file"
)
(
    _set_file_name,
    _set_file_size,
    _set_row_count,
    _set_min_key,
    _set_max_key,
    _set_key_stats,
    _set_value_stats,
    _set_min_sequence_number,
    _set_max_sequence_number,
    _set_schema_id,
    _set_level,
    _set_extra_files,
    _set_creation_time,
    _set_delete_row_count,
    _set_embedded_index,
    _set_file_source,
    _set_value_stats_cols,
    _set_external_path,
    _set_first_row_id,
    _set_write_cols,
) = _setters(
    DataFileMeta,
    "file_name file_size row_count min_key max_key key_stats value_stats min_sequence_number "
    "max_sequence_number schema_id level extra_files creation_time delete_row_count "
    "embedded_index file_source value_stats_cols external_path first_row_id write_cols",
)


def _stats(rec: Mapping[str, Any], shared: dict[tuple[Any, ...], SimpleStats]) -> SimpleStats:
    """`SimpleStats` of a checked stats record.

    Stats over no columns (an append table's key stats) are one object per manifest; interning
    all stats would cost more than it saves (a file's value stats are its own).
    """
    counts = rec.get("_NULL_COUNTS")
    lows, highs = rec["_MIN_VALUES"], rec["_MAX_VALUES"]
    key = None
    if not counts:
        key = (lows, highs, counts is None)
        found = shared.get(key)
        if found is not None:
            return found
    stats = _new(SimpleStats)
    _set_min_values(stats, lows)
    _set_max_values(stats, highs)
    _set_null_counts(stats, None if counts is None else tuple(counts))
    if key is not None:
        shared[key] = stats
    return stats


def _entry(
    rec: Mapping[str, Any],
    partitions: dict[bytes, bytes],
    stats: dict[tuple[Any, ...], SimpleStats],
) -> ManifestEntry | None:
    """One record whose types the schema proved; None when a value check fails."""
    f = rec["_FILE"]
    name = f["_FILE_NAME"]
    kind = rec["_KIND"]
    source = f.get("_FILE_SOURCE")
    if (
        rec["_VERSION"] != 2
        or kind not in (0, 1)
        or f["_FILE_SIZE"] < 0
        or f["_ROW_COUNT"] < 0
        or f["_SCHEMA_ID"] < 0
        or f["_LEVEL"] < 0
        or source not in _SOURCES
        or not name
        or "/" in name
        or "\\" in name
        or name in (".", "..")
    ):
        return None
    data_file = _data_file(f, name, _SOURCES[source], stats)
    part = rec["_PARTITION"]
    entry = _new(ManifestEntry)
    _set_kind(entry, _KINDS[kind])
    _set_partition(entry, partitions.setdefault(part, part))
    _set_bucket(entry, rec["_BUCKET"])
    _set_total_buckets(entry, rec["_TOTAL_BUCKETS"])
    _set_file(entry, data_file)
    return entry


def _data_file(
    f: Mapping[str, Any],
    name: str,
    source: FileSource | None,
    stats: dict[tuple[Any, ...], SimpleStats],
) -> DataFileMeta:
    """The `DataFileMeta` of a checked ``_FILE`` record."""
    cols, write_cols = f.get("_VALUE_STATS_COLS"), f.get("_WRITE_COLS")
    out = _new(DataFileMeta)
    _set_file_name(out, name)
    _set_file_size(out, f["_FILE_SIZE"])
    _set_row_count(out, f["_ROW_COUNT"])
    _set_min_key(out, f["_MIN_KEY"])
    _set_max_key(out, f["_MAX_KEY"])
    _set_key_stats(out, _stats(f["_KEY_STATS"], stats))
    _set_value_stats(out, _stats(f["_VALUE_STATS"], stats))
    _set_min_sequence_number(out, f["_MIN_SEQUENCE_NUMBER"])
    _set_max_sequence_number(out, f["_MAX_SEQUENCE_NUMBER"])
    _set_schema_id(out, f["_SCHEMA_ID"])
    _set_level(out, f["_LEVEL"])
    _set_extra_files(out, tuple(f["_EXTRA_FILES"]))
    _set_creation_time(out, f.get("_CREATION_TIME"))
    _set_delete_row_count(out, f.get("_DELETE_ROW_COUNT"))
    _set_embedded_index(out, f.get("_EMBEDDED_FILE_INDEX"))
    _set_file_source(out, source)
    _set_value_stats_cols(out, None if cols is None else tuple(cols))
    _set_external_path(out, f.get("_EXTERNAL_PATH"))
    _set_first_row_id(out, f.get("_FIRST_ROW_ID"))
    _set_write_cols(out, None if write_cols is None else tuple(write_cols))
    return out
