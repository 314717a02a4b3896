"""paimon-cpp's corpus of Java-written tables, read as Apache Paimon 1.4.2 reads them.

Every table of alibaba/paimon-cpp@43d9d027 ``test/test_data`` (Parquet, ORC and Avro data,
Avro/ORC manifests, 0.9-to-1.4 layouts, DVs, schema evolution, branches and fallback branches,
file indexes, row tracking, data evolution, BLOB), latest, at every snapshot and tag and on each
branch. The truth is Paimon 1.4.2's own read through its Java API, recorded once in
``paimon-1.4.2-reads.json`` (``tests/interop/paimon20/cpp_corpus.py``; the JVM test
``tests/interop/paimon20/test_cpp_corpus.py`` re-derives it), so no JVM is needed here.

A read is identical to Java's, or raises: where Java itself fails (external paths under
``/tmp/external``, a fallback branch whose row type differs) we raise too, and where we do not
read a feature yet we raise `UnsupportedFeatureError` naming it (`REFUSED`). `KNOWN_WRONG` would
list reads that still differ (strict xfails, with their cause); it is empty. The ORC reads here
also prove `paimon_sql.io.orc_timestamps`: Java-written TIMESTAMP columns around 1970 (writer zone
Asia/Shanghai) that pyarrow's ORC reader put one second late, and Java's cast rules on ALTER
COLUMN (``append_with_cast_timestamp``: TIMESTAMP/LTZ to INT, DATE, STRING; INT to TIMESTAMP/LTZ).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql import errors
from tests.fixtures import FIXTURES
from tests.interop.flink.harness import arrow_rows, assert_same_rows
from tests.interop.paimon20.cpp_corpus import corpus_reads, split

ROOT = FIXTURES / "paimon-cpp/test/test_data"
TRUTH: dict[str, Any] = json.loads((ROOT / "paimon-1.4.2-reads.json").read_text())["reads"]

#: Tables of the corpus not vendored (each over 2 MB), and the vendored table covering the same.
NOT_VENDORED = {
    "db_with_blob.db/table_with_blob": (
        "23 MB of .blob files; the vendored parquet/ and orc/blob_data_evolution_with_dense_stats "
        "cover BLOB reads (this table read like Java by hand, both reads, 2026-11-27)"
    ),
    "parquet/append_with_bloomfilter.db/append_with_bloomfilter": (
        "a 3 MB bloom-filter index file; parquet/append_with_bsi_bitmap_bloomfilter holds the "
        "same rows with the same bloom-filter index (plus BSI and bitmap)"
    ),
    "orc/append_with_bloomfilter.db/append_with_bloomfilter": (
        "the same, for ORC: orc/append_with_bsi_bitmap_bloomfilter covers it"
    ),
}

#: Tables whose every read we refuse by name (table path → error, pattern).
REFUSED: dict[str, tuple[type[Exception], str]] = {}
#: Single reads we refuse (read key → error, pattern). At snapshot 2 of this BLOB table no file of
#: a row-id group holds the NOT NULL BLOB column f5: Java 1.4.2 fails on the Parquet copy
#: ("Required column is missing in data file") and returns NULLs from the ORC copy; paimon-sql
#: refuses both, naming the file and the column.
REFUSED_READS: dict[str, tuple[type[Exception], str]] = {
    "orc/blob_append_table_alter_table_with_cast_with_data_evolution.db/"
    "blob_append_table_alter_table_with_cast_with_data_evolution@snapshot-2": (
        errors.CorruptFileError,
        "holds the NOT NULL column f5",
    ),
}

#: Reads that still differ from Java (read key → cause); none today.
KNOWN_WRONG: dict[str, str] = {}


def _vendored(read: dict[str, Any]) -> bool:
    return read["path"] not in NOT_VENDORED


def _cases() -> list[Any]:
    out = []
    for key, read in sorted(TRUTH.items()):
        if not _vendored(read):
            continue
        marks = []
        if key in KNOWN_WRONG:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[key]))
        out.append(pytest.param(key, marks=marks, id=key))
    return out


@pytest.fixture(scope="module")
def sessions():
    opened: dict[str, paimon_sql.Session] = {}

    def session(warehouse: str) -> paimon_sql.Session:
        if warehouse not in opened:
            opened[warehouse] = paimon_sql.connect(str(ROOT / warehouse))
        return opened[warehouse]

    yield session
    for s in opened.values():
        s.close()


def _query(read: dict[str, Any]) -> tuple[str, str]:
    warehouse, database, _ = split(read["path"])
    query = exp.select("*").from_(exp.table_(read["table"], db=database, quoted=True)).sql("duckdb")
    # Spark's time travel, which reads a snapshot in its own schema as Java's API does (Flink's
    # scan.* hints read it in the latest schema, as Flink does)
    if read["snapshot"] is not None:
        query += f" VERSION AS OF {int(read['snapshot'])}"
    if read["tag"] is not None:
        query += " VERSION AS OF " + exp.Literal.string(read["tag"]).sql()
    return warehouse, query


@pytest.mark.parametrize("key", _cases())
def test_reads_like_java(sessions, key):
    read = TRUTH[key]
    warehouse, query = _query(read)
    refused = REFUSED_READS.get(key) or REFUSED.get(read["path"])
    if refused is not None:
        with pytest.raises(refused[0], match=refused[1]):
            sessions(warehouse).sql(query).to_arrow_table()
        return
    if "java_error" in read:
        # Java fails on it (a file outside the warehouse, a fallback branch of another row
        # type): so do we, with our own error
        with pytest.raises(errors.PaimonSqlError):
            sessions(warehouse).sql(query).to_arrow_table()
        return
    columns, rows = arrow_rows(sessions(warehouse).sql(query).to_arrow_table())
    assert columns == read["columns"]
    assert_same_rows(rows, read["rows"], context=f"{key} vs Paimon 1.4.2")


def test_truth_covers_every_read_of_every_table():
    """The truth has every table of the corpus (vendored or listed in `NOT_VENDORED`), and each
    vendored table's every snapshot, tag and branch (a thin truth fails)."""
    vendored = {r["key"] for r in corpus_reads(ROOT)}
    truth = {k for k, r in TRUTH.items() if _vendored(r)}
    assert vendored == truth
    tables = {r["path"] for r in TRUTH.values()}
    assert len(tables) == 100
    assert set(NOT_VENDORED) <= tables
    for path in NOT_VENDORED:
        assert not (ROOT / path).exists()
    assert set(REFUSED) <= tables
    assert set(KNOWN_WRONG) | set(REFUSED_READS) <= set(TRUTH)
    branches = {(r["path"], r["table"]) for r in TRUTH.values() if "$branch_" in r["table"]}
    assert len(branches) == 4
