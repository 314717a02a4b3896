"""Writing one data file in Paimon's physical layout, and its `DataFileMeta`.

See paimon-format.md §1, §7.

Columns (§7, §13 item 2): primary-key tables ``_KEY_<k>`` per trimmed primary-key column (field id =
id + 1073741823), ``_SEQUENCE_NUMBER`` (BIGINT NOT NULL, id 2147483646), ``_VALUE_KIND`` (TINYINT
NOT NULL, id 2147483645), then every table column; append tables just the table columns. With
``data-file.thin-mode=true`` the ``_KEY_`` copies are left out.

Formats, as Java writes them:

* **Parquet** (pyarrow): every field carries ``PARQUET:field_id``; TINYINT/SMALLINT are INT32 with
  INT(8)/INT(16); DECIMAL p <= 9 INT32, <= 18 INT64, else FIXED_LEN_BYTE_ARRAY; TIMESTAMP p <= 3
  INT64 millis, <= 6 micros, > 6 INT96; LTZ is adjusted to UTC; lists are 3-level ``list/element``,
  maps ``key_value/key/value``; nested ids of list elements and map keys/values follow Java
  (536870911 +- 1024 * parent id +- depth). Not like Java: the root group is called ``schema``
  (pyarrow) instead of ``paimon_schema``; readers match columns by name/id.
* **ORC** (pyarrow): same columns, TIME as INT. pyarrow cannot set type attributes, so the
  ``paimon.id`` attribute Java writes is missing; Java and paimon_sql read ORC columns by name.
* **Avro** (fastavro): the schema of §4.1 as a plain top-level record, like Java 1.x's data files
  (0.9 wrapped it as ``["null", record]``); TIMESTAMP p > 6 is rejected as in Java.

>>> data_file_name("0f8c", 3, "parquet")
'data-0f8c-3.parquet'
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import SchemaError, UnsupportedFeatureError
from paimon_sql.format import file_index, format_options
from paimon_sql.format.binary_row import EMPTY_ROW, encode_row
from paimon_sql.format.manifest import EMPTY_STATS, DataFileMeta, FileSource
from paimon_sql.format.options import CoreOptions
from paimon_sql.io.arrays import arange
from paimon_sql.io.records import encode_avro
from paimon_sql.types import (
    RETRACT_KINDS,
    STRING_ROOTS,
    TIMESTAMP_ROOTS,
    DataType,
    RowKind,
    arrow_atomic_type,
)
from paimon_sql.write import avro_columns
from paimon_sql.write.stats import key_stats, value_stats

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from paimon_sql.format.file_index import IndexSpec
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.io.fileio import FileIO
    from paimon_sql.types import (
        DataField,
    )

SEQUENCE_NUMBER = "_SEQUENCE_NUMBER"
VALUE_KIND = "_VALUE_KIND"
KEY_PREFIX = "_KEY_"
KEY_FIELD_ID_START = 1073741823  # Integer.MAX_VALUE / 2
SEQUENCE_NUMBER_ID = 2147483646
VALUE_KIND_ID = 2147483645
_NESTED_ID_BASE = 536870911  # Integer.MAX_VALUE / 4
_RETRACT_KINDS = pa.array([int(k) for k in RETRACT_KINDS], pa.int8())
_FIELD_ID = b"PARQUET:field_id"

_DEFAULT_TARGET = {True: 128 << 20, False: 256 << 20}  # primary-key / append tables (§11)


def data_file_name(uuid: str, counter: int, fmt: str, prefix: str = "data-") -> str:
    """``<prefix><uuid>-<counter>.<fmt>`` (§1); the reader takes the format from the last suffix.

    >>> data_file_name("u", 0, "orc", prefix="changelog-")
    'changelog-u-0.orc'
    """
    return f"{prefix}{uuid}-{counter}.{fmt}"


# --- physical schema --------------------------------------------------------------------------


def arrow_field(name: str, t: DataType, field_id: int, depth: int = 1) -> pa.Field:
    """The Arrow field of a Paimon column, nullability and (nested) Parquet field ids included.

    >>> from paimon_sql.types import parse_type
    >>> f = arrow_field("tags", parse_type({"type": "ARRAY", "element": "INT"}), 7)
    >>> f.type.value_field.metadata[b"PARQUET:field_id"]
    b'536878080'
    """
    meta = {_FIELD_ID: str(field_id).encode()}
    return pa.field(name, _arrow_type(t, field_id, depth), nullable=t.nullable, metadata=meta)


def _arrow_type(t: DataType, field_id: int, depth: int) -> pa.DataType:
    atomic = arrow_atomic_type(t)
    if atomic is not None:
        return atomic
    up, down = _NESTED_ID_BASE + 1024 * field_id + depth, _NESTED_ID_BASE - 1024 * field_id - depth
    if t.root == "ARRAY":
        assert t.element is not None
        return pa.list_(arrow_field("element", t.element, up, depth + 1))
    if t.root in ("MAP", "MULTISET"):
        key = t.key if t.root == "MAP" else t.element
        value = t.value if t.root == "MAP" else DataType(root="INT", nullable=False)
        assert key is not None
        assert value is not None
        key_field = arrow_field("key", key.with_nullable(False), down, depth + 1)
        return pa.map_(key_field, arrow_field("value", value, up, depth + 1))
    if t.root == "ROW":
        return pa.struct([arrow_field(f.name, f.type, f.id) for f in t.fields])
    raise UnsupportedFeatureError(f"writing {t.root} columns is not supported")


def key_fields(schema: TableSchema) -> tuple[DataField, ...]:
    """The trimmed primary-key fields (the file key), in key order."""
    return tuple(schema.field(k) for k in schema.trimmed_primary_keys)


def _thin(options: Mapping[str, str]) -> bool:
    return CoreOptions(options).flag("data-file.thin-mode")


def physical_fields(
    schema: TableSchema, options: Mapping[str, str] | None = None
) -> list[tuple[str, DataType, int]]:
    """(name, type, field id) of each column of a data file of `schema`'s table, in file order.

    See paimon-format.md §7.
    """
    opts = {**schema.options, **(options or {})}
    out: list[tuple[str, DataType, int]] = []
    if schema.primary_keys:
        if not _thin(opts):
            for f in key_fields(schema):
                out.append((KEY_PREFIX + f.name, f.type, f.id + KEY_FIELD_ID_START))
        out.append((SEQUENCE_NUMBER, DataType(root="BIGINT", nullable=False), SEQUENCE_NUMBER_ID))
        out.append((VALUE_KIND, DataType(root="TINYINT", nullable=False), VALUE_KIND_ID))
    out.extend((f.name, f.type, f.id) for f in schema.fields)
    return out


def physical_schema(schema: TableSchema, options: Mapping[str, str] | None = None) -> pa.Schema:
    """The Arrow schema of a data file of `schema`'s table (§7), with field ids.

    >>> from paimon_sql.format.schema import schema_from_json
    >>> import json
    >>> s = schema_from_json(json.dumps({"version": 3, "id": 0, "fields": [
    ...     {"id": 0, "name": "k", "type": "INT NOT NULL"},
    ...     {"id": 1, "name": "v", "type": "STRING"}],
    ...     "highestFieldId": 1, "primaryKeys": ["k"], "options": {}}))
    >>> physical_schema(s).names
    ['_KEY_k', '_SEQUENCE_NUMBER', '_VALUE_KIND', 'k', 'v']
    """
    return pa.schema([arrow_field(n, t, i) for n, t, i in physical_fields(schema, options)])


def _column(table: pa.Table, name: str, field: pa.Field) -> pa.ChunkedArray:
    if name not in table.column_names:
        raise SchemaError(f"data for the data file lacks column {name!r}")
    column = table.column(name)
    try:
        column = column.cast(field.type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
        raise SchemaError(f"column {name!r} cannot be written as {field.type}: {err}") from err
    if not field.nullable and column.null_count:
        raise SchemaError(f"column {name!r} is NOT NULL but holds {column.null_count} nulls")
    return column


def _system_columns(table: pa.Table, first_sequence_number: int | None) -> dict[str, pa.Array]:
    """``_SEQUENCE_NUMBER`` / ``_VALUE_KIND`` from `table`, else consecutive numbers and +I."""
    out: dict[str, Any] = {}
    if SEQUENCE_NUMBER not in table.column_names:
        if first_sequence_number is None:
            raise ValueError("no _SEQUENCE_NUMBER column: pass first_sequence_number")
        start = first_sequence_number
        out[SEQUENCE_NUMBER] = arange(table.num_rows, start)
    if VALUE_KIND not in table.column_names:
        out[VALUE_KIND] = pa.array([int(RowKind.INSERT)] * table.num_rows, pa.int8())
    return out


def physical_table(
    table: pa.Table,
    schema: TableSchema,
    *,
    first_sequence_number: int | None = None,
    options: Mapping[str, str] | None = None,
) -> pa.Table:
    """`table` in the file layout.

    `table` holds the table columns by name, optionally ``_SEQUENCE_NUMBER``/``_VALUE_KIND``;
    ``_KEY_<k>`` columns are copies of the key columns.
    """
    target = physical_schema(schema, options)
    source = table
    if schema.primary_keys:
        extra = _system_columns(table, first_sequence_number)
        for name, values in extra.items():
            source = source.append_column(name, values)
    columns = []
    for field in target:
        name = field.name
        if name.startswith(KEY_PREFIX) and name not in source.column_names:
            name = name[len(KEY_PREFIX) :]
        columns.append(_column(source, name, field))
    return pa.Table.from_arrays(columns, schema=target)


# --- formats ---------------------------------------------------------------------------------


def _timestamp_units(schema: pa.Schema) -> set[str]:
    return {f.type.unit for f in schema if pa.types.is_timestamp(f.type)}


def _parquet_bytes(table: pa.Table, options: Mapping[str, str]) -> bytes:
    out = pa.BufferOutputStream()
    _write_parquet(table, out, options)
    return out.getvalue().to_pybytes()


def _write_parquet(table: pa.Table, out: Any, options: Mapping[str, str]) -> None:
    """Write `table` as Parquet to `out` (a stream: row group after row group)."""
    import pyarrow.parquet as pq

    units = _timestamp_units(table.schema)
    if "ns" in units and len(units) > 1:
        raise UnsupportedFeatureError(
            "TIMESTAMP(p > 6) (Parquet INT96) next to TIMESTAMP(p <= 6) columns in one Parquet file"
        )
    rows = row_group_rows(table, format_options.parquet_block_bytes(options))
    dictionary, blooms = _bloom_or_dictionary(
        table,
        options,
        _use_dictionary(table, options),
        format_options.parquet_bloom_filters(options, table.schema, rows),
    )
    settings = format_options.parquet_settings(options)
    if blooms:  # only when asked: older pyarrow (17) has no such argument
        settings["bloom_filter_options"] = blooms
    pq.write_table(
        table,
        out,
        row_group_size=rows,
        store_decimal_as_integer=True,
        use_deprecated_int96_timestamps="ns" in units,
        store_schema=False,
        use_dictionary=dictionary,
        **settings,
    )


def _bloom_or_dictionary(
    table: pa.Table,
    options: Mapping[str, str],
    dictionary: bool | list[str],
    blooms: dict[str, Any] | None,
) -> tuple[bool | list[str], dict[str, Any] | None]:
    """The columns to encode with a dictionary, and those to give a bloom filter.

    parquet-mr writes no bloom filter for a column chunk it encodes with a dictionary (the
    dictionary answers the same question), and keeps a dictionary where it pays. So a column asked
    for a filter gets a dictionary (and no filter) where ``parquet.enable.dictionary`` allows one
    and it pays: at most 1 distinct value in 4 on a sample (`_dictionary_columns`' rule), or a
    single value. Else it is written plain, with its filter, as parquet-mr's fallback from an
    unprofitable dictionary writes it. (Found by Flink 1.3.1 twins.)
    """
    if not blooms:
        return dictionary, blooms
    allowed, per_column = format_options.parquet_dictionary(options, table.schema)
    chosen = set(format_options.parquet_paths(table.schema)) if dictionary is True else set()
    chosen |= set(dictionary) if isinstance(dictionary, list) else set()
    kept: dict[str, Any] = {}
    leaves = _leaves(table.slice(0, _DICTIONARY_SAMPLE))
    for path, settings in blooms.items():
        values = leaves[path]
        distinct = pc.count_distinct(values, mode="only_valid").as_py()
        pays = distinct <= 1 or distinct * 4 <= len(values)
        if (pays and per_column.get(path, allowed)) or (distinct <= 1 and path in chosen):
            chosen.add(path)
            continue
        chosen.discard(path)
        kept[path] = settings
    return sorted(chosen), kept or None


def _leaves(table: pa.Table) -> dict[str, Any]:
    """The values of each Parquet leaf column of `table`, by path (`format_options.parquet_paths`).

    Walked like the paths themselves, so a name holding a dot is no path separator here.

    >>> t = pa.table({"a.b": [1], "r": [{"x": 2}], "m": pa.array([[("k", 3)]],
    ...                                                        pa.map_(pa.string(), pa.int8()))})
    >>> {p: v.to_pylist() for p, v in _leaves(t).items()}
    {'a.b': [1], 'r.x': [2], 'm.key_value.key': ['k'], 'm.key_value.value': [3]}
    """
    out: dict[str, Any] = {}

    def walk(path: str, values: Any) -> None:
        t = values.type
        if pa.types.is_struct(t):
            fields = values.flatten()  # with the struct's own NULLs
            for i in range(t.num_fields):
                walk(f"{path}.{t.field(i).name}", fields[i])
        elif pa.types.is_map(t):
            walk(f"{path}.key_value.key", values.keys)
            walk(f"{path}.key_value.value", values.items)
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            walk(f"{path}.list.element", values.flatten())
        else:
            out[path] = values

    for name, column in zip(table.column_names, table.columns, strict=True):
        walk(name, column.combine_chunks())
    return out


_DICTIONARY_SAMPLE = 4096


def _use_dictionary(table: pa.Table, options: Mapping[str, str]) -> bool | list[str]:
    """Which Parquet columns get a dictionary.

    Every column of a small file and the columns with few distinct values of a larger one
    (`_dictionary_columns`), then ``parquet.enable.dictionary`` (parquet-mr's option, which Paimon
    hands to it): ``false`` takes them all away, ``…#<column path>`` adds or takes away one.

    A column holding a single distinct value keeps its dictionary whatever they say: DuckDB 2.0.0
    misreads such a column written PLAIN (see `_dictionary_columns`), and a dictionary of one
    value costs nothing.
    """
    default, columns = format_options.parquet_dictionary(options, table.schema)
    small = table.num_rows <= _DICTIONARY_SAMPLE
    if default and not columns:
        return True if small else _dictionary_columns(table)
    if not default:
        chosen: set[str] = set()
    elif small:
        chosen = set(format_options.parquet_paths(table.schema))
    else:
        chosen = set(_dictionary_columns(table))
    chosen |= {path for path, on in columns.items() if on}
    chosen -= {path for path, on in columns.items() if not on}
    single = [
        path
        for path, column in _leaves(table).items()
        if pc.count_distinct(column, mode="only_valid").as_py() <= 1
    ]
    return sorted(chosen | set(single))


#: Parquet row groups hold about this much Arrow (uncompressed) data, so a reader that skips row
#: groups by their min/max statistics fetches little: a point lookup in a primary-key file (sorted
#: by key, so the groups' key ranges are disjoint) touches one group. Java's 128 MB groups make a
#: file one group, which nothing can skip.
ROW_GROUP_BYTES = 1024 * 1024
#: ... but never fewer rows than this (wide rows), nor more than DuckDB's own writer puts in one.
ROW_GROUP_MIN_ROWS = 1024
ROW_GROUP_MAX_ROWS = 122_880


def row_group_rows(table: pa.Table, block_bytes: int | None = None) -> int:
    """Rows per Parquet row group for `table` (see `ROW_GROUP_BYTES`).

    `block_bytes`: the size the table's options ask for (``parquet.block.size`` or
    ``file.block-size``), in Arrow bytes, with no bounds but one row.

    >>> row_group_rows(pa.table({"a": pa.array(range(1_000_000), pa.int64())}))
    122880
    >>> row_group_rows(pa.table({"s": ["x" * 1000] * 10_000}))
    1044
    >>> row_group_rows(pa.table({"a": pa.array(range(1_000_000), pa.int64())}), 128 << 20)
    16777216
    """
    per_row = max(1, table.nbytes // max(1, table.num_rows))
    if block_bytes is not None:
        return max(1, block_bytes // per_row)
    return max(ROW_GROUP_MIN_ROWS, min(ROW_GROUP_MAX_ROWS, ROW_GROUP_BYTES // per_row))


def _dictionary_columns(table: pa.Table) -> list[str]:
    """The Parquet leaf columns of a large file worth a dictionary, by path (`_leaves`).

    At most 1 distinct value in 4 (or a single one) on a sample of the first rows; the leaves of
    nested columns too, as parquet-mr gives them one. Small files (at
    most the sample) get one for every column, as Java's parquet-mr writes them, so their sizes
    (which Java's compaction picking compares) stay alike. pyarrow otherwise builds a dictionary for
    every column and falls back page by page, which makes a high-cardinality column (keys, ids,
    random values) cost ~3x its plain encoding. Readers handle both.
    """
    out = []
    for path, column in _leaves(table.slice(0, _DICTIONARY_SAMPLE)).items():
        if len(column) == 0:
            continue
        distinct = pc.count_distinct(column, mode="only_valid").as_py()
        # <= 1: a PLAIN string column whose min == max is read wrong by DuckDB 2.0.0 (`s IS NULL`
        # true for its values; tests/property/test_regressions.py), so such a column always keeps a
        # dictionary.
        if distinct <= 1 or distinct * 4 <= len(column):
            out.append(path)
    return out


def _unsliced(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A nested column without array offsets.

    Pyarrow's ORC writer ignores a sliced struct's offset in its children, so the fields of one row
    land on another (found by the Spark interop matrix).
    """
    if not pa.types.is_nested(column.type) or all(chunk.offset == 0 for chunk in column.chunks):
        return column
    chunks = [c.take(arange(len(c))) if c.offset else c for c in column.chunks]
    return pa.chunked_array(chunks, type=column.type)


#: Ticks per second of each Arrow time unit.
_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}


