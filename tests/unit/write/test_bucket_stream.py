"""`stream_values`: a stream of Arrow tables through one DuckDB query, cut back into the tables.

What the Spark tasks compute for every row (`spark._task.route`, the dynamic-bucket key hashes): the
values must be the bucket expression's (checked against Java's vectors and Java-written tables in
`test_bucket_sql.py`) and the Python reference's, each table's values aligned with its rows, in
order, however the tables cut the rows (empty ones, ones straddling DuckDB's result batches).
"""

from __future__ import annotations

import random
from typing import Any

import duckdb
import pyarrow as pa
import pytest
from sqlglot import exp

from paimon_sql.errors import SchemaError
from paimon_sql.format.bucket import bucket_of, row_hash
from paimon_sql.types import parse_type
from paimon_sql.write import bucket
from paimon_sql.write.bucket import (
    SMALL_INPUT_ROWS,
    bucket_expression,
    hash_expression,
    python_buckets,
    python_hashes,
    stream_values,
)
from tests.unit.write.test_bucket_sql import rand_string, rand_value, sql_hashes

STRING = parse_type("STRING")
INT = parse_type("INT")


def _strings(n: int, seed: int) -> pa.Array[Any]:
    """Short, inline (≤ 7 bytes), long and multi-byte strings, and NULLs."""
    rng = random.Random(seed)
    pick = [lambda: None, lambda: "", lambda: rand_string(rng, 7), lambda: f"user_{rng.random()}"]
    return pa.array([rng.choice(pick)() or rand_string(rng, 40) for _ in range(n)], pa.string())


def _cut(rows: pa.Table, sizes: list[int]) -> list[pa.Table]:
    out, start = [], 0
    for size in sizes:
        out.append(rows.slice(start, size))
        start += size
    assert start == rows.num_rows
    return out


def _whole(expression: exp.Expression, rows: pa.Table) -> list[int]:
    """The expression over all rows in one plain query (no streaming)."""
    con = duckdb.connect()
    con.register("t", rows)
    query = exp.select(expression.copy()).from_("t").sql("duckdb")
    return [r[0] for r in con.execute(query).fetchall()]


#: Empty tables, one row, and tables ending just before, at and after DuckDB's result batches.
SIZES = [0, 1, bucket._STREAM_BATCH - 1, 0, 2, bucket._STREAM_BATCH, 40_000, 0, 7, 30_000, 0]


def test_buckets_of_a_string_key_stay_aligned_with_each_table():
    n = sum(SIZES)
    rows = pa.table({"k": _strings(n, 1), "v": pa.array(range(n), pa.int64())})
    key = [(exp.column("k", quoted=True), STRING)]
    e = bucket_expression(key, 8)
    tables = _cut(rows, SIZES)
    seen: list[pa.Table] = []

    def rows_of(table: pa.Table) -> pa.Table:
        seen.append(table)
        return table

    out = list(stream_values(e, tables, rows_of))
    assert [item for item, _ in out] == tables  # every table once, in order
    assert seen == tables
    assert [len(values) for _, values in out] == SIZES
    assert all(values.type == pa.int32() for _, values in out)
    got = [b for _, values in out for b in values.to_pylist()]
    assert got == _whole(e, rows)
    keys = rows.column("k").to_pylist()
    for i in range(0, n, 97):  # the Python reference (Java's vectors) on a sample
        assert got[i] == bucket_of((keys[i],), [STRING], 8), i
    assert len(set(got)) == 8


def test_key_hashes_of_a_two_column_key():
    sizes = [3, 0, 20_000, 1]
    n = sum(sizes)
    rng = random.Random(2)
    ints = [rng.choice([None, rng.randrange(-(2**31), 2**31)]) for _ in range(n)]
    rows = pa.table({"s": _strings(n, 2), "i": pa.array(ints, pa.int32())})
    key = [(exp.column("s", quoted=True), STRING), (exp.column("i", quoted=True), INT)]
    out = list(stream_values(hash_expression(key), _cut(rows, sizes), lambda t: t))
    got = [h for _, values in out for h in values.to_pylist()]
    strings = rows.column("s").to_pylist()
    assert got == [row_hash((s, i), [STRING, INT]) for s, i in zip(strings, ints, strict=True)]


def test_each_table_is_answered_before_the_next_is_pulled():
    """A task holds one of its batches at a time, as when each had a query of its own (DuckDB reads
    ahead of the result it hands over: the padding of `_streamed` keeps it from the next table)."""
    sizes = [10_000] * 12 + [1, 700, 0, 5000, 131_072, 1024, 1025, 3, 2048, 0, 0, 4097]
    keys = _strings(max(sizes), 3)
    tables = [pa.table({"k": keys.slice(0, n)}) for n in sizes]
    e = bucket_expression([(exp.column("k"), STRING)], 4)
    events: list[tuple[str, int]] = []

    def rows_of(i: int) -> pa.Table:
        events.append(("pulled", i))
        return tables[i]

    for i, values in stream_values(e, range(len(tables)), rows_of):
        events.append(("answered", i))
        assert len(values) == sizes[i]
    assert sorted(events, key=lambda e: e[1]) == [
        (what, i) for i in range(len(tables)) for what in ("pulled", "answered")
    ]
    for i, n in enumerate(sizes[:-1]):  # (an empty table may wait: it holds no rows)
        if n:
            assert events.index(("answered", i)) < events.index(("pulled", i + 1)), (i, events)


