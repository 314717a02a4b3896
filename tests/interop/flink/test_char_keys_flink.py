"""CHAR(n) and BINARY(n) keys: paimon-sql writes them as Apache Paimon 1.3.1 (Flink) does.

Flink casts every value to its column type before Paimon sees it: ``'ab'`` in a CHAR(6) key is
``'ab    '`` in the data file, the key, the bucket hash, the partition value and directory; a
BINARY(3) ``X'01'`` is ``X'010000'``. A writer that stores ``'ab'`` makes a second key for the same
logical key once Flink upserts it (other key bytes, maybe another bucket). Here paimon-sql writes
the keys, Flink upserts the same logical keys, paimon-sql upserts once more, and after each write
both read one row per logical key, alike, with the latest value; Flink adds no partition directory.
ORC too: Java's ORC reader returns CHAR values right-trimmed, so our ORC files hold them trimmed
while keys, partitions and stats stay padded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

import paimon_sql
from tests.interop.flink.harness import arrow_rows, assert_same_rows, our_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_DDL = (
    "CREATE TABLE db.t (k CHAR(6) NOT NULL, b BINARY(3) NOT NULL, p CHAR(3) NOT NULL, "
    "c CHAR(4), v STRING, PRIMARY KEY (k, b, p) NOT ENFORCED) PARTITIONED BY (p) "
    "WITH ('bucket' = '4', 'file.format' = '{fmt}')"
)
# four logical keys; 'cd ' and 'gh  ' carry some of their padding already
_OURS = (
    "INSERT INTO db.t VALUES ('ab', from_hex('01'), 'x', 'c', 'ours'), "
    "('cd ', from_hex('0102'), 'x', NULL, 'ours'), ('ef', from_hex('010203'), 'yy', 'cc', 'ours'), "
    "('gh  ', from_hex(''), 'x', 'c   ', 'ours')"
)


# Flink types a multi-row VALUES list wider (VARCHAR, VARBINARY): the casts are spelled out
def _flink_row(k: str, b: str, p: str, c: str) -> str:
    return (
        f"(CAST('{k}' AS CHAR(6)), CAST(X'{b}' AS BINARY(3)), CAST('{p}' AS CHAR(3)), "
        f"CAST('{c}' AS CHAR(4)), 'flink')"
    )


_FLINK = "INSERT INTO t VALUES " + ", ".join(  # noqa: S608 - constant rows
    [
        _flink_row("ab", "01", "x", "c"),
        _flink_row("cd", "0102", "x", "c"),
        _flink_row("ef", "010203", "yy", "cc"),
    ]
)
_OURS_AGAIN = "INSERT INTO db.t VALUES ('ab', from_hex('01'), 'x', 'c', 'ours again')"


def _by_key(rows: list[dict[str, Any]]) -> dict[str, str]:
    """v by logical key (CHAR padding aside: ORC reads trimmed, Parquet padded)."""
    out: dict[str, str] = {}
    for r in rows:
        key = r["k"].rstrip(" ")
        assert key not in out, f"key {key!r} read twice: {rows}"
        out[key] = r["v"]
    return out


def _partitions(warehouse: Path) -> set[str]:
    return {p.name for p in (warehouse / "db.db" / "t").glob("p=*")}


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_flink_upserts_the_char_keys_we_wrote(flink: FlinkOracle, tmp_path: Path, fmt: str):
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    try:
        session.sql("CREATE DATABASE db")
        session.sql(_DDL.format(fmt=fmt))
        session.sql(_OURS)
    finally:
        session.close()
    ours = our_rows(warehouse)
    assert_same_rows(flink.read(warehouse, "t")[1], ours, context=f"{fmt}: our write")
    # Flink's own cast of the same literals: what Java stores and returns
    _, cast = flink.query(
        warehouse,
        "SELECT CAST('ab' AS CHAR(6)) AS k, CAST(X'01' AS BINARY(3)) AS b, "
        "CAST('x' AS CHAR(3)) AS p",
    )
    mine = next(r for r in ours if r["k"].rstrip(" ") == "ab")
    assert mine["p"] == cast[0]["p"]  # partition values come from the path: padded in any format
    assert mine["b"] == cast[0]["b"]
    assert mine["k"] == (cast[0]["k"] if fmt == "parquet" else "ab")  # Java's ORC reader trims
    folders = _partitions(warehouse)
    assert folders == {"p=x  ", "p=yy "}

    flink.run(warehouse, _FLINK)
    ours = our_rows(warehouse)
    assert_same_rows(ours, flink.read(warehouse, "t")[1], context=f"{fmt}: after Flink's upsert")
    assert _by_key(ours) == {"ab": "flink", "cd": "flink", "ef": "flink", "gh": "ours"}
    assert _partitions(warehouse) == folders

    session = paimon_sql.connect(warehouse)
    try:
        session.sql(_OURS_AGAIN)
    finally:
        session.close()
    ours = our_rows(warehouse)
    assert_same_rows(ours, flink.read(warehouse, "t")[1], context=f"{fmt}: after our upsert")
    assert _by_key(ours) == {"ab": "ours again", "cd": "flink", "ef": "flink", "gh": "ours"}


_NESTED_DDL = (
    "CREATE TABLE {db}n (id INT, a ARRAY<CHAR(3)>, r ROW<c CHAR(4), v VARCHAR(5)>, "
    "m MAP<CHAR(2), CHAR(3)>) WITH ('file.format' = '{fmt}')"
)


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_nested_char_values_are_stored_as_flink_stores_them(
    flink: FlinkOracle, tmp_path: Path, fmt: str
):
    """Flink pads a CHAR(n) inside an ARRAY, ROW or MAP too (and its ORC reader trims them all).

    Flink writes one row, paimon-sql the same values unpadded: both read both rows alike, and the
    two rows are equal but for their id.
    """
    warehouse = tmp_path / "warehouse"
    flink.run(
        warehouse,
        _NESTED_DDL.format(db="", fmt=fmt),
        "INSERT INTO n SELECT 1, ARRAY[CAST('a' AS CHAR(3))], ROW(CAST('b' AS CHAR(4)), 'x'), "
        "MAP[CAST('k' AS CHAR(2)), CAST('v' AS CHAR(3))]",
    )
    session = paimon_sql.connect(warehouse)
    try:
        session.sql("INSERT INTO db.n VALUES (2, ['a'], {'c': 'b', 'v': 'x'}, MAP {'k': 'v'})")
        ours = arrow_rows(session.sql("SELECT * FROM db.n").to_arrow_table())[1]
    finally:
        session.close()
    theirs = flink.read(warehouse, "n")[1]
    assert_same_rows(ours, theirs, context=f"{fmt}: nested CHAR")
    first, second = sorted(theirs, key=lambda r: r["id"])
    assert {**first, "id": 2} == second
