"""Reading metadata containers.

Avro (the default), or ORC / Parquet in tables written with another ``manifest.format``
(paimon-format.md §4.1 item 6). The container is sniffed from its magic bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from typing import TYPE_CHECKING, Any, cast

import fastavro

from paimon_sql.errors import CorruptFileError
from paimon_sql.format.varint import read_zigzag, zigzag_varint

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from paimon_sql.io.fileio import FileIO

# fastavro's zstandard codec needs a zstd module (paimon's default manifest codec); Python >= 3.14
# ships compression.zstd, and there backports.zstd is not installed.
with contextlib.suppress(ImportError):
    import backports.zstd  # noqa: F401


def _arrow_records(table: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def decode_records(data: bytes, where: str) -> list[dict[str, Any]]:
    """Records of an Avro, ORC or Parquet metadata file; `where` names the file in errors."""
    magic = data[:4]
    try:
        if magic == b"Obj\x01":
            return cast("list[dict[str, Any]]", list(fastavro.reader(io.BytesIO(data))))
        if magic[:3] == b"ORC":
            import pyarrow.orc as orc

            return _arrow_records(orc.ORCFile(io.BytesIO(data)).read())
        if magic == b"PAR1":
            import pyarrow.parquet as pq

            return _arrow_records(pq.read_table(io.BytesIO(data)))
    except Exception as err:
        raise _undecodable(where, err) from err
    raise CorruptFileError(
        where, f"not an Avro, ORC or Parquet metadata file (starts with {magic!r})"
    )


def stream_records(
    data: bytes, where: str, *, schema_edit: Callable[[Any], Any] | None = None
) -> tuple[Any, Iterator[dict[str, Any]]]:
    """The Avro writer schema of a metadata file (None for ORC or Parquet) and its records.

    An Avro file's records are decoded one at a time as they are taken, so a caller that turns
    each into an object never holds them all (a 100,000-entry manifest's records are some
    700,000 dicts and lists, which the garbage collector would otherwise scan again and again).
    A decoding error, when the header is read or later, is a `CorruptFileError` naming `where`.

    `schema_edit` may return another writer schema to decode an Avro file with (None: keep
    its own): one that encodes the same bytes, such as without a logical type (a plain long
    instead of a datetime). The returned schema is the one decoded with.

    >>> from paimon_sql.io.records import encode_avro
    >>> schema = {"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}
    >>> writer_schema, rows = stream_records(encode_avro([{"a": 1}, {"a": 2}], schema), "x")
    >>> writer_schema["fields"], list(rows)
    ([{'name': 'a', 'type': 'int'}], [{'a': 1}, {'a': 2}])
    """
    if data[:4] != b"Obj\x01":
        return None, iter(decode_records(data, where))
    if schema_edit is not None:
        data = _edited(data, schema_edit)
    try:
        reader = fastavro.reader(io.BytesIO(data))
    except Exception as err:
        raise _undecodable(where, err) from err
    return reader.writer_schema, _checked(reader, where)


#: Schemas as edited by a `stream_records` caller: (edit, the file's schema JSON) -> the JSON to
#: decode with (None: unchanged). The manifests of a table share one schema.
_EDITS: dict[tuple[Any, bytes], bytes | None] = {}


def _edited(data: bytes, edit: Callable[[Any], Any]) -> bytes:
    """`data` with the ``avro.schema`` of its header as `edit` returns it.

    An Avro object container file is the magic, the metadata map, the sync marker, then the
    blocks (Avro 1.11 specification, "Object Container Files"): only the map is written again.
    Anything unexpected in the header leaves `data` as it is, for fastavro to judge.
    """
    try:
        meta, end = _metadata(data)
        schema = meta[b"avro.schema"]
    except (IndexError, KeyError, ValueError):
        return data
    key = (edit, schema)
    if key not in _EDITS:
        if len(_EDITS) > 64:
            _EDITS.clear()
        try:
            changed = edit(json.loads(schema))
        except ValueError:  # not JSON: fastavro says so
            changed = None
        _EDITS[key] = None if changed is None else json.dumps(changed).encode()
    replaced = _EDITS[key]
    if replaced is None:
        return data
    meta[b"avro.schema"] = replaced
    out = [data[:4], zigzag_varint(len(meta))]
    for name, value in meta.items():
        out += [zigzag_varint(len(name)), name, zigzag_varint(len(value)), value]
    out += [zigzag_varint(0), data[end:]]
    return b"".join(out)


def _metadata(data: bytes) -> tuple[dict[bytes, bytes], int]:
    """The header's metadata map and where it ends (its sync marker follows)."""
    meta: dict[bytes, bytes] = {}
    pos = 4
    while True:
        count, pos = read_zigzag(data, pos)
        if count == 0:
            return meta, pos
        if count < 0:  # a block with its size in bytes
            count = -count
            _, pos = read_zigzag(data, pos)
        for _ in range(count):
            name, pos = _read_bytes(data, pos)
            meta[name], pos = _read_bytes(data, pos)


def _read_bytes(data: bytes, pos: int) -> tuple[bytes, int]:
    """Avro bytes (a length, then as many bytes) at `pos`, and the position after them."""
    size, pos = read_zigzag(data, pos)
    if size < 0 or pos + size > len(data):
        raise ValueError("truncated header")
    return data[pos : pos + size], pos + size


def _checked(rows: Iterable[Any], where: str) -> Iterator[dict[str, Any]]:
    try:
        yield from rows
    except Exception as err:
        raise _undecodable(where, err) from err


def _undecodable(where: str, err: Exception) -> CorruptFileError:
    return CorruptFileError(
        where, f"the metadata file does not decode ({type(err).__name__}: {err})"
    )


def read_records(fileio: FileIO, path: str) -> list[dict[str, Any]]:
    """Records of the metadata file at `path`."""
    return decode_records(fileio.read_bytes(path), path)


def _sync_marker(records: list[dict[str, Any]]) -> bytes:
    """A sync marker derived from the content, so equal inputs give equal bytes.

    Avro only needs it unlikely to occur in the data (readers find a block's end by its length
    and check the marker there): 16 bytes of BLAKE2b of the record count and of the first and
    last 16 records are as good as random. Hashing every encoded record (as before) was as dear
    as writing the file: 0.87 s for a 19,000-entry manifest.
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((len(records), records[:16], records[-16:])).encode())
    return digest.digest()


def encode_avro(
    records: Iterable[dict[str, Any]],
    schema: dict[str, Any] | list[Any],
    *,
    codec: str = "zstandard",
    level: int | None = 1,
) -> bytes:
    r"""An Avro object container of `records`, as Java Paimon reads it (format §4.1 item 5).

    Deterministic: the sync marker is derived from the records. `codec` is an Avro codec name
    (``zstandard`` for Paimon's default ``zstd``, ``null``, ``deflate``, ``snappy``); `level` its
    level.

    >>> schema = {"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}
    >>> data = encode_avro([{"a": 1}], schema)
    >>> data[:4], decode_records(data, "x"), data == encode_avro([{"a": 1}], schema)
    (b'Obj\x01', [{'a': 1}], True)
    """
    rows = list(records)
    parsed = fastavro.parse_schema(schema)
    out = io.BytesIO()
    fastavro.writer(
        out,
        parsed,
        rows,
        codec=codec,
        codec_compression_level=level if codec != "null" else None,
        sync_marker=_sync_marker(rows),
        strict=True,
    )
    return out.getvalue()
