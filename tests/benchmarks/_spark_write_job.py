"""One Spark session times the PySpark writers on the same DataFrame (the ``spark`` write suite).

Runs in the project's virtualenv (PySpark 3.5 and paimon-sql), ``local[2]``, with the
``paimon-spark-3.5`` jar on the class path: ``python _spark_write_job.py <request.json>``. Request:
``{"jar", "input", "scratch", "shuffle_partitions"}``. The input Parquet is read once and cached
(materialized before any timing) and every writer writes 50000 of its rows once, untimed (class
loading, JIT, the Python workers' imports); then, in this order, each timed on its own:

* ``parquet``: Spark's plain ``df.write.parquet`` (the floor of an append write);
* ``paimon_java_pk``: Apache Paimon's own Spark writer, ``df.writeTo(...).append()``, into a
  primary-key table with 8 buckets;
* ``paimon_sql_append``: `paimon_sql.spark.write` into an append table (``bucket=-1``);
* ``paimon_sql_pk``: `paimon_sql.spark.write` into the same primary-key table (8 buckets) in another
  warehouse.

While a phase runs, a thread samples every 0.2 s the resident memory of the Spark JVM (driver and
executor in local mode) and of its Python workers (the ``mapInArrow`` tasks), from ``/proc``. Each
written table is counted afterwards (paimon-sql reads ours, Spark reads Paimon's), outside the
timing. Prints one JSON line.
"""

# Spark SQL over the benchmark's own fixed names; runs outside pytest.
# ruff: noqa: S608
from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

COLUMNS = "id BIGINT NOT NULL, i1 INT, i2 INT, d1 DOUBLE, d2 DOUBLE, s1 STRING, s2 STRING"


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out.setdefault(int(fields[1]), []).append(int(name))
    return out


class Sampler:
    """Peak resident memory of the JVM and of the sum of its Python workers, while running."""

    def __init__(self, jvm: int) -> None:
        self.jvm = jvm
        self.peak_jvm = self.peak_python = self.peak_total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            tree = _children()
            workers, stack = [], list(tree.get(self.jvm, []))
            while stack:
                pid = stack.pop()
                workers.append(pid)
                stack.extend(tree.get(pid, []))
            jvm = _rss(self.jvm)
            python = sum(_rss(p) for p in workers)
            self.peak_jvm = max(self.peak_jvm, jvm)
            self.peak_python = max(self.peak_python, python)
            self.peak_total = max(self.peak_total, jvm + python)
            self._stop.wait(0.2)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def report(self) -> dict[str, float]:
        mb = 1 << 20
        return {
            "peak_jvm_mb": round(self.peak_jvm / mb),
            "peak_python_workers_mb": round(self.peak_python / mb),
            "peak_total_mb": round(self.peak_total / mb),
        }


def _jvm_pid(spark: Any) -> int:
    pid = spark.sparkContext._gateway.proc.pid
    # spark-submit may run java as a child of its launcher script
    with open(f"/proc/{pid}/cmdline", "rb") as fh:
        if b"java" in fh.read().split(b"\0")[0]:
            return int(pid)
    kids = _children().get(pid, [])
    return kids[0] if kids else int(pid)


def _session(jar: str, warehouse: str, shuffle: int) -> Any:
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    return (
        SparkSession.builder.master("local[2]")
        .appName("paimon-sql-spark-write-bench")
        .config("spark.jars", jar)
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", str(shuffle))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
        .config("spark.sql.catalog.paimon.warehouse", "file:" + warehouse)
        .config(
            "spark.sql.extensions",
            "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions",
        )
        .getOrCreate()
    )


def main(argv: list[str]) -> None:
    with open(argv[1]) as fh:
        req = json.load(fh)
    scratch = Path(req["scratch"])
    ours, java = scratch / "ours", scratch / "java"
    for path in (ours, java):
        path.mkdir(parents=True)
    spark = _session(req["jar"], str(java), int(req["shuffle_partitions"]))
    spark.sparkContext.setLogLevel("ERROR")
    jvm = _jvm_pid(spark)

    import paimon_sql
    from paimon_sql.spark import write

    session = paimon_sql.connect(ours, create=True)
    session.sql("CREATE DATABASE bench")
    spark.sql("CREATE DATABASE IF NOT EXISTS paimon.bench")
    for prefix in ("warm_", ""):
        session.sql(f"CREATE TABLE bench.{prefix}append ({COLUMNS}) WITH ('bucket' = '-1')")
        session.sql(
            f"CREATE TABLE bench.{prefix}pk ({COLUMNS}, PRIMARY KEY (id) NOT ENFORCED) "
            "WITH ('bucket' = '8')"
        )
        spark.sql(
            f"CREATE TABLE paimon.bench.{prefix}pk ({COLUMNS}) "
            "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '8')"
        )
    session.close()

    df = spark.read.parquet(req["input"]).cache()
    rows = df.count()  # materializes the cache: no phase pays for reading the input
    # warm-up, untimed: every writer's first job (class loading, JIT, Python workers' imports)
    sample = df.limit(50_000)
    sample.write.mode("overwrite").parquet(str(scratch / "warm"))
    sample.writeTo("paimon.bench.warm_pk").append()
    write(sample, "bench.warm_append", warehouse=str(ours))
    write(sample, "bench.warm_pk", warehouse=str(ours))
    # Paimon's Java writer before ours: Python workers outlive their tasks (reused), so a phase
    # after ours would count our idle workers; the JVM's peak only grows from phase to phase.
    phases = {
        "parquet": lambda: df.write.mode("overwrite").parquet(str(scratch / "plain")),
        "paimon_java_pk": lambda: df.writeTo("paimon.bench.pk").append(),
        "paimon_sql_append": lambda: write(df, "bench.append", warehouse=str(ours)),
        "paimon_sql_pk": lambda: write(df, "bench.pk", warehouse=str(ours)),
    }
    results: dict[str, Any] = {}
    for name, run in phases.items():
        print(f"[spark-write] {name} ...", file=sys.stderr, flush=True)
        load = os.getloadavg()[0]
        with Sampler(jvm) as sampler:
            start = time.perf_counter()
            run()
            seconds = time.perf_counter() - start
        results[name] = {"seconds": round(seconds, 2), "load_before": load, **sampler.report()}

    reader = paimon_sql.connect(ours)
    for table in ("append", "pk"):
        count = reader.sql(f"SELECT count(*), sum(id) FROM bench.{table}").fetchall()[0]
        results[f"paimon_sql_{table}"]["check"] = list(count)
    (count,) = spark.sql("SELECT count(*), sum(id) FROM paimon.bench.pk").collect()
    results["paimon_java_pk"]["check"] = [count[0], count[1]]
    (plain,) = (
        spark.read.parquet(str(scratch / "plain")).selectExpr("count(*)", "sum(id)").collect()
    )
    results["parquet"]["check"] = [plain[0], plain[1]]
    import pyspark

    print(json.dumps({"rows": rows, "spark": pyspark.__version__, "results": results}))
    spark.stop()
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
