"""Expiration, tag clean-up, rollback and orphan files on real tables written with SQL; no mocks.

Every test checks two things besides the rows: every remaining snapshot and tag reads exactly as
before, and the table folder holds exactly the files the remaining snapshots and tags use (computed
here from the raw Avro records, independently of the code under test): nothing used was deleted,
nothing unused was left behind.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

import paimon_sql
from paimon_sql.commit.expire import clean_after_tag_deletion, expire_by_options, expire_snapshots
from paimon_sql.commit.orphans import remove_orphan_files
from paimon_sql.commit.rollback import rollback, rollback_to_timestamp
from paimon_sql.errors import InvalidNameError, SnapshotNotFoundError, SqlError
from paimon_sql.io import read_records

KINDS = {
    "pk": "CREATE TABLE db.t (id BIGINT NOT NULL, dt STRING NOT NULL, v INT) PARTITIONED BY (dt) "
    "WITH ('bucket' = '2', 'primary-key' = 'id,dt')",
    "append": "CREATE TABLE db.t (id BIGINT, dt STRING, v INT) PARTITIONED BY (dt) "
    "WITH ('bucket' = '-1')",
}
# What makes DELETE entries: INSERT OVERWRITE (static and dynamic), DELETE, UPDATE, compact.
HISTORY = [
    "INSERT INTO db.t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3)",
    "INSERT INTO db.t VALUES (4, 'b', 4), (5, 'c', 5)",
    "INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 10, 'a', 10",
    "DELETE FROM db.t WHERE id = 3",
    "INSERT INTO db.t VALUES (6, 'a', 6)",
    "CALL sys.compact(table => 'db.t')",  # rewrites and level upgrades: DELETE + ADD of one file
    "UPDATE db.t SET v = 50 WHERE id = 5",
    "INSERT OVERWRITE db.t SELECT 20, 'b', 20",
    "INSERT INTO db.t VALUES (7, 'c', 7), (8, 'a', 8)",
    "DELETE FROM db.t WHERE dt = 'c'",
    "CALL sys.compact(table => 'db.t')",
    "INSERT INTO db.t VALUES (9, 'b', 9)",
]
METADATA = ("snapshot", "schema", "tag")


@pytest.fixture
def session(tmp_path):
    return paimon_sql.connect(tmp_path / "wh", create=True)


def _build(session, kind="pk", statements=HISTORY, options=""):
    session.sql("CREATE DATABASE IF NOT EXISTS db")
    ddl = KINDS[kind]
    if options:
        ddl = ddl[:-1] + ", " + options + ")"
    session.sql(ddl)
    for statement in statements:
        session.sql(statement)
    return session.table("db.t")


def _tag(table, name, snapshot_id):
    """Java's tag format without retention: the snapshot file copied to tag/tag-<name>."""
    os.makedirs(table.meta("tag"), exist_ok=True)
    shutil.copyfile(
        table.meta("snapshot", f"snapshot-{snapshot_id}"), table.meta("tag", f"tag-{name}")
    )


def _rows(session, version=None):
    query = "SELECT * FROM db.t"
    if isinstance(version, int):
        query += " VERSION AS OF " + str(version)
    elif version is not None:
        query += " VERSION AS OF '" + version + "'"
    return sorted(session.sql(query).fetchall(), key=repr)


def _versions(table):
    return [*table.snapshot_ids(), *table.tag_names()]


def _all_reads(session, table):
    return {v: _rows(session, v) for v in _versions(table)}


def _records(table, name):
    return read_records(table.fileio, table.sub("manifest", name))


