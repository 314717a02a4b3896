"""s3:// warehouses against a real S3 server: URIs, create/insert/select, listings, bad input."""

from __future__ import annotations

import os

import pytest

import paimon_sql
from paimon_sql.errors import (
    StorageAccessError,
    StorageError,
    UnsupportedFeatureError,
    WarehouseNotFoundError,
)
from paimon_sql.io.objectstore import FOLDER_MARKER, ObjectStoreFileIO


def test_server_refuses_a_second_conditional_put(s3_env, bucket):
    """The atomicity tests mean something only if the server answers 412 to a second create."""
    import obstore
    from obstore.store import S3Store

    store = S3Store(bucket, config=s3_env.options())
    obstore.put(store, "k", b"1", mode="create")
    with pytest.raises(obstore.exceptions.AlreadyExistsError, match="412"):
        obstore.put(store, "k", b"2", mode="create")
    assert bytes(obstore.get(store, "k").bytes()) == b"1"


def test_try_create_wins_once(s3_env, bucket):
    io = ObjectStoreFileIO(f"s3://{bucket}/wh")
    path = f"s3://{bucket}/wh/t/snapshot/snapshot-1"
    assert io.try_create(path, b"first")
    assert not io.try_create(path, b"second")
    assert io.try_create(path, b"first")  # a retried PUT meeting its own object
    assert io.read_bytes(path) == b"first"


@pytest.mark.slow
def test_create_insert_select(s3_warehouse, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id')")
    s.sql("INSERT INTO d.t VALUES (1, 'a'), (2, 'b')")
    s.sql("INSERT INTO d.t VALUES (2, 'c')")
    assert s.sql("SELECT * FROM d.t ORDER BY id").fetchall() == [(1, "a"), (2, "c")]
    s.close()
    assert not os.listdir(tmp_path), "nothing may be created on local disk"
    again = paimon_sql.connect(s3_warehouse)
    assert again.catalog.databases() == ["d"]
    assert again.sql("SELECT count(*) FROM d.t").fetchall() == [(2,)]
    again.close()


def test_empty_database_is_listed_and_dropped(s3_warehouse):
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE e")
    assert s.catalog.databases() == ["e"]
    assert s.catalog.fileio.list_names(s.catalog.database_path("e")) == []
    s.sql("DROP DATABASE e")
    assert s.catalog.databases() == []
    names = [p.rsplit("/", 1)[-1] for p in s.catalog.fileio.walk(s3_warehouse)]
    assert names == [FOLDER_MARKER]  # the warehouse's own marker only
    s.close()


def test_storage_options_instead_of_environment(s3_server, bucket, monkeypatch):
    for key in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    s = paimon_sql.connect(f"s3://{bucket}/wh", create=True, storage_options=s3_server.options())
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.t (x INT)")
    s.sql("INSERT INTO d.t VALUES (7)")
    assert s.sql("SELECT x FROM d.t").fetchall() == [(7,)]
    assert any(
        p.endswith("/snapshot/snapshot-1") for p in s.catalog.fileio.walk(f"s3://{bucket}/wh")
    )
    s.close()


def test_profile(s3_server, bucket, monkeypatch, tmp_path):
    for key in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(key)
    credentials = tmp_path / "credentials"
    credentials.write_text(
        f"[lake]\naws_access_key_id = {s3_server.options()['aws_access_key_id']}\n"
        "aws_secret_access_key = whatever\n"
    )
    config = tmp_path / "config"
    config.write_text(f"[profile lake]\nregion = us-east-1\nendpoint_url = {s3_server.endpoint}\n")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "lake")
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    s = paimon_sql.connect(f"s3://{bucket}/wh", create=True)
    assert s.catalog.databases() == []
    s.close()
    monkeypatch.setenv("AWS_PROFILE", "missing")
    with pytest.raises(StorageAccessError, match="missing"):
        paimon_sql.connect(f"s3://{bucket}/wh")


def test_missing_warehouse_is_not_created(s3_warehouse):
    with pytest.raises(WarehouseNotFoundError, match=s3_warehouse):
        paimon_sql.connect(s3_warehouse)


def test_missing_bucket(s3_env, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        WarehouseNotFoundError,
        match=r"bucket 'no-such-bucket' does not exist.*s3://no-such-bucket/wh",
    ):
        paimon_sql.connect("s3://no-such-bucket/wh", create=True)
    assert not os.listdir(tmp_path)


def test_unknown_scheme(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnsupportedFeatureError, match="ftp://host/wh"):
        paimon_sql.connect("ftp://host/wh", create=True)
    assert not os.listdir(tmp_path)


def test_bad_credentials(s3_env, bucket, monkeypatch):
    paimon_sql.connect(f"s3://{bucket}/wh", create=True).close()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "wrong-key")
    with pytest.raises(StorageAccessError, match=f"s3://{bucket}/wh"):
        paimon_sql.connect(f"s3://{bucket}/wh")


def _race_create(io: ObjectStoreFileIO, path: str, writers: int) -> int:
    import threading

    barrier = threading.Barrier(writers)
    wins = []

    def attempt(n: int) -> None:
        barrier.wait()
        if io.try_create(path, f"writer {n}".encode()):
            wins.append(n)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(wins)


def test_racing_creates_have_one_winner(s3_env, bucket):
    io = ObjectStoreFileIO(f"s3://{bucket}/wh")
    for n in range(3):
        assert _race_create(io, f"s3://{bucket}/wh/snapshot-{n}", 8) == 1


