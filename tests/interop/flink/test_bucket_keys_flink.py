# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""paimon-sql puts each row of a fixed-bucket table in the bucket Apache Paimon 1.3.1 (Flink) does.

The writer hashes a small statement's bucket keys in Python (at most ``SMALL_INPUT_ROWS`` rows) and
a larger one's in DuckDB SQL (`paimon_sql.write.writer.TableWriter._small_input` when it streams,
``_sorted`` when it stages). For keys of every kind (a STRING, a (STRING, INT) pair, every
primitive type with NULLs, the nanosecond timestamps that only SQL hashes; a partial-update table,
which stages) paimon-sql writes one small and one large statement into an 8-bucket table; Flink
then writes every row again (``INSERT INTO t SELECT …, 'flink' FROM t``),
hashing the keys with Java's own code. Each row's copy must sit in the bucket of paimon-sql's
original (rows matched by a column ``n`` outside the key). A primary-key table also reads back its
keys once each, with Flink's values, in Flink and in paimon-sql alike: a key in another bucket than
Java's would be read twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.write.bucket import SMALL_INPUT_ROWS
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

#: Rows of the small statement (Python buckets); the large one has SMALL_INPUT_ROWS + 300.
SMALL = 200

#: Every bucket-key type the Python path hashes, each column from row number i (DuckDB SQL), with
#: NULLs, negative and pre-1970 values, NaN and -0.0, strings of 0 to 40 bytes.
_EVERY_TYPE = (
    ("b", "BOOLEAN", "CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END"),
    ("ti", "TINYINT", "((i * 37) % 256 - 128)::TINYINT"),
    ("si", "SMALLINT", "CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 1009) % 65536 - 32768) END"),
    ("n4", "INT", "(i * 7919 - 1000000)::INT"),
    ("bi", "BIGINT", "i * 1000000000000007 - 4000000000000000000"),
    (
        "f",
        "FLOAT",
        "CASE i % 50 WHEN 0 THEN 'nan'::FLOAT WHEN 1 THEN -0.0::FLOAT WHEN 2 THEN NULL "
        "ELSE (i / 7.0 - 300)::FLOAT END",
    ),
    (
        "d",
        "DOUBLE",
        "CASE i % 40 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN -0.0::DOUBLE WHEN 2 THEN 'inf'::DOUBLE "
        "ELSE i / 3.0 - 1e6 END",
    ),
    ("dec", "DECIMAL(10, 2)", "((i * 1234567) % 100000000 - 50000000) / 100"),
    (
        "dec2",
        "DECIMAL(24, 6)",
        "CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 123456789123 - 300000000000000)::HUGEINT "
        "/ 1000000 END",
    ),
    ("s", "STRING", "CASE WHEN i % 11 = 0 THEN NULL ELSE repeat('ü', (i % 23)::INT) || i END"),
    ("ch", "CHAR(6)", "'c' || (i % 9999)"),
    ("vb", "VARBINARY(12)", "encode(repeat('z', (i % 13)::INT))"),
    ("dt", "DATE", "DATE '1970-01-01' + (i * 97 - 200000)::INT"),
    ("tm", "TIME(3)", "TIME '00:00:00' + to_milliseconds((i * 17291) % 86400000)"),
    ("ts3", "TIMESTAMP(3)", "make_timestamp((i * 1000000007 - 2500000000000) // 1000 * 1000)"),
    ("ts6", "TIMESTAMP(6)", "make_timestamp(i * 1000000007 - 3000000000000000)"),
    (
        "ltz3",
        "TIMESTAMP_LTZ(3)",
        "make_timestamp((i * 999999937 - 900000000000) // 1000 * 1000)::TIMESTAMPTZ",
    ),
    (
        "ltz6",
        "TIMESTAMP_LTZ(6)",
        "CASE WHEN i % 7 = 0 THEN NULL "
        "ELSE make_timestamp(i * 999999937 - 1000000000000000)::TIMESTAMPTZ END",
    ),
)
#: Hashed in SQL only (a Python datetime holds no nanoseconds); sub-microsecond digits present.
_NANOS = (
    ("ts9", "TIMESTAMP(9)", "make_timestamp_ns(i * 1234567891234567 - 3000000000000000001)"),
    ("ltz9", "TIMESTAMP_LTZ(9)", "make_timestamp_ns(i * 987654321987 - 1000000000000000001)"),
    ("s", "STRING", "'s' || i"),
)
_STRING_KEY = (("id", "STRING", "'key-' || i || repeat('é', (i % 19)::INT)"),)
#: name -> (key columns (name, type, SQL of row i), the primary-key table's options, None for an
#: append table with that bucket key). A partial-update table is staged, not streamed.
TABLES = {
    "pk_string": (_STRING_KEY, ""),
    "pk_composite": (
        (("a", "STRING", "repeat('x', (i % 11)::INT) || (i // 3)"), ("k", "INT", "(i % 3)::INT")),
        "",
    ),
    "pk_partial_update": (_STRING_KEY, ", 'merge-engine' = 'partial-update'"),
    "append_every_type": (_EVERY_TYPE, None),
    "append_nanos": (_NANOS, None),
}


