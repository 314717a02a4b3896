"""Reading metadata containers.

Avro (the default), or ORC / Parquet in tables written with another ``manifest.format``
(paimon-format.md §4.1 item 6). The container is sniffed from its magic bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from typing import TYPE_CHECKING, Any, cast

import fastavro

from paimon_sql.errors import CorruptFileError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

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


def stream_records(data: bytes, where: str) -> tuple[Any, Iterator[dict[str, Any]]]:
    """The Avro writer schema of a metadata file (None for ORC or Parquet) and its records.

    An Avro file's records are decoded one at a time as they are taken, so a caller that turns
    each into an object never holds them all (a 100,000-entry manifest's records are some
    700,000 dicts and lists, which the garbage collector would otherwise scan again and again).
    A decoding error, when the header is read or later, is a `CorruptFileError` naming `where`.

    >>> from paimon_sql.io.records import encode_avro
    >>> schema = {"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}
    >>> writer_schema, rows = stream_records(encode_avro([{"a": 1}, {"a": 2}], schema), "x")
    >>> writer_schema["fields"], list(rows)
    ([{'name': 'a', 'type': 'int'}], [{'a': 1}, {'a': 2}])
    """
    if data[:4] != b"Obj\x01":
        return None, iter(decode_records(data, where))
    try:
        reader = fastavro.reader(io.BytesIO(data))
    except Exception as err:
        raise _undecodable(where, err) from err
    return reader.writer_schema, _checked(reader, where)


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
