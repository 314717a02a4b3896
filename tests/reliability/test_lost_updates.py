# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""Two writers change one key of a primary-key table at once: neither change is lost.

An UPDATE, DELETE, MERGE or INSERT … ON CONFLICT computes the rows it writes from the table as it
was when the statement started (``v = v + 1`` reads ``v``). When another writer commits a change to
one of those keys meanwhile, landing the statement's rows would silently undo that change: both
statements report success, one of them has no effect. Apache Paimon has no check for this (its
sequence numbers order the two writes, never the reads behind them).

paimon-sql refuses such a commit (first committer wins, as snapshot isolation): the later statement
fails with `CommitConflictError`, leaves no file behind, and lands when run again. Writes of other
keys, compactions and plain INSERTs (which read nothing) commit as before.

Each race is replayed deterministically (the other writer's statement runs just before this
writer's commit), then run for real: three processes increment four counters; every successful
increment is counted in the end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.errors import CommitConflictError
from tests.reliability import _commit

if TYPE_CHECKING:
    from pathlib import Path

FIXED = (
    "CREATE TABLE db.t (k INT NOT NULL, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')"
)
DYNAMIC = (
    "CREATE TABLE db.t (k INT NOT NULL, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '-1')"
)
VECTORS = (
    "CREATE TABLE db.t (k INT NOT NULL, v INT, PRIMARY KEY (k) NOT ENFORCED) "
    "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')"
)
LAYOUTS = {"fixed": FIXED, "dynamic": DYNAMIC, "vectors": VECTORS}

#: Statements that read key 1's value and write key 1, and the value they leave from v = 1.
READ_WRITE = {
    "update": ("UPDATE db.t SET v = v + 1 WHERE k = 1", 2),
    "delete": ("DELETE FROM db.t WHERE k = 1 AND v = 1", None),
    "merge": (
        "MERGE INTO db.t USING (SELECT 1 AS k) s ON db.t.k = s.k "
        "WHEN MATCHED THEN UPDATE SET v = db.t.v + 1",
        2,
    ),
    "on_conflict": (
        "INSERT INTO db.t VALUES (1, 1) ON CONFLICT DO UPDATE SET v = v + excluded.v",
        2,
    ),
    "insert_select": ("INSERT INTO db.t SELECT k, v + 1 FROM db.t WHERE k = 1", 2),
}


def _sessions(tmp_path: Path, ddl: str) -> tuple[paimon_sql.Session, paimon_sql.Session]:
    mine = paimon_sql.connect(tmp_path / "wh", create=True)
    mine.sql("CREATE DATABASE db")
    mine.sql(ddl)
    mine.sql("INSERT INTO db.t SELECT i, 1 FROM range(20) r(i)")
    return mine, paimon_sql.connect(tmp_path / "wh")


def _value(session: paimon_sql.Session, key: int) -> object:
    rows = session.sql(f"SELECT v FROM db.t WHERE k = {key}").fetchall()
    assert len(rows) <= 1
    return rows[0][0] if rows else None


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("statement", READ_WRITE)
def test_a_statement_that_read_a_key_another_writer_changed_meanwhile_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, statement: str
) -> None:
    """The other writer sets key 1 to 10 after this statement read v = 1: landing this
    statement's row (computed from 1) would erase the 10. It fails, leaves nothing, and run
    again it reads 10."""
    mine, other = _sessions(tmp_path, LAYOUTS[layout])
    text, _ = READ_WRITE[statement]
    ran = _commit.racing(monkeypatch, other, "UPDATE db.t SET v = 10 WHERE k = 1")
    with pytest.raises(
        CommitConflictError, match=r"db\.t.*snapshot \d+ \(APPEND.*run the statement again"
    ):
        mine.sql(text)
    monkeypatch.undo()
    assert ran
    assert _commit.left_behind(mine) == []
    assert _value(mine, 1) == 10
    mine.sql(text)  # run again: computed from 10
    expected = {"update": 11, "delete": 10, "merge": 11, "on_conflict": 11, "insert_select": 11}
    assert _value(mine, 1) == expected[statement]
    assert mine.sql("SELECT count(*), sum(v) FROM db.t WHERE k > 1").fetchall() == [(18, 18)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    "racing",
    [
        "INSERT INTO db.t VALUES (15, 7)",  # another key, far from key 1 in any file's key range
        "CALL sys.compact(table => 'db.t')",  # rewrites files, changes no value
    ],
    ids=["other_key", "compaction"],
)
def test_writers_of_other_keys_and_compactions_do_not_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, racing: str
) -> None:
    mine, other = _sessions(tmp_path, LAYOUTS[layout])
    ran = _commit.racing(monkeypatch, other, racing)
    mine.sql("UPDATE db.t SET v = v + 1 WHERE k = 1")
    monkeypatch.undo()
    assert ran
    assert _value(mine, 1) == 2
    assert _value(mine, 15) == (7 if racing.startswith("INSERT") else 1)


