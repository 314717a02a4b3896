"""Reading metadata containers: Avro (the default), or ORC / Parquet in tables written with another
``manifest.format`` (paimon-format.md §4.1 item 6). The container is sniffed from its magic bytes.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import fastavro

from paimon_sql.errors import SpecViolationError

if TYPE_CHECKING:
    from paimon_sql.io.fileio import FileIO

try:  # fastavro's zstandard codec needs a zstd module (paimon's default manifest codec)
    import backports.zstd  # noqa: F401
except ImportError:  # pragma: no cover - Python >= 3.14 ships compression.zstd
    pass


def _arrow_records(table: Any) -> list[dict[str, Any]]:
    return table.to_pylist()


def decode_records(data: bytes, where: str) -> list[dict[str, Any]]:
    """Records of an Avro, ORC or Parquet metadata file; `where` names the file in errors."""
    magic = data[:4]
    try:
        if magic == b"Obj\x01":
            return list(fastavro.reader(io.BytesIO(data)))
        if magic[:3] == b"ORC":
            import pyarrow.orc as orc

            return _arrow_records(orc.ORCFile(io.BytesIO(data)).read())
        if magic == b"PAR1":
            import pyarrow.parquet as pq

            return _arrow_records(pq.read_table(io.BytesIO(data)))
    except Exception as err:  # noqa: BLE001 - any decoder failure is a corrupt file
        raise SpecViolationError(f"corrupt metadata file {where}: {err}") from err
    raise SpecViolationError(
        f"corrupt metadata file {where}: not Avro, ORC or Parquet (starts with {magic!r})"
    )


def read_records(fileio: FileIO, path: str) -> list[dict[str, Any]]:
    """Records of the metadata file at `path`."""
    return decode_records(fileio.read_bytes(path), path)
