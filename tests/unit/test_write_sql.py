"""INSERT / DELETE / UPDATE / INSERT OVERWRITE through session.sql.

Also bad input, and concurrent writers.
"""

from __future__ import annotations

import multiprocessing
from types import MappingProxyType

import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.errors import (
    CommitConflictError,
    SchemaError,
    TableNotFoundError,
    UnsupportedFeatureError,
)
from paimon_sql.format.schema import TableSchema
from paimon_sql.types import DataField, parse_type


def _create(session, name, *, pk=True, partitioned=False, bucket="2", options=None):
    fields = (
        DataField(id=0, name="id", type=parse_type("BIGINT NOT NULL" if pk else "BIGINT")),
        DataField(id=1, name="dt", type=parse_type("STRING NOT NULL")),
        DataField(id=2, name="v", type=parse_type("INT")),
    )
    schema = TableSchema(
        id=0,
        fields=fields,
        highest_field_id=2,
        partition_keys=("dt",) if partitioned else (),
        primary_keys=("id", "dt") if pk else (),
        options=MappingProxyType({"bucket": bucket if pk else "-1", **(options or {})}),
    )
    session.catalog.create_database(name.split(".")[0], ignore_if_exists=True)
    return session.catalog.create_table(Identifier.parse(name), schema)


@pytest.fixture
def session(tmp_path):
    return paimon_sql.connect(tmp_path / "wh", create=True)


def test_upsert_delete_update_on_a_primary_key_table(session):
    table = _create(session, "db.t", partitioned=True)
    assert session.sql(
        "INSERT INTO db.t VALUES (1, 'a', 1), (2, 'a', 2), (1, 'a', 3)"
    ).fetchall() == [(2,)]
    session.sql("INSERT INTO db.t (id, dt) VALUES (3, 'b')")
    session.sql("UPDATE db.t SET v = v * 10 WHERE id = 2")
    session.sql("DELETE FROM db.t WHERE id = 1")
    assert session.sql("SELECT * FROM db.t ORDER BY id").fetchall() == [
        (2, "a", 20),
        (3, "b", None),
    ]
    assert len(table.snapshot_ids()) == 4


