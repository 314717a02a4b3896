"""What Spark executors run: route rows to buckets, write a task's (partition, bucket)s into files.

Pure Python over Arrow (no pyspark import), so the functions can also be called directly: a Spark
task is `route` or `write_task` applied to the batches Spark hands over. A `WriteJob` is the
picklable job description the driver ships to every task; a task returns its `CommitMessage`s
pickled, one per row.

Rows reach `write_task` sorted by (partition, bucket, primary key, arrival), every (partition,
bucket) in one task (append tables without buckets: any task, sorted by partition only). Sequence
numbers continue each bucket's counter from the driver's snapshot (paimon-format.md §7). A key
written several times in one job keeps its last arrival (deduplicate without ``sequence.field``),
its first (first-row), or every version in files of their own (other engines), each numbered above
the earlier ones, as the SQL writer.

>>> job = WriteJob(warehouse="/wh", table="db.t", schema_id=0, job_id="j")
>>> job.file_id(7)
'j-7'
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.catalog import Catalog
from paimon_sql.errors import PaimonSqlError, SchemaError, SpecViolationError
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.io.arrays import arange
from paimon_sql.types import date_range_array, fit_length_array, has_length_limit
from paimon_sql.write.data_file import VALUE_KIND, arrow_field
from paimon_sql.write.writer import (
    BUCKET,
    ORD,
    SEQ,
    TableWriter,
    cut_groups,
    row_changes,
    same_values,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.commit.plan import AssignedOn, CommitMessage
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.types import DataType

HASH = "__paimon_hash"
GEN = "__paimon_gen"
MESSAGE = "message"
MESSAGE_SCHEMA = pa.schema([pa.field(MESSAGE, pa.binary())])


@dataclass(frozen=True, slots=True, kw_only=True)
class WriteJob:
    """One Spark write, as the driver planned it (shipped to every task)."""

    warehouse: str
    table: str
    schema_id: int
    job_id: str
    #: (partition bytes, bucket) -> the bucket's next sequence number at planning time.
    starts: Mapping[tuple[bytes, int], int] = field(default_factory=dict)
    #: partition key -> value every row must hold (``write(..., partition=...)``).
    static: Mapping[str, Any] = field(default_factory=dict)
    #: dynamic bucket tables: (partition bytes, key hash) -> bucket, assigned on the driver.
    assignment: Mapping[tuple[bytes, int], int] | None = None
    #: cross-partition tables: the driver's routing of each (key, partition) (`_cross.plan`).
    cross: Mapping[Any, Any] | None = None
    #: dynamic buckets: the key index the driver assigned from (checked by the driver's commit).
    assigned_on: AssignedOn | None = None

    def file_id(self, attempt: int) -> str:
        """The unique part of the names of the files a task attempt writes: ``<job>-<attempt>``."""
        return f"{self.job_id}-{attempt}"

    def load(self) -> Table:
        """The table, checked to be at the schema the driver planned with."""
        table = Catalog(self.warehouse).load_table(self.table)
        if table.latest_schema.id != self.schema_id:
            raise SchemaError(
                f"the schema of {self.table} changed while writing (planned with schema "
                f"{self.schema_id}, "
                f"now {table.latest_schema.id}); run the write again"
            )
        return table


def table_arrow_schema(schema: TableSchema) -> pa.Schema:
    """The Arrow schema of the table's columns as data files hold them."""
    return pa.schema([arrow_field(f.name, f.type, f.id) for f in schema.fields])


