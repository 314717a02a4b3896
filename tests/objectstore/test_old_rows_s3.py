"""Lookup compaction's old-rows read on an object store: only the row groups holding the keys.

`KeyLookup.rows` fetches the column chunks of the row groups it needs with range requests, a few
groups at a time (here 2, so several batches), through the footer the key lookup cached. The
table (a ``changelog-producer`` = lookup table, deletion vectors on) written on S3 (moto) reads,
with its changelog, the same as the same statements on a local warehouse whose kept files are
read whole (the semi-join path).
"""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.engine.reader import BucketRead
from paimon_sql.io import key_lookup

pytestmark = pytest.mark.slow

_DDL = (
    "CREATE TABLE db.t (a INT NOT NULL, s STRING, n BIGINT, PRIMARY KEY (a) NOT ENFORCED) WITH "
    "('bucket' = '1', 'changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true')"
)
_STATEMENTS = (
    "INSERT INTO db.t SELECT i, repeat('x', 1000) || i, i FROM range(6000) r(i)",
    "INSERT INTO db.t VALUES (10, 'u1', -1), (2500, 'u1', -1), (5990, 'u1', -1), (7001, 'n', 1)",
    "DELETE FROM db.t WHERE a = 2500",
    "INSERT INTO db.t VALUES (10, 'u2', -2), (1200, 'u2', -2), (4100, 'u2', -2)",
)
_READS = (
    "SELECT * FROM db.t ORDER BY a",
    "SELECT * FROM db.t$audit_log /*+ OPTIONS('incremental-between' = '2,8', "
    "'incremental-between-scan-mode' = 'changelog') */ ORDER BY a, rowkind, s, n",
)


def _run(session):
    session.sql("CREATE DATABASE db")
    session.sql(_DDL)
    for statement in _STATEMENTS:
        session.sql(statement)
    return [session.sql(q).fetchall() for q in _READS]


def test_old_rows_from_s3_equal_whole_files(s3_warehouse, tmp_path, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(BucketRead, "_file_rows", lambda self, plan, request, rows: {})
        whole = _run(paimon_sql.connect(tmp_path / "wh", create=True))
    monkeypatch.setattr(key_lookup, "GROUPS_PER_FETCH", 2)
    session = paimon_sql.connect(s3_warehouse, create=True)
    assert _run(session) == whole
    assert len(whole[1]) > 5  # the changelog of the later writes, compared in full
    stats = session.engine.key_lookup.stats()
    assert stats["value_row_groups_read"] >= 3  # several fetch batches of 2 groups
    assert stats["value_rows_read"] < 20
