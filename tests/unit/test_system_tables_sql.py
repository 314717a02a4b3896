"""System tables through SQL: ``"db"."t$snapshots"``, at a version, and the ``sys`` tables."""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.errors import TableNotFoundError
from tests.fixtures import FIXTURES

WAREHOUSE = FIXTURES / "generated-paimon-java-0.9/warehouse"


@pytest.fixture(scope="module")
def session():
    return paimon_sql.connect(WAREHOUSE)


def test_snapshots_and_tags(session):
    rows = session.sql(
        'SELECT snapshot_id, commit_kind FROM "db"."append_tags$snapshots" ORDER BY 1'
    ).fetchall()
    assert rows == [(1, "APPEND"), (2, "APPEND"), (3, "APPEND")]
    assert session.sql(
        'SELECT tag_name, snapshot_id FROM "db"."append_tags$tags" ORDER BY 1'
    ).fetchall() == [
        ("tag1", 1),
        ("tag2", 2),
    ]


def test_files_at_a_version(session):
    latest = session.sql('SELECT count(*) FROM "db"."append_tags$files"').fetchall()
    first = session.sql('SELECT count(*) FROM "db"."append_tags$files" VERSION AS OF 1').fetchall()
    assert first == [(1,)]
    assert latest[0][0] > first[0][0]


def test_sys_tables_and_unknown_names(session):
    tables = session.sql("SELECT table_name FROM sys.tables WHERE database_name = 'db'").fetchall()
    assert ("pk_dedup",) in tables
    with pytest.raises(TableNotFoundError, match="valid: snapshots"):
        session.sql('SELECT * FROM "db"."pk_dedup$nope"')
