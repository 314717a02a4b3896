"""What Java's file-format options ask of a file writer, as pyarrow and fastavro settings.

Apache Paimon hands every table option under ``parquet.``, ``orc.`` or ``avro.`` to that format's
Java writer (parquet-mr's ``ParquetOutputFormat`` keys, ORC's ``OrcConf``, Avro's codec), after
setting ``file.block-size`` (row group / stripe size) and ``file.compression.zstd-level`` on top,
and writes manifests with ``manifest.compression`` unless ``avro.codec`` names another codec.
paimon-sql honours each of these keys that pyarrow or fastavro can write:

* Parquet (`parquet_settings`, `parquet_dictionary`, `parquet_bloom_filters`):
  ``parquet.compression`` (instead of ``file.compression``),
  ``parquet.compression.codec.zstd.level``, ``parquet.block.size``, ``parquet.page.size``,
  ``parquet.page.row.count.limit``, ``parquet.dictionary.page.size``,
  ``parquet.enable.dictionary[#column]``, ``parquet.writer.version``,
  ``parquet.page.write-checksum.enabled``, ``parquet.bloom.filter.enabled[#column]``,
  ``parquet.bloom.filter.expected.ndv#column``, ``parquet.bloom.filter.fpp#column``;
* ORC (`orc_settings`): ``orc.compress``, ``orc.stripe.size``, ``orc.compress.size``,
  ``orc.row.index.stride``, ``orc.bloom.filter.columns``, ``orc.bloom.filter.fpp``,
  ``orc.dictionary.key.threshold``, ``orc.write.format``, ``orc.compression.strategy``,
  ``orc.block.padding.tolerance``;
* Avro (`avro_codec`): ``avro.codec``, for data files and manifests.

Writer keys paimon-sql cannot honour are refused by name with the other unimplemented options
(`paimon_sql.format.option_registry.UNIMPLEMENTED`). Keys with which Java's writers only tune
themselves (memory pools, padding to HDFS blocks, how often page sizes are checked) change no file
a reader sees and are kept; so are keys under these prefixes that no Java writer reads (reader
flags, other engines' keys such as paimon-cpp's ``parquet.use-native``), as Java keeps them.

Checked against Java's own files (tests/interop/flink/test_format_options_flink.py), with these
differences kept: no bloom filter for BOOLEAN columns (pyarrow writes none; two values need none);
a bloom filter sized for the row group's rows rather than 1 MiB; dictionaries chosen by
`paimon_sql.write.data_file`'s sampling rather than parquet-mr's page-by-page fallback (a column
asked for a bloom filter follows parquet-mr's rule: a filter only where no dictionary is kept);
ORC stripes cut by pyarrow's estimate of the compressed bytes buffered. Where Java silently writes
nothing (``orc.bloom.filter.columns`` with spaces, or in an ``orc.write.format`` 0.11 file) the
option is refused instead.

Values are read as Java reads them: parquet-mr's and ORC's numbers are plain integers or decimals
(``'134217728'``, not ``'128 mb'``), their flags ``true`` or ``false``; a value Java would fail on
or silently replace by its default is refused here.

>>> parquet_settings({"parquet.compression": "GZIP", "parquet.writer.version": "v2"})
{'compression': 'gzip', 'compression_level': None, 'data_page_version': '2.0', \
'write_page_checksum': True}
>>> avro_codec({"manifest.compression": "snappy"}, manifest=True)
('snappy', None)
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.errors import OptionError, UnsupportedFeatureError
from paimon_sql.format.options import CoreOptions

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

#: Per file format, each ``file.compression`` paimon-sql writes and the codec name of the library
#: writing it (pyarrow for Parquet and ORC, fastavro's names for Avro): the one home of the
#: writable pairs, asked by the writer and by CREATE / ALTER TABLE. Left out: what pyarrow or
#: fastavro cannot write (ORC gzip / brotli, Avro brotli, lzo anywhere) and Avro lz4, which Java's
#: Avro cannot read.
CODECS: Mapping[str, Mapping[str, str]] = {
    "parquet": {"zstd": "zstd", "snappy": "snappy", "lz4": "lz4", "gzip": "gzip",
                "brotli": "brotli", "none": "none", "uncompressed": "none"},
    "orc": {"zstd": "zstd", "snappy": "snappy", "lz4": "lz4", "zlib": "zlib",
            "none": "uncompressed", "uncompressed": "uncompressed"},
    "avro": {"zstd": "zstandard", "snappy": "snappy", "gzip": "deflate", "deflate": "deflate",
             "none": "null", "uncompressed": "null"},
}  # fmt: skip

#: ``parquet.compression`` (parquet-mr's ``CompressionCodecName``, any case) -> pyarrow. pyarrow
#: writes LZ4 as LZ4_RAW, which parquet-mr reads since 1.13 (Paimon 0.9 ships 1.13.1).
_PARQUET_CODECS = {"uncompressed": "none", "snappy": "snappy", "gzip": "gzip",
                   "brotli": "brotli", "lz4": "lz4", "lz4_raw": "lz4", "zstd": "zstd"}  # fmt: skip
#: ``orc.compress`` (ORC's ``CompressionKind``, any case) -> pyarrow.
_ORC_CODECS = {"none": "uncompressed", "zlib": "zlib", "snappy": "snappy", "lz4": "lz4",
               "zstd": "zstd"}  # fmt: skip
#: ORC C++'s memory block: its compression blocks are a multiple of it.
_ORC_MEMORY_BLOCK = 65536
#: Avro's codec names (``CodecFactory.fromString``, exact) with the level Java's Avro gives each.
_AVRO_CODECS: Mapping[str, int | None] = {
    "null": None, "deflate": 6, "snappy": None, "bzip2": None, "xz": None, "zstandard": 3,
}  # fmt: skip
#: ``parquet.writer.version`` (parquet-mr's ``WriterVersion.fromString``) -> data page version.
_PARQUET_VERSIONS = {"v1": "1.0", "PARQUET_1_0": "1.0", "v2": "2.0", "PARQUET_2_0": "2.0"}
#: The option prefixes Paimon hands to the format writers.
PREFIXES = ("parquet.", "orc.", "avro.")
#: parquet-mr's default false-positive probability of a bloom filter.
BLOOM_FPP = 0.01

_INTEGER = re.compile(r"^[+-]?\d+$")


def codec(options: Mapping[str, str], fmt: str) -> str:
    """The library's codec name for ``file.compression`` in `fmt` files.

    Else a refusal naming the pair and the compressions that work.

    >>> codec({"file.compression": "ZLIB"}, "orc"), codec({}, "avro")
    ('zlib', 'zstandard')
    >>> codec({"file.compression": "gzip"}, "orc")
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: 'file.compression' = 'gzip' cannot be written to \
orc data files; paimon-sql writes orc with zstd, snappy, lz4, zlib, none, uncompressed
    """
    name = (CoreOptions(options).text("file.compression") or "").strip().lower()
    codecs = CODECS.get(fmt)
    if codecs is None:
        raise UnsupportedFeatureError(f"writing {fmt!r} data files is not supported")
    if name not in codecs:
        raise UnsupportedFeatureError(
            f"'file.compression' = {name!r} cannot be written to {fmt} data files; paimon-sql "
            f"writes {fmt} with {', '.join(codecs)}"
        )
    return codecs[name]


def _format_codec(options: Mapping[str, str], fmt: str, key: str, names: Mapping[str, str]) -> str:
    """The codec `key` names (any case; one of `names`), else ``file.compression``'s (`codec`)."""
    given = options.get(key)
    if given is None:
        return codec(options, fmt)
    if given.strip().lower() not in names:
        raise UnsupportedFeatureError(
            f"option {key!r} = {given!r} cannot be written; paimon-sql writes {fmt} with "
            f"{', '.join(n.upper() for n in names)}"
        )
    return names[given.strip().lower()]


