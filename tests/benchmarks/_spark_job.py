"""Spark + Apache Paimon job that writes the benchmark's deletion-vector table.

Runs in the cached ``spark`` virtualenv (``python _spark_job.py <request.json>``); imports nothing
from the repository. Request: ``{"jar", "warehouse", "database", "table", "columns", "options",
"primary_keys", "partition_keys"?, "inputs": [parquet, ...], "driver_memory"?}``; each input
becomes one ``INSERT INTO`` commit (its columns by name, the partition columns included).
With ``deletion-vectors.enabled`` Paimon compacts on commit (lookup compaction) and marks the
superseded rows of older files in deletion vectors.
"""

# Spark SQL for a fixed benchmark table, from the runner's own constants; runs in the spark venv
# (no sqlglot there).
# ruff: noqa: S608
from __future__ import annotations

import json
import sys
import time


def _session(jar, warehouse, memory):
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("paimon-sql-bench")
        .config("spark.jars", jar)
        .config("spark.driver.memory", memory)
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
        .config("spark.sql.catalog.paimon.warehouse", "file:" + warehouse)
        .config(
            "spark.sql.extensions",
            "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions",
        )
        .getOrCreate()
    )


def main(argv):
    with open(argv[1]) as fh:
        req = json.load(fh)
    spark = _session(req["jar"], req["warehouse"], req.get("driver_memory", "6g"))
    spark.sparkContext.setLogLevel("WARN")
    db, table = req["database"], req["table"]
    ref = f"paimon.`{db}`.`{table}`"
    cols = ", ".join(
        f"`{name}` {typ.replace('NOT NULL', '').strip()}" for name, typ in req["columns"]
    )
    props = dict(req["options"])
    if req.get("primary_keys"):
        props["primary-key"] = ",".join(req["primary_keys"])
    tbl_props = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    spark.sql(f"CREATE DATABASE IF NOT EXISTS paimon.`{db}`")
    partitioned = ", ".join(f"`{name}`" for name in req.get("partition_keys") or ())
    partitioned_by = f" PARTITIONED BY ({partitioned})" if partitioned else ""
    spark.sql(f"CREATE TABLE {ref} ({cols}){partitioned_by} TBLPROPERTIES ({tbl_props})")
    names = ", ".join(f"`{name}`" for name, _ in req["columns"])
    seconds = []
    for path in req["inputs"]:
        start = time.perf_counter()
        spark.sql(f"INSERT INTO {ref} SELECT {names} FROM parquet.`{path}`")
        seconds.append(time.perf_counter() - start)
    count = spark.sql(f"SELECT count(*) FROM {ref}").collect()[0][0]
    import pyspark

    print(json.dumps({"seconds": seconds, "count": count, "spark": pyspark.__version__}))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv)
