"""Renderers of query results: an Arrow table in, text or bytes out (no I/O).

Four formats, one function each:

* `render_table`: aligned text in the style of psql; numbers right-aligned, ``NULL`` for nulls,
  long values cut with ``…``, a ``(N rows)`` footer that says when only the first rows are shown.
* `render_csv`: RFC 4180 CSV with a header row; a null is an empty field.
* `render_json_lines`: JSON lines, one object per row (``jq``-friendly and streamable); a decimal
  is a string (exact), bytes are base64, times are ISO 8601, NaN and infinities are the strings
  ``"NaN"``, ``"Infinity"``, ``"-Infinity"``.
* `render_parquet`: a Parquet file's bytes (pyarrow).

>>> import pyarrow as pa
>>> print(render_table(pa.table({"id": [1, 22], "name": ["a", None]})), end="")
 id | name
----+------
  1 | a
 22 | NULL
(2 rows)
"""

from __future__ import annotations

import base64
import csv
import datetime
import decimal
import io
import json
import math
import unicodedata
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

#: The result formats (``--format``, ``.mode``), one renderer each.
MODES = ("table", "csv", "json", "parquet")
NULL = "NULL"
ELLIPSIS = "…"
_ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def render_table(table: pa.Table, *, total_rows: int | None = None, max_width: int = 40) -> str:
    """Aligned text: header, rule, one line per row and a ``(N rows)`` footer.

    Args:
        table: the rows to show (the caller keeps only the first ones of a long result).
        total_rows: how many rows the result has, when more than `table` holds.
        max_width: cells wider than this are cut and end in ``…`` (0: never cut).

    >>> import pyarrow as pa
    >>> t = pa.table({"word": ["paimon", "lake"]})
    >>> print(render_table(t.slice(0, 1), total_rows=2, max_width=4), end="")
     word
    ------
     pai…
    (2 rows, first 1 shown)
    """
    total = table.num_rows if total_rows is None else total_rows
    footer = _footer(total, table.num_rows)
    if table.num_columns == 0:
        return footer + "\n"
    right = [_is_numeric(field.type) for field in table.schema]
    rows = [[_fit(_cell(v).translate(_ESCAPES), max_width) for v in row] for row in _rows(table)]
    header = [_fit(name.translate(_ESCAPES), max_width) for name in table.column_names]
    widths = [max(_width(c) for c in column) for column in zip(header, *rows, strict=True)]
    lines = [_line(header, widths, right)]
    lines.append("+".join("-" * (w + 2) for w in widths))
    lines.extend(_line(row, widths, right) for row in rows)
    lines.append(footer)
    return "\n".join(lines) + "\n"


def render_csv(table: pa.Table, *, header: bool = True) -> str:
    r"""CSV text with a header row (unless `header` is false); nulls are empty fields.

    >>> import pyarrow as pa
    >>> render_csv(pa.table({"a": [1, None], "b": ["x,y", "z"]}))
    'a,b\n1,"x,y"\n,z\n'
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header:
        writer.writerow(table.column_names)
    for row in _rows(table):
        writer.writerow("" if v is None else _cell(v) for v in row)
    return buffer.getvalue()


def render_json_lines(table: pa.Table) -> str:
    r"""JSON lines: one object per row, keys in column order.

    >>> import pyarrow as pa
    >>> render_json_lines(pa.table({"a": [1, None], "b": [0.5, float("nan")]}))
    '{"a": 1, "b": 0.5}\n{"a": null, "b": "NaN"}\n'
    """
    keys = [_json(name) + ": " for name in table.column_names]  # kept apart: names may repeat
    return "".join(
        "{" + ", ".join(k + _json(v) for k, v in zip(keys, row, strict=True)) + "}\n"
        for row in _rows(table)
    )


def render_parquet(table: pa.Table) -> bytes:
    """The bytes of a Parquet file holding `table`.

    >>> import pyarrow as pa
    >>> render_parquet(pa.table({"a": [1]}))[:4]
    b'PAR1'
    """
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue())


def _rows(table: pa.Table) -> list[tuple[Any, ...]]:
    """The rows as tuples (`pa.Table.to_pylist` would merge columns of the same name)."""
    columns = [column.to_pylist() for column in table.columns]
    return list(zip(*columns, strict=True))


def _footer(total: int, shown: int) -> str:
    text = "(1 row" if total == 1 else f"({total} rows"
    if shown < total:
        text += f", first {shown} shown"
    return text + ")"


def _line(cells: list[str], widths: list[int], right: list[bool]) -> str:
    padded = [_pad(c, w, r) for c, w, r in zip(cells, widths, right, strict=True)]
    return (" " + " | ".join(padded)).rstrip()


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * (width - _width(text))
    return fill + text if right else text + fill


def _is_numeric(type_: pa.DataType) -> bool:
    return pa.types.is_integer(type_) or pa.types.is_floating(type_) or pa.types.is_decimal(type_)


def _cell(value: Any) -> str:
    """One value as text, close to the form DuckDB prints."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return "\\x" + value.hex()
    if isinstance(value, (list, tuple, dict)):
        return _json(value)
    return str(value)


def _json(value: Any) -> str:
    return json.dumps(_jsonable(value), ensure_ascii=False, allow_nan=False)


def _jsonable(value: Any) -> Any:
    """`value` with every part JSON can't hold turned into a string (see the module docstring)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return str(value)
    return value


def _width(text: str) -> int:
    """Terminal columns `text` takes: wide East Asian characters count 2, combining marks 0.

    >>> _width("ab"), _width("湖"), _width("e\u0301")
    (2, 2, 1)
    """
    return sum(_char_width(c) for c in text)


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _fit(text: str, max_width: int) -> str:
    """`text` cut to `max_width` columns, ending in ``…`` when cut."""
    if max_width <= 0 or _width(text) <= max_width:
        return text
    kept, used = [], 0
    for char in text:
        used += _char_width(char)
        if used > max_width - 1:
            break
        kept.append(char)
    return "".join(kept) + ELLIPSIS
