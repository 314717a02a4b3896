# ruff: noqa: S608 - the SQL is benchmark constants and generated numbers
"""Upsert cost curve (issue 18 item 2): k keys into one bucket of n rows, cold and warm.

For each n in `--rows` and k in `--ks`, in a fresh process over a fresh copy of the base table
(one bucket, written by paimon-sql, as in `tests.benchmarks.lookup`):

* ``cold``: the session's first upsert (the session has only read ``count(*)``): the key lookup
  decodes the key columns of the row groups the k keys fall in, and keeps them;
* ``warm``: `--reps` more upserts of other keys in the same session (median): the cached key
  columns are searched, and only the rows the new records replace are marked.

Time is the ``INSERT`` statement (write, APPEND commit, lookup compaction, COMPACT commit), and
apart the key lookup's own share of it (time in ``KeyLookup.find``: footers, key columns
decoded or searched).
Extra memory is the peak RSS (``VmHWM``, reset through ``/proc/self/clear_refs`` before the warm
reps) minus the RSS before the statement(s). The DuckDB floor is `tests.benchmarks.lookup`'s:
a semi-join of the k keys with the live files' key column (file name and row number: what a
deletion vector marks) plus a ``COPY`` of the k rows, median of `--reps`. After the reps the whole
table is read and compared in full with the rows DuckDB computes from the same generators.

    .venv/bin/python -m tests.benchmarks.lookup_curve [--rows 1000000,3000000,10000000]
        [--ks 1,10,100,1000,10000] [--kinds dv,dv_str] [--reps 3]

Kinds (`tests.benchmarks.lookup.KINDS`): ``dv``, ``first_row``, ``lookup`` (changelog producer),
``dv_partial`` (deletion vectors, partial-update: the kept rows' values are merged), ``dv_str``
(the ``dv`` table with a STRING key, ``'key-' || id``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.benchmarks.lookup import _BASE, _build, _keyed, _rss, _run_child, _upsert_ids
from tests.second_opinion import cache_dir

RESULTS = Path(__file__).resolve().parent / "results"


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as fh:  # "5": reset the peak RSS (VmHWM)
        fh.write("5")


def _curve_cell(request: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: one cold upsert, then `reps` warm ones, then the full comparison."""
    import duckdb

    import paimon_sql

    warehouse, k, reps, n, kind = (
        request["warehouse"], request["k"], request["reps"], request["n"], request["kind"]
    )  # fmt: skip
    session = paimon_sql.connect(warehouse)
    session.sql("SELECT count(*) FROM db.t").fetchall()
    lookup = session.engine.key_lookup
    spent = [0.0]
    method = "find" if hasattr(lookup, "find") else "positions"  # older code: positions only
    find = getattr(lookup, method)

    def timed_find(*args: Any) -> Any:  # the key lookup's own share of a statement
        start = time.perf_counter()
        try:
            return find(*args)
        finally:
            spent[0] += time.perf_counter() - start

    setattr(lookup, method, timed_find)

    def upsert(rep: int) -> float:
        ids = _keyed(kind, _upsert_ids(n, k, rep, False))
        start = time.perf_counter()
        session.sql(
            f"INSERT INTO db.t SELECT id, -1 AS i1, 'u{rep}' AS s1, {rep}.0 AS d1 FROM ({ids})"
        )
        return time.perf_counter() - start

    _reset_peak()
    before, _ = _rss()
    cold = upsert(0)
    _, peak = _rss()
    cold_mb = (peak - before) / 2**20
    cold_lookup, after_cold = spent[0], lookup.stats()
    _reset_peak()
    before, _ = _rss()
    warm, warm_lookup = [], []
    for rep in range(1, reps + 1):
        spent[0] = 0.0
        warm.append(upsert(rep))
        warm_lookup.append(spent[0])
    _, peak = _rss()
    warm_mb = (peak - before) / 2**20
    stats = session.engine.key_lookup.stats()
    ours = session.sql("SELECT * FROM db.t ORDER BY id").to_arrow_table()
    session.close()
    con = duckdb.connect()
    con.sql(f"CREATE TABLE base AS {_keyed(kind, f'{_BASE} FROM range({n}) r(i)')}")
    ups = " UNION ALL ".join(
        f"SELECT id, -1 AS i1, 'u{r}' AS s1, {r}.0 AS d1 "
        f"FROM ({_keyed(kind, _upsert_ids(n, k, r, False))})"
        for r in range(reps + 1)
    )
    con.sql(f"CREATE TABLE ups AS {ups}")
    if kind == "first_row":
        expected = "SELECT * FROM base UNION ALL SELECT * FROM ups ANTI JOIN base USING (id)"
    else:
        expected = "SELECT * FROM base ANTI JOIN ups USING (id) UNION ALL SELECT * FROM ups"
    want = con.sql(f"SELECT * FROM ({expected}) ORDER BY id").to_arrow_table()
    return {
        "cold_seconds": cold,
        "cold_lookup_seconds": cold_lookup,
        "cold_extra_mb": cold_mb,
        "warm_seconds": warm,
        "warm_lookup_seconds": warm_lookup,
        "warm_extra_mb": warm_mb,
        "key_cache_after_cold": after_cold,
        "key_cache": stats,
        "rows": ours.num_rows,
        "same": ours.cast(want.schema).equals(want),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1000000,3000000,10000000")
    parser.add_argument("--ks", default="1,10,100,1000,10000")
    parser.add_argument("--kinds", default="dv")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--output", type=Path, default=RESULTS / "lookup-curve.json")
    parser.add_argument("--label", default="", help="a note stored with the results")
    args = parser.parse_args(argv)
    results: list[dict[str, Any]] = []
    load = [os.getloadavg()[0]]
    for n in (int(v) for v in args.rows.split(",")):
        root = cache_dir() / "bench" / f"lookup-{n}"
        root.mkdir(parents=True, exist_ok=True)
        for kind in args.kinds.split(","):
            source = _build(root, kind, n)
            for k in (int(v) for v in args.ks.split(",")):
                scratch = Path(tempfile.mkdtemp(prefix="curve-", dir=cache_dir() / "bench"))
                try:
                    copy = scratch / "w"
                    shutil.copytree(source, copy)
                    request = {
                        "warehouse": str(copy), "k": k, "reps": args.reps, "n": n,
                        "java": False, "kind": kind, "table": "db.t",
                        "table_path": str(copy / "db.db" / "t"),
                    }  # fmt: skip
                    floor = _run_child("_floor", request)
                    ours = _run_child("_curve_cell", request, module="lookup_curve")
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                load.append(os.getloadavg()[0])
                row = {"table": kind, "n": n, "k": k, "paimon_sql": ours, "duckdb_floor": floor}
                results.append(row)
                _print(row)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        json.dumps(
            {
                "label": args.label,
                "reps": args.reps,
                "load_1min": [round(v, 2) for v in load],
                "results": results,
            },
            indent=1,
        )
    )
    print(f"wrote {args.output}")


def _print(row: dict[str, Any]) -> None:
    ours, floor = row["paimon_sql"], row["duckdb_floor"]
    if "error" in ours or "error" in floor:
        print(f"{row['table']} n={row['n']} k={row['k']}: error {ours.get('error')} {floor}")
        return
    warm, fmed = statistics.median(ours["warm_seconds"]), statistics.median(floor["seconds"])
    print(
        f"{row['table']:9} n={row['n']:>8} k={row['k']:>5}: cold {ours['cold_seconds'] * 1e3:7.0f}"
        f" ms +{ours['cold_extra_mb']:5.0f} MB; warm {warm * 1e3:6.0f} ms "
        f"({', '.join(f'{s * 1e3:.0f}' for s in ours['warm_seconds'])}) "
        f"+{ours['warm_extra_mb']:5.0f} MB; lookup cold "
        f"{ours['cold_lookup_seconds'] * 1e3:5.1f} warm "
        f"{statistics.median(ours['warm_lookup_seconds']) * 1e3:5.1f} ms; "
        f"floor {fmed * 1e3:6.0f} ms; "
        f"rows {'same' if ours['same'] else 'DIFFERENT'}",
        flush=True,
    )


if __name__ == "__main__":
    main()
