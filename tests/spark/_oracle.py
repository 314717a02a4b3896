"""Apache Paimon 0.9 (Java, through Spark with the Paimon jar) reads tables our jar-free writer
wrote.

Run as ``python -m tests.spark._oracle <warehouse> <out.json> db.t@<snapshot id> ...`` (its
own process: the writer's Spark must run without the Paimon jar, and one process holds one JVM).
Writes ``{"db.t@id": canonical rows}`` (`tests.interop.harness.canonical_rows`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.interop.harness import canonical_rows, spark_rows, spark_session


def main(argv: list[str]) -> None:
    warehouse, out, wanted = Path(argv[1]), Path(argv[2]), argv[3:]
    spark = spark_session(warehouse)
    result = {}
    for item in wanted:
        table, _, version = item.partition("@")
        result[item] = canonical_rows(spark_rows(spark, table, version=int(version)))
    out.write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv)
