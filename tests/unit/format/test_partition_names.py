"""Partition folder names as Java spells them (`paimon_sql.format.partition`).

The expected names are the folders Apache Paimon 1.3.1 (Flink 1.20) wrote for these values
(`tests/interop/flink/test_partition_names_flink.py` compares whole tables both ways); the
FLOAT / DOUBLE ones are also what ``Float`` / ``Double.toString`` print on Java 17.
"""

from __future__ import annotations

import datetime
import decimal

import pytest

from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.partition import PartitionLayout, java_float_string, value_string
from paimon_sql.types import parse_type

_UTC = datetime.UTC


@pytest.mark.parametrize(
    ("type_", "value", "legacy", "cast"),
    [
        (
            "TIMESTAMP(3)",
            datetime.datetime(2024, 1, 2, 3, 4),
            "2024-01-02T03:04",
            "2024-01-02 03:04:00.000",
        ),
        (
            "TIMESTAMP(3)",
            datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
            "2024-01-02T03:04:05.678",
            "2024-01-02 03:04:05.678",
        ),
        (
            "TIMESTAMP(6)",
            datetime.datetime(2024, 1, 2, 3, 4, 5, 100000),
            "2024-01-02T03:04:05.100",
            "2024-01-02 03:04:05.100000",
        ),
        (
            "TIMESTAMP(6)",
            datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
            "2024-01-02T03:04:05.123456",
            "2024-01-02 03:04:05.123456",
        ),
        (
            "TIMESTAMP(0)",
            datetime.datetime(2024, 1, 2, 3, 4, 5),
            "2024-01-02T03:04:05",
            "2024-01-02 03:04:05",
        ),
        ("TIME", datetime.time(3, 4), "11040000", "03:04:00"),
        ("TIME(3)", datetime.time(3, 4, 5, 500000), "11045500", "03:04:05.5"),
        ("TIME(3)", datetime.time(0, 0), "0", "00:00:00.0"),
        ("TIME(2)", datetime.time(3, 4, 5, 105000), "11045105", "03:04:05.10"),
        (
            "TIMESTAMP(3)",
            datetime.datetime(999, 1, 2, 3, 4, 5),
            "0999-01-02T03:04:05",
            "0999-01-02 03:04:05.000",
        ),
        ("DATE", datetime.date(1969, 12, 31), "-1", "1969-12-31"),
        ("FLOAT", 1.0e10, "1.0E10", "1.0E10"),
        ("DOUBLE", 0.00001, "1.0E-5", "1.0E-5"),
        ("DECIMAL(20, 10)", decimal.Decimal("1E-10"), "0.0000000001", "0.0000000001"),
        ("DECIMAL(10, 2)", decimal.Decimal("12.3"), "12.30", "12.30"),
        ("BOOLEAN", True, "true", "true"),
        ("BIGINT", -5, "-5", "-5"),
    ],
)
def test_values_are_named_as_java_names_them(type_, value, legacy, cast):
    t = parse_type(type_)
    assert value_string(value, t) == legacy
    assert value_string(value, t, legacy=False) == cast


def test_a_timestamp_ltz_is_named_by_its_utc_time():
    t = parse_type("TIMESTAMP(3) WITH LOCAL TIME ZONE")
    moment = datetime.datetime(
        2024, 1, 2, 4, 4, 5, 500000, tzinfo=datetime.timezone(datetime.timedelta(hours=1))
    )
    assert value_string(moment, t) == "2024-01-02T03:04:05.500"
    with pytest.raises(UnsupportedFeatureError, match=r"partition\.legacy-name"):
        value_string(moment.astimezone(_UTC), t, legacy=False)


@pytest.mark.parametrize(
    ("value", "single", "java"),
    [
        (0.1, False, "0.1"),
        (0.10000000149011612, True, "0.1"),  # the FLOAT nearest 0.1
        (1234567.0, True, "1234567.0"),
        (12345678.0, True, "1.2345678E7"),
        (1.0e7, False, "1.0E7"),
        (9999999.0, False, "9999999.0"),
        (0.001, False, "0.001"),
        (0.0001, True, "1.0E-4"),
        (-123.456, False, "-123.456"),
        (1e-300, False, "1.0E-300"),
        (3.4028234663852886e38, True, "3.4028235E38"),
        (float("nan"), False, "NaN"),
        (float("-inf"), True, "-Infinity"),
        (-0.0, False, "-0.0"),
        (5e-324, False, "4.9E-324"),  # Double.MIN_VALUE: Java prints two digits, the nearer
        (1.401298464324817e-45, True, "1.4E-45"),  # Float.MIN_VALUE
        (2.802596928649634e-45, True, "2.8E-45"),
    ],
)
def test_floating_point_values_print_as_java_prints_them(value, single, java):
    assert java_float_string(value, single=single) == java


def test_a_timestamp_with_nanoseconds_keeps_them_in_its_row_and_folder():
    from paimon_sql.format.binary_row import NanoDatetime, decode_row, encode_row

    t = parse_type("TIMESTAMP(9)")
    value = NanoDatetime.of(datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), 789)
    (back,) = decode_row(encode_row([value], [t]), [t])
    assert (back, back.nanosecond) == (value, 789)
    assert value_string(back, t) == "2024-01-02T03:04:05.123456789"


def test_a_layout_reads_the_table_options():
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.types import DataField

    schema = TableSchema(
        id=0,
        fields=(
            DataField(id=0, name="p", type=parse_type("DATE")),
            DataField(id=1, name="v", type=parse_type("INT")),
        ),
        highest_field_id=1,
        partition_keys=("p",),
        primary_keys=(),
        options={"partition.legacy-name": "false", "partition.default-name": "none"},
    )
    layout = PartitionLayout.of(schema)
    assert layout.path((datetime.date(2024, 5, 14),)) == "p=2024-05-14"
    assert layout.path((None,)) == "p=none"
