# ruff: noqa: S608 - the SQL is benchmark constants and generated numbers
"""Lookup-compaction benchmark (issue 18 item 2): upserts into one large bucket, side by side.

Tables that compact after every write (deletion vectors, first-row, ``changelog-producer`` =
lookup) used to merge the whole bucket for each write. This measures an upsert of k rows (half
existing keys, half new) into one bucket of `--rows` rows, for k in `--ks`:

* ``paimon-sql``: ``INSERT INTO db.t SELECT ...`` in a session, the write's APPEND commit and the
  lookup compaction's COMPACT commit included; each rep upserts other keys into the same table.
  Extra memory: the cell's peak RSS (``VmHWM``) minus its RSS before the first upsert (session
  open, table read once).
* ``duckdb floor``: what the upsert must do at least, in DuckDB over the same live Parquet files
  (found from the manifests by ``_files.py``, independent of paimon_sql): find the new keys in
  the files (a semi-join returning file name and row number: the rows a deletion vector marks)
  and write the new rows to a Parquet file. No Paimon metadata, no commit.
* ``pypaimon-rust`` 0.4.0 cannot take part: it writes primary-key tables without compaction
  (level-0 files only), so it can neither write deletion vectors nor make rows of first-row or
  lookup tables visible to batch reads (which hide level 0).

Tables: ``dv`` (``deletion-vectors.enabled``), ``first_row``, ``lookup`` (``changelog-producer`` =
lookup), one bucket each, written by paimon-sql; ``dv_java``: the read suite's ``dv`` table
(Apache Paimon 0.9 through Spark, 4 buckets, one large row group per file, `--rows`-independent:
``bench/rows-1000000``), when it exists. Every cell starts from a copy of the base table. After
the reps the whole table is read and compared with the rows computed in DuckDB from the same
generators (deduplicate: the upserted rows win; first-row: only new keys are added).

    .venv/bin/python -m tests.benchmarks.lookup [--rows 3000000] [--reps 3] [--ks 1,1000,100000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.benchmarks.workloads import DV
from tests.second_opinion import cache_dir

RESULTS = Path(__file__).resolve().parent / "results"
KINDS = {
    "dv": "'deletion-vectors.enabled' = 'true'",
    "first_row": "'merge-engine' = 'first-row'",
    "lookup": "'changelog-producer' = 'lookup'",
    # deletion vectors whose merge needs the kept record's values (the upserts set every column,
    # so the expected rows are the deduplicate ones)
    "dv_partial": "'deletion-vectors.enabled' = 'true', 'merge-engine' = 'partial-update'",
    "dv_str": "'deletion-vectors.enabled' = 'true'",  # a STRING key: 'key-' || the number
}
_BASE = "SELECT i * 2 AS id, CAST(i % 1000 AS INT) AS i1, 'user_' || i AS s1, i / 3.0 AS d1"
_JAVA_COLUMNS = "id, 1 AS i1, 2 AS i2, 0.5 AS d1, 0.5 AS d2, 'x' AS s1, 'y' AS s2"
#: Kinds whose key is a STRING: the id of `_BASE` / `_upsert_ids` as ``'key-' || id``.
STRING_KEYED = {"dv_str"}


def _keyed(kind: str, query: str) -> str:
    """`query` (a SELECT with an integer ``id`` first) with the id as `kind`'s key type."""
    if kind not in STRING_KEYED:
        return query
    return f"SELECT 'key-' || id AS id, * EXCLUDE (id) FROM ({query})"


def _upsert_ids(n: int, k: int, rep: int, java: bool) -> str:
    """The k ids of rep `rep`: k/2 existing keys (spread over the bucket), the rest new ones.

    Never the same id twice over all reps.
    """
    half = k // 2
    existing = f"((({rep} * {k} + j) * 7919) % {n})" + ("" if java else " * 2")
    new = f"{n * 2 + 1} + 2 * ({rep} * {k} + j)"
    return f"SELECT CASE WHEN j < {half} THEN {existing} ELSE {new} END AS id FROM range({k}) r(j)"


