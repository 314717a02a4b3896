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
* only the **key columns** of those row groups are decoded, then searched for the keys: a single
  integer key sorted as stored by bisection of the column itself; any other key (strings, dates,
  decimals, several columns) by bisection of the row group's sorted 64-bit fingerprints
  (`paimon_sql.io.fingerprint`), each candidate then checked against the stored key value, so a
  shared fingerprint never marks a wrong row. A warm lookup of k keys costs O(k log n) either way.

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
import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paimon_sql.errors import PaimonSqlError, SpecViolationError
from paimon_sql.io.datafiles import _chunk_ranges, _remote_file, read_avro, read_orc
from paimon_sql.io.fingerprint import fingerprints, same_rows

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    #: A table of key columns -> one uint64 per row, equal for equal rows (`fingerprints`).
    Fingerprint = Callable[[pa.Table], np.ndarray[Any, Any]]

#: Decoded key columns kept in memory across lookups (bytes); footers are not counted. 32 MiB
#: hold the keys of a 4M-row bucket of one BIGINT key.
CACHE_BYTES = 32 * 1024 * 1024
#: The searchable key columns (of row groups of at least `SPILL_ROWS` rows) pushed out of memory go
#: to local files (memory-mapped, read a block at a time), up to this many bytes; the least
#: recently used row group goes first.
CACHE_DISK_BYTES = 2 * 1024 * 1024 * 1024
SPILL_ROWS = 4096
#: Keys per block of a spilled column: one in-memory fence per block, one block read per key.
BLOCK = 512
#: Row groups whose column chunks `KeyLookup.rows` fetches from an object store in one go.
GROUPS_PER_FETCH = 16
#: Answers of `KeyLookup.rows` kept (the last ones), each of at most `VALUES_BYTES`.
VALUES_KEPT = 4
VALUES_BYTES = 16 * 1024 * 1024
#: Footers kept (parsed Parquet metadata: a few KiB to ~100 KiB for a file of many row groups).
CACHE_FOOTERS = 512

