"""`evolve`: a column's old values cast to its new type as Java's schema evolution casts them.

Every expected value below is what Apache Paimon 1.3.1 read through Flink after
``CREATE TABLE t (id INT, a <old>)``, ``INSERT`` of the value and ``ALTER TABLE t MODIFY a <new>``
(a run of the Flink oracle, tests/interop/flink/harness.py, on Parquet tables); the Flink-run
comparison over all three file formats is tests/interop/flink/test_narrowing_casts_flink.py.
"""

from __future__ import annotations

import datetime
import decimal
import math

import duckdb
import pytest
from sqlglot import exp

from paimon_sql.read.build import evolve
from paimon_sql.types import parse_type

_UTC = datetime.UTC


def _ts(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text)


# (old type, new type, the old value as a DuckDB constant, Java's read of it as the new type)
JAVA_READS = [
    # NumericPrimitiveCastRule: Java's (int)/(byte) narrowing wraps (two's complement)
    ("BIGINT", "INT", "3000000000::BIGINT", -1294967296),
    ("BIGINT", "INT", "(-3000000000)::BIGINT", 1294967296),
    ("BIGINT", "INT", "2147483648::BIGINT", -2147483648),
    ("INT", "TINYINT", "383", 127),
    ("INT", "TINYINT", "-129", 127),
    # a double to an integer: truncated, saturated at int/long, NaN 0; byte/short wrap the int
    ("DOUBLE", "INT", "1e10::DOUBLE", 2147483647),
    ("DOUBLE", "INT", "-1e10::DOUBLE", -2147483648),
    ("DOUBLE", "INT", "'nan'::DOUBLE", 0),
    ("DOUBLE", "INT", "-2.7::DOUBLE", -2),
    ("DOUBLE", "TINYINT", "300.7::DOUBLE", 44),
    ("DOUBLE", "TINYINT", "1e10::DOUBLE", -1),
    ("DOUBLE", "TINYINT", "-1e10::DOUBLE", 0),
    ("DOUBLE", "BIGINT", "1e19::DOUBLE", 9223372036854775807),
    ("DOUBLE", "BIGINT", "-1e19::DOUBLE", -9223372036854775808),
    ("DOUBLE", "BIGINT", "'inf'::DOUBLE", 9223372036854775807),
    # (float) of a double: infinite from halfway between Float.MAX_VALUE and 2^128
    ("DOUBLE", "FLOAT", "1e300::DOUBLE", math.inf),
    ("DOUBLE", "FLOAT", "-1e300::DOUBLE", -math.inf),
    ("DOUBLE", "FLOAT", "3.4028235677973366e38::DOUBLE", math.inf),
    ("DOUBLE", "FLOAT", "3.40282356e38::DOUBLE", 3.4028234663852886e38),
    # DecimalToNumericPrimitiveCastRule: truncated to a long, then (byte)
    ("DECIMAL(10, 2)", "TINYINT", "300.99::DECIMAL(10, 2)", 44),
    # TimestampToTimestampCastRule (DateTimeUtils.truncate): floored to 3..8 digits, and to 0..2
    # the epoch milliseconds are divided toward zero (a time before 1970 moves up)
    ("TIMESTAMP(6)", "TIMESTAMP(0)", "TIMESTAMP '1969-12-31 23:59:59.5'", _ts("1970-01-01")),
    ("TIMESTAMP(6)", "TIMESTAMP(0)", "TIMESTAMP '2024-01-01 00:00:00.999999'", _ts("2024-01-01")),
    (
        "TIMESTAMP(6)",
        "TIMESTAMP(0)",
        "TIMESTAMP '1969-12-31 23:59:58.000001'",
        _ts("1969-12-31 23:59:58"),
    ),
    (
        "TIMESTAMP(6)",
        "TIMESTAMP(1)",
        "TIMESTAMP '1969-12-31 23:59:59.25'",
        _ts("1969-12-31 23:59:59.3"),
    ),
    (
        "TIMESTAMP(6)",
        "TIMESTAMP(3)",
        "TIMESTAMP '1969-12-31 23:59:59.9995'",
        _ts("1969-12-31 23:59:59.999"),
    ),
    (
        "TIMESTAMP(6)",
        "TIMESTAMP(3)",
        "TIMESTAMP '2024-01-01 00:00:00.123456'",
        _ts("2024-01-01 00:00:00.123"),
    ),
    (
        "TIMESTAMP(9)",
        "TIMESTAMP(6)",
        "TIMESTAMP_NS '2024-01-01 00:00:00.123456789'",
        _ts("2024-01-01 00:00:00.123456"),
    ),
    (
        "TIMESTAMP(9)",
        "TIMESTAMP(6)",
        "TIMESTAMP_NS '1969-12-31 23:59:59.999999999'",
        _ts("1969-12-31 23:59:59.999999"),
    ),
    (
        "TIMESTAMP(9)",
        "TIMESTAMP(4)",
        "TIMESTAMP_NS '2024-01-01 00:00:00.123456789'",
        _ts("2024-01-01 00:00:00.1234"),
    ),
    (
        "TIMESTAMP(6)",
        "TIMESTAMP_LTZ(3)",
        "TIMESTAMP '2024-01-01 00:00:00.123456'",
        _ts("2024-01-01 00:00:00.123").replace(tzinfo=_UTC),
    ),
    # toCharacterString: cut to the length; CHAR padded with spaces
    ("VARCHAR(10)", "CHAR(3)", "'ab'", "ab "),
    ("VARCHAR(10)", "CHAR(3)", "'héllo'", "hél"),
    ("VARCHAR(10)", "CHAR(3)", "'abcdef'", "abc"),
    ("VARCHAR(10)", "VARCHAR(3)", "'abcdef'", "abc"),
    ("CHAR(5)", "CHAR(3)", "'abcde'", "abc"),
    ("CHAR(3)", "CHAR(5)", "'ab '", "ab   "),
    ("INT", "CHAR(2)", "12345", "12"),
    ("INT", "CHAR(2)", "7", "7 "),
    ("BOOLEAN", "CHAR(2)", "TRUE", "tr"),
    # toBinaryString: cut to the length; BINARY padded with zero bytes; a string is its UTF-8
    ("VARBINARY(10)", "BINARY(3)", "'\\xAA\\xBB'::BLOB", b"\xaa\xbb\x00"),
    ("VARBINARY(10)", "BINARY(3)", "'\\xAA\\xBB\\xCC\\xDD'::BLOB", b"\xaa\xbb\xcc"),
    ("VARBINARY(10)", "VARBINARY(2)", "'\\xAA\\xBB\\xCC'::BLOB", b"\xaa\xbb"),
    ("BINARY(4)", "BINARY(2)", "'\\xAA\\xBB\\xCC\\xDD'::BLOB", b"\xaa\xbb"),
    ("VARCHAR(10)", "BINARY(2)", "'é'", b"\xc3\xa9"),
    ("VARCHAR(10)", "BINARY(2)", "'abc'", b"ab"),
]


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    c.execute("SET TimeZone = 'UTC'")
    yield c
    c.close()


