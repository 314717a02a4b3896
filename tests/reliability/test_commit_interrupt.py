"""A statement interrupted (Ctrl-C, a fatal error) after its ``snapshot-N`` exists keeps every file
that snapshot references: the interrupt still reaches the caller, and the rows are readable."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.commit import publish
from paimon_sql.io.fileio import FileIO

if TYPE_CHECKING:
    from pathlib import Path


def _table(tmp_path: Path, with_keys: bool) -> paimon_sql.Session:
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    keys = ", 'primary-key' = 'id', 'bucket' = '2'" if with_keys else ""
    session.sql(f"CREATE TABLE db.t (id BIGINT, v STRING) WITH ('file.format' = 'parquet'{keys})")
    session.sql("INSERT INTO db.t VALUES (1, 'a')")
    return session


def _interrupt(*_args: object, **_kwargs: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize("with_keys", [False, True], ids=["append", "pk"])
@pytest.mark.parametrize("where", ["after_commit", "hint"])
def test_an_interrupt_after_the_snapshot_landed_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, with_keys: bool
) -> None:
    session = _table(tmp_path, with_keys)
    if where == "after_commit":
        monkeypatch.setattr(publish, "after_commit", _interrupt)
    else:  # the LATEST hint is written right after snapshot-N was created
        original = FileIO.write_bytes

        def write_bytes(self: FileIO, path: str, data: bytes) -> None:
            if path.endswith("LATEST"):
                raise KeyboardInterrupt
            original(self, path, data)

        monkeypatch.setattr(FileIO, "write_bytes", write_bytes)
    with pytest.raises(KeyboardInterrupt):
        session.sql("INSERT INTO db.t VALUES (2, 'b'), (3, 'c')")
    monkeypatch.undo()
    fresh = paimon_sql.connect(tmp_path / "wh")
    assert sorted(fresh.sql("SELECT id, v FROM db.t").fetchall()) == [(1, "a"), (2, "b"), (3, "c")]


def test_an_interrupt_before_the_snapshot_leaves_no_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _table(tmp_path, with_keys=False)
    table_dir = tmp_path / "wh" / "db.db" / "t"
    before = {p for p in table_dir.rglob("*") if p.is_file()}
    monkeypatch.setattr(publish.Committer, "_create", _interrupt)
    with pytest.raises(KeyboardInterrupt):
        session.sql("INSERT INTO db.t VALUES (2, 'b')")
    monkeypatch.undo()
    assert {p for p in table_dir.rglob("*") if p.is_file()} == before
    assert paimon_sql.connect(tmp_path / "wh").sql("SELECT id FROM db.t").fetchall() == [(1,)]


def test_an_interrupt_after_a_compaction_landed_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _table(tmp_path, with_keys=True)
    session.sql("INSERT INTO db.t VALUES (1, 'b'), (2, 'c')")
    monkeypatch.setattr(publish, "after_commit", _interrupt)
    with pytest.raises(KeyboardInterrupt):
        session.sql("CALL sys.compact(table => 'db.t')")
    monkeypatch.undo()
    fresh = paimon_sql.connect(tmp_path / "wh")
    kinds = [
        k for (k,) in fresh.sql('SELECT commit_kind FROM db."t$snapshots" ORDER BY 1').fetchall()
    ]
    assert "COMPACT" in kinds
    assert sorted(fresh.sql("SELECT id, v FROM db.t").fetchall()) == [(1, "b"), (2, "c")]
