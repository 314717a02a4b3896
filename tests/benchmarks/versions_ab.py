"""Two source trees of paimon-sql on the partitioned scans, interleaved under the same load.

    .venv/bin/python tests/benchmarks/versions_ab.py --base DIR [--new DIR] [--rows N] [--reps R]

`partitions_ab` compares paimon-sql with plain ``read_parquet`` in one process; this runs one
worker process per source tree (``PYTHONPATH`` set to the tree, e.g. a ``git archive`` of main)
and asks them in turn, one at a time, to time one repetition of a workload: plain
``read_parquet`` then the same query through that tree's paimon-sql session. Both trees see the
same load, so a change's effect on the ratio is measured, not the machine's drift. Results of the
two engines are compared in full in each worker (`fingerprint`) before timing. The deletion-vector
workloads of ``partitions_ab --dv`` are included (``--only dv_agg`` …): their result is compared
with the floor's (the files minus the deleted positions), their reference reads the level > 0 files.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def worker(rows: int, only: list[str]) -> None:
    """Serve ``<workload>`` lines on stdin with one JSON timing line each."""
    import duckdb

    import paimon_sql
    from tests.benchmarks import _tables
    from tests.benchmarks._files import live_files
    from tests.benchmarks.workloads import DV_WORKLOADS, PARTITIONED_WORKLOADS
    from tests.second_opinion._worker import fingerprint

    workloads = {
        w.name: w for w in (*PARTITIONED_WORKLOADS, *DV_WORKLOADS) if not only or w.name in only
    }
    session = paimon_sql.connect(str(_tables.warehouse(rows)))
    con = duckdb.connect()
    prepared: dict[str, tuple[str, str, list[str]]] = {}
    same: dict[str, bool] = {}
    for name, w in workloads.items():
        live = live_files(_tables.table_dir(rows, w.table))
        dv = w.table in _tables.DV_TABLES  # Java reads a DV table's level > 0 files only
        files = [f.path for f in live.files if f.level > 0 or not dv]
        ours = w.sql.replace("{table}", f'"bench"."{w.table}"')
        prepared[name] = (w.plain, ours, files)
        if dv:  # the reference keeps the deleted rows: compare with the floor
            con.register("deleted", live.deleted)
        a = con.sql(w.floor if dv else w.plain, params={"files": files}).to_arrow_table()
        b = session.sql(ours).to_arrow_table()
        same[name] = fingerprint(a, w.aggregate) == fingerprint(b, w.aggregate)
    print(json.dumps({"ready": True, "same": same, "module": paimon_sql.__file__}), flush=True)
    for line in sys.stdin:
        name = line.strip()
        if not name:
            break
        plain, ours, files = prepared[name]
        c0, t0 = time.process_time(), time.perf_counter()
        con.sql(plain, params={"files": files}).to_arrow_table()
        c1, t1 = time.process_time(), time.perf_counter()
        session.sql(ours).to_arrow_table()
        c2, t2 = time.process_time(), time.perf_counter()
        got = {"plain": t1 - t0, "ours": t2 - t1, "plain_cpu": c1 - c0, "ours_cpu": c2 - c1}
        print(json.dumps(got), flush=True)


def _start(tree: Path, rows: int, only: list[str]) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    args = [sys.executable, str(Path(__file__).resolve()), "--worker", "--rows", str(rows)]
    args += [a for name in only for a in ("--only", name)]
    # cwd: the tree, so `tests.benchmarks` resolves to its files too
    return subprocess.Popen(
        args, cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests/benchmarks/versions_ab.py")
    parser.add_argument("--base", type=Path)
    parser.add_argument("--new", type=Path, default=ROOT)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--worker", action="store_true")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.rows, args.only)
        return 0
    from tests.benchmarks.workloads import DV_WORKLOADS, PARTITIONED_WORKLOADS

    every = (*PARTITIONED_WORKLOADS, *DV_WORKLOADS)
    names = [w.name for w in every if not args.only or w.name in args.only]
    print(f"load average before: {os.getloadavg()}", flush=True)
    trees = {"base": args.base.resolve(), "new": args.new.resolve()}
    procs = {k: _start(t, args.rows, args.only) for k, t in trees.items()}
    ready = {}
    for key, proc in procs.items():  # one after the other: warm-up is not timed
        assert proc.stdout is not None
        ready[key] = json.loads(proc.stdout.readline())
        print(f"{key}: {ready[key]['module']} same results: {ready[key]['same']}", flush=True)
    times: dict[str, dict[str, dict[str, list[float]]]] = {
        k: {n: {m: [] for m in ("plain", "ours", "plain_cpu", "ours_cpu")} for n in names}
        for k in procs
    }
    order = list(procs)
    for rep in range(args.reps):
        for name in names:
            for key in order if rep % 2 == 0 else order[::-1]:
                proc = procs[key]
                assert proc.stdin is not None
                assert proc.stdout is not None
                proc.stdin.write(name + "\n")
                proc.stdin.flush()
                got = json.loads(proc.stdout.readline())
                for metric, value in got.items():
                    times[key][name][metric].append(value)
    for proc in procs.values():
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait()
    report: dict[str, Any] = {
        "rows": args.rows,
        "reps": args.reps,
        "trees": {k: str(t) for k, t in trees.items()},
    }
    for name in names:
        for key in procs:
            plain, ours = times[key][name]["plain"], times[key][name]["ours"]
            plain_cpu, ours_cpu = times[key][name]["plain_cpu"], times[key][name]["ours_cpu"]
            cell = {
                "plain": plain,
                "ours": ours,
                "plain_cpu": plain_cpu,
                "ours_cpu": ours_cpu,
                "ratio_median": statistics.median(ours) / statistics.median(plain),
                "ratio_best": min(ours) / min(plain),
                "cpu_ratio_median": statistics.median(ours_cpu) / statistics.median(plain_cpu),
                "same_result": ready[key]["same"][name],
            }
            report.setdefault(name, {})[key] = cell
            print(
                f"{name:28s} {key:4s} read_parquet {min(plain):.3f}/{statistics.median(plain):.3f}"
                f"  paimon-sql {min(ours):.3f}/{statistics.median(ours):.3f}  ratio median "
                f"{cell['ratio_median']:.2f}x best {cell['ratio_best']:.2f}x"
                f"  cpu {statistics.median(plain_cpu):.3f}/{statistics.median(ours_cpu):.3f}"
                f" = {cell['cpu_ratio_median']:.2f}x"
                f"  {'same' if cell['same_result'] else 'DIFFERENT'}",
                flush=True,
            )
    report["load_average_after"] = os.getloadavg()
    print(f"load average after: {report['load_average_after']}", flush=True)
    if args.output:
        args.output.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
