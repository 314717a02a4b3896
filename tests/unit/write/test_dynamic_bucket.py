# ruff: noqa: S608 - the statements are test inputs built from our own constants
"""Dynamic-bucket assignment against a key-by-key model of Java's PartitionIndex.assign."""

from __future__ import annotations

import random

import duckdb
import pyarrow as pa
import pytest

from paimon_sql.errors import OptionError
from paimon_sql.format.hash_index import decode_hashes, encode_hashes
from paimon_sql.write.dynamic_bucket import (
    DynamicBucketOptions,
    _java_map_order,
    assign_buckets,
)


def java_model(hashes, existing, options):
    """One assigner per `abs(hash % n)`, each walking its keys one by one like PartitionIndex."""
    n = options.num_assigners
    top = 32767 if options.max_buckets == -1 else options.max_buckets
    result, overflowed = {}, set()
    for assign_id in range(n):
        known, counts = {}, {}
        for bucket, data in existing.items():
            for h in decode_hashes(data):
                if abs(h) % n == assign_id:
                    known[h] = bucket
                if bucket % n == assign_id:
                    counts[bucket] = counts.get(bucket, 0) + 1
        order = _java_map_order(list(counts))
        non_full = {b: counts[b] for b in order}
        total = list(order)
        for h in hashes:
            if abs(h) % n != assign_id:
                continue
            if h in known:
                result[h] = known[h]
                continue
            bucket = next((b for b, c in non_full.items() if c < options.target_row_num), None)
            if bucket is None:
                bucket = next(
                    (b for b in range(top) if b % n == assign_id and b not in total), None
                )
                if bucket is None:
                    overflowed.add(h)
                    bucket = total[0]
                else:
                    total.append(bucket)
                    non_full[bucket] = 0
            non_full = {b: c for b, c in non_full.items() if c < options.target_row_num}
            if bucket in non_full:
                non_full[bucket] += 1
            known[h] = result[h] = bucket
    return result, overflowed


def run(hashes, existing, options):
    con = duckdb.connect()
    out = assign_buckets(con, pa.array(hashes, pa.int32()), existing, options)
    mapping = dict(
        zip(
            out.assignment.column("hash").to_pylist(),
            out.assignment.column("bucket").to_pylist(),
            strict=True,
        )
    )
    assert len(mapping) == out.assignment.num_rows, "one row per distinct hash"
    return mapping, out.index_files


def random_existing(rng, buckets, per_bucket):
    pool = rng.sample(range(-(2**31), 2**31), buckets * per_bucket)
    existing = {}
    for b in rng.sample(range(buckets + 3), buckets):
        existing[b] = encode_hashes([pool.pop() for _ in range(rng.randint(0, per_bucket))])
    return existing


