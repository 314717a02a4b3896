"""Where given keys sit in key-sorted data files: positions found from footers and key columns only.

Lookup compaction (``paimon_sql.compact.lookup``) must find, in every file of a bucket it keeps,
the rows whose key a write touched (to mark them in deletion vectors, and to know which files take
part in the merge). Java's ``LookupLevels`` answers this from a lookup file it builds per data file
and caches by file name. `KeyLookup` does the same job without a second file:

* **file pruning** is the caller's (the manifest's ``_MIN_KEY``/``_MAX_KEY``);
* **row-group pruning**: a Parquet footer's statistics of the first key column bound each row
  group; only row groups whose [min, max] holds one of the wanted keys are read. paimon-sql's
  files have ~1 MiB row groups, so one key costs one row group's key column; Java's files have one
  large row group, read once;
* only the **key columns** of those row groups are decoded, then matched against the keys.

Footers and decoded key columns are cached per (path, size): data file names are never reused,
so an entry can never describe another file's bytes. What is cached never decides *which* files
are live: the caller passes the files of the snapshot it compacts, so files another writer added
or removed (a foreign compaction, an expiration) are seen at once; entries of files that are gone
are only evicted by the byte budget.

>>> import os, tempfile, pyarrow.parquet as pq
>>> from paimon_sql.io.fileio import file_io
>>> path = os.path.join(tempfile.mkdtemp(), "k.parquet")
>>> pq.write_table(pa.table({"id": list(range(0, 20, 2))}), path, row_group_size=3)
>>> lookup = KeyLookup()
>>> keys = pa.table({"id": pa.array([4, 5, 18], pa.int64())})
>>> lookup.positions(file_io(path), path, os.path.getsize(path), "parquet", keys).to_pylist()
[2, 9]
>>> lookup.stats()["row_groups_read"]  # of 4 row groups, the two holding 4 and 18
2
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paimon_sql.errors import PaimonSqlError, SpecViolationError
from paimon_sql.io.arrays import arange
from paimon_sql.io.datafiles import _remote_file, read_avro, read_orc

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Decoded key columns kept across lookups (bytes of Arrow memory); footers are not counted.
CACHE_BYTES = 64 * 1024 * 1024
#: Footers kept (parsed Parquet metadata: a few KiB to ~100 KiB for a file of many row groups).
CACHE_FOOTERS = 512

_POS = "__paimon_pos"
#: Parquet statistics of these Arrow types compare like Python values of the keys.
_RANGED = (pa.types.is_integer, pa.types.is_string, pa.types.is_large_string, pa.types.is_date32)


@dataclass(frozen=True, slots=True)
class _Footer:
    """What a Parquet footer says about the key: rows before each row group, and its bounds."""

    metadata: Any  # the parsed footer (``pyarrow.parquet.FileMetaData``), not parsed again
    offsets: tuple[int, ...]  # the first position of each row group
    rows: tuple[int, ...]
    lows: tuple[Any, ...] | None  # first key column minimum per group (None: unknown)
    highs: tuple[Any, ...] | None
    columns: tuple[str, ...]  # the key columns the file holds


class KeyLookup:
    """Cached key columns of immutable, key-sorted data files, for finding rows by key.

    Thread-safe; one per session (`paimon_sql.engine.context.Engine` holds it).
    """

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        """Keep at most `max_bytes` of decoded key columns."""
        self.max_bytes = max_bytes
        self._footers: OrderedDict[tuple[str, int], _Footer] = OrderedDict()
        self._groups: OrderedDict[tuple[str, int, int], _Keys] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._counts = {"row_groups_read": 0, "row_groups_cached": 0, "footers_read": 0}

    def stats(self) -> dict[str, int]:
        """Counters since creation: row groups decoded and served from the cache, footers read."""
        return dict(self._counts, cached_bytes=self._bytes)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._footers.clear()
            self._groups.clear()
            self._bytes = 0

    def positions(
        self, fileio: Any, path: str, size: int, fmt: str, keys: pa.Table
    ) -> pa.Array[Any]:
        """The positions (int64, ascending) of the rows of the file whose key is a row of `keys`.

        `keys` holds distinct keys, its columns named and typed as the file's key columns are
        read. Files that are not Parquet are read whole (key columns only).
        """
        if keys.num_rows == 0:
            return pa.array([], pa.int64())
        if fmt != "parquet":
            return self._whole(fileio, path, size, fmt, keys.schema).matches(keys, 0)
        footer = self._footer(fileio, path, size, keys.column_names)
        if tuple(keys.column_names) != footer.columns:
            raise SpecViolationError(
                f"corrupt data file {path}: it lacks key column(s) "
                f"{sorted(set(keys.column_names) - set(footer.columns))}"
            )
        hits: list[pa.Array[Any]] = []
        for group, wanted in _candidate_groups(footer, keys):
            stored = self._group(fileio, path, size, group, keys.schema, footer.metadata)
            found = stored.matches(wanted, footer.offsets[group])
            if len(found):
                hits.append(found)
        if not hits:
            return pa.array([], pa.int64())
        return pa.concat_arrays(hits)

    # --- parquet ---------------------------------------------------------------------------------

    def _open(self, fileio: Any, path: str, size: int, metadata: Any = None) -> pq.ParquetFile:
        if fileio.local:
            return pq.ParquetFile(path, metadata=metadata)
        if hasattr(fileio, "read_ranges"):  # object store: range requests, footer first
            source: Any = _remote_file(fileio, path, size)
            return pq.ParquetFile(source, pre_buffer=False, metadata=metadata)
        return pq.ParquetFile(fileio.fs.open_input_file(path), metadata=metadata)

    def _footer(self, fileio: Any, path: str, size: int, columns: Sequence[str]) -> _Footer:
        key = (path, size)
        with self._lock:
            known = self._footers.get(key)
            if known is not None:
                self._footers.move_to_end(key)
                return known
        try:
            metadata = self._open(fileio, path, size).metadata
        except FileNotFoundError as err:
            raise PaimonSqlError(f"data file not found: {path}") from err
        except (OSError, ValueError, pa.ArrowException) as err:
            raise SpecViolationError(f"corrupt Parquet data file {path}: {err}") from err
        footer = _read_footer(metadata, columns)
        with self._lock:
            self._counts["footers_read"] += 1
            self._footers[key] = footer
            while len(self._footers) > CACHE_FOOTERS:
                self._footers.popitem(last=False)
        return footer

    def _group(
        self, fileio: Any, path: str, size: int, group: int, schema: pa.Schema, metadata: Any
    ) -> _Keys:
        key = (path, size, group)
        with self._lock:
            known = self._groups.get(key)
            if known is not None:
                self._groups.move_to_end(key)
                self._counts["row_groups_cached"] += 1
                return known
        try:
            table = self._open(fileio, path, size, metadata).read_row_group(
                group, columns=list(schema.names), use_threads=False
            )
            table = table.select(list(schema.names)).cast(schema)
        except (OSError, ValueError, pa.ArrowException) as err:
            raise SpecViolationError(f"corrupt Parquet data file {path}: {err}") from err
        stored = self._remember(key, table)
        with self._lock:
            self._counts["row_groups_read"] += 1
        return stored

    def _remember(self, key: tuple[str, int, int], table: pa.Table) -> _Keys:
        stored = _Keys(table)
        if stored.nbytes > self.max_bytes:
            return stored
        with self._lock:
            if key in self._groups:
                return stored
            self._groups[key] = stored
            self._bytes += stored.nbytes
            while self._bytes > self.max_bytes and self._groups:
                _, old = self._groups.popitem(last=False)
                self._bytes -= old.nbytes
        return stored

    def _whole(self, fileio: Any, path: str, size: int, fmt: str, schema: pa.Schema) -> _Keys:
        key = (path, size, -1)
        with self._lock:
            known = self._groups.get(key)
            if known is not None:
                self._groups.move_to_end(key)
                return known
        if fmt == "orc":
            raw = read_orc(fileio, path, list(schema.names), size=size)
        elif fmt == "avro":
            raw = read_avro(fileio, path, schema)
        else:
            raise SpecViolationError(f"unknown data file format {fmt!r}: {path}")
        return self._remember(key, raw.select(list(schema.names)).cast(schema))


def _read_footer(metadata: Any, columns: Sequence[str]) -> _Footer:
    names = [metadata.schema.column(i).path for i in range(metadata.num_columns)]
    present = tuple(c for c in columns if c in names)
    first = names.index(columns[0]) if columns and columns[0] in names else None
    arrow_type = None
    if first is not None:
        arrow_type = metadata.schema.to_arrow_schema().field(columns[0]).type
    ranged = arrow_type is not None and any(test(arrow_type) for test in _RANGED)
    offsets, rows, lows, highs = [], [], [], []
    start = 0
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        offsets.append(start)
        rows.append(group.num_rows)
        start += group.num_rows
        low = high = None
        if ranged and first is not None:
            stats = group.column(first).statistics
            if stats is not None and stats.has_min_max:
                try:
                    low, high = stats.min, stats.max
                except Exception:  # noqa: BLE001 - e.g. a truncated UTF-8 bound: no bounds
                    low = high = None
        lows.append(low)
        highs.append(high)
    usable = ranged and all(v is not None for v in lows + highs)
    return _Footer(
        metadata=metadata,
        offsets=tuple(offsets),
        rows=tuple(rows),
        lows=tuple(lows) if usable else None,
        highs=tuple(highs) if usable else None,
        columns=present,
    )


def _candidate_groups(footer: _Footer, keys: pa.Table) -> list[tuple[int, pa.Table]]:
    """The row groups whose first-key-column bounds hold one of `keys`, each with those keys.

    Keys are sorted once by their first column; each row group gets the slice within its bounds
    (a binary search per group), so a lookup of k keys costs O(k log k + groups log k).
    """
    groups = [g for g, n in enumerate(footer.rows) if n]
    lows, highs = footer.lows, footer.highs
    if lows is None or highs is None:
        return [(g, keys) for g in groups]
    name = keys.column_names[0]
    ordered = keys.sort_by(name)
    values = ordered.column(0).combine_chunks()
    out = []
    if pa.types.is_integer(values.type) or pa.types.is_date32(values.type):
        sorted_values = values.to_numpy(zero_copy_only=False)
        low, high = np.asarray(lows), np.asarray(highs)
        if pa.types.is_date32(values.type):
            sorted_values = sorted_values.astype("datetime64[D]")
            low, high = low.astype("datetime64[D]"), high.astype("datetime64[D]")
        start = np.searchsorted(sorted_values, low, side="left")
        stop = np.searchsorted(sorted_values, high, side="right")
        for g in groups:
            if stop[g] > start[g]:
                out.append((g, ordered.slice(int(start[g]), int(stop[g] - start[g]))))
        return out
    wanted: list[Any] = values.to_pylist()
    for g in groups:
        i = bisect.bisect_left(wanted, lows[g])
        j = bisect.bisect_right(wanted, highs[g])
        if j > i:
            out.append((g, ordered.slice(i, j - i)))
    return out


class _Keys:
    """The key columns of a row group (or a whole file), as cached.

    A single integer key column stored in ascending order (as Paimon sorts a data file by key) is
    also kept as a numpy array: then a lookup is a binary search per key, not a scan.
    """

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self.nbytes = table.nbytes
        self.ints: Any = None
        if table.num_columns == 1 and pa.types.is_integer(table.schema.field(0).type):
            column = table.column(0)
            if column.null_count == 0 and table.num_rows:
                values = column.to_numpy()
                if bool(np.all(values[1:] >= values[:-1])):
                    self.ints = values
                    self.nbytes += values.nbytes

    def matches(self, keys: pa.Table, offset: int) -> pa.Array[Any]:
        """Positions (plus `offset`) of the stored rows whose key is a row of `keys`, ascending."""
        if self.table.num_rows == 0:
            return pa.array([], pa.int64())
        if self.ints is not None:
            wanted = np.unique(keys.column(0).to_numpy())
            start = np.searchsorted(self.ints, wanted, side="left")
            stop = np.searchsorted(self.ints, wanted, side="right")
            runs = stop - start
            found = np.repeat(start, runs) + (
                np.arange(int(runs.sum())) - np.repeat(np.cumsum(runs) - runs, runs)
            )
            return pa.array(found.astype(np.int64) + offset, pa.int64())
        return _matches(self.table, keys, offset)


def _matches(stored: pa.Table, keys: pa.Table, offset: int) -> pa.Array[Any]:
    """Positions (plus `offset`) of the rows of `stored` whose key is a row of `keys`, ascending."""
    if stored.num_rows == 0:
        return pa.array([], pa.int64())
    if keys.num_columns == 1:
        mask = pc.is_in(stored.column(0), value_set=keys.column(0).combine_chunks())
        found = pc.indices_nonzero(mask).cast(pa.int64())
        return pc.add(found, offset) if offset else found
    indexed = stored.append_column(_POS, arange(stored.num_rows, offset))
    hit = indexed.join(keys, keys=list(keys.column_names), join_type="left semi")
    positions = hit.column(_POS).combine_chunks()
    return positions.take(pc.array_sort_indices(positions))
