"""The per-type index codecs: index keys, bloom filter, bitmap (v1, v2) and bit-sliced index.

See `paimon_sql.format.file_index` for the container and the layouts.

>>> decode_bitmap("int", encode_bitmap("int", [7, None, 7]), "x").rows(7)
BitMap([0, 2])
"""

from __future__ import annotations

import bisect
import datetime
import decimal
import math
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from pyroaring import BitMap

from paimon_sql.errors import SpecViolationError, UnsupportedFeatureError
from paimon_sql.format._java_hash import (
    M64,
    double_bits,
    float_bits,
    inserted_order,
    java_hash,
    long_hash,
    murmur_many,
    read_bitmap,
    roaring_bytes,
    s32,
    xxh64,
    xxh64_many,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from paimon_sql.types import DataType

# --- index keys: how each type's values are held --------------------------------------------------


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
    """How an index holds values of `t`.

    One of byte, short, int, long, float, double, boolean, string, bytes, decimal (or other).
    """
    return _KINDS.get(t.root, "other")


_kind = index_kind


class NoKey(Exception):
    """A literal the index cannot look up exactly (the file then remains)."""


def _time_unit(t: DataType) -> int:
    precision = 6 if t.precision is None else t.precision
    return 1000 if precision <= 3 else 1_000_000


def index_key(t: DataType, value: Any) -> Any:
    """A column value (or predicate literal) of type `t` as the index holds it.

    Strings as UTF-8 bytes, dates as days, times as milliseconds, timestamps as epoch milliseconds
    (precision ≤ 3) or microseconds, decimals as unscaled integers. Raises `NoKey` for a value
    that is not exactly a value of `t`.

    >>> from paimon_sql.types import DataType
    >>> index_key(DataType(root="TIMESTAMP", precision=3), datetime.datetime(1970, 1, 1, 0, 0, 1))
    1000
    """
    if isinstance(value, bool) and t.root != "BOOLEAN":
        raise NoKey
    convert = _CONVERT.get(t.root)
    if convert is None:
        raise NoKey
    return convert(t, value)


def _string_key(t: DataType, value: Any) -> bytes:
    if not isinstance(value, str):
        raise NoKey
    return value.encode("utf-8")


def _binary_key(t: DataType, value: Any) -> bytes:
    if not isinstance(value, bytes | bytearray | memoryview):
        raise NoKey
    return bytes(value)


def _float_key(t: DataType, value: Any) -> float:
    if not isinstance(value, int | float | decimal.Decimal):
        raise NoKey
    as_float = float(value)
    if math.isnan(as_float):
        return _NAN
    if t.root == "FLOAT" and struct.unpack("<f", struct.pack("<f", as_float))[0] != as_float:
        raise NoKey
    return as_float


def _bool_key(t: DataType, value: Any) -> bool:
    if not isinstance(value, bool):
        raise NoKey
    return value


def _date_key(t: DataType, value: Any) -> int:
    if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
        raise NoKey
    return (value - datetime.date(1970, 1, 1)).days


def _integral(t: DataType, value: Any) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, float | decimal.Decimal) and value == int(value):
        return int(value)
    raise NoKey


def _time_millis(t: DataType, value: Any) -> int:
    if isinstance(value, datetime.time):
        if value.microsecond % 1000:
            raise NoKey
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + (
            value.microsecond // 1000
        )
    if isinstance(value, int):
        return value
    raise NoKey


def _timestamp_key(t: DataType, value: Any) -> int:
    if isinstance(value, int):  # TIMESTAMP WITH TIME ZONE constants: epoch microseconds
        micros = value
    elif isinstance(value, datetime.datetime):
        if (value.tzinfo is None) != (t.root == "TIMESTAMP"):
            raise NoKey
        delta = value - (_EPOCH if value.tzinfo is None else _EPOCH_UTC)
        micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    else:
        raise NoKey
    if _time_unit(t) == 1000:
        if micros % 1000:
            raise NoKey
        return micros // 1000
    return micros


