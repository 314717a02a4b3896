"""Runs a `ScanPlan` on DuckDB, one split at a time, as a stream of Arrow record batches.

Each split's SQL (from `paimon_sql.read.build`) runs on a private cursor of an in-process DuckDB
database, so the merge is vectorised and multi-threaded; batches stream out as DuckDB produces them,
so a ``LIMIT`` stops after the first split and memory stays bounded by one split. Parquet files are
read by DuckDB directly; ORC and Avro files are decoded by pyarrow / fastavro and registered as
Arrow tables.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections import OrderedDict
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from typing import cast as as_type

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from paimon_sql.catalog import names as catalog_names
from paimon_sql.errors import (
    CorruptFileError,
    DataFileNotFoundError,
    PaimonSqlError,
    SpecViolationError,
    UnsupportedFeatureError,
)
from paimon_sql.format.blob_file import decode_blob_file
from paimon_sql.io.arrays import arange
from paimon_sql.io.datafiles import (
    orc_logical,
    parquet_batches,
    read_avro,
    read_orc,
    read_parquet,
)
from paimon_sql.plan.predicate import Compare, ValueRange, and_all, may_match
from paimon_sql.plan.scan import Section, blob_chain, data_file_path, read_vector
from paimon_sql.read.build import (
    DV_BITS,
    FILE_INDEX,
    KEEP,
    POS,
    VIRTUAL,
    FileSource,
    ReadRequest,
    no_hive,
    parquet_source,
    physical_columns,
    plan_query,
    predicate_sql,
    prunable_filters,
    split_queries,
    split_query,
    sql_text,
    table_source,
)
from paimon_sql.sqlnodes import set_setting
from paimon_sql.types import INTEGER_ROOTS, arrow_type

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.io.key_lookup import KeyLookup
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import DvRef, ScanPlan, Split
    from paimon_sql.types import DataField

_names = itertools.count()

ROW_ID = "_ROW_ID"
SEQUENCE_NUMBER = "_SEQUENCE_NUMBER"


def _tracked(plan: ScanPlan) -> bool:
    """Whether `plan`'s files must be stitched by row id (a data-evolution table, Java 1.3)."""
    return plan.options.row_tracking and plan.options.data_evolution


def _owners(
    plan: ScanPlan, files: Sequence[DataFileMeta], fields: Sequence[DataField]
) -> dict[str, int]:
    """For each non-partition column of `fields`, the first of `files` (newest first) holding it.

    By field id, through each file's ``write_cols`` (all of its schema's columns when absent).
    A BLOB column is never held by a normal data file: its values are in ``.blob`` files.
    """
    partition = set(plan.schema.partition_keys)
    owner: dict[str, int] = {}
    for i, f in enumerate(files):
        file_schema = plan.table.schema(f.schema_id)
        held = set(file_schema.field_names if f.write_cols is None else f.write_cols)
        blobs = {fld.name for fld in file_schema.fields if fld.type.root == "BLOB"}
        if f.write_cols is not None and blobs & held:
            raise UnsupportedFeatureError(
                f"data file {f.file_name} of table {plan.table.name} holds BLOB column(s) "
                f"{', '.join(sorted(blobs & held))} inline (as descriptors), which paimon-sql "
                "does not read yet"
            )
        ids = {fld.id for fld in file_schema.fields if fld.name in held - blobs}
        for fld in fields:
            if fld.name not in partition and fld.id in ids:
                owner.setdefault(fld.name, i)
    return owner


def _without_blobs(
    plan: ScanPlan, files: Sequence[DataFileMeta]
) -> tuple[list[DataFileMeta], list[DataFileMeta]]:
    """A row-id group's normal data files and its ``.blob`` files (never only the latter)."""
    blob_files = [f for f in files if f.format == "blob"]
    normal = [f for f in files if f.format != "blob"]
    if not normal:
        raise CorruptFileError(
            blob_files[0].file_name,
            f"of table {plan.table.name}: no data file holds the row ids of this BLOB file",
        )
    return normal, blob_files


def _combined(values: pa.Array[Any] | pa.ChunkedArray[Any]) -> pa.Array[Any]:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _listed_path(plan: ScanPlan, split: Split, f: DataFileMeta) -> str:
    """`data_file_path`, checked to exist where that is cheap (local files).

    A missing file is an error naming it and the snapshot that lists it, not a DuckDB I/O error.
    """
    path = data_file_path(plan, split, f)
    if plan.table.fileio.local:
        try:
            info = os.lstat(path)  # not followed: a data file that is a link is checked first
            if stat.S_ISLNK(info.st_mode):
                roots = (
                    catalog_names.external_roots(plan.options.options)
                    if f.external_path
                    else (plan.table.path,)
                )
                catalog_names.inside(path, roots, local=True, what=f"data file {f.file_name}")
                info = os.stat(path)
            size = info.st_size
        except OSError as err:
            raise DataFileNotFoundError(
                f"data file not found: {path} (listed by {_listed_by(plan)})"
            ) from err
        if (
            size != f.file_size
        ):  # truncated, emptied or appended to: DuckDB would fail on it, unnamed
            raise CorruptFileError(
                path, f"it has {size} bytes, {_listed_by(plan)} lists it with {f.file_size}"
            )
    return path


def _listed_by(plan: ScanPlan) -> str:
    return f"snapshot {plan.snapshot.id if plan.snapshot else '?'} of table {plan.table.name}"


