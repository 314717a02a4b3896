"""Apache Paimon (Java, through PySpark) reads tables and prints them as JSON: the oracle for our
writer.

Runs in the cached ``spark`` virtualenv (tests.second_opinion._venv) as ``python _spark_reader.py
<jar> <warehouse> <out.json> db.table ...``; imports nothing from the repository.
"""

from __future__ import annotations

import datetime
import decimal
import json
import sys


def _plain(value):
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict().items()}
    return value


def main(argv):
    from pyspark.sql import SparkSession

    jar, warehouse, out, tables = argv[1], argv[2], argv[3], argv[4:]
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.jars", jar)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
        .config("spark.sql.catalog.paimon.warehouse", "file:" + warehouse)
        .config(
            "spark.sql.extensions",
            "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions",
        )
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    result = {}
    for table in tables:
        frame = spark.sql(f"SELECT * FROM paimon.{table}")  # noqa: S608 - the test's table names
        result[table] = {
            "columns": frame.columns,
            "rows": [[_plain(v) for v in row] for row in frame.collect()],
        }
    with open(out, "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main(sys.argv)