def test_single_writer_mode_is_not_atomic(s3_env, bucket, caplog):
    """Why conditional puts matter: "exists, then write" lets racing writers all win."""
    io = ObjectStoreFileIO(f"s3://{bucket}/wh", {"single_writer": "true"})
    assert "single-writer mode" in caplog.text
    assert max(_race_create(io, f"s3://{bucket}/wh/snapshot-{n}", 8) for n in range(3)) > 1


def test_large_files_go_up_as_multipart_uploads(s3_env, bucket):
    io = ObjectStoreFileIO(f"s3://{bucket}/wh")
    data = os.urandom(12 * 1024 * 1024)
    start = len(s3_env.app.log)
    io.write_bytes(f"s3://{bucket}/wh/big", data)
    log = s3_env.app.log[start:]
    assert any(line.startswith("POST") and "uploads" in line for line in log), log
    assert sum(line.startswith("PUT") and "partNumber" in line for line in log) >= 3
    assert io.read_range(f"s3://{bucket}/wh/big", 5, 10) == data[5:10]
    assert io.read_bytes(f"s3://{bucket}/wh/big") == data


def test_reads_fetch_only_the_projected_columns(s3_warehouse):
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.t (id BIGINT, wide STRING) WITH ('primary-key' = 'id', 'bucket' = '1')")
    s.sql(
        "INSERT INTO d.t SELECT i, md5(i::VARCHAR) || md5((i + 1)::VARCHAR) FROM range(50000) r(i)"
    )
    io = s.catalog.fileio
    data = sum(io.file_size(p) for p in io.walk(s3_warehouse) if p.endswith(".parquet"))
    before = io.bytes_fetched
    assert s.sql("SELECT sum(id) FROM d.t").fetchall() == [(sum(range(50000)),)]
    narrow = io.bytes_fetched - before
    before = io.bytes_fetched
    assert len(s.sql("SELECT * FROM d.t").fetchall()) == 50000
    full = io.bytes_fetched - before
    s.close()
    assert narrow < data / 2 < full, (narrow, data, full)


def test_tags_expiration_orphans_and_drop(s3_warehouse):
    """Maintenance that lists files and reads modification times works on object keys."""
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.t (id INT, v STRING) WITH ('primary-key' = 'id', 'bucket' = '1')")
    for i in range(3):
        s.sql(f"INSERT INTO d.t VALUES ({i}, 'v{i}')")  # noqa: S608 (ints)
    s.sql("CALL sys.create_tag(table => 'd.t', tag => 'first', snapshot => 1)")
    assert s.sql('SELECT tag_name, snapshot_id FROM d."t$tags"').fetchall() == [("first", 1)]
    s.sql("CALL sys.expire_snapshots(table => 'd.t', retain_max => 1)")
    assert s.table("d.t").snapshot_ids() == [3]
    io = s.catalog.fileio
    stray = f"{s3_warehouse}/d.db/t/bucket-0/data-stray.parquet"
    io.write_bytes(stray, b"not referenced")
    s.sql("CALL sys.remove_orphan_files(table => 'd.t', older_than => '2999-01-01 00:00:00')")
    assert not io.exists(stray)
    assert s.sql("SELECT * FROM d.t ORDER BY id").fetchall() == [(0, "v0"), (1, "v1"), (2, "v2")]
    assert s.sql("SELECT * FROM d.t VERSION AS OF 'first'").fetchall() == [(0, "v0")]
    s.sql("DROP TABLE d.t")
    assert not [p for p in io.walk(s3_warehouse) if "/d.db/t/" in p]
    s.close()


def test_a_failed_statement_removes_what_it_uploaded(s3_env, s3_warehouse):
    import re

    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.t (id INT, v STRING) WITH ('primary-key' = 'id', 'bucket' = '2')")
    s.sql("INSERT INTO d.t VALUES (1, 'a')")
    io = s.catalog.fileio
    before = sorted(io.walk(s3_warehouse))
    s3_env.app.deny = re.compile(r"^PUT .*/snapshot/snapshot-2$")
    try:
        with pytest.raises(StorageAccessError, match="snapshot-2"):
            s.sql("INSERT INTO d.t SELECT i, 'x' FROM range(100) r(i)")
    finally:
        s3_env.app.deny = None
    uploads = [line for line in s3_env.app.log if line.startswith("PUT") and ".parquet" in line]
    assert uploads, "the statement uploaded data files before its commit failed"
    assert sorted(io.walk(s3_warehouse)) == before
    assert s.sql("SELECT * FROM d.t").fetchall() == [(1, "a")]
    s.close()


def test_a_store_without_conditional_puts_refuses_commits(s3_server, s3_env, bucket):
    options = {"aws_conditional_put": "disabled"}
    s = paimon_sql.connect(f"s3://{bucket}/wh", create=True, storage_options=options)
    s.sql("CREATE DATABASE d")
    with pytest.raises(StorageError, match="single_writer"):
        s.sql("CREATE TABLE d.t (x INT)")
    s.close()


def test_a_snapshot_put_whose_answer_is_lost_still_counts_once(s3_env, s3_warehouse):
    """The PUT lands but its answer is a 500: obstore retries, meets its own object (412), and the
    commit is reported once, with one snapshot, not re-planned into a second one."""
    import re

    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.t (id INT, v STRING)")
    s3_env.app.lose_once = re.compile(r"^PUT .*/snapshot/snapshot-1$")
    s.sql("INSERT INTO d.t VALUES (1, 'a')")
    assert s3_env.app.lose_once is None, "the fault was injected"
    assert s.table("d.t").snapshot_ids() == [1]
    assert s.sql("SELECT * FROM d.t").fetchall() == [(1, "a")]
    s.close()