def test_a_plain_insert_of_a_key_written_meanwhile_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An INSERT of given values reads nothing, but both writers numbered their rows of key 1 from
    the same sequence number: the later commit's row could lose the tie (it did: the INSERT
    reported success and key 1 kept the other writer's 10). It fails instead; run again, it
    wins. An INSERT of other keys commits."""
    mine, other = _sessions(tmp_path, FIXED)
    ran = _commit.racing(monkeypatch, other, "UPDATE db.t SET v = 10 WHERE k = 1")
    with pytest.raises(CommitConflictError, match="sequence numbers as high"):
        mine.sql("INSERT INTO db.t VALUES (1, 5)")
    monkeypatch.undo()
    assert ran
    assert _commit.left_behind(mine) == []
    assert _value(mine, 1) == 10
    mine.sql("INSERT INTO db.t VALUES (1, 5)")
    assert _value(mine, 1) == 5
    _commit.racing(monkeypatch, other, "UPDATE db.t SET v = 11 WHERE k = 1")
    mine.sql("INSERT INTO db.t VALUES (15, 5)")
    monkeypatch.undo()
    assert (_value(mine, 1), _value(mine, 15)) == (11, 5)


def test_an_overwrite_of_the_partition_since_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = paimon_sql.connect(tmp_path / "wh", create=True)
    mine.sql("CREATE DATABASE db")
    mine.sql(
        "CREATE TABLE db.t (p INT NOT NULL, k INT NOT NULL, v INT, "
        "PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '2')"
    )
    mine.sql("INSERT INTO db.t VALUES (1, 1, 1), (1, 2, 1), (2, 1, 1)")
    other = paimon_sql.connect(tmp_path / "wh")
    _commit.racing(monkeypatch, other, "INSERT OVERWRITE db.t PARTITION (p = 1) VALUES (3, 3)")
    with pytest.raises(CommitConflictError, match="OVERWRITE"):
        mine.sql("UPDATE db.t SET v = v + 1 WHERE p = 1 AND k = 2")
    monkeypatch.undo()
    assert mine.sql("SELECT p, k, v FROM db.t ORDER BY p, k").fetchall() == [
        (1, 3, 3),
        (2, 1, 1),
    ]


def test_expired_snapshots_since_the_read_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What an expired snapshot wrote cannot be told: the statement fails rather than guess."""
    mine, other = _sessions(tmp_path, FIXED)
    _commit.racing(
        monkeypatch,
        other,
        "INSERT INTO db.t VALUES (15, 7)",
        "INSERT INTO db.t VALUES (16, 7)",
        "CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)",
    )
    with pytest.raises(CommitConflictError, match="expired"):
        mine.sql("UPDATE db.t SET v = v + 1 WHERE k = 1")
    monkeypatch.undo()
    assert _commit.left_behind(mine) == []
    mine.sql("UPDATE db.t SET v = v + 1 WHERE k = 1")
    assert _value(mine, 1) == 2


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["fixed", "vectors"])
def test_concurrent_increments_are_each_counted(tmp_path: Path, layout: str) -> None:
    """Three processes run ``UPDATE … SET v = v + 1`` on four keys at once (real races). Each
    statement lands or fails with a conflict; every key ends at the number of increments of it
    that reported success (a lost update leaves it lower)."""
    warehouse = str(tmp_path / "wh")
    mine = paimon_sql.connect(warehouse, create=True)
    mine.sql("CREATE DATABASE db")
    mine.sql(LAYOUTS[layout].replace("WITH (", "WITH ('commit.max-retries' = '60', "))
    mine.sql("INSERT INTO db.t SELECT i, 0 FROM range(4) r(i)")
    logs = [tmp_path / f"w{w}.log" for w in range(3)]
    _commit.run_workers(_commit.increment_worker, logs, warehouse, "db.t", 4, 15)
    counted = dict.fromkeys(range(4), 0)
    failures = []
    for log in logs:
        for line in log.read_text().splitlines():
            if line.startswith("ok "):
                counted[int(line.split()[2])] += 1
            else:
                failures.append(line)
    assert all("CommitConflictError" in f for f in failures), "\n".join(
        f for f in failures if "CommitConflictError" not in f
    )
    assert sum(counted.values()) > 0
    got = dict(mine.sql("SELECT k, v FROM db.t ORDER BY k").fetchall())
    assert got == counted
    assert _commit.left_behind(mine) == []
    print(f"\n{sum(counted.values())} of 45 increments landed, {len(failures)} conflicted")


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["fixed", "vectors"])
def test_concurrent_inserts_of_shared_keys_leave_the_last_commit_s_rows(
    tmp_path: Path, layout: str
) -> None:
    """Three processes INSERT overlapping keys at once (values: the statement's number). Each
    statement lands or conflicts; every key ends with the value of the last snapshot that wrote
    it (a later commit losing a sequence-number tie leaves an older value)."""
    warehouse = str(tmp_path / "wh")
    mine = paimon_sql.connect(warehouse, create=True)
    mine.sql("CREATE DATABASE db")
    ddl = LAYOUTS[layout].replace("k INT NOT NULL, v INT", "p INT, k INT NOT NULL, v INT")
    mine.sql(ddl.replace("WITH (", "WITH ('commit.max-retries' = '60', "))
    logs = [tmp_path / f"w{w}.log" for w in range(3)]
    _commit.run_workers(_commit.key_worker, logs, warehouse, "db.t", 1, 12)
    succeeded: set[int] = set()
    for log in logs:
        succeeded |= _commit.reported(log, "db.t")[0]
    failures = [line for log in logs for line in _commit.reported(log, "")[2]]
    assert all("CommitConflictError" in f for f in failures), "\n".join(
        f for f in failures if "CommitConflictError" not in f
    )
    table = mine.catalog.load_table(Identifier.parse("db.t"))
    last: dict[object, object] = {}  # key -> the value in the newest APPEND snapshot's new files
    for snapshot_id in table.snapshot_ids():
        snapshot = table.snapshot(snapshot_id)
        if snapshot.commit_kind.value != "APPEND":
            continue
        for meta in table.manifest_list(snapshot.delta_manifest_list):
            for entry in table.manifest(meta.file_name):
                path = tmp_path / "wh" / "db.db" / "t" / f"bucket-{entry.bucket}"
                rows = pq.read_table(path / entry.file.file_name, columns=["k", "v"])
                last.update(zip(rows["k"].to_pylist(), rows["v"].to_pylist(), strict=True))
    got = dict(mine.sql("SELECT k, v FROM db.t").fetchall())
    assert got == last
    assert set(got.values()) <= succeeded
    assert _commit.left_behind(mine) == []
    print(f"\n{len(succeeded)} of 36 statements landed, {len(failures)} conflicted")
