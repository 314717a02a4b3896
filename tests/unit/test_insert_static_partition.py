"""INSERT [OVERWRITE] t PARTITION (k = v) <query>: Spark's and Flink's static form (issue 14)."""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.errors import SqlError


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.t (id INT, v STRING, dt STRING) PARTITIONED BY (dt)")
    s.sql("INSERT INTO db.t VALUES (1, 'x', 'a'), (2, 'y', 'b'), (5, 'q', 'a')")
    yield s
    s.close()


def _rows(session):
    return sorted(session.sql("SELECT * FROM db.t").fetchall())


def test_static_overwrite_without_the_partition_column(session):
    session.sql("INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 3, 'z'")
    assert _rows(session) == [(2, "y", "b"), (3, "z", "a")]
    session.sql("INSERT OVERWRITE db.t PARTITION (dt = 'b') VALUES (7, 'v'), (8, 'w')")
    assert _rows(session) == [(3, "z", "a"), (7, "v", "b"), (8, "w", "b")]


def test_static_insert_into_with_a_column_list(session):
    session.sql("INSERT INTO db.t PARTITION (dt = 'c') (v, id) VALUES ('cc', 9)")
    assert (9, "cc", "c") in _rows(session)


def test_full_width_query_must_stay_in_the_partition(session):
    session.sql("INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 10, 'full', 'a'")
    assert _rows(session) == [(2, "y", "b"), (10, "full", "a")]
    # once this wiped partition a and wrote the row into b
    with pytest.raises(SqlError, match="lie in another partition"):
        session.sql("INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 3, 'z', 'b'")
    assert _rows(session) == [(2, "y", "b"), (10, "full", "a")]


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 3",
        "INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 3, 'z', 'a', 'extra'",
        "INSERT INTO db.t SELECT 1, 'x', 'a', 'extra'",
        "INSERT OVERWRITE db.t PARTITION (v = 'a') SELECT 3, 'z'",
    ],
)
def test_wrong_shapes_are_refused_and_change_nothing(session, statement):
    before = _rows(session)
    with pytest.raises(SqlError):
        session.sql(statement)
    assert _rows(session) == before


@pytest.mark.parametrize(
    ("column", "stored", "spec"),
    [
        ("DOUBLE", "1.0", "1"),  # once compared as text: '1.0' != '1', the old rows stayed
        ("DATE", "DATE '2024-01-01'", "'2024-1-1'"),
        ("BOOLEAN", "true", "'true'"),
    ],
)
def test_static_overwrite_compares_typed_values(tmp_path, column, stored, spec):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    s.sql(f"CREATE TABLE db.p (id INT, k {column}) PARTITIONED BY (k)")
    s.sql(f"INSERT INTO db.p VALUES (1, {stored})")  # noqa: S608 - fixed test SQL
    s.sql(f"INSERT OVERWRITE db.p PARTITION (k = {spec}) VALUES (2)")  # noqa: S608 - fixed test SQL
    assert s.sql("SELECT id FROM db.p").fetchall() == [(2,)]