def orc_table(plan: ScanPlan, f: DataFileMeta, path: str, columns: list[str]) -> pa.Table:
    """The `columns` of ORC data file `f` of `plan`'s table at `path`, as stored."""
    return read_orc(plan.table.fileio, path, columns, size=f.file_size)


def avro_table(plan: ScanPlan, f: DataFileMeta, path: str, columns: list[str]) -> pa.Table:
    """The `columns` of Avro data file `f` of `plan`'s table at `path`.

    Typed from the file's schema.
    """
    schema = plan.table.schema(f.schema_id)
    fields = []
    for name in columns:
        if name == "_SEQUENCE_NUMBER":
            fields.append(pa.field(name, pa.int64()))
        elif name == "_VALUE_KIND":
            fields.append(pa.field(name, pa.int8()))
        elif name in schema.field_names:
            fields.append(pa.field(name, arrow_type(schema.field(name).type)))
    return read_avro(plan.table.fileio, path, pa.schema(fields))


def _parquet_remote(
    plan: ScanPlan,
    f: DataFileMeta,
    path: str,
    columns: list[str],
    request: ReadRequest,
    positions: bool,
) -> pa.Table:
    """Through pyarrow: range requests on an object store.

    The footer, then the projected column chunks of the row groups whose statistics may match the
    filters placed below the merge; with `positions`, each row's file position as `POS` (for the
    deletion vector anti-join, which counts positions in the whole file).
    """
    return read_parquet(
        plan.table.fileio,
        path,
        columns,
        size=f.file_size,
        row_groups=_row_group_filter(plan, f, request),
        positions=POS if positions else None,
    )


#: Types whose Parquet min/max statistics (as pyarrow decodes them) compare like a filter's
#: constants; other columns' statistics are not used to skip row groups.
_STATS_ROOTS = INTEGER_ROOTS | {"VARCHAR", "DATE", "BOOLEAN"}


def _row_group_filter(
    plan: ScanPlan, f: DataFileMeta, request: ReadRequest
) -> Callable[[Any], list[int] | None] | None:
    """Picks the row groups of a Parquet footer whose statistics may satisfy the safe filters.

    None when no filter can use statistics (every row group is read).
    """
    filters, usable = prunable_filters(plan, f, request)
    stored = {name: fld.name for name, fld in usable.items() if fld.type.root in _STATS_ROOTS}
    if not filters or not stored:
        return None
    predicate = and_all(filters)

    def choose(metadata: Any) -> list[int] | None:
        index = {metadata.schema.column(i).path: i for i in range(metadata.num_columns)}
        columns = {name: index[old] for name, old in stored.items() if old in index}
        if not columns:
            return None
        keep = []
        for g in range(metadata.num_row_groups):
            group = metadata.row_group(g)
            ranges = {
                name: _value_range(group.column(i).statistics, group.num_rows)
                for name, i in columns.items()
            }
            if may_match(predicate, ranges.get):
                keep.append(g)
        return keep

    return choose


def _value_range(stats: Any, rows: int) -> ValueRange | None:
    """What a column chunk's Parquet statistics say (None: nothing)."""
    if stats is None:
        return None
    nulls = stats.null_count if stats.has_null_count else None
    if not stats.has_min_max:
        return ValueRange(None, None, nulls, rows)
    try:
        return ValueRange(stats.min, stats.max, nulls, rows)
    except Exception:  # noqa: BLE001 - e.g. a truncated UTF-8 bound: use no bounds
        return ValueRange(None, None, nulls, rows)


def _has_nanos(plan: ScanPlan, f: DataFileMeta) -> bool:
    """Java writes TIMESTAMP(p > 6) as Parquet INT96, which DuckDB reads as microseconds.

    Let pyarrow read it.
    """
    return any(
        fld.type.root in ("TIMESTAMP", "TIMESTAMP_LTZ") and (fld.type.precision or 0) > 6
        for fld in plan.table.schema(f.schema_id).fields
    )


