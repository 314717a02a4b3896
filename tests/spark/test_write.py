"""`paimon_sql.spark.write` on PySpark 3.5 without the Paimon jar; paimon-sql and Apache Paimon 0.9
read it.

One SparkSession for the module (``local[2,2]``: two cores, a failed task is tried twice), started
without the Paimon jar (checked). Every table kind is written as an initial load, an upsert and/or
an overwrite (whole table, static partition, dynamic partition); after each write paimon-sql reads
the table and the snapshot is recorded, and at the end Apache Paimon 0.9 (Java, through Spark with
its jar, in its own process: `tests.spark._oracle`) and Apache Paimon 1.3.1 (through Flink 1.20:
`tests.interop.flink.harness`, one worker) read every recorded snapshot, and Paimon 1.3 lists each
table's snapshots (kinds and count). The expected rows are computed here from the input rows with
plain Python (dicts per key, the merge engine's rule), never by paimon-sql.

If this process already runs a JVM (other interop modules started Spark with the Paimon jar), the
module runs in a child pytest process instead and its tests here report that.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import random
import subprocess
import sys
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.catalog import Catalog
from paimon_sql.commit.plan import fold
from paimon_sql.errors import PaimonSqlError, SchemaError, UnsupportedFeatureError
from paimon_sql.spark import write
from paimon_sql.spark._task import WriteJob, route, write_task
from paimon_sql.spark.writer import _clean, _commit, run
from paimon_sql.write.writer import BUCKET, ORD, TableWriter
from tests.interop.flink.harness import arrow_rows, assert_same_rows
from tests.interop.harness import canonical_rows

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

pytestmark = [pytest.mark.interop, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
_CHILD = "PAIMON_SQL_SPARK_WRITE_CHILD"
SPARK_SCHEMA = (
    "id bigint, dt string, v string, n int, amount decimal(8,2), day date, ts timestamp_ntz"
)
COLUMNS = ["id", "dt", "v", "n", "amount", "day", "ts"]
TABLE_COLUMNS = (
    "id BIGINT NOT NULL, dt STRING NOT NULL, v STRING, n BIGINT, amount DECIMAL(10, 2), day DATE, "
    "ts TIMESTAMP(6)"
)
PK_KINDS = {
    # name -> (WITH options, partitioned, merge rule)
    "pk_dedup": ("'bucket' = '2'", True, "last"),
    "pk_partial": ("'bucket' = '2', 'merge-engine' = 'partial-update'", False, "partial"),
    "pk_agg": (
        "'bucket' = '2', 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum'",
        False,
        "sum",
    ),
    "pk_first": ("'bucket' = '2', 'merge-engine' = 'first-row'", True, "first"),
    "pk_dv": ("'bucket' = '2', 'deletion-vectors.enabled' = 'true'", True, "last"),
    "pk_dynamic": ("'bucket' = '-1', 'dynamic-bucket.target-row-num' = '40'", True, "last"),
}
#: how each primary-key kind is overwritten after its load and upsert
OVERWRITES = {
    "pk_dedup": "static",
    "pk_partial": "whole",
    "pk_agg": "whole",
    "pk_first": "dynamic",
    "pk_dv": "static",
    "pk_dynamic": "dynamic",
}
ARROW_TYPES: dict[str, pa.DataType] = {
    "id": pa.int64(),
    "dt": pa.string(),
    "v": pa.string(),
    "n": pa.int64(),
    "amount": pa.decimal128(10, 2),
    "day": pa.date32(),
    "ts": pa.timestamp("us"),
}


# --- the Spark session (no Paimon jar) ------------------------------------------------------------


def _run_in_child() -> None:
    env = {**os.environ, _CHILD: "1", "PYTHONPATH": str(ROOT)}
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        str(Path(__file__)),
        "-m",
        "interop",
    ]
    proc = subprocess.run(
        cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=1200
    )
    assert proc.returncode == 0, (
        f"the Spark writer tests failed in their own process:\n{proc.stdout[-8000:]}"
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "?"
    assert "passed" in summary, proc.stdout[-8000:]
    assert "skipped" not in summary, proc.stdout[-8000:]
    pytest.skip(
        f"ran in a child process, which has no JVM with the Paimon jar: {summary} (a JVM is "
        "started once per process, and the interop tests' Spark needs the jar in it)"
    )


@pytest.fixture(scope="module")
def spark():
    if not os.environ.get(_CHILD):
        # Never in the test process: PySpark starts one JVM per process, with the jars of the
        # first session. A JVM without the Paimon jar here would fail the interop tests that
        # run after this file in the same process (under pytest-xdist, in any order).
        _run_in_child()
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
    )
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.task.maxFailures": "2",
        "spark.sql.adaptive.enabled": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.extraJavaOptions": "-XX:+UseSerialGC -Duser.timezone=UTC",
    }
    builder = SparkSession.builder.master("local[2,2]").appName("paimon-sql-spark-writer")
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    loader = session._jvm.java.lang.Thread.currentThread().getContextClassLoader()
    with pytest.raises(Exception, match="ClassNotFoundException"):
        session._jvm.java.lang.Class.forName("org.apache.paimon.spark.SparkCatalog", False, loader)
    yield session
    session.stop()


# --- inputs and expected rows ---------------------------------------------------------------------


def _rows(
    rng: random.Random, ids: Iterable[int], dts: tuple[str, ...], tag: str, nulls: bool = False
) -> list[tuple]:
    out = []
    for i in ids:
        v = None if nulls and rng.random() < 0.3 else f"{tag}-{i}-é{rng.randint(0, 9)}"
        n = None if nulls and rng.random() < 0.2 else rng.randint(-1000, 1000)
        amount = Decimal(rng.randint(-999999, 999999)).scaleb(-2)
        day = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 400))
        ts = dt.datetime(2024, 5, 1, 12, 0) + dt.timedelta(microseconds=rng.randint(0, 10**12))
        out.append((i, dts[i % len(dts)], v, n, amount, day, ts))
    return out


def _merge(old: tuple | None, new: tuple, rule: str) -> tuple:
    """The row a key holds after `new` arrives on `old` under the merge engine's rule."""
    if old is None or rule == "last":
        return new
    if rule == "first":
        return old
    merged = [n if n is not None else o for o, n in zip(old, new, strict=True)]
    if rule == "sum":
        n_at = COLUMNS.index("n")
        parts = [x for x in (old[n_at], new[n_at]) if x is not None]
        merged[n_at] = sum(parts) if parts else None
    return tuple(merged)