def _used(table):
    """(metadata names, data file names) the snapshots and tags use, from the raw Avro records."""
    metadata, data = set(), set()
    versions = [table.snapshot(i) for i in table.snapshot_ids()] + [
        table.tag(n) for n in table.tag_names()
    ]
    for s in versions:
        live = {}
        for list_name in (s.base_manifest_list, s.delta_manifest_list):
            metadata.add(list_name)
            for meta in _records(table, list_name):
                metadata.add(meta["_FILE_NAME"])
                for entry in _records(table, meta["_FILE_NAME"]):
                    key = (entry["_PARTITION"], entry["_BUCKET"], entry["_FILE"]["_FILE_NAME"])
                    if entry["_KIND"] == 0:
                        live[key] = entry["_FILE"]
                    else:
                        live.pop(key, None)
        data.update(f["_FILE_NAME"] for f in live.values())
        if s.changelog_manifest_list:
            metadata.add(s.changelog_manifest_list)
            for meta in _records(table, s.changelog_manifest_list):
                metadata.add(meta["_FILE_NAME"])
                data.update(e["_FILE"]["_FILE_NAME"] for e in _records(table, meta["_FILE_NAME"]))
        if s.index_manifest:
            metadata.add(s.index_manifest)
            data.update(e["_FILE_NAME"] for e in _records(table, s.index_manifest))
    return metadata, data


def _on_disk(table):
    metadata, data = set(), set()
    for folder, _, files in os.walk(table.path):
        rel = os.path.relpath(folder, table.path)
        if rel.split(os.sep)[0] in METADATA:
            continue
        (metadata if rel == "manifest" else data).update(f for f in files if not f.startswith("."))
    return metadata, data


def assert_exactly_used(table):
    used_meta, used_data = _used(table)
    disk_meta, disk_data = _on_disk(table)
    assert used_meta <= disk_meta, f"deleted but still used: {sorted(used_meta - disk_meta)}"
    assert used_data <= disk_data, f"deleted but still used: {sorted(used_data - disk_data)}"
    assert disk_meta == used_meta, f"left behind: {sorted(disk_meta - used_meta)}"
    assert disk_data == used_data, f"left behind: {sorted(disk_data - used_data)}"


# --- expiration ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("retain_max", [1, 2, 4, 7])
def test_expire_keeps_what_remains_and_deletes_the_rest(session, kind, retain_max):
    table = _build(session, kind)
    latest = table.latest_snapshot_id()
    assert latest == len(HISTORY)
    _tag(table, "t3", 3)  # inside the expired range, on an OVERWRITE
    _tag(table, "t6", 6)
    before = _all_reads(session, table)
    assert_exactly_used(table)
    expired = expire_snapshots(table, retain_max=retain_max)
    assert expired == latest - retain_max
    assert table.snapshot_ids() == list(range(latest - retain_max + 1, latest + 1))
    assert table.fileio.read_text(table.meta("snapshot", "EARLIEST")) == str(
        latest - retain_max + 1
    )
    assert _all_reads(session, table) == {v: before[v] for v in _versions(table)}
    assert_exactly_used(table)


def test_a_tag_keeps_its_files_and_deleting_it_frees_them(session):
    table = _build(session)
    _tag(table, "old", 2)
    expected = _rows(session, "old")
    expire_snapshots(table, retain_max=1)
    assert table.snapshot_ids() == [len(HISTORY)]
    assert (
        _rows(session, "old") == expected
    )  # its data files survived though they were DELETEd later
    tagged = table.tag("old")
    os.unlink(table.meta("tag", "tag-old"))
    deleted = clean_after_tag_deletion(table, tagged)
    assert deleted > 0
    assert_exactly_used(table)
    assert _rows(session) == _rows(session, len(HISTORY))


def test_tag_clean_up_keeps_files_of_a_live_snapshot_or_another_tag(session):
    table = _build(session)
    _tag(table, "a", 4)
    _tag(table, "b", 4)
    expire_snapshots(table, retain_max=2)
    os.unlink(table.meta("tag", "tag-a"))
    assert clean_after_tag_deletion(table, table.tag("b")) == 0  # "b" still holds snapshot 4
    _tag(table, "live", len(HISTORY))
    os.unlink(table.meta("tag", "tag-live"))
    assert clean_after_tag_deletion(table, table.snapshot(len(HISTORY))) == 0
    assert_exactly_used(table)


