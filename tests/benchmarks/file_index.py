# ruff: noqa: S608 - the SQL is benchmark constants and generated numbers
"""File-index benchmark (issue 18 item 3): point queries on indexed non-key columns, side by side.

One append table of `--rows` rows written in 10 commits (10 data files), twice: with a bloom filter
on an md5 string column and a bitmap on an INT column (``indexed``), and without (``plain``).
Each point query runs on both tables in paimon-sql and as DuckDB's raw ``read_parquet`` over the
plain table's files (the floor: no Paimon metadata at all). Prints medians and ratios, writes
``results/file-index.json``. Not a test; nothing asserts a time.

    .venv/bin/python -m tests.benchmarks.file_index [--rows 1000000] [--reps 7]
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

import paimon_sql

if TYPE_CHECKING:
    from collections.abc import Callable

RESULTS = Path(__file__).resolve().parent / "results"
OPTIONS = (
    "'file-index.bloom-filter.columns' = 's', 'file-index.bitmap.columns' = 'c', "
    "'file-index.in-manifest-threshold' = '1 b'"
)
FILES = 10


def _build(session: paimon_sql.Session, rows: int) -> None:
    session.sql("CREATE DATABASE b")
    session.sql(f"CREATE TABLE b.indexed (id BIGINT, c INT, s STRING) WITH ({OPTIONS})")
    session.sql("CREATE TABLE b.plain (id BIGINT, c INT, s STRING)")
    per = rows // FILES
    for f in range(FILES):
        # c: every file spans 0..9999 (statistics prune nothing) but holds only values = f mod 10,
        # so a bitmap rules files out; s: md5 strings, each in one file
        source = (
            f"SELECT i, CAST(i % 1000 * 10 + {f} AS INT), md5(CAST(i AS VARCHAR)) "
            f"FROM range({f * per}, {(f + 1) * per}) AS r(i)"
        )
        for table in ("indexed", "plain"):
            session.sql(f"INSERT INTO b.{table} {source}")


def _fetch(run: Callable[[str], Any], query: str) -> object:
    return run(query).fetchall()


def _median(run: Callable[[], object], reps: int) -> float:
    run()  # warm
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Build the two tables, time the point queries, print and save the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    warehouse = tempfile.mkdtemp(prefix="bench-file-index-")
    session = paimon_sql.connect(warehouse, create=True)
    _build(session, args.rows)
    key = args.rows // 2 + 7
    md5 = hashlib.md5(str(key).encode()).hexdigest()
    plain_files = sorted(
        glob.glob(os.path.join(warehouse, "b.db", "plain", "bucket-0", "*.parquet"))
    )
    floor = duckdb.connect()
    queries = {"bloom (s = md5)": f"s = '{md5}'", "bitmap (c = v)": f"c = {17 * 10 + 5}"}
    results = []
    for label, where in queries.items():
        expected = session.sql(f"SELECT count(*) FROM b.plain WHERE {where}").fetchall()
        for table in ("indexed", "plain"):
            got = session.sql(f"SELECT count(*) FROM b.{table} WHERE {where}").fetchall()
            assert got == expected, (table, got, expected)
        explain = session.sql(f"EXPLAIN SELECT * FROM b.indexed WHERE {where}").fetchall()
        skipped = next(
            (line for row in explain for line in str(row).split("\\n") if "file index" in line), ""
        )
        indexed_sql = f"SELECT * FROM b.indexed WHERE {where}"
        plain_sql = f"SELECT * FROM b.plain WHERE {where}"
        floor_sql = f"SELECT * FROM read_parquet({plain_files!r}) WHERE {where}"
        cells = {
            "paimon-sql, indexed": _median(partial(_fetch, session.sql, indexed_sql), args.reps),
            "paimon-sql, no index": _median(partial(_fetch, session.sql, plain_sql), args.reps),
            "duckdb read_parquet (floor)": _median(
                partial(_fetch, floor.sql, floor_sql), args.reps
            ),
        }
        results.append(
            {
                "query": label,
                "rows": args.rows,
                "files": FILES,
                "seconds": cells,
                "explain": skipped,
            }
        )
        indexed = cells["paimon-sql, indexed"]
        print(f"{label}: {skipped.strip()}")
        for name, seconds in cells.items():
            print(f"  {name:28s} {seconds * 1000:8.1f} ms   indexed/this {indexed / seconds:5.2f}x")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "file-index.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
