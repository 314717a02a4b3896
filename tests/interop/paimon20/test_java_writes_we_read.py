"""Paimon's Java API writes (`corpus.TABLES`), paimon-sql reads: every snapshot and tag of every
table kind read identically to Java's own read of the same version (Java's time-travel read
uses the snapshot's schema, as ``scan(snapshot=)`` does)."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql.format.deletion_vector import MAGIC_32, MAGIC_64, decode_vector, encode_vector
from tests.interop.flink.harness import arrow_rows, assert_same_rows
from tests.interop.paimon20.corpus import TABLES

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


@pytest.fixture(scope="module")
def ours(java_corpus: Path):
    session = paimon_sql.connect(java_corpus)
    yield session
    session.close()


def _ours(session: paimon_sql.Session, name: str, snapshot: int | None, tag: str | None):
    if snapshot is None and tag is None:
        query = exp.select("*").from_(exp.table_(name, db="db", quoted=True))
        return arrow_rows(session.sql(query.sql("duckdb")).to_arrow_table())
    return arrow_rows(session.scan(f"db.{name}", snapshot=snapshot, tag=tag).to_arrow_table())


@pytest.mark.parametrize("table", TABLES, ids=[t.name for t in TABLES])
def test_reads_like_java(java_api: JavaApiOracle, java_corpus: Path, ours, table):
    snapshots = java_api.snapshots(java_corpus, table.name)
    writes = sum(op == "write" and args["rows"] != [] for op, args in table.steps)
    assert len(snapshots) >= writes, f"Java lists {len(snapshots)} snapshots for {writes} writes"
    versions: list[tuple[int | None, str | None]] = [(s["id"], None) for s in snapshots]
    versions += [(None, args["tag"]) for op, args in table.steps if op == "tag"]
    versions.append((None, None))
    failures = []
    for snapshot, tag in versions:
        label = f"{table.name} @ {tag or snapshot or 'latest'}"
        java_columns, java_rows = java_api.read(java_corpus, table.name, snapshot=snapshot, tag=tag)
        try:
            columns, rows = _ours(ours, table.name, snapshot, tag)
        except Exception as err:  # noqa: BLE001 - report every version, not just the first
            failures.append(f"{label}: paimon-sql raised {type(err).__name__}: {err}")
            continue
        if columns != java_columns:
            failures.append(f"{label}: columns {columns} != Java's {java_columns}")
            continue
        try:
            assert_same_rows(rows, java_rows, context=f"{label} (paimon-sql vs Java)")
        except AssertionError as err:
            failures.append(str(err))
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


def test_corpus_has_what_it_claims(java_api: JavaApiOracle, java_corpus: Path):
    """The features are really there: compactions, 64-bit vectors, several schemas, buckets."""
    kinds = {t.name: [s["kind"] for s in java_api.snapshots(java_corpus, t.name)] for t in TABLES}
    assert "COMPACT" in kinds["append_orc_fixed"]
    assert "COMPACT" in kinds["dv"]
    assert "OVERWRITE" in kinds["pk_partitioned"]
    schemas = {s["schema"] for s in java_api.snapshots(java_corpus, "evolution")}
    assert len(schemas) >= 3
    table = java_corpus / "db.db" / "dynamic_bucket"
    assert len({p.relative_to(table) for p in table.glob("dt=*/bucket-*")}) >= 4


@pytest.mark.parametrize(("name", "magic"), [("dv", MAGIC_32), ("dv_bitmap64", MAGIC_64)])
def test_our_vector_encoding_is_javas(java_corpus: Path, name: str, magic: int):
    """Every deletion vector in Java's index files (32-bit, and 64-bit under
    ``deletion-vectors.bitmap64``) decodes, and encoding it again gives Java's bytes."""
    files = sorted((java_corpus / "db.db" / name / "index").glob("index-*"))
    assert files, f"Java wrote no deletion-vector index file for {name}"
    seen = 0
    for path in files:
        data = path.read_bytes()
        offset = 1
        while offset < len(data):
            (size,) = struct.unpack_from(">i", data, offset)
            entry = data[offset : offset + size + 8]
            order = "<" if magic == MAGIC_64 else ">"
            assert struct.unpack_from(order + "i", entry, 4)[0] == magic, path.name
            vector = decode_vector(data, offset, path.name)
            assert encode_vector(vector) == entry, f"{path.name} @ {offset}"
            seen += 1
            offset += size + 8
    assert seen
