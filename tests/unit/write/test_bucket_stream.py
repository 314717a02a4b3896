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
    FEW_ROWS,
    bucket_expression,
    hash_expression,
    python_buckets,
    python_hashes,
    stream_values,
)
from tests.unit.write.test_bucket_sql import rand_string

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


def test_the_stream_is_pulled_as_duckdb_needs_rows():
    """A task holds a few of its batches at a time, not its whole input."""
    tables = [pa.table({"k": _strings(10_000, 3)})] * 60
    e = bucket_expression([(exp.column("k"), STRING)], 4)
    pulled = 0
    ahead = []

    def rows_of(table: pa.Table) -> pa.Table:
        nonlocal pulled
        pulled += 1
        return table

    for done, _ in enumerate(stream_values(e, tables, rows_of), 1):
        ahead.append(pulled - done)
    assert len(ahead) == 60
    assert max(ahead) <= 20, ahead


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

    def python(rows: pa.Table) -> pa.Array[Any]:
        calls.append(rows.num_rows)
        return python_buckets(rows, ["k"], [STRING], 8)

    few = [pa.table({"k": _strings(n, n)}) for n in (0, 3, FEW_ROWS - 3)]
    out = list(stream_values(e, few, lambda t: t, python))
    assert calls == [0, 3, FEW_ROWS - 3]
    assert [v.to_pylist() for _, v in out] == [_whole(e, t) for t in few]

    calls.clear()
    more = [*few, pa.table({"k": _strings(1, 9)})]  # one row over: DuckDB for the whole stream
    out = list(stream_values(e, more, lambda t: t, python))
    assert calls == []
    assert [v.to_pylist() for _, v in out] == [_whole(e, t) for t in more]


def test_python_hashes_match_the_sql():
    rows = pa.table({"k": _strings(500, 5)})
    e = hash_expression([(exp.column("k"), STRING)])
    assert python_hashes(rows, ["k"], [STRING]).to_pylist() == _whole(e, rows)


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
