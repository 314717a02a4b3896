"""Cross-partition primary-key tables against Apache Paimon 0.9 through Spark.

A table with ``bucket = -1`` and a primary key without the partition column is written in turn by
paimon-sql and Spark: after every statement both read the rows of the dict model of Java's rules
(`tests.interop.cross_partition`), so each writer's key index is bootstrapped from the other's
files (Paimon 0.9's ``CROSS_PARTITION`` bucket mode).
"""

from __future__ import annotations

from typing import Any

import pytest

import paimon_sql
from tests.interop import cross_partition as cross
from tests.interop.harness import assert_rows_equal, spark_rows, spark_session, spark_sql

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def _ours(session: paimon_sql.Session, table: str) -> list[dict[str, Any]]:
    rel = session.sql(f"SELECT * FROM {table}")  # noqa: S608 - a test table name
    names = list(rel.columns)
    return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]


@pytest.mark.parametrize(
    ("engine", "creator"),
    [("deduplicate", "java"), ("partial-update", "ours"), ("first-row", "ours")],
)
def test_cross_partition_keys_move_between_partitions_spark(tmp_path, engine, creator):
    warehouse = tmp_path / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    table = "db.moves"
    spark = spark_session(warehouse)
    if creator == "ours":
        session.sql(cross.ddl(engine).replace("{t}", table))
    else:
        spark_sql(spark, cross.ddl(engine, spark=True).replace("{t}", table))
    done: list[Any] = []
    try:
        for who, step in cross.STEPS:
            if not cross.applies(engine, step):
                continue
            if (creator if who == "creator" else who) == "java":
                spark_sql(spark, cross.statement(step, table))
            else:
                session.sql(cross.statement(step, table))
            done.append(step)
            expected = cross.model(engine, done)
            context = f"{engine} after {who}: {step}"
            assert_rows_equal(_ours(session, table), expected, context=f"{context} (paimon-sql)")
            assert_rows_equal(spark_rows(spark, table), expected, context=f"{context} (Spark)")
    finally:
        session.close()