#: The wanted keys' fingerprints, computed once per lookup, carried beside them.
_FP = "__paimon_fingerprint"
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

    Thread-safe; one per session (`paimon_sql.engine.context.Engine` holds it). Two tiers, each
    least recently used first out: memory (footers, and decoded key columns up to `max_bytes`),
    and local files (up to `max_disk_bytes`, in a folder of the system's temporary folder removed
    when the cache is cleared or collected). A row group's sorted integer keys pushed out of
    memory go to a file, of which memory keeps every `BLOCK`-th key: a lookup of k keys there
    reads at most k blocks of 4 KiB, whatever the size of the bucket. Other keys go out as three
    files: their sorted fingerprints (memory keeps every `BLOCK`-th), the positions in that order,
    and the key columns (Arrow IPC, mapped: a check reads only the candidate rows).
    """

    def __init__(
        self,
        max_bytes: int = CACHE_BYTES,
        max_disk_bytes: int = CACHE_DISK_BYTES,
        spill_dir: str | None = None,
        fingerprint: Fingerprint = fingerprints,
    ) -> None:
        """Keep at most `max_bytes` in memory and `max_disk_bytes` in files under `spill_dir`.

        `fingerprint` maps key rows to 64-bit values (only candidates: every match is checked
        against the stored key, so any function equal on equal rows gives the same answers).
        """
        self.max_bytes = max_bytes
        self.fingerprint = fingerprint
        self.max_disk_bytes = max_disk_bytes
        self._spill_parent = spill_dir
        self._dir: str | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._footers: OrderedDict[tuple[str, int], _Footer] = OrderedDict()
        self._groups: OrderedDict[tuple[str, int, int], _Keys] = OrderedDict()
        self._on_disk: OrderedDict[tuple[str, int, int], _Keys] = OrderedDict()
        self._bytes = 0
        self._disk = 0
        self._fence_bytes = 0
        self._spilled = 0
        self._lock = threading.Lock()
        self._values: OrderedDict[tuple[Any, ...], pa.Table] = OrderedDict()
        self._counts = {
            "row_groups_read": 0,
            "row_groups_cached": 0,
            "footers_read": 0,
            "row_groups_spilled": 0,
            "value_row_groups_read": 0,
            "value_rows_read": 0,
            "value_reads_cached": 0,
        }

    def stats(self) -> dict[str, int]:
        """Counters since creation, and the bytes now held in memory and on disk.

        The counters: row groups decoded, served from the cache and spilled; footers read; row
        groups and rows read for their values (`rows`), and its answers served again.
        """
        return dict(
            self._counts,
            cached_bytes=self._bytes,
            disk_bytes=self._disk,
            fence_bytes=self._fence_bytes,
        )

    def clear(self) -> None:
        """Forget everything (the local files included)."""
        with self._lock:
            self._footers.clear()
            self._values.clear()
            self._groups.clear()
            self._on_disk.clear()
            self._bytes = self._disk = self._fence_bytes = 0
            finalizer, self._finalizer, self._dir = self._finalizer, None, None
        if finalizer is not None:
            finalizer()

    def forget(self, paths: Iterable[str]) -> None:
        """Drop what is cached of the files at `paths` (files a compaction just replaced).

        Only frees room early: an entry of a file that is gone is never used again anyway.
        """
        gone = set(paths)
        with self._lock:
            for footer in [k for k in self._footers if k[0] in gone]:
                del self._footers[footer]
            for memo in [k for k in self._values if k[0] in gone]:
                del self._values[memo]
            for group in [k for k in self._groups if k[0] in gone]:
                self._bytes -= self._groups.pop(group).nbytes
            dropped = [self._on_disk.pop(k) for k in list(self._on_disk) if k[0] in gone]
            for old in dropped:
                self._disk -= old.disk
                self._fence_bytes -= old.nbytes
        for old in dropped:
            old.drop()

    def positions(
        self, fileio: Any, path: str, size: int, fmt: str, keys: pa.Table
    ) -> pa.Array[Any]:
        """The positions (int64, ascending) of the rows of the file whose key is a row of `keys`.

        `keys` holds distinct keys, its columns named and typed as the file's key columns are
        read. Files that are not Parquet are read whole (key columns only).
        """
        return self.find(fileio, path, size, fmt, keys)[0]

    def find(
        self, fileio: Any, path: str, size: int, fmt: str, keys: pa.Table
    ) -> tuple[pa.Array[Any], pa.Table]:
        """`positions`, and the rows of `keys` the file holds."""
        if keys.num_rows == 0:
            return pa.array([], pa.int64()), keys
        probe = keys
        if not _integer_key(keys.schema):  # fingerprinted once, for every row group searched
            probe = keys.append_column(_FP, pa.array(self.fingerprint(keys), pa.uint64()))
        if fmt != "parquet":
            found, mask = self._whole(fileio, path, size, fmt, keys.schema).matches(probe, 0)
            return found, keys.filter(mask)
        footer = self._footer(fileio, path, size, keys.column_names)
        if tuple(keys.column_names) != footer.columns:
            raise SpecViolationError(
                f"corrupt data file {path}: it lacks key column(s) "
                f"{sorted(set(keys.column_names) - set(footer.columns))}"
            )
        hits: list[pa.Array[Any]] = []
        held: list[pa.Table] = []
        for group, wanted in _candidate_groups(footer, probe):
            stored = self._group(fileio, path, size, group, keys.schema, footer.metadata)
            found, mask = stored.matches(wanted, footer.offsets[group])
            if len(found):
                hits.append(found)
                held.append(wanted.select(keys.column_names).filter(mask))
        if not hits:
            return pa.array([], pa.int64()), keys.slice(0, 0)
        return pa.concat_arrays(hits), pa.concat_tables(held)

    def rows(
        self,
        fileio: Any,
        path: str,
        size: int,
        key_columns: Sequence[str],
        positions: pa.Array[Any],
        columns: Sequence[str],
        position_column: str | None = None,
    ) -> pa.Table:
        """The `columns` of the rows at `positions` of Parquet file `path`, in position order.

        Only the row groups holding one of the positions are read (the footer is the one cached
        for the key lookup, found by `key_columns`); each row's position in the file is added as
        `position_column`, if given. INT96 timestamps read as nanoseconds. Columns the file
        lacks are left out (as `paimon_sql.io.datafiles.read_parquet` does). The last few
        answers are kept (files never change), so the reads of one compaction (a lookup
        changelog's before and after, then the rewrite) decode the row groups once.
        """
        wanted = np.sort(np.asarray(positions.to_numpy(zero_copy_only=False), dtype=np.int64))
        memo = (
            path,
            size,
            tuple(columns),
            position_column,
            hashlib.sha256(wanted.tobytes()).digest(),
        )
        with self._lock:
            known = self._values.get(memo)
            if known is not None:  # the same rows asked again (a changelog's reads, the rewrite)
                self._values.move_to_end(memo)
                self._counts["value_reads_cached"] += 1
                return known
        out = self._read_rows(fileio, path, size, key_columns, wanted, columns, position_column)
        if out.nbytes <= VALUES_BYTES:
            with self._lock:
                self._values[memo] = out
                while len(self._values) > VALUES_KEPT:
                    self._values.popitem(last=False)
        return out

    def _read_rows(
        self,
        fileio: Any,
        path: str,
        size: int,
        key_columns: Sequence[str],
        wanted: np.ndarray[Any, Any],
        columns: Sequence[str],
        position_column: str | None,
    ) -> pa.Table:
        """`rows`, read from the file (`wanted`: the positions, ascending)."""
        footer = self._footer(fileio, path, size, key_columns)
        offsets = np.asarray(footer.offsets, dtype=np.int64)
        total = int(offsets[-1] + footer.rows[-1]) if len(offsets) else 0
        if len(wanted) and (wanted.min() < 0 or wanted.max() >= total):
            raise SpecViolationError(
                f"corrupt Parquet data file {path}: position {int(wanted.max())} is outside its "
                f"{total} rows"
            )
        at = np.searchsorted(offsets, wanted, side="right") - 1
        groups, firsts = np.unique(at, return_index=True)
        bounds = [*firsts.tolist(), len(wanted)]
        pieces: list[pa.Table] = []
        try:
            stored = footer.metadata.schema.to_arrow_schema().names
            present = [c for c in columns if c in stored]
            remote = hasattr(fileio, "read_ranges") and not fileio.local
            source: Any = _remote_file(fileio, path, size) if remote else None
            parquet = self._open(
                fileio, path, size, footer.metadata, coerce_int96="ns", source=source
            )
            # one row group decoded at a time (memory: one group's columns, whatever k is); on
            # an object store the chunks of `GROUPS_PER_FETCH` groups are fetched in one go
            for i, g in enumerate(groups.tolist()):
                if remote and i % GROUPS_PER_FETCH == 0:
                    batch = groups[i : i + GROUPS_PER_FETCH].tolist()
                    ranges = _chunk_ranges(footer.metadata, present, batch)
                    if ranges:
                        source.release(min(r[0] for r in ranges))  # earlier groups' chunks
                    source.prefetch(ranges)
                group = parquet.read_row_group(g, columns=present, use_threads=False)
                local = wanted[bounds[i] : bounds[i + 1]] - offsets[g]
                pieces.append(group.take(pa.array(local, pa.int64())))
            if pieces:
                out = pa.concat_tables(pieces)
            else:
                out = parquet.schema_arrow.empty_table().select(present)
        except (OSError, ValueError, pa.ArrowException) as err:
            raise SpecViolationError(f"corrupt Parquet data file {path}: {err}") from err
        with self._lock:
            self._counts["value_row_groups_read"] += len(groups)
            self._counts["value_rows_read"] += len(wanted)
        if position_column is None:
            return out
        return out.append_column(position_column, pa.array(wanted, pa.int64()))

    def _spill(self, values: np.ndarray[Any, Any] | pa.Table) -> str:
        """Write `values` (an array, or a table in Arrow IPC) to a new local file; its path."""
        with self._lock:
            if self._dir is None:
                if self._spill_parent is not None:
                    os.makedirs(self._spill_parent, exist_ok=True)
                self._dir = tempfile.mkdtemp(prefix="paimon-sql-keys-", dir=self._spill_parent)
                self._finalizer = weakref.finalize(self, shutil.rmtree, self._dir, True)
            self._spilled += 1
            path = os.path.join(self._dir, str(self._spilled))
        if isinstance(values, pa.Table):
            path += ".arrow"
            with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, values.schema) as out:
                out.write_table(values)
            return path
        path += ".npy"
        np.save(path, values, allow_pickle=False)
        return path

    # --- parquet ---------------------------------------------------------------------------------

    def _open(
        self,
        fileio: Any,
        path: str,
        size: int,
        metadata: Any = None,
        coerce_int96: Any = None,
        source: Any = None,
    ) -> pq.ParquetFile:
        """`path` opened for reading row groups.

        On an object store through `source` if given (a `_remote_file` the caller prefetches
        ranges of), else through a new one.
        """
        extra = {"coerce_int96_timestamp_unit": coerce_int96} if coerce_int96 else {}
        if fileio.local:
            return pq.ParquetFile(path, metadata=metadata, **extra)
        if hasattr(fileio, "read_ranges"):  # object store: range requests, footer first
            if source is None:
                source = _remote_file(fileio, path, size)
            return pq.ParquetFile(source, pre_buffer=False, metadata=metadata, **extra)
        return pq.ParquetFile(fileio.fs.open_input_file(path), metadata=metadata, **extra)

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
        known = self._cached(key)
        if known is not None:
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

    def _cached(self, key: tuple[str, int, int]) -> _Keys | None:
        with self._lock:
            for tier in (self._groups, self._on_disk):
                known = tier.get(key)
                if known is not None:
                    tier.move_to_end(key)
                    self._counts["row_groups_cached"] += 1
                    return known
        return None

    def _remember(self, key: tuple[str, int, int], table: pa.Table) -> _Keys:
        stored = _Keys(table, self.fingerprint)
        with self._lock:
            if key in self._groups:
                return self._groups[key]
            self._groups[key] = stored
            self._bytes += stored.nbytes
            out: list[tuple[tuple[str, int, int], _Keys]] = []
            while self._bytes > self.max_bytes and self._groups:
                old_key, old = self._groups.popitem(last=False)
                self._bytes -= old.nbytes
                out.append((old_key, old))
        for old_key, old in out:  # to the disk tier, outside the lock (file writes)
            if old.can_spill() and old.nbytes <= self.max_disk_bytes:
                old.spill(self._spill)
                with self._lock:
                    self._on_disk[old_key] = old
                    self._disk += old.disk
                    self._fence_bytes += old.nbytes
                    self._counts["row_groups_spilled"] += 1
        with self._lock:
            while self._disk > self.max_disk_bytes and self._on_disk:
                _, old = self._on_disk.popitem(last=False)
                self._disk -= old.disk
                self._fence_bytes -= old.nbytes
                old.drop()
        return stored

    def _whole(self, fileio: Any, path: str, size: int, fmt: str, schema: pa.Schema) -> _Keys:
        key = (path, size, -1)
        known = self._cached(key)
        if known is not None:
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


def _integer_key(schema: pa.Schema) -> bool:
    """Whether the key is one integer column (searched as such, without fingerprints)."""
    return len(schema) == 1 and pa.types.is_integer(schema.field(0).type)


class _Keys:
    """The key columns of a row group (or a whole file), as cached, searchable by bisection.

    A single integer key column stored in ascending order (as Paimon sorts a data file by key) is
    kept as a numpy array (`ints`), searched by bisection. Any other key keeps its Arrow columns
    (`table`) plus the rows' fingerprints sorted (`ints`) and the row positions in that order
    (`order`): a wanted key's fingerprint is bisected, and each candidate row checked against the
    wanted key (`paimon_sql.io.fingerprint.same_rows`). From `SPILL_ROWS` rows on (and when the
    disk budget allows) these arrays and columns are local files mapped in memory, of which every
    `BLOCK`-th sorted value is held: a key's bisection reads one block of the file, its check
    only the candidate rows.
    """

    def __init__(self, table: pa.Table, fingerprint: Fingerprint = fingerprints) -> None:
        self.table: pa.Table | None = table
        self.nbytes = table.nbytes  # bytes in memory
        self.disk = 0  # bytes in the local files
        self.ints: Any = None  # the sorted values searched: integer keys, or fingerprints
        self.order: Any = None  # fingerprinted: the position of each of `ints`
        self.fences: Any = None
        self.files: list[str] = []
        self.block = BLOCK
        self.fingerprint = fingerprint
        if _integer_key(table.schema):
            column = table.column(0)
            if column.null_count == 0 and table.num_rows:
                values = np.ascontiguousarray(column.to_numpy())
                if bool(np.all(values[1:] >= values[:-1])):
                    self.table, self.ints, self.nbytes = None, values, values.nbytes
                    return
        prints = fingerprint(table)
        position = np.int32 if table.num_rows < 2**31 else np.int64
        self.order = np.argsort(prints).astype(position)  # equal fingerprints: any order
        self.ints = prints[self.order]
        self.nbytes += self.ints.nbytes + self.order.nbytes

    def can_spill(self) -> bool:
        """Whether `spill` would move the keys to files (enough of them, not yet spilled)."""
        return not self.files and self.ints is not None and len(self.ints) >= SPILL_ROWS

    def spill(self, write: Any) -> None:
        """Move the keys to the files `write` makes of them; memory keeps every `BLOCK`-th."""
        self.block = BLOCK
        self.fences = self.ints[:: self.block].copy()
        self.disk = self.ints.nbytes
        self.ints = self._mapped(write(self.ints))
        if self.order is not None:
            assert self.table is not None
            self.disk += self.order.nbytes
            self.order = self._mapped(write(self.order))
            path = write(self.table)
            self.files.append(path)
            self.disk += os.path.getsize(path)
            self.table = pa.ipc.open_file(pa.memory_map(path)).read_all()  # zero-copy
        self.nbytes = self.fences.nbytes

    def _mapped(self, path: str) -> Any:
        self.files.append(path)
        return np.asarray(np.load(path, mmap_mode="r"))  # a plain view: no memmap overhead

    def drop(self) -> None:
        """Remove the local files, if any (a mapping still in use stays readable)."""
        for path in self.files:
            with contextlib.suppress(OSError):
                os.unlink(path)
        self.files = []

    def matches(self, keys: pa.Table, offset: int) -> tuple[pa.Array[Any], pa.Array[Any]]:
        """Positions (plus `offset`) of the stored rows whose key is a row of `keys`, ascending.

        Also per row of `keys` (distinct keys): whether it is stored. `keys` may carry its
        fingerprints in a column `_FP` (else they are computed here).
        """
        prints = None
        if _FP in keys.column_names:
            prints = keys.column(_FP).to_numpy()
            keys = keys.drop_columns([_FP])
        if self.order is None:
            wanted = keys.column(0).to_numpy()
        else:
            wanted = self.fingerprint(keys) if prints is None else prints
        order = np.argsort(wanted, kind="stable")
        start, stop = self._search(wanted[order])
        runs = stop - start
        total = int(runs.sum())
        found = np.repeat(start, runs) + (
            np.arange(total) - np.repeat(np.cumsum(runs) - runs, runs)
        )
        held = np.zeros(len(wanted), dtype=bool)
        if self.order is None:  # integer keys: the found rows are the positions
            held[order] = runs > 0
            return pa.array(found.astype(np.int64) + offset, pa.int64()), pa.array(held)
        assert self.table is not None
        at = np.asarray(self.order[found], dtype=np.int64)
        of = np.repeat(order, runs)  # the wanted row each candidate is checked against
        same = same_rows(self.table, at, keys, of)
        held[of[same]] = True
        return pa.array(np.unique(at[same]) + offset, pa.int64()), pa.array(held)

    def _search(self, wanted: Any) -> tuple[Any, Any]:
        """First and past-the-last positions of each of the ascending `wanted` keys."""
        ints, fences = self.ints, self.fences
        if fences is None:
            return np.searchsorted(ints, wanted, "left"), np.searchsorted(ints, wanted, "right")
        n = len(ints)
        # the last block whose first key is <= the key: the key's rows end in it (the next
        # block starts above the key); they start in it unless the block starts with the key
        block = np.maximum(np.searchsorted(fences, wanted, "right") - 1, 0)
        blocks = np.unique(block)
        firsts = blocks * self.block
        sizes = np.minimum(self.block, n - firsts)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        index = np.repeat(firsts - bounds[:-1], sizes) + np.arange(int(bounds[-1]))
        gathered = np.asarray(ints[index])  # only these blocks of the file are read
        low = np.searchsorted(gathered, wanted, "left")
        high = np.searchsorted(gathered, wanted, "right")
        which = np.minimum(np.searchsorted(bounds, low, "right") - 1, len(blocks) - 1)
        start = firsts[which] + (low - bounds[which])
        stop = start + (high - low)
        edge = np.flatnonzero((block > 0) & (fences[block] == wanted))
        if len(edge):  # a key a block starts with may have rows in the block before
            start[edge] = np.searchsorted(ints, wanted[edge], "left")
            stop[edge] = np.searchsorted(ints, wanted[edge], "right")
        return start, stop