def _bad(key: str, value: str, expected: str) -> OptionError:
    return OptionError(f"option {key!r} = {value!r} is not valid: expected {expected}")


def _integer(
    options: Mapping[str, str], key: str, low: int = 1, high: int | None = None
) -> int | None:
    value = options.get(key)
    if value is None:
        return None
    if not _INTEGER.match(value.strip()) or not low <= int(value) <= (high or int(value)):
        within = f"from {low} to {high}" if high else f"of at least {low} (bytes or rows, no unit)"
        raise _bad(key, value, f"a whole number {within}")
    return int(value)


def _fraction(options: Mapping[str, str], key: str, *, closed: bool) -> float | None:
    value = options.get(key)
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not (0.0 <= number <= 1.0 if closed else 0.0 < number < 1.0):
        raise _bad(key, value, "a number from 0 to 1" if closed else "a number between 0 and 1")
    return number


def _flag(options: Mapping[str, str], key: str) -> bool | None:
    value = options.get(key)
    if value is None:
        return None
    if value.strip().lower() not in ("true", "false"):
        raise _bad(key, value, "true or false")
    return value.strip().lower() == "true"


def _block_bytes(options: Mapping[str, str], key: str) -> int | None:
    """``file.block-size`` (a memory size, which Java sets over `key`), else `key` (bytes)."""
    if options.get("file.block-size") is not None:
        return CoreOptions(options).memory("file.block-size")
    return _integer(options, key)


