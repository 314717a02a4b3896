"""The Spark 4 Data Source task (`paimon_sql.spark.datasource`) holds at most ``write-buffer-size``.

Spark hands a Data Source task its rows unsorted, so the task sorts them itself. As Java's write
buffer does, it buffers rows up to the table's ``write-buffer-size``, sorts the buffer and writes it
as level-0 files (one sorted run), then starts again; the reader merges the runs. These tests call
the task's own code (`_ArrowWriter.write`, which PySpark 4 runs on executors; it needs no Spark)
with more rows than the buffer holds:

* the files: every one on level 0, several sorted runs per bucket with sequence numbers rising from
  run to run, and the rows read back equal to the last arrival of each key (computed here);
* the memory: in a fresh process, a task writing ~160 MB of Arrow rows through an 8 MB buffer
  grows its peak RSS (VmHWM) by far less than its input, while the same input through a 1 GB buffer
  (the whole task held and sorted at once, as before the buffer) grows it by more than the input
  (so the measurement can tell the two apart).

Apache Paimon reading such sorted runs is checked in `tests/spark/test_write.py` (the
``pk_runs`` table, read by Paimon 0.9 and 1.3).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow as pa

import paimon_sql
from paimon_sql.catalog import Catalog
from paimon_sql.commit.plan import fold
from paimon_sql.spark._task import WriteJob
from paimon_sql.spark.datasource import _ArrowWriter
from paimon_sql.write.writer import TableWriter
from tests.interop.harness import canonical_rows

ROOT = Path(__file__).resolve().parents[2]


def _create(warehouse: Path, buffer: str) -> None:
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '2', 'write-buffer-size' = '{buffer}')"
    )


def _job(warehouse: Path) -> WriteJob:
    table = Catalog(warehouse).load_table("db.t")
    return WriteJob(
        warehouse=str(warehouse),
        table="db.t",
        schema_id=table.latest_schema.id,
        job_id=str(uuid.uuid4()),
        starts=TableWriter(None, table).next_sequence(),
    )


def test_a_task_larger_than_the_buffer_writes_sorted_runs(tmp_path):
    wh = tmp_path / "wh"
    _create(wh, "256 kb")
    batches: list[pa.RecordBatch] = []
    latest: dict[int, str] = {}
    for b in range(120):  # 120 x 1000 rows (~5 MB of Arrow), 20000 keys, each arriving ~6 times
        ids = [(b * 7919 + j * 13) % 20000 for j in range(1000)]
        values = [f"batch{b}-row{j}-" + "x" * (j % 40) for j in range(1000)]
        latest.update(zip(ids, values, strict=True))
        batches.append(pa.RecordBatch.from_arrays([pa.array(ids), pa.array(values)], ["id", "v"]))
    input_bytes = sum(b.nbytes for b in batches)
    writer = _ArrowWriter(_job(wh), overwrite=False, dynamic=False)
    writer.commit([writer.write(iter(batches))])

    rel = paimon_sql.connect(wh).sql("SELECT id, v FROM db.t")
    got = [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]
    assert canonical_rows(got) == canonical_rows([{"id": k, "v": v} for k, v in latest.items()])

    table = Catalog(wh).load_table("db.t")
    snapshot = table.latest_snapshot()
    assert snapshot is not None
    assert snapshot.commit_kind.value == "APPEND"
    entries = fold(e for m in table.data_manifests(snapshot) for e in table.manifest(m.file_name))
    files = [e.file for e in entries.values()]
    assert {f.level for f in files} == {0}
    # the buffer filled at least this often (the routed rows carry a bucket and an arrival more)
    runs = input_bytes // (256 * 1024)
    assert runs >= 15
    for bucket in (0, 1):
        ranges = sorted(
            (f.min_sequence_number, f.max_sequence_number)
            for e in entries.values()
            if e.bucket == bucket
            for f in [e.file]
        )
        # one file (at least) per sorted run; the runs' numbers follow each other
        assert len(ranges) >= runs, ranges
        assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges)), ranges
    # each run keeps a key once: more rows in the files than keys, fewer than arrivals
    assert len(latest) < sum(f.row_count for f in files) < sum(b.num_rows for b in batches)


_RSS_TASK = """
import json, sys, uuid
import pyarrow as pa
sys.path.insert(0, sys.argv[2])
from tests.spark.test_write_buffer import _create, _job
from paimon_sql.spark.datasource import _ArrowWriter
from pathlib import Path

def peak():
    status = open("/proc/self/status").read().splitlines()
    return next(int(x.split()[1]) for x in status if x.startswith("VmHWM:")) * 1024

wh = Path(sys.argv[1])
_create(wh, sys.argv[3])
job = _job(wh)
pad = "p" * 400
def batch(b):
    ids = pa.array(range(b * 10000, (b + 1) * 10000), pa.int64())
    values = pa.array([pad] * 10000).cast(pa.string())
    return pa.RecordBatch.from_arrays([ids, values], ["id", "v"])
_ArrowWriter(job, False, False).write(iter([batch(10**6)]))  # warm: imports, first files
before = peak()
total = 0
def stream():
    global total
    for b in range(40):
        rows = batch(b)
        total += rows.nbytes
        yield rows
writer = _ArrowWriter(job, False, False)
writer.commit([writer.write(stream())])
print("RESULT " + json.dumps({"growth": peak() - before, "input": total}))
"""


def _task_growth(tmp_path: Path, buffer: str) -> dict[str, int]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _RSS_TASK,
            str(tmp_path / buffer.replace(" ", "")),
            str(ROOT),
            buffer,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    return dict(json.loads(line.removeprefix("RESULT ")))


def test_a_task_holds_one_buffer_not_its_input(tmp_path):
    bounded = _task_growth(tmp_path, "8 mb")
    unbounded = _task_growth(tmp_path, "1 gb")
    mb = 1 << 20
    assert bounded["input"] > 150 * mb
    report = (
        f"8 MB buffer: +{bounded['growth'] / mb:.0f} MB, "
        f"1 GB buffer: +{unbounded['growth'] / mb:.0f} MB (input {bounded['input'] / mb:.0f} MB)"
    )
    # measured: +56..70 MB (the buffer, its sorted and deduplicated copies, the files being encoded
    # on two threads, allocator slack) vs +545 MB (the whole input, its sorted copy and more)
    assert bounded["growth"] < 100 * mb, report
    assert unbounded["growth"] > bounded["input"], report