def _ddl(name: str) -> str:
    key, options = TABLES[name]
    columns = ", ".join(f"{c} {t}" for c, t, _ in key)
    names = ",".join(c for c, _, _ in key)
    if options is not None:
        return (
            f"CREATE TABLE db.{name} ({columns}, n BIGINT, v STRING, "
            f"PRIMARY KEY ({names}) NOT ENFORCED) WITH ('bucket' = '8'{options})"
        )
    return (
        f"CREATE TABLE db.{name} ({columns}, n BIGINT, v STRING) "
        f"WITH ('bucket' = '8', 'bucket-key' = '{names}')"
    )


def _buckets(table: Path, skip: set[str]) -> dict[int, int]:
    """Row ``n`` -> the bucket folder of its data file, over the data files not in `skip`."""
    out: dict[int, int] = {}
    for path in sorted(table.glob("bucket-*/data-*.parquet")):
        if path.name in skip:
            continue
        bucket = int(path.parent.name.removeprefix("bucket-"))
        for n in pq.read_table(path, columns=["n"]).column("n").to_pylist():
            assert isinstance(n, int), f"row without n in {path}"
            assert n not in out, f"row {n} twice in {table.name}"
            out[n] = bucket
    return out


@pytest.fixture(scope="module")
def written(flink: FlinkOracle, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our two statements per table, then Flink's copy of every row; the warehouse."""
    warehouse = tmp_path_factory.mktemp("bucket-keys") / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    large = SMALL + SMALL_INPUT_ROWS + 300
    for name, (key, _) in TABLES.items():
        session.sql(_ddl(name))
        values = ", ".join(sql for _, _, sql in key)
        for lo, hi in ((0, SMALL), (SMALL, large)):
            session.sql(
                f"INSERT INTO db.{name} SELECT {values}, i, 'ours' FROM range({lo}, {hi}) r(i)"
            )
    session.close()
    return warehouse


@pytest.mark.parametrize("name", sorted(TABLES))
def test_rows_sit_in_javas_buckets(flink: FlinkOracle, written: Path, name: str):
    key, options = TABLES[name]
    table = written / "db.db" / name
    ours = _buckets(table, set())
    assert sorted(ours) == list(range(SMALL + SMALL_INPUT_ROWS + 300))
    assert len(set(ours.values())) == 8
    before = {p.name for p in table.glob("bucket-*/data-*")}
    names = ", ".join(f"`{c}`" for c, _, _ in key)
    flink.run(written, f"INSERT INTO `{name}` SELECT {names}, n, 'flink' FROM `{name}`")
    javas = _buckets(table, before)
    moved = {n: (ours[n], b) for n, b in javas.items() if ours.get(n) != b}
    assert len(javas) == len(ours)
    assert not moved, f"{name}: rows n -> (our bucket, Java's) {sorted(moved.items())[:10]}"
    if options is None:
        return
    # every key once, with Flink's value: in paimon-sql's read and in Flink's
    session = paimon_sql.connect(written)
    plain = ", ".join(c for c, _, _ in key)
    _, ours_read = arrow_rows(session.sql(f"SELECT {plain}, n, v FROM db.{name}").to_arrow_table())
    session.close()
    _, java_read = flink.query(written, f"SELECT {names}, n, v FROM `{name}`")
    assert sorted(r["n"] for r in ours_read) == sorted(ours)
    assert {r["v"] for r in ours_read} == {"flink"}
    assert_same_rows(ours_read, java_read, context=f"{name}: paimon-sql vs Flink")
