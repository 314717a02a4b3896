"""The renderers, character for character."""

from __future__ import annotations

import datetime
import decimal
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq

from paimon_sql.cli.output import render_csv, render_json_lines, render_parquet, render_table


def _sample() -> pa.Table:
    return pa.table(
        {
            "id": pa.array([1, 20, None], pa.int32()),
            "name": ["lake", None, "湖水"],
            "price": pa.array([decimal.Decimal("1.50"), decimal.Decimal("-12.25"), None]),
            "ok": [True, False, None],
        }
    )


def test_table_aligns_numbers_right_text_left_and_shows_null():
    assert render_table(_sample()) == (
        "   id | name |  price | ok\n"
        "------+------+--------+-------\n"
        "    1 | lake |   1.50 | true\n"
        "   20 | NULL | -12.25 | false\n"
        " NULL | 湖水 |   NULL | NULL\n"
        "(3 rows)\n"
    )


def test_table_cuts_wide_values_and_escapes_control_characters():
    table = pa.table({"text": ["a" * 12, "two\nlines", "湖" * 6]})
    assert render_table(table, max_width=8) == (
        " text\n----------\n aaaaaaa…\n two\\nli…\n 湖湖湖…\n(3 rows)\n"
    )
    assert render_table(table, max_width=0).splitlines()[2] == " aaaaaaaaaaaa"


def test_table_footer_counts_every_row_and_says_how_many_are_shown():
    table = pa.table({"n": list(range(5))})
    assert render_table(table.slice(0, 2), total_rows=5) == (
        " n\n---\n 0\n 1\n(5 rows, first 2 shown)\n"
    )
    assert render_table(table.slice(0, 1)) == " n\n---\n 0\n(1 row)\n"
    assert render_table(table.slice(0, 0)) == " n\n---\n(0 rows)\n"


def test_table_renders_nested_binary_and_temporal_values():
    table = pa.table(
        {
            "tags": pa.array([["a", "b"]]),
            "s": pa.array([{"x": 1, "y": None}]),
            "raw": pa.array([b"\x00\xff"]),
            "day": pa.array([datetime.date(2024, 5, 14)]),
            "at": pa.array([datetime.datetime(2024, 5, 14, 8, 30, 1)]),
        }
    )
    assert render_table(table).splitlines()[2] == (
        ' ["a", "b"] | {"x": 1, "y": null} | \\x00ff | 2024-05-14 | 2024-05-14 08:30:01'
    )


def test_csv_has_a_header_quotes_when_needed_and_leaves_nulls_empty():
    assert render_csv(_sample()) == (
        "id,name,price,ok\n1,lake,1.50,true\n20,,-12.25,false\n,湖水,,\n"
    )
    table = pa.table({"a": ['say "hi", then go', "multi\nline"]})
    text = render_csv(table, header=False)
    assert text == '"say ""hi"", then go"\n"multi\nline"\n'


def test_json_lines_one_object_per_row_with_exact_decimals():
    lines = render_json_lines(_sample()).splitlines()
    assert lines == [
        '{"id": 1, "name": "lake", "price": "1.50", "ok": true}',
        '{"id": 20, "name": null, "price": "-12.25", "ok": false}',
        '{"id": null, "name": "湖水", "price": null, "ok": null}',
    ]


def test_json_lines_encode_what_json_lacks():
    table = pa.table(
        {
            "f": [float("inf"), float("-inf")],
            "raw": [b"hi", None],
            "at": [datetime.datetime(2024, 5, 14, 8, 30), None],
            "m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int64())),
        }
    )
    rows = [json.loads(line) for line in render_json_lines(table).splitlines()]
    assert rows == [
        {"f": "Infinity", "raw": "aGk=", "at": "2024-05-14T08:30:00", "m": [["k", 1]]},
        {"f": "-Infinity", "raw": None, "at": None, "m": None},
    ]
    assert render_json_lines(table.slice(0, 0)) == ""


def test_parquet_round_trips_the_table():
    table = _sample()
    assert pq.read_table(io.BytesIO(render_parquet(table))).equals(table)


def test_repeated_column_names_keep_every_column():
    table = pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["a", "a"])
    assert render_table(table) == " a | a\n---+---\n 1 | 2\n(1 row)\n"
    assert render_csv(table) == "a,a\n1,2\n"
    assert render_json_lines(table) == '{"a": 1, "a": 2}\n'


def test_a_table_without_columns_still_has_its_footer():
    assert render_table(pa.table({})) == "(0 rows)\n"