def test_older_than_stops_at_the_first_young_snapshot_and_retain_min_wins(session):
    table = _build(session)
    times = {i: table.snapshot(i).time_millis for i in table.snapshot_ids()}
    # older_than = time of snapshot 5: older ids go, expiration stops at 5 (`olderThan <= time`).
    expired = expire_snapshots(table, older_than_ms=times[5])
    assert expired == len([i for i in times if times[i] < times[5]])
    assert table.snapshot_ids()[0] == 1 + expired
    expire_snapshots(table, older_than_ms=times[len(HISTORY)] + 1, retain_min=3)
    assert table.snapshot_ids() == list(range(len(HISTORY) - 2, len(HISTORY) + 1))
    assert_exactly_used(table)


def test_max_deletes_and_defaults(session):
    table = _build(session)
    assert expire_snapshots(table) == 0  # the procedure's defaults keep everything
    assert expire_snapshots(table, retain_max=1, max_deletes=3) == 3
    assert table.snapshot_ids()[0] == 4
    assert expire_snapshots(table, retain_max=1, max_deletes=3) == 3
    assert_exactly_used(table)
    with pytest.raises(ValueError, match="retain_max"):
        expire_snapshots(table, retain_max=1, retain_min=2)


def test_a_consumer_holds_its_next_snapshot(session):
    table = _build(session)
    os.makedirs(table.meta("consumer"))
    with open(table.meta("consumer", "consumer-job"), "w") as fh:
        fh.write('{"nextSnapshot": 4}')
    assert expire_snapshots(table, retain_max=1) == 3
    assert table.snapshot_ids()[0] == 4


def test_expire_procedure(session):
    table = _build(session)
    before = _rows(session)
    expired = session.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 3)").fetchall()
    assert expired == [(len(HISTORY) - 3,)]
    assert session.sql("CALL sys.expire_snapshots('db.t', 3)").fetchall() == [(0,)]
    assert session.sql(
        "CALL sys.expire_snapshots(table => 'db.t', older_than => '2999-01-01', retain_min => 2)"
    ).fetchall() == [(1,)]
    assert _rows(session) == before
    assert_exactly_used(table)
    with pytest.raises(SqlError, match="retain_max"):
        session.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1, retain_min => 2)")
    # a date without dashes is no epoch-milliseconds count (it expired nothing, silently): Java's
    # older_than is 'yyyy-MM-dd[ HH:mm:ss]' and refuses it too
    for call in ("expire_snapshots", "remove_orphan_files"):
        with pytest.raises(SqlError, match=r"'29990101' is not a timestamp.*YYYY-MM-DD"):
            session.sql(f"CALL sys.{call}(table => 'db.t', older_than => '29990101')")
    assert len(table.snapshot_ids()) == 2


# --- expiration at commit time --------------------------------------------------------------------


def test_default_options_expire_nothing_written_within_the_hour(session):
    table = _build(session, statements=HISTORY + HISTORY[:4])
    assert table.snapshot_ids() == list(range(1, len(HISTORY) + 5))


def test_num_retained_max_expires_at_commit(session):
    table = _build(
        session, options="'snapshot.num-retained.min' = '2', 'snapshot.num-retained.max' = '3'"
    )
    assert table.snapshot_ids() == [len(HISTORY) - 2, len(HISTORY) - 1, len(HISTORY)]
    assert_exactly_used(table)
    session.sql("INSERT INTO db.t VALUES (100, 'a', 100)")
    assert table.snapshot_ids() == [len(HISTORY) - 1, len(HISTORY), len(HISTORY) + 1]


