"""Replays of the commit races that lost statements, made deterministic.

* A committer plans on snapshot B, stops before it publishes, and resumes after other writers
  committed B+1 … and expiration removed B and B+1: it must not create ``snapshot-(B+1)`` in the
  expired hole (below EARLIEST, on a stale base); it plans again on the real latest.
* A create whose reply is lost after the snapshot file was made (the link happened, then an error):
  the commit counts once and its data files stay.
* A job that re-commits with its commit user and identifier finds its snapshot (Java's
  filterCommitted) instead of landing twice.
* Readers list snapshots: LATEST/EARLIEST hints that a listing contradicts are never trusted.

Real tables, real files; the pauses are threads waiting on events inside our own committer.
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.commit.publish import Committer
from paimon_sql.io import fileio
from paimon_sql.sql.statements.dml import _write_files
from paimon_sql.write.writer import TableWriter
from tests.reliability import _commit

AUTO_EXPIRE = (
    "CREATE TABLE db.t (id BIGINT, w INT, i INT) WITH ('snapshot.num-retained.min' = '1', "
    "'snapshot.num-retained.max' = '2', 'snapshot.time-retained' = '1 ms')"
)


def _session(tmp_path: Path, ddl: str = AUTO_EXPIRE) -> paimon_sql.Session:
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(ddl)
    return session


def _ids(session: paimon_sql.Session) -> list[int]:
    return sorted(r[0] for r in session.sql("SELECT id FROM db.t").fetchall())


def _statement(worker: int, statement: int) -> list[int]:
    base = _commit.first_id(worker, statement)
    return list(range(base, base + _commit.ROWS))


@pytest.mark.parametrize("others", [2, pytest.param(5, marks=pytest.mark.slow)])
def test_stale_commit_resumed_after_others_committed_and_expired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, others: int
) -> None:
    session = _session(tmp_path)
    for s in range(2):
        session.sql(_commit.insert_sql("db.t", 1, s))
    paused, resume = threading.Event(), threading.Event()
    bases: list[int | None] = []
    publish_ = Committer._publish

    def pausing(self, latest, *args, **kwargs):  # type: ignore[no-untyped-def]
        if threading.current_thread().name == "stale":
            bases.append(None if latest is None else latest.id)
            if len(bases) == 1:
                paused.set()
                assert resume.wait(60)
        return publish_(self, latest, *args, **kwargs)

    monkeypatch.setattr(Committer, "_publish", pausing)
    stale = paimon_sql.connect(tmp_path / "wh")
    errors: list[BaseException] = []

    def run() -> None:
        try:
            stale.sql(_commit.insert_sql("db.t", 2, 0))
        except BaseException as err:  # noqa: BLE001 - the thread hands any failure to the test
            errors.append(err)

    thread = threading.Thread(target=run, name="stale")
    thread.start()
    assert paused.wait(60)
    for s in range(2, 2 + others):  # commits B+1 …, each expiring all but the newest 2
        session.sql(_commit.insert_sql("db.t", 1, s))
    session.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)")
    table = session.catalog.load_table(Identifier.parse("db.t"))
    assert bases[0] + 1 < table.earliest_snapshot_id()  # the stale base and its successor are gone
    resume.set()
    thread.join(60)
    assert not errors, errors
    ids = table.snapshot_ids()
    assert ids == list(range(ids[0], ids[-1] + 1)), f"a snapshot below EARLIEST: {ids}"
    expected = sorted([i for s in range(2 + others) for i in _statement(1, s)] + _statement(2, 0))
    assert _ids(paimon_sql.connect(tmp_path / "wh")) == expected
    assert len(bases) >= 2
    assert bases[-1] == bases[0] + others


def test_create_whose_reply_is_lost_counts_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _session(tmp_path)
    session.sql(_commit.insert_sql("db.t", 1, 0))
    failed: list[str] = []
    link = os.link

    def lossy_link(source: str, target: str) -> None:
        link(source, target)
        if os.path.basename(target).startswith("snapshot-") and not failed:
            failed.append(target)
            raise OSError(errno.EIO, "reply lost", target)

    monkeypatch.setattr(fileio.os, "link", lossy_link)
    session.sql(_commit.insert_sql("db.t", 1, 1))
    assert failed
    table = session.catalog.load_table(Identifier.parse("db.t"))
    assert table.latest_snapshot_id() == 2
    assert _ids(paimon_sql.connect(tmp_path / "wh")) == _statement(1, 0) + _statement(1, 1)


def test_recommit_by_commit_user_and_identifier_lands_once(tmp_path: Path) -> None:
    session = _session(
        tmp_path, "CREATE TABLE db.t (id BIGINT, w INT, i INT) WITH ('bucket' = '-1')"
    )
    table = session.catalog.load_table(Identifier.parse("db.t"))
    writer = TableWriter(session.con, table)
    messages, _ = _write_files(writer, "SELECT 1::BIGINT AS id, 1 AS w, 1 AS i", 0)
    first = Committer(table, commit_user="job-7").commit(messages, identifier=5)
    other = Committer(table, commit_user="job-8").commit(
        _write_files(TableWriter(session.con, table), "SELECT 2::BIGINT AS id, 2 AS w, 2 AS i", 0)[
            0
        ],
        identifier=1,
    )
    again = Committer(table, commit_user="job-7").commit(messages, identifier=5)  # the job resumed
    assert first is not None
    assert other is not None
    assert again is not None
    assert again.id == first.id
    assert table.latest_snapshot_id() == other.id
    assert _ids(paimon_sql.connect(tmp_path / "wh")) == [1, 2]
    later = Committer(table, commit_user="job-7").commit(
        _write_files(TableWriter(session.con, table), "SELECT 3::BIGINT AS id, 3 AS w, 3 AS i", 0)[
            0
        ],
        identifier=6,
    )
    assert later is not None
    assert later.id == other.id + 1


def test_readers_list_instead_of_trusting_hints(tmp_path: Path) -> None:
    session = _session(
        tmp_path, "CREATE TABLE db.t (id BIGINT, w INT, i INT) WITH ('bucket' = '-1')"
    )
    for s in range(5):
        session.sql(_commit.insert_sql("db.t", 1, s))
    session.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 2)")
    table = session.catalog.load_table(Identifier.parse("db.t"))
    folder = Path(table.meta("snapshot"))
    # What a commit on an expired base used to leave: a stray snapshot-2 below the gap, hints on it.
    (folder / "snapshot-2").write_bytes(
        (folder / "snapshot-4").read_bytes().replace(b'"id" : 4', b'"id" : 2')
    )
    (folder / "LATEST").write_text("2")
    (folder / "EARLIEST").write_text("2")
    assert (table.latest_snapshot_id(), table.earliest_snapshot_id()) == (5, 4)
    assert _ids(paimon_sql.connect(tmp_path / "wh")) == [
        i for s in range(5) for i in _statement(1, s)
    ]