def _negative_fraction(values: Any) -> Any:
    """The first TIMESTAMP in `values` (at any depth) before 1970 with a sub-millisecond fraction.

    None when there is none.
    """
    t = values.type
    if isinstance(values, pa.ChunkedArray):
        return next((v for c in values.chunks if (v := _negative_fraction(c)) is not None), None)
    if pa.types.is_timestamp(t):
        per_milli = _PER_SECOND[t.unit] // 1000
        if per_milli <= 1:
            return None
        raw = values.cast(pa.int64())
        k = pa.scalar(per_milli, pa.int64())
        whole = pc.multiply(pc.divide(raw, k), k)  # x - x / k * k: the fraction
        zero = pa.scalar(0, pa.int64())
        bad = pc.and_(pc.less(raw, zero), pc.not_equal(pc.subtract(raw, whole), zero))
        hits = values.filter(bad)
        return hits[0] if len(hits) else None
    if pa.types.is_struct(t):
        children = [values.field(i) for i in range(t.num_fields)]
    elif pa.types.is_map(t):
        children = [values.keys, values.items]
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        children = [values.flatten()]
    else:
        return None
    return next((v for c in children if (v := _negative_fraction(c)) is not None), None)


def _refuse_negative_fractions(table: pa.Table) -> None:
    """Refuse TIMESTAMP values Apache Paimon cannot read back from pyarrow's ORC files.

    pyarrow's ORC writer splits an instant with division toward zero, so one before 1970 with a
    sub-millisecond fraction gets a negative nanosecond field (invalid ORC, which Java's reader
    turns into a negative nano-of-millisecond and Paimon rejects). Whole milliseconds are safe.
    """
    for name, column in zip(table.column_names, table.columns, strict=True):
        value = _negative_fraction(column)
        if value is not None:
            raise UnsupportedFeatureError(
                f"column {name!r} holds {value}: a TIMESTAMP before 1970 with a sub-millisecond "
                "fraction cannot be written to ORC so that Apache Paimon reads it (pyarrow's ORC "
                "writer stores a negative nanosecond field); round it to milliseconds or use "
                "'file.format' = 'parquet'"
            )


