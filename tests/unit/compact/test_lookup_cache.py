"""Lookup compaction reads only the keys a write touched, and its per-session cache never lies.

The tables that compact after every write (deletion vectors, first-row, ``changelog-producer`` =
lookup) find the touched keys in the bucket's kept files through `KeyLookup`, a cache of footers
and key columns keyed by data file. These tests write where a stale cache would give wrong rows:
two sessions writing one table in turn, a compaction and an expiration by another session between
two writes, a key deleted and inserted again, deletion-vector files replaced. After every
statement both sessions' reads are compared with a model of the table kept in plain Python
(the merge engines' rules on dicts, independent of paimon-sql). Java's reads of these layouts are
checked in tests/interop (Spark 0.9: test_visible_writes_spark.py; Flink 1.3.1:
test_we_write_flink_reads.py, test_changes_flink.py).
"""

from __future__ import annotations

import random

import pytest

import paimon_sql
from paimon_sql.catalog import Identifier

KINDS = {
    "dv": "'deletion-vectors.enabled' = 'true'",
    "first_row": "'merge-engine' = 'first-row'",
    "lookup": "'changelog-producer' = 'lookup'",
    "lookup_dv": "'changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true'",
    "lookup_partial": "'changelog-producer' = 'lookup', 'merge-engine' = 'partial-update'",
    "lookup_agg": (
        "'changelog-producer' = 'lookup', 'merge-engine' = 'aggregation', "
        "'fields.n.aggregate-function' = 'sum'"
    ),
}
_DELETES = {"dv", "lookup", "lookup_dv"}


def _create(session, kind, composite=False):
    key = "a, b" if composite else "a"
    b = "b STRING NOT NULL, " if composite else ""
    session.sql(
        f"CREATE TABLE db.t (a INT NOT NULL, {b}s STRING, n BIGINT, PRIMARY KEY ({key}) NOT "
        f"ENFORCED) WITH ('bucket' = '1', {KINDS[kind]})"
    )


class Model:
    """The table's rows by the merge engine's rules, on dicts."""

    def __init__(self, kind, composite=False):
        self.kind, self.composite, self.rows = kind, composite, {}

    def key(self, a):
        return (a, f"k{a % 3}") if self.composite else (a,)

    def upsert(self, a, s, n):
        key = self.key(a)
        old = self.rows.get(key)
        if self.kind == "first_row":
            self.rows.setdefault(key, (s, n))
        elif self.kind in ("lookup_partial", "lookup_agg") and old is not None:
            new_s = s if s is not None else old[0]
            if self.kind == "lookup_agg":
                new_n = n if old[1] is None else (old[1] if n is None else old[1] + n)
            else:
                new_n = n if n is not None else old[1]
            self.rows[key] = (new_s, new_n)
        else:
            self.rows[key] = (s, n)

    def delete(self, a):
        self.rows.pop(self.key(a), None)

    def values_sql(self, rows):
        out = []
        for a, s, n in rows:
            text = "NULL" if s is None else f"'{s}'"
            number = "CAST(NULL AS BIGINT)" if n is None else str(n)
            b = f", 'k{a % 3}'" if self.composite else ""
            out.append(f"({a}{b}, {text}, {number})")
        return ", ".join(out)

    def expected(self):
        return sorted((*k, s, n) for k, (s, n) in self.rows.items())


def _read(session):
    return sorted(session.sql("SELECT * FROM db.t").fetchall())


def _statement(model, rng, session, keys=40):
    """One random INSERT (or, where the engine allows, DELETE) on `session` and the model."""
    if model.kind in _DELETES and model.rows and rng.random() < 0.25:
        a = rng.choice(sorted(model.rows))[0]
        session.sql(f"DELETE FROM db.t WHERE a = {a}")  # noqa: S608
        model.delete(a)
        return
    rows = {}
    for _ in range(rng.randint(1, 6)):
        a = rng.randrange(keys)
        s = None if rng.random() < 0.2 else f"v{rng.randrange(100)}"
        n = None if rng.random() < 0.2 else rng.randrange(10)
        rows[a] = (a, s, n)  # one version of a key per statement
    session.sql(f"INSERT INTO db.t VALUES {model.values_sql(rows.values())}")  # noqa: S608
    for a, s, n in rows.values():
        model.upsert(a, s, n)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_two_sessions_write_in_turn(tmp_path, kind):
    composite = kind in ("dv", "lookup_partial")
    first = paimon_sql.connect(tmp_path / "wh", create=True)
    first.sql("CREATE DATABASE db")
    _create(first, kind, composite)
    second = paimon_sql.connect(tmp_path / "wh")
    model, rng = Model(kind, composite), random.Random(kind)
    for step in range(9):
        writer = first if step % 3 else second
        _statement(model, rng, writer)
        expected = model.expected()
        assert _read(first) == expected, f"step {step}: first session"
        assert _read(second) == expected, f"step {step}: second session"
    assert first.engine.key_lookup.stats()["footers_read"] > 0  # the lookup path was taken


