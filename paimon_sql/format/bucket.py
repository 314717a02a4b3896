r"""Fixed-bucket assignment (paimon-format.md §6).

MurmurHash3 x86_32, seed 42, over the BinaryRow of the bucket key.

>>> from paimon_sql.types import parse_type
>>> bucket_of((5,), [parse_type("INT")], 100), bucket_of((1,), [parse_type("BIGINT")], 4)
(96, 2)
>>> hash_row_bytes(bytes(8) + b"abc" + bytes(4) + b"\x83")
-101922419
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from paimon_sql.format.binary_row import encode_row

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_sql.types import DataType

_C1, _C2, _MASK = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK


def hash_row_bytes(row: bytes, seed: int = 42) -> int:
    """Java's `MurmurHashUtils.hashBytesByWords`: 4-byte LE words, no tail, fmix; signed result."""
    h = seed
    for (k,) in struct.iter_unpack("<I", row[: len(row) - len(row) % 4]):
        k = (k * _C1) & _MASK
        k = _rotl(k, 15)
        k = (k * _C2) & _MASK
        h ^= k
        h = _rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & _MASK
    h ^= len(row)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def row_hash(values: Sequence[Any], types: Sequence[DataType]) -> int:
    """The Java `hashCode` of the BinaryRow of `values` (without its arity prefix)."""
    return hash_row_bytes(encode_row(values, types)[4:])


def bucket_of(values: Sequence[Any], types: Sequence[DataType], num_buckets: int) -> int:
    """``abs(hash % N)`` with Java's truncating remainder."""
    return bucket_of_hash(row_hash(values, types), num_buckets)


def bucket_of_hash(hash_code: int, num_buckets: int) -> int:
    """The bucket of a row of signed 32-bit hash `hash_code`: Java's ``Math.abs(hash % N)``.

    >>> bucket_of_hash(-7, 4), bucket_of_hash(-(2**31), 3)
    (3, 2)
    """
    return abs(hash_code) % num_buckets