def _orc_chars(physical: pa.Table, schema: TableSchema, options: Mapping[str, str]) -> pa.Table:
    """CHAR columns without their padding, for an ORC file.

    Java declares them ORC ``char(n)``, which its ORC reader returns right-trimmed (``'ab'`` from
    a CHAR(6) ``'ab    '``: Paimon 1.3.1 through Flink); pyarrow can only write ``string``, which
    Java returns as stored. So the padding stays in the key, the partition and the stats (taken
    from the padded rows) and leaves the file, and Java reads our ORC rows as it reads its own.
    """
    for name, t, _ in physical_fields(schema, options):
        if t.root == "CHAR" and name in physical.column_names:
            i = physical.column_names.index(name)
            trimmed = pc.utf8_rtrim(physical.column(i), characters=" ")
            physical = physical.set_column(i, physical.schema.field(i), trimmed)
    return physical


def _orc_bytes(table: pa.Table, options: Mapping[str, str]) -> bytes:
    import pyarrow.orc as orc

    _refuse_negative_fractions(table)

    columns = [
        column.cast(pa.int32()) if pa.types.is_time32(column.type) else _unsliced(column)
        for column in table.columns
    ]
    table = pa.Table.from_arrays(columns, names=table.column_names)
    out = pa.BufferOutputStream()
    orc.write_table(table, out, **format_options.orc_settings(options, table.schema))
    return out.getvalue().to_pybytes()