def test_insert_overwrite_static_and_dynamic_partitions(session):
    _create(session, "db.t", pk=False, partitioned=True)
    session.sql("INSERT INTO db.t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    session.sql("INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 10, 'a', 10")
    assert session.sql("SELECT id FROM db.t ORDER BY id").fetchall() == [(2,), (3,), (10,)]
    session.sql("INSERT OVERWRITE db.t SELECT 20, 'b', 20")  # dynamic: only partition b is replaced
    assert session.sql("SELECT id FROM db.t ORDER BY id").fetchall() == [(3,), (10,), (20,)]


def test_append_table_delete_and_update_copy_on_write(session):
    _create(session, "db.t", pk=False, partitioned=True)
    session.sql("INSERT INTO db.t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3)")
    assert session.sql("DELETE FROM db.t WHERE v = 2").fetchall() == [(1,)]
    assert session.sql("UPDATE db.t SET v = 30 WHERE id = 3").fetchall() == [(1,)]
    assert session.sql("SELECT * FROM db.t ORDER BY id").fetchall() == [(1, "a", 1), (3, "b", 30)]


def _no_new_snapshot(table, before):
    assert table.snapshot_ids() == before
    data = [p for p in (table.fileio.list_names(table.path)) if p.startswith(("dt=", "bucket-"))]
    return data


@pytest.mark.parametrize(
    ("statement", "error", "match"),
    [
        ("INSERT INTO db.t VALUES (1, 'a', 'not a number')", SchemaError, "v"),
        ("INSERT INTO db.t VALUES (NULL, 'a', 1)", SchemaError, "id"),
        ("INSERT INTO db.t (id, dt, nope) VALUES (1, 'a', 1)", SchemaError, "nope"),
        ("UPDATE db.t SET nope = 1", SchemaError, "nope"),
        ("INSERT INTO db.missing VALUES (1, 'a', 1)", TableNotFoundError, "missing"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(session, statement, error, match):
    table = _create(session, "db.t")
    session.sql("INSERT INTO db.t VALUES (5, 'x', 5)")
    before = table.snapshot_ids()
    files_before = sorted(
        p.name for p in __import__("pathlib").Path(table.path).rglob("*") if p.is_file()
    )
    with pytest.raises(error, match=match):
        session.sql(statement)
    assert table.snapshot_ids() == before
    files_after = sorted(
        p.name for p in __import__("pathlib").Path(table.path).rglob("*") if p.is_file()
    )
    assert files_after == files_before
    assert session.sql("SELECT * FROM db.t").fetchall() == [(5, "x", 5)]


def _insert_many(warehouse: str, worker: int, count: int) -> None:
    session = paimon_sql.connect(warehouse)
    for i in range(count):
        session.sql(f"INSERT INTO db.t VALUES ({worker * 1000 + i}, 'a', {i})")  # noqa: S608 - fixed test SQL


@pytest.mark.slow
def test_two_processes_commit_concurrently(tmp_path):
    warehouse = tmp_path / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    table = _create(session, "db.t", pk=False)
    count = 50
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_insert_many, args=(str(warehouse), w, count)) for w in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
        assert p.exitcode == 0
    ids = table.snapshot_ids()
    assert ids == list(range(1, 2 * count + 1))
    assert session.sql("SELECT count(*), count(DISTINCT id) FROM db.t").fetchall() == [
        (2 * count, 2 * count)
    ]


@pytest.mark.parametrize(
    "statement", ["DELETE FROM db.a WHERE id = 1", "UPDATE db.a SET v = 'z' WHERE id = 1"]
)
def test_append_rewrite_fails_when_a_concurrent_insert_lands_in_its_partition(
    tmp_path, monkeypatch, statement
):
    """A DELETE/UPDATE on an append table rewrites partitions from the files it read; an INSERT that
    lands in between must not be overwritten: the statement fails, makes no snapshot, and the row
    stays."""
    from paimon_sql.commit.publish import Committer

    s = paimon_sql.connect(tmp_path, create=True)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.a (id INT, v STRING, p STRING) PARTITIONED BY (p)")
    s.sql("INSERT INTO db.a VALUES (1, 'a', 'x'), (2, 'b', 'x')")
    other = paimon_sql.connect(tmp_path)
    original = Committer.commit
    raced = []

    def commit_after_a_concurrent_insert(self, *args, **kwargs):
        if not raced:
            raced.append(True)
            other.sql("INSERT INTO db.a VALUES (3, 'c', 'x')")  # a real commit by another session
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Committer, "commit", commit_after_a_concurrent_insert)
    with pytest.raises(CommitConflictError, match="concurrent commit"):
        s.sql(statement)
    monkeypatch.setattr(Committer, "commit", original)
    s.refresh()
    assert sorted(s.sql("SELECT id, v FROM db.a").fetchall()) == [(1, "a"), (2, "b"), (3, "c")]
    kinds = [
        r[0]
        for r in s.sql('SELECT commit_kind FROM "db"."a$snapshots" ORDER BY snapshot_id').fetchall()
    ]
    assert kinds == ["APPEND", "APPEND"]
    s.sql(statement)  # run again: it now sees the new row and succeeds
    assert sorted(r[0] for r in s.sql("SELECT id FROM db.a").fetchall()) == (
        [2, 3] if "DELETE" in statement else [1, 2, 3]
    )


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_a_session_time_zone_does_not_break_writing_timestamp_ltz(session, zone):
    # the writer sorts its input on a cursor, which starts in DuckDB's default zone; the input's
    # TIMESTAMPTZ columns carry the session's zone (before: a raw pyarrow schema mismatch)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, ts TIMESTAMP(6) WITH LOCAL TIME ZONE, "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')"
    )
    session.sql(f"SET TimeZone = '{zone}'")
    session.sql("INSERT INTO db.t VALUES (1, TIMESTAMPTZ '2024-01-02 03:04:05+00')")
    session.sql("SET TimeZone = 'UTC'")
    assert session.sql("SELECT id, CAST(ts AS VARCHAR) FROM db.t").fetchall() == [
        (1, "2024-01-02 03:04:05+00")
    ]


@pytest.mark.parametrize("pk", [True, False], ids=["pk", "append"])
def test_data_files_go_under_data_file_path_directory(session, tmp_path, pk):
    """'data-file.path-directory': every write path puts data files under it, where readers
    (ours and Java's ``FileStorePathFactory``) look; the table folder itself gets no bucket."""
    table = _create(
        session,
        "db.pd",
        pk=pk,
        partitioned=True,
        options={
            "data-file.path-directory": "data",
            **({"bucket": "2", "changelog-producer": "input"} if pk else {}),
        },
    )
    session.sql("INSERT INTO db.pd VALUES (1, 'a', 1), (2, 'b', 2)")
    session.sql("INSERT INTO db.pd VALUES (1, 'a', 10), (3, 'a', 3)")
    session.sql("UPDATE db.pd SET v = v + 1 WHERE id = 2")
    session.sql("CALL sys.compact(table => 'db.pd')")
    rows = session.sql("SELECT id, dt, v FROM db.pd ORDER BY id").fetchall()
    assert rows == ([(1, "a", 10), (2, "b", 3), (3, "a", 3)] if pk else [
        (1, "a", 1), (1, "a", 10), (2, "b", 3), (3, "a", 3)])  # fmt: skip
    root = tmp_path / "wh" / "db.db" / "pd"
    assert sorted(p.name for p in root.iterdir() if "=" in p.name or "bucket" in p.name) == []
    written = [p for p in (root / "data").rglob("*") if p.is_file()]
    assert any(p.name.startswith("data-") for p in written)
    assert all(p.parent.name.startswith("bucket-") for p in written)
    del table


def test_commit_user_prefix_names_every_commit(session):
    """'commit.user-prefix': the commit user is '<prefix>_<uuid>', as Java's createCommitUser."""
    session.sql("CREATE DATABASE IF NOT EXISTS db")
    session.sql(
        "CREATE TABLE db.cu (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'commit.user-prefix' = 'etl')"
    )
    session.sql("INSERT INTO db.cu VALUES (1, 'a')")
    session.sql("INSERT INTO db.cu VALUES (1, 'b')")
    session.sql("CALL sys.compact(table => 'db.cu')")
    table = session.table("db.cu")
    users = [table.snapshot(i).commit_user for i in table.snapshot_ids()]
    assert len(users) == 3
    assert all(u.startswith("etl_") and len(u) == len("etl_") + 36 for u in users)


def _folders(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir())


def test_failed_insert_leaves_no_new_folders(session, tmp_path):
    """A write that fails after its files were written (the commit refuses: the partition's
    bucket count changed) deletes them and the partition and bucket folders it made, if empty;
    folders that were there before stay."""
    _create(session, "db.f", partitioned=True)
    session.sql("INSERT INTO db.f VALUES (1, 'x', 1)")
    session.sql("ALTER TABLE db.f SET ('bucket' = '3')")
    root = tmp_path / "wh" / "db.db" / "f"
    before = _folders(root)
    rows = ", ".join(f"({i}, '{p}', {i})" for i in range(40) for p in ("x", "y"))
    with pytest.raises(CommitConflictError):
        session.sql(f"INSERT INTO db.f VALUES {rows}")  # noqa: S608
    assert _folders(root) == before
    assert (root / "dt=x" / "bucket-0").is_dir() or (root / "dt=x" / "bucket-1").is_dir()


def test_refused_write_of_a_java_table_leaves_no_folders(session, tmp_path):
    """A table made elsewhere with a compression paimon-sql cannot write (here through the
    catalog: the DDL refuses it): the INSERT is refused before any file or folder."""
    _create(session, "db.z", pk=False, partitioned=True, options={"file.compression": "lzo"})
    root = tmp_path / "wh" / "db.db" / "z"
    before = _folders(root)
    with pytest.raises(UnsupportedFeatureError, match="'lzo' cannot be written to parquet"):
        session.sql("INSERT INTO db.z VALUES (1, 'new', 1)")
    assert _folders(root) == before


@pytest.mark.parametrize("key", ["ignore-delete", "deduplicate.ignore-delete"])
def test_delete_on_an_ignore_delete_table_is_refused(tmp_path, key):
    """Java's writer drops the -D records of such a table: the DELETE would report rows it kept."""
    s = paimon_sql.connect(tmp_path, create=True)
    s.sql("CREATE DATABASE db")
    s.sql(
        "CREATE TABLE db.ig (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('{key}' = 'true')"
    )
    s.sql("INSERT INTO db.ig VALUES (1, 'a'), (2, 'b')")
    for statement in (
        "DELETE FROM db.ig WHERE id = 1",
        "MERGE INTO db.ig USING (SELECT 1 AS id) AS s ON ig.id = s.id WHEN MATCHED THEN DELETE",
    ):
        with pytest.raises(UnsupportedFeatureError, match="'ignore-delete' = 'true' drops delete"):
            s.sql(statement)
    assert s.table("db.ig").snapshot_ids() == [1]
    s.sql("UPDATE db.ig SET v = 'B' WHERE id = 2")  # +U records: not dropped
    assert s.sql("SELECT * FROM db.ig ORDER BY id").fetchall() == [(1, "a"), (2, "B")]


def test_a_nanosecond_timestamp_partition_is_written_and_read_back(session, tmp_path):
    # the folder, the manifest's partition row and the reader's path all keep the nanoseconds
    # (before: the row kept microseconds, so the reader looked in another folder)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (ts TIMESTAMP(9), v INT) PARTITIONED BY (ts)")
    session.sql("INSERT INTO db.t VALUES (TIMESTAMP_NS '2024-01-02 03:04:05.123456789', 1)")
    folders = [p.name for p in (tmp_path / "wh" / "db.db" / "t").iterdir() if "=" in p.name]
    assert folders == ["ts=2024-01-02T03%3A04%3A05.123456789"]
    assert session.sql("SELECT CAST(ts AS VARCHAR), v FROM db.t").fetchall() == [
        ("2024-01-02 03:04:05.123456789", 1)
    ]