def test_time_retained_and_limit_at_commit(session):
    options = (
        "'snapshot.num-retained.min' = '2', 'snapshot.time-retained' = '1 ms', "
        "'snapshot.expire.limit' = '3'"
    )
    table = _build(session, statements=HISTORY[:2], options=options)
    assert table.snapshot_ids() == [1, 2]  # min 2 keeps both
    for statement in HISTORY[4:6]:
        time.sleep(0.01)
        session.sql(statement)
    assert table.snapshot_ids() == [3, 4]
    assert_exactly_used(table)


def test_expire_limit_and_age_at_commit(session):
    table = _build(
        session, options="'snapshot.num-retained.min' = '1', 'snapshot.expire.limit' = '3'"
    )
    assert table.snapshot_ids() == list(
        range(1, len(HISTORY) + 1)
    )  # all younger than the default hour
    two_hours_later = int(time.time() * 1000) + 2 * 3600 * 1000
    assert expire_by_options(table, table.latest_snapshot(), now_ms=two_hours_later) == 3
    assert table.snapshot_ids()[0] == 4
    assert expire_by_options(table, table.latest_snapshot(), now_ms=two_hours_later) == 3
    assert_exactly_used(table)


def test_write_only_never_expires(session):
    retain = ("'snapshot.num-retained.min' = '1'", "'snapshot.num-retained.max' = '1'")
    options = ", ".join([*retain, "'write-only' = 'true'"])
    table = _build(session, options=options)
    assert table.snapshot_ids() == list(range(1, len(HISTORY) + 1))


# --- rollback -------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
def test_rollback_to_a_snapshot_then_write_on(session, kind):
    table = _build(session, kind)
    _tag(table, "early", 2)
    _tag(table, "late", 8)
    before = _all_reads(session, table)
    assert session.sql("CALL sys.rollback(table => 'db.t', version => '5')").fetchall() == [(True,)]
    assert table.snapshot_ids() == [1, 2, 3, 4, 5]
    assert table.tag_names() == ["early"]  # the tag of snapshot 8 went with it
    assert table.fileio.read_text(table.meta("snapshot", "LATEST")) == "5"
    assert _all_reads(session, table) == {v: before[v] for v in _versions(table)}
    assert_exactly_used(table)
    session.sql("INSERT INTO db.t VALUES (100, 'a', 100)")
    assert table.latest_snapshot_id() == 6
    assert _rows(session) == sorted([*before[5], (100, "a", 100)], key=repr)
    assert_exactly_used(table)


def test_rollback_to_a_tag_whose_snapshot_expired(session):
    table = _build(session)
    _tag(table, "keep", 3)
    expected = _rows(session, "keep")
    expire_snapshots(table, retain_max=2)
    session.sql("CALL sys.rollback('db.t', 'keep')")
    assert table.snapshot_ids() == [3]
    assert table.fileio.read_text(table.meta("snapshot", "EARLIEST")) == "3"
    assert _rows(session) == expected == _rows(session, "keep") == _rows(session, 3)
    session.sql("INSERT INTO db.t VALUES (100, 'a', 100)")
    assert _rows(session) == sorted([*expected, (100, "a", 100)], key=repr)
    # Files the expired snapshots added that the tag lacks would be left, as in Java (orphans then).
    remove_orphan_files(table, int(time.time() * 1000) + 1000)
    assert_exactly_used(table)


def test_rollback_to_an_expired_snapshot_id_goes_through_its_tag(session):
    """Paimon 1.x: an expired snapshot id that a tag holds is rolled back to through that tag
    (compared with Java in test_lifecycle_flink.py); one no tag holds is refused."""
    table = _build(session)
    _tag(table, "keep", 3)
    expected = _rows(session, "keep")
    expire_snapshots(table, retain_max=2)
    with pytest.raises(SnapshotNotFoundError, match=r"snapshot 2: it does not exist.*no tag holds"):
        session.sql("CALL sys.rollback(table => 'db.t', snapshot => 2)")
    session.sql("CALL sys.rollback(table => 'db.t', snapshot => 3)")
    assert table.snapshot_ids() == [3]
    assert _rows(session) == expected