def parquet_block_bytes(options: Mapping[str, str]) -> int | None:
    """The row-group size the options ask for, in bytes (None: paimon-sql chooses).

    >>> parquet_block_bytes({"parquet.block.size": "65536"})
    65536
    >>> parquet_block_bytes({"parquet.block.size": "65536", "file.block-size": "1 mb"})
    1048576
    """
    return _block_bytes(options, "parquet.block.size")


def parquet_settings(options: Mapping[str, str]) -> dict[str, Any]:
    """``pyarrow.parquet.write_table`` arguments for the table's Parquet options.

    Row groups (`parquet_block_bytes`), dictionaries (`parquet_dictionary`) and bloom filters
    (`parquet_bloom_filters`) depend on the rows too and are asked separately.

    >>> parquet_settings({"parquet.page.size": "8192", "parquet.page.row.count.limit": "500"})
    {'compression': 'zstd', 'compression_level': 1, 'data_page_size': 8192, \
'max_rows_per_page': 500, 'write_page_checksum': True}
    """
    compression = _format_codec(options, "parquet", "parquet.compression", _PARQUET_CODECS)
    level = _integer(options, "parquet.compression.codec.zstd.level", high=22)
    out: dict[str, Any] = {
        "compression": compression,
        "compression_level": (
            (level if level is not None else CoreOptions(options).integer(
                "file.compression.zstd-level"))
            if compression == "zstd" else None
        ),
    }  # fmt: skip
    for key, argument in (
        ("parquet.page.size", "data_page_size"),
        ("parquet.dictionary.page.size", "dictionary_pagesize_limit"),
        ("parquet.page.row.count.limit", "max_rows_per_page"),
    ):
        if (number := _integer(options, key)) is not None:
            out[argument] = number
    version = options.get("parquet.writer.version")
    if version is not None:
        if version.strip() not in _PARQUET_VERSIONS:
            raise _bad("parquet.writer.version", version, " or ".join(_PARQUET_VERSIONS))
        out["data_page_version"] = _PARQUET_VERSIONS[version.strip()]
    if "max_rows_per_page" in out:
        _require("max_rows_per_page")
    # CRC32 per page (read by Java's parquet-mr and pyarrow): damage is detectable
    checksums = _flag(options, "parquet.page.write-checksum.enabled")
    out["write_page_checksum"] = True if checksums is None else checksums
    return out


#: The options whose ``pyarrow.parquet`` argument older pyarrow releases lack (17 has neither).
_NEWER_ARGUMENTS = {
    "max_rows_per_page": "parquet.page.row.count.limit",
    "bloom_filter_options": "parquet.bloom.filter.*",
}


@functools.cache
def _parquet_accepts(argument: str) -> bool:
    """Whether the installed pyarrow's Parquet writer takes `argument` (asked once)."""
    import pyarrow.parquet as pq

    try:
        arguments: dict[str, Any] = {argument: None}
        pq.ParquetWriter(pa.BufferOutputStream(), pa.schema([("a", pa.int8())]), **arguments)
    except TypeError:
        return False
    return True