@pytest.mark.parametrize("seed", range(12))
def test_matches_java_model(seed):
    rng = random.Random(seed)
    options = DynamicBucketOptions(
        target_row_num=rng.choice([1, 3, 10, 50]), num_assigners=rng.choice([1, 1, 2, 3])
    )
    existing = random_existing(rng, rng.randint(0, 6), 20)
    old = [h for data in existing.values() for h in decode_hashes(data)]
    fresh = [rng.randint(-(2**31), 2**31 - 1) for _ in range(rng.randint(0, 200))]
    hashes = [
        rng.choice(old + fresh) if old and rng.random() < 0.3 else rng.choice(fresh or [1])
        for _ in range(300)
    ]
    expected, _ = java_model(hashes, existing, options)
    mapping, files = run(hashes, existing, options)
    assert mapping == expected
    for bucket, data in files.items():
        content = decode_hashes(data)
        assert content[: len(existing.get(bucket, b"")) // 4] == decode_hashes(
            existing.get(bucket, b"")
        )
        added = content[len(existing.get(bucket, b"")) // 4 :]
        assert all(expected[h] == bucket for h in added)
        assert len(set(added)) == len(added)
    new_hashes = {h for h in expected if h not in old}
    assert sum(len(d) // 4 for d in files.values()) - sum(
        len(existing.get(b, b"")) // 4 for b in files
    ) == len(new_hashes)


def test_first_write_fills_bucket_zero_then_opens_the_next():
    mapping, files = run(list(range(10)), {}, DynamicBucketOptions(target_row_num=4))
    assert [mapping[h] for h in range(10)] == [0] * 4 + [1] * 4 + [2] * 2
    assert decode_hashes(files[1]) == (4, 5, 6, 7)


def test_known_hash_keeps_its_bucket_and_full_buckets_are_skipped():
    existing = {0: encode_hashes([1, 2]), 1: encode_hashes([3])}
    mapping, files = run([3, 9, 10, 2], existing, DynamicBucketOptions(target_row_num=2))
    assert mapping == {3: 1, 9: 1, 10: 2, 2: 0}
    assert decode_hashes(files[1]) == (3, 9)
    assert sorted(files) == [1, 2]


def test_java_hashmap_iteration_order():
    # 20 buckets: capacity 32; id 40 lands in slot 8, between 7 and 8.
    order = _java_map_order([40, *range(20)])
    assert order.index(40) == order.index(8) - 1 or order.index(40) == order.index(8) + 1


def test_max_buckets_overflow_reuses_existing_buckets():
    options = DynamicBucketOptions(target_row_num=1, max_buckets=2)
    mapping, _ = run([10, 11, 12, 13, 12], {}, options)
    assert mapping[10] == 0
    assert mapping[11] == 1
    assert {mapping[12], mapping[13]} <= {0, 1}


def test_assigners_open_only_their_buckets():
    options = DynamicBucketOptions(target_row_num=1, num_assigners=2)
    mapping, _ = run([2, 4, 1, 3, -5], {}, options)
    assert [mapping[h] for h in (2, 4)] == [0, 2]
    assert [mapping[h] for h in (1, 3, -5)] == [1, 3, 5]


def test_bad_options():
    with pytest.raises(OptionError):
        run([1], {}, DynamicBucketOptions(max_buckets=0))
    with pytest.raises(OptionError):
        DynamicBucketOptions.from_options({"dynamic-bucket.target-row-num": "x"})
    assert DynamicBucketOptions.from_options({}).target_row_num == 2_000_000


@pytest.mark.slow
def test_million_keys_timing():
    """Not an assertion on speed: 1M fresh hashes against 1M existing ones."""
    import time

    rng = random.Random(1)
    existing = {0: encode_hashes(rng.sample(range(-(2**31), 2**31), 1_000_000))}
    hashes = [rng.randint(-(2**31), 2**31 - 1) for _ in range(1_000_000)]
    start = time.perf_counter()
    _, files = run(hashes, existing, DynamicBucketOptions(target_row_num=1_200_000))
    print(f"dynamic bucket, 1M keys vs 1M known: {(time.perf_counter() - start) * 1000:.0f} ms")
    assert set(files) <= {0, 1}


def test_only_known_hashes_write_no_index_file():
    existing = {0: encode_hashes([1, 2]), 1: encode_hashes([3])}
    mapping, files = run([3, 1, 3], existing, DynamicBucketOptions(target_row_num=2))
    assert mapping == {3: 1, 1: 0}
    assert files == {}


def test_index_files_keep_old_hashes_then_add_the_new_ones():
    # Java writes a bucket's hashes in its hash set's iteration order: readers take no order from
    # it.
    existing = {0: encode_hashes([5])}
    mapping, files = run([9, 8, 5, 7], existing, DynamicBucketOptions(target_row_num=3))
    assert mapping == {9: 0, 8: 0, 5: 0, 7: 1}
    old, *new = decode_hashes(files[0])
    assert old == 5
    assert sorted(new) == [8, 9]
    assert decode_hashes(files[1]) == (7,)


def _index_by_bucket(session, name):
    """(bucket) -> sorted hashes of table `name`'s HASH files (one partition)."""
    from paimon_sql.write.writer import TableWriter

    table = session.table(name)
    return {
        bucket: sorted(decode_hashes(blob))
        for (_, bucket), blob in TableWriter(None, table).hash_index().items()
    }


@pytest.mark.parametrize(
    ("key_type", "values"),
    [
        ("STRING", ["'a'", "'ü€'", "''", "'key-000000000000000000042'"]),
        ("DECIMAL(20, 3)", ["-1.5", "0", "12345678901234567.125", "-128"]),
        ("DATE", ["DATE '1970-01-01'", "DATE '1600-02-29'", "DATE '2999-12-31'"]),
        ("TIMESTAMP(6)", ["TIMESTAMP '1969-12-31 23:59:59.999999'", "TIMESTAMP '2024-01-01'"]),
        (
            "TIMESTAMP_LTZ(3)",
            ["TIMESTAMPTZ '2024-01-01 00:00:00.123+05'", "TIMESTAMPTZ '1900-01-01'"],
        ),
    ],
)
def test_small_values_insert_hashes_as_the_sql_path(tmp_path, key_type, values):
    """A dynamic-bucket INSERT … VALUES (its key hashes computed in Python) leaves the same HASH
    index as the same rows written through a query (hashed by the SQL expression, itself checked
    against Java's vectors and Java-written tables in test_bucket_sql.py), and the rows read back.
    """
    import paimon_sql

    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    for name in ("by_values", "by_query"):
        session.sql(
            f"CREATE TABLE db.{name} (k {key_type} NOT NULL, k2 INT NOT NULL, v INT, "
            "PRIMARY KEY (k, k2) NOT ENFORCED) "
            "WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '2')"
        )
    rows = ", ".join(f"({v}, {i}, {i * 10})" for i, v in enumerate(values))
    session.sql(f"INSERT INTO db.by_values VALUES {rows}")
    query = f"SELECT v.* FROM (VALUES {rows}) v JOIN range(1) r ON true"
    session.sql(f"INSERT INTO db.by_query {query}")
    index = _index_by_bucket(session, "db.by_values")
    assert index == _index_by_bucket(session, "db.by_query")
    assert len(index) == (len(values) + 1) // 2
    assert sum(len(h) for h in index.values()) == len(values)
    read = [
        session.sql(f"SELECT * FROM db.{n} ORDER BY k2").to_arrow_table()
        for n in ("by_values", "by_query")
    ]
    assert read[0].equals(read[1])
    assert read[0].num_rows == len(values)
    session.close()
