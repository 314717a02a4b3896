"""Full compaction, ``CALL sys.compact``: same rows before and after, one sorted run per bucket
at the top level, one COMPACT snapshot whose delta deletes the old files, time travel to before,
and a second call is a no-op."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from dataclasses import replace

import pytest
import sqlglot

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.commit.plan import fold
from paimon_sql.errors import PaimonSqlError, SqlError, UnsupportedFeatureError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.manifest import FileKind, FileSource
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.sql.ddl import parse_create_table
from paimon_sql.sql.statements.dml import DELETE, write_rows
from tests.fixtures import FIXTURES


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    return s


def _rows(session, query="SELECT * FROM db.t"):
    return sorted(session.sql(query).fetchall(), key=repr)


def _live(table, snapshot=None):
    snap = snapshot or table.latest_snapshot()
    metas = table.manifest_list(snap.base_manifest_list) + table.manifest_list(
        snap.delta_manifest_list
    )
    return list(fold(e for m in metas for e in table.manifest(m.file_name)).values())


def _delta(table, snapshot):
    metas = table.manifest_list(snapshot.delta_manifest_list)
    return [e for m in metas for e in table.manifest(m.file_name)]


def _dv_entries(table, snapshot):
    if snapshot.index_manifest is None:
        return []
    return [
        e
        for e in table.index_manifest(snapshot.index_manifest)
        if e.index_file.index_type == "DELETION_VECTORS"
    ]


def _compact(session, table="db.t", **args):
    extra = "".join(f", {k} => '{v}'" for k, v in args.items())
    return session.sql(f"CALL sys.compact(table => '{table}'{extra})").fetchall()


def _assert_compacted(table, before_id):
    """Latest snapshot: COMPACT, one level-5 file per bucket; delta: DELETE old, ADD new files."""
    snap = table.latest_snapshot()
    assert snap.id == before_id + 1
    assert snap.commit_kind is CommitKind.COMPACT
    old = {e.identifier for e in _live(table, table.snapshot(before_id))}
    live = _live(table)
    assert {e.file.level for e in live} == {5}
    assert len({(e.partition, e.bucket) for e in live}) == len(live)
    old_names = {identifier[3] for identifier in old}
    # Rewritten files come from the compaction; a lone file without retractions is only upgraded.
    assert all(
        e.file.file_source is FileSource.COMPACT or e.file.file_name in old_names for e in live
    )
    assert all(e.file.delete_row_count == 0 for e in live)
    delta = _delta(table, snap)
    assert {e.identifier for e in delta if e.kind is FileKind.DELETE} == old
    assert {e.identifier for e in delta if e.kind is FileKind.ADD} == {e.identifier for e in live}
    assert snap.total_record_count == sum(e.file.row_count for e in live)


HISTORY = [
    "INSERT INTO db.t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, 'd', 4), (5, 'e', 5)",
    "INSERT INTO db.t VALUES (2, NULL, 20), (6, 'f', 6), (1, 'a2', NULL)",
    "INSERT INTO db.t VALUES (3, 'c3', 30), (7, 'g', 7)",
]
ENGINES = {
    "deduplicate": {},
    "partial-update": {},
    "aggregation": {"fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "max"},
}


@pytest.mark.parametrize("engine", list(ENGINES))
def test_compaction_keeps_the_rows_of_each_merge_engine(session, engine):
    props = {"bucket": "2", "primary-key": "id", "merge-engine": engine, **ENGINES[engine]}
    with_ = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    session.sql(f"CREATE TABLE db.t (id INT, v STRING, n BIGINT) WITH ({with_})")
    for statement in HISTORY:
        session.sql(statement)
    if engine == "deduplicate":
        session.sql("UPDATE db.t SET v = 'upd' WHERE id = 4")
        session.sql("DELETE FROM db.t WHERE id = 5")
    table = session.table("db.t")
    before, before_id = _rows(session), table.latest_snapshot().id
    seq_before = max(e.file.max_sequence_number for e in _live(table))
    assert _compact(session) == [(True,)]
    _assert_compacted(table, before_id)
    assert _rows(session) == before
    assert _rows(session, f"SELECT * FROM db.t VERSION AS OF {before_id}") == before  # noqa: S608 - fixed test SQL
    seq_after = max(e.file.max_sequence_number for e in _live(table))
    # Rows keep their sequence numbers; only a dropped retraction (the DELETE) can have held the
    # highest one.
    assert seq_after == seq_before if engine != "deduplicate" else seq_after == seq_before - 1
    # A second compaction finds nothing to do: no snapshot.
    assert _compact(session) == [(True,)]
    assert table.latest_snapshot().id == before_id + 1
    # Writes go on on top of the compacted table.
    session.sql("INSERT INTO db.t VALUES (1, 'later', 100)")
    after_write = _rows(session)
    _compact(session)
    assert _rows(session) == after_write
    assert table.latest_snapshot().commit_kind is CommitKind.COMPACT


def test_deduplicate_rows_and_metadata(session):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING, n BIGINT) WITH ('bucket' = '1', 'primary-key' = 'id')"
    )
    for statement in HISTORY:
        session.sql(statement)
    session.sql("DELETE FROM db.t WHERE id = 7")
    table = session.table("db.t")
    _compact(session)
    assert _rows(session) == sorted(
        [(1, "a2", None), (2, None, 20), (3, "c3", 30), (4, "d", 4), (5, "e", 5), (6, "f", 6)],
        key=repr,
    )
    (entry,) = _live(table)
    f = entry.file
    assert f.row_count == 6
    assert decode_row(f.min_key, [table.latest_schema.field("id").type]) == (1,)
    assert decode_row(f.max_key, [table.latest_schema.field("id").type]) == (6,)
    # Each row keeps the sequence number of the version that won: 3 rows from the first commit
    # (0..4), 3 later.
    path = os.path.join(table.sub("bucket-0"), f.file_name)
    import pyarrow.parquet as pq

    data = pq.read_table(path)
    assert data.column_names[:3] == ["_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND"]
    assert data.column("_KEY_id").to_pylist() == [1, 2, 3, 4, 5, 6]
    seqs = data.column("_SEQUENCE_NUMBER").to_pylist()
    assert seqs[3:5] == sorted(seqs[3:5])
    assert max(seqs[3:5]) < min(seqs[0], seqs[1], seqs[2])
    assert f.min_sequence_number == min(seqs)
    assert f.max_sequence_number == max(seqs)
    assert set(data.column("_VALUE_KIND").to_pylist()) == {0}


def test_first_row_table_becomes_visible_after_compaction(session):
    # first-row hides level-0 files from batch reads (as Java): the compaction makes the writes
    # visible (write-only: no compaction after each write, sql/_auto_compact).
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '2', 'primary-key' = 'id', "
        "'merge-engine' = 'first-row', 'write-only' = 'true')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    session.sql("INSERT INTO db.t VALUES (2, 'b2'), (3, 'c')")
    assert _rows(session) == []
    table = session.table("db.t")
    before_id = table.latest_snapshot().id
    _compact(session)
    _assert_compacted(table, before_id)
    assert _rows(session) == [(1, "a"), (2, "b"), (3, "c")]
    session.sql("INSERT INTO db.t VALUES (3, 'c3'), (4, 'd')")
    _compact(session)
    assert _rows(session) == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]


def test_our_deletion_vector_table(session):
    # DV tables hide level-0 files too; DELETE/UPDATE see the compacted rows (write-only: no
    # compaction after each write).
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '2', 'primary-key' = 'id', "
        "'deletion-vectors.enabled' = 'true', 'write-only' = 'true')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    session.sql("INSERT INTO db.t VALUES (2, 'b2')")
    table = session.table("db.t")
    before_id = table.latest_snapshot().id
    _compact(session)
    _assert_compacted(table, before_id)
    assert _rows(session) == [(1, "a"), (2, "b2"), (3, "c")]
    session.sql("DELETE FROM db.t WHERE id = 1")
    session.sql("UPDATE db.t SET v = 'u' WHERE id = 3")
    _compact(session)
    assert _rows(session) == [(2, "b2"), (3, "u")]


JAVA_TABLES = [
    "pk_dedup",
    "pk_dv",
    "pk_part_dv",
    "pk_dv_rowkind_delete",
    "pk_pu",
    "pk_agg",
    "pk_seq",
    "pk_rowkind_delete",
    "pk_orc_2b",
    "pk_avro",
]


@pytest.mark.parametrize("name", JAVA_TABLES)
def test_java_written_tables(tmp_path, name):
    source = FIXTURES / "generated-paimon-java-0.9"
    shutil.copytree(source / "warehouse", tmp_path / "wh")
    truth = json.loads((source / "java_truth.json").read_text())[name]
    session = paimon_sql.connect(tmp_path / "wh")
    table = session.table(f"db.{name}")
    before_id = table.latest_snapshot().id
    had_dvs = bool(_dv_entries(table, table.latest_snapshot()))
    rel = session.sql(f"SELECT * FROM db.{name}")  # noqa: S608 - fixed test SQL
    columns = list(rel.columns)
    before = sorted(rel.fetchall(), key=repr)
    assert sorted((tuple(r[c] for c in columns) for r in truth), key=repr) == before
    _compact(session, f"db.{name}")
    if table.latest_snapshot().id == before_id:  # already one run at the top level
        assert not had_dvs
        assert {e.file.level for e in _live(table)} == {5}
    else:
        _assert_compacted(table, before_id)
        assert _dv_entries(table, table.latest_snapshot()) == []
    assert _rows(session, f"SELECT * FROM db.{name}") == before  # noqa: S608 - fixed test SQL
    assert _rows(session, f"SELECT * FROM db.{name} VERSION AS OF {before_id}") == before  # noqa: S608 - fixed test SQL
    if name in (
        "pk_dv",
        "pk_dv_rowkind_delete",
    ):  # Java's lookup compaction left deletion vectors there
        assert had_dvs


def test_lookup_changelog_table_compacts_with_its_changelog(tmp_path, session):
    # issue 17: the compaction writes the lookup changelog (Flink reads it as its own:
    # tests/interop/flink/test_changes_flink.py); the write already compacted level 0
    _create_as_flink(
        session,
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id', "
        "'changelog-producer' = 'lookup', 'write-only' = 'true')",
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a')")
    _compact(session)
    kinds = session.sql(
        "SELECT commit_kind, changelog_record_count FROM db.`t$snapshots` ORDER BY snapshot_id"
    ).fetchall()
    assert kinds == [("APPEND", 0), ("COMPACT", 1)]  # Java writes 0 without changelog files
    bucket = tmp_path / "wh" / "db.db" / "t" / "bucket-0"
    assert len(list(bucket.glob("changelog-*.parquet"))) == 1


def test_partitions_and_where_select_partitions(session):
    session.sql(
        "CREATE TABLE db.t (id INT, dt STRING, v INT) PARTITIONED BY (dt) "
        "WITH ('bucket' = '1', 'primary-key' = 'id,dt')"
    )
    for i in range(2):
        session.sql(f"INSERT INTO db.t VALUES (1, 'a', {i}), (1, 'b', {i}), (1, 'c', {i})")  # noqa: S608 - fixed test SQL
    table = session.table("db.t")
    before = _rows(session)

    def levels():
        schema = table.latest_schema
        out = {}
        for e in _live(table):
            (dt,) = decode_row(e.partition, [schema.field("dt").type])
            out.setdefault(dt, set()).add(e.file.level)
        return out

    _compact(session, partitions="dt=a")
    assert levels() == {"a": {5}, "b": {0}, "c": {0}}
    # SQL's '' escape inside the where (Flink's CALL reads it; Spark's "…" form is in test_dialect)
    session.sql("CALL sys.compact(table => 'db.t', where => 'dt = ''b'' OR dt = ''x''')")
    assert levels() == {"a": {5}, "b": {5}, "c": {0}}
    _compact(session, partitions="dt=c;dt=a")
    assert levels() == {"a": {5}, "b": {5}, "c": {5}}
    assert _rows(session) == before
    assert [table.snapshot(i).commit_kind for i in table.snapshot_ids()][-3:] == [
        CommitKind.COMPACT
    ] * 3
    with pytest.raises(SqlError, match="partition"):
        _compact(session, where="v > 1")
    with pytest.raises(SqlError, match="not a partition key"):
        _compact(session, partitions="v=1")
    with pytest.raises(SqlError, match="together"):
        _compact(session, partitions="dt=a", where="dt > 1")


def test_sort_compaction_is_refused_by_name(session):
    session.sql("CREATE TABLE db.t (id INT, v STRING)")
    with pytest.raises(UnsupportedFeatureError, match="order_strategy='zorder'"):
        _compact(session, order_strategy="zorder", order_by="id")


def test_rolled_files_hold_disjoint_sorted_key_ranges(session):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id', "
        "'target-file-size' = '4 kb')"
    )
    session.sql("INSERT INTO db.t SELECT i, repeat('x', 50) || i FROM range(3000) t(i)")
    session.sql("INSERT INTO db.t SELECT i * 2, 'y' || i FROM range(1000) t(i)")
    before = _rows(session)
    table = session.table("db.t")
    _compact(session)
    files = sorted(
        (e.file for e in _live(table)),
        key=lambda f: decode_row(f.min_key, [table.latest_schema.field("id").type]),
    )
    assert len(files) > 1
    key_type = [table.latest_schema.field("id").type]
    ranges = [
        (decode_row(f.min_key, key_type)[0], decode_row(f.max_key, key_type)[0]) for f in files
    ]
    assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges))
    assert sum(f.row_count for f in files) == 3000
    assert _rows(session) == before
    assert _compact(session) == [(True,)]
    assert table.latest_snapshot().commit_kind is CommitKind.COMPACT


@pytest.mark.parametrize("bucket", ["-1", "2"])
def test_append_table_small_files_merged(session, bucket):
    key = ", 'bucket-key' = 'id'" if bucket != "-1" else ""
    session.sql(f"CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '{bucket}'{key})")
    session.sql("INSERT INTO db.t VALUES (2, 'x'), (12, 'y')")
    session.sql("DELETE FROM db.t WHERE id = 2")  # copy-on-write: rewrites the bucket
    for i in range(4):
        session.sql(f"INSERT INTO db.t VALUES ({i}, 'a{i}'), ({i + 10}, 'b{i}')")  # noqa: S608 - fixed test SQL
    table = session.table("db.t")
    before, before_id = _rows(session), table.latest_snapshot().id
    old_live = _live(table)
    _compact(session)
    snap = table.latest_snapshot()
    assert snap.id == before_id + 1
    assert snap.commit_kind is CommitKind.COMPACT
    live = _live(table)
    assert len(live) == len({(e.partition, e.bucket) for e in live}) < len(old_live)
    assert all(e.file.file_source is FileSource.COMPACT and e.file.level == 0 for e in live)
    assert _rows(session) == before
    assert _rows(session, f"SELECT * FROM db.t VERSION AS OF {before_id}") == before  # noqa: S608 - fixed test SQL
    for e in live:  # sequence numbers continue from the first rewritten file of the bucket
        olds = [o.file for o in old_live if (o.partition, o.bucket) == (e.partition, e.bucket)]
        assert e.file.min_sequence_number == min(f.min_sequence_number for f in olds)
        assert e.file.max_sequence_number == e.file.min_sequence_number + e.file.row_count - 1
    _compact(session)
    assert table.latest_snapshot().id == before_id + 1


def test_fixed_bucket_append_keeps_row_order(session):
    session.sql("CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'bucket-key' = 'id')")
    for i in range(5):
        session.sql(f"INSERT INTO db.t VALUES ({10 - i}, 'x'), ({20 - i}, 'y')")  # noqa: S608 - fixed test SQL
    table = session.table("db.t")
    _compact(session)
    (entry,) = _live(table)
    import pyarrow.parquet as pq

    ids = (
        pq.read_table(os.path.join(table.sub("bucket-0"), entry.file.file_name))
        .column("id")
        .to_pylist()
    )
    assert ids == [10, 20, 9, 19, 8, 18, 7, 17, 6, 16]


def test_failed_compaction_leaves_no_snapshot_and_no_files(session):
    # partial-update fails on a retraction (as Java): the compaction stops, nothing is committed or
    # left behind.
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id', "
        "'merge-engine' = 'partial-update', 'target-file-size' = '1 kb')"
    )
    session.sql("INSERT INTO db.t SELECT i, 'v' || i FROM range(500) t(i)")
    session.sql("INSERT INTO db.t SELECT i, NULL FROM range(500) t(i)")
    table = session.table("db.t")
    latest = table.latest_snapshot().id
    # A -D record with the largest key (read last). SQL DELETE is refused on partial-update (as in
    # Java), so it comes from the writer: Java-written tables may hold such records.
    doomed = sqlglot.parse_one("SELECT 499 AS id, CAST(NULL AS VARCHAR) AS v")
    write_rows(session, table, doomed, kind=DELETE)
    latest = table.latest_snapshot().id
    bucket = table.sub("bucket-0")
    files_before = set(os.listdir(bucket))
    with pytest.raises((PaimonSqlError, Exception), match="retraction"):
        _compact(session)
    assert table.latest_snapshot().id == latest
    assert set(os.listdir(bucket)) == files_before


def test_schema_evolution_files_are_rewritten_with_the_latest_schema(session):
    session.sql("CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id')")
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    session.sql("ALTER TABLE db.t ADD COLUMN w BIGINT")
    session.sql("INSERT INTO db.t VALUES (2, 'b2', 20), (3, 'c', 30)")
    table = session.table("db.t")
    before = _rows(session)
    assert before == [(1, "a", None), (2, "b2", 20), (3, "c", 30)]
    _compact(session)
    assert _rows(session) == before
    assert {e.file.schema_id for e in _live(table)} == {table.latest_schema.id}


def test_dynamic_bucket_table_keeps_its_hash_index(session):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '-1', 'primary-key' = 'id', "
        "'dynamic-bucket.target-row-num' = '2')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    session.sql("INSERT INTO db.t VALUES (2, 'b2'), (4, 'd'), (5, 'e')")
    table = session.table("db.t")
    before, before_id = _rows(session), table.latest_snapshot().id
    hash_before = table.latest_snapshot().index_manifest
    _compact(session)
    _assert_compacted(table, before_id)
    assert len(_live(table)) > 1  # several buckets
    assert table.latest_snapshot().index_manifest == hash_before
    assert _rows(session) == before
    session.sql("INSERT INTO db.t VALUES (1, 'a2'), (6, 'f')")
    assert _rows(session) == sorted([(1, "a2"), (2, "b2"), (3, "c"), (4, "d"), (5, "e"), (6, "f")])


@pytest.mark.parametrize("bucket", ["-1", "1"])
def test_append_compaction_rolls_and_is_idempotent(session, bucket):
    key = ", 'bucket-key' = 'id'" if bucket != "-1" else ""
    session.sql(
        f"CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '{bucket}', "
        f"'target-file-size' = '16 kb'{key})"
    )
    for i in range(6):
        session.sql(f"INSERT INTO db.t SELECT i, md5(i::VARCHAR || '{i}') FROM range(400) t(i)")  # noqa: S608 - fixed test SQL
    table = session.table("db.t")
    before, before_id = _rows(session), table.latest_snapshot().id
    _compact(session)
    live = _live(table)
    assert table.latest_snapshot().id == before_id + 1
    assert 1 < len(live) < 6
    assert _rows(session) == before
    _compact(session)
    assert table.latest_snapshot().id == before_id + 1


def test_string_keys_sorted_by_bytes_and_empty_table(session):
    session.sql("CREATE TABLE db.t (k STRING, v INT) WITH ('bucket' = '1', 'primary-key' = 'k')")
    assert _compact(session) == [(True,)]  # no snapshot yet: nothing to do
    table = session.table("db.t")
    assert table.latest_snapshot() is None
    session.sql("INSERT INTO db.t VALUES ('b', 1), ('é', 2)")
    session.sql("INSERT INTO db.t VALUES ('a', 3), ('B', 4), ('b', 5)")
    _compact(session)
    (entry,) = _live(table)
    key_type = [table.latest_schema.field("k").type]
    assert decode_row(entry.file.min_key, key_type) == ("B",)
    assert decode_row(entry.file.max_key, key_type) == ("é",)
    assert _rows(session) == [("B", 4), ("a", 3), ("b", 5), ("é", 2)]


def _racing_reader(session, statement):
    """The real bucket reader; another writer commits `statement` as the first bucket is read."""

    read = session.engine.bucket_reader()
    fired = []

    def racing(plan):
        if not fired:
            fired.append(True)
            session.sql(statement)
        return read(plan)

    return racing


def test_concurrent_compaction_conflicts_and_leaves_nothing(session):
    from paimon_sql.compact.full import compact
    from paimon_sql.errors import CommitConflictError

    session.sql("CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id')")
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    session.sql("INSERT INTO db.t VALUES (2, 'b2')")
    table = session.table("db.t")
    bucket = table.sub("bucket-0")
    files_before = set(os.listdir(bucket))
    racing = _racing_reader(session, "CALL sys.compact(table => 'db.t')")
    with pytest.raises(CommitConflictError, match="deleted by a concurrent commit"):
        compact(table, racing)
    # Only the other compaction's snapshot and file exist.
    assert table.latest_snapshot().id == 3
    assert len(set(os.listdir(bucket)) - files_before) == 1
    assert _rows(session) == [(1, "a"), (2, "b2")]


def test_concurrent_insert_survives_the_compaction(session):
    from paimon_sql.compact.full import compact

    session.sql("CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id')")
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    session.sql("INSERT INTO db.t VALUES (2, 'b2')")
    table = session.table("db.t")
    compact(table, _racing_reader(session, "INSERT INTO db.t VALUES (1, 'new'), (3, 'c')"))
    assert table.latest_snapshot().commit_kind is CommitKind.COMPACT
    assert sorted(e.file.level for e in _live(table)) == [0, 5]
    assert _rows(session) == [(1, "new"), (2, "b2"), (3, "c")]


def test_a_lone_file_is_upgraded_without_a_rewrite(session):
    session.sql("CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '2', 'primary-key' = 'id')")
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    session.sql("DELETE FROM db.t WHERE id = 1")
    table = session.table("db.t")
    before, before_id = _rows(session), table.latest_snapshot().id
    old = {(e.bucket, e.file.file_name): e.file for e in _live(table)}
    _compact(session)
    _assert_compacted(table, before_id)
    assert _rows(session) == before
    buckets_of_1 = {b for (b, _), f in old.items() if f.delete_row_count}
    for e in _live(table):
        if e.bucket in buckets_of_1:  # the bucket with the -D record is rewritten
            assert e.file.file_source is FileSource.COMPACT
            assert (e.bucket, e.file.file_name) not in old
        else:  # the other holds one file without retractions: same file, level 5
            f = old[(e.bucket, e.file.file_name)]
            assert e.file == replace(f, level=5)
    assert len(buckets_of_1) == 1
    assert len(old) == 3


def test_write_buffer_size_bounds_the_rows_held_per_file(session):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '1', 'primary-key' = 'id', "
        "'write-buffer-size' = '64 kb')"
    )
    session.sql("INSERT INTO db.t SELECT i, md5(i::VARCHAR) FROM range(20000) t(i)")
    session.sql("INSERT INTO db.t SELECT i, 'x' FROM range(0, 20000, 2) t(i)")
    before = _rows(session)
    table = session.table("db.t")
    _compact(session)
    files = [e.file for e in _live(table)]
    assert len(files) > 1
    assert {f.level for f in files} == {5}
    assert sum(f.row_count for f in files) == 20000
    assert _rows(session) == before


@pytest.mark.slow
@pytest.mark.parametrize(
    ("engine", "seed"),
    [("deduplicate", 1), ("deduplicate", 2), ("partial-update", 3), ("aggregation", 4)],
)
def test_random_histories_read_the_same_after_every_compaction(session, engine, seed):
    import random

    rng = random.Random(seed)
    props = {"bucket": "2", "primary-key": "id,p", "merge-engine": engine}
    if engine == "aggregation":
        props["fields.n.aggregate-function"] = "sum"
    with_ = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    session.sql(
        "CREATE TABLE db.t (id INT, p STRING, v STRING, n BIGINT) PARTITIONED BY (p) "
        f"WITH ({with_})"
    )
    table = session.table("db.t")
    for step in range(14):
        op = rng.choice(["insert", "insert", "update", "delete", "compact"])
        if engine != "deduplicate" and op in ("update", "delete"):
            op = "insert"  # retractions fail on these engines (as in Java)
        if op == "insert":
            rows = [
                (
                    rng.randrange(40),
                    rng.choice("ab"),
                    rng.choice([None, f"s{step}"]),
                    rng.randrange(9),
                )
                for _ in range(rng.randrange(1, 25))
            ]
            values = ", ".join(
                f"({i}, '{p}', {'NULL' if v is None else repr(v)}, {n})" for i, p, v, n in rows
            )
            session.sql(f"INSERT INTO db.t VALUES {values}")  # noqa: S608 - fixed test SQL
        elif op == "update":
            session.sql(f"UPDATE db.t SET v = 'u{step}' WHERE id % 5 = {rng.randrange(5)}")  # noqa: S608 - fixed test SQL
        elif op == "delete":
            session.sql(f"DELETE FROM db.t WHERE id % 7 = {rng.randrange(7)}")  # noqa: S608 - fixed test SQL
        else:
            before, before_id = _rows(session), table.latest_snapshot().id
            _compact(session)
            if table.latest_snapshot().id == before_id:  # nothing written since the last one
                assert {e.file.level for e in _live(table)} <= {5}
            else:
                assert table.latest_snapshot().id == before_id + 1
            assert _rows(session) == before
    before = _rows(session)
    _compact(session)
    assert _rows(session) == before
    assert {e.file.level for e in _live(table)} == {5}


def _create_as_flink(session, ddl):
    """A table made by Flink/Spark with an option paimon-sql's CREATE TABLE refuses
    ('changelog-producer' = 'lookup'): created through the catalog, as another engine would."""
    create = parse_create_table(ddl)
    database, name = create.identifier
    ident = Identifier(database or "db", name)
    session.catalog.create_table(ident, create.to_schema())
    session.refresh()
