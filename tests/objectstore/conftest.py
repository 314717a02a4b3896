"""Object store tests: one real S3 server (moto) per test session, on 127.0.0.1; a fresh bucket
per test, so tests never see each other's objects."""

from __future__ import annotations

import itertools
import os

import pytest

from tests.objectstore._server import S3Server

_buckets = itertools.count()


@pytest.fixture(scope="session")
def s3_server():
    pytest.importorskip("moto", reason="the object store tests need moto[server] (the dev extra)")
    pytest.importorskip("obstore", reason="the object store tests need obstore (the s3 extra)")
    server = S3Server()
    yield server
    server.stop()


@pytest.fixture
def s3_env(s3_server, monkeypatch):
    """The AWS_* variables of the test server, set in this process (and so in its subprocesses)."""
    for key in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    for key, value in s3_server.env().items():
        monkeypatch.setenv(key, value)
    return s3_server


@pytest.fixture
def bucket(s3_env) -> str:
    """A new, empty bucket of the test server."""
    name = f"bucket-{os.getpid()}-{next(_buckets)}"
    s3_env.create_bucket(name)
    return name


@pytest.fixture
def s3_warehouse(bucket) -> str:
    """The URI of a warehouse (not yet created) in a fresh bucket."""
    return f"s3://{bucket}/wh"
