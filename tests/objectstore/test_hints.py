"""s3://: the LATEST / EARLIEST hints on a real S3 server (issue 18).

A commit finds its base from the hint (GET + HEADs) and lists no snapshot folder; a hint the objects
contradict (lagging, garbage, missing, ahead, a stray snapshot below a gap) costs a listing, never a
wrong id. The hints are damaged and the objects listed with boto3, not with paimon-sql.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

import duckdb
import pytest

import paimon_sql
from paimon_sql.catalog import Table
from paimon_sql.commit.publish import Committer
from paimon_sql.io.objectstore import ObjectStoreFileIO
from paimon_sql.write.writer import TableWriter

if TYPE_CHECKING:
    from paimon_sql.io.fileio import FileIO

INSERTS = 6
RETAIN = 4  # snapshots 3..6 stay


class CountingStore(ObjectStoreFileIO):
    """The object store FileIO, remembering every listing it sends."""

    def __init__(self, uri: str) -> None:
        super().__init__(uri)
        self.listed: list[str] = []

    def _listing(self, path: str) -> dict[str, Any]:
        self.listed.append(path)
        return super()._listing(path)


def _ends(client: Any, bucket: str) -> tuple[int, int]:
    found = client.list_objects_v2(Bucket=bucket, Prefix="wh/db.db/t/snapshot/")
    ids = sorted(
        int(m[1])
        for o in found.get("Contents", [])
        if (m := re.fullmatch(r".*/snapshot-(\d+)", o["Key"]))
    )
    first = ids[-1]
    while first - 1 in ids:
        first -= 1
    return first, ids[-1]


def _rows(count: int) -> list[tuple[int, int]]:
    return [(i, i * 10) for i in range(1, count + 1)]


#: each case builds its table on the server (~6 s): the full matrix runs on local disk
#: (tests/unit/commit/test_snapshot_hints.py)
DAMAGE: dict[str, dict[str, bytes | str | None]] = {
    "good": {},
    "latest-lags": {"LATEST": b"4"},
    "latest-garbage": {"LATEST": b"x1"},
    "latest-ahead-earliest-missing": {"LATEST": b"9", "EARLIEST": None},
    "earliest-expired": {"EARLIEST": b"1"},
    "stray": {"snapshot-1": "stray", "LATEST": b"1", "EARLIEST": b"1"},
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_hints_on_s3(s3_env, bucket: str, s3_warehouse: str, case: str) -> None:
    session = paimon_sql.connect(s3_warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (id INT, v INT)")
    for row in _rows(INSERTS):
        session.sql("INSERT INTO db.t VALUES (?, ?)", params=list(row))
    session.sql(f"CALL sys.expire_snapshots(table => 'db.t', retain_max => {RETAIN})")
    session.close()
    client = s3_env.client()
    assert _ends(client, bucket) == (INSERTS - RETAIN + 1, INSERTS)
    prefix = "wh/db.db/t/snapshot/"
    for name, value in DAMAGE[case].items():
        if value is None:
            client.delete_object(Bucket=bucket, Key=prefix + name)
        elif value == "stray":
            body = client.get_object(Bucket=bucket, Key=f"{prefix}snapshot-{INSERTS}")["Body"]
            text = body.read().replace(f'"id" : {INSERTS}'.encode(), b'"id" : 1')
            client.put_object(Bucket=bucket, Key=prefix + name, Body=text)
        else:
            client.put_object(Bucket=bucket, Key=prefix + name, Body=value)

    fileio = CountingStore(s3_warehouse)
    table = Table(cast("FileIO", fileio), f"{s3_warehouse}/db.db/t", "db.t")
    expected = _ends(client, bucket)
    assert (table.earliest_snapshot_id(), table.latest_snapshot_id()) == expected
    writer = TableWriter(duckdb.connect(), table)
    new = INSERTS + 1
    messages, _ = writer.write_stream(f"SELECT {new} AS id, {new * 10} AS v")
    snapshot = Committer(table).commit(messages)
    assert snapshot is not None
    assert snapshot.id == new
    assert _ends(client, bucket) == (expected[0], new)
    listings = [p for p in fileio.listed if p.endswith("/snapshot")]
    if case == "good":
        assert listings == []
    got = sorted(paimon_sql.connect(s3_warehouse).sql("SELECT id, v FROM db.t").fetchall())
    assert got == _rows(new)
