r"""BLOB data files (``.blob``, Paimon 1.4+): the values of one BLOB column, one per row.

A data-evolution table keeps each BLOB column (unless ``blob-descriptor-field`` names it) in
``.blob`` files beside the table's other data files; their manifest entries carry the column in
``write_cols`` and a row-id range inside the range of the normal data file they belong to.

Layout, read from Java 1.4.2's ``BlobFormatWriter`` / ``BlobFileMeta``:

* per non-NULL row a record: the magic ``1481511375`` (4 bytes, little-endian), the value's
  bytes, the record's whole length (8 bytes LE: magic + value + 12), and a CRC32 (4 bytes LE)
  of magic, value and length; a NULL row writes no record;
* then the index: every row's record length (``-1`` for NULL) as deltas, zig-zag varints
  (``DeltaVarintCompressor``);
* then the index's byte length (4 bytes LE) and the version byte ``1``.

Java's reader trusts the index and skips the magic and CRC; here every record is checked, so a
damaged file is an error naming it, never different bytes.

>>> import struct, zlib
>>> def record(value):
...     head = struct.pack("<i", MAGIC) + value + struct.pack("<q", len(value) + 16)
...     return head + struct.pack("<I", zlib.crc32(head))
>>> index = encode_lengths([len(record(b"ab")), -1, 16])
>>> data = record(b"ab") + record(b"") + index + struct.pack("<i", len(index)) + b"\x01"
>>> decode_blob_file(data, "data-1.blob")
[b'ab', None, b'']
"""

from __future__ import annotations

import struct
import zlib
from typing import TYPE_CHECKING

from paimon_sql.errors import CorruptFileError, UnsupportedFeatureError
from paimon_sql.format.varint import zigzag_varint

if TYPE_CHECKING:
    from collections.abc import Sequence

VERSION = 1
MAGIC = 1481511375  # written little-endian: b"\xcf\x11NX"
#: magic (4) + length (8) + CRC32 (4): a record's bytes besides its value
RECORD_OVERHEAD = 16
_TAIL = 5  # index length (4) + version (1)


def decode_lengths(data: bytes, where: str) -> list[int]:
    """The record lengths of a ``.blob`` index (``DeltaVarintCompressor.decompress``).

    >>> decode_lengths(encode_lengths([30, -1, 16]), "f")
    [30, -1, 16]
    """
    values: list[int] = []
    pos = 0
    previous = 0
    while pos < len(data):
        raw = 0
        shift = 0
        while True:
            if pos >= len(data):
                raise CorruptFileError(where, "its BLOB index ends inside a varint")
            byte = data[pos]
            pos += 1
            raw |= (byte & 0x7F) << shift
            if not byte & 0x80:
                break
            shift += 7
            if shift > 63:
                raise CorruptFileError(where, "its BLOB index holds a varint longer than 64 bits")
        delta = (raw >> 1) ^ -(raw & 1)
        previous = delta if not values else previous + delta
        values.append(previous)
    return values


def encode_lengths(lengths: Sequence[int]) -> bytes:
    """`lengths` as Java's ``DeltaVarintCompressor.compress`` writes them (deltas, zig-zag varints).

    >>> encode_lengths([30, -1, 16]).hex()
    '3c3d22'
    """
    out = bytearray()
    previous = 0
    for i, value in enumerate(lengths):
        delta = value if i == 0 else value - previous
        previous = value
        out += zigzag_varint(delta)
    return bytes(out)


def decode_blob_file(data: bytes, where: str) -> list[bytes | None]:
    r"""Every row's value of a whole ``.blob`` file (None for NULL); `where` names it in errors.

    Checked: the version byte, the index bounds, that the records fill the file before the index
    exactly, and every record's magic, stored length and CRC32.

    >>> decode_blob_file(b"\x00\x00\x00\x00\x02", "data-2.blob")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: data-2.blob: BLOB file version 2 is not read ...
    """
    if len(data) < _TAIL:
        raise CorruptFileError(where, f"a BLOB file of {len(data)} bytes is shorter than its tail")
    version = data[-1]
    if version != VERSION:
        raise UnsupportedFeatureError(
            f"{where}: BLOB file version {version} is not read by paimon-sql (only version "
            f"{VERSION}, Paimon 1.4)"
        )
    (index_length,) = struct.unpack_from("<i", data, len(data) - _TAIL)
    body = len(data) - _TAIL - index_length
    if index_length < 0 or body < 0:
        raise CorruptFileError(
            where, f"its BLOB index length {index_length} does not fit a file of {len(data)} bytes"
        )
    lengths = decode_lengths(data[body : body + index_length], where)
    out: list[bytes | None] = []
    pos = 0
    for row, length in enumerate(lengths):
        if length == -1:
            out.append(None)
            continue
        if length < RECORD_OVERHEAD or pos + length > body:
            raise CorruptFileError(
                where, f"row {row}'s BLOB record length {length} at offset {pos} is out of bounds"
            )
        (magic,) = struct.unpack_from("<i", data, pos)
        end = pos + length
        (stored,) = struct.unpack_from("<q", data, end - 12)
        (crc,) = struct.unpack_from("<I", data, end - 4)
        if magic != MAGIC or stored != length or zlib.crc32(data[pos : end - 4]) != crc:
            raise CorruptFileError(
                where, f"row {row}'s BLOB record at offset {pos} fails its magic, length or CRC32"
            )
        out.append(bytes(data[pos + 4 : end - 12]))
        pos = end
    if pos != body:
        raise CorruptFileError(
            where, f"its BLOB records end at offset {pos}, its index starts at {body}"
        )
    return out
