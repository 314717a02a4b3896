"""ORC's run-length encodings of integers (versions 1 and 2) and booleans: bytes in, numpy out.

The ORC specification, "Run Length Encoding". Pure decoders, no I/O: `io.orc_timestamps` reads the
TIMESTAMP columns pyarrow's ORC reader cannot return through them (values outside pyarrow's
nanosecond range, such as the ``9999-12-31`` sentinels of slowly changing dimensions).

>>> decode_integers(bytes([0x0A, 0x27, 0x10]), 5, signed=False).tolist()  # short repeat
[10000, 10000, 10000, 10000, 10000]
>>> decode_integers(bytes([0x5E, 0x03, 0x5C, 0xA1, 0xAB, 0x1E, 0xDE, 0xAD, 0xBE, 0xEF]), 4,
...                 signed=False).tolist()  # direct, 16 bits
[23713, 43806, 57005, 48879]
>>> decode_integers(bytes([0xC6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46]), 10,
...                 signed=False).tolist()  # delta
[2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
>>> decode_booleans(bytes([0xFF, 0x80]), 3).tolist()
[True, False, False]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from paimon_sql.format.varint import read_varint

#: The 5-bit width codes of RLE version 2 and the bit widths they stand for.
_WIDTHS: tuple[int, ...] = (*range(1, 25), 26, 28, 30, 32, 40, 48, 56, 64)

Int64s = npt.NDArray[np.int64]


def _zigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def _closest_fixed_bits(bits: int) -> int:
    """The smallest width of `_WIDTHS` holding `bits` (a patch entry's width)."""
    for width in _WIDTHS:
        if width >= bits:
            return width
    raise ValueError(f"ORC patch entry of {bits} bits")


def _unpack(data: bytes, pos: int, count: int, width: int) -> tuple[npt.NDArray[np.uint64], int]:
    """`count` unsigned big-endian values of `width` bits packed from byte `pos`, and the end."""
    size = (count * width + 7) // 8
    if pos + size > len(data):
        raise ValueError("ORC integer stream ends inside a bit-packed run")
    bits = np.unpackbits(np.frombuffer(data, np.uint8, size, pos))[: count * width]
    weights = np.left_shift(np.uint64(1), np.arange(width - 1, -1, -1, dtype=np.uint64))
    values = (bits.reshape(count, width).astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    return values, pos + size


def _signed(values: npt.NDArray[np.uint64]) -> Int64s:
    """Zigzag-decoded values."""
    half = (values >> np.uint64(1)).astype(np.int64)
    return np.bitwise_xor(half, -((values & np.uint64(1)).astype(np.int64)))


def _run_v2(data: bytes, pos: int, signed: bool) -> tuple[Int64s, int]:
    """One run of RLE version 2 starting at `pos`, and where the next starts."""
    first = data[pos]
    kind = first >> 6
    if kind == 0:  # short repeat: 3-10 copies of one value of 1-8 bytes
        width = ((first >> 3) & 7) + 1
        value = int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
        value = _zigzag(value) if signed else value
        return np.full((first & 7) + 3, value, np.int64), pos + 1 + width
    length = ((first & 1) << 8 | data[pos + 1]) + 1
    if kind == 1:  # direct: bit-packed values
        packed, end = _unpack(data, pos + 2, length, _WIDTHS[(first >> 1) & 31])
        return (_signed(packed) if signed else packed.astype(np.int64)), end
    if kind == 2:  # patched base: a base, small offsets, and patches for the few large ones
        width = _WIDTHS[(first >> 1) & 31]
        third, fourth = data[pos + 2], data[pos + 3]
        base_bytes = ((third >> 5) & 7) + 1
        patch_width = _WIDTHS[third & 31]
        gap_width = ((fourth >> 5) & 7) + 1
        patches = fourth & 31
        pos += 4
        base = int.from_bytes(data[pos : pos + base_bytes], "big")
        sign = 1 << (base_bytes * 8 - 1)  # sign and magnitude
        base = -(base & ~sign) if base & sign else base
        packed, pos = _unpack(data, pos + base_bytes, length, width)
        entries, pos = _unpack(data, pos, patches, _closest_fixed_bits(patch_width + gap_width))
        index = 0
        for entry in entries.tolist():
            index += entry >> patch_width
            packed[index] |= np.uint64((entry & ((1 << patch_width) - 1)) << width)
        return packed.astype(np.int64) + base, pos
    # delta: a base, a first delta and bit-packed magnitudes of the next deltas (same sign)
    code = (first >> 1) & 31
    base, pos = read_varint(data, pos + 2)
    base = _zigzag(base) if signed else base
    delta, pos = read_varint(data, pos)
    delta = _zigzag(delta)
    if code == 0:
        return base + delta * np.arange(length, dtype=np.int64), pos
    magnitudes, pos = _unpack(data, pos, length - 2, _WIDTHS[code])
    steps = magnitudes.astype(np.int64) * (-1 if delta < 0 else 1)
    out = np.empty(length, np.int64)
    out[0] = base
    out[1:] = base + delta + np.concatenate(([0], np.cumsum(steps)))
    return out, pos


def _run_v1(data: bytes, pos: int, signed: bool) -> tuple[Int64s, int]:
    """One run of RLE version 1: a repeat with a fixed delta, or literal varints."""
    control = data[pos]
    if control < 128:
        delta = int.from_bytes(data[pos + 1 : pos + 2], "big", signed=True)
        base, pos = read_varint(data, pos + 2)
        base = _zigzag(base) if signed else base
        return base + delta * np.arange(control + 3, dtype=np.int64), pos
    pos += 1
    values = []
    for _ in range(256 - control):
        value, pos = read_varint(data, pos)
        values.append(_zigzag(value) if signed else value)
    return np.array(values, np.int64), pos


def decode_integers(data: bytes, count: int, *, signed: bool, version: int = 2) -> Int64s:
    """The first `count` integers of an ORC integer stream (RLE `version` 1 or 2).

    Raises `ValueError` when the stream holds fewer.
    """
    run = _run_v2 if version == 2 else _run_v1
    parts: list[Int64s] = []
    pos = n = 0
    while n < count:
        if pos >= len(data):
            raise ValueError(f"ORC integer stream ends after {n} of {count} values")
        part, pos = run(data, pos, signed)
        parts.append(part)
        n += len(part)
    return np.concatenate(parts)[:count] if parts else np.zeros(0, np.int64)


def decode_bytes(data: bytes, count: int) -> npt.NDArray[np.uint8]:
    """The first `count` bytes of an ORC byte-RLE stream (runs of 3-130, literals of 1-128)."""
    parts: list[npt.NDArray[np.uint8]] = []
    pos = n = 0
    while n < count:
        if pos >= len(data):
            raise ValueError(f"ORC byte stream ends after {n} of {count} values")
        control = data[pos]
        if control < 128:
            part = np.full(control + 3, data[pos + 1], np.uint8)
            pos += 2
        else:
            size = 256 - control
            part = np.frombuffer(data, np.uint8, size, pos + 1)
            pos += 1 + size
        parts.append(part)
        n += len(part)
    return np.concatenate(parts)[:count] if parts else np.zeros(0, np.uint8)


def decode_booleans(data: bytes, count: int) -> npt.NDArray[np.bool_]:
    """The first `count` booleans of an ORC boolean stream (byte RLE; 8 a byte, high bit first)."""
    packed = decode_bytes(data, (count + 7) // 8)
    return np.unpackbits(packed)[:count].astype(np.bool_)


def decode_nanos(values: Int64s) -> Int64s:
    """ORC TIMESTAMP nanoseconds, whose low 3 bits ``z`` say ``z + 1`` zeros were cut (0: none).

    >>> decode_nanos(np.array([(5 << 3) | 5, 7 << 3], np.int64)).tolist()
    [5000000, 7]
    """
    zeros = values & 7
    scale = np.where(zeros == 0, 1, 10 ** (zeros + 1))
    return (values >> 3) * scale
