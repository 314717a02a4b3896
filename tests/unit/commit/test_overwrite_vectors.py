"""An overwrite drops the deletion vectors of the files it replaces.

Java does; a vector of a file no snapshot lists is damage to every reader (paimon-format.md §8).
"""

from __future__ import annotations

import paimon_sql


def _vector_files(table) -> set[str]:
    snapshot = table.latest_snapshot()
    if snapshot.index_manifest is None:
        return set()
    return {
        r.data_file_name
        for e in table.index_manifest(snapshot.index_manifest)
        if e.index_file.index_type == "DELETION_VECTORS"
        for r in e.index_file.dv_ranges or ()
    }


def _live_files(session) -> set[str]:
    rows = session.sql('SELECT file_path FROM "db"."t$files"').fetchall()
    return {path.rsplit("/", 1)[-1] for (path,) in rows}


def test_insert_overwrite_drops_the_replaced_files_vectors(tmp_path):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    session.sql("INSERT INTO db.t VALUES (1, 'a2')")  # lookup compaction: a vector for the old row
    table = session.table("db.t")
    assert _vector_files(table), "the upsert left no deletion vector to test with"

    session.sql("INSERT OVERWRITE db.t SELECT 9, 'o'")
    assert _vector_files(session.table("db.t")) <= _live_files(session)
    assert session.sql("SELECT * FROM db.t").fetchall() == [(9, "o")]

    # the next write compacts on top of the overwrite, and a fresh session reads it back
    session.sql("INSERT INTO db.t VALUES (9, 'o2'), (10, 'p')")
    fresh = paimon_sql.connect(tmp_path / "wh")
    assert sorted(fresh.sql("SELECT * FROM db.t").fetchall()) == [(9, "o2"), (10, "p")]
