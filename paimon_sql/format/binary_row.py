"""BinaryRow: Paimon's serialized row of partitions, min/max keys and statistics (format §5).

Serialized form: a big-endian int32 arity, then the row: a header of null bits, 8-byte slots, a var
part; the row body is little-endian. Values are Python values: int, float, bool, str, bytes,
`decimal.Decimal`, `datetime.date`, `datetime.time`, naive `datetime.datetime` (TIMESTAMP) or aware
UTC (TIMESTAMP_LTZ).

>>> from paimon_sql.types import parse_type
>>> types = [parse_type("STRING"), parse_type("INT")]
>>> data = encode_row(("20240514", 10), types)
>>> data.hex() == ("00000002" + "00" * 8 + "0800000018000000" + "0a00000000000000"
...               + "3230323430353134")
True
>>> decode_row(data, types)
('20240514', 10)
"""

from __future__ import annotations

import datetime
import decimal
import struct
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import SpecViolationError
from paimon_sql.types import BINARY_ROOTS, STRING_ROOTS, TIMESTAMP_ROOTS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_sql.types import DataType

_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)

EMPTY_ROW = b"\x00" * 12


def header_size(arity: int) -> int:
    """Bytes of the header plus null bits: ``((n + 63 + 8) // 64) * 8``."""
    return ((arity + 63 + 8) // 64) * 8


def _is_compact_decimal(t: DataType) -> bool:
    return (t.precision or 0) <= 18


def _is_compact_timestamp(t: DataType) -> bool:
    return (t.precision or 0) <= 3


def _var_bytes(row: bytes, slot: int) -> bytes:
    (word,) = struct.unpack_from("<Q", row, slot)
    if word & (1 << 63):  # inline: the last byte holds 0x80 | len
        length = (word >> 56) & 0x7F
        return row[slot : slot + length]
    offset, length = word >> 32, word & 0xFFFFFFFF
    if offset + length > len(row):
        raise SpecViolationError("BinaryRow var part points past the end of the row")
    return row[offset : offset + length]


def _decode_field(row: bytes, slot: int, t: DataType) -> Any:  # noqa: C901
    r = t.root
    if r == "BOOLEAN":
        return row[slot] != 0
    if r == "TINYINT":
        return struct.unpack_from("<b", row, slot)[0]
    if r == "SMALLINT":
        return struct.unpack_from("<h", row, slot)[0]
    if r == "INT":
        return struct.unpack_from("<i", row, slot)[0]
    if r == "BIGINT":
        return struct.unpack_from("<q", row, slot)[0]
    if r == "FLOAT":
        return struct.unpack_from("<f", row, slot)[0]
    if r == "DOUBLE":
        return struct.unpack_from("<d", row, slot)[0]
    if r == "DATE":
        return _EPOCH_DATE + datetime.timedelta(days=struct.unpack_from("<i", row, slot)[0])
    if r == "TIME":
        millis = struct.unpack_from("<i", row, slot)[0]
        return (datetime.datetime.min + datetime.timedelta(milliseconds=millis)).time()
    if r in STRING_ROOTS:
        return _var_bytes(row, slot).decode("utf-8")
    if r in BINARY_ROOTS:
        return _var_bytes(row, slot)
    if r == "DECIMAL":
        if _is_compact_decimal(t):
            unscaled = struct.unpack_from("<q", row, slot)[0]
        else:
            unscaled = int.from_bytes(_var_bytes(row, slot), "big", signed=True)
        with decimal.localcontext() as ctx:
            ctx.prec = 80
            return decimal.Decimal(unscaled).scaleb(-(t.scale or 0))
    if r in TIMESTAMP_ROOTS:
        if _is_compact_timestamp(t):
            millis, nanos = struct.unpack_from("<q", row, slot)[0], 0
        else:
            (word,) = struct.unpack_from("<Q", row, slot)
            offset, nanos = word >> 32, word & 0xFFFFFFFF
            millis = struct.unpack_from("<q", row, offset)[0]
        base = _EPOCH_UTC if r == "TIMESTAMP_LTZ" else _EPOCH
        value = base + datetime.timedelta(milliseconds=millis, microseconds=nanos // 1000)
        return NanoDatetime.of(value, nanos % 1000) if nanos % 1000 else value
    return None  # nested values are not decoded from stats rows


class NanoDatetime(datetime.datetime):
    """A TIMESTAMP(7..9) value with digits below the microsecond: a datetime and its `nanosecond`.

    Only a value that has such digits is one; it compares as its microseconds (a datetime), and
    its exact digits name its partition folder (`paimon_sql.format.partition.value_string`), as
    pandas' Timestamp does.

    >>> v = NanoDatetime.of(datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), 789)
    >>> v.microsecond, v.nanosecond, v == datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
    (123456, 789, True)
    """

    nanosecond: int

    @classmethod
    def of(cls, value: datetime.datetime, nanosecond: int) -> NanoDatetime:
        """`value` with `nanosecond` (0..999) beyond its microseconds."""
        out = cls.combine(value.date(), value.timetz())
        out.nanosecond = nanosecond
        return out


def decode_row(data: bytes, types: Sequence[DataType]) -> tuple[Any, ...]:
    """The values of a serialized BinaryRow (with its arity prefix), one per type."""
    if len(data) < 4:
        raise SpecViolationError(f"BinaryRow of {len(data)} bytes is too short")
    (arity,) = struct.unpack_from(">i", data, 0)
    row = data[4:]
    if arity != len(types):
        raise SpecViolationError(f"BinaryRow has {arity} fields, expected {len(types)}")
    head = header_size(arity)
    if len(row) < head + 8 * arity:
        raise SpecViolationError("BinaryRow is shorter than its fixed part")
    out: list[Any] = []
    for i, t in enumerate(types):
        bit = i + 8
        if row[bit // 8] & (1 << (bit % 8)):
            out.append(None)
        else:
            out.append(_decode_field(row, head + 8 * i, t))
    return tuple(out)


def row_arity(data: bytes) -> int:
    """The arity prefix of a serialized BinaryRow."""
    arity: int = struct.unpack_from(">i", data, 0)[0]
    return arity


# --- encoding ---------------------------------------------------------------------------------


def _timestamp_parts(value: datetime.datetime, ltz: bool) -> tuple[int, int]:
    if ltz:
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.UTC)
        delta = value - _EPOCH_UTC
    else:
        delta = value.replace(tzinfo=None) - _EPOCH
    micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    millis, rest = divmod(micros, 1000)
    return millis, rest * 1000 + getattr(value, "nanosecond", 0)  # NanoDatetime, pandas' Timestamp


def _unscaled(value: decimal.Decimal, scale: int) -> int:
    with decimal.localcontext() as ctx:
        ctx.prec = 80  # DECIMAL(38) needs more than the default 28 digits
        return int(
            decimal.Decimal(value).scaleb(scale).to_integral_value(rounding=decimal.ROUND_HALF_UP)
        )


def _fixed_slot(value: Any, t: DataType) -> bytes | None:  # noqa: C901
    """The 8 slot bytes of a fixed-width value, or None when the value needs the var part."""
    r = t.root
    if r == "BOOLEAN":
        return struct.pack("<?7x", bool(value))
    if r == "TINYINT":
        return struct.pack("<b7x", value)
    if r == "SMALLINT":
        return struct.pack("<h6x", value)
    if r == "INT":
        return struct.pack("<i4x", value)
    if r == "DATE":
        days = value if isinstance(value, int) else (value - _EPOCH_DATE).days
        return struct.pack("<i4x", days)
    if r == "TIME":
        if isinstance(value, datetime.time):
            value = (
                (value.hour * 60 + value.minute) * 60 + value.second
            ) * 1000 + value.microsecond // 1000
        return struct.pack("<i4x", value)
    if r == "BIGINT":
        return struct.pack("<q", value)
    if r == "FLOAT":
        return struct.pack("<f4x", value)
    if r == "DOUBLE":
        return struct.pack("<d", value)
    if r == "DECIMAL" and _is_compact_decimal(t):
        return struct.pack("<q", _unscaled(value, t.scale or 0))
    if r in TIMESTAMP_ROOTS and _is_compact_timestamp(t):
        return struct.pack("<q", _timestamp_parts(value, r == "TIMESTAMP_LTZ")[0])
    return None


def encode_row(values: Sequence[Any], types: Sequence[DataType]) -> bytes:
    """Serialize values as a BinaryRow with its big-endian arity prefix, byte-identical to Java."""
    arity = len(types)
    head = header_size(arity)
    fixed = bytearray(head + 8 * arity)
    var = bytearray()
    for i, (value, t) in enumerate(zip(values, types, strict=True)):
        slot = head + 8 * i
        offset = len(fixed) + len(var)
        if value is None:
            bit = i + 8
            fixed[bit // 8] |= 1 << (bit % 8)
            # Java still reserves the var region of a null non-compact DECIMAL / TIMESTAMP (§5.1).
            if t.root == "DECIMAL" and not _is_compact_decimal(t):
                fixed[slot : slot + 8] = struct.pack("<Q", offset << 32)
                var += bytes(16)
            elif t.root in TIMESTAMP_ROOTS and not _is_compact_timestamp(t):
                fixed[slot : slot + 8] = struct.pack("<Q", offset << 32)
                var += bytes(8)
            continue
        slot_bytes = _fixed_slot(value, t)
        if slot_bytes is not None:
            fixed[slot : slot + 8] = slot_bytes
            continue
        if t.root == "DECIMAL":
            unscaled = _unscaled(value, t.scale or 0)
            # Java's BigInteger.toByteArray(): minimal two's complement, bitLength(~u) for
            # negatives.
            bits = (unscaled if unscaled >= 0 else ~unscaled).bit_length()
            raw = unscaled.to_bytes(bits // 8 + 1, "big", signed=True)
            fixed[slot : slot + 8] = struct.pack("<Q", (offset << 32) | len(raw))
            var += raw + bytes(16 - len(raw))
            continue
        if t.root in TIMESTAMP_ROOTS:
            millis, nanos = _timestamp_parts(value, t.root == "TIMESTAMP_LTZ")
            fixed[slot : slot + 8] = struct.pack("<Q", (offset << 32) | nanos)
            var += struct.pack("<q", millis)
            continue
        if t.root in STRING_ROOTS | BINARY_ROOTS:
            raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
            if len(raw) <= 7:
                fixed[slot : slot + 8] = raw + bytes(7 - len(raw)) + bytes([0x80 | len(raw)])
            else:
                fixed[slot : slot + 8] = struct.pack("<Q", (offset << 32) | len(raw))
                var += raw + bytes((-len(raw)) % 8)
            continue
        raise SpecViolationError(f"cannot encode a {t.root} value into a BinaryRow")
    return struct.pack(">i", arity) + bytes(fixed) + bytes(var)