def _branch(table, name, tag):
    """Java's createBranch(name, tag): its tag, snapshot and schemas copied to the branch."""
    root = table.sub("branch", f"branch-{name}")
    snapshot_id = table.tag(tag).id
    for folder in ("tag", "snapshot", "schema"):
        os.makedirs(os.path.join(root, folder))
    shutil.copyfile(table.meta("tag", f"tag-{tag}"), os.path.join(root, "tag", f"tag-{tag}"))
    snapshot = f"snapshot-{snapshot_id}"
    shutil.copyfile(table.meta("snapshot", snapshot), os.path.join(root, "snapshot", snapshot))
    for schema in os.listdir(table.meta("schema")):
        shutil.copyfile(table.meta("schema", schema), os.path.join(root, "schema", schema))


@pytest.mark.parametrize("how", ["delete_tag", "expire", "rollback"])
def test_no_procedure_deletes_a_file_a_branch_still_uses(session, how):
    """A branch made from a tag shares that snapshot's files with the main branch; deleting the tag
    once its snapshot expired (or expiring the snapshot once the tag is gone, or rolling back past
    it) used to delete them, as Java 1.3 does (checked through Flink): the branch then failed to
    read. Other branches' files are kept; remove_orphan_files, which sees every branch, too."""
    table = _build(session)
    tagged = 2 if how != "rollback" else len(HISTORY)
    _tag(table, "a", tagged)
    _branch(table, "br", "a")
    expected = _rows(session, "a")
    if how == "delete_tag":
        expire_snapshots(table, retain_max=1)
        session.sql("CALL sys.delete_tag(table => 'db.t', tag => 'a')")
    elif how == "expire":
        session.sql("CALL sys.delete_tag(table => 'db.t', tag => 'a')")  # its snapshot is live
        expire_snapshots(table, retain_max=1)
    else:
        session.sql("CALL sys.rollback(table => 'db.t', snapshot => 1)")  # drops tag a too
    assert table.tag_names() == []
    branch = sorted(session.sql('SELECT * FROM db."t$branch_br"').fetchall(), key=repr)
    assert branch == expected
    assert remove_orphan_files(table, int(time.time() * 1000) + 1000) == []


@pytest.mark.parametrize("name", ["release:2024", "..", "a\\b"])
def test_a_tag_java_named_unlike_ours_is_listed_read_and_kept(session, name):
    """Java creates tags paimon-sql would refuse to name ('release:2024', '..': one file
    tag/tag-<name> all the same). They were left out of the listing, so expiration did not see
    them and deleted the files they hold (Flink then failed on the tag)."""
    table = _build(session)
    _tag(table, name, 2)
    expected = _rows(session, 2)
    assert name in table.tag_names()
    expire_snapshots(table, retain_max=1)
    assert table.tag(name).id == 2
    assert sorted(session.sql("SELECT tag_name FROM db.t$tags").fetchall()) == [(name,)]
    assert _rows(session, name) == expected
    assert_exactly_used(table)
    with pytest.raises(InvalidNameError, match="invalid tag name"):
        session.sql("CALL sys.create_tag(table => 'db.t', tag => 'other:name')")


def test_rollback_arguments(session):
    table = _build(session)
    with pytest.raises(SnapshotNotFoundError, match="snapshot 99"):
        session.sql("CALL sys.rollback(table => 'db.t', version => '99')")
    with pytest.raises(SnapshotNotFoundError, match="nope"):
        rollback(table, tag="nope")
    with pytest.raises(SqlError, match="exactly one"):
        session.sql("CALL sys.rollback(table => 'db.t')")
    session.sql("CALL sys.rollback(table => 'db.t', snapshot => 9)")
    assert table.latest_snapshot_id() == 9
    assert table.snapshot_ids()[-1] == 9


