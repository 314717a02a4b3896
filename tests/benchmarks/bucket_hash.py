"""The SQL bucket hash: expression size, build, SQL generation, bind and 1M-row hashing time.

Not a test (pytest does not collect it). Compares the working tree's `bucket_expression` with the
one of a git revision, in the same run, so a busy machine slows both alike::

    .venv/bin/python -m tests.benchmarks.bucket_hash              # against HEAD
    .venv/bin/python -m tests.benchmarks.bucket_hash --rev 58b3a68 --reps 3
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
from sqlglot import exp

from paimon_sql.types import parse_type
from paimon_sql.write import bucket

if TYPE_CHECKING:
    from types import ModuleType

KEYS = {
    "INT": [("i", "INT")],
    "BIGINT": [("b", "BIGINT")],
    "STRING": [("s", "STRING")],
    "STRING,INT": [("s", "STRING"), ("i", "INT")],
    "STRING,STRING": [("s", "STRING"), ("t", "STRING")],
}

#: Mixed lengths (0, ≤ 7, > 7 bytes, multi-byte UTF-8) and NULLs.
TABLE = (
    "CREATE OR REPLACE TABLE m AS SELECT (i * 7)::INT AS i, (i * 7919)::BIGINT AS b, "
    "CASE i % 10 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'é€😀ab' "
    "WHEN 3 THEN 'k' || (i % 1000) ELSE 'user_' || i END AS s, "
    "repeat('ü', (i % 13)::INT) || i AS t FROM range(1000000) r(i)"
)


def old_module(rev: str) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{rev}:paimon_sql/write/bucket.py"], check=True, capture_output=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_bucket.py"
    path.write_bytes(source)
    sys.path.insert(0, str(path.parent))
    import old_bucket  # type: ignore[import-not-found]

    return old_bucket


def measure(module: Any, con: duckdb.DuckDBPyConnection, key: list[tuple[str, str]]) -> dict:
    cols = [(exp.column(name), parse_type(t)) for name, t in key]
    getattr(module, "_RENDERED", {}).clear()  # the first statement's cost, not the cached one
    start = time.perf_counter()
    e = module.bucket_expression(cols, 2)
    built = time.perf_counter()
    sql = e.sql("duckdb")
    generated = time.perf_counter()
    text = f"SELECT SUM({sql}) FROM m"  # noqa: S608 (a benchmark: the generated text as is)
    bind_start = time.perf_counter()
    con.execute("PREPARE q AS " + text)
    bound = time.perf_counter()
    (total,) = con.execute(text).fetchone()
    ran = time.perf_counter()
    return {
        "size": len(sql),
        "build": built - start,
        "sql": generated - built,
        "bind": bound - bind_start,
        "run": ran - bound,
        "sum": total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rev", default="HEAD", help="git revision of the old bucket.py")
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    old = old_module(args.rev)
    con = duckdb.connect()
    con.execute(TABLE)
    print(f"{'key':<14} {'impl':<4} {'size':>7} {'build':>6} {'sql':>6} {'bind':>6} {'1M run':>7}")
    for name, key in KEYS.items():
        for label, module in (("old", old), ("new", bucket)):
            runs = [measure(module, con, key) for _ in range(args.reps)]
            best = {k: min(r[k] for r in runs) for k in ("build", "sql", "bind", "run")}
            size, total = runs[0]["size"], runs[0]["sum"]
            print(
                f"{name:<14} {label:<4} {size:>7} {best['build']:>6.3f} "
                f"{best['sql']:>6.3f} {best['bind']:>6.3f} {best['run']:>7.3f}  sum={total}"
            )


if __name__ == "__main__":
    main()
