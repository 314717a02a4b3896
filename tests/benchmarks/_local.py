"""One benchmark cell in a fresh process of the project venv: the DuckDB floor or paimon-sql.

``python -m tests.benchmarks._local <request.json>`` prints the same JSON answer as the
second-opinion worker's ``bench`` op (seconds per repetition, fingerprint, peak RSS), so every
engine is measured the same way: set-up (connect, planning inputs of the floor) is excluded,
each repetition runs the query and materializes the whole result as Arrow.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from tests.benchmarks._files import live_files
from tests.second_opinion._worker import fingerprint


def _to_arrow(result: Any) -> pa.Table:
    for name in ("to_arrow_table", "fetch_arrow_table"):
        method = getattr(result, name, None)
        if method is not None:
            table = method()
            return table if isinstance(table, pa.Table) else table.read_all()
    return pa.table(result)  # Arrow C stream


class _Floor:
    """Hand-written DuckDB SQL over the files the snapshot lists (read from its manifests)."""

    def __init__(self, warehouse: str, table: str, *, plain: bool = False) -> None:
        self.plain = plain
        db, name = table.split(".", 1)
        files = live_files(Path(warehouse) / f"{db}.db" / name)
        dv = name.startswith("dv")  # the Java-written DV table (`workloads.DV`)
        # Java reads DV tables without merging and skips level-0 files (paimon-format.md §8).
        live = [f for f in files.files if f.level > 0 or not dv]
        self.params = {
            "files": [f.path for f in live],
            "bucket0": [f.path for f in live if f.bucket == 0],
        }
        self.con = duckdb.connect()
        self.con.register("deleted", files.deleted)

    def run(self, workload: dict[str, Any]) -> pa.Table:
        sql = workload["plain" if self.plain else "floor"]
        params = {
            k: v for k, v in {**self.params, "key": workload["key"]}.items() if f"${k}" in sql
        }
        # ``sql`` (a relation), not ``execute``: DuckDB 2.0's DB-API result copies the rows once
        # more on the way to Arrow, which would slow the references down.
        return _to_arrow(self.con.sql(sql, params=params))


class _PaimonSql:
    def __init__(self, warehouse: str, table: str) -> None:
        import paimon_sql

        self.session = paimon_sql.connect(warehouse)
        db, name = table.split(".", 1)
        self.ref = f'"{db}"."{name}"'

    def run(self, workload: dict[str, Any]) -> pa.Table:
        return _to_arrow(self.session.sql(workload["sql"].replace("{table}", self.ref)))


def bench(request: dict[str, Any]) -> dict[str, Any]:
    workload = request["workload"]
    start = time.perf_counter()
    kind = request["engine"]
    if kind == "paimon-sql":
        engine: Any = _PaimonSql(request["warehouse"], workload["table"])
    else:
        engine = _Floor(request["warehouse"], workload["table"], plain=kind == "read_parquet")
    setup = time.perf_counter() - start
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seconds, result = [], None
    for _ in range(request["reps"]):
        t0 = time.perf_counter()
        result = engine.run(workload)
        seconds.append(time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "seconds": seconds,
        "check": fingerprint(result, workload["aggregate"]),
        "setup_seconds": setup,
        "rss_before_mb": rss_before / 1024,
        "peak_rss_mb": peak / 1024,
    }


if __name__ == "__main__":
    with open(sys.argv[1]) as fh:
        print(json.dumps(bench(json.load(fh))))