def test_rollback_to_timestamp(session):
    table = _build(session)
    before = _all_reads(session, table)
    at = table.snapshot(6).time_millis
    target = max(i for i in table.snapshot_ids() if table.snapshot(i).time_millis <= at)
    out = session.sql(
        f"CALL sys.rollback_to_timestamp(table => 'db.t', timestamp => {at})"
    ).fetchall()
    assert out == [(f"Success roll back to snapshot: {target} .",)]
    assert table.latest_snapshot_id() == target
    assert table.snapshot(table.latest_snapshot_id()).time_millis <= at
    assert _rows(session) == before[table.latest_snapshot_id()]
    assert_exactly_used(table)
    with pytest.raises(SnapshotNotFoundError, match="no snapshot") as caught:
        rollback_to_timestamp(table, 0)
    assert "back to 1970-01-01 " in str(caught.value)  # the time as a time: 0 is not a snapshot id


# --- orphan files ---------------------------------------------------------------------------------


def test_remove_orphan_files(session):
    table = _build(session, statements=HISTORY[:4])
    day_ago = time.time() - 2 * 86400
    old_data = table.sub("dt=a", "bucket-0", "data-stray-old.parquet")
    new_data = table.sub("dt=a", "bucket-0", "data-stray-new.parquet")
    old_manifest = table.sub("manifest", "manifest-stray-old")
    old_meta = table.sub("snapshot", "stray-in-snapshot")
    for path in (old_data, new_data, old_manifest, old_meta):
        with open(path, "wb") as fh:
            fh.write(b"x")
    for path in (old_data, old_manifest, old_meta):
        os.utime(path, (day_ago, day_ago))
    for folder, _, files in os.walk(
        table.path
    ):  # even used files are old now: only names protect them
        for f in files:
            if "stray" not in f:
                os.utime(os.path.join(folder, f), (day_ago, day_ago))
    before = _all_reads(session, table)
    rows = session.sql("CALL sys.remove_orphan_files(table => 'db.t', dry_run => true)").fetchall()
    assert sorted(r[0] for r in rows) == sorted([old_data, old_manifest])
    assert os.path.exists(old_data)
    rows = session.sql("CALL sys.remove_orphan_files(table => 'db.t')").fetchall()
    assert sorted(r[0] for r in rows) == sorted([old_data, old_manifest])
    assert not os.path.exists(old_data)
    assert not os.path.exists(old_manifest)
    assert os.path.exists(
        new_data
    )  # younger than a day: a concurrent writer may be about to commit it
    assert os.path.exists(old_meta)  # snapshot/ is never touched
    assert _all_reads(session, table) == before
    rows = session.sql(
        "CALL sys.remove_orphan_files(table => 'db.*', older_than => '2999-01-01 00:00:00')"
    ).fetchall()
    assert [r[0] for r in rows] == [new_data]
    assert_exactly_used(table)


def test_a_crashed_expiration_finishes_when_run_again(session, tmp_path):
    """A run that died after deleting data files and some manifests: a second run completes it."""
    table = _build(session)
    _tag(table, "t4", 4)
    done = tmp_path / "done"
    shutil.copytree(table.path, done)
    expire_snapshots(table, retain_max=3)  # the complete run, for reference
    finished = _on_disk(table)
    shutil.rmtree(table.path)
    shutil.copytree(done, table.path)
    table = paimon_sql.connect(tmp_path / "wh").table("db.t")
    # The crash: every data file and half the manifests the complete run deleted are gone, but no
    # snapshot file yet (Java's order: data files, then per snapshot its manifests and its file).
    meta_gone = sorted(_on_disk(table)[0] - finished[0])
    data_gone = _on_disk(table)[1] - finished[1]
    assert meta_gone
    assert data_gone
    for folder, _, files in os.walk(table.path):
        for f in files:
            if f in data_gone or f in meta_gone[::2]:
                os.unlink(os.path.join(folder, f))
    assert expire_snapshots(table, retain_max=3) == len(HISTORY) - 3
    assert _on_disk(table) == finished
    assert_exactly_used(table)
