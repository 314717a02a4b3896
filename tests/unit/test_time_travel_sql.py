"""Time travel in Spark, DuckDB and Flink syntax.

On a Java-written table with tags (append_tags: 3 snapshots).
"""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.errors import SnapshotNotFoundError
from tests.fixtures import FIXTURES

WAREHOUSE = FIXTURES / "generated-paimon-java-0.9/warehouse"
SNAPSHOT_1 = [(1, "a", 10), (2, "b", 20), (4, "d", 40)]


@pytest.fixture(scope="module")
def session():
    return paimon_sql.connect(WAREHOUSE)


@pytest.mark.parametrize(
    "clause",
    [
        "VERSION AS OF 1",
        "VERSION AS OF 'tag1'",
        "AT (VERSION => 1)",
        "/*+ OPTIONS('scan.snapshot-id'='1') */",
        "/*+ OPTIONS('scan.tag-name'='tag1') */",
    ],
)
def test_forms_select_snapshot_one(session, clause):
    rows = session.sql(f"SELECT * FROM db.append_tags {clause} ORDER BY id").fetchall()  # noqa: S608 - fixed test SQL
    if "OPTIONS" in clause:  # Flink's hints read the snapshot in the latest schema, as Flink
        assert rows == [(*r, None) for r in SNAPSHOT_1]
    else:
        assert rows == SNAPSHOT_1


def test_timestamp_as_of_picks_the_snapshot_committed_before(session):
    table = session.table("db.append_tags")
    second = table.snapshot(2)
    rows = session.sql(
        "SELECT count(*) FROM db.append_tags "  # noqa: S608 - fixed test SQL
        f"/*+ OPTIONS('scan.timestamp-millis'='{second.time_millis}') */"
    ).fetchall()
    assert rows == [(second.total_record_count,)]


def test_timestamp_as_of_a_number_is_seconds_since_the_epoch(session):
    """Spark casts a number to a timestamp as seconds (Paimon docs: TIMESTAMP AS OF 1678883047)."""
    second = session.table("db.append_tags").snapshot(2)
    seconds = second.time_millis / 1000
    for clause in (f"TIMESTAMP AS OF {seconds}", f"AT (TIMESTAMP => {seconds})"):
        rows = session.sql(f"SELECT count(*) FROM db.append_tags {clause}").fetchall()  # noqa: S608 - fixed test SQL
        assert rows == [(second.total_record_count,)]
    with pytest.raises(SnapshotNotFoundError) as caught:  # the time shown as a time, not 86400
        session.sql("SELECT * FROM db.append_tags TIMESTAMP AS OF 86400")
    assert "at or before 1970-01-0" in str(caught.value)
    assert "(epoch milliseconds 86400000)" in str(caught.value)


def test_time_travel_uses_the_snapshot_schema(session):
    # Snapshot 3 added the column `extra`; snapshot 2 has only three columns.
    old = session.sql("SELECT * FROM db.append_tags VERSION AS OF 2")
    assert old.columns == ["id", "name", "v"]
    assert session.sql("SELECT * FROM db.append_tags").columns == ["id", "name", "v", "extra"]
    # Flink's spelling reads snapshot 2 in the latest schema (Paimon 1.3's Flink source does)
    hinted = session.sql("SELECT * FROM db.append_tags /*+ OPTIONS('scan.snapshot-id'='2') */")
    assert hinted.columns == ["id", "name", "v", "extra"]


def test_unknown_versions_list_what_exists(session):
    with pytest.raises(SnapshotNotFoundError, match=r"tags: tag1, tag2"):
        session.sql("SELECT * FROM db.append_tags VERSION AS OF 'nope'")
    with pytest.raises(SnapshotNotFoundError, match=r"snapshots 1\.\.3"):
        session.sql("SELECT * FROM db.append_tags VERSION AS OF 99")
    with pytest.raises(SnapshotNotFoundError, match="no snapshot or tag"):
        session.sql("SELECT * FROM db.append_tags TIMESTAMP AS OF '1970-01-02 00:00:00'")


def test_a_numeric_tag_name_wins_over_the_snapshot_id(tmp_path):
    """Spark's rule: ``VERSION AS OF '2'`` reads tag '2' when it exists, else snapshot 2; Flink's
    ``scan.snapshot-id`` always means the snapshot."""
    s = paimon_sql.connect(tmp_path, create=True)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.t (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')")
    for i in (1, 2, 3):
        s.sql(f"INSERT INTO db.t VALUES ({i})")  # noqa: S608 - fixed test SQL
    s.sql("CALL sys.create_tag(table => 'db.t', tag => '2', snapshot => 1)")
    by_version = [
        s.sql(f"SELECT count(*) FROM db.t {clause}").fetchall()[0][0]  # noqa: S608 - fixed test SQL
        for clause in ("VERSION AS OF 2", "VERSION AS OF '2'", "AT (VERSION => 2)")
    ]
    assert by_version == [1, 1, 1]
    assert s.sql("SELECT count(*) FROM db.t /*+ OPTIONS('scan.snapshot-id'='2') */").fetchall() == [
        (2,)
    ]
    assert s.sql("SELECT count(*) FROM db.t VERSION AS OF 3").fetchall() == [(3,)]