def _apply(state: dict[tuple, tuple], rows: Iterable[tuple], rule: str) -> None:
    for row in rows:
        key = (row[0], row[1])
        state[key] = _merge(state.get(key), row, rule)


def _dicts(rows: Iterable[tuple]) -> list[dict[str, Any]]:
    return [dict(zip(COLUMNS, r, strict=True)) for r in rows]


# --- the lake: writes, reads, snapshots -----------------------------------------------------------


class Lake:
    """The module's warehouse: each write is read back by paimon-sql and recorded for the oracle."""

    def __init__(self, warehouse: Path, spark) -> None:
        self.warehouse = warehouse
        self.spark = spark
        self.session = paimon_sql.connect(warehouse, create=True)
        self.session.sql("CREATE DATABASE db")
        #: (table, snapshot id) -> expected rows, for Apache Paimon's read at the end.
        self.checks: dict[str, list[dict[str, Any]]] = {}
        #: table -> its snapshots' commit kinds, for Apache Paimon 1.3's listing at the end.
        self.expected_kinds: dict[str, list[str]] = {}

    def create(self, name: str, options: str, partitioned: bool, pk: bool = True) -> None:
        key = ", PRIMARY KEY (id, dt) NOT ENFORCED" if pk else ""
        part = " PARTITIONED BY (dt)" if partitioned else ""
        self.session.sql(f"CREATE TABLE db.{name} ({TABLE_COLUMNS}{key}){part} WITH ({options})")

    def write(self, name: str, rows: list[tuple], expected: list[dict[str, Any]], **kwargs: Any):
        df = self.spark.createDataFrame(rows, SPARK_SCHEMA, verifySchema=False)
        if "partition" in kwargs and "drop" in kwargs:
            df = df.drop(kwargs.pop("drop"))
        snapshot = write(df, f"db.{name}", warehouse=str(self.warehouse), **kwargs)
        assert snapshot is not None
        self.assert_reads(name, expected)
        self.checks[f"db.{name}@{snapshot.id}"] = expected
        return snapshot

    def assert_reads(self, name: str, expected: list[dict[str, Any]]) -> None:
        session = paimon_sql.connect(self.warehouse)
        rel = session.sql(f"SELECT * FROM db.{name}")  # noqa: S608 - test SQL, our names
        got = [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]
        assert canonical_rows(got) == canonical_rows(expected), (
            f"paimon-sql reads db.{name} differently"
        )

    def kinds(self, name: str) -> list[str]:
        table = Catalog(self.warehouse).load_table(f"db.{name}")
        return [table.snapshot(i).commit_kind.value for i in table.snapshot_ids()]

    def expect_kinds(self, name: str, kinds: list[str]) -> None:
        """The table's snapshots are `kinds` (checked now, and by Paimon 1.3 at the end)."""
        assert self.kinds(name) == kinds
        self.expected_kinds[name] = kinds


@pytest.fixture(scope="module")
def lake(spark, tmp_path_factory) -> Lake:
    return Lake(tmp_path_factory.mktemp("spark-write") / "warehouse", spark)


def _files_on_disk(table_path: Path) -> set[str]:
    return {
        p.name
        for p in table_path.rglob("*")
        if p.is_file() and p.parent.name.startswith("bucket-") and p.name.startswith("data-")
    }


def _live_files(warehouse: Path, name: str) -> set[str]:
    table = Catalog(warehouse).load_table(name)
    latest = table.latest_snapshot()
    if latest is None:
        return set()
    entries = fold(e for m in table.data_manifests(latest) for e in table.manifest(m.file_name))
    return {e.file.file_name for e in entries.values()}


# --- table kinds ----------------------------------------------------------------------------------


def test_append_unaware_load_append_static_overwrite(lake):
    rng = random.Random(1)
    lake.create("append_p", "'bucket' = '-1'", partitioned=True, pk=False)
    load = _rows(rng, range(300), ("d0", "d1", "d2"), "load")
    lake.write("append_p", load, _dicts(load))
    more = _rows(rng, range(250, 350), ("d0", "d1", "d2"), "more", nulls=True)
    lake.write("append_p", more, _dicts(load + more))
    d1 = _rows(rng, range(1000, 1090), ("d1",), "over")
    kept = [r for r in load + more if r[1] != "d1"]
    snapshot = lake.write(
        "append_p", d1, _dicts(kept + d1), mode="overwrite", partition={"dt": "d1"}, drop="dt"
    )
    assert snapshot.commit_kind.value == "OVERWRITE"
    lake.expect_kinds("append_p", ["APPEND", "APPEND", "OVERWRITE"])


