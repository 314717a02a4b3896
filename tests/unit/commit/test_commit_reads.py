"""A commit reads the manifests of the partitions it touches, not the table's history (issue 18).

The reads are counted through a FileIO over the real local filesystem; which manifests list the
touched partition is found independently: fastavro over every manifest file, matched against the
data files on disk in that partition's folders.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import duckdb
import fastavro
import pyarrow.fs as pafs

import paimon_sql
from paimon_sql.catalog import Table
from paimon_sql.commit.publish import Committer
from paimon_sql.io.fileio import FileIO
from paimon_sql.write.writer import TableWriter


@dataclass(frozen=True, slots=True)
class CountingFileIO(FileIO):
    """The local filesystem, remembering every file read."""

    reads: list[str] = field(default_factory=list)

    def read_bytes(self, path: str) -> bytes:
        self.reads.append(path)
        return FileIO.read_bytes(self, path)


def _manifests_listing(folder: str, data_files: set[str]) -> set[str]:
    """Names of the manifest files (not lists) with an entry for one of `data_files`."""
    out = set()
    for name in os.listdir(folder):
        if not name.startswith("manifest-") or name.startswith("manifest-list-"):
            continue
        with open(os.path.join(folder, name), "rb") as fh:
            records: list[Any] = list(fastavro.reader(fh))
        if any(r["_FILE"]["_FILE_NAME"] in data_files for r in records):
            out.add(name)
    return out


def test_a_commit_reads_only_the_manifests_of_its_partition(tmp_path):
    warehouse = tmp_path / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    # fixed buckets: the commit must check the bucket count of the partition it writes (Java's
    # checkSameBucketByTotalBuckets), so it reads that partition's live files; no merging, so that
    # each partition's files are listed by exactly one manifest
    session.sql(
        "CREATE TABLE db.t (p INT, id INT, v INT) PARTITIONED BY (p) "
        "WITH ('bucket' = '2', 'bucket-key' = 'id', 'manifest.merge-min-count' = '1000')"
    )
    commits = 40
    for p in range(commits):
        session.sql("INSERT INTO db.t VALUES (?, 1, 1), (?, 2, 2)", params=[p, p])
    session.close()

    fileio = CountingFileIO(pafs.LocalFileSystem(), True)
    path = os.path.join(str(warehouse), "db.db", "t")
    table = Table(fileio, path, "db.t")
    folder = os.path.join(path, "p=7")
    on_disk = {n for b in os.listdir(folder) for n in os.listdir(os.path.join(folder, b))}
    expected = _manifests_listing(os.path.join(path, "manifest"), on_disk)
    assert len(expected) == 1  # written by the commit into p=7, one among 40

    con = duckdb.connect()
    writer = TableWriter(con, table)
    messages, rows = writer.write_stream("SELECT 7 AS p, 3 AS id, 3 AS v")
    snapshot = Committer(table).commit(messages)
    assert rows == 1
    assert snapshot is not None
    assert snapshot.id == commits + 1

    read = {
        os.path.basename(r)
        for r in fileio.reads
        if os.path.dirname(r).endswith("manifest")
        and os.path.basename(r).startswith("manifest-")
        and not os.path.basename(r).startswith("manifest-list-")
    }
    assert read == expected

    session = paimon_sql.connect(warehouse)
    got = session.sql("SELECT p, id, v FROM db.t WHERE p = 7 ORDER BY id").fetchall()
    assert got == [(7, 1, 1), (7, 2, 2), (7, 3, 3)]
    assert session.sql("SELECT count(*) FROM db.t").fetchall() == [(2 * commits + 1,)]


def test_merged_manifests_keep_deletes_of_files_in_unmerged_ones(tmp_path):
    """Minor merging (by size and by count) with overwrites: every snapshot reads what it wrote."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (p INT, v INT) PARTITIONED BY (p) "
        "WITH ('manifest.merge-min-count' = '3', 'manifest.target-file-size' = '4 kb')"
    )
    expected: dict[int, list[int]] = {}
    history = []
    for i in range(24):
        p = i % 4
        if i % 3 == 2:
            session.sql(f"INSERT OVERWRITE db.t SELECT {p}, {i}")
            expected[p] = [i]
        else:
            session.sql("INSERT INTO db.t VALUES (?, ?)", params=[p, i])
            expected.setdefault(p, []).append(i)
        history.append(sorted((q, v) for q, vs in expected.items() for v in vs))
    table = session.table("db.t")
    latest = table.latest_snapshot()
    assert len(table.data_manifests(latest)) < 6  # merged, not one manifest per commit
    for snapshot_id, rows in enumerate(history, start=1):
        got = session.scan("db.t", snapshot=snapshot_id).fetchall()
        assert sorted(got) == rows, snapshot_id
