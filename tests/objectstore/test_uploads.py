"""Data files stream to the store as multipart uploads; a failed upload leaves nothing behind."""

from __future__ import annotations

import re

import pytest

import paimon_sql
from paimon_sql.errors import StorageAccessError
from paimon_sql.io.objectstore import ObjectStoreFileIO

# ~6.5 MB of Parquet: hex digests (4 bits of entropy per byte) barely compress
WIDE = "INSERT INTO d.t SELECT i, sha256('a' || i) || sha256('b' || i) FROM range(100000) r(i)"


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(ObjectStoreFileIO, "PART_BYTES", 5 * 1024 * 1024)  # S3's smallest part


def _table(warehouse):
    s = paimon_sql.connect(warehouse, create=True)
    s.sql("CREATE DATABASE d")
    # The writer cuts a primary-key stream every write-buffer-size / 24 Arrow bytes (~10.7 MB at the
    # default 256 mb); a larger buffer keeps the ~14 MB of Arrow in one file, so it needs two parts.
    s.sql(
        "CREATE TABLE d.t (id BIGINT, wide STRING) "
        "WITH ('primary-key' = 'id', 'bucket' = '1', 'write-buffer-size' = '1 gb')"
    )
    return s


@pytest.mark.slow
def test_a_data_file_goes_up_in_parts(s3_env, s3_warehouse, small_parts):
    s = _table(s3_warehouse)
    start = len(s3_env.app.log)
    s.sql(WIDE)
    log = s3_env.app.log[start:]
    parts = [line for line in log if line.startswith("PUT") and ".parquet?partNumber" in line]
    assert any(line.startswith("POST") and ".parquet?uploads" in line for line in log), log
    assert len(parts) >= 2, log
    assert s.sql("SELECT count(*), count(DISTINCT wide) FROM d.t").fetchall() == [(100000, 100000)]
    s.close()


@pytest.mark.slow
def test_a_failed_upload_leaves_no_object_and_no_parts(s3_env, s3_warehouse, small_parts, bucket):
    s = _table(s3_warehouse)
    io = s.catalog.fileio
    before = sorted(io.walk(s3_warehouse))
    s3_env.app.deny = re.compile(r"^PUT .*\.parquet$")  # every part of a data file is refused
    try:
        with pytest.raises(StorageAccessError, match=r"\.parquet"):
            s.sql(WIDE)
    finally:
        s3_env.app.deny = None
    assert any(".parquet?uploads" in line for line in s3_env.app.log), "a multipart upload began"
    assert sorted(io.walk(s3_warehouse)) == before
    assert s3_env.client().list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    assert s.sql("SELECT count(*) FROM d.t").fetchall() == [(0,)]
    s.close()
