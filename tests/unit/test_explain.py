"""EXPLAIN says, per Paimon table, the snapshot, the read strategy and what planning pruned."""

from __future__ import annotations

import paimon_sql
from tests.fixtures import FIXTURES

PARQUET = FIXTURES / "paimon-cpp/test/test_data/parquet"


def test_explain_reports_partition_pruning_and_merge():
    session = paimon_sql.connect(PARQUET)
    rows = session.sql(
        "EXPLAIN SELECT * FROM pk_table_with_mor.pk_table_with_mor WHERE p0 = 0"
    ).fetchall()
    info = {
        prop: value for scope, prop, value in rows if scope == "pk_table_with_mor.pk_table_with_mor"
    }
    assert info["snapshot"] == "3 (APPEND)"
    assert info["schema"] == "7"
    assert info["read"].startswith("merge-on-read (deduplicate)")
    assert "pruned: 2 by partition" in info["files"]
    assert any(scope == "duckdb" for scope, _, _ in rows)


def test_explain_reports_deletion_vectors():
    session = paimon_sql.connect(PARQUET)
    rows = session.sql(
        "EXPLAIN SELECT * FROM pk_table_with_dv_cardinality.pk_table_with_dv_cardinality"
    ).fetchall()
    info = {prop: value for scope, prop, value in rows if scope != "duckdb"}
    assert info["read"].startswith("deletion vectors applied")
    assert "rows removed" in info["deletion vectors"]
    assert not info["deletion vectors"].startswith("0 files")