@pytest.mark.parametrize("kind", ["dv", "first_row", "lookup", "lookup_agg"])
def test_foreign_compaction_and_expiration_between_writes(tmp_path, kind):
    ours = paimon_sql.connect(tmp_path / "wh", create=True)
    ours.sql("CREATE DATABASE db")
    _create(ours, kind)
    other = paimon_sql.connect(tmp_path / "wh")
    model, rng = Model(kind), random.Random(7)
    for _ in range(4):
        _statement(model, rng, ours)
    table = ours.catalog.load_table(Identifier("db", "t"))
    before = {e.file.file_name for e in _live(table)}
    other.sql("CALL sys.compact(table => 'db.t')")  # every file replaced by another writer
    after = {e.file.file_name for e in _live(table)}
    assert not before & after
    for _ in range(3):
        _statement(model, rng, ours)  # our cache holds only files that are gone
        assert _read(ours) == model.expected()
        assert _read(other) == model.expected()
    other.sql("CALL sys.compact(table => 'db.t')")
    other.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)")
    for _ in range(3):
        _statement(model, rng, ours)
        assert _read(ours) == model.expected()
        assert _read(other) == model.expected()


def _live(table):
    from paimon_sql.commit.plan import fold

    snap = table.latest_snapshot()
    metas = table.manifest_list(snap.base_manifest_list) + table.manifest_list(
        snap.delta_manifest_list
    )
    return list(fold(e for m in metas for e in table.manifest(m.file_name)).values())