# --- Avro (§4.1) -------------------------------------------------------------------------------

_AVRO_SIMPLE: dict[str, Any] = {
    "BOOLEAN": "boolean",
    "TINYINT": "int",
    "SMALLINT": "int",
    "INT": "int",
    "BIGINT": "long",
    "FLOAT": "float",
    "DOUBLE": "double",
    "CHAR": "string",
    "VARCHAR": "string",
    "BINARY": "bytes",
    "VARBINARY": "bytes",
    "DATE": {"type": "int", "logicalType": "date"},
    "TIME": {"type": "int", "logicalType": "time-millis"},
}


def _avro_timestamp(t: DataType) -> dict[str, Any]:
    p = 6 if t.precision is None else t.precision
    if p > 6:
        raise UnsupportedFeatureError(
            f"Avro data files cannot hold {t.root}({p}) (Java rejects p > 6)"
        )
    unit = "millis" if p <= 3 else "micros"
    local = "local-" if t.root == "TIMESTAMP_LTZ" else ""
    return {"type": "long", "logicalType": f"{local}timestamp-{unit}"}


def avro_type(t: DataType, record_name: str) -> Any:
    """The Avro type of a Paimon type; a ROW is the record `record_name` (§4.1).

    >>> from paimon_sql.types import parse_type
    >>> avro_type(parse_type("DECIMAL(5, 2)"), "r")
    ['null', {'type': 'bytes', 'logicalType': 'decimal', 'precision': 5, 'scale': 2}]
    """
    base: Any
    if t.root in _AVRO_SIMPLE:
        base = _AVRO_SIMPLE[t.root]
    elif t.root == "DECIMAL":
        base = {
            "type": "bytes",
            "logicalType": "decimal",
            "precision": t.precision,
            "scale": t.scale,
        }
    elif t.root in TIMESTAMP_ROOTS:
        base = _avro_timestamp(t)
    elif t.root == "ARRAY":
        assert t.element is not None
        base = {"type": "array", "items": avro_type(t.element, record_name)}
    elif t.root in ("MAP", "MULTISET"):
        base = _avro_map(t, record_name)
    elif t.root == "ROW":
        fields = [
            {"name": f.name, "type": avro_type(f.type, record_name + "_" + f.name)}
            | ({"default": None} if f.type.nullable else {})
            for f in t.fields
        ]
        base = {"type": "record", "name": record_name, "fields": fields}
    else:
        raise UnsupportedFeatureError(f"writing {t.root} columns to Avro is not supported")
    return ["null", base] if t.nullable else base


