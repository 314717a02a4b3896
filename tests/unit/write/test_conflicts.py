"""Java's commit conflict checks, end to end.

(ConflictDetection / noConflictsOrFail, paimon-format.md §1.3.)

Two writers prepare their commits on the same snapshot; the first one commits; the second must fail
with a `CommitConflictError` and leave no snapshot when its files would break the table: files it
deletes are gone, its level >= 1 files overlap the key range of another level >= 1 file of the
bucket, or it writes another bucket count. Real files, real commits; the table reads back the
winner's state.
"""

from __future__ import annotations

import multiprocessing

import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.commit.plan import CommitMessage, check_conflicts, fold, key_comparator
from paimon_sql.commit.publish import Committer
from paimon_sql.errors import CommitConflictError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.format.manifest import EMPTY_STATS, DataFileMeta, FileKind, ManifestEntry
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.types import parse_type
from paimon_sql.write.data_file import data_file_name, write_data_file

INT = [parse_type("INT NOT NULL")]


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    return s


def _pk_table(session):
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1')"
    )
    session.sql(
        "INSERT INTO db.t SELECT range::INT, 'x' || range FROM range(1, 11)"
    )  # file X: keys 1..10
    session.sql(
        "INSERT INTO db.t SELECT range::INT, 'y' || range FROM range(5, 16)"
    )  # file Y: keys 5..15
    return session.catalog.load_table(Identifier.parse("db.t"))


def _live(table) -> list[ManifestEntry]:
    latest = table.latest_snapshot()
    metas = table.manifest_list(latest.base_manifest_list) + table.manifest_list(
        latest.delta_manifest_list
    )
    return sorted(
        fold(e for m in metas for e in table.manifest(m.file_name)).values(),
        key=lambda e: e.file.min_sequence_number,
    )


def _rewrite(table, entry: ManifestEntry, level: int) -> CommitMessage:
    """A compaction of one file: its rows (sequence numbers, kinds kept) into a file on `level`."""
    rows = pq.read_table(table.sub("bucket-0", entry.file.file_name))
    rows = rows.select(["id", "v", "_SEQUENCE_NUMBER", "_VALUE_KIND"])
    path = table.sub(
        "bucket-0", data_file_name("compact", entry.file.min_sequence_number, "parquet")
    )
    meta = write_data_file(table.fileio, path, rows, schema=table.latest_schema, level=level)
    return CommitMessage(
        partition=entry.partition,
        bucket=entry.bucket,
        total_buckets=entry.total_buckets,
        deleted_files=(entry.file,),
        new_files=(meta,),
    )


def _rows(warehouse):
    return paimon_sql.connect(warehouse).sql("SELECT * FROM db.t ORDER BY id").fetchall()


def test_overlapping_level_1_files_from_two_compactions_do_not_both_commit(session, tmp_path):
    table = _pk_table(session)
    x, y = _live(table)
    before = _rows(tmp_path / "wh")
    first = _rewrite(table, x, level=5)  # keys 1..10 on level 5
    second = _rewrite(table, y, level=5)  # keys 5..15 on level 5: overlaps the first
    Committer(table).commit([first], kind=CommitKind.COMPACT)
    with pytest.raises(CommitConflictError, match=r"LSM conflict in bucket 0, level 5"):
        Committer(table).commit([second], kind=CommitKind.COMPACT)
    assert table.snapshot_ids() == [1, 2, 3]
    assert _rows(tmp_path / "wh") == before
    # On different levels the same two files are a valid LSM tree: the check is about one level.
    Committer(table).commit([_rewrite(table, y, level=4)], kind=CommitKind.COMPACT)
    assert table.snapshot_ids() == [1, 2, 3, 4]
    assert _rows(tmp_path / "wh") == before


