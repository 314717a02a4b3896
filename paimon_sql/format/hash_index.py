"""HASH index files of dynamic-bucket tables.

The key hashes of one bucket as big-endian int32s, no header.

>>> decode_hashes(encode_hashes([1, -2]))
(1, -2)
"""

from __future__ import annotations

import array
import struct
import sys
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa

from paimon_sql.errors import SpecViolationError

if TYPE_CHECKING:
    from collections.abc import Sequence


def decode_hashes(data: bytes) -> tuple[int, ...]:
    """The int32 hashes in a HASH index file."""
    if len(data) % 4:
        raise SpecViolationError(f"HASH index file of {len(data)} bytes is not a multiple of 4")
    return struct.unpack(f">{len(data) // 4}i", data)


def encode_hashes(hashes: Sequence[int]) -> bytes:
    """A HASH index file."""
    return struct.pack(f">{len(hashes)}i", *hashes)


def hashes_to_arrow(data: bytes) -> pa.Array[Any]:
    """`decode_hashes` for large files: the hashes as an Arrow int32 array.

    >>> hashes_to_arrow(encode_hashes([1, -2])).to_pylist()
    [1, -2]
    """
    if len(data) % 4:
        raise SpecViolationError(f"HASH index file of {len(data)} bytes is not a multiple of 4")
    words = array.array("i")
    words.frombytes(data)
    if sys.byteorder == "little":
        words.byteswap()
    return pa.Array.from_buffers(pa.int32(), len(words), [None, pa.py_buffer(words.tobytes())])


def hashes_from_arrow(values: pa.Array[Any] | pa.ChunkedArray[Any]) -> bytes:
    """`encode_hashes` for large files: an Arrow array of int32 hashes (no nulls) as a HASH file.

    >>> decode_hashes(hashes_from_arrow(pa.array([1, -2], pa.int32())))
    (1, -2)
    """
    words = array.array("i")
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    for chunk in chunks:
        chunk = chunk.cast(pa.int32())
        buffer = cast("pa.Buffer", chunk.buffers()[1])  # int32 data: never None
        words.frombytes(buffer.to_pybytes()[4 * chunk.offset : 4 * (chunk.offset + len(chunk))])
    if sys.byteorder == "little":
        words.byteswap()
    return words.tobytes()