def conform(batch: pa.RecordBatch, schema: TableSchema, static: Mapping[str, Any]) -> pa.Table:
    """The table columns of a Spark batch cast to their Paimon types.

    The driver checked that every cast is lossless, except timestamps, which are truncated to the
    column's precision as Java does; CHAR(n) and BINARY(n) values are padded to n and a value
    longer than its column's length is refused (`paimon_sql.types.fit_length`); a partition column
    fixed by `static` must hold its value in every row.
    """
    target = table_arrow_schema(schema)
    columns = []
    for f in target:
        column = batch.column(f.name)
        try:
            if pa.types.is_timestamp(f.type):
                column = column.cast(f.type, safe=False)
            elif column.type != f.type:
                column = column.cast(f.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
            raise SchemaError(f"column {f.name!r} cannot be written as {f.type}: {err}") from err
        paimon_type = schema.field(f.name).type
        try:
            if has_length_limit(paimon_type) or paimon_type.is_nested:  # CHAR/BINARY padded
                column = fit_length_array(column, paimon_type)
            date_range_array(column, paimon_type)
        except ValueError as err:
            raise SchemaError(
                f"a value of column {f.name!r}: {err}; fix the value (shorten a string, keep a "
                "date in years 1 to 9999) or leave the row out"
            ) from err
        if f.name in static:
            value = pa.scalar(static[f.name], f.type)
            bad = pc.invert(pc.fill_null(pc.equal(column, value), False))
            if pc.any(bad).as_py():
                found = column.filter(bad)[0].as_py()
                raise SchemaError(
                    f"partition column {f.name!r} holds {found!r} but the write is for partition "
                    f"{f.name}={static[f.name]!r}; filter the DataFrame or drop the column"
                )
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=target.remove_metadata())


