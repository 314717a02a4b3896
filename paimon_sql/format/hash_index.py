"""HASH index files of dynamic-bucket tables: the key hashes of one bucket as big-endian int32s, no header.

>>> decode_hashes(encode_hashes([1, -2]))
(1, -2)
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from paimon_sql.errors import SpecViolationError


def decode_hashes(data: bytes) -> tuple[int, ...]:
    """The int32 hashes in a HASH index file."""
    if len(data) % 4:
        raise SpecViolationError(f"HASH index file of {len(data)} bytes is not a multiple of 4")
    return struct.unpack(f">{len(data) // 4}i", data)


def encode_hashes(hashes: Sequence[int]) -> bytes:
    """A HASH index file."""
    return struct.pack(f">{len(hashes)}i", *hashes)