def test_an_error_of_a_table_is_raised_as_it_was():
    """`conform` refusing a batch inside DuckDB's scan: its own error, after the earlier tables."""
    e = bucket_expression([(exp.column("k"), STRING)], 4)

    def rows_of(i: int) -> pa.Table:
        if i == 2:
            raise SchemaError("column 'k' cannot be written as string")
        return pa.table({"k": _strings(5000, i)})

    out = stream_values(e, range(5), rows_of)
    assert [next(out)[0], next(out)[0]] == [0, 1]
    with pytest.raises(SchemaError, match="cannot be written"):
        next(out)


def test_few_rows_are_hashed_in_python_and_more_in_duckdb():
    e = bucket_expression([(exp.column("k"), STRING)], 8)
    calls: list[int] = []

    def python(rows: pa.Table) -> pa.Array[Any] | None:
        calls.append(rows.num_rows)
        return python_buckets([rows.column("k")], [STRING], 8)

    few = [pa.table({"k": _strings(n, n)}) for n in (0, 3, SMALL_INPUT_ROWS - 3)]
    out = list(stream_values(e, few, lambda t: t, python))
    assert calls == [0, 3, SMALL_INPUT_ROWS - 3]
    assert [v.to_pylist() for _, v in out] == [_whole(e, t) for t in few]

    calls.clear()
    more = [*few, pa.table({"k": _strings(1, 9)})]  # one row over: DuckDB for the whole stream
    out = list(stream_values(e, more, lambda t: t, python))
    assert calls == []
    assert [v.to_pylist() for _, v in out] == [_whole(e, t) for t in more]


def test_python_hashes_match_the_sql():
    rows = pa.table({"k": _strings(500, 5)})
    e = hash_expression([(exp.column("k"), STRING)])
    assert python_hashes([rows.column("k")], [STRING]) == _whole(e, rows)


def test_rows_without_a_python_form_go_through_duckdb():
    """A small stream whose Python function gives None for one table (a value Python cannot hold
    exactly) is hashed by DuckDB, every table of it."""
    ts = parse_type("TIMESTAMP(6)")
    e = bucket_expression([(exp.column("k"), ts)], 8)
    tables = [
        pa.table({"k": pa.array([0, 10**12], pa.timestamp("us"))}),
        pa.table({"k": pa.array([300_000_000_000_000_000], pa.timestamp("us"))}),  # year 11476
    ]

    def python(rows: pa.Table) -> pa.Array[Any] | None:
        return python_buckets([rows.column("k")], [ts], 8)

    assert python(tables[0]) is not None
    assert python(tables[1]) is None
    out = list(stream_values(e, tables, lambda t: t, python))
    assert [v.to_pylist() for _, v in out] == [_whole(e, t) for t in tables]


def test_one_bucket_and_no_tables_need_no_query():
    e = bucket_expression([(exp.column("k"), STRING)], 1)
    tables = [pa.table({"k": ["a", None]}), pa.table({"k": pa.array([], pa.string())})]
    out = list(stream_values(e, tables, lambda t: t))
    assert [v.to_pylist() for _, v in out] == [[0, 0], []]
    nothing: list[pa.Table] = []
    assert (
        list(stream_values(bucket_expression([(exp.column("k"), STRING)], 4), nothing, pa.table))
        == []
    )
    empty = [pa.table({"k": pa.array([], pa.string())})] * 3
    out = list(stream_values(bucket_expression([(exp.column("k"), STRING)], 4), empty, lambda t: t))
    assert [len(v) for _, v in out] == [0, 0, 0]


def test_tables_of_another_schema_are_refused():
    """Arrow's stream reader would take them without a word."""
    e = bucket_expression([(exp.column("k"), STRING)], 4)
    tables = [pa.table({"k": ["a"]}), pa.table({"k": pa.array([1], pa.int64())})]
    with pytest.raises(ValueError, match="rows of schema"):
        list(stream_values(e, tables, lambda t: t))


def test_a_consumer_may_stop_early():
    """Spark closes a task's iterator when a later stage fails: the query is closed with it."""
    e = bucket_expression([(exp.column("k"), STRING)], 4)
    tables = [pa.table({"k": _strings(3000, 4)})] * 10
    out = stream_values(e, tables, lambda t: t)
    first, values = next(out)
    assert first is tables[0]
    assert len(values) == 3000
    out.close()
    assert list(out) == []


#: One of each way a key column is encoded (`write.bucket._field`): fixed slots, inline or var-part
#: strings, padded CHAR/BINARY, compact and 16-byte decimals, timestamps with and without var part.
KEY_TYPES = [
    "BOOLEAN",
    "TINYINT",
    "DOUBLE",
    "DATE",
    "TIME",
    "STRING",
    "CHAR(10)",
    "BINARY(8)",
    "BYTES",
    "DECIMAL(10, 2)",
    "DECIMAL(38, 10)",
    "TIMESTAMP(3)",
    "TIMESTAMP(9)",
    "TIMESTAMP_LTZ(6)",
]


@pytest.mark.parametrize("type_text", KEY_TYPES)
def test_every_key_type_streams_as_one_query_computes_it(type_text):
    """The NULL rows that pad each table in the stream (NOT NULL keys too) do not trouble the hash
    of any key type, and each table's values are the plain query's."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    for text in (type_text, type_text + " NOT NULL"):
        t = parse_type(text)
        rng = random.Random(text)
        rows = [(rand_value(rng, t),) for _ in range(60)]
        if not t.nullable:
            rows = [r for r in rows if r[0] is not None]
        sql_hashes(con, rows, [text])  # fills table k (rid, c0) with the rows
        table = con.sql("SELECT c0 FROM k ORDER BY rid").to_arrow_table()
        e = hash_expression([(exp.column("c0"), t)])
        out = list(stream_values(e, _cut(table, [0, 7, len(rows) - 7]), lambda t: t))
        assert [h for _, v in out for h in v.to_pylist()] == _whole(e, table), text
