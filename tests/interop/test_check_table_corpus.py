"""`CALL sys.check_table` reports nothing on tables Apache Paimon wrote itself.

Every table of the Spark 0.9 corpus (and, in ``flink/test_check_table_flink.py``, of the Flink
1.3.1 corpus) (all their snapshots and tags,
compactions, expirations, rollbacks, deletion vectors, schema changes) is intact by construction:
a problem reported there is a false alarm of the checker.
"""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.commit.check import check_table

pytestmark = [pytest.mark.interop]


def assert_intact(warehouse, names):
    catalog = paimon_sql.Catalog(str(warehouse))
    checked = 0
    for name in names:
        table = catalog.load_table(f"db.{name}")
        problems = [p for p in check_table(table, deep=True) if p.severity == "error"]
        assert problems == [], (name, problems)
        checked += 1
    return checked


def test_spark_corpus_is_intact(corpus):
    assert assert_intact(corpus.warehouse, sorted(corpus.tables)) >= 30
