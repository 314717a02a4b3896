"""Filters of an inlined query also go inside the merge of overlapping files, where that is safe.

Key filters go below the merge (a point lookup then ranks a few rows instead of anti-joining whole
files); filters on other columns must stay above it, or an older version of a row would come back.
"""

from __future__ import annotations

import pytest

import paimon_sql


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    s.sql(
        "CREATE TABLE db.t (id INT, k2 STRING, v STRING, PRIMARY KEY (id, k2) NOT ENFORCED) "
        "WITH ('bucket' = '1')"
    )
    s.sql("INSERT INTO db.t SELECT i, 'a', 'old' FROM range(1000) t(i)")
    s.sql("INSERT INTO db.t SELECT i, 'a', 'new' FROM range(0, 1000, 3) t(i)")
    s.sql("DELETE FROM db.t WHERE id = 7")
    files = s.sql("SELECT count(*) FROM db.`t$files`").fetchall()[0][0]
    assert files == 3, "the lookups must merge overlapping files"
    return s


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("id = 3 AND k2 = 'a'", [(3, "new")]),
        ("id = 4 AND k2 = 'a'", [(4, "old")]),
        ("id = 7 AND k2 = 'a'", []),
        ("id IN (3, 4, 7) AND k2 = 'a'", [(3, "new"), (4, "old")]),
        ("id = 3 AND k2 = 'a' AND v = 'old'", []),
        ("id = 3", [(3, "new")]),
        ("id < 7 AND v = 'old'", [(1, "old"), (2, "old"), (4, "old"), (5, "old")]),
    ],
)
def test_filtered_reads_see_the_latest_version(session, where, expected):
    rows = session.sql(f"SELECT id, v FROM db.t WHERE {where} ORDER BY id").fetchall()  # noqa: S608 - fixed test SQL
    assert rows == expected
