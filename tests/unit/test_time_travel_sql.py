"""Time travel in Spark, DuckDB and Flink syntax.

On a Java-written table with tags (append_tags: 3 snapshots).
"""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.errors import OptionError, SnapshotNotFoundError, SqlError
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


@pytest.mark.parametrize(
    "clause",
    [
        "/*+ OPTIONS('scan.timestamp'='20240514') */",
        "TIMESTAMP AS OF '20240514'",
        "AT (TIMESTAMP => '20240514')",
    ],
)
def test_a_timestamp_text_of_digits_only_is_refused(session, clause):
    """Java parses scan.timestamp as 'yyyy-MM-dd[ HH:mm:ss]' and refuses '20240514' (checked with
    Paimon 1.3.1 through Flink); it used to be read as epoch milliseconds, 1970-01-01 05:37."""
    with pytest.raises(SqlError, match=r"'20240514' is not a timestamp.*YYYY-MM-DD"):
        session.sql(f"SELECT * FROM db.append_tags {clause}")  # noqa: S608 - fixed test SQL


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
    # the version's text names the tag (Java's scan.version): '03' is tag '03', else snapshot 3
    assert s.sql("SELECT count(*) FROM db.t VERSION AS OF '03'").fetchall() == [(3,)]
    s.sql("CALL sys.create_tag(table => 'db.t', tag => '03', snapshot => 2)")
    for clause in ("VERSION AS OF '03'", "VERSION AS OF 03", "AT (VERSION => '03')"):
        assert s.sql(f"SELECT count(*) FROM db.t {clause}").fetchall() == [(2,)], clause  # noqa: S608 - fixed test SQL


@pytest.mark.parametrize(
    "hint",
    [
        "'scan.snapshot-id'='1', 'scan.tag-name'='tag1'",
        "'scan.timestamp-millis'='1', 'scan.snapshot-id'='1'",
        "'scan.snapshot-id'='1', 'incremental-between'='1,2'",
    ],
)
def test_a_hint_with_two_starts_is_refused(session, hint):
    with pytest.raises(OptionError, match="set at most one of them"):
        session.sql(f"SELECT * FROM db.append_tags /*+ OPTIONS({hint}) */")  # noqa: S608 - test SQL


@pytest.fixture
def three(tmp_path):
    """db.t: snapshot 1 holds 1, snapshot 2 adds 2, snapshot 3 adds 3; tag v1 is snapshot 1."""
    s = paimon_sql.connect(tmp_path, create=True)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')")
    for i in (1, 2, 3):
        s.sql(f"INSERT INTO db.t VALUES ({i}, 0)")  # noqa: S608 - fixed test SQL
    s.sql("CALL sys.create_tag(table => 'db.t', tag => 'v1', snapshot => 1)")
    return s


def _ids(s, sql):
    return sorted(r[0] for r in s.sql(sql).fetchall())


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("'scan.snapshot-id' = '2'", [1, 2]),
        ("'scan.tag-name' = 'v1'", [1]),
        ("'incremental-between' = '1,3'", [2, 3]),
    ],
)
def test_a_plain_read_honours_the_tables_own_read_options(three, option, expected):
    three.sql(f"ALTER TABLE db.t SET TBLPROPERTIES ({option})")
    assert _ids(three, "SELECT * FROM db.t") == expected
    # explicit time travel in the query wins over the table's option
    assert _ids(three, "SELECT * FROM db.t VERSION AS OF 3") == [1, 2, 3]
    assert _ids(three, "SELECT * FROM db.t /*+ OPTIONS('scan.snapshot-id'='1') */") == [1]


def test_a_write_reads_its_target_at_the_latest_snapshot_whatever_its_read_options(three):
    three.sql("ALTER TABLE db.t SET TBLPROPERTIES ('scan.snapshot-id' = '1')")
    assert three.sql("DELETE FROM db.t WHERE id = 3").fetchall() == [(1,)]
    assert three.sql("UPDATE db.t SET v = 7 WHERE id = 2").fetchall() == [(1,)]
    three.sql(
        "MERGE INTO db.t USING (SELECT 2 AS id) AS s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = t.v + 1"
    )
    three.sql("ALTER TABLE db.t RESET ('scan.snapshot-id')")
    assert three.sql("SELECT * FROM db.t ORDER BY id").fetchall() == [(1, 0), (2, 8)]
