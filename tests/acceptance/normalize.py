"""Turn reader output into the JSON encoding used by ``expected/*.json``.

Encoding (see README.md in this folder):

* NULL -> ``None``; BOOLEAN, integers, strings as themselves.
* FLOAT/DOUBLE -> JSON number; compared after rounding to 7 significant digits
  (so a FLOAT 1.1 read as 1.100000023841858 equals 1.1).
* DECIMAL -> plain string with the column's scale, e.g. ``"12.30000"`` (no exponent, no ``-0``).
* DATE -> ``"YYYY-MM-DD"``.
* TIMESTAMP (no time zone) -> ``"YYYY-MM-DDTHH:MM:SS[.f...]"``, fraction to the nanosecond,
  trailing zeros dropped; TIMESTAMP WITH LOCAL TIME ZONE -> the UTC instant, same form plus ``"Z"``.
* BINARY/VARBINARY/BYTES -> lowercase hex string.
* ARRAY -> JSON list; ROW -> JSON object keyed by field name; MAP -> list of ``[key, value]``
  pairs sorted by key.

Arrow input is normalised type-directed (so nanosecond timestamps survive); plain Python values
(from ``fetchall()``) are normalised by their Python type.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import math
from typing import Any

import pyarrow as pa

_EPOCH = _dt.datetime(1970, 1, 1)
_UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def _fmt_ts(count: int, unit: str, tz: bool) -> str:
    digits = _UNIT_DIGITS[unit]
    secs, frac = divmod(count, 10**digits) if digits else (count, 0)
    text = (_EPOCH + _dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        text += "." + str(frac).rjust(digits, "0").rstrip("0")
    return text + ("Z" if tz else "")


def _fmt_datetime(value: _dt.datetime) -> str:
    tz = value.tzinfo is not None
    if tz:
        value = value.astimezone(_dt.UTC).replace(tzinfo=None)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += "." + str(value.microsecond).rjust(6, "0").rstrip("0")
    return text + ("Z" if tz else "")


def _fmt_decimal(value: decimal.Decimal) -> str:
    if value.is_zero():
        value = abs(value)
    return format(value, "f")


def norm_py(value: Any) -> Any:
    """Normalise a plain Python value (type-directed by its Python type)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, decimal.Decimal):
        return _fmt_decimal(value)
    if isinstance(value, _dt.datetime):
        return _fmt_datetime(value)
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, _dt.time):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, dict):
        # DuckDB fetchall() gives MAP as {"key": [...], "value": [...]}; a struct is a plain dict.
        if set(value) == {"key", "value"} and isinstance(value["key"], list):
            return sort_map_pairs(
                [
                    [norm_py(k), norm_py(v)]
                    for k, v in zip(value["key"], value["value"], strict=True)
                ]
            )
        return {k: norm_py(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [norm_py(v) for v in value]
    raise TypeError(f"cannot normalise {type(value).__name__}: {value!r}")


def _norm_arrow_value(value: Any, typ: pa.DataType) -> Any:
    if value is None:
        return None
    if pa.types.is_map(typ):
        return sort_map_pairs(
            [
                [_norm_arrow_value(k, typ.key_type), _norm_arrow_value(v, typ.item_type)]
                for k, v in value
            ]
        )
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
        return [_norm_arrow_value(v, typ.value_type) for v in value]
    if pa.types.is_struct(typ):
        return {
            typ.field(i).name: _norm_arrow_value(value[typ.field(i).name], typ.field(i).type)
            for i in range(typ.num_fields)
        }
    return norm_py(value)


def _norm_arrow_column(col: pa.ChunkedArray) -> list[Any]:
    typ = col.type
    if pa.types.is_timestamp(typ):
        ints = col.cast(pa.int64()).to_pylist()
        return [None if v is None else _fmt_ts(v, typ.unit, typ.tz is not None) for v in ints]
    if pa.types.is_dictionary(typ):
        col = col.cast(typ.value_type)
        typ = col.type
    return [_norm_arrow_value(v, typ) for v in col.to_pylist()]


def norm_arrow_table(table: pa.Table) -> list[list[Any]]:
    """Rows of an Arrow table in the expected-file encoding."""
    cols = [_norm_arrow_column(table.column(i)) for i in range(table.num_columns)]
    return [list(r) for r in zip(*cols, strict=True)] if cols else []


def _canon(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return float(f"{value:.7g}")
    if isinstance(value, list):
        return [_canon(v) for v in value]
    if isinstance(value, dict):
        return {k: _canon(v) for k, v in value.items()}
    return value


def sort_map_pairs(pairs: list[list[Any]]) -> list[list[Any]]:
    """MAP entries as ``[key, value]`` pairs, sorted by key (numbers numerically, then text)."""

    def key(pair: list[Any]) -> tuple:
        k = pair[0]
        if isinstance(k, (int, float)) and not isinstance(k, bool):
            return (0, k, "")
        return (1, 0, json.dumps(_canon(k), sort_keys=True))

    return sorted(pairs, key=key)


def canonical_rows(rows: list[list[Any]]) -> list[str]:
    """Order-insensitive, float-tolerant canonical form of a row list, for comparison."""
    return sorted(json.dumps(_canon(list(r)), sort_keys=True) for r in rows)