def _avro_map(t: DataType, record_name: str) -> dict[str, Any]:
    key = t.key if t.root == "MAP" else t.element
    value = t.value if t.root == "MAP" else DataType(root="INT", nullable=False)
    assert key is not None
    assert value is not None
    if key.root in STRING_ROOTS:
        return {"type": "map", "values": avro_type(value, record_name)}
    entry = {
        "type": "record",
        "name": record_name,
        "fields": [
            {"name": "key", "type": avro_type(key.with_nullable(False), record_name + "_key")},
            {"name": "value", "type": avro_type(value, record_name + "_value")},
        ],
    }
    return {"type": "array", "items": entry, "logicalType": "map"}


def _avro_value(value: Any, t: DataType) -> Any:
    """A nested Python value (from Arrow) as fastavro expects it.

    Maps become dicts or key/value records.
    """
    if value is None:
        return None
    if t.root == "ARRAY":
        assert t.element is not None
        return [_avro_value(v, t.element) for v in value]
    if t.root in ("MAP", "MULTISET"):
        key = t.key if t.root == "MAP" else t.element
        vt = t.value if t.root == "MAP" else DataType(root="INT")
        assert key is not None
        assert vt is not None
        pairs = [(k, _avro_value(v, vt)) for k, v in value]
        if key.root in STRING_ROOTS:
            return dict(pairs)
        return [{"key": _avro_value(k, key), "value": v} for k, v in pairs]
    if t.root == "ROW":
        return {f.name: _avro_value(value.get(f.name), f.type) for f in t.fields}
    return value


