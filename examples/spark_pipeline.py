"""A local[2] PySpark job writes a Paimon table without a Paimon jar; paimon-sql queries it.

Run with ``.venv/bin/python examples/spark_pipeline.py`` (needs the ``[spark]`` extra and a JVM). It
creates a warehouse in ./spark_warehouse, an ``orders`` table partitioned by day with 4 buckets,
then Spark appends a day of orders, upserts corrections and overwrites one day; after each write
DuckDB reads the table.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import paimon_sql

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

WAREHOUSE = Path.cwd() / "spark_warehouse"


def spark_session() -> SparkSession:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("paimon-sql-spark-pipeline")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main() -> None:
    from paimon_sql.spark import write

    shutil.rmtree(WAREHOUSE, ignore_errors=True)
    session = paimon_sql.connect(WAREHOUSE, create=True)
    session.sql("CREATE DATABASE shop")
    session.sql(
        "CREATE TABLE shop.orders (id BIGINT NOT NULL, dt STRING NOT NULL, customer STRING, "
        "amount DECIMAL(10, 2), PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) "
        "WITH ('bucket' = '4')"
    )
    spark = spark_session()
    from pyspark.sql import functions as F

    orders = spark.range(10_000).select(
        F.col("id"),
        F.when(F.col("id") % 2 == 0, "2024-05-14").otherwise("2024-05-15").alias("dt"),
        F.concat(F.lit("c"), (F.col("id") % 97).cast("string")).alias("customer"),
        (F.col("id") % 1000 / 10).cast("decimal(10,2)").alias("amount"),
    )
    write(orders, "shop.orders", warehouse=str(WAREHOUSE))
    show("after the load", session)

    corrections = orders.where(F.col("id") < 100).withColumn(
        "amount", F.lit(0).cast("decimal(10,2)")
    )
    write(corrections, "shop.orders", warehouse=str(WAREHOUSE))
    show("after upserting 100 corrections", session)

    day = orders.where(F.col("dt") == "2024-05-15").limit(10).drop("dt")
    write(
        day,
        "shop.orders",
        warehouse=str(WAREHOUSE),
        mode="overwrite",
        partition={"dt": "2024-05-15"},
    )
    show("after overwriting 2024-05-15 with 10 orders", session)
    print(session.sql('SELECT snapshot_id, commit_kind FROM "shop"."orders$snapshots" ORDER BY 1'))
    spark.stop()


def show(title: str, session: paimon_sql.Session) -> None:
    print(f"\n-- {title}")
    print(
        session.sql(
            "SELECT dt, count(*) AS orders, sum(amount) AS total "
            "FROM shop.orders GROUP BY dt ORDER BY dt"
        )
    )


if __name__ == "__main__":
    main()
