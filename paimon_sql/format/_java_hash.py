"""Java's hashes and ``HashMap`` order, and RoaringBitmap32 sizes, for the file-index codecs.

Layouts that follow Java's ``HashMap`` iteration order (file-index columns, bitmap bodies) need the
keys' Java ``hashCode``; bloom filters need ``FastHash`` (Thomas Wang's mix, XXH64).

>>> m = JavaHashMap(string_hash)
>>> for key in ("b", "a"):
...     m.put(key)
>>> m.order()
['a', 'b']
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING, Any

import numpy as np
from pyroaring import BitMap

from paimon_sql.errors import SpecViolationError, UnsupportedFeatureError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1


# --- Java's numbers and hashes --------------------------------------------------------------------


def s64(x: int) -> int:
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def _round(acc: int, lane: int) -> int:
    return (_rotl64((acc + lane * _P2) & M64, 31) * _P1) & M64


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 of `data` as a signed long (Java ``LongHashFunction.xx().hashBytes``).

    >>> xxh64(b"")
    -1205034819632174695
    """
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & M64, (seed + _P2) & M64, seed & M64, (seed - _P1) & M64]
        while i + 32 <= n:
            lanes = struct.unpack_from("<4Q", data, i)
            v = [_round(a, b) for a, b in zip(v, lanes, strict=True)]
            i += 32
        h = (_rotl64(v[0], 1) + _rotl64(v[1], 7) + _rotl64(v[2], 12) + _rotl64(v[3], 18)) & M64
        for a in v:
            h = ((h ^ _round(0, a)) * _P1 + _P4) & M64
    else:
        h = (seed + _P5) & M64
    h = (h + n) & M64
    while i + 8 <= n:
        (k,) = struct.unpack_from("<Q", data, i)
        h = (_rotl64(h ^ _round(0, k), 27) * _P1 + _P4) & M64
        i += 8
    if i + 4 <= n:
        (k,) = struct.unpack_from("<I", data, i)
        h = (_rotl64(h ^ (k * _P1) & M64, 23) * _P2 + _P3) & M64
        i += 4
    while i < n:
        h = (_rotl64(h ^ (data[i] * _P5) & M64, 11) * _P1) & M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & M64
    h ^= h >> 29
    h = (h * _P3) & M64
    h ^= h >> 32
    return s64(h)


def _rotl_np(x: np.ndarray, r: int) -> np.ndarray:
    out: np.ndarray = (x << np.uint64(r)) | (x >> np.uint64(64 - r))
    return out


def _round_np(acc: np.ndarray, lane: np.ndarray) -> np.ndarray:
    return _rotl_np(acc + lane * np.uint64(_P2), 31) * np.uint64(_P1)


def _xxh64_same_length(block: np.ndarray) -> np.ndarray:
    """XXH64 (seed 0) of each row of an (n, length) uint8 array, as uint64."""
    n, length = block.shape
    p1, p2, p3, p4, p5 = (np.uint64(p) for p in (_P1, _P2, _P3, _P4, _P5))
    i = 0
    if length >= 32:
        v = [np.full(n, x, dtype=np.uint64) for x in ((_P1 + _P2) & M64, _P2, 0, (-_P1) & M64)]
        while i + 32 <= length:
            lanes = block[:, i : i + 32].copy().view("<u8")
            v = [_round_np(v[j], lanes[:, j]) for j in range(4)]
            i += 32
        h = _rotl_np(v[0], 1) + _rotl_np(v[1], 7) + _rotl_np(v[2], 12) + _rotl_np(v[3], 18)
        for a in v:
            h = (h ^ _round_np(np.zeros(n, dtype=np.uint64), a)) * p1 + p4
    else:
        h = np.full(n, p5, dtype=np.uint64)
    h = h + np.uint64(length)
    zero = np.zeros(n, dtype=np.uint64)
    while i + 8 <= length:
        k = block[:, i : i + 8].copy().view("<u8")[:, 0]
        h = _rotl_np(h ^ _round_np(zero, k), 27) * p1 + p4
        i += 8
    if i + 4 <= length:
        k = block[:, i : i + 4].copy().view("<u4")[:, 0].astype(np.uint64)
        h = _rotl_np(h ^ (k * p1), 23) * p2 + p3
        i += 4
    while i < length:
        h = _rotl_np(h ^ (block[:, i].astype(np.uint64) * p5), 11) * p1
        i += 1
    h ^= h >> np.uint64(33)
    h *= p2
    h ^= h >> np.uint64(29)
    h *= p3
    h ^= h >> np.uint64(32)
    out: np.ndarray = h
    return out