def test_append_fixed_bucket_load_and_overwrite(lake):
    rng = random.Random(2)
    lake.create(
        "append_b",
        "'bucket' = '3', 'bucket-key' = 'id', 'file.format' = 'orc'",
        partitioned=False,
        pk=False,
    )
    load = _rows(rng, range(200), ("a", "b"), "load")
    lake.write("append_b", load, _dicts(load))
    table = Catalog(lake.warehouse).load_table("db.append_b")
    buckets = {
        e.bucket
        for e in fold(
            e
            for m in table.data_manifests(table.latest_snapshot())
            for e in table.manifest(m.file_name)
        ).values()
    }
    assert buckets == {0, 1, 2}
    over = _rows(rng, range(500, 560), ("c",), "over")
    lake.write("append_b", over, _dicts(over), mode="overwrite")
    lake.expect_kinds("append_b", ["APPEND", "OVERWRITE"])


@pytest.mark.parametrize("name", list(PK_KINDS))
def test_primary_key_load_upsert_and_overwrite(lake, name):
    options, partitioned, rule = PK_KINDS[name]
    rng = random.Random(name)
    lake.create(name, options, partitioned)
    dts = ("d0", "d1", "d2") if partitioned else ("p",)
    nulls = rule in ("partial", "sum")
    state: dict[tuple, tuple] = {}
    load = _rows(rng, range(200), dts, "load", nulls=nulls)
    _apply(state, load, rule)
    lake.write(name, load, _dicts(state.values()))
    # the upsert overlaps half the keys; some keys arrive twice in it (the later arrival is newer)
    upsert = _rows(rng, range(100, 300), dts, "up", nulls=nulls)
    upsert += _rows(rng, range(280, 300), dts, "again", nulls=nulls)
    _apply(state, upsert, rule)
    lake.write(name, upsert, _dicts(state.values()))
    # the overwrite: keys old and new, some twice in the write (merged among themselves only)
    how = OVERWRITES[name]
    over_dts = {"whole": dts, "static": ("d1",), "dynamic": ("d0", "d2")}[how]
    over = _rows(rng, range(250, 330), over_dts, "over", nulls=nulls)
    over += _rows(rng, range(300, 330), over_dts, "over-again", nulls=nulls)
    replaced = set(over_dts)
    state = {k: v for k, v in state.items() if k[1] not in replaced}
    _apply(state, over, rule)
    kwargs: dict[str, Any] = {"mode": "overwrite"}
    if how == "static":
        kwargs.update(partition={"dt": "d1"})
        if name == "pk_dedup":
            kwargs.update(drop="dt")  # the partition column may be left out
    if how == "dynamic":
        lake.spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        snapshot = lake.write(name, over, _dicts(state.values()), **kwargs)
    finally:
        lake.spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    compacts = name in ("pk_first", "pk_dv")
    assert snapshot.commit_kind.value == ("COMPACT" if compacts else "OVERWRITE")
    tail = ["COMPACT"] if compacts else []
    lake.expect_kinds(name, (["APPEND", *tail] * 2) + ["OVERWRITE", *tail])
    if name == "pk_dynamic":
        _hash_index_holds_live_keys(lake, name, replaced)


def _hash_index_holds_live_keys(lake: Any, name: str, replaced: set[str]) -> None:
    """After an overwrite, a replaced partition's HASH files hold exactly its live keys.

    Java's overwrite drops the index files of the partitions it replaces and writes the keys it
    writes (`tests/interop/flink/test_dynamic_overwrite_flink.py` checks the same against Flink);
    a partition the overwrite left keeps its index, which holds at least its live keys.
    """
    from paimon_sql.format.binary_row import decode_row
    from paimon_sql.format.bucket import row_hash
    from paimon_sql.format.hash_index import decode_hashes

    table = Catalog(lake.warehouse).load_table(f"db.{name}")
    schema = table.latest_schema
    keys = list(schema.trimmed_primary_keys)
    types = [schema.field(k).type for k in keys]
    part_types = [schema.field(p).type for p in schema.partition_keys]
    indexed: dict[str, set[int]] = {}
    for (part, _), blob in TableWriter(None, table).hash_index().items():
        indexed.setdefault(decode_row(part, part_types)[0], set()).update(decode_hashes(blob))
    session = paimon_sql.connect(lake.warehouse)
    live: dict[str, set[int]] = {}
    assert keys == ["id"]
    for row in session.sql(f"SELECT dt, id FROM db.{name}").fetchall():  # noqa: S608
        live.setdefault(row[0], set()).add(row_hash(row[1:], types))
    session.close()
    assert set(live) <= set(indexed)
    for value, hashes in live.items():
        if value in replaced:
            assert indexed[value] == hashes, f"partition {value}: HASH files after the overwrite"
        else:
            assert indexed[value] >= hashes, f"partition {value}: live keys missing from the index"


