"""Paimon's system tables (``t$snapshots``, ``t$files``, ...) and global ``sys`` tables as Arrow.

Column names, order, types, nullability and value spellings follow Java's
``org.apache.paimon.table.system`` classes as shipped in **Paimon 0.9** (the version the Spark
oracle runs; every 0.9 table here was compared value by value with Spark's output;
tests/interop/test_system_tables_spark.py keeps doing so). ``$buckets``, ``$table_indexes``,
``sys.tables`` and ``sys.partitions`` do not exist in 0.9 and follow the later Java definitions.
Java renders some values as text, and the spellings are copied on purpose: ``$files.partition`` is
``[v1, v2]`` (``Arrays.toString`` of the internal values, so a DATE is its epoch day), stats are
``{col=value, ...}`` sorted by column name, options come in ``java.util.HashMap`` order, and
timestamps are the local wall-clock time (``ZoneId.systemDefault()``).

Pure code: rows come from metadata files through `Table` (no DuckDB, no SQL). Wiring into SQL is
the session's job:

* ``"db"."t$<name>"``: split the name with `split_system_name`, load ``t``, then call
  ``system_table(table, name, snapshot)``; pass the time-travel snapshot (``VERSION AS OF`` /
  ``scan.snapshot-id``) for ``files``, ``manifests``, ``partitions``, ``buckets``,
  ``table_indexes``, ``audit_log`` and ``ro`` (they then use that snapshot's schema, as Java does).
  The result is a complete ``pyarrow.Table``, so it can be registered as a DuckDB view.
* ``audit_log`` and ``ro`` (`DATA_TABLES`) hold the table's rows: `system_table` hands them to its
  ``read_data`` callable (`paimon_sql.sql.data_tables.read_data_table` reads them on DuckDB).
* ``sys.tables`` / ``sys.partitions`` / ``sys.all_table_options``: ``catalog_table(catalog, name)``.

>>> "files" in SYSTEM_TABLES, "tables" in CATALOG_TABLES
(True, True)
>>> split_system_name("orders$snapshots")
('orders', 'snapshots')
>>> split_system_name("orders")
('orders', None)
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import struct
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.catalog import names
from paimon_sql.catalog.catalog import Identifier
from paimon_sql.catalog.table import Table
from paimon_sql.errors import TableNotFoundError, UnsupportedFeatureError
from paimon_sql.format.binary_row import decode_row, row_arity
from paimon_sql.format.manifest import FileKind
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.format.partition import PartitionLayout
from paimon_sql.format.snapshot import Snapshot
from paimon_sql.types import field_to_json, type_sql

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from paimon_sql.catalog.catalog import Catalog
    from paimon_sql.format.manifest import DataFileMeta, ManifestEntry
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.types import DataType

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DATE = datetime.date(1970, 1, 1)

_DV_RANGE = pa.struct(
    [
        pa.field("f0", pa.string(), False),
        pa.field("f1", pa.int32(), False),
        pa.field("f2", pa.int32(), False),
        pa.field("_CARDINALITY", pa.int64(), True),
    ]
)
_TYPES: dict[str, pa.DataType] = {
    "BIGINT": pa.int64(),
    "INT": pa.int32(),
    "STRING": pa.string(),
    "BOOLEAN": pa.bool_(),
    "TIMESTAMP(3)": pa.timestamp("ms"),
    "ARRAY<ROW<f0, f1, f2, _CARDINALITY>>": pa.list_(_DV_RANGE),
}


def _schema(spec: str) -> pa.Schema:
    """An Arrow schema from Java's column list, e.g. ``"a BIGINT NOT NULL; b STRING"``.

    >>> _schema("a BIGINT NOT NULL; b TIMESTAMP(3)")
    a: int64 not null
    b: timestamp[ms]
    """
    fields = []
    for column in spec.split(";"):
        name, _, text = column.strip().partition(" ")
        nullable = not text.endswith(" NOT NULL")
        fields.append(pa.field(name, _TYPES[text.removesuffix(" NOT NULL")], nullable))
    return pa.schema(fields)


SCHEMAS: Mapping[str, pa.Schema] = {
    "snapshots": _schema(
        "snapshot_id BIGINT NOT NULL; schema_id BIGINT NOT NULL; commit_user STRING NOT NULL;"
        "commit_identifier BIGINT NOT NULL; commit_kind STRING NOT NULL;"
        "commit_time TIMESTAMP(3) NOT NULL; base_manifest_list STRING NOT NULL;"
        "delta_manifest_list STRING NOT NULL; changelog_manifest_list STRING;"
        "total_record_count BIGINT; delta_record_count BIGINT; changelog_record_count BIGINT;"
        "watermark BIGINT"
    ),
    "schemas": _schema(
        "schema_id BIGINT NOT NULL; fields STRING NOT NULL; partition_keys STRING NOT NULL;"
        "primary_keys STRING NOT NULL; options STRING NOT NULL; comment STRING;"
        "update_time TIMESTAMP(3) NOT NULL"
    ),
    "options": _schema("key STRING NOT NULL; value STRING NOT NULL"),
    "tags": _schema(
        "tag_name STRING NOT NULL; snapshot_id BIGINT NOT NULL; schema_id BIGINT NOT NULL;"
        "commit_time TIMESTAMP(3) NOT NULL; record_count BIGINT; create_time TIMESTAMP(3);"
        "time_retained STRING"
    ),
    "files": _schema(
        "partition STRING; bucket INT NOT NULL; file_path STRING NOT NULL;"
        "file_format STRING NOT NULL; schema_id BIGINT NOT NULL; level INT NOT NULL;"
        "record_count BIGINT NOT NULL; file_size_in_bytes BIGINT NOT NULL; min_key STRING;"
        "max_key STRING; null_value_counts STRING NOT NULL; min_value_stats STRING NOT NULL;"
        "max_value_stats STRING NOT NULL; min_sequence_number BIGINT;"
        "max_sequence_number BIGINT; creation_time TIMESTAMP(3)"
    ),
    "manifests": _schema(
        "file_name STRING NOT NULL; file_size BIGINT NOT NULL; num_added_files BIGINT NOT NULL;"
        "num_deleted_files BIGINT NOT NULL; schema_id BIGINT NOT NULL"
    ),
    "partitions": _schema(
        "partition STRING; record_count BIGINT NOT NULL; file_size_in_bytes BIGINT NOT NULL;"
        "file_count BIGINT NOT NULL; last_update_time TIMESTAMP(3)"
    ),
    "buckets": _schema(
        "partition STRING; bucket INT NOT NULL; record_count BIGINT NOT NULL;"
        "file_size_in_bytes BIGINT NOT NULL; file_count BIGINT NOT NULL;"
        "last_update_time TIMESTAMP(3)"
    ),
    "table_indexes": _schema(
        "partition STRING; bucket INT NOT NULL; index_type STRING NOT NULL;"
        "file_name STRING NOT NULL; file_size BIGINT NOT NULL; row_count BIGINT NOT NULL;"
        "dv_ranges ARRAY<ROW<f0, f1, f2, _CARDINALITY>>"
    ),
    "consumers": _schema("consumer_id STRING NOT NULL; next_snapshot_id BIGINT NOT NULL"),
    "branches": _schema(
        "branch_name STRING NOT NULL; created_from_tag STRING; created_from_snapshot BIGINT;"
        "create_time TIMESTAMP(3) NOT NULL"
    ),
    "statistics": _schema(
        "snapshot_id BIGINT NOT NULL; schema_id BIGINT NOT NULL; mergedRecordCount BIGINT;"
        "mergedRecordSize BIGINT; colstat STRING"
    ),
    "aggregation_fields": _schema(
        "field_name STRING NOT NULL; field_type STRING NOT NULL; function STRING;"
        "function_options STRING; comment STRING"
    ),
}

CATALOG_SCHEMAS: Mapping[str, pa.Schema] = {
    "tables": _schema(
        "database_name STRING; table_name STRING; table_type STRING; partitioned BOOLEAN;"
        "primary_key BOOLEAN; owner STRING; created_at BIGINT; created_by STRING;"
        "updated_at BIGINT; updated_by STRING; record_count BIGINT; file_size_in_bytes BIGINT;"
        "file_count BIGINT; last_file_creation_time BIGINT"
    ),
    "partitions": _schema(
        "database_name STRING; table_name STRING; partition_name STRING; recordCount BIGINT;"
        "fileSizeInBytes BIGINT; fileCount BIGINT; lastFileCreationTime BIGINT; done BOOLEAN"
    ),
    "all_table_options": _schema(
        "database_name STRING; table_name STRING; key STRING; value STRING"
    ),
}

DATA_TABLES = ("audit_log", "ro", "row_tracking")
SYSTEM_TABLES: tuple[str, ...] = (*SCHEMAS, *DATA_TABLES)
CATALOG_TABLES: tuple[str, ...] = tuple(CATALOG_SCHEMAS)


def split_system_name(name: str) -> tuple[str, str | None]:
    """``t$files`` → ``('t', 'files')``; a plain name → ``(name, None)``; unknown suffixes raise.

    >>> split_system_name("t$nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    paimon_sql.errors.TableNotFoundError: unknown system table 'nope' ...
    """
    base, sep, suffix = name.partition(names.SYSTEM_TABLE_SPLITTER)
    if not sep:
        return name, None
    _check(suffix.lower(), SYSTEM_TABLES)
    return base, suffix.lower()


def _check(name: str, valid: Sequence[str]) -> None:
    if name not in valid:
        raise TableNotFoundError(f"unknown system table {name!r} (valid: {', '.join(valid)})")


# --- Java's toString of internal values ---------------------------------------------------------


def java_double(x: float, single: bool = False) -> str:
    """``Double.toString`` (``Float.toString`` when `single`): shortest digits, E outside 1e-3..1e7.

    >>> java_double(1.0), java_double(1e10), java_double(0.00015), java_double(0.1, single=True)
    ('1.0', '1.0E10', '1.5E-4', '0.1')
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    digits = decimal.Decimal(_shortest_float32(x) if single else repr(float(x)))
    if 1e-3 <= abs(x) < 1e7:
        plain = format(digits, "f")
        return plain if "." in plain else plain + ".0"
    exponent = digits.adjusted()
    mantissa = format(digits.scaleb(-exponent).normalize(), "f")
    return (mantissa if "." in mantissa else mantissa + ".0") + f"E{exponent}"


def _shortest_float32(x: float) -> str:
    target = struct.unpack("<f", struct.pack("<f", x))[0]
    for precision in range(1, 10):
        text = f"{target:.{precision}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == target:
            return text
    return repr(target)


def _java_local_date_time(value: datetime.datetime) -> str:
    """``LocalDateTime.toString``: seconds only when non-zero, fractions in groups of 3 digits."""
    text = value.strftime("%Y-%m-%dT%H:%M")
    if value.second or value.microsecond:
        text += f":{value.second:02d}"
    if value.microsecond:
        frac = f"{value.microsecond:06d}"
        text += "." + (frac[:3] if frac.endswith("000") else frac)
    return text


def java_value_string(value: Any, t: DataType) -> str:
    """Java's ``toString`` of Paimon's *internal* value (as ``Arrays.toString`` prints it).

    >>> from paimon_sql.types import parse_type
    >>> java_value_string(datetime.date(2024, 1, 2), parse_type("DATE"))
    '19724'
    >>> java_value_string(None, parse_type("INT")), java_value_string(True, parse_type("BOOLEAN"))
    ('null', 'true')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value, single=t.root == "FLOAT")
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, datetime.datetime):
        return _java_local_date_time(value.replace(tzinfo=None))
    if isinstance(value, datetime.date):
        return str((value - _EPOCH_DATE).days)
    if isinstance(value, datetime.time):
        return str(
            ((value.hour * 60 + value.minute) * 60 + value.second) * 1000
            + value.microsecond // 1000
        )
    if isinstance(value, bytes):
        return value.hex()  # Java prints byte[]'s identity hash here, which nobody can reproduce
    return str(value)


def _java_list(values: Iterable[Any], types: Sequence[DataType]) -> str:
    return (
        "[" + ", ".join(java_value_string(v, t) for v, t in zip(values, types, strict=True)) + "]"
    )


def _java_string_hash(text: str) -> int:
    h = 0
    raw = text.encode("utf-16-be")
    for i in range(0, len(raw), 2):
        h = (31 * h + int.from_bytes(raw[i : i + 2], "big")) & 0xFFFFFFFF
    return h


def java_hash_map_order(keys: Sequence[str]) -> list[str]:
    """The iteration order of a ``java.util.HashMap`` (default capacity) filled with `keys`.

    >>> java_hash_map_order(["bucket", "fields.v.aggregate-function", "merge-engine"])
    ['bucket', 'merge-engine', 'fields.v.aggregate-function']
    """
    capacity = 16
    while len(keys) > capacity * 0.75:
        capacity *= 2

    def slot(key: str) -> int:
        h = _java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=slot)  # stable: a bucket keeps insertion order


def _java_duration(seconds: float) -> str:
    """``java.time.Duration.toString``, e.g. ``PT1H30M`` or ``PT5S``."""
    total = decimal.Decimal(str(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    text = "PT" + (f"{int(hours)}H" if hours else "") + (f"{int(minutes)}M" if minutes else "")
    if secs or text == "PT":
        text += format(secs.normalize(), "f") + "S"
    return text


def local_time(millis: int) -> datetime.datetime:
    """Epoch millis as the naive local wall-clock time (Java's ``ZoneId.systemDefault()``)."""
    seconds, ms = divmod(millis, 1000)
    return datetime.datetime.fromtimestamp(seconds) + datetime.timedelta(milliseconds=ms)


def _creation_time(f: DataFileMeta) -> datetime.datetime | None:
    """``_CREATION_TIME`` is local wall-clock time stored as if UTC (§4.3): read it back naive."""
    value = f.creation_time
    if value is None:
        return None
    if isinstance(value, int):
        return _EPOCH + datetime.timedelta(milliseconds=value)
    if value.tzinfo is not None:
        value = value.astimezone(datetime.UTC).replace(tzinfo=None)
    return value


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _arrow(
    name: str, rows: list[dict[str, Any]], schemas: Mapping[str, pa.Schema] = SCHEMAS
) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=schemas[name])


# --- table metadata -------------------------------------------------------------------------------


def _snapshots(table: Table) -> list[dict[str, Any]]:
    rows = []
    for snapshot_id in table.snapshot_ids():
        s = table.snapshot(snapshot_id)
        rows.append(
            {
                "snapshot_id": s.id,
                "schema_id": s.schema_id,
                "commit_user": s.commit_user,
                "commit_identifier": s.commit_identifier,
                "commit_kind": s.commit_kind.value,
                "commit_time": local_time(s.time_millis),
                "base_manifest_list": s.base_manifest_list,
                "delta_manifest_list": s.delta_manifest_list,
                "changelog_manifest_list": s.changelog_manifest_list,
                "total_record_count": s.total_record_count,
                "delta_record_count": s.delta_record_count,
                "changelog_record_count": s.changelog_record_count,
                "watermark": s.watermark,
            }
        )
    return rows


def _ordered_options(schema: TableSchema) -> list[tuple[str, str]]:
    return [(k, schema.options[k]) for k in java_hash_map_order(list(schema.options))]


def _schemas(table: Table) -> list[dict[str, Any]]:
    rows = []
    for schema_id in table.schema_ids():
        s = table.schema(schema_id)
        rows.append(
            {
                "schema_id": s.id,
                "fields": _json([field_to_json(f) for f in s.fields]),
                "partition_keys": _json(list(s.partition_keys)),
                "primary_keys": _json(list(s.primary_keys)),
                "options": _json(dict(_ordered_options(s))),
                "comment": s.comment,
                "update_time": local_time(s.time_millis),
            }
        )
    return rows


def _options(table: Table) -> list[dict[str, Any]]:
    return [{"key": k, "value": v} for k, v in _ordered_options(table.latest_schema)]


def _tags(table: Table) -> list[dict[str, Any]]:
    rows = []
    for name in table.tag_names():
        tag = table.tag(name)
        retained = tag.tag_time_retained_seconds
        rows.append(
            {
                "tag_name": name,
                "snapshot_id": tag.id,
                "schema_id": tag.schema_id,
                "commit_time": local_time(tag.time_millis),
                "record_count": tag.total_record_count,
                "create_time": tag.tag_create_time,
                "time_retained": None if retained is None else _java_duration(retained),
            }
        )
    return rows


def _consumers(table: Table) -> list[dict[str, Any]]:
    folder = table.meta("consumer")
    rows = []
    for name in sorted(table.fileio.list_names(folder)):
        if not name.startswith("consumer-"):
            continue
        data = json.loads(table.fileio.read_text(table.fileio.join(folder, name)))
        rows.append(
            {"consumer_id": name[len("consumer-") :], "next_snapshot_id": data["nextSnapshot"]}
        )
    return rows


def _branches(table: Table) -> list[dict[str, Any]]:
    """``branch/branch-<name>``: the earliest tag a branch holds is the one it was created from.

    ``create_time`` is the folder's modification time (Java's ``FileStatus.getModificationTime``).
    """
    folder = table.sub("branch")
    rows = []
    for name in table.fileio.list_names(folder):
        if not name.startswith("branch-"):
            continue
        branch = table.branch_table(name[len("branch-") :])
        tagged = sorted((branch.tag(t).id, t) for t in branch.tag_names())
        millis = _folder_millis(table, table.fileio.join(folder, name))
        rows.append(
            {
                "branch_name": branch.branch,
                "created_from_tag": tagged[0][1] if tagged else None,
                "created_from_snapshot": tagged[0][0] if tagged else None,
                "create_time": local_time(millis),
            }
        )
    return rows


def _folder_millis(table: Table, folder: str) -> int:
    """A folder's modification time; on an object store (no folders) its oldest schema file's."""
    millis = table.fileio.modified_millis(folder)
    if millis is None:
        files = table.fileio.list_files(table.fileio.join(folder, "schema"))
        millis = min((m for _, m in files), default=0)
    return millis


def _statistics(
    table: Table, snapshot: Snapshot | None, schema: TableSchema
) -> list[dict[str, Any]]:
    """The snapshot's ``statistics/`` file (``ANALYZE TABLE``); ``colstat`` as Jackson prints it."""
    if snapshot is None or not snapshot.statistics:
        return []
    what = f"statistics file of table {table.name}"
    name = names.validate_file_name(snapshot.statistics, what=what)
    stats = json.loads(table.fileio.read_text(table.sub("statistics", name)))
    columns = stats.get("colStats")
    colstat = None
    if columns is not None:  # Jackson's default pretty printer: 2 spaces, " : ", "{ }" if empty
        colstat = json.dumps(columns, indent=2, separators=(",", " : ")) if columns else "{ }"
    return [
        {
            "snapshot_id": stats["snapshotId"],
            "schema_id": stats["schemaId"],
            "mergedRecordCount": stats.get("mergedRecordCount"),
            "mergedRecordSize": stats.get("mergedRecordSize"),
            "colstat": colstat,
        }
    ]


def _field_options(options: Mapping[str, str]) -> dict[str, list[tuple[str, str]]]:
    r"""``fields.<name>.<x>`` options per field in HashMap order (``split("\.")``, > 2 parts)."""
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key in java_hash_map_order(list(options)):
        parts = key.split(".")
        while parts and not parts[-1]:
            parts.pop()
        if len(parts) > 2 and parts[0] == "fields":
            out[parts[1]].append((key, options[key]))
    return out


def _aggregation_fields(table: Table) -> list[dict[str, Any]]:
    schema = table.latest_schema
    per_field = _field_options(schema.options)
    rows = []
    for f in schema.fields:
        pairs = per_field.get(f.name, [])
        rows.append(
            {
                "field_name": f.name,
                "field_type": type_sql(f.type),
                "function": "[" + ", ".join(v for _, v in pairs) + "]",
                "function_options": "[" + ", ".join(k for k, _ in pairs) + "]",
                "comment": f.description,
            }
        )
    return rows


# --- snapshot contents ----------------------------------------------------------------------------


def _manifest_metas(table: Table, snapshot: Snapshot | None) -> list[Any]:
    return table.data_manifests(snapshot)


def live_entries(table: Table, snapshot: Snapshot | None) -> list[ManifestEntry]:
    """Every live data file of `snapshot`, all levels and buckets (§4.5: ADD/DELETE by identity)."""
    live: dict[tuple[Any, ...], ManifestEntry] = {}
    for meta in _manifest_metas(table, snapshot):
        for entry in table.manifest(meta.file_name):
            if entry.kind is FileKind.ADD:
                live[entry.identifier] = entry
            else:
                live.pop(entry.identifier, None)
    return list(live.values())


def _manifests(
    table: Table, snapshot: Snapshot | None, schema: TableSchema
) -> list[dict[str, Any]]:
    """Base, delta and changelog manifests (Java's ``readAllManifests``; checked with Spark 0.9)."""
    metas = _manifest_metas(table, snapshot)
    if snapshot is not None and snapshot.changelog_manifest_list:
        metas += table.manifest_list(snapshot.changelog_manifest_list)
    return [
        {
            "file_name": m.file_name,
            "file_size": m.file_size,
            "num_added_files": m.num_added_files,
            "num_deleted_files": m.num_deleted_files,
            "schema_id": m.schema_id,
        }
        for m in metas
    ]


class _Renderer:
    """Decodes partitions, keys and value stats of a table the way Java's ``$files`` prints them."""

    def __init__(self, table: Table, schema: TableSchema | None = None) -> None:
        self.table = table
        self.schema = table.latest_schema if schema is None else schema
        self.part_types = [self.schema.field(k).type for k in self.schema.partition_keys]

    def partition_values(self, data: bytes) -> tuple[Any, ...]:
        return decode_row(data, self.part_types) if self.part_types else ()

    def partition(self, data: bytes) -> str:
        """``Arrays.toString`` of the partition's internal values: ``[2024-01-01]``, or ``[]``."""
        return _java_list(self.partition_values(data), self.part_types)

    def key(self, data: bytes, schema_id: int) -> str | None:
        if row_arity(data) <= 0:
            return None
        file_schema = self.table.schema(schema_id)
        types = [file_schema.field(k).type for k in file_schema.trimmed_primary_keys]
        return _java_list(decode_row(data, types), types)

    def value_stats(self, f: DataFileMeta) -> tuple[str, str, str]:
        """``null_value_counts``, ``min_value_stats`` and ``max_value_stats`` of the columns."""
        file_schema = self.table.schema(f.schema_id)
        names = f.value_stats_cols if f.value_stats_cols is not None else file_schema.field_names
        types = [file_schema.field(n).type for n in names]
        stats = f.value_stats
        known = row_arity(stats.min_values) == len(names)
        mins = decode_row(stats.min_values, types) if known else (None,) * len(names)
        maxs = decode_row(stats.max_values, types) if known else (None,) * len(names)
        counts = stats.null_counts or ()
        index = {file_schema.field(n).id: i for i, n in enumerate(names)}
        in_file = {fld.id for fld in file_schema.fields}
        nulls, lows, highs = {}, {}, {}
        for fld in self.schema.fields:
            i = index.get(fld.id)
            if i is None:  # absent from the file: all null; not collected: unknown
                nulls[fld.name] = "null" if fld.id in in_file else str(f.row_count)
                lows[fld.name] = highs[fld.name] = "null"
                continue
            nulls[fld.name] = "null" if i >= len(counts) or counts[i] is None else str(counts[i])
            lows[fld.name] = java_value_string(mins[i], types[i])
            highs[fld.name] = java_value_string(maxs[i], types[i])
        return _tree_map(nulls), _tree_map(lows), _tree_map(highs)


def _tree_map(values: Mapping[str, str]) -> str:
    """``TreeMap.toString``: keys sorted (UTF-16 order), ``{a=1, b=null}``."""
    keys = sorted(values, key=lambda k: k.encode("utf-16-be"))
    return "{" + ", ".join(f"{k}={values[k]}" for k in keys) + "}"


def _batch_visible(schema: TableSchema) -> Callable[[ManifestEntry], bool]:
    """The files Java's batch scan lists: no level 0 for deletion-vector and first-row tables.

    The rule of `paimon_sql.plan.scan`'s planner (read mode DELETION_VECTORS, or MERGE with the
    ``first-row`` engine), spelled on the options because the catalog sits below the planner.
    """
    options = CoreOptions(schema.options)
    dv_read = options.deletion_vectors and not options.deletion_vectors_merge_on_read
    first_row = options.merge_engine is MergeEngine.FIRST_ROW
    hide = bool(schema.primary_keys) and (dv_read or first_row)
    return lambda e: not (hide and e.file.level == 0)


def _files(table: Table, snapshot: Snapshot | None, schema: TableSchema) -> list[dict[str, Any]]:
    """Live files as Java's batch scan sees them (checked with Spark 0.9)."""
    render = _Renderer(table, schema)
    rows = []
    visible = _batch_visible(schema)
    entries = sorted(
        filter(visible, live_entries(table, snapshot)),
        key=lambda e: (e.partition, e.bucket, e.file.file_name),
    )
    for e in entries:
        f = e.file
        nulls, lows, highs = render.value_stats(f)
        rows.append(
            {
                "partition": render.partition(e.partition),
                "bucket": e.bucket,
                "file_path": f.file_name,  # Paimon 0.9 prints the bare name (later: the full path)
                "file_format": f.file_name.rsplit(".", 1)[-1],
                "schema_id": f.schema_id,
                "level": f.level,
                "record_count": f.row_count,
                "file_size_in_bytes": f.file_size,
                "min_key": render.key(f.min_key, f.schema_id),
                "max_key": render.key(f.max_key, f.schema_id),
                "null_value_counts": nulls,
                "min_value_stats": lows,
                "max_value_stats": highs,
                "min_sequence_number": f.min_sequence_number,
                "max_sequence_number": f.max_sequence_number,
                "creation_time": _creation_time(f),
            }
        )
    return rows


def _aggregate(
    entries: Iterable[ManifestEntry], key: Callable[[ManifestEntry], Any], *, signed: bool = False
) -> dict[Any, dict[str, Any]]:
    """Rows, bytes, files and the newest creation time per `key`; `signed`: a DELETE subtracts."""
    groups: dict[Any, dict[str, Any]] = {}
    for e in entries:
        sign = -1 if signed and e.kind is not FileKind.ADD else 1
        g = groups.setdefault(
            key(e),
            {"record_count": 0, "file_size_in_bytes": 0, "file_count": 0, "last_update_time": None},
        )
        g["record_count"] += sign * e.file.row_count
        g["file_size_in_bytes"] += sign * e.file.file_size
        g["file_count"] += sign
        created = _creation_time(e.file)
        if created is not None and (
            g["last_update_time"] is None or created > g["last_update_time"]
        ):
            g["last_update_time"] = created
    return groups


def _partitions(
    table: Table, snapshot: Snapshot | None, schema: TableSchema
) -> list[dict[str, Any]]:
    """Java's ``PartitionEntry`` merge over every manifest entry, not just the live files.

    An ADD counts +1 file and its rows and bytes, a DELETE -1 and minus them;
    ``last_update_time`` is the newest creation time of any entry, deleted files included;
    partitions left with no file are dropped. Every level counts (unlike ``$files``). Checked
    with Spark 0.9.
    """
    render = _Renderer(table, schema)
    entries = (e for m in _manifest_metas(table, snapshot) for e in table.manifest(m.file_name))
    groups = _aggregate(entries, lambda e: e.partition, signed=True)
    return [
        {"partition": render.partition(p), **g}
        for p, g in sorted(groups.items())
        if g["file_count"] > 0
    ]


def _buckets(table: Table, snapshot: Snapshot | None, schema: TableSchema) -> list[dict[str, Any]]:
    render = _Renderer(table, schema)
    groups = _aggregate(live_entries(table, snapshot), lambda e: (e.partition, e.bucket))
    return [
        {"partition": render.partition(p), "bucket": b, **g} for (p, b), g in sorted(groups.items())
    ]


def _row_cast_string(values: Sequence[Any], types: Sequence[DataType]) -> str:
    """Paimon's ROW → STRING cast (``{v1, v2}``); dates as ``yyyy-MM-dd`` (unlike ``$files``)."""
    parts = []
    for v, t in zip(values, types, strict=True):
        is_date = isinstance(v, datetime.date) and not isinstance(v, datetime.datetime)
        parts.append(v.isoformat() if is_date else java_value_string(v, t))
    return "{" + ", ".join(parts) + "}"


def _table_indexes(
    table: Table, snapshot: Snapshot | None, schema: TableSchema
) -> list[dict[str, Any]]:
    if snapshot is None or snapshot.index_manifest is None:
        return []
    render = _Renderer(table, schema)
    rows = []
    for e in table.index_manifest(snapshot.index_manifest):
        meta = e.index_file
        ranges = None
        if meta.dv_ranges is not None:
            ranges = [
                {
                    "f0": r.data_file_name,
                    "f1": r.offset,
                    "f2": r.length,
                    "_CARDINALITY": r.cardinality,
                }
                for r in meta.dv_ranges
            ]
        rows.append(
            {
                "partition": _row_cast_string(
                    render.partition_values(e.partition), render.part_types
                ),
                "bucket": e.bucket,
                "index_type": meta.index_type,
                "file_name": meta.file_name,
                "file_size": meta.file_size,
                "row_count": meta.row_count,
                "dv_ranges": ranges,
            }
        )
    return rows


def snapshot_schema(table: Table, snapshot: Snapshot | None) -> TableSchema:
    """The latest schema, or a time-travelled snapshot's own (Java's ``copy`` with its id)."""
    return table.latest_schema if snapshot is None else table.schema(snapshot.schema_id)


# --- entry points ---------------------------------------------------------------------------------

_PER_TABLE: Mapping[str, Callable[[Table], list[dict[str, Any]]]] = {
    "snapshots": _snapshots,
    "schemas": _schemas,
    "options": _options,
    "tags": _tags,
    "consumers": _consumers,
    "aggregation_fields": _aggregation_fields,
    "branches": _branches,
}
_PER_SNAPSHOT: Mapping[
    str, Callable[[Table, Snapshot | None, TableSchema], list[dict[str, Any]]]
] = {
    "files": _files,
    "manifests": _manifests,
    "partitions": _partitions,
    "buckets": _buckets,
    "table_indexes": _table_indexes,
    "statistics": _statistics,
}


#: Reads a data system table (``audit_log`` or ``ro``, the second argument) of a table at a
#: snapshot (None: the latest) into Arrow; the engine supplies it, this module never reads data.
DataTableReader = Callable[[Table, str, Snapshot | None], pa.Table]


def system_table(
    table: Table,
    name: str,
    snapshot: Snapshot | None = None,
    *,
    read_data: DataTableReader | None = None,
) -> pa.Table:
    """``<table>$<name>`` as an Arrow table with Java's column names, types and nullability.

    `snapshot` picks the version for ``files``, ``manifests``, ``partitions``, ``buckets``,
    ``table_indexes``, ``audit_log`` and ``ro`` (None: the latest; the data tables then read in that
    snapshot's schema); the other tables describe the whole table and ignore it. The data tables
    (`DATA_TABLES`) hold rows, which only `read_data` can read.

    >>> system_table(None, "nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    paimon_sql.errors.TableNotFoundError: unknown system table 'nope' (valid: snapshots, ...)
    """
    key = name.lower()
    _check(key, SYSTEM_TABLES)
    if key in _PER_TABLE:
        return _arrow(key, _PER_TABLE[key](table))
    if key in _PER_SNAPSHOT:
        chosen = snapshot if snapshot is not None else table.latest_snapshot()
        # time travel reads in the snapshot's own schema (Java's ``copy`` with ``scan.snapshot-id``)
        return _arrow(key, _PER_SNAPSHOT[key](table, chosen, snapshot_schema(table, snapshot)))
    if read_data is None:
        raise UnsupportedFeatureError(
            f"system table {key!r} holds the table's rows: it needs a reader"
        )
    return read_data(table, key, snapshot)


def _all_tables(catalog: Catalog) -> Iterable[tuple[str, str, Table]]:
    for database in sorted(catalog.databases()):
        for name in sorted(catalog.tables(database)):
            yield database, name, catalog.load_table(Identifier(database, name))


def _int(text: str | None) -> int | None:
    return None if text is None else int(text)


def _sys_tables(catalog: Catalog) -> list[dict[str, Any]]:
    """Filesystem catalogs have no REST audit fields or table statistics: null, as in Java."""
    rows = []
    for database, name, table in _all_tables(catalog):
        schema = table.latest_schema
        opts = schema.options
        rows.append(
            {
                "database_name": database,
                "table_name": name,
                "table_type": opts.get("type", "table"),
                "partitioned": bool(schema.partition_keys),
                "primary_key": bool(schema.primary_keys),
                "owner": opts.get("owner"),
                "created_at": _int(opts.get("createdAt")),
                "created_by": opts.get("createdBy"),
                "updated_at": _int(opts.get("updatedAt")),
                "updated_by": opts.get("updatedBy"),
            }
        )
    return rows


def _sys_partitions(catalog: Catalog) -> list[dict[str, Any]]:
    """One row per partition of every partitioned table (an unpartitioned one has no partition)."""
    rows = []
    for database, name, table in _all_tables(catalog):
        render = _Renderer(table)
        if not render.part_types:
            continue
        layout = PartitionLayout.of(table.latest_schema)
        groups = _aggregate(live_entries(table, table.latest_snapshot()), lambda e: e.partition)
        for part, g in sorted(groups.items()):
            last = g["last_update_time"]
            rows.append(
                {
                    "database_name": database,
                    "table_name": name,
                    "partition_name": layout.path(render.partition_values(part)),
                    "recordCount": g["record_count"],
                    "fileSizeInBytes": g["file_size_in_bytes"],
                    "fileCount": g["file_count"],
                    "lastFileCreationTime": None
                    if last is None
                    else round(last.timestamp() * 1000),
                    "done": False,
                }
            )
    return rows


def _sys_all_table_options(catalog: Catalog) -> list[dict[str, Any]]:
    rows = []
    for database, name, table in _all_tables(catalog):
        for key, value in _ordered_options(table.latest_schema):
            rows.append({"database_name": database, "table_name": name, "key": key, "value": value})
    return rows


_CATALOG: Mapping[str, Callable[[Catalog], list[dict[str, Any]]]] = {
    "tables": _sys_tables,
    "partitions": _sys_partitions,
    "all_table_options": _sys_all_table_options,
}


def catalog_table(catalog: Catalog, name: str) -> pa.Table:
    """A global table of the ``sys`` database: ``tables``, ``partitions`` or ``all_table_options``.

    >>> import tempfile
    >>> from paimon_sql.catalog import Catalog
    >>> catalog_table(Catalog(tempfile.mkdtemp()), "tables").num_rows
    0
    >>> catalog_table(Catalog(tempfile.mkdtemp()), "tables").schema.names[:5]
    ['database_name', 'table_name', 'table_type', 'partitioned', 'primary_key']
    """
    key = name.lower()
    _check(key, CATALOG_TABLES)
    return _arrow(key, _CATALOG[key](catalog), CATALOG_SCHEMAS)
