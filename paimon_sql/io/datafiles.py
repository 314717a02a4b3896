"""Parquet, ORC and Avro data files → Arrow through a FileIO, fetching only the bytes a read needs.

On an object store a Parquet file is read with range requests: the footer (one request for the last
64 KiB, more only for a larger footer), then the column chunks of the projected columns, all fetched
in parallel (`ObjectStoreFileIO.read_ranges`), never the whole file. ORC files get the same
footer-first file object (stripes are fetched as pyarrow asks for them). A FileIO without range
reads (local disk, a pyarrow filesystem) gives the whole file.

>>> import tempfile, os, pyarrow as pa, pyarrow.parquet as pq
>>> from paimon_sql.io.fileio import file_io
>>> path = os.path.join(tempfile.mkdtemp(), "f.parquet")
>>> pq.write_table(pa.table({"a": [1, 2], "b": ["x", "y"]}), path)
>>> read_parquet(file_io(path), path, ["b"]).to_pydict()
{'b': ['x', 'y']}
"""

from __future__ import annotations

import bisect
import io
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa

from paimon_sql.errors import PaimonSqlError, SpecViolationError, UnsupportedFeatureError
from paimon_sql.io.arrays import arange
from paimon_sql.io.orc_timestamps import (
    fix_timestamps,
    read_wide_timestamps,
    stripe_zones,
    timestamp_columns,
)
from paimon_sql.types import holds, map_nested

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from paimon_sql.types import DataField, DataType

#: Rows per batch of `parquet_batches`.
STREAM_BATCH_ROWS = 8192
#: `parquet_batches` fetches a row group's projected column chunks at once up to this size; a
#: bigger group is read page by page, `PAGE_READ_BYTES` per request and column, as the consumer
#: asks for rows (a ``LIMIT 10`` on a Java file of one 128 MB group reads its first pages only).
PREFETCH_GROUP_BYTES = 1024 * 1024
PAGE_READ_BYTES = 64 * 1024
#: Bytes read from the end of a file to get its footer in one request (pyarrow guesses 64 KiB too).
FOOTER_BYTES = 64 * 1024


