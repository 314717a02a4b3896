"""The two ways a table reaches DuckDB return the same rows on every Java-written fixture table.

`session.sql` inlines the planned merge SQL into the statement; `install()` on a plain connection streams the
splits through DuckDB's source protocol.
"""

from __future__ import annotations

import duckdb
import pytest

import paimon_sql
from tests.fixtures import FIXTURES

WAREHOUSES = [
    FIXTURES / "paimon-cpp/test/test_data/parquet",
    FIXTURES / "paimon-cpp/test/test_data/orc",
    FIXTURES / "generated-paimon-java-0.9/warehouse",
    FIXTURES / "duckdb-paimon/data",
]
CASES = [
    (w, f"{db}.{t}")
    for w in WAREHOUSES
    for db in paimon_sql.Catalog(w).databases()
    for t in paimon_sql.Catalog(w).tables(db)
    if "external" not in t
]


@pytest.mark.parametrize(("warehouse", "table"), CASES, ids=[f"{w.name}-{t}" for w, t in CASES])
def test_inlined_and_streamed_agree(warehouse, table):
    query = f"SELECT * FROM {table}"
    inlined = paimon_sql.connect(warehouse).sql(query).fetchall()
    con = duckdb.connect()
    paimon_sql.install(con, warehouse)
    streamed = con.sql(query).fetchall()
    assert sorted(map(repr, inlined)) == sorted(map(repr, streamed))
