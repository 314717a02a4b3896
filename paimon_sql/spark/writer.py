"""`write`: a PySpark DataFrame into a Paimon table.

Executors write the files, the driver commits once.

The plan (PySpark 3.5 and 4.x, no Paimon jar):

1. Driver: load the table, refuse what cannot be written
   (`paimon_sql.compact.after_write.check_writable`, postpone buckets) and a DataFrame that does
   not fit (`_schema.check_columns`), read every bucket's next sequence number, and (dynamic
   buckets) assign the buckets of every key on the driver (Java's HashBucketAssigner over the
   distinct key hashes a first Spark job collects) and write the new HASH index files; for
   cross-partition keys plan every (key, partition) group on the driver (`_cross`).
2. Executors: ``mapInArrow`` adds each row's bucket (Java's murmur hash of the bucket key, the same
   DuckDB expression the SQL writer uses); the rows are repartitioned by (partition, bucket) and
   sorted by key within each task; a second ``mapInArrow`` writes level-0 files (`_task.write_task`)
   and returns pickled `CommitMessage`s. Append tables without buckets skip the shuffle: every task
   writes files of bucket 0 of the partitions it sees (as Java's Spark writer does).
3. Driver: one snapshot through `Committer` (Java's conflict checks and retries), APPEND or
   OVERWRITE; the files of attempts Spark did not keep (failed, speculative losers) are deleted; a
   failed job deletes every file it wrote and raises, with no snapshot. Files are deleted only once
   no task of the write runs any more (`_Jobs.settle`): a task still running when Spark gives up
   on the job would otherwise add its file after the clean-up. Deletion-vector and
   first-row tables are then compacted as the SQL writer does after a write (`compact_after_write`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql import errors
from paimon_sql.catalog import Catalog
from paimon_sql.catalog import names as catalog_names
from paimon_sql.commit.publish import Committer, new_commit_user
from paimon_sql.compact.after_write import check_writable, compact_after_write
from paimon_sql.errors import PaimonSqlError, SchemaError, UnsupportedFeatureError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.spark._schema import check_columns, check_options, spark_ddl
from paimon_sql.spark._task import (
    HASH,
    MESSAGE,
    WriteJob,
    conform,
    exp_column,
    messages_of,
    python_values,
    route,
    write_task,
)
from paimon_sql.types import fit_length
from paimon_sql.write.global_index import is_cross_partition
from paimon_sql.write.writer import BUCKET, ORD, TableWriter

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pyspark.sql import DataFrame

    from paimon_sql.catalog import Table
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.format.manifest import ManifestEntry
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot

Task = Callable[[WriteJob, Iterable[pa.RecordBatch], int], Iterator[pa.RecordBatch]]
_METADATA_DIRS = {
    "schema",
    "snapshot",
    "manifest",
    "index",
    "tag",
    "branch",
    "changelog",
    "consumer",
    "statistics",
    "service",
}
_LOG = logging.getLogger(__name__)
_ERROR_LINE = re.compile(r"paimon_sql\.errors\.(\w+): (.+)")
_PYTHON_ERROR = re.compile(r"^((?:\w+\.)*\w+(?:Error|Exception): .+)$", re.MULTILINE)


def write(
    df: DataFrame,
    table: str,
    *,
    warehouse: str,
    mode: str = "append",
    partition: Mapping[str, Any] | None = None,
) -> Snapshot | None:
    """Write the rows of `df` into the existing Paimon table `table` (``db.name``) of `warehouse`.

    Args:
        df: a PySpark DataFrame whose columns are the table's (by name; partition columns fixed by
            `partition` may be left out). Checked on the driver before any task runs.
        table: the table identifier.
        warehouse: the warehouse folder (local path or ``file:`` URI) every executor can reach.
        mode: ``"append"`` or ``"overwrite"``: without `partition` the whole table, or only the
            partitions the rows hold when ``spark.sql.sources.partitionOverwriteMode`` is
            ``dynamic``.
        partition: partition column -> value: the write goes to that partition (overwrite replaces
            only it); the DataFrame's rows must hold those values when it carries the columns.

    Returns:
        The snapshot of the write (APPEND or OVERWRITE), or None when nothing changed. A table whose
        readers hide level-0 files (deletion vectors, first-row) gets a COMPACT snapshot after it,
        which is returned instead. Retried and speculative task attempts never add rows twice: only
        the messages of the attempts Spark keeps are committed, and the other attempts' files are
        deleted.

    Raises:
        SchemaError: the DataFrame does not fit the table (names the column), or a row breaks it.
        PaimonSqlError: the job failed; no snapshot was made and its files were deleted.

    Example (needs a SparkSession; see examples/spark_pipeline.py)::

        from paimon_sql.spark import write
        write(df, "db.orders", warehouse="/lake/wh", mode="overwrite",
              partition={"dt": "2024-05-14"})
    """
    return run(df, table, warehouse=warehouse, mode=mode, partition=partition)


def run(
    df: DataFrame,
    name: str,
    *,
    warehouse: str,
    mode: str = "append",
    partition: Mapping[str, Any] | None = None,
    task: Task = write_task,
    dynamic_overwrite: bool | None = None,
) -> Snapshot | None:
    """`write` with its seams.

    `task` is what each Spark task runs (`_task.write_task` or a wrapper of it);
    `dynamic_overwrite` overrides Spark's ``partitionOverwriteMode``.
    """
    if mode not in ("append", "overwrite"):
        raise ValueError(f"mode must be 'append' or 'overwrite', not {mode!r}")
    warehouse = str(warehouse)
    table = Catalog(warehouse).load_table(name)
    check_writable(table)
    schema = table.latest_schema
    check_options(schema, table.name)
    static = _static_partition(schema, partition or {}, table.name)
    check_columns(df.schema, schema, table.name, static)
    # the driver's: sequence numbers, dynamic bucket index files (an overwrite's from scratch)
    writer = TableWriter(None, table, overwrite=mode == "overwrite")
    if schema.bucket == -2:
        raise UnsupportedFeatureError(
            f"writing postpone-bucket tables (bucket=-2) such as {table.name}"
        )
    job = WriteJob(
        warehouse=warehouse,
        table=table.name,
        schema_id=schema.id,
        job_id=str(uuid.uuid4()),
        starts=writer.next_sequence(),
        static=static,
    )
    if dynamic_overwrite is None:
        setting = (
            df.sparkSession.conf.get("spark.sql.sources.partitionOverwriteMode", "static")
            or "static"
        )
        dynamic_overwrite = setting.lower() == "dynamic"
    frame = _padded(_with_static(df, schema, static), schema)
    jobs = _Jobs(df, job.job_id, table.name)
    try:
        with _arrow_batches(df), jobs:
            if writer.cross_partition:
                from pyspark.sql import functions as F

                from paimon_sql.spark import _cross

                frame = frame.withColumn(ORD, F.monotonically_increasing_id())
                cross, assigned_on = _cross.plan(frame, warehouse, table)
                job = replace(job, cross=cross, assigned_on=assigned_on)
            elif writer.dynamic:
                assignment = _assign(frame, job, writer)
                job = replace(job, assignment=assignment, assigned_on=writer.assigned_on)
            payloads = _run_tasks(_routed(frame, job, schema), job, task)
    except BaseException as err:
        jobs.settle(cancel=True)
        _clean(table, job, keep=set())
        writer.abort()
        translated = _translated(err, table.name)
        if translated is err:
            raise
        raise translated from err
    jobs.settle(cancel=False)  # speculative losers Spark is still killing
    messages = messages_of(payloads) + writer.commit_messages({})
    return finish(job, messages, mode, dynamic_overwrite=dynamic_overwrite, extra_files=writer)


def finish(
    job: WriteJob,
    messages: list[CommitMessage],
    mode: str,
    *,
    dynamic_overwrite: bool = False,
    extra_files: TableWriter | None = None,
) -> Snapshot | None:
    """The driver's side after the tasks.

    Commit `messages` as one snapshot, delete the files of the job's attempts it does not reference,
    compact deletion-vector / first-row tables. When the commit fails, every file of the job (and
    those `extra_files` wrote on the driver) is deleted and it raises.
    """
    table = job.load()
    schema = table.latest_schema
    try:
        snapshot = _commit(
            table, job, messages, _overwrite(schema, mode, job.static, dynamic_overwrite)
        )
    except BaseException:
        if not _committed(
            table, job
        ):  # a snapshot that exists keeps its files, whatever failed after it
            _clean(table, job, keep=set())
            if extra_files is not None:
                extra_files.abort()
        raise
    _clean(
        table, job, keep={f.file_name for m in messages for f in (*m.new_files, *m.changelog_files)}
    )
    if snapshot is not None:
        from paimon_sql.sql.session import connect

        session = connect(job.warehouse)
        target = session.table(table.name)
        compacted = compact_after_write(
            target,
            messages,
            snapshot,
            session.engine.bucket_reader(),
            refresh=lambda: session.changed(target),
        )
        snapshot = compacted or snapshot
    return snapshot


# --- planning -------------------------------------------------------------------------------------


class _Jobs:
    """The Spark jobs of one write, tagged with its job id, so that it can wait for their tasks.

    When a job fails, Spark raises on the driver while other tasks of it may still be running (and
    writing files); after success, speculative duplicates may still be running until Spark kills
    them. `settle` waits until none of the write's tasks is active, so the clean-up that follows
    sees every file. The jobs are found as the new ones in the caller's job group (jobs another
    thread starts in that group meanwhile are waited for too: harmless). It waits `WAIT_SECONDS` at
    most, then logs a warning naming the table and the job tag. With Spark Connect (no
    SparkContext) there is nothing to wait on and it does nothing.
    """

    WAIT_SECONDS = 120.0

    def __init__(self, df: DataFrame, tag: str, table: str) -> None:
        self.tag = tag
        self.table = table
        try:
            self.context: Any = df.sparkSession.sparkContext
        except NotImplementedError:  # Spark Connect sessions have no SparkContext
            self.context = None
        self.group: str | None = None
        self.before: set[int] = set()

    def __enter__(self) -> _Jobs:
        if self.context is not None:
            self.group = self.context.getLocalProperty("spark.jobGroup.id")
            self.before = set(self.context.statusTracker().getJobIdsForGroup(self.group))
            self.context.addJobTag(self.tag)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.context is not None:
            self.context.removeJobTag(self.tag)

    def settle(self, *, cancel: bool, wait_seconds: float | None = None) -> bool:
        """Cancel the write's jobs (`cancel`) and wait until none of their tasks is running.

        Gives up after `wait_seconds` (default `WAIT_SECONDS`) with a warning (logged) that the
        files of the tasks still running may remain; returns whether they all stopped.
        """
        if self.context is None:
            return True
        if cancel:
            self.context.cancelJobsWithTag(self.tag)
        tracker = self.context.statusTracker()
        wait = self.WAIT_SECONDS if wait_seconds is None else wait_seconds
        deadline = time.monotonic() + wait
        while True:
            jobs = set(tracker.getJobIdsForGroup(self.group)) - self.before
            infos = [tracker.getJobInfo(j) for j in jobs]
            stages = [tracker.getStageInfo(s) for i in infos if i is not None for s in i.stageIds]
            running = sum(s.numActiveTasks for s in stages if s is not None)
            if running == 0:
                return True
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        _LOG.warning(
            "writing %s: %d task(s) of the Spark jobs tagged %s still running after %.0f s; "
            "stopped waiting. Data files they write after this are not deleted; once they have "
            "stopped, CALL sys.remove_orphan_files(table => '%s', older_than => "
            "'<a later time>') deletes them",
            self.table,
            running,
            self.tag,
            wait,
            self.table,
        )
        return False


def _static_partition(
    schema: TableSchema, partition: Mapping[str, Any], table: str
) -> dict[str, Any]:
    """The fixed partition values.

    Typed as their columns (``"2024-05-14"`` for a DATE becomes a date).
    """
    out = {}
    for key, value in partition.items():
        if key not in schema.partition_keys:
            raise SchemaError(
                f"partition= names {key!r}, which is not a partition column of {table} "
                f"(partition columns: {', '.join(schema.partition_keys) or 'none'})"
            )
        from paimon_sql.write.data_file import arrow_field

        field = schema.field(key)
        target = arrow_field(key, field.type, field.id).type
        try:
            out[key] = fit_length(pa.array([value]).cast(target)[0].as_py(), field.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as err:
            raise SchemaError(
                f"partition value {key}={value!r} does not fit {field.type.root}: {err}"
            ) from err
        except ValueError as err:
            raise SchemaError(f"partition value {key}={value!r}: {err}") from err
    return out


def _with_static(df: DataFrame, schema: TableSchema, static: Mapping[str, Any]) -> DataFrame:
    """The DataFrame with the fixed partition columns it lacks, as literals."""
    from pyspark.sql import functions as F

    for key, value in static.items():
        if key not in df.columns:
            text = value if isinstance(value, (bytes, bool, int, float)) else str(value)
            df = df.withColumn(key, F.lit(text).cast(spark_ddl(schema.field(key).type)))
    return df


def _padded(df: DataFrame, schema: TableSchema) -> DataFrame:
    """The DataFrame with CHAR(n) values padded to n (as Java stores them) before any sort.

    Keys are sorted and compared padded, as Java's; values longer than n are left for the tasks
    to refuse (`_task.conform`, which pads too).
    """
    from pyspark.sql import functions as F

    for f in schema.fields:
        if f.type.root == "CHAR" and f.name in df.columns:
            n = f.type.length or 1
            c = _col(f.name)
            fits = F.length(F.rtrim(c)) <= F.lit(n)
            df = df.withColumn(f.name, F.when(fits, F.rpad(c, n, " ")).otherwise(c))
    return df


def _col(name: str) -> Any:
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _routed(df: DataFrame, job: WriteJob, schema: TableSchema) -> DataFrame:
    """Rows with their bucket, one task per (partition, bucket), sorted by key (and arrival)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType, LongType, StructField, StructType

    parts = list(schema.partition_keys)
    if not schema.primary_keys and schema.bucket == -1:  # unaware: any task writes any partition
        return df.sortWithinPartitions(*[_col(p) for p in parts]) if parts else df
    if schema.primary_keys and ORD not in df.columns:
        df = df.withColumn(ORD, F.monotonically_increasing_id())
    fields = [*df.schema.fields, StructField(BUCKET, IntegerType(), False)]
    router: Callable[..., Iterator[pa.RecordBatch]] = route
    if job.cross is not None:  # cross-partition keys: the driver's plan, and each row's kind
        from pyspark.sql.types import ByteType

        from paimon_sql.spark import _cross
        from paimon_sql.write.data_file import VALUE_KIND

        router = _cross.route
        fields.append(StructField(VALUE_KIND, ByteType(), False))
    routed = df.mapInArrow(functools.partial(router, job), StructType(fields))
    routed = routed.repartition(*[_col(p) for p in parts], _col(BUCKET))
    order = [*parts, BUCKET, *schema.trimmed_primary_keys]
    if schema.primary_keys:
        order.append(ORD)
        assert isinstance(df.schema[ORD].dataType, LongType)
    return routed.sortWithinPartitions(*[_col(c) for c in order])