def _avro_column(column: pa.ChunkedArray, t: DataType) -> list[Any]:
    """Python values of a column; dates, times and timestamps as the ints Avro stores.

    Vectorised.
    """
    typ = column.type
    if pa.types.is_date32(typ) or pa.types.is_time32(typ):
        return column.cast(pa.int32()).to_pylist()
    if pa.types.is_timestamp(typ):
        return column.cast(pa.int64()).to_pylist()
    values = column.to_pylist()
    return [_avro_value(v, t) for v in values] if t.is_nested else values


def _avro_bytes(table: pa.Table, types: Sequence[DataType], options: Mapping[str, str]) -> bytes:
    record = {
        "type": "record",
        "name": "record",
        "namespace": "org.apache.paimon.avro.generated",
        "fields": [
            {"name": name, "type": avro_type(t, "record_" + name)}
            | ({"default": None} if t.nullable else {})
            for name, t in zip(table.column_names, types, strict=True)
        ],
    }
    codec, level = format_options.avro_codec(options, manifest=False)
    if avro_columns.flat_types(types, codec):  # numbers, strings, times: numpy, not fastavro
        return avro_columns.encode_flat(table, types, record, codec, level)
    columns = [_avro_column(table.column(i), t) for i, t in enumerate(types)]
    rows = [
        dict(zip(table.column_names, values, strict=True)) for values in zip(*columns, strict=True)
    ]
    # A plain top-level record, as Paimon 1.x writes (0.9 wrapped it in ["null", record]; Avro's
    # schema resolution lets either reader read either layout, but pypaimon-rust reads only this).
    return encode_avro(rows, record, codec=codec, level=level)


# --- the file and its metadata ----------------------------------------------------------------


def encode_data_file(
    physical: pa.Table, fmt: str, schema: TableSchema, options: Mapping[str, str] | None = None
) -> bytes:
    """The bytes of a data file of a `physical_table` in format `fmt`.

    `fmt` is ``parquet``, ``orc`` or ``avro``.
    """
    opts = {**schema.options, **(options or {})}
    if fmt == "parquet":
        return _parquet_bytes(physical, opts)
    if fmt == "orc":
        return _orc_bytes(_orc_chars(physical, schema, opts), opts)
    if fmt == "avro":
        types = [t for _, t, _ in physical_fields(schema, opts)]
        return _avro_bytes(physical, types, opts)
    raise UnsupportedFeatureError(f"writing {fmt!r} data files is not supported")


def local_millis_now() -> int:
    """``_CREATION_TIME`` as Java records it: the local wall-clock time, as if it were UTC.

    See paimon-format.md §4.3.
    """
    now = datetime.datetime.now()
    delta = now - datetime.datetime(1970, 1, 1)
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _key_range(physical: pa.Table, schema: TableSchema, thin: bool) -> tuple[bytes, bytes]:
    fields = key_fields(schema)
    names = [f.name if thin else KEY_PREFIX + f.name for f in fields]
    types = [f.type for f in fields]
    first = [physical.column(n)[0].as_py() for n in names]
    last = [physical.column(n)[-1].as_py() for n in names]
    return encode_row(first, types), encode_row(last, types)


def data_file_meta(
    physical: pa.Table,
    schema: TableSchema,
    *,
    file_name: str,
    file_size: int,
    level: int = 0,
    first_sequence_number: int | None = None,
    file_source: FileSource = FileSource.APPEND,
    options: Mapping[str, str] | None = None,
    creation_time: int | None = None,
) -> DataFileMeta:
    """The `DataFileMeta` of a written `physical_table`.

    Its rows are already in key order for primary-key tables.
    """
    opts = {**schema.options, **(options or {})}
    rows = physical.num_rows
    values, cols = value_stats(physical, schema.fields, opts)
    min_key = max_key = EMPTY_ROW
    keys = EMPTY_STATS
    deletes = 0
    if schema.primary_keys:
        thin = _thin(opts)
        min_key, max_key = _key_range(physical, schema, thin)
        fields = key_fields(schema)
        keys = key_stats(
            physical, fields, [f.name if thin else KEY_PREFIX + f.name for f in fields]
        )
        seq = pc.min_max(physical.column(SEQUENCE_NUMBER))
        min_seq, max_seq = seq["min"].as_py(), seq["max"].as_py()
        deletes = pc.sum(pc.is_in(physical.column(VALUE_KIND), _RETRACT_KINDS)).as_py() or 0
    else:
        if first_sequence_number is None:
            raise ValueError("append data files need first_sequence_number")
        min_seq, max_seq = first_sequence_number, first_sequence_number + rows - 1
    return DataFileMeta(
        file_name=file_name,
        file_size=file_size,
        row_count=rows,
        min_key=min_key,
        max_key=max_key,
        key_stats=keys,
        value_stats=values,
        min_sequence_number=min_seq,
        max_sequence_number=max_seq,
        schema_id=schema.id,
        level=level,
        extra_files=(),
        creation_time=local_millis_now() if creation_time is None else creation_time,
        delete_row_count=deletes,
        file_source=file_source,
        value_stats_cols=cols,
    )