class SplitReader:
    """Reads splits with a private cursor of `engine` (an in-process DuckDB database)."""

    #: Rows per Arrow batch of a split's stream (DuckDB's default is 131072).
    BATCH_ROWS = 131072
    #: ... and when the reader will likely stop after a few rows: smaller batches come sooner.
    FIRST_BATCH_ROWS = 4096

    #: DuckDB's result buffer when the reader will likely stop early (its default is 10 MiB: a
    #: ``LIMIT 10`` would fetch that much of a remote file before the consumer stops).
    FIRST_ROWS_BUFFER = "256KB"

    #: Deleted positions cached across queries (index files never change), bounded by their total
    #: length.
    CACHE_ROWS = 64_000_000

    def __init__(self, engine: duckdb.DuckDBPyConnection) -> None:
        """Use cursors of `engine` for split queries."""
        self.engine = engine
        # values: decoded arrays and tables (counted in rows), deletion bitmaps (in bytes)
        self._cache: OrderedDict[tuple[object, ...], pa.Array | pa.Table | bytes] = OrderedDict()
        self._cache_rows = 0

    def batches(self, plan: ScanPlan, request: ReadRequest) -> Iterator[pa.RecordBatch]:
        """Every split's rows, split after split."""
        cursor = self.engine.cursor()
        if request.first_rows:  # DuckDB runs ahead of the consumer until this much is buffered
            cursor.execute(
                set_setting("streaming_buffer_size", self.FIRST_ROWS_BUFFER).sql("duckdb")
            )
        try:
            for split in plan.splits:
                yield from self._split(cursor, plan, split, request)
        finally:
            cursor.close()

    def holding(self, plan: ScanPlan, predicate: Predicate) -> frozenset[str]:
        """The names of `plan`'s data files that may hold a row matching `predicate`.

        Whatever the merge makes of them: a file without such a row adds none to its split's
        merged rows, so a reader filtered by `predicate` can skip a split none of whose files is
        named. Local Parquet files whose columns of `predicate` have the table's current names and
        types are searched by one multi-file scan (DuckDB skips their row groups by statistics);
        every other file is named unsearched.

        >>> import paimon_sql, tempfile
        >>> from paimon_sql.plan.predicate import Compare
        >>> from paimon_sql.plan.scan import plan_scan
        >>> s = paimon_sql.connect(tempfile.mkdtemp(), create=True)
        >>> _ = s.sql("CREATE DATABASE db")
        >>> _ = s.sql("CREATE TABLE db.t (k INT NOT NULL, PRIMARY KEY (k) NOT ENFORCED) "
        ...           "WITH ('bucket' = '2')")
        >>> _ = s.sql("INSERT INTO db.t VALUES (1), (2), (3), (4)")
        >>> table = s.table("db.t")
        >>> plan = plan_scan(table, table.latest_snapshot())
        >>> found = s.engine.reader.holding(plan, Compare(("k",), "=", 3))
        >>> [(sp.bucket, [f.file_name in found for f in sp.files]) for sp in plan.splits]
        [(0, [False]), (1, [True])]
        """
        columns = predicate.columns()
        current = {f.name: (f.id, f.type) for f in plan.schema.fields}
        if columns & VIRTUAL or not columns <= current.keys():
            return frozenset(f.file_name for split in plan.splits for f in split.files)
        named: set[str] = set()
        searched: list[tuple[str, str]] = []  # (file name, path)
        # per schema id: the columns of `predicate` are the current ones, no INT96 nanoseconds
        readable: dict[int, bool] = {}
        local = plan.table.fileio.local
        for split in plan.splits:
            for f in split.files:
                alike = readable.get(f.schema_id)
                if alike is None:
                    fields = {
                        fld.name: (fld.id, fld.type)
                        for fld in plan.table.schema(f.schema_id).fields
                    }
                    alike = readable[f.schema_id] = all(
                        fields.get(c) == current[c] for c in columns
                    ) and not _has_nanos(plan, f)
                if alike and local and f.format == "parquet":
                    searched.append((f.file_name, _listed_path(plan, split, f)))
                else:
                    named.add(f.file_name)
        if not searched:
            return frozenset(named)
        files = exp.Array(expressions=[exp.Literal.string(path) for _, path in searched])
        scan = exp.Anonymous(this="read_parquet", expressions=[files, no_hive()])
        types = {c: current[c][1] for c in columns}
        query = (
            exp.select(exp.column(FILE_INDEX, quoted=True))
            .distinct()
            .from_(exp.Table(this=scan), copy=False)
            .where(predicate_sql(predicate, types), copy=False)
        )
        cursor = self.engine.cursor()
        try:
            hits = cursor.execute(query.sql("duckdb")).fetchall()
        finally:
            cursor.close()
        named.update(searched[i][0] for (i,) in hits)
        return frozenset(named)

    def _split(
        self, cursor: duckdb.DuckDBPyConnection, plan: ScanPlan, split: Split, request: ReadRequest
    ) -> Iterator[pa.RecordBatch]:
        if request.row_tracking or _tracked(plan):
            yield from self._tracked_split(cursor, plan, split, request)
            return
        yield from self._query_split(cursor, plan, split, request)

    def _query_split(
        self, cursor: duckdb.DuckDBPyConnection, plan: ScanPlan, split: Split, request: ReadRequest
    ) -> Iterator[pa.RecordBatch]:
        registered: list[str] = []
        try:
            dv_tables = self._deletion_vectors(cursor, plan, split, registered)
            sources = self._sources(cursor, plan, split, request, dv_tables, registered)
            key_set = None
            if request.keys is not None:
                key_set = f"__paimon_keys_{next(_names)}"
                cursor.register(key_set, request.keys)
                registered.append(key_set)
            if request.first_rows:
                queries = split_queries(plan, split, request, sources, dv_tables, key_set)
                rows = self.FIRST_BATCH_ROWS
            else:
                queries = iter([split_query(plan, split, request, sources, dv_tables, key_set)])
                rows = self.BATCH_ROWS
            try:
                for query in queries:
                    yield from cursor.sql(sql_text(query)).arrow(batch_size=rows)
            except duckdb.IOException as err:
                raise DataFileNotFoundError(
                    f"cannot read a data file of {plan.table.name}: {err}"
                ) from err
            except duckdb.Error as err:
                raise PaimonSqlError(
                    f"reading split {split.bucket_path} of {plan.table.name} failed: {err}"
                ) from err
        finally:
            for name in registered:
                cursor.unregister(name)

    def _deletion_vectors(
        self,
        cursor: duckdb.DuckDBPyConnection,
        plan: ScanPlan,
        split: Split,
        registered: list[str],
    ) -> dict[str, str]:
        """Register each file's deleted positions.

        For the anti-join of merged sections and of streams.
        """
        out: dict[str, str] = {}
        blobs: dict[str, bytes] = {}
        for file_name, ref in split.deletion_vectors:
            name = f"__paimon_dv_{next(_names)}"
            cursor.register(name, pa.table({"pos": self.positions(plan, ref, blobs)}))
            registered.append(name)
            out[file_name] = name
        return out

    def _sources(
        self,
        cursor: duckdb.DuckDBPyConnection,
        plan: ScanPlan,
        split: Split,
        request: ReadRequest,
        dv_tables: dict[str, str],
        registered: list[str],
    ) -> Mapping[str, FileSource]:
        by_name = {f.file_name: f for f in split.files}
        loaded: dict[str, pa.Table] = {}
        streamed = _streamable(plan, split, request)

        given = request.file_rows or {}

        def source(f: DataFileMeta) -> FileSource:
            rows = given.get(f.file_name)
            if rows is not None:  # these rows of the file only, read already
                name = f"__paimon_file_{next(_names)}"
                cursor.register(name, rows)
                registered.append(name)
                return table_source(name, rows.column_names)
            table = loaded.pop(f.file_name, None)
            if table is None and f.file_name in streamed:
                stream = parquet_batches(
                    plan.table.fileio,
                    _listed_path(plan, split, f),
                    physical_columns(plan, f, request),
                    size=f.file_size,
                    row_groups=_row_group_filter(plan, f, request),
                    positions=POS if f.file_name in dv_tables else None,
                )
                name = f"__paimon_file_{next(_names)}"
                cursor.register(name, stream)
                registered.append(name)
                return table_source(name, stream.schema.names)
            if table is None:
                table = self._table(plan, split, f, request, f.file_name in dv_tables)
            if table is None:  # a local Parquet file DuckDB reads itself
                names = [
                    *plan.table.schema(f.schema_id).field_names,
                    "_SEQUENCE_NUMBER",
                    "_VALUE_KIND",
                ]
                return parquet_source(_listed_path(plan, split, f), names, f.file_name in dv_tables)
            if f.file_name in dv_tables and POS not in table.column_names:
                table = table.append_column(POS, arange(table.num_rows))
            name = f"__paimon_file_{next(_names)}"
            cursor.register(name, table)
            registered.append(name)
            return table_source(name, table.column_names)

        if not plan.table.fileio.local:
            if request.first_rows:
                # a remote file is fetched only when a query of the stream reads it (LIMIT stops
                # early)
                return _LazySources(by_name, source)
            if (
                len(by_name) > 1
            ):  # fetch the split's remote files at once (obstore releases the GIL)
                whole = [f for f in split.files if f.file_name not in given]
                with ThreadPoolExecutor(max_workers=min(len(by_name), self.FETCH_THREADS)) as pool:
                    tables = pool.map(
                        lambda f: self._table(plan, split, f, request, f.file_name in dv_tables),
                        whole,
                    )
                    loaded.update(zip([f.file_name for f in whole], tables, strict=True))
        return {name: source(f) for name, f in by_name.items()}

    #: Remote data files of one split fetched at the same time.
    FETCH_THREADS = 8

    def _table(
        self,
        plan: ScanPlan,
        split: Split,
        f: DataFileMeta,
        request: ReadRequest,
        positions: bool = False,
    ) -> pa.Table | None:
        """The columns of `f` the query reads, as Arrow.

        None for a local Parquet file (DuckDB reads it). A Parquet file's rows may be only those of
        the row groups that can match the filters; then `positions` adds their file positions.
        """
        fileio = plan.table.fileio
        path = _listed_path(plan, split, f)
        columns = physical_columns(plan, f, request)
        if f.format == "parquet" and fileio.local and not _has_nanos(plan, f):
            return None
        if f.format == "orc":
            fields = plan.table.schema(f.schema_id).fields
            return orc_logical(orc_table(plan, f, path, columns), fields)
        if f.format == "avro":
            return avro_table(plan, f, path, columns)
        if f.format == "parquet":
            return _parquet_remote(plan, f, path, columns, request, positions)
        raise SpecViolationError(f"unknown data file format {f.format!r}: {path}")

    def inline(
        self,
        con: duckdb.DuckDBPyConnection,
        plan: ScanPlan,
        predicate: Predicate | None = None,
        params: dict[str, Any] | None = None,
    ) -> tuple[exp.Select, list[str]] | None:
        """The whole plan as one query for `con` to run itself, or None when it needs the stream.

        Possible when every file is a local Parquet file DuckDB reads exactly (no INT96
        nanoseconds); the deletion vectors are registered on `con` under the returned names (the
        caller keeps them alive). `predicate` (the statement's own filter, which DuckDB applies
        anyway) is also placed inside merged sections where it is safe: DuckDB cannot push a key
        filter into the anti-joined side of a merge. With `params`, the file lists of multi-file
        scans become parameters of the query, added to it (the caller runs the query with them);
        without, ``VARCHAR[]`` literals.
        """
        fileio = plan.table.fileio
        if not fileio.local or _tracked(plan):
            return None
        nanos: dict[int, bool] = {}  # per schema id
        for split in plan.splits:
            for section in split.sections:
                for f in section.files:
                    if f.format != "parquet":
                        return None
                    has = nanos.get(f.schema_id)
                    if has is None:
                        has = nanos[f.schema_id] = _has_nanos(plan, f)
                    if has:
                        return None
        registered: list[str] = []
        try:
            return self._inline(con, plan, registered, predicate, params), registered
        except BaseException:
            for name in registered:
                con.unregister(name)
            raise

    def check_files(self, plan: ScanPlan) -> None:
        """Every data file of `plan` still there with the size its snapshot lists (`inline` checks).

        For a query reusing an inlined scan of the same snapshot: a file deleted or rewritten since
        is an error naming it, not DuckDB's I/O error; and, as planning does, every folder holding
        them is checked again for a symbolic link leading out of the table (or out of the external
        roots), one directory listing per parent folder (`names.LinkScan`): a partition folder
        swapped for a link between two statements on the same snapshot is refused, not followed.
        """
        if not plan.table.fileio.local:
            return
        links = catalog_names.LinkScan(plan.table.path, local=True)
        folders: set[str] = set()
        for split in plan.splits:
            for section in split.sections:
                for f in section.files:
                    folder = _listed_path(plan, split, f).rsplit("/", 1)[0]
                    if folder in folders:
                        continue
                    folders.add(folder)
                    what = f"folder of data file {f.file_name} of table {plan.table.name}"
                    if f.external_path:
                        roots = catalog_names.external_roots(plan.options.options)
                        catalog_names.inside(folder, roots, local=True, what=what)
                    else:
                        links.inside(folder, what=what)

    def _inline(
        self,
        con: duckdb.DuckDBPyConnection,
        plan: ScanPlan,
        registered: list[str],
        predicate: Predicate | None,
        params: dict[str, Any] | None,
    ) -> exp.Select:
        dv_tables: dict[str, str] = {}
        sources: dict[str, FileSource] = {}
        paths: dict[str, str] = {}
        for split in plan.splits:
            if any(section.merge for section in split.sections):  # plain files: `_Deletions`
                dv_tables.update(self._deletion_vectors(con, plan, split, registered))
            for section in split.sections:
                for f in section.files:
                    paths[f.file_name] = _listed_path(plan, split, f)
                if not section.merge:  # read by `plan_query`'s multi-file scans, from `paths`
                    continue
                for f in section.files:
                    names = [
                        *plan.table.schema(f.schema_id).field_names,
                        "_SEQUENCE_NUMBER",
                        "_VALUE_KIND",
                    ]
                    sources[f.file_name] = parquet_source(
                        paths[f.file_name], names, f.file_name in dv_tables
                    )
        deletions = _Deletions(self, con, plan, registered, params)
        filters = (predicate,) if predicate is not None else ()
        return plan_query(plan, sources, dv_tables, paths, deletions, filters=filters)

    # --- row tracking and data evolution (Java 1.3's DataEvolutionSplitRead) ---------------------

    def _tracked_split(
        self, cursor: duckdb.DuckDBPyConnection, plan: ScanPlan, split: Split, request: ReadRequest
    ) -> Iterator[pa.RecordBatch]:
        """A split of a row-tracking table read file by file, with row ids and stitched columns.

        Each section of a data-evolution table is one row-id group (`row_id_groups`): every
        column comes from the newest file of the group that holds it, and the row id and
        sequence number from the newest file. Elsewhere a section is one file. Filters run after
        the stitching (a file's own columns cannot decide a row).
        """
        if not plan.options.row_tracking:
            raise UnsupportedFeatureError(
                f"table {plan.table.name} has no row tracking: _ROW_ID and _SEQUENCE_NUMBER need "
                "'row-tracking.enabled' = 'true'"
            )
        wanted = list(request.columns)
        for p in request.filters:
            wanted.extend(sorted(p.columns() - set(wanted)))
        schema = plan.schema
        fields = [schema.field(n) for n in dict.fromkeys(wanted)]
        dvs = dict(split.deletion_vectors)
        blobs: dict[str, bytes] = {}
        parts = []
        for section in split.sections:
            pieces = [section.files] if _tracked(plan) else [(f,) for f in section.files]
            for files in pieces:
                part = self._stitched(cursor, plan, split, files, fields, request.row_tracking)
                ref = dvs.get(files[0].file_name)
                if ref is not None:
                    deleted = self.positions(plan, ref, blobs)
                    keep = pc.invert(pc.is_in(arange(part.num_rows), value_set=deleted))
                    part = part.filter(keep)
                parts.append(part)
        extra = [ROW_ID, SEQUENCE_NUMBER] if request.row_tracking else []
        out_schema = pa.schema(
            [pa.field(f.name, arrow_type(f.type), f.type.nullable) for f in fields]
            + [pa.field(ROW_ID, pa.int64(), True), pa.field(SEQUENCE_NUMBER, pa.int64(), False)][
                : len(extra)
            ]
        )
        table = (
            pa.concat_tables([t.cast(out_schema) for t in parts])
            if parts
            else out_schema.empty_table()
        )
        if request.filters:
            name = f"__paimon_tracked_{next(_names)}"
            cursor.register(name, table)
            try:
                types = {f.name: f.type for f in fields}
                cond = exp.and_(*(predicate_sql(p, types) for p in request.filters))
                source = exp.Table(this=exp.to_identifier(name, quoted=True))
                query = exp.select(exp.Star()).from_(source).where(cond)
                table = cursor.sql(sql_text(query)).arrow()
                if isinstance(table, pa.RecordBatchReader):
                    table = table.read_all()
            finally:
                cursor.unregister(name)
        table = table.select([*request.columns, *extra])
        yield from table.to_batches(max_chunksize=self.BATCH_ROWS)

    def _stitched(
        self,
        cursor: duckdb.DuckDBPyConnection,
        plan: ScanPlan,
        split: Split,
        files: Sequence[DataFileMeta],
        fields: Sequence[DataField],
        row_tracking: bool,
    ) -> pa.Table:
        """The rows of one row-id group (newest file first), in the read schema, all positions.

        Columns are matched to files by field id through each file's ``write_cols`` (all of its
        schema's columns when absent); partition columns come from the partition; a column no file
        holds is NULL (Java refuses that for a NOT NULL column).
        """
        partition = set(plan.schema.partition_keys)
        files, blob_files = _without_blobs(plan, files)
        owner = _owners(plan, files, fields)
        rows = files[0].row_count
        columns: dict[str, pa.ChunkedArray[Any] | pa.Array[Any]] = dict(
            self._blob_columns(plan, split, files[0], blob_files, fields)
        )
        for i, f in enumerate(files):
            mine = [fld.name for fld in fields if owner.get(fld.name) == i]
            if i == 0:
                mine += [fld.name for fld in fields if fld.name in partition]
            if not mine and i > 0:
                continue
            one = replace(split, sections=(Section(files=(f,), merge=False),), deletion_vectors=())
            batches = list(self._query_split(cursor, plan, one, ReadRequest(columns=tuple(mine))))
            count = sum(b.num_rows for b in batches)
            if count != f.row_count or f.row_count != rows:
                raise CorruptFileError(
                    f.file_name,
                    f"of table {plan.table.name}: it has {count} rows, its manifest entry "
                    f"{f.row_count} and its row-id group {rows}",
                )
            if mine:
                read = pa.Table.from_batches(batches)
                for name in mine:
                    columns[name] = read.column(name)
        for fld in fields:
            if fld.name not in columns:
                if not fld.type.nullable:
                    raise CorruptFileError(
                        files[0].file_name,
                        f"of table {plan.table.name}: no file of its row-id group holds the NOT "
                        f"NULL column {fld.name}",
                    )
                columns[fld.name] = pa.nulls(rows, type=arrow_type(fld.type))  # type: ignore[call-overload]
        out = pa.table({fld.name: columns[fld.name] for fld in fields}) if fields else None
        if out is None:
            out = pa.table({"__rows": pa.nulls(rows, pa.int8())}).drop_columns(["__rows"])
        if row_tracking:
            row_id, sequence = self._tracking_columns(plan, split, files[0])
            out = out.append_column(ROW_ID, row_id).append_column(SEQUENCE_NUMBER, sequence)
        return out

    def _blob_columns(
        self,
        plan: ScanPlan,
        split: Split,
        data_file: DataFileMeta,
        blob_files: Sequence[DataFileMeta],
        fields: Sequence[DataField],
    ) -> dict[str, pa.Array[Any]]:
        """The BLOB columns of `fields` held by `blob_files` over `data_file`'s row-id range.

        Each column's files are matched by field id (its name in the file's ``write_cols``, in the
        file's schema), chained over the range as Java 1.4 does (`blob_chain`), and decoded to
        their bytes, as Java's ``Blob.toData`` gives them; a column not asked for is not read.
        """
        if not blob_files:
            return {}
        wanted = {fld.id: fld.name for fld in fields if fld.type.root == "BLOB"}
        by_field: dict[int, list[DataFileMeta]] = {}
        for f in blob_files:
            file_schema = plan.table.schema(f.schema_id)
            if not f.write_cols or len(f.write_cols) != 1:
                raise CorruptFileError(
                    f.file_name,
                    f"of table {plan.table.name}: a BLOB file must name its one column in "
                    f"write_cols, not {f.write_cols}",
                )
            by_field.setdefault(file_schema.field(f.write_cols[0]).id, []).append(f)
        if data_file.first_row_id is None:
            raise CorruptFileError(
                data_file.file_name,
                f"of table {plan.table.name}: it has no first row id, so its BLOB files cannot "
                "be placed",
            )
        out: dict[str, pa.Array[Any]] = {}
        for field_id, column_files in by_field.items():
            chain = blob_chain(
                column_files, data_file.first_row_id, data_file.row_count, plan.table.name
            )
            if field_id not in wanted:
                continue
            values: list[bytes | None] = []
            for f in chain:
                path = _listed_path(plan, split, f)
                decoded = decode_blob_file(plan.table.fileio.read_bytes(path), path)
                if len(decoded) != f.row_count:
                    raise CorruptFileError(
                        path,
                        f"it holds {len(decoded)} BLOB values, its manifest entry {f.row_count}",
                    )
                values.extend(decoded)
            out[wanted[field_id]] = pa.array(values, type=pa.binary())
        return out

    def _tracking_columns(
        self, plan: ScanPlan, split: Split, f: DataFileMeta
    ) -> tuple[pa.Array[Any], pa.Array[Any]]:
        """``_ROW_ID`` and ``_SEQUENCE_NUMBER`` of every row of `f`, as Java 1.3 reads them.

        A value the file stores (compaction keeps them as columns) wins; where it is absent or
        NULL, the row id is the file's ``first_row_id`` plus the row's position and the sequence
        number the file's max sequence number (``DataFileRecordReader`` / ``ColumnarRowIterator``).
        """
        stored: pa.Table | None = None
        physical = [ROW_ID, SEQUENCE_NUMBER]
        path = _listed_path(plan, split, f)
        fileio = plan.table.fileio
        if f.format == "parquet":
            stored = read_parquet(fileio, path, physical, size=f.file_size)
        elif f.format == "orc":
            stored = orc_table(plan, f, path, physical)
        elif f.format == "avro" and f.write_cols and set(physical) & set(f.write_cols):
            schema = pa.schema([pa.field(n, pa.int64()) for n in physical])
            stored = read_avro(fileio, path, schema)
        rows = f.row_count
        row_id: Any
        sequence: Any
        if f.first_row_id is None:
            row_id = pa.nulls(rows, type=pa.int64())
        else:
            row_id = pc.add(arange(rows), pa.scalar(f.first_row_id, pa.int64()))
        sequence = pa.array(np.full(rows, f.max_sequence_number, dtype=np.int64))
        if stored is not None and ROW_ID in stored.column_names:
            row_id = pc.coalesce(stored.column(ROW_ID).cast(pa.int64()), row_id)
        if stored is not None and SEQUENCE_NUMBER in stored.column_names:
            sequence = pc.coalesce(stored.column(SEQUENCE_NUMBER).cast(pa.int64()), sequence)
        return _combined(row_id), _combined(sequence)

    def positions(self, plan: ScanPlan, ref: DvRef, blobs: dict[str, bytes]) -> pa.Array:
        """The deleted row positions of one deletion vector (int64, ascending).

        Decoded once and cached; `blobs` holds the index files read so far for this query.
        """

        def decode() -> pa.Array:
            bitmap = read_vector(plan.table, ref, blobs)
            return pa.array(
                bitmap.to_array() if hasattr(bitmap, "to_array") else list(bitmap), pa.int64()
            )

        return as_type(
            "pa.Array", self._cached(("positions", ref.index_path, ref.meta.offset), decode)
        )

    def _cached(
        self, key: tuple[object, ...], make: Callable[[], pa.Array | pa.Table | bytes]
    ) -> pa.Array | pa.Table | bytes:
        value = self._cache.get(key)
        if value is None:
            value = make()
            self._cache[key] = value
            self._cache_rows += len(value)
            while self._cache_rows > self.CACHE_ROWS and len(self._cache) > 1:
                _, old = self._cache.popitem(last=False)
                self._cache_rows -= len(old)
        else:
            self._cache.move_to_end(key)
        return value


