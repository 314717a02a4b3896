"""A session reuses an inlined scan for the next statement that reads the same snapshot.

The reuse must never serve a stale scan: a commit by another session (new rows, new deletion
vectors), a schema change (no new snapshot), a rollback that makes a snapshot id again with other
files, and a data file gone since the scan was built are each checked against rows computed in
Python (or Java's own answer for the Java-written DV table), across two sessions on one warehouse.
"""

from __future__ import annotations

import json
import os
from contextlib import closing

import pytest

import paimon_sql
from paimon_sql.errors import DataFileNotFoundError
from tests.fixtures import FIXTURES

# Queries here are fixed test input (constants), not built from data.
# ruff: noqa: S608

JAVA09 = FIXTURES / "generated-paimon-java-0.9" / "warehouse"


def _kept(session: paimon_sql.Session) -> int:
    return len(session._binder.inlined.entries)


def _dv_table(session: paimon_sql.Session) -> dict[int, str]:
    session.sql("CREATE DATABASE IF NOT EXISTS d")
    session.sql(
        "CREATE TABLE d.t (id INT NOT NULL, v VARCHAR, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')"
    )
    model = {i: f"v{i}" for i in range(40)}
    session.sql("INSERT INTO d.t VALUES " + ", ".join(f"({i}, 'v{i}')" for i in model))
    session.sql("INSERT INTO d.t VALUES " + ", ".join(f"({i}, 'w{i}')" for i in range(0, 40, 3)))
    model.update({i: f"w{i}" for i in range(0, 40, 3)})
    return model


def test_java_dv_table_read_again_from_the_kept_scan_matches_java():
    truth = json.loads((JAVA09.parent / "java_truth.json").read_text())["pk_part_dv"]
    key = lambda r: (r["id"], r["dt"])  # noqa: E731
    with closing(paimon_sql.connect(str(JAVA09))) as session:
        for round_ in range(3):
            rel = session.sql("SELECT * FROM db.pk_part_dv")
            columns = list(rel.columns)
            got = [dict(zip(columns, r, strict=True)) for r in rel.fetchall()]
            assert sorted(got, key=key) == sorted(truth, key=key), round_
            assert _kept(session) == 1
        total = session.sql("SELECT count(*) FROM db.pk_part_dv").fetchall()
        assert total == [(len(truth),)]


def test_commits_of_another_session_are_never_served_from_a_kept_scan(tmp_path):
    wh = str(tmp_path)
    with (
        closing(paimon_sql.connect(wh, create=True)) as reader,
        closing(paimon_sql.connect(wh)) as writer,
    ):
        model = _dv_table(writer)
        query = "SELECT id, v FROM d.t"
        assert sorted(reader.sql(query).fetchall()) == sorted(model.items())
        assert sorted(reader.sql(query).fetchall()) == sorted(model.items())
        assert _kept(reader) == 1
        writer.sql("DELETE FROM d.t WHERE id % 4 = 1")  # new deletion vectors, new snapshot
        model = {k: v for k, v in model.items() if k % 4 != 1}
        assert sorted(reader.sql(query).fetchall()) == sorted(model.items())
        writer.sql("INSERT INTO d.t VALUES (100, 'x'), (5, 'y')")
        model.update({100: "x", 5: "y"})
        assert sorted(reader.sql(query).fetchall()) == sorted(model.items())
        # a schema change writes no snapshot: the kept scan of this snapshot must not serve it
        writer.sql("ALTER TABLE d.t ADD COLUMN n INT")
        got = reader.sql("SELECT * FROM d.t").fetchall()
        assert sorted(got) == sorted((k, v, None) for k, v in model.items())


def test_a_snapshot_id_made_again_after_a_rollback_is_a_new_scan(tmp_path):
    with closing(paimon_sql.connect(str(tmp_path), create=True)) as session:
        model = _dv_table(session)  # snapshots 1, 2 (the second may compact: its id is kept)
        latest = session.sql('SELECT max(snapshot_id) FROM d."t$snapshots"').fetchall()[0][0]
        session.sql("DELETE FROM d.t WHERE id < 10")
        gone = {k: v for k, v in model.items() if k >= 10}
        assert sorted(session.sql("SELECT * FROM d.t").fetchall()) == sorted(gone.items())
        deleted = session.sql('SELECT max(snapshot_id) FROM d."t$snapshots"').fetchall()[0][0]
        session.sql(f"CALL sys.rollback('d.t', {latest})")
        assert sorted(session.sql("SELECT * FROM d.t").fetchall()) == sorted(model.items())
        session.sql("DELETE FROM d.t WHERE id >= 30")  # the same snapshot id as the first DELETE
        again = session.sql('SELECT max(snapshot_id) FROM d."t$snapshots"').fetchall()[0][0]
        assert again == deleted
        kept = {k: v for k, v in model.items() if k < 30}
        assert sorted(session.sql("SELECT * FROM d.t").fetchall()) == sorted(kept.items())


def test_a_data_file_gone_since_the_scan_was_built_is_named(tmp_path):
    with closing(paimon_sql.connect(str(tmp_path), create=True)) as session:
        model = _dv_table(session)
        assert sorted(session.sql("SELECT * FROM d.t").fetchall()) == sorted(model.items())
        assert _kept(session) == 1
        name = session.sql("SELECT file_path FROM d.`t$files` LIMIT 1").fetchall()[0][0]
        (path,) = tmp_path.glob(f"d.db/t/bucket-*/{name}")
        os.remove(path)
        with pytest.raises(DataFileNotFoundError, match=name):
            session.sql("SELECT * FROM d.t").fetchall()


def test_a_statement_rendered_again_from_kept_scans_reads_the_same_rows(tmp_path):
    """A statement bound to the same kept scans is not rendered again (its SQL is remembered):
    a self-join (one kept scan twice), a join with a system table (not kept: rendered each time)
    and a relation run after later statements all read what Python computes."""
    with closing(paimon_sql.connect(str(tmp_path), create=True)) as session:
        model = _dv_table(session)
        session.sql("DELETE FROM d.t WHERE id % 5 = 2")
        model = {k: v for k, v in model.items() if k % 5 != 2}
        join = "SELECT a.id, b.v FROM d.t a JOIN d.t b ON a.id = b.id + 1"
        expected = sorted((k + 1, v) for k, v in model.items() if k + 1 in model)
        first = session.sql(join)
        for _ in range(3):
            assert sorted(session.sql(join).fetchall()) == expected
        assert sorted(first.fetchall()) == expected
        assert len(session._binder._rendered) == 1
        files = "SELECT count(*) FROM d.t, d.`t$files` f WHERE f.record_count > 0"
        count = session.sql("SELECT count(*) FROM d.`t$files` WHERE record_count > 0").fetchall()
        for _ in range(2):
            assert session.sql(files).fetchall() == [(len(model) * count[0][0],)]
        assert len(session._binder._rendered) == 1  # a system table: nothing remembered
        session.sql("INSERT INTO d.t VALUES (1000, 'z'), (1001, 'y')")  # a new snapshot
        model.update({1000: "z", 1001: "y"})
        expected = sorted((k + 1, v) for k, v in model.items() if k + 1 in model)
        assert (1001, "z") in expected
        assert sorted(session.sql(join).fetchall()) == expected
