"""``format("paimon")``: the writer as a Spark 4 Python Data Source (``DataSourceArrowWriter``).

After `paimon_sql.spark.register(spark)`::

    df.write.format("paimon").option("warehouse", wh).mode("append").save("db.orders")

`PaimonDataSource.writer` runs where Spark plans the write: it checks the DataFrame's schema against
the table and plans the job (`_task.WriteJob`). Each task's `_ArrowWriter.write` computes the
buckets of its rows and buffers them up to the table's ``write-buffer-size``; each full buffer is
sorted by (partition, bucket, key, arrival) and written as level-0 files (`_task.sorted_runs`,
`_task.write_runs`), as Java's write buffer flushes sorted runs. `commit` (on the driver) commits
one snapshot with `Committer`, deletes the files of attempts Spark did not keep, and compacts
deletion-vector / first-row tables; `abort` deletes every file of the job.

Unlike `paimon_sql.spark.write`, Spark hands each task the DataFrame's own partitions (a Python data
source cannot ask for a distribution), so several tasks may write one bucket: repartition by the
primary key first when a key may occur in several input partitions. A task holds one buffer of rows
and its sorted copy at a time (a few times ``write-buffer-size``, whatever its input size).
Dynamic-bucket tables (the assignment needs a job of its own) and ``partition=`` are only supported
by `paimon_sql.spark.write`. Overwrite replaces the whole table, or the written partitions with
``.option("partitionOverwriteMode", "dynamic")``.

Requires PySpark >= 4.0 with ``pyspark.sql.datasource.DataSourceArrowWriter`` (``AVAILABLE``);
without it the module still imports, and `register` refuses.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import PaimonSqlError, UnsupportedFeatureError
from paimon_sql.spark._schema import check_columns, check_options
from paimon_sql.spark._task import WriteJob, messages_of, payloads_of, sorted_runs, write_runs
from paimon_sql.write.writer import TableWriter

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pyarrow as pa

try:
    from pyspark.sql.datasource import DataSource, DataSourceArrowWriter, WriterCommitMessage

    AVAILABLE = True
except ImportError:  # no pyspark, or < 4.0: `register` refuses; the module still imports (doctests)
    DataSource = DataSourceArrowWriter = WriterCommitMessage = object  # type: ignore[misc,assignment]
    AVAILABLE = False


@dataclass
class _Message(WriterCommitMessage):
    """What one task attempt wrote: pickled `CommitMessage`s."""

    payloads: list[bytes] = field(default_factory=list)


class PaimonDataSource(DataSource):
    """``format("paimon")``: options ``warehouse`` (required) and ``partitionOverwriteMode``."""

    @classmethod
    def name(cls) -> str:
        """The format name."""
        return "paimon"

    def writer(self, schema: Any, overwrite: bool) -> _ArrowWriter:
        """Plan a write of rows of `schema` (checked against the table now, before any task)."""
        from paimon_sql.catalog import Catalog
        from paimon_sql.compact.after_write import check_writable

        warehouse = self.options.get("warehouse")
        name = self.options.get("path")
        if not warehouse or not name:
            raise PaimonSqlError(
                'format("paimon") needs .option("warehouse", <folder>) and .save("db.table")'
            )
        table = Catalog(warehouse).load_table(name)
        check_writable(table)
        table_schema = table.latest_schema
        check_options(table_schema, table.name)
        if table_schema.bucket == -2 or (table_schema.bucket == -1 and table_schema.primary_keys):
            raise UnsupportedFeatureError(
                f"format('paimon') cannot write {table.name} (bucket={table_schema.bucket}: the "
                "buckets are "
                "assigned by a job of their own); use paimon_sql.spark.write(df, ...)"
            )
        check_columns(schema, table_schema, table.name)
        job = WriteJob(
            warehouse=str(warehouse),
            table=table.name,
            schema_id=table_schema.id,
            job_id=str(uuid.uuid4()),
            starts=TableWriter(None, table).next_sequence(),
        )
        mode = (self.options.get("partitionOverwriteMode") or "static").lower()
        return _ArrowWriter(job, overwrite, mode == "dynamic")


class _ArrowWriter(DataSourceArrowWriter):
    def __init__(self, job: WriteJob, overwrite: bool, dynamic: bool) -> None:
        self.job = job
        self.overwrite = overwrite
        self.dynamic = dynamic

    def write(self, iterator: Iterator[pa.RecordBatch]) -> _Message:
        """One task: bucket and sort its rows in runs of ``write-buffer-size``; write each run.

        As Java's write buffer: when the buffered rows reach ``write-buffer-size`` (Arrow bytes),
        they are sorted and written as level-0 files, and the buffer starts again; the reader
        merges the runs. The commit messages of every run's files are returned.
        """
        table = self.job.load()
        budget = TableWriter(None, table).buffer_size
        runs = sorted_runs(self.job, iterator, budget)
        attempt = uuid.uuid4().int >> 80  # unique per attempt, whatever Spark's ids
        return _Message(payloads=payloads_of(write_runs(self.job, runs, attempt)))

    def commit(self, messages: list[_Message | None]) -> None:
        """One snapshot of every task's files (on the driver)."""
        from paimon_sql.spark.writer import finish

        payloads = [p for m in messages if m is not None for p in m.payloads]
        overwrite_mode = "overwrite" if self.overwrite else "append"
        finish(self.job, messages_of(payloads), overwrite_mode, dynamic_overwrite=self.dynamic)

    def abort(self, messages: list[_Message | None]) -> None:
        """Delete every file of the job (on the driver)."""
        from paimon_sql.spark.writer import _clean

        _clean(self.job.load(), self.job, keep=set())