class BucketRead:
    """Compaction's bucket reader (`paimon_sql.compact.full.BucketReader`) on a `SplitReader`.

    A plan's rows merged, with ``_SEQUENCE_NUMBER`` and ``_VALUE_KIND`` and in key order for
    primary-key tables; with `keys`, only the rows of those keys. `key_lookup` is the session's
    cache of data files' key columns.
    """

    def __init__(self, reader: SplitReader, key_lookup: KeyLookup) -> None:
        """Read with `reader`; lookups share `key_lookup`."""
        self.reader = reader
        self.key_lookup = key_lookup

    def __call__(
        self,
        plan: ScanPlan,
        keys: pa.Table | None = None,
        *,
        keep_retractions: bool = False,
        rows: Mapping[str, pa.Array[Any]] | None = None,
    ) -> Iterator[pa.RecordBatch]:
        """The rows of `plan` (of the `keys` only, if given; retractions kept if asked).

        `rows` names, per data file, the positions (ascending) of its only rows to read: of a
        Parquet file only the row groups holding them are read (`KeyLookup.rows`, through the
        footer the key lookup cached) and the rows taken, then merged as the file would be.
        Files of other formats are read whole (restricted to `keys` by the semi-join).
        """
        pk = bool(plan.schema.primary_keys)
        request = ReadRequest(
            columns=tuple(plan.schema.field_names),
            filters=_key_range(keys) if keys is not None and pk else (),
            system_columns=pk,
            key_order=pk,
            keys=keys,
            keep_retractions=pk and keep_retractions,
        )
        if rows:
            request = replace(request, file_rows=self._file_rows(plan, request, rows))
        return self.reader.batches(plan, request)

    def _file_rows(
        self, plan: ScanPlan, request: ReadRequest, rows: Mapping[str, pa.Array[Any]]
    ) -> dict[str, pa.Table]:
        """Per Parquet file of `plan` named in `rows`: its rows at those positions."""
        keys = list(plan.schema.trimmed_primary_keys)
        out: dict[str, pa.Table] = {}
        for split in plan.splits:
            vectors = {name for name, _ in split.deletion_vectors}
            for f in split.files:
                wanted = rows.get(f.file_name)
                if wanted is None or f.format != "parquet":
                    continue
                out[f.file_name] = self.key_lookup.rows(
                    plan.table.fileio,
                    _listed_path(plan, split, f),
                    f.file_size,
                    keys,  # as the key lookup named them (its cached footer's key)
                    wanted,
                    physical_columns(plan, f, request),
                    POS if f.file_name in vectors else None,
                )
        return out