def xxh64_many(values: Sequence[bytes]) -> np.ndarray:
    """`xxh64` of many byte strings at array speed, as int64 (grouped by length).

    >>> [int(h) for h in xxh64_many([b"", b"a", b"hello world"])] == [
    ...     xxh64(b""), xxh64(b"a"), xxh64(b"hello world")]
    True
    """
    return _by_length(values, np.uint64, _xxh64_same_length).view(np.int64)


def _by_length(
    values: Sequence[bytes], dtype: Any, hash_block: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """`hash_block` of the byte strings of each length, stacked as one uint8 block per length."""
    out = np.zeros(len(values), dtype=dtype)
    lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
    with np.errstate(over="ignore"):
        for length in np.unique(lengths):
            where = np.nonzero(lengths == length)[0]
            joined = b"".join(values[int(i)] for i in where)
            block = np.frombuffer(joined, dtype=np.uint8).reshape(len(where), int(length))
            out[where] = hash_block(block)
    return out


def long_hash(key: int) -> int:
    """Thomas Wang's 64-bit integer hash (Java ``FastHash.getLongHash``), signed.

    >>> long_hash(1)
    6614235796240398542
    """
    key = s64(key)
    key = s64((~key) + (key << 21))
    key ^= key >> 24
    key = s64(key + (key << 3) + (key << 8))
    key ^= key >> 14
    key = s64(key + (key << 2) + (key << 4))
    key ^= key >> 28
    return s64(key + (key << 31))


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & M32


def _mix(h: int, k: int) -> int:
    k = _rotl32((k * 0xCC9E2D51) & M32, 15)
    k = (k * 0x1B873593) & M32
    h = _rotl32(h ^ k, 13)
    return (h * 5 + 0xE6546B64) & M32


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
        h = _mix(h, (b - 256 if b > 127 else b) & M32)
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    h ^= h >> 16
    return s32(h)


def _mix_np(h: np.ndarray, k: np.ndarray) -> np.ndarray:
    k = k * np.uint32(0xCC9E2D51)
    k = (k << np.uint32(15)) | (k >> np.uint32(17))
    k = k * np.uint32(0x1B873593)
    h = h ^ k
    h = (h << np.uint32(13)) | (h >> np.uint32(19))
    out: np.ndarray = h * np.uint32(5) + np.uint32(0xE6546B64)
    return out


def murmur_many(values: Sequence[bytes]) -> np.ndarray:
    """`murmur_bytes` of many byte strings at array speed, as int32 (grouped by length).

    >>> [int(h) for h in murmur_many([b"", b"Bob", b"hello world!"])] == [
    ...     murmur_bytes(b""), murmur_bytes(b"Bob"), murmur_bytes(b"hello world!")]
    True
    """
    return _by_length(values, np.uint32, _murmur_same_length).view(np.int32)


def _murmur_same_length(block: np.ndarray) -> np.ndarray:
    """Murmur3 (seed 42) of each row of a uint8 block (strings of one length), as uint32."""
    n = block.shape[1]
    h = np.full(block.shape[0], 42, dtype=np.uint32)
    aligned = n - n % 4
    if aligned:
        words = block[:, :aligned].copy().view("<u4")
        for j in range(aligned // 4):
            h = _mix_np(h, words[:, j])
    for j in range(aligned, n):
        h = _mix_np(h, block[:, j].astype(np.int8).astype(np.int32).view(np.uint32))
    h = h ^ np.uint32(n)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


def inserted_order(hashes: np.ndarray, *, compute: bool) -> np.ndarray:
    """Iteration order (indexes) of a Java ``HashMap`` filled with distinct keys.

    `hashes` are the keys' hashCodes (int32) in insertion order, all inserted by ``put``, or all
    by ``computeIfAbsent`` (`compute`). A bucket keeps insertion order under ``put`` and reverses
    it under ``computeIfAbsent`` (resizes keep each bucket's order).

    >>> inserted_order(np.array([1000000007, 77], dtype=np.int32), compute=True).tolist()
    [1, 0]
    """
    n = len(hashes)
    cap = 16
    while (n - 1 if compute else n) > cap * 3 // 4:
        cap *= 2
    h = hashes.astype(np.int64) & M32
    slot = (h ^ (h >> 16)) & (cap - 1)
    index = np.arange(n)
    order: np.ndarray = np.lexsort((-index if compute else index, slot))
    return order


def string_hash(s: str) -> int:
    """Java ``String.hashCode`` over UTF-16 code units."""
    h = 0
    units = s.encode("utf-16-be")
    for (u,) in struct.iter_unpack(">H", units):
        h = (31 * h + u) & M32
    return s32(h)


def float_bits(x: float) -> int:
    if math.isnan(x):
        return 0x7FC00000
    return s32(struct.unpack(">I", struct.pack(">f", x))[0])


def double_bits(x: float) -> int:
    if math.isnan(x):
        return 0x7FF8000000000000
    return s64(struct.unpack(">Q", struct.pack(">d", x))[0])


def java_hash(kind: str, key: Any) -> int:
    """The Java ``hashCode`` of an index key of `kind` (see `_kind`)."""
    if kind == "string":
        return murmur_bytes(key)
    if kind in ("byte", "short", "int"):
        return int(key)
    if kind == "long":
        return s32(key ^ ((key & M64) >> 32))
    if kind == "float":
        return float_bits(key)
    if kind == "double":
        bits = double_bits(key)
        return s32(bits ^ ((bits & M64) >> 32))
    if kind == "boolean":
        return 1231 if key else 1237
    raise UnsupportedFeatureError(f"no Java hash for {kind}")


class JavaHashMap:
    """The key order of a Java ``HashMap`` (Java 8 and later).

    `put` appends to a bucket and grows after inserting; `compute` (``computeIfAbsent``) grows
    before inserting and prepends. A resize keeps each bucket's order. Bins turned into trees
    (over 8 collisions) are not modelled.
    before inserting and prepends. A resize keeps each bucket's order. Bins turned into trees
    (over 8 collisions) are not modelled.

    >>> m = JavaHashMap(lambda k: k)
    >>> for k in (1000000007, 77):
    ...     m.compute(k)
    >>> m.order()
    [77, 1000000007]
    """

    def __init__(self, hash_of: Callable[[Any], int]) -> None:
        self.hash_of = hash_of
        self.buckets: list[list[Any]] = [[] for _ in range(16)]
        self.known: set[Any] = set()

    def _slot(self, key: Any) -> int:
        h = self.hash_of(key) & M32
        return (h ^ (h >> 16)) & (len(self.buckets) - 1)

    def _grow(self) -> None:
        old = self.buckets
        self.buckets = [[] for _ in range(2 * len(old))]
        for bucket in old:
            for key in bucket:
                self.buckets[self._slot(key)].append(key)

    def put(self, key: Any) -> None:
        """``put`` of a new key (a known key keeps its place)."""
        if key in self.known:
            return
        self.known.add(key)
        self.buckets[self._slot(key)].append(key)
        if len(self.known) > len(self.buckets) * 3 // 4:
            self._grow()

    def compute(self, key: Any) -> None:
        """``computeIfAbsent`` of a new key."""
        if key in self.known:
            return
        if len(self.known) > len(self.buckets) * 3 // 4:
            self._grow()
        self.known.add(key)
        self.buckets[self._slot(key)].insert(0, key)

    def order(self) -> list[Any]:
        """The iteration order."""
        return [k for bucket in self.buckets for k in bucket]


# --- roaring bitmaps ------------------------------------------------------------------------------


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
    return int(p - pos)


def read_bitmap(data: bytes, pos: int, where: str) -> tuple[BitMap, int]:
    size = roaring_size(data, pos, where)
    return BitMap.deserialize(data[pos : pos + size]), pos + size


def roaring_bytes(bitmap: BitMap) -> bytes:
    """Java ``RoaringBitmap32.serialize``: run-optimised, portable format."""
    b = BitMap(bitmap)
    b.run_optimize()
    return bytes(b.serialize())