def test_tasks_of_many_small_batches_put_every_row_in_its_bucket(lake):
    """Tasks of more than `SMALL_INPUT_ROWS` rows in many Arrow batches stream them through DuckDB
    query (`write.bucket.stream_values`): every row of a fixed-bucket table sits in the bucket the
    Python reference (Java's vectors) computes, a dynamic-bucket table keeps each key in one bucket
    across two writes, and both Javas read them at the end."""
    from paimon_sql.format.bucket import bucket_of
    from paimon_sql.types import parse_type
    from paimon_sql.write.bucket import SMALL_INPUT_ROWS

    rng = random.Random(11)
    lake.create("pk_stream", "'bucket' = '3'", partitioned=False)
    lake.create("pk_stream_dyn", "'bucket' = '-1', 'dynamic-bucket.target-row-num' = '1500'", True)
    load = _rows(rng, range(9000), ("p", "q"), "load")
    upsert = _rows(rng, range(8000, 12000), ("p", "q"), "up")
    assert len(load) // 2 > SMALL_INPUT_ROWS  # two tasks (default parallelism), each through DuckDB
    state: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    lake.spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "700")
    try:
        for rows in (load, upsert):
            _apply(state, rows, "last")
            for name in ("pk_stream", "pk_stream_dyn"):
                lake.write(name, rows, _dicts(state.values()))
    finally:
        lake.spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    key_types = [parse_type("BIGINT NOT NULL"), parse_type("STRING NOT NULL")]
    for name in ("pk_stream", "pk_stream_dyn"):
        folder = lake.warehouse / "db.db" / name
        live = _live_files(lake.warehouse, f"db.{name}")
        buckets_of_key: dict[tuple[Any, ...], set[int]] = {}
        checked = 0
        for path in folder.rglob("bucket-*/data-*"):
            if path.name not in live:
                continue
            bucket = int(path.parent.name.removeprefix("bucket-"))
            found = pq.read_table(path, columns=["id", "dt"]).to_pylist()
            for r in found:
                key = (r["id"], r["dt"])
                buckets_of_key.setdefault(key, set()).add(bucket)
                if name == "pk_stream":
                    assert bucket_of(key, key_types, 3) == bucket, (path, key)
            checked += len(found)
        assert checked >= len(state)
        assert all(len(b) == 1 for b in buckets_of_key.values()), name
        assert len({b for bs in buckets_of_key.values() for b in bs}) >= 3, name


def test_sorted_runs_of_a_data_source_task(lake):
    """A Spark 4 Data Source task with more rows than ``write-buffer-size`` writes several sorted
    runs of one bucket (`tests/spark/test_write_buffer.py`); here both Javas read them (a key in
    several runs: the last arrival wins). The task's own code runs here, without Spark.
    """
    from paimon_sql.spark.datasource import _ArrowWriter

    lake.create("pk_runs", "'bucket' = '2', 'write-buffer-size' = '16 kb'", partitioned=True)
    rng = random.Random(8)
    rows = [
        r for p in range(4) for r in _rows(rng, range(p * 50, p * 50 + 400), ("d0", "d1"), f"p{p}")
    ]
    state: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    _apply(state, rows, "last")
    types: dict[str, pa.DataType] = {
        "n": pa.int32(),
        "amount": pa.decimal128(8, 2),
        "ts": pa.timestamp("us"),
    }
    batches = [
        pa.RecordBatch.from_pylist(
            _dicts(rows[i : i + 100]),
            schema=pa.schema([(c, types.get(c, ARROW_TYPES[c])) for c in COLUMNS]),
        )
        for i in range(0, len(rows), 100)
    ]
    table = Catalog(lake.warehouse).load_table("db.pk_runs")
    job = WriteJob(
        warehouse=str(lake.warehouse),
        table="db.pk_runs",
        schema_id=0,
        job_id="runs-job",
        starts=TableWriter(None, table).next_sequence(),
    )
    writer = _ArrowWriter(job, overwrite=False, dynamic=False)
    writer.commit([writer.write(iter(batches))])
    entries = fold(
        e
        for m in table.data_manifests(table.latest_snapshot())
        for e in table.manifest(m.file_name)
    )
    per_bucket = Counter((e.partition, e.bucket) for e in entries.values())
    assert min(per_bucket.values()) >= 3, per_bucket  # several sorted runs in every bucket
    lake.assert_reads("pk_runs", _dicts(state.values()))
    latest = table.latest_snapshot()
    assert latest is not None
    lake.checks[f"db.pk_runs@{latest.id}"] = _dicts(state.values())
    lake.expect_kinds("pk_runs", ["APPEND"])


CROSS_ENGINES = {
    "deduplicate": "last",
    "partial-update": "partial",
    "aggregation": "sum",
    "first-row": "first",
}


