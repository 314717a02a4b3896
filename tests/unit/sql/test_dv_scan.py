"""Deletion-vector tables: one multi-file scan anti-joined with the deleted (file, row) pairs.

The anti-join uses DuckDB's virtual ``file_index`` / ``file_row_number`` columns; a table with a
column of one of those names falls back to positional keep-flags per file. Both are checked against
a Python oracle and against the streamed path (``install`` + a plain connection), which applies
vectors its own way.
"""

from __future__ import annotations

import duckdb
import pytest

import paimon_sql


def _write_history(session, column):
    session.sql(
        f"CREATE TABLE db.t (id INT, {column} INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')"
    )
    oracle = {}
    for round_ in range(4):
        rows = [(i, i * 10 + round_, f"r{round_}") for i in range(round_ * 50, round_ * 50 + 120)]
        values = ", ".join(f"({i}, {c}, '{v}')" for i, c, v in rows)
        session.sql(f"INSERT INTO db.t VALUES {values}")  # noqa: S608 - fixed test SQL
        oracle.update({i: (i, c, v) for i, c, v in rows})
    session.sql("DELETE FROM db.t WHERE id % 7 = 0")
    oracle = {k: v for k, v in oracle.items() if k % 7 != 0}
    return oracle


@pytest.mark.parametrize("column", ["c", "file_index"])
def test_dv_scan_matches_oracle_and_stream(tmp_path, column):
    wh = tmp_path / "wh"
    session = paimon_sql.connect(wh, create=True)
    session.sql("CREATE DATABASE db")
    oracle = _write_history(session, column)
    files = session.sql("SELECT level, file_path FROM db.`t$files`").fetchall()
    assert len(files) >= 2
    assert all(level > 0 for level, _ in files)
    vectors = session.sql(
        "SELECT count(*) FROM db.`t$table_indexes` WHERE index_type = 'DELETION_VECTORS'"
    )
    assert vectors.fetchall()[0][0] > 0, "the history must leave deletion vectors to apply"

    got = sorted(session.sql("SELECT * FROM db.t").fetchall())
    assert got == sorted(oracle.values())
    query = f"SELECT id, \"{column}\" FROM db.t WHERE v = 'r1' AND id > 60"  # noqa: S608 - fixed test SQL
    filtered = sorted(session.sql(query).fetchall())
    assert filtered == sorted((i, c) for i, c, v in oracle.values() if v == "r1" and i > 60)

    con = duckdb.connect()
    paimon_sql.install(con, wh)
    assert sorted(con.sql("SELECT * FROM db.t").fetchall()) == got
