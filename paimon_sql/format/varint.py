"""Base-128 varints: protobuf's (ORC footers) and Avro's / Java's zig-zag longs.

>>> zigzag_varint(-1).hex(), zigzag_varint(300).hex()
('01', 'd804')
>>> read_zigzag(zigzag_varint(-12345), 0)
(-12345, 3)
>>> read_varint(bytes([0xAC, 0x02]), 0)
(300, 2)
"""

from __future__ import annotations


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The unsigned varint at `pos` of `data`, and the position after it.

    Raises ``ValueError`` for one longer than 64 bits, ``IndexError`` when `data` ends inside it.
    """
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def read_zigzag(data: bytes, pos: int) -> tuple[int, int]:
    """The zig-zag varint (an Avro long) at `pos`, and the position after it (`read_varint`)."""
    value, pos = read_varint(data, pos)
    return (value >> 1) ^ -(value & 1), pos


def zigzag_varint(value: int) -> bytes:
    """`value` (a signed 64-bit integer) as a zig-zag varint: an Avro long, a BLOB index delta."""
    raw = ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while raw > 0x7F:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)
    return bytes(out)
