# ruff: noqa: S608 - the SQL is benchmark constants and generated numbers
"""1-row DELETEs by a key written as a constant expression, beside the same key as a literal.

    .venv/bin/python -m tests.benchmarks.constant_keys [--rows 100000] [--buckets 4] [--reps 10]

A primary-key table (BIGINT key, `--buckets` fixed buckets, `--rows` rows); each rep deletes one
existing key per spelling (``a = k``, ``a = 20000 + (k - 20000)``, ``a = CAST('k' AS BIGINT)``,
``a = 2k // 2``, ``a IN (CAST(…), …)``), the spellings interleaved so the table grows alike for
all. Statement time (wall and CPU, median) and the files the last DELETE of each spelling read
(``session.last_plan``): a spelling that prunes as the literal does reads as few.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from typing import TYPE_CHECKING, Any

import paimon_sql

if TYPE_CHECKING:
    from collections.abc import Callable

SPELLINGS: dict[str, Callable[[int], str]] = {
    "literal": lambda k: f"a = {k}",
    "20000 + n": lambda k: f"a = 20000 + {k - 20000}",
    "CAST('k' AS BIGINT)": lambda k: f"a = CAST('{k}' AS BIGINT)",
    "2k // 2": lambda k: f"a = {2 * k} // 2",
    "IN (CAST, //)": lambda k: f"a IN (CAST('{k}' AS BIGINT), {2 * k + 2} // 2)",
}


def run(rows: int, buckets: int, reps: int) -> dict[str, Any]:
    session = paimon_sql.connect(tempfile.mkdtemp(prefix="constant-keys-"))
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (a BIGINT NOT NULL, v VARCHAR, PRIMARY KEY (a) NOT ENFORCED) "
        f"WITH ('bucket' = '{buckets}')"
    )
    session.sql(f"INSERT INTO db.t SELECT i, 'v' || i FROM range({rows}) r(i)")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in SPELLINGS}
    files: dict[str, int] = {}
    deleted = 0
    step = rows // (reps * len(SPELLINGS) * 2)
    for rep in range(reps):
        for j, (name, where) in enumerate(SPELLINGS.items()):
            key = rows // 5 + step * (rep * len(SPELLINGS) + j)
            c0, t0 = time.process_time(), time.perf_counter()
            ((n,),) = session.sql(f"DELETE FROM db.t WHERE {where(key)}").fetchall()
            times[name].append((time.perf_counter() - t0, time.process_time() - c0))
            plan = session.last_plan("db.t")
            files[name] = sum(len(s.files) for s in plan.splits) if plan else -1
            deleted += n
    out: dict[str, Any] = {}
    for name, ts in times.items():
        out[name] = {
            "wall_ms": statistics.median(w for w, _ in ts) * 1e3,
            "cpu_ms": statistics.median(c for _, c in ts) * 1e3,
            "files_read": files[name],
        }
        cell = out[name]
        print(
            f"DELETE WHERE {name:22s} {cell['wall_ms']:6.1f} ms (cpu {cell['cpu_ms']:5.1f}), "
            f"last one read {cell['files_read']} file(s)",
            flush=True,
        )
    ((count,),) = session.sql("SELECT count(*) FROM db.t").fetchall()
    out["same"] = count == rows - deleted
    print(f"rows {count}, expected {rows - deleted}: {out['same']}")
    session.close()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--buckets", type=int, default=4)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args(argv)
    run(args.rows, args.buckets, args.reps)


if __name__ == "__main__":
    main()
