"""Partition folder names: paimon-sql names them as Apache Paimon 1.3.1 (Flink) does.

A partition's folder is derived from its value, never stored, so a writer that spells a value
differently from Java makes files the other side cannot find: Java's name of a TIMESTAMP is
``LocalDateTime.toString()`` (``2024-01-02T03:04``, the fraction in groups of three digits), of a
TIME its millisecond of the day, of a FLOAT / DOUBLE ``Float`` / ``Double.toString()``
(``1.0E10``), of a DECIMAL its plain digits. For each type Flink writes a table and paimon-sql a
twin with the same rows; the folders must be the same, each side reads the other's table as its
writer does, and a row paimon-sql adds to Flink's table lands in Flink's folder (no new one).
``partition.legacy-name = 'false'`` (Java's cast to STRING instead) is checked the same way.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.interop.flink.harness import assert_same_rows, our_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

# (type, literals Flink and DuckDB both read as the same value of that type)
_CASES = [
    (
        "TIMESTAMP(3)",
        [
            "TIMESTAMP '2024-01-02 03:04:00'",
            "TIMESTAMP '2024-01-02 03:04:05.678'",
            "TIMESTAMP '2024-01-02 03:04:05.5'",
            "TIMESTAMP '1999-12-31 23:59:59.001'",
        ],
    ),
    (
        "TIMESTAMP(6)",
        ["TIMESTAMP '2024-01-02 03:04:05.100000'", "TIMESTAMP '2024-01-02 03:04:05.123456'"],
    ),
    ("TIMESTAMP_LTZ(3)", ["TIMESTAMP '2024-01-02 03:04:05.5'", "TIMESTAMP '2024-01-02 00:00:00'"]),
    ("TIME", ["TIME '03:04:00'", "TIME '00:00:00'", "TIME '23:59:59'"]),
    ("FLOAT", ["1.0E10", "0.1", "1234567.0", "12345678.0", "-0.001", "0.0001", "3.4028235E38"]),
    ("DOUBLE", ["0.00001", "1.5", "1.0E7", "9999999.0", "-123.456", "1.0E-300", "0.1"]),
    ("DECIMAL(20,10)", ["0.0000000001", "12.3", "-5"]),
    ("DECIMAL(10,2)", ["12.30", "0", "-0.5"]),
    # a value of only whitespace is named by the default partition name, by Java's rule of
    # whitespace: a no-break space (CHR(160)) is not blank there, as it is in Python
    ("STRING", ["CHR(160)", "' '", "'a b'"]),
]


def _flink_literal(t: str, literal: str) -> str:
    return f"CAST({literal} AS {t})"


def _duck_literal(t: str, literal: str) -> str:
    duck = {"TIMESTAMP_LTZ(3)": "TIMESTAMPTZ", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE"}.get(t, t)
    return f"CAST({literal} AS {duck})"


def _folders(warehouse: Path, table: str) -> list[str]:
    return sorted(d for d in os.listdir(warehouse / "db.db" / table) if d.startswith("p="))


@pytest.mark.parametrize("legacy", ["true", "false"])
def test_partition_folders_are_javas(flink: FlinkOracle, tmp_path: Path, legacy: str) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "flink"
    ours.mkdir()
    theirs.mkdir()
    cases = [c for c in _CASES if not (legacy == "false" and c[0].startswith("TIMESTAMP_LTZ"))]
    ddl = []
    for i, (t, _) in enumerate(cases):
        ddl.append(
            f"CREATE TABLE t{i} (p {t}, id INT) PARTITIONED BY (p) "
            f"WITH ('partition.legacy-name' = '{legacy}')"
        )
    flink.run(ours, *ddl)
    flink.run(
        theirs,
        *ddl,
        *(
            f"INSERT INTO t{i} VALUES "  # noqa: S608 - constant rows
            + ", ".join(f"({_flink_literal(t, v)}, {n})" for n, v in enumerate(values))
            for i, (t, values) in enumerate(cases)
        ),
    )
    session = paimon_sql.connect(ours)
    try:
        session.sql("SET TimeZone = 'UTC'")
        for i, (t, values) in enumerate(cases):
            rows = ", ".join(f"({_duck_literal(t, v)}, {n})" for n, v in enumerate(values))
            session.sql(f"INSERT INTO db.t{i} SELECT * FROM (VALUES {rows})")  # noqa: S608
    finally:
        session.close()
    for i, (t, values) in enumerate(cases):
        context = f"{t} (legacy-name {legacy})"
        assert _folders(ours, f"t{i}") == _folders(theirs, f"t{i}"), context
        assert len(_folders(ours, f"t{i}")) == len(values), context
        if t == "STRING":  # ' ' is blank; CHR(160) is a value in Java
            assert "p=__DEFAULT_PARTITION__" in _folders(ours, f"t{i}"), context
        assert_same_rows(our_rows(theirs, f"t{i}"), flink.read(theirs, f"t{i}")[1], context=context)
        assert_same_rows(our_rows(ours, f"t{i}"), flink.read(ours, f"t{i}")[1], context=context)
        assert_same_rows(our_rows(ours, f"t{i}"), our_rows(theirs, f"t{i}"), context=context)
    # a row paimon-sql adds to Flink's table goes to Flink's folder of that value
    session = paimon_sql.connect(theirs)
    try:
        session.sql("SET TimeZone = 'UTC'")
        for i, (t, values) in enumerate(cases):
            before = _folders(theirs, f"t{i}")
            session.sql(f"INSERT INTO db.t{i} VALUES ({_duck_literal(t, values[0])}, 99)")  # noqa: S608
            assert _folders(theirs, f"t{i}") == before, t
    finally:
        session.close()
    for i, (t, _) in enumerate(cases):
        assert_same_rows(our_rows(theirs, f"t{i}"), flink.read(theirs, f"t{i}")[1], context=t)