def _read(con: duckdb.DuckDBPyConnection, old: str, new: str, value: str) -> object:
    node = evolve(exp.column("a", quoted=True), parse_type(old), parse_type(new))
    return con.sql(f"SELECT {node.sql('duckdb')} FROM (SELECT {value} AS a)").fetchall()[0][0]  # noqa: S608 - test constants


@pytest.mark.parametrize(("old", "new", "value", "java"), JAVA_READS)
def test_evolve_casts_as_java_reads(con, old, new, value, java):
    assert _read(con, old, new, value) == java


def test_nan_stays_nan_as_a_float(con):
    # Flink's read of DOUBLE NaN after MODIFY a FLOAT: NaN
    assert math.isnan(float(_read(con, "DOUBLE", "FLOAT", "'nan'::DOUBLE")))  # type: ignore[arg-type]


def test_a_double_to_decimal_rounds_its_decimal_digits(con):
    # BigDecimal.valueOf(2.675) is 2.675 (Double.toString), half up: 2.68; the binary value
    # 2.67499999... would give 2.67
    assert _read(con, "DOUBLE", "DECIMAL(3, 2)", "2.675::DOUBLE") == decimal.Decimal("2.68")
    assert _read(con, "DECIMAL(10, 3)", "DECIMAL(5, 2)", "-123.455::DECIMAL(10, 3)") == (
        decimal.Decimal("-123.46")
    )


def test_decimal_overflow_fails_the_read_as_in_java(con):
    # Flink's read of DECIMAL(10, 3) 999.995 after MODIFY a DECIMAL(5, 2) fails with a
    # NullPointerException (the cast gives null, the row says the field is not null); ours fails
    # too, never a silent NULL
    with pytest.raises(duckdb.ConversionException):
        _read(con, "DECIMAL(10, 3)", "DECIMAL(5, 2)", "999.995::DECIMAL(10, 3)")


def test_a_decimal_beyond_long_keeps_its_low_64_bits(con):
    # BigDecimal.longValue(): 2^64 + 5 is 5
    assert _read(con, "DECIMAL(38, 0)", "BIGINT", "18446744073709551621::DECIMAL(38, 0)") == 5


def test_wider_types_are_unchanged(con):
    assert _read(con, "INT", "BIGINT", "-5") == -5
    assert _read(con, "VARCHAR(3)", "STRING", "'abc'") == "abc"
    assert _read(con, "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP '1969-12-31 23:59:59.999'") == (
        _ts("1969-12-31 23:59:59.999")
    )


def test_a_string_to_bytes_is_its_utf8(con):
    # StringToBinaryCastRule: BinaryString.toBytes(), the UTF-8 bytes; DuckDB's CAST would read
    # '\x41' as one escaped byte and refuse 'é'
    assert _read(con, "STRING", "BYTES", "'a\\x41é'") == b"a\\x41\xc3\xa9"


def test_a_nullability_change_casts_nothing(con):
    # SchemaEvolutionUtil: types equal but for NOT NULL take the identity cast, so an ORC CHAR
    # that Java's reader returns right-trimmed stays trimmed (no padding)
    assert _read(con, "CHAR(3) NOT NULL", "CHAR(3)", "'ab'") == "ab"