def write_data_file(
    fileio: FileIO,
    path: str,
    table: pa.Table,
    *,
    schema: TableSchema,
    level: int = 0,
    first_sequence_number: int | None = None,
    file_source: FileSource = FileSource.APPEND,
    options: Mapping[str, str] | None = None,
    creation_time: int | None = None,
) -> DataFileMeta:
    """Write one data file at `path` and return its `DataFileMeta`.

    Args:
        fileio: where to write.
        path: the full path; its last suffix (``.parquet``/``.orc``/``.avro``) is the format, as
            readers derive it (§1); name it with `data_file_name`.
        table: the rows in final order (PK tables: sorted by trimmed primary key, each key once),
            with every column of `schema` by name. PK tables may carry ``_SEQUENCE_NUMBER`` (int64)
            and ``_VALUE_KIND`` (int8: 0 +I, 1 -U, 2 +U, 3 -D); missing ones are numbered from
            `first_sequence_number` and +I.
        schema: the table schema the file is written with (``_SCHEMA_ID``); its options give
            ``file.compression`` (default zstd, level ``file.compression.zstd-level``=1), the stats
            modes and ``data-file.thin-mode``.
        level: LSM level (0 for flushed writes).
        first_sequence_number: the first sequence number (append tables: required; the file covers
            ``first .. first + rows - 1``).
        file_source: APPEND for writes, COMPACT for compaction output.
        options: dynamic options over the schema's.
        creation_time: ``_CREATION_TIME`` millis; default the local wall clock.

    >>> import tempfile, os
    >>> from paimon_sql.format.schema import schema_from_json
    >>> from paimon_sql.io.fileio import file_io
    >>> import json
    >>> s = schema_from_json(json.dumps({"version": 3, "id": 0, "fields": [
    ...     {"id": 0, "name": "k", "type": "INT NOT NULL"},
    ...     {"id": 1, "name": "v", "type": "STRING"}],
    ...     "highestFieldId": 1, "primaryKeys": ["k"], "options": {}}))
    >>> root = tempfile.mkdtemp()
    >>> path = os.path.join(root, "bucket-0", data_file_name("u", 0, "parquet"))
    >>> rows = pa.table({"k": [1, 2], "v": ["a", None]})
    >>> meta = write_data_file(file_io(root), path, rows, schema=s, first_sequence_number=5)
    >>> size = os.path.getsize(path)
    >>> meta.row_count, meta.min_sequence_number, meta.max_sequence_number, meta.file_size == size
    (2, 5, 6, True)
    """
    opts = {**schema.options, **(options or {})}
    if table.num_rows == 0:
        raise ValueError("a data file needs at least one row")
    fmt = path.rsplit(".", 1)[-1].lower()
    format_options.codec(opts, fmt)  # before the file is opened: a refusal leaves nothing
    physical = physical_table(
        table, schema, first_sequence_number=first_sequence_number, options=opts
    )
    # before any write: a refusal leaves nothing
    format_options.check_format_options(opts, physical.schema)
    index = file_index_bytes(physical, schema, opts)
    if fmt == "parquet":  # streamed: an object store uploads parts while the rest is encoded
        with fileio.open_output(path) as out:
            _write_parquet(physical, out, opts)
            size = out.tell()
    else:
        data = encode_data_file(physical, fmt, schema, opts)
        fileio.write_bytes(path, data)
        size = len(data)
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    meta = data_file_meta(
        physical,
        schema,
        file_name=name,
        file_size=size,
        level=level,
        first_sequence_number=first_sequence_number,
        file_source=file_source,
        options=opts,
        creation_time=creation_time,
    )
    return _with_file_index(fileio, path, meta, index, opts)


# --- file indexes (file-index.<type>.columns) -----------------------------------------------------


def _with_file_index(
    fileio: FileIO, path: str, meta: DataFileMeta, data: bytes | None, options: Mapping[str, str]
) -> DataFileMeta:
    """`meta` with the file index the options ask for, as Java's ``DataFileIndexWriter`` does.

    Indexed are the value columns (every table column, also in primary-key files). Up to
    ``file-index.in-manifest-threshold`` bytes go into the manifest entry, larger indexes into
    ``<data file>.index`` beside the data file, named in ``_EXTRA_FILES``.
    """
    if data is None:
        return meta
    threshold = CoreOptions(options).memory("file-index.in-manifest-threshold")
    if len(data) <= threshold:
        return dataclasses.replace(meta, embedded_index=data)
    index_path = path + file_index.INDEX_SUFFIX
    fileio.write_bytes(index_path, data)
    return dataclasses.replace(meta, extra_files=(meta.file_name + file_index.INDEX_SUFFIX,))


