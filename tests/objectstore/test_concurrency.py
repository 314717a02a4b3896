"""Atomic commits on S3: 3 processes x 15 INSERTs at once; every reported success is kept.

Snapshots are created by a conditional PUT (If-None-Match: *); the server answers the loser 412 and
it re-plans on the new latest snapshot. With "exists, then write" (the old remote path, still
reachable as ``single_writer``) commits are silently lost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import paimon_sql
from tests.fixtures import REPO

PROCESSES = 3
INSERTS = 15


def _race(uri: str, table: str, options: dict[str, str] | None = None) -> list[dict]:
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.objectstore._writer",
                uri,
                table,
                str(p * 100),
                str(INSERTS),
                json.dumps(options or {}),
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for p in range(PROCESSES)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


@pytest.mark.slow
@pytest.mark.parametrize(
    "ddl",
    [
        "CREATE TABLE d.t (id INT, v STRING)",
        "CREATE TABLE d.t (id INT, v STRING) WITH ('primary-key' = 'id', 'bucket' = '2')",
    ],
    ids=["append", "primary-key"],
)
def test_concurrent_inserts_keep_every_success(s3_warehouse, ddl):
    s = paimon_sql.connect(s3_warehouse, create=True)
    s.sql("CREATE DATABASE d")
    s.sql(ddl)
    results = _race(s3_warehouse, "d.t")
    reported = sorted(i for r in results for i in r["ok"])
    errors = [e for r in results for e in r["errors"]]
    s.refresh()
    kept = [row[0] for row in s.sql("SELECT id FROM d.t ORDER BY id").fetchall()]
    table = s.table("d.t")
    ids = table.snapshot_ids()
    s.close()
    assert not errors, errors
    assert len(reported) == PROCESSES * INSERTS
    assert kept == reported, f"{len(reported)} INSERTs reported success, {len(kept)} rows kept"
    assert ids == list(range(1, PROCESSES * INSERTS + 1)), "snapshot ids are contiguous"
