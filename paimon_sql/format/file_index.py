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

This module is pure (bytes in, answers out). `FileIndex.may_match` answers as Java's
``FileIndexPredicate`` does: False only when the index proves no row of the file matches.

>>> data = encode_file_index(
...     [("v", "bitmap", [3, 5, 3, None])], {"v": DataType(root="INT")}, {}
... )
>>> idx = FileIndex.decode(data, "f.index")
>>> from paimon_sql.plan.predicate import Compare
>>> cols = {"v": ("v", DataType(root="INT"))}
>>> idx.may_match(Compare(("v",), "=", 5), cols)
True
>>> idx.may_match(Compare(("v",), "=", 4), cols)
False
"""

from __future__ import annotations

import datetime
import decimal
import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pyroaring import BitMap

from paimon_sql.errors import SpecViolationError, UnsupportedFeatureError
from paimon_sql.types import DataType

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from paimon_sql.plan.predicate import Predicate

MAGIC = 1493475289347502
VERSION = 1
EMPTY_INDEX = -1
INDEX_SUFFIX = ".index"
INDEX_TYPES = ("bloom-filter", "bitmap", "bsi")

_M64 = (1 << 64) - 1
_M32 = (1 << 32) - 1


# --- Java's numbers and hashes ---------------------------------------------------------------------


def _s64(x: int) -> int:
    x &= _M64
    return x - (1 << 64) if x >> 63 else x


def _s32(x: int) -> int:
    x &= _M32
    return x - (1 << 32) if x >> 31 else x


_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _round(acc: int, lane: int) -> int:
    return (_rotl64((acc + lane * _P2) & _M64, 31) * _P1) & _M64


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 of `data` as a signed long (Java ``LongHashFunction.xx().hashBytes``).

    >>> xxh64(b"")
    -1205034819632174695
    """
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M64, (seed + _P2) & _M64, seed & _M64, (seed - _P1) & _M64]
        while i + 32 <= n:
            lanes = struct.unpack_from("<4Q", data, i)
            v = [_round(a, b) for a, b in zip(v, lanes, strict=True)]
            i += 32
        h = (_rotl64(v[0], 1) + _rotl64(v[1], 7) + _rotl64(v[2], 12) + _rotl64(v[3], 18)) & _M64
        for a in v:
            h = ((h ^ _round(0, a)) * _P1 + _P4) & _M64
    else:
        h = (seed + _P5) & _M64
    h = (h + n) & _M64
    while i + 8 <= n:
        (k,) = struct.unpack_from("<Q", data, i)
        h = (_rotl64(h ^ _round(0, k), 27) * _P1 + _P4) & _M64
        i += 8
    if i + 4 <= n:
        (k,) = struct.unpack_from("<I", data, i)
        h = (_rotl64(h ^ (k * _P1) & _M64, 23) * _P2 + _P3) & _M64
        i += 4
    while i < n:
        h = (_rotl64(h ^ (data[i] * _P5) & _M64, 11) * _P1) & _M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M64
    h ^= h >> 29
    h = (h * _P3) & _M64
    h ^= h >> 32
    return _s64(h)


def long_hash(key: int) -> int:
    """Thomas Wang's 64-bit integer hash (Java ``FastHash.getLongHash``), signed.

    >>> long_hash(1)
    6614235796240398542
    """
    key = _s64(key)
    key = _s64((~key) + (key << 21))
    key ^= key >> 24
    key = _s64(key + (key << 3) + (key << 8))
    key ^= key >> 14
    key = _s64(key + (key << 2) + (key << 4))
    key ^= key >> 28
    return _s64(key + (key << 31))


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _mix(h: int, k: int) -> int:
    k = _rotl32((k * 0xCC9E2D51) & _M32, 15)
    k = (k * 0x1B873593) & _M32
    h = _rotl32(h ^ k, 13)
    return (h * 5 + 0xE6546B64) & _M32


def murmur_bytes(data: bytes, seed: int = 42) -> int:
    """Java ``MurmurHashUtils.hashBytes`` (a BinaryString's hashCode), signed.

    >>> murmur_bytes(b"Bob") == murmur_bytes(b"Bob")
    True
    """
    n = len(data)
    aligned = n - n % 4
    h = seed
    for (k,) in struct.iter_unpack("<I", data[:aligned]):
        h = _mix(h, k)
    for b in data[aligned:]:
        h = _mix(h, (b - 256 if b > 127 else b) & _M32)
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    h ^= h >> 16
    return _s32(h)


def _string_hash(s: str) -> int:
    """Java ``String.hashCode`` over UTF-16 code units."""
    h = 0
    units = s.encode("utf-16-be")
    for (u,) in struct.iter_unpack(">H", units):
        h = (31 * h + u) & _M32
    return _s32(h)