@pytest.mark.parametrize("kind", ["dv", "lookup", "lookup_dv"])
def test_delete_then_insert_again(tmp_path, kind):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    _create(session, kind)
    model = Model(kind)
    session.sql("INSERT INTO db.t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    for a, s, n in [(1, "a", 1), (2, "b", 2), (3, "c", 3)]:
        model.upsert(a, s, n)
    for round_ in range(3):
        session.sql("DELETE FROM db.t WHERE a = 2")
        model.delete(2)
        assert _read(session) == model.expected()
        session.sql(f"INSERT INTO db.t VALUES (2, 'again{round_}', {round_})")  # noqa: S608
        model.upsert(2, f"again{round_}", round_)
        assert _read(session) == model.expected()
    # one statement deletes a key and another inserts it back before the next compaction reads
    session.sql("DELETE FROM db.t WHERE a = 3")
    model.delete(3)
    session.sql("INSERT INTO db.t VALUES (3, 'back', 30), (4, 'd', 4)")
    model.upsert(3, "back", 30)
    model.upsert(4, "d", 4)
    assert _read(session) == model.expected()
    assert _read(paimon_sql.connect(tmp_path / "wh")) == model.expected()


def test_deletion_vector_files_replaced(tmp_path):
    """Each write replaces the bucket's DV index file; the cache never brings an old one back."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    _create(session, "dv")
    session.sql("INSERT INTO db.t SELECT i, 'v' || i, i FROM range(1000) r(i)")
    table = session.catalog.load_table(Identifier("db", "t"))
    seen: set[str] = set()
    for i in range(5):
        session.sql(f"INSERT INTO db.t VALUES ({i * 100}, 'new{i}', -1)")  # noqa: S608
        snap = table.latest_snapshot()
        assert snap is not None
        assert snap.index_manifest is not None
        names = {e.index_file.file_name for e in table.index_manifest(snap.index_manifest)}
        assert len(names) == 1
        assert not names & seen
        seen |= names
    rows = {a: (s, n) for a, s, n in _read(session)}
    assert len(rows) == 1000
    assert [rows[i * 100] for i in range(5)] == [(f"new{i}", -1) for i in range(5)]
    assert rows[1] == ("v1", 1)


def test_one_key_reads_one_row_group(tmp_path):
    """Key-range and row-group pruning: a 1-row write into a bucket of many row groups."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    _create(session, "dv")
    session.sql("INSERT INTO db.t SELECT i, repeat('x', 1000) || i, i FROM range(20000) r(i)")
    table = session.catalog.load_table(Identifier("db", "t"))
    (big,) = [e.file for e in _live(table)]
    import pyarrow.parquet as pq

    path = table.sub("bucket-0", big.file_name)
    assert pq.ParquetFile(path).metadata.num_row_groups >= 10
    lookup = session.engine.key_lookup
    before = lookup.stats()["row_groups_read"]
    session.sql("INSERT INTO db.t VALUES (12345, 'one', 1)")
    assert lookup.stats()["row_groups_read"] - before == 1
    session.sql("INSERT INTO db.t VALUES (12346, 'two', 2)")  # same group: from the cache
    assert lookup.stats()["row_groups_read"] - before == 1
    assert session.sql("SELECT s, n FROM db.t WHERE a IN (12345, 12346) ORDER BY a").fetchall() == [
        ("one", 1),
        ("two", 2),
    ]
    assert session.sql("SELECT count(*) FROM db.t").fetchall() == [(20000,)]


@pytest.mark.parametrize("spilled", [False, True])
def test_binary_search_agrees_with_a_scan(tmp_path, spilled):
    """`KeyLookup` finds a sorted integer key column's rows by binary search (in memory, or in a
    local file read a block at a time through in-memory fences); a scan in Python over the
    same column must give the same positions and the same keys found, duplicates (runs across
    blocks) and unsorted columns included (an unsorted column is searched by fingerprint)."""
    import pyarrow as pa

    from paimon_sql.io import key_lookup
    from paimon_sql.io.key_lookup import KeyLookup, _Keys

    spill = KeyLookup(spill_dir=str(tmp_path))._spill

    rng = random.Random(18)
    searched = 0
    for _ in range(400):
        values = sorted(rng.randint(-20, 20) for _ in range(rng.randint(0, 60)))
        if rng.random() < 0.3:
            rng.shuffle(values)
        stored = pa.table({"a": pa.array(values, pa.int64())})
        wanted = list({rng.randint(-25, 25) for _ in range(rng.randint(1, 8))})
        rng.shuffle(wanted)
        keys = pa.table({"a": pa.array(wanted, pa.int64())})
        offset = rng.randint(0, 100)
        if spilled:  # blocks of 4 keys: runs of one key cross blocks
            key_lookup.SPILL_ROWS, key_lookup.BLOCK = 1, 4
        try:
            cached = _Keys(stored)
            if spilled and cached.can_spill():
                cached.spill(spill)
        finally:
            key_lookup.SPILL_ROWS, key_lookup.BLOCK = 4096, 512
        searched += cached.ints is not None and (cached.fences is not None) == spilled
        scanned = [i + offset for i, v in enumerate(values) if v in set(wanted)]
        held = [w in values for w in wanted]
        found, mask = cached.matches(keys, offset)
        assert (found.to_pylist(), mask.to_pylist()) == (scanned, held)
    assert searched > 200


@pytest.mark.parametrize(
    ("kind", "composite"), [("dv", False), ("first_row", False), ("dv", True), ("first_row", True)]
)
def test_spilled_keys_across_foreign_commits(tmp_path, monkeypatch, kind, composite):
    """The spilled (local-file) key columns under another writer's writes, compaction and
    expiration: every row group spilled (blocks of 4 keys), reads equal the model throughout.
    Composite keys (INT, STRING) are spilled as fingerprints, positions and mapped key columns."""
    from paimon_sql.io import key_lookup

    monkeypatch.setattr(key_lookup, "SPILL_ROWS", 1)
    monkeypatch.setattr(key_lookup, "BLOCK", 4)
    ours = paimon_sql.connect(tmp_path / "wh", create=True)
    ours.sql("CREATE DATABASE db")
    _create(ours, kind, composite)
    ours.engine.key_lookup.max_bytes = 1  # every key column to the disk tier
    other = paimon_sql.connect(tmp_path / "wh")
    model, rng = Model(kind, composite), random.Random(kind)
    base = model.values_sql((a, "base", a) for a in range(0, 60, 2))
    ours.sql(f"INSERT INTO db.t VALUES {base}")  # noqa: S608
    for a in range(0, 60, 2):
        model.upsert(a, "base", a)
    for step in range(10):
        if step in (3, 7):
            other.sql("CALL sys.compact(table => 'db.t')")
            other.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)")
        _statement(model, rng, other if step % 4 == 1 else ours, keys=70)
        assert _read(ours) == model.expected(), f"step {step}"
    stats = ours.engine.key_lookup.stats()
    assert stats["row_groups_spilled"] > 0
    assert stats["row_groups_cached"] > 0


