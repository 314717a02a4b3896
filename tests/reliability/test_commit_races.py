"""Smaller races of the commit protocol, replayed deterministically.

* A tag created on a snapshot that an expiration removes at the same moment: either the expiration
  sees the tag and keeps its files, or the tag is undone with a clear error; never a tag whose files
  are gone.
* Two compactions that each rebuild a bucket's deletion vectors from the same base: the second must
  not silently replace the first one's vectors (its deletions would come back).
* Two DELETEs on an append table with deletion vectors (unaware bucket: several index files per
  partition, combined by file name) that mark the same data file: the second conflicts.
* Temporary files of killed writers (``.<name>.<uuid>.tmp``): readers never list them;
  ``remove_orphan_files`` removes them once older than its cutoff, and not before.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.commit.orphans import remove_orphan_files
from paimon_sql.commit.plan import CommitMessage, check_vectors_live, fold, next_index_manifest
from paimon_sql.errors import CommitConflictError
from paimon_sql.format.manifest import (
    DeletionVectorMeta,
    FileKind,
    IndexFileMeta,
    IndexManifestEntry,
)
from paimon_sql.io import fileio
from tests.reliability import _commit


def _session(tmp_path: Path) -> paimon_sql.Session:
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (id BIGINT, w INT, i INT) WITH ('bucket' = '-1')")
    return session


def test_tag_racing_expiration_is_never_left_without_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _session(tmp_path)
    for s in range(4):
        session.sql(_commit.insert_sql("db.t", 1, s))
    session.sql("CALL sys.compact(table => 'db.t')")  # snapshot 5 rewrites the files 1..4 added
    other = paimon_sql.connect(tmp_path / "wh")
    create = fileio.FileIO.try_create
    raced: list[str] = []

    def racing(self: fileio.FileIO, path: str, data: bytes) -> bool:
        if (
            "/tag/" in path and not raced
        ):  # the tag read snapshot 2; expiration runs before it lands
            raced.append(path)
            other.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)")
        return create(self, path, data)

    monkeypatch.setattr(fileio.FileIO, "try_create", racing)
    with pytest.raises(CommitConflictError, match="expired while the tag"):
        session.sql("CALL sys.create_tag(table => 'db.t', tag => 'old', snapshot => 2)")
    monkeypatch.undo()
    assert raced
    table = session.catalog.load_table(Identifier.parse("db.t"))
    assert table.tag_names() == []
    found = _commit.audit(str(tmp_path / "wh"), "db.t", {_commit.first_id(1, s) for s in range(4)})
    assert not found.problems, found.problems


def _dv(name: str) -> IndexFileMeta:
    return IndexFileMeta(index_type="DELETION_VECTORS", file_name=name, file_size=1, row_count=1)


def test_deletion_vectors_rebuilt_from_a_stale_base_conflict() -> None:
    old, mine, theirs = _dv("index-old"), _dv("index-mine"), _dv("index-theirs")
    at_base = [IndexManifestEntry(kind=FileKind.ADD, partition=b"", bucket=0, index_file=old)]
    mine_msg = CommitMessage(
        partition=b"",
        bucket=0,
        total_buckets=1,
        new_index_files=(mine,),
        deleted_index_files=(old,),
    )
    assert [e.index_file.file_name for e in next_index_manifest(at_base, [mine_msg]) or []] == [
        "index-mine"
    ]
    # Another compaction replaced the bucket's vectors first: the base no longer holds index-old.
    latest = [IndexManifestEntry(kind=FileKind.ADD, partition=b"", bucket=0, index_file=theirs)]
    with pytest.raises(CommitConflictError, match="deletion vectors of bucket 0"):
        next_index_manifest(latest, [mine_msg])
    # A bucket that had no vectors at the writer's base got some meanwhile.
    first = CommitMessage(partition=b"", bucket=0, total_buckets=1, new_index_files=(mine,))
    with pytest.raises(CommitConflictError):
        next_index_manifest(latest, [first])


def _dv_of(name: str, *data_files: str) -> IndexFileMeta:
    ranges = tuple(
        DeletionVectorMeta(data_file_name=f, offset=1 + 30 * i, length=22, cardinality=1)
        for i, f in enumerate(data_files)
    )
    return IndexFileMeta(
        index_type="DELETION_VECTORS",
        file_name=name,
        file_size=1,
        row_count=len(ranges),
        dv_ranges=ranges,
    )


def _entries(*files: IndexFileMeta) -> list[IndexManifestEntry]:
    return [
        IndexManifestEntry(kind=FileKind.ADD, partition=b"p", bucket=0, index_file=f) for f in files
    ]


def test_unaware_append_vectors_combine_by_file_name_and_races_conflict() -> None:
    """Java's GlobalCombiner: a partition holds several DV files; a DELETE replaces only the ones
    holding a vector it changed. Two DELETEs racing on one data file cannot both win."""
    a, b = _dv_of("index-a", "data-1"), _dv_of("index-b", "data-2")
    mine = CommitMessage(
        partition=b"p",
        bucket=0,
        total_buckets=0,
        new_index_files=(_dv_of("index-c", "data-1"),),
        deleted_index_files=(a,),
    )
    after = next_index_manifest(_entries(a, b), [mine], unaware=True) or []
    assert sorted(e.index_file.file_name for e in after) == ["index-b", "index-c"]
    # a concurrent DELETE of another data file meanwhile: both kept
    other = _dv_of("index-d", "data-3")
    after = next_index_manifest(_entries(a, b, other), [mine], unaware=True) or []
    assert sorted(e.index_file.file_name for e in after) == ["index-b", "index-c", "index-d"]
    # a concurrent DELETE rewrote index-a first: this one's base is gone
    with pytest.raises(CommitConflictError, match="deletion vectors"):
        next_index_manifest(_entries(_dv_of("index-a2", "data-1"), b), [mine], unaware=True)
    # a concurrent DELETE gave data-3 a vector (index-d) while this one marked it too
    first = CommitMessage(
        partition=b"p",
        bucket=0,
        total_buckets=0,
        new_index_files=(_dv_of("index-e", "data-3"),),
    )
    with pytest.raises(CommitConflictError, match="deletion vectors"):
        next_index_manifest(_entries(a, b, other), [first], unaware=True)


def test_marking_rows_of_a_file_a_concurrent_compaction_removed_conflicts(tmp_path: Path) -> None:
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.a (id INT, v STRING) WITH ('deletion-vectors.enabled' = 'true')")
    session.sql("INSERT INTO db.a VALUES (1, 'a'), (2, 'b')")
    session.sql("INSERT INTO db.a VALUES (3, 'c')")
    table = session.catalog.load_table(Identifier.parse("db.a"))
    live = _commit_live(table)
    (first,) = [e for e in live if e.file.row_count == 2]
    marked = CommitMessage(
        partition=first.partition,
        bucket=first.bucket,
        total_buckets=0,
        new_index_files=(_dv_of("index-m", first.file.file_name),),
    )
    check_vectors_live([marked], live, [])
    session.sql("CALL sys.compact(table => 'db.a')")  # both files rewritten into one
    with pytest.raises(CommitConflictError, match="removed by a concurrent commit"):
        check_vectors_live([marked], _commit_live(table), [])


def _commit_live(table: Any) -> list[Any]:
    snapshot = table.snapshot(table.latest_snapshot_id())
    metas = table.data_manifests(snapshot)
    return list(fold(e for m in metas for e in table.manifest(m.file_name)).values())


def test_temporary_files_are_ignored_by_readers_and_removed_after_the_cutoff(
    tmp_path: Path,
) -> None:
    session = _session(tmp_path)
    session.sql(_commit.insert_sql("db.t", 1, 0))
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'a')")
    table = session.catalog.load_table(Identifier.parse("db.t"))
    leftovers = [
        table.meta("snapshot", f".snapshot-2.{uuid.uuid4()}.tmp"),
        table.meta("snapshot", f".snapshot-99.{uuid.uuid4()}.tmp"),
        table.meta("tag", f".tag-b.{uuid.uuid4()}.tmp"),
        table.meta("schema", f".schema-1.{uuid.uuid4()}.tmp"),
    ]
    for path in leftovers:
        Path(path).write_text("{ half a snap")
    assert (table.snapshot_ids(), table.tag_names(), table.schema_ids()) == ([1], ["a"], [0])
    assert session.sql("SELECT count(*) FROM db.t").fetchall() == [(3,)]
    keep = Path(table.meta("snapshot", "snapshot-1"))
    before = int(os.stat(leftovers[0]).st_mtime * 1000) - 1000
    assert remove_orphan_files(table, before) == []  # younger than the cutoff: maybe in flight
    removed = remove_orphan_files(table, int(time.time() * 1000) + 1000)
    assert sorted(removed) == sorted(leftovers)
    assert not any(Path(p).exists() for p in leftovers)
    assert keep.exists()
    assert session.sql("SELECT count(*) FROM db.t VERSION AS OF 'a'").fetchall() == [(3,)]


def test_tagging_an_expired_snapshot_while_its_last_tag_is_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Snapshot 1 has expired and only tag 'a' keeps its files. A new tag on it read the snapshot
    from 'a' just before 'a' was deleted (and its files cleaned up): the new tag must not be made,
    else it would name deleted files."""
    from paimon_sql.commit import tags

    session = _session(tmp_path)
    for i in range(3):
        session.sql(f"INSERT INTO db.t VALUES ({i}, {i}, {i})")  # noqa: S608 - ints
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'a', snapshot => 1)")
    session.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)")
    table = session.catalog.load_table(Identifier("db", "t"))
    held = table.tag("a")
    assert not table.fileio.exists(table.meta("snapshot", "snapshot-1"))

    def find_then_lose_the_last_tag(tbl, snapshot_id):  # the interleaving, replayed
        tags.delete_tag(tbl, "a")
        return held

    monkeypatch.setattr(tags, "_find_snapshot", find_then_lose_the_last_tag)
    with pytest.raises(CommitConflictError, match="no longer live"):
        tags.create_tag(table, "b", 1)
    assert not table.fileio.exists(table.meta("tag", "tag-b"))