def test_a_compaction_of_files_another_commit_replaced_fails(session, tmp_path):
    table = _pk_table(session)
    x, _ = _live(table)
    stale = _rewrite(table, x, level=5)
    session.sql("INSERT OVERWRITE db.t SELECT 100, 'new'")  # replaces X and Y
    with pytest.raises(CommitConflictError, match="deleted by a concurrent commit"):
        Committer(table).commit([stale], kind=CommitKind.COMPACT)
    assert table.snapshot_ids() == [1, 2, 3]
    assert _rows(tmp_path / "wh") == [(100, "new")]


def test_a_changed_bucket_count_needs_insert_overwrite(session, tmp_path):
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2')"
    )
    session.sql("INSERT INTO db.t SELECT range::INT, range::INT FROM range(20)")
    table = session.catalog.load_table(Identifier.parse("db.t"))
    session.sql("ALTER TABLE db.t SET ('bucket' = '4')")
    files = sorted(p.name for p in (tmp_path / "wh").rglob("*.parquet"))
    with pytest.raises(CommitConflictError, match="have 2 buckets but this commit writes 4"):
        session.sql("INSERT INTO db.t VALUES (100, 100)")
    assert table.snapshot_ids() == [1]
    assert (
        sorted(p.name for p in (tmp_path / "wh").rglob("*.parquet")) == files
    )  # nothing left behind
    session.sql("INSERT OVERWRITE db.t SELECT * FROM db.t")  # the rescale Java asks for
    session.sql("INSERT INTO db.t VALUES (100, 100)")
    live = _live(session.catalog.load_table(Identifier.parse("db.t")))
    assert {e.total_buckets for e in live} == {4}
    assert _rows(tmp_path / "wh") == [(i, i) for i in range(20)] + [(100, 100)]


def _meta(name: str, lo: int, hi: int, level: int) -> DataFileMeta:
    return DataFileMeta(
        file_name=name,
        file_size=1,
        row_count=1,
        min_key=encode_row([lo], INT),
        max_key=encode_row([hi], INT),
        key_stats=EMPTY_STATS,
        value_stats=EMPTY_STATS,
        min_sequence_number=0,
        max_sequence_number=0,
        schema_id=0,
        level=level,
    )


def _add(meta: DataFileMeta, bucket: int = 0) -> ManifestEntry:
    return ManifestEntry(
        kind=FileKind.ADD, partition=b"", bucket=bucket, total_buckets=2, file=meta
    )


@pytest.mark.parametrize(
    ("lo", "hi", "level", "bucket", "conflict"),
    [
        (11, 20, 1, 0, False),  # after the live run
        (10, 20, 1, 0, True),  # touches its max key: Java's compare(a.max, b.min) >= 0
        (-5, 0, 1, 0, False),  # before it
        (-5, 1, 1, 0, True),
        (3, 4, 1, 0, True),  # inside it
        (3, 4, 2, 0, False),  # other level
        (3, 4, 1, 1, False),  # other bucket
        (3, 4, 0, 0, False),  # level 0 may overlap anything
    ],
)
def test_level_check_cases(lo, hi, level, bucket, conflict):
    live = [_add(_meta("a", 1, 10, 1))]
    delta = [_add(_meta("b", lo, hi, level), bucket)]
    compare = key_comparator(INT)
    if conflict:
        with pytest.raises(CommitConflictError, match="overlap"):
            check_conflicts(live, delta, overwrite=False, key_compare=compare)
    else:
        check_conflicts(live, delta, overwrite=False, key_compare=compare)
    check_conflicts(live, delta, overwrite=False, key_compare=None)  # append tables: no LSM


def test_key_comparator_orders_multi_field_keys_like_java():
    types = [parse_type("STRING NOT NULL"), parse_type("BIGINT NOT NULL")]
    compare = key_comparator(types)
    rows = [["b", 1], ["a", 2], ["ab", -1], ["a", -3], ["é", 0], ["z", 0]]
    ordered = sorted(
        rows,
        key=__import__("functools").cmp_to_key(
            lambda a, b: compare(encode_row(a, types), encode_row(b, types))
        ),
    )
    assert ordered == [["a", -3], ["a", 2], ["ab", -1], ["b", 1], ["z", 0], ["é", 0]]