def _require(argument: str) -> None:
    if not _parquet_accepts(argument):
        raise UnsupportedFeatureError(
            f"option {_NEWER_ARGUMENTS[argument]!r} needs pyarrow's {argument!r}, which pyarrow "
            f"{pa.__version__} lacks; upgrade pyarrow or remove the option"
        )


def _per_column(options: Mapping[str, str], key: str) -> Iterator[tuple[str, str, str]]:
    """``(column path, option key, value)`` of each ``<key>#<column path>`` option."""
    prefix = key + "#"
    for k, value in options.items():
        if k.startswith(prefix):
            yield k[len(prefix) :], k, value


def parquet_dictionary(
    options: Mapping[str, str], schema: pa.Schema
) -> tuple[bool, dict[str, bool]]:
    """``parquet.enable.dictionary``: the default for every column, and the columns set apart.

    >>> s = pa.schema([("a", pa.int32()), ("b", pa.string())])
    >>> parquet_dictionary({"parquet.enable.dictionary": "false",
    ...                     "parquet.enable.dictionary#b": "true"}, s)
    (False, {'b': True})
    """
    default = _flag(options, "parquet.enable.dictionary")
    columns: dict[str, bool] = {}
    paths = set(parquet_paths(schema))
    for path, key, _ in _per_column(options, "parquet.enable.dictionary"):
        _known_path(key, path, paths)
        columns[path] = bool(_flag(options, key))
    return (True if default is None else default), columns


def _known_path(key: str, path: str, paths: set[str]) -> None:
    if path not in paths:
        raise OptionError(
            f"option {key!r} names {path!r}, which is not a Parquet column of the table "
            f"(columns: {', '.join(sorted(paths))})"
        )


def parquet_paths(schema: pa.Schema) -> dict[str, pa.DataType]:
    """The Parquet leaf column paths of `schema`, as parquet-mr and pyarrow name them.

    >>> list(parquet_paths(pa.schema([("m", pa.map_(pa.string(), pa.int32())),
    ...                               ("l", pa.list_(pa.int8()))])))
    ['m.key_value.key', 'm.key_value.value', 'l.list.element']
    """
    out: dict[str, pa.DataType] = {}

    def walk(path: str, t: pa.DataType) -> None:
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(f"{path}.{t.field(i).name}", t.field(i).type)
        elif pa.types.is_map(t):
            walk(f"{path}.key_value.key", t.key_type)
            walk(f"{path}.key_value.value", t.item_type)
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            walk(f"{path}.list.element", t.value_type)
        else:
            out[path] = t

    for f in schema:
        walk(f.name, f.type)
    return out


def parquet_bloom_filters(
    options: Mapping[str, str], schema: pa.Schema, rows: int
) -> dict[str, dict[str, float]] | None:
    """The ``bloom_filter_options`` (pyarrow) for the columns the options give a bloom filter.

    ``parquet.bloom.filter.enabled`` (every column, BOOLEAN ones excepted: pyarrow writes none
    for them, and two values need none), or per column ``…enabled#<path>``;
    ``…expected.ndv#<path>`` turns a column's filter on too, as in parquet-mr. Without an expected
    count parquet-mr sizes a filter by ``parquet.bloom.filter.max.bytes`` (1 MiB); paimon-sql
    sizes it for `rows`, the rows of a row group (no row group holds more distinct values), with
    ``…fpp#<path>`` (default 0.01). Like parquet-mr, the writer then leaves out the filter of a
    column it encodes with a dictionary (`paimon_sql.write.data_file`).

    >>> s = pa.schema([("a", pa.int64()), ("b", pa.bool_())])
    >>> parquet_bloom_filters({"parquet.bloom.filter.enabled": "true"}, s, 1000)
    {'a': {'ndv': 1000, 'fpp': 0.01}}
    >>> parquet_bloom_filters({"parquet.bloom.filter.expected.ndv#a": "50"}, s, 1000)
    {'a': {'ndv': 50, 'fpp': 0.01}}
    """
    paths = parquet_paths(schema)
    known = set(paths)
    default = bool(_flag(options, "parquet.bloom.filter.enabled"))
    enabled = {p: default and not pa.types.is_boolean(t) for p, t in paths.items()}
    for path, key, _ in _per_column(options, "parquet.bloom.filter.enabled"):
        _known_path(key, path, known)
        enabled[path] = bool(_flag(options, key))
    ndv: dict[str, int] = {}
    for path, key, _ in _per_column(options, "parquet.bloom.filter.expected.ndv"):
        _known_path(key, path, known)
        ndv[path] = _integer(options, key) or 1
        if options.get(f"parquet.bloom.filter.enabled#{path}") is None:
            enabled[path] = True
    fpp: dict[str, float] = {}
    for path, key, _ in _per_column(options, "parquet.bloom.filter.fpp"):
        _known_path(key, path, known)
        fpp[path] = _fraction(options, key, closed=False) or BLOOM_FPP
    out = {}
    for path, on in enabled.items():
        if not on:
            continue
        if pa.types.is_boolean(paths[path]):
            raise UnsupportedFeatureError(
                f"a Parquet bloom filter of BOOLEAN column {path!r} cannot be written (Parquet "
                "has none for BOOLEAN); set 'parquet.bloom.filter.enabled#" + path + "' = 'false'"
            )
        out[path] = {"ndv": ndv.get(path, max(1, rows)), "fpp": fpp.get(path, BLOOM_FPP)}
    if out:
        _require("bloom_filter_options")
    return out or None