class _RangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote object.

    Reads inside prefetched blocks are served from memory, any other read is one ranged GET.
    """

    def __init__(self, fileio: Any, path: str, size: int) -> None:
        super().__init__()
        self.fileio, self.path, self.size = fileio, path, size
        self._pos = 0
        self._starts: list[int] = []
        self._blocks: list[bytes] = []

    def add(self, start: int, data: bytes) -> None:
        i = bisect.bisect(self._starts, start)
        self._starts.insert(i, start)
        self._blocks.insert(i, data)

    def prefetch(self, ranges: Sequence[tuple[int, int]]) -> None:
        """Fetch `ranges` (``[start, end)``) in parallel for the reads to come."""
        wanted = sorted(r for r in set(ranges) if r[1] > r[0] and not self._holds(*r))
        for (start, _), data in zip(
            wanted, self.fileio.read_ranges(self.path, wanted), strict=True
        ):
            self.add(start, data)

    def _holds(self, start: int, end: int) -> bool:
        """Whether bytes ``[start, end)`` are in one block already (e.g. the footer's read)."""
        i = bisect.bisect(self._starts, start) - 1
        return i >= 0 and end <= self._starts[i] + len(self._blocks[i])

    def release(self, keep_from: int) -> None:
        """Drop the prefetched blocks that start before `keep_from` (keeps the footer)."""
        while self._starts and self._starts[0] < keep_from:
            self._starts.pop(0)
            self._blocks.pop(0)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self.size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def read(self, n: int | None = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self._pos + n)
        start = self._pos
        if end <= start:
            return b""
        i = bisect.bisect(self._starts, start) - 1
        if i >= 0 and end <= self._starts[i] + len(self._blocks[i]):
            offset = start - self._starts[i]
            data = self._blocks[i][offset : offset + end - start]
        else:
            data = self.fileio.read_range(self.path, start, end)
        self._pos = end
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _remote_file(fileio: Any, path: str, size: int | None) -> _RangeFile:
    total = size if size else fileio.file_size(path)
    handle = _RangeFile(fileio, path, total)
    tail = min(total, FOOTER_BYTES)
    handle.add(total - tail, fileio.read_range(path, total - tail, total))
    return handle


def _chunk_ranges(
    metadata: Any, columns: Sequence[str], groups: Sequence[int]
) -> list[tuple[int, int]]:
    """The byte ranges of the column chunks of `columns` (top-level names) in row groups `groups`.

    >>> import tempfile, os, pyarrow.parquet as pq
    >>> path = os.path.join(tempfile.mkdtemp(), "c.parquet")
    >>> pq.write_table(pa.table({"a": [1, 2], "b": [3, 4]}), path, row_group_size=1)
    >>> len(_chunk_ranges(pq.ParquetFile(path).metadata, ["a"], [1]))
    1
    """
    wanted = set(columns)
    indexes = [
        i for i in range(metadata.num_columns)
        if metadata.schema.column(i).path.split(".")[0] in wanted
    ]  # fmt: skip
    ranges = []
    for g in groups:
        group = metadata.row_group(g)
        for i in indexes:
            chunk = group.column(i)
            start = chunk.data_page_offset
            if chunk.has_dictionary_page and chunk.dictionary_page_offset:
                start = min(start, chunk.dictionary_page_offset)
            ranges.append((start, start + chunk.total_compressed_size))
    return ranges


def _selection(
    parquet: Any, columns: Sequence[str], row_groups: Callable[[Any], Sequence[int] | None] | None
) -> tuple[list[str], list[int]]:
    """The `columns` the file has, and the row groups `row_groups` picks from the footer (all)."""
    metadata = parquet.metadata
    present = [c for c in columns if c in parquet.schema_arrow.names]
    chosen = row_groups(metadata) if row_groups is not None else None
    return present, list(range(metadata.num_row_groups) if chosen is None else chosen)


def read_parquet(
    fileio: Any,
    path: str,
    columns: Sequence[str],
    *,
    size: int | None = None,
    row_groups: Callable[[Any], Sequence[int] | None] | None = None,
    positions: str | None = None,
) -> pa.Table:
    """The `columns` present in Parquet file `path`, INT96 timestamps as nanoseconds.

    `size` (the file size a manifest records) saves a HEAD request on an object store.
    `row_groups` picks the row groups to read from the footer (the others are never fetched);
    `positions` names an extra int64 column holding each row's position in the whole file (what
    a deletion vector counts), needed when row groups are skipped.

    >>> import tempfile, os, pyarrow.parquet as pq
    >>> from paimon_sql.io.fileio import file_io
    >>> path = os.path.join(tempfile.mkdtemp(), "g.parquet")
    >>> pq.write_table(pa.table({"a": list(range(6))}), path, row_group_size=2)
    >>> third = read_parquet(file_io(path), path, ["a"], row_groups=lambda m: [2], positions="p")
    >>> third.to_pydict()
    {'a': [4, 5], 'p': [4, 5]}
    """
    import pyarrow.parquet as pq

    try:
        remote = hasattr(fileio, "read_ranges")
        if not remote:
            source: Any = pa.BufferReader(fileio.read_bytes(path))
            parquet = pq.ParquetFile(source, coerce_int96_timestamp_unit="ns")
        else:
            source = _remote_file(fileio, path, size)
            parquet = pq.ParquetFile(source, coerce_int96_timestamp_unit="ns", pre_buffer=False)
        metadata = parquet.metadata
        present, groups = _selection(parquet, columns, row_groups)
        if remote:
            source.prefetch(_chunk_ranges(metadata, present, groups))
        if not groups:
            table = parquet.schema_arrow.empty_table().select(present)
        elif len(groups) == metadata.num_row_groups:
            table = parquet.read(columns=present, use_threads=False)
        else:
            table = parquet.read_row_groups(groups, columns=present, use_threads=False)
        if positions is not None:
            table = table.append_column(positions, _positions(metadata, groups))
        return table
    except PaimonSqlError:
        raise
    except Exception as err:
        raise SpecViolationError(f"corrupt Parquet data file {path}: {err}") from err


def parquet_batches(
    fileio: Any,
    path: str,
    columns: Sequence[str],
    *,
    size: int | None = None,
    row_groups: Callable[[Any], Sequence[int] | None] | None = None,
    positions: str | None = None,
) -> pa.RecordBatchReader:
    """`read_parquet` as a stream: each row group is fetched when the consumer reaches it.

    The footer is fetched now (a missing or damaged file fails here); a consumer that stops early
    (``LIMIT``) never fetches the later row groups, nor, in a row group bigger than
    `PREFETCH_GROUP_BYTES`, the later pages. A FileIO without range reads gives the whole file
    as one stream.

    >>> import tempfile, os, pyarrow.parquet as pq
    >>> from paimon_sql.io.fileio import file_io
    >>> path = os.path.join(tempfile.mkdtemp(), "s.parquet")
    >>> pq.write_table(pa.table({"a": list(range(6))}), path, row_group_size=4)
    >>> reader = parquet_batches(file_io(path), path, ["a"], positions="p")
    >>> reader.read_next_batch().to_pydict()
    {'a': [0, 1, 2, 3, 4, 5], 'p': [0, 1, 2, 3, 4, 5]}
    """
    import pyarrow.parquet as pq

    if not hasattr(fileio, "read_ranges"):
        table = read_parquet(
            fileio, path, columns, size=size, row_groups=row_groups, positions=positions
        )
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    try:
        source: Any = _remote_file(fileio, path, size)
        parquet = pq.ParquetFile(
            source,
            coerce_int96_timestamp_unit="ns",
            pre_buffer=False,
            buffer_size=PAGE_READ_BYTES,  # a column chunk not prefetched is read page by page
        )
        present, groups = _selection(parquet, columns, row_groups)
        schema = parquet.schema_arrow.empty_table().select(present).schema
        footer = source.size - min(source.size, FOOTER_BYTES)
    except PaimonSqlError:
        raise
    except Exception as err:
        raise SpecViolationError(f"corrupt Parquet data file {path}: {err}") from err
    if positions is not None:
        schema = schema.append(pa.field(positions, pa.int64()))

    def batches() -> Iterator[pa.RecordBatch]:
        for g in groups:
            try:
                yield from _group_batches(parquet, source, g, present, schema, positions)
            except PaimonSqlError:
                raise
            except Exception as err:
                raise SpecViolationError(f"corrupt Parquet data file {path}: {err}") from err
            source.release(footer)  # a long stream keeps one row group in memory, not all

    return pa.RecordBatchReader.from_batches(schema, batches())


def _group_batches(
    parquet: Any,
    source: _RangeFile,
    g: int,
    present: list[str],
    schema: pa.Schema,
    positions: str | None,
) -> Iterator[pa.RecordBatch]:
    """Row group `g` of `parquet` as `schema` batches, fetched as `parquet_batches` says."""
    metadata = parquet.metadata
    ranges = _chunk_ranges(metadata, present, [g])
    if sum(end - start for start, end in ranges) <= PREFETCH_GROUP_BYTES:
        source.prefetch(ranges)  # a small row group: its column chunks in one request
        table = parquet.read_row_group(g, columns=present, use_threads=False)
        # small batches: the consumer's threads share a row group before another is fetched
        stream: Iterator[pa.RecordBatch] = iter(table.to_batches(max_chunksize=STREAM_BATCH_ROWS))
    else:  # a big one (Java writes 128 MB groups): pages fetched as the batches need them
        stream = parquet.iter_batches(
            batch_size=STREAM_BATCH_ROWS, row_groups=[g], columns=present, use_threads=False
        )
    position = sum(metadata.row_group(i).num_rows for i in range(g))
    for batch in stream:
        if positions is not None:
            rows = arange(batch.num_rows, position)
            batch = pa.RecordBatch.from_arrays(
                [*batch.columns, rows], names=[*batch.schema.names, positions]
            )
        position += batch.num_rows
        yield batch.cast(schema)


def _positions(metadata: Any, groups: Sequence[int]) -> pa.Array[Any]:
    """The file positions of the rows of row groups `groups` (ascending), as int64."""
    starts = [0]
    for g in range(metadata.num_row_groups):
        starts.append(starts[-1] + metadata.row_group(g).num_rows)
    parts = [arange(starts[g + 1] - starts[g], starts[g]) for g in groups]
    return pa.concat_arrays(parts) if parts else arange(0)


def read_orc(
    fileio: Any, path: str, columns: Sequence[str], *, size: int | None = None
) -> pa.Table:
    """The `columns` present in ORC file `path`."""
    import pyarrow.orc as orc

    try:
        if hasattr(fileio, "read_ranges"):
            source: Any = _remote_file(fileio, path, size)
        else:
            source = io.BytesIO(fileio.read_bytes(path))
        reader = orc.ORCFile(source)
        wanted = [c for c in columns if c in reader.schema.names]
        try:
            table = reader.read(columns=wanted)
        except pa.ArrowInvalid as err:
            if _OUT_OF_NANOS not in str(err):
                raise
            return _orc_wide_timestamps(reader, source, wanted, path)
        if any(pa.types.is_timestamp(f.type) and f.type.tz is None for f in table.schema):
            table = fix_timestamps(table, stripe_zones(reader, source))
        return table
    except PaimonSqlError:
        raise
    except Exception as err:
        raise SpecViolationError(f"corrupt ORC data file {path}: {err}") from err


#: What pyarrow's ORC reader says of a TIMESTAMP outside 1677-09-21 .. 2262-04-11.
_OUT_OF_NANOS = "out of range for nanosecond resolution"


def _orc_wide_timestamps(reader: Any, source: Any, columns: list[str], path: str) -> pa.Table:
    """`columns` of an ORC file with TIMESTAMP values pyarrow cannot return, as microseconds.

    The top-level TIMESTAMP columns are decoded by `read_wide_timestamps`, the others by
    pyarrow; a nested TIMESTAMP outside pyarrow's range is refused by name.
    """
    wide = [c for c in columns if c in timestamp_columns(reader)]
    try:
        rest = reader.read(columns=[c for c in columns if c not in wide])
    except pa.ArrowInvalid as err:
        if _OUT_OF_NANOS not in str(err):
            raise
        raise UnsupportedFeatureError(
            f"ORC data file {path} has a TIMESTAMP outside 1677-09-21 .. 2262-04-11 inside a"
            " ROW, ARRAY or MAP column: pyarrow cannot read it and paimon-sql decodes such"
            " values in top-level columns only (read this table with Apache Paimon)"
        ) from err
    decoded = read_wide_timestamps(reader, source, wide)
    arrays = [decoded[c] if c in decoded else rest.column(c) for c in columns]
    return pa.table(arrays, names=columns)


def orc_logical(table: pa.Table, fields: Sequence[DataField]) -> pa.Table:
    """Top-level ORC columns as Java reads them (issue 14, checked against Paimon 1.3).

    * CHAR(n): ORC's reader drops the padding (Java returns ``'ab'`` from an ORC CHAR(5), while
      Parquet and Avro keep ``'ab   '``);
    * TIME: ORC has no TIME type; Paimon writes milliseconds of the day as INT.

    >>> from paimon_sql.types import DataField, DataType
    >>> fields = [DataField(id=0, name="c", type=DataType(root="CHAR", length=4))]
    >>> orc_logical(pa.table({"c": ["ab  "]}), fields).to_pydict()
    {'c': ['ab']}
    """
    for fld in fields:
        if fld.name not in table.column_names:
            continue
        index = table.column_names.index(fld.name)
        column = table.column(index)
        if fld.type.root == "TIME" and pa.types.is_integer(column.type):
            column = column.cast(pa.int32()).cast(pa.time32("ms"))
        elif holds(fld.type, "CHAR"):
            column = map_nested(column, fld.type, _trimmed_char)
        else:
            continue
        table = table.set_column(index, fld.name, column)
    return table


def _trimmed_char(column: Any, t: DataType) -> Any:
    """A CHAR column as Java's ORC reader returns it: right-trimmed (nested ones too)."""
    import pyarrow.compute as pc

    if t.root == "CHAR" and pa.types.is_string(column.type):
        return pc.utf8_rtrim(column, characters=" ")
    return column


def read_avro(fileio: Any, path: str, schema: pa.Schema) -> pa.Table:
    """The columns of `schema` from Avro file `path` (a column its records lack is null).

    Reads the whole file (Avro has no column projection); the values are converted to `schema`'s
    types.
    """
    import fastavro

    data = fileio.read_bytes(path)
    try:
        # a data file's schema is a record: every datum is a dict
        records = cast("list[dict[str, Any]]", list(fastavro.reader(io.BytesIO(data))))
    except Exception as err:
        raise SpecViolationError(f"corrupt Avro data file {path}: {err}") from err
    columns = {fld.name: [r.get(fld.name) for r in records] for fld in schema}
    return pa.table(columns, schema=schema)