def test_budgets_evict_and_clear_removes_the_files(tmp_path):
    """Past its memory budget the cache moves key columns to files; past its disk budget it drops
    the least recently used files; lookups stay right; `forget` drops a replaced file's entries;
    `clear` removes the folder."""
    import os

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from paimon_sql.io.fileio import file_io
    from paimon_sql.io.key_lookup import KeyLookup

    paths = []
    for i in range(3):  # three files of 10,000 sorted keys, one row group each (80,000 bytes)
        path = str(tmp_path / f"f{i}.parquet")
        pq.write_table(pa.table({"id": np.arange(i, 30_000, 3, dtype=np.int64)}), path)
        paths.append(path)
    lookup = KeyLookup(max_bytes=1, max_disk_bytes=170_000, spill_dir=str(tmp_path))
    keys = pa.table({"id": pa.array([0, 1, 2, 29_999, 50_000], pa.int64())})
    for _ in range(2):
        for i, path in enumerate(paths):
            found, held = lookup.find(file_io(path), path, os.path.getsize(path), "parquet", keys)
            want = [k for k in (0, 1, 2, 29_999) if k % 3 == i]
            assert found.to_pylist() == [k // 3 for k in want]
            assert held.column(0).to_pylist() == want
    stats = lookup.stats()
    assert stats["disk_bytes"] <= 170_000
    assert stats["row_groups_spilled"] == 6
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(list(folder.iterdir())) == 2  # the evicted files are gone
    lookup.forget([paths[2]])  # a file a compaction replaced
    assert len(list(folder.iterdir())) == 1
    assert lookup.stats()["disk_bytes"] == 80_000
    lookup.clear()
    assert not folder.exists()


@pytest.mark.parametrize(
    ("option", "update", "want"),
    [
        (
            "'sequence.field' = 'n'",
            "(1, 'older', 3), (2, 'newer', 7)",
            [(1, "b1", 5), (2, "newer", 7)],
        ),
        (
            "'merge-engine' = 'partial-update'",
            "(1, CAST(NULL AS STRING), 3), (2, 'newer', NULL)",
            [(1, "b1", 3), (2, "newer", 5)],
        ),
    ],
)
def test_old_values_still_merged_where_needed(tmp_path, option, update, want):
    """Deletion-vector tables whose merge needs the kept record (``sequence.field``: the larger
    sequence wins; partial-update: null fields keep the old value) do not take the position-only
    shortcut of a plain deduplicate table. The base is large enough that the write is compacted
    by a lookup, not fully."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (a INT NOT NULL, s STRING, n BIGINT, PRIMARY KEY (a) NOT ENFORCED) "
        f"WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true', {option})"
    )
    session.sql("INSERT INTO db.t SELECT i, 'b' || i, 5 FROM range(1, 3000) r(i)")
    session.sql(f"INSERT INTO db.t VALUES {update}")  # noqa: S608
    levels = session.sql('SELECT level FROM db."t$files" ORDER BY level').fetchall()
    assert levels[0] != levels[-1]  # the base file was kept: a lookup compaction
    query = "SELECT * FROM db.t WHERE a < 3 ORDER BY a"
    assert session.sql(query).fetchall() == want
    assert paimon_sql.connect(tmp_path / "wh").sql(query).fetchall() == want


@pytest.mark.parametrize(
    "options",
    [
        "'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'",
        "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', "
        "'aggregation.remove-record-on-delete' = 'true'",
    ],
)
@pytest.mark.parametrize("partitioned", [False, True])
def test_lookup_compaction_keeps_the_delete_of_remove_record_on_delete(
    tmp_path, options, partitioned
):
    """A lookup compaction below the top level writes the ``-D`` a key's merge ends with
    (Java's merge function returns a DELETE): leaving the key out showed the older copy in the
    kept file again (the DELETE was lost on disk, for Java's readers too)."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    by = "PARTITIONED BY (p) " if partitioned else ""
    session.sql(
        "CREATE TABLE db.t (p INT NOT NULL, a INT NOT NULL, n INT, PRIMARY KEY (p, a) "
        f"NOT ENFORCED) {by}WITH ('bucket' = '1', 'changelog-producer' = 'lookup', {options})"
    )
    session.sql("INSERT INTO db.t VALUES (1, 1, 1), (1, 2, 2), (2, 1, 3)")
    session.sql("DELETE FROM db.t WHERE a = 1")
    want = [(1, 2, 2)]
    levels = session.sql('SELECT level FROM db."t$files" ORDER BY level').fetchall()
    assert levels[0] != levels[-1]  # the -D sits below the kept file
    assert session.sql("SELECT * FROM db.t ORDER BY p, a").fetchall() == want
    assert paimon_sql.connect(tmp_path / "wh").sql("SELECT * FROM db.t").fetchall() == want
    session.sql("INSERT INTO db.t VALUES (1, 1, 7)")
    want = [(1, 1, 7), (1, 2, 2)]
    assert session.sql("SELECT * FROM db.t ORDER BY p, a").fetchall() == want