def orc_settings(options: Mapping[str, str], schema: pa.Schema) -> dict[str, Any]:
    """The ``pyarrow.orc.write_table`` arguments for the table's ORC options.

    >>> s = pa.schema([("a", pa.int64()), ("r", pa.struct([("x", pa.int8())])), ("b", pa.string())])
    >>> orc_settings({"orc.bloom.filter.columns": "r,b", "orc.stripe.size": "65536"}, s)
    {'compression': 'zstd', 'stripe_size': 65536, 'bloom_filter_columns': [2, 3, 4]}
    """
    out: dict[str, Any] = {
        "compression": _format_codec(options, "orc", "orc.compress", _ORC_CODECS)
    }
    if (stripe := _block_bytes(options, "orc.stripe.size")) is not None:
        out["stripe_size"] = stripe
    out |= _orc_numbers(options)
    for key, argument, allowed in (
        ("orc.write.format", "file_version", ("0.11", "0.12")),
        ("orc.compression.strategy", "compression_strategy", ("SPEED", "COMPRESSION")),
    ):
        if (value := options.get(key)) is not None:
            if value.strip().upper() not in allowed:
                raise _bad(key, value, " or ".join(allowed))
            out[argument] = value.strip().lower()
    if (names := options.get("orc.bloom.filter.columns")) is not None:
        if out.get("file_version") == "0.11":
            raise UnsupportedFeatureError(
                "option 'orc.bloom.filter.columns' with 'orc.write.format' = '0.11': Java's ORC "
                "writer writes no bloom filters into 0.11 files; use 0.12 or remove one of them"
            )
        out["bloom_filter_columns"] = _orc_columns(names, schema)
    return out


def _orc_numbers(options: Mapping[str, str]) -> dict[str, Any]:
    """The numeric ORC options as ``pyarrow.orc.write_table`` arguments."""
    out: dict[str, Any] = {}
    if (stride := _integer(options, "orc.row.index.stride")) is not None:
        out["row_index_stride"] = stride
    if (block := _integer(options, "orc.compress.size")) is not None:
        if block % _ORC_MEMORY_BLOCK:
            raise UnsupportedFeatureError(
                f"option 'orc.compress.size' = {block} cannot be written: pyarrow's ORC writer "
                f"compresses blocks of a multiple of {_ORC_MEMORY_BLOCK} bytes (Java's default is "
                "262144)"
            )
        out["compression_block_size"] = block
    for key, argument, closed in (
        ("orc.bloom.filter.fpp", "bloom_filter_fpp", False),
        ("orc.dictionary.key.threshold", "dictionary_key_size_threshold", True),
        ("orc.block.padding.tolerance", "padding_tolerance", True),
    ):
        if (fraction := _fraction(options, key, closed=closed)) is not None:
            out[argument] = fraction
    return out