def _float_bits(x: float) -> int:
    if math.isnan(x):
        return 0x7FC00000
    return _s32(struct.unpack(">I", struct.pack(">f", x))[0])


def _double_bits(x: float) -> int:
    if math.isnan(x):
        return 0x7FF8000000000000
    return _s64(struct.unpack(">Q", struct.pack(">d", x))[0])


def _java_hash(kind: str, key: Any) -> int:
    """The Java ``hashCode`` of an index key of `kind` (see `_kind`)."""
    if kind == "string":
        return murmur_bytes(key)
    if kind in ("byte", "short", "int"):
        return int(key)
    if kind == "long":
        return _s32(key ^ ((key & _M64) >> 32))
    if kind == "float":
        return _float_bits(key)
    if kind == "double":
        bits = _double_bits(key)
        return _s32(bits ^ ((bits & _M64) >> 32))
    if kind == "boolean":
        return 1231 if key else 1237
    raise UnsupportedFeatureError(f"no Java hash for {kind}")


def java_hashmap_order(
    keys: Sequence[Any], hash_of: Callable[[Any], int], *, compute: bool = False
) -> list[Any]:
    """`keys` (distinct, in insertion order) in the iteration order of a Java ``HashMap``.

    Buckets by ``(h ^ h >>> 16) & (capacity - 1)``, the capacity grown from 16 at a load of 0.75.
    ``put`` appends to a bucket and grows after inserting; ``computeIfAbsent`` (`compute`)
    prepends and grows before inserting. Bins turned into trees (over 8 collisions) are not
    modelled.

    >>> java_hashmap_order(["f2", "f0", "f1"], _string_hash)
    ['f0', 'f1', 'f2']
    >>> java_hashmap_order([1000000007, 77], lambda k: k, compute=True)
    [77, 1000000007]
    """
    cap = 16
    while (len(keys) - 1 if compute else len(keys)) > cap * 3 // 4:
        cap *= 2
    sign = -1 if compute else 1

    def slot(item: tuple[int, Any]) -> tuple[int, int]:
        h = hash_of(item[1]) & _M32
        return ((h ^ (h >> 16)) & (cap - 1), sign * item[0])

    return [k for _, k in sorted(enumerate(keys), key=slot)]


# --- roaring bitmaps -------------------------------------------------------------------------------


