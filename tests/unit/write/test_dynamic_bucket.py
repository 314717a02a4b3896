# ruff: noqa: S608 - the statements are test inputs built from our own constants
"""Dynamic-bucket assignment against a key-by-key model of Java's PartitionIndex.assign."""

from __future__ import annotations

import random
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from paimon_sql.errors import OptionError
from paimon_sql.format.hash_index import decode_hashes, encode_hashes
from paimon_sql.write.dynamic_bucket import (
    DynamicBucketOptions,
    _java_map_order,
    assign_buckets,
    assign_small,
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


def run_small(hashes, existing, options):
    """`run` through `assign_small` (the writer's path for a few keys): the mapping and the new
    HASH files as the writer builds them (old content, then the bucket's new hashes in order)."""
    out = assign_small(
        [(0, h) for h in hashes], [(0, b, data) for b, data in existing.items()], options
    )
    assert out.known.column("part").to_pylist() == [0] * out.known.num_rows
    mapping: dict[int, int] = {}
    files: dict[int, list[int]] = {}
    for table, new in ((out.known, False), (out.fresh, True)):
        for h, bucket in zip(
            table.column("hash").to_pylist(), table.column("bucket").to_pylist(), strict=True
        ):
            assert h is not None
            assert bucket is not None
            assert h not in mapping, "one row per distinct hash"
            mapping[h] = bucket
            if new:
                files.setdefault(bucket, []).append(h)
    assert dict(out.counts) == {(0, b): len(d) // 4 for b, d in existing.items() if d}
    return mapping, {b: existing.get(b, b"") + encode_hashes(hs) for b, hs in files.items()}


@pytest.fixture(params=["sql", "python"])
def assign(request):
    """Both assigners: DuckDB's (`assign_buckets`) and Python's for small inputs."""
    return run if request.param == "sql" else run_small


def random_existing(rng, buckets, per_bucket):
    pool = rng.sample(range(-(2**31), 2**31), buckets * per_bucket)
    existing = {}
    for b in rng.sample(range(buckets + 3), buckets):
        existing[b] = encode_hashes([pool.pop() for _ in range(rng.randint(0, per_bucket))])
    return existing


@pytest.mark.parametrize("seed", range(12))
def test_matches_java_model(seed, assign):
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
    mapping, files = assign(hashes, existing, options)
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


def test_first_write_fills_bucket_zero_then_opens_the_next(assign):
    mapping, files = assign(list(range(10)), {}, DynamicBucketOptions(target_row_num=4))
    assert [mapping[h] for h in range(10)] == [0] * 4 + [1] * 4 + [2] * 2
    assert decode_hashes(files[1]) == (4, 5, 6, 7)


def test_known_hash_keeps_its_bucket_and_full_buckets_are_skipped(assign):
    existing = {0: encode_hashes([1, 2]), 1: encode_hashes([3])}
    mapping, files = assign([3, 9, 10, 2], existing, DynamicBucketOptions(target_row_num=2))
    assert mapping == {3: 1, 9: 1, 10: 2, 2: 0}
    assert decode_hashes(files[1]) == (3, 9)
    assert sorted(files) == [1, 2]


def test_java_hashmap_iteration_order():
    # 20 buckets: capacity 32; id 40 lands in slot 8, between 7 and 8.
    order = _java_map_order([40, *range(20)])
    assert order.index(40) == order.index(8) - 1 or order.index(40) == order.index(8) + 1


def test_max_buckets_overflow_reuses_existing_buckets(assign):
    options = DynamicBucketOptions(target_row_num=1, max_buckets=2)
    mapping, _ = assign([10, 11, 12, 13, 12], {}, options)
    assert mapping[10] == 0
    assert mapping[11] == 1
    assert {mapping[12], mapping[13]} <= {0, 1}


def test_assigners_open_only_their_buckets(assign):
    options = DynamicBucketOptions(target_row_num=1, num_assigners=2)
    mapping, _ = assign([2, 4, 1, 3, -5], {}, options)
    assert [mapping[h] for h in (2, 4)] == [0, 2]
    assert [mapping[h] for h in (1, 3, -5)] == [1, 3, 5]


def test_bad_options(assign):
    with pytest.raises(OptionError):
        assign([1], {}, DynamicBucketOptions(max_buckets=0))
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


def test_only_known_hashes_write_no_index_file(assign):
    existing = {0: encode_hashes([1, 2]), 1: encode_hashes([3])}
    mapping, files = assign([3, 1, 3], existing, DynamicBucketOptions(target_row_num=2))
    assert mapping == {3: 1, 1: 0}
    assert files == {}


def test_index_files_keep_old_hashes_then_add_the_new_ones(assign):
    # Java writes a bucket's hashes in its hash set's iteration order: readers take no order from
    # it.
    existing = {0: encode_hashes([5])}
    mapping, files = assign([9, 8, 5, 7], existing, DynamicBucketOptions(target_row_num=3))
    assert mapping == {9: 0, 8: 0, 5: 0, 7: 1}
    old, *new = decode_hashes(files[0])
    assert old == 5
    assert sorted(new) == [8, 9]
    assert decode_hashes(files[1]) == (7,)


def test_a_hash_in_two_files_belongs_to_the_later_file(assign):
    # files are loaded in the index manifest's order; Java's map keeps the last bucket it read
    existing = {3: encode_hashes([1, 2]), 0: encode_hashes([2])}
    mapping, files = assign([2, 1], existing, DynamicBucketOptions(target_row_num=5))
    assert mapping == {2: 0, 1: 3}
    assert files == {}


@pytest.mark.parametrize("seed", range(8))
def test_small_assignment_matches_duckdb_over_partitions(seed):
    """`assign_small` gives each (partition, hash) the bucket `assign_in_duckdb` gives it, over
    several partitions, assigners and overflowing `max-buckets`, and counts the files' hashes."""
    from paimon_sql.write.dynamic_bucket import AssignTables, assign_in_duckdb

    rng = random.Random(seed)
    options = DynamicBucketOptions(
        target_row_num=rng.choice([1, 2, 5]),
        num_assigners=rng.choice([1, 2, 3]),
        max_buckets=rng.choice([-1, 3, 4]),
    )
    existing = [
        (part, bucket, data)
        for part in range(3)
        for bucket, data in random_existing(rng, rng.randint(0, 4), 6).items()
    ]
    pool = [h for _, _, data in existing for h in decode_hashes(data)]
    keys = [
        (
            rng.randrange(3),
            rng.choice(pool) if pool and rng.random() < 0.3 else rng.randint(-50, 50),
        )
        for _ in range(rng.randint(40, 120))
    ]
    small = assign_small(keys, existing, options)
    con = duckdb.connect()
    new = pa.table(
        {
            "part": pa.array([p for p, _ in keys], pa.int64()),
            "hash": pa.array([h for _, h in keys], pa.int32()),
            "pos": pa.array(range(len(keys)), pa.int64()),
        }
    )
    raw = pa.table(
        {
            "part": pa.array([p for p, _, d in existing for _ in decode_hashes(d)], pa.int64()),
            "bucket": pa.array([b for _, b, d in existing for _ in decode_hashes(d)], pa.int32()),
            "hash": pa.array([h for _, _, d in existing for h in decode_hashes(d)], pa.int32()),
        }
    )
    raw = raw.append_column("ord", pa.array(range(raw.num_rows), pa.int64()))
    con.register("n", new)
    con.register("r", raw)
    counts = {(p, b): len(d) // 4 for p, b, d in existing if d}
    tables = AssignTables.unique("n", "r", "x")
    assign_in_duckdb(con, tables, counts, options)
    for name, table in (("x_known", small.known), ("x_fresh", small.fresh)):
        expected = con.sql(f"SELECT part, hash, bucket FROM {name} ORDER BY ALL").fetchall()
        assert sorted(zip(*table.to_pydict().values(), strict=True)) == expected
    assert dict(small.counts) == counts


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
def test_small_values_insert_hashes_as_the_sql_path(tmp_path, monkeypatch, key_type, values):
    """A dynamic-bucket INSERT … VALUES (its key hashes computed in Python) leaves the same HASH
    index as the same rows written through a query (hashed by the SQL expression, itself checked
    against Java's vectors and Java-written tables in test_bucket_sql.py), and the rows read back.
    """
    import paimon_sql
    from paimon_sql.write.writer import TableWriter

    monkeypatch.setattr(TableWriter, "_probably_few", lambda _self, _source: False)

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
    read = _tables(session, ("by_values", "by_query"), "k2")
    assert read[0].equals(read[1])
    assert read[0].num_rows == len(values)
    session.close()


def _tables(session, names, order):
    """The rows of tables ``db.<name>`` as Arrow, ordered by column `order`."""
    return [session.sql(f"SELECT * FROM db.{n} ORDER BY {order}").to_arrow_table() for n in names]


def _key_buckets(session, name, tmp_path):
    """(p, k) -> the bucket of each key in `name`'s live data files; (p, bucket) -> its files."""
    import pyarrow.parquet as pq

    folder = tmp_path / "db.db" / name
    found: dict[tuple[Any, Any], int] = {}
    files: dict[tuple[str, int], int] = {}
    for part, bucket, file_name in session.sql(
        f'SELECT partition, bucket, file_path FROM db."{name}$files"'
    ).fetchall():
        (path,) = folder.rglob(file_name)
        files[(part, bucket)] = files.get((part, bucket), 0) + 1
        data = pq.read_table(path, columns=["p", "k"])
        for p, k in zip(data.column("p").to_pylist(), data.column("k").to_pylist(), strict=True):
            assert found.setdefault((p, k), bucket) == bucket, "a key in two buckets"
    return found, files


def _model(batches, options):
    """hash -> bucket after `java_model` assigned each batch of hashes in turn (state kept)."""
    existing: dict[int, bytes] = {}
    for hashes in batches:
        mapping, _ = java_model(hashes, existing, options)
        for bucket in sorted(set(mapping.values())):
            old = decode_hashes(existing.get(bucket, b""))
            added = [h for h, b in mapping.items() if b == bucket and h not in old]
            existing[bucket] = encode_hashes([*old, *added])
    return mapping_of(existing)


def _survivors(rows):
    """The keys of `rows` ordered by the arrival of their last version (the one a file keeps)."""
    last = {}
    for i, (p, k, _) in enumerate(rows):
        last[(p, k)] = i
    return sorted(last, key=last.__getitem__)


@pytest.mark.parametrize("assigners", [1, 2])
def test_a_load_of_several_runs_assigns_as_one_run(tmp_path, assigners):
    """Issue 18: a dynamic-bucket input larger than a write buffer is written run by run.

    The same statements go into a table with the default buffer (one run each) and one with a 96 kb
    buffer (runs of 4,096 rows: a 20,000-row statement is five runs). Each run's keys are assigned
    knowing the earlier runs' keys, as Java's assigner knows every key it has seen. A statement
    whose keys are distinct (some of them old) puts every key in the same bucket in both tables,
    the one Java's key-by-key assigner (`java_model`, fed the keys in arrival order) picks, and
    leaves the same HASH index. With keys repeated within and across runs, the version a run keeps
    is placed at its arrival, as a one-run statement places the version it keeps: each table
    matches the model fed its own order. Every key sits in one bucket, the HASH index's; the
    several-runs table has several level-0 files per bucket; both read back every key's last
    arrival.
    """
    import paimon_sql
    from paimon_sql.format.bucket import row_hash
    from paimon_sql.types import parse_type

    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    options = DynamicBucketOptions(target_row_num=700, num_assigners=assigners)
    for name, extra in (("one", ""), ("runs", ", 'write-buffer-size' = '96 kb'")):
        session.sql(
            f"CREATE TABLE db.{name} (p INT NOT NULL, k INT NOT NULL, v BIGINT, "
            "PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '-1', "
            f"'dynamic-bucket.target-row-num' = '700', "
            f"'dynamic-bucket.initial-buckets' = '{assigners}'{extra})"
        )
    rng = random.Random(assigners)
    # 1: HASH files with a partly filled bucket; 2: five runs of distinct keys, 1,000 of them old;
    # 3: five runs of keys repeated within and across runs (and with the earlier statements')
    first = [(rng.randrange(2), k, k) for k in rng.sample(range(30_000), 1500)]
    fresh = rng.sample(range(30_000, 60_000), 19_000)
    second = [(k % 2, k, 10_000 + i) for i, k in enumerate(fresh)]
    second += [(p, k, 40_000 + i) for i, (p, k, _) in enumerate(first[:1000])]
    rng.shuffle(second)
    third = [(rng.randrange(2), rng.randrange(66_000), 100_000 + i) for i in range(20_000)]
    statements = (first, second, third)
    state: dict[str, list[list[tuple[int, int]]]] = {name: [] for name in ("one", "runs")}
    for n, rows in enumerate(statements):
        data = pa.table(
            {
                "p": pa.array([r[0] for r in rows], pa.int32()),
                "k": pa.array([r[1] for r in rows], pa.int32()),
                "v": pa.array([r[2] for r in rows], pa.int64()),
            }
        )
        session.con.register(f"input_{n}", data)
        for name in ("one", "runs"):
            session.sql(f"INSERT INTO db.{name} SELECT * FROM input_{n}")
        state["one"].append(_survivors(rows))
        state["runs"].extend(_survivors(rows[i : i + 4096]) for i in range(0, len(rows), 4096))
        if n == 1:  # distinct keys: both tables as Java, key by key in arrival order
            assert len(set(_survivors(rows))) == len(rows)
            after = {name: _key_buckets(session, name, tmp_path)[0] for name in state}
            assert after["runs"] == after["one"]
            keys = [(p, k) for p, k, _ in first + second]
            model = {
                part: _model(
                    [
                        [row_hash((k,), [parse_type("INT")]) for p, k in b if p == part]
                        for b in ([(p, k) for p, k, _ in first], [(p, k) for p, k, _ in second])
                    ],
                    options,
                )
                for part in (0, 1)
            }
            assert after["one"] == {
                (p, k): model[p][row_hash((k,), [parse_type("INT")])] for p, k in keys
            }
            assert _index_by_part(session, "db.runs") == _index_by_part(session, "db.one")
    last = {}
    for rows in statements:
        for p, k, v in rows:
            last[(p, k)] = v
    for name, batches in state.items():
        buckets, files = _key_buckets(session, name, tmp_path)
        model = {
            part: _model(
                [[row_hash((k,), [parse_type("INT")]) for p, k in b if p == part] for b in batches],
                options,
            )
            for part in (0, 1)
        }
        assert buckets == {(p, k): model[p][row_hash((k,), [parse_type("INT")])] for p, k in last}
        index = _index_by_part(session, f"db.{name}")
        assert sum(len(h) for h in index.values()) == len(last)
        read = session.sql(f"SELECT p, k, v FROM db.{name}").fetchall()
        assert sorted(read) == sorted((p, k, v) for (p, k), v in last.items())
        # a file per statement and bucket in one run; one per run in several
        assert max(files.values()) >= 5 if name == "runs" else max(files.values()) <= 3, files
    session.close()


def test_an_overwrite_of_several_runs_indexes_what_it_wrote(tmp_path):
    """INSERT OVERWRITE of five runs (distinct keys, a third of them old): the same buckets and the
    same HASH index as the one-run overwrite, which `test_dynamic_overwrite_flink.py` checks against
    Flink: assigned knowing the old keys, each new HASH file holding the keys the overwrite wrote.
    """
    import paimon_sql

    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    for name, extra in (("one", ""), ("runs", ", 'write-buffer-size' = '96 kb'")):
        session.sql(
            f"CREATE TABLE db.{name} (p INT NOT NULL, k INT NOT NULL, v BIGINT, "
            "PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '-1', "
            f"'dynamic-bucket.target-row-num' = '900'{extra})"
        )
        session.sql(f"INSERT INTO db.{name} SELECT i % 2, i, i FROM range(3000) t(i)")
        session.sql(
            f"INSERT OVERWRITE db.{name} SELECT 0, k, -k FROM (SELECT (i * 7) % 18000 + 1000 AS k "
            "FROM range(18000) t(i)) ORDER BY hash(k)"
        )
    one, _ = _key_buckets(session, "one", tmp_path)
    runs, files = _key_buckets(session, "runs", tmp_path)
    assert runs == one
    assert max(files.values()) >= 5
    index = _index_by_part(session, "db.runs")
    assert index == _index_by_part(session, "db.one")
    # partition 0 indexes exactly its 18,000 written keys; partition 1 keeps its 1,500
    assert sum(len(h) for h in index.values()) == 18_000 + 1_500
    read = session.sql("SELECT p, k, v FROM db.runs").fetchall()
    assert sorted(read) == sorted(session.sql("SELECT p, k, v FROM db.one").fetchall())
    assert len(read) == 18_000 + 1_500
    session.close()


def mapping_of(index):
    """hash -> bucket of an index given as bucket -> HASH file content."""
    return {h: bucket for bucket, data in index.items() for h in decode_hashes(data)}


def _index_by_part(session, name):
    """(partition bytes, bucket) -> sorted hashes of table `name`'s HASH files."""
    from paimon_sql.write.writer import TableWriter

    table = session.table(name)
    return {
        key: sorted(decode_hashes(blob))
        for key, blob in TableWriter(None, table).hash_index().items()
    }


@pytest.mark.parametrize(
    ("source", "rows", "python"),
    [
        # DuckDB estimates 500 rows: hashed in Python
        ("SELECT 'key-' || i, i::INT FROM range(500) r(i)", 500, True),
        # estimated 4,000 (a fifth of the range), 20,000 staged: counted, then hashed in SQL
        ("SELECT 'key-' || i, i::INT FROM range(20000) r(i) WHERE i % 3 >= 0", 20000, False),
        # DuckDB estimates a LIMIT at the root at 0 rows, under the staging projection at its count
        ("SELECT 'key-' || i, i::INT FROM range(20000) r(i) LIMIT 300", 300, True),
    ],
    ids=["estimated_small", "estimated_wrongly", "limited"],
)
def test_an_insert_select_duckdb_estimates_small_hashes_as_the_sql_path(
    tmp_path, monkeypatch, source, rows, python
):
    """``INSERT … SELECT`` into a dynamic-bucket table whose source DuckDB estimates at most
    `SMALL_INPUT_ROWS` rows gets its key hashes from Python (not binding the SQL hash: tens of ms
    for a STRING key), unless more rows than that were staged; either way the HASH index and the
    rows are those of the SQL hash path."""
    import paimon_sql
    from paimon_sql.write import writer
    from paimon_sql.write.bucket import python_hashes

    hashed: list[int] = []

    def counting(columns, types):
        hashed.append(len(columns[0]))
        return python_hashes(columns, types)

    monkeypatch.setattr(writer, "python_hashes", counting)
    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    for name in ("estimated", "by_sql"):
        session.sql(
            f"CREATE TABLE db.{name} (k STRING NOT NULL, v INT, PRIMARY KEY (k) NOT ENFORCED) "
            "WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '64')"
        )
    session.sql(f"INSERT INTO db.estimated {source}")
    assert hashed == ([rows] if python else [])
    with monkeypatch.context() as forced:
        forced.setattr(writer.TableWriter, "_probably_few", lambda _self, _source: False)
        session.sql(f"INSERT INTO db.by_sql {source}")
    assert hashed == ([rows] if python else [])
    index = _index_by_bucket(session, "db.estimated")
    assert index == _index_by_bucket(session, "db.by_sql")
    assert sum(len(h) for h in index.values()) == rows
    read = _tables(session, ("estimated", "by_sql"), "k")
    assert read[0].equals(read[1])
    assert read[0].num_rows == rows
    session.close()


def test_small_writes_assign_as_the_loaded_index(tmp_path, monkeypatch):
    """Statements of at most `SMALL_INPUT_ROWS` rows are assigned from the HASH files' contents
    (`assign_small`), not by loading them into DuckDB: over partitions, two assigners, old and new
    keys, keys repeated within a statement and an overwrite, every key lands in the bucket the
    loaded path gives it, and both leave the same HASH index and rows."""
    import paimon_sql
    from paimon_sql.write import writer

    original = writer.TableWriter._dynamic_index
    small: list[bool] = []

    def spying(self, staged, *, single, small_):
        small.append(small_)
        return original(self, staged, single=single, small=small_)

    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    statements = [
        "INSERT INTO db.{t} SELECT i % 3, i, i FROM range(200) r(i)",
        "INSERT INTO db.{t} VALUES (0, 3, -1), (0, 1000, 1), (1, 1000, 2), (0, 1000, 3)",
        "INSERT INTO db.{t} SELECT i % 2, i * 7, i FROM range(150) r(i)",
        "INSERT OVERWRITE db.{t} PARTITION (p = 2) SELECT i, i FROM range(5, 40) r(i)",
        "INSERT INTO db.{t} SELECT i % 3, 5000 - i, i FROM range(90) r(i)",
    ]
    for name in ("python", "loaded"):
        session.sql(
            f"CREATE TABLE db.{name} (p INT NOT NULL, k INT NOT NULL, v BIGINT, "
            "PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '-1', "
            "'dynamic-bucket.target-row-num' = '17', 'dynamic-bucket.initial-buckets' = '2')"
        )
        with monkeypatch.context() as patch:
            if name == "loaded":
                patch.setattr(
                    writer.TableWriter,
                    "_dynamic_index",
                    lambda self, staged, *, single, small: original(
                        self, staged, single=single, small=False
                    ),
                )
            else:
                patch.setattr(
                    writer.TableWriter,
                    "_dynamic_index",
                    lambda self, staged, *, single, small: spying(
                        self, staged, single=single, small_=small
                    ),
                )
            for statement in statements:
                session.sql(statement.format(t=name))
    assert small == [True] * len(statements)
    python, files = _key_buckets(session, "python", tmp_path)
    loaded, _ = _key_buckets(session, "loaded", tmp_path)
    assert python == loaded
    assert max(b for _, b in files) >= 6, "several buckets opened"
    assert _index_by_part(session, "db.python") == _index_by_part(session, "db.loaded")
    read = _tables(session, ("python", "loaded"), "p, k")
    assert read[0].equals(read[1])
    assert read[0].num_rows == len(python)
    session.close()
