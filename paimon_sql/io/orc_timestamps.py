"""Undo a one-second error of pyarrow's ORC reader on TIMESTAMP columns near 1970.

ORC stores a TIMESTAMP as seconds (truncated toward zero, so a negative time with a sub-second part
is one second late) and nanoseconds; a reader subtracts the second back when the seconds are
negative. ORC C++ before ORC-2151 (2026; pyarrow up to 26 bundles it) does that after shifting
the value from the writer's time zone to the reader's (UTC), so a value whose seconds are
negative in the writer's zone but not in UTC (or the reverse) is one second off. Java writes
TIMESTAMP columns in its JVM zone (``writerTimezone`` of each stripe footer): with
``Asia/Shanghai``, ``1970-01-01 00:00:00.001`` reads as ``00:00:01.001``. Apache Paimon (Java's
ORC reader) reads it right; `fix_timestamps` makes ours agree. TIMESTAMP WITH LOCAL TIME ZONE
columns are instants (no zone shift) and are not affected.

>>> fix_stripe_values([1_001_000_000, 5_000_000_000, 1_500_000, None], 8 * 3600)
[1000000, 5000000000, -998500000, None]
>>> fix_stripe_values([-1_999_000_000, 3_600_000_000_000], -5 * 3600)
[-999000000, 3600000000000]
"""

from __future__ import annotations

import datetime
import zlib
import zoneinfo
from typing import Any

import pyarrow as pa

from paimon_sql.format.varint import read_varint

_NANOS = 1_000_000_000


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """The ``(field number, value)`` pairs of a protobuf message (varints and byte strings)."""
    out: list[tuple[int, int | bytes]] = []
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = read_varint(data, pos)
        elif wire == 2:
            size, pos = read_varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire == 1:
            value, pos = int.from_bytes(data[pos : pos + 8], "little"), pos + 8
        elif wire == 5:
            value, pos = int.from_bytes(data[pos : pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"protobuf wire type {wire}")
        out.append((number, value))
    return out


def _decompress(data: bytes, codec: str) -> bytes:
    """An ORC stream: chunks of a 3-byte header (length << 1 | original) and their bytes."""
    if codec == "UNCOMPRESSED":
        return data
    import cramjam

    out = bytearray()
    pos = 0
    while pos + 3 <= len(data):
        header = int.from_bytes(data[pos : pos + 3], "little")
        size, original = header >> 1, header & 1
        chunk = data[pos + 3 : pos + 3 + size]
        pos += 3 + size
        if original:
            out += chunk
        elif codec == "ZLIB":
            out += zlib.decompress(chunk, -15)  # raw deflate
        elif codec == "ZSTD":
            out += bytes(cramjam.zstd.decompress(chunk))
        elif codec == "SNAPPY":
            out += bytes(cramjam.snappy.decompress_raw(chunk))
        elif codec == "LZ4":
            out += bytes(cramjam.lz4.decompress_block(chunk, output_len=1 << 20))
        else:
            raise ValueError(f"ORC compression {codec}")
    return bytes(out)


def stripe_zones(reader: Any, source: Any) -> list[tuple[int, str]]:
    """``(rows, writer time zone)`` of each stripe of an open ``pyarrow.orc.ORCFile``."""
    raw = getattr(reader, "reader", reader)  # ORCFile wraps the ORCReader holding the tail
    tail = dict(_fields(bytes(raw.serialized_file_tail())))
    footer = tail.get(2)
    assert isinstance(footer, bytes)
    out = []
    for number, stripe in _fields(footer):
        if number != 3 or not isinstance(stripe, bytes):
            continue
        info = dict(_fields(stripe))
        offset, index, data, size, rows = (int(info.get(k, 0)) for k in (1, 2, 3, 4, 5))
        source.seek(offset + index + data)
        stripe_footer = _decompress(source.read(size), str(reader.compression))
        zone = dict(_fields(stripe_footer)).get(3, b"")
        out.append((rows, zone.decode() if isinstance(zone, bytes) else ""))
    return out


def _offset(zone: str) -> int:
    """The zone's UTC offset at the epoch, in seconds (0 for an unknown or empty zone)."""
    try:
        tz = zoneinfo.ZoneInfo(zone) if zone else datetime.UTC
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return 0
    moment = datetime.datetime.fromtimestamp(0, tz)
    delta = moment.utcoffset()
    return int(delta.total_seconds()) if delta is not None else 0


def fix_stripe_values(values: list[int | None], offset: int) -> list[int | None]:
    """Nanoseconds since the epoch as Java reads them.

    `values` as pyarrow read them from a stripe whose writer zone is `offset` seconds east of UTC
    (see the module docstring).
    """
    out: list[int | None] = []
    for value in values:
        if value is not None and value % _NANOS > 999_999:
            seconds = value // _NANOS
            shifted = seconds + 1 if seconds < 0 else seconds  # before the reader's -1
            writer = shifted - offset
            if writer < 0 <= shifted:
                value -= _NANOS
            elif shifted < 0 <= writer:
                value += _NANOS
        out.append(value)
    return out


def fix_timestamps(table: pa.Table, zones: list[tuple[int, str]]) -> pa.Table:
    """`table` with its top-level time-zone-less timestamp columns corrected.

    `zones` are the `stripe_zones` of the ORC file `table` was read from.
    """
    offsets = [(rows, _offset(zone)) for rows, zone in zones]
    if not any(offset for _, offset in offsets) or sum(r for r, _ in offsets) != table.num_rows:
        return table
    for index, field in enumerate(table.schema):
        if not pa.types.is_timestamp(field.type) or field.type.tz is not None:
            continue
        column = table.column(index).cast(pa.timestamp("ns")).cast(pa.int64())
        values: list[int | None] = []
        start = 0
        for rows, offset in offsets:
            part = column.slice(start, rows).to_pylist()
            values += fix_stripe_values(part, offset) if offset else part
            start += rows
        fixed = pa.array(values, pa.int64()).cast(pa.timestamp("ns")).cast(field.type)
        table = table.set_column(index, field, fixed)
    return table
