"""URIs and object-store keys at the trust boundary (no server needed)."""

from __future__ import annotations

import pytest

from paimon_sql.catalog import names
from paimon_sql.errors import PathEscapeError, UnsupportedFeatureError
from paimon_sql.io.objectstore import is_object_store_uri, split_uri


@pytest.mark.parametrize(
    "path",
    [
        "s3://b/wh/../other/x",  # leaves the warehouse prefix
        "s3://b/wh/db.db/../../../c/wh/x",  # leaves the bucket
        "s3://b/wh2/x",  # a sibling prefix, not a folder below
        "gs://b/wh/x",  # another store
    ],
)
def test_keys_outside_the_warehouse_are_refused(path):
    with pytest.raises(PathEscapeError):
        names.inside(path, ["s3://b/wh"], local=False, what="data file")


def test_keys_inside_are_normalised():
    got = names.inside("S3://b/wh/db.db/./t/bucket-0/f", ["s3://b/wh"], local=False, what="f")
    assert got == "s3://b/wh/db.db/t/bucket-0/f"


@pytest.mark.parametrize("uri", ["ftp://h/x", "hdfs://nn/wh", "s3://", "s3:///wh"])
def test_bad_uris(uri):
    assert is_object_store_uri(uri)
    with pytest.raises(UnsupportedFeatureError, match="URI"):
        split_uri(uri)


def test_local_spellings_are_not_uris():
    assert not any(map(is_object_store_uri, ["/tmp/wh", "wh", "file:///tmp/wh", r"C:\wh", "s3:/x"]))


def test_a_mangled_uri_is_refused_not_made_a_local_folder(tmp_path, monkeypatch):
    import os

    import paimon_sql

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnsupportedFeatureError, match="s3://bucket/path"):
        paimon_sql.connect("s3:/bucket/wh", create=True)
    assert not os.listdir(tmp_path)


def test_a_filesystem_without_create_if_absent_refuses_commits_unless_single_writer(tmp_path):
    import pyarrow.fs as pafs

    import paimon_sql
    from paimon_sql.errors import StorageError

    (tmp_path / "wh").mkdir()
    remote_like = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    s = paimon_sql.connect("wh", filesystem=remote_like)
    s.sql("CREATE DATABASE d")
    with pytest.raises(StorageError, match="single_writer"):
        s.sql("CREATE TABLE d.t (x INT)")
    s.close()
    s = paimon_sql.connect("wh", filesystem=remote_like, storage_options={"single_writer": "true"})
    s.sql("CREATE TABLE d.t (x INT)")
    s.sql("INSERT INTO d.t VALUES (1)")
    assert s.sql("SELECT x FROM d.t").fetchall() == [(1,)]
    s.close()


def test_without_obstore_the_error_names_the_extra(monkeypatch):
    import sys

    import paimon_sql
    from paimon_sql.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "obstore", None)  # `import obstore` raises ImportError
    with pytest.raises(MissingDependencyError, match=r"paimon-sql\[s3\]"):
        paimon_sql.connect("s3://bucket/wh")


@pytest.mark.parametrize("uri", ["gs://b/wh", "gcs://b/wh", "az://c/wh", "abfss://c/wh"])
def test_untested_stores_are_refused_by_name(uri, tmp_path, monkeypatch):
    """gs:// and az:// have no test server here: refused naming the URI and what works."""
    import os

    import duckdb

    import paimon_sql

    monkeypatch.chdir(tmp_path)
    for open_it in (
        lambda: paimon_sql.connect(uri, create=True),
        lambda: paimon_sql.install(duckdb.connect(), uri),
    ):
        with pytest.raises(UnsupportedFeatureError, match="not supported") as caught:
            open_it()
        assert uri in str(caught.value)
        assert "s3://" in str(caught.value)
    assert not os.listdir(tmp_path)