def _overwrite_many(warehouse: str, count: int) -> None:
    session = paimon_sql.connect(warehouse)
    for i in range(count):
        session.sql(f"INSERT OVERWRITE db.t SELECT range::INT, 'o{i}' FROM range(50)")  # noqa: S608


def _compact_many(warehouse: str, count: int, queue) -> None:
    session = paimon_sql.connect(warehouse)
    outcomes = []
    for _ in range(count):
        try:
            session.sql("CALL sys.compact(table => 'db.t')")
            outcomes.append("ok")
        except CommitConflictError as err:
            outcomes.append("conflict: " + str(err))
    queue.put(outcomes)


@pytest.mark.slow
def test_overwrites_racing_compactions_in_two_processes(session, tmp_path):
    """Every INSERT OVERWRITE lands; snapshot ids stay continuous.

    A compaction whose input an overwrite replaced fails with a clear conflict (never a table
    holding two generations of rows).
    """
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2')"
    )
    session.sql("INSERT INTO db.t SELECT range::INT, 'start' FROM range(50)")
    warehouse = str(tmp_path / "wh")
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [
        ctx.Process(target=_overwrite_many, args=(warehouse, 25)),
        ctx.Process(target=_compact_many, args=(warehouse, 25, queue)),
    ]
    for p in procs:
        p.start()
    outcomes = queue.get(timeout=600)
    for p in procs:
        p.join(600)
        assert p.exitcode == 0
    table = session.catalog.load_table(Identifier.parse("db.t"))
    kinds = [table.snapshot(i).commit_kind for i in table.snapshot_ids()]
    assert table.snapshot_ids() == list(range(1, len(kinds) + 1))
    assert kinds.count(CommitKind.OVERWRITE) == 25
    for outcome in outcomes:
        assert outcome == "ok" or "deleted by a concurrent commit" in outcome, outcome
    assert _rows(warehouse) == [(i, "o24") for i in range(50)]


def test_a_partition_whose_deletes_sit_in_an_unread_manifest_is_not_checked(session):
    """A commit reads only the manifests whose partition stats may hold the partitions it touches.
    Those list every file of its partitions but only part of the history of the others: here the
    manifest that replaced p2's first level-5 file ranges over p2 alone and is skipped by a
    compaction of p1, while the manifests before and after it range over p0..p2 and are read. Folded
    without it, p2's replaced file looked live beside its successor: a false LSM conflict, on every
    compaction of p1 from then on. Only the touched partitions' files are checked now."""
    session.sql(
        "CREATE TABLE db.t (p STRING NOT NULL, id INT NOT NULL, v INT, "
        "PRIMARY KEY (p, id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '1')"
    )

    def insert(p, ids, v):
        values = ", ".join(f"('{p}', {i}, {v})" for i in ids)
        session.sql(f"INSERT INTO db.t VALUES {values}")  # noqa: S608 - test literals

    insert("p0", range(1, 11), 1)
    insert("p2", range(1, 11), 1)
    session.sql("CALL sys.compact(table => 'db.t')")  # p0, p2 at level 5: manifest p0..p2
    insert("p2", range(5, 16), 2)
    session.sql("CALL sys.compact(table => 'db.t', partitions => 'p=p2')")  # manifest p2..p2
    insert("p0", range(3, 8), 3)
    insert("p2", range(12, 21), 3)
    session.sql("CALL sys.compact(table => 'db.t')")  # manifest p0..p2 again
    insert("p1", range(1, 5), 4)
    session.sql("CALL sys.compact(table => 'db.t', partitions => 'p=p1')")
    table = session.catalog.load_table(Identifier.parse("db.t"))
    assert table.latest_snapshot().commit_kind is CommitKind.COMPACT
    rows = session.sql("SELECT p, count(*), max(v) FROM db.t GROUP BY p ORDER BY p").fetchall()
    assert rows == [("p0", 10, 3), ("p1", 4, 4), ("p2", 20, 3)]