@pytest.mark.parametrize("engine", list(CROSS_ENGINES))
def test_cross_partition_keys_move_between_partitions(lake, engine):
    """Primary key (id) without the partition column dt, bucket -1: an upsert naming a key in
    another partition moves it (deduplicate), updates it where it lives (partial-update,
    aggregation) or is dropped (first-row), as Java's cross-partition writers do."""
    rule = CROSS_ENGINES[engine]
    name = f"cross_{rule}"
    extra = ", 'fields.n.aggregate-function' = 'sum'" if rule == "sum" else ""
    lake.session.sql(
        f"CREATE TABLE db.{name} ({TABLE_COLUMNS}, PRIMARY KEY (id) NOT ENFORCED) "
        f"PARTITIONED BY (dt) WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '30', "
        f"'merge-engine' = '{engine}'{extra})"
    )
    rng = random.Random(name)
    nulls = rule in ("partial", "sum")
    state: dict[int, tuple[Any, ...]] = {}

    def apply(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        for row in rows:
            old = state.get(row[0])
            merged = _merge(old, row, rule)
            if old is not None and rule in ("partial", "sum"):  # the key stays where it lives
                merged = (merged[0], old[1], *merged[2:])
            state[row[0]] = merged
        return _dicts(state.values())

    load = _rows(rng, range(150), ("d0", "d1", "d2"), "load", nulls=nulls)
    lake.write(name, load, apply(load))
    # every overlapping key is named in another partition; some twice, in a third one
    upsert = _rows(rng, range(100, 250), ("d1", "d2", "d0"), "up", nulls=nulls)
    upsert += _rows(rng, range(230, 250), ("d2", "d0", "d1"), "again", nulls=nulls)
    lake.write(name, upsert, apply(upsert))
    if rule != "last":
        return
    # a static-partition overwrite of d1 that moves keys from d0 and d2 into it replaces d1 and,
    # as Java's commit does (checked against Flink in the interop tests), the partitions its
    # retractions land in
    over = [(i, "d1", f"over-{i}", i, None, None, None) for i in (0, 2, 4, 1000)]
    replaced = {"d1"} | {state[r[0]][1] for r in over if r[0] in state}
    kept = {k: v for k, v in state.items() if v[1] not in replaced}
    expected = _dicts([*kept.values(), *over])
    lake.write(name, over, expected, mode="overwrite", partition={"dt": "d1"})


def test_dynamic_partition_overwrite(lake):
    rng = random.Random(3)
    lake.create("pk_over", "'bucket' = '2'", partitioned=True)
    load = _rows(rng, range(150), ("d0", "d1", "d2"), "load")
    lake.write("pk_over", load, _dicts(load))
    d0 = _rows(rng, range(1000, 1040), ("d0",), "over")
    lake.spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        lake.write("pk_over", d0, _dicts([r for r in load if r[1] != "d0"] + d0), mode="overwrite")
    finally:
        lake.spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    everything = _rows(rng, range(2000, 2010), ("d1",), "all")
    lake.write("pk_over", everything, _dicts(everything), mode="overwrite")
    lake.expect_kinds("pk_over", ["APPEND", "OVERWRITE", "OVERWRITE"])


@pytest.mark.parametrize("kind", ["dynamic", "cross"])
def test_a_racing_writer_of_the_same_keys_makes_the_commit_conflict(lake, kind, monkeypatch):
    """A dynamic-bucket write assigns its keys' buckets from the key index at its start; a SQL
    writer committing new keys of the same partition (dynamic) or moving a key (cross-partition)
    before the driver commits makes it fail with nothing committed or left behind, instead of
    leaving one key in two buckets or two partitions (tests/reliability/test_key_index_races.py).
    """
    from paimon_sql.commit import publish
    from paimon_sql.errors import CommitConflictError

    name = f"race_{kind}"
    key = "id, dt" if kind == "dynamic" else "id"
    lake.session.sql(
        f"CREATE TABLE db.{name} ({TABLE_COLUMNS}, PRIMARY KEY ({key}) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '2')"
    )
    cols = "(id, dt, v)"
    insert = f"INSERT INTO db.{name} {cols} VALUES "  # noqa: S608 - test SQL, our names
    lake.session.sql(insert + "(1, 'd0', 'a'), (2, 'd0', 'a')")
    theirs = insert + ("(3, 'd0', 'b'), (4, 'd0', 'b')" if kind == "dynamic" else "(1, 'd1', 'b')")
    ids = (5, 6, 3) if kind == "dynamic" else (1,)
    mine = [(i, "d0" if kind == "dynamic" else "d2", "c", None, None, None, None) for i in ids]
    commit = publish.Committer.commit
    ran: list[str] = []

    def racing(self: publish.Committer, *args: Any, **kwargs: Any) -> Any:
        if not ran:
            ran.append(theirs)
            paimon_sql.connect(lake.warehouse).sql(theirs)
        return commit(self, *args, **kwargs)

    monkeypatch.setattr(publish.Committer, "commit", racing)
    df = lake.spark.createDataFrame(mine, SPARK_SCHEMA, verifySchema=False)
    with pytest.raises(CommitConflictError, match=f"db.{name}.*run the statement again"):
        write(df, f"db.{name}", warehouse=str(lake.warehouse))
    monkeypatch.undo()
    assert ran
    assert lake.kinds(name) == ["APPEND", "APPEND"]
    table_path = lake.warehouse / "db.db" / name
    assert _files_on_disk(table_path) == _live_files(lake.warehouse, f"db.{name}")
    index_files = {p.name for p in (table_path / "index").glob("*")}
    table = Catalog(lake.warehouse).load_table(f"db.{name}")
    latest = table.latest_snapshot()
    assert latest is not None
    live_index = (
        {e.index_file.file_name for e in table.index_manifest(latest.index_manifest)}
        if latest.index_manifest
        else set()
    )
    assert {n for n in index_files if n.startswith("index-") and "manifest" not in n} == live_index
    # written again, it lands: every key once
    write(df, f"db.{name}", warehouse=str(lake.warehouse))
    dups = lake.session.sql(
        f"SELECT {key}, count(*) FROM db.{name} GROUP BY {key} HAVING count(*) > 1"  # noqa: S608
    ).fetchall()
    assert dups == []


# --- the DataFrame is checked before any task runs ------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ("id bigint, dt string, v string, n int, amount decimal(8,2), day date", "column 'ts'"),
        (SPARK_SCHEMA + ", extra int", "DataFrame column 'extra'"),
        (
            "id bigint, dt string, v string, n int, amount decimal(12,2), day date, "
            "ts timestamp_ntz",
            "column 'amount'",
        ),
        (
            "id string, dt string, v string, n int, amount decimal(8,2), day date, "
            "ts timestamp_ntz",
            "column 'id'",
        ),
        (
            "id bigint, dt string, v string, n int, amount decimal(8,2), day date, ts timestamp",
            "column 'ts'",
        ),
    ],
    ids=["missing", "extra", "lossy-decimal", "wrong-type", "timestamp-ltz"],
)
def test_mismatched_dataframe_is_refused_before_any_task(lake, schema, message):
    name = "checked"
    if not (lake.warehouse / "db.db" / name).exists():
        lake.create(name, "'bucket' = '2'", partitioned=True)
    df = lake.spark.createDataFrame([], schema)
    jobs_before = len(lake.spark.sparkContext.statusTracker().getJobIdsForGroup())
    with pytest.raises(SchemaError, match=message):
        write(df, f"db.{name}", warehouse=str(lake.warehouse))
    assert len(lake.spark.sparkContext.statusTracker().getJobIdsForGroup()) == jobs_before
    assert lake.kinds(name) == []