def roaring_size(data: bytes, pos: int, where: str) -> int:
    """The byte size of the portable RoaringBitmap32 starting at `pos`."""
    try:
        (cookie,) = struct.unpack_from("<I", data, pos)
        p = pos + 4
        runs: bytes = b""
        if cookie & 0xFFFF == 12347:
            size = (cookie >> 16) + 1
            runs = data[p : p + (size + 7) // 8]
            p += (size + 7) // 8
        elif cookie == 12346:
            (size,) = struct.unpack_from("<I", data, p)
            p += 4
        else:
            raise SpecViolationError(f"{where}: no roaring bitmap at offset {pos}")
        cards = [c + 1 for _, c in struct.iter_unpack("<HH", data[p : p + 4 * size])]
        p += 4 * size
        if not runs or size >= 4:
            p += 4 * size
        for i, card in enumerate(cards):
            if runs and runs[i // 8] >> (i % 8) & 1:
                (nruns,) = struct.unpack_from("<H", data, p)
                p += 2 + 4 * nruns
            else:
                p += 2 * card if card <= 4096 else 8192
    except struct.error as err:
        raise SpecViolationError(f"{where}: truncated roaring bitmap at offset {pos}") from err
    if p > len(data):
        raise SpecViolationError(f"{where}: truncated roaring bitmap at offset {pos}")
    return p - pos


def _read_bitmap(data: bytes, pos: int, where: str) -> tuple[BitMap, int]:
    size = roaring_size(data, pos, where)
    return BitMap.deserialize(data[pos : pos + size]), pos + size


def _roaring_bytes(bitmap: BitMap) -> bytes:
    """Java ``RoaringBitmap32.serialize``: run-optimised, portable format."""
    b = BitMap(bitmap)
    b.run_optimize()
    return bytes(b.serialize())


# --- index keys: how each type's values are held -----------------------------------------------------


_KINDS = {
    "TINYINT": "byte",
    "SMALLINT": "short",
    "INT": "int",
    "DATE": "int",
    "TIME": "int",
    "BIGINT": "long",
    "TIMESTAMP": "long",
    "TIMESTAMP_LTZ": "long",
    "FLOAT": "float",
    "DOUBLE": "double",
    "BOOLEAN": "boolean",
    "CHAR": "string",
    "VARCHAR": "string",
    "BINARY": "bytes",
    "VARBINARY": "bytes",
    "DECIMAL": "decimal",
}
_NAN = float("nan")  # one NaN object: dictionaries find it again by identity
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def index_kind(t: DataType) -> str:
    """How an index holds values of `t`: byte, short, int, long, float, double, boolean, string,
    bytes, decimal (or other: not indexable)."""
    return _KINDS.get(t.root, "other")


_kind = index_kind


class _NoKey(Exception):
    """A literal the index cannot look up exactly (the file then remains)."""


def _time_unit(t: DataType) -> int:
    precision = 6 if t.precision is None else t.precision
    return 1000 if precision <= 3 else 1_000_000


def index_key(t: DataType, value: Any) -> Any:
    """A column value (or predicate literal) of type `t` as the index holds it.

    Strings as UTF-8 bytes, dates as days, times as milliseconds, timestamps as epoch milliseconds
    (precision ≤ 3) or microseconds, decimals as unscaled integers. Raises `_NoKey` for a value
    that is not exactly a value of `t`.

    >>> index_key(DataType(root="TIMESTAMP", precision=3), datetime.datetime(1970, 1, 1, 0, 0, 1))
    1000
    """
    root = t.root
    if isinstance(value, bool) and root != "BOOLEAN":
        raise _NoKey
    if root in ("CHAR", "VARCHAR"):
        if not isinstance(value, str):
            raise _NoKey
        return value.encode("utf-8")
    if root in ("BINARY", "VARBINARY"):
        if not isinstance(value, bytes | bytearray | memoryview):
            raise _NoKey
        return bytes(value)
    if root in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return _integral(value)
    if root in ("FLOAT", "DOUBLE"):
        if not isinstance(value, int | float | decimal.Decimal):
            raise _NoKey
        as_float = float(value)
        if math.isnan(as_float):
            return _NAN
        if root == "FLOAT" and struct.unpack("<f", struct.pack("<f", as_float))[0] != as_float:
            raise _NoKey
        return as_float
    if root == "BOOLEAN":
        if not isinstance(value, bool):
            raise _NoKey
        return value
    if root == "DATE":
        if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
            raise _NoKey
        return (value - datetime.date(1970, 1, 1)).days
    if root == "TIME":
        return _time_millis(value)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _timestamp_key(t, value)
    if root == "DECIMAL":
        return _unscaled(t, value)
    raise _NoKey


def _integral(value: Any) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, float | decimal.Decimal) and value == int(value):
        return int(value)
    raise _NoKey


def _time_millis(value: Any) -> int:
    if isinstance(value, datetime.time):
        if value.microsecond % 1000:
            raise _NoKey
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + (
            value.microsecond // 1000
        )
    if isinstance(value, int):
        return value
    raise _NoKey


def _timestamp_key(t: DataType, value: Any) -> int:
    if isinstance(value, int):  # TIMESTAMP WITH TIME ZONE constants: epoch microseconds
        micros = value
    elif isinstance(value, datetime.datetime):
        if (value.tzinfo is None) != (t.root == "TIMESTAMP"):
            raise _NoKey
        delta = value - (_EPOCH if value.tzinfo is None else _EPOCH_UTC)
        micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    else:
        raise _NoKey
    if _time_unit(t) == 1000:
        if micros % 1000:
            raise _NoKey
        return micros // 1000
    return micros


def _unscaled(t: DataType, value: Any) -> int:
    if not isinstance(value, int | decimal.Decimal):
        raise _NoKey
    scaled = decimal.Decimal(value).scaleb(t.scale or 0)
    if scaled != scaled.to_integral_value():
        raise _NoKey
    return int(scaled)


# --- bloom filter ----------------------------------------------------------------------------------


def bloom_hash(kind: str, key: Any) -> int:
    """Java ``FastHash`` of an index key of `kind`."""
    if kind in ("string", "bytes"):
        return xxh64(key)
    if kind in ("byte", "short", "int", "long"):
        return long_hash(key)
    if kind == "float":
        return long_hash(_float_bits(key))
    if kind == "double":
        return long_hash(_double_bits(key))
    raise UnsupportedFeatureError(f"bloom-filter indexes do not support {kind} columns")


def bloom_positions(hash64: int, num_hashes: int, num_bits: int) -> list[int]:
    """The bit positions Java's ``BloomFilter64`` sets for a hash."""
    h1 = _s32(hash64)
    h2 = _s32((hash64 & _M64) >> 32)
    out = []
    for i in range(1, num_hashes + 1):
        c = _s32(h1 + i * h2)
        if c < 0:
            c = ~c
        out.append(c % num_bits)
    return out


def bloom_shape(items: int, fpp: float) -> tuple[int, int]:
    """(bits, hash functions) of a Java ``BloomFilter64(items, fpp)``.

    >>> bloom_shape(1_000_000, 0.1)
    (4792536, 3)
    """
    nb = int(-items * math.log(fpp) / (math.log(2) * math.log(2)))
    bits = nb + (8 - nb % 8)
    hashes = max(1, math.floor(bits / items * math.log(2) + 0.5))
    return bits, hashes


def encode_bloom(kind: str, keys: Iterable[Any], items: int, fpp: float) -> bytes:
    """A bloom-filter index of `keys` (None skipped)."""
    bits, hashes = bloom_shape(items, fpp)
    bitset = bytearray(bits // 8)
    for key in keys:
        if key is None:
            continue
        for pos in bloom_positions(bloom_hash(kind, key), hashes, bits):
            bitset[pos >> 3] |= 1 << (pos & 7)
    return struct.pack(">i", hashes) + bytes(bitset)


def _long_hash_np(k: np.ndarray) -> np.ndarray:
    """`long_hash` over an int64 array (wrapping arithmetic, arithmetic shifts)."""
    with np.errstate(over="ignore"):
        k = (~k) + (k << 21)
        k = k ^ (k >> 24)
        k = (k + (k << 3)) + (k << 8)
        k = k ^ (k >> 14)
        k = (k + (k << 2)) + (k << 4)
        k = k ^ (k >> 28)
        return k + (k << 31)


def encode_bloom_numbers(kind: str, values: np.ndarray, items: int, fpp: float) -> bytes:
    """`encode_bloom` of non-null numbers at array speed (the same bytes).

    >>> v = np.array([5, -3, 7], dtype=np.int64)
    >>> encode_bloom_numbers("long", v, 100, 0.05) == encode_bloom("long", [5, -3, 7], 100, 0.05)
    True
    """
    if kind == "float":
        f32 = values.astype(np.float32)
        bits32 = f32.view(np.int32).copy()
        bits32[np.isnan(f32)] = 0x7FC00000
        longs = bits32.astype(np.int64)
    elif kind == "double":
        f64 = values.astype(np.float64)
        longs = f64.view(np.int64).copy()
        longs[np.isnan(f64)] = 0x7FF8000000000000
    else:
        longs = values.astype(np.int64)
    bits, hashes = bloom_shape(items, fpp)
    h = _long_hash_np(longs)
    h1 = h.astype(np.int32).astype(np.int64)
    h2 = (h >> 32).astype(np.int32).astype(np.int64)
    mask = np.zeros(bits, dtype=bool)
    for i in range(1, hashes + 1):
        c = (h1 + i * h2).astype(np.int32)
        c = np.where(c < 0, ~c, c).astype(np.int64)
        mask[c % bits] = True
    return struct.pack(">i", hashes) + np.packbits(mask, bitorder="little").tobytes()


# --- bitmap ----------------------------------------------------------------------------------------

_PACK = {"byte": ">b", "short": ">h", "int": ">i", "long": ">q", "float": ">f", "double": ">d"}


def _key_bytes(kind: str, key: Any) -> bytes:
    if kind == "string":
        return struct.pack(">i", len(key)) + key
    if kind == "boolean":
        return b"\x01" if key else b"\x00"
    fmt = _PACK.get(kind)
    if fmt is None:
        raise UnsupportedFeatureError(f"bitmap indexes do not support {kind} columns")
    return struct.pack(fmt, key)


def _read_key(kind: str, data: bytes, pos: int) -> tuple[Any, int]:
    if kind == "string":
        (n,) = struct.unpack_from(">i", data, pos)
        if n < 0 or pos + 4 + n > len(data):
            raise struct.error("bad string length")
        return bytes(data[pos + 4 : pos + 4 + n]), pos + 4 + n
    if kind == "boolean":
        return data[pos] != 0, pos + 1
    fmt = _PACK.get(kind)
    if fmt is None:
        raise _NoKey
    return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)


def _sort_key(kind: str, key: Any) -> Any:
    """Java's comparator order: bytes unsigned, numbers numerically, -0.0 < 0.0 < NaN."""
    if kind in ("float", "double"):
        return (1, 0.0, 0) if math.isnan(key) else (0, key, 0 if math.copysign(1, key) < 0 else 1)
    return key


def encode_bitmap(
    kind: str, keys: Sequence[Any], version: int = 2, block_size: int = 16 * 1024
) -> bytes:
    """A bitmap index (Java ``BitmapFileIndex``) of the column values `keys` in row order."""
    if kind not in _PACK and kind not in ("string", "boolean"):
        raise UnsupportedFeatureError(f"bitmap indexes do not support {kind} columns")
    rows: dict[Any, BitMap] = {}
    nulls = BitMap()
    for i, key in enumerate(keys):
        if key is None:
            nulls.add(i)
        elif key in rows:
            rows[key].add(i)
        else:
            rows[key] = BitMap([i])
    order = java_hashmap_order(list(rows), lambda k: _java_hash(kind, k), compute=True)
    null_bytes = _roaring_bytes(nulls)
    offset = 0 if len(nulls) <= 1 else len(null_bytes)
    offsets: dict[Any, int] = {}
    bodies = []
    for key in order:
        bm = rows[key]
        if len(bm) == 1:
            offsets[key] = -1 - bm[0]
        else:
            body = _roaring_bytes(bm)
            bodies.append(body)
            offsets[key] = offset
            offset += len(body)
    null_offset = -1 - nulls[0] if len(nulls) == 1 else 0
    head = struct.pack(">bii?", version, len(keys), len(rows), bool(nulls))
    if version == 1:
        if nulls:
            head += struct.pack(">i", null_offset)
        head += b"".join(_key_bytes(kind, k) + struct.pack(">i", offsets[k]) for k in order)
    elif version == 2:
        if nulls:
            head += struct.pack(">ii", null_offset, len(null_bytes))
        head += _v2_meta(kind, order, offsets, null_offset, offset, block_size)
    else:
        raise UnsupportedFeatureError(f"bitmap index version {version}")
    tail = null_bytes if len(nulls) > 1 else b""
    return head + tail + b"".join(bodies)


def _v2_meta(
    kind: str,
    order: Sequence[Any],
    offsets: Mapping[Any, int],
    null_offset: int,
    final: int,
    block_size: int,
) -> bytes:
    lengths: dict[Any, int] = {}
    last_key: Any = None
    last = null_offset
    for key in order:
        off = offsets[key]
        if off >= 0:
            if last >= 0 and last_key is not None:
                lengths[last_key] = off - last
            last_key, last = key, off
    if last_key is not None:
        lengths[last_key] = final - last
    blocks: list[tuple[Any, int, list[bytes]]] = []  # first key, offset, entries
    used = 4
    for key in sorted(order, key=lambda k: _sort_key(kind, k)):
        entry = _key_bytes(kind, key) + struct.pack(">ii", offsets[key], lengths.get(key, -1))
        if not blocks or used + len(entry) > block_size:
            start = 0 if not blocks else blocks[-1][1] + used
            blocks.append((key, start, []))
            used = 4
        blocks[-1][2].append(entry)
        used += len(entry)
    out = [struct.pack(">i", len(blocks))]
    out += [_key_bytes(kind, k) + struct.pack(">i", off) for k, off, _ in blocks]
    total = sum(4 + sum(len(e) for e in entries) for _, _, entries in blocks)
    out.append(struct.pack(">i", total))
    for _, _, entries in blocks:
        out.append(struct.pack(">i", len(entries)))
        out += entries
    return b"".join(out)


@dataclass(frozen=True, slots=True)
class BitmapIndex:
    """A decoded bitmap index: row count and, per value (None: null), its rows."""

    row_count: int
    bitmaps: Mapping[Any, BitMap]

    def rows(self, key: Any) -> BitMap:
        """The rows holding `key` (empty when none)."""
        return self.bitmaps.get(key, BitMap())


def decode_bitmap(kind: str, data: bytes, where: str) -> BitmapIndex:
    """Decode one bitmap index body (`data` is exactly the index's bytes)."""
    try:
        version = data[0]
        row_count, count, has_null = struct.unpack_from(">ii?", data, 1)
        pos = 10
        null_offset, null_length = 0, -1
        if version == 1:
            if has_null:
                (null_offset,) = struct.unpack_from(">i", data, pos)
                pos += 4
            entries = []
            for _ in range(count):
                key, pos = _read_key(kind, data, pos)
                entries.append((key, struct.unpack_from(">i", data, pos)[0]))
                pos += 4
            body = pos
        elif version == 2:
            if has_null:
                null_offset, null_length = struct.unpack_from(">ii", data, pos)
                pos += 8
            entries, body = _v2_entries(kind, data, pos)
        else:
            raise SpecViolationError(f"{where}: bitmap index version {version} is not supported")
        out: dict[Any, BitMap] = {}
        if has_null:
            out[None] = _bitmap_at(data, body, null_offset, where)
        for key, off in entries:
            out[key] = _bitmap_at(data, body, off, where)
    except (struct.error, IndexError) as err:
        raise SpecViolationError(f"{where}: truncated bitmap index") from err
    return BitmapIndex(row_count, out)


def _v2_entries(kind: str, data: bytes, pos: int) -> tuple[list[tuple[Any, int]], int]:
    (blocks,) = struct.unpack_from(">i", data, pos)
    pos += 4
    starts = []
    for _ in range(blocks):
        _, pos = _read_key(kind, data, pos)
        starts.append(struct.unpack_from(">i", data, pos)[0])
        pos += 4
    (body_offset,) = struct.unpack_from(">i", data, pos)
    pos += 4
    entries = []
    for start in starts:
        p = pos + start
        (n,) = struct.unpack_from(">i", data, p)
        p += 4
        for _ in range(n):
            key, p = _read_key(kind, data, p)
            entries.append((key, struct.unpack_from(">i", data, p)[0]))
            p += 8
    return entries, pos + body_offset


def _bitmap_at(data: bytes, body: int, offset: int, where: str) -> BitMap:
    if offset < 0:
        return BitMap([-1 - offset])
    return _read_bitmap(data, body + offset, where)[0]


# --- bit-sliced index ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Slices:
    min: int
    max: int
    ebm: BitMap
    slices: tuple[BitMap, ...]

    def compare(self, op: str, value: int) -> BitMap:
        """Rows whose value `op` `value` (Java ``BitSliceIndexRoaringBitmap.compare``)."""
        lo, hi = self.min, self.max
        all_rows, none = BitMap(self.ebm), BitMap()
        shortcut = {
            "=": all_rows if lo == hi == value else none if value < lo or value > hi else None,
            ">=": all_rows if value <= lo else none if value > hi else None,
            ">": all_rows if value < lo else none if value >= hi else None,
            "<=": all_rows if value >= hi else none if value < lo else None,
            "<": all_rows if value > hi else none if value <= lo else None,
        }[op]
        if shortcut is not None:
            return shortcut
        predicate = value - lo
        gt, lt, eq = BitMap(), BitMap(), BitMap(self.ebm)
        for i in range(len(self.slices) - 1, -1, -1):
            s = self.slices[i]
            if (predicate >> i) & 1:
                lt |= eq - s
                eq &= s
            else:
                gt |= eq & s
                eq -= s
        eq &= self.ebm
        result = {"=": eq, ">": gt, "<": lt, "<=": lt | eq, ">=": gt | eq}[op]
        return result & self.ebm


_EMPTY_SLICES = _Slices(0, 0, BitMap(), ())


def _read_slices(data: bytes, pos: int, where: str) -> tuple[_Slices, int]:
    if data[pos] > 1:
        raise SpecViolationError(f"{where}: bsi version {data[pos]} is not supported")
    lo, hi = struct.unpack_from(">qq", data, pos + 1)
    ebm, pos = _read_bitmap(data, pos + 17, where)
    (n,) = struct.unpack_from(">i", data, pos)
    pos += 4
    slices = []
    for _ in range(n):
        bm, pos = _read_bitmap(data, pos, where)
        slices.append(bm)
    return _Slices(lo, hi, ebm, tuple(slices)), pos


@dataclass(frozen=True, slots=True)
class BsiIndex:
    """A decoded bit-sliced index: row count, non-negative and negative halves."""

    row_count: int
    positive: _Slices
    negative: _Slices

    def not_null(self) -> BitMap:
        """Rows with a value."""
        return self.positive.ebm | self.negative.ebm

    def compare(self, op: str, value: int) -> BitMap:
        """Rows whose value `op` `value` (Java's bsi reader, per operator)."""
        pos, neg = self.positive, self.negative
        if op == "=":
            return neg.compare("=", -value) if value < 0 else pos.compare("=", value)
        if op in ("<", "<="):
            if value < 0:
                return neg.compare(">" if op == "<" else ">=", -value)
            return pos.compare(op, value) | neg.ebm
        if op in (">", ">="):
            if value < 0:
                return pos.ebm | neg.compare("<" if op == ">" else "<=", -value)
            return pos.compare(op, value)
        raise _NoKey


def decode_bsi(data: bytes, where: str) -> BsiIndex:
    """Decode one bsi index body."""
    try:
        if data[0] > 1:
            raise SpecViolationError(f"{where}: bsi index version {data[0]} is not supported")
        (rows,) = struct.unpack_from(">i", data, 1)
        pos = 5
        positive = negative = _EMPTY_SLICES
        if data[pos]:
            positive, pos = _read_slices(data, pos + 1, where)
        else:
            pos += 1
        if data[pos]:
            negative, pos = _read_slices(data, pos + 1, where)
    except (struct.error, IndexError) as err:
        raise SpecViolationError(f"{where}: truncated bsi index") from err
    return BsiIndex(rows, positive, negative)


def _encode_slices(rows: np.ndarray, values: np.ndarray) -> bytes:
    hi = int(values.max())
    out = [struct.pack(">bqq", 1, 0, hi), _roaring_bytes(BitMap(rows.tolist()))]
    width = hi.bit_length()
    out.append(struct.pack(">i", width))
    for i in range(width):
        out.append(_roaring_bytes(BitMap(rows[(values >> i) & 1 == 1].tolist())))
    return b"".join(out)


def encode_bsi(keys: Sequence[int | None]) -> bytes:
    """A bsi index (Java ``BitSliceIndexBitmapFileIndex``) of integer keys in row order.

    Java's writer starts both halves' minimum at 0, so slices count from 0 to the maximum.

    >>> decode_bsi(encode_bsi([5, None, -2]), "x").compare("<", 0)
    BitMap([2])
    """
    rows = np.array([i for i, k in enumerate(keys) if k is not None], dtype=np.int64)
    values = np.array([k for k in keys if k is not None], dtype=np.int64)
    out = [struct.pack(">bi", 1, len(keys))]
    for half in (values >= 0, values < 0):
        if half.any():
            v = values[half]
            out.append(b"\x01" + _encode_slices(rows[half], np.abs(v)))
        else:
            out.append(b"\x00")
    return b"".join(out)


# --- the container ---------------------------------------------------------------------------------


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


# --- evaluation ------------------------------------------------------------------------------------


class _Remain:
    """Java's ``FileIndexResult.REMAIN`` / ``SKIP`` and ``BitmapIndexResult``."""

    __slots__ = ("rows", "skip")

    def __init__(self, skip: bool = False, rows: BitMap | None = None) -> None:
        self.skip = skip
        self.rows = rows

    @property
    def remain(self) -> bool:
        if self.rows is not None:
            return len(self.rows) > 0
        return not self.skip

    def and_(self, other: _Remain) -> _Remain:
        if self.rows is not None and other.rows is not None:
            return _Remain(rows=self.rows & other.rows)
        if self.rows is None and not self.skip:  # REMAIN and x = x
            return other
        if self.rows is None:  # SKIP and x = SKIP
            return self
        return self if other.remain else _SKIP

    def or_(self, other: _Remain) -> _Remain:
        if self.rows is not None and other.rows is not None:
            return _Remain(rows=self.rows | other.rows)
        if self.rows is None and not self.skip:  # REMAIN or x = REMAIN
            return self
        if self.rows is None:  # SKIP or x = x
            return other
        return _REMAIN if other.remain else self


_REMAIN = _Remain()
_SKIP = _Remain(skip=True)


@dataclass(frozen=True, slots=True)
class FileIndex:
    """A decoded index container: answers whether a predicate may match a file's rows."""

    data: bytes
    where: str
    header: Mapping[str, Mapping[str, tuple[int, int]]]

    @classmethod
    def decode(cls, data: bytes, where: str) -> FileIndex:
        """Read a container (`where` names it in errors)."""
        return cls(bytes(data), where, decode_container(data, where))

    def may_match(
        self, predicate: Predicate | None, columns: Mapping[str, tuple[str, DataType]]
    ) -> bool:
        """False only when the indexes prove no row matches.

        `columns` maps a predicate column to its name and type in the data file (schema evolution:
        same field id); a column not in it is not looked up.
        """
        if predicate is None:
            return True
        return self._test(predicate, columns).remain

    def _test(self, p: Predicate, columns: Mapping[str, tuple[str, DataType]]) -> _Remain:
        from paimon_sql.plan.predicate import And, Compare, InList, IsNull, Or

        if isinstance(p, And | Or):
            result: _Remain | None = None
            for child in p.children:
                r = self._test(child, columns)
                if result is None:
                    result = r
                elif isinstance(p, Or):
                    result = result.or_(r)
                else:
                    result = result.and_(r)
                    if not result.remain:
                        return result
            return _REMAIN if result is None else result
        if not isinstance(p, Compare | InList | IsNull) or len(p.path) != 1:
            return _REMAIN  # NOT and struct fields: no index answers them
        found = columns.get(p.path[0])
        if found is None:
            return _REMAIN
        indexes = self.header.get(found[0])
        t = found[1]
        if not indexes:
            return _REMAIN
        result = _REMAIN
        for index_type, (start, length) in indexes.items():
            if start == EMPTY_INDEX:
                continue
            body = self.data[start : start + length]
            try:
                result = result.and_(_leaf(index_type, t, body, p, self.where))
            except _NoKey:
                continue
            if not result.remain:
                return result
        return result


def _leaf(index_type: str, t: DataType, body: bytes, p: Any, where: str) -> _Remain:
    from paimon_sql.plan.predicate import Compare, InList, IsNull

    kind = _kind(t)
    if t.root == "CHAR":
        raise _NoKey  # CHAR values are padded; literals may not be
    if isinstance(p, IsNull):
        if index_type == "bitmap":
            bm = decode_bitmap(kind, body, where)
            rows = bm.rows(None)
            if p.negated:
                rows = BitMap(range(bm.row_count)) - rows
            return _Remain(rows=rows)
        if index_type == "bsi":
            bsi = decode_bsi(body, where)
            rows = bsi.not_null()
            if not p.negated:
                rows = BitMap(range(bsi.row_count)) - rows
            return _Remain(rows=rows)
        raise _NoKey
    if isinstance(p, InList):
        values, op = p.values, "="
    else:
        assert isinstance(p, Compare)
        values, op = (p.value,), p.op
    keys = [index_key(t, v) for v in values if v is not None]
    if not keys or any(isinstance(k, float) and (math.isnan(k) or k == 0.0) for k in keys):
        raise _NoKey  # NULL literals match nothing anyway; ±0.0 and NaN keys differ in Java
    if index_type == "bloom-filter":
        if op != "=":
            raise _NoKey
        return _bloom_test(kind, body, keys)
    if index_type == "bitmap":
        if op not in ("=", "!="):
            raise _NoKey
        bm = decode_bitmap(kind, body, where)
        rows = BitMap()
        for k in keys:
            rows |= bm.rows(k)
        if op == "!=":
            rows = BitMap(range(bm.row_count)) - rows
        return _Remain(rows=rows)
    if index_type == "bsi":
        if op == "!=" or not all(isinstance(k, int) for k in keys):
            raise _NoKey
        bsi = decode_bsi(body, where)
        rows = BitMap()
        for k in keys:
            rows |= bsi.compare(op, k)
        return _Remain(rows=rows)
    raise _NoKey  # an index type we do not read: the file remains


def _bloom_test(kind: str, body: bytes, keys: Sequence[Any]) -> _Remain:
    if len(body) < 5:
        raise _NoKey
    (hashes,) = struct.unpack_from(">i", body, 0)
    bits = (len(body) - 4) * 8
    for key in keys:
        try:
            h = bloom_hash(kind, key)
        except UnsupportedFeatureError:
            raise _NoKey from None
        if all(body[4 + (pos >> 3)] >> (pos & 7) & 1 for pos in bloom_positions(h, hashes, bits)):
            return _REMAIN
    return _SKIP


# --- writing: options and the container of one data file -------------------------------------------


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
                    raise ValueError(f"option {key} lists an empty column name")
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
                raise ValueError(
                    f'option "{key}": column "{parts[2]}" is not in file-index.{parts[1]}.columns'
                )
            target[parts[3]] = value
    return [IndexSpec(column=c, index_type=t, options=o) for (c, t), o in wanted.items()]


def encode_index(spec: IndexSpec, t: DataType, keys: Sequence[Any]) -> bytes:
    """One column index of `keys` (already `index_key` values, None for null) in row order."""
    kind = _kind(t)
    if spec.index_type == "bloom-filter":
        items = int(spec.options.get("items", "1000000"))
        fpp = float(spec.options.get("fpp", "0.1"))
        if kind not in ("string", "bytes", "byte", "short", "int", "long", "float", "double"):
            raise UnsupportedFeatureError(
                f"a bloom-filter index of column {spec.column} ({t.root}) is not supported"
            )
        return encode_bloom(kind, keys, items, fpp)
    if spec.index_type == "bitmap":
        version = int(spec.options.get("version", "2"))
        block = _memory(spec.options.get("index-block-size", "16kb"))
        return encode_bitmap(kind, keys, version, block)
    if spec.index_type == "bsi":
        if kind not in ("byte", "short", "int", "long", "decimal"):
            raise UnsupportedFeatureError(
                f"a bsi index of column {spec.column} ({t.root}) is not supported"
            )
        return encode_bsi(keys)
    raise UnsupportedFeatureError(f"the {spec.index_type!r} file index is not supported")


def _memory(text: str) -> int:
    units = {"b": 1, "kb": 1024, "k": 1024, "mb": 1 << 20, "m": 1 << 20, "gb": 1 << 30}
    t = text.strip().lower().replace(" ", "")
    for unit in sorted(units, key=len, reverse=True):
        if t.endswith(unit) and t[: -len(unit)].isdigit():
            return int(t[: -len(unit)]) * units[unit]
    return int(t)


def encode_file_index(
    columns: Sequence[tuple[str, str, Sequence[Any]]],
    types: Mapping[str, DataType],
    options: Mapping[str, Mapping[str, str]],
    prebuilt: Mapping[tuple[str, str], bytes] | None = None,
) -> bytes:
    """The container of one data file: (column, index type, keys in row order) in any order.

    Keys are `index_key` values (None for null); `options` maps
    ``(column + "/" + type)`` to that index's options. Columns and types are laid out in Java's
    ``HashMap`` order, so equal rows give Java's bytes. `prebuilt` holds indexes already encoded
    (by (column, index type)); their keys are not used.
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
    return encode_container(_java_layout(built, by_type))


def _java_layout(
    built: Mapping[str, Mapping[str, bytes]], by_type: Mapping[str, Sequence[str]]
) -> list[tuple[str, list[tuple[str, bytes | None]]]]:
    """Java's nesting of HashMaps: types, then columns, regrouped by column, then types."""
    inserted: list[str] = []
    per_column: dict[str, list[str]] = {}
    for index_type in java_hashmap_order(list(by_type), _string_hash, compute=True):
        for column in java_hashmap_order(list(by_type[index_type]), _string_hash):
            if column not in per_column:
                inserted.append(column)
                per_column[column] = []
            per_column[column].append(index_type)
    return [
        (c, [(t, built[c][t]) for t in java_hashmap_order(per_column[c], _string_hash)])
        for c in java_hashmap_order(inserted, _string_hash, compute=True)
    ]
