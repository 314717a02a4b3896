"""The parts of the PySpark writer that need no JVM: the DataFrame check, the versions of a key in a
task's sorted stream, a task writing files and the driver committing them, error translation.

pyspark's type objects are plain Python (no JVM is started); the task functions run in this process
on Arrow batches, as a Spark executor would run them.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest

import paimon_sql
from paimon_sql.catalog import Catalog
from paimon_sql.errors import PaimonSqlError, SchemaError
from paimon_sql.format.options import MergeEngine
from paimon_sql.spark._task import (
    GEN,
    WriteJob,
    _generations,
    messages_of,
    payloads_of,
    route,
    write_task,
)
from paimon_sql.spark.writer import _clean, _commit, _translated
from paimon_sql.write.writer import BUCKET, ORD, TableWriter

if TYPE_CHECKING:
    from pathlib import Path

T = pytest.importorskip("pyspark.sql.types")


def _table_schema(tmp_path: Path, ddl: str):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(ddl)
    return session, Catalog(tmp_path / "wh").load_table("db.t")


def test_import_paimon_sql_does_not_import_pyspark():
    code = "import sys, paimon_sql, paimon_sql.spark; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ([("id", T.LongType()), ("v", T.StringType())], "column 'amount' .* is missing"),
        (
            [
                ("id", T.IntegerType()),
                ("v", T.StringType()),
                ("amount", T.DecimalType(9, 2)),
                ("x", T.IntegerType()),
            ],
            "DataFrame column 'x' is not a column",
        ),
        (
            [("ID", T.LongType()), ("v", T.StringType()), ("amount", T.DecimalType(9, 2))],
            "did you mean 'id'",
        ),
        (
            [("id", T.DoubleType()), ("v", T.StringType()), ("amount", T.DecimalType(9, 2))],
            "column 'id': .*double",
        ),
        (
            [("id", T.LongType()), ("v", T.StringType()), ("amount", T.DecimalType(10, 3))],
            "column 'amount'",
        ),
        (
            [("id", T.LongType()), ("v", T.IntegerType()), ("amount", T.DecimalType(9, 2))],
            "column 'v'",
        ),
    ],
    ids=["missing", "extra", "case", "wrong", "lossy-scale", "int-into-string"],
)
def test_dataframe_check_names_the_column(tmp_path, fields, message):
    from paimon_sql.spark._schema import check_columns

    _, table = _table_schema(
        tmp_path, "CREATE TABLE db.t (id BIGINT, v STRING, amount DECIMAL(10, 2))"
    )
    spark_schema = T.StructType([T.StructField(n, t) for n, t in fields])
    with pytest.raises(SchemaError, match=message):
        check_columns(spark_schema, table.latest_schema, "db.t")


def test_dataframe_check_accepts_lossless_widening(tmp_path):
    from paimon_sql.spark._schema import check_columns

    ddl = (
        "CREATE TABLE db.t (id BIGINT, f DOUBLE, amount DECIMAL(10, 2), tags ARRAY<INT>, "
        "m MAP<STRING, BIGINT>, ts TIMESTAMP(6), lz TIMESTAMP_LTZ(6), dt STRING) "
        "PARTITIONED BY (dt)"
    )
    _, table = _table_schema(tmp_path, ddl)
    spark_schema = T.StructType(
        [
            T.StructField("id", T.ShortType()),
            T.StructField("f", T.FloatType()),
            T.StructField("amount", T.DecimalType(5, 1)),
            T.StructField("tags", T.ArrayType(T.ByteType())),
            T.StructField("m", T.MapType(T.StringType(), T.IntegerType())),
            T.StructField("ts", T.TimestampNTZType()),
            T.StructField("lz", T.TimestampType()),
        ]
    )
    check_columns(spark_schema, table.latest_schema, "db.t", fixed={"dt"})  # dt fixed by partition=
    with pytest.raises(SchemaError, match="column 'dt'"):
        check_columns(spark_schema, table.latest_schema, "db.t")


def _stream(keys: list[list[int]]) -> list[pa.Table]:
    return [pa.table({"k": pa.array(batch, pa.int64())}) for batch in keys]


@pytest.mark.parametrize(
    ("engine", "keep_all", "expected"),
    [
        # key 2 straddles the two batches; key 3 arrives three times
        (
            MergeEngine.DEDUPLICATE,
            True,
            [[(1, 0), (2, 0), (2, 1)], [(2, 2), (3, 0), (3, 1), (3, 2)]],
        ),
        (MergeEngine.DEDUPLICATE, False, [[(1, 0), (2, 0)], [(2, 1), (3, 0)]]),
        (MergeEngine.FIRST_ROW, False, [[(1, 0), (2, 0)], [(3, 0)]]),
    ],
)
def test_versions_of_a_key_across_batches(engine, keep_all, expected):
    out = list(_generations(_stream([[1, 2, 2], [2, 3, 3, 3]]), ["k"], engine, keep_all))
    got = [
        list(zip(t.column("k").to_pylist(), t.column(GEN).to_pylist(), strict=True)) for t in out
    ]
    assert got == expected


def test_task_writes_files_and_the_driver_commits_one_snapshot(tmp_path):
    session, table = _table_schema(
        tmp_path,
        "CREATE TABLE db.t (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2')",
    )
    session.sql("INSERT INTO db.t VALUES (1, 'old'), (2, 'old')")
    writer = TableWriter(None, table)
    job = WriteJob(
        warehouse=str(tmp_path / "wh"),
        table="db.t",
        schema_id=0,
        job_id="job-1",
        starts=writer.next_sequence(),
    )
    ids = [1, 3, 1, 4]  # id 1 twice: its later arrival wins
    batch = pa.RecordBatch.from_arrays(
        [pa.array(ids, pa.int64()), pa.array(["a", "b", "c", "d"]), pa.array(range(4), pa.int64())],
        names=["id", "v", ORD],
    )
    (routed,) = route(job, [batch])
    rows = pa.Table.from_batches([routed]).sort_by(
        [(BUCKET, "ascending"), ("id", "ascending"), (ORD, "ascending")]
    )
    per_bucket = [
        rows.filter(pa.compute.equal(rows.column(BUCKET), b)).to_batches() for b in (0, 1)
    ]
    # one task per bucket (Spark's task attempt ids are unique in the application, like file names
    # in a table)
    payloads = [
        p
        for i, batches in enumerate(per_bucket)
        for p in payloads_of(write_task(job, batches, 7 + i))
    ]
    messages = messages_of(payloads)
    loser = messages_of(payloads_of(write_task(job, per_bucket[0], 9)))
    assert all(
        f.file_name.startswith(("data-job-1-7-", "data-job-1-8-"))
        for m in messages
        for f in m.new_files
    )
    for m in messages:  # sequence numbers continue each bucket's
        assert min(f.min_sequence_number for f in m.new_files) == job.starts.get(
            (m.partition, m.bucket), 0
        )
    snapshot = _commit(table, job, messages, None)
    _clean(table, job, keep={f.file_name for m in messages for f in m.new_files})
    assert snapshot is not None
    assert snapshot.id == 2
    assert sorted(paimon_sql.connect(tmp_path / "wh").sql("SELECT * FROM db.t").fetchall()) == [
        (1, "c"),
        (2, "old"),
        (3, "b"),
        (4, "d"),
    ]
    left = {p.name for p in (tmp_path / "wh" / "db.db" / "t").rglob("data-job-1-*")}
    assert left == {f.file_name for m in messages for f in m.new_files}
    assert not left & {f.file_name for m in loser for f in m.new_files}


def test_errors_raised_in_tasks_come_back_typed():
    text = (
        "An exception was thrown from the Python worker.\nTraceback (most recent call last):\n"
        "paimon_sql.errors.SchemaError: column 'id' is NOT NULL but holds 2 nulls\n"
    )
    err = _translated(RuntimeError(text), "db.t")
    assert isinstance(err, SchemaError)
    assert "column 'id' is NOT NULL" in str(err)
    other = _translated(RuntimeError("Job aborted\nValueError: boom\n\tat org.apache.Foo"), "db.t")
    assert type(other) is PaimonSqlError
    assert "ValueError: boom" in str(other)