def _unscaled(t: DataType, value: Any) -> int:
    if not isinstance(value, int | decimal.Decimal):
        raise NoKey
    scaled = decimal.Decimal(value).scaleb(t.scale or 0)
    if scaled != scaled.to_integral_value():
        raise NoKey
    return int(scaled)


_CONVERT: Mapping[str, Callable[[DataType, Any], Any]] = {
    "CHAR": _string_key,
    "VARCHAR": _string_key,
    "BINARY": _binary_key,
    "VARBINARY": _binary_key,
    "TINYINT": _integral,
    "SMALLINT": _integral,
    "INT": _integral,
    "BIGINT": _integral,
    "FLOAT": _float_key,
    "DOUBLE": _float_key,
    "BOOLEAN": _bool_key,
    "DATE": _date_key,
    "TIME": _time_millis,
    "TIMESTAMP": _timestamp_key,
    "TIMESTAMP_LTZ": _timestamp_key,
    "DECIMAL": _unscaled,
}


# --- bloom filter ---------------------------------------------------------------------------------


def bloom_hash(kind: str, key: Any) -> int:
    """Java ``FastHash`` of an index key of `kind`."""
    if kind in ("string", "bytes"):
        return xxh64(key)
    if kind in ("byte", "short", "int", "long"):
        return long_hash(key)
    if kind == "float":
        return long_hash(float_bits(key))
    if kind == "double":
        return long_hash(double_bits(key))
    raise UnsupportedFeatureError(f"bloom-filter indexes do not support {kind} columns")


def bloom_positions(hash64: int, num_hashes: int, num_bits: int) -> list[int]:
    """The bit positions Java's ``BloomFilter64`` sets for a hash."""
    h1 = s32(hash64)
    h2 = s32((hash64 & M64) >> 32)
    out = []
    for i in range(1, num_hashes + 1):
        c = s32(h1 + i * h2)
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
    """A bloom-filter index of `keys` (None skipped), hashed at array speed.

    >>> encode_bloom("string", [b"a", None], 8, 0.5).hex()
    '000000010010'
    """
    present = [k for k in keys if k is not None]
    if kind in ("string", "bytes"):
        return _bloom_from_hashes(xxh64_many(present), items, fpp)
    if kind in ("float", "double"):
        return encode_bloom_numbers(kind, np.array(present, dtype=np.float64), items, fpp)
    if kind in ("byte", "short", "int", "long"):
        return encode_bloom_numbers(kind, np.array(present, dtype=np.int64), items, fpp)
    raise UnsupportedFeatureError(f"bloom-filter indexes do not support {kind} columns")


def _long_hash_np(k: np.ndarray) -> np.ndarray:
    """`long_hash` over an int64 array (wrapping arithmetic, arithmetic shifts)."""
    with np.errstate(over="ignore"):
        k = (~k) + (k << 21)
        k = k ^ (k >> 24)
        k = (k + (k << 3)) + (k << 8)
        k = k ^ (k >> 14)
        k = (k + (k << 2)) + (k << 4)
        k = k ^ (k >> 28)
        out: np.ndarray = k + (k << 31)
        return out


def encode_bloom_numbers(kind: str, values: np.ndarray, items: int, fpp: float) -> bytes:
    """`encode_bloom` of non-null numbers given as an array.

    >>> v = np.array([5, -3, 7], dtype=np.int64)
    >>> h = [bloom_hash("long", x) for x in (5, -3, 7)]
    >>> bits, k = bloom_shape(100, 0.05)
    >>> want = bytearray(bits // 8)
    >>> for pos in (p for x in h for p in bloom_positions(x, k, bits)):
    ...     want[pos >> 3] |= 1 << (pos & 7)
    >>> encode_bloom_numbers("long", v, 100, 0.05)[4:] == bytes(want)
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
    return _bloom_from_hashes(_long_hash_np(longs), items, fpp)


def _bloom_from_hashes(h: np.ndarray, items: int, fpp: float) -> bytes:
    """Java's ``BloomFilter64`` bytes after adding the 64-bit hashes `h` (int64)."""
    bits, hashes = bloom_shape(items, fpp)
    h1 = h.astype(np.int32).astype(np.int64)
    h2 = (h >> 32).astype(np.int32).astype(np.int64)
    mask = np.zeros(bits, dtype=bool)
    for i in range(1, hashes + 1):
        c = (h1 + i * h2).astype(np.int32)
        c = np.where(c < 0, ~c, c).astype(np.int64)
        mask[c % bits] = True
    return struct.pack(">i", hashes) + np.packbits(mask, bitorder="little").tobytes()


