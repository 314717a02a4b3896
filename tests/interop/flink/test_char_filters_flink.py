# ruff: noqa: S608 - the statements are test inputs over our own names
"""Filters on the CHAR columns of Flink-written tables find the rows a full read shows.

Java pads CHAR(n) values before it computes statistics (``'ab   '``); ORC gives the values back
unpadded (``'ab'``, as Flink reads them), so ORC statistics must not prune a CHAR filter.
"""

from __future__ import annotations

import duckdb
import pytest

import paimon_sql

pytestmark = [pytest.mark.interop, pytest.mark.slow]

CONDITIONS = ["c = 'ab'", "c = 'ab   '", "c1 = ''", "c1 = ' '", "c IN ('ab', 'q')", "c > 'aa'"]


@pytest.mark.parametrize("fmt", ["orc", "parquet", "avro"])
@pytest.mark.parametrize("condition", CONDITIONS)
def test_char_filter_finds_the_rows_a_full_read_shows(flink_corpus, fmt, condition):
    session = paimon_sql.connect(flink_corpus.warehouse)
    table = f"db.char_{fmt}"
    con = duckdb.connect()
    con.register("full_read", session.sql(f"SELECT * FROM {table}").to_arrow_table())
    want = sorted(con.execute(f"SELECT * FROM full_read WHERE {condition}").fetchall())
    assert sorted(session.sql(f"SELECT * FROM {table} WHERE {condition}").fetchall()) == want