def _rss() -> tuple[int, int]:
    now = peak = 0
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                now = int(line.split()[1]) * 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
    return now, peak


def _cell(request: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: the reps of one (table, k) cell, then the full comparison."""
    import duckdb

    import paimon_sql

    warehouse, k, reps = request["warehouse"], request["k"], request["reps"]
    n, java, kind = request["n"], request["java"], request["kind"]
    name = request["table"]
    session = paimon_sql.connect(warehouse)
    session.sql(f"SELECT count(*) FROM {name}").fetchall()
    before, _ = _rss()
    seconds = []
    for rep in range(reps):
        ids = _keyed(kind, _upsert_ids(n, k, rep, java))
        columns = _JAVA_COLUMNS if java else f"id, -1 AS i1, 'u{rep}' AS s1, {rep}.0 AS d1"
        start = time.perf_counter()
        session.sql(f"INSERT INTO {name} SELECT {columns} FROM ({ids})")
        seconds.append(time.perf_counter() - start)
    _, peak = _rss()
    ours = session.sql(f"SELECT * FROM {name} ORDER BY id").to_arrow_table()
    session.close()
    same = None
    if not java:
        con = duckdb.connect()
        con.sql(f"CREATE TABLE base AS {_keyed(kind, f'{_BASE} FROM range({n}) r(i)')}")
        ups = " UNION ALL ".join(
            f"SELECT id, -1 AS i1, 'u{r}' AS s1, {r}.0 AS d1 "
            f"FROM ({_keyed(kind, _upsert_ids(n, k, r, java))})"
            for r in range(reps)
        )
        con.sql(f"CREATE TABLE ups AS {ups}")
        if kind == "first_row":  # the first version of a key stays
            expected = "SELECT * FROM base UNION ALL SELECT * FROM ups ANTI JOIN base USING (id)"
        else:  # the upserted version wins
            expected = "SELECT * FROM base ANTI JOIN ups USING (id) UNION ALL SELECT * FROM ups"
        want = con.sql(f"SELECT * FROM ({expected}) ORDER BY id").to_arrow_table()
        same = ours.cast(want.schema).equals(want)
    else:  # Java's table: the count (n rows + the new keys) and the upserted ids all present
        new_keys = sum(k - k // 2 for _ in range(reps))
        same = ours.num_rows == n + new_keys
    return {
        "seconds": seconds,
        "extra_mb": (peak - before) / 2**20,
        "rows": ours.num_rows,
        "same": same,
    }


def _floor(request: dict[str, Any]) -> dict[str, Any]:
    """DuckDB over the table's live files: find the k keys, write the k rows."""
    import duckdb

    from tests.benchmarks._files import live_files

    table = Path(request["table_path"])
    k, reps, n, java = request["k"], request["reps"], request["n"], request["java"]
    paths = [f.path for f in live_files(table).files if f.level > 0]
    con = duckdb.connect()
    out = tempfile.mkdtemp(prefix="floor-")
    seconds, found = [], []
    for rep in range(reps):
        ids = _keyed(request["kind"], _upsert_ids(n, k, rep, java))
        start = time.perf_counter()
        con.sql(f"CREATE OR REPLACE TEMP TABLE new_rows AS SELECT id, -1 AS i1 FROM ({ids})")
        hits = con.sql(
            f"SELECT filename, file_row_number FROM read_parquet({paths!r}, filename = true, "
            "file_row_number = true) f SEMI JOIN new_rows USING (id)"
        ).fetchall()
        con.sql(f"COPY (SELECT * FROM new_rows ORDER BY id) TO '{out}/rep{rep}.parquet'")
        seconds.append(time.perf_counter() - start)
        found.append(len(hits))
    shutil.rmtree(out, ignore_errors=True)
    return {"seconds": seconds, "found": found}


def _run_child(function: str, request: dict[str, Any], module: str = "lookup") -> dict[str, Any]:
    """`module.function(request)` in a fresh interpreter (its own peak RSS); its JSON result."""
    code = (
        f"import json, sys; from tests.benchmarks import {module}; "
        f"print(json.dumps({module}.{function}(json.loads(sys.argv[1]))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(request)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-3:]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _build(root: Path, kind: str, n: int) -> Path:
    """The base warehouse of `kind` with `n` rows in one bucket (built once, then reused)."""
    import paimon_sql

    warehouse = root / kind
    if (warehouse / "done").exists():
        return warehouse
    shutil.rmtree(warehouse, ignore_errors=True)
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    key_type = "STRING" if kind in STRING_KEYED else "BIGINT"
    session.sql(
        f"CREATE TABLE db.t (id {key_type} NOT NULL, i1 INT, s1 STRING, d1 DOUBLE, PRIMARY KEY "
        f"(id) NOT ENFORCED) WITH ('bucket' = '1', {KINDS[kind]})"
    )
    start = time.perf_counter()
    session.sql(f"INSERT INTO db.t {_keyed(kind, f'{_BASE} FROM range({n}) r(i)')}")
    print(f"built {kind}: {n} rows in {time.perf_counter() - start:.1f} s", flush=True)
    session.close()
    (warehouse / "done").write_text("ok")
    return warehouse


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--ks", default="1,1000,100000")
    parser.add_argument("--kinds", default="dv,first_row,lookup,dv_java")
    parser.add_argument("--output", type=Path, default=RESULTS / "lookup.json")
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.ks.split(",")]
    root = cache_dir() / "bench" / f"lookup-{args.rows}"
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="lookup-", dir=cache_dir() / "bench"))
    results: list[dict[str, Any]] = []
    try:
        for kind in args.kinds.split(","):
            java = kind == "dv_java"
            if java:
                source = cache_dir() / "bench" / "rows-1000000" / "warehouse"
                if not (source / "bench.db" / DV).exists():
                    print("dv_java: no bench/rows-1000000 (run the read suite once); skipped")
                    continue
                n, name, rel = 1_000_000, f'"bench"."{DV}"', Path("bench.db") / DV
            else:
                source, n, name, rel = (
                    _build(root, kind, args.rows),
                    args.rows,
                    "db.t",
                    Path("db.db") / "t",
                )
            for k in ks:
                copy = scratch / f"{kind}-{k}"
                shutil.copytree(source, copy)
                request = {
                    "warehouse": str(copy), "k": k, "reps": args.reps, "n": n, "java": java,
                    "kind": kind, "table": name, "table_path": str(copy / rel),
                }  # fmt: skip
                floor = _run_child("_floor", request)
                ours = _run_child("_cell", request)
                shutil.rmtree(copy, ignore_errors=True)
                row = {"table": kind, "n": n, "k": k, "paimon_sql": ours, "duckdb_floor": floor}
                results.append(row)
                _print(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        json.dumps({"rows": args.rows, "reps": args.reps, "results": results}, indent=1)
    )
    print(f"wrote {args.output}")


def _print(row: dict[str, Any]) -> None:
    ours, floor = row["paimon_sql"], row["duckdb_floor"]
    if "error" in ours or "error" in floor:
        print(f"{row['table']:10} k={row['k']:>6}: error {ours.get('error')} {floor.get('error')}")
        return
    med, fmed = statistics.median(ours["seconds"]), statistics.median(floor["seconds"])
    print(
        f"{row['table']:10} n={row['n']:>8} k={row['k']:>6}: paimon-sql {med * 1000:8.1f} ms "
        f"(reps {', '.join(f'{s * 1000:.0f}' for s in ours['seconds'])}), extra "
        f"{ours['extra_mb']:6.1f} MB, rows {'same' if ours['same'] else 'DIFFERENT'}; "
        f"duckdb floor {fmed * 1000:7.1f} ms; ratio {med / fmed:5.1f}x",
        flush=True,
    )


if __name__ == "__main__":
    main()
