"""Object store benchmark (issue 15): one primary-key table, written by paimon-sql, on the local S3
test server (moto on 127.0.0.1) and on local disk: full read, point query, LIMIT 10 — seconds and,
on S3, bytes and requests fetched. Not a test; nothing asserts a time.

    .venv/bin/python -m tests.benchmarks.objectstore [--rows 1000000] [--reps 3]

Writes ``results/objectstore.json``. moto keeps objects in memory and serves one request at a time,
so S3 times here are an upper bound of the Python overhead, not of a real network.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import paimon_sql
from tests.objectstore._server import S3Server

QUERIES = {
    "full": "SELECT * FROM b.t",
    "count": "SELECT count(*) FROM b.t",
    "point": "SELECT * FROM b.t WHERE id = {key}",
    "limit10": "SELECT * FROM b.t LIMIT 10",
}
DDL = (
    "CREATE TABLE b.t (id BIGINT, i1 INT, d1 DOUBLE, s1 STRING, s2 STRING) "
    "WITH ('primary-key' = 'id', 'bucket' = '2')"
)
LOAD = (
    "INSERT INTO b.t SELECT i, (i * 7919) % 1000000, i / 3.0, 'user_' || i, 'cat_' || (i % 100) "
    "FROM range({rows}) r(i)"
)


def _build(session, rows: int) -> float:
    session.sql("CREATE DATABASE b")
    session.sql(DDL)
    start = time.perf_counter()
    session.sql(LOAD.format(rows=rows))
    return time.perf_counter() - start


def _measure(session, rows: int, reps: int) -> dict[str, dict[str, float]]:
    io = session.catalog.fileio
    out = {}
    for name, query in QUERIES.items():
        text = query.format(key=rows // 2)
        times, fetched, requests = [], 0, 0
        for _ in range(reps):
            before = (getattr(io, "bytes_fetched", 0), getattr(io, "requests", 0))
            start = time.perf_counter()
            session.sql(text).fetchall()
            times.append(time.perf_counter() - start)
            fetched = getattr(io, "bytes_fetched", 0) - before[0]
            requests = getattr(io, "requests", 0) - before[1]
        out[name] = {"seconds": min(times), "bytes_fetched": fetched, "requests": requests}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    server = S3Server()
    server.create_bucket("bench")
    result: dict[str, object] = {"rows": args.rows}
    with tempfile.TemporaryDirectory() as tmp:
        local = paimon_sql.connect(os.path.join(tmp, "wh"), create=True)
        remote = paimon_sql.connect("s3://bench/wh", create=True, storage_options=server.options())
        for name, session in (("local", local), ("s3", remote)):
            write = _build(session, args.rows)
            result[name] = {"write_seconds": write, **_measure(session, args.rows, args.reps)}
        io = remote.catalog.fileio
        data = [p for p in io.walk("s3://bench/wh") if "/bucket-" in p]
        result["s3_data_bytes"] = sum(io.file_size(p) for p in data)
        result["s3_data_files"] = len(data)
    server.stop()
    text = json.dumps(result, indent=2)
    print(text)
    out = Path(__file__).with_name("results") / "objectstore.json"
    out.write_text(text + "\n")


if __name__ == "__main__":
    main()
