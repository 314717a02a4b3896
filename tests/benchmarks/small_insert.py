# ruff: noqa: S608 - the SQL is benchmark constants and generated numbers
"""Small INSERTs into a table of several fixed buckets (issue 18 item 2): the bucket hash's cost.

    .venv/bin/python -m tests.benchmarks.small_insert [--rows 100000] [--buckets 8] [--reps 9]

``--buckets -1``: a dynamic-bucket table (its key hashes: in Python for an input small by its shape
or by DuckDB's estimate, else the SQL hash expression).

A primary-key table keyed by a STRING (``'key-' || i``) with `--buckets` buckets and `--rows`
rows; then ``INSERT … VALUES`` of 1 and of 100 new keys and ``INSERT … SELECT`` of 100 and of
4,000 new keys from ``range``, `--reps` times each, statement time (wall and CPU, median). Each
runs twice, alternating: with the buckets hashed in Python (what an input that ends within
`paimon_sql.write.bucket.SMALL_INPUT_ROWS` rows gets) and with DuckDB's hash expression (what
larger inputs get). The table's rows are then compared in full with the keys inserted.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from typing import Any

import paimon_sql
from paimon_sql.write import writer
from paimon_sql.write.writer import TableWriter


def run(rows: int, buckets: int, reps: int) -> dict[str, Any]:
    session = paimon_sql.connect(tempfile.mkdtemp(prefix="small-insert-"))
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id STRING NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '{buckets}')"
    )
    session.sql(f"INSERT INTO db.t SELECT 'key-' || i, i::INT FROM range({rows}) r(i)")
    python_path = TableWriter._python_buckets
    estimate, shape_of = TableWriter._probably_few, vars(writer)["few_rows"]
    out: dict[str, Any] = {}
    inserted = 0
    for shape, n in (("values", 1), ("values", 100), ("select", 100), ("select", 4000)):
        times: dict[str, list[tuple[float, float]]] = {"python": [], "duckdb": []}
        for rep in range(reps):
            for how in ("python", "duckdb"):
                if how == "duckdb":  # fixed buckets: by the count; dynamic: by shape or estimate
                    TableWriter._python_buckets = lambda self: False  # type: ignore[method-assign]
                    TableWriter._probably_few = lambda self, source: False  # type: ignore[method-assign]
                    vars(writer)["few_rows"] = lambda source, limit: False
                tag = f"new-{how}-{shape}-{n}-{rep}"
                if shape == "values":
                    values = ", ".join(f"('{tag}-{j}', {j})" for j in range(n))
                    statement = f"INSERT INTO db.t VALUES {values}"
                else:
                    statement = (
                        f"INSERT INTO db.t SELECT '{tag}-' || i, i::INT FROM range({n}) r(i)"
                    )
                c0, t0 = time.process_time(), time.perf_counter()
                session.sql(statement)
                times[how].append((time.perf_counter() - t0, time.process_time() - c0))
                TableWriter._python_buckets = python_path  # type: ignore[method-assign]
                TableWriter._probably_few = estimate  # type: ignore[method-assign]
                vars(writer)["few_rows"] = shape_of
                inserted += n
        out[f"{shape}_{n}_rows"] = {
            how: {
                "wall_ms": statistics.median(w for w, _ in ts) * 1e3,
                "cpu_ms": statistics.median(c for _, c in ts) * 1e3,
            }
            for how, ts in times.items()
        }
        print(
            f"INSERT {shape} of {n:4d} row(s): "
            + "  ".join(
                f"{how} {cell['wall_ms']:.1f} ms (cpu {cell['cpu_ms']:.1f})"
                for how, cell in out[f"{shape}_{n}_rows"].items()
            ),
            flush=True,
        )
    ((count, distinct),) = session.sql("SELECT count(*), count(DISTINCT id) FROM db.t").fetchall()
    out["same"] = count == distinct == rows + inserted
    print(f"rows {count}, distinct keys {distinct}, expected {rows + inserted}: {out['same']}")
    session.close()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--buckets", type=int, default=8)
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args(argv)
    run(args.rows, args.buckets, args.reps)


if __name__ == "__main__":
    main()