def _key_range(keys: pa.Table) -> tuple[Predicate, ...]:
    """The first key column's bounds over `keys`, as filters the scans can skip row groups with.

    The semi-join on `keys` selects the rows; the bounds only let DuckDB (and the remote reader's
    row-group filter) skip what cannot match. Integer, string and date keys only.
    """
    if keys.num_rows == 0 or keys.num_columns == 0:
        return ()
    first = keys.column(0)
    kind = first.type
    if not (pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_date32(kind)):
        return ()
    bounds = pc.min_max(first)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    if low is None or high is None:
        return ()
    name = keys.column_names[0]
    return (Compare((name,), ">=", low), Compare((name,), "<=", high))


def _streamable(plan: ScanPlan, split: Split, request: ReadRequest) -> set[str]:
    """Remote Parquet files a ``LIMIT`` read streams row group by row group.

    Those of sections without a merge (their query scans each file once, so a one-pass stream
    serves it), when the reader will likely stop early; the others are read whole first.
    """
    if plan.table.fileio.local or not request.first_rows or request.key_order:
        return set()
    return {
        f.file_name
        for section in split.sections
        if not section.merge
        for f in section.files
        if f.format == "parquet"
    }


class _LazySources(Mapping[str, FileSource]):
    """Data file sources made on first use."""

    def __init__(
        self, files: dict[str, DataFileMeta], make: Callable[[DataFileMeta], FileSource]
    ) -> None:
        self.files, self.make = files, make
        self.made: dict[str, FileSource] = {}

    def __getitem__(self, name: str) -> FileSource:
        if name not in self.made:
            self.made[name] = self.make(self.files[name])
        return self.made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)


