"""File indexes of data files: the container, bloom-filter, bitmap (v1, v2) and bsi codecs.

A data file may carry an index of some of its columns (options ``file-index.<type>.columns``): the
bytes sit in the manifest entry (``_EMBEDDED_FILE_INDEX``) when they are no larger than
``file-index.in-manifest-threshold``, else in a ``<data file>.index`` file beside the data file,
named in ``_EXTRA_FILES``. Layout (Java ``FileIndexFormat``, all integers big-endian):

* magic (8 bytes, 1493475289347502), version 1 (int), head length (int), column count (int); per
  column its name (Java modified UTF-8: 2-byte length + bytes), index count (int) and per index its
  type name, start (absolute, -1 for an empty index) and length; a redundant length (int, 0); then
  the bodies.
* ``bloom-filter``: hash-function count (int) and the bit set (bit i in byte i/8, bit i%8); values
  hashed by type (Thomas Wang's 64-bit mix for numbers, XXH64 for strings and bytes).
* ``bitmap``: a version byte, then a value → row-bitmap table (v1 flat, v2 in sorted blocks) and
  the RoaringBitmap32 bodies (portable format); a value in one row stores ``-1 - row`` instead.
* ``bsi``: bit-sliced index of longs (positive and negative halves), exact for ranges.

This module is pure (bytes in, answers out). `FileIndex.test` answers one column test as Java's
index readers do; `paimon_sql.plan.file_index` combines the tests of a predicate as Java's
``FileIndexPredicate`` does. A result that is not `remain` proves no row of the file matches.

>>> from paimon_sql.types import DataType
>>> data = encode_file_index(
...     [("v", "bitmap", [3, 5, 3, None])], {"v": DataType(root="INT")}, {}
... )
>>> idx = FileIndex.decode(data, "f.index")
>>> idx.test("v", DataType(root="INT"), "=", (5,)).remain
True
>>> idx.test("v", DataType(root="INT"), "=", (4,)).remain
False
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap

from paimon_sql.errors import OptionError, SpecViolationError, UnsupportedFeatureError
from paimon_sql.format._file_index_codecs import (
    NoKey,
    bloom_hash,
    bloom_positions,
    decode_bitmap,
    decode_bsi,
    encode_bitmap,
    encode_bloom,
    encode_bloom_numbers,
    encode_bsi,
    index_key,
    index_kind,
)
from paimon_sql.format._java_hash import JavaHashMap, string_hash
from paimon_sql.format.option_registry import memory_size

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from paimon_sql.types import DataType

MAGIC = 1493475289347502
VERSION = 1
EMPTY_INDEX = -1
INDEX_SUFFIX = ".index"
INDEX_TYPES = ("bloom-filter", "bitmap", "bsi")

__all__ = [
    "EMPTY_INDEX",
    "INDEX_SUFFIX",
    "INDEX_TYPES",
    "REMAIN",
    "SKIP",
    "TESTS",
    "FileIndex",
    "IndexResult",
    "IndexSpec",
    "bloom_settings",
    "decode_container",
    "encode_bloom_numbers",
    "encode_container",
    "encode_file_index",
    "encode_index",
    "index_key",
    "index_kind",
    "index_specs",
]


# --- the container --------------------------------------------------------------------------------


def _utf(s: str) -> bytes:
    data = s.encode("utf-8")  # Java modified UTF-8 equals UTF-8 for names without NUL/astral
    return struct.pack(">H", len(data)) + data


def encode_container(indexes: Sequence[tuple[str, Sequence[tuple[str, bytes | None]]]]) -> bytes:
    """A ``FileIndexFormat`` file: per column (in order) its (index type, bytes or None) list."""
    names = b"".join(_utf(c) + b"".join(_utf(t) for t, _ in ts) for c, ts in indexes)
    head_len = 8 + 4 + 4 + 4 + 4 + len(names) + sum(4 + 8 * len(ts) for _, ts in indexes)
    head = [struct.pack(">qiii", MAGIC, VERSION, head_len, len(indexes))]
    body: list[bytes] = []
    at = 0
    for column, types in indexes:
        head.append(_utf(column) + struct.pack(">i", len(types)))
        for index_type, data in types:
            if data is None:
                head.append(_utf(index_type) + struct.pack(">ii", EMPTY_INDEX, 0))
            else:
                head.append(_utf(index_type) + struct.pack(">ii", head_len + at, len(data)))
                body.append(data)
                at += len(data)
    head.append(struct.pack(">i", 0))
    return b"".join(head + body)


def decode_container(data: bytes, where: str) -> dict[str, dict[str, tuple[int, int]]]:
    """Column → index type → (start, length); start -1 marks an empty index."""
    try:
        magic, version, head_len, columns = struct.unpack_from(">qiii", data, 0)
        if magic != MAGIC:
            raise SpecViolationError(f"{where}: not a file index (magic {magic})")
        if version != VERSION:
            raise SpecViolationError(f"{where}: file index version {version} is not supported")
        pos = 20
        out: dict[str, dict[str, tuple[int, int]]] = {}
        for _ in range(columns):
            column, pos = _read_utf(data, pos)
            (n,) = struct.unpack_from(">i", data, pos)
            pos += 4
            types = out.setdefault(column, {})
            for _ in range(n):
                index_type, pos = _read_utf(data, pos)
                start, length = struct.unpack_from(">ii", data, pos)
                pos += 8
                if start != EMPTY_INDEX and (start < 0 or length < 0 or start + length > len(data)):
                    raise SpecViolationError(
                        f"{where}: index {index_type} of column {column} lies outside the file"
                    )
                types[index_type] = (start, length)
    except (struct.error, UnicodeDecodeError) as err:
        raise SpecViolationError(f"{where}: truncated file index header") from err
    if pos > head_len:
        raise SpecViolationError(f"{where}: file index header longer than its head length")
    return out


def _read_utf(data: bytes, pos: int) -> tuple[str, int]:
    (n,) = struct.unpack_from(">H", data, pos)
    if pos + 2 + n > len(data):
        raise struct.error("string past the end")
    return data[pos + 2 : pos + 2 + n].decode("utf-8"), pos + 2 + n


# --- evaluation -----------------------------------------------------------------------------------


class IndexResult:
    """Java's ``FileIndexResult``: REMAIN, SKIP, or the rows that may match (``BitmapIndexResult``).

    ``and_``/``or_`` combine as Java's do: two row sets intersect / unite; REMAIN and SKIP are the
    identities and absorbers; a row set with REMAIN/SKIP keeps or drops by the other's `remain`.
    """

    __slots__ = ("rows", "skip")

    def __init__(self, skip: bool = False, rows: BitMap | None = None) -> None:
        self.skip = skip
        self.rows = rows

    @property
    def remain(self) -> bool:
        """Whether the file may hold a matching row."""
        if self.rows is not None:
            return len(self.rows) > 0
        return not self.skip

    def and_(self, other: IndexResult) -> IndexResult:
        """Both hold."""
        if self.rows is not None and other.rows is not None:
            return IndexResult(rows=self.rows & other.rows)
        if self.rows is None:
            return self if self.skip else other
        return self if other.remain else SKIP

    def or_(self, other: IndexResult) -> IndexResult:
        """Either holds."""
        if self.rows is not None and other.rows is not None:
            return IndexResult(rows=self.rows | other.rows)
        if self.rows is None:
            return other if self.skip else self
        return REMAIN if other.remain else self


REMAIN = IndexResult()
SKIP = IndexResult(skip=True)

#: The tests `FileIndex.test` knows: comparisons, ``in`` (any of the values), null tests.
TESTS = frozenset({"=", "!=", "<", "<=", ">", ">=", "in", "is null", "is not null"})


@dataclass(frozen=True, slots=True)
class FileIndex:
    """A decoded index container of one data file."""

    data: bytes
    where: str
    header: Mapping[str, Mapping[str, tuple[int, int]]]

    @classmethod
    def decode(cls, data: bytes, where: str) -> FileIndex:
        """Read a container (`where` names it in errors)."""
        return cls(bytes(data), where, decode_container(data, where))

    def test(self, column: str, t: DataType, op: str, values: Sequence[Any] = ()) -> IndexResult:
        """Java's readers on one column test, ANDed over the column's indexes.

        `op` is one of `TESTS`; `values` the literals (one, or the IN list). A test no index of
        the column answers is REMAIN.
        """
        result = REMAIN
        for index_type, (start, length) in self.header.get(column, {}).items():
            if start == EMPTY_INDEX:
                continue
            body = self.data[start : start + length]
            try:
                result = result.and_(_leaf(index_type, t, body, op, values, self.where))
            except NoKey:
                continue
            if not result.remain:
                return result
        return result


def _null_test(index_type: str, kind: str, body: bytes, negated: bool, where: str) -> IndexResult:
    if index_type == "bitmap":
        bm = decode_bitmap(kind, body, where)
        rows = bm.rows(None)
        return IndexResult(rows=BitMap(range(bm.row_count)) - rows if negated else rows)
    if index_type == "bsi":
        bsi = decode_bsi(body, where)
        rows = bsi.not_null()
        return IndexResult(rows=rows if negated else BitMap(range(bsi.row_count)) - rows)
    raise NoKey


def _leaf(
    index_type: str, t: DataType, body: bytes, op: str, values: Sequence[Any], where: str
) -> IndexResult:
    kind = index_kind(t)
    if t.root == "CHAR":
        raise NoKey  # CHAR values are padded; literals may not be
    if op in ("is null", "is not null"):
        return _null_test(index_type, kind, body, op == "is not null", where)
    if op == "in":
        op = "="
    keys = [index_key(t, v) for v in values if v is not None]
    if not keys or any(isinstance(k, float) and (math.isnan(k) or k == 0.0) for k in keys):
        raise NoKey  # NULL literals match nothing anyway; ±0.0 and NaN keys differ in Java
    if index_type == "bloom-filter" and op == "=":
        return _bloom_test(kind, body, keys)
    if index_type == "bitmap" and op in ("=", "!="):
        bm = decode_bitmap(kind, body, where)
        rows = BitMap()
        for k in keys:
            rows |= bm.rows(k)
        return IndexResult(rows=BitMap(range(bm.row_count)) - rows if op == "!=" else rows)
    if index_type == "bsi" and op != "!=" and all(isinstance(k, int) for k in keys):
        bsi = decode_bsi(body, where)
        rows = BitMap()
        for k in keys:
            rows |= bsi.compare(op, k)
        return IndexResult(rows=rows)
    raise NoKey  # a test or index type Java does not answer: the file remains


def _bloom_test(kind: str, body: bytes, keys: Sequence[Any]) -> IndexResult:
    if len(body) < 5:
        raise NoKey
    # Java adds the four bytes as signed values (equal to the big-endian int below 128)
    b0, b1, b2, b3 = struct.unpack_from(">4b", body, 0)
    hashes = (b0 << 24) + (b1 << 16) + (b2 << 8) + b3
    bits = (len(body) - 4) * 8
    for key in keys:
        try:
            h = bloom_hash(kind, key)
        except UnsupportedFeatureError:
            raise NoKey from None
        if all(body[4 + (pos >> 3)] >> (pos & 7) & 1 for pos in bloom_positions(h, hashes, bits)):
            return REMAIN
    return SKIP


# --- writing: options and the container of one data file ------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexSpec:
    """One index to build: column, index type and its options (``file-index.<type>.<col>.<k>``)."""

    column: str
    index_type: str
    options: Mapping[str, str]


def index_specs(options: Mapping[str, str]) -> list[IndexSpec]:
    """The indexes table options ask for (Java ``FileIndexOptions``), refused by name if unknown.

    >>> [(s.column, s.index_type) for s in index_specs({"file-index.bitmap.columns": "a, b"})]
    [('a', 'bitmap'), ('b', 'bitmap')]
    """
    wanted: dict[tuple[str, str], dict[str, str]] = {}
    for key, value in options.items():
        if key.startswith("file-index.") and key.endswith(".columns"):
            index_type = key[len("file-index.") : -len(".columns")]
            for name in value.split(","):
                if not name.strip():
                    raise OptionError(f"option {key} lists an empty column name")
                if "[" in name:
                    raise UnsupportedFeatureError(
                        f"option {key}: file indexes of map entries ({name.strip()}) are not "
                        "supported"
                    )
                if index_type not in INDEX_TYPES:
                    raise UnsupportedFeatureError(
                        f"option {key}: the {index_type!r} file index is not supported "
                        f"(supported: {', '.join(INDEX_TYPES)})"
                    )
                wanted.setdefault((name.strip(), index_type), {})
    for key, value in options.items():
        parts = key.split(".")
        if key.startswith("file-index.") and len(parts) == 4 and parts[3] != "columns":
            target = wanted.get((parts[2], parts[1]))
            if target is None:
                raise OptionError(
                    f'option "{key}": column "{parts[2]}" is not in file-index.{parts[1]}.columns'
                )
            target[parts[3]] = value
    return [IndexSpec(column=c, index_type=t, options=o) for (c, t), o in wanted.items()]


def _setting(spec: IndexSpec, key: str, default: str, parse: Callable[[str], Any]) -> Any:
    text = spec.options.get(key, default)
    try:
        return parse(text)
    except (ValueError, OptionError):
        raise OptionError(
            f"option file-index.{spec.index_type}.{spec.column}.{key} = {text!r} is not valid"
        ) from None


def bloom_settings(spec: IndexSpec) -> tuple[int, float]:
    """(items, fpp) of a bloom-filter index (Java's defaults 1,000,000 and 0.1).

    >>> bloom_settings(IndexSpec(column="c", index_type="bloom-filter", options={"items": "64"}))
    (64, 0.1)
    """
    items = _setting(spec, "items", "1000000", int)
    fpp = _setting(spec, "fpp", "0.1", float)
    if items <= 0 or not 0 < fpp < 1:
        raise OptionError(
            f"bloom-filter index of {spec.column}: items must be positive and fpp in (0, 1), "
            f"not {items} and {fpp}"
        )
    return items, fpp


def encode_index(spec: IndexSpec, t: DataType, keys: Sequence[Any]) -> bytes:
    """One column index of `keys` (already `index_key` values, None for null) in row order."""
    kind = index_kind(t)
    if spec.index_type == "bloom-filter":
        items, fpp = bloom_settings(spec)
        if kind not in ("string", "bytes", "byte", "short", "int", "long", "float", "double"):
            raise UnsupportedFeatureError(
                f"a bloom-filter index of column {spec.column} ({t.root}) is not supported"
            )
        return encode_bloom(kind, keys, items, fpp)
    if spec.index_type == "bitmap":
        version = _setting(spec, "version", "2", int)
        block = _setting(spec, "index-block-size", "16kb", memory_size)
        if version not in (1, 2):
            raise OptionError(f"bitmap index of {spec.column}: version {version} (1 or 2)")
        return encode_bitmap(kind, keys, version, block)
    if spec.index_type == "bsi":
        if kind not in ("byte", "short", "int", "long", "decimal"):
            raise UnsupportedFeatureError(
                f"a bsi index of column {spec.column} ({t.root}) is not supported"
            )
        return encode_bsi(keys)
    raise UnsupportedFeatureError(f"the {spec.index_type!r} file index is not supported")


def encode_file_index(
    columns: Sequence[tuple[str, str, Sequence[Any]]],
    types: Mapping[str, DataType],
    options: Mapping[str, Mapping[str, str]],
    prebuilt: Mapping[tuple[str, str], bytes] | None = None,
    option_keys: Sequence[str] = (),
) -> bytes:
    """The container of one data file: (column, index type, keys in row order) in any order.

    Keys are `index_key` values (None for null); `options` maps
    ``(column + "/" + type)`` to that index's options. Columns and types are laid out in Java's
    ``HashMap`` order, so equal rows give Java's bytes. `prebuilt` holds indexes already encoded
    (by (column, index type)); their keys are not used. `option_keys` are the table's option
    names in their stored order (they decide Java's order where names collide in a HashMap).
    """
    built: dict[str, dict[str, bytes]] = {}
    by_type: dict[str, list[str]] = {}
    for column, index_type, keys in columns:
        t = types[column]
        spec = IndexSpec(
            column=column,
            index_type=index_type,
            options=options.get(f"{column}/{index_type}", {}),
        )
        done = (prebuilt or {}).get((column, index_type))
        built.setdefault(column, {})[index_type] = (
            done if done is not None else encode_index(spec, t, keys)
        )
        by_type.setdefault(index_type, []).append(column)
    return encode_container(_java_layout(built, by_type, option_keys))


def _column_hash(name: str) -> int:
    """``FileIndexOptions.Column.hashCode``: ``Arrays.hashCode({name, null, false})``."""
    return (31 * (31 * (31 + string_hash(name)) + 0) + 1237) & 0xFFFFFFFF


def _java_layout(
    built: Mapping[str, Mapping[str, bytes]],
    by_type: Mapping[str, Sequence[str]],
    option_keys: Sequence[str],
) -> list[tuple[str, list[tuple[str, bytes | None]]]]:
    """The order Java's chain of ``HashMap``s gives columns and index types.

    ``Options`` (a HashMap of every table option, ``path`` added) yields the
    ``file-index.<type>.columns`` keys; ``FileIndexOptions`` maps each named column (Column hash,
    computeIfAbsent) to its types (computeIfAbsent); ``DataFileIndexWriter`` regroups them by type
    (computeIfAbsent, columns by put) and back by column (computeIfAbsent, types by put).
    """
    table_options = JavaHashMap(string_hash)
    for key in [*option_keys, "path"]:
        table_options.put(key)
    column_keys = {f"file-index.{t}.columns": t for t in by_type}
    per_column: dict[str, JavaHashMap] = {}
    columns = JavaHashMap(_column_hash)
    for key in [k for k in table_options.order() if k in column_keys] + [
        k for k in column_keys if k not in table_options.known
    ]:
        for column in by_type[column_keys[key]]:
            columns.compute(column)
            per_column.setdefault(column, JavaHashMap(string_hash)).compute(column_keys[key])
    maintainers = JavaHashMap(string_hash)
    by_type_java: dict[str, JavaHashMap] = {}
    for column in columns.order():
        for index_type in per_column[column].order():
            maintainers.compute(index_type)
            by_type_java.setdefault(index_type, JavaHashMap(string_hash)).put(column)
    index_maps = JavaHashMap(string_hash)
    inner: dict[str, JavaHashMap] = {}
    for index_type in maintainers.order():
        for column in by_type_java[index_type].order():
            index_maps.compute(column)
            inner.setdefault(column, JavaHashMap(string_hash)).put(index_type)
    return [(c, [(t, built[c][t]) for t in inner[c].order()]) for c in index_maps.order()]