# --- bitmap ---------------------------------------------------------------------------------------

_PACK = {"byte": ">b", "short": ">h", "int": ">i", "long": ">q", "float": ">f", "double": ">d"}


def _key_bytes(kind: str, key: Any) -> bytes:
    if kind == "string":
        return struct.pack(">i", len(key)) + bytes(key)
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
        raise NoKey
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
    distinct = list(rows)  # id2bitmap: computeIfAbsent in row order
    if kind == "string":
        hashes = murmur_many(distinct)
    else:
        hashes = np.array([java_hash(kind, k) for k in distinct], dtype=np.int64).astype(np.int32)
    order = [distinct[i] for i in inserted_order(hashes, compute=True)]
    null_bytes = roaring_bytes(nulls)
    offset = 0 if len(nulls) <= 1 else len(null_bytes)
    offsets: dict[Any, int] = {}
    bodies = []
    for key in order:
        bm = rows[key]
        if len(bm) == 1:
            offsets[key] = -1 - bm[0]
        else:
            body = roaring_bytes(bm)
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


@dataclass(frozen=True, slots=True, kw_only=True)
class BitmapIndex:
    """A bitmap index, read lazily: `rows` decodes only the bitmaps asked for.

    Version 1 lists every value; version 2 keeps sorted blocks of values, so a lookup reads the
    one block whose first value is the greatest not above the value (Java's binary search).
    """

    row_count: int
    kind: str
    data: bytes
    where: str
    body: int  # where the bitmaps start
    null_offset: int | None  # None: no null rows
    offsets: dict[Any, int] = field(default_factory=dict)  # v1: every value; v2: blocks read
    blocks: tuple[tuple[Any, int], ...] = ()  # v2: (sort key of the first value, entries' start)

    def rows(self, key: Any) -> BitMap:
        """The rows holding `key` (None: the null rows; empty when none)."""
        offset = self.null_offset if key is None else self._offset(key)
        if offset is None:
            return BitMap()
        if offset < 0:
            return BitMap([-1 - offset])
        try:
            return read_bitmap(self.data, self.body + offset, self.where)[0]
        except (struct.error, IndexError) as err:
            raise SpecViolationError(f"{self.where}: truncated bitmap index") from err

    def _offset(self, key: Any) -> int | None:
        if key in self.offsets or not self.blocks:
            return self.offsets.get(key)
        at = bisect.bisect_right([k for k, _ in self.blocks], _sort_key(self.kind, key)) - 1
        if at < 0:
            return None
        p = self.blocks[at][1]
        try:
            (n,) = struct.unpack_from(">i", self.data, p)
            p += 4
            if self.kind in _NUMPY_KEYS:  # fixed-width integers: binary search in place
                entries = np.frombuffer(self.data, _NUMPY_KEYS[self.kind], count=n, offset=p)
                i = int(np.searchsorted(entries["k"], key))
                if i < n and int(entries["k"][i]) == key:
                    return int(entries["o"][i])
                return None
            for _ in range(n):
                value, p = _read_key(self.kind, self.data, p)
                self.offsets[value] = struct.unpack_from(">i", self.data, p)[0]
                p += 8
        except (struct.error, IndexError) as err:
            raise SpecViolationError(f"{self.where}: truncated bitmap index") from err
        return self.offsets.get(key)


