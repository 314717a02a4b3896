"""Cross-partition upsert tables (``KEY_DYNAMIC``) within ``write-buffer-size`` (issue 18 item 4).

    .venv/bin/python -m tests.benchmarks.cross_partition --rows 10000000 [--tree DIR] [--label L]

A primary-key table keyed by ``id`` and partitioned by ``p`` = ``i1 % 10`` (a non-key column, so an
update usually moves its key to another partition), ``bucket = -1``, default
``write-buffer-size``. Each step runs in a fresh subprocess importing ``paimon_sql`` from `--tree`
(default: this repository; a ``git archive`` of another commit compares versions) and reports its
peak RSS (``VmHWM``), wall and CPU seconds:

* ``load``: the benchmark's base input (`--rows` keys, ``rows-N/input/base.parquet``) into a fresh
  table;
* ``upsert_1``: one existing key written in another partition (a retraction in the old one);
* ``upsert_200k``: 100,000 updated keys (from the benchmark's upsert input, ``p`` from their new
  ``i1``) and 100,000 new ones, into a copy of the loaded table;
* ``upsert_<n/5>k``: the whole upsert input (`--rows`/10 updated keys, as many new ones): the
  routing joins at their largest.

After each step (outside the measurement) the table's row count, distinct keys and the key's
partition are checked against what the input implies (computed here with pyarrow).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from tests.benchmarks import _tables
from tests.second_opinion import cache_dir

REPO = Path(__file__).resolve().parents[2]
PARTS = 10
UPSERT_KEYS = 100_000  # updated keys and new keys, each

DDL = (
    "CREATE TABLE bench.t (id BIGINT NOT NULL, i1 INT, i2 INT, d1 DOUBLE, d2 DOUBLE, s1 STRING, "
    "s2 STRING, p INT, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '-1')"
)

_SCRIPT = """
import json, resource, sys, time
import paimon_sql
warehouse, step, source, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
session = paimon_sql.connect(warehouse, create=step == "load")
if step == "load":
    session.sql("CREATE DATABASE bench")
    session.sql(sys.argv[5])
def hwm():
    return next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:"))
baseline = hwm()
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
session.sql(
    "INSERT INTO bench.t SELECT id, i1, i2, d1, d2, s1, s2, (i1 % 10)::INT AS p "
    "FROM read_parquet('" + source + "')"
)
seconds = time.perf_counter() - start
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
peak = hwm()
check = session.sql(
    "SELECT count(*), count(DISTINCT id), "
    "count(*) FILTER (WHERE p = i1 % 10) FROM bench.t"
).fetchall()[0]
print("RESULT " + json.dumps({
    "seconds": seconds, "cpu_seconds": cpu, "peak_rss_mb": peak / 1024,
    "baseline_rss_mb": baseline / 1024, "check": list(check),
}))
"""


def _inputs(rows: int, home: Path) -> dict[str, tuple[Path, int]]:
    """The load input (the benchmark's base) and the two upserts, written once under `home`."""
    base_path, upsert_path = _tables.inputs(rows)
    home.mkdir(parents=True, exist_ok=True)
    one, many = home / "upsert_1.parquet", home / f"upsert_{2 * UPSERT_KEYS}.parquet"
    if not many.exists():
        upsert = pq.read_table(upsert_path)
        updated = upsert.filter(pc.field("id") < rows).slice(0, UPSERT_KEYS)
        new = upsert.filter(pc.field("id") >= rows).slice(0, UPSERT_KEYS)
        pq.write_table(pa.concat_tables([updated, new]), many)
    if not one.exists():
        base = pq.read_table(base_path, filters=[("id", "=", 12345)])
        old_i1 = base.column("i1")[0].as_py()
        moved = base.set_column(1, "i1", pa.array([old_i1 + 1], pa.int32()))  # next partition
        pq.write_table(moved, one)
    whole = pq.ParquetFile(upsert_path).metadata.num_rows  # half updates, half new keys
    return {
        "load": (base_path, 0),
        "upsert_1": (one, 0),
        f"upsert_{2 * UPSERT_KEYS // 1000}k": (many, UPSERT_KEYS),
        f"upsert_{whole // 1000}k": (upsert_path, whole // 2),
    }


def _run(tree: Path, warehouse: Path, step: str, source: Path, rows: int) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(warehouse), step, str(source), str(rows), DDL],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,  # ``-c`` puts the current folder first on sys.path
    )
    found = re.findall(r"RESULT (\{[^}]*\})", proc.stdout)
    if proc.returncode or not found:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:500]}
    return dict(json.loads(found[-1]))


def expected(keys: int) -> list[int]:
    """Rows, distinct keys, rows whose p is i1 % 10 (all: every key's latest row decides)."""
    return [keys, keys, keys]


def run(rows: int, tree: Path, label: str, reps: int) -> dict[str, Any]:
    home = cache_dir() / "bench" / f"xpart-{rows}"
    sources = _inputs(rows, home)
    scratch = Path(tempfile.mkdtemp(prefix=f"run-{label}-", dir=home))
    out: dict[str, Any] = {"rows": rows, "tree": str(tree), "label": label, "steps": {}}
    try:
        template = scratch / "loaded"
        for rep in range(reps):
            warehouse = template if rep == 0 else scratch / f"load-{rep}"
            result = _run(tree, warehouse, "load", sources["load"][0], rows)
            result["ok"] = result.get("check") == expected(rows)
            out["steps"].setdefault("load", []).append(result)
            print(f"[xpart {label}] load: {result}", file=sys.stderr, flush=True)
            if rep:
                shutil.rmtree(warehouse, ignore_errors=True)
        for step in [s for s in sources if s != "load"]:
            for _ in range(reps):
                warehouse = scratch / step
                shutil.copytree(template, warehouse)
                source, new_keys = sources[step]
                result = _run(tree, warehouse, step, source, rows)
                result["ok"] = result.get("check") == expected(rows + new_keys)
                out["steps"].setdefault(step, []).append(result)
                print(f"[xpart {label}] {step}: {result}", file=sys.stderr, flush=True)
                shutil.rmtree(warehouse, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--tree", type=Path, default=REPO, help="the paimon_sql source tree")
    parser.add_argument("--label", default="this")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--output", type=Path, help="append the result (JSON lines)")
    args = parser.parse_args(argv)
    result = run(args.rows, args.tree.resolve(), args.label, args.reps)
    text = json.dumps(result)
    print(text)
    if args.output:
        with args.output.open("a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
