"""The benchmark check sees the whole result: a stale row version with the same count and sum(id)
differs, while row order, chunking, column order and type width do not matter."""

from __future__ import annotations

import pyarrow as pa

from tests.second_opinion._worker import fingerprint, rows_digest

ROWS = {
    "id": [1, 2, 3, None],
    "i1": [10, 20, 30, 40],
    "d1": [0.5, None, 2.5, 3.5],
    "s1": ["a", "bb", None, ""],
}


def table(rows=ROWS, **types):
    return pa.table({k: pa.array(v, types.get(k)) for k, v in rows.items()})


def test_a_stale_row_version_differs_where_count_and_sum_id_agree():
    stale = table({**ROWS, "i1": [10, 20, 31, 40]})  # key 3 read in an older version
    assert stale.num_rows == table().num_rows
    assert stale["id"].to_pylist() == table()["id"].to_pylist()
    assert fingerprint(stale, False) != fingerprint(table(), False)


def test_every_value_and_null_counts():
    base = rows_digest(table())
    assert rows_digest(table({**ROWS, "s1": ["a", "bb", "", ""]})) != base  # NULL is not ''
    assert rows_digest(table({**ROWS, "s1": ["a", "b", "b", ""]})) != base  # string boundaries
    assert rows_digest(table({**ROWS, "d1": [0.5, 0.0, 2.5, 3.5]})) != base  # NULL is not 0
    assert rows_digest(table().slice(0, 3)) != base
    doubled = pa.concat_tables([table(), table().slice(3)])
    assert rows_digest(doubled) != base  # a multiset: a duplicate row counts


def test_order_chunks_columns_and_widths_do_not_matter():
    base = rows_digest(table())
    reordered = table().take([3, 1, 0, 2]).select(["s1", "d1", "id", "i1"])
    assert rows_digest(reordered) == base
    chunked = pa.concat_tables([table().slice(0, 1), table().slice(1)])
    assert chunked["id"].num_chunks == 2
    assert rows_digest(chunked) == base
    wide = table(id=pa.int32(), i1=pa.int16(), d1=pa.float32(), s1=pa.large_string())
    assert rows_digest(wide) == base
    assert rows_digest(table(s1=pa.string_view())) == base


def test_empty_results_agree():
    empty = table().slice(0, 0)
    assert rows_digest(empty) == rows_digest(table(id=pa.int32()).slice(4))
    assert fingerprint(empty, False)["count"] == 0