def test_partition_value_mismatch_fails_without_snapshot(lake):
    lake.create("static_bad", "'bucket' = '2'", partitioned=True)
    rows = _rows(random.Random(4), range(20), ("d0", "d1"), "x")
    df = lake.spark.createDataFrame(rows, SPARK_SCHEMA)
    with pytest.raises(SchemaError, match="partition column 'dt' holds"):
        write(df, "db.static_bad", warehouse=str(lake.warehouse), partition={"dt": "d0"})
    assert lake.kinds("static_bad") == []
    assert _files_on_disk(lake.warehouse / "db.db" / "static_bad") == set()


def test_char_keys_are_padded_as_java_stores_them(lake):
    """CHAR(n) keys and partitions are padded to n before the sort (as Java: Flink 1.3.1 upserts
    what the SQL writer wrote, `tests/interop/flink/test_char_keys_flink.py`), so a key the SQL
    writer wrote unpadded-in-the-input is the one the DataFrame upserts; a value too long is
    refused by column, with no snapshot."""
    session = paimon_sql.connect(lake.warehouse)
    try:
        session.sql(
            "CREATE TABLE db.chars (k CHAR(4) NOT NULL, p CHAR(2) NOT NULL, v INT, "
            "PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '2')"
        )
        session.sql("INSERT INTO db.chars VALUES ('ab', 'x', 1), ('cd', 'x', 2)")
    finally:
        session.close()
    schema = "k string, p string, v int"
    rows = [("ab  ", "x", 10), ("ef", "x ", 30), ("abc   ", "y", 40)]
    write(lake.spark.createDataFrame(rows, schema), "db.chars", warehouse=str(lake.warehouse))
    session = paimon_sql.connect(lake.warehouse)
    try:
        got = sorted(session.sql("SELECT * FROM db.chars").fetchall())
    finally:
        session.close()
    assert got == [("ab  ", "x ", 10), ("abc ", "y ", 40), ("cd  ", "x ", 2), ("ef  ", "x ", 30)]
    too_long = lake.spark.createDataFrame([("abcde", "x", 1)], schema)
    with pytest.raises(SchemaError, match="column 'k': 'abcde' is longer than CHAR\\(4\\)"):
        write(too_long, "db.chars", warehouse=str(lake.warehouse))
    assert lake.kinds("chars") == ["APPEND", "APPEND"]


def test_rowkind_field_is_refused_by_name_before_any_task(lake):
    """The SQL writer takes each row's kind from 'rowkind.field'; the Spark writers do not."""
    lake.create("rowkind", "'bucket' = '2', 'rowkind.field' = 'v'", partitioned=True)
    df = lake.spark.createDataFrame(_rows(random.Random(6), range(5), ("d0",), "+I"), SPARK_SCHEMA)
    with pytest.raises(UnsupportedFeatureError, match=r"'rowkind\.field' = 'v'"):
        write(df, "db.rowkind", warehouse=str(lake.warehouse))
    assert lake.kinds("rowkind") == []


# --- failures and retries -------------------------------------------------------------------------


def _failing_for(value: str) -> Callable[..., Iterator[pa.RecordBatch]]:
    """A task that writes its files, then raises when its rows hold partition `value`."""

    def task(
        job: WriteJob, batches: Iterable[pa.RecordBatch], attempt: int
    ) -> Iterator[pa.RecordBatch]:
        batches = list(batches)
        out = list(write_task(job, batches, attempt))
        if any(value in b.column("dt").to_pylist() for b in batches):
            raise RuntimeError(f"injected failure for partition {value}")
        yield from out

    return task


def _flaky(
    job: WriteJob, batches: Iterable[pa.RecordBatch], attempt: int
) -> Iterator[pa.RecordBatch]:
    """The first attempt of every task writes its files, then fails; the retry succeeds."""
    from pyspark import TaskContext

    out = list(write_task(job, batches, attempt))
    if TaskContext.get().attemptNumber() == 0:
        raise RuntimeError("injected failure on the first attempt")
    yield from out


