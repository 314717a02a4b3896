r"""Deletion-vector index files (paimon-format.md §8).

A version byte, then per data file a bitmap of deleted rows.

32-bit entries: BE size, BE magic 0x5E43F2D0, portable Roaring bitmap, BE CRC32 over magic + bitmap.
64-bit entries: BE size, LE magic 0x6439D3D1, Roaring64 (count + keyed 32-bit bitmaps), BE CRC32.

>>> from pyroaring import BitMap
>>> blob = encode_index_file([BitMap([2, 3]), BitMap([1])])
>>> blob[:1], len(blob)
(b'\x01', 63)
>>> sorted(decode_vector(blob, 1, "f"))
[2, 3]
>>> sorted(decode_vector(blob, 33, "f"))
[1]
"""

from __future__ import annotations

import struct
import zlib
from typing import TYPE_CHECKING

from pyroaring import BitMap, BitMap64

from paimon_sql.errors import SpecViolationError

if TYPE_CHECKING:
    from collections.abc import Sequence

VERSION = 1
MAGIC_32 = 1581511376  # 0x5E43F2D0, written big-endian
MAGIC_64 = 1681511377  # 0x6439D3D1, written little-endian


def decode_vector(
    data: bytes,
    offset: int,
    where: str,
    *,
    length: int | None = None,
    cardinality: int | None = None,
) -> BitMap | BitMap64:
    """The deleted row positions of the entry at `offset`; `where` names the file in errors.

    Checked (§8): the version byte, the bounds, the CRC32, the magic, that the bitmap decodes, and,
    when the index manifest gives them, the entry's `length` (32-bit: the size; 64-bit: size + 8)
    and `cardinality`.

    >>> from pyroaring import BitMap
    >>> blob = encode_index_file([BitMap([2, 3])])
    >>> decode_vector(blob, 1, "index-x", length=24, cardinality=3)
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    paimon_sql.errors.SpecViolationError: index-x: deletion vector at offset 1 holds 2 positions,
    the index manifest says 3
    """
    if not data or data[0] != VERSION:
        got = data[0] if data else None
        raise SpecViolationError(
            f"{where}: deletion-vector file version {got!r}, expected {VERSION}"
        )
    if offset < 1 or offset + 8 > len(data):
        raise SpecViolationError(f"{where}: deletion vector at offset {offset} is outside the file")
    (size,) = struct.unpack_from(">i", data, offset)
    body = data[offset + 4 : offset + 4 + size]
    if size < 4 or len(body) != size or offset + 8 + size > len(data):
        raise SpecViolationError(f"{where}: deletion vector at offset {offset} is truncated")
    (crc,) = struct.unpack_from(">I", data, offset + 4 + size)
    if zlib.crc32(body) != crc:
        raise SpecViolationError(
            f"{where}: deletion vector at offset {offset} fails its CRC32 check (corrupt file)"
        )
    bitmap = _bitmap(body, where, offset)
    expected_length = size if isinstance(bitmap, BitMap) else size + 8
    if length is not None and length != expected_length:
        raise SpecViolationError(
            f"{where}: deletion vector at offset {offset} is {expected_length} bytes, the index "
            f"manifest says {length}"
        )
    if cardinality is not None and len(bitmap) != cardinality:
        raise SpecViolationError(
            f"{where}: deletion vector at offset {offset} holds {len(bitmap)} positions, the index "
            f"manifest says {cardinality}"
        )
    return bitmap


def _bitmap(body: bytes, where: str, offset: int) -> BitMap | BitMap64:
    try:
        if struct.unpack_from(">i", body, 0)[0] == MAGIC_32:
            return BitMap.deserialize(body[4:])
        if struct.unpack_from("<i", body, 0)[0] == MAGIC_64:
            return BitMap64.deserialize(body[4:])
    except (ValueError, OverflowError, MemoryError) as err:
        raise SpecViolationError(
            f"{where}: deletion vector at offset {offset} does not decode: {err}"
        ) from err
    raise SpecViolationError(f"{where}: unknown deletion-vector magic at offset {offset}")


def encode_vector(bitmap: BitMap | BitMap64) -> bytes:
    r"""One entry: size, magic, bitmap, CRC, in Java's run-optimised form.

    A `BitMap` gives a 32-bit entry (BE magic, portable Roaring); a `BitMap64` a 64-bit one (LE
    magic, then the Roaring64 portable form: LE count, per high key an LE key and a 32-bit
    portable bitmap), as Java's ``Bitmap64DeletionVector`` for ``deletion-vectors.bitmap64``.

    >>> from pyroaring import BitMap, BitMap64
    >>> encode_vector(BitMap([1])).hex()
    '000000165e43f2d03a3000000100000000000000100000000100fa2b5192'
    >>> sorted(decode_vector(b"\x01" + encode_vector(BitMap64([1, 1 << 33])), 1, "f"))
    [1, 8589934592]
    """
    if isinstance(bitmap, BitMap64):
        wide = BitMap64(bitmap)
        wide.run_optimize()
        body = struct.pack("<i", MAGIC_64) + wide.serialize()
    else:
        narrow = BitMap(bitmap)
        narrow.run_optimize()
        body = struct.pack(">i", MAGIC_32) + narrow.serialize()
    return struct.pack(">i", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def encode_index_file(bitmaps: Sequence[BitMap | BitMap64]) -> bytes:
    """A whole index file; entry i starts at offset 1 + sum of earlier entry sizes."""
    return encode_index(bitmaps)[0]


def encode_index(
    bitmaps: Sequence[BitMap | BitMap64],
) -> tuple[bytes, tuple[tuple[int, int], ...]]:
    """A whole index file and, per entry, the (offset, length) its index manifest records.

    §8: the offset is that of the entry's size field; the length is what Java's ``serializeTo``
    returns: a 32-bit entry's size (without the size field and the CRC), a 64-bit entry's whole
    length (size field and CRC included).

    >>> from pyroaring import BitMap, BitMap64
    >>> blob, ranges = encode_index([BitMap([2, 3]), BitMap([1])])
    >>> ranges
    ((1, 24), (33, 22))
    >>> sorted(decode_vector(blob, 33, "f", length=22, cardinality=1))
    [1]
    >>> blob, ranges = encode_index([BitMap64([2, 3])])
    >>> ranges, sorted(decode_vector(blob, 1, "f", length=ranges[0][1], cardinality=2))
    (((1, 44),), [2, 3])
    """
    parts, ranges = [bytes([VERSION])], []
    offset = 1
    for bitmap in bitmaps:
        entry = encode_vector(bitmap)
        wide = isinstance(bitmap, BitMap64)
        ranges.append((offset, len(entry) if wide else len(entry) - 8))
        parts.append(entry)
        offset += len(entry)
    return b"".join(parts), tuple(ranges)