class _Deletions:
    """`paimon_sql.read.build.Deletions` for one inlined query.

    Deleted rows decoded once per deletion vector (cached by the reader across queries: index files
    never change) and registered on `con`.
    """

    def __init__(
        self,
        reader: SplitReader,
        con: duckdb.DuckDBPyConnection,
        plan: ScanPlan,
        registered: list[str],
        params: dict[str, Any] | None = None,
    ) -> None:
        self.reader, self.con, self.plan, self.registered = reader, con, plan, registered
        self.params = params
        self.refs: dict[str, DvRef] = {}
        for split in plan.splits:
            self.refs.update(split.deletion_vectors)
        self.blobs: dict[str, bytes] = {}

    def _deleted(self, f: DataFileMeta) -> pa.Array | None:
        ref = self.refs.get(f.file_name)
        return None if ref is None else self.reader.positions(self.plan, ref, self.blobs)

    def _register(self, table: pa.Table) -> str:
        name = f"__paimon_deleted_{next(_names)}"
        self.con.register(name, table)
        self.registered.append(name)
        return name

    def vectors(self, files: Sequence[DataFileMeta]) -> exp.Select | None:
        """The bitmaps as a parameter of the statement where it has them, else a registered table.

        A parameter needs no registration (about 1 ms a query less); either is cast to ``BIT[]``
        once, in the one-row query.
        """
        refs = [self.refs.get(f.file_name) for f in files]
        if not any(refs):
            return None
        bitmaps = [self._bitmap(f, ref) for f, ref in zip(files, refs, strict=True)]
        bits = exp.alias_(exp.cast(exp.column(DV_BITS, quoted=True), "BIT[]"), DV_BITS, quoted=True)
        if self.params is not None:
            name = f"__paimon_dv_{next(_names)}"
            self.params[name] = bitmaps
            value = exp.cast(exp.Placeholder(this=name), "BIT[]")
            return exp.select(exp.alias_(value, DV_BITS, quoted=True))
        table = self._register(pa.table({DV_BITS: pa.array([bitmaps], pa.list_(pa.binary()))}))
        return exp.select(bits).from_(exp.Table(this=exp.to_identifier(table, quoted=True)))

    def _bitmap(self, f: DataFileMeta, ref: DvRef | None) -> bytes:
        """`f`'s deleted rows as a bitmap, most significant bit first (`Deletions.vectors`).

        Cached by the reader per vector; a file without one gets a bitmap of zeros.
        """
        rows = f.row_count
        if ref is None:
            return bytes((rows + 7) // 8)

        def make() -> bytes:
            deleted = self.reader.positions(self.plan, ref, self.blobs)
            return bytes(np.packbits(_deleted_flags(deleted, rows)).data)

        bitmap = self.reader._cached(("bitmap", ref.index_path, ref.meta.offset, rows), make)
        return as_type("bytes", bitmap)

    def file_list(self, paths: Sequence[str]) -> exp.Expression:
        if self.params is None:
            return exp.Array(expressions=[exp.Literal.string(p) for p in paths])
        name = f"__paimon_files_{next(_names)}"
        self.params[name] = list(paths)
        return exp.Placeholder(this=name)

    def mask(self, f: DataFileMeta) -> str | None:
        deleted = self._deleted(f)
        if deleted is None:
            return None
        keep = ~_deleted_flags(deleted, f.row_count)
        return self._register(pa.table({KEEP: pa.array(keep, pa.bool_())}))


def _deleted_flags(deleted: pa.Array, rows: int) -> np.ndarray[Any, Any]:
    """One flag per row of a data file: True where its deletion vector lists the position.

    A position past the file's `rows` is left out (the file's own rows decide).

    >>> _deleted_flags(pa.array([1, 3, 9], pa.int64()), 4).tolist()
    [False, True, False, True]
    """
    positions = deleted.to_numpy()
    flags = np.zeros(rows, dtype=np.bool_)
    flags[positions[positions < rows]] = True
    return flags