def test_task_failing_for_one_partition_leaves_nothing(lake):
    lake.create("fails", "'bucket' = '2'", partitioned=True)
    rows = _rows(random.Random(5), range(120), ("d0", "d1", "d2"), "x")
    df = lake.spark.createDataFrame(rows, SPARK_SCHEMA)
    with pytest.raises(PaimonSqlError, match="injected failure for partition d1"):
        run(df, "db.fails", warehouse=str(lake.warehouse), task=_failing_for("d1"))
    assert lake.kinds("fails") == []
    assert _files_on_disk(lake.warehouse / "db.db" / "fails") == set()


_PATH_DIR_TABLE = "pathdir"


def test_path_directory_table_is_written_there_and_a_failed_job_leaves_nothing(lake):
    """'data-file.path-directory': the tasks write under it (where readers look), and a failed
    job's clean-up finds its files there."""
    options = "'bucket' = '2', 'data-file.path-directory' = 'data'"
    lake.create(_PATH_DIR_TABLE, options, partitioned=True)
    rows = _rows(random.Random(6), range(60), ("d0", "d1"), "x")
    lake.write(_PATH_DIR_TABLE, rows, _dicts(rows))
    root = lake.warehouse / "db.db" / _PATH_DIR_TABLE
    assert _files_on_disk(root) == _files_on_disk(root / "data") != set()
    before = _files_on_disk(root)
    df = lake.spark.createDataFrame(rows, SPARK_SCHEMA)
    with pytest.raises(PaimonSqlError, match="injected failure for partition d1"):
        run(df, "db.pathdir", warehouse=str(lake.warehouse), task=_failing_for("d1"))
    assert _files_on_disk(root) == before


def _failing_first_partition_while_the_other_runs(
    log: Path,
) -> Callable[..., Iterator[pa.RecordBatch]]:
    """Task 0 fails at once (every attempt); task 1 notes the time in `log` every 20 ms for 3 s,
    then writes its files.
    """

    def task(
        job: WriteJob, batches: Iterable[pa.RecordBatch], attempt: int
    ) -> Iterator[pa.RecordBatch]:
        import time

        from pyspark import TaskContext

        batches = list(batches)
        context = TaskContext.get()
        assert context is not None
        if context.partitionId() == 0:
            raise RuntimeError("injected failure of task 0")
        for _ in range(150):
            with log.open("a") as out:
                out.write(f"{time.time()}\n")
            time.sleep(0.02)
        yield from write_task(job, batches, attempt)

    return task


def test_task_still_running_when_the_job_fails_is_stopped_before_the_clean_up(lake, tmp_path):
    """Spark raises on the driver as soon as one task has failed for good, while another may still
    be running (and about to write a file). The write returns only once no task of it runs, so its
    clean-up sees every file.
    """
    lake.create("straggler", "'bucket' = '2'", partitioned=True)
    rows = _rows(random.Random(8), range(200), ("d0", "d1", "d2", "d3"), "x")
    df = lake.spark.createDataFrame(rows, SPARK_SCHEMA)
    log = tmp_path / "ticks"
    with pytest.raises(PaimonSqlError, match="injected failure of task 0"):
        run(
            df,
            "db.straggler",
            warehouse=str(lake.warehouse),
            task=_failing_first_partition_while_the_other_runs(log),
        )
    returned = time.time()
    time.sleep(0.5)
    ticks = [float(t) for t in log.read_text().split()]
    assert ticks, "task 1 never ran: the test proves nothing"
    assert max(ticks) < returned, (
        f"task 1 still ran {max(ticks) - returned:.3f} s after the write raised"
    )
    assert lake.kinds("straggler") == []
    assert _files_on_disk(lake.warehouse / "db.db" / "straggler") == set()


def test_settle_gives_up_with_a_warning_naming_the_job(spark, caplog, tmp_path):
    """A task that outlives the wait: the driver stops waiting, says so, names the job's tag and
    how to delete the files such a task may still write."""
    from pyspark import InheritableThread

    from paimon_sql.spark.writer import _Jobs

    release = tmp_path / "release"

    def held(row: int) -> int:  # runs until the test releases it (at most a minute)
        import time

        deadline = time.monotonic() + 60
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return row

    context = spark.sparkContext
    jobs = _Jobs(spark.range(1), "settle-test-tag", "db.slow")
    outcome: list[object] = []

    def run_held_job() -> None:
        try:
            outcome.append(context.parallelize([1], 1).map(held).collect())
        except Exception as err:  # noqa: BLE001 - reported by the assertions below
            outcome.append(err)

    with jobs:
        thread = InheritableThread(target=run_held_job)
        thread.start()
        try:
            tracker, deadline = context.statusTracker(), time.monotonic() + 60
            while not any(
                (info := tracker.getStageInfo(s)) is not None and info.numActiveTasks
                for s in tracker.getActiveStageIds()
            ):
                assert not outcome, f"the job ended before it was seen running: {outcome}"
                assert time.monotonic() < deadline, "the task never started"
                time.sleep(0.02)
            started = time.monotonic()
            with caplog.at_level(logging.WARNING, logger="paimon_sql.spark.writer"):
                assert not jobs.settle(cancel=False, wait_seconds=0.3)
            assert time.monotonic() - started < 5
        finally:
            release.touch()
            thread.join()
        assert outcome == [[1]]
        assert jobs.settle(cancel=False, wait_seconds=30)  # the task has ended: nothing to say
    (record,) = [r for r in caplog.records if r.name == "paimon_sql.spark.writer"]
    message = record.getMessage()
    assert "settle-test-tag" in message
    assert "1 task(s)" in message
    assert "CALL sys.remove_orphan_files(table => 'db.slow'" in message


