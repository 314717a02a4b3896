"""The anti-join merge (disjoint sequence ranges) and the row_number merge agree on every Java-written table."""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.read import build
from tests.fixtures import FIXTURES

CASES = [
    (FIXTURES / "paimon-cpp/test/test_data/parquet", "pk_table_with_mor.pk_table_with_mor"),
    (FIXTURES / "paimon-cpp/test/test_data/parquet", "pk_table_scan_and_read_mor.pk_table_scan_and_read_mor"),
    (FIXTURES / "paimon-cpp/test/test_data/parquet", "pk_table_scan_and_read_first_row.pk_table_scan_and_read_first_row"),
    (FIXTURES / "paimon-cpp/test/test_data/parquet", "pk_table_nested_type.pk_table_nested_type"),
    (FIXTURES / "paimon-cpp/test/test_data/orc", "pk_table_scan_and_read_mor.pk_table_scan_and_read_mor"),
    (FIXTURES / "generated-paimon-java-0.9/warehouse", "db.pk_dedup"),
    (FIXTURES / "generated-paimon-java-0.9/warehouse", "db.pk_avro"),
    (FIXTURES / "generated-paimon-java-0.9/warehouse", "db.pk_rowkind_delete"),
]


@pytest.mark.parametrize(("warehouse", "table"), CASES, ids=[c[1].split(".")[0] for c in CASES])
def test_strategies_agree(warehouse, table, monkeypatch):
    query = f"SELECT * FROM {table}"
    fast = sorted(map(repr, paimon_sql.connect(warehouse).sql(query).fetchall()))
    monkeypatch.setattr(build._SplitQuery, "anti_join", False)
    slow = sorted(map(repr, paimon_sql.connect(warehouse).sql(query).fetchall()))
    assert fast == slow
    assert fast
