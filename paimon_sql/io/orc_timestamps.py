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

>>> import numpy as np
>>> def fixed(nanos, offset):
...     values = np.array(nanos, np.int64)
...     return (java_seconds(values // _NANOS, values % _NANOS, offset) * _NANOS
...             + values % _NANOS).tolist()
>>> fixed([1_001_000_000, 5_000_000_000, 1_500_000], 8 * 3600)
[1000000, 5000000000, -998500000]
>>> fixed([-1_999_000_000, 3_600_000_000_000], -5 * 3600)
[-999000000, 3600000000000]

pyarrow cannot return a TIMESTAMP outside its nanosecond range (1677-09-21 to 2262-04-11), such as
the ``9999-12-31`` that marks an open-ended row of a slowly changing dimension: it fails on the
whole file. `read_wide_timestamps` decodes such files' top-level TIMESTAMP columns from their
streams (`paimon_sql.format.orc_rle`), as ORC C++ would and then corrected as above, as
microseconds.
"""

from __future__ import annotations

import datetime
import zlib
import zoneinfo
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.orc_rle import decode_booleans, decode_integers, decode_nanos
from paimon_sql.format.varint import read_varint

if TYPE_CHECKING:
    import numpy.typing as npt

    from paimon_sql.format.orc_rle import Int64s

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


def _footer(reader: Any) -> bytes:
    """The ``Footer`` message of an open ``pyarrow.orc.ORCFile`` (from its serialized tail)."""
    raw = getattr(reader, "reader", reader)  # ORCFile wraps the ORCReader holding the tail
    footer = dict(_fields(bytes(raw.serialized_file_tail()))).get(2)
    assert isinstance(footer, bytes)
    return footer


def _stripes(reader: Any, source: Any) -> list[_Stripe]:
    """Every stripe of an open ``pyarrow.orc.ORCFile``, its footer read from `source`."""
    codec = str(reader.compression)
    return [
        _Stripe.read(source, info, codec)
        for number, info in _fields(_footer(reader))
        if number == 3 and isinstance(info, bytes)
    ]


def stripe_zones(reader: Any, source: Any) -> list[tuple[int, str]]:
    """``(rows, writer time zone)`` of each stripe of an open ``pyarrow.orc.ORCFile``."""
    return [(stripe.rows, stripe.zone) for stripe in _stripes(reader, source)]


def _offset(zone: str) -> int:
    """The zone's UTC offset at the epoch, in seconds (0 for an unknown or empty zone)."""
    try:
        tz = zoneinfo.ZoneInfo(zone) if zone else datetime.UTC
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return 0
    moment = datetime.datetime.fromtimestamp(0, tz)
    delta = moment.utcoffset()
    return int(delta.total_seconds()) if delta is not None else 0


def java_seconds(seconds: Int64s, nanos: Int64s, offset: int) -> Int64s:
    """Whole seconds since the epoch as Java reads them, of values as ORC C++ reads them.

    `seconds` (floored) and `nanos` (0 to 999,999,999) come from a stripe whose writer zone is
    `offset` seconds east of UTC (see the module docstring).
    """
    late = nanos > 999_999
    shifted = np.where(seconds < 0, seconds + 1, seconds)  # before the reader's -1
    writer = shifted - offset
    earlier = late & (writer < 0) & (shifted >= 0)
    later = late & (shifted < 0) & (writer >= 0)
    return seconds - earlier.astype(np.int64) + later.astype(np.int64)


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
        column = table.column(index).combine_chunks().cast(pa.timestamp("ns"))
        values = column.cast(pa.int64()).fill_null(0).to_numpy()
        parts = []
        start = 0
        for rows, offset in offsets:
            part = values[start : start + rows]
            nanos = part % _NANOS
            parts.append(java_seconds(part // _NANOS, nanos, offset) * _NANOS + nanos)
            start += rows
        fixed = pa.array(np.concatenate(parts), pa.int64(), mask=column.is_null().to_numpy(False))
        table = table.set_column(index, field, fixed.cast(pa.timestamp("ns")).cast(field.type))
    return table


#: ORC type kinds (``orc_proto.proto``, ``Type.Kind``) of the columns `read_wide_timestamps` reads.
_TIMESTAMP, _TIMESTAMP_INSTANT = 9, 18
#: ORC's TIMESTAMP seconds count from 2015-01-01 00:00:00 (instants: UTC; else the writer's zone).
_ORC_EPOCH = 1_420_070_400
#: Stream kinds (``Stream.Kind``) and column encodings (``ColumnEncoding.Kind``) read here.
_PRESENT, _DATA, _SECONDARY = 0, 1, 5
_RLE_VERSION = {0: 1, 2: 2}  # DIRECT: RLE v1, DIRECT_V2: RLE v2


def _varints(value: int | bytes) -> list[int]:
    """A repeated integer field's value: one varint, or a packed run of them."""
    if isinstance(value, int):
        return [value]
    out, pos = [], 0
    while pos < len(value):
        number, pos = read_varint(value, pos)
        out.append(number)
    return out


def timestamp_columns(reader: Any) -> dict[str, tuple[int, bool]]:
    """The top-level TIMESTAMP columns of an ORC file: name → (column id, is an instant)."""
    types = [
        dict_of(t) for number, t in _fields(_footer(reader)) if number == 4 and isinstance(t, bytes)
    ]
    root = types[0]
    children = [c for v in root.get(2, []) for c in _varints(v)]
    names = [n.decode() for n in root.get(3, []) if isinstance(n, bytes)]
    out = {}
    for name, child in zip(names, children, strict=True):
        kind = types[child].get(1, [0])[0]
        if kind in (_TIMESTAMP, _TIMESTAMP_INSTANT):
            out[name] = (child, kind == _TIMESTAMP_INSTANT)
    return out


def dict_of(message: bytes) -> dict[int, list[int | bytes]]:
    """A protobuf message's fields, every value of a repeated field kept."""
    out: dict[int, list[int | bytes]] = {}
    for number, value in _fields(message):
        out.setdefault(number, []).append(value)
    return out


def _zone_seconds(utc: Int64s, zone: str) -> Int64s:
    """The UTC offset of `zone` at each instant of `utc` (seconds), as ORC C++ applies it."""
    tz = zoneinfo.ZoneInfo(zone)
    unique, inverse = np.unique(utc, return_inverse=True)
    offsets = []
    for moment in unique.tolist():
        try:
            delta = datetime.datetime.fromtimestamp(moment, tz).utcoffset()
        except (OverflowError, ValueError, OSError) as err:
            raise ValueError(f"TIMESTAMP {moment}s is outside years 1-9999") from err
        offsets.append(int(delta.total_seconds()) if delta is not None else 0)
    return np.array(offsets, np.int64)[inverse]


def _is_utc(zone: str) -> bool:
    return zone in ("", "UTC", "GMT", "Etc/UTC", "Etc/GMT", "Z", "Zulu", "Etc/Zulu", "UCT")


def _stripe_seconds(seconds: Int64s, nanos: Int64s, zone: str, instant: bool) -> Int64s:
    """Wall-clock seconds (instants: UTC) of one stripe's raw values, as Java reads them."""
    if instant or _is_utc(zone):
        wall = seconds + _ORC_EPOCH
        offset = 0
    else:  # ORC C++: from the writer's zone to the reader's (UTC), keeping the wall clock
        offset = _offset(zone)
        start = datetime.datetime(2015, 1, 1, tzinfo=zoneinfo.ZoneInfo(zone)).utcoffset()
        utc = seconds + _ORC_EPOCH - int(start.total_seconds() if start is not None else 0)
        wall = utc + _zone_seconds(utc, zone)
    wall = wall - ((wall < 0) & (nanos > 999_999)).astype(np.int64)
    return java_seconds(wall, nanos, offset) if offset else wall


@dataclass(frozen=True)
class _Stripe:
    """One stripe of an ORC file: its rows, writer zone, column encodings and stream places."""

    rows: int
    zone: str
    encodings: list[dict[int, int | bytes]]
    streams: dict[tuple[int, int], tuple[int, int]]  # (column, kind) -> (offset, length)

    @classmethod
    def read(cls, source: Any, info: bytes, codec: str) -> _Stripe:
        """The stripe `info` (a ``StripeInformation``) describes, its footer read from `source`."""
        fields = dict(_fields(info))
        offset, index, data, size, rows = (int(fields.get(k, 0)) for k in (1, 2, 3, 4, 5))
        source.seek(offset + index + data)
        footer = dict_of(_decompress(source.read(size), codec))
        zone = footer.get(3, [b""])[0]
        streams = {}
        position = offset  # the streams follow each other from the stripe's start
        for stream in footer.get(1, []):
            assert isinstance(stream, bytes)
            described = dict(_fields(stream))
            kind, column, length = (int(described.get(k, 0)) for k in (1, 2, 3))
            streams[(column, kind)] = (position, length)
            position += length
        encodings = [dict(_fields(e)) for e in footer.get(2, []) if isinstance(e, bytes)]
        return cls(rows, zone.decode() if isinstance(zone, bytes) else "", encodings, streams)

    def stream(self, source: Any, codec: str, column: int, kind: int) -> bytes | None:
        """The decompressed stream `kind` of `column`, or None when the stripe has none."""
        where = self.streams.get((column, kind))
        if where is None:
            return None
        source.seek(where[0])
        return _decompress(source.read(where[1]), codec)

    def timestamps(
        self, source: Any, codec: str, column: int, instant: bool
    ) -> tuple[npt.NDArray[np.bool_], Int64s, Int64s]:
        """TIMESTAMP `column` of this stripe as Java reads it.

        Which rows hold a value, and the values' whole seconds since the epoch (floored) and
        nanoseconds.
        """
        version = _RLE_VERSION.get(int(self.encodings[column].get(1, 0)))
        if version is None:
            raise ValueError(f"ORC TIMESTAMP column {column} has encoding {self.encodings[column]}")
        present_bytes = self.stream(source, codec, column, _PRESENT)
        present = (
            np.ones(self.rows, np.bool_)
            if present_bytes is None
            else decode_booleans(present_bytes, self.rows)
        )
        count = int(present.sum())
        data = self.stream(source, codec, column, _DATA) or b""
        seconds = decode_integers(data, count, signed=True, version=version)
        data = self.stream(source, codec, column, _SECONDARY) or b""
        nanos = decode_nanos(decode_integers(data, count, signed=False, version=version))
        return present, _stripe_seconds(seconds, nanos, self.zone, instant), nanos


#: The seconds pyarrow's nanosecond timestamps hold (int64 nanoseconds, 1677-09-21 .. 2262-04-11).
_NANOS_RANGE = (-9_223_372_036, 9_223_372_035)


def read_wide_timestamps(reader: Any, source: Any, names: list[str]) -> dict[str, pa.Array[Any]]:
    """Top-level TIMESTAMP columns `names` of an ORC file, decoded here.

    For files pyarrow cannot read (see the module docstring): the values Java reads, at any year
    from 1 to 9999. A column is nanoseconds when all its values fit, else microseconds; then a
    value with digits below the microsecond raises `UnsupportedFeatureError`.
    `source` is the open file `reader` was made from.
    """
    columns = timestamp_columns(reader)
    codec = str(reader.compression)
    stripes = _stripes(reader, source)
    out = {}
    for name in names:
        column, instant = columns[name]
        parts = [s.timestamps(source, codec, column, instant) for s in stripes]
        present = np.concatenate([p for p, _, _ in parts] or [np.zeros(0, np.bool_)])
        seconds = np.concatenate([s for _, s, _ in parts] or [np.zeros(0, np.int64)])
        nanos = np.concatenate([n for _, _, n in parts] or [np.zeros(0, np.int64)])
        low, high = _NANOS_RANGE
        if seconds.size == 0 or (seconds.min() >= low and seconds.max() <= high):
            unit, values = "ns", seconds * _NANOS + nanos
        elif (nanos % 1000).any():
            raise UnsupportedFeatureError(
                f"TIMESTAMP column {name!r} has a value outside 1677-09-21 .. 2262-04-11 with"
                " digits below the microsecond: DuckDB holds such values only as microseconds"
                " (read this table with Apache Paimon)"
            )
        else:
            unit, values = "us", seconds * 1_000_000 + nanos // 1000
        filled = np.zeros(present.size, np.int64)
        filled[present] = values
        array = pa.array(filled, pa.int64(), mask=~present)
        out[name] = array.cast(pa.timestamp(unit, tz="UTC" if instant else None))
    return out
