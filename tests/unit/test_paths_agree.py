"""The two ways a table reaches DuckDB return the same rows on every Java-written fixture table.

`session.sql` inlines the planned merge SQL into the statement; `install()` on a plain connection
streams the splits through DuckDB's source protocol.
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
    # external paths are unreachable by design
    if "external" not in t
]


@pytest.mark.parametrize(("warehouse", "table"), CASES, ids=[f"{w.name}-{t}" for w, t in CASES])
def test_inlined_and_streamed_agree(warehouse, table):
    query = f"SELECT * FROM {table}"  # noqa: S608 - fixed test SQL
    inlined = paimon_sql.connect(warehouse).sql(query).fetchall()
    con = duckdb.connect()
    paimon_sql.install(con, warehouse)
    streamed = con.sql(query).fetchall()
    assert sorted(map(repr, inlined)) == sorted(map(repr, streamed))


@pytest.mark.parametrize(("warehouse", "table"), CASES, ids=[f"{w.name}-{t}" for w, t in CASES])
def test_early_stopping_stream_reads_the_same_rows(warehouse, table):
    """``LIMIT n`` streams each split as several queries (first rows before any join).

    With an n above the row count it must return exactly the full read's rows.
    """
    session = paimon_sql.connect(warehouse)
    full = session.sql(f"SELECT * FROM {table}").fetchall()  # noqa: S608 - fixed test SQL
    limited = session.sql(f"SELECT * FROM {table} LIMIT 100000000").fetchall()  # noqa: S608 - fixed test SQL
    assert sorted(map(repr, limited)) == sorted(map(repr, full))


@pytest.mark.parametrize("engine", ["deduplicate", "first-row"])
def test_early_stopping_stream_on_chained_merges(tmp_path, engine):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '2', 'merge-engine' = '{engine}', 'deletion-vectors.enabled' = 'false')"
    )
    session.sql("INSERT INTO db.t SELECT i, 'a' || i FROM range(3000) t(i)")
    session.sql("INSERT INTO db.t SELECT i, 'b' || i FROM range(0, 4000, 3) t(i)")
    oracle = {i: f"a{i}" for i in range(3000)}
    for i in range(0, 4000, 3):
        if engine == "deduplicate" or i not in oracle:
            oracle[i] = f"b{i}"
    if engine == "deduplicate":
        session.sql("DELETE FROM db.t WHERE id % 7 = 0")
        session.sql("INSERT INTO db.t SELECT i, 'c' || i FROM range(0, 4000, 11) t(i)")
        oracle = {k: v for k, v in oracle.items() if k % 7}
        oracle.update({i: f"c{i}" for i in range(0, 4000, 11)})
    full = sorted(session.sql("SELECT * FROM db.t").fetchall())
    assert full == sorted(oracle.items())
    assert sorted(session.sql("SELECT * FROM db.t LIMIT 100000").fetchall()) == full
    few = session.sql("SELECT * FROM db.t LIMIT 5").fetchall()
    assert len(few) == 5
    assert set(few) <= set(full)
