"""Write benchmarks (issue 4), run with ``python -m tests.benchmarks.run --suite write``.

paimon-sql writes with ``INSERT INTO bench.t SELECT * FROM <arrow>`` per commit; pypaimon-rust and
pypaimon with their write APIs. Every writer's seconds are measured inside its own process (Arrow
input already in memory; no interpreter start-up, imports or IPC decoding).

Cases, each into a fresh table (``--rows N``: N-row load, then an N/5-row upsert):

* ``pk_fixed8_load`` / ``pk_fixed8_upsert``: PK table, 8 fixed buckets (issue 18; 4 before).
* ``pk_dynamic_load`` / ``pk_dynamic_upsert``: PK table, dynamic bucket (``bucket=-1``).
* ``append_load``: append table (``bucket=-1``); ``--rows 10000000`` for the 10M case.

Peak memory: each case's load is written once more by paimon-sql in a fresh subprocess, straight
from the input Parquet file (``INSERT INTO .. SELECT * FROM read_parquet(..)``, default
``write-buffer-size`` 256 MB), reporting its ``ru_maxrss`` (interpreter and libraries included) and
seconds.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq

from tests.benchmarks import _data, _tables
from tests.second_opinion import SecondOpinionError, cache_dir, versions, write_with

if TYPE_CHECKING:
    import argparse

    import pyarrow as pa

CASES: dict[str, dict[str, Any]] = {
    "pk_fixed8": {"primary_keys": ["id"], "options": {"bucket": "8", "file.format": "parquet"}},
    "pk_dynamic": {"primary_keys": ["id"], "options": {"bucket": "-1", "file.format": "parquet"}},
    "append": {"primary_keys": [], "options": {"bucket": "-1", "file.format": "parquet"}},
}
WRITERS = ("paimon-sql", "pypaimon-rust", "pypaimon")


def _paimon_sql_write(case: str, commits: list[pa.Table]) -> list[float]:
    """paimon-sql: one ``INSERT INTO bench.<case> SELECT * FROM <arrow>`` per commit.

    Timed in-process.
    """
    import time
    from types import MappingProxyType

    import paimon_sql
    from paimon_sql.catalog import Identifier
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.types import DataField, parse_type

    spec = CASES[case]
    fields = tuple(
        DataField(id=i, name=n, type=parse_type(t)) for i, (n, t) in enumerate(_data.COLUMNS)
    )
    schema = TableSchema(
        id=0,
        fields=fields,
        highest_field_id=len(fields) - 1,
        primary_keys=tuple(spec["primary_keys"]),
        options=MappingProxyType(dict(spec["options"])),
    )
    scratch = cache_dir() / "bench" / "write-scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    warehouse = tempfile.mkdtemp(prefix=f"{case}-sql-", dir=scratch)
    try:
        session = paimon_sql.connect(warehouse)
        session.catalog.create_database("bench")
        session.catalog.create_table(Identifier("bench", case), schema)
        seconds = []
        for i, commit in enumerate(commits):
            name = f"input_{i}"
            session.con.register(name, commit)
            start = time.perf_counter()
            session.sql(f"INSERT INTO bench.{case} SELECT * FROM {name}")  # noqa: S608 - fixed names
            seconds.append(time.perf_counter() - start)
        session.close()
        return seconds
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)


def _one_run(writer: str, case: str, commits: list[pa.Table]) -> list[float]:
    if writer == "paimon-sql":
        return _paimon_sql_write(case, commits)
    spec = CASES[case]
    create = {"columns": list(_data.COLUMNS), **spec}
    scratch = cache_dir() / "bench" / "write-scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    warehouse = tempfile.mkdtemp(prefix=f"{case}-", dir=scratch)
    try:
        return write_with(writer, warehouse, f"bench.{case}", commits, create=create)  # type: ignore[arg-type]
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)


def _cell(writer: str, case: str, commits: list[pa.Table], reps: int) -> list[dict[str, Any]]:
    """Per commit of ``case``: best/median seconds over ``reps`` fresh-table runs."""
    try:
        runs = [_one_run(writer, case, commits) for _ in range(reps)]
    except NotImplementedError as err:
        return [{"na": str(err)}] * len(commits)
    except SecondOpinionError as err:
        return [{"error": str(err).strip().splitlines()[-1][:300]}] * len(commits)
    per_commit = list(zip(*runs, strict=True))
    return [{"best": min(s), "median": statistics.median(s), "reps": len(s)} for s in per_commit]


_RSS_SCRIPT = """
import json, resource, sys, time
import paimon_sql
warehouse, ddl, source = sys.argv[1], sys.argv[2], sys.argv[3]
session = paimon_sql.connect(warehouse, create=True)
session.sql("CREATE DATABASE bench")
session.sql(ddl)
before = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
session.sql("INSERT INTO bench.t SELECT * FROM read_parquet('" + source + "')")
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)  # CPU seconds: steadier than wall on a busy box
cpu = usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec, so it would report the parent's size.
peak = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:"))
print("RESULT " + json.dumps({"seconds": seconds, "cpu_seconds": cpu, "peak_rss_mb": peak / 1024}))
"""


def _ddl(case: str) -> str:
    spec = CASES[case]
    columns = [f"{n} {t}" for n, t in _data.COLUMNS]
    if spec["primary_keys"]:
        columns.append(f"PRIMARY KEY ({', '.join(spec['primary_keys'])}) NOT ENFORCED")
    options = ", ".join(f"'{k}' = '{v}'" for k, v in spec["options"].items())
    return f"CREATE TABLE bench.t ({', '.join(columns)}) WITH ({options})"


def peak_rss(case: str, source: str) -> dict[str, Any]:
    """paimon-sql writes `source` (a Parquet file) into a fresh ``case`` table in a subprocess: its
    peak RSS (MB) and seconds."""
    scratch = cache_dir() / "bench" / "write-scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    warehouse = tempfile.mkdtemp(prefix=f"{case}-rss-", dir=scratch)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _RSS_SCRIPT, warehouse, _ddl(case), source],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)
    found = re.findall(r"RESULT (\{[^}]*\})", proc.stdout)  # DuckDB's progress bar shares stdout
    if proc.returncode or not found:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
        return {"error": f"exit {proc.returncode}: {last}"}
    return dict(json.loads(found[-1]))


def run_writes(args: argparse.Namespace) -> dict[str, Any]:
    base_path, upsert_path = _tables.inputs(args.rows)
    base, upsert = pq.read_table(base_path), pq.read_table(upsert_path)
    writers = [w for w in WRITERS if not (args.skip_slow and w == "pypaimon")]
    results: dict[str, dict[str, Any]] = {}
    for case in CASES:
        commits = [base] if case == "append" else [base, upsert]
        names = ["append_load"] if case == "append" else [f"{case}_load", f"{case}_upsert"]
        for name in names:
            results[name] = {}
        for writer in writers:
            print(f"[bench] write {case} / {writer} ...", file=sys.stderr, flush=True)
            reps = args.pypaimon_reps if writer == "pypaimon" else args.reps
            for name, cell in zip(names, _cell(writer, case, commits, reps), strict=True):
                results[name][writer] = cell
    print(_render(results, writers))
    memory = {}
    for case in CASES:
        print(
            f"[bench] write {case} / paimon-sql peak RSS from Parquet ...",
            file=sys.stderr,
            flush=True,
        )
        memory[f"{case}_load"] = peak_rss(case, str(base_path))
    print(
        "paimon-sql load from Parquet: "
        + ", ".join(
            f"{name} {m.get('peak_rss_mb', 0):.0f} MB / {m.get('seconds', 0):.2f} s"
            if "error" not in m
            else f"{name} error: {m['error']}"
            for name, m in memory.items()
        )
    )
    return {
        "suite": "write",
        "rows": args.rows,
        "upsert_rows": upsert.num_rows,
        "reps": args.reps,
        "paimon_sql_peak_rss_from_parquet": memory,
        "writers": {w: versions(w) for w in writers if w != "paimon-sql"},  # type: ignore[arg-type]
        "results": results,
    }


def _fmt(cell: dict[str, Any]) -> str:
    if "na" in cell:
        return "n/a"
    if "error" in cell:
        return "error"
    return f"{cell['best']:.3f}/{cell['median']:.3f}"


def _render(results: dict[str, dict[str, Any]], writers: list[str]) -> str:
    lines = ["write seconds best/median", "case".ljust(20) + "".join(w.rjust(16) for w in writers)]
    for name, row in results.items():
        lines.append(name.ljust(20) + "".join(_fmt(row[w]).rjust(16) for w in writers))
    errors = [
        f"  {n} / {w}: {c['error']}"
        for n, row in results.items()
        for w, c in row.items()
        if "error" in c
    ]
    return "\n".join(lines + (["", "errors:", *errors] if errors else []))


# --- the PySpark writer (issue 13): one Spark session, local[2] -----------------------------------

#: targets of issue 13: our append write vs Spark's plain Parquet write, our PK write vs Paimon's.
SPARK_TARGETS = {
    "paimon_sql_append": ("parquet", 1.5),
    "paimon_sql_pk": ("paimon_java_pk", 1.0),
}


def run_spark_writes(args: argparse.Namespace) -> dict[str, Any]:
    """Time `paimon_sql.spark.write` against Spark's Parquet writer and Apache Paimon 0.9's.

    One Spark job (``_spark_write_job.py``, in this interpreter, with the ``paimon-spark-3.5``
    jar) writes the ``--rows`` base input four ways; see that module for what is timed and how
    memory is sampled. ``--reps`` is ignored: a 10M-row run takes minutes.
    """
    import os
    import time
    from pathlib import Path

    from tests.benchmarks._spark import SparkJobError, paimon_spark_jar

    base_path, _ = _tables.inputs(args.rows)
    repo = Path(__file__).resolve().parents[2]
    scratch_root = cache_dir() / "bench" / "write-scratch"
    scratch_root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="spark-write-", dir=scratch_root)) / "run"
    request = {
        "jar": str(paimon_spark_jar()),
        "input": str(base_path),
        "scratch": str(scratch),
        "shuffle_partitions": 8,
    }
    job = Path(__file__).with_name("_spark_write_job.py")
    load = os.getloadavg()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="paimon-sql-spark-write-") as tmp:
        req = Path(tmp) / "request.json"
        req.write_text(json.dumps(request))
        env = {
            **os.environ,
            "PYTHONPATH": str(repo),
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
        }
        proc = subprocess.run(
            [sys.executable, str(job), str(req)],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            cwd=repo,
        )
    shutil.rmtree(scratch.parent, ignore_errors=True)
    if proc.returncode != 0:
        raise SparkJobError(
            f"Spark write job failed (exit {proc.returncode}):\n{proc.stderr[-8000:]}"
        )
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    results = answer["results"]
    ratios = {
        ours: {
            "vs": ref,
            "ratio": round(results[ours]["seconds"] / results[ref]["seconds"], 2),
            "target": target,
        }
        for ours, (ref, target) in SPARK_TARGETS.items()
    }
    lines = [
        f"PySpark writers, {answer['rows']} rows, local[2], Spark {answer['spark']} "
        f"(load average {load[0]:.1f} at start)",
        "phase".ljust(20) + "seconds".rjust(9) + "JVM MB".rjust(9) + "workers MB".rjust(12),
    ]
    for name, cell in results.items():
        lines.append(
            name.ljust(20)
            + f"{cell['seconds']:9.1f}{cell['peak_jvm_mb']:9d}{cell['peak_python_workers_mb']:12d}"
        )
    for ours, r in ratios.items():
        verdict = "met" if r["ratio"] <= r["target"] else "MISSED"
        lines.append(f"{ours} / {r['vs']}: {r['ratio']:.2f}x (target <= {r['target']}x: {verdict})")
    print("\n".join(lines))
    return {
        "suite": "spark",
        "rows": answer["rows"],
        "spark": answer["spark"],
        "paimon_java": "0.9.0",
        "load_average_at_start": load,
        "total_seconds": round(time.perf_counter() - start, 1),
        "results": results,
        "ratios": ratios,
    }
