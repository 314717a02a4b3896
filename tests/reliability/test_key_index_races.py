# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""Two writers of one dynamic-bucket table: a key is never left in two buckets or two partitions.

A dynamic-bucket write gives each new key a bucket from the table's key index as it was when the
write started: the HASH index files of its partitions (``bucket = -1``, every partition column in
the key), or every key of the table (cross-partition keys, read from the data files). When another
writer commits new keys meanwhile, the index the write assigned against is stale:

* dynamic buckets: both writers may put one key in different buckets of a partition (each bucket
  then reads its own version: the key appears twice), and the later HASH file of a bucket replaces
  the earlier one, so the keys only the earlier one held are forgotten and their next write opens a
  second bucket for them;
* cross-partition keys: a key the other writer moved to a partition is retracted from the partition
  it was in before, and written again elsewhere, so it lives in two partitions.

Apache Paimon leaves this to the user (one writer job per such table). paimon-sql checks it when it
commits: the statement fails with `CommitConflictError` and makes no snapshot when a commit since
its start changed what it assigned against; it commits as usual when the others only touched other
partitions (dynamic buckets), only rewrote files (compaction), or only updated keys they knew.

Each race is replayed deterministically (the other writer's statement runs just before this
writer's commit), then run for real by three processes writing overlapping keys at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.errors import CommitConflictError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.bucket import row_hash
from paimon_sql.format.hash_index import decode_hashes
from paimon_sql.types import parse_type
from paimon_sql.write.writer import TableWriter
from tests.reliability import _commit

if TYPE_CHECKING:
    from pathlib import Path

DYNAMIC = (
    "CREATE TABLE db.t (p INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (p, id) NOT ENFORCED) "
    "PARTITIONED BY (p) WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '2')"
)
INT = parse_type("INT NOT NULL")
CROSS = (
    "CREATE TABLE db.t (p INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED) "
    "PARTITIONED BY (p) WITH ('bucket' = '-1')"
)


def _sessions(tmp_path: Path, ddl: str) -> tuple[paimon_sql.Session, paimon_sql.Session]:
    mine = paimon_sql.connect(tmp_path / "wh", create=True)
    mine.sql("CREATE DATABASE db")
    mine.sql(ddl)
    return mine, paimon_sql.connect(tmp_path / "wh")


def _rows(session: paimon_sql.Session) -> list[tuple[int, ...]]:
    return [tuple(r) for r in session.sql("SELECT p, id, v FROM db.t ORDER BY p, id").fetchall()]


def _duplicates(session: paimon_sql.Session, key: str) -> list[tuple[int, ...]]:
    query = f"SELECT {key}, count(*) FROM db.t GROUP BY {key} HAVING count(*) > 1"
    return [tuple(r) for r in session.sql(query).fetchall()]


def test_dynamic_buckets_a_racing_writer_of_new_keys_in_the_partition_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, other = _sessions(tmp_path, DYNAMIC)
    mine.sql("INSERT INTO db.t VALUES (1, 1, 0), (1, 2, 0)")  # bucket 0 is full (2 keys)
    # the other writer: keys 3, 4 fill bucket 1; this one, from the same base: 5, 6 in bucket 1,
    # 3 in bucket 2 -- key 3 would live in buckets 1 and 2, and key 4 drop out of the index
    ran = _commit.racing(monkeypatch, other, "INSERT INTO db.t VALUES (1, 3, 1), (1, 4, 1)")
    with pytest.raises(CommitConflictError, match=r"db\.t.*run the statement again"):
        mine.sql("INSERT INTO db.t VALUES (1, 5, 2), (1, 6, 2), (1, 3, 2)")
    monkeypatch.undo()
    assert ran
    assert _commit.left_behind(mine) == []
    assert _rows(mine) == [(1, 1, 0), (1, 2, 0), (1, 3, 1), (1, 4, 1)]
    mine.sql("INSERT INTO db.t VALUES (1, 5, 2), (1, 6, 2), (1, 3, 2)")  # run again: it lands
    mine.sql("INSERT INTO db.t VALUES (1, 4, 3)")
    assert _duplicates(mine, "p, id") == []
    assert _rows(mine) == [(1, 1, 0), (1, 2, 0), (1, 3, 2), (1, 4, 3), (1, 5, 2), (1, 6, 2)]


def test_dynamic_buckets_writers_of_other_partitions_or_known_keys_do_not_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, other = _sessions(tmp_path, DYNAMIC)
    mine.sql("INSERT INTO db.t VALUES (1, 1, 0), (1, 2, 0), (2, 1, 0)")
    # another partition's new keys, and an update of keys this partition already indexes
    _commit.racing(monkeypatch, other, "INSERT INTO db.t VALUES (2, 7, 1), (1, 2, 1)")
    mine.sql("INSERT INTO db.t VALUES (1, 5, 2), (1, 1, 2)")
    monkeypatch.undo()
    assert _rows(mine) == [(1, 1, 2), (1, 2, 1), (1, 5, 2), (2, 1, 0), (2, 7, 1)]
    assert _duplicates(mine, "p, id") == []


def test_cross_partition_a_racing_move_of_the_key_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, other = _sessions(tmp_path, CROSS)
    mine.sql("INSERT INTO db.t VALUES (1, 1, 0), (1, 2, 0)")
    # the other writer moves key 1 to partition 2; this one, from the same base, moves it from
    # partition 1 to 3 -- key 1 would live in partitions 2 and 3
    ran = _commit.racing(monkeypatch, other, "INSERT INTO db.t VALUES (2, 1, 1)")
    with pytest.raises(CommitConflictError, match=r"db\.t.*run the statement again"):
        mine.sql("INSERT INTO db.t VALUES (3, 1, 2)")
    monkeypatch.undo()
    assert ran
    assert _commit.left_behind(mine) == []
    assert _rows(mine) == [(1, 2, 0), (2, 1, 1)]
    mine.sql("INSERT INTO db.t VALUES (3, 1, 2)")
    assert _duplicates(mine, "id") == []
    assert _rows(mine) == [(1, 2, 0), (3, 1, 2)]


def test_cross_partition_a_racing_compaction_does_not_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, other = _sessions(tmp_path, CROSS)
    mine.sql("INSERT INTO db.t VALUES (1, 1, 0), (1, 2, 0)")
    mine.sql("INSERT INTO db.t VALUES (2, 3, 0)")
    _commit.racing(monkeypatch, other, "CALL sys.compact(table => 'db.t')")
    mine.sql("INSERT INTO db.t VALUES (3, 1, 2)")
    monkeypatch.undo()
    assert _rows(mine) == [(1, 2, 0), (2, 3, 0), (3, 1, 2)]
    assert _duplicates(mine, "id") == []


def test_cross_partition_a_rollback_and_a_new_snapshot_of_the_same_id_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot id the write read is made again after a rollback: a different snapshot."""
    mine, other = _sessions(tmp_path, CROSS)
    mine.sql("INSERT INTO db.t VALUES (1, 1, 0), (1, 2, 0)")
    mine.sql("INSERT INTO db.t VALUES (2, 3, 0)")  # snapshot 2: this write reads key 1 in p=1
    ran = _commit.racing(
        monkeypatch,
        other,
        "CALL sys.rollback(table => 'db.t', version => '1')",
        "INSERT INTO db.t VALUES (2, 1, 1)",  # snapshot 2 again: key 1 to p=2
    )
    with pytest.raises(CommitConflictError, match="rolled back"):
        mine.sql("INSERT INTO db.t VALUES (3, 1, 2)")
    monkeypatch.undo()
    assert ran
    assert _rows(mine) == [(1, 2, 0), (2, 1, 1)]
    assert _duplicates(mine, "id") == []


@pytest.mark.slow
@pytest.mark.parametrize(("ddl", "parts"), [(DYNAMIC, 2), (CROSS, 3)], ids=["dynamic", "cross"])
def test_concurrent_writers_of_overlapping_keys_leave_each_key_once(
    tmp_path: Path, ddl: str, parts: int
) -> None:
    """Three processes INSERT overlapping keys at once (no replay: real races). Each statement
    lands whole or fails cleanly; at the end every key lives once, holds the value of a statement
    that succeeded, every key a successful statement wrote is there, and (dynamic buckets) every
    key's hash is in exactly one HASH file of its partition, and no HASH file holds a key the
    partition does not."""
    warehouse = str(tmp_path / "wh")
    mine, _ = _sessions(tmp_path, ddl)
    logs = [tmp_path / f"w{w}.log" for w in range(3)]
    _commit.run_workers(_commit.key_worker, logs, warehouse, "db.t", parts, 12)
    succeeded: set[int] = set()
    for log in logs:
        succeeded |= _commit.reported(log, "db.t")[0]
    failures = [line for log in logs for line in _commit.reported(log, "")[2]]
    assert all("CommitConflictError" in f for f in failures), "\n".join(
        f for f in failures if "CommitConflictError" not in f
    )
    assert succeeded
    rows = _rows(mine)
    key = "p, id" if ddl is DYNAMIC else "id"
    assert _duplicates(mine, key) == []
    assert {v for _, _, v in rows} <= succeeded
    assert _commit.left_behind(mine) == []
    print(f"\n{len(succeeded)} of 36 statements succeeded, {len(failures)} conflicted")
    if ddl is not DYNAMIC:
        return
    table = mine.catalog.load_table(Identifier.parse("db.t"))
    held: dict[int, list[int]] = {}
    for (part, _bucket), blob in TableWriter(None, table).hash_index().items():
        held.setdefault(decode_row(part, [INT])[0], []).extend(decode_hashes(blob))
    live: dict[int, list[int]] = {}
    for p, i, _ in rows:
        live.setdefault(p, []).append(row_hash((i,), [INT]))
    assert {p: sorted(h) for p, h in held.items()} == {p: sorted(h) for p, h in live.items()}
