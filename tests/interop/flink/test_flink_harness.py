"""The Flink oracle's harness: values survive the bridge losslessly, and a wrong read fails."""

from __future__ import annotations

import duckdb
import pytest

from tests.interop.flink.harness import arrow_rows, assert_same_rows, canonical_flink

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def test_bridge_keeps_what_pyflink_would_lose(flink, tmp_path):
    columns, rows = flink.query(
        tmp_path,
        "SELECT TIMESTAMP '2024-01-01 12:00:00.123456789' AS ts9, "
        "CAST(TIMESTAMP '1969-12-31 23:59:59.999999999' AS TIMESTAMP_LTZ(9)) AS ltz9, "
        "CAST('ab' AS CHAR(5)) AS c, ROW(CAST(NULL AS INT), CAST(NULL AS STRING)) AS nulls, "
        "CAST(NULL AS ROW<a INT>) AS null_row, TIME '12:34:56' AS t, "
        "MAP['b', 2, 'a', 1] AS m, ARRAY['double', '1.0'] AS looks_tagged, "
        "CAST(0.1 AS FLOAT) AS f, CAST('1.50' AS DECIMAL(5, 2)) AS dec_v, X'00ff' AS bin",
    )
    assert columns == [
        "ts9",
        "ltz9",
        "c",
        "nulls",
        "null_row",
        "t",
        "m",
        "looks_tagged",
        "f",
        "dec_v",
        "bin",
    ]
    assert rows == [
        {
            "ts9": ["timestamp", "2024-01-01T12:00:00.123456789"],
            "ltz9": ["timestamp", "1969-12-31T23:59:59.999999999"],
            "c": "ab   ",
            "nulls": ["row", [None, None]],
            "null_row": None,
            "t": ["time", "12:34:56.000000000"],
            "m": ["map", [["a", 1], ["b", 2]]],
            "looks_tagged": ["array", ["double", "1.0"]],
            "f": ["double", repr(float.fromhex("0x1.99999ap-4"))],  # 0.1 as a float32
            "dec_v": ["decimal", "1.5"],
            "bin": ["binary", "00ff"],
        }
    ]


def test_arrow_side_matches_and_differences_fail():
    con = duckdb.connect()
    table = con.sql(
        "SELECT TIMESTAMP_NS '2024-01-01 12:00:00.123456789' AS ts9, 'ab   ' AS c, "
        "{'a': NULL, 'b': NULL}::STRUCT(a INT, b VARCHAR) AS nulls, MAP {'b': 2, 'a': 1} AS m, "
        "0.1::FLOAT AS f, 1.50::DECIMAL(5, 2) AS dec"
    ).to_arrow_table()
    _, ours = arrow_rows(table)
    flink_like = {
        "ts9": canonical_flink(["timestamp", "2024-01-01T12:00:00.123456789"]),
        "c": "ab   ",
        "nulls": ["row", [None, None]],
        "m": canonical_flink(["map", [["b", 2], ["a", 1]]]),
        "f": canonical_flink(["double", "0.10000000149011612"]),
        "dec": canonical_flink(["decimal", "1.50"]),
    }
    assert_same_rows(ours, [flink_like], context="identical values")
    for column, wrong in [
        ("ts9", ["timestamp", "2024-01-01T12:00:00.123456000"]),  # cut to microseconds
        ("c", "ab"),  # CHAR padding lost
        ("nulls", None),  # all-NULL ROW read as NULL
    ]:
        with pytest.raises(AssertionError, match="rows differ"):
            assert_same_rows(ours, [{**flink_like, column: wrong}], context=column)
