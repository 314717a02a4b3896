"""A Spark task's bucket routing (`spark._task.route`): CPU and wall time of one task, two trees.

Not a test (pytest does not collect it). One task's input (``--rows`` rows of a STRING key in
``--batch``-row Arrow batches, as Spark hands them to ``mapInArrow``) is routed into a primary-key
table of ``--buckets`` buckets by the working tree and by a git revision, each in a subprocess of
its own, alternately, so a busy machine slows both alike; the buckets of both are compared in full
and, on a sample, with the Python reference (`format.bucket.bucket_of`, checked against Java)::

    .venv/bin/python -m tests.benchmarks.spark_route                  # against HEAD
    .venv/bin/python -m tests.benchmarks.spark_route --rev 7aee0c2 --reps 3
    .venv/bin/python -m tests.benchmarks.spark_route --rows 500 --batch 500 --reps 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.feather as feather

ROOT = Path(__file__).resolve().parents[2]

#: Run in the tree under test (its `paimon_sql` first on the path): route, time, keep the buckets.
CHILD = """
import json, sys, time
import pyarrow as pa, pyarrow.feather as feather
import paimon_sql
from paimon_sql.spark._task import WriteJob, route

warehouse, data, out, batch, reps = sys.argv[1:6]
rows = feather.read_table(data)
batches = rows.to_batches(max_chunksize=int(batch))
job = WriteJob(warehouse=warehouse, table="db.t", schema_id=0, job_id="bench")
times = []
for _ in range(int(reps)):
    cpu, wall = time.process_time(), time.perf_counter()
    routed = list(route(job, batches))
    times.append((time.process_time() - cpu, time.perf_counter() - wall))
buckets = pa.chunked_array([b.column("__paimon_bucket") for b in routed], pa.int32())
assert [len(b) for b in routed] == [len(b) for b in batches]  # aligned
feather.write_feather(pa.table({"bucket": buckets}), out)
print(json.dumps({"times": times, "package": paimon_sql.__file__}))
"""


def keys(n: int) -> pa.Array[Any]:
    """Distinct keys of 1 to 31 bytes: inline (≤ 7) and var-part strings, some multi-byte."""
    return pa.array(
        [f"{'é' if i % 7 == 0 else 'u'}{i:x}{'-x' * (i % 12)}" for i in range(n)], pa.string()
    )


def build(folder: Path, rows: int, buckets: int) -> tuple[str, Path]:
    import paimon_sql

    warehouse = folder / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (k STRING NOT NULL, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
        f"WITH ('bucket' = '{buckets}')"
    )
    data = folder / "input.arrow"
    feather.write_feather(pa.table({"k": keys(rows), "v": pa.array(range(rows), pa.int64())}), data)
    return str(warehouse), data


def export(rev: str, folder: Path) -> Path:
    """The `paimon_sql` package of `rev` (git archive), importable from the returned folder."""
    tree = folder / f"tree-{rev}"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "paimon_sql"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def run_child(
    tree: Path, warehouse: str, data: Path, out: Path, batch: int, reps: int
) -> list[list[float]]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, warehouse, str(data), str(out), str(batch), str(reps)],
        env=env,
        cwd=tree,  # `python -c` puts the working folder first on the path
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{tree}: {proc.stderr[-3000:]}")
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    if not Path(answer["package"]).is_relative_to(tree):
        raise RuntimeError(f"the child imported {answer['package']}, not the tree {tree}")
    times: list[list[float]] = answer["times"]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--buckets", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    from paimon_sql.format.bucket import bucket_of
    from paimon_sql.types import parse_type

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        warehouse, data = build(folder, args.rows, args.buckets)
        trees = {args.rev: export(args.rev, folder), "working tree": ROOT}
        times: dict[str, list[list[float]]] = {name: [] for name in trees}
        results: dict[str, pa.ChunkedArray[Any]] = {}
        for _ in range(args.reps):  # alternately, one repetition each
            for name, tree in trees.items():
                out = folder / f"out-{len(results)}.arrow"
                times[name] += run_child(tree, warehouse, data, out, args.batch, 1)
                results[name] = feather.read_table(out).column("bucket")
        first, *rest = results.values()
        same = all(r.equals(first) for r in rest)
        sample = keys(args.rows).to_pylist()[:: max(1, args.rows // 2000)]
        step = max(1, args.rows // 2000)
        reference = [bucket_of((k,), [parse_type("STRING NOT NULL")], args.buckets) for k in sample]
        java = first.to_pylist()[::step] == reference
    print(
        f"route: {args.rows:,} rows, STRING key, {args.buckets} buckets, "
        f"{args.batch:,}-row batches ({-(-args.rows // args.batch)} batches), {args.reps} reps"
    )
    for name, measured in times.items():
        cpu = statistics.median(t[0] for t in measured)
        wall = statistics.median(t[1] for t in measured)
        print(f"  {name:>14}: CPU {cpu:7.3f} s   wall {wall:7.3f} s   (medians)")
    print(f"  buckets: {'same' if same else 'DIFFERENT'} in both trees; Python reference: {java}")
    if not (same and java):
        sys.exit(1)


if __name__ == "__main__":
    main()
