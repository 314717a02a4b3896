"""`cut_groups`: an append write's sorted stream cut into files per (partition, bucket) and size."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql.write.writer import RepeatedKeys, _numbered, _unique_keys, cut_groups


def _cut(batches, columns, budget):
    return cut_groups(iter(batches), batches[0].schema, columns, budget)


def _batches(p, b, v, size):
    table = pa.table(
        {"p": pa.array(p, pa.string()), "b": pa.array(b, pa.int32()), "v": pa.array(v, pa.int64())}
    )
    return table.to_batches(max_chunksize=size)


@pytest.mark.parametrize("size", [1, 3, 7, 100])
def test_groups_follow_changes_including_nulls_across_batches(size):
    p = [None, None, "a", "a", "a", "b", "b", None]
    b = [0, 1, 1, 1, 2, 2, 2, 2]
    v = list(range(8))
    pieces = list(_cut(_batches(p, b, v, size), ["p", "b"], 1 << 20))
    assert [(g, t.column("v").to_pylist()) for g, t in pieces] == [
        ((None, 0), [0]),
        ((None, 1), [1]),
        (("a", 1), [2, 3]),
        (("a", 2), [4]),
        (("b", 2), [5, 6]),
        ((None, 2), [7]),
    ]


@pytest.mark.parametrize("size", [10, 333, 1000])
def test_large_groups_cut_near_the_budget_without_small_tails(size):
    n = 1000
    batches = _batches(["x"] * n, [0] * n, list(range(n)), size)
    width = sum(b.nbytes for b in batches) / n
    budget = int(100 * width)
    pieces = list(_cut(batches, ["p", "b"], budget))
    rows = [t.num_rows for _, t in pieces]
    assert sum(rows) == n
    assert [v for _, t in pieces for v in t.column("v").to_pylist()] == list(range(n))
    assert all(45 <= r <= 105 for r in rows), rows


def test_no_group_columns_is_one_group_and_empty_stream_nothing():
    batches = _batches(["x", "y"], [0, 1], [1, 2], 1)
    assert [(g, t.num_rows) for g, t in _cut(batches, [], 1 << 20)] == [((), 2)]
    assert list(cut_groups(iter([]), batches[0].schema, ["p"], 10)) == []


@pytest.mark.parametrize("size", [1, 2, 3, 100])
def test_unique_keys_pass_and_repeats_are_found_across_batches_with_nulls_and_nans(size):
    def run(keys):
        table = pa.table(
            {"k": pa.array(keys, pa.float64()), "v": pa.array(range(len(keys)), pa.int64())}
        )
        out = _unique_keys(iter(table.to_batches(max_chunksize=size)), ["k"])
        return pa.Table.from_batches(list(out), schema=table.schema).column("v").to_pylist()

    assert run([None, 1.0, float("nan"), 2.0, 3.0]) == [0, 1, 2, 3, 4]
    for repeated in ([None, None, 1.0], [1.0, float("nan"), float("nan")], [1.0, 2.0, 3.0, 3.0]):
        with pytest.raises(RepeatedKeys):
            run(repeated)


def test_numbered_counts_on_from_the_base_across_batches():
    table = pa.table({"v": pa.array(range(5), pa.int64())})
    out = pa.Table.from_batches(list(_numbered(iter(table.to_batches(max_chunksize=2)), 40)))
    assert out.column("_SEQUENCE_NUMBER").to_pylist() == [40, 41, 42, 43, 44]
