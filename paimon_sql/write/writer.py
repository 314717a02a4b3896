"""`TableWriter`: rows of a DuckDB query → Paimon data files → `CommitMessage`s.

See paimon-format.md §6, §7.

DuckDB does the heavy lifting: the bucket (Java's murmur hash as a SQL expression), the partition
and the sort by key. Python only cuts the sorted stream into files at (partition, bucket) changes
and encodes them on two threads; and hashes the fixed buckets of small inputs (at most
`SMALL_INPUT_ROWS` rows), which DuckDB would spend more time binding the SQL hash for than Python
spends on the rows. Two paths:

* `write_stream` (append tables; fixed-bucket deduplicate / first-row tables): one query straight
  from the input, no staging copy, sorted in runs of bounded size as Java's writer flushes its
  buffer (an input beyond one run leaves one level-0 sorted run per bucket per run; most inputs are
  one run). Sequence numbers are counted in stream order above every earlier one, so a later run's
  rows carry higher numbers; a key written twice within a run (`RepeatedKeys`, found as equal
  neighbours in the sorted run) sends the statement to the other path, in two runs it is written
  twice, the later arrival winning as in the staged path.
* `stage` + `write` (dynamic buckets, the other merge engines, repeated keys): the input is
  materialised once with its arrival number, so versions of a key can be numbered (a key written
  twice in one statement goes to two files, each holding a key once, as Java's write buffer
  guarantees) and dynamic buckets can be assigned from every key hash before the first row is
  placed. Dynamic-bucket rows are numbered, assigned and written one run of bounded size at a
  time (`_write_dynamic`), each run's keys assigned knowing the earlier runs', as Java's
  assigner knows every key it has seen.

DuckDB runs under ``write-buffer-size`` (it spills beyond it), and Python holds at most a few
file-sized pieces, so memory does not grow with the input.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import uuid
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from paimon_sql.catalog import names
from paimon_sql.commit.plan import (
    AssignedOn,
    CommitMessage,
    hash_files_by_partition,
    may_hold,
    merge_entries,
)
from paimon_sql.commit.retry import on_latest
from paimon_sql.errors import (
    DataFileNotFoundError,
    PaimonSqlError,
    SchemaError,
    SnapshotNotFoundError,
    UnsupportedFeatureError,
)
from paimon_sql.format.binary_row import decode_row, encode_row
from paimon_sql.format.manifest import FileKind, IndexFileMeta
from paimon_sql.format.option_registry import memory_size
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.format.partition import PartitionLayout
from paimon_sql.io.arrays import arange
from paimon_sql.sqlnodes import (
    add_column,
    create_temp_table,
    current_settings,
    drop,
    explain_sql,
    select_all,
    set_setting,
    table_node,
)
from paimon_sql.types import (
    RowKind,
    date_range_node,
    fit_length_node,
    has_date_range,
    has_length_limit,
    nested_fit_node,
    nested_outside_years,
    type_sql,
)
from paimon_sql.write import global_index
from paimon_sql.write.bucket import (
    SMALL_INPUT_ROWS,
    bucket_expression,
    few_rows,
    hash_expression,
    python_buckets,
    python_hashable,
    python_hashes,
)
from paimon_sql.write.changelog import CL, copy_as_changelog, input_changelog
from paimon_sql.write.data_file import data_file_name, write_data_file
from paimon_sql.write.dynamic_bucket import (
    AssignTables,
    DynamicBucketOptions,
    assign_in_duckdb,
    assign_small,
    grouped_hashes,
    known_hashes,
)
from paimon_sql.write.dynamic_bucket import check as check_dynamic
from paimon_sql.write.global_index import (
    ASSIGNER,
    MOVED,
    OLD_BUCKET,
    OLD_PART,
    bootstrap,
    is_cross_partition,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from concurrent.futures import Future

    from paimon_sql.catalog import Table
    from paimon_sql.format.manifest import DataFileMeta, ManifestEntry, ManifestFileMeta
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.types import DataField, DataType
    from paimon_sql.write.global_index import KeyReader

_T = TypeVar("_T")
_counter = itertools.count()
ORD = "__paimon_ord"
GEN = "__paimon_gen"
BUCKET = "__paimon_bucket"
PART = "__paimon_part"
HASH = "__paimon_hash"
KIND = "_VALUE_KIND"
SEQ = "_SEQUENCE_NUMBER"
_MIN_DUCKDB_MEMORY = 64 << 20
#: Rows per Arrow batch of the staged path's sorted stream (`TableWriter._sorted`).
_SORTED_BATCH = 16384


def _q(name: str) -> exp.Column:
    return exp.column(name, quoted=True)


def _qs(name: str) -> exp.Column:
    """A column of the staged rows (aliased ``s`` where they are joined)."""
    return exp.column(name, table="s", quoted=True)


class TableWriter:
    """Writes the rows of a query into new data files of `table` (nothing is committed here)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection | None,
        table: Table,
        *,
        file_id: str | None = None,
        key_reader: KeyReader | None = None,
        overwrite: bool = False,
    ) -> None:
        """`con` runs the input query (it may read Paimon tables registered on it).

        None for a writer fed only through `write_pieces` (a Spark task). `file_id` is the unique
        part of the new files' names (``data-<file_id>-<n>``; a fresh UUID by default).
        `key_reader` reads a plan's merged keys: cross-partition tables bootstrap their key index
        with it (`paimon_sql.write.global_index.bootstrap`). `overwrite`: the write replaces the
        partitions it writes, so a dynamic-bucket table's new HASH files hold the keys it wrote
        only (its buckets are still assigned knowing the old keys, as Java's are).
        """
        self.con = con
        self.table = table
        self.schema: TableSchema = table.latest_schema
        self.options = CoreOptions(self.schema.options).check(table.name)
        self.pk = bool(self.schema.primary_keys)
        self.keys = self.schema.trimmed_primary_keys
        self.parts = self.schema.partition_keys
        self._part_types = [self.schema.field(p).type for p in self.parts]
        self._layout = PartitionLayout.of(self.schema)
        self.written: list[str] = []
        # folders the written files created (`_note_folders`), removed by `abort` when empty
        self._made_folders: set[str] = set()
        self._seen_folders: set[str] = set()
        #: HASH_DYNAMIC: a primary-key table with bucket = -1 whose key holds every partition key
        #: (§6).
        self.dynamic = self.pk and self.schema.bucket == -1
        #: KEY_DYNAMIC: bucket = -1 and a key without some partition column (`global_index`).
        self.cross_partition = is_cross_partition(self.schema)
        self.key_reader = key_reader
        self.overwrite = overwrite
        #: Names registered on `con` for this statement (the key index), dropped by `drop`.
        self._registered: list[str] = []
        #: Temporary tables on `con` holding the key index (`global_index.bootstrap`), dropped
        #: by `drop` or when staging fails.
        self._index_tables: list[str] = []
        #: Rows `_route` added to retract keys that moved partition: written, not the caller's rows
        self._retracted = 0
        self.index_files: dict[tuple[bytes, int], IndexFileMeta] = {}
        #: Java's ``write-buffer-size``: halved, DuckDB's memory limit while this writer stages and
        #: sorts (it spills to its temp directory beyond it); divided by 24, the largest piece of
        #: rows encoded at once (one encoding while the next is cut: the other half).
        self.buffer_size = self.options.memory("write-buffer-size")
        self._saved_limit: str | None = None
        #: The connection's ``threads`` while this writer sorts on one thread (`_relieve`).
        self._saved_threads: int | None = None
        self._limit = 0
        self._prefix = file_id or str(uuid.uuid4())
        self._files = itertools.count()
        #: ``changelog-producer`` = input: the changelog copy of each data file, by its name.
        self._changelog: dict[str, DataFileMeta] = {}
        #: Dynamic buckets: the key index the new keys' buckets came from (the HASH files, or
        #: every key of a cross-partition table), for the commit's check (`Committer.commit`).
        self.assigned_on: AssignedOn | None = None

    # --- staging ----------------------------------------------------------------------------------

    def bucket_column(self) -> exp.Expression:
        """The bucket of a row as a DuckDB expression over the table's columns.

        Fixed buckets: Java's hash of the bucket key; append tables without buckets: 0; dynamic
        buckets: NULL, assigned later.
        """
        n = self.schema.bucket
        if n > 0:
            cols = [(_q(k), t) for k, t in self._bucket_key()]
            return bucket_expression(cols, n)
        if self.dynamic:
            return exp.cast(exp.null(), "INTEGER")  # assigned after staging, per partition
        if n == -2:
            raise UnsupportedFeatureError(
                "writing postpone-bucket tables (bucket=-2) is not supported yet"
            )
        return exp.Literal.number(0)

    def _bucket_key(self) -> list[tuple[str, DataType]]:
        """The bucket key's columns and types (fixed buckets)."""
        keys = self.schema.bucket_keys
        if not keys:
            raise SchemaError(
                f"table {self.table.name} has bucket={self.schema.bucket} but no bucket key; set "
                "'bucket-key' (append tables)"
            )
        return [(k, self.schema.field(k).type) for k in keys]

    def _python_buckets(self) -> bool:
        """Whether a small input's fixed buckets are computed in Python (`_small_input`).

        More than one bucket (one is the constant 0) and a key of `python_hashable` types.
        """
        if self.schema.bucket <= 1:
            return False
        return all(python_hashable(t) for _, t in self._bucket_key())

    def _staged_bucket(self) -> exp.Expression:
        """The bucket of a staged row: NULL where `_sorted` computes it, else `bucket_column`."""
        if self._python_buckets():
            return exp.cast(exp.null(), "INTEGER")
        return self.bucket_column()

    def _generation(self) -> exp.Expression:
        """0 for the version a file keeps.

        >0 for further versions of a key in this statement (own files).
        """
        engine = self.options.merge_engine
        order: list[exp.Expression] = [
            exp.Ordered(this=_q(ORD), desc=engine is not MergeEngine.FIRST_ROW)
        ]
        if engine is MergeEngine.DEDUPLICATE:
            # The record the merge across files would keep: the last by the sequence fields in
            # 'sequence.field.sort-order' (a NULL first in either order: Java's comparator has
            # nullIsLast = false), then the last in the input. Paimon 2.0's write buffer sorts
            # so (#7684); 1.x's sorted one write ascending whatever the option said, so there
            # the largest value won within a write under 'descending' too, a bug not copied.
            descending = self.options.sequence_descending
            order = [
                exp.Ordered(this=_q(s), desc=not descending, nulls_first=False)
                for s in self.options.sequence_fields
            ] + order
        window = exp.Window(
            this=exp.RowNumber(),
            partition_by=[_q(c) for c in (*self.parts, *self.keys)],
            order=exp.Order(expressions=order),
        )
        return exp.Sub(this=window, expression=exp.Literal.number(1))

    def _kind(self, kind: RowKind | exp.Expression) -> exp.Expression:
        """The rows' ``_VALUE_KIND``: `kind`, or the one ``rowkind.field`` spells.

        Only inserted rows take their kind from the column (Java's ``RowKindGenerator``); a
        DELETE or MERGE keeps the kind it writes.
        """
        field = self.options.rowkind_field
        if field is None or not self.pk or kind is not RowKind.INSERT:
            return kind_node(kind)
        return rowkind_field_node(field, self.table.name)

    def stage(
        self, source: exp.Expression | str, kind: RowKind | exp.Expression = RowKind.INSERT
    ) -> str:
        """Materialise the input with the write columns; returns the staging table name.

        `source` is a query over the table's columns, in any order. Rows a deduplicating engine
        would drop are dropped here (dynamic-bucket tables: run by run in `write`, which also
        assigns their buckets). Primary-key tables only (append tables always stream:
        `write_stream`).
        """
        if not self.pk:
            raise ValueError(f"append table {self.table.name} is written by write_stream()")
        self._bound_memory()
        try:
            return self._stage(source, kind)
        except BaseException:
            try:
                with contextlib.suppress(duckdb.Error):  # the failure is what the caller sees
                    self._drop_index()
            finally:
                self._restore_memory()
            raise

    def _bound_memory(self) -> None:
        """Cap DuckDB's memory at half of ``write-buffer-size`` until `drop`.

        The other half is the Python side's: the pieces being cut and encoded (`piece_budget` each,
        one encoding while the next is cut, which holds up to two) and their Parquet encoding. The
        cap is at least 64 MiB, below which DuckDB's sort cannot work. DuckDB spills the staged
        rows, the sort, the aggregates and the joins of the dynamic bucket assignment to its
        ``temp_directory`` beyond it.
        """
        if self._saved_limit is not None:
            return
        query = current_settings("memory_limit").sql("duckdb")
        (self._saved_limit,) = self.con.sql(query).fetchall()[0]
        self._set_limit(max(self.buffer_size // 2, _MIN_DUCKDB_MEMORY))

    def _set_limit(self, limit: int) -> None:
        self._limit = limit
        self.con.execute(set_setting("memory_limit", f"{int(limit)}B").sql("duckdb"))

    def _ceiling(self) -> int:
        """The connection's own memory limit (0 when no cap is set): the cap never goes above it."""
        return memory_size(self._saved_limit) if self._saved_limit is not None else 0

    def _double_limit(self) -> bool:
        """Double the cap, up to the ceiling; False when it is already there."""
        ceiling = self._ceiling()
        if self._limit >= ceiling:
            return False
        self._set_limit(min(self._limit * 2, ceiling))
        return True

    def _relieve(self) -> bool:
        """After DuckDB ran out of memory under the cap: sort on one thread, else double the cap.

        DuckDB's sort holds some memory per thread that it cannot spill: on 2 threads it fails at
        once under a 128 MiB cap on 10M rows, on one it spills and finishes within it. So the first
        relief is one thread (the cap kept: memory stays bounded by ``write-buffer-size``); only
        then does the cap double. False when neither is left.
        """
        if self._saved_threads is None:
            query = current_settings("threads").sql("duckdb")
            (threads,) = self._db().sql(query).fetchall()[0]
            if int(threads) > 1:
                self._saved_threads = int(threads)
                self._db().execute(set_setting("threads", "1").sql("duckdb"))
                return True
        return self._double_limit()

    def _heavy(self, run: Callable[[], _T]) -> _T:
        """Run a statement over all staged rows under the cap.

        DuckDB's sort keeps a little memory per thread and per row pinned, so past some rows per
        MiB of cap it cannot finish: then it runs on one thread, then the cap doubles (never above
        the connection's own limit), and the statement runs again; nothing was written yet.
        """
        while True:
            try:
                return run()
            except duckdb.OutOfMemoryException:
                if not self._relieve():
                    raise

    def _restore_memory(self) -> None:
        if self._saved_threads is not None:
            self._db().execute(set_setting("threads", str(self._saved_threads)).sql("duckdb"))
            self._saved_threads = None
        if self._saved_limit is not None:
            self.con.execute(set_setting("memory_limit", self._saved_limit).sql("duckdb"))
            self._saved_limit = None

    def fitted(self, source: exp.Expression | str) -> exp.Expression:
        """`source` with every column's values as Java stores them (`fitted_value`).

        Other columns pass through.
        """
        query = exp.maybe_parse(source, dialect="duckdb")
        fitted = [
            exp.alias_(fitted_value(_q(f.name), f, self.table.name), f.name, quoted=True)
            for f in self.schema.fields
            if needs_fitting(f.type)
        ]
        if not fitted:
            return query
        inner = exp.TableAlias(this=exp.to_identifier(f"__paimon_unfitted_{next(_counter)}"))
        return exp.select(exp.Star(replace=fitted), copy=False).from_(
            exp.Subquery(this=query, alias=inner), copy=False
        )

    def _stage(self, source: exp.Expression | str, kind: RowKind | exp.Expression) -> str:
        name = f"__paimon_stage_{next(_counter)}"
        inner = f"__paimon_input_{next(_counter)}"
        source_node = exp.Subquery(
            this=self.fitted(source),
            alias=exp.TableAlias(this=exp.to_identifier(inner)),
        )
        ordered = exp.select(
            "*", exp.alias_(exp.Window(this=exp.RowNumber()), ORD, quoted=True), copy=False
        )
        ordered = ordered.from_(source_node, copy=False)
        extra = []
        python_hash = False
        if self.dynamic and not self.cross_partition:
            key = [(_q(k), self.schema.field(k).type) for k in self.keys]
            # a few rows by the input's shape, or by DuckDB's estimate (checked once staged):
            # their key hashes from Python (`_hash_in_python`)
            python_hash = all(python_hashable(t) for _, t in key) and (
                few_rows(source_node, SMALL_INPUT_ROWS) or self._probably_few(source_node.this)
            )
            value = exp.cast(exp.null(), "INTEGER") if python_hash else hash_expression(key)
            extra.append(exp.alias_(value, HASH, quoted=True))
        part_id: exp.Expression = exp.Literal.number(0)
        if self.parts and not self.cross_partition:  # (cross-partition: numbered by the routing)
            part_id = exp.Window(
                this=exp.func("DENSE_RANK"),
                order=exp.Order(expressions=[exp.Ordered(this=_q(p)) for p in self.parts]),
            )
        staged = exp.select(
            *[_q(f.name) for f in self.schema.fields],
            _q(ORD),
            exp.alias_(self._staged_bucket(), BUCKET, quoted=True),
            exp.alias_(self._kind(kind), KIND, quoted=True),
            exp.alias_(part_id, PART, quoted=True),
            *extra,
            copy=False,
        ).from_(ordered.subquery(copy=False), copy=False)
        self._create(name, staged)
        if python_hash:
            self._hash_in_python(name)
        self._check_keys(name)
        if self.dynamic and not self.cross_partition:
            return name  # versions numbered and buckets assigned run by run: `_write_dynamic`
        if self.cross_partition:
            name = self._route(name)
        name = self._generations(name)
        if self.cross_partition:
            name = self._assign_cross(name)
        return name

    def _probably_few(self, source: exp.Expression) -> bool:
        """Whether DuckDB estimates that `source` yields at most `SMALL_INPUT_ROWS` rows.

        From the plan's root cardinality (``EXPLAIN``: bound, not run). Only a hint: Python hashes
        the staged rows only if there are no more than that (`_hash_in_python`).
        """
        try:
            rows = self._db().execute(explain_sql(source, json=True)).fetchall()
            plan = json.loads(rows[0][1])
            estimate = int(plan[0]["extra_info"]["Estimated Cardinality"])
        except (duckdb.Error, LookupError, TypeError, ValueError):
            return False
        return 0 < estimate <= SMALL_INPUT_ROWS

    def _hash_in_python(self, staged: str) -> None:
        """Fill the staged rows' key hashes (dynamic buckets) from `python_hashes`.

        DuckDB binds a STRING key's hash expression in tens of milliseconds on every statement,
        more than Python spends on a few thousand rows; the same hashes (Java's). A key value
        without an exact Python form (a timestamp beyond year 9999), or more rows than
        `SMALL_INPUT_ROWS` (an estimate that was wrong), get the SQL hash instead.
        """
        db = self._db()
        key = [(k, self.schema.field(k).type) for k in self.keys]

        def hashes(columns: list[pa.ChunkedArray[Any]], types: list[DataType]) -> Any:
            found = python_hashes(columns, types)
            return None if found is None else pa.array(found, pa.int32())

        name = self._python_column(staged, key, HASH, hashes, at_most=SMALL_INPUT_ROWS)
        target = table_node(staged)
        if name is None:
            sql_hash = hash_expression([(_q(k), t) for k, t in key])
            update = exp.Update(
                this=target, expressions=[exp.EQ(this=_q(HASH), expression=sql_hash)]
            )
            db.execute(update.sql("duckdb"))
            return
        update = exp.Update(
            this=target,
            expressions=[
                exp.EQ(this=_q(HASH), expression=exp.column(HASH, table="h", quoted=True))
            ],
            from_=exp.From(this=table_node(name, alias="h")),
            where=exp.Where(
                this=exp.EQ(
                    this=exp.column(ORD, table=staged, quoted=True),
                    expression=exp.column(ORD, table="h", quoted=True),
                )
            ),
        )
        db.execute(update.sql("duckdb"))

    # --- cross-partition tables (global_index) ----------------------------------------------------

    def _db(self) -> duckdb.DuckDBPyConnection:
        if self.con is None:
            raise ValueError(f"this writer of {self.table.name} has no DuckDB connection")
        return self.con

    def _register(self, data: pa.Table) -> str:
        name = f"__paimon_index_{next(_counter)}"
        self._db().register(name, data)
        self._registered.append(name)
        return name

    def _route(self, staged: str) -> str:
        """Bootstrap the key index; route the staged rows by it (`global_index.route_queries`)."""
        if self.key_reader is None:
            raise UnsupportedFeatureError(
                f"writing cross-partition primary-key table {self.table.name} (bucket=-1, primary "
                "key without every partition column) needs its key index, which this writer "
                "cannot read; write it with SQL (INSERT INTO) through a paimon-sql session"
            )
        self._keys = f"__paimon_index_{next(_counter)}"
        scope = self._scope(staged)
        index = bootstrap(self.table, self.key_reader, self._db(), self._keys, scope)
        self._index_tables.append(self._keys)
        self.assigned_on = index.assigned_on
        self._partitions = self._register(index.partitions)
        cols = global_index.Columns(ord=ORD, bucket=BUCKET, kind=KIND, part=PART)
        scratch: list[str] = []
        try:
            ranked = f"__paimon_parts_{next(_counter)}"
            query = global_index.ranked_partitions_query(
                self.schema, staged, self._partitions, PART
            )
            self._create(ranked, query)
            scratch.append(ranked)
            repeats = f"__paimon_repeated_{next(_counter)}"
            self._create(repeats, global_index.repeated_keys_query(self.schema, staged, cols))
            scratch.append(repeats)
            count = exp.select(exp.Count(this=exp.Star())).from_(table_node(repeats))
            repeated = repeats if self._db().sql(count.sql("duckdb")).fetchall()[0][0] else None
            tables = global_index.RouteTables(
                staged=staged,
                keys=self._keys,
                partitions=self._partitions,
                ranked=ranked,
                repeated=repeated,
            )
            main, retract = global_index.route_queries(self.schema, tables, cols)
            name = f"__paimon_stage_{next(_counter)}"
            self._create(name, main)
            if retract is not None and index.count:
                insert = exp.insert(retract, table_node(name))
                added = self._heavy(lambda: self._db().execute(insert.sql("duckdb")).fetchall())
                self._retracted += int(added[0][0])
        finally:
            for table in scratch:
                self._db().execute(drop("TABLE", table_node(table)).sql("duckdb"))
        self._db().execute(drop("TABLE", table_node(staged), if_exists=False).sql("duckdb"))
        return name

    def _scope(self, staged: str) -> global_index.Scope:
        """The part of the key index the staged rows need (`global_index.Scope`)."""
        db = self._db()
        parts = exp.select(*[_q(p) for p in self.parts]).from_(table_node(staged)).distinct()
        partitions = frozenset(
            encode_row(row, self._part_types)
            for row in self._heavy(lambda: db.sql(parts.sql("duckdb")).fetchall())
        )
        pk = list(self.schema.primary_keys)
        keys_query = (
            exp.select(*[_q(k) for k in pk])
            .from_(table_node(staged))
            .distinct()
            .limit(global_index.scoped_keys(pk) + 1)
        )
        keys = [tuple(row) for row in db.sql(keys_query.sql("duckdb")).fetchall()]
        return global_index.Scope(partitions, global_index.key_filter(pk, keys))

    def _assign_cross(self, staged: str) -> str:
        """Buckets for keys new to their partition, as Java's cross-partition BucketAssigner.

        Ranked per (partition, assigner) by first arrival; the slots come from the index's key
        counts per bucket, less the keys that moved out in this statement.
        """
        n = global_index.num_assigners(self.options)
        target = self.options.integer("dynamic-bucket.target-row-num")
        pk = list(self.schema.primary_keys)
        null_bucket = exp.Is(this=_q(BUCKET), expression=exp.null())
        fresh = f"__paimon_fresh_{next(_counter)}"
        fresh_query = (
            exp.select(
                _q(PART),
                *[_q(k) for k in pk],
                exp.alias_(exp.Min(this=_q(ORD)), "first", quoted=True),
                exp.alias_(global_index.assigner_expression(self.schema, n), ASSIGNER, quoted=True),
            )
            .from_(table_node(staged))
            .where(null_bucket)
            .group_by(_q(PART), *[_q(k) for k in pk])
        )
        self._create(fresh, fresh_query)
        try:
            return self._place_fresh(staged, fresh, n, target)
        finally:
            self._db().execute(drop("TABLE", table_node(fresh)).sql("duckdb"))
            self._drop_index()  # read no more: its memory goes to the sort and the files

    def _place_fresh(self, staged: str, fresh: str, n: int, target: int) -> str:
        pk = list(self.schema.primary_keys)
        olds = [global_index.old_partition_column(i) for i in range(len(self.parts))]
        # each partition with new keys -> its id in the index (NULL: a partition without keys)
        ids = (
            exp.select(_qs(PART), exp.column(OLD_PART, table="p", quoted=True))
            .from_(table_node(staged, alias="s"))
            .join(
                table_node(self._partitions, alias="p"),
                on=global_index.all_null_safe_equal(
                    (_qs(p), exp.column(o, table="p", quoted=True))
                    for p, o in zip(self.parts, olds, strict=True)
                ),
                join_type="left",
            )
            .where(exp.Is(this=_qs(BUCKET), expression=exp.null()))
            .distinct()
        )
        part_ids = dict(self._db().sql(ids.sql("duckdb")).fetchall())
        wanted = sorted({i for i in part_ids.values() if i is not None})
        counts: dict[tuple[int, int], dict[int, int]] = {}
        if wanted:
            in_wanted = exp.In(
                this=_q(OLD_PART), expressions=[exp.Literal.number(i) for i in wanted]
            )
            held = (
                exp.select(
                    _q(OLD_PART),
                    _q(OLD_BUCKET),
                    global_index.assigner_expression(self.schema, n),
                    exp.Count(this=exp.Star()),
                )
                .from_(table_node(self._keys))
                .where(in_wanted)
                .group_by(exp.Literal.number(1), exp.Literal.number(2), exp.Literal.number(3))
            )
            for part, bucket, assigner, count in self._db().sql(held.sql("duckdb")).fetchall():
                counts.setdefault((part, assigner), {})[bucket] = count
            moved = (
                exp.select(
                    _q(OLD_PART),
                    _q(BUCKET),
                    global_index.assigner_expression(self.schema, n),
                    exp.Count(this=exp.Star()),
                )
                .from_(table_node(staged))
                .where(_q(MOVED))
                .group_by(exp.Literal.number(1), exp.Literal.number(2), exp.Literal.number(3))
            )
            for part, bucket, assigner, count in self._db().sql(moved.sql("duckdb")).fetchall():
                held_here = counts.setdefault((part, assigner), {})
                held_here[bucket] = held_here.get(bucket, 0) - count
        sizes = exp.select(_q(PART), _q(ASSIGNER), exp.Count(this=exp.Star())).from_(
            table_node(fresh)
        )
        sizes = sizes.group_by(_q(PART), _q(ASSIGNER))
        rows: dict[str, list[int]] = {PART: [], ASSIGNER: [], "bucket": [], "start": [], "stop": []}
        for part, assigner, count in self._db().sql(sizes.sql("duckdb")).fetchall():
            index_id = part_ids.get(part)
            held_counts = counts.get((index_id, assigner), {}) if index_id is not None else {}
            for bucket, start, stop in global_index.slots(held_counts, assigner, n, count, target):
                for key, value in zip(rows, (part, assigner, bucket, start, stop), strict=True):
                    rows[key].append(value)
        slot_table = self._register(
            pa.table(
                {
                    PART: pa.array(rows[PART], pa.int64()),
                    ASSIGNER: pa.array(rows[ASSIGNER], pa.int64()),
                    "bucket": pa.array(rows["bucket"], pa.int32()),
                    "start": pa.array(rows["start"], pa.int64()),
                    "stop": pa.array(rows["stop"], pa.int64()),
                }
            )
        )
        rank = exp.Sub(
            this=exp.Window(
                this=exp.RowNumber(),
                partition_by=[_q(PART), _q(ASSIGNER)],
                order=exp.Order(expressions=[exp.Ordered(this=_q("first"))]),
            ),
            expression=exp.Literal.number(1),
        )
        ranked = exp.select(
            _q(PART), _q(ASSIGNER), *[_q(k) for k in pk], exp.alias_(rank, "rank", quoted=True)
        ).from_(table_node(fresh))
        f = exp.Subquery(this=ranked, alias=exp.TableAlias(this=exp.to_identifier("f")))

        def fc(name: str) -> exp.Column:
            return exp.column(name, table="f", quoted=True)

        def lc(name: str) -> exp.Column:
            return exp.column(name, table="l", quoted=True)

        placed = (
            exp.select(fc(PART), *[fc(k) for k in pk], lc("bucket"))
            .from_(f)
            .join(
                table_node(slot_table, alias="l"),
                on=exp.and_(
                    exp.EQ(this=fc(PART), expression=lc(PART)),
                    exp.EQ(this=fc(ASSIGNER), expression=lc(ASSIGNER)),
                    exp.GTE(this=fc("rank"), expression=lc("start")),
                    exp.LT(this=fc("rank"), expression=lc("stop")),
                ),
                join_type="inner",
            )
        )
        a = exp.Subquery(this=placed, alias=exp.TableAlias(this=exp.to_identifier("a")))
        on = exp.and_(
            exp.EQ(this=_qs(PART), expression=exp.column(PART, table="a", quoted=True)),
            *[exp.EQ(this=_qs(k), expression=exp.column(k, table="a", quoted=True)) for k in pk],
        )
        bucket = exp.func("COALESCE", _qs(BUCKET), exp.column("bucket", table="a", quoted=True))
        final = (
            exp.select(
                *[_qs(f_.name) for f_ in self.schema.fields],
                _qs(ORD),
                _qs(KIND),
                _qs(PART),
                _qs(GEN),
                _qs(MOVED),
                exp.alias_(bucket, BUCKET, quoted=True),
            )
            .from_(table_node(staged, alias="s"))
            .join(a, on=on, join_type="left")
        )
        name = f"__paimon_stage_{next(_counter)}"
        self._create(name, final)
        self._db().execute(drop("TABLE", table_node(staged), if_exists=False).sql("duckdb"))
        return name

    def _create(self, name: str, query: exp.Expression) -> None:
        sql = create_temp_table(name, query).sql("duckdb")
        self._heavy(lambda: self.con.execute(sql))

    def _single_generation(self, staged: str) -> None:
        """Add GEN = 0 to every staged row (a rewrite of the table: under the cap, as `_heavy`).

        A 50M-row dynamic-bucket load ran out of memory here under the 128 MiB cap.
        """
        integer = exp.DataType(this=exp.DataType.Type.INT)
        sql = add_column(staged, GEN, integer, exp.Literal.number(0)).sql("duckdb")
        self._heavy(lambda: self._db().execute(sql))

    def _generations(self, staged: str) -> str:
        """Number the versions of a key within the statement.

        GEN 0 is the one a file keeps; deduplicate and first-row drop the others, which never reach
        a file. Skipped when every key is written
        once.
        """
        table = table_node(staged)
        keys = [_q(c) for c in (*self.parts, *self.keys)]
        repeated = exp.select(exp.Count(this=exp.Star())).from_(
            exp.select(*keys)
            .from_(table.copy())
            .group_by(*[k.copy() for k in keys])
            .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
            .subquery()
        )
        if not self._heavy(lambda: self.con.sql(repeated.sql("duckdb")).fetchall()[0][0]):
            self._single_generation(staged)
            return staged
        numbered = exp.select("*", exp.alias_(self._generation(), GEN, quoted=True)).from_(
            table.copy()
        )
        if self.options.merge_engine in (MergeEngine.DEDUPLICATE, MergeEngine.FIRST_ROW):
            numbered = (
                exp.select("*")
                .from_(numbered.subquery())
                .where(exp.EQ(this=_q(GEN), expression=exp.Literal.number(0)))
            )
        name = f"__paimon_stage_{next(_counter)}"
        self._create(name, numbered)
        self.con.execute(drop("TABLE", table_node(staged), if_exists=False).sql("duckdb"))
        return name

    def _write_dynamic(self, staged: str) -> tuple[list[CommitMessage], int]:
        """Write a dynamic-bucket table's staged rows (from `stage`) run by run.

        As Java's writer flushes its full write buffer: the rows, in arrival order, are cut into
        runs of at most `run_rows`; each run's versions of a key are numbered (`_generations`), its
        keys get their buckets (`_assign_dynamic`: the keys of earlier runs are in the HASH index
        by then, as in Java's assigner) and it is sorted and cut into its own level-0 files. Later
        runs carry higher sequence numbers (arrival numbers), so a key written in two runs reads
        back as the staged path resolves it within one. No statement works on more than one run
        of rows, so DuckDB's aggregates, joins and sorts stay under the cap at any input size. The
        new HASH files are written last; most inputs are one run, written as before.
        """
        db = self._db()
        count = exp.select(exp.Count(this=exp.Star())).from_(table_node(staged))
        (rows,) = db.sql(count.sql("duckdb")).fetchall()[0]
        size = self.run_rows()
        index = self._dynamic_index(staged, single=rows <= size, small=rows <= SMALL_INPUT_ROWS)
        starts = self.bucket_sequences()
        files: dict[tuple[bytes, int], list[DataFileMeta]] = {}
        total = 0
        try:
            for low in range(0, max(rows, 1), size):
                run = staged if index.single else self._run_of(staged, low, low + size)
                try:
                    run = self._assign_dynamic(self._generations(run), index)
                    run_files, written = self._write_sorted(run, starts)
                finally:
                    db.execute(drop("TABLE", table_node(run)).sql("duckdb"))
                for key, metas in run_files.items():
                    files.setdefault(key, []).extend(metas)
                total += written
            if not index.single:
                self._write_run_hash_files(index)
        finally:
            db.execute(drop("TABLE", table_node(index.tables.known_raw)).sql("duckdb"))
        return self.commit_messages(files), total

    def _run_of(self, staged: str, low: int, high: int) -> str:
        """A new table of the staged rows that arrived after the first `low`, up to `high`."""
        ord_ = _q(ORD)
        within = exp.and_(
            exp.GT(this=ord_, expression=exp.Literal.number(low)),
            exp.LTE(this=ord_.copy(), expression=exp.Literal.number(high)),
        )
        name = f"__paimon_run_{next(_counter)}"
        self._create(name, select_all(table_node(staged)).where(within))
        return name

    def _dynamic_index(self, staged: str, *, single: bool, small: bool) -> _DynamicIndex:
        """The HASH index of the partitions `staged` writes, loaded into a DuckDB table.

        A `small` input of one run (`assign_small`) only reads the files' contents.
        """
        db = self._db()
        options = DynamicBucketOptions.from_options(self.schema.options)
        check_dynamic(options)
        table = table_node(staged)
        parts_query = exp.select(_q(PART), *[_q(p) for p in self.parts]).from_(table).distinct()
        part_ids = {
            encode_row(tuple(row[1:]), self._part_types): int(row[0])
            for row in self._heavy(lambda: db.sql(parts_query.sql("duckdb")).fetchall())
        }
        files = {k: v for k, v in self.hash_index_files().items() if k[0] in part_ids}
        prefix = f"__paimon_dyn_{next(_counter)}"
        tables = AssignTables.unique(f"{prefix}_new", f"{prefix}_raw", prefix)
        contents = None
        counts: dict[tuple[int, int], int] = {}
        if single and small:
            contents = {
                key: self.table.fileio.read_bytes(self.table.sub("index", file))
                for key, file in files.items()
            }
        else:
            counts = self._load_known(tables.known_raw, files, part_ids)
        return _DynamicIndex(
            options=options,
            tables=tables,
            part_ids=part_ids,
            files=files,
            counts=counts,
            loaded=sum(counts.values()),
            single=single,
            contents=contents,
        )

    def _assign_dynamic(self, staged: str, index: _DynamicIndex) -> str:
        """Java's HashBucketAssigner per partition; returns the staged rows with their buckets.

        Known keys keep their bucket, new ones fill buckets (`dynamic_bucket.assign_in_duckdb`).
        Every step runs in DuckDB tables under the memory cap: the existing HASH files were loaded
        one at a time (`_dynamic_index`), the buckets reach the staged rows through one (spilling)
        join, and the new HASH files are streamed out bucket by bucket, so no step holds the keys
        in Python. A run of several (`index.single` False) adds its new keys to the index instead
        (`_remember`), whose new files `_write_run_hash_files` writes after the last run.
        """
        db = self._db()
        tables = index.tables
        try:
            if index.contents is not None:
                self._assign_small(staged, index)
            else:
                keys = exp.select(
                    exp.alias_(_q(PART), "part"),
                    exp.alias_(_q(HASH), "hash"),
                    exp.alias_(_q(ORD), "pos"),
                ).from_(table_node(staged))
                db.execute(
                    exp.Create(
                        this=table_node(tables.new_keys),
                        kind="VIEW",
                        expression=keys,
                        properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
                    ).sql("duckdb")
                )
                assign_in_duckdb(db, tables, index.counts, index.options, heavy=self._heavy)
            if not index.single:
                name = self._with_buckets(staged, tables)
                self._remember(index)
                return name
            fresh = exp.select("part", "bucket", "hash").from_(table_node(tables.fresh))
            if not self.overwrite:
                self._write_hash_files(fresh, index.files, index.part_ids, index.contents)
                return self._with_buckets(staged, tables)
            # An overwrite replaces its partitions and their index files (the commit drops the old
            # ones): as Java's, its buckets are assigned knowing the old keys, but each bucket's
            # new HASH file holds the keys this write wrote there, nothing before them.
            name = self._with_buckets(staged, tables)
            written = (
                exp.select(
                    exp.alias_(_q(PART), "part"),
                    exp.alias_(_q(BUCKET), "bucket"),
                    exp.alias_(_q(HASH), "hash"),
                )
                .from_(table_node(name))
                .distinct()
            )
            self._write_hash_files(written, {}, index.part_ids)
            return name
        finally:
            for name in (tables.known, tables.firsts, tables.fresh):
                db.execute(drop("TABLE", table_node(name)).sql("duckdb"))
            db.execute(drop("VIEW", table_node(tables.new_keys)).sql("duckdb"))

    def _assign_small(self, staged: str, index: _DynamicIndex) -> None:
        """`assign_in_duckdb`'s ``known`` and ``fresh`` tables for a small run, from Python.

        The run's few (partition, hash) pairs are looked up in the HASH files' contents
        (`assign_small`), so no table of the partitions' existing hashes is built.
        """
        db = self._db()
        tables = index.tables
        keys = exp.select(_q(PART), _q(HASH)).from_(table_node(staged)).order_by(_q(ORD))
        pairs = db.sql(keys.sql("duckdb")).fetchall()
        contents = index.contents or {}
        existing = (
            (index.part_ids[part], bucket, data) for (part, bucket), data in contents.items()
        )
        result = assign_small(pairs, existing, index.options)
        for name, rows in ((tables.known, result.known), (tables.fresh, result.fresh)):
            db.register(f"{name}_rows", rows)
            try:
                create = create_temp_table(name, select_all(table_node(f"{name}_rows")))
                db.execute(create.sql("duckdb"))
            finally:
                db.unregister(f"{name}_rows")

    def _remember(self, index: _DynamicIndex) -> None:
        """Add a run's new keys (an overwrite's: every key it wrote) to the loaded HASH index.

        Numbered after every loaded file (``ord`` = `index.loaded`), sorted by (partition,
        bucket): `_write_run_hash_files` reads them back a few buckets at a time. The buckets'
        counts grow by the new keys, as Java's assigner counts them.
        """
        db = self._db()
        tables = index.tables
        fresh = table_node(tables.fresh)
        per_bucket = exp.select("part", "bucket", exp.Count(this=exp.Star())).from_(fresh)
        for part, bucket, count in db.sql(
            per_bucket.group_by("part", "bucket").sql("duckdb")
        ).fetchall():
            index.counts[(part, bucket)] = index.counts.get((part, bucket), 0) + count
        numbered = exp.alias_(exp.cast(exp.Literal.number(index.loaded), "BIGINT"), "ord")
        added: exp.Query = exp.select("part", "bucket", "hash", numbered).from_(fresh.copy())
        if self.overwrite:
            # the known keys too, each once: the new HASH files hold what this write wrote
            ours = (
                exp.select("part", "hash")
                .from_(table_node(tables.known_raw))
                .where(exp.GTE(this=exp.column("ord"), expression=exp.Literal.number(index.loaded)))
            )
            known = (
                exp.select("part", "bucket", "hash", numbered.copy())
                .from_(table_node(tables.known, alias="k"))
                .join(ours.subquery("o"), using=["part", "hash"], join_type="anti")
            )
            added = exp.union(added, known, distinct=False)
        ordered = exp.select("*").from_(added.subquery("a")).order_by("part", "bucket")
        insert = exp.insert(ordered, table_node(tables.known_raw)).sql("duckdb")
        self._heavy(lambda: db.execute(insert))

    def _write_run_hash_files(self, index: _DynamicIndex) -> None:
        """The new HASH files after the last run: the keys `_remember` added, in ranges of buckets.

        Each range (buckets of one partition) holds at most `run_rows` keys, or one bucket, so no
        sort outgrows a run; the rows being stored sorted by bucket, a range's scan skips most of
        the others' blocks.
        """
        db = self._db()
        tables = index.tables
        ours = exp.GTE(this=exp.column("ord"), expression=exp.Literal.number(index.loaded))
        per_bucket = (
            exp.select("part", "bucket", exp.Count(this=exp.Star()))
            .from_(table_node(tables.known_raw))
            .where(ours)
            .group_by("part", "bucket")
            .order_by("part", "bucket")
        )
        groups = self._heavy(lambda: db.sql(per_bucket.sql("duckdb")).fetchall())
        size = self.run_rows()
        ranges: list[tuple[int, int, int]] = []  # (part, first bucket, last bucket)
        held = 0
        for part, bucket, count in groups:
            if ranges and ranges[-1][0] == part and held + count <= size:
                ranges[-1] = (part, ranges[-1][1], bucket)
                held += count
            else:
                ranges.append((part, bucket, bucket))
                held = count
        old = {} if self.overwrite else index.files
        for part, first, last in ranges:
            where = exp.and_(
                ours.copy(),
                exp.EQ(this=exp.column("part"), expression=exp.Literal.number(part)),
                exp.Between(
                    this=exp.column("bucket"),
                    low=exp.Literal.number(first),
                    high=exp.Literal.number(last),
                ),
            )
            hashes = exp.select("part", "bucket", "hash").from_(table_node(tables.known_raw))
            self._write_hash_files(hashes.where(where), old, index.part_ids)

    def _load_known(
        self, name: str, files: Mapping[tuple[bytes, int], str], part_ids: Mapping[bytes, int]
    ) -> dict[tuple[int, int], int]:
        """Load the HASH files of the written partitions into table `name`, one file at a time.

        Returns each (part id, bucket)'s hash count.
        """
        db = self._db()
        empty = next(known_hashes([(0, 0, b"")]))[0]
        db.register(f"{name}_empty", empty)
        db.execute(create_temp_table(name, select_all(table_node(f"{name}_empty"))).sql("duckdb"))
        db.unregister(f"{name}_empty")
        counts: dict[tuple[int, int], int] = {}
        contents = (
            (part_ids[part], bucket, self.table.fileio.read_bytes(self.table.sub("index", file)))
            for (part, bucket), file in files.items()
        )
        for rows, key, count in known_hashes(contents):
            if count:
                counts[key] = count
            db.register(f"{name}_file", rows)
            insert = exp.insert(select_all(table_node(f"{name}_file")), table_node(name))
            sql = insert.sql("duckdb")
            self._heavy(lambda q=sql: db.execute(q))
            db.unregister(f"{name}_file")
        return counts

    def _write_hash_files(
        self,
        hashes: exp.Select,
        files: Mapping[tuple[bytes, int], str],
        part_ids: Mapping[bytes, int],
        contents: Mapping[tuple[bytes, int], bytes] | None = None,
    ) -> None:
        """The new HASH file of every bucket that gained hashes: its old content, then the new.

        `hashes` selects ``part``, ``bucket``, ``hash`` (the new ones); `files` names each bucket's
        current file (empty: none is kept), whose content `contents` may hold already. Java
        writes a bucket's hashes in its hash set's order, so readers take no order from the file.
        The new hashes stream out sorted by (partition, bucket); one bucket is held at once.
        """
        db = self._db()
        part_bytes = {i: b for b, i in part_ids.items()}
        query = exp.select("part", "bucket", "hash").from_(hashes.subquery("h"))
        query = query.order_by("part", "bucket")
        reader = self._heavy(lambda: db.sql(query.sql("duckdb")).arrow())
        try:
            for part_id, bucket, data in grouped_hashes(reader):
                part = part_bytes[part_id]
                old = files.get((part, bucket))
                if not old:
                    before = b""
                elif contents is not None and (part, bucket) in contents:
                    before = contents[(part, bucket)]
                else:
                    before = self.table.fileio.read_bytes(self.table.sub("index", old))
                self.write_index(part, bucket, before + data)
        finally:
            reader.close()

    def _with_buckets(self, staged: str, tables: AssignTables) -> str:
        """The staged rows with the bucket of their (partition, hash) from the assignment."""
        db = self._db()
        assignment = exp.union(
            exp.select("part", "hash", "bucket").from_(table_node(tables.known)),
            exp.select("part", "hash", "bucket").from_(table_node(tables.fresh)),
            distinct=False,
        )
        a = exp.Subquery(this=assignment, alias=exp.TableAlias(this=exp.to_identifier("a")))
        columns = [c for c in db.table(staged).columns if c != BUCKET]
        select = exp.select(
            *[_qs(c) for c in columns],
            exp.alias_(exp.column("bucket", table="a", quoted=True), BUCKET, quoted=True),
        ).from_(table_node(staged, alias="s"))
        on = exp.and_(
            exp.EQ(this=_qs(PART), expression=exp.column("part", table="a", quoted=True)),
            exp.EQ(this=_qs(HASH), expression=exp.column("hash", table="a", quoted=True)),
        )
        select = select.join(a, on=on, join_type="inner")
        name = f"__paimon_stage_{next(_counter)}"
        self._create(name, select)
        before, after = (
            db.sql(
                exp.select(exp.Count(this=exp.Star())).from_(table_node(t)).sql("duckdb")
            ).fetchall()[0][0]
            for t in (staged, name)
        )
        db.execute(drop("TABLE", table_node(staged), if_exists=False).sql("duckdb"))
        if before != after:
            db.execute(drop("TABLE", table_node(name)).sql("duckdb"))
            raise PaimonSqlError(
                f"internal error writing {self.table.name}: {before} rows staged but {after} got "
                "a dynamic bucket; nothing was written"
            )
        return name

    def hash_index(self) -> dict[tuple[bytes, int], bytes]:
        """(partition, bucket) -> the content of its current HASH index file.

        Dynamic bucket tables.
        """
        return {
            key: self.table.fileio.read_bytes(self.table.sub("index", name))
            for key, name in self.hash_index_files().items()
        }

    def hash_index_files(self) -> dict[tuple[bytes, int], str]:
        """(partition, bucket) -> the (checked) name of its current HASH index file.

        In the index manifest's order, which is Java's loading order.
        """
        return on_latest(self.table, self._hash_index_of)

    def _hash_index_of(self, latest: Snapshot | None) -> dict[tuple[bytes, int], str]:
        entries = []
        if latest is not None and latest.index_manifest is not None:
            entries = self.table.index_manifest(latest.index_manifest)
        if self.assigned_on is None:  # the first read is what the buckets are assigned from
            self.assigned_on = AssignedOn.of(latest, hash_files_by_partition(entries))
        out = {}
        for entry in entries:
            if entry.index_file.index_type == "HASH":
                out[(entry.partition, entry.bucket)] = names.validate_file_name(
                    entry.index_file.file_name, what=f"index file of table {self.table.name}"
                )
        return out

    def write_index(self, partition: bytes, bucket: int, blob: bytes) -> None:
        """Write a HASH index file of (partition, bucket); its meta goes into `commit_messages`."""
        name = f"index-{self._prefix}-{next(self._files)}"
        path = self.table.sub("index", name)
        self.table.fileio.write_bytes(path, blob)
        self.written.append(path)
        meta = IndexFileMeta(
            index_type="HASH", file_name=name, file_size=len(blob), row_count=len(blob) // 4
        )
        self.index_files[(partition, bucket)] = meta

    def _not_null_keys(self) -> list[str]:
        return [k for k in self.schema.primary_keys if not self.schema.field(k).type.nullable]

    def _null_key(self, column: str) -> SchemaError:
        return SchemaError(
            f"row(s) have NULL in primary-key column {column!r} of table {self.table.name}; "
            "primary keys cannot be NULL"
        )

    def _check_keys(self, staged: str) -> None:
        for column in self._not_null_keys():
            query = (
                exp.select(exp.Count(this=exp.Star()))
                .from_(table_node(staged))
                .where(exp.Is(this=_q(column), expression=exp.null()))
            )
            (nulls,) = self.con.sql(query.sql("duckdb")).fetchall()[0]
            if nulls:
                raise self._null_key(column)

    # --- files ------------------------------------------------------------------------------------

    def next_sequence(self) -> dict[tuple[bytes, int], int]:
        """Per (partition, bucket): one past the highest sequence number of the live files.

        Every bucket of the latest snapshot (a Spark job ships them to its tasks), folded from the
        per-manifest digests (cached: manifests never change).
        """
        return on_latest(self.table, self._next_sequence_of)

    def _next_sequence_of(self, latest: Snapshot | None) -> dict[tuple[bytes, int], int]:
        if latest is None:
            return {}
        return _fold_sequences(self.table, self.table.data_manifests(latest), None)

    def bucket_sequences(self) -> dict[tuple[bytes, int], int]:
        """`next_sequence`, computed per partition when one of its buckets is first asked for.

        Each partition reads only the manifests whose partition stats may hold its files, so a
        write into a few partitions costs what it writes, not the table's size; the fold runs on
        per-manifest digests, cached across the statements of a session. They are read on the
        latest snapshot when this is called (again on a newer one if expiration removes its files
        meanwhile). Primary-key and append writers both number from here, per bucket (§7).
        """
        base_id = self.table.latest_snapshot_id()
        try:
            pinned = None if base_id is None else self.table.snapshot(base_id)
        except (DataFileNotFoundError, SnapshotNotFoundError):
            pinned = on_latest(self.table, lambda latest: latest)
        partitions: dict[bytes, dict[tuple[bytes, int], int]] = {}

        def compute(key: tuple[bytes, int]) -> int:
            part = key[0]
            found = partitions.get(part)
            if found is None:
                try:
                    found = self._partition_sequences(pinned, part)
                except (DataFileNotFoundError, SnapshotNotFoundError):
                    found = on_latest(
                        self.table, lambda latest: self._partition_sequences(latest, part)
                    )
                partitions[part] = found
            return found.get(key, 0)

        return _LazyStarts(compute)

    def _partition_sequences(
        self, latest: Snapshot | None, part: bytes
    ) -> dict[tuple[bytes, int], int]:
        """One past the highest sequence number of each bucket of partition `part` in `latest`."""
        if latest is None:
            return {}
        values = {decode_row(part, self._part_types)}
        metas = [
            m
            for m in self.table.data_manifests(latest)
            if may_hold(m.partition_stats, values, self._part_types)
        ]
        return _fold_sequences(self.table, metas, part)

    def _sorted(self, staged: str, base: int, rows: int) -> pa.RecordBatchReader:
        """All `rows` staged rows in one stream sorted by (partition, bucket, generation, key).

        With the group columns. PK rows carry ``base - 1 + input position`` as their sequence number
        (rising in arrival order in every bucket; gaps are fine for readers, §7). Dynamic-bucket
        rows already carry theirs (`_assign_dynamic`). Fixed buckets that `_staged_bucket` left
        NULL are computed here: in Python for at most `SMALL_INPUT_ROWS` rows (joined by arrival
        number), else in SQL by the sort.
        """
        table = table_node(staged, alias="s")
        seq = exp.Add(this=exp.Literal.number(base - 1), expression=_qs(ORD))
        bucket: exp.Expression = _qs(BUCKET)
        joined = None
        if self._python_buckets():
            joined = self._python_staged(staged) if rows <= SMALL_INPUT_ROWS else None
            if joined is None:
                bucket = self.bucket_column()
            else:
                bucket = exp.column(BUCKET, table="b", quoted=True)
        select = exp.select(
            *[_qs(f.name) for f in self.schema.fields],
            exp.alias_(seq, SEQ, quoted=True),
            exp.alias_(exp.cast(_qs(KIND), "TINYINT"), KIND, quoted=True),
            _qs(PART),
            exp.alias_(bucket, BUCKET, quoted=True),
            _qs(GEN),
        ).from_(table)
        if joined is not None:
            on = exp.EQ(this=_qs(ORD), expression=exp.column(ORD, table="b", quoted=True))
            select = select.join(table_node(joined, alias="b"), on=on)
        order = [_qs(PART), bucket.copy(), _qs(GEN), *[_qs(k) for k in self.keys]]
        sql = select.order_by(*order).sql("duckdb")
        # small batches: DuckDB's scan of its sorted rows holds less (10M rows of the benchmark's
        # input: 475 MB peak with 16k-row batches, 495 MB with its default 1M-row ones)
        return self._heavy(lambda: self.con.sql(sql).arrow(batch_size=_SORTED_BATCH))

    def _python_staged(self, staged: str) -> str | None:
        """The staged rows' arrival numbers and buckets from `python_buckets`, registered.

        The registered name; None when a key value has no Python form.
        """
        n = self.schema.bucket
        return self._python_column(
            staged, self._bucket_key(), BUCKET, lambda c, t: python_buckets(c, t, n)
        )

    def _python_column(
        self,
        staged: str,
        key: Sequence[tuple[str, DataType]],
        column: str,
        compute: Callable[[list[pa.ChunkedArray[Any]], list[DataType]], pa.Array[Any] | None],
        at_most: int | None = None,
    ) -> str | None:
        """The staged rows' arrival numbers and `compute`'s values of their `key`, registered.

        Registered as a table of ``ORD`` and `column` (for `_python_staged`'s join and
        `_hash_in_python`'s update); None when `compute` is (a key value without a Python form),
        or when more than `at_most` rows are staged (none of them computed).
        """
        query = exp.select(_q(ORD), *[_q(name) for name, _ in key]).from_(table_node(staged))
        if at_most is not None:
            query = query.limit(at_most + 1)
        rows = self._db().sql(query.sql("duckdb")).arrow().read_all()
        if at_most is not None and rows.num_rows > at_most:
            return None
        values = compute(rows.columns[1:], [t for _, t in key])
        if values is None:
            return None
        return self._register(pa.table({ORD: rows.column(0), column: values}))

    def _bucket_dir(self, part: tuple[Any, ...], bucket: int) -> str:
        """``[<data-file.path-directory>/][<partition>/]bucket-<b>``: where readers look.

        As Java's ``FileStorePathFactory.relativeBucketPath`` builds it.
        """
        pieces = []
        directory = names.path_directory(self.options.options)
        if directory:
            pieces.append(directory)
        if self.parts:
            pieces.append(self._layout.path(part))
        pieces.append(f"bucket-{bucket}")
        path = self.table.sub(*pieces)
        # never write through a symbolic link leading out of the table folder
        local = self.table.fileio.local
        return names.inside(path, [self.table.path], local=local, what="bucket folder")

    def _write_chunk(
        self, rows: pa.Table, part: tuple[Any, ...], bucket: int, start: int
    ) -> DataFileMeta:
        fmt = self.options.file_format
        prefix = names.file_prefix(self.options.options, "data-file.prefix")
        path = self.table.fileio.join(
            self._note_folders(self._bucket_dir(part, bucket)),
            data_file_name(self._prefix, next(self._files), fmt, prefix),
        )
        self.written.append(path)
        meta = write_data_file(
            self.table.fileio, path, rows, schema=self.schema, first_sequence_number=start
        )
        if self.pk and input_changelog(self.options):
            name = data_file_name(
                self._prefix, next(self._files), fmt, names.file_prefix(self.options.options, CL)
            )
            copy = self.table.fileio.join(self._bucket_dir(part, bucket), name)
            self.written.append(copy)
            self._changelog[meta.file_name] = copy_as_changelog(self.table.fileio, path, copy, meta)
        return meta

    def write(self, staged: str) -> tuple[list[CommitMessage], int]:
        """Write the staged rows: one commit message per (partition, bucket), and the row count.

        The count is of the caller's rows: a cross-partition table's retractions of moved keys
        (`_route`) are written but not counted, as DuckDB counts one row per row inserted.

        DuckDB sorts everything once (spilling past ``write-buffer-size``, see `stage`); the sorted
        stream is cut into files by `write_pieces`, so the Python side holds a bounded number of
        rows whatever the input size. Dynamic-bucket tables are written run by run
        (`_write_dynamic`).
        """
        if self.dynamic and not self.cross_partition:
            return self._write_dynamic(staged)
        files, written = self._write_sorted(staged, self.bucket_sequences())
        return self.commit_messages(files), written - self._retracted

    def _write_sorted(
        self, staged: str, starts: dict[tuple[bytes, int], int]
    ) -> tuple[dict[tuple[bytes, int], list[DataFileMeta]], int]:
        """The files of the staged rows (their buckets assigned) and their number of rows."""
        base = 0  # the stream's numbers: 0-based input positions, moved per bucket when written
        count = exp.select(exp.Count(this=exp.Star())).from_(table_node(staged))
        (expected,) = self.con.sql(count.sql("duckdb")).fetchall()[0]
        reader = self._sorted(staged, base, expected)
        pieces = (
            (
                tuple(rows.column(p)[0].as_py() for p in self.parts),
                bucket,
                rows.drop_columns([PART, BUCKET, GEN]),
            )
            for (_, bucket, _), rows in cut_groups(
                reader, reader.schema, [PART, BUCKET, GEN], self.piece_budget()
            )
        )
        files, written = self.write_pieces(pieces, base, starts, numbering="shift")
        if written != expected:
            raise PaimonSqlError(
                f"internal error writing {self.table.name}: {expected} rows staged but {written} "
                "written "
                "(a row without a bucket); nothing was committed"
            )
        return files, written

    def piece_budget(self) -> int:
        """The most Arrow bytes of rows encoded into one file at once."""
        return min(self._target_size(), max(self.buffer_size // 24, 1 << 20))

    def write_pieces(
        self,
        pieces: Iterable[tuple[tuple[Any, ...], int, pa.Table]],
        base: int,
        starts: dict[tuple[bytes, int], int],
        *,
        numbering: str | None = None,
    ) -> tuple[dict[tuple[bytes, int], list[DataFileMeta]], int]:
        """Encode (partition values, bucket, rows) pieces into files on a second thread.

        Pyarrow releases the GIL; one piece is encoded while the next one is cut (a bound on memory:
        see `_bound_memory`). An append file numbers its rows on from its bucket's counter in
        `starts`. Primary-key rows carry a sequence number column: final as it is (`numbering`
        None; `base` is only a floor), input positions moved up by their bucket's counter
        (``"shift"``: the input order of several versions of a key is kept), or replaced by the
        bucket's next numbers, consecutive as Java's (``"renumber"``: each key occurs once in the
        statement, so only the place above the bucket's live files matters). Returns the files per
        (partition, bucket) and the number of rows.
        """
        files: dict[tuple[bytes, int], list[DataFileMeta]] = {}
        total = 0
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending: deque[tuple[tuple[bytes, int], Future[DataFileMeta]]] = deque()
            for part, bucket, piece in pieces:
                key = (encode_row(part, self._part_types), bucket)
                rows = piece
                if not self.pk:
                    start = starts.get(key, 0)
                    starts[key] = start + rows.num_rows
                elif numbering is not None:
                    start = starts.get(key, 0)
                    index = rows.schema.get_field_index(SEQ)
                    numbers: pa.Array[Any] | pa.ChunkedArray[Any]
                    if numbering == "shift":
                        numbers = pc.add(rows.column(index), pa.scalar(start, pa.int64()))
                    else:
                        numbers = arange(rows.num_rows, start)
                        starts[key] = start + rows.num_rows
                    rows = rows.set_column(index, SEQ, numbers)
                else:
                    start = base
                del piece
                total += rows.num_rows
                pending.append((key, pool.submit(self._write_chunk, rows, part, bucket, start)))
                del rows
                while len(pending) > 1:
                    done, future = pending.popleft()
                    files.setdefault(done, []).append(future.result())
            for done, future in pending:
                files.setdefault(done, []).append(future.result())
        return files, total

    def commit_messages(
        self, files: dict[tuple[bytes, int], list[DataFileMeta]]
    ) -> list[CommitMessage]:
        """One commit message per (partition, bucket) with new files or a new HASH index file."""
        return [
            CommitMessage(
                partition=p,
                bucket=b,
                total_buckets=self.schema.bucket,
                new_files=tuple(files.get((p, b), ())),
                changelog_files=tuple(
                    self._changelog[f.file_name]
                    for f in files.get((p, b), ())
                    if f.file_name in self._changelog
                ),
                new_index_files=(self.index_files[(p, b)],) if (p, b) in self.index_files else (),
            )
            for (p, b) in sorted(set(files) | set(self.index_files))
        ]

    # --- append tables: straight from the query ---------------------------------------------------

    def streams(self) -> bool:
        """Whether `write_stream` can write this table.

        Append tables, and fixed-bucket primary-key tables whose engine keeps one version per key
        (deduplicate, first-row). Dynamic buckets need every key hash before the first row is
        placed, and the other engines keep several versions of a key in one statement (separate
        files): those are staged (`stage` / `write`).
        """
        if not self.pk:
            return True
        engine = self.options.merge_engine
        return self.schema.bucket > 0 and engine in (MergeEngine.DEDUPLICATE, MergeEngine.FIRST_ROW)

    def write_stream(
        self, source: exp.Expression | str, kind: RowKind | exp.Expression = RowKind.INSERT
    ) -> tuple[list[CommitMessage], int]:
        """Write the rows of the query `source` straight into files (no staging copy).

        See `streams`.

        The query's rows are sorted by partition, bucket and key (append tables: by partition and
        bucket, and only when there is more than one) in runs of at most `run_rows` rows (`_runs`;
        a larger input leaves several overlapping level-0 sorted runs per bucket, later runs with
        higher sequence numbers); a primary-key key repeated within a run raises `RepeatedKeys`.
        Each run is cut into files at group changes and every
        ``min(target-file-size, write-buffer-size / 24)`` Arrow bytes. Returns the commit messages
        and the number of rows written. A failed stream leaves its files to `abort`; when DuckDB's
        sort runs out of memory under the cap, the files written so far are deleted and the stream
        starts again on one thread, then with a doubled cap (`_relieve`, as `_heavy`).
        """
        if not self.streams():
            raise ValueError(f"table {self.table.name} is written through stage() and write()")
        self._bound_memory()
        try:
            while True:
                mark = len(self.written)
                try:
                    return self._stream(source, kind)
                except RepeatedKeys:
                    self._delete_since(mark)
                    raise
                except duckdb.OutOfMemoryException:
                    if not self._relieve():
                        raise
                    self._delete_since(mark)
        finally:
            self._restore_memory()

    def _stream_query(
        self, source: exp.Expression | str, kind: RowKind | exp.Expression, *, bucket: bool = True
    ) -> exp.Select:
        """The input's rows as the table's columns, ``_VALUE_KIND`` (primary keys), the bucket.

        Without the bucket unless `bucket` (`_runs` adds it).
        """
        inner = exp.Subquery(
            this=self.fitted(source),
            alias=exp.TableAlias(this=exp.to_identifier("__paimon_in")),
        )
        columns: list[exp.Expr] = [_q(f.name) for f in self.schema.fields]
        if self.pk:
            columns.append(exp.alias_(exp.cast(self._kind(kind), "TINYINT"), KIND, quoted=True))
        if bucket:
            columns.append(exp.alias_(self.bucket_column(), BUCKET, quoted=True))
        # No arrival numbering (a window makes DuckDB's sort single-threaded, 3x slower) and no
        # ORDER BY: `_runs` sorts the stream in runs, where a repeated key is an equal neighbour
        # (append rows by partition and bucket, only when needed).
        return exp.select(*columns, copy=False).from_(inner, copy=False)

    def _stream(
        self, source: exp.Expression | str, kind: RowKind | exp.Expression
    ) -> tuple[list[CommitMessage], int]:
        # each bucket numbers on from its own counter (§7), read for the buckets written only
        starts, base = self.bucket_sequences(), 0
        python = self._python_buckets()
        query = self._stream_query(source, kind, bucket=not python)
        # batches of at most a quarter run, so a run overshoots its rows by little
        batch = min(131072, max(self.run_rows() // 4, 1024))
        reader = self.con.sql(query.sql("duckdb")).arrow(batch_size=batch)
        try:
            rows = self._small_input(reader) if python else reader
            return self._write_batches(rows, base, starts)
        finally:
            reader.close()  # a failed stream must not leave the connection busy

    def _small_input(self, reader: pa.RecordBatchReader) -> pa.RecordBatchReader:
        """`reader`'s rows with their fixed bucket computed in Python when they are few.

        Reads up to `SMALL_INPUT_ROWS` rows: an input that ends there gets its buckets from
        `python_buckets` (Java's hash, as the SQL computes it); a larger one (or one with a value
        Python cannot hold) streams on without the bucket, which `_runs` adds in SQL while it sorts.
        DuckDB binds the SQL hash of a STRING key in 60-90 ms on every statement, more than
        Python spends on thousands of rows. An error of the input's query raises here as
        `_runs` raises it.
        """
        head: list[pa.RecordBatch] = []
        rows = 0
        batches = iter(reader)
        try:
            for batch in batches:
                head.append(batch)
                rows += batch.num_rows
                if rows > SMALL_INPUT_ROWS:
                    break
            else:
                small = pa.Table.from_batches(head, schema=reader.schema)
                key = self._bucket_key()
                columns = [small.column(name) for name, _ in key]
                buckets = python_buckets(columns, [t for _, t in key], self.schema.bucket)
                if buckets is not None:
                    small = small.append_column(pa.field(BUCKET, pa.int32()), buckets)
                    return pa.RecordBatchReader.from_batches(small.schema, small.to_batches())
        except OSError as err:  # the query's error read through DuckDB's Arrow stream
            raise input_error(err) from err
        return pa.RecordBatchReader.from_batches(reader.schema, itertools.chain(head, batches))

    def run_rows(self) -> int:
        """The most rows DuckDB sorts as one run: one per 12 bytes of its cap.

        The cap being half of ``write-buffer-size`` (11M rows at the default 256 MiB; at least 4096
        rows). DuckDB's sort spills its rows beyond the cap but keeps a few bytes per row pinned:
        one sort of 10M rows finished under a 128 MiB cap on one thread, 50M did not.
        """
        return max(self.buffer_size // 24, 4096)

    def _runs(self, reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
        """The unsorted input `reader` as consecutive runs sorted by partition, bucket and key.

        Each run is at most `run_rows` rows (one more batch), sorted by DuckDB on a cursor of the
        connection as the input streams into it: neither the run nor the input is held in
        Python. Java's writer likewise sorts its write buffer and flushes it as a level-0 sorted
        run when it is full (level-0 files may overlap; readers merge them by sequence number).
        Append rows are sorted by partition and bucket, and only when there is more than one.
        An error of the input's query inside a run's sort is raised as itself (not as the
        cursor's wrapping ``InvalidInputException``: a value that does not fit stays a conversion
        error, an out-of-memory one is relieved by `write_stream`); an out-of-memory error of the
        sort read through DuckDB's Arrow stream (an ``OSError`` there) as DuckDB's
        ``OutOfMemoryException``.
        """
        if not self.pk and not self.parts and self.schema.bucket <= 1:
            yield from reader
            return
        order = [_q(c) for c in (*self.parts, BUCKET, *(self.keys if self.pk else ()))]
        columns: list[exp.Expr] = [exp.Star()]
        if BUCKET not in reader.schema.names:  # a large input (`_small_input`): hashed here
            columns.append(exp.alias_(self.bucket_column(), BUCKET, quoted=True))
        limit = self.run_rows()
        batches = iter(reader)
        state: dict[str, Any] = {"more": True}

        def run() -> Iterator[pa.RecordBatch]:
            rows = 0
            try:
                for batch in batches:
                    yield batch
                    rows += batch.num_rows
                    if rows >= limit:
                        state["more"] = True
                        return
            except duckdb.Error as err:  # the input query's own error, raised as itself below
                state["error"] = err
                raise
            except OSError as err:  # the same, read through DuckDB's Arrow stream
                state["error"] = input_error(err)
                raise

        cursor = _cursor_for(self._db(), reader.schema)
        try:
            while state["more"]:
                state["more"] = False  # until `run` stops at the limit with input left
                name = f"__paimon_run_{next(_counter)}"
                cursor.register(name, pa.RecordBatchReader.from_batches(reader.schema, run()))
                try:
                    query = exp.select(*columns).from_(table_node(name)).order_by(*order)
                    yield from cursor.sql(query.sql("duckdb")).arrow()
                except (duckdb.Error, OSError) as err:
                    if "error" in state:
                        raise state["error"] from None
                    if isinstance(err, OSError) and "Out of Memory" in str(err):
                        # DuckDB's Arrow stream reports its sort's out-of-memory as an IOError
                        raise duckdb.OutOfMemoryException(str(err)) from err
                    raise
                finally:
                    cursor.unregister(name)
        finally:
            cursor.close()

    def _write_batches(
        self, reader: pa.RecordBatchReader, base: int, starts: dict[tuple[bytes, int], int]
    ) -> tuple[list[CommitMessage], int]:
        batches: Iterator[pa.RecordBatch] = self._runs(reader)
        schema = reader.schema
        if BUCKET not in schema.names:  # added by `_runs`
            schema = schema.append(pa.field(BUCKET, pa.int32()))
        if self.pk:
            keys = [*self.parts, *self.keys]
            batches = _numbered(_unique_keys(self._non_null_keys(batches), keys), base)
            schema = schema.append(pa.field(SEQ, pa.int64()))
        pieces = (
            (group[:-1], int(group[-1]), rows.drop_columns([BUCKET]))
            for group, rows in cut_groups(
                batches, schema, [*self.parts, BUCKET], self.piece_budget()
            )
        )
        numbering = "renumber" if self.pk else None
        files, total = self.write_pieces(pieces, base, starts, numbering=numbering)
        return self.commit_messages(files), total

    def _non_null_keys(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        columns = self._not_null_keys()
        for batch in batches:
            for column in columns:
                if batch.column(column).null_count:
                    raise self._null_key(column)
            yield batch

    def _target_size(self) -> int:
        return self.options.target_file_size(self.pk)

    def abort(self) -> None:
        """Delete every data file this writer wrote; a failed statement leaves none referenced.

        Then the partition and bucket folders it created, those left empty (`_note_folders`).
        """
        self._delete_since(0)
        for folder in sorted(self._made_folders, key=len, reverse=True):  # deepest first
            self.table.fileio.remove_empty_dir(folder)
        self._made_folders.clear()

    def _note_folders(self, folder: str) -> str:
        """`folder`, with it and its parents inside the table that do not exist yet remembered.

        Writing a file into `folder` creates them; `abort` removes them again when left empty.
        """
        if folder not in self._seen_folders and self.table.fileio.local:  # stores: no folders
            self._seen_folders.add(folder)
            fileio, root = self.table.fileio, self.table.path.rstrip("/\\")
            path = folder.rstrip("/\\")
            while len(path) > len(root) and path.startswith(root) and not fileio.exists(path):
                self._made_folders.add(path)
                path = path[: max(path.rfind("/"), path.rfind("\\"))]
        return folder

    def _delete_since(self, mark: int) -> None:
        """Delete the files written after the first `mark` ones (a failed attempt's)."""
        for path in self.written[mark:]:
            self.table.fileio.delete(path)
            self.table.fileio.delete(path + ".index")  # its file index, if one was written
        del self.written[mark:]

    def drop(self, staged: str) -> None:
        """Drop a staging table and give DuckDB back its memory limit."""
        try:
            self.con.execute(drop("TABLE", table_node(staged)).sql("duckdb"))
            for name in self._registered:
                self._db().unregister(name)
            self._registered.clear()
            self._drop_index()
        finally:
            self._restore_memory()

    def _drop_index(self) -> None:
        """Drop the key index's tables (cross-partition tables)."""
        while self._index_tables:
            name = self._index_tables.pop()
            self._db().execute(drop("TABLE", table_node(name)).sql("duckdb"))


#: DuckDB's exception types by the words its message starts with.
_DUCKDB_ERRORS: dict[str, type[duckdb.Error]] = {
    "Conversion Error": duckdb.ConversionException,
    "Out of Range Error": duckdb.OutOfRangeException,
    "Out of Memory Error": duckdb.OutOfMemoryException,
    "Invalid Input Error": duckdb.InvalidInputException,
}


def input_error(err: OSError) -> duckdb.Error:
    """The DuckDB error of a query read through its Arrow stream, which raises it as an OSError.

    Of the type its message names (a value that does not fit stays a conversion error, running out
    of memory an ``OutOfMemoryException``), else an ``InvalidInputException``, as DuckDB wraps the
    error of a stream it scans.

    >>> type(input_error(OSError("Conversion Error: Could not convert string 'x' to INT32")))
    <class '_duckdb.ConversionException'>
    >>> type(input_error(OSError("table db.t cannot be read: damaged file")))
    <class '_duckdb.InvalidInputException'>
    """
    text = str(err)
    kind = _DUCKDB_ERRORS.get(text.split(":", 1)[0], duckdb.InvalidInputException)
    return kind(text)


def kind_node(kind: RowKind | exp.Expression) -> exp.Expression:
    """The ``_VALUE_KIND`` of the rows: one `RowKind`, or an expression over the input's columns.

    (MERGE INTO writes upserts and deletions in one statement: a per-row kind.)

    >>> kind_node(RowKind.DELETE).sql()
    '3'
    """
    if isinstance(kind, exp.Expression):
        return kind.copy()
    return exp.Literal.number(int(kind))


#: The short strings of Java's ``RowKind.fromShortString``, by kind.
_SHORT_KINDS = (
    ("+I", RowKind.INSERT),
    ("-U", RowKind.UPDATE_BEFORE),
    ("+U", RowKind.UPDATE_AFTER),
    ("-D", RowKind.DELETE),
)


def rowkind_field_node(field: str, table: str) -> exp.Expression:
    """The ``_VALUE_KIND`` that the ``rowkind.field`` column `field` spells.

    ``+I``, ``-U``, ``+U``, ``-D``; any other value, NULL included, fails the statement naming the
    column, as Java's writer does.

    >>> print(rowkind_field_node("op", "db.t").sql("duckdb")[:45])
    CASE WHEN "op" = '+I' THEN 0 WHEN "op" = '-U'
    """
    column = _q(field)
    case = exp.Case()
    for text, kind in _SHORT_KINDS:
        case = case.when(
            exp.EQ(this=column.copy(), expression=exp.Literal.string(text)),
            exp.Literal.number(int(kind)),
        )
    message = exp.DPipe(
        this=exp.Literal.string(
            f"table {table}: the 'rowkind.field' column {field!r} must hold '+I', '-U', '+U' or "
            "'-D' in every written row, got "
        ),
        expression=exp.func(
            "COALESCE", exp.cast(column.copy(), "VARCHAR"), exp.Literal.string("NULL")
        ),
    )
    return case.else_(exp.cast(exp.func("error", message), "TINYINT"))


def _changes(column: pa.Array) -> pa.Array:
    """Where row i+1 differs from row i (NULL equal to NULL, NaN to NaN), for i in 0..len-2."""
    a, b = column.slice(1), column.slice(0, len(column) - 1)
    differ = pc.fill_null(pc.not_equal(a, b), False)
    if pa.types.is_floating(column.type):
        differ = pc.and_(
            differ, pc.invert(pc.fill_null(pc.and_(pc.is_nan(a), pc.is_nan(b)), False))
        )
    return pc.or_(differ, pc.xor(pc.is_null(a), pc.is_null(b)))


def row_changes(batch: pa.RecordBatch | pa.Table, columns: Sequence[str]) -> pa.Array:
    """Where row i+1 of `batch` differs from row i in any of `columns`.

    A batch of two rows or more.

    >>> row_changes(pa.table({"k": [1, 1, 2]}), ["k"]).to_pylist()
    [False, True]
    """
    change = _changes(batch.column(columns[0]))
    for name in columns[1:]:
        change = pc.or_(change, _changes(batch.column(name)))
    return change


def same_values(a: tuple[Any, ...], b: tuple[Any, ...] | None) -> bool:
    """Row values equal as `_changes` compares them (NaN equal to NaN).

    >>> same_values((1, float("nan")), (1, float("nan"))), same_values((1,), None)
    (True, False)
    """
    if b is None or len(a) != len(b):
        return False
    return all(x == y or (x != x and y != y) for x, y in zip(a, b, strict=True))


def needs_fitting(t: DataType) -> bool:
    """Whether `fitted_value` changes or checks values of type `t`.

    >>> from paimon_sql.types import parse_type
    >>> [needs_fitting(parse_type(s)) for s in ("CHAR(2)", "DATE", "STRING", "TIMESTAMP(9)")]
    [True, True, False, False]
    """
    if has_length_limit(t) or has_date_range(t):
        return True
    if not t.is_nested:
        return False
    x = exp.column("x")
    return nested_outside_years(x, t) is not None or nested_fit_node(x, t, str) is not None


def fitted_value(value: exp.Expression, f: DataField, table: str) -> exp.Expression:
    """The DuckDB expression of `value` (of column `f` of `table`) as Java stores it.

    CHAR(n) padded with spaces and BINARY(n) with zero bytes to n, as Flink and Spark write them
    (the same logical key must be the same key bytes, bucket and partition directory); a value
    longer than its column's length (`paimon_sql.types.fit_length`), or a DATE or TIMESTAMP
    outside years 1..9999 (`paimon_sql.types.date_range_node`), raises DuckDB's error naming the
    column and the table (`length_refusal` turns it into a `SchemaError`), so the statement stops
    before anything is committed. `value` itself for other types.

    >>> from paimon_sql.types import DataField, parse_type
    >>> f = DataField(id=0, name="d", type=parse_type("VARBINARY(2)"))
    >>> fitted_value(exp.column("d"), f, "db.t").sql("duckdb")[:40]
    'CASE WHEN OCTET_LENGTH(d) > 2 THEN ERROR'
    """
    t = f.type
    refusal = f"cannot write to table {table}: a value of column {f.name!r} "
    if has_length_limit(t):
        return fit_length_node(
            value,
            t,
            f"{refusal}is longer than {type_sql(t.with_nullable(True))} allows; shorten the "
            "value or widen the column's type; the value (hex "
            "for binary): ",
        )
    if has_date_range(t):
        return date_range_node(
            value,
            t,
            f"{refusal}lies outside years 1 to 9999, the range of Paimon's "
            f"{type_sql(t.with_nullable(True))} that Java reads back; fix the value or leave the "
            "row out; the value: ",
        )
    if t.is_nested:
        fitted = nested_fit_node(
            value,
            t,
            lambda leaf: (
                f"{refusal}holds a value longer than {type_sql(leaf.with_nullable(True))} allows;"
                " shorten the value or widen the type; the value (hex for binary): "
            ),
        )
        value = value if fitted is None else fitted
    outside = nested_outside_years(value, t) if t.is_nested else None
    if outside is not None:
        message = exp.func(
            "CONCAT",
            exp.Literal.string(
                f"{refusal}holds a DATE or TIMESTAMP outside years 1 to 9999, the range of "
                "Paimon's dates that Java reads back; fix the value or leave the row out; the "
                "value: "
            ),
            exp.cast(value.copy(), "VARCHAR"),
        )
        return exp.Case(ifs=[exp.If(this=outside, true=exp.func("ERROR", message))], default=value)
    return value


#: What `fitted_value`'s refusals say (after DuckDB's prefix): `length_refusal` finds it.
_LENGTH_REFUSAL = re.compile(
    r"cannot write to table .*: a value of column .* (is longer than|lies outside years|holds a "
    r"DATE or TIMESTAMP outside|holds a value longer than) .*"
)


def length_refusal(err: BaseException) -> SchemaError | None:
    """The `SchemaError` for a DuckDB error raised by a `fitted_value` check, else None.

    >>> str(length_refusal(ValueError("Invalid Input Error: cannot write to table db.t: a value "
    ...     "of column 'k' is longer than CHAR(2) allows; the value: abc")))[:66]
    "cannot write to table db.t: a value of column 'k' is longer than C"
    >>> length_refusal(ValueError("Conversion Error: ...")) is None
    True
    """
    found = _LENGTH_REFUSAL.search(str(err).split("\n", 1)[0])
    return None if found is None else SchemaError(found.group(0))


class RepeatedKeys(Exception):
    """A primary key occurs twice in one statement's rows.

    `TableWriter.write_stream` cannot tell which version arrived last, so the statement goes through
    `stage` (which numbers arrivals).
    """


def _unique_keys(
    batches: Iterable[pa.RecordBatch], columns: Sequence[str]
) -> Iterator[pa.RecordBatch]:
    """Pass a stream sorted by `columns` through; `RepeatedKeys` at two equal adjacent rows."""
    last: tuple[Any, ...] | None = None
    for batch in batches:
        n = batch.num_rows
        if n == 0:
            continue
        if same_values(tuple(batch.column(c)[0].as_py() for c in columns), last):
            raise RepeatedKeys
        if n > 1 and not pc.all(row_changes(batch, columns)).as_py():
            raise RepeatedKeys
        last = tuple(batch.column(c)[n - 1].as_py() for c in columns)
        yield batch


def _numbered(batches: Iterable[pa.RecordBatch], base: int) -> Iterator[pa.RecordBatch]:
    """Append ``_SEQUENCE_NUMBER`` = `base`, `base` + 1, … in stream order.

    Every key occurs once in the statement, so only the numbers' place above all earlier ones
    matters, not their order (§7).
    """
    start = base
    for batch in batches:
        n = batch.num_rows
        numbers = arange(n, start)
        start += n
        yield batch.append_column(SEQ, numbers)


def _cursor_for(con: duckdb.DuckDBPyConnection, schema: pa.Schema) -> duckdb.DuckDBPyConnection:
    """A cursor of `con` whose results have `schema`'s time zone.

    A cursor starts in DuckDB's default zone, while the input's TIMESTAMPTZ columns carry the
    user's session zone; rows sorted on the cursor must keep the input's schema.
    """
    cursor = con.cursor()
    for zone in sorted(_zones(schema.types))[:1]:
        cursor.execute(set_setting("TimeZone", zone).sql("duckdb"))
    return cursor


def _zones(types: Iterable[pa.DataType]) -> set[str]:
    """The time zones of the TIMESTAMPTZ types among `types`, nested ones included."""
    zones = set()
    for t in types:
        if pa.types.is_timestamp(t) and t.tz:
            zones.add(t.tz)
        elif isinstance(t, pa.MapType):
            zones |= _zones([t.key_type, t.item_type])
        elif pa.types.is_nested(t):
            zones |= _zones(t.field(i).type for i in range(t.num_fields))
    return zones


def cut_groups(
    batches: Iterable[pa.RecordBatch], schema: pa.Schema, columns: Sequence[str], budget: int
) -> Iterator[tuple[tuple[Any, ...], pa.Table]]:
    """Cut a stream ordered by `columns` into (group values, rows) pieces of ~`budget` Arrow bytes.

    At most two budgets of rows are held: past that, a budget's worth is cut off; at the end of a
    group the rest is cut into one or two equal pieces, so no piece is a small tail (pieces hold 1/2
    to 1 budget, or the whole group when it is smaller).
    """
    held: list[pa.RecordBatch] = []
    held_bytes = 0
    current: tuple[Any, ...] = ()

    def take(rows: int) -> pa.Table:
        nonlocal held, held_bytes
        table = pa.Table.from_batches(held, schema=schema)
        piece, rest = table.slice(0, rows), table.slice(rows)
        held = rest.to_batches()
        held_bytes = rest.nbytes
        return piece

    def finish() -> Iterator[tuple[tuple[Any, ...], pa.Table]]:
        rows = sum(b.num_rows for b in held)
        if not rows:
            return
        if held_bytes > budget and rows > 1:
            yield current, take(rows // 2)
        yield current, take(sum(b.num_rows for b in held))

    for batch in batches:
        if batch.num_rows == 0:
            continue
        cuts = [0]
        if batch.num_rows > 1 and columns:
            cuts += [i + 1 for i in pc.indices_nonzero(row_changes(batch, columns)).to_pylist()]
        cuts.append(batch.num_rows)
        for lo, hi in itertools.pairwise(cuts):
            piece = batch.slice(lo, hi - lo)
            values = tuple(piece.column(name)[0].as_py() for name in columns)
            if held and not same_values(values, current):
                yield from finish()
            current = values
            held.append(piece)
            held_bytes += piece.nbytes
            while held_bytes > 2 * budget:
                rows = sum(b.num_rows for b in held)
                yield current, take(max(1, budget * rows // held_bytes))
    yield from finish()


@dataclass(slots=True, kw_only=True)
class _DynamicIndex:
    """The HASH index of a dynamic-bucket write across its runs (`TableWriter._write_dynamic`).

    `tables.known_raw` holds the written partitions' HASH files (``ord`` below `loaded`) and the
    keys the runs added (``ord`` = `loaded`); `counts`: (part id, bucket) -> its keys so far;
    `files`: (partition, bucket) -> its current HASH file; `single`: the input is one run;
    `contents`: the files' contents, for an input small enough to be assigned in Python
    (`assign_small`; then nothing is loaded into `tables.known_raw` and `counts` stays empty).
    """

    options: DynamicBucketOptions
    tables: AssignTables
    part_ids: dict[bytes, int]
    files: dict[tuple[bytes, int], str]
    counts: dict[tuple[int, int], int]
    loaded: int
    single: bool
    contents: Mapping[tuple[bytes, int], bytes] | None = None


class _LazyStarts(dict[tuple[bytes, int], int]):
    """A bucket's next sequence number, computed the first time it is asked for."""

    def __init__(self, compute: Callable[[tuple[bytes, int]], int]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: tuple[bytes, int]) -> int:
        value = self[key] = self._compute(key)
        return value

    def get(self, key: tuple[bytes, int], default: Any = None) -> Any:
        """The number of `key` (computed if new; never `default`)."""
        return self[key]


def _fold_sequences(
    table: Table, metas: Sequence[ManifestFileMeta], part: bytes | None
) -> dict[tuple[bytes, int], int]:
    """One past the highest live sequence number per (partition, bucket) of `metas`.

    Of partition `part` only, unless None. The fold of the manifests, done on per-manifest
    digests (`_sequences`, cached by the table): from the newest manifest back, each one's first
    ADD (highest number first) that no later manifest deletes; the highest of those.
    """
    best: dict[tuple[bytes, int], int] = {}
    deleted: dict[tuple[bytes, int], set[tuple[Any, ...]]] = {}
    for meta in reversed(metas):
        digest = table.manifest_digest(meta.file_name, "seq", _sequences)
        for key, (adds, deletes) in digest.items():
            if part is not None and key[0] != part:
                continue
            gone = deleted.get(key)
            for number, ident in adds:
                if gone is None or ident not in gone:
                    if number > best.get(key, 0):
                        best[key] = number
                    break
            if deletes:
                deleted.setdefault(key, set()).update(deletes)
    return best


def _sequences(
    entries: Sequence[ManifestEntry],
) -> dict[tuple[bytes, int], tuple[list[tuple[int, tuple[Any, ...]]], set[tuple[Any, ...]]]]:
    """Per (partition, bucket) of one manifest: its ADDs, highest number first, and its DELETEs.

    ADDs as (next sequence number, identifier); an ADD the manifest itself deletes is gone.
    """
    out: dict[
        tuple[bytes, int], tuple[list[tuple[int, tuple[Any, ...]]], set[tuple[Any, ...]]]
    ] = {}
    for e in merge_entries(entries):
        adds, deletes = out.setdefault((e.partition, e.bucket), ([], set()))
        if e.kind is FileKind.ADD:
            adds.append((e.file.max_sequence_number + 1, e.identifier))
        else:
            deletes.add(e.identifier)
    for adds, _ in out.values():
        adds.sort(key=lambda a: a[0], reverse=True)
    return out
