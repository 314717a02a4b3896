"""The LATEST / EARLIEST hints find the ends of the history without a listing, and only when the
files agree (issue 18).

A hint that lags, is missing, is garbage, is ahead of the files, or names a stray snapshot below a
gap never changes what a reader sees or where a commit lands: the expected ends are computed from
``os.listdir`` of the snapshot folder, the expected rows from the statements' own values. Listings
are counted through a FileIO over the real local filesystem.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb
import pyarrow.fs as pafs
import pytest

import paimon_sql
from paimon_sql.catalog import Table
from paimon_sql.commit.publish import Committer
from paimon_sql.io.fileio import FileIO
from paimon_sql.write.writer import TableWriter

if TYPE_CHECKING:
    from pathlib import Path

INSERTS = 12
RETAIN = 8  # snapshots 5..12 stay after the expiration


@dataclass(frozen=True, slots=True)
class CountingFileIO(FileIO):
    """The local filesystem, remembering every folder listed."""

    listed: list[str] = field(default_factory=list)

    def list_names(self, path: str) -> list[str]:
        self.listed.append(path)
        return FileIO.list_names(self, path)


def _ends(folder: Path) -> tuple[int, int]:
    """(earliest, latest) from the folder itself: the consecutive run ending at the highest id."""
    ids = sorted(int(m[1]) for n in os.listdir(folder) if (m := re.fullmatch(r"snapshot-(\d+)", n)))
    first = ids[-1]
    while first - 1 in ids:
        first -= 1
    return first, ids[-1]


def _rows(count: int) -> list[tuple[int, int]]:
    return [(i, i * 10) for i in range(1, count + 1)]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table with snapshots 5..12 (one row each), hints as paimon-sql wrote them."""
    root = tmp_path_factory.mktemp("hints") / "wh"
    session = paimon_sql.connect(root, create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (id INT, v INT)")
    for i, row in enumerate(_rows(INSERTS)):
        session.sql("INSERT INTO db.t VALUES (?, ?)", params=list(row))
        assert i + 1 == session.table("db.t").latest_snapshot_id()
    session.sql(f"CALL sys.expire_snapshots(table => 'db.t', retain_max => {RETAIN})")
    session.close()
    folder = root / "db.db" / "t" / "snapshot"
    assert _ends(folder) == (INSERTS - RETAIN + 1, INSERTS)
    assert (folder / "LATEST").read_text() == str(INSERTS)
    assert (folder / "EARLIEST").read_text() == str(INSERTS - RETAIN + 1)
    return root


def _copy(built: Path, tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "wh"
    shutil.copytree(built, root)
    return root, root / "db.db" / "t" / "snapshot"


def _stray(folder: Path) -> None:
    """What a commit on an expired base used to leave: ``snapshot-2`` below the gap 3..4."""
    text = (folder / "snapshot-5").read_bytes().replace(b'"id" : 5', b'"id" : 2')
    (folder / "snapshot-2").write_bytes(text)


LATEST = {
    "lags-by-one": "11",
    "lags-by-five": "7",
    "garbage": "banana",
    "empty": "",
    "binary": "\x00\xff\x01",
    "negative": "-3",
    "zero": "0",
    "huge": "99999999999999999999999999",
    "ahead": "40",
    "just-ahead": "13",
    "stray": "2",
    "missing": None,
}

EARLIEST = {
    "expired": "3",  # Java moves it after deleting: walked forward
    "inside-the-run": "7",  # an expiration moved it and was killed: 5 and 6 remain
    "garbage": "x7",
    "ahead-of-latest": "30",
    "stray": "2",
    "missing": None,
}


def _damage(folder: Path, hint: str, text: str | None) -> None:
    if hint == "stray" or text == "2":
        _stray(folder)
    if text is None:
        (folder / hint).unlink()
    else:
        (folder / hint).write_bytes(text.encode("latin-1"))


def _check_reads_and_commit(root: Path, folder: Path) -> None:
    expected_ends = _ends(folder)
    table = paimon_sql.Catalog(root).load_table("db.t")
    assert (table.earliest_snapshot_id(), table.latest_snapshot_id()) == expected_ends
    latest = table.latest_snapshot()
    assert latest is not None
    assert latest.id == expected_ends[1]
    session = paimon_sql.connect(root)
    assert sorted(session.sql("SELECT id, v FROM db.t").fetchall()) == _rows(INSERTS)
    session.sql("INSERT INTO db.t VALUES (?, ?)", params=[INSERTS + 1, (INSERTS + 1) * 10])
    assert _ends(folder) == (expected_ends[0], INSERTS + 1)  # the next id, never into a gap
    fresh = paimon_sql.connect(root)
    assert sorted(fresh.sql("SELECT id, v FROM db.t").fetchall()) == _rows(INSERTS + 1)


@pytest.mark.parametrize("case", list(LATEST))
def test_latest_hint_damage(built: Path, tmp_path: Path, case: str) -> None:
    root, folder = _copy(built, tmp_path)
    _damage(folder, "LATEST", LATEST[case])
    _check_reads_and_commit(root, folder)


@pytest.mark.parametrize("case", list(EARLIEST))
def test_earliest_hint_damage(built: Path, tmp_path: Path, case: str) -> None:
    root, folder = _copy(built, tmp_path)
    _damage(folder, "EARLIEST", EARLIEST[case])
    if case == "inside-the-run":  # snapshots 5 and 6 are still there: the run starts at 5
        assert (folder / "snapshot-5").exists()
    _check_reads_and_commit(root, folder)


def test_stale_writer_hint_below_the_real_latest(built: Path, tmp_path: Path) -> None:
    """A slower writer rewrote LATEST with its own, older id after a newer commit: lagging hint."""
    root, folder = _copy(built, tmp_path)
    (folder / "LATEST").write_text("10")
    table = paimon_sql.Catalog(root).load_table("db.t")
    assert table.latest_snapshot_id() == INSERTS
    assert not table.is_latest(10)
    assert not table.is_latest(INSERTS + 1)
    assert table.is_latest(INSERTS)


def _commit(table: Table, value: int, v: int | None = None) -> int:
    writer = TableWriter(duckdb.connect(), table)
    v = value * 10 if v is None else v
    messages, rows = writer.write_stream(f"SELECT {value} AS id, {v} AS v")
    assert rows == 1
    snapshot = Committer(table).commit(messages)
    assert snapshot is not None
    return snapshot.id


def _snapshot_listings(fileio: CountingFileIO) -> int:
    return sum(1 for p in fileio.listed if os.path.basename(p) == "snapshot")


@pytest.mark.parametrize("expiring", [False, True], ids=["keep", "expire"])
def test_a_commit_lists_no_snapshot_folder(tmp_path: Path, expiring: bool) -> None:
    root = tmp_path / "wh"
    session = paimon_sql.connect(root, create=True)
    session.sql("CREATE DATABASE db")
    options = (
        "'snapshot.num-retained.min' = '2', 'snapshot.num-retained.max' = '4', "
        "'snapshot.time-retained' = '1 ms'"
        if expiring
        else "'snapshot.num-retained.max' = '1000'"
    )
    session.sql(f"CREATE TABLE db.t (id INT, v INT) WITH ({options})")
    for row in _rows(INSERTS):
        session.sql("INSERT INTO db.t VALUES (?, ?)", params=list(row))
    session.close()
    folder = root / "db.db" / "t" / "snapshot"
    fileio = CountingFileIO(pafs.LocalFileSystem(), True)
    table = Table(fileio, str(root / "db.db" / "t"), "db.t")
    for i in range(3):
        assert _commit(table, INSERTS + 1 + i) == INSERTS + 1 + i
    assert _snapshot_listings(fileio) == 0
    earliest, latest = _ends(folder)
    assert latest == INSERTS + 3
    assert earliest == (latest - 1 if expiring else 1)  # expiration kept the newest 2
    assert (folder / "EARLIEST").read_text() == str(earliest)
    got = sorted(paimon_sql.connect(root).sql("SELECT id, v FROM db.t").fetchall())
    assert got == _rows(INSERTS + 3)

    # a hint the files contradict costs a listing, never a wrong id
    (folder / "LATEST").write_text("3")
    assert _commit(table, INSERTS + 4) == INSERTS + 4
    assert _snapshot_listings(fileio) >= 1


def test_a_primary_key_commit_lists_no_snapshot_folder(tmp_path: Path) -> None:
    root = tmp_path / "wh"
    session = paimon_sql.connect(root, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2')"
    )
    for row in _rows(INSERTS):
        session.sql("INSERT INTO db.t VALUES (?, ?)", params=list(row))
    session.close()
    fileio = CountingFileIO(pafs.LocalFileSystem(), True)
    table = Table(fileio, str(root / "db.db" / "t"), "db.t")
    assert _commit(table, 3, -3) == INSERTS + 1  # an upsert of key 3
    assert _snapshot_listings(fileio) == 0
    got = sorted(paimon_sql.connect(root).sql("SELECT id, v FROM db.t").fetchall())
    assert got == sorted([(3, -3)] + [r for r in _rows(INSERTS) if r[0] != 3])