def test_task_failing_once_is_retried_without_duplicates(lake):
    lake.create("retried", "'bucket' = '2'", partitioned=True)
    rows = _rows(random.Random(6), range(120), ("d0", "d1", "d2"), "x")
    df = lake.spark.createDataFrame(rows, SPARK_SCHEMA)
    snapshot = run(df, "db.retried", warehouse=str(lake.warehouse), task=_flaky)
    assert snapshot is not None
    lake.expect_kinds("retried", ["APPEND"])
    lake.assert_reads("retried", _dicts(rows))
    assert snapshot.delta_record_count == len(rows)
    on_disk = _files_on_disk(lake.warehouse / "db.db" / "retried")
    assert on_disk == _live_files(lake.warehouse, "db.retried")
    lake.checks[f"db.retried@{snapshot.id}"] = _dicts(rows)


def test_speculative_duplicate_only_the_winner_is_committed(lake):
    """Two attempts of one task (as speculation runs them) write the same rows; the driver commits
    the winner's messages and deletes the loser's files.
    """
    from paimon_sql.spark._task import messages_of, payloads_of

    lake.create("speculative", "'bucket' = '1'", partitioned=False)
    rows = _rows(random.Random(7), range(50), ("p",), "x")
    table = Catalog(lake.warehouse).load_table("db.speculative")
    job = WriteJob(
        warehouse=str(lake.warehouse),
        table="db.speculative",
        schema_id=0,
        job_id="spec-job",
        starts=TableWriter(None, table).next_sequence(),
    )
    arrays = list(zip(*rows, strict=True))
    batch = pa.RecordBatch.from_arrays(
        [pa.array(a) for a in arrays] + [pa.array(range(len(rows)), pa.int64())],
        names=[*COLUMNS, ORD],
    )
    routed = list(route(job, [batch]))
    assert routed[0].column(BUCKET).to_pylist() == [0] * len(rows)
    winner = messages_of(payloads_of(write_task(job, routed, 101)))
    loser = messages_of(payloads_of(write_task(job, routed, 102)))
    assert {f.file_name for m in loser for f in m.new_files}
    snapshot = _commit(table, job, winner, None)
    _clean(table, job, keep={f.file_name for m in winner for f in m.new_files})
    assert snapshot is not None
    assert snapshot.delta_record_count == len(rows)
    lake.assert_reads("speculative", _dicts(rows))
    assert _files_on_disk(lake.warehouse / "db.db" / "speculative") == {
        f.file_name for m in winner for f in m.new_files
    }
    lake.checks[f"db.speculative@{snapshot.id}"] = _dicts(rows)


# --- Apache Paimon reads what we wrote (last: one JVM with the jar, in its own process) -----------


def test_apache_paimon_reads_every_snapshot_we_wrote(lake):
    assert len(lake.checks) >= 15, "the writing tests above did not run"
    out = lake.warehouse.parent / "oracle.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    # 'data-file.path-directory' came after Paimon 0.9, which looks for the files in the table
    # folder: that table is read by Paimon 1.3 (the next test) only
    checks = {k: v for k, v in lake.checks.items() if not k.startswith(f"db.{_PATH_DIR_TABLE}@")}
    cmd = [sys.executable, "-m", "tests.spark._oracle", str(lake.warehouse), str(out), *checks]
    proc = subprocess.run(
        cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=900
    )
    assert proc.returncode == 0, f"Apache Paimon could not read our tables:\n{proc.stderr[-6000:]}"
    java = json.loads(out.read_text())
    differ = [k for k, rows in checks.items() if java[k] != canonical_rows(rows)]
    assert not differ, f"Apache Paimon 0.9 reads these snapshots differently: {differ}"


def _canonical_expected(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Expected rows in the Flink oracle's canonical form, through pyarrow (not paimon-sql)."""
    columns = list(rows[0]) if rows else COLUMNS
    schema = pa.schema([(c, ARROW_TYPES[c]) for c in columns])
    return arrow_rows(pa.Table.from_pylist(rows, schema=schema))[1]


def test_apache_paimon_1_3_reads_every_snapshot_we_wrote(lake):
    """Paimon 1.3.1 (Flink 1.20) reads every recorded snapshot as expected and lists the snapshots
    (kinds and count) of every table whose kinds a test fixed.
    """
    from tests.interop.flink.harness import oracle

    assert len(lake.checks) >= 20, "the writes did not run"
    assert len(lake.expected_kinds) >= 10, "the writes did not run"
    flink = oracle()
    differ = []
    for key, expected in lake.checks.items():
        table, _, version = key.partition("@")
        _, got = flink.read(lake.warehouse, table.removeprefix("db."), snapshot=int(version))
        try:
            assert_same_rows(got, _canonical_expected(expected), context=key)
        except AssertionError as err:
            differ.append(str(err))
    assert not differ, "Apache Paimon 1.3 reads these snapshots differently:\n" + "\n".join(differ)
    for name, kinds in lake.expected_kinds.items():
        _, listed = flink.query(
            lake.warehouse,
            f"SELECT snapshot_id, commit_kind FROM `{name}$snapshots` ORDER BY snapshot_id",  # noqa: S608
        )
        assert [r["commit_kind"] for r in listed] == kinds, name
