# ruff: noqa: S608 - the SQL is benchmark constants and generated numbers
"""What the commit's write-write checks cost a small statement: two source trees, interleaved.

    .venv/bin/python -m tests.benchmarks.commit_checks --base DIR [--new DIR] [--rows N] [--reps R]

One worker process per source tree (``PYTHONPATH`` set to it, e.g. a ``git archive`` of the
commit before the checks) builds the same tables in its own temporary warehouse: `--rows` keys in
8 fixed buckets, in dynamic buckets, and in 8 buckets with deletion vectors, each loaded by 20
statements (so there are several manifests to read). The workers are then asked in turn, one
statement at a time, to time a 1-row UPDATE (``v = v + 1``: read, write, the read-write check) and
a 1-row INSERT of a new key (the sequence check) on each table; medians of wall time per tree.
Each worker's tables are compared in full at the end (same rows in both trees).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = {
    "fixed8": "'bucket' = '8'",
    "dynamic": "'bucket' = '-1'",
    "dv8": "'bucket' = '8', 'deletion-vectors.enabled' = 'true'",
}
STATEMENTS = ("update", "insert")


def worker(rows: int) -> None:
    """Build the tables, then serve ``<layout> <statement> <n>`` lines with one timing each."""
    import paimon_sql

    session = paimon_sql.connect(tempfile.mkdtemp(prefix="commit-checks-"), create=True)
    session.sql("CREATE DATABASE db")
    step = rows // 20
    for name, options in LAYOUTS.items():
        session.sql(
            f"CREATE TABLE db.{name} (k BIGINT NOT NULL, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
            f"WITH ({options})"
        )
        for low in range(0, rows, step):
            session.sql(f"INSERT INTO db.{name} SELECT i, 0 FROM range({low}, {low + step}) r(i)")
    print("ready", flush=True)
    for line in sys.stdin:
        name, statement, n = line.split()
        key = int(n) * 7919 % rows
        sql = (
            f"UPDATE db.{name} SET v = v + 1 WHERE k = {key}"
            if statement == "update"
            else f"INSERT INTO db.{name} VALUES ({rows + int(n)}, 1)"
        )
        start = time.perf_counter()
        session.sql(sql)
        elapsed = time.perf_counter() - start
        print(json.dumps({"seconds": elapsed}), flush=True)
    digest = {
        name: session.sql(f"SELECT count(*), sum(k), sum(v) FROM db.{name}").fetchall()[0]
        for name in LAYOUTS
    }
    print(json.dumps({"digest": digest}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--new", type=Path, default=ROOT)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.rows)
        return
    trees = {"base": args.base.resolve(), "new": args.new.resolve()}
    procs: dict[str, subprocess.Popen[str]] = {}
    for label, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT}"}
        procs[label] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.benchmarks.commit_checks",
                "--worker",
                "--base",
                "-",
                "--rows",
                str(args.rows),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
    for proc in procs.values():
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
    times: dict[str, dict[str, list[float]]] = {}
    n = 0
    for _ in range(args.reps):
        for name in LAYOUTS:
            for statement in STATEMENTS:
                n += 1
                for label, proc in procs.items():
                    assert proc.stdin is not None
                    assert proc.stdout is not None
                    proc.stdin.write(f"{name} {statement} {n}\n")
                    proc.stdin.flush()
                    seconds = json.loads(proc.stdout.readline())["seconds"]
                    times.setdefault(f"{name} {statement}", {}).setdefault(label, []).append(
                        seconds
                    )
    digests = {}
    for label, proc in procs.items():
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.close()
        digests[label] = json.loads(proc.stdout.readline())["digest"]
        proc.wait()
    report: dict[str, Any] = {"rows": args.rows, "reps": args.reps, "cells": {}}
    print(f"{'statement':<18} {'base ms':>9} {'new ms':>9} {'new/base':>9}")
    for cell, by in times.items():
        base, new = statistics.median(by["base"]), statistics.median(by["new"])
        report["cells"][cell] = {"base": base, "new": new}
        print(f"{cell:<18} {base * 1000:9.1f} {new * 1000:9.1f} {new / base:8.2f}x")
    report["same_rows"] = digests["base"] == digests["new"]
    print("tables after both runs:", "same" if report["same_rows"] else f"DIFFERENT {digests}")
    if args.output:
        args.output.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