def route(job: WriteJob, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Append ``__paimon_bucket`` to each batch; the other columns pass through unchanged.

    The bucket is Java's bucket function; for dynamic buckets, the driver's assignment. The task's
    batches stream through one DuckDB query (`write.bucket.stream_values`): the hash expression is
    bound once per task, not once per batch.
    """
    from paimon_sql.write.bucket import hash_expression, stream_values

    table = job.load()
    schema = table.latest_schema
    part_types = [schema.field(p).type for p in schema.partition_keys]
    if job.assignment is not None:
        keys = list(schema.trimmed_primary_keys)
        expression = hash_expression([(exp_column(k), schema.field(k).type) for k in keys])
    else:
        keys = list(schema.bucket_keys) if schema.bucket > 1 else []
        expression = TableWriter(None, table).bucket_column()
    python = python_values(schema, keys, hashes=job.assignment is not None)
    # only the columns read on: the batches DuckDB reads ahead are held with them
    used = list(dict.fromkeys([*keys, *(schema.partition_keys if job.assignment else ())]))
    typed = ((batch, conform(batch, schema, job.static).select(used)) for batch in batches)
    for (batch, rows), values in stream_values(expression, typed, _second, python):
        if job.assignment is not None:
            values = _assigned(job.assignment, rows, values, schema.partition_keys, part_types)
        yield batch.append_column(BUCKET, values)


def python_values(
    schema: TableSchema, keys: Sequence[str], *, hashes: bool
) -> Callable[[pa.Table], pa.Array[Any] | None] | None:
    """The key hashes (`hashes`) or fixed buckets of rows computed in Python, when exact for `keys`.

    For tasks with few rows (`write.bucket.stream_values`); None without keys (one bucket) or for a
    key type Python does not hash as Java. The function gives None for rows with a value that has
    no exact Python form (then DuckDB hashes them).
    """
    from paimon_sql.write.bucket import python_buckets, python_hashable, python_hashes

    types = [schema.field(k).type for k in keys]
    if not types or not all(python_hashable(t) for t in types):
        return None

    def of(rows: pa.Table) -> pa.Array[Any] | None:
        columns = [rows.column(k) for k in keys]
        if not hashes:
            return python_buckets(columns, types, schema.bucket)
        found = python_hashes(columns, types)
        return None if found is None else pa.array(found, pa.int32())

    return of


def _second(pair: tuple[Any, pa.Table]) -> pa.Table:
    return pair[1]


def _assigned(
    assignment: Mapping[tuple[bytes, int], int],
    rows: pa.Table,
    hashes: pa.Array,
    parts: Sequence[str],
    part_types: Sequence[DataType],
) -> pa.Array:
    """The driver-assigned bucket of each row (dynamic bucket tables).

    Looked up by partition and key hash.
    """
    from paimon_sql.format.binary_row import encode_row

    columns = [rows.column(p).to_pylist() for p in parts]
    out = []
    for i, h in enumerate(hashes.to_pylist()):
        part = encode_row(tuple(c[i] for c in columns), part_types)
        bucket = assignment.get((part, h))
        if bucket is None:
            raise PaimonSqlError(
                "a row's key was not seen by the bucket assignment job: the DataFrame gave other "
                "rows the "
                "second time Spark computed it (nondeterministic input); cache() or checkpoint() "
                "it first"
            )
        out.append(bucket)
    return pa.array(out, pa.int32())


def exp_column(name: str) -> Any:
    """A quoted column reference (sqlglot)."""
    from sqlglot import exp

    return exp.column(name, quoted=True)


def _generations(
    tables: Iterable[pa.Table], keys: list[str], engine: MergeEngine, keep_all: bool
) -> Iterator[pa.Table]:
    """Number the versions of each key in the sorted stream (``__paimon_gen``).

    0 is a key's first version in this job. With `keep_all` every version is kept (each generation
    goes to files of its own); else first-row keeps the first version and deduplicate the last. A
    key whose versions straddle two Spark batches may keep two versions then (the later numbered
    above): the reader merges them.
    """
    last: tuple[Any, ...] | None = None
    carried = 0
    for rows in tables:
        n = rows.num_rows
        if n == 0:
            continue
        continues = same_values(tuple(rows.column(k)[0].as_py() for k in keys), last)
        new = np.ones(n, dtype=bool)  # row i starts a key
        if n > 1:
            new[1:] = _numpy(row_changes(rows, keys))
        new[0] = not continues
        first_new = int(np.argmax(new)) if new.any() else n
        positions = np.arange(n)
        gen = positions - np.maximum.accumulate(np.where(new, positions, 0))
        gen[:first_new] += carried + 1  # empty unless the first key continues the previous batch
        last = tuple(rows.column(k)[n - 1].as_py() for k in keys)
        if not keep_all:
            # first-row: a key's first version; deduplicate: its last (followed by a new key, or at
            # the end)
            keep = gen == 0 if engine is MergeEngine.FIRST_ROW else np.append(new[1:], True)
            kept = np.zeros(int(keep.sum()), dtype=np.int64)
            if keep[
                :first_new
            ].any():  # the continued key's newest version, above the one kept before
                kept[0] = carried + 1
            rows, gen = rows.filter(pa.array(keep)), kept
        carried = int(gen[-1]) if len(gen) else carried
        yield rows.append_column(GEN, pa.array(gen, pa.int32()))


def _numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=bool)


def _sequence(
    tables: Iterable[pa.Table],
    parts: list[str],
    counters: dict[tuple[bytes, int], int],
    part_types: list[Any],
) -> Iterator[pa.Table]:
    """Append ``_SEQUENCE_NUMBER``: each (partition, bucket) counts on from ``counters``.

    `counters` (the driver's next numbers, then this task's) is advanced in place, so the next
    sorted run of the task numbers its rows above this one's.
    """
    from paimon_sql.format.binary_row import encode_row

    for rows in tables:
        part = tuple(rows.column(p)[0].as_py() for p in parts)
        key = (encode_row(part, part_types), rows.column(BUCKET)[0].as_py())
        start = counters.get(key, 0)
        counters[key] = start + rows.num_rows
        yield rows.append_column(SEQ, arange(rows.num_rows, start))


def write_task(
    job: WriteJob, batches: Iterable[pa.RecordBatch], attempt: int
) -> Iterator[pa.RecordBatch]:
    """Write the rows of one task into level-0 data files.

    Yields the task's pickled `CommitMessage`s.

    `batches` carry the table's columns (Spark types), ``__paimon_bucket`` (absent: bucket 0) and,
    for primary-key tables, ``__paimon_ord`` (arrival), sorted as the module doc says. `attempt` is
    unique per task attempt (Spark's task attempt id): the files are ``data-<job>-<attempt>-<n>``. A
    failing task deletes the files it wrote; the driver also deletes the files of attempts it does
    not commit.
    """
    return write_runs(job, [batches], attempt)


def write_runs(
    job: WriteJob, runs: Iterable[Iterable[pa.RecordBatch]], attempt: int
) -> Iterator[pa.RecordBatch]:
    """`write_task` over several sorted runs of one task, each written as level-0 files of its own.

    As Java's write buffer flushes: a run's files number their rows above the earlier runs' (a key
    in two runs is merged by the reader, the later run winning), and `runs` is consumed one run at
    a time, so a task holds one run (see `sorted_runs`) whatever its input size.
    """
    table = job.load()
    writer = TableWriter(None, table, file_id=job.file_id(attempt))
    counters = dict(job.starts)
    try:
        files: dict[tuple[bytes, int], list[DataFileMeta]] = {}
        for batches in runs:
            for key, written in _write(job, table, writer, batches, counters).items():
                files.setdefault(key, []).extend(written)
        messages = writer.commit_messages(files)
    except BaseException:
        writer.abort()
        raise
    payload = [pickle.dumps(m, protocol=pickle.HIGHEST_PROTOCOL) for m in messages]
    yield pa.RecordBatch.from_arrays([pa.array(payload, pa.binary())], schema=MESSAGE_SCHEMA)


def sorted_runs(
    job: WriteJob, batches: Iterable[pa.RecordBatch], budget: int
) -> Iterator[list[pa.RecordBatch]]:
    """Cut a task's unsorted input into runs of about `budget` Arrow bytes, each sorted.

    Java's write buffer (``write-buffer-size``): rows are bucketed (`route`) and held until they
    fill the budget, then sorted by (partition, bucket, key, arrival) and handed on as one run;
    the next run is only read once the caller has taken this one, so at most one buffer of input
    (plus its sorted copy) is held.
    """
    schema = job.load().latest_schema
    order = [*schema.partition_keys, BUCKET]
    if schema.primary_keys:
        order += [*schema.trimmed_primary_keys, ORD]
    held: list[pa.RecordBatch] = []
    held_bytes = 0
    arrival = 0

    def flush() -> list[pa.RecordBatch]:
        nonlocal held, held_bytes
        rows = pa.Table.from_batches(held)
        held, held_bytes = [], 0
        # Arrow's allocator (mimalloc) keeps the pages of freed batches for reuse; with DuckDB
        # streaming the buckets in between (`route`) it reused them less: the 160 MB test task of
        # tests/spark/test_write_buffer.py peaked at +70-100 MB, not +65; given back here, +45-65
        pa.default_memory_pool().release_unused()
        return rows.sort_by([(c, "ascending") for c in order]).to_batches()

    for batch in route(job, batches):
        if schema.primary_keys:
            batch = batch.append_column(ORD, arange(batch.num_rows, arrival))
            arrival += batch.num_rows
        while batch.num_rows:
            # a batch larger than the room left is cut, so runs hold about `budget` bytes each
            room = budget - held_bytes
            take = batch.num_rows
            if batch.nbytes > room:
                take = max(1, batch.num_rows * room // max(batch.nbytes, 1))
            held.append(batch.slice(0, take))
            held_bytes += held[-1].nbytes
            batch = batch.slice(take)
            if held_bytes >= budget:
                yield flush()
    if held:
        yield flush()


def _write(
    job: WriteJob,
    table: Table,
    writer: TableWriter,
    batches: Iterable[pa.RecordBatch],
    counters: dict[tuple[bytes, int], int],
) -> dict[tuple[bytes, int], list[DataFileMeta]]:
    """Write one sorted run; `counters` (each bucket's next sequence number) is advanced."""
    schema = table.latest_schema
    parts = list(schema.partition_keys)
    group = [*parts, BUCKET]

    def typed() -> Iterator[pa.Table]:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            # cross-partition rows were checked before routing, which may move them elsewhere
            static = {} if job.cross is not None else job.static
            rows = conform(batch, schema, static)
            bucket = (
                batch.column(BUCKET)
                if BUCKET in batch.schema.names
                else pa.repeat(pa.scalar(0, pa.int32()), batch.num_rows)
            )
            rows = rows.append_column(BUCKET, pa.array(bucket, pa.int32()))
            if writer.pk:
                rows = rows.append_column(ORD, batch.column(ORD))
            if VALUE_KIND in batch.schema.names:  # cross-partition: a moved key's retraction
                rows = rows.append_column(VALUE_KIND, batch.column(VALUE_KIND))
            yield rows

    stream: Iterable[pa.Table] = typed()
    drop = [BUCKET]
    if writer.pk:
        options = CoreOptions(schema.options)
        engine = options.merge_engine
        keep_all = engine not in (MergeEngine.DEDUPLICATE, MergeEngine.FIRST_ROW) or bool(
            options.sequence_fields
        )
        stream = _generations(
            _split(stream, group), [*parts, *schema.trimmed_primary_keys], engine, keep_all
        )
        stream = _sequence(stream, parts, counters, [schema.field(p).type for p in parts])
        drop += [ORD, GEN]
    batches_out = (b for t in stream for b in t.to_batches())
    first = None
    stream_schema: pa.Schema | None = None
    iterator = iter(batches_out)
    for first in iterator:
        stream_schema = first.schema
        break
    if first is None or stream_schema is None:
        return {}

    def chained() -> Iterator[pa.RecordBatch]:
        yield first
        yield from iterator

    pieces = (
        piece
        for values, rows in cut_groups(chained(), stream_schema, group, writer.piece_budget())
        for piece in _by_generation(values[:-1], int(values[-1]), rows, drop, writer.pk)
    )
    # primary-key rows carry their numbers; append files number on from `counters` (advanced)
    files, _ = writer.write_pieces(pieces, 0, {} if writer.pk else counters)
    return files


def _split(tables: Iterable[pa.Table], columns: list[str]) -> Iterator[pa.Table]:
    """Cut each table at changes of `columns` (so every piece is one (partition, bucket))."""
    for rows in tables:
        for _, piece in cut_groups(rows.to_batches(), rows.schema, columns, 1 << 62):
            yield piece


def _by_generation(
    part: tuple[Any, ...], bucket: int, rows: pa.Table, drop: list[str], pk: bool
) -> Iterator[tuple[tuple[Any, ...], int, pa.Table]]:
    """One piece per generation (a file holds each key once); append rows as they are."""
    if not pk or pc.max(rows.column(GEN)).as_py() == 0:
        yield part, bucket, rows.drop_columns(drop)
        return
    gens = rows.column(GEN)
    for g in range(pc.max(gens).as_py() + 1):
        chosen = rows.filter(pc.equal(gens, g))
        if chosen.num_rows:
            yield part, bucket, chosen.drop_columns(drop)


def payloads_of(batches: Iterable[pa.RecordBatch]) -> list[bytes]:
    """Every pickled message in the batches `write_task` yields (one row per message)."""
    return [bytes(p) for b in batches for p in b.column(0).to_pylist()]


def messages_of(payloads: Iterable[bytes]) -> list[CommitMessage]:
    """The `CommitMessage`s of the pickled payloads tasks returned."""
    out = []
    for payload in payloads:
        message = pickle.loads(payload)  # written by this job's own tasks
        if type(message).__name__ != "CommitMessage":
            raise SpecViolationError(
                f"a Spark task returned {type(message).__name__}, not a CommitMessage"
            )
        out.append(message)
    return out
