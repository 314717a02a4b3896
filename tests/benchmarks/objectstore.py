"""Object store benchmark (issue 15): one primary-key table of 1M rows on the local S3 test server
(moto on 127.0.0.1) and on local disk: full read, count, point query, LIMIT 10 — seconds, bytes
fetched and requests sent. Not a test; nothing asserts a time.

    .venv/bin/python -m tests.benchmarks.objectstore [--rows 1000000] [--reps 3] [--java]

Two copies of the table: written by paimon-sql (``ours``), and with ``--java`` written by Apache
Paimon 0.9 through Spark (``java``; built once into ``<cache>/bench``, then uploaded) — Java's
Parquet files are one row group each, which no reader can skip. ``requests`` are counted by the
server (every HTTP request of the query, metadata included); ``bytes_fetched`` by the FileIO.

Writes ``results/objectstore.json``. moto keeps objects in memory and serves one request at a time,
so S3 times here are an upper bound of the Python overhead, not of a real network.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import paimon_sql
from paimon_sql.io.objectstore import ObjectStoreFileIO
from tests.objectstore._server import S3Server

QUERIES = {
    "full": "SELECT * FROM b.t",
    "count": "SELECT count(*) FROM b.t",
    "point": "SELECT * FROM b.t WHERE id = {key}",
    "limit10": "SELECT * FROM b.t LIMIT 10",
}
COLUMNS = "id BIGINT, i1 INT, d1 DOUBLE, s1 STRING, s2 STRING"
DDL = f"CREATE TABLE b.t ({COLUMNS}) WITH ('primary-key' = 'id', 'bucket' = '2')"
SPARK_DDL = (
    f"CREATE TABLE b.t ({COLUMNS}) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', "
    "'file.format' = 'parquet')"
)
LOAD = (
    "INSERT INTO b.t SELECT i, (i * 7919) % 1000000, i / 3.0, 'user_' || i, 'cat_' || (i % 100) "
    "FROM range({rows}) r(i)"
)
SPARK_LOAD = (
    "INSERT INTO b.t SELECT id, CAST((id * 7919) % 1000000 AS INT), id / 3.0, "
    "concat('user_', id), concat('cat_', id % 100) FROM range({rows})"
)


def _build(session, rows: int) -> float:
    session.sql("CREATE DATABASE b")
    session.sql(DDL)
    start = time.perf_counter()
    session.sql(LOAD.format(rows=rows))
    return time.perf_counter() - start


def _java_warehouse(rows: int) -> Path:
    """The table written by Apache Paimon 0.9 (Spark), built once into the bench cache."""
    from tests.interop.harness import cache_dir, spark_session, spark_sql

    done = cache_dir() / "bench" / f"objectstore-java-{rows}"
    if (done / "b.db" / "t" / "snapshot").is_dir():
        return done
    building = done.with_name(done.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    spark = spark_session(building)
    spark_sql(spark, "CREATE DATABASE b")
    spark_sql(spark, SPARK_DDL)
    spark_sql(spark, SPARK_LOAD.format(rows=rows))
    os.replace(building, done)
    return done


def _upload(server: S3Server, root: Path, uri: str) -> None:
    io = ObjectStoreFileIO(uri, server.options())
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")):
        io.write_bytes(f"{uri}/{path.relative_to(root).as_posix()}", path.read_bytes())


def _measure(session, server: S3Server | None, rows: int, reps: int) -> dict[str, dict[str, float]]:
    io = session.catalog.fileio
    out = {}
    for name, query in QUERIES.items():
        text = query.format(key=rows // 2)
        times, fetched, requests = [], 0, 0
        for _ in range(reps):
            before = getattr(io, "bytes_fetched", 0), server.app.requests if server else 0
            start = time.perf_counter()
            session.sql(text).fetchall()
            times.append(time.perf_counter() - start)
            fetched = getattr(io, "bytes_fetched", 0) - before[0]
            requests = (server.app.requests if server else 0) - before[1]
        out[name] = {"seconds": min(times), "bytes_fetched": fetched, "requests": requests}
    return out


def _data(server: S3Server, uri: str) -> dict[str, int]:
    io = ObjectStoreFileIO(uri, server.options())
    data = [p for p in io.walk(uri) if "/bucket-" in p]
    return {"data_bytes": sum(io.file_size(p) for p in data), "data_files": len(data)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--java", action="store_true", help="also a table written by Java")
    args = parser.parse_args()
    server = S3Server()
    server.create_bucket("bench")
    result: dict[str, object] = {"rows": args.rows}
    with tempfile.TemporaryDirectory() as tmp:
        local = paimon_sql.connect(os.path.join(tmp, "wh"), create=True)
        remote = paimon_sql.connect("s3://bench/wh", create=True, storage_options=server.options())
        ours: dict[str, object] = {}
        for name, session, srv in (("local", local, None), ("s3", remote, server)):
            write = _build(session, args.rows)
            ours[name] = {"write_seconds": write, **_measure(session, srv, args.rows, args.reps)}
        ours.update(_data(server, "s3://bench/wh"))
        result["ours"] = ours
        local.close()
        remote.close()
        if args.java:
            root = _java_warehouse(args.rows)
            _upload(server, root, "s3://bench/java")
            java: dict[str, object] = {}
            local = paimon_sql.connect(root)
            remote = paimon_sql.connect("s3://bench/java", storage_options=server.options())
            for name, session, srv in (("local", local, None), ("s3", remote, server)):
                java[name] = _measure(session, srv, args.rows, args.reps)
            java.update(_data(server, "s3://bench/java"))
            result["java"] = java
            local.close()
            remote.close()
    server.stop()
    text = json.dumps(result, indent=2)
    print(text)
    out = Path(__file__).with_name("results") / "objectstore.json"
    out.write_text(text + "\n")


if __name__ == "__main__":
    main()
