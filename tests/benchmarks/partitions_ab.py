"""Partitioned scans, paimon-sql against plain ``read_parquet``, interleaved in one process.

    .venv/bin/python -m tests.benchmarks.partitions_ab [--rows N] [--reps R] [--dv] [--only W]

The ``partitions`` suite of ``run.py`` runs every cell in its own subprocess, one after the
other; on a shared machine whose load changes by the minute its ratios carry that drift. Here
each repetition runs the plain ``read_parquet`` of the live files (hive partitioning off: the
partition column is read from the files, as paimon-sql does) and then the same query through a
paimon-sql session, in one process: both see the same load. The order alternates (ABBA), as
the second of a pair runs up to 1.4x slower at 10M rows (it allocates the memory the first one's
result just freed); before 2026-11-28 the plain read always ran first. Reported: best and
median seconds and the ratio of medians and of bests; the results of the two are compared in full
(count and SHA-256 of every row, or the aggregate row). Tables: ``append_p<N>`` of
``_tables.py`` (written by pypaimon-rust).

``--dv`` adds the deletion-vector tables ``dv8`` (unpartitioned, 8 buckets), ``dv_p10`` and
``dv_p1000`` (Java-written: building them needs Spark): the reference is the plain ``read_parquet``
of their live level > 0 files (the deleted rows included, as issue 18 measures it); paimon-sql's
result is compared in full with the floor's (the same files minus the deletion vectors' positions,
`workloads.DV_SCAN`, `workloads.DV_PARTITIONED_SCAN`), run once, untimed.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

from tests.benchmarks import _tables
from tests.benchmarks._files import live_files
from tests.benchmarks.workloads import DV_WORKLOADS, PARTITIONED_WORKLOADS
from tests.second_opinion._worker import fingerprint

RESULTS = Path(__file__).with_name("results")


def _arrow(relation: Any) -> Any:
    return relation.to_arrow_table()


def _plain_run(con: Any, sql: str, files: list[str]) -> Any:
    return _arrow(con.sql(sql, params={"files": files}))


def _ours_run(session: Any, sql: str) -> Any:
    return _arrow(session.sql(sql))


def run(rows: int, reps: int, *, dv: bool = False, only: list[str] | None = None) -> dict[str, Any]:
    import paimon_sql

    workloads = [*PARTITIONED_WORKLOADS, *(DV_WORKLOADS if dv else ())]
    workloads = [w for w in workloads if not only or w.name in only]
    wanted = {w.table for w in workloads}
    with_dv = bool(wanted & set(_tables.DV_TABLES))
    tables = _tables.ensure_tables(rows, with_dv=with_dv, only=wanted)
    warehouse = str(_tables.warehouse(rows))
    session = paimon_sql.connect(warehouse)
    out: dict[str, Any] = {}
    for workload in workloads:
        live = live_files(_tables.table_dir(rows, workload.table))
        # Java reads a DV table's level > 0 files only (paimon-format.md §8)
        dv = workload.table in _tables.DV_TABLES
        files = [f.path for f in live.files if f.level > 0 or not dv]
        con = duckdb.connect()
        plain = workload.plain
        ours = workload.sql.replace("{table}", f'"bench"."{workload.table}"')
        # warm both (file cache, imports), then alternate
        first_plain = _arrow(con.sql(plain, params={"files": files}))
        first_ours = _arrow(session.sql(ours))
        if workload.floor != workload.plain:  # the reference keeps deleted rows: check the floor
            con.register("deleted", live.deleted)
            first_plain = _arrow(con.sql(workload.floor, params={"files": files}))
        same = fingerprint(first_plain, workload.aggregate) == fingerprint(
            first_ours, workload.aggregate
        )
        times: dict[str, list[float]] = {"read_parquet": [], "paimon-sql": []}
        cpu: dict[str, list[float]] = {"read_parquet": [], "paimon-sql": []}
        loads = [os.getloadavg()[0]]
        runs = {
            "read_parquet": functools.partial(_plain_run, con, plain, files),
            "paimon-sql": functools.partial(_ours_run, session, ours),
        }
        for rep in range(reps):
            # ABBA: each engine runs first in half the repetitions, so neither always inherits
            # the other's freed result (about 1 GB at 10M rows) or its warm caches
            for engine in list(runs) if rep % 2 == 0 else reversed(list(runs)):
                c0, t0 = time.process_time(), time.perf_counter()
                runs[engine]()
                times[engine].append(time.perf_counter() - t0)
                cpu[engine].append(time.process_time() - c0)
        loads.append(os.getloadavg()[0])
        plain_ts, ours_ts = times["read_parquet"], times["paimon-sql"]
        cell: dict[str, Any] = {
            engine: {
                "best": min(ts),
                "median": statistics.median(ts),
                "seconds": ts,
                # process CPU time, every thread (less sensitive to the neighbours than wall time)
                "cpu_median": statistics.median(cpu[engine]),
                "cpu_seconds": cpu[engine],
            }
            for engine, ts in times.items()
        }
        cell["ratio_median"] = statistics.median(ours_ts) / statistics.median(plain_ts)
        cell["ratio_best"] = min(ours_ts) / min(plain_ts)
        cell["cpu_ratio_median"] = statistics.median(cpu["paimon-sql"]) / statistics.median(
            cpu["read_parquet"]
        )
        cell["load_average"] = loads
        cell["same_result"] = same
        cell["files"] = len(files)
        cell["deleted_rows"] = live.deleted.num_rows if dv else 0
        out[workload.name] = cell
        print(
            f"{workload.name:28s} files {len(files):5d}  read_parquet "
            f"{cell['read_parquet']['best']:.3f}/{cell['read_parquet']['median']:.3f}  paimon-sql "
            f"{cell['paimon-sql']['best']:.3f}/{cell['paimon-sql']['median']:.3f}  ratio median "
            f"{cell['ratio_median']:.2f}x best {cell['ratio_best']:.2f}x cpu "
            f"{cell['cpu_ratio_median']:.2f}x  load {loads[0]:.0f}-{loads[1]:.0f}  "
            f"{'same' if same else 'DIFFERENT'}",
            flush=True,
        )
    session.close()
    return {
        "suite": "partitions_ab",
        "rows": rows,
        "reps": reps,
        "load_average_after": os.getloadavg(),
        "tables": tables,
        "results": out,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.partitions_ab")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--dv", action="store_true", help="add the deletion-vector table's scans")
    parser.add_argument("--only", action="append", default=[], help="a workload name (repeatable)")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    report = run(args.rows, args.reps, dv=args.dv, only=args.only)
    print(f"load average after: {report['load_average_after']}", flush=True)
    # a run of some workloads only does not replace the whole run's report
    part = "-only-" + "-".join(sorted(args.only)) if args.only else ""
    output = args.output or RESULTS / f"partitions-ab-{args.rows}{part}.json"
    output.write_text(json.dumps(report, indent=1, default=str) + "\n")
    print(f"wrote {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
