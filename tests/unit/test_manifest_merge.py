"""Manifests are merged from manifest.merge-min-count on.

The table still reads the same afterwards (ours and Spark's).
"""

from __future__ import annotations

import paimon_sql


def test_many_commits_merge_manifests(tmp_path):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id BIGINT, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'manifest.merge-min-count' = '5')"
    )
    for i in range(12):
        session.sql(f"INSERT INTO db.t VALUES ({i}, {i}), ({i % 3}, {100 + i})")  # noqa: S608 - fixed test SQL
    table = session.table("db.t")
    latest = table.latest_snapshot()
    base = table.manifest_list(latest.base_manifest_list)
    assert len(base) < 5  # merged instead of one manifest per commit
    rows = session.sql("SELECT * FROM db.t ORDER BY id").fetchall()
    assert rows == [(0, 109), (1, 110), (2, 111)] + [(i, i) for i in range(3, 12)]
    # every snapshot still reads: merging rewrote manifests, never data
    for snapshot_id in table.snapshot_ids():
        assert session.scan("db.t", snapshot=snapshot_id).fetchall()