#: Spark's default ``spark.sql.execution.arrow.maxRecordsPerBatch``, and what a write uses instead
_ARROW_BATCH_KEY = "spark.sql.execution.arrow.maxRecordsPerBatch"
_ARROW_BATCH_DEFAULT = "10000"
_ARROW_BATCH_BYTES = 8 << 20
_WIDTHS = {
    "boolean": 1,
    "tinyint": 1,
    "smallint": 2,
    "int": 4,
    "float": 4,
    "date": 4,
    "bigint": 8,
    "double": 8,
    "timestamp": 8,
    "timestamp_ntz": 8,
}


def batch_rows(simple_types: Iterable[str]) -> int:
    """Rows per Arrow batch for rows of these Spark types: about 8 MiB, 10000 to 131072 rows.

    Strings, binaries, decimals and nested values are guessed at 32 bytes.

    >>> batch_rows(["bigint", "int", "string"])
    131072
    >>> batch_rows(["string"] * 40)
    10000
    """
    width = sum(_WIDTHS.get(t, 32) for t in simple_types) or 1
    return max(10_000, min(131_072, _ARROW_BATCH_BYTES // width))


@contextlib.contextmanager
def _arrow_batches(df: DataFrame) -> Iterator[None]:
    """Arrow batches of about 8 MiB for the write's jobs, unless the session chose a size.

    Spark's default (10000 rows) costs a round trip per small batch between the JVM and the Python
    task; the setting is restored afterwards.
    """
    conf = df.sparkSession.conf
    if (conf.get(_ARROW_BATCH_KEY, _ARROW_BATCH_DEFAULT) or _ARROW_BATCH_DEFAULT) != (
        _ARROW_BATCH_DEFAULT
    ):
        yield
        return
    rows = batch_rows(f.dataType.simpleString() for f in df.schema.fields)
    conf.set(_ARROW_BATCH_KEY, str(rows))
    try:
        yield
    finally:
        conf.unset(_ARROW_BATCH_KEY)


def _spark_task(
    job: WriteJob, task: Task
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run_task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        context = TaskContext.get()
        attempt = context.taskAttemptId() if context is not None else 0
        yield from task(job, batches, attempt)

    return run_task


def _run_tasks(df: DataFrame, job: WriteJob, task: Task) -> list[bytes]:
    """Run the write tasks; the payloads of the attempts Spark kept (one per task)."""
    rows = df.mapInArrow(_spark_task(job, task), f"{MESSAGE} binary").collect()
    return [bytes(r[0]) for r in rows]


# --- dynamic buckets ------------------------------------------------------------------------------


def _key_hashes(job: WriteJob, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """(partition bytes, key hash) of each row: the input of the driver's bucket assignment.

    The task's batches stream through one DuckDB query, as in `route`.
    """
    from paimon_sql.format.binary_row import encode_row
    from paimon_sql.write.bucket import hash_expression, stream_values

    schema = job.load().latest_schema
    names = list(schema.trimmed_primary_keys)
    keys = [(exp_column(k), schema.field(k).type) for k in names]
    part_types = [schema.field(p).type for p in schema.partition_keys]
    python = python_values(schema, names, hashes=True)
    used = [*names, *schema.partition_keys]  # only the columns read on, as in `route`
    typed = (conform(batch, schema, job.static).select(used) for batch in batches)
    for rows, hashes in stream_values(hash_expression(keys), typed, lambda rows: rows, python):
        columns = [rows.column(p).to_pylist() for p in schema.partition_keys]
        parts = [encode_row(tuple(c[i] for c in columns), part_types) for i in range(rows.num_rows)]
        yield pa.RecordBatch.from_arrays(
            [pa.array(parts, pa.binary()), hashes], names=["part", HASH]
        )


def _assign(df: DataFrame, job: WriteJob, writer: TableWriter) -> dict[tuple[bytes, int], int]:
    """Java's HashBucketAssigner on the driver.

    The distinct (partition, key hash)s of the DataFrame are collected, each partition's are
    assigned buckets (known keys keep theirs) and the new HASH index files written by `writer`
    (committed with the write, deleted if it fails).
    """
    from paimon_sql.format.hash_index import encode_hashes
    from paimon_sql.write.dynamic_bucket import DynamicBucketOptions, assign_partitions

    pairs = df.mapInArrow(
        functools.partial(_key_hashes, job), f"part binary, {HASH} int"
    ).distinct()
    by_part: dict[bytes, list[int]] = {}
    for row in pairs.collect():
        by_part.setdefault(bytes(row[0]), []).append(row[1])
    options = DynamicBucketOptions.from_options(writer.schema.options)
    existing = writer.hash_index()
    out: dict[tuple[bytes, int], int] = {}
    for part, result in assign_partitions(by_part, existing, options):
        table = result.assignment
        written: dict[Any, list[Any]] = {}
        for h, b in zip(
            table.column("hash").to_pylist(), table.column("bucket").to_pylist(), strict=True
        ):
            out[(part, h)] = b
            written.setdefault(b, []).append(h)
        if writer.overwrite:
            # the partition is replaced with its index files (as Java's overwrite): the buckets
            # are assigned knowing the old keys, each new HASH file holds the keys written there
            for bucket, hashes in written.items():
                writer.write_index(part, bucket, encode_hashes(hashes))
            continue
        for bucket, blob in result.index_files.items():
            writer.write_index(part, bucket, blob)
    return out


# --- committing -----------------------------------------------------------------------------------


def _overwrite(
    schema: TableSchema, mode: str, static: Mapping[str, Any], dynamic: bool
) -> Callable[[list[CommitMessage]], Callable[[ManifestEntry], bool]] | None:
    """Which live files the write replaces, given its messages (None: an append)."""
    if mode != "overwrite":
        return None
    parts = list(schema.partition_keys)
    part_types = [schema.field(p).type for p in parts]
    if static:

        def in_partition(messages: list[CommitMessage]) -> Callable[[ManifestEntry], bool]:
            # cross-partition keys: the retractions' partitions too, as Java's commit (and the SQL
            # writer) replace every partition the write adds files to
            retracted = (
                {m.partition for m in messages if m.new_files}
                if is_cross_partition(schema)
                else set()
            )

            def replaced(e: ManifestEntry) -> bool:
                if e.partition in retracted:
                    return True
                values = dict(zip(parts, decode_row(e.partition, part_types), strict=True))
                return all(values[k] == v for k, v in static.items())

            return replaced

        return in_partition
    if dynamic and parts:

        def written(messages: list[CommitMessage]) -> Callable[[ManifestEntry], bool]:
            touched = {m.partition for m in messages if m.new_files}
            return lambda e: e.partition in touched

        return written
    return lambda _messages: lambda _e: True


def _commit(
    table: Table,
    job: WriteJob,
    messages: list[CommitMessage],
    overwrite: Callable[[list[CommitMessage]], Callable[[ManifestEntry], bool]] | None,
) -> Snapshot | None:
    """One snapshot of all the tasks' messages (Java's conflict checks and retry)."""
    committer = Committer(table, commit_user=_commit_user(table, job))
    replaced = overwrite(messages) if overwrite is not None else None
    return committer.commit(
        messages, kind=CommitKind.APPEND, overwrite=replaced, assigned_on=job.assigned_on
    )


def _committed(table: Table, job: WriteJob) -> bool:
    """Whether the latest snapshot is this job's (its commit user is the job id)."""
    latest = table.latest_snapshot()
    return latest is not None and latest.commit_user == _commit_user(table, job)


def _commit_user(table: Table, job: WriteJob) -> str:
    """The job id, after the table's ``commit.user-prefix`` (`new_commit_user`)."""
    return new_commit_user(table.latest_schema.options, job.job_id)


def _clean(table: Table, job: WriteJob, keep: set[str]) -> None:
    """Delete the data files of this job's task attempts that are not in `keep`.

    Those are failed attempts, speculative losers, or everything when the job failed. Walks the
    table's partition/bucket folders.
    """
    fileio = table.fileio

    def walk(path: str, depth: int) -> None:
        for name in fileio.list_names(path):
            child = fileio.join(path, name)
            if depth == 0 and name in _METADATA_DIRS:
                continue
            if ("=" in name or name.startswith("bucket-")) and fileio.is_dir(child):
                walk(child, depth + 1)
            elif job.job_id in name and name not in keep:
                fileio.delete(child)

    # data files live under 'data-file.path-directory' when it is set (`TableWriter._bucket_dir`)
    directory = catalog_names.path_directory(table.latest_schema.options)
    walk(table.sub(directory) if directory else table.path, 0)


def _translated(err: BaseException, table: str) -> BaseException:
    """A paimon_sql error raised in a task comes back from Spark as text: rebuild it.

    Other Spark failures become a `PaimonSqlError` saying nothing was committed.
    """
    if isinstance(err, (PaimonSqlError, ValueError, KeyboardInterrupt)) or not isinstance(
        err, Exception
    ):
        return err
    text = str(err)
    found = _ERROR_LINE.findall(text)
    if found:
        kind, message = found[-1]
        cls = getattr(errors, kind, PaimonSqlError)
        if isinstance(cls, type) and issubclass(cls, PaimonSqlError):
            return cls(
                f"{message.strip()} (raised in a Spark task; nothing was committed to {table})"
            )
    causes = [
        c for c in _PYTHON_ERROR.findall(text) if not c.startswith(("org.", "java.", "py4j."))
    ]
    first = causes[-1] if causes else next((ln for ln in text.splitlines() if ln.strip()), "")
    return PaimonSqlError(
        f"the Spark job writing {table} failed ({first.strip()[:500]}); "
        "no snapshot was made and the files it wrote were deleted"
    )