def _orc_columns(names: str, schema: pa.Schema) -> list[int]:
    """ORC column ids of the top-level columns `names` and of everything inside them.

    As ORC's ``OrcUtils.includeColumns``: ``*`` is every column; ids number the types in
    pre-order, the file's root struct being 0.
    """
    spans: dict[str, range] = {}
    next_id = 1

    def size(t: pa.DataType) -> int:
        if pa.types.is_struct(t):
            return 1 + sum(size(t.field(i).type) for i in range(t.num_fields))
        if pa.types.is_map(t):
            return 1 + size(t.key_type) + size(t.item_type)
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return 1 + size(t.value_type)
        return 1

    for f in schema:
        spans[f.name] = range(next_id, next_id + size(f.type))
        next_id += size(f.type)
    wanted = names.split(",")
    if any(n != n.strip() or not n for n in wanted):
        raise OptionError(
            f"option 'orc.bloom.filter.columns' = {names!r}: Java's ORC writer does not trim the "
            "names and then writes no bloom filter at all; write them without spaces "
            f"({','.join(n.strip() for n in wanted if n.strip())!r})"
        )
    if wanted == ["*"]:
        return list(range(1, next_id))
    out: list[int] = []
    for name in wanted:
        if name not in spans:
            raise OptionError(
                f"option 'orc.bloom.filter.columns' names {name!r}, which is not a column of the "
                f"table (columns: {', '.join(spans)})"
            )
        out.extend(spans[name])
    return sorted(set(out))


def avro_codec(options: Mapping[str, str], *, manifest: bool) -> tuple[str, int | None]:
    """The ``(codec, level)`` fastavro writes an Avro data file with (a manifest: `manifest`).

    ``avro.codec`` (an Avro codec name) decides for both, as in Java; else a data file follows
    ``file.compression`` and a manifest ``manifest.compression``. zstd takes its level from
    ``file.compression.zstd-level``; a codec named by Avro's own name gets Java Avro's level.

    >>> avro_codec({}, manifest=True), avro_codec({"avro.codec": "deflate"}, manifest=False)
    (('zstandard', 1), ('deflate', 6))
    >>> avro_codec({"manifest.compression": "none"}, manifest=True)
    Traceback (most recent call last):
    ...
    paimon_sql.errors.OptionError: option 'manifest.compression' = 'none' is not valid: expected \
zstd or an Avro codec (null, deflate, snappy, bzip2, xz, zstandard)
    """
    zstd_level = CoreOptions(options).integer("file.compression.zstd-level")
    if (given := options.get("avro.codec")) is not None:
        if given.strip() not in _AVRO_CODECS:
            raise _bad("avro.codec", given, f"an Avro codec ({', '.join(_AVRO_CODECS)})")
        return given.strip(), _AVRO_CODECS[given.strip()]
    if not manifest:
        name = codec(options, "avro")
        return name, (zstd_level if name == "zstandard" else None)
    key = "manifest.compression"
    name = (CoreOptions(options).text(key) or "zstd").strip()
    if name == "zstd":
        return "zstandard", zstd_level
    if name not in _AVRO_CODECS:
        raise _bad(key, name, f"zstd or an Avro codec ({', '.join(_AVRO_CODECS)})")
    return name, _AVRO_CODECS[name]


def check_format_options(options: Mapping[str, str], schema: pa.Schema) -> None:
    """Refuse a value of a format option no write of a table of `schema` could honour.

    Every format's options, whatever ``file.format`` is now (a later ALTER may switch it); the
    ``file.compression`` of the other formats is the writer's own check (`codec`).

    >>> check_format_options({"orc.row.index.stride": "10k"}, pa.schema([("a", pa.int8())]))
    Traceback (most recent call last):
    ...
    paimon_sql.errors.OptionError: option 'orc.row.index.stride' = '10k' is not valid: expected a \
whole number of at least 1 (bytes or rows, no unit)
    """
    current = CoreOptions(options).file_format
    # zstd: a file.compression every format writes, for the formats the table does not write now
    other = {**options, "file.compression": "zstd"}
    parquet_settings(options if current == "parquet" else other)
    parquet_block_bytes(options)
    parquet_dictionary(options, schema)
    parquet_bloom_filters(options, schema, 1)
    orc_settings(options if current == "orc" else other, schema)
    avro_codec(options if current == "avro" else other, manifest=False)
    avro_codec(options, manifest=True)