_NUMPY_KEYS = {
    kind: np.dtype([("k", code), ("o", ">i4"), ("l", ">i4")])
    for kind, code in (("byte", ">i1"), ("short", ">i2"), ("int", ">i4"), ("long", ">i8"))
}


def decode_bitmap(kind: str, data: bytes, where: str) -> BitmapIndex:
    """Read one bitmap index's header (`data` is exactly the index's bytes)."""
    try:
        version = data[0]
        row_count, count, has_null = struct.unpack_from(">ii?", data, 1)
        pos = 10
        null_offset = 0
        offsets: dict[Any, int] = {}
        blocks: tuple[tuple[Any, int], ...] = ()
        if version == 1:
            if has_null:
                (null_offset,) = struct.unpack_from(">i", data, pos)
                pos += 4
            for _ in range(count):
                key, pos = _read_key(kind, data, pos)
                offsets[key] = struct.unpack_from(">i", data, pos)[0]
                pos += 4
            body = pos
        elif version == 2:
            if has_null:
                null_offset, _length = struct.unpack_from(">ii", data, pos)
                pos += 8
            blocks, body = _v2_blocks(kind, data, pos)
        else:
            raise SpecViolationError(f"{where}: bitmap index version {version} is not supported")
    except (struct.error, IndexError) as err:
        raise SpecViolationError(f"{where}: truncated bitmap index") from err
    return BitmapIndex(
        row_count=row_count,
        kind=kind,
        data=data,
        where=where,
        body=body,
        null_offset=null_offset if has_null else None,
        offsets=offsets,
        blocks=blocks,
    )


def _v2_blocks(kind: str, data: bytes, pos: int) -> tuple[tuple[tuple[Any, int], ...], int]:
    (count,) = struct.unpack_from(">i", data, pos)
    pos += 4
    firsts = []
    for _ in range(count):
        key, pos = _read_key(kind, data, pos)
        firsts.append((key, struct.unpack_from(">i", data, pos)[0]))
        pos += 4
    (body_offset,) = struct.unpack_from(">i", data, pos)
    pos += 4
    blocks = tuple((_sort_key(kind, key), pos + start) for key, start in firsts)
    return blocks, pos + body_offset


# --- bit-sliced index -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slices:
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


EMPTY_SLICES = Slices(0, 0, BitMap(), ())


def _read_slices(data: bytes, pos: int, where: str) -> tuple[Slices, int]:
    if data[pos] > 1:
        raise SpecViolationError(f"{where}: bsi version {data[pos]} is not supported")
    lo, hi = struct.unpack_from(">qq", data, pos + 1)
    ebm, pos = read_bitmap(data, pos + 17, where)
    (n,) = struct.unpack_from(">i", data, pos)
    pos += 4
    slices = []
    for _ in range(n):
        bm, pos = read_bitmap(data, pos, where)
        slices.append(bm)
    return Slices(lo, hi, ebm, tuple(slices)), pos


@dataclass(frozen=True, slots=True)
class BsiIndex:
    """A decoded bit-sliced index: row count, non-negative and negative halves."""

    row_count: int
    positive: Slices
    negative: Slices

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
        raise NoKey


def decode_bsi(data: bytes, where: str) -> BsiIndex:
    """Decode one bsi index body."""
    try:
        if data[0] > 1:
            raise SpecViolationError(f"{where}: bsi index version {data[0]} is not supported")
        (rows,) = struct.unpack_from(">i", data, 1)
        pos = 5
        positive = negative = EMPTY_SLICES
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
    out = [struct.pack(">bqq", 1, 0, hi), roaring_bytes(BitMap(rows.tolist()))]
    width = hi.bit_length()
    out.append(struct.pack(">i", width))
    for i in range(width):
        out.append(roaring_bytes(BitMap(rows[(values >> i) & 1 == 1].tolist())))
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