def check_file_options(schema: TableSchema) -> None:
    """Refuse the file options a write of `schema`'s table would fail on, before any file.

    ``file.format`` with ``file.compression`` (`format_options.CODECS`), the format writers'
    options (`format_options.check_format_options`) and the ``file-index.*`` options, checked
    by the writer's own code on no rows, so CREATE TABLE and ALTER TABLE … SET refuse what every
    INSERT would.

    >>> from paimon_sql.format.schema import schema_from_json
    >>> import json
    >>> def schema(**options):
    ...     return schema_from_json(json.dumps({"version": 3, "id": 0, "fields": [
    ...         {"id": 0, "name": "v", "type": "INT"}], "highestFieldId": 0, "primaryKeys": [],
    ...         "options": options}))
    >>> check_file_options(schema(**{"file.format": "orc", "file.compression": "zlib"}))
    >>> check_file_options(schema(**{"file-index.bloom-filter.columns": "w"}))
    Traceback (most recent call last):
    ...
    paimon_sql.errors.SchemaError: option file-index.bloom-filter.columns names 'w', which is not \
a column of the table
    """
    options = schema.options
    format_options.codec(options, CoreOptions(options).file_format)
    format_options.avro_codec(options, manifest=True)
    if any(key.startswith(format_options.PREFIXES) for key in options):
        format_options.check_format_options(options, physical_schema(schema, options))
    if any(key.startswith("file-index.") for key in options):
        # only then: a table whose columns paimon-sql cannot write (VARIANT) may still be created
        file_index_bytes(physical_schema(schema, options).empty_table(), schema, options)


def file_index_bytes(
    physical: pa.Table, schema: TableSchema, options: Mapping[str, str]
) -> bytes | None:
    """The ``FileIndexFormat`` bytes of a physical table, or None when no index is configured.

    >>> from paimon_sql.format.schema import schema_from_json
    >>> import json
    >>> s = schema_from_json(json.dumps({"version": 3, "id": 0, "fields": [
    ...     {"id": 0, "name": "v", "type": "INT"}], "highestFieldId": 0, "primaryKeys": [],
    ...     "options": {"file-index.bitmap.columns": "v"}}))
    >>> len(file_index_bytes(pa.table({"v": [1, 2, 1]}), s, s.options))
    121
    """
    specs = file_index.index_specs(options)
    if not specs:
        return None
    types: dict[str, DataType] = {}
    columns: list[tuple[str, str, Any]] = []
    per_index: dict[str, Mapping[str, str]] = {}
    for spec in specs:
        if spec.column not in schema.field_names:
            raise SchemaError(
                f"option file-index.{spec.index_type}.columns names {spec.column!r}, which is not "
                "a column of the table"
            )
        t = schema.field(spec.column).type
        types[spec.column] = t
        column = physical.column(spec.column)
        per_index[f"{spec.column}/{spec.index_type}"] = spec.options
        if spec.index_type == "bloom-filter" and t.root in _BLOOM_NUMBERS:
            columns.append((spec.column, spec.index_type, _NumberColumn(column, t, spec)))
        else:
            columns.append((spec.column, spec.index_type, _index_keys(column, t)))
    return _encode_indexes(columns, types, per_index, list(options))


_BLOOM_NUMBERS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE"})


class _NumberColumn:
    """A numeric column for the array-speed bloom filter."""

    def __init__(self, column: pa.ChunkedArray[Any], t: DataType, spec: IndexSpec) -> None:
        self.column = column
        self.t = t
        self.spec = spec


def _encode_indexes(
    columns: Sequence[tuple[str, str, Any]],
    types: Mapping[str, DataType],
    per_index: Mapping[str, Mapping[str, str]],
    option_keys: Sequence[str],
) -> bytes:
    plain = []
    numbers: dict[tuple[str, str], bytes] = {}
    for column, index_type, keys in columns:
        if isinstance(keys, _NumberColumn):
            arr = keys.column.drop_null()
            if keys.t.root == "DATE":
                arr = arr.cast(pa.int32())
            kind = file_index.index_kind(keys.t)
            items, fpp = file_index.bloom_settings(keys.spec)
            numbers[(column, index_type)] = file_index.encode_bloom_numbers(
                kind, arr.to_numpy(), items, fpp
            )
            plain.append((column, index_type, ()))
        else:
            plain.append((column, index_type, keys))
    return file_index.encode_file_index(
        plain, types, per_index, prebuilt=numbers, option_keys=option_keys
    )


def _index_keys(column: pa.ChunkedArray[Any], t: DataType) -> list[Any]:
    """A column's values as `file_index.index_key` holds them (None for null)."""
    root = t.root
    if root in TIMESTAMP_ROOTS:
        precision = 6 if t.precision is None else t.precision
        unit = column.type.unit
        per_second = _PER_SECOND[unit]
        want = 1000 if precision <= 3 else 1_000_000
        ints = column.cast(pa.int64()).to_pylist()
        return [None if v is None else v * want // per_second for v in ints]
    if root == "DATE":
        return column.cast(pa.int32()).to_pylist()
    if root == "TIME":
        unit = column.type.unit if pa.types.is_time(column.type) else "ms"
        per_second = _PER_SECOND[unit]
        ints = column.cast(pa.int64()).to_pylist()
        return [None if v is None else v * 1000 // per_second for v in ints]
    values = column.to_pylist()
    return [None if v is None else file_index.index_key(t, v) for v in values]
